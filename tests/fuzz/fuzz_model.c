/*
 * fuzz_model.c — the model spec parser (model.h model_parse_spec) on
 * arbitrary text, up to the 8 KiB model_build reads from a file.  See
 * fuzz.h.
 */
#include "fuzz.h"

#include <string.h>

#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char text[8192];
    static model m;
    if (size >= sizeof text) size = sizeof text - 1;
    memcpy(text, data, size);
    text[size] = 0; /* model_build refuses NUL bytes; the parser sees text up to the first */
    fuzz_last_rc = model_parse_spec(&m, text, "fuzz.spec");
    if (fuzz_last_rc == 0) {
        /* what callers then compute from the model must be consistent */
        size_t total = 0;
        for (int t = 0; t < m.n_tensors; t++) total += m.tensors[t].numel;
        if (total != m.n_params) abort();
        for (int l = 0; l < m.n_layers; l++)
            if (layer_out_size(&m.layers[l]) == 0) abort();
    }
    return 0;
}
