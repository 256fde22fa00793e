/*
 * recording.h — a recording: one engine's whole training run on one
 * machine, pinned in a .lsg file (the golden container, provenance key
 * "kind" = "recording"; golden/FORMAT.md) so that another machine can
 * audit it as an engine (`recorded:PATH`, engine_recorded.c) — how a GPU
 * run from last week is explained on a laptop (DESIGN.md §6).
 *
 * What a recording holds (records in golden.h's kinds; FORMAT.md has the
 * byte-level table):
 *   provenance   everything a golden carries (golden_build_provenance),
 *                plus kind, host.os, host.cpu, gpu.name/gpu.driver (when
 *                the engine reports a device), date, and the audit plan:
 *                plan.epochs, plan.total_steps, plan.audit_every,
 *                plan.ref_steps, plan.full_steps
 *   every step   a STEP record: loss, L2 norm and FNV-1a digest of the
 *                parameters after the update, FNV-1a digest of the batch
 *                (pixels then labels), batch size, epoch
 *   full steps   (1..max(ref_steps,1), every audit_every-th, the last —
 *                the audit's plan) the inputs: INPUT pixels, LABELS,
 *                BATCH_INDEX, and the state before the step (PARAMS,
 *                ADAM_M, ADAM_V recorded at step k-1, i.e. "after step
 *                k-1"; step 0 is the initial state); then every compared
 *                tensor: ACT and DACT per layer, LOSS, GRADS, and PARAMS,
 *                ADAM_M, ADAM_V after the update
 *   every epoch  LOGITS and PREDICTIONS of the test slice, an EPOCH record
 *   the end      a TIMING record (engine_timing and peak RSS)
 *
 * Not here: the engine table over a recording (engine_recorded.c), the
 * audit's use of it (audit/driver.c), the container's bytes (golden.c).
 */
#ifndef LS_RECORDING_H
#define LS_RECORDING_H

#include <stdint.h>
#include <stdio.h>

#include "formats/data.h"
#include "formats/golden.h"
#include "model/model.h"
#include "model/tensor.h"

/* One STEP record, decoded. */
typedef struct {
    float loss;
    double params_l2;      /* L2 norm of the parameters after the update (stored as fp32) */
    uint64_t params_digest;/* recording_digest of the parameters after the update */
    uint64_t batch_digest; /* recording_batch_digest of the step's batch */
    size_t batch;          /* images in the step's batch */
    int epoch;             /* 0-based */
    int full;              /* every compared tensor is recorded at this step */
} recording_step;

typedef struct {
    double train_s, test_acc, test_loss;
    size_t images;
    long end_step;         /* the step whose records hold this epoch's logits */
} recording_epoch;

typedef struct {
    golden_file *gf;
    char path[512];
    /* the plan it was recorded with */
    int epochs, epochs_run; /* the plan's; those the run reached (fewer with --steps) */
    size_t batch, limit_train, limit_test;
    uint64_t seed;
    long total_steps, audit_every, ref_steps;
    char full_steps[512];  /* "1,2,4,8" (shortened with "..." when long) */
    recording_step *steps; /* [0] unused; steps 1..total_steps */
    recording_epoch ep[64];
    engine_timing timing;
    size_t peak_rss;
    int has_timing;
} recording;

/* FNV-1a 64 over n bytes (parameters, pixels). */
uint64_t recording_digest(const void *bytes, size_t n, uint64_t h);
/* FNV-1a 64 of a batch: its n*in pixel floats, then its n labels (int32). */
uint64_t recording_batch_digest(const float *x, const int32_t *y, size_t n, size_t in);
/* A 64-bit digest as four floats of 16 bits each (exact in fp32), as STEP
 * records store it; _get fails (-1) on a value that is not one. */
void recording_digest_put(float *v, uint64_t d);
int recording_digest_get(const float *v, uint64_t *d);
/* The audit plan's fully compared steps: 1..max(ref_steps,1), every
 * audit_every-th (audit_every > 0), and the last. */
int recording_is_full_step(long step, long total, long ref_steps, long audit_every);

/* Read, validate (golden_read: every checksum, length and shape) and index
 * a recording.  LS_EIO/LS_EFORMAT with "PATH: problem": a golden that is
 * not a recording, a missing plan key, a missing STEP record, ... */
int recording_open(recording **out, const char *path);
void recording_free(recording *r);

/* The contents as data (recording_check.c): every record against the plan
 * and the model m (shapes, steps, classes, finite values, digests, one
 * record per (step, layer, kind), ...).  Call after recording_open and
 * before any value is used; LS_EFORMAT "PATH: record step K KIND: field
 * F: problem". */
int recording_validate(const recording *r, const model *m);
/* The recorded inputs against the data the audit holds: every full step's
 * INPUT and LABELS are the training set's at its BATCH_INDEX.  After
 * recording_validate. */
int recording_check_data(const recording *r, const idx_set *train);

/* The record of (step, layer, kind), or NULL. */
const golden_record *recording_find(const recording *r, long step, int layer, unsigned kind);





#endif
