/*
 * export.c — `lockstep export`: one step's tensors as safetensors.  See
 * export.h for the names and the two sources.
 *
 * Not here: comparing anything (the user does that, in numpy or PyTorch).
 */
#include "commands/export.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/data.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "formats/golden.h"
#include "model/model.h"
#include "formats/order.h"
#include "formats/safetensors.h"

static const unsigned char GOLDEN_MAGIC[8] = {0x89, 'L', 'S', 'G', '\r', '\n', 0x1a, '\n'};

void export_cfg_default(export_cfg *c) {
    memset(c, 0, sizeof *c);
    run_cfg_default(&c->run);
    c->step = EXPORT_STEP_UNSET;
}

/* shape of ACT/DACT of a layer for a batch of nb, as PyTorch has it */
static int act_shape(const layer *ly, size_t nb, size_t *shape) {
    shape[0] = nb;
    shape[1] = (size_t)ly->out_c;
    if (ly->out_h == 1 && ly->out_w == 1) return 2;
    shape[2] = (size_t)ly->out_h;
    shape[3] = (size_t)ly->out_w;
    return 4;
}

/* ---- from a golden file -------------------------------------------------- */

static int prov_size(const golden_file *gf, const char *key, size_t *out) {
    const char *v = golden_provenance_get(gf, key);
    char *end;
    if (!v) return -1;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || end == v) return -1;
    *out = (size_t)x;
    return 0;
}

/* crc32 of a whole file, or -1 when it cannot be read */
static int file_crc(const char *path, uint32_t *out) {
    int rc;
    FILE *f = ls_fopen_regular(path, &rc);
    if (!f) return -1;
    unsigned char b[65536];
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t n;
    while ((n = fread(b, 1, sizeof b, f)) > 0) crc = crc32(crc, b, (uInt)n);
    int bad = ferror(f);
    fclose(f);
    *out = (uint32_t)crc;
    return bad ? -1 : 0;
}

/* A golden holds no inputs: rebuild step S's batch from its provenance (the
 * data directory, verified by the recorded crc32s, the seed or the --order
 * file, batch and slice), as `golden check` would.  Returns 0 with
 * why[0] != 0 when it cannot (the export goes on without input/labels),
 * else an error of the writer. */
static int golden_batch(const golden_file *gf, long S, st_writer *w, char *why, size_t why_cap) {
    model m;
    dataset ds;
    memset(&ds, 0, sizeof ds);
    batch_order ord;
    memset(&ord, 0, sizeof ord);
    float *x = NULL;
    int32_t *y = NULL;
    int64_t *y64 = NULL;
    uint32_t *perm = NULL;
    int rc = 0;
    size_t B, limit, seed;
    why[0] = 0;
    const char *spec = golden_provenance_get(gf, "model.spec"), *dir = golden_provenance_get(gf, "data.dir");
    const char *ofile = golden_provenance_get(gf, "order.file"), *ocrc = golden_provenance_get(gf, "order.crc32");
    if (!spec || !dir || prov_size(gf, "batch", &B) || prov_size(gf, "limit_train", &limit) ||
        prov_size(gf, "seed", &seed) || B == 0 || limit == 0) {
        snprintf(why, why_cap, "the provenance lacks model.spec, data.dir, batch, limit_train or seed");
        return 0;
    }
    if (model_parse_spec(&m, spec, "model.spec") || dataset_load(&ds, dir, m.n_classes)) {
        snprintf(why, why_cap, "%s", ls_errmsg());
        goto done;
    }
    const idx_set *t = &ds.train;
    const char *paths[2] = {t->images_path, t->labels_path};
    uint32_t crcs[2] = {t->images_crc, t->labels_crc};
    for (int i = 0; i < 2 && !why[0]; i++) {
        const char *b = strrchr(paths[i], '/');
        char key[600], now[16];
        snprintf(key, sizeof key, "data.%s", b ? b + 1 : paths[i]);
        size_t kl = strlen(key);
        if (kl > 3 && strcmp(key + kl - 3, ".gz") == 0) key[kl - 3] = 0;
        strcat(key, ".crc32");
        snprintf(now, sizeof now, "%08x", (unsigned)crcs[i]);
        const char *was = golden_provenance_get(gf, key);
        if (!was || strcmp(was, now) != 0) snprintf(why, why_cap, "%s is not the file the golden was made from", paths[i]);
    }
    if (!why[0] && ofile) {
        uint32_t c;
        char now[16];
        if (file_crc(ofile, &c) == 0) snprintf(now, sizeof now, "%08x", (unsigned)c);
        if (!ocrc || file_crc(ofile, &c) || strcmp(now, ocrc) != 0)
            snprintf(why, why_cap, "the --order file %s is missing or changed", ofile);
    }
    if (why[0]) goto done;
    size_t n_train = limit < t->n ? limit : t->n, in = (size_t)m.in_c * m.in_h * m.in_w;
    size_t spe = steps_per_epoch(n_train, B);
    long epoch = (S - 1) / (long)spe;
    size_t s = (size_t)((S - 1) % (long)spe), first = s * B, nb = n_train - first < B ? n_train - first : B;
    x = ls_malloc(B * in * sizeof *x);
    y = ls_malloc(B * sizeof *y);
    y64 = ls_malloc(B * sizeof *y64);
    perm = ls_malloc(n_train * sizeof *perm);
    if (!x || !y || !y64 || !perm) {
        rc = LS_ENOMEM;
        goto done;
    }
    if (order_fill(&ord, ofile, perm, n_train, (uint64_t)seed, (int)epoch)) {
        snprintf(why, why_cap, "%s", ls_errmsg());
        goto done;
    }
    {
        /* the input transform the golden was recorded with */
        const char *norm = golden_provenance_get(gf, "data.normalize");
        run_cfg rn;
        run_cfg_default(&rn);
        if (norm && strcmp(norm, "none") != 0 && run_parse_normalize(&rn, norm)) {
            snprintf(why, why_cap, "data.normalize: %s", ls_errmsg());
            goto done;
        }
        run_apply_normalize(&rn, &ds);
    }
    data_make_batch(t, perm + first, 0, nb, x, y);
    for (size_t i = 0; i < nb; i++) y64[i] = y[i];
    char name[64];
    size_t ish[4] = {nb, (size_t)m.in_c, (size_t)m.in_h, (size_t)m.in_w};
    snprintf(name, sizeof name, "step%ld/input", S);
    rc = st_writer_add(w, name, ST_F32, 4, ish, x);
    snprintf(name, sizeof name, "step%ld/labels", S);
    if (!rc) rc = st_writer_add(w, name, ST_I64, 1, &nb, y64);
done:
    order_free(&ord);
    dataset_free(&ds);
    free(x);
    free(y);
    free(y64);
    free(perm);
    return rc;
}

/* A recording's record of step S in the names and shapes of a golden's
 * export (README, "Bring your own run"): a recording keeps parameters,
 * gradients and Adam's moments as one flat buffer named `all`, layer
 * outputs as (n, features), labels and batch indices as fp32 integers,
 * and per-step internals (the step record, checksum vectors; FORMAT.md).
 * Exported as they were, `export r.lsr --step 1` wrote `step1/all`,
 * `step1/conv1/act` of shape (16, 12544), `step1/layer-1/labels` (F32)
 * and `step1/layer-1/ck_step`.  Now: every parameter tensor by its name
 * and shape, layer outputs (n, C, H, W), labels and batch indices int64;
 * the internals are left out.  *done: 1 when the record was handled (written
 * or left out on purpose), 0 to write it as a golden's. */
static int export_recording_record(st_writer *w, const model *m, const golden_record *r, long S, int *done,
                                   size_t *n_tensors, const char *path) {
    char name[320];
    *done = 1;
    switch (r->kind) {
    case GOLDEN_KIND_STEP:
    case GOLDEN_KIND_EPOCH:
    case GOLDEN_KIND_TIMING:
    case GOLDEN_KIND_CK_STEP:
    case GOLDEN_KIND_CK_UPDATE:
    case GOLDEN_KIND_CK_EVAL: return 0; /* the recording's own bookkeeping */
    case GOLDEN_KIND_LABELS:
    case GOLDEN_KIND_BATCH_INDEX: {
        /* integers >= 0, checked here: golden_read checks the container
         * only (NaN became INT64_MIN, exit 0: a conversion out of range) */
        for (size_t i = 0; i < r->count; i++)
            if (!(r->values[i] >= 0 && r->values[i] < 0x1p31f && r->values[i] == floorf(r->values[i]))) {
                char lab[128];
                golden_record_label(r, lab, sizeof lab);
                return ls_err(LS_EFORMAT, "%s: record %s: value %zu is %.9g: want an integer in 0..2^31-1", path, lab,
                              i, (double)r->values[i]);
            }
        int64_t *v = malloc((r->count ? r->count : 1) * sizeof *v);
        if (!v) return ls_err(LS_ENOMEM, "out of memory");
        for (size_t i = 0; i < r->count; i++) v[i] = (int64_t)r->values[i];
        snprintf(name, sizeof name, "step%ld/%s", S, r->kind == GOLDEN_KIND_LABELS ? "labels" : "batch_index");
        size_t n = r->count;
        int rc = st_writer_add(w, name, ST_I64, 1, &n, v);
        free(v);
        ++*n_tensors;
        return rc;
    }
    case TENSOR_PARAMS:
    case TENSOR_GRADS:
    case TENSOR_ADAM_M:
    case TENSOR_ADAM_V: {
        if (r->count != m->n_params) break;
        const char *suffix = r->kind == TENSOR_GRADS ? "/grad" : r->kind == TENSOR_ADAM_M ? "/adam_m"
                             : r->kind == TENSOR_ADAM_V ? "/adam_v" : "";
        for (int t = 0; t < m->n_tensors; t++) {
            const model_tensor *mt = &m->tensors[t];
            size_t sh[4];
            for (int d = 0; d < mt->ndim; d++) sh[d] = (size_t)mt->shape[d];
            snprintf(name, sizeof name, "step%ld/%s%s", S, mt->name, suffix);
            int rc = st_writer_add(w, name, ST_F32, mt->ndim, sh, r->values + mt->offset);
            if (rc) return rc;
        }
        ++*n_tensors;
        return 0;
    }
    case TENSOR_ACT:
    case TENSOR_DACT: {
        if (r->layer < 0 || r->layer >= m->n_layers || r->ndim < 1) break;
        const layer *l = &m->layers[r->layer];
        size_t n = r->shape[0];
        if (n * layer_out_size(l) != r->count) break;
        size_t sh[4] = {n, (size_t)l->out_c, (size_t)l->out_h, (size_t)l->out_w};
        int nd = l->out_h == 1 && l->out_w == 1 ? 2 : 4;
        snprintf(name, sizeof name, "step%ld/%s/%s", S, r->name, r->kind == TENSOR_ACT ? "act" : "dact");
        ++*n_tensors;
        return st_writer_add(w, name, ST_F32, nd, sh, r->values);
    }
    default: break;
    }
    *done = 0;
    return 0;
}

static int export_golden(const export_cfg *c, st_writer *w) {
    golden_file *gf = NULL;
    int rc = golden_read(&gf, c->source);
    if (rc) return rc;
    char name[320], kb[16];
    size_t n = 0, n_tensors = 0;
    long S = c->step;
    const char *kind = golden_provenance_get(gf, "kind");
    int is_rec = kind && strcmp(kind, "recording") == 0;
    model m;
    if (is_rec) {
        const char *spec = golden_provenance_get(gf, "model.spec");
        if (!spec || model_parse_spec(&m, spec, "model.spec")) {
            rc = ls_err(LS_EFORMAT, "%s: a recording without a usable model.spec: %s", c->source,
                        spec ? ls_errmsg() : "absent");
            golden_file_free(gf);
            return rc;
        }
    }
    if (S == EXPORT_STEP_UNSET) {
        long last = 0;
        for (size_t i = 0; i < gf->n_records; i++)
            if ((long)gf->records[i].step > last) last = (long)gf->records[i].step;
        golden_file_free(gf);
        return ls_err(LS_EINVAL, "--step S is required: which step of %s to export (it holds step%s %s%ld)", c->source,
                      last > 1 ? "s" : "", last > 1 ? "1.." : "", last);
    }
    for (size_t i = 0; i < gf->n_records && !rc; i++) {
        const golden_record *r = &gf->records[i];
        if (r->step != (uint32_t)S) continue;
        if (is_rec) {
            int done;
            rc = export_recording_record(w, &m, r, S, &done, &n_tensors, c->source);
            if (done) {
                n++;
                continue;
            }
        }
        n_tensors++;
        switch (r->kind) {
        case TENSOR_INPUT: snprintf(name, sizeof name, "step%ld/input", S); break;
        case TENSOR_ACT: snprintf(name, sizeof name, "step%ld/%s/act", S, r->name); break;
        case TENSOR_DACT: snprintf(name, sizeof name, "step%ld/%s/dact", S, r->name); break;
        case TENSOR_LOSS: snprintf(name, sizeof name, "step%ld/loss", S); break;
        case TENSOR_GRADS: snprintf(name, sizeof name, "step%ld/%s/grad", S, r->name); break;
        case TENSOR_PARAMS: snprintf(name, sizeof name, "step%ld/%s", S, r->name); break;
        case TENSOR_ADAM_M: snprintf(name, sizeof name, "step%ld/%s/adam_m", S, r->name); break;
        case TENSOR_ADAM_V: snprintf(name, sizeof name, "step%ld/%s/adam_v", S, r->name); break;
        case GOLDEN_KIND_LOGITS: snprintf(name, sizeof name, "step%ld/test/logits", S); break;
        case GOLDEN_KIND_PREDICTIONS: snprintf(name, sizeof name, "step%ld/test/predictions", S); break;
        default: snprintf(name, sizeof name, "step%ld/layer%d/%s", S, (int)r->layer, golden_kind_name(r->kind, kb));
        }
        /* a 1-D record whose count differs from its shape (predictions
         * carry the logits' shape): write the count */
        size_t sh[GOLDEN_MAX_NDIM];
        int nd = r->ndim;
        size_t prod = 1;
        for (int d = 0; d < nd; d++) prod *= (sh[d] = r->shape[d]);
        if (prod != r->count) {
            nd = 1;
            sh[0] = r->count;
        }
        rc = st_writer_add(w, name, ST_F32, nd, sh, r->values);
        n++;
    }
    if (!rc && is_rec && n_tensors == 0) {
        /* every step has its step record: only some hold tensors */
        const char *full = golden_provenance_get(gf, "plan.full_steps");
        rc = ls_err(LS_EINVAL, "%s: step %ld is not one the recording holds tensors of: it records every tensor at "
                    "its full steps (%s) and the state after the step before each", c->source, S,
                    full ? full : "plan.full_steps absent");
    }
    if (!rc && n == 0) {
        long last = 0;
        for (size_t i = 0; i < gf->n_records; i++)
            if ((long)gf->records[i].step > last) last = (long)gf->records[i].step;
        rc = ls_err(LS_EINVAL, "%s: no tensors of step %ld (the file holds steps 1..%ld)", c->source, S, last);
    }
    if (!rc && !golden_find(gf, (uint32_t)S, -1, TENSOR_INPUT)) {
        char why[700];
        rc = golden_batch(gf, S, w, why, sizeof why);
        if (!rc && why[0]) {
            char msg[800];
            snprintf(msg, sizeof msg, "not exported: %s", why);
            rc = st_writer_meta(w, "lockstep.input", msg);
            if (c->out) fprintf(c->out, "export: step %ld input and labels %s\n", S, msg);
        }
    }
    const char *keys[] = {"engine.spec", "model.name", "model.spec", "seed", "batch", "lr", "init.file", "order.file"};
    for (size_t i = 0; i < LS_ARRAY_LEN(keys) && !rc; i++) {
        const char *v = golden_provenance_get(gf, keys[i]);
        if (v) {
            snprintf(name, sizeof name, "lockstep.%s", keys[i]);
            rc = st_writer_meta(w, name, v);
        }
    }
    golden_file_free(gf);
    return rc;
}

/* ---- live ------------------------------------------------------------------ */

/* Read tensor t of engine e into w as name: float64 from a reference engine,
 * else the fp32 bits.  buf holds numel doubles. */
static int put(st_writer *w, engine *e, int f64, tensor_id t, size_t off, const char *name, int nd, const size_t *sh,
               double *buf) {
    int rc;
    if (f64) {
        if ((rc = engine_get_tensor_f64(e, t, buf))) return rc;
        return st_writer_add(w, name, ST_F64, nd, sh, buf + off);
    }
    if ((rc = engine_get_tensor(e, t, (float *)buf))) return rc;
    return st_writer_add(w, name, ST_F32, nd, sh, (float *)buf + off);
}

/* The buffers of a live export. */
typedef struct {
    float *params, *x;
    int32_t *y;
    int64_t *y64;
    uint32_t *perm;
    double *buf;
} live_bufs;

static void live_bufs_free(live_bufs *b) {
    free(b->params);
    free(b->x);
    free(b->y);
    free(b->y64);
    free(b->perm);
    free(b->buf);
}

static int live_bufs_alloc(live_bufs *b, const model *m, size_t B, size_t n_train) {
    size_t in = (size_t)m->in_c * m->in_h * m->in_w, widest = in;
    for (int l = 0; l < m->n_layers; l++)
        if (layer_out_size(&m->layers[l]) > widest) widest = layer_out_size(&m->layers[l]);
    size_t big = B * widest > m->n_params ? B * widest : m->n_params;
    b->params = ls_malloc(m->n_params * sizeof *b->params);
    b->x = ls_malloc(B * in * sizeof *b->x);
    b->y = ls_malloc(B * sizeof *b->y);
    b->y64 = ls_malloc(B * sizeof *b->y64);
    b->perm = ls_malloc(n_train * sizeof *b->perm);
    b->buf = ls_malloc(big * sizeof *b->buf);
    return !b->params || !b->x || !b->y || !b->y64 || !b->perm || !b->buf ? LS_ENOMEM : LS_OK;
}

/* Step S (its batch already in b->x, b->y), layer by layer, each tensor
 * read when it is current. */
static int export_step(st_writer *w, engine *e, const model *m, int f64, live_bufs *b, size_t nb, long S,
                       const adam_cfg *adam) {
    char name[320];
    size_t sh[4];
    int L = m->n_layers, nd, rc;
    float loss;
    if ((rc = engine_set_batch(e, b->x, b->y, nb, (uint64_t)S))) return rc;
    size_t ish[4] = {nb, (size_t)m->in_c, (size_t)m->in_h, (size_t)m->in_w};
    snprintf(name, sizeof name, "step%ld/input", S);
    if ((rc = st_writer_add(w, name, ST_F32, 4, ish, b->x))) return rc;
    for (size_t i = 0; i < nb; i++) b->y64[i] = b->y[i];
    snprintf(name, sizeof name, "step%ld/labels", S);
    if ((rc = st_writer_add(w, name, ST_I64, 1, &nb, b->y64))) return rc;
    for (int l = 0; l < L; l++) {
        if ((rc = engine_forward_layer(e, l, 1))) return rc;
        nd = act_shape(&m->layers[l], nb, sh);
        snprintf(name, sizeof name, "step%ld/%s/act", S, m->layers[l].name);
        if ((rc = put(w, e, f64, (tensor_id){TENSOR_ACT, l}, 0, name, nd, sh, b->buf))) return rc;
    }
    if ((rc = engine_loss(e, &loss))) return rc;
    snprintf(name, sizeof name, "step%ld/loss", S);
    if ((rc = put(w, e, f64, (tensor_id){TENSOR_LOSS, 0}, 0, name, 0, sh, b->buf))) return rc;
    nd = act_shape(&m->layers[L - 1], nb, sh);
    snprintf(name, sizeof name, "step%ld/%s/dact", S, m->layers[L - 1].name);
    if ((rc = put(w, e, f64, (tensor_id){TENSOR_DACT, L - 1}, 0, name, nd, sh, b->buf))) return rc;
    for (int l = L - 1; l >= 1; l--) {
        if ((rc = engine_backward_layer(e, l))) return rc;
        nd = act_shape(&m->layers[l - 1], nb, sh);
        snprintf(name, sizeof name, "step%ld/%s/dact", S, m->layers[l - 1].name);
        if ((rc = put(w, e, f64, (tensor_id){TENSOR_DACT, l - 1}, 0, name, nd, sh, b->buf))) return rc;
    }
    if ((rc = engine_backward_layer(e, 0))) return rc;
    static const struct { tensor_kind kind; const char *suffix; } per_param[] = {
        {TENSOR_GRADS, "/grad"}, {TENSOR_PARAMS, ""}, {TENSOR_ADAM_M, "/adam_m"}, {TENSOR_ADAM_V, "/adam_v"}};
    for (size_t q = 0; q < LS_ARRAY_LEN(per_param); q++) {
        if (per_param[q].kind == TENSOR_PARAMS && (rc = engine_update(e, adam, (int)S))) return rc;
        for (int ti = 0; ti < m->n_tensors; ti++) {
            const model_tensor *mt = &m->tensors[ti];
            for (int d = 0; d < mt->ndim; d++) sh[d] = (size_t)mt->shape[d];
            snprintf(name, sizeof name, "step%ld/%s%s", S, mt->name, per_param[q].suffix);
            /* the flat buffer is read once per kind; put() re-reads it per
             * tensor only to keep one code path: cheap next to a step */
            if ((rc = put(w, e, f64, (tensor_id){per_param[q].kind, 0}, mt->offset, name, mt->ndim, sh, b->buf)))
                return rc;
        }
    }
    return LS_OK;
}

static int export_live_meta(st_writer *w, const run_cfg *rc_, const model *m, const char *spec, int f64) {
    int rc = st_writer_meta(w, "lockstep.engine.spec", spec);
    if (!rc)
        rc = st_writer_meta(w, "lockstep.values", f64 ? "float64: the engine's full values"
                                                      : "float32: the engine's bits (a reference's rounded once)");
    if (!rc) rc = st_writer_meta(w, "lockstep.model.spec", m->spec);
    char num[64];
    snprintf(num, sizeof num, "%llu", (unsigned long long)rc_->seed);
    if (!rc) rc = st_writer_meta(w, "lockstep.seed", num);
    snprintf(num, sizeof num, "%zu", rc_->batch);
    if (!rc) rc = st_writer_meta(w, "lockstep.batch", num);
    if (!rc && rc_->init_path) rc = st_writer_meta(w, "lockstep.init.file", rc_->init_path);
    if (!rc && rc_->order_path) rc = st_writer_meta(w, "lockstep.order.file", rc_->order_path);
    char norm[64];
    run_normalize_str(rc_, norm, sizeof norm);
    if (!rc) rc = st_writer_meta(w, "lockstep.normalize", norm);
    /* where weights and order came from: the seed decides only what --init/--order did not replace */
    char what[600];
    snprintf(what, sizeof what, "from %s", rc_->init_path ? rc_->init_path : "");
    if (!rc) rc = st_writer_meta(w, "lockstep.weights", rc_->init_path ? what : "seeded draw (lockstep.seed)");
    snprintf(what, sizeof what, "from %s", rc_->order_path ? rc_->order_path : "");
    if (!rc) rc = st_writer_meta(w, "lockstep.order", rc_->order_path ? what : "Philox shuffle (lockstep.seed)");
    return rc;
}

/* --state-dict: the weights after the steps run, under their state_dict
 * names only; F64 only when asked (and only a reference has such values). */
static int export_state_dict(const export_cfg *c, st_writer *w, engine *e, const model *m, live_bufs *b, int f64) {
    int rc, wide = c->f64;
    if (wide && !f64)
        return ls_err(LS_EINVAL, "--f64: engine %s keeps fp32 values only (F64 is the reference's full values); "
                      "leave --f64 out for its F32 bits", e->spec.spec);
    if ((rc = wide ? engine_get_tensor_f64(e, (tensor_id){TENSOR_PARAMS, 0}, b->buf)
                   : engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, b->params)))
        return rc;
    for (int ti = 0; ti < m->n_tensors && !rc; ti++) {
        const model_tensor *mt = &m->tensors[ti];
        size_t sh[4];
        for (int d = 0; d < mt->ndim; d++) sh[d] = (size_t)mt->shape[d];
        rc = wide ? st_writer_add(w, mt->name, ST_F64, mt->ndim, sh, b->buf + mt->offset)
                  : st_writer_add(w, mt->name, ST_F32, mt->ndim, sh, b->params + mt->offset);
    }
    if (!rc) rc = st_writer_meta(w, "format", "pt");
    return rc;
}

/* The step asked for must be one of the run the train options describe
 * (--epochs x steps per epoch, as `train` would run it), and a --order file
 * must hold its epoch: checked before the replay, which trains every step
 * up to it (`--step 99999` was hours of silence with the default data). */
static int export_check_plan(const export_cfg *c, batch_order *ord, size_t n_train) {
    const run_cfg *rc_ = &c->run;
    long spe = (long)steps_per_epoch(n_train, rc_->batch), last = (long)rc_->epochs * spe, S = c->step;
    if (S == EXPORT_STEP_UNSET)
        return ls_err(LS_EINVAL, "--step S is required: which step of this run to export (%d..%ld: %d epoch(s) of %ld "
                      "steps: %zu training images, batch %zu%s)", c->state_dict ? 0 : 1, last, rc_->epochs, spe,
                      n_train, rc_->batch, c->state_dict ? "; 0: the initial weights" : "");
    if (S > last) {
        long need = (S + spe - 1) / spe;
        char hint[128];
        if (need <= RUN_MAX_EPOCHS) snprintf(hint, sizeof hint, "--epochs %ld reaches step %ld", need, S);
        else snprintf(hint, sizeof hint, "step %ld needs %ld epochs, more than the %d --epochs takes", S, need,
                      RUN_MAX_EPOCHS);
        return ls_err(LS_EINVAL, "--step %ld is past this run's last step, %ld (%d epoch(s) of %ld steps: %zu "
                      "training images, batch %zu); %s", S, last, rc_->epochs, spe, n_train, rc_->batch, hint);
    }
    if (!rc_->order_path || S == 0) return LS_OK;
    int rc = order_load(ord, rc_->order_path, n_train);
    if (rc) return ls_err_option(rc, "--order", rc_->order_path);
    long need = (S + spe - 1) / spe;
    if ((long)ord->epochs < need)
        return ls_err(LS_EINVAL, "--order %s: the batch order has %zu epoch(s); --step %ld is in epoch %ld (%ld steps "
                      "per epoch)",
                      rc_->order_path, ord->epochs, S, need, spe);
    return LS_OK;
}

static int export_live(const export_cfg *c, st_writer *w, char *spec, size_t spec_cap) {
    const run_cfg *rc_ = &c->run;
    model m;
    dataset ds;
    memset(&ds, 0, sizeof ds);
    batch_order ord;
    memset(&ord, 0, sizeof ord);
    engine *e = NULL;
    live_bufs b;
    memset(&b, 0, sizeof b);
    int rc;
    if ((rc = model_build(&m, rc_->model))) return ls_err_option(rc, "--model", rc_->model);
    if ((rc = dataset_load(&ds, rc_->data_dir, m.n_classes))) return rc;
    run_apply_normalize(rc_, &ds);
    if ((rc = run_check_classes(rc_, &m, &ds))) goto done;
    run_note_limits(rc_, &ds, "export");
    if (ds.train.rows != m.in_h || ds.train.cols != m.in_w || m.in_c != 1) {
        rc = ls_err(LS_EINVAL, "%s: images are %dx%d but model %s expects %dx%dx%d", ds.train.images_path,
                    ds.train.rows, ds.train.cols, m.name, m.in_c, m.in_h, m.in_w);
        goto done;
    }
    size_t n_train = rc_->limit_train && rc_->limit_train < ds.train.n ? rc_->limit_train : ds.train.n;
    size_t B = rc_->batch;
    if ((rc = export_check_plan(c, &ord, n_train))) goto done;
    spec_with_threads(spec, spec_cap, rc_->engine, rc_->threads);
    engine_opts eo = {rc_->seed, rc_->batch, 0};
    if ((rc = engine_create(&e, spec, &m, &eo))) goto done;
    int f64 = e->iface->get_tensor_f64 != NULL;
    if ((rc = live_bufs_alloc(&b, &m, B, n_train))) goto done;
    if ((rc = st_init_params(&m, rc_->init_path, rc_->seed, b.params))) {
        if (rc_->init_path) ls_err_option(rc, "--init", rc_->init_path);
        goto done;
    }
    if ((rc = engine_set_params(e, b.params))) goto done;
    long k0 = 0; /* a --save-optimizer file: the run resumes after its step */
    if ((rc = run_resume(rc_, &m, e, n_train, &k0))) goto done;
    size_t spe = steps_per_epoch(n_train, B);
    long S = c->step;
    if (S < k0 || (S == k0 && !c->state_dict)) {
        rc = ls_err(LS_EINVAL, "%s resumes after step %ld: --step must be at least %ld", rc_->init_path, k0,
                    c->state_dict ? k0 : k0 + 1);
        goto done;
    }
    float loss;
    for (long k = k0 + 1; k <= S; k++) {
        long epoch = (k - 1) / (long)spe;
        size_t s = (size_t)((k - 1) % (long)spe);
        if ((s == 0 || k == k0 + 1) && (rc = order_fill(&ord, rc_->order_path, b.perm, n_train, rc_->seed, (int)epoch))) goto done;
        size_t first = s * B, nb = n_train - first < B ? n_train - first : B;
        data_make_batch(&ds.train, b.perm + first, 0, nb, b.x, b.y);
        if (k == S && !c->state_dict) {
            rc = export_step(w, e, &m, f64, &b, nb, S, &rc_->adam);
            goto done_steps;
        }
        if ((rc = engine_train_step(e, b.x, b.y, nb, (uint64_t)k, &rc_->adam, (int)k, &loss))) goto done;
        if (!isfinite(loss)) {
            rc = ls_err(LS_EINVAL, "training diverged: loss is %g at step %ld (engine %s)", (double)loss, k, spec);
            goto done;
        }
        if (rc_->progress)
            fprintf(stderr, "\r  export: replaying step %ld of %ld (epoch %ld/%d)  loss %.4f  ", k, S, epoch + 1,
                    rc_->epochs, (double)loss);
    }
done_steps:
    if (rc_->progress) fprintf(stderr, "\r%70s\r", "");
    if (!rc && c->state_dict) rc = export_state_dict(c, w, e, &m, &b, f64);
    if (!rc) rc = export_live_meta(w, rc_, &m, spec, c->state_dict ? c->f64 : f64);
done:
    engine_free(e);
    order_free(&ord);
    dataset_free(&ds);
    live_bufs_free(&b);
    return rc;
}

int export_run(const export_cfg *c) {
    if (c->step != EXPORT_STEP_UNSET && c->step < (c->state_dict ? 0 : 1))
        return ls_err(LS_EINVAL, "--step must be at least %d", c->state_dict ? 0 : 1);
    if (c->state_dict && c->source)
        return ls_err(LS_EINVAL, "--state-dict is for a live replay (--engine SPEC + train options), not %s",
                      c->source);
    if (c->f64 && !c->state_dict)
        return ls_err(LS_EINVAL, "--f64 goes with --state-dict (a live export of a step already writes a "
                      "reference's tensors as F64)");
    if (!c->out_path || !*c->out_path) return ls_err(LS_EINVAL, "--out FILE.safetensors is required");
    st_writer *w;
    int rc = st_writer_new(&w);
    if (rc) return rc;
    char spec[256] = "", num[32];
    if (c->source) {
        unsigned char magic[8] = {0};
        FILE *f = ls_fopen_regular(c->source, &rc); /* a FIFO would block */
        if (!f) goto done;
        size_t got = fread(magic, 1, sizeof magic, f);
        fclose(f);
        if (got == sizeof magic && memcmp(magic, GOLDEN_MAGIC, sizeof magic) == 0) rc = export_golden(c, w);
        else
            rc = ls_err(LS_EFORMAT, "%s: not a lockstep golden file or recording (no \\x89LSG magic); for a live "
                        "replay, give --engine SPEC and the train options instead of a file", c->source);
        if (!rc) rc = st_writer_meta(w, "lockstep.source", c->source);
    } else {
        rc = export_live(c, w, spec, sizeof spec);
        if (!rc) rc = st_writer_meta(w, "lockstep.source", "live");
    }
    snprintf(num, sizeof num, "%ld", c->step);
    if (!rc) rc = st_writer_meta(w, "lockstep.step", num);
    if (!rc) rc = st_writer_write(w, c->out_path);
    if (!rc && c->out)
        fprintf(c->out, "export: step %ld of %s -> %s\n", c->step, c->source ? c->source : spec, c->out_path);
done:
    st_writer_free(w);
    return rc;
}
