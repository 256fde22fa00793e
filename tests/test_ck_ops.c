/*
 * test_ck_ops.c — the relations' 4th field S (an upper bound on the
 * largest output's sum of |terms|, for the sharper tier) as the CUDA
 * kernels compose it from base/checksum_ops.h (ck_max_abs, ck_s_*;
 * tests/ck_s_expect.h mirrors kernels.cu) equals the host
 * implementation's (engines/checksums.c, engine_checksums_host) on a real
 * cpu engine's step: SmallCNN, batch 4, every conv and dense relation of
 * forward, backward-data and backward-weights.  Bitwise where both sum in
 * the same order (everything but conv backward-weights); conv
 * backward-weights within a stated bound (the host sums each sample's |dy|
 * in 8 lanes, the kernel in order).  Also: S bounds the true max_p S_p of
 * conv and dense forward relations (what the sharper tier needs), is
 * below A for most conv forward relations (so the tier is sharper), and
 * the plane maxima skip NaN as the host's do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checksum_ops.h"
#include "base/rng.h"
#include "engines/checksums.h"
#include "engines/registry.h"
#include "ck_s_expect.h"

#define N 4

/* ck_max_abs and ck_max_of: the host's max_abs rule (a NaN never wins,
 * -0 is 0, an infinity wins) */
static void test_maxima(void **st) {
    (void)st;
    float x[6] = {-0.0f, 1.5f, NAN, -2.25f, 0.5f, -1.0f};
    assert_true(ck_max_abs(x, 6, 1) == 2.25);
    assert_true(ck_max_abs(x, 3, 2) == 0.5); /* -0, NaN, 0.5 */
    assert_true(ck_max_abs(x, 0, 1) == 0.0);
    float nan1[1] = {NAN};
    assert_true(ck_max_abs(nan1, 1, 1) == 0.0);
    x[4] = -INFINITY;
    assert_true(isinf(ck_max_abs(x, 6, 1)));
    double d[3] = {0.25, 3.0, 1.0};
    assert_true(ck_max_of(d, 3) == 3.0 && ck_max_of(d, 0) == 0.0);
    float w[4] = {1, -2, 3, -4};
    assert_true(ck_abs_sum(w, 2, 2) == 4.0 && ck_s_dense(w, 4, 1, 0.5, 1.0) == 6.0);
}

typedef struct {
    model m;
    engine *e;
    float *x, *act[MODEL_MAX_LAYERS], *dact[MODEL_MAX_LAYERS], *p, *g;
    double *vec;
    ck_layout L;
} fx;

/* one training step (forward, loss, backward) of a cpu engine, its host
 * vector, and its tensors in plain layouts */
static void one_step_bg(fx *f, int background);
static void one_step(fx *f) { one_step_bg(f, 0); }

/* background: every image -1 (torchvision's Normalize((1,), (1,)) of a
 * black pixel) but for a 5 x 5 patch of random values at a place of its
 * own: conv1's windows form groups of identical ones (the background, each
 * edge and corner), and so do conv2's (a ReLU'd, pooled background) */
static void one_step_bg(fx *f, int background) {
    memset(f, 0, sizeof *f);
    assert_int_equal(model_build(&f->m, "smallcnn"), 0);
    engine_opts o = {.seed = 42, .max_batch = N};
    assert_int_equal(engine_create(&f->e, "cpu", &f->m, &o), 0);
    size_t in = (size_t)f->m.in_c * f->m.in_h * f->m.in_w;
    f->x = malloc(N * in * sizeof *f->x);
    f->p = malloc(f->m.n_params * sizeof *f->p), f->g = malloc(f->m.n_params * sizeof *f->g);
    assert_non_null(f->x), assert_non_null(f->p), assert_non_null(f->g);
    int32_t y[N];
    for (size_t i = 0; i < N * in; i++) f->x[i] = rng_uniform(11, (uint32_t)i, 1, 0, 3);
    if (background)
        for (size_t i = 0; i < N * in; i++) {
            size_t smp = i / in, r = i % in / (size_t)f->m.in_w, c = i % (size_t)f->m.in_w, r0 = 6 + 3 * smp, c0 = 9 + 2 * smp;
            if (r < r0 || r >= r0 + 5 || c < c0 || c >= c0 + 5) f->x[i] = -1.0f;
        }
    for (int i = 0; i < N; i++) y[i] = (int32_t)(rng_u32(11, (uint32_t)i, 1, 1, 3) % 10);
    model_init_params(&f->m, f->p, 42);
    assert_int_equal(engine_set_params(f->e, f->p), 0);
    assert_int_equal(engine_set_batch(f->e, f->x, y, N, 1), 0);
    assert_int_equal(engine_forward(f->e, 1), 0);
    assert_int_equal(engine_loss(f->e, NULL), 0);
    assert_int_equal(engine_backward(f->e), 0);
    ck_layout_make(&f->L, &f->m, N);
    f->vec = calloc(f->L.total, sizeof *f->vec);
    assert_non_null(f->vec);
    assert_int_equal(engine_checksums_host(f->e, CK_STAGE_STEP, f->vec), 0);
    for (int l = 0; l < f->m.n_layers; l++) {
        size_t z = N * layer_out_size(&f->m.layers[l]);
        f->act[l] = malloc(z * sizeof(float)), f->dact[l] = malloc(z * sizeof(float));
        assert_non_null(f->act[l]), assert_non_null(f->dact[l]);
        assert_int_equal(engine_get_tensor(f->e, (tensor_id){TENSOR_ACT, l}, f->act[l]), 0);
        assert_int_equal(engine_get_tensor(f->e, (tensor_id){TENSOR_DACT, l}, f->dact[l]), 0);
    }
    assert_int_equal(engine_get_tensor(f->e, (tensor_id){TENSOR_PARAMS, 0}, f->p), 0);
    assert_int_equal(engine_get_tensor(f->e, (tensor_id){TENSOR_GRADS, 0}, f->g), 0);
}

static void free_fx(fx *f) {
    engine_free(f->e);
    for (int l = 0; l < f->m.n_layers; l++) free(f->act[l]), free(f->dact[l]);
    free(f->x), free(f->p), free(f->g), free(f->vec);
}

/* The true max_p S_p of conv forward relation (sample i, oc): |b| + the
 * largest sum over taps of |w| |x| at one output position, in double. */
static double conv_fwd_true_max(const layer *ly, const float *x, const float *w, const float *b, size_t i, int oc) {
    double best = 0;
    size_t HW = (size_t)ly->in_h * ly->in_w, kk = (size_t)ly->k * ly->k;
    for (int r = 0; r < ly->out_h; r++)
        for (int q = 0; q < ly->out_w; q++) {
            double s = fabs((double)b[oc]);
            for (int c = 0; c < ly->in_c; c++)
                for (int kh = 0; kh < ly->k; kh++)
                    for (int kw = 0; kw < ly->k; kw++) {
                        int rr = r + kh - ly->pad, qq = q + kw - ly->pad;
                        if (rr < 0 || rr >= ly->in_h || qq < 0 || qq >= ly->in_w) continue;
                        s += fabs((double)w[((size_t)oc * ly->in_c + c) * kk + (size_t)kh * ly->k + kw]) *
                             fabs((double)x[(i * ly->in_c + c) * HW + (size_t)rr * ly->in_w + qq]);
                    }
            best = s > best ? s : best;
        }
    return best;
}

/* Compare one layer's expected S with the host vector's; returns the
 * number of relations compared.  Conv backward-weights: the host's and the
 * kernel's sum over one sample's P = OH OW values |dy| (nonnegative, each
 * exact in double) differ only in order, each within gamma_{P-1} (u =
 * 2^-53) of the exact sum; the products by max |x| and the sum over the n
 * samples are the same operations in the same order on both, so the two
 * S differ by at most (2 (P - 1) + 2 n + 2) u (1 + O(u)) relatively:
 * (2 (P + n) + 4) 2^-53 S. */
static size_t compare_layer(fx *f, int l, size_t *bitwise, double *worst_rel) {
    const layer *ly = &f->m.layers[l];
    const float *x = l ? f->act[l - 1] : f->x, *dy = f->dact[l];
    const float *w = f->p + f->m.tensors[ly->w_tensor].offset, *b = f->p + f->m.tensors[ly->b_tensor].offset;
    double *s[3];
    for (int ph = 0; ph < 3; ph++) {
        s[ph] = f->L.cnt[l][ph] ? malloc(f->L.cnt[l][ph] * sizeof(double)) : NULL;
        assert_true(!f->L.cnt[l][ph] || s[ph]);
    }
    assert_int_equal(ck_s_expect_layer(ly, N, x, dy, w, b, s), 0);
    size_t cmp = 0;
    for (int ph = 0; ph < 3; ph++) {
        const double *o = f->vec + f->L.off[l][ph];
        double tol = ly->kind == LAYER_CONV && ph == CK_BWD_W
                         ? (2.0 * ((double)ly->out_h * ly->out_w + N) + 4) * 0x1p-53 : 0;
        for (size_t r = 0; r < f->L.cnt[l][ph]; r++, cmp++) {
            double host = o[CK_REL * r + 3], dev = s[ph][r], rel = host > 0 ? fabs(dev - host) / host : fabs(dev);
            if (!(rel <= tol))
                fail_msg("%s %s relation %zu: S %.17g from checksum_ops.h, host %.17g (rel %.3g > %.3g)", ly->name,
                         ck_phase_name(ph), r, dev, host, rel, tol);
            *bitwise += dev == host;
            *worst_rel = rel > *worst_rel ? rel : *worst_rel;
            assert_true(host >= 0 && isfinite(host)); /* 0 where a whole dy plane is 0 */
        }
    }
    /* bias relations: one sum, S = A on both sides */
    const double *ob = f->vec + f->L.off[l][CK_BWD_B];
    for (size_t r = 0; r < f->L.cnt[l][CK_BWD_B]; r++) assert_true(ob[CK_REL * r + 3] == ob[CK_REL * r + 1]);
    /* forward: S >= the true largest sum of |terms| (what the sharp tier
     * needs), and sharper than A for most conv relations */
    size_t below = 0;
    for (size_t r = 0; r < f->L.cnt[l][CK_FWD]; r++) {
        double truth = 0, A = f->vec[f->L.off[l][CK_FWD] + CK_REL * r + 1];
        if (ly->kind == LAYER_CONV) {
            truth = conv_fwd_true_max(ly, x, w, b, r / ly->out_c, (int)(r % ly->out_c));
        } else {
            for (size_t i = 0; i < N; i++) {
                double t = fabs((double)b[r]);
                for (int k = 0; k < ly->in_c; k++)
                    t += fabs((double)w[r * ly->in_c + k]) * fabs((double)x[i * ly->in_c + k]);
                truth = t > truth ? t : truth;
            }
        }
        assert_true(s[CK_FWD][r] >= truth * (1 - 0x1p-40)); /* the truth's own double rounding */
        below += s[CK_FWD][r] < A;
    }
    if (ly->kind == LAYER_CONV) assert_true(below * 10 >= f->L.cnt[l][CK_FWD] * 9);
    for (int ph = 0; ph < 3; ph++) free(s[ph]);
    return cmp;
}

/* One layer's backward-weights relations of phase ph (CK_BWD_W: weighted
 * 0, the plain signed ones; CK_BWD_W_PW: weighted 1) as the kernels
 * compose them (ck_s_expect.h) against the host's vector: R within 1e-12
 * of A + Y, A within 1e-12 relatively, the host's Y at least the
 * kernel's, S within the conv bound (dense: 1e-12).  Returns the
 * relations compared; *live += those with a gradient not all 0. */
static size_t bwd_w_as_kernels(const fx *f, int l, int ph, size_t *live) {
    const layer *ly = &f->m.layers[l];
    size_t cnt = f->L.cnt[l][ph];
    assert_int_equal(cnt, (size_t)ly->out_c);
    double *o = malloc(4 * cnt * sizeof *o);
    assert_non_null(o);
    const float *x = l ? f->act[l - 1] : f->x, *dw = f->g + f->m.tensors[ly->w_tensor].offset;
    assert_int_equal(ck_bwd_w_expect_layer(ly, N, x, f->dact[l], dw, ph == CK_BWD_W_PW, o), 0);
    const double *h = f->vec + f->L.off[l][ph];
    double stol = ly->kind == LAYER_CONV ? (2.0 * ((double)ly->out_h * ly->out_w + N) + 4) * 0x1p-53 : 1e-12,
           worst = 0;
    for (size_t r = 0; r < cnt; r++) {
        const double *e = o + 4 * r, *g = h + CK_REL * r;
        double dr = e[1] + e[2] > 0 ? fabs(g[0] - e[0]) / (e[1] + e[2]) : fabs(g[0] - e[0]); /* 0: a dead channel */
        *live += e[1] > 0;
        worst = dr > worst ? dr : worst;
        if (!(dr <= 1e-12) || !(fabs(g[1] - e[1]) <= 1e-12 * e[1]) || !(g[2] >= e[2] * (1 - 1e-12)) ||
            !(fabs(g[3] - e[3]) <= stol * e[3]))
            fail_msg("%s relation %zu: host (%.17g, %.17g, %.17g, %.17g), kernels (%.17g, %.17g, %.17g, %.17g)",
                     ly->name, r, g[0], g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
    }
    print_message("%s: %zu %s relations, residuals within %.3g of A + Y of the kernels'\n", ly->name, cnt,
                  ph == CK_BWD_W_PW ? "index-weighted" : "signed backward-weights", worst);
    free(o);
    return cnt;
}

/* The index-weighted backward-weights relations (BWD_W_PW) as the CUDA
 * kernels compute them (ck_s_expect.h) against the host's: the residual R
 * within 1e-12 of the relation's A + Y (the two sum the same terms in
 * other orders: lanes against one sum, and the host's weighted Z from a
 * channel-weighted plane against the kernel's direct sum; the judge's
 * tolerance is ~1e-4 of A), A within 1e-12 relatively, S as the plain
 * relation's (conv: the same bound as there; dense: 1e-12), and the host's
 * Y at least the kernel's (it adds the prefix sums' rounding term). */
static void test_index_weighted_as_kernels(void **st) {
    (void)st;
    fx f;
    one_step(&f);
    size_t total = 0, live = 0;
    for (int l = 0; l < f.m.n_layers; l++)
        if (f.m.layers[l].kind == LAYER_CONV || f.m.layers[l].kind == LAYER_DENSE)
            total += bwd_w_as_kernels(&f, l, CK_BWD_W_PW, &live);
    assert_int_equal(total, 16 + 32 + 64 + 10);
    print_message("%zu of %zu relations with a gradient that is not all 0\n", live, total);
    assert_true(live * 2 > total);
    free_fx(&f);
}

/* The plain conv backward-weights relations (BWD_W), each element of dW
 * and its share of Z with the sign ck_cw, as the CUDA kernels
 * compose them (ck_s_expect.h: k_ck_conv_z and k_ck_conv_bwd_w
 * unweighted, ck_conv_z_at and ck_csum) against the host's (patch_sums:
 * the even and the odd channels summed apart, then the taps): R within
 * 1e-12 of A + Y, A within 1e-12 relatively, the host's Y at least the
 * kernel's, S within the conv bound of test_index_weighted_as_kernels
 * (bwd_w_as_kernels).  conv1 has one input channel (only the taps' signs),
 * conv2 32. */
static void test_signed_as_kernels(void **st) {
    (void)st;
    fx f;
    one_step(&f);
    size_t total = 0, live = 0;
    for (int l = 0; l < f.m.n_layers; l++)
        if (f.m.layers[l].kind == LAYER_CONV) total += bwd_w_as_kernels(&f, l, CK_BWD_W, &live);
    assert_int_equal(total, 16 + 32);
    /* and the signs matter: conv2's signed sums are not its unsigned ones */
    int l2 = -1;
    for (int l = 0; l < f.m.n_layers; l++)
        if (f.m.layers[l].kind == LAYER_CONV) l2 = l;
    const layer *ly = &f.m.layers[l2];
    size_t kk = (size_t)ly->k * ly->k, row = (size_t)ly->in_c * kk;
    const float *dw = f.g + f.m.tensors[ly->w_tensor].offset;
    double s0, a0, s1 = 0, a1 = 0, moved = 0;
    for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
        ck_csum(dw + oc * row, row, ly->k, &s0, &a0);
        double u = 0;
        for (size_t t = 0; t < row; t++) u += (double)dw[oc * row + t];
        ck_sum(dw + oc * row, row, 1, &s1, &a1);
        assert_true(fabs(s1 - u) <= 1e-12 * a1 && a0 == a1);
        moved = fabs(s0 - s1) > moved ? fabs(s0 - s1) : moved;
    }
    assert_true(moved > 0);
    free_fx(&f);
}

/* The position-weighted conv relations (FWD_PW, BWD_DATA_PW) as the CUDA
 * kernels compose them (kernels.cu: k_ck_window dy_mode 2 / 3 with
 * ck_window_sum_w, then k_ck_conv_fwd / k_ck_conv_bwd_data weighted with
 * ck_rows_w and ck_pw_bias), and the row- and column-alternating ones
 * (FWD_RA, BWD_DATA_RA: dy_mode 4 / 5 with ck_window_sum_alt, weighted 2
 * with ck_rows_alt, the bias counted ow (oh mod 2) times; FWD_CA,
 * BWD_DATA_CA: dy_mode 6 / 7, weighted 3, oh (ow mod 2); A and S the
 * plain relation's) against the host's prefix-sum decomposition:
 * the residual R within 1e-12 of A + Y (the same signed terms, summed in
 * other orders), A within 1e-12 relatively.  So the two agree on the
 * checkerboard signs and the weights, term for term, which a clean run of
 * either alone could not show (a convention both sides of one engine got
 * wrong together cancels). */
static void test_position_weighted_as_kernels(void **st) {
    (void)st;
    fx f;
    one_step(&f);
    size_t total = 0;
    for (int l = 0; l < f.m.n_layers; l++) {
        const layer *ly = &f.m.layers[l];
        if (ly->kind != LAYER_CONV) continue;
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        size_t kk = (size_t)d.k * d.k, ckk = (size_t)d.c * kk, HW = (size_t)d.h * d.w, P = (size_t)d.oh * d.ow;
        const float *x = l ? f.act[l - 1] : f.x, *y = f.act[l], *dy = f.dact[l], *dx = l ? f.dact[l - 1] : NULL;
        const float *w = f.p + f.m.tensors[ly->w_tensor].offset, *b = f.p + f.m.tensors[ly->b_tensor].offset;
        double *ws = malloc(N * (ckk > (size_t)d.oc * kk ? ckk : (size_t)d.oc * kk) * 2 * sizeof *ws);
        assert_non_null(ws);
        for (int var = 0; var < 6; var++) {
            int bwd = var & 1, ra = var >> 1; /* 0 position-weighted, 1 by rows, 2 by columns */
            static const int phs[3][2] = {{CK_FWD_PW, CK_BWD_DATA_PW}, {CK_FWD_RA, CK_BWD_DATA_RA},
                                          {CK_FWD_CA, CK_BWD_DATA_CA}};
            int ph = phs[ra][bwd];
            size_t cnt = f.L.cnt[l][ph], planes = bwd ? (size_t)d.oc : (size_t)d.c;
            if (!cnt) continue;
            assert_int_equal(cnt, N * (size_t)(bwd ? d.c : d.oc));
            const float *src = bwd ? dy : x;
            size_t plane_len = bwd ? P : HW, nw = N * planes * kk;
            for (size_t i = 0; i < nw; i++) { /* k_ck_window */
                int kh = (int)(i % kk / d.k), kw = (int)(i % kk % d.k);
                if (ra) ck_window_sum_alt(src + (i / kk) * plane_len, &d, kh, kw, bwd, ra == 2, &ws[i], &ws[nw + i]);
                else ck_window_sum_w(src + (i / kk) * plane_len, &d, kh, kw, bwd, &ws[i], &ws[nw + i]);
            }
            const double *h = f.vec + f.L.off[l][ph];
            double worst = 0;
            for (size_t r = 0; r < cnt; r++, total++) {
                double ls, la, rhs = 0, a = 0;
                size_t i = r / (bwd ? d.c : d.oc), o = r % (bwd ? d.c : d.oc);
                const float *lhs = bwd ? dx + r * HW : y + r * P;
                int lh = bwd ? d.h : d.oh, lw = bwd ? d.w : d.ow;
                if (ra) {
                    double lr, lc;
                    ck_rows_alt(lhs, lh, lw, 1, &lr, &lc, &la);
                    ls = ra == 1 ? lr : lc;
                } else {
                    ck_rows_w(lhs, lh, lw, 1, &ls, &la);
                }
                if (!bwd) { /* k_ck_conv_fwd, weighted */
                    double bt = ra == 1 ? (double)d.ow * (d.oh & 1) : ra == 2 ? (double)d.oh * (d.ow & 1)
                                                                              : ck_pw_bias(d.oh, d.ow);
                    rhs = bt * (double)b[o];
                    a = (ra ? (double)P : (double)P * (P + 1) / 2) * fabs((double)b[o]);
                    ck_dot_acc(&rhs, &a, w + o * ckk, 1, ws + i * ckk, ws + nw + i * ckk, 1, ckk);
                } else { /* k_ck_conv_bwd_data, weighted */
                    for (int oc = 0; oc < d.oc; oc++)
                        ck_dot_acc(&rhs, &a, w + oc * ckk + o * kk, 1, ws + (i * d.oc + oc) * kk,
                                   ws + nw + (i * d.oc + oc) * kk, 1, kk);
                }
                const double *g = h + CK_REL * r;
                double e0 = ls - rhs, dr = fabs(g[0] - e0) / (a + la > 0 ? a + la : 1);
                worst = dr > worst ? dr : worst;
                if (!(dr <= 1e-12) || !(fabs(g[1] - a) <= 1e-12 * a))
                    fail_msg("%s %s relation %zu: host R %.17g A %.17g, kernels R %.17g A %.17g", ly->name,
                             ck_phase_name(ph), r, g[0], g[1], e0, a);
                /* |weight| = 1: A, Y and S are the plain relation's, bit for bit */
                if (ra) assert_memory_equal(g + 1, f.vec + f.L.off[l][bwd ? CK_BWD_DATA : CK_FWD] + CK_REL * r + 1,
                                            3 * sizeof *g);
            }
            print_message("%s %s: %zu relations, residuals within %.3g of A + Y of the kernels'\n", ly->name,
                          ck_phase_name(ph), cnt, worst);
        }
        free(ws);
    }
    assert_int_equal(total, 3 * N * (16 + 32 + 16));
    free_fx(&f);
}

static void test_s_equals_host(void **st) {
    (void)st;
    fx f;
    one_step(&f);
    size_t total = 0, bitwise = 0, layers = 0;
    double worst = 0;
    for (int l = 0; l < f.m.n_layers; l++) {
        const layer *ly = &f.m.layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        size_t b0 = bitwise, c = compare_layer(&f, l, &bitwise, &worst);
        total += c, layers++;
        print_message("%s: %zu relations, %zu bitwise equal\n", ly->name, c, bitwise - b0);
    }
    print_message("S: %zu relations in %zu layers, %zu bitwise equal to the host's, worst relative difference %.3g\n",
                  total, layers, bitwise, worst);
    assert_int_equal(layers, 4);
    /* conv1 64 + 16, conv2 128 + 64 + 32, fc1 64 + 1568 + 64, fc2 10 + 64 + 10 */
    assert_int_equal(total, 64 + 16 + 128 + 64 + 32 + 64 + 1568 + 64 + 10 + 64 + 10);
    free_fx(&f);
}

/* BWD_W_PEEK of conv filter oc as the kernels' loop gives it: the first, last, drawn and largest elements of its
 * dW row, each re-done (ck_conv_redo) and the worst kept */
static void conv_peek_expect(double want[4], const float *x, const float *dy, const ck_conv_dims *d, const float *gw,
                             size_t row, ck_rnd_key_t key, int l, size_t oc) {
    size_t t[CK_PEEK];
    ck_peek_elems(t, gw + oc * row, row, key, l, oc);
    ck_worst w;
    ck_worst_init(&w);
    for (size_t e = 0; e < CK_PEEK; e++) {
        double R, A;
        int sub = ck_conv_redo(x, 1, dy, 1, NULL, NULL, d, N, oc, t[e], &R, &A);
        ck_zero_keep(&w, gw[oc * row + t[e]], R, A, sub);
    }
    ck_worst_put(&w, want);
}

/* The zero-element relations (BWD_W_Z) as the CUDA kernels compose them
 * (base/checksum_ops.h's loops over every sample and position, plain
 * layouts) equal the host's, bit for bit, for conv layers (whose host
 * path reads only the samples and dy positions that can hold a nonzero
 * term) and dense layers, on a real step whose weight gradients were
 * given zeros: in each conv and dense layer, the largest |dW| of every
 * third filter or row set to +0, plus the whole of one filter's first
 * input channel. */
static void test_zero_elements_as_kernels(void **st) {
    (void)st;
    fx f;
    one_step(&f);
    for (int l = 0; l < f.m.n_layers; l++) {
        const layer *ly = &f.m.layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        float *gw = f.g + f.m.tensors[ly->w_tensor].offset;
        size_t row = f.m.tensors[ly->w_tensor].numel / (size_t)ly->out_c;
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc += 3) {
            size_t q = 0;
            for (size_t t = 0; t < row; t++) q = fabsf(gw[oc * row + t]) > fabsf(gw[oc * row + q]) ? t : q;
            gw[oc * row + q] = 0.0f;
        }
        if (ly->kind == LAYER_CONV)
            for (int t = 0; t < ly->k * ly->k; t++) gw[row + (size_t)t] = 0.0f;
    }
    assert_int_equal(engine_set_tensor(f.e, (tensor_id){TENSOR_GRADS, 0}, f.g), 0);
    /* every vector path of the host's in-pass re-do (ck_redo_force_isa)
     * this machine has, each against the kernels' loop */
    const char *isa[] = {"avx512f", "avx2", "scalar"};
    size_t judged = 0, peeked = 0;
    int paths = 0;
    for (int k = 0; k < 3; k++) {
    if (ck_redo_force_isa(isa[k])) continue;
    paths++;
    assert_int_equal(engine_checksums_host(f.e, CK_STAGE_STEP, f.vec), 0);
    judged = 0, peeked = 0;
    ck_rnd_key_t key = ck_rnd_key(ck_get_u64(f.vec + f.L.input_off), (long)f.vec[2], (int)f.vec[0]);
    for (int l = 0; l < f.m.n_layers; l++) {
        const layer *ly = &f.m.layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        const float *x = l ? f.act[l - 1] : f.x, *dy = f.dact[l], *gw = f.g + f.m.tensors[ly->w_tensor].offset;
        size_t row = f.m.tensors[ly->w_tensor].numel / (size_t)ly->out_c, in = (size_t)ly->in_c;
        double want[4], *xa = calloc(in, sizeof *xa);
        assert_non_null(xa);
        for (size_t i = 0; i < N && ly->kind == LAYER_DENSE; i++)
            for (size_t k = 0; k < in; k++) xa[k] += fabs((double)x[i * in + k]);
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
            if (ly->kind == LAYER_CONV)
                ck_conv_zero_filter(want, gw + oc * row, x, 1, dy, 1, NULL, NULL, &d, N, oc);
            else
                ck_dense_zero_row(want, gw + oc * row, dy, x, xa, N, in, (size_t)ly->out_c, oc);
            const double *got = f.vec + f.L.off[l][CK_BWD_W_Z] + CK_REL * oc;
            if (memcmp(got, want, sizeof want))
                fail_msg("%s filter/row %zu: host (%g %g %g %g), kernels' loop (%g %g %g %g)", ly->name, oc, got[0],
                         got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            judged += want[1] > 0;
            if (ly->kind != LAYER_CONV) continue;
            /* BWD_W_PEEK: the first, last, drawn and largest elements, each re-done by the kernels' loop */
            conv_peek_expect(want, x, dy, &d, gw, row, key, l, oc);
            got = f.vec + f.L.off[l][CK_BWD_W_PEEK] + CK_REL * oc;
            if (memcmp(got, want, sizeof want))
                fail_msg("%s filter %zu (%s): sampled elements, host (%g %g %g %g), kernels' loop (%g %g %g %g)",
                         ly->name, oc, isa[k], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            peeked += want[1] > 0;
        }
        free(xa);
    }
    fprintf(stderr, "zero-element and sampled-element relations (%s): host = the kernels' loop in every filter and "
            "row, %zu with a zero judged, %zu conv filters' sampled elements judged\n", isa[k], judged, peeked);
    assert_true(judged >= 10);
    assert_true(peeked >= 40);
    }
    assert_true(paths >= 1);
    /* the machine's best again */
    assert_true(ck_redo_force_isa("avx512f") == 0 || ck_redo_force_isa("avx2") == 0 || ck_redo_force_isa("scalar") == 0);
    free_fx(&f);
}

/* The host's in-pass re-do of conv2's dW elements (redo_block) skips the
 * terms whose dy is +-0 only where that leaves every sum as it is: with x
 * finite.  One input of conv2 set to +Inf by hand (sample 0, channel 0,
 * row and column 7: filter element (0, 0, 0) of every filter meets it at
 * output position (8, 8), where most filters' dy is 0 after the ReLU and
 * max-pool): that term is 0 Inf = NaN in the kernels' loop, and the
 * host's BWD_W_PEEK and BWD_W_Z must be the same bits (NaN where the loop
 * has it), on every vector path of the re-do. */
static void test_redo_nonfinite_x(void **st) {
    (void)st;
    fx f;
    one_step(&f);
    int l = -1, convs = 0;
    for (int k = 0; k < f.m.n_layers && l < 0; k++)
        if (f.m.layers[k].kind == LAYER_CONV && ++convs == 2) l = k;
    assert_true(l > 0);
    const layer *ly = &f.m.layers[l];
    float *x = f.act[l - 1], *dy = f.dact[l], *gw = f.g + f.m.tensors[ly->w_tensor].offset;
    size_t row = f.m.tensors[ly->w_tensor].numel / (size_t)ly->out_c;
    assert_int_equal(ly->pad, 1);
    x[7 * (size_t)ly->in_w + 7] = INFINITY;
    assert_int_equal(engine_set_tensor(f.e, (tensor_id){TENSOR_ACT, l - 1}, x), 0);
    const char *isa[] = {"avx512f", "avx2", "scalar"};
    int paths = 0;
    for (int k = 0; k < 3; k++) {
        if (ck_redo_force_isa(isa[k])) continue;
        paths++;
        assert_int_equal(engine_checksums_host(f.e, CK_STAGE_STEP, f.vec), 0);
        ck_rnd_key_t key = ck_rnd_key(ck_get_u64(f.vec + f.L.input_off), (long)f.vec[2], (int)f.vec[0]);
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        size_t nan_peek = 0;
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
            double want[4];
            ck_conv_zero_filter(want, gw + oc * row, x, 1, dy, 1, NULL, NULL, &d, N, oc);
            const double *got = f.vec + f.L.off[l][CK_BWD_W_Z] + CK_REL * oc;
            if (memcmp(got, want, sizeof want))
                fail_msg("%s filter %zu (%s): zero elements, host (%g %g %g %g), kernels' loop (%g %g %g %g)",
                         ly->name, oc, isa[k], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            conv_peek_expect(want, x, dy, &d, gw, row, key, l, oc);
            got = f.vec + f.L.off[l][CK_BWD_W_PEEK] + CK_REL * oc;
            if (memcmp(got, want, sizeof want))
                fail_msg("%s filter %zu (%s): sampled elements, host (%g %g %g %g), kernels' loop (%g %g %g %g)",
                         ly->name, oc, isa[k], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            nan_peek += isnan(want[0]);
        }
        print_message("%s (%s): x with +Inf, host = the kernels' loop in every filter, %zu filters' sampled "
                      "elements NaN\n", ly->name, isa[k], nan_peek);
        assert_true(nan_peek >= 8);
    }
    assert_true(paths >= 1);
    assert_true(ck_redo_force_isa("avx512f") == 0 || ck_redo_force_isa("avx2") == 0 || ck_redo_force_isa("scalar") == 0);
    free_fx(&f);
}

/* Identical windows (engines/checksums.c, conv_groups): the relations'
 * S is S + E / A, E = sum over groups of G >= 2 identical, non-blank
 * windows of (G^2 - G) S_g^2, S_g = |b| + sum_c (sum_t |w|) max over the
 * window of |x_c|; the first GRP_EXACT (16) groups of a sample in the
 * order of their first window, the rest charged S^2.  Found here by
 * comparing every pair of windows value for value (the host hashes them);
 * on images with a constant background of -1 (one_step_bg), where the
 * sharper tier without E was a false SUSPECT on clean engines
 * (tests/EVIDENCE.md, "False alarms hunted").  Also: the alternating and random-weight
 * relations carry the plain relation's S', the position-weighted one P S
 * + P^2 E / A_pw, and the images of one_step (no two windows alike) get
 * E = 0 (test_s_equals_host's bitwise S). */
static double window_e(const layer *ly, int bwd, const float *src, const float *w, const float *b, size_t i, int v,
                       double s_plain, size_t *groups) {
    int NU = bwd ? ly->out_c : ly->in_c, h = bwd ? ly->out_h : ly->in_h, wd = bwd ? ly->out_w : ly->in_w;
    int oh = bwd ? ly->in_h : ly->out_h, ow = bwd ? ly->in_w : ly->out_w, k = ly->k, pad = ly->pad;
    size_t HW = (size_t)h * wd, P = (size_t)oh * ow, kk = (size_t)k * k;
    const float *xs = src + i * (size_t)NU * HW;
    /* the window of output p as values (0 outside), and whether any is nonzero */
    float *win = malloc(P * (size_t)NU * kk * sizeof *win);
    int *rep = malloc(P * sizeof *rep), *cnt = calloc(P, sizeof *cnt), *blank = malloc(P * sizeof *blank);
    assert_true(win && rep && cnt && blank);
    size_t WL = (size_t)NU * kk;
    for (size_t p = 0; p < P; p++) {
        int r = (int)(p / (size_t)ow), c = (int)(p % (size_t)ow);
        blank[p] = 1;
        for (int u = 0; u < NU; u++)
            for (int a = 0; a < k; a++)
                for (int bb = 0; bb < k; bb++) {
                    int ih = bwd ? r + pad - a : r + a - pad, iw = bwd ? c + pad - bb : c + bb - pad;
                    float val = ih >= 0 && ih < h && iw >= 0 && iw < wd ? xs[(size_t)u * HW + (size_t)ih * wd + iw] : 0.0f;
                    win[p * WL + (size_t)u * kk + (size_t)a * k + bb] = val;
                    blank[p] &= val == 0.0f;
                }
        rep[p] = (int)p;
        for (size_t q = 0; q < p && rep[p] == (int)p; q++)
            if (rep[q] == (int)q && !blank[q] && !blank[p]) {
                size_t t = 0;
                while (t < WL && win[p * WL + t] == win[q * WL + t]) t++; /* +0 == -0 */
                if (t == WL) rep[p] = (int)q;
            }
        cnt[rep[p]]++;
    }
    double e = 0, over = 0;
    size_t ng = 0;
    for (size_t p = 0; p < P; p++) {
        if (rep[p] != (int)p || blank[p] || cnt[p] < 2) continue;
        double f = (double)cnt[p] * cnt[p] - cnt[p];
        if (ng++ >= 16) {
            over += f;
            continue;
        }
        double sg = b ? fabs((double)b[v]) : 0;
        for (int u = 0; u < NU; u++) {
            double ws = 0, mx = 0;
            for (size_t t = 0; t < kk; t++) {
                ws += fabs((double)(bwd ? w[((size_t)u * ly->in_c + v) * kk + t] : w[((size_t)v * ly->in_c + u) * kk + t]));
                double a = fabs((double)win[p * WL + (size_t)u * kk + t]);
                mx = a > mx ? a : mx;
            }
            sg += ws * mx;
        }
        e += f * sg * sg;
    }
    e += over * s_plain * s_plain;
    *groups += ng;
    free(win), free(rep), free(cnt), free(blank);
    return e;
}

static void test_identical_windows(void **st) {
    (void)st;
    for (int bg = 1; bg >= 0; bg--) {
        fx f;
        one_step_bg(&f, bg);
        size_t with_e = 0, groups = 0, total = 0;
        for (int l = 0; l < f.m.n_layers; l++) {
            const layer *ly = &f.m.layers[l];
            if (ly->kind != LAYER_CONV) continue;
            const float *x = l ? f.act[l - 1] : f.x, *dy = f.dact[l];
            const float *w = f.p + f.m.tensors[ly->w_tensor].offset, *b = f.p + f.m.tensors[ly->b_tensor].offset;
            double *s[3];
            for (int ph = 0; ph < 3; ph++) {
                s[ph] = f.L.cnt[l][ph] ? malloc(f.L.cnt[l][ph] * sizeof(double)) : NULL;
                assert_true(!f.L.cnt[l][ph] || s[ph]);
            }
            assert_int_equal(ck_s_expect_layer(ly, N, x, dy, w, b, s), 0); /* S without E */
            for (int bwd = 0; bwd < 2; bwd++) {
                int ph = bwd ? CK_BWD_DATA : CK_FWD, pw = bwd ? CK_BWD_DATA_PW : CK_FWD_PW;
                int alts[3] = {bwd ? CK_BWD_DATA_RA : CK_FWD_RA, bwd ? CK_BWD_DATA_CA : CK_FWD_CA,
                               bwd ? CK_BWD_DATA_RND : CK_FWD_RND};
                size_t cnt = f.L.cnt[l][ph], nv = (size_t)(bwd ? ly->in_c : ly->out_c);
                double P = bwd ? (double)ly->in_h * ly->in_w : (double)ly->out_h * ly->out_w;
                for (size_t r = 0; r < cnt; r++, total++) {
                    const double *h = f.vec + f.L.off[l][ph] + CK_REL * r;
                    double e = window_e(ly, bwd, bwd ? dy : x, w, bwd ? NULL : b, r / nv, (int)(r % nv), s[ph][r], &groups);
                    double want = e > 0 ? s[ph][r] + e / h[1] : s[ph][r];
                    with_e += e > 0;
                    if (!(fabs(h[3] - want) <= 1e-12 * want))
                        fail_msg("%s %s relation %zu: host S %.17g, expected %.17g (S %.17g, E %.17g, A %.17g)", ly->name,
                                 ck_phase_name(ph), r, h[3], want, s[ph][r], e, h[1]);
                    for (int q = 0; q < 3; q++) {
                        if (!f.L.cnt[l][alts[q]]) continue;
                        size_t per = alts[q] == CK_FWD_RND || alts[q] == CK_BWD_DATA_RND ? CK_RND_DRAWS : 1;
                        for (size_t dr = 0; dr < per; dr++)
                            assert_true(f.vec[f.L.off[l][alts[q]] + CK_REL * (r * per + dr) + 3] == h[3]);
                    }
                    if (f.L.cnt[l][pw]) {
                        const double *g = f.vec + f.L.off[l][pw] + CK_REL * r;
                        double wp = e > 0 ? P * s[ph][r] + P * P * e / g[1] : P * s[ph][r];
                        if (!(fabs(g[3] - wp) <= 1e-12 * wp))
                            fail_msg("%s %s relation %zu: host S %.17g, expected %.17g", ly->name, ck_phase_name(pw), r,
                                     g[3], wp);
                    }
                }
            }
            for (int ph = 0; ph < 3; ph++) free(s[ph]);
        }
        print_message("%s images: %zu conv forward and backward-data relations, %zu with identical windows (%zu "
                      "groups within the first 16 of their sample)\n", bg ? "constant-background" : "random", total,
                      with_e, groups);
        if (bg) assert_true(with_e >= 64 && groups >= 8); /* conv1's and conv2's forward, every sample */
        else assert_int_equal(with_e, 0);
        free_fx(&f);
    }
}

/* ck_digest's AVX2 path (4 lanes, 64-bit products from 32-bit ones) is
 * the plain loop's sum to the bit: every length 0..70 (the 4-wide body and
 * each tail), unaligned starts, a long buffer past 2^16 elements, and
 * floats of every kind (random bit patterns: NaN payloads, infinities,
 * subnormals, -0), against ck_digest_term summed here. */
static void test_digest_avx2(void **st) {
    (void)st;
    if (ck_digest_force_avx2(1) != 0) {
        ck_digest_force_avx2(0);
        skip(); /* no AVX2 on this CPU: only the plain loop runs */
    }
    enum { DN = 70000 };
    float *x = malloc((DN + 3) * sizeof *x);
    assert_non_null(x);
    uint64_t r = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < DN + 3; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t b = (uint32_t)(r >> 32);
        memcpy(&x[i], &b, 4);
    }
    size_t lens[80], nl = 0;
    for (size_t n = 0; n <= 70; n++) lens[nl++] = n;
    lens[nl++] = 65537, lens[nl++] = DN;
    for (size_t k = 0; k < nl; k++)
        for (size_t off = 0; off < 4; off++) {
            size_t n = lens[k];
            if (n + off > DN + 3) continue;
            uint64_t want = 0;
            for (size_t i = 0; i < n; i++) want += ck_digest_term(x[off + i], i);
            assert_int_equal(ck_digest_force_avx2(1), 0);
            uint64_t a = ck_digest(x + off, n);
            assert_int_equal(ck_digest_force_avx2(0), 0);
            uint64_t p = ck_digest(x + off, n);
            if (a != want || p != want)
                fail_msg("n %zu, offset %zu: avx2 %016llx, plain %016llx, the terms' sum %016llx", n, off,
                         (unsigned long long)a, (unsigned long long)p, (unsigned long long)want);
        }
    free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maxima),
        cmocka_unit_test(test_zero_elements_as_kernels),
        cmocka_unit_test(test_redo_nonfinite_x),
        cmocka_unit_test(test_s_equals_host),
        cmocka_unit_test(test_index_weighted_as_kernels),
        cmocka_unit_test(test_signed_as_kernels),
        cmocka_unit_test(test_position_weighted_as_kernels),
        cmocka_unit_test(test_identical_windows),
        cmocka_unit_test(test_digest_avx2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
