/*
 * checksum_rnd.h — the every-step vector's random-weight relations
 * (FWD_RND, BWD_DATA_RND), piece by piece: the bodies that the CUDA
 * kernels (engines/cuda/kernels.cu) call once per thread and that a host
 * loop calls in order (tests/test_cuda.c), in the orders of the host
 * implementation (engines/checksums.c: rnd_prepare, rnd_windows,
 * rnd_planes, matvec_s2, conv_fwd_rnd_sample, conv_bwd_data_rnd_sample,
 * dense_rnd), so that both give the cpu engine's residuals bit for bit.
 *
 * Weights (ck_rnd_weight_one): +-(1/2 + k/64), k < 32, Philox (stream
 * RNG_STREAM_CK) at counter {i, step, stage 2^12 + layer 2^4 + what},
 * keyed by the stage's input digest; a product of two of them and an fp32
 * value is exact in double.  Per layer and draw dr: a conv's forward rows
 * a (oh, what 4 dr), columns b (ow, 4 dr + 1), backward-data rows a' (h,
 * 4 dr + 2), columns b' (w, 4 dr + 3); a dense layer's s (out, 4 dr) and
 * t (in, 4 dr + 2).
 *
 * Conv, per (sample, channel): the weighted plane sum sum_p a[row] b[col]
 * y[p] (ck_rnd_plane) against (sum a)(sum b) bias + sum over (c, t) of
 * w[.][.][t] g[c][t] (ck_rnd_rhs_acc), g the input's (dy's) window sums
 * weighted the same way (ck_rnd_win: rows, then columns).  Their A, Y, S
 * are the plain relation's (the entry's [1..3] copied from it).
 * Dense, per sample: ck_dense_rnd_* (lanes of CK_RND_LANES as the host's
 * dy_dot_lanes and sum_lanes).
 */
#ifndef LS_CHECKSUM_RND_H
#define LS_CHECKSUM_RND_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"

enum { CK_RND_LANES = 8 }; /* engines/checksums.c's LANES (it asserts they agree) */

LS_HD double ck_rnd_weight_one(uint64_t digest, uint32_t step, uint32_t stage, int layer, int what, size_t i) {
    uint32_t c = stage << 12 | (uint32_t)layer << 4 | (uint32_t)what;
    uint32_t z = rng_u32(digest, (uint32_t)i, step, c, RNG_STREAM_CK);
    double m = 0.5 + (double)(z & 31) / 64.0;
    return (z >> 5) & 1 ? -m : m;
}

/* sum of v[0..cnt-1] in order from +0 */
LS_HD double ck_rnd_total(const double *v, size_t cnt) {
    double s = 0;
    for (size_t q = 0; q < cnt; q++) s += v[q];
    return s;
}

/* ---- conv ----------------------------------------------------------------
 * One source plane x (R x Q rows and columns, plain), tap (kh, kw): the
 * rows stage (rnd_rows) u[kw][r] = sum over q of cw[q + dl] x[r][q],
 * dl = sg (kw - pad), for the q with 0 <= q + dl < ncol, then the columns
 * stage (rnd_cols) g = sum over r of rw[r + dl'] u[kw][r], dl' = sg (kh -
 * pad), 0 <= r + dl' < nrow; each sum from +0 in increasing index.
 * Forward: x the input plane (R = h, Q = w), sg = -1, rw = a (nrow = oh),
 * cw = b (ncol = ow); backward-data: dy's plane (R = oh, Q = ow), sg = 1,
 * rw = a' (nrow = h), cw = b' (ncol = w). */
LS_HD double ck_rnd_row(const float *x, int Q, int k, int pad, int sg, const double *cw, int ncol, int kw, int r) {
    (void)k;
    int dl = sg * (kw - pad), q0 = -dl > 0 ? -dl : 0, q1 = ncol - dl < Q ? ncol - dl : Q;
    double t = 0;
    const float *row = x + (size_t)r * Q;
    for (int q = q0; q < q1; q++) t += cw[q + dl] * (double)row[q];
    return t;
}
LS_HD double ck_rnd_win(const float *x, int R, int Q, int k, int pad, int sg, const double *rw, int nrow,
                        const double *cw, int ncol, int kh, int kw) {
    int dl = sg * (kh - pad), r0 = -dl > 0 ? -dl : 0, r1 = nrow - dl < R ? nrow - dl : R;
    double t = 0;
    for (int r = r0; r < r1; r++) t += rw[r + dl] * ck_rnd_row(x, Q, k, pad, sg, cw, ncol, kw, r);
    return t;
}
/* sum over p of (ra[p / ncol] cb[p % ncol]) y[p] over a plane of nrow x ncol (rnd_plane with ab = a b) */
LS_HD double ck_rnd_plane(const float *y, int nrow, int ncol, const double *ra, const double *cb) {
    double t = 0;
    for (int u = 0; u < nrow; u++)
        for (int v = 0; v < ncol; v++) t += ra[u] * cb[v] * (double)y[(size_t)u * ncol + v];
    return t;
}
/* rhs += sum over source channels s < ns and taps t < kk, in that order,
 * of w(s, t) g[s kk + t] (matvec_s2: each output's terms one at a time in
 * the order of its rows): forward (bwd 0) w[ch][s][t] (OIHW, C = ns),
 * backward-data (bwd 1) w[s][ch][t] (C = the layer's input channels) */
LS_HD double ck_rnd_rhs_acc(double rhs, const float *w, const double *g, size_t ns, size_t C, size_t kk, size_t ch,
                            int bwd) {
    for (size_t s = 0; s < ns; s++)
        for (size_t t = 0; t < kk; t++) {
            double wv = bwd ? w[(s * C + ch) * kk + t] : w[(ch * C + s) * kk + t];
            rhs += wv * g[s * kk + t];
        }
    return rhs;
}

/* ---- dense ---------------------------------------------------------------
 * sums over CK_RND_LANES lanes then a tail, as the host's dy_dot_lanes:
 * q[0] = sum g z, q[1] = sum |g| za, q[2] = sum g, q[3] = sum |g| */
LS_HD void ck_dot_lanes(const float *g, const double *z, const double *za, size_t P, double *q) {
    double t[CK_RND_LANES], ta[CK_RND_LANES], u[CK_RND_LANES], ua[CK_RND_LANES];
    for (int l = 0; l < CK_RND_LANES; l++) t[l] = ta[l] = u[l] = ua[l] = 0;
    size_t p = 0;
    for (; p + CK_RND_LANES <= P; p += CK_RND_LANES)
        for (int l = 0; l < CK_RND_LANES; l++) {
            double v = g[p + l];
            t[l] += v * z[p + l];
            ta[l] += fabs(v) * za[p + l];
            u[l] += v;
            ua[l] += fabs(v);
        }
    double st = 0, sta = 0, su = 0, sua = 0;
    for (int l = 0; l < CK_RND_LANES; l++) st += t[l], sta += ta[l], su += u[l], sua += ua[l];
    for (; p < P; p++) {
        double v = g[p];
        st += v * z[p], sta += fabs(v) * za[p], su += v, sua += fabs(v);
    }
    q[0] = st, q[1] = sta, q[2] = su, q[3] = sua;
}
/* the sum of |x| over n floats in the host's sum_lanes order */
LS_HD double ck_abs_lanes(const float *x, size_t n) {
    double ta[CK_RND_LANES], ra = 0;
    for (int l = 0; l < CK_RND_LANES; l++) ta[l] = 0;
    size_t i = 0;
    for (; i + CK_RND_LANES <= n; i += CK_RND_LANES)
        for (int l = 0; l < CK_RND_LANES; l++) ta[l] += fabs((double)x[i + l]);
    for (int l = 0; l < CK_RND_LANES; l++) ra += ta[l];
    for (; i < n; i++) ra += fabs((double)x[i]);
    return ra;
}
/* the largest |x| (a NaN never: it compares false), as a double */
LS_HD double ck_rnd_max_abs(const float *x, size_t n) {
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        float v = fabsf(x[i]);
        m = v > m ? v : m;
    }
    return m;
}
/* column k of W^T s: v = sum over rows j of s[j] w[j][k], va = sum |s[j]| |w[j][k]| */
LS_HD void ck_dense_rnd_col(const float *w, const double *s, const double *sa, size_t out, size_t in, size_t k,
                            double *v, double *va) {
    double x = 0, y = 0;
    for (size_t j = 0; j < out; j++) {
        double e = w[j * in + k];
        x += s[j] * e, y += sa[j] * fabs(e);
    }
    *v = x, *va = y;
}
/* the forward's bias terms: sc[0] = sum s b, sc[1] = sum |s| |b|, sc[2] =
 * the largest |b|, sc[3] = the largest row sum of |w| (ck_abs_lanes per
 * row: rsa[j]) */
LS_HD void ck_dense_rnd_bias(const float *b, const double *s, const double *sa, const double *rsa, size_t out,
                             double *sc) {
    double bs = 0, ba = 0, wm = 0, bm = 0;
    for (size_t j = 0; j < out; j++) {
        double bj = fabs((double)b[j]);
        wm = rsa[j] > wm ? rsa[j] : wm;
        bs += s[j] * (double)b[j], ba += sa[j] * bj, bm = bj > bm ? bj : bm;
    }
    sc[0] = bs, sc[1] = ba, sc[2] = bm, sc[3] = wm;
}
/* FWD_RND entry of sample p (y its outputs, x its inputs; v, va from
 * ck_dense_rnd_col; sc from ck_dense_rnd_bias) */
LS_HD void ck_dense_rnd_fwd(double *o, const float *y, const float *x, const double *s, const double *sa,
                            const double *v, const double *va, const double *sc, size_t out, size_t in) {
    double qy[4], qx[4];
    ck_dot_lanes(y, s, sa, out, qy);
    ck_dot_lanes(x, v, va, in, qx);
    double lhs = qy[0], lhs_a = qy[1], rhs = sc[0] + qx[0], a = sc[1] + qx[1];
    o[0] = lhs - rhs, o[1] = a, o[2] = lhs_a, o[3] = sc[3] * ck_rnd_max_abs(x, in) + sc[2];
}
/* BWD_DATA_RND entry of sample p (dx its input gradient, dy its output
 * gradient; u, ua: per row j, ck_dot_lanes(w row j, t, |t|)'s q[0], q[1];
 * cm: the largest column sum of |w|, columns summed in row order) */
LS_HD void ck_dense_rnd_bwd(double *o, const float *dx, const float *dy, const double *t, const double *ta,
                            const double *u, const double *ua, double cm, size_t out, size_t in) {
    double qx[4], qy[4];
    ck_dot_lanes(dx, t, ta, in, qx);
    ck_dot_lanes(dy, u, ua, out, qy);
    o[0] = qx[0] - qy[0], o[1] = qy[1], o[2] = qx[1], o[3] = cm * ck_rnd_max_abs(dy, out);
}
/* column k's sum of |w| over the rows in order (col_sums' sa) */
LS_HD double ck_dense_col_abs(const float *w, size_t out, size_t in, size_t k) {
    double s = 0;
    for (size_t j = 0; j < out; j++) s += fabs((double)w[j * in + k]);
    return s;
}

/* ---- random-weighted weight gradients (BWD_W_RND) --------------------------
 * Draw dr's weights: what 14 + dr, a conv layer's C channel weights a
 * then its k k tap weights b (element (c, t) weighted a_c b_t), a dense
 * layer's in feature weights r.  Conv, per sample i: X[q] = sum over c of
 * a_c x[c][q] (and Xa in |.|), U[p] = sum over the taps (kh, then kw)
 * inside the input of b_t X[p + t] (engines/checksums.c's
 * conv_wrnd_sample, X re-done per tap: the same bits); per (sample,
 * filter): sum over p of dy U, of |dy| Ua, and (sum |dy|) max|x_i|; per
 * filter the samples' added in order against sum over (c, t) of a_c b_t
 * dW (conv_wrnd_finish). */
LS_HD void ck_wrnd_x(const float *xs, size_t C, size_t HW, const double *a, size_t q, double *X, double *Xa) {
    double t = 0, ta = 0;
    for (size_t c = 0; c < C; c++) {
        double v = xs[c * HW + q], ac = a[c];
        t += ac * v, ta += fabs(ac) * fabs(v);
    }
    *X = t, *Xa = ta;
}
LS_HD void ck_wrnd_u(const float *xs, const ck_conv_dims *d, const double *a, const double *b, size_t p, double *U,
                     double *Ua) {
    int oh = (int)(p / (size_t)d->ow), ow = (int)(p % (size_t)d->ow);
    size_t HW = (size_t)d->h * d->w;
    double u = 0, ua = 0;
    for (int kh = 0; kh < d->k; kh++) {
        int ih = oh + kh - d->pad;
        if (ih < 0 || ih >= d->h) continue;
        for (int kw = 0; kw < d->k; kw++) {
            int iw = ow + kw - d->pad;
            if (iw < 0 || iw >= d->w) continue;
            double X, Xa, bt = b[kh * d->k + kw];
            ck_wrnd_x(xs, (size_t)d->c, HW, a, (size_t)ih * d->w + iw, &X, &Xa);
            u += bt * X, ua += fabs(bt) * Xa;
        }
    }
    *U = u, *Ua = ua;
}
/* sample i's share of filter o: r[0] = sum dy U, r[1] = sum |dy| Ua, r[2] =
 * (sum |dy|) mx (gp: the sample's dy plane of filter o; OP positions) */
LS_HD void ck_wrnd_res(double *r, const float *gp, size_t OP, const double *U, const double *Ua, double mx) {
    double R = 0, A = 0, G = 0;
    for (size_t p = 0; p < OP; p++) {
        double g = gp[p];
        R += g * U[p], A += fabs(g) * Ua[p], G += fabs(g);
    }
    r[0] = R, r[1] = A, r[2] = G * mx;
}
/* filter o's entry for one draw: f its C k k dW, res the samples' shares
 * (stride rs doubles between samples) */
LS_HD void ck_wrnd_conv_entry(double *o, const float *f, size_t C, size_t kk, const double *a, const double *b,
                              const double *res, size_t rs, size_t n) {
    double ls = 0, la = 0, R = 0, A = 0, Sm = 0;
    for (size_t c = 0; c < C; c++)
        for (size_t t = 0; t < kk; t++) {
            double wgt = a[c] * b[t], v = f[c * kk + t]; /* 12 bits times 24: exact */
            ls += wgt * v, la += fabs(wgt) * fabs(v);
        }
    for (size_t i = 0; i < n; i++) R += res[i * rs], A += res[i * rs + 1], Sm += res[i * rs + 2];
    o[0] = ls - R, o[1] = A, o[2] = la, o[3] = Sm;
}
/* the largest |x| of a sample's C HW inputs (a NaN never) */
LS_HD double ck_wrnd_max(const float *xs, size_t cnt) {
    double m = 0;
    for (size_t q = 0; q < cnt; q++) {
        double v = fabs((double)xs[q]);
        m = v > m ? v : m;
    }
    return m;
}
/* Dense: a sample's input weighted (rx = sum r x, rxa in |.|), then row
 * j's entry for one draw (dense_wrnd): sum r dW against sum over samples
 * of dy rx, A in |.|, S = (sum |dy|) mx, mx the batch's largest |x| */
LS_HD void ck_wrnd_rx(const float *xs, const double *r, size_t in, double *t, double *ta) {
    double x = 0, xa = 0;
    for (size_t k = 0; k < in; k++) {
        double v = xs[k];
        x += r[k] * v, xa += fabs(r[k]) * fabs(v);
    }
    *t = x, *ta = xa;
}
LS_HD void ck_wrnd_dense_entry(double *o, const float *dw, const float *dy, const double *r, const double *rx,
                               const double *rxa, double mx, size_t n, size_t in, size_t out, size_t j) {
    double ls = 0, la = 0, R = 0, A = 0, G = 0;
    for (size_t k = 0; k < in; k++) {
        double v = dw[j * in + k];
        ls += r[k] * v, la += fabs(r[k]) * fabs(v);
    }
    for (size_t i = 0; i < n; i++) {
        double g = dy[i * out + j];
        R += g * rx[i], A += fabs(g) * rxa[i], G += fabs(g);
    }
    o[0] = ls - R, o[1] = A, o[2] = la, o[3] = G * mx;
}

#endif
