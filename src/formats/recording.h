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
 *   every step   (unless `record --no-checksums`, or the engine has no
 *                checksums op; provenance plan.checksums says which) the
 *                engine's own every-step checksum vectors: CK_STEP after
 *                backward, CK_UPDATE after the update, and CK_EVAL per
 *                evaluation batch (packed to fp32: recording_ck_pack)
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

/* The every-step checksum vectors' stages and geometry (the packing is
 * described below, at recording_ck_pack). */
enum { REC_CK_STEP = 1, REC_CK_UPDATE = 2, REC_CK_EVAL = 3 }; /* = engine.h's CK_STAGE_* */
/* Phases per layer: FWD, BWD_DATA, BWD_W, BWD_B before LOSS; after DIGEST
 * and INPUT the per-sample, position-weighted and index-weighted blocks,
 * then (from ra_off) the alternating ones, then (from z_off) the
 * zero-element ones, then (from rnd_off) the random-weight ones, then
 * (from peek_off) the conv layers' output-element ones, then (from
 * dpeek_off) the dense layers', then (from wrnd_off) the random-weighted
 * backward-weights ones (engines/checksums.h's CK_NPHASE, CK_NPHASE_EXT,
 * CK_NPHASE_ALT, CK_NPHASE_Z, CK_NPHASE_R, CK_NPHASE_P, CK_NPHASE_D,
 * CK_NPHASE_ALL). */
enum {
    REC_CK_NPHASE = 4, REC_CK_NPHASE_EXT = 9, REC_CK_NPHASE_ALT = 13, REC_CK_NPHASE_Z = 14, REC_CK_NPHASE_R = 18,
    REC_CK_NPHASE_P = 20, REC_CK_NPHASE_D = 22, REC_CK_NPHASE_ALL = 23
};
typedef struct {
    size_t off[MODEL_MAX_LAYERS][REC_CK_NPHASE_ALL]; /* per layer, per phase: in doubles */
    size_t cnt[MODEL_MAX_LAYERS][REC_CK_NPHASE_ALL]; /* entries: relations (rel_width doubles) or exact blocks (2) */
    int is_rel[MODEL_MAX_LAYERS];
    int rel_width;                   /* doubles per relation: R, A, Y, S (engines/checksums.h's CK_REL) */
    size_t loss_off, adam_off, digest_off, input_off, ra_off, z_off, rnd_off, peek_off, dpeek_off, wrnd_off, total;
    int ext; /* the recording stores INPUT and the blocks after it (STEP, EVAL): recording.ck_ext; 1: up to
              * ra_off, 2: up to z_off, 3: up to rnd_off, 4: up to peek_off, 5: up to dpeek_off, 6: up to
              * wrnd_off, 7: all */
} recording_ck_geom;
typedef void (*recording_ck_geom_fn)(const model *m, size_t n, recording_ck_geom *out);

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
    int has_checksums;     /* provenance plan.checksums = "step,update,eval[,all-blocks[,alt[,zero]]]": every vector
                            * is there */
    int ck_ext;            /* 1 (",all-blocks"): STEP and EVAL vectors hold INPUT and the per-sample and weighted
                            * blocks after DIGEST too (recordings made before them stop at DIGEST); 2
                            * (",all-blocks,alt"): the alternating blocks as well (1 stops at ra_off); 3
                            * (",all-blocks,alt,zero"): the zero-element blocks as well (2 stops at z_off);
                            * 4 (",all-blocks,alt,zero,rand"): the random-weight and blank-window blocks as well (3 stops at
                            * rnd_off: one from before them, or a cuda engine's from before its kernels computed them); 5 (",rand,peek"): the
                            * conv output-element blocks as well (4 stops at peek_off); 6 (",rand,peek,dpeek"):
                            * the dense ones as well (5 stops at dpeek_off); 7 (",dpeek,wrnd"): the
                            * random-weighted backward-weights blocks as well (6 stops at wrnd_off) */
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
 * record per (step, layer, kind), the checksum vectors against ck_geom's
 * layout — engines/recorded.h's recording_ck_geom_of; NULL refuses any
 * checksum record —, ...).  Call after recording_open and
 * before any value is used; LS_EFORMAT "PATH: record step K KIND: field
 * F: problem". */
int recording_validate(const recording *r, const model *m, recording_ck_geom_fn ck_geom);
/* The recorded inputs against the data the audit holds: every full step's
 * INPUT and LABELS are the training set's at its BATCH_INDEX.  After
 * recording_validate. */
int recording_check_data(const recording *r, const idx_set *train);

/* The record of (step, layer, kind), or NULL. */
const golden_record *recording_find(const recording *r, long step, int layer, unsigned kind);

/* ---- the every-step checksum vectors, as a recording stores them ---------
 * A vector (engines/checksums.h) is doubles; a record is fp32.  Packed:
 * [stage, n, step] (exact integers: step < 2^24), then the blocks the
 * stage fills — STEP: every layer block and LOSS; UPDATE: ADAM; EVAL:
 * every layer block — then DIGEST, each u64 as four 16-bit fp32 integers
 * (exact, as STEP records store digests), then, when g->ext and the stage
 * is STEP or EVAL, INPUT (one u64, four 16-bit integers) and the per-sample,
 * position-weighted and index-weighted relation blocks after it, rounded
 * as the relations before DIGEST are: a GPU run recorded elsewhere is
 * judged by every relation a live engine is.  The blocks a stage does not
 * fill are 0 in the engine's vector and read back as 0; the judgement
 * (checks/checksums.c) reads none of them at that stage.
 *
 * Rounding to fp32, chosen so that a stored vector never passes where the
 * engine's own failed: of each relation (R, A, Y, S) |R| is rounded up
 * (away from zero), A, Y and S down; bounds_ck_tol and bounds_ck_sharp_tol
 * are nondecreasing in A, Y and S, so |R'| / tol(A', Y') >= |R| / tol(A, Y)
 * on both tiers.  A relation can read as over its
 * tolerance only if its true ratio is within ~2^-22 relative of 1 (three
 * roundings of 2^-24 each).  Counts and largest differences (exact
 * blocks, ADAM) are rounded up (a count > 0 stays > 0; counts below 2^24
 * are exact).  LOSS holds fp32 numbers (the loss, the logits z, dz): stored
 * exactly, and a value that is not one is refused (LS_EINVAL) rather than
 * rounded, because the loss re-check compares it to 2^-40 of itself.
 *
 * formats/ cannot call engines/'s ck_layout_make: the caller hands its
 * geometry in (recording_ck_geom: a copy of ck_layout's fields). */

/* Floats of the packed vector of `stage` for a batch of n. */
size_t recording_ck_packed_len(const recording_ck_geom *g, const model *m, int stage);
/* vec (g->total doubles) into out (recording_ck_packed_len floats).
 * LS_EINVAL naming the slot: a LOSS value that is not an fp32 number, a
 * header that is not an exact integer. */
int recording_ck_pack(const recording_ck_geom *g, const model *m, int stage, const double *vec, float *out);
/* The packed record back into a vector of g->total doubles (0 where the
 * stage fills nothing).  The record must have passed recording_validate. */
void recording_ck_unpack(const recording_ck_geom *g, const model *m, int stage, const float *in, double *vec);





#endif
