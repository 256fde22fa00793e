/*
 * record.h — `lockstep record` (commands/record.c).
 */
#ifndef LS_RECORD_H
#define LS_RECORD_H

#include <stdio.h>

#include "engines/run.h"

/* ---- `lockstep record` --------------------------------------------------- */
typedef struct {
    run_cfg run;          /* engine, model, data, seed, batch, epochs, lr, limits, threads, --steps */
    long audit_every;     /* the plan: full steps every K (default 50, the audit's) */
    long ref_steps;       /* ... and 1..ref_steps (default 2, the audit's) */
    int no_checksums;     /* --no-checksums: store no every-step checksum vectors */
    const char *out_path;
    FILE *out;            /* progress (NULL: none) */
} recording_cfg;

void recording_cfg_default(recording_cfg *c);
/* Train c->run.engine in this process and write the recording atomically
 * (a temporary file renamed into place; removed on error and on SIGINT,
 * SIGTERM or SIGHUP).  Returns 0 or an error with ls_errmsg() set. */
int recording_record_run(const recording_cfg *c);

#endif
