/*
 * checksum_peek.h — the every-step vector's output-element blocks, element
 * by element: the bodies that a CUDA kernel (engines/cuda/kernels.cu)
 * calls once per thread and that a host loop calls in order (the unit
 * tests: tests/test_cuda.c), so that both compute, for the same tensors,
 * the same bits as the host implementation (engines/checksums.c's
 * dense_opeek and conv_plane_peek, which the cpu engine runs, vectorized).
 *
 *   FWD_DPEEK / BWD_DATA_DPEEK (a dense layer, per sample): every output
 *     (input-gradient element) re-done in double as one chain over its
 *     terms in index order, terms with a zero operand of the sample
 *     skipped (an exact 0 added to a sum never -0 changes nothing), the
 *     bias added last; the worst kept by ck_zero_keep's rule, the first on
 *     ties (ck_dense_opeek_sample is the host loop's order; a kernel that
 *     splits the elements among threads merges by ck_cand_beats, which
 *     gives the same element: the first of the largest key, a NaN key
 *     first).
 *   FWD_PEEK / BWD_DATA_PEEK (a conv layer, per (sample, channel) plane):
 *     its first, last and largest elements (forward: the largest y;
 *     backward-data: the largest |dx|; the first of equals) and
 *     CK_OPEEK_RANDOM drawn (ck_plane_draw_at) re-done in double as one
 *     dot product each, term (tap, channel) into lane channel mod 16, the
 *     16 lanes added in order at the end (the host implementation's
 *     order, whatever its tensors' layout).
 *
 * Plain layouts only (NCHW, OIHW, dense W as out x in): the device keeps
 * its tensors so.  Not here: loops over samples, memory, bounds, verdicts.
 */
#ifndef LS_CHECKSUM_PEEK_H
#define LS_CHECKSUM_PEEK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "base/adam_bound.h"
#include "base/checksum_ops.h"
#include "base/rng.h"

/* elements re-done per conv plane: first, last, largest and drawn
 * (engines/checksums.h's CK_OPEEK, which asserts it is this) */
enum { CK_PEEK_PLANE = 4 };
/* elements re-done per dW filter or row: first, last, CK_WPEEK_RANDOM
 * drawn, largest (engines/checksums.h's CK_PEEK, CK_PEEK_RANDOM) */
enum { CK_WPEEK_RANDOM = 2, CK_WPEEK = 3 + CK_WPEEK_RANDOM };

/* A kept element with its index, for merging the worst of several
 * threads' elements: p wins over q when its key is larger, or equal with
 * a lower index; a NaN key wins over any other, the lower index among
 * NaNs.  Merged in any tree, the winner is the sequential loop's
 * (ck_worst_keep in index order). */
typedef struct {
    double key, v, r, a;
    size_t idx;
} ck_cand;
LS_HD int ck_cand_beats(const ck_cand *p, const ck_cand *q) {
    int pn = p->key != p->key, qn = q->key != q->key;
    if (pn || qn) return pn && (!qn || p->idx < q->idx);
    return p->key > q->key || (p->key == q->key && p->idx < q->idx);
}
LS_HD ck_cand ck_cand_none(void) {
    ck_cand c = {-1, 0, 0, 0, (size_t)-1};
    return c;
}
/* ck_zero_keep of one element into a candidate (nothing kept: unchanged) */
LS_HD void ck_cand_keep(ck_cand *best, size_t idx, float v, double R, double A, int sub) {
    ck_worst w;
    ck_worst_init(&w);
    ck_zero_keep(&w, v, R, A, sub);
    if (w.key == -1) return;
    ck_cand c = {w.key, w.v, w.r, w.a, idx};
    if (ck_cand_beats(&c, best)) *best = c;
}
/* the relation (R, A, Y, S) of a candidate, as ck_worst_put writes it */
LS_HD void ck_cand_put(const ck_cand *c, double *o) {
    ck_worst w;
    ck_worst_init(&w);
    if (c->key != -1) w.key = c->key, w.v = c->v, w.r = c->r, w.a = c->a;
    ck_worst_put(&w, o);
}

/* ---- dense output elements (FWD_DPEEK, BWD_DATA_DPEEK) ------------------ */

/* Element e of one sample re-done: forward (bwd 0) sum over k < K = in of
 * w[e][k] xs[k]; backward-data (bwd 1) sum over j < K = out of w[j][e]
 * dy[j] (xs = the sample's dy).  w: out x in.  *R, *A: the sum and the sum
 * of |terms| in double, index order, terms whose xs is 0 skipped; returns
 * 1 when a term has two nonzero operands, one subnormal (fp32 may flush
 * it: not judged). */
LS_HD int ck_dense_elem_redo(const float *w, const float *xs, size_t in, size_t K, size_t e, int bwd, double *R,
                             double *A) {
    double r = 0, a = 0;
    int sub = 0;
    for (size_t k = 0; k < K; k++) {
        float xv = xs[k];
        if (xv == 0) continue;
        float wv = bwd ? w[k * in + e] : w[e * in + k];
        double p = (double)wv * (double)xv; /* exact: a product of two floats */
        r += p, a += fabs(p);
        sub |= (wv != 0) & ((fabsf(xv) < 0x1p-126f) | (fabsf(wv) < 0x1p-126f));
    }
    *R = r, *A = a;
    return sub;
}

/* Element e of one sample kept into best: ys the sample's outputs (or
 * input gradient), b the bias (NULL for backward-data: +0 added). */
LS_HD void ck_dense_opeek_elem(ck_cand *best, const float *w, const float *b, const float *xs, const float *ys,
                               size_t in, size_t K, size_t e, int bwd) {
    double R, A;
    int sub = ck_dense_elem_redo(w, xs, in, K, e, bwd, &R, &A);
    double bias = b ? (double)b[e] : 0.0;
    ck_cand_keep(best, e, ys[e], R + bias, A + fabs(bias), sub);
}

/* The host loop: sample i's entry (4 doubles at o) of FWD_DPEEK (bwd 0: x
 * the layer's input (n, in), y its output (n, out)) or BWD_DATA_DPEEK (bwd
 * 1: x = dy (n, out), y = dx (n, in), b NULL). */
LS_HD void ck_dense_opeek_sample(double *o, const float *w, const float *b, const float *x, const float *y, size_t in,
                                 size_t out, size_t i, int bwd) {
    size_t nd = bwd ? in : out, K = bwd ? out : in;
    ck_cand best = ck_cand_none();
    for (size_t e = 0; e < nd; e++) ck_dense_opeek_elem(&best, w, b, x + i * K, y + i * nd, in, K, e, bwd);
    ck_cand_put(&best, o);
}

/* ---- conv output elements (FWD_PEEK, BWD_DATA_PEEK) --------------------- */

/* Drawn position k (< CK_OPEEK_RANDOM) of plane u of cnt elements:
 * Philox (stream RNG_STREAM_CK) at counter {u, step, stage 2^12 + layer
 * 2^4 + 10 + 2k + bwd}, keyed by the stage's input digest, scaled below
 * cnt (engines/checksums.c's ck_plane_draw calls this). */
LS_HD size_t ck_plane_draw_one(uint64_t digest, uint32_t step, uint32_t stage, int layer, size_t u, int bwd, int k,
                               size_t cnt) {
    uint32_t c = stage << 12 | (uint32_t)layer << 4;
    uint32_t z = rng_u32(digest, (uint32_t)u, step, c | (uint32_t)(10 + 2 * k + bwd), RNG_STREAM_CK);
    return cnt ? (size_t)(((uint64_t)z * cnt) >> 32) : 0;
}

/* Element (r, q) of output channel ch (forward, bwd 0: b[ch] + sum over
 * taps and input channels of w[ch][c][t] x[c][...]) or of input-gradient
 * channel ch (backward-data, bwd 1: sum over taps and output channels of
 * w[o][ch][t] dy[o][...]) of one sample re-done in double: src the
 * sample's source planes (x: C planes h x w; dy: OC planes oh x ow,
 * plain), w the filters (OIHW).  Taps (kh, kw) in order whose source
 * position (r + sg (kh - pad), q + sg (kw - pad)), sg = 1 forward, -1
 * backward, lies inside; term (t, c) added into lane c mod 16, the lanes
 * summed in order from +0 at the end (the host implementation's
 * redo_elem).  *R, *A: the sum and the sum of |terms| (bias not
 * included); returns 1 when a term has two nonzero operands, one
 * subnormal. */
LS_HD int ck_conv_elem_redo(const float *src, const float *w, const ck_conv_dims *d, int bwd, size_t ch, int r, int q,
                            double *R, double *A) {
    size_t nc = bwd ? (size_t)d->oc : (size_t)d->c, C = (size_t)d->c, kk = (size_t)d->k * d->k;
    int hs = bwd ? d->oh : d->h, ws = bwd ? d->ow : d->w, sg = bwd ? -1 : 1;
    size_t HWs = (size_t)hs * ws;
    double t16[16], a16[16], rr = 0, aa = 0;
    int s16[16];
    for (int l = 0; l < 16; l++) t16[l] = 0, a16[l] = 0, s16[l] = 0;
    for (int kh = 0; kh < d->k; kh++) {
        int y = r + sg * (kh - d->pad);
        if (y < 0 || y >= hs) continue;
        for (int kw = 0; kw < d->k; kw++) {
            int x = q + sg * (kw - d->pad);
            if (x < 0 || x >= ws) continue;
            size_t pos = (size_t)y * ws + (size_t)x, t = (size_t)(kh * d->k + kw);
            for (size_t c = 0; c < nc; c++) {
                double v = src[c * HWs + pos];
                double wv = bwd ? w[(c * C + ch) * kk + t] : w[(ch * C + c) * kk + t], tt = wv * v;
                t16[c % 16] += tt, a16[c % 16] += fabs(tt);
                s16[c % 16] |= (tt != 0) & ((fabs(wv) < 0x1p-126) | (fabs(v) < 0x1p-126));
            }
        }
    }
    int sub = 0;
    for (int l = 0; l < 16; l++) rr += t16[l], aa += a16[l], sub |= s16[l];
    *R = rr, *A = aa;
    return sub;
}

/* The position of a plane's largest element (absval: of |.|), the first
 * of equals; a plane of NaNs: 0. */
LS_HD size_t ck_plane_argmax(const float *y, size_t P, int absval) {
    size_t am = 0;
    float m = -INFINITY;
    for (size_t p = 0; p < P; p++) {
        float e = absval ? fabsf(y[p]) : y[p];
        if (e > m) m = e, am = p;
    }
    return am;
}

/* One plane's entry (4 doubles at o) of FWD_PEEK (bwd 0: yp output plane
 * ch of the sample, src its input x, b the bias) or BWD_DATA_PEEK (bwd 1:
 * yp input-gradient plane ch, src the sample's dy, b NULL): the plane's
 * first, last, largest (forward: y; backward-data: |dx|) and drawn
 * (CK_OPEEK_RANDOM positions, ck_plane_draw_one) elements re-done, the
 * worst kept in that order (ck_zero_keep; bias + R, |bias| + A). */
LS_HD void ck_conv_plane_peek(double *o, const float *yp, const float *src, const float *w, const float *b,
                              const ck_conv_dims *d, int bwd, size_t ch, const size_t *drawn) {
    int oh = bwd ? d->h : d->oh, ow = bwd ? d->w : d->ow;
    size_t P = (size_t)oh * ow, t[CK_PEEK_PLANE];
    t[0] = 0, t[1] = P - 1, t[2] = ck_plane_argmax(yp, P, bwd);
    for (int k = 0; k < CK_PEEK_PLANE - 3; k++) t[3 + k] = drawn[k];
    double bias = bwd ? 0.0 : (double)b[ch];
    ck_worst w_;
    ck_worst_init(&w_);
    for (int e = 0; e < CK_PEEK_PLANE; e++) {
        double R, A;
        int r = (int)(t[e] / (size_t)ow), q = (int)(t[e] % (size_t)ow);
        int sub = ck_conv_elem_redo(src, w, d, bwd, ch, r, q, &R, &A);
        ck_zero_keep(&w_, yp[t[e]], bias + R, fabs(bias) + A, sub);
    }
    ck_worst_put(&w_, o);
}

/* ---- weight-gradient elements (BWD_W_PEEK) ------------------------------ */

/* Drawn element k (< CK_WPEEK_RANDOM) of filter or row u of cnt
 * elements: Philox at counter {u, step, stage 2^12 + layer 2^4 + 8 + k}
 * (engines/checksums.c's ck_peek_elems calls this) */
LS_HD size_t ck_peek_draw_one(uint64_t digest, uint32_t step, uint32_t stage, int layer, size_t u, int k, size_t cnt) {
    uint32_t c = stage << 12 | (uint32_t)layer << 4;
    uint32_t z = rng_u32(digest, (uint32_t)u, step, c | (uint32_t)(8 + k), RNG_STREAM_CK);
    return cnt ? (size_t)(((uint64_t)z * cnt) >> 32) : 0;
}
/* The elements of unit u (cnt elements at v): t[0] = 0, t[1] = cnt - 1,
 * CK_WPEEK_RANDOM drawn, then the first of the largest |v| (a NaN never) */
LS_HD void ck_peek_elems_at(size_t *t, const float *v, size_t cnt, uint64_t digest, uint32_t step, uint32_t stage,
                            int layer, size_t u) {
    t[0] = 0, t[1] = cnt ? cnt - 1 : 0;
    for (int k = 0; k < CK_WPEEK_RANDOM; k++) t[2 + k] = ck_peek_draw_one(digest, step, stage, layer, u, k, cnt);
    size_t am = 0;
    float m = -1.0f;
    for (size_t e = 0; e < cnt; e++)
        if (fabsf(v[e]) > m) m = fabsf(v[e]), am = e;
    t[2 + CK_WPEEK_RANDOM] = am;
}
/* Element t of dense row j's dW re-done over the batch: *R, *A in sample
 * order, a sample whose dy is 0 left out (its terms are exact zeros, which
 * change neither sum for finite x): the terms and order of
 * engines/checksums.c's dense_redo_row, which sums a whole row at once. */
LS_HD int ck_dense_wredo_elem(const float *dy, const float *x, size_t n, size_t in, size_t out, size_t j, size_t t,
                              double *R, double *A) {
    int sub = 0;
    double r = 0, a = 0;
    for (size_t s = 0; s < n; s++) {
        float d = dy[s * out + j];
        if (d == 0) continue;
        float xv = x[s * in + t];
        double tt = (double)d * (double)xv;
        r += tt, a += fabs(tt);
        sub |= (xv != 0) & ((fabsf(d) < 0x1p-126f) | (fabsf(xv) < 0x1p-126f));
    }
    *R = r, *A = a;
    return sub;
}
/* Element t of row j into best (ck_cand_keep): the body a device thread
 * runs for each element it holds; the first of the largest key wins
 * whatever the split (ck_cand_beats) */
LS_HD void ck_dense_wpeek_elem(ck_cand *best, const float *dw, const float *dy, const float *x, size_t n, size_t in,
                               size_t out, size_t j, size_t t) {
    double R, A;
    int sub = ck_dense_wredo_elem(dy, x, n, in, out, j, t, &R, &A);
    ck_cand_keep(best, t, dw[j * in + t], R, A, sub);
}
/* Row j of a dense layer's dW: EVERY element re-done (zoo attack 15: five
 * re-done elements of a 3136-wide row let one element 114x its own bound
 * pass), the worst kept; o: 4 doubles.  The host's dense_peek gives the
 * same bits. */
LS_HD void ck_dense_wpeek_all_row(double *o, const float *dw, const float *dy, const float *x, size_t n, size_t in,
                                  size_t out, size_t j) {
    ck_cand best = ck_cand_none();
    for (size_t t = 0; t < in; t++) ck_dense_wpeek_elem(&best, dw, dy, x, n, in, out, j, t);
    ck_cand_put(&best, o);
}
/* Sample i's terms of element t = (c, kh, kw) of filter oc of a conv
 * layer's dW (plain x, dy), output positions in order: *R, *A (the
 * host's ck_conv_redo adds these per sample, samples in order) */
LS_HD int ck_conv_redo_sample(const float *x, const float *dy, const ck_conv_dims *d, size_t i, size_t oc, size_t t,
                              double *R, double *A) {
    size_t kk = (size_t)d->k * d->k, HW = (size_t)d->h * d->w, OP = (size_t)d->oh * d->ow, c = t / kk;
    int kh = (int)((t % kk) / (size_t)d->k), kw = (int)(t % (size_t)d->k), sub = 0;
    const float *gp = dy + (i * (size_t)d->oc + oc) * OP, *xp = x + (i * (size_t)d->c + c) * HW;
    double ri = 0, ai = 0;
    for (int ya = 0; ya < d->oh; ya++) {
        int ih = ya + kh - d->pad;
        if (ih < 0 || ih >= d->h) continue;
        for (int yb = 0; yb < d->ow; yb++) {
            int iw = yb + kw - d->pad;
            if (iw < 0 || iw >= d->w) continue;
            float g = gp[(size_t)ya * d->ow + yb], xv = xp[(size_t)ih * d->w + iw];
            double tt = (double)g * (double)xv;
            sub |= (g != 0) & (xv != 0) & ((fabsf(g) < 0x1p-126f) | (fabsf(xv) < 0x1p-126f));
            ri += tt, ai += fabs(tt);
        }
    }
    *R = ri, *A = ai;
    return sub;
}
/* The host loop of a conv filter's entry: its elements t re-done, each
 * over the samples in order (ck_conv_redo_sample, then added), the worst
 * kept; dwf the filter's C k k dW */
LS_HD void ck_conv_wpeek_filter(double *o, const float *dwf, const float *x, const float *dy, const ck_conv_dims *d,
                                size_t n, size_t oc, const size_t *t) {
    ck_worst w;
    ck_worst_init(&w);
    for (int e = 0; e < CK_WPEEK; e++) {
        double R = 0, A = 0;
        int sub = 0;
        for (size_t i = 0; i < n; i++) {
            double ri, ai;
            sub |= ck_conv_redo_sample(x, dy, d, i, oc, t[e], &ri, &ai);
            R += ri, A += ai;
        }
        ck_zero_keep(&w, dwf[t[e]], R, A, sub);
    }
    ck_worst_put(&w, o);
}

/* ---- Adam's furthest element (ADAMW) ------------------------------------ */

/* Element i's ratio to its bound (base/adam_bound.h, the judge's own),
 * when the engine's update (p, m, v) of (p0, m0, v0, g) differs from the
 * re-done one (rp, rm, rv); -1 when none of the three differs.  ADAMW
 * carries, per tensor, the element of the largest ratio, the first of
 * equals (the host's loop; on the device an atomicMax on the ratio's bits,
 * a nonnegative double's order being its bits', then one on ~i among the
 * elements at that ratio).  Picked by ULP distance before zoo attack 10: a
 * legal order's many-ulp difference where the bound is wide hid a violation
 * elsewhere. */
LS_HD double ck_adam_far_ratio(float rp, float rm, float rv, float p0, float m0, float v0, float g, float p, float m,
                               float v, const float *sc) {
    if (!(ck_bits_differ(rp, p) | ck_bits_differ(rm, m) | ck_bits_differ(rv, v))) return -1.0;
    return ops_adam_elem_ratio(p0, m0, v0, g, sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], sc[6], p, m, v);
}
/* The tensor's ADAMW entry (CK_ADAMW_PER = 8 doubles) for element i: its
 * index, p, m, v before the update, g, and p, m, v as written; all 0 when
 * no element differs (has 0) */
LS_HD void ck_adam_far_put(double *o, int has, size_t i, const float *p0, const float *m0, const float *v0,
                           const float *g, const float *p, const float *m, const float *v) {
    if (!has) {
        for (int k = 0; k < 8; k++) o[k] = 0;
        return;
    }
    o[0] = (double)i, o[1] = p0[i], o[2] = m0[i], o[3] = v0[i], o[4] = g[i], o[5] = p[i], o[6] = m[i], o[7] = v[i];
}

#endif
