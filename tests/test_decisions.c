/*
 * test_decisions.c — src/checks/decisions.c on constructed cases whose answers
 * are known: ReLU at +-0 and NaN, max-pool exact ties, 1-ULP flips and
 * large-gap flips, NaN and -inf windows, odd edges never read, bounds that
 * turn a near-tie into a real flip, dropout masks, predicted classes, the
 * error-share arithmetic, and a max-pool cross-check against a naive
 * re-implementation of the engine's rule on tie-heavy random data.
 *
 * Every assertion is exact: counts and indices are integers, and the gaps
 * and shares are built from powers of two (exact in double) or computed by
 * the same double operations as the code under test.
 *
 * Not here: wiring into the audit (test_lockstep.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks/decisions.h"
#include "base/util.h"

static float up(float f, int k) { /* k fp32 steps away from zero */
    uint32_t u;
    memcpy(&u, &f, 4);
    u += (uint32_t)k;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t g_lcg = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void) {
    g_lcg ^= g_lcg << 13;
    g_lcg ^= g_lcg >> 7;
    g_lcg ^= g_lcg << 17;
    return (uint32_t)(g_lcg >> 32);
}

/* ---- ReLU ------------------------------------------------------------------ */

static void test_relu(void **state) {
    float ref[7] = {1, -0.0f, 0.0f, NAN, NAN, 2, -1};
    float cand[7] = {1, 0.0f, 1e-30f, -1, NAN, -2, -1};
    uint8_t mask[7];
    decision_stats st;
    decision_relu_f32(&st, ref, cand, 7, NULL, mask);
    /* -0 vs +0: both blocked, no flip.  +0 vs 1e-30: flip, gap 0, and the
     * reference is 0 in fp32 (sub-ULP).  NaN vs -1: forward both +0 but
     * backward NaN passes: a flip, with no gap.  2 vs -2: gap 2 within the
     * observed difference 4. */
    assert_int_equal(st.n_decisions, 7);
    assert_int_equal(st.n_flips, 3);
    assert_int_equal(st.n_near_ties, 2);
    assert_int_equal(st.n_sub_ulp, 1);
    assert_int_equal(st.first_flip, 2);
    assert_true(st.max_gap_flipped == 2 && st.max_gap_flipped_ulp == 0);
    uint8_t want[7] = {0, 0, 1, 1, 0, 1, 0};
    assert_memory_equal(mask, want, 7);

    /* with bounds of 0.5 on the inputs, a gap of 2 is no near-tie */
    double bound[7] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    decision_relu_f32(&st, ref, cand, 7, bound, NULL);
    assert_int_equal(st.n_flips, 3);
    assert_int_equal(st.n_near_ties, 1);

    /* double reference: 1e-50 is 0 in fp32 (sub-ULP flip); 1e-30 is not */
    double dref[3] = {1e-50, 1e-30, -4};
    float dc[3] = {-1e-30f, -1e-30f, -4};
    decision_relu_f64(&st, dref, dc, 3, NULL, NULL);
    assert_int_equal(st.n_flips, 2);
    assert_int_equal(st.n_sub_ulp, 1);
    assert_int_equal(st.n_near_ties, 2);
    assert_int_equal(st.first_flip, 0);

    decision_relu_f32(&st, ref, cand, 0, NULL, NULL);
    assert_int_equal(st.n_flips, 0);
    assert_true(st.first_flip == DECISION_NONE);
}

/* ---- max-pool ---------------------------------------------------------------- */

/* element (y, x) of plane p in an (n*c, h, w) buffer */
#define AT(p, y, x) ((p) * H * W + (y) * W + (x))

static void test_maxpool_cases(void **state) {
    /* one plane of 5x5: windows (0,0) (0,1) (1,0) (1,1); row 4 and column
     * 4 are never read (floor mode) */
    enum { H = 5, W = 5 };
    float ref[2 * H * W], cand[2 * H * W];
    for (int i = 0; i < 2 * H * W; i++) ref[i] = cand[i] = -5;
    /* window 0: an exact tie at positions 0 and 2 on both sides: first wins, no flip */
    ref[AT(0, 0, 0)] = ref[AT(0, 1, 0)] = cand[AT(0, 0, 0)] = cand[AT(0, 1, 0)] = 3;
    /* window 1: tie at positions 1 and 3 in the reference; the candidate's
     * position 3 is one ULP higher: flip, gap 0 */
    ref[AT(0, 0, 3)] = ref[AT(0, 1, 3)] = cand[AT(0, 0, 3)] = 1;
    cand[AT(0, 1, 3)] = up(1, 1);
    /* window 2: reference 1 and 1 + 2^-23 (one ULP) at positions 0, 1; the
     * candidate lowered the second to 1: tie, first wins: flip by 1 ULP */
    ref[AT(0, 2, 0)] = cand[AT(0, 2, 0)] = cand[AT(0, 2, 1)] = 1;
    ref[AT(0, 2, 1)] = 1 + 0x1p-23f;
    /* window 3: a large gap: reference {4, 1, 1, 1}, candidate picks 9 */
    ref[AT(0, 2, 2)] = cand[AT(0, 2, 2)] = 4;
    ref[AT(0, 2, 3)] = ref[AT(0, 3, 2)] = ref[AT(0, 3, 3)] = 1;
    cand[AT(0, 2, 3)] = 9;
    cand[AT(0, 3, 2)] = cand[AT(0, 3, 3)] = 1;
    /* the unread edge: anything there changes nothing */
    for (int k = 0; k < 5; k++) cand[AT(0, 4, k)] = cand[AT(0, k, 4)] = 100;
    /* plane 1: window 0 all NaN in the reference (position 0 by default),
     * the candidate has -1 at position 3: flip with no defined gap;
     * window 1: NaN never wins on either side: {NaN, 2, 1, 2} both, no flip;
     * window 2: -inf everywhere (nothing > -FLT_MAX: position 0) vs -FLT_MAX
     * at position 3 (not > -FLT_MAX either): no flip;
     * window 3: -0 and +0: -0 first, +0 is not greater: no flip */
    ref[AT(1, 0, 0)] = ref[AT(1, 0, 1)] = ref[AT(1, 1, 0)] = ref[AT(1, 1, 1)] = NAN;
    cand[AT(1, 0, 0)] = cand[AT(1, 0, 1)] = cand[AT(1, 1, 0)] = NAN;
    cand[AT(1, 1, 1)] = -1;
    ref[AT(1, 0, 2)] = cand[AT(1, 0, 2)] = NAN;
    ref[AT(1, 0, 3)] = cand[AT(1, 0, 3)] = ref[AT(1, 1, 3)] = cand[AT(1, 1, 3)] = 2;
    ref[AT(1, 1, 2)] = cand[AT(1, 1, 2)] = 1;
    for (int y = 2; y < 4; y++)
        for (int x = 0; x < 2; x++) ref[AT(1, y, x)] = cand[AT(1, y, x)] = -INFINITY;
    cand[AT(1, 3, 1)] = -FLT_MAX;
    ref[AT(1, 2, 2)] = cand[AT(1, 2, 2)] = -0.0f;
    ref[AT(1, 2, 3)] = cand[AT(1, 2, 3)] = 0.0f;
    ref[AT(1, 3, 2)] = cand[AT(1, 3, 2)] = -0.0f;
    ref[AT(1, 3, 3)] = cand[AT(1, 3, 3)] = -1;

    uint8_t mask[2 * H * W];
    decision_stats st;
    decision_maxpool_f32(&st, ref, cand, 1, 2, H, W, NULL, mask);
    assert_int_equal(st.n_decisions, 8);
    /* flips: plane 0 windows 1, 2, 3 and plane 1 window 0 (index 4) */
    assert_int_equal(st.n_flips, 4);
    assert_int_equal(st.first_flip, 1);
    /* near-ties: the two 1-ULP/tie flips are sub-ULP; the large gap (3) is
     * within the observed differences |0| + |9 - 1| (always, for a finite
     * flip); the NaN window has no gap */
    assert_int_equal(st.n_sub_ulp, 2);
    assert_int_equal(st.n_near_ties, 3);
    assert_true(st.max_gap_flipped == 3);
    assert_true(st.max_gap_flipped_ulp == 3 / 0x1p-21); /* ULP of 4 is 2^-21 */
    for (int p = 0; p < 2; p++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int win = (y < 4 && x < 4) ? p * 4 + (y / 2) * 2 + x / 2 : -1;
                int flipped = win == 1 || win == 2 || win == 3 || win == 4;
                if (mask[AT(p, y, x)] != flipped) fail_msg("mask at plane %d (%d,%d): %d", p, y, x, mask[AT(p, y, x)]);
            }

    /* bounds of 2^-30 per input: the 1-ULP flips stay near-ties (sub-ULP),
     * the gap of 3 does not */
    double bound[2 * H * W];
    for (int i = 0; i < 2 * H * W; i++) bound[i] = 0x1p-30;
    decision_maxpool_f32(&st, ref, cand, 1, 2, H, W, bound, NULL);
    assert_int_equal(st.n_flips, 4);
    assert_int_equal(st.n_near_ties, 2);

    /* a double reference that breaks the window-1 tie in the candidate's
     * favour by less than fp32 can hold: no flip there any more */
    double dref[2 * H * W];
    for (int i = 0; i < 2 * H * W; i++) dref[i] = ref[i];
    dref[AT(0, 1, 3)] = 1 + 0x1p-30;
    decision_maxpool_f64(&st, dref, cand, 1, 2, H, W, NULL, NULL);
    assert_int_equal(st.n_flips, 3);
    assert_int_equal(st.first_flip, 2);
    /* a gap below one ULP, exactly: reference 1 + 2^-30 chosen over 1 at
     * window 2 (positions 0, 1) while the candidate ties them */
    dref[AT(0, 1, 3)] = 1;
    dref[AT(0, 2, 1)] = 1 + 0x1p-30;
    decision_maxpool_f64(&st, dref, cand, 1, 2, H, W, NULL, NULL);
    assert_int_equal(st.n_flips, 4);
    assert_int_equal(st.n_sub_ulp, 2);
    assert_true(st.max_gap_flipped == 3);
}

/* The engine's rule written the obvious way, on floats. */
static int naive_argmax4(const float *v) {
    float m = -FLT_MAX;
    int a = 0;
    for (int j = 0; j < 4; j++)
        if (v[j] > m) {
            m = v[j];
            a = j;
        }
    return a;
}

/* Tie-heavy random data (values from a handful of levels, some NaN and
 * +-0), odd sizes: counts and the mask must match the naive rule. */
static void test_maxpool_vs_naive(void **state) {
    enum { N = 3, C = 5, H = 7, W = 9 };
    static float ref[N * C * H * W], cand[N * C * H * W];
    static uint8_t mask[N * C * H * W];
    const float levels[8] = {0.0f, -0.0f, 1, 1, 2, -1, NAN, 0.5f};
    for (int i = 0; i < N * C * H * W; i++) {
        ref[i] = levels[rnd() % 8];
        cand[i] = (rnd() % 4 == 0) ? levels[rnd() % 8] : ref[i];
    }
    decision_stats st;
    decision_maxpool_f32(&st, ref, cand, N, C, H, W, NULL, mask);
    size_t flips = 0, first = DECISION_NONE, k = 0;
    for (int p = 0; p < N * C; p++)
        for (int y = 0; y + 1 < H; y += 2)
            for (int x = 0; x + 1 < W; x += 2, k++) {
                int id[4] = {AT(p, y, x), AT(p, y, x + 1), AT(p, y + 1, x), AT(p, y + 1, x + 1)};
                float r[4], c[4];
                for (int j = 0; j < 4; j++) {
                    r[j] = ref[id[j]];
                    c[j] = cand[id[j]];
                }
                int f = naive_argmax4(r) != naive_argmax4(c);
                if (f) {
                    flips++;
                    if (first == DECISION_NONE) first = k;
                }
                for (int j = 0; j < 4; j++)
                    if (mask[id[j]] != f) fail_msg("mask differs at window %zu", k);
            }
    assert_int_equal(st.n_decisions, k);
    assert_int_equal(st.n_flips, flips);
    assert_int_equal(st.first_flip, first);
    assert_true(flips > 10); /* the data does flip: the test is not empty */
    for (int p = 0; p < N * C; p++) {
        for (int x = 0; x < W; x++) assert_int_equal(mask[AT(p, H - 1, x)], 0);
        for (int y = 0; y < H; y++) assert_int_equal(mask[AT(p, y, W - 1)], 0);
    }
    /* identical inputs: never a flip, whatever the ties */
    decision_maxpool_f32(&st, ref, ref, N, C, H, W, NULL, NULL);
    assert_int_equal(st.n_flips, 0);
}

/* ---- dropout and predictions ------------------------------------------------- */

static void test_dropout(void **state) {
    float ri[7] = {1, 2, 0, 3, NAN, 4, 5}, ro[7] = {2, 0, 0, 6, NAN, 0, 10};
    float ci[7] = {1, 2, 5, 3, 1, 4, 5}, co[7] = {2, 4, 10, 0, 2, 0, 10};
    uint8_t mask[7];
    decision_stats st;
    decision_dropout_f32(&st, ri, ro, ci, co, 7, mask);
    /* seen: 0, 1, 3, 5, 6 (2 has a zero input, 4 a NaN); flips 1 and 3 */
    assert_int_equal(st.n_decisions, 5);
    assert_int_equal(st.n_flips, 2);
    assert_int_equal(st.n_near_ties, 0);
    assert_int_equal(st.first_flip, 1);
    uint8_t want[7] = {0, 1, 0, 1, 0, 0, 0};
    assert_memory_equal(mask, want, 7);
    double dri[2] = {1, 1}, dro[2] = {0, 2};
    float dci[2] = {1, 1}, dco[2] = {0, 0};
    decision_dropout_f64(&st, dri, dro, dci, dco, 2, NULL);
    assert_int_equal(st.n_flips, 1);
    assert_int_equal(st.first_flip, 1);
}

static void test_argmax(void **state) {
    enum { C = 4 };
    float ref[4 * C] = {0, 1, 2, 3, /* same */
                        1, 3, 3, 0, /* tie: 1 wins */
                        0, 5, 1, 2, /* 1 */
                        NAN, 1, 2, 3 /* NaN at 0 keeps 0 */};
    float cand[4 * C] = {0, 1, 2, 3, 1, 3, 0, 0, 0, 1, 6, 2, 0, 1, 2, 3};
    cand[6] = up(3, 1); /* row 1: 3 + 1 ULP at class 2: flip, gap 0 */
    uint8_t mask[4];
    decision_stats st;
    decision_argmax_f32(&st, ref, cand, 4, C, NULL, mask);
    assert_int_equal(st.n_decisions, 4);
    assert_int_equal(st.n_flips, 3);
    assert_int_equal(st.first_flip, 1);
    assert_int_equal(st.n_sub_ulp, 1);
    assert_int_equal(st.n_near_ties, 2); /* row 2's gap 4 is within |5-1| + |6-1| */
    assert_true(st.max_gap_flipped == 4);
    uint8_t want[4] = {0, 1, 1, 1};
    assert_memory_equal(mask, want, 4);
    double bound[4 * C];
    for (int i = 0; i < 4 * C; i++) bound[i] = 0.25;
    decision_argmax_f32(&st, ref, cand, 4, C, bound, NULL);
    assert_int_equal(st.n_near_ties, 1);
    double dref[4 * C];
    for (int i = 0; i < 4 * C; i++) dref[i] = ref[i];
    decision_argmax_f64(&st, dref, cand, 4, C, NULL, NULL);
    assert_int_equal(st.n_flips, 3);
    decision_argmax_f32(&st, ref, cand, 4, 0, NULL, NULL);
    assert_int_equal(st.n_decisions, 0);
}

/* ---- error share ---------------------------------------------------------------- */

static void test_share(void **state) {
    float ref[5] = {1, 1, 1, 1, 1};
    float cand[5] = {1, 1 + 0x1p-10f, 1 + 0x1p-5f, 1, NAN};
    uint8_t mask[5] = {0, 0, 1, 1, 1};
    decision_share sh;
    decision_share_f32(&sh, ref, cand, mask, 5);
    assert_int_equal(sh.n_masked, 3);
    assert_true(sh.sq_err_masked == 0x1p-10);
    assert_true(sh.sq_err_total == 0x1p-10 + 0x1p-20); /* exact in double */
    assert_true(sh.share == 0x1p-10 / (0x1p-10 + 0x1p-20));
    double dref[5] = {1, 1, 1, 1, 1};
    decision_share_f64(&sh, dref, cand, mask, 5);
    assert_true(sh.share == 0x1p-10 / (0x1p-10 + 0x1p-20));
    decision_share_f32(&sh, ref, ref, mask, 5);
    assert_true(sh.share == 0 && sh.sq_err_total == 0);
}

/* The story the audit tells: pool windows flip on near-ties, the gradient
 * is routed to another element, and the flipped windows carry all of the
 * gradient's error. */
static void test_flips_carry_the_gradient_error(void **state) {
    enum { N = 2, C = 3, H = 8, W = 8, OH = 4, OW = 4 };
    static double ref[N * C * H * W];
    static float cand[N * C * H * W], gref[N * C * H * W], gcand[N * C * H * W];
    static uint8_t mask[N * C * H * W];
    float dout[N * C * OH * OW];
    for (int i = 0; i < N * C * H * W; i++) {
        /* exact double values; the candidate has them rounded to fp32,
         * and every 17th element is a tie broken by less than one ULP */
        ref[i] = (double)(rnd() % 1000) / 1000.0;
        if (i % 17 == 1) ref[i] = ref[i - 1] + 0x1p-40;
        cand[i] = (float)ref[i];
    }
    for (int i = 0; i < N * C * OH * OW; i++) dout[i] = (float)(rnd() % 100) / 10.0f + 1;
    /* max-pool backward on each side: dout to the arg-max, +0 elsewhere */
    memset(gref, 0, sizeof gref);
    memset(gcand, 0, sizeof gcand);
    for (int p = 0; p < N * C; p++)
        for (int y = 0; y < OH; y++)
            for (int x = 0; x < OW; x++) {
                int id[4] = {AT(p, 2 * y, 2 * x), AT(p, 2 * y, 2 * x + 1), AT(p, 2 * y + 1, 2 * x),
                             AT(p, 2 * y + 1, 2 * x + 1)};
                double rm = -FLT_MAX;
                float cm = -FLT_MAX;
                int ra = 0, ca = 0;
                for (int j = 0; j < 4; j++) {
                    if (ref[id[j]] > rm) rm = ref[id[j]], ra = j;
                    if (cand[id[j]] > cm) cm = cand[id[j]], ca = j;
                }
                float g = dout[(p * OH + y) * OW + x];
                gref[id[ra]] = g;
                gcand[id[ca]] = g;
            }
    decision_stats st;
    decision_maxpool_f64(&st, ref, cand, N, C, H, W, NULL, mask);
    assert_true(st.n_flips > 0);
    assert_int_equal(st.n_flips, st.n_sub_ulp); /* every flip is a tie fp32 cannot break */
    assert_true(st.max_gap_flipped_ulp < 1);
    double gr[N * C * H * W];
    for (int i = 0; i < N * C * H * W; i++) gr[i] = gref[i];
    decision_share sh;
    decision_share_f64(&sh, gr, gcand, mask, N * C * H * W);
    assert_int_equal(sh.n_masked, 4 * st.n_flips);
    assert_true(sh.sq_err_total > 0);
    assert_true(sh.share == 1); /* the windows that did not flip routed the same values */
}

static void test_json(void **state) {
    decision_stats st;
    float ref[2] = {1, -1}, cand[2] = {1, 1};
    decision_relu_f32(&st, ref, cand, 2, NULL, NULL);
    lsbuf b;
    lsbuf_init(&b);
    decision_stats_json(&b, &st);
    assert_string_equal(b.s, "{\"n\":2,\"flips\":1,\"near_ties\":1,\"sub_ulp\":0,\"first_flip\":1,"
                             "\"max_gap_flipped\":1,\"max_gap_flipped_ulp\":0}");
    b.len = 0;
    b.s[0] = 0;
    decision_relu_f32(&st, ref, ref, 2, NULL, NULL);
    decision_stats_json(&b, &st);
    assert_non_null(strstr(b.s, "\"first_flip\":null"));
    b.len = 0;
    b.s[0] = 0;
    uint8_t m[2] = {1, 0};
    decision_share sh;
    decision_share_f32(&sh, ref, cand, m, 2);
    decision_share_json(&b, &sh);
    assert_string_equal(b.s, "{\"n_masked\":1,\"sq_err_masked\":0,\"sq_err_total\":4,\"share\":0}");
    assert_false(b.failed);
    lsbuf_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relu),
        cmocka_unit_test(test_maxpool_cases),
        cmocka_unit_test(test_maxpool_vs_naive),
        cmocka_unit_test(test_dropout),
        cmocka_unit_test(test_argmax),
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_flips_carry_the_gradient_error),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
