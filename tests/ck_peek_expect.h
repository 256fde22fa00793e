/*
 * ck_peek_expect.h — for tests/test_cuda.c: the output-element blocks
 * (FWD_DPEEK, BWD_DATA_DPEEK) of an engine's every-step vector against
 * base/checksum_peek.h's host loops over the same engine's tensors, bit
 * for bit; and the same loops split as the device kernel splits them
 * (k_ck_dense_opeek: thread t of T takes elements t, t + T, ..., a tree
 * of ck_cand_beats merges), so that the split's logic is tested on a
 * machine without a device.
 */
#ifndef LS_TEST_CK_PEEK_EXPECT_H
#define LS_TEST_CK_PEEK_EXPECT_H

#include <stdlib.h>
#include <string.h>

#include "base/adam_orders.h"
#include "base/checksum_blank.h"
#include "base/checksum_peek.h"
#include "base/checksum_rnd.h"
#include "base/ops_elem.h"
#include "engines/checksums.h"
#include "engines/engine.h"
#include "model/model.h"

/* An engine's tensors after a step: params, each layer's output and its
 * gradient (dact NULL for an EVAL stage), the input batch x. */
typedef struct {
    float *p, *g, *act[MODEL_MAX_LAYERS], *dact[MODEL_MAX_LAYERS]; /* g: the gradients (NULL at EVAL) */
    const float *x;
} peek_tensors;

static inline void peek_tensors_get(peek_tensors *t, engine *e, const model *m, size_t n, const float *x, int grads) {
    memset(t, 0, sizeof *t);
    t->x = x;
    t->p = malloc(m->n_params * 4);
    assert_non_null(t->p);
    assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, t->p), 0);
    if (grads) {
        t->g = malloc(m->n_params * 4);
        assert_non_null(t->g);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_GRADS, 0}, t->g), 0);
    }
    for (int l = 0; l < m->n_layers; l++) {
        size_t z = n * layer_out_size(&m->layers[l]);
        t->act[l] = malloc(z * 4);
        assert_non_null(t->act[l]);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_ACT, l}, t->act[l]), 0);
        if (!grads) continue;
        t->dact[l] = malloc(z * 4);
        assert_non_null(t->dact[l]);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_DACT, l}, t->dact[l]), 0);
    }
}

static inline void peek_tensors_free(peek_tensors *t, const model *m) {
    for (int l = 0; l < m->n_layers; l++) free(t->act[l]), free(t->dact[l]);
    free(t->p), free(t->g);
}

/* k_ck_dense_opeek's split, on the host: T threads, strided elements, a
 * tree over the threads' candidates (T a power of two) */
static inline void dpeek_split(double *o, const float *w, const float *b, const float *x, const float *y, size_t in,
                               size_t out, size_t i, int bwd, unsigned T) {
    size_t nd = bwd ? in : out, K = bwd ? out : in;
    ck_cand sc[1024];
    for (unsigned t = 0; t < T; t++) {
        sc[t] = ck_cand_none();
        for (size_t e = t; e < nd; e += T) ck_dense_opeek_elem(&sc[t], w, b, x + i * K, y + i * nd, in, K, e, bwd);
    }
    for (unsigned h = T / 2; h > 0; h >>= 1)
        for (unsigned t = 0; t < h; t++)
            if (ck_cand_beats(&sc[t + h], &sc[t])) sc[t] = sc[t + h];
    ck_cand_put(&sc[0], o);
}

static inline int same_bits4(const double *a, const double *b) { return memcmp(a, b, 4 * sizeof *a) == 0; }

/* Every dense layer's FWD_DPEEK (and, with grads, BWD_DATA_DPEEK) entries
 * of v against the host loop (and the device's split with T threads, T >
 * 0) over t's tensors, bit for bit; returns the entries compared and, in
 * *kept, how many held a re-done element (A > 0). */
static inline size_t expect_dpeek(const model *m, const double *v, size_t n, const peek_tensors *t, unsigned T,
                                  size_t *kept) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_DENSE) continue;
        size_t in = (size_t)ly->in_c, out = (size_t)ly->out_c;
        const float *w = t->p + m->tensors[ly->w_tensor].offset, *b = t->p + m->tensors[ly->b_tensor].offset;
        const float *x = l ? t->act[l - 1] : t->x;
        for (int bwd = 0; bwd < 2; bwd++) {
            int ph = bwd ? CK_BWD_DATA_DPEEK : CK_FWD_DPEEK;
            if (!L.cnt[l][ph] || (bwd && !t->dact[l])) continue;
            const float *src = bwd ? t->dact[l] : x, *dst = bwd ? t->dact[l - 1] : t->act[l];
            for (size_t i = 0; i < n; i++, cnt++) {
                double want[4], split[4];
                ck_dense_opeek_sample(want, w, bwd ? NULL : b, src, dst, in, out, i, bwd);
                const double *got = v + L.off[l][ph] + CK_REL * i;
                if (!same_bits4(got, want))
                    fail_msg("%s %s sample %zu: vector (%.17g %.17g %.17g %.17g), checksum_peek.h's loop (%.17g %.17g "
                             "%.17g %.17g)", ly->name, ck_phase_name(ph), i, got[0], got[1], got[2], got[3], want[0],
                             want[1], want[2], want[3]);
                if (T) {
                    dpeek_split(split, w, bwd ? NULL : b, src, dst, in, out, i, bwd, T);
                    if (!same_bits4(split, want))
                        fail_msg("%s %s sample %zu: the device's split over %u threads keeps another element", ly->name,
                                 ck_phase_name(ph), i, T);
                }
                *kept += want[1] > 0;
            }
        }
    }
    return cnt;
}

/* Every conv layer's FWD_PEEK (and, with grads, BWD_DATA_PEEK) entries of
 * v against the host loop (k_ck_conv_peek's body, a plane at a time) over
 * t's tensors, bit for bit, the draws keyed by v's own header and INPUT
 * digest (as the device reads them); returns the entries compared and, in
 * *kept, how many held a re-done element (A > 0). */
static inline size_t expect_peek(const model *m, const double *v, size_t n, const peek_tensors *t, size_t *kept) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    uint64_t dig = ck_get_u64(v + L.input_off);
    uint32_t stage = (uint32_t)v[0], step = (uint32_t)v[2];
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV) continue;
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        const float *w = t->p + m->tensors[ly->w_tensor].offset, *b = t->p + m->tensors[ly->b_tensor].offset;
        const float *x = l ? t->act[l - 1] : t->x;
        for (int bwd = 0; bwd < 2; bwd++) {
            int ph = bwd ? CK_BWD_DATA_PEEK : CK_FWD_PEEK;
            if (!L.cnt[l][ph] || (bwd && !t->dact[l])) continue;
            size_t NC = bwd ? (size_t)d.c : (size_t)d.oc, nsrc = bwd ? (size_t)d.oc : (size_t)d.c;
            size_t P = bwd ? (size_t)d.h * d.w : (size_t)d.oh * d.ow, HWs = bwd ? (size_t)d.oh * d.ow : (size_t)d.h * d.w;
            const float *yt = bwd ? t->dact[l - 1] : t->act[l], *src = bwd ? t->dact[l] : x;
            for (size_t u = 0; u < n * NC; u++, cnt++) {
                size_t i = u / NC, ch = u % NC, drawn[CK_OPEEK_RANDOM], host[CK_OPEEK_RANDOM];
                for (int k = 0; k < CK_OPEEK_RANDOM; k++) drawn[k] = ck_plane_draw_one(dig, step, stage, l, u, bwd, k, P);
                ck_plane_draw(host, P, ck_rnd_key(dig, step, (int)stage), l, u, bwd);
                if (memcmp(host, drawn, sizeof host)) fail_msg("%s plane %zu: another draw than ck_plane_draw's", ly->name, u);
                double want[4];
                ck_conv_plane_peek(want, yt + u * P, src + i * nsrc * HWs, w, bwd ? NULL : b, &d, bwd, ch, drawn);
                const double *got = v + L.off[l][ph] + CK_REL * u;
                if (!same_bits4(got, want))
                    fail_msg("%s %s plane %zu: vector (%.17g %.17g %.17g %.17g), checksum_peek.h's loop (%.17g %.17g "
                             "%.17g %.17g)", ly->name, ck_phase_name(ph), u, got[0], got[1], got[2], got[3], want[0],
                             want[1], want[2], want[3]);
                *kept += want[1] > 0;
            }
        }
    }
    return cnt;
}

/* A layer's random weights of draw dr as k_ck_rnd_weights lays them out
 * ([a n1][|a| n1][b n2][a' n3][|a'| n3][b' n4]), from ck_rnd_weight_one,
 * checked against engines/checksums.c's ck_rnd_weights bit for bit */
static inline double *rnd_weights_of(uint64_t dig, uint32_t step, uint32_t stage, int l, int dr, size_t n1, size_t n2,
                                     size_t n3, size_t n4) {
    size_t ws = 2 * n1 + n2 + 2 * n3 + n4, cnt[4] = {n1, n2, n3, n4}, at[4] = {0, 2 * n1, 2 * n1 + n2, 2 * n1 + n2 + 2 * n3};
    double *W = calloc(ws + 1, sizeof *W), *h = calloc(n1 + n2 + n3 + n4 + 1, sizeof *h);
    assert_true(W && h);
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < cnt[k]; i++) W[at[k] + i] = ck_rnd_weight_one(dig, step, stage, l, 4 * dr + k, i);
        ck_rnd_weights(h, cnt[k], ck_rnd_key(dig, step, (int)stage), l, 4 * dr + k);
        if (cnt[k] && memcmp(h, W + at[k], cnt[k] * sizeof *h)) fail_msg("layer %d: another weight than ck_rnd_weights'", l);
    }
    for (size_t i = 0; i < n1; i++) W[n1 + i] = fabs(W[i]);
    for (size_t i = 0; i < n3; i++) W[2 * n1 + n2 + n3 + i] = fabs(W[2 * n1 + n2 + i]);
    free(h);
    return W;
}

static inline void expect_entry(const double *got, const double *want, const char *name, int ph, size_t u, int dr) {
    if (!same_bits4(got, want))
        fail_msg("%s %s unit %zu draw %d: vector (%.17g %.17g %.17g %.17g), checksum_rnd.h's loop (%.17g %.17g %.17g "
                 "%.17g)", name, ck_phase_name(ph), u, dr, got[0], got[1], got[2], got[3], want[0], want[1], want[2],
                 want[3]);
}

/* Every conv and dense layer's FWD_RND (and, with grads, BWD_DATA_RND)
 * entries of v against base/checksum_rnd.h's loops over t's tensors, in
 * the kernels' split (windows, then relations; a dense layer's column
 * sums, scalars, then samples), bit for bit; a conv entry's A, Y, S are
 * taken from v's plain relation, as the device copies them.  Returns the
 * entries compared. */
static inline size_t expect_rnd(const model *m, const double *v, size_t n, const peek_tensors *t) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    uint64_t dig = ck_get_u64(v + L.input_off);
    uint32_t stage = (uint32_t)v[0], step = (uint32_t)v[2];
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        const float *w = t->p + m->tensors[ly->w_tensor].offset, *b = t->p + m->tensors[ly->b_tensor].offset;
        const float *x = l ? t->act[l - 1] : t->x;
        for (int dr = 0; dr < CK_RND_DRAWS; dr++) {
            if (ly->kind == LAYER_CONV) {
                ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
                size_t n1 = (size_t)d.oh, n2 = (size_t)d.ow, n3 = (size_t)d.h, kk = (size_t)d.k * d.k;
                double *W = rnd_weights_of(dig, step, stage, l, dr, n1, n2, n3, (size_t)d.w);
                for (int bwd = 0; bwd < 2; bwd++) {
                    int ph = bwd ? CK_BWD_DATA_RND : CK_FWD_RND, pp = bwd ? CK_BWD_DATA : CK_FWD;
                    if (!L.cnt[l][ph] || (bwd && !t->dact[l])) continue;
                    size_t NC = bwd ? (size_t)d.c : (size_t)d.oc, ns = bwd ? (size_t)d.oc : (size_t)d.c;
                    int R = bwd ? d.oh : d.h, Q = bwd ? d.ow : d.w, nrow = bwd ? d.h : d.oh, ncol = bwd ? d.w : d.ow;
                    const double *rw = bwd ? W + 2 * n1 + n2 : W, *cw = bwd ? W + 2 * n1 + n2 + 2 * n3 : W + 2 * n1;
                    const float *src = bwd ? t->dact[l] : x, *yt = bwd ? t->dact[l - 1] : t->act[l];
                    double *g = malloc(ns * kk * sizeof *g);
                    for (size_t i = 0; i < n; i++) {
                        for (size_t sp = 0; sp < ns * kk; sp++)
                            g[sp] = ck_rnd_win(src + (i * ns + sp / kk) * (size_t)R * Q, R, Q, d.k, d.pad, bwd ? 1 : -1,
                                               rw, nrow, cw, ncol, (int)(sp % kk / (size_t)d.k), (int)(sp % (size_t)d.k));
                        for (size_t ch = 0; ch < NC; ch++, cnt++) {
                            size_t u = i * NC + ch;
                            double rhs = bwd ? 0.0 : ck_rnd_total(W, n1) * ck_rnd_total(W + 2 * n1, n2) * (double)b[ch];
                            rhs = ck_rnd_rhs_acc(rhs, w, g, ns, (size_t)d.c, kk, ch, bwd);
                            double ys = ck_rnd_plane(yt + u * (size_t)nrow * ncol, nrow, ncol, rw, cw);
                            const double *pl = v + L.off[l][pp] + CK_REL * u;
                            double want[4] = {ys - rhs, pl[1], pl[2], pl[3]};
                            expect_entry(v + L.off[l][ph] + CK_REL * (u * CK_RND_DRAWS + (size_t)dr), want, ly->name, ph,
                                         u, dr);
                        }
                    }
                    free(g);
                }
                free(W);
                continue;
            }
            size_t in = (size_t)ly->in_c, out = (size_t)ly->out_c;
            double *W = rnd_weights_of(dig, step, stage, l, dr, out, 0, in, 0);
            const double *sw = W, *swa = W + out, *tw = W + 2 * out, *twa = W + 2 * out + in;
            double *V = calloc(2 * in + 3 * out + in + 1, sizeof *V), *VA = V + in, *RSA = VA + in, *U = RSA + out;
            double *UA = U + out, *CA = UA + out, sc[4];
            for (size_t k = 0; k < in; k++) ck_dense_rnd_col(w, sw, swa, out, in, k, &V[k], &VA[k]);
            for (size_t j = 0; j < out; j++) RSA[j] = ck_abs_lanes(w + j * in, in);
            ck_dense_rnd_bias(b, sw, swa, RSA, out, sc);
            for (size_t p = 0; p < n; p++, cnt++) {
                double want[4];
                ck_dense_rnd_fwd(want, t->act[l] + p * out, x + p * in, sw, swa, V, VA, sc, out, in);
                expect_entry(v + L.off[l][CK_FWD_RND] + CK_REL * (p * CK_RND_DRAWS + (size_t)dr), want, ly->name,
                             CK_FWD_RND, p, dr);
            }
            if (L.cnt[l][CK_BWD_DATA_RND] && t->dact[l]) {
                for (size_t j = 0; j < out; j++) {
                    double q[4];
                    ck_dot_lanes(w + j * in, tw, twa, in, q);
                    U[j] = q[0], UA[j] = q[1];
                }
                for (size_t k = 0; k < in; k++) CA[k] = ck_dense_col_abs(w, out, in, k);
                double cm = ck_max_of(CA, in);
                for (size_t p = 0; p < n; p++, cnt++) {
                    double want[4];
                    ck_dense_rnd_bwd(want, t->dact[l - 1] + p * in, t->dact[l] + p * out, tw, twa, U, UA, cm, out, in);
                    expect_entry(v + L.off[l][CK_BWD_DATA_RND] + CK_REL * (p * CK_RND_DRAWS + (size_t)dr), want,
                                 ly->name, CK_BWD_DATA_RND, p, dr);
                }
            }
            free(V), free(W);
        }
    }
    return cnt;
}

/* Every conv and dense layer's BWD_W_PEEK entries of v (a STEP vector)
 * against base/checksum_peek.h's loops (ck_peek_elems_at, then
 * ck_conv_wpeek_filter or ck_dense_wpeek_row) over t's tensors, bit for
 * bit; the elements also checked against engines/checksums.c's
 * ck_peek_elems.  Returns the entries compared, *kept those with A > 0. */
static inline size_t expect_wpeek(const model *m, const double *v, size_t n, const peek_tensors *t, size_t *kept) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    uint64_t dig = ck_get_u64(v + L.input_off);
    uint32_t stage = (uint32_t)v[0], step = (uint32_t)v[2];
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers && t->g; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        const float *dw = t->g + m->tensors[ly->w_tensor].offset, *x = l ? t->act[l - 1] : t->x;
        size_t row = m->tensors[ly->w_tensor].numel / (size_t)ly->out_c;
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        for (size_t u = 0; u < (size_t)ly->out_c; u++, cnt++) {
            size_t te[CK_PEEK], th[CK_PEEK];
            ck_peek_elems_at(te, dw + u * row, row, dig, step, stage, l, u);
            ck_peek_elems(th, dw + u * row, row, ck_rnd_key(dig, step, (int)stage), l, u);
            if (memcmp(te, th, sizeof te)) fail_msg("%s unit %zu: other elements than ck_peek_elems'", ly->name, u);
            double want[4];
            if (ly->kind == LAYER_CONV) ck_conv_wpeek_filter(want, dw + u * row, x, t->dact[l], &d, n, u, te);
            else ck_dense_wpeek_all_row(want, dw, t->dact[l], x, n, row, (size_t)ly->out_c, u); /* every element */
            const double *got = v + L.off[l][CK_BWD_W_PEEK] + CK_REL * u;
            if (!same_bits4(got, want))
                fail_msg("%s %s unit %zu: vector (%.17g %.17g %.17g %.17g), checksum_peek.h's loop (%.17g %.17g %.17g "
                         "%.17g)", ly->name, ck_phase_name(CK_BWD_W_PEEK), u, got[0], got[1], got[2], got[3], want[0],
                         want[1], want[2], want[3]);
            *kept += want[1] > 0;
        }
    }
    return cnt;
}

/* Every conv layer's FWD_BLANK entries of v against base/checksum_blank.h's
 * host loop (ck_blank_sample) over t's tensors, bit for bit; returns the
 * entries compared, *blank the blank positions and *grp the entries whose
 * identical windows' term is nonzero. */
static inline size_t expect_blank(const model *m, const double *v, size_t n, const peek_tensors *t, double *blank,
                                  size_t *grp) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV || !L.cnt[l][CK_FWD_BLANK]) continue;
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        const float *w = t->p + m->tensors[ly->w_tensor].offset, *b = t->p + m->tensors[ly->b_tensor].offset;
        const float *x = l ? t->act[l - 1] : t->x;
        size_t HW = (size_t)d.h * d.w, P = (size_t)d.oh * d.ow;
        uint64_t *hp = malloc((HW + P) * sizeof *hp);
        uint32_t *fm = malloc(P * sizeof *fm);
        assert_true(hp && fm);
        for (size_t i = 0; i < n; i++, cnt++) {
            double want[4];
            ck_blank_sample(want, x, t->act[l], w, b, &d, i, hp, hp + HW, fm);
            const double *got = v + L.off[l][CK_FWD_BLANK] + CK_REL * i;
            if (!same_bits4(got, want))
                fail_msg("%s %s sample %zu: vector (%.17g %.17g %.17g %.17g), checksum_blank.h's loop (%.17g %.17g "
                         "%.17g %.17g)", ly->name, ck_phase_name(CK_FWD_BLANK), i, got[0], got[1], got[2], got[3],
                         want[0], want[1], want[2], want[3]);
            *blank += want[2], *grp += want[3] > 0;
        }
        free(hp), free(fm);
    }
    return cnt;
}

/* S' of one block's entry: its S field bit for bit the expected one */
static inline void expect_s(const double *got, double want, const char *name, int ph, size_t r, double S, double E) {
    if (memcmp(&got[3], &want, sizeof want))
        fail_msg("%s %s relation %zu: vector S %.17g, checksum_blank.h's loops %.17g (S %.17g, E %.17g, A %.17g)", name,
                 ck_phase_name(ph), r, got[3], want, S, E, got[1]);
}

/* Every conv layer's identical windows' term in the S of its forward
 * relations and, with gradients, its backward-data relations (dy's
 * windows, taps reversed): base/checksum_blank.h's loops in the kernels'
 * split (lk_ck_conv_grp: position hashes, window keys and group firsts
 * per output, then ck_grp_list per sample, ck_grp_win_max per exact
 * group and channel, ck_abs_sum per channel and relation, ck_grp_e per
 * relation), the plane's S from the plane maxima (ck_max_abs, then
 * ck_s_conv_fwd or ck_s_conv_bwd_data, as k_ck_window and the relation
 * kernels), each block's A its own from v: the plain, alternating and
 * random-weight relations' S must be ck_grp_s(S, E, the plain A), the
 * position-weighted one's ck_grp_s(P S, P^2 E, its A), bit for bit.
 * Returns the relations compared (a plain one and its companions count
 * once); with_e[0] forward, [1] backward-data: those whose S' is not S
 * (where a vector without the term fails), *groups: the exact groups met (per sample and direction). */
static inline size_t expect_grp(const model *m, const double *v, size_t n, const peek_tensors *t, size_t with_e[2],
                                size_t *groups) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV) continue;
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        const float *w = t->p + m->tensors[ly->w_tensor].offset, *b = t->p + m->tensors[ly->b_tensor].offset;
        size_t kk = (size_t)d.k * d.k, C = (size_t)d.c, OC = (size_t)d.oc;
        for (int bwd = 0; bwd < 2; bwd++) {
            int ph = bwd ? CK_BWD_DATA : CK_FWD;
            if (!L.cnt[l][ph] || (bwd && !t->g)) continue;
            int phs[4] = {bwd ? CK_BWD_DATA_RA : CK_FWD_RA, bwd ? CK_BWD_DATA_CA : CK_FWD_CA,
                          bwd ? CK_BWD_DATA_RND : CK_FWD_RND, bwd ? CK_BWD_DATA_PW : CK_FWD_PW};
            const float *src = bwd ? t->dact[l] : l ? t->act[l - 1] : t->x;
            int hs = bwd ? d.oh : d.h, ws = bwd ? d.ow : d.w, ow = bwd ? d.w : d.ow, off = bwd ? d.pad - (d.k - 1) : -d.pad;
            size_t HWs = (size_t)hs * ws, Po = bwd ? (size_t)d.h * d.w : (size_t)d.oh * d.ow;
            size_t NU = bwd ? OC : C, NV = bwd ? C : OC;
            uint64_t *hp = malloc((HWs + Po) * sizeof *hp);
            uint32_t *fm = malloc(2 * Po * sizeof *fm), first[CK_GRP_EXACT];
            double *coef = malloc(NU * NV * sizeof *coef), *gmx = malloc(CK_GRP_EXACT * NU * sizeof *gmx);
            double *mxp = malloc(NU * sizeof *mxp), f[CK_GRP_EXACT], over;
            assert_true(hp && fm && coef && gmx && mxp);
            for (size_t q = 0; q < OC * C; q++) /* k_ck_grp_wsum */
                coef[bwd ? q : (q % C) * OC + q / C] = ck_abs_sum(w + q * kk, kk, 1);
            for (size_t i = 0; i < n; i++) {
                const float *xs = src + i * NU * HWs;
                for (size_t q = 0; q < HWs; q++) hp[q] = ck_grp_pos(xs, NU, HWs, q);
                for (size_t p = 0; p < Po; p++) hp[HWs + p] = ck_grp_key_at(hp, hs, ws, ow, d.k, off, p);
                for (size_t p = 0; p < Po; p++) fm[p] = ck_grp_first(hp + HWs, Po, p);
                size_t ng = ck_grp_list(fm, Po, fm + Po, first, f, &over);
                *groups += ng;
                for (size_t j = 0; j < ng; j++)
                    for (size_t u = 0; u < NU; u++)
                        gmx[j * NU + u] = ck_grp_win_max(xs + u * HWs, 1, hs, ws, d.k, off, (int)(first[j] / (uint32_t)ow),
                                                         (int)(first[j] % (uint32_t)ow));
                for (size_t u = 0; u < NU; u++) mxp[u] = ck_max_abs(xs + u * HWs, HWs, 1);
                for (size_t vv = 0; vv < NV; vv++, cnt++) {
                    size_t r = i * NV + vv;
                    double S = bwd ? ck_s_conv_bwd_data(w, mxp, &d, (int)vv) : ck_s_conv_fwd(w, b, mxp, &d, (int)vv);
                    double E = ck_grp_e(ng, f, gmx, over, coef + vv, NV, NU, bwd ? 0.0 : fabs((double)b[vv]), S);
                    const double *o = v + L.off[l][ph] + CK_REL * r;
                    double sp = ck_grp_s(S, E, o[1]);
                    expect_s(o, sp, ly->name, ph, r, S, E);
                    for (int k = 0; k < 3; k++) {
                        if (!L.cnt[l][phs[k]]) continue;
                        size_t per = k == 2 ? CK_RND_DRAWS : 1;
                        for (size_t dr = 0; dr < per; dr++)
                            expect_s(v + L.off[l][phs[k]] + CK_REL * (r * per + dr), sp, ly->name, phs[k], r, S, E);
                    }
                    if (L.cnt[l][phs[3]]) {
                        const double *g = v + L.off[l][phs[3]] + CK_REL * r;
                        expect_s(g, ck_grp_s((double)Po * S, (double)Po * (double)Po * E, g[1]), ly->name, phs[3], r, S, E);
                    }
                    with_e[bwd] += sp != S;
                }
            }
            free(hp), free(fm), free(coef), free(gmx), free(mxp);
        }
    }
    return cnt;
}

/* Every conv and dense layer's BWD_W_RND entries of v (a STEP vector)
 * against base/checksum_rnd.h's loops in the kernels' split (per sample
 * U, then per (sample, filter) shares, then per filter; a dense layer's
 * per-sample weighted inputs, then rows), bit for bit; the weights also
 * against ck_rnd_weights'.  Returns the entries compared. */
static inline size_t expect_wrnd(const model *m, const double *v, size_t n, const peek_tensors *t) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    uint64_t dig = ck_get_u64(v + L.input_off);
    uint32_t stage = (uint32_t)v[0], step = (uint32_t)v[2];
    size_t cnt = 0;
    for (int l = 0; l < m->n_layers && t->g; l++) {
        const layer *ly = &m->layers[l];
        if ((ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) || !L.cnt[l][CK_BWD_W_RND]) continue;
        const float *dw = t->g + m->tensors[ly->w_tensor].offset, *x = l ? t->act[l - 1] : t->x, *dy = t->dact[l];
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        size_t C = (size_t)d.c, OC = (size_t)d.oc, kk = (size_t)d.k * d.k, HW = (size_t)d.h * d.w;
        size_t OP = (size_t)d.oh * d.ow, nw = ly->kind == LAYER_CONV ? C + kk : C;
        for (int dr = 0; dr < CK_RND_DRAWS; dr++) {
            double *wt = malloc(nw * sizeof *wt), *h = malloc(nw * sizeof *h);
            for (size_t q = 0; q < nw; q++) wt[q] = ck_rnd_weight_one(dig, step, stage, l, 14 + dr, q);
            ck_rnd_weights(h, nw, ck_rnd_key(dig, step, (int)stage), l, 14 + dr);
            if (memcmp(h, wt, nw * sizeof *h)) fail_msg("%s: another weight than ck_rnd_weights'", ly->name);
            if (ly->kind == LAYER_CONV) {
                double *U = malloc(2 * OP * sizeof *U), *Ua = U + OP, *res = malloc(3 * n * OC * sizeof *res);
                for (size_t i = 0; i < n; i++) {
                    const float *xs = x + i * C * HW;
                    double mx = ck_wrnd_max(xs, C * HW);
                    for (size_t p = 0; p < OP; p++) ck_wrnd_u(xs, &d, wt, wt + C, p, &U[p], &Ua[p]);
                    for (size_t o = 0; o < OC; o++) ck_wrnd_res(res + 3 * (o * n + i), dy + (i * OC + o) * OP, OP, U, Ua, mx);
                }
                for (size_t o = 0; o < OC; o++, cnt++) {
                    double want[4];
                    ck_wrnd_conv_entry(want, dw + o * C * kk, C, kk, wt, wt + C, res + 3 * o * n, 3, n);
                    expect_entry(v + L.off[l][CK_BWD_W_RND] + CK_REL * (o * CK_RND_DRAWS + (size_t)dr), want, ly->name,
                                 CK_BWD_W_RND, o, dr);
                }
                free(U), free(res);
            } else {
                double *rx = malloc(2 * n * sizeof *rx), *rxa = rx + n, mx = ck_wrnd_max(x, n * C);
                for (size_t i = 0; i < n; i++) ck_wrnd_rx(x + i * C, wt, C, &rx[i], &rxa[i]);
                for (size_t j = 0; j < OC; j++, cnt++) {
                    double want[4];
                    ck_wrnd_dense_entry(want, dw, dy, wt, rx, rxa, mx, n, C, OC, j);
                    expect_entry(v + L.off[l][CK_BWD_W_RND] + CK_REL * (j * CK_RND_DRAWS + (size_t)dr), want, ly->name,
                                 CK_BWD_W_RND, j, dr);
                }
                free(rx);
            }
            free(wt), free(h);
        }
    }
    return cnt;
}

/* An UPDATE vector's ADAM counts and ADAMW entries against the host loop
 * (ops_adam_elem re-done from the step's p0, m0, v0 and g, then
 * base/checksum_peek.h's ck_adam_far_ratio and ck_adam_far_put, the first
 * double packed with base/adam_orders.h's mask) over the
 * state after the update (p, mo, v), bit for bit; a the step's scalars.
 * Returns the elements that differ. */
static inline size_t expect_adamw(const model *m, const double *vec, size_t n, const adam_scalars *a, const float *p0,
                                  const float *m0, const float *v0, const float *g, const float *p, const float *mo,
                                  const float *v) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    size_t bad_all = 0;
    const float sc[CK_ADAMW_HDR] = {a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2, a->step_size,
                                    a->bc2_sqrt, a->eps};
    for (int k = 0; k < CK_ADAMW_HDR; k++)
        if (vec[L.adamw_off + (size_t)k] != sc[k]) fail_msg("ADAMW header %d: %g, the step's %g", k, vec[L.adamw_off + (size_t)k], (double)sc[k]);
    for (int t = 0; t < m->n_tensors; t++) {
        const model_tensor *T = &m->tensors[t];
        size_t o = T->offset, bad = 0;
        double far = -1;
        size_t at = 0;
        unsigned orders = ADAM_ORDER_ALL; /* the named legal orders (base/adam_orders.h) of every differing element */
        float osc[ADAM_ORDER_NSC];
        memcpy(osc, sc, sizeof sc);
        adam_order_scalars(a->cfg.lr, a->cfg.beta1, a->cfg.beta2, a->t, osc + CK_ADAMW_HDR);
        for (size_t i = 0; i < T->numel; i++) {
            float rp = p0[o + i], rm = m0[o + i], rv = v0[o + i];
            ops_adam_elem(&rp, &rm, &rv, g[o + i], a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2,
                          a->step_size, a->bc2_sqrt, a->eps);
            double r = ck_adam_far_ratio(rp, rm, rv, p0[o + i], m0[o + i], v0[o + i], g[o + i], p[o + i], mo[o + i],
                                         v[o + i], sc);
            bad += r >= 0;
            if (r >= 0) orders &= adam_orders_match(p0[o + i], m0[o + i], v0[o + i], g[o + i], osc, p[o + i], mo[o + i], v[o + i]);
            if (r > far) far = r, at = i;
        }
        double want[CK_ADAMW_PER];
        ck_adam_far_put(want, far >= 0, at, p0 + o, m0 + o, v0 + o, g + o, p + o, mo + o, v + o);
        for (size_t i = 0; far >= 0 && i < T->numel; i++) /* then every element of a tensor that differs */
            orders &= adam_orders_match(p0[o + i], m0[o + i], v0[o + i], g[o + i], osc, p[o + i], mo[o + i], v[o + i]);
        if (far >= 0) want[0] = adam_orders_pack(want[0], orders);
        const double *got = vec + L.adamw_off + CK_ADAMW_HDR + CK_ADAMW_PER * (size_t)t;
        if (memcmp(got, want, sizeof want))
            fail_msg("%s ADAMW: vector (%g %g %g %g %g %g %g %g), the host loop (%g %g %g %g %g %g %g %g)", T->name,
                     got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7], want[0], want[1], want[2], want[3],
                     want[4], want[5], want[6], want[7]);
        if (vec[L.adam_off + 2 * (size_t)t] != (double)bad)
            fail_msg("%s ADAM: %g elements differ, the host loop %zu", T->name, vec[L.adam_off + 2 * (size_t)t], bad);
        bad_all += bad;
    }
    return bad_all;
}

#endif
