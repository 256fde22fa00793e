/*
 * audit/driver.c — the audit driver.  See audit/audit.h for the modes and the
 * schedule.  Engines are called one at a time, layer by layer, so their
 * timings do not compete for the cores; each runs in its own process.
 *
 * Comparison direction: in every pair the reference side `a` is the MPFR
 * engine when one of the two is (its double read-out is compared with
 * compare_f64), else the engine listed first.  Bounds (compare.h) are
 * computed only in isolated mode, where every engine consumed the same fp32
 * inputs, and only for pairs whose reference side is an MPFR engine; they
 * are the a-priori bound of an fp32 evaluation in any order of the exact
 * result from those inputs.  Layers whose fp32 result is exact (ReLU,
 * max-pool, flatten) get a bound of 0: any error there is infinitely over.
 */
#include "audit/audit.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "checks/bounds.h"
#include "checks/decisions.h"
#include "checks/rounding_tests.h"
#include "audit/every_step.h"
#include "audit/explain.h"
#include "audit/seeds.h"
#include "engines/recorded.h"
#include "engines/remote.h"
#include "formats/order.h"
#include "base/rng.h"
#include "formats/safetensors.h"
#include "engines/registry.h"

#include <sched.h>

/* The threads each engine process gives its every-step checks: the driver
 * has every cpu engine compute them at once (remote_checksums_send), so
 * they share the cores the audit may use; one engine alone takes all
 * (0).  Oversubscribed, each of the checks' parallel regions waits at its
 * barrier for a time slice (measured: a 1-epoch audit of cpu,
 * cpu:threads=1 spent 27 s with 2 check threads each, see tests/EVIDENCE.md,
 * "Cost"). */
static int host_ck_threads(const audit_result *r) {
    int n = 0;
    for (int i = 0; i < r->n_engines; i++) {
        engine_spec sp;
        n += !r->eng[i].recorded && engine_spec_parse(&sp, r->eng[i].spec) == 0 && strcmp(sp.name, "cpu") == 0;
    }
    cpu_set_t cs;
    int cpus = sched_getaffinity(0, sizeof cs, &cs) == 0 ? CPU_COUNT(&cs) : 1;
    return n > 1 ? (cpus / n > 1 ? cpus / n : 1) : 0;
}

const char *lockstep_mode_name(lockstep_mode m) {
    return m == MODE_SYNC ? "sync" : m == MODE_ISOLATED ? "isolated" : "free";
}

int lockstep_mode_parse(const char *s, lockstep_mode *out) {
    if (strcmp(s, "free") == 0) *out = MODE_FREE;
    else if (strcmp(s, "sync") == 0) *out = MODE_SYNC;
    else if (strcmp(s, "isolated") == 0) *out = MODE_ISOLATED;
    else return ls_err(LS_EINVAL, "unknown mode '%s' (free, sync, isolated)", s);
    return LS_OK;
}

int audit_fail_on_parse(const char *s, unsigned *out) {
    char buf[128];
    if (strlen(s) >= sizeof buf) return ls_err(LS_EINVAL, "--fail-on: value too long");
    int rc = ls_check_list("--fail-on", "condition", s);
    if (rc) return rc;
    snprintf(buf, sizeof buf, "%s", s);
    unsigned bits = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "problem") == 0) bits |= AUDIT_FAIL_PROBLEM;
        else if (strcmp(t, "unchecked") == 0) bits |= AUDIT_FAIL_UNCHECKED;
        else if (strcmp(t, "nondeterminism") == 0) bits |= AUDIT_FAIL_NONDET;
        else if (strcmp(t, "incomplete") == 0) bits |= AUDIT_FAIL_INCOMPLETE;
        else if (strcmp(t, "suspect") == 0) bits |= AUDIT_FAIL_SUSPECT;
        else if (strcmp(t, "none") == 0) bits = 0;
        else
            return ls_err(LS_EINVAL,
                          "--fail-on: unknown condition '%s' (problem, unchecked, nondeterminism, incomplete, suspect, none)", t);
    }
    *out = bits;
    return LS_OK;
}

void audit_cfg_default(audit_cfg *c) {
    memset(c, 0, sizeof *c);
    run_cfg_default(&c->run);
    c->engines = "reference,cpu,cpu:threads=1,cuda";
    c->mode = MODE_FREE;
    c->ref_steps = 2;
    c->audit_every = 50;
    c->repeat = 1;
    c->eval = 1;
    c->roundtrip = 1;
    c->checksums = 1;
    c->complete_every = 1;
    c->out = stdout;
}

enum { PH_FWD, PH_LOSS, PH_BWD, PH_UPD };
static const char *const PHASE_NAME[] = {"forward", "loss", "backward", "update"};

typedef struct {
    tensor_kind kind;
    int layer;       /* for ACT/DACT */
    size_t off, len; /* slice of a flat buffer (params/grads/m/v); len 0: whole tensor */
    int exact;       /* a forward EXACT rule (bounds.h): the bits must match, the sign of a zero included */
    bound_rule rule; /* the rule that covers it (bounds_rule_of) */
    int ridx;        /* the index bounds_rule_of / bounds_K_of take: the layer, or the model tensor */
} slot_def;

typedef struct {
    audit_cfg cfg;
    model m;
    dataset ds;
    audit_result *r;
    engine *e[AUDIT_MAX_ENGINES];
    int active[AUDIT_MAX_ENGINES];
    float *fb[AUDIT_MAX_ENGINES];  /* per-engine fetched tensor (fp32) */
    double *db[AUDIT_MAX_ENGINES]; /* per reference engine: the double read-out */
    float *lead;                   /* the leader's tensor rounded to fp32 */
    float *pf;                     /* the leader's parameters (rounded) this step */
    float *x;                      /* the batch */
    int32_t *y;
    double *bound, *bound2;
    size_t maxf;
    slot_def slot[AUDIT_MAX_SLOTS];
    int slot_act[MODEL_MAX_LAYERS], slot_dact[MODEL_MAX_LAYERS], slot_loss;
    int slot_grad[MODEL_MAX_TENSORS], slot_param[MODEL_MAX_TENSORS], slot_m[MODEL_MAX_TENSORS],
        slot_v[MODEL_MAX_TENSORS];
    gzFile jsonl;   /* steps.jsonl.gz: gzip (a JSON line is ~90% repeated keys; 12.5 MB -> ~1 MB) */
    int jsonl_fd;   /* its descriptor, for fsync before the rename */
    char jsonl_path[1024], jsonl_tmp[1100];
    lsbuf line;
    long step;
    int epoch;
    int shadow_src; /* in a shadow step: the engine the references were set from, else -1 */
    double t_compare;
    double t_checks; /* the every-step checks' wall time (all engines at once): steps and evaluation */
    float losses[AUDIT_MAX_ENGINES]; /* this step's losses as the engines reported them (step_once): the STEP
                                      * stage ties each to its vector's */
    double t_sharp;  /* of t_compare: the sharper tier (sharp_check) */
    int died;       /* an engine's process died during this step: the step is abandoned */
    int write_errno; /* first write error on steps.jsonl (the run stops at the step's end) */
    lockstep_mode mode_now; /* isolated in the attribution phase, else cfg.mode */
    int in_attr;            /* in the attribution phase */
    int in_eval;            /* in an epoch's evaluation (after step `step`) */
    int bounded_step;       /* this step's comparisons with a reference are checks */
    int feed_src;           /* engine whose layer inputs are fed (-1: none) */
    int feed_all;           /* fed to every engine (isolated) or to the references only (shadow replay) */
    int n_shadows;          /* shadow replays so far (the source rotates over the fp32 engines) */
    int force_pick;         /* this step's shadow must start from this recording (-1: the rotation) */
    const char *plan_from;  /* the recording whose plan the audit adopted (NULL: none) */
    float *pm, *pv;         /* the fed engine's Adam state at the start of the step */
    double *ck_vec;         /* an engine's checksum vector (engines/checksums.h), + 1: its operand hash */
    double *ck_vec2;        /* a repeat's, while ck_vec holds its first listing's */
    double *bound3, *bound_tmp;
    /* fp32's range in Adam (bounds_adam_range): the elements whose fp32 v'
     * overflows this step, and what ops_adam_elem makes of p and v there */
    unsigned char *ovf;
    float *want_p, *want_v;
    size_t n_ovf;
    double *ref_tmp;        /* a reference slice with those elements replaced */
    double loss_bound;
    uint64_t *sharp_hash;   /* scratch of the sharper tier's duplicate set (rounding_tests.h), lazily */
    size_t sharp_hash_cap;
    int sharp;              /* the sharper tier runs (LOCKSTEP_SHARP=0 turns it off, to measure its cost) */
    /* per pair and decision layer: the elements of flipped decisions
     * (ReLU signs, max-pool windows) this step, for the error share of the
     * gradient they route; allocated when a flip is first seen */
    uint8_t *flipmask[AUDIT_MAX_PAIRS][MODEL_MAX_LAYERS];
    long flipmask_step[AUDIT_MAX_PAIRS][MODEL_MAX_LAYERS];
    /* the run's shape and batch order */
    size_t n_train, spe; /* training images, steps per epoch */
    long total;          /* steps of the drift phase */
    /* the state round trip (roundtrip()): per engine, its second instance
     * (NULL: none), the state it reported before the step being judged
     * (params, m, v), whether a fully compared step owes it a check, and
     * whether this step is that check */
    engine *rt_clone[AUDIT_MAX_ENGINES];
    float *rt_state[AUDIT_MAX_ENGINES];
    size_t rt_prev_nb; /* the batch size of the training step before this one (0: none yet) */
    /* zoo attack 16: the fully compared step a round trip follows, as the engine ran it: the state each engine
     * with a second instance reported before it (params, m, v), its batch, size and number (0: none kept) */
    float *rt_pstate[AUDIT_MAX_ENGINES];
    float *rt_px;
    int32_t *rt_py;
    size_t rt_pnb;
    long rt_pstep;
    /* ... and the same kept before this step (a fully compared one), which become those after its own round trip
     * is judged (two fully compared steps in a row: the round trip of the second replays the first) */
    float *rt_qstate[AUDIT_MAX_ENGINES];
    float *rt_qx;
    int32_t *rt_qy;
    size_t rt_qnb;
    long rt_qstep;
    int rt_owed[AUDIT_MAX_ENGINES], rt_now[AUDIT_MAX_ENGINES];
    uint32_t *perm;      /* this epoch's order */
    batch_order ord;
} audit;

/* Put the engine's label (and ctx, e.g. "step 5") in front of the current
 * message: "engine cpu, step 5: ...".  remote.c's own errors already name
 * the engine ("engine cpu: child process died ..."): those get only ctx,
 * never "engine cpu: engine cpu: ...". */
static int engine_err(int rc, const char *label, const char *ctx) {
    if (strncmp(ls_errmsg(), "engine ", 7) == 0) return ctx[0] ? ls_err_prefix(rc, "%s", ctx) : rc;
    return ls_err_prefix(rc, "engine %s%s%s", label, ctx[0] ? ", " : "", ctx);
}

static int alive_engines(const audit *A) {
    int n = 0, listed = 0, others = 0;
    for (int i = 0; i < A->r->n_engines; i++) {
        const audit_engine *ae = &A->r->eng[i];
        n += ae->available && !ae->failed;
        listed += ae->available && !ae->is_ref;
        others += ae->available && !ae->is_ref && !ae->failed;
    }
    /* references alone have nothing to drive in the drift phase (they run
     * at shadow steps, fed an engine's inputs): the run ends when every
     * other engine listed has died (before, it went on and broadcast from
     * no engine at all: index -1, found by UBSan) */
    return listed && !others ? 0 : n;
}

/* Engine i's call failed.  If its process is gone (remote.h), mark it
 * failed — from here on the audit goes on without it, as it does without
 * an engine that cannot run — and return 1; else 0: a real error. */
static int engine_gone(audit *A, int i) {
    audit_engine *ae = &A->r->eng[i];
    if (ae->failed) return 1;
    const char *why = A->e[i] ? remote_engine_dead(A->e[i]) : NULL;
    if (!why) return 0;
    ae->failed = 1;
    ae->failed_step = A->step;
    ae->failed_in_attr = A->in_attr;
    ae->failed_in_eval = A->in_eval;
    char when[48] = "before the first step";
    /* the phase too: attribution step 2 is not drift step 2, and a death in
     * the evaluation is after its step, not in it */
    if (A->in_eval) snprintf(when, sizeof when, "in the evaluation after step %ld", A->step);
    else if (A->step > 0) snprintf(when, sizeof when, "at %sstep %ld", A->in_attr ? "attribution " : "", A->step);
    snprintf(ae->fail_reason, sizeof ae->fail_reason, "%s %s (%s)",
             strncmp(why, "no reply", 8) == 0 ? "stopped answering" : "died", when, why);
    A->active[i] = 0;
    A->died = 1;
    A->r->n_failed++;
    if (alive_engines(A))
        fprintf(stderr, "lockstep audit: engine %s %s; going on with the other engines\n", ae->label, ae->fail_reason);
    else /* a reference alone has nothing to drive it (it runs fed an engine's inputs) */
        fprintf(stderr, "lockstep audit: engine %s %s; no engine is left to train (a reference runs only on an "
                "engine's inputs): the run stops here\n", ae->label, ae->fail_reason);
    return 1;
}

/* After a failed step: mark every engine whose process is gone; returns
 * whether any died in this step (then the step is abandoned, not the run). */
static int sweep_dead(audit *A) {
    for (int i = 0; i < A->r->n_engines; i++)
        if (A->r->eng[i].available) engine_gone(A, i);
    /* the abandoned step may have left a survivor updated or not, its
     * update's digests unrecorded: the continuity chain no longer says what
     * its next step must compute with (kept, it blamed a healthy engine:
     * "PROBLEM ... continuity: conv1.weight values this step computed with
     * are not those the last update reported").  The chain restarts at the
     * next update. */
    for (int i = 0; A->died && i < A->r->n_engines; i++)
        if (A->r->eng[i].available && !A->r->eng[i].failed) every_step_break_chain(&A->r->eng[i]);
    return A->died;
}

/* ---- setup ----------------------------------------------------------- */

static void make_clones(audit *A, const engine_opts *eo);

static int add_slot(audit *A, const char *name, int phase, tensor_kind k, int layer, size_t off, size_t len) {
    audit_result *r = A->r;
    if (r->n_slots >= AUDIT_MAX_SLOTS) return ls_err(LS_EINVAL, "model too large for the audit's slot table");
    int s = r->n_slots++;
    snprintf(r->slot_name[s], sizeof r->slot_name[s], "%s", name);
    snprintf(r->slot_phase[s], sizeof r->slot_phase[s], "%s", PHASE_NAME[phase]);
    A->slot[s] = (slot_def){k, layer, off, len, 0, bounds_rule_of(&A->m, k, layer, NULL, 0), layer};
    /* forward only: relu(x <= 0) is +0 by the rule every engine and the
     * reference follow; going backward the sign of an exact zero gradient
     * (g * 0 keeps g's sign, or a +0 written) is the library's choice and
     * carries no value */
    if (k == TENSOR_ACT) A->slot[s].exact = bounds_rule_of(&A->m, k, layer, NULL, 0) == BOUND_RULE_EXACT;
    return s;
}

static int make_slots(audit *A) {
    const model *m = &A->m;
    char nm[64];
    const char *sharp = getenv("LOCKSTEP_SHARP"); /* "0": the sharper tier off, to measure its cost */
    A->sharp = !(sharp && strcmp(sharp, "0") == 0);
    for (int l = 0; l < m->n_layers; l++) {
        snprintf(nm, sizeof nm, "%s.act", m->layers[l].name);
        if ((A->slot_act[l] = add_slot(A, nm, PH_FWD, TENSOR_ACT, l, 0, 0)) < 0) return A->slot_act[l];
    }
    if ((A->slot_loss = add_slot(A, "loss", PH_LOSS, TENSOR_LOSS, 0, 0, 0)) < 0) return A->slot_loss;
    for (int l = m->n_layers - 1; l >= 0; l--) {
        snprintf(nm, sizeof nm, "%s.dact", m->layers[l].name);
        int s = add_slot(A, nm, l == m->n_layers - 1 ? PH_LOSS : PH_BWD, TENSOR_DACT, l, 0, 0);
        if (s < 0) return s;
        A->slot_dact[l] = s;
        const layer *ly = &m->layers[l];
        if (ly->w_tensor >= 0) {
            int ts[2] = {ly->w_tensor, ly->b_tensor};
            for (int i = 0; i < 2; i++) {
                const model_tensor *t = &m->tensors[ts[i]];
                snprintf(nm, sizeof nm, "%s.grad", t->name);
                if ((A->slot_grad[ts[i]] = add_slot(A, nm, PH_BWD, TENSOR_GRADS, l, t->offset, t->numel)) < 0)
                    return -1;
                slot_def *sd = &A->slot[A->slot_grad[ts[i]]];
                sd->ridx = ts[i]; /* the rules of gradients are per model tensor */
                sd->rule = bounds_rule_of(m, TENSOR_GRADS, ts[i], NULL, 0);
            }
        }
    }
    for (int ti = 0; ti < m->n_tensors; ti++) {
        const model_tensor *t = &m->tensors[ti];
        if ((A->slot_param[ti] = add_slot(A, t->name, PH_UPD, TENSOR_PARAMS, t->layer, t->offset, t->numel)) < 0)
            return -1;
        snprintf(nm, sizeof nm, "%s.adam_m", t->name);
        if ((A->slot_m[ti] = add_slot(A, nm, PH_UPD, TENSOR_ADAM_M, t->layer, t->offset, t->numel)) < 0) return -1;
        snprintf(nm, sizeof nm, "%s.adam_v", t->name);
        if ((A->slot_v[ti] = add_slot(A, nm, PH_UPD, TENSOR_ADAM_V, t->layer, t->offset, t->numel)) < 0) return -1;
    }
    return LS_OK;
}

/* Split the engine list, expand repeats, create every engine in a child. */
static int make_engines(audit *A) {
    audit_result *r = A->r;
    char list[1024];
    if (strlen(A->cfg.engines) >= sizeof list) return ls_err(LS_EINVAL, "--engines list too long");
    snprintf(list, sizeof list, "%s", A->cfg.engines);
    char *save = NULL;
    int n_first = 0;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        if (!*tok) continue;
        for (int rep = 0; rep < A->cfg.repeat; rep++) {
            if (r->n_engines >= AUDIT_MAX_ENGINES)
                return ls_err(LS_EINVAL, "too many engines (at most %d, repeats included)", AUDIT_MAX_ENGINES);
            audit_engine *ae = &r->eng[r->n_engines];
            memset(ae, 0, sizeof *ae);
            /* a recording's spec is a path: no threads knob appended */
            ae->recorded = strncmp(tok, "recorded:", 9) == 0;
            if (ae->recorded && strlen(tok) >= sizeof ae->spec)
                return ls_err(LS_EINVAL, "engine %s: path too long (at most %zu characters)", tok, sizeof ae->spec - 10);
            /* the label is the engine's name everywhere (repeats, a sweep's map): never cut */
            if (strlen(tok) >= sizeof ae->spec)
                return ls_err(LS_EINVAL, "engine %s: spec too long (at most %zu characters)", tok, sizeof ae->spec - 1);
            if (ae->recorded) snprintf(ae->spec, sizeof ae->spec, "%s", tok);
            else spec_with_threads(ae->spec, sizeof ae->spec, tok, A->cfg.run.threads);
            if (rep == 0) snprintf(ae->label, sizeof ae->label, "%s", tok);
            else snprintf(ae->label, sizeof ae->label, "%s#%d", tok, rep + 1);
            ae->repeat_of = rep == 0 ? -1 : r->n_engines - rep;
            engine_spec sp;
            int rc = engine_spec_parse(&sp, ae->spec);
            if (rc) return rc;
            /* perturb=K is the driver's knob, not the engine's: start this
             * engine from the initial weights moved by K ulps each, in a
             * random direction — the noise floor against which a
             * difference between engines is judged */
            const char *pk = engine_spec_get(&sp, "perturb", NULL);
            const char *dk = engine_spec_get(&sp, "draw", NULL);
            if (dk && !pk) return ls_err(LS_EINVAL, "engine %s: draw=D goes with perturb=K", tok);
            if (pk) {
                char *end;
                long k = strtol(pk, &end, 10);
                if (*end || k < 1 || k > 1000000)
                    return ls_err(LS_EINVAL, "engine %s: perturb=K needs an integer K in 1..1000000 (ulps)", tok);
                ae->perturb_ulps = (int)k;
                if (dk) {
                    long d = strtol(dk, &end, 10);
                    if (*end || d < 0 || d > 1000000)
                        return ls_err(LS_EINVAL, "engine %s: draw=D needs an integer D in 0..1000000", tok);
                    ae->perturb_draw = (int)d;
                }
                char rebuilt[128];
                int n = snprintf(rebuilt, sizeof rebuilt, "%s", sp.name);
                for (int q = 0; q < sp.n_knobs; q++)
                    if (strcmp(sp.key[q], "perturb") != 0 && strcmp(sp.key[q], "draw") != 0)
                        n += snprintf(rebuilt + n, sizeof rebuilt - n, ":%s=%s", sp.key[q], sp.val[q]);
                snprintf(ae->spec, sizeof ae->spec, "%s", rebuilt);
            }
            ae->is_ref = strcmp(sp.name, "reference") == 0 || strcmp(sp.name, "ref") == 0;
            ae->ref_fp32cr = ae->is_ref && strcmp(engine_spec_get(&sp, "mode", "exact"), "fp32cr") == 0;
            /* an engine listed twice is a repeat of its first listing: run
             * to run determinism for that engine alone */
            for (int k = 0; k < r->n_engines; k++) {
                if (strcmp(r->eng[k].label, ae->label) != 0) continue;
                if (A->cfg.repeat > 1)
                    return ls_err(LS_EINVAL, "engine '%s' listed twice with --repeat 2", ae->label);
                int copies = 1;
                for (int q = 0; q < r->n_engines; q++) copies += r->eng[q].repeat_of == k;
                snprintf(ae->label, sizeof ae->label, "%s#%d", tok, copies + 1);
                ae->repeat_of = k;
                break;
            }
            r->n_engines++;
            n_first += rep == 0;
        }
    }
    if (r->n_engines == 0) return ls_err(LS_EINVAL, "--engines: no engine given");
    engine_opts eo = {A->cfg.run.seed, A->cfg.run.batch, host_ck_threads(r)};
    int n_avail = 0;
    for (int i = 0; i < r->n_engines; i++) {
        audit_engine *ae = &r->eng[i];
        if (ae->recorded && A->cfg.mode != MODE_FREE) {
            snprintf(ae->skip_reason, sizeof ae->skip_reason, "recorded: takes part in free mode only (--mode %s sets "
                     "other values into every engine, which a recording cannot follow)", lockstep_mode_name(A->cfg.mode));
            continue;
        }
        /* a recording runs in this process: it has no process-global state,
         * and the driver reads its plan, logits and timing directly */
        int rc = ae->recorded ? engine_create(&A->e[i], ae->spec, &A->m, &eo)
                              : remote_engine_create(&A->e[i], ae->spec, &A->m, &eo);
        if (rc == LS_EUNAVAIL) {
            snprintf(ae->skip_reason, sizeof ae->skip_reason, "%s", ls_errmsg());
            continue;
        }
        if (rc) return engine_err(rc, ae->label, "");
        ae->available = 1;
        ae->describe = engine_describe(A->e[i]);
        n_avail++;
    }
    make_clones(A, &eo);
    if (n_avail == 0) { /* say why: each engine's reason */
        char why[1400] = "";
        size_t n = 0;
        for (int i = 0; i < r->n_engines && n < sizeof why; i++) {
            int same = i > 0 && strcmp(r->eng[i].skip_reason, r->eng[i - 1].skip_reason) == 0;
            int w = snprintf(why + n, sizeof why - n, "%s%s: %s", i ? "; " : "", r->eng[i].label,
                             same ? "the same" : r->eng[i].skip_reason);
            if (w < 0) break;
            n += (size_t)w;
        }
        return ls_err(LS_EUNAVAIL, "no engine could run here (%s)", why);
    }
    /* pairs among available engines */
    for (int i = 0; i < r->n_engines; i++)
        for (int j = i + 1; j < r->n_engines; j++) {
            if (!r->eng[i].available || !r->eng[j].available) continue;
            audit_pair *p = &r->pair[r->n_pairs++];
            memset(p, 0, sizeof *p);
            int swap = r->eng[j].is_ref && !r->eng[i].is_ref;
            p->a = swap ? j : i;
            p->b = swap ? i : j;
            for (int k = 0; k < AUDIT_SK_N; k++) p->sharp_kind[k].max_ratio = -1;
            for (int s = 0; s < AUDIT_MAX_SLOTS; s++) {
                p->slot[s].max_bound_ratio = -1;
                p->slot[s].max_sharp_ratio = -1;
                p->slot[s].min_frac_equal = 1;
            }
        }
    return LS_OK;
}

/* ---- comparison --------------------------------------------------------- */

static int fetch(audit *A, int i, tensor_id t) {
    int rc = engine_get_tensor(A->e[i], t, A->fb[i]);
    if (!rc && A->r->eng[i].is_ref) rc = engine_get_tensor_f64(A->e[i], t, A->db[i]);
    return rc;
}

static int fetch_all(audit *A, tensor_id t) {
    for (int i = 0; i < A->r->n_engines; i++)
        if (A->active[i]) {
            int rc = fetch(A, i, t);
            if (rc) return engine_err(rc, A->r->eng[i].label, "");
        }
    return LS_OK;
}

static void json_line_begin(audit *A, const char *a, const char *b, const char *tensor, const char *phase) {
    lsbuf *l = &A->line;
    l->len = 0;
    if (l->s) l->s[0] = 0;
    lsbuf_printf(l, "{\"step\": %ld, \"epoch\": %d, \"phase_of_run\": \"%s\", \"mode\": \"%s\", \"check\": %s, "
                    "\"a\": ", A->step, A->epoch + 1, A->in_attr ? "attribution" : "drift",
                 lockstep_mode_name(A->mode_now), A->bounded_step ? "true" : "false");
    lsbuf_json_str(l, a);
    lsbuf_printf(l, ", \"b\": ");
    lsbuf_json_str(l, b);
    lsbuf_printf(l, ", \"tensor\": ");
    lsbuf_json_str(l, tensor);
    lsbuf_printf(l, ", \"phase\": \"%s\", \"stats\": ", phase);
}

static void json_line_end(audit *A) {
    lsbuf_printf(&A->line, "}\n");
    /* a full disk shows here (at a buffer flush) or at the step's fflush */
    errno = 0;
    if (A->jsonl && !A->line.failed && !A->write_errno &&
        gzwrite(A->jsonl, A->line.s, (unsigned)A->line.len) != (int)A->line.len)
        A->write_errno = errno ? errno : EIO;
    A->r->jsonl_lines++;
}

/* Whether pair p is compared this step.  In a free-mode shadow step the
 * references start from one engine's state (shadow_src): comparing them
 * with any other engine would mix that engine's accumulated drift into a
 * one-step comparison, so such pairs are left out. */
static int pair_live(const audit *A, const audit_pair *p) {
    const audit_result *r = A->r;
    if (!A->active[p->a] || !A->active[p->b]) return 0;
    if (A->shadow_src >= 0 && A->mode_now != MODE_ISOLATED) {
        int ra = r->eng[p->a].is_ref, rb = r->eng[p->b].is_ref;
        if (ra && !rb && p->b != A->shadow_src) return 0;
        if (rb && !ra && p->a != A->shadow_src) return 0;
    }
    return 1;
}

/* Discrete decisions around slot s for pair pi (the data fetched for s is
 * in fb/db), appended to the jsonl line:
 *   s = ACT[l] and layer l+1 is a ReLU or a max-pool: the decisions layer
 *     l+1 takes on that input (sign, arg-max), counted on ACT[l+1]'s slot,
 *     with the elements of flipped decisions kept for the gradient;
 *   s = ACT[L-1], the logits: predicted classes of the batch;
 *   s = DACT[l] and layer l+1's decisions flipped this step: the share of
 *     the squared error those elements carry.
 * A near-tie is a flip whose reference gap is within the inputs' observed
 * difference (or 1 ULP): explained by the inputs, not by the layer. */
static void decisions_of(audit *A, int pi, int s, size_t nn) {
    audit_result *r = A->r;
    audit_pair *p = &r->pair[pi];
    const slot_def *d = &A->slot[s];
    const model *m = &A->m;
    int is_ref = r->eng[p->a].is_ref, L = m->n_layers;
    const float *cand = A->fb[p->b] + d->off;
    if (d->kind == TENSOR_ACT && d->layer + 1 < L) {
        int q = d->layer + 1;
        const layer *ly = &m->layers[q];
        if (ly->kind != LAYER_RELU && ly->kind != LAYER_MAXPOOL) return;
        uint8_t *mask = A->flipmask[pi][q];
        if (!mask) mask = A->flipmask[pi][q] = malloc(A->maxf);
        if (!mask) return; /* the counts need no mask: share left unknown */
        decision_stats ds;
        size_t nb = A->e[p->b]->batch;
        if (ly->kind == LAYER_RELU) {
            if (is_ref) decision_relu_f64(&ds, A->db[p->a], cand, nn, NULL, mask);
            else decision_relu_f32(&ds, A->fb[p->a], cand, nn, NULL, mask);
        } else {
            if (is_ref)
                decision_maxpool_f64(&ds, A->db[p->a], cand, nb, ly->in_c, ly->in_h, ly->in_w, NULL, mask);
            else
                decision_maxpool_f32(&ds, A->fb[p->a], cand, nb, ly->in_c, ly->in_h, ly->in_w, NULL, mask);
        }
        audit_slot_stats *ts = &p->slot[A->slot_act[q]];
        ts->decisions += (long)ds.n_decisions;
        ts->flips += (long)ds.n_flips;
        ts->near_ties += (long)ds.n_near_ties;
        ts->sub_ulp += (long)ds.n_sub_ulp;
        A->flipmask_step[pi][q] = ds.n_flips ? A->step : 0;
        lsbuf_printf(&A->line, ", \"decisions_next\": {\"layer\": ");
        lsbuf_json_str(&A->line, ly->name);
        lsbuf_printf(&A->line, ", \"stats\": ");
        decision_stats_json(&A->line, &ds);
        lsbuf_printf(&A->line, "}");
    } else if (d->kind == TENSOR_ACT && d->layer == L - 1) {
        decision_stats ds;
        size_t nb = A->e[p->b]->batch;
        if (is_ref) decision_argmax_f64(&ds, A->db[p->a], cand, nb, (size_t)m->n_classes, NULL, NULL);
        else decision_argmax_f32(&ds, A->fb[p->a], cand, nb, (size_t)m->n_classes, NULL, NULL);
        audit_slot_stats *ss = &p->slot[s];
        ss->decisions += (long)ds.n_decisions;
        ss->flips += (long)ds.n_flips;
        ss->near_ties += (long)ds.n_near_ties;
        ss->sub_ulp += (long)ds.n_sub_ulp;
        lsbuf_printf(&A->line, ", \"predictions\": ");
        decision_stats_json(&A->line, &ds);
    } else if (d->kind == TENSOR_DACT && d->layer + 1 < L) {
        int q = d->layer + 1;
        if (!A->flipmask[pi][q] || A->flipmask_step[pi][q] != A->step) return;
        decision_share sh;
        if (is_ref) decision_share_f64(&sh, A->db[p->a], cand, A->flipmask[pi][q], nn);
        else decision_share_f32(&sh, A->fb[p->a], cand, A->flipmask[pi][q], nn);
        audit_slot_stats *ss = &p->slot[s];
        if (sh.share > ss->flip_err_share) {
            ss->flip_err_share = sh.share;
            ss->flip_elems = (long)sh.n_masked;
        }
        lsbuf_printf(&A->line, ", \"flip_share\": {\"layer\": ");
        lsbuf_json_str(&A->line, m->layers[q].name);
        lsbuf_printf(&A->line, ", \"share\": ");
        decision_share_json(&A->line, &sh);
        lsbuf_printf(&A->line, "}");
    }
}

const char *audit_sharp_kind_key(int k) {
    static const char *const K[AUDIT_SK_N] = {"act",   "dact",   "weight_grad", "bias_grad",
                                              "param", "adam_m", "adam_v",      "loss"};
    return k >= 0 && k < AUDIT_SK_N ? K[k] : "?";
}

const char *audit_sharp_kind_name(int k) {
    static const char *const K[AUDIT_SK_N] = {"forward activations", "backward-data gradients", "weight gradients",
                                              "bias gradients",      "updated parameters",      "Adam m",
                                              "Adam v",              "loss and logit gradient"};
    return k >= 0 && k < AUDIT_SK_N ? K[k] : "?";
}

double audit_sharp_quantile(const audit_sharp_dist *d, double q) { return rt_hist_quantile(d->hist, q, d->max_ratio); }

/* The kind (AUDIT_SK_*) of slot d: the last layer's dact is the loss's
 * gradient (make_slots puts it in the loss phase), a gradient of a bias
 * tensor a bias gradient. */
static int sharp_kind_of(const model *m, const slot_def *d) {
    switch (d->kind) {
    case TENSOR_ACT: return AUDIT_SK_ACT;
    case TENSOR_DACT: return d->layer == m->n_layers - 1 ? AUDIT_SK_LOSS : AUDIT_SK_DACT;
    case TENSOR_GRADS: return m->tensors[d->ridx].is_bias ? AUDIT_SK_BGRAD : AUDIT_SK_WGRAD;
    case TENSOR_PARAMS: return AUDIT_SK_PARAM;
    case TENSOR_ADAM_M: return AUDIT_SK_ADAM_M;
    case TENSOR_ADAM_V: return AUDIT_SK_ADAM_V;
    default: return AUDIT_SK_LOSS;
    }
}

/* Fold one check's per-element ratios into its kind's distribution. */
static void sharp_dist_add(audit_sharp_dist *k, const rounding_stats *rs, double factor, double alarm) {
    if (!k->checks || factor < k->min_factor) k->min_factor = factor;
    if (!k->checks || factor > k->max_factor) k->max_factor = factor;
    k->checks++;
    k->n += rs->n;
    for (int b = 0; b < RT_HIST_N; b++) k->hist[b] += rs->hist[b];
    k->n_over += (long)rs->n_over_sharp;
    if (rs->max_sharp_ratio > k->max_ratio) k->max_ratio = rs->max_sharp_ratio;
    if (alarm > k->max_alarm) k->max_alarm = alarm;
}

/* The sharper tier on slot s for pair p at a check (rounding_tests.h):
 * worst is the worst-case bound per element (before an fp32cr reference's
 * own rounding, which enters as ref_u); results folded into ss and one
 * "sharp" member appended to the jsonl line. */
static void sharp_check(audit *A, audit_pair *p, audit_slot_stats *ss, const slot_def *d, const double *ref,
                        const float *cand, const double *worst, size_t nn, int ref_fp32cr, size_t batch) {
    size_t K = bounds_K_of(&A->m, d->kind, d->ridx, batch);
    /* a gradient sums over the batch: duplicate samples repeat its roundings (bounds_sharp_factor_grouped) */
    double rho2 = d->kind == TENSOR_GRADS
                      ? bounds_dup_rho2(A->x, A->y, batch, (size_t)A->m.in_c * A->m.in_h * A->m.in_w)
                      : 1.0;
    double f = bounds_sharp_factor_grouped(d->rule, K, rho2), sdf = bounds_sd_factor_grouped(d->rule, K, rho2);
    double alarm = f < 1.0 ? bounds_sharp_alarm(d->rule, K) : 0.0;
    if (!A->sharp_hash) {
        size_t cap = 1;
        while (cap < 2 * A->maxf) cap *= 2;
        A->sharp_hash = malloc(cap * sizeof *A->sharp_hash);
        A->sharp_hash_cap = A->sharp_hash ? cap : 0;
    }
    static rounding_stats rs; /* 12 KiB of cluster sums: not on the stack; the audit is single-threaded */
    size_t cdiv, cmod;
    bounds_cluster_of(&A->m, d->kind, d->ridx, &cdiv, &cmod);
    rounding_test_f64(&rs, ref, cand, worst, nn, f, sdf, ref_fp32cr ? 0x1p-24 : 0.0, BOUNDS_SHARP_ALPHA_TEST,
                      A->sharp_hash, A->sharp_hash_cap, cdiv, cmod);
    if (!rs.n) return;
    sharp_dist_add(&p->sharp_kind[sharp_kind_of(&A->m, d)], &rs, f, alarm);
    ss->n_sharp++;
    ss->n_aggregate += rs.aggregate;
    ss->n_over_sharp += (long)rs.n_over_sharp;
    if (rs.max_sharp_ratio > ss->max_sharp_ratio) {
        ss->max_sharp_ratio = rs.max_sharp_ratio;
        ss->worst_sharp_step = A->step;
        ss->sharp_factor = f;
        ss->sharp_alarm = alarm;
    }
    if (rs.aggregate && rs.bias_score > ss->max_bias_score) {
        ss->max_bias_score = rs.bias_score;
        ss->bias_step = A->step;
        ss->bias_sign_z = rs.sign_z;
        ss->bias_away_z = rs.away_z;
        ss->bias_p = rs.sign_p;
        double m = (double)(rs.n_pos + rs.n_neg);
        ss->bias_share_pos = m > 0 ? (double)rs.n_pos / m : 0.5;
    }
    if (rs.aggregate && rs.scale_score > ss->max_scale_score) {
        ss->max_scale_score = rs.scale_score;
        ss->scale_step = A->step;
        ss->scale_ms = rs.ms;
        ss->scale_limit = rs.ms_limit;
        ss->scale_p = rs.ms_p;
    }
    if (rs.n_over_sharp || rs.bias_fail || rs.scale_fail) {
        ss->n_suspect++;
        if (!ss->first_suspect_step) ss->first_suspect_step = A->step;
    }
    lsbuf_printf(&A->line, ", \"sharp\": {\"factor\": ");
    lsbuf_json_num(&A->line, f);
    lsbuf_printf(&A->line, ", \"max_ratio\": ");
    lsbuf_json_num(&A->line, rs.max_sharp_ratio);
    lsbuf_printf(&A->line, ", \"n_over\": %zu, \"n_distinct\": %zu, \"design_s\": %.3g, \"design_a\": %.3g",
                 rs.n_over_sharp, rs.n_distinct, rs.design_s, rs.design_a);
    if (rs.aggregate) {
        lsbuf_printf(&A->line, ", \"n_rn\": %zu, \"n_pos\": %zu, \"n_neg\": %zu, \"n_away\": %zu, \"sign_z\": ",
                     rs.n_rn, rs.n_pos, rs.n_neg, rs.n_away);
        lsbuf_json_num(&A->line, rs.sign_z);
        lsbuf_printf(&A->line, ", \"away_z\": ");
        lsbuf_json_num(&A->line, rs.away_z);
        lsbuf_printf(&A->line, ", \"sign_limit\": ");
        lsbuf_json_num(&A->line, rs.sign_limit);
        /* too few channels for the sign tests (rounding_tests.h): z recorded, not judged */
        lsbuf_printf(&A->line, ", \"sign_clusters\": %zu, \"sign_judged\": %s", rs.n_clusters,
                     rs.bias_judged ? "true" : "false");
        lsbuf_printf(&A->line, ", \"mean_square\": ");
        lsbuf_json_num(&A->line, rs.ms);
        lsbuf_printf(&A->line, ", \"ms_limit\": ");
        lsbuf_json_num(&A->line, rs.ms_limit);
    }
    lsbuf_printf(&A->line, "}");
}

/* Compare slot s (data already fetched into fb/db) for every active pair;
 * bound (per element of the slice) is used for pairs with a reference a.
 * At a bounded step every comparison with a reference is a check: with a
 * bound (or an exactness rule, bound 0) it is judged, without one it is
 * counted as unchecked. */
static void compare_slot_range(audit *A, int s, const double *bound, const unsigned char *ovf, const float *want);

static void compare_slot(audit *A, int s, const double *bound) { compare_slot_range(A, s, bound, NULL, NULL); }

/* ... and with fp32's range rule: where ovf[i] (slice-relative, NULL: none)
 * the reference's value is replaced by want[i], what fp32 must produce,
 * and the bound by 0 (bounds_adam_range). */
static void compare_slot_range(audit *A, int s, const double *bound, const unsigned char *ovf, const float *want) {
    audit_result *r = A->r;
    const slot_def *d = &A->slot[s];
    size_t off = d->off;
    for (int pi = 0; pi < r->n_pairs; pi++) {
        audit_pair *p = &r->pair[pi];
        if (!pair_live(A, p)) continue;
        size_t nn = d->len ? d->len : tensor_numel(&A->m, (tensor_id){d->kind, d->layer}, A->e[p->b]->batch);
        compare_stats st;
        int is_ref = r->eng[p->a].is_ref;
        const double *bd = is_ref && A->bounded_step ? bound : NULL;
        const double *rv = A->db[p->a] + off;
        if (bd && r->eng[p->a].ref_fp32cr) {
            /* an fp32cr reference rounds each value once: u |ref| more */
            for (size_t i = 0; i < nn; i++) A->bound_tmp[i] = bd[i] + 0x1p-24 * fabs(rv[i]);
            bd = A->bound_tmp;
        }
        size_t n_range = 0;
        if (bd && ovf && !r->eng[p->b].is_ref) {
            /* beyond fp32's range the reference's exact value is not what
             * any fp32 engine can produce: judge by what fp32 must */
            if (bd != A->bound_tmp) memcpy(A->bound_tmp, bd, nn * sizeof *bd);
            memcpy(A->ref_tmp, rv, nn * sizeof *rv);
            n_range = bounds_range_apply(A->ref_tmp, A->bound_tmp, ovf, want, nn);
            bd = A->bound_tmp;
            rv = A->ref_tmp;
        }
        if (is_ref && r->eng[p->b].is_ref)
            /* two references (a repeat): compare what each reads out as
             * fp32; their doubles carry more than either rounds to */
            compare_f32(&st, A->fb[p->a] + off, A->fb[p->b] + off, nn, NULL);
        else if (is_ref)
            compare_f64(&st, rv, A->fb[p->b] + off, nn, bd);
        else
            compare_f32(&st, A->fb[p->a] + off, A->fb[p->b] + off, nn, NULL);
        if (bd && d->exact && st.n_zero_sign) {
            /* an exact operation owes the same bits: a zero of the other
             * sign is a different result (relu(-0) must be +0) */
            st.n_over_bound += st.n_zero_sign;
            st.max_bound_ratio = INFINITY;
            st.worst_bound_index = st.first_diff_index < nn ? st.first_diff_index : 0;
        }
        audit_slot_stats *ss = &p->slot[s];
        ss->n_steps++;
        if (st.max_abs > ss->max_abs || isnan(st.max_abs)) ss->max_abs = st.max_abs;
        if (st.max_rel > ss->max_rel || isnan(st.max_rel)) ss->max_rel = st.max_rel;
        if (st.rel_l2 > ss->max_rel_l2 || isnan(st.rel_l2)) ss->max_rel_l2 = st.rel_l2;
        if (st.max_ulp > ss->max_ulp || isnan(st.max_ulp)) {
            ss->max_ulp = st.max_ulp;
            ss->worst_step = A->step;
        }
        ss->n_range += (long)n_range;
        if (is_ref && A->bounded_step) {
            ss->n_check_steps++;
            audit_engine *eb = &r->eng[p->b];
            if (!A->in_attr && eb->ck_step_elem && A->step > 0 && A->step <= eb->ck_total) eb->ck_step_elem[A->step - 1] = 1;
            if (st.has_bound) {
                ss->n_bounded++;
                ss->n_unjudged += (long)st.n_unjudged;
                if (st.n_unjudged && !ss->first_unjudged_step) ss->first_unjudged_step = A->step;
                ss->n_over += (long)st.n_over_bound;
                if (st.n_over_bound && !ss->first_over_step) ss->first_over_step = A->step;
                if (st.max_bound_ratio > ss->max_bound_ratio || isnan(st.max_bound_ratio)) {
                    ss->max_bound_ratio = st.max_bound_ratio;
                    ss->worst_ratio_step = A->step;
                    size_t wi = st.worst_bound_index < nn ? st.worst_bound_index : 0;
                    ss->worst_ratio_index = wi;
                    ss->worst_ref = rv[wi];
                    ss->worst_cand = A->fb[p->b][off + wi];
                    ss->worst_bound = bd[wi];
                }
            }
        }
        if (st.frac_equal < ss->min_frac_equal) ss->min_frac_equal = st.frac_equal;
        if (st.n_equal < st.n && ss->first_unequal_step == 0) ss->first_unequal_step = A->step;
        ss->n_nonfinite += (long)st.n_nonfinite_mismatch;
        json_line_begin(A, r->eng[p->a].label, r->eng[p->b].label, r->slot_name[s], r->slot_phase[s]);
        compare_stats_json(&A->line, &st);
        if (n_range) lsbuf_printf(&A->line, ", \"fp32_range\": %zu", n_range);
        if (bd && is_ref && !r->eng[p->b].is_ref && A->sharp) {
            double t0 = ls_now();
            /* bound (the worst case before an fp32cr reference's rounding) is
             * already 0 on the range rule's elements: the tier skips them */
            sharp_check(A, p, ss, d, rv, A->fb[p->b] + off, bound, nn, r->eng[p->a].ref_fp32cr,
                        A->e[p->b]->batch);
            A->t_sharp += ls_now() - t0;
        }
        decisions_of(A, pi, s, nn);
        json_line_end(A);
    }
}

/* Fetch a whole tensor from every active engine and compare slot s. */
static int fetch_compare(audit *A, int s, const double *bound) {
    const slot_def *d = &A->slot[s];
    int rc = fetch_all(A, (tensor_id){d->kind, d->layer});
    if (!rc) compare_slot(A, s, bound);
    return rc;
}

/* The leader: the first active reference engine, else the first active one. */
static int leader(const audit *A) {
    for (int i = 0; i < A->r->n_engines; i++)
        if (A->active[i] && A->r->eng[i].is_ref) return i;
    for (int i = 0; i < A->r->n_engines; i++)
        if (A->active[i]) return i;
    return -1;
}

/* Set tensor t on every active engine to the leader's value rounded to fp32
 * (the leader included, so every engine consumes exactly the same floats);
 * the values are left in A->lead. */
static int broadcast(audit *A, tensor_id t) {
    int L = leader(A);
    if (L < 0) return ls_err(LS_EUNAVAIL, "no engine left to run this step");
    int rc = engine_get_tensor(A->e[L], t, A->lead);
    if (rc) return engine_err(rc, A->r->eng[L].label, "");
    for (int i = 0; i < A->r->n_engines; i++) {
        if (A->active[i] && (rc = engine_set_tensor(A->e[i], t, A->lead)))
            return engine_err(rc, A->r->eng[i].label, "");
        if (A->active[i] && t.kind >= TENSOR_PARAMS) every_step_break_chain(&A->r->eng[i]);
    }
    return LS_OK;
}

/* Feed tensor t before the operation that consumes it.  Isolated mode: the
 * leader's value to every engine (broadcast).  A free-mode shadow replay:
 * the shadowed fp32 engine's own value to the references only — that
 * engine runs untouched, and the references compute the exact result of
 * exactly what it consumed, so its every operation can be judged by its
 * bound without disturbing its trajectory.  The fed values are left in
 * A->lead. */
static int feed(audit *A, tensor_id t) {
    if (A->feed_all) return broadcast(A, t);
    int S = A->feed_src, rc = engine_get_tensor(A->e[S], t, A->lead);
    if (rc) return engine_err(rc, A->r->eng[S].label, "");
    for (int i = 0; i < A->r->n_engines; i++)
        if (A->active[i] && A->r->eng[i].is_ref && (rc = engine_set_tensor(A->e[i], t, A->lead)))
            return engine_err(rc, A->r->eng[i].label, "");
    return LS_OK;
}

/* Copy the optimizer state (params, m, v) of engine `from` to engine `to`. */
static int copy_state(audit *A, int from, int to) {
    tensor_kind ks[3] = {TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V};
    for (int k = 0; k < 3; k++) {
        tensor_id t = {ks[k], 0};
        int rc = engine_get_tensor(A->e[from], t, A->lead);
        if (!rc) rc = engine_set_tensor(A->e[to], t, A->lead);
        if (rc) return rc;
    }
    every_step_break_chain(&A->r->eng[to]);
    return LS_OK;
}

/* ---- one step ---------------------------------------------------------- */

/* Pair p at a step where one side is a recording without its parameters:
 * compare the parameters' digests (the recorded one, and FNV-1a of the
 * live side's fetched fp32 values) — equal means bitwise equal (rel. L2 0,
 * 0 ulp); unequal marks the first differing step and leaves the norms
 * unknown (NAN).  A reference side has no fp32 digest: nothing but the
 * loss is compared then. */
static void digest_pair(audit *A, audit_pair *p, const float *losses) {
    audit_result *r = A->r;
    if (A->in_attr) return;
    p->loss_diff[A->step - 1] = fabs((double)losses[p->a] - (double)losses[p->b]);
    if (r->eng[p->a].is_ref || r->eng[p->b].is_ref) return;
    uint64_t d[2];
    int side[2] = {p->a, p->b};
    for (int k = 0; k < 2; k++) {
        const recording *rec = r->eng[side[k]].recorded ? engine_recorded_get(A->e[side[k]]) : NULL;
        d[k] = rec ? rec->steps[A->step].params_digest
                   : recording_digest(A->fb[side[k]], A->m.n_params * sizeof(float), 0);
    }
    if (d[0] == d[1]) {
        p->param_rel_l2[A->step - 1] = 0;
        p->param_max_ulp[A->step - 1] = 0;
    } else if (p->first_diff_step == 0) {
        p->first_diff_step = A->step;
    }
}

/* Call expr (which may use `e`, the engine, and `i`, its index) on every
 * active engine, charging the time to the engine's training time.  A dead
 * engine is dropped and the others still do the call; any other error
 * returns from the calling function; a death abandons the step. */
#define CALL_ALL(A, expr)                                                                 \
    do {                                                                                  \
        for (int i = 0; i < (A)->r->n_engines; i++) {                                     \
            if (!(A)->active[i]) continue;                                                \
            double tc_ = ls_now();                                                        \
            engine *e = (A)->e[i];                                                        \
            int rc_ = (expr);                                                             \
            (A)->r->eng[i].train_s[(A)->epoch] += ls_now() - tc_;                         \
            if (rc_ && engine_gone((A), i)) continue; /* the others still do this call */ \
            if (rc_) {                                                                    \
                char ctx_[32];                                                            \
                snprintf(ctx_, sizeof ctx_, "step %ld", (A)->step);                       \
                return engine_err(rc_, (A)->r->eng[i].label, ctx_);                       \
            }                                                                             \
        }                                                                                 \
        if ((A)->died) return ls_err(LS_ELIB, "step %ld abandoned: an engine died", (A)->step); \
    } while (0)
/* the comparison's own time, kept apart from the engines' */
#define CMP_BEGIN(A) double t0_ = ls_now()
#define CMP_END(A) ((A)->t_compare += ls_now() - t0_)

/* Whether engine i can be the source of a shadow at this step: a live
 * engine always, a recording at the steps its plan holds in full only
 * (its state before the step and every tensor of it). */
static int recorded_full(const audit *A, int i) {
    const recording *rec = A->r->eng[i].recorded ? engine_recorded_get(A->e[i]) : NULL;
    return !rec || (A->step <= rec->total_steps && rec->steps[A->step].full);
}

/* Every recording is shadowed at least once whatever its plan (with
 * audit_every 50 over 8 steps the rotation never reaches it, and a
 * recording never checked is a result never checked): when the full
 * steps left are no more than the recordings not yet shadowed, this step
 * is a shadow from one of them.  Sets A->force_pick; 1 when forced. */
static int recording_owes_shadow(audit *A) {
    audit_result *r = A->r;
    A->force_pick = -1;
    if (A->in_attr || A->step <= A->cfg.ref_steps) return 0;
    int owed = 0, first = -1, have_ref = 0;
    for (int i = 0; i < r->n_engines; i++) {
        have_ref |= r->eng[i].available && r->eng[i].is_ref && !r->eng[i].failed;
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || !ae->recorded || ae->failed || ae->shadows || !recorded_full(A, i)) continue;
        owed++;
        if (first < 0) first = i;
    }
    if (!owed || !have_ref) return 0;
    /* the plan's full steps from this one to the last: multiples of
     * audit_every, and the last step */
    long ae = A->cfg.audit_every, k = A->step, T = A->total;
    long left = (ae > 0 ? T / ae - (k - 1) / ae : 0) + (ae <= 0 || T % ae ? 1 : 0);
    if (owed < left) return 0;
    A->force_pick = first;
    return 1;
}

/* Reference shadows start from one fp32 engine's state; the engine
 * shadowed rotates over the fp32 engines, so that every engine's own state
 * path is replayed by the exact reference in turn. */
static int shadow_setup(audit *A, int with_ref) {
    audit_result *r = A->r;
    int E = r->n_engines, rc;
    A->shadow_src = -1;
    if (A->in_attr || A->step <= A->cfg.ref_steps || !with_ref) return 0;
    int n32 = 0, pick = -1;
    for (int i = 0; i < E; i++) n32 += A->active[i] && !r->eng[i].is_ref;
    int want = n32 ? A->n_shadows % n32 : 0;
    /* recordings first in the rotation: a recording's inputs exist only at
     * its plan's steps, so with few shadow steps it must not be the engine
     * left out (a live one can be audited again at any time) */
    for (int pass = 0, k = 0; pass < 2 && pick < 0; pass++)
        for (int i = 0; i < E && pick < 0; i++)
            if (A->active[i] && !r->eng[i].is_ref && r->eng[i].recorded == !pass && k++ == want) pick = i;
    if (A->force_pick >= 0) pick = A->force_pick;
    A->force_pick = -1;
    if (pick >= 0) r->eng[pick].shadows++;
    A->n_shadows++;
    for (int i = 0; i < E && pick >= 0; i++)
        if (A->active[i] && r->eng[i].is_ref && (rc = copy_state(A, pick, i)))
            return engine_err(rc, r->eng[i].label, "shadow sync");
    A->shadow_src = pick;
    return 0;
}

/* Before the step: sync and isolated modes give every engine the leader's
 * state; a bounded step keeps the state the fed engines start from (the
 * bounds of the update are computed from it). */
static int step_prepare(audit *A, int full) {
    int rc = 0;
    if (full && A->mode_now != MODE_FREE) {
        tensor_kind ks[3] = {TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V};
        for (int k = 0; k < 3; k++)
            if ((rc = broadcast(A, (tensor_id){ks[k], 0}))) return rc;
    }
    if (A->bounded_step) {
        int S = A->feed_src;
        if ((rc = engine_get_tensor(A->e[S], (tensor_id){TENSOR_PARAMS, 0}, A->pf)) ||
            (rc = engine_get_tensor(A->e[S], (tensor_id){TENSOR_ADAM_M, 0}, A->pm)) ||
            (rc = engine_get_tensor(A->e[S], (tensor_id){TENSOR_ADAM_V, 0}, A->pv)))
            return engine_err(rc, A->r->eng[S].label, "");
        /* the state the update's bounds start from is the one the checks chained */
        if (!A->r->eng[S].is_ref)
            every_step_readback_state(&A->r->eng[S], &A->m, A->pf, A->pm, A->pv, "the shadow replay's bounds",
                                      A->in_attr ? 0 : A->step, A->epoch);
    }
    return 0;
}

/* Forward, layer by layer; on a full step every layer's output compared
 * (bounded from the input the layer consumed). */
static int step_forward(audit *A, size_t nb, int full) {
    const model *m = &A->m;
    int rc, feeding = A->feed_src >= 0, bounded = A->bounded_step;
    for (int l = 0; l < m->n_layers; l++) {
        const float *xin = A->x;
        {
            CMP_BEGIN(A);
            if (feeding && l > 0) {
                if ((rc = feed(A, (tensor_id){TENSOR_ACT, l - 1}))) return rc;
                xin = A->lead;
            }
            CMP_END(A);
        }
        CALL_ALL(A, engine_forward_layer(e, l, 1));
        if (full) {
            CMP_BEGIN(A);
            if (bounded) bounds_forward(A->bound, m, l, A->pf, xin, nb);
            if ((rc = fetch_all(A, (tensor_id){TENSOR_ACT, l}))) return rc;
            compare_slot(A, A->slot_act[l], bounded ? A->bound : NULL);
            CMP_END(A);
        }
    }
    return 0;
}

/* The loss and its logit gradient. */
static int step_loss(audit *A, size_t nb, int full, float *losses) {
    const model *m = &A->m;
    int rc, feeding = A->feed_src >= 0, bounded = A->bounded_step, L = m->n_layers;
    {
        CMP_BEGIN(A);
        if (feeding && (rc = feed(A, (tensor_id){TENSOR_ACT, L - 1}))) return rc;
        if (bounded && (rc = bounds_loss(A->lead, A->y, nb, m->n_classes, &A->loss_bound, A->bound))) return rc;
        CMP_END(A);
    }
    CALL_ALL(A, engine_loss(e, &losses[i]));
    if (full) {
        CMP_BEGIN(A);
        if ((rc = fetch_compare(A, A->slot_loss, bounded ? &A->loss_bound : NULL))) return rc;
        if ((rc = fetch_compare(A, A->slot_dact[L - 1], bounded ? A->bound : NULL))) return rc;
        CMP_END(A);
    }
    return 0;
}

/* Compare layer l's backward outputs (DACT[l-1], its weight and bias
 * gradients); dy is the fed DACT[l] (bounded steps only, else NULL). */
static int backward_compare(audit *A, int l, size_t nb, const float *dy) {
    const model *m = &A->m;
    const layer *ly = &m->layers[l];
    int rc, bounded = A->bounded_step;
    if (model_grad_in(m, l)) { /* not the image's gradient (after leading flattens: none computes it) */
        if ((rc = fetch_all(A, (tensor_id){TENSOR_DACT, l - 1}))) return rc;
        /* relu and max-pool decide on their forward input: the fed engine's ACT[l-1] (l >= 1 here) */
        const float *xf = NULL;
        if (bounded && (ly->kind == LAYER_RELU || ly->kind == LAYER_MAXPOOL)) {
            if ((rc = engine_get_tensor(A->e[A->feed_src], (tensor_id){TENSOR_ACT, l - 1}, A->lead))) return rc;
            xf = A->lead;
        }
        if (bounded) bounds_backward_data(A->bound, m, l, A->pf, xf, dy, nb);
        compare_slot(A, A->slot_dact[l - 1], bounded ? A->bound : NULL);
    }
    if (ly->w_tensor < 0) return 0;
    /* bounds need x, the layer's input: the fed engine's ACT[l-1], or the batch */
    const float *xin = A->x;
    if (bounded && l > 0) {
        if ((rc = engine_get_tensor(A->e[A->feed_src], (tensor_id){TENSOR_ACT, l - 1}, A->lead))) return rc;
        xin = A->lead;
    }
    if (bounded) bounds_backward_weights(A->bound, A->bound2, m, l, xin, dy, nb);
    if ((rc = fetch_all(A, (tensor_id){TENSOR_GRADS, 0}))) return rc;
    /* compare_slot indexes the bound from 0 for the slice */
    compare_slot(A, A->slot_grad[ly->w_tensor], bounded ? A->bound : NULL);
    compare_slot(A, A->slot_grad[ly->b_tensor], bounded ? A->bound2 : NULL);
    return 0;
}

/* Backward, last layer first. */
static int step_backward(audit *A, size_t nb, int full) {
    const model *m = &A->m;
    int rc, feeding = A->feed_src >= 0;
    for (int l = m->n_layers - 1; l >= 0; l--) {
        {
            CMP_BEGIN(A);
            if (feeding && (rc = feed(A, (tensor_id){TENSOR_DACT, l}))) return rc;
            CMP_END(A);
        }
        CALL_ALL(A, engine_backward_layer(e, l));
        if (!full) continue;
        CMP_BEGIN(A);
        /* the fed DACT[l] (in A->lead) is overwritten by the fetches below */
        float *dy = NULL;
        if (A->bounded_step) {
            size_t nd = nb * layer_out_size(&m->layers[l]);
            if (!(dy = malloc(nd * sizeof *dy))) return ls_err(LS_ENOMEM, "out of memory");
            memcpy(dy, A->lead, nd * sizeof *dy);
        }
        rc = backward_compare(A, l, nb, dy);
        free(dy);
        CMP_END(A);
        if (rc) return rc;
    }
    return 0;
}

/* Adam's update (bounded from the state the fed engine started from). */
static int step_update(audit *A) {
    const model *m = &A->m;
    int rc;
    {
        CMP_BEGIN(A);
        if (A->feed_src >= 0 && (rc = feed(A, (tensor_id){TENSOR_GRADS, 0}))) return rc;
        if (A->bounded_step) {
            adam_scalars as = adam_make_scalars(&A->cfg.run.adam, (int)A->step);
            bounds_adam(A->pf, A->pm, A->pv, A->lead, m->n_params, &as, 1, A->bound, A->bound2, A->bound3);
            A->n_ovf = bounds_adam_range(A->pf, A->pm, A->pv, A->lead, m->n_params, &as, A->ovf, A->want_p,
                                         A->want_v);
        }
        CMP_END(A);
    }
    CALL_ALL(A, engine_update(e, &A->cfg.run.adam, (int)A->step));
    return 0;
}

/* Every step: parameters of every pair (digest and norms); a recording
 * holds its parameters only at fully compared steps, elsewhere their
 * digest (pairs with it: bitwise equal or not, nothing more).  A full step
 * compares the new parameters and Adam state per tensor too. */
/* Adam's m (which 1) or v (2) as just fetched into A->fb, against the
 * digests the engines' checks chained (checksums_readback_state) */
static void readback_moments(audit *A, int which) {
    audit_result *r = A->r;
    for (int i = 0; i < r->n_engines; i++)
        if (A->active[i] && !r->eng[i].is_ref && A->fb[i])
            every_step_readback_state(&r->eng[i], &A->m, NULL, which == 1 ? A->fb[i] : NULL,
                                      which == 2 ? A->fb[i] : NULL, "the pair comparison", A->in_attr ? 0 : A->step,
                                      A->epoch);
}

static int step_params(audit *A, int full, const float *losses) {
    audit_result *r = A->r;
    const model *m = &A->m;
    int rc, bounded = A->bounded_step;
    for (int i = 0; i < r->n_engines; i++)
        if (A->active[i] && !(r->eng[i].recorded && !full) && (rc = fetch(A, i, (tensor_id){TENSOR_PARAMS, 0})))
            return engine_err(rc, r->eng[i].label, "");
    /* the weights every pair compares are those the engine's checks chained
     * after this update (checksums_readback_state) */
    for (int i = 0; i < r->n_engines; i++)
        if (A->active[i] && !r->eng[i].is_ref && !(r->eng[i].recorded && !full) && A->fb[i])
            every_step_readback_state(&r->eng[i], m, A->fb[i], NULL, NULL, "the pair comparison",
                                      A->in_attr ? 0 : A->step, A->epoch);
    for (int pi = 0; pi < r->n_pairs; pi++) {
        audit_pair *p = &r->pair[pi];
        if (!pair_live(A, p)) continue;
        if (!full && (r->eng[p->a].recorded || r->eng[p->b].recorded)) {
            digest_pair(A, p, losses);
            continue;
        }
        compare_stats st;
        if (r->eng[p->a].is_ref && !r->eng[p->b].is_ref) compare_f64(&st, A->db[p->a], A->fb[p->b], m->n_params, NULL);
        else compare_f32(&st, A->fb[p->a], A->fb[p->b], m->n_params, NULL);
        if (!A->in_attr) {
            /* NaN or inf on one side only: compare keeps those out of its figures (0 when every parameter is
             * NaN, "bitwise equal"); the distance is not finite, the ULP distance compare's for a NaN */
            p->param_rel_l2[A->step - 1] = st.n_nonfinite_mismatch ? INFINITY : st.rel_l2;
            p->param_max_ulp[A->step - 1] = st.n_nonfinite_mismatch ? (double)UINT32_MAX : st.max_ulp;
            p->loss_diff[A->step - 1] = fabs((double)losses[p->a] - (double)losses[p->b]);
            if (st.n_equal < st.n && p->first_diff_step == 0) p->first_diff_step = A->step;
        }
        if (!full) {
            json_line_begin(A, r->eng[p->a].label, r->eng[p->b].label, "params", "step");
            compare_stats_json_opt(&A->line, &st, 0); /* every step: no histogram (fully compared steps have it) */
            json_line_end(A);
        }
    }
    if (!full) return 0;
    /* fp32's range rule on p' and v' where Adam's fp32 v' overflowed
     * (bounds_adam_range, at step_update) */
    int range = bounded && A->n_ovf;
    for (int ti = 0; ti < m->n_tensors; ti++) {
        size_t o = m->tensors[ti].offset;
        compare_slot_range(A, A->slot_param[ti], bounded ? A->bound + o : NULL, range ? A->ovf + o : NULL,
                           range ? A->want_p + o : NULL);
    }
    if ((rc = fetch_all(A, (tensor_id){TENSOR_ADAM_M, 0}))) return rc;
    readback_moments(A, 1);
    for (int ti = 0; ti < m->n_tensors; ti++)
        compare_slot(A, A->slot_m[ti], bounded ? A->bound2 + m->tensors[ti].offset : NULL);
    if ((rc = fetch_all(A, (tensor_id){TENSOR_ADAM_V, 0}))) return rc;
    readback_moments(A, 2);
    for (int ti = 0; ti < m->n_tensors; ti++) {
        size_t o = m->tensors[ti].offset;
        compare_slot_range(A, A->slot_v[ti], bounded ? A->bound3 + o : NULL, range ? A->ovf + o : NULL,
                           range ? A->want_v + o : NULL);
    }
    return 0;
}

static int ck_fed(const audit *A, int i) { return A->feed_src >= 0 && i != A->feed_src && A->feed_all; }

/* Whether engine i is judged on its first listing's vector at this stage:
 * both active, checked, not fed (every_step.h). */
static int ck_shares(const audit *A, int i) {
    const audit_engine *ae = &A->r->eng[i];
    int k = ae->ck_twin_of;
    if (!ae->ck_twin_on || k < 0 || !A->active[i] || !ae->ck_have || ck_fed(A, i)) return 0;
    const audit_engine *lead = &A->r->eng[k];
    return A->active[k] && lead->ck_have && !lead->failed && !ck_fed(A, k);
}

/* Repeat j's hash-only reply against its first listing's (in A->ck_vec,
 * lead_ok: judged): equal headers and hashes, judged on that vector;
 * otherwise its own vector, asked for now, and from now on. */
static int twin_stage(audit *A, int j, int lead_ok, size_t nb, int stage, const uint64_t *xd,
                      const bounds_dups *dd) {
    audit_result *r = A->r;
    audit_engine *ae = &r->eng[j];
    long step = A->in_attr ? 0 : A->step;
    int rc = every_step_stage(A->e[j], ae, &A->m, stage | CK_STAGE_HASH_ONLY, nb, A->y, xd, dd, step, A->epoch,
                              A->ck_vec2);
    if (rc) return rc;
    ck_layout L;
    ck_layout_make(&L, &A->m, nb);
    if (lead_ok && ck_get_u64(A->ck_vec2 + L.total) == ck_get_u64(A->ck_vec + L.total) &&
        memcmp(A->ck_vec2, A->ck_vec, CK_HDR * sizeof *A->ck_vec) == 0) {
        rc = every_step_judge_shared(A->e[j], ae, &A->m, stage, nb, A->y, xd, dd, step, A->epoch, A->ck_vec);
        if (!rc && (stage & CK_STAGE_MASK) == CK_STAGE_STEP)
            every_step_readback_loss(ae, &A->m, nb, A->ck_vec, A->losses[j], step, A->epoch);
        return rc;
    }
    ae->ck_twin_on = 0;
    if (lead_ok) ae->ck_twin_split = A->in_attr ? -1 : A->step;
    else
        snprintf(ae->ck_twin_off, sizeof ae->ck_twin_off, "its first listing's checks stopped at step %ld", A->step);
    if ((rc = every_step_send(A->e[j], ae, stage)) < 0) return rc;
    rc = every_step_stage(A->e[j], ae, &A->m, stage, nb, A->y, xd, dd, step, A->epoch, A->ck_vec2);
    if (!rc && (stage & CK_STAGE_MASK) == CK_STAGE_STEP)
        every_step_readback_loss(ae, &A->m, nb, A->ck_vec2, A->losses[j], step, A->epoch);
    return rc;
}

/* The every-step checksums of every active engine at a stage (STEP after
 * backward, UPDATE after the update), except engines fed another
 * engine's inputs this step (isolated mode, the references of a shadow
 * replay): their layers' outputs and inputs are not one computation, and
 * those steps are judged per element instead. */
static int step_checksums_at(audit *A, size_t nb, int stage) {
    audit_result *r = A->r;
    int share[AUDIT_MAX_ENGINES], lead[AUDIT_MAX_ENGINES] = {0};
    for (int i = 0; i < r->n_engines; i++)
        if ((share[i] = ck_shares(A, i))) lead[r->eng[i].ck_twin_of] = 1;
    /* every engine's request first: the children compute at once (their
     * checks are not timed as the engine's; the cores are shared); a
     * sharing repeat only hashes, its first listing hashes too */
    for (int i = 0; i < r->n_engines; i++) {
        audit_engine *ae = &r->eng[i];
        if (!A->active[i] || ae->is_ref || !ae->ck_have) continue;
        if (ck_fed(A, i)) continue;
        int rc = every_step_send(A->e[i], ae, stage | (share[i] ? CK_STAGE_HASH_ONLY : lead[i] ? CK_STAGE_HASH : 0));
        if (rc && engine_gone(A, i)) continue;
        if (rc) return engine_err(rc, ae->label, "checksums");
    }
    /* the digest of the images every engine was given, once */
    uint64_t xd = (stage & CK_STAGE_MASK) == CK_STAGE_STEP
                      ? ck_digest(A->x, nb * (size_t)A->m.in_c * A->m.in_h * A->m.in_w) : 0;
    /* its groups of duplicate samples (the relations' sharper tier: bounds_ck_dup_s) */
    bounds_dups dd = {1.0, 1.0, 1.0, 1.0};
    if ((stage & CK_STAGE_MASK) == CK_STAGE_STEP) bounds_dup_groups(A->x, A->y, nb, (size_t)A->m.in_c * A->m.in_h * A->m.in_w, &dd);
    for (int i = 0; i < r->n_engines; i++) {
        audit_engine *ae = &r->eng[i];
        if (share[i]) continue;
        /* lead_ok: its vector judged (a first listing that died at the
         * request has none: its repeats are asked for their own) */
        int lead_ok = 0;
        if (A->active[i] && !ae->is_ref && ae->ck_have) {
            if (ck_fed(A, i)) {
                if ((stage & CK_STAGE_MASK) == CK_STAGE_STEP && !A->in_attr) ae->ck_skipped++; /* attribution: counted apart */
                every_step_break_chain(ae);
                continue;
            }
            int rc = every_step_stage(A->e[i], ae, &A->m, stage | (lead[i] ? CK_STAGE_HASH : 0), nb, A->y, &xd,
                                      &dd, A->in_attr ? 0 : A->step, A->epoch, A->ck_vec);
            lead_ok = !rc && ae->ck_have;
            if (lead_ok && (stage & CK_STAGE_MASK) == CK_STAGE_STEP)
                every_step_readback_loss(ae, &A->m, nb, A->ck_vec, A->losses[i], A->in_attr ? 0 : A->step, A->epoch);
            if (rc && !engine_gone(A, i)) return engine_err(rc, ae->label, "checksums");
        }
        /* its repeats, while A->ck_vec holds its vector */
        for (int j = i + 1; j < r->n_engines && lead[i]; j++) {
            if (!share[j] || r->eng[j].ck_twin_of != i || !A->active[j]) continue;
            int rj = twin_stage(A, j, lead_ok, nb, stage, &xd, &dd);
            if (rj && engine_gone(A, j)) continue;
            if (rj) return engine_err(rj, r->eng[j].label, "checksums");
        }
    }
    return 0;
}

/* --complete-every K (audit.h): whether the drift step's STEP vector is
 * complete (every relation) rather than light (the plain relations:
 * CK_STAGE_LIGHT).  Complete: K <= 1, the attribution phase, step 1, the
 * last step, a partial batch, and each other step with probability 1/K,
 * drawn from the run's seed and the step (base/rng.h, stream
 * RNG_STREAM_CK with a counter no vector's random weights use: theirs
 * is keyed by the batch's digest, stage < 2^4), not on a fixed stride, so
 * a fault with a period does not fall between complete steps for ever. */
static int ck_complete_step(const audit *A, size_t nb) {
    long K = A->cfg.complete_every;
    if (K <= 1 || A->in_attr || A->step <= 1 || A->step >= A->total || nb != A->cfg.run.batch) return 1;
    return rng_u32(A->cfg.run.seed, 0, (uint32_t)A->step, 0xFFFFFFFFu, RNG_STREAM_CK) % (uint32_t)K == 0;
}

/* step_checksums_at, its wall time counted (the run's cost line) */
static int step_checksums(audit *A, size_t nb, int stage) {
    if (!A->cfg.checksums) return 0;
    double t0 = ls_now();
    if (stage == CK_STAGE_STEP && !ck_complete_step(A, nb)) stage |= CK_STAGE_LIGHT;
    int rc = step_checksums_at(A, nb, stage);
    A->t_checks += ls_now() - t0;
    return rc;
}

/* One training step of every active engine, in lockstep: batch, forward,
 * loss, backward, update, then the parameters compared.  full: every
 * tensor compared (bounded when a reference judges the step). */
static int step_once(audit *A, size_t nb, int full) {
    audit_result *r = A->r;
    int E = r->n_engines, rc = 0;
    int with_ref = 0;
    for (int i = 0; i < E; i++) with_ref |= A->active[i] && r->eng[i].is_ref;
    /* isolated feeding only from a reference (the leader while one runs):
     * a fed engine's checksums are skipped (ck_fed) because the reference
     * judges the step per element instead; fed by an fp32 leader (a full
     * step after --ref-steps, or no reference listed) nothing would judge
     * it, so such a step is a sync step (the state set, the layers the
     * engine's own) and its checksums run */
    int iso = full && A->mode_now == MODE_ISOLATED && with_ref;
    A->died = 0;
    if ((rc = shadow_setup(A, with_ref))) return rc;
    /* who feeds whom: isolated mode feeds every engine the leader's inputs;
     * a free-mode shadow step feeds the references the shadowed engine's */
    A->feed_all = iso;
    A->feed_src = iso ? leader(A) : (full && A->mode_now != MODE_ISOLATED && A->shadow_src >= 0 ? A->shadow_src : -1);
    A->bounded_step = A->feed_src >= 0 && with_ref && (iso ? r->eng[A->feed_src].is_ref : 1);
    {
        CMP_BEGIN(A);
        rc = step_prepare(A, full);
        CMP_END(A);
        if (rc) return rc;
    }
    CALL_ALL(A, engine_set_batch(e, A->x, A->y, nb, (uint64_t)A->step));
    float *losses = A->losses;
    if ((rc = step_forward(A, nb, full)) || (rc = step_loss(A, nb, full, losses)) ||
        (rc = step_backward(A, nb, full)) || (rc = step_checksums(A, nb, CK_STAGE_STEP)) || (rc = step_update(A)) ||
        (rc = step_checksums(A, nb, CK_STAGE_UPDATE)))
        return rc;
    {
        CMP_BEGIN(A);
        rc = step_params(A, full, losses);
        A->bounded_step = 0;
        CMP_END(A);
        if (rc) return rc;
    }
    for (int i = 0; i < E; i++) r->eng[i].steps_run += A->active[i];
    return LS_OK;
}

/* ---- state round-trip -------------------------------------------------- */

/* The state an engine trains with must be the state it reports.  A fully
 * compared step owes each fp32 engine a round trip, judged at the engine's
 * next plain step (free mode: the next step; sync and isolated modes: the
 * next step not fully compared, as their full steps set every engine's
 * state or layer inputs).  Before that step the driver reads the state
 * the engine reports (PARAMS, ADAM_M, ADAM_V); the engine then trains the
 * step as it would without the audit; after it, a digest of everything
 * the step computed is read.  A second instance of the same engine spec
 * (the clone, a process of its own created with the engines) is loaded
 * with the reported state through set_tensor and runs the same step —
 * same batch, dropout key and Adam t — twice.  The clone's two runs agree
 * bitwise for a deterministic engine; if they do and the engine's own step
 * does not, something the engine computes with (a blocked weight copy, a
 * cached layout, a lazily materialised tensor, optimizer state on a
 * device, a trigger keyed to what it did before) is not what it reports.
 * The engine is never set or stepped by the check: state it keeps apart
 * and refreshes at each update, or a fault keyed to "the first step after
 * an evaluation", meets the training step itself (zoo attacks 10 and 11).
 * Costs two steps of the clone per check and its memory. */

/* The digest of a step: each layer's ACT, the loss, the gradients per
 * model tensor, then the parameters, m and v it leaves, all read after
 * the update (the engine's own step is read there, and the clone's the
 * same way).  The first digest that differs between two steps names
 * where they part (a stale fc1 weight copy shows first at fc1.act). */
static size_t probe_len(const model *m) { return (size_t)m->n_layers + 1 + 4 * (size_t)m->n_tensors; }

static void probe_name(const model *m, size_t k, char *buf, size_t cap) {
    size_t L = (size_t)m->n_layers, T = (size_t)m->n_tensors;
    static const char *const what[4] = {".grad", "", ".adam_m", ".adam_v"};
    if (k < L) snprintf(buf, cap, "%s.act", m->layers[k].name);
    else if (k == L) snprintf(buf, cap, "loss");
    else snprintf(buf, cap, "%s%s", m->tensors[(k - L - 1) % T].name, what[(k - L - 1) / T]);
}

/* Read the digest of the step engine e just ran (loss: the value it
 * reported); *input_bad when the images it holds are not the batch: a
 * fault keyed to "the first set_batch after an evaluation" (zoo attack
 * 11, input_after_eval_stale) is a bad input, not a state mismatch. */
static int step_digest(audit *A, engine *e, size_t nb, float loss, uint64_t *dig, float *buf, int *input_bad) {
    const model *m = &A->m;
    size_t L = (size_t)m->n_layers, T = (size_t)m->n_tensors, k = 0;
    size_t nin = tensor_numel(m, (tensor_id){TENSOR_INPUT, 0}, nb);
    int rc = engine_get_tensor(e, (tensor_id){TENSOR_INPUT, 0}, A->lead);
    *input_bad = !rc && memcmp(A->lead, A->x, nin * sizeof *A->x) != 0;
    for (size_t l = 0; l < L && !rc; l++) {
        rc = engine_get_tensor(e, (tensor_id){TENSOR_ACT, (int)l}, A->lead);
        if (!rc) dig[k++] = ck_digest(A->lead, tensor_numel(m, (tensor_id){TENSOR_ACT, (int)l}, nb));
    }
    if (!rc) dig[k++] = ck_digest(&loss, 1);
    tensor_kind ks[4] = {TENSOR_GRADS, TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V};
    for (int q = 0; q < 4 && !rc; q++) {
        rc = engine_get_tensor(e, (tensor_id){ks[q], 0}, buf);
        for (size_t t = 0; t < T && !rc; t++) dig[k++] = ck_digest(buf + m->tensors[t].offset, m->tensors[t].numel);
    }
    return rc;
}

/* The state an engine reports (parameters, Adam m, v) into st (3 np floats) */
static int get_state3(engine *e, float *st, size_t np) {
    int rc = engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, st);
    if (!rc) rc = engine_get_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, st + np);
    if (!rc) rc = engine_get_tensor(e, (tensor_id){TENSOR_ADAM_V, 0}, st + 2 * np);
    return rc;
}

/* ... and st set as an engine's state */
static int set_state3(engine *e, const float *st, size_t np) {
    int rc = engine_set_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, st);
    if (!rc) rc = engine_set_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, st + np);
    if (!rc) rc = engine_set_tensor(e, (tensor_id){TENSOR_ADAM_V, 0}, st + 2 * np);
    return rc;
}

/* One run of this step on engine i's clone from the state the engine
 * reported before it (A->rt_state[i]: params, m, v).  hist: the history
 * replayed first, RT_AFTER_EVAL and/or RT_AFTER_PARTIAL. */
enum { RT_AFTER_EVAL = 1, RT_AFTER_PARTIAL = 2, RT_AFTER_PREV = 4 };
static int clone_step(audit *A, int i, size_t nb, int hist, uint64_t *dig, float *buf, int *input_bad) {
    engine *c = A->rt_clone[i];
    size_t np = A->m.n_params;
    const float *st = A->rt_state[i];
    float loss = 0;
    int after_eval = hist & RT_AFTER_EVAL, rc = 0;
    if (hist & RT_AFTER_PREV) {
        /* zoo attack 16: first the step before (a fully compared one, run by the engine as a plain step) from
         * the state the engine reported before it, on its batch: what that step leaves in the engine (a buffer,
         * a mask, an input copy) is then in the clone too; its state is set back to the reported one below */
        const float *ps = A->rt_pstate[i];
        rc = set_state3(c, ps, np);
        if (!rc)
            rc = engine_train_step(c, A->rt_px, A->rt_py, A->rt_pnb, (uint64_t)A->rt_pstep, &A->cfg.run.adam,
                                   (int)A->rt_pstep, &loss);
    }
    if (!rc && (hist & RT_AFTER_PARTIAL)) {
        /* zoo attack 13: first one training step on a batch of the size the engine's step before had (a partial
         * batch, smaller than this one: the first rt_prev_nb images of this batch), as the engine's history has;
         * its state is then set back to the reported one below */
        rc = engine_train_step(c, A->x, A->y, A->rt_prev_nb, (uint64_t)(A->step - 1), &A->cfg.run.adam,
                               (int)(A->step - 1), &loss);
    }
    if (!rc) rc = set_state3(c, st, np);
    /* after_eval: first one inference pass on the batch, as an evaluation makes (set_batch at step 0, forward
     * in inference mode) */
    if (!rc && after_eval) rc = engine_set_batch(c, A->x, A->y, nb, 0);
    if (!rc && after_eval) rc = engine_forward(c, 0);
    if (!rc) rc = engine_train_step(c, A->x, A->y, nb, (uint64_t)A->step, &A->cfg.run.adam, (int)A->step, &loss);
    if (!rc) rc = step_digest(A, c, nb, loss, dig, buf, input_bad);
    return rc;
}

/* Whether engine i and its clone, both fresh, describe the same kernels,
 * algorithms and modes.  Later describe()s differ by history (the batch
 * sizes built, tensors set from outside), so the comparison is made once,
 * at creation: an engine whose choices are not a function of its spec —
 * cuda algo=fast times cudnnFind per instance (describe() carries the
 * times) — has no clone, since its second instance may run other kernels
 * at some step and the round trip would blame the state for it. */
static int clone_alike(audit *A, int i) {
    char *a = engine_describe(A->e[i]), *b = engine_describe(A->rt_clone[i]);
    int same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return same;
}

/* The clone of engine i is gone or unusable: no more round trips for it,
 * and the run says why (rt_none). */
static void clone_drop(audit *A, int i, const char *why) {
    audit_engine *ae = &A->r->eng[i];
    snprintf(ae->rt_none, sizeof ae->rt_none, "%s", why);
    fprintf(stderr, "lockstep audit: engine %s: no state round trip from here on (%s)\n", ae->label, why);
    engine_free(A->rt_clone[i]);
    A->rt_clone[i] = NULL;
    A->rt_now[i] = A->rt_owed[i] = 0;
}

/* The state round trip's second instances, created with the engines (a
 * child forked before this process starts OpenMP or CUDA) and after all of
 * them (LS_FAULT_ONE_COPY counts processes in creation order).  Every fp32
 * engine that trains here has one; a reference is the judge, not judged,
 * and a recording's state is the file.  One that cannot be created, or that
 * describes other kernels than its engine (a timed algorithm choice), is
 * no clone: that engine's round trip is off and rt_none says why. */
static void make_clones(audit *A, const engine_opts *eo) {
    audit_result *r = A->r;
    for (int i = 0; i < r->n_engines && A->cfg.roundtrip; i++) {
        audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || ae->recorded) continue;
        int rc = remote_engine_create(&A->rt_clone[i], ae->spec, &A->m, eo);
        char why[200];
        if (rc) {
            snprintf(why, sizeof why, "its second instance could not be created: %s", ls_errmsg());
            clone_drop(A, i, why);
            continue;
        }
        if (!clone_alike(A, i)) {
            snprintf(why, sizeof why, "its second instance does not describe the same kernels and choices (chosen per "
                     "instance, e.g. timed: cuda algo=fast)");
            clone_drop(A, i, why);
        }
    }
}

/* Before a drift step: each engine owed a round trip whose step this is
 * a plain one has the state it reports read (the step is then judged by
 * roundtrip()). */
static int roundtrip_before(audit *A, size_t nb, int full) {
    audit_result *r = A->r;
    size_t np = A->m.n_params;
    int plain = !full || A->mode_now == MODE_FREE;
    A->rt_qstep = 0;
    for (int i = 0; i < r->n_engines && full && plain && A->step > 0; i++) {
        /* zoo attack 16: this step owes the next a round trip; keep what the clone needs to replay it */
        if (!A->rt_clone[i] || !A->active[i]) continue;
        size_t nin = tensor_numel(&A->m, (tensor_id){TENSOR_INPUT, 0}, A->cfg.run.batch);
        if (!A->rt_qstate[i] && !(A->rt_qstate[i] = ls_malloc(3 * np * sizeof(float)))) return LS_ENOMEM;
        if (!A->rt_qx && !(A->rt_qx = ls_malloc(nin * sizeof(float)))) return LS_ENOMEM;
        if (!A->rt_qy && !(A->rt_qy = ls_malloc(A->cfg.run.batch * sizeof(int32_t)))) return LS_ENOMEM;
        float *st = A->rt_qstate[i];
        int rc = get_state3(A->e[i], st, np);
        if (rc && engine_gone(A, i)) continue;
        if (rc) return engine_err(rc, r->eng[i].label, "state round-trip check");
        A->rt_qstep = A->step;
    }
    if (A->rt_qstep == A->step && A->step > 0) {
        memcpy(A->rt_qx, A->x, tensor_numel(&A->m, (tensor_id){TENSOR_INPUT, 0}, nb) * sizeof(float));
        memcpy(A->rt_qy, A->y, nb * sizeof(int32_t));
        A->rt_qnb = nb;
    }
    for (int i = 0; i < r->n_engines; i++) {
        A->rt_now[i] = 0;
        if (!A->rt_owed[i] || !A->rt_clone[i] || !A->active[i] || !plain) continue;
        if (!A->rt_state[i] && !(A->rt_state[i] = ls_malloc(3 * np * sizeof(float)))) return LS_ENOMEM;
        float *st = A->rt_state[i];
        int rc = get_state3(A->e[i], st, np);
        if (rc && engine_gone(A, i)) continue;
        if (rc) return engine_err(rc, r->eng[i].label, "state round-trip check");
        A->rt_now[i] = 1;
    }
    return 0;
}

/* After the step: judge the round trips read before it (roundtrip_before),
 * then owe one to the next plain step when this step was fully compared. */
static int roundtrip(audit *A, size_t nb, int full) {
    audit_result *r = A->r;
    const model *m = &A->m;
    size_t nd = probe_len(m);
    uint64_t *d = malloc(4 * nd * sizeof *d);
    float *buf = ls_malloc(m->n_params * sizeof *buf);
    int rc = 0;
    if (!d || !buf) {
        free(d);
        free(buf);
        return ls_err(LS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < r->n_engines && !rc; i++) {
        audit_engine *ae = &r->eng[i];
        if (!A->rt_now[i] || !A->active[i]) continue;
        A->rt_now[i] = A->rt_owed[i] = 0;
        int bad[3] = {0, 0, 0};
        if ((rc = step_digest(A, A->e[i], nb, A->losses[i], d, buf, &bad[0]))) {
            if (engine_gone(A, i)) rc = 0;
            else rc = engine_err(rc, ae->label, "");
            continue;
        }
        for (int k = 1; k < 3 && !rc; k++) rc = clone_step(A, i, nb, 0, d + k * nd, buf, &bad[k]);
        size_t k = 0;
        while (k < nd && d[k] == d[nd + k]) k++;
        int after_eval = 0, after_partial = 0, after_prev = 0;
        if (!rc && k < nd && !bad[0] && !bad[1] && !bad[2] && !ae->rt_fail_step && !ae->rt_eval_step &&
            !ae->rt_partial_step && !ae->rt_prev_step &&
            memcmp(d + nd, d + 2 * nd, nd * sizeof *d) == 0) {
            /* The engine's step parted from the clone's.  Its cause is the state only if an inference pass
             * does not explain it: a fault keyed to "the first training step after an evaluation" (a mode,
             * flag or buffer the evaluation leaves set, read by that step) fires in the engine, which
             * evaluated, and not in the clone, which never does - the state is right (zoo attack 12,
             * fc2_bias_twice_first_after_eval: it read "the state it trains with is not the state it
             * reports").  So the clone runs the step once more from the reported state after one inference
             * pass; if that reproduces the engine's step bit for bit, the evaluation's side effect is named
             * at the layer and phase of the first differing digest; else the state.  Runs only where the
             * engine parted (never on a correct engine). */
            int bad3 = 0;
            rc = clone_step(A, i, nb, RT_AFTER_EVAL, d + 3 * nd, buf, &bad3);
            after_eval = !rc && !bad3 && memcmp(d, d + 3 * nd, nd * sizeof *d) == 0;
            /* Zoo attack 13: the same for a step that follows a partial batch (the last of an epoch, its own
             * batch size): a fault keyed to "the first full batch after a partial one" (a batch size, a
             * buffer's row count kept from it) fires in the engine and not in the clone, which never ran a
             * partial batch (partial_next_fc1_dw_short read "the state it trains with is not the state it
             * reports").  The clone runs one training step on a batch of that size, is set back to the reported
             * state, then runs the step (after an inference pass as well, the epoch's evaluation); bit for bit
             * the engine's: the partial batch's side effect, named at the first differing digest. */
            int partial_before = A->rt_prev_nb && A->rt_prev_nb < nb && A->step > 1;
            int last = RT_AFTER_PARTIAL | RT_AFTER_EVAL;
            for (int h = RT_AFTER_PARTIAL; partial_before && !rc && !after_eval && !after_partial && h <= last; h++) {
                rc = clone_step(A, i, nb, h, d + 3 * nd, buf, &bad3);
                if (!rc && !bad3 && memcmp(d, d + 3 * nd, nd * sizeof *d) == 0) after_partial = h;
            }
            /* Zoo attack 16: a fault that reads what the step before left (a buffer not refreshed: conv2's forward
             * on step 1's pool1 output, relu3's backward with step 1's mask) fires in the engine, which ran that
             * step, and not in the clone, which never did: it read "the state it trains with is not the state it
             * reports".  The clone replays the step before (a fully compared one, which the engine ran as a plain
             * step) from the state the engine reported before it, on its batch, is set back to the reported state,
             * then runs this step (after an inference pass as well, for an epoch's evaluation between them); bit
             * for bit the engine's: the previous step's side effect, named at the first differing digest.  A stale
             * weight or moment copy is not reproduced: setting the reported state refreshes the clone's copies. */
            int prev_kept = A->rt_pstep > 0 && A->rt_pstep == A->step - 1 && A->rt_pstate[i];
            for (int h = RT_AFTER_PREV; prev_kept && !rc && !after_eval && !after_partial && !after_prev &&
                                        h <= (RT_AFTER_PREV | RT_AFTER_EVAL);
                 h += RT_AFTER_EVAL) {
                rc = clone_step(A, i, nb, h, d + 3 * nd, buf, &bad3);
                if (!rc && !bad3 && memcmp(d, d + 3 * nd, nd * sizeof *d) == 0) after_prev = h;
            }
        }
        if (rc) {
            /* the clone is no part of the audited run: its failure ends its
             * round trips, not the audit */
            char why[200];
            const char *dead = remote_engine_dead(A->rt_clone[i]);
            snprintf(why, sizeof why, "its second instance %s at step %ld: %s", dead ? "died" : "failed", A->step,
                     dead ? dead : ls_errmsg());
            clone_drop(A, i, why);
            rc = 0;
            continue;
        }
        ae->rt_checks++;
        if (bad[0] || bad[1] || bad[2]) {
            /* not a state fault: the input was not the batch; the digests
             * then differ from the first layer on whatever the state */
            if (!ae->rt_input_step) ae->rt_input_step = A->step;
            continue;
        }
        if (memcmp(d + nd, d + 2 * nd, nd * sizeof *d) != 0) {
            ae->rt_nondet++; /* the check needs a deterministic engine */
            continue;
        }
        if (k < nd && !ae->rt_fail_step && !ae->rt_eval_step && !ae->rt_partial_step && !ae->rt_prev_step) {
            if (after_eval) ae->rt_eval_step = A->step;
            else if (after_prev) ae->rt_prev_step = A->step;
            else if (after_partial)
                ae->rt_partial_step = A->step, ae->rt_partial_eval = (after_partial & RT_AFTER_EVAL) != 0;
            else ae->rt_fail_step = A->step;
            probe_name(m, k, ae->rt_first, sizeof ae->rt_first);
        }
    }
    for (int i = 0; i < r->n_engines && !rc && full && A->cfg.roundtrip; i++)
        A->rt_owed[i] = A->rt_clone[i] && A->active[i];
    if (rc) rc = ls_err_prefix(rc, "state round-trip check");
    free(d);
    free(buf);
    return rc;
}


/* ---- the run ------------------------------------------------------------ */

/* After the run: which tensors an engine, when they were set from outside,
 * could not feed to the kernel it trains with (the cpu engine's describe()
 * "other_path": {"relu1.act": N, ...}); those checks judged another path. */
static void other_paths(audit_engine *ae, engine *e) {
    char *d = engine_describe(e);
    const char *p = d ? strstr(d, "\"other_path\"") : NULL;
    ae->other_path[0] = 0;
    if (p && (p = strchr(p, '{'))) {
        size_t n = 0;
        for (p++; *p && *p != '}';) {
            const char *k = strchr(p, '"');
            if (!k) break;
            const char *ke = strchr(k + 1, '"');
            if (!ke) break;
            const char *v = strchr(ke, ':');
            if (!v) break;
            long cnt = strtol(v + 1, (char **)&p, 10);
            if (cnt > 0 && n + (size_t)(ke - k) + 4 < sizeof ae->other_path)
                n += (size_t)snprintf(ae->other_path + n, sizeof ae->other_path - n, "%s%.*s", n ? ", " : "",
                                      (int)(ke - k - 1), k + 1);
            while (*p == ',' || *p == ' ') p++;
        }
    }
    free(d);
}


/* Refuse a batch whose buffers cannot fit (e.g. --batch 65536 on
 * smallcnn: ~11 GiB of activations per copy) before forking anything.  Per
 * engine process: activations and their gradients and a workspace (3
 * copies) and the shared region (the largest tensor in doubles); in the
 * driver: one fp32 fetch buffer per engine and 3 double buffers (the
 * reference read-out, two bounds).  An estimate, not an exact count. */
static int check_audit_memory(const audit *A) {
    const model *m = &A->m;
    size_t B = A->cfg.run.batch, acts = (size_t)m->in_c * m->in_h * m->in_w, widest = acts;
    for (int l = 0; l < m->n_layers; l++) {
        acts += layer_out_size(&m->layers[l]);
        if (layer_out_size(&m->layers[l]) > widest) widest = layer_out_size(&m->layers[l]);
    }
    size_t maxf = B * widest > m->n_params ? B * widest : m->n_params;
    size_t E = 1, clones = 0;
    for (const char *p = A->cfg.engines; *p; p++) E += *p == ',';
    /* the state round trip's second instances: one more process per engine
     * that trains here (not a reference, not a recording) */
    for (const char *p = A->cfg.engines; A->cfg.roundtrip && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
        clones += strncmp(p, "reference", 9) != 0 && strncmp(p, "ref,", 4) != 0 && strncmp(p, "ref:", 4) != 0 &&
                  strcmp(p, "ref") != 0 && strncmp(p, "recorded:", 9) != 0;
    E *= (size_t)(A->cfg.repeat > 0 ? A->cfg.repeat : 1);
    clones *= (size_t)(A->cfg.repeat > 0 ? A->cfg.repeat : 1);
    double bytes = (double)(E + clones) * (3.0 * B * acts * 4 + 4.0 * m->n_params * 4 + maxf * 8.0) +
                   (double)E * maxf * 4 + 3.0 * maxf * 8;
    char what[160];
    snprintf(what, sizeof what, "an audit of %zu engine(s) on model %s at batch %zu", E, m->name, B);
    return ls_check_memory(bytes > 1e19 ? (size_t)-1 : (size_t)bytes, what);
}

/* A recording holds every tensor only at its plan's steps, so the audit
 * runs that plan: its --audit-every and --ref-steps are adopted, unless
 * given on the command line (or by another recording) otherwise. */
static int adopt_plan(audit *A, const recording *rec) {
    const char *why = A->plan_from ? A->plan_from : "given on the command line";
    if (rec->audit_every != A->cfg.audit_every) {
        if (A->cfg.audit_every_set || A->plan_from)
            return ls_err(LS_EINVAL, "recorded:%s: recorded with audit_every %ld, this audit has %ld (%s) "
                          "(field: audit_every)", rec->path, rec->audit_every, A->cfg.audit_every, why);
        A->cfg.audit_every = rec->audit_every;
    }
    if (rec->ref_steps != A->cfg.ref_steps) {
        if (A->cfg.ref_steps_set || A->plan_from)
            return ls_err(LS_EINVAL, "recorded:%s: recorded with ref_steps %ld, this audit has %ld (%s) "
                          "(field: ref_steps)", rec->path, rec->ref_steps, A->cfg.ref_steps, why);
        A->cfg.ref_steps = rec->ref_steps;
    }
    if (!A->plan_from) A->plan_from = rec->path;
    return LS_OK;
}

/* Every engine to the same fp32 initial weights, m = v = 0 (perturb=K
 * engines: those weights moved K ulps each).  Called before each phase. */
static int set_initial(audit *A) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    int rc = 0;
    float *params = ls_malloc(A->m.n_params * sizeof *params);
    float *moved = ls_malloc(A->m.n_params * sizeof *moved);
    if (!params || !moved) {
        free(params);
        free(moved);
        return LS_ENOMEM;
    }
    rc = st_init_params(&A->m, rc_->init_path, rc_->seed, params); /* --init, else the seeded draw */
    if (rc && rc_->init_path) ls_err_option(rc, "--init", rc_->init_path);
    for (int i = 0; i < r->n_engines && !rc; i++) {
        if (!r->eng[i].available) continue;
        const float *p0 = params;
        if (r->eng[i].perturb_ulps) {
            for (size_t k = 0; k < A->m.n_params; k++) {
                /* keyed by the first run's index, so a --repeat copy starts
                 * from the same perturbed weights */
                int base = r->eng[i].repeat_of >= 0 ? r->eng[i].repeat_of : i;
                /* draw 0 is the direction used before draws existed */
                int up = rng_u32(rc_->seed, (uint32_t)k, (uint32_t)base, (uint32_t)r->eng[i].perturb_draw,
                                 RNG_STREAM_PERTURB) & 1;
                float v = params[k];
                for (int u = 0; u < r->eng[i].perturb_ulps; u++) v = nextafterf(v, up ? INFINITY : -INFINITY);
                moved[k] = v;
            }
            p0 = moved;
        }
        if ((rc = engine_set_params(A->e[i], p0)) || r->eng[i].recorded) {
            if (rc) rc = engine_gone(A, i) ? 0 : engine_err(rc, r->eng[i].label, "");
            every_step_break_chain(&r->eng[i]); /* a recording's state is its own, judged by its records */
        } else if (A->cfg.checksums) {
            /* the first drift step must compute with what was set (p0, m = v = 0): a restore the
             * engine ignores, in whole or in part, is that step's continuity violation.  Not
             * with --no-checksums: no update would ever advance the chain, and the read-back
             * ties (every_step_readback_state) would hold every later read to the initial state */
            rc = every_step_seed_chain(&r->eng[i], &A->m, p0);
        }
    }
    free(moved);
    free(params);
    return rc;
}


void audit_result_free(audit_result *r) {
    if (r->seeds) {
        seeds_result_free(r->seeds);
        free(r->seeds);
    }
    for (int i = 0; i < r->n_engines; i++) {
        free(r->eng[i].describe);
        free(r->eng[i].confusion);
        free(r->eng[i].pred);
        free(r->eng[i].pred_epoch);
        free(r->eng[i].logits);
        free(r->eng[i].tsamples);
        free(r->eng[i].ck_step_ratio);
        free(r->eng[i].ck_step_sharp);
        free(r->eng[i].ck_step_unjudged);
        free(r->eng[i].ck_step_elem);
        free(r->eng[i].ck_step_op);
    }
    free(r->test_labels);
    free(r->full_steps);
    for (int pi = 0; pi < r->n_pairs; pi++) {
        free(r->pair[pi].mcnemar_class);
        free(r->pair[pi].param_rel_l2);
        free(r->pair[pi].param_max_ulp);
        free(r->pair[pi].loss_diff);
    }
    dataset_free(&r->ds);
    memset(r, 0, sizeof *r);
}

int audit_slot(const audit_result *r, const char *name) {
    for (int s = 0; s < r->n_slots; s++)
        if (strcmp(r->slot_name[s], name) == 0) return s;
    return -1;
}

int audit_pair_index(const audit_result *r, const char *a, const char *b) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const char *x = r->eng[r->pair[pi].a].label, *y = r->eng[r->pair[pi].b].label;
        if ((strcmp(x, a) == 0 && strcmp(y, b) == 0) || (strcmp(x, b) == 0 && strcmp(y, a) == 0)) return pi;
    }
    return -1;
}

/* Every evaluation batch's checksums (inference mode: dropout must be the
 * identity), and continuity with the last update's state. */
typedef struct {
    audit *A;
    audit_engine *ae;
    int unused;
} eval_ck;

static int eval_checksums(void *ctx, engine *e, const float *x, const int32_t *labels, size_t n,
                          const float *logits) {
    eval_ck *c = ctx;
    const model *m = &c->A->m;
    double t0 = ls_now();
    uint64_t xd = ck_digest(x, n * (size_t)m->in_c * m->in_h * m->in_w);
    bounds_dups dd;
    bounds_dup_groups(x, labels, n, (size_t)m->in_c * m->in_h * m->in_w, &dd);
    int rc = every_step_stage(e, c->ae, m, CK_STAGE_EVAL, n, labels, &xd, &dd, 0, c->A->epoch, c->A->ck_vec);
    /* the logits the accuracy is counted from are those the checks judged */
    if (!rc) every_step_readback_logits(e, c->ae, m, n, c->A->ck_vec, logits, 0, c->A->epoch, 1);
    c->A->t_checks += ls_now() - t0;
    return rc;
}

enum { EVAL_REF_IMAGES = 256 };

/* One batch of the evaluation-vs-reference check: engine i and reference
 * R forward the same test images in inference mode with engine i's
 * weights (already set on R, in A->pf); the engine's logits against the
 * reference's, each within the forward error propagated through the
 * network from the engine's own layer inputs (bounds_eval_layer). */
static int eval_ref_batch(audit *A, int i, int R, size_t s0, size_t nb, audit_engine *ae) {
    const model *m = &A->m;
    int rc, L = m->n_layers, C = m->n_classes;
    engine *e = A->e[i];
    if ((rc = engine_set_batch(e, A->x, A->y, nb, 0)) || (rc = engine_forward(e, 0)) ||
        (rc = engine_set_batch(A->e[R], A->x, A->y, nb, 0)) || (rc = engine_forward(A->e[R], 0)))
        return rc;
    double *err = A->bound, *err2 = A->bound2;
    memset(err, 0, nb * (size_t)m->in_c * m->in_h * m->in_w * sizeof *err); /* the same fp32 images: exact */
    for (int l = 0; l < L; l++) {
        const float *xin = A->x;
        if (l > 0) {
            if ((rc = engine_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, A->fb[i]))) return rc;
            xin = A->fb[i];
            /* an input inf or NaN where its propagated bound is finite: every legal fp32 evaluation up to here
             * stays within that bound of the finite exact value (where one may overflow the bound is +inf,
             * bounds_range_unbound), so this one is over it - and the +inf it makes downstream would leave the
             * logits unjudged: judged here, ratio inf */
            size_t ni = nb * layer_in_size(&m->layers[l]);
            for (size_t q = 0; q < ni; q++)
                if (!isfinite(xin[q]) && isfinite(err[q])) {
                    ae->ev_ref_inner++;
                    ae->ev_ref_worst = INFINITY;
                }
        }
        bounds_eval_layer(m, l, A->pf, xin, err, err2, A->lead, A->bound3, nb);
        double *t = err;
        err = err2, err2 = t;
    }
    if ((rc = engine_get_tensor(e, (tensor_id){TENSOR_ACT, L - 1}, A->fb[i])) ||
        (rc = engine_get_tensor_f64(A->e[R], (tensor_id){TENSOR_ACT, L - 1}, A->db[R])))
        return rc;
    /* The same weights and the same images as the evaluation just counted (its batches, from image 0): a
     * deterministic engine gives the same logits bit for bit.  Otherwise the accuracy was counted from one
     * computation and the reference judged another - a fault in one pass below the evaluation's every-step
     * tolerance (zoo attack 12, eval_conv2_interior_bitflip_last: one conv2 output 6000 ulps off, VERDICT
     * ok), or one that fires in the comparison pass alone. */
    for (size_t k = 0; ae->ev_ref_tie_on && ae->logits && k < nb; k++)
        if (memcmp(A->fb[i] + k * C, ae->logits + (s0 + k) * C, (size_t)C * sizeof *A->fb[i]) != 0 &&
            !ae->ev_ref_tie_bad++)
            ae->ev_ref_tie_first = (long)(s0 + k);
    for (size_t k = 0; k < nb; k++) {
        int bz = 0, br = 0;
        for (int j = 0; j < C; j++) {
            size_t q = k * C + j;
            if (isinf(err[q])) /* no information (fp32 may overflow on the way): not judged, counted */
                ae->ev_ref_unjudged++;
            else {
                double d = fabs((double)A->fb[i][q] - A->db[R][q]);
                double ratio = err[q] > 0 ? d / err[q] : (d == 0 ? 0 : INFINITY);
                if (ratio > ae->ev_ref_worst || ratio != ratio) ae->ev_ref_worst = ratio != ratio ? INFINITY : ratio;
                ae->ev_ref_over += ratio > 1;
            }
            if (A->fb[i][q] > A->fb[i][k * C + bz]) bz = j;
            if (A->db[R][q] > A->db[R][k * C + br]) br = j;
        }
        ae->ev_ref_pred_diff += bz != br;
    }
    ae->ev_ref_images += (long)nb;
    return 0;
}

/* The last epoch: each fp32 engine's evaluation against the reference on
 * the first EVAL_REF_IMAGES test images (all when fewer), from the
 * engine's own weights.  The reference's state is not needed afterwards. */
static int eval_vs_reference(audit *A) {
    audit_result *r = A->r;
    int R = -1;
    for (int i = 0; i < r->n_engines && R < 0; i++)
        if (r->eng[i].available && r->eng[i].is_ref && !r->eng[i].failed && !r->eng[i].ref_fp32cr) R = i;
    size_t n = r->n_test < EVAL_REF_IMAGES ? r->n_test : EVAL_REF_IMAGES, B = A->cfg.run.batch;
    for (int i = 0; i < r->n_engines; i++) {
        audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || ae->failed) continue;
        ae->ev_ref_images = 0, ae->ev_ref_worst = 0, ae->ev_ref_over = 0, ae->ev_ref_pred_diff = 0;
        ae->ev_ref_unjudged = 0, ae->ev_ref_inner = 0;
        ae->ev_ref_tie_bad = 0, ae->ev_ref_tie_first = 0;
        /* the tie needs a deterministic forward: the host cpu engine (a repeat of it is judged bit for bit
         * too); a device's algorithms may not be */
        engine_spec tsp;
        ae->ev_ref_tie_on = !engine_spec_parse(&tsp, ae->spec) && strcmp(tsp.name, "cpu") == 0;
        ae->ev_ref_epoch = A->epoch + 1;
        int ref_failed = 0; /* listed, but its process died: not "not listed" */
        for (int k = 0; k < r->n_engines; k++)
            ref_failed |= r->eng[k].available && r->eng[k].is_ref && r->eng[k].failed && !r->eng[k].ref_fp32cr;
        const char *why = R < 0 ? (ref_failed ? "the exact reference failed during the run" : "no exact reference listed")
                        : ae->recorded ? "a recording: its layer inputs are not kept"
                        : strstr(ae->spec, "tf32=on") || strstr(ae->spec, "dtype=bf16") || strstr(ae->spec, "math=tf32")
                            ? "reduced precision: the propagated bound is fp32's" : NULL;
        if (why) {
            snprintf(ae->ev_ref_why, sizeof ae->ev_ref_why, "%s", why);
            continue;
        }
        int rc = engine_get_tensor(A->e[i], (tensor_id){TENSOR_PARAMS, 0}, A->pf);
        if (!rc)
            every_step_readback_state(ae, &A->m, A->pf, NULL, NULL, "the evaluation against the reference", A->step,
                                      A->epoch);
        if (!rc) rc = engine_set_tensor(A->e[R], (tensor_id){TENSOR_PARAMS, 0}, A->pf);
        for (size_t s = 0; s < n && !rc; s += B) {
            size_t nb = n - s < B ? n - s : B;
            data_make_batch(&A->ds.test, NULL, s, nb, A->x, A->y);
            rc = eval_ref_batch(A, i, R, s, nb, ae);
        }
        every_step_break_chain(&r->eng[R]);
        if (rc && (engine_gone(A, i) || engine_gone(A, R))) continue;
        if (rc) return engine_err(rc, ae->label, "evaluation vs the reference");
    }
    return 0;
}

/* Evaluate every non-reference engine on the test set; keep its
 * predictions of every epoch and the last epoch's logits (for margins), and
 * fill each pair's disagreement count and exact McNemar test (overall and
 * per class) for this epoch. */
/* A recording's evaluation vectors (it evaluates nothing itself): each
 * batch of the test slice positioned and judged as a live engine's are,
 * its input digest against the batch made here. */
static int recorded_eval_checksums(audit *A, int i, audit_engine *ae, int ep, size_t n, const float *logits) {
    size_t B = A->cfg.run.batch;
    for (size_t b = 0; b * B < n && ae->ck_have; b++) {
        size_t nb = n - b * B < B ? n - b * B : B;
        data_make_batch(&A->ds.test, NULL, b * B, nb, A->x, A->y);
        double t0 = ls_now();
        uint64_t xd = ck_digest(A->x, nb * (size_t)A->m.in_c * A->m.in_h * A->m.in_w);
        bounds_dups dd;
        bounds_dup_groups(A->x, A->y, nb, (size_t)A->m.in_c * A->m.in_h * A->m.in_w, &dd);
        int rc = engine_recorded_eval_at(A->e[i], ep, b);
        if (!rc) rc = every_step_stage(A->e[i], ae, &A->m, CK_STAGE_EVAL, nb, A->y, &xd, &dd, 0, ep, A->ck_vec);
        /* the recorded logits its accuracy is counted from, against its recorded checks */
        if (!rc && logits)
            every_step_readback_logits(A->e[i], ae, &A->m, nb, A->ck_vec, logits + b * B * (size_t)A->m.n_classes, 0,
                                       ep, 1);
        A->t_checks += ls_now() - t0;
        if (rc) return rc;
    }
    return LS_OK;
}

static int evaluate(audit *A) {
    audit_result *r = A->r;
    int ep = A->epoch, C = A->m.n_classes;
    size_t n = A->cfg.run.limit_test && A->cfg.run.limit_test < A->ds.test.n ? A->cfg.run.limit_test : A->ds.test.n;
    int E = A->cfg.run.epochs;
    if (!r->test_labels) {
        if (!(r->test_labels = ls_malloc(n ? n : 1))) return LS_ENOMEM;
        memcpy(r->test_labels, A->ds.test.labels, n);
        r->n_test = n;
        r->n_classes = C;
    }
    for (int i = 0; i < r->n_engines; i++) {
        audit_engine *ae = &r->eng[i];
        if (!ae->available) continue;
        /* not evaluated: no accuracy (NaN; run.json null), never a 0% that reads as measured */
        ae->test_acc[ep] = ae->test_loss[ep] = NAN;
        if (ae->is_ref || ae->failed) continue;
        eval_result ev;
        /* a recording's accuracy and predictions: from its recorded logits */
        eval_ck ck = {A, ae, 0};
        long b0 = ae->ck_eval_batches;
        int rc = ae->recorded ? recording_eval(engine_recorded_get(A->e[i]), ep, &A->ds.test, A->cfg.run.limit_test, &ev)
                              : eval_engine_hooked(A->e[i], &A->ds.test, A->cfg.run.limit_test,
                                                   A->cfg.checksums && ae->ck_have ? eval_checksums : NULL, &ck, &ev);
        if (!rc && ae->recorded && ae->ck_have && A->cfg.checksums) rc = recorded_eval_checksums(A, i, ae, ep, n, ev.logits);
        if (!rc && ae->ck_have && A->cfg.checksums && ae->ck_eval_batches - b0 == (long)((n + A->cfg.run.batch - 1) / A->cfg.run.batch))
            ae->ck_eval_epochs++;
        if (rc && engine_gone(A, i)) continue;
        if (rc) return engine_err(rc, ae->label, "evaluation");
        if (!ae->pred_epoch && !(ae->pred_epoch = ls_calloc((size_t)E * (n ? n : 1), 1))) {
            eval_result_free(&ev);
            return LS_ENOMEM;
        }
        memcpy(ae->pred_epoch + (size_t)ep * n, ev.pred, n);
        ae->test_acc[ep] = ev.accuracy;
        ae->test_loss[ep] = ev.loss;
        free(ae->confusion);
        free(ae->pred);
        free(ae->logits);
        ae->confusion = ev.confusion;
        ae->pred = ev.pred;
        ae->logits = ev.logits;
        ev.confusion = NULL;
        ev.pred = NULL;
        ev.logits = NULL;
        eval_result_free(&ev);
    }
    for (int pi = 0; pi < r->n_pairs; pi++) {
        audit_pair *p = &r->pair[pi];
        const audit_engine *a = &r->eng[p->a], *b = &r->eng[p->b];
        if (!a->pred || !b->pred || a->failed || b->failed) continue;
        long d = 0;
        for (size_t k = 0; k < n; k++) d += a->pred[k] != b->pred[k];
        p->disagree[ep] = d;
        if (!p->mcnemar_class && !(p->mcnemar_class = ls_calloc((size_t)E * C, sizeof *p->mcnemar_class)))
            return LS_ENOMEM;
        stats_mcnemar_fill(&p->mcnemar[ep], p->mcnemar_class + (size_t)ep * C, a->pred, b->pred, r->test_labels, n, C);
    }
    /* the last epoch the run reaches (--steps may end it before --epochs does) */
    if ((ep == A->cfg.run.epochs - 1 || A->step >= A->total) && A->cfg.checksums) return eval_vs_reference(A);
    return LS_OK;
}

/* Validate the configuration, build the model, load the data, create the
 * slots and the engines (in child processes), and check every recording
 * against the run (adopting its plan). */
static int audit_setup(audit *A) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    int rc;
    if (A->cfg.repeat < 1 || A->cfg.repeat > 2) return ls_err(LS_EINVAL, "--repeat must be 1 or 2");
    if (rc_->epochs < 1 || rc_->epochs > 64) return ls_err(LS_EINVAL, "--epochs must be in 1..64 for an audit");
    if ((rc = model_build(&A->m, rc_->model))) return ls_err_option(rc, "--model", rc_->model);
    if ((rc = check_audit_memory(A))) return rc;
    if ((rc = dataset_load_shape(&A->ds, rc_->data_dir, A->m.n_classes, A->m.in_h, A->m.in_w))) return rc;
    run_apply_normalize(rc_, &A->ds);
    if ((rc = run_check_classes(rc_, &A->m, &A->ds))) return rc;
    run_note_limits(rc_, &A->ds, "audit");
    if (A->ds.train.rows != A->m.in_h || A->ds.train.cols != A->m.in_w || A->m.in_c != 1)
        return ls_err(LS_EINVAL, "%s: images are %dx%d but model %s expects %dx%dx%d", A->ds.train.images_path,
                      A->ds.train.rows, A->ds.train.cols, A->m.name, A->m.in_c, A->m.in_h, A->m.in_w);
    if ((rc = make_slots(A))) return rc;
    A->n_train = rc_->limit_train && rc_->limit_train < A->ds.train.n ? rc_->limit_train : A->ds.train.n;
    A->spe = steps_per_epoch(A->n_train, rc_->batch);
    A->total = (long)A->spe * rc_->epochs;
    if (rc_->max_steps >= 0 && rc_->max_steps < A->total) A->total = rc_->max_steps;
    r->total_steps = A->total;
    r->batch = rc_->batch;
    /* a --order file must hold every epoch the run reaches: found now, as train does, not after an
     * epoch has trained and the audit ends without a report (and before the engines' processes, a
     * clone each for the state round trip, are made) */
    if (rc_->order_path && A->total > 0) {
        if ((rc = order_load(&A->ord, rc_->order_path, A->n_train))) return ls_err_option(rc, "--order", rc_->order_path);
        long need = (A->total + (long)A->spe - 1) / (long)A->spe;
        if ((long)A->ord.epochs < need)
            return ls_err(LS_EINVAL, "--order %s: the batch order has %zu epoch(s); this run needs %ld (%ld "
                          "steps of %zu per epoch%s)", rc_->order_path, A->ord.epochs, need, A->total, A->spe,
                          rc_->max_steps < 0 ? "; --epochs N sets how many" : "");
    }
    /* children first: nothing in this process has started OpenMP, oneDNN
     * or CUDA yet, so each child begins clean */
    if ((rc = make_engines(A))) return rc;
    for (int i = 0; i < r->n_engines; i++) {
        const recording *rec = r->eng[i].available ? engine_recorded_get(A->e[i]) : NULL;
        if (rec && ((rc = recording_check_run(rec, rc_, &A->m, &A->ds, A->total)) || (rc = adopt_plan(A, rec))))
            return rc;
    }
    return 0;
}

/* The driver's buffers: one tensor per engine, the leader's copies, the
 * bounds, the per-step pair series, the batch and its order. */
static int alloc_buffers(audit *A) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    long total = A->total;
    A->maxf = A->m.n_params;
    size_t in = (size_t)A->m.in_c * A->m.in_h * A->m.in_w;
    if (rc_->batch * in > A->maxf) A->maxf = rc_->batch * in;
    for (int l = 0; l < A->m.n_layers; l++)
        if (rc_->batch * layer_out_size(&A->m.layers[l]) > A->maxf)
            A->maxf = rc_->batch * layer_out_size(&A->m.layers[l]);
    for (int i = 0; i < r->n_engines; i++) {
        if (!r->eng[i].available) continue;
        if (!(A->fb[i] = ls_malloc(A->maxf * sizeof(float)))) return LS_ENOMEM;
        if (r->eng[i].is_ref && !(A->db[i] = ls_malloc(A->maxf * sizeof(double)))) return LS_ENOMEM;
    }
    for (int pi = 0; pi < r->n_pairs; pi++) {
        audit_pair *p = &r->pair[pi];
        p->param_rel_l2 = ls_malloc((size_t)(total ? total : 1) * sizeof(double));
        p->param_max_ulp = ls_malloc((size_t)(total ? total : 1) * sizeof(double));
        p->loss_diff = ls_malloc((size_t)(total ? total : 1) * sizeof(double));
        if (!p->param_rel_l2 || !p->param_max_ulp || !p->loss_diff) return LS_ENOMEM;
        for (long s = 0; s < total; s++) p->param_rel_l2[s] = p->param_max_ulp[s] = p->loss_diff[s] = NAN;
    }
    A->lead = ls_malloc(A->maxf * sizeof(float));
    A->pf = ls_malloc(A->m.n_params * sizeof(float));
    A->x = ls_malloc(rc_->batch * in * sizeof(float));
    A->y = ls_malloc(rc_->batch * sizeof(int32_t));
    A->bound = ls_malloc(A->maxf * sizeof(double));
    A->bound2 = ls_malloc(A->maxf * sizeof(double));
    A->bound3 = ls_malloc(A->maxf * sizeof(double));
    A->bound_tmp = ls_malloc(A->maxf * sizeof(double));
    A->pm = ls_malloc(A->m.n_params * sizeof(float));
    A->pv = ls_malloc(A->m.n_params * sizeof(float));
    A->ovf = ls_malloc(A->m.n_params);
    A->want_p = ls_malloc(A->m.n_params * sizeof(float));
    A->want_v = ls_malloc(A->m.n_params * sizeof(float));
    A->ref_tmp = ls_malloc(A->maxf * sizeof(double));
    A->perm = ls_malloc(A->n_train * sizeof *A->perm);
    ck_layout ckl;
    ck_layout_make(&ckl, &A->m, rc_->batch);
    /* + 1: the operand hash (every_step.h) */
    if (!(A->ck_vec = ls_malloc((ckl.total + 1) * sizeof *A->ck_vec))) return LS_ENOMEM;
    if (!(A->ck_vec2 = ls_malloc((ckl.total + 1) * sizeof *A->ck_vec2))) return LS_ENOMEM;
    for (int i = 0; i < r->n_engines; i++) {
        audit_engine *ae = &r->eng[i];
        if (ae->available && !ae->is_ref && every_step_init(ae, total)) return LS_ENOMEM;
        if (ae->is_ref) snprintf(ae->ck_none, sizeof ae->ck_none, "a reference: it judges the others");
        /* a repeat of a host engine shares its first listing's vector
         * while their operand hashes agree (only the host checksums hash) */
        engine_spec sp;
        if (ae->available && !ae->is_ref && !ae->recorded && ae->repeat_of >= 0 && !A->cfg.ck_no_share &&
            !engine_spec_parse(&sp, ae->spec) && strcmp(sp.name, "cpu") == 0)
            ae->ck_twin_of = ae->repeat_of, ae->ck_twin_on = 1;
    }
    if (!A->lead || !A->pf || !A->x || !A->y || !A->bound || !A->bound2 || !A->bound3 || !A->bound_tmp || !A->pm ||
        !A->pv || !A->ovf || !A->want_p || !A->want_v || !A->ref_tmp || !A->perm)
        return LS_ENOMEM;
    return 0;
}

/* --out: the folder, and steps.jsonl opened under a temporary name. */
static int open_steps_jsonl(audit *A) {
    int rc;
    if (!A->cfg.out_dir) return 0;
    if (mkdir(A->cfg.out_dir, 0755) != 0 && errno != EEXIST)
        return ls_err(LS_EIO, "%s: cannot create the output directory: %s", A->cfg.out_dir, strerror(errno));
    snprintf(A->jsonl_path, sizeof A->jsonl_path, "%s/steps.jsonl.gz", A->cfg.out_dir);
    snprintf(A->jsonl_tmp, sizeof A->jsonl_tmp, "%s.tmp.%ld", A->jsonl_path, (long)getpid());
    char rj[1100];
    snprintf(rj, sizeof rj, "%s/run.json", A->cfg.out_dir);
    if ((rc = ls_check_output_path(A->jsonl_path)) || (rc = ls_check_output_path(rj))) return rc;
    unlink(A->jsonl_tmp); /* "x": never write through what was left under the temporary name */
    ls_tmp_register(A->jsonl_tmp); /* before it exists: no moment when a signal would leave it */
    int fd = open(A->jsonl_tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        ls_tmp_unregister(A->jsonl_tmp);
        return ls_err(LS_EIO, "%s: cannot create: %s", A->jsonl_tmp, strerror(e));
    }
    A->jsonl_fd = fd;
    A->jsonl = gzdopen(fd, "wb6");
    if (!A->jsonl) {
        close(fd);
        unlink(A->jsonl_tmp);
        ls_tmp_unregister(A->jsonl_tmp);
        return ls_err(LS_ENOMEM, "%s: cannot start gzip", A->jsonl_tmp);
    }
    return 0;
}

/* The audit's first lines on the console. */
static void print_banner(audit *A) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    FILE *out = A->cfg.out;
    if (!out) return;
    fprintf(out, "lockstep audit: %s (%zu parameters), %d epoch(s) of %zu images, batch %zu, seed %llu\n",
            A->m.name, A->m.n_params, rc_->epochs, A->n_train, rc_->batch, (unsigned long long)rc_->seed);
    int have_ref = 0;
    for (int i = 0; i < r->n_engines; i++) have_ref |= r->eng[i].is_ref && r->eng[i].available;
    /* as attribution_phase plans it: only with a reference, at most one epoch's steps */
    long K = A->cfg.attribution_steps < (long)A->spe ? A->cfg.attribution_steps : (long)A->spe;
    if (K > 0 && have_ref)
        fprintf(out, "  attribution: isolated, %ld step(s) with the reference; drift: %s, %ld steps\n", K,
                lockstep_mode_name(A->cfg.mode), A->total);
    else if (A->cfg.attribution_steps > 0)
        fprintf(out, "  no attribution phase (no reference listed: the engines against each other only); "
                     "mode %s, %ld steps\n", lockstep_mode_name(A->cfg.mode), A->total);
    else
        fprintf(out, "  mode %s, %ld steps\n", lockstep_mode_name(A->cfg.mode), A->total);
    if (A->cfg.verbose) {
        fprintf(out, "  full comparison at steps 1..%ld and every %ld steps; reference runs steps 1..%ld\n",
                A->cfg.ref_steps > 1 ? A->cfg.ref_steps : 1, A->cfg.audit_every, A->cfg.ref_steps);
        fprintf(out, "  each engine runs in its own process; OMP_WAIT_POLICY=%s\n",
                getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset: active)");
        for (int i = 0; i < r->n_engines; i++)
            fprintf(out, "  engine %-26s %s\n", r->eng[i].label,
                    r->eng[i].available ? (r->eng[i].describe ? r->eng[i].describe : "") : r->eng[i].skip_reason);
    }
    fflush(out);
}

/* Batch s of the current epoch's order into A->x, A->y; its size. */
static size_t make_batch(audit *A, size_t s) {
    size_t b = A->cfg.run.batch, first = s * b, nb = A->n_train - first < b ? A->n_train - first : b;
    data_make_batch(&A->ds.train, A->perm + first, 0, nb, A->x, A->y);
    return nb;
}

/* Attribution: the first K batches in isolated mode with the reference,
 * every engine fed the reference's inputs (rounded to fp32) so that each
 * operation is judged by its own bound; then everyone back to the initial
 * state for the drift phase. */
static int attribution_phase(audit *A) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    int rc, have_ref = 0;
    for (int i = 0; i < r->n_engines; i++) have_ref |= r->eng[i].available && r->eng[i].is_ref;
    r->drift_mode = A->cfg.mode;
    if (!(A->cfg.attribution_steps > 0 && have_ref)) return 0;
    long K = A->cfg.attribution_steps < (long)A->spe ? A->cfg.attribution_steps : (long)A->spe;
    A->in_attr = 1;
    A->mode_now = MODE_ISOLATED;
    if ((rc = order_fill(&A->ord, rc_->order_path, A->perm, A->n_train, rc_->seed, 0))) return rc;
    long done = 0; /* the steps that ran: a stop signal may end the phase early */
    for (long s = 0; s < K; s++) {
        /* no reference left (it died): the rest is no attribution; the drift phase goes on without it */
        int ref_alive = 0;
        for (int i = 0; i < r->n_engines; i++) ref_alive |= r->eng[i].available && r->eng[i].is_ref && !r->eng[i].failed;
        if (!ref_alive) break;
        size_t nb = make_batch(A, (size_t)s);
        A->step = s + 1;
        /* a recording cannot be fed another engine's inputs */
        for (int i = 0; i < r->n_engines; i++)
            A->active[i] = r->eng[i].available && !r->eng[i].recorded && !r->eng[i].failed;
        if (ls_stop_signal()) break; /* at a step boundary */
        if ((rc = step_once(A, nb, 1)) && !sweep_dead(A)) return rc; /* a dead engine abandons the step, not the run */
        /* the reference died in this step: it judged nothing in it, so the
         * step is no attribution step (a kill inside step 1, as a slow
         * machine or a sanitizer build times it, was counted as one) */
        int ref_left = 0;
        for (int i = 0; i < r->n_engines; i++) ref_left |= r->eng[i].available && r->eng[i].is_ref && !r->eng[i].failed;
        if (!ref_left) break;
        done = s + 1;
        if (rc_->progress) fprintf(stderr, "\r  attribution step %ld/%ld   ", A->step, K);
    }
    /* what ran, not what was planned: the reports say "on N attribution step(s)" */
    r->attribution_steps = done;
    for (int i = 0; i < r->n_engines; i++) r->eng[i].train_s[0] = 0; /* drift timing only */
    for (int i = 0; i < r->n_engines; i++) r->eng[i].images[0] = 0;
    A->step = 0;
    A->in_attr = 0;
    return set_initial(A);
}

/* One step of the drift phase (batch s of the epoch): 0 to go on, 1 when
 * no engine is left, or an error. */
static int drift_step(audit *A, size_t s) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    int rc;
    double tb = ls_now();
    size_t nb = make_batch(A, s);
    tb = ls_now() - tb;
    A->step++;
    /* shadows every K steps, and at every partial batch (the last of an
     * epoch: plans for other batch sizes are other code) */
    /* (not at a partial batch when a recording takes part: its tensors
     * exist at its plan's steps only, which has no such rule — the audit
     * stopped there with "step 7 has no recorded params") */
    int with_rec = 0;
    for (int i = 0; i < r->n_engines; i++) with_rec |= r->eng[i].available && r->eng[i].recorded && !r->eng[i].failed;
    int shadow = A->cfg.audit_every > 0 && (A->step % A->cfg.audit_every == 0 || (nb < rc_->batch && !with_rec));
    shadow |= recording_owes_shadow(A);
    int full = A->step <= (A->cfg.ref_steps > 1 ? A->cfg.ref_steps : 1) || shadow || A->step == A->total;
    if (full) { /* the console says which steps were (a partial batch is one, beside every audit_every-th) */
        long *fs = realloc(r->full_steps, (size_t)(r->n_full_steps + 1) * sizeof *fs);
        if (!fs) return LS_ENOMEM;
        r->full_steps = fs;
        r->full_steps[r->n_full_steps++] = A->step;
    }
    for (int i = 0; i < r->n_engines; i++) {
        A->active[i] = r->eng[i].available && !r->eng[i].failed &&
                       (!r->eng[i].is_ref || A->step <= A->cfg.ref_steps || shadow);
        if (A->active[i]) {
            r->eng[i].train_s[A->epoch] += tb; /* each engine would have made the batch itself */
            r->eng[i].images[A->epoch] += nb;
        }
    }
    /* the state round trip owed by the last fully compared step judges
     * this one (an epoch's first step comes after its evaluation: a fault
     * keyed to that is met by the training step itself) */
    double tr = ls_now();
    if ((rc = roundtrip_before(A, nb, full))) return rc;
    double t_rt = ls_now() - tr;
    if ((rc = step_once(A, nb, full))) {
        /* a dead engine abandons this step, not the run; the survivors did not finish it either */
        if (!sweep_dead(A)) return rc;
        r->abandoned_step = A->step;
        for (int i = 0; i < r->n_engines; i++) A->rt_now[i] = 0; /* still owed */
    } else {
        tr = ls_now();
        if ((rc = roundtrip(A, nb, full)) && !sweep_dead(A)) return rc;
        t_rt += ls_now() - tr;
    }
    A->rt_prev_nb = nb;
    if (A->rt_qstep == A->step) {
        /* what was kept before this step is now the step before the next one's (zoo attack 16) */
        for (int i = 0; i < AUDIT_MAX_ENGINES; i++) {
            float *tmp = A->rt_pstate[i];
            A->rt_pstate[i] = A->rt_qstate[i], A->rt_qstate[i] = tmp;
        }
        float *tx = A->rt_px;
        int32_t *ty = A->rt_py;
        A->rt_px = A->rt_qx, A->rt_py = A->rt_qy, A->rt_qx = tx, A->rt_qy = ty;
        A->rt_pnb = A->rt_qnb, A->rt_pstep = A->rt_qstep;
    }
    A->t_compare += t_rt;
    r->roundtrip_s += t_rt;
    /* a full flush each step: a write error shows at the step that met it,
     * and what was written so far is a valid gzip stream to read */
    errno = 0;
    if (A->jsonl && !A->write_errno && gzflush(A->jsonl, Z_SYNC_FLUSH) != Z_OK) A->write_errno = errno ? errno : EIO;
    if (A->write_errno)
        return ls_err(LS_EIO, "%s: write failed at step %ld: %s (the run is stopped)", A->jsonl_tmp, A->step,
                      strerror(A->write_errno));
    if (alive_engines(A) == 0) return 1;
    if (rc_->progress)
        fprintf(stderr, "\r  epoch %d/%d  step %ld/%ld%s   ", A->epoch + 1, rc_->epochs, A->step, A->total,
                full ? "  (full comparison)" : "");
    return 0;
}

/* The end of a drift epoch: recorded times, evaluation, the epoch line. */
static int drift_epoch_end(audit *A) {
    audit_result *r = A->r;
    FILE *out = A->cfg.out;
    int rc;
    for (int i = 0; i < r->n_engines; i++) {
        /* a recording's training time is the recorded one, not playback's */
        const recording *rec = r->eng[i].available ? engine_recorded_get(A->e[i]) : NULL;
        if (rec && A->epoch < rec->epochs_run) {
            r->eng[i].train_s[A->epoch] = rec->ep[A->epoch].train_s;
            r->eng[i].images[A->epoch] = rec->ep[A->epoch].images;
        }
    }
    r->epochs_done = A->epoch + 1;
    A->in_eval = 1;
    rc = A->cfg.eval ? evaluate(A) : 0;
    A->in_eval = 0;
    if (rc) return rc;
    if (out && A->cfg.eval) {
        fprintf(out, "epoch %d:", A->epoch + 1);
        for (int i = 0; i < r->n_engines; i++)
            if (r->eng[i].available && !r->eng[i].is_ref && isnan(r->eng[i].test_acc[A->epoch]))
                fprintf(out, "  %s failed (not evaluated)", r->eng[i].label);
            else if (r->eng[i].available && !r->eng[i].is_ref)
                fprintf(out, "  %s %.2f%% (%.1f s)", r->eng[i].label, 100 * r->eng[i].test_acc[A->epoch],
                        r->eng[i].train_s[A->epoch]);
        fprintf(out, "\n");
        fflush(out);
    }
    return 0;
}

/* Drift: the whole training in the run's mode from the initial weights,
 * evaluated after each epoch; a stop signal ends it at a step boundary. */
static int drift_phase(audit *A) {
    audit_result *r = A->r;
    const run_cfg *rc_ = &A->cfg.run;
    int rc;
    A->mode_now = A->cfg.mode;
    for (A->epoch = 0; A->epoch < rc_->epochs && A->step < A->total; A->epoch++) {
        if ((rc = order_fill(&A->ord, rc_->order_path, A->perm, A->n_train, rc_->seed, A->epoch))) return rc;
        for (size_t s = 0; s < A->spe && A->step < A->total; s++) {
            if (ls_stop_signal()) break; /* at a step boundary */
            if ((rc = drift_step(A, s)) < 0) return rc;
            if (rc == 1) break;
        }
        if (rc_->progress) fprintf(stderr, "\r%70s\r", "");
        if (ls_stop_signal()) {
            /* stop at this step boundary; what ran is still worth reading */
            r->interrupted = ls_stop_signal();
            r->interrupted_step = A->step;
            break;
        }
        if (alive_engines(A) == 0) break;
        if ((rc = drift_epoch_end(A))) return rc;
    }
    /* a stop during the last epoch's evaluation finds no step boundary
     * after it: the run went on to a report marked whole and exit 0, after
     * "stopping ..., then writing the partial report" had been said */
    if (ls_stop_signal() && !r->interrupted) {
        r->interrupted = ls_stop_signal();
        r->interrupted_step = A->step;
    }
    return 0;
}

/* Timing and memory per engine: from the child, or as recorded on the
 * machine that ran a recording. */
static int collect_engine_stats(audit *A) {
    audit_result *r = A->r;
    int rc;
    for (int i = 0; i < r->n_engines; i++) {
        const recording *rec = r->eng[i].available ? engine_recorded_get(A->e[i]) : NULL;
        if (rec) {
            r->eng[i].peak_rss = rec->peak_rss;
            r->eng[i].timing = rec->timing;
        } else if (r->eng[i].available && !r->eng[i].failed) {
            if ((rc = remote_fetch_stats(A->e[i], &r->eng[i].peak_rss)) && !engine_gone(A, i)) return rc;
            r->eng[i].timing = A->e[i]->timing;
            /* the round trip's second instance: its memory is the check's cost, not the engine's */
            if (A->rt_clone[i] && remote_fetch_stats(A->rt_clone[i], &r->eng[i].rt_clone_rss)) r->eng[i].rt_clone_rss = 0;
            if (!rc && A->e[i]->samples && (r->eng[i].tsamples = malloc(sizeof *r->eng[i].tsamples)))
                memcpy(r->eng[i].tsamples, A->e[i]->samples, sizeof *r->eng[i].tsamples);
        } else if (r->eng[i].available) {
            r->eng[i].timing = A->e[i]->timing;
            if (!r->eng[i].is_ref) other_paths(&r->eng[i], A->e[i]);
        }
    }
    r->compare_s = A->t_compare;
    r->checks_s = A->t_checks;
    r->sharp_s = A->t_sharp;
    r->parent_peak_rss = ls_peak_rss();
    return 0;
}

/* --save's read-back against the digests the engine's checks chained
 * after its last update: a mismatch is a violation of its checks, and
 * nothing is written */
typedef struct {
    audit *A;
    int i;
} save_ck;

static int save_verify_cb(void *ctx, const float *p, const float *am, const float *av) {
    save_ck *c = ctx;
    audit_engine *ae = &c->A->r->eng[c->i];
    if (!every_step_readback_state(ae, &c->A->m, p, am, av, "--save", c->A->step, c->A->epoch)) return 0;
    return ls_err(LS_EMISMATCH, "%s: the weights read back to save are not those its checks judged after the last "
                  "update: not saved (a PROBLEM in the verdict)", ae->label);
}

/* --save: each trained engine's final weights; with more than one, the
 * engine's label goes into the name (w.safetensors -> w.cpu_threads=1.safetensors) */
static int save_weights(audit *A) {
    audit_result *r = A->r;
    FILE *out = A->cfg.out;
    int rc = 0;
    if (!A->cfg.run.save_path || r->interrupted) return 0;
    int n_save = 0;
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        n_save += ae->available && !ae->is_ref && !ae->recorded && ae->repeat_of < 0 && !ae->failed;
    }
    for (int i = 0; i < r->n_engines && !rc; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || ae->recorded || ae->repeat_of >= 0 || ae->failed) continue;
        char path[1200];
        const char *sp = A->cfg.run.save_path, *dot = strrchr(sp, '.');
        if (n_save == 1) snprintf(path, sizeof path, "%s", sp);
        else {
            char lab[96];
            size_t k = 0;
            for (const char *q = ae->label; *q && k + 1 < sizeof lab; q++) lab[k++] = *q == ':' ? '_' : *q;
            lab[k] = 0;
            int stem = dot && !strchr(dot, '/') ? (int)(dot - sp) : (int)strlen(sp);
            snprintf(path, sizeof path, "%.*s.%s%s", stem, sp, lab, dot && !strchr(dot, '/') ? dot : ".safetensors");
        }
        save_ck sc = {A, i};
        if ((rc = train_save_weights_verified(&A->cfg.run, &A->m, A->e[i], path, A->pf, r->total_steps,
                                              save_verify_cb, &sc)) == LS_EMISMATCH) {
            if (out) fprintf(out, "  --save %s: %s\n", path, ls_errmsg());
            ls_err_clear();
            rc = 0;
        } else if (rc)
            rc = ls_err_prefix(rc, "--save %s", path);
        else if (out)
            fprintf(out, "  saved %s's weights to %s\n", ae->label, path);
    }
    return rc;
}

/* Hand over to the commands layer what it needs after the engines are
 * gone: the effective configuration (a recording's plan may have been
 * adopted), the model, the data, and steps.jsonl complete under its
 * temporary name (renamed into place with the rest of the report set). */
static int hand_over(audit *A, double t_start) {
    audit_result *r = A->r;
    r->total_s = ls_now() - t_start;
    r->cfg = A->cfg;
    r->m = A->m;
    r->n_shadows = A->n_shadows;
    r->recordings_unreplayed = 0;
    for (int i = 0; i < r->n_engines; i++)
        r->recordings_unreplayed += r->eng[i].recorded && r->eng[i].available && !r->eng[i].failed &&
                                    !r->eng[i].shadows;
    r->last_step = A->step;
    if (A->cfg.out_dir) {
        errno = 0;
        int bad = gzflush(A->jsonl, Z_FINISH) != Z_OK || fsync(A->jsonl_fd) != 0, e = errno ? errno : EIO;
        if (gzclose(A->jsonl) != Z_OK && !bad) {
            bad = 1;
            e = errno;
        }
        A->jsonl = NULL;
        if (bad) {
            unlink(A->jsonl_tmp);
            ls_tmp_unregister(A->jsonl_tmp);
            return ls_err(LS_EIO, "%s: write failed: %s", A->jsonl_tmp, strerror(e));
        }
        snprintf(r->jsonl_path, sizeof r->jsonl_path, "%s", A->jsonl_path);
        snprintf(r->jsonl_tmp, sizeof r->jsonl_tmp, "%s", A->jsonl_tmp);
    }
    r->ds = A->ds;
    memset(&A->ds, 0, sizeof A->ds);
    return 0;
}

/* Everything the driver holds, on every exit path (the result is the
 * caller's). */
static void audit_free(audit *A) {
    if (A->jsonl) {
        gzclose(A->jsonl);
        unlink(A->jsonl_tmp);
        ls_tmp_unregister(A->jsonl_tmp);
    }
    for (int i = 0; i < AUDIT_MAX_ENGINES; i++) {
        engine_free(A->e[i]);
        engine_free(A->rt_clone[i]);
        free(A->rt_state[i]);
        free(A->rt_pstate[i]);
        free(A->rt_qstate[i]);
        free(A->fb[i]);
        free(A->db[i]);
    }
    free(A->lead);
    free(A->pf);
    free(A->x);
    free(A->y);
    free(A->rt_px);
    free(A->rt_py);
    free(A->rt_qx);
    free(A->rt_qy);
    free(A->bound);
    free(A->bound2);
    free(A->bound3);
    free(A->bound_tmp);
    free(A->sharp_hash);
    for (int pi = 0; pi < AUDIT_MAX_PAIRS; pi++)
        for (int l = 0; l < MODEL_MAX_LAYERS; l++) free(A->flipmask[pi][l]);
    free(A->pm);
    free(A->pv);
    free(A->ovf);
    free(A->want_p);
    free(A->want_v);
    free(A->ref_tmp);
    free(A->perm);
    free(A->ck_vec);
    free(A->ck_vec2);
    order_free(&A->ord);
    lsbuf_free(&A->line);
    dataset_free(&A->ds);
}

int audit_drive(const audit_cfg *cfg, audit_result *res) {
    audit A;
    memset(&A, 0, sizeof A);
    A.force_pick = -1;
    /* the result is megabytes (a slot table per pair): never on the stack */
    audit_result *local = res ? NULL : ls_malloc(sizeof *local);
    if (!res && !local) return LS_ENOMEM;
    A.cfg = *cfg;
    A.r = res ? res : local;
    memset(A.r, 0, sizeof *A.r);
    lsbuf_init(&A.line);
    double t_start = ls_now();
    int rc;
    if ((rc = audit_setup(&A)) || (rc = alloc_buffers(&A)) || (rc = open_steps_jsonl(&A)) || (rc = set_initial(&A)))
        goto done;
    print_banner(&A);
    if ((rc = attribution_phase(&A)) || (rc = drift_phase(&A)) || (rc = collect_engine_stats(&A)) ||
        (rc = save_weights(&A)))
        goto done;
    rc = hand_over(&A, t_start);
done:
    audit_free(&A);
    if (!res || rc) audit_result_free(A.r); /* on failure nothing is left for the caller to free */
    free(local);
    return rc;
}
