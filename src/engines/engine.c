/*
 * engine.c — what every engine shares: engine spec parsing
 * ("cpu:threads=1:algo=winograd"), freeing, and the thin wrappers
 * through which every caller reaches an engine's table.  The
 * wrappers check arguments, keep per-layer wall-clock timing and convert
 * floats to doubles for engines without a double read-out.
 */
#include "engines/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include <unistd.h>

/* ---- engine specs ------------------------------------------------------ */

int engine_spec_parse(engine_spec *s, const char *text) {
    memset(s, 0, sizeof *s);
    if (!text || !*text) return ls_err(LS_EINVAL, "empty engine name");
    if (strlen(text) >= sizeof s->spec) return ls_err(LS_EINVAL, "engine spec too long: '%s'", text);
    snprintf(s->spec, sizeof s->spec, "%s", text);
    /* "recorded:PATH": the rest is a path, taken whole (it may hold ':' or
     * '='); the recorded engine reads it from s->spec */
    if (strncmp(text, "recorded:", 9) == 0) {
        snprintf(s->name, sizeof s->name, "recorded");
        return LS_OK;
    }
    /* strtok would skip an empty knob: `cpu::threads=1` and `cpu:` are typos, not cpu */
    if (strstr(text, "::") || text[strlen(text) - 1] == ':')
        return ls_err(LS_EINVAL, "engine spec '%s': an empty knob (':' twice in a row, or at the end)", text);
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    char *tok = strtok_r(buf, ":", &save);
    if (!tok || strlen(tok) >= sizeof s->name) return ls_err(LS_EINVAL, "bad engine spec '%s'", text);
    snprintf(s->name, sizeof s->name, "%s", tok);
    while ((tok = strtok_r(NULL, ":", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1])
            return ls_err(LS_EINVAL, "engine spec '%s': knob '%s' is not KEY=VALUE", text, tok);
        if (s->n_knobs >= ENGINE_MAX_KNOBS) return ls_err(LS_EINVAL, "engine spec '%s': too many knobs", text);
        *eq = 0;
        if (strlen(tok) >= sizeof s->key[0] || strlen(eq + 1) >= sizeof s->val[0])
            return ls_err(LS_EINVAL, "engine spec '%s': knob too long", text);
        for (int i = 0; i < s->n_knobs; i++)
            if (strcmp(s->key[i], tok) == 0) return ls_err(LS_EINVAL, "engine spec '%s': knob '%s' given twice", text, tok);
        /* `threads= 2` was two threads (strtol skips the blank) */
        if (ls_blank_edges(tok) || ls_blank_edges(eq + 1))
            return ls_err(LS_EINVAL, "engine spec '%s': knob '%s': white space around its key or value", text, tok);
        snprintf(s->key[s->n_knobs], sizeof s->key[0], "%s", tok);
        snprintf(s->val[s->n_knobs], sizeof s->val[0], "%s", eq + 1);
        s->n_knobs++;
    }
    return LS_OK;
}

const char *engine_spec_get(const engine_spec *s, const char *key, const char *def) {
    for (int i = 0; i < s->n_knobs; i++)
        if (strcmp(s->key[i], key) == 0) return s->val[i];
    return def;
}

int engine_spec_check(const engine_spec *s, const char *const *allowed) {
    for (int i = 0; i < s->n_knobs; i++) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, s->key[i]) == 0) ok = 1;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 2);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            /* the audit's own knobs reach no engine: name where they belong (the README shows cpu:perturb=1) */
            int audit_knob = strcmp(s->key[i], "perturb") == 0 || strcmp(s->key[i], "draw") == 0;
            return ls_err(LS_EINVAL, "engine %s: unknown knob '%s' (known: %s)%s", s->spec, s->key[i], list,
                          audit_knob ? "; perturb= and draw= are audit's own, for an engine in audit --engines" : "");
        }
    }
    return LS_OK;
}

int engine_spec_choice(const engine_spec *s, const char *key, const char *def, const char *const *names, int *out) {
    const char *v = engine_spec_get(s, key, def);
    char known[256] = "";
    for (int i = 0; names[i]; i++) {
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return LS_OK;
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", names[i]);
    }
    return ls_err(LS_EINVAL, "engine %s: unknown value '%s' for knob %s (known: %s)", s->spec, v, key, known);
}

/* ---- creation ---------------------------------------------------------- */

void engine_free(engine *e) {
    if (!e) return;
    if (e->iface && e->iface->free) e->iface->free(e);
    free(e->samples);
    if (e->ck_state && e->ck_state_free) e->ck_state_free(e->ck_state);
    free(e);
}

/* ---- wrappers ---------------------------------------------------------- */

static int check_layer(engine *e, int l) {
    if (l < 0 || l >= e->m->n_layers) return ls_err(LS_EINVAL, "%s: layer %d out of range", e->spec.spec, l);
    return LS_OK;
}

static int check_tensor(engine *e, tensor_id t) {
    if (t.kind == TENSOR_ACT || t.kind == TENSOR_DACT) return check_layer(e, t.layer);
    if ((unsigned)t.kind > TENSOR_LOSS) return ls_err(LS_EINVAL, "%s: bad tensor kind %d", e->spec.spec, (int)t.kind);
    return LS_OK;
}

/* Time a call; with time_layers set the engine is synchronized first so a
 * device engine's queued work is charged to the right layer. */
#define TIMED(e, acc, call) TIMED_S(e, acc, NULL, call)
/* ... and the call's duration into a sample reservoir (res: a member of
 * e->samples, or NULL); without memory for samples only the sums are kept */
#define TIMED_S(e, acc, res, call)                                   \
    do {                                                             \
        double t0_ = ls_now();                                       \
        rc = (call);                                                 \
        if (rc == 0 && (e)->time_layers) rc = engine_synchronize(e); \
        if (!(e)->timed_inside) {                                    \
            double dt_ = ls_now() - t0_;                             \
            (acc) += dt_;                                            \
            timing_reservoir *r_ = (res);                            \
            if (r_) timing_add(r_, dt_);                             \
        }                                                            \
    } while (0)

/* e's reservoirs, allocated on first use */
static engine_timing_samples *samples_of(engine *e) {
    if (!e->samples && !e->timed_inside) e->samples = calloc(1, sizeof *e->samples);
    return e->samples;
}
#define SAMPLE(e, member) (samples_of(e) ? &(e)->samples->member : NULL)

char *engine_describe(engine *e) { return e->iface->describe ? e->iface->describe(e) : NULL; }

int engine_set_params(engine *e, const float *params) {
    int rc = engine_set_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, params);
    if (rc) return rc;
    float *zero = ls_calloc(e->m->n_params, sizeof *zero);
    if (!zero) return LS_ENOMEM;
    tensor_kind ks[3] = {TENSOR_GRADS, TENSOR_ADAM_M, TENSOR_ADAM_V};
    for (int i = 0; i < 3 && rc == 0; i++) rc = engine_set_tensor(e, (tensor_id){ks[i], 0}, zero);
    free(zero);
    return rc;
}

int engine_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    if (n == 0 || n > e->max_batch)
        return ls_err(LS_EINVAL, "%s: batch of %zu outside 1..%zu", e->spec.spec, n, e->max_batch);
    for (size_t i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= e->m->n_classes)
            return ls_err(LS_EINVAL, "%s: label %d of sample %zu outside 0..%d", e->spec.spec, labels[i], i,
                          e->m->n_classes - 1);
    int rc;
    TIMED(e, e->timing.set_batch_s, e->iface->set_batch(e, x, labels, n, step));
    if (rc == 0) {
        e->batch = n;
        e->step = step;
    }
    return rc;
}

int engine_forward_layer(engine *e, int l, int training) {
    int rc = check_layer(e, l);
    if (rc) return rc;
    TIMED_S(e, e->timing.layer_s[l][DIR_FWD], SAMPLE(e, layer[l][training ? TPH_TRAIN_FWD : TPH_EVAL_FWD]),
            e->iface->forward_layer(e, l, training));
    e->timing.layer_calls[l][DIR_FWD]++;
    return rc;
}

int engine_loss(engine *e, float *loss_out) {
    int rc;
    float tmp;
    TIMED_S(e, e->timing.loss_s, SAMPLE(e, loss), e->iface->loss(e, loss_out ? loss_out : &tmp));
    return rc;
}

int engine_backward_layer(engine *e, int l) {
    int rc = check_layer(e, l);
    if (rc) return rc;
    TIMED_S(e, e->timing.layer_s[l][DIR_BWD], SAMPLE(e, layer[l][TPH_BWD]), e->iface->backward_layer(e, l));
    e->timing.layer_calls[l][DIR_BWD]++;
    return rc;
}

int engine_update(engine *e, const adam_cfg *cfg, int t) {
    if (t < 1) return ls_err(LS_EINVAL, "%s: Adam step must be >= 1, got %d", e->spec.spec, t);
    adam_scalars a = adam_make_scalars(cfg, t);
    int rc;
    TIMED_S(e, e->timing.update_s, SAMPLE(e, update), e->iface->update(e, &a));
    e->last_adam = a;
    return rc;
}

int engine_get_tensor(engine *e, tensor_id t, float *out) {
    int rc = check_tensor(e, t);
    if (rc) return rc;
    TIMED(e, e->timing.get_s, e->iface->get_tensor(e, t, out));
    return rc;
}

int engine_get_tensor_f64(engine *e, tensor_id t, double *out) {
    int rc = check_tensor(e, t);
    if (rc) return rc;
    if (e->iface->get_tensor_f64) {
        TIMED(e, e->timing.get_s, e->iface->get_tensor_f64(e, t, out));
        return rc;
    }
    size_t n = tensor_numel(e->m, t, e->batch);
    float *tmp = ls_malloc(n * sizeof *tmp);
    if (!tmp) return LS_ENOMEM;
    rc = engine_get_tensor(e, t, tmp);
    if (rc == 0)
        for (size_t i = 0; i < n; i++) out[i] = tmp[i];
    free(tmp);
    return rc;
}

int engine_set_tensor(engine *e, tensor_id t, const float *in) {
    int rc = check_tensor(e, t);
    if (rc) return rc;
    if (t.kind == TENSOR_LOSS) return ls_err(LS_EINVAL, "%s: the loss cannot be set", e->spec.spec);
    TIMED(e, e->timing.set_s, e->iface->set_tensor(e, t, in));
    return rc;
}

int engine_checksums(engine *e, int stage, double *out) {
    if (!e->iface->checksums) return ls_err(LS_EUNAVAIL, "%s: no every-step checksums", e->spec.spec);
    int st = stage & CK_STAGE_MASK, fl = stage & ~CK_STAGE_MASK;
    int hf = fl & ~CK_STAGE_LIGHT;
    if (st < CK_STAGE_STEP || st > CK_STAGE_EVAL || (hf & ~(CK_STAGE_HASH | CK_STAGE_HASH_ONLY)) ||
        hf == (CK_STAGE_HASH | CK_STAGE_HASH_ONLY) || (fl && st == CK_STAGE_EVAL) ||
        ((fl & CK_STAGE_LIGHT) && st != CK_STAGE_STEP))
        return ls_err(LS_EINVAL, "checksums: bad stage %d", stage);
    return e->iface->checksums(e, stage, out);
}

int engine_synchronize(engine *e) { return e->iface->synchronize ? e->iface->synchronize(e) : LS_OK; }

int engine_forward(engine *e, int training) {
    for (int l = 0; l < e->m->n_layers; l++) {
        int rc = engine_forward_layer(e, l, training);
        if (rc) return rc;
    }
    return LS_OK;
}

int engine_backward(engine *e) {
    for (int l = e->m->n_layers - 1; l >= 0; l--) {
        int rc = engine_backward_layer(e, l);
        if (rc) return rc;
    }
    return LS_OK;
}

int engine_train_step(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step,
                      const adam_cfg *cfg, int t, float *loss_out) {
    int rc = engine_set_batch(e, x, labels, n, step);
    if (!rc) rc = engine_forward(e, 1);
    if (!rc) rc = engine_loss(e, loss_out);
    if (!rc) rc = engine_backward(e);
    if (!rc) rc = engine_update(e, cfg, t);
    return rc;
}
