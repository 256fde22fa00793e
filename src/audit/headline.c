/*
 * headline.c — the verdict line and the next step (audit/headline.h).
 */
#include "audit/headline.h"

#include <stdio.h>
#include <string.h>

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

/* The engines that did run, as --engines spells them, then recorded:FILE. */
static void next_step(headline *h, const audit_result *r) {
    int gpu = 0;
    for (int k = 0; k < h->n_missing; k++) gpu |= strncmp(r->eng[h->missing[k]].spec, "cuda", 4) == 0;
    char ran[400];
    size_t n = 0;
    ran[0] = 0;
    for (int i = 0; i < r->n_engines && n < sizeof ran; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->failed || ae->repeat_of >= 0) continue;
        /* the label: a driver knob (perturb=1) is not in the spec */
        int w = snprintf(ran + n, sizeof ran - n, "%s%s", n ? "," : "", ae->label);
        if (w < 0) break;
        n += (size_t)w;
    }
    int not_run = 0; /* missing for good (unavailable here), not failed during the run */
    for (int k = 0; k < h->n_missing; k++) not_run += !r->eng[h->missing[k]].available;
    if (gpu)
        snprintf(h->next, sizeof h->next, "next: run scripts/gpu-check.sh on a GPU machine (it records the cuda "
                                          "engine), then here: --engines %s,recorded:FILE.lsr", ran);
    else if (h->n_missing && !not_run) /* it can run here: it died (see == failures) */
        snprintf(h->next, sizeof h->next, "next: audit again (an engine died during this run: see the failures), "
                                          "or audit without it: --engines %s", ran);
    else if (h->n_missing)
        snprintf(h->next, sizeof h->next, "next: run where the missing engine can run, or audit without it: "
                                          "--engines %s", ran);
}

void headline_make(headline *h, const audit_result *r, const verdict_table *v) {
    memset(h, 0, sizeof *h);
    missing_engines(h, r);
    headline_kind k = v->problems ? HEADLINE_PROBLEM
                      : v->suspects ? HEADLINE_SUSPECT
                      : (h->n_missing || r->interrupted) ? HEADLINE_INCOMPLETE
                      : v->unchecked ? HEADLINE_UNCHECKED : HEADLINE_OK;
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
        snprintf(h->line, sizeof h->line, "VERDICT: not fully checked — %d engine(s) had tensors no rule could "
                                          "judge (unchecked is not ok)", v->unchecked);
        break;
    default: {
        /* ok covers what was checked: say so on the first screen when the drift phase's steps were not
         * checked at all (no checksums, no shadow replay) for some engine */
        const char *blind = NULL;
        for (int i = 0; i < r->n_engines && !blind && r->total_steps > 0 && r->n_shadows == 0; i++) {
            const audit_engine *ae = &r->eng[i];
            if (!ae->available || ae->is_ref || ae->ck_steps > 0) continue;
            /* checked per element beyond the attribution steps (isolated or sync drift): not blind */
            long checked = 0;
            for (int k = 0; k < v->n_eng; k++)
                if (v->e[k].engine == i) checked = v->e[k].check_steps;
            if (checked > r->attribution_steps) continue;
            blind = ae->label;
        }
        if (blind)
            snprintf(h->line, sizeof h->line, "VERDICT: ok — every difference checked is consistent with fp32 "
                                              "rounding, but %s's drift steps were not checked (%s, no shadow "
                                              "replay; coverage below)",
                     blind, r->cfg.checksums ? "no every-step checksums" : "--no-checksums");
        else
            snprintf(h->line, sizeof h->line, "VERDICT: ok — every engine listed ran, and every difference is "
                                              "consistent with fp32 rounding, worst case and sharper tier (coverage "
                                              "below)");
    }
    }
    next_step(h, r);
}
