/*
 * explain.h — rules over an audit's metrics and the engines' own
 * descriptions that say, pair by pair, WHY two engines disagree, with the
 * numbers that support it and how to remove it (DESIGN.md §5).
 *
 * Pure: the rules read an audit_result (audit/audit.h), the engines' spec
 * strings and describe() JSON in it, and the model's layer list; they write
 * a list of findings and nothing else (explain_print is the only I/O).
 *
 * Rules, in the order a reader needs them:
 *   not-measured         an engine was skipped: nothing about it was measured
 *   nondeterminism       a --repeat 2 pair (same spec twice) is not bitwise equal
 *   deterministic        a --repeat 2 pair is bitwise equal at every comparison
 *   bound-exceeded       vs the MPFR reference, a layer's error exceeds the
 *                        a-priori fp32 bound (ratio > 1): not fp32 rounding in
 *                        any order; the cause is named from the engine's own
 *                        description (Winograd/FFT transform -> approximate
 *                        algorithm, TF32 -> reduced precision, else unexplained)
 *   within-bound         vs the reference every bounded tensor is <= 1
 *   suspect              within every worst-case bound, but beyond the
 *                        sharper tier (bounds.h): a per-element sharp
 *                        bound, a sign test or the mean square failed;
 *                        "reduced precision in operation X" when the pattern
 *                        matches TF32/bf16 in one operation
 *   knob                 two engines of one kind that differ in one knob:
 *                        threads (reduction order), algo (approximate
 *                        algorithm), math (exp/log, TF32), isa, layout ...;
 *                        the first tensor that differs, by phase order, at the
 *                        first step that differs
 *   vendor-math          forward equal but loss / softmax gradient differ
 *   divergence           any other pair: where it first differs
 *   bitwise-equal        a pair of different specs equal at every comparison
 *   accuracy-gap         final test accuracy gap vs images classified
 *                        differently, and what was NOT measured
 * Wording rule: a finding never claims more than its evidence; causes read
 * "consistent with" when the data narrow a cause down without proving it.
 *
 * Not here: running anything (ablations are suggested, not run), files
 * (report.c writes them), thresholds other than the bound ratio's 1 and the
 * sharper tier's (checks/bounds.h, rounding_tests.h: a score of 1).
 */
#ifndef LS_EXPLAIN_H
#define LS_EXPLAIN_H

#include <stdio.h>

#include "audit/audit.h"
#include "model/model.h"

typedef enum {
    EXPLAIN_PROBLEM = 0, /* an error not explained by fp32 rounding, or non-determinism */
    EXPLAIN_SUSPECT = 1, /* within the worst-case bound, beyond what fp32 rounding does in practice */
    EXPLAIN_CAUSE = 2,   /* a difference, explained */
    EXPLAIN_OK = 3,      /* bitwise equal, within bound, deterministic */
    EXPLAIN_INFO = 4,    /* accuracy, what was not measured */
} explain_severity;

typedef struct {
    char rule[32];          /* "knob", "bound-exceeded", ... (see above) */
    explain_severity severity;
    int pair;               /* index into audit_result.pair, or -1 */
    char a[AUDIT_LABEL_BYTES], b[AUDIT_LABEL_BYTES];    /* engine labels ("" when not about a pair) */
    char layer[48];         /* "conv2 (backward-weights)", or "" */
    char layer_name[16];    /* "conv2" (the layer that computed the tensor), or "" */
    char phase[12];         /* "forward", "loss", "backward", "update", or "" */
    char tensor[40];        /* "conv2.weight.grad", or "" */
    long step;              /* first step concerned, 0 when none */
    double when;            /* where what it reports begins in the run, for the order only (explain_run): step k
                             * (an attribution step or a shadow replay carries its step) is k, the evaluation after
                             * epoch e is that epoch's last step + 0.5, the state read before step k is k - 0.25;
                             * 0: not set (its step is used) */
    double ratio;           /* the bound ratio (or growth factor) the finding rests on; NAN when none */
    char title[640];        /* one line (two labels of AUDIT_LABEL_BYTES fit, with its words) */
    char cause[1200];      /* room for a 160-character check description in a ~800-character text */
    char evidence[1200];
    char fix[800];
} explain_finding;

typedef struct {
    int n, cap;
    explain_finding *f;
} explain_list;

/* ---- verdicts: the first thing a user reads -------------------------------
 * Per engine vs the reference: "within bound" (every tensor compared at a
 * check step judged, each within its bound or exact), "exceeds bound"
 * (where, by how much), "unchecked" (compared but with no rule, or never
 * checked), "state mismatch" (the state round-trip failed).  Per engine
 * pair: "bitwise identical", "ordering only" (they differ, and both are
 * within bound vs the reference), "ordering + noise floor" (the same, but
 * one of them started from weights moved by perturb=K), "beyond bound", "nondeterministic" (a
 * repeat pair not bitwise equal), "deterministic" (a repeat pair bitwise
 * equal), "noise floor" (the perturb=K pair), "differs (not judged)". */
typedef struct {
    int engine, ref;            /* indices; ref -1 when no reference judged it */
    char verdict[24];
    int problem, unchecked;     /* counts toward --fail-on */
    int n_compared, n_bounded;  /* tensors compared at check steps; of which judged by a rule */
    int n_partial;              /* of n_compared, not in n_bounded: tensors with a rule but elements whose bound is
                                 * +inf (fp32 may overflow there, bounds_range_unbound): judged only in part */
    long n_unjudged;            /* their element-checks not judged, summed */
    long check_steps;           /* steps on which it was checked */
    int worst_slot;             /* -1 when none */
    double worst_ratio;
    long worst_step;
    long flips, near_ties;      /* discrete decisions flipped at check steps; near_ties: explained by their inputs
                                 * (decisions.h's n_near_ties) */
    long sub_ulp;               /* of the flips, those whose reference gap is <= 1 ULP: what the output calls a near-tie */
    /* the sharper tier (checks/bounds.h): within every worst-case bound, but
     * a per-element sharp bound, a sign test or the mean square failed */
    int suspect;
    int suspect_slot;           /* -1 when none */
    long suspect_step;
    char suspect_test[24];      /* "sharp bound", "bias (sign test)", "scale (mean square)" */
    double suspect_sharp_ratio; /* the tensor's worst ratio to the sharp bound */
    double suspect_worst_ratio; /* ... and to the worst-case bound */
    double suspect_score;       /* the failing test's statistic / its limit (>= 1) */
    double suspect_p;           /* the false-alarm probability of what was seen, under the model */
    char detail[280];
} engine_verdict;

typedef struct {
    int pair;
    char verdict[28];
    int problem, nondet;
    long first_diff_step;       /* 0: never */
    int first_slot;             /* -1 when none */
    double end_rel_l2;          /* parameters after the last compared step; NAN when none */
    long flips;                 /* test images classified differently after the last epoch, -1 when not measured */
    double acc_gap;             /* points, a - b; NAN when not measured */
    long band_exit_step;        /* left the noise-floor band at this step (0: never, -1: no floor) */
    double band_factor;         /* largest distance / floor ratio */
} pair_verdict;

typedef struct {
    int n_eng;
    engine_verdict e[AUDIT_MAX_ENGINES];
    int n_pair;
    pair_verdict p[AUDIT_MAX_PAIRS];
    int problems, unchecked, nondet;
    int unchecked_noref;        /* of unchecked: engines no step judged against a reference at all */
    int suspects;               /* engines SUSPECT (and not PROBLEM) */
} verdict_table;

void explain_verdicts(verdict_table *v, const audit_result *r, const model *m);

/* Apply every rule to r (m: the audited model, for layer names and roles).
 * Findings are ordered by severity (problems first); among one engine's
 * PROBLEMs the earliest in the run first (explain_finding.when); then by
 * rule order.
 * Returns 0, or LS_ENOMEM. */
int explain_run(explain_list *out, const audit_result *r, const model *m);
void explain_list_free(explain_list *l);

/* The findings as readable text (run + print + free). */
void explain_print(FILE *f, const audit_result *r, const model *m);

/* The layer that produced slot s, and how ("conv2 (forward)", "conv2
 * (backward-data)", "fc2 (loss: softmax cross-entropy)", "conv1 (Adam
 * update)"), into buf; returns buf.  Exposed for the report. */
const char *explain_slot_origin(const audit_result *r, const model *m, int s, char *buf, size_t cap);

/* Top-level member `key` of a JSON object text as a C string (strings
 * unescaped, numbers/true/false as written), into buf.  Returns 0, or -1
 * when absent, not a scalar, or the text is malformed.  For the report's
 * environment table. */
int explain_json_get(const char *json, const char *key, char *buf, size_t cap);
/* 1 when engine ae ran another algorithm than its knob asked for
 * (describe()'s "algo_requested" beside "algo": cpu:algo=winograd run
 * direct where oneDNN has no Winograd kernel), with both names; else 0.
 * The knob-fallback note and the ok verdict line read it. */
int explain_algo_fallback(const audit_engine *ae, char *req, size_t rcap, char *ran, size_t ncap);

/* The kernels describe() names for one layer, "fwd K; bwd_data K; ...",
 * into buf (cpu: layers[]; cuda: the first plan's layers[], algo names).
 * Returns how many directions were found (0: the layer is not described). */
int explain_layer_kernels(const char *describe, const char *layer_name, char *buf, size_t cap);

#endif
