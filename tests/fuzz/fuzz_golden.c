/*
 * fuzz_golden.c — the golden file reader (golden.h golden_read: header,
 * provenance, the deflated record stream, footer and checksum).  See
 * fuzz.h.
 *
 * Input: [mode u8][file].  Mode bit 0 set: the harness first makes the
 * file's integrity fields agree with its bytes (the header's file size at
 * offset 16 and the footer's crc32 over everything before it, FORMAT.md),
 * so that mutations get past check 3 into the provenance, stream and
 * record checks behind it; clear: the bytes as they are.
 */
#include "fuzz.h"

#include <string.h>
#include <zlib.h>

#include "formats/golden.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static uint8_t buf[1 << 20];
    if (size < 1 || size - 1 > sizeof buf) return 0;
    size_t n = size - 1;
    memcpy(buf, data + 1, n);
    if ((data[0] & 1) && n >= 32 + 28) {
        for (int i = 0; i < 8; i++) buf[16 + i] = (uint8_t)((uint64_t)n >> (8 * i));
        uint32_t crc = (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), buf, n - 4);
        for (int i = 0; i < 4; i++) buf[n - 4 + i] = (uint8_t)(crc >> (8 * i));
    }
    golden_file *gf = NULL;
    fuzz_last_rc = golden_read(&gf, fuzz_path(0, buf, n));
    if (fuzz_last_rc == 0) {
        /* touch every value: the reader promised count floats per record */
        volatile float sink = 0;
        for (size_t i = 0; i < gf->n_records; i++)
            for (size_t k = 0; k < gf->records[i].count; k++) sink += gf->records[i].values[k];
        (void)sink;
    }
    golden_file_free(gf);
    return 0;
}
