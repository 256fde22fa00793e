/*
 * recording.c — recordings (recording.h): `lockstep record` writes one,
 * recording_open() reads, validates and indexes one, and the audit asks
 * whether a recording belongs to the run it is about to do.
 *
 * The writer follows the audit's own schedule exactly — the same initial
 * weights (st_init_params: --init, else the seeded draw), the same batches
 * (order_fill per epoch: --order, else the Philox shuffle; data_make_batch), the same calls in the
 * same order (set_batch with the step as dropout key, forward_layer with
 * training on, loss, backward_layer last to first, update with Adam step
 * t = step), and an evaluation of the test slice after every epoch — so
 * that a deterministic engine recorded here gives bit for bit what the
 * same engine gives live in an audit, and the audit can compare the two.
 *
 * Digests are FNV-1a 64 over the bytes as they are in memory (fp32 and
 * int32, little-endian on every machine lockstep runs on); a digest is
 * stored as four 16-bit pieces, each an exact fp32 integer, so that the
 * record stream carries nothing but ordinary floats.
 *
 * Not here: the container's bytes (golden.c), the engine table over a
 * recording (engine_recorded.c), the audit's use of it (audit/driver.c).
 */
#include "formats/recording.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "commands/golden_cli.h"
#include "formats/order.h"
#include "formats/safetensors.h"
#include "engines/registry.h"

enum { STEP_FIELDS = 12, EPOCH_FIELDS = 5 };

uint64_t recording_digest(const void *bytes, size_t n, uint64_t h) {
    const unsigned char *b = bytes;
    if (!h) h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

uint64_t recording_batch_digest(const float *x, const int32_t *y, size_t n, size_t in) {
    uint64_t h = recording_digest(x, n * in * sizeof *x, 0);
    return recording_digest(y, n * sizeof *y, h);
}

int recording_is_full_step(long step, long total, long ref_steps, long audit_every) {
    return step <= (ref_steps > 1 ? ref_steps : 1) || (audit_every > 0 && step % audit_every == 0) || step == total;
}

static void digest_put(float *v, uint64_t d) {
    for (int i = 0; i < 4; i++) v[i] = (float)((d >> (16 * i)) & 0xffffu);
}

static int digest_get(const float *v, uint64_t *d) {
    *d = 0;
    for (int i = 0; i < 4; i++) {
        if (!(v[i] >= 0 && v[i] <= 65535 && v[i] == floorf(v[i]))) return -1;
        *d |= (uint64_t)v[i] << (16 * i);
    }
    return 0;
}

/* ---- reading --------------------------------------------------------------- */

const golden_record *recording_find(const recording *r, long step, int layer, unsigned kind) {
    if (step < 0 || step > UINT32_MAX) return NULL;
    return golden_find(r->gf, (uint32_t)step, layer, kind);
}

void recording_free(recording *r) {
    if (!r) return;
    golden_file_free(r->gf);
    free(r->steps);
    free(r);
}

/* A provenance number in [lo, hi]; LS_EFORMAT naming the key otherwise. */
static int prov_long(const recording *r, const char *key, long lo, long hi, long *out) {
    const char *v = golden_provenance_get(r->gf, key);
    if (!v) return ls_err(LS_EFORMAT, "%s: provenance lacks %s: not a complete recording", r->path, key);
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || end == v || x < lo || x > hi)
        return ls_err(LS_EFORMAT, "%s: provenance %s = \"%s\": want an integer in %ld..%ld", r->path, key, v, lo, hi);
    *out = (long)x;
    return 0;
}

int recording_open(recording **out, const char *path) {
    *out = NULL;
    recording *r = ls_calloc(1, sizeof *r);
    if (!r) return LS_ENOMEM;
    snprintf(r->path, sizeof r->path, "%s", path);
    int rc = golden_read(&r->gf, path);
    if (rc) goto fail;
    const char *kind = golden_provenance_get(r->gf, "kind");
    if (!kind || strcmp(kind, "recording") != 0) {
        rc = ls_err(LS_EFORMAT, "%s: not a recording (provenance kind is %s%s%s; a golden file is checked with "
                    "`lockstep golden check`)", path, kind ? "\"" : "absent", kind ? kind : "", kind ? "\"" : "");
        goto fail;
    }
    long v;
    if ((rc = prov_long(r, "plan.epochs", 1, 64, &v))) goto fail;
    r->epochs = (int)v;
    if ((rc = prov_long(r, "batch", 1, 65536, &v))) goto fail;
    r->batch = (size_t)v;
    if ((rc = prov_long(r, "limit_train", 1, 1000000000, &v))) goto fail;
    r->limit_train = (size_t)v;
    if ((rc = prov_long(r, "limit_test", 1, 1000000000, &v))) goto fail;
    r->limit_test = (size_t)v;
    if ((rc = prov_long(r, "plan.total_steps", 1, 100000000, &r->total_steps))) goto fail;
    if ((rc = prov_long(r, "plan.audit_every", 0, 100000000, &r->audit_every))) goto fail;
    if ((rc = prov_long(r, "plan.ref_steps", 0, 100000000, &r->ref_steps))) goto fail;
    const char *sd = golden_provenance_get(r->gf, "seed");
    if (!sd || !*sd) {
        rc = ls_err(LS_EFORMAT, "%s: provenance lacks seed: not a complete recording", path);
        goto fail;
    }
    r->seed = strtoull(sd, NULL, 10);
    const char *fs = golden_provenance_get(r->gf, "plan.full_steps");
    snprintf(r->full_steps, sizeof r->full_steps, "%s", fs ? fs : "?");

    /* the per-step index: every step 1..total has its STEP record, and a
     * step said to be full has its tensors */
    r->steps = ls_calloc((size_t)r->total_steps + 1, sizeof *r->steps);
    if (!r->steps) {
        rc = LS_ENOMEM;
        goto fail;
    }
    for (long k = 1; k <= r->total_steps; k++) {
        const golden_record *g = recording_find(r, k, -1, GOLDEN_KIND_STEP);
        if (!g || g->count != STEP_FIELDS) {
            rc = ls_err(LS_EFORMAT, "%s: step %ld has no step record (loss, digests): truncated or not a recording",
                        path, k);
            goto fail;
        }
        recording_step *s = &r->steps[k];
        s->loss = g->values[0];
        s->params_l2 = g->values[1];
        float nb = g->values[10], ep = g->values[11];
        if (digest_get(g->values + 2, &s->params_digest) || digest_get(g->values + 6, &s->batch_digest) ||
            !(nb >= 1 && nb <= (float)r->batch) || !(ep >= 0 && ep < (float)r->epochs)) {
            rc = ls_err(LS_EFORMAT, "%s: step %ld: malformed step record", path, k);
            goto fail;
        }
        s->batch = (size_t)nb;
        s->epoch = (int)ep;
        s->full = recording_is_full_step(k, r->total_steps, r->ref_steps, r->audit_every);
        if (s->full && (!recording_find(r, k, -1, TENSOR_PARAMS) || !recording_find(r, k - 1, -1, TENSOR_PARAMS) ||
                        !recording_find(r, k, -1, TENSOR_GRADS) || !recording_find(r, k, -1, GOLDEN_KIND_LABELS))) {
            rc = ls_err(LS_EFORMAT, "%s: step %ld is a fully recorded step of the plan, but its tensors are missing",
                        path, k);
            goto fail;
        }
    }
    /* epochs reached: all of the plan's, or fewer when --steps cut it short */
    r->epochs_run = r->steps[r->total_steps].epoch + 1;
    for (int e = 0; e < r->epochs; e++) r->ep[e].end_step = -1;
    for (size_t i = 0; i < r->gf->n_records; i++) {
        const golden_record *g = &r->gf->records[i];
        if (g->kind == GOLDEN_KIND_EPOCH && g->count == EPOCH_FIELDS) {
            float e = g->values[0];
            if (!(e >= 0 && e < (float)r->epochs)) continue;
            recording_epoch *re = &r->ep[(int)e];
            re->end_step = g->step;
            re->train_s = g->values[1];
            re->images = (size_t)g->values[2];
            re->test_acc = g->values[3];
            re->test_loss = g->values[4];
        } else if (g->kind == GOLDEN_KIND_TIMING && g->count >= 6 && (g->count - 6) % 4 == 0 &&
                   (g->count - 6) / 4 <= MODEL_MAX_LAYERS) {
            size_t L = (g->count - 6) / 4;
            for (size_t l = 0; l < L; l++) {
                r->timing.layer_s[l][DIR_FWD] = g->values[4 * l];
                r->timing.layer_calls[l][DIR_FWD] = (long)g->values[4 * l + 1];
                r->timing.layer_s[l][DIR_BWD] = g->values[4 * l + 2];
                r->timing.layer_calls[l][DIR_BWD] = (long)g->values[4 * l + 3];
            }
            const float *t = g->values + 4 * L;
            r->timing.loss_s = t[0];
            r->timing.update_s = t[1];
            r->timing.set_batch_s = t[2];
            r->timing.get_s = t[3];
            r->timing.set_s = t[4];
            r->peak_rss = (size_t)((double)t[5] * 1048576.0);
            r->has_timing = 1;
        }
    }
    for (int e = 0; e < r->epochs_run; e++)
        if (r->ep[e].end_step < 0) {
            rc = ls_err(LS_EFORMAT, "%s: epoch %d has no epoch record: truncated or not a recording", path, e + 1);
            goto fail;
        }
    *out = r;
    return 0;
fail:
    recording_free(r);
    return rc;
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
    return ls_err(LS_EINVAL, "recorded:%s: recorded with %s %s, this run has %s %s (field: %s)", r->path, field, was,
                  field, now, field);
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
    return 0;
}

int recording_eval(const recording *r, int ep, const idx_set *test, size_t limit, eval_result *out) {
    memset(out, 0, sizeof *out);
    size_t n = limit && limit < test->n ? limit : test->n;
    if (ep < 0 || ep >= r->epochs_run) return ls_err(LS_EINVAL, "recorded:%s: no epoch %d", r->path, ep + 1);
    const golden_record *g = recording_find(r, r->ep[ep].end_step, -1, GOLDEN_KIND_LOGITS);
    if (!g || g->ndim != 2 || g->shape[0] != n)
        return ls_err(LS_EFORMAT, "recorded:%s: epoch %d: no logits for the %zu test images", r->path, ep + 1, n);
    int C = (int)g->shape[1];
    out->n = n;
    out->n_classes = C;
    out->confusion = ls_calloc((size_t)C * C, sizeof *out->confusion);
    out->pred = ls_calloc(n ? n : 1, 1);
    if (!out->confusion || !out->pred) {
        eval_result_free(out);
        return LS_ENOMEM;
    }
    /* eval_engine's arithmetic, line for line, on the recorded logits */
    double loss_sum = 0;
    size_t correct = 0;
    for (size_t i = 0; i < n; i++) {
        const float *z = g->values + i * C;
        int y = test->labels[i];
        if (y < 0 || y >= C) {
            eval_result_free(out);
            return ls_err(LS_EINVAL, "%s: label %d of test image %zu outside 0..%d", test->labels_path, y, i, C - 1);
        }
        int best = 0;
        double mx = z[0];
        for (int j = 1; j < C; j++)
            if (z[j] > z[best]) best = j;
        for (int j = 1; j < C; j++) mx = z[j] > mx ? z[j] : mx;
        double se = 0;
        for (int j = 0; j < C; j++) se += exp((double)z[j] - mx);
        loss_sum += log(se) + mx - (double)z[y];
        out->pred[i] = (uint8_t)best;
        out->confusion[(size_t)y * C + best]++;
        correct += best == y;
    }
    out->loss = loss_sum / (double)n;
    out->accuracy = (double)correct / (double)n;
    return 0;
}

/* ---- writing: `lockstep record` ------------------------------------------- */

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
            digest_put(sv + 2, recording_digest(R.buf, m.n_params * sizeof *R.buf, 0));
            digest_put(sv + 6, recording_batch_digest(x, y, nb, in));
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
