/*
 * seeds.h — the seed loop (issue 11): the drift phase of an audit (free
 * mode, no reference engines, whole training, test evaluation after every
 * epoch) repeated for seeds s0, s0+1, ..., s0+N-1, several audits at once
 * in child processes, and the statistics that say whether a gap between
 * two engines means anything:
 *
 *   - per engine and epoch: test accuracy over seeds (mean, sd, min, max);
 *   - per pair and epoch: the paired gap (same seed, engine a - engine b)
 *     with a 95% t-interval, against the unpaired seed-to-seed sd, and the
 *     verdict (indistinguishable / a better by X +- Y points);
 *   - per pair, seed and epoch: the exact McNemar test on the discordant
 *     test images, overall and per class;
 *   - the noise floor drawn K times: an engine against itself started 1 ulp
 *     away (perturb=1) in K different directions — one draw per seed
 *     (draw=i at seed s0+i), plus floor_draws extra draws at seed s0 —
 *     as a distribution of flips and |accuracy gap|, and each pair's flips
 *     and gap judged against it;
 *   - per pair: top-two logit margins of the flipped images against every
 *     image's (rank of a flip's margin in the test set);
 *   - per pair: growth of the parameter distance (rel. L2) over steps,
 *     fitted as an exponential, and the step where it leaves the floor's
 *     band (stats_band_exit).
 *
 * Processes: seeds_run forks one child per audit, at most `jobs` at a
 * time (seeds_start the first of them before the main audit, at idle
 * priority); each child runs audit_drive (which forks its engine
 * processes) and sends its numbers back through a pipe.  Like remote_engine_create, it
 * must be called before this process starts any thread (OpenMP, oneDNN,
 * MPFR threads): a child forked from a threaded process can hang.
 * seeds_run refuses in that case.  The audit itself (audit_drive) starts no
 * thread in its own process, so seeds_run may follow it.
 *
 * Not here: the main audit's report (report.c places seeds_print and
 * seeds_json where it wants them).
 */
#ifndef LS_SEEDS_H
#define LS_SEEDS_H

#include <stdio.h>

#include "audit/audit.h"
#include "base/stats.h"

#define SEEDS_MAX 64          /* seeds, and floor draws */
#define SEEDS_MAX_EPOCHS 64
/* A flip whose margin ranks among the smallest SEEDS_NEAR_TIE_RANK of the
 * test set's margins (on the same engine) counts as a near-tie flip: if
 * flips had nothing to do with margins, that share would be ~5%. */
#define SEEDS_NEAR_TIE_RANK 0.05

typedef struct {
    int n_seeds;     /* N >= 1: seeds s0 .. s0+N-1 (s0 = the audit's --seed) */
    int jobs;        /* audits at once (>= 1) */
    int floor_draws; /* extra noise-floor audits at seed s0 (draw=N..N+K-1), 0: one draw per seed only */
} seeds_cfg;

typedef struct {
    char label[AUDIT_LABEL_BYTES];            /* the engine as listed (draw=.. added per seed is not in it) */
    int perturbed;              /* a noise-floor copy (perturb=K) */
    int available;              /* ran in every seed */
    int missing_seed;           /* not available: the first seed (as an offset from seed0) whose audit did not
                                 * give its result (it did not run, or died part-way); -1: none */
    double acc[SEEDS_MAX][SEEDS_MAX_EPOCHS]; /* [seed][epoch] */
    stats_spread spread[SEEDS_MAX_EPOCHS];   /* per epoch, over seeds */
    uint8_t *pred[SEEDS_MAX];   /* per seed: [epoch * n_test + image] */
    double *margin[SEEDS_MAX];  /* per seed: last epoch's top-two margins, n_test */
} seeds_engine;

typedef struct {
    int a, b;                   /* indices into eng[] (a listed first) */
    int floor_pair;             /* b is a perturbed copy of a (or the reverse): a floor draw, not a verdict */
    long flips[SEEDS_MAX][SEEDS_MAX_EPOCHS];          /* test images classified differently */
    stats_mcnemar mcnemar[SEEDS_MAX][SEEDS_MAX_EPOCHS];
    stats_mcnemar *mcnemar_class[SEEDS_MAX];         /* last epoch, per true class (n_classes each) */
    stats_paired paired[SEEDS_MAX_EPOCHS];            /* acc_a - acc_b over seeds, per epoch */
    char verdict[400];          /* last epoch: stats_seed_verdict, and when "better", whether beyond the floor */
    int beyond_floor;           /* |mean paired gap| > the floor's largest |gap| (1), not (0), no floor (-1) */
    /* last epoch against the noise floor */
    int flips_within, gap_within; /* seeds whose flips / |gap| lie within the floor (of n_seeds) */
    double flips_p_emp_max;     /* the largest empirical p over seeds (most floor-like) */
    double flips_p_emp_min;     /* the smallest (least floor-like) */
    /* last epoch, pooled over seeds: margins on engine a and on engine b */
    stats_summary margin_flip_a, margin_flip_b, margin_all_a;
    stats_summary flip_rank_a;  /* ranks (0..1) of flipped images' margins among all images', engine a */
    long near_tie_flips, total_flips; /* flips with rank < SEEDS_NEAR_TIE_RANK on engine a */
    /* divergence of the parameters, per seed */
    double *rel_l2[SEEDS_MAX];  /* per step (index step-1), NaN where not compared */
    stats_growth growth[SEEDS_MAX];
    double rate_median;         /* of the per-seed growth rates (per step) */
    long band_exit[SEEDS_MAX];  /* first step (1-based) out of the floor band, 0: never, -1: no band */
} seeds_pair;

typedef struct seeds_result {
    int n_seeds, n_draws_extra, jobs, epochs;
    uint64_t seed0;
    int seed0_from_audit;       /* seed s0 is the main audit's run (prior), not re-run */
    long total_steps;
    size_t n_test;
    int n_classes;
    uint8_t *labels;            /* n_test */
    int n_engines;
    seeds_engine eng[AUDIT_MAX_ENGINES];
    int n_pairs;
    seeds_pair pair[AUDIT_MAX_PAIRS];
    /* the noise floor, last epoch: one value per draw */
    int n_draws;
    double floor_flips_draw[2 * SEEDS_MAX], floor_gap_draw[2 * SEEDS_MAX];
    stats_floor floor_flips, floor_gap; /* flips; |accuracy gap| as a fraction */
    double *band_lo, *band_hi;  /* per step over the floor draws' rel-L2 curves (NaN: none) */
    char floor_engine[AUDIT_LABEL_BYTES];      /* the engine whose perturbed copy gives the floor ("" if none) */
    double wall_s;              /* the whole loop (from seeds_start when it started early) */
    int early;                  /* its audits started with the main audit (seeds_start), at idle priority */
    double after_audit_from;    /* (early) when the main audit was over, ls_now() */
    double after_audit_s;       /* the loop's time after the main audit (= wall_s when not early) */
    double job_s[2 * SEEDS_MAX]; /* each audit's wall time in its child */
    double job_cpu_s[2 * SEEDS_MAX]; /* and its CPU time, engine processes included (NaN: not run here) */
} seeds_result;

/* seeds_result is large (~10 MB of fixed tables): allocate it on the heap. */

/* Run the seed loop for the non-reference engines of base->engines (the
 * rest of *base — model, data, batch, epochs, lr, limits, threads — as
 * given; mode free, repeat 1, evaluation on).  If no engine of the list is
 * perturbed, "<first engine>:perturb=1" is added as the floor.  out is
 * filled (free with seeds_result_free).  prior (may be NULL): the main
 * audit of *base, already run; when it trained every engine of the loop in
 * free mode with evaluation over the whole run, it is taken as seed s0
 * instead of running that seed again (out->seed0_from_audit).  Returns 0,
 * or an error with ls_errmsg() set (out then holds nothing to free). */
typedef struct seeds_early seeds_early;
int seeds_run(const audit_cfg *base, const seeds_cfg *sc, const audit_result *prior, seeds_early *early,
              seeds_result *out);

/* The loop's audits started before the main audit, in Linux's idle
 * scheduling class (SCHED_IDLE; their engine processes inherit it): the
 * main audit leaves a core idle much of the time (its reference, its
 * serial comparisons, engines waiting for each other: `make run` used 1.37
 * of 2 cores), and the loop's audits run there instead of after it.  An
 * idle-class process yields the moment a normal one wakes; still, the
 * audit's own processes slow down (caches and memory shared): measured
 * on the 2-core machine, the main job's audit 137 s alone, 154 s with
 * the loop alongside, which was done 27 s later (181 s, against 200 s one
 * after the other); at nice 19 instead the audit took 180 s; `make run`
 * alternating with the build before, medians 252 s -> 193 s.  Started: the first
 * `jobs` audits, leaving out seed s0 when the audit's configuration lets it
 * be seed s0 (seed0_from_audit).  seeds_run then takes them over (early),
 * once the audit is known.  Every audit of the loop, early or not, lists
 * all the engines of --engines, so that each keeps its place in the list
 * (a perturbed copy's direction is keyed by it); an engine the main audit
 * could not run (cuda without a GPU) is dropped from their results and
 * from the loop's, as it is absent from seed s0.  Should leaving it out
 * change the noise floor's engine, the audits list the loop's engines only
 * and early ones are killed and run again.  seeds_run frees early on every
 * path; seeds_early_free kills and reaps what still runs (a main audit that
 * failed or was stopped).  Same rule as seeds_run: call before this process
 * starts any thread. */
int seeds_start(const audit_cfg *base, const seeds_cfg *sc, seeds_early **out);
void seeds_early_free(seeds_early *e);
void seeds_result_free(seeds_result *r);

/* The significance section from audits run elsewhere (a sweep's merge:
 * one audit of recorded engines per seed, commands/sweep.c): the same
 * statistics as seeds_run's, over n_eng engines named labels[0..n_eng-1]
 * (e.g. "cpu-a/cpu"), seed i's audit contributing its engines map[i][t]
 * (an index into runs[i]->eng, -1: absent, which leaves that engine out
 * of every pair).  No noise floor is drawn (none is listed).  out is
 * filled (free with seeds_result_free).  Returns 0 or an error. */
int seeds_from_audits(seeds_result *out, const audit_result *const *runs, int n_runs, const uint64_t *seeds,
                      char labels[][256], int n_eng, int map[][AUDIT_MAX_ENGINES]);

/* A compact table (at most ~10 lines for three engines): accuracy spread
 * per engine, then per pair the verdict, McNemar, the floor, margins and
 * divergence. */
void seeds_print(FILE *f, const seeds_result *r);

/* The seed loop as a JSON object (no trailing newline): "seeds": {...}. */
void seeds_json(lsbuf *b, const seeds_result *r);

/* One audit pair's issue-11 numbers for run.json, as a JSON object: McNemar
 * per epoch and per class of every epoch, the logit margins of the last
 * epoch's flipped images against all images (both engines), and the growth
 * fit of the parameter distance.  Between two non-reference engines only
 * (else writes null).  class names from the run's data directory. */
void seeds_pair_json(lsbuf *b, const audit_result *r, int pair, const char *data_dir);

/* ---- the logit-margin histogram, in one place: run.json (seeds_json), the
 * report's table and its chart all read these numbers ---- */
#define SEEDS_MARGIN_BINS 8

typedef struct {
    long n_flipped, n_all;                 /* images counted (pooled over seeds) */
    long flipped[SEEDS_MARGIN_BINS], all[SEEDS_MARGIN_BINS];
    double flipped_pct[SEEDS_MARGIN_BINS], all_pct[SEEDS_MARGIN_BINS]; /* % of n_flipped / n_all (0 when none) */
} seeds_margin_bins;

/* Bin labels: "< 1e-4", "1e-4..1e-3", ..., ">= 3" (top-two logit margin). */
extern const char *const SEEDS_MARGIN_LABELS[SEEDS_MARGIN_BINS];

/* The histogram of engine a's top-two logit margins, last epoch, pooled
 * over seeds, of pair pi: the images a and b classify differently, and all
 * images.  Returns 0, or -1 when the pair has no margins kept. */
int seeds_margin_histogram(const seeds_result *S, int pi, seeds_margin_bins *out);

#endif
