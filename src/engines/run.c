/*
 * run.c — one engine over the data: the run's configuration, test-set
 * evaluation, weights saved to safetensors (engines/run.h).  Used by every
 * command that trains (train, audit, record, golden, export).
 */
#include "engines/run.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/safetensors.h"

static const char *const FASHION_NAMES[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                              "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

void run_cfg_default(run_cfg *c) {
    memset(c, 0, sizeof *c);
    c->model = "smallcnn";
    c->data_dir = DATA_DEFAULT_DIR;
    c->engine = "cpu";
    c->epochs = 3;
    c->batch = 256;
    c->adam = adam_default();
    c->seed = 42;
    c->max_steps = -1;
}

int run_parse_normalize(run_cfg *c, const char *text) {
    char *end;
    errno = 0;
    double mean = strtod(text, &end);
    int ok = !errno && end != text && *end == ',' && !isspace((unsigned char)text[0]);
    const char *s2 = end + 1;
    double std = ok ? strtod(s2, &end) : 0;
    ok = ok && !errno && *end == 0 && !ls_blank_edges(s2);
    if (!ok && strpbrk(text, " \t\n\v\f\r"))
        return ls_err(LS_EINVAL, "--normalize: '%s': white space in MEAN,STD (give e.g. 0.2860,0.3530, without blanks)",
                      text);
    float fm = (float)mean, fs = (float)std;
    if (!ok || !isfinite(fm) || !isfinite(fs) || fs == 0.0f)
        return ls_err(LS_EINVAL, "--normalize: expected MEAN,STD (two finite numbers, STD not 0, e.g. 0.2860,0.3530), "
                      "got '%s'", text);
    c->normalize = 1;
    c->norm_mean = fm;
    c->norm_std = fs;
    return LS_OK;
}

void run_normalize_str(const run_cfg *c, char *buf, size_t cap) {
    if (c->normalize) snprintf(buf, cap, "%.9g,%.9g", (double)c->norm_mean, (double)c->norm_std);
    else snprintf(buf, cap, "none");
}

void run_apply_normalize(const run_cfg *c, dataset *ds) {
    if (c->normalize) dataset_set_normalize(ds, c->norm_mean, c->norm_std);
}

/* once: a sweep merge's audits load the same data again */
static int g_limits_said[2];

void run_note_limits_mute(void) { g_limits_said[0] = g_limits_said[1] = 1; }

void run_note_limits(const run_cfg *c, const dataset *ds, const char *cmd) {
    int *said = g_limits_said;
    const size_t lim[2] = {c->limit_train, c->limit_test}, have[2] = {ds->train.n, ds->test.n};
    static const char *const opt[2] = {"--limit-train", "--limit-test"}, *const what[2] = {"training", "test"};
    for (int i = 0; i < 2; i++)
        if (lim[i] > have[i] && !said[i]++)
            fprintf(stderr, "lockstep %s: note: %s %zu is more than the data set's %zu %s images: using all %zu\n",
                    cmd, opt[i], lim[i], have[i], what[i], have[i]);
}

int run_check_classes(const run_cfg *c, const model *m, const dataset *ds) {
    int dc = dataset_n_classes(ds);
    if (dc < 1 || m->n_classes <= dc || m->n_layers < 1) return LS_OK;
    const layer *last = &m->layers[m->n_layers - 1];
    if (dc < 2) /* one class: no logits layer fits (model.c: a logits layer needs at least 2), dense 1 included */
        return ls_err(LS_EINVAL, "--model %s: the labels of %s are all 0 (one class): no logits layer fits them "
                      "(the last layer, %s (dense %d), gives %d logits; a logits layer needs at least 2 classes)",
                      c->model ? c->model : m->name, ds->dir, last->name, last->out_c, m->n_classes);
    return ls_err(LS_EINVAL, "--model %s: the last layer, %s (dense %d), gives %d logits, but the labels of %s run "
                  "0..%d (%d classes): %d logits would name no class; make the last layer dense %d",
                  c->model ? c->model : m->name, last->name, last->out_c, m->n_classes, ds->dir, dc - 1, dc,
                  m->n_classes - dc, dc);
}

const char *class_name(const char *data_dir, int n_classes, int k, char *buf, size_t cap) {
    if (n_classes == 10 && data_dir && strstr(data_dir, "fashion")) return FASHION_NAMES[k];
    snprintf(buf, cap, "%d", k);
    return buf;
}

void spec_with_threads(char *out, size_t cap, const char *spec, int threads) {
    if (threads > 0 && !strstr(spec, "threads=") && strncmp(spec, "cuda", 4) != 0)
        snprintf(out, cap, "%s:threads=%d", spec, threads);
    else
        snprintf(out, cap, "%s", spec);
}

void eval_result_free(eval_result *r) {
    free(r->confusion);
    free(r->pred);
    free(r->logits);
    memset(r, 0, sizeof *r);
}

int eval_result_alloc(eval_result *r, size_t n, int C, int keep_logits) {
    memset(r, 0, sizeof *r);
    r->n = n;
    r->n_classes = C;
    r->confusion = ls_calloc((size_t)C * C, sizeof *r->confusion);
    r->pred = ls_calloc(n ? n : 1, 1);
    if (keep_logits) r->logits = ls_malloc((n ? n : 1) * (size_t)C * sizeof *r->logits);
    if (!r->confusion || !r->pred || (keep_logits && !r->logits)) {
        eval_result_free(r);
        return LS_ENOMEM;
    }
    return LS_OK;
}

void eval_add_batch(eval_result *r, const double *z, const int32_t *y, size_t s, size_t nb) {
    int C = r->n_classes;
    for (size_t i = 0; i < nb; i++, z += C) {
        int best = 0;
        double mx = z[0];
        for (int j = 1; j < C; j++)
            if (z[j] > z[best]) best = j;
        for (int j = 1; j < C; j++) mx = z[j] > mx ? z[j] : mx;
        double se = 0;
        for (int j = 0; j < C; j++) se += exp(z[j] - mx);
        r->loss += log(se) + mx - z[y[i]]; /* a sum until eval_finish */
        r->pred[s + i] = (uint8_t)best;
        r->confusion[(size_t)y[i] * C + best]++;
        r->accuracy += best == y[i];
    }
}

void eval_finish(eval_result *r) {
    r->loss /= (double)r->n;
    r->accuracy /= (double)r->n;
}

static int eval_run(engine *e, const idx_set *test, size_t limit, int keep_logits, eval_hook hook, void *hook_ctx,
                    eval_result *r) {
    const model *m = e->m;
    size_t n = limit && limit < test->n ? limit : test->n;
    size_t B = e->max_batch, in = (size_t)m->in_c * m->in_h * m->in_w;
    int C = m->n_classes, L = m->n_layers;
    int rc = eval_result_alloc(r, n, C, keep_logits);
    if (rc) return rc;
    float *x = ls_malloc(B * in * sizeof *x);
    int32_t *y = ls_malloc(B * sizeof *y);
    float *logits = ls_malloc(B * (size_t)C * sizeof *logits);
    double *z = ls_malloc(B * (size_t)C * sizeof *z);
    if (!x || !y || !logits || !z) {
        rc = LS_ENOMEM;
        goto done;
    }
    for (size_t s = 0; s < n; s += B) {
        size_t nb = n - s < B ? n - s : B;
        data_make_batch(test, NULL, s, nb, x, y);
        rc = engine_set_batch(e, x, y, nb, 0);
        if (!rc) rc = engine_forward(e, 0);
        if (!rc) rc = engine_get_tensor(e, (tensor_id){TENSOR_ACT, L - 1}, logits);
        if (!rc && hook) rc = hook(hook_ctx, e, x, y, nb, logits);
        if (rc) goto done;
        if (r->logits) memcpy(r->logits + s * C, logits, nb * (size_t)C * sizeof *logits);
        for (size_t i = 0; i < nb * (size_t)C; i++) z[i] = logits[i];
        eval_add_batch(r, z, y, s, nb);
    }
    eval_finish(r);
done:
    free(x);
    free(y);
    free(logits);
    free(z);
    if (rc) eval_result_free(r);
    return rc;
}

void eval_print_confusion(FILE *f, const char *data_dir, const eval_result *r) {
    char b1[16];
    int C = r->n_classes;
    fprintf(f, "\nper-class test accuracy:\n");
    for (int k = 0; k < C; k++) {
        long tot = 0;
        for (int j = 0; j < C; j++) tot += r->confusion[(size_t)k * C + j];
        fprintf(f, "  %d %-12s %5ld / %5ld  %6.2f%%\n", k, class_name(data_dir, C, k, b1, sizeof b1),
                r->confusion[(size_t)k * C + k], tot, tot ? 100.0 * r->confusion[(size_t)k * C + k] / tot : 0.0);
    }
    /* the rows' label "  K NAME  " and the header's indent the same width, so
     * that each count stands under its class index */
    int w = snprintf(NULL, 0, "%d", C > 1 ? C - 1 : 0);
    fprintf(f, "\nconfusion matrix (rows: true class, columns: predicted):\n%*s", 2 + w + 1 + 12 + 2, "");
    for (int j = 0; j < C; j++) fprintf(f, "%6d", j);
    fprintf(f, "\n");
    for (int k = 0; k < C; k++) {
        fprintf(f, "  %*d %-12s  ", w, k, class_name(data_dir, C, k, b1, sizeof b1));
        for (int j = 0; j < C; j++) fprintf(f, "%6ld", r->confusion[(size_t)k * C + j]);
        fprintf(f, "\n");
    }
}

int eval_engine(engine *e, const idx_set *test, size_t limit, eval_result *r) {
    return eval_run(e, test, limit, 0, NULL, NULL, r);
}

int eval_engine_logits(engine *e, const idx_set *test, size_t limit, eval_result *r) {
    return eval_run(e, test, limit, 1, NULL, NULL, r);
}

int eval_engine_hooked(engine *e, const idx_set *test, size_t limit, eval_hook hook, void *ctx, eval_result *r) {
    return eval_run(e, test, limit, 1, hook, ctx, r);
}

/* --save: the engine's final weights (and with --save-optimizer its Adam
 * state after `steps` updates); params is scratch of n_params floats. */
static int save_state(const run_cfg *c, const model *m, engine *e, const char *path, float *params, long steps,
                      size_t n_train, save_verify verify, void *ctx);

int train_save_weights(const run_cfg *c, const model *m, engine *e, const char *path, float *params, long steps) {
    return save_state(c, m, e, path, params, steps, 0, NULL, NULL);
}

int train_save_weights_verified(const run_cfg *c, const model *m, engine *e, const char *path, float *params,
                                long steps, save_verify verify, void *ctx) {
    return save_state(c, m, e, path, params, steps, 0, verify, ctx);
}

int train_save_state(const run_cfg *c, const model *m, engine *e, const char *path, float *params, long steps,
                     size_t n_train) {
    return save_state(c, m, e, path, params, steps, n_train, NULL, NULL);
}

static int save_state(const run_cfg *c, const model *m, engine *e, const char *path, float *params, long steps,
                      size_t n_train, save_verify verify, void *ctx) {
    float *am = NULL, *av = NULL;
    int rc = engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, params);
    if (!rc && c->save_optimizer) {
        am = ls_malloc(m->n_params * sizeof *am);
        av = ls_malloc(m->n_params * sizeof *av);
        rc = !am || !av ? LS_ENOMEM : engine_get_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, am);
        if (!rc) rc = engine_get_tensor(e, (tensor_id){TENSOR_ADAM_V, 0}, av);
    }
    if (!rc && verify) rc = verify(ctx, params, am, av);
    if (!rc) {
        st_optim opt = {am, av, steps, c->adam, n_train ? c->batch : 0, n_train};
        rc = st_save_params(m, path, params, c->save_optimizer ? &opt : NULL);
    }
    free(am);
    free(av);
    return rc;
}

int run_resume(const run_cfg *c, const model *m, engine *e, size_t n_train, long *start_step) {
    *start_step = 0;
    if (!c->init_path) return LS_OK;
    float *am = ls_malloc(m->n_params * sizeof *am), *av = ls_malloc(m->n_params * sizeof *av);
    st_optim_in o;
    int rc = !am || !av ? LS_ENOMEM : st_load_optim(m, c->init_path, am, av, &o);
    if (rc && am && av) ls_err_option(rc, "--init", c->init_path); /* the file's problem, not memory */
    if (rc || !o.present) goto done;
    const char *names[] = {"lr", "beta1", "beta2", "eps"};
    const double mine[] = {c->adam.lr, c->adam.beta1, c->adam.beta2, c->adam.eps};
    const double file[] = {o.cfg.lr, o.cfg.beta1, o.cfg.beta2, o.cfg.eps};
    for (int i = 0; i < 4 && !rc; i++)
        if (mine[i] != file[i])
            rc = ls_err(LS_EINVAL, "%s: its Adam state was made with %s %.17g but this run has %.17g: resuming "
                        "continues the same run (give the same --lr)", c->init_path, names[i], file[i], mine[i]);
    if (!rc && o.batch >= 0 && (o.batch != (long)c->batch || o.n_train != (long)n_train))
        rc = ls_err(LS_EINVAL, "%s: saved at step %ld of a run with batch %ld on %ld training images; this run has "
                    "batch %zu on %zu: its step %ld would be another batch (give the same --batch and --limit-train)",
                    c->init_path, o.step, o.batch, o.n_train, c->batch, n_train, o.step + 1);
    if (rc) ls_err_option(rc, "--init", c->init_path);
    if (!rc) rc = engine_set_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, am);
    if (!rc) rc = engine_set_tensor(e, (tensor_id){TENSOR_ADAM_V, 0}, av);
    if (!rc) *start_step = o.step;
done:
    free(am);
    free(av);
    return rc;
}
