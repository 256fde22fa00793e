/*
 * fp32cr.h — the non-dot-product operations of the reference engine's
 * fp32cr mode, each returning the correctly rounded (RN-even, IEEE binary32
 * subnormals and overflow) value of the exact mathematical result of its
 * fp32 inputs.
 *
 * "One operation" (the unit that is rounded once):
 *   dropout      y = x / (1 - p)                     (x, p fp32; exact quotient)
 *   softmax-CE   dz[i][j] = (softmax(z_i)_j - [j == y_i]) / n,  and
 *                loss = (1/n) sum_i (log sum_j exp(z_ij) - z_i,y_i)   (z fp32)
 *   Adam, per element, three operations in this order:
 *                m' = b1*m + omb1*g
 *                v' = b2*v + omb2*g*g
 *                p' = p - step_size * m' / (sqrt(v') / bc2_sqrt + eps)
 *                where m' and v' are the already rounded fp32 values (the
 *                stored state), and b1, omb1, b2, omb2, step_size, bc2_sqrt,
 *                eps are the fp32 scalars every engine receives
 *                (adam_scalars).
 * Results that are transcendental or irrational are found by Ziv's method
 * with interval arithmetic in MPFR (directed roundings at growing
 * precision until both ends of the interval round to the same fp32); exact
 * rational results are computed exactly and rounded once.  Fast paths in
 * double are used only where a rigorous error bound proves the rounding.
 *
 * Not here: sums of products (kulisch.h), loops over tensors.
 */
#ifndef LS_FP32CR_H
#define LS_FP32CR_H

#include <stddef.h>
#include <stdint.h>

#include "engines/engine.h"

/* RN(x / (1 - p)), 0 <= p < 1. */
float fcr_dropout_scale(float x, float p);

/* One Adam element in place (see above). */
void fcr_adam(float *p, float *m, float *v, float g, const adam_scalars *a);

/* The pure-MPFR path of fcr_adam's parameter update (no double fast path);
 * exposed so the tests can check the fast path against it. */
float fcr_adam_param_mpfr(float p, float mn, float vn, float step_size, float bc2_sqrt, float eps);
float fcr_adam_v_mpfr(float v, float g, float b2, float omb2);

/* Softmax cross-entropy over n rows of c logits.  Writes dz (n, c) and
 * *loss.  Returns 0, or LS_ELIB for a non-finite logit (or, a bug, if Ziv's
 * loop ran out of precision on finite ones). */
int fcr_softmax_xent(const float *z, const int32_t *labels, size_t n, int c, float *dz, float *loss);

#endif
