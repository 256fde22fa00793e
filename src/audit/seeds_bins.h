/*
 * audit/seeds_bins.h — the logit-margin histogram of the seed loop, in one
 * place: run.json (seeds_json), the report's table and its chart all read
 * these numbers, never a copy computed next to them.
 */
#ifndef LS_SEEDS_BINS_H
#define LS_SEEDS_BINS_H

#include "audit/seeds.h"

#define SEEDS_MARGIN_BINS 8

typedef struct {
    long n_flipped, n_all;                 /* images counted (pooled over seeds) */
    long flipped[SEEDS_MARGIN_BINS], all[SEEDS_MARGIN_BINS];
    double flipped_pct[SEEDS_MARGIN_BINS], all_pct[SEEDS_MARGIN_BINS]; /* % of n_flipped / n_all (0 when none) */
} seeds_margin_bins;

/* Bin labels: "< 1e-4", "1e-4..1e-3", ..., ">= 3" (top-two logit margin). */
extern const char *const SEEDS_MARGIN_LABELS[SEEDS_MARGIN_BINS];

/* The histogram of engine a's top-two logit margins, last epoch, pooled
 * over seeds, of pair pi: the images a and b classify differently, and all
 * images.  Returns 0, or -1 when the pair has no margins kept. */
int seeds_margin_histogram(const seeds_result *S, int pi, seeds_margin_bins *out);

#endif
