/*
 * decisions.h — the discrete decisions of a network's exact operations,
 * compared between a reference and a candidate: ReLU signs, max-pool
 * arg-maxes, dropout masks, predicted classes; and the share of a tensor's
 * squared error that a set of elements (e.g. the flipped windows) carries.
 *
 * Why: ReLU, max-pool and dropout do no arithmetic, but they route values
 * and gradients.  When their inputs differ by rounding, a few decisions can
 * flip, and a flipped max-pool window sends a whole gradient value to
 * another element: a handful of elements then carries almost all of a
 * gradient's error (relu2.dact jumps from ~1e-7 to ~1e-3 relative error at
 * SmallCNN's step 1).  These functions count such flips and say whether
 * each one is explained by its inputs (a near-tie) or not.
 *
 * The rules are the cpu engine's (src/cpu_pool.h), which are oneDNN's:
 *   relu(x)   = x > 0 ? x : +0       forward: NaN and -0 give +0
 *   relu'(x,g)= x <= 0 ? g * 0 : g   backward: NaN passes g
 *   max-pool  = 2x2 windows, stride 2, floor mode (an odd last row/column
 *               is never read); start from -FLT_MAX at position 0 and take a
 *               value only when it is greater, in row-major window order:
 *               the first maximum wins, NaN never wins
 *   argmax    = over a row of logits, as eval_engine (src/train.c) and
 *               golden check predict: start at element 0, a later element
 *               wins only when greater: the first maximum wins (a NaN at
 *               element 0 keeps 0, a NaN elsewhere never wins)
 * so a decision is a pure function of the input values, and two engines fed
 * the same input bits must take the same decisions.
 *
 * A flip is a *near-tie* when the reference's gap at the decision — how far
 * the reference input was from deciding the other way — is within what the
 * inputs may differ by: for a ReLU the gap is |ref|; for an arg-max it is
 * ref[a] - ref[b], a the reference's choice and b the candidate's.  "What
 * the inputs may differ by" is bound[a] + bound[b] (bound[i] for a ReLU)
 * when the caller passes per-input bounds (the a-priori error bounds of the
 * layer that produced the input), else the observed |cand - ref| at the
 * same elements.  Note the observed form is explanatory, not a test: a
 * finite flip always satisfies it (ref[a] >= ref[b] and cand[b] >= cand[a]
 * give ref[a] - ref[b] <= |d_a| + |d_b|); pass bounds for a verdict.  A flip
 * is also counted in n_sub_ulp (and as a near-tie) when the gap is at most
 * one fp32 ULP of the reference's chosen value (ReLU: the reference is zero
 * once rounded to fp32): there fp32 cannot even represent the difference.
 *
 * Each function exists for an fp32 reference (another engine) and a double
 * reference (the MPFR engine's read-out), with one body.  Pure: no I/O, no
 * allocation, sequential, deterministic.  Optional masks (may be NULL) get
 * 1 at every input element of a flipped decision and 0 elsewhere.
 *
 * Not here: bounds (compare.h), choosing what to compare or when a count is
 * a problem (audit/driver.c, explain.c).
 */
#ifndef LS_DECISIONS_H
#define LS_DECISIONS_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define DECISION_NONE ((size_t)-1)

typedef struct {
    size_t n_decisions;         /* decisions compared: elements, windows, rows */
    size_t n_flips;             /* taken differently by the candidate */
    size_t n_near_ties;         /* flips within what the inputs may differ by, or <= 1 ULP (see above) */
    size_t n_sub_ulp;           /* flips whose reference gap is <= 1 fp32 ULP of the reference's choice */
    size_t first_flip;          /* index of the first flip (element, window, row); DECISION_NONE when none */
    double max_gap_flipped;     /* largest reference gap among the flips (0 when none or not applicable) */
    double max_gap_flipped_ulp; /* arg-max kinds: the largest gap in fp32 ULPs of the reference's chosen
                                 * value (compare_ulp_of); 0 for ReLU and dropout */
} decision_stats;

/* ReLU sign: element i's decision is one of pass (x > 0), block (x <= 0,
 * including -0) or NaN (blocked forward, passed backward); a flip is any
 * difference, so one count covers both passes.  ref_in, cand_in: the ReLU's
 * inputs (n).  bound: per-element bound of the inputs, or NULL.  mask (n)
 * or NULL. */
void decision_relu_f32(decision_stats *st, const float *ref_in, const float *cand_in, size_t n, const double *bound,
                       uint8_t *mask);
void decision_relu_f64(decision_stats *st, const double *ref_in, const float *cand_in, size_t n, const double *bound,
                       uint8_t *mask);

/* Max-pool 2x2 / stride 2 arg-max per window of an (n, c, h, w) input (the
 * pool's input: after a ReLU, the ReLU's output), plain NCHW.  Windows are
 * indexed (n, c, h/2, w/2) row-major.  bound (n, c, h, w) or NULL.  mask
 * (n, c, h, w) or NULL: 1 at the four elements of each flipped window, 0
 * elsewhere (an odd last row/column: 0). */
void decision_maxpool_f32(decision_stats *st, const float *ref_in, const float *cand_in, size_t n, size_t c,
                          size_t h, size_t w, const double *bound, uint8_t *mask);
void decision_maxpool_f64(decision_stats *st, const double *ref_in, const float *cand_in, size_t n, size_t c,
                          size_t h, size_t w, const double *bound, uint8_t *mask);

/* Dropout mask: over the elements whose input is finite and non-zero on
 * both sides (n_decisions), kept (out != 0) on one side and dropped
 * (out == 0) on the other is a flip.  Both engines draw the same mask from
 * the same seed, so any flip is a bug: there are no near-ties.  mask (n) or
 * NULL. */
void decision_dropout_f32(decision_stats *st, const float *ref_in, const float *ref_out, const float *cand_in,
                          const float *cand_out, size_t n, uint8_t *mask);
void decision_dropout_f64(decision_stats *st, const double *ref_in, const double *ref_out, const float *cand_in,
                          const float *cand_out, size_t n, uint8_t *mask);

/* Predicted class per row of logits (n, classes): a flip is a row whose
 * arg-max differs.  bound (n, classes) or NULL.  mask (n rows) or NULL. */
void decision_argmax_f32(decision_stats *st, const float *ref, const float *cand, size_t n, size_t classes,
                         const double *bound, uint8_t *mask);
void decision_argmax_f64(decision_stats *st, const double *ref, const float *cand, size_t n, size_t classes,
                         const double *bound, uint8_t *mask);

/* How much of a tensor's squared error a set of elements carries. */
typedef struct {
    size_t n_masked;      /* elements with mask[i] != 0 */
    double sq_err_masked; /* sum of (cand - ref)^2 over them (finite pairs) */
    double sq_err_total;  /* over all finite pairs */
    double share;         /* sq_err_masked / sq_err_total; 0 when the total is 0 */
} decision_share;

/* ref, cand, mask: n elements.  Non-finite pairs are left out of both sums
 * (compare_stats counts them). */
void decision_share_f32(decision_share *sh, const float *ref, const float *cand, const uint8_t *mask, size_t n);
void decision_share_f64(decision_share *sh, const double *ref, const float *cand, const uint8_t *mask, size_t n);

/* One JSON object each (no newline), appended to b:
 *   {"n":802816,"flips":2,"near_ties":2,"sub_ulp":1,"first_flip":1234,
 *    "max_gap_flipped":1.2e-8,"max_gap_flipped_ulp":0.8}   (first_flip null when none)
 *   {"n_masked":8,"sq_err_masked":...,"sq_err_total":...,"share":0.998} */
void decision_stats_json(lsbuf *b, const decision_stats *st);
void decision_share_json(lsbuf *b, const decision_share *sh);

#endif
