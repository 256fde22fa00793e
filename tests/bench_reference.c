/*
 * bench_reference.c — issue 3's speed figures for the reference engine:
 * one full SmallCNN training step (set_batch, forward, loss, backward,
 * Adam) on a real FashionMNIST batch of 256, in fp32cr mode and in exact
 * mode at P = 128, with 2 threads; the median over a few steps, the
 * multiply-adds per second, and in the same run the baseline: a plain
 * mpfr_mul + mpfr_add loop at P = 128 over the same number of
 * multiply-adds (timed on a sample, run with the same thread count).
 *
 *   build/tests/bench_reference [THREADS] [FP32CR_STEPS] [EXACT_STEPS]
 *
 * "Nominal" multiply-adds count every term of every dot product of the
 * step (forward, backward-weights, backward-data except for the first
 * layer); the engine skips terms with a zero operand (ReLU and max-pool
 * leave many), so its effective rate per term actually computed is
 * higher than the nominal one printed.
 *
 * Not here: correctness (tests/test_reference.c).  Exit status 0 always
 * when it ran; the targets are printed, not enforced (the machine is
 * shared, wall-clock numbers vary).
 */
#include <mpfr.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/data.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "kulisch.h"
#include "model/model.h"
#include "base/util.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every term of every dot product of one training step. */
static double nominal_macs(const model *m, size_t n) {
    double t = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        double kk = ly->kind == LAYER_CONV ? (double)ly->k * ly->k : 1.0;
        double per = (double)n * layer_out_size(ly) * ly->in_c * kk; /* (approximately: padding included) */
        t += per * (l > 0 ? 3 : 2);
    }
    return t;
}

static double run_steps(const char *spec, const model *m, const float *params, const float *x, const int32_t *y,
                        size_t n, int steps, double *lo, double *hi) {
    engine *e = NULL;
    engine_opts o = {42, n, 0};
    if (engine_create(&e, spec, m, &o) || engine_set_params(e, params)) {
        fprintf(stderr, "bench_reference: %s: %s\n", spec, ls_errmsg());
        return -1;
    }
    adam_cfg cfg = adam_default();
    double t[64];
    if (steps > 64) steps = 64;
    for (int s = 0; s <= steps; s++) { /* step 0 is the warm-up (first touch of the buffers) */
        float loss;
        double t0 = ls_now();
        if (engine_train_step(e, x, y, n, (uint64_t)s, &cfg, s + 1, &loss)) {
            fprintf(stderr, "bench_reference: %s: %s\n", spec, ls_errmsg());
            engine_free(e);
            return -1;
        }
        if (s > 0) t[s - 1] = ls_now() - t0;
    }
    engine_free(e);
    qsort(t, (size_t)steps, sizeof t[0], cmp_d);
    *lo = t[0];
    *hi = t[steps - 1];
    return t[steps / 2];
}

/* The baseline: acc += a[i] * b[i] with mpfr_mul then mpfr_add, both at P
 * bits, per thread over its own arrays; returns seconds per multiply-add
 * per thread. */
static double mpfr_baseline(int threads, mpfr_prec_t P, long per_thread) {
    double t_total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : t_total)
    {
        enum { K = 1024 };
        mpfr_t a[K], b[K], acc, tmp;
        for (int i = 0; i < K; i++) {
            mpfr_inits2(P, a[i], b[i], (mpfr_ptr)0);
            mpfr_set_ui(a[i], (unsigned long)(i + 3), MPFR_RNDN);
            mpfr_sqrt(a[i], a[i], MPFR_RNDN); /* full P-bit significands */
            mpfr_set_si(b[i], 7 - i, MPFR_RNDN);
            mpfr_cbrt(b[i], b[i], MPFR_RNDN);
        }
        mpfr_inits2(P, acc, tmp, (mpfr_ptr)0);
        mpfr_set_zero(acc, 1);
        double t0 = ls_now();
        for (long r = 0; r < per_thread / K; r++)
            for (int i = 0; i < K; i++) {
                mpfr_mul(tmp, a[i], b[i], MPFR_RNDN);
                mpfr_add(acc, acc, tmp, MPFR_RNDN);
            }
        t_total += (ls_now() - t0) / (double)(per_thread / K * K);
        for (int i = 0; i < K; i++) mpfr_clears(a[i], b[i], (mpfr_ptr)0);
        mpfr_clears(acc, tmp, (mpfr_ptr)0);
    }
    return t_total / threads;
}

/* The Kulisch accumulator alone: ns per exact fp32 multiply-add, one thread. */
static double kulisch_rate(void) {
    enum { K = 4096 };
    static float a[K], b[K];
    static kfl ka[K], kb[K];
    for (int i = 0; i < K; i++) {
        a[i] = (float)((i * 2654435761u) % 1000) / 997.0f - 0.5f;
        b[i] = (float)((i * 40503u) % 1000) / 1013.0f - 0.5f;
    }
    int ea, eb;
    kfl_split(ka, a, K, &ea);
    kfl_split(kb, b, K, &eb);
    int reps = 2000;
    volatile float sink = 0;
    double t0 = ls_now();
    for (int r = 0; r < reps; r++) {
        kul_acc acc;
        kul_init(&acc, ea + eb, K);
        unsigned __int128 w = 0;
        for (int i = 0; i < K; i++) w = kul_macw(w, &acc, ka[i], kb[i]);
        acc.win = w;
        sink += kul_round(&acc, NULL);
    }
    (void)sink;
    return (ls_now() - t0) / ((double)reps * K);
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    int steps_cr = argc > 2 ? atoi(argv[2]) : 5;
    int steps_ex = argc > 3 ? atoi(argv[3]) : 3;
    if (threads < 1 || steps_cr < 1 || steps_ex < 1) {
        fprintf(stderr, "usage: bench_reference [THREADS] [FP32CR_STEPS] [EXACT_STEPS]\n");
        return 2;
    }
    const size_t n = 256;
    model m;
    dataset d;
    if (model_build(&m, "smallcnn") || dataset_load(&d, DATA_DEFAULT_DIR, m.n_classes)) {
        fprintf(stderr, "bench_reference: %s\n", ls_errmsg());
        return 2;
    }
    float *x = malloc(n * 784 * sizeof *x), *params = malloc(m.n_params * sizeof *params);
    int32_t *y = malloc(n * sizeof *y);
    data_make_batch(&d.train, NULL, 0, n, x, y);
    model_init_params(&m, params, 42);
    double macs = nominal_macs(&m, n);
    printf("bench_reference: SmallCNN, batch %zu (real FashionMNIST), %d threads; one training step = %.3g nominal "
           "multiply-adds\n", n, threads, macs);
    char spec[128];
    double lo, hi, med;

    snprintf(spec, sizeof spec, "reference:mode=fp32cr:threads=%d", threads);
    med = run_steps(spec, &m, params, x, y, n, steps_cr, &lo, &hi);
    if (med > 0)
        printf("  fp32cr       : %.3f s/step median of %d (%.3f .. %.3f)  %.3g nominal MAC/s   target <= 1.5 s: %s\n",
               med, steps_cr, lo, hi, macs / med, med <= 1.5 ? "met" : "NOT met");

    snprintf(spec, sizeof spec, "reference:prec=128:threads=%d", threads);
    double med_ex = run_steps(spec, &m, params, x, y, n, steps_ex, &lo, &hi);
    if (med_ex > 0)
        printf("  exact P=128  : %.3f s/step median of %d (%.3f .. %.3f)  %.3g nominal MAC/s   target <= 12 s: %s\n",
               med_ex, steps_ex, lo, hi, macs / med_ex, med_ex <= 12 ? "met" : "NOT met");

    long sample = 4000000; /* multiply-adds per thread for the baseline sample */
    double s_mac = mpfr_baseline(threads, 128, sample);
    double base_step = s_mac * macs / threads;
    printf("  baseline     : plain mpfr_mul + mpfr_add at P=128: %.1f ns per multiply-add per thread "
           "(%ld-term sample per thread) -> %.3g MAC/s on %d threads; the step's %.3g multiply-adds would take "
           "%.1f s\n", s_mac * 1e9, sample, threads / s_mac, threads, macs, base_step);
    if (med_ex > 0)
        printf("                 exact mode is %.1fx the baseline; fp32cr is %.1fx\n", base_step / med_ex,
               med > 0 ? base_step / med : 0.0);
    printf("  kulisch      : %.2f ns per exact fp32 multiply-add (accumulator alone, 1 thread, contiguous)\n",
           kulisch_rate() * 1e9);
    printf("  peak resident memory %.0f MiB\n", (double)ls_peak_rss() / (1 << 20));
    free(x);
    free(params);
    free(y);
    dataset_free(&d);
    return 0;
}
