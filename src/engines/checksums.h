/*
 * checksums.h — the every-step checksum vector of an engine: its layout
 * (which block holds which layer's relations) and the host implementation
 * that any engine whose tensors live in host memory uses (the cpu engine,
 * inside its own process).  The per-element arithmetic is
 * base/checksum_ops.h's, shared with the CUDA kernels; judging the vector
 * is checks/checksums.c's.
 *
 * A vector is doubles.  Header: [0] stage, [1] batch n, [2] step.  Then,
 * per layer l, up to four blocks:
 *   conv/dense: FWD, BWD_DATA (l > 0), BWD_W, BWD_B — relations, CK_REL = 4
 *     doubles each (R, A, Y, S: base/checksum_ops.h's ck_rel; S bounds the
 *     largest per-output sum of |terms| for the sharper tier); a conv's
 *     BWD_W sums each filter's dW with the signs ck_cw, (-1)^(c + kh + kw)
 *     times the tap's (ck_csum; a dense layer's sums a row unsigned);
 *   relu/max-pool/flatten/dropout: FWD, BWD_DATA (l > 0) — 2 doubles
 *     (elements that differ from the operation re-done bit for bit, 0).
 * Then LOSS: [loss, logits z (n, classes), dz (n, classes)] (small: the
 * loss and its gradient are re-done from z on the host), ADAM: per model tensor
 * 2 doubles (elements of p, m, v not equal to ops_adam_elem re-done from
 * the step's own p, m, v, g; the largest |difference|), DIGEST: per
 * model tensor 3 u64 (stored in doubles' bits) of its PARAMS, ADAM_M,
 * ADAM_V slices; INPUT: 1 u64, the digest of the input images the stage
 * computed with, as the engine holds them (STEP, EVAL; 0 in UPDATE), which
 * the judge compares with the digest of the batch the engine was given: a
 * step or an evaluation batch run on other images (a copy skipped, a
 * buffer not swapped) keeps every relation, and breaks only this.  Then
 * PER SAMPLE: per dense layer, FWD_PS (n relations: a sample's outputs
 * summed, against its input times the column sums of W plus the sum of
 * b) and BWD_DATA_PS (l > 0: a sample's input gradient summed, against
 * its output gradient times W's row sums); the blocks above sum a dense
 * layer over the batch, so a kernel that writes one sample's result into
 * another's row keeps them all and breaks these.  Then POSITION-WEIGHTED:
 * per conv layer, FWD_PW (n OC relations, the forward relation with each
 * output weighted by its linear position + 1 with the checkerboard's sign:
 * the plain one sums a whole plane, so a plane transposed or mirrored, or
 * two neighbours exchanged, keeps it; base/checksum_ops.h's ck_pw_sign,
 * ck_window_sum_w, ck_rows_w) and BWD_DATA_PW (l > 0: n C relations,
 * backward-data with each input gradient weighted the same way); then
 * INDEX-WEIGHTED: BWD_W_PW, per output of a conv or dense layer, dW
 * weighted by its signed index + 1 in the filter or row (ck_iw).  Then
 * ALTERNATING: per conv layer, FWD_RA (n OC relations, the forward
 * relation with each output weighted by (-1)^row), BWD_DATA_RA (l > 0:
 * n C, backward-data the same over dx), FWD_CA and BWD_DATA_CA (the same
 * with (-1)^column): a zero-sum pattern in alternating rows or columns (a
 * Winograd tile with one transform-domain value wrong) keeps the plain
 * relations and barely moves the position-weighted ones;
 * base/checksum_ops.h's ck_window_sum_alt, ck_rows_alt.  Then ZERO
 * ELEMENTS: per dense layer, BWD_W_Z (OC relations, one per row of dW:
 * the element of the row that its zero structure says most wrongly is
 * what it is — a dW exactly +-0 where some sample had both a nonzero
 * input and a nonzero output gradient, as the residual of 0 against its
 * own dot product re-done in double (R, A = its sum of |terms|, Y, S = A);
 * or a nonzero where every term is 0, its row's dy or its column's x zero
 * in the whole batch (A = 0), or the row's smallest nonzero re-done the
 * same way; per conv layer, the same per filter for its zeros
 * (ck_conv_zero_filter): the relations above sum a row or a filter, so a
 * gradient that underflowed or was flushed to 0 moves them by less than
 * their rounding, while Adam's scale-free step moves that weight by ~lr).
 * Then RANDOM-WEIGHTED, BLANK WINDOWS and SAMPLED ELEMENTS (the enums
 * below say what each holds).
 * INPUT, PER SAMPLE, POSITION-, INDEX-WEIGHTED, ALTERNATING, ZERO
 * ELEMENTS and those come last, so the blocks before keep their offsets (recordings
 * made before these blocks existed store the vector up to DIGEST, or up
 * to ra_off, or up to z_off, and are judged without the rest;
 * recording_ck_pack stores them all now).
 *
 * Stages (what the call covers; other blocks are 0):
 *   CK_STAGE_STEP   after loss and backward, before update: FWD, BWD_*,
 *                   LOSS, DIGEST of the state the step computed with;
 *   CK_STAGE_UPDATE after update: ADAM, DIGEST of the new state;
 *   CK_STAGE_EVAL   after an inference-mode forward: FWD (dropout must be
 *                   the identity), DIGEST of PARAMS, and LOSS's logits z
 *                   as the checks read them (its loss and dz 0), which the
 *                   driver's read-back of the logits must equal bit for bit
 *                   (checks/checksums.h: checksums_readback_logits); a
 *                   recording stores EVAL vectors up to LOSS, without them.
 *
 * Not here: bounds, verdicts (checks/), IPC (remote.c forwards the call).
 */
#ifndef LS_ENGINE_CHECKSUMS_H
#define LS_ENGINE_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>

#include "engines/engine.h"

enum { CK_FWD, CK_BWD_DATA, CK_BWD_W, CK_BWD_B, CK_NPHASE };
/* after INPUT (in recordings since plan.checksums "...,all-blocks"): the
 * per-sample dense blocks, the position-weighted conv forward and
 * backward-data blocks, and the index-weighted backward-weights block of
 * conv and dense layers */
enum { CK_FWD_PS = CK_NPHASE, CK_BWD_DATA_PS, CK_FWD_PW, CK_BWD_DATA_PW, CK_BWD_W_PW, CK_NPHASE_EXT };
/* after all of those (in recordings since plan.checksums
 * "...,all-blocks,alt"; ck_layout.ra_off): the row- and column-alternating
 * conv forward and backward-data blocks */
enum { CK_FWD_RA = CK_NPHASE_EXT, CK_BWD_DATA_RA, CK_FWD_CA, CK_BWD_DATA_CA, CK_NPHASE_ALT };
/* after the alternating blocks (in recordings since plan.checksums
 * "...,all-blocks,alt,zero"; ck_layout.z_off): per dense layer, BWD_W_Z */
enum { CK_BWD_W_Z = CK_NPHASE_ALT, CK_NPHASE_Z };
/* after the zero-element blocks (in recordings since plan.checksums
 * "...,all-blocks,alt,zero,rand", with FWD_BLANK below; ck_layout.rnd_off): the random-weight
 * relations, per conv layer FWD_RND (n OC units: each output weighted by
 * a[row] b[column]) and BWD_DATA_RND (l > 0: n C, each dx the same), per
 * dense layer FWD_RND (n: a sample's outputs weighted by s[j]) and
 * BWD_DATA_RND (l > 0: n, its input gradient weighted by t[k]), each unit
 * CK_RND_DRAWS relations; the weights +-(1/2 + k/64), k < 32, drawn per
 * stage and draw (ck_rnd_weights) */
/* and, per conv layer, FWD_BLANK (n entries, one a sample): an output
 * whose window is all +-0 in every input channel (a blank border, a
 * channel a ReLU left dark) is exactly its bias (every product +-0, their
 * sum +-0, plus b): (count of outputs that are not, largest |y - b|, the
 * blank positions, and the outputs of identical windows apart: the
 * largest (|y_p - y_q| - 2 K 2^-149) / (2 S_g) over a group's outputs,
 * which any fp32 evaluation keeps within gamma_K (engines/checksums.c,
 * conv_groups; 0 in recordings before it)); the relations sum such
 * outputs with the others, so noise there (an approximate transform, a
 * bias added from a narrower copy) hides under the rest's tolerance */
/* and, per conv and dense layer, BWD_W_PEEK (OC entries, as BWD_W_Z's):
 * per filter or row, its first and last dW elements, CK_PEEK_RANDOM
 * drawn per stage (ck_rnd_index) and its largest |dW| (as FWD_PEEK
 * re-does each plane's largest output: a fault that scales a value is
 * largest there) re-done in double over their terms, the
 * worst kept (ck_zero_keep): a relation's tolerance is its elements'
 * bounds summed, so one element a filter or row wrong by a few times its
 * own bound (a loop's peeled first or last iteration in another
 * precision) stays under it; re-done, it is judged against its own */
enum { CK_FWD_RND = CK_NPHASE_Z, CK_BWD_DATA_RND, CK_FWD_BLANK, CK_BWD_W_PEEK, CK_NPHASE_R };
enum { CK_PEEK_RANDOM = 2, CK_PEEK = 3 + CK_PEEK_RANDOM };
/* after those (in recordings since plan.checksums "...,rand,peek";
 * ck_layout.peek_off): per conv layer, FWD_PEEK (n OC entries, one per
 * output plane) and BWD_DATA_PEEK (l > 0: n C, one per input-gradient
 * plane): the plane's first and last elements, its largest (forward: the
 * largest y, the one a max-pool passes on; backward-data: the largest
 * |dx|) and CK_OPEEK_RANDOM drawn per stage (ck_peek_elems) re-done in
 * double as one dot product each (forward: b + sum over (c, kh, kw) of
 * w x; backward-data: sum over (o, kh, kw) of w dy), the worst kept
 * (ck_zero_keep) as BWD_W_PEEK's: each plane's relations above sum its
 * elements' bounds, so one element a plane wrong by tens of times its own
 * bound (an epilogue that writes a plane's maximum back in another
 * precision, a peeled first iteration) stays under them; re-done, it is
 * judged against its own (K = C k k + 1, or OC k k) */
enum { CK_FWD_PEEK = CK_NPHASE_R, CK_BWD_DATA_PEEK, CK_NPHASE_P };
enum { CK_OPEEK_RANDOM = 1, CK_OPEEK = 3 + CK_OPEEK_RANDOM };
/* after those (in recordings since plan.checksums "...,rand,peek,dpeek";
 * ck_layout.dpeek_off): the same for each dense layer, per sample:
 * FWD_DPEEK (n entries) re-does the sample's first and last outputs, its
 * largest (the one a ReLU passes on; fc2's: the predicted class) and
 * CK_OPEEK_RANDOM drawn (ck_plane_draw, u = the sample) as b + sum over
 * features of w x, and BWD_DATA_DPEEK (l > 0: n) its input gradient's
 * first, last, largest |dx| and drawn as sum over outputs of w dy, the
 * worst kept (ck_zero_keep): the dense relations sum 16 to 64 outputs'
 * bounds, so an error of a few times each element's own bound, of random
 * sign (operands in TF32 or bf16 at one layer), stays under them;
 * re-done, each is judged against its own (K = in + 1, or out) */
enum { CK_FWD_DPEEK = CK_NPHASE_P, CK_BWD_DATA_DPEEK, CK_NPHASE_D };
/* after those (in recordings since plan.checksums "...,dpeek,wrnd";
 * ck_layout.wrnd_off): BWD_W_RND, per conv filter or dense row and draw
 * (CK_RND_DRAWS per unit), the weight gradient summed with random weights
 * against dy times the input summed with the same weights: a conv's
 * weights a_c b_t, a random weight per input channel times one per tap
 * (separable, so the input's weighted sums cost a channel mix and a tap
 * pass per position), a dense layer's a random weight per input feature.
 * The backward-weights relations before them have fixed weights (signs
 * ck_cw, index weights ck_iw, the dense rows' four sign patterns), and an
 * error pattern orthogonal to every one of them — (+e, -e, -e, +e) over
 * four channels at one tap, (+e, +e, -e, -e) on four elements of a dense
 * row — kept them all, at any size (zoo attack 6: conv2_dw_walsh4_once,
 * fc1_dw_row_pattern_once; VERDICT ok at 64x the largest |dW|): random
 * weights, drawn per stage from the input digest and step, leave such a
 * pattern unseen only where it is orthogonal to the draw too. */
enum { CK_BWD_W_RND = CK_NPHASE_D, CK_NPHASE_ALL };
/* Independent draws of the random weights per stage: each random-weight
 * relation is there CK_RND_DRAWS times (entry unit CK_RND_DRAWS + draw).
 * One draw misses a +-e pair of a dense row when its two weights are
 * nearly equal (the same sign: |s_j - s_k| < 1/2, uniform-ish): measured,
 * the zoo's rectangle faults went from 9.3x over to 0.76 between two
 * draws; two make such a miss ~1/4 as likely. */
enum { CK_RND_DRAWS = 2 };
/* The blocks a light step computes (CK_STAGE_LIGHT, engine.h) and the
 * judge reads (CK_BLOCKS_LIGHT), one rule for both: every layer's plain
 * ones (ph < CK_NPHASE); a dense layer, small beside the conv layers, all
 * its others too but the every-output re-dos (FWD_DPEEK, BWD_DATA_DPEEK: a
 * matrix product in double). */
static inline int ck_light_keeps(const layer *ly, int ph) {
    return ph < CK_NPHASE || (ly->kind == LAYER_DENSE && ph != CK_FWD_DPEEK && ph != CK_BWD_DATA_DPEEK);
}
enum { CK_HDR = 3, CK_REL = 4 };

typedef struct {
    size_t off[MODEL_MAX_LAYERS][CK_NPHASE_ALL]; /* in doubles */
    size_t cnt[MODEL_MAX_LAYERS][CK_NPHASE_ALL]; /* relations (or 1 exact block); 0 = none */
    int is_rel[MODEL_MAX_LAYERS];            /* CK_REL doubles per entry, else 2 */
    size_t loss_off, adam_off, digest_off, input_off;
    size_t ra_off; /* where the alternating blocks start (the vector's end before them) */
    size_t z_off;  /* where the zero-element blocks start (the vector's end before them) */
    size_t rnd_off; /* where the random-weight blocks start (the vector's end before them) */
    size_t peek_off; /* where the output-element blocks start (the vector's end before them) */
    size_t dpeek_off; /* where the dense output-element blocks start (the vector's end before them) */
    size_t wrnd_off;  /* where the random-weighted backward-weights blocks start (the vector's end before them) */
    size_t adamw_off; /* ADAMW (below): the end of what a recording holds */
    size_t total;  /* doubles */
} ck_layout;

/* After those, in the UPDATE stage's vector of a live engine (never in a
 * recording: recording_ck_geom_of stops at adamw_off): ADAMW, the operands
 * of the Adam re-check's differences.  The ADAM block counts the elements
 * whose p, m or v is not ops_adam_elem's bit for bit; to tell a legal
 * evaluation of the same update (an FMA-contracted one, another order)
 * from a wrong one, the judge bounds the difference (checks/bounds.c,
 * bounds_adam), so the vector carries the step's fp32 scalars
 * (CK_ADAMW_HDR: beta1, 1 - beta1, beta2, 1 - beta2, step_size, bc2_sqrt,
 * eps) and, per model tensor, CK_ADAMW_PER doubles: the index of its
 * element furthest over its fp32 bound (ops_adam_elem_ratio, base/
 * adam_bound.h: the judge's own ratio, so the element it bounds is the
 * tensor's worst; by ULP distance, as before zoo attack 10, a legal
 * order's many-ulp difference where the bound is wide hid a few-ulp
 * violation elsewhere), its
 * p, m, v before the update, g, and p, m, v as the engine wrote them (all
 * 0 where none differs).  The index is packed with the mask of the named
 * legal orders (base/adam_orders.h: PyTorch's, Kingma and Ba's, the
 * FMA-contracted shared formula, ...) that reproduce EVERY differing
 * element's p, m and v of the tensor bit for bit: index + 2^32 mask
 * (adam_orders_pack; only differing elements pay for it, and a clean
 * engine's entry stays all 0: the vector is bit-identical to the one
 * before the mask). */
enum { CK_ADAMW_HDR = 7, CK_ADAMW_PER = 8 };

void ck_layout_make(ck_layout *L, const model *m, size_t n);
const char *ck_phase_name(int phase); /* "forward", "backward-data", ... */
uint64_t ck_get_u64(const double *slot);
void ck_put_u64(double *slot, uint64_t v);

/* The order-independent digest of a float buffer (checksum_ops.h's terms). */
uint64_t ck_digest(const float *x, size_t n);
/* 1: ck_digest takes its AVX2 path from here on (-1 where the CPU has no
 * AVX2), 0: the plain loop (its clones); the same sums either way (a test
 * compares them) */
int ck_digest_force_avx2(int on);
/* The operand hash's sum over one buffer (a repeat's CK_STAGE_HASH_ONLY
 * folds one per tensor it would read), on one thread: for tests. */
uint64_t ck_operand_hash_buf(const float *x, size_t n);

/* The random weights of a stage's random-weight relations: cnt weights
 * +-(1/2 + k/64), k < 32 (6 significant bits: a product of two and an
 * fp32 value is exact in double), drawn from base/rng.h's Philox (stream
 * RNG_STREAM_CK) keyed by ck_rnd_key(input digest, step, stage), for the
 * layer and what (0, 1: a conv's forward rows, columns; 2, 3: its
 * backward-data rows, columns; 0: a dense layer's forward outputs, 2: its
 * backward-data inputs). */
typedef struct {
    uint64_t digest;
    uint32_t step, stage;
} ck_rnd_key_t;
ck_rnd_key_t ck_rnd_key(uint64_t input_digest, long step, int stage);
void ck_rnd_weights(double *w, size_t cnt, ck_rnd_key_t key, int layer, int what);
/* BWD_W_PEEK's elements of unit u (a filter or row of cnt elements, its
 * dW at v): t[0] = 0, t[1] = cnt - 1, then CK_PEEK_RANDOM drawn as the
 * weights are (what 8 + k), uniform below cnt, then the first of the
 * largest |v| (NaN never: a NaN fails the unit's plain relation) */
void ck_peek_elems(size_t *t, const float *v, size_t cnt, ck_rnd_key_t key, int layer, size_t u);
/* FWD_PEEK's (bwd = 0) or BWD_DATA_PEEK's (bwd = 1) CK_OPEEK_RANDOM drawn
 * positions of plane u (sample i's channel c: u = i C + c; cnt positions),
 * from the same Philox counters as ck_peek_elems' with their own what */
void ck_plane_draw(size_t *t, size_t cnt, ck_rnd_key_t key, int layer, size_t u, int bwd);

/* The host implementation: reads the engine's tensors through its own
 * table (no timing, no IPC; its buffers directly where engine_i.ck_view
 * offers them) and fills out (ck_layout_make(m, e->batch) .total
 * doubles), on e->ck_threads threads (0: every core the process may use),
 * the conv relations and fused pairs sample by sample (one thread does
 * all of a sample's, so its tensors are read from memory once; the vector
 * does not depend on the thread count or the layout).  Keeps a snapshot of PARAMS/M/V between the STEP and UPDATE stages in
 * e->ck_state (engine_free frees it).  stage may carry engine.h's
 * CK_STAGE_HASH (the vector and, at out[total], the operand hash: see
 * checksums.c) or CK_STAGE_HASH_ONLY (the header and the hash only, for a
 * repeat judged on its first listing's vector). */
int engine_checksums_host(engine *e, int stage, double *out);

/* The vector path of the in-pass dW re-do (BWD_W_Z, BWD_W_PEEK) this
 * process uses: "avx512f", "avx2" or "scalar" (tests: every path gives the
 * same bits); -1 when this machine or build lacks it. */
int ck_redo_force_isa(const char *name);

#endif
