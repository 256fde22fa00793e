/*
 * train.h — `lockstep train`: one engine, write-up B's setup by default.
 */
#ifndef LS_TRAIN_H
#define LS_TRAIN_H

#include "engines/run.h"

/* `lockstep train`: returns 0, or an error code with ls_errmsg() set. */
int train_run(const run_cfg *c);

#endif
