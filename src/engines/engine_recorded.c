/*
 * engine_recorded.c — `recorded:PATH`: a recording (recording.h) played
 * back through the engine table, so that a run made on another machine
 * takes part in an audit as if it ran here.
 *
 * Nothing is computed.  set_batch(step) checks that the batch is the one
 * the recording was made with (its FNV-1a digest of pixels and labels) and
 * positions on that step; forward_layer, loss, backward_layer and update
 * only advance a phase pointer (in the order a training step makes the
 * calls), and get_tensor returns the recorded value for the current step
 * and phase: PARAMS, ADAM_M and ADAM_V before update() are the state the
 * step started from (recorded at step k-1), after it the state it left.
 * A tensor the recording does not hold at this step (the recording keeps
 * every tensor only at the plan's fully compared steps) is a clear
 * LS_EINVAL, never a made-up value.  checksums(stage) returns the
 * engine's own vector, recorded at that point of every step (and of every
 * evaluation batch, positioned with engine_recorded_eval_at), or
 * LS_EUNAVAIL when the recording has none.
 *
 * set_tensor cannot change a recording: a value equal to the recorded one
 * (bit for bit) is accepted as a no-op — the audit sets every engine to the
 * seeded initial weights, which checks that the recording started there —
 * anything else fails.  So a recorded engine takes part in free mode only:
 * sync and isolated modes set other values into every engine.
 *
 * The spec is "recorded:" followed by the path, taken verbatim (it may
 * contain ':' or '='; engine_spec_parse keeps it whole, no knobs).
 *
 * Not here: reading and validating the file (recording.c), deciding
 * whether it belongs to an audit's run (recording_check_run, called by
 * audit/driver.c), evaluation (the audit reads the recorded logits).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "engines/checksums.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "engines/recorded.h"

_Static_assert((int)REC_CK_STEP == (int)CK_STAGE_STEP && (int)REC_CK_UPDATE == (int)CK_STAGE_UPDATE &&
                   (int)REC_CK_EVAL == (int)CK_STAGE_EVAL,
               "recording.h's stage numbers are engine.h's");
_Static_assert((int)CK_NPHASE == (int)REC_CK_NPHASE && (int)CK_NPHASE_EXT == (int)REC_CK_NPHASE_EXT &&
                   (int)CK_NPHASE_ALT == (int)REC_CK_NPHASE_ALT && (int)CK_NPHASE_Z == (int)REC_CK_NPHASE_Z &&
                   (int)CK_NPHASE_R == (int)REC_CK_NPHASE_R && (int)CK_NPHASE_P == (int)REC_CK_NPHASE_P &&
                   (int)CK_NPHASE_D == (int)REC_CK_NPHASE_D && (int)CK_NPHASE_ALL == (int)REC_CK_NPHASE_ALL,
               "recording_ck_geom keeps ck_layout's phases");

typedef struct {
    recording *rec;
    long step;      /* the step positioned on (0: before the first) */
    int in_step;    /* set_batch(step) done, update() not yet */
    int fwd_done;   /* layers forwarded in this step */
    int loss_done;
    int bwd_low;    /* lowest layer whose backward ran in this step (L: none) */
    int eval_epoch; /* engine_recorded_eval_at's position (-1: none) */
    size_t eval_batch;
} rec_ctx;

static const engine_i RECORDED_IFACE;

const recording *engine_recorded_get(const engine *e) {
    return e && e->iface == &RECORDED_IFACE ? ((const rec_ctx *)e->ctx)->rec : NULL;
}

static const char *path_of(const engine *e) { return ((const rec_ctx *)e->ctx)->rec->path; }

/* describe(): the recorded engine's own describe() with "recorded": true
 * and where and when it ran. */
static char *rec_describe(engine *e) {
    const rec_ctx *c = e->ctx;
    const golden_file *gf = c->rec->gf;
    const char *d = golden_provenance_get(gf, "engine.describe");
    lsbuf b;
    lsbuf_init(&b);
    lsbuf_printf(&b, "{\"recorded\": true, \"recording\": {\"path\": ");
    lsbuf_json_str(&b, c->rec->path);
    static const char *const keys[] = {"engine.spec", "host.cpu", "host.os", "gpu.name", "gpu.driver", "date",
                                       "lockstep.version", "lockstep.commit", "compiler", "cflags"};
    for (size_t i = 0; i < LS_ARRAY_LEN(keys); i++) {
        const char *v = golden_provenance_get(gf, keys[i]);
        if (!v) continue;
        lsbuf_printf(&b, ", ");
        lsbuf_json_str(&b, keys[i]);
        lsbuf_printf(&b, ": ");
        lsbuf_json_str(&b, v);
    }
    lsbuf_printf(&b, ", \"full_steps\": ");
    lsbuf_json_str(&b, c->rec->full_steps);
    lsbuf_printf(&b, "}");
    /* the recorded object's members follow ours, as the file has them
     * once jansson has read it as one JSON object (a cut-short object, or
     * a tab after its '{', made run.json invalid); anything else is kept
     * as a string */
    json_t *j = d ? json_loads(d, 0, NULL) : NULL;
    if (j && json_is_object(j)) {
        const char *p = d + strspn(d, " \t\r\n") + 1;
        p += strspn(p, " \t\r\n");
        if (*p != '}') lsbuf_printf(&b, ", %s", p);
        else lsbuf_printf(&b, "}");
    } else if (d) {
        lsbuf_printf(&b, ", \"engine.describe\": ");
        lsbuf_json_str(&b, d);
        lsbuf_printf(&b, "}");
    } else {
        lsbuf_printf(&b, "}");
    }
    json_decref(j);
    if (b.failed) {
        lsbuf_free(&b);
        return NULL;
    }
    return b.s;
}

static int rec_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    rec_ctx *c = e->ctx;
    const recording *r = c->rec;
    if (step == 0)
        return ls_err(LS_EINVAL, "recorded:%s: a recording cannot evaluate new inputs (its test-set logits are in the "
                      "file; the audit reads them)", r->path);
    if ((long)step > r->total_steps)
        return ls_err(LS_EINVAL, "recorded:%s: step %llu, but the recording has %ld steps", r->path,
                      (unsigned long long)step, r->total_steps);
    const recording_step *s = &r->steps[step];
    size_t in = (size_t)e->m->in_c * e->m->in_h * e->m->in_w;
    if (n != s->batch)
        return ls_err(LS_EINVAL, "recorded:%s: step %llu: a batch of %zu, the recording's has %zu (field: batch)",
                      r->path, (unsigned long long)step, n, s->batch);
    if (recording_batch_digest(x, labels, n, in) != s->batch_digest)
        return ls_err(LS_EINVAL, "recorded:%s: step %llu: the batch (pixels and labels) differs from the recorded one: "
                      "not the same data, shuffle or batch (field: data)", r->path, (unsigned long long)step);
    c->step = (long)step;
    c->in_step = 1;
    c->eval_epoch = -1;
    c->fwd_done = c->loss_done = 0;
    c->bwd_low = e->m->n_layers;
    return 0;
}

static int out_of_order(engine *e, const char *what) {
    rec_ctx *c = e->ctx;
    return ls_err(LS_EINVAL, "recorded:%s: %s out of order at step %ld (a recording replays a training step's calls "
                  "in order)", path_of(e), what, c->step);
}

static int rec_forward_layer(engine *e, int layer, int training) {
    rec_ctx *c = e->ctx;
    if (!training)
        return ls_err(LS_EINVAL, "recorded:%s: a recording cannot evaluate new inputs (inference forward)", path_of(e));
    if (!c->in_step || layer != c->fwd_done) return out_of_order(e, "forward_layer");
    c->fwd_done++;
    return 0;
}

static int rec_loss(engine *e, float *loss_out) {
    rec_ctx *c = e->ctx;
    if (!c->in_step || c->fwd_done != e->m->n_layers) return out_of_order(e, "loss");
    c->loss_done = 1;
    *loss_out = c->rec->steps[c->step].loss;
    return 0;
}

static int rec_backward_layer(engine *e, int layer) {
    rec_ctx *c = e->ctx;
    if (!c->in_step || !c->loss_done || layer != c->bwd_low - 1) return out_of_order(e, "backward_layer");
    c->bwd_low = layer;
    return 0;
}

static int rec_update(engine *e, const adam_scalars *a) {
    rec_ctx *c = e->ctx;
    if (!c->in_step || c->bwd_low != 0) return out_of_order(e, "update");
    if (a->t != c->step)
        return ls_err(LS_EINVAL, "recorded:%s: Adam step %d at step %ld: the recording's Adam step is the step",
                      path_of(e), a->t, c->step);
    c->in_step = 0;
    return 0;
}

/* The record behind tensor t at the current position, or an error that
 * says why there is none. */
static int locate(engine *e, tensor_id t, const golden_record **out) {
    rec_ctx *c = e->ctx;
    const recording *r = c->rec;
    int L = e->m->n_layers;
    long step = c->step;
    int layer = -1;
    const char *early = NULL;
    switch (t.kind) {
    case TENSOR_PARAMS:
    case TENSOR_ADAM_M:
    case TENSOR_ADAM_V:
        if (c->in_step) step--; /* before update(): the state the step started from */
        break;
    case TENSOR_ACT:
        layer = t.layer;
        if (c->in_step && c->fwd_done <= t.layer) early = "before its layer ran";
        break;
    case TENSOR_DACT:
        layer = t.layer;
        if (c->in_step && !(c->loss_done && (t.layer == L - 1 || c->bwd_low <= t.layer + 1)))
            early = "before it was computed";
        break;
    case TENSOR_GRADS:
        if (c->in_step && c->bwd_low == L) early = "before the backward pass";
        break;
    case TENSOR_LOSS:
        if (c->in_step && !c->loss_done) early = "before the loss";
        break;
    case TENSOR_INPUT: break;
    }
    if (early)
        return ls_err(LS_EINVAL, "recorded:%s: step %ld: %s asked for %s", r->path, step, tensor_kind_name(t.kind),
                      early);
    const golden_record *g = step >= 0 ? recording_find(r, step, layer, (unsigned)t.kind) : NULL;
    if (!g) {
        char lay[64] = "";
        if (layer >= 0) snprintf(lay, sizeof lay, " of layer %d (%s)", layer, e->m->layers[layer].name);
        return ls_err(LS_EINVAL, "recorded:%s: step %ld has no recorded %s%s (full tensors are recorded at steps %s "
                      "only)", r->path, step, tensor_kind_name(t.kind), lay, r->full_steps);
    }
    size_t want = tensor_numel(e->m, t, t.kind == TENSOR_PARAMS || t.kind == TENSOR_GRADS || t.kind == TENSOR_ADAM_M ||
                                               t.kind == TENSOR_ADAM_V || t.kind == TENSOR_LOSS
                                           ? 1
                                           : r->steps[step > 0 ? step : 1].batch);
    if (g->count != want)
        return ls_err(LS_EFORMAT, "recorded:%s: step %ld %s: %zu values recorded, the model needs %zu", r->path, step,
                      tensor_kind_name(t.kind), g->count, want);
    *out = g;
    return 0;
}

static int rec_get_tensor(engine *e, tensor_id t, float *out) {
    const golden_record *g;
    int rc = locate(e, t, &g);
    if (rc) return rc;
    memcpy(out, g->values, g->count * sizeof *out);
    return 0;
}

static int rec_set_tensor(engine *e, tensor_id t, const float *in) {
    rec_ctx *c = e->ctx;
    size_t n = tensor_numel(e->m, t, e->batch);
    /* an engine starts with zero gradients: engine_set_params says so */
    if (t.kind == TENSOR_GRADS && c->step == 0 && !c->in_step) {
        int zero = 1;
        for (size_t i = 0; i < n && zero; i++) zero = in[i] == 0 && !signbit(in[i]);
        if (zero) return 0;
    }
    const golden_record *g;
    if (locate(e, t, &g) == 0 && g->count == n && memcmp(g->values, in, n * sizeof *in) == 0) return 0;
    size_t first = 0;
    if (locate(e, t, &g) == 0 && g->count == n)
        while (first < n && memcmp(&g->values[first], &in[first], sizeof *in) == 0) first++;
    return ls_err(LS_EINVAL, "recorded:%s: a recording cannot be re-run: recorded engines take part in free mode "
                  "only (set_tensor %s at step %ld differs from the recording%s)", path_of(e),
                  tensor_kind_name(t.kind), c->step,
                  first < n && t.kind == TENSOR_PARAMS && c->step == 0
                      ? "; at step 0 these are the initial weights: recorded with another seed, model or --init?"
                      : "");
}

void recording_ck_geom_of(const model *m, size_t n, recording_ck_geom *out) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    memset(out, 0, sizeof *out);
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) /* every phase; out->ext (the caller's) says which are stored */
        for (int ph = 0; ph < CK_NPHASE_ALL; ph++) out->off[l][ph] = L.off[l][ph], out->cnt[l][ph] = L.cnt[l][ph];
    memcpy(out->is_rel, L.is_rel, sizeof out->is_rel);
    out->rel_width = CK_REL;
    out->loss_off = L.loss_off;
    out->adam_off = L.adam_off;
    out->digest_off = L.digest_off;
    out->input_off = L.input_off;
    out->ra_off = L.ra_off;
    out->z_off = L.z_off;
    out->rnd_off = L.rnd_off;
    out->peek_off = L.peek_off;
    out->dpeek_off = L.dpeek_off;
    out->wrnd_off = L.wrnd_off;
    out->total = L.adamw_off; /* ADAMW is a live engine's only */
    out->ext = 7; /* what lockstep records now; a writer of a cuda engine's sets 3, a reader the recording's own
                   * (recording.ck_ext) */
}

int engine_recorded_eval_at(engine *e, int epoch, size_t batch) {
    rec_ctx *c = e->ctx;
    const recording *r = c->rec;
    size_t nbat = (r->limit_test + r->batch - 1) / r->batch;
    if (epoch < 0 || epoch >= r->epochs_run || batch >= nbat)
        return ls_err(LS_EINVAL, "recorded:%s: no evaluation batch %zu of epoch %d (%d epoch(s) of %zu batches)",
                      r->path, batch, epoch + 1, r->epochs_run, nbat);
    c->eval_epoch = epoch;
    c->eval_batch = batch;
    c->in_step = 0;
    return 0;
}

/* The recorded vector of this step and stage: STEP after the step's
 * backward, UPDATE after its update, EVAL at engine_recorded_eval_at's
 * batch.  No vector recorded: LS_EUNAVAIL (the audit reports the engine's
 * steps as not checksum-checked); asked out of phase: LS_EINVAL. */
static int rec_checksums(engine *e, int stage, double *out) {
    rec_ctx *c = e->ctx;
    const recording *r = c->rec;
    stage &= ~CK_STAGE_LIGHT; /* the recorded vector, whole (judged as light: engine.h) */
    if (stage & ~CK_STAGE_MASK) return ls_err(LS_EINVAL, "recorded:%s: no operand hash (checksums stage %d)", r->path, stage);
    if (!r->has_checksums) {
        const char *ck = golden_provenance_get(r->gf, "plan.checksums");
        return ls_err(LS_EUNAVAIL, "recorded:%s: the recording holds no checksum vectors (%s)", r->path,
                      ck ? ck : "recorded by a lockstep that did not store them");
    }
    /* the declared operand rounding of a reduced-precision recording
     * (bounds_ck_tol's u_in) is read by every_step.c off the recording's
     * own engine.spec (engine_recorded_spec) */
    long step = c->step;
    int layer = -1;
    unsigned kind = GOLDEN_KIND_CK_STEP;
    size_t n = step >= 1 ? r->steps[step].batch : 0;
    if (stage == CK_STAGE_STEP) {
        if (!c->in_step || c->bwd_low != 0) return out_of_order(e, "checksums (step stage, after backward)");
    } else if (stage == CK_STAGE_UPDATE) {
        if (c->in_step || step < 1 || c->eval_epoch >= 0) return out_of_order(e, "checksums (update stage)");
        kind = GOLDEN_KIND_CK_UPDATE;
    } else {
        if (c->eval_epoch < 0)
            return ls_err(LS_EINVAL, "recorded:%s: evaluation checksums asked with no evaluation batch positioned "
                          "(engine_recorded_eval_at)", r->path);
        step = r->ep[c->eval_epoch].end_step;
        layer = (int)c->eval_batch;
        kind = GOLDEN_KIND_CK_EVAL;
        size_t first = c->eval_batch * r->batch;
        n = r->limit_test - first < r->batch ? r->limit_test - first : r->batch;
    }
    const golden_record *g = recording_find(r, step, layer, kind);
    recording_ck_geom G;
    recording_ck_geom_of(e->m, n, &G);
    G.ext = r->ck_ext;
    if (!g || g->count != recording_ck_packed_len(&G, e->m, stage)) /* validated: a missing one is refused */
        return ls_err(LS_EFORMAT, "recorded:%s: step %ld: no checksum vector of stage %d", r->path, step, stage);
    recording_ck_unpack(&G, e->m, stage, g->values, out);
    return 0;
}

static void rec_free(engine *e) {
    rec_ctx *c = e->ctx;
    if (!c) return;
    recording_free(c->rec);
    free(c);
    e->ctx = NULL;
}

static const engine_i RECORDED_IFACE = {
    /* .name = */ "recorded",
    /* .describe = */ rec_describe,
    /* .set_batch = */ rec_set_batch,
    /* .forward_layer = */ rec_forward_layer,
    /* .loss = */ rec_loss,
    /* .backward_layer = */ rec_backward_layer,
    /* .update = */ rec_update,
    /* .get_tensor = */ rec_get_tensor,
    /* .set_tensor = */ rec_set_tensor,
    /* .get_tensor_f64 = */ NULL,
    /* .synchronize = */ NULL,
    /* .free = */ rec_free,
    /* .checksums = */ rec_checksums,
    /* .ck_fused = */ NULL,
    /* .ck_view  = */ NULL,
};

/* The options that make this run the recording's (its plan, --audit-every
 * and --ref-steps, is adopted): one refusal names every one, where field
 * by field took a try each (gpu-check's recordings differ from the
 * defaults in four). */
static void recorded_run_options(const recording *r, char *buf, size_t cap) {
    const char *nz = golden_provenance_get(r->gf, "data.normalize"), *lr = golden_provenance_get(r->gf, "lr");
    int norm = nz && strcmp(nz, "none") != 0, lr_set = lr && strcmp(lr, "0.001") != 0;
    /* a run cut short by --steps: without it the audit run as said was refused again (field: steps) */
    long all = (long)((r->limit_train + r->batch - 1) / r->batch) * r->epochs;
    char steps[32] = "";
    if (r->total_steps < all) snprintf(steps, sizeof steps, " --steps %ld", r->total_steps);
    /* and its --init and --order files, by the paths it was recorded with (refused as field init or order) */
    const char *in = golden_provenance_get(r->gf, "init.file"), *od = golden_provenance_get(r->gf, "order.file");
    snprintf(buf, cap, "--seed %llu --batch %zu --epochs %d --limit-train %zu --limit-test %zu%s%s%s%s%s%s%s%s%s",
             (unsigned long long)r->seed, r->batch, r->epochs, r->limit_train, r->limit_test,
             norm ? " --normalize " : "", norm ? nz : "", lr_set ? " --lr " : "", lr_set ? lr : "", steps,
             in ? " --init " : "", in ? in : "", od ? " --order " : "", od ? od : "");
}

int engine_recorded_create(engine *e, const engine_spec *s) {
    const char *path = s->spec + 9; /* after "recorded:" */
    if (strncmp(s->spec, "recorded:", 9) != 0 || !*path)
        return ls_err(LS_EINVAL, "engine %s: want recorded:PATH (the recording written by `lockstep record`)", s->spec);
    rec_ctx *c = ls_calloc(1, sizeof *c);
    if (!c) return LS_ENOMEM;
    c->eval_epoch = -1;
    int rc = recording_open(&c->rec, path);
    if (rc) {
        free(c);
        return rc;
    }
    const recording *r = c->rec;
    char now[32];
    snprintf(now, sizeof now, "%016llx", (unsigned long long)model_hash(e->m));
    const char *mh = golden_provenance_get(r->gf, "model.hash");
    if (!mh || strcmp(mh, now) != 0) {
        const char *mn = golden_provenance_get(r->gf, "model.name");
        rc = ls_err(LS_EINVAL, "recorded with model %s (hash %s), this run has model %s (hash %s) (field: model)",
                    mn ? mn : "?", mh ? mh : "?", e->m->name, now);
    } else if (r->batch > e->max_batch) {
        char opts[768];
        recorded_run_options(r, opts, sizeof opts);
        rc = ls_err(LS_EINVAL, "recorded with batch %zu, this run has batch %zu (field: batch); the recording's run: %s",
                    r->batch, e->max_batch, opts);
    } else {
        rc = recording_validate(r, e->m, recording_ck_geom_of); /* the contents, before any of it is read */
    }
    if (rc) {
        recording_free(c->rec);
        free(c);
        return rc;
    }
    e->iface = &RECORDED_IFACE;
    e->ctx = c;
    return 0;
}

/* "train-images-idx3-ubyte" from ".../train-images-idx3-ubyte.gz" (the
 * provenance key golden_build_provenance uses) */
static void data_key_name(char *out, size_t cap, const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, cap, "%s", b);
    size_t l = strlen(out);
    if (l > 3 && strcmp(out + l - 3, ".gz") == 0) out[l - 3] = 0;
}

static int field_differs(const recording *r, const char *field, const char *was, const char *now) {
    char opts[768];
    recorded_run_options(r, opts, sizeof opts);
    return ls_err(LS_EINVAL, "recorded:%s: recorded with %s %s, this run has %s %s (field: %s); the recording's run: %s",
                  r->path, field, was, field, now, field, opts);
}

int recording_check_run(const recording *r, const run_cfg *c, const model *m, const dataset *ds, long total_steps) {
    char now[96], was[160];
    const char *mh = golden_provenance_get(r->gf, "model.hash");
    snprintf(now, sizeof now, "%016llx", (unsigned long long)model_hash(m));
    if (!mh || strcmp(mh, now) != 0) {
        const char *mn = golden_provenance_get(r->gf, "model.name");
        snprintf(was, sizeof was, "%s (hash %s)", mn ? mn : "?", mh ? mh : "?");
        char nw[200];
        snprintf(nw, sizeof nw, "%s (hash %s)", m->name, now);
        return field_differs(r, "model", was, nw);
    }
    if (r->seed != c->seed) {
        snprintf(was, sizeof was, "%llu", (unsigned long long)r->seed);
        snprintf(now, sizeof now, "%llu", (unsigned long long)c->seed);
        return field_differs(r, "seed", was, now);
    }
    if (r->batch != c->batch) {
        snprintf(was, sizeof was, "%zu", r->batch);
        snprintf(now, sizeof now, "%zu", c->batch);
        return field_differs(r, "batch", was, now);
    }
    if (r->epochs != c->epochs) {
        snprintf(was, sizeof was, "%d", r->epochs);
        snprintf(now, sizeof now, "%d", c->epochs);
        return field_differs(r, "epochs", was, now);
    }
    size_t lt = c->limit_train && c->limit_train < ds->train.n ? c->limit_train : ds->train.n;
    if (r->limit_train != lt) {
        snprintf(was, sizeof was, "%zu", r->limit_train);
        snprintf(now, sizeof now, "%zu", lt);
        return field_differs(r, "limit_train", was, now);
    }
    size_t ls = c->limit_test && c->limit_test < ds->test.n ? c->limit_test : ds->test.n;
    if (r->limit_test != ls) {
        snprintf(was, sizeof was, "%zu", r->limit_test);
        snprintf(now, sizeof now, "%zu", ls);
        return field_differs(r, "limit_test", was, now);
    }
    {
        /* the input transform (--normalize; absent in older recordings: none) */
        const char *v = golden_provenance_get(r->gf, "data.normalize");
        run_normalize_str(c, now, sizeof now);
        if (strcmp(v ? v : "none", now) != 0) return field_differs(r, "--normalize", v ? v : "none", now);
    }
    /* the optimizer: the same doubles, compared as the text %.17g gives */
    const struct {
        const char *key;
        double v;
    } opt[] = {{"lr", c->adam.lr}, {"adam.beta1", c->adam.beta1}, {"adam.beta2", c->adam.beta2},
               {"adam.eps", c->adam.eps}};
    for (size_t i = 0; i < LS_ARRAY_LEN(opt); i++) {
        const char *v = golden_provenance_get(r->gf, opt[i].key);
        snprintf(now, sizeof now, "%.17g", opt[i].v);
        if (!v || strcmp(v, now) != 0) return field_differs(r, opt[i].key, v ? v : "(absent)", now);
    }
    const idx_set *sets[2] = {&ds->train, &ds->test};
    for (int i = 0; i < 2; i++) {
        const char *paths[2] = {sets[i]->images_path, sets[i]->labels_path};
        uint32_t crcs[2] = {sets[i]->images_crc, sets[i]->labels_crc};
        for (int j = 0; j < 2; j++) {
            char nm[128], key[200];
            data_key_name(nm, sizeof nm, paths[j]);
            snprintf(key, sizeof key, "data.%s.crc32", nm);
            snprintf(now, sizeof now, "%08x", (unsigned)crcs[j]);
            const char *v = golden_provenance_get(r->gf, key);
            if (!v || strcmp(v, now) != 0) {
                snprintf(was, sizeof was, "crc32 %s", v ? v : "(absent)");
                char nw[128];
                snprintf(nw, sizeof nw, "crc32 %s", now);
                return ls_err(LS_EINVAL, "recorded:%s: recorded on data %s with %s, this run's %s has %s (field: data)",
                              r->path, nm, was, paths[j], nw);
            }
        }
    }
    /* --init weights and --order files: the same ones, by digest */
    const char *files[2][2] = {{"init", c->init_path}, {"order", c->order_path}};
    for (int i = 0; i < 2; i++) {
        char key[32];
        snprintf(key, sizeof key, "%s.crc32", files[i][0]);
        const char *v = golden_provenance_get(r->gf, key);
        if (!v && !files[i][1]) continue;
        if (!files[i][1]) return field_differs(r, files[i][0], v, "(none: the seeded default)");
        if (!v) {
            snprintf(now, sizeof now, "%.80s", files[i][1]);
            return field_differs(r, files[i][0], "(none: the seeded default)", now);
        }
        uint32_t crc;
        int rc = ls_file_crc32(files[i][1], &crc);
        if (rc) return rc;
        snprintf(now, sizeof now, "%08x", (unsigned)crc);
        if (strcmp(v, now) != 0) {
            snprintf(was, sizeof was, "a file of crc32 %s", v);
            char nw[256];
            snprintf(nw, sizeof nw, "%.80s of crc32 %s", files[i][1], now);
            return field_differs(r, files[i][0], was, nw);
        }
    }
    if (r->total_steps != total_steps) {
        snprintf(was, sizeof was, "%ld", r->total_steps);
        snprintf(now, sizeof now, "%ld", total_steps);
        return field_differs(r, "steps", was, now);
    }
    /* the recorded inputs are this run's data */
    return recording_check_data(r, &ds->train);
}

int recording_eval(const recording *r, int ep, const idx_set *test, size_t limit, eval_result *out) {
    memset(out, 0, sizeof *out);
    size_t n = limit && limit < test->n ? limit : test->n;
    if (ep < 0 || ep >= r->epochs_run) return ls_err(LS_EINVAL, "recorded:%s: no epoch %d", r->path, ep + 1);
    const golden_record *g = recording_find(r, r->ep[ep].end_step, -1, GOLDEN_KIND_LOGITS);
    if (!g || g->ndim != 2 || g->shape[0] != n)
        return ls_err(LS_EFORMAT, "recorded:%s: epoch %d: no logits for the %zu test images", r->path, ep + 1, n);
    int C = (int)g->shape[1];
    int rc = eval_result_alloc(out, n, C, 1);
    double *zd = rc ? NULL : ls_malloc((size_t)C * sizeof *zd);
    if (rc || !zd) {
        eval_result_free(out);
        return LS_ENOMEM;
    }
    /* eval_engine's own per-batch arithmetic (eval_add_batch), one image
     * at a time, on the recorded logits (fp32, exact in double) */
    for (size_t i = 0; i < n; i++) {
        int32_t y = test->labels[i];
        if (y < 0 || y >= C) {
            free(zd);
            eval_result_free(out);
            return ls_err(LS_EINVAL, "%s: label %d of test image %zu outside 0..%d", test->labels_path, (int)y, i,
                          C - 1);
        }
        for (int j = 0; j < C; j++) zd[j] = g->values[i * C + j];
        eval_add_batch(out, zd, &y, i, 1);
    }
    free(zd);
    eval_finish(out);
    /* the logits too, as eval_engine_logits keeps them: the seed
     * statistics' margins of a recording (a sweep's merge) need them */
    memcpy(out->logits, g->values, n * (size_t)C * sizeof *out->logits);
    return 0;
}

const char *engine_recorded_spec(const engine *e) {
    const recording *r = engine_recorded_get(e);
    return r ? golden_provenance_get(r->gf, "engine.spec") : NULL;
}
