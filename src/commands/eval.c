/*
 * eval.c — `lockstep eval`: given weights on the test set, one or several
 * engines, no training (eval.h).
 *
 * Each engine runs the test set layer by layer so that, for an fp32
 * engine, the forward error bound of its logits can be carried along from
 * its own activations (bounds_eval_layer, the rule golden check applies to
 * a golden's evaluation) where two or more engines are compared (one alone
 * has nothing to compare its logits with); the reference's logits are read
 * as doubles.  The
 * comparison of two engines is compare.h's, with the bound the two sides'
 * bounds add up to (a reference side contributes 0).
 */
#include "commands/eval.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "checks/bounds.h"
#include "checks/compare.h"
#include "engines/registry.h"
#include "formats/safetensors.h"

#define EVAL_MAX_ENGINES 8
#define EVAL_BOUND_THREADS 8 /* at most, for the bound (eval_bound_layer) */
#define EVAL_LIST_DIFFS 20 /* differing predictions listed on the screen (all are in --json and --out) */

typedef struct {
    char spec[256];
    engine *e;
    int exact;      /* a reference: its logits are its full values */
    eval_result r;
    double *z;      /* n x C logits (an fp32 engine's floats, exactly) */
    float *zf;      /* n x C: the fp32 logits (the reference's rounded once) */
    double *err;    /* n x C forward error bound of an fp32 engine; NULL for the reference */
} eval_eng;

typedef struct {
    const eval_cfg *c;
    model m;
    dataset ds;
    size_t n, in, widest, B;
    int C;
    float *params, *x, *act[2], *errf;
    int32_t *y;
    double *err[2], *tmp;
    int n_eng;
    eval_eng eng[EVAL_MAX_ENGINES];
    int base;       /* the engine the others are compared with: the first reference, else the first */
    int bound_threads; /* the bound's threads: the CPUs this process may use, at most EVAL_BOUND_THREADS */
} eval_ctx;

void eval_cfg_default(eval_cfg *c) {
    memset(c, 0, sizeof *c);
    run_cfg_default(&c->run);
}

static void eval_ctx_free(eval_ctx *t) {
    for (int k = 0; k < t->n_eng; k++) {
        engine_free(t->eng[k].e);
        eval_result_free(&t->eng[k].r);
        free(t->eng[k].z);
        free(t->eng[k].zf);
        free(t->eng[k].err);
    }
    free(t->params);
    free(t->x);
    free(t->y);
    free(t->errf);
    free(t->tmp);
    for (int i = 0; i < 2; i++) {
        free(t->act[i]);
        free(t->err[i]);
    }
    dataset_free(&t->ds);
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

int eval_out_format_of(const char *path, eval_out_format *fmt) {
    if (ends_with(path, ".npy")) *fmt = EVAL_OUT_NPY;
    else if (ends_with(path, ".safetensors") || ends_with(path, ".st")) *fmt = EVAL_OUT_SAFETENSORS;
    else
        return ls_err(LS_EINVAL, "--out %s: the name chooses the format: want FILE.safetensors (or FILE.st) for "
                      "every engine's logits and predictions, or FILE.npy for one engine's", path);
    return LS_OK;
}

/* Model, data, weights, scratch; the engines' specs. */
static int eval_setup(eval_ctx *t) {
    const run_cfg *c = &t->c->run;
    int rc;
    if (!c->init_path)
        return ls_err(LS_EINVAL, "--init W.safetensors is required (the weights to evaluate: a --save file, an "
                      "export --state-dict, or a PyTorch state_dict)");
    if ((rc = model_build(&t->m, c->model))) return ls_err_option(rc, "--model", c->model);
    if ((rc = dataset_load_shape(&t->ds, c->data_dir, t->m.n_classes, t->m.in_h, t->m.in_w))) return rc;
    run_apply_normalize(c, &t->ds);
    if ((rc = run_check_classes(c, &t->m, &t->ds))) return rc;
    run_note_limits(c, &t->ds, "eval");
    const model *m = &t->m;
    t->n = c->limit_test && c->limit_test < t->ds.test.n ? c->limit_test : t->ds.test.n;
    t->C = m->n_classes;
    t->B = c->batch;
    t->in = (size_t)m->in_c * m->in_h * m->in_w;
    /* --threads N: N for the bound too; else every CPU this process may use */
    cpu_set_t cs;
    int cpus = c->threads > 0 ? c->threads : sched_getaffinity(0, sizeof cs, &cs) == 0 ? CPU_COUNT(&cs) : 1;
    t->bound_threads = cpus < 1 ? 1 : cpus > EVAL_BOUND_THREADS ? EVAL_BOUND_THREADS : cpus;
    t->widest = t->in;
    for (int l = 0; l < m->n_layers; l++)
        if (layer_out_size(&m->layers[l]) > t->widest) t->widest = layer_out_size(&m->layers[l]);
    size_t wb = t->B * t->widest;
    t->params = ls_malloc(m->n_params * sizeof *t->params);
    t->x = ls_malloc(t->B * t->in * sizeof *t->x);
    t->y = ls_malloc(t->B * sizeof *t->y);
    t->errf = ls_malloc(wb * sizeof *t->errf);
    t->tmp = ls_malloc(wb * sizeof *t->tmp);
    for (int i = 0; i < 2; i++) {
        t->act[i] = ls_malloc(wb * sizeof *t->act[i]);
        t->err[i] = ls_malloc(wb * sizeof *t->err[i]);
    }
    if (!t->params || !t->x || !t->y || !t->errf || !t->tmp || !t->act[0] || !t->act[1] || !t->err[0] || !t->err[1])
        return LS_ENOMEM;
    if ((rc = st_load_params(m, c->init_path, t->params))) return ls_err_option(rc, "--init", c->init_path);
    char list[1024];
    const char *src = t->c->engines ? t->c->engines : c->engine;
    if (strlen(src) >= sizeof list) return ls_err(LS_EINVAL, "engine list longer than %zu characters", sizeof list - 1);
    snprintf(list, sizeof list, "%s", src);
    char *save = NULL;
    for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (t->n_eng == EVAL_MAX_ENGINES) return ls_err(LS_EINVAL, "at most %d engines", EVAL_MAX_ENGINES);
        spec_with_threads(t->eng[t->n_eng++].spec, sizeof t->eng[0].spec, s, c->threads);
    }
    if (t->n_eng == 0) return ls_err(LS_EINVAL, "--engines lists no engine");
    const char *o = t->c->out_path;
    eval_out_format fmt;
    if (o && (rc = eval_out_format_of(o, &fmt))) return rc;
    if (o && t->n_eng > 1 && fmt == EVAL_OUT_NPY)
        return ls_err(LS_EINVAL, "--out %s: .npy holds one engine's logits; give FILE.safetensors for %d engines", o,
                      t->n_eng);
    return LS_OK;
}

/* bounds_eval_layer over a batch, its samples split among threads.  A
 * sample's bound depends on that sample's input and input bound only (the
 * sums run within a sample, in the same order whatever the batch), so the
 * split changes no bit of it; it took the two-engine eval's time from the
 * bound's one core to all of them (eval_engine_run runs the engines one at
 * a time, so the engine is idle meanwhile).  pthreads, not OpenMP: compare.c
 * is built without OpenMP, and a process that forks engines later must not
 * hold a libgomp pool (the Makefile). */
typedef struct {
    const model *m;
    int l;
    const float *pf, *x;
    const double *err_in;
    double *err_out, *tmp;
    float *errf;
    size_t n;
} bound_part;

static void *bound_part_run(void *arg) {
    const bound_part *b = arg;
    bounds_eval_layer(b->m, b->l, b->pf, b->x, b->err_in, b->err_out, b->errf, b->tmp, b->n);
    return NULL;
}

static void eval_bound_layer(const eval_ctx *t, int l, const float *x, const double *err_in, double *err_out,
                             size_t nb) {
    const layer *ly = &t->m.layers[l];
    size_t si = layer_in_size(ly), so = layer_out_size(ly);
    size_t T = (size_t)t->bound_threads < nb ? (size_t)t->bound_threads : nb;
    if (T < 1) T = 1;
    bound_part part[EVAL_BOUND_THREADS];
    pthread_t th[EVAL_BOUND_THREADS];
    int started[EVAL_BOUND_THREADS] = {0};
    for (size_t k = 0, s0 = 0; k < T; k++) {
        size_t c = nb / T + (k < nb % T);
        part[k] = (bound_part){&t->m, l, t->params, x + s0 * si, err_in + s0 * si, err_out + s0 * so,
                               t->tmp + s0 * so, t->errf + s0 * si, c};
        s0 += c;
    }
    for (size_t k = 1; k < T; k++) started[k] = pthread_create(&th[k], NULL, bound_part_run, &part[k]) == 0;
    bound_part_run(&part[0]);
    for (size_t k = 1; k < T; k++) {
        if (started[k]) pthread_join(th[k], NULL);
        else bound_part_run(&part[k]); /* no thread to be had: the same work on this one */
    }
}

/* One batch through engine k, layer by layer, the bound carried along
 * where a comparison will read it (g->err: two engines or more; alone, an
 * engine's bound went unread and was ~95% of an eval's time: 11.4 s of
 * CPU for the 10,000 test images, against ~0.5 s without it). */
static int eval_batch(eval_ctx *t, eval_eng *g, size_t s, size_t nb) {
    const model *m = &t->m;
    int L = m->n_layers, C = t->C, rc, cur = 0;
    const float *xin = t->x;
    if ((rc = engine_set_batch(g->e, t->x, t->y, nb, 0))) return rc;
    if (g->err) memset(t->err[0], 0, nb * t->in * sizeof(double)); /* the same input floats everywhere */
    for (int l = 0; l < L; l++) {
        if ((rc = engine_forward_layer(g->e, l, 0))) return rc;
        if (!g->err) continue;
        if ((rc = engine_get_tensor(g->e, (tensor_id){TENSOR_ACT, l}, t->act[l & 1]))) return rc;
        eval_bound_layer(t, l, xin, t->err[cur], t->err[!cur], nb);
        cur = !cur;
        xin = t->act[l & 1];
    }
    double *z = g->z + s * C;
    float *zf = g->zf + s * C;
    if (g->exact) {
        if ((rc = engine_get_tensor_f64(g->e, (tensor_id){TENSOR_ACT, L - 1}, z))) return rc;
        for (size_t i = 0; i < nb * (size_t)C; i++) zf[i] = (float)z[i];
    } else {
        if ((rc = engine_get_tensor(g->e, (tensor_id){TENSOR_ACT, L - 1}, zf))) return rc;
        for (size_t i = 0; i < nb * (size_t)C; i++) z[i] = zf[i];
        if (g->err) memcpy(g->err + s * C, t->err[cur], nb * (size_t)C * sizeof *g->err);
    }
    eval_add_batch(&g->r, z, t->y, s, nb);
    return LS_OK;
}

static int eval_engine_run(eval_ctx *t, eval_eng *g) {
    engine_opts eo = {t->c->run.seed, t->B, 0};
    int rc;
    if ((rc = engine_create(&g->e, g->spec, &t->m, &eo))) return rc;
    /* exact: the reference's full values, no rounding to bound.  Its
     * fp32cr mode has get_tensor_f64 too, but every value it stores is an
     * fp32 rounding (one per operation): it is an fp32 engine like any
     * other here, its logits carrying the same per-layer bound, so a cpu
     * engine against it gets both bounds, not the cpu's alone */
    g->exact = g->e->iface->get_tensor_f64 != NULL;
    if (g->exact) {
        char *d = engine_describe(g->e);
        if (d && strstr(d, "\"mode\": \"fp32cr\"")) g->exact = 0;
        free(d);
    }
    size_t nc = t->n * (size_t)t->C;
    g->z = ls_malloc(nc * sizeof *g->z);
    g->zf = ls_malloc(nc * sizeof *g->zf);
    int bounded = !g->exact && t->n_eng > 1; /* only eval_compare reads the bound */
    if (bounded) g->err = ls_malloc(nc * sizeof *g->err);
    if (!g->z || !g->zf || (bounded && !g->err)) return LS_ENOMEM;
    if ((rc = eval_result_alloc(&g->r, t->n, t->C, 0))) return rc;
    if ((rc = engine_set_params(g->e, t->params))) return rc;
    for (size_t s = 0; s < t->n; s += t->B) {
        size_t nb = t->n - s < t->B ? t->n - s : t->B;
        data_make_batch(&t->ds.test, NULL, s, nb, t->x, t->y);
        if ((rc = eval_batch(t, g, s, nb))) return rc;
    }
    eval_finish(&g->r);
    return LS_OK;
}

/* Engine k against the base: its logits compared under the bound both
 * sides' errors add up to (1.01: the bound's own evaluation in double, as
 * golden check allows), and the images whose predictions differ. */
static int eval_compare(const eval_ctx *t, int k, compare_stats *st, double *bound) {
    const eval_eng *a = &t->eng[t->base], *b = &t->eng[k];
    size_t nc = t->n * (size_t)t->C;
    int bounded = !(a->exact && b->exact);
    for (size_t i = 0; i < nc && bounded; i++) bound[i] = 1.01 * ((a->err ? a->err[i] : 0) + (b->err ? b->err[i] : 0));
    if (a->exact) compare_f64(st, a->z, b->zf, nc, bounded ? bound : NULL);
    else compare_f32(st, a->zf, b->zf, nc, bound);
    return bounded;
}

/* 1 when every logit of image i is within the bound */
static int image_within(const eval_ctx *t, int k, const double *bound, size_t i) {
    const eval_eng *a = &t->eng[t->base], *b = &t->eng[k];
    for (int j = 0; j < t->C; j++) {
        size_t q = i * t->C + j;
        if (fabs(a->z[q] - (double)b->zf[q]) > bound[q]) return 0;
    }
    return 1;
}

static void print_comparison(const eval_ctx *t, int k, const compare_stats *st, int bounded, const double *bound,
                             lsbuf *js) {
    FILE *f = t->c->out;
    const eval_eng *a = &t->eng[t->base], *b = &t->eng[k];
    size_t nd = 0;
    for (size_t i = 0; i < t->n; i++) nd += a->r.pred[i] != b->r.pred[i];
    fprintf(f, "\n%s vs %s: predictions differ on %zu of %zu images\n", b->spec, a->spec, nd, t->n);
    if (st->n && st->n_equal == st->n) /* said as such: "max |diff| 0 (0 of max |logit|) ... bound 0" told less */
        fprintf(f, "  logits: bitwise identical (all %zu)\n", st->n);
    else if (bounded)
        fprintf(f, "  logits: max |diff| %.3g (%.3g of max |logit|), %zu of %zu over the forward error bound "
                "(max |diff| / bound %.3g)%s\n", st->max_abs, st->rel_to_max, st->n_over_bound, st->n,
                st->max_bound_ratio, st->n_over_bound ? ": NOT consistent with fp32 rounding" : ": consistent with fp32 rounding");
    else
        fprintf(f, "  logits: max |diff| %.3g (%.3g of max |logit|); two references: no fp32 bound applies\n",
                st->max_abs, st->rel_to_max);
    if (js) {
        lsbuf_printf(js, "%s\n    {\"engine\": ", k == (t->base ? 0 : 1) ? "" : ",");
        lsbuf_json_str(js, b->spec);
        lsbuf_printf(js, ", \"against\": ");
        lsbuf_json_str(js, a->spec);
        lsbuf_printf(js, ", \"bounded\": %s, \"predictions_differ\": [", bounded ? "true" : "false");
    }
    size_t listed = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (a->r.pred[i] == b->r.pred[i]) continue;
        int within = bounded && image_within(t, k, bound, i);
        if (listed++ < EVAL_LIST_DIFFS)
            fprintf(f, "  image %zu: true class %d, %s %d, %s %d%s\n", i, t->ds.test.labels[i], a->spec, a->r.pred[i],
                    b->spec, b->r.pred[i], !bounded ? "" : within ? " (logits within the bound: a rounding flip)"
                                                                  : " (logits BEYOND the bound)");
        if (js) lsbuf_printf(js, "%s{\"image\": %zu, \"label\": %d, \"base\": %d, \"engine\": %d, \"within_bound\": %s}",
                             listed > 1 ? ", " : "", i, t->ds.test.labels[i], a->r.pred[i], b->r.pred[i],
                             within ? "true" : "false");
    }
    if (listed > EVAL_LIST_DIFFS) fprintf(f, "  ... %zu more (all in --json / --out)\n", listed - EVAL_LIST_DIFFS);
    if (js) {
        lsbuf_printf(js, "], \"logits\": ");
        compare_stats_json(js, st);
        lsbuf_printf(js, "}");
    }
}

static void print_engine(const eval_ctx *t, const eval_eng *g, lsbuf *js, int first) {
    FILE *f = t->c->out;
    size_t correct = 0;
    for (int k = 0; k < t->C; k++) correct += (size_t)g->r.confusion[(size_t)k * t->C + k];
    fprintf(f, "\nengine %s: test loss %.9g  accuracy %.2f%% (%zu / %zu)\n", g->spec, g->r.loss, 100.0 * g->r.accuracy,
            correct, t->n);
    eval_print_confusion(f, t->c->run.data_dir, &g->r);
    if (!js) return;
    lsbuf_printf(js, "%s\n    {\"engine\": ", first ? "" : ",");
    lsbuf_json_str(js, g->spec);
    lsbuf_printf(js, ", \"logits\": \"%s\", \"test_loss\": ", g->exact ? "float64" : "float32");
    lsbuf_json_num(js, g->r.loss);
    lsbuf_printf(js, ", \"accuracy\": ");
    lsbuf_json_num(js, g->r.accuracy);
    lsbuf_printf(js, ", \"correct\": %zu, \"per_class_accuracy\": [", correct);
    for (int k = 0; k < t->C; k++) {
        long tot = 0;
        for (int j = 0; j < t->C; j++) tot += g->r.confusion[(size_t)k * t->C + j];
        if (k) lsbuf_printf(js, ", ");
        lsbuf_json_num(js, tot ? (double)g->r.confusion[(size_t)k * t->C + k] / tot : 0.0);
    }
    lsbuf_printf(js, "], \"confusion\": ");
    lsbuf_json_matrix_long(js, g->r.confusion, t->C, t->C);
    lsbuf_printf(js, "}");
}

/* .npy (format 1.0) of a 2-D or 1-D array, written atomically */
static int write_npy(const char *path, const char *descr, const size_t *shape, int ndim, const void *data, size_t bytes) {
    char hdr[128];
    int n = ndim == 2 ? snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }",
                                 descr, shape[0], shape[1])
                      : snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr,
                                 shape[0]);
    size_t hl = (size_t)n + 1, pad = (64 - (10 + hl) % 64) % 64, total = 10 + hl + pad + bytes;
    unsigned char *b = ls_malloc(total);
    if (!b) return LS_ENOMEM;
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)((hl + pad) & 0xff);
    b[9] = (unsigned char)((hl + pad) >> 8);
    memcpy(b + 10, hdr, (size_t)n);
    memset(b + 10 + n, ' ', pad);
    b[10 + n + pad] = '\n';
    memcpy(b + 10 + hl + pad, data, bytes);
    int rc = ls_write_file_atomic(path, b, total);
    free(b);
    return rc;
}

static int write_outputs(const eval_ctx *t) {
    const char *p = t->c->out_path;
    size_t n = t->n, sh[2] = {n, (size_t)t->C}, pl = strlen(p);
    eval_out_format fmt;
    int rc = eval_out_format_of(p, &fmt);
    if (rc) return rc;
    int64_t *i64 = ls_malloc((n ? n : 1) * sizeof *i64);
    if (!i64) return LS_ENOMEM;
    if (fmt == EVAL_OUT_NPY) {
        const eval_eng *g = &t->eng[0];
        char pp[1100];
        snprintf(pp, sizeof pp, "%.*s.predictions.npy", (int)(pl - 4), p);
        for (size_t i = 0; i < n; i++) i64[i] = g->r.pred[i];
        rc = g->exact ? write_npy(p, "<f8", sh, 2, g->z, n * t->C * sizeof(double))
                        : write_npy(p, "<f4", sh, 2, g->zf, n * t->C * sizeof(float));
        if (!rc) rc = write_npy(pp, "<i8", sh, 1, i64, n * sizeof *i64);
        free(i64);
        return rc;
    }
    st_writer *w;
    if ((rc = st_writer_new(&w))) {
        free(i64);
        return rc;
    }
    for (size_t i = 0; i < n; i++) i64[i] = t->ds.test.labels[i];
    rc = st_writer_add(w, "labels", ST_I64, 1, sh, i64);
    for (int k = 0; k < t->n_eng && !rc; k++) {
        const eval_eng *g = &t->eng[k];
        char nm[300], pre[270] = "";
        if (t->n_eng > 1) snprintf(pre, sizeof pre, "%s/", g->spec);
        snprintf(nm, sizeof nm, "%slogits", pre);
        rc = g->exact ? st_writer_add(w, nm, ST_F64, 2, sh, g->z) : st_writer_add(w, nm, ST_F32, 2, sh, g->zf);
        for (size_t i = 0; i < n; i++) i64[i] = g->r.pred[i];
        snprintf(nm, sizeof nm, "%spredictions", pre);
        if (!rc) rc = st_writer_add(w, nm, ST_I64, 1, sh, i64);
    }
    char norm[64];
    run_normalize_str(&t->c->run, norm, sizeof norm);
    if (!rc) rc = st_writer_meta(w, "lockstep.weights", t->c->run.init_path);
    if (!rc) rc = st_writer_meta(w, "lockstep.model.spec", t->m.spec);
    if (!rc) rc = st_writer_meta(w, "lockstep.normalize", norm);
    if (!rc) rc = st_writer_write(w, p);
    st_writer_free(w);
    free(i64);
    return rc;
}

static int eval_report(eval_ctx *t) {
    lsbuf js, *j = t->c->json_path ? &js : NULL;
    if (j) {
        lsbuf_init(j);
        lsbuf_printf(j, "{\n  \"tool\": \"lockstep\",\n  \"command\": \"eval\",\n  \"weights\": ");
        lsbuf_json_str(j, t->c->run.init_path);
        lsbuf_printf(j, ",\n  \"model_spec\": ");
        lsbuf_json_str(j, t->m.spec);
        char norm[64];
        run_normalize_str(&t->c->run, norm, sizeof norm);
        lsbuf_printf(j, ",\n  \"normalize\": \"%s\",\n  \"images\": %zu,\n  \"engines\": [", norm, t->n);
    }
    for (int k = 0; k < t->n_eng; k++) print_engine(t, &t->eng[k], j, k == 0);
    if (j) lsbuf_printf(j, "\n  ],\n  \"comparisons\": [");
    int rc = LS_OK;
    if (t->n_eng > 1) {
        double *bound = ls_malloc(t->n * (size_t)t->C * sizeof *bound);
        if (!bound) rc = LS_ENOMEM;
        for (int k = 0; k < t->n_eng && !rc; k++) {
            if (k == t->base) continue;
            compare_stats st;
            int bounded = eval_compare(t, k, &st, bound);
            print_comparison(t, k, &st, bounded, bound, j);
        }
        free(bound);
    }
    if (j) {
        lsbuf_printf(j, "\n  ]\n}\n");
        if (!rc) rc = j->failed ? ls_err(LS_ENOMEM, "out of memory building JSON")
                                : ls_write_file_atomic(t->c->json_path, j->s, j->len);
        lsbuf_free(j);
        if (!rc) fprintf(t->c->out, "wrote %s\n", t->c->json_path);
    }
    if (!rc && t->c->out_path && !(rc = write_outputs(t))) fprintf(t->c->out, "wrote %s\n", t->c->out_path);
    return rc;
}

int eval_cmd_run(const eval_cfg *c) {
    eval_ctx *t = ls_calloc(1, sizeof *t);
    if (!t) return LS_ENOMEM;
    t->c = c;
    int rc = eval_setup(t);
    if (!rc) {
        char norm[64];
        run_normalize_str(&c->run, norm, sizeof norm);
        fprintf(c->out, "lockstep eval: model %s (%zu parameters), weights from %s\n  data %s: %zu test images; input "
                "float32(x)/255%s%s; batch %zu; engines %s\n", t->m.name, t->m.n_params, c->run.init_path, c->run.data_dir,
                t->n, c->run.normalize ? ", normalized (x - mean) / std, mean,std = " : "",
                c->run.normalize ? norm : "", t->B, c->engines ? c->engines : c->run.engine);
        fflush(c->out);
    }
    for (int k = 0; k < t->n_eng && !rc; k++) rc = eval_engine_run(t, &t->eng[k]);
    t->base = 0;
    for (int k = t->n_eng - 1; k >= 0; k--)
        if (t->eng[k].exact) t->base = k;
    if (!rc) rc = eval_report(t);
    eval_ctx_free(t);
    free(t);
    return rc;
}
