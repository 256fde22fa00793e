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
#include "engines/checksums.h"
#include "engines/recorded.h"
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
    /* never a silent exit (write and strlen are async-signal-safe too) */
    static const char msg[] = "\nlockstep record: stopped by a signal; the recording was not written (its "
                              "temporary file removed)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
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

static int add_plan_prov(golden_prov *p, const recording_cfg *c, long total, const char *desc, const char *ck) {
    char buf[512];
    int rc = 0;
    rc |= golden_prov_set(p, "kind", "recording");
    rc |= golden_prov_set(p, "plan.checksums", ck);
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

/* The plan's full steps for the opening line, short: runs of consecutive
 * steps as ranges and, past 7 runs, the first 4, "...", the last 2; then
 * the count ("1-2, 50, 100, 150, ..., 650, 700, 705 (17 in all)").  The
 * whole list is the recording's provenance, plan.full_steps: printed
 * whole, a long run's opening line filled a terminal.  Two passes over the
 * plan: the runs counted, then the ones shown printed. */
static void full_steps_summary(char *buf, size_t cap, long total, long ref_steps, long audit_every) {
    enum { HEAD = 4, TAIL = 2 };
    long n_runs = 0, n_full = 0;
    size_t n = 0;
    buf[0] = 0;
    for (int pass = 0; pass < 2; pass++) {
        long run = 0, a = 0;
        for (long k = 1; k <= total + 1; k++) {
            int full = k <= total && recording_is_full_step(k, total, ref_steps, audit_every);
            n_full += !pass && full;
            if (full && !a) a = k;
            if (full || !a) continue;
            /* the run a..k-1 ended */
            int shown = n_runs <= HEAD + TAIL + 1 || run < HEAD || run >= n_runs - TAIL;
            if (pass && shown && n < cap)
                n += (size_t)snprintf(buf + n, cap - n, "%s%ld", run ? ", " : "", a);
            if (pass && shown && n < cap && k - 1 > a) n += (size_t)snprintf(buf + n, cap - n, "-%ld", k - 1);
            if (pass && run == HEAD && !shown && n < cap) n += (size_t)snprintf(buf + n, cap - n, ", ...");
            run++;
            a = 0;
        }
        if (!pass) n_runs = run;
    }
    if (n < cap) snprintf(buf + n, cap - n, "%s(%ld in all)", n_runs ? " " : "", n_full);
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

/* Everything one `lockstep record` run holds, so that each phase below can
 * fail with a plain return and recording_record_run() cleans up once. */
typedef struct {
    const recording_cfg *c;
    model m;
    dataset ds;
    engine *e;
    golden_prov prov;
    rec_writer R;
    uint32_t *perm;
    batch_order ord;
    float *x, *logits, *vals;
    int32_t *y;
    int ck_on;          /* the engine's checksum vectors are recorded */
    char ck_what[320];  /* provenance plan.checksums */
    int ck_ext;         /* its level (recording.ck_ext): 7, or 3 for an engine without the random-weight blocks */
    double *ck_vec;     /* one vector (ck_layout_make at the batch size) */
    float *ck_packed;   /* and packed (recording_ck_pack) */
    char *desc;
    char spec[256];
    size_t n_train, n_test, spe, in, C;
    long total, step, state_at; /* state_at: the last step whose "after" state is recorded */
    struct sigaction old[3];
    int sigs[3], handlers, blocked;
    sigset_t block, prev;
} record_run;

/* Whether the engine's checksum vectors go into the recording (the op
 * exists, --no-checksums not given), said in plan.checksums, and their
 * buffers: the packed form is never longer than the vector plus 9 floats
 * per model tensor and 3 more (each u64 digest slot, and INPUT, becomes
 * four floats). */
static int record_prepare_checksums(record_run *r) {
    const recording_cfg *c = r->c;
    if (c->no_checksums) {
        snprintf(r->ck_what, sizeof r->ck_what, "none (record --no-checksums)");
        return 0;
    }
    if (!r->e->iface->checksums) {
        snprintf(r->ck_what, sizeof r->ck_what, "none (engine %s has no checksums operation)", r->spec);
        return 0;
    }
    /* the vector's header holds the step as an exact fp32 integer */
    if (r->total >= (1L << 24))
        return ls_err(LS_EINVAL, "%ld steps: checksum vectors hold the step as an fp32 integer (< 2^24); "
                      "record --no-checksums", r->total);
    ck_layout L;
    ck_layout_make(&L, &r->m, r->c->run.batch);
    r->ck_vec = ls_malloc(L.total * sizeof *r->ck_vec);
    r->ck_packed = ls_malloc((L.total + 9 * (size_t)r->m.n_tensors + 3) * sizeof *r->ck_packed);
    if (!r->ck_vec || !r->ck_packed) return LS_ENOMEM;
    r->ck_on = 1;
    /* ",all-blocks": INPUT and the per-sample and weighted blocks too,
     * ",alt": and the row- and column-alternating ones, ",zero": and the
     * zero-element ones, ",rand": and the random-weight ones, ",peek":
     * and the conv layers' output-element ones, ",dpeek": and the dense
     * layers', ",wrnd": and the random-weighted backward-weights ones
     * (every engine computes them, cuda's on the device; an older
     * lockstep refuses such a recording: a plan.checksums it does not
     * know, with vectors in the file, is not one without them) */
    r->ck_ext = 7;
    snprintf(r->ck_what, sizeof r->ck_what, "step,update,eval,all-blocks,alt,zero%s",
             r->ck_ext == 7 ? ",rand,peek,dpeek,wrnd" : "");
    return 0;
}

/* The engine's own checksum vector of `stage` for the batch of nb just
 * computed, packed into one record (step, layer; layer = the evaluation
 * batch for CK_EVAL). */
static int record_checksums(record_run *r, int stage, long step, int layer, size_t nb) {
    if (!r->ck_on) return 0;
    int rc = engine_checksums(r->e, stage, r->ck_vec);
    if (rc) return ls_err(rc, "checksums (stage %d): %s%s", stage, ls_errmsg(), rc == LS_EUNAVAIL ? "; record "
                          "--no-checksums" : "");
    recording_ck_geom G;
    recording_ck_geom_of(&r->m, nb, &G);
    G.ext = r->ck_ext;
    if ((rc = recording_ck_pack(&G, &r->m, stage, r->ck_vec, r->ck_packed)))
        return ls_err(rc, "checksums (stage %d): %s", stage, ls_errmsg());
    size_t len = recording_ck_packed_len(&G, &r->m, stage);
    unsigned kind = stage == CK_STAGE_STEP ? GOLDEN_KIND_CK_STEP : stage == CK_STAGE_UPDATE ? GOLDEN_KIND_CK_UPDATE
                                                                                          : GOLDEN_KIND_CK_EVAL;
    return golden_writer_add(r->R.w, (uint32_t)step, layer, kind, "", 1, &len, r->ck_packed);
}

/* The engine on the model's parameters, the plan, and every buffer. */
static int record_prepare(record_run *r) {
    const run_cfg *rc_ = &r->c->run;
    const model *m = &r->m;
    int rc;
    if (r->ds.train.rows != m->in_h || r->ds.train.cols != m->in_w || m->in_c != 1)
        return ls_err(LS_EINVAL, "%s: images are %dx%d but model %s expects %dx%dx%d", r->ds.train.images_path,
                      r->ds.train.rows, r->ds.train.cols, m->name, m->in_c, m->in_h, m->in_w);
    spec_with_threads(r->spec, sizeof r->spec, rc_->engine, rc_->threads);
    if (strncmp(r->spec, "recorded:", 9) == 0)
        return ls_err(LS_EINVAL, "a recording cannot be recorded again (engine %s)", r->spec);
    engine_opts eo = {rc_->seed, rc_->batch, 0};
    if ((rc = engine_create(&r->e, r->spec, m, &eo))) return rc;
    r->R.e = r->e;
    r->R.m = m;
    /* per-layer timing is part of the recording: a device engine is
     * synchronized after each timed call, so that its queued work is
     * charged to the layer that queued it (no-op for host engines) */
    r->e->time_layers = 1;

    r->n_train = rc_->limit_train && rc_->limit_train < r->ds.train.n ? rc_->limit_train : r->ds.train.n;
    r->n_test = rc_->limit_test && rc_->limit_test < r->ds.test.n ? rc_->limit_test : r->ds.test.n;
    r->spe = steps_per_epoch(r->n_train, rc_->batch);
    r->total = (long)r->spe * rc_->epochs;
    if (rc_->max_steps >= 0 && rc_->max_steps < r->total) r->total = rc_->max_steps;
    if (r->total < 1) return ls_err(LS_EINVAL, "the plan has no step (--steps 0?)");
    /* a --order file must hold every epoch the plan reaches: found now, not after an epoch has trained */
    if (rc_->order_path) {
        int orc = order_load(&r->ord, rc_->order_path, r->n_train);
        if (orc) return ls_err_option(orc, "--order", rc_->order_path);
        long need = (r->total + (long)r->spe - 1) / (long)r->spe;
        if ((long)r->ord.epochs < need)
            return ls_err(LS_EINVAL, "--order %s: the batch order has %zu epoch(s); this run needs %ld (%ld "
                          "steps of %zu per epoch%s)", rc_->order_path, r->ord.epochs, need, r->total, r->spe,
                          rc_->max_steps < 0 ? "; --epochs N sets how many" : "");
    }
    size_t in = (size_t)m->in_c * m->in_h * m->in_w, C = (size_t)m->n_classes, big = m->n_params;
    r->in = in;
    r->C = C;
    if (rc_->batch * in > big) big = rc_->batch * in;
    for (int l = 0; l < m->n_layers; l++)
        if (rc_->batch * layer_out_size(&m->layers[l]) > big) big = rc_->batch * layer_out_size(&m->layers[l]);
    r->perm = ls_malloc(r->n_train * sizeof *r->perm);
    r->x = ls_malloc(rc_->batch * in * sizeof *r->x);
    r->y = ls_malloc(rc_->batch * sizeof *r->y);
    r->R.buf = ls_malloc(big * sizeof *r->R.buf);
    r->logits = ls_malloc(r->n_test * C * sizeof *r->logits);
    r->vals = ls_malloc((r->n_test > rc_->batch ? r->n_test : rc_->batch) * sizeof *r->vals);
    if (!r->perm || !r->x || !r->y || !r->R.buf || !r->logits || !r->vals) return LS_ENOMEM;
    if ((rc = record_prepare_checksums(r))) return rc;
    /* --init, else the seeded draw */
    if ((rc = st_init_params(m, rc_->init_path, rc_->seed, r->R.buf)))
        return rc_->init_path ? ls_err_option(rc, "--init", rc_->init_path) : rc;
    return engine_set_params(r->e, r->R.buf);
}

/* The recording's bytes before compression, in two parts: parts[0] the
 * tensors of the full steps (the state before and after, the batch, every
 * activation and its gradient, the loss, the parameters' gradients) and
 * of each epoch's evaluation (logits, predictions); parts[1] what every
 * step adds (the STEP record, and the STEP and UPDATE checksum vectors
 * when they are recorded) and the evaluations' checksum vectors.  Each
 * record also has its head (at most 32 + GOLDEN_MAX_NAME bytes). */
static void record_raw_bytes(const record_run *r, double parts[2], long *n_full) {
    const model *m = &r->m;
    const size_t B = r->c->run.batch, nb = B < r->n_train ? B : r->n_train;
    const double head = 32 + GOLDEN_MAX_NAME, np = (double)m->n_params, L = m->n_layers;
    double acts = 0;
    for (int l = 0; l < m->n_layers; l++) acts += (double)layer_out_size(&m->layers[l]);
    double ck_step = 0, ck_update = 0, ck_eval = 0;
    if (r->ck_on) {
        recording_ck_geom G;
        recording_ck_geom_of(m, nb, &G);
        G.ext = r->ck_ext;
        ck_step = (double)recording_ck_packed_len(&G, m, REC_CK_STEP) * 4 + head;
        ck_update = (double)recording_ck_packed_len(&G, m, REC_CK_UPDATE) * 4 + head;
        recording_ck_geom_of(m, B, &G);
        G.ext = r->ck_ext;
        ck_eval = (double)recording_ck_packed_len(&G, m, REC_CK_EVAL) * 4 + head;
    }
    double full = 0, before = 0;
    for (long k = 1; k <= r->total; k++)
        if (recording_is_full_step(k, r->total, r->c->ref_steps, r->c->audit_every)) {
            full++;
            before += k == 1 || !recording_is_full_step(k - 1, r->total, r->c->ref_steps, r->c->audit_every);
        }
    const double state = 3 * (np * 4 + head);
    const double per_full = state + (double)nb * ((double)m->in_c * m->in_h * m->in_w + 2) * 4 + 3 * head +
                            2 * (double)nb * acts * 4 + 2 * L * head + 4 + head + np * 4 + head;
    const double epochs = (double)((r->total + (long)r->spe - 1) / (long)r->spe);
    const double batches = (double)((r->n_test + B - 1) / B);
    parts[0] = full * per_full + before * state +
               epochs * ((double)r->n_test * ((double)r->C + 1) * 4 + 2 * head + EPOCH_FIELDS * 4 + head);
    parts[1] = (double)r->total * (STEP_FIELDS * 4 + head + ck_step + ck_update) + epochs * batches * ck_eval +
               (4 * L + 6) * 4 + head;
    *n_full = (long)full;
}

/* A plan whose recording cannot fit is refused before the first step, not
 * after filling the disk (`record --epochs 64 --audit-every 1` is terabytes),
 * as golden record refuses a golden.  The file is deflated, so the raw
 * bytes are scaled down by the smallest share deflate left of each part
 * (measured, `record --engine cpu --epochs 1`, file size against
 * record_raw_bytes; --no-checksums gives the tensors' share alone):
 *   tensors: 32% (a linear model, batch 64, 100 steps), 41% (mnist-convnet,
 *            batch 64), 44% (smallcnn, batch 256), 47% (smallcnn, batch 64);
 *   the checksum vectors: 78% (smallcnn, batch 64), 78% (mnist-convnet,
 *            batch 64), 79% (smallcnn, batch 256, 50 steps), 85% (linear);
 * so 30% and 75%: the estimate is at most what the file needs (it was 73% to
 * 90% of the measured files).  Per step that is ~1.65 MB for smallcnn at
 * batch 256 with checksum vectors (1.97 MB raw): they, not the full steps,
 * make a long run's recording big. */
static int record_check_disk(const record_run *r) {
    double parts[2], avail;
    long n_full;
    char dir[4096];
    record_raw_bytes(r, parts, &n_full);
    double need = 0.30 * parts[0] + 0.75 * parts[1];
    if (ls_disk_free(r->c->out_path, &avail, dir, sizeof dir) != 0 || need <= avail) return 0;
    return ls_err(LS_EIO, "--out %s: %ld step(s) at batch %zu, %ld of them recorded in full%s, make a recording of at "
                  "least %.1f GiB (compressed), more than the %.1f GiB free on the file system of %s: record fewer "
                  "steps (--epochs, --limit-train, --steps), fewer in full (--audit-every), %sor write it elsewhere",
                  r->c->out_path, r->total, r->c->run.batch, n_full, r->ck_on ? ", with checksum vectors" : "",
                  need / 1073741824.0, avail / 1073741824.0, dir, r->ck_on ? "--no-checksums, " : "");
}

/* The provenance, the writer under its temporary name, the signal handlers
 * that remove it, and the opening line. */
static int record_open(record_run *r) {
    const recording_cfg *c = r->c;
    const run_cfg *rc_ = &c->run;
    int rc;
    if ((rc = golden_build_provenance(&r->prov, rc_, r->total, &r->m, &r->ds, r->e, r->spec))) return rc;
    r->desc = engine_describe(r->e);
    if ((rc = add_plan_prov(&r->prov, c, r->total, r->desc, r->ck_what))) return rc;
    /* the signals have waited since the run began (recording_record_run):
     * the temporary file is created and its name handed to the handler
     * before any thread can take one */
    rc = golden_writer_open(&r->R.w, c->out_path, &r->prov);
    if (rc) return rc;
    snprintf(g_tmp_path, sizeof g_tmp_path, "%s", golden_writer_tmp_path(r->R.w));
    g_tmp_set = 1;
    for (int i = 0; i < 3; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(r->sigs[i], &sa, &r->old[i]);
    }
    r->handlers = 1;
    sigprocmask(SIG_SETMASK, &r->prev, NULL);
    r->blocked = 0;
    if (c->out) {
        char full[192];
        full_steps_summary(full, sizeof full, r->total, c->ref_steps, c->audit_every);
        fprintf(c->out, "record %s: %s, %s, %d epoch(s) of %zu images, batch %zu, seed %llu, %ld steps, full steps %s, "
                "checksum vectors: %s\n", c->out_path, r->spec, r->m.name, rc_->epochs, r->n_train, rc_->batch,
                (unsigned long long)rc_->seed, r->total, full, r->ck_what);
        fflush(c->out); /* a log file or pipe keeps it if a signal ends the run (it ends without exit()) */
    }
    return 0;
}

/* One training step (batch s of epoch ep): on a full step the state before,
 * the batch and every tensor; on every step the loss, the parameters' norm
 * and digest and the batch's digest.  Time inside the engine adds to
 * *train_s. */
static int record_step(record_run *r, int ep, size_t s, double *train_s, size_t *images) {
    const recording_cfg *c = r->c;
    const run_cfg *rc_ = &c->run;
    const model *m = &r->m;
    engine *e = r->e;
    rec_writer *R = &r->R;
    const int L = m->n_layers;
    int rc = 0;
    size_t first = s * rc_->batch, nb = r->n_train - first < rc_->batch ? r->n_train - first : rc_->batch;
    double t0 = ls_now();
    data_make_batch(&r->ds.train, r->perm + first, 0, nb, r->x, r->y);
    *train_s += ls_now() - t0;
    long step = ++r->step;
    int full = recording_is_full_step(step, r->total, c->ref_steps, c->audit_every);
    float loss;
#define TRAIN(call)                      \
    do {                                 \
        double tc_ = ls_now();           \
        rc = (call);                     \
        *train_s += ls_now() - tc_;      \
        if (rc) goto step_fail;          \
    } while (0)
#define PUT(call)                        \
    do {                                 \
        if ((rc = (call))) goto step_fail; \
    } while (0)
    if (full) {
        /* the inputs: the state before the step, the batch */
        if (r->state_at != step - 1) PUT(put_state(R, step - 1));
        size_t sh[4] = {nb, (size_t)m->in_c, (size_t)m->in_h, (size_t)m->in_w};
        PUT(golden_writer_add(R->w, (uint32_t)step, -1, TENSOR_INPUT, "", 4, sh, r->x));
        for (size_t i = 0; i < nb; i++) r->vals[i] = (float)r->y[i];
        PUT(golden_writer_add(R->w, (uint32_t)step, -1, GOLDEN_KIND_LABELS, "", 1, sh, r->vals));
        for (size_t i = 0; i < nb; i++) r->vals[i] = (float)r->perm[first + i];
        PUT(golden_writer_add(R->w, (uint32_t)step, -1, GOLDEN_KIND_BATCH_INDEX, "", 1, sh, r->vals));
    }
    TRAIN(engine_set_batch(e, r->x, r->y, nb, (uint64_t)step));
    for (int l = 0; l < L; l++) {
        TRAIN(engine_forward_layer(e, l, 1));
        if (full) PUT(put_tensor(R, step, l, (tensor_id){TENSOR_ACT, l}, nb));
    }
    TRAIN(engine_loss(e, &loss));
    if (full) {
        PUT(put_tensor(R, step, -1, (tensor_id){TENSOR_LOSS, 0}, nb));
        PUT(put_tensor(R, step, L - 1, (tensor_id){TENSOR_DACT, L - 1}, nb));
    }
    for (int l = L - 1; l >= 0; l--) {
        TRAIN(engine_backward_layer(e, l));
        if (full && l > 0) PUT(put_tensor(R, step, l - 1, (tensor_id){TENSOR_DACT, l - 1}, nb));
    }
    if (full) PUT(put_tensor(R, step, -1, (tensor_id){TENSOR_GRADS, 0}, nb));
    PUT(record_checksums(r, CK_STAGE_STEP, step, -1, nb));
    TRAIN(engine_update(e, &rc_->adam, (int)step));
    PUT(record_checksums(r, CK_STAGE_UPDATE, step, -1, nb));
    *images += nb;
    /* every step: the parameters' norm and digest, the batch's digest */
    PUT(engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, R->buf));
    double ss = 0;
    for (size_t i = 0; i < m->n_params; i++) ss += (double)R->buf[i] * R->buf[i];
    float sv[STEP_FIELDS];
    sv[0] = loss;
    sv[1] = (float)sqrt(ss);
    recording_digest_put(sv + 2, recording_digest(R->buf, m->n_params * sizeof *R->buf, 0));
    recording_digest_put(sv + 6, recording_batch_digest(r->x, r->y, nb, r->in));
    sv[10] = (float)nb;
    sv[11] = (float)ep;
    size_t one = STEP_FIELDS;
    if (full) {
        PUT(put_state(R, step));
        r->state_at = step;
    }
    PUT(golden_writer_add(R->w, (uint32_t)step, -1, GOLDEN_KIND_STEP, "", 1, &one, sv));
    if (rc_->progress)
        fprintf(stderr, "\r  epoch %d/%d  step %ld/%ld%s   ", ep + 1, rc_->epochs, step, r->total,
                full ? "  (recorded in full)" : "");
    return 0;
step_fail:
    return ls_err(rc, "engine %s, step %ld: %s", r->spec, step, ls_errmsg());
#undef TRAIN
#undef PUT
}

/* The training steps of epoch ep, in the order the plan gives. */
static int record_train_epoch(record_run *r, int ep, double *train_s, size_t *images) {
    const run_cfg *rc_ = &r->c->run;
    int rc;
    if ((rc = order_fill(&r->ord, rc_->order_path, r->perm, r->n_train, rc_->seed, ep))) return rc;
    for (size_t s = 0; s < r->spe && r->step < r->total; s++)
        if ((rc = record_step(r, ep, s, train_s, images))) return rc;
    if (rc_->progress) fprintf(stderr, "\r%70s\r", "");
    return 0;
}

/* The test slice after epoch ep, as eval_engine() evaluates it, with the
 * logits, the predictions and the epoch's summary recorded. */
static int record_eval_epoch(record_run *r, int ep, double train_s, size_t images) {
    const recording_cfg *c = r->c;
    const run_cfg *rc_ = &c->run;
    engine *e = r->e;
    const int L = r->m.n_layers;
    const size_t n_test = r->n_test, C = r->C;
    int rc;
    size_t correct = 0;
    double loss_sum = 0;
    for (size_t s = 0; s < n_test; s += rc_->batch) {
        size_t nb = n_test - s < rc_->batch ? n_test - s : rc_->batch;
        data_make_batch(&r->ds.test, NULL, s, nb, r->x, r->y);
        if ((rc = engine_set_batch(e, r->x, r->y, nb, 0)) || (rc = engine_forward(e, 0)) ||
            (rc = engine_get_tensor(e, (tensor_id){TENSOR_ACT, L - 1}, r->logits + s * C)) ||
            (rc = record_checksums(r, CK_STAGE_EVAL, r->step, (int)(s / rc_->batch), nb)))
            return ls_err(rc, "engine %s: evaluation: %s", r->spec, ls_errmsg());
    }
    for (size_t i = 0; i < n_test; i++) {
        const float *z = r->logits + i * C;
        int best = 0, yy = r->ds.test.labels[i];
        double mx = z[0];
        for (size_t j = 1; j < C; j++)
            if (z[j] > z[best]) best = (int)j;
        for (size_t j = 1; j < C; j++) mx = z[j] > mx ? z[j] : mx;
        double se = 0;
        for (size_t j = 0; j < C; j++) se += exp((double)z[j] - mx);
        loss_sum += log(se) + mx - (double)z[yy];
        r->vals[i] = (float)best;
        correct += best == yy;
    }
    size_t sh[2] = {n_test, C};
    float ev[EPOCH_FIELDS] = {(float)ep, (float)train_s, (float)images, (float)((double)correct / n_test),
                              (float)(loss_sum / n_test)};
    size_t ne = EPOCH_FIELDS;
    uint32_t step = (uint32_t)r->step;
    if ((rc = golden_writer_add(r->R.w, step, -1, GOLDEN_KIND_LOGITS, "", 2, sh, r->logits)) ||
        (rc = golden_writer_add(r->R.w, step, -1, GOLDEN_KIND_PREDICTIONS, "", 1, sh, r->vals)) ||
        (rc = golden_writer_add(r->R.w, step, -1, GOLDEN_KIND_EPOCH, "", 1, &ne, ev)))
        return rc;
    if (c->out)
        fprintf(c->out, "epoch %d: %.3f s training (%.0f images/s), test accuracy %.2f%%, loss %.4f\n", ep + 1,
                train_s, train_s > 0 ? images / train_s : 0.0, 100.0 * correct / n_test, loss_sum / n_test);
    if (c->out) fflush(c->out);
    return 0;
}

/* Per-layer timing of the whole run, as the audit reports it. */
static int record_timing(record_run *r) {
    const engine_timing *t = &r->e->timing;
    const int L = r->m.n_layers;
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
    return golden_writer_add(r->R.w, (uint32_t)r->step, -1, GOLDEN_KIND_TIMING, "", 1, &nt, tv);
}

/* Committing: signals wait until the file is complete under its name. */
static int record_commit(record_run *r) {
    sigprocmask(SIG_BLOCK, &r->block, NULL);
    g_tmp_set = 0;
    int rc = golden_writer_close(r->R.w, 1);
    r->R.w = NULL;
    for (int i = 0; i < 3; i++) sigaction(r->sigs[i], &r->old[i], NULL);
    r->handlers = 0;
    sigprocmask(SIG_SETMASK, &r->prev, NULL);
    return rc;
}

/* Every exit path: a writer still open is closed, which removes its
 * temporary file, keeping the first failure's message. */
static void record_cleanup(record_run *r, int rc) {
    if (r->R.w) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ls_errmsg());
        golden_writer_close(r->R.w, 0); /* removes the temporary file */
        g_tmp_set = 0;
        ls_err(rc, "%s", msg);
    }
    if (r->handlers)
        for (int i = 0; i < 3; i++) sigaction(r->sigs[i], &r->old[i], NULL);
    if (r->blocked) sigprocmask(SIG_SETMASK, &r->prev, NULL); /* an error before the file existed */
    free(r->desc);
    golden_prov_free(&r->prov);
    order_free(&r->ord);
    engine_free(r->e);
    dataset_free(&r->ds);
    free(r->perm);
    free(r->x);
    free(r->y);
    free(r->R.buf);
    free(r->logits);
    free(r->vals);
    free(r->ck_vec);
    free(r->ck_packed);
}

int recording_record_run(const recording_cfg *c) {
    const run_cfg *rc_ = &c->run;
    record_run r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.state_at = -1;
    r.sigs[0] = SIGINT;
    r.sigs[1] = SIGTERM;
    r.sigs[2] = SIGHUP;
    golden_prov_init(&r.prov);
    int rc;
    double t_start = ls_now();

    if (!c->out_path) return ls_err(LS_EINVAL, "--out FILE is required");
    if (rc_->epochs < 1 || rc_->epochs > 64) return ls_err(LS_EINVAL, "--epochs must be in 1..64");
    if (c->audit_every < 0 || c->ref_steps < 0) return ls_err(LS_EINVAL, "--audit-every and --ref-steps must be >= 0");
    /* The signals wait from here until the handlers that remove the
     * temporary file are in place (record_open).  sigprocmask masks this
     * thread only: another thread alive when the file is created (the
     * libraries start some while the data and the engine are set up) could
     * take a process-directed SIGINT with the old disposition and leave the
     * file behind (CI, test_faults test_record_interrupted under ASan; a
     * stress loop that interrupts as soon as the file appears: 2 of 255
     * runs before, 0 of 275 after).  Threads inherit the mask, so blocking
     * before any of that is set up closes the window. */
    sigemptyset(&r.block);
    for (int i = 0; i < 3; i++) sigaddset(&r.block, r.sigs[i]);
    sigprocmask(SIG_BLOCK, &r.block, &r.prev);
    r.blocked = 1;
    if ((rc = model_build(&r.m, rc_->model))) {
        rc = ls_err_option(rc, "--model", rc_->model);
        goto done;
    }
    if ((rc = dataset_load(&r.ds, rc_->data_dir, r.m.n_classes))) goto done;
    run_apply_normalize(rc_, &r.ds);
    if ((rc = run_check_classes(rc_, &r.m, &r.ds))) goto done;
    run_note_limits(rc_, &r.ds, "record");
    if ((rc = record_prepare(&r))) goto done;
    if ((rc = record_check_disk(&r))) goto done;
    if ((rc = record_open(&r))) goto done;
    for (int ep = 0; ep < rc_->epochs && r.step < r.total; ep++) {
        double train_s = 0;
        size_t images = 0;
        if ((rc = record_train_epoch(&r, ep, &train_s, &images))) goto done;
        if ((rc = record_eval_epoch(&r, ep, train_s, images))) goto done;
    }
    if ((rc = record_timing(&r))) goto done;
    if ((rc = record_commit(&r))) goto done;
    if (c->out) fprintf(c->out, "wrote %s (%ld steps, %.1f s)\n", c->out_path, r.step, ls_now() - t_start);

done:
    record_cleanup(&r, rc);
    return rc;
}
