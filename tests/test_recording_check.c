/*
 * test_recording_check.c — a recording's contents checked as data
 * (src/formats/recording_check.c, issue 25 items 1 and 2), as a user meets
 * it: build/lockstep audit --engines reference,recorded:F.
 *
 * A recording of cpu:threads=1 (a 3390-parameter model, 8 steps of batch
 * 8, 64 test images, full at 1,2,4,8) is made once; then each impossible content the attack on
 * b56b585 found accepted is rebuilt from it with rewrite(): every record
 * read back, one changed (a value, a shape, a duplicate, a record more),
 * the file written again by golden.c's writer, so every CRC is valid.
 * Each must exit 2 with a message naming the file, the record and the
 * field (the checksum vectors' cases too: header, length, values, count,
 * place).  An untouched rewrite is byte for byte the original and audits
 * the same.  And the audit shadows a recording made with the default plan
 * (audit_every 50 over 8 steps: no multiple of 50 in the run) at least
 * once (item 2: it used to report 0 shadow replays and "no problem").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "formats/golden.h"
#include "formats/data.h"
#include "formats/recording.h"

static char g_bin[PATH_MAX], g_dir[64], g_rec[128], g_dflt[128];
static int g_ok;

/* a model of 3390 parameters: small files, quick rewrites */
static const char TINY[] = "input 1 28 28; conv 2 3; relu; maxpool; flatten; dense 10\n";
static char SLICE[256];

static int have_data(void) { return access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) == 0; }

static int run(const char *args, char *out, size_t cap) {
    char cmd[PATH_MAX + 1024];
    snprintf(cmd, sizeof cmd, "timeout 120 %s %s 2>&1 </dev/null", g_bin, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int setup(void **st) {
    ssize_t n = readlink("/proc/self/exe", g_bin, sizeof g_bin - 32);
    if (n <= 0) return -1;
    g_bin[n] = 0;
    strcpy(strrchr(g_bin, '/'), "/../lockstep");
    if (!have_data()) return 0;
    snprintf(g_dir, sizeof g_dir, "/tmp/ls_reccheck_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    snprintf(g_rec, sizeof g_rec, "%s/r.lsr", g_dir);
    snprintf(g_dflt, sizeof g_dflt, "%s/default-plan.lsr", g_dir);
    char spec[128];
    snprintf(spec, sizeof spec, "%s/tiny.spec", g_dir);
    FILE *f = fopen(spec, "w");
    if (!f || fputs(TINY, f) < 0 || fclose(f) != 0) return -1;
    snprintf(SLICE, sizeof SLICE, "--model %s --batch 8 --limit-train 64 --limit-test 64 --epochs 1", spec);
    char args[512], out[8192];
    snprintf(args, sizeof args, "record --engine cpu:threads=1 --out %s %s --audit-every 4 --ref-steps 2", g_rec, SLICE);
    g_ok = run(args, out, sizeof out) == 0;
    snprintf(args, sizeof args, "record --engine cpu:threads=1 --out %s %s", g_dflt, SLICE);
    g_ok = g_ok && run(args, out, sizeof out) == 0;
    if (!g_ok) fprintf(stderr, "record failed:\n%s\n", out);
    return 0;
}

static int teardown(void **st) {
    if (g_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) return -1;
    }
    return 0;
}

#define NEED()                                              \
    do {                                                    \
        if (!have_data()) skip();                           \
        if (!g_ok) fail_msg("the recordings were not made"); \
    } while (0)

/* One record as the rewrite hands it to an edit: everything mutable. */
typedef struct {
    uint32_t step;
    int32_t layer;
    unsigned kind;
    char name[GOLDEN_MAX_NAME + 1];
    int ndim;
    size_t shape[GOLDEN_MAX_NDIM];
    float *v;
    size_t count;
} rec_edit;

/* An edit: changes r in place; returns 0 keep, 1 drop, 2 keep and write a
 * second copy with step `dup_step`. */
typedef struct edit_case edit_case;
struct edit_case {
    const char *name;  /* the case */
    unsigned kind;
    long step;         /* -1: any */
    int layer;         /* -2: any */
    int (*fn)(rec_edit *r, const edit_case *c);
    double value;
    size_t at;
    long dup_step;
    const char *prov_key, *prov_val;
    const char *want_record, *want_field; /* what the message must name */
};

static size_t numel(const rec_edit *r) {
    size_t n = 1;
    for (int i = 0; i < r->ndim; i++) n *= r->shape[i];
    return n;
}

/* Rewrite `from` into `to` with golden.c's writer, each record passed
 * through c (NULL: unchanged).  So the CRCs are valid whatever changed. */
static void rewrite(const char *from, const char *to, const edit_case *c) {
    golden_file *gf;
    if (golden_read(&gf, from)) fail_msg("%s", ls_errmsg());
    golden_prov prov;
    golden_prov_init(&prov);
    for (size_t i = 0; i < gf->prov.n; i++) assert_int_equal(golden_prov_set(&prov, gf->prov.key[i], gf->prov.val[i]), 0);
    if (c && c->prov_key) assert_int_equal(golden_prov_set(&prov, c->prov_key, c->prov_val), 0);
    golden_writer *w;
    if (golden_writer_open(&w, to, &prov)) fail_msg("%s", ls_errmsg());
    int done = 0;
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *g = &gf->records[i];
        rec_edit r = {g->step, g->layer, g->kind, "", g->ndim, {0}, NULL, g->count};
        snprintf(r.name, sizeof r.name, "%s", g->name);
        memcpy(r.shape, g->shape, sizeof r.shape);
        r.v = malloc((g->count + 1) * sizeof *r.v);
        memcpy(r.v, g->values, g->count * sizeof *r.v);
        int act = 0;
        if (c && c->fn && !done && g->kind == c->kind && (c->step < 0 || (long)g->step == c->step) &&
            (c->layer == -2 || g->layer == c->layer)) {
            act = c->fn(&r, c);
            done = 1;
        }
        assert_true(numel(&r) <= g->count + 1);
        if (act != 1)
            assert_int_equal(golden_writer_add(w, r.step, r.layer, r.kind, r.name, r.ndim, r.shape, r.v), 0);
        if (act == 2)
            assert_int_equal(golden_writer_add(w, (uint32_t)c->dup_step, r.layer, r.kind, r.name, r.ndim, r.shape, r.v), 0);
        free(r.v);
    }
    if (c && c->fn && !done) fail_msg("case %s: no record to edit", c->name);
    assert_int_equal(golden_writer_close(w, 1), 0);
    golden_prov_free(&prov);
    golden_file_free(gf);
}

static int set_value(rec_edit *r, const edit_case *c) {
    r->v[c->at] = (float)c->value;
    return 0;
}
static int set_from_end(rec_edit *r, const edit_case *c) { /* v[count - at] = value */
    r->v[r->count - (size_t)c->at] = (float)c->value;
    return 0;
}
static int copy_prev(rec_edit *r, const edit_case *c) { /* a duplicated index */
    r->v[c->at] = r->v[c->at - 1];
    return 0;
}
static int shorten(rec_edit *r, const edit_case *c) { /* shape[0] = at */
    r->shape[0] = c->at;
    return 0;
}
static int two_d(rec_edit *r, const edit_case *c) {
    r->ndim = 2;
    r->shape[1] = r->shape[0];
    r->shape[0] = 1;
    return 0;
}
static int twice(rec_edit *r, const edit_case *c) { return 2; }
static int drop(rec_edit *r, const edit_case *c) { return 1; }
static int set_layer(rec_edit *r, const edit_case *c) {
    r->layer = (int32_t)c->value;
    return 0;
}
static int set_step(rec_edit *r, const edit_case *c) {
    r->step = (uint32_t)c->value;
    return 0;
}

enum { ANY = -2 };
#define K_LABELS GOLDEN_KIND_LABELS
#define K_INDEX GOLDEN_KIND_BATCH_INDEX
#define K_PRED GOLDEN_KIND_PREDICTIONS
#define K_CKS GOLDEN_KIND_CK_STEP
#define K_CKU GOLDEN_KIND_CK_UPDATE
#define K_CKE GOLDEN_KIND_CK_EVAL

/* The attack's 20 impossible contents (batch 8 and 64 test images here
 * where it had 64 and 200), then the 9 NaN/Inf ones of item 2, then a
 * pixel changed with the step's digest recomputed to match (only the
 * data can tell). */
static const edit_case CASES[] = {
    {"label 99", K_LABELS, 1, -1, set_value, 99, 0, 0, 0, 0, "step 1 labels", "labels"},
    {"label -1", K_LABELS, 1, -1, set_value, -1, 3, 0, 0, 0, "step 1 labels", "labels"},
    {"label NaN", K_LABELS, 2, -1, set_value, NAN, 1, 0, 0, 0, "step 2 labels", "labels"},
    {"batch index 1e9", K_INDEX, 1, -1, set_value, 1e9, 0, 0, 0, 0, "step 1 batch_index", "batch_index"},
    {"batch index -1", K_INDEX, 4, -1, set_value, -1, 2, 0, 0, 0, "step 4 batch_index", "batch_index"},
    {"batch index twice", K_INDEX, 2, -1, copy_prev, 0, 5, 0, 0, 0, "step 2 batch_index", "batch_index"},
    {"prediction 1e9", K_PRED, 8, -1, set_value, 1e9, 0, 0, 0, 0, "step 8 predictions", "predictions"},
    {"prediction -1", K_PRED, 8, -1, set_value, -1, 7, 0, 0, 0, "step 8 predictions", "predictions"},
    {"prediction NaN", K_PRED, 8, -1, set_value, NAN, 9, 0, 0, 0, "step 8 predictions", "predictions"},
    {"negative epoch time", GOLDEN_KIND_EPOCH, 8, -1, set_value, -1e30, 1, 0, 0, 0, "step 8 epoch", "train_s"},
    {"3 labels for a batch of 8", K_LABELS, 4, -1, shorten, 0, 3, 0, 0, 0, "step 4 labels", "shape"},
    {"4 images for 8", TENSOR_INPUT, 2, -1, shorten, 0, 4, 0, 0, 0, "step 2 input", "shape"},
    {"5 predictions of 64", K_PRED, 8, -1, shorten, 0, 5, 0, 0, 0, "step 8 predictions", "shape"},
    {"empty timing", GOLDEN_KIND_TIMING, 8, -1, shorten, 0, 0, 0, 0, 0, "step 8 timing", "shape"},
    {"short timing", GOLDEN_KIND_TIMING, 8, -1, shorten, 0, 5, 0, 0, 0, "step 8 timing", "shape"},
    /* 1e14 MiB: its bytes (1e20) past size_t, converted anyway (undefined: run.json said 0 bytes) */
    {"peak RSS of 1e14 MiB", GOLDEN_KIND_TIMING, 8, -1, set_from_end, 1e14, 1, 0, 0, 0, "step 8 timing", "timing"},
    {"2-D parameters", TENSOR_PARAMS, 2, -1, two_d, 0, 0, 0, 0, 0, "step 2 params", "shape"},
    {"a step recorded twice", GOLDEN_KIND_STEP, 3, -1, twice, 0, 0, 3, 0, 0, "step 3 step", "step"},
    {"step 9 of 8", GOLDEN_KIND_STEP, 8, -1, twice, 0, 0, 9, 0, 0, "step 9 step", "step"},
    {"provenance steps 9 of 8", 0, 0, 0, NULL, 0, 0, 0, "steps", "9", "provenance steps", "steps"},
    /* a seed that is not a number: it read as 0 ("recorded with seed 0", "--seed 0"), "42abc" as 42 */
    {"provenance seed abc", 0, 0, 0, NULL, 0, 0, 0, "seed", "abc", "provenance seed", "seed"},
    {"provenance seed 42abc", 0, 0, 0, NULL, 0, 0, 0, "seed", "42abc", "provenance seed", "seed"},
    {"provenance seed -1", 0, 0, 0, NULL, 0, 0, 0, "seed", "-1", "provenance seed", "seed"},
    {"one pixel changed", TENSOR_INPUT, 1, -1, set_value, 0.5, 400, 0, 0, 0, "step 1 input", "input"},
    /* NaN and infinity in parameters, losses, activations */
    {"NaN parameter", TENSOR_PARAMS, 2, -1, set_value, NAN, 10, 0, 0, 0, "step 2 params", "params"},
    {"Inf initial parameter", TENSOR_PARAMS, 0, -1, set_value, INFINITY, 0, 0, 0, 0, "step 0 params", "params"},
    {"NaN adam_m", TENSOR_ADAM_M, 1, -1, set_value, NAN, 3, 0, 0, 0, "step 1 adam_m", "adam_m"},
    {"negative adam_v", TENSOR_ADAM_V, 1, -1, set_value, -1, 3, 0, 0, 0, "step 1 adam_v", "adam_v"},
    {"NaN loss record", TENSOR_LOSS, 4, -1, set_value, NAN, 0, 0, 0, 0, "step 4 loss", "loss"},
    {"NaN step loss", GOLDEN_KIND_STEP, 5, -1, set_value, NAN, 0, 0, 0, 0, "step 5 step", "loss"},
    {"epoch 0.5", GOLDEN_KIND_STEP, 5, -1, set_value, 0.5, 11, 0, 0, 0, "step 5 step", "epoch"},
    {"batch of 7.5", GOLDEN_KIND_STEP, 6, -1, set_value, 7.5, 10, 0, 0, 0, "step 6 step", "batch"},
    {"NaN activation", TENSOR_ACT, 1, 0, set_value, NAN, 17, 0, 0, 0, "step 1 layer 0", "act"},
    {"Inf dact", TENSOR_DACT, 2, 1, set_value, -INFINITY, 0, 0, 0, 0, "step 2 layer 1", "dact"},
    {"NaN gradient", TENSOR_GRADS, 8, -1, set_value, NAN, 100, 0, 0, 0, "step 8 grads", "grads"},
    {"NaN logit", GOLDEN_KIND_LOGITS, 8, -1, set_value, NAN, 0, 0, 0, 0, "step 8 logits", "logits"},
    /* the checksum vectors (issue 19).  The tiny model's packed STEP vector:
     * [3..66] conv1 forward (16 relations R, A, Y, S), [67..82] its
     * backward-weights and bias, [83] relu1 forward's count; UPDATE: [3..10]
     * ADAM (4 tensors), [11..] the digests */
    {"checksum header step 4 at step 3", K_CKS, 3, -1, set_value, 4, 2, 0, 0, 0, "step 3 ck_step", "step"},
    {"checksum header batch 7 of 8", K_CKS, 5, -1, set_value, 7, 1, 0, 0, 0, "step 5 ck_step", "n"},
    {"update vector says stage 1", K_CKU, 2, -1, set_value, 1, 0, 0, 0, 0, "step 2 ck_update", "stage"},
    {"NaN residual", K_CKS, 6, -1, set_value, NAN, 3, 0, 0, 0, "step 6 ck_step", "values"},
    {"negative A", K_CKS, 1, -1, set_value, -1, 4, 0, 0, 0, "step 1 ck_step", "relation"},
    {"half an element re-checked", K_CKS, 7, -1, set_value, 0.5, 83, 0, 0, 0, "step 7 ck_step", "count"},
    {"negative Adam count", K_CKU, 4, -1, set_value, -1, 3, 0, 0, 0, "step 4 ck_update", "adam"},
    /* the blocks after DIGEST (plan.checksums ...,all-blocks): the last
     * relation of a STEP vector is the last layer's index-weighted
     * backward-weights one (R, A, Y, S at count - 4 .. count - 1) */
    {"negative A after DIGEST", K_CKS, 2, -1, set_from_end, -1, 3, 0, 0, 0, "step 2 ck_step", "relation"},
    {"negative S after DIGEST", K_CKE, 8, 1, set_from_end, -2, 1, 0, 0, 0, "step 8 layer 1 ck_eval", "relation"},
    {"digest piece 70000", K_CKU, 4, -1, set_value, 70000, 11, 0, 0, 0, "step 4 ck_update", "digest"},
    {"short step vector", K_CKS, 2, -1, shorten, 0, 100, 0, 0, 0, "step 2 ck_step", "shape"},
    {"update vector missing", K_CKU, 5, -1, drop, 0, 0, 0, 0, 0, "step 5 step", "ck_update"},
    {"step vector twice", K_CKS, 3, -1, twice, 0, 0, 3, 0, 0, "step 3 ck_step", "step"},
    {"evaluation batch 99 of 8", K_CKE, 8, 0, set_layer, 99, 0, 0, 0, 0, "step 8 layer 99 ck_eval", "layer"},
    {"evaluation vector at step 4", K_CKE, 8, 1, set_step, 4, 0, 0, 0, 0, "step 4 layer 1 ck_eval", "step"},
    {"evaluation vector of step 8", K_CKE, 8, 2, set_value, 8, 2, 0, 0, 0, "step 8 layer 2 ck_eval", "step"},
    {"vectors the provenance denies", 0, 0, 0, NULL, 0, 0, 0, "plan.checksums", "none (edited)", "step 1 ck_step",
     "kind"},
};

static void expect_refused(const edit_case *c, const char *path) {
    char args[512], out[16384], want[160];
    snprintf(args, sizeof args, "audit --engines recorded:%s %s", path, SLICE);
    int rc = run(args, out, sizeof out);
    if (rc != 2) fail_msg("case '%s': exit %d, want 2:\n%s", c->name, rc, out);
    if (!strstr(out, path)) fail_msg("case '%s': the message does not name the file:\n%s", c->name, out);
    if (!strstr(out, c->want_record)) fail_msg("case '%s': the message does not name '%s':\n%s", c->name, c->want_record, out);
    snprintf(want, sizeof want, "field %s", c->want_field);
    char want2[160];
    snprintf(want2, sizeof want2, "(field: %s)", c->want_field);
    if (!strstr(out, want) && !strstr(out, want2))
        fail_msg("case '%s': the message does not name field %s:\n%s", c->name, c->want_field, out);
}

static void test_impossible_contents_refused(void **st) {
    NEED();
    char bad[192];
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        snprintf(bad, sizeof bad, "%s/case%02zu.lsr", g_dir, i);
        rewrite(g_rec, bad, &CASES[i]);
        expect_refused(&CASES[i], bad);
        print_message("refused: %s\n", CASES[i].name);
        unlink(bad);
    }
}

/* A pixel changed and the step's batch digest recomputed: the file agrees
 * with itself, only the data the audit holds can tell. */
static void test_pixel_against_data(void **st) {
    NEED();
    /* first pass: the changed INPUT record; its digest needs its labels */
    golden_file *gf;
    if (golden_read(&gf, g_rec)) fail_msg("%s", ls_errmsg());
    const golden_record *x = golden_find(gf, 1, -1, TENSOR_INPUT), *y = golden_find(gf, 1, -1, GOLDEN_KIND_LABELS);
    assert_true(x && y);
    float *px = malloc(x->count * sizeof *px);
    memcpy(px, x->values, x->count * sizeof *px);
    px[400] = px[400] == 0.5f ? 0.25f : 0.5f;
    int32_t lab[64];
    for (size_t i = 0; i < y->count; i++) lab[i] = (int32_t)y->values[i];
    uint64_t d = recording_batch_digest(px, lab, y->count, x->count / y->count);
    golden_prov prov;
    golden_prov_init(&prov);
    for (size_t i = 0; i < gf->prov.n; i++) golden_prov_set(&prov, gf->prov.key[i], gf->prov.val[i]);
    char bad[192];
    snprintf(bad, sizeof bad, "%s/pixel.lsr", g_dir);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, bad, &prov), 0);
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *g = &gf->records[i];
        const float *v = g->values;
        float sv[12];
        if (g == x) v = px;
        if (g->kind == GOLDEN_KIND_STEP && g->step == 1) {
            memcpy(sv, g->values, sizeof sv);
            for (int k = 0; k < 4; k++) sv[6 + k] = (float)((d >> (16 * k)) & 0xffffu);
            v = sv;
        }
        assert_int_equal(golden_writer_add(w, g->step, g->layer, g->kind, g->name, g->ndim, g->shape, v), 0);
    }
    assert_int_equal(golden_writer_close(w, 1), 0);
    golden_prov_free(&prov);
    golden_file_free(gf);
    free(px);
    edit_case c = {"pixel with its digest", 0, 0, 0, NULL, 0, 0, 0, 0, 0, "step 1 input", "input"};
    expect_refused(&c, bad);
    char args[512], out[16384];
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", bad, SLICE);
    run(args, out, sizeof out);
    assert_non_null(strstr(out, "the data holds"));
}

/* The untouched rewrite: the same bytes, and it audits as the original. */
static void test_untouched_audits_the_same(void **st) {
    NEED();
    char same[192], cmd[512];
    snprintf(same, sizeof same, "%s/same.lsr", g_dir);
    rewrite(g_rec, same, NULL);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", g_rec, same);
    assert_int_equal(system(cmd), 0);
    static char out1[16384], out2[16384];
    char args[512];
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", g_rec, SLICE);
    int rc1 = run(args, out1, sizeof out1);
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", same, SLICE);
    int rc2 = run(args, out2, sizeof out2);
    if (rc1 != 0) fail_msg("the original recording: exit %d\n%s", rc1, out1);
    assert_int_equal(rc2, rc1);
    const char *v1 = strstr(out1, "VERDICT"), *v2 = strstr(out2, "VERDICT");
    assert_true(v1 && v2);
    assert_memory_equal(v1, v2, strcspn(v1, "\n"));
}

/* Item 2: the default plan (audit_every 50 over 8 steps) is still shadowed. */
static void test_default_plan_shadowed(void **st) {
    NEED();
    char args[512], out[16384];
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", g_dflt, SLICE);
    int rc = run(args, out, sizeof out);
    if (rc != 0) fail_msg("exit %d:\n%s", rc, out);
    if (strstr(out, "0 shadow replay(s)") || !strstr(out, "1 shadow replay(s)"))
        fail_msg("the recording was not shadowed:\n%s", out);
    if (strstr(out, "unchecked")) fail_msg("the recording is reported unchecked:\n%s", out);
    assert_non_null(strstr(out, "within bound"));
}

/* A recording whose epochs end with a partial batch (60 images in batches
 * of 8, 2 epochs): the audit shadowed every partial batch, a step the
 * recording's plan does not hold in full, and stopped with "step 7 has no
 * recorded params".  Now the recording's plan is the audit's there too. */
static void test_partial_batch_recording(void **st) {
    NEED();
    char path[160], args[1024], out[16384], slice[320];
    snprintf(path, sizeof path, "%s/partial.lsr", g_dir);
    snprintf(slice, sizeof slice, "%.*s --batch 8 --limit-train 60 --limit-test 16 --epochs 2",
             (int)(strstr(SLICE, " --batch") - SLICE), SLICE);
    snprintf(args, sizeof args, "record --engine cpu:threads=1 --out %s %s", path, slice);
    if (run(args, out, sizeof out) != 0) fail_msg("record: %s", out);
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", path, slice);
    int rc = run(args, out, sizeof out);
    if (rc != 0 || !strstr(out, "within bound")) fail_msg("exit %d:\n%s", rc, out);
}

/* A batch index twice in epoch 1 of a 2-epoch recording, its record written
 * after epoch 2's: step 2's first index made step 1's, with its image,
 * label and batch digest made to match (so the data agrees, only the
 * permutation check can tell), and step 2's BATCH_INDEX record moved to
 * the end of the file.  The check used to reset its flags whenever the
 * epoch changed in file order (1, 2, then 1 again) and passed it. */
static void test_index_twice_across_epochs(void **st) {
    NEED();
    char path[160], bad[160], args[1024], out[16384], slice[320];
    snprintf(path, sizeof path, "%s/two-epochs.lsr", g_dir);
    snprintf(bad, sizeof bad, "%s/two-epochs-twice.lsr", g_dir);
    snprintf(slice, sizeof slice, "%.*s --epochs 2", (int)(strstr(SLICE, " --epochs") - SLICE), SLICE);
    /* full at 1, 2, 4, 8 (epoch 1) and 12, 16 (epoch 2) */
    snprintf(args, sizeof args, "record --engine cpu:threads=1 --out %s %s --audit-every 4 --ref-steps 2", path, slice);
    if (run(args, out, sizeof out) != 0) fail_msg("record: %s", out);
    golden_file *gf;
    if (golden_read(&gf, path)) fail_msg("%s", ls_errmsg());
    const golden_record *i1 = golden_find(gf, 1, -1, K_INDEX), *i2 = golden_find(gf, 2, -1, K_INDEX),
                        *x1 = golden_find(gf, 1, -1, TENSOR_INPUT), *x2 = golden_find(gf, 2, -1, TENSOR_INPUT),
                        *y1 = golden_find(gf, 1, -1, K_LABELS), *y2 = golden_find(gf, 2, -1, K_LABELS);
    assert_true(i1 && i2 && x1 && x2 && y1 && y2 && golden_find(gf, 12, -1, K_INDEX));
    size_t in = x2->count / y2->count;
    float *px = malloc(x2->count * sizeof *px), idx[64], lab_f[64];
    int32_t lab[64];
    assert_true(px && y2->count <= 64);
    memcpy(px, x2->values, x2->count * sizeof *px);
    memcpy(px, x1->values, in * sizeof *px); /* image 0 of step 1 */
    memcpy(idx, i2->values, i2->count * sizeof *idx);
    idx[0] = i1->values[0];
    memcpy(lab_f, y2->values, y2->count * sizeof *lab_f);
    lab_f[0] = y1->values[0];
    for (size_t i = 0; i < y2->count; i++) lab[i] = (int32_t)lab_f[i];
    uint64_t d = recording_batch_digest(px, lab, y2->count, in);
    golden_prov prov;
    golden_prov_init(&prov);
    for (size_t i = 0; i < gf->prov.n; i++) assert_int_equal(golden_prov_set(&prov, gf->prov.key[i], gf->prov.val[i]), 0);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, bad, &prov), 0);
    for (size_t i = 0; i <= gf->n_records; i++) {
        const golden_record *g = i < gf->n_records ? &gf->records[i] : i2; /* step 2's index last */
        if (g == i2 && i < gf->n_records) continue;
        const float *v = g == i2 ? idx : g == x2 ? px : g == y2 ? lab_f : g->values;
        float sv[12];
        if (g->kind == GOLDEN_KIND_STEP && g->step == 2) {
            memcpy(sv, g->values, sizeof sv);
            recording_digest_put(sv + 6, d);
            v = sv;
        }
        assert_int_equal(golden_writer_add(w, g->step, g->layer, g->kind, g->name, g->ndim, g->shape, v), 0);
    }
    assert_int_equal(golden_writer_close(w, 1), 0);
    golden_prov_free(&prov);
    golden_file_free(gf);
    free(px);
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", bad, slice);
    int rc = run(args, out, sizeof out);
    if (rc != 2 || !strstr(out, bad) || !strstr(out, "step 2 batch_index") || !strstr(out, "field batch_index") ||
        !strstr(out, "appears twice in epoch 1"))
        fail_msg("exit %d, want 2 naming step 2's batch_index, an index twice in epoch 1:\n%s", rc, out);
}

/* A recording cut short by --steps, and one made from --init weights
 * with a --order file, audited without them: the refusal's "the
 * recording's run: ..." are the options that audit it (it left --steps,
 * --init and --order out, and the audit run as it said was refused again). */
static void test_steps_in_the_recordings_run(void **st) {
    NEED();
    char path[160], args[2048], out[16384], slice[320], init[160], order[160], extra[512];
    int pre = (int)(strstr(SLICE, " --batch") - SLICE); /* "--model FILE" */
    snprintf(slice, sizeof slice, "%.*s --batch 8 --limit-train 64 --limit-test 16 --epochs 2", pre, SLICE);
    snprintf(init, sizeof init, "%s/w.st", g_dir);
    snprintf(order, sizeof order, "%s/order.txt", g_dir);
    snprintf(args, sizeof args, "export --engine cpu:threads=1 --state-dict --step 1 --out %s %s", init, slice);
    if (run(args, out, sizeof out) != 0) fail_msg("export: %s", out);
    FILE *f = fopen(order, "w");
    assert_non_null(f);
    for (int ep = 0; ep < 2; ep++)
        for (int i = 0; i < 64; i++) fprintf(f, "%d%c", ep ? i : 63 - i, i == 63 ? '\n' : ' ');
    assert_int_equal(fclose(f), 0);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/hint%d.lsr", g_dir, k);
        if (k == 0) snprintf(extra, sizeof extra, "--steps 5");
        else snprintf(extra, sizeof extra, "--init %s --order %s", init, order);
        snprintf(args, sizeof args, "record --engine cpu:threads=1 --out %s %s %s", path, slice, extra);
        if (run(args, out, sizeof out) != 0) fail_msg("record: %s", out);
        snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", path, slice);
        int rc = run(args, out, sizeof out);
        const char *hint = strstr(out, "the recording's run: ");
        if (rc != 2 || !strstr(out, k ? "(field: init)" : "(field: steps)") || !hint)
            fail_msg("%s: exit %d, want 2 naming the field:\n%s", extra, rc, out);
        hint += strlen("the recording's run: ");
        snprintf(args, sizeof args, "audit --engines reference,recorded:%s %.*s %.*s", path, pre, SLICE,
                 (int)strcspn(hint, "\n"), hint);
        rc = run(args, out, sizeof out);
        if (rc != 0 || !strstr(out, "VERDICT: ok"))
            fail_msg("%s: the recording's run as the refusal gave it: exit %d:\n%s", extra, rc, out);
    }
}

/* Counts a file's provenance claims, under a 2 GB address-space limit: the
 * refusal names the file and the field, whatever the count.  It was "out
 * of memory allocating 100000001 x 48 bytes" (plan.total_steps 1e8: no
 * file, no field) and an empty message (limit_train 1e9: the batch-index
 * check's 4 GB of flags, LS_ENOMEM with no text).  Not under ASan: its
 * shadow memory needs more address space than any such limit leaves. */
static void test_huge_counts_named(void **st) {
    NEED();
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    static const struct {
        const char *key, *val, *want;
    } cases[] = {
        {NULL, NULL, "(field: seed)"}, /* the control: a refusal that needs nothing big, under the limit */
        {"plan.total_steps", "100000000", "plan.total_steps"},
        {"limit_train", "1000000000", "limit_train"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char bad[192], cmd[PATH_MAX + 1024], out[16384];
        snprintf(bad, sizeof bad, "%s/huge%zu.lsr", g_dir, i);
        edit_case c = {cases[i].want, 0, 0, 0, NULL, 0, 0, 0, cases[i].key, cases[i].val, "", ""};
        rewrite(g_rec, bad, &c);
        snprintf(cmd, sizeof cmd, "ulimit -v 2000000; exec timeout 120 %s audit --engines recorded:%s %s%s 2>&1 "
                 "</dev/null", g_bin, bad, SLICE, cases[i].key ? "" : " --seed 7");
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st_ = pclose(p), rc = WIFEXITED(st_) ? WEXITSTATUS(st_) : -1;
        if (rc != 2 || !strstr(out, bad) || !strstr(out, cases[i].want))
            fail_msg("%s = %s: exit %d, want 2 naming the file and %s:\n%s", cases[i].key ? cases[i].key : "(none)",
                     cases[i].val ? cases[i].val : "", rc, cases[i].want, out);
        unlink(bad);
    }
}

/* Checksum vectors that stop early (steps 5..8 and the evaluation have
 * none, as in a run whose checks stopped answering at step 5), the
 * provenance still saying every step has them: never "ok" for steps no
 * vector covered.  Today the file is refused, naming step 5; an audit of
 * it would have to say "not fully checked" for steps 5-8. */
static void test_vectors_stop_early(void **st) {
    NEED();
    char bad[192], args[512], out[16384];
    snprintf(bad, sizeof bad, "%s/vectors-stop.lsr", g_dir);
    golden_file *gf;
    if (golden_read(&gf, g_rec)) fail_msg("%s", ls_errmsg());
    golden_prov prov;
    golden_prov_init(&prov);
    for (size_t i = 0; i < gf->prov.n; i++) assert_int_equal(golden_prov_set(&prov, gf->prov.key[i], gf->prov.val[i]), 0);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, bad, &prov), 0);
    size_t dropped = 0;
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *g = &gf->records[i];
        if (g->kind == K_CKE || ((g->kind == K_CKS || g->kind == K_CKU) && g->step >= 5)) {
            dropped++;
            continue;
        }
        assert_int_equal(golden_writer_add(w, g->step, g->layer, g->kind, g->name, g->ndim, g->shape, g->values), 0);
    }
    assert_int_equal(golden_writer_close(w, 1), 0);
    golden_prov_free(&prov);
    golden_file_free(gf);
    assert_true(dropped >= 8 + 1); /* 2 per step 5..8, one per evaluation batch */
    snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s", bad, SLICE);
    int rc = run(args, out, sizeof out);
    if (strstr(out, "VERDICT: ok")) fail_msg("steps no vector covered, said ok:\n%s", out);
    int refused = rc == 2 && strstr(out, bad) && strstr(out, "step 5 has no ck_step record");
    int unchecked = strstr(out, "VERDICT: not fully checked") &&
                    (strstr(out, "drift steps 5-") || strstr(out, "(the first: step 5)"));
    if (!refused && !unchecked) fail_msg("exit %d: neither refused naming step 5 nor 'not fully checked' from step 5:\n%s",
                                         rc, out);
}

/* A plan.checksums this lockstep does not know (a later lockstep's blocks
 * after wrnd): the refusal said "plan.checksums says the recording has
 * none", which the file does not say; now it quotes it. */
static void test_unknown_checksum_blocks(void **st) {
    NEED();
    static const char later[] = "step,update,eval,all-blocks,alt,zero,rand,peek,dpeek,wrnd,later";
    char bad[192], args[512], out[16384];
    snprintf(bad, sizeof bad, "%s/later-blocks.lsr", g_dir);
    edit_case c = {"later blocks", 0, 0, 0, NULL, 0, 0, 0, "plan.checksums", later, "step 1 ck_step", "kind"};
    rewrite(g_rec, bad, &c);
    expect_refused(&c, bad);
    snprintf(args, sizeof args, "audit --engines recorded:%s %s", bad, SLICE);
    run(args, out, sizeof out);
    if (strstr(out, "says the recording has none") || !strstr(out, later))
        fail_msg("the message does not quote plan.checksums:\n%s", out);
}

/* The recorded engine's describe() splices provenance engine.describe, the
 * recording machine's JSON, into its own: cut short, or an object with a
 * tab inside its braces, it made run.json invalid JSON (the audit exit 0,
 * verdict ok). */
static void test_describe_keeps_run_json_valid(void **st) {
    NEED();
    static const char *const descs[] = {"{\"x\": 1, \"y\": [", "{\t}", "not json"};
    for (size_t i = 0; i < sizeof descs / sizeof *descs; i++) {
        char bad[192], dir[192], json[256], args[768], out[16384];
        snprintf(bad, sizeof bad, "%s/describe%zu.lsr", g_dir, i);
        snprintf(dir, sizeof dir, "%s/describe%zu.out", g_dir, i);
        snprintf(json, sizeof json, "%s/run.json", dir);
        edit_case c = {"describe", 0, 0, 0, NULL, 0, 0, 0, "engine.describe", descs[i], "", ""};
        rewrite(g_rec, bad, &c);
        snprintf(args, sizeof args, "audit --engines reference,recorded:%s %s --out %s", bad, SLICE, dir);
        int rc = run(args, out, sizeof out);
        if (rc != 0) fail_msg("engine.describe '%s': exit %d:\n%s", descs[i], rc, out);
        json_error_t e;
        json_t *j = json_load_file(json, 0, &e);
        if (!j) fail_msg("engine.describe '%s': run.json is not JSON: %s (line %d)", descs[i], e.text, e.line);
        json_decref(j);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_impossible_contents_refused),
        cmocka_unit_test(test_pixel_against_data),
        cmocka_unit_test(test_untouched_audits_the_same),
        cmocka_unit_test(test_default_plan_shadowed),
        cmocka_unit_test(test_partial_batch_recording),
        cmocka_unit_test(test_index_twice_across_epochs),
        cmocka_unit_test(test_steps_in_the_recordings_run),
        cmocka_unit_test(test_huge_counts_named),
        cmocka_unit_test(test_vectors_stop_early),
        cmocka_unit_test(test_unknown_checksum_blocks),
        cmocka_unit_test(test_describe_keeps_run_json_valid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
