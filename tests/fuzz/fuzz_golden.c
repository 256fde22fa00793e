/*
 * fuzz_golden.c — the golden file reader (golden.h golden_read: header,
 * provenance, the deflated record stream, footer and checksum).  See
 * fuzz.h.
 */
#include "fuzz.h"

#include "golden.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    golden_file *gf = NULL;
    fuzz_last_rc = golden_read(&gf, fuzz_path(0, data, size));
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
