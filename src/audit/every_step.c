/*
 * every_step.c — see every_step.h.
 */
#include "audit/every_step.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "engines/checksums.h"
#include "engines/recorded.h"
#include "engines/remote.h"

int every_step_init(audit_engine *ae, long total) {
    ae->ck_have = 1;
    ae->ck_worst = 0;
    ck_margins_init(ae->ck_blk);
    ae->ck_total = total;
    ae->ck_twin_of = -1, ae->ck_twin_on = 0, ae->ck_twin_steps = ae->ck_twin_split = 0, ae->ck_twin_off[0] = 0;
    free(ae->ck_step_ratio);
    ae->ck_step_ratio = ls_malloc((size_t)(total > 0 ? total : 1) * sizeof *ae->ck_step_ratio);
    if (!ae->ck_step_ratio) return LS_ENOMEM;
    free(ae->ck_step_sharp);
    ae->ck_step_sharp = ls_malloc((size_t)(total > 0 ? total : 1) * sizeof *ae->ck_step_sharp);
    if (!ae->ck_step_sharp) return LS_ENOMEM;
    free(ae->ck_step_unjudged);
    ae->ck_step_unjudged = ls_calloc((size_t)(total > 0 ? total : 1), sizeof *ae->ck_step_unjudged);
    if (!ae->ck_step_unjudged) return LS_ENOMEM;
    free(ae->ck_step_elem);
    ae->ck_step_elem = ls_calloc((size_t)(total > 0 ? total : 1), 1);
    if (!ae->ck_step_elem) return LS_ENOMEM;
    free(ae->ck_step_op);
    ae->ck_step_op = ls_calloc((size_t)(total > 0 ? total : 1), 1);
    if (!ae->ck_step_op) return LS_ENOMEM;
    for (long k = 0; k < total; k++) ae->ck_step_ratio[k] = ae->ck_step_sharp[k] = NAN;
    return LS_OK;
}

void every_step_break_chain(audit_engine *ae) { ae->ck_chain = 0, ae->ck_seeded = 0; }

long every_step_of_steps(const audit_result *r, const audit_engine *ae) {
    long own = ae->ck_steps + ae->ck_skipped;
    return r->last_step > own ? r->last_step : own;
}

int every_step_roundtrip_words(const audit_result *r, const audit_engine *ae, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    if (!r->cfg.roundtrip || ae->is_ref || ae->recorded || !ae->available || !cap) return 0;
    long ok = ae->rt_checks - ae->rt_nondet;
    int n = snprintf(buf, cap, "state round trip at %ld step(s) on a second instance", ae->rt_checks);
    if (ae->rt_nondet > 0 && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, "; %ld of them inconclusive (the instance's two runs of the step "
                      "differed: the check needs a deterministic engine), %ld judged", ae->rt_nondet, ok);
    if (ae->rt_none[0] && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, "; %s: %s", ae->rt_checks ? "off from then on" : "off", ae->rt_none);
    return ae->rt_nondet > 0 || ae->rt_none[0];
}

int every_step_seed_chain(audit_engine *ae, const model *m, const float *p) {
    float *zero = ls_calloc(m->n_params ? m->n_params : 1, sizeof *zero);
    if (!zero) return LS_ENOMEM;
    for (int t = 0; t < m->n_tensors; t++) { /* as the engine's DIGEST block: values, m, v per tensor */
        const model_tensor *T = &m->tensors[t];
        uint64_t z = ck_digest(zero, T->numel);
        ck_put_u64(ae->ck_dig + 3 * t, ck_digest(p + T->offset, T->numel));
        ck_put_u64(ae->ck_dig + 3 * t + 1, z);
        ck_put_u64(ae->ck_dig + 3 * t + 2, z);
    }
    free(zero);
    ae->ck_chain = 1, ae->ck_seeded = 1;
    return LS_OK;
}

/* Operands an engine declares rounded before its products (bounds_ck_tol's
 * u_in): the cpu engine's tf32=on (2^-10 covers truncation as well as
 * rounding to nearest) and dtype=bf16 (2^-8); cuda's math=tf32. */
double every_step_declared_u_in(const char *spec) {
    if (strstr(spec, "dtype=bf16")) return 0x1p-8;
    if (strstr(spec, "tf32=on") || strstr(spec, "math=tf32")) return 0x1p-10;
    return 0;
}

static void record(audit_engine *ae, const model *m, const ck_verdict *v, long step, int epoch, int eval) {
    ae->ck_relations += v->n_relations;
    if (v->n_unjudged > 0) { /* fp32 may overflow there: not judged, counted (the verdict: judged in part) */
        ae->ck_unjudged += v->n_unjudged;
        if (!eval && step > 0 && !ae->ck_unjudged_step) ae->ck_unjudged_step = step;
        if (!eval && step > 0 && step <= ae->ck_total && ae->ck_step_unjudged)
            ae->ck_step_unjudged[step - 1] += (float)v->n_unjudged;
        if (eval && !ae->ck_unjudged_eval_epoch) ae->ck_unjudged_eval_epoch = epoch + 1;
    }
    if (!eval && step > 0 && step <= ae->ck_total) {
        float *q = &ae->ck_step_ratio[step - 1];
        if (isnan(*q) || v->worst_ratio > *q) *q = (float)v->worst_ratio;
    }
    if (v->n_relations && (v->worst_ratio > ae->ck_worst || !ae->ck_worst_what[0])) {
        ae->ck_worst = v->worst_ratio;
        ae->ck_worst_step = eval ? 0 : step;
        snprintf(ae->ck_worst_what, sizeof ae->ck_worst_what, "%s", v->worst_what);
    }
    ae->ck_n_sharp += v->n_sharp;
    ck_margins_merge(ae->ck_blk, (const ck_block_margin(*)[CK_NPHASE_ALL])v->blk, m->n_layers);
    if (v->worst_sharp_what[0]) {
        if (!eval && step > 0 && step <= ae->ck_total) {
            float *q = &ae->ck_step_sharp[step - 1];
            if (isnan(*q) || v->worst_sharp > *q) *q = (float)v->worst_sharp;
        }
        if (v->worst_sharp > ae->ck_sharp_worst || !ae->ck_sharp_worst_what[0]) {
            ae->ck_sharp_worst = v->worst_sharp;
            ae->ck_sharp_worst_step = eval ? 0 : step;
            snprintf(ae->ck_sharp_worst_what, sizeof ae->ck_sharp_worst_what, "%s", v->worst_sharp_what);
        }
    }
    if (v->worst_sign > ae->ck_sign_worst) {
        ae->ck_sign_worst = v->worst_sign;
        ae->ck_sign_worst_step = eval ? 0 : step;
        snprintf(ae->ck_sign_worst_what, sizeof ae->ck_sign_worst_what, "%s", v->worst_sign_what);
    }
    if (v->n_legal) { /* the tensor with the most elements in a named order (the first steps' few match several) */
        if (!ae->ck_legal_updates++ || v->legal_count > ae->ck_legal_count) {
            ae->ck_legal_count = v->legal_count;
            ae->ck_legal_step = step;
            snprintf(ae->ck_legal_what, sizeof ae->ck_legal_what, "%s", v->legal_what);
        }
    }
    if (v->n_sus) {
        if (!ae->ck_sus_checks) { /* the first stage with a relation over the sharp tier only */
            ae->ck_sus_first = v->sus;
            ae->ck_sus_first_worst_ratio = v->sus_worst_ratio;
            ae->ck_sus_first_step = eval ? 0 : step;
            ae->ck_sus_first_eval_epoch = eval ? epoch + 1 : 0;
        }
        if (!ae->ck_sus_checks || v->sus.ratio > ae->ck_sus.ratio) {
            ae->ck_sus = v->sus;
            ae->ck_sus_worst_ratio = v->sus_worst_ratio;
            ae->ck_sus_step = eval ? 0 : step;
            ae->ck_sus_eval_epoch = eval ? epoch + 1 : 0;
        }
        ae->ck_sus_checks++;
    }
    if (!v->n_viol) return;
    ae->ck_viol_checks++;
    if (!eval && step > 0 && step <= ae->ck_total && ae->ck_step_op) {
        int kept = v->n_viol < CK_MAX_VIOL ? (int)v->n_viol : CK_MAX_VIOL;
        for (int j = 0; j < kept; j++) {
            const ck_violation *w = &v->v[j];
            /* forward and backward-data of a layer with weights read W and b, the update p, m and v: a state the
             * engine holds apart from what it reports (a stale weight copy) breaks those, and the round trip's
             * "state" is the better name there; the others read none of it */
            int reads_state = w->phase == CKP_UPDATE ||
                              ((w->phase == CKP_FORWARD || w->phase == CKP_BWD_DATA) && w->layer >= 0 &&
                               w->layer < m->n_layers && m->layers[w->layer].w_tensor >= 0);
            if (!w->between && !reads_state && w->phase != CKP_EVAL) ae->ck_step_op[step - 1] = 1;
        }
    }
    if (ae->ck_first_step || ae->ck_first_eval_epoch) return;
    ae->ck_first = v->v[0];
    ae->ck_first_step = step;
    ae->ck_first_eval_epoch = eval ? epoch + 1 : 0;
}

int every_step_send(engine *e, audit_engine *ae, int stage) {
    if (!ae->ck_have || ae->ck_sent) return LS_OK;
    double t0 = ls_now();
    int rc = remote_checksums_send(e, stage);
    if (rc < 0) return rc;
    ae->ck_sent = rc > 0;
    ae->ck_t_sent = t0;
    return LS_OK;
}

static int judge(engine *e, audit_engine *ae, const model *m, int stage_flags, size_t n, const int32_t *y,
                 const uint64_t *x_dig, const bounds_dups *dups, long step, int epoch, const double *vec, double t0) {
    int rc, stage = stage_flags & CK_STAGE_MASK;
    /* a light step (CK_STAGE_LIGHT: --complete-every K): the plain
     * relations, element-wise blocks, loss, digests, the input digest and
     * the dense layers' other blocks but the every-output re-dos are
     * judged, the rest not (whatever the engine put there: cuda and a
     * recording compute them whole); a recording older than some of
     * those blocks: the plain relations only */
    int light = stage == CK_STAGE_STEP && (stage_flags & CK_STAGE_LIGHT);
    ck_verdict v;
    ck_verdict_init(&v);
    /* a recording declares its precision in its own spec, not in "recorded:PATH" */
    const char *rs = engine_recorded_spec(e);
    /* a recording made before INPUT and the per-sample and weighted blocks
     * were stored stops at DIGEST, one made before the alternating blocks
     * at ra_off, one made before the zero-element blocks at z_off: those
     * are not judged, and the coverage line says so (ck_partial) */
    const recording *rec = engine_recorded_get(e);
    /* a live engine's: all blocks (cuda's computed on the device) */
    int ext = rec ? rec->ck_ext : CK_BLOCKS_LIVE; /* ck_ext: 0..7 */
    int full = ext > CK_BLOCKS_BASE;
    if (!full)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording: its vectors stop at DIGEST (no input "
                 "digest, no per-sample, position-, index-weighted or alternating relations)");
    else if (ext < CK_BLOCKS_ALT)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording: its vectors have no row- or "
                 "column-alternating or zero-element relations");
    else if (ext < CK_BLOCKS_Z)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording: its vectors have no zero-element "
                 "or random-weight relations (dense weight gradients flushed to 0 are not seen)");
    else if (ext < CK_BLOCKS_R)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording (or a cuda engine's from before its "
                 "kernels computed them): no random-weight relations, blank-window, sampled-element or "
                 "output-element checks: error patterns that keep every fixed-weight sum (+e, +e, -e, -e along a "
                 "row) are not seen");
    else if (ext < CK_BLOCKS_P)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording: its vectors have no output-element "
                 "checks (one wrong element a plane, tens of times its own bound, is not seen)");
    else if (ext < CK_BLOCKS_D)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording: its vectors have no dense "
                 "output-element checks (dense outputs a few times their own bound off, of either sign, are not "
                 "seen)");
    else if (ext < CK_BLOCKS_ALL)
        snprintf(ae->ck_partial, sizeof ae->ck_partial, "an older recording: its vectors have no random-weighted "
                 "weight-gradient relations (error patterns that keep every fixed-weight sum of a filter or row, "
                 "+e -e -e +e over four channels, are not seen)");
    /* the tolerance this engine's vectors are judged at: a recording's is its own file's claim */
    double u_in = every_step_declared_u_in(rs ? rs : ae->spec);
    if (u_in > ae->ck_u_in) ae->ck_u_in = u_in;
    if ((rc = checksums_judge_dups(m, vec, n, y, u_in, light ? (ext >= CK_BLOCKS_ALL ? CK_BLOCKS_LIGHT : CK_BLOCKS_BASE) : ext,
                                   dups, &v))) return rc;
    ck_layout L;
    ck_layout_make(&L, m, n);
    if (stage != CK_STAGE_UPDATE && ae->ck_chain) checksums_continuity(m, ae->ck_dig, vec, n, ae->ck_seeded, &v);
    if (stage != CK_STAGE_UPDATE && x_dig && full) checksums_input(m, vec, n, *x_dig, &v);
    if (stage == CK_STAGE_UPDATE) {
        memcpy(ae->ck_dig, vec + L.digest_off, 3 * (size_t)m->n_tensors * sizeof *ae->ck_dig);
        ae->ck_chain = 1, ae->ck_seeded = 0;
    }
    int eval = stage == CK_STAGE_EVAL;
    record(ae, m, &v, step, epoch, eval);
    if (eval) ae->ck_eval_batches++;
    else if (stage == CK_STAGE_STEP) ae->ck_steps++, ae->ck_light_steps += light, ae->ck_last_light = light;
    ae->ck_s += ls_now() - t0;
    return LS_OK;
}

int every_step_stage(engine *e, audit_engine *ae, const model *m, int stage, size_t n, const int32_t *y,
                     const uint64_t *x_dig, const bounds_dups *dups, long step, int epoch, double *vec) {
    if (!ae->ck_have) return LS_OK;
    double t0 = ae->ck_sent ? ae->ck_t_sent : ls_now();
    int rc = ae->ck_sent ? remote_checksums_recv(e, vec) : engine_checksums(e, stage, vec);
    ae->ck_sent = 0;
    if (rc == LS_EUNAVAIL) {
        /* none from the start (an engine without checks), or they stopped
         * answering: either way the rest of the run is unchecked by them,
         * and the verdict says "not fully checked" (headline.c) */
        ae->ck_have = 0;
        /* at a drift step's update: its STEP vector was judged, its update never (nor by the next step's
         * continuity, which no vector will judge): the step is not checked, and not counted as such */
        if ((stage & CK_STAGE_MASK) == CK_STAGE_UPDATE && step > 0 && step <= ae->ck_total && ae->ck_step_ratio &&
            !isnan(ae->ck_step_ratio[step - 1])) {
            ae->ck_step_ratio[step - 1] = NAN;
            if (ae->ck_steps > 0) ae->ck_steps--, ae->ck_light_steps -= ae->ck_last_light;
        }
        if (ae->ck_steps || ae->ck_eval_batches)
            snprintf(ae->ck_none, sizeof ae->ck_none, "they stopped answering at %s %ld%s: %s",
                     (stage & CK_STAGE_MASK) == CK_STAGE_EVAL ? "the evaluation of epoch" : "step",
                     (stage & CK_STAGE_MASK) == CK_STAGE_EVAL ? (long)epoch + 1 : step,
                     (stage & CK_STAGE_MASK) == CK_STAGE_UPDATE ? "'s update" : "", ls_errmsg());
        else
            snprintf(ae->ck_none, sizeof ae->ck_none, "%s", ls_errmsg());
        ls_err_clear();
        return LS_OK;
    }
    if (rc) return rc;
    if (stage & CK_STAGE_HASH_ONLY) { /* the driver judges it on its first listing's vector, or asks again */
        ae->ck_s += ls_now() - t0;
        return LS_OK;
    }
    return judge(e, ae, m, stage & (CK_STAGE_MASK | CK_STAGE_LIGHT), n, y, x_dig, dups, step, epoch, vec, t0);
}

int every_step_readback_logits(engine *e, audit_engine *ae, const model *m, size_t n, const double *vec,
                               const float *z, long step, int epoch, int eval) {
    if (!ae->ck_have) return 0;
    ck_verdict v;
    ck_verdict_init(&v);
    /* a recording's EVAL vectors stop before LOSS: its logits are tied by
     * the sums (per sample where it stores the per-sample blocks) */
    const recording *rec = engine_recorded_get(e);
    int exact = !rec || !eval;
    int ps = !rec || rec->ck_ext >= CK_BLOCKS_EXT;
    checksums_readback_logits(m, vec, n, z, exact, ps, eval, &v);
    record(ae, m, &v, eval ? 0 : step, epoch, eval);
    return v.n_viol > 0;
}

int every_step_readback_state(audit_engine *ae, const model *m, const float *p, const float *mo, const float *v,
                              const char *use, long step, int epoch) {
    if (!ae->ck_have || !ae->ck_chain) return 0;
    ck_verdict vd;
    ck_verdict_init(&vd);
    checksums_readback_state(m, ae->ck_dig, p, mo, v, use, CKP_UPDATE, &vd);
    record(ae, m, &vd, step, epoch, 0);
    return vd.n_viol > 0;
}

int every_step_readback_loss(audit_engine *ae, const model *m, size_t n, const double *vec, float loss, long step,
                             int epoch) {
    if (!ae->ck_have) return 0;
    ck_verdict v;
    ck_verdict_init(&v);
    checksums_readback_loss(m, vec, n, loss, &v);
    record(ae, m, &v, step, epoch, 0);
    return v.n_viol > 0;
}

int every_step_judge_shared(engine *e, audit_engine *ae, const model *m, int stage, size_t n, const int32_t *y,
                            const uint64_t *x_dig, const bounds_dups *dups, long step, int epoch,
                            const double *lead_vec) {
    if (!ae->ck_have) return LS_OK;
    int rc = judge(e, ae, m, stage, n, y, x_dig, dups, step, epoch, lead_vec, ls_now());
    if (!rc && (stage & CK_STAGE_MASK) == CK_STAGE_STEP) ae->ck_twin_steps++;
    return rc;
}
