/*
 * audit_cmd.h — `lockstep audit` as one call: the driver (audit/driver.c),
 * then the seed loop (audit/seeds.c), then the verdicts (audit/explain.c),
 * then the console and the report set (report/).  The only place that
 * orchestrates them.
 */
#ifndef LS_AUDIT_CMD_H
#define LS_AUDIT_CMD_H

#include "audit/audit.h"
#include "audit/explain.h"
#include "audit/headline.h"

/* Run the audit.  res may be NULL; otherwise it is filled (free it with
 * audit_result_free).  Returns 0, or an error with ls_errmsg() set; after
 * an error res is left zeroed, with nothing to free.
 * Returning 0 means the outputs were written, which they also are when an
 * engine's process died (the audit goes on with the others; res->n_failed,
 * the engine's `failed` and fail_reason, "failed" in run.json) and when
 * SIGINT/SIGTERM stopped the run at a step boundary (res->interrupted, if
 * ls_signals_install(1) was called; "interrupted": true in run.json): the
 * caller turns those into exit statuses. */
int audit_run(const audit_cfg *c, audit_result *res);
/* The same, with the console's "report:" line naming the folder `shown`
 * instead of c->out_dir: where the set will be once the caller renames
 * it (a sweep's merge writes report.tmp.PID/seed-S, then renames
 * report.tmp.PID to report/).  NULL: c->out_dir. */
int audit_run_shown(const audit_cfg *c, audit_result *res, const char *shown);

/* The --fail-on conditions (AUDIT_FAIL_* bits) a judged audit meets, from
 * its verdict table and headline: what `audit --fail-on` gates on, and
 * what a sweep's merge gates on for each seed's audit. */
unsigned audit_conditions(const audit_result *r, const verdict_table *vt, const headline *h);

#endif
