/*
 * golden_cli.h — the two jobs behind `lockstep golden`: record a run's
 * tensors into a .lsg file, and check a later build, library or machine
 * against one (DESIGN.md §6; the format is golden/FORMAT.md, the file API
 * golden.h).  Callable from main.c and from tests.
 *
 * record: one engine, in-process, the first S steps of the configured
 * training.  After each step it pins every tensor the audit compares: each
 * layer's ACT, the LOSS, each DACT, the GRADS, PARAMS, ADAM_M and ADAM_V per
 * parameter tensor (after the update); then the logits and predicted classes
 * of the final weights on the first limit-test test images.  Provenance:
 * program, compiler, flags, libraries, CPU, ISA, threads, engine spec and
 * describe(), per-layer algorithms, model, run settings, data digests.
 *
 * check: reads the file fully validated, rebuilds the configuration from
 * the provenance, checks the data digests, resolves the policy and replays
 * in isolation: each step starts from the golden's state (step 1: the seeded
 * initial weights, m = v = 0), each layer consumes the golden's recorded
 * input (ACT of the layer before, DACT of the layer itself going backward,
 * the golden's GRADS for the update), so each comparison judges one
 * operation, a regression is named where it starts, and the `bound` policy's
 * a-priori fp32 bounds are computed from exactly the values consumed.
 *
 * Not here: the byte format (golden.c), argument parsing (main.c).
 */
#ifndef LS_GOLDEN_CLI_H
#define LS_GOLDEN_CLI_H

#include <stdio.h>

#include "formats/golden.h"
#include "engines/run.h"

/* the most steps a golden holds: golden record refuses more, golden check reads no more */
#define GOLDEN_CHECK_MAX_STEPS 1000000L

typedef struct {
    run_cfg run;          /* engine, model, data, seed, batch, lr, threads, limits */
    long steps;           /* S >= 1 */
    const char *out_path; /* the .lsg to write */
    FILE *out;            /* progress and summary (NULL: none) */
} golden_record_cfg;

/* Defaults: cpu engine, smallcnn, FashionMNIST, seed 42, batch 4, lr 1e-3,
 * 1 step, limit-train 512, limit-test 256 (a ~1.7 MB file for smallcnn;
 * each further step adds ~1.2 MB: PARAMS, GRADS, M and V barely deflate). */
void golden_record_cfg_default(golden_record_cfg *c);

/* Returns 0, or an error code with ls_errmsg() set (nothing is left under
 * out_path on failure). */
int golden_record_run(const golden_record_cfg *c);

typedef struct {
    const char *path;     /* the golden file */
    const char *engine;   /* NULL: the file's engine.spec */
    const char *policy;   /* "auto" (default), "exact", "ulp:N", "bound", "bound:N" */
    const char *data_dir; /* NULL: the file's data.dir */
    int max_shown;        /* mismatches printed in all (default 10) */
    int verbose;          /* print the per-tensor table (after the verdict and its evidence) */
    FILE *out;            /* run, policy, verdict, mismatches, [table] (NULL: none) */
    FILE *err;            /* the reason for an unusable input (NULL: none) */
} golden_check_cfg;

void golden_check_cfg_default(golden_check_cfg *c);

/* Returns the exit status: GOLDEN_PASS 0, GOLDEN_REGRESSION 1,
 * GOLDEN_UNUSABLE 2 (the reason is printed to err and kept in ls_errmsg()). */
int golden_check_run(const golden_check_cfg *c);

/* The provenance a golden carries (program, compiler, flags, libraries,
 * CPU, ISA, threads, engine spec, describe() and per-layer algorithms,
 * model, run settings with `steps`, data digests), for engine e created
 * from `spec` under settings c; `lockstep record` starts from it too. */
int golden_build_provenance(golden_prov *p, const run_cfg *c, long steps, const model *m, const dataset *ds,
                            engine *e, const char *spec);

#endif
