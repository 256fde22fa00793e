/*
 * test_compare.c — the metrics and bounds of src/checks/compare.c on constructed
 * cases whose answers are known exactly: ULP distances built bit by bit,
 * errors that are powers of two, NaN/Inf/signed-zero/subnormal corner
 * cases, worst indices and ties, the bound ratio on real fp32 dot products
 * (<= 1) and on a TF32-like computation (>> 1), and every bound helper
 * against an independent naive loop.
 *
 * Most assertions are exact: the values are chosen so that every double
 * operation in the metric is exact (powers of two, small integers).  Where
 * not, the tolerance is stated next to the assertion.
 *
 * Not here: golden-file policies (test_golden.c), engines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/compare.h"
#include "base/util.h"

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* A small deterministic generator for test data (not the project's Philox:
 * these tests must not depend on it). */
static uint64_t g_lcg = 88172645463325252ull;
static double rnd01(void) {
    g_lcg ^= g_lcg << 13;
    g_lcg ^= g_lcg >> 7;
    g_lcg ^= g_lcg << 17;
    return (double)(g_lcg >> 11) * 0x1p-53;
}
static float rnd_sym(void) { return (float)(2 * rnd01() - 1); }

/* ---- basic metrics ------------------------------------------------------ */

static void test_identical(void **state) {
    float a[5] = {1, -2, 0, 3.5f, 1e-40f};
    compare_stats s;
    compare_f32(&s, a, a, 5, NULL);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.n_equal, 5);
    assert_true(s.frac_equal == 1.0);
    assert_int_equal(s.ulp_hist[0], 5);
    assert_true(s.max_abs == 0 && s.max_ulp == 0 && s.nmse == 0 && s.rel_l2 == 0);
    assert_int_equal(s.first_diff_index, 5); /* n: no difference */
    assert_int_equal(s.has_bound, 0);
}

static void test_known_errors(void **state) {
    /* ref {1, 2, 3, 4}; cand: index 1 three ULPs up, index 3 eight ULPs down.
     * ULP in [2,4) is 2^-22, so the errors are 3*2^-22 and 8*2^-22 = 2^-19,
     * all exact in double. */
    float ref[4] = {1, 2, 3, 4};
    float cand[4] = {1, from_bits(to_bits(2.0f) + 3), 3, from_bits(to_bits(4.0f) - 8)};
    compare_stats s;
    compare_f32(&s, ref, cand, 4, NULL);
    assert_true(s.max_ulp == 8);
    /* distances {0, 3, 0, 8}: nearest rank ceil(0.5*4) = 2 -> 0, ceil(0.99*4) = 4 -> 8, both exact */
    assert_true(s.p50_ulp == 0 && s.p99_ulp == 8);
    assert_false(s.p50_ulp_bound || s.p99_ulp_bound);
    assert_true(s.max_abs == 0x1p-19);
    /* the headline: 2^-19 / max|ref| 4 = 2^-21; in ULPs of 4 (2^-21): 4 */
    assert_true(s.max_abs_ref == 4 && s.rel_to_max == 0x1p-21 && s.scale_ulp == 4);
    assert_true(s.max_rel == 0x1p-21); /* 2^-19 / 4 */
    assert_int_equal(s.worst_abs_index, 3);
    assert_int_equal(s.worst_ulp_index, 3);
    assert_int_equal(s.first_diff_index, 1);
    assert_int_equal(s.n_equal, 2);
    assert_true(s.frac_equal == 0.5);
    /* histogram: exact bins below 64 */
    uint64_t want[COMPARE_ULP_BINS] = {[0] = 2, [3] = 1, [8] = 1};
    assert_memory_equal(s.ulp_hist, want, sizeof want);
}

static void test_histogram_edges(void **state) {
    /* distances 1, 2, 63, 64, 127, 128, 2^23 built from +0 (bits 0), and
     * FLT_MAX vs -FLT_MAX: 2 * 0x7f7fffff = 0xfefffffe >= 2^31, the top
     * binade's bin 64 + 31 - 6 = 89.  Exact bins up to 63, then [64,127] is
     * bin 64, [128,255] bin 65, [2^23, 2^24) bin 64 + 23 - 6 = 81. */
    uint32_t d[7] = {1, 2, 63, 64, 127, 128, 1u << 23};
    int bucket[7] = {1, 2, 63, 64, 64, 65, 81};
    float ref[8], cand[8];
    for (int i = 0; i < 7; i++) {
        ref[i] = 0.0f;
        cand[i] = from_bits(d[i]);
    }
    ref[7] = -FLT_MAX;
    cand[7] = FLT_MAX;
    compare_stats s;
    compare_f32(&s, ref, cand, 8, NULL);
    uint64_t want[COMPARE_ULP_BINS] = {0};
    for (int i = 0; i < 7; i++) want[bucket[i]]++;
    want[89]++;
    assert_memory_equal(s.ulp_hist, want, sizeof want);
    assert_true(s.max_ulp == (double)0xfefffffeu);
    assert_int_equal(s.worst_ulp_index, 7);
    assert_true(isinf(s.max_abs) == 0 && s.max_abs == 2.0 * FLT_MAX);
    /* 8 distances, nearest rank 4 -> 64, in the bin [64,127]: "<= 128";
     * rank 8 -> the top binade, whose upper end 2^32 is above the exact
     * max: the max it is (still a bound: the bin holds [2^31, max]) */
    assert_true(s.p50_ulp == 128 && s.p50_ulp_bound);
    assert_true(s.p99_ulp == (double)0xfefffffeu && s.p99_ulp_bound);
    uint64_t lo, hi;
    compare_ulp_bin_range(64, &lo, &hi);
    assert_true(lo == 64 && hi == 127);
    compare_ulp_bin_range(89, &lo, &hi);
    assert_true(lo == 1ull << 31 && hi == 0xffffffffull);
    compare_ulp_bin_range(63, &lo, &hi);
    assert_true(lo == 63 && hi == 63);
}

/* Ordinal distance across zero and from a zero reference: the "4e40 ULP"
 * of a real-valued ULP at a ~0 reference becomes a count of floats. */
static void test_ordinal_distance(void **state) {
    /* -2^-149 (bits 0x80000001) to +2^-149: over -0/+0 (one point), 2 steps */
    assert_true(compare_ulp_f32(-0x1p-149f, 0x1p-149f) == 2);
    assert_true(compare_ulp_f32(-0.0f, 0.0f) == 0);
    /* 0 to 1.0f: every float in [0, 1): 0x3f800000 of them */
    assert_true(compare_ulp_f32(0.0f, 1.0f) == (double)0x3f800000u);
    assert_true(compare_ulp_f64(1e-42, 1.0f) == (double)(0x3f800000u - to_bits((float)1e-42)));
    assert_true(compare_ulp_f64(0.0, -1.0f) == (double)0x3f800000u);
    /* FLT_MAX to inf is one step on the line, but a non-finite mismatch */
    assert_true(isinf(compare_ulp_f32(FLT_MAX, INFINITY)));
    /* a finite double reference beyond FLT_MAX against an inf candidate: a
     * non-finite mismatch (the reference is finite), whatever its rounding */
    assert_true(isinf(compare_ulp_f64(1e39, INFINITY)));

    double ref[2] = {1e-42, 2.0};
    float cand[2] = {1e-7f, 2.0f};
    compare_stats s;
    compare_f64(&s, ref, cand, 2, NULL);
    assert_true(s.max_ulp < 0x1p32 && s.max_ulp == (double)(to_bits(1e-7f) - to_bits((float)1e-42)));
    assert_int_equal(s.worst_ulp_index, 0);
    /* the headline stays readable: 1e-7 against a scale of 2 */
    assert_true(fabs(s.rel_to_max - ((double)1e-7f - 1e-42) / 2) <= 1e-16 * s.rel_to_max); /* one rounding each */
    assert_true(s.scale_ulp == ((double)1e-7f - 1e-42) / 0x1p-22);                          /* ULP of [2,4): 2^-22 */
    assert_int_equal(s.n_ref_zero_cand_nonzero, 0); /* 1e-42 rounds to a subnormal, not to 0 */
}

/* Percentiles from the histogram: exact below 64, the binade's upper end
 * above, never above the exact maximum. */
static void test_percentiles(void **state) {
    enum { N = 100 };
    float ref[N], cand[N];
    for (int i = 0; i < N; i++) ref[i] = 1.0f;
    /* 97 at 5 ULPs, 2 at 600 (bin [512,1023]), 1 at 5000 */
    for (int i = 0; i < N; i++) cand[i] = from_bits(to_bits(1.0f) + (i < 97 ? 5 : i < 99 ? 600 : 5000));
    compare_stats s;
    compare_f32(&s, ref, cand, N, NULL);
    assert_true(s.p50_ulp == 5 && !s.p50_ulp_bound);
    assert_true(s.p99_ulp == 1024 && s.p99_ulp_bound); /* rank 99 lies in [512,1023]: "<= 2^10" */
    assert_true(s.max_ulp == 5000);
    char buf[32];
    assert_string_equal(compare_ulp_pct_str(buf, sizeof buf, s.p99_ulp, s.p99_ulp_bound), "<= 2^10");
    assert_string_equal(compare_ulp_pct_str(buf, sizeof buf, s.p50_ulp, s.p50_ulp_bound), "5");
    /* every distance 1000: rank 50 in [512,1023], capped by the max */
    for (int i = 0; i < N; i++) cand[i] = from_bits(to_bits(1.0f) + 1000);
    compare_f32(&s, ref, cand, N, NULL);
    assert_true(s.p50_ulp == 1000 && s.p50_ulp_bound && s.max_ulp == 1000);
    assert_string_equal(compare_ulp_pct_str(buf, sizeof buf, s.p50_ulp, s.p50_ulp_bound), "<= 1000");
    /* one element: both percentiles are it */
    compare_f32(&s, ref, cand, 1, NULL);
    assert_true(s.p50_ulp == 1000 && s.p99_ulp == 1000);
    /* no finite pair: 0, exact */
    float nan = NAN;
    compare_f32(&s, &nan, &nan, 1, NULL);
    assert_true(s.p50_ulp == 0 && !s.p50_ulp_bound && s.max_ulp == 0);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Percentiles and max against sorted distances, on random data that
 * spreads over the exact and the binade bins (double reference). */
static void test_percentiles_vs_sorted(void **state) {
    enum { N = 5000 };
    static double ref[N];
    static float cand[N];
    static uint32_t d[N];
    for (int i = 0; i < N; i++) {
        ref[i] = rnd_sym() * 10;
        /* steps 0..~2^20 with a heavy head: k = floor(2^(20 u^3)) - 1 */
        double u = rnd01();
        int k = (int)ldexp(1.0, (int)(20 * u * u * u)) - 1;
        cand[i] = from_bits(to_bits((float)ref[i]) + (uint32_t)k); /* away from zero: k steps */
        d[i] = (uint32_t)k;
    }
    compare_stats s;
    compare_f64(&s, ref, cand, N, NULL);
    qsort(d, N, sizeof d[0], cmp_u32);
    double want50 = d[(N + 1) / 2 - 1], want99 = d[(99 * N + 99) / 100 - 1]; /* nearest rank */
    assert_true(s.max_ulp == d[N - 1]);
    double got[2] = {s.p50_ulp, s.p99_ulp}, want[2] = {want50, want99};
    int bnd[2] = {s.p50_ulp_bound, s.p99_ulp_bound};
    for (int q = 0; q < 2; q++) {
        if (want[q] < 64) {
            assert_true(got[q] == want[q] && !bnd[q]);
        } else {
            /* a bound: above the true value, below twice it, never above the max */
            assert_true(bnd[q] && got[q] >= want[q] && got[q] <= 2 * want[q] && got[q] <= s.max_ulp);
        }
    }
    assert_true(want50 < 64 && want99 >= 64); /* both branches ran */
}

/* zero vs non-zero counts, and the scale fields over the bitwise-equal
 * fast path (elements after the first difference). */
static void test_zero_counts_and_scale(void **state) {
    float ref[7] = {0.0f, 0.0f, 1, 2, -0.0f, 3, -1000};
    float cand[7] = {1e-30f, -0.0f, 0.0f, 2, 0.0f, -0.0f, -1000};
    compare_stats s;
    compare_f32(&s, ref, cand, 7, NULL);
    assert_int_equal(s.n_ref_zero_cand_nonzero, 1); /* index 0 */
    assert_int_equal(s.n_ref_nonzero_cand_zero, 2); /* 2 and 5 */
    assert_int_equal(s.n_zero_sign, 2);             /* 1 and 4 */
    assert_true(s.max_abs_ref == 1000);             /* index 6, bitwise equal, on the fast path */
    assert_true(s.max_abs == 3 && s.rel_to_max == 3.0 / 1000);
    /* double reference: zero-ness of its fp32 rounding (1e-50 rounds to 0) */
    double dref[3] = {1e-50, 1e-50, 0.5};
    float dc[3] = {0.0f, 0x1p-149f, 0.0f};
    compare_f64(&s, dref, dc, 3, NULL);
    assert_int_equal(s.n_ref_zero_cand_nonzero, 1);
    assert_int_equal(s.n_ref_nonzero_cand_zero, 1);
    assert_int_equal(s.n_equal, 1);
    /* all-zero reference: any error is infinitely large relative to it */
    float z[2] = {0, 0}, c[2] = {0, 1e-30f};
    compare_f32(&s, z, c, 2, NULL);
    assert_true(isinf(s.rel_to_max) && s.max_abs_ref == 0);
    compare_f32(&s, z, z, 2, NULL);
    assert_true(s.rel_to_max == 0 && s.scale_ulp == 0);
}

/* The worst element for people: coordinates and both values. */
static void test_element_strings(void **state) {
    lsbuf b;
    lsbuf_init(&b);
    size_t shape[4] = {256, 16, 28, 28};
    size_t idx = ((3 * 16 + 12) * 28 + 5) * 28 + 7;
    compare_coords_str(&b, idx, 4, shape, compare_dim_names(4, 0));
    assert_string_equal(b.s, "[n=3 c=12 h=5 w=7]");
    b.len = 0;
    b.s[0] = 0;
    compare_coords_str(&b, idx, 4, shape, NULL);
    assert_string_equal(b.s, "[3,12,5,7]");
    b.len = 0;
    b.s[0] = 0;
    size_t wshape[2] = {64, 1568};
    compare_coords_str(&b, 2 * 1568 + 100, 2, wshape, compare_dim_names(2, 1));
    assert_string_equal(b.s, "[out=2 in=100]");
    b.len = 0;
    b.s[0] = 0;
    compare_coords_str(&b, 64 * 1568, 2, wshape, compare_dim_names(2, 1)); /* outside: flat */
    assert_string_equal(b.s, "[100352]");
    b.len = 0;
    b.s[0] = 0;
    compare_pair_str(&b, "ref", 1.0, 1, "cand", from_bits(0x3f800001u));
    assert_string_equal(b.s, "ref 1 (0x3f800000), cand 1.00000012 (0x3f800001), 1 ULP");
    b.len = 0;
    b.s[0] = 0;
    compare_pair_str(&b, "ref", 0.1, 0, "cand", NAN);
    assert_non_null(strstr(b.s, "ref 0.10000000000000001, cand nan"));
    assert_non_null(strstr(b.s, "NaN/Inf mismatch"));
    assert_false(b.failed);
    lsbuf_free(&b);
    assert_null(compare_dim_names(5, 0));
}

static void test_nan_inf(void **state) {
    float nan = NAN, inf = INFINITY;
    float ref[7] = {nan, inf, 1, 2, -inf, nan, 5};
    float cand[7] = {nan, inf, nan, inf, inf, 3, 5.5f};
    compare_stats s;
    compare_f32(&s, ref, cand, 7, NULL);
    assert_int_equal(s.ref_nan, 2);
    assert_int_equal(s.ref_inf, 2);
    assert_int_equal(s.cand_nan, 2);
    assert_int_equal(s.cand_inf, 3);
    /* agree: 0 (NaN/NaN), 1 (inf/inf); mismatch: 2, 3, 4 (-inf vs inf), 5 */
    assert_int_equal(s.n_nonfinite_mismatch, 4);
    assert_int_equal(s.first_nonfinite_mismatch, 2);
    assert_int_equal(s.ulp_hist[COMPARE_BIN_NONFINITE], 4);
    assert_int_equal(s.ulp_hist[0], 0); /* the agreeing non-finite pairs are in no bin */
    assert_int_equal(s.n_equal, 2);
    assert_int_equal(s.first_diff_index, 2);
    /* the error metrics cover only the one finite pair, 5 vs 5.5 */
    assert_int_equal(s.n_finite, 1);
    assert_true(s.max_abs == 0.5);
    assert_true(s.max_rel == 0.1);  /* 0.5 / 5: one correctly rounded division on both sides */
    assert_int_equal(s.worst_abs_index, 6);
    assert_true(s.max_ulp == 0x1p20); /* 0.5 / (ULP of [4,8), 2^-21) whole steps */
    assert_true(!isnan(s.nmse) && !isnan(s.p50_ulp));

    /* the same through a double reference */
    double dref[7];
    for (int i = 0; i < 7; i++) dref[i] = ref[i];
    compare_stats t;
    compare_f64(&t, dref, cand, 7, NULL);
    assert_int_equal(t.n_nonfinite_mismatch, 4);
    assert_int_equal(t.n_equal, 2);
    assert_true(t.max_ulp == 0x1p20);
    assert_true(isinf(compare_ulp_f64(1.0, NAN)) && compare_ulp_f64(NAN, NAN) == 0);
    assert_true(isinf(compare_ulp_f32(INFINITY, -INFINITY)) && compare_ulp_f32(-INFINITY, -INFINITY) == 0);
}

static void test_signed_zeros(void **state) {
    float ref[3] = {0.0f, -0.0f, 0.0f};
    float cand[3] = {-0.0f, -0.0f, 0.0f};
    compare_stats s;
    compare_f32(&s, ref, cand, 3, NULL);
    assert_int_equal(s.n_equal, 2);      /* +0 vs -0 is not bitwise equal ... */
    assert_int_equal(s.n_zero_sign, 1);  /* ... but counted here */
    assert_int_equal(s.ulp_hist[0], 3);  /* and 0 ULPs apart */
    assert_int_equal(s.first_diff_index, 0);
    assert_true(s.max_abs == 0 && s.max_ulp == 0);
    assert_true(s.nmse == 0); /* 0/0 reads as 0 */
}

static void test_subnormals(void **state) {
    /* fp32: smallest subnormal vs twice it (1 step); FLT_MIN vs the largest
     * subnormal (1 step across the normal/subnormal border) */
    float ref[2] = {0x1p-149f, FLT_MIN};
    float cand[2] = {0x1p-148f, from_bits(to_bits(FLT_MIN) - 1)};
    compare_stats s;
    compare_f32(&s, ref, cand, 2, NULL);
    assert_true(s.max_ulp == 1);
    assert_int_equal(s.ulp_hist[1], 2);
    assert_true(s.max_abs == 0x1p-149);

    /* double reference 2^-150 rounds (tie to even) to +0 in fp32: a candidate
     * of 0 is "bitwise equal" and 0.5 subnormal ULPs away; 3*2^-150 rounds to
     * 2^-148 (tie to even): candidate 2^-149 is 1 step from it, 0.5 ULP away */
    double dref[2] = {0x1p-150, 3 * 0x1p-150};
    float dc[2] = {0.0f, 0x1p-149f};
    compare_f64(&s, dref, dc, 2, NULL);
    assert_int_equal(s.n_equal, 1);
    assert_int_equal(s.ulp_hist[0], 1);
    assert_int_equal(s.ulp_hist[1], 1);
    assert_true(s.max_ulp == 1);
    /* both errors are 2^-150, against max|ref| 3*2^-150 (ULP 2^-149): half a ULP of scale */
    assert_true(s.max_abs == 0x1p-150 && s.scale_ulp == 0.5);
    assert_true(compare_ulp_of(0.0) == 0x1p-149 && compare_ulp_of(1e-40) == 0x1p-149);
    assert_true(compare_ulp_of(0x1p-126) == 0x1p-149 && compare_ulp_of(0x1p-125) == 0x1p-148);
    assert_true(compare_ulp_f64(0.0, 0x1p-149f) == 1.0);
    assert_true(compare_ulp_f64(0x1p-150, 0x1p-149f) == 1.0); /* 2^-150 rounds to 0 (tie to even) */
}

static void test_double_reference_subulp(void **state) {
    /* ref 1 + 2^-26: fp32 1.0 is its rounding (bitwise equal, 0 steps);
     * 1 + 2^-23 is one step from that rounding, 7/8 ULP away from the exact value.
     * ref 2 - 2^-30 sits in [1,2) (ULP 2^-23) and rounds to 2.0f: 0 steps.
     * The sub-ULP resolution is in scale_ulp: max|diff| 7*2^-26 in ULPs of
     * max|ref| = 2 - 2^-30 (binade [1,2), ULP 2^-23) = 7/8. */
    double ref[3] = {1 + 0x1p-26, 1 + 0x1p-26, 2 - 0x1p-30};
    float cand[3] = {1.0f, 1.0f + 0x1p-23f, 2.0f};
    compare_stats s;
    compare_f64(&s, ref, cand, 3, NULL);
    assert_int_equal(s.n_equal, 2);
    assert_int_equal(s.ulp_hist[0], 2);
    assert_int_equal(s.ulp_hist[1], 1);
    assert_true(s.max_ulp == 1);
    assert_int_equal(s.worst_ulp_index, 1);
    assert_true(s.max_abs == 0x1p-23 - 0x1p-26);
    assert_true(s.scale_ulp == 0.875);
    assert_true(s.p50_ulp == 0 && s.p99_ulp == 1);
}

static void test_norms_and_ties(void **state) {
    /* ref {3, 4}, cand {3, 4.5}: sum err^2 = 0.25, sum ref^2 = 25 */
    float ref[4] = {3, 4, -1, -1};
    float cand[4] = {3, 4.5f, -1.5f, -1};
    compare_stats s;
    compare_f32(&s, ref, cand, 2, NULL);
    assert_true(s.nmse == 0.25 / 25); /* the same single correctly rounded division */
    assert_true(s.rel_l2 == sqrt(0.25 / 25));
    /* ties: index 1 and 2 both have |err| 0.5: the first wins */
    compare_f32(&s, ref, cand, 4, NULL);
    assert_int_equal(s.worst_abs_index, 1);
    assert_true(s.max_rel == 0.5); /* 0.5 / 1 at index 2 */

    /* zero reference: excluded from max_rel, seen by max_abs; nmse x/0 = inf */
    float z[2] = {0, 0}, c[2] = {0, 1e-30f};
    compare_f32(&s, z, c, 2, NULL);
    assert_true(s.max_rel == 0);
    assert_true(s.max_abs == (double)1e-30f);
    assert_true(isinf(s.nmse));

    /* n == 0 */
    compare_f32(&s, z, c, 0, NULL);
    assert_true(s.frac_equal == 1.0 && s.max_abs == 0);
    assert_int_equal(s.worst_abs_index, 0);
}

/* ---- bounds ------------------------------------------------------------- */

static void test_gamma(void **state) {
    double u = 0x1p-24;
    assert_true(compare_gamma(0) == 0);
    assert_true(compare_gamma(1) == u / (1 - u));
    assert_true(compare_gamma(144) == 144 * u / (1 - 144 * u));
    assert_true(isinf(compare_gamma((size_t)1 << 24)));
}

/* fp32 dot products summed left to right (what a naive fp32 engine does),
 * against a double reference: the bound must hold, ratio <= 1. */
static void test_bound_ratio_fp32_dot(void **state) {
    enum { N = 200, K = 1000 };
    float *a = malloc(sizeof(float) * N * K), *b = malloc(sizeof(float) * K);
    float cand[N];
    double ref[N], bound[N];
    for (int j = 0; j < K; j++) b[j] = rnd_sym();
    for (int i = 0; i < N; i++) {
        float acc = 0;
        double exact = 0;
        for (int j = 0; j < K; j++) {
            a[i * K + j] = rnd_sym();
            acc = acc + a[i * K + j] * b[j];
            /* products exact in double; the double sum's own error is < K 2^-53
             * relative to sum|ab|, 2^-29 of the fp32 bound: negligible */
            exact += (double)a[i * K + j] * (double)b[j];
        }
        cand[i] = acc;
        ref[i] = exact;
        bound[i] = compare_bound_dot(a + i * K, b, K);
    }
    compare_stats s;
    compare_f64(&s, ref, cand, N, bound);
    assert_int_equal(s.has_bound, 1);
    assert_int_equal(s.n_over_bound, 0);
    assert_true(s.max_bound_ratio <= 1.0);
    /* and the test is not empty: fp32 summation did make errors */
    assert_true(s.max_abs > 0 && s.max_bound_ratio > 0);
    free(a);
    free(b);
}

/* Keep 11 significant bits (TF32's 10 stored + 1), round to nearest. */
static float to_tf32(float x) {
    uint32_t u = to_bits(x);
    u = (u + 0x1000u) & ~0x1fffu;
    return from_bits(u);
}

/* A TF32-like dot (inputs rounded to 11 bits, as tensor cores do): relative
 * error ~2^-11 per input, far above gamma_16 ~ 2^-20: ratios >> 1. */
static void test_bound_ratio_tf32(void **state) {
    enum { N = 64, K = 16 };
    float a[N * K], b[K], cand[N];
    double ref[N], bound[N];
    for (int j = 0; j < K; j++) b[j] = (float)(0.5 + rnd01()); /* positive: no cancellation */
    for (int i = 0; i < N; i++) {
        float acc = 0;
        double exact = 0;
        for (int j = 0; j < K; j++) {
            a[i * K + j] = (float)(0.5 + rnd01());
            acc = acc + to_tf32(a[i * K + j]) * to_tf32(b[j]);
            exact += (double)a[i * K + j] * (double)b[j];
        }
        cand[i] = acc;
        ref[i] = exact;
        bound[i] = compare_bound_dot(a + i * K, b, K);
    }
    compare_stats s;
    compare_f64(&s, ref, cand, N, bound);
    /* expected ratio ~ 2^-12 / gamma_16 ~ 2^-12 / 2^-20 = 256 (random-walk
     * errors make it smaller, rarely below 1/8 of that): 16 is far from
     * both 1 and the typical value */
    assert_true(s.max_bound_ratio > 16);
    assert_true(s.n_over_bound > N / 2);
    assert_true(s.mean_bound_ratio > 1);
}

static void test_bound_zero(void **state) {
    /* bound 0 (an exact operation, e.g. ReLU): no error -> ratio 0, any error -> inf */
    float ref[3] = {1, 2, 3}, cand[3] = {1, 2, from_bits(to_bits(3.0f) + 1)};
    double bound[3] = {0, 0, 0};
    compare_stats s;
    compare_f32(&s, ref, cand, 2, bound);
    assert_true(s.max_bound_ratio == 0 && s.n_over_bound == 0);
    compare_f32(&s, ref, cand, 3, bound);
    assert_true(isinf(s.max_bound_ratio));
    assert_int_equal(s.n_over_bound, 1);
    assert_int_equal(s.worst_bound_index, 2);
}

/* conv fwd on all ones, by hand: 3x3 input, 2 channels, 3x3 kernel, pad 1,
 * bias -0.5: sums are 2*4+0.5 (corners), 2*6+0.5 (edges), 2*9+0.5 (centre);
 * K = 2*9 + 1. */
static void test_bound_conv_by_hand(void **state) {
    float x[18], w[18], bias[1] = {-0.5f};
    for (int i = 0; i < 18; i++) x[i] = w[i] = 1;
    double bound[9];
    compare_bound_conv_fwd(bound, x, w, bias, 1, 2, 3, 3, 1, 3, 1);
    double g = compare_gamma(19);
    double want[9] = {8.5, 12.5, 8.5, 12.5, 18.5, 12.5, 8.5, 12.5, 8.5};
    for (int i = 0; i < 9; i++) assert_true(bound[i] == g * want[i]);
    /* backward-weights for the top-left tap, dy all ones on the 3x3 output:
     * the tap sees input rows/cols 0..1 only: 4 products, K = n*oh*ow = 9 */
    double bdw[18], bdb[1];
    compare_bound_conv_bwd_weights(bdw, bdb, x, x, 1, 2, 3, 3, 1, 3, 1);
    assert_true(bdw[0] == compare_gamma(9) * 4);
    assert_true(bdw[4] == compare_gamma(9) * 9); /* centre tap sees all 9 */
    assert_true(bdb[0] == compare_gamma(8) * 9); /* plain sum of 9 terms: gamma_8 */
}

/* Naive bound loops written the obvious way (bounds-checked taps), used to
 * check the helpers' indexing on asymmetric data.  Both sum positive terms
 * in double; the orders may differ, so they agree to K * 2^-53 relative:
 * 1e-12 is far above that (K <= 2^11 here) and far below any indexing error
 * (whole terms of relative size >= 1e-4). */
static double naive_conv_fwd(const float *x, const float *w, const float *b, int c, int h, int wd, int k, int pad,
                             int ni, int o, int y, int xo) {
    double s = b ? fabs(b[o]) : 0;
    for (int i = 0; i < c; i++)
        for (int p = 0; p < k; p++)
            for (int q = 0; q < k; q++) {
                int iy = y + p - pad, ix = xo + q - pad;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                s += fabs((double)w[((o * c + i) * k + p) * k + q] * x[((ni * c + i) * h + iy) * wd + ix]);
            }
    return s;
}

static void assert_close(double got, double want) {
    if (!(fabs(got - want) <= 1e-12 * fabs(want))) fail_msg("bound %.17g, naive %.17g", got, want);
}

/* compare_bound_conv_fwd adds each element's terms in the order i, p, q
 * and gives the bits of the plain sum that skips the padding (naive_conv_fwd
 * above), whatever the shape, with zeros, infinities, NaN and values
 * over many binades in x, w and b: its register form reads a zero-padded
 * |x| (a finite weight times a pad adds +0, which changes no sum) and a
 * channel with a non-finite weight takes the tap-skipping form.  NaN is
 * compared as NaN: its sign depends on the order of a commutative add's
 * operands, which the bound does not fix. */
static float rnd_wide(int special) {
    double u = rnd01();
    if (special && u < 0.02) {
        static const float sp[] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 0x1p-149f, 3.4e38f};
        return sp[(int)(rnd01() * 7) % 7];
    }
    if (u < 0.15) return 0.0f;
    return ldexpf(rnd_sym(), (int)(rnd01() * 40) - 20);
}

static void test_bound_conv_fwd_bitwise(void **state) {
    (void)state;
    long compared = 0;
    for (int it = 0; it < 300; it++) {
        int n = 1 + (int)(rnd01() * 3), c = 1 + (int)(rnd01() * 4), h = 1 + (int)(rnd01() * 11),
            wd = 1 + (int)(rnd01() * 11), oc = 1 + (int)(rnd01() * 4), k = 1 + (int)(rnd01() * 5) % 5,
            pad = (int)(rnd01() * 3) % 3;
        if (h + 2 * pad < k || wd + 2 * pad < k) continue;
        int oh = h + 2 * pad - k + 1, ow = wd + 2 * pad - k + 1, special = it % 3 == 0;
        float *x = malloc(sizeof *x * n * c * h * wd), *w = malloc(sizeof *w * oc * c * k * k), b[4];
        double *bf = malloc(sizeof *bf * n * oc * oh * ow);
        assert_true(x && w && bf);
        for (int i = 0; i < n * c * h * wd; i++) x[i] = rnd_wide(special);
        for (int i = 0; i < oc * c * k * k; i++) w[i] = rnd_wide(special);
        for (int i = 0; i < oc; i++) b[i] = rnd_wide(special);
        for (int wb = 0; wb < 2; wb++) {
            compare_bound_conv_fwd(bf, x, w, wb ? b : NULL, n, c, h, wd, oc, k, pad);
            double g = compare_gamma((size_t)c * k * k + (size_t)wb);
            for (int ni = 0; ni < n; ni++)
                for (int o = 0; o < oc; o++)
                    for (int y = 0; y < oh; y++)
                        for (int xo = 0; xo < ow; xo++) {
                            double got = bf[((ni * oc + o) * oh + y) * ow + xo],
                                   want = g * naive_conv_fwd(x, w, wb ? b : NULL, c, h, wd, k, pad, ni, o, y, xo);
                            if (!(isnan(got) && isnan(want)) && memcmp(&got, &want, sizeof got) != 0)
                                fail_msg("case %d (n %d c %d %dx%d oc %d k %d pad %d, bias %d) at (%d,%d,%d,%d): "
                                         "%a, the plain sum %a", it, n, c, h, wd, oc, k, pad, wb, ni, o, y, xo, got,
                                         want);
                            compared++;
                        }
        }
        free(x);
        free(w);
        free(bf);
    }
    assert_true(compared > 10000);
}

static void test_bound_conv_vs_naive(void **state) {
    const int n = 2, c = 3, h = 5, wd = 4, oc = 2;
    int cases[3][2] = {{3, 1}, {3, 0}, {2, 1}}; /* (k, pad) */
    for (int cs = 0; cs < 3; cs++) {
        int k = cases[cs][0], pad = cases[cs][1];
        int oh = h + 2 * pad - k + 1, ow = wd + 2 * pad - k + 1;
        float x[2 * 3 * 5 * 4], w[2 * 3 * 3 * 3], b[2], dy[2 * 2 * 6 * 5];
        for (size_t i = 0; i < LS_ARRAY_LEN(x); i++) x[i] = rnd_sym();
        for (size_t i = 0; i < LS_ARRAY_LEN(w); i++) w[i] = rnd_sym();
        for (size_t i = 0; i < LS_ARRAY_LEN(dy); i++) dy[i] = rnd_sym();
        b[0] = 0.25f;
        b[1] = -0.75f;
        double bf[2 * 2 * 6 * 5], bd[2 * 3 * 5 * 4], bw[2 * 3 * 3 * 3], bb[2];
        compare_bound_conv_fwd(bf, x, w, b, n, c, h, wd, oc, k, pad);
        compare_bound_conv_bwd_data(bd, dy, w, n, c, h, wd, oc, k, pad);
        compare_bound_conv_bwd_weights(bw, bb, x, dy, n, c, h, wd, oc, k, pad);
        double gf = compare_gamma(c * k * k + 1), gd = compare_gamma(oc * k * k), gw = compare_gamma(n * oh * ow);
        for (int ni = 0; ni < n; ni++)
            for (int o = 0; o < oc; o++)
                for (int y = 0; y < oh; y++)
                    for (int xo = 0; xo < ow; xo++)
                        assert_close(bf[((ni * oc + o) * oh + y) * ow + xo],
                                     gf * naive_conv_fwd(x, w, b, c, h, wd, k, pad, ni, o, y, xo));
        /* backward-data: dx[n,i,yy,xx] = sum_{o,p,q} w[o,i,p,q] dy[n,o,yy-p+pad,xx-q+pad] */
        for (int ni = 0; ni < n; ni++)
            for (int i = 0; i < c; i++)
                for (int yy = 0; yy < h; yy++)
                    for (int xx = 0; xx < wd; xx++) {
                        double s = 0;
                        for (int o = 0; o < oc; o++)
                            for (int p = 0; p < k; p++)
                                for (int q = 0; q < k; q++) {
                                    int y = yy - p + pad, xo = xx - q + pad;
                                    if (y < 0 || y >= oh || xo < 0 || xo >= ow) continue;
                                    s += fabs((double)w[((o * c + i) * k + p) * k + q] *
                                              dy[((ni * oc + o) * oh + y) * ow + xo]);
                                }
                        assert_close(bd[((ni * c + i) * h + yy) * wd + xx], gd * s);
                    }
        /* backward-weights and bias */
        for (int o = 0; o < oc; o++) {
            double sb = 0;
            for (int ni = 0; ni < n; ni++)
                for (int j = 0; j < oh * ow; j++) sb += fabs(dy[(ni * oc + o) * oh * ow + j]);
            assert_close(bb[o], compare_gamma(n * oh * ow - 1) * sb);
            for (int i = 0; i < c; i++)
                for (int p = 0; p < k; p++)
                    for (int q = 0; q < k; q++) {
                        double s = 0;
                        for (int ni = 0; ni < n; ni++)
                            for (int y = 0; y < oh; y++)
                                for (int xo = 0; xo < ow; xo++) {
                                    int iy = y + p - pad, ix = xo + q - pad;
                                    if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                                    s += fabs((double)dy[((ni * oc + o) * oh + y) * ow + xo] *
                                              x[((ni * c + i) * h + iy) * wd + ix]);
                                }
                        assert_close(bw[((o * c + i) * k + p) * k + q], gw * s);
                    }
        }
    }
}

static void test_bound_dense_vs_naive(void **state) {
    enum { n = 3, in = 7, out = 5 };
    float x[n * in], w[out * in], b[out], dy[n * out];
    for (int i = 0; i < n * in; i++) x[i] = rnd_sym();
    for (int i = 0; i < out * in; i++) w[i] = rnd_sym();
    for (int i = 0; i < out; i++) b[i] = rnd_sym();
    for (int i = 0; i < n * out; i++) dy[i] = rnd_sym();
    double bf[n * out], bf0[n * out], bd[n * in], bw[out * in], bb[out];
    compare_bound_dense_fwd(bf, x, w, b, n, in, out);
    compare_bound_dense_fwd(bf0, x, w, NULL, n, in, out);
    compare_bound_dense_bwd_data(bd, dy, w, n, in, out);
    compare_bound_dense_bwd_weights(bw, bb, x, dy, n, in, out);
    for (int ni = 0; ni < n; ni++)
        for (int o = 0; o < out; o++) {
            double s = 0;
            for (int i = 0; i < in; i++) s += fabs((double)w[o * in + i] * x[ni * in + i]);
            assert_close(bf0[ni * out + o], compare_gamma(in) * s);
            assert_close(bf[ni * out + o], compare_gamma(in + 1) * (s + fabs(b[o])));
        }
    for (int ni = 0; ni < n; ni++)
        for (int i = 0; i < in; i++) {
            double s = 0;
            for (int o = 0; o < out; o++) s += fabs((double)w[o * in + i] * dy[ni * out + o]);
            assert_close(bd[ni * in + i], compare_gamma(out) * s);
        }
    for (int o = 0; o < out; o++) {
        double sb = 0;
        for (int ni = 0; ni < n; ni++) sb += fabs(dy[ni * out + o]);
        assert_close(bb[o], compare_gamma(n - 1) * sb);
        for (int i = 0; i < in; i++) {
            double s = 0;
            for (int ni = 0; ni < n; ni++) s += fabs((double)dy[ni * out + o] * x[ni * in + i]);
            assert_close(bw[o * in + i], compare_gamma(n) * s);
        }
    }
}

/* An fp32 convolution computed naively (one order) must sit inside the
 * bound of its double reference: the helper's K and indexing are right. */
static void test_bound_holds_for_fp32_conv(void **state) {
    enum { n = 2, c = 4, h = 6, wd = 6, oc = 3, k = 3, pad = 1, oh = 6, ow = 6 };
    float x[n * c * h * wd], w[oc * c * k * k], b[oc], y[n * oc * oh * ow];
    double ref[n * oc * oh * ow], bound[n * oc * oh * ow];
    for (int i = 0; i < n * c * h * wd; i++) x[i] = rnd_sym();
    for (int i = 0; i < oc * c * k * k; i++) w[i] = rnd_sym();
    for (int i = 0; i < oc; i++) b[i] = rnd_sym();
    for (int ni = 0; ni < n; ni++)
        for (int o = 0; o < oc; o++)
            for (int yy = 0; yy < oh; yy++)
                for (int xx = 0; xx < ow; xx++) {
                    float acc = b[o];
                    double e = b[o];
                    for (int i = 0; i < c; i++)
                        for (int p = 0; p < k; p++)
                            for (int q = 0; q < k; q++) {
                                int iy = yy + p - pad, ix = xx + q - pad;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                                float wv = w[((o * c + i) * k + p) * k + q], xv = x[((ni * c + i) * h + iy) * wd + ix];
                                acc = acc + wv * xv;
                                e += (double)wv * xv; /* exact products; double sum error negligible (see above) */
                            }
                    y[((ni * oc + o) * oh + yy) * ow + xx] = acc;
                    ref[((ni * oc + o) * oh + yy) * ow + xx] = e;
                }
    compare_bound_conv_fwd(bound, x, w, b, n, c, h, wd, oc, k, pad);
    compare_stats s;
    compare_f64(&s, ref, y, n * oc * oh * ow, bound);
    assert_int_equal(s.n_over_bound, 0);
    assert_true(s.max_bound_ratio <= 1 && s.max_bound_ratio > 0);
}

/* The bounds do not depend on the thread count (each element is one
 * thread's sum, in an order fixed by the shapes): bitwise equal. */
static void test_bound_thread_independent(void **state) {
    enum { n = 4, c = 3, h = 7, wd = 5, oc = 5, k = 3, pad = 1 };
    float x[n * c * h * wd], w[oc * c * k * k], b[oc], dy[n * oc * h * wd];
    for (int i = 0; i < n * c * h * wd; i++) x[i] = rnd_sym();
    for (int i = 0; i < oc * c * k * k; i++) w[i] = rnd_sym();
    for (int i = 0; i < oc; i++) b[i] = rnd_sym();
    for (int i = 0; i < n * oc * h * wd; i++) dy[i] = rnd_sym();
    static double r[2][3][n * oc * h * wd];
    int saved = omp_get_max_threads();
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        compare_bound_conv_fwd(r[t][0], x, w, b, n, c, h, wd, oc, k, pad);
        compare_bound_conv_bwd_data(r[t][1], dy, w, n, c, h, wd, oc, k, pad);
        compare_bound_conv_bwd_weights(r[t][2], r[t][2] + oc * c * k * k, x, dy, n, c, h, wd, oc, k, pad);
    }
    omp_set_num_threads(saved);
    assert_memory_equal(r[0], r[1], sizeof r[0]);
}

/* ---- JSON ----------------------------------------------------------------- */

/* compare_f32's blocks (vectorized passes over 64 finite elements, sums in
 * index order) against the plain element loop: the same stats to the bit,
 * on random vectors with every kind of element: equal, a few ULPs off,
 * sign flips, zeros of both signs, subnormals, far-off values, NaN and
 * infinities scattered (their blocks take the plain path), bounds that are
 * positive, 0, negative, NaN or infinite; blocks all equal, none equal and
 * mixed; lengths that leave a partial block. */
static uint64_t g_rx = 0x2545f4914f6cdd1dull;
static uint64_t rx(void) {
    g_rx ^= g_rx << 13;
    g_rx ^= g_rx >> 7;
    g_rx ^= g_rx << 17;
    return g_rx;
}

static void expect_same_stats(const compare_stats *x, const compare_stats *y) {
    lsbuf a, b;
    lsbuf_init(&a);
    lsbuf_init(&b);
    compare_stats_json(&a, x);
    compare_stats_json(&b, y);
    assert_string_equal(a.s, b.s);
    lsbuf_free(&a);
    lsbuf_free(&b);
    const double dx[] = {x->max_abs, x->max_abs_ref, x->max_rel, x->nmse, x->max_bound_ratio, x->mean_bound_ratio};
    const double dy[] = {y->max_abs, y->max_abs_ref, y->max_rel, y->nmse, y->max_bound_ratio, y->mean_bound_ratio};
    assert_memory_equal(dx, dy, sizeof dx);
    assert_memory_equal(x->ulp_hist, y->ulp_hist, sizeof x->ulp_hist);
}

static void test_blocks_match_plain_loop(void **state) {
    (void)state;
    enum { N = 3000 };
    static float r[N], c[N];
    static double b[N];
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f};
    for (int t = 0; t < 600; t++) {
        size_t n = rx() % N;
        int mode = (int)(rx() % 5);
        double p_special = rx() % 3 == 0 ? 0.002 : 0.0, p_same = (double)(rx() % 4) / 2.0 - 0.5;
        for (size_t i = 0; i < n; i++) {
            float v = (float)((double)(rx() % 2000000) / 1000.0 - 1000.0);
            if (mode == 1) v *= 1e-40f; /* subnormal */
            if (mode == 2 && rx() % 2) v = 0.0f;
            if ((double)(rx() % 100000) / 1e5 < p_special) v = special[rx() % 9];
            uint32_t u;
            memcpy(&u, &v, 4);
            float w = v;
            if ((double)(rx() % 1000) / 1000.0 >= p_same) {
                int k = (int)(rx() % 7) - 3;
                if (p_same < 0 && k == 0) k = 2; /* a block with no equal element */
                if (mode == 3) k *= 100000;
                u += (uint32_t)k;
                memcpy(&w, &u, 4);
                if (rx() % 50 == 0) w = -w;
                if (rx() % 200 == 0) w = 0.0f;
            }
            if ((double)(rx() % 100000) / 1e5 < p_special) w = special[rx() % 9];
            r[i] = v;
            c[i] = w;
            double bb = fabs((double)v) * 1e-6 * (double)(rx() % 4);
            if (rx() % 20 == 0) bb = 0;
            if (rx() % 500 == 0) bb = -1;
            if (rx() % 700 == 0) bb = NAN;
            if (mode == 4 && rx() % 3 == 0) bb = INFINITY;
            b[i] = bb;
        }
        for (int wb = 0; wb < 2; wb++) {
            compare_stats x, y;
            compare_f32(&x, r, c, n, wb ? b : NULL);
            compare_f32_plain(&y, r, c, n, wb ? b : NULL);
            expect_same_stats(&x, &y);
        }
    }
}

static void test_json(void **state) {
    float ref[4] = {1, 2, 3, 4};
    float cand[4] = {1, from_bits(to_bits(2.0f) + 3), 3, from_bits(to_bits(4.0f) - 8)};
    double bound[4] = {1, 1, 1, 0};
    compare_stats s;
    compare_f32(&s, ref, cand, 4, bound);
    lsbuf b;
    lsbuf_init(&b);
    compare_stats_json(&b, &s);
    assert_false(b.failed);
    assert_non_null(strstr(b.s, "\"n\":4,"));
    assert_non_null(strstr(b.s, "\"max_ulp\":8,"));
    assert_non_null(strstr(b.s, "\"p50_ulp\":0,\"p50_ulp_bound\":false,\"p99_ulp\":8,\"p99_ulp_bound\":false,"));
    assert_non_null(strstr(b.s, "\"ulp_hist\":[[0,0,2],[3,3,1],[8,8,1]],"));
    assert_non_null(strstr(b.s, "\"max_abs_ref\":4,"));
    assert_non_null(strstr(b.s, "\"scale_ulp\":4,"));
    assert_non_null(strstr(b.s, "\"ref_zero_cand_nonzero\":0,\"ref_nonzero_cand_zero\":0,"));
    assert_non_null(strstr(b.s, "\"worst_ulp_index\":3,"));
    assert_non_null(strstr(b.s, "\"bound\":{\"max_ratio\":\"inf\""));
    assert_non_null(strstr(b.s, "\"n_over\":1}"));
    assert_null(strchr(b.s, '\n'));
    assert_true(b.s[0] == '{' && b.s[b.len - 1] == '}');
    lsbuf_free(&b);
}

/* A non-finite candidate against a finite reference is over any finite
 * bound (no rounding within fp32's range makes a finite value Inf or
 * NaN), except an infinity of the reference's sign where the reference
 * is within its bound of fp32's overflow threshold 2^128 (1 - 2^-25): an
 * fp32 computation within the bound may overflow there.  An infinite
 * bound judges nothing. */
static void test_nonfinite_against_bound(void **st) {
    (void)st;
    const double ref[6] = {3.39e38, 1e30, 3.39e38, 1.0, -3.4e38, 3.39e38};
    const float cand[6] = {INFINITY, INFINITY, -INFINITY, NAN, -INFINITY, INFINITY};
    const double bound[6] = {1e37, 1e29, 1e37, 0.5, 0.0, INFINITY};
    compare_stats s;
    compare_f64(&s, ref, cand, 6, bound);
    assert_int_equal(s.n_nonfinite_mismatch, 6);
    /* over: 1e30 -> inf, 3.39e38 -> -inf, 1 -> NaN, -3.4e38 -> -inf with
     * bound 0 (3.4e38 < 2^128 (1 - 2^-25) = 3.40282357e38); not: 3.39e38
     * + 1e37 reaches the threshold, and the infinite bound */
    assert_int_equal(s.n_over_bound, 4);
    assert_true(isinf(s.max_bound_ratio));
    const double at[1] = {0x1p128 * (1 - 0x1p-25)};
    const float inf1[1] = {INFINITY};
    const double zero[1] = {0};
    compare_f64(&s, at, inf1, 1, zero); /* exactly rounded: overflows */
    assert_int_equal(s.n_over_bound, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),           cmocka_unit_test(test_known_errors),
        cmocka_unit_test(test_histogram_edges),     cmocka_unit_test(test_nan_inf),
        cmocka_unit_test(test_ordinal_distance),    cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_percentiles_vs_sorted),
        cmocka_unit_test(test_zero_counts_and_scale), cmocka_unit_test(test_element_strings),
        cmocka_unit_test(test_signed_zeros),        cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_double_reference_subulp), cmocka_unit_test(test_norms_and_ties),
        cmocka_unit_test(test_gamma),               cmocka_unit_test(test_bound_ratio_fp32_dot),
        cmocka_unit_test(test_bound_ratio_tf32),    cmocka_unit_test(test_bound_zero),
        cmocka_unit_test(test_bound_conv_by_hand),  cmocka_unit_test(test_bound_conv_vs_naive),
        cmocka_unit_test(test_bound_conv_fwd_bitwise),
        cmocka_unit_test(test_bound_dense_vs_naive), cmocka_unit_test(test_bound_holds_for_fp32_conv),
        cmocka_unit_test(test_bound_thread_independent),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_blocks_match_plain_loop),
        cmocka_unit_test(test_nonfinite_against_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
