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
 * A = sum_p S_p).  checks/bounds.c turns (A, Y, S) into tolerances;
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

/* ---- element-wise re-checks: 1 where the engine's value is not what the
 * operation gives from the engine's own input (the same value; the sign of
 * a zero is not judged) ----------------------------------------------------- */

/* Equal values (+0 and -0 alike: libraries write relu'(x <= 0) as dy * 0,
 * whose sign follows dy), or both NaN. */
LS_HD int ck_bits_differ(float a, float b) { return (a != b) & ((a == a) | (b == b)); } /* no branch */

LS_HD int ck_relu_fwd_bad(float x, float y) { return ck_bits_differ(x > 0 ? x : 0.0f, y); }
/* the engines' rule: dx = y > 0 ? dy : +0, y the forward output */
LS_HD int ck_relu_bwd_bad(float y, float dy, float dx) { return ck_bits_differ(y > 0 ? dy : 0.0f, dx); }
LS_HD int ck_dropout_fwd_bad(float x, float y, int training, uint64_t seed, uint32_t step, uint32_t layer,
                             uint32_t el, float p, float scale) {
    float want = training ? (rng_dropout_keep(seed, step, layer, el, p) ? x * scale : 0.0f) : x;
    return ck_bits_differ(want, y);
}
LS_HD int ck_dropout_bwd_bad(float dy, float dx, uint64_t seed, uint32_t step, uint32_t layer, uint32_t el, float p,
                             float scale) {
    return ck_bits_differ(rng_dropout_keep(seed, step, layer, el, p) ? dy * scale : 0.0f, dx);
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
