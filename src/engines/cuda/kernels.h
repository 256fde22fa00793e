/*
 * kernels.h — launchers for lockstep's own CUDA kernels (kernels.cu):
 * bias add and bias gradient, ReLU, dropout, softmax cross-entropy, the
 * batch-mean loss and Adam.  Each per-element body is the function of
 * ops_elem.h that the C engine calls, compiled with --fmad=false, so the
 * same inputs give the same bits as on the CPU.  Reductions run in a fixed
 * order (no float atomics): the same inputs give the same bits on every run.
 *
 * Every launcher enqueues on `stream` and returns cudaGetLastError() as an
 * int (0 = success); nothing here synchronises.  Counts of 0 launch nothing.
 * Not here: memory management, descriptors, cuDNN/cuBLAS calls.
 */
#ifndef LS_CUDA_KERNELS_H
#define LS_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/adam_orders.h"
#include "base/checksum_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 when this device can run the kernels below (their module loads),
 * else the CUDA error: cudaErrorNoKernelImageForDevice on a GPU this
 * build has no code for, cudaErrorUnsupportedPtxVersion for a driver too
 * old for its PTX. */
int lk_probe(void);
/* y (n,c,hw) += b (c), in place; dense layers pass hw = 1. */
int lk_bias_add(cudaStream_t s, float *y, const float *b, size_t n, size_t c, size_t hw);
/* db (c) = sum over n and hw of dy (n,c,hw); one block per channel, each
 * thread a strided partial sum in index order, then a fixed binary tree. */
int lk_bias_grad(cudaStream_t s, float *db, const float *dy, size_t n, size_t c, size_t hw);
/* y = x > 0 ? x : +0 (count elements). */
int lk_relu_fwd(cudaStream_t s, float *y, const float *x, size_t count);
/* dx = y > 0 ? dy : +0, y the forward output. */
int lk_relu_bwd(cudaStream_t s, float *dx, const float *dy, const float *y, size_t count);
/* ops_dropout_fwd/bwd over a (n, size) tensor of `count` elements, element
 * index = flat index (count must be < 2^32; the engine checks). */
int lk_dropout_fwd(cudaStream_t s, float *y, const float *x, size_t count, uint64_t seed,
                   uint32_t step, uint32_t layer, float p, float scale);
int lk_dropout_bwd(cudaStream_t s, float *dx, const float *dy, size_t count, uint64_t seed,
                   uint32_t step, uint32_t layer, float p, float scale);
/* ops_softmax_xent_row for rows 0..n-1 of z (n,c): dz (n,c), row_loss (n). */
int lk_softmax_xent(cudaStream_t s, float *dz, float *row_loss, const float *z,
                    const int32_t *labels, size_t n, int c, float inv_n, int portable);
/* *loss = (float)((sum of row_loss[0..n-1] in double, in row order) / n),
 * by one thread. */
int lk_loss_mean(cudaStream_t s, float *loss, const float *row_loss, size_t n);
/* ops_adam_elem over count elements. */
int lk_adam(cudaStream_t s, float *p, float *m, float *v, const float *g, size_t count,
            float b1, float omb1, float b2, float omb2, float step_size, float bc2_sqrt, float eps);
/* y = x / 255.0f from bytes (device-resident data sets). */
int lk_u8_to_f32(cudaStream_t s, float *y, const uint8_t *x, size_t count);

/* ---- every-step checksums (engines/checksums.h's layout; the bodies are
 * base/checksum_ops.h's, as in the host implementation).  Relation
 * outputs are 4 doubles (R, A, Y, S) each; `bad` counters and digest
 * slots must be zeroed by the caller (they are accumulated with atomics).
 * mx: plane maxima of |input| for S (ck_s_*): lk_ck_window writes
 * mx[plane] for each of its planes; conv forward reads the x planes' (n C),
 * backward-data the dy planes' (n OC), backward-weights the x planes'
 * again.  lk_ck_sums with column sums and mx != NULL atomicMax-es max |x|
 * into *mx (zeroed by the caller; NULL: none); lk_ck_dense reads mx[0] =
 * max |x| (modes 0, 2) and mx[1] = max |dy| (mode 1).  lk_ck_window's
 * dy_mode: 0 the input's window sums, 1 dy's, 2 the input's
 * position-weighted ones (ck_window_sum_w), 3 dy's (ck_window_sum_w's dy_mode),
 * 4 the input's row-alternating ones (ck_window_sum_alt), 5 dy's, 6 and 7
 * the column-alternating ones;
 * lk_ck_conv_fwd and lk_ck_conv_bwd_data with weighted 1: the
 * position-weighted relations (FWD_PW, BWD_DATA_PW, from mode 2's and
 * mode 3's sums), 2: the row-alternating ones (FWD_RA, BWD_DATA_RA, from
 * mode 4's and 5's), 3: the column-alternating ones (FWD_CA, BWD_DATA_CA,
 * from mode 6's and 7's). */
int lk_ck_window(cudaStream_t s, double *sum, double *asum, double *mx, const float *x, const ck_conv_dims *d,
                 size_t planes, int dy_mode);
int lk_ck_conv_fwd(cudaStream_t s, double *o, const float *y, const float *w, const float *b, const double *sum,
                   const double *asum, const double *mx, const ck_conv_dims *d, size_t n, int weighted);
int lk_ck_conv_bwd_data(cudaStream_t s, double *o, const float *dx, const float *w, const double *sum,
                        const double *asum, const double *mx, const ck_conv_dims *d, size_t n, int weighted);
/* weighted != 0: the index-weighted Z and backward-weights relation (BWD_W_PW: each dW element and the input
 * element its tap meets weighted by the tap's index + 1 in the filter; no bias block) */
int lk_ck_conv_z(cudaStream_t s, double *z, double *za, const float *x, const ck_conv_dims *d, size_t n, int weighted);
/* part: n OC x 4 doubles of scratch (cp_ck_parts), the per-plane sums; after
 * the call part[4 (i OC + oc) + 3] = sum |dy| of plane (i, oc) (lk_ck_conv_zero reads it) */
int lk_ck_conv_bwd_w(cudaStream_t s, double *ow, double *ob, const float *dw, const float *db, const float *dy,
                     const double *z, const double *za, const double *mx, double *part, const ck_conv_dims *d,
                     size_t n, int weighted);
/* by_row 0: column sums, 1: row sums, 2: index-weighted row sums (ck_isum) */
int lk_ck_sums(cudaStream_t s, double *sum, double *asum, double *mx, const float *x, size_t rows, size_t cols,
               int by_row);
/* mode 0 forward (lhs = y), 1 backward-data (lhs = dx), 2 backward-weights (lhs = dW, b = db, ob the bias block),
 * 3 index-weighted backward-weights (BWD_W_PW: lhs = dW, sum/asum from lk_ck_sums by_row 2, ob unused) */
int lk_ck_dense(cudaStream_t s, double *o, double *ob, const float *w, const float *b, const float *lhs,
                const float *dy, const double *sum, const double *asum, const double *mx, size_t n, size_t in,
                size_t out, int mode);
/* BWD_W_Z of a conv layer: per filter oc, base/checksum_ops.h's
 * ck_conv_zero_filter (x, dy plain NCHW), one block per filter; part: as
 * lk_ck_conv_bwd_w left it (each dy plane's sum |dy|), mx_x: the x plane
 * maxima (n C) of the forward's window kernel */
int lk_ck_conv_zero(cudaStream_t s, double *o, const float *dw, const float *x, const float *dy, const double *part,
                    const double *mx_x, const ck_conv_dims *d, size_t n);
/* BWD_W_Z: per row j of dW (out rows of in), base/checksum_ops.h's
 * ck_dense_zero_row; xa: x's column sums of |.| over the batch (lk_ck_sums
 * mode 0) */
int lk_ck_dense_zero(cudaStream_t s, double *o, const float *dw, const float *dy, const float *x, const double *xa,
                     size_t n, size_t in, size_t out);
/* FWD_PEEK (bwd 0: yt = y, src = x, b the bias) or BWD_DATA_PEEK (bwd 1:
 * yt = dx, src = dy, b NULL) of a conv layer (plain NCHW, w OIHW): per
 * (sample, channel) plane, its first, last, largest and drawn elements
 * re-done (base/checksum_peek.h's ck_conv_plane_peek), a thread per
 * plane; dig: the vector's INPUT slot (the stage's input digest, already
 * computed: the draws' key), step and stage the vector's header's */
int lk_ck_conv_peek(cudaStream_t s, double *o, const float *yt, const float *src, const float *w, const float *b,
                    const ck_conv_dims *d, size_t n, int bwd, const double *dig, uint32_t step, uint32_t stage,
                    int layer);
/* FWD_RND (bwd 0: yt = y, src = x, b the bias, plain = the FWD block) or
 * BWD_DATA_RND (bwd 1: yt = dx, src = dy, b NULL, plain = BWD_DATA) of a
 * conv layer: the stage's random weights into rs (keyed by the INPUT
 * slot dig, step and stage, as ck_rnd_weights), the source's weighted
 * window sums, then per (sample, channel) and draw the relation
 * (base/checksum_rnd.h), A, Y, S copied from the plain one; rs:
 * cp_ck_rnd doubles of scratch */
int lk_ck_conv_rnd(cudaStream_t s, double *o, const double *plain, const float *yt, const float *src, const float *w,
                   const float *b, const ck_conv_dims *d, size_t n, int bwd, double *rs, const double *dig,
                   uint32_t step, uint32_t stage, int layer);
/* FWD_RND (of) and, ob != NULL, BWD_DATA_RND (ob; dy, dx) of a dense layer
 * (w: out x in), per sample and draw (base/checksum_rnd.h); rs as above */
int lk_ck_dense_rnd(cudaStream_t s, double *of, double *ob, const float *w, const float *b, const float *x,
                    const float *y, const float *dy, const float *dx, size_t n, size_t in, size_t out, double *rs,
                    const double *dig, uint32_t step, uint32_t stage, int layer);
/* BWD_W_PEEK: per dense row (a block each: EVERY element, as the host's
 * dense_peek; dig, step, stage unused) or conv filter (a block each; x, dy
 * plain NCHW: its first, last, drawn and largest |dW|) of dW, the elements
 * re-done over the batch (base/checksum_peek.h), the worst kept; dig,
 * step, stage: the draws' key as lk_ck_conv_peek's */
int lk_ck_dense_wpeek(cudaStream_t s, double *o, const float *dw, const float *dy, const float *x, size_t n, size_t in,
                      size_t out, const double *dig, uint32_t step, uint32_t stage, int layer);
int lk_ck_conv_wpeek(cudaStream_t s, double *o, const float *dw, const float *x, const float *dy,
                     const ck_conv_dims *d, size_t n, const double *dig, uint32_t step, uint32_t stage, int layer);
/* FWD_BLANK of a conv layer (x, y plain NCHW, w OIHW, b the bias): per
 * sample, its blank windows' outputs against the bias and its identical
 * windows' outputs against each other (base/checksum_blank.h); scr:
 * cp_ck_blank bytes of scratch; keyed: the window keys and group firsts
 * of x are already there (lk_ck_conv_grp's forward, just before) */
int lk_ck_blank(cudaStream_t s, double *o, const float *x, const float *y, const float *w, const float *b,
                const ck_conv_dims *d, size_t n, void *scr, int keyed);
/* The identical windows' term of a conv layer's forward (bwd 0: src = x,
 * b the bias; o FWD, opw FWD_PW, ora FWD_RA, oca FWD_CA) or
 * backward-data relations (bwd 1: src = dy, b NULL; the BWD_DATA blocks):
 * per sample the groups of identical windows and per relation E, then S
 * = S + E / A in each block (base/checksum_blank.h's ck_grp_*, as
 * engines/checksums.c's conv_groups), the plain relation's S read from o
 * (lk_ck_conv_fwd, lk_ck_conv_bwd_data must have written every block
 * first; the random-weight ones copy o's S after this); a NULL block is
 * skipped; scr: cp_ck_blank bytes, its keys left for lk_ck_blank */
int lk_ck_conv_grp(cudaStream_t s, double *o, double *opw, double *ora, double *oca, const float *src,
                   const float *w, const float *b, const ck_conv_dims *d, size_t n, int bwd, void *scr);
/* BWD_W_RND: per conv filter (x, dy plain NCHW) or dense row and draw, dW
 * summed with random weights against dy times the input summed with the
 * same weights (base/checksum_rnd.h), the weights drawn on the device
 * (dig, step, stage as lk_ck_conv_peek's); rs: cp_ck_rnd doubles of
 * scratch; a dense layer's mx: max |x| over the batch (lk_ck_sums' mx[0]) */
int lk_ck_conv_wrnd(cudaStream_t s, double *o, const float *dw, const float *x, const float *dy,
                    const ck_conv_dims *d, size_t n, double *rs, const double *dig, uint32_t step, uint32_t stage,
                    int layer);
int lk_ck_dense_wrnd(cudaStream_t s, double *o, const float *dw, const float *dy, const float *x, const double *mx,
                     size_t n, size_t in, size_t out, double *rs, const double *dig, uint32_t step, uint32_t stage,
                     int layer);
/* FWD_DPEEK (bwd 0: x the layer's input, y its output, b the bias) or
 * BWD_DATA_DPEEK (bwd 1: x = dy, y = dx, b NULL) of a dense layer (w: out
 * x in): per sample, every element re-done and the worst kept
 * (base/checksum_peek.h's ck_dense_opeek_elem), a block per sample; o: n
 * entries of 4 doubles */
int lk_ck_dense_opeek(cudaStream_t s, double *o, const float *w, const float *b, const float *x, const float *y,
                      size_t n, size_t in, size_t out, int bwd);
/* one thread per sample: base/checksum_ops.h's ck_dense_sample (forward: lhs
 * = y, x = the layer's input, nl = out, nx = in, cs/csa W's column sums,
 * lw its row sums of |w|, b the bias; backward-data: lhs = dx, x = dy, nl =
 * in, nx = out, cs/csa row sums, lw column sums of |w|, b NULL) */
int lk_ck_dense_sample(cudaStream_t s, double *o, const float *lhs, const float *x, const double *cs,
                       const double *csa, const double *lw, const float *b, size_t n, size_t nl, size_t nx);
/* kind 0 ReLU, 1 flatten, 2 dropout */
int lk_ck_elem(cudaStream_t s, double *bad, int kind, int backward, int training, const float *x, const float *y,
               const float *dy, const float *dx, size_t count, uint64_t seed, uint32_t step, uint32_t layer, float p,
               float scale);
int lk_ck_pool(cudaStream_t s, double *bad, const float *x, const float *y, const float *dy, const float *dx,
               size_t planes, int h, int w, int oh, int ow, int backward);
int lk_ck_digest(cudaStream_t s, double *slot, const float *x, size_t count);
/* out: the tensor's ADAM entry (2 doubles: elements that differ, the
 * largest |difference|); far: its ADAMW entry (CK_ADAMW_PER doubles,
 * zeroed by the caller): the element furthest over its bound, the first
 * of equals (base/checksum_peek.h's ck_adam_far_ratio, by two atomicMax
 * passes, then ck_adam_far_put), as the host's loop picks it, its first
 * double packed with the named orders (base/adam_orders.h) every
 * differing element is bit for bit, and where one differs every element
 * (k_ck_adam_orders; osc: their scalars), as the host's */
int lk_ck_adam(cudaStream_t s, double *out, double *far, const float *p0, const float *m0, const float *v0,
               const float *g, const float *p, const float *m, const float *v, size_t count, float b1, float omb1,
               float b2, float omb2, float step_size, float bc2_sqrt, float eps, adam_order_sc osc);

/* For tests: the vendor and portable exp/log of ops_elem.h on the device. */
int lk_test_expf_logf(cudaStream_t s, float *exp_out, float *log_out, const float *x,
                      size_t count, int portable);

#ifdef __cplusplus
}
#endif

#endif
