/*
 * train.c — `lockstep train`: one engine, write-up B's setup by default
 * (SmallCNN, FashionMNIST, batch 256, 3 epochs, Adam 1e-3, seed 42).
 *
 * Epoch time counts batch making (bytes -> x/255.0f), forward, loss,
 * backward and the Adam step, as in write-up B; evaluation is excluded.
 * Every number printed is also in the JSON summary.
 */
#include "commands/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/order.h"
#include "base/rng.h"
#include "formats/safetensors.h"
#include "engines/registry.h"

/* A step's loss printed so that it reads back as the same number: an fp32
 * engine's float in 9 digits, the reference's double in 17. */
static void loss_str(char *buf, size_t cap, double loss, int f64) {
    snprintf(buf, cap, f64 ? "%.17g" : "%.9g", loss);
}

static void json_step_losses(lsbuf *b, const double *losses, size_t n, int f64, long first_step) {
    char num[40];
    /* a resumed run's first loss is that of step optim.step + 1 */
    lsbuf_printf(b, "  \"step_losses_first_step\": %ld,\n  \"step_losses_precision\": \"%s\",\n  \"step_losses\": [",
                 first_step, f64 ? "float64 (the reference's double, %.17g)" : "float32 (the engine's float, %.9g)");
    for (size_t i = 0; i < n; i++) {
        loss_str(num, sizeof num, losses[i], f64);
        lsbuf_printf(b, "%s%s", i ? ", " : "", num);
    }
    lsbuf_printf(b, "],\n");
}

static int write_json(const run_cfg *c, const model *m, const char *engine_json, const epoch_stats *ep, int n_ep,
                      const eval_result *r, double total_s, const double *losses, size_t n_losses, int f64,
                      long first_step) {
    lsbuf b;
    lsbuf_init(&b);
    char b1[16];
    lsbuf_printf(&b, "{\n  \"tool\": \"lockstep\",\n  \"command\": \"train\",\n  \"model\": ");
    lsbuf_json_str(&b, m->name);
    lsbuf_printf(&b, ",\n  \"model_spec\": ");
    lsbuf_json_str(&b, m->spec);
    lsbuf_printf(&b, ",\n  \"params\": %zu,\n  \"config\": {\"data\": ", m->n_params);
    lsbuf_json_str(&b, c->data_dir);
    lsbuf_printf(&b, ", \"epochs\": %d, \"batch\": %zu, \"lr\": ", c->epochs, c->batch);
    lsbuf_json_num(&b, c->adam.lr);
    lsbuf_printf(&b, ", \"beta1\": ");
    lsbuf_json_num(&b, c->adam.beta1);
    lsbuf_printf(&b, ", \"beta2\": ");
    lsbuf_json_num(&b, c->adam.beta2);
    lsbuf_printf(&b, ", \"eps\": ");
    lsbuf_json_num(&b, c->adam.eps);
    char norm[64];
    run_normalize_str(c, norm, sizeof norm);
    lsbuf_printf(&b, ", \"normalize\": \"%s\", \"init\": ", norm);
    if (c->init_path) lsbuf_json_str(&b, c->init_path);
    else lsbuf_printf(&b, "null");
    lsbuf_printf(&b, ", \"order\": ");
    if (c->order_path) lsbuf_json_str(&b, c->order_path);
    else lsbuf_printf(&b, "null");
    lsbuf_printf(&b, ", \"seed\": %llu, \"limit_train\": %zu, \"max_steps\": %ld},\n  \"engine\": %s,\n",
                 (unsigned long long)c->seed, c->limit_train, c->max_steps, engine_json ? engine_json : "null");
    lsbuf_printf(&b, "  \"epochs\": [");
    for (int i = 0; i < n_ep; i++) {
        lsbuf_printf(&b, "%s\n    {\"epoch\": %d, \"steps\": %zu, \"images\": %zu, \"seconds\": ", i ? "," : "",
                     ep[i].epoch, ep[i].steps, ep[i].images);
        lsbuf_json_num(&b, ep[i].seconds);
        lsbuf_printf(&b, ", \"images_per_s\": ");
        lsbuf_json_num(&b, ep[i].images_per_s);
        lsbuf_printf(&b, ", \"train_loss\": ");
        lsbuf_json_num(&b, ep[i].train_loss);
        lsbuf_printf(&b, ", \"test_loss\": ");
        lsbuf_json_num(&b, ep[i].test_loss);
        lsbuf_printf(&b, ", \"test_accuracy\": ");
        lsbuf_json_num(&b, ep[i].test_accuracy);
        lsbuf_printf(&b, "}");
    }
    lsbuf_printf(&b, "\n  ],\n");
    json_step_losses(&b, losses, n_losses, f64, first_step);
    if (r && r->confusion) {
        int C = r->n_classes;
        lsbuf_printf(&b, "  \"classes\": [");
        for (int k = 0; k < C; k++) {
            if (k) lsbuf_printf(&b, ", ");
            lsbuf_json_str(&b, class_name(c->data_dir, C, k, b1, sizeof b1));
        }
        lsbuf_printf(&b, "],\n  \"per_class_accuracy\": [");
        for (int k = 0; k < C; k++) {
            long tot = 0;
            for (int j = 0; j < C; j++) tot += r->confusion[(size_t)k * C + j];
            if (k) lsbuf_printf(&b, ", ");
            lsbuf_json_num(&b, tot ? (double)r->confusion[(size_t)k * C + k] / tot : 0.0);
        }
        lsbuf_printf(&b, "],\n  \"confusion\": ");
        lsbuf_json_matrix_long(&b, r->confusion, C, C);
        lsbuf_printf(&b, ",\n");
    }
    lsbuf_printf(&b, "  \"total_seconds\": ");
    lsbuf_json_num(&b, total_s);
    lsbuf_printf(&b, ",\n  \"peak_rss_bytes\": %zu\n}\n", ls_peak_rss());
    int rc = b.failed ? ls_err(LS_ENOMEM, "out of memory building JSON") : ls_write_file_atomic(c->json_path, b.s, b.len);
    lsbuf_free(&b);
    return rc;
}

/* One training run's state, shared by the helpers of train_run. */
typedef struct {
    const run_cfg *c;
    model m;
    dataset ds;
    engine *e;
    float *params, *x;
    int32_t *y;
    uint32_t *perm;
    batch_order ord;
    size_t n_train;
    char spec[256];
    char *desc;
    long step;
    epoch_stats ep[1024];
    int n_ep;
    eval_result ev;
    long start_step;         /* steps already taken: 0, or the optim.step of a resumed --init file */
    long last_step;          /* the plan's last step: epochs x steps per epoch, or --steps */
    int loss_f64;            /* the engine has full-precision values (the reference): losses as doubles */
    double *losses;          /* every step's loss (an fp32 engine's float, exactly) */
    size_t n_losses, cap_losses;
} train_ctx;

/* Refuse a batch that cannot fit before allocating: the engine's
 * activations, their gradients and a workspace (3 copies), and parameters,
 * gradients and Adam's moments (4 copies). */
static int train_check_memory(const model *m, size_t batch) {
    size_t acts = (size_t)m->in_c * m->in_h * m->in_w;
    for (int l = 0; l < m->n_layers; l++) acts += layer_out_size(&m->layers[l]);
    double bytes = 3.0 * batch * acts * 4 + 4.0 * m->n_params * 4;
    char what[160];
    snprintf(what, sizeof what, "training model %s at batch %zu", m->name, batch);
    return ls_check_memory(bytes > 1e19 ? (size_t)-1 : (size_t)bytes, what);
}

/* Everything the plan needs, checked before the first step: the steps to
 * run, and a --order file holding every epoch they reach (not found out
 * after an epoch has trained). */
static int train_check_plan(train_ctx *t) {
    const run_cfg *c = t->c;
    long spe = (long)steps_per_epoch(t->n_train, c->batch);
    t->last_step = (long)c->epochs * spe;
    if (c->max_steps >= 0 && c->max_steps < t->last_step) t->last_step = c->max_steps;
    if (t->start_step > t->last_step)
        return ls_err(LS_EINVAL, "%s: already %ld steps trained, but this run ends at step %ld (%s): nothing to resume",
                      c->init_path, t->start_step, t->last_step,
                      c->max_steps >= 0 && c->max_steps < (long)c->epochs * spe ? "--steps" : "--epochs x steps per epoch");
    if (!c->order_path || t->last_step == t->start_step) return LS_OK;
    int rc = order_load(&t->ord, c->order_path, t->n_train);
    if (rc) return ls_err_option(rc, "--order", c->order_path);
    long need = (t->last_step + spe - 1) / spe;
    if ((long)t->ord.epochs < need)
        return ls_err(LS_EINVAL, "--order %s: the batch order has %zu epoch(s); this run needs %ld (%ld steps of %ld "
                      "per epoch%s)",
                      c->order_path, t->ord.epochs, need, t->last_step, spe,
                      c->max_steps < 0 ? "; --epochs N sets how many" : "");
    return LS_OK;
}

/* Model, data, engine, buffers and initial weights. */
static int train_setup(train_ctx *t) {
    const run_cfg *c = t->c;
    int rc;
    if ((rc = model_build(&t->m, c->model))) return ls_err_option(rc, "--model", c->model);
    if ((rc = train_check_memory(&t->m, c->batch))) return rc;
    if ((rc = dataset_load_shape(&t->ds, c->data_dir, t->m.n_classes, t->m.in_h, t->m.in_w))) return rc;
    run_apply_normalize(c, &t->ds);
    if ((rc = run_check_classes(c, &t->m, &t->ds))) return rc;
    run_note_limits(c, &t->ds, "train");
    const model *m = &t->m;
    if (t->ds.train.rows != m->in_h || t->ds.train.cols != m->in_w || m->in_c != 1)
        return ls_err(LS_EINVAL, "%s: images are %dx%d but model %s expects %dx%dx%d", t->ds.train.images_path,
                      t->ds.train.rows, t->ds.train.cols, m->name, m->in_c, m->in_h, m->in_w);
    if (c->epochs < 1 || c->epochs > 1024) return ls_err(LS_EINVAL, "--epochs must be in 1..1024");
    spec_with_threads(t->spec, sizeof t->spec, c->engine, c->threads);
    engine_opts eo = {c->seed, c->batch, 0};
    if ((rc = engine_create(&t->e, t->spec, m, &eo))) return rc;
    t->params = ls_malloc(m->n_params * sizeof *t->params);
    t->n_train = c->limit_train && c->limit_train < t->ds.train.n ? c->limit_train : t->ds.train.n;
    size_t in = (size_t)m->in_c * m->in_h * m->in_w;
    t->x = ls_malloc(c->batch * in * sizeof *t->x);
    t->y = ls_malloc(c->batch * sizeof *t->y);
    t->perm = ls_malloc(t->n_train * sizeof *t->perm);
    if (!t->params || !t->x || !t->y || !t->perm) return LS_ENOMEM;
    if ((rc = st_init_params(m, c->init_path, c->seed, t->params)))
        return c->init_path ? ls_err_option(rc, "--init", c->init_path) : rc;
    if ((rc = engine_set_params(t->e, t->params))) return rc;
    if ((rc = run_resume(c, m, t->e, t->n_train, &t->start_step))) return rc;
    t->step = t->start_step;
    if ((rc = train_check_plan(t))) return rc;
    t->desc = engine_describe(t->e);
    t->loss_f64 = t->e->iface->get_tensor_f64 != NULL;
    return LS_OK;
}

static void train_banner(const train_ctx *t) {
    const run_cfg *c = t->c;
    printf("lockstep train: model %s (%zu parameters), engine %s\n", t->m.name, t->m.n_params, t->spec);
    /* the test images evaluated (after --limit-test), as the train count is */
    size_t n_test = c->limit_test && c->limit_test < t->ds.test.n ? c->limit_test : t->ds.test.n;
    printf("  data %s: %zu train (of %zu), %zu test (of %zu); batch %zu, %d epochs, Adam lr %g betas (%g, %g) eps %g, "
           "seed %llu\n",
           c->data_dir, t->n_train, t->ds.train.n, n_test, t->ds.test.n, c->batch, c->epochs, c->adam.lr, c->adam.beta1,
           c->adam.beta2, c->adam.eps, (unsigned long long)c->seed);
    /* what the seed still decides: say so rather than "seed 42" for draws --init/--order replaced */
    printf("  weights: %s%s; batch order: %s\n", c->init_path ? "from " : "seeded draw (seed)",
           c->init_path ? c->init_path : "", c->order_path ? c->order_path : "Philox shuffle (seed)");
    char norm[64];
    run_normalize_str(c, norm, sizeof norm);
    printf("  input: float32(x)/255%s%s%s\n", c->normalize ? ", then (x - mean) / std with mean,std = " : "",
           c->normalize ? norm : "", c->normalize ? " (fp32)" : " (no --normalize)");
    if (t->start_step)
        printf("  resuming after step %ld (Adam moments and step from %s): steps %ld..%ld\n", t->start_step,
               c->init_path, t->start_step + 1, t->last_step);
    if (t->desc) printf("  engine: %s\n", t->desc);
    fflush(stdout);
}

/* Keep step t->step's loss: the reference's as its double (the fp32 one
 * engine_train_step returns is that double rounded), else the float. */
static int train_keep_loss(train_ctx *t, float loss) {
    double d = loss;
    int rc;
    if (t->loss_f64 && (rc = engine_get_tensor_f64(t->e, (tensor_id){TENSOR_LOSS, 0}, &d))) return rc;
    if (t->n_losses == t->cap_losses) {
        size_t cap = t->cap_losses ? 2 * t->cap_losses : 1024;
        double *p = realloc(t->losses, cap * sizeof *p);
        if (!p) return LS_ENOMEM;
        t->losses = p;
        t->cap_losses = cap;
    }
    t->losses[t->n_losses++] = d;
    return LS_OK;
}

/* The steps of one epoch; *stop set when --steps ends the run inside it.
 * Fills the epoch's images, steps and summed loss. */
static int train_epoch_steps(train_ctx *t, int epoch, int *stop, size_t *steps, size_t *images, double *loss_sum) {
    const run_cfg *c = t->c;
    size_t nsteps = steps_per_epoch(t->n_train, c->batch), s;
    int rc;
    /* a resumed run starts inside its epoch, at batch step % nsteps */
    size_t s0 = (size_t)(t->step - (long)epoch * (long)nsteps);
    for (s = s0; s < nsteps; s++) {
        if (t->step >= t->last_step) {
            *stop = 1;
            break;
        }
        size_t first = s * c->batch, nb = t->n_train - first < c->batch ? t->n_train - first : c->batch;
        double ts = ls_now();
        data_make_batch(&t->ds.train, t->perm + first, 0, nb, t->x, t->y);
        float loss;
        t->step++;
        if ((rc = engine_train_step(t->e, t->x, t->y, nb, (uint64_t)t->step, &c->adam, (int)t->step, &loss)))
            return rc;
        if ((rc = train_keep_loss(t, loss))) return rc;
        if (!isfinite(loss))
            return ls_err(LS_EINVAL, "training diverged: loss is %g at step %ld (engine %s)", (double)loss, t->step,
                          t->spec);
        *loss_sum += (double)loss * (double)nb;
        *images += nb;
        if (c->print_steps) {
            char num[40];
            loss_str(num, sizeof num, t->losses[t->n_losses - 1], t->loss_f64);
            printf("  step %5ld  loss %s  %.3f s\n", t->step, num, ls_now() - ts);
            fflush(stdout);
        }
        if (c->progress)
            fprintf(stderr, "\r  epoch %d/%d  step %zu/%zu  loss %.4f  ", epoch + 1, c->epochs, s + 1, nsteps,
                    (double)loss);
    }
    *steps = s - s0;
    return LS_OK;
}

/* One epoch: its steps, then (without --steps) the test-set evaluation and
 * its line.  *stop set when the run ends here. */
static int train_epoch(train_ctx *t, int epoch, int *stop) {
    const run_cfg *c = t->c;
    double t0 = ls_now();
    int rc;
    if (t->step >= t->last_step || (c->max_steps >= 0 && t->step >= c->max_steps)) { /* before asking the order for an epoch not run */
        *stop = 1;
        return LS_OK;
    }
    if ((rc = order_fill(&t->ord, c->order_path, t->perm, t->n_train, c->seed, epoch))) return rc;
    size_t s = 0, images = 0;
    double loss_sum = 0;
    rc = train_epoch_steps(t, epoch, stop, &s, &images, &loss_sum);
    if (c->progress) fprintf(stderr, "\r%60s\r", "");
    if (rc) return rc;
    double secs = ls_now() - t0;
    if (images == 0) {
        *stop = 1;
        return LS_OK;
    }
    eval_result_free(&t->ev);
    /* A run with --steps is a probe (of the reference engine, typically,
     * whose evaluation of the test set takes minutes): no evaluation. */
    int evaluated = c->max_steps < 0;
    if (evaluated && (rc = eval_engine(t->e, &t->ds.test, c->limit_test, &t->ev))) return rc;
    epoch_stats *p = &t->ep[t->n_ep++];
    p->epoch = epoch + 1;
    p->seconds = secs;
    p->steps = s;
    p->images = images;
    p->images_per_s = images / secs;
    p->train_loss = loss_sum / images;
    p->test_loss = evaluated ? t->ev.loss : NAN;
    p->test_accuracy = evaluated ? t->ev.accuracy : NAN;
    if (evaluated)
        printf("epoch %d: %7.3f s  %8.0f images/s  train loss %.4f  test loss %.4f  test accuracy %.2f%%\n",
               p->epoch, p->seconds, p->images_per_s, p->train_loss, p->test_loss, 100.0 * p->test_accuracy);
    else
        printf("epoch %d: %7.3f s  %8.0f images/s  train loss %.4f  (%zu steps; no evaluation with --steps)\n",
               p->epoch, p->seconds, p->images_per_s, p->train_loss, s);
    fflush(stdout);
    return LS_OK;
}

/* After the last epoch: confusion matrix, --save, --json. */
static int train_finish(train_ctx *t, double t_start) {
    const run_cfg *c = t->c;
    int rc;
    if (t->ev.confusion) eval_print_confusion(stdout, c->data_dir, &t->ev);
    printf("\npeak resident memory: %.1f MiB; total %.2f s\n", ls_peak_rss() / 1048576.0, ls_now() - t_start);
    if (c->save_path) {
        if ((rc = train_save_state(c, &t->m, t->e, c->save_path, t->params, t->step, t->n_train))) return rc;
        printf("wrote %s\n", c->save_path);
    }
    if (c->json_path) {
        /* described again after training: the device timing and memory
         * peaks of the run, not of the engine as created */
        char *d = engine_describe(t->e);
        if (d) free(t->desc), t->desc = d;
        if ((rc = write_json(c, &t->m, t->desc, t->ep, t->n_ep, t->ev.confusion ? &t->ev : NULL, ls_now() - t_start,
                             t->losses, t->n_losses, t->loss_f64, t->start_step + 1)))
            return rc;
        printf("wrote %s\n", c->json_path);
    }
    return LS_OK;
}

int train_run(const run_cfg *c) {
    train_ctx *t = ls_calloc(1, sizeof *t);
    if (!t) return LS_ENOMEM;
    t->c = c;
    double t_start = ls_now();
    int rc = train_setup(t);
    if (!rc) {
        train_banner(t);
        int stop = 0;
        int first = (int)(t->step / (long)steps_per_epoch(t->n_train, c->batch));
        for (int epoch = first; epoch < c->epochs && !stop && !rc; epoch++) rc = train_epoch(t, epoch, &stop);
    }
    if (!rc) rc = train_finish(t, t_start);
    order_free(&t->ord);
    eval_result_free(&t->ev);
    free(t->desc);
    engine_free(t->e);
    free(t->params);
    free(t->x);
    free(t->y);
    free(t->perm);
    free(t->losses);
    dataset_free(&t->ds);
    free(t);
    return rc;
}
