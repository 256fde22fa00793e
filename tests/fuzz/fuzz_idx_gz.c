/*
 * fuzz_idx_gz.c — the IDX reader behind a valid gzip layer: the harness
 * compresses both parts of the input (fuzz_idx.c's layout), so mutations
 * reach the IDX header and data through zlib's gzip path instead of
 * breaking the container.  See fuzz.h.
 */
#include "fuzz.h"

#include <string.h>
#include <zlib.h>

#include "formats/data.h"

/* gzip-compress src into a malloc'd buffer; returns its length (0: failed) */
static size_t gzip_bytes(const uint8_t *src, size_t n, uint8_t **out) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    size_t cap = deflateBound(&z, n) + 32;
    *out = malloc(cap);
    if (!*out) {
        deflateEnd(&z);
        return 0;
    }
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return r == Z_STREAM_END ? len : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    size_t ni = (size_t)data[1] | (size_t)data[2] << 8;
    if (ni > size - 3) ni = size - 3;
    uint8_t *gi = NULL, *gl = NULL;
    size_t li = gzip_bytes(data + 3, ni, &gi), ll = gzip_bytes(data + 3 + ni, size - 3 - ni, &gl);
    if (li && ll) {
        const char *ip = fuzz_path(0, gi, li);
        const char *lp = fuzz_path(1, gl, ll);
        idx_set s;
        int want = data[0] & 1;
        fuzz_last_rc = idx_load_shape(&s, ip, lp, 10, want ? 4 : 0, want ? 4 : 0);
        idx_free(&s);
    }
    free(gi);
    free(gl);
    return 0;
}
