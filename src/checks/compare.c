/*
 * compare.c — metrics between a reference and a candidate tensor, and the
 * a-priori fp32 bounds (see compare.h for the definitions and the maths).
 *
 * Every metric is accumulated in one sequential pass in double, in index
 * order, so the same inputs give the same stats on any machine and thread
 * count.  The bound helpers are parallel over output elements only; each
 * element's sum is one thread's, in a fixed order.
 *
 * Not here: I/O, allocation, verdicts.
 */
#include "checks/compare.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double unit_roundoff = 0x1p-24; /* fp32 u */

enum { CLS_FINITE, CLS_NAN, CLS_PINF, CLS_NINF };

static inline int value_class(double v) {
    if (isnan(v)) return CLS_NAN;
    if (isinf(v)) return v > 0 ? CLS_PINF : CLS_NINF;
    return CLS_FINITE;
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Histogram bin of a whole-step distance: 0..63 exactly, then one bin per
 * binade [2^k, 2^(k+1)), k = 6..31, at 64 + k - 6 (a select, no branch). */
static inline int ulp_bin(uint32_t steps) {
    int wide = 58 + (31 - __builtin_clz(steps | 1));
    return steps < COMPARE_ULP_EXACT ? (int)steps : wide;
}

void compare_ulp_bin_range(int bin, uint64_t *lo, uint64_t *hi) {
    if (bin < COMPARE_ULP_EXACT) {
        *lo = *hi = (uint64_t)bin;
        return;
    }
    int k = bin - 58;
    *lo = (uint64_t)1 << k;
    *hi = ((uint64_t)1 << (k + 1)) - 1;
}

/* The ordinal distance of two float bit patterns: each mapped onto one
 * integer line (sign-magnitude to two's complement, so -0 and +0 both land
 * on 0 and the order of the line is the order of the reals); infinities are
 * the next points past +-FLT_MAX.  Any two non-NaN floats are at most
 * 2 * 0x7f800000 < 2^32 apart. */
static inline uint32_t ordinal_dist(uint32_t rb, uint32_t cb) {
    int64_t lr = (rb & 0x80000000u) ? -(int64_t)(rb & 0x7fffffffu) : (int64_t)rb;
    int64_t lc = (cb & 0x80000000u) ? -(int64_t)(cb & 0x7fffffffu) : (int64_t)cb;
    return (uint32_t)(lr > lc ? lr - lc : lc - lr);
}

double compare_ulp_of(double r) {
    if (r == 0 || !isfinite(r)) return r == 0 ? 0x1p-149 : ldexp(1.0, 127 - 23);
    int e;
    frexp(fabs(r), &e); /* |r| = m 2^e, m in [0.5, 1): floor(log2|r|) = e - 1 */
    int ex = e - 1;
    if (ex < -126) ex = -126; /* subnormal range: fixed ULP 2^-149 */
    if (ex > 127) ex = 127;   /* beyond FLT_MAX: keep the top binade's ULP */
    return ldexp(1.0, ex - 23);
}

double compare_ulp_f32(float ref, float cand) {
    int cr = value_class(ref), cc = value_class(cand);
    if (cr != CLS_FINITE || cc != CLS_FINITE) return cr == cc ? 0.0 : INFINITY;
    return (double)ordinal_dist(float_bits(ref), float_bits(cand));
}

double compare_ulp_f64(double ref, float cand) {
    int cr = value_class(ref), cc = value_class(cand);
    if (cr != CLS_FINITE || cc != CLS_FINITE) return cr == cc ? 0.0 : INFINITY;
    /* a finite double beyond FLT_MAX rounds to inf: one step past FLT_MAX */
    return (double)ordinal_dist(float_bits((float)ref), float_bits(cand));
}

/* Running sums and maxima shared by the fp32 and the double paths. */
typedef struct {
    double sum_sq_err, sum_sq_ref, sum_ratio, max_abs_ref;
    size_t n_ratio;
    uint32_t max_steps;
} acc;

static void stats_begin(compare_stats *s, size_t n, const double *bound) {
    memset(s, 0, sizeof *s);
    s->n = n;
    s->first_diff_index = n;
    s->worst_abs_index = n;
    s->worst_ulp_index = n;
    s->first_nonfinite_mismatch = n;
    s->worst_bound_index = n;
    s->has_bound = bound != NULL;
}

/* One element with reference and candidate both finite.  r: the reference
 * (exact double, or an fp32 value widened); rb: the bits of r rounded to
 * fp32; c, cb: the candidate and its bits; the bin count goes to hist
 * (s->ulp_hist, or a caller's private copy). */
static inline __attribute__((always_inline)) void stats_finite(compare_stats *s, acc *a, uint64_t *hist, size_t i,
                                                               double r, uint32_t rb, float c, uint32_t cb,
                                                               const double *bound) {
    uint32_t steps = ordinal_dist(rb, cb);
    s->n_finite++;
    if (rb != cb) {
        if (s->first_diff_index == s->n) s->first_diff_index = i;
        if (steps == 0) s->n_zero_sign++;
        /* zero vs non-zero, on the magnitude bits (sign shifted out): a
         * branch that is rarely taken, cheaper than two counts per element */
        uint32_t rm = rb << 1, cm = cb << 1;
        if ((rm == 0) != (cm == 0)) {
            s->n_ref_zero_cand_nonzero += rm == 0;
            s->n_ref_nonzero_cand_zero += cm == 0;
        }
    } else {
        s->n_equal++;
    }
    hist[ulp_bin(steps)]++;

    double err = fabs((double)c - r);
    double ar = fabs(r);
    a->max_abs_ref = ar > a->max_abs_ref ? ar : a->max_abs_ref;
    if (s->worst_abs_index == s->n || err > s->max_abs) {
        s->max_abs = err;
        s->worst_abs_index = i;
    }
    if (s->worst_ulp_index == s->n || steps > a->max_steps) {
        a->max_steps = steps;
        s->worst_ulp_index = i;
    }
    if (r != 0 && err > 0) {
        double rel = err / ar;
        if (rel > s->max_rel) s->max_rel = rel;
    }
    a->sum_sq_err += err * err;
    a->sum_sq_ref += r * r;

    if (bound) {
        double b = bound[i];
        double ratio;
        if (b > 0) {
            ratio = err / b;
            a->sum_ratio += ratio;
            a->n_ratio++;
        } else {
            ratio = err == 0 ? 0.0 : INFINITY; /* an exact operation that was not exact */
        }
        if (err > b || !(b >= 0)) s->n_over_bound++;
        if (s->worst_bound_index == s->n || ratio > s->max_bound_ratio) {
            s->max_bound_ratio = ratio;
            s->worst_bound_index = i;
        }
    }
}

/* One element with at least one side NaN or Inf.  Counted, and kept out of
 * every error metric.  Against a bound, a mismatch (one side non-finite and
 * the other not, or different non-finite classes) is over any finite bound:
 * rounding within fp32's range turns no finite value into Inf or NaN, so no
 * finite bound explains it (bounds.c gives an element whose fp32 result
 * leaves the range an exactness rule instead: Adam's overflowing v').  An
 * infinite bound (gamma_K with K u >= 1, or bounds_range_unbound: fp32 may
 * overflow there; no information) judges nothing: count_unjudged counts it. */
static void stats_nonfinite(compare_stats *s, size_t i, int cr, int cc, const double *bound, double ref) {
    if (cr == cc) { /* both NaN (payloads ignored) or the same infinity */
        s->n_equal++;
    } else {
        s->ulp_hist[COMPARE_BIN_NONFINITE]++;
        s->n_nonfinite_mismatch++;
        if (s->first_nonfinite_mismatch == s->n) s->first_nonfinite_mismatch = i;
        if (s->first_diff_index == s->n) s->first_diff_index = i;
        /* except an infinity of the reference's sign where the reference
         * is finite but within its bound of fp32's overflow threshold
         * (2^128 (1 - 2^-25): the least |value| that rounds to inf): an
         * fp32 computation within that bound may overflow there, as an
         * exactly rounded one does beyond it; no PROBLEM, and not judged
         * (a mismatch, counted above) */
        int overflow_ok = cr == CLS_FINITE && (cc == CLS_PINF || cc == CLS_NINF) && (cc == CLS_PINF) == (ref > 0) &&
                          bound && fabs(ref) + bound[i] >= 0x1p128 * (1 - 0x1p-25);
        if (bound && !(bound[i] == INFINITY) && !overflow_ok) {
            s->n_over_bound++;
            if (s->worst_bound_index == s->n || !(s->max_bound_ratio == INFINITY)) {
                s->max_bound_ratio = INFINITY;
                s->worst_bound_index = i;
            }
        }
    }
}

/* The elements whose bound is +inf (bounds_range_unbound: a legal fp32
 * evaluation may overflow there): stats_finite and stats_nonfinite let
 * them pass (an infinite bound is never exceeded), so they are counted
 * here, apart, for the audit to say they were not judged. */
static void count_unjudged(compare_stats *s, const double *bound, size_t n) {
    if (!bound) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += bound[i] == INFINITY;
    s->n_unjudged = k;
}

static inline __attribute__((always_inline)) void count_classes(compare_stats *s, int cr, int cc) {
    s->ref_nan += cr == CLS_NAN;
    s->ref_inf += cr == CLS_PINF || cr == CLS_NINF;
    s->cand_nan += cc == CLS_NAN;
    s->cand_inf += cc == CLS_PINF || cc == CLS_NINF;
}

/* Nearest-rank percentile q/100 of the distance over the finite pairs:
 * the smallest d with #(distance <= d) >= ceil(q N / 100).  From the
 * histogram: exact below 64, else the upper end 2^(k+1) of the bin (every
 * distance in the bin is < 2^(k+1)). */
static void ulp_percentile(const compare_stats *s, unsigned q, double *v, int *is_bound) {
    *v = 0;
    *is_bound = 0;
    if (s->n_finite == 0) return;
    uint64_t rank = ((uint64_t)s->n_finite * q + 99) / 100, cum = 0;
    if (rank == 0) rank = 1;
    for (int k = 0; k < COMPARE_BIN_NONFINITE; k++) {
        cum += s->ulp_hist[k];
        if (cum >= rank) {
            uint64_t lo, hi;
            compare_ulp_bin_range(k, &lo, &hi);
            *v = (double)hi + (lo == hi ? 0.0 : 1.0);
            *is_bound = lo != hi;
            /* the maximum is exact: never report a bound above it */
            if (*is_bound && *v > s->max_ulp) {
                *v = s->max_ulp;
                *is_bound = lo != (uint64_t)s->max_ulp;
            }
            return;
        }
    }
}

static void stats_end(compare_stats *s, const acc *a) {
    s->frac_equal = s->n ? (double)s->n_equal / (double)s->n : 1.0;
    s->max_ulp = (double)a->max_steps;
    if (a->sum_sq_ref > 0)
        s->nmse = a->sum_sq_err / a->sum_sq_ref;
    else
        s->nmse = a->sum_sq_err == 0 ? 0.0 : INFINITY;
    s->rel_l2 = sqrt(s->nmse);
    s->max_abs_ref = a->max_abs_ref;
    if (a->max_abs_ref > 0)
        s->rel_to_max = s->max_abs / a->max_abs_ref;
    else
        s->rel_to_max = s->max_abs == 0 ? 0.0 : INFINITY;
    s->scale_ulp = s->max_abs / compare_ulp_of(a->max_abs_ref);
    s->mean_bound_ratio = a->n_ratio ? a->sum_ratio / (double)a->n_ratio : 0.0;
    ulp_percentile(s, 50, &s->p50_ulp, &s->p50_ulp_bound);
    ulp_percentile(s, 99, &s->p99_ulp, &s->p99_ulp_bound);
}

/* Add the private histograms (element i counted in hist[i % 4]: neighbours
 * mostly fall in one bin, and one counter would make every element wait for
 * the previous increment). */
static void add_hists(compare_stats *s, uint64_t hist[4][COMPARE_ULP_BINS]) {
    for (int k = 0; k < COMPARE_ULP_BINS; k++) s->ulp_hist[k] += hist[0][k] + hist[1][k] + hist[2][k] + hist[3][k];
}

/* One element of compare_f32 as the plain loop takes it: the equal-and-
 * finite fast path once the worst-index fields are set (*ready), else the
 * full accounting.  The block path below does exactly this for blocks whose
 * elements are all finite; this is every other element's. */
typedef struct {
    size_t fast, fast_ratio, fast_over;
    double fast_sq, fast_max;
    int ready;
} fast_acc;

static inline __attribute__((always_inline)) void f32_element(compare_stats *s, acc *a, fast_acc *f,
                                                              uint64_t *hist, size_t i, float rv, float cv,
                                                              const double *bound, size_t n) {
    uint32_t rb = float_bits(rv), cb = float_bits(cv);
    int finite = (rb & 0x7f800000u) != 0x7f800000u && (cb & 0x7f800000u) != 0x7f800000u;
    if (f->ready && rb == cb && finite) {
        double r = rv;
        f->fast++;
        f->fast_sq += r * r;
        f->fast_max = fabs(r) > f->fast_max ? fabs(r) : f->fast_max;
        if (bound) {
            double b = bound[i];
            if (b > 0) f->fast_ratio++;
            else if (!(b >= 0)) f->fast_over++;
        }
        return;
    }
    if (finite) {
        stats_finite(s, a, hist, i, (double)rv, rb, cv, cb, bound);
    } else {
        int cr = value_class(rv), cc = value_class(cv);
        count_classes(s, cr, cc);
        stats_nonfinite(s, i, cr, cc, bound, (double)rv);
    }
    f->ready = s->worst_abs_index != n && s->worst_ulp_index != n && (!bound || s->worst_bound_index != n);
}

/* A block of CMP_BLK elements, every one finite on both sides, once the
 * worst-index fields are set: the same accounting as f32_element, element
 * for element, in two passes.  The first computes each element's distance,
 * error and ratio and everything order cannot change (counts, maxima, the
 * first index of a maximum) in loops the compiler vectorizes; the second
 * adds the sums in index order, one element after the other, as the plain
 * loop does: the squares of the equal elements into fast_sq, the others'
 * into sum_sq_ref (adding +0 to a sum of squares changes no bit, so an
 * element adds 0 to the sum it does not belong to).  For an equal element
 * the error, distance and ratio are 0, which no maximum (all >= 0) takes
 * strictly, exactly as the fast path leaves them alone.  So every field,
 * and every bit of every sum, is the plain loop's. */
enum { CMP_BLK = 64 };

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define CMP_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CMP_HOT
#endif

/* The bits of a double >= 0 (or +inf): ordered as the values are, so a
 * maximum over them is an integer maximum, which vectorizes (a double
 * maximum does not without -ffinite-math-only). */
static inline uint64_t pos_bits(double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static inline double bits_pos(uint64_t u) {
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

CMP_HOT
static void f32_block(compare_stats *s, acc *a, fast_acc *f, uint64_t hist[4][COMPARE_ULP_BINS], size_t i0,
                      const float *ref, const float *cand, size_t m, const double *bound) {
    double err[CMP_BLK], rsq[CMP_BLK], ratio[CMP_BLK];
    uint32_t steps[CMP_BLK], eqv[CMP_BLK];
    uint32_t mx_steps = 0, mx_mag = 0;
    uint64_t mx_err = 0, mx_rel = 0, mx_ratio = 0;
    size_t n_eq = 0, n_zs = 0, n_rz = 0, n_cz = 0, n_pos = 0, n_over = 0;
    /* integers: ordinal_dist in 32 bits (each side's point on the integer
     * line is within +-0x7f7fffff, their distance below 2^32); max |r| as
     * the largest magnitude bits (finite floats order as their bits) */
    for (size_t j = 0; j < m; j++) {
        uint32_t rb = float_bits(ref[i0 + j]), cb = float_bits(cand[i0 + j]);
        int32_t lr = (int32_t)(rb & 0x7fffffffu), lc = (int32_t)(cb & 0x7fffffffu);
        lr = (rb >> 31) ? -lr : lr;
        lc = (cb >> 31) ? -lc : lc;
        uint32_t st = lr >= lc ? (uint32_t)lr - (uint32_t)lc : (uint32_t)lc - (uint32_t)lr;
        uint32_t eq = rb == cb, rm = rb << 1, cm = cb << 1, mag = rb & 0x7fffffffu;
        steps[j] = st;
        eqv[j] = eq;
        n_eq += eq;
        n_zs += (eq ^ 1u) & (st == 0);
        n_rz += (rm == 0) & (cm != 0);
        n_cz += (rm != 0) & (cm == 0);
        mx_steps = st > mx_steps ? st : mx_steps;
        mx_mag = mag > mx_mag ? mag : mx_mag;
    }
    /* doubles: the error and r^2, and |c - r| / |r| where r != 0 and the
     * error is not 0 (else 0: the plain loop skips those, and its maximum
     * starts at 0); every division done, then selected, with a divisor of
     * 1 where its result is not used */
    double relv[CMP_BLK];
    for (size_t j = 0; j < m; j++) {
        double r = ref[i0 + j], e = fabs((double)cand[i0 + j] - r), ar = fabs(r);
        err[j] = e;
        rsq[j] = r * r;
        double q = e / (ar > 0 ? ar : 1.0);
        relv[j] = (ar > 0) & (e > 0) ? q : 0.0;
    }
    for (size_t j = 0; j < m; j++) {
        uint64_t ue = pos_bits(err[j]), ur = pos_bits(relv[j]);
        mx_err = ue > mx_err ? ue : mx_err;
        mx_rel = ur > mx_rel ? ur : mx_rel;
    }
    if (bound) {
        uint32_t pos[CMP_BLK], over[CMP_BLK];
        for (size_t j = 0; j < m; j++) {
            double b = bound[i0 + j], e = err[j];
            double q = e / (b > 0 ? b : 1.0);
            ratio[j] = b > 0 ? q : (e == 0 ? 0.0 : INFINITY);
            pos[j] = b > 0;
            over[j] = (e > b) | !(b >= 0);
        }
        for (size_t j = 0; j < m; j++) {
            n_pos += pos[j];
            n_over += over[j];
            uint64_t u = pos_bits(ratio[j]);
            mx_ratio = u > mx_ratio ? u : mx_ratio;
        }
    }
    /* the sums, in index order */
    double sse = a->sum_sq_err, ssr = a->sum_sq_ref, fsq = f->fast_sq, sr = a->sum_ratio;
    if (n_eq == m) { /* all equal: only their squares (the rest would add +0) */
        for (size_t j = 0; j < m; j++) fsq += rsq[j];
    } else if (n_eq == 0) {
        for (size_t j = 0; j < m; j++) {
            sse += err[j] * err[j];
            ssr += rsq[j];
            hist[j & 3][ulp_bin(steps[j])]++;
        }
    } else {
        for (size_t j = 0; j < m; j++) {
            sse += err[j] * err[j];
            ssr += eqv[j] ? 0.0 : rsq[j];
            fsq += eqv[j] ? rsq[j] : 0.0;
            hist[j & 3][ulp_bin(steps[j])] += !eqv[j]; /* the equal ones: with the fast count, at the end */
        }
    }
    if (bound)
        for (size_t j = 0; j < m; j++) sr += bound[i0 + j] > 0 ? ratio[j] : 0.0;
    a->sum_sq_err = sse, a->sum_sq_ref = ssr, f->fast_sq = fsq, a->sum_ratio = sr;
    /* counts: the equal elements as the fast path counts them */
    size_t n_ne = m - n_eq;
    s->n_finite += n_ne;
    f->fast += n_eq;
    s->n_zero_sign += n_zs;
    s->n_ref_zero_cand_nonzero += n_rz;
    s->n_ref_nonzero_cand_zero += n_cz;
    if (n_ne && s->first_diff_index == s->n) {
        size_t j = 0;
        while (eqv[j]) j++;
        s->first_diff_index = i0 + j;
    }
    float fm;
    memcpy(&fm, &mx_mag, sizeof fm);
    if ((double)fm > a->max_abs_ref) a->max_abs_ref = fm;
    if (bits_pos(mx_rel) > s->max_rel) s->max_rel = bits_pos(mx_rel);
    if (bits_pos(mx_err) > s->max_abs) {
        size_t j = 0;
        while (pos_bits(err[j]) != mx_err) j++;
        s->max_abs = err[j];
        s->worst_abs_index = i0 + j;
    }
    if (mx_steps > a->max_steps) {
        size_t j = 0;
        while (steps[j] != mx_steps) j++;
        a->max_steps = mx_steps;
        s->worst_ulp_index = i0 + j;
    }
    if (bound) {
        a->n_ratio += n_pos;
        s->n_over_bound += n_over;
        if (bits_pos(mx_ratio) > s->max_bound_ratio) {
            size_t j = 0;
            while (pos_bits(ratio[j]) != mx_ratio) j++;
            s->max_bound_ratio = ratio[j];
            s->worst_bound_index = i0 + j;
        }
    }
}

/* The fast path's counts and sums into the stats (added last: one fixed
 * order), then the derived metrics. */
static void f32_end(compare_stats *s, acc *a, const fast_acc *f, uint64_t hist[4][COMPARE_ULP_BINS]) {
    s->n_finite += f->fast;
    s->n_equal += f->fast;
    hist[0][0] += f->fast;
    add_hists(s, hist);
    s->n_over_bound += f->fast_over;
    a->n_ratio += f->fast_ratio;
    a->sum_sq_ref += f->fast_sq;
    if (f->fast_max > a->max_abs_ref) a->max_abs_ref = f->fast_max;
    stats_end(s, a);
}

/* The plain loop alone (compare.h: the same stats, to the bit, as
 * compare_f32; test_compare holds the two to that on random data). */
void compare_f32_plain(compare_stats *out, const float *ref, const float *cand, size_t n, const double *bound) {
    acc a = {0};
    compare_stats st, *s = &st;
    stats_begin(s, n, bound);
    fast_acc f = {0};
    uint64_t hist[4][COMPARE_ULP_BINS] = {{0}};
    for (size_t i = 0; i < n; i++) f32_element(s, &a, &f, hist[i & 3], i, ref[i], cand[i], bound, n);
    f32_end(s, &a, &f, hist);
    count_unjudged(s, bound, n);
    *out = st;
}

void compare_f32(compare_stats *out, const float *ref, const float *cand, size_t n, const double *bound) {
    acc a = {0};
    compare_stats st, *s = &st; /* a local copy the compiler can keep in registers */
    stats_begin(s, n, bound);
    /* Elements bitwise equal to the reference and finite change nothing but
     * counts, the sum of squares and max |ref| once the worst-index fields
     * are set: they are counted apart (the audit compares tens of millions
     * of elements per step), the rest go through stats_finite.  Their
     * squares are summed apart and added at the end: still one fixed
     * order.  Whole blocks of finite elements go through f32_block, with
     * the same result to the bit. */
    fast_acc f = {0};
    uint64_t hist[4][COMPARE_ULP_BINS] = {{0}};
    size_t i = 0;
    for (; i < n && !f.ready; i++) f32_element(s, &a, &f, hist[i & 3], i, ref[i], cand[i], bound, n);
    while (i < n) {
        size_t m = n - i < CMP_BLK ? n - i : CMP_BLK;
        uint32_t bad = 0;
        for (size_t j = 0; j < m; j++)
            bad |= ((float_bits(ref[i + j]) & 0x7f800000u) == 0x7f800000u) |
                   ((float_bits(cand[i + j]) & 0x7f800000u) == 0x7f800000u);
        if (bad) {
            for (size_t j = 0; j < m; j++, i++) f32_element(s, &a, &f, hist[i & 3], i, ref[i], cand[i], bound, n);
        } else {
            f32_block(s, &a, &f, hist, i, ref, cand, m, bound);
            i += m;
        }
    }
    f32_end(s, &a, &f, hist);
    count_unjudged(s, bound, n);
    *out = st;
}

void compare_f64(compare_stats *out, const double *ref, const float *cand, size_t n, const double *bound) {
    acc a = {0};
    compare_stats st, *s = &st;
    stats_begin(s, n, bound);
    uint64_t hist[4][COMPARE_ULP_BINS] = {{0}};
    for (size_t i = 0; i < n; i++) {
        double r = ref[i];
        float c = cand[i];
        uint64_t r64;
        memcpy(&r64, &r, sizeof r64);
        uint32_t cb = float_bits(c);
        if ((r64 & 0x7ff0000000000000ull) != 0x7ff0000000000000ull && (cb & 0x7f800000u) != 0x7f800000u) {
            float rf = (float)r; /* round to nearest: the value an exact fp32 operation returns */
            stats_finite(s, &a, hist[i & 3], i, r, float_bits(rf), c, cb, bound);
        } else {
            int cr = value_class(r), cc = value_class(c);
            count_classes(s, cr, cc);
            stats_nonfinite(s, i, cr, cc, bound, r);
        }
    }
    add_hists(s, hist);
    stats_end(s, &a);
    count_unjudged(s, bound, n);
    *out = st;
}

const char *compare_ulp_pct_str(char *buf, size_t len, double v, int bound) {
    int e;
    if (bound && v >= 1 && frexp(v, &e) == 0.5)
        snprintf(buf, len, "<= 2^%d", e - 1);
    else
        snprintf(buf, len, "%s%.0f", bound ? "<= " : "", v);
    return buf;
}

/* ---- one element ---------------------------------------------------------- */

void compare_coords_str(lsbuf *b, size_t index, int ndim, const size_t *shape, const char *const *names) {
    size_t total = 1;
    for (int d = 0; d < ndim; d++) total *= shape[d];
    if (ndim <= 0 || index >= total) {
        lsbuf_printf(b, "[%zu]", index);
        return;
    }
    size_t co[16];
    if (ndim > 16) ndim = 16;
    for (int d = ndim - 1; d >= 0; d--) {
        co[d] = shape[d] ? index % shape[d] : 0;
        index = shape[d] ? index / shape[d] : 0;
    }
    lsbuf_printf(b, "[");
    for (int d = 0; d < ndim; d++) {
        if (names)
            lsbuf_printf(b, "%s%s=%zu", d ? " " : "", names[d], co[d]);
        else
            lsbuf_printf(b, "%s%zu", d ? "," : "", co[d]);
    }
    lsbuf_printf(b, "]");
}

const char *const *compare_dim_names(int ndim, int is_param) {
    static const char *const act[4][4] = {{"n"}, {"n", "features"}, {"n", "c", "w"}, {"n", "c", "h", "w"}};
    static const char *const par[4][4] = {{"out"}, {"out", "in"}, {"out", "in", "k"}, {"out", "in", "kh", "kw"}};
    if (ndim < 1 || ndim > 4) return NULL;
    return is_param ? par[ndim - 1] : act[ndim - 1];
}

void compare_pair_str(lsbuf *b, const char *ref_name, double ref, int ref_is_f32, const char *cand_name,
                      float cand) {
    if (ref_is_f32)
        lsbuf_printf(b, "%s %.9g (0x%08x), ", ref_name, ref, (unsigned)float_bits((float)ref));
    else
        lsbuf_printf(b, "%s %.17g, ", ref_name, ref);
    lsbuf_printf(b, "%s %.9g (0x%08x), ", cand_name, (double)cand, (unsigned)float_bits(cand));
    double u = ref_is_f32 ? compare_ulp_f32((float)ref, cand) : compare_ulp_f64(ref, cand);
    if (isinf(u))
        lsbuf_printf(b, "NaN/Inf mismatch");
    else
        lsbuf_printf(b, "%.0f ULP", u);
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_index(lsbuf *b, const char *key, size_t v, size_t none) {
    lsbuf_printf(b, ",\"%s\":", key);
    if (v == none)
        lsbuf_printf(b, "null");
    else
        lsbuf_printf(b, "%zu", v);
}

static void json_num(lsbuf *b, const char *key, double v) {
    lsbuf_printf(b, ",\"%s\":", key);
    lsbuf_json_num(b, v);
}

void compare_stats_json(lsbuf *b, const compare_stats *s) { compare_stats_json_opt(b, s, 1); }

void compare_stats_json_opt(lsbuf *b, const compare_stats *s, int with_hist) {
    lsbuf_printf(b, "{\"n\":%zu,\"n_finite\":%zu", s->n, s->n_finite);
    json_num(b, "max_abs", s->max_abs);
    json_num(b, "max_abs_ref", s->max_abs_ref);
    json_num(b, "rel_to_max", s->rel_to_max);
    json_num(b, "scale_ulp", s->scale_ulp);
    json_num(b, "max_rel", s->max_rel);
    json_num(b, "max_ulp", s->max_ulp);
    json_num(b, "p50_ulp", s->p50_ulp);
    lsbuf_printf(b, ",\"p50_ulp_bound\":%s", s->p50_ulp_bound ? "true" : "false");
    json_num(b, "p99_ulp", s->p99_ulp);
    lsbuf_printf(b, ",\"p99_ulp_bound\":%s", s->p99_ulp_bound ? "true" : "false");
    if (with_hist) lsbuf_printf(b, ",\"ulp_hist\":[");
    int first = 1;
    for (int k = 0; k < COMPARE_BIN_NONFINITE && with_hist; k++) {
        if (!s->ulp_hist[k]) continue;
        uint64_t lo, hi;
        compare_ulp_bin_range(k, &lo, &hi);
        lsbuf_printf(b, "%s[%llu,%llu,%llu]", first ? "" : ",", (unsigned long long)lo, (unsigned long long)hi,
                     (unsigned long long)s->ulp_hist[k]);
        first = 0;
    }
    lsbuf_printf(b, "%s\"n_equal\":%zu", with_hist ? "]," : ",", s->n_equal);
    json_num(b, "frac_equal", s->frac_equal);
    lsbuf_printf(b, ",\"n_zero_sign\":%zu,\"ref_zero_cand_nonzero\":%zu,\"ref_nonzero_cand_zero\":%zu",
                 s->n_zero_sign, s->n_ref_zero_cand_nonzero, s->n_ref_nonzero_cand_zero);
    json_index(b, "first_diff_index", s->first_diff_index, s->n);
    json_num(b, "nmse", s->nmse);
    json_num(b, "rel_l2", s->rel_l2);
    json_index(b, "worst_abs_index", s->worst_abs_index, s->n);
    json_index(b, "worst_ulp_index", s->worst_ulp_index, s->n);
    lsbuf_printf(b, ",\"nan\":[%zu,%zu],\"inf\":[%zu,%zu],\"nonfinite_mismatch\":%zu",
                 s->ref_nan, s->cand_nan, s->ref_inf, s->cand_inf, s->n_nonfinite_mismatch);
    json_index(b, "first_nonfinite_mismatch", s->first_nonfinite_mismatch, s->n);
    if (s->has_bound) {
        lsbuf_printf(b, ",\"bound\":{\"max_ratio\":");
        /* an infinite ratio (error where the bound is 0) is not JSON: say so */
        if (isinf(s->max_bound_ratio))
            lsbuf_printf(b, "\"inf\"");
        else
            lsbuf_json_num(b, s->max_bound_ratio);
        lsbuf_printf(b, ",\"mean_ratio\":");
        lsbuf_json_num(b, s->mean_bound_ratio);
        lsbuf_printf(b, ",\"worst_index\":");
        if (s->worst_bound_index == s->n)
            lsbuf_printf(b, "null");
        else
            lsbuf_printf(b, "%zu", s->worst_bound_index);
        lsbuf_printf(b, ",\"n_over\":%zu", s->n_over_bound);
        /* only when some: a normal run's lines keep their bytes */
        if (s->n_unjudged) lsbuf_printf(b, ",\"n_unjudged\":%zu", s->n_unjudged);
        lsbuf_printf(b, "}");
    }
    lsbuf_printf(b, "}");
}

/* ---- bounds ----------------------------------------------------------- */

double compare_gamma(size_t k) {
    double ku = (double)k * unit_roundoff;
    if (ku >= 1) return INFINITY;
    return ku / (1 - ku);
}

double compare_bound_dot(const float *a, const float *b, size_t k) {
    double s = 0;
    for (size_t i = 0; i < k; i++)
        s += fabs((double)a[i] * (double)b[i]);
    return compare_gamma(k) * s;
}

/* [lo, hi): the output positions y in [0, out) whose input y + p - pad
 * lies in [0, in), for kernel tap p. */
static void valid_range(size_t p, size_t pad, size_t in, size_t out, size_t *lo, size_t *hi) {
    long l = (long)pad - (long)p, u = (long)in + (long)pad - (long)p;
    if (l < 0) l = 0;
    if (u > (long)out) u = (long)out;
    if (u < l) u = l;
    *lo = (size_t)l;
    *hi = (size_t)u;
}

/*
 * Speed: the sums are all of positive terms, so any fixed order is as good
 * as any other; the loops below are arranged for the machine, not for the
 * formula.  Forward and backward-data accumulate a whole output plane per
 * (tap, channel) — an element-wise multiply-add along contiguous rows, which
 * the compiler vectorizes without reassociating anything — and
 * backward-weights / dense forward use four interleaved partial sums to
 * break the add latency chain.  Each element's order depends only on the
 * shapes, never on the thread count.  SmallCNN conv2 at batch 256 (231 M
 * terms per direction) was ~0.4-0.5 s per direction on one core in the
 * straightforward form.
 */

/* One output plane += the k x k taps of one input channel, tap by tap
 * over the whole plane, skipping the taps that fall in the padding: the
 * form for a channel whose weights are not all finite (below) and for no
 * memory to spare. */
static void bound_taps_skip(double *plane, const float *xp, const float *wq, size_t h, size_t w, size_t oh,
                            size_t ow, size_t k, size_t pad) {
    for (size_t p = 0; p < k; p++) {
        size_t y0, y1;
        valid_range(p, pad, h, oh, &y0, &y1);
        for (size_t q = 0; q < k; q++) {
            size_t x0, x1;
            valid_range(q, pad, w, ow, &x0, &x1);
            double a = fabs((double)wq[p * k + q]);
            for (size_t y = y0; y < y1; y++) {
                double *po = plane + y * ow;
                const float *pi = xp + (y + p - pad) * w; /* input row y + p - pad */
                for (size_t xo = x0; xo < x1; xo++) po[xo] += a * fabs((double)pi[xo + q - pad]);
            }
        }
    }
}

/* One output plane += the k x k taps of one input channel, every element
 * adding its terms in the order p, q in registers (a padded input: ax is
 * (h + 2 pad) x (w + 2 pad), zero outside the image).  A tap that falls in
 * the padding adds a * 0 = +0, which leaves any sum >= 0, +inf or NaN as it
 * was, when a is finite (the caller's condition): the bits are those of the
 * sum that skips the padding.  k a constant where the caller inlines it. */
static inline __attribute__((always_inline)) void bound_taps(double *plane, const double *ax, const double *a,
                                                             size_t oh, size_t ow, size_t wp, size_t k) {
    for (size_t y = 0; y < oh; y++) {
        double *po = plane + y * ow;
        const double *r = ax + y * wp;
        for (size_t xo = 0; xo < ow; xo++) {
            double s = po[xo];
            for (size_t p = 0; p < k; p++)
                for (size_t q = 0; q < k; q++) s += a[p * k + q] * r[p * wp + xo + q];
            po[xo] = s;
        }
    }
}

/* One sample's output planes (oc of them, oh x ow) from its input planes:
 * bound[o] = |b[o]| + sum over i, p, q of |w[o,i,p,q]| |x[i] shifted|.
 * Each input plane's |x| is made double once (ax, padded) and read by every
 * output channel, and an element's k*k taps are added in registers: the
 * plane-at-a-time form (one pass over the plane per tap, converting |x|
 * again for each of the oc channels) made `lockstep eval` of the 10,000
 * test images take 11.4 s, 71% of it here.  Each element still adds its
 * terms in the order i, p, q (the loops over o sit inside the one over i;
 * a channel whose weights are not all finite takes the tap-skipping form),
 * so every bit is as before. */
CMP_HOT static void bound_conv_fwd_sample(double *bound, double *ax, const float *x, const float *wt,
                                          const float *bias, size_t c, size_t h, size_t w, size_t oc, size_t k,
                                          size_t pad, double g) {
    size_t oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1, wp = w + 2 * pad, hp = h + 2 * pad;
    double a[64];
    for (size_t o = 0; o < oc; o++) {
        double b0 = bias ? fabs((double)bias[o]) : 0.0, *plane = bound + o * oh * ow;
        for (size_t j = 0; j < oh * ow; j++) plane[j] = b0;
    }
    for (size_t j = 0; j < hp * wp; j++) ax[j] = 0.0;
    for (size_t i = 0; i < c; i++) {
        const float *xp = x + i * h * w;
        for (size_t y = 0; y < h; y++)
            for (size_t j = 0; j < w; j++) ax[(y + pad) * wp + pad + j] = fabs((double)xp[y * w + j]);
        for (size_t o = 0; o < oc; o++) {
            double *plane = bound + o * oh * ow;
            const float *wq = wt + (o * c + i) * k * k;
            int finite = k * k <= 64;
            for (size_t t = 0; finite && t < k * k; t++) {
                a[t] = fabs((double)wq[t]);
                finite = isfinite(a[t]);
            }
            if (finite && k == 3) {
                bound_taps(plane, ax, a, oh, ow, wp, 3);
                continue;
            }
            if (finite) {
                bound_taps(plane, ax, a, oh, ow, wp, k);
                continue;
            }
            bound_taps_skip(plane, xp, wq, h, w, oh, ow, k, pad);
        }
    }
    for (size_t j = 0; j < oc * oh * ow; j++) bound[j] *= g;
}

void compare_bound_conv_fwd(double *bound, const float *x, const float *wt, const float *bias,
                            size_t n, size_t c, size_t h, size_t w, size_t oc, size_t k, size_t pad) {
    size_t oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
    double g = compare_gamma(c * k * k + (bias ? 1 : 0));
    // x is (n,c,h,w), wt is (oc,c,k,k), bound is (n,oc,oh,ow); this file is built without OpenMP (the Makefile)
    double *ax = malloc((h + 2 * pad) * (w + 2 * pad) * sizeof *ax);
    if (ax) {
        for (size_t ni = 0; ni < n; ni++)
            bound_conv_fwd_sample(bound + ni * oc * oh * ow, ax, x + ni * c * h * w, wt, bias, c, h, w, oc, k, pad, g);
        free(ax);
        return;
    }
    /* no memory for one plane: the same sums, |x| converted where it is read */
    for (size_t ni = 0; ni < n; ni++)
        for (size_t o = 0; o < oc; o++) {
            double *plane = bound + (ni * oc + o) * oh * ow;
            double b0 = bias ? fabs((double)bias[o]) : 0.0;
            for (size_t j = 0; j < oh * ow; j++) plane[j] = b0;
            for (size_t i = 0; i < c; i++)
                bound_taps_skip(plane, x + (ni * c + i) * h * w, wt + (o * c + i) * k * k, h, w, oh, ow, k, pad);
            for (size_t j = 0; j < oh * ow; j++) plane[j] *= g;
        }
}

void compare_bound_conv_bwd_data(double *bound, const float *dy, const float *wt,
                                 size_t n, size_t c, size_t h, size_t w, size_t oc, size_t k, size_t pad) {
    size_t oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
    double g = compare_gamma(oc * k * k);
    // dy is (n,oc,oh,ow), wt is (oc,c,k,k), bound is (n,c,h,w)
    // dx[n,i,yy,xx] = sum_{o,p,q} wt[o,i,p,q] * dy[n,o,yy-p+pad,xx-q+pad]
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t ni = 0; ni < n; ni++) {
        for (size_t i = 0; i < c; i++) {
            double *plane = bound + (ni * c + i) * h * w;
            for (size_t j = 0; j < h * w; j++) plane[j] = 0;
            for (size_t o = 0; o < oc; o++) {
                const float *dp = dy + (ni * oc + o) * oh * ow;
                const float *wp = wt + (o * c + i) * k * k;
                for (size_t p = 0; p < k; p++) {
                    size_t y0, y1; /* output rows y whose input row yy = y + p - pad is inside */
                    valid_range(p, pad, h, oh, &y0, &y1);
                    for (size_t q = 0; q < k; q++) {
                        size_t x0, x1;
                        valid_range(q, pad, w, ow, &x0, &x1);
                        double a = fabs((double)wp[p * k + q]);
                        for (size_t y = y0; y < y1; y++) {
                            double *pi = plane + (y + p - pad) * w; /* dx row y + p - pad */
                            const float *po = dp + y * ow;
                            for (size_t xo = x0; xo < x1; xo++) pi[xo + q - pad] += a * fabs((double)po[xo]);
                        }
                    }
                }
            }
            for (size_t j = 0; j < h * w; j++) plane[j] *= g;
        }
    }
}

/* sum |a[j] b[j]| over j < m with four interleaved partial sums */
static inline __attribute__((always_inline)) double abs_dot4(const float *a, const float *b, size_t m) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t j = 0;
    for (; j + 4 <= m; j += 4) {
        s0 += fabs((double)a[j] * (double)b[j]);
        s1 += fabs((double)a[j + 1] * (double)b[j + 1]);
        s2 += fabs((double)a[j + 2] * (double)b[j + 2]);
        s3 += fabs((double)a[j + 3] * (double)b[j + 3]);
    }
    for (; j < m; j++) s0 += fabs((double)a[j] * (double)b[j]);
    return (s0 + s1) + (s2 + s3);
}

CMP_HOT void compare_bound_conv_bwd_weights(double *bound_dw, double *bound_db, const float *x, const float *dy,
                                    size_t n, size_t c, size_t h, size_t w, size_t oc, size_t k, size_t pad) {
    size_t oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
    size_t kk = n * oh * ow;
    double g = compare_gamma(kk);
    // x is (n,c,h,w), dy is (n,oc,oh,ow), bound_dw is (oc,c,k,k)
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t o = 0; o < oc; o++) {
        for (size_t i = 0; i < c; i++) {
            for (size_t p = 0; p < k; p++) {
                size_t y0, y1;
                valid_range(p, pad, h, oh, &y0, &y1);
                for (size_t q = 0; q < k; q++) {
                    size_t x0, x1;
                    valid_range(q, pad, w, ow, &x0, &x1);
                    double s = 0;
                    for (size_t ni = 0; ni < n; ni++) {
                        const float *dp = dy + (ni * oc + o) * oh * ow;
                        const float *xp = x + (ni * c + i) * h * w;
                        for (size_t y = y0; y < y1; y++)
                            s += abs_dot4(dp + y * ow + x0, xp + (y + p - pad) * w + x0 + q - pad, x1 - x0);
                    }
                    bound_dw[((o * c + i) * k + p) * k + q] = g * s;
                }
            }
        }
    }
    if (bound_db) {
        double gb = compare_gamma(kk ? kk - 1 : 0);
        for (size_t o = 0; o < oc; o++) {
            double s = 0;
            for (size_t ni = 0; ni < n; ni++) {
                const float *dp = dy + ((ni * oc + o) * oh) * ow;
                for (size_t j = 0; j < oh * ow; j++) s += fabs((double)dp[j]);
            }
            bound_db[o] = gb * s;
        }
    }
}

CMP_HOT void compare_bound_dense_fwd(double *bound, const float *x, const float *wt, const float *bias,
                             size_t n, size_t in, size_t out) {
    double g = compare_gamma(in + (bias ? 1 : 0));
    // x is (n,in), wt is (out,in), bound is (n,out)
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t ni = 0; ni < n; ni++) {
        for (size_t o = 0; o < out; o++) {
            double s = abs_dot4(wt + o * in, x + ni * in, in);
            if (bias) s += fabs((double)bias[o]);
            bound[ni * out + o] = g * s;
        }
    }
}

void compare_bound_dense_bwd_data(double *bound, const float *dy, const float *wt,
                                  size_t n, size_t in, size_t out) {
    double g = compare_gamma(out);
    // dy is (n,out), wt is (out,in), bound is (n,in)
#pragma omp parallel for schedule(static)
    for (size_t ni = 0; ni < n; ni++) {
        double *row = bound + ni * in;
        for (size_t i = 0; i < in; i++) row[i] = 0;
        for (size_t o = 0; o < out; o++) {
            double a = fabs((double)dy[ni * out + o]);
            const float *wp = wt + o * in;
            for (size_t i = 0; i < in; i++) row[i] += a * fabs((double)wp[i]);
        }
        for (size_t i = 0; i < in; i++) row[i] *= g;
    }
}

void compare_bound_dense_bwd_weights(double *bound_dw, double *bound_db, const float *x, const float *dy,
                                     size_t n, size_t in, size_t out) {
    double g = compare_gamma(n);
    // x is (n,in), dy is (n,out), bound_dw is (out,in)
#pragma omp parallel for schedule(static)
    for (size_t o = 0; o < out; o++) {
        double *row = bound_dw + o * in;
        for (size_t i = 0; i < in; i++) row[i] = 0;
        for (size_t ni = 0; ni < n; ni++) {
            double a = fabs((double)dy[ni * out + o]);
            const float *xp = x + ni * in;
            for (size_t i = 0; i < in; i++) row[i] += a * fabs((double)xp[i]);
        }
        for (size_t i = 0; i < in; i++) row[i] *= g;
    }
    if (bound_db) {
        double gb = compare_gamma(n ? n - 1 : 0);
        for (size_t o = 0; o < out; o++) {
            double s = 0;
            for (size_t ni = 0; ni < n; ni++) s += fabs((double)dy[ni * out + o]);
            bound_db[o] = gb * s;
        }
    }
}
