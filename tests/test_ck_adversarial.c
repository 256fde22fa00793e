/*
 * test_ck_adversarial.c — attacks on the cpu engine's every-step checks
 * where they read the engine's own buffers (engine_i.ck_view, nChw16c
 * blocks in channel lanes) and judge a fused ReLU + max-pool as one
 * operation (engine_i.ck_fused), with engine_opts.ck_threads:
 *
 *  - on inputs full of ties, exact +0 and -0, subnormals and zero regions
 *    (conv outputs equal to the bias, or exactly +-0 with zero biases), at
 *    batch sizes 17 and 3 (a partial batch after a full one: another plan),
 *    on SmallCNN and mnist-convnet (padding 0, the odd pool edge 11 -> 5,
 *    dropout), for cpu, threads=1, layout=plain, fuse=off and tf32=on:
 *    every exact re-check counts 0 and every relation holds (training
 *    steps and evaluation), the vector is bit for bit the plain path's
 *    (ck_view and ck_fused NULL) and the same at ck_threads 1 and 0;
 *  - fuse=on and fuse=off give bit-identical tensors, so their vectors are
 *    bit-identical too (the fused pair's check against separate checks of
 *    the materialized ReLU);
 *  - an isolated-replay-like sequence (every output read and set back with
 *    its own value, each layer run alone) gives the vector of a plain step;
 *  - one element changed in the fused pair's output, or in its input
 *    gradient (at an arg-max that passes, one that does not, a non-maximum,
 *    the floor-pooled odd edge; in the last sample and the last channel
 *    block) is counted exactly once, at both layers, in nChw16c and plain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/util.h"
#include "checks/checksums.h"
#include "engines/checksums.h"
#include "engines/registry.h"

#define NMAX 17

static engine *mk(const model *m, const char *spec, int ck_threads) {
    engine *e = NULL;
    engine_opts o = {.seed = 42, .max_batch = NMAX, .ck_threads = ck_threads};
    int rc = engine_create(&e, spec, m, &o);
    if (rc) fprintf(stderr, "engine_create(%s): %s\n", spec, ls_errmsg());
    assert_int_equal(rc, 0);
    return e;
}

/* Images of ties, +-0, subnormals and small integers, with whole zero
 * rows (so conv windows see nothing: outputs equal the bias, ties in
 * every pool window there). */
static void fill_image(const model *m, float *x, size_t n, uint32_t tag) {
    static const float pal[] = {1.0f, -1.0f, 0.0f, -0.0f, 2.0f, 0.5f, -2.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 3.0f,
                                -0.5f, 1.0f, 1.0f, 0.0f, 0.0f};
    size_t hw = (size_t)m->in_h * m->in_w, w = (size_t)m->in_w;
    for (size_t i = 0; i < n * m->in_c * hw; i++) {
        uint32_t r = rng_u32(99, (uint32_t)i, tag, 3, 1);
        size_t row = (i % hw) / w, img = i / (m->in_c * hw);
        int blank = (row / 4 + img) % 3 == 0 || img % 5 == 4; /* whole images blank too */
        x[i] = blank ? ((r & 1) ? 0.0f : -0.0f) : pal[(r >> 1) % LS_ARRAY_LEN(pal)];
        /* every third image: rows scaled by 2^-24, 1, 2^24 in turn, so a
         * plane's sums span more than a double's extra bits and their
         * order shows in the last bit */
        if (img % 3 == 1) x[i] = ldexpf(x[i], 24 * ((int)(row / 2) % 3 - 1));
    }
}

/* Parameters: the model's init, with every bias 0 when zero_bias (so
 * blank windows give conv outputs of exactly +-0). */
static void params_of(const model *m, float *p, int zero_bias) {
    model_init_params(m, p, 42);
    if (!zero_bias) return;
    for (int l = 0; l < m->n_layers; l++)
        if (m->layers[l].b_tensor >= 0) {
            const model_tensor *T = &m->tensors[m->layers[l].b_tensor];
            memset(p + T->offset, 0, T->numel * sizeof *p);
        }
}

static void labels_of(const model *m, int32_t *y, size_t n, uint32_t tag) {
    for (size_t i = 0; i < n; i++) y[i] = (int32_t)((i * 7 + tag) % (size_t)m->n_classes);
}

static void run_step(engine *e, const float *x, const int32_t *y, size_t n, uint64_t step) {
    assert_int_equal(engine_set_batch(e, x, y, n, step), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, NULL), 0);
    assert_int_equal(engine_backward(e), 0);
}

/* A training step (train) or an evaluation forward of batch (x, y). */
static void advance(engine *e, const float *x, const int32_t *y, size_t n, int s, int train) {
    if (train) {
        run_step(e, x, y, n, (uint64_t)s + 1);
        return;
    }
    assert_int_equal(engine_set_batch(e, x, y, n, 99), 0);
    assert_int_equal(engine_forward(e, 0), 0);
}

/* The vector of a stage, and the plain path's (ck_view, ck_fused NULL:
 * plain copies through get_tensor, ReLUs written and re-checked alone). */
static void vec_of(engine *e, int stage, double *out, int plain_path) {
    const engine_i *own = e->iface;
    engine_i plain = *own;
    plain.ck_view = NULL, plain.ck_fused = NULL;
    if (plain_path) e->iface = &plain;
    int rc = engine_checksums(e, stage, out);
    e->iface = own;
    assert_int_equal(rc, 0);
}

/* the first differing slot, for the message */
static void assert_vec_equal(const double *a, const double *b, size_t total, const char *what) {
    if (memcmp(a, b, total * sizeof *a)) {
        size_t i = 0;
        while (!memcmp(a + i, b + i, sizeof *a)) i++;
        fprintf(stderr, "%s: slot %zu differs: %a vs %a\n", what, i, a[i], b[i]);
    }
    assert_memory_equal(a, b, total * sizeof *a);
}

/* Every exact re-check (ReLU, max-pool, flatten, dropout) counted 0. */
static void assert_exact_zero(const model *m, const ck_layout *L, const double *v, const char *what) {
    int backward = v[0] == CK_STAGE_STEP;
    for (int l = 0; l < m->n_layers; l++) {
        if (L->is_rel[l]) continue;
        double f = v[L->off[l][CK_FWD]], b = backward && L->cnt[l][CK_BWD_DATA] ? v[L->off[l][CK_BWD_DATA]] : 0;
        if (f != 0 || b != 0) fprintf(stderr, "%s: layer %d counts %g forward, %g backward\n", what, l, f, b);
        assert_true(f == 0 && b == 0);
    }
}

static void assert_judged_clean(const model *m, const double *v, size_t n, const int32_t *y, const char *what) {
    ck_verdict vd;
    ck_verdict_init(&vd);
    assert_int_equal(checksums_judge(m, v, n, y, 0, CK_BLOCKS_ALL, &vd), 0);
    if (vd.n_viol) fprintf(stderr, "%s: %s (ratio %g)\n", what, vd.v[0].what, vd.v[0].ratio);
    assert_int_equal(vd.n_viol, 0);
    assert_true(vd.n_relations > 0);
}

/* Engines of one spec, checks on every core (0), on one and (ck_alt != 0)
 * on ck_alt threads (3: more than a 2-core machine has): three steps
 * (batch 17, 17, then 3: a partial batch after a full one), one at 1, an
 * evaluation at 3 and one at 17.  Each vector: exact counts 0, relations hold
 * (judge = 0: not for reduced precision), = the plain path's, = the
 * one-thread engine's. */
static void clean_case(const char *model_name, const char *spec, int zero_bias, int judge, int ck_alt) {
    model m;
    /* a built-in name, or a spec text */
    int rc = strchr(model_name, ';') ? model_parse_spec(&m, model_name, "test") : model_build(&m, model_name);
    assert_int_equal(rc, 0);
    engine *a = mk(&m, spec, 0), *b = mk(&m, spec, 1), *c = ck_alt ? mk(&m, spec, ck_alt) : NULL;
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *x = malloc(NMAX * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t y[NMAX];
    params_of(&m, p, zero_bias);
    assert_int_equal(engine_set_params(a, p), 0);
    assert_int_equal(engine_set_params(b, p), 0);
    if (c) assert_int_equal(engine_set_params(c, p), 0);
    ck_layout L;
    ck_layout_make(&L, &m, NMAX);
    double *va = malloc(L.total * sizeof *va), *vp = malloc(L.total * sizeof *vp), *vb = malloc(L.total * sizeof *vb);
    double *vc = malloc(L.total * sizeof *vc);
    assert_non_null(x), assert_non_null(p), assert_non_null(va), assert_non_null(vp), assert_non_null(vb);
    assert_non_null(vc);
    adam_cfg cfg = adam_default();
    const size_t sizes[] = {NMAX, NMAX, 3, 1, 3, NMAX};
    for (int s = 0; s < 6; s++) {
        size_t n = sizes[s];
        int train = s < 4;
        char what[256];
        snprintf(what, sizeof what, "%s %s%s, %s %d, batch %zu", model_name, spec, zero_bias ? " (zero biases)" : "",
                 train ? "step" : "evaluation", s, n);
        fill_image(&m, x, n, (uint32_t)s);
        labels_of(&m, y, n, (uint32_t)s);
        ck_layout_make(&L, &m, n);
        engine *es[3] = {a, b, c};
        int ne = c ? 3 : 2;
        for (int k = 0; k < ne; k++) advance(es[k], x, y, n, s, train);
        int stage = train ? CK_STAGE_STEP : CK_STAGE_EVAL;
        vec_of(a, stage, va, 0);
        vec_of(b, stage, vb, 0);
        if (c) vec_of(c, stage, vc, 0);
        vec_of(a, stage, vp, 1);
        assert_exact_zero(&m, &L, va, what);
        if (judge) assert_judged_clean(&m, va, n, y, what);
        assert_vec_equal(va, vp, L.total, what);
        assert_vec_equal(va, vb, L.total, what);
        if (c) assert_vec_equal(va, vc, L.total, what);
        if (train)
            for (int k = 0; k < ne; k++) assert_int_equal(engine_update(es[k], &cfg, s + 1), 0);
    }
    engine_free(a);
    engine_free(b);
    if (c) engine_free(c);
    free(x), free(p), free(va), free(vp), free(vb), free(vc);
}

static void test_clean_convnet(void **s) {
    (void)s;
    clean_case("mnist-convnet", "cpu", 0, 1, 3);
    clean_case("mnist-convnet", "cpu", 1, 1, 0);
}
static void test_clean_convnet_variants(void **s) {
    (void)s;
    clean_case("mnist-convnet", "cpu:threads=1", 1, 1, 0);
    clean_case("mnist-convnet", "cpu:layout=plain", 1, 1, 0);
}
static void test_clean_convnet_variants2(void **s) {
    (void)s;
    clean_case("mnist-convnet", "cpu:fuse=off", 0, 1, 0);
    clean_case("mnist-convnet", "cpu:tf32=on", 1, 0, 0);
}
/* ReLU + max-pool pairs where the built-in models have none: on the image
 * (layer 0: the engine fuses it, the checks judge it apart), after a
 * max-pool, after dropout, in nChw8c (8 channels: fused, no view), with
 * 24 channels (nChw16c padded: no view), 7x7 -> 3x3 (odd edges). */
static const char *const SPECS[] = {
    "input 16 8 8; relu; maxpool; conv 16 3 pad 1; relu; maxpool; flatten; dense 4",
    "input 1 12 12; conv 16 3 pad 1; maxpool; relu; maxpool; flatten; dense 3",
    "input 2 10 10; conv 32 3 pad 1; dropout 0.25; relu; maxpool; flatten; dense 5",
    "input 3 9 9; conv 8 3 pad 1; relu; maxpool; conv 24 2; relu; maxpool; flatten; dense 4",
    "input 1 9 9; conv 32 3; relu; maxpool; conv 48 1; relu; maxpool; flatten; dense 3",
};

static void test_clean_custom(void **s) {
    (void)s;
    for (size_t i = 0; i < LS_ARRAY_LEN(SPECS); i++) clean_case(SPECS[i], "cpu", (int)i % 2, 1, 0);
}

static void test_clean_custom_plain(void **s) {
    (void)s;
    for (size_t i = 0; i < LS_ARRAY_LEN(SPECS); i++) clean_case(SPECS[i], "cpu:layout=plain", 1, 1, 0);
}

static void test_clean_smallcnn(void **s) {
    (void)s;
    clean_case("smallcnn", "cpu", 1, 1, 0);
    clean_case("smallcnn", "cpu:layout=plain", 0, 1, 0);
}

/* fuse=on and fuse=off compute the same bits (test_engine_cpu), so the
 * fused pair's check and the separate checks of the materialized ReLU give
 * the same vector, at batch 17 and at 3, training and evaluation. */
static void fuse_on_off_case(const char *model_name, const char *knobs) {
    model m;
    int rc = strchr(model_name, ';') ? model_parse_spec(&m, model_name, "test") : model_build(&m, model_name);
    assert_int_equal(rc, 0);
    char sa[64], sb[64];
    snprintf(sa, sizeof sa, "cpu:%s:fuse=on", knobs);
    snprintf(sb, sizeof sb, "cpu:%s:fuse=off", knobs);
    engine *a = mk(&m, sa, 0), *b = mk(&m, sb, 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *x = malloc(NMAX * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t y[NMAX];
    params_of(&m, p, 1);
    assert_int_equal(engine_set_params(a, p), 0);
    assert_int_equal(engine_set_params(b, p), 0);
    ck_layout L;
    ck_layout_make(&L, &m, NMAX);
    double *va = malloc(L.total * sizeof *va), *vb = malloc(L.total * sizeof *vb);
    assert_non_null(x), assert_non_null(p), assert_non_null(va), assert_non_null(vb);
    adam_cfg cfg = adam_default();
    const size_t sizes[] = {NMAX, 3, NMAX, 3};
    for (int s = 0; s < 4; s++) {
        size_t n = sizes[s];
        int train = s < 2;
        char what[256];
        snprintf(what, sizeof what, "%.100s %s vs %s, %s %d", model_name, sa, sb, train ? "step" : "evaluation", s);
        fill_image(&m, x, n, 10 + (uint32_t)s);
        labels_of(&m, y, n, (uint32_t)s);
        ck_layout_make(&L, &m, n);
        engine *es[2] = {a, b};
        for (int k = 0; k < 2; k++) advance(es[k], x, y, n, s, train);
        int stage = train ? CK_STAGE_STEP : CK_STAGE_EVAL;
        vec_of(a, stage, va, 0);
        vec_of(b, stage, vb, 0);
        assert_exact_zero(&m, &L, va, what);
        assert_vec_equal(va, vb, L.total, what);
        if (train) {
            assert_int_equal(engine_update(a, &cfg, s + 1), 0);
            assert_int_equal(engine_update(b, &cfg, s + 1), 0);
        }
    }
    engine_free(a);
    engine_free(b);
    free(x), free(p), free(va), free(vb);
}

static void test_fuse_on_off_same_vector(void **s) {
    (void)s;
    fuse_on_off_case("mnist-convnet", "threads=2");
    fuse_on_off_case("smallcnn", "threads=1");
    fuse_on_off_case("mnist-convnet", "layout=plain");
}

static void test_fuse_on_off_custom(void **s) {
    (void)s;
    for (size_t i = 0; i < LS_ARRAY_LEN(SPECS); i++) fuse_on_off_case(SPECS[i], "threads=2");
}

/* Isolated replay's pattern on one engine's own values: every layer run
 * alone, its input read and set back first (a ReLU's with the value its
 * rule gives: the engine keeps its fused kernel; the read writes the lazy
 * tensor, so the checks go back to separate re-checks), every gradient
 * read and set back before the layer's backward.  The vector is the one a
 * plain step gives (fused-pair checks). */
static void test_replay_like_same_vector(void **s) {
    (void)s;
    const char *models[] = {"mnist-convnet", "smallcnn"};
    for (size_t mi = 0; mi < LS_ARRAY_LEN(models); mi++) {
        model m;
        assert_int_equal(model_build(&m, models[mi]), 0);
        engine *a = mk(&m, "cpu", 0), *b = mk(&m, "cpu", 0);
        size_t in = (size_t)m.in_c * m.in_h * m.in_w, big = 0;
        for (int l = 0; l < m.n_layers; l++) big = layer_out_size(&m.layers[l]) > big ? layer_out_size(&m.layers[l]) : big;
        float *x = malloc(NMAX * in * sizeof *x), *p = malloc(m.n_params * sizeof *p), *t = malloc(NMAX * big * 4);
        int32_t y[NMAX];
        params_of(&m, p, 0);
        assert_int_equal(engine_set_params(a, p), 0);
        assert_int_equal(engine_set_params(b, p), 0);
        ck_layout L;
        ck_layout_make(&L, &m, NMAX);
        double *va = malloc(L.total * sizeof *va), *vb = malloc(L.total * sizeof *vb);
        assert_non_null(x), assert_non_null(p), assert_non_null(t), assert_non_null(va), assert_non_null(vb);
        for (int st = 1; st <= 2; st++) {
            size_t n = st == 1 ? NMAX : 5;
            ck_layout_make(&L, &m, n);
            fill_image(&m, x, n, 20 + (uint32_t)st);
            labels_of(&m, y, n, (uint32_t)st);
            run_step(a, x, y, n, (uint64_t)st);
            assert_int_equal(engine_set_batch(b, x, y, n, (uint64_t)st), 0);
            for (int l = 0; l < m.n_layers; l++) {
                if (l > 0) {
                    assert_int_equal(engine_get_tensor(b, (tensor_id){TENSOR_ACT, l - 1}, t), 0);
                    assert_int_equal(engine_set_tensor(b, (tensor_id){TENSOR_ACT, l - 1}, t), 0);
                }
                assert_int_equal(engine_forward_layer(b, l, 1), 0);
            }
            assert_int_equal(engine_loss(b, NULL), 0);
            for (int l = m.n_layers - 1; l >= 0; l--) {
                assert_int_equal(engine_get_tensor(b, (tensor_id){TENSOR_DACT, l}, t), 0);
                assert_int_equal(engine_set_tensor(b, (tensor_id){TENSOR_DACT, l}, t), 0);
                assert_int_equal(engine_backward_layer(b, l), 0);
            }
            vec_of(a, CK_STAGE_STEP, va, 0);
            vec_of(b, CK_STAGE_STEP, vb, 0);
            assert_exact_zero(&m, &L, va, models[mi]);
            assert_vec_equal(va, vb, L.total, models[mi]);
            adam_cfg cfg = adam_default();
            assert_int_equal(engine_update(a, &cfg, st), 0);
            assert_int_equal(engine_update(b, &cfg, st), 0);
        }
        engine_free(a);
        engine_free(b);
        free(x), free(p), free(t), free(va), free(vb);
    }
}

/* ---- single-element faults in a fused pair --------------------------------- */

typedef struct {
    model m;
    engine *e;
    ck_layout L;
    size_t n;
    float *x, *y, *dx, *keep, *img, *p;
    double *vec;
    int32_t lab[NMAX];
} pf;

static void pf_setup(pf *f, const char *model_name, const char *spec, int ck_threads) {
    memset(f, 0, sizeof *f);
    assert_int_equal(model_build(&f->m, model_name), 0);
    f->e = mk(&f->m, spec, ck_threads);
    f->n = NMAX;
    size_t in = (size_t)f->m.in_c * f->m.in_h * f->m.in_w, big = 0;
    for (int l = 0; l < f->m.n_layers; l++)
        big = layer_out_size(&f->m.layers[l]) > big ? layer_out_size(&f->m.layers[l]) : big;
    f->img = malloc(NMAX * in * 4), f->p = malloc(f->m.n_params * 4);
    f->x = malloc(NMAX * big * 4), f->y = malloc(NMAX * big * 4), f->dx = malloc(NMAX * big * 4);
    f->keep = malloc(NMAX * big * 4);
    ck_layout_make(&f->L, &f->m, NMAX);
    f->vec = malloc(f->L.total * sizeof *f->vec);
    assert_non_null(f->img), assert_non_null(f->p), assert_non_null(f->x), assert_non_null(f->y);
    assert_non_null(f->dx), assert_non_null(f->keep), assert_non_null(f->vec);
    params_of(&f->m, f->p, 0);
    assert_int_equal(engine_set_params(f->e, f->p), 0);
    fill_image(&f->m, f->img, NMAX, 77);
    labels_of(&f->m, f->lab, NMAX, 3);
}

static void pf_teardown(pf *f) {
    engine_free(f->e);
    free(f->img), free(f->p), free(f->x), free(f->y), free(f->dx), free(f->keep), free(f->vec);
}

/* The pair's counts in this stage's vector: forward at both layers (they
 * must agree), backward at both. */
static void pair_counts(pf *f, int r, int stage, double *fwd, double *bwd) {
    assert_int_equal(engine_checksums(f->e, stage, f->vec), 0);
    const ck_layout *L = &f->L;
    *fwd = f->vec[L->off[r][CK_FWD]];
    assert_true(f->vec[L->off[r + 1][CK_FWD]] == *fwd);
    *bwd = 0;
    if (stage != CK_STAGE_STEP) return;
    *bwd = f->vec[L->off[r][CK_BWD_DATA]];
    assert_true(f->vec[L->off[r + 1][CK_BWD_DATA]] == *bwd);
}

/* Element (sample i, channel c, row a, column b) of an (n, C, H, W) tensor */
static size_t at(size_t C, size_t H, size_t W, size_t i, size_t c, size_t a, size_t b) {
    return ((i * C + c) * H + a) * W + b;
}

/* One element of tensor t set to v: the pair's counts then, and after
 * the original is set back (0, 0). */
static void fault_one(pf *f, int r, tensor_id t, size_t cnt, size_t k, float v, int stage, double want_f,
                      double want_b, const char *what) {
    double cf, cb;
    assert_int_equal(engine_get_tensor(f->e, t, f->keep), 0);
    float old = f->keep[k];
    f->keep[k] = v;
    assert_int_equal(engine_set_tensor(f->e, t, f->keep), 0);
    assert_true(f->e->iface->ck_fused(f->e, r, stage == CK_STAGE_STEP)); /* still judged as one operation */
    pair_counts(f, r, stage, &cf, &cb);
    if (cf != want_f || cb != want_b)
        fprintf(stderr, "%s (%s, pair %d, element %zu: %a -> %a): counted %g forward, %g backward; want %g, %g\n",
                what, f->e->spec.spec, r, k, old, v, cf, cb, want_f, want_b);
    assert_true(cf == want_f && cb == want_b);
    f->keep[k] = old;
    assert_int_equal(engine_set_tensor(f->e, t, f->keep), 0);
    pair_counts(f, r, stage, &cf, &cb);
    assert_true(cf == 0 && cb == 0);
    (void)cnt;
}

static float relu_f(float v) { return v > 0 ? v : 0.0f; }

/* Window (i, c, oi, oj) of pair r: its first maximum after the ReLU
 * (0..3, row-major) and whether the ReLU passes there (x > 0). */
static int argmax_of(const float *x, size_t C, size_t H, size_t W, size_t i, size_t c, size_t oi, size_t oj,
                     int *pass) {
    float best = relu_f(x[at(C, H, W, i, c, 2 * oi, 2 * oj)]);
    int am = 0;
    for (int q = 1; q < 4; q++) {
        float v = relu_f(x[at(C, H, W, i, c, 2 * oi + (size_t)q / 2, 2 * oj + (size_t)q % 2)]);
        if (v > best) best = v, am = q;
    }
    *pass = x[at(C, H, W, i, c, 2 * oi + (size_t)am / 2, 2 * oj + (size_t)am % 2)] > 0;
    return am;
}

static void fused_faults(const char *model_name, const char *spec, int ck_threads) {
    pf f;
    pf_setup(&f, model_name, spec, ck_threads);
    const model *m = &f.m;
    for (int r = 1; r + 1 < m->n_layers; r++) {
        if (m->layers[r].kind != LAYER_RELU || m->layers[r + 1].kind != LAYER_MAXPOOL) continue;
        const layer *q = &m->layers[r + 1];
        size_t n = f.n, C = (size_t)q->in_c, H = (size_t)q->in_h, W = (size_t)q->in_w, OH = (size_t)q->out_h,
               OW = (size_t)q->out_w, cx = n * C * H * W, cy = n * C * OH * OW;
        tensor_id tx = {TENSOR_ACT, r - 1}, ty = {TENSOR_ACT, r + 1}, tdx = {TENSOR_DACT, r - 1};
        double cf, cb;
        for (int stage = CK_STAGE_STEP; stage >= 0; stage = stage == CK_STAGE_STEP ? CK_STAGE_EVAL : -1) {
            if (stage == CK_STAGE_STEP) {
                run_step(f.e, f.img, f.lab, n, 1);
            } else {
                assert_int_equal(engine_set_batch(f.e, f.img, f.lab, n, 9), 0);
                assert_int_equal(engine_forward(f.e, 0), 0);
            }
            assert_true(f.e->iface->ck_fused(f.e, r, stage == CK_STAGE_STEP));
            pair_counts(&f, r, stage, &cf, &cb);
            assert_true(cf == 0 && cb == 0);
            assert_int_equal(engine_get_tensor(f.e, tx, f.x), 0);
            assert_int_equal(engine_get_tensor(f.e, ty, f.y), 0);
            /* the pool's output, last sample, last channel (last block), last window; and a +0 one */
            size_t k = at(C, OH, OW, n - 1, C - 1, OH - 1, OW - 1);
            fault_one(&f, r, ty, cy, k, nextafterf(f.y[k], INFINITY), stage, 1, 0, "pool output one ulp up");
            size_t z = cy;
            while (z > 0 && f.y[z - 1] != 0) z--;
            assert_true(z > 0);
            fault_one(&f, r, ty, cy, z - 1, 0x1p-149f, stage, 1, 0, "pool output +0 -> subnormal");
            if (stage != CK_STAGE_STEP) continue;
            assert_int_equal(engine_get_tensor(f.e, tdx, f.dx), 0);
            /* gradient faults, per kind the last such window of the batch */
            int found[3] = {0, 0, 0};
            for (size_t e = cy; e-- > 0 && !(found[0] && found[1] && found[2]);) {
                size_t oj = e % OW, oi = (e / OW) % OH, c = (e / (OW * OH)) % C, i = e / (OW * OH * C);
                int pass, am = argmax_of(f.x, C, H, W, i, c, oi, oj, &pass);
                size_t ka = at(C, H, W, i, c, 2 * oi + (size_t)am / 2, 2 * oj + (size_t)am % 2);
                size_t kn = at(C, H, W, i, c, 2 * oi + (size_t)(am == 3 ? 2 : 3) / 2, 2 * oj + (size_t)(am == 3 ? 2 : 3) % 2);
                if (pass && !found[0] && f.dx[ka] != 0) {
                    found[0] = 1;
                    fault_one(&f, r, tdx, cx, ka, nextafterf(f.dx[ka], INFINITY), stage, 0, 1, "gradient at a passing arg-max");
                }
                if (!pass && !found[1]) {
                    found[1] = 1;
                    fault_one(&f, r, tdx, cx, ka, 1e-30f, stage, 0, 1, "gradient at an arg-max the ReLU stops");
                }
                if (!found[2]) {
                    found[2] = 1;
                    fault_one(&f, r, tdx, cx, kn, -1e-30f, stage, 0, 1, "gradient at a non-maximum");
                }
            }
            assert_true(found[0] && found[1] && found[2]);
            if (H % 2) fault_one(&f, r, tdx, cx, at(C, H, W, n - 1, C - 1, H - 1, 0), 1e-30f, stage, 0, 1, "odd edge row");
            if (W % 2) fault_one(&f, r, tdx, cx, at(C, H, W, n - 1, C - 1, 0, W - 1), 1e-30f, stage, 0, 1, "odd edge column");
            if (H % 2) fault_one(&f, r, tdx, cx, at(C, H, W, 0, 16, H - 1, W - 1), 1e-30f, stage, 0, 1, "odd edge corner");
        }
    }
    pf_teardown(&f);
}

static void test_fused_faults_convnet(void **s) {
    (void)s;
    fused_faults("mnist-convnet", "cpu", 0);
    fused_faults("mnist-convnet", "cpu:layout=plain", 1);
}


/* FWD_BLANK: conv1's outputs over all-zero windows (image 4 is blank
 * through and through) are exactly the bias in a clean step, counted and
 * judged clean; one of them moved by one ulp is one output counted, a
 * PROBLEM naming conv1 and the blank windows, in nChw16c and plain. */
static void test_blank_window_exact(void **s) {
    (void)s;
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    for (int plain = 0; plain <= 1; plain++) {
        engine *e = mk(&m, plain ? "cpu:layout=plain" : "cpu", 0);
        size_t in = (size_t)m.in_c * m.in_h * m.in_w, n = NMAX;
        float *x = malloc(n * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
        int32_t y[NMAX];
        params_of(&m, p, 0);
        assert_int_equal(engine_set_params(e, p), 0);
        fill_image(&m, x, n, 0);
        labels_of(&m, y, n, 0);
        run_step(e, x, y, n, 1);
        ck_layout L;
        ck_layout_make(&L, &m, n);
        double *v = malloc(L.total * sizeof *v);
        assert_non_null(x), assert_non_null(p), assert_non_null(v);
        vec_of(e, CK_STAGE_STEP, v, 0);
        assert_judged_clean(&m, v, n, y, "blank windows, clean");
        int c1 = 0;
        const double *b4 = v + L.off[c1][CK_FWD_BLANK] + CK_REL * 4;
        assert_true(b4[0] == 0 && b4[2] == (double)m.layers[c1].out_h * m.layers[c1].out_w); /* every window blank */
        size_t no = n * layer_out_size(&m.layers[c1]);
        float *a = malloc(no * sizeof *a);
        assert_non_null(a);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_ACT, c1}, a), 0);
        size_t q = 4 * layer_out_size(&m.layers[c1]) + 3 * (size_t)m.layers[c1].out_h * m.layers[c1].out_w + 100;
        a[q] = nextafterf(a[q], INFINITY);
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, c1}, a), 0);
        vec_of(e, CK_STAGE_STEP, v, 0);
        assert_true(b4[0] == 1);
        ck_verdict vd;
        ck_verdict_init(&vd);
        assert_int_equal(checksums_judge(&m, v, n, y, 0, CK_BLOCKS_ALL, &vd), 0);
        int named = 0;
        for (int k = 0; k < vd.n_viol && k < CK_MAX_VIOL; k++)
            named |= vd.v[k].layer == c1 && strstr(vd.v[k].what, "1 output(s) of all-zero windows") != NULL;
        if (!named && vd.n_viol) fprintf(stderr, "first: %s\n", vd.v[0].what);
        assert_true(named);
        engine_free(e);
        free(x), free(p), free(v), free(a);
    }
}

static void test_fused_faults_smallcnn(void **s) {
    (void)s;
    fused_faults("smallcnn", "cpu:threads=1", 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_convnet),
        cmocka_unit_test(test_clean_convnet_variants),
        cmocka_unit_test(test_clean_convnet_variants2),
        cmocka_unit_test(test_clean_smallcnn),
        cmocka_unit_test(test_clean_custom),
        cmocka_unit_test(test_clean_custom_plain),
        cmocka_unit_test(test_fuse_on_off_same_vector),
        cmocka_unit_test(test_fuse_on_off_custom),
        cmocka_unit_test(test_replay_like_same_vector),
        cmocka_unit_test(test_fused_faults_convnet),
        cmocka_unit_test(test_fused_faults_smallcnn),
        cmocka_unit_test(test_blank_window_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
