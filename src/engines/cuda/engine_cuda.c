/*
 * engine_cuda.c — the cuda engine: cuDNN 9 convolutions and max-pool,
 * cuBLAS SGEMM for dense layers, and lockstep's own kernels (kernels.cu)
 * for bias, ReLU, dropout, softmax cross-entropy and Adam.
 *
 * Numerics are set explicitly, never left to library defaults:
 *   math=fma   cuDNN convolutions with CUDNN_FMA_MATH (and only algorithms
 *              whose perf entry says FMA_MATH), cuBLAS in PEDANTIC_MATH:
 *              true fp32 products and sums, no tensor cores.
 *   math=tf32  cuDNN DEFAULT_MATH (TF32 permitted on Ampere and newer, as
 *              cuDNN does for fp32 when nobody asks), cuBLAS TF32_TENSOR_OP.
 *   algo=det   convolution algorithms from cuDNN's heuristics, the first
 *              whose determinism field says deterministic; max-pool in
 *              MAX_DETERMINISTIC; cuBLAS atomics not allowed.
 *   algo=fast  algorithms by timed cudnnFind, the fastest; plain MAX pool.
 * The choice per layer and direction (algorithm, determinism, math type,
 * workspace) is in describe().  The policy itself is in cuda_policy.c.
 *
 * Memory: every device buffer is allocated once in engine_cuda_create for
 * max_batch (activations and their gradients per layer, the four flat
 * parameter buffers, labels, loss); a batch of n < max_batch uses the first
 * n rows.  Descriptors and algorithm choices depend on n and are cached per
 * batch size (a few plans; the max_batch one is never evicted).  The only
 * later allocation is the convolution workspace, grown when a new plan
 * needs more, never per step.
 *
 * Ordering: everything runs on one stream; loss() and get_tensor() wait for
 * it.  Per-layer device times are CUDA events around each call, read back
 * one step later, when they have long completed.
 *
 * Not here: choosing what to compare (audit/driver.c), the host-side policy
 * (cuda_policy.c), the kernels (kernels.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "engines/checksums.h"
#include "engines/cuda/cuda_policy.h"
#include "engines/cuda/kernels.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"
#include "base/util.h"

_Static_assert(CP_MATH_DEFAULT == (int)CUDNN_DEFAULT_MATH && CP_MATH_TENSOR_OP == (int)CUDNN_TENSOR_OP_MATH &&
                   CP_MATH_TENSOR_OP_CONVERT == (int)CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
                   CP_MATH_FMA == (int)CUDNN_FMA_MATH,
               "cuda_policy.h math values must equal cudnnMathType_t");
_Static_assert((int)CUDNN_DETERMINISTIC == 1, "cp_algo_cand.deterministic is 1 for deterministic");

/* ---- status checking -------------------------------------------------- */

#define CHECK_CUDA(call)                                                                     \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            rc = ls_err(LS_ELIB, "cuda: %s:%d: %s: %s (%d): %s", __FILE__, __LINE__, #call,   \
                        cudaGetErrorName(e_), (int)e_, cudaGetErrorString(e_));             \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)

/* Our launchers return cudaGetLastError() as an int. */
#define CHECK_LK(call)                                                                       \
    do {                                                                                     \
        int e_ = (call);                                                                     \
        if (e_ != 0) {                                                                       \
            rc = ls_err(LS_ELIB, "cuda: %s:%d: %s: %s (%d): %s", __FILE__, __LINE__, #call,   \
                        cudaGetErrorName((cudaError_t)e_), e_,                               \
                        cudaGetErrorString((cudaError_t)e_));                                \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)

#define CHECK_CUDNN(call)                                                                    \
    do {                                                                                     \
        cudnnStatus_t s_ = (call);                                                           \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                    \
            char d_[256];                                                                    \
            cudnnGetLastErrorString(d_, sizeof d_);                                          \
            rc = ls_err(LS_ELIB, "cuda: %s:%d: %s: %s (%d)%s%s", __FILE__, __LINE__, #call,   \
                        cudnnGetErrorString(s_), (int)s_, d_[0] ? ": " : "", d_);            \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)

#define CHECK_CUBLAS(call)                                                                   \
    do {                                                                                     \
        cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            rc = ls_err(LS_ELIB, "cuda: %s:%d: %s: %s (%d)", __FILE__, __LINE__, #call,       \
                        cublasGetStatusString(s_), (int)s_);                                 \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)

/* ---- context ----------------------------------------------------------- */

#define N_PLANS 4

typedef struct {
    int algo, math, deterministic;
    float time_ms;  /* Find's measurement, -1 for heuristics */
    size_t ws;      /* workspace bytes for this algorithm */
    int used;       /* 0 when this direction never runs (conv1's backward-data) */
} conv_choice;

/* Descriptors and algorithm choices for one batch size. */
typedef struct {
    size_t n;          /* 0: empty slot */
    uint64_t last_use;
    cudnnTensorDescriptor_t x[MODEL_MAX_LAYERS], y[MODEL_MAX_LAYERS];
    cudnnConvolutionDescriptor_t conv[MODEL_MAX_LAYERS][CP_CONV_N];
    conv_choice pick[MODEL_MAX_LAYERS][CP_CONV_N];
    size_t ws_need;
} cuda_plan;

typedef struct {
    cp_opts o;
    cudaStream_t stream;
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    cudnnFilterDescriptor_t filt[MODEL_MAX_LAYERS];
    cudnnPoolingDescriptor_t pool;

    float *params, *grads, *adam_m, *adam_v; /* n_params each */
    float *input;                            /* max_batch x input size */
    float *act[MODEL_MAX_LAYERS], *dact[MODEL_MAX_LAYERS];
    int32_t *labels;
    float *row_loss, *loss;
    void *ws;
    size_t ws_size;
    float *stage_x;      /* pinned host staging for set_batch */
    int32_t *stage_y;
    cudaEvent_t staged;  /* the last copy out of the staging buffers */
    int staged_pending;

    cuda_plan plans[N_PLANS];
    cuda_plan *cur;
    uint64_t clock;
    size_t n;            /* current batch */
    uint64_t step;
    float dropout_scale[MODEL_MAX_LAYERS];

    /* every-step checksums: the vector and scratch on the device, and the
     * snapshot of the state a step computed with (for the Adam re-check) */
    double *ck_vec, *ck_s, *ck_sa, *ck_mx; /* ck_mx: plane maxima (the relations' S) */
    double *ck_part; /* conv backward-weights: per (sample, filter) plane's sums (cp_ck_parts) */
    double *ck_rnd;  /* the random-weight relations' weights and sums (cp_ck_rnd) */
    void *ck_grp;    /* the blank and identical windows' hashes (cp_ck_blank bytes) */
    /* LOCKSTEP_CUDA_CK_PROFILE=1: device time of the checksums per layer
     * (slot l) and of the digests (slot n_layers), printed at the end */
    int ck_prof;
    cudaEvent_t ck_pev[MODEL_MAX_LAYERS + 2];
    double ck_pms[MODEL_MAX_LAYERS + 1];
    long ck_pcalls;
    size_t ck_vec_bytes, ck_s_bytes, ck_mx_bytes, ck_part_bytes, ck_rnd_bytes, ck_grp_bytes;
    float *ck_p0, *ck_m0, *ck_v0;
    int ck_snap;
    int ck_ready;        /* every ck_* buffer above is allocated (ck_alloc: all or none) */

    /* timing: [layer][dir][start/end], plus loss and update */
    cudaEvent_t ev[MODEL_MAX_LAYERS][DIR_N][2];
    int ev_pending[MODEL_MAX_LAYERS][DIR_N];
    double dev_ms[MODEL_MAX_LAYERS][DIR_N];
    long dev_calls[MODEL_MAX_LAYERS][DIR_N];
    cudaEvent_t ev_misc[2][2];  /* 0 loss, 1 update */
    int misc_pending[2];
    double misc_ms[2];
    long misc_calls[2];
    int events_made;

    /* memory */
    size_t alloc_bytes, alloc_peak;
    size_t mem_total, used_before, used_after;

    /* device facts */
    int device;
    char dev_name[256];
    int sm_count, cc_major, cc_minor, driver_ver, runtime_ver;
    size_t cudnn_ver;
    int cublas_major, cublas_minor, cublas_patch;
} cuda_ctx;

static int dev_alloc(cuda_ctx *c, void **p, size_t bytes) {
    int rc = 0;
    *p = NULL;
    if (bytes == 0) return 0;
    CHECK_CUDA(cudaMalloc(p, bytes));
    c->alloc_bytes += bytes;
    if (c->alloc_bytes > c->alloc_peak) c->alloc_peak = c->alloc_bytes;
done:
    return rc;
}

static void dev_free(cuda_ctx *c, void **p, size_t bytes) {
    if (*p) {
        cudaFree(*p);
        c->alloc_bytes -= bytes;
    }
    *p = NULL;
}

static size_t act_bytes(const engine *e, int l) {
    return e->max_batch * layer_out_size(&e->m->layers[l]) * sizeof(float);
}

/* ---- plans: descriptors and algorithms per batch size ----------------- */

static void plan_destroy(cuda_plan *p) {
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) {
        if (p->x[l]) cudnnDestroyTensorDescriptor(p->x[l]);
        if (p->y[l]) cudnnDestroyTensorDescriptor(p->y[l]);
        for (int d = 0; d < CP_CONV_N; d++)
            if (p->conv[l][d]) cudnnDestroyConvolutionDescriptor(p->conv[l][d]);
    }
    memset(p, 0, sizeof *p);
}

/* Candidates for one direction: heuristics (det, or fast without timing)
 * or a timed Find (fast).  Fills cand[0..*nc). */
static int conv_candidates(cuda_ctx *c, cuda_plan *p, int l, int dir, cp_algo_cand *cand, int *nc,
                           int *timed) {
    int rc = 0, max = 0, got = 0;
    cudnnTensorDescriptor_t x = p->x[l], y = p->y[l];
    cudnnConvolutionDescriptor_t cd = p->conv[l][dir];
    cudnnFilterDescriptor_t w = c->filt[l];
    int find = c->o.algo == CP_ALGO_FAST;
    *timed = find;
    *nc = 0;
    if (dir == CP_CONV_FWD) {
        cudnnConvolutionFwdAlgoPerf_t r[16];
        CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(c->dnn, &max));
        if (max > 16) max = 16;
        if (find) CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithm(c->dnn, x, w, cd, y, max, &got, r));
        else CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(c->dnn, x, w, cd, y, max, &got, r));
        for (int i = 0; i < got; i++)
            cand[i] = (cp_algo_cand){(int)r[i].algo, (int)r[i].status, find ? r[i].time : -1.0f,
                                     r[i].memory, (int)r[i].determinism, (int)r[i].mathType};
    } else if (dir == CP_CONV_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t r[16];
        CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(c->dnn, &max));
        if (max > 16) max = 16;
        if (find) CHECK_CUDNN(cudnnFindConvolutionBackwardDataAlgorithm(c->dnn, w, y, cd, x, max, &got, r));
        else CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(c->dnn, w, y, cd, x, max, &got, r));
        for (int i = 0; i < got; i++)
            cand[i] = (cp_algo_cand){(int)r[i].algo, (int)r[i].status, find ? r[i].time : -1.0f,
                                     r[i].memory, (int)r[i].determinism, (int)r[i].mathType};
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t r[16];
        CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(c->dnn, &max));
        if (max > 16) max = 16;
        if (find) CHECK_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithm(c->dnn, x, y, cd, w, max, &got, r));
        else CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c->dnn, x, y, cd, w, max, &got, r));
        for (int i = 0; i < got; i++)
            cand[i] = (cp_algo_cand){(int)r[i].algo, (int)r[i].status, find ? r[i].time : -1.0f,
                                     r[i].memory, (int)r[i].determinism, (int)r[i].mathType};
    }
    *nc = got;
done:
    return rc;
}

static int conv_pick(cuda_ctx *c, cuda_plan *p, const layer *ly, int l, int dir) {
    int rc = 0, nc = 0, timed = 0;
    cp_algo_cand cand[16];
    char why[320];
    cudnnConvolutionDescriptor_t cd = p->conv[l][dir];
    conv_choice *ch = &p->pick[l][dir];
    /* The descriptor's math type is what cuDNN may use: FMA only, or the
     * default (TF32 allowed).  The heuristics answer per math type. */
    CHECK_CUDNN(cudnnSetConvolutionMathType(cd, c->o.math == CP_MODE_FMA ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH));
    rc = conv_candidates(c, p, l, dir, cand, &nc, &timed);
    if (rc) goto done;
    int i = cp_pick_algo(cand, nc, dir, &c->o, timed, why, sizeof why);
    if (i < 0) {
        rc = ls_err(LS_ELIB, "cuda: %s, batch %zu: %s", ly->name, p->n, why);
        goto done;
    }
    ch->algo = cand[i].algo;
    ch->math = cand[i].math;
    ch->deterministic = cand[i].deterministic;
    ch->time_ms = cand[i].time_ms;
    ch->used = 1;
    /* cuDNN decides tensor-core use from the algorithm and the descriptor's
     * math type together: set the chosen entry's math type, then ask for
     * that exact pair's workspace. */
    CHECK_CUDNN(cudnnSetConvolutionMathType(cd, (cudnnMathType_t)ch->math));
    if (dir == CP_CONV_FWD)
        CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(c->dnn, p->x[l], c->filt[l], cd, p->y[l],
                                                            (cudnnConvolutionFwdAlgo_t)ch->algo, &ch->ws));
    else if (dir == CP_CONV_BWD_DATA)
        CHECK_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(c->dnn, c->filt[l], p->y[l], cd, p->x[l],
                                                                 (cudnnConvolutionBwdDataAlgo_t)ch->algo, &ch->ws));
    else
        CHECK_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(c->dnn, p->x[l], p->y[l], cd, c->filt[l],
                                                                   (cudnnConvolutionBwdFilterAlgo_t)ch->algo, &ch->ws));
    if (ch->ws > p->ws_need) p->ws_need = ch->ws;
done:
    return rc;
}

static int plan_build(engine *e, cuda_ctx *c, cuda_plan *p, size_t n) {
    int rc = 0;
    const model *m = e->m;
    memset(p, 0, sizeof *p);
    p->n = n;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        cp_dims d;
        rc = cp_layer_dims(&d, ly, n);
        if (rc) goto done;
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_MAXPOOL) continue;
        CHECK_CUDNN(cudnnCreateTensorDescriptor(&p->x[l]));
        CHECK_CUDNN(cudnnCreateTensorDescriptor(&p->y[l]));
        CHECK_CUDNN(cudnnSetTensor4dDescriptor(p->x[l], CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                               d.x[0], d.x[1], d.x[2], d.x[3]));
        CHECK_CUDNN(cudnnSetTensor4dDescriptor(p->y[l], CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                               d.y[0], d.y[1], d.y[2], d.y[3]));
        if (ly->kind != LAYER_CONV) continue;
        for (int dir = 0; dir < CP_CONV_N; dir++) {
            CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&p->conv[l][dir]));
            CHECK_CUDNN(cudnnSetConvolution2dDescriptor(p->conv[l][dir], d.pad, d.pad, 1, 1, 1, 1,
                                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        }
        int on, oc, oh, ow;
        CHECK_CUDNN(cudnnGetConvolution2dForwardOutputDim(p->conv[l][0], p->x[l], c->filt[l], &on, &oc, &oh, &ow));
        if (on != d.y[0] || oc != d.y[1] || oh != d.y[2] || ow != d.y[3]) {
            rc = ls_err(LS_ELIB, "cuda: %s: cuDNN computes output %dx%dx%dx%d, model says %dx%dx%dx%d",
                        ly->name, on, oc, oh, ow, d.y[0], d.y[1], d.y[2], d.y[3]);
            goto done;
        }
        for (int dir = 0; dir < CP_CONV_N; dir++) {
            /* the first layer's input gradient is never asked for */
            if (dir == CP_CONV_BWD_DATA && l == 0) continue;
            rc = conv_pick(c, p, ly, l, dir);
            if (rc) goto done;
        }
    }
    /* grow the shared workspace, at plan time only */
    if (p->ws_need > c->ws_size) {
        CHECK_CUDA(cudaStreamSynchronize(c->stream));
        dev_free(c, &c->ws, c->ws_size);
        c->ws_size = 0;
        rc = dev_alloc(c, &c->ws, p->ws_need);
        if (rc) goto done;
        c->ws_size = p->ws_need;
    }
done:
    if (rc) plan_destroy(p);
    return rc;
}

/* The plan for batch n: cached, else built in an empty slot or in place of
 * the least recently used one (slot 0, max_batch, is never evicted). */
static int plan_get(engine *e, cuda_ctx *c, size_t n, cuda_plan **out) {
    int rc = 0;
    cuda_plan *victim = NULL;
    for (int i = 0; i < N_PLANS; i++) {
        if (c->plans[i].n == n) {
            c->plans[i].last_use = ++c->clock;
            *out = &c->plans[i];
            return 0;
        }
    }
    for (int i = 1; i < N_PLANS; i++) {
        cuda_plan *p = &c->plans[i];
        if (!p->n) { victim = p; break; }
        if (!victim || p->last_use < victim->last_use) victim = p;
    }
    if (victim->n) {
        CHECK_CUDA(cudaStreamSynchronize(c->stream));
        plan_destroy(victim);
    }
    rc = plan_build(e, c, victim, n);
    if (rc) goto done;
    victim->last_use = ++c->clock;
    *out = victim;
done:
    return rc;
}

/* ---- timing ------------------------------------------------------------ */

static int ev_read(cuda_ctx *c, cudaEvent_t a, cudaEvent_t b, int *pending, double *ms, long *calls) {
    int rc = 0;
    float t = 0.0f;
    if (!*pending) return 0;
    *pending = 0;
    CHECK_CUDA(cudaEventSynchronize(b));
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    *ms += t;
    (*calls)++;
done:
    return rc;
}

static int ev_begin(cuda_ctx *c, int l, int dir) {
    int rc = 0;
    if (!c->o.timing) return 0;
    rc = ev_read(c, c->ev[l][dir][0], c->ev[l][dir][1], &c->ev_pending[l][dir], &c->dev_ms[l][dir],
                 &c->dev_calls[l][dir]);
    if (rc) goto done;
    CHECK_CUDA(cudaEventRecord(c->ev[l][dir][0], c->stream));
done:
    return rc;
}

static int ev_end(cuda_ctx *c, int l, int dir) {
    int rc = 0;
    if (!c->o.timing) return 0;
    CHECK_CUDA(cudaEventRecord(c->ev[l][dir][1], c->stream));
    c->ev_pending[l][dir] = 1;
done:
    return rc;
}

static int misc_begin(cuda_ctx *c, int k) {
    int rc = 0;
    if (!c->o.timing) return 0;
    rc = ev_read(c, c->ev_misc[k][0], c->ev_misc[k][1], &c->misc_pending[k], &c->misc_ms[k], &c->misc_calls[k]);
    if (rc) goto done;
    CHECK_CUDA(cudaEventRecord(c->ev_misc[k][0], c->stream));
done:
    return rc;
}

static int misc_end(cuda_ctx *c, int k) {
    int rc = 0;
    if (!c->o.timing) return 0;
    CHECK_CUDA(cudaEventRecord(c->ev_misc[k][1], c->stream));
    c->misc_pending[k] = 1;
done:
    return rc;
}

static int ev_read_all(cuda_ctx *c, const model *m) {
    int rc = 0;
    if (!c->o.timing) return 0;
    for (int l = 0; l < m->n_layers; l++)
        for (int d = 0; d < DIR_N; d++) {
            rc = ev_read(c, c->ev[l][d][0], c->ev[l][d][1], &c->ev_pending[l][d], &c->dev_ms[l][d],
                         &c->dev_calls[l][d]);
            if (rc) return rc;
        }
    for (int k = 0; k < 2; k++) {
        rc = ev_read(c, c->ev_misc[k][0], c->ev_misc[k][1], &c->misc_pending[k], &c->misc_ms[k],
                     &c->misc_calls[k]);
        if (rc) return rc;
    }
    return 0;
}

/* ---- the interface ------------------------------------------------------ */

static int cu_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    cuda_ctx *c = e->ctx;
    int rc = 0;
    const model *m = e->m;
    size_t in = (size_t)m->in_c * m->in_h * m->in_w;
    if (n == 0 || n > e->max_batch)
        return ls_err(LS_EINVAL, "cuda: batch of %zu (max %zu)", n, e->max_batch);
    for (size_t i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= m->n_classes)
            return ls_err(LS_EINVAL, "cuda: label %d of sample %zu outside 0..%d", (int)labels[i], i,
                          m->n_classes - 1);
    rc = plan_get(e, c, n, &c->cur);
    if (rc) goto done;
    /* The staging buffers are pinned so that the copies are truly async;
     * wait until the previous batch has left them. */
    if (c->staged_pending) CHECK_CUDA(cudaEventSynchronize(c->staged));
    memcpy(c->stage_x, x, n * in * sizeof(float));
    memcpy(c->stage_y, labels, n * sizeof(int32_t));
    CHECK_CUDA(cudaMemcpyAsync(c->input, c->stage_x, n * in * sizeof(float), cudaMemcpyHostToDevice, c->stream));
    CHECK_CUDA(cudaMemcpyAsync(c->labels, c->stage_y, n * sizeof(int32_t), cudaMemcpyHostToDevice, c->stream));
    CHECK_CUDA(cudaEventRecord(c->staged, c->stream));
    c->staged_pending = 1;
    c->n = n;
    c->step = step;
    e->batch = n;
done:
    return rc;
}

static const float ONE = 1.0f, ZERO = 0.0f;

static float *layer_in(cuda_ctx *c, int l) { return l == 0 ? c->input : c->act[l - 1]; }

static int cu_forward_layer(engine *e, int l, int training) {
    cuda_ctx *c = e->ctx;
    int rc = 0;
    const layer *ly = &e->m->layers[l];
    cuda_plan *p = c->cur;
    size_t n = c->n;
    if (!p) return ls_err(LS_EINVAL, "cuda: forward before set_batch");
    float *x = layer_in(c, l), *y = c->act[l];
    size_t count = n * layer_out_size(ly);
    rc = ev_begin(c, l, DIR_FWD);
    if (rc) goto done;
    switch (ly->kind) {
    case LAYER_CONV: {
        // {n, in_c, in_h, in_w} (x) {out_c, in_c, k, k} -> {n, out_c, out_h, out_w}
        const conv_choice *ch = &p->pick[l][CP_CONV_FWD];
        const float *w = c->params + e->m->tensors[ly->w_tensor].offset;
        const float *b = c->params + e->m->tensors[ly->b_tensor].offset;
        CHECK_CUDNN(cudnnConvolutionForward(c->dnn, &ONE, p->x[l], x, c->filt[l], w, p->conv[l][CP_CONV_FWD],
                                            (cudnnConvolutionFwdAlgo_t)ch->algo, c->ws, c->ws_size, &ZERO,
                                            p->y[l], y));
        CHECK_LK(lk_bias_add(c->stream, y, b, n, (size_t)ly->out_c, (size_t)ly->out_h * ly->out_w));
        break;
    }
    case LAYER_DENSE: {
        // x (n, in) row-major is column-major (in, n); W (out, in) row-major is
        // column-major (in, out).  y^T (out, n) = W'^T (out, in) . x^T (in, n).
        int in = (int)layer_in_size(ly), out = (int)layer_out_size(ly);
        const float *w = c->params + e->m->tensors[ly->w_tensor].offset;
        const float *b = c->params + e->m->tensors[ly->b_tensor].offset;
        CHECK_CUBLAS(cublasSgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, (int)n, in, &ONE, w, in, x, in,
                                 &ZERO, y, out));
        CHECK_LK(lk_bias_add(c->stream, y, b, n, (size_t)out, 1));
        break;
    }
    case LAYER_RELU:
        CHECK_LK(lk_relu_fwd(c->stream, y, x, count));
        break;
    case LAYER_MAXPOOL:
        CHECK_CUDNN(cudnnPoolingForward(c->dnn, c->pool, &ONE, p->x[l], x, &ZERO, p->y[l], y));
        break;
    case LAYER_FLATTEN:
        CHECK_CUDA(cudaMemcpyAsync(y, x, count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream));
        break;
    case LAYER_DROPOUT:
        if (training)
            CHECK_LK(lk_dropout_fwd(c->stream, y, x, count, e->seed, (uint32_t)c->step, (uint32_t)l, ly->p,
                                    c->dropout_scale[l]));
        else
            CHECK_CUDA(cudaMemcpyAsync(y, x, count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream));
        break;
    default:
        rc = ls_err(LS_EINVAL, "cuda: %s: unsupported layer kind", ly->name);
        goto done;
    }
    rc = ev_end(c, l, DIR_FWD);
done:
    return rc;
}

static int cu_loss(engine *e, float *loss_out) {
    cuda_ctx *c = e->ctx;
    int rc = 0;
    int L = e->m->n_layers;
    size_t n = c->n;
    int classes = (int)layer_out_size(&e->m->layers[L - 1]);
    if (!c->cur) return ls_err(LS_EINVAL, "cuda: loss before set_batch");
    /* the same fp32 1/n as the C engine: one correctly rounded division */
    float inv_n = 1.0f / (float)n;
    rc = misc_begin(c, 0);
    if (rc) goto done;
    CHECK_LK(lk_softmax_xent(c->stream, c->dact[L - 1], c->row_loss, c->act[L - 1], c->labels, n, classes,
                             inv_n, c->o.portable_exp));
    CHECK_LK(lk_loss_mean(c->stream, c->loss, c->row_loss, n));
    rc = misc_end(c, 0);
    if (rc) goto done;
    if (loss_out) {
        CHECK_CUDA(cudaMemcpyAsync(loss_out, c->loss, sizeof(float), cudaMemcpyDeviceToHost, c->stream));
        CHECK_CUDA(cudaStreamSynchronize(c->stream));
    }
done:
    return rc;
}

static int cu_backward_layer(engine *e, int l) {
    cuda_ctx *c = e->ctx;
    int rc = 0;
    const layer *ly = &e->m->layers[l];
    cuda_plan *p = c->cur;
    size_t n = c->n;
    if (!p) return ls_err(LS_EINVAL, "cuda: backward before set_batch");
    float *x = layer_in(c, l), *y = c->act[l], *dy = c->dact[l];
    float *dx = l > 0 ? c->dact[l - 1] : NULL;
    size_t count = n * layer_out_size(ly);
    rc = ev_begin(c, l, DIR_BWD);
    if (rc) goto done;
    switch (ly->kind) {
    case LAYER_CONV: {
        const model_tensor *wt = &e->m->tensors[ly->w_tensor], *bt = &e->m->tensors[ly->b_tensor];
        const conv_choice *bf = &p->pick[l][CP_CONV_BWD_FILTER], *bd = &p->pick[l][CP_CONV_BWD_DATA];
        // dW (out_c, in_c, k, k) = sum over n, h, w of dy (x) x; overwritten (beta 0)
        CHECK_CUDNN(cudnnConvolutionBackwardFilter(c->dnn, &ONE, p->x[l], x, p->y[l], dy,
                                                   p->conv[l][CP_CONV_BWD_FILTER],
                                                   (cudnnConvolutionBwdFilterAlgo_t)bf->algo, c->ws, c->ws_size,
                                                   &ZERO, c->filt[l], c->grads + wt->offset));
        CHECK_LK(lk_bias_grad(c->stream, c->grads + bt->offset, dy, n, (size_t)ly->out_c,
                              (size_t)ly->out_h * ly->out_w));
        if (dx)
            CHECK_CUDNN(cudnnConvolutionBackwardData(c->dnn, &ONE, c->filt[l], c->params + wt->offset, p->y[l], dy,
                                                     p->conv[l][CP_CONV_BWD_DATA],
                                                     (cudnnConvolutionBwdDataAlgo_t)bd->algo, c->ws, c->ws_size,
                                                     &ZERO, p->x[l], dx));
        break;
    }
    case LAYER_DENSE: {
        int in = (int)layer_in_size(ly), out = (int)layer_out_size(ly);
        const model_tensor *wt = &e->m->tensors[ly->w_tensor], *bt = &e->m->tensors[ly->b_tensor];
        // dW (out, in) = dy^T x, i.e. column-major (in, out) = x^T (in, n) . dy (n, out)
        CHECK_CUBLAS(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, (int)n, &ONE, x, in, dy, out, &ZERO,
                                 c->grads + wt->offset, in));
        CHECK_LK(lk_bias_grad(c->stream, c->grads + bt->offset, dy, n, (size_t)out, 1));
        // dx (n, in) = dy W, i.e. column-major (in, n) = W' (in, out) . dy^T (out, n)
        if (dx)
            CHECK_CUBLAS(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, in, (int)n, out, &ONE,
                                     c->params + wt->offset, in, dy, out, &ZERO, dx, in));
        break;
    }
    case LAYER_RELU:
        if (dx) CHECK_LK(lk_relu_bwd(c->stream, dx, dy, y, count));
        break;
    case LAYER_MAXPOOL:
        if (dx)
            CHECK_CUDNN(cudnnPoolingBackward(c->dnn, c->pool, &ONE, p->y[l], y, p->y[l], dy, p->x[l], x, &ZERO,
                                             p->x[l], dx));
        break;
    case LAYER_FLATTEN:
        if (dx) CHECK_CUDA(cudaMemcpyAsync(dx, dy, count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream));
        break;
    case LAYER_DROPOUT:
        if (dx)
            CHECK_LK(lk_dropout_bwd(c->stream, dx, dy, count, e->seed, (uint32_t)c->step, (uint32_t)l, ly->p,
                                    c->dropout_scale[l]));
        break;
    default:
        rc = ls_err(LS_EINVAL, "cuda: %s: unsupported layer kind", ly->name);
        goto done;
    }
    rc = ev_end(c, l, DIR_BWD);
done:
    return rc;
}

static int cu_update(engine *e, const adam_scalars *a) {
    cuda_ctx *c = e->ctx;
    int rc = misc_begin(c, 1);
    if (rc) goto done;
    CHECK_LK(lk_adam(c->stream, c->params, c->adam_m, c->adam_v, c->grads, e->m->n_params, a->beta1,
                     a->one_minus_beta1, a->beta2, a->one_minus_beta2, a->step_size, a->bc2_sqrt, a->eps));
    rc = misc_end(c, 1);
done:
    return rc;
}

/* Device address and element count of a tensor for the current batch. */
static int tensor_where(engine *e, tensor_id t, float **ptr, size_t *count) {
    cuda_ctx *c = e->ctx;
    const model *m = e->m;
    size_t n = c->n ? c->n : e->max_batch;
    int layered = t.kind == TENSOR_ACT || t.kind == TENSOR_DACT;
    if (layered && (t.layer < 0 || t.layer >= m->n_layers))
        return ls_err(LS_EINVAL, "cuda: no layer %d", t.layer);
    *count = tensor_numel(m, t, n);
    switch (t.kind) {
    case TENSOR_INPUT: *ptr = c->input; break;
    case TENSOR_ACT: *ptr = c->act[t.layer]; break;
    case TENSOR_DACT: *ptr = c->dact[t.layer]; break;
    case TENSOR_PARAMS: *ptr = c->params; break;
    case TENSOR_GRADS: *ptr = c->grads; break;
    case TENSOR_ADAM_M: *ptr = c->adam_m; break;
    case TENSOR_ADAM_V: *ptr = c->adam_v; break;
    case TENSOR_LOSS: *ptr = c->loss; *count = 1; break;
    default: return ls_err(LS_EINVAL, "cuda: unknown tensor kind %d", (int)t.kind);
    }
    return 0;
}

static int cu_get_tensor(engine *e, tensor_id t, float *out) {
    cuda_ctx *c = e->ctx;
    float *p;
    size_t count;
    int rc = tensor_where(e, t, &p, &count);
    if (rc) return rc;
    CHECK_CUDA(cudaMemcpyAsync(out, p, count * sizeof(float), cudaMemcpyDeviceToHost, c->stream));
    CHECK_CUDA(cudaStreamSynchronize(c->stream));
done:
    return rc;
}

static int cu_set_tensor(engine *e, tensor_id t, const float *in) {
    cuda_ctx *c = e->ctx;
    float *p;
    size_t count;
    int rc = tensor_where(e, t, &p, &count);
    if (rc) return rc;
    CHECK_CUDA(cudaMemcpyAsync(p, in, count * sizeof(float), cudaMemcpyHostToDevice, c->stream));
    /* the caller may reuse `in` as soon as we return */
    CHECK_CUDA(cudaStreamSynchronize(c->stream));
done:
    return rc;
}

static int cu_synchronize(engine *e) {
    cuda_ctx *c = e->ctx;
    int rc = 0;
    CHECK_CUDA(cudaStreamSynchronize(c->stream));
done:
    return rc;
}

/* ---- every-step checksums -------------------------------------------------
 * The vector of engines/checksums.h computed on the device by kernels.cu's
 * lk_ck_* (base/checksum_ops.h's bodies, as the host implementation, and
 * base/checksum_peek.h's, checksum_rnd.h's and checksum_blank.h's for the
 * sampled- and output-element, random-weight, blank-window and ADAMW
 * blocks: every block the cpu engine's vector has); only the vector (and
 * the loss block's n x classes logits and gradient) comes back.  Which
 * blocks a stage computes and the scratch sizes are cuda_policy.c's
 * (cp_ck_*, unit-tested). */

static int ck_dev_alloc(void *ctx, void **p, size_t bytes) { return dev_alloc(ctx, p, bytes); }
static void ck_dev_release(void *ctx, void **p, size_t bytes) { dev_free(ctx, p, bytes); }

/* The checksums' buffers, allocated at the first call, all or none
 * (cp_alloc_all): ck_ready says the set is whole.  It was "ck_vec is not
 * NULL": after a failure past the first buffer the next call found ck_vec
 * and ran the kernels on NULL scratch. */
static int ck_alloc(engine *e, cuda_ctx *c, const ck_layout *Lmax) {
    size_t np = e->m->n_params * sizeof(float);
    if (c->ck_ready) return 0;
    c->ck_vec_bytes = Lmax->total * sizeof(double);
    c->ck_s_bytes = cp_ck_scratch(e->m, e->max_batch) * sizeof(double);
    c->ck_mx_bytes = cp_ck_maxima(e->m, e->max_batch) * sizeof(double);
    c->ck_part_bytes = cp_ck_parts(e->m, e->max_batch) * sizeof(double);
    c->ck_rnd_bytes = cp_ck_rnd(e->m, e->max_batch) * sizeof(double);
    c->ck_grp_bytes = cp_ck_blank(e->m, e->max_batch);
    const cp_buf set[] = {
        {(void **)&c->ck_vec, c->ck_vec_bytes, "ck_vec"}, {(void **)&c->ck_s, c->ck_s_bytes, "ck_s"},
        {(void **)&c->ck_sa, c->ck_s_bytes, "ck_sa"},     {(void **)&c->ck_mx, c->ck_mx_bytes, "ck_mx"},
        {(void **)&c->ck_part, c->ck_part_bytes, "ck_part"}, {(void **)&c->ck_rnd, c->ck_rnd_bytes, "ck_rnd"},
        {(void **)&c->ck_grp, c->ck_grp_bytes, "ck_grp"}, {(void **)&c->ck_p0, np, "ck_p0"},
        {(void **)&c->ck_m0, np, "ck_m0"},                {(void **)&c->ck_v0, np, "ck_v0"},
    };
    int rc = cp_alloc_all(set, (int)(sizeof set / sizeof set[0]), ck_dev_alloc, ck_dev_release, c,
                          "the every-step checksums");
    c->ck_ready = rc == 0;
    return rc;
}

static int ck_conv(cuda_ctx *c, const layer *ly, int l, const ck_layout *L, int stage, const float *w, const float *b,
                   const float *dw, const float *db, size_t n) {
    int rc = 0;
    ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
    const float *x = l ? c->act[l - 1] : c->input;
    double *v = c->ck_vec, *mx_x = c->ck_mx, *mx_dy = c->ck_mx + n * (size_t)d.c; /* cp_ck_maxima */
    CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_x, x, &d, n * (size_t)d.c, 0));
    CHECK_LK(lk_ck_conv_fwd(c->stream, v + L->off[l][CK_FWD], c->act[l], w, b, c->ck_s, c->ck_sa, mx_x, &d, n, 0));
    /* position-weighted (FWD_PW): the weighted window sums into the same scratch (the stream orders them after
     * the plain relation's reads) */
    CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_x, x, &d, n * (size_t)d.c, 2));
    CHECK_LK(lk_ck_conv_fwd(c->stream, v + L->off[l][CK_FWD_PW], c->act[l], w, b, c->ck_s, c->ck_sa, mx_x, &d, n, 1));
    /* row- and column-alternating (FWD_RA, FWD_CA), the same way */
    CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_x, x, &d, n * (size_t)d.c, 4));
    CHECK_LK(lk_ck_conv_fwd(c->stream, v + L->off[l][CK_FWD_RA], c->act[l], w, b, c->ck_s, c->ck_sa, mx_x, &d, n, 2));
    CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_x, x, &d, n * (size_t)d.c, 6));
    CHECK_LK(lk_ck_conv_fwd(c->stream, v + L->off[l][CK_FWD_CA], c->act[l], w, b, c->ck_s, c->ck_sa, mx_x, &d, n, 3));
    /* the identical windows' term of every forward relation's S (S' = S + E / A, as the host's conv_groups);
     * before FWD_RND, which copies the plain relation's S, and FWD_BLANK, which reads its window keys */
    CHECK_LK(lk_ck_conv_grp(c->stream, v + L->off[l][CK_FWD], v + L->off[l][CK_FWD_PW], v + L->off[l][CK_FWD_RA],
                            v + L->off[l][CK_FWD_CA], x, w, b, &d, n, 0, c->ck_grp));
    /* each output plane's first, last, largest and drawn outputs re-done (FWD_PEEK; EVAL too) */
    if (cp_ck_wants(stage, CK_FWD_PEEK))
        CHECK_LK(lk_ck_conv_peek(c->stream, v + L->off[l][CK_FWD_PEEK], c->act[l], x, w, b, &d, n, 0, v + L->input_off,
                                 (uint32_t)c->step, (uint32_t)stage, l));
    /* blank windows' outputs exactly the bias, identical windows' within 2 gamma_K S_g (FWD_BLANK; EVAL too) */
    if (cp_ck_wants(stage, CK_FWD_BLANK))
        CHECK_LK(lk_ck_blank(c->stream, v + L->off[l][CK_FWD_BLANK], x, c->act[l], w, b, &d, n, c->ck_grp, 1));
    /* the random-weighted forward relations (FWD_RND; EVAL too), A, Y, S the plain FWD's */
    if (cp_ck_wants(stage, CK_FWD_RND))
        CHECK_LK(lk_ck_conv_rnd(c->stream, v + L->off[l][CK_FWD_RND], v + L->off[l][CK_FWD], c->act[l], x, w, b, &d, n,
                                0, c->ck_rnd, v + L->input_off, (uint32_t)c->step, (uint32_t)stage, l));
    if (!cp_ck_wants(stage, CK_BWD_W)) return 0;
    if (L->cnt[l][CK_BWD_DATA_PEEK]) /* each input-gradient plane's first, last, largest |dx| and drawn */
        CHECK_LK(lk_ck_conv_peek(c->stream, v + L->off[l][CK_BWD_DATA_PEEK], c->dact[l - 1], c->dact[l], w, NULL, &d, n,
                                 1, v + L->input_off, (uint32_t)c->step, (uint32_t)stage, l));
    if (L->cnt[l][CK_BWD_DATA]) {
        CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_dy, c->dact[l], &d, n * (size_t)d.oc, 1));
        CHECK_LK(lk_ck_conv_bwd_data(c->stream, v + L->off[l][CK_BWD_DATA], c->dact[l - 1], w, c->ck_s, c->ck_sa, mx_dy,
                                     &d, n, 0));
        /* position-weighted (BWD_DATA_PW), in the same scratch after the plain relation */
        CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_dy, c->dact[l], &d, n * (size_t)d.oc, 3));
        CHECK_LK(lk_ck_conv_bwd_data(c->stream, v + L->off[l][CK_BWD_DATA_PW], c->dact[l - 1], w, c->ck_s, c->ck_sa,
                                     mx_dy, &d, n, 1));
        /* row- and column-alternating (BWD_DATA_RA, BWD_DATA_CA), the same way */
        CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_dy, c->dact[l], &d, n * (size_t)d.oc, 5));
        CHECK_LK(lk_ck_conv_bwd_data(c->stream, v + L->off[l][CK_BWD_DATA_RA], c->dact[l - 1], w, c->ck_s, c->ck_sa,
                                     mx_dy, &d, n, 2));
        CHECK_LK(lk_ck_window(c->stream, c->ck_s, c->ck_sa, mx_dy, c->dact[l], &d, n * (size_t)d.oc, 7));
        CHECK_LK(lk_ck_conv_bwd_data(c->stream, v + L->off[l][CK_BWD_DATA_CA], c->dact[l - 1], w, c->ck_s, c->ck_sa,
                                     mx_dy, &d, n, 3));
        /* dy's identical windows (taps reversed): S' in every backward-data relation, as the host's conv_groups */
        CHECK_LK(lk_ck_conv_grp(c->stream, v + L->off[l][CK_BWD_DATA], v + L->off[l][CK_BWD_DATA_PW],
                                v + L->off[l][CK_BWD_DATA_RA], v + L->off[l][CK_BWD_DATA_CA], c->dact[l], w, NULL, &d,
                                n, 1, c->ck_grp));
        /* the random-weighted backward-data relations (BWD_DATA_RND), A, Y, S the plain BWD_DATA's (S' above) */
        CHECK_LK(lk_ck_conv_rnd(c->stream, v + L->off[l][CK_BWD_DATA_RND], v + L->off[l][CK_BWD_DATA], c->dact[l - 1],
                                c->dact[l], w, NULL, &d, n, 1, c->ck_rnd, v + L->input_off, (uint32_t)c->step,
                                (uint32_t)stage, l));
    }
    CHECK_LK(lk_ck_conv_z(c->stream, c->ck_s, c->ck_sa, x, &d, n, 0));
    CHECK_LK(lk_ck_conv_bwd_w(c->stream, v + L->off[l][CK_BWD_W], v + L->off[l][CK_BWD_B], dw, db, c->dact[l], c->ck_s,
                              c->ck_sa, mx_x, c->ck_part, &d, n, 0));
    /* index-weighted (BWD_W_PW), in the same scratch after the plain relation */
    CHECK_LK(lk_ck_conv_z(c->stream, c->ck_s, c->ck_sa, x, &d, n, 1));
    CHECK_LK(lk_ck_conv_bwd_w(c->stream, v + L->off[l][CK_BWD_W_PW], NULL, dw, db, c->dact[l], c->ck_s, c->ck_sa, mx_x,
                              c->ck_part, &d, n, 1));
    /* zero and smallest elements (BWD_W_Z): a block per filter, reading only the samples whose x plane (mx_x) and
     * dy plane (ck_part's sum |dy|, left by the backward-weights relations) have a nonzero */
    CHECK_LK(lk_ck_conv_zero(c->stream, v + L->off[l][CK_BWD_W_Z], dw, x, c->dact[l], c->ck_part, mx_x, &d, n));
    /* each filter's first, last, drawn and largest dW re-done (BWD_W_PEEK) */
    CHECK_LK(lk_ck_conv_wpeek(c->stream, v + L->off[l][CK_BWD_W_PEEK], dw, x, c->dact[l], &d, n, v + L->input_off,
                              (uint32_t)c->step, (uint32_t)stage, l));
    /* each filter's dW summed with random weights (BWD_W_RND) */
    CHECK_LK(lk_ck_conv_wrnd(c->stream, v + L->off[l][CK_BWD_W_RND], dw, x, c->dact[l], &d, n, c->ck_rnd,
                             v + L->input_off, (uint32_t)c->step, (uint32_t)stage, l));
done:
    return rc;
}

static int ck_dense(cuda_ctx *c, const layer *ly, int l, const ck_layout *L, int stage, const float *w, const float *b,
                    const float *dw, const float *db, size_t n) {
    int rc = 0;
    size_t in = (size_t)ly->in_c, out = (size_t)ly->out_c;
    const float *x = l ? c->act[l - 1] : c->input;
    double *v = c->ck_vec, *mx = c->ck_mx; /* [0] max |x|, [1] max |dy|: atomicMax from 0 */
    CHECK_CUDA(cudaMemsetAsync(mx, 0, 2 * sizeof(double), c->stream));
    CHECK_LK(lk_ck_sums(c->stream, c->ck_s, c->ck_sa, mx, x, n, in, 0));
    CHECK_LK(lk_ck_dense(c->stream, v + L->off[l][CK_FWD], NULL, w, b, c->act[l], NULL, c->ck_s, c->ck_sa, mx, n, in,
                         out, 0));
    /* per sample: W's column sums (cs, csa: in) and row sums (rs, rsa: out) side by side in the scratch
     * (cp_ck_scratch: in + out for a dense layer) */
    double *cs = c->ck_s, *csa = c->ck_sa, *rs = c->ck_s + in, *rsa = c->ck_sa + in;
    CHECK_LK(lk_ck_sums(c->stream, cs, csa, NULL, w, out, in, 0));
    CHECK_LK(lk_ck_sums(c->stream, rs, rsa, NULL, w, out, in, 1));
    CHECK_LK(lk_ck_dense_sample(c->stream, v + L->off[l][CK_FWD_PS], c->act[l], x, cs, csa, rsa, b, n, out, in));
    /* every output of each sample re-done (FWD_DPEEK; EVAL too) */
    if (cp_ck_wants(stage, CK_FWD_DPEEK))
        CHECK_LK(lk_ck_dense_opeek(c->stream, v + L->off[l][CK_FWD_DPEEK], w, b, x, c->act[l], n, in, out, 0));
    /* the random-weighted relations per sample (FWD_RND; EVAL too; BWD_DATA_RND in a step) */
    if (cp_ck_wants(stage, CK_FWD_RND)) {
        int bd = cp_ck_wants(stage, CK_BWD_DATA_RND) && L->cnt[l][CK_BWD_DATA_RND];
        CHECK_LK(lk_ck_dense_rnd(c->stream, v + L->off[l][CK_FWD_RND], bd ? v + L->off[l][CK_BWD_DATA_RND] : NULL, w, b,
                                 x, c->act[l], bd ? c->dact[l] : NULL, bd ? c->dact[l - 1] : NULL, n, in, out,
                                 c->ck_rnd, v + L->input_off, (uint32_t)c->step, (uint32_t)stage, l));
    }
    if (!cp_ck_wants(stage, CK_BWD_W)) return 0;
    if (L->cnt[l][CK_BWD_DATA_PS])
        CHECK_LK(lk_ck_dense_sample(c->stream, v + L->off[l][CK_BWD_DATA_PS], c->dact[l - 1], c->dact[l], rs, rsa,
                                    csa, NULL, n, in, out));
    if (L->cnt[l][CK_BWD_DATA_DPEEK]) /* every input-gradient element of each sample re-done */
        CHECK_LK(lk_ck_dense_opeek(c->stream, v + L->off[l][CK_BWD_DATA_DPEEK], w, NULL, c->dact[l], c->dact[l - 1], n,
                                   in, out, 1));
    if (L->cnt[l][CK_BWD_DATA]) {
        CHECK_LK(lk_ck_sums(c->stream, c->ck_s, c->ck_sa, mx + 1, c->dact[l], n, out, 0));
        CHECK_LK(lk_ck_dense(c->stream, v + L->off[l][CK_BWD_DATA], NULL, w, NULL, c->dact[l - 1], NULL, c->ck_s,
                             c->ck_sa, mx, n, in, out, 1));
    }
    CHECK_LK(lk_ck_sums(c->stream, c->ck_s, c->ck_sa, NULL, x, n, in, 1));
    CHECK_LK(lk_ck_dense(c->stream, v + L->off[l][CK_BWD_W], v + L->off[l][CK_BWD_B], NULL, db, dw, c->dact[l], c->ck_s,
                         c->ck_sa, mx, n, in, out, 2));
    /* index-weighted (BWD_W_PW): each sample's input weighted by +-(feature index + 1) in each of
     * ck_iw_dense's patterns, n sums per pattern side by side in the same scratch (cp_ck_scratch) */
    for (int pt = 0; pt < CK_IW_PATTERNS; pt++)
        CHECK_LK(lk_ck_sums(c->stream, c->ck_s + (size_t)pt * n, c->ck_sa + (size_t)pt * n, NULL, x, n, in, 2 + pt));
    CHECK_LK(lk_ck_dense(c->stream, v + L->off[l][CK_BWD_W_PW], NULL, NULL, db, dw, c->dact[l], c->ck_s, c->ck_sa, mx, n,
                         in, out, 3));
    /* zero elements (BWD_W_Z): x's column sums of |.| in the same scratch, then a row per thread */
    CHECK_LK(lk_ck_sums(c->stream, c->ck_s, c->ck_sa, NULL, x, n, in, 0));
    CHECK_LK(lk_ck_dense_zero(c->stream, v + L->off[l][CK_BWD_W_Z], dw, c->dact[l], x, c->ck_sa, n, in, out));
    /* each row's first, last, drawn and largest dW re-done (BWD_W_PEEK) */
    CHECK_LK(lk_ck_dense_wpeek(c->stream, v + L->off[l][CK_BWD_W_PEEK], dw, c->dact[l], x, n, in, out, v + L->input_off,
                               (uint32_t)c->step, (uint32_t)stage, l));
    /* each row's dW summed with random weights (BWD_W_RND; mx[0]: max |x|, from the forward's sums) */
    CHECK_LK(lk_ck_dense_wrnd(c->stream, v + L->off[l][CK_BWD_W_RND], dw, c->dact[l], x, mx, n, in, out, c->ck_rnd,
                              v + L->input_off, (uint32_t)c->step, (uint32_t)stage, l));
done:
    return rc;
}

static int ck_elem(engine *e, cuda_ctx *c, const layer *ly, int l, const ck_layout *L, int stage, size_t n) {
    int rc = 0;
    int kind = cp_ck_elem_kind(ly), training = stage == CK_STAGE_STEP;
    const float *x = l ? c->act[l - 1] : c->input;
    size_t cnt = n * layer_out_size(ly);
    for (int bwd = 0; bwd < 2; bwd++) {
        if (bwd && (!cp_ck_wants(stage, CK_BWD_DATA) || !L->cnt[l][CK_BWD_DATA])) break;
        double *bad = c->ck_vec + L->off[l][bwd ? CK_BWD_DATA : CK_FWD];
        const float *dy = bwd ? c->dact[l] : NULL, *dx = bwd ? c->dact[l - 1] : NULL;
        if (kind == 3)
            CHECK_LK(lk_ck_pool(c->stream, bad, x, c->act[l], dy, dx, n * (size_t)ly->in_c, ly->in_h, ly->in_w, ly->out_h,
                                ly->out_w, bwd));
        else
            CHECK_LK(lk_ck_elem(c->stream, bad, kind, bwd, training, x, c->act[l], dy, dx, cnt, e->seed,
                                (uint32_t)c->step, (uint32_t)l, ly->p, c->dropout_scale[l]));
    }
done:
    return rc;
}

static int ck_digests(engine *e, cuda_ctx *c, const ck_layout *L, const float *p, const float *m, const float *v) {
    int rc = 0;
    for (int t = 0; t < e->m->n_tensors; t++) {
        const model_tensor *T = &e->m->tensors[t];
        double *slot = c->ck_vec + L->digest_off + 3 * t;
        CHECK_LK(lk_ck_digest(c->stream, slot, p + T->offset, T->numel));
        if (m) CHECK_LK(lk_ck_digest(c->stream, slot + 1, m + T->offset, T->numel));
        if (v) CHECK_LK(lk_ck_digest(c->stream, slot + 2, v + T->offset, T->numel));
    }
done:
    return rc;
}

static int ck_update(engine *e, cuda_ctx *c, const ck_layout *L) {
    int rc = 0;
    const adam_scalars *a = &e->last_adam;
    if (!c->ck_snap) return ls_err(LS_EINVAL, "%s: checksums after an update with no step before", e->spec.spec);
    /* the named legal orders' scalars (base/adam_orders.h), as engines/checksums.c adam_recheck makes them */
    adam_order_sc osc = {{a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2, a->step_size, a->bc2_sqrt, a->eps}};
    adam_order_scalars(a->cfg.lr, a->cfg.beta1, a->cfg.beta2, a->t, osc.s + CK_ADAMW_HDR);
    for (int t = 0; t < e->m->n_tensors; t++) {
        const model_tensor *T = &e->m->tensors[t];
        size_t o = T->offset;
        CHECK_LK(lk_ck_adam(c->stream, c->ck_vec + L->adam_off + 2 * t,
                            c->ck_vec + L->adamw_off + CK_ADAMW_HDR + CK_ADAMW_PER * (size_t)t, c->ck_p0 + o,
                            c->ck_m0 + o, c->ck_v0 + o, c->grads + o, c->params + o, c->adam_m + o, c->adam_v + o,
                            T->numel, a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2, a->step_size,
                            a->bc2_sqrt, a->eps, osc));
    }
    c->ck_snap = 0;
    rc = ck_digests(e, c, L, c->params, c->adam_m, c->adam_v);
done:
    return rc;
}

static int cu_checksums(engine *e, int stage, double *out) {
    cuda_ctx *c = e->ctx;
    const model *m = e->m;
    int rc = 0;
    /* no operand hash on the device yet: a repeat of a cuda engine is
     * checked in full (the driver asks only host engines for it); a light
     * step's vector is computed whole (judged as light: engine.h) */
    stage &= ~CK_STAGE_LIGHT;
    if (stage & ~CK_STAGE_MASK) return ls_err(LS_EINVAL, "%s: no operand hash (checksums stage %d)", e->spec.spec, stage);
    size_t n = c->n ? c->n : e->max_batch, np = m->n_params * sizeof(float);
    ck_layout L, Lmax;
    ck_layout_make(&L, m, n);
    ck_layout_make(&Lmax, m, e->max_batch);
    if ((rc = ck_alloc(e, c, &Lmax))) return rc;
    CHECK_CUDA(cudaMemsetAsync(c->ck_vec, 0, L.total * sizeof(double), c->stream));
    if (stage == CK_STAGE_UPDATE) {
        if ((rc = ck_update(e, c, &L))) return rc;
    } else {
        /* INPUT: the images on the device, as the first layer reads them; first, as the key of the
         * sampled elements' draws (FWD_PEEK, BWD_DATA_PEEK) */
        CHECK_LK(lk_ck_digest(c->stream, c->ck_vec + L.input_off, c->input,
                              n * (size_t)m->in_c * m->in_h * m->in_w));
        for (int l = 0; l < m->n_layers && !rc; l++) {
            const layer *ly = &m->layers[l];
            if (c->ck_prof) CHECK_CUDA(cudaEventRecord(c->ck_pev[l], c->stream));
            if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) {
                rc = ck_elem(e, c, ly, l, &L, stage, n);
                continue;
            }
            size_t wo = m->tensors[ly->w_tensor].offset, bo = m->tensors[ly->b_tensor].offset;
            rc = (ly->kind == LAYER_CONV ? ck_conv : ck_dense)(c, ly, l, &L, stage, c->params + wo, c->params + bo,
                                                              c->grads + wo, c->grads + bo, n);
        }
        if (rc) return rc;
        if (c->ck_prof) CHECK_CUDA(cudaEventRecord(c->ck_pev[m->n_layers], c->stream));
        int step = stage == CK_STAGE_STEP;
        if ((rc = ck_digests(e, c, &L, c->params, step ? c->adam_m : NULL, step ? c->adam_v : NULL))) return rc;
        if (step) {
            CHECK_CUDA(cudaMemcpyAsync(c->ck_p0, c->params, np, cudaMemcpyDeviceToDevice, c->stream));
            CHECK_CUDA(cudaMemcpyAsync(c->ck_m0, c->adam_m, np, cudaMemcpyDeviceToDevice, c->stream));
            CHECK_CUDA(cudaMemcpyAsync(c->ck_v0, c->adam_v, np, cudaMemcpyDeviceToDevice, c->stream));
            c->ck_snap = 1;
        }
        if (c->ck_prof) CHECK_CUDA(cudaEventRecord(c->ck_pev[m->n_layers + 1], c->stream));
    }
    CHECK_CUDA(cudaMemcpyAsync(out, c->ck_vec, L.total * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
    CHECK_CUDA(cudaStreamSynchronize(c->stream));
    if (c->ck_prof && stage != CK_STAGE_UPDATE) {
        for (int l = 0; l <= m->n_layers; l++) {
            float ms = 0;
            CHECK_CUDA(cudaEventElapsedTime(&ms, c->ck_pev[l], c->ck_pev[l + 1]));
            c->ck_pms[l] += ms;
        }
        c->ck_pcalls++;
    }
    out[0] = stage, out[1] = (double)n, out[2] = (double)c->step;
    if (stage == CK_STAGE_UPDATE) { /* ADAMW's header: the step's fp32 scalars (the host's, as the device used them) */
        const adam_scalars *a = &e->last_adam;
        const float sc[CK_ADAMW_HDR] = {a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2,
                                        a->step_size, a->bc2_sqrt, a->eps};
        for (int k = 0; k < CK_ADAMW_HDR; k++) out[L.adamw_off + (size_t)k] = sc[k];
    }
    if (stage == CK_STAGE_STEP || stage == CK_STAGE_EVAL) {
        /* the loss block: n x classes logits and gradient, small (EVAL: the
         * logits only, which the driver's read-back must equal; the
         * relations' Y, summed on the device, tie both to the tensor) */
        int step = stage == CK_STAGE_STEP;
        size_t nz = n * (size_t)m->n_classes;
        float *z = malloc(2 * nz * sizeof *z), loss = 0;
        if (!z) return ls_err(LS_ENOMEM, "out of memory");
        rc = cu_get_tensor(e, (tensor_id){TENSOR_ACT, m->n_layers - 1}, z);
        if (!rc && step) rc = cu_get_tensor(e, (tensor_id){TENSOR_DACT, m->n_layers - 1}, z + nz);
        if (!rc && step) rc = cu_get_tensor(e, (tensor_id){TENSOR_LOSS, 0}, &loss);
        out[L.loss_off] = loss;
        for (size_t i = 0; i < (step ? 2 : 1) * nz && !rc; i++) out[L.loss_off + 1 + i] = z[i];
        free(z);
    }
done:
    return rc;
}

/* ---- describe ------------------------------------------------------------ */

static void json_kv_str(lsbuf *b, const char *k, const char *v, int comma) {
    lsbuf_json_str(b, k);
    lsbuf_put(b, ":", 1);
    if (v) lsbuf_json_str(b, v);
    else lsbuf_put(b, "null", 4);
    if (comma) lsbuf_put(b, ",", 1);
}

/* describe()'s "plans": per batch size, each conv/dense layer's library
 * call, algorithm per direction, math mode and workspace. */
static void describe_plans(lsbuf *b, const cuda_ctx *c, const model *m) {
    lsbuf_put(b, "\"plans\":[", 9);
    int first_plan = 1;
    for (int i = 0; i < N_PLANS; i++) {
        const cuda_plan *p = &c->plans[i];
        if (!p->n) continue;
        if (!first_plan) lsbuf_put(b, ",", 1);
        first_plan = 0;
        lsbuf_printf(b, "{\"batch\":%zu,\"layers\":[", p->n);
        int first = 1;
        for (int l = 0; l < m->n_layers; l++) {
            const layer *ly = &m->layers[l];
            if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
            if (!first) lsbuf_put(b, ",", 1);
            first = 0;
            lsbuf_put(b, "{", 1);
            json_kv_str(b, "layer", ly->name, 1);
            if (ly->kind == LAYER_DENSE) {
                json_kv_str(b, "library", "cublasSgemm", 1);
                json_kv_str(b, "math", c->o.math == CP_MODE_FMA ? "PEDANTIC_MATH" : "TF32_TENSOR_OP_MATH", 0);
                lsbuf_put(b, "}", 1);
                continue;
            }
            json_kv_str(b, "library", "cudnnConvolution", 1);
            for (int d = 0; d < CP_CONV_N; d++) {
                const conv_choice *ch = &p->pick[l][d];
                lsbuf_json_str(b, cp_dir_name(d));
                if (!ch->used) {
                    lsbuf_put(b, ":null", 5);
                } else {
                    lsbuf_printf(b, ":{\"algo\":\"%s\",\"id\":%d,\"deterministic\":%s,\"math\":\"%s\","
                                     "\"transform\":%s,\"workspace_bytes\":%zu,\"find_ms\":",
                                 cp_algo_name(d, ch->algo), ch->algo, ch->deterministic == 1 ? "true" : "false",
                                 cp_math_name(ch->math), cp_algo_is_transform(d, ch->algo) ? "true" : "false",
                                 ch->ws);
                    if (ch->time_ms >= 0.0f) lsbuf_json_num(b, ch->time_ms);
                    else lsbuf_put(b, "null", 4);
                    lsbuf_put(b, "}", 1);
                }
                if (d + 1 < CP_CONV_N) lsbuf_put(b, ",", 1);
            }
            lsbuf_put(b, "}", 1);
        }
        lsbuf_put(b, "]}", 2);
    }
    lsbuf_put(b, "],", 2);

}

/* describe()'s "device_timing": cudaEvent times per layer, loss, update. */
static void describe_timing(lsbuf *b, const cuda_ctx *c, const model *m) {
    lsbuf_printf(b, "\"device_timing\":{\"source\":\"cudaEvent\",\"enabled\":%s,\"layers\":[",
                 c->o.timing ? "true" : "false");
    for (int l = 0; l < m->n_layers; l++) {
        if (l) lsbuf_put(b, ",", 1);
        lsbuf_put(b, "{", 1);
        json_kv_str(b, "layer", m->layers[l].name, 1);
        lsbuf_put(b, "\"fwd_ms\":", 9);
        lsbuf_json_num(b, c->dev_ms[l][DIR_FWD]);
        lsbuf_printf(b, ",\"fwd_calls\":%ld,\"bwd_ms\":", c->dev_calls[l][DIR_FWD]);
        lsbuf_json_num(b, c->dev_ms[l][DIR_BWD]);
        lsbuf_printf(b, ",\"bwd_calls\":%ld}", c->dev_calls[l][DIR_BWD]);
    }
    lsbuf_put(b, "],\"loss_ms\":", 12);
    lsbuf_json_num(b, c->misc_ms[0]);
    lsbuf_printf(b, ",\"loss_calls\":%ld,\"update_ms\":", c->misc_calls[0]);
    lsbuf_json_num(b, c->misc_ms[1]);
    lsbuf_printf(b, ",\"update_calls\":%ld}}", c->misc_calls[1]);
}

static char *cu_describe(engine *e) {
    cuda_ctx *c = e->ctx;
    const model *m = e->m;
    lsbuf b;
    size_t mfree = 0, mtotal = 0;
    int rc = 0;
    CHECK_CUDA(cudaStreamSynchronize(c->stream));
    rc = ev_read_all(c, m);
    if (rc) goto done;
    CHECK_CUDA(cudaMemGetInfo(&mfree, &mtotal));

    lsbuf_init(&b);
    lsbuf_put(&b, "{", 1);
    json_kv_str(&b, "name", "cuda", 1);
    json_kv_str(&b, "spec", e->spec.spec, 1);
    lsbuf_printf(&b, "\"device\":{\"index\":%d,", c->device);
    json_kv_str(&b, "name", c->dev_name, 1);
    lsbuf_printf(&b, "\"sm_count\":%d,\"compute_capability\":\"%d.%d\",\"memory_bytes\":%zu},", c->sm_count,
                 c->cc_major, c->cc_minor, c->mem_total);
    lsbuf_printf(&b, "\"driver_version\":\"%d.%d\",\"runtime_version\":\"%d.%d\",", c->driver_ver / 1000,
                 (c->driver_ver % 1000) / 10, c->runtime_ver / 1000, (c->runtime_ver % 1000) / 10);
    lsbuf_printf(&b, "\"cudnn_version\":\"%zu.%zu.%zu\",\"cudnn_header_version\":\"%d.%d.%d\",",
                 c->cudnn_ver / 10000, (c->cudnn_ver % 10000) / 100, c->cudnn_ver % 100, CUDNN_MAJOR,
                 CUDNN_MINOR, CUDNN_PATCHLEVEL);
    lsbuf_printf(&b, "\"cublas_version\":\"%d.%d.%d\",", c->cublas_major, c->cublas_minor, c->cublas_patch);
    json_kv_str(&b, "math", c->o.math == CP_MODE_FMA ? "fma" : "tf32", 1);
    json_kv_str(&b, "cudnn_conv_math_requested", c->o.math == CP_MODE_FMA ? "FMA_MATH" : "DEFAULT_MATH", 1);
    json_kv_str(&b, "cublas_math", c->o.math == CP_MODE_FMA ? "PEDANTIC_MATH" : "TF32_TENSOR_OP_MATH", 1);
    json_kv_str(&b, "cublas_atomics", c->o.algo == CP_ALGO_DET ? "NOT_ALLOWED" : "ALLOWED", 1);
    json_kv_str(&b, "algo_policy", c->o.algo == CP_ALGO_DET ? "det" : "fast", 1);
    json_kv_str(&b, "algo_source", c->o.algo == CP_ALGO_DET ? "cudnnGet*Algorithm_v7 heuristics" : "cudnnFind* timed", 1);
    json_kv_str(&b, "conv_algos", c->o.gemm_only ? "gemm (FFT and Winograd refused)" : "any", 1);
    json_kv_str(&b, "pool_mode", c->o.pool_det ? "MAX_DETERMINISTIC" : "MAX", 1);
    json_kv_str(&b, "expm", c->o.portable_exp ? "portable" : "vendor", 1);
    /* NVIDIA_TF32_OVERRIDE=0 forces TF32 off everywhere; 1 does nothing more
     * than allow: report it, since it changes what tf32 means. */
    json_kv_str(&b, "env_NVIDIA_TF32_OVERRIDE", getenv("NVIDIA_TF32_OVERRIDE"), 1);
    json_kv_str(&b, "env_CUBLAS_WORKSPACE_CONFIG", getenv("CUBLAS_WORKSPACE_CONFIG"), 1);
    json_kv_str(&b, "nvcc_flags", "-O2 --fmad=false (no --use_fast_math)", 1);
    lsbuf_printf(&b, "\"workspace_limit_bytes\":%zu,\"workspace_bytes\":%zu,", c->o.ws_limit, c->ws_size);

    describe_plans(&b, c, m);
    size_t used_now = mtotal - mfree;
    lsbuf_printf(&b,
                 "\"memory\":{\"allocated_bytes\":%zu,\"allocated_peak_bytes\":%zu,"
                 "\"device_used_before_bytes\":%zu,\"device_used_after_create_bytes\":%zu,"
                 "\"device_used_now_bytes\":%zu,\"libraries_and_context_bytes\":%zu},",
                 c->alloc_bytes, c->alloc_peak, c->used_before, c->used_after, used_now,
                 used_now > c->used_before + c->alloc_bytes ? used_now - c->used_before - c->alloc_bytes : 0);

    describe_timing(&b, c, m);
    if (b.failed) {
        lsbuf_free(&b);
        ls_err(LS_ENOMEM, "cuda: describe: out of memory");
        return NULL;
    }
    return b.s;
done:
    return NULL;
}

/* ---- create / free -------------------------------------------------------- */

static void cu_free(engine *e) {
    cuda_ctx *c = e->ctx;
    if (!c) return;
    if (c->stream) cudaStreamSynchronize(c->stream);
    if (c->ck_prof && c->ck_pcalls) {
        fprintf(stderr, "%s: checksums' device time over %ld step/evaluation calls, ms per call:", e->spec.spec,
                c->ck_pcalls);
        for (int l = 0; l <= e->m->n_layers; l++)
            fprintf(stderr, " %s %.3f", l < e->m->n_layers ? e->m->layers[l].name : "digests",
                    c->ck_pms[l] / (double)c->ck_pcalls);
        fprintf(stderr, "\n");
    }
    /* every event made, also those of a creation that failed part-way (calloc: the others NULL) */
    for (int l = 0; l < e->m->n_layers + 2; l++)
        if (c->ck_pev[l]) cudaEventDestroy(c->ck_pev[l]);
    for (int i = 0; i < N_PLANS; i++) plan_destroy(&c->plans[i]);
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) {
        if (c->filt[l]) cudnnDestroyFilterDescriptor(c->filt[l]);
        dev_free(c, (void **)&c->act[l], act_bytes(e, l));
        dev_free(c, (void **)&c->dact[l], act_bytes(e, l));
        for (int d = 0; d < DIR_N; d++)
            for (int k = 0; k < 2; k++)
                if (c->ev[l][d][k]) cudaEventDestroy(c->ev[l][d][k]);
    }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            if (c->ev_misc[k][j]) cudaEventDestroy(c->ev_misc[k][j]);
    if (c->pool) cudnnDestroyPoolingDescriptor(c->pool);
    size_t np = e->m->n_params * sizeof(float);
    dev_free(c, (void **)&c->params, np);
    dev_free(c, (void **)&c->grads, np);
    dev_free(c, (void **)&c->adam_m, np);
    dev_free(c, (void **)&c->adam_v, np);
    dev_free(c, (void **)&c->ck_vec, c->ck_vec_bytes);
    dev_free(c, (void **)&c->ck_s, c->ck_s_bytes);
    dev_free(c, (void **)&c->ck_sa, c->ck_s_bytes);
    dev_free(c, (void **)&c->ck_mx, c->ck_mx_bytes);
    dev_free(c, (void **)&c->ck_part, c->ck_part_bytes);
    dev_free(c, (void **)&c->ck_rnd, c->ck_rnd_bytes);
    dev_free(c, (void **)&c->ck_grp, c->ck_grp_bytes);
    dev_free(c, (void **)&c->ck_p0, c->ck_p0 ? np : 0);
    dev_free(c, (void **)&c->ck_m0, c->ck_m0 ? np : 0);
    dev_free(c, (void **)&c->ck_v0, c->ck_v0 ? np : 0);
    size_t in = (size_t)e->m->in_c * e->m->in_h * e->m->in_w;
    dev_free(c, (void **)&c->input, e->max_batch * in * sizeof(float));
    dev_free(c, (void **)&c->labels, e->max_batch * sizeof(int32_t));
    dev_free(c, (void **)&c->row_loss, e->max_batch * sizeof(float));
    dev_free(c, (void **)&c->loss, sizeof(float));
    dev_free(c, &c->ws, c->ws_size);
    if (c->stage_x) cudaFreeHost(c->stage_x);
    if (c->stage_y) cudaFreeHost(c->stage_y);
    if (c->staged) cudaEventDestroy(c->staged);
    if (c->blas) cublasDestroy(c->blas);
    if (c->dnn) cudnnDestroy(c->dnn);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
    e->ctx = NULL;
}

static const engine_i cuda_iface = {
    /* .name = */ "cuda",
    /* .describe = */ cu_describe,
    /* .set_batch = */ cu_set_batch,
    /* .forward_layer = */ cu_forward_layer,
    /* .loss = */ cu_loss,
    /* .backward_layer = */ cu_backward_layer,
    /* .update = */ cu_update,
    /* .get_tensor = */ cu_get_tensor,
    /* .set_tensor = */ cu_set_tensor,
    /* .get_tensor_f64 = */ NULL,
    /* .synchronize = */ cu_synchronize,
    /* .free = */ cu_free,
    /* .checksums = */ cu_checksums,
    /* .ck_fused = */ NULL,
    /* .ck_view  = */ NULL,
};

/* "cuda: unavailable (...)" for a CUDA error met while finding the device. */
static int unavailable(const char *call, cudaError_t err) {
    const char *hint = cp_cuda_hint((int)err);
    return ls_err(LS_EUNAVAIL, "cuda: unavailable (%s: %s (%d): %s%s%s)", call, cudaGetErrorName(err), (int)err,
                  cudaGetErrorString(err), hint ? "; " : "", hint ? hint : "");
}

/* The device's properties and versions, the stream, the cuDNN and cuBLAS
 * handles with their math and atomics modes, the pooling descriptor. */
static int create_handles(cuda_ctx *c, const cp_opts *op) {
    int rc = 0;
    cp_opts o = *op;
    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, o.device));
    snprintf(c->dev_name, sizeof c->dev_name, "%s", prop.name);
    c->sm_count = prop.multiProcessorCount;
    c->cc_major = prop.major;
    c->cc_minor = prop.minor;
    CHECK_CUDA(cudaDriverGetVersion(&c->driver_ver));
    CHECK_CUDA(cudaRuntimeGetVersion(&c->runtime_ver));
    c->cudnn_ver = cudnnGetVersion();
    CHECK_CUBLAS(cublasGetProperty(MAJOR_VERSION, &c->cublas_major));
    CHECK_CUBLAS(cublasGetProperty(MINOR_VERSION, &c->cublas_minor));
    CHECK_CUBLAS(cublasGetProperty(PATCH_LEVEL, &c->cublas_patch));

    CHECK_CUDA(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    CHECK_CUDNN(cudnnCreate(&c->dnn));
    CHECK_CUDNN(cudnnSetStream(c->dnn, c->stream));
    CHECK_CUBLAS(cublasCreate(&c->blas));
    CHECK_CUBLAS(cublasSetStream(c->blas, c->stream));
    CHECK_CUBLAS(cublasSetPointerMode(c->blas, CUBLAS_POINTER_MODE_HOST));
    CHECK_CUBLAS(cublasSetMathMode(c->blas, o.math == CP_MODE_FMA ? CUBLAS_PEDANTIC_MATH : CUBLAS_TF32_TENSOR_OP_MATH));
    CHECK_CUBLAS(cublasSetAtomicsMode(c->blas, o.algo == CP_ALGO_DET ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED));

    CHECK_CUDNN(cudnnCreatePoolingDescriptor(&c->pool));
    CHECK_CUDNN(cudnnSetPooling2dDescriptor(c->pool, o.pool_det ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_MAX,
                                            CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));

done:
    return rc;
}

/* Per-layer descriptors and buffers, the flat parameter/gradient/Adam
 * buffers, the batch staging area and the timing events. */
static int alloc_buffers(engine *e, cuda_ctx *c) {
    int rc = 0;
    const model *m = e->m;
    size_t in = (size_t)m->in_c * m->in_h * m->in_w;
    size_t np = m->n_params * sizeof(float);
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        cp_dims d;
        rc = cp_layer_dims(&d, ly, e->max_batch);
        if (rc) goto done;
        if (e->max_batch * layer_out_size(ly) > 0xffffffffu) {
            rc = ls_err(LS_EINVAL, "cuda: %s: batch x size exceeds the 2^32 dropout element index", ly->name);
            goto done;
        }
        if (ly->kind == LAYER_CONV) {
            CHECK_CUDNN(cudnnCreateFilterDescriptor(&c->filt[l]));
            CHECK_CUDNN(cudnnSetFilter4dDescriptor(c->filt[l], CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, d.w[0], d.w[1],
                                                   d.w[2], d.w[3]));
        }
        if (ly->kind == LAYER_DROPOUT) {
            if (!(ly->p >= 0.0f && ly->p < 1.0f)) {
                rc = ls_err(LS_EINVAL, "cuda: %s: dropout p=%g outside [0, 1)", ly->name, (double)ly->p);
                goto done;
            }
            c->dropout_scale[l] = (float)(1.0 / (1.0 - (double)ly->p));
        }
        if ((rc = dev_alloc(c, (void **)&c->act[l], act_bytes(e, l)))) goto done;
        if ((rc = dev_alloc(c, (void **)&c->dact[l], act_bytes(e, l)))) goto done;
    }
    if ((rc = dev_alloc(c, (void **)&c->params, np))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->grads, np))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->adam_m, np))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->adam_v, np))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->input, e->max_batch * in * sizeof(float)))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->labels, e->max_batch * sizeof(int32_t)))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->row_loss, e->max_batch * sizeof(float)))) goto done;
    if ((rc = dev_alloc(c, (void **)&c->loss, sizeof(float)))) goto done;
    CHECK_CUDA(cudaMemsetAsync(c->grads, 0, np, c->stream));
    CHECK_CUDA(cudaMemsetAsync(c->adam_m, 0, np, c->stream));
    CHECK_CUDA(cudaMemsetAsync(c->adam_v, 0, np, c->stream));
    CHECK_CUDA(cudaMemsetAsync(c->loss, 0, sizeof(float), c->stream));
    CHECK_CUDA(cudaMallocHost((void **)&c->stage_x, e->max_batch * in * sizeof(float)));
    CHECK_CUDA(cudaMallocHost((void **)&c->stage_y, e->max_batch * sizeof(int32_t)));
    CHECK_CUDA(cudaEventCreateWithFlags(&c->staged, cudaEventDisableTiming));
    for (int l = 0; l < m->n_layers; l++)
        for (int d = 0; d < DIR_N; d++)
            for (int k = 0; k < 2; k++) CHECK_CUDA(cudaEventCreate(&c->ev[l][d][k]));
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) CHECK_CUDA(cudaEventCreate(&c->ev_misc[k][j]));
    c->events_made = 1;
    if (getenv("LOCKSTEP_CUDA_CK_PROFILE") && !strcmp(getenv("LOCKSTEP_CUDA_CK_PROFILE"), "1")) {
        for (int l = 0; l < m->n_layers + 2; l++) CHECK_CUDA(cudaEventCreate(&c->ck_pev[l]));
        c->ck_prof = 1;
    }

done:
    return rc;
}

int engine_cuda_create(engine *e, const engine_spec *s) {
    int rc = 0;
    const model *m = e->m;
    cuda_ctx *c = NULL;
    cp_opts o;
    rc = cp_opts_parse(&o, s);
    if (rc) return rc;
    if (m->n_layers < 1 || e->max_batch == 0)
        return ls_err(LS_EINVAL, "cuda: empty model or max_batch 0");
    if (m->layers[m->n_layers - 1].kind != LAYER_DENSE ||
        (int)layer_out_size(&m->layers[m->n_layers - 1]) != m->n_classes)
        return ls_err(LS_EINVAL, "cuda: the last layer must be a dense layer giving %d logits", m->n_classes);

    /* Find the device first: without one, say why and touch nothing else.
     * cudaGetDeviceCount leaves `count` unwritten on failure. */
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) return unavailable("cudaGetDeviceCount", err);
    if (count == 0) return ls_err(LS_EUNAVAIL, "cuda: unavailable (the driver reports no CUDA device)");
    if (o.device >= count)
        return ls_err(LS_EUNAVAIL, "cuda: unavailable (device=%d but only %d device%s)", o.device, count,
                      count == 1 ? "" : "s");
    err = cudaSetDevice(o.device);
    if (err != cudaSuccess) return unavailable("cudaSetDevice", err);
    size_t mfree = 0, mtotal = 0;
    err = cudaMemGetInfo(&mfree, &mtotal); /* creates the context */
    if (err != cudaSuccess) return unavailable("cudaMemGetInfo", err);
    /* a GPU this build has no code for (sm_7x) or a driver too old for its
     * PTX: unavailable here, not an LS_ELIB at the first step's first
     * kernel, which ended the whole audit */
    err = (cudaError_t)lk_probe();
    if (err != cudaSuccess) return unavailable("loading lockstep's kernels", err);

    c = calloc(1, sizeof *c);
    if (!c) return ls_err(LS_ENOMEM, "cuda: out of host memory");
    e->ctx = c;
    e->iface = &cuda_iface;
    c->o = o;
    c->device = o.device;
    c->mem_total = mtotal;
    c->used_before = mtotal - mfree;

    /* cuDNN or cuBLAS that cannot start on this device (a library the
     * driver does not support, a missing sub-library): the engine is
     * unavailable, with the library's words, and the audit goes on */
    if ((rc = create_handles(c, &o))) {
        char why[400];
        const char *msg = ls_errmsg();
        snprintf(why, sizeof why, "%s", strncmp(msg, "cuda: ", 6) == 0 ? msg + 6 : msg);
        ls_err(LS_EUNAVAIL, "cuda: unavailable (cuDNN or cuBLAS did not start: %s)", why);
        rc = LS_EUNAVAIL;
        goto done;
    }

    if ((rc = alloc_buffers(e, c))) goto done;

    /* The max_batch plan lives in slot 0 and is never evicted. */
    rc = plan_build(e, c, &c->plans[0], e->max_batch);
    if (rc) goto done;
    c->plans[0].last_use = ++c->clock;
    CHECK_CUDA(cudaStreamSynchronize(c->stream));
    CHECK_CUDA(cudaMemGetInfo(&mfree, &mtotal));
    c->used_after = mtotal - mfree;
done:
    if (rc && c) {
        /* keep the message: cleanup calls may set their own */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ls_errmsg());
        cu_free(e);
        e->iface = NULL;
        ls_err(rc, "%s", msg);
    }
    return rc;
}
