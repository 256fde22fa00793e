/*
 * audit_cmd.c — `lockstep audit` as one call (commands/audit_cmd.h): the
 * table of contents of an audit.  Each step is another layer's; this file
 * only decides the order and what an error leaves behind.
 */
#include "commands/audit_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/explain.h"
#include "audit/headline.h"
#include "audit/seeds.h"
#include "base/util.h"
#include "report/report.h"

/* ---- --out: one writer, and a set that is whole or marked incomplete ----
 *
 * The report set is written into --out itself, not into a folder beside
 * it renamed into place: steps.jsonl streams into --out for the whole run
 * (it is what a user or a sweep tails), rename(2) cannot replace a
 * non-empty folder (a previous report set, or files others keep there) in
 * one step, and the lock must stay on one inode for the whole run.  So:
 *   - OUT/.lock is flock()ed (LOCK_EX|LOCK_NB) for the whole audit: a
 *     second audit into the same folder is refused at once, naming the
 *     pid that holds it;
 *   - OUT/INCOMPLETE is written before anything else (while the disk still
 *     has room: a marker that cannot be written refuses the run) and
 *     removed only after the last file of the set is renamed into place.
 *     A full disk, a crash or a kill at any moment leaves the folder
 *     absent, or whole, or explicitly marked incomplete; each file in it
 *     is whole by itself (temporary name + rename).
 * A run refused before it wrote anything takes its marker, lock and (if
 * it made it) the folder away again. */
#define OUT_MARKER "INCOMPLETE"
#define OUT_LOCK ".lock"

typedef struct {
    int fd;          /* the lock, -1: none */
    int made_dir;    /* this run created --out */
    int had_marker;  /* OUT/INCOMPLETE was there before (an earlier run failed) */
    int set_started; /* the first file of the set was renamed into place */
} out_guard;

static void out_path(char *buf, size_t cap, const char *dir, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
}

static int out_lock(const audit_cfg *c, out_guard *g) {
    char p[1200];
    g->fd = -1;
    if (!c->out_dir) return 0;
    struct stat st;
    if (mkdir(c->out_dir, 0755) == 0) g->made_dir = 1;
    else if (errno != EEXIST)
        return ls_err(LS_EIO, "--out %s: cannot create the output directory: %s", c->out_dir, strerror(errno));
    /* an existing file: "DIR/.lock: ... Not a directory" named neither the option nor the problem */
    else if (stat(c->out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return ls_err(LS_EIO, "--out %s: exists and is not a directory (--out names the folder the report set is "
                      "written to)", c->out_dir);
    out_path(p, sizeof p, c->out_dir, OUT_LOCK);
    if ((g->fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
        return ls_err(LS_EIO, "--out %s: cannot be written: its lock %s cannot be made: %s", c->out_dir, p,
                      strerror(errno));
    if (flock(g->fd, LOCK_EX | LOCK_NB) != 0) {
        char who[32] = "";
        ssize_t n = pread(g->fd, who, sizeof who - 1, 0);
        who[n > 0 ? n : 0] = 0;
        who[strcspn(who, "\n")] = 0;
        int e = errno;
        close(g->fd);
        g->fd = -1;
        return ls_err(LS_EIO, "%s: in use by another audit (%s%s holds %s): one writer per output folder; give "
                      "another --out or wait for it%s", c->out_dir, who[0] ? "pid " : "", who[0] ? who : "a process",
                      OUT_LOCK, e == EWOULDBLOCK ? "" : " (flock failed)");
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(g->fd, 0) != 0 || pwrite(g->fd, pid, (size_t)n, 0) != n) { /* only for the message above */
    }
    out_path(p, sizeof p, c->out_dir, OUT_MARKER);
    g->had_marker = access(p, F_OK) == 0;
    char text[256];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    n = snprintf(text, sizeof text, "lockstep audit (pid %ld) began writing this report set at ", (long)getpid());
    strftime(text + n, sizeof text - (size_t)n, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(text + strlen(text), sizeof text - strlen(text),
             ".\nWhile this file exists the set is incomplete: do not read it as a result.\n");
    return ls_write_file_atomic(p, text, strlen(text));
}

/* ok: the whole set is in place: the marker goes, last.  Otherwise the
 * marker stays, unless nothing was written (then the folder is as it was). */
static void out_release(const audit_cfg *c, out_guard *g, int ok) {
    if (g->fd < 0) return;
    char p[1200];
    out_path(p, sizeof p, c->out_dir, OUT_MARKER);
    if (ok || (!g->set_started && !g->had_marker)) {
        unlink(p);
        int d = open(c->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d >= 0) {
            fsync(d); /* the removal is the commit: make it durable */
            close(d);
        }
    }
    if (!ok && !g->set_started && g->made_dir) {
        out_path(p, sizeof p, c->out_dir, OUT_LOCK);
        unlink(p);
        rmdir(c->out_dir); /* only if empty: nothing else of ours is there */
    }
    close(g->fd);
    g->fd = -1;
}

static seeds_cfg seeds_cfg_of(const audit_cfg *c) {
    seeds_cfg sc = {c->seeds, c->jobs > 0 ? c->jobs : 1, c->floor_draws};
    return sc;
}

/* Is the gap real?  The drift phase again for more seeds (this run is the
 * first), in child processes; its verdicts join this run's. */
static int seed_loop(audit_result *r, seeds_early *early) {
    const audit_cfg *c = &r->cfg;
    if (!(c->seeds > 0 && c->eval && r->epochs_done > 0 && !r->interrupted)) {
        seeds_early_free(early);
        return 0;
    }
    if (ls_stop_signal()) { /* asked to stop between the main run and the loop */
        seeds_early_free(early);
        r->interrupted = ls_stop_signal();
        r->interrupted_step = r->total_steps;
        r->interrupted_seeds = 1;
        return 0;
    }
    seeds_cfg sc = seeds_cfg_of(c);
    if (!(r->seeds = ls_calloc(1, sizeof *r->seeds))) {
        seeds_early_free(early);
        return LS_ENOMEM;
    }
    int rc = seeds_run(c, &sc, r, early, r->seeds);
    if (rc) {
        free(r->seeds);
        r->seeds = NULL;
        /* stopped by the user (SIGINT/SIGTERM, to us or to the whole group):
         * the main run is complete and is reported, marked interrupted */
        if (ls_stop_signal()) {
            r->interrupted = ls_stop_signal();
            r->interrupted_step = r->total_steps;
            r->interrupted_seeds = 1;
            return 0;
        }
        return ls_err(rc, "seed loop: %s", ls_errmsg());
    }
    return 0;
}

unsigned audit_conditions(const audit_result *r, const verdict_table *vt, const headline *h) {
    return (vt->problems ? AUDIT_FAIL_PROBLEM : 0u) | (h->n_missing || r->interrupted ? AUDIT_FAIL_INCOMPLETE : 0u) |
           (vt->suspects ? AUDIT_FAIL_SUSPECT : 0u) |
           (vt->unchecked || h->unchecked || h->kind == HEADLINE_UNCHECKED ? AUDIT_FAIL_UNCHECKED : 0u) |
           (vt->nondet ? AUDIT_FAIL_NONDET : 0u);
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
    r->suspects = vt.suspects;
    r->gate = (audit_conditions(r, &vt, &h) & c->fail_on) != 0;
    if (c->verbose) report_print_summary(r);
    explain_list L;
    if (explain_run(&L, r, &r->m) == 0) {
        report_print_verdicts(r, &vt, &L);
        explain_list_free(&L);
    }
    report_print_failures(r);
}

/* steps.jsonl.gz into place, then run.json, report.md and report.html;
 * the console names the set as `shown` (NULL: --out). */
static int report_set(audit_result *r, out_guard *g, const char *shown) {
    const audit_cfg *c = &r->cfg;
    if (!c->out_dir) return 0;
    g->set_started = 1;
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
                shown ? shown : c->out_dir, r->jsonl_lines);
    return rc;
}

int audit_run(const audit_cfg *cfg, audit_result *res) {
    return audit_run_shown(cfg, res, NULL);
}

int audit_run_shown(const audit_cfg *cfg, audit_result *res, const char *shown) {
    /* the result is megabytes (a slot table per pair): never on the stack */
    audit_result *local = res ? NULL : ls_malloc(sizeof *local);
    if (!res && !local) return LS_ENOMEM;
    audit_result *r = res ? res : local;
    double t0 = ls_now();
    out_guard g = {-1, 0, 0, 0};
    int rc = out_lock(cfg, &g);
    /* the seed loop's audits start now, on the cores the audit leaves idle
     * (seeds_start); before the audit, which may start threads */
    seeds_early *early = NULL;
    if (!rc && cfg->seeds > 0 && cfg->eval) {
        seeds_cfg sc = seeds_cfg_of(cfg);
        rc = seeds_start(cfg, &sc, &early);
        if (rc) rc = ls_err_prefix(rc, "seed loop");
    }
    if (!rc) rc = audit_drive(cfg, r);
    if (rc) {
        seeds_early_free(early);
        out_release(cfg, &g, 0);
        free(local);
        return rc;
    }
    if (!(rc = seed_loop(r, early))) {
        r->total_s = ls_now() - t0;
        verdicts(r);
        rc = report_set(r, &g, shown);
    }
    out_release(cfg, &g, rc == 0);
    if (r->jsonl_tmp[0]) { /* not renamed into place: nothing half-written is left */
        unlink(r->jsonl_tmp);
        ls_tmp_unregister(r->jsonl_tmp);
    }
    if (!res || rc) audit_result_free(r); /* on failure nothing is left for the caller to free */
    free(local);
    return rc;
}
