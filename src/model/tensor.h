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

#endif
