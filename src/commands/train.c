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

static void print_confusion(FILE *f, const run_cfg *c, const eval_result *r) {
    char b1[16];
    int C = r->n_classes;
    fprintf(f, "\nper-class test accuracy:\n");
    for (int k = 0; k < C; k++) {
        long tot = 0;
        for (int j = 0; j < C; j++) tot += r->confusion[(size_t)k * C + j];
        fprintf(f, "  %d %-12s %5ld / %5ld  %6.2f%%\n", k, class_name(c->data_dir, C, k, b1, sizeof b1),
                r->confusion[(size_t)k * C + k], tot, tot ? 100.0 * r->confusion[(size_t)k * C + k] / tot : 0.0);
    }
    fprintf(f, "\nconfusion matrix (rows: true class, columns: predicted):\n%-16s", "");
    for (int j = 0; j < C; j++) fprintf(f, "%6d", j);
    fprintf(f, "\n");
    for (int k = 0; k < C; k++) {
        fprintf(f, "  %d %-12s  ", k, class_name(c->data_dir, C, k, b1, sizeof b1));
        for (int j = 0; j < C; j++) fprintf(f, "%6ld", r->confusion[(size_t)k * C + j]);
        fprintf(f, "\n");
    }
}

static int write_json(const run_cfg *c, const model *m, const char *engine_json, const epoch_stats *ep, int n_ep,
                      const eval_result *r, double total_s) {
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

int train_run(const run_cfg *c) {
    model m;
    dataset ds;
    memset(&ds, 0, sizeof ds);
    engine *e = NULL;
    float *params = NULL, *x = NULL;
    int32_t *y = NULL;
    uint32_t *perm = NULL;
    batch_order ord;
    memset(&ord, 0, sizeof ord);
    char *desc = NULL;
    eval_result ev;
    memset(&ev, 0, sizeof ev);
    epoch_stats ep[1024];
    int n_ep = 0, rc;
    double t_start = ls_now();

    if ((rc = model_build(&m, c->model))) return rc;
    {
        /* refuse a batch that cannot fit before allocating: the engine's
         * activations, their gradients and a workspace (3 copies), and
         * parameters, gradients and Adam's moments (4 copies) */
        size_t acts = (size_t)m.in_c * m.in_h * m.in_w;
        for (int l = 0; l < m.n_layers; l++) acts += layer_out_size(&m.layers[l]);
        double bytes = 3.0 * c->batch * acts * 4 + 4.0 * m.n_params * 4;
        char what[160];
        snprintf(what, sizeof what, "training model %s at batch %zu", m.name, c->batch);
        if ((rc = ls_check_memory(bytes > 1e19 ? (size_t)-1 : (size_t)bytes, what))) return rc;
    }
    if ((rc = dataset_load_shape(&ds, c->data_dir, m.n_classes, m.in_h, m.in_w))) return rc;
    if (ds.train.rows != m.in_h || ds.train.cols != m.in_w || m.in_c != 1) {
        rc = ls_err(LS_EINVAL, "%s: images are %dx%d but model %s expects %dx%dx%d", ds.train.images_path,
                    ds.train.rows, ds.train.cols, m.name, m.in_c, m.in_h, m.in_w);
        goto done;
    }
    if (c->epochs < 1 || c->epochs > 1024) {
        rc = ls_err(LS_EINVAL, "--epochs must be in 1..1024");
        goto done;
    }
    char spec[256];
    spec_with_threads(spec, sizeof spec, c->engine, c->threads);
    engine_opts eo = {c->seed, c->batch};
    if ((rc = engine_create(&e, spec, &m, &eo))) goto done;
    params = ls_malloc(m.n_params * sizeof *params);
    size_t n_train = c->limit_train && c->limit_train < ds.train.n ? c->limit_train : ds.train.n;
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    x = ls_malloc(c->batch * in * sizeof *x);
    y = ls_malloc(c->batch * sizeof *y);
    perm = ls_malloc(n_train * sizeof *perm);
    if (!params || !x || !y || !perm) {
        rc = LS_ENOMEM;
        goto done;
    }
    if ((rc = st_init_params(&m, c->init_path, c->seed, params))) goto done;
    if ((rc = engine_set_params(e, params))) goto done;
    desc = engine_describe(e);

    printf("lockstep train: model %s (%zu parameters), engine %s\n", m.name, m.n_params, spec);
    /* the test images evaluated (after --limit-test), as the train count is */
    size_t n_test = c->limit_test && c->limit_test < ds.test.n ? c->limit_test : ds.test.n;
    printf("  data %s: %zu train (of %zu), %zu test (of %zu); batch %zu, %d epochs, Adam lr %g betas (%g, %g) eps %g, "
           "seed %llu\n",
           c->data_dir, n_train, ds.train.n, n_test, ds.test.n, c->batch, c->epochs, c->adam.lr, c->adam.beta1,
           c->adam.beta2, c->adam.eps, (unsigned long long)c->seed);
    if (desc) printf("  engine: %s\n", desc);
    fflush(stdout);

    long step = 0;
    int done_steps = 0;
    for (int epoch = 0; epoch < c->epochs && !done_steps; epoch++) {
        double t0 = ls_now();
        if (c->max_steps >= 0 && step >= c->max_steps) break; /* before asking the order for an epoch not run */
        if ((rc = order_fill(&ord, c->order_path, perm, n_train, c->seed, epoch))) goto done;
        size_t nsteps = steps_per_epoch(n_train, c->batch), images = 0;
        double loss_sum = 0;
        size_t s;
        for (s = 0; s < nsteps; s++) {
            if (c->max_steps >= 0 && step >= c->max_steps) {
                done_steps = 1;
                break;
            }
            size_t first = s * c->batch, nb = n_train - first < c->batch ? n_train - first : c->batch;
            double ts = ls_now();
            data_make_batch(&ds.train, perm + first, 0, nb, x, y);
            float loss;
            step++;
            rc = engine_train_step(e, x, y, nb, (uint64_t)step, &c->adam, (int)step, &loss);
            if (rc) goto done;
            if (!isfinite(loss)) {
                rc = ls_err(LS_EINVAL, "training diverged: loss is %g at step %ld (engine %s)", (double)loss, step, spec);
                goto done;
            }
            loss_sum += (double)loss * (double)nb;
            images += nb;
            if (c->print_steps) {
                printf("  step %5ld  loss %.9g  %.3f s\n", step, (double)loss, ls_now() - ts);
                fflush(stdout);
            }
            if (c->progress)
                fprintf(stderr, "\r  epoch %d/%d  step %zu/%zu  loss %.4f  ", epoch + 1, c->epochs, s + 1, nsteps,
                        (double)loss);
        }
        if (c->progress) fprintf(stderr, "\r%60s\r", "");
        double secs = ls_now() - t0;
        if (images == 0) break;
        eval_result_free(&ev);
        /* A run with --steps is a probe (of the reference engine, typically,
         * whose evaluation of the test set takes minutes): no evaluation. */
        int evaluated = c->max_steps < 0;
        if (evaluated && (rc = eval_engine(e, &ds.test, c->limit_test, &ev))) goto done;
        epoch_stats *p = &ep[n_ep++];
        p->epoch = epoch + 1;
        p->seconds = secs;
        p->steps = s;
        p->images = images;
        p->images_per_s = images / secs;
        p->train_loss = loss_sum / images;
        p->test_loss = evaluated ? ev.loss : NAN;
        p->test_accuracy = evaluated ? ev.accuracy : NAN;
        if (evaluated)
            printf("epoch %d: %7.3f s  %8.0f images/s  train loss %.4f  test loss %.4f  test accuracy %.2f%%\n",
                   p->epoch, p->seconds, p->images_per_s, p->train_loss, p->test_loss, 100.0 * p->test_accuracy);
        else
            printf("epoch %d: %7.3f s  %8.0f images/s  train loss %.4f  (%zu steps; no evaluation with --steps)\n",
                   p->epoch, p->seconds, p->images_per_s, p->train_loss, s);
        fflush(stdout);
    }
    if (ev.confusion) print_confusion(stdout, c, &ev);
    printf("\npeak resident memory: %.1f MiB; total %.2f s\n", ls_peak_rss() / 1048576.0, ls_now() - t_start);
    if (c->save_path) {
        if ((rc = train_save_weights(c, &m, e, c->save_path, params, step))) goto done;
        printf("wrote %s\n", c->save_path);
    }
    if (c->json_path) {
        if ((rc = write_json(c, &m, desc, ep, n_ep, ev.confusion ? &ev : NULL, ls_now() - t_start))) goto done;
        printf("wrote %s\n", c->json_path);
    }
done:
    order_free(&ord);
    eval_result_free(&ev);
    free(desc);
    engine_free(e);
    free(params);
    free(x);
    free(y);
    free(perm);
    dataset_free(&ds);
    return rc;
}
