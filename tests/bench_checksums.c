/*
 * bench_checksums.c — the cost of the every-step checksums against a
 * training step, in one process (no IPC): the cpu engine, SmallCNN, batch
 * 256 by default.  Prints medians over R rounds of: a training step, the
 * STEP-stage vector, the UPDATE-stage vector, a light step's STEP vector.
 *   build/tests/bench_checksums [engine] [batch] [rounds] [dump]
 * With dump, the last round's STEP and UPDATE vectors are written there
 * as raw doubles (to compare two implementations of the same vectors).
 * BENCH_MODEL=mnist-convnet picks the other built-in model; BENCH_CK_THREADS=K
 * runs the checks on K threads; BENCH_CK_REPEAT=K times the STEP vector K
 * more times on the last step, alone (to profile the checks; BENCH_CK_LIGHT=1: the
 * light vector).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "base/rng.h"
#include "base/util.h"
#include "checks/checksums.h"
#include "engines/checksums.h"
#include "engines/registry.h"

/* The memory floor of any check that reads the engine's tensors after the
 * step, apart from the kernels that wrote them: one pass over every tensor
 * the STEP vector reads (the image, each non-fused layer's ACT and DACT,
 * in the engine's own buffers where it offers them, else a plain copy made
 * before the clock starts), summed in float with 16 independent lanes (no
 * arithmetic to speak of: a read at the cores' streaming rate), on nth
 * threads (the checks' own count).  Returns the seconds; *bytes: what it
 * read. */
static double floor_pass(engine *e, const model *m, size_t n, int nth, float **copies, size_t *bytes) {
    const engine_i *I = e->iface;
    const float *buf[2 * MODEL_MAX_LAYERS + 1];
    size_t len[2 * MODEL_MAX_LAYERS + 1], nb = 0;
    static float img[4096 * 784];
    if (I->get_tensor(e, (tensor_id){TENSOR_INPUT, 0}, img) == 0) buf[nb] = img, len[nb++] = n * 784;
    for (int l = 0; l < m->n_layers; l++) {
        int fused = I->ck_fused && l > 0 && l + 1 < m->n_layers && m->layers[l].kind == LAYER_RELU &&
                    m->layers[l + 1].kind == LAYER_MAXPOOL && I->ck_fused(e, l, 1);
        if (fused || m->layers[l].kind == LAYER_FLATTEN) continue;
        for (int g = 0; g < 2; g++) {
            tensor_id t = {g ? TENSOR_DACT : TENSOR_ACT, l};
            const float *p = NULL;
            int cb = 0;
            if (I->ck_view) I->ck_view(e, t, &p, &cb);
            size_t cnt = n * layer_out_size(&m->layers[l]);
            if (!p) {
                float **c = &copies[2 * l + g];
                if (!*c) *c = malloc(cnt * sizeof **c);
                if (!*c || I->get_tensor(e, t, *c) != 0) continue;
                p = *c;
            }
            buf[nb] = p, len[nb++] = cnt;
        }
    }
    size_t tot = 0;
    for (size_t b = 0; b < nb; b++) tot += len[b];
    double t0 = ls_now();
    float acc[8][16] = {{0}};
    /* each thread reads a contiguous share of every tensor */
#pragma omp parallel num_threads(nth)
    {
        int T = omp_get_num_threads(), id = omp_get_thread_num();
        float a[16] = {0};
        for (size_t b = 0; b < nb; b++) {
            size_t lo = len[b] * (size_t)id / (size_t)T / 16 * 16, hi = len[b] * (size_t)(id + 1) / (size_t)T / 16 * 16;
            if (id == T - 1) hi = len[b];
            size_t i = lo;
            for (; i + 16 <= hi; i += 16)
                for (int l = 0; l < 16; l++) a[l] += buf[b][i + l];
            for (; i < hi; i++) a[0] += buf[b][i];
        }
        for (int l = 0; l < 16; l++) acc[id & 7][l] = a[l];
    }
    double t = ls_now() - t0;
    volatile float sink = 0;
    for (int k = 0; k < 8; k++)
        for (int l = 0; l < 16; l++) sink += acc[k][l];
    (void)sink;
    *bytes = tot * sizeof(float);
    return t;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "cpu";
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 256;
    int R = argc > 3 ? atoi(argv[3]) : 10;
    if (R < 1 || R > 1000 || n < 1 || n > 4096) return 2;
    model m;
    const char *mname = getenv("BENCH_MODEL"); /* smallcnn unless set (mnist-convnet: pad 0, dropout) */
    if (model_build(&m, mname && *mname ? mname : "smallcnn")) return 1;
    /* BENCH_CK_THREADS=K: the checks on K threads (engine_opts.ck_threads; an audit
     * with several cpu engines gives each its share of the cores) */
    const char *ckt = getenv("BENCH_CK_THREADS");
    engine_opts o = {.seed = 1, .max_batch = n, .ck_threads = ckt ? atoi(ckt) : 0};
    engine *e = NULL;
    if (engine_create(&e, spec, &m, &o)) {
        fprintf(stderr, "bench_checksums: %s\n", ls_errmsg());
        return 1;
    }
    float *x = malloc(n * 784 * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t *y = malloc(n * sizeof *y);
    ck_layout L;
    ck_layout_make(&L, &m, n);
    double *v = malloc(2 * L.total * sizeof *v), *ts = malloc(6 * (size_t)R * sizeof *ts);
    double *lv = malloc(L.total * sizeof *lv); /* a light step's STEP vector (--complete-every: CK_STAGE_LIGHT) */
    double *hv = malloc((L.total + 1) * sizeof *hv); /* a repeat's hash-only STEP (engine.h) */
    float *copies[2 * MODEL_MAX_LAYERS] = {0};
    int fnth = o.ck_threads > 0 ? o.ck_threads : omp_get_num_procs() < 8 ? omp_get_num_procs() : 8;
    size_t fbytes = 0;
    if (!x || !p || !y || !v || !ts || !hv || !lv) return 1;
    for (size_t i = 0; i < n * 784; i++) x[i] = rng_uniform(5, (uint32_t)i, 0, 0, 3);
    for (size_t i = 0; i < n; i++) y[i] = (int32_t)(i % 10);
    model_init_params(&m, p, 1);
    adam_cfg a = adam_default();
    int rc = engine_set_params(e, p);
    int no_hash = 0; /* the engine has no operand hash (cuda) */
    for (int r = 0; r < R && !rc; r++) {
        double t0 = ls_now();
        rc = engine_set_batch(e, x, y, n, (uint64_t)r + 1);
        if (!rc) rc = engine_forward(e, 1);
        if (!rc) rc = engine_loss(e, NULL);
        if (!rc) rc = engine_backward(e);
        double t1 = ls_now();
        /* the floor first, on this step's tensors as the STEP vector finds
         * them (after it, they would be warm from the vector's own reads) */
        if (!rc) ts[3 * R + r] = floor_pass(e, &m, n, fnth, copies, &fbytes);
        double tl = ls_now();
        if (!rc) rc = engine_checksums(e, CK_STAGE_STEP | CK_STAGE_LIGHT, lv);
        ts[5 * R + r] = ls_now() - tl;
        double t1b = ls_now();
        if (!rc) rc = engine_checksums(e, CK_STAGE_STEP, v);
        double t2 = ls_now();
        if (!rc && !no_hash) {
            rc = engine_checksums(e, CK_STAGE_STEP | CK_STAGE_HASH_ONLY, hv);
            if (rc == LS_EINVAL) no_hash = 1, rc = 0, ls_err_clear(); /* cuda: no operand hash */
        }
        ts[4 * R + r] = ls_now() - t2;
        t2 = ls_now();
        if (!rc) rc = engine_update(e, &a, r + 1);
        double t3 = ls_now();
        if (!rc) rc = engine_checksums(e, CK_STAGE_UPDATE, v + L.total);
        double t4 = ls_now();
        ts[r] = (t1 - t0) + (t3 - t2), ts[R + r] = t2 - t1b, ts[2 * R + r] = t4 - t3;
    }
    if (rc) {
        fprintf(stderr, "bench_checksums: %s\n", ls_errmsg());
        return 1;
    }
    if (argc > 4) {
        FILE *f = fopen(argv[4], "wb");
        if (!f || fwrite(v, sizeof *v, 2 * L.total, f) != 2 * L.total || fclose(f)) {
            fprintf(stderr, "bench_checksums: %s: cannot write\n", argv[4]);
            return 1;
        }
    }
    /* BENCH_CK_REPEAT=K: the STEP vector K more times on the last step
     * (nothing else in between: a profile of the checks alone) */
    const char *rep = getenv("BENCH_CK_REPEAT");
    int K = rep ? atoi(rep) : 0;
    double *kt = K > 0 ? malloc((size_t)K * sizeof *kt) : NULL;
    const char *rl = getenv("BENCH_CK_LIGHT"); /* =1: the light vector there instead (to profile it) */
    int rstage = CK_STAGE_STEP | (rl && *rl == '1' ? CK_STAGE_LIGHT : 0);
    for (int k = 0; k < K && kt && !rc; k++) {
        double k0 = ls_now();
        rc = engine_checksums(e, rstage, rstage == CK_STAGE_STEP ? v : lv);
        kt[k] = ls_now() - k0;
    }
    if (kt) qsort(kt, (size_t)K, sizeof *kt, cmp);
    /* the judgement of the last STEP vector (the audit's parent does it), both tiers */
    double j0 = ls_now();
    int J = 20;
    for (int k = 0; k < J && !rc; k++) {
        ck_verdict cv;
        ck_verdict_init(&cv);
        rc = checksums_judge(&m, v, n, y, 0, CK_BLOCKS_ALL, &cv);
    }
    double jt = (ls_now() - j0) / J;
    for (int k = 0; k < 6; k++) qsort(ts + k * R, (size_t)R, sizeof *ts, cmp);
    double st = ts[R / 2], c1 = ts[R + R / 2], c2 = ts[2 * R + R / 2], fl = ts[3 * R + R / 2];
    printf("%s, batch %zu, median of %d: training step %.1f ms, checksums STEP %.1f ms + UPDATE %.1f ms (%.0f%% of the step); "
           "judging the STEP vector %.2f ms\n",
           spec, n, R, 1e3 * st, 1e3 * c1, 1e3 * c2, 100 * (c1 + c2) / st, 1e3 * jt);
    printf("floor: one read of the %.1f MB the STEP vector reads, on %d thread(s), right after the step: %.2f ms "
           "(%.0f%% of the step; %.1f GB/s)\n",
           fbytes / 1e6, fnth, 1e3 * fl, 100 * fl / st, fbytes / fl / 1e9);
    if (!no_hash)
        printf("a repeat's STEP stage when it shares its first listing's vector (CK_STAGE_HASH_ONLY: the operand "
               "hash): %.2f ms (%.0f%% of the step)\n", 1e3 * ts[4 * R + R / 2], 100 * ts[4 * R + R / 2] / st);
    printf("a light step's STEP vector (--complete-every K: the conv layers' plain relations only): %.1f ms (%.0f%% of the step)\n",
           1e3 * ts[5 * R + R / 2], 100 * ts[5 * R + R / 2] / st);
    if (kt) printf("STEP vector alone, again on the last step: median of %d %.1f ms\n", K, 1e3 * kt[K / 2]);
    free(kt);
    engine_free(e);
    for (int k = 0; k < 2 * MODEL_MAX_LAYERS; k++) free(copies[k]);
    free(x), free(p), free(y), free(v), free(ts), free(hv), free(lv);
    return 0;
}
