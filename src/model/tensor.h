/*
 * tensor.h — what a training step's state is made of, named the same way in
 * every layer above: the tensors of a model (input, activations and their
 * gradients per layer, the flat parameter, gradient and Adam buffers, the
 * loss) and the optimizer's constants that every engine applies.
 *
 * Not here: engines (engines/engine.h), storage (each engine keeps its own).
 */
#ifndef LS_TENSOR_H
#define LS_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum {
    TENSOR_INPUT,  /* (n, C, H, W); layer ignored */
    TENSOR_ACT,    /* output of `layer`, (n, out_size) */
    TENSOR_DACT,   /* dLoss/d(output of `layer`), (n, out_size) */
    TENSOR_PARAMS, /* flat, n_params; layer ignored */
    TENSOR_GRADS,
    TENSOR_ADAM_M,
    TENSOR_ADAM_V,
    TENSOR_LOSS,   /* one value, the batch-mean loss */
} tensor_kind;

typedef struct {
    tensor_kind kind;
    int layer;
} tensor_id;

/* Number of floats in a tensor for a batch of n. */
size_t tensor_numel(const model *m, tensor_id t, size_t n);
const char *tensor_kind_name(tensor_kind k);

/* Adam with PyTorch's formula.  The host turns the step-dependent scalars
 * into fp32 once (adam_scalars), so every engine applies the same fp32
 * constants in the same order:
 *     m = b1 * m + (1 - b1) * g
 *     v = b2 * v + (1 - b2) * g * g
 *     p = p - step_size * m / (sqrt(v) / bc2_sqrt + eps)
 * with step_size = lr / (1 - b1^t) and bc2_sqrt = sqrt(1 - b2^t) (both
 * computed in double, rounded to fp32 once). */
typedef struct {
    double lr, beta1, beta2, eps;
} adam_cfg;

typedef struct {
    float beta1, one_minus_beta1, beta2, one_minus_beta2;
    float step_size, bc2_sqrt, eps;
    adam_cfg cfg; /* the exact settings and step, for engines (the MPFR */
    int t;        /* reference) that evaluate Adam in higher precision  */
} adam_scalars;

adam_scalars adam_make_scalars(const adam_cfg *cfg, int t);
adam_cfg adam_default(void); /* lr 1e-3, betas 0.9/0.999, eps 1e-8 */

/* Per-layer timing kept by the engine wrappers and stored in recordings (seconds, summed, and call counts). */
enum { DIR_FWD, DIR_BWD, DIR_N };
typedef struct {
    double layer_s[MODEL_MAX_LAYERS][DIR_N];
    long layer_calls[MODEL_MAX_LAYERS][DIR_N];
    double loss_s, update_s, set_batch_s, get_s, set_s;
} engine_timing;

/* The spread behind those sums: per layer and phase, a sample of single
 * call durations (seconds), the first TIMING_WARMUP calls of each left out
 * (first-call costs: JIT kernels, allocations, cold caches).  A reservoir
 * of at most TIMING_SAMPLES calls, replaced by a fixed hash of the call
 * count when there are more (deterministic, uniform), so the median and
 * p10-p90 describe every warm call.  Evaluation forwards are a phase of
 * their own: they see no dropout and a different batch count.  Kept by
 * the engine wrappers, sent back by the engine's child process; not
 * stored in recordings (a recorded engine has sums only). */
enum { TPH_TRAIN_FWD, TPH_BWD, TPH_EVAL_FWD, TPH_N };
#define TIMING_SAMPLES 512
#define TIMING_WARMUP 5
typedef struct {
    long calls;               /* every call, warm-up included */
    float s[TIMING_SAMPLES];  /* min(calls - TIMING_WARMUP, TIMING_SAMPLES) of them filled */
} timing_reservoir;
typedef struct {
    timing_reservoir layer[MODEL_MAX_LAYERS][TPH_N];
    timing_reservoir update, loss;
} engine_timing_samples;

/* One call of dt seconds into the reservoir. */
void timing_add(timing_reservoir *r, double dt);
/* How many warm samples r holds. */
int timing_count(const timing_reservoir *r);
/* Median, p10 and p90 of r's warm samples (seconds); returns their count
 * (0: none, the outputs NAN). */
int timing_quantiles(const timing_reservoir *r, double *p10, double *median, double *p90);
/* Name of a phase: "training forward", "backward", "evaluation forward". */
const char *timing_phase_name(int ph);

#endif
