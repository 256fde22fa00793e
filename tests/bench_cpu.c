/*
 * bench_cpu.c — step time of the cpu engine on SmallCNN (or another model):
 * warm-up steps, then timed training steps (set_batch + forward + loss +
 * backward + Adam) on a fixed random batch; prints the median and the
 * quartiles, images/s, a per-layer breakdown and the peak RSS.
 *
 *   build/tests/bench_cpu [ENGINE_SPEC] [BATCH] [STEPS] [MODEL]
 *   e.g. nice build/tests/bench_cpu cpu:threads=2 256 200 smallcnn
 *
 * Not here: data loading (see `lockstep train` for whole epochs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"
#include "base/util.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "cpu";
    size_t batch = argc > 2 ? (size_t)atol(argv[2]) : 256;
    int steps = argc > 3 ? atoi(argv[3]) : 100;
    const char *mname = argc > 4 ? argv[4] : "smallcnn";
    int warm = 10;
    model m;
    if (model_build(&m, mname)) {
        fprintf(stderr, "%s\n", ls_errmsg());
        return 2;
    }
    engine *e = NULL;
    engine_opts o = {42, batch, 0};
    if (engine_create(&e, spec, &m, &o)) {
        fprintf(stderr, "%s\n", ls_errmsg());
        return 2;
    }
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *x = malloc(batch * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t *y = malloc(batch * sizeof *y);
    double *t = malloc((size_t)steps * sizeof *t);
    for (size_t i = 0; i < batch * in; i++) x[i] = (float)((i * 2654435761u) % 256u) / 255.0f;
    for (size_t i = 0; i < batch; i++) y[i] = (int32_t)(i % (size_t)m.n_classes);
    model_init_params(&m, p, 42);
    adam_cfg cfg = adam_default();
    int rc = engine_set_params(e, p);
    for (int s = 0; s < warm + steps && rc == 0; s++) {
        if (s == warm) memset(&e->timing, 0, sizeof e->timing);
        double t0 = ls_now();
        float loss;
        rc = engine_train_step(e, x, y, batch, (uint64_t)s, &cfg, s + 1, &loss);
        if (s >= warm) t[s - warm] = ls_now() - t0;
    }
    if (rc) {
        fprintf(stderr, "%s\n", ls_errmsg());
        return 1;
    }
    qsort(t, (size_t)steps, sizeof *t, cmp_d);
    double med = t[steps / 2];
    printf("%s %s batch %zu: step median %.2f ms (q1 %.2f, q3 %.2f) = %.0f images/s; peak RSS %.1f MiB\n", spec,
           mname, batch, 1e3 * med, 1e3 * t[steps / 4], 1e3 * t[3 * steps / 4], (double)batch / med,
           (double)ls_peak_rss() / 1048576.0);
    for (int l = 0; l < m.n_layers; l++)
        printf("  %-8s fwd %6.3f ms  bwd %6.3f ms\n", m.layers[l].name, 1e3 * e->timing.layer_s[l][DIR_FWD] / steps,
               1e3 * e->timing.layer_s[l][DIR_BWD] / steps);
    printf("  set_batch %.3f ms  loss %.3f ms  update %.3f ms\n", 1e3 * e->timing.set_batch_s / steps,
           1e3 * e->timing.loss_s / steps, 1e3 * e->timing.update_s / steps);
    char *d = engine_describe(e);
    if (d && strstr(d, "\"fused\""))
        printf("  (ReLU + max-pool pairs run fused: a pair's forward is charged to the pool, its backward to the "
               "ReLU)\n");
    free(d);
    engine_free(e);
    free(x);
    free(p);
    free(y);
    free(t);
    return 0;
}
