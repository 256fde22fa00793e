/*
 * rounding_tests.h — the sharper tier's judgement of one tensor against the
 * exact reference (bounds.h: "the sharper, probabilistic tier"): per
 * element, the ratio of the error to the sharp bound; per tensor, two
 * aggregate tests of the signed errors against what independent mean-zero
 * rounding errors allow.
 *
 *   bias   two sign tests: under the model the first-order error of an
 *          element is sum_k delta_k s_k with independent, symmetric delta_k
 *          (given the data), so it is positive as often as negative, and
 *          away from zero (sign(err) = sign(ref)) as often as toward it.
 *          Among the m elements with a nonzero error (and other than
 *          the exact value correctly rounded: below), S = n_pos - n_neg
 *          (an additive shift: +1 ulp) and A = n_away - n_toward (a
 *          relative one: y (1 + 2^-k), truncation toward zero);
 *          Hoeffding: P(|S| >= t) <= 2 exp(-t^2 / (2m)), the same for A;
 *          each at alpha / 2.
 *          It ignores magnitudes, so the heavy tail of errors in ulps that
 *          near-zero outputs (cancellation) give cannot trip it, and a
 *          systematic shift of one ulp, which moves every element that was
 *          within an ulp, is seen at once.  Why a sign test and not a mean:
 *          a mean of err/bound is dominated by the few large normalised
 *          errors; the sign of each counts once.
 *   scale  a mean square: z_i = err_i / sigma_i with sigma_i
 *          (bounds_sd_factor) a bound on the element's RMS error, so
 *          E[z_i^2] <= 1; clipped at c^2 = (sharp_i / sigma_i)^2 (an element
 *          beyond the sharp bound is the per-element test's), Hoeffding over
 *          the n independent elements, Bernstein (each term in [0, c^2],
 *          variance <= E[z^4] <= c^2 E[z^2] <= c^2):
 *          P(mean >= 1 + t) <= exp(-n t^2 / (2 c^2 (1 + t/3))).
 * Duplicates: real tensors hold many copies of one computation (MNIST's
 * blank background: every conv output over it is the same dot product of
 * the same operands, with the same rounding error); they are one rounding,
 * not many, and counting them apart breaks the independence the tests
 * assume (measured: conv2.act of smallcnn at step 1, sign z 14 with the
 * copies, on a legal engine).  The aggregate tests therefore count each
 * distinct (reference, candidate) pair once (a hash set in caller scratch).
 * Shared roundings: distinct elements may still share a rounded
 * intermediate (the same partial sum over a blank region, the same
 * product w x of a repeated pixel value), so their errors are dependent,
 * and dependence within one output channel (one weight set) is what the
 * data give: measured on a legal engine, conv1.act and conv2.act of
 * smallcnn reach sign z -6.7 and 7.5 counted as independent.  The sign
 * tests therefore use a cluster-robust variance, clusters the output
 * channels (cluster = (i / cdiv) % cmod, folded to RT_CLUSTERS):
 *   var(S) = max(m, C/(C-1) sum_c (S_c - m_c S/m)^2),
 * the between-channel spread of the per-channel sums about their share of
 * S (so a shift common to every channel, the fault, does not inflate it),
 * never below the independent m.  With it the stated alpha holds for
 * channels that are independent of each other, dependence within one
 * allowed (asymptotically in C: with few channels it is an approximation,
 * which the legal variants' measured margin backs: tests/EVIDENCE.md,
 * "Two tiers").
 * Too few clusters: with C clusters the robust variance has C - 1 degrees
 * of freedom, and S / sqrt(var S) is about Student's t with C - 1 (the
 * usual small-sample reference for cluster-robust tests, Cameron & Miller,
 * J. Human Resources 2015).  Where the dependence within a channel is
 * strong and every channel happens to lean the same way (probability
 * 2^(1-C) when each leans either way alike), the spread about the shares
 * is small, var S falls to the floor m, and S / sqrt(m) is the channels'
 * common lean, far beyond the limit: the test is then the independent one
 * the shared roundings break.  With C = 1 there is no spread at all.  The
 * bound that holds for any dependence within a cluster (Hoeffding over
 * the clusters, S_c in [-m_c, m_c]: var S <= sum_c m_c^2 >= m^2 / C) can
 * reach the limit L only when sqrt(C) > L, C >= 50, so it gives nothing
 * either.  The sign tests are therefore not judged (bias_judged 0, score
 * 0) where fewer than RT_MIN_CLUSTERS clusters hold a counted sign and the
 * tensor has a channel structure (cmod >= 1): t with 7 degrees of freedom
 * exceeds L = 7.0 with probability 2e-4 even under total dependence within
 * a channel (t with 1: 0.09, t with 3: 6e-3).  Measured: a legal cpu engine
 * (every thread count and layout) on a first conv of 1, 2 or 3 filters, or
 * a dense layer of 1 or 2 outputs, over images normalized to a nonzero
 * background (--normalize 0.2860,0.3530: the constant -0.81 in every
 * blank pixel; the windows and batch sums that share its products share
 * their roundings) was SUSPECT by a sign test in 15 of 20 runs (sign z up
 * to 27, 3.9x the limit); 4 and 8 filters in none of 9.  A shift in such a
 * small layer is left to the worst-case tier, the per-element sharp bound
 * and the mean-square test.  A tensor without a structure (cmod 0: the
 * tests' simulations of independent errors) keeps the independent m.
 * Correctly rounded elements: where the candidate is the exact value
 * rounded to nearest fp32 (RN(ref), the best any fp32 engine can give),
 * its error RN(ref) - ref is the output's representation error, fixed by
 * the exact value alone: no engine can change it, so its sign says nothing
 * of the engine, and the sign tests count only the elements that differ
 * from RN(ref) (their error's sign is the sign of cand - RN(ref)).  On
 * ordinary data this drops coin flips (ref's place between two floats is
 * spread evenly, so the sign of RN(ref) - ref is a fair one) and leaves
 * every engine error of an ulp or more counted; what it gives up is an
 * engine rounding one way whose results equal RN(ref) anyway (a single
 * rounding up matches RN in half the elements: sign z sqrt(m/2) where it
 * was sqrt(m), test_rounding_tests), evidence that held only while the
 * data spread ref evenly.  It is also what an fp32cr reference (ref =
 * RN(exact)) always counted: the two references' counts now agree (step 1
 * of the zoo's setup, where both see the same inputs: within 0.03%, the
 * rest not traced).  Where it is not spread evenly the coin is loaded by
 * the data: measured, a network saturated by
 * images x1e38 (--normalize -2,1e-38 --lr 1e-9), fc2's backward-data
 * dx = (W[p] - W[l]) / 16 (every softmax one-hot): the weights' initial
 * draw lies on a coarse grid (every such difference exact at step 1), and
 * step 1's update moved only the small weights, by 1-4 ulps, each row one
 * way (a row's gradient has one sign there); the difference then rounds
 * those ulps away, so its error is minus the update's, one-signed: a clean
 * cpu engine, correctly rounded in all 1024 elements, had 135 of 152
 * nonzero errors positive (sign z 9.57 against 7.0).  RN is taken of the
 * double ref (a double rounding: RN(RN53(x)) may differ from RN(x) at a
 * tie, where the element then counts as before).  An fp32 ref (golden
 * files, an fp32cr reference) is its own RN: nothing changes there.
 * Thresholds: both at false-alarm probability alpha per tensor and check
 * (bounds.h: BOUNDS_SHARP_ALPHA_TEST).  Elements with a worst-case bound of
 * 0 (exact results) and non-finite pairs are the worst-case tier's, not
 * counted here.  The errors of different elements are different roundings:
 * independent under the model (it is the model that is tested).
 *
 * Pure: no allocation, no I/O.
 */
#ifndef LS_ROUNDING_TESTS_H
#define LS_ROUNDING_TESTS_H

#include <stddef.h>
#include <stdint.h>

#define RT_CLUSTERS 1024
/* Fewer occupied clusters than this: the sign tests are not judged (above) */
#define RT_MIN_CLUSTERS 8
/* The aggregate tests judge at most RT_SAMPLE elements per tensor, a
 * fixed subset spread over it (1024 blocks of 64 contiguous elements,
 * rounding_tests.c; the per-element sharp ratio sees every element): over
 * all elements the duplicate set cost ~100 ns an element, 30% of an
 * audit's comparison time; 2^16 elements keep the sign test's standard
 * error at 0.4% (times the measured design effect). */
#define RT_SAMPLE 65536

/* The per-element ratio's distribution (issue 24: how much margin the
 * sharp bound leaves on a real model), one bucket per power of two, no
 * sorting: bucket 0 the exact elements (error 0), 1 the ratios in
 * (0, 2^RT_HIST_LO), then [2^k, 2^(k+1)) for k = RT_HIST_LO .. RT_HIST_HI-1
 * (bucket rt_hist_bucket(k)), the last >= 2^RT_HIST_HI.  Exact floor(log2)
 * of the ratio from the two exponents (no division per element). */
#define RT_HIST_LO (-30)
#define RT_HIST_HI 4
#define RT_HIST_N (RT_HIST_HI - RT_HIST_LO + 3)
#define rt_hist_bucket(k) ((k) - RT_HIST_LO + 2)

typedef struct {
    int32_t cs[RT_CLUSTERS], ca[RT_CLUSTERS], cm[RT_CLUSTERS]; /* per cluster: S, A, m (scratch) */
    size_t n;                 /* elements judged (worst-case bound > 0, finite) */
    size_t n_distinct;        /* ... of which in the sample and distinct (ref, cand) pairs: the aggregate tests' */
    double max_sharp_ratio;   /* max |err| / sharp bound (-1: none judged) */
    size_t worst_sharp_index;
    size_t n_over_sharp;      /* elements over the sharp bound */
    uint64_t hist[RT_HIST_N]; /* the n elements' ratios, bucketed (RT_HIST_*) */
    int aggregate;            /* 1 when the aggregate tests ran (a reduction rule) */
    int bias_judged;          /* 1 when the sign tests judged (aggregate, and RT_MIN_CLUSTERS where clustered) */
    size_t n_clusters;        /* clusters that hold a counted sign (C) */
    size_t n_rn;              /* nonzero errors of correctly rounded elements: no sign counted */
    size_t n_pos, n_neg;      /* signs of the other nonzero errors */
    size_t n_away;            /* ... of which away from zero (sign of the error = sign of ref) */
    double sign_z;            /* S / sqrt(var S), S = n_pos - n_neg, m = n_pos + n_neg (0 when m = 0) */
    double away_z;            /* A / sqrt(var A), A = n_away - (m - n_away) */
    double design_s, design_a; /* var / m: the clusters' variance inflation (>= 1) */
    double sign_limit;        /* |sign_z| or |away_z| >= sign_limit fails: sqrt(2 ln(4 / alpha)) */
    double sign_p;            /* Hoeffding's bound on P(max(|S|,|A|) >= observed) under the model (1 when none) */
    double ms;                /* mean of min(z^2, c^2) */
    double ms_limit;          /* ms >= ms_limit fails: 1 + t, t Bernstein's at alpha */
    double ms_p;              /* P(mean >= observed) bound (1 when ms <= 1) */
    double bias_score, scale_score; /* max(|sign_z|, |away_z|) / sign_limit, ms / ms_limit: >= 1 fails */
    int bias_fail, scale_fail;
} rounding_stats;

/* The q-quantile (0 < q <= 1) of the ratios in hist (RT_HIST_N buckets),
 * read as the upper edge of the bucket that holds it: an upper bound on
 * the true quantile within a factor 2 (0 for the exact bucket; max, the
 * largest ratio seen, for the top bucket and whenever it is smaller).
 * -1 when hist is empty. */
double rt_hist_quantile(const uint64_t *hist, double q, double max);

/* A set of 64-bit keys in h (cap words, a power of two, zeroed; linear
 * probing; key 0 stands as 1): 1 when k was in it, else 0 and k added.
 * The duplicates of the per-element tests and of the every-step sign
 * tests (checks/checksums.c) both count a copy once through it. */
int rt_set_seen(uint64_t *h, size_t cap, uint64_t k);

/* Judge cand against the exact ref, element i with worst-case bound
 * worst[i] (>= 0): sharp bound sharp_factor x worst[i] + ref_u |ref[i]|,
 * sigma_i^2 = (sd_factor x worst[i])^2 + (ref_u ref[i])^2 (ref_u: the
 * reference's own rounding, u for an fp32cr reference, else 0).
 * sd_factor 0: no aggregate tests (per-element ratio only).
 * hash: caller scratch of hash_cap words (a power of two >= 2 min(n,
 * RT_SAMPLE)), for the
 * duplicates; NULL counts every element.  cdiv, cmod: element i's cluster
 * (output channel) is (i / cdiv) % cmod; cmod 0: no channel structure, one
 * cluster with the independent variance m; cmod >= 1: the tensor's
 * channels, whose sign tests are not judged with fewer than
 * RT_MIN_CLUSTERS of them holding a counted sign (cmod 1: never). */
void rounding_test_f64(rounding_stats *st, const double *ref, const float *cand, const double *worst, size_t n,
                       double sharp_factor, double sd_factor, double ref_u, double alpha, uint64_t *hash,
                       size_t hash_cap, size_t cdiv, size_t cmod);

/* The same with an fp32 ref: a golden file's values (golden_cli.c), where
 * both sides are fp32 evaluations: pass twice the per-side factors (each
 * side within its sharp bound of the exact value: the difference within
 * the sum, false alarm at most twice; sigma of the difference <= 2 sigma). */
void rounding_test_f32(rounding_stats *st, const float *ref, const float *cand, const double *worst, size_t n,
                       double sharp_factor, double sd_factor, double alpha, uint64_t *hash, size_t hash_cap,
                       size_t cdiv, size_t cmod);

/* The same on double candidates (the tests' simulations). */
void rounding_test_d(rounding_stats *st, const double *ref, const double *cand, const double *worst, size_t n,
                     double sharp_factor, double sd_factor, double ref_u, double alpha, uint64_t *hash,
                     size_t hash_cap, size_t cdiv, size_t cmod);

#endif
