/*
 * test_lowp.c — TF32 / bf16 rounding (src/base/lowp.c) against an independent
 * formulation in double arithmetic (the value's quantum, floor, and the
 * tie rule spelled out), exhaustively over whole binades where rounding is
 * delicate (subnormals, the smallest normals, 1.0's binade, the largest
 * finite binade); hand-made cases for ties, the rounding boundary, carries
 * into the next binade and to inf, ±0, ±inf and NaN; bf16 RNE against
 * oneDNN's own f32 -> bf16 reorder; the bound factor of lowp.h on dot
 * products whose error is known to be close to the worst case; and the
 * twins themselves: cpu:tf32=on against reference:tf32=on (and both against
 * a double loop written here), cpu:dtype=bf16 against the exact reference
 * within the bf16 bound, their knobs and describe() keys.
 *
 * Rounding results are compared bit for bit (tolerance 0: rounding is a
 * function with one right answer).  Engine results are compared per
 * element with the bound each assertion names.
 *
 * Not here: the fp32 engines' own checks (test_engine_cpu.c,
 * test_reference.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "engines/engine.h"
#include "engines/registry.h"
#include "base/lowp.h"
#include "model/model.h"
#include "base/util.h"

static float fb(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t bf(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The independent formulation: x finite; p significand bits (11 TF32,
 * 8 bf16).  q is the spacing of p-bit numbers in x's binade (subnormals
 * share the smallest normal binade's spacing: same exponent range as fp32);
 * |x| / q is exact in double (a power-of-two scaling of a float), so its
 * floor and fraction are exact and the tie is fr == 0.5 exactly. */
static float ref_round(float x, int p, lowp_round mode) {
    if (x == 0) return x;
    double a = fabs((double)x);
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int E = e - 1 < -126 ? -126 : e - 1;
    double q = ldexp(1.0, E - (p - 1));
    double r = a / q, fl = floor(r), fr = r - fl, k = fl;
    switch (mode) {
    case LOWP_RZ: break;
    case LOWP_RNA: k = fr >= 0.5 ? fl + 1 : fl; break;
    case LOWP_RNE: k = fr > 0.5 ? fl + 1 : fr < 0.5 ? fl : (fmod(fl, 2) == 0 ? fl : fl + 1); break;
    default: break;
    }
    double res = k * q;
    if (res >= 0x1p128) res = INFINITY; /* rounded past FLT_MAX's binade */
    return (float)copysign(res, (double)x);
}

static void check_one(uint32_t u, int p, lowp_round mode) {
    float x = fb(u);
    float got = p == 11 ? lowp_round_tf32(x, mode) : lowp_round_bf16(x, mode);
    float want = ref_round(x, p, mode);
    if (bf(got) != bf(want)) {
        print_error("p=%d mode=%s x=0x%08x: got 0x%08x, want 0x%08x\n", p, lowp_round_name(mode), u, bf(got),
                    bf(want));
        fail();
    }
}

/* Every significand of the exponent fields 0 (subnormals), 1, 127 (1.0's
 * binade) and 254 (the largest), the sign alternating with the low bit so
 * both signs are covered: 4 * 2^23 values per mode and format. */
static void test_exhaustive_binades(void **state) {
    (void)state;
    static const uint32_t exps[] = {0, 1, 127, 254};
    for (size_t k = 0; k < 4; k++)
        for (uint32_t m = 0; m < (1u << 23); m++) {
            uint32_t u = ((m & 1u) << 31) | (exps[k] << 23) | m;
            for (int mode = 0; mode < LOWP_N; mode++) check_one(u, 11, (lowp_round)mode);
            check_one(u, 8, LOWP_RNE);
        }
}

/* A spread over all finite floats (xorshift, fixed seed). */
static void test_random_all_exponents(void **state) {
    (void)state;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint32_t u = (uint32_t)(s >> 16);
        if ((u & 0x7f800000u) == 0x7f800000u) continue;
        for (int mode = 0; mode < LOWP_N; mode++) {
            check_one(u, 11, (lowp_round)mode);
            check_one(u, 8, (lowp_round)mode);
        }
    }
}

static void expect_tf32(float x, lowp_round mode, float want) {
    float got = lowp_round_tf32(x, mode);
    if (bf(got) != bf(want)) {
        print_error("tf32 %s(%a) = %a (0x%08x), want %a (0x%08x)\n", lowp_round_name(mode), (double)x, (double)got,
                    bf(got), (double)want, bf(want));
        fail();
    }
}

/* Ties and the values on either side of them, written out by hand. */
static void test_ties_and_boundaries(void **state) {
    (void)state;
    const float ulp = 0x1p-10f, half = 0x1p-11f, e = 0x1p-23f; /* at 1.0: tf32 ulp, tie offset, fp32 ulp */
    /* tie between 1 (even) and 1 + ulp */
    expect_tf32(1 + half, LOWP_RNA, 1 + ulp);
    expect_tf32(1 + half, LOWP_RNE, 1);
    expect_tf32(1 + half, LOWP_RZ, 1);
    expect_tf32(-(1 + half), LOWP_RNA, -(1 + ulp));
    expect_tf32(-(1 + half), LOWP_RNE, -1.0f);
    /* tie between 1 + ulp (odd) and 1 + 2 ulp: both nearest modes go up */
    expect_tf32(1 + ulp + half, LOWP_RNA, 1 + 2 * ulp);
    expect_tf32(1 + ulp + half, LOWP_RNE, 1 + 2 * ulp);
    expect_tf32(1 + ulp + half, LOWP_RZ, 1 + ulp);
    /* one fp32 ulp either side of the tie */
    expect_tf32(1 + half - e, LOWP_RNA, 1);
    expect_tf32(1 + half - e, LOWP_RNE, 1);
    expect_tf32(1 + half + e, LOWP_RNE, 1 + ulp);
    expect_tf32(1 + half + e, LOWP_RZ, 1);
    /* already TF32: unchanged in every mode */
    for (int m = 0; m < LOWP_N; m++) expect_tf32(1 + 5 * ulp, (lowp_round)m, 1 + 5 * ulp);
    /* the largest significand of a binade carries into the next */
    expect_tf32(2 - e, LOWP_RNA, 2);
    expect_tf32(2 - e, LOWP_RNE, 2);
    expect_tf32(2 - e, LOWP_RZ, 2 - ulp);
    /* past the largest TF32 value: inf for the nearest modes, not for RZ */
    expect_tf32(FLT_MAX, LOWP_RNA, INFINITY);
    expect_tf32(FLT_MAX, LOWP_RNE, INFINITY);
    expect_tf32(FLT_MAX, LOWP_RZ, fb(0x7f7fe000u));
    expect_tf32(-FLT_MAX, LOWP_RNE, -INFINITY);
    expect_tf32(fb(0x7f7fefffu), LOWP_RNE, fb(0x7f7fe000u)); /* just below that tie */
    expect_tf32(fb(0x7f7ff000u), LOWP_RNE, INFINITY);        /* the tie: 0x7f7fe000 is odd */
}

static void test_subnormals_and_specials(void **state) {
    (void)state;
    /* subnormal half-quantum tie: 0x1000 * 2^-149 between 0 (even) and 0x2000 */
    expect_tf32(fb(0x00001000u), LOWP_RNA, fb(0x00002000u));
    expect_tf32(fb(0x00001000u), LOWP_RNE, 0.0f);
    expect_tf32(fb(0x00003000u), LOWP_RNE, fb(0x00004000u)); /* tie, odd below: up */
    expect_tf32(fb(0x00000001u), LOWP_RNA, 0.0f);            /* the smallest subnormal vanishes */
    expect_tf32(fb(0x80000001u), LOWP_RNA, -0.0f);           /* keeping its sign */
    expect_tf32(fb(0x007fffffu), LOWP_RNE, FLT_MIN);          /* the largest subnormal rounds to a normal */
    expect_tf32(fb(0x007fffffu), LOWP_RZ, fb(0x007fe000u));
    for (int m = 0; m < LOWP_N; m++) {
        expect_tf32(0.0f, (lowp_round)m, 0.0f);
        expect_tf32(-0.0f, (lowp_round)m, -0.0f);
        expect_tf32(INFINITY, (lowp_round)m, INFINITY);
        expect_tf32(-INFINITY, (lowp_round)m, -INFINITY);
        /* NaNs, including signalling ones whose payload lies only in the
         * dropped bits: still NaN (never inf), quiet, sign kept */
        static const uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7f801000u, 0x7fffffffu};
        for (size_t i = 0; i < 5; i++) {
            float r = lowp_round_tf32(fb(nans[i]), (lowp_round)m), r16 = lowp_round_bf16(fb(nans[i]), (lowp_round)m);
            assert_true(isnan(r) && isnan(r16));
            assert_true((bf(r) & 0x00400000u) && (bf(r16) & 0x00400000u));
            assert_int_equal(bf(r) >> 31, nans[i] >> 31);
            assert_int_equal(bf(r) & 0x1fffu, 0);
            assert_int_equal(bf(r16) & 0xffffu, 0);
        }
    }
    /* bf16 ties: 1 + 2^-8 between 1 (even) and 1 + 2^-7 */
    assert_int_equal(bf(lowp_round_bf16(1 + 0x1p-8f, LOWP_RNE)), bf(1.0f));
    assert_int_equal(bf(lowp_round_bf16(1 + 0x1p-7f + 0x1p-8f, LOWP_RNE)), bf(1 + 0x1p-6f));
}

static void test_array_and_names(void **state) {
    (void)state;
    float v[1000], r[1000];
    for (int i = 0; i < 1000; i++) v[i] = (float)sin(i * 0.37) * ldexpf(1.0f, i % 40 - 20);
    lowp_round_tf32_array(r, v, 1000, LOWP_RNA);
    for (int i = 0; i < 1000; i++) assert_int_equal(bf(r[i]), bf(lowp_round_tf32(v[i], LOWP_RNA)));
    lowp_round_tf32_array(v, v, 1000, LOWP_RNA); /* in place */
    assert_memory_equal(v, r, sizeof v);
    lowp_round m;
    assert_int_equal(lowp_round_parse("rne", "tf32round", &m), 0);
    assert_int_equal(m, LOWP_RNE);
    assert_int_equal(lowp_round_parse("nearest", "tf32round", &m), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "tf32round=nearest"));
    assert_string_equal(lowp_round_name(LOWP_RZ), "rz");
    assert_true(lowp_unit_roundoff(11, LOWP_RNA) == 0x1p-11);
    assert_true(lowp_unit_roundoff(11, LOWP_RZ) == 0x1p-10);
    assert_true(lowp_unit_roundoff(8, LOWP_RNE) == LOWP_U_BF16);
}

/* oneDNN's f32 -> bf16 reorder (what cpu:dtype=bf16 runs) gives the same
 * bits as lowp_round_bf16(RNE) on normal values and their ties.  Subnormal
 * inputs are left out: the AVX512_BF16 instruction treats them as zero. */
static void test_bf16_matches_onednn(void **state) {
    (void)state;
    enum { N = 65536 };
    float *src = malloc(N * sizeof *src);
    uint16_t *mid = malloc(N * sizeof *mid);
    assert_non_null(src);
    assert_non_null(mid);
    uint64_t s = 12345;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint32_t u = (uint32_t)(s >> 20);
        uint32_t ex = 1 + (uint32_t)(s % 253); /* normal, finite */
        u = (u & 0x807fffffu) | (ex << 23);
        if (i % 4 == 0) u = (u & 0xffff0000u) | 0x8000u; /* exact ties */
        src[i] = fb(u);
    }
    dnnl_engine_t eng;
    dnnl_stream_t st;
    dnnl_memory_desc_t fmd, bmd;
    dnnl_dims_t d = {N};
    dnnl_memory_t fm, bm;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t r;
    assert_int_equal(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    assert_int_equal(dnnl_stream_create(&st, eng, dnnl_stream_default_flags), dnnl_success);
    assert_int_equal(dnnl_memory_desc_init_by_tag(&fmd, 1, d, dnnl_f32, dnnl_a), dnnl_success);
    assert_int_equal(dnnl_memory_desc_init_by_tag(&bmd, 1, d, dnnl_bf16, dnnl_a), dnnl_success);
    assert_int_equal(dnnl_memory_create(&fm, &fmd, eng, src), dnnl_success);
    assert_int_equal(dnnl_memory_create(&bm, &bmd, eng, mid), dnnl_success);
    assert_int_equal(dnnl_reorder_primitive_desc_create(&pd, &fmd, eng, &bmd, eng, NULL), dnnl_success);
    assert_int_equal(dnnl_primitive_create(&r, pd), dnnl_success);
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, fm}, {DNNL_ARG_TO, bm}};
    assert_int_equal(dnnl_primitive_execute(r, st, 2, a), dnnl_success);
    assert_int_equal(dnnl_stream_wait(st), dnnl_success);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t want = bf(lowp_round_bf16(src[i], LOWP_RNE));
        if (((uint32_t)mid[i] << 16) != want && bad++ < 5)
            print_error("x=0x%08x: oneDNN 0x%04x, lowp 0x%08x\n", bf(src[i]), mid[i], want);
    }
    assert_int_equal(bad, 0);
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(fm);
    dnnl_memory_destroy(bm);
    dnnl_stream_destroy(st);
    dnnl_engine_destroy(eng);
    free(src);
    free(mid);
}

static double gamma_k(size_t k) { return k * 0x1p-24 / (1 - k * 0x1p-24); }

/* The factor's algebra against its definition, and its edge cases. */
static void test_bound_factor_values(void **state) {
    (void)state;
    double u = LOWP_U_TF32, g = gamma_k(289);
    /* (1+u)^2 (1+g) - 1 over g, formed differently; relative 1e-12: both
     * sides are a handful of double operations on values near 1 */
    double want = ((1 + u) * (1 + u) * (1 + g) - 1) / g;
    assert_true(fabs(lowp_bound_factor(289, u) - want) <= 1e-9 * want);
    assert_true(lowp_bound_factor(289, u) > 57 && lowp_bound_factor(289, u) < 58); /* lowp.c's worked number */
    assert_true(lowp_bound_factor(0, u) == 1.0);
    assert_true(isinf(lowp_bound_factor(1u << 24, u)));
    assert_true(lowp_bound_factor(10, u) > lowp_bound_factor(1000, u)); /* the input term weighs less as K grows */
    assert_true(lowp_bound_factor_rounded(289, u) > lowp_bound_factor(289, u) * (1 - 1e-3));
    assert_true(lowp_bound_factor(289, LOWP_U_BF16) > lowp_bound_factor(289, u));
}

/* Dot products built so the input rounding errors all point the same way
 * (a = b = 1 + 2^-10 - 2^-23 toward zero loses almost a whole TF32 ulp, 2u
 * per product): the observed error must stay within the scaled bound and
 * reach most of it (>= 0.9 of the input term), so the bound is neither
 * violated nor vacuous.  And random dot products in TF32 RNA with fp32
 * accumulation in a random order stay within it. */
static void test_bound_factor_holds(void **state) {
    (void)state;
    enum { K = 512 };
    float a[K], b[K];
    for (int i = 0; i < K; i++) a[i] = b[i] = 1 + 0x1p-10f - 0x1p-23f;
    double u = lowp_unit_roundoff(11, LOWP_RZ), S = 0, exact = 0;
    float acc = 0;
    for (int i = 0; i < K; i++) {
        S += fabs((double)a[i] * b[i]);
        exact += (double)a[i] * b[i]; /* exact: K equal products, each exact in double */
        acc += lowp_round_tf32(a[i], LOWP_RZ) * lowp_round_tf32(b[i], LOWP_RZ);
    }
    double err = fabs((double)acc - exact), bound = lowp_bound_factor(K, u) * gamma_k(K) * S;
    assert_true(err <= bound);
    assert_true(err >= 0.9 * (2 * u) * S);
    assert_true(err > gamma_k(K) * S); /* and far outside the fp32 bound */

    uint64_t s = 777;
    double worst = 0;
    for (int t = 0; t < 200; t++) {
        int perm[K];
        for (int i = 0; i < K; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            a[i] = (float)((double)(s >> 11) * 0x1p-53 - 0.5) * ldexpf(1.0f, (int)(s % 9) - 4);
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            b[i] = (float)((double)(s >> 11) * 0x1p-53 - 0.5);
            perm[i] = i;
        }
        for (int i = K - 1; i > 0; i--) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            int j = (int)(s % (uint64_t)(i + 1)), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        /* the double sum of exact double products errs by < K 2^-53 S,
         * ~6e-14 S, far below the ~1e-3 S being checked */
        double ex = 0, Sa = 0, Sr = 0;
        float ac = 0;
        for (int i = 0; i < K; i++) {
            int j = perm[i];
            float ar = lowp_round_tf32(a[j], LOWP_RNA), br = lowp_round_tf32(b[j], LOWP_RNA);
            ex += (double)a[j] * b[j];
            Sa += fabs((double)a[j] * b[j]);
            Sr += fabs((double)ar * br);
            ac += ar * br;
        }
        double e2 = fabs((double)ac - ex);
        assert_true(e2 <= lowp_bound_factor(K, LOWP_U_TF32) * gamma_k(K) * Sa);
        assert_true(e2 <= lowp_bound_factor_rounded(K, LOWP_U_TF32) * gamma_k(K) * Sr);
        if (e2 / Sa > worst) worst = e2 / Sa;
    }
    print_message("random TF32 dot products, K=%d: worst error / sum|ab| = %.3g (fp32 gamma_K %.3g)\n", K, worst,
                  gamma_k(K));
}


/* ---- the twins ---------------------------------------------------------------
 * SmallCNN, batch 8.  conv1 forward runs on the batch itself, so every engine
 * has the same fp32 inputs; fc2's backward is fed the same ACT[relu3] and
 * DACT[fc2] in every engine (set_tensor), the isolated mode's way. */

enum { TB = 8 };

typedef struct {
    model m;
    float *params, *x, *a8, *dy9; /* a8: ACT of relu3 (TB, 64); dy9: DACT of fc2 (TB, 10) */
    int32_t labels[TB];
} twin_fix;

static uint64_t tw_rng = 2024;
static double tw_uniform(void) {
    tw_rng ^= tw_rng << 13, tw_rng ^= tw_rng >> 7, tw_rng ^= tw_rng << 17;
    return (double)(tw_rng >> 11) * 0x1p-53;
}

static int twin_setup(void **state) {
    twin_fix *f = calloc(1, sizeof *f);
    if (!f || model_build(&f->m, "smallcnn")) return -1;
    f->params = malloc(f->m.n_params * sizeof(float));
    f->x = malloc(TB * 784 * sizeof(float));
    f->a8 = malloc(TB * 64 * sizeof(float));
    f->dy9 = malloc(TB * 10 * sizeof(float));
    if (!f->params || !f->x || !f->a8 || !f->dy9) return -1;
    model_init_params(&f->m, f->params, 42);
    /* pixels k/255 as the data loader makes them (most not TF32 numbers),
     * a fifth of them 0 like the background */
    for (int i = 0; i < TB * 784; i++) f->x[i] = tw_uniform() < 0.2 ? 0.0f : (float)(int)(tw_uniform() * 256) / 255.0f;
    for (int i = 0; i < TB * 64; i++) f->a8[i] = tw_uniform() < 0.3 ? 0.0f : (float)tw_uniform();
    for (int i = 0; i < TB * 10; i++) f->dy9[i] = (float)(tw_uniform() - 0.5) / TB;
    for (int i = 0; i < TB; i++) f->labels[i] = i % 10;
    *state = f;
    return 0;
}

static int twin_teardown(void **state) {
    twin_fix *f = *state;
    free(f->params);
    free(f->x);
    free(f->a8);
    free(f->dy9);
    free(f);
    return 0;
}

/* The engine, fed the fixture: params, batch, conv1 forward, and fc2's
 * backward from the fixture's a8 and dy9.  NULL (and *rc) when it cannot be
 * created. */
static engine *twin_run(twin_fix *f, const char *spec, int *rc) {
    engine *e = NULL;
    engine_opts o = {42, TB, 0};
    if ((*rc = engine_create(&e, spec, &f->m, &o))) return NULL;
    int L = f->m.n_layers;
    assert_int_equal(engine_set_params(e, f->params), 0);
    assert_int_equal(engine_set_batch(e, f->x, f->labels, TB, 1), 0);
    assert_int_equal(engine_forward_layer(e, 0, 1), 0);
    assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, L - 2}, f->a8), 0);
    assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_DACT, L - 1}, f->dy9), 0);
    assert_int_equal(engine_backward_layer(e, L - 1), 0);
    return e;
}

/* What the twin tests read back: conv1's ACT, fc2's weight and bias
 * gradients and DACT of relu3, as double. */
typedef struct {
    double act0[TB * 16 * 784], dw[640], db[10], dx[TB * 64];
} twin_out;

static void twin_read(engine *e, const model *m, twin_out *r) {
    size_t np = m->n_params;
    double *g = malloc(np * sizeof *g);
    assert_non_null(g);
    int L = m->n_layers;
    assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_ACT, 0}, r->act0), 0);
    assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_DACT, L - 2}, r->dx), 0);
    assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_GRADS, 0}, g), 0);
    const layer *fc2 = &m->layers[L - 1];
    memcpy(r->dw, g + m->tensors[fc2->w_tensor].offset, 640 * sizeof *g);
    memcpy(r->db, g + m->tensors[fc2->b_tensor].offset, 10 * sizeof *g);
    free(g);
}

/* The same quantities in double from the fixture, with operands passed
 * through rnd (identity, TF32 or bf16 rounding; the bias gradient never
 * rounded), and S = sum |a||b| (of the operands as given to the products)
 * for each, for the bounds.  conv1: K = 9 + 1 (bias); dw: K = TB;
 * db: TB - 1 additions; dx: K = 10.  The double sums err by < K 2^-53 S. */
typedef float (*rnd_fn)(float);
static float r_id(float v) { return v; }
static float r_tf32(float v) { return lowp_round_tf32(v, LOWP_RNA); }
static float r_bf16(float v) { return lowp_round_bf16(v, LOWP_RNE); }

static void twin_expect(const twin_fix *f, rnd_fn rnd, twin_out *v, twin_out *S) {
    const model *m = &f->m;
    const float *w1 = f->params + m->tensors[m->layers[0].w_tensor].offset;
    const float *b1 = f->params + m->tensors[m->layers[0].b_tensor].offset;
    const float *w9 = f->params + m->tensors[m->layers[m->n_layers - 1].w_tensor].offset;
    for (int s = 0; s < TB; s++)
        for (int o = 0; o < 16; o++)
            for (int y = 0; y < 28; y++)
                for (int x = 0; x < 28; x++) {
                    double acc = b1[o], sa = fabs(b1[o]);
                    for (int p = 0; p < 3; p++)
                        for (int q = 0; q < 3; q++) {
                            int iy = y + p - 1, ix = x + q - 1;
                            if (iy < 0 || iy >= 28 || ix < 0 || ix >= 28) continue;
                            double t = (double)rnd(f->x[s * 784 + iy * 28 + ix]) * rnd(w1[o * 9 + p * 3 + q]);
                            acc += t;
                            sa += fabs(t);
                        }
                    size_t i = ((size_t)(s * 16 + o) * 28 + y) * 28 + x;
                    v->act0[i] = acc;
                    S->act0[i] = sa;
                }
    for (int o = 0; o < 10; o++) {
        double acc = 0, sa = 0;
        for (int s = 0; s < TB; s++) {
            acc += f->dy9[s * 10 + o];
            sa += fabs(f->dy9[s * 10 + o]);
        }
        v->db[o] = acc;
        S->db[o] = sa;
        for (int i = 0; i < 64; i++) {
            acc = sa = 0;
            for (int s = 0; s < TB; s++) {
                double t = (double)rnd(f->dy9[s * 10 + o]) * rnd(f->a8[s * 64 + i]);
                acc += t;
                sa += fabs(t);
            }
            v->dw[o * 64 + i] = acc;
            S->dw[o * 64 + i] = sa;
        }
    }
    for (int s = 0; s < TB; s++)
        for (int i = 0; i < 64; i++) {
            double acc = 0, sa = 0;
            for (int o = 0; o < 10; o++) {
                double t = (double)rnd(f->dy9[s * 10 + o]) * rnd(w9[o * 64 + i]);
                acc += t;
                sa += fabs(t);
            }
            v->dx[s * 64 + i] = acc;
            S->dx[s * 64 + i] = sa;
        }
}

/* max over i of |c[i] - r[i]| / (scale * S[i]) (0/0 counts 0, x/0 inf). */
static double worst_ratio(const double *c, const double *r, const double *S, size_t n, double scale) {
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(c[i] - r[i]), b = scale * S[i];
        double q = e == 0 ? 0 : b == 0 ? INFINITY : e / b;
        if (q > w) w = q;
    }
    return w;
}

/* cpu:tf32=on against the ideal TF32 engine: only fp32 accumulation apart,
 * so within gamma_K * S~ (S~ of the TF32 operands); the ideal engine itself
 * within 2^-45 S~ of the double loop (its one rounding at 128 bits, plus
 * the loop's own K 2^-53); and beyond the fp32 bound of the unrounded
 * products somewhere (or the rounding did not happen). */
static void test_cpu_tf32_twin(void **state) {
    twin_fix *f = *state;
    int rc;
    static twin_out c, r, v, S, v0, S0;
    engine *ec = twin_run(f, "cpu:threads=1:tf32=on", &rc), *er = twin_run(f, "reference:threads=1:tf32=on", &rc);
    assert_non_null(ec);
    assert_non_null(er);
    twin_read(ec, &f->m, &c);
    twin_read(er, &f->m, &r);
    twin_expect(f, r_tf32, &v, &S);
    twin_expect(f, r_id, &v0, &S0);
    const size_t na = TB * 16 * 784;
    double g10 = 10 * 0x1p-24 / (1 - 10 * 0x1p-24), gtb = TB * 0x1p-24 / (1 - TB * 0x1p-24);
    assert_true(worst_ratio(r.act0, v.act0, S.act0, na, 0x1p-45) <= 1);
    assert_true(worst_ratio(r.dw, v.dw, S.dw, 640, 0x1p-45) <= 1);
    assert_true(worst_ratio(r.db, v.db, S.db, 10, 0x1p-45) <= 1); /* from the unrounded dy */
    assert_true(worst_ratio(r.dx, v.dx, S.dx, TB * 64, 0x1p-45) <= 1);
    double q[4] = {worst_ratio(c.act0, r.act0, S.act0, na, g10), worst_ratio(c.dw, r.dw, S.dw, 640, gtb),
                   worst_ratio(c.db, r.db, S.db, 10, gtb), worst_ratio(c.dx, r.dx, S.dx, TB * 64, g10)};
    print_message("cpu:tf32=on vs reference:tf32=on, ratio to gamma_K S~: conv1 %.3g, fc2.dw %.3g, fc2.db %.3g, "
                  "relu3.dact %.3g\n", q[0], q[1], q[2], q[3]);
    for (int i = 0; i < 4; i++) assert_true(q[i] <= 1);
    /* the rounding happened: conv1 and fc2.dw beyond the fp32 bound of
     * the unrounded operands, the bias gradient not (fp32 sum of dy) */
    assert_true(worst_ratio(c.act0, v0.act0, S0.act0, na, g10) > 10);
    assert_true(worst_ratio(c.dw, v0.dw, S0.dw, 640, gtb) > 10);
    assert_true(worst_ratio(c.db, v0.db, S0.db, 10, gtb) <= 1);
    /* master weights and the activation fc2 read are left as they were */
    float *p = malloc(f->m.n_params * sizeof *p), a8[TB * 64];
    assert_non_null(p);
    assert_int_equal(engine_get_tensor(ec, (tensor_id){TENSOR_PARAMS, 0}, p), 0);
    assert_memory_equal(p, f->params, f->m.n_params * sizeof *p);
    assert_int_equal(engine_get_tensor(ec, (tensor_id){TENSOR_ACT, f->m.n_layers - 2}, a8), 0);
    assert_memory_equal(a8, f->a8, sizeof a8);
    free(p);
    char *d = engine_describe(ec);
    assert_non_null(d);
    assert_non_null(strstr(d, "\"tf32\":\"on\""));
    assert_non_null(strstr(d, "\"tf32round\":\"rna\""));
    free(d);
    d = engine_describe(er);
    assert_non_null(strstr(d, "\"tf32\": \"on\""));
    free(d);
    engine_free(ec);
    engine_free(er);
}

/* cpu:dtype=bf16 against the exact fp32 reference: within the bf16 bound
 * lowp_bound_factor(K, 2^-8) * gamma_K * S (S of the unrounded operands;
 * the bias gradient is a sum of bf16 dy: K - 1 additions), beyond the fp32
 * bound somewhere, and within gamma_K S~ + 2^-45 S~ of the double loop on
 * RNE-rounded operands (oneDNN's conversion, test_bf16_matches_onednn). */
static void test_cpu_bf16_twin(void **state) {
    twin_fix *f = *state;
    int rc;
    static twin_out c, r, vb, Sb;
    engine *ec = twin_run(f, "cpu:threads=1:dtype=bf16", &rc);
    if (!ec) {
        assert_int_equal(rc, LS_EUNAVAIL);
        assert_non_null(strstr(ls_errmsg(), "cpu:dtype=bf16: unavailable ("));
        skip(); /* no avx512_bf16 on this CPU: the engine says so, as it must */
    }
    engine *er = twin_run(f, "reference:threads=1", &rc);
    assert_non_null(er);
    twin_read(ec, &f->m, &c);
    twin_read(er, &f->m, &r);
    static twin_out v0, S0;
    twin_expect(f, r_id, &v0, &S0);
    twin_expect(f, r_bf16, &vb, &Sb);
    const size_t na = TB * 16 * 784;
    double u = LOWP_U_BF16, g10 = 10 * 0x1p-24 / (1 - 10 * 0x1p-24), gtb = TB * 0x1p-24 / (1 - TB * 0x1p-24),
           gtb1 = (TB - 1) * 0x1p-24 / (1 - (TB - 1) * 0x1p-24);
    double q[4] = {worst_ratio(c.act0, r.act0, S0.act0, na, lowp_bound_factor(10, u) * g10),
                   worst_ratio(c.dw, r.dw, S0.dw, 640, lowp_bound_factor(TB, u) * gtb),
                   worst_ratio(c.db, r.db, S0.db, 10, lowp_bound_factor(TB - 1, u) * gtb1),
                   worst_ratio(c.dx, r.dx, S0.dx, TB * 64, lowp_bound_factor(10, u) * g10)};
    print_message("cpu:dtype=bf16 vs reference, ratio to the bf16 bound: conv1 %.3g, fc2.dw %.3g, fc2.db %.3g, "
                  "relu3.dact %.3g\n", q[0], q[1], q[2], q[3]);
    for (int i = 0; i < 4; i++) assert_true(q[i] <= 1);
    assert_true(worst_ratio(c.act0, r.act0, S0.act0, na, g10) > 10);
    assert_true(worst_ratio(c.act0, vb.act0, Sb.act0, na, g10 + 0x1p-45) <= 1);
    assert_true(worst_ratio(c.dx, vb.dx, Sb.dx, TB * 64, g10 + 0x1p-45) <= 1);
    float *p = malloc(f->m.n_params * sizeof *p);
    assert_non_null(p);
    assert_int_equal(engine_get_tensor(ec, (tensor_id){TENSOR_PARAMS, 0}, p), 0);
    assert_memory_equal(p, f->params, f->m.n_params * sizeof *p); /* fp32 master weights untouched */
    free(p);
    char *d = engine_describe(ec);
    assert_non_null(strstr(d, "\"dtype\":\"bf16\""));
    assert_non_null(strstr(d, "bf16")); /* the kernels' names */
    free(d);
    engine_free(ec);
    engine_free(er);
}

static void test_twin_knobs(void **state) {
    twin_fix *f = *state;
    engine *e = NULL;
    engine_opts o = {42, TB, 0};
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"cpu:tf32round=rne", "tf32round=rne needs tf32=on"},
        {"cpu:tf32=yes", "unknown value 'yes' for knob tf32"},
        {"cpu:tf32=on:tf32round=up", "unknown value 'up' for knob tf32round (known: rna, rne, rz)"},
        {"cpu:tf32=on:dtype=bf16", "exclude each other"},
        {"cpu:dtype=f16", "unknown value 'f16' for knob dtype"},
        {"reference:tf32=1", "engine reference:tf32=1: unknown value '1' for knob tf32 (known: off, on)"},
        {"reference:tf32round=rz", "needs tf32=on"},
        {"reference:tf32=on:tf32round=up",
         "engine reference:tf32=on:tf32round=up: unknown value 'up' for knob tf32round (known: rna, rne, rz)"},
    };
    for (size_t i = 0; i < LS_ARRAY_LEN(bad); i++) {
        assert_int_equal(engine_create(&e, bad[i].spec, &f->m, &o), LS_EINVAL);
        if (!strstr(ls_errmsg(), bad[i].msg)) fail_msg("%s: '%s' lacks '%s'", bad[i].spec, ls_errmsg(), bad[i].msg);
    }
    assert_int_equal(engine_create(&e, "cpu:threads=1:tf32=on:tf32round=rz", &f->m, &o), 0);
    char *d = engine_describe(e);
    assert_non_null(strstr(d, "\"tf32round\":\"rz\""));
    free(d);
    engine_free(e);
    assert_int_equal(engine_create(&e, "cpu:threads=1", &f->m, &o), 0);
    d = engine_describe(e);
    assert_non_null(strstr(d, "\"tf32\":\"off\",\"dtype\":\"f32\""));
    free(d);
    engine_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties_and_boundaries),
        cmocka_unit_test(test_subnormals_and_specials),
        cmocka_unit_test(test_array_and_names),
        cmocka_unit_test(test_exhaustive_binades),
        cmocka_unit_test(test_random_all_exponents),
        cmocka_unit_test(test_bf16_matches_onednn),
        cmocka_unit_test(test_bound_factor_values),
        cmocka_unit_test(test_bound_factor_holds),
        cmocka_unit_test_setup_teardown(test_cpu_tf32_twin, twin_setup, twin_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_bf16_twin, twin_setup, twin_teardown),
        cmocka_unit_test_setup_teardown(test_twin_knobs, twin_setup, twin_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
