/*
 * audit/audit.h — `lockstep audit`: several engines trained side by side on
 * the same initial weights, batches and dropout masks, compared layer by
 * layer (DESIGN.md §3-4).
 *
 * Modes:
 *   free      every engine keeps its own weights: how fast do the
 *             trajectories separate, and what does it do to accuracy?
 *   sync      before each fully compared step every engine is set to the
 *             leader's state rounded to fp32 (the leader too): how much
 *             error does one step add, with no history?
 *   isolated  sync, and inside the step each layer's input (forward) and
 *             output gradient (backward), the loss's logits and the
 *             update's gradients are the leader's, rounded to fp32, on every
 *             engine: which layer introduces the error, and is its size
 *             consistent with fp32 arithmetic (bound ratio <= 1)?
 * The leader is the first reference engine while it runs, else the first
 * other engine.  Reference engines run steps 1..ref_steps and, every
 * audit_every steps after that, one shadow step whose state is first set to
 * the leader's.  Every step the parameters of every engine pair are
 * compared (digest and norms: cheap); every tensor is compared on steps
 * 1..max(ref_steps,1), on every audit_every-th step and on the last step.
 *
 * The driver's own knob perturb=K (e.g. "cpu:perturb=1") starts that engine
 * from the initial weights moved K ulps each in a Philox-chosen direction:
 * pairing it with the unperturbed engine measures the noise floor — how
 * far the same engine drifts, and how many test predictions flip, from a
 * difference no larger than one rounding.  A second driver knob, draw=D
 * (default 0), picks another direction for the same seed: K draws of the
 * noise floor are perturb=1:draw=0..K-1.
 *
 * A recording (recorded:PATH, recording.h) takes part in free mode only:
 * its plan (audit_every, ref_steps) is adopted, a recording of another run
 * is refused naming the field, it sits out the attribution phase and the
 * round-trip check, and its evaluation and timing come from the file.
 *
 * Every engine variant runs in a child process (remote.h), recordings
 * excepted (in this process: no global state, and the driver reads them).  Outputs, in
 * out_dir, each written to a temporary name and renamed when complete:
 * steps.jsonl.gz (one line per step, engine pair and tensor), run.json (the
 * summary), and a readable summary on stdout.
 */
#ifndef LS_LOCKSTEP_H
#define LS_LOCKSTEP_H

#include <stdio.h>

#include "checks/checksums.h"
#include "checks/compare.h"
#include "checks/rounding_tests.h"
#include "base/stats.h"
#include "engines/run.h"

/* An engine's label (its spec, any length make_engines accepts, and "#2"
 * for a repeat) and a pair's name ("a vs b"): buffers of these sizes never
 * cut one. */
#define AUDIT_LABEL_BYTES 136
#define AUDIT_PAIR_NAME_BYTES (2 * AUDIT_LABEL_BYTES + 8)

typedef enum { MODE_FREE, MODE_SYNC, MODE_ISOLATED } lockstep_mode;
const char *lockstep_mode_name(lockstep_mode m);
int lockstep_mode_parse(const char *s, lockstep_mode *out);

typedef struct {
    run_cfg run;          /* model, data, seed, batch, epochs, lr, limits, threads */
    const char *engines;  /* comma-separated engine specs */
    lockstep_mode mode;
    long ref_steps;       /* reference engines run steps 1..ref_steps */
    long audit_every;     /* full comparison and reference shadow every K steps (0: never) */
    int ref_steps_set, audit_every_set; /* given on the command line: a recorded engine's plan
                                         * (recorded:PATH) must then agree, else it is adopted */
    int repeat;           /* 1, or 2: every engine twice, bitwise determinism per tensor */
    int eval;             /* evaluate on the test set after each epoch (default 1) */
    long attribution_steps; /* K > 0 (and a reference listed): first an attribution phase, K steps
                             * in isolated mode, then every engine is reset to the initial state
                             * and the run (the drift phase, in `mode`) starts from step 1 */
    int roundtrip;        /* state round-trip check of every fp32 engine: the step after each fully compared step,
                           * against a second instance of its spec (driver.c roundtrip()) */
    int checksums;        /* every-step checksums of every engine that has them (default 1) */
    int ck_no_share;      /* --no-share: a repeat computes its own vector at every step (every_step.h) */
    long complete_every;  /* --complete-every K (default 1: every step complete): K > 1, a drift step's
                           * checksum vector is light (CK_STAGE_LIGHT: the conv layers' plain relations only) except at
                           * step 1, the last step, a partial batch's steps and ~1 in K drawn
                           * (driver.c ck_complete_step) */
    int verbose;          /* the whole evidence on stdout, not only the verdict screen */
    unsigned fail_on;     /* AUDIT_FAIL_* bits: what makes `audit` exit 1 */
    const char *out_dir;  /* NULL: no files */
    FILE *out;            /* the readable summary (stdout; NULL for none) */
    /* the seed loop after the audit (seeds.h; audit_run ignores these) */
    int seeds;            /* 0: none */
    int jobs;             /* audits at once */
    int floor_draws;      /* extra noise-floor draws at the first seed */
} audit_cfg;

void audit_cfg_default(audit_cfg *c);

enum {
    AUDIT_FAIL_PROBLEM = 1u,
    AUDIT_FAIL_UNCHECKED = 2u,
    AUDIT_FAIL_NONDET = 4u,
    AUDIT_FAIL_INCOMPLETE = 8u,
    AUDIT_FAIL_SUSPECT = 16u,
};
/* "problem", "unchecked", "nondeterminism", "incomplete" (an engine listed
 * did not run), "suspect" (sharper tier), comma-separated, into bits. */
int audit_fail_on_parse(const char *s, unsigned *out);

#define AUDIT_MAX_ENGINES 12
#define AUDIT_MAX_PAIRS (AUDIT_MAX_ENGINES * (AUDIT_MAX_ENGINES - 1) / 2)
#define AUDIT_MAX_SLOTS 256

/* Worst values of one tensor slot for one pair, over every compared step. */
typedef struct {
    long n_steps;            /* steps on which it was compared */
    double max_abs, max_rel, max_rel_l2, max_ulp, max_bound_ratio; /* bound ratio -1: never bounded */
    double min_frac_equal;
    long worst_step;         /* step of max_ulp */
    long first_unequal_step; /* 0: bitwise equal whenever compared */
    long n_nonfinite;        /* elements NaN or inf on one side only (or of another kind), summed over compared
                              * steps: kept out of max_abs .. max_ulp (compare.h), so those say nothing of them */
    /* checks (pairs with a reference side, at bounded steps: attribution and
     * free-mode shadow replays), where every compared tensor is judged */
    long n_check_steps;      /* compared at a bounded step */
    long n_bounded;          /* ... of which with a bound or exactness rule (the rest: unchecked) */
    long n_over;             /* elements over their bound, summed over steps */
    long first_over_step, worst_ratio_step; /* 0: none */
    size_t worst_ratio_index;
    double worst_ref, worst_cand, worst_bound; /* at the largest bound ratio */
    long n_range;            /* elements judged by fp32's range rule (Adam's fp32 v' overflowed: p' and v' must
                              * be ops_adam_elem's, bounds_adam_range), summed over checks */
    long n_unjudged;         /* elements not judged: their bound is +inf (a legal fp32 evaluation may overflow
                              * there, bounds_range_unbound), summed over checks */
    long first_unjudged_step; /* 0: none */
    /* the sharper, probabilistic tier (checks/bounds.h, rounding_tests.h) at
     * the same checks: per element the ratio to the sharp bound, per tensor
     * and check the sign tests (bias) and the mean square (scale); any of
     * them failing at a check is SUSPECT (within the worst case, beyond what
     * independent rounding errors do) */
    long n_sharp;            /* checks judged on this tier (a bounded check with a rule > 0) */
    long n_aggregate;        /* ... of which with the aggregate tests (reductions: DOT, SUM) */
    double max_sharp_ratio;  /* -1: never */
    long worst_sharp_step;
    long n_over_sharp;       /* elements over the sharp bound, summed over checks */
    double sharp_factor;     /* sharp / worst at the worst check (bounds_sharp_factor) */
    double sharp_alarm;      /* its per-element false-alarm probability (0: the tiers coincide) */
    double max_bias_score, max_scale_score; /* >= 1: failed (rounding_tests.h) */
    long bias_step, scale_step;
    double bias_sign_z, bias_away_z, bias_p;       /* at the largest bias score */
    double bias_share_pos;                         /* n_pos / (n_pos + n_neg) there */
    double scale_ms, scale_limit, scale_p;         /* at the largest scale score */
    long n_suspect;          /* checks at which a sharp test failed */
    long first_suspect_step; /* 0: none */
    /* discrete decisions on this tensor's layer (ReLU signs, arg-maxes,
     * dropout masks, predictions), summed over compared steps */
    long decisions, flips, near_ties, sub_ulp; /* sub_ulp: flips whose reference gap is <= 1 ULP */
    double flip_err_share;   /* largest share of the squared error carried by flipped decisions */
    long flip_elems;         /* elements carrying that share */
} audit_slot_stats;

/* The sharper tier's margin per kind of tensor (issue 24): for one engine
 * vs the reference, the distribution of the per-element ratio |err| / sharp
 * bound over every element judged at every check, bucketed per power of
 * two (rounding_tests.h RT_HIST_*: no sorting), so that its quantiles can be
 * read off (audit_sharp_quantile: upper bucket edges, within a factor 2).
 * Kinds: forward activations, backward-data gradients, weight and bias
 * gradients, the update's parameters and Adam moments, the loss with its
 * logit gradient (the last layer's dact: the loss's rule, not a layer's). */
enum {
    AUDIT_SK_ACT, AUDIT_SK_DACT, AUDIT_SK_WGRAD, AUDIT_SK_BGRAD, AUDIT_SK_PARAM, AUDIT_SK_ADAM_M, AUDIT_SK_ADAM_V,
    AUDIT_SK_LOSS, AUDIT_SK_N
};

typedef struct {
    long checks;             /* (tensor, check) judged into it */
    uint64_t n;              /* elements judged (worst-case bound > 0, finite) */
    uint64_t hist[RT_HIST_N];
    long n_over;             /* elements over the sharp bound */
    double max_ratio;        /* the largest ratio (-1: none) */
    double max_alarm;        /* the largest per-element false-alarm probability among its checks (bounds_sharp_alarm;
                              * 0: the tiers coincide) */
    double min_factor, max_factor; /* sharp / worst-case factors of its checks (bounds_sharp_factor) */
} audit_sharp_dist;

/* "act", "dact", "weight_grad", "bias_grad", "param", "adam_m", "adam_v", "loss": run.json's keys */
const char *audit_sharp_kind_key(int k);
/* "forward activations", ... : the report's words */
const char *audit_sharp_kind_name(int k);
/* The q-quantile of d's ratios (rt_hist_quantile): -1 when empty. */
double audit_sharp_quantile(const audit_sharp_dist *d, double q);

typedef struct {
    int a, b;                /* engine indices; a is the reference side */
    long first_diff_step;    /* first step after whose update the params differ bitwise (0: never) */
    double *param_rel_l2;    /* per step (index step-1), NAN when not both active */
    double *param_max_ulp;
    double *loss_diff;       /* |loss_a - loss_b| per step */
    long disagree[64];       /* test images classified differently, per epoch */
    /* exact McNemar per epoch between two non-reference engines (b: a right,
     * b wrong), overall and per true class (mcnemar_class[epoch * n_classes
     * + k]; NULL until evaluated) */
    stats_mcnemar mcnemar[64];
    stats_mcnemar *mcnemar_class;
    audit_slot_stats slot[AUDIT_MAX_SLOTS];
    audit_sharp_dist sharp_kind[AUDIT_SK_N]; /* the sharper tier's margin per kind (pairs with a reference a) */
} audit_pair;

typedef struct {
    char label[AUDIT_LABEL_BYTES]; /* the spec (any length make_engines accepts: spec's), with "#2" for a repeat */
    char spec[128];
    int is_ref, available, repeat_of; /* repeat_of: index of the first run, or -1 */
    int perturb_ulps;        /* perturb=K: initial weights moved K ulps each (0: none) */
    int ref_fp32cr;          /* a reference in fp32cr mode: its own values are rounded (u |ref| each) */
    /* state round-trip checks: a training step of the engine from its own
     * state vs the same step of a second instance of its spec loaded with
     * the state it reported before it (set_tensor), run twice; rt_fail_step
     * and rt_input_step are that training step's number */
    long rt_checks, rt_fail_step, rt_nondet;
    char rt_first[48];       /* the first tensor that differed */
    long rt_eval_step;       /* the first round trip whose engine step was reproduced bit for bit by its
                              * second instance after one inference pass from the reported state: the
                              * difference is what an evaluation leaves set, not the state (the training
                              * step's number; 0: none; rt_first names its first digest; zoo attack 12) */
    long rt_partial_step;    /* the same, reproduced after one training step on a batch of the size of the
                              * engine's step before (a partial batch), and after an inference pass as well when
                              * rt_partial_eval: what a partial batch leaves set (zoo attack 13) */
    int rt_partial_eval;
    long rt_prev_step;       /* the same, reproduced after the second instance replayed the step before (from the
                              * state the engine reported before it, on its batch): what that step leaves in the
                              * engine (a buffer, a mask) and this one reads (zoo attack 16) */
    long rt_input_step;      /* the first round trip whose step (the engine's or its second instance's)
                              * computed with other images than the batch it was given, 0: none (zoo attack 11) */
    char rt_none[200];       /* why the engine has no round trip (no second instance), "" when it has one */
    char other_path[160];    /* tensors whose next layer ran on another kernel than training's when
                              * set from outside (describe()'s "other_path"), "" when none */
    int perturb_draw;        /* draw=D: which random direction (0: the default one) */
    char skip_reason[512];
    int recorded;            /* a recording (recorded:PATH): played back, free mode only */
    long shadows;            /* shadow replays started from its state (free mode: the reference replayed its step
                              * per element); a recording with none was never replayed by the reference */
    char *describe;
    long steps_run;
    double train_s[64];      /* per epoch: time in this engine's training calls + batch making */
    size_t images[64];
    double test_acc[64], test_loss[64];
    long *confusion;         /* last epoch, classes x classes */
    uint8_t *pred;           /* last epoch */
    uint8_t *pred_epoch;     /* every epoch: [epoch * n_test + image] */
    float *logits;           /* last epoch: n_test x n_classes */
    size_t peak_rss;
    size_t rt_clone_rss;     /* the peak RSS of its state round trip's second instance (0: none) */
    engine_timing timing;    /* from the child */
    engine_timing_samples *tsamples; /* per-call spread from the child (owned; NULL: none, e.g. recorded) */
    /* every-step checksums (checks/checksums.h), training steps and
     * evaluation batches of this engine, in every mode */
    int ck_have;             /* the engine computes them (0: ck_none says why) */
    int ck_sent;             /* a vector requested (every_step_send), not yet read */
    double ck_t_sent;        /* when */
    char ck_none[200];
    char ck_partial[320];    /* non-empty: some blocks of the vector are not judged, and why */
    double ck_u_in;          /* the operand rounding its vectors were judged at (0: fp32; a recording's: what its
                              * own engine.spec declares) */
    long ck_steps;           /* training steps judged by checksums */
    long ck_light_steps;     /* of them, light steps (--complete-every K: CK_STAGE_LIGHT) */
    int ck_last_light;       /* the last STEP vector judged was light (every_step.c: a step un-counted) */
    long ck_skipped;         /* training steps not judged (fed inputs: checked per element instead) */
    long ck_eval_batches;    /* evaluation batches judged */
    int ck_eval_epochs;      /* epochs whose whole evaluation was judged */
    long ck_relations;       /* relations and re-checks judged, in all */
    long ck_unjudged;        /* relations and re-checked elements not judged: fp32 may overflow there
                              * (checks/checksums.c, ck_rel_unbound), in all */
    long ck_unjudged_step;   /* the first drift step with some (0: none, or only in evaluations) */
    int ck_unjudged_eval_epoch; /* 1-based: the first evaluation epoch with some, else 0 */
    long ck_viol_checks;     /* steps or evaluation batches with a violation */
    long ck_first_step;      /* the first violation's step (0: none, or in an evaluation) */
    int ck_first_eval_epoch; /* 1-based epoch when the first violation is in an evaluation, else 0 */
    ck_violation ck_first;
    double ck_worst;         /* worst ratio to the tolerance over everything judged */
    long ck_worst_step;
    char ck_worst_what[160];
    float *ck_step_ratio;    /* per drift step (index step-1): the worst ratio there; NAN: not judged */
    long ck_total;           /* its length */
    double ck_dig[3 * MODEL_MAX_TENSORS]; /* the digests the last update reported */
    int ck_chain;            /* ck_dig is what the next step must compute with */
    int ck_seeded;           /* and the audit set it (every_step_seed_chain), no update since */
    double ck_s;             /* seconds in the checksum op and its judging */
    /* a repeat of a host engine (the same spec listed twice): judged on its
     * first listing's vector at every stage where the two operand hashes
     * agree (engines/checksums.c), on its own vector from the first stage
     * where they do not */
    int ck_twin_of;          /* that first listing, or -1 */
    int ck_twin_on;          /* still sharing */
    long ck_twin_steps;      /* training steps judged on the first listing's vector */
    long ck_twin_split;      /* the drift step where the hashes first disagreed (0: never; -1: before the drift) */
    char ck_twin_off[96];    /* why sharing stopped, when not a disagreement (the first listing failed) */
    /* the relations' sharper tier (checks/checksums.h): SUSPECT, not PROBLEM */
    long ck_n_sharp;         /* relations judged on a sharper tier than the worst case */
    ck_block_margin ck_blk[MODEL_MAX_LAYERS][CK_NPHASE_ALL]; /* per block of relations, over the run (training and
                                                               * evaluation): the worst ratio to each tier */
    double ck_sharp_worst;   /* their largest ratio to the sharp tolerance */
    long ck_sharp_worst_step;
    char ck_sharp_worst_what[160];
    long ck_sus_checks;      /* steps or evaluation batches with a relation over the sharp tier only */
    long ck_sus_step;        /* the worst such relation's step (0: in an evaluation) */
    int ck_sus_eval_epoch;
    ck_violation ck_sus;     /* it: phase, layer, ratio to the sharp tolerance */
    double ck_sus_worst_ratio; /* ... and to the worst-case tolerance */
    /* the sign test over the relations' residuals (checks/checksums.c, judge_sign): its largest |z| / limit in any
     * block (the margin of a legal engine; over 1 is a SUSPECT above), where, and which block; 0: none judged */
    double ck_sign_worst;
    long ck_sign_worst_step;  /* 0: in an evaluation */
    char ck_sign_worst_what[160];
    /* the first such relation in time (zoo attack 13: a fault that is on from step 1, e.g. rounding toward zero,
     * is over the sharp tier at every step; its worst relation, at any step, says neither where nor when it
     * began; the finding names this one, as a PROBLEM names its first violation) */
    long ck_sus_first_step;  /* its step (0: in an evaluation) */
    int ck_sus_first_eval_epoch;
    ck_violation ck_sus_first; /* the worst relation of that step's first stage with one */
    double ck_sus_first_worst_ratio;
    /* updates whose Adam re-check found tensors in a named legal order (base/adam_orders.h), bit for bit: ok,
     * said in the coverage line; the tensor with the most such elements, in words, their count, and its step */
    long ck_legal_updates;
    double ck_legal_count;
    long ck_legal_step;
    char ck_legal_what[160];
    float *ck_step_sharp;    /* per drift step: the worst ratio to the sharp tolerance; NAN: not judged */
    float *ck_step_unjudged; /* per drift step: relations and re-checks not judged (fp32 may overflow there) */
    unsigned char *ck_step_elem; /* per drift step: 1 where it was checked per element against the reference
                                  * (a shadow replay, an isolated or sync step): the headline's unchecked steps */
    unsigned char *ck_step_op; /* per drift step: 1 where its every-step checks found wrong one of the step's own
                                * operations that reads no parameter, m or v (a ReLU, pool, dropout or flatten, the
                                * loss, a weight or bias gradient: a relation re-done from the step's own tensors,
                                * not a continuity break between steps): no state can make such an operation wrong,
                                * so the state round trip judged at that step proves nothing about the state */
    /* evaluation vs the reference (last epoch): the reference's logits from
     * this engine's weights for the first ev_ref_images test images,
     * against the engine's, bounded by the propagated forward error */
    long ev_ref_images;      /* 0: not measured (ev_ref_why) */
    char ev_ref_why[96];
    int ev_ref_epoch;        /* 1-based */
    double ev_ref_worst;     /* worst |z - z_ref| / propagated bound */
    long ev_ref_over;        /* logits over their bound */
    long ev_ref_unjudged;    /* logits whose propagated bound is +inf (a legal fp32 evaluation may overflow on the
                              * way, bounds_eval_layer): not judged, not within */
    long ev_ref_inner;       /* layer inputs inf or NaN where their propagated bound is finite: over it (the exact
                              * value is finite), ratio inf - a fault the logits' +inf bounds would not show */
    long ev_ref_pred_diff;   /* images whose predicted class differs from the reference's */
    int ev_ref_tie_on;       /* the comparison pass's logits tied bit for bit to the last evaluation's (a
                              * deterministic engine: cpu) */
    long ev_ref_tie_bad;     /* images whose logits differ between the two passes (zoo attack 12) */
    long ev_ref_tie_first;   /* the first such image (0-based), when ev_ref_tie_bad */
    int failed;              /* its process died (or hung) during the run: left out from failed_step on */
    long failed_step;
    int failed_in_attr;      /* failed_step is an attribution step (no drift step ran with it) */
    int failed_in_eval;      /* it died in the evaluation after failed_step (that step ran whole) */
    char fail_reason[256];   /* "died at step 2 (signal 9, Killed)" */
} audit_engine;

typedef struct {
    int n_engines;
    audit_engine eng[AUDIT_MAX_ENGINES];
    int n_pairs;
    audit_pair pair[AUDIT_MAX_PAIRS];
    int n_slots;
    char slot_name[AUDIT_MAX_SLOTS][40];
    char slot_phase[AUDIT_MAX_SLOTS][12]; /* forward, loss, backward, update */
    long total_steps;
    size_t batch;            /* the run's batch size (bounds' K for weight gradients) */
    long attribution_steps;  /* steps of the attribution phase run (0: none) */
    int epochs_done;
    int drift_mode;          /* lockstep_mode of the drift phase (the run's mode) */
    size_t n_test;           /* test images evaluated (after --limit-test) */
    int n_classes;
    uint8_t *test_labels;    /* n_test, when evaluated */
    double compare_s, total_s;
    double checks_s;         /* the every-step checks (steps and evaluation batches), wall time, all engines at once */
    double roundtrip_s;      /* of compare_s: the state round-trip checks */
    double sharp_s;          /* of compare_s: the sharper tier (its tests; its bounds are the worst case's x factor) */
    int problems, unchecked, nondet; /* the verdict table's counts */
    int incomplete;          /* engines listed that did not run (or died), +1 when interrupted */
    int suspects;            /* engines SUSPECT (sharper tier) and not PROBLEM */
    struct seeds_result *seeds; /* the seed loop's result (cfg.seeds > 0), owned; NULL when none */
    int gate;                /* 1 when cfg.fail_on matched: `audit` exits 1 */
    size_t parent_peak_rss;
    long jsonl_lines;
    int n_failed;            /* engines whose process died during the run */
    long abandoned_step;     /* the last drift step a death abandoned for every engine (0: none) */
    int interrupted;         /* the signal (SIGINT/SIGTERM) that stopped the run early, else 0 */
    long interrupted_step;   /* the last step completed before it stopped */
    int interrupted_seeds;   /* the stop came in the seed loop: the main run is whole, the seeds are not in */
    /* for the commands layer, after the driver has freed its engines */
    audit_cfg cfg;           /* the effective configuration (a recording's plan adopted) */
    model m;
    dataset ds;              /* owned: freed by audit_result_free */
    long n_shadows;          /* shadow replays run */
    int recordings_unreplayed; /* recordings that ran to the end with no shadow replay (eng[i].shadows == 0): the
                                * reference replayed none of their steps (driver.c recording_owes_shadow) */
    long *full_steps;        /* the drift steps fully compared (every tensor), in order; NULL when none kept */
    long n_full_steps;
    long last_step;          /* the last step run */
    char jsonl_path[1024];   /* steps.jsonl.gz (with cfg.out_dir), complete under jsonl_tmp */
    char jsonl_tmp[1100];    /* until the command renames it into place; "" when none */
} audit_result;

/* The driver: set up the engines, run the attribution phase and the drift
 * phase (training with every comparison, evaluation, round trips, shadow
 * replays), and fill res (the caller frees it with audit_result_free).
 * It writes steps.jsonl.gz (under res->jsonl_tmp) and --save files, nothing
 * else: the seed loop, the verdicts and the report are the commands
 * layer's (commands/audit_cmd.h: audit_run does all of it).  Returns 0 or
 * an error with ls_errmsg() set; after an error res is zeroed. */
int audit_drive(const audit_cfg *c, audit_result *res);
void audit_result_free(audit_result *r);

/* Index of a slot by name ("conv1.act", "fc1.weight.grad"), or -1. */
int audit_slot(const audit_result *r, const char *name);
/* Index of the pair of engines labelled a and b (either order), or -1. */
int audit_pair_index(const audit_result *r, const char *a, const char *b);

#endif
