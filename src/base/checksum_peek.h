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

#include "base/checksum_ops.h"
#include "base/rng.h"

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

#endif
