/*
 * stats.c — see stats.h.  Everything here is arithmetic on arrays the
 * caller owns; the one sort (quantiles) runs on scratch space the caller
 * passes in.
 *
 * Not here: where the numbers come from (audit/driver.c, seeds.c) or how they
 * are shown (report.c, seeds_print).
 */
#include "base/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- exact McNemar ------------------------------------------------------ */

/* P[X <= m] for X ~ Bin(n, 1/2), m <= n/2, as a natural log.
 *
 * The terms pmf(k) = C(n,k) 2^-n increase with k up to n/2, so the largest
 * term of the tail is pmf(m).  Its log comes from lgamma once; the others
 * follow from the exact ratio pmf(k-1)/pmf(k) = k / (n-k+1) < 1, summed as
 * multiples of pmf(m) (s starts at 1 and only grows), so nothing
 * underflows however small the tail: the result is log pmf(m) + log s.
 * lgamma(n+1) ~ n ln n carries an absolute error of a few ulps of itself,
 * ~1e-16 * 1.4e7 = 1e-9 at n = 1e6, which is the relative error of the
 * p-value there (and ~1e-11 at n = 1e5).  The loop stops once a term
 * falls below 1e-18 of the sum (it cannot change it) and runs at most
 * m + 1 times. */
static double log_binom_half_cdf(long m, long n) {
    double lpm = lgamma((double)n + 1) - lgamma((double)m + 1) - lgamma((double)(n - m) + 1) - (double)n * M_LN2;
    double s = 1, t = 1;
    for (long k = m; k > 0; k--) {
        t *= (double)k / (double)(n - k + 1);
        s += t;
        if (t < 1e-18 * s) break;
    }
    return lpm + log(s);
}

double stats_mcnemar_p(long b, long c) {
    if (b < 0 || c < 0) return NAN;
    long n = b + c, m = b < c ? b : c;
    if (n == 0) return 1;
    /* b == c: P[X <= n/2] >= 1/2, so the doubled tail is >= 1 */
    if (2 * m >= n) return 1;
    double p = 2 * exp(log_binom_half_cdf(m, n));
    return p < 1 ? p : 1;
}

void stats_mcnemar_fill(stats_mcnemar *all, stats_mcnemar *per_class, const uint8_t *pred_a,
                        const uint8_t *pred_b, const uint8_t *labels, size_t n, int n_classes) {
    memset(all, 0, sizeof *all);
    if (per_class) memset(per_class, 0, (size_t)(n_classes > 0 ? n_classes : 0) * sizeof *per_class);
    for (size_t i = 0; i < n; i++) {
        int ra = pred_a[i] == labels[i], rb = pred_b[i] == labels[i];
        if (ra == rb) continue;
        long *cnt = ra ? &all->b : &all->c;
        (*cnt)++;
        if (per_class && labels[i] < n_classes) {
            if (ra) per_class[labels[i]].b++;
            else per_class[labels[i]].c++;
        }
    }
    all->p = stats_mcnemar_p(all->b, all->c);
    for (int k = 0; per_class && k < n_classes; k++) per_class[k].p = stats_mcnemar_p(per_class[k].b, per_class[k].c);
}

/* ---- logit margins ------------------------------------------------------ */

void stats_margins(double *margin, const float *logits, size_t n, int C) {
    for (size_t i = 0; i < n; i++) {
        const float *z = logits + i * (size_t)C;
        if (C < 2) {
            margin[i] = NAN;
            continue;
        }
        double top = -INFINITY, second = -INFINITY;
        int nan = 0;
        for (int j = 0; j < C; j++) {
            double v = z[j];
            if (isnan(v)) {
                nan = 1;
                break;
            }
            /* >= sends an equal value to `top` and the old top to
             * `second`: two equal maxima leave top == second */
            if (v >= top) {
                second = top;
                top = v;
            } else if (v > second) {
                second = v;
            }
        }
        if (nan) margin[i] = NAN;
        else if (top == second) margin[i] = 0; /* a tie, +inf vs +inf included (inf - inf would be NaN) */
        else margin[i] = top - second;
    }
}

size_t stats_flips(stats_flip *flips, const uint8_t *pred_a, const uint8_t *pred_b, const uint8_t *labels,
                   const double *margin_a, const double *margin_b, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (pred_a[i] == pred_b[i]) continue;
        stats_flip *f = &flips[k++];
        f->index = (uint32_t)i;
        f->label = labels ? labels[i] : 255;
        f->pred_a = pred_a[i];
        f->pred_b = pred_b[i];
        f->margin_a = margin_a ? margin_a[i] : NAN;
        f->margin_b = margin_b ? margin_b[i] : NAN;
    }
    return k;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Type-7 quantile of sorted v[0..n-1], n >= 1: h = (n-1) q, interpolated
 * between the floor(h)-th and the next order statistic.  Infinite values
 * sort to the ends; interpolating between inf and inf gives inf, not NaN. */
static double quantile_sorted(const double *v, size_t n, double q) {
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n) return v[n - 1];
    double f = h - (double)lo;
    if (f == 0 || v[lo] == v[lo + 1]) return v[lo];
    return v[lo] + f * (v[lo + 1] - v[lo]);
}

void stats_summarize(stats_summary *s, const double *v, size_t n, double *scratch) {
    memset(s, 0, sizeof *s);
    size_t m = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i])) {
            s->n_nan++;
            continue;
        }
        scratch[m++] = v[i];
        sum += v[i];
    }
    s->n = m;
    if (m == 0) {
        s->min = s->q10 = s->q25 = s->median = s->q75 = s->q90 = s->max = s->mean = NAN;
        return;
    }
    qsort(scratch, m, sizeof *scratch, cmp_double);
    s->min = scratch[0];
    s->max = scratch[m - 1];
    s->q10 = quantile_sorted(scratch, m, 0.10);
    s->q25 = quantile_sorted(scratch, m, 0.25);
    s->median = quantile_sorted(scratch, m, 0.50);
    s->q75 = quantile_sorted(scratch, m, 0.75);
    s->q90 = quantile_sorted(scratch, m, 0.90);
    s->mean = sum / (double)m;
}

void stats_margin_ranks(double *rank_out, const double *flip_margin, size_t n_flips, const double *sorted_all,
                        size_t n_all) {
    for (size_t i = 0; i < n_flips; i++) {
        double v = flip_margin[i];
        if (isnan(v) || n_all == 0) {
            rank_out[i] = NAN;
            continue;
        }
        /* lower bound: the number of margins strictly below v */
        size_t lo = 0, hi = n_all;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sorted_all[mid] < v) lo = mid + 1;
            else hi = mid;
        }
        rank_out[i] = (double)lo / (double)n_all;
    }
}

size_t stats_count_below(const double *v, size_t n, double t) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += v[i] < t; /* NaN < t is false */
    return k;
}

/* ---- divergence growth -------------------------------------------------- */

void stats_growth_fit(stats_growth *g, const long *step, const double *y, size_t n, long from, long to) {
    memset(g, 0, sizeof *g);
    g->rate = g->efold_steps = g->intercept = g->r2 = NAN;
    g->first = g->last = -1;
    /* two passes with centred sums: the steps run to ~10^4 and ln y to
     * ~-40, and the one-pass formula (sum x^2 - n mean^2) would cancel */
    double sx = 0, sy = 0;
    long m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(y[i]) && y[i] > 0) || step[i] < from || (to >= 0 && step[i] > to)) continue;
        sx += (double)step[i];
        sy += log(y[i]);
        if (g->first < 0) g->first = step[i];
        g->last = step[i];
        m++;
    }
    g->n = m;
    if (m < 2) return;
    double mx = sx / m, my = sy / m, sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(y[i]) && y[i] > 0) || step[i] < from || (to >= 0 && step[i] > to)) continue;
        double dx = (double)step[i] - mx, dy = log(y[i]) - my;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if (sxx == 0) return;
    g->rate = sxy / sxx;
    g->intercept = my - g->rate * mx;
    g->efold_steps = g->rate > 0 ? 1 / g->rate : INFINITY;
    /* r2 = 1 - SSres/SStot = sxy^2 / (sxx syy); a flat curve (syy = 0)
     * is fitted exactly */
    g->r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1;
}

void stats_band(double *lo, double *hi, const double *const *curves, int k, size_t n) {
    for (size_t s = 0; s < n; s++) {
        double a = INFINITY, b = -INFINITY;
        int any = 0;
        for (int d = 0; d < k; d++) {
            double v = curves[d][s];
            if (!isfinite(v)) continue;
            any = 1;
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
        lo[s] = any ? a : NAN;
        hi[s] = any ? b : NAN;
    }
}

long stats_band_exit(const double *y, const double *hi, size_t n, double factor, int k) {
    if (k < 1) k = 1;
    int run = 0;
    for (size_t s = 0; s < n; s++) {
        /* a step where either value is missing neither extends nor breaks
         * a run: the curves are sampled on the compared steps only */
        if (!isfinite(y[s]) || !isfinite(hi[s])) continue;
        if (y[s] > factor * hi[s]) {
            if (++run == k) {
                /* walk back to the first index of the run */
                size_t t = s;
                int left = k - 1;
                while (left > 0 && t > 0) {
                    t--;
                    if (isfinite(y[t]) && isfinite(hi[t])) left--;
                }
                return (long)t;
            }
        } else {
            run = 0;
        }
    }
    return -1;
}

/* ---- seed spread -------------------------------------------------------- */

void stats_spread_of(stats_spread *s, const double *v, int n) {
    s->n = n;
    s->mean = s->sd = s->min = s->max = NAN;
    if (n < 1) return;
    double sum = 0, mn = v[0], mx = v[0];
    for (int i = 0; i < n; i++)
        if (isnan(v[i])) return; /* a missing value (an engine that failed): no spread, min and max included */
    for (int i = 0; i < n; i++) {
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    s->mean = sum / n;
    s->min = mn;
    s->max = mx;
    if (n < 2) return;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (v[i] - s->mean) * (v[i] - s->mean);
    s->sd = sqrt(ss / (n - 1));
}

/* t_{0.975, df}, df = 1..30, to 6 decimals (checked against a numerical
 * integration of the t density in tests/test_stats.c). */
static const double T975[31] = {
    NAN,      12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985, 2.178813,  2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963, 2.079614,
    2.073873, 2.068658,  2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
};

double stats_t975(int df) {
    if (df < 1) return NAN;
    if (df <= 30) return T975[df];
    /* Cornish-Fisher: t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4 (A&S 26.7.5) */
    double z = 1.959963984540054, v = df, z2 = z * z;
    double z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
    double g1 = (z3 + z) / 4;
    double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
    double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
    double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

void stats_paired_of(stats_paired *p, const double *acc_a, const double *acc_b, int n) {
    memset(p, 0, sizeof *p);
    p->n = n;
    p->mean = p->sd = p->half_width = p->lo = p->hi = p->unpaired_sd = NAN;
    p->indistinguishable = -1;
    if (n < 1) return;
    /* a missing accuracy (an engine that failed in some seed): no gap, no
     * verdict (NaN compares false, so lo <= 0 <= hi would read "not
     * indistinguishable" and the verdict "B better by nan") */
    for (int i = 0; i < n; i++)
        if (isnan(acc_a[i]) || isnan(acc_b[i])) return;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += acc_a[i] - acc_b[i];
    p->mean = sum / n;
    stats_spread sa;
    stats_spread_of(&sa, acc_a, n);
    p->unpaired_sd = sa.sd;
    if (n < 2) return;
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double d = acc_a[i] - acc_b[i] - p->mean;
        ss += d * d;
    }
    p->sd = sqrt(ss / (n - 1));
    p->half_width = stats_t975(n - 1) * p->sd / sqrt((double)n);
    p->lo = p->mean - p->half_width;
    p->hi = p->mean + p->half_width;
    p->indistinguishable = p->lo <= 0 && 0 <= p->hi;
    /* the same nonzero gap in every seed (accuracies count whole images, so
     * this happens: one image more for A in each of 2 seeds): sd 0 makes a
     * t-interval of width 0, which is not 95% confidence but a degenerate
     * sample; no verdict (a sign test over N seeds cannot go below 2^(1-N)) */
    if (p->mean != 0 && p->half_width <= 1e-12) p->indistinguishable = -1;
}

const char *stats_seed_verdict(char *buf, size_t cap, const stats_paired *p, const char *a, const char *b) {
    if (p->n < 2) {
        snprintf(buf, cap, "%s vs %s: one seed, no verdict (needs --seeds N >= 2)", a, b);
    } else if (p->indistinguishable < 0 && isnan(p->mean)) {
        snprintf(buf, cap, "%s vs %s: no verdict (an accuracy is missing in some seed: an engine failed)", a, b);
    } else if (p->indistinguishable < 0) {
        snprintf(buf, cap, "%s vs %s: no verdict: the same gap %+.2f points in every one of %d seeds (no spread, so "
                 "no t-interval)", a, b, 100 * p->mean, p->n);
    } else if (p->indistinguishable && p->mean == 0 && p->half_width == 0) {
        /* every seed gave both engines the same accuracy: no spread to test against */
        snprintf(buf, cap, "%s vs %s: indistinguishable: the same test accuracy in every one of %d seeds (gap exactly 0)", a, b, p->n);
    } else if (p->indistinguishable) {
        snprintf(buf, cap,
                 "%s vs %s: indistinguishable (paired gap %+.2f +- %.2f points over %d seeds, 95%% "
                 "interval %+.2f..%+.2f: a real gap outside it is unlikely, one inside it is not ruled out)",
                 a, b, 100 * p->mean, 100 * p->half_width, p->n, 100 * p->lo, 100 * p->hi);
    } else {
        const char *better = p->mean > 0 ? a : b;
        snprintf(buf, cap, "%s vs %s: %s better by %.2f +- %.2f points (paired over %d seeds)", a, b, better,
                 100 * fabs(p->mean), 100 * p->half_width, p->n);
    }
    return buf;
}

/* ---- noise floor -------------------------------------------------------- */

void stats_floor_of(stats_floor *f, const double *draws, int k) {
    stats_spread s;
    stats_spread_of(&s, draws, k);
    f->k = k;
    f->mean = s.mean;
    f->max = s.max;
    f->min = s.min;
    f->sd = s.sd;
}

int stats_floor_within(const double *draws, int k, double v, double *p_emp) {
    if (p_emp) *p_emp = NAN;
    if (k < 1) return -1;
    int ge = 0;
    double mx = draws[0];
    for (int i = 0; i < k; i++) {
        ge += draws[i] >= v;
        mx = draws[i] > mx ? draws[i] : mx;
    }
    if (p_emp) *p_emp = (1.0 + ge) / (k + 1.0);
    return v <= mx;
}

/* ---- JSON --------------------------------------------------------------- */

void stats_mcnemar_json(lsbuf *b, const stats_mcnemar *m) {
    lsbuf_printf(b, "{\"b\": %ld, \"c\": %ld, \"p\": ", m->b, m->c);
    lsbuf_json_num(b, m->p);
    lsbuf_printf(b, "}");
}

static void kv(lsbuf *b, const char *sep, const char *k, double v) {
    lsbuf_printf(b, "%s\"%s\": ", sep, k);
    lsbuf_json_num(b, v);
}

void stats_summary_json(lsbuf *b, const stats_summary *s) {
    lsbuf_printf(b, "{\"n\": %zu, \"nan\": %zu", s->n, s->n_nan);
    kv(b, ", ", "min", s->min);
    kv(b, ", ", "q10", s->q10);
    kv(b, ", ", "q25", s->q25);
    kv(b, ", ", "median", s->median);
    kv(b, ", ", "q75", s->q75);
    kv(b, ", ", "q90", s->q90);
    kv(b, ", ", "max", s->max);
    kv(b, ", ", "mean", s->mean);
    lsbuf_printf(b, "}");
}

void stats_growth_json(lsbuf *b, const stats_growth *g) {
    lsbuf_printf(b, "{\"points\": %ld", g->n);
    kv(b, ", ", "rate_per_step", g->rate);
    kv(b, ", ", "steps_per_efold", g->efold_steps);
    kv(b, ", ", "r2", g->r2);
    lsbuf_printf(b, ", \"first_step\": %ld, \"last_step\": %ld}", g->first, g->last);
}

void stats_spread_json(lsbuf *b, const stats_spread *s) {
    lsbuf_printf(b, "{\"n\": %d", s->n);
    kv(b, ", ", "mean", s->mean);
    kv(b, ", ", "sd", s->sd);
    kv(b, ", ", "min", s->min);
    kv(b, ", ", "max", s->max);
    lsbuf_printf(b, "}");
}

void stats_paired_json(lsbuf *b, const stats_paired *p) {
    lsbuf_printf(b, "{\"n\": %d", p->n);
    kv(b, ", ", "gap_mean", p->mean);
    kv(b, ", ", "gap_sd", p->sd);
    kv(b, ", ", "half_width_95", p->half_width);
    kv(b, ", ", "lo_95", p->lo);
    kv(b, ", ", "hi_95", p->hi);
    kv(b, ", ", "unpaired_sd", p->unpaired_sd);
    lsbuf_printf(b, ", \"indistinguishable\": %s}",
                 p->indistinguishable < 0 ? "null" : p->indistinguishable ? "true" : "false");
}

void stats_floor_json(lsbuf *b, const stats_floor *f) {
    lsbuf_printf(b, "{\"draws\": %d", f->k);
    kv(b, ", ", "mean", f->mean);
    kv(b, ", ", "sd", f->sd);
    kv(b, ", ", "min", f->min);
    kv(b, ", ", "max", f->max);
    lsbuf_printf(b, "}");
}

/* ---- multiple testing --------------------------------------------------- */

void stats_holm(const double *p, int m, double *adj) {
    int idx[256];
    if (m > 256) m = 256;
    for (int i = 0; i < m; i++) idx[i] = i;
    for (int i = 1; i < m; i++) /* insertion sort by p: m is the class count */
        for (int j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    double run = 0;
    for (int k = 0; k < m; k++) {
        double v = (m - k) * p[idx[k]];
        if (v > 1) v = 1;
        if (v < run) v = run; /* step-down: adjusted p never decreases */
        run = v;
        adj[idx[k]] = v;
    }
}
