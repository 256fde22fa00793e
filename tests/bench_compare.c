/*
 * bench_compare.c — the cost per element of compare_f32 / compare_f64 on a
 * SmallCNN-sized activation (256 x 16 x 28 x 28 = 3.2 M elements), the
 * size the audit compares many times per fully compared step.
 *
 *   build/tests/bench_compare [REPS]
 *
 * Three inputs: an fp32 reference with every element equal (the fast path),
 * an fp32 reference with two thirds of the elements a few ULPs off (engine
 * vs engine after a few steps), and a double reference whose fp32 candidate
 * is the rounded value plus 0..3 ULPs (engine vs the MPFR reference).
 * Prints the median of REPS runs in ns per element.  Run it alone: the
 * machine's cores are shared and the figures are wall-clock.
 *
 * Not here: correctness (tests/test_compare.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

static uint64_t g_x = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void) {
    g_x ^= g_x << 13;
    g_x ^= g_x >> 7;
    g_x ^= g_x << 17;
    return g_x;
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

typedef enum { CASE_F32_EQUAL, CASE_F32_MIXED, CASE_F64 } bench_case;

static double median_ns(bench_case c, const float *rf, const double *rd, const float *cand, const float *ceq,
                        size_t n, int reps) {
    double t[64];
    if (reps > 64) reps = 64;
    compare_stats s;
    volatile double sink = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = ls_now();
        if (c == CASE_F32_EQUAL) compare_f32(&s, rf, ceq, n, NULL);
        else if (c == CASE_F32_MIXED) compare_f32(&s, rf, cand, n, NULL);
        else compare_f64(&s, rd, cand, n, NULL);
        t[r] = (ls_now() - t0) * 1e9 / (double)n;
        sink += s.max_abs;
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
    free(rf);
    free(cand);
    free(cd);
    free(rd);
    return 0;
}
