/*
 * ops_elem.h — the element-wise operations that lockstep writes itself
 * (dropout, softmax cross-entropy, Adam), shared word for word by the C
 * engines and the CUDA kernels.
 *
 * Each function is the per-element (or per-row) body; the C engine loops
 * over it, a CUDA kernel calls it once per thread.  Both sides compile with
 * FMA contraction off (-ffp-contract=off, nvcc --fmad=false), and every
 * operation here is a single IEEE add, multiply, divide or sqrt, all
 * correctly rounded on both sides, so the same inputs give the same bits on
 * the CPU and the GPU.  The one exception is the vendor exp/log in the
 * softmax (glibc's expf/logf vs CUDA's), which may differ by an ulp: that is
 * a difference lockstep must be able to isolate, hence the `portable` path
 * (exp and log from +, *, and exact scaling only, evaluated in double and
 * rounded once to float) selectable per engine.
 *
 * Not here: loops, threads, memory.
 */
#ifndef LS_OPS_ELEM_H
#define LS_OPS_ELEM_H

#include <math.h>
#include <stdint.h>

#include "base/rng.h"

/* ---- dropout --------------------------------------------------------- */

/* y = x * scale where kept, 0 elsewhere; scale = (float)(1 / (1 - p)) made
 * by the host.  `element` is the index in the (n, size) batch tensor. */
LS_HD float ops_dropout_fwd(float x, uint64_t seed, uint32_t step, uint32_t layer,
                            uint32_t element, float p, float scale) {
    return rng_dropout_keep(seed, step, layer, element, p) ? x * scale : 0.0f;
}
/* dx = dy * scale where kept (the same mask, recomputed), 0 elsewhere. */
LS_HD float ops_dropout_bwd(float dy, uint64_t seed, uint32_t step, uint32_t layer,
                            uint32_t element, float p, float scale) {
    return rng_dropout_keep(seed, step, layer, element, p) ? dy * scale : 0.0f;
}

/* ---- portable exp / log ---------------------------------------------- */

/* exp(x) for float x, evaluated in double with Cody-Waite reduction and a
 * degree-13 Taylor polynomial (truncation < 2^-60 on |r| <= ln2/2), then
 * rounded to float.  Only +, *, floor and ldexp (exact) are used, so the
 * result is the same on every IEEE machine.  The double result is within a
 * few double ulps of exp(x), so the float rounding is correct except in the
 * rare case where exp(x) lies within ~1e-16 relative of a float midpoint. */
LS_HD float ops_portable_expf(float xf) {
    double x = (double)xf;
    if (x != x) return xf;
    if (x > 88.8) return INFINITY;
    if (x < -104.0) return 0.0f;
    const double log2e = 1.4426950408889634074;
    const double ln2_hi = 6.93147180369123816490e-01; /* 32 bits, k*ln2_hi exact */
    const double ln2_lo = 1.90821492927058770002e-10;
    double k = floor(x * log2e + 0.5);
    double r = (x - k * ln2_hi) - k * ln2_lo;
    double s = 1.0 / 6227020800.0; /* 1/13! */
    s = s * r + 1.0 / 479001600.0;
    s = s * r + 1.0 / 39916800.0;
    s = s * r + 1.0 / 3628800.0;
    s = s * r + 1.0 / 362880.0;
    s = s * r + 1.0 / 40320.0;
    s = s * r + 1.0 / 5040.0;
    s = s * r + 1.0 / 720.0;
    s = s * r + 1.0 / 120.0;
    s = s * r + 1.0 / 24.0;
    s = s * r + 1.0 / 6.0;
    s = s * r + 0.5;
    s = s * r + 1.0;
    s = s * r + 1.0;
    return (float)ldexp(s, (int)k);
}

/* log(x) for float x > 0 (NaN below 0, -inf at 0), in double through
 * log(x) = e*ln2 + 2*atanh((m-1)/(m+1)), m in [sqrt(1/2), sqrt(2)). */
LS_HD float ops_portable_logf(float xf) {
    double x = (double)xf;
    if (x != x || x < 0.0) return NAN;
    if (x == 0.0) return -INFINITY;
    if (x == (double)INFINITY) return INFINITY;
    int e;
    double m = frexp(x, &e); /* x = m * 2^e, m in [0.5, 1) */
    if (m < 0.70710678118654752440) { m = m * 2.0; e = e - 1; }
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    /* |s| <= 0.1716, s^2 <= 0.0295: 11 terms leave < 2^-60 */
    double t = 1.0 / 23.0;
    t = t * s2 + 1.0 / 21.0;
    t = t * s2 + 1.0 / 19.0;
    t = t * s2 + 1.0 / 17.0;
    t = t * s2 + 1.0 / 15.0;
    t = t * s2 + 1.0 / 13.0;
    t = t * s2 + 1.0 / 11.0;
    t = t * s2 + 1.0 / 9.0;
    t = t * s2 + 1.0 / 7.0;
    t = t * s2 + 1.0 / 5.0;
    t = t * s2 + 1.0 / 3.0;
    t = t * s2 + 1.0;
    double lm = 2.0 * s * t;
    const double ln2 = 0.69314718055994530942;
    return (float)((double)e * ln2 + lm);
}

/* ---- softmax cross-entropy, one row ----------------------------------- */

/* For one sample's logits z[0..c-1] and label y: writes
 *     dz[j] = (softmax(z)_j - [j == y]) * inv_n
 * and returns the sample's loss, logsumexp(z) - z[y], in float.  The
 * order is fixed: max, then exps and their sum from j = 0 upwards, then
 * one log.  `portable` selects ops_portable_expf/logf over the vendor's. */
LS_HD float ops_softmax_xent_row(const float *z, int c, int y, float inv_n, int portable, float *dz) {
    float mx = z[0];
    for (int j = 1; j < c; j++) mx = z[j] > mx ? z[j] : mx;
    float s = 0.0f;
    for (int j = 0; j < c; j++) {
        float e = portable ? ops_portable_expf(z[j] - mx) : expf(z[j] - mx);
        dz[j] = e;
        s = s + e;
    }
    for (int j = 0; j < c; j++) {
        float pj = dz[j] / s;
        dz[j] = (pj - (j == y ? 1.0f : 0.0f)) * inv_n;
    }
    float ls = portable ? ops_portable_logf(s) : logf(s);
    return ls - (z[y] - mx);
}

/* ---- Adam, one element ------------------------------------------------ */

/* PyTorch's Adam (torch.optim.Adam, no weight decay, not amsgrad):
 *     m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*(g*g)
 *     denom = sqrt(v) / sqrt(1 - b2^t) + eps
 *     p = p - step_size * (m / denom),  step_size = lr / (1 - b1^t)
 * Each line is one IEEE operation; the parentheses are the order. */
LS_HD void ops_adam_elem(float *p, float *m, float *v, float g,
                         float b1, float omb1, float b2, float omb2,
                         float step_size, float bc2_sqrt, float eps) {
    float m1 = b1 * *m;
    float m2 = omb1 * g;
    float mn = m1 + m2;
    float v1 = b2 * *v;
    float gg = g * g;
    float v2 = omb2 * gg;
    float vn = v1 + v2;
    float sq = sqrtf(vn);
    float den = sq / bc2_sqrt;
    den = den + eps;
    float q = mn / den;
    float u = step_size * q;
    *p = *p - u;
    *m = mn;
    *v = vn;
}

#endif
