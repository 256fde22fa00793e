/*
 * kernels.cu — lockstep's own CUDA kernels: bias, ReLU, dropout, softmax
 * cross-entropy, loss mean and Adam.  See kernels.h.
 *
 * Every arithmetic body is the ops_elem.h function the C engine loops over
 * (LS_HD = __host__ __device__), and the Makefile compiles this file with
 * --fmad=false and without --use_fast_math: each +, *, / and sqrtf is one
 * correctly rounded IEEE operation, as on the CPU with -ffp-contract=off.
 * Element-wise kernels are grid-stride loops over size_t indices.
 * Not here: any cuDNN or cuBLAS call, any allocation, any synchronisation.
 */
#include <cuda_runtime.h>

extern "C" {
#include "engines/cuda/cuda_policy.h"
#include "base/ops_elem.h"
}
#include "engines/cuda/kernels.h"

/* 256 threads per block; at most 4096 blocks, the grid-stride loop does the
 * rest (an H200 holds 132 SMs x 2048 threads ~ 1,000 blocks of 256). */
#define LK_THREADS 256u
#define LK_MAX_BLOCKS 4096u

#define GRID_STRIDE(i, count) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (count); \
         i += (size_t)gridDim.x * blockDim.x)

/* Every runtime call the engine makes is checked where it is made, so a
 * pending non-sticky error here is stale (a cleanup call's, say): clear it
 * before a launch so that the check after the launch reports this launch. */
static void clear_stale(void) { (void)cudaGetLastError(); }
static int launched(void) { return (int)cudaGetLastError(); }

/* ---- bias ------------------------------------------------------------ */

__global__ void k_bias_add(float *y, const float *b, size_t count, size_t c, size_t hw) {
    GRID_STRIDE(i, count) y[i] = y[i] + b[(i / hw) % c];
}

/* One block per channel.  Thread t sums elements j = t, t + 256, ... of
 * the channel's n*hw values (j -> sample j / hw, position j % hw) in
 * increasing j, then the 256 partial sums are combined by a fixed binary
 * tree in shared memory.  The order depends only on (n, hw): same bits on
 * every run, no atomics. */
__global__ void k_bias_grad(float *db, const float *dy, size_t n, size_t c, size_t hw) {
    __shared__ float part[LK_THREADS];
    size_t ch = blockIdx.x;
    size_t per = n * hw;
    float s = 0.0f;
    for (size_t j = threadIdx.x; j < per; j += LK_THREADS) {
        size_t sample = j / hw, pos = j % hw;
        s = s + dy[(sample * c + ch) * hw + pos];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = LK_THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] = part[threadIdx.x] + part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) db[ch] = part[0];
}

/* ---- ReLU, dropout --------------------------------------------------- */

__global__ void k_relu_fwd(float *y, const float *x, size_t count) {
    GRID_STRIDE(i, count) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void k_relu_bwd(float *dx, const float *dy, const float *y, size_t count) {
    GRID_STRIDE(i, count) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

__global__ void k_dropout_fwd(float *y, const float *x, size_t count, uint64_t seed,
                              uint32_t step, uint32_t layer, float p, float scale) {
    GRID_STRIDE(i, count) y[i] = ops_dropout_fwd(x[i], seed, step, layer, (uint32_t)i, p, scale);
}

__global__ void k_dropout_bwd(float *dx, const float *dy, size_t count, uint64_t seed,
                              uint32_t step, uint32_t layer, float p, float scale) {
    GRID_STRIDE(i, count) dx[i] = ops_dropout_bwd(dy[i], seed, step, layer, (uint32_t)i, p, scale);
}

/* ---- loss ------------------------------------------------------------ */

__global__ void k_softmax_xent(float *dz, float *row_loss, const float *z, const int32_t *labels,
                               size_t n, int c, float inv_n, int portable) {
    GRID_STRIDE(i, n) {
        row_loss[i] = ops_softmax_xent_row(z + i * (size_t)c, c, labels[i], inv_n, portable,
                                           dz + i * (size_t)c);
    }
}

/* One thread: the same double sum in row order as the C engine. */
__global__ void k_loss_mean(float *loss, const float *row_loss, size_t n) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s = s + (double)row_loss[i];
    *loss = (float)(s / (double)n);
}

/* ---- Adam ------------------------------------------------------------ */

__global__ void k_adam(float *p, float *m, float *v, const float *g, size_t count, float b1,
                       float omb1, float b2, float omb2, float step_size, float bc2_sqrt,
                       float eps) {
    GRID_STRIDE(i, count) {
        ops_adam_elem(&p[i], &m[i], &v[i], g[i], b1, omb1, b2, omb2, step_size, bc2_sqrt, eps);
    }
}

__global__ void k_u8_to_f32(float *y, const uint8_t *x, size_t count) {
    GRID_STRIDE(i, count) y[i] = (float)x[i] / 255.0f;
}

__global__ void k_test_expf_logf(float *e, float *l, const float *x, size_t count, int portable) {
    GRID_STRIDE(i, count) {
        e[i] = portable ? ops_portable_expf(x[i]) : expf(x[i]);
        l[i] = portable ? ops_portable_logf(x[i]) : logf(x[i]);
    }
}

/* ---- launchers ------------------------------------------------------- */

#define LAUNCH(count, kernel, ...)                                                    \
    do {                                                                              \
        unsigned nb_ = cp_grid_blocks((count), LK_THREADS, LK_MAX_BLOCKS);            \
        if (nb_ == 0) return 0;                                                       \
        clear_stale();                                                                \
        kernel<<<nb_, LK_THREADS, 0, s>>>(__VA_ARGS__);                               \
        return launched();                                                            \
    } while (0)

extern "C" int lk_bias_add(cudaStream_t s, float *y, const float *b, size_t n, size_t c,
                           size_t hw) {
    if (c == 0 || hw == 0) return 0;
    LAUNCH(n * c * hw, k_bias_add, y, b, n * c * hw, c, hw);
}

extern "C" int lk_bias_grad(cudaStream_t s, float *db, const float *dy, size_t n, size_t c,
                            size_t hw) {
    if (c == 0) return 0;
    if (c > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    clear_stale();
    k_bias_grad<<<(unsigned)c, LK_THREADS, 0, s>>>(db, dy, n, c, hw);
    return launched();
}

extern "C" int lk_relu_fwd(cudaStream_t s, float *y, const float *x, size_t count) {
    LAUNCH(count, k_relu_fwd, y, x, count);
}

extern "C" int lk_relu_bwd(cudaStream_t s, float *dx, const float *dy, const float *y,
                           size_t count) {
    LAUNCH(count, k_relu_bwd, dx, dy, y, count);
}

extern "C" int lk_dropout_fwd(cudaStream_t s, float *y, const float *x, size_t count,
                              uint64_t seed, uint32_t step, uint32_t layer, float p, float scale) {
    LAUNCH(count, k_dropout_fwd, y, x, count, seed, step, layer, p, scale);
}

extern "C" int lk_dropout_bwd(cudaStream_t s, float *dx, const float *dy, size_t count,
                              uint64_t seed, uint32_t step, uint32_t layer, float p, float scale) {
    LAUNCH(count, k_dropout_bwd, dx, dy, count, seed, step, layer, p, scale);
}

extern "C" int lk_softmax_xent(cudaStream_t s, float *dz, float *row_loss, const float *z,
                               const int32_t *labels, size_t n, int c, float inv_n, int portable) {
    /* one row per thread: 64 per block keeps a 256-row batch on 4 SMs */
    unsigned nb = cp_grid_blocks(n, 64, LK_MAX_BLOCKS);
    if (nb == 0) return 0;
    clear_stale();
    k_softmax_xent<<<nb, 64, 0, s>>>(dz, row_loss, z, labels, n, c, inv_n, portable);
    return launched();
}

extern "C" int lk_loss_mean(cudaStream_t s, float *loss, const float *row_loss, size_t n) {
    if (n == 0) return 0;
    clear_stale();
    k_loss_mean<<<1, 1, 0, s>>>(loss, row_loss, n);
    return launched();
}

extern "C" int lk_adam(cudaStream_t s, float *p, float *m, float *v, const float *g, size_t count,
                       float b1, float omb1, float b2, float omb2, float step_size, float bc2_sqrt,
                       float eps) {
    LAUNCH(count, k_adam, p, m, v, g, count, b1, omb1, b2, omb2, step_size, bc2_sqrt, eps);
}

extern "C" int lk_u8_to_f32(cudaStream_t s, float *y, const uint8_t *x, size_t count) {
    LAUNCH(count, k_u8_to_f32, y, x, count);
}

extern "C" int lk_test_expf_logf(cudaStream_t s, float *exp_out, float *log_out, const float *x,
                                 size_t count, int portable) {
    LAUNCH(count, k_test_expf_logf, exp_out, log_out, x, count, portable);
}
