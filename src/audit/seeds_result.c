/*
 * seeds_result.c — freeing a seed loop's result (audit/seeds.h).  Apart
 * from the loop itself so that the driver, which owns the result inside
 * its audit_result, does not depend on the loop that calls it.
 */
#include <stdlib.h>
#include <string.h>

#include "audit/seeds.h"

void seeds_result_free(seeds_result *r) {
    for (int i = 0; i < r->n_engines; i++)
        for (int s = 0; s < SEEDS_MAX; s++) {
            free(r->eng[i].pred[s]);
            free(r->eng[i].margin[s]);
        }
    for (int pi = 0; pi < r->n_pairs; pi++)
        for (int s = 0; s < SEEDS_MAX; s++) {
            free(r->pair[pi].rel_l2[s]);
            free(r->pair[pi].mcnemar_class[s]);
        }
    free(r->labels);
    free(r->band_lo);
    free(r->band_hi);
    memset(r, 0, sizeof *r);
}
