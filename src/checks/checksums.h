/*
 * checksums.h — judging an engine's every-step checksum vector
 * (engines/checksums.h): each conv/dense relation's residual against its
 * tolerance (bounds_ck_tol, derived from the per-element rules) and its
 * sharper, probabilistic tier (bounds_ck_sharp_tol: SUSPECT), each
 * element-wise re-check (exact), the loss and its gradient re-done in
 * double from the engine's logits (bounds_loss), the Adam re-check (exact:
 * the engine's update is ops_adam_elem), and continuity (the state a step
 * computes with is, bit for bit, the state the engine reported after the
 * step before).
 *
 * Not here: computing the vectors (engines/), verdict wording (audit/explain.c).
 */
#ifndef LS_CHECKS_CHECKSUMS_H
#define LS_CHECKS_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>

#include "checks/bounds.h"
#include "engines/checksums.h"
#include "model/model.h"

typedef enum {
    CKP_FORWARD, CKP_BWD_DATA, CKP_BWD_WEIGHTS, CKP_UPDATE, CKP_EVAL, CKP_LOSS, CKP_N
} ck_phase;
const char *ck_phase_label(ck_phase p); /* "forward", ..., "evaluation", "loss" */
/* The step phase it belongs to: "forward", "loss", "backward", "update", "evaluation". */
const char *ck_phase_coarse(ck_phase p);

typedef struct {
    ck_phase phase;
    int layer;          /* model layer, or -1 (update: see what) */
    double ratio;       /* |residual| / tolerance; INFINITY: an exact re-check failed */
    double count;       /* exact re-checks: elements that differ (0 for relations) */
    int between;        /* continuity: the state changed between the last update and this step (not in it) */
    int sign_test;      /* a SUSPECT of the sign test over a block (ratio: |z| / its limit), not of one relation */
    char what[160];     /* "conv2 backward-weights, output channel 3", "fc1.weight Adam (p, m, v)" */
} ck_violation;

/* One block of relations (a layer's CK_ phase of engines/checksums.h):
 * the largest ratio to each tier over every relation of it judged, and
 * how many were.  On a clean run that is how much of each tolerance fp32
 * rounding used: a fault must move a relation by about 1 / (that ratio)
 * times what rounding did to be seen (README, "How sharp the checks
 * are").  -1: none judged. */
typedef struct {
    float worst, sharp;
    long n;
} ck_block_margin;

#define CK_MAX_VIOL 4
typedef struct {
    double worst_ratio;   /* over every relation judged (a failed exact re-check: INFINITY) */
    int worst_layer;
    ck_phase worst_phase;
    char worst_what[160]; /* the worst check, in words */
    long n_relations;     /* relations and re-checks judged */
    int n_viol;           /* violations (the CK_MAX_VIOL largest kept, largest first) */
    ck_violation v[CK_MAX_VIOL];
    /* the sharper tier (bounds_ck_sharp_tol) of the same relations: over it
     * but within the worst case is SUSPECT, not PROBLEM */
    long n_sharp;         /* relations judged on a sharper tier than the worst case */
    double worst_sharp;   /* the largest |residual| / sharp tolerance */
    char worst_sharp_what[160];
    int n_sus;            /* relations over the sharp tolerance, within the worst case */
    ck_violation sus;     /* the worst of them (phase, layer, ratio to the sharp tolerance) */
    double sus_worst_ratio; /* ... and its ratio to the worst-case tolerance */
    /* the sign test over the blocks' residuals (checksums.c, judge_sign):
     * the largest |z| / limit of any block judged (-1: none), and which */
    double worst_sign;
    char worst_sign_what[160];
    /* relations (and re-checked elements) not judged: a legal fp32
     * evaluation may overflow there (checksums.c, ck_rel_unbound; the
     * per-element tier's bounds_range_unbound): neither within nor over,
     * not in n_relations */
    long n_unjudged;
    /* per block of relations (judge_rel's; exact re-checks have no margin) */
    ck_block_margin blk[MODEL_MAX_LAYERS][CK_NPHASE_ALL];
    /* the Adam re-check's tensors whose differing elements are all one
     * named legal order's, bit for bit (base/adam_orders.h): ok, said here
     * (not a violation, not a SUSPECT); the one with the most such
     * elements, in words, and their count */
    int n_legal;
    double legal_count;
    char legal_what[160];
} ck_verdict;

/* a block's name in words ("backward-weights (zero and smallest elements)") */
const char *ck_block_name(const model *m, int l, int ph);
/* into[l][ph] takes from's worst of each tier and adds its count, for every block of m's layers */
void ck_margins_merge(ck_block_margin (*into)[CK_NPHASE_ALL], const ck_block_margin (*from)[CK_NPHASE_ALL],
                      int n_layers);
/* into: -1, -1, 0 everywhere */
void ck_margins_init(ck_block_margin (*into)[CK_NPHASE_ALL]);

void ck_verdict_init(ck_verdict *v);

/* Judge vec (ck_layout_make(m, n), stage in vec[0]) of a batch of n with
 * labels; u_in > 0 for an engine whose conv/dense operands are declared
 * rounded (bounds_ck_tol); per_sample: how much of the vector after INPUT
 * it carries: CK_BLOCKS_ALL all of it, CK_BLOCKS_D all but the
 * random-weighted backward-weights blocks (a recording from before them),
 * CK_BLOCKS_P all but those and the dense
 * layers' output-element blocks (a recording from before them),
 * CK_BLOCKS_R all but those and the conv layers'
 * output-element blocks (a recording from before them), CK_BLOCKS_Z all
 * but those and the random-weight blocks (a recording from before them,
 * or a cuda engine's made before its kernels computed them), CK_BLOCKS_ALT all but those and the
 * zero-element blocks, CK_BLOCKS_EXT the per-sample, position- and
 * index-weighted blocks but not the alternating ones (recordings from
 * before them: recording.ck_ext), CK_BLOCKS_BASE none (an older
 * recording's, which stops at DIGEST).  Accumulates into out.
 * LS_ENOMEM or 0. */
enum {
    CK_BLOCKS_BASE = 0, CK_BLOCKS_EXT = 1, CK_BLOCKS_ALT = 2, CK_BLOCKS_Z = 3, CK_BLOCKS_R = 4, CK_BLOCKS_P = 5,
    CK_BLOCKS_D = 6, CK_BLOCKS_ALL = 7,
    /* a live engine's vector: all of the above and the UPDATE stage's ADAMW
     * (engines/checksums.h), never recorded: its Adam differences are
     * bounded (within bounds_adam: SUSPECT, not the engines' shared
     * formula; beyond: PROBLEM); without it any difference is a PROBLEM */
    CK_BLOCKS_LIVE = 8,
    /* a light step's STEP vector (CK_STAGE_LIGHT, engines/engine.h): a conv
     * layer's plain relations only, a dense layer's all but the
     * every-output re-dos (engines/checksums.h, ck_light_keeps) */
    CK_BLOCKS_LIGHT = 9
};
int checksums_judge(const model *m, const double *vec, size_t n, const int32_t *labels, double u_in, int per_sample,
                    ck_verdict *out);
/* checksums_judge for a batch with duplicate samples (bounds_dup_groups
 * of the images the stage was given; NULL: none, as checksums_judge):
 * the sharper tier of the relations whose terms or outputs run over the
 * batch counts the copies' roundings as correlated (bounds_ck_dup_s). */
int checksums_judge_dups(const model *m, const double *vec, size_t n, const int32_t *labels, double u_in,
                         int per_sample, const bounds_dups *dups, ck_verdict *out);

/* The sign test over a block's residuals (checks/checksums.c derives it):
 * |z| over this limit (sqrt(2 ln(2 / 1e-12)) = 7.53) is a SUSPECT, the
 * block's ratio |z| / limit in sus. */
double checksums_sign_limit(void);

/* Continuity: the digests of the state this stage computed with (vec of a
 * STEP or EVAL stage) against those the engine reported after the last
 * update (prev: the DIGEST block of that UPDATE vector, 3 u64 slots per
 * model tensor), or against those of the state the audit set (set = 1:
 * its initial state; the finding says so).  EVAL vectors carry PARAMS
 * only. */
void checksums_continuity(const model *m, const double *prev_digest, const double *vec, size_t n, int set,
                          ck_verdict *out);

/* Input: the digest of the images the stage computed with (vec of a STEP
 * or EVAL stage, its INPUT slot) against want, the digest (ck_digest) of
 * the batch the engine was given.  Judged as a PROBLEM of the first
 * layer's forward (or evaluation) phase when they differ. */
void checksums_input(const model *m, const double *vec, size_t n, uint64_t want, ck_verdict *out);

/* Read-backs.  What the driver reads back from an engine and then uses is
 * not what the engine's checks judged unless something ties the two: the
 * checks read the engine's tensors in place, the driver asks for copies
 * (zoo attack 6: logits read back stale, shifted or in bf16 for the
 * accuracy, and parameters read back stale for --save, all ended VERDICT
 * ok).  These tie each read-back to the vector, exactly.
 *
 * Parameters (and Adam m, v where given, else NULL) against dig, the
 * DIGEST block of the last update the checks chained (3 u64 slots per
 * model tensor: values, m, v): a tensor whose digest differs is a PROBLEM
 * of the update phase (evaluation: ph), named with use ("the pair
 * comparison", "--save").
 *
 * Logits z (n x classes, as read back) of a stage against its vector:
 * exact != 0: bit for bit against the logits the vector carries (LOSS
 * block: a STEP vector's, and an EVAL vector's since they carry them,
 * engines/checksums.h); and always the last dense layer's relations' sums
 * of |outputs|, per class over the batch (its forward relations' Y) and
 * per sample over the classes (per_sample: its per-sample relations' Y),
 * within 2^-20 relative (a recording stores Y rounded to fp32; a device
 * may add in another order), which also ties a recording's logits to its
 * recorded checks.  A violation is a PROBLEM of the evaluation (eval) or
 * forward phase of the last layer. */
void checksums_readback_state(const model *m, const double *dig, const float *p, const float *mo, const float *v,
                              const char *use, ck_phase ph, ck_verdict *out);
void checksums_readback_logits(const model *m, const double *vec, size_t n, const float *z, int exact, int per_sample,
                               int eval, ck_verdict *out);
/* The training loss the engine reported to the driver (engine_loss) against
 * the one its STEP vector carries (which judge_loss re-does from the
 * logits): bit for bit, a PROBLEM of the loss phase otherwise. */
void checksums_readback_loss(const model *m, const double *vec, size_t n, float loss, ck_verdict *out);

#endif
