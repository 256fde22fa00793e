/*
 * recorded.h — a recording as an engine (`recorded:PATH`,
 * engines/engine_recorded.c): the recording behind such an engine, whether
 * it was made with the run an audit is about to do, and its evaluation
 * from the recorded logits.
 */
#ifndef LS_RECORDED_H
#define LS_RECORDED_H

#include "engines/run.h"
#include "formats/recording.h"

/* The recording behind a `recorded:PATH` engine, or NULL for any other
 * engine (engine_recorded.c). */
const recording *engine_recorded_get(const engine *e);

/* engines/checksums.h's ck_layout_make as the geometry recording.h's
 * packing and recording_validate need (formats/ cannot call it). */
void recording_ck_geom_of(const model *m, size_t n, recording_ck_geom *out);

/* Position a `recorded:` engine on evaluation batch `batch` (0-based, the
 * test slice in batches of the training batch size) of epoch `epoch`
 * (0-based), so that checksums(CK_STAGE_EVAL) returns that batch's
 * recorded vector.  A recording evaluates nothing itself (the audit reads
 * its logits: recording_eval); this is how its evaluation checksums are
 * judged.  LS_EINVAL for a batch or epoch the recording does not have. */
int engine_recorded_eval_at(engine *e, int epoch, size_t batch);

/* The recorded engine's own spec (provenance engine.spec: "cuda:math=tf32",
 * ...), or NULL for any other engine or a recording without it. */
const char *engine_recorded_spec(const engine *e);

/* Whether this recording was made with the run an audit is about to do.
 * total_steps: the audit's step count.  LS_EINVAL with a message naming
 * the first field that differs ("recorded:PATH: recorded with seed 7, this
 * run has seed 42 (field: seed)"). */
int recording_check_run(const recording *r, const run_cfg *c, const model *m, const dataset *ds,
                        long total_steps);

/* Accuracy, loss, confusion and predictions of epoch ep (0-based) from
 * the recorded logits and the test set's labels, computed exactly as
 * eval_engine() does from an engine's logits; out->logits holds a copy of
 * those logits (n x classes), as eval_engine_logits() keeps them. */
int recording_eval(const recording *r, int ep, const idx_set *test, size_t limit, eval_result *out);

#endif
