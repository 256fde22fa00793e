/*
 * audit/headline.h — the one-line verdict every output starts with
 * (console, report.md, report.html, run.json), made in one place from the
 * verdict table so that the four never disagree.
 *
 * Kinds, most severe first (the first that applies wins):
 *   PROBLEM     a difference not explained by fp32 rounding (or nondeterminism)
 *   SUSPECT     within the fp32 worst case, beyond what fp32 rounding does in
 *               practice (the sharper tier, checks/bounds.h)
 *   incomplete  an engine that was listed did not run (unavailable, or its
 *               process died), or the run was interrupted: what was asked
 *               for was not compared, so it cannot be "ok"
 *   unchecked   every engine ran, but some tensor had no rule to judge it
 *   ok          everything listed ran and every difference is within its bound
 * A new kind is one row in headline.c's table (and one value here).
 */
#ifndef LS_HEADLINE_H
#define LS_HEADLINE_H

/* The run options of scripts/gpu-check.sh's recordings (its REC_PLAN,
 * without --audit-every and --ref-steps, which an audit takes from the
 * recording): the plan the next step after a run without a GPU names. */
#define GPU_CHECK_PLAN "--batch 16 --limit-train 512 --epochs 1 --limit-test 1000"

#include "audit/audit.h"
#include "audit/explain.h"
#include "audit/reason.h"

typedef enum { HEADLINE_PROBLEM, HEADLINE_SUSPECT, HEADLINE_INCOMPLETE, HEADLINE_UNCHECKED, HEADLINE_OK, HEADLINE_N } headline_kind;

#define HEADLINE_SHORT 101 /* a reason on the first screen: <= 100 characters */

typedef struct {
    headline_kind kind;
    const char *word;           /* "PROBLEM", "SUSPECT", "incomplete", "not fully checked", "ok" */
    const char *css;            /* the HTML class of the verdict box */
    char line[400];             /* "VERDICT: incomplete — cuda was not run: <short reason>" */
    char next[640];             /* the next step, one line ("" when none) */
    int unchecked;              /* something not fully checked (a tensor no rule judged, a drift step or an
                                 * evaluation nothing checked, a reduced-precision judging), whatever kind
                                 * the line took: --fail-on unchecked gates on it under PROBLEM, SUSPECT and
                                 * incomplete too */
    int n_missing;              /* engines listed that did not run */
    int missing[AUDIT_MAX_ENGINES];
    char short_reason[AUDIT_MAX_ENGINES][HEADLINE_SHORT]; /* per engine index, <= 100 chars */
} headline;

/* The headline of r from its verdict table. */
void headline_make(headline *h, const audit_result *r, const verdict_table *v);


/* The kind's name as --fail-on and run.json spell it ("problem",
 * "incomplete", "unchecked", "ok"). */
const char *headline_kind_name(headline_kind k);

#endif
