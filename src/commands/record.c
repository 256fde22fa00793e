/*
 * record.c — `lockstep record`: train one engine in this process and pin
 * its whole run in a recording (formats/recording.h), written under a
 * temporary name and renamed into place.
 */
#include "commands/record.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "commands/golden_cli.h"
#include "engines/registry.h"
#include "formats/order.h"
#include "formats/recording.h"
#include "formats/safetensors.h"

enum { STEP_FIELDS = 12, EPOCH_FIELDS = 5 };

void recording_cfg_default(recording_cfg *c) {
    memset(c, 0, sizeof *c);
    run_cfg_default(&c->run);
    c->audit_every = 50;
    c->ref_steps = 2;
}

/* The temporary file of the recording being written, for the signal
 * handler: an interrupted run must leave nothing behind. */
static char g_tmp_path[1100];

static volatile sig_atomic_t g_tmp_set;

static void on_signal(int sig) {
    if (g_tmp_set) unlink(g_tmp_path); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* "NVIDIA H200" from describe()'s "device":{..."name":"..."}; "" if none. */
static void describe_device(const char *d, char *name, size_t cap, char *driver, size_t dcap) {
    name[0] = driver[0] = 0;
    const char *p = d ? strstr(d, "\"device\":{") : NULL;
    if (p && (p = strstr(p, "\"name\":\""))) {
        p += 8;
        size_t n = 0;
        while (*p && *p != '"' && n + 1 < cap) name[n++] = *p++;
        name[n] = 0;
    }
    p = d ? strstr(d, "\"driver_version\":\"") : NULL;
    if (p) {
        p += 18;
        size_t n = 0;
        while (*p && *p != '"' && n + 1 < dcap) driver[n++] = *p++;
        driver[n] = 0;
    }
}

static int add_plan_prov(golden_prov *p, const recording_cfg *c, long total, const char *desc) {
    char buf[512];
    int rc = 0;
    rc |= golden_prov_set(p, "kind", "recording");
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
        rc |= golden_prov_set(p, "host.os", buf);
    }
    rc |= golden_prov_set(p, "host.cpu", golden_prov_get(p, "cpu.model") ? golden_prov_get(p, "cpu.model") : "unknown");
    char gpu[256], drv[64];
    describe_device(desc, gpu, sizeof gpu, drv, sizeof drv);
    if (gpu[0]) rc |= golden_prov_set(p, "gpu.name", gpu);
    if (drv[0]) rc |= golden_prov_set(p, "gpu.driver", drv);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    rc |= golden_prov_set(p, "date", buf);
    snprintf(buf, sizeof buf, "%d", c->run.epochs);
    rc |= golden_prov_set(p, "plan.epochs", buf);
    snprintf(buf, sizeof buf, "%ld", total);
    rc |= golden_prov_set(p, "plan.total_steps", buf);
    snprintf(buf, sizeof buf, "%ld", c->audit_every);
    rc |= golden_prov_set(p, "plan.audit_every", buf);
    snprintf(buf, sizeof buf, "%ld", c->ref_steps);
    rc |= golden_prov_set(p, "plan.ref_steps", buf);
    lsbuf fs;
    lsbuf_init(&fs);
    for (long k = 1; k <= total; k++)
        if (recording_is_full_step(k, total, c->ref_steps, c->audit_every))
            lsbuf_printf(&fs, "%s%ld", fs.len ? "," : "", k);
    rc |= golden_prov_set(p, "plan.full_steps", fs.failed ? "?" : fs.s);
    lsbuf_free(&fs);
    return rc;
}

typedef struct {
    golden_writer *w;
    engine *e;
    const model *m;
    float *buf;
} rec_writer;

/* Read tensor t from the engine and append it as one record. */
static int put_tensor(rec_writer *R, long step, int layer, tensor_id t, size_t nb) {
    int rc = engine_get_tensor(R->e, t, R->buf);
    if (rc) return rc;
    size_t shape[2];
    int ndim;
    const char *name = "all";
    if (t.kind == TENSOR_ACT || t.kind == TENSOR_DACT) {
        shape[0] = nb;
        shape[1] = layer_out_size(&R->m->layers[t.layer]);
        ndim = 2;
        name = R->m->layers[t.layer].name;
    } else if (t.kind == TENSOR_LOSS) {
        ndim = 0;
        name = "";
    } else {
        shape[0] = R->m->n_params;
        ndim = 1;
    }
    return golden_writer_add(R->w, (uint32_t)step, layer, (unsigned)t.kind, name, ndim, shape, R->buf);
}

static int put_state(rec_writer *R, long step) {
    tensor_kind ks[3] = {TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V};
    int rc = 0;
    for (int k = 0; k < 3 && !rc; k++) rc = put_tensor(R, step, -1, (tensor_id){ks[k], 0}, 0);
    return rc;
}

int recording_record_run(const recording_cfg *c) {
    const run_cfg *rc_ = &c->run;
    model m;
    dataset ds;
    memset(&ds, 0, sizeof ds);
    engine *e = NULL;
    golden_prov prov;
    golden_prov_init(&prov);
    rec_writer R;
    memset(&R, 0, sizeof R);
    uint32_t *perm = NULL;
    batch_order ord;
    memset(&ord, 0, sizeof ord);
    float *x = NULL, *logits = NULL, *vals = NULL;
    int32_t *y = NULL;
    char *desc = NULL;
    char spec[256];
    int rc;
    double t_start = ls_now();
    struct sigaction old[3];
    int sigs[3] = {SIGINT, SIGTERM, SIGHUP}, handlers = 0;

    if (!c->out_path) return ls_err(LS_EINVAL, "record: --out FILE is required");
    if (rc_->epochs < 1 || rc_->epochs > 64) return ls_err(LS_EINVAL, "record: --epochs must be in 1..64");
    if (c->audit_every < 0 || c->ref_steps < 0) return ls_err(LS_EINVAL, "record: --audit-every and --ref-steps must be >= 0");
    if ((rc = model_build(&m, rc_->model))) return rc;
    if ((rc = dataset_load(&ds, rc_->data_dir, m.n_classes))) return rc;
    run_apply_normalize(rc_, &ds);
    if (ds.train.rows != m.in_h || ds.train.cols != m.in_w || m.in_c != 1) {
        rc = ls_err(LS_EINVAL, "%s: images are %dx%d but model %s expects %dx%dx%d", ds.train.images_path,
                    ds.train.rows, ds.train.cols, m.name, m.in_c, m.in_h, m.in_w);
        goto done;
    }
    spec_with_threads(spec, sizeof spec, rc_->engine, rc_->threads);
    if (strncmp(spec, "recorded:", 9) == 0) {
        rc = ls_err(LS_EINVAL, "record: a recording cannot be recorded again (engine %s)", spec);
        goto done;
    }
    engine_opts eo = {rc_->seed, rc_->batch};
    if ((rc = engine_create(&e, spec, &m, &eo))) goto done;
    R.e = e;
    R.m = &m;
    /* per-layer timing is part of the recording: a device engine is
     * synchronized after each timed call, so that its queued work is
     * charged to the layer that queued it (no-op for host engines) */
    e->time_layers = 1;

    size_t n_train = rc_->limit_train && rc_->limit_train < ds.train.n ? rc_->limit_train : ds.train.n;
    size_t n_test = rc_->limit_test && rc_->limit_test < ds.test.n ? rc_->limit_test : ds.test.n;
    size_t spe = steps_per_epoch(n_train, rc_->batch);
    long total = (long)spe * rc_->epochs;
    if (rc_->max_steps >= 0 && rc_->max_steps < total) total = rc_->max_steps;
    if (total < 1) {
        rc = ls_err(LS_EINVAL, "record: the plan has no step (--steps 0?)");
        goto done;
    }
    size_t in = (size_t)m.in_c * m.in_h * m.in_w, C = (size_t)m.n_classes, big = m.n_params;
    if (rc_->batch * in > big) big = rc_->batch * in;
    for (int l = 0; l < m.n_layers; l++)
        if (rc_->batch * layer_out_size(&m.layers[l]) > big) big = rc_->batch * layer_out_size(&m.layers[l]);
    perm = ls_malloc(n_train * sizeof *perm);
    x = ls_malloc(rc_->batch * in * sizeof *x);
    y = ls_malloc(rc_->batch * sizeof *y);
    R.buf = ls_malloc(big * sizeof *R.buf);
    logits = ls_malloc(n_test * C * sizeof *logits);
    vals = ls_malloc((n_test > rc_->batch ? n_test : rc_->batch) * sizeof *vals);
    if (!perm || !x || !y || !R.buf || !logits || !vals) {
        rc = LS_ENOMEM;
        goto done;
    }
    if ((rc = st_init_params(&m, rc_->init_path, rc_->seed, R.buf))) goto done; /* --init, else the seeded draw */
    if ((rc = engine_set_params(e, R.buf))) goto done;

    if ((rc = golden_build_provenance(&prov, rc_, total, &m, &ds, e, spec))) goto done;
    desc = engine_describe(e);
    if ((rc = add_plan_prov(&prov, c, total, desc))) goto done;
    /* the signals wait while the temporary file is created and its name
     * handed to the handler: no window in which it could be left behind */
    sigset_t block, prev;
    sigemptyset(&block);
    for (int i = 0; i < 3; i++) sigaddset(&block, sigs[i]);
    sigprocmask(SIG_BLOCK, &block, &prev);
    rc = golden_writer_open(&R.w, c->out_path, &prov);
    if (rc) {
        sigprocmask(SIG_SETMASK, &prev, NULL);
        goto done;
    }
    snprintf(g_tmp_path, sizeof g_tmp_path, "%s", golden_writer_tmp_path(R.w));
    g_tmp_set = 1;
    for (int i = 0; i < 3; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, &old[i]);
    }
    handlers = 1;
    sigprocmask(SIG_SETMASK, &prev, NULL);
    if (c->out)
        fprintf(c->out, "record %s: %s, %s, %d epoch(s) of %zu images, batch %zu, seed %llu, %ld steps, full at %s\n",
                c->out_path, spec, m.name, rc_->epochs, n_train, rc_->batch, (unsigned long long)rc_->seed, total,
                golden_prov_get(&prov, "plan.full_steps"));

    const int L = m.n_layers;
    long step = 0, state_at = -1; /* the last step whose "after" state is recorded */
    for (int ep = 0; ep < rc_->epochs && step < total; ep++) {
        double train_s = 0;
        size_t images = 0;
        if ((rc = order_fill(&ord, rc_->order_path, perm, n_train, rc_->seed, ep))) goto done;
        for (size_t s = 0; s < spe && step < total; s++) {
            size_t first = s * rc_->batch, nb = n_train - first < rc_->batch ? n_train - first : rc_->batch;
            double t0 = ls_now();
            data_make_batch(&ds.train, perm + first, 0, nb, x, y);
            train_s += ls_now() - t0;
            step++;
            int full = recording_is_full_step(step, total, c->ref_steps, c->audit_every);
            float loss;
#define TRAIN(call)                      \
    do {                                 \
        double tc_ = ls_now();           \
        rc = (call);                     \
        train_s += ls_now() - tc_;       \
        if (rc) goto step_fail;          \
    } while (0)
#define PUT(call)                        \
    do {                                 \
        if ((rc = (call))) goto step_fail; \
    } while (0)
            if (full) {
                /* the inputs: the state before the step, the batch */
                if (state_at != step - 1) PUT(put_state(&R, step - 1));
                size_t sh[4] = {nb, (size_t)m.in_c, (size_t)m.in_h, (size_t)m.in_w};
                PUT(golden_writer_add(R.w, (uint32_t)step, -1, TENSOR_INPUT, "", 4, sh, x));
                for (size_t i = 0; i < nb; i++) vals[i] = (float)y[i];
                PUT(golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_LABELS, "", 1, sh, vals));
                for (size_t i = 0; i < nb; i++) vals[i] = (float)perm[first + i];
                PUT(golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_BATCH_INDEX, "", 1, sh, vals));
            }
            TRAIN(engine_set_batch(e, x, y, nb, (uint64_t)step));
            for (int l = 0; l < L; l++) {
                TRAIN(engine_forward_layer(e, l, 1));
                if (full) PUT(put_tensor(&R, step, l, (tensor_id){TENSOR_ACT, l}, nb));
            }
            TRAIN(engine_loss(e, &loss));
            if (full) {
                PUT(put_tensor(&R, step, -1, (tensor_id){TENSOR_LOSS, 0}, nb));
                PUT(put_tensor(&R, step, L - 1, (tensor_id){TENSOR_DACT, L - 1}, nb));
            }
            for (int l = L - 1; l >= 0; l--) {
                TRAIN(engine_backward_layer(e, l));
                if (full && l > 0) PUT(put_tensor(&R, step, l - 1, (tensor_id){TENSOR_DACT, l - 1}, nb));
            }
            if (full) PUT(put_tensor(&R, step, -1, (tensor_id){TENSOR_GRADS, 0}, nb));
            TRAIN(engine_update(e, &rc_->adam, (int)step));
            images += nb;
            /* every step: the parameters' norm and digest, the batch's digest */
            PUT(engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, R.buf));
            double ss = 0;
            for (size_t i = 0; i < m.n_params; i++) ss += (double)R.buf[i] * R.buf[i];
            float sv[STEP_FIELDS];
            sv[0] = loss;
            sv[1] = (float)sqrt(ss);
            recording_digest_put(sv + 2, recording_digest(R.buf, m.n_params * sizeof *R.buf, 0));
            recording_digest_put(sv + 6, recording_batch_digest(x, y, nb, in));
            sv[10] = (float)nb;
            sv[11] = (float)ep;
            size_t one = STEP_FIELDS;
            if (full) {
                PUT(put_state(&R, step));
                state_at = step;
            }
            PUT(golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_STEP, "", 1, &one, sv));
            if (rc_->progress)
                fprintf(stderr, "\r  epoch %d/%d  step %ld/%ld%s   ", ep + 1, rc_->epochs, step, total,
                        full ? "  (recorded in full)" : "");
            continue;
        step_fail:
            rc = ls_err(rc, "engine %s, step %ld: %s", spec, step, ls_errmsg());
            goto done;
#undef TRAIN
#undef PUT
        }
        if (rc_->progress) fprintf(stderr, "\r%70s\r", "");
        /* the test slice, as eval_engine() evaluates it, with the logits kept */
        size_t correct = 0;
        double loss_sum = 0;
        for (size_t s = 0; s < n_test; s += rc_->batch) {
            size_t nb = n_test - s < rc_->batch ? n_test - s : rc_->batch;
            data_make_batch(&ds.test, NULL, s, nb, x, y);
            if ((rc = engine_set_batch(e, x, y, nb, 0)) || (rc = engine_forward(e, 0)) ||
                (rc = engine_get_tensor(e, (tensor_id){TENSOR_ACT, L - 1}, logits + s * C))) {
                rc = ls_err(rc, "engine %s: evaluation: %s", spec, ls_errmsg());
                goto done;
            }
        }
        for (size_t i = 0; i < n_test; i++) {
            const float *z = logits + i * C;
            int best = 0, yy = ds.test.labels[i];
            double mx = z[0];
            for (size_t j = 1; j < C; j++)
                if (z[j] > z[best]) best = (int)j;
            for (size_t j = 1; j < C; j++) mx = z[j] > mx ? z[j] : mx;
            double se = 0;
            for (size_t j = 0; j < C; j++) se += exp((double)z[j] - mx);
            loss_sum += log(se) + mx - (double)z[yy];
            vals[i] = (float)best;
            correct += best == yy;
        }
        size_t sh[2] = {n_test, C};
        float ev[EPOCH_FIELDS] = {(float)ep, (float)train_s, (float)images, (float)((double)correct / n_test),
                                  (float)(loss_sum / n_test)};
        size_t ne = EPOCH_FIELDS;
        if ((rc = golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_LOGITS, "", 2, sh, logits)) ||
            (rc = golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_PREDICTIONS, "", 1, sh, vals)) ||
            (rc = golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_EPOCH, "", 1, &ne, ev)))
            goto done;
        if (c->out)
            fprintf(c->out, "epoch %d: %.3f s training (%.0f images/s), test accuracy %.2f%%, loss %.4f\n", ep + 1,
                    train_s, train_s > 0 ? images / train_s : 0.0, 100.0 * correct / n_test, loss_sum / n_test);
    }
    {
        /* per-layer timing of the whole run, as the audit reports it */
        const engine_timing *t = &e->timing;
        float tv[4 * MODEL_MAX_LAYERS + 6];
        for (int l = 0; l < L; l++) {
            tv[4 * l] = (float)t->layer_s[l][DIR_FWD];
            tv[4 * l + 1] = (float)t->layer_calls[l][DIR_FWD];
            tv[4 * l + 2] = (float)t->layer_s[l][DIR_BWD];
            tv[4 * l + 3] = (float)t->layer_calls[l][DIR_BWD];
        }
        float *q = tv + 4 * L;
        q[0] = (float)t->loss_s;
        q[1] = (float)t->update_s;
        q[2] = (float)t->set_batch_s;
        q[3] = (float)t->get_s;
        q[4] = (float)t->set_s;
        q[5] = (float)(ls_peak_rss() / 1048576.0);
        size_t nt = 4 * (size_t)L + 6;
        if ((rc = golden_writer_add(R.w, (uint32_t)step, -1, GOLDEN_KIND_TIMING, "", 1, &nt, tv))) goto done;
    }
    /* committing: signals wait until the file is complete under its name */
    sigprocmask(SIG_BLOCK, &block, NULL);
    g_tmp_set = 0;
    rc = golden_writer_close(R.w, 1);
    R.w = NULL;
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    handlers = 0;
    sigprocmask(SIG_SETMASK, &prev, NULL);
    if (rc) goto done;
    if (c->out) fprintf(c->out, "wrote %s (%ld steps, %.1f s)\n", c->out_path, step, ls_now() - t_start);

done:
    if (R.w) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ls_errmsg());
        golden_writer_close(R.w, 0); /* removes the temporary file */
        g_tmp_set = 0;
        ls_err(rc, "%s", msg);
    }
    if (handlers)
        for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    free(desc);
    golden_prov_free(&prov);
    order_free(&ord);
    engine_free(e);
    dataset_free(&ds);
    free(perm);
    free(x);
    free(y);
    free(R.buf);
    free(logits);
    free(vals);
    return rc;
}
