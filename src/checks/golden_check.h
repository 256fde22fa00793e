/*
 * golden_check.h — judging a current run against a golden file: the
 * tolerance policies (exact, ULP, bound-derived, auto from provenance) and
 * the comparison of one record under a policy.  The file format itself is
 * formats/golden.h; replaying a run is the golden command's.
 */
#ifndef LS_GOLDEN_CHECK_H
#define LS_GOLDEN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "checks/compare.h"
#include "formats/golden.h"
#include "model/tensor.h"

/* ---- policies --------------------------------------------------------- */
typedef enum {
    GOLDEN_POLICY_AUTO,
    GOLDEN_POLICY_EXACT, /* bitwise (NaN = NaN, +0 != -0) */
    GOLDEN_POLICY_ULP,   /* fp32 steps <= ulp */
    GOLDEN_POLICY_BOUND, /* |new - golden| <= bound_scale * bound[i]; tensors without a bound: steps <= ulp */
} golden_policy_kind;

typedef struct {
    golden_policy_kind kind;
    uint32_t ulp;       /* ULP: the tolerance; BOUND: the fallback for tensors without a bound */
    double bound_scale; /* BOUND: 2 — golden and new are each within bound of the exact value */
} golden_policy;

/* "auto", "exact", "ulp:N" (N a decimal count), "bound" or "bound:N" (N:
 * ULP fallback for tensors passed without a bound; default 0 = bitwise).
 * LS_EINVAL with a message otherwise. */
int golden_policy_parse(golden_policy *p, const char *text);
/* "exact", "ulp:4", "bound", "bound:2", "auto" into buf. */
const char *golden_policy_str(const golden_policy *p, char *buf, size_t len);

/* Decide the policy to use.  A policy other than auto is used as asked
 * ("policy exact (asked)").  auto: exact when every bit-relevant key
 * (lib.*, algo.*, cpu.isa, threads, engine.spec, engine.algorithms,
 * engine.math) has the same value in the recorded and the current
 * provenance (absent on both sides counts as equal), else bound, and the
 * reason lists every difference:
 *   "auto -> bound: oneDNN version differs: 2.6.3 vs 3.0; threads differs: 2 vs 1"
 * reason is always written (NUL-terminated, truncated to len). */
void golden_policy_resolve(golden_policy *out, const golden_policy *asked, const golden_prov *recorded,
                           const golden_prov *current, char *reason, size_t len);

/* ---- comparing one record --------------------------------------------- */
typedef struct {
    size_t index;
    float golden, current;
    double ulp; /* compare_ulp_f32(golden, current): inf for a NaN/Inf mismatch */
    double bound; /* the tolerance bound at this index (BOUND policy), else 0 */
    int bounded;  /* judged against bound (BOUND policy with a bound array): the tolerance is said, 0 included */
    int by_ulp;   /* judged by ULP distance (ULP policy, or BOUND without a bound array): the count is said always */
} golden_mismatch;

typedef struct {
    int pass;
    size_t n_fail;                           /* elements outside the tolerance */
    size_t n_shown;                          /* first min(n_fail, GOLDEN_MAX_SHOWN) */
    golden_mismatch shown[GOLDEN_MAX_SHOWN]; /* in index order */
    compare_stats stats;                     /* current vs golden (as reference), with the bound if any */
} golden_result;

/* Compare `current` (n values) with rec under a resolved policy (not AUTO).
 * bound: per-element bounds (n values) or NULL; used only by BOUND.
 * Returns 0 (see res->pass) or LS_EINVAL when n differs from rec->count or
 * the policy is AUTO (message names the record). */
int golden_compare_record(golden_result *res, const golden_record *rec, const float *current, size_t n,
                          const golden_policy *pol, const double *bound);

/* "step 3 layer 2 (conv2) act [1234]: golden 0.123456791 (0x3dfcd6ea), new 0.123456784 (0x3dfcd6e9), 1 ULP"
 * appended to b (no newline).  The ULP count is said where it measures
 * something: not for +0 vs -0 ("+0 vs -0"), nor, unless the policy judges
 * by it (ulp:N), for a pair with a zero or opposite signs, whose ordinal
 * distance runs through every float down to 0 (0 vs 1e-11 is ~7.7e8
 * "ULP"): "|diff| 1e-11, across zero (no ULP count)".  Under bound the
 * tolerance follows, 0 included ("tolerance 0: fp32 gives this value
 * exactly"). */
void golden_mismatch_str(lsbuf *b, const golden_record *rec, const golden_mismatch *m);

#endif
