/*
 * fuzz_safetensors.c — libFuzzer harness for the safetensors reader
 * (st_parse, a pure function over a buffer) and the batch-order readers
 * (npy_parse_i64, order_parse_text) it is usually fed next to.
 *
 * Build (clang):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -D_GNU_SOURCE \
 *       tests/fuzz/fuzz_safetensors.c src/formats/safetensors.c src/formats/order.c src/base/util.c \
 *       src/model/model.c src/base/rng.c -ljansson -lm -o build/fuzz_safetensors
 *   build/fuzz_safetensors -max_total_time=60
 *
 * What it checks beyond "no crash, no sanitizer report": an accepted file's
 * tensors lie inside the buffer, tile the data section exactly, and have
 * byte lengths equal to prod(shape) * dtype size — the promises safetensors.h
 * makes.  The first byte picks the target so one corpus serves all three.
 * In the shared pattern (fuzz.h): `make fuzz` builds it, `make test`
 * replays tests/fuzz/corpus/safetensors/.
 */
#include "fuzz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/order.h"
#include "formats/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    if (data[0] % 3 == 0) {
        st_file f;
        fuzz_last_rc = st_parse(&f, p, n, "fuzz");
        if (fuzz_last_rc == 0) {
            size_t covered = 0;
            for (size_t i = 0; i < f.n; i++) {
                const st_tensor *t = &f.t[i];
                if (t->data < p || t->data + (t->end - t->begin) > p + n) abort();
                if (t->numel * st_dtype_size(t->dtype) != t->end - t->begin) abort();
                covered += t->end - t->begin;
                unsigned char tmp[64];
                if (t->end - t->begin <= sizeof tmp) st_tensor_copy(t, tmp);
            }
            uint64_t hl = 0;
            for (int i = 7; i >= 0; i--) hl = hl << 8 | p[i];
            if (covered != n - 8 - hl) abort();
            st_free(&f);
        }
    } else {
        int64_t *v = NULL;
        size_t rows = 0, cols = 0;
        int rc = data[0] % 3 == 1 ? npy_parse_i64(p, n, "fuzz", &v, &rows, &cols)
                                  : order_parse_text((const char *)p, n, "fuzz", &v, &rows, &cols);
        fuzz_last_rc = rc;
        if (rc == 0) {
            /* unsigned: a sum of int64 values read from the input overflows */
            volatile uint64_t sink = 0;
            for (size_t i = 0; i < rows * cols; i++) sink += (uint64_t)v[i]; /* every value readable */
            (void)sink;
        }
        free(v);
    }
    return 0;
}
