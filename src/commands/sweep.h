/*
 * sweep.h — `lockstep sweep` (commands/sweep.c): engines x seeds x machine
 * types as a batch of `lockstep record` tasks, on Slurm or on this machine,
 * then one merge that audits the recordings (DESIGN.md §9).
 *
 * A sweep lives in one folder, DIR:
 *   plan.json                 the plan (magic "lockstep-sweep-plan", version 1);
 *                             a different plan in the same folder is refused
 *                             naming the first field that differs
 *   rec/<machine>/<engine>/<seed>.lsr   one recording per task, written under
 *                             a temporary name and renamed (record.c): a file
 *                             here is a finished task, the folder's truth
 *   state/<task>.txt          what the task's wrapper saw (running, done,
 *                             failed, cancelled; node, job, reason, seconds)
 *   log/                      each task's and each merge's output
 *   slurm/jobs.tsv            every job submitted (array and merge job ids)
 *   report/                   the merge: report.md, summary.json,
 *                             verdicts.txt, seeds.json, seed-<S>/ (the
 *                             audit of that seed's recordings); replaced as
 *                             a whole (built in report.tmp.PID, renamed)
 *
 * Tasks are numbered in plan order (machine, then engine, then seed) from
 * 0; the number is the Slurm array index.  Slurm runs an array in one
 * partition with one resource request, so the plan becomes one array per
 * (partition, resources) and the merge job depends on all of them
 * (--dependency=afterany).  Not here: the audit (audit_cmd.c), the
 * statistics (audit/seeds.c).
 */
#ifndef LS_SWEEP_H
#define LS_SWEEP_H

#include <stdio.h>

#include "engines/run.h"

#define SWEEP_MAX_MACHINES 8
#define SWEEP_MAX_ENGINES 6   /* per machine (the merge audits them all, with the reference, per seed) */

typedef enum { SWEEP_SUBMIT, SWEEP_STATUS, SWEEP_MERGE, SWEEP_TASK } sweep_action;
typedef enum { SWEEP_AUTO, SWEEP_SLURM, SWEEP_LOCAL } sweep_backend;

typedef struct {
    sweep_action action;
    sweep_backend backend;  /* AUTO: Slurm when sbatch is on PATH */
    int jobs;               /* local backend: tasks at once */
    int wait;               /* Slurm: wait for the merge job, then print its verdict */
    int dry_run;            /* Slurm: print the sbatch commands instead of running them
                             * (the plan and the job scripts are written) */
    const char *dir;
    int task;               /* SWEEP_TASK: the task number */
    const char *on[SWEEP_MAX_MACHINES]; /* "PARTITION=ENGINE[,ENGINE...]" */
    int n_on;
    const char *seeds;      /* "42,43" (a list) or "N" (a count from --seed) */
    long audit_every, ref_steps;
    const char *time_limit; /* sbatch --time for each task (NULL: the partition's) */
    unsigned fail_on;       /* --fail-on: AUDIT_FAIL_* bits found in a merged seed's audit that make the
                             * merge exit 1 (as `audit --fail-on`); 0 (the default, as audit's): none */
    int fail_on_set;
    run_cfg run;            /* model, data, epochs, batch, lr, limits, threads, seed */
    FILE *out;
} sweep_cfg;

void sweep_cfg_default(sweep_cfg *c);

/* Take sweep's own options out of argv (argv[0] is the command's name);
 * the rest, argv[0] first, go to rest[] (room for argc + 1) for the run
 * options' parser.  Returns -1 to go on, else an exit status (2: bad use,
 * with the message printed). */
int sweep_split_args(sweep_cfg *c, int argc, char **argv, char **rest, int *n_rest);

/* Run the action.  Returns the exit status: 0 done (merge: complete, and
 * nothing --fail-on names found), 1 the merged verdict is incomplete (a
 * task failed, was cancelled or is missing) or a seed's audit found what
 * --fail-on names, 2 bad input or an error (message on stderr), 128+N
 * stopped by signal N. */
int sweep_main(sweep_cfg *c);

/* Two recordings of the same task hold the same numbers: every record
 * (step, layer, kind, shape, values) bitwise, and every provenance key,
 * except what measures the run rather than computes it (the date, the
 * TIMING record, an epoch's training seconds).  0 same, LS_EMISMATCH with
 * the first difference in ls_errmsg(), or a read error. */
int sweep_recordings_same(const char *a, const char *b);

#endif
