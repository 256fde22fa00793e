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
 *            ops_elem.h, derived below (bounds_loss, bounds_adam); where
 *            Adam's fp32 v' overflows, an exactness rule instead
 *            (bounds_adam_range);
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
 * (n, in_size).  EXACT layers get 0 (dropout: 2u |dy| / (1-p)).  x (n,
 * in_size): the layer's forward input, which relu's and max-pool's backward
 * read (a NaN there, for relu -inf too: no information, +inf); NULL when not known (then only
 * dy's non-finite values are seen). */
void bounds_backward_data(double *bound, const model *m, int l, const float *pf, const float *x, const float *dy,
                          size_t n);

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

/* fp32's range in Adam (derived at bounds_adam): the elements whose fp32
 * v' = fl(fl(b2 v) + fl(omb2 fl(g g))) is +inf.  There bounds_adam's p'
 * and v' bounds are 0 and the rule is exact: p' and v' must be what
 * ops_adam_elem produces in fp32 (v' = +inf, p' = p for a finite m').
 * ovf[i] = 1 marks them, want_p/want_v get ops_adam_elem's results for
 * every element; returns how many are marked. */
size_t bounds_adam_range(const float *p, const float *m, const float *v, const float *g, size_t n,
                         const adam_scalars *a, unsigned char *ovf, float *want_p, float *want_v);
/* Where ovf[i]: ref[i] = want[i] (what fp32 must produce, replacing an
 * exact reference's value) and bound[i] = 0.  Returns how many. */
size_t bounds_range_apply(double *ref, double *bound, const unsigned char *ovf, const float *want, size_t n);
/* fp32's range in a dot product or sum: bound[i] = g S_i (g = gamma of
 * the reduction, S_i its sum of |terms|) becomes +INFINITY, no
 * information, where a legal fp32 evaluation may overflow: S_i (1 + g) >=
 * 2^128 (1 - 2^-25), or an operand was non-finite (the bound inf or NaN).
 * bounds_forward / _backward_data / _backward_weights apply it; compare.c
 * counts such elements as not judged.  Returns how many it marked. */
size_t bounds_range_unbound(double *bound, size_t cnt, double g);

/* Evaluation pass: forward error propagated through layer l, err_out from
 * err_in (per element of the layer's input), the engine's own input x and
 * the parameters pf.  errf (n * in_size floats) and tmp (n * out_size
 * doubles) are scratch. */
void bounds_eval_layer(const model *m, int l, const float *pf, const float *x, const double *err_in, double *err_out,
                       float *errf, double *tmp, size_t n);

/* ---- the sharper, probabilistic tier (issue 24) ------------------------
 * The bounds above are proven worst cases: exceeding one is a PROBLEM.  In
 * the long reductions they are loose by sqrt(K) and more, so a fault can
 * hide under them.  The second tier models the rounding errors as Higham
 * & Mary (SIAM J. Sci. Comput. 41(5), 2019) do: each rounding's relative
 * error delta is independent of the others and mean-zero (|delta| <= u).
 * Then for a reduction of n roundings per term (DOT: K products and K-1
 * additions, any order, FMA or not; SUM: K-1 additions)
 *   |err| <= gamma~_n(lambda) sum |a||b|,
 *   gamma~_n(lambda) = exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1,
 * failing with probability <= 2 n exp(-lambda^2 (1-u)^2 / 2) per element
 * (their Theorem 4.6 with the union bound over the n theta's).
 * sharp bound = bounds_sharp_factor(rule, K) x worst-case bound, where
 * factor = min(1, gamma~_n(lambda) / gamma_n); the same factor scales the
 * underflow term K 2^-149: the K subnormal roundings are mean-zero and
 * bounded by 2^-150, so Hoeffding gives lambda sqrt(K) 2^-150 with the same
 * probability, which the scaled term covers.
 * lambda is chosen per K so that the per-element false-alarm probability
 * is BOUNDS_SHARP_ALPHA_ELEM = BOUNDS_SHARP_ALPHA_RUN / BOUNDS_SHARP_RUN_ELEMS:
 *   lambda(K) = sqrt(2 ln(2 K / alpha_elem)) / (1 - u),
 * 8.9 at K = 10, 9.7 at K = 1e4, 10.1 at K = 1e6.  The run count assumed,
 * 1e10 element checks (elements x checked steps x tensors x engines), is
 * ~100 times the main job's (make run: ~1.2e6 elements per step and
 * engine x ~12 checked steps x 5 engines ~ 7e7), so a whole run of the
 * main job false-alarms with probability <= 1e-6 on this tier.
 * The tiers coincide (factor 1) where lambda^2 >= n, i.e. K <~ 90 (conv1
 * forward, fc2 backward-data, small bias sums), and for the few-operation
 * rules: DERIVED (loss, Adam: 2..7 roundings per value, where
 * lambda sqrt(n) u > n u) keeps its worst case, EXACT stays bitwise,
 * PROPAGATED (evaluation) stays worst case (not a single reduction).
 * The model is an assumption, not a theorem about a given engine: exceeding
 * this tier is SUSPECT ("beyond what fp32 rounding does in practice, within
 * what it could do in the worst case"), never PROBLEM. */
#define BOUNDS_SHARP_ALPHA_RUN 1e-6
#define BOUNDS_SHARP_RUN_ELEMS 1e10
#define BOUNDS_SHARP_ALPHA_ELEM (BOUNDS_SHARP_ALPHA_RUN / BOUNDS_SHARP_RUN_ELEMS)
/* The aggregate tests (checks/rounding_tests.h): per tensor, per check,
 * false-alarm probability; 1e4 tests per run assumed (~40 reduction
 * tensors x 2 tests x ~12 checked steps x 5 engines = 4.8e3). */
#define BOUNDS_SHARP_ALPHA_TEST 1e-10

/* The number of rounded terms K of rule r for tensor (kind, idx) of model
 * m at batch n: DOT forward in_c k k + 1 (dense in_c + 1), backward-data
 * out_c k k (dense out_c), backward-weights n out_h out_w (dense n); SUM n
 * out_h out_w (dense n) terms.  idx as in bounds_rule_of.  0 for the other
 * rules (no reduction). */
size_t bounds_K_of(const model *m, tensor_kind kind, int idx, size_t n);
double bounds_sharp_lambda(size_t K);
/* sharp = factor x worst (1 for EXACT, DERIVED, PROPAGATED, NONE, K < 2). */
double bounds_sharp_factor(bound_rule r, size_t K);
/* The per-element probability that independent mean-zero rounding errors
 * exceed the sharp bound: 2 n exp(-lambda^2 (1-u)^2 / 2) (0 when the tiers
 * coincide: then the worst case is proven). */
double bounds_sharp_alarm(bound_rule r, size_t K);
/* sharp[i] = factor x worst[i], i < n (sharp == worst allowed). */
void bounds_sharpen(double *sharp, const double *worst, size_t n, bound_rule r, size_t K);
/* sigma = sd_factor x worst: a bound on the root-mean-square error of an
 * element under the same model, E[err^2] <= u^2 sum_k s_k^2 over the
 * n_r roundings (each |s_k| <= S (1 + gamma_K)):
 *   sigma = sqrt(n_r) u (1 + gamma_n) S, S = worst / gamma_n,
 * n_r = 2K - 1 for DOT (K products, K - 1 sums), K - 1 for SUM.  0 for
 * the rules without an aggregate model (the few-operation DERIVED rules
 * carry systematic terms: the exact reference's 0.9 is not fl(0.9)). */
double bounds_sd_factor(bound_rule r, size_t K);
/* A weight or bias gradient of a batch with duplicate samples (groups of
 * G_g equal images with equal labels): rho2 = sum_g G_g^2 / n (>= 1; 1: no
 * two alike) widens both factors as if the reduction made n_r rho2
 * roundings (derived in bounds.c: the copies' roundings may correlate).
 * rho2 <= 1 gives bounds_sharp_factor and bounds_sd_factor. */
double bounds_sharp_factor_grouped(bound_rule r, size_t K, double rho2);
double bounds_sd_factor_grouped(bound_rule r, size_t K, double rho2);
/* rho2 of a batch: n images of `per` floats, labels y (NULL: images only). */
double bounds_dup_rho2(const float *x, const int32_t *y, size_t n, size_t per);
/* A batch's groups of equal samples: rho2 = sum_g G_g^2 / n and gmax =
 * max_g G_g (both 1 when no two are equal), of equal image and label
 * (rho2, gmax) and of equal image whatever the label (rho2_x, gmax_x). */
typedef struct {
    double rho2, gmax, rho2_x, gmax_x;
} bounds_dups;
void bounds_dup_groups(const float *x, const int32_t *y, size_t n, size_t per, bounds_dups *d);
/* The output channel of element i of tensor (kind, idx) is (i / *cdiv) %
 * *cmod (NCHW activations and their gradients: the channel; (O, ...)
 * weights and their gradients: the output row): the clusters of the sign
 * tests' robust variance (rounding_tests.h).  *cmod 0 for other tensors. */
void bounds_cluster_of(const model *m, tensor_kind kind, int idx, size_t *cdiv, size_t *cmod);

/* ---- every-step checksum relations (engines/checksums.h) ----------------
 * A relation sums P outputs of one conv/dense operation and compares the
 * sum with the same linear map applied to summed inputs, both in double
 * from the engine's own fp32 tensors.  bounds_ck_shape gives, for layer l
 * and phase (CK_FWD .. CK_BWD_B, a dense layer's per-sample CK_FWD_PS,
 * CK_BWD_DATA_PS, a conv's position-weighted CK_FWD_PW, CK_BWD_DATA_PW, the
 * index-weighted backward-weights CK_BWD_W_PW of both, a conv's
 * alternating CK_FWD_RA, CK_BWD_DATA_RA, CK_FWD_CA, CK_BWD_DATA_CA:
 * weights +-1, so the plain relation's K and P; a dense layer's
 * zero-element CK_BWD_W_Z: one element, K = n, P = 1) at batch n, the K of the
 * per-element rule
 * the relation's outputs obey (bounds_rule_of's) and P, the outputs each
 * relation sums; 0 when the layer has no such relation.  bounds_ck_tol
 * turns the relation's A (the same sum in absolute values) and Y (sum of
 * |outputs|) into the residual's tolerance; u_in > 0 for an engine that
 * declares its operands rounded to a narrower format (TF32 2^-10, bf16
 * 2^-8): the fp32 tolerance times lowp_bound_factor(K, u_in). */
int bounds_ck_shape(const model *m, int l, int phase, size_t n, size_t *K, size_t *P, int *is_sum);
double bounds_ck_tol(size_t K, size_t P, int is_sum, double A, double Y, double u_in);
/* The sharper tier of a relation (the derivation is in bounds.c): with S
 * an upper bound on the largest output's sum of |terms|, the residual
 * exceeds lambda u (1 + gamma) sqrt(n_r S A) (+ the same underflow and
 * double terms) with probability <= bounds_ck_sharp_alarm() under
 * independent mean-zero roundings; never above bounds_ck_tol.  u_in > 0:
 * the worst case (operand rounding modes such as truncation are not
 * mean-zero). */
double bounds_ck_sharp_tol(size_t K, size_t P, int is_sum, double A, double Y, double S, double u_in);
/* Both tiers for many relations of one kind: prep once per (K, P, is_sum,
 * u_in), then tols per relation (the same values as the two above). */
typedef struct {
    double ga, under, dbl, sa, sunder;
    double eta_u, eta_n; /* the absolute operand-rounding term (bounds_ck_lowp_abs); 0 for fp32 */
} bounds_ck_coef;
void bounds_ck_prep(size_t K, size_t P, int is_sum, double u_in, bounds_ck_coef *c);
void bounds_ck_tols(const bounds_ck_coef *c, double A, double Y, double S, double *worst, double *sharp);
/* Duplicate samples in a relation (derived in bounds.c): where the batch
 * runs in relation (layer l, phase) — its terms (backward-weights and
 * bias-gradient relations), its outputs (a dense layer's backward-data
 * relations over the batch; its forward's, grouped by image only) or
 * neither — and the relation's
 * S (its fourth field) widened for the batch's groups d (NULL, or rho2 <=
 * 1: S itself, bit for bit), to be passed to bounds_ck_tols in its place. */
enum { BOUNDS_CK_BATCH_NONE = 0, BOUNDS_CK_BATCH_TERMS = 1, BOUNDS_CK_BATCH_OUTPUTS = 2, BOUNDS_CK_BATCH_OUTPUTS_X = 3 };
int bounds_ck_batch_axis(const model *m, int l, int phase);
double bounds_ck_dup_s(int axis, size_t K, int is_sum, size_t n, double S, double A, const bounds_dups *d);
/* Rounding an fp32 subnormal operand to TF32 or bf16, or flushing it to
 * zero, is an absolute error eta (bounds_lowp_eta: 2^-136 for TF32, 2^-126
 * for bf16; derivation in bounds.c), which the relative term u_in A does
 * not cover.  The term to add to both tiers of a relation whose terms'
 * operands a, b have sum over all terms (weighted as A is) of |a| + |b|
 * at most M:  1.01 (eta (1 + u_in) M + P K eta^2);
 * exactly 0 when u_in = 0 (fp32 operands are not rounded) or M = 0. */
double bounds_lowp_eta(double u_in);
double bounds_ck_lowp_abs(const bounds_ck_coef *c, double M);
double bounds_ck_sharp_lambda(void);
double bounds_ck_sharp_alarm(void);

#endif
