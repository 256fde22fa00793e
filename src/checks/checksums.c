/*
 * checksums.c — the judgement of the every-step checksum vectors
 * (checksums.h).  Tolerances come from checks/bounds.c only.
 */
#include "checks/checksums.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/adam_bound.h"
#include "base/adam_orders.h"
#include "base/stats.h"
#include "base/util.h"
#include "checks/bounds.h"
#include "checks/compare.h"
#include "checks/rounding_tests.h"

/* bounds_ck_shape takes the phases by number */
_Static_assert(CK_BWD_W_PW == 8 && CK_FWD_RA == 9 && CK_BWD_DATA_CA == 12 && CK_BWD_W_Z == 13 && CK_FWD_RND == 14 &&
                   CK_BWD_W_PEEK == 17 && CK_FWD_PEEK == 18 && CK_BWD_DATA_PEEK == 19 && CK_FWD_DPEEK == 20 &&
                   CK_BWD_DATA_DPEEK == 21 && CK_BWD_W_RND == 22,
               "bounds_ck_shape's phase numbers");

const char *ck_phase_label(ck_phase p) {
    static const char *const n[] = {"forward", "backward-data", "backward-weights", "update", "evaluation", "loss"};
    return p < CKP_N ? n[p] : "?";
}

const char *ck_phase_coarse(ck_phase p) {
    static const char *const n[] = {"forward", "backward", "backward", "update", "evaluation", "loss"};
    return p < CKP_N ? n[p] : "?";
}

void ck_margins_init(ck_block_margin (*into)[CK_NPHASE_ALL]) {
    for (int l = 0; l < MODEL_MAX_LAYERS; l++)
        for (int ph = 0; ph < CK_NPHASE_ALL; ph++) into[l][ph] = (ck_block_margin){-1, -1, 0};
}

void ck_margins_merge(ck_block_margin (*into)[CK_NPHASE_ALL], const ck_block_margin (*from)[CK_NPHASE_ALL],
                      int n_layers) {
    for (int l = 0; l < n_layers && l < MODEL_MAX_LAYERS; l++)
        for (int ph = 0; ph < CK_NPHASE_ALL; ph++) {
            const ck_block_margin *f = &from[l][ph];
            ck_block_margin *t = &into[l][ph];
            if (!f->n) continue;
            t->n += f->n;
            if (f->worst > t->worst || f->worst != f->worst) t->worst = f->worst != f->worst ? INFINITY : f->worst;
            if (f->sharp > t->sharp || f->sharp != f->sharp) t->sharp = f->sharp != f->sharp ? INFINITY : f->sharp;
        }
}

void ck_verdict_init(ck_verdict *v) {
    memset(v, 0, sizeof *v);
    v->worst_layer = -1;
    v->sus.layer = -1;
    ck_margins_init(v->blk);
    v->worst_sign = -1;
}

/* A violation's place in the step's compute order, for ties (-1: not
 * ordered so).  The judge notes layer by layer, each layer's forward and
 * backward blocks together, but a step computes the forward upwards, then
 * the loss, then the backward downwards.  Ratios tie where they are
 * infinite: an exact re-check, or a NaN/Inf, which every relation after
 * it reads as an operand (zoo attack 8's fc2_dx_nan_dead_once: a NaN in
 * fc2's input gradient put conv1's backward-weights, judged first and
 * computed last, in v[0]); the first wrong tensor is the one computed
 * first.  The update, the evaluation (a forward, noted in order already)
 * and continuity (state between steps) keep the order they are noted in. */
static int step_order(ck_phase ph, int layer) {
    switch (ph) {
    case CKP_FORWARD: return layer;
    case CKP_LOSS: return MODEL_MAX_LAYERS;
    case CKP_BWD_DATA:
    case CKP_BWD_WEIGHTS: return 2 * MODEL_MAX_LAYERS - layer;
    default: return -1;
    }
}
static int computed_before(ck_phase ph, int layer, const ck_violation *prev) {
    int a = step_order(ph, layer), b = prev->between ? -1 : step_order(prev->phase, prev->layer);
    return a >= 0 && b >= 0 && a < b;
}

/* Judge one relation or re-check; a violation is kept among the
 * CK_MAX_VIOL first: of two that step_order places at different points of
 * the step (forward upwards, loss, backward downwards), the one computed
 * first, whatever the ratios; else the larger ratio (of equal ratios, the
 * one computed first, else the earlier noted).  v[0] is what a finding
 * names: the first wrong tensor of the step, as the zoo defines a fault's
 * layer and phase.  Each relation re-does one operation from the tensors
 * it was given, so a wrong tensor breaks only its own operation's
 * relations (a NaN or Inf aside, which ties at infinity and was ordered
 * so already), and two violations in different places of one step are two
 * operations gone wrong: the later may well have the larger ratio (zoo
 * attack 15's fc1_flatten_nhwc_all, a consistent NHWC flatten in all
 * three of fc1's operations: its forward 2017, its backward-weights' zero
 * elements 5.9e13, which named backward-weights for a fault whose first
 * wrong tensor is fc1's output).  The worst ratio stays in worst_*.
 * Returns where it was kept, -1 when not a violation or not kept. */
static int note(ck_verdict *o, ck_phase ph, int layer, double ratio, double count, const char *what) {
    o->n_relations++;
    /* the worst too: of equal ratios the one computed first, where step_order places both; else, as
     * before, a NaN ratio (an inf one, noted later) takes the place */
    double rq = ratio != ratio ? INFINITY : ratio;
    int a = step_order(ph, layer), b = o->worst_what[0] ? step_order(o->worst_phase, o->worst_layer) : -1;
    int tie = rq == o->worst_ratio && o->worst_what[0] && (a >= 0 && b >= 0 ? a < b : ratio != ratio);
    if (rq > o->worst_ratio || !o->worst_what[0] || tie) {
        o->worst_ratio = ratio != ratio ? INFINITY : ratio;
        o->worst_layer = layer;
        o->worst_phase = ph;
        snprintf(o->worst_what, sizeof o->worst_what, "%s", what);
    }
    if (ratio <= 1.0) return -1;
    double r = ratio != ratio ? INFINITY : ratio;
    int kept = o->n_viol < CK_MAX_VIOL ? o->n_viol : CK_MAX_VIOL;
    o->n_viol++;
    int k = kept;
    while (k > 0) {
        const ck_violation *p = &o->v[k - 1];
        int pb = p->between ? -1 : step_order(p->phase, p->layer);
        if (a >= 0 && pb >= 0 && a != pb) { /* both placed in the step: compute order decides */
            if (a > pb) break;
            k--;
            continue;
        }
        if (p->ratio < r) {
            k--;
            continue;
        }
        /* a tie: the nearest tie step_order places (continuity, update and
         * evaluation ties between are passed over, or a forward noted after
         * them, the input digest say, would stay behind a backward while the
         * worst above names it) */
        int j = k - 1;
        while (j >= 0 && o->v[j].ratio == r && (o->v[j].between || step_order(o->v[j].phase, o->v[j].layer) < 0))
            j--;
        if (j >= 0 && o->v[j].ratio == r && computed_before(ph, layer, &o->v[j])) k = j;
        else break;
    }
    if (k >= CK_MAX_VIOL) return -1; /* full, and no larger than any kept */
    int last = kept < CK_MAX_VIOL ? kept : CK_MAX_VIOL - 1;
    memmove(&o->v[k + 1], &o->v[k], (size_t)(last - k) * sizeof o->v[0]);
    ck_violation *v = &o->v[k];
    v->phase = ph;
    v->layer = layer;
    v->ratio = r;
    v->count = count;
    v->between = 0; /* checksums_continuity sets it on its own */
    snprintf(v->what, sizeof v->what, "%s", what);
    return k;
}

static const char *unit_name(const layer *ly, int phase) {
    if (phase == CK_BWD_W_PW) return ly->kind == LAYER_CONV ? "output channel" : "output";
    if (phase == CK_BWD_W_Z || phase == CK_BWD_W_PEEK || phase == CK_BWD_W_RND)
        return ly->kind == LAYER_CONV ? "output channel" : "output";
    if (phase == CK_FWD_PW || phase == CK_FWD_RA || phase == CK_FWD_CA || phase == CK_FWD_PEEK) return "sample/output channel";
    if (phase == CK_BWD_DATA_PW || phase == CK_BWD_DATA_RA || phase == CK_BWD_DATA_CA || phase == CK_BWD_DATA_PEEK)
        return "sample/input channel";
    if (phase == CK_FWD_RND || phase == CK_BWD_DATA_RND)
        return ly->kind == LAYER_DENSE ? "sample" : phase == CK_FWD_RND ? "sample/output channel" : "sample/input channel";
    if (phase >= CK_FWD_PS) return "sample";
    if (ly->kind == LAYER_CONV)
        return phase == CK_FWD ? "sample/output channel" : phase == CK_BWD_DATA ? "sample/input channel" : "output channel";
    return phase == CK_BWD_DATA ? "input feature" : "output";
}

/* A block's name in words: ck_phase_name's, but the zero-element block
 * re-checks each dense row's and each conv filter's smallest nonzero too
 * (ck_dense_zero_row, ck_conv_zero_filter) */
static const char *block_name(const layer *ly, int ph) {
    if (ph == CK_BWD_W_Z && (ly->kind == LAYER_DENSE || ly->kind == LAYER_CONV))
        return "backward-weights (zero and smallest elements)";
    /* a dense row's every element, since zoo attack 15 (engines/checksums.c dense_peek; a conv filter's first,
     * last, largest and sampled ones; a recording or a CUDA engine's dense rows: the five as before) */
    if (ph == CK_BWD_W_PEEK && ly->kind == LAYER_DENSE) return "backward-weights (re-done elements of each row)";
    return ck_phase_name(ph);
}

const char *ck_block_name(const model *m, int l, int ph) { return block_name(&m->layers[l], ph); }

/* M of bounds_ck_lowp_abs for relation i of layer l, phase ph: a bound on
 * the sum over the relation's terms dy x (weighted as its A is) of |dy| +
 * |x|, from what the vector holds; 0 where it holds too little.
 * Backward-weights only (CK_BWD_W, CK_BWD_W_PW; one relation per output
 * row or filter j), where both reduced-precision false alarms were: each
 * of the relation's outputs is a dot of K terms dy x, and its weights sum
 * to P (bounds_ck_shape: the plain relation's P outputs of |weight| 1, or
 * 1..t for the index-weighted one), so
 *   sum |dy| over the terms = P da_j,  da_j = sum over the batch (and
 *     positions) of |dy_j|: the bias-gradient relation's A (CK_BWD_B, j:
 *     the bias gradient is one sum of exactly those dy);
 *   sum |x| over the terms <= P K max|x|, for a dense layer (K = n) from
 *     the relation's S = da_j max|x| (times in for the index-weighted
 *     one: engines/checksums.c's dense_all).
 * A conv's S mixes the samples' maxima with their dy (sum_n da_nj mx_n),
 * so max|x| cannot be taken out of it: a conv filter gets the dy part
 * only, which covers rounded or flushed subnormal inputs x (bf16 on
 * subnormal images) but not subnormal dy; that, and the other relation
 * kinds (forward, backward-data, the per-sample and weighted ones), need
 * the engine to record sum |operands| (tests/EVIDENCE.md, "False alarms
 * hunted"; README, "Known limits"). */
static double lowp_operand_sum(const model *m, const ck_layout *L, const double *vec, int l, int ph, size_t i,
                               size_t K, size_t P, const double *e) {
    const layer *ly = &m->layers[l];
    if (ph == CK_BWD_W_RND) i /= CK_RND_DRAWS; /* its draws of row or filter i: weights <= 1, the plain one's M */
    if ((ph != CK_BWD_W && ph != CK_BWD_W_PW && ph != CK_BWD_W_RND) || i >= L->cnt[l][CK_BWD_B]) return 0;
    double da = vec[L->off[l][CK_BWD_B] + CK_REL * i + 1], S = e[3];
    if (!(da > 0)) return 0; /* every dy_j is 0: every term exactly 0 */
    double M = (double)P * da;
    if (ly->kind == LAYER_DENSE && S > 0) {
        double mx = S / da / (ph == CK_BWD_W_PW ? (double)ly->in_c : 1.0);
        M += (double)P * (double)K * mx;
    }
    return M;
}

/* fp32's range in a relation (the per-element tier's rule, checks/bounds.c:
 * bounds_range_unbound and its derivation).  Every relation of a conv or
 * dense block relates fp32 outputs, each a dot product (or a sum) of at
 * most K terms, and its tolerance rests on the standard model for each of
 * them, which holds only while no product or partial sum reaches fp32's
 * overflow threshold T = 2^128 (1 - 2^-25): in any order each stays below
 * (1 + g) S_p, S_p the output's sum of |terms| (Higham 3.1), g = gamma_K
 * (gamma_{K-1} for a sum; with declared rounded operands, cf->ga = (1 +
 * gamma)(1 + u_in)^2 - 1, the rounded terms' growth).  The vector's fourth
 * field S is an upper bound on max_p S_p over the relation's outputs
 * (base/checksum_ops.h, ck_rel; engines/checksums.c computes it per
 * block: a conv forward |b| + sum_c (sum_taps |w|) max|x_c|, backward-data
 * sum_o (sum_taps |w|) max|dy_o|, backward-weights sum_n (sum_pos |dy_nj|)
 * max|x_n|; a dense layer's row or column sums of |W| times max|x| (or
 * max|dy|) plus |b|, backward-weights (sum_i |dy_ij|) max|x| (times in for
 * the index-weighted one: larger still); the one-element blocks (zero,
 * peek) and the bias sum S = A, the element's own sum; conv_groups' S' = S
 * + E / A of identical windows is larger again): each max|.| bounds every
 * element it stands for, so S >= S_p for every output of the relation,
 * and S (1 + g) < T means no legal evaluation of any of them overflowed.
 * Where S (1 + g) >= T (lowered by 2^-21 relative: S is summed in double,
 * K 2^-53 < 2^-30 relative, and a recording stores it rounded down to
 * fp32, 2^-23; the margin only ever adds "may overflow"), or S or A is
 * inf or NaN (an operand inf or NaN: max|.| is inf, or |w| NaN in A; the
 * NaN case: max_abs passes a NaN over, A does not), a legal fp32 result
 * may be +-inf or NaN whatever the exact one: the relation carries no
 * information and is not judged (counted in n_unjudged), never within
 * and never over.  A residual inf or NaN with S and A finite and S below
 * the threshold stays judged: no legal order overflows there, so that is
 * a wrong result (a fault writing inf), ratio inf. */
#define CK_FP32_OVF_T (0x1p128 * (1 - 0x1p-25))
static int ck_rel_unbound(double ga, const double *e) {
    return !(e[3] * (1 + ga) < CK_FP32_OVF_T * (1 - 0x1p-21)) || !(fabs(e[1]) < INFINITY);
}

/* Whether a SUSPECT of (ph, layer), ratio q (sign: the sign test's)
 * takes o->sus, the one a finding names: the larger ratio, as before the
 * sign test; where one of the two is the sign test's, whose ratio is |z|
 * over its limit and not comparable, the one computed first in the step
 * (step_order: the first wrong tensor, as note() orders PROBLEMs;
 * thread1_round_up_kernels_step7's conv1 forward over the sharper tier,
 * not fc1 backward-data's sign test), else the larger ratio. */
static int sus_replaces(const ck_verdict *o, ck_phase ph, int layer, double q, int sign) {
    if (!o->n_sus) return 1;
    if (sign || o->sus.sign_test) {
        int a = step_order(ph, layer), b = step_order(o->sus.phase, o->sus.layer);
        if (a >= 0 && b >= 0 && a != b) return a < b;
    }
    return q > o->sus.ratio;
}

/* ---- the sign test over a block's residuals ------------------------------
 * The two tiers above judge each relation alone, against a tolerance that
 * sums its outputs' bounds.  A fault that is one-signed but small in each
 * output (a core rounding upward, zoo attack 13's thread1_round_up_*:
 * every error of its share positive, each relation over hundreds of them
 * within 0.34 of its sharper tier) keeps every relation; it moves the
 * residuals' signs, all of them the same way.  The per-element sign tests
 * (rounding_tests.c) see such a shift, but only at the steps the audit
 * compares per element; this is the same test over the relations, at
 * every step and evaluation batch.
 *
 * Which blocks.  A relation's residual is R = lhs - rhs, the outputs'
 * computed sum against the exact map of the summed inputs, so R is the
 * weighted sum of the outputs' errors (plus the double evaluation's,
 * below); its sign is the sign of the error sum only where every weight is
 * +1.  Those are (bounds_ck_shape's numbers):
 *   conv FWD, BWD_DATA: per (sample, channel), a plane's outputs summed;
 *   conv BWD_B, dense BWD_B: one bias-gradient element each;
 *   dense FWD, BWD_DATA: per output (input feature), summed over the batch;
 *   dense BWD_W: a row of dW summed unsigned (engines/checksums.c,
 *     dense_all);
 *   dense BWD_DATA_PS: per sample, its input gradient summed;
 *   conv FWD_RA, FWD_CA, BWD_DATA_RA, BWD_DATA_CA: per (sample, channel),
 *     a plane's outputs weighted (-1)^row or (-1)^column.  A shift common
 *     to every output cancels there, but a residual is as symmetric under
 *     unbiased rounding as a plain one's, and a fault whose sign alternates
 *     with the row or column (two threads dealt alternate rows, rounding in
 *     opposite directions: zoo attack 22's
 *     conv2_fwd_rurd_rows_interleaved_all) is one-signed in these and
 *     cancels in the plain ones.
 * Not: a conv's BWD_W (signs ck_cw, (-1)^(c + kh + kw): a common shift
 *   cancels), the position-, index- and random-weighted blocks (weights
 *   1..P with the checkerboard's sign, or random: a residual there mixes
 *   the plane's errors with weights too uneven for one sign to say
 *   anything a plain or alternating block does not), BWD_W_Z (a zero
 *   element's residual is minus its exact value, whose sign is the
 *   data's, not the rounding's), the PEEK blocks (one element each, the
 *   worst of several kept by |ratio|: the plain block's outputs again, its
 *   signs no new information; but a conv's dW, whose relations are all
 *   signed, has its BWD_W_PEEK and BWD_W_Z elements sign-tested together,
 *   judge_dw_sign, below), BLANK (exact), and a dense layer's
 *   FWD_PS, though its weights are +1: every sample's relation there
 *   shares one error, the outputs' partial sums over inputs that are
 *   equal in every sample (the features a blank region of the image gives
 *   through the conv layers: identical windows again), so its signs move
 *   together within a step; measured on the legal run below, fc1's
 *   per-sample forward z has an rms of 1.82 over its 90 stages (every other
 *   block's 0.8 to 1.2), a design effect of 3.3 that nothing inside one
 *   block can estimate (the plain FWD block, one relation an output over
 *   the batch, holds the shared part once per output: rms 0.95).  It gets
 *   the halves' test alone (below): a shared error is the same in both
 *   halves and cancels in their difference.
 *
 * The statistic.  Under the sharper tier's model (bounds.c: each rounding
 * a mean-zero delta, symmetric given the data) a residual is as likely
 * positive as negative.  Among the m residuals of a block with |R| above
 * the double evaluation's own bound dbl (Y + A) (bounds_ck_tols: below it
 * R is not fp32 rounding; exact zeros are no sign), S = n_pos - n_neg; for
 * independent signs Hoeffding gives P(|S| >= t sqrt(m)) <= 2 exp(-t^2 / 2).
 * Signs are not all independent, and where they are not is measured
 * (LOCKSTEP_CK_SIGN_TRACE=1 on the legal run `lockstep audit --engines
 * reference,cpu,cpu:threads=1,cpu:perturb=1,cpu:layout=plain,
 * cpu:algo=direct --limit-train 4096 --limit-test 512 --epochs 1`, 90
 * stages of five engines, batch 256): conv1's and conv2's forward blocks reach z = 23
 * and 27 counted as independent, their relations of one output channel
 * alike in every sample (identical windows over blank regions,
 * conv_groups: one rounding, the same in every sample); the between-
 * channel design effect there is up to 128, the between-sample one 1.3
 * at most.  So a conv block's variance is cluster-robust over its
 * channels (rounding_tests.c's rule: var(S) = max(m, C/(C-1) sum_c (S_c -
 * m_c S / m)^2), a shift common to every channel not inflating it; with
 * it those blocks' |z| is 3.4 at most).  Not over its samples: a core's
 * share of a kernel is a set of samples (OpenMP's static schedule over
 * the batch), so a fault's shift is the between-sample spread itself, and
 * that variance would hide it (thread1_round_up_conv2_bwd_step7: conv2
 * backward-data z = 9.4 with channel clusters, 5.2 with sample clusters,
 * design effect 3.2, where legal runs give 1.3).  Duplicate images
 * (bounds_dups: G_g copies of one image give G_g equal signs, var =
 * sum_g G_g^2 = rho2 n per relation a sample) floor the per-sample
 * blocks' variance at m rho2_x (rho2 for backward-data: the copies'
 * gradients are alike only with equal labels) instead of m: the channel
 * clusters see the copies' likeness only where the channels' signs differ
 * (a batch of 2048 copies whose 16 channels all shift one way, a chance
 * of 2^-15, has no between-channel spread).  The blocks whose relations
 * each run over the batch (dense FWD, BWD_DATA, BWD_W, the biases) are
 * different outputs' roundings: m.  z = S / sqrt(var).  Measured, its rms
 * over the legal run's stages is 0.8 to 1.2 in every block tested (the
 * conv blocks' 1.2: the between-sample dependence, design effect <= 1.3,
 * that the channel clusters leave).
 *
 * The halves.  A conv block's signs are also tested half against half:
 * D = S(samples 0..h-1) - S(samples h..2h-1), h = n/2 (the last sample of
 * an odd batch left out), var(D) by the same channel clusters over each
 * channel's difference (sign_halves_var).  A core's share of a kernel is a
 * contiguous set of samples, so two cores rounding in opposite directions
 * (zoo attack 22's conv2_fwd_rurd_halves_step7, conv2_dx_rurd_halves_step7
 * and _step2) leave S = 0 exactly, every channel cluster balanced, and make
 * D = m.  The same for alternate quarters and alternate eighths (the batch
 * in 4 or 8 blocks of n >> k samples, even blocks against odd, the n mod
 * 2^k left over out): four or eight cores whose directions alternate core
 * by core balance every half (conv2_fwd_rurd_quarters_step7).  And the
 * four products of those three over the eighths (up, down, down, up by
 * quarters is halves x alternate quarters: conv2_fwd_rurd_quarters_uddu_step7):
 * the seven are the Walsh functions of order 8 but the constant, so any
 * split of the eighths four against four, whose pattern is a sum of them
 * with squared coefficients summing to 1 (Parseval), has |D_k| >= m /
 * sqrt(7) in one of them: z >= sqrt(m / 7) for a split every sign of which
 * follows it (test_checksums).  A sign a
 * channel keeps in every sample (the identical windows above, the
 * dependence the channel clusters exist for) cancels in D, and the samples
 * are shuffled, so the blocks are exchangeable: D is mean-zero with at
 * most S's variance (signs equicorrelated at rho: var(D) = m (1 - rho),
 * where var(S) = m (1 + (m - 1) rho)).  The dense per-sample blocks
 * (BWD_DATA_PS, FWD_PS: one relation a sample, no clusters) get it too;
 * for FWD_PS it is the only sign test.  A block needs m >= 57 to fire
 * (sqrt(m) > 7.53): at batch 16 the per-sample ones cannot (fc1's forward
 * split by halves, zoo attack 22's fc1_fwd_rurd_halves_step7, stays a
 * blind spot in the zoo's 16-sample batches), at the main job's 256 they
 * can.  Measured on whole main-job runs of the legal variants
 * (false-alarms.sh 42, ten engine-runs; tests/EVIDENCE.md, "Halves and
 * alternating relations"): the ~351,000 new block tests (these and the
 * alternating blocks' whole-block counts) have rms z 0.94-0.99 and reach
 * 4.64 at most, 0.62 of the limit.
 *
 * A conv forward block's whole-block count is gated by its channels
 * (FWD, FWD_RA, FWD_CA; sg->chgate).  Over a constant nonzero background
 * (normalized images; conv2's input wherever conv1 saw blank windows, a
 * ReLU'd bias repeated) each output channel repeats one rounding in the
 * identical windows of every sample (the background's, and the border
 * windows', which hold the same padding in every sample and do not cancel
 * in the alternating relations: row 0 is even, row 27 odd), and that error
 * outweighs the rest of a relation's (G outputs alike against sqrt(P - G)
 * independent ones): the channel's relations share one sign, a channel
 * counts as one sign, not m_c.  The channel clusters' variance, C - 1
 * degrees of freedom, then reads C - 1 channels alike and one not as z =
 * (C - 2) / 2 (7.0 for conv1, 15 for conv2) and all C alike as sqrt(m).
 * Measured on legal runs under --normalize 1,1 (false-alarms.sh 42;
 * tests/EVIDENCE.md): conv1's forward count at z = -7.17 and its
 * row-alternating one at 7.29, 0.95 and 0.97 of the limit (with the
 * gate below, the same run's largest ratio: 0.60, that 7.29 with 15 of 16
 * channels alike, p 5.2e-4; conv2's 0.57).  So the count
 * must also pass an exact sign test over its channels (each channel's sign
 * that of its S_c, channels independent: their roundings come from
 * different filters): p = 2 P[Bin(kp + kn, 1/2) <= min(kp, kn)] <=
 * CK_SIGN_CH_ALPHA, 1e-9, its ratio sqrt(ln p / ln 1e-9) capping the
 * block's.  That holds under any dependence within a channel; with C = 16
 * (conv1) it can never pass (2^-15), with C = 32 (conv2) only all 32 alike
 * do (2^-31 = 4.7e-10; 31 of 32: 1.5e-8), so a false SUSPECT is <= 4.7e-10
 * a block test even were every channel one sign.  The share tests cancel
 * each channel's constant and are not gated.  What the gate costs: a shift
 * common to every sample in a conv forward of fewer than 31 channels,
 * or in part of them, is left to the share tests, the sharper tier and the
 * re-done elements.  The conv backward-data blocks are not gated (dy has no
 * such repeated windows in these models: |z| 3.9 at most on those runs).
 *
 * The limit.  A main-job run judges ~1000 stages x up to 15 such blocks
 * (smallcnn: conv1 2, conv2 3, fc1 and fc2 5 each) x 4 engines, ~6e4 block
 * tests (more with the halves' tests and the alternating blocks, whose
 * own measurement is in the paragraph above; the figures below were
 * measured before them).  limit = sqrt(2 ln(2 / alpha)) (Hoeffding's t at
 * alpha, the per-element sign tests' rule).  Were the signs independent as modelled,
 * alpha = 1e-9 (6.54) would do: < 1e-4 a run.  They are not quite: the
 * conv blocks' z has rms ~1.2 (above), and over whole main-job runs
 * (scripts/false-alarms.sh 43 at 54bc223: five audits, 705 steps each,
 * 11 engine-runs) the largest |z| was 5.69 (cpu, conv2 forward, --normalize
 * 1,1; 3.9-4.8 in the others), 0.87 of 6.54, where 6e4 independent N(0,1)
 * tests reach ~4.7 and 1.2-wide ones ~5.6.  So CK_SIGN_ALPHA is 1e-12
 * nominal: limit 7.53, 6.3 of the conv blocks' measured sigma (a normal of
 * rms 1.2 passes it with probability ~4e-10 a block, < 1e-4 a run); the
 * whole runs' largest is 0.76 of it, and the faults it is for stay over it
 * (thread1_round_up_conv2_bwd_step7: 9.38, x1.25).  The robust variance is
 * an approximation with few channels (16 and 32 here), as rounding_tests.h
 * says of its own.  A block of m relations cannot exceed sqrt(m), so one of
 * fewer than 57 (the conv biases, fc2's 10 outputs) never fires: those
 * stay the per-element tests' (the conv biases are also pooled over a
 * step's conv layers under an exact tail: judge_bias_pool).  Over the limit: SUSPECT (every relation within its worst case,
 * their signs beyond what unbiased rounding does).  Reduced-precision
 * engines (u_in > 0) get no sign test: their operand rounding may be
 * truncation, which is not mean-zero (the sharper tier keeps their worst
 * case for the same reason). */
#define CK_SIGN_ALPHA 1e-12
#define CK_SIGN_CL 512 /* channel clusters, folded to this many */
#define CK_SIGN_CH_ALPHA 1e-9 /* a conv forward block's channel gate (above) */
#define CK_SIGN_ALT 3  /* sample blocks: halves, alternate quarters, alternate eighths */
#define CK_SIGN_NT 7   /* those three and their four products over the eighths (sign_add) */
typedef struct {
    size_t per;        /* clusters: conv relations a sample (its channels); 0: none */
    double m, S, rho2; /* signs counted, their sum; the duplicates' floor (m rho2) */
    double cs[CK_SIGN_CL], cm[CK_SIGN_CL]; /* per channel: sum, count */
    /* the alternate blocks' differences (sign_halves_var, below): for k = 1..CK_SIGN_ALT the batch in 2^k
     * blocks of bs[k] = n >> k samples, even blocks +1, odd ones -1, the n - 2^k bs[k] samples left over not
     * at all (k = 1: the halves); per > 0 only */
    size_t n, bs[CK_SIGN_ALT + 1];
    int halves_only; /* a dense FWD_PS: the share tests alone, no whole-block count (above) */
    int chgate;      /* a conv forward block (FWD, FWD_RA, FWD_CA): its whole-block count gated by its channels' */
    /* k = 1..CK_SIGN_ALT as above, k = CK_SIGN_ALT + 1..CK_SIGN_NT the products (sign_add) */
    double hm[CK_SIGN_NT + 1], D[CK_SIGN_NT + 1], m0[CK_SIGN_NT + 1], S0[CK_SIGN_NT + 1];
    double ds[CK_SIGN_NT + 1][CK_SIGN_CL], dm[CK_SIGN_NT + 1][CK_SIGN_CL];
    /* a conv bias block (nch relations, one a channel; 0: other blocks): the channel contrasts judge_bias_pool
     * pools, j = 0 alternate channels (even +1, odd -1), j = 1 the halves of the channels (the first nch / 2
     * +1, the next nch / 2 -1, the middle one of an odd nch out): counted, their sum, the +1 ones' count, sum
     * (hc: cm is the channel sums' name above) */
    size_t nch;
    double hc[2], cD[2], cm0[2], cS0[2];
} ck_sign;

/* counts of no sign yet: per relations a sample (clusters), a batch of n
 * samples (0: no alternate blocks) */
static void sign_reset(ck_sign *sg, size_t per, size_t n, double rho2) {
    sg->per = per;
    sg->halves_only = sg->chgate = 0;
    sg->m = sg->S = 0;
    sg->rho2 = rho2 > 1 ? rho2 : 1;
    sg->n = n;
    sg->bs[0] = 0;
    for (int k = 1; k <= CK_SIGN_ALT; k++) sg->bs[k] = n >> k;
    for (int k = 0; k <= CK_SIGN_NT; k++) sg->hm[k] = sg->D[k] = sg->m0[k] = sg->S0[k] = 0;
    sg->nch = 0;
    for (int j = 0; j < 2; j++) sg->hc[j] = sg->cD[j] = sg->cm0[j] = sg->cS0[j] = 0;
    if (per) {
        memset(sg->cs, 0, sizeof sg->cs), memset(sg->cm, 0, sizeof sg->cm);
        memset(sg->ds, 0, sizeof sg->ds), memset(sg->dm, 0, sizeof sg->dm);
    }
}

/* 1 when block (l, ph) of a batch of n is one whose residual has the sign
 * of its outputs' error sum (above), with sg set up; 0 otherwise */
static int sign_begin(const model *m, int l, int ph, size_t n, size_t cnt, double u_in, const bounds_dups *dups,
                      ck_sign *sg) {
    const layer *ly = &m->layers[l];
    if (u_in > 0 || !cnt || !n) return 0;
    int conv = ly->kind == LAYER_CONV, dense = ly->kind == LAYER_DENSE;
    int fwd_like = ph == CK_FWD || ph == CK_FWD_RA || ph == CK_FWD_CA;
    int bwd_like = ph == CK_BWD_DATA || ph == CK_BWD_DATA_RA || ph == CK_BWD_DATA_CA;
    size_t per = 0;
    double rho2 = 1;
    if (conv && (fwd_like || bwd_like)) {
        per = cnt / n;
        if (dups) rho2 = fwd_like ? dups->rho2_x : dups->rho2;
    } else if (dense && (ph == CK_BWD_DATA_PS || ph == CK_FWD_PS)) {
        per = 1; /* one relation a sample: no channel clusters, the halves by sample */
        if (dups) rho2 = ph == CK_FWD_PS ? dups->rho2_x : dups->rho2;
    } else if (!(ph == CK_BWD_B && (conv || dense)) && !(dense && (ph == CK_FWD || ph == CK_BWD_DATA || ph == CK_BWD_W)))
        return 0;
    sign_reset(sg, per, per ? n : 0, rho2);
    sg->halves_only = dense && ph == CK_FWD_PS;
    sg->chgate = conv && fwd_like;
    if (conv && ph == CK_BWD_B) sg->nch = cnt;
    return 1;
}

static void sign_add(ck_sign *sg, size_t i, const double *e, double dbl) {
    double R = e[0];
    if (!(fabs(R) > dbl * (e[2] + e[1]))) return; /* 0, within the double evaluation's rounding, or NaN */
    double s = R > 0 ? 1 : -1;
    sg->m++, sg->S += s;
    for (size_t j = 0, h = sg->nch / 2; sg->nch && j < 2; j++) {
        int plus = j == 0 ? !(i & 1) : i < h;
        if (j == 1 && i >= 2 * h) continue; /* an odd count's middle channel */
        sg->hc[j]++, sg->cD[j] += plus ? s : -s;
        if (plus) sg->cm0[j]++, sg->cS0[j] += s;
    }
    if (!sg->per) return;
    size_t c = i % sg->per % CK_SIGN_CL;
    sg->cs[c] += s, sg->cm[c]++;
    size_t smp = i / sg->per;
    for (int k = 1; k <= CK_SIGN_ALT && sg->bs[k]; k++) {
        size_t b = smp / sg->bs[k];
        if (b >> k) continue; /* past the 2^k whole blocks */
        double w = b & 1 ? -s : s;
        sg->hm[k]++, sg->D[k] += w, sg->ds[k][c] += w, sg->dm[k][c]++;
        if (!(b & 1)) sg->m0[k]++, sg->S0[k] += s;
    }
    /* the products over the eighths ei = 0..7 (bits: ei >> 2 the half, ei >> 1 & 1 the quarter's parity, ei & 1
     * the eighth's): k = 4 half x quarter (+ + - - - - + +, quarters up, down, down, up), 5 half x eighth, 6
     * quarter x eighth, 7 all three; with the three above, the Walsh functions of order 8 but the constant: a
     * split of the eighths four against four is a sum of them (the comment above judge_sign's limit) */
    if (!sg->bs[CK_SIGN_ALT]) return;
    size_t ei = smp / sg->bs[CK_SIGN_ALT];
    if (ei >> CK_SIGN_ALT) return;
    unsigned h = (unsigned)(ei >> 2) & 1, q = (unsigned)(ei >> 1) & 1, o = (unsigned)ei & 1;
    const unsigned par[4] = {h ^ q, h ^ o, q ^ o, h ^ q ^ o};
    for (int j = 0; j < 4; j++) {
        int k = CK_SIGN_ALT + 1 + j;
        double w = par[j] ? -s : s;
        sg->hm[k]++, sg->D[k] += w, sg->ds[k][c] += w, sg->dm[k][c]++;
        if (!par[j]) sg->m0[k]++, sg->S0[k] += s;
    }
}

/* var(S) of the block (above); *deff: its ratio to m */
static double sign_var(const ck_sign *sg, double *deff) {
    double v = sg->m * sg->rho2, vs = 0, C = 0;
    for (size_t c = 0; sg->per && c < CK_SIGN_CL; c++) {
        if (!sg->cm[c]) continue;
        double d = sg->cs[c] - sg->cm[c] / sg->m * sg->S;
        vs += d * d;
        C++;
    }
    if (C > 1) v = fmax(v, C / (C - 1) * vs);
    *deff = sg->m > 0 ? v / sg->m : 1;
    return v;
}

/* var(D_k) of the alternate blocks' difference (k = 1: the halves): as sign_var's, over the channels'
 * differences (each relation's sign enters D_k at +-1, so independent signs give hm[k]; a shift common to
 * every channel does not inflate it) */
static double sign_halves_var(const ck_sign *sg, int k, double *deff) {
    double v = sg->hm[k] * sg->rho2, vs = 0, C = 0;
    for (size_t c = 0; c < CK_SIGN_CL; c++) {
        if (!sg->dm[k][c]) continue;
        double d = sg->ds[k][c] - sg->dm[k][c] / sg->hm[k] * sg->D[k];
        vs += d * d;
        C++;
    }
    if (C > 1) v = fmax(v, C / (C - 1) * vs);
    *deff = sg->hm[k] > 0 ? v / sg->hm[k] : 1;
    return v;
}

double checksums_sign_limit(void) { return sqrt(2 * log(2 / CK_SIGN_ALPHA)); }

/* q of an exact two-sided tail p against alpha: sqrt(ln p / ln alpha),
 * the ratio of the z whose exp(-z^2 / 2) is p to the one whose is alpha
 * (judge_sign's |z| / limit but for Hoeffding's factor 2: 1 at p = alpha,
 * 0 at p = 1) */
static double tail_q(double p, double alpha) {
    if (!(p < 1)) return 0;
    if (!(p > 0)) p = 0x1p-1074; /* m beyond ~1070 unanimous: the double's smallest */
    return sqrt(log(p) / log(alpha));
}

/* The channel gate (judge_sign's conv forward counts, judge_dw_sign's
 * filters): *kp, *kn the clusters whose sign sum leans each way, *pc their
 * exact two-sided tail; returns its q against CK_SIGN_CH_ALPHA */
static double channel_gate(const ck_sign *sg, long *kp, long *kn, double *pc) {
    *kp = *kn = 0;
    for (size_t c = 0; c < CK_SIGN_CL; c++) *kp += sg->cs[c] > 0, *kn += sg->cs[c] < 0;
    *pc = stats_mcnemar_p(*kp, *kn);
    return tail_q(*pc, CK_SIGN_CH_ALPHA);
}

/* A sign test's outcome (judge_sign, judge_bias_pool): q its ratio to
 * the limit (worst_sign keeps the largest), over 1 a SUSPECT of m signs
 * whose relations' worst ratio to the worst case is worst. */
static void sign_verdict(ck_verdict *o, ck_phase cph, int l, double q, double m, double worst, const char *what) {
    if (q > o->worst_sign) o->worst_sign = q, snprintf(o->worst_sign_what, sizeof o->worst_sign_what, "%s", what);
    if (!(q > 1)) return;
    if (sus_replaces(o, cph, l, q, 1)) {
        o->sus.phase = cph;
        o->sus.layer = l;
        o->sus.ratio = q;
        o->sus.count = m;
        o->sus.sign_test = 1;
        o->sus_worst_ratio = worst;
        snprintf(o->sus.what, sizeof o->sus.what, "%s", what);
    }
    o->n_sus++;
}

/* The sign test of block (l, ph) from its counts: over the limit, a
 * SUSPECT (o->sus, as the sharper tier's; its ratio |z| / limit, its
 * ratio to the worst case the block's worst relation's, below 1 or the
 * block is a PROBLEM already).  LOCKSTEP_CK_SIGN_TRACE=1: one line a
 * block on stderr (how tests/EVIDENCE.md's margins were measured). */
static void judge_sign(const model *m, const double *vec, int l, int ph, ck_phase cph, const ck_sign *sg,
                       double worst, const char *name, ck_verdict *o) {
    if (!(sg->m > 0)) return;
    const layer *ly = &m->layers[l];
    if (!name) name = block_name(ly, ph);
    double deff, z = 0, lim = checksums_sign_limit(), q;
    static int trace = -1;
    if (trace < 0) trace = getenv("LOCKSTEP_CK_SIGN_TRACE") && getenv("LOCKSTEP_CK_SIGN_TRACE")[0] == '1';
    char what[224]; /* (sign_verdict keeps the first 159: every text below fits them at this model's sizes) */
    if (!sg->halves_only) {
        z = sg->S / sqrt(sign_var(sg, &deff)), q = fabs(z) / lim;
        long kp = 0, kn = 0; /* the channel gate (above): channels leaning each way, their exact tail */
        double pc = 0;
        if (sg->chgate) {
            double qc = channel_gate(sg, &kp, &kn, &pc);
            if (qc < q) q = qc;
        }
        if (trace)
            fprintf(stderr, "ck-sign\t%s %s\t%s\tstep %.0f\tm %.0f S %.0f\tz %.3f\tindep %.3f\tq %.3f\tdeff %.3f"
                    "\tch %ld/%ld p %.3g\n", ly->name, name, ck_phase_label(cph), vec[2], sg->m, sg->S, z,
                    sg->S / sqrt(sg->m), q, deff, kp, kn, pc);
        if (sg->chgate) /* (fits 160: "conv2 forward (column-alternating): sign test over 8192 relations: z = 90.5,
                         * limit 7.53 (8192 up, 0 down; channels 32 up, 0 down: p 4.7e-10, limit 1e-09)") */
            snprintf(what, sizeof what, "%s %s: sign test over %.0f relations: z = %.3g, limit %.3g (%.0f up, %.0f "
                     "down; channels %.0f up, %.0f down: p %.2g, limit %.2g)", ly->name, name, sg->m, z, lim,
                     (sg->m + sg->S) / 2, (sg->m - sg->S) / 2, (double)kp, (double)kn, pc, CK_SIGN_CH_ALPHA);
        else
            snprintf(what, sizeof what, "%s %s: sign test over %.0f relations: z = %.3g, limit %.3g (%.0f positive, "
                     "%.0f negative)", ly->name, name, sg->m, z, lim, (sg->m + sg->S) / 2, (sg->m - sg->S) / 2);
        sign_verdict(o, cph, l, q, sg->m, worst, what);
    }
    /* the batch's alternate blocks against each other (per > 0: a conv block, a dense per-sample one) */
    static const char *const kname[CK_SIGN_NT + 1] = {"",         "halves",   "quarters", "eighths",
                                                      "++----++", "+-+--+-+", "+--++--+", "+--+-++-"};
    for (int k = 1; k <= CK_SIGN_NT; k++) {
        double m0 = sg->m0[k], m1 = sg->hm[k] - m0, S0 = sg->S0[k], S1 = S0 - sg->D[k];
        if (!(m0 > 0 && m1 > 0)) continue;
        z = sg->D[k] / sqrt(sign_halves_var(sg, k, &deff)), q = fabs(z) / lim;
        if (trace)
            fprintf(stderr, "ck-sign\t%s %s blocks%d%s%s\t%s\tstep %.0f\tm %.0f S %.0f\tz %.3f\tindep %.3f\tq %.3f\t"
                    "deff %.3f\n", ly->name, name, k <= CK_SIGN_ALT ? 1 << k : 8, k <= CK_SIGN_ALT ? "" : " ",
                    k <= CK_SIGN_ALT ? "" : kname[k], ck_phase_label(cph), vec[2], sg->hm[k], sg->D[k], z,
                    sg->D[k] / sqrt(sg->hm[k]), q, deff);
        /* (what fits 160 characters: "conv2 backward-data (column-alternating): sign test of alternate eighths
         * over 8192 relations: z = 90.5, limit 7.53 (even 4096 of 4096 positive, odd 0 of 4096)") */
        double p0 = (m0 + S0) / 2, p1 = (m1 + S1) / 2; /* positive signs in the even and the odd blocks */
        if (k == 1)
            snprintf(what, sizeof what, "%s %s: halves' sign test over %.0f relations: z = %.3g, limit %.3g "
                     "(first half %.0f of %.0f positive, second %.0f of %.0f)", ly->name, name, sg->hm[k], z, lim,
                     p0, m0, p1, m1);
        else if (k <= CK_SIGN_ALT)
            snprintf(what, sizeof what, "%s %s: sign test of alternate %s over %.0f relations: z = %.3g, limit "
                     "%.3g (even %.0f of %.0f positive, odd %.0f of %.0f)", ly->name, name, kname[k], sg->hm[k], z,
                     lim, p0, m0, p1, m1);
        else
            snprintf(what, sizeof what, "%s %s: sign test of eighths %s over %.0f relations: z = %.3g, limit %.3g "
                     "(+ %.0f of %.0f positive, - %.0f of %.0f)", ly->name, name, kname[k], sg->hm[k], z, lim, p0, m0,
                     p1, m1);
        sign_verdict(o, cph, l, q, sg->hm[k], worst, what);
    }
}

/* The conv layers' bias-gradient blocks of a step, pooled: an exact sign
 * test.  A conv bias block holds one relation an output channel (16 and
 * 32 in smallcnn), each an fp32 sum of N x positions dy terms against its
 * double re-computation, so a reduction rounding one way (zoo attack 19's
 * conv_db_round_up_all: the serial bias sum under MXCSR round-up) makes
 * every residual positive yet reaches z = sqrt(m), 3.6 and 5.6, under the
 * limit (judge_sign: m < 57 never fires), and every relation stays within
 * its sharper tier (gamma_K sum|dy| over thousands of terms that cancel).
 * Pooled over a step's conv bias blocks (the signs judge_sign counted,
 * sign_add's rule: |R| above the double evaluation's bound, not 0): m =
 * 44-48 here.  The statistic is the exact two-sided binomial tail of the
 * pooled counts (stats_mcnemar_p: p = 2 P[Bin(m, 1/2) <= min(pos, neg)]),
 * not Hoeffding's bound, which at m = 44 cannot pass 2 exp(-22) = 5.6e-10;
 * the limit is the sign tests' alpha, 1e-12, so at m = 44-46 only
 * unanimity fires (2^-43 = 1.1e-13; 43 of 44: 5.1e-12 does not), at m =
 * 47-48 one dissent may, and m <= 40 never does.  Its ratio
 * (sign_tail_q) is sqrt(ln p / ln alpha), the |z| / limit of judge_sign's
 * scale.  Only the steps' conv bias blocks: a channel's bias relation is
 * the plain sum of its dy, unsigned, and different channels' sums are
 * different reductions whose roundings are not shared (no identical
 * windows across channels: the conv blocks' cluster unit); fp32 engines
 * only (sign_begin: u_in > 0 has no sign test).
 *
 * The false alarm.  Unanimity over 44 signs needs them dependent; per
 * stage, nothing in one vector can estimate that, so it is measured
 * (LOCKSTEP_CK_SIGN_TRACE=1: a "conv biases (pooled)" line a step).  Legal,
 * `lockstep audit --engines reference,cpu,cpu:threads=1,cpu:algo=direct,
 * cpu:perturb=1,cpu:math=portable --seed 44 --batch 64 --limit-train 9600
 * --epochs 1` (750 engine-stages, 4 distinct computations): the pooled z
 * = S / sqrt(m) has rms 0.93-0.99 per engine (a design effect <= 1: no
 * dependence to speak of), its largest |z| 3.13, the smallest exact p
 * 2.5e-3 (33 of 45; q 0.47), the lag-1 autocorrelation over steps -0.05 to
 * 0.01; the blocks lean (conv1 +0.036 of its signs on average, conv2
 * +0.017), which multiplies a unanimity's chance by (1 + lean)^m a block, 2.8
 * at most here.  A step is not pooled with the next: the leans persist
 * (the same engine's conv1 run-level z +1.66 over 150 steps, ~3.6 over a
 * main job's 705), so a run-level count would pass its limit on a long
 * enough legal run, and a per-step test does not accumulate them.
 * With --normalize 1,1 (batch 256, cpu and cpu:threads=1, 60 steps):
 * rms 0.90 and 1.16 (threads=1's lag-1 0.26), largest |z| 3.43, smallest
 * p 8.2e-4 (34 of 45; q 0.51).  scripts/false-alarms.sh 43 shortened
 * (FA_ARGS="--limit-train 5120 --epochs 1": every legal variant, 20
 * steps): none, p >= 0.023.  Over 1,000 distinct legal engine-stages of
 * these runs the count of stages at p <= 0.01, 0.003, 0.001 was 6, 3, 1
 * where independent signs give 6.6, 2.0, 0.7 (whole main-job runs not
 * measured: tests/EVIDENCE.md, "Conv bias gradients, pooled").  The zoo's 13 legal variants and
 * its legal bias orders (db_serial_fp32: the fault's own order rounding
 * to nearest, db_double_sum, db_kahan) over their 10 steps: p >= 0.013
 * (mnist-convnet, m 79), q <= 0.40 (isa=avx512_core not run on this
 * host: AVX2 only).  A model of what the rms allows, each
 * stage's signs leaning lambda ~ N(0.036, tau^2) with 1 + (m - 1) tau^2 =
 * 1.35 (the largest measured design effect): a false alarm <= 2.4e-10 a
 * stage (m 44-48), ~4e-6 over a main-job seed's ~2e4 engine-stages; at a
 * design effect of 2, never measured, it would be 1.5e-7 a stage.
 * Power: conv_db_round_up_all 44 of 44 (45 of 45) at every step of the
 * zoo's 10, p 1.1e-13 (5.7e-14), x1.04 (1.05): the margin is thin, a
 * step with m <= 40 counted, or one dissent at m <= 46, passes.
 *
 * Channels split between cores.  Two cores rounding in opposite
 * directions, each reducing a share of the channels (dealt round-robin:
 * zoo attack 22's conv_db_rurd_alternate_all; or in contiguous blocks, as
 * the ocblock faults split conv2's forward), balance the count above (22
 * up, 22 down: p 0.88).  So the same exact tail is also taken over w_c
 * s_c for two channel contrasts, pooled the same way: alternate channels
 * (w = +1 even, -1 odd) and each layer's halves of its channels (+1 the
 * first, -1 the second).  Under unbiased rounding w_c s_c is as likely +1
 * as s_c is, the channels' sums being different reductions; a block's
 * lean (above) enters with + and - weights in equal numbers, so it
 * cancels in the mean and leaves the count a sum of Bernoullis of mean
 * 1/2 with unequal p, whose tails are no heavier than the binomial's: the
 * tail stays exact or conservative.  Measured over a whole main-job run
 * of every legal variant (false-alarms.sh 42, 7,755 engine-stages): the
 * smallest p 1.6e-3 (alternate channels) and 2.2e-4 (halves), the plain
 * count's 3.5e-4.  conv_db_rurd_alternate_all: SUSPECT at every step, 44
 * of 44 in the alternate channels, p 1.1e-13, x1.04 (its zoo row). */
typedef struct {
    double m, S;                   /* signs counted over the pooled blocks, their sum */
    double ml[MODEL_MAX_LAYERS], Sl[MODEL_MAX_LAYERS]; /* per layer */
    double worst;                  /* the pooled relations' worst ratio to the worst case */
    int blocks;
    /* the channel contrasts (ck_sign's hc, cD, cm0, cS0), pooled, and cD per layer */
    double cm[2], cD[2], cm0[2], cS0[2], cDl[2][MODEL_MAX_LAYERS];
} ck_bias_pool;

static void bias_pool_add(ck_bias_pool *bp, int l, const ck_sign *sg, double worst) {
    if (!(sg->m > 0) || l < 0 || l >= MODEL_MAX_LAYERS) return;
    bp->m += sg->m, bp->S += sg->S, bp->blocks++;
    bp->ml[l] += sg->m, bp->Sl[l] += sg->S;
    for (int j = 0; j < 2; j++) {
        bp->cm[j] += sg->hc[j], bp->cD[j] += sg->cD[j], bp->cm0[j] += sg->cm0[j], bp->cS0[j] += sg->cS0[j];
        bp->cDl[j][l] += sg->cD[j];
    }
    if (worst > bp->worst) bp->worst = worst;
}

/* q of an exact two-sided tail p against the sign tests' alpha (tail_q) */
static double sign_tail_q(double p) { return tail_q(p, CK_SIGN_ALPHA); }

/* the layer a pooled count names: of the layers with signs (ml > 0), the
 * one whose share d[k] leans furthest the pooled sum's way (tot) */
static int lean_layer(const model *m, const double *ml, const double *d, double tot) {
    int l = -1;
    double w = tot < 0 ? -1 : 1;
    for (int k = 0; k < m->n_layers && k < MODEL_MAX_LAYERS; k++)
        if (ml[k] > 0 && (l < 0 || d[k] * w > d[l] * w)) l = k;
    return l;
}

static void judge_bias_pool(const model *m, const double *vec, const ck_bias_pool *bp, ck_verdict *o) {
    if (!(bp->m > 0)) return;
    long pos = lround((bp->m + bp->S) / 2), neg = lround((bp->m - bp->S) / 2);
    double p = stats_mcnemar_p(pos, neg), q = sign_tail_q(p);
    int l = lean_layer(m, bp->ml, bp->Sl, bp->S); /* the block leaning furthest the pooled way */
    static int trace = -1;
    if (trace < 0) trace = getenv("LOCKSTEP_CK_SIGN_TRACE") && getenv("LOCKSTEP_CK_SIGN_TRACE")[0] == '1';
    if (trace)
        fprintf(stderr, "ck-sign\tconv biases (pooled)\t%s\tstep %.0f\tm %.0f S %.0f\tp %.3g\tblocks %d\tq %.3f\n",
                ck_phase_label(CKP_BWD_WEIGHTS), vec[2], bp->m, bp->S, p, bp->blocks, q);
    char what[160];
    snprintf(what, sizeof what, "the conv layers' bias gradients: exact sign test over %.0f relations of %d blocks: "
             "p = %.2g, limit %.2g (%ld positive, %ld negative)", bp->m, bp->blocks, p, CK_SIGN_ALPHA, pos, neg);
    sign_verdict(o, CKP_BWD_WEIGHTS, l, q, bp->m, bp->worst, what);
    /* the channel contrasts (above): the same exact tail over w_c s_c */
    static const char *const cname[2] = {"channels alternating", "halves of the channels"};
    for (int j = 0; j < 2; j++) {
        double cm = bp->cm[j], m0 = bp->cm0[j], m1 = cm - m0, S0 = bp->cS0[j], S1 = S0 - bp->cD[j];
        if (!(m0 > 0 && m1 > 0)) continue;
        long cp = lround((cm + bp->cD[j]) / 2), cn = lround((cm - bp->cD[j]) / 2);
        double pj = stats_mcnemar_p(cp, cn), qj = sign_tail_q(pj);
        int lj = lean_layer(m, bp->ml, bp->cDl[j], bp->cD[j]); /* the one contributing most the contrast's way */
        if (trace)
            fprintf(stderr, "ck-sign\tconv biases (pooled) %s\t%s\tstep %.0f\tm %.0f S %.0f\tp %.3g\tblocks %d\tq "
                    "%.3f\n", cname[j], ck_phase_label(CKP_BWD_WEIGHTS), vec[2], cm, bp->cD[j], pj, bp->blocks, qj);
        snprintf(what, sizeof what, "the conv layers' bias gradients, %s: exact sign test over %.0f relations: p = "
                 "%.2g, limit %.2g (%s %.0f of %.0f positive, %s %.0f of %.0f)", cname[j], cm, pj, CK_SIGN_ALPHA,
                 j ? "first" : "even", (m0 + S0) / 2, m0, j ? "second" : "odd", (m1 + S1) / 2, m1);
        sign_verdict(o, CKP_BWD_WEIGHTS, lj, qj, cm, bp->worst, what);
    }
}

/* conv/dense relations of layer l, phase ph: the worst one is noted (and
 * every violating one counted), on both tiers; a relation that may
 * overflow (ck_rel_unbound) is counted as not judged. */
/* 1 when relation e (CK_REL doubles) was seen before in this block, bit
 * for bit (a 64-bit mix of its words in rt_set_seen's set):
 * judge_rel's copies of one computation. */
static int rel_seen(uint64_t *h, size_t cap, const double *e) {
    uint64_t k = 0x9E3779B97F4A7C15ull;
    for (int j = 0; j < CK_REL; j++) {
        uint64_t w;
        memcpy(&w, &e[j], 8);
        k = (k ^ w) * 0xBF58476D1CE4E5B9ull;
        k ^= k >> 31;
    }
    return rt_set_seen(h, cap, k);
}

static void judge_rel(const model *m, const ck_layout *L, const double *vec, size_t n, int l, int ph, ck_phase cph,
                      double u_in, const bounds_dups *dups, ck_bias_pool *bp, ck_verdict *o) {
    const layer *ly = &m->layers[l];
    size_t K, P, cnt = L->cnt[l][ph];
    int is_sum;
    if (!cnt || !bounds_ck_shape(m, l, ph, n, &K, &P, &is_sum)) return;
    const double *r = vec + L->off[l][ph];
    double worst = -1, wsharp = -1, sus_q = -1, sus_w = 0;
    size_t wi = 0, si = 0, bad = 0, sus = 0, sharper = 0, sui = 0, unj = 0;
    int wzero = 0; /* the worst relation: nonzero where every term is 0 */
    bounds_ck_coef cf;
    bounds_ck_prep(K, P, is_sum, u_in, &cf);
    int axis = dups && dups->rho2_x > 1.0 ? bounds_ck_batch_axis(m, l, ph) : BOUNDS_CK_BATCH_NONE;
    ck_sign sg[1]; /* the sign test's counts (74 KiB) */
    int sgn = sign_begin(m, l, ph, n, cnt, u_in, dups, sg);
    /* A dense layer's per-sample blocks: samples whose operand rows are
     * equal compute one relation, bit for bit (R, Y, A, S all equal), and
     * its rounding is one, not many; so its sign counts once, the
     * per-element tests' rule for copies (rounding_tests.h,
     * "Duplicates").  Equal images are bounds_dups' floor; equal rows from
     * different images are a narrow layer's: a hidden dense 1 behind a
     * ReLU is 0 for most samples, so fc2's logits, softmax and dy are the
     * same in every such sample of one label and fc2's backward-data
     * relations repeat: measured (flatten; dense 1; relu; dense 10,
     * batch 256, --normalize 0.5,0.1), 222 of 256 negative on legal
     * engines (z = -11.8, 1.56x the limit: a false SUSPECT).  Two
     * different computations agreeing in four doubles do not occur by
     * chance; a shift of every sample still moves every distinct one.
     * No table (out of memory): every relation counted, as before. */
    uint64_t *seen = NULL;
    size_t seen_cap = 0;
    if (sgn && sg->per == 1) {
        for (seen_cap = 1; seen_cap < 2 * cnt; seen_cap *= 2) {}
        seen = calloc(seen_cap, sizeof *seen);
    }
    for (size_t i = 0; i < cnt; i++) {
        const double *e = r + CK_REL * i;
        if (ck_rel_unbound(cf.ga, e)) { /* fp32 may overflow there: no information */
            unj++;
            continue;
        }
        if (sgn && !(seen && rel_seen(seen, seen_cap, e))) sign_add(sg, i, e, cf.dbl);
        double tol, st;
        /* duplicate samples: the copies' roundings as one block (bounds_ck_dup_s); else S as recorded */
        double Sd = axis ? bounds_ck_dup_s(axis, K, is_sum, n, e[3], e[1], dups) : e[3];
        bounds_ck_tols(&cf, e[1], e[2], Sd, &tol, &st);
        if (u_in > 0) { /* subnormal operands (bounds_ck_lowp_abs); fp32: nothing added */
            double ab = bounds_ck_lowp_abs(&cf, lowp_operand_sum(m, L, vec, l, ph, i, K, P, e));
            tol += ab, st += ab;
        }
        double q = tol > 0 ? fabs(e[0]) / tol : (e[0] == 0 ? 0 : INFINITY);
        double qs = st > 0 ? fabs(e[0]) / st : (e[0] == 0 ? 0 : INFINITY);
        if (q != q) q = INFINITY;
        if (qs != qs) qs = INFINITY;
        /* every term 0 (A = 0: each product of two fp32 operands is exact
         * in double, so A is 0 only when every one is): any fp32
         * evaluation, in any order, with rounded operands or not, gives
         * exactly +-0 there, and R = 0, so the residual of an honest
         * engine is 0.  The tolerance left is the underflow allowance and
         * the double evaluation's own, dbl Y, and a relation over it read
         * as a ratio near 1 / (1.01 dbl), a constant (5.93e13 in zoo
         * attack 23's rows) that no size of the fault moves.  Such a
         * relation, already over, is an exact check failed: ratio inf,
         * said in the note.  Only relations already over (q > 1): no
         * verdict changes, only what it prints. */
        int zero_terms = e[1] == 0 && q > 1;
        if (zero_terms) q = qs = INFINITY;
        /* Y (sum |outputs|) inf or NaN where S and A are finite and below fp32's range (ck_rel_unbound): an
         * output no legal order makes, a wrong result (an inf Y made tol inf: ratio 0, read as within) */
        if (!(fabs(e[2]) < INFINITY)) q = qs = INFINITY;
        sharper += st < tol;
        if (q > 1) bad++;
        else if (qs > 1) {
            sus++;
            if (qs > sus_q) sus_q = qs, sus_w = q, sui = i;
        }
        if (q > worst) worst = q, wi = i, wzero = zero_terms;
        if (qs > wsharp) wsharp = qs, si = i;
    }
    free(seen);
    char what[160]; /* note keeps what fits ck_violation.what */
    /* the random-weighted blocks hold CK_RND_DRAWS relations a unit */
    size_t dv = ph == CK_FWD_RND || ph == CK_BWD_DATA_RND || ph == CK_BWD_W_RND ? CK_RND_DRAWS : 1;
    /* LOCKSTEP_CK_TRACE=1: one line a block and judgement on stderr, its worst ratio to each tier (how the legal
     * variants of tests/EVIDENCE.md were measured per check; the verdict keeps only the worst of all blocks) */
    static int trace = -1;
    if (trace < 0) trace = getenv("LOCKSTEP_CK_TRACE") && getenv("LOCKSTEP_CK_TRACE")[0] == '1';
    if (trace) fprintf(stderr, "ck-trace\t%s %s\t%.6g\t%.6g\n", ly->name, block_name(ly, ph), worst, wsharp);
    snprintf(what, sizeof what, "%s %s, %s %zu (%zu of %zu relations over%s)", ly->name, block_name(ly, ph),
             unit_name(ly, ph), wi / dv, bad, cnt - unj, wzero ? "; nonzero where every term is 0" : "");
    o->n_unjudged += (long)unj;
    if (unj == cnt) return; /* none judged: nothing to note */
    o->n_relations += (long)(cnt - unj) - 1;
    note(o, cph, l, worst, 0, what);
    ck_block_margin *bm = &o->blk[l][ph]; /* NaN ratios are +inf here (q, qs) */
    bm->n += (long)(cnt - unj);
    if (worst > bm->worst) bm->worst = (float)worst;
    if (wsharp > bm->sharp) bm->sharp = (float)wsharp;
    o->n_sharp += (long)sharper;
    if (wsharp > o->worst_sharp || !o->worst_sharp_what[0]) {
        o->worst_sharp = wsharp;
        snprintf(o->worst_sharp_what, sizeof o->worst_sharp_what, "%s %s, %s %zu", ly->name, block_name(ly, ph),
                 unit_name(ly, ph), si / dv);
    }
    if (sus && sus_replaces(o, cph, l, sus_q, 0)) {
        o->sus.phase = cph;
        o->sus.layer = l;
        o->sus.ratio = sus_q;
        o->sus.count = (double)sus;
        o->sus.sign_test = 0;
        o->sus_worst_ratio = sus_w;
        snprintf(o->sus.what, sizeof o->sus.what, "%s %s, %s %zu (%zu of %zu over the sharp tier)", ly->name,
                 block_name(ly, ph), unit_name(ly, ph), sui / dv, sus, cnt);
    }
    o->n_sus += (int)sus;
    if (sgn) judge_sign(m, vec, l, ph, cph, sg, worst, NULL, o);
    if (sgn && bp && ph == CK_BWD_B && ly->kind == LAYER_CONV) bias_pool_add(bp, l, sg, worst);
}

/* The sign of a re-done dW element's residual (a BWD_W_PEEK or BWD_W_Z
 * relation: r = v - R, A, |v|, A, engines/checksums.c ck_worst_put) where
 * it is certainly the engine's rounding: +-1, else 0.  v is an fp32 dW
 * element, R its dot product in double; the exact value x is within
 * dbl (|v| + A) of R (bounds_ck_tols' double-evaluation term, the one
 * sign_add uses), and r = v - R itself was rounded in double (2^-53 |r|).
 * An element equal to RN(x), x correctly rounded, errs by RN(x) - x, the
 * data's representation error, not the engine's rounding (the per-element
 * tests' rule, rounding_tests.c, commit 0babb6d: counted, it made the
 * saturated network's false SUSPECT); whether v = RN(x) the vector cannot
 * say exactly, so only elements that are certainly not RN(x) count:
 * RN(x) = v needs |x - v| <= half v's larger neighbour gap, h = 2^(e-24)
 * for |v| in [2^e, 2^(e+1)) (at a power of two the gap below is half that:
 * h is the larger), 2^-150 for a subnormal; so |r| - err > h means x is
 * outside v's rounding interval, v != RN(x), and then sign(v - x) =
 * sign(v - RN(x)) (|RN(x) - x| is at most half a gap, |v - RN(x)| at least
 * one), the direction the engine's arithmetic moved it.  Not counted: +-0
 * (a zero element's residual is minus its exact value: the data's sign),
 * A = 0 (no term: a PROBLEM at any size, ck_zero_keep), NaN. */
static int dw_elem_sign(const double *e, double dbl) {
    double r = e[0], A = e[1], av = e[2];
    if (!(av > 0) || !(A > 0) || !(fabs(r) < INFINITY) || !(av < INFINITY)) return 0;
    int ex;
    (void)frexp(av, &ex); /* av = f 2^ex, f in [0.5, 1): av in [2^(ex-1), 2^ex) */
    double h = ldexp(1.0, ex - 1 - 24);
    if (h < 0x1p-150) h = 0x1p-150;
    double err = dbl * (av + A) + 0x1p-52 * fabs(r);
    if (!(fabs(r) - err > h)) return 0;
    return r > 0 ? 1 : -1;
}

/* The sign test over a conv layer's re-done dW elements (LOCKSTEP_CK_SIGN_TRACE's
 * "backward-weights (re-done elements)"): per filter, BWD_W_PEEK's element
 * (the worst by |v - R| / A of its first, last, largest and CK_PEEK_RANDOM
 * drawn) and BWD_W_Z's where that is a nonzero element (its smallest
 * nonzero; a zero element is the data's sign; the same element as the
 * PEEK one, |v| equal, counted once), each counted where dw_elem_sign says
 * its sign is the engine's.  Each element is the filter's own dot
 * product, unsigned, so a kernel that rounds dW one way moves every one
 * the same way, which the plain and weighted relations (signed weights:
 * a common shift cancels) do not see (zoo attack 19's
 * conv2_dw_round_up_step7).  A filter's elements share its dy: clusters
 * by output channel (sign_var).  At most 2 OC relations (64 for conv2, 32
 * for conv1): a block of m reaches sqrt(m), so conv1's never fires and
 * conv2's only at >= 57 counted, near-unanimous.  The vector keeps one
 * PEEK element a filter (the worst of five), and the Z one, a filter's
 * smallest nonzero, is often a short one-signed sum correctly rounded
 * (half of them at batch 16): m is 23-63 a stage.  Measured on the legal
 * runs of the sign test's comment above (LOCKSTEP_CK_SIGN_TRACE=1, 96
 * stages of six engines, cpu:fuse=off added): conv2's |z| at most 3.57
 * (rms 1.12; --normalize 1,1: 2.32, rms 0.99), conv1's 2.20 (3.40),
 * 0.47 of the limit at most; conv2_dw_round_up_all (the zoo's 10 steps,
 * batch 16) 46-60 counted, all positive, z 6.78-7.75, over the limit at
 * steps 5, 6 and 9 (x1.03); conv2_dw_round_up_step7 47 of 47 positive,
 * z 6.86 (x0.91; batch 256: 54 of 54, 7.35, x0.98): one step of it is
 * under the limit while the vector holds this few.
 *
 * So the same counts also get an exact two-sided binomial tail (as the
 * pooled conv biases: p = 2^-46 for 47 of 47, under alpha 1e-12 where z =
 * sqrt(47) = 6.86 is not), valid while the elements' signs are
 * independent, gated as the conv forward counts are by an exact sign test
 * over the filters (each filter's sign that of its sum; p <= 1e-9), valid
 * under any dependence within a filter (two taps of one filter over a
 * constant background sum nearly the same products): conv1's 16 filters
 * never pass it, conv2's 32 with 30 or more one way and none the other
 * (31 of 31: 9.3e-10).  conv2_dw_round_up_step7: 47 of 47, p 1.4e-14,
 * filters 31 up, 0 down, p 9.3e-10: SUSPECT at x1.002 of the gate, the
 * thinnest catch in the zoo.  Legal, over a whole main-job run of every
 * legal variant (false-alarms.sh 42 at bb420f0's trace, 15,510 blocks):
 * the smallest tail p 1.0e-4 (conv1) and 6.2e-4 (conv2), before the gate. */
static void judge_dw_sign(const model *m, const ck_layout *L, const double *vec, size_t n, int l, ck_verdict *o) {
    const layer *ly = &m->layers[l];
    size_t OC = L->cnt[l][CK_BWD_W_PEEK];
    if (ly->kind != LAYER_CONV || !OC || L->cnt[l][CK_BWD_W_Z] != OC || OC > CK_SIGN_CL) return;
    ck_sign sg[1];
    sign_reset(sg, OC, 0, 1); /* clusters by filter; no alternate blocks (one count a filter, not a sample's) */
    double worst = 0;
    static const int phs[2] = {CK_BWD_W_PEEK, CK_BWD_W_Z};
    for (int k = 0; k < 2; k++) {
        int ph = phs[k];
        size_t K, P;
        int is_sum;
        if (!bounds_ck_shape(m, l, ph, n, &K, &P, &is_sum)) continue;
        bounds_ck_coef cf;
        bounds_ck_prep(K, P, is_sum, 0, &cf);
        const double *r = vec + L->off[l][ph];
        for (size_t oc = 0; oc < OC; oc++) {
            const double *e = r + CK_REL * oc;
            if (ck_rel_unbound(cf.ga, e)) continue;
            if (ph == CK_BWD_W_Z && e[2] == vec[L->off[l][CK_BWD_W_PEEK] + CK_REL * oc + 2]) continue;
            int s = dw_elem_sign(e, cf.dbl);
            if (!s) continue;
            sg->m++, sg->S += s;
            sg->cs[oc] += s, sg->cm[oc]++;
            double tol, st;
            bounds_ck_tols(&cf, e[1], e[2], e[3], &tol, &st);
            if (tol > 0 && fabs(e[0]) / tol > worst) worst = fabs(e[0]) / tol;
        }
    }
    judge_sign(m, vec, l, CK_BWD_W_PEEK, CKP_BWD_WEIGHTS, sg, worst, "backward-weights (re-done elements)", o);
    /* the exact tail over the elements, gated by the filters (above) */
    if (!(sg->m > 0)) return;
    long pos = lround((sg->m + sg->S) / 2), neg = lround((sg->m - sg->S) / 2), kp, kn;
    double p = stats_mcnemar_p(pos, neg), pc, qc = channel_gate(sg, &kp, &kn, &pc), q = tail_q(p, CK_SIGN_ALPHA);
    if (qc < q) q = qc;
    static int trace = -1;
    if (trace < 0) trace = getenv("LOCKSTEP_CK_SIGN_TRACE") && getenv("LOCKSTEP_CK_SIGN_TRACE")[0] == '1';
    if (trace)
        fprintf(stderr, "ck-sign\t%s backward-weights (re-done elements) exact\t%s\tstep %.0f\tm %.0f S %.0f\tp %.3g\t"
                "filters %ld/%ld p %.3g\tq %.3f\n", ly->name, ck_phase_label(CKP_BWD_WEIGHTS), vec[2], sg->m, sg->S, p,
                kp, kn, pc, q);
    char what[224]; /* (sign_verdict keeps 159: "conv2 backward-weights (re-done elements): exact sign test over 64
                     * elements: p = 1.1e-19, limit 1e-12 (64 up, 0 down; filters 32 up, 0 down: p 4.7e-10)") */
    snprintf(what, sizeof what, "%s backward-weights (re-done elements): exact sign test over %.0f elements: p = %.2g, "
             "limit %.2g (%.0f up, %.0f down; filters %.0f up, %.0f down: p %.2g)", ly->name, sg->m, p, CK_SIGN_ALPHA,
             (double)pos, (double)neg, (double)kp, (double)kn, pc);
    sign_verdict(o, CKP_BWD_WEIGHTS, l, q, sg->m, worst, what);
}

/* A conv layer's blank-window outputs (FWD_BLANK): exact, per sample
 * (count, largest |y - b|, blank positions, identical windows' gap).  The
 * fourth field (0 in recordings before it): the outputs of identical
 * windows (engines/checksums.c, conv_groups) apart from their group's
 * first by (gap - 2 K 2^-149) / (2 S_g), which any fp32 evaluation keeps
 * within gamma_K, K = C k k + 1; a twin's rounded operands are the same
 * for the whole group, so its S_g grows by (1 + u_in)^2 at most. */
static void judge_blank(const model *m, const ck_layout *L, const double *vec, size_t n, int l, ck_phase cph,
                        double u_in, ck_verdict *o) {
    if (!L->cnt[l][CK_FWD_BLANK]) return;
    const layer *ly = &m->layers[l];
    const double *r = vec + L->off[l][CK_FWD_BLANK];
    double bad = 0, worst = 0, pos = 0, gq = 0;
    double gk = 1.01 * compare_gamma((size_t)ly->in_c * ly->k * ly->k + 1) * (1 + u_in) * (1 + u_in);
    size_t first = n, gi = n, gbad = 0;
    for (size_t i = 0; i < n; i++) {
        const double *e = r + CK_REL * i;
        if (!(e[0] == 0) && first == n) first = i;
        bad += fabs(e[0]), pos += e[2]; /* a count: NaN (or < 0) is none, never ok (NaN > 0 is false) */
        worst = e[1] > worst || e[1] != e[1] ? e[1] : worst;
        double q = e[3] != e[3] ? INFINITY : e[3] / gk;
        if (q > 1) gbad++;
        if (q > gq) gq = q, gi = i;
    }
    char what[160];
    if (!(bad == 0))
        snprintf(what, sizeof what, "%s's %.0f output(s) of all-zero windows are not exactly its bias (first in "
                 "sample %zu, up to %.3g off)", ly->name, bad, first, worst);
    else
        snprintf(what, sizeof what, "%s's %.0f output(s) of all-zero windows, each exactly its bias",
                 ly->name, pos);
    note(o, cph, l, !(bad == 0) ? INFINITY : 0.0, bad, what);
    if (gi < n) {
        snprintf(what, sizeof what, "%s forward (outputs of identical windows), sample %zu (%zu of %zu samples over)",
                 ly->name, gi, gbad, n);
        note(o, cph, l, gq, (double)gbad, what);
    }
    o->n_relations += (long)n - 1;
}

/* An exact block: [elements that differ from the operation re-done bit for
 * bit, those that differ where an operand is inf or NaN] (engines/
 * checksums.c, bad_or_unj: more than one legal fp32 result there, the
 * per-element tier's rule; not judged, counted; 0 in vectors before it). */
static void judge_exact(const model *m, const ck_layout *L, const double *vec, int l, int ph, ck_phase cph,
                        ck_verdict *o) {
    if (!L->cnt[l][ph]) return;
    double bad = vec[L->off[l][ph]], unj = vec[L->off[l][ph] + 1];
    if (unj > 0 && unj < 1e15) o->n_unjudged += (long)unj; /* (long)inf is undefined */
    else if (!(unj <= 0)) bad = NAN;                        /* a count that is no count: never ok */
    char what[160];
    snprintf(what, sizeof what, "%s %s: %.0f element(s) not the exact re-computation", m->layers[l].name,
             ph == CK_FWD ? "forward" : "backward", bad);
    note(o, cph, l, !(bad == 0) ? INFINITY : 0.0, bad, what); /* a NaN count is no count: never ok */
}

/* The loss and dz re-done in double from the engine's logits; each within
 * its per-side fp32 bound (bounds_loss) plus the double evaluation's own
 * rounding (a 2^-40 relative margin: a few hundred double roundings).  A
 * row with a logit +-inf or NaN (fc2's output beyond fp32's range) has
 * bound +inf (bounds_loss: inf - inf in one order, exp(-inf) = 0 in
 * another, each legal): its dz and the batch loss are not judged, counted
 * in n_unjudged (the re-done value is NaN there, which would read as over). */
static int judge_loss(const model *m, const ck_layout *L, const double *vec, size_t n, const int32_t *y,
                      ck_verdict *o) {
    int C = m->n_classes;
    size_t nz = n * (size_t)C;
    const double *b = vec + L->loss_off;
    float *z = ls_malloc(nz * sizeof *z);
    double *bdz = ls_malloc(nz * sizeof *bdz);
    if (!z || !bdz) {
        free(z), free(bdz);
        return LS_ENOMEM;
    }
    for (size_t i = 0; i < nz; i++) z[i] = (float)b[1 + i];
    double bl, worst = 0, acc = 0;
    long unj = 0, any = 0;
    int rc = bounds_loss(z, y, n, C, &bl, bdz);
    for (size_t i = 0; i < n && !rc; i++) {
        const float *zr = z + i * C;
        if (isinf(bdz[i * C])) { /* a logit non-finite (bounds_loss): no information */
            unj += C;
            continue;
        }
        any = 1;
        double mx = zr[0], s = 0;
        for (int j = 1; j < C; j++) mx = zr[j] > mx ? zr[j] : mx;
        for (int j = 0; j < C; j++) s += exp((double)zr[j] - mx);
        acc += log(s) - ((double)zr[y[i]] - mx);
        for (int j = 0; j < C; j++) {
            double d = (exp((double)zr[j] - mx) / s - (j == y[i] ? 1.0 : 0.0)) / (double)n;
            double q = fabs(b[1 + nz + i * C + j] - d) / (bdz[i * C + j] + 0x1p-40 * fabs(d));
            worst = q > worst || q != q ? q : worst;
        }
    }
    double ql = fabs(b[0] - acc / (double)n) / (bl + 0x1p-40 * fabs(acc / (double)n));
    free(z), free(bdz);
    if (rc) return rc;
    o->n_unjudged += unj + !(bl < INFINITY);
    if (bl < INFINITY) note(o, CKP_LOSS, m->n_layers - 1, ql, 0, "loss (softmax cross-entropy) re-done from the logits");
    if (any) note(o, CKP_LOSS, m->n_layers - 1, worst, 0, "loss gradient dz re-done from the logits");
    return LS_OK;
}

/* The vector describes the step's own outputs: the last layer's forward
 * relations carry Y_j = sum over the batch of |z_ij| (ck_rel's Y: the sum
 * of |computed outputs|), and the LOSS block carries the logits z
 * themselves, so each Y_j must be their sum of |.| (within 2^-20
 * relative: a recording stores Y rounded down to fp32, a device may add
 * in another order).  A vector whose relation blocks were zeroed, or
 * copied from another step (a recording edited by hand), fails it; an
 * engine's own vector meets it by construction. */
static void judge_logit_tie(const model *m, const ck_layout *L, const double *vec, size_t n, ck_verdict *o) {
    int l = m->n_layers - 1, C = m->n_classes;
    if (m->layers[l].kind != LAYER_DENSE || m->layers[l].out_c != C || L->cnt[l][CK_FWD] != (size_t)C) return;
    const double *z = vec + L->loss_off + 1;
    double worst = 0;
    long bad = 0;
    for (int j = 0; j < C; j++) {
        double sa = 0;
        for (size_t i = 0; i < n; i++) sa += fabs(z[i * (size_t)C + (size_t)j]);
        double Y = vec[L->off[l][CK_FWD] + CK_REL * (size_t)j + 2];
        double q = fabs(Y - sa) / (0x1p-20 * sa + 0x1p-126);
        if (Y == sa || (Y != Y && sa != sa)) q = 0; /* a logit inf or NaN (fp32's range): both sums are it */
        if (!(q <= 1)) bad++;
        worst = q > worst || q != q ? q : worst;
    }
    char what[200];
    snprintf(what, sizeof what, "%s forward: the relations' sum of |outputs| is not the logits' (%ld of %d outputs): the "
             "vector does not describe this step's own outputs", m->layers[l].name, bad, C);
    note(o, CKP_FORWARD, l, bad ? INFINITY : 0.0, (double)bad, what);
}

/* The Adam re-check: elements whose p, m or v is not ops_adam_elem's bit
 * for bit.  The engines share that formula word for word, so a clean
 * engine's count is 0.  With ADAMW (a live engine: per_sample >=
 * CK_BLOCKS_LIVE) the element furthest over its bound is bounded (the
 * producer picks it by the same ratio, base/adam_bound.h): its p, m, v
 * against the exact update from its own fp32 operands and the step's fp32
 * scalars (evaluated in double: each product of floats exact, each of the
 * few remaining operations within 2^-53 relative, covered by 2^-50 of the
 * value), within bounds_adam's per-element bounds (vs_exact 0: the same
 * fp32 constants).  Within them: a legal evaluation of the same update
 * (FMA-contracted, another order; zoo attack 7's adam_fma_contracted: 0.96
 * of it with the worst element carried, zoo attack 10's adam_pytorch_lerp
 * 0.95), not the engines' shared formula: SUSPECT.  Beyond them, or
 * without ADAMW (a recording made before it): PROBLEM.  Before the bound,
 * the named legal orders (base/adam_orders.h): a tensor whose differing
 * elements are all one named order's, bit for bit (the mask ADAMW packs
 * with the index), is ok, said as such (ck_verdict.n_legal, legal_what);
 * one element that is no order's (a fault inside such an engine) clears
 * the mask, and the tensor is bounded as before. */
static double adam_elem_ratio(const double *sc, const double *el) {
    return ops_adam_elem_ratio((float)el[1], (float)el[2], (float)el[3], (float)el[4], (float)sc[0], (float)sc[1],
                               (float)sc[2], (float)sc[3], (float)sc[4], (float)sc[5], (float)sc[6], el[5], el[6], el[7]);
}

static void judge_adam(const model *m, const ck_layout *L, const double *vec, int per_sample, ck_verdict *o) {
    int live = per_sample >= CK_BLOCKS_LIVE;
    const double *sc = vec + L->adamw_off;
    for (int t = 0; t < m->n_tensors; t++) {
        double bad = vec[L->adam_off + 2 * t];
        char what[160];
        if (!(bad >= 0 && bad < INFINITY)) { /* a count NaN, inf or < 0: no count, never ok (NaN > 0 is false) */
            snprintf(what, sizeof what, "%s Adam re-done from the step's p, m, v, g: the count of differing elements "
                     "is %g", m->tensors[t].name, bad);
            note(o, CKP_UPDATE, m->tensors[t].layer, INFINITY, 0, what);
            continue;
        }
        const double *el = sc + CK_ADAMW_HDR + CK_ADAMW_PER * (size_t)t;
        unsigned orders = 0;
        if (live) adam_orders_unpack(el[0], &orders);
        if (bad > 0 && orders) { /* every differing element is one named legal order's, bit for bit */
            int k = 0, more = -1;
            while (!(orders >> k & 1u)) k++;
            for (unsigned b = orders; b; b &= b - 1) more++;
            char also[48] = "";
            if (more) snprintf(also, sizeof also, "; %d other named order(s) agree", more);
            snprintf(what, sizeof what, "%s Adam: %.0f element(s) in %s's order, bit for bit (a recognised legal order%s)",
                     m->tensors[t].name, bad, adam_order_name(k), also);
            note(o, CKP_UPDATE, m->tensors[t].layer, 0.0, 0, what);
            if (!o->n_legal++ || bad > o->legal_count) { /* the tensor with the most such elements */
                o->legal_count = bad;
                snprintf(o->legal_what, sizeof o->legal_what, "%s", what);
            }
            continue;
        }
        double r = bad > 0 && live ? adam_elem_ratio(sc, el) : INFINITY;
        if (bad > 0 && r <= 1) { /* within the bound: not the shared formula, a legal evaluation of the update */
            snprintf(what, sizeof what, "%s Adam: %.0f element(s) not the shared formula bit for bit, the furthest "
                     "%.2g of its fp32 bound (a legal evaluation)", m->tensors[t].name, bad, r);
            note(o, CKP_UPDATE, m->tensors[t].layer, r, 0, what);
            if (!o->n_sus || o->sus.ratio < INFINITY || r > o->sus_worst_ratio) {
                o->sus.phase = CKP_UPDATE;
                o->sus.layer = m->tensors[t].layer;
                o->sus.ratio = INFINITY; /* the sharp tier of a shared formula: bit for bit */
                o->sus.sign_test = 0;
                o->sus.count = bad;
                o->sus_worst_ratio = r;
                snprintf(o->sus.what, sizeof o->sus.what, "%s", what);
            }
            o->n_sus++;
            continue;
        }
        if (live && bad > 0)
            snprintf(what, sizeof what, "%s Adam re-done from the step's p, m, v, g: %.0f element(s) differ (up to %.3g; "
                     "the furthest %.3g of its bound)", m->tensors[t].name, bad, vec[L->adam_off + 2 * t + 1], r);
        else
            snprintf(what, sizeof what, "%s Adam re-done from the step's p, m, v, g: %.0f element(s) differ (up to %.3g)",
                     m->tensors[t].name, bad, vec[L->adam_off + 2 * t + 1]);
        note(o, CKP_UPDATE, m->tensors[t].layer, bad > 0 ? (live ? r : INFINITY) : 0.0, bad, what);
    }
}

int checksums_judge(const model *m, const double *vec, size_t n, const int32_t *labels, double u_in, int per_sample,
                    ck_verdict *out) {
    return checksums_judge_dups(m, vec, n, labels, u_in, per_sample, NULL, out);
}

int checksums_judge_dups(const model *m, const double *vec, size_t n, const int32_t *labels, double u_in,
                         int per_sample, const bounds_dups *dups, ck_verdict *out) {

    ck_layout L;
    ck_layout_make(&L, m, n);
    /* the stage as a number (a NaN or huge vec[0]: (int) would be undefined; no stage then, judged as STEP) */
    int stage = vec[0] == CK_STAGE_UPDATE ? CK_STAGE_UPDATE : vec[0] == CK_STAGE_EVAL ? CK_STAGE_EVAL : CK_STAGE_STEP;
    if (stage == CK_STAGE_UPDATE) {
        judge_adam(m, &L, vec, per_sample, out);
        return LS_OK;
    }
    int eval = stage == CK_STAGE_EVAL;
    ck_bias_pool bp = {0}; /* the conv layers' bias blocks' signs, pooled (judge_bias_pool) */
    for (int l = 0; l < m->n_layers; l++) {
        static const ck_phase map[CK_NPHASE] = {CKP_FORWARD, CKP_BWD_DATA, CKP_BWD_WEIGHTS, CKP_BWD_WEIGHTS};
        for (int ph = 0; ph < CK_NPHASE; ph++) {
            if (eval && ph != CK_FWD) continue;
            ck_phase cph = eval ? CKP_EVAL : map[ph];
            if (L.is_rel[l]) judge_rel(m, &L, vec, n, l, ph, cph, u_in, dups, eval ? NULL : &bp, out);
            else if (ph <= CK_BWD_DATA) judge_exact(m, &L, vec, l, ph, cph, out);
        }
        int light = per_sample == CK_BLOCKS_LIGHT;
        int ph_end = per_sample >= CK_BLOCKS_ALL   ? CK_NPHASE_ALL
                     : per_sample == CK_BLOCKS_D   ? CK_NPHASE_D
                     : per_sample == CK_BLOCKS_P   ? CK_NPHASE_P
                     : per_sample == CK_BLOCKS_R   ? CK_NPHASE_R
                     : per_sample == CK_BLOCKS_Z   ? CK_NPHASE_Z
                     : per_sample == CK_BLOCKS_ALT ? CK_NPHASE_ALT
                     : per_sample == CK_BLOCKS_EXT ? CK_NPHASE_EXT
                                                   : 0;
        for (int ph = CK_FWD_PS; ph < ph_end; ph++) {
            if (light && !ck_light_keeps(&m->layers[l], ph)) continue;
            if (ph == CK_FWD_BLANK) {
                judge_blank(m, &L, vec, n, l, eval ? CKP_EVAL : CKP_FORWARD, u_in, out);
                continue;
            }
            int bwd = ph == CK_BWD_DATA_PS || ph == CK_BWD_DATA_PW || ph == CK_BWD_DATA_RA || ph == CK_BWD_DATA_CA ||
                      ph == CK_BWD_DATA_RND || ph == CK_BWD_DATA_PEEK || ph == CK_BWD_DATA_DPEEK;
            int bw = ph == CK_BWD_W_PW || ph == CK_BWD_W_Z || ph == CK_BWD_W_PEEK || ph == CK_BWD_W_RND;
            if (!eval || (!bwd && !bw))
                judge_rel(m, &L, vec, n, l, ph, eval ? CKP_EVAL : bw ? CKP_BWD_WEIGHTS : bwd ? CKP_BWD_DATA : CKP_FORWARD,
                          u_in, dups, NULL, out);
        }
        /* the re-done dW elements' signs (after both blocks' own judgements; fp32 engines only, as sign_begin) */
        if (!eval && u_in <= 0 && ph_end > CK_BWD_W_PEEK && (!light || ck_light_keeps(&m->layers[l], CK_BWD_W_PEEK)))
            judge_dw_sign(m, &L, vec, n, l, out);
    }
    if (!eval) judge_bias_pool(m, vec, &bp, out);
    if (!eval) judge_logit_tie(m, &L, vec, n, out);
    return eval || !labels ? LS_OK : judge_loss(m, &L, vec, n, labels, out);
}

void checksums_input(const model *m, const double *vec, size_t n, uint64_t want, ck_verdict *out) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    int eval = (int)vec[0] == CK_STAGE_EVAL, same = ck_get_u64(vec + L.input_off) == want;
    char what[160];
    snprintf(what, sizeof what, "input: the images this %s computed with are not the batch it was given (digest)",
             eval ? "evaluation batch" : "step");
    note(out, eval ? CKP_EVAL : CKP_FORWARD, 0, same ? 0.0 : INFINITY, same ? 0 : 1, what);
}

void checksums_continuity(const model *m, const double *prev_digest, const double *vec, size_t n, int set,
                          ck_verdict *out) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    int eval = (int)vec[0] == CK_STAGE_EVAL;
    static const char *const names[3] = {"values", "Adam m", "Adam v"};
    for (int t = 0; t < m->n_tensors; t++)
        for (int i = 0; i < (eval ? 1 : 3); i++) {
            int same = ck_get_u64(prev_digest + 3 * t + i) == ck_get_u64(vec + L.digest_off + 3 * t + i);
            char what[160];
            snprintf(what, sizeof what, "continuity: %s %s this %s computed with are not those %s",
                     m->tensors[t].name, names[i], eval ? "evaluation" : "step",
                     set ? "the audit set (its initial state: a restore the engine did not apply)"
                         : "the last update reported");
            int k = note(out, eval ? CKP_EVAL : CKP_UPDATE, m->tensors[t].layer, same ? 0.0 : INFINITY, same ? 0 : 1, what);
            if (k >= 0) out->v[k].between = 1;
        }
}

/* ---- read-backs (checksums.h) --------------------------------------------- */

void checksums_readback_state(const model *m, const double *dig, const float *p, const float *mo, const float *v,
                              const char *use, ck_phase ph, ck_verdict *out) {
    static const char *const names[3] = {"values", "Adam m", "Adam v"};
    const float *buf[3] = {p, mo, v};
    for (int t = 0; t < m->n_tensors; t++) {
        const model_tensor *T = &m->tensors[t];
        for (int i = 0; i < 3; i++) {
            if (!buf[i]) continue;
            int same = ck_digest(buf[i] + T->offset, T->numel) == ck_get_u64(dig + 3 * t + i);
            char what[160];
            snprintf(what, sizeof what, "read-back: %s %s read back for %s are not those the checks judged", T->name,
                     names[i], use);
            note(out, ph, T->layer, same ? 0.0 : INFINITY, same ? 0 : 1, what);
        }
    }
}

/* |a - b| <= 2^-20 b + 2^-126 (judge_logit_tie's tolerance) */
static int sum_tied(double y, double sa) {
    return fabs(y - sa) <= 0x1p-20 * sa + 0x1p-126 || y == sa || (y != y && sa != sa); /* inf or NaN: both */
}

void checksums_readback_logits(const model *m, const double *vec, size_t n, const float *z, int exact, int per_sample,
                               int eval, ck_verdict *out) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    int l = m->n_layers - 1, C = m->n_classes;
    ck_phase ph = eval ? CKP_EVAL : CKP_FORWARD;
    size_t nz = n * (size_t)C;
    char what[200];
    if (exact) {
        size_t bad = 0;
        for (size_t i = 0; i < nz; i++) {
            float c = (float)vec[L.loss_off + 1 + i];
            bad += !(memcmp(&c, &z[i], sizeof c) == 0 || (c != c && z[i] != z[i]));
        }
        snprintf(what, sizeof what, "read-back: %zu of %zu %s logits read back are not those the checks judged",
                 bad, nz, eval ? "evaluation" : "training");
        note(out, ph, l, bad ? INFINITY : 0.0, (double)bad, what);
    }
    if (m->layers[l].kind != LAYER_DENSE || m->layers[l].out_c != C || L.cnt[l][CK_FWD] != (size_t)C) return;
    long bad = 0;
    for (int j = 0; j < C; j++) {
        double sa = 0;
        for (size_t i = 0; i < n; i++) sa += fabs((double)z[i * (size_t)C + (size_t)j]);
        bad += !sum_tied(vec[L.off[l][CK_FWD] + CK_REL * (size_t)j + 2], sa);
    }
    long bad_s = 0;
    for (size_t i = 0; per_sample && L.cnt[l][CK_FWD_PS] == n && i < n; i++) {
        double sa = 0;
        for (int j = 0; j < C; j++) sa += fabs((double)z[i * (size_t)C + (size_t)j]);
        bad_s += !sum_tied(vec[L.off[l][CK_FWD_PS] + CK_REL * i + 2], sa);
    }
    snprintf(what, sizeof what, "read-back: the %s logits read back do not sum to the checked outputs' (%ld of %d "
             "classes, %ld of %zu samples)", eval ? "evaluation" : "training", bad, C, bad_s, n);
    note(out, ph, l, bad || bad_s ? INFINITY : 0.0, (double)(bad + bad_s), what);
}

void checksums_readback_loss(const model *m, const double *vec, size_t n, float loss, ck_verdict *out) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    float c = (float)vec[L.loss_off];
    int same = memcmp(&c, &loss, sizeof c) == 0 || (c != c && loss != loss);
    char what[160];
    snprintf(what, sizeof what, "read-back: the loss reported to the driver (%.9g) is not the one the checks judged "
             "(%.9g)", (double)loss, (double)c);
    note(out, CKP_LOSS, m->n_layers - 1, same ? 0.0 : INFINITY, same ? 0 : 1, what);
}
