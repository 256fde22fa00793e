/*
 * fuzz_idx.c — the IDX reader (data.h idx_load_shape) on raw bytes: plain
 * IDX files, and gzip containers as the fuzzer mutates them (corrupt
 * headers, streams, trailers).  See fuzz.h.
 *
 * Input: [flags u8][images length u16 LE][images file][labels file].
 * flags bit 0: ask for 4x4 images (the model-shape check before allocating).
 */
#include "fuzz.h"

#include "formats/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    size_t ni = (size_t)data[1] | (size_t)data[2] << 8;
    if (ni > size - 3) ni = size - 3;
    const char *ip = fuzz_path(0, data + 3, ni);
    const char *lp = fuzz_path(1, data + 3 + ni, size - 3 - ni);
    idx_set s;
    int want = data[0] & 1;
    fuzz_last_rc = idx_load_shape(&s, ip, lp, 10, want ? 4 : 0, want ? 4 : 0);
    idx_free(&s);
    return 0;
}
