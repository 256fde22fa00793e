/*
 * bounds.c — per-operation a-priori fp32 bounds and exactness rules
 * (bounds.h).  The dot-product bounds themselves are compare.h's; this file
 * dispatches on the layer kind, and derives the bounds of the operations
 * that are not dot products: softmax cross-entropy, Adam, dropout, and the
 * evaluation pass's propagated error.
 *
 * The model throughout: fl(a op b) = (a op b)(1 + d), |d| <= u = 2^-24, for
 * + - * / and sqrt (IEEE, correctly rounded); exp and log within the ULPs
 * stated where they are used.  Terms of order u^2 are covered by a 1%
 * margin; an absolute 2^-140 covers subnormal results, where relative error
 * models fail (an fp32 subnormal step is 2^-149).
 *
 * Not here: comparing, verdicts, I/O.
 */
#include "checks/bounds.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/compare.h"
#include "base/adam_bound.h"
#include "base/lowp.h"
#include "base/ops_elem.h"
#include "base/util.h"

/* The range rule below evaluates ops_adam_elem in float and trusts its
 * bits: that needs float arithmetic done in float (no x87 excess range,
 * where g*g would not overflow). */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "bounds.c needs FLT_EVAL_METHOD == 0 (IEEE binary32 arithmetic for float)"
#endif

#define U32 0x1p-24 /* fp32 unit roundoff */

const char *bound_rule_name(bound_rule r) {
    switch (r) {
    case BOUND_RULE_DOT: return "dot";
    case BOUND_RULE_SUM: return "sum";
    case BOUND_RULE_EXACT: return "exact";
    case BOUND_RULE_DERIVED: return "derived";
    case BOUND_RULE_PROPAGATED: return "propagated";
    default: return "unchecked";
    }
}

static void say(char *desc, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *desc, size_t cap, const char *fmt, ...) {
    if (!desc || !cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, cap, fmt, ap);
    va_end(ap);
}

/* The rule for the output of layer l going forward (ACT[l]) or for the
 * input gradient it produces going backward (DACT[l-1]). */
static bound_rule layer_rule(const layer *ly, int backward, char *desc, size_t cap) {
    switch (ly->kind) {
    case LAYER_CONV:
        if (backward) say(desc, cap, "gamma_K dot product (backward-data), K = %d", ly->out_c * ly->k * ly->k);
        else say(desc, cap, "gamma_K dot product + bias, K = %d", ly->in_c * ly->k * ly->k + 1);
        return BOUND_RULE_DOT;
    case LAYER_DENSE:
        if (backward) say(desc, cap, "gamma_K dot product (backward-data), K = %d", ly->out_c);
        else say(desc, cap, "gamma_K dot product + bias, K = %d", ly->in_c + 1);
        return BOUND_RULE_DOT;
    case LAYER_RELU:
        say(desc, cap, "exact: bitwise equal, same sign decisions (relu(x) = x > 0 ? x : +0)");
        return BOUND_RULE_EXACT;
    case LAYER_MAXPOOL:
        say(desc, cap, "exact: bitwise equal, same arg-max (first maximum wins)");
        return BOUND_RULE_EXACT;
    case LAYER_FLATTEN: say(desc, cap, "exact: bitwise equal (a copy)"); return BOUND_RULE_EXACT;
    case LAYER_DROPOUT:
        say(desc, cap, "exact mask; x * fl(1/(1-p)) within 2u |y|");
        return BOUND_RULE_EXACT;
    }
    say(desc, cap, "no rule");
    return BOUND_RULE_NONE;
}

bound_rule bounds_rule_of(const model *m, tensor_kind kind, int layer, char *desc, size_t cap) {
    int L = m->n_layers;
    switch (kind) {
    case TENSOR_ACT:
        if (layer < 0 || layer >= L) break;
        return layer_rule(&m->layers[layer], 0, desc, cap);
    case TENSOR_DACT:
        if (layer < 0 || layer >= L) break;
        if (layer == L - 1) {
            say(desc, cap, "derived: softmax cross-entropy gradient (running error bound)");
            return BOUND_RULE_DERIVED;
        }
        return layer_rule(&m->layers[layer + 1], 1, desc, cap);
    case TENSOR_LOSS: say(desc, cap, "derived: softmax cross-entropy (running error bound)"); return BOUND_RULE_DERIVED;
    case TENSOR_GRADS:
        if (layer < 0 || layer >= m->n_tensors) break;
        if (m->tensors[layer].is_bias) {
            say(desc, cap, "gamma_{K-1} sum, K = batch x output positions");
            return BOUND_RULE_SUM;
        }
        say(desc, cap, "gamma_K dot product (backward-weights), K = batch x output positions");
        return BOUND_RULE_DOT;
    case TENSOR_PARAMS:
    case TENSOR_ADAM_M:
    case TENSOR_ADAM_V:
        if (layer < 0 || layer >= m->n_tensors) break;
        say(desc, cap, "derived: Adam's fp32 formula (running error bound)");
        return BOUND_RULE_DERIVED;
    case TENSOR_INPUT: say(desc, cap, "exact: the same fp32 batch"); return BOUND_RULE_EXACT;
    }
    say(desc, cap, "no rule");
    return BOUND_RULE_NONE;
}

/* Dropout scales by s = fl(1/(1-p)) (the engines round 1/(1-p) in double,
 * then to fp32: relative error <= u (1 + 2^-29)) and the product is rounded
 * once more, so |fl(x s) - x/(1-p)| <= (2u + u^2) |x|/(1-p); (1 + 2^-20)
 * covers the u^2 term and the double rounding.
 * Two cases the relative model misses (found by tests/test_bounds.c):
 *   - 1/(1-p) a power of two 2^k (p = 0, 0.5, 0.75, ...): s is exact and
 *     x 2^k (k >= 0) is exact, subnormal x included: the rule is bitwise,
 *     bound 0 — an engine one ULP off is caught, not excused by 2u |y|;
 *   - a result in the subnormal range: the product's rounding is absolute,
 *     up to half the subnormal step 2^-150, whatever |x|; a nonzero x gets
 *     that absolute term (a zero x gives an exact 0, bound 0).
 * A dropped element is 0 on both sides when the masks agree; a mask
 * mismatch errs by |x|/(1-p), far over. */
static void dropout_bound(double *bound, const float *x, size_t cnt, float p) {
    double omp = 1.0 - (double)p; /* exact: p is fp32 in [0, 1) */
    int e;
    if (frexp(omp, &e) == 0.5) {
        memset(bound, 0, cnt * sizeof *bound);
        return;
    }
    double scale = 1.0 / omp;
    double f = 2 * U32 * (1 + 0x1p-20) * scale;
    for (size_t i = 0; i < cnt; i++) bound[i] = x[i] != 0 ? f * fabs((double)x[i]) + 0x1p-150 : 0.0;
}

/* Products that underflow.  The gamma_K bound assumes fl(a b) = a b (1 + d),
 * which fails when |a b| < 2^-126: the product is then rounded to the
 * subnormal grid, an absolute error up to 2^-150 with no relative bound
 * (tests/test_bounds.c measured ratio ~900 with products near 2^-150).
 * Sums never underflow with error (two fp32 values whose exact sum is
 * below 2^-126 are multiples of 2^-149 and so is the sum: exact), and an
 * FMA rounds once, with the same absolute 2^-150 when its result is
 * subnormal.  So each of the K terms adds at most 2^-150, carried through
 * at most K-1 later additions, each a factor (1 + u): in all
 * K 2^-150 (1 + gamma_K) <= K 2^-149 (K u < 1/2).  Only where
 * sum |a||b| > 0, i.e. bound > 0: an all-zero dot product is exactly 0
 * and keeps bound 0 (any error is an infinite ratio). */
static void add_underflow(double *bound, size_t cnt, size_t K) {
    double a = (double)K * 0x1p-149;
    for (size_t i = 0; i < cnt; i++)
        if (bound[i] > 0) bound[i] += a;
}

/* fp32's range in a dot product or a sum (found by the false-alarm hunt:
 * images x1e30, `--normalize 0,1e-30 --lr 10`, made fc2's exact outputs
 * ~1e40 at an attribution step; every fp32 engine's fc2.act was +-inf and
 * 14 of 640 were a false PROBLEM, ratio inf).  Every bound above is the
 * standard model fl(a op b) = (a op b)(1 + d), which holds only while each
 * product and partial sum stays below fp32's overflow threshold
 * T = 2^128 (1 - 2^-25) (FLT_MAX plus half its ulp: the least |x| that
 * rounds to inf).  For a dot product (or sum) of K terms with
 * S_p = sum |terms|, every computed product and partial sum has magnitude
 * at most (1 + gamma_K) S_p in any order, while the model holds (Higham,
 * 3.1: each partial sum errs by gamma_j of its own |terms|).  So where
 * S_p (1 + gamma_K) < T no intermediate can reach T, no step overflows and
 * the bound stands.  Where S_p (1 + gamma_K) >= T a legal order may
 * overflow: put the positive products first and a partial sum reaches
 * +inf even when the exact result is negative (or finite); +inf - inf is
 * NaN.  There fp32 may legally give +inf, -inf or NaN whatever the exact
 * result, and no finite bound says anything: the bound is +INFINITY (no
 * information; compare.c judges nothing there and counts the element as
 * not judged, never as within).  An operand that is non-finite itself (an
 * input that rounded to inf in fp32, a NaN) makes S_p inf or NaN (0 x inf
 * in double): the same.  The test is on the bound b = fl(g S_p) (g =
 * gamma_K): S_p (1 + g) >= T iff b >= T g / (1 + g).  b carries the
 * double summation's rounding, relative <= K 2^-53 < 2^-30 for any K
 * here (K <= 2^23), so the threshold is lowered by 2^-24 relative: an
 * element within 2^-24 of the edge counts as "may overflow" (never the
 * other way).  g = 0 (a sum of one term: exact, it overflows only if the
 * term is non-finite already) keeps only the non-finite test.  Products
 * of two floats never overflow in double (< 2^256), so S_p is finite for
 * finite operands.  Returns how many elements it marked. */
#define FP32_OVF_T (0x1p128 * (1 - 0x1p-25))
size_t bounds_range_unbound(double *bound, size_t cnt, double g) {
    double lim = g > 0 && isfinite(g) ? FP32_OVF_T * (1 - 0x1p-24) * (g / (1 + g)) : INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++)
        if (!(bound[i] < lim)) {
            bound[i] = INFINITY;
            k++;
        }
    return k;
}

/* The exactness rules (relu, max-pool, dropout) with a non-finite operand
 * (found on the same run: logits +-inf fed to the loss made every dz NaN,
 * and oneDNN's relu and max-pool backward gave NaN where the reference's
 * select gave 0, a false PROBLEM at fc1.dact, conv2.dact, conv1.dact).
 * The rule "bitwise equal" presumes one fp32 result, which holds for
 * finite operands: relu's x > 0 ? x : +0 and a masked product x m (m in
 * {0, 1}) agree on every finite x.  On inf or NaN they do not (inf x 0 =
 * NaN x 0 = NaN against a select's 0; max(NaN, 0) may be NaN or 0 by the
 * operand order; a NaN in a 2x2 window leaves the arg-max to the
 * comparison order), and each is a legal fp32 formulation.  So an output
 * element with a non-finite operand gets bound +INFINITY, no information
 * (counted as not judged), like a dot product that may overflow.  Copies
 * (flatten) stay exact: a copy of inf or NaN is the same class.  relu's
 * and max-pool's backward also read the forward input x: see
 * nan_input_elem and nan_input_pool.
 * elementwise: bound[i] = inf where in[i] is not finite. */
static void nonfinite_elem(double *bound, const float *in, size_t cnt) {
    for (size_t i = 0; i < cnt; i++)
        if (!isfinite(in[i])) bound[i] = INFINITY;
}

/* max-pool 2x2 stride 2 (model.c): forward, an output element with a
 * non-finite input in its window; backward-data, an input-gradient element
 * whose window's dy is non-finite. */
static void nonfinite_pool(double *bound, const float *v, const layer *ly, size_t n, int backward) {
    size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w, OH = (size_t)ly->out_h,
           OW = (size_t)ly->out_w;
    for (size_t nc = 0; nc < n * C; nc++)
        for (size_t i = 0; i < OH; i++)
            for (size_t j = 0; j < OW; j++) {
                size_t w0 = nc * H * W + 2 * i * W + 2 * j, o = nc * OH * OW + i * OW + j;
                size_t win[4] = {w0, w0 + 1, w0 + W, w0 + W + 1};
                if (backward) {
                    if (isfinite(v[o])) continue;
                    for (int t = 0; t < 4; t++) bound[win[t]] = INFINITY;
                } else {
                    for (int t = 0; t < 4; t++)
                        if (!isfinite(v[win[t]])) bound[o] = INFINITY;
                }
            }
}

/* relu's and max-pool's backward with a NaN (relu: or -inf) in the
 * forward input x.  Each decides by a comparison on x, and a comparison
 * with NaN is false both ways, so two legal ways of writing one decision
 * part there: relu's
 * backward as x > 0 ? dy : 0 (oneDNN's s > 0 ? dd : dd * alpha, alpha =
 * 0) passes 0 where x is NaN, as x <= 0 ? 0 : dy (PyTorch's
 * threshold_backward) passes dy; max-pool's arg-max scan as v > best takes
 * a NaN only as the window's first element, as !(v <= best) takes the
 * first NaN anywhere (and then any element after it), so which of the
 * window's four input-gradient elements gets dy depends on how the scan is
 * written.  Both are fp32 code of the same operation; the exactness rule
 * presumes one result, so those elements get +INFINITY (no information:
 * counted as not judged, never as within).  relu's backward may decide
 * on its own forward output y instead of x (y > 0 ? dy : 0), and for
 * x = -inf the forward rule above admits y = +0 (a select) and y = NaN (a
 * masked product, -inf x 0): where x is -inf the decision parts the same
 * way.  +inf stays judged (y = +inf both ways, and +inf > 0 whichever is
 * read), as does +-inf in a max-pool window: it compares like a finite
 * value, a window's ties (inf with inf) are broken as finite ties are (the
 * first max wins, bounds.h), so every scan finds the same arg-max. */
static void nan_input_elem(double *bound, const float *x, size_t cnt) {
    for (size_t i = 0; i < cnt; i++)
        if (isnan(x[i]) || x[i] == -INFINITY) bound[i] = INFINITY;
}

static void nan_input_pool(double *bound, const float *x, const layer *ly, size_t n) {
    size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w, OH = (size_t)ly->out_h,
           OW = (size_t)ly->out_w;
    for (size_t nc = 0; nc < n * C; nc++)
        for (size_t i = 0; i < OH; i++)
            for (size_t j = 0; j < OW; j++) {
                size_t w0 = nc * H * W + 2 * i * W + 2 * j;
                size_t win[4] = {w0, w0 + 1, w0 + W, w0 + W + 1};
                int nan = 0;
                for (int t = 0; t < 4; t++) nan |= isnan(x[win[t]]);
                if (nan)
                    for (int t = 0; t < 4; t++) bound[win[t]] = INFINITY;
            }
}

void bounds_forward(double *bound, const model *m, int l, const float *pf, const float *x, size_t n) {
    const layer *ly = &m->layers[l];
    size_t out = n * layer_out_size(ly);
    if (ly->kind == LAYER_CONV) {
        const model_tensor *w = &m->tensors[ly->w_tensor], *b = &m->tensors[ly->b_tensor];
        compare_bound_conv_fwd(bound, x, pf + w->offset, pf + b->offset, n, ly->in_c, ly->in_h, ly->in_w, ly->out_c,
                               ly->k, ly->pad);
        bounds_range_unbound(bound, out, compare_gamma((size_t)ly->in_c * ly->k * ly->k + 1));
        add_underflow(bound, out, (size_t)ly->in_c * ly->k * ly->k + 1);
    } else if (ly->kind == LAYER_DENSE) {
        const model_tensor *w = &m->tensors[ly->w_tensor], *b = &m->tensors[ly->b_tensor];
        compare_bound_dense_fwd(bound, x, pf + w->offset, pf + b->offset, n, ly->in_c, ly->out_c);
        bounds_range_unbound(bound, out, compare_gamma((size_t)ly->in_c + 1));
        add_underflow(bound, out, (size_t)ly->in_c + 1);
    } else if (ly->kind == LAYER_DROPOUT) {
        dropout_bound(bound, x, out, ly->p);
        nonfinite_elem(bound, x, out);
    } else {
        memset(bound, 0, out * sizeof *bound); /* relu, max-pool, flatten: exact in fp32 */
        if (ly->kind == LAYER_RELU) nonfinite_elem(bound, x, out);
        else if (ly->kind == LAYER_MAXPOOL) nonfinite_pool(bound, x, ly, n, 0);
    }
}

void bounds_backward_data(double *bound, const model *m, int l, const float *pf, const float *x, const float *dy,
                          size_t n) {
    const layer *ly = &m->layers[l];
    size_t ni = n * layer_in_size(ly);
    if (ly->kind == LAYER_CONV) {
        compare_bound_conv_bwd_data(bound, dy, pf + m->tensors[ly->w_tensor].offset, n, ly->in_c, ly->in_h, ly->in_w,
                                    ly->out_c, ly->k, ly->pad);
        bounds_range_unbound(bound, ni, compare_gamma((size_t)ly->out_c * ly->k * ly->k));
        add_underflow(bound, ni, (size_t)ly->out_c * ly->k * ly->k);
    } else if (ly->kind == LAYER_DENSE) {
        compare_bound_dense_bwd_data(bound, dy, pf + m->tensors[ly->w_tensor].offset, n, ly->in_c, ly->out_c);
        bounds_range_unbound(bound, ni, compare_gamma((size_t)ly->out_c));
        add_underflow(bound, ni, (size_t)ly->out_c);
    } else if (ly->kind == LAYER_DROPOUT) {
        dropout_bound(bound, dy, ni, ly->p); /* same shape both ways */
        nonfinite_elem(bound, dy, ni);
    } else {
        memset(bound, 0, ni * sizeof *bound); /* relu, max-pool, flatten: exact */
        if (ly->kind == LAYER_RELU) {
            nonfinite_elem(bound, dy, ni);
            if (x) nan_input_elem(bound, x, ni);
        } else if (ly->kind == LAYER_MAXPOOL) {
            nonfinite_pool(bound, dy, ly, n, 1);
            if (x) nan_input_pool(bound, x, ly, n);
        }
    }
}

void bounds_backward_weights(double *bound_w, double *bound_b, const model *m, int l, const float *x,
                             const float *dy, size_t n) {
    const layer *ly = &m->layers[l];
    /* the bias gradient is a plain sum (no products): no underflow term */
    if (ly->kind == LAYER_CONV) {
        compare_bound_conv_bwd_weights(bound_w, bound_b, x, dy, n, ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->k,
                                       ly->pad);
        size_t K = n * (size_t)ly->out_h * ly->out_w;
        bounds_range_unbound(bound_w, m->tensors[ly->w_tensor].numel, compare_gamma(K));
        if (bound_b) bounds_range_unbound(bound_b, (size_t)ly->out_c, compare_gamma(K ? K - 1 : 0));
        add_underflow(bound_w, m->tensors[ly->w_tensor].numel, K);
    } else if (ly->kind == LAYER_DENSE) {
        compare_bound_dense_bwd_weights(bound_w, bound_b, x, dy, n, ly->in_c, ly->out_c);
        bounds_range_unbound(bound_w, m->tensors[ly->w_tensor].numel, compare_gamma(n));
        if (bound_b) bounds_range_unbound(bound_b, (size_t)ly->out_c, compare_gamma(n ? n - 1 : 0));
        add_underflow(bound_w, m->tensors[ly->w_tensor].numel, n);
    }
}

/* Softmax cross-entropy from the logits z (n, C) and labels y: per-side
 * bounds on the batch loss and on every dz.  A running error analysis of
 * ops_elem.h's order (max; fl(z_j - mx); exp; a sum; one log; divisions)
 * that also covers any other order and the correctly rounded reference.
 * Per row, a_j = |z_j - mx|, e_j = exp(z_j - mx), u = 2^-24:
 *   fl(z_j - mx) errs by <= u a_j, which exp turns into a relative u a_j;
 *   exp itself: <= 2 ULP = 4u relative (CUDA's expf: 2 ULP; glibc's: < 1);
 *   err(e_j) <= e_j (4u + u a_j)
 *   s = sum e_j (positive terms, any order): err(s) <= sum err(e_j) + gamma_{C-1} s
 *   ls = log s (s >= 1, the max term is exp(0) = 1): err <= 2u |ls| + err(s)/s
 *     (logf: <= 1 ULP = 2u relative)
 *   t = z_y - mx: u |t|;  r = ls - t: u |r| + err(ls) + err(t)
 *   loss = (1/n) sum r (any order, then a division): sum err(r)/n + gamma_n sum|r|/n + u |loss|
 *   p_j = e_j / s: p_j (err(e_j)/e_j + err(s)/s + u);  d = p_j - [j = y]: err(p_j) + u |d|
 *   dz = d * fl(1/n) (or d / n): err(d)/n + 2u |dz|
 * PyTorch's log_softmax orders form p_j = exp(o_j) from a log-probability
 * o_j instead of e_j / s (found by the legal-variant attack: its CPU and
 * CUDA kernels' lse order reached 3.1 of the bound below at logits ~60-100,
 * test_bounds: test_xent way 5), with lse = mx + ls the row's log-sum-exp:
 *   lse order:   o_j = fl(z_j - fl(mx + ls)): err(ls) + u |lse| + u |o_j|,
 *                |o_j| = a_j + ls (z_j <= mx, ls >= 0)
 *   (z - mx) - ls (loss_pytorch_log_softmax): u a_j + err(ls) + u |o_j|
 *   then p_j = exp(o_j): 4u + err(o_j), relative, and err(ls) = 2u ls + err(s)/s:
 *   err(p_j)/p_j <= 4u + u a_j + err(s)/s + 3u ls + u max(a_j, |lse|)
 * against ops_elem's 4u + u a_j + err(s)/s + u (the division): the bound of
 * p_j carries max(u, 3u ls + u max(a_j, |lse|)) in that place.  The row
 * loss -o_y of the same orders: err(ls) + u |r| + u max(a_y, |lse|), where
 * ops_elem's r = ls - t has err(ls) + u |r| + u a_y: u max(a_y, |lse|) in
 * place of u |t| = u a_y.  dz_j = g_j - exp(o_j) g_y (g_y = fl(-1/n)) rounds
 * g_y, the product and the difference: within err(d)/n + 2u |dz| as above.
 * First-order terms only; the O(u^2) rest is covered by the 1% margin. */
int bounds_loss(const float *z, const int32_t *y, size_t n, int C, double *bound_loss, double *bound_dz) {
    double sum_err_r = 0, sum_abs_r = 0, u = U32;
    double *e = malloc(2 * (size_t)C * sizeof *e), *ee = e ? e + C : NULL;
    if (!e) return ls_err(LS_ENOMEM, "out of memory");
    int nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        const float *zr = z + i * C;
        /* a logit +-inf or NaN (fc2's fp32 output beyond fp32's range:
         * bounds_range_unbound): z - mx is inf - inf = NaN in one order,
         * exp(-inf) = 0 in another; no relation to the exact value is left
         * (the running analysis above assumes finite operands).  The row's
         * dz and the batch loss get no information (+inf: not judged) */
        int fin = 1;
        for (int j = 0; j < C; j++) fin &= isfinite(zr[j]) != 0;
        if (!fin) {
            for (int j = 0; j < C; j++) bound_dz[i * C + j] = INFINITY;
            nonfinite = 1;
            continue;
        }
        double mx = zr[0];
        for (int j = 1; j < C; j++) mx = zr[j] > mx ? zr[j] : mx;
        double s = 0, es = 0;
        for (int j = 0; j < C; j++) {
            double a = fabs((double)zr[j] - mx);
            e[j] = exp((double)zr[j] - mx);
            ee[j] = 4 * u + u * a; /* err(e_j) / e_j, kept relative: e_j may be 0 in double */
            s += e[j];
            es += e[j] * ee[j];
        }
        es += compare_gamma((size_t)(C > 1 ? C - 1 : 1)) * s;
        double ls = log(s), els = 2 * u * fabs(ls) + es / s, lse = fabs(mx + ls);
        double t = (double)zr[y[i]] - mx, r = ls - t;
        double er = u * fabs(r) + els + u * fmax(fabs(t), lse); /* lse: PyTorch's order (above) */
        sum_err_r += er;
        sum_abs_r += fabs(r);
        for (int j = 0; j < C; j++) {
            double p = e[j] / s;
            /* relative, not ee/e: for z_j - mx < -745 exp() is 0 in double and
             * ee/e was 0/0, a NaN bound (found by tests/test_bounds.c); then
             * p = 0, and the fp32 p_j (0, or subnormal) is within 2^-140 */
            double ep = p * (ee[j] + es / s + fmax(u, 3 * u * fabs(ls) + u * fmax(fabs((double)zr[j] - mx), lse)));
            double d = p - (j == y[i] ? 1.0 : 0.0);
            double ed = ep + u * fabs(d);
            bound_dz[i * C + j] = 1.01 * (ed / (double)n + 2 * u * fabs(d) / (double)n) + 0x1p-140;
        }
    }
    free(e);
    double loss = sum_abs_r / (double)n; /* r >= 0 up to rounding */
    *bound_loss = 1.01 * (sum_err_r / (double)n + compare_gamma(n) * sum_abs_r / (double)n + u * loss) + 0x1p-140;
    if (nonfinite) *bound_loss = INFINITY;
    return 0;
}

/* Adam per element, from the state the step started from (p, m, v), the
 * gradient g and the fp32 scalars every engine receives.
 * ops_elem_adam's order, each line one rounding (u relative):
 *   mn = fl(fl(b1 m) + fl(omb1 g)):        em = 2u (|b1 m| + |omb1 g|)
 *   vn = fl(fl(b2 v) + fl(omb2 fl(g g))):  ev = 3u (|b2 v| + omb2 g^2)
 *   sq = sqrt(vn):     err <= u sq + min(sqrt(ev), ev / (2 sq))   (sqrt is 1/2-Hoelder)
 *   den = sq / bc + eps: err(sq)/bc + u sq/bc + u den
 *   q = mn / den:      em/den + |q| err(den)/den + u |q|
 *   upd = step * q:    step err(q) + u |upd|
 *   p' = p - upd:      err(upd) + u |p'|
 * A correctly rounded engine (fp32cr) errs by u |result| on each stored
 * value, within the same bounds.
 * vs_exact: the exact reference uses the double settings, while fp32
 * engines use each constant rounded once to fp32 (b1 = fl(0.9) etc.):
 * each of b1, omb1, b2, omb2, bc, eps and step is off by <= u relative, one
 * more u on each term it multiplies:
 *   em: 3u (...), ev: 4u (...), err(den) += u sq/bc + u eps, err(upd) += u |upd|.
 * 1% margin for the O(u^2) terms.
 * Underflow (found by tests/test_bounds.c: a subnormal gradient at t = 1
 * gave ratio 2.5): a product or quotient whose result is below 2^-126 is
 * rounded on the subnormal grid, an absolute error up to eta = 2^-150
 * that no relative term covers, and Adam *amplifies* it: m' = omb1 g of a
 * tiny g carries eta, and q = m'/den divides it by den >= eps ~ 1e-8,
 * then step_size multiplies, so the parameter can be off by
 * ~step eta / eps >> 2^-140.  Each rounding that can underflow adds its eta
 * where it happens and the running bound carries it on: m1, m2 (2 eta in
 * em); gg, v2, v1 (3 eta in ev; the sqrt of a nonnegative float never
 * underflows); sq / bc, q, upd (one eta each).  Additions and the final
 * subtraction never underflow with error (their exact result, when
 * subnormal, is representable).  2^-140 absolute stays on every stored
 * value as a margin for the subnormal storage of p', m', v'.
 * Overflow (found by the false-alarm hunt: inputs scaled by 1e20 make
 * |g| > 1.8e19): every relation above is the standard model, which holds
 * only for results within fp32's range.  Where fl(g g) rounds to +inf (g g
 * >= 2^128 - 2^103, FLT_MAX plus half its ulp, round-to-nearest's overflow
 * threshold; for a float g that is |g| >= 2^64 ~ 1.8447e19, since 2^64 (1 -
 * 2^-24) squares to 2^128 - 2^105 + 2^80, which rounds to a finite float),
 * or fl(b2 v) + fl(omb2 gg) does, or v is +inf already, v' is +inf, a
 * value no relative bound reaches from the exact v' (finite: omb2 g^2 <
 * FLT_MAX up to |g| ~ 5.8e20).  Whether it overflows is not a matter of
 * rounding order: ops_adam_elem fixes the order, every line is one IEEE
 * operation, so evaluating it here in float gives the engines' bits.  There fp32 has no
 * rounding error to bound: IEEE decides every later line.  sqrt(+inf) =
 * +inf, +inf / bc + eps = +inf, q = m' / +inf = +-0 for finite m', upd =
 * step * +-0 = +-0, p' = p - +-0 = p (the value; a zero's sign may differ,
 * which the parameter's rule ignores); a non-finite m' (|b1 m + omb1 g| past
 * FLT_MAX) gives q = inf / inf = NaN and p' = NaN.  So these elements get
 * an exactness rule, not a bound: p' and v' must be what ops_adam_elem
 * produces in fp32 from the same inputs (bounds_adam_range), bound 0, the
 * reference's exact value replaced by that one (bounds_range_apply) —
 * the exact reference stays finite and moves p, which is the mathematics,
 * not what fp32 can do.  An engine whose v' stays finite there, or whose
 * parameter moves, differs from the only fp32 result: a PROBLEM.  m' never
 * involves v and keeps its bound; where it overflows itself, the exact
 * reference is still finite and the difference is non-finite against
 * finite, which compare.c counts over any finite bound. */
static int adam_v_overflows(float p, float m, float v, float g, const adam_scalars *a, float *want_p, float *want_v) {
    return ops_adam_v_overflows(p, m, v, g, a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2, a->step_size,
                                a->bc2_sqrt, a->eps, want_p, want_v);
}

size_t bounds_adam_range(const float *p, const float *m, const float *v, const float *g, size_t n,
                         const adam_scalars *a, unsigned char *ovf, float *want_p, float *want_v) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        ovf[i] = (unsigned char)adam_v_overflows(p[i], m[i], v[i], g[i], a, &want_p[i], &want_v[i]);
        k += ovf[i];
    }
    return k;
}

size_t bounds_range_apply(double *ref, double *bound, const unsigned char *ovf, const float *want, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ovf[i]) continue;
        ref[i] = (double)want[i];
        bound[i] = 0.0;
        k++;
    }
    return k;
}

void bounds_adam(const float *p, const float *m, const float *v, const float *g, size_t n, const adam_scalars *a,
                 int vs_exact, double *bp, double *bm, double *bv) {
    /* the per-element body is base/adam_bound.h's (the every-step re-check picks its element by it) */
    for (size_t i = 0; i < n; i++)
        ops_adam_elem_bound(p[i], m[i], v[i], g[i], a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2,
                            a->step_size, a->bc2_sqrt, a->eps, vs_exact, &bp[i], &bm[i], &bv[i]);
}

/* nextafterf(f, +inf) for f >= +0 and below +inf: the next bit pattern
 * (+0 -> 2^-149, FLT_MAX -> +inf), without libm's call (~9% of a
 * two-engine eval's time); anything else goes to nextafterf itself */
static inline float next_up(float f) {
    if (!(f >= 0) || f == INFINITY) return nextafterf(f, INFINITY);
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if (b == 0x80000000u) b = 0; /* -0 >= 0: its next up is +2^-149, as +0's */
    b++;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* fmax without the call: b when a is NaN, a when b is (as fmax); the
 * bounds here are >= +0 (never -0), so which zero is not a question */
static inline double max_nan(double a, double b) {
    return (a > b || b != b) ? a : b;
}

/* Forward error propagated through one layer of the eval pass: err_out
 * from err_in (per element of the layer's input), the engine's own input x
 * and the parameters pf.  For y = W x + b computed in fp32 from an input
 * within err_in of the exact one:
 *   |fl(W x~ + b) - (W x + b)| <= |W| err_in + gamma_{K+1} (|W||x~| + |b|),
 * exact in the sense of a bound (not first order).  relu and flatten are
 * 1-Lipschitz elementwise; a 2x2 max is 1-Lipschitz in the max norm of its
 * window; dropout is the identity in evaluation.  Where fp32 may overflow
 * (bounds_range_unbound) err_out is +INFINITY, and it stays so through
 * every later layer (inf x |w| = inf; 0 x inf: +INFINITY, see below): the
 * caller counts such logits as not judged. */
void bounds_eval_layer(const model *m, int l, const float *pf, const float *x, const double *err_in, double *err_out,
                       float *errf, double *tmp, size_t n) {
    const layer *ly = &m->layers[l];
    size_t ni = n * layer_in_size(ly), no = n * layer_out_size(ly);
    if (ly->kind == LAYER_CONV || ly->kind == LAYER_DENSE) {
        for (size_t i = 0; i < ni; i++) {
            float f = (float)err_in[i];
            errf[i] = (double)f < err_in[i] ? next_up(f) : f; /* rounded up */
        }
        const float *w = pf + m->tensors[ly->w_tensor].offset, *b = pf + m->tensors[ly->b_tensor].offset;
        size_t K;
        if (ly->kind == LAYER_CONV) {
            K = (size_t)ly->in_c * ly->k * ly->k;
            compare_bound_conv_fwd(err_out, x, w, b, n, ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->k, ly->pad);
            compare_bound_conv_fwd(tmp, errf, w, NULL, n, ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->k, ly->pad);
        } else {
            K = (size_t)ly->in_c;
            compare_bound_dense_fwd(err_out, x, w, b, n, ly->in_c, ly->out_c);
            compare_bound_dense_fwd(tmp, errf, w, NULL, n, ly->in_c, ly->out_c);
        }
        /* fp32's range (bounds_range_unbound): the rounding term is the
         * forward bound of y = W x~ + b from the engine's own x~, whose
         * standard model holds only while no product or partial sum of
         * this order reaches 2^128 (1 - 2^-25); where sum |W||x~| + |b|
         * times (1 + gamma_{K+1}) may, a legal evaluation may give +-inf or
         * NaN whatever the exact logit: +INFINITY, no information */
        bounds_range_unbound(err_out, no, compare_gamma(K + 1));
        double g = compare_gamma(K);
        for (size_t i = 0; i < no; i++) {
            err_out[i] += (tmp[i] / g) * (1 + 0x1p-40);
            /* an input error of +inf (no information: that input may be
             * +-inf or NaN in a legal fp32 evaluation) times a weight 0 is
             * NaN in double; in fp32 0 x inf is NaN too, so the output has
             * no information either: +INFINITY, never NaN (a NaN bound
             * would read as an infinite ratio, or vanish in fmax) */
            if (err_out[i] != err_out[i]) err_out[i] = INFINITY;
        }
        add_underflow(err_out, no, K + 1); /* products of x~ and W that underflow */
    } else if (ly->kind == LAYER_MAXPOOL) {
        size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w, OH = (size_t)ly->out_h,
               OW = (size_t)ly->out_w;
        for (size_t nc = 0; nc < n * C; nc++)
            for (size_t i = 0; i < OH; i++)
                for (size_t j = 0; j < OW; j++) {
                    const double *e0 = err_in + nc * H * W + 2 * i * W + 2 * j;
                    double mx = max_nan(max_nan(e0[0], e0[1]), max_nan(e0[W], e0[W + 1]));
                    err_out[nc * OH * OW + i * OW + j] = mx;
                }
    } else {
        memcpy(err_out, err_in, no * sizeof *err_out);
    }
}

/* ---- the sharper tier (bounds.h derives it) ---------------------------- */

size_t bounds_K_of(const model *m, tensor_kind kind, int idx, size_t n) {
    int L = m->n_layers;
    if ((kind == TENSOR_ACT || kind == TENSOR_DACT) && (idx < 0 || idx >= L)) return 0;
    if (kind == TENSOR_ACT) {
        const layer *ly = &m->layers[idx];
        if (ly->kind == LAYER_CONV) return (size_t)ly->in_c * ly->k * ly->k + 1;
        if (ly->kind == LAYER_DENSE) return (size_t)ly->in_c + 1;
        return 0;
    }
    if (kind == TENSOR_DACT) {
        if (idx == L - 1) return 0; /* the loss gradient: derived */
        const layer *ly = &m->layers[idx + 1];
        if (ly->kind == LAYER_CONV) return (size_t)ly->out_c * ly->k * ly->k;
        if (ly->kind == LAYER_DENSE) return (size_t)ly->out_c;
        return 0;
    }
    if (kind == TENSOR_GRADS) {
        if (idx < 0 || idx >= m->n_tensors) return 0;
        const layer *ly = &m->layers[m->tensors[idx].layer];
        if (ly->kind == LAYER_CONV) return n * (size_t)ly->out_h * ly->out_w;
        if (ly->kind == LAYER_DENSE) return n;
    }
    return 0;
}

double bounds_sharp_lambda(size_t K) {
    double k = K > 1 ? (double)K : 1.0;
    return sqrt(2 * log(2 * k / BOUNDS_SHARP_ALPHA_ELEM)) / (1 - U32);
}

/* n, the gamma index of the rule's worst case: gamma_K for DOT,
 * gamma_{K-1} for SUM; 0 when the rule is not a reduction. */
static size_t gamma_n(bound_rule r, size_t K) {
    if (r == BOUND_RULE_DOT) return K;
    if (r == BOUND_RULE_SUM) return K > 1 ? K - 1 : 0;
    return 0;
}

/* gamma~_n(lambda) / gamma_n, at most 1; expm1 keeps the small argument's
 * digits. */
static double sharp_ratio(size_t n, double lambda) {
    if (n < 2) return 1.0;
    double g = compare_gamma(n);
    if (!isfinite(g)) return 1.0; /* K u >= 1: no worst case either */
    double gt = expm1(lambda * sqrt((double)n) * U32 + (double)n * U32 * U32 / (1 - U32));
    return gt < g ? gt / g : 1.0;
}

double bounds_sharp_factor(bound_rule r, size_t K) { return bounds_sharp_factor_grouped(r, K, 1.0); }

/* Duplicate samples.  A weight or bias gradient element sums K terms over
 * the batch (dense: one a sample; conv: out_h out_w a sample).  Where the
 * batch holds G_g copies of one sample (same image, same label: every
 * layer's values of the copies are equal, dropout aside), each term comes
 * G_g times, and so does every rounding made on it: the products' errors
 * are identical, and the additions that fold the copies in see equal terms
 * against a running sum, which is the textbook case of correlated roundings
 * (a serial fp32 sum of n equal terms errs by ~n^2 u |t| / 4, not by
 * sqrt(n) n u |t|: measured 63.8 u n|t| at n = 256 over 1568 random t).
 * The model kept: the rounded operations attributable to the copies of
 * one term (its product, the addition that brings it in) form one block
 * whose errors may be fully correlated, |block| <= G_g u S (each <= u S,
 * S = sum |a||b| (1 + gamma)); the blocks are independent and mean-zero.
 * Azuma-Hoeffding over the blocks: |err| <= lambda u S sqrt(sum over
 * blocks c_b^2), and sum c_b^2 = (n_r / n) sum_g G_g^2 u^2 S^2, i.e. n_r
 * times rho2 = sum_g G_g^2 / n (1 when no two samples are equal; n for a
 * batch of one sample repeated, where for a dense gradient, K = n, the
 * bound reaches the worst case and the tiers coincide).  The same holds for
 * the RMS bound: n_r rho2 roundings' worth.  The per-element probability is
 * that of lambda(K): fewer, larger blocks, the same exp(-lambda^2 / 2). */
double bounds_sharp_factor_grouped(bound_rule r, size_t K, double rho2) {
    size_t n = gamma_n(r, K);
    if (!n) return 1.0;
    if (!(rho2 > 1.0)) return sharp_ratio(n, bounds_sharp_lambda(K));
    if (n < 2) return 1.0;
    double g = compare_gamma(n);
    if (!isfinite(g)) return 1.0;
    double gt = expm1(bounds_sharp_lambda(K) * sqrt((double)n * rho2) * U32 + (double)n * U32 * U32 / (1 - U32));
    return gt < g ? gt / g : 1.0;
}

/* The groups of equal samples of a batch of n images of `per` floats:
 * rho2 = sum_g G_g^2 / n (1 when all differ, n when all are one) and gmax
 * = max_g G_g, of equal image bits and label (rho2, gmax) and of equal
 * image bits whatever the label (rho2_x, gmax_x: a forward's copies).  A
 * hash an image, the samples sorted by it, and each run of equal hashes
 * split by comparing its members bit for bit with the run's groups' first
 * members (a hash collision of unequal images makes two groups, never
 * one), then by label. */
typedef struct {
    uint64_t h;
    size_t i;
} dup_key;

static int dup_key_cmp(const void *a, const void *b) {
    const dup_key *p = a, *q = b;
    if (p->h != q->h) return p->h < q->h ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

void bounds_dup_groups(const float *x, const int32_t *y, size_t n, size_t per, bounds_dups *d) {
    d->rho2 = d->gmax = d->rho2_x = d->gmax_x = 1.0;
    if (!x || n < 2) return;
    dup_key *k = malloc(n * sizeof *k);
    size_t *rep = malloc(4 * n * sizeof *rep), *cnt = rep ? rep + n : NULL, *lg = rep ? rep + 2 * n : NULL,
           *lc = rep ? rep + 3 * n : NULL;
    int32_t *ly = malloc(n * sizeof *ly);
    if (!k || !rep || !ly) { /* no memory: the widest grouping, never a false alarm */
        free(k), free(rep), free(ly);
        d->rho2 = d->gmax = d->rho2_x = d->gmax_x = (double)n;
        return;
    }
    for (size_t i = 0; i < n; i++) { /* a word at a time, four lanes (every step's batch) */
        uint64_t v[4] = {1469598103934665603ull, 2, 3, 4};
        for (size_t j = 0; j < per; j++) {
            uint32_t w;
            memcpy(&w, x + i * per + j, sizeof w);
            v[j & 3] = (v[j & 3] ^ w) * 1099511628211ull;
        }
        uint64_t h = 0;
        for (int q = 0; q < 4; q++) h = (h ^ v[q] ^ (v[q] >> 29)) * 0x9E3779B97F4A7C15ull;
        k[i].h = h, k[i].i = i;
    }
    qsort(k, n, sizeof *k, dup_key_cmp);
    double s = 0, gm = 1, sx = 0, gmx = 1; /* sums of integers below 2^53: exact */
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && k[b].h == k[a].h; b++) {}
        size_t ng = 0, nl = 0; /* the run's image groups (rep, cnt) and (image, label) groups (lg, ly, lc) */
        for (size_t r = a; r < b; r++) {
            size_t i = k[r].i, g = 0, l = 0;
            while (g < ng && memcmp(x + rep[g] * per, x + i * per, per * sizeof *x)) g++;
            if (g == ng) rep[ng] = i, cnt[ng++] = 0;
            cnt[g]++;
            int32_t yi = y ? y[i] : 0;
            while (l < nl && !(lg[l] == g && ly[l] == yi)) l++;
            if (l == nl) lg[nl] = g, ly[nl] = yi, lc[nl++] = 0;
            lc[l]++;
        }
        for (size_t g = 0; g < ng; g++) {
            sx += (double)cnt[g] * (double)cnt[g];
            gmx = (double)cnt[g] > gmx ? (double)cnt[g] : gmx;
        }
        for (size_t l = 0; l < nl; l++) {
            s += (double)lc[l] * (double)lc[l];
            gm = (double)lc[l] > gm ? (double)lc[l] : gm;
        }
    }
    free(k), free(rep), free(ly);
    d->rho2 = s / (double)n, d->gmax = gm;
    d->rho2_x = sx / (double)n, d->gmax_x = gmx;
}

double bounds_dup_rho2(const float *x, const int32_t *y, size_t n, size_t per) {
    bounds_dups d;
    bounds_dup_groups(x, y, n, per, &d);
    return d.rho2;
}

double bounds_sharp_alarm(bound_rule r, size_t K) {
    size_t n = gamma_n(r, K);
    if (!n || bounds_sharp_factor(r, K) >= 1.0) return 0.0;
    double l = bounds_sharp_lambda(K) * (1 - U32);
    return fmin(1.0, 2 * (double)n * exp(-l * l / 2));
}

void bounds_sharpen(double *sharp, const double *worst, size_t n, bound_rule r, size_t K) {
    double f = bounds_sharp_factor(r, K);
    for (size_t i = 0; i < n; i++) sharp[i] = f * worst[i];
}

double bounds_sd_factor(bound_rule r, size_t K) { return bounds_sd_factor_grouped(r, K, 1.0); }

/* bounds_sd_factor with duplicate samples: n_r rho2 roundings' worth
 * (bounds_sharp_factor_grouped derives it) */
double bounds_sd_factor_grouped(bound_rule r, size_t K, double rho2) {
    size_t n = gamma_n(r, K);
    if (!n) return 0.0;
    double g = compare_gamma(n);
    if (!isfinite(g)) return 0.0;
    double nr = r == BOUND_RULE_DOT ? 2.0 * (double)K - 1 : (double)K - 1;
    return sqrt(nr * (rho2 > 1.0 ? rho2 : 1.0)) * U32 * (1 + g) / g;
}

void bounds_cluster_of(const model *m, tensor_kind kind, int idx, size_t *cdiv, size_t *cmod) {
    *cdiv = 1;
    *cmod = 0;
    if (kind == TENSOR_ACT || kind == TENSOR_DACT) {
        if (idx < 0 || idx >= m->n_layers) return;
        const layer *ly = &m->layers[idx];
        *cdiv = (size_t)ly->out_h * ly->out_w;
        *cmod = (size_t)ly->out_c;
    } else if (kind == TENSOR_GRADS || kind == TENSOR_PARAMS || kind == TENSOR_ADAM_M || kind == TENSOR_ADAM_V) {
        if (idx < 0 || idx >= m->n_tensors) return;
        const model_tensor *t = &m->tensors[idx];
        const layer *ly = &m->layers[t->layer];
        size_t rows = (size_t)ly->out_c;
        *cmod = rows;
        *cdiv = rows && !t->is_bias ? t->numel / rows : 1;
    }
}

/* ---- every-step checksum relations ----------------------------------------
 * A relation (engines/checksums.c) sums P outputs y^_p of one operation and
 * compares that with the operation's linear map applied to summed inputs:
 *   R = sum_p y^_p - rhs,  rhs = sum_t c_t X_t (+ P b),  X_t = sum of inputs,
 * every sum in double from the engine's own fp32 values.  In exact
 * arithmetic rhs = sum_p y_p, the exact outputs of the engine's inputs
 * (linearity: that is the whole point), so
 *   R_exact = sum_p (y^_p - y_p),  |R_exact| <= sum_p beta_p,
 * with beta_p the per-element rule of bounds_forward / _backward_data /
 * _backward_weights: beta_p = gamma_K S_p + K 2^-149 for a dot product
 * (S_p = sum of |terms| of output p, underflow term of add_underflow),
 * gamma_{K-1} S_p for a bias-gradient sum.  The checksum code accumulates
 * exactly sum_p S_p as A (|c_t| times the sums of |inputs|: the same
 * products, regrouped), so
 *   |R_exact| <= gamma_K A + P K 2^-149       (dot)
 *   |R_exact| <= gamma_{K-1} A                (sum).
 * The double evaluation adds its own rounding.  The plain evaluation (the
 * CUDA kernels, base/checksum_ops.h) has at most P + K + 2 terms on any
 * path (window sums of <= P or K inputs, then a dot of <= K terms, the lhs
 * of P terms), each term a product of at most one fp32 coefficient and
 * one double: gamma^64_{2(P+K)+2} (Y + A), Y = sum |outputs|.  The host's
 * faster evaluation (engines/checksums.c) forms window sums as
 * differences of column prefix sums of a whole plane (or box sums of a
 * channel sum), so each window sum X_t is within (h + w + C + 2k + 8) u64
 * of the plane's (sample's) sum of |inputs| T, first order, not of its own
 * |X_t|; the host adds sum_t |c_t| T to Y for that reason, and h + w + C +
 * 2k + 8 <= 4 (P + K) + 8 for every stride-1 layer (h + w <= oh + ow + 2k
 * <= P + 1 + 2K, C < K), so gamma^64_{8(P+K)+16} (Y + A) covers both
 * evaluations (u64 = 2^-53); the 1% margin covers A's own double
 * rounding.  This term is ~1e-12 of the fp32 term: the judgement is the
 * fp32 bound's.
 * With operands rounded to u_in before the products (TF32, bf16), the
 * per-element bound is lowp_bound_factor(K, u_in) times the fp32 one
 * (base/lowp.h) with S_p of the unrounded operands, which A is.
 * What it detects: one output wrong by f beta_q shifts R by f beta_q, so
 * a single-element fault is seen once f beta_q > sum_p beta_p, i.e.
 * f > (sum_p beta_p) / beta_q ~ P for outputs of similar magnitude (the
 * README's "How sharp the checks are" states P per relation; the full
 * table: tests/EVIDENCE.md, "Every step and every evaluation checked"). */
int bounds_ck_shape(const model *m, int l, int phase, size_t n, size_t *K, size_t *P, int *is_sum) {
    const layer *ly = &m->layers[l];
    size_t kk = (size_t)ly->k * ly->k, pos = (size_t)ly->out_h * ly->out_w;
    *K = *P = 0;
    *is_sum = 0;
    if (ly->kind == LAYER_CONV) {
        switch (phase) {
        /* per (sample, channel); the row- and column-alternating ones (9 to
         * 12) have weights +-1, the random-weighted ones (14, 15) weights
         * of magnitude at most 1 (a[row] b[column]: each output's rounding
         * error enters with |weight| <= 1 and A, Y are summed with the
         * same |weights|): the plain relation's K and P */
        case 0:
        case 9:
        case 11:
        case 14: *K = ly->in_c * kk + 1, *P = pos; break;
        case 1:
        case 10:
        case 12:
        case 15: *K = ly->out_c * kk, *P = (size_t)ly->in_h * ly->in_w; break;
        /* per output channel; each element signed by ck_cw (ck_csum):
         * |weight| = 1, the unsigned sum's K and P */
        case 2:
        case 22: *K = n * pos, *P = ly->in_c * kk; break; /* 22: BWD_W_RND, weights a_c b_t, |.| <= 1 */
        case 3: *K = n * pos, *P = 1, *is_sum = 1; break;
        /* position-weighted: weights 1..P on the P outputs; P here is their
         * sum (the underflow term's count of outputs; the double term's
         * count grows with it, ~3e-10 relative at most) */
        case 6: *K = ly->in_c * kk + 1, *P = pos * (pos + 1) / 2; break;
        case 7: {
            size_t hw = (size_t)ly->in_h * ly->in_w;
            *K = ly->out_c * kk, *P = hw * (hw + 1) / 2;
            break;
        }
        /* index-weighted backward-weights: weights 1..C k k on a filter's
         * gradients; P, their sum, as above */
        case 8: {
            size_t t = ly->in_c * kk;
            *K = n * pos, *P = t * (t + 1) / 2;
            break;
        }
        /* one element of dW (its filter's worst by its zero structure,
         * base/checksum_ops.h's ck_conv_zero_filter): its own dot product
         * of at most n OH OW terms */
        case 13:
        case 17: *K = n * pos, *P = 1; break; /* 17: BWD_W_PEEK, one element re-done, as 13 */
        /* 18, 19: FWD_PEEK, BWD_DATA_PEEK: one output (input-gradient)
         * element re-done, its own dot product (S = A) */
        case 18: *K = ly->in_c * kk + 1, *P = 1; break;
        case 19: *K = ly->out_c * kk, *P = 1; break;
        }
    } else if (ly->kind == LAYER_DENSE) {
        switch (phase) {
        case 0: *K = (size_t)ly->in_c + 1, *P = n; break;  /* per output: over the batch */
        case 1: *K = (size_t)ly->out_c, *P = n; break;     /* per input feature: over the batch */
        case 2:
        case 22: *K = n, *P = (size_t)ly->in_c; break;     /* per output: over the inputs (22: random weights <= 1) */
        case 3: *K = n, *P = 1, *is_sum = 1; break;
        /* per sample; the random-weighted ones (14, 15): |weights| <= 1, as above */
        case 4:
        case 14: *K = (size_t)ly->in_c + 1, *P = (size_t)ly->out_c; break; /* per sample: over the outputs */
        case 5:
        case 15: *K = (size_t)ly->out_c, *P = (size_t)ly->in_c; break;     /* per sample: over the input features */
        /* 20, 21: FWD_DPEEK, BWD_DATA_DPEEK: one output (input-gradient)
         * element of a sample re-done, its own dot product (S = A) */
        case 20: *K = (size_t)ly->in_c + 1, *P = 1; break;
        case 21: *K = (size_t)ly->out_c, *P = 1; break;
        case 8: *K = n, *P = (size_t)ly->in_c * (ly->in_c + 1) / 2; break; /* per output, weights 1..in */
        /* one element of dW (its row's worst by its zero structure,
         * engines/checksums.c's dense_zero): its own dot product of n
         * terms, gamma_n sum |dy x| whatever the order; S = A, the
         * sharper tier of that one dot product */
        case 13:
        case 17: *K = n, *P = 1; break; /* 17: BWD_W_PEEK, as 13 */
        }
    }
    return *K ? 1 : 0;
}

/* The per-relation-kind constants of both tiers (bounds_ck_tols): the
 * same arithmetic as bounds_ck_tol and bounds_ck_sharp_tol, done once per
 * block of relations instead of once per relation. */
void bounds_ck_prep(size_t K, size_t P, int is_sum, double u_in, bounds_ck_coef *c) {
    double g = is_sum ? compare_gamma(K > 1 ? K - 1 : 0) : compare_gamma(K);
    c->ga = g;
    /* rounded operands (base/lowp.c's derivation): g (1 + (2 u + u^2)(1 +
     * g) / g), i.e. lowp_bound_factor of the same K, written as a sum so
     * that a sum of one term (g = gamma_0 = 0: a bias gradient of a batch
     * of one) keeps its operand's rounding, (2 u + u^2) A, instead of 0 x
     * the factor (a bf16 engine's one-sample db was a false PROBLEM at
     * 4.75e11) */
    if (u_in > 0) c->ga = g + (2 * u_in + u_in * u_in) * (1 + g);
    c->under = is_sum ? 0 : (double)P * (double)K * 0x1p-149;
    /* a bf16 engine's dot products run with subnormals flushed: bf16's
     * VDPBF16PS (and AMX's TDPBF16PS) treat denormal inputs as 0 and flush
     * denormal results to 0 whatever MXCSR says (the SDM's description of
     * the instruction).  Each product and each addition whose exact result
     * lies below 2^-126 in magnitude may then become 0, an absolute error
     * below 2^-126 each, 2K - 1 per output (K - 1 for a sum) with their (1
     * + g) growth, where fp32's gradual underflow errs by at most 2^-150 a
     * product and not at all in an addition.  Measured: `--engines
     * reference,cpu:dtype=bf16 --normalize 0,1e36` (products dy x of
     * 1e-41..1e-37 in conv1's backward-weights) was a PROBLEM at 2.31 after
     * the operands' term below; at normal magnitudes the term is nil.  The
     * same class as bounds_lowp_eta's (u_in >= 2^-8): the cpu TF32 twin
     * keeps subnormals (lowp_round_tf32); a TF32 path that flushed (cuda
     * math=tf32, unmeasured there) would need it too. */
    if (u_in >= 0x1p-8)
        c->under = (double)P * (is_sum ? (double)(K > 1 ? K - 1 : 0) : 2.0 * (double)K - 1) * 0x1p-126 * (1 + g);
    /* the absolute part of the operand rounding (bounds_ck_lowp_abs) */
    double eta = bounds_lowp_eta(u_in);
    c->eta_u = eta * (1 + u_in) * (1 + g);
    c->eta_n = (double)P * (double)K * eta * eta * (1 + g);
    double nd = 8.0 * (double)(P + K) + 16, u64 = 0x1p-53;
    c->dbl = nd * u64 / (1 - nd * u64);
    /* the sharper tier (bounds_ck_sharp_tol's derivation); sa = 0: none */
    size_t n = is_sum ? (K > 1 ? K - 1 : 0) : K;
    double gn = compare_gamma(n);
    c->sa = 0;
    c->sunder = c->under;
    if (u_in > 0 || n < 1 || !isfinite(gn)) return;
    double nr = is_sum ? (double)n : 2.0 * (double)K - 1, lam = bounds_ck_sharp_lambda();
    c->sa = lam * U32 * (1 + gn) * sqrt(nr);
    c->sunder = is_sum ? 0 : sharp_ratio(n, lam) * c->under;
}

void bounds_ck_tols(const bounds_ck_coef *c, double A, double Y, double S, double *worst, double *sharp) {
    double d = c->dbl * (Y + A);
    *worst = 1.01 * (c->ga * A + c->under) + d;
    if (!(c->sa > 0) || !(S >= 0) || !isfinite(S)) {
        *sharp = *worst;
        return;
    }
    double s = 1.01 * (c->sa * sqrt(S * A) + c->sunder) + d;
    *sharp = s < *worst ? s : *worst;
}

/* ---- subnormal operands of a reduced-precision engine ---------------------
 * lowp.c's operand model a~ = a (1 + alpha), |alpha| <= u_in, holds for a
 * normal a (|a| >= 2^-126): the narrow format shares fp32's exponent
 * range, so only the significand is shortened.  For a subnormal a the
 * grid of the narrow format is absolute, and so is the error:
 *   TF32 (13 bits dropped): the grid step at the bottom of the range is
 *     2^-149 2^13 = 2^-136; to nearest |a~ - a| <= 2^-137, toward zero
 *     < 2^-136 (the declared u_in = 2^-10 covers truncation too, so eta
 *     does: 2^-136).  The cpu twin rounds with lowp_round_tf32, which
 *     keeps subnormals on that grid; a TF32 path that flushed them would
 *     need bf16's eta (not seen; cuda math=tf32 is unmeasured there);
 *   bf16 (16 bits dropped): step 2^-133, to nearest |a~ - a| <= 2^-134,
 *     but oneDNN's conversion (VCVTNEPS2BF16, and VDPBF16PS / AMX
 *     TDPBF16PS reading their inputs) treats subnormal inputs as zero
 *     (lowp.c): |a~ - a| = |a| < 2^-126, so eta = 2^-126.
 * So for every fp32 operand, normal or not,
 *   |a~ - a| <= u_in |a| + eta,   |a~| <= (1 + u_in) |a| + eta.
 * A product of two rounded operands then errs by
 *   |a~ b~ - a b| = |(a~ - a) b~ + a (b~ - b)|
 *                <= (u_in |a| + eta)((1 + u_in) |b| + eta) + |a| (u_in |b| + eta)
 *                =  (2 u_in + u_in^2) |a||b| + eta (1 + u_in)(|a| + |b|) + eta^2.
 * The first part is what ga covers (with the accumulation's gamma, the
 * rounded products' magnitudes included: lowp.c); summed over a
 * relation's P outputs (weighted as A is) of K terms each, the rest is
 *   eta (1 + u_in) M + P K eta^2,  M = sum over terms of |a| + |b|,
 * and the accumulation's rounding, gamma times the sum of the rounded
 * terms' magnitudes, adds gamma times that again: times (1 + g).  The product of two TF32 / bf16
 * values is exact unless it underflows, which the fp32 underflow term
 * (c->under) covers, as it does for fp32 operands; accumulators that flush
 * subnormal partial sums are not modelled (see tests/EVIDENCE.md, "False
 * alarms hunted").  How wide:
 * M is a sum of operand magnitudes, so eta M ~ 1e-41 M (TF32) or 1e-38 M
 * (bf16), far below
 * u_in A unless the operands themselves are subnormal-sized: the
 * default run's relations do not move (tests/EVIDENCE.md, "False alarms
 * hunted"). */
double bounds_lowp_eta(double u_in) {
    if (!(u_in > 0)) return 0;
    return u_in >= 0x1p-8 ? 0x1p-126 : 0x1p-136;
}

double bounds_ck_lowp_abs(const bounds_ck_coef *c, double M) {
    if (!(c->eta_u > 0) || !(M > 0)) return 0;
    return 1.01 * (c->eta_u * M + c->eta_n);
}

double bounds_ck_tol(size_t K, size_t P, int is_sum, double A, double Y, double u_in) {
    bounds_ck_coef c;
    bounds_ck_prep(K, P, is_sum, u_in, &c);
    double w, s;
    bounds_ck_tols(&c, A, Y, -1, &w, &s);
    return w;
}

/* ---- the sharper tier of a relation ---------------------------------------
 * The same model as the per-element sharper tier (Higham & Mary; bounds.h):
 * every rounding of the fp32 computation of the relation's P outputs has
 * a relative error delta, independent of the others given the earlier
 * ones, mean-zero, |delta| <= u.  Output p's error is
 *   e_p = sum_{i <= n_r} delta_{p,i} T_{p,i},  |T_{p,i}| <= (1 + gamma_n) S_p,
 * n_r = 2K - 1 roundings for a dot of K terms (K products, K - 1 sums; an
 * FMA has fewer), K - 1 for a sum, T the rounded quantity (a product or
 * a partial sum, each at most the output's sum of |terms| S_p up to
 * gamma_n).  The residual's exact part R = sum_p e_p is then a sum of
 * P n_r martingale differences, each bounded by u (1 + gamma_n) S_p, so
 * Azuma-Hoeffding gives, with probability >= 1 - 2 exp(-lambda^2 / 2),
 *   |R| <= lambda u (1 + gamma_n) sqrt(n_r sum_p S_p^2)
 *       <= lambda u (1 + gamma_n) sqrt(n_r S A),
 * since sum_p S_p^2 <= (max_p S_p) sum_p S_p <= S A (A = sum_p S_p, the
 * relation's second field; S, its fourth, bounds max_p S_p from plane
 * maxima: engines/checksums.c).  Outputs computed from identical windows
 * make identical roundings, one martingale difference counted G times:
 * a conv relation's S then carries E / A besides (sum_g G_g^2 S_g^2 <=
 * S A + E: engines/checksums.c, conv_groups).  One inequality per relation: no union
 * over the n_r roundings is needed.  lambda is set for a per-relation
 * false-alarm probability of BOUNDS_SHARP_ALPHA_ELEM (1e-16): lambda =
 * sqrt(2 ln(2 / alpha)) / (1 - u) = 8.7, and a main-job run judges ~2e8
 * relations (~7e4 per step x ~1000 stages x 4 engines), so a whole run
 * false-alarms with probability < 1e-7 on this tier.  The underflow term
 * is scaled as the per-element tier scales it; the double-evaluation
 * term is unchanged.  How much sharper: ~lambda sqrt(2 / (K P)) sqrt(S /
 * mean S_p) of the worst case, e.g. ~0.1-0.4 for conv forward relations,
 * ~0.005-0.02 for conv backward-weights (K = n OH OW).  Reduced-precision
 * engines (u_in > 0) keep the worst case: their operand rounding may be
 * truncation, which is not mean-zero. */
double bounds_ck_sharp_lambda(void) { return sqrt(2 * log(2 / BOUNDS_SHARP_ALPHA_ELEM)) / (1 - U32); }

double bounds_ck_sharp_alarm(void) {
    double l = bounds_ck_sharp_lambda() * (1 - U32);
    return 2 * exp(-l * l / 2);
}

double bounds_ck_sharp_tol(size_t K, size_t P, int is_sum, double A, double Y, double S, double u_in) {
    bounds_ck_coef c;
    bounds_ck_prep(K, P, is_sum, u_in, &c);
    double w, s;
    bounds_ck_tols(&c, A, Y, S, &w, &s);
    return s;
}

/* ---- duplicate samples in the relations -------------------------------
 * bounds_ck_sharp_tol counts every rounding of the relation's outputs as
 * its own martingale difference.  A batch holding G_g copies of one sample
 * (equal image and label: every layer's values of the copies are equal;
 * dropout's masks may differ, and treating such copies as equal only
 * widens) repeats roundings, which may then be fully correlated (a serial
 * fp32 sum of n equal terms errs by ~n^2 u |t| / 4, not sqrt(n) n u |t|:
 * bounds_sharp_factor_grouped).  The model kept is that one: the roundings
 * attributable to the copies of one quantity form one block whose errors
 * may be equal, |block| <= G_g x (one rounding's bound); the blocks are
 * independent and mean-zero; Azuma-Hoeffding over the blocks keeps the
 * per-relation probability exp(-lambda^2 / 2) (fewer, larger blocks).  Two
 * kinds of relation repeat roundings (rho2 = sum_g G_g^2 / n, gmax =
 * max_g G_g over the batch's groups; bounds_dup_groups):
 *  (a) the batch in the terms (BOUNDS_CK_BATCH_TERMS: the backward-weights
 *      and bias-gradient relations, each output a reduction of K = n OH OW
 *      (dense: n) terms over the batch, 2 OH OW of its roundings a sample
 *      (OH OW for a sum): the products of a sample's terms and the
 *      additions that bring them in).  Output p's roundings fall into blocks, one a (group,
 *      position, kind): products' blocks of G_g, additions' blocks of at
 *      most G_g (the sum's very first term has none), each rounding
 *      <= u (1 + gamma_n) S_p as before, so the sum of the blocks' squared
 *      bounds is at most
 *        dot: (2 OH OW sum_g G_g^2 - 1) (u (1 + gamma_n) S_p)^2 = (2 K rho2 - 1) (...)^2
 *        sum:   (OH OW sum_g G_g^2 - 1) (...)^2                  = (K rho2 - 1) (...)^2
 *      (a block of G - 1 additions: (G - 1)^2 <= G^2 - 1), i.e. n_r' =
 *      2 K rho2 - 1 (dot) or K rho2 - 1 (sum) in place of n_r = 2 K - 1
 *      or K - 1, equal when rho2 = 1.  Every output of the relation gets
 *      the same factor, weights (+-1, 1..t, |a_c b_t| <= 1) included, so
 *      sum_p w_p^2 (...) <= (n_r' / n_r) n_r S A: S' = S n_r' / n_r.
 *  (b) the batch in the outputs (a dense layer's forward and backward-data
 *      relations, one output a sample, P = n; a forward's copies are the
 *      samples of equal images whatever their labels, rho2_x and gmax_x:
 *      BOUNDS_CK_BATCH_OUTPUTS_X; a backward's, of equal image and label
 *      (dz depends on the label): BOUNDS_CK_BATCH_OUTPUTS):
 *      the copies' outputs come from equal operands and may round
 *      identically, so each of group g's n_r roundings is a block of G_g,
 *      bounded by G_g u (1 + gamma_n) S_g (S_g = S_p of each copy):
 *        sum_g G_g^2 S_g^2 <= S sum_g G_g^2 S_g,
 *        sum_g G_g^2 S_g <= gmax sum_g G_g S_g = gmax A,  and  <= S n rho2,
 *      (S >= max_p S_p, A = sum_p S_p), so S' = S min(gmax, n rho2 S / A)
 *      in place of S A's S; 1 x S when no two samples are equal.
 * Other relations (per sample, per sample and channel) have no term nor
 * output of two samples.  Without duplicates (rho2 = 1) S is returned
 * as it was, bit for bit.  One sample repeated n times: (a) ~rho2 = n,
 * the tiers coincide; (b) S' = n S, sum_p S_p^2 = n S^2 grouped n^2 S^2. */
int bounds_ck_batch_axis(const model *m, int l, int phase) {
    const layer *ly = &m->layers[l];
    if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) return BOUNDS_CK_BATCH_NONE;
    switch (phase) {
    case 2:  /* CK_BWD_W */
    case 3:  /* CK_BWD_B */
    case 8:  /* CK_BWD_W_PW */
    case 13: /* CK_BWD_W_Z */
    case 17: /* CK_BWD_W_PEEK */
    case 22: /* CK_BWD_W_RND */ return BOUNDS_CK_BATCH_TERMS;
    case 0:  /* CK_FWD */ return ly->kind == LAYER_DENSE ? BOUNDS_CK_BATCH_OUTPUTS_X : BOUNDS_CK_BATCH_NONE;
    case 1:  /* CK_BWD_DATA */ return ly->kind == LAYER_DENSE ? BOUNDS_CK_BATCH_OUTPUTS : BOUNDS_CK_BATCH_NONE;
    }
    return BOUNDS_CK_BATCH_NONE;
}

double bounds_ck_dup_s(int axis, size_t K, int is_sum, size_t n, double S, double A, const bounds_dups *d) {
    if (!d || !(S > 0)) return S;
    double rho2 = axis == BOUNDS_CK_BATCH_OUTPUTS_X ? d->rho2_x : d->rho2;
    double gmax = axis == BOUNDS_CK_BATCH_OUTPUTS_X ? d->gmax_x : d->gmax;
    if (!(rho2 > 1.0)) return S;
    if (axis == BOUNDS_CK_BATCH_TERMS) {
        double k = (double)K, nr = is_sum ? k - 1 : 2 * k - 1, nrg = is_sum ? k * rho2 - 1 : 2 * k * rho2 - 1;
        return nr >= 1 ? S * (nrg / nr) : S; /* a sum of one term: no rounding */
    }
    if (axis == BOUNDS_CK_BATCH_OUTPUTS || axis == BOUNDS_CK_BATCH_OUTPUTS_X) {
        double f = gmax;
        if (A > 0) f = fmin(f, (double)n * rho2 * S / A);
        return f > 1.0 ? S * f : S;
    }
    return S;
}
