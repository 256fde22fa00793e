/*
 * bounds.h — the a-priori error bound, or the exactness rule, of every
 * operation a training step performs: the one module the audit
 * (audit/driver.c) and the golden check (golden_cli.c) both judge by.
 *
 * Every compared tensor is covered by exactly one rule:
 *   DOT      conv and dense forward, backward-data and backward-weights
 *            (bias add included): an fp32 dot product of length K in any
 *            order, |err| <= gamma_K sum |a||b| (compare.h derives it),
 *            plus K 2^-149 where products can fall below 2^-126;
 *   SUM      bias gradients: a plain sum of K terms, gamma_{K-1} sum |t|;
 *   EXACT    ReLU, max-pool, flatten (both directions): fp32 gives the exact
 *            result, so the value must be bitwise the reference's and the
 *            decision (ReLU sign, arg-max with the first-maximum tie rule)
 *            the same; dropout: the same mask, and x * fl(1/(1-p)) within
 *            2u |y| + 2^-150, bitwise (bound 0) when 1/(1-p) is a power of
 *            two, where the scaling is exact;
 *   DERIVED  softmax cross-entropy loss and its logit gradient, Adam's m, v
 *            and parameters: running error bounds of the fp32 formulas in
 *            ops_elem.h, derived below (bounds_loss, bounds_adam);
 *   PROPAGATED evaluation logits: the forward error carried through the
 *            network (bounds_eval_layer).
 * A tensor with no rule is *unchecked* — never *ok*.
 *
 * Inputs are the fp32 values the operation consumed (the audit's isolated
 * mode and free-mode shadow replays feed every engine the same floats; the
 * golden check feeds the golden's recorded inputs), so each bound judges
 * one operation and says nothing about error inherited from earlier ones.
 * Bounds are per element, in double, and are *per side*: each side is
 * within the bound of the exact result; comparing two fp32 sides with each
 * other needs twice the bound.
 *
 * Against the exact MPFR reference (vs_exact != 0) the Adam bounds also
 * cover the rounding of its constants to fp32 (beta1 = 0.9 is not a float;
 * the reference uses the double settings exactly).
 *
 * Not here: comparing (compare.h), deciding verdicts (audit/driver.c,
 * explain.c), I/O.
 */
#ifndef LS_BOUNDS_H
#define LS_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "engines/engine.h"
#include "model/model.h"

typedef enum {
    BOUND_RULE_NONE = 0, /* unchecked */
    BOUND_RULE_DOT,
    BOUND_RULE_SUM,
    BOUND_RULE_EXACT,
    BOUND_RULE_DERIVED,
    BOUND_RULE_PROPAGATED,
} bound_rule;

const char *bound_rule_name(bound_rule r); /* "dot", "sum", "exact", ... "unchecked" */

/* Which rule covers tensor (kind, layer) of model m; for GRADS/PARAMS/ADAM_*
 * `layer` is the model tensor index (is_bias decides dot vs sum); for LOSS
 * layer is ignored.  desc (may be NULL) gets one line, e.g. "gamma_K
 * dot product, K = 145" or "exact: bitwise + same arg-max (first max wins)". */
bound_rule bounds_rule_of(const model *m, tensor_kind kind, int layer, char *desc, size_t cap);

/* Forward output of layer l, n samples: bound (n, out_size) from the fp32
 * input x (n, in_size) and the flat fp32 parameters pf.  EXACT layers get 0
 * (dropout: 2u |x| / (1-p) + 2^-150, or 0 when the scale is a power of two). */
void bounds_forward(double *bound, const model *m, int l, const float *pf, const float *x, size_t n);

/* DACT[l-1] from DACT[l] = dy (n, out_size) through layer l: bound
 * (n, in_size).  EXACT layers get 0 (dropout: 2u |dy| / (1-p)). */
void bounds_backward_data(double *bound, const model *m, int l, const float *pf, const float *dy, size_t n);

/* Weight and bias gradients of layer l (conv or dense) from its input x and
 * dy: bound_w (the weight tensor's numel), bound_b (the bias's). */
void bounds_backward_weights(double *bound_w, double *bound_b, const model *m, int l, const float *x,
                             const float *dy, size_t n);

/* Softmax cross-entropy from logits z (n, C) and labels y: the batch-mean
 * loss and every element of its gradient dz (n, C).  LS_ENOMEM or 0. */
int bounds_loss(const float *z, const int32_t *y, size_t n, int C, double *bound_loss, double *bound_dz);

/* Adam per element from the state the step started from (p, m, v), the
 * gradient g and the fp32 scalars every engine receives: bounds on the new
 * p, m, v.  vs_exact: the other side evaluates Adam exactly from the double
 * settings (the MPFR reference), so the fp32 constants' own rounding counts. */
void bounds_adam(const float *p, const float *m, const float *v, const float *g, size_t n, const adam_scalars *a,
                 int vs_exact, double *bp, double *bm, double *bv);

/* Evaluation pass: forward error propagated through layer l, err_out from
 * err_in (per element of the layer's input), the engine's own input x and
 * the parameters pf.  errf (n * in_size floats) and tmp (n * out_size
 * doubles) are scratch. */
void bounds_eval_layer(const model *m, int l, const float *pf, const float *x, const double *err_in, double *err_out,
                       float *errf, double *tmp, size_t n);

#endif

/* ---- every-step checksum relations (engines/checksums.h) ----------------
 * A relation sums P outputs of one conv/dense operation and compares the
 * sum with the same linear map applied to summed inputs, both in double
 * from the engine's own fp32 tensors.  bounds_ck_shape gives, for layer l
 * and phase (CK_FWD .. CK_BWD_B) at batch n, the K of the per-element rule
 * the relation's outputs obey (bounds_rule_of's) and P, the outputs each
 * relation sums; 0 when the layer has no such relation.  bounds_ck_tol
 * turns the relation's A (the same sum in absolute values) and Y (sum of
 * |outputs|) into the residual's tolerance; u_in > 0 for an engine that
 * declares its operands rounded to a narrower format (TF32 2^-10, bf16
 * 2^-8): the fp32 tolerance times lowp_bound_factor(K, u_in). */
int bounds_ck_shape(const model *m, int l, int phase, size_t n, size_t *K, size_t *P, int *is_sum);
double bounds_ck_tol(size_t K, size_t P, int is_sum, double A, double Y, double u_in);
