/*
 * headline.c — the verdict line and the next step (audit/headline.h).
 */
#include "audit/headline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "audit/every_step.h"

typedef struct {
    headline_kind kind;
    const char *name, *word, *css;
} kind_row;

/* One row per kind, most severe first: the order is the precedence. */
static const kind_row KINDS[HEADLINE_N] = {
    {HEADLINE_PROBLEM, "problem", "PROBLEM", "v-problem"},
    {HEADLINE_SUSPECT, "suspect", "SUSPECT", "v-suspect"},
    {HEADLINE_INCOMPLETE, "incomplete", "incomplete", "v-incomplete"},
    {HEADLINE_UNCHECKED, "unchecked", "not fully checked", "v-unchecked"},
    {HEADLINE_OK, "ok", "ok", "v-ok"},
};

const char *headline_kind_name(headline_kind k) { return k < HEADLINE_N ? KINDS[k].name : "?"; }

static void missing_engines(headline *h, const audit_result *r) {
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (ae->available && !ae->failed) continue;
        h->missing[h->n_missing++] = i;
        headline_short_reason(ae->available ? ae->fail_reason : ae->skip_reason, h->short_reason[i], HEADLINE_SHORT);
    }
}

/* "a, b and c" of the missing engines' labels. */
static void missing_list(const headline *h, const audit_result *r, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < h->n_missing && n < cap; k++) {
        const char *sep = k == 0 ? "" : k == h->n_missing - 1 ? " and " : ", ";
        int w = snprintf(buf + n, cap - n, "%s%s", sep, r->eng[h->missing[k]].label);
        if (w < 0) break;
        n += (size_t)w;
    }
}

/* The user's --engines list, as it spells them (a repeat of an engine
 * listed twice kept: cpu,cpu is the determinism pair), without the engines
 * that did not run; with gpu, each missing cuda engine is replaced, in its
 * place, by its recording (FILE.lsr; FILE1.lsr, FILE2.lsr, ... for several).
 * Under --repeat 2 the repeats are that flag's, not the list's. */
static void next_step(headline *h, const audit_result *r) {
    int gpu = 0, n_rec = 0; /* missing cuda engines; those of them first listed (one recording each) */
    for (int k = 0; k < h->n_missing; k++) {
        const audit_engine *me = &r->eng[h->missing[k]];
        gpu += strncmp(me->spec, "cuda", 4) == 0;
        n_rec += strncmp(me->spec, "cuda", 4) == 0 && me->repeat_of < 0;
    }
    char ran[400];
    size_t n = 0;
    ran[0] = 0;
    int rec = 0;
    for (int i = 0; i < r->n_engines && n < sizeof ran; i++) {
        const audit_engine *ae = &r->eng[i];
        if (ae->repeat_of >= 0 && r->cfg.repeat > 1) continue;
        const audit_engine *first = ae->repeat_of >= 0 ? &r->eng[ae->repeat_of] : ae;
        int w;
        if (ae->available && !ae->failed) /* the label: a driver knob (perturb=1) is not in the spec */
            w = snprintf(ran + n, sizeof ran - n, "%s%s", n ? "," : "", first->label);
        else if (gpu && ae->repeat_of < 0 && strncmp(ae->spec, "cuda", 4) == 0) {
            char num[16] = "";
            if (n_rec > 1) snprintf(num, sizeof num, "%d", ++rec);
            w = snprintf(ran + n, sizeof ran - n, "%srecorded:FILE%s.lsr", n ? "," : "", num);
        } else
            continue;
        if (w < 0) break;
        n += (size_t)w;
    }
    int not_run = 0; /* missing for good (unavailable here), not failed during the run */
    for (int k = 0; k < h->n_missing; k++) not_run += !r->eng[h->missing[k]].available;
    /* gpu-check.sh records on a plan of its own (REC_PLAN there: small
     * enough to come back from a device run); the audit of a recording must
     * be that run, so the line gives its options: `--engines ...,recorded:
     * FILE.lsr` alone, after `make run`, was refused ("recorded with batch
     * 16, this run has batch 256").  --audit-every and --ref-steps come from
     * the recording.  tests/test_report_html.c holds this to REC_PLAN. */
    if (gpu)
        snprintf(h->next, sizeof h->next, "next: run scripts/gpu-check.sh on a GPU machine (it records the cuda "
                                          "engine on its own plan), then here, on that plan: --engines %s "
                                          GPU_CHECK_PLAN, ran);
    else if (h->n_missing && !not_run && !ran[0]) /* nothing left to list: "--engines " alone was no advice */
        snprintf(h->next, sizeof h->next, "next: audit again (every engine listed died during this run: see the "
                                          "failures)");
    else if (h->n_missing && !not_run) /* it can run here: it died (see == failures) */
        snprintf(h->next, sizeof h->next, "next: audit again (an engine died during this run: see the failures), "
                                          "or audit without it: --engines %s", ran);
    else if (h->n_missing)
        snprintf(h->next, sizeof h->next, "next: run where the missing engine can run, or audit without it: "
                                          "--engines %s", ran);
}

/* Drift steps and evaluations of an engine that nothing checked: not by
 * its every-step checksums (none, or they stopped: ck_none), not by a
 * per-element check against the reference beyond the attribution steps
 * (shadow replays, isolated or sync drift).  "ok" covers what was
 * checked, so an engine with such steps makes the verdict "not fully
 * checked".  The first such engine's label and counts; how many have
 * any. */
typedef struct {
    int engines;
    const char *label, *why;
    long unchecked, all, from, to;
    int eval_unchecked, eval_all;
} drift_gap;

static void drift_gaps(drift_gap *g, const audit_result *r) {
    memset(g, 0, sizeof *g);
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->failed || ae->is_ref) continue;
        long all = every_step_of_steps(r, ae), n = 0, first = 0, last = 0;
        if (!ae->ck_step_ratio) { /* no per-step record (a result not from the driver): the counts */
            long ck = r->cfg.checksums ? ae->ck_steps + ae->ck_skipped : 0;
            n = all - ck, first = ck + 1, last = all;
        }
        for (long k = 0; k < all && ae->ck_step_ratio; k++) {
            int ck = r->cfg.checksums && ae->ck_step_ratio && k < ae->ck_total && !isnan(ae->ck_step_ratio[k]);
            int el = ae->ck_step_elem && k < ae->ck_total && ae->ck_step_elem[k];
            if (ck || el) continue;
            n++, last = k + 1;
            if (!first) first = k + 1;
        }
        /* (steps the checksums skip on purpose, fed another engine's inputs, count as checked where a
         * per-element check against the reference ran there: ck_step_elem, not ck_skipped) */
        int ev_all = r->cfg.eval ? r->epochs_done : 0, ev = r->cfg.checksums ? ae->ck_eval_epochs : 0;
        ev = ev > ev_all ? ev_all : ev; /* (evaluation against the reference reads a sample: not all of one) */
        if (n <= 0 && ev >= ev_all) continue;
        if (!g->engines++) {
            g->label = ae->label, g->unchecked = n > 0 ? n : 0, g->all = all, g->from = first, g->to = last;
            g->eval_unchecked = ev_all - ev, g->eval_all = ev_all;
            g->why = !r->cfg.checksums ? "--no-checksums" : !ae->ck_have ? ae->ck_none : "";
        }
    }
}

/* engines unchecked only because some elements had no information (their
 * bound +inf: fp32 may overflow there), every tensor with a rule */
static int unjudged_only(const verdict_table *v) {
    int n = 0;
    for (int i = 0; i < v->n_eng; i++) {
        const engine_verdict *ev = &v->e[i];
        n += ev->unchecked && ev->ref >= 0 && ev->n_partial > 0 && ev->n_bounded + ev->n_partial == ev->n_compared;
    }
    return n;
}

/* Of the engines no step judged against the reference, the recordings (the
 * attribution phase cannot replay them: only a shadow replay at one of
 * their plan's full steps can). */
static int noref_recordings(const audit_result *r, const verdict_table *v) {
    int n = 0;
    for (int i = 0; i < v->n_eng; i++) n += v->e[i].unchecked && v->e[i].ref < 0 && r->eng[v->e[i].engine].recorded;
    return n;
}

/* Why a reference listed never judged these engines per element: no
 * attribution step and no shadow replay, or (a shadow replays one engine
 * at a time, and a recording sits out the attribution phase) the steps
 * there were went to other engines. */
static void noref_why(char *why, size_t cap, const audit_result *r, const verdict_table *v) {
    if (!r->attribution_steps && !r->n_shadows)
        snprintf(why, cap, "this run had no attribution step and no shadow replay");
    else if (noref_recordings(r, v) == v->unchecked)
        snprintf(why, cap, "a recording sits out the attribution phase, and this run's %ld shadow replay(s) "
                           "replayed other engines", r->n_shadows);
    else
        snprintf(why, cap, "this run's %ld attribution step(s) and %ld shadow replay(s) judged other engines",
                 r->attribution_steps, r->n_shadows);
}

/* What to run when a reference judged no step of the unchecked engines:
 * --attribution-steps 2, which does not reach a recording (more full
 * steps in its plan do). */
static void noref_next(headline *h, int have_ref, int recordings) {
    if (recordings)
        snprintf(h->next, sizeof h->next, "next: record again with a full step per recording after --ref-steps (a "
                                          "smaller --audit-every: each shadow replay checks one recording), or audit "
                                          "fewer recordings at once");
    else
        snprintf(h->next, sizeof h->next, "next: audit again %s --attribution-steps 2 (the first steps in isolated "
                                          "mode, every operation judged against the reference's bound)",
                 have_ref ? "with" : "with reference listed first in --engines and");
}

void headline_make(headline *h, const audit_result *r, const verdict_table *v) {
    memset(h, 0, sizeof *h);
    missing_engines(h, r);
    drift_gap gap;
    drift_gaps(&gap, r);
    int have_ref = 0; /* an exact reference listed and running */
    for (int i = 0; i < r->n_engines; i++) have_ref |= r->eng[i].is_ref && r->eng[i].available && !r->eng[i].failed;
    /* what the every-step checks did, for the unchecked lines below: "found
     * nothing" only where they ran (--no-checksums, or an engine without
     * them, judged nothing at all) */
    int ck_engines = 0, ck_ran = 0;
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (ae->is_ref || !ae->available) continue;
        ck_engines++;
        ck_ran += r->cfg.checksums && (ae->ck_steps > 0 || ae->ck_eval_batches > 0);
    }
    const char *ck_words = !r->cfg.checksums ? ", and the every-step checks were off (--no-checksums): nothing "
                                               "judged it"
                           : !ck_ran             ? ", and no every-step checks ran either: nothing judged it"
                           : ck_ran < ck_engines ? "; the every-step checks found nothing where they ran"
                                                 : "; the every-step checks found nothing";
    /* an engine whose vectors were judged at a coarser operand rounding
     * than the reference computes with (its spec's tf32=on, dtype=bf16,
     * math=tf32; a recording's is a claim of its own file): "ok" says fp32,
     * and where the per-element tier found nothing beyond fp32 the claim is
     * not borne out either, so its drift steps were not checked at fp32 */
    double ref_u = 0;
    const audit_engine *lowp = NULL;
    for (int i = 0; i < r->n_engines; i++)
        if (r->eng[i].is_ref && r->eng[i].available && !r->eng[i].failed) {
            double u = every_step_declared_u_in(r->eng[i].spec);
            ref_u = u > ref_u ? u : ref_u;
        }
    for (int i = 0; i < r->n_engines && !lowp; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->is_ref && ae->available && !ae->failed && ae->ck_u_in > ref_u) lowp = ae;
    }
    h->unchecked = v->unchecked || gap.engines || lowp;
    headline_kind k = v->problems ? HEADLINE_PROBLEM
                      : v->suspects ? HEADLINE_SUSPECT
                      : (h->n_missing || r->interrupted) ? HEADLINE_INCOMPLETE
                      : (v->unchecked || gap.engines || lowp) ? HEADLINE_UNCHECKED : HEADLINE_OK;
    h->kind = k;
    h->word = KINDS[k].word;
    h->css = KINDS[k].css;
    char names[300];
    missing_list(h, r, names, sizeof names);
    switch (k) {
    case HEADLINE_PROBLEM:
        snprintf(h->line, sizeof h->line, "VERDICT: PROBLEM — %d difference(s) not explained by fp32 rounding "
                                          "(below: where, why, what to change)", v->problems);
        break;
    case HEADLINE_SUSPECT:
        snprintf(h->line, sizeof h->line, "VERDICT: SUSPECT — %d engine(s) within the fp32 worst case but beyond "
                                          "what fp32 rounding does in practice (below; --fail-on suspect)",
                 v->suspects);
        break;
    case HEADLINE_INCOMPLETE: {
        /* an engine that died during the run did run: it "failed" */
        int n_failed = 0;
        for (int k = 0; k < h->n_missing; k++) n_failed += r->eng[h->missing[k]].available;
        char intr[160] = "";
        if (r->interrupted && r->interrupted_seeds)
            snprintf(intr, sizeof intr, "interrupted in the seed loop (the main run is whole)");
        else if (r->interrupted && r->interrupted_step == 0)
            snprintf(intr, sizeof intr, "interrupted before drift step 1 of %ld", r->total_steps);
        else if (r->interrupted)
            snprintf(intr, sizeof intr, "interrupted at step %ld of %ld", r->interrupted_step, r->total_steps);
        if (h->n_missing == 1)
            snprintf(h->line, sizeof h->line, "VERDICT: incomplete — %s%s%s %s: %s", intr, intr[0] ? "; " : "",
                     names, n_failed ? "failed" : "was not run", h->short_reason[h->missing[0]]);
        else if (h->n_missing)
            snprintf(h->line, sizeof h->line, "VERDICT: incomplete — %s%s%s %s (reasons below)", intr,
                     intr[0] ? "; " : "", names,
                     n_failed == h->n_missing ? "failed" : n_failed ? "failed or were not run" : "were not run");
        else
            snprintf(h->line, sizeof h->line, "VERDICT: incomplete — %s", intr);
        break;
    }
    case HEADLINE_UNCHECKED:
        if (v->unchecked && v->unchecked_noref == v->unchecked && !have_ref)
            snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — no reference listed: no step of %d "
                                              "engine(s) was judged per element against fp32 bounds%s (coverage "
                                              "below)", v->unchecked, ck_words);
        else if (v->unchecked && v->unchecked_noref == v->unchecked) {
            char why[160];
            noref_why(why, sizeof why, r, v);
            snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — no step of %d engine(s) was judged per "
                                              "element against the reference (%s)%s (coverage below)",
                     v->unchecked, why, ck_words);
        }
        else if (v->unchecked && unjudged_only(v) == v->unchecked)
            /* every rule was there; some elements were beyond fp32's range (bounds_range_unbound) */
            snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — %d engine(s) had elements beyond fp32's "
                                              "range that no bound could judge (unjudged is not ok)", v->unchecked);
        else if (v->unchecked)
            snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — %d engine(s) had tensors no rule could "
                                              "judge (unchecked is not ok)", v->unchecked);
        else if (!gap.engines && lowp)
            snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — %s's every-step checksums were judged at "
                                              "the %s operand rounding its %s declares, not at fp32, and the "
                                              "reference does not compute with it: its drift steps were not checked "
                                              "at fp32 (coverage below)",
                     lowp->label, lowp->ck_u_in >= 0x1p-8 ? "bf16" : "TF32",
                     strncmp(lowp->spec, "recorded:", 9) == 0 ? "recording's engine.spec (unverified)" : "spec");
        else {
            char steps[160] = "", evals[96] = "", more[48] = "";
            if (gap.unchecked > 0 && gap.unchecked == gap.to - gap.from + 1 && gap.unchecked < gap.all)
                snprintf(steps, sizeof steps, "drift step%s %ld%s%.0ld (%ld of %ld)", gap.from < gap.to ? "s" : "",
                         gap.from, gap.from < gap.to ? "-" : "", gap.from < gap.to ? gap.to : 0, gap.unchecked, gap.all);
            else if (gap.unchecked > 0)
                snprintf(steps, sizeof steps, "%ld of %ld drift steps (the first: step %ld)", gap.unchecked, gap.all,
                         gap.from);
            if (gap.eval_unchecked > 0)
                snprintf(evals, sizeof evals, "%s%d of %d evaluations", steps[0] ? " and " : "", gap.eval_unchecked,
                         gap.eval_all);
            if (gap.engines > 1) snprintf(more, sizeof more, " (and %d more engine(s))", gap.engines - 1);
            snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — nothing checked %s's %s%s%s%s%s; every "
                                              "difference checked is consistent with fp32 rounding (coverage below)",
                     gap.label, steps, evals, more, gap.why[0] ? ": " : "", gap.why);
        }
        break;
    default: {
        /* light steps (--complete-every K): "checked" says by what */
        long light = 0, all = 0;
        for (int i = 0; i < r->n_engines; i++) {
            const audit_engine *ae = &r->eng[i];
            if (ae->is_ref || !ae->available || ae->ck_light_steps <= light) continue;
            light = ae->ck_light_steps, all = every_step_of_steps(r, ae);
        }
        /* an engine that ran another algorithm than its knob asked for
         * (cpu:algo=winograd where oneDNN has no Winograd kernel: explain.c's
         * knob-fallback note) did run, but not what was listed: the line
         * says so, so that nobody reads this ok as Winograd's */
        char fb[160] = "";
        int n_fb = 0;
        for (int i = 0; i < r->n_engines; i++) {
            const audit_engine *ae = &r->eng[i];
            char req[32], ran[32];
            if (ae->is_ref || !explain_algo_fallback(ae, req, sizeof req, ran, sizeof ran)) continue;
            if (!n_fb++)
                snprintf(fb, sizeof fb, " (%.60s as %.16s: no %.16s kernel here, see the note)", ae->label, ran, req);
        }
        if (n_fb > 1) snprintf(fb, sizeof fb, " (%d of them ran another algorithm than asked: see the notes)", n_fb);
        char lt[160] = "";
        if (light)
            snprintf(lt, sizeof lt, " (%ld of %ld light, the conv layers' plain relations only: --complete-every %ld)", light, all,
                     r->cfg.complete_every);
        if (r->cfg.eval && r->epochs_done > 0)
            snprintf(h->line, sizeof h->line, "VERDICT: ok — every engine listed ran%s, every step%s and evaluation "
                                              "was checked, and every difference is consistent with fp32 rounding, "
                                              "worst case and sharper tier (coverage below)", fb, lt);
        else /* "and evaluation" would claim a check of something that did not run (--no-eval, or --steps 0:
              * no epoch ended, none evaluated) */
            snprintf(h->line, sizeof h->line, "VERDICT: ok — every engine listed ran%s, every step%s was checked (no "
                                              "evaluation: %s), and every difference is consistent with fp32 "
                                              "rounding, worst case and sharper tier (coverage below)", fb, lt,
                     r->cfg.eval ? "no drift step ran" : "--no-eval");
    }
    }
    next_step(h, r);
    if (k == HEADLINE_UNCHECKED && v->unchecked && v->unchecked_noref == v->unchecked && !h->next[0])
        noref_next(h, have_ref, have_ref && noref_recordings(r, v) == v->unchecked);
}
