/*
 * stats.h — the statistics that judge whether a gap between two engines
 * means anything (issue 11): the exact McNemar test on the test images two
 * engines classify differently, top-two logit margins, the growth rate of a
 * divergence curve and its exit from a noise band, the spread of accuracy
 * over seeds with a paired t-interval, and a noise floor drawn several
 * times.
 *
 * Pure functions over arrays, no I/O, no allocation; every function states
 * what it assumes.  The JSON helpers at the end format one struct each;
 * which pairs and epochs go into run.json is decided by seeds.c
 * (seeds_pair_json) and the report.
 *
 * Not here: running engines, choosing which pair a user cares about,
 * wording verdicts beyond the one-line rule of stats_seed_verdict.
 */
#ifndef LS_STATS_H
#define LS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* ---- exact McNemar ------------------------------------------------------ */

/* The discordant counts of a pair on one set of images and the exact
 * two-sided p-value.  b: A right and B wrong; c: A wrong and B right. */
typedef struct {
    long b, c;
    double p;
} stats_mcnemar;

/* Exact two-sided McNemar p-value: min(1, 2 P[X <= min(b,c)]) with
 * X ~ Binomial(b + c, 1/2).  Assumes the images are independent draws and,
 * under the null hypothesis, that each discordant image is equally likely
 * to go either way; it conditions on b + c (the concordant images carry no
 * information).  b + c = 0 gives 1.  Computed in log space: relative
 * error ~1e-11 at b + c = 1e5, ~1e-9 at 1e6; a p-value below the smallest
 * double (~1e-308, e.g. b = 10, c = 99990) underflows to 0. */
double stats_mcnemar_p(long b, long c);

/* From predictions of A and B and the labels of n images: the overall
 * b, c, p in *all, and per class (true label k < n_classes) in
 * per_class[k] (may be NULL).  Images with a label outside 0..n_classes-1
 * count in *all only. */
void stats_mcnemar_fill(stats_mcnemar *all, stats_mcnemar *per_class, const uint8_t *pred_a,
                        const uint8_t *pred_b, const uint8_t *labels, size_t n, int n_classes);

/* ---- logit margins ------------------------------------------------------ */

/* margin[i] = largest minus second-largest logit of row i of logits
 * (n, C), C >= 2.  A tie (two equal maxima, infinities included) gives 0;
 * a row with a NaN gives NaN (its arg-max is undefined).  C < 2 gives NaN. */
void stats_margins(double *margin, const float *logits, size_t n, int C);

/* One test image that two engines classify differently. */
typedef struct {
    uint32_t index;
    uint8_t label, pred_a, pred_b;
    double margin_a, margin_b; /* top-two margins on each engine (NaN: not recorded) */
} stats_flip;

/* The flipped images of a pair: fills flips[0..] (room for n) and returns
 * how many.  margin_a/margin_b may be NULL (margins then NaN); labels may be
 * NULL (label then 255). */
size_t stats_flips(stats_flip *flips, const uint8_t *pred_a, const uint8_t *pred_b, const uint8_t *labels,
                   const double *margin_a, const double *margin_b, size_t n);

/* Order statistics of a sample; NaN values are counted and left out. */
typedef struct {
    size_t n, n_nan;
    double min, q10, q25, median, q75, q90, max, mean;
} stats_summary;

/* Summary of v[0..n-1]; quantiles by linear interpolation between order
 * statistics (R's type 7).  Uses scratch (room for n doubles) and leaves v
 * unchanged.  With no finite-or-infinite value, everything is NaN. */
void stats_summarize(stats_summary *s, const double *v, size_t n, double *scratch);

/* Margins of a pair's flipped images against every image's margin on the
 * same engine: for each flip, the fraction of all images whose margin is
 * smaller (its rank, 0 = the nearest tie of the test set).  If rounding
 * meets a near-tie, flips sit at low ranks (median rank << 0.5); if flips
 * were unrelated to the margin, ranks would be uniform (median ~0.5).
 * rank_out has room for n_flips; sorted_all is every image's margin sorted
 * ascending with NaN removed (n_all values).  Flips with a NaN margin get
 * NaN. */
void stats_margin_ranks(double *rank_out, const double *flip_margin, size_t n_flips, const double *sorted_all,
                        size_t n_all);

/* Count of values < t (NaN not counted). */
size_t stats_count_below(const double *v, size_t n, double t);

/* ---- divergence growth -------------------------------------------------- */

typedef struct {
    long n;             /* points used (finite and > 0) */
    double rate;        /* d ln(y) / d step: growth per step */
    double efold_steps; /* 1 / rate; +inf when rate <= 0 */
    double intercept;   /* ln y at step 0 */
    double r2;          /* coefficient of determination of the log fit */
    long first, last;   /* first and last step used */
} stats_growth;

/* Least-squares fit of ln(y[s]) = intercept + rate * step[s] over the
 * points with y finite and > 0 and step in [from, to] (to < 0: no upper
 * limit).  Assumes exponential growth (rounding differences amplified by a
 * roughly constant factor per step); the fit says how well it holds (r2).
 * Fewer than 2 points or no spread in step: rate NaN. */
void stats_growth_fit(stats_growth *g, const long *step, const double *y, size_t n, long from, long to);

/* Per-step band of K noise-floor curves, each of n steps: lo[s] / hi[s] =
 * min / max over the draws with a finite value at s (NaN where none). */
void stats_band(double *lo, double *hi, const double *const *curves, int k, size_t n);

/* The factor above the band's max that counts as leaving it.  A convention
 * written down rather than a test: one doubling above the largest of the
 * floor draws, for STATS_BAND_RUN consecutive compared steps.  Measured on
 * SmallCNN (FashionMNIST, 1 epoch, 3 draws of cpu:perturb=1): the band's
 * max/min has a median of 2.2 and a 90th percentile of 4.2 over the steps,
 * so the largest of a few draws already sits near the top of the noise;
 * twice that, several steps running, is not one more draw of it.  (At step
 * 1 the band is ~1000x wide: Adam's first update is lr * sign(g), so a
 * gradient near 0 whose sign the perturbation flips moves its weight by
 * 2 lr.) */
#define STATS_BAND_FACTOR 2.0
#define STATS_BAND_RUN 3

/* First step (index into y, 0-based) of the first run of k consecutive
 * indices at which y > factor * hi (both finite); -1 when the curve never
 * leaves the band.  Assumes y and hi are indexed by the same steps. */
long stats_band_exit(const double *y, const double *hi, size_t n, double factor, int k);

/* ---- seed spread -------------------------------------------------------- */

typedef struct {
    int n;
    double mean, sd, min, max; /* sd with n - 1 (NaN for n < 2) */
} stats_spread;

void stats_spread_of(stats_spread *s, const double *v, int n);

/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (t such that P[|T| <= t] = 0.95): a table for df 1..30 (the standard
 * values to 3 decimals, e.g. Abramowitz & Stegun table 26.10, recomputed
 * with the t CDF by the tests), then the Cornish-Fisher expansion in 1/df
 * about z = 1.959964 (A&S 26.7.5), accurate to ~1e-4 beyond df 30.
 * df < 1 gives NaN. */
double stats_t975(int df);

/* Paired comparison over N seeds: d_i = acc_a[i] - acc_b[i] (same seed,
 * same data order, same initial weights; only the engine differs).
 * Assumes the d_i independent and roughly normal (t-interval). */
typedef struct {
    int n;
    double mean, sd;         /* of the paired gaps d_i (sd NaN for n < 2) */
    double half_width;       /* t975(n-1) * sd / sqrt(n): 95% interval mean +- half_width */
    double lo, hi;
    double unpaired_sd;      /* sd of acc_a over seeds (seed-to-seed spread), for contrast */
    int indistinguishable;   /* 1 when lo <= 0 <= hi; -1 (no verdict) for n < 2, a NaN accuracy, or the
                              * same nonzero gap in every seed (sd 0: no t-interval) */
} stats_paired;

void stats_paired_of(stats_paired *p, const double *acc_a, const double *acc_b, int n);

/* The verdict in words, written to buf: "A vs B: indistinguishable (paired
 * gap +0.03 +- 0.12 points over 5 seeds, 95% interval -0.09..+0.15: a real
 * gap outside it is unlikely, one inside it is not ruled out)" or "A vs B:
 * A better by 0.31 +- 0.10 points (paired over 5 seeds)", with the engines'
 * labels; +- is the 95% half-width.  The interval is not a power statement:
 * a real gap the size of the half-width is missed ~40% of the time (N = 3),
 * and 80% power needs ~1.3x it.  Accuracies are fractions; points are
 * percent.  n < 2: "A vs B: one seed, no verdict (needs --seeds N >= 2)";
 * a NaN accuracy or a gap with no spread: "no verdict" and why.  Returns
 * buf. */
const char *stats_seed_verdict(char *buf, size_t cap, const stats_paired *p, const char *a, const char *b);

/* ---- noise floor with a spread ----------------------------------------- */

typedef struct {
    int k;                   /* draws */
    double mean, max, min, sd;
} stats_floor;

void stats_floor_of(stats_floor *f, const double *draws, int k);

/* Whether value v lies within the floor: 1 when v <= the largest draw, 0
 * when above every draw.  *p_emp (may be NULL) gets the empirical one-sided
 * p-value (1 + #{draws >= v}) / (k + 1): a value above all K draws has
 * p = 1/(K+1), the smallest K draws can say.  Assumes the draws and v are
 * the same kind of quantity (flips, or |accuracy gap|) from comparable
 * runs, and the draws exchangeable with v under "only rounding noise".
 * k = 0: returns -1 (no floor). */
int stats_floor_within(const double *draws, int k, double v, double *p_emp);

/* ---- JSON --------------------------------------------------------------- */

/* {"b": .., "c": .., "p": ..} */
void stats_mcnemar_json(lsbuf *b, const stats_mcnemar *m);
/* {"n": .., "nan": .., "min": .., "q10": .., ..., "max": .., "mean": ..} */
void stats_summary_json(lsbuf *b, const stats_summary *s);
/* {"points": .., "rate_per_step": .., "steps_per_efold": .., "r2": .., "first": .., "last": ..} */
void stats_growth_json(lsbuf *b, const stats_growth *g);
void stats_spread_json(lsbuf *b, const stats_spread *s);
void stats_paired_json(lsbuf *b, const stats_paired *p);
void stats_floor_json(lsbuf *b, const stats_floor *f);

/* Holm's step-down adjustment of m p-values (m <= 256): adj[i] controls the
 * family-wise error over the m tests (e.g. per-class McNemar over classes). */
void stats_holm(const double *p, int m, double *adj);

#endif
