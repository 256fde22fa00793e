/*
 * bench_ck_dump.c — the every-step checksum vectors of a few steps of real
 * training, dumped raw, to compare two builds of src/engines/checksums.c
 * bit for bit (scripts/ck-bitid.sh runs an old and a new build of this
 * program and cmp's their files).  A speed-up of the checks must leave every
 * byte of every vector as it was: the bounds and the fault zoo's score rest
 * on the exact order of each sum.
 *   build/tests/bench_ck_dump OUTDIR [quick]
 *   build/tests/bench_ck_dump time K   (the STEP vector's CPU time, K times)
 *   bench_ck_dump OUTDIR faults MODEL:FAULT...  (linked with the fault zoo's objects: ck-bitid.sh --faults)
 * One file per configuration (engine spec, model, batch, the checks'
 * thread count, the re-do's vector ISA): for each of 3 steps of
 * FashionMNIST training (the train set's first batches; random images when
 * the data set is absent), the STEP vector with its operand hash
 * (CK_STAGE_STEP | CK_STAGE_HASH), the hash-only STEP stage, the UPDATE
 * vector with its hash, and the EVAL vector of an inference forward on a
 * test batch.  Each buffer is filled with a marker first, so words a stage
 * leaves unwritten compare too.  quick: the batch-256 configurations only.
 * Prints one line per configuration: its name and an FNV-1a digest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/rng.h"
#include "base/util.h"
#include "engines/checksums.h"
#include "engines/registry.h"
#include "formats/data.h"

typedef struct {
    const char *spec, *model;
    size_t n;
    int ck_threads;
    const char *isa; /* ck_redo_force_isa; NULL: the machine's best */
    int steps;       /* 0: 3 */
} cfg;

/* a digest of len bytes (len a multiple of 8), word by word */
static uint64_t fnv(uint64_t h, const void *p, size_t len) {
    const unsigned char *b = p;
    for (size_t i = 0; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static int run_cfg(const cfg *c0, const dataset *ds, int have_data, const char *dir) {
    cfg cc = *c0, *c = &cc;
    if (c->steps <= 0) c->steps = 3;
    model m;
    if (model_build(&m, c->model)) return 1;
    engine_opts o = {.seed = 1, .max_batch = c->n, .ck_threads = c->ck_threads};
    engine *e = NULL;
    if (engine_create(&e, c->spec, &m, &o)) {
        printf("%s: %s (skipped)\n", c->spec, ls_errmsg());
        ls_err_clear();
        return 0;
    }
    if (c->isa && ck_redo_force_isa(c->isa)) {
        printf("%s %s n=%zu ck=%d isa=%s: not on this machine (skipped)\n", c->spec, c->model, c->n, c->ck_threads,
               c->isa);
        engine_free(e);
        return 0;
    }
    size_t n = c->n, in = (size_t)m.in_c * m.in_h * m.in_w;
    float *x = malloc(n * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t *y = malloc(n * sizeof *y);
    ck_layout L;
    ck_layout_make(&L, &m, n);
    size_t nv = L.total + 1;
    double *v = malloc(nv * sizeof *v);
    char path[1024], name[256];
    snprintf(name, sizeof name, "%s_%s_n%zu_ck%d_%s", c->spec, c->model, n, c->ck_threads, c->isa ? c->isa : "best");
    for (char *q = name; *q; q++)
        if (*q == ':' || *q == '=' || *q == ',') *q = '-';
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = strcmp(dir, "-") ? fopen(path, "wb") : NULL; /* "-": the digests only */
    if (!x || !p || !y || !v || (!f && strcmp(dir, "-"))) return 1;
    model_init_params(&m, p, 1);
    adam_cfg a = adam_default();
    int rc = engine_set_params(e, p);
    uint64_t h = 1469598103934665603ull;
    for (int s = 0; s < c->steps && !rc; s++) {
        if (have_data && ds->train.rows * ds->train.cols == (int)in)
            data_make_batch(&ds->train, NULL, (size_t)s * n, n, x, y);
        else
            for (size_t i = 0; i < n * in; i++) x[i] = rng_uniform(5, (uint32_t)i, (uint32_t)s, 0, 1);
        if (!have_data)
            for (size_t i = 0; i < n; i++) y[i] = (int32_t)((i + (size_t)s) % 10);
        rc = engine_set_batch(e, x, y, n, (uint64_t)s + 1);
        if (!rc) rc = engine_forward(e, 1);
        if (!rc) rc = engine_loss(e, NULL);
        if (!rc) rc = engine_backward(e);
        static const int st[4] = {CK_STAGE_STEP | CK_STAGE_HASH, CK_STAGE_STEP | CK_STAGE_HASH_ONLY,
                                  CK_STAGE_UPDATE | CK_STAGE_HASH, CK_STAGE_EVAL};
        for (int k = 0; k < 4 && !rc; k++) {
            if (k == 2) rc = engine_update(e, &a, s + 1);
            if (k == 3) {
                if (have_data && ds->test.rows * ds->test.cols == (int)in)
                    data_make_batch(&ds->test, NULL, (size_t)s * n, n, x, y);
                if (!rc) rc = engine_set_batch(e, x, y, n, 0);
                if (!rc) rc = engine_forward(e, 0);
            }
            for (size_t i = 0; i < nv; i++) v[i] = -1234.5;
            if (!rc) rc = engine_checksums(e, st[k], v);
            if (!rc && f && fwrite(v, sizeof *v, nv, f) != nv) rc = 1;
            h = fnv(h, v, nv * sizeof *v);
        }
    }
    if (f && fclose(f)) rc = 1;
    if (rc) printf("%-60s stopped: %s\n", name, ls_errmsg());
    else printf("%-60s %016llx (%zu doubles x %d)\n", name, (unsigned long long)h, nv, 4 * c->steps);
    fflush(stdout);
    if (c->isa) (void)(ck_redo_force_isa("avx512f") == 0 || ck_redo_force_isa("avx2") == 0 || ck_redo_force_isa("scalar"));
    engine_free(e);
    free(x), free(p), free(y), free(v);
    return rc;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* time K: the STEP vector (and the hash-only stage) of one batch-256 step
 * on one check thread, K times each: min and median of this thread's CPU
 * time (less sensitive than wall time to a shared machine) */
static int time_mode(int K) {
    model m;
    if (model_build(&m, "smallcnn")) return 1;
    size_t n = 256;
    engine_opts o = {.seed = 1, .max_batch = n, .ck_threads = 1};
    engine *e = NULL;
    if (engine_create(&e, "cpu", &m, &o)) return 1;
    float *x = malloc(n * 784 * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t *y = malloc(n * sizeof *y);
    ck_layout L;
    ck_layout_make(&L, &m, n);
    double *v = malloc((L.total + 1) * sizeof *v), *t = malloc(4 * (size_t)K * sizeof *t);
    dataset ds;
    memset(&ds, 0, sizeof ds);
    if (dataset_load(&ds, DATA_DEFAULT_DIR, 10) == 0) data_make_batch(&ds.train, NULL, 0, n, x, y);
    else
        for (size_t i = 0; i < n * 784; i++) x[i] = rng_uniform(5, (uint32_t)i, 0, 0, 1), y[i % n] = (int32_t)(i % 10);
    model_init_params(&m, p, 1);
    int rc = engine_set_params(e, p);
    if (!rc) rc = engine_set_batch(e, x, y, n, 1);
    if (!rc) rc = engine_forward(e, 1);
    if (!rc) rc = engine_loss(e, NULL);
    if (!rc) rc = engine_backward(e);
    for (int k = 0; k < K && !rc; k++) {
        double c0 = cpu_now();
        rc = engine_checksums(e, CK_STAGE_STEP, v);
        double c1 = cpu_now();
        if (!rc) rc = engine_checksums(e, CK_STAGE_STEP | CK_STAGE_HASH_ONLY, v);
        double c2 = cpu_now();
        t[k] = c1 - c0, t[K + k] = c2 - c1;
    }
    if (rc) return 1;
    qsort(t, (size_t)K, sizeof *t, cmpd), qsort(t + K, (size_t)K, sizeof *t, cmpd);
    printf("STEP vector cpu-ms min %.2f median %.2f | hash-only min %.3f median %.3f\n", 1e3 * t[0], 1e3 * t[K / 2],
           1e3 * t[K], 1e3 * t[K + K / 2]);
    return 0;
}

/* faults OUTDIR MODEL:NAME...: the vectors of 9 steps (batch 32, one check
 * thread) of the cpu engine with each fault of the zoo switched in (a
 * build linked with the fault objects, LS_FAULTS: scripts/ck-bitid.sh
 * --faults); an engine that refuses the fault or fails mid-run writes what
 * it has, and the next goes on */
static int faults_mode(const char *dir, int argc, char **argv) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    int have = dataset_load(&ds, DATA_DEFAULT_DIR, 10) == 0;
    if (!have) ls_err_clear();
    for (int k = 0; k < argc; k++) {
        char spec[200], mod[64];
        const char *colon = strchr(argv[k], ':');
        if (!colon || (size_t)(colon - argv[k]) >= sizeof mod) continue;
        memcpy(mod, argv[k], (size_t)(colon - argv[k])), mod[colon - argv[k]] = 0;
        snprintf(spec, sizeof spec, "cpu:fault=%s", colon + 1);
        cfg c = {spec, mod, 32, 1, NULL, 9};
        if (run_cfg(&c, &ds, have, dir)) ls_err_clear();
    }
    if (have) dataset_free(&ds);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "time") == 0) return time_mode(atoi(argv[2]) > 0 ? atoi(argv[2]) : 10);
    if (argc > 2 && strcmp(argv[2], "faults") == 0) return faults_mode(argv[1], argc - 3, argv + 3);
    if (argc < 2) {
        fprintf(stderr, "usage: bench_ck_dump OUTDIR [quick]\n");
        return 2;
    }
    int quick = argc > 2 && strcmp(argv[2], "quick") == 0;
    static const cfg all[] = {
        {"cpu", "smallcnn", 256, 1, NULL, 3},
        {"cpu", "smallcnn", 256, 2, NULL, 3},
        {"cpu:threads=1", "smallcnn", 256, 1, NULL, 3},
        {"cpu", "smallcnn", 96, 1, NULL, 3},
        {"cpu", "smallcnn", 96, 2, NULL, 3},
        {"cpu", "smallcnn", 16, 1, NULL, 3},
        {"cpu", "smallcnn", 16, 2, NULL, 3},
        {"cpu", "smallcnn", 7, 3, NULL, 3},
        {"cpu", "smallcnn", 96, 1, "avx2", 3},
        {"cpu", "smallcnn", 96, 2, "scalar", 3},
        {"cpu", "smallcnn", 16, 1, "avx512f", 3},
        {"cpu:layout=plain", "smallcnn", 96, 2, NULL, 3},
        {"cpu:fuse=off", "smallcnn", 96, 1, NULL, 3},
        {"cpu:tf32=on", "smallcnn", 16, 2, NULL, 3},
        {"cpu", "mnist-convnet", 96, 2, NULL, 3},
        {"cpu", "mnist-convnet", 16, 1, NULL, 3},
        {"cpu", "smallcnn", 256, 1, "avx2", 3},
    };
    dataset ds;
    memset(&ds, 0, sizeof ds);
    int have = dataset_load(&ds, DATA_DEFAULT_DIR, 10) == 0;
    if (!have) ls_err_clear(), fprintf(stderr, "bench_ck_dump: no data set (%s): random images\n", DATA_DEFAULT_DIR);
    int rc = 0;
    for (size_t k = 0; k < sizeof all / sizeof *all && !rc; k++)
        if (!quick || all[k].n == 256) rc = run_cfg(&all[k], &ds, have, argv[1]);
    if (have) dataset_free(&ds);
    return rc;
}
