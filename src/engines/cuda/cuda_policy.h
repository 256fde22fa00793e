/*
 * cuda_policy.h — the host-side decisions of the CUDA engine, in plain C
 * with no CUDA header, so that they are unit-tested on every machine
 * (tests/test_cuda.c), GPU or not.
 *
 *   - knobs:       cuda:math=fma|tf32:algo=det|fast:expm=vendor|portable:...
 *   - algorithm:   pick one cuDNN convolution algorithm from the candidate
 *                  list the library returned (heuristics or timed Find),
 *                  filtered on status, determinism, math type and workspace;
 *   - shapes:      the 4-d descriptor dimensions of every layer for a batch
 *                  of n, checked against the model and against cuDNN's int
 *                  limits;
 *   - geometry:    grid sizes for the element-wise kernels;
 *   - messages:    an actionable hint for the CUDA runtime errors a user
 *                  meets when there is no usable device.
 *
 * The enum values mirror cuDNN's (cudnn_graph.h, cudnn_ops.h), so the engine
 * converts by cast; engine_cuda.c checks that they agree at compile time.
 * Not here: any CUDA, cuDNN or cuBLAS call.
 */
#ifndef LS_CUDA_POLICY_H
#define LS_CUDA_POLICY_H

#include <stddef.h>

#include "engines/engine.h"
#include "model/model.h"

/* cudnnMathType_t values. */
enum {
    CP_MATH_DEFAULT = 0,          /* TF32 permitted on Ampere and newer */
    CP_MATH_TENSOR_OP = 1,        /* tensor cores, no down-conversion (TF32 for fp32) */
    CP_MATH_TENSOR_OP_CONVERT = 2,/* tensor cores, fp32 may be converted to fp16 */
    CP_MATH_FMA = 3,              /* FMA instructions only: true fp32 */
};

/* Directions of a convolution. */
enum { CP_CONV_FWD, CP_CONV_BWD_DATA, CP_CONV_BWD_FILTER, CP_CONV_N };

typedef enum { CP_MODE_FMA, CP_MODE_TF32 } cp_math_mode;
typedef enum { CP_ALGO_DET, CP_ALGO_FAST } cp_algo_policy;

typedef struct {
    cp_math_mode math;     /* math=fma (default) | tf32 */
    cp_algo_policy algo;   /* algo=det (default) | fast */
    int pool_det;          /* pool=det | fast; default follows algo */
    int portable_exp;      /* expm=vendor (default) | portable */
    int gemm_only;         /* conv=gemm | any; default follows algo (det: gemm, refuse FFT and Winograd) */
    size_t ws_limit;       /* ws=MiB, per convolution call; default 64 MiB */
    int device;            /* device=N, default 0 */
    int timing;            /* timing=1 (default) | 0: CUDA events per layer */
} cp_opts;

/* Parse and check the knobs of a "cuda:..." spec.  LS_EINVAL with a message
 * naming the knob for anything unknown or out of range. */
int cp_opts_parse(cp_opts *o, const engine_spec *s);

/* One entry of cuDNN's cudnnConvolution*AlgoPerf_t, as plain ints. */
typedef struct {
    int algo;
    int status;        /* cudnnStatus_t, 0 = success */
    float time_ms;     /* Find only; heuristics leave -1 */
    size_t memory;     /* workspace bytes */
    int deterministic; /* cudnnDeterminism_t: 1 deterministic */
    int math;          /* cudnnMathType_t */
} cp_algo_cand;

/* Pick the index of the candidate to use, or -1 with `why` (if not NULL,
 * `why_len` bytes) telling how many candidates each rule rejected.
 *   - status must be success, memory <= ws_limit;
 *   - det: only deterministic candidates;
 *   - fma: only CP_MATH_FMA; tf32: anything but CP_MATH_TENSOR_OP_CONVERT
 *     (fp16 down-conversion is not TF32 and is never asked for);
 *   - gemm_only: FFT and Winograd algorithms refused;
 *   - among the rest: `timed` (the list came from a Find, times measured)
 *     and policy fast → the smallest time, ties to the earlier; otherwise
 *     the first, i.e. cuDNN's own ranking (timing runs are never used to
 *     choose when reproducibility was asked for). */
int cp_pick_algo(const cp_algo_cand *c, int n, int dir, const cp_opts *o, int timed,
                 char *why, size_t why_len);

/* cuDNN's name for an algorithm of a direction ("IMPLICIT_PRECOMP_GEMM",
 * "ALGO_1", "WINOGRAD_NONFUSED"...); "?" when out of range. */
const char *cp_algo_name(int dir, int algo);
/* 1 for FFT and Winograd algorithms: they do not compute the convolution
 * as sums of products, so their error is not bounded like a dot product's. */
int cp_algo_is_transform(int dir, int algo);
const char *cp_math_name(int math);
const char *cp_dir_name(int dir);

/* 4-d shapes of one layer for a batch of n (NCHW; dense as (n, f, 1, 1)). */
typedef struct {
    int x[4], y[4];  /* input and output, n c h w */
    int w[4];        /* conv filter k c r s; dense (out, in, 1, 1) */
    int pad;
    size_t x_numel, y_numel, w_numel;
} cp_dims;

/* Fill d for layer l and batch n; checks that the model's output shape is
 * what cuDNN will compute (conv: h + 2p - k + 1; maxpool 2x2/2: floor(h/2))
 * and that every count fits cuDNN's int dimensions.  LS_EINVAL otherwise. */
int cp_layer_dims(cp_dims *d, const layer *l, size_t n);

/* Blocks for a grid-stride kernel over `count` elements with `threads` per
 * block, at most max_blocks; 0 when count is 0 (launch nothing). */
unsigned cp_grid_blocks(size_t count, unsigned threads, unsigned max_blocks);

/* What a user can do about a cudaError_t met while looking for a device
 * (35: no driver, 100: no device, ...), or NULL when there is no advice. */
const char *cp_cuda_hint(int cuda_error);

/* ---- every-step checksums on the device (engines/checksums.h) ------------
 * cp_ck_scratch: doubles each of the two scratch arrays (sums, |sums|)
 * needs for a batch of n: the largest of a conv's n C k k (forward window
 * sums), n OC k k (backward-data), n OH OW (backward-weights patch sums)
 * and a dense layer's max(in, out, n).
 * cp_ck_wants: whether `stage` (CK_STAGE_*) computes block `phase`
 * (CK_FWD .. CK_BWD_B) of a layer: STEP all, EVAL the forward only,
 * UPDATE none (its blocks are ADAM and DIGEST).
 * cp_ck_elem_kind: the element-wise kernel of a layer: 0 ReLU, 1 flatten,
 * 2 dropout, 3 max-pool; -1 for conv and dense (relations).
 * cp_ck_maxima: doubles of the plane-maxima array (the relations' S) for
 * a batch of n: the largest of a conv's n (C + OC) (the x planes', then
 * the dy planes') and a dense layer's 2 (max |x|, max |dy|).
 * cp_ck_parts: doubles of the conv backward-weights' per-plane sums for a
 * batch of n: the largest 4 n OC over the conv layers (at least 4). */
size_t cp_ck_scratch(const model *m, size_t n);
size_t cp_ck_maxima(const model *m, size_t n);
size_t cp_ck_parts(const model *m, size_t n);
int cp_ck_wants(int stage, int phase);
/* doubles of the random-weight relations' scratch (kernels.h's
 * lk_ck_conv_rnd, lk_ck_dense_rnd, and, in turn, lk_ck_conv_wrnd,
 * lk_ck_dense_wrnd) for a batch of n: per layer both draws' weights, then
 * a conv's weighted window sums (both draws, n max(C, OC) k k each) or a
 * dense layer's W^T s, W t and sums (5 in + 5 out + 9); for BWD_W_RND a
 * conv's U and Ua (both draws, n oh ow each), the (filter, sample) shares
 * (3 n OC a draw) and n maxima, a dense layer's weighted inputs (4 n);
 * the largest of all */
size_t cp_ck_rnd(const model *m, size_t n);
/* bytes of the blank and identical windows' scratch (lk_ck_conv_grp,
 * lk_ck_blank) for a batch of n: per conv layer and direction (forward:
 * x's windows over the outputs; backward-data: dy's over the input
 * positions) n source-position and n window hashes (8 bytes each), n
 * group firsts and counts a window (4 bytes each), n CK_GRP_EXACT group
 * lists (4 bytes) and sizes (8), n group counts (4) and remainders (8),
 * n CK_GRP_EXACT window maxima per source channel (8) and the layer's
 * C OC sums of |w| (8); the largest */
size_t cp_ck_blank(const model *m, size_t n);
/* The layout of that scratch for one conv layer and direction, the one
 * lk_ck_conv_grp and lk_ck_blank carve it into (byte offsets from its
 * start): hws source positions a sample (forward: the input's h w;
 * backward-data: the output's oh ow), po windows a sample (the other
 * one), nu source and nv result channels (forward C, OC; backward-data
 * OC, C).  u64 hashes hpos (n hws) and key (n po); u32 fm and cnt (n po
 * each), first (n CK_GRP_EXACT), ng (n); doubles f (n CK_GRP_EXACT), over
 * (n), gmx (n CK_GRP_EXACT nu), coef (nu nv); end: the bytes used.  Every
 * u64 and double region starts 8-byte aligned. */
typedef struct {
    size_t hpos, key, fm, cnt, first, ng, f, over, gmx, coef, end;
} cp_grp_layout;
cp_grp_layout cp_ck_grp_layout(size_t n, size_t hws, size_t po, size_t nu, size_t nv);
int cp_ck_elem_kind(const layer *l);

/* ---- all-or-nothing allocation -------------------------------------------
 * A set of device buffers used together (the every-step checksums' vector,
 * scratch and snapshots) is allocated whole or not at all: a set kept half
 * allocated after a failure was taken as ready by the next call, whose
 * kernels then wrote through its NULLs.  cp_alloc_all calls alloc(ctx, p,
 * bytes) for each buffer in order (0, or an error code with ls_errmsg()
 * set; a 0-byte buffer may stay NULL); at the first failure it calls
 * release(ctx, p, bytes) on those already allocated, last first, sets
 * every pointer of the set to NULL and returns that code, the message
 * naming what, the buffer, its size, the whole set's size and the cause
 * (`cuda: cannot allocate the device memory of the every-step checksums:
 * ck_s (1.5 MiB, buffer 2 of 10; 9.0 MiB in all), none kept: cuda: ...
 * out of memory`).  Returns 0 with every buffer allocated otherwise. */
typedef struct {
    void **p;
    size_t bytes;
    const char *name;
} cp_buf;
typedef int (*cp_alloc_fn)(void *ctx, void **p, size_t bytes);
typedef void (*cp_release_fn)(void *ctx, void **p, size_t bytes);
int cp_alloc_all(const cp_buf *b, int n, cp_alloc_fn alloc, cp_release_fn release, void *ctx, const char *what);

#endif
