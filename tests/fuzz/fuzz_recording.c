/*
 * fuzz_recording.c — a recording's contents as data (recording.h:
 * recording_open, then recording_validate against the model it names),
 * structure-aware: the input is an edit script and a recording, the
 * harness applies the edits to the decoded records and writes the file
 * again with golden.c's writer, so every CRC, length and count is valid
 * and the mutations reach the semantic checks (fuzz_golden sees damaged
 * containers; this one sees well-formed files with impossible contents).
 * See fuzz.h.
 *
 * Input: [n u8][n edits of 12 bytes][a recording file].  An edit:
 *   op u8, aux u8, record u16 (mod the record count), pos u32, value f32.
 *   op % 10: 0 set value[pos % count] = value; 1 the same with NaN, +Inf,
 *   -Inf or -value (aux % 4); 2 step = pos % (steps + 3); 3 layer =
 *   pos % 8 - 1; 4 kind = one of the kinds (pos); 5 shape[0] = pos %
 *   (shape[0] + 1); 6 the record written twice; 7 the record dropped;
 *   8 a 1-D record made 2-D (1, n); 9 a provenance key (aux) set to the
 *   number pos.
 * The model is built from the recording's own model.spec.  ok-* seeds are
 * untouched recordings (no edit): they must validate.
 *
 * libFuzzer's mutations go to the edit script only (LLVMFuzzerCustomMutator
 * below): mutating the 68 KB recording itself would almost always break its
 * container, which fuzz_golden already covers, and never reach the checks
 * of contents this target is for.  The corpus has a seed with 16 edits so
 * that -max_len leaves room for a full script.
 */
#include "fuzz.h"

#include <math.h>
#include <string.h>

#include "engines/recorded.h"
#include "formats/golden.h"
#include "formats/recording.h"
#include "model/model.h"

enum { EDIT_BYTES = 12, MAX_EDITS = 16 };

typedef struct {
    uint8_t op, aux;
    uint16_t rec;
    uint32_t pos;
    float value;
} edit;

static const unsigned KINDS[] = {TENSOR_INPUT,        TENSOR_ACT,          TENSOR_DACT,        TENSOR_PARAMS,
                                 TENSOR_GRADS,        TENSOR_ADAM_M,       TENSOR_ADAM_V,      TENSOR_LOSS,
                                 GOLDEN_KIND_PREDICTIONS, GOLDEN_KIND_LOGITS, GOLDEN_KIND_STEP, GOLDEN_KIND_LABELS,
                                 GOLDEN_KIND_BATCH_INDEX, GOLDEN_KIND_EPOCH, GOLDEN_KIND_TIMING, GOLDEN_KIND_CK_STEP,
                                 GOLDEN_KIND_CK_UPDATE, GOLDEN_KIND_CK_EVAL, 99};
static const char *const KEYS[] = {"steps", "plan.total_steps", "plan.epochs", "batch", "limit_train",
                                   "limit_test", "plan.audit_every", "plan.ref_steps"};

/* Apply the edits for record i; returns how many copies to write (0..2). */
static int apply(const edit *ed, int n_ed, size_t i, size_t n_rec, golden_record *r, float *v) {
    int copies = 1;
    for (int k = 0; k < n_ed; k++) {
        const edit *e = &ed[k];
        if (e->op % 10 == 9 || (size_t)e->rec % n_rec != i) continue;
        switch (e->op % 10) {
        case 0:
            if (r->count) v[e->pos % r->count] = e->value;
            break;
        case 1: {
            const float s[4] = {NAN, INFINITY, -INFINITY, -e->value};
            if (r->count) v[e->pos % r->count] = s[e->aux % 4];
            break;
        }
        case 2: r->step = e->pos % 16; break;
        case 3: r->layer = (int32_t)(e->pos % 8) - 1; break;
        case 4: r->kind = KINDS[e->pos % (sizeof KINDS / sizeof *KINDS)]; break;
        case 5:
            if (r->ndim > 0) r->shape[0] = e->pos % (r->shape[0] + 1);
            break;
        case 6: copies = 2; break;
        case 7: copies = 0; break;
        case 8:
            if (r->ndim == 1) {
                r->ndim = 2;
                r->shape[1] = r->shape[0];
                r->shape[0] = 1;
            }
            break;
        }
    }
    return copies;
}

static int rewrite(const golden_file *gf, const edit *ed, int n_ed, const char *to) {
    golden_prov prov;
    golden_prov_init(&prov);
    int rc = 0;
    for (size_t i = 0; i < gf->prov.n && !rc; i++) rc = golden_prov_set(&prov, gf->prov.key[i], gf->prov.val[i]);
    for (int k = 0; k < n_ed && !rc; k++)
        if (ed[k].op % 10 == 9) {
            char num[32];
            snprintf(num, sizeof num, "%u", (unsigned)(ed[k].pos % 1000));
            rc = golden_prov_set(&prov, KEYS[ed[k].aux % (sizeof KEYS / sizeof *KEYS)], num);
        }
    golden_writer *w = NULL;
    if (!rc) rc = golden_writer_open(&w, to, &prov);
    golden_prov_free(&prov);
    if (rc) return rc;
    float *v = NULL;
    for (size_t i = 0; i < gf->n_records && !rc; i++) {
        golden_record r = gf->records[i];
        float *nv = realloc(v, (r.count ? r.count : 1) * sizeof *v);
        if (!nv) {
            rc = LS_ENOMEM;
            break;
        }
        v = nv;
        memcpy(v, r.values, r.count * sizeof *v);
        size_t count = r.count;
        int copies = apply(ed, n_ed, i, gf->n_records, &r, v);
        size_t want = 1;
        for (int d = 0; d < r.ndim; d++) want *= r.shape[d];
        if (want > count) continue; /* a shape larger than the values held: not a rewrite of this file */
        for (int c = 0; c < copies && !rc; c++)
            rc = golden_writer_add(w, r.step, r.layer, r.kind, r.name, r.ndim, r.shape, v);
    }
    free(v);
    int crc = golden_writer_close(w, rc == 0);
    return rc ? rc : crc;
}

/* libFuzzer's own mutator; weak, so the replay build (gcc, no libFuzzer)
 * links without it: it never calls the custom mutator. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    (void)seed;
    if (!LLVMFuzzerMutate) return size;
    size_t script = size ? 1 + (size_t)(data[0] % (MAX_EDITS + 1)) * EDIT_BYTES : 0;
    if (script == 0 || size < script) return LLVMFuzzerMutate(data, size, max_size);
    uint8_t s[1 + MAX_EDITS * EDIT_BYTES];
    memcpy(s, data, script);
    size_t ns = LLVMFuzzerMutate(s, script, sizeof s);
    size_t sl = 1 + (size_t)(s[0] % (MAX_EDITS + 1)) * EDIT_BYTES;
    if (ns < sl) memset(s + ns, 0, sl - ns);
    size_t rest = size - script;
    if (sl + rest > max_size) return size; /* no room: this round leaves the input as it was */
    memmove(data + sl, data + script, rest);
    memcpy(data, s, sl);
    return sl + rest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char out[64];
    if (!out[0]) snprintf(out, sizeof out, "/tmp/lockstep-fuzz-rec-%ld.lsr", (long)getpid());
    if (size < 1) return 0;
    int n_ed = data[0] % (MAX_EDITS + 1);
    if (size < 1 + (size_t)n_ed * EDIT_BYTES) return 0;
    edit ed[MAX_EDITS];
    for (int k = 0; k < n_ed; k++) {
        const uint8_t *p = data + 1 + k * EDIT_BYTES;
        ed[k].op = p[0];
        ed[k].aux = p[1];
        memcpy(&ed[k].rec, p + 2, 2);
        memcpy(&ed[k].pos, p + 4, 4);
        memcpy(&ed[k].value, p + 8, 4);
    }
    size_t off = 1 + (size_t)n_ed * EDIT_BYTES;
    golden_file *gf = NULL;
    fuzz_last_rc = golden_read(&gf, fuzz_path(0, data + off, size - off));
    if (fuzz_last_rc) return 0;
    const char *spec = golden_provenance_get(gf, "model.spec");
    model m;
    if (gf->n_records == 0 || !spec || (fuzz_last_rc = model_parse_spec(&m, spec, "fuzz")) != 0 ||
        (fuzz_last_rc = rewrite(gf, ed, n_ed, out)) != 0) {
        if (!fuzz_last_rc) fuzz_last_rc = LS_EFORMAT;
        golden_file_free(gf);
        return 0;
    }
    golden_file_free(gf);
    recording *r = NULL;
    fuzz_last_rc = recording_open(&r, out);
    if (!fuzz_last_rc) fuzz_last_rc = recording_validate(r, &m, recording_ck_geom_of);
    if (!fuzz_last_rc) {
        /* what the audit reads afterwards: every step record, every epoch,
         * every checksum vector unpacked into its layout */
        volatile double sink = 0;
        for (long k = 1; k <= r->total_steps; k++) sink += r->steps[k].loss + (double)r->steps[k].batch;
        for (size_t i = 0; i < r->gf->n_records; i++) {
            const golden_record *g = &r->gf->records[i];
            if (g->kind < GOLDEN_KIND_CK_STEP || g->kind > GOLDEN_KIND_CK_EVAL) continue;
            recording_ck_geom G;
            recording_ck_geom_of(&m, (size_t)g->values[1], &G);
            G.ext = r->ck_ext;
            double *vec = malloc(G.total * sizeof *vec);
            if (!vec) break;
            recording_ck_unpack(&G, &m, (int)g->values[0], g->values, vec);
            sink += vec[G.total - 1];
            free(vec);
        }
        for (int e = 0; e < r->epochs_run; e++) sink += r->ep[e].train_s;
        (void)sink;
    }
    recording_free(r);
    unlink(out);
    return 0;
}
