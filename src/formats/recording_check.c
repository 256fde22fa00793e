/*
 * recording_check.c — a recording's contents checked as data (recording.h:
 * recording_validate, recording_check_data), after the container checks of
 * golden_read and before any value of it is read as a result.
 *
 * A recording comes from another machine; its CRCs only say that the bytes
 * are the ones its writer wrote, not that the writer (or a hand, or a
 * buggy tool that recomputed the CRCs) wrote something possible.  So every
 * record is checked against the plan (steps, batch sizes, epochs), the
 * model (shapes, classes) and, once the audit holds the data, the data:
 *   - every record: a known kind at a step of the plan (0 only for the
 *     initial state), the layer its kind allows, the shape its kind and
 *     step give, finite values; no (step, layer, kind) twice;
 *   - STEP: the batch size and epoch the plan gives that step, a finite
 *     loss equal to the LOSS record, a finite norm; at full steps the
 *     parameters' digest equals the PARAMS record's and the batch digest
 *     the INPUT and LABELS records';
 *   - full steps: every tensor the plan records there is present;
 *   - INPUT pixels in [0, 1]; LABELS integers in 0..classes-1; BATCH_INDEX
 *     integers in 0..limit_train-1, never twice in an epoch (an epoch is a
 *     permutation: data.c's shuffle or order.c's file, both checked so);
 *     ADAM_V >= 0;
 *   - every epoch reached: EPOCH (its own number, times >= 0, the images
 *     the plan trains, accuracy in [0, 1], loss >= 0), LOGITS and
 *     PREDICTIONS at its last step, predictions in 0..classes-1 and the
 *     argmax of the logits; TIMING: 4L+6 values, all >= 0, integer calls;
 *   - checksum vectors (CK_STEP, CK_UPDATE at every step, CK_EVAL per
 *     evaluation batch, layer = the batch; all of them when provenance
 *     plan.checksums says so, none otherwise): the packed length
 *     ck_layout_make gives for the step's (or the evaluation batch's)
 *     size, the header [stage, n, step] (step 0 in evaluation), finite
 *     values, relations' A, Y and S >= 0, counts integers >= 0, digests four
 *     16-bit integers;
 *   - provenance: `steps` and `model.params` agree with the plan and model,
 *     plan.total_steps fits the epochs;
 *   - with the data (recording_check_data): the INPUT and LABELS of every
 *     full step are the training images and labels at its BATCH_INDEX.
 * A refusal is LS_EFORMAT "PATH: record step K [layer L] KIND: field F: problem".
 *
 * Not here: the container (golden.c), whether the run matches the audit's
 * settings (recording_check_run, engine_recorded.c).
 */
#include "formats/recording.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const recording *r;
    const model *m;
    size_t spe;     /* steps per epoch */
    recording_ck_geom_fn ck_geom; /* engines/checksums.h's layout (NULL: refuse checksum records) */
} vctx;

/* LS_EFORMAT naming the file, the record and the field. */
__attribute__((format(printf, 4, 5))) static int bad(const recording *r, const golden_record *g, const char *field,
                                                       const char *fmt, ...) {
    char lab[128], why[384];
    golden_record_label(g, lab, sizeof lab);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ls_err(LS_EFORMAT, "%s: record %s: field %s: %s", r->path, lab, field, why);
}

/* The plan's batch size and epoch at step k (1-based). */
static void step_plan(const vctx *v, long k, size_t *nb, int *ep) {
    size_t s = (size_t)(k - 1) % v->spe, first = s * v->r->batch;
    *ep = (int)((size_t)(k - 1) / v->spe);
    *nb = v->r->limit_train - first < v->r->batch ? v->r->limit_train - first : v->r->batch;
}

static int want_shape(const recording *r, const golden_record *g, int ndim, size_t d0, size_t d1, size_t d2,
                      size_t d3) {
    size_t d[4] = {d0, d1, d2, d3};
    int same = g->ndim == ndim;
    for (int i = 0; i < ndim && same; i++) same = g->shape[i] == d[i];
    if (same) return 0;
    char want[96] = "(", got[96] = "(";
    for (int i = 0; i < ndim; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%zu", i ? ", " : "", d[i]);
    for (int i = 0; i < g->ndim; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", i ? ", " : "", g->shape[i]);
    strcat(want, ")");
    strcat(got, ")");
    return bad(r, g, "shape", "%s, the plan and model give %s", got, want);
}

/* Every value finite and in [lo, hi]; integral ones integers. */
static int want_values(const recording *r, const golden_record *g, const char *field, double lo, double hi,
                       int integral) {
    for (size_t i = 0; i < g->count; i++) {
        float x = g->values[i];
        if (!isfinite(x)) return bad(r, g, field, "value %zu is %g: NaN and infinity are refused", i, (double)x);
        if (x < lo || x > hi || (integral && x != floorf(x)))
            return bad(r, g, field, "value %zu is %.9g: want %s in %.9g..%.9g", i, (double)x,
                       integral ? "an integer" : "a number", lo, hi);
    }
    return 0;
}

/* A recorded batch index: its epoch, its value, where it is in the file. */
typedef struct {
    uint32_t ep, x;
    size_t rec, pos;
} index_at;

static int index_at_cmp(const void *a, const void *b) {
    const index_at *p = a, *q = b;
    if (p->ep != q->ep) return p->ep < q->ep ? -1 : 1;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->rec != q->rec) return p->rec < q->rec ? -1 : 1;
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* Batch indices never twice in one epoch (an epoch is a permutation), by
 * epoch whatever the records' order (epoch 1, 2, then 1 again escaped a
 * reset at each change), found by sorting what the file holds: a flag
 * per training image took limit_train entries, 4 GB for a provenance
 * limit_train of 1e9, and failed with no message under a memory limit.
 * After check_records: every value an integer in 0..limit_train-1. */
static int check_index_epochs(const vctx *v) {
    const recording *r = v->r;
    const golden_file *gf = r->gf;
    size_t n = 0, k = 0;
    for (size_t i = 0; i < gf->n_records; i++)
        if (gf->records[i].kind == GOLDEN_KIND_BATCH_INDEX) n += gf->records[i].count;
    if (n < 2) return 0;
    index_at *a = malloc(n * sizeof *a);
    if (!a) return ls_err(LS_ENOMEM, "%s: out of memory for its %zu batch indices", r->path, n);
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *g = &gf->records[i];
        if (g->kind != GOLDEN_KIND_BATCH_INDEX) continue;
        size_t nb;
        int ep;
        step_plan(v, g->step, &nb, &ep);
        for (size_t j = 0; j < g->count; j++) a[k++] = (index_at){(uint32_t)ep, (uint32_t)g->values[j], i, j};
    }
    qsort(a, n, sizeof *a, index_at_cmp);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++) /* a[i]: the later of the two in the file */
        if (a[i].ep == a[i - 1].ep && a[i].x == a[i - 1].x)
            rc = bad(r, &gf->records[a[i].rec], "batch_index", "value %zu: index %u appears twice in epoch %u (an "
                     "epoch is a permutation of the training set)", a[i].pos, (unsigned)a[i].x, (unsigned)a[i].ep + 1);
    free(a);
    return rc;
}

/* The inputs' range: [0, 1] (x/255 in fp32), or its image under the
 * recorded --normalize MEAN,STD ((x/255 - mean) / std in fp32, as
 * data_make_batch computes it: x = 0 and 255 give the ends exactly). */
static void input_range(const recording *r, double *lo, double *hi) {
    *lo = 0;
    *hi = 1;
    const char *n = golden_provenance_get(r->gf, "data.normalize");
    float mean, sd;
    if (n && strcmp(n, "none") != 0 && sscanf(n, "%f,%f", &mean, &sd) == 2 && sd > 0) {
        *lo = (double)((0.0f - mean) / sd);
        *hi = (double)((1.0f - mean) / sd);
    }
}

/* One record of a step k >= 1 of the plan (records in step order). */
static int check_step_record(vctx *v, const golden_record *g) {
    const recording *r = v->r;
    const model *m = v->m;
    size_t nb;
    int ep, rc;
    step_plan(v, g->step, &nb, &ep);
    switch (g->kind) {
    case TENSOR_INPUT:
        if ((rc = want_shape(r, g, 4, nb, (size_t)m->in_c, (size_t)m->in_h, (size_t)m->in_w))) return rc;
        double lo, hi;
        input_range(r, &lo, &hi);
        return want_values(r, g, "input", lo, hi, 0);
    case GOLDEN_KIND_LABELS:
        if ((rc = want_shape(r, g, 1, nb, 0, 0, 0))) return rc;
        return want_values(r, g, "labels", 0, m->n_classes - 1, 1);
    case GOLDEN_KIND_BATCH_INDEX:
        if ((rc = want_shape(r, g, 1, nb, 0, 0, 0))) return rc;
        return want_values(r, g, "batch_index", 0, (double)r->limit_train - 1, 1); /* twice: check_index_epochs */
    case TENSOR_ACT:
    case TENSOR_DACT:
        if ((rc = want_shape(r, g, 2, nb, layer_out_size(&m->layers[g->layer]), 0, 0))) return rc;
        return want_values(r, g, g->kind == TENSOR_ACT ? "act" : "dact", -HUGE_VAL, HUGE_VAL, 0);
    case TENSOR_LOSS:
        if ((rc = want_shape(r, g, 0, 0, 0, 0, 0))) return rc;
        if ((rc = want_values(r, g, "loss", 0, HUGE_VAL, 0))) return rc;
        if (memcmp(&g->values[0], &r->steps[g->step].loss, sizeof(float)) != 0)
            return bad(r, g, "loss", "%.9g, the step record says %.9g", (double)g->values[0],
                       (double)r->steps[g->step].loss);
        return 0;
    case TENSOR_GRADS:
        if ((rc = want_shape(r, g, 1, m->n_params, 0, 0, 0))) return rc;
        return want_values(r, g, "grads", -HUGE_VAL, HUGE_VAL, 0);
    case GOLDEN_KIND_LOGITS:
        if ((rc = want_shape(r, g, 2, r->limit_test, (size_t)m->n_classes, 0, 0))) return rc;
        return want_values(r, g, "logits", -HUGE_VAL, HUGE_VAL, 0);
    case GOLDEN_KIND_PREDICTIONS:
        if ((rc = want_shape(r, g, 1, r->limit_test, 0, 0, 0))) return rc;
        return want_values(r, g, "predictions", 0, m->n_classes - 1, 1);
    default: return 0; /* STEP, EPOCH, TIMING, the state: checked by their own functions */
    }
}

/* The state (PARAMS, ADAM_M, ADAM_V), at any step 0..S. */
static int check_state_record(const vctx *v, const golden_record *g) {
    int rc = want_shape(v->r, g, 1, v->m->n_params, 0, 0, 0);
    if (rc) return rc;
    const char *f = g->kind == TENSOR_PARAMS ? "params" : g->kind == TENSOR_ADAM_M ? "adam_m" : "adam_v";
    if ((rc = want_values(v->r, g, f, g->kind == TENSOR_ADAM_V ? 0 : -HUGE_VAL, HUGE_VAL, 0))) return rc;
    /* the state after step k is the one the step record's digest names */
    if (g->kind == TENSOR_PARAMS && g->step > 0 &&
        recording_digest(g->values, g->count * sizeof(float), 0) != v->r->steps[g->step].params_digest)
        return bad(v->r, g, "params", "the values differ from the digest of step %u's step record", (unsigned)g->step);
    return 0;
}

/* Kind, step and layer of a record: the ones the format allows. */
static int check_place(const vctx *v, const golden_record *g) {
    const recording *r = v->r;
    int per_layer = g->kind == TENSOR_ACT || g->kind == TENSOR_DACT;
    int state = g->kind == TENSOR_PARAMS || g->kind == TENSOR_ADAM_M || g->kind == TENSOR_ADAM_V;
    int known = g->kind <= TENSOR_LOSS || (g->kind >= GOLDEN_KIND_PREDICTIONS && g->kind <= GOLDEN_KIND_CK_EVAL);
    if (g->kind == GOLDEN_KIND_CK_EVAL) per_layer = 0; /* its layer is the evaluation batch: check_ck_record */
    if (!known) return bad(r, g, "kind", "%u is not a kind a recording holds", g->kind);
    if ((long)g->step > r->total_steps)
        return bad(r, g, "step", "%u is outside the plan's steps 1..%ld (plan.total_steps)", (unsigned)g->step,
                   r->total_steps);
    if (g->step == 0 && !state) return bad(r, g, "step", "0 holds only the initial state (params, adam_m, adam_v)");
    if (per_layer && g->layer >= v->m->n_layers)
        return bad(r, g, "layer", "%d, the model has layers 0..%d", (int)g->layer, v->m->n_layers - 1);
    if (g->kind != GOLDEN_KIND_CK_EVAL && (per_layer ? g->layer < 0 : g->layer != -1))
        return bad(r, g, "layer", "%d: want %s", (int)g->layer, per_layer ? "a layer of the model" : "-1 (whole network)");
    return 0;
}

static int key_cmp(const void *a, const void *b) {
    const golden_record *x = *(const golden_record *const *)a, *y = *(const golden_record *const *)b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* No (step, layer, kind) twice: a second one would be silently ignored. */
static int check_unique(const recording *r) {
    size_t n = r->gf->n_records;
    if (n < 2) return 0;
    const golden_record **ix = malloc(n * sizeof *ix);
    if (!ix) return LS_ENOMEM;
    for (size_t i = 0; i < n; i++) ix[i] = &r->gf->records[i];
    qsort(ix, n, sizeof *ix, key_cmp);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++)
        if (ix[i]->step == ix[i - 1]->step && ix[i]->kind == ix[i - 1]->kind && ix[i]->layer == ix[i - 1]->layer)
            rc = bad(r, ix[i], "step", "recorded twice (records %zu and %zu)", (size_t)(ix[i - 1] - r->gf->records),
                     (size_t)(ix[i] - r->gf->records));
    free(ix);
    return rc;
}

/* STEP records: the plan's batch size and epoch, finite loss and norm. */
static int check_step_records(const vctx *v) {
    const recording *r = v->r;
    for (long k = 1; k <= r->total_steps; k++) {
        const golden_record *g = recording_find(r, k, -1, GOLDEN_KIND_STEP);
        const recording_step *s = &r->steps[k];
        size_t nb;
        int ep;
        step_plan(v, k, &nb, &ep);
        if (s->batch != nb) return bad(r, g, "batch", "%zu images, the plan's step %ld has %zu", s->batch, k, nb);
        if (s->epoch != ep) return bad(r, g, "epoch", "%d, the plan's step %ld is in epoch %d", s->epoch + 1, k, ep + 1);
        if (!isfinite(s->loss) || s->loss < 0)
            return bad(r, g, "loss", "%g: want a finite loss >= 0", (double)s->loss);
        if (!isfinite(s->params_l2) || s->params_l2 < 0)
            return bad(r, g, "params_l2", "%g: want a finite norm >= 0", s->params_l2);
    }
    return 0;
}

/* A full step: every tensor the plan records there, and the digests of
 * its step record agree with them. */
static int check_full_step(const vctx *v, long k) {
    const recording *r = v->r;
    const model *m = v->m;
    const golden_record *sg = recording_find(r, k, -1, GOLDEN_KIND_STEP);
    static const unsigned whole[] = {TENSOR_INPUT, GOLDEN_KIND_LABELS, GOLDEN_KIND_BATCH_INDEX, TENSOR_LOSS,
                                     TENSOR_GRADS, TENSOR_PARAMS,      TENSOR_ADAM_M,           TENSOR_ADAM_V};
    char kb[16];
    for (size_t i = 0; i < LS_ARRAY_LEN(whole); i++)
        if (!recording_find(r, k, -1, whole[i]))
            return bad(r, sg, golden_kind_name(whole[i], kb), "step %ld is fully recorded in the plan, but it has no %s "
                       "record", k, golden_kind_name(whole[i], kb));
    static const unsigned state[] = {TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V};
    for (size_t j = 0; j < LS_ARRAY_LEN(state); j++)
        if (!recording_find(r, k - 1, -1, state[j]))
            return bad(r, sg, golden_kind_name(state[j], kb), "no state before the step (step %ld)", k - 1);
    for (int l = 0; l < m->n_layers; l++)
        for (unsigned kind = TENSOR_ACT; kind <= TENSOR_DACT; kind++)
            if (!recording_find(r, k, l, kind))
                return bad(r, sg, golden_kind_name(kind, kb), "step %ld is fully recorded, but layer %d has no %s", k, l,
                           golden_kind_name(kind, kb));
    const golden_record *p = recording_find(r, k, -1, TENSOR_PARAMS);
    if (recording_digest(p->values, p->count * sizeof(float), 0) != r->steps[k].params_digest)
        return bad(r, sg, "params_digest", "differs from the digest of the step's params record");
    const golden_record *x = recording_find(r, k, -1, TENSOR_INPUT), *y = recording_find(r, k, -1, GOLDEN_KIND_LABELS);
    int32_t *lab = malloc((y->count ? y->count : 1) * sizeof *lab);
    if (!lab) return LS_ENOMEM;
    for (size_t i = 0; i < y->count; i++) lab[i] = (int32_t)y->values[i];
    uint64_t d = recording_batch_digest(x->values, lab, y->count, x->count / (y->count ? y->count : 1));
    free(lab);
    if (d != r->steps[k].batch_digest)
        return bad(r, x, "input", "the pixels and labels differ from the batch digest of the step record");
    return 0;
}

/* EPOCH, LOGITS and PREDICTIONS of every epoch reached. */
static int check_epochs(const vctx *v) {
    const recording *r = v->r;
    int C = v->m->n_classes;
    for (int e = 0; e < r->epochs_run; e++) {
        long end = r->ep[e].end_step;
        const golden_record *g = recording_find(r, end, -1, GOLDEN_KIND_EPOCH);
        size_t images = 0;
        long last = 0;
        for (long k = 1; k <= r->total_steps; k++)
            if (r->steps[k].epoch == e) images += r->steps[k].batch, last = k;
        if (!g || g->count != 5) return ls_err(LS_EFORMAT, "%s: epoch %d: no epoch record", r->path, e + 1);
        if (end != last)
            return bad(r, g, "step", "epoch %d ends at step %ld in the plan, its record is at step %ld", e + 1, last, end);
        if (!isfinite(g->values[1]) || g->values[1] < 0)
            return bad(r, g, "train_s", "%g seconds: want a finite time >= 0", (double)g->values[1]);
        if (g->values[2] != (float)images)
            return bad(r, g, "images", "%g, the plan trains %zu images in epoch %d", (double)g->values[2], images, e + 1);
        if (!(g->values[3] >= 0 && g->values[3] <= 1))
            return bad(r, g, "test_acc", "%g: want an accuracy in 0..1", (double)g->values[3]);
        if (!isfinite(g->values[4]) || g->values[4] < 0)
            return bad(r, g, "test_loss", "%g: want a finite loss >= 0", (double)g->values[4]);
        const golden_record *z = recording_find(r, end, -1, GOLDEN_KIND_LOGITS);
        const golden_record *p = recording_find(r, end, -1, GOLDEN_KIND_PREDICTIONS);
        if (!z || !p) return bad(r, g, z ? "predictions" : "logits", "the epoch's %s record is missing",
                                 z ? "predictions" : "logits");
        for (size_t i = 0; i < p->count; i++) {
            const float *zi = z->values + i * (size_t)C;
            int best = 0;
            for (int j = 1; j < C; j++)
                if (zi[j] > zi[best]) best = j;
            if (p->values[i] != (float)best)
                return bad(r, p, "predictions", "value %zu is %g, the argmax of its logits is %d", i,
                           (double)p->values[i], best);
        }
    }
    return 0;
}

static int check_timing(const vctx *v, const golden_record *g) {
    const recording *r = v->r;
    size_t want = 4 * (size_t)v->m->n_layers + 6;
    if ((long)g->step != r->total_steps) return bad(r, g, "step", "timing belongs at the last step %ld", r->total_steps);
    if (g->ndim != 1 || g->count != want)
        return bad(r, g, "shape", "%zu values in %d dimension(s): want (%zu) (4 per layer, then 6)", g->count, g->ndim,
                   want);
    int rc = want_values(r, g, "timing", 0, HUGE_VAL, 0);
    for (int l = 0; l < v->m->n_layers && !rc; l++)
        if (g->values[4 * l + 1] != floorf(g->values[4 * l + 1]) || g->values[4 * l + 3] != floorf(g->values[4 * l + 3]))
            rc = bad(r, g, "timing", "layer %d: a call count that is not an integer", l);
    /* the peak RSS in MiB: its bytes must fit (1e14 MiB was converted anyway, undefined: run.json said 0) */
    if (!rc && g->values[g->count - 1] > 0x1p40f)
        rc = bad(r, g, "timing", "peak RSS %g MiB: want at most 2^40", (double)g->values[g->count - 1]);
    return rc;
}

static int check_provenance(const vctx *v) {
    const recording *r = v->r;
    const char *s = golden_provenance_get(r->gf, "steps"), *np = golden_provenance_get(r->gf, "model.params");
    char want[32];
    snprintf(want, sizeof want, "%ld", r->total_steps);
    if (s && strcmp(s, want) != 0)
        return ls_err(LS_EFORMAT, "%s: provenance steps = \"%s\" but plan.total_steps = %ld (field: steps)", r->path, s,
                      r->total_steps);
    snprintf(want, sizeof want, "%zu", v->m->n_params);
    if (np && strcmp(np, want) != 0)
        return ls_err(LS_EFORMAT, "%s: provenance model.params = \"%s\", the model has %zu (field: model.params)",
                      r->path, np, v->m->n_params);
    if ((size_t)r->total_steps > v->spe * (size_t)r->epochs)
        return ls_err(LS_EFORMAT, "%s: provenance plan.total_steps = %ld, but %d epoch(s) of %zu images in batches of "
                      "%zu make %zu steps (field: plan.total_steps)", r->path, r->total_steps, r->epochs,
                      r->limit_train, r->batch, v->spe * (size_t)r->epochs);
    return 0;
}

/* An epoch's records: at the last step of an epoch of the plan, and an
 * EPOCH record names that epoch. */
static int check_epoch_place(const vctx *v, const golden_record *g) {
    size_t nb;
    int ep;
    step_plan(v, g->step, &nb, &ep);
    long last = (long)v->spe * (ep + 1) < v->r->total_steps ? (long)v->spe * (ep + 1) : v->r->total_steps;
    if ((long)g->step != last)
        return bad(v->r, g, "step", "not the last step of an epoch (epoch %d ends at step %ld)", ep + 1, last);
    if (g->kind == GOLDEN_KIND_EPOCH && g->values[0] != (float)ep)
        return bad(v->r, g, "epoch", "%g at the end of epoch %d (0-based %d)", (double)g->values[0], ep + 1, ep);
    return 0;
}

/* ---- checksum vectors ----------------------------------------------------- */

static size_t eval_batches(const recording *r) { return (r->limit_test + r->batch - 1) / r->batch; }

/* The packed body: finite everywhere; A, Y >= 0; counts (exact blocks,
 * ADAM) integers >= 0 and largest differences >= 0; digests 16-bit pieces. */
static int check_ck_values(const vctx *v, const golden_record *g, const recording_ck_geom *G, int stage) {
    const model *m = v->m;
    static const char *const hdr[3] = {"stage", "n", "step"};
    for (size_t i = 0; i < g->count; i++)
        if (!isfinite(g->values[i]))
            return bad(v->r, g, i < 3 ? hdr[i] : "values", "value %zu is %g: NaN and infinity are refused", i,
                       (double)g->values[i]);
    size_t lo = stage == REC_CK_UPDATE ? G->adam_off : 3, k = 3;
    for (int l = 0; l < m->n_layers && stage != REC_CK_UPDATE; l++)
        for (int ph = 0; ph < REC_CK_NPHASE; ph++) {
            size_t per = G->is_rel[l] ? (size_t)G->rel_width : 2;
            for (size_t e = 0; e < G->cnt[l][ph]; e++) {
                const float *x = g->values + k + (G->off[l][ph] - lo) + per * e;
                int ok = G->is_rel[l] ? x[1] >= 0 && x[2] >= 0 && (per < 4 || x[3] >= 0)
                                      : x[0] >= 0 && x[0] == floorf(x[0]) && x[1] >= 0;
                if (!ok)
                    return bad(v->r, g, G->is_rel[l] ? "relation" : "count", "layer %d (%s) phase %d entry %zu: "
                               "%s", l, m->layers[l].name, ph, e, G->is_rel[l] ? "A, Y and S (sums of absolute values) "
                               "must be >= 0" : "want an integer count >= 0");
            }
        }
    if (stage == REC_CK_UPDATE)
        for (int t = 0; t < m->n_tensors; t++) {
            const float *x = g->values + 3 + 2 * (size_t)t;
            if (!(x[0] >= 0 && x[0] == floorf(x[0]) && x[1] >= 0))
                return bad(v->r, g, "adam", "tensor %d (%s): want an integer count >= 0 and a difference >= 0", t,
                           m->tensors[t].name);
        }
    size_t hi = stage == REC_CK_STEP ? G->adam_off : stage == REC_CK_UPDATE ? G->digest_off : G->loss_off;
    const float *d = g->values + 3 + (hi - lo);
    for (size_t t = 0; t < 3 * (size_t)m->n_tensors; t++) {
        uint64_t u;
        if (recording_digest_get(d + 4 * t, &u))
            return bad(v->r, g, "digest", "digest %zu: want four integers in 0..65535", t);
    }
    if (!G->ext || stage == REC_CK_UPDATE) return 0;
    const float *in = d + 12 * (size_t)m->n_tensors;
    uint64_t u;
    if (recording_digest_get(in, &u)) return bad(v->r, g, "input", "the input digest: want four integers in 0..65535");
    in += 4;
    for (int l = 0; l < m->n_layers; l++) /* the relation blocks after INPUT */
        for (int ph = REC_CK_NPHASE; ph < (G->ext >= 7   ? REC_CK_NPHASE_ALL
                                           : G->ext == 6 ? REC_CK_NPHASE_D
                                           : G->ext == 5 ? REC_CK_NPHASE_P
                                           : G->ext == 4 ? REC_CK_NPHASE_R
                                           : G->ext == 3 ? REC_CK_NPHASE_Z
                                           : G->ext == 2 ? REC_CK_NPHASE_ALT
                                                         : REC_CK_NPHASE_EXT); ph++)
            for (size_t e = 0; e < G->cnt[l][ph]; e++) {
                const float *x = in + (G->off[l][ph] - G->input_off - 1) + (size_t)G->rel_width * e;
                if (!(x[1] >= 0 && x[2] >= 0 && (G->rel_width < 4 || x[3] >= 0)))
                    return bad(v->r, g, "relation", "layer %d (%s) phase %d entry %zu: A, Y and S (sums of absolute "
                               "values) must be >= 0", l, m->layers[l].name, ph, e);
            }
    return 0;
}

/* One CK_STEP, CK_UPDATE or CK_EVAL record: where it is, its length for
 * its batch, its header, its values. */
static int check_ck_record(const vctx *v, const golden_record *g) {
    const recording *r = v->r;
    if (!r->has_checksums) { /* plan.checksums none, absent, or a list of blocks this lockstep does not know */
        const char *ck = golden_provenance_get(r->gf, "plan.checksums");
        if (ck && strncmp(ck, "none", 4) != 0)
            return bad(r, g, "kind", "a checksum vector, but provenance plan.checksums = \"%.160s\" is not a set of "
                       "vectors this lockstep reads (a later lockstep's recording? record --no-checksums makes one "
                       "without)", ck);
        return bad(r, g, "kind", "a checksum vector, but provenance plan.checksums says the recording has none");
    }
    if (!v->ck_geom) return bad(r, g, "kind", "a checksum vector, and no layout to check it against");
    int stage = g->kind == GOLDEN_KIND_CK_STEP ? REC_CK_STEP : g->kind == GOLDEN_KIND_CK_UPDATE ? REC_CK_UPDATE
                                                                                             : REC_CK_EVAL;
    size_t nb;
    int ep;
    step_plan(v, g->step, &nb, &ep);
    if (stage == REC_CK_EVAL) {
        size_t nbat = eval_batches(r);
        if (g->layer < 0 || (size_t)g->layer >= nbat)
            return bad(r, g, "layer", "%d: want the evaluation batch, 0..%zu", (int)g->layer, nbat - 1);
        int rc = check_epoch_place(v, g);
        if (rc) return rc;
        size_t first = (size_t)g->layer * r->batch;
        nb = r->limit_test - first < r->batch ? r->limit_test - first : r->batch;
    }
    recording_ck_geom G;
    v->ck_geom(v->m, nb, &G);
    G.ext = r->ck_ext;
    size_t want = recording_ck_packed_len(&G, v->m, stage);
    if (g->ndim != 1 || g->count != want)
        return bad(r, g, "shape", "%zu values in %d dimension(s): the packed vector of a batch of %zu has (%zu)",
                   g->count, g->ndim, nb, want);
    double h[3] = {stage, (double)nb, stage == REC_CK_EVAL ? 0 : (double)g->step};
    static const char *const hn[3] = {"stage", "n", "step"};
    for (int i = 0; i < 3; i++)
        if (g->values[i] != (float)h[i])
            return bad(r, g, hn[i], "%.9g in the vector's header, want %.0f", (double)g->values[i], h[i]);
    return check_ck_values(v, g, &G, stage);
}

/* Every vector there when the provenance says so: two per step, one per
 * evaluation batch of every epoch reached. */
static int check_ck_count(const vctx *v) {
    const recording *r = v->r;
    if (!r->has_checksums) return 0;
    for (long k = 1; k <= r->total_steps; k++)
        for (unsigned kind = GOLDEN_KIND_CK_STEP; kind <= GOLDEN_KIND_CK_UPDATE; kind++)
            if (!recording_find(r, k, -1, kind)) {
                char kb[16];
                return bad(r, recording_find(r, k, -1, GOLDEN_KIND_STEP), golden_kind_name(kind, kb),
                           "step %ld has no %s record, but provenance plan.checksums says every step has", k,
                           golden_kind_name(kind, kb));
            }
    for (int e = 0; e < r->epochs_run; e++)
        for (size_t b = 0; b < eval_batches(r); b++)
            if (!recording_find(r, r->ep[e].end_step, (int)b, GOLDEN_KIND_CK_EVAL))
                return bad(r, recording_find(r, r->ep[e].end_step, -1, GOLDEN_KIND_EPOCH), "ck_eval",
                           "epoch %d has no checksum vector of evaluation batch %zu", e + 1, b);
    return 0;
}

/* Every record by itself, in file order. */
static int check_records(vctx *v) {
    const golden_file *gf = v->r->gf;
    int rc = 0;
    for (size_t i = 0; i < gf->n_records && !rc; i++) {
        const golden_record *g = &gf->records[i];
        if ((rc = check_place(v, g))) break;
        if (g->kind == TENSOR_PARAMS || g->kind == TENSOR_ADAM_M || g->kind == TENSOR_ADAM_V)
            rc = check_state_record(v, g);
        else if (g->kind == GOLDEN_KIND_TIMING)
            rc = check_timing(v, g);
        else if (g->kind >= GOLDEN_KIND_CK_STEP && g->kind <= GOLDEN_KIND_CK_EVAL)
            rc = check_ck_record(v, g);
        else if (g->kind == GOLDEN_KIND_STEP || g->kind == GOLDEN_KIND_EPOCH)
            rc = g->count == (g->kind == GOLDEN_KIND_STEP ? 12u : 5u) && g->ndim == 1
                     ? 0
                     : bad(v->r, g, "shape", "%zu values in %d dimension(s)", g->count, g->ndim);
        else
            rc = check_step_record(v, g);
        if (!rc && (g->kind == GOLDEN_KIND_EPOCH || g->kind == GOLDEN_KIND_LOGITS || g->kind == GOLDEN_KIND_PREDICTIONS))
            rc = check_epoch_place(v, g);
    }
    return rc;
}

int recording_validate(const recording *r, const model *m, recording_ck_geom_fn ck_geom) {
    vctx v = {r, m, (r->limit_train + r->batch - 1) / r->batch, ck_geom};
    int rc = check_provenance(&v);
    if (rc) return rc;
    if (!(rc = check_unique(r)) && !(rc = check_step_records(&v)) && !(rc = check_records(&v)) &&
        !(rc = check_index_epochs(&v)))
        for (long k = 1; k <= r->total_steps && !rc; k++)
            if (r->steps[k].full) rc = check_full_step(&v, k);
    if (!rc) rc = check_epochs(&v);
    if (!rc) rc = check_ck_count(&v);
    return rc;
}

int recording_check_data(const recording *r, const idx_set *train) {
    int rc = 0;
    float *x = NULL;
    int32_t *y = NULL;
    uint32_t *idx = NULL;
    for (long k = 1; k <= r->total_steps && !rc; k++) {
        if (!r->steps[k].full) continue;
        const golden_record *gx = recording_find(r, k, -1, TENSOR_INPUT), *gy = recording_find(r, k, -1, GOLDEN_KIND_LABELS),
                            *gi = recording_find(r, k, -1, GOLDEN_KIND_BATCH_INDEX);
        size_t n = gi->count, in = (size_t)train->rows * train->cols;
        if (gx->count != n * in) return bad(r, gx, "input", "%zu values, the data's images of the batch have %zu",
                                            gx->count, n * in);
        if (!x) {
            x = malloc(r->batch * in * sizeof *x);
            y = malloc(r->batch * sizeof *y);
            idx = malloc(r->batch * sizeof *idx);
            if (!x || !y || !idx) {
                rc = LS_ENOMEM;
                break;
            }
        }
        for (size_t i = 0; i < n && !rc; i++)
            if ((size_t)gi->values[i] >= train->n) rc = bad(r, gi, "batch_index", "value %zu is outside the data set", i);
        if (rc) break;
        for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)gi->values[i];
        data_make_batch(train, idx, 0, n, x, y);
        for (size_t i = 0; i < n * in && !rc; i++)
            if (memcmp(&x[i], &gx->values[i], sizeof *x) != 0)
                rc = bad(r, gx, "input", "image %zu (training image %u), pixel %zu is %.9g, the data holds %.9g", i / in,
                         idx[i / in], i % in, (double)gx->values[i], (double)x[i]);
        for (size_t i = 0; i < n && !rc; i++)
            if (gy->values[i] != (float)y[i])
                rc = bad(r, gy, "labels", "value %zu is %g, the data's label of training image %u is %d", i,
                         (double)gy->values[i], idx[i], (int)y[i]);
    }
    free(x);
    free(y);
    free(idx);
    return rc;
}
