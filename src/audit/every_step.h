/*
 * every_step.h — the driver's use of the every-step checksums: call an
 * engine's checksum op at a stage, judge the vector (checks/checksums.c),
 * keep the continuity chain, and record coverage, the worst ratio per step
 * and the first violation in the engine's audit_engine.
 *
 * Not here: the vectors (engines/checksums.c), tolerances (checks/bounds.c),
 * verdict wording (explain.c).
 */
#ifndef LS_EVERY_STEP_H
#define LS_EVERY_STEP_H

#include "audit/audit.h"
#include "checks/bounds.h"

/* Once per engine before the run: whether it has the op (a probe is not
 * needed: the first call says), the per-step ratio array for `total`
 * drift steps.  LS_ENOMEM or 0. */
int every_step_init(audit_engine *ae, long total);
/* Judge one stage of engine e: STEP (after backward: labels y), UPDATE
 * (after update), EVAL (after an inference forward).  x_dig: the digest
 * (ck_digest) of the images the engine was given for a STEP or EVAL stage,
 * judged against the INPUT slot (not for a recording, which stores none;
 * NULL: not judged).  step: the drift
 * step (0 in evaluation), epoch 0-based; vec: scratch of
 * ck_layout_make(m, max_batch).total doubles.  An engine without the op
 * is marked once (ck_have 0) and 0 returned; other errors are returned. */
/* Ask engine e for its vector of `stage` without waiting (an engine in its
 * own process starts computing it; every_step_stage then waits for it), so
 * that every engine's checks run at once.  A no-op for other engines. */
int every_step_send(engine *e, audit_engine *ae, int stage);
/* stage may carry engine.h's CK_STAGE_HASH (the vector and its operand
 * hash at vec[total]: vec holds total + 1 doubles) or CK_STAGE_HASH_ONLY
 * (the header and the hash only; nothing judged). */
int every_step_stage(engine *e, audit_engine *ae, const model *m, int stage, size_t n, const int32_t *y,
                     const uint64_t *x_dig, const bounds_dups *dups, long step, int epoch, double *vec);
/* A repeat judged on its first listing's vector lead_vec (the driver saw
 * their operand hashes and headers agree): the same judging, counted as
 * the repeat's (ck_twin_steps too). */
int every_step_judge_shared(engine *e, audit_engine *ae, const model *m, int stage, size_t n, const int32_t *y,
                            const uint64_t *x_dig, const bounds_dups *dups, long step, int epoch,
                            const double *lead_vec);
/* The driver set the engine's state (sync/isolated broadcast, a state it
 * cannot digest): the next step starts a new continuity chain. */
void every_step_break_chain(audit_engine *ae);
/* The driver set the engine's state itself (its initial weights p, Adam m
 * and v zeroed: engine_set_params): the next step must compute with
 * exactly that, so the chain starts from the digests of what was set, not
 * from nothing (a restore that the engine ignores, in part or whole, is
 * the next step's continuity violation).  LS_ENOMEM or 0. */
int every_step_seed_chain(audit_engine *ae, const model *m, const float *p);
/* Read-backs (checks/checksums.h): the logits z the driver read back for
 * an evaluation batch (or a training step) of n against the stage's vector
 * vec, bit for bit where the vector carries them (a live engine's; not a
 * recording's EVAL vectors) and by the last layer's sums of |outputs|;
 * the parameters p (and Adam m, v where given) the driver read back for
 * use ("the pair comparison", "--save") against the digests of the last
 * update the checks chained, when the chain holds (ae->ck_chain: no state
 * set by the driver since; returns 0 and judges nothing otherwise).  A
 * mismatch is recorded as a violation of the engine's checks at step
 * (evaluation: epoch).  Return: 1 when a read-back differs, else 0. */
int every_step_readback_logits(engine *e, audit_engine *ae, const model *m, size_t n, const double *vec,
                               const float *z, long step, int epoch, int eval);
int every_step_readback_state(audit_engine *ae, const model *m, const float *p, const float *mo, const float *v,
                              const char *use, long step, int epoch);
/* The loss engine_loss reported at a STEP whose vector is vec (its own, or
 * its first listing's when shared) against the vector's (bit for bit). */
int every_step_readback_loss(audit_engine *ae, const model *m, size_t n, const double *vec, float loss, long step,
                             int epoch);
/* The drift steps an engine's every-step coverage is counted out of: those
 * the run made (an engine that died part way was checked at fewer), or
 * more where the engine's own count (judged + fed) says so. */
long every_step_of_steps(const audit_result *r, const audit_engine *ae);
/* The state round trip's coverage of one engine in words, for the
 * coverage line, report.md and run.json alike (driver.c roundtrip():
 * rt_checks, rt_nondet, rt_none): "at N step(s) on a second instance",
 * the inconclusive ones (the instance's two runs of a step differed: the
 * check needs a deterministic engine), and why it is off where it is.
 * Returns 1 when something is worth a line of its own on the first screen
 * (inconclusive runs, or the check off for a reason), else 0; buf is ""
 * for an engine the round trip does not apply to (the reference, a
 * recording, --no-roundtrip). */
int every_step_roundtrip_words(const audit_result *r, const audit_engine *ae, char *buf, size_t cap);
/* The operand rounding a spec declares (bounds_ck_tol's u_in): 2^-8 for
 * dtype=bf16, 2^-10 for tf32=on and math=tf32, 0 otherwise (fp32). */
double every_step_declared_u_in(const char *spec);

#endif
