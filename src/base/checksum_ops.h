/*
 * checksum_ops.h — the every-step checksum vectors: per-element bodies that
 * the host implementation (engines/checksums.c) loops over and that a CUDA
 * kernel calls once per thread, so both compute the same sums in the same
 * order, in double.
 *
 * Why these sums: a convolution or dense layer is linear in its input, so
 * a sum of its outputs is the same linear map applied to a sum of its
 * inputs (Huang & Abraham's checksum idea).  Each relation is reported as
 * three numbers (ck_rel): the residual R = lhs - rhs, both sides evaluated
 * in double from the engine's own fp32 tensors; A = the same sum with
 * every term in absolute value (what the fp32 rounding bound scales with);
 * Y = sum of |computed outputs| (what the double evaluation's own rounding
 * scales with); S = an upper bound on the largest single output's sum of
 * |terms| (max_p S_p: what the sharper, probabilistic tier needs besides
 * A = sum_p S_p; the host's conv relations add E / A for outputs of
 * identical windows, engines/checksums.c's conv_groups, which the kernels
 * here do not).  checks/bounds.c turns (A, Y, S) into tolerances;
 * nothing here judges.
 *
 * Shapes are passed as plain numbers (base knows no model).  Conv: stride
 * 1, k x k, zero padding `pad`, NCHW / OIHW.  "Window sum" of offset
 * (kh, kw): the sum over output positions (oh, ow) of the input element
 * at (oh + kh - pad, ow + kw - pad) when inside the input — the term that
 * kernel element (kh, kw) meets at every output position.
 *
 * Not here: loops over whole tensors, memory, bounds, verdicts.
 */
#ifndef LS_CHECKSUM_OPS_H
#define LS_CHECKSUM_OPS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/rng.h"

typedef struct {
    double r, a, y, s;
} ck_rel;

typedef struct {
    int c, h, w;     /* input channels and size */
    int oc, oh, ow;  /* output */
    int k, pad;
} ck_conv_dims;

/* Window sums of one (sample, channel) plane x (h, w) for kernel offset
 * (kh, kw): *s = sum of x, *sa = sum of |x|, over the output positions. */
LS_HD void ck_window_sum(const float *x, const ck_conv_dims *d, int kh, int kw, double *s, double *sa) {
    double t = 0, ta = 0;
    for (int i = 0; i < d->oh; i++) {
        int r = i + kh - d->pad;
        if (r < 0 || r >= d->h) continue;
        for (int j = 0; j < d->ow; j++) {
            int q = j + kw - d->pad;
            if (q < 0 || q >= d->w) continue;
            double v = x[r * d->w + q];
            t += v;
            ta += fabs(v);
        }
    }
    *s = t;
    *sa = ta;
}

/* The same for the backward-data relation: the sum of dy (oh, ow) over the
 * output positions whose input element (oh + kh - pad, ow + kw - pad) is
 * inside the input, i.e. the positions that reach the input through (kh, kw). */
LS_HD void ck_window_sum_dy(const float *dy, const ck_conv_dims *d, int kh, int kw, double *s, double *sa) {
    double t = 0, ta = 0;
    for (int i = 0; i < d->oh; i++) {
        int r = i + kh - d->pad;
        if (r < 0 || r >= d->h) continue;
        for (int j = 0; j < d->ow; j++) {
            int q = j + kw - d->pad;
            if (q < 0 || q >= d->w) continue;
            double v = dy[i * d->ow + j];
            t += v;
            ta += fabs(v);
        }
    }
    *s = t;
    *sa = ta;
}

/* The position-weighted relations (engines/checksums.h FWD_PW,
 * BWD_DATA_PW): each output weighted by its linear position + 1, w i + j
 * + 1 for (i, j) in a plane w wide, with the checkerboard's sign
 * (-1)^(i + j) (ck_pw_sign).  ck_window_sum_w: the sum over output
 * positions (i, j) of (-1)^(i + j) (ow i + j + 1) x at (i + kh - pad, j +
 * kw - pad) where inside the plane (and of |weight| |x|); with dy_mode,
 * the same over ck_window_sum_dy's terms, each dy (i, j) times the signed
 * weight of the input element it reaches, (-1)^(r + q) (w r + q + 1) at
 * (r, q) = (i + kh - pad, j + kw - pad).  ck_rows_w: the sum over a plane
 * (h, w) of (-1)^(i + j) (w i + j + 1) y (and (w i + j + 1) |y|), as per
 * row i: the row's alternating sum ri = sum (-1)^j y and qi = sum (-1)^j
 * (j + 1) y in order, then (-1)^i (w i ri + qi) added over the rows in
 * order; elements `stride` floats apart (16 in an nChw16c block).  The
 * weights see a plane's values moved to other positions (transposed,
 * mirrored, rows exchanged), which a plane's plain sum does not; the signs
 * make two neighbours exchanged (opposite signs) move the relation by the
 * sum of their weights times the difference, where the unsigned weights
 * moved it by once the difference, and never less (|a| + |b| >= |a -
 * b|).  |weight| is as before, so are A, Y, S and the tolerances. */
LS_HD double ck_parity_sign(int i) { return (i & 1) ? -1.0 : 1.0; } /* (-1)^i, i of either sign */
LS_HD double ck_pw_sign(int i, int j) { return ck_parity_sign(i + j); }

/* The signed weights' sum over an (h, w) plane (the forward relation's
 * bias term), exact: integers below 2^53. */
LS_HD double ck_pw_bias(int h, int w) {
    double t = 0;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) t += ck_pw_sign(i, j) * ((double)w * i + j + 1);
    return t;
}

LS_HD void ck_window_sum_w(const float *x, const ck_conv_dims *d, int kh, int kw, int dy_mode, double *s, double *sa) {
    double t = 0, ta = 0;
    for (int i = 0; i < d->oh; i++) {
        int r = i + kh - d->pad;
        if (r < 0 || r >= d->h) continue;
        for (int j = 0; j < d->ow; j++) {
            int q = j + kw - d->pad;
            if (q < 0 || q >= d->w) continue;
            double v = dy_mode ? x[i * d->ow + j] : x[r * d->w + q];
            double om = dy_mode ? (double)d->w * r + q + 1 : (double)d->ow * i + j + 1;
            t += (dy_mode ? ck_pw_sign(r, q) : ck_pw_sign(i, j)) * om * v;
            ta += om * fabs(v);
        }
    }
    *s = t;
    *sa = ta;
}

LS_HD void ck_rows_w(const float *y, int h, int w, size_t stride, double *s, double *sa) {
    double t = 0, ta = 0;
    for (int i = 0; i < h; i++) {
        double ri = 0, ra = 0, qi = 0, qa = 0;
        for (int j = 0; j < w; j++) {
            double v = y[((size_t)i * w + j) * stride], sv = ck_pw_sign(0, j) * v;
            ri += sv, ra += fabs(v);
            qi += (double)(j + 1) * sv, qa += (double)(j + 1) * fabs(v);
        }
        t += ck_pw_sign(i, 0) * ((double)w * i * ri + qi);
        ta += (double)w * i * ra + qa;
    }
    *s = t;
    *sa = ta;
}

/* The alternating relations (engines/checksums.h FWD_RA, BWD_DATA_RA,
 * FWD_CA, BWD_DATA_CA): each output (forward) or input gradient
 * (backward-data) weighted by (-1)^row, or by (-1)^column.  A Winograd
 * F(4x4, 3x3) tile with one transform-domain value M[2][1] off adds +-eps
 * in alternating rows of a 4x4 tile (M[1][2]: in alternating columns):
 * its plain sum is 0, and its checkerboard-signed, position-weighted one
 * 8 eps (8 w eps) against weights of ~P/2 (FWD_PW), so neither sees it
 * well; the matching alternating relation moves by 16 eps against
 * |weights| of 1.  |weight| = 1 everywhere, so A, Y and S are the plain
 * relation's, and so are its tolerances.  ck_window_sum_alt: the sum over
 * the plane's terms that kernel offset (kh, kw) meets, each with the sign
 * of the output row (by_col: column) it belongs to (forward, over x:
 * (-1)^i) or of the input row (column) it reaches (dy_mode, over dy:
 * (-1)^(i + kh - pad)), and the plain |.| sum; ck_rows_alt: over rows i,
 * in order, *sr += (-1)^i (the row's sum) and *sc += (the row's sum with
 * signs (-1)^j), and the plane's sum of |y| in the same order.  The bias
 * term of the forward relations is ow (oh mod 2) (rows) and oh (ow mod 2)
 * (columns). */
LS_HD void ck_window_sum_alt(const float *x, const ck_conv_dims *d, int kh, int kw, int dy_mode, int by_col,
                             double *s, double *sa) {
    double t = 0, ta = 0;
    for (int i = 0; i < d->oh; i++) {
        int r = i + kh - d->pad;
        if (r < 0 || r >= d->h) continue;
        double sg = by_col ? 1.0 : ck_parity_sign(dy_mode ? r : i);
        for (int j = 0; j < d->ow; j++) {
            int q = j + kw - d->pad;
            if (q < 0 || q >= d->w) continue;
            double v = dy_mode ? x[i * d->ow + j] : x[r * d->w + q];
            t += (by_col ? ck_parity_sign(dy_mode ? q : j) : sg) * v;
            ta += fabs(v);
        }
    }
    *s = t;
    *sa = ta;
}

LS_HD void ck_rows_alt(const float *y, int h, int w, size_t stride, double *sr, double *sc, double *sa) {
    double t = 0, tc = 0, ta = 0;
    for (int i = 0; i < h; i++) {
        double ri = 0, ci = 0;
        for (int j = 0; j < w; j++) {
            double v = y[((size_t)i * w + j) * stride];
            ri += v, ci += ck_parity_sign(j) * v, ta += fabs(v);
        }
        t += ck_parity_sign(i) * ri;
        tc += ci;
    }
    *sr = t;
    *sc = tc;
    *sa = ta;
}

/* Plain sum and absolute sum of cnt floats with stride. */
LS_HD void ck_sum(const float *x, size_t cnt, size_t stride, double *s, double *sa) {
    double t = 0, ta = 0;
    for (size_t i = 0; i < cnt; i++) {
        double v = x[i * stride];
        t += v;
        ta += fabs(v);
    }
    *s = t;
    *sa = ta;
}

/* A conv layer's plain backward-weights relation (BWD_W) weights
 * dW[o][c][kh][kw] by ck_cw = (-1)^(c + kh + kw) ck_tap_sign(kh, kw):
 * |weight| = 1, so its A, Y, S and both tiers are those of the unweighted
 * sum (checks/bounds.c is unchanged), and a single element off by e moves
 * it by e as the unweighted sum did.  The signs are chosen against the
 * exchanges of two elements that the index weights (ck_iw, below) see
 * weakly or not at all, each of which they give opposite signs, so that
 * the exchange moves this relation by 2 |difference| (test_checksums
 * checks all three for k = 1..7):
 *  - equal index weights: c k k + s (tap + 1) of channel c meets c k k +
 *    k k + s' (tap' + 1) of channel c + 1 when s (tap + 1) - s' (tap' +
 *    1) = k k (channels two apart never meet: |s (tap + 1)| <= k k), a
 *    pair the index-weighted relation cannot tell apart at all
 *    (conv2_dw_equal_weight_swap_once);
 *  - a slice transposed, (kh, kw) <-> (kw, kh): the tap sign flips and
 *    the checkerboard (-1)^(kh + kw) does not, where the index weights
 *    differ by 6 to 14 against weights up to C k k
 *    (conv2_dw_slice_transposed_once);
 *  - the same tap of neighbouring channels: (-1)^c flips
 *    (conv2_dw_ic_slices_swapped_once).
 * What it gives up against all-ones weights: a near-constant offset
 * between two slices no longer adds up over the taps (the k k signs sum
 * to -1 or 0).  ck_csum: the sum of ck_cw(t, k) x_t and of |x_t| over cnt
 * floats (the CUDA engine's; the host's the same terms in another order). */
LS_HD double ck_tap_sign(int kh, int kw, int k);
LS_HD double ck_cw(size_t t, int k) {
    size_t kk = (size_t)k * (size_t)k, c = t / kk, tap = t % kk;
    int kh = (int)(tap / (size_t)k), kw = (int)(tap % (size_t)k);
    return ((c + (size_t)kh + (size_t)kw) & 1 ? -1.0 : 1.0) * ck_tap_sign(kh, kw, k);
}
LS_HD void ck_csum(const float *x, size_t cnt, int k, double *s, double *sa) {
    double t = 0, ta = 0;
    for (size_t i = 0; i < cnt; i++) {
        double v = x[i];
        t += ck_cw(i, k) * v;
        ta += fabs(v);
    }
    *s = t;
    *sa = ta;
}

/* The index weight of element t of a filter or a row (the index-weighted
 * backward-weights relation, BWD_W_PW), against the unsigned t + 1 (ck_iw_abs,
 * which bounds |ck_iw| and is what A, Y, S and every tolerance are built
 * from: checks/bounds.c).  Dense (k <= 0): +-(t + 1), the sign by the
 * row's pattern (ck_iw_dense, below; k = 0: (-1)^t).  Conv (k > 0,
 * t = c k k + tap, tap = kh k + kw): c k k + s (tap + 1), the tap's sign s
 * + above the k x k diagonal (kw > kh) and - below it, on it + in the
 * filter's upper half (2 kh < k - 1) and - otherwise, so that a slice
 * transposed or turned by 180 degrees exchanges only taps of opposite
 * signs; the channel's part c k k keeps no sign, so two input channels'
 * slices exchanged move the relation by k k (c1 - c0) times their
 * difference summed over the taps, as unsigned weights did (a sign on it
 * too would cancel a near-constant offset between the two slices: the k k
 * signs sum to +-1).  An exchange of two elements of weights a and b moves
 * the relation by |a - b| |difference|: opposite signs make that |a| +
 * |b| (neighbours in a dense row: 2 t + 3 instead of 1; the exchanged
 * pairs of a transposed 3 x 3 slice: 6 to 14 instead of 2 to 4). */
LS_HD double ck_tap_sign(int kh, int kw, int k) { return kw > kh || (kw == kh && 2 * kh < k - 1) ? 1.0 : -1.0; }
/* Dense rows take one of four sign patterns by the row's index mod 4
 * (ck_iw_dense gives the k that ck_iw and ck_isum take for row j: 0, -1,
 * -2, -3): element t's sign is (-1) to the parity of t & mask, mask 1, 3,
 * 5, 9.  Pattern 0 (mask 1) is (-1)^t, neighbours opposite.  Two elements
 * t and t ^ d exchanged have opposite signs exactly where d & mask has an
 * odd number of bits: d = 1 in every row, d = 3 in 3 rows of 4, 2, 4 and
 * 8 in 1 of 4, every d from 1 to 15 in at least 1 of 4 (the lanes of a
 * 16-float vector); one pattern cannot do it (t, t ^ 1, t ^ 2, t ^ 3 are
 * four elements, and t's sign cannot differ from all three others' while
 * they differ from each other).  A fault that exchanges the same two
 * columns in every row (a shuffle's immediate) then moves a quarter of
 * the rows or more by |a| + |b| times the difference.  A dense layer's
 * right-hand sides need the input's weighted sums once per pattern (4 n
 * sums instead of n); A, Y and S use ck_iw_abs, unchanged. */
enum { CK_IW_PATTERNS = 4 };
LS_HD int ck_iw_dense(size_t row) { return -(int)(row & 3); }
LS_HD double ck_iw(size_t t, int k) {
    if (k <= 0) {
        size_t mask = k == 0 ? 1 : k == -1 ? 3 : k == -2 ? 5 : 9, u = t & mask;
        return ((u ^ (u >> 1) ^ (u >> 2) ^ (u >> 3)) & 1) ? -(double)(t + 1) : (double)(t + 1);
    }
    size_t kk = (size_t)k * (size_t)k, tap = t % kk;
    return (double)(t - tap) + ck_tap_sign((int)(tap / (size_t)k), (int)(tap % (size_t)k), k) * (double)(tap + 1);
}
LS_HD double ck_iw_abs(size_t t) { return (double)(t + 1); }

/* Z at output position (oh, ow) of sample i (x: n samples of C planes):
 * the input summed over every element a filter tap (c, kh, kw) meets,
 * with the tap's sign ck_cw (the plain relation's),
 * and in |.|; weighted: each element times the tap's index weight in the
 * filter, ck_iw(c k k + kh k + kw, k) (the index-weighted backward-weights
 * relation; |.| times ck_iw_abs).  The CUDA engine's, one output position
 * per thread. */
LS_HD void ck_conv_z_at(const float *x, const ck_conv_dims *d, size_t i, int oh, int ow, int weighted, double *z,
                        double *za) {
    size_t HW = (size_t)d->h * d->w, kk = (size_t)d->k * d->k;
    double t = 0, ta = 0;
    for (int c = 0; c < d->c; c++)
        for (int kh = 0; kh < d->k; kh++) {
            int rr = oh + kh - d->pad;
            if (rr < 0 || rr >= d->h) continue;
            for (int kw = 0; kw < d->k; kw++) {
                int qq = ow + kw - d->pad;
                if (qq < 0 || qq >= d->w) continue;
                double v = x[(i * d->c + c) * HW + rr * d->w + qq];
                size_t ti = c * kk + (size_t)(kh * d->k + kw);
                double om = weighted ? ck_iw(ti, d->k) : ck_cw(ti, d->k), oma = weighted ? ck_iw_abs(ti) : 1.0;
                t += om * v, ta += oma * fabs(v);
            }
        }
    *z = t;
    *za = ta;
}

/* Index-weighted sums: sum of ck_iw(i, k) x_i and of ck_iw_abs(i) |x_i|
 * over cnt floats (k: the filter's size for a conv filter's weights,
 * ck_iw_dense(j) for dense row j; the CUDA engine's; the host's are in lanes: the same terms,
 * another order of addition).  An index below 2^29 times a float is exact
 * in a double, and so is its sign. */
LS_HD void ck_isum(const float *x, size_t cnt, int k, double *s, double *sa) {
    double t = 0, ta = 0;
    for (size_t i = 0; i < cnt; i++) {
        double v = x[i], om = ck_iw(i, k);
        t += om * v;
        ta += ck_iw_abs(i) * fabs(v);
    }
    *s = t;
    *sa = ta;
}

/* Accumulate a linear map's right-hand side: *rhs += coef . xs and
 * *a += |coef| . xa over len terms (strided).  A relation is then
 * R = lhs - rhs, A = a, Y = sum |outputs| (ck_rel). */
LS_HD void ck_dot_acc(double *rhs, double *a, const float *coef, size_t coef_stride, const double *xs,
                      const double *xa, size_t x_stride, size_t len) {
    double t = *rhs, ta = *a;
    for (size_t i = 0; i < len; i++) {
        double w = coef[i * coef_stride];
        t += w * xs[i * x_stride];
        ta += fabs(w) * xa[i * x_stride];
    }
    *rhs = t;
    *a = ta;
}

/* ---- S of a relation: an upper bound on its largest output's sum of
 * |terms| (max_p S_p, the sharper tier's; checks/bounds.c), from plane
 * maxima of |input|, as engines/checksums.c computes it.  In double, in
 * the order written; a NaN input is skipped by the maxima (its relation's
 * residual is NaN and fails anyway).  The CUDA kernels call these with
 * maxima computed once per plane (ck_max_abs); every max is exact, so only
 * the order of the sums below decides the bits.  Rounded to nearest, as
 * the host's: S may fall below the exact bound by its own double rounding
 * (< (terms added + 2) 2^-53 relative), which bounds_ck_tols' 1.01 factor on
 * the sharp term covers many times over; nothing is inflated here. ------ */

/* max |x| over cnt strided floats (0 when cnt = 0; a NaN never wins:
 * v > m is false) */
LS_HD double ck_max_abs(const float *x, size_t cnt, size_t stride) {
    double m = 0;
    for (size_t i = 0; i < cnt; i++) {
        double v = fabs((double)x[i * stride]);
        m = v > m ? v : m;
    }
    return m;
}

/* max of cnt doubles, at least 0 (maxima of planes: the max over them) */
LS_HD double ck_max_of(const double *v, size_t cnt) {
    double m = 0;
    for (size_t i = 0; i < cnt; i++) m = v[i] > m ? v[i] : m;
    return m;
}

/* sum of |w| over cnt strided floats, in order */
LS_HD double ck_abs_sum(const float *w, size_t cnt, size_t stride) {
    double t = 0;
    for (size_t i = 0; i < cnt; i++) t += fabs((double)w[i * stride]);
    return t;
}

/* Conv forward, relation (sample, oc): |b[oc]| + sum over input channels c,
 * in order, of (sum_t |w[oc][c][t]|) mx[c], mx = the sample's C plane
 * maxima of |x|.  Each output's sum of |terms| is |b| + sum_c sum_t |w|
 * |x at that tap| <= this. */
LS_HD double ck_s_conv_fwd(const float *w, const float *b, const double *mx, const ck_conv_dims *d, int oc) {
    size_t kk = (size_t)d->k * d->k, ckk = (size_t)d->c * kk;
    double s = fabs((double)b[oc]);
    for (int c = 0; c < d->c; c++) s += ck_abs_sum(w + oc * ckk + c * kk, kk, 1) * mx[c];
    return s;
}

/* Conv backward-data, relation (sample, c): sum over output channels oc,
 * in order, of (sum_t |w[oc][c][t]|) mx[oc], mx = the sample's OC plane
 * maxima of |dy|. */
LS_HD double ck_s_conv_bwd_data(const float *w, const double *mx, const ck_conv_dims *d, int c) {
    size_t kk = (size_t)d->k * d->k, ckk = (size_t)d->c * kk;
    double s = 0;
    for (int oc = 0; oc < d->oc; oc++) s += ck_abs_sum(w + oc * ckk + c * kk, kk, 1) * mx[oc];
    return s;
}

/* Conv backward-weights, relation oc: S = sum over samples, in order, of
 * this term: (max |x| over the sample: the max of its C plane maxima mx)
 * times dy_asum = sum_p |dy[sample, oc, p]| (every dW[oc][c][t] sums
 * dy x over the sample's positions). */
LS_HD double ck_s_conv_bwd_w_term(const double *mx, int c, double dy_asum) {
    return ck_max_of(mx, (size_t)c) * dy_asum;
}

/* Dense forward (w = row j, stride 1, cnt = in, mx = max |x| over the
 * batch, babs = |b_j|) and backward-data (w = column k, stride in, cnt =
 * out, mx = max |dy| over the batch, babs = 0): (sum |w|) mx + babs.
 * Backward-weights is sum_batch |dy_j| times max |x| (one product). */
LS_HD double ck_s_dense(const float *w, size_t cnt, size_t stride, double mx, double babs) {
    return ck_abs_sum(w, cnt, stride) * mx + babs;
}

/* Dense, one sample's relation, summed over its outputs (forward: lhs =
 * y[p], nl = out; x = x[p], nx = in; cs, csa = W's column sums of w and
 * |w| (nx); lw = W's row sums of |w| (nl, for S); b = the bias (nl)) or
 * over its input gradient (backward-data: lhs = dx[p], nl = in; x = dy[p],
 * nx = out; cs, csa = W's row sums (nx); lw = W's column sums of |w| (nl);
 * b = NULL).  R = sum lhs - (sum b + cs . x), A = sum |b| + csa . |x|,
 * Y = sum |lhs|, S = max lw * max |x| + max |b| (each output's sum of
 * |terms|, |b_j| + sum_i |w_ji| |x_i|, is at most that).  The relations
 * summed over the batch cannot see a sample's outputs written into
 * another sample's row; these can. */
LS_HD void ck_dense_sample(double *o, const float *lhs, size_t nl, const float *x, size_t nx, const double *cs,
                           const double *csa, const double *lw, const float *b) {
    double ls, la, rhs = 0, a = 0, bm = 0;
    for (size_t j = 0; b && j < nl; j++) {
        double v = fabs((double)b[j]);
        rhs += b[j], a += v, bm = v > bm ? v : bm;
    }
    ck_sum(lhs, nl, 1, &ls, &la);
    ck_dot_acc(&rhs, &a, x, 1, cs, csa, 1, nx);
    o[0] = ls - rhs, o[1] = a, o[2] = la, o[3] = ck_max_of(lw, nl) * ck_max_abs(x, nx, 1) + bm;
}

/* Row j of a dense layer's dW (dw_row, in floats), judged by its zero
 * structure: dW[j][i] = sum_n dy[n][j] x[n][i] (dy: n x out, x: n x in,
 * row-major; xa[i]: x's column i summed in |.| over the batch, 0 when the
 * column is 0 in every sample).
 *  - dW exactly +-0 while dy's column j and x's column i both have a
 *    nonzero in the batch: its dot product re-done in double (each product
 *    of two floats exact, summed in sample order), the residual 0 - R,
 *    A = sum |terms| (A = 0: no sample has both nonzero, an exact +-0, not
 *    judged).  An fp32 sum of nonzero terms is exactly 0 only by
 *    cancellation, which leaves |R| within the element's own bound
 *    gamma_n A; a gradient flushed to 0 is off by all of R.
 *  - a nonzero while dy's column j or x's column i is 0 in every sample:
 *    every term is 0, so it must be +-0 (residual v, A = 0);
 *  - and the row's smallest nonzero |dW| (the first, on ties) where a term
 *    is possible, re-done the same way: a kernel that rounds tiny
 *    gradients to a tiny nonzero (up to fp16's smallest subnormal, say)
 *    instead of to 0 leaves them the smallest of their row, each off by
 *    far more than its own bound.  Any element's |v - R| is within
 *    gamma_n A for a legal engine, so the choice of which to re-do is free.
 * A zero whose dot product has a term with two nonzero operands, one of
 * them subnormal (below 2^-126), is not judged: an engine that rounds its operands to
 * TF32 or bf16 (fp32's exponent range, fewer significand bits) may round
 * such an operand to 0, an absolute error the relative bound does not
 * cover; no operand of a flushed gradient is subnormal in practice, and
 * Adam's step does not see gradients that far below its eps.
 * o: the row's worst by |R| / (A + 2^-125) (checks/bounds.c's tolerance
 * gamma_n A + n 2^-149 up to constant factors; the first on ties):
 * (residual, A, |v|, A); (0, 0, 0, 0) when the row has none.  Only zeros
 * and the one smallest pay the O(n) re-computation. */
/* The worst re-done element of a row or a filter (ck_dense_zero_row,
 * ck_conv_zero_filter, the host's conv_zero): kept by its key (the first
 * on ties; a NaN key once), written as a relation (residual v - R, A,
 * |v|, S = A); nothing kept: (0, 0, 0, 0). */
typedef struct {
    double key, v, r, a;
} ck_worst;
LS_HD void ck_worst_init(ck_worst *w) { w->key = -1, w->v = w->r = w->a = 0; }
LS_HD void ck_worst_keep(ck_worst *w, double key, float v, double R, double A) {
    if (key > w->key || (key != key && w->key == w->key)) w->key = key, w->v = v, w->r = R, w->a = A;
}
/* a filter whose dy is 0 in the whole batch: its first nonzero, over at any size (A = 0) */
LS_HD void ck_worst_dead(ck_worst *w, const float *f, size_t cnt) {
    for (size_t u = 0; u < cnt; u++)
        if (f[u] != 0) {
            w->key = INFINITY, w->v = f[u], w->r = 0, w->a = 0;
            return;
        }
}
LS_HD void ck_worst_put(const ck_worst *w, double *o) {
    o[0] = w->v - w->r, o[1] = w->a, o[2] = fabs(w->v), o[3] = w->a;
}
/* Keep a re-done element v (R, A its terms' sum and sum of |.| in double;
 * sub: a term of two nonzero operands, one subnormal, which fp32 may
 * flush: not judged).  A zero is kept by |R| / (A + 2^-125) when it has a
 * nonzero term (A = 0: an exact +-0); a nonzero by |v - R| / (A + 2^-125),
 * and with no term at all (A = 0: the exact value is 0) over at any size. */
LS_HD void ck_zero_keep(ck_worst *w, float v, double R, double A, int sub) {
    if (sub) return;
    if (v == 0) {
        if (A > 0) ck_worst_keep(w, fabs(R) / (A + 0x1p-125), v, R, A);
    } else {
        ck_worst_keep(w, A > 0 ? fabs((double)v - R) / (A + 0x1p-125) : INFINITY, v, R, A);
    }
}
/* The index of the smallest nonzero |f[t]| (the first of equals; a NaN
 * first is kept), cnt when every element is +-0. */
LS_HD size_t ck_smallest_nonzero(const float *f, size_t cnt) {
    size_t small = cnt;
    for (size_t t = 0; t < cnt; t++)
        if (f[t] != 0 && (small == cnt || fabsf(f[t]) < fabsf(f[small]))) small = t;
    return small;
}
/* A conv filter's smallest nonzero dW, re-done every step whatever its
 * size (as a dense row's is): where a transform's noise puts an element
 * whose every term is 0 (an FFT's ~1e-12 against a mean ~1e-4: seen on an
 * H200), a floor (2^-24, fp16's smallest subnormal), small gradients
 * lifted to some floor (conv2_dw_tiny_to_min_normal_once: 2^-18, 63x the
 * values) or inputs below a threshold skipped (conv2_dw_small_x_skipped_
 * once): the filter's sums are bounded by its largest terms and do not
 * see them, while Adam's scale-free step moves such a weight by ~lr.  It
 * was gated (re-done only below 2^-14 of the filter's mean |dW|) to save
 * its cost, which let those two faults through; one element of n OH OW
 * terms per filter (cost measured in tests/EVIDENCE.md, "An attack on the
 * checks, two holes closed").  cnt when the filter
 * has no nonzero. */
LS_HD size_t ck_conv_small(const float *f, size_t cnt) { return ck_smallest_nonzero(f, cnt); }

LS_HD int ck_dense_redo(const float *dy, const float *x, size_t n, size_t in, size_t out, size_t j, size_t i,
                        double *R, double *A) {
    int sub = 0;
    *R = 0, *A = 0;
    for (size_t s = 0; s < n; s++) {
        float d = dy[s * out + j], xv = x[s * in + i];
        double t = (double)d * (double)xv;
        sub |= (d != 0) & (xv != 0) & ((fabsf(d) < 0x1p-126f) | (fabsf(xv) < 0x1p-126f));
        *R += t, *A += fabs(t);
    }
    return sub;
}

LS_HD void ck_dense_zero_row(double *o, const float *dw_row, const float *dy, const float *x, const double *xa,
                             size_t n, size_t in, size_t out, size_t j) {
    double da = 0;
    ck_worst w;
    ck_worst_init(&w);
    for (size_t s = 0; s < n; s++) da += fabs((double)dy[s * out + j]);
    int dead = !(da > 0);
    size_t small = in; /* the smallest nonzero |dW| where a term is possible */
    for (size_t i = 0; i < in; i++) {
        float v = dw_row[i];
        double R = 0, A = 0;
        int col_dead = !(xa[i] > 0);
        if (v == 0) {
            if (dead || col_dead) continue;
            int sub = ck_dense_redo(dy, x, n, in, out, j, i, &R, &A);
            ck_zero_keep(&w, v, R, A, sub);
        } else if (dead || col_dead) {
            ck_worst_keep(&w, INFINITY, v, 0, 0);
        } else if (small == in || fabsf(v) < fabsf(dw_row[small])) {
            small = i;
        }
    }
    if (small < in) {
        double R, A;
        int sub = ck_dense_redo(dy, x, n, in, out, j, small, &R, &A);
        ck_zero_keep(&w, dw_row[small], R, A, sub); /* no term: the exact value is +-0 */
    }
    ck_worst_put(&w, o);
}

/* Plane (i, c) of an (n, C, HW) tensor stored plain (cb 1, NCHW) or in
 * channel blocks of cb (nChw16c: cb 16): its element p is at [p * cb]. */
LS_HD const float *ck_plane(const float *t, int cb, size_t C, size_t HW, size_t i, size_t c) {
    size_t b = (size_t)cb;
    return cb == 1 ? t + (i * C + c) * HW : t + i * C * HW + (c / b) * HW * b + c % b;
}

/* Element t = (c, kh, kw) of filter oc of a conv layer's dW re-done in
 * double over its terms, samples then output positions in order: *R the
 * sum, *A the sum of |.|; returns 1 when a term has two nonzero operands,
 * one subnormal (fp32 may flush it: ck_zero_keep does not judge it).
 * xnz, dynz as ck_conv_zero_filter's. */
LS_HD int ck_conv_redo(const float *x, int xcb, const float *dy, int dycb, const unsigned char *xnz,
                       const unsigned char *dynz, const ck_conv_dims *d, size_t n, size_t oc, size_t t, double *R,
                       double *A) {
    size_t kk = (size_t)d->k * d->k, HW = (size_t)d->h * d->w, OP = (size_t)d->oh * d->ow, c = t / kk;
    int kh = (int)((t % kk) / (size_t)d->k), kw = (int)(t % (size_t)d->k), sub = 0;
    double r = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        if (xnz && !(xnz[i * d->c + c] && dynz[i * d->oc + oc])) continue;
        const float *gp = ck_plane(dy, dycb, (size_t)d->oc, OP, i, oc), *xp = ck_plane(x, xcb, (size_t)d->c, HW, i, c);
        double ri = 0, ai = 0; /* a sample's terms, then added (the host sums a sample's while it is in the cache) */
        for (int ya = 0; ya < d->oh; ya++) {
            int ih = ya + kh - d->pad;
            if (ih < 0 || ih >= d->h) continue;
            for (int yb = 0; yb < d->ow; yb++) {
                int iw = yb + kw - d->pad;
                if (iw < 0 || iw >= d->w) continue;
                float g = gp[((size_t)ya * d->ow + yb) * (size_t)dycb];
                float xv = xp[((size_t)ih * d->w + iw) * (size_t)xcb];
                double tt = (double)g * (double)xv;
                sub |= (g != 0) & (xv != 0) & ((fabsf(g) < 0x1p-126f) | (fabsf(xv) < 0x1p-126f));
                ri += tt, ai += fabs(tt);
            }
        }
        r += ri, a += ai;
    }
    *R = r, *A = a;
    return sub;
}

/* Filter oc of a conv layer's dW (dwf, C k k floats, (c, kh, kw)
 * row-major), judged by its zero elements and its smallest nonzero one as
 * ck_dense_zero_row judges a dense row: dW[oc][c][kh][kw] = sum_i
 * sum_(oh, ow) dy[i][oc][oh][ow] x[i][c][oh + kh - pad][ow + kw - pad]
 * (inside the input).  Each element exactly +-0, then the smallest
 * nonzero (ck_smallest_nonzero), is re-done in double over its terms
 * (ck_conv_redo) and kept by ck_zero_keep: a zero by |R| / (A + 2^-125),
 * the smallest (ck_conv_small: every filter's, whatever its size)
 * by |v - R| / (A + 2^-125), over at any size when it has no
 * term at all (an FFT's ~1e-12 where the exact value is 0: seen on an
 * H200).  When the filter's dy is 0 in the whole batch every element must
 * be +-0, and the first nonzero is kept with A = 0 (over at any size).
 * xnz, dynz: where known, per sample and input channel (n C) and per
 * sample and filter (n OC), 1 when that plane has a nonzero (only a sample
 * whose two planes both have one can hold a nonzero term: the others are
 * skipped, their terms all 0); NULL: every sample is read.  o: (residual,
 * A, |v|, A); (0, 0, 0, 0) when nothing was kept. */
LS_HD void ck_conv_zero_filter(double *o, const float *dwf, const float *x, int xcb, const float *dy, int dycb,
                               const unsigned char *xnz, const unsigned char *dynz, const ck_conv_dims *d, size_t n,
                               size_t oc) {
    size_t ckk = (size_t)d->c * d->k * d->k, OP = (size_t)d->oh * d->ow;
    ck_worst w;
    ck_worst_init(&w);
    int live = 0;
    for (size_t i = 0; i < n && !live; i++) {
        const float *g = ck_plane(dy, dycb, (size_t)d->oc, OP, i, oc);
        if (dynz) live = dynz[i * d->oc + oc];
        else
            for (size_t p = 0; p < OP && !live; p++) live = g[p * (size_t)dycb] != 0;
    }
    if (!live) {
        ck_worst_dead(&w, dwf, ckk);
        ck_worst_put(&w, o);
        return;
    }
    double R, A;
    for (size_t t = 0; t < ckk; t++) {
        if (dwf[t] != 0) continue;
        int sub = ck_conv_redo(x, xcb, dy, dycb, xnz, dynz, d, n, oc, t, &R, &A);
        ck_zero_keep(&w, dwf[t], R, A, sub);
    }
    size_t small = ck_conv_small(dwf, ckk);
    if (small < ckk) {
        int sub = ck_conv_redo(x, xcb, dy, dycb, xnz, dynz, d, n, oc, small, &R, &A);
        ck_zero_keep(&w, dwf[small], R, A, sub);
    }
    ck_worst_put(&w, o);
}

/* ---- element-wise re-checks: 1 where the engine's value is not what the
 * operation gives from the engine's own input (the same value; the sign of
 * a zero is not judged) ----------------------------------------------------- */

/* Equal values (+0 and -0 alike: libraries write relu'(x <= 0) as dy * 0,
 * whose sign follows dy), or both NaN. */
LS_HD int ck_bits_differ(float a, float b) { return (a != b) & ((a == a) | (b == b)); } /* no branch */

LS_HD int ck_relu_fwd_bad(float x, float y) { return ck_bits_differ(x > 0 ? x : 0.0f, y); }
/* the engines' rule: dx = y > 0 ? dy : +0, y the forward output */
LS_HD int ck_relu_bwd_bad(float y, float dy, float dx) { return ck_bits_differ(y > 0 ? dy : 0.0f, dx); }
/* Dropout: the mask exactly (the project's Philox, rng_dropout_keep), and
 * a kept value as either fp32 formula dropout is written with: x times the
 * scale fl(1/(1 - p)) (the engines', PyTorch's) or x divided by the keep
 * probability fl(1 - p), each one correctly rounded operation.  The two
 * differ by an ulp for some x when p is not a power of two's complement
 * (p = 0.3: 26 of ~1000 kept elements), and both are legal (zoo attack 7,
 * dropout_divide_by_keep: 0.427 of the per-element bound against the
 * reference, a PROBLEM here when only the first was accepted).  Any other
 * value, a wrong mask or a scale off by more than that, is still bad. */
LS_HD int ck_dropout_kept_bad(float x, float y, float p, float scale) {
    float keep = 1.0f - p;
    return ck_bits_differ(x * scale, y) & ck_bits_differ(x / keep, y);
}
LS_HD int ck_dropout_fwd_bad(float x, float y, int training, uint64_t seed, uint32_t step, uint32_t layer,
                             uint32_t el, float p, float scale) {
    if (!training) return ck_bits_differ(x, y);
    return rng_dropout_keep(seed, step, layer, el, p) ? ck_dropout_kept_bad(x, y, p, scale) : ck_bits_differ(0.0f, y);
}
LS_HD int ck_dropout_bwd_bad(float dy, float dx, uint64_t seed, uint32_t step, uint32_t layer, uint32_t el, float p,
                             float scale) {
    return rng_dropout_keep(seed, step, layer, el, p) ? ck_dropout_kept_bad(dy, dx, p, scale) : ck_bits_differ(0.0f, dx);
}

/* Operands inf or NaN: 1 where an element-wise result has more than one
 * legal fp32 value (checks/bounds.c's per-element rules, nonfinite_elem,
 * nan_input_elem, nonfinite_pool, nan_input_pool, and their derivation:
 * a select and a masked product differ on inf or NaN, inf x 0 = NaN
 * against 0, and a comparison with NaN is false both ways, so the arg-max
 * or relu's decision depends on how the scan is written).  An element
 * that differs from the re-done one there is not judged (counted apart,
 * the exact block's second double), never a difference.  Flatten's copy
 * stays exact.  v - v is 0 exactly for every finite v, NaN for inf and
 * NaN (no isfinite: the same code on the device). */
LS_HD int ck_nonfinite(float v) { return !(v - v == 0.0f); }
/* relu: forward, x its input; backward, x the forward input, dy the output
 * gradient (a NaN or -inf x: relu(x) may be +0 or NaN, and the decision
 * x > 0 against x <= 0 parts) */
LS_HD int ck_relu_free(float x, float dy, int backward) {
    return backward ? ck_nonfinite(dy) | (x != x) | (x == -INFINITY) : ck_nonfinite(x);
}
/* dropout in training (x: forward input, or backward dy): a dropped inf or
 * NaN is +0 by a select, NaN by a masked product */
LS_HD int ck_dropout_free(float v, int training) { return training && ck_nonfinite(v); }
/* one 2x2 max-pool window at output (i, j) of a plane of width w, its
 * elements st floats apart: forward, an element inf or NaN (relu = 1: the
 * fused pair's relu input, whose relu may be NaN); backward, dy inf or NaN
 * or an element NaN (relu: or -inf) */
LS_HD int ck_pool_free(const float *x, int w, int i, int j, float dy, int backward, int relu, size_t st) {
    size_t o = (size_t)(2 * i * w + 2 * j) * st, r = (size_t)w * st;
    float v[4] = {x[o], x[o + st], x[o + r], x[o + r + st]};
    int f = backward ? ck_nonfinite(dy) : 0;
    for (int k = 0; k < 4; k++)
        f |= backward ? (v[k] != v[k]) | (relu && v[k] == -INFINITY) : ck_nonfinite(v[k]);
    return f;
}

/* One 2x2 window of a (h, w) plane at output (i, j): 1 where the output y
 * is not the window's maximum; for the backward, with dy its gradient and
 * dx (h, w) the engine's input gradient, the first maximum (row-major)
 * gets dy and the three others +0. */
LS_HD int ck_pool_bad(const float *x, int w, int i, int j, float y, const float *dx, float dy, int backward) {
    const float *x0 = x + 2 * i * w + 2 * j;
    /* the first maximum, row-major, without branches (selects): a NaN is
     * never > anything, so it never becomes the maximum, as before */
    float m = x0[0], v1 = x0[1], v2 = x0[w], v3 = x0[w + 1];
    int am = 0, c;
    c = v1 > m, m = c ? v1 : m, am = c ? 1 : am;
    c = v2 > m, m = c ? v2 : m, am = c ? 2 : am;
    c = v3 > m, m = c ? v3 : m, am = c ? 3 : am;
    if (!backward) return ck_bits_differ(m, y);
    const float *d0 = dx + 2 * i * w + 2 * j;
    return ck_bits_differ(am == 0 ? dy : 0.0f, d0[0]) | ck_bits_differ(am == 1 ? dy : 0.0f, d0[1]) |
           ck_bits_differ(am == 2 ? dy : 0.0f, d0[w]) | ck_bits_differ(am == 3 ? dy : 0.0f, d0[w + 1]);
}

/* Order-independent 64-bit digest of a float buffer: the sum (mod 2^64) of
 * a mix of each element's bits with its index, so a GPU can add the terms
 * in any order (integer atomics) and get the same value.  One flipped bit
 * anywhere changes it (the mix is a bijection of the bits for each index). */
LS_HD uint64_t ck_digest_term(float v, uint64_t i) {
    uint32_t b;
    memcpy(&b, &v, 4);
    uint64_t z = ((uint64_t)b | (i << 32)) + 0x9E3779B97F4A7C15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
