/*
 * report.h — the audit's human-readable report (DESIGN.md §7):
 * OUT/report.md and OUT/report.html, one self-contained HTML file (inline
 * CSS and hand-written inline SVG charts, no scripts, no external
 * resources: it opens offline in any browser).
 *
 * Order: environment first (engines with library versions, ISA, threads,
 * math modes, algorithms from their describe() JSON; kernels per layer;
 * compiler and flags; model; data crc32s; run settings), verdicts second
 * (explain.h's findings, then one line per engine pair), evidence after
 * (accuracy per epoch, timing with per-layer bars, the parameter divergence
 * per step on a log axis, max ULP per layer, the per-tensor worst
 * divergence tables).
 *
 * Every text that comes from outside (engine labels and specs, describe
 * strings, skip reasons, model and data names) is escaped for its format.
 * Each file is built in memory and written with ls_write_file_atomic: a
 * reader never sees a half-written report, and no temporary stays behind.
 *
 * Not here: the numbers themselves (audit/driver.c measures, explain.c
 * interprets), run.json and steps.jsonl.gz (audit/driver.c writes them).
 */
#ifndef LS_REPORT_H
#define LS_REPORT_H

#include "formats/data.h"
#include "audit/audit.h"
#include "model/model.h"
#include "audit/explain.h"

/* Write dir/report.md and dir/report.html.  ds may be NULL (no data
 * provenance then).  dir must exist.  Returns 0, or LS_EIO / LS_ENOMEM with
 * ls_errmsg() naming the path. */
int report_write(const char *dir, const audit_cfg *c, const model *m, const dataset *ds, const audit_result *r);

/* Append s to b escaped for HTML text and attribute values (& < > " '). */
void report_html_escape(lsbuf *b, const char *s);

/* An engine's warm epoch time: the mean over the epochs after the first in
 * which it trained (the reference trains only at its own steps: an epoch
 * without one is no 0 s epoch); NAN when there is none. */
double report_warm_epoch_s(const audit_result *r, const audit_engine *ae);

/* run.json at path (atomically): the verdicts, findings and figures of R. */
int report_write_run_json(audit_result *R, const char *path);

/* The console: the verdict screen (verdicts, findings), the per-tensor
 * summary (--verbose) and failed engines, to R->cfg.out (NULL: nothing). */
/* The coverage lines of the verdict screen (every-step checksums, per-element checks), in steps. */
void report_print_coverage(FILE *f, const audit_result *r, const verdict_table *v);
void report_print_verdicts(audit_result *R, const verdict_table *v, const explain_list *L);
void report_print_summary(audit_result *R);
void report_print_failures(audit_result *R);

#endif
