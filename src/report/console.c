/*
 * console.c — the audit on the terminal: the verdict screen (one screen by
 * default, the findings in full with --verbose), the per-tensor summary
 * and the failed engines, all from the audit's result.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/every_step.h"
#include "audit/explain.h"
#include "audit/headline.h"
#include "audit/seeds.h"
#include "base/util.h"
#include "checks/bounds.h"
#include "engines/engine.h"

static const char *fmt_ulp(char *buf, size_t cap, double u) { return ls_fmt_num(buf, cap, u, "nan"); }

/* The engine column: 24 wide, or as wide as the longest label listed (a
 * spec with knobs, cpu:threads=1:algo=winograd, ran into the verdict). */
static int label_width(const audit_result *r) {
    int w = 24;
    for (int i = 0; i < r->n_engines; i++)
        if ((int)strlen(r->eng[i].label) > w) w = (int)strlen(r->eng[i].label);
    return w;
}

/* What the reference computes, in words: exact, or (mode=fp32cr) each
 * operation correctly rounded to fp32, and (tf32=on) from TF32-rounded
 * operands.  Returns 1 when it is the exact mathematics. */
static int ref_words(char *buf, size_t cap, const audit_engine *ae) {
    engine_spec s;
    int tf32 = engine_spec_parse(&s, ae->spec) == 0 && strcmp(engine_spec_get(&s, "tf32", "off"), "on") == 0;
    const char *rnd = tf32 ? engine_spec_get(&s, "tf32round", "rna") : "";
    if (ae->ref_fp32cr)
        snprintf(buf, cap, "MPFR, each operation's result correctly rounded to fp32%s%s%s",
                 tf32 ? ", from operands rounded to TF32 (" : "", rnd, tf32 ? ")" : "");
    else if (tf32) snprintf(buf, cap, "MPFR, operands rounded to TF32 (%s), no other rounding", rnd);
    else snprintf(buf, cap, "MPFR, no rounding");
    return !ae->ref_fp32cr && !tf32;
}

/* Engines against the reference: judged or not, how much of it. */
static void print_engine_table(FILE *f, const audit_result *r, const verdict_table *v, const headline *h) {
    const audit_engine *ref = NULL;
    for (int i = 0; i < r->n_engines && !ref; i++)
        if (r->eng[i].is_ref && r->eng[i].available) ref = &r->eng[i];
    char rw[160];
    if (ref) {
        int exact = ref_words(rw, sizeof rw, ref);
        fprintf(f, "\nengines vs the %sreference (%s: %s) on %ld attribution step(s) and %ld "
                   "shadow replay(s);\ncoverage = tensors judged by an fp32 error bound or exactness rule / tensors "
                   "compared:\n", exact ? "exact " : "", ref->label, rw, r->attribution_steps, (long)r->n_shadows);
    }
    else fprintf(f, "\nengines (no exact reference listed: no engine is judged against fp32 bounds):\n");
    int lw = label_width(r);
    fprintf(f, "  %-*s %-20s %-9s %s\n", lw, "engine", "verdict", "coverage", "detail");
    for (int k = 0; k < v->n_eng; k++) {
        const engine_verdict *ev = &v->e[k];
        char cov[24] = "-";
        if (ev->n_compared) snprintf(cov, sizeof cov, "%d/%d", ev->n_bounded, ev->n_compared);
        const char *detail = ev->detail;
        if (!r->eng[ev->engine].available) detail = h->short_reason[ev->engine];
        fprintf(f, "  %-*s %-20s %-9s %s", lw, r->eng[ev->engine].label, ev->verdict, cov, detail);
        if (ev->flips)
            fprintf(f, "; %ld ReLU/max-pool choice(s) went the other way than exact (%ld of them near-ties: inputs "
                       "within 1 ULP)", ev->flips, ev->sub_ulp);
        fprintf(f, "\n");
    }
}

/* Whether pair p is shown on the one-screen verdict (a repeat copy only
 * against its original, a perturbed engine only as the noise floor). */
static int pair_shown(const audit_result *r, const pair_verdict *pv) {
    const audit_pair *p = &r->pair[pv->pair];
    const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
    int rep_a = ea->repeat_of >= 0, rep_b = eb->repeat_of >= 0;
    int derived = (rep_a && ea->repeat_of != p->b) || (rep_b && eb->repeat_of != p->a) ||
                  ((ea->perturb_ulps || eb->perturb_ulps) && strcmp(pv->verdict, "noise floor") != 0 && !pv->problem);
    return !derived;
}

/* The fully compared steps in short: "steps 1, 235, 470 and 705", or with
 * more of them "steps 1-2, 50, 100, ..., 700, 705 (17 in all)" (runs of
 * consecutive steps joined).  A result without the list (not from the
 * driver) gets the plan's words. */
static void full_steps_words(char *buf, size_t cap, const audit_result *r) {
    const long *s = r->full_steps;
    long n = r->n_full_steps;
    if (!s || n <= 0) {
        snprintf(buf, cap, "the first, then every %ld", r->cfg.audit_every);
        return;
    }
    /* items: a step, or a run a-b of consecutive steps; with more than 6,
     * the first 4, "...", the last 2 */
    long items = 0;
    for (long i = 0; i < n; i++) items += i == 0 || s[i] != s[i - 1] + 1;
    size_t k = (size_t)snprintf(buf, cap, "step%s", n > 1 ? "s" : "");
    long item = 0;
    for (long i = 0; i < n && k < cap; item++) {
        long j = i;
        while (j + 1 < n && s[j + 1] == s[j] + 1) j++;
        int show = items <= 6 || item < 4 || item >= items - 2;
        const char *sep = item == 0 ? " " : (items <= 6 && item == items - 1) ? " and " : ", ";
        if (items > 6 && item == 4) k += (size_t)snprintf(buf + k, cap - k, ", ...");
        if (show && k < cap)
            k += (size_t)(s[i] == s[j] ? snprintf(buf + k, cap - k, "%s%ld", sep, s[i])
                                       : snprintf(buf + k, cap - k, "%s%ld-%ld", sep, s[i], s[j]));
        i = j + 1;
    }
    if (items > 6 && k < cap) snprintf(buf + k, cap - k, " (%ld in all)", n);
}

/* Engine pairs trained side by side: parameters are compared after every
 * step (cheaply: digest and norms), every tensor only on fully compared
 * steps (1..ref_steps, every audit_every-th, the last): the first tensor
 * that differs is a sampled fact and says so. */
static void print_pair_table(FILE *f, audit_result *R, const verdict_table *v) {
    audit_result *r = R;
    if (!v->n_pair) return;
    char b1[32];
    char ran[64];
    if (r->interrupted && !r->interrupted_seeds) /* a partial run says how far it got */
        snprintf(ran, sizeof ran, "%ld of %ld steps: interrupted", r->interrupted_step, r->total_steps);
    else snprintf(ran, sizeof ran, "%ld steps", r->total_steps);
    char full[200];
    full_steps_words(full, sizeof full, r);
    fprintf(f, "\nengine pairs, trained side by side from the same start (%s mode, %s); weights compared after "
               "every step,\nevery tensor at fully compared steps (%s)%s:\n",
            lockstep_mode_name(r->drift_mode), ran, full, r->epochs_done ? "; test images after the last epoch" : "");
    int vw = 16; /* the verdict column as wide as its widest entry ("differs (not judged)") */
    for (int k = 0; k < v->n_pair; k++)
        if ((int)strlen(v->p[k].verdict) > vw) vw = (int)strlen(v->p[k].verdict);
    int nw = 32; /* the pair column as wide as its widest "a vs b" shown */
    for (int k = 0; k < v->n_pair; k++) {
        const audit_pair *p = &r->pair[v->p[k].pair];
        int w = (int)(strlen(r->eng[p->a].label) + strlen(r->eng[p->b].label)) + 4;
        if ((pair_shown(r, &v->p[k]) || R->cfg.verbose) && w > nw) nw = w;
    }
    fprintf(f, "  %-*s %-*s %s\n", nw, "pair", vw, "verdict", "what differs");
    int hidden = 0;
    for (int k = 0; k < v->n_pair; k++) {
        const pair_verdict *pv = &v->p[k];
        const audit_pair *p = &r->pair[pv->pair];
        if (!pair_shown(r, pv) && !R->cfg.verbose) {
            hidden++;
            continue;
        }
        char nm[2 * sizeof r->eng[0].label + 8], fd[96] = "weights equal at every step", apart[64] = "", tail[80] = "";
        /* equal over no compared step is no claim (an engine that failed before the first) */
        const char *wn = isnan(pv->end_rel_l2) ? "weights not compared after any step" : "weights never";
        if (isnan(pv->end_rel_l2)) snprintf(fd, sizeof fd, "%s", wn);
        snprintf(nm, sizeof nm, "%s vs %s", r->eng[p->a].label, r->eng[p->b].label);
        if (pv->first_diff_step && pv->first_slot >= 0)
            snprintf(fd, sizeof fd, "weights differ after step %ld (first tensor: %s, compared at step %ld)", pv->first_diff_step,
                     r->slot_name[pv->first_slot], p->slot[pv->first_slot].first_unequal_step);
        else if (pv->first_diff_step) snprintf(fd, sizeof fd, "weights differ after step %ld", pv->first_diff_step);
        else if (pv->first_slot >= 0)
            snprintf(fd, sizeof fd, "%s; %s at step %ld", wn, r->slot_name[pv->first_slot],
                     p->slot[pv->first_slot].first_unequal_step);
        if (isinf(pv->end_rel_l2)) snprintf(apart, sizeof apart, "; weights NaN/inf on one side at the end");
        else if (!isnan(pv->end_rel_l2)) {
            if (pv->end_rel_l2 > 0)
                snprintf(apart, sizeof apart, "; %s %% apart at the end", ls_fmt_num(b1, sizeof b1, 100 * pv->end_rel_l2, "-"));
        }
        if (pv->flips >= 0)
            snprintf(tail, sizeof tail, "; %ld of %zu test images flipped, accuracy gap %+.2f points", pv->flips,
                     r->n_test, pv->acc_gap);
        /* a pair with an engine that died: compared only while both ran */
        char dead[sizeof r->eng[0].label + 96] = "";
        const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
        if (ea->failed || eb->failed) {
            const audit_engine *d = ea->failed && (!eb->failed || ea->failed_step <= eb->failed_step) ? ea : eb;
            if (d->failed_in_attr)
                snprintf(dead, sizeof dead, "; %s failed in the attribution phase: no drift step compared", d->label);
            else if (d->failed_in_eval)
                snprintf(dead, sizeof dead, "; %s failed in the evaluation after step %ld: compared up to step %ld",
                         d->label, d->failed_step, d->failed_step);
            else
                snprintf(dead, sizeof dead, "; %s failed at step %ld: compared up to step %ld only", d->label,
                         d->failed_step, d->failed_step - 1);
        }
        fprintf(f, "  %-*s %-*s %s%s%s%s\n", nw, nm, vw, pv->verdict, fd, apart, tail, dead);
    }
    if (hidden) fprintf(f, "  (%d more pair(s) of repeat and perturbed copies: --verbose, report.md)\n", hidden);
    fprintf(f, "  (apart: relative L2 distance of all parameters after the last step)\n");
}

/* The three layers that cost the most training time per step (median
 * forward + backward call, warm-up left out), for the first fp32 engine
 * with samples, with the p10-p90 spread: where a speed-up would pay. */
static void print_top_layers(FILE *f, const audit_result *r, const model *m) {
    const audit_engine *ae = NULL;
    for (int i = 0; i < r->n_engines && !ae; i++)
        if (r->eng[i].available && !r->eng[i].is_ref && r->eng[i].tsamples) ae = &r->eng[i];
    if (!ae || m->n_layers < 1) return;
    double med[MODEL_MAX_LAYERS], lo[MODEL_MAX_LAYERS], hi[MODEL_MAX_LAYERS];
    int idx[MODEL_MAX_LAYERS], n = 0;
    for (int l = 0; l < m->n_layers && l < MODEL_MAX_LAYERS; l++) {
        double a[3], b[3];
        int na = timing_quantiles(&ae->tsamples->layer[l][TPH_TRAIN_FWD], &a[0], &a[1], &a[2]);
        int nb = timing_quantiles(&ae->tsamples->layer[l][TPH_BWD], &b[0], &b[1], &b[2]);
        if (!na && !nb) continue;
        /* quantiles of a sum are not sums of quantiles: the range is the sum
         * of the parts' p10s and p90s, said as such below */
        med[l] = (na ? a[1] : 0) + (nb ? b[1] : 0);
        lo[l] = (na ? a[0] : 0) + (nb ? b[0] : 0);
        hi[l] = (na ? a[2] : 0) + (nb ? b[2] : 0);
        idx[n++] = l;
    }
    for (int i = 0; i < n; i++) /* by median, largest first */
        for (int j = i + 1; j < n; j++)
            if (med[idx[j]] > med[idx[i]]) {
                int t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
            }
    if (!n) return;
    fprintf(f, "\ntime, %s: the slowest layers per training step (median forward + backward call, ms; p10-p90; "
               "first %d calls left out):\n ", ae->label, TIMING_WARMUP);
    for (int i = 0; i < n && i < 3; i++)
        fprintf(f, " %s %.3g (%.3g-%.3g)%s", m->layers[idx[i]].name, 1e3 * med[idx[i]], 1e3 * lo[idx[i]],
                1e3 * hi[idx[i]], i + 1 < n && i < 2 ? ";" : "\n");
    if (r->seeds && r->seeds->early)
        fprintf(f, "  (measured with the seed loop's audits alongside at idle priority: they yield the cores but share "
                   "caches and memory; for timings alone, run without --seeds)\n");
}

/* Coverage in steps, per engine: the every-step checksums (training steps
 * and evaluation epochs) and the per-element checks against the reference. */
void report_print_coverage(FILE *f, const audit_result *r, const verdict_table *v) {
    char b1[32];
    int lw = label_width(r);
    fprintf(f, "\ncoverage in steps:\n");
    for (int k = 0; k < v->n_eng; k++) {
        const engine_verdict *ev = &v->e[k];
        const audit_engine *ae = &r->eng[ev->engine];
        if (!ae->available) continue;
        long all = every_step_of_steps(r, ae);
        fprintf(f, "  %-*s ", lw, ae->label);
        if (!r->cfg.checksums) fprintf(f, "every-step checksums off (--no-checksums)");
        else if (!ae->ck_have && ae->ck_steps > 0)
            fprintf(f, "every-step checksums STOPPED after %ld of %ld drift steps (%s), evaluation %d of %d epochs",
                    ae->ck_steps, all, ae->ck_none, ae->ck_eval_epochs, r->cfg.eval ? r->epochs_done : 0);
        else if (!ae->ck_have) fprintf(f, "no every-step checksums (%s)", ae->ck_none);
        else
            fprintf(f, "%s by checksums (%ld of %ld, evaluation %d of %d epochs)",
                    ae->ck_steps == all && all && !ae->ck_unjudged ? "every drift step checked" : "drift steps checked", ae->ck_steps,
                    all, ae->ck_eval_epochs, r->cfg.eval ? r->epochs_done : 0);
        if (r->cfg.checksums && ae->ck_light_steps)
            fprintf(f, "; %ld of them light, the conv layers' plain relations only (--complete-every %ld), every "
                       "relation at %ld",
                    ae->ck_light_steps, r->cfg.complete_every, ae->ck_steps - ae->ck_light_steps);
        if (r->cfg.checksums && ae->ck_have && ae->ck_partial[0]) fprintf(f, " — partly: %s", ae->ck_partial);
        if (r->cfg.checksums && ae->ck_unjudged) /* not full coverage: some relations said nothing */
            fprintf(f, "; %ld relation(s) not judged (fp32 may overflow there)", ae->ck_unjudged);
        if (r->cfg.checksums && ae->ck_have && ae->recorded)
            fprintf(f, " (vectors as recorded: computed on the recording machine, each tied to its step's logits; "
                       "not authenticated)");
        fprintf(f, "; per-element reference checks at %ld step(s)", ev->check_steps);
        /* a recording is not replayed in isolation (driver.c: recorded engines skip the attribution phase) */
        if (r->attribution_steps && ae->recorded) fprintf(f, " (none in attribution: a recording is not replayed there)");
        else if (r->attribution_steps) fprintf(f, " (%ld in attribution)", r->attribution_steps);
        if (ae->ck_have && r->cfg.checksums && ae->ck_relations)
            fprintf(f, "\n  %-*s   worst checksum ratio %s: %s", lw, "", ls_fmt_num(b1, sizeof b1, ae->ck_worst, "-"),
                    ae->ck_worst_what);
        if (ae->ck_have && r->cfg.checksums && ae->ck_n_sharp) {
            char b2[32];
            fprintf(f, "\n  %-*s   sharper tier (%ld relations): worst ratio %s (%s), ", lw, "", ae->ck_n_sharp,
                    ls_fmt_num(b2, sizeof b2, ae->ck_sharp_worst, "-"), ae->ck_sharp_worst_what);
            /* "SUSPECT" only where some check is; none over reads as nothing wrong, and relations over it
             * beyond the worst case too are the worst-case tier's (the line above), not counted here */
            if (ae->ck_sus_checks)
                fprintf(f, "%ld check(s) over it within the worst case: SUSPECT", ae->ck_sus_checks);
            else if (ae->ck_sharp_worst > 1)
                fprintf(f, "none over it within the worst case (those beyond the worst case: the line above)");
            else fprintf(f, "none over it");
        }
        if (ae->ck_have && r->cfg.checksums && ae->ck_n_sharp && r->cfg.verbose) {
            /* the blocks' margins (checks/checksums.h): the loosest and the tightest on the sharper tier */
            int ll = -1, lp = 0, tl = -1, tp = 0;
            for (int l = 0; l < r->m.n_layers; l++)
                for (int ph = 0; ph < CK_NPHASE_ALL; ph++) {
                    const ck_block_margin *bm = &ae->ck_blk[l][ph];
                    if (!bm->n || !(bm->sharp >= 0)) continue;
                    if (ll < 0 || bm->sharp < ae->ck_blk[ll][lp].sharp) ll = l, lp = ph;
                    if (tl < 0 || bm->sharp > ae->ck_blk[tl][tp].sharp) tl = l, tp = ph;
                }
            if (ll >= 0) {
                char b3[32], b4[32];
                fprintf(f, "\n  %-*s   share of the sharper tier rounding used, per block of relations: least %s (%s %s), "
                           "most %s (%s %s); every block: report.md, run.json checksums.blocks", lw, "",
                        ls_fmt_num(b3, sizeof b3, ae->ck_blk[ll][lp].sharp, "-"), r->m.layers[ll].name,
                        ck_block_name(&r->m, ll, lp), ls_fmt_num(b4, sizeof b4, ae->ck_blk[tl][tp].sharp, "-"),
                        r->m.layers[tl].name, ck_block_name(&r->m, tl, tp));
            }
        }
        if (ae->ck_have && r->cfg.checksums && ae->ck_legal_updates)
            fprintf(f, "\n  %-*s   Adam in a recognised legal order at %ld update(s), bit for bit (ok; the largest, step "
                       "%ld: %s)", lw, "", ae->ck_legal_updates, ae->ck_legal_step, ae->ck_legal_what);
        /* every logit not judged: no worst ratio (it read 0, as if exact) */
        int ev_none = ae->ev_ref_images && ae->ev_ref_unjudged >= ae->ev_ref_images * r->n_classes;
        if (ev_none)
            fprintf(f, "\n  %-*s   evaluation vs the reference (epoch %d, %ld images): no logit judged, %ld "
                       "prediction(s) differ", lw, "", ae->ev_ref_epoch, ae->ev_ref_images, ae->ev_ref_pred_diff);
        else if (ae->ev_ref_images)
            fprintf(f, "\n  %-*s   evaluation vs the reference (epoch %d, %ld images): worst logit ratio %s, %ld "
                       "prediction(s) differ", lw, "", ae->ev_ref_epoch, ae->ev_ref_images,
                    ls_fmt_num(b1, sizeof b1, ae->ev_ref_worst, "-"), ae->ev_ref_pred_diff);
        if (ae->ev_ref_images && ae->ev_ref_unjudged)
            fprintf(f, "; %ld of %ld logits not judged (fp32 may overflow there)", ae->ev_ref_unjudged,
                    ae->ev_ref_images * r->n_classes);
        else if (!ae->ev_ref_images && ae->ev_ref_why[0])
            fprintf(f, "\n  %-*s   evaluation vs the reference: not measured (%s)", lw, "", ae->ev_ref_why);
        /* the state round trip: a line only where some of it was inconclusive or off (report.md and run.json
         * always say it) */
        char rtw[400];
        if (every_step_roundtrip_words(r, ae, rtw, sizeof rtw)) fprintf(f, "\n  %-*s   %s", lw, "", rtw);
        fprintf(f, "\n");
    }
    /* repeats without a row of their own (nothing found): their every-step coverage, which the
     * verdict counts too */
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        int row = 0;
        for (int k = 0; k < v->n_eng; k++) row |= v->e[k].engine == i;
        if (row || ae->repeat_of < 0 || ae->is_ref || !ae->available || !r->cfg.checksums || !ae->ck_have) continue;
        long all = every_step_of_steps(r, ae);
        fprintf(f, "  %-*s %s by checksums (%ld of %ld, evaluation %d of %d epochs)", lw, ae->label,
                ae->ck_steps == all && all && !ae->ck_unjudged ? "every drift step checked" : "drift steps checked", ae->ck_steps, all,
                ae->ck_eval_epochs, r->cfg.eval ? r->epochs_done : 0);
        if (ae->ck_light_steps)
            fprintf(f, "; %ld of them light (--complete-every %ld)", ae->ck_light_steps, r->cfg.complete_every);
        if (ae->ck_unjudged) fprintf(f, "; %ld relation(s) not judged (fp32 may overflow there)", ae->ck_unjudged);
        if (ae->ck_twin_of >= 0 && ae->ck_twin_steps)
            fprintf(f, "; %ld judged on %s's vector (every operand hashed equal)", ae->ck_twin_steps,
                    r->eng[ae->ck_twin_of].label);
        fprintf(f, "; nothing found\n");
    }
    if (r->attribution_steps == 0)
        fprintf(f, "  (no attribution phase: --attribution-steps 0, or no reference — less coverage: no step judged "
                   "per element in isolation)\n");
}

void report_print_verdicts(audit_result *R, const verdict_table *v, const explain_list *L) {
    FILE *f = R->cfg.out;
    if (!f) return;
    audit_result *r = R;
    char b1[32], b2[32];
    fprintf(f, "\n");
    headline h;
    headline_make(&h, r, v);
    fprintf(f, "%s\n", h.line);
    /* every engine not run, its reason on one line, then the way out */
    for (int k = 0; k < h.n_missing && (h.n_missing > 1 || h.kind != HEADLINE_INCOMPLETE); k++)
        fprintf(f, "  %s %s: %s\n", r->eng[h.missing[k]].label,
                r->eng[h.missing[k]].available ? "failed" : "was not run", h.short_reason[h.missing[k]]);
    if (h.next[0]) fprintf(f, "%s\n", h.next);
    print_engine_table(f, r, v, &h);
    report_print_coverage(f, R, v);
    print_pair_table(f, R, v);
    if (r->seeds) seeds_print(f, r->seeds);
    int shown = 0, more = 0;
    /* --verbose printed every finding in full already (print_summary) */
    for (int i = 0; i < L->n && !R->cfg.verbose; i++) {
        const explain_finding *x = &L->f[i];
        /* of the notes, only a knob the engine did not honour (the user asked for it) */
        int note = x->severity == EXPLAIN_INFO && strcmp(x->rule, "knob-fallback") == 0;
        if (x->severity > EXPLAIN_CAUSE && !note) continue;
        if (shown >= 8) {
            more++;
            continue;
        }
        if (!shown) fprintf(f, "\nfindings:\n");
        fprintf(f, "  [%s] %s\n", x->severity == EXPLAIN_PROBLEM   ? "PROBLEM"
                                   : x->severity == EXPLAIN_SUSPECT ? "SUSPECT"
                                   : note                           ? "note"
                                                                    : "cause",
                x->title);
        shown++;
    }
    if (more) fprintf(f, "  ... and %d more (--verbose, report.md)\n", more);
    print_top_layers(f, r, &R->m);
    char b3[32];
    char b4[32];
    char b5[32];
    fprintf(f, "\ncost: every-step checks %s s (the engines' at once), comparison %s s (state round trip %s s, sharper "
               "tier %s s), of %s s\n",
            ls_fmt_num(b5, sizeof b5, r->checks_s, "-"), ls_fmt_num(b1, sizeof b1, r->compare_s, "-"),
            ls_fmt_num(b3, sizeof b3, r->roundtrip_s, "-"), ls_fmt_num(b4, sizeof b4, r->sharp_s, "-"),
            ls_fmt_num(b2, sizeof b2, r->total_s, "-"));
}

/* The sharper tier's margin per tensor kind (audit.h audit_sharp_dist),
 * one line each: the ratio to the sharp bound at the median, p99 (bucket
 * edges) and max, and the elements over it. */
static void print_sharp_margin(FILE *f, const audit_result *r) {
    int head = 0;
    char b1[32], b2[32], b3[32];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        for (int k = 0; k < AUDIT_SK_N; k++) {
            const audit_sharp_dist *d = &p->sharp_kind[k];
            if (!d->checks) continue;
            if (!head)
                fprintf(f, "\n== sharper tier: margin per tensor kind (ratio to the sharp bound: median and p99 as\n"
                           "   power-of-two bucket edges, max; > 1 is SUSPECT)\n");
            head = 1;
            fprintf(f, "  %-14s vs %-10s %-24s median %-8s p99 %-8s max %-8s (%.3g%% of the bound), %ld of %llu over\n",
                    r->eng[p->b].label, r->eng[p->a].label, audit_sharp_kind_name(k),
                    fmt_ulp(b1, sizeof b1, audit_sharp_quantile(d, 0.5)),
                    fmt_ulp(b2, sizeof b2, audit_sharp_quantile(d, 0.99)), fmt_ulp(b3, sizeof b3, d->max_ratio),
                    100 * d->max_ratio, d->n_over, (unsigned long long)d->n);
        }
    }
}

void report_print_summary(audit_result *R) {
    FILE *f = R->cfg.out;
    if (!f) return;
    audit_result *r = R;
    const model *m = &R->m;
    char b1[32], b2[32];
    fprintf(f, "\n== engines\n");
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available) fprintf(f, "  %-26s skipped: %s\n", ae->label, ae->skip_reason);
        else if (ae->is_ref && R->cfg.ref_steps > 0)
            fprintf(f, "  %-26s ran %ld steps (1..%ld, then one shadow step every %ld)\n", ae->label, ae->steps_run,
                    R->cfg.ref_steps, R->cfg.audit_every);
        else if (ae->is_ref)
            fprintf(f, "  %-26s ran %ld steps (%ld attribution step(s), then one shadow step every %ld)\n", ae->label,
                    ae->steps_run, r->attribution_steps, R->cfg.audit_every);
        else fprintf(f, "  %-26s ran %ld steps\n", ae->label, ae->steps_run);
    }
    if (r->epochs_done > 0 && R->cfg.eval) {
        fprintf(f, "\n== test accuracy per epoch (and training time: batch making + forward + loss + backward + update;\n"
                   "   cold: epoch 1, warm: the mean of the later epochs)\n");
        fprintf(f, "  %-26s", "engine");
        for (int ep = 0; ep < r->epochs_done; ep++) fprintf(f, "   epoch %d", ep + 1);
        fprintf(f, "   cold s   warm s   images/s (last)   peak MiB\n");
        for (int i = 0; i < r->n_engines; i++) {
            const audit_engine *ae = &r->eng[i];
            if (!ae->available || ae->is_ref) continue;
            fprintf(f, "  %-26s", ae->label);
            for (int ep = 0; ep < r->epochs_done; ep++)
                if (isnan(ae->test_acc[ep])) fprintf(f, "  %8s", "failed");
                else fprintf(f, "  %7.2f%%", 100 * ae->test_acc[ep]);
            int last = r->epochs_done - 1;
            /* warm: the mean of the epochs after the first, as report.md
             * says (this table gave the last epoch's); with none, "-" (it
             * printed "nan") */
            char warm[32] = "-", ips[32] = "-";
            double w = report_warm_epoch_s(r, ae);
            if (!isnan(w)) snprintf(warm, sizeof warm, "%.2f", w);
            if (ae->train_s[last] > 0) snprintf(ips, sizeof ips, "%.0f", ae->images[last] / ae->train_s[last]);
            fprintf(f, "  %7.2f  %7s  %12s  %12.1f\n", ae->train_s[0], warm, ips, ae->peak_rss / 1048576.0);
        }
        for (int pi = 0; pi < r->n_pairs; pi++) {
            const audit_pair *p = &r->pair[pi];
            if (r->eng[p->a].is_ref || r->eng[p->b].is_ref) continue;
            fprintf(f, "  test images classified differently, %s vs %s:", r->eng[p->a].label, r->eng[p->b].label);
            for (int ep = 0; ep < r->epochs_done; ep++) fprintf(f, " %ld", p->disagree[ep]);
            fprintf(f, " (of %zu)\n", R->cfg.run.limit_test && R->cfg.run.limit_test < R->ds.test.n
                                           ? R->cfg.run.limit_test : R->ds.test.n);
        }
    }
    fprintf(f, "\n== when do engines stop being bitwise equal? (parameters after each step)\n");
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        long last = -1;
        for (long s = r->total_steps - 1; s >= 0; s--)
            if (!isnan(p->param_rel_l2[s])) {
                last = s;
                break;
            }
        int is_repeat = r->eng[p->b].repeat_of == p->a || r->eng[p->a].repeat_of == p->b;
        fprintf(f, "  %-24s vs %-24s ", r->eng[p->b].label, r->eng[p->a].label);
        if (p->first_diff_step == 0 && last < 0) fprintf(f, "not compared after any step");
        else if (p->first_diff_step == 0) fprintf(f, "bitwise equal at every step compared");
        else fprintf(f, "first differ after step %ld", p->first_diff_step);
        if (last >= 0)
            fprintf(f, "; at step %ld: params rel. L2 %.2e, max %s ulp", last + 1, p->param_rel_l2[last],
                    fmt_ulp(b1, sizeof b1, p->param_max_ulp[last]));
        if (is_repeat) fprintf(f, "  [run-to-run determinism]");
        fprintf(f, "\n");
    }
    fprintf(f, "\n== largest divergence per tensor over the fully compared steps: normwise relative L2 error,\n"
               "   max ULP distance (at the reference's magnitude; huge where the reference is ~0), and in\n"
               "   isolated mode the bound ratio (<= 1: consistent with fp32 rounding in some order).\n"
               "   Reference pairs in free mode: %s%ld%s, and shadow steps against the engine the\n"
               "   shadow started from.\n", R->cfg.ref_steps > 0 ? "steps 1.." : "", R->cfg.ref_steps > 0 ? R->cfg.ref_steps : r->attribution_steps,
            R->cfg.ref_steps > 0 ? "" : " attribution step(s)");
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        fprintf(f, "  %s vs %s\n", r->eng[p->b].label, r->eng[p->a].label);
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!ss->n_steps) continue;
            /* keep the table readable: activations, gradients, loss and
             * parameters; Adam moments are in run.json */
            if (strstr(r->slot_name[s], ".adam_")) continue;
            fprintf(f, "    %-20s %-8s rel L2 %-8.2e max %8s ulp", r->slot_name[s], r->slot_phase[s], ss->max_rel_l2,
                    fmt_ulp(b1, sizeof b1, ss->max_ulp));
            if (ss->max_bound_ratio >= 0) fprintf(f, "  bound ratio %-8s", fmt_ulp(b2, sizeof b2, ss->max_bound_ratio));
            if (ss->first_unequal_step) fprintf(f, "  first unequal at step %ld", ss->first_unequal_step);
            else fprintf(f, "  bitwise equal");
            if (ss->n_nonfinite) fprintf(f, "; %ld element(s) NaN/inf vs not (not in the figures)", ss->n_nonfinite);
            fprintf(f, "\n");
        }
    }
    print_sharp_margin(f, r);
    explain_print(f, r, m);
    fprintf(f, "\n== cost\n  every-step checks %.2f s, comparison %.2f s, of %.2f s total; %ld steps; driver peak RSS "
               "%.1f MiB\n", r->checks_s, r->compare_s, r->total_s, r->total_steps, r->parent_peak_rss / 1048576.0);
    (void)m;
}

/* Engines whose process died, and an interruption: after the summary, so
 * that a reader of a partial run sees at once what it does not cover. */
void report_print_failures(audit_result *R) {
    FILE *f = R->cfg.out;
    const audit_result *r = R;
    if (!f || (!r->n_failed && !r->interrupted)) return;
    fprintf(f, "\n== failures\n");
    for (int i = 0; i < r->n_engines; i++)
        if (r->eng[i].failed) {
            fprintf(f, "  engine %s FAILED: %s; left out from then on (it ran %ld steps)\n", r->eng[i].label,
                    r->eng[i].fail_reason, r->eng[i].steps_run);
        }
    /* a death inside a drift step abandons that step for every engine (audit/driver.c drift_step) */
    if (r->abandoned_step > 0)
        fprintf(f, "  step %ld was abandoned for every engine: the others skipped its batch (or only some applied its "
                   "update), so from there on they are not the run an undisturbed audit makes\n", r->abandoned_step);
    if (r->interrupted && r->interrupted_seeds)
        fprintf(f, "  INTERRUPTED in the seed loop by signal %d (%s): the main run (all %ld steps) is above; the seed "
                "loop's results are not\n", r->interrupted, strsignal(r->interrupted), r->interrupted_step);
    else if (r->interrupted && r->interrupted_step == 0)
        fprintf(f, "  INTERRUPTED before drift step 1 of %ld by signal %d (%s): no drift step ran; everything above "
                   "covers the %ld attribution step(s) only\n",
                r->total_steps, r->interrupted, strsignal(r->interrupted), r->attribution_steps);
    else if (r->interrupted)
        fprintf(f, "  INTERRUPTED at step %ld of %ld by signal %d (%s): everything above covers steps 1..%ld only\n",
                r->interrupted_step, r->total_steps, r->interrupted, strsignal(r->interrupted), r->interrupted_step);
}

/* Engines still running (available and not failed). */
