/*
 * replay_main.c — `make test`'s half of the fuzz targets: a CMocka program,
 * linked once per harness as build/tests/replay_fuzz_NAME, that feeds every
 * file of tests/fuzz/corpus/NAME/ to that harness's LLVMFuzzerTestOneInput
 * — the same entry point libFuzzer drives — so the seeds and every crash
 * reproducer committed there stay fixed.  Under the sanitizer build a
 * regression is an ASan/UBSan report; in every build it is a crash, or a
 * seed named ok-* that no longer parses.
 *
 * Not here: generating inputs (that is `make fuzz-smoke`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#define FUZZ_REPLAY_MAIN
#include "fuzz.h"

#ifndef LS_SRCDIR
#define LS_SRCDIR "."
#endif

static char g_corpus[PATH_MAX];

static int setup(void **st) {
    /* build/tests/replay_fuzz_NAME -> tests/fuzz/corpus/NAME */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    if (strncmp(base, "replay_fuzz_", 12) != 0) return -1;
    snprintf(g_corpus, sizeof g_corpus, "%s/tests/fuzz/corpus/%s", LS_SRCDIR, base + 12);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static void test_replay_corpus(void **st) {
    struct dirent **ents;
    int n = scandir(g_corpus, &ents, NULL, by_name);
    if (n < 0) fail_msg("%s: cannot read the corpus directory", g_corpus);
    int files = 0, accepted = 0, ok_seeds = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", g_corpus, ents[i]->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            free(ents[i]);
            continue;
        }
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        uint8_t *buf = malloc((size_t)sb.st_size + 1);
        assert_non_null(buf);
        size_t got = fread(buf, 1, (size_t)sb.st_size, f);
        fclose(f);
        assert_int_equal(got, (size_t)sb.st_size);
        fuzz_last_rc = -100;
        assert_int_equal(LLVMFuzzerTestOneInput(buf, got), 0);
        free(buf);
        files++;
        accepted += fuzz_last_rc == 0;
        if (strncmp(ents[i]->d_name, "ok-", 3) == 0) {
            ok_seeds++;
            if (fuzz_last_rc != 0) fail_msg("%s: a seed that must parse was refused (rc %d)", path, fuzz_last_rc);
        }
        free(ents[i]);
    }
    free(ents);
    print_message("  %s: %d files replayed, %d accepted (%d ok-* seeds)\n", g_corpus, files, accepted, ok_seeds);
    /* an empty corpus would make this test unable to fail */
    assert_true(files > 0);
    assert_true(ok_seeds > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_corpus),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
