/*
 * ck_s_expect.h — for tests: the 4th field S of every conv and dense
 * relation, composed from base/checksum_ops.h's shared functions exactly
 * as the CUDA kernels compose them (kernels.cu: plane maxima by
 * ck_max_abs, one per plane or column, then ck_s_*), from a step's plain
 * tensors.  test_ck_ops.c compares it with the host implementation's S
 * (engines/checksums.c), test_cuda.c with the device's.
 */
#ifndef TESTS_CK_S_EXPECT_H
#define TESTS_CK_S_EXPECT_H

#include <math.h>
#include <stdlib.h>

#include "base/checksum_ops.h"
#include "engines/checksums.h"
#include "model/model.h"

/* One conv or dense layer's S values, relation by relation, into s[phase]
 * (CK_FWD, CK_BWD_DATA, CK_BWD_W; NULL: skipped; bias relations: S = A,
 * nothing to compute).  x: the layer's input (n samples), dy: its output
 * gradient, w, b: its parameters.  Returns 0, or -1 when out of memory. */
static int ck_s_expect_layer(const layer *ly, size_t n, const float *x, const float *dy, const float *w,
                             const float *b, double *s[3]) {
    if (ly->kind == LAYER_DENSE) {
        size_t in = (size_t)ly->in_c, out = (size_t)ly->out_c, wide = in > out ? in : out;
        double *col = malloc(wide * sizeof *col), mx_x, mx_dy = 0;
        if (!col) return -1;
        for (size_t j = 0; j < in; j++) col[j] = ck_max_abs(x + j, n, in); /* k_ck_sums' columns */
        mx_x = ck_max_of(col, in);
        if (dy) {
            for (size_t j = 0; j < out; j++) col[j] = ck_max_abs(dy + j, n, out);
            mx_dy = ck_max_of(col, out);
        }
        free(col);
        for (size_t j = 0; j < out && s[CK_FWD]; j++) s[CK_FWD][j] = ck_s_dense(w + j * in, in, 1, mx_x, fabs((double)b[j]));
        for (size_t k = 0; k < in && s[CK_BWD_DATA]; k++) s[CK_BWD_DATA][k] = ck_s_dense(w + k, out, in, mx_dy, 0);
        for (size_t j = 0; j < out && s[CK_BWD_W]; j++) {
            double bs, ba;
            ck_sum(dy + j, n, out, &bs, &ba);
            s[CK_BWD_W][j] = ba * mx_x;
        }
        return 0;
    }
    ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
    size_t C = (size_t)d.c, OC = (size_t)d.oc, HW = (size_t)d.h * d.w, P = (size_t)d.oh * d.ow;
    double *mx_x = malloc(n * C * sizeof *mx_x), *mx_dy = malloc(n * OC * sizeof *mx_dy);
    if (!mx_x || !mx_dy) {
        free(mx_x), free(mx_dy);
        return -1;
    }
    for (size_t pl = 0; pl < n * C; pl++) mx_x[pl] = ck_max_abs(x + pl * HW, HW, 1); /* k_ck_window, t = 0 */
    for (size_t pl = 0; dy && pl < n * OC; pl++) mx_dy[pl] = ck_max_abs(dy + pl * P, P, 1);
    for (size_t r = 0; r < n * OC && s[CK_FWD]; r++) s[CK_FWD][r] = ck_s_conv_fwd(w, b, mx_x + r / OC * C, &d, (int)(r % OC));
    for (size_t r = 0; r < n * C && s[CK_BWD_DATA]; r++)
        s[CK_BWD_DATA][r] = ck_s_conv_bwd_data(w, mx_dy + r / C * OC, &d, (int)(r % C));
    for (size_t oc = 0; oc < OC && s[CK_BWD_W]; oc++) {
        double sm = 0;
        for (size_t i = 0; i < n; i++) { /* k_ck_conv_bwd_w: samples in order, plain |dy| sums */
            double s1, a1;
            ck_sum(dy + (i * OC + oc) * P, P, 1, &s1, &a1);
            sm += ck_s_conv_bwd_w_term(mx_x + i * C, d.c, a1);
        }
        s[CK_BWD_W][oc] = sm;
    }
    free(mx_x), free(mx_dy);
    return 0;
}

/* The index-weighted backward-weights relations (BWD_W_PW) of one conv or
 * dense layer as the CUDA kernels compute them (kernels.cu: k_ck_conv_z
 * weighted, then k_ck_conv_bwd_w weighted; dense: k_ck_sums by_row 2 to 5,
 * one per ck_iw_dense pattern, then k_ck_dense mode 3): 4 doubles (R, A, Y, S) per output channel or output
 * into o; or, with weighted 0 and a conv layer, its plain relations
 * (BWD_W: k_ck_conv_z and k_ck_conv_bwd_w unweighted, each channel's
 * slice with its sign (-1)^c).  x: the layer's input, dy: its output
 * gradient, dw: its weight gradient.  Returns 0, or -1 when out of memory. */
static inline int ck_bwd_w_expect_layer(const layer *ly, size_t n, const float *x, const float *dy, const float *dw,
                                        int weighted, double *o) {
    if (ly->kind == LAYER_DENSE) {
        if (!weighted) return -1;
        size_t in = (size_t)ly->in_c, out = (size_t)ly->out_c;
        /* k_ck_sums by_row 2 + pattern: n sums per pattern (rw), their |.| sums (rwa) */
        double *rw = malloc(2 * CK_IW_PATTERNS * n * sizeof *rw), *rwa = rw + CK_IW_PATTERNS * n, mx = 0;
        if (!rw) return -1;
        for (size_t pt = 0; pt < CK_IW_PATTERNS; pt++)
            for (size_t i = 0; i < n; i++) ck_isum(x + i * in, in, ck_iw_dense(pt), &rw[pt * n + i], &rwa[pt * n + i]);
        for (size_t j = 0; j < in; j++) {
            double m = ck_max_abs(x + j, n, in);
            mx = m > mx ? m : mx;
        }
        for (size_t j = 0; j < out; j++) {
            double ls, la, rhs = 0, a = 0, bs, ba;
            size_t pt = j % CK_IW_PATTERNS;
            ck_isum(dw + j * in, in, ck_iw_dense(j), &ls, &la);
            ck_dot_acc(&rhs, &a, dy + j, out, rw + pt * n, rwa + pt * n, 1, n);
            ck_sum(dy + j, n, out, &bs, &ba);
            o[4 * j] = ls - rhs, o[4 * j + 1] = a, o[4 * j + 2] = la, o[4 * j + 3] = ba * mx * (double)in;
        }
        free(rw);
        return 0;
    }
    ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
    size_t C = (size_t)d.c, OC = (size_t)d.oc, HW = (size_t)d.h * d.w, P = (size_t)d.oh * d.ow, kk = (size_t)d.k * d.k;
    double *z = malloc(2 * n * P * sizeof *z), *mx = malloc(n * C * sizeof *mx);
    if (!z || !mx) {
        free(z), free(mx);
        return -1;
    }
    for (size_t pl = 0; pl < n * C; pl++) mx[pl] = ck_max_abs(x + pl * HW, HW, 1);
    for (size_t r = 0; r < n * P; r++) /* k_ck_conv_z */
        ck_conv_z_at(x, &d, r / P, (int)(r % P) / d.ow, (int)(r % P) % d.ow, weighted, &z[r], &z[n * P + r]);
    for (size_t oc = 0; oc < OC; oc++) { /* k_ck_conv_bwd_w */
        double ls, la, rhs = 0, a = 0, sm = 0;
        if (weighted) ck_isum(dw + oc * C * kk, C * kk, d.k, &ls, &la);
        else ck_csum(dw + oc * C * kk, C * kk, d.k, &ls, &la);
        for (size_t i = 0; i < n; i++) {
            double s1, a1;
            ck_dot_acc(&rhs, &a, dy + (i * OC + oc) * P, 1, z + i * P, z + n * P + i * P, 1, P);
            ck_sum(dy + (i * OC + oc) * P, P, 1, &s1, &a1);
            sm += ck_s_conv_bwd_w_term(mx + i * C, d.c, a1);
        }
        o[4 * oc] = ls - rhs, o[4 * oc + 1] = a, o[4 * oc + 2] = la, o[4 * oc + 3] = (weighted ? (double)(C * kk) : 1.0) * sm;
    }
    free(z), free(mx);
    return 0;
}

#endif
