/*
 * test_ops.c — the element-wise code shared by the C and CUDA engines
 * (src/base/ops_elem.h: Adam, softmax cross-entropy, dropout, portable exp/log)
 * and util.c's ULP distance and JSON helpers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "base/ops_elem.h"
#include "base/util.h"
#include "report/report.h"

static void adam_apply(float *p, float *m, float *v, float g, const adam_scalars *a) {
    ops_adam_elem(p, m, v, g, a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2, a->step_size, a->bc2_sqrt,
                  a->eps);
}

/* One Adam step worked by hand: p = 1, g = 0.5, m = v = 0, t = 1, defaults.
 *   m = 0.1 * 0.5 = 0.05;  v = 0.001 * 0.25 = 0.00025
 *   m_hat = 0.05 / 0.1 = 0.5;  v_hat = 0.00025 / 0.001 = 0.25
 *   p = 1 - 1e-3 * 0.5 / (sqrt(0.25) + 1e-8) = 1 - 1e-3 / (1 + 2e-8) = 0.99900000002
 * The first Adam step moves every weight by lr * sign(g) (up to eps). */
static void test_adam_by_hand(void **st) {
    adam_cfg c = adam_default();
    adam_scalars a = adam_make_scalars(&c, 1);
    float p = 1.0f, m = 0.0f, v = 0.0f;
    adam_apply(&p, &m, &v, 0.5f, &a);
    /* m and v: one fp32 product each of exact inputs, so exactly the fp32
     * roundings of 0.1f*0.5 and 0.001f*0.25 */
    assert_true(m == (float)0.1 * 0.5f);
    assert_true(v == (float)0.001 * 0.25f);
    /* p: the update 1e-3 is computed with a relative error of a few fp32
     * ulps (< 1e-6 relative, i.e. < 1e-9 absolute), far below half an ulp
     * of p near 1 (2^-25 = 3e-8): p must be the fp32 value nearest to
     * 0.99900000002, and 0.99900000002 is not near a rounding midpoint. */
    assert_true(p == (float)0.99900000002);
    /* a negative gradient moves the other way by the same amount */
    float p2 = 1.0f, m2 = 0.0f, v2 = 0.0f;
    adam_apply(&p2, &m2, &v2, -0.5f, &a);
    assert_true(p2 == (float)1.00099999998);
    /* step 2 with g = -0.25, worked by hand in double:
     *   m = 0.9*0.05 + 0.1*(-0.25) = 0.02;  v = 0.999*0.00025 + 0.001*0.0625 = 0.00031225
     *   m_hat = 0.02/0.19 = 0.105263157894737;  v_hat = 0.00031225/0.001999 = 0.156203101550775
     *   p = 0.999 - 1e-3 * 0.105263157894737 / (0.395225380... + 1e-8) = 0.998733665...
     * fp32 arithmetic on these values: m and v carry a few ulps of relative
     * error each, so the update (~2.7e-4) is off by < 1e-9 — again below
     * half an ulp of p (3e-8) unless p sits next to a midpoint: allow 1 ulp. */
    a = adam_make_scalars(&c, 2);
    adam_apply(&p, &m, &v, -0.25f, &a);
    double mh = 0.02 / 0.19, vh = 0.00031225 / 0.001999;
    double pd = 0.99900000002 - 1e-3 * mh / (sqrt(vh) + 1e-8);
    assert_true(fabs(m - 0.02) < 4 * 0x1p-24 * 0.02);
    assert_true(fabs(v - 0.00031225) < 4 * 0x1p-24 * 0.00031225);
    if (ls_ulp_dist(p, (float)pd) > 1) fail_msg("p %.9g vs hand %.12g", (double)p, pd);
}

/* softmax over 3 logits {1, 2, 3}, label 2:
 *   loss = log(e + e^2 + e^3) - 3 = 0.40760596444438
 *   softmax = {0.0900305731703805, 0.244728471054798, 0.665240955774822}
 * expf/logf are within 1 ulp (glibc), and the row does ~3 roundings per
 * output after them: allow 4 ulps relative on each value. */
static void test_softmax_row(void **st) {
    const float z[3] = {1.0f, 2.0f, 3.0f};
    const double sm[3] = {0.0900305731703805, 0.244728471054798, 0.665240955774822};
    for (int portable = 0; portable < 2; portable++) {
        float dz[3];
        float loss = ops_softmax_xent_row(z, 3, 2, 1.0f, portable, dz);
        assert_true(fabs(loss - 0.40760596444438) <= 4 * 0x1p-24 * 0.4076);
        for (int j = 0; j < 3; j++) {
            double want = sm[j] - (j == 2);
            if (fabs(dz[j] - want) > 4 * 0x1p-24 * fabs(want)) fail_msg("dz[%d] %.9g vs %.12g", j, (double)dz[j], want);
        }
        /* inv_n scales exactly when it is a power of two */
        float dz4[3];
        ops_softmax_xent_row(z, 3, 2, 0.25f, portable, dz4);
        for (int j = 0; j < 3; j++) assert_true(dz4[j] == dz[j] * 0.25f);
    }
    /* large logits do not overflow: the max is subtracted first */
    const float big[3] = {1000.0f, 0.0f, -1000.0f};
    float dzb[3];
    float lb = ops_softmax_xent_row(big, 3, 0, 1.0f, 0, dzb);
    assert_true(lb == 0.0f && dzb[0] == 0.0f && dzb[1] == 0.0f);
}

/* The portable exp/log are evaluated in double with truncation error below
 * 2^-60 and ~20 double roundings (< 2^-48 relative): the fp32 result is the
 * correctly rounded one unless exp(x) lies within 2^-48 relative of a
 * midpoint — so over 200,000 points we allow a handful of 1-ulp misses and
 * never 2. */
static void test_portable_math(void **st) {
    int miss_exp = 0, miss_log = 0;
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f + 175.0f * (float)i / 200000.0f;
        float a = ops_portable_expf(x), b = (float)exp((double)x);
        uint32_t d = ls_ulp_dist(a, b);
        assert_true(d <= 1);
        miss_exp += d != 0;
        float y = ldexpf(1.0f + (float)i / 200000.0f, (i % 200) - 100);
        float la = ops_portable_logf(y), lb = (float)log((double)y);
        d = ls_ulp_dist(la, lb);
        assert_true(d <= 1);
        miss_log += d != 0;
    }
    assert_true(miss_exp <= 5 && miss_log <= 5);
    assert_true(ops_portable_expf(0.0f) == 1.0f);
    assert_true(ops_portable_logf(1.0f) == 0.0f);
    assert_true(isinf(ops_portable_expf(100.0f)) && ops_portable_expf(-200.0f) == 0.0f);
    assert_true(isinf(ops_portable_logf(0.0f)) && isnan(ops_portable_logf(-1.0f)));
    assert_true(ops_portable_logf(FLT_TRUE_MIN) == (float)log((double)FLT_TRUE_MIN));
}

static void test_dropout(void **st) {
    const float p = 0.5f, scale = (float)(1.0 / (1.0 - 0.5));
    size_t kept = 0, n = 100000;
    for (uint32_t i = 0; i < n; i++) {
        float y = ops_dropout_fwd(3.0f, 42, 7, 2, i, p, scale);
        float dx = ops_dropout_bwd(1.0f, 42, 7, 2, i, p, scale);
        assert_true((y == 6.0f && dx == 2.0f) || (y == 0.0f && dx == 0.0f)); /* same mask both ways */
        kept += y != 0.0f;
    }
    /* binomial(1e5, 0.5): sd 158; 6 sd */
    assert_true(labs((long)kept - 50000) < 6 * 158);
    /* another step draws another mask */
    size_t same = 0;
    for (uint32_t i = 0; i < 1000; i++)
        same += ops_dropout_fwd(1.0f, 42, 7, 2, i, p, scale) == ops_dropout_fwd(1.0f, 42, 8, 2, i, p, scale);
    assert_true(same > 400 && same < 600);
    /* p = 0 keeps everything with scale 1 */
    assert_true(ops_dropout_fwd(1.5f, 1, 1, 1, 1, 0.0f, 1.0f) == 1.5f);
}

static void test_ulp_and_json(void **st) {
    assert_int_equal(ls_ulp_dist(1.0f, 1.0f), 0);
    assert_int_equal(ls_ulp_dist(1.0f, nextafterf(1.0f, 2.0f)), 1);
    assert_int_equal(ls_ulp_dist(0.0f, -0.0f), 0);
    assert_int_equal(ls_ulp_dist(FLT_TRUE_MIN, -FLT_TRUE_MIN), 2);
    assert_int_equal(ls_ulp_dist(NAN, 1.0f), UINT32_MAX);
    assert_int_equal(ls_ulp_dist(1.0f, 2.0f), 1u << 23);
    lsbuf b;
    lsbuf_init(&b);
    lsbuf_json_str(&b, "a\"b\\c\n\x01");
    lsbuf_put(&b, " ", 1);
    lsbuf_json_num(&b, 0.1);
    lsbuf_put(&b, " ", 1);
    lsbuf_json_num(&b, NAN);
    lsbuf_put(&b, " ", 1);
    lsbuf_json_num(&b, 1.0 / 3.0);
    assert_string_equal(b.s, "\"a\\\"b\\\\c\\n\\u0001\" 0.1 null 0.3333333333333333");
    lsbuf_free(&b);
}

/* A label or message cut mid-character by a fixed buffer ("recorded:/…é"
 * whose last 'é' lost its second byte) must not make run.json, steps.jsonl
 * or report.html invalid UTF-8: the stray byte is U+FFFD, whole characters
 * pass unchanged. */
static void test_json_html_cut_utf8(void **st) {
    lsbuf b;
    lsbuf_init(&b);
    lsbuf_json_str(&b, "x\xc3\xa9\xc3"); /* "xé" and the first byte of another é */
    assert_string_equal(b.s, "\"x\xc3\xa9\\ufffd\"");
    b.len = 0;
    lsbuf_json_str(&b, "\xa9\xe2\x82 \xf0\x9f\x98\x80\xc0\xaf"); /* stray, cut 3-byte, 4-byte, overlong */
    assert_string_equal(b.s, "\"\\ufffd\\ufffd\\ufffd \xf0\x9f\x98\x80\\ufffd\\ufffd\"");
    b.len = 0;
    report_html_escape(&b, "<\xc3\xa9\xc3");
    assert_string_equal(b.s, "&lt;\xc3\xa9\xef\xbf\xbd");
    lsbuf_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adam_by_hand),  cmocka_unit_test(test_softmax_row),
        cmocka_unit_test(test_portable_math), cmocka_unit_test(test_dropout),
        cmocka_unit_test(test_ulp_and_json),
        cmocka_unit_test(test_json_html_cut_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
