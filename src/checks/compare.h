/*
 * compare.h — pure metrics between a reference tensor and a candidate fp32
 * tensor, and the a-priori fp32 error bounds they are judged against.
 *
 * The reference is either fp32 (another engine, a golden file) or double
 * (the MPFR engine's read-out, resolved far below one fp32 ULP).  One call
 * fills a compare_stats: max abs error and the headline max|c-r| / max|r|,
 * max rel error, ULP distance (ordinal: p50 / p99 / max, histogram), fraction
 * bitwise equal, zero-vs-nonzero counts, NMSE, relative L2 error, worst
 * indices, NaN/Inf counts, and — when the caller passes a per-element bound
 * — the bound ratio |cand - ref| / bound[i].  Helpers print one element
 * with its coordinates and both values.
 *
 * Bounds (compare_bound_*): the standard worst-case bound of an fp32 dot
 * product of length K evaluated in ANY summation order (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., §3.1, eq. 3.5):
 *
 *     |fl(sum_k a_k b_k) - sum_k a_k b_k|  <=  gamma_K * sum_k |a_k| |b_k|,
 *     gamma_K = K u / (1 - K u),   u = 2^-24 (fp32 unit roundoff).
 *
 * Each product is rounded once and each term passes through at most K-1
 * additions, whatever the tree, so K roundings in all.  A bias is one more
 * term (b * 1, exact product): K+1.  A plain sum of K terms (bias gradients)
 * has only K-1 roundings: gamma_{K-1} * sum |t_k|.  Bound ratio <= 1 reads
 * "consistent with fp32 rounding in some order"; >> 1 reads "reduced
 * precision (TF32), an approximate algorithm (Winograd, FFT), or a bug".
 * Inputs must be the fp32 values the layer actually consumed (isolated mode:
 * the leader's values rounded to fp32); the bound says nothing about error
 * inherited from earlier layers.
 *
 * Not here: I/O (compare_stats_json appends to a caller's lsbuf, nothing
 * more), choosing what to compare, tolerances and verdicts (golden.c and
 * audit/driver.c decide those).
 */
#ifndef LS_COMPARE_H
#define LS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* ULP distance: the ordinal distance between two fp32 values, i.e. how many
 * representable floats one must step over to get from one to the other
 * (whole steps; two finite floats are at most 2 * 0x7f7fffff < 2^32 - 1
 * apart; +0 and -0 are at distance 0, counted apart in n_zero_sign).
 * Against a double reference the distance is taken from the reference
 * rounded to nearest fp32 — so 0 reads "the candidate is the correctly
 * rounded value" — and the sub-ULP resolution lives in scale_ulp instead.
 *
 * Histogram of the distance over finite pairs: bins 0..63 count distances
 * 0..63 exactly; bin 64 + (k - 6), k = 6..31, counts distances in
 * [2^k, 2^(k+1)); bin COMPARE_BIN_NONFINITE counts non-finite mismatches
 * (one side NaN/Inf and the other not, or different infinities).  Pairs
 * that agree on being NaN or the same infinity are in no bin (they are in
 * n_equal).  So bins 0..89 sum to n_finite. */
#define COMPARE_ULP_EXACT 64
#define COMPARE_ULP_BINS 91
#define COMPARE_BIN_NONFINITE 90

typedef struct {
    size_t n;                /* elements compared */
    size_t n_finite;         /* pairs where both sides are finite: every error metric below is over these */
    double max_abs;          /* max |cand - ref| */
    double max_abs_ref;      /* max |ref|: the tensor's scale */
    double rel_to_max;       /* max_abs / max_abs_ref, the headline error (0/0 = 0, x/0 = inf) */
    double scale_ulp;        /* max_abs in fp32 ULPs at max_abs_ref (compare_ulp_of): "error in ULPs of the
                              * tensor's scale"; real-valued, so sub-ULP errors against a double reference show */
    double max_rel;          /* max |cand - ref| / |ref| over ref != 0 (a ref of 0 shows in max_abs/ULP) */
    double max_ulp;          /* max ULP distance (whole steps, an integer <= 2^32 - 1) */
    double p50_ulp, p99_ulp; /* nearest-rank percentiles of the ULP distance: the exact value when it falls in
                              * an exact bin (< 64), else the upper end 2^(k+1) of its binade, or max_ulp when
                              * that is smaller (see *_bound) */
    int p50_ulp_bound;       /* 1: p50_ulp is only an upper bound ("<= 2^k"), 0: exact */
    int p99_ulp_bound;
    uint64_t ulp_hist[COMPARE_ULP_BINS];
    size_t n_equal;          /* bitwise equal to ref (double ref: to ref rounded to fp32); both NaN counts as equal */
    double frac_equal;       /* n_equal / n (1 when n == 0) */
    size_t n_zero_sign;      /* +0 vs -0 pairs: ULP distance 0 but not bitwise equal */
    size_t n_ref_zero_cand_nonzero; /* finite pairs, ref == 0 (double ref: rounded to fp32) and cand != 0 */
    size_t n_ref_nonzero_cand_zero; /* finite pairs, ref != 0 (double ref: rounded to fp32) and cand == 0 */
    size_t first_diff_index; /* first index not bitwise equal; n when none */
    double nmse;             /* sum (c-r)^2 / sum r^2 (0/0 = 0, x/0 = inf) */
    double rel_l2;           /* sqrt(nmse) */
    size_t worst_abs_index;  /* argmax |c - r| (first on ties); n when no finite pair */
    size_t worst_ulp_index;  /* argmax ULP distance (first on ties) */
    size_t ref_nan, ref_inf, cand_nan, cand_inf;
    size_t n_nonfinite_mismatch;
    size_t first_nonfinite_mismatch; /* n when none */
    /* against a bound, when one was given */
    int has_bound;
    double max_bound_ratio;  /* max |c - r| / bound[i]; inf when some bound is 0 and the error is not */
    double mean_bound_ratio; /* over finite pairs with bound[i] > 0 */
    size_t worst_bound_index;
    size_t n_over_bound;     /* elements with |c - r| > bound[i] */
    size_t n_unjudged;       /* elements whose bound is +inf: no information (fp32 may overflow there,
                              * bounds_range_unbound), judged by nothing: neither over nor within */
} compare_stats;

/* Compare cand against an fp32 or a double reference.  bound may be NULL;
 * otherwise bound[i] >= 0 is the a-priori bound for element i.  Pure:
 * deterministic, sequential, no allocation, no I/O. */
void compare_f32(compare_stats *s, const float *ref, const float *cand, size_t n, const double *bound);
void compare_f64(compare_stats *s, const double *ref, const float *cand, size_t n, const double *bound);
/* compare_f32 one element at a time, without its blocks of finite
 * elements (vectorized passes, sums still in index order): the same stats
 * to the bit, slower; for tests. */
void compare_f32_plain(compare_stats *s, const float *ref, const float *cand, size_t n, const double *bound);

/* One element's ULP distance, whole steps (see above): f32 between the two
 * floats, f64 between the reference rounded to fp32 and the candidate.  0
 * when both are NaN or the same infinity; inf for any other non-finite
 * pair. */
double compare_ulp_f32(float ref, float cand);
double compare_ulp_f64(double ref, float cand);
/* The fp32 ULP at r's magnitude, 2^(max(e,-126) - 23) with e = floor(log2 |r|)
 * (r = 0: the subnormal ULP 2^-149): the unit of scale_ulp. */
double compare_ulp_of(double r);
/* The distances a histogram bin holds, [*lo, *hi] inclusive (bin < COMPARE_BIN_NONFINITE). */
void compare_ulp_bin_range(int bin, uint64_t *lo, uint64_t *hi);
/* A percentile for people: "3", or "<= 2^21" when it is only a bound
 * (bound != 0); NUL-terminated, truncated to len. */
const char *compare_ulp_pct_str(char *buf, size_t len, double v, int bound);

/* ---- one element, for messages ---------------------------------------
 * Coordinates of a flat (row-major) index in a shape of ndim dims, named:
 * "[n=3 c=12 h=5 w=7]", or "[3,12,5,7]" when names is NULL, or "[index]"
 * when ndim <= 0 or index is outside the shape.  names: ndim strings. */
void compare_coords_str(lsbuf *b, size_t index, int ndim, const size_t *shape, const char *const *names);
/* Dimension names for a tensor of ndim (1..4) dims: activations and their
 * gradients (n, c, h, w) / (n, features) / (n); parameters (out, in, kh, kw)
 * / (out, in) / (out).  NULL for other ndim. */
const char *const *compare_dim_names(int ndim, int is_param);
/* Both values of one element and their distance:
 *   "ref 0.123456791 (0x3dfcd6ea), cand 0.123456784 (0x3dfcd6e9), 1 ULP"
 * ref_name/cand_name label the two sides ("golden", "new"); a double
 * reference (ref_is_f32 = 0) prints %.17g with no bits, and the distance is
 * from its fp32 rounding; a non-finite mismatch prints "NaN/Inf mismatch". */
void compare_pair_str(lsbuf *b, const char *ref_name, double ref, int ref_is_f32, const char *cand_name,
                      float cand);

/* Append the stats as one JSON object (no newline) to b.  Non-finite
 * numbers become null (lsbuf_json_num).  The histogram is sparse:
 * "ulp_hist":[[lo,hi,count],...] for the non-empty bins (distances lo..hi
 * inclusive), the non-finite bin is "nonfinite_mismatch". */
void compare_stats_json(lsbuf *b, const compare_stats *s);
/* ... with_hist 0: without "ulp_hist" (the audit's every-step parameter
 * lines: p50/p99/max ULP say enough there, and a histogram on each of them
 * grew steps.jsonl by ~2 KB a pair and step, read by nothing) */
void compare_stats_json_opt(lsbuf *b, const compare_stats *s, int with_hist);

/* ---- a-priori fp32 bounds -------------------------------------------
 * gamma_K = K u / (1 - K u), u = 2^-24; inf when K u >= 1.  Each helper
 * writes one bound per output element (double, so the bound itself is not
 * a source of error: the products of two floats are exact in double and the
 * sum of |terms| carries relative error < K * 2^-53, negligible next to
 * gamma_K).  Loops over output elements run under OpenMP; each element is
 * summed by one thread in a fixed order, so results do not depend on the
 * thread count.  Layouts: NCHW activations, OIHW conv weights, (out, in)
 * dense weights, stride 1, square kernel k, zero padding pad,
 * oh = h + 2 pad - k + 1. */
double compare_gamma(size_t k);

/* One dot product of length k: gamma_k * sum |a_i||b_i|. */
double compare_bound_dot(const float *a, const float *b, size_t k);

/* conv forward: y = conv(x, wt) + bias.  K = c*k*k (+1 with a bias).
 * bound (n, oc, oh, ow); x (n, c, h, w); wt (oc, c, k, k); bias (oc) or NULL.
 * Padded taps contribute |0| to the sum; K stays c*k*k (a valid, slightly
 * loose count: an implementation may add the zeros, exactly). */
void compare_bound_conv_fwd(double *bound, const float *x, const float *wt, const float *bias,
                            size_t n, size_t c, size_t h, size_t w, size_t oc, size_t k, size_t pad);
/* conv backward-data: dx = conv_transpose(dy, wt).  K = oc*k*k.
 * bound (n, c, h, w); dy (n, oc, oh, ow); wt (oc, c, k, k). */
void compare_bound_conv_bwd_data(double *bound, const float *dy, const float *wt,
                                 size_t n, size_t c, size_t h, size_t w, size_t oc, size_t k, size_t pad);
/* conv backward-weights: dw[o,i,p,q] = sum_{n,y,x} dy[n,o,y,x] * x[n,i,y+p-pad,x+q-pad],
 * K = n*oh*ow; db[o] = sum_{n,y,x} dy[n,o,y,x], a plain sum: gamma_{K-1} * sum |dy|.
 * bound_dw (oc, c, k, k); bound_db (oc) or NULL; x (n, c, h, w); dy (n, oc, oh, ow). */
void compare_bound_conv_bwd_weights(double *bound_dw, double *bound_db, const float *x, const float *dy,
                                    size_t n, size_t c, size_t h, size_t w, size_t oc, size_t k, size_t pad);
/* dense forward: y = x wt^T + bias.  K = in (+1 with a bias).
 * bound (n, out); x (n, in); wt (out, in); bias (out) or NULL. */
void compare_bound_dense_fwd(double *bound, const float *x, const float *wt, const float *bias,
                             size_t n, size_t in, size_t out);
/* dense backward-data: dx = dy wt.  K = out.  bound (n, in); dy (n, out). */
void compare_bound_dense_bwd_data(double *bound, const float *dy, const float *wt,
                                  size_t n, size_t in, size_t out);
/* dense backward-weights: dw = dy^T x, K = n; db = column sums of dy,
 * gamma_{n-1} * sum |dy|.  bound_dw (out, in); bound_db (out) or NULL. */
void compare_bound_dense_bwd_weights(double *bound_dw, double *bound_db, const float *x, const float *dy,
                                     size_t n, size_t in, size_t out);

#endif
