/*
 * audit_cmd.c — `lockstep audit` as one call (commands/audit_cmd.h): the
 * table of contents of an audit.  Each step is another layer's; this file
 * only decides the order and what an error leaves behind.
 */
#include "commands/audit_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/explain.h"
#include "audit/headline.h"
#include "audit/seeds.h"
#include "base/util.h"
#include "report/report.h"

/* Is the gap real?  The drift phase again for more seeds (this run is the
 * first), in child processes; its verdicts join this run's. */
static int seed_loop(audit_result *r) {
    const audit_cfg *c = &r->cfg;
    if (!(c->seeds > 0 && c->eval && r->epochs_done > 0 && !r->interrupted && !ls_stop_signal())) return 0;
    seeds_cfg sc = {c->seeds, c->jobs > 0 ? c->jobs : 1, c->floor_draws};
    if (!(r->seeds = ls_calloc(1, sizeof *r->seeds))) return LS_ENOMEM;
    int rc = seeds_run(c, &sc, r, r->seeds);
    if (rc) {
        free(r->seeds);
        r->seeds = NULL;
        return ls_err(rc, "seed loop: %s", ls_errmsg());
    }
    return 0;
}

/* The verdict table, the gate, and the verdict screen. */
static void verdicts(audit_result *r) {
    const audit_cfg *c = &r->cfg;
    verdict_table vt;
    explain_verdicts(&vt, r, &r->m);
    r->problems = vt.problems;
    r->unchecked = vt.unchecked;
    r->nondet = vt.nondet;
    headline h;
    headline_make(&h, r, &vt);
    r->incomplete = h.n_missing + (r->interrupted != 0);
    r->gate = ((c->fail_on & AUDIT_FAIL_PROBLEM) && vt.problems) ||
              ((c->fail_on & AUDIT_FAIL_INCOMPLETE) && r->incomplete) ||
              ((c->fail_on & AUDIT_FAIL_UNCHECKED) && vt.unchecked) ||
              ((c->fail_on & AUDIT_FAIL_NONDET) && vt.nondet);
    if (c->verbose) report_print_summary(r);
    explain_list L;
    if (explain_run(&L, r, &r->m) == 0) {
        report_print_verdicts(r, &vt, &L);
        explain_list_free(&L);
    }
    report_print_failures(r);
}

/* steps.jsonl.gz into place, then run.json, report.md and report.html. */
static int report_set(audit_result *r) {
    const audit_cfg *c = &r->cfg;
    if (!c->out_dir) return 0;
    if (rename(r->jsonl_tmp, r->jsonl_path) != 0)
        return ls_err(LS_EIO, "%s: cannot rename into place: %s", r->jsonl_path, strerror(errno));
    ls_tmp_unregister(r->jsonl_tmp);
    r->jsonl_tmp[0] = 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", c->out_dir);
    int rc = report_write_run_json(r, path);
    if (!rc) rc = report_write(c->out_dir, c, &r->m, &r->ds, r);
    if (!rc && c->out)
        fprintf(c->out, "report: %s/report.md and report.html (evidence), run.json, steps.jsonl.gz (%ld lines; zcat to read)\n",
                c->out_dir, r->jsonl_lines);
    return rc;
}

int audit_run(const audit_cfg *cfg, audit_result *res) {
    /* the result is megabytes (a slot table per pair): never on the stack */
    audit_result *local = res ? NULL : ls_malloc(sizeof *local);
    if (!res && !local) return LS_ENOMEM;
    audit_result *r = res ? res : local;
    double t0 = ls_now();
    int rc = audit_drive(cfg, r);
    if (rc) {
        free(local);
        return rc;
    }
    if (!(rc = seed_loop(r))) {
        r->total_s = ls_now() - t0;
        verdicts(r);
        rc = report_set(r);
    }
    if (r->jsonl_tmp[0]) { /* not renamed into place: nothing half-written is left */
        unlink(r->jsonl_tmp);
        ls_tmp_unregister(r->jsonl_tmp);
    }
    if (!res || rc) audit_result_free(r); /* on failure nothing is left for the caller to free */
    free(local);
    return rc;
}
