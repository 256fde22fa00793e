/*
 * fuzz.h — what every libFuzzer harness in tests/fuzz/ shares.
 *
 * A harness is one file, tests/fuzz/fuzz_NAME.c, that includes this header
 * and defines LLVMFuzzerTestOneInput(data, size), calling a parser's public
 * entry point on the input and setting fuzz_last_rc to what it returned.
 * Its corpus lives in tests/fuzz/corpus/NAME/ (files named ok-* must parse,
 * every other file may fail but must fail cleanly).  The Makefile finds
 * harnesses by that name pattern: adding a target is the harness file and
 * its corpus directory, nothing else:
 *   make fuzz        build/fuzz/fuzz_NAME, libFuzzer + ASan + UBSan (clang)
 *   make fuzz-smoke  each for FUZZ_SECONDS (default 60) from its corpus
 *   make test        build/tests/replay_fuzz_NAME: every corpus file
 *                    replayed through the same function (gcc, and again
 *                    under ASan+UBSan)
 *
 * Parsers that open files get the input through fuzz_path(): a memfd,
 * rewritten for each input and opened by its /proc/self/fd name — a
 * regular file to the parser, no disk traffic.
 */
#ifndef LS_FUZZ_H
#define LS_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the parser returned for the last input (0: accepted). */
#ifdef FUZZ_REPLAY_MAIN
extern int fuzz_last_rc;
#else
int fuzz_last_rc;
#endif

/* Put n bytes in memfd number `slot` (0..3) and return a path that opens
 * it; exits on failure (the harness cannot go on without it). */
static inline const char *fuzz_path(int slot, const void *data, size_t n) {
    static int fd[4] = {-1, -1, -1, -1};
    static char path[4][32];
    if (fd[slot] < 0) {
        /* the IDX loader's decompressed copies (formats/data.c) would be
         * written to the disk for memfd names: no disk traffic */
        setenv("LOCKSTEP_CACHE", "off", 1);
        fd[slot] = memfd_create("lockstep-fuzz", 0);
        if (fd[slot] < 0) {
            perror("memfd_create");
            exit(1);
        }
        snprintf(path[slot], sizeof path[slot], "/proc/self/fd/%d", fd[slot]);
    }
    if (ftruncate(fd[slot], 0) != 0 || (n && pwrite(fd[slot], data, n, 0) != (ssize_t)n)) {
        perror("memfd write");
        exit(1);
    }
    return path[slot];
}

#endif
