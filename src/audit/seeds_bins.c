/*
 * seeds_bins.c — the margin histogram (audit/seeds_bins.h).
 */
#include "audit/seeds_bins.h"

#include <math.h>
#include <string.h>

const char *const SEEDS_MARGIN_LABELS[SEEDS_MARGIN_BINS] = {"< 1e-4",  "1e-4..1e-3", "1e-3..0.01", "0.01..0.1",
                                                            "0.1..0.3", "0.3..1",     "1..3",       ">= 3"};
/* a flip at margin 1e-4 is rounding meeting a near-tie; at 3 it is not */
static const double EDGE[SEEDS_MARGIN_BINS - 1] = {1e-4, 1e-3, 1e-2, 0.1, 0.3, 1, 3};

int seeds_margin_histogram(const seeds_result *S, int pi, seeds_margin_bins *o) {
    memset(o, 0, sizeof *o);
    if (pi < 0 || pi >= S->n_pairs || S->epochs < 1) return -1;
    const seeds_pair *p = &S->pair[pi];
    const seeds_engine *ea = &S->eng[p->a], *eb = &S->eng[p->b];
    size_t n = S->n_test, last = (size_t)S->epochs - 1;
    int any = 0;
    for (int sd = 0; sd < S->n_seeds; sd++) {
        if (!ea->margin[sd] || !ea->pred[sd] || !eb->pred[sd]) continue;
        any = 1;
        const uint8_t *pa = ea->pred[sd] + last * n, *pb = eb->pred[sd] + last * n;
        for (size_t k = 0; k < n; k++) {
            double mg = ea->margin[sd][k];
            if (isnan(mg)) continue;
            int bin = 0;
            while (bin < SEEDS_MARGIN_BINS - 1 && mg >= EDGE[bin]) bin++;
            o->all[bin]++;
            o->n_all++;
            if (pa[k] != pb[k]) {
                o->flipped[bin]++;
                o->n_flipped++;
            }
        }
    }
    for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
        o->flipped_pct[k] = o->n_flipped ? 100.0 * o->flipped[k] / o->n_flipped : 0;
        o->all_pct[k] = o->n_all ? 100.0 * o->all[k] / o->n_all : 0;
    }
    return any ? 0 : -1;
}
