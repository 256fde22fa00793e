/*
 * test_stats.c — the statistics of stats.h against values worked out by
 * hand or by an independent route: binomial tails summed from Pascal's
 * triangle, the t density integrated numerically, a constructed
 * exponential, constructed logits and curves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"

#define ASSERT_NEAR(x, y, tol)                                                                     \
    do {                                                                                           \
        double x_ = (x), y_ = (y), t_ = (tol);                                                     \
        if (!(fabs(x_ - y_) <= t_)) fail_msg("%s = %.17g, expected %.17g +- %.3g", #x, x_, y_, t_); \
    } while (0)

#define ASSERT_REL(x, y, rel) ASSERT_NEAR(x, y, (rel) * fabs((double)(y)))

/* Hand-computed tails: P[X <= k] for X ~ Bin(n, 1/2) is
 * sum_{j<=k} C(n,j) / 2^n, exact in binary for small n, so the only error
 * allowed is the log-space computation's (~1e-15 relative at these n). */
static void test_mcnemar_hand(void **st) {
    (void)st;
    /* b=0, c=5: 2 * 1/32 */
    ASSERT_REL(stats_mcnemar_p(0, 5), 0.0625, 1e-13);
    ASSERT_REL(stats_mcnemar_p(5, 0), 0.0625, 1e-13);
    /* b=3, c=10, n=13: 2 * (1 + 13 + 78 + 286) / 8192 = 756 / 8192 */
    ASSERT_REL(stats_mcnemar_p(3, 10), 756.0 / 8192.0, 1e-13);
    /* b=1, c=1: the doubled tail P[X<=1] = 3/4 doubled is capped at 1 */
    ASSERT_NEAR(stats_mcnemar_p(1, 1), 1.0, 0);
    ASSERT_NEAR(stats_mcnemar_p(7, 7), 1.0, 0);
    ASSERT_NEAR(stats_mcnemar_p(0, 0), 1.0, 0);
    /* b=4, c=5 (n=9): 2 P[X<=4] = 2 * 256/512 = 1 exactly */
    ASSERT_NEAR(stats_mcnemar_p(4, 5), 1.0, 1e-15);
    /* b=2, c=6 (n=8): 2 * (1 + 8 + 28) / 256 = 74/256 */
    ASSERT_REL(stats_mcnemar_p(6, 2), 74.0 / 256.0, 1e-13);
}

/* An independent route for n up to 400: Pascal's triangle in long double
 * with the 1/2 applied per row (every entry stays <= 1, no overflow; each
 * addition rounds at 2^-64, so 400 rows leave < 1e-16 relative), against
 * the log-space tail at 1e-11 relative (lgamma of ~2e3 at 1e-16
 * relative is ~1e-13 absolute in the log, far inside). */
static void test_mcnemar_pascal(void **st) {
    (void)st;
    enum { N = 400 };
    static long double row[N + 1];
    memset(row, 0, sizeof row);
    row[0] = 1;
    for (int n = 1; n <= N; n++) {
        for (int k = n; k > 0; k--) row[k] = (row[k] + row[k - 1]) / 2;
        row[0] /= 2;
        if (n % 37 != 0 && n != N) continue;
        for (int m = 0; m < n / 2; m += 1 + n / 11) {
            long double tail = 0;
            for (int k = 0; k <= m; k++) tail += row[k];
            double want = (double)(2 * tail);
            if (want > 1) want = 1;
            ASSERT_REL(stats_mcnemar_p(m, n - m), want, 1e-11);
            ASSERT_REL(stats_mcnemar_p(n - m, m), want, 1e-11);
        }
    }
}

/* Large b + c against the normal approximation with continuity correction,
 * z = (|b - c| - 1) / sqrt(b + c).  For p = 1/2 the binomial is symmetric,
 * so the Edgeworth correction starts at order 1/n: at n = 1e5 and z ~ 3
 * the relative difference is ~z^4 / (12 n) ~ 1e-4; 1e-3 allows for it and
 * still catches a wrong tail (a factor 2 or an off-by-one in m is far
 * larger: one term is ~z/sqrt(n) ~ 1% of the tail). */
static void test_mcnemar_normal(void **st) {
    (void)st;
    long cases[][2] = {{49500, 50500}, {49700, 50300}, {4900, 5100}, {99000 / 2, 100000 - 99000 / 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long b = cases[i][0], c = cases[i][1];
        double z = (fabs((double)(b - c)) - 1) / sqrt((double)(b + c));
        double want = erfc(z / sqrt(2.0));
        if (want > 1) want = 1;
        ASSERT_REL(stats_mcnemar_p(b, c), want, 1e-3);
    }
    /* far tail: underflows to 0 rather than NaN */
    double p = stats_mcnemar_p(10, 99990);
    assert_false(isnan(p));
    assert_true(p >= 0 && p < 1e-300);
}

static void test_mcnemar_fill(void **st) {
    (void)st;
    /* 10 images, 2 classes.  class 0: A right B wrong x2, A wrong B right
     * x1; class 1: A right B wrong x1; others concordant. */
    uint8_t lab[10] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 1};
    uint8_t pa[10] = {0, 0, 1, 0, 1, 1, 0, 1, 1, 0};
    uint8_t pb[10] = {1, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    stats_mcnemar all, pc[2];
    stats_mcnemar_fill(&all, pc, pa, pb, lab, 10, 2);
    assert_int_equal(all.b, 3);
    assert_int_equal(all.c, 1);
    assert_int_equal(pc[0].b, 2);
    assert_int_equal(pc[0].c, 1);
    assert_int_equal(pc[1].b, 1);
    assert_int_equal(pc[1].c, 0);
    /* n=4, m=1: 2 * (1 + 4) / 16 */
    ASSERT_REL(all.p, 10.0 / 16.0, 1e-13);
    ASSERT_NEAR(pc[1].p, 1.0, 0);
}

/* Margins on constructed rows: the values are exact in float and their
 * differences exact in double, so equality is required. */
static void test_margins(void **st) {
    (void)st;
    const float inf = INFINITY;
    float z[][3] = {
        {1, 3, 2},        /* 3 - 2 = 1 */
        {5, 5, 1},        /* tie: 0 */
        {NAN, 1, 2},      /* NaN row */
        {-inf, -1, -2},   /* -1 - -2 = 1 */
        {inf, inf, 0},    /* tie at +inf: 0, not inf - inf */
        {inf, 1, 0},      /* inf */
        {2, 1, 2},        /* tie, not adjacent: 0 */
        {0.5f, -0.25f, 0.5f - 0x1p-20f}, /* a near-tie: 2^-20 */
    };
    size_t n = sizeof z / sizeof z[0];
    double m[8];
    stats_margins(m, &z[0][0], n, 3);
    assert_true(m[0] == 1);
    assert_true(m[1] == 0);
    assert_true(isnan(m[2]));
    assert_true(m[3] == 1);
    assert_true(m[4] == 0);
    assert_true(isinf(m[5]) && m[5] > 0);
    assert_true(m[6] == 0);
    assert_true(m[7] == 0x1p-20);

    /* flips: images 1, 3, 6 differ */
    uint8_t pa[8] = {1, 0, 2, 1, 0, 0, 0, 0}, pb[8] = {1, 1, 2, 0, 0, 0, 2, 0}, lab[8] = {1, 1, 0, 1, 0, 0, 2, 0};
    double mb[8];
    for (int i = 0; i < 8; i++) mb[i] = 10 + i;
    stats_flip fl[8];
    size_t k = stats_flips(fl, pa, pb, lab, m, mb, 8);
    assert_int_equal(k, 3);
    assert_int_equal(fl[0].index, 1);
    assert_int_equal(fl[1].index, 3);
    assert_int_equal(fl[2].index, 6);
    assert_int_equal(fl[2].label, 2);
    assert_int_equal(fl[2].pred_a, 0);
    assert_int_equal(fl[2].pred_b, 2);
    assert_true(fl[1].margin_a == 1 && fl[1].margin_b == 13);
    k = stats_flips(fl, pa, pb, NULL, NULL, NULL, 8);
    assert_int_equal(k, 3);
    assert_true(isnan(fl[0].margin_a) && fl[0].label == 255);
}

/* Type-7 quantiles worked by hand: for {1,2,3,4}, h = 3q. */
static void test_summary_and_ranks(void **st) {
    (void)st;
    double v[5] = {4, NAN, 1, 3, 2}, scratch[5];
    stats_summary s;
    stats_summarize(&s, v, 5, scratch);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.n_nan, 1);
    ASSERT_NEAR(s.min, 1, 0);
    ASSERT_NEAR(s.max, 4, 0);
    ASSERT_NEAR(s.median, 2.5, 1e-15);
    ASSERT_NEAR(s.q25, 1.75, 1e-15);
    ASSERT_NEAR(s.q10, 1.3, 1e-15);
    ASSERT_NEAR(s.q90, 3.7, 1e-15);
    ASSERT_NEAR(s.mean, 2.5, 1e-15);
    assert_true(v[1] != v[1] && v[0] == 4); /* input untouched */
    double none[2] = {NAN, NAN};
    stats_summarize(&s, none, 2, scratch);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.median));

    double all[5] = {0, 0, 1, 2, 3}, fm[3] = {0, 2.5, NAN}, rk[3];
    stats_margin_ranks(rk, fm, 3, all, 5);
    ASSERT_NEAR(rk[0], 0, 0);
    ASSERT_NEAR(rk[1], 0.8, 1e-15);
    assert_true(isnan(rk[2]));
    assert_int_equal(stats_count_below(all, 5, 1), 2);
    assert_int_equal(stats_count_below(fm, 3, 1), 1);
}

/* A constructed exponential y = y0 exp(r s) with holes (NaN, 0, inf) that
 * the fit must skip.  ln(y) carries ~1e-16 relative rounding, so the
 * slope over 500 steps is recovered to ~1e-16 / 500 absolute: 1e-9
 * relative is a wide margin that still fails on any wrong formula. */
static void test_growth_fit(void **st) {
    (void)st;
    enum { N = 520 };
    long step[N];
    double y[N];
    const double r = 0.0137, y0 = 3e-8;
    for (int i = 0; i < N; i++) {
        step[i] = i + 1;
        y[i] = y0 * exp(r * (i + 1));
    }
    y[10] = NAN;
    y[20] = 0;
    y[30] = INFINITY;
    y[40] = -1;
    stats_growth g;
    stats_growth_fit(&g, step, y, N, 1, -1);
    assert_int_equal(g.n, N - 4);
    ASSERT_REL(g.rate, r, 1e-9);
    ASSERT_REL(g.efold_steps, 1 / r, 1e-9);
    ASSERT_REL(exp(g.intercept), y0, 1e-9);
    ASSERT_NEAR(g.r2, 1, 1e-12);
    assert_int_equal(g.first, 1);
    assert_int_equal(g.last, N);
    /* a window */
    stats_growth_fit(&g, step, y, N, 100, 200);
    assert_int_equal(g.n, 101);
    assert_int_equal(g.first, 100);
    ASSERT_REL(g.rate, r, 1e-9);
    /* a decaying curve: negative rate, infinite e-fold time */
    for (int i = 0; i < N; i++) y[i] = exp(-0.01 * i);
    stats_growth_fit(&g, step, y, N, 0, -1);
    ASSERT_REL(g.rate, -0.01, 1e-9);
    assert_true(isinf(g.efold_steps));
    /* noise on the log: r2 drops below 1 but the rate stays close.
     * Alternating -0.5, +0.5 on ln y shifts the slope by
     * sum (s - mean) e / sum (s - mean)^2: each pair of points adds 0.5 to
     * the numerator (N/4 in all) over N^3/12, i.e. 3/N^2 = 1.1e-5 */
    for (int i = 0; i < N; i++) y[i] = y0 * exp(r * (i + 1) + (i % 2 ? 0.5 : -0.5));
    stats_growth_fit(&g, step, y, N, 0, -1);
    ASSERT_NEAR(g.rate, r + 3.0 / ((double)N * N), 1e-7);
    assert_true(g.r2 < 0.999 && g.r2 > 0.9);
    /* too few points */
    stats_growth_fit(&g, step, y, 1, 0, -1);
    assert_true(isnan(g.rate));
}

static void test_band(void **st) {
    (void)st;
    enum { N = 300 };
    static double d1[N], d2[N], d3[N], lo[N], hi[N], y[N];
    for (int s = 0; s < N; s++) {
        d1[s] = 1e-6;
        d2[s] = 0.5e-6;
        d3[s] = s == 5 ? NAN : 0.8e-6;
        y[s] = 1e-6;
    }
    const double *curves[3] = {d1, d2, d3};
    stats_band(lo, hi, curves, 3, N);
    ASSERT_NEAR(lo[0], 0.5e-6, 0);
    ASSERT_NEAR(hi[0], 1e-6, 0);
    ASSERT_NEAR(lo[5], 0.5e-6, 0);
    /* inside the band, one spike above 2 x max, a run of 2: no exit */
    y[100] = 3e-6;
    y[150] = y[151] = 3e-6;
    assert_int_equal(stats_band_exit(y, hi, N, STATS_BAND_FACTOR, STATS_BAND_RUN), -1);
    /* from 200 on at 5 x max, with a missing value inside the run */
    for (int s = 200; s < N; s++) y[s] = 5e-6;
    y[201] = NAN;
    assert_int_equal(stats_band_exit(y, hi, N, STATS_BAND_FACTOR, STATS_BAND_RUN), 200);
    /* exactly at factor x max is not above */
    for (int s = 200; s < N; s++) y[s] = 2e-6;
    assert_int_equal(stats_band_exit(y, hi, N, 2.0, 3), -1);
    assert_int_equal(stats_band_exit(y, hi, N, 1.5, 3), 200);
}

/* The t density integrated by Simpson's rule: CDF(t) = 1/2 + int_0^t f.
 * 20000 panels leave an error far below 1e-9 for these smooth integrands,
 * so the check is on the quantile itself: a 6-decimal table value moves
 * the CDF by at most f(t) * 5e-7 < 3e-8. */
static double t_cdf(double t, double v) {
    double c = exp(lgamma((v + 1) / 2) - lgamma(v / 2)) / sqrt(v * M_PI);
    int n = 20000;
    double h = t / n, s = 0;
    for (int i = 0; i <= n; i++) {
        double x = i * h, f = c * pow(1 + x * x / v, -(v + 1) / 2);
        s += f * (i == 0 || i == n ? 1 : i % 2 ? 4 : 2);
    }
    return 0.5 + s * h / 3;
}

static void test_t_quantile(void **st) {
    (void)st;
    for (int df = 1; df <= 30; df++) ASSERT_NEAR(t_cdf(stats_t975(df), df), 0.975, 1e-7);
    /* the Cornish-Fisher continuation: within 1e-6 in probability */
    int dfs[] = {31, 35, 40, 60, 120, 1000};
    for (size_t i = 0; i < sizeof dfs / sizeof dfs[0]; i++) ASSERT_NEAR(t_cdf(stats_t975(dfs[i]), dfs[i]), 0.975, 1e-6);
    /* continuity at the seam and the normal limit */
    assert_true(stats_t975(31) < stats_t975(30));
    ASSERT_NEAR(stats_t975(1000000), 1.959964, 1e-5);
    assert_true(isnan(stats_t975(0)));
}

static void test_spread_paired(void **st) {
    (void)st;
    double a[3] = {0.85, 0.86, 0.87}, b[3] = {0.84, 0.855, 0.862};
    stats_spread s;
    stats_spread_of(&s, a, 3);
    ASSERT_NEAR(s.mean, 0.86, 1e-15);
    ASSERT_NEAR(s.sd, 0.01, 1e-15); /* deviations -0.01, 0, 0.01: sqrt(2e-4 / 2) */
    ASSERT_NEAR(s.min, 0.85, 0);
    ASSERT_NEAR(s.max, 0.87, 0);

    /* gaps 0.010, 0.005, 0.008: mean 0.023/3, deviations (7, -8, 1)/3000,
     * sd = sqrt((49 + 64 + 1) / 9e6 / 2) */
    stats_paired p;
    stats_paired_of(&p, a, b, 3);
    ASSERT_NEAR(p.mean, 0.023 / 3, 1e-15);
    double sd = sqrt(114.0 / 9e6 / 2);
    ASSERT_NEAR(p.sd, sd, 1e-15);
    ASSERT_NEAR(p.half_width, 4.302653 * sd / sqrt(3.0), 1e-12);
    assert_int_equal(p.indistinguishable, 0);
    ASSERT_NEAR(p.unpaired_sd, 0.01, 1e-15);
    char buf[256];
    stats_seed_verdict(buf, sizeof buf, &p, "cpu", "cuda");
    assert_non_null(strstr(buf, "cpu better by 0.77 +- "));
    assert_non_null(strstr(buf, "paired over 3 seeds"));
    stats_seed_verdict(buf, sizeof buf, &p, "cuda", "cpu"); /* the label follows the sign */
    assert_non_null(strstr(buf, "cuda better"));

    /* identical engines: every gap 0, interval [0, 0] */
    stats_paired_of(&p, a, a, 3);
    assert_int_equal(p.indistinguishable, 1);
    ASSERT_NEAR(p.half_width, 0, 0);
    stats_seed_verdict(buf, sizeof buf, &p, "cpu", "cpu#2");
    assert_non_null(strstr(buf, "indistinguishable"));

    /* a gap inside the spread: 0.01, -0.01, 0.005 */
    double c[3] = {0.84, 0.87, 0.865};
    stats_paired_of(&p, a, c, 3);
    assert_int_equal(p.indistinguishable, 1);
    assert_true(p.lo < 0 && p.hi > 0);

    /* indistinguishable: the words give the interval itself (lo..hi), not
     * a "gap under the half-width goes unseen" power claim.  Gaps 0.01,
     * -0.01, 0.005: mean 0.005/3, so lo..hi is not symmetric about 0 */
    stats_seed_verdict(buf, sizeof buf, &p, "cpu", "cuda");
    char want[64];
    snprintf(want, sizeof want, "95%% interval %+.2f..%+.2f", 100 * p.lo, 100 * p.hi);
    assert_non_null(strstr(buf, want));
    assert_null(strstr(buf, "unseen"));

    /* an engine that failed in seed 2: NaN accuracy, no verdict (was
     * "cuda better by nan +- nan points") */
    double bn[3] = {0.84, NAN, 0.862};
    stats_paired_of(&p, a, bn, 3);
    assert_int_equal(p.indistinguishable, -1);
    assert_true(isnan(p.mean) && isnan(p.half_width));
    stats_seed_verdict(buf, sizeof buf, &p, "cpu", "cuda");
    assert_non_null(strstr(buf, "no verdict"));
    assert_null(strstr(buf, "nan"));
    assert_null(strstr(buf, "better"));
    /* and its spread: NaN throughout, not a min/max over the other seeds */
    stats_spread_of(&s, bn, 3);
    assert_true(isnan(s.mean) && isnan(s.sd) && isnan(s.min) && isnan(s.max));

    /* the same nonzero gap (one image of 10000) in both seeds: sd 0, a
     * t-interval of width 0 is no 95% statement (was "A better by 0.01 +-
     * 0.00 points") */
    double e1[2] = {0.8621, 0.8781}, e2[2] = {0.8620, 0.8780};
    stats_paired_of(&p, e1, e2, 2);
    assert_int_equal(p.indistinguishable, -1);
    stats_seed_verdict(buf, sizeof buf, &p, "A", "B");
    assert_non_null(strstr(buf, "no verdict"));
    assert_null(strstr(buf, "better"));

    /* one seed: no verdict */
    stats_paired_of(&p, a, b, 1);
    assert_int_equal(p.indistinguishable, -1);
    stats_seed_verdict(buf, sizeof buf, &p, "cpu", "cuda");
    assert_non_null(strstr(buf, "no verdict"));
}

static void test_floor(void **st) {
    (void)st;
    double d[4] = {10, 15, 12, 11};
    stats_floor f;
    stats_floor_of(&f, d, 4);
    assert_int_equal(f.k, 4);
    ASSERT_NEAR(f.mean, 12, 1e-15);
    ASSERT_NEAR(f.max, 15, 0);
    ASSERT_NEAR(f.min, 10, 0);
    double pe;
    assert_int_equal(stats_floor_within(d, 4, 15, &pe), 1);
    ASSERT_NEAR(pe, 2.0 / 5, 1e-15);
    assert_int_equal(stats_floor_within(d, 4, 16, &pe), 0);
    ASSERT_NEAR(pe, 1.0 / 5, 1e-15);
    assert_int_equal(stats_floor_within(d, 4, 0, &pe), 1);
    ASSERT_NEAR(pe, 1.0, 1e-15);
    assert_int_equal(stats_floor_within(d, 0, 1, NULL), -1);
}

static void test_json(void **st) {
    (void)st;
    lsbuf b;
    lsbuf_init(&b);
    stats_mcnemar m = {3, 10, 756.0 / 8192.0};
    stats_mcnemar_json(&b, &m);
    assert_non_null(strstr(b.s, "\"b\": 3, \"c\": 10, \"p\": 0.0922851"));
    stats_paired p;
    double a[1] = {0.5};
    stats_paired_of(&p, a, a, 1);
    stats_paired_json(&b, &p);
    assert_non_null(strstr(b.s, "\"indistinguishable\": null"));
    assert_non_null(strstr(b.s, "\"gap_sd\": null"));
    lsbuf_free(&b);
}

/* Holm's step-down: sorted p (0.01, 0.02, 0.03, 0.5) over m = 4 become
 * 0.04, 0.06, 0.06 (never below the previous), 0.5; the input order kept. */
static void test_holm(void **st) {
    (void)st;
    double p[4] = {0.03, 0.5, 0.01, 0.02}, adj[4];
    stats_holm(p, 4, adj);
    assert_true(adj[2] == 4 * 0.01);
    assert_true(adj[3] == 3 * 0.02);
    assert_true(adj[0] == adj[3]); /* 2 * 0.03 = 0.06: equal to the step before, not below */
    assert_true(adj[1] == 0.5);
    double one[1] = {0.7};
    stats_holm(one, 1, adj);
    assert_true(adj[0] == 0.7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mcnemar_hand),   cmocka_unit_test(test_mcnemar_pascal),
        cmocka_unit_test(test_mcnemar_normal), cmocka_unit_test(test_mcnemar_fill),
        cmocka_unit_test(test_margins),        cmocka_unit_test(test_summary_and_ranks),
        cmocka_unit_test(test_growth_fit),     cmocka_unit_test(test_band),
        cmocka_unit_test(test_t_quantile),     cmocka_unit_test(test_spread_paired),
        cmocka_unit_test(test_floor),          cmocka_unit_test(test_json),
        cmocka_unit_test(test_holm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
