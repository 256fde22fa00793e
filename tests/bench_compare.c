/*
 * bench_compare.c — the cost per element of compare_f32 / compare_f64 and
 * of the decision counts (decisions.h) on a SmallCNN-sized activation
 * (256 x 16 x 28 x 28 = 3.2 M elements), the size the audit compares many
 * times per fully compared step.
 *
 *   build/tests/bench_compare [REPS]
 *
 * Three inputs: an fp32 reference with every element equal (the fast path),
 * an fp32 reference with two thirds of the elements a few ULPs off (engine
 * vs engine after a few steps), and a double reference whose fp32 candidate
 * is the rounded value plus 0..3 ULPs (engine vs the MPFR reference).  The
 * decisions run on the same double reference and its candidate after a
 * ReLU: ReLU signs, 2x2 max-pool arg-maxes (with the flipped-window mask)
 * and the error share of that mask.  The audit's check on the double
 * reference: compare_f64 with a bound per element, and the sharper tier
 * (rounding_tests.h) on the same bound.
 *
 * Prints the median of REPS runs in ns per (input) element, in this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the machine's cores are
 * shared, and other processes disturb CPU time much less than the wall
 * clock (through the caches only).  Still, run it alone.
 *
 * Not here: correctness (tests/test_compare.c, tests/test_decisions.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/compare.h"
#include "checks/decisions.h"
#include "checks/rounding_tests.h"
#include "base/util.h"

static uint64_t g_x = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void) {
    g_x ^= g_x << 13;
    g_x ^= g_x >> 7;
    g_x ^= g_x << 17;
    return g_x;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static float step_ulps(float f, int k) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += (uint32_t)k; /* away from zero for either sign: fine for timing */
    memcpy(&f, &u, 4);
    return f;
}

typedef enum {
    CASE_F32_EQUAL,
    CASE_F32_MIXED,
    CASE_F64,
    CASE_F64_BOUND,
    CASE_SHARP_F64,
    CASE_RELU_F32,
    CASE_RELU_F64,
    CASE_POOL_F32,
    CASE_POOL_F64,
    CASE_SHARE_F64,
} bench_case;

static uint8_t *g_mask;
static double *g_bound;     /* a worst-case bound per element (the audit's checks) */
static uint64_t *g_hash;    /* the sharper tier's duplicate set (rounding_tests.h) */
static size_t g_hash_cap;

static double median_ns(bench_case c, const float *rf, const double *rd, const float *cand, const float *ceq,
                        size_t n, int reps) {
    double t[64];
    if (reps > 64) reps = 64;
    compare_stats s = {0};
    decision_stats d = {0};
    decision_share sh = {0};
    volatile double sink = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = cpu_now();
        switch (c) {
        case CASE_F32_EQUAL: compare_f32(&s, rf, ceq, n, NULL); break;
        case CASE_F32_MIXED: compare_f32(&s, rf, cand, n, NULL); break;
        case CASE_F64: compare_f64(&s, rd, cand, n, NULL); break;
        case CASE_F64_BOUND: compare_f64(&s, rd, cand, n, g_bound); break;
        case CASE_SHARP_F64: {
            /* the audit's call (driver.c sharp_check): a DOT rule's factors, 16 channels of 28 x 28 */
            static rounding_stats rs;
            rounding_test_f64(&rs, rd, cand, g_bound, n, 0.05, 0.01, 0.0, 1e-10, g_hash, g_hash_cap, 28 * 28, 16);
            sink += rs.max_sharp_ratio;
            break;
        }
        case CASE_RELU_F32: decision_relu_f32(&d, rf, cand, n, NULL, g_mask); break;
        case CASE_RELU_F64: decision_relu_f64(&d, rd, cand, n, NULL, g_mask); break;
        case CASE_POOL_F32: decision_maxpool_f32(&d, rf, cand, 256, 16, 28, 28, NULL, g_mask); break;
        case CASE_POOL_F64: decision_maxpool_f64(&d, rd, cand, 256, 16, 28, 28, NULL, g_mask); break;
        case CASE_SHARE_F64: decision_share_f64(&sh, rd, cand, g_mask, n); break;
        }
        t[r] = (cpu_now() - t0) * 1e9 / (double)n;
        sink += s.max_abs + (double)d.n_flips + sh.share;
    }
    (void)sink;
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    return t[reps / 2];
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1) reps = 1;
    const size_t n = (size_t)256 * 16 * 28 * 28;
    float *rf = malloc(n * sizeof *rf), *cand = malloc(n * sizeof *cand), *cd = malloc(n * sizeof *cd);
    double *rd = malloc(n * sizeof *rd);
    if (!rf || !cand || !cd || !rd) {
        fprintf(stderr, "bench_compare: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        /* roughly a post-conv activation: signed, a few decades of magnitude,
         * a quarter exact zeros (dead ReLU inputs) */
        uint64_t u = next_u64();
        double v = ((double)(u >> 11) * 0x1p-53 - 0.5) * 4.0;
        if ((u & 3) == 0) v = 0;
        rd[i] = v * (1 + 0x1p-30 * (double)(u & 0xff)); /* not representable in fp32 */
        rf[i] = (float)rd[i];
        int k = (int)((u >> 8) % 3); /* 0, 1, 2 ULPs: two thirds differ */
        cand[i] = rf[i] == 0 ? rf[i] : step_ulps(rf[i], k);
        cd[i] = rf[i] == 0 ? rf[i] : step_ulps(rf[i], (int)((u >> 12) & 3));
    }
    printf("compare, %zu elements (256x16x28x28), median of %d, ns per element:\n", n, reps);
    printf("  f32 reference, all equal:        %.2f\n", median_ns(CASE_F32_EQUAL, rf, rd, cand, rf, n, reps));
    printf("  f32 reference, 2/3 differ:       %.2f\n", median_ns(CASE_F32_MIXED, rf, rd, cand, rf, n, reps));
    printf("  f64 reference, 0..3 ULPs off:    %.2f\n", median_ns(CASE_F64, rf, rd, cd, rf, n, reps));
    /* the audit's check: a bound per element (K = 145 terms of |v|), then the sharper tier on it */
    g_bound = malloc(n * sizeof *g_bound);
    g_hash_cap = 2 * RT_SAMPLE;
    g_hash = malloc(g_hash_cap * sizeof *g_hash);
    if (!g_bound || !g_hash) {
        fprintf(stderr, "bench_compare: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++) g_bound[i] = 145 * 0x1p-24 * (fabs(rd[i]) + 0.25);
    printf("  f64 reference with bounds:       %.2f\n", median_ns(CASE_F64_BOUND, rf, rd, cd, rf, n, reps));
    printf("  sharper tier (rounding_tests):   %.2f\n", median_ns(CASE_SHARP_F64, rf, rd, cd, rf, n, reps));
    free(g_bound);
    free(g_hash);
    g_mask = malloc(n);
    if (!g_mask) {
        fprintf(stderr, "bench_compare: out of memory\n");
        return 2;
    }
    /* the decisions see a pool input: the ReLU's output, so a quarter of
     * zeros becomes about five eighths, and many windows tie at 0 */
    for (size_t i = 0; i < n; i++) {
        if (rd[i] < 0) rd[i] = 0;
        rf[i] = (float)rd[i];
        if (cd[i] < 0) cd[i] = 0;
    }
    decision_stats d;
    decision_maxpool_f64(&d, rd, cd, 256, 16, 28, 28, NULL, NULL);
    printf("decisions on the same sizes (a ReLU'd input, 0..3 ULPs off: %zu of %zu windows flip), ns per element:\n",
           d.n_flips, d.n_decisions);
    printf("  relu signs, f32 reference:       %.2f\n", median_ns(CASE_RELU_F32, rf, rd, cd, rf, n, reps));
    printf("  relu signs, f64 reference:       %.2f\n", median_ns(CASE_RELU_F64, rf, rd, cd, rf, n, reps));
    printf("  max-pool arg-max, f32 reference: %.2f\n", median_ns(CASE_POOL_F32, rf, rd, cd, rf, n, reps));
    printf("  max-pool arg-max, f64 reference: %.2f\n", median_ns(CASE_POOL_F64, rf, rd, cd, rf, n, reps));
    printf("  error share of the mask, f64:    %.2f\n", median_ns(CASE_SHARE_F64, rf, rd, cd, rf, n, reps));
    free(g_mask);
    free(rf);
    free(cand);
    free(cd);
    free(rd);
    return 0;
}
