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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>


enum { STEP_FIELDS = 12, EPOCH_FIELDS = 5 }; /* as commands/record.c writes them */

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

void recording_digest_put(float *v, uint64_t d) {
    for (int i = 0; i < 4; i++) v[i] = (float)((d >> (16 * i)) & 0xffffu);
}

int recording_digest_get(const float *v, uint64_t *d) {
    *d = 0;
    for (int i = 0; i < 4; i++) {
        if (!(v[i] >= 0 && v[i] <= 65535 && v[i] == floorf(v[i]))) return -1;
        *d |= (uint64_t)v[i] << (16 * i);
    }
    return 0;
}

/* ---- checksum vectors, packed (recording.h says why each rounding) ------- */

/* Rounded to fp32 away from zero / downwards (toward -inf).  NaN stays NaN;
 * beyond fp32's range: away gives +-inf, down gives -inf or FLT_MAX. */
static float f32_away(double d) {
    float f = (float)d;
    if (fabs((double)f) < fabs(d)) f = nextafterf(f, d > 0 ? INFINITY : -INFINITY);
    return f;
}

static float f32_down(double d) {
    float f = (float)d;
    if ((double)f > d) f = nextafterf(f, -INFINITY);
    return f;
}

/* The doubles a stage stores between the header and DIGEST: [lo, hi). */
static void ck_body(const recording_ck_geom *g, int stage, size_t *lo, size_t *hi) {
    *lo = stage == REC_CK_UPDATE ? g->adam_off : 3;
    *hi = stage == REC_CK_STEP ? g->adam_off : stage == REC_CK_UPDATE ? g->digest_off : g->loss_off;
}

/* INPUT and the relation blocks after it: stored for STEP and EVAL when
 * the recording holds them (UPDATE fills none of them), up to ext_end. */
static int ck_ext_on(const recording_ck_geom *g, int stage) { return g->ext && stage != REC_CK_UPDATE; }
static size_t ext_end(const recording_ck_geom *g) {
    return g->ext >= 7   ? g->total
           : g->ext == 6 ? g->wrnd_off
           : g->ext == 5 ? g->dpeek_off
           : g->ext == 4 ? g->peek_off
           : g->ext == 3 ? g->rnd_off
           : g->ext == 2 ? g->z_off
                         : g->ra_off;
}
/* the phases after INPUT a recording of this level stores */
static int ext_nphase(const recording_ck_geom *g) {
    return g->ext >= 7   ? REC_CK_NPHASE_ALL
           : g->ext == 6 ? REC_CK_NPHASE_D
           : g->ext == 5 ? REC_CK_NPHASE_P
           : g->ext == 4 ? REC_CK_NPHASE_R
           : g->ext == 3 ? REC_CK_NPHASE_Z
           : g->ext == 2 ? REC_CK_NPHASE_ALT
                         : REC_CK_NPHASE_EXT;
}

size_t recording_ck_packed_len(const recording_ck_geom *g, const model *m, int stage) {
    size_t lo, hi;
    ck_body(g, stage, &lo, &hi);
    size_t len = 3 + (hi - lo) + 12 * (size_t)m->n_tensors;
    if (ck_ext_on(g, stage)) len += 4 + (ext_end(g) - g->input_off - 1);
    return len;
}

/* What a double slot of the vector is, for its rounding. */
enum { SLOT_R, SLOT_AY, SLOT_UP, SLOT_EXACT };

static int slot_class(const recording_ck_geom *g, const model *m, size_t i) {
    if (i >= g->loss_off) return i < g->adam_off ? SLOT_EXACT : SLOT_UP; /* LOSS; ADAM count, largest |diff| */
    for (int l = 0; l < m->n_layers; l++)
        for (int ph = 0; ph < REC_CK_NPHASE; ph++) {
            size_t per = g->is_rel[l] ? (size_t)g->rel_width : 2, o = g->off[l][ph];
            if (i >= o && i < o + per * g->cnt[l][ph])
                return !g->is_rel[l] ? SLOT_UP : (i - o) % per == 0 ? SLOT_R : SLOT_AY; /* A, Y, S: down */
        }
    return SLOT_UP;
}

int recording_ck_pack(const recording_ck_geom *g, const model *m, int stage, const double *vec, float *out) {
    for (int i = 0; i < 3; i++) {
        out[i] = (float)vec[i];
        if (!((double)out[i] == vec[i] && vec[i] >= 0 && vec[i] < 0x1p24))
            return ls_err(LS_EINVAL, "checksum vector header value %d is %.17g: want an integer in 0..2^24", i, vec[i]);
    }
    size_t lo, hi, k = 3;
    ck_body(g, stage, &lo, &hi);
    for (size_t i = lo; i < hi; i++, k++) {
        double d = vec[i];
        switch (slot_class(g, m, i)) {
        case SLOT_R: out[k] = f32_away(d); break;
        case SLOT_AY: out[k] = f32_down(d); break;
        case SLOT_UP: out[k] = f32_away(d); break;
        default:
            out[k] = (float)d;
            if ((double)out[k] != d && d == d)
                return ls_err(LS_EINVAL, "checksum vector slot %zu (loss block) is %.17g, not an fp32 number: it "
                              "cannot be stored exactly (record --no-checksums)", i, d);
        }
    }
    for (size_t t = 0; t < 3 * (size_t)m->n_tensors; t++, k += 4) {
        uint64_t u;
        memcpy(&u, &vec[g->digest_off + t], sizeof u); /* ck_put_u64's bits */
        recording_digest_put(out + k, u);
    }
    if (!ck_ext_on(g, stage)) return 0;
    uint64_t u;
    memcpy(&u, &vec[g->input_off], sizeof u);
    recording_digest_put(out + k, u);
    k += 4;
    /* relations only, block after block as they lie: R away, A, Y, S down */
    size_t base = g->input_off + 1;
    for (size_t i = base; i < ext_end(g); i++) out[k + i - base] = f32_down(vec[i]);
    for (int l = 0; l < m->n_layers; l++)
        for (int ph = REC_CK_NPHASE; ph < ext_nphase(g); ph++)
            for (size_t e = 0; e < g->cnt[l][ph]; e++) {
                size_t i = g->off[l][ph] + (size_t)g->rel_width * e;
                out[k + i - base] = f32_away(vec[i]);
            }
    return 0;
}

void recording_ck_unpack(const recording_ck_geom *g, const model *m, int stage, const float *in, double *vec) {
    memset(vec, 0, g->total * sizeof *vec);
    for (int i = 0; i < 3; i++) vec[i] = in[i];
    size_t lo, hi, k = 3;
    ck_body(g, stage, &lo, &hi);
    for (size_t i = lo; i < hi; i++) vec[i] = in[k++];
    for (size_t t = 0; t < 3 * (size_t)m->n_tensors; t++, k += 4) {
        uint64_t u = 0;
        recording_digest_get(in + k, &u); /* validated: four 16-bit integers */
        memcpy(&vec[g->digest_off + t], &u, sizeof u);
    }
    if (!ck_ext_on(g, stage)) return;
    uint64_t u = 0;
    recording_digest_get(in + k, &u);
    memcpy(&vec[g->input_off], &u, sizeof u);
    k += 4;
    for (size_t i = g->input_off + 1; i < ext_end(g); i++) vec[i] = in[k++];
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

/* A recorded count as an integer: a value out of range (negative, NaN,
 * 1e30) converted directly would be undefined behaviour; it becomes 0 here
 * and recording_validate refuses the record, naming it. */
static double as_count(float x) { return x >= 0 && x < 1e15f ? (double)x : 0; }

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
    /* digits only, as record writes it: "abc" read as 0 ("recorded with
     * seed 0", "--seed 0"), "42abc" as 42, "-1" as 2^64-1 */
    char *end;
    errno = 0;
    r->seed = strtoull(sd, &end, 10);
    if (*sd < '0' || *sd > '9' || *end || errno) {
        rc = ls_err(LS_EFORMAT, "%s: provenance seed = \"%s\": want an integer in 0..%llu (field: seed)", path, sd,
                    (unsigned long long)UINT64_MAX);
        goto fail;
    }
    const char *fs = golden_provenance_get(r->gf, "plan.full_steps");
    snprintf(r->full_steps, sizeof r->full_steps, "%s", fs ? fs : "?");
    /* absent (an older recording) or "none (...)": no checksum vectors */
    const char *ck = golden_provenance_get(r->gf, "plan.checksums");
    r->ck_ext = !ck ? 0 : strcmp(ck, "step,update,eval,all-blocks,alt,zero,rand,peek,dpeek,wrnd") == 0 ? 7
                : strcmp(ck, "step,update,eval,all-blocks,alt,zero,rand,peek,dpeek") == 0 ? 6
                : strcmp(ck, "step,update,eval,all-blocks,alt,zero,rand,peek") == 0 ? 5
                : strcmp(ck, "step,update,eval,all-blocks,alt,zero,rand") == 0 ? 4
                : strcmp(ck, "step,update,eval,all-blocks,alt,zero") == 0      ? 3
                : strcmp(ck, "step,update,eval,all-blocks,alt") == 0           ? 2
                : strcmp(ck, "step,update,eval,all-blocks") == 0                ? 1
                                                                               : 0;
    r->has_checksums = r->ck_ext || (ck && strcmp(ck, "step,update,eval") == 0);

    /* the per-step index: every step 1..total has its STEP record, and a
     * step said to be full has its tensors; a step record each, so no
     * more steps than records (1e8 from a small file was "out of memory
     * allocating 100000001 x 48 bytes" under a memory limit, naming nothing) */
    if ((size_t)r->total_steps > r->gf->n_records) {
        rc = ls_err(LS_EFORMAT, "%s: provenance plan.total_steps = %ld, but the file holds %zu records (a step record "
                    "per step): truncated or not a recording (field: plan.total_steps)", path, r->total_steps,
                    r->gf->n_records);
        goto fail;
    }
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
        /* whole numbers in range (an epoch 0.5 was cut to 0 and passed) */
        int bad_nb = !(nb >= 1 && nb <= (float)r->batch && nb == floorf(nb));
        int bad_ep = !(ep >= 0 && ep < (float)r->epochs && ep == floorf(ep));
        const char *field = recording_digest_get(g->values + 2, &s->params_digest) ? "params_digest"
                            : recording_digest_get(g->values + 6, &s->batch_digest) ? "batch_digest"
                            : bad_nb ? "batch" : bad_ep ? "epoch" : NULL;
        if (field) {
            char val[48] = "";
            if (strcmp(field, "batch") == 0 || strcmp(field, "epoch") == 0)
                snprintf(val, sizeof val, " %.9g", (double)(field[0] == 'b' ? nb : ep));
            rc = ls_err(LS_EFORMAT, "%s: step %ld step: malformed step record: %s%s (field: %s)", path, k, field, val,
                        field);
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
            re->images = (size_t)as_count(g->values[2]);
            re->test_acc = g->values[3];
            re->test_loss = g->values[4];
        } else if (g->kind == GOLDEN_KIND_TIMING && g->count >= 6 && (g->count - 6) % 4 == 0 &&
                   (g->count - 6) / 4 <= MODEL_MAX_LAYERS) {
            size_t L = (g->count - 6) / 4;
            for (size_t l = 0; l < L; l++) {
                r->timing.layer_s[l][DIR_FWD] = g->values[4 * l];
                r->timing.layer_calls[l][DIR_FWD] = (long)as_count(g->values[4 * l + 1]);
                r->timing.layer_s[l][DIR_BWD] = g->values[4 * l + 2];
                r->timing.layer_calls[l][DIR_BWD] = (long)as_count(g->values[4 * l + 3]);
            }
            const float *t = g->values + 4 * L;
            r->timing.loss_s = t[0];
            r->timing.update_s = t[1];
            r->timing.set_batch_s = t[2];
            r->timing.get_s = t[3];
            r->timing.set_s = t[4];
            /* MiB; beyond 2^40 (refused by recording_validate) its bytes could pass size_t: not converted */
            r->peak_rss = as_count(t[5]) <= 0x1p40 ? (size_t)(as_count(t[5]) * 1048576.0) : 0;
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


/* ---- writing: `lockstep record` ------------------------------------------- */
