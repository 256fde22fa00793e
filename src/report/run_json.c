/*
 * run_json.c — run.json: the audit's summary for programs (verdicts,
 * findings, coverage, per-engine and per-pair figures, timing), built from
 * the audit's result (audit/audit.h) and the verdict model
 * (audit/explain.h), written atomically.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/explain.h"
#include "audit/seeds.h"
#include "audit/headline.h"
#include "report/figures.h"
#include "base/util.h"
#include "checks/bounds.h"


static void json_slot(lsbuf *b, const audit_result *r, const audit_slot_stats *ss, int s) {
    lsbuf_printf(b, "{\"tensor\": ");
    lsbuf_json_str(b, r->slot_name[s]);
    lsbuf_printf(b, ", \"phase\": \"%s\", \"steps\": %ld, \"max_abs\": ", r->slot_phase[s], ss->n_steps);
    lsbuf_json_num(b, ss->max_abs);
    lsbuf_printf(b, ", \"max_rel\": ");
    lsbuf_json_num(b, ss->max_rel);
    lsbuf_printf(b, ", \"max_rel_l2\": ");
    lsbuf_json_num(b, ss->max_rel_l2);
    lsbuf_printf(b, ", \"max_ulp\": ");
    lsbuf_json_num(b, ss->max_ulp);
    lsbuf_printf(b, ", \"max_bound_ratio\": ");
    if (ss->max_bound_ratio < 0) lsbuf_printf(b, "null");
    else lsbuf_json_num(b, ss->max_bound_ratio);
    lsbuf_printf(b, ", \"min_frac_equal\": ");
    lsbuf_json_num(b, ss->min_frac_equal);
    lsbuf_printf(b, ", \"worst_step\": %ld, \"first_unequal_step\": %ld, \"nonfinite_mismatch\": %ld", ss->worst_step,
                 ss->first_unequal_step, ss->n_nonfinite);
    if (ss->n_check_steps) {
        lsbuf_printf(b, ", \"check\": {\"steps\": %ld, \"bounded_steps\": %ld, \"elements_over_bound\": %ld, "
                        "\"first_over_step\": %ld, \"worst_ratio_step\": %ld, \"worst_index\": %zu, \"worst_ref\": ",
                     ss->n_check_steps, ss->n_bounded, ss->n_over, ss->first_over_step, ss->worst_ratio_step,
                     ss->worst_ratio_index);
        lsbuf_json_num(b, ss->worst_ref);
        lsbuf_printf(b, ", \"worst_cand\": ");
        lsbuf_json_num(b, ss->worst_cand);
        lsbuf_printf(b, ", \"worst_bound\": ");
        lsbuf_json_num(b, ss->worst_bound);
        lsbuf_printf(b, ", \"decisions\": %ld, \"flips\": %ld, \"near_ties\": %ld, \"sub_ulp\": %ld, \"flip_err_share\": ",
                     ss->decisions, ss->flips, ss->near_ties, ss->sub_ulp);
        lsbuf_json_num(b, ss->flip_err_share);
        lsbuf_printf(b, ", \"flip_elements\": %ld", ss->flip_elems);
        /* bounds_range_unbound: elements with no information (fp32 may overflow); only when some */
        if (ss->n_unjudged)
            lsbuf_printf(b, ", \"elements_not_judged\": %ld, \"first_not_judged_step\": %ld", ss->n_unjudged,
                         ss->first_unjudged_step);
        if (ss->n_sharp) {
            /* the sharper tier (checks/bounds.h, rounding_tests.h) */
            lsbuf_printf(b, ", \"sharp\": {\"checks\": %ld, \"aggregate_checks\": %ld, \"max_ratio\": ",
                         ss->n_sharp, ss->n_aggregate);
            lsbuf_json_num(b, ss->max_sharp_ratio);
            lsbuf_printf(b, ", \"factor\": ");
            lsbuf_json_num(b, ss->sharp_factor);
            lsbuf_printf(b, ", \"alarm_per_element\": ");
            lsbuf_json_num(b, ss->sharp_alarm);
            lsbuf_printf(b, ", \"elements_over\": %ld, \"bias_score\": ", ss->n_over_sharp);
            lsbuf_json_num(b, ss->max_bias_score);
            lsbuf_printf(b, ", \"sign_z\": ");
            lsbuf_json_num(b, ss->bias_sign_z);
            lsbuf_printf(b, ", \"away_z\": ");
            lsbuf_json_num(b, ss->bias_away_z);
            lsbuf_printf(b, ", \"bias_p\": ");
            lsbuf_json_num(b, ss->bias_p);
            lsbuf_printf(b, ", \"scale_score\": ");
            lsbuf_json_num(b, ss->max_scale_score);
            lsbuf_printf(b, ", \"mean_square\": ");
            lsbuf_json_num(b, ss->scale_ms);
            lsbuf_printf(b, ", \"ms_limit\": ");
            lsbuf_json_num(b, ss->scale_limit);
            lsbuf_printf(b, ", \"suspect_checks\": %ld, \"first_suspect_step\": %ld}", ss->n_suspect,
                         ss->first_suspect_step);
        }
        lsbuf_printf(b, "}");
    }
    lsbuf_printf(b, "}");
}

/* one entry of run.json's "verdicts"."engines" (k: its place in the list). */
static void json_engine_verdict(lsbuf *b, const audit_result *r, const engine_verdict *ev, int k) {
    lsbuf_printf(b, "%s\n    {\"engine\": ", k ? "," : "");
    lsbuf_json_str(b, r->eng[ev->engine].label);
    lsbuf_printf(b, ", \"vs\": ");
    if (ev->ref >= 0) lsbuf_json_str(b, r->eng[ev->ref].label);
    else lsbuf_printf(b, "null");
    lsbuf_printf(b, ", \"verdict\": ");
    lsbuf_json_str(b, ev->verdict);
    lsbuf_printf(b, ", \"problem\": %s, \"unchecked\": %s, \"compared\": %d, \"bounded\": %d, \"check_steps\": %ld, "
                    "\"worst_tensor\": ", ev->problem ? "true" : "false", ev->unchecked ? "true" : "false",
                 ev->n_compared, ev->n_bounded, ev->check_steps);
    if (ev->worst_slot >= 0) lsbuf_json_str(b, r->slot_name[ev->worst_slot]);
    else lsbuf_printf(b, "null");
    if (ev->n_partial) /* tensors judged in part (bounds_range_unbound); only when some */
        lsbuf_printf(b, ", \"judged_in_part\": %d, \"elements_not_judged\": %ld", ev->n_partial, ev->n_unjudged);
    lsbuf_printf(b, ", \"worst_ratio\": ");
    lsbuf_json_num(b, ev->worst_slot >= 0 ? ev->worst_ratio : NAN);
    lsbuf_printf(b, ", \"worst_step\": %ld, \"decision_flips\": %ld, \"near_ties\": %ld, \"sub_ulp\": %ld, "
                    "\"roundtrip_checks\": %ld, \"roundtrip_inconclusive\": %ld, \"detail\": ",
                 ev->worst_step, ev->flips, ev->near_ties, ev->sub_ulp, r->eng[ev->engine].rt_checks,
                 r->eng[ev->engine].rt_nondet);
    lsbuf_json_str(b, ev->detail);
    /* why an fp32 engine has no state round trip from some step on (its second instance could not be created,
     * describes other kernels, or died); absent when it has one */
    if (r->eng[ev->engine].rt_none[0]) {
        lsbuf_printf(b, ", \"roundtrip_off\": ");
        lsbuf_json_str(b, r->eng[ev->engine].rt_none);
    }
    lsbuf_printf(b, ", \"suspect\": %s", ev->suspect ? "true" : "false");
    if (ev->suspect_slot >= 0) {
        /* the sharper tier's verdict (explain.h) */
        lsbuf_printf(b, ", \"suspect_detail\": {\"tensor\": ");
        lsbuf_json_str(b, r->slot_name[ev->suspect_slot]);
        lsbuf_printf(b, ", \"test\": ");
        lsbuf_json_str(b, ev->suspect_test);
        lsbuf_printf(b, ", \"step\": %ld, \"sharp_ratio\": ", ev->suspect_step);
        lsbuf_json_num(b, ev->suspect_sharp_ratio);
        lsbuf_printf(b, ", \"worst_case_ratio\": ");
        lsbuf_json_num(b, ev->suspect_worst_ratio);
        lsbuf_printf(b, ", \"score\": ");
        lsbuf_json_num(b, ev->suspect_score);
        lsbuf_printf(b, ", \"p\": ");
        lsbuf_json_num(b, ev->suspect_p);
        lsbuf_printf(b, "}");
    }
    lsbuf_printf(b, "}");
}

/* one entry of run.json's "verdicts"."pairs". */
static void json_pair_verdict(lsbuf *b, const audit_result *r, const pair_verdict *pv, int k) {
    const audit_pair *p = &r->pair[pv->pair];
    lsbuf_printf(b, "%s\n    {\"a\": ", k ? "," : "");
    lsbuf_json_str(b, r->eng[p->a].label);
    lsbuf_printf(b, ", \"b\": ");
    lsbuf_json_str(b, r->eng[p->b].label);
    lsbuf_printf(b, ", \"verdict\": ");
    lsbuf_json_str(b, pv->verdict);
    lsbuf_printf(b, ", \"problem\": %s, \"nondeterministic\": %s, \"first_diff_step\": %ld, \"first_tensor\": ",
                 pv->problem ? "true" : "false", pv->nondet ? "true" : "false", pv->first_diff_step);
    if (pv->first_slot >= 0) lsbuf_json_str(b, r->slot_name[pv->first_slot]);
    else lsbuf_printf(b, "null");
    lsbuf_printf(b, ", \"params_rel_l2_end\": ");
    lsbuf_json_num(b, pv->end_rel_l2);
    /* null is also "not compared after any step": inf (parameters NaN or inf on one side only) says so */
    if (isinf(pv->end_rel_l2)) lsbuf_printf(b, ", \"params_rel_l2_end_inf\": true");
    lsbuf_printf(b, ", \"test_flips\": %ld, \"accuracy_gap_points\": ", pv->flips);
    lsbuf_json_num(b, pv->acc_gap);
    lsbuf_printf(b, ", \"noise_band_exit_step\": %ld, \"noise_band_factor\": ", pv->band_exit_step);
    lsbuf_json_num(b, pv->band_factor);
    lsbuf_printf(b, "}");
}

/* one entry of run.json's "findings" (i: its place in the list). */
static void json_finding(lsbuf *b, const explain_finding *x, int i) {
    static const char *const SEV[] = {"problem", "suspect", "cause", "ok", "info"};
    lsbuf_printf(b, "%s\n    {\"rule\": ", i ? "," : "");
    lsbuf_json_str(b, x->rule);
    lsbuf_printf(b, ", \"severity\": \"%s\", \"a\": ", SEV[x->severity]);
    lsbuf_json_str(b, x->a);
    lsbuf_printf(b, ", \"b\": ");
    lsbuf_json_str(b, x->b);
    lsbuf_printf(b, ", \"layer\": ");
    lsbuf_json_str(b, x->layer_name);
    lsbuf_printf(b, ", \"origin\": ");
    lsbuf_json_str(b, x->layer);
    lsbuf_printf(b, ", \"phase\": ");
    lsbuf_json_str(b, x->phase);
    lsbuf_printf(b, ", \"tensor\": ");
    lsbuf_json_str(b, x->tensor);
    lsbuf_printf(b, ", \"step\": %ld, \"ratio\": ", x->step);
    lsbuf_json_num(b, x->ratio);
    lsbuf_printf(b, ", \"title\": ");
    lsbuf_json_str(b, x->title);
    lsbuf_printf(b, ", \"cause\": ");
    lsbuf_json_str(b, x->cause);
    lsbuf_printf(b, ", \"evidence\": ");
    lsbuf_json_str(b, x->evidence);
    lsbuf_printf(b, ", \"fix\": ");
    lsbuf_json_str(b, x->fix);
    lsbuf_printf(b, "}");
}

/* run.json's "verdict", "verdicts" and "findings": structured, so that a
 * script can assert on them. */
/* , "name": {"step": .., "eval_epoch": .., "phase": .., "layer": ..  (the
 * caller adds its ratios and closes it) */
static void json_ck_where(lsbuf *b, const audit_result *r, const char *name, long step, int eval_epoch,
                          const ck_violation *v) {
    lsbuf_printf(b, ", \"%s\": {\"step\": %ld, \"eval_epoch\": %d, \"phase\": ", name, step, eval_epoch);
    lsbuf_json_str(b, ck_phase_label(v->phase));
    lsbuf_printf(b, ", \"layer\": ");
    lsbuf_json_str(b, v->layer >= 0 && v->layer < r->m.n_layers ? r->m.layers[v->layer].name : "");
}

/* , "name": {where, "sharp_ratio", "worst_case_ratio", "what"}: a relation over the sharper tier */
static void json_ck_suspect(lsbuf *b, const audit_result *r, const char *name, long step, int eval_epoch,
                            const ck_violation *v, double worst_case_ratio) {
    json_ck_where(b, r, name, step, eval_epoch, v);
    lsbuf_printf(b, ", \"sharp_ratio\": ");
    lsbuf_json_num(b, v->ratio);
    lsbuf_printf(b, ", \"worst_case_ratio\": ");
    lsbuf_json_num(b, worst_case_ratio);
    lsbuf_printf(b, ", \"what\": ");
    lsbuf_json_str(b, v->what);
    lsbuf_printf(b, "}");
}

/* , "name": [v per drift step] (null: not judged, or inf: JSON has none),
 * and where some step's v is +inf (an exact check failed), "name_inf": [its
 * steps], which tells those nulls from the steps not judged */
static void json_step_array(lsbuf *b, const char *name, const float *v, long n) {
    lsbuf_printf(b, ", \"%s\": [", name);
    long n_inf = 0;
    for (long k = 0; k < n && v; k++) {
        if (k) lsbuf_printf(b, ",");
        lsbuf_json_num(b, v[k]);
        n_inf += isinf(v[k]) && v[k] > 0;
    }
    lsbuf_printf(b, "]");
    if (!n_inf) return;
    lsbuf_printf(b, ", \"%s_inf\": [", name);
    for (long k = 0, first = 1; k < n; k++)
        if (isinf(v[k]) && v[k] > 0) {
            lsbuf_printf(b, "%s%ld", first ? "" : ",", k + 1);
            first = 0;
        }
    lsbuf_printf(b, "]");
}

/* The every-step checksums of one engine: coverage in steps, the first
 * violation, and the worst ratio per drift step (null: not judged). */
static void json_checksums(lsbuf *b, const audit_result *r, const audit_engine *ae) {
    lsbuf_printf(b, ", \"checksums\": {\"enabled\": %s, \"available\": %s, \"steps_checked\": %ld, "
                    "\"steps_fed\": %ld, \"attribution_steps\": %ld, \"eval_batches_checked\": %ld, "
                    "\"eval_epochs_checked\": %d, \"eval_epochs\": %d, \"relations\": %ld, \"violations\": %ld, "
                    "\"seconds\": ",
                 r->cfg.checksums ? "true" : "false", ae->ck_have ? "true" : "false", ae->ck_steps, ae->ck_skipped,
                 ae->recorded ? 0L : r->attribution_steps, ae->ck_eval_batches, ae->ck_eval_epochs, r->cfg.eval ? r->epochs_done : 0,
                 ae->ck_relations, ae->ck_viol_checks);
    lsbuf_json_num(b, ae->ck_s);
    lsbuf_printf(b, ", \"steps_light\": %ld, \"complete_every\": %ld", ae->ck_light_steps,
                 r->cfg.complete_every > 1 ? r->cfg.complete_every : 1);
    lsbuf_printf(b, ", \"worst_ratio\": ");
    lsbuf_json_num(b, ae->ck_relations ? ae->ck_worst : NAN);
    lsbuf_printf(b, ", \"worst\": ");
    lsbuf_json_str(b, ae->ck_worst_what);
    if (!ae->ck_have) {
        lsbuf_printf(b, ", \"why_not\": ");
        lsbuf_json_str(b, ae->ck_none);
    }
    if (ae->ck_unjudged) /* fp32 may overflow there (checks/checksums.c, ck_rel_unbound); only when some */
        lsbuf_printf(b, ", \"relations_not_judged\": %ld, \"first_not_judged_step\": %ld, "
                        "\"first_not_judged_eval_epoch\": %d", ae->ck_unjudged, ae->ck_unjudged_step,
                     ae->ck_unjudged_eval_epoch);
    if (ae->ck_unjudged) json_step_array(b, "relations_not_judged_per_step", ae->ck_step_unjudged, ae->ck_total);
    if (ae->ck_have && ae->ck_partial[0]) {
        lsbuf_printf(b, ", \"partial\": ");
        lsbuf_json_str(b, ae->ck_partial);
    }
    if (ae->ck_twin_of >= 0) {
        /* a repeat judged on its first listing's vector where their operand hashes agreed */
        lsbuf_printf(b, ", \"shared_with\": ");
        lsbuf_json_str(b, r->eng[ae->ck_twin_of].label);
        lsbuf_printf(b, ", \"steps_shared\": %ld, \"shared_until\": %ld", ae->ck_twin_steps, ae->ck_twin_split);
        if (ae->ck_twin_off[0]) {
            lsbuf_printf(b, ", \"shared_stopped\": ");
            lsbuf_json_str(b, ae->ck_twin_off);
        }
    }
    if (ae->ck_viol_checks) {
        json_ck_where(b, r, "first_violation", ae->ck_first_step, ae->ck_first_eval_epoch, &ae->ck_first);
        lsbuf_printf(b, ", \"ratio\": ");
        lsbuf_json_num(b, ae->ck_first.ratio);
        lsbuf_printf(b, ", \"what\": ");
        lsbuf_json_str(b, ae->ck_first.what);
        lsbuf_printf(b, "}");
    }
    /* the sharper tier of the same relations (bounds_ck_sharp_tol) */
    lsbuf_printf(b, ", \"sharp\": {\"relations\": %ld, \"lambda\": ", ae->ck_n_sharp);
    lsbuf_json_num(b, bounds_ck_sharp_lambda());
    lsbuf_printf(b, ", \"false_alarm_per_relation\": ");
    lsbuf_json_num(b, bounds_ck_sharp_alarm());
    lsbuf_printf(b, ", \"worst_ratio\": ");
    lsbuf_json_num(b, ae->ck_sharp_worst_what[0] ? ae->ck_sharp_worst : NAN);
    lsbuf_printf(b, ", \"worst_step\": %ld, \"worst\": ", ae->ck_sharp_worst_step);
    lsbuf_json_str(b, ae->ck_sharp_worst_what);
    /* the sign test over the blocks' residuals (checks/checksums.c): its limit, the largest |z| / limit */
    lsbuf_printf(b, ", \"sign_limit\": ");
    lsbuf_json_num(b, checksums_sign_limit());
    lsbuf_printf(b, ", \"sign_worst_ratio\": ");
    lsbuf_json_num(b, ae->ck_sign_worst_what[0] ? ae->ck_sign_worst : NAN);
    lsbuf_printf(b, ", \"sign_worst_step\": %ld, \"sign_worst\": ", ae->ck_sign_worst_step);
    lsbuf_json_str(b, ae->ck_sign_worst_what);
    lsbuf_printf(b, ", \"suspect_checks\": %ld", ae->ck_sus_checks);
    /* the Adam re-check's named legal orders (base/adam_orders.h): ok, bit for bit */
    lsbuf_printf(b, ", \"adam_legal_order_updates\": %ld", ae->ck_legal_updates);
    if (ae->ck_legal_updates) {
        lsbuf_printf(b, ", \"adam_legal_order_largest_step\": %ld, \"adam_legal_order_largest\": ", ae->ck_legal_step);
        lsbuf_json_str(b, ae->ck_legal_what);
    }
    if (ae->ck_sus_checks) {
        json_ck_suspect(b, r, "worst_suspect", ae->ck_sus_step, ae->ck_sus_eval_epoch, &ae->ck_sus,
                        ae->ck_sus_worst_ratio);
        /* where it began (the finding's step: a shift on from step 1 has its worst anywhere) */
        if (ae->ck_sus_first.what[0])
            json_ck_suspect(b, r, "first_suspect", ae->ck_sus_first_step, ae->ck_sus_first_eval_epoch,
                            &ae->ck_sus_first, ae->ck_sus_first_worst_ratio);
    }
    json_step_array(b, "sharp_ratio_per_step", ae->ck_step_sharp, ae->ck_total);
    lsbuf_printf(b, "}");
    /* per block of relations over the run: how much of each tolerance rounding used (checks/checksums.h) */
    lsbuf_printf(b, ", \"blocks\": [");
    int first = 1;
    for (int l = 0; l < r->m.n_layers; l++)
        for (int ph = 0; ph < CK_NPHASE_ALL; ph++) {
            const ck_block_margin *bm = &ae->ck_blk[l][ph];
            if (!bm->n) continue;
            lsbuf_printf(b, "%s{\"layer\": ", first ? "" : ", ");
            lsbuf_json_str(b, r->m.layers[l].name);
            lsbuf_printf(b, ", \"block\": ");
            lsbuf_json_str(b, ck_block_name(&r->m, l, ph));
            lsbuf_printf(b, ", \"relations\": %ld, \"worst_case_ratio\": ", bm->n);
            lsbuf_json_num(b, bm->worst);
            lsbuf_printf(b, ", \"sharp_ratio\": ");
            lsbuf_json_num(b, bm->sharp);
            lsbuf_printf(b, "}");
            first = 0;
        }
    lsbuf_printf(b, "]");
    lsbuf_printf(b, ", \"eval_vs_reference\": {\"images\": %ld, \"epoch\": %d, \"worst_ratio\": ", ae->ev_ref_images,
                 ae->ev_ref_epoch);
    /* null where nothing was judged: every logit's bound +inf */
    lsbuf_json_num(b, ae->ev_ref_images && ae->ev_ref_unjudged < ae->ev_ref_images * r->n_classes ? ae->ev_ref_worst
                                                                                                  : NAN);
    lsbuf_printf(b, ", \"logits_over\": %ld, \"predictions_differ\": %ld, \"why_not\": ", ae->ev_ref_over,
                 ae->ev_ref_pred_diff);
    lsbuf_json_str(b, ae->ev_ref_why);
    if (ae->ev_ref_unjudged) /* fp32 may overflow on the way (bounds_eval_layer); only when some */
        lsbuf_printf(b, ", \"elements_not_judged\": %ld", ae->ev_ref_unjudged);
    if (ae->ev_ref_inner) /* layer inputs inf or NaN within a finite bound: over it; only when some */
        lsbuf_printf(b, ", \"inputs_nonfinite_over\": %ld", ae->ev_ref_inner);
    lsbuf_printf(b, "}");
    json_step_array(b, "worst_ratio_per_step", ae->ck_step_ratio, ae->ck_total);
    lsbuf_printf(b, "}");
}

static void json_verdicts(lsbuf *b, audit_result *R) {
    audit_result *r = R;
    verdict_table v;
    explain_verdicts(&v, r, &R->m);
    lsbuf_printf(b, "  \"attribution_steps\": %ld, \"shadow_replays\": %ld, \"recordings_not_replayed\": %d, "
                    "\"drift_mode\": \"%s\",\n",
                 r->attribution_steps, R->n_shadows, r->recordings_unreplayed, lockstep_mode_name(r->drift_mode));
    headline h;
    headline_make(&h, r, &v);
    lsbuf_printf(b, "  \"verdict\": {\"kind\": \"%s\", \"problems\": %d, \"unchecked\": %d, \"nondeterministic\": %d, "
                    "\"not_run\": %d, \"suspects\": %d, \"gate\": %s},\n",
                 headline_kind_name(h.kind), v.problems, v.unchecked, v.nondet, h.n_missing, v.suspects,
                 r->gate ? "true" : "false");
    lsbuf_printf(b, "  \"verdict_kind\": \"%s\", \"headline\": ", headline_kind_name(h.kind));
    lsbuf_json_str(b, h.line);
    lsbuf_printf(b, ", \"next_step\": ");
    if (h.next[0]) lsbuf_json_str(b, h.next);
    else lsbuf_printf(b, "null");
    lsbuf_printf(b, ",\n");
    lsbuf_printf(b, "  \"verdicts\": {\"engines\": [");
    for (int k = 0; k < v.n_eng; k++) json_engine_verdict(b, r, &v.e[k], k);
    lsbuf_printf(b, "],\n    \"pairs\": [");
    for (int k = 0; k < v.n_pair; k++) json_pair_verdict(b, r, &v.p[k], k);
    lsbuf_printf(b, "]},\n  \"findings\": [");
    explain_list L;
    if (explain_run(&L, r, &R->m) == 0) {
        for (int i = 0; i < L.n; i++) json_finding(b, &L.f[i], i);
        explain_list_free(&L);
    }
    lsbuf_printf(b, "],\n");
}

/* run.json's "config": what was run, on what data, built how. */
static void json_config(lsbuf *b, const audit_result *R) {
    const audit_cfg *c = &R->cfg;
    const model *m = &R->m;
    lsbuf_printf(b, "{\n  \"tool\": \"lockstep\", \"command\": \"audit\",\n  \"config\": {\"model\": ");
    lsbuf_json_str(b, m->name);
    lsbuf_printf(b, ", \"model_spec\": ");
    lsbuf_json_str(b, m->spec);
    lsbuf_printf(b, ", \"params\": %zu, \"data\": ", m->n_params);
    lsbuf_json_str(b, c->run.data_dir);
    lsbuf_printf(b, ", \"data_crc32\": {\"train_images\": \"%08x\", \"train_labels\": \"%08x\", \"test_images\": \"%08x\", "
                     "\"test_labels\": \"%08x\"}",
                 R->ds.train.images_crc, R->ds.train.labels_crc, R->ds.test.images_crc, R->ds.test.labels_crc);
    lsbuf_printf(b, ", \"mode\": \"%s\", \"epochs\": %d, \"batch\": %zu, \"lr\": ", lockstep_mode_name(c->mode),
                 c->run.epochs, c->run.batch);
    lsbuf_json_num(b, c->run.adam.lr);
    lsbuf_printf(b, ", \"seed\": %llu, \"limit_train\": %zu, \"ref_steps\": %ld, \"audit_every\": %ld, \"repeat\": %d, "
                     "\"engines\": ",
                 (unsigned long long)c->run.seed, c->run.limit_train, c->ref_steps, c->audit_every, c->repeat);
    lsbuf_json_str(b, c->engines);
    lsbuf_printf(b, ", \"attribution_steps\": %ld, \"fail_on\": %u, \"seeds\": %d, \"init\": ", c->attribution_steps,
                 c->fail_on, c->seeds);
    if (c->run.init_path) lsbuf_json_str(b, c->run.init_path);
    else lsbuf_printf(b, "null");
    lsbuf_printf(b, ", \"order\": ");
    if (c->run.order_path) lsbuf_json_str(b, c->run.order_path);
    else lsbuf_printf(b, "null");
    char norm[64]; /* --normalize: part of the input */
    run_normalize_str(&c->run, norm, sizeof norm);
    lsbuf_printf(b, ", \"normalize\": \"%s\"", norm);
    lsbuf_printf(b, ", \"omp_wait_policy\": ");
    lsbuf_json_str(b, getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default (active)");
    lsbuf_printf(b, ", \"compiler\": ");
    lsbuf_json_str(b, "gcc " __VERSION__);
    lsbuf_printf(b, ", \"cflags\": ");
#ifdef LS_BUILD_CFLAGS
    lsbuf_json_str(b, LS_BUILD_CFLAGS);
#else
    lsbuf_json_str(b, "");
#endif
    lsbuf_printf(b, "},\n");
}

/* one entry of run.json's "engines": identity, epochs, timing, per-class figures. */
static void json_timing_spread(lsbuf *b, const audit_engine *ae, const model *m);

static void json_engine(lsbuf *b, const audit_result *r, int i) {
    const audit_cfg *c = &r->cfg;
    const model *m = &r->m;
    char nb[16];
    const audit_engine *ae = &r->eng[i];
    lsbuf_printf(b, "%s\n    {\"label\": ", i ? "," : "");
    lsbuf_json_str(b, ae->label);
    lsbuf_printf(b, ", \"spec\": ");
    lsbuf_json_str(b, ae->spec);
    lsbuf_printf(b, ", \"available\": %s", ae->available ? "true" : "false");
    if (!ae->available) {
        lsbuf_printf(b, ", \"skipped\": ");
        lsbuf_json_str(b, ae->skip_reason);
        lsbuf_printf(b, "}");
        return;
    }
    if (ae->failed) {
        lsbuf_printf(b, ", \"failed\": ");
        lsbuf_json_str(b, ae->fail_reason);
        lsbuf_printf(b, ", \"failed_step\": %ld", ae->failed_step);
    }
    lsbuf_printf(b, ", \"reference\": %s, \"steps_run\": %ld, \"shadow_replays\": %ld, \"describe\": %s",
                 ae->is_ref ? "true" : "false", ae->steps_run, ae->shadows,
                 ae->describe && ae->describe[0] == '{' ? ae->describe : "null");
    lsbuf_printf(b, ", \"epochs\": [");
    for (int ep = 0; ep < r->epochs_done; ep++) {
        lsbuf_printf(b, "%s{\"epoch\": %d, \"train_seconds\": ", ep ? ", " : "", ep + 1);
        lsbuf_json_num(b, ae->train_s[ep]);
        lsbuf_printf(b, ", \"images\": %zu, \"images_per_s\": ", ae->images[ep]);
        lsbuf_json_num(b, ae->train_s[ep] > 0 ? ae->images[ep] / ae->train_s[ep] : NAN);
        lsbuf_printf(b, ", \"test_accuracy\": ");
        lsbuf_json_num(b, ae->test_acc[ep]);
        lsbuf_printf(b, ", \"test_loss\": ");
        lsbuf_json_num(b, ae->test_loss[ep]);
        lsbuf_printf(b, "}");
    }
    lsbuf_printf(b, "], \"epoch_seconds_cold\": ");
    lsbuf_json_num(b, r->epochs_done ? ae->train_s[0] : NAN);
    lsbuf_printf(b, ", \"epoch_seconds_warm_mean\": ");
    lsbuf_json_num(b, report_warm_epoch_s(r, ae));
    json_checksums(b, r, ae);
    lsbuf_printf(b, ", \"peak_rss_bytes\": %zu, \"roundtrip_clone_peak_rss_bytes\": %zu, \"timing\": {\"layers\": [",
                 ae->peak_rss, ae->rt_clone_rss);
    for (int l = 0; l < m->n_layers; l++) {
        lsbuf_printf(b, "%s{\"layer\": ", l ? ", " : "");
        lsbuf_json_str(b, m->layers[l].name);
        lsbuf_printf(b, ", \"forward_s\": ");
        lsbuf_json_num(b, ae->timing.layer_s[l][DIR_FWD]);
        lsbuf_printf(b, ", \"forward_calls\": %ld, \"backward_s\": ", ae->timing.layer_calls[l][DIR_FWD]);
        lsbuf_json_num(b, ae->timing.layer_s[l][DIR_BWD]);
        lsbuf_printf(b, ", \"backward_calls\": %ld}", ae->timing.layer_calls[l][DIR_BWD]);
    }
    lsbuf_printf(b, "], \"loss_s\": ");
    lsbuf_json_num(b, ae->timing.loss_s);
    json_timing_spread(b, ae, m);
    lsbuf_printf(b, ", \"update_s\": ");
    lsbuf_json_num(b, ae->timing.update_s);
    lsbuf_printf(b, ", \"set_batch_s\": ");
    lsbuf_json_num(b, ae->timing.set_batch_s);
    lsbuf_printf(b, ", \"get_tensor_s\": ");
    lsbuf_json_num(b, ae->timing.get_s);
    lsbuf_printf(b, ", \"set_tensor_s\": ");
    lsbuf_json_num(b, ae->timing.set_s);
    lsbuf_printf(b, "}");
    if (ae->confusion) {
        int C = m->n_classes;
        lsbuf_printf(b, ", \"per_class_accuracy\": {");
        for (int k = 0; k < C; k++) {
            long tot = 0;
            for (int j = 0; j < C; j++) tot += ae->confusion[(size_t)k * C + j];
            lsbuf_printf(b, "%s", k ? ", " : "");
            lsbuf_json_str(b, class_name(c->run.data_dir, C, k, nb, sizeof nb));
            lsbuf_printf(b, ": ");
            lsbuf_json_num(b, tot ? (double)ae->confusion[(size_t)k * C + k] / tot : NAN);
        }
        lsbuf_printf(b, "}, \"confusion\": ");
        lsbuf_json_matrix_long(b, ae->confusion, C, C);
    }
    lsbuf_printf(b, "}");
}

/* "timing_spread": per layer and phase, median and p10/p90 of single calls,
 * warm-up left out (tensor.h); the numbers the report's tables and charts show. */
static void json_timing_spread(lsbuf *b, const audit_engine *ae, const model *m) {
    if (!ae->tsamples) return;
    static const char *const KEY[TPH_N] = {"training_forward", "backward", "evaluation_forward"};
    lsbuf_printf(b, ", \"timing_spread\": {\"warmup_calls_left_out\": %d, \"layers\": [", TIMING_WARMUP);
    for (int l = 0; l < m->n_layers; l++) {
        lsbuf_printf(b, "%s{\"layer\": ", l ? ", " : "");
        lsbuf_json_str(b, m->layers[l].name);
        for (int ph = 0; ph < TPH_N; ph++) {
            double q[3];
            int n = timing_quantiles(&ae->tsamples->layer[l][ph], &q[0], &q[1], &q[2]);
            if (!n) continue;
            lsbuf_printf(b, ", \"%s\": {\"calls\": %ld, \"samples\": %d, \"median_s\": ", KEY[ph],
                         ae->tsamples->layer[l][ph].calls, n);
            lsbuf_json_num(b, q[1]);
            lsbuf_printf(b, ", \"p10_s\": ");
            lsbuf_json_num(b, q[0]);
            lsbuf_printf(b, ", \"p90_s\": ");
            lsbuf_json_num(b, q[2]);
            lsbuf_printf(b, "}");
        }
        lsbuf_printf(b, "}");
    }
    lsbuf_printf(b, "]}");
}

/* a pair's "layers": the report's relative-error-per-layer figure */
static void json_pair_layers(lsbuf *b, const audit_result *r, const model *m, int pi) {
    static figure f;
    fig_layer_error(&f, r, m);
    if (pi >= f.ns) return;
    lsbuf_printf(b, ",\n      \"layers\": [");
    for (int c = 0; c < f.nc; c++) {
        lsbuf_printf(b, "%s{\"layer\": ", c ? ", " : "");
        lsbuf_json_str(b, f.cats[c]);
        lsbuf_printf(b, ", \"rel_l2\": ");
        lsbuf_json_num(b, fig_get(&f, pi, c));
        lsbuf_printf(b, "}");
    }
    lsbuf_printf(b, "]");
}

/* a reference pair's "sharp_margin": per tensor kind, the sharper tier's
 * per-element ratio distribution (audit.h audit_sharp_dist) and the
 * quantiles the report shows, read off it the same way. */
static void json_sharp_margin(lsbuf *b, const audit_pair *p) {
    int any = 0;
    for (int k = 0; k < AUDIT_SK_N; k++) any |= p->sharp_kind[k].checks > 0;
    if (!any) return;
    lsbuf_printf(b, ",\n      \"sharp_margin\": {\"bucket_exponents\": [%d, %d], \"buckets\": \"exact (error 0), "
                    "(0, 2^%d), then [2^k, 2^(k+1)) for k = %d..%d, then >= 2^%d\", \"quantiles\": \"upper edge of "
                    "the bucket holding it, the max when smaller\", \"kinds\": [",
                 RT_HIST_LO, RT_HIST_HI, RT_HIST_LO, RT_HIST_LO, RT_HIST_HI - 1, RT_HIST_HI);
    int first = 1;
    for (int k = 0; k < AUDIT_SK_N; k++) {
        const audit_sharp_dist *d = &p->sharp_kind[k];
        if (!d->checks) continue;
        lsbuf_printf(b, "%s\n        {\"kind\": \"%s\", \"name\": ", first ? "" : ",", audit_sharp_kind_key(k));
        lsbuf_json_str(b, audit_sharp_kind_name(k));
        lsbuf_printf(b, ", \"checks\": %ld, \"elements\": %llu, \"exact\": %llu, \"over\": %ld", d->checks,
                     (unsigned long long)d->n, (unsigned long long)d->hist[0], d->n_over);
        static const char *const QN[] = {"median", "p99", "p9999"};
        static const double QV[] = {0.5, 0.99, 0.9999};
        for (int q = 0; q < 3; q++) {
            lsbuf_printf(b, ", \"%s\": ", QN[q]);
            lsbuf_json_num(b, audit_sharp_quantile(d, QV[q]));
        }
        lsbuf_printf(b, ", \"max_ratio\": ");
        lsbuf_json_num(b, d->max_ratio);
        lsbuf_printf(b, ", \"factor_min\": ");
        lsbuf_json_num(b, d->min_factor);
        lsbuf_printf(b, ", \"factor_max\": ");
        lsbuf_json_num(b, d->max_factor);
        lsbuf_printf(b, ", \"alarm_per_element\": ");
        lsbuf_json_num(b, d->max_alarm);
        lsbuf_printf(b, ", \"counts\": [");
        for (int h = 0; h < RT_HIST_N; h++) lsbuf_printf(b, "%s%llu", h ? ", " : "", (unsigned long long)d->hist[h]);
        lsbuf_printf(b, "]}");
        first = 0;
    }
    lsbuf_printf(b, "]}");
}

/* one entry of run.json's "pairs": per-tensor figures and the parameter divergence curve. */
static void json_pair(lsbuf *b, const audit_result *r, const model *m, int pi) {
    const audit_pair *p = &r->pair[pi];
    lsbuf_printf(b, "%s\n    {\"a\": ", pi ? "," : "");
    lsbuf_json_str(b, r->eng[p->a].label);
    lsbuf_printf(b, ", \"b\": ");
    lsbuf_json_str(b, r->eng[p->b].label);
    int is_repeat = r->eng[p->b].repeat_of == p->a || r->eng[p->a].repeat_of == p->b;
    lsbuf_printf(b, ", \"repeat_pair\": %s, \"first_param_diff_step\": %ld", is_repeat ? "true" : "false",
                 p->first_diff_step);
    if (is_repeat) {
        int det = p->first_diff_step == 0;
        for (int s = 0; s < r->n_slots; s++)
            if (p->slot[s].n_steps && p->slot[s].min_frac_equal < 1) det = 0;
        lsbuf_printf(b, ", \"bitwise_deterministic\": %s", det ? "true" : "false");
    }
    if (!r->eng[p->a].is_ref && !r->eng[p->b].is_ref) {
        lsbuf_printf(b, ", \"test_predictions_differing\": [");
        for (int ep = 0; ep < r->epochs_done; ep++) lsbuf_printf(b, "%s%ld", ep ? ", " : "", p->disagree[ep]);
        lsbuf_printf(b, "]");
    }
    lsbuf_printf(b, ", \"tensors\": [");
    int first = 1;
    for (int s = 0; s < r->n_slots; s++) {
        if (!p->slot[s].n_steps) continue;
        lsbuf_printf(b, "%s\n      ", first ? "" : ",");
        json_slot(b, r, &p->slot[s], s);
        first = 0;
    }
    lsbuf_printf(b, "]");
    json_sharp_margin(b, p);
    json_pair_layers(b, r, m, pi);
    lsbuf_printf(b, ",\n      \"param_divergence\": [");
    first = 1;
    for (long s = 0; s < r->total_steps; s++) {
        if (isnan(p->param_rel_l2[s])) continue;
        lsbuf_printf(b, "%s[%ld, ", first ? "" : ", ", s + 1);
        lsbuf_json_num(b, p->param_rel_l2[s]);
        lsbuf_printf(b, ", ");
        lsbuf_json_num(b, p->param_max_ulp[s]);
        lsbuf_printf(b, ", ");
        lsbuf_json_num(b, p->loss_diff[s]);
        lsbuf_printf(b, "]");
        first = 0;
    }
    lsbuf_printf(b, "]}");
}

/* run.json's "significance" and, when the seed loop ran, "seeds". */
static void json_significance(lsbuf *b, const audit_result *r) {
    const audit_cfg *c = &r->cfg;
    /* is the gap real: exact McNemar per epoch and class, logit margins of
     * the flipped images, divergence growth, per pair of this run; and the
     * seed loop's spread and verdicts when it ran */
    lsbuf_printf(b, "  \"significance\": [");
    for (int pi = 0, first = 1; pi < r->n_pairs; pi++) {
        if (r->eng[r->pair[pi].a].is_ref || r->eng[r->pair[pi].b].is_ref) continue;
        lsbuf_printf(b, "%s\n    {\"a\": ", first ? "" : ",");
        lsbuf_json_str(b, r->eng[r->pair[pi].a].label);
        lsbuf_printf(b, ", \"b\": ");
        lsbuf_json_str(b, r->eng[r->pair[pi].b].label);
        lsbuf_printf(b, ", \"stats\": ");
        seeds_pair_json(b, r, pi, c->run.data_dir);
        lsbuf_printf(b, "}");
        first = 0;
    }
    lsbuf_printf(b, "],\n");
    if (r->seeds) {
        seeds_json(b, r->seeds);
        lsbuf_printf(b, ",\n");
    }
}

/* run.json's closing totals: steps, interruption, cost. */
static void json_totals(lsbuf *b, const audit_result *R) {
    const audit_result *r = R;
    lsbuf_printf(b, "  \"steps\": %ld, \"interrupted\": %s, \"steps_completed\": %ld, \"engines_failed\": %d, "
                     "\"abandoned_step\": %ld, \"compare_seconds\": ", r->total_steps, r->interrupted ? "true" : "false",
                 r->interrupted ? r->interrupted_step : R->last_step, r->n_failed, r->abandoned_step);
    lsbuf_json_num(b, r->compare_s);
    lsbuf_printf(b, ", \"checks_seconds\": ");
    lsbuf_json_num(b, r->checks_s);
    lsbuf_printf(b, ", \"roundtrip_seconds\": ");
    lsbuf_json_num(b, r->roundtrip_s);
    lsbuf_printf(b, ", \"sharp_seconds\": ");
    lsbuf_json_num(b, r->sharp_s);
    lsbuf_printf(b, ", \"total_seconds\": ");
    lsbuf_json_num(b, r->total_s);
    lsbuf_printf(b, ", \"driver_peak_rss_bytes\": %zu, \"steps_jsonl_lines\": %ld\n}\n", r->parent_peak_rss,
                 r->jsonl_lines);
}

int report_write_run_json(audit_result *R, const char *path) {
    lsbuf b;
    lsbuf_init(&b);
    json_config(&b, R);
    lsbuf_printf(&b, "  \"engines\": [");
    for (int i = 0; i < R->n_engines; i++) json_engine(&b, R, i);
    lsbuf_printf(&b, "\n  ],\n  \"pairs\": [");
    for (int pi = 0; pi < R->n_pairs; pi++) json_pair(&b, R, &R->m, pi);
    lsbuf_printf(&b, "\n  ],\n  \"param_divergence_columns\": [\"step\", \"rel_l2\", \"max_ulp\", \"loss_abs_diff\"],\n");
    json_verdicts(&b, R);
    json_significance(&b, R);
    json_totals(&b, R);
    int rc = b.failed ? ls_err(LS_ENOMEM, "out of memory building run.json") : ls_write_file_atomic(path, b.s, b.len);
    lsbuf_free(&b);
    return rc;
}

