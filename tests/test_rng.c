/*
 * test_rng.c — Philox4x32-10 and what lockstep builds on it (src/base/rng.h,
 * src/base/rng.c): the published Random123 known answers, the uniform float and
 * integer draws, the per-epoch shuffle, the dropout keep rate.
 *
 * Statistical checks run on fixed seeds, so each is deterministic; the
 * bounds are chosen so that a correct generator would fail them with
 * probability below 1e-5 (stated at each), while a biased one (a wrong
 * shift, an off-by-one in the range, a stream mix-up) fails them outright.
 *
 * Not here: the CUDA side of the same functions (it is tested where the
 * CUDA engine is, against these same values).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

/* ---- known answers ------------------------------------------------------ */

/*
 * From Random123's tests/kat_vectors (D. E. Shaw Research), the "philox4x32"
 * lines: counter[4] key[2] -> output[4].  Checked against the file itself
 * (the copy found through the search tool, corpus code), not recalled.
 * The 7-round lines pin the key schedule independently of the round count.
 */
typedef struct {
    int rounds;
    uint32_t ctr[4], key[2], out[4];
} kat;

static const kat kats[] = {
    {7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
    {7,
     {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
    {7,
     {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
    {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {10,
     {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {10,
     {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

static void test_philox_kat(void **state) {
    for (size_t t = 0; t < sizeof kats / sizeof kats[0]; t++) {
        philox_ctr c;
        philox_key k;
        memcpy(c.v, kats[t].ctr, sizeof c.v);
        memcpy(k.v, kats[t].key, sizeof k.v);
        philox_ctr o = philox4x32_r(c, k, kats[t].rounds);
        for (int i = 0; i < 4; i++) {
            if (o.v[i] != kats[t].out[i])
                print_error("vector %zu (R=%d) word %d: got %08x, want %08x\n", t, kats[t].rounds, i, o.v[i],
                            kats[t].out[i]);
            assert_int_equal(o.v[i], kats[t].out[i]);
        }
        if (kats[t].rounds == 10) {
            philox_ctr o10 = philox4x32_10(c, k);
            assert_memory_equal(o10.v, kats[t].out, sizeof o10.v);
        }
    }
}

/* The key is the seed split low word first; rng_u32 is output word 0 for
 * counter {a, b, c, stream}.  The expected value comes from an independent
 * Python implementation of Philox4x32-10 (itself checked on the vectors above). */
static void test_key_and_u32(void **state) {
    philox_key k = rng_key(0x123456789abcdef0ull);
    assert_int_equal(k.v[0], 0x9abcdef0u);
    assert_int_equal(k.v[1], 0x12345678u);
    assert_int_equal(rng_u32(42, 1, 2, 3, RNG_STREAM_INIT), 0x5f882b34u);
    philox_ctr c = {{1, 2, 3, RNG_STREAM_INIT}};
    assert_int_equal(rng_u32(42, 1, 2, 3, RNG_STREAM_INIT), philox4x32_10(c, rng_key(42)).v[0]);
    /* the streams are apart: same (a, b, c), different stream word */
    assert_int_not_equal(rng_u32(42, 1, 2, 3, RNG_STREAM_INIT), rng_u32(42, 1, 2, 3, RNG_STREAM_DROPOUT));
}

/* ---- uniform floats ----------------------------------------------------- */

static void test_uniform(void **state) {
    const uint32_t n = 1u << 20;
    double sum = 0;
    float lo = 1, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        float u = rng_uniform(7, i, 5, 0, RNG_STREAM_INIT);
        uint32_t k = rng_u32(7, i, 5, 0, RNG_STREAM_INIT) >> 8;
        /* exactness: u is k * 2^-24 bit for bit (k < 2^24 is exact in fp32,
         * and scaling by a power of two is exact) */
        float want = ldexpf((float)k, -24);
        if (memcmp(&u, &want, sizeof u) != 0) fail_msg("draw %u: %a != %a", i, u, want);
        if (u < lo) lo = u;
        if (u > hi) hi = u;
        sum += u;
    }
    assert_true(lo >= 0.0f);
    assert_true(hi < 1.0f);
    /* the extreme k: 0 -> 0, 2^24 - 1 -> 1 - 2^-24, never 1 */
    assert_true((float)(0xffffffffu >> 8) * (1.0f / 16777216.0f) == 1.0f - ldexpf(1.0f, -24));
    assert_true((float)(0u >> 8) * (1.0f / 16777216.0f) == 0.0f);
    /* mean of n uniforms: expectation (1 - 2^-24)/2, standard deviation
     * sqrt(1/(12 n)) = 2.8e-4 for n = 2^20; 6 sd = 1.7e-3 (false-failure
     * probability ~2e-9).  The double sum of 2^20 terms is exact to ~1e-10. */
    double mean = sum / n, sd = sqrt(1.0 / (12.0 * n));
    assert_true(fabs(mean - 0.5) < 6 * sd);
    /* 2^20 draws span [0,1): min below 1e-5 and max above 1 - 1e-5 with
     * probability 1 - 2 * (1 - 1e-5)^(2^20) ~ 1 - 6e-5 */
    assert_true(lo < 1e-5f);
    assert_true(hi > 1.0f - 1e-5f);
}

/* ---- uniform integers --------------------------------------------------- */

static void test_below_exact(void **state) {
    /* rng_below is floor(x * n / 2^64) for the 64-bit x = word0:word1;
     * checked against a 128-bit product for ranges small to maximal. */
    static const uint32_t ns[] = {1, 2, 3, 10, 1000, 60000, 0x80000001u, 0xffffffffu};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
        for (uint32_t i = 0; i < 20000; i++) {
            uint32_t r = rng_below(99, i, 3, RNG_STREAM_SHUFFLE, ns[t]);
            philox_ctr c = {{i, 3, 0, RNG_STREAM_SHUFFLE}};
            philox_ctr o = philox4x32_10(c, rng_key(99));
            unsigned __int128 x = ((unsigned __int128)o.v[0] << 32) | o.v[1];
            uint32_t want = (uint32_t)((x * ns[t]) >> 64);
            if (r != want) fail_msg("n=%u i=%u: %u != %u", ns[t], i, r, want);
            assert_true(r < ns[t]);
        }
}

static void test_below_uniform(void **state) {
    /* 100,000 draws in [0, 10): chi-square with 9 degrees of freedom; the
     * bound 40 is exceeded by a uniform generator with probability ~7e-6. */
    const uint32_t n = 100000;
    double cnt[10] = {0};
    for (uint32_t i = 0; i < n; i++) cnt[rng_below(5, i, 0, RNG_STREAM_SHUFFLE, 10)]++;
    double chi2 = 0, e = n / 10.0;
    for (int k = 0; k < 10; k++) chi2 += (cnt[k] - e) * (cnt[k] - e) / e;
    print_message("rng_below(10): chi2 = %.2f (9 dof, bound 40)\n", chi2);
    assert_true(chi2 < 40.0);
}

/* ---- shuffle ------------------------------------------------------------ */

static int is_permutation(const uint32_t *p, uint32_t n) {
    uint8_t *seen = calloc(n ? n : 1, 1);
    assert_non_null(seen);
    int ok = 1;
    for (uint32_t i = 0; i < n && ok; i++) {
        if (p[i] >= n || seen[p[i]]) ok = 0;
        else seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

/* The draw order is part of every run's identity: these permutations were
 * computed by an independent Python implementation of the order documented
 * in src/base/rng.c (Philox from the algorithm, checked on the known answers,
 * j = (x * (i+1)) >> 64 in exact integers, i from n-1 down to 1).  A change
 * in the order, the counter layout or the stream breaks them. */
static void test_shuffle_pinned(void **state) {
    uint32_t p[10];
    static const uint32_t s42e0[10] = {5, 7, 9, 0, 6, 1, 2, 3, 8, 4};
    static const uint32_t s42e1[10] = {7, 9, 0, 3, 6, 4, 8, 1, 5, 2};
    static const uint32_t sbig7[10] = {2, 3, 9, 4, 6, 0, 7, 1, 5, 8};
    rng_shuffle(p, 10, 42, 0);
    assert_memory_equal(p, s42e0, sizeof p);
    rng_shuffle(p, 10, 42, 1);
    assert_memory_equal(p, s42e1, sizeof p);
    rng_shuffle(p, 10, 0x123456789abcdef0ull, 7); /* both key words used */
    assert_memory_equal(p, sbig7, sizeof p);

    uint32_t *q = malloc(60000 * sizeof *q);
    assert_non_null(q);
    rng_shuffle(q, 60000, 42, 0);
    static const uint32_t first[8] = {58035, 51824, 29771, 50531, 20809, 13846, 55684, 33746};
    static const uint32_t last[4] = {3287, 52111, 18522, 27770};
    assert_memory_equal(q, first, sizeof first);
    assert_memory_equal(q + 60000 - 4, last, sizeof last);
    free(q);
}

static void test_shuffle_properties(void **state) {
    const uint32_t n = 60000;
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    rng_shuffle(a, n, 42, 0);
    assert_true(is_permutation(a, n));
    rng_shuffle(b, n, 42, 0);
    assert_memory_equal(a, b, n * sizeof *a); /* deterministic for (seed, epoch) */
    /* another epoch, another seed: different orders.  For two independent
     * random permutations the number of positions that agree is ~Poisson(1);
     * more than 20 would have probability < 1e-19. */
    uint32_t *c = b;
    for (int variant = 0; variant < 2; variant++) {
        rng_shuffle(c, n, variant ? 43 : 42, variant ? 0 : 1);
        assert_true(is_permutation(c, n));
        size_t same = 0;
        for (uint32_t i = 0; i < n; i++) same += a[i] == c[i];
        print_message("shuffle vs %s: %zu of %u positions agree\n", variant ? "seed 43" : "epoch 1", same, n);
        assert_true(same <= 20);
    }
    /* small n */
    uint32_t one[1] = {77}, two[2];
    rng_shuffle(one, 1, 42, 0);
    assert_int_equal(one[0], 0);
    rng_shuffle(two, 2, 42, 0);
    assert_true(is_permutation(two, 2));
    rng_shuffle(NULL, 0, 42, 0); /* n = 0 touches nothing */
    free(a);
    free(b);
}

/* All 6 orders of 3 items equally likely: 60,000 epochs, chi-square with 5
 * degrees of freedom; a correct shuffle exceeds 30 with probability ~1.5e-5.
 * (The classic wrong Fisher-Yates, j drawn from [0, n) at every step, gives
 * three orders probability 4/27 and three 5/27: chi2 ~ 740 here.) */
static void test_shuffle_uniform(void **state) {
    const uint32_t epochs = 60000;
    double cnt[6] = {0};
    for (uint32_t e = 0; e < epochs; e++) {
        uint32_t p[3];
        rng_shuffle(p, 3, 42, e);
        cnt[p[0] * 2 + (p[1] > p[2])]++; /* index of the permutation, 0..5 */
    }
    double chi2 = 0, x = epochs / 6.0;
    for (int k = 0; k < 6; k++) chi2 += (cnt[k] - x) * (cnt[k] - x) / x;
    print_message("shuffle(3): chi2 = %.2f (5 dof, bound 30)\n", chi2);
    assert_true(chi2 < 30.0);
}

/* ---- dropout ------------------------------------------------------------ */

static void test_dropout_keep_rate(void **state) {
    const uint32_t n = 1u << 20;
    size_t kept = 0, kept25 = 0, agree = 0;
    for (uint32_t e = 0; e < n; e++) {
        int k = rng_dropout_keep(42, 3, 1, e, 0.5f);
        /* p = 0.5 keeps exactly the elements whose top bit is set
         * (u >= 0.5 <=> k >= 2^23 <=> bit 31 of the word) */
        assert_int_equal(k, (int)(rng_u32(42, e, 3, 1, RNG_STREAM_DROPOUT) >> 31));
        kept += (size_t)k;
        kept25 += (size_t)rng_dropout_keep(42, 3, 1, e, 0.25f);
        agree += k == rng_dropout_keep(42, 3, 2, e, 0.5f); /* another layer */
        assert_true(rng_dropout_keep(42, 3, 1, e, 0.0f));  /* p = 0 keeps all */
        assert_false(rng_dropout_keep(42, 3, 1, e, 1.0f)); /* p = 1 keeps none: u < 1 */
    }
    /* kept ~ Binomial(n, 0.5): sd = sqrt(n)/2 = 512 for n = 2^20; bound 6 sd
     * = 3072 (two-sided false-failure probability ~2e-9).  p = 0.25: mean
     * 0.75 n, sd = sqrt(n * 0.25 * 0.75) = 443.4, 6 sd = 2661.  Two layers'
     * masks agree on ~Binomial(n, 0.5) elements if independent. */
    double sd = sqrt((double)n) / 2, sd25 = sqrt(n * 0.25 * 0.75);
    print_message("dropout p=0.5: kept %zu of %u (expected %u, 6 sd = %.0f); p=0.25: kept %zu\n", kept, n, n / 2,
                  6 * sd, kept25);
    assert_true(fabs((double)kept - n / 2.0) <= 6 * sd);
    assert_true(fabs((double)kept25 - 0.75 * n) <= 6 * sd25);
    assert_true(fabs((double)agree - n / 2.0) <= 6 * sd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_kat),      cmocka_unit_test(test_key_and_u32),
        cmocka_unit_test(test_uniform),         cmocka_unit_test(test_below_exact),
        cmocka_unit_test(test_below_uniform),   cmocka_unit_test(test_shuffle_pinned),
        cmocka_unit_test(test_shuffle_properties), cmocka_unit_test(test_shuffle_uniform),
        cmocka_unit_test(test_dropout_keep_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
