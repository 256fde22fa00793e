/*
 * test_lowp.c — TF32 / bf16 rounding (src/lowp.c) against an independent
 * formulation in double arithmetic (the value's quantum, floor, and the
 * tie rule spelled out), exhaustively over whole binades where rounding is
 * delicate (subnormals, the smallest normals, 1.0's binade, the largest
 * finite binade); hand-made cases for ties, the rounding boundary, carries
 * into the next binade and to inf, ±0, ±inf and NaN; bf16 RNE against
 * oneDNN's own f32 -> bf16 reorder; and the bound factor of lowp.h on dot
 * products whose error is known to be close to the worst case.
 *
 * Rounding results are compared bit for bit (tolerance 0: rounding is a
 * function with one right answer).
 *
 * Not here: the engines' use of the rounding (test_engine_cpu.c,
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

#include "lowp.h"
#include "util.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
