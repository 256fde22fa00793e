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
#include "base/adam_orders.h"
#include "base/checksum_ops.h"
#include "base/checksum_peek.h"
#include "base/checksum_rnd.h"
#include "base/checksum_blank.h"
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

/* Whether this device can run this file's code: the attributes of one
 * kernel load its module (sm_80 or sm_90 code, or the compute_90 PTX
 * compiled by the driver); a device with none (compute capability 7.x,
 * a driver too old for the PTX) answers here, at creation, and not at the
 * first launch of a training step. */
extern "C" int lk_probe(void) {
    struct cudaFuncAttributes a;
    clear_stale();
    return (int)cudaFuncGetAttributes(&a, (const void *)k_bias_add);
}

extern "C" int lk_u8_to_f32(cudaStream_t s, float *y, const uint8_t *x, size_t count) {
    LAUNCH(count, k_u8_to_f32, y, x, count);
}

extern "C" int lk_test_expf_logf(cudaStream_t s, float *exp_out, float *log_out, const float *x,
                                 size_t count, int portable) {
    LAUNCH(count, k_test_expf_logf, exp_out, log_out, x, count, portable);
}

/* ---- every-step checksums (base/checksum_ops.h bodies; engines/checksums.h
 * layout).  Each thread computes one sum or one relation in double, in
 * the plain order of checksum_ops.h (the host's faster order differs only
 * within bounds_ck_tol's double-rounding term); counts and digests are
 * integer or exact-integer atomics, so the vector does not depend on
 * scheduling.  A relation's 4th field S (an upper bound on the largest
 * output's sum of |terms|, for the sharper tier) is checksum_ops.h's
 * ck_s_* from plane maxima of |input|, as the host computes it: the
 * window kernel's first thread of each plane writes the plane's max |x|
 * (|dy|) to mx[plane], a dense layer's column-sum threads atomicMax their
 * column's max |x| into one slot (a max is exact and, on the bits of a
 * nonnegative double, an integer max: the same value in any order).
 * Only conv backward-weights sums its per-sample |dy| in another order
 * than the host (plain, as its bias relation's A; the host's 8 lanes):
 * its S differs from the host's in the last bits, not in what it bounds.
 * The conv forward and backward-data relations' S then gets the identical
 * windows' term, S' = S + E / A (lk_ck_conv_grp, below): E is the host's
 * bit for bit, A the relation's own (the device's A is summed in
 * checksum_ops.h's plain order, the host's in its own: the same within
 * double rounding, so S' too). --- */

/* window sums of every plane and offset; mx[plane] = the plane's max |x| */
__global__ void k_ck_window(double *s, double *sa, double *mx, const float *x, ck_conv_dims d, size_t planes,
                            int dy_mode) {
    size_t kk = (size_t)d.k * d.k;
    size_t plane_len = dy_mode & 1 ? (size_t)d.oh * d.ow : (size_t)d.h * d.w; /* odd modes: over dy */
    GRID_STRIDE(i, planes * kk) {
        size_t pl = i / kk, t = i % kk;
        if (t == 0) mx[pl] = ck_max_abs(x + pl * plane_len, plane_len, 1);
        if (dy_mode == 1) ck_window_sum_dy(x + pl * plane_len, &d, (int)(t / d.k), (int)(t % d.k), &s[i], &sa[i]);
        else if (dy_mode >= 4) /* alternating: 4, 6 over x, 5, 7 over dy; 6, 7 by columns */
            ck_window_sum_alt(x + pl * plane_len, &d, (int)(t / d.k), (int)(t % d.k), dy_mode & 1, dy_mode >= 6, &s[i],
                              &sa[i]);
        else if (dy_mode >= 2)
            ck_window_sum_w(x + pl * plane_len, &d, (int)(t / d.k), (int)(t % d.k), dy_mode == 3, &s[i], &sa[i]);
        else ck_window_sum(x + pl * plane_len, &d, (int)(t / d.k), (int)(t % d.k), &s[i], &sa[i]);
    }
}

/* mx: the x plane maxima (n C).  weighted 1: each output times its signed
 * linear position + 1 (FWD_PW; s, sa the weighted window sums): the bias
 * counts the signed weights' sum (its A the unsigned one), S grows by at
 * most P; 2: each output times (-1)^row (FWD_RA; s, sa from dy_mode 4):
 * the bias counts ow (oh mod 2), A, Y and S are the plain relation's; 3:
 * times (-1)^column (FWD_CA, dy_mode 6), the bias oh (ow mod 2). */
__global__ void k_ck_conv_fwd(double *o, const float *y, const float *w, const float *b, const double *s,
                              const double *sa, const double *mx, ck_conv_dims d, size_t n, int weighted) {
    size_t kk = (size_t)d.k * d.k, ckk = d.c * kk, P = (size_t)d.oh * d.ow;
    double cnt = weighted == 1 ? (double)P * (P + 1) / 2 : (double)P;
    double scnt = weighted == 1   ? ck_pw_bias(d.oh, d.ow)
                  : weighted == 2 ? (double)d.ow * (d.oh & 1)
                  : weighted == 3 ? (double)d.oh * (d.ow & 1)
                                  : cnt;
    GRID_STRIDE(r, n * d.oc) {
        size_t i = r / d.oc, oc = r % d.oc;
        double ls, la, rhs = scnt * (double)b[oc], a = cnt * fabs((double)b[oc]);
        if (weighted == 1) ck_rows_w(y + r * P, d.oh, d.ow, 1, &ls, &la);
        else if (weighted >= 2) {
            double lr, lc;
            ck_rows_alt(y + r * P, d.oh, d.ow, 1, &lr, &lc, &la);
            ls = weighted == 2 ? lr : lc;
        } else ck_sum(y + r * P, P, 1, &ls, &la);
        ck_dot_acc(&rhs, &a, w + oc * ckk, 1, s + i * ckk, sa + i * ckk, 1, ckk);
        o[4 * r] = ls - rhs, o[4 * r + 1] = a, o[4 * r + 2] = la;
        o[4 * r + 3] = (weighted == 1 ? (double)P : 1.0) * ck_s_conv_fwd(w, b, mx + i * d.c, &d, (int)oc);
    }
}

/* mx: the dy plane maxima (n OC) */
__global__ void k_ck_conv_bwd_data(double *o, const float *dx, const float *w, const double *s, const double *sa,
                                   const double *mx, ck_conv_dims d, size_t n, int weighted) {
    size_t kk = (size_t)d.k * d.k, ckk = d.c * kk, HW = (size_t)d.h * d.w;
    GRID_STRIDE(r, n * d.c) {
        size_t i = r / d.c, c = r % d.c;
        double ls, la, rhs = 0, a = 0;
        if (weighted == 1) ck_rows_w(dx + r * HW, d.h, d.w, 1, &ls, &la); /* BWD_DATA_PW: s, sa from dy_mode 3 */
        else if (weighted >= 2) { /* BWD_DATA_RA, _CA: dy_mode 5, 7 */
            double lr, lc;
            ck_rows_alt(dx + r * HW, d.h, d.w, 1, &lr, &lc, &la);
            ls = weighted == 2 ? lr : lc;
        } else ck_sum(dx + r * HW, HW, 1, &ls, &la);
        for (int oc = 0; oc < d.oc; oc++)
            ck_dot_acc(&rhs, &a, w + oc * ckk + c * kk, 1, s + (i * d.oc + oc) * kk, sa + (i * d.oc + oc) * kk, 1, kk);
        o[4 * r] = ls - rhs, o[4 * r + 1] = a, o[4 * r + 2] = la;
        o[4 * r + 3] = (weighted == 1 ? (double)HW : 1.0) * ck_s_conv_bwd_data(w, mx + i * d.oc, &d, (int)c);
    }
}

/* Z[i, p]: the input summed over every element that meets output position p,
 * each with its tap's sign ck_cw (ck_conv_z_at);
 * weighted: each element weighted by the index + 1 of the filter tap
 * (c, kh, kw) that meets it, c k k + kh k + kw + 1 (BWD_W_PW) */
__global__ void k_ck_conv_z(double *z, double *za, const float *x, ck_conv_dims d, size_t n, int weighted) {
    size_t P = (size_t)d.oh * d.ow;
    GRID_STRIDE(r, n * P) ck_conv_z_at(x, &d, r / P, (int)(r % P) / d.ow, (int)(r % P) % d.ow, weighted, &z[r], &za[r]);
}

/* A fixed shuffle tree over a warp's 32 lanes (lane 0 gets the sum): the
 * same additions in the same order on every run. */
__device__ double warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Conv backward-weights, per (sample, filter) plane of dy, one warp a
 * plane (lanes over positions, then warp_sum): part[4 r] = sum dy Z,
 * sum |dy| Za, sum dy, sum |dy| (r = i OC + oc).  Each filter's sums were
 * one thread's loop over every sample and position (n P terms: 200k for
 * SmallCNN's conv1 at batch 256, most of a step's checks on an H200);
 * the order differs from the host's by double rounding only. */
__global__ void k_ck_conv_bwd_w_part(double *part, const float *dy, const double *z, const double *za, ck_conv_dims d,
                                     size_t n) {
    size_t P = (size_t)d.oh * d.ow, planes = n * d.oc, wpb = blockDim.x / 32;
    unsigned lane = threadIdx.x & 31u;
    for (size_t r = (size_t)blockIdx.x * wpb + threadIdx.x / 32; r < planes; r += (size_t)gridDim.x * wpb) {
        const float *g = dy + r * P;
        const double *zi = z + r / d.oc * P, *zai = za + r / d.oc * P;
        double q0 = 0, q1 = 0, q2 = 0, q3 = 0;
        for (size_t p = lane; p < P; p += 32) {
            double gv = g[p];
            q0 += gv * zi[p], q1 += fabs(gv) * zai[p], q2 += gv, q3 += fabs(gv);
        }
        q0 = warp_sum(q0), q1 = warp_sum(q1), q2 = warp_sum(q2), q3 = warp_sum(q3);
        if (lane == 0) part[4 * r] = q0, part[4 * r + 1] = q1, part[4 * r + 2] = q2, part[4 * r + 3] = q3;
    }
}

/* mx: the x plane maxima (n C), as the forward's window kernel left them;
 * per filter, the planes' sums (k_ck_conv_bwd_w_part) over samples in order.
 * plain (BWD_W): dW[o][c][t] with its sign ck_cw, against dy times
 * k_ck_conv_z's plain Z (the same signs); weighted (BWD_W_PW, from
 * k_ck_conv_z's weighted Z): dW weighted by its index + 1 in the filter,
 * S scaled by the largest weight C k k, no bias block (ob unused) */
__global__ void k_ck_conv_bwd_w(double *ow_, double *ob, const float *dw, const float *db, const double *part,
                                const double *mx, ck_conv_dims d, size_t n, int weighted) {
    size_t kk = (size_t)d.k * d.k, ckk = d.c * kk;
    GRID_STRIDE(oc, (size_t)d.oc) {
        double ls, la, rhs = 0, a = 0, bs = 0, ba = 0, sm = 0;
        if (weighted) ck_isum(dw + oc * ckk, ckk, d.k, &ls, &la);
        else ck_csum(dw + oc * ckk, ckk, d.k, &ls, &la); /* ck_cw's signs */
        for (size_t i = 0; i < n; i++) {
            const double *q = part + 4 * (i * d.oc + oc);
            rhs += q[0], a += q[1], bs += q[2], ba += q[3];
            sm += ck_s_conv_bwd_w_term(mx + i * d.c, d.c, q[3]);
        }
        ow_[4 * oc] = ls - rhs, ow_[4 * oc + 1] = a, ow_[4 * oc + 2] = la;
        ow_[4 * oc + 3] = (weighted ? (double)ckk : 1.0) * sm;
        if (weighted) continue;
        ob[4 * oc] = (double)db[oc] - bs, ob[4 * oc + 1] = ba, ob[4 * oc + 2] = fabs((double)db[oc]), ob[4 * oc + 3] = ba;
    }
}

/* column sums of a (rows, cols) matrix (stride cols) or row sums; with
 * column sums and mx != NULL, *mx (zeroed by the caller) = max |x| over
 * the matrix: each column's max, by atomicMax on the bits of a
 * nonnegative double (never NaN: ck_max_abs skips NaN), whose integer
 * order is its order */
__global__ void k_ck_sums(double *s, double *sa, double *mx, const float *x, size_t rows, size_t cols, int by_row) {
    GRID_STRIDE(j, by_row ? rows : cols) {
        if (by_row >= 2) /* index-weighted row sums, in ck_iw_dense's pattern by_row - 2 */
            ck_isum(x + j * cols, cols, ck_iw_dense((size_t)(by_row - 2)), &s[j], &sa[j]);
        else if (by_row) ck_sum(x + j * cols, cols, 1, &s[j], &sa[j]);
        else {
            ck_sum(x + j, rows, cols, &s[j], &sa[j]);
            if (mx)
                atomicMax((unsigned long long *)mx,
                          (unsigned long long)__double_as_longlong(ck_max_abs(x + j, rows, cols)));
        }
    }
}

/* dense relations: mode 0 forward (per output), 1 backward-data (per input),
 * 2 backward-weights and bias (per output); mx[0] = max |x|, mx[1] = max
 * |dy| over the batch (k_ck_sums) */
__global__ void k_ck_dense(double *o, double *ob, const float *w, const float *b, const float *lhs, const float *dy,
                           const double *s, const double *sa, const double *mx, size_t n, size_t in, size_t out,
                           int mode) {
    GRID_STRIDE(j, mode == 1 ? in : out) {
        double ls, la, rhs = 0, a = 0, sm;
        if (mode == 0) {
            rhs = n * (double)b[j], a = n * fabs((double)b[j]);
            ck_sum(lhs + j, n, out, &ls, &la);
            ck_dot_acc(&rhs, &a, w + j * in, 1, s, sa, 1, in);
            sm = ck_s_dense(w + j * in, in, 1, mx[0], fabs((double)b[j]));
        } else if (mode == 1) {
            ck_sum(lhs + j, n, in, &ls, &la);
            ck_dot_acc(&rhs, &a, w + j, in, s, sa, 1, out);
            sm = ck_s_dense(w + j, out, in, mx[1], 0);
        } else if (mode == 2) {
            double bs, ba;
            ck_sum(lhs + j * in, in, 1, &ls, &la);
            ck_dot_acc(&rhs, &a, dy + j, out, s, sa, 1, n);
            ck_sum(dy + j, n, out, &bs, &ba);
            ob[4 * j] = (double)b[j] - bs, ob[4 * j + 1] = ba, ob[4 * j + 2] = fabs((double)b[j]), ob[4 * j + 3] = ba;
            sm = ba * mx[0];
        } else { /* 3: index-weighted backward-weights, s/sa the index-weighted row sums of x in each of
                  * ck_iw_dense's patterns (n each, pattern after pattern); row j takes pattern j mod 4 */
            double bs, ba;
            size_t pt = j % CK_IW_PATTERNS;
            ck_isum(lhs + j * in, in, ck_iw_dense(j), &ls, &la);
            ck_dot_acc(&rhs, &a, dy + j, out, s + pt * n, sa + pt * n, 1, n);
            ck_sum(dy + j, n, out, &bs, &ba);
            sm = ba * mx[0] * (double)in;
        }
        o[4 * j] = ls - rhs, o[4 * j + 1] = a, o[4 * j + 2] = la, o[4 * j + 3] = sm;
    }
}

/* Conv, zero and smallest elements of dW: base/checksum_ops.h's
 * ck_conv_zero_filter, one block per filter.  Element t re-done in double
 * over its terms, the block's threads over output positions, sample by
 * sample, then a fixed tree over the block (the host's order differs by
 * double rounding only); only the samples whose x plane (mx_x, the
 * forward's plane maxima) and dy plane (part[4 r + 3], sum |dy|, from
 * k_ck_conv_bwd_w_part) both have a nonzero are read, as on the host. */
__device__ void ck_zero_redo(const float *x, const float *dy, const double *part, const double *mx_x, ck_conv_dims d,
                             size_t n, size_t oc, size_t t, double *sR, double *sA, double *R, double *A, int *sub) {
    size_t kk = (size_t)d.k * d.k, HW = (size_t)d.h * d.w, OP = (size_t)d.oh * d.ow, c = t / kk;
    int kh = (int)((t % kk) / (size_t)d.k), kw = (int)(t % (size_t)d.k), sb = 0;
    double r = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(mx_x[i * d.c + c] > 0) || !(part[4 * (i * d.oc + oc) + 3] > 0)) continue; /* the same for every thread */
        const float *gp = dy + (i * d.oc + oc) * OP, *xp = x + (i * d.c + c) * HW;
        for (size_t p = threadIdx.x; p < OP; p += blockDim.x) {
            int ih = (int)(p / d.ow) + kh - d.pad, iw = (int)(p % d.ow) + kw - d.pad;
            if (ih < 0 || ih >= d.h || iw < 0 || iw >= d.w) continue;
            float g = gp[p], xv = xp[(size_t)ih * d.w + iw];
            double tt = (double)g * (double)xv;
            sb |= (g != 0) & (xv != 0) & ((fabsf(g) < 0x1p-126f) | (fabsf(xv) < 0x1p-126f));
            r += tt, a += fabs(tt);
        }
    }
    sR[threadIdx.x] = r, sA[threadIdx.x] = a;
    *sub = __syncthreads_or(sb);
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) sR[threadIdx.x] += sR[threadIdx.x + h], sA[threadIdx.x] += sA[threadIdx.x + h];
        __syncthreads();
    }
    *R = sR[0], *A = sA[0];
    __syncthreads(); /* sR, sA free again */
}

__global__ void k_ck_conv_zero(double *o, const float *dw, const float *x, const float *dy, const double *part,
                               const double *mx_x, ck_conv_dims d, size_t n) {
    __shared__ double sR[LK_THREADS], sA[LK_THREADS];
    __shared__ unsigned long long s_small;
    size_t ckk = (size_t)d.c * d.k * d.k;
    for (size_t oc = blockIdx.x; oc < (size_t)d.oc; oc += gridDim.x) {
        const float *f = dw + oc * ckk;
        if (threadIdx.x == 0) s_small = ck_conv_small(f, ckk);
        int live = 0;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) live |= part[4 * (i * d.oc + oc) + 3] > 0;
        live = __syncthreads_or(live); /* and s_small is written */
        size_t small = (size_t)s_small;
        ck_worst w;
        ck_worst_init(&w);
        if (!live) {
            ck_worst_dead(&w, f, ckk);
        } else {
            double R, A;
            int sub;
            for (size_t t = 0; t < ckk; t++) {
                if (f[t] != 0) continue; /* the same for every thread */
                ck_zero_redo(x, dy, part, mx_x, d, n, oc, t, sR, sA, &R, &A, &sub);
                ck_zero_keep(&w, f[t], R, A, sub);
            }
            if (small < ckk) {
                ck_zero_redo(x, dy, part, mx_x, d, n, oc, small, sR, sA, &R, &A, &sub);
                ck_zero_keep(&w, f[small], R, A, sub);
            }
        }
        if (threadIdx.x == 0) ck_worst_put(&w, o + 4 * oc);
        __syncthreads();
    }
}

/* Dense, zero and smallest elements of dW: base/checksum_ops.h's
 * ck_dense_zero_row, one block per row j.  The row's elements are split
 * over the block's threads (each zero re-done over the batch by one
 * thread, ck_dense_redo), each thread keeps its worst in index order, and
 * a tree over the block keeps the row's as the row's loop would: a NaN
 * key first, else the largest key, the lower index on ties.  Then thread
 * 0 finds the smallest nonzero (the loop's rule, in order) and keeps it
 * last.  Was one thread per row: SmallCNN's fc1 (64 rows of 1568, a few
 * hundred zeros each) took 3.5 ms a step on an H200. */
/* ck_cand, ck_cand_beats: base/checksum_peek.h (p wins over q) */
__global__ void k_ck_dense_zero(double *o, const float *dw, const float *dy, const float *x, const double *xa,
                                size_t n, size_t in, size_t out) {
    __shared__ ck_cand sc[LK_THREADS];
    __shared__ int s_dead;
    for (size_t j = blockIdx.x; j < out; j += gridDim.x) {
        const float *row = dw + j * in;
        if (threadIdx.x == 0) {
            double da = 0;
            for (size_t s = 0; s < n; s++) da += fabs((double)dy[s * out + j]);
            s_dead = !(da > 0);
        }
        __syncthreads();
        int dead = s_dead;
        ck_cand best = {-1, 0, 0, 0, (size_t)-1};
        for (size_t i = threadIdx.x; i < in; i += blockDim.x) {
            float v = row[i];
            int col_dead = !(xa[i] > 0);
            ck_worst w;
            ck_worst_init(&w);
            if (v == 0) {
                if (dead || col_dead) continue;
                double R, A;
                int sub = ck_dense_redo(dy, x, n, in, out, j, i, &R, &A);
                ck_zero_keep(&w, v, R, A, sub);
            } else if (dead || col_dead) {
                ck_worst_keep(&w, INFINITY, v, 0, 0);
            }
            if (w.key == -1) continue; /* nothing kept */
            ck_cand c = {w.key, w.v, w.r, w.a, i};
            if (ck_cand_beats(&c, &best)) best = c;
        }
        sc[threadIdx.x] = best;
        __syncthreads();
        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
            if (threadIdx.x < h && ck_cand_beats(&sc[threadIdx.x + h], &sc[threadIdx.x])) sc[threadIdx.x] = sc[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            ck_worst w;
            ck_worst_init(&w);
            if (sc[0].key != -1) w.key = sc[0].key, w.v = sc[0].v, w.r = sc[0].r, w.a = sc[0].a;
            size_t small = in; /* the smallest nonzero |dW| where a term is possible, the row loop's rule */
            for (size_t i = 0; i < in && !dead; i++) {
                float v = row[i];
                if (v != 0 && xa[i] > 0 && (small == in || fabsf(v) < fabsf(row[small]))) small = i;
            }
            if (small < in) {
                double R, A;
                int sub = ck_dense_redo(dy, x, n, in, out, j, small, &R, &A);
                ck_zero_keep(&w, row[small], R, A, sub);
            }
            ck_worst_put(&w, o + 4 * j);
        }
        __syncthreads();
    }
}

/* dense, per sample (ck_dense_sample): relation p at o + 4 p */
__global__ void k_ck_dense_sample(double *o, const float *lhs, const float *x, const double *cs, const double *csa,
                                  const double *lw, const float *b, size_t n, size_t nl, size_t nx) {
    GRID_STRIDE(p, n) ck_dense_sample(o + 4 * p, lhs + p * nl, nl, x + p * nx, nx, cs, csa, lw, b);
}

/* element-wise re-checks: *bad += elements that differ (exact integers in a
 * double), bad[1] += those of them with an operand inf or NaN instead
 * (base/checksum_ops.h's ck_*_free: not judged), as the host's */
__global__ void k_ck_elem(double *bad, int kind, int backward, int training, const float *x, const float *y,
                          const float *dy, const float *dx, size_t count, uint64_t seed, uint32_t step, uint32_t layer,
                          float p, float scale) {
    GRID_STRIDE(i, count) {
        int b;
        if (kind == 0) b = backward ? ck_relu_bwd_bad(y[i], dy[i], dx[i]) : ck_relu_fwd_bad(x[i], y[i]);
        else if (kind == 1) b = backward ? ck_bits_differ(dy[i], dx[i]) : ck_bits_differ(x[i], y[i]);
        else b = backward ? ck_dropout_bwd_bad(dy[i], dx[i], seed, step, layer, (uint32_t)i, p, scale)
                          : ck_dropout_fwd_bad(x[i], y[i], training, seed, step, layer, (uint32_t)i, p, scale);
        if (!b) continue;
        int f = kind == 0 ? ck_relu_free(x[i], backward ? dy[i] : 0.0f, backward)
                : kind == 2 ? ck_dropout_free(backward ? dy[i] : x[i], backward || training) : 0;
        atomicAdd(bad + (f ? 1 : 0), 1.0);
    }
}

__global__ void k_ck_pool(double *bad, const float *x, const float *y, const float *dy, const float *dx, size_t planes,
                          int h, int w, int oh, int ow, int backward) {
    size_t P = (size_t)oh * ow, HW = (size_t)h * w;
    GRID_STRIDE(r, planes * HW) {
        size_t pl = r / HW;
        int rr = (int)(r % HW) / w, qq = (int)(r % HW) % w;
        int b = 0, f = 0;
        if (rr >= 2 * oh || qq >= 2 * ow) b = backward && ck_bits_differ(0.0f, dx[r]); /* a floor-pooled edge */
        else if (rr % 2 == 0 && qq % 2 == 0) {
            size_t o = pl * P + (size_t)(rr / 2) * ow + qq / 2;
            b = ck_pool_bad(x + pl * HW, w, rr / 2, qq / 2, backward ? 0.0f : y[o], backward ? dx + pl * HW : NULL,
                            backward ? dy[o] : 0.0f, backward);
            f = b && ck_pool_free(x + pl * HW, w, rr / 2, qq / 2, backward ? dy[o] : 0.0f, backward, 0, 1);
        }
        if (b) atomicAdd(bad + (f ? 1 : 0), 1.0); /* bad[1]: not judged (an operand inf or NaN) */
    }
}

/* integer sums mod 2^64: any order gives the same bits; a warp's terms
 * are added first, then one atomic per warp (not 100k on one address) */
__global__ void k_ck_digest(unsigned long long *out, const float *x, size_t count) {
    unsigned long long t = 0;
    GRID_STRIDE(i, count) t += (unsigned long long)ck_digest_term(x[i], i);
    for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o); /* every lane of the block is here */
    if ((threadIdx.x & 31u) == 0 && t) atomicAdd(out, t);
}

/* Adam re-done from the snapshot; out[0] += elements that differ, out[1]
 * = the largest |difference| (atomicMax on the bits of a nonnegative
 * double: their order is the integers' order); far[0] = the largest ratio
 * of a differing element to its bound (base/checksum_peek.h's
 * ck_adam_far_ratio, its bits by atomicMax: ADAMW's pick, pass 1) */
#define LK_ADAM_SC const float sc[7] = {b1, omb1, b2, omb2, step_size, bc2_sqrt, eps}
/* far[2]: the named orders (base/adam_orders.h) some differing element is
 * not, bit for bit (atomicOr of each one's complement: the host's AND) */
__global__ void k_ck_adam(double *out, double *far, const float *p0, const float *m0, const float *v0, const float *g,
                          const float *p, const float *m, const float *v, size_t count, float b1, float omb1,
                          float b2, float omb2, float step_size, float bc2_sqrt, float eps, adam_order_sc osc) {
    LK_ADAM_SC;
    GRID_STRIDE(i, count) {
        float pp = p0[i], mm = m0[i], vv = v0[i];
        ops_adam_elem(&pp, &mm, &vv, g[i], b1, omb1, b2, omb2, step_size, bc2_sqrt, eps);
        if (ck_bits_differ(pp, p[i]) | ck_bits_differ(mm, m[i]) | ck_bits_differ(vv, v[i])) {
            atomicAdd(out, 1.0);
            double dd = fmax(fabs((double)pp - p[i]), fmax(fabs((double)mm - m[i]), fabs((double)vv - v[i])));
            if (dd != dd) dd = 1e300;
            atomicMax((unsigned long long *)(out + 1), (unsigned long long)__double_as_longlong(dd));
            double r = ck_adam_far_ratio(pp, mm, vv, p0[i], m0[i], v0[i], g[i], p[i], m[i], v[i], sc);
            atomicMax((unsigned long long *)far, (unsigned long long)__double_as_longlong(r));
            unsigned no = ~adam_orders_match(p0[i], m0[i], v0[i], g[i], osc.s, p[i], m[i], v[i]) & ADAM_ORDER_ALL;
            if (no) atomicOr((unsigned long long *)(far + 2), (unsigned long long)no);
        }
    }
}
/* The named orders' pass over every element of a tensor with a difference
 * (out[0] > 0; none: it returns at once), as the host's adam_recheck:
 * far[2] |= the orders an element is not */
__global__ void k_ck_adam_orders(const double *out, double *far, const float *p0, const float *m0, const float *v0,
                                 const float *g, const float *p, const float *m, const float *v, size_t count,
                                 adam_order_sc osc) {
    if (out[0] == 0.0) return;
    GRID_STRIDE(i, count) {
        unsigned no = ~adam_orders_match(p0[i], m0[i], v0[i], g[i], osc.s, p[i], m[i], v[i]) & ADAM_ORDER_ALL;
        if (no) atomicOr((unsigned long long *)(far + 2), (unsigned long long)no);
    }
}
/* ADAMW's pick, pass 2: far[1] = ~i of the first element at far[0]'s
 * ratio (atomicMax on ~i: the smallest i; never 0 for i < 2^64 - 1, so 0
 * is "no element differs") */
__global__ void k_ck_adam_first(double *far, const float *p0, const float *m0, const float *v0, const float *g,
                                const float *p, const float *m, const float *v, size_t count, float b1, float omb1,
                                float b2, float omb2, float step_size, float bc2_sqrt, float eps) {
    LK_ADAM_SC;
    unsigned long long top = (unsigned long long)__double_as_longlong(far[0]);
    GRID_STRIDE(i, count) {
        float pp = p0[i], mm = m0[i], vv = v0[i];
        ops_adam_elem(&pp, &mm, &vv, g[i], b1, omb1, b2, omb2, step_size, bc2_sqrt, eps);
        double r = ck_adam_far_ratio(pp, mm, vv, p0[i], m0[i], v0[i], g[i], p[i], m[i], v[i], sc);
        if (r >= 0 && (unsigned long long)__double_as_longlong(r) == top)
            atomicMax((unsigned long long *)(far + 1), ~(unsigned long long)i);
    }
}
/* ADAMW's entry from the index k_ck_adam_first left in far[1] (one thread) */
__global__ void k_ck_adam_far(double *far, const float *p0, const float *m0, const float *v0, const float *g,
                              const float *p, const float *m, const float *v) {
    if (blockIdx.x || threadIdx.x) return;
    unsigned long long ni = (unsigned long long)__double_as_longlong(far[1]);
    unsigned orders = ADAM_ORDER_ALL & ~(unsigned)(unsigned long long)__double_as_longlong(far[2]);
    ck_adam_far_put(far, ni != 0, (size_t)~ni, p0, m0, v0, g, p, m, v);
    if (ni != 0) far[0] = adam_orders_pack(far[0], orders); /* the named orders, as the host's adam_recheck */
}

/* FWD_DPEEK / BWD_DATA_DPEEK: a block per sample, its elements split
 * among the threads (thread t: e = t, t + blockDim, ...; each element one
 * chain, ck_dense_opeek_elem), the worst merged by a fixed tree of
 * ck_cand_beats: the element and bits of checksum_peek.h's host loop. */
#define LK_DPEEK_THREADS 128u
__global__ void k_ck_dense_opeek(double *o, const float *w, const float *b, const float *x, const float *y, size_t n,
                                 size_t in, size_t out, int bwd) {
    __shared__ ck_cand sc[LK_DPEEK_THREADS];
    size_t nd = bwd ? in : out, K = bwd ? out : in;
    for (size_t i = blockIdx.x; i < n; i += gridDim.x) {
        ck_cand best = ck_cand_none();
        for (size_t e = threadIdx.x; e < nd; e += blockDim.x)
            ck_dense_opeek_elem(&best, w, b, x + i * K, y + i * nd, in, K, e, bwd);
        sc[threadIdx.x] = best;
        __syncthreads();
        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
            if (threadIdx.x < h && ck_cand_beats(&sc[threadIdx.x + h], &sc[threadIdx.x])) sc[threadIdx.x] = sc[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0) ck_cand_put(&sc[0], o + 4 * i);
        __syncthreads();
    }
}

/* FWD_PEEK / BWD_DATA_PEEK: a thread per (sample, channel) plane u of the
 * checked tensor yt (n, NC, P): its first, last, largest and drawn
 * elements re-done over the sample's source planes (base/checksum_peek.h's
 * ck_conv_plane_peek, the host loop's body); the draws keyed by the
 * stage's input digest, read from the vector's INPUT slot (computed
 * before). */
__global__ void k_ck_conv_peek(double *o, const float *yt, const float *src, const float *w, const float *b,
                               ck_conv_dims d, size_t n, int bwd, const double *dig, uint32_t step, uint32_t stage,
                               int layer) {
    size_t NC = bwd ? (size_t)d.c : (size_t)d.oc, nsrc = bwd ? (size_t)d.oc : (size_t)d.c;
    size_t P = bwd ? (size_t)d.h * d.w : (size_t)d.oh * d.ow, HWs = bwd ? (size_t)d.oh * d.ow : (size_t)d.h * d.w;
    uint64_t digest;
    memcpy(&digest, dig, sizeof digest);
    GRID_STRIDE(u, n * NC) {
        size_t i = u / NC, ch = u % NC, drawn[CK_PEEK_PLANE - 3];
        for (int k = 0; k < CK_PEEK_PLANE - 3; k++) drawn[k] = ck_plane_draw_one(digest, step, stage, layer, u, bwd, k, P);
        ck_conv_plane_peek(o + 4 * u, yt + u * P, src + i * nsrc * HWs, w, b, &d, bwd, ch, drawn);
    }
}

#define LK_RND_DRAWS 2 /* engines/checksums.h's CK_RND_DRAWS (cuda_policy.c asserts it) */
/* ---- random-weight relations (FWD_RND, BWD_DATA_RND; base/checksum_rnd.h) ----
 * scratch rs: per draw dr, CK_RND_WS(n1..n4) doubles of weights [a n1][|a| n1][b n2][a' n3][|a'| n3][b' n4]
 * (a dense layer: s = a, t = a'), then the relations' own (cp_ck_rnd) */
#define CK_RND_WS(n1, n2, n3, n4) (2 * (n1) + (n2) + 2 * (n3) + (n4))
__global__ void k_ck_rnd_weights(double *rs, size_t n1, size_t n2, size_t n3, size_t n4, const double *dig,
                                 uint32_t step, uint32_t stage, int layer) {
    size_t ws = CK_RND_WS(n1, n2, n3, n4);
    uint64_t digest;
    memcpy(&digest, dig, sizeof digest);
    GRID_STRIDE(q, LK_RND_DRAWS * ws) {
        int dr = (int)(q / ws);
        size_t e = q % ws, i;
        int what;
        int ab = 0;
        if (e < n1) what = 4 * dr, i = e;
        else if (e < 2 * n1) what = 4 * dr, i = e - n1, ab = 1;
        else if (e < 2 * n1 + n2) what = 4 * dr + 1, i = e - 2 * n1;
        else if (e < 2 * n1 + n2 + n3) what = 4 * dr + 2, i = e - 2 * n1 - n2;
        else if (e < 2 * n1 + n2 + 2 * n3) what = 4 * dr + 2, i = e - 2 * n1 - n2 - n3, ab = 1;
        else what = 4 * dr + 3, i = e - 2 * n1 - n2 - 2 * n3;
        double wv = ck_rnd_weight_one(digest, step, stage, layer, what, i);
        rs[q] = ab ? fabs(wv) : wv;
    }
}
/* conv, the source's weighted window sums: g[dr][(i ns + s) kk + t] */
__global__ void k_ck_conv_rnd_win(double *g, const double *rs, size_t ws, const float *src, ck_conv_dims d, size_t n,
                                  int bwd) {
    size_t ns = bwd ? (size_t)d.oc : (size_t)d.c, kk = (size_t)d.k * d.k, per = n * ns * kk;
    int R = bwd ? d.oh : d.h, Q = bwd ? d.ow : d.w, nrow = bwd ? d.h : d.oh, ncol = bwd ? d.w : d.ow;
    size_t n1 = (size_t)d.oh, n2 = (size_t)d.ow, n3 = (size_t)d.h;
    GRID_STRIDE(q, LK_RND_DRAWS * per) {
        size_t dr = q / per, e = q % per, plane = e / kk, t = e % kk;
        const double *W = rs + dr * ws;
        const double *rw = bwd ? W + 2 * n1 + n2 : W, *cw = bwd ? W + 2 * n1 + n2 + 2 * n3 : W + 2 * n1;
        g[q] = ck_rnd_win(src + plane * (size_t)R * Q, R, Q, d.k, d.pad, bwd ? 1 : -1, rw, nrow, cw, ncol,
                          (int)(t / (size_t)d.k), (int)(t % (size_t)d.k));
    }
}
/* conv, the relations: entry ((i NC + ch) draws + dr); A, Y, S the plain relation's (plain: its block) */
__global__ void k_ck_conv_rnd_rel(double *o, const double *plain, const double *g, const double *rs, size_t ws,
                                  const float *yt, const float *w, const float *b, ck_conv_dims d, size_t n, int bwd) {
    size_t NC = bwd ? (size_t)d.c : (size_t)d.oc, ns = bwd ? (size_t)d.oc : (size_t)d.c, kk = (size_t)d.k * d.k;
    int nrow = bwd ? d.h : d.oh, ncol = bwd ? d.w : d.ow;
    size_t n1 = (size_t)d.oh, n2 = (size_t)d.ow, n3 = (size_t)d.h, per = n * ns * kk;
    GRID_STRIDE(u, n * NC) {
        size_t i = u / NC, ch = u % NC;
        for (int dr = 0; dr < LK_RND_DRAWS; dr++) {
            const double *W = rs + (size_t)dr * ws;
            const double *ra = bwd ? W + 2 * n1 + n2 : W, *cb = bwd ? W + 2 * n1 + n2 + 2 * n3 : W + 2 * n1;
            double rhs = bwd ? 0.0 : ck_rnd_total(W, n1) * ck_rnd_total(W + 2 * n1, n2) * (double)b[ch];
            rhs = ck_rnd_rhs_acc(rhs, w, g + (size_t)dr * per + i * ns * kk, ns, (size_t)d.c, kk, ch, bwd);
            double ys = ck_rnd_plane(yt + u * (size_t)nrow * ncol, nrow, ncol, ra, cb);
            double *e = o + 4 * (u * LK_RND_DRAWS + (size_t)dr);
            const double *pl = plain + 4 * u;
            e[0] = ys - rhs, e[1] = pl[1], e[2] = pl[2], e[3] = pl[3];
        }
    }
}
/* dense, per layer: V[dr][in], VA[dr][in] (W^T s), RSA[out], U[dr][out], UA[dr][out] (W t), CA[in] */
__global__ void k_ck_dense_rnd_prep(double *x, const double *rs, size_t ws, const float *w, size_t in, size_t out,
                                    int bwd) {
    double *V = x, *VA = V + LK_RND_DRAWS * in, *RSA = VA + LK_RND_DRAWS * in, *U = RSA + out;
    double *UA = U + LK_RND_DRAWS * out, *CA = UA + LK_RND_DRAWS * out;
    size_t t1 = LK_RND_DRAWS * in, t2 = t1 + out, t3 = t2 + LK_RND_DRAWS * out, t4 = t3 + in;
    GRID_STRIDE(q, bwd ? t4 : t2) {
        if (q < t1) {
            size_t dr = q / in, k = q % in;
            const double *W = rs + dr * ws;
            ck_dense_rnd_col(w, W, W + out, out, in, k, &V[q], &VA[q]);
        } else if (q < t2) {
            RSA[q - t1] = ck_abs_lanes(w + (q - t1) * in, in);
        } else if (q < t3) {
            size_t dr = (q - t2) / out, j = (q - t2) % out;
            const double *W = rs + dr * ws;
            double qq[4];
            ck_dot_lanes(w + j * in, W + 2 * out, W + 2 * out + in, in, qq);
            U[q - t2] = qq[0], UA[q - t2] = qq[1];
        } else {
            CA[q - t3] = ck_dense_col_abs(w, out, in, q - t3);
        }
    }
}
/* dense, the scalars (one thread): SC[dr][4] (ck_dense_rnd_bias), CM (the largest column sum of |w|) */
__global__ void k_ck_dense_rnd_scalars(double *x, const double *rs, size_t ws, const float *b, size_t in, size_t out) {
    double *RSA = x + 2 * LK_RND_DRAWS * in, *CA = RSA + out + 2 * LK_RND_DRAWS * out, *SC = CA + in;
    if (blockIdx.x || threadIdx.x) return;
    for (int dr = 0; dr < LK_RND_DRAWS; dr++) {
        const double *W = rs + (size_t)dr * ws;
        ck_dense_rnd_bias(b, W, W + out, RSA, out, SC + 4 * dr);
    }
    SC[4 * LK_RND_DRAWS] = ck_max_of(CA, in);
}
/* dense, the relations: a thread per (sample, draw) */
__global__ void k_ck_dense_rnd_rel(double *o, const double *x, const double *rs, size_t ws, const float *lhs,
                                   const float *src, size_t n, size_t in, size_t out, int bwd) {
    const double *V = x, *VA = V + LK_RND_DRAWS * in, *RSA = VA + LK_RND_DRAWS * in, *U = RSA + out;
    const double *UA = U + LK_RND_DRAWS * out, *CA = UA + LK_RND_DRAWS * out, *SC = CA + in;
    GRID_STRIDE(q, n * LK_RND_DRAWS) {
        size_t p = q / LK_RND_DRAWS, dr = q % LK_RND_DRAWS;
        const double *W = rs + dr * ws;
        if (!bwd)
            ck_dense_rnd_fwd(o + 4 * q, lhs + p * out, src + p * in, W, W + out, V + dr * in, VA + dr * in, SC + 4 * dr,
                             out, in);
        else
            ck_dense_rnd_bwd(o + 4 * q, lhs + p * in, src + p * out, W + 2 * out, W + 2 * out + in, U + dr * out,
                             UA + dr * out, SC[4 * LK_RND_DRAWS], out, in);
    }
}

/* BWD_W_PEEK (base/checksum_peek.h).  Dense: a block per row, every
 * element re-done over the batch (the host's order), the worst merged.
 * Conv: a block per filter; thread 0 picks the elements;
 * each element's per-sample sums by the threads (ck_conv_redo_sample, a
 * sample each), added by thread 0 in sample order: the host's
 * association, bit for bit. */
__global__ void k_ck_dense_wpeek(double *o, const float *dw, const float *dy, const float *x, size_t n, size_t in,
                                 size_t out) {
    /* a block per row, its elements split among the threads (every one
     * re-done: ck_dense_wpeek_elem), the worst merged by the fixed tree of
     * ck_cand_beats as k_ck_dense_opeek's: the host loop's element and bits */
    __shared__ ck_cand sc[LK_DPEEK_THREADS];
    for (size_t j = blockIdx.x; j < out; j += gridDim.x) {
        ck_cand best = ck_cand_none();
        for (size_t t = threadIdx.x; t < in; t += blockDim.x) ck_dense_wpeek_elem(&best, dw, dy, x, n, in, out, j, t);
        sc[threadIdx.x] = best;
        __syncthreads();
        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
            if (threadIdx.x < h && ck_cand_beats(&sc[threadIdx.x + h], &sc[threadIdx.x])) sc[threadIdx.x] = sc[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0) ck_cand_put(&sc[0], o + 4 * j);
        __syncthreads();
    }
}
__global__ void k_ck_conv_wpeek(double *o, const float *dw, const float *x, const float *dy, ck_conv_dims d, size_t n,
                                const double *dig, uint32_t step, uint32_t stage, int layer) {
    __shared__ double sR[LK_THREADS], sA[LK_THREADS];
    __shared__ unsigned long long st[CK_WPEEK];
    size_t ckk = (size_t)d.c * d.k * d.k;
    uint64_t digest;
    memcpy(&digest, dig, sizeof digest);
    for (size_t oc = blockIdx.x; oc < (size_t)d.oc; oc += gridDim.x) {
        const float *f = dw + oc * ckk;
        if (threadIdx.x == 0) {
            size_t t[CK_WPEEK];
            ck_peek_elems_at(t, f, ckk, digest, step, stage, layer, oc);
            for (int e = 0; e < CK_WPEEK; e++) st[e] = t[e];
        }
        __syncthreads();
        ck_worst w;
        ck_worst_init(&w);
        for (int e = 0; e < CK_WPEEK; e++) {
            size_t te = (size_t)st[e];
            double R = 0, A = 0;
            int sub = 0;
            for (size_t i0 = 0; i0 < n; i0 += blockDim.x) {
                size_t i = i0 + threadIdx.x;
                double ri = 0, ai = 0;
                int sb = i < n ? ck_conv_redo_sample(x, dy, &d, i, oc, te, &ri, &ai) : 0;
                sR[threadIdx.x] = ri, sA[threadIdx.x] = ai;
                sub |= __syncthreads_or(sb);
                if (threadIdx.x == 0)
                    for (size_t k = 0; k < blockDim.x && i0 + k < n; k++) R += sR[k], A += sA[k];
                __syncthreads();
            }
            if (threadIdx.x == 0) ck_zero_keep(&w, f[te], R, A, sub);
        }
        if (threadIdx.x == 0) ck_worst_put(&w, o + 4 * oc);
        __syncthreads();
    }
}

/* FWD_BLANK (base/checksum_blank.h): per (sample, input position) its
 * hash, per (sample, output) its window key, per output the first of its
 * group; then a block per sample whose threads take outputs, merged by a
 * tree (counts and maxima: any order).  scr: n (HW + P) u64, n P u32.
 * The first three serve the identical windows' term too (k_ck_grp_list
 * on): over a source of NU planes of hs x ws (HWs) per sample, outputs on
 * a grid of Po with ow columns whose windows read (r + a + o, c + b + o). */
__global__ void k_ck_grp_pos(uint64_t *hpos, const float *x, size_t NU, size_t HWs, size_t n) {
    GRID_STRIDE(q, n * HWs) hpos[q] = ck_grp_pos(x + (q / HWs) * NU * HWs, NU, HWs, q % HWs);
}
__global__ void k_ck_grp_key(uint64_t *key, const uint64_t *hpos, int hs, int ws, int ow, int k, int o, size_t Po,
                             size_t n) {
    size_t HWs = (size_t)hs * ws;
    GRID_STRIDE(q, n * Po) key[q] = ck_grp_key_at(hpos + (q / Po) * HWs, hs, ws, ow, k, o, q % Po);
}
__global__ void k_ck_grp_first(uint32_t *fm, const uint64_t *key, size_t P, size_t n) {
    GRID_STRIDE(q, n * P) fm[q] = ck_grp_first(key + (q / P) * P, P, q % P);
}
__global__ void k_ck_blank(double *o, const float *x, const float *y, const float *w, const float *b,
                           const uint64_t *key, const uint32_t *fm, ck_conv_dims d, size_t n) {
    __shared__ double sa[LK_THREADS][4];
    size_t HW = (size_t)d.h * d.w, P = (size_t)d.oh * d.ow, C = (size_t)d.c, OC = (size_t)d.oc;
    for (size_t i = blockIdx.x; i < n; i += gridDim.x) {
        double acc[4] = {0, 0, 0, 0};
        for (size_t p = threadIdx.x; p < P; p += blockDim.x)
            ck_blank_output(acc, x + i * C * HW, y + i * OC * P, w, b, key + i * P, fm + i * P, &d, p);
        for (int k = 0; k < 4; k++) sa[threadIdx.x][k] = acc[k];
        __syncthreads();
        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
            if (threadIdx.x < h) ck_blank_merge(sa[threadIdx.x], sa[threadIdx.x + h]);
            __syncthreads();
        }
        if (threadIdx.x == 0)
            for (int k = 0; k < 4; k++) o[4 * i + (size_t)k] = sa[0][k];
        __syncthreads();
    }
}

/* ---- the identical windows' term of the conv relations' S (E;
 * base/checksum_blank.h's ck_grp_*, which engines/checksums.c's
 * conv_groups calls on the host): after the position hashes, window keys
 * and group firsts above (forward: x's windows, o = -pad; backward-data:
 * dy's, o = pad - (k - 1)), a thread per sample lists its groups
 * (ck_grp_list: the first CK_GRP_EXACT of two or more in the order of
 * their first window, the others' summed G^2 - G), a thread per (sample,
 * exact group, window channel) takes the first window's max |src|, a
 * thread per (window channel, relation) the sum of |w| over the taps, and
 * a thread per (sample, relation) E in the host's order and S' = S + E /
 * A into the plain relation (its own A), the alternating ones (the plain
 * S', as on the host) and the position-weighted one (P S + P^2 E / its A);
 * the random-weight relations copy the plain one's after this.
 * Registers and memory: no thread holds an array (the counts, lists and
 * maxima are global scratch, cp_ck_blank), so nothing spills to local
 * memory (ptxas -v, sm_90: k_ck_grp_e 48 registers, the others 22-32, 0
 * bytes stack and spills): k_ck_grp_e keeps a few doubles and walks at
 * most CK_GRP_EXACT x NU maxima; k_ck_grp_list is O(P) a thread but only n threads (a
 * latency, not a throughput, cost: 3 P steps, P = 784 in SmallCNN);
 * k_ck_grp_first is O(P) a thread, O(n P^2) in all (157 M key
 * comparisons for conv1 at batch 256), shared with FWD_BLANK, whose
 * launcher then skips its own.  Scratch per direction: n (8 HWs + 16 Po +
 * 68) bytes of hashes, keys, firsts, counts and lists (+ 4 to align),
 * then n (136 + 128 NU) + 8 NU NV bytes of doubles. */
__global__ void k_ck_grp_list(uint32_t *first, double *f, uint32_t *ng, double *over, const uint32_t *fm,
                              uint32_t *cnt, size_t P, size_t n) {
    GRID_STRIDE(i, n)
    ng[i] = (uint32_t)ck_grp_list(fm + i * P, P, cnt + i * P, first + i * CK_GRP_EXACT, f + i * CK_GRP_EXACT, &over[i]);
}
__global__ void k_ck_grp_mx(double *gmx, const float *src, const uint32_t *first, const uint32_t *ng, size_t NU,
                            int hs, int ws, int ow, int k, int o, size_t n) {
    size_t HWs = (size_t)hs * ws;
    GRID_STRIDE(q, n * CK_GRP_EXACT * NU) {
        size_t i = q / (CK_GRP_EXACT * NU), j = (q / NU) % CK_GRP_EXACT, u = q % NU;
        if (j >= ng[i]) continue;
        uint32_t f0 = first[i * CK_GRP_EXACT + j];
        gmx[q] = ck_grp_win_max(src + (i * NU + u) * HWs, 1, hs, ws, k, o, (int)(f0 / (uint32_t)ow),
                                (int)(f0 % (uint32_t)ow));
    }
}
/* coef[u NV + v]: forward u = c, v = oc; backward-data u = oc, v = c; each
 * sum_t |w[oc][c][t]| in tap order (the host's wsum) */
__global__ void k_ck_grp_wsum(double *coef, const float *w, ck_conv_dims d, int bwd) {
    size_t kk = (size_t)d.k * d.k, C = (size_t)d.c, OC = (size_t)d.oc;
    GRID_STRIDE(q, OC * C) {
        size_t oc = q / C, c = q % C;
        coef[bwd ? oc * C + c : c * OC + oc] = ck_abs_sum(w + q * kk, kk, 1);
    }
}
__global__ void k_ck_grp_e(double *o, double *opw, double *ora, double *oca, const double *gmx, const double *f,
                           const uint32_t *ng, const double *over, const double *coef, const float *b, size_t NU,
                           size_t NV, size_t Po, size_t n) {
    GRID_STRIDE(r, n * NV) {
        size_t i = r / NV, v = r % NV;
        double S = o[4 * r + 3];
        double E = ck_grp_e(ng[i], f + i * CK_GRP_EXACT, gmx + i * CK_GRP_EXACT * NU, over[i], coef + v, NV, NU,
                            b ? fabs((double)b[v]) : 0.0, S);
        if (!(E > 0)) continue; /* S' = S everywhere */
        double sp = ck_grp_s(S, E, o[4 * r + 1]);
        o[4 * r + 3] = sp;
        if (ora) ora[4 * r + 3] = sp;
        if (oca) oca[4 * r + 3] = sp;
        if (opw) opw[4 * r + 3] = ck_grp_s((double)Po * S, (double)Po * (double)Po * E, opw[4 * r + 1]);
    }
}

/* BWD_W_RND (base/checksum_rnd.h): the draws' weights (what 14 + dr,
 * cnt a draw), then a conv layer's U per (draw, sample, position), each
 * sample's max |x|, the (draw, filter, sample) shares and per (filter,
 * draw) the entry (the samples added in order); a dense layer's weighted
 * inputs per (draw, sample), then per (row, draw) the entry.  Each sum in
 * the host's order: the host loop's bits. */
__global__ void k_ck_wrnd_weights(double *W, size_t cnt, const double *dig, uint32_t step, uint32_t stage, int layer) {
    uint64_t digest;
    memcpy(&digest, dig, sizeof digest);
    GRID_STRIDE(q, LK_RND_DRAWS * cnt) W[q] = ck_rnd_weight_one(digest, step, stage, layer, 14 + (int)(q / cnt), q % cnt);
}
__global__ void k_ck_wrnd_u(double *U, const double *W, const float *x, ck_conv_dims d, size_t n) {
    size_t C = (size_t)d.c, kk = (size_t)d.k * d.k, HW = (size_t)d.h * d.w, OP = (size_t)d.oh * d.ow, per = n * OP;
    GRID_STRIDE(q, LK_RND_DRAWS * per) {
        size_t dr = q / per, i = (q % per) / OP, p = q % OP;
        const double *a = W + dr * (C + kk);
        ck_wrnd_u(x + i * C * HW, &d, a, a + C, p, &U[q], &U[LK_RND_DRAWS * per + q]);
    }
}
__global__ void k_ck_wrnd_mx(double *mx, const float *x, size_t per, size_t n) {
    GRID_STRIDE(i, n) mx[i] = ck_wrnd_max(x + i * per, per);
}
__global__ void k_ck_wrnd_res(double *res, const double *U, const double *mx, const float *dy, ck_conv_dims d,
                              size_t n) {
    size_t OC = (size_t)d.oc, OP = (size_t)d.oh * d.ow, per = n * OP;
    GRID_STRIDE(q, LK_RND_DRAWS * OC * n) { /* q = (dr OC + o) n + i */
        size_t i = q % n, o = (q / n) % OC, dr = q / (n * OC);
        const double *u = U + (dr * n + i) * OP;
        ck_wrnd_res(res + 3 * q, dy + (i * OC + o) * OP, OP, u, u + LK_RND_DRAWS * per, mx[i]);
    }
}
__global__ void k_ck_wrnd_conv_fin(double *o, const float *dw, const double *W, const double *res, ck_conv_dims d,
                                   size_t n) {
    size_t C = (size_t)d.c, kk = (size_t)d.k * d.k, OC = (size_t)d.oc;
    GRID_STRIDE(q, OC * LK_RND_DRAWS) { /* q = o draws + dr: the entry's index */
        size_t oc = q / LK_RND_DRAWS, dr = q % LK_RND_DRAWS;
        const double *a = W + dr * (C + kk);
        ck_wrnd_conv_entry(o + 4 * q, dw + oc * C * kk, C, kk, a, a + C, res + 3 * (dr * OC + oc) * n, 3, n);
    }
}
__global__ void k_ck_wrnd_rx(double *rx, const double *W, const float *x, size_t n, size_t in) {
    GRID_STRIDE(q, LK_RND_DRAWS * n) { /* q = dr n + i */
        size_t dr = q / n, i = q % n;
        ck_wrnd_rx(x + i * in, W + dr * in, in, &rx[q], &rx[LK_RND_DRAWS * n + q]);
    }
}
__global__ void k_ck_wrnd_dense_fin(double *o, const float *dw, const float *dy, const double *W, const double *rx,
                                    const double *mx, size_t n, size_t in, size_t out) {
    GRID_STRIDE(q, out * LK_RND_DRAWS) {
        size_t j = q / LK_RND_DRAWS, dr = q % LK_RND_DRAWS;
        ck_wrnd_dense_entry(o + 4 * q, dw, dy, W + dr * in, rx + dr * n, rx + LK_RND_DRAWS * n + dr * n, mx[0], n, in,
                            out, j);
    }
}

extern "C" int lk_ck_window(cudaStream_t s, double *sum, double *asum, double *mx, const float *x,
                            const ck_conv_dims *d, size_t planes, int dy_mode) {
    LAUNCH(planes * d->k * d->k, k_ck_window, sum, asum, mx, x, *d, planes, dy_mode);
}
extern "C" int lk_ck_conv_fwd(cudaStream_t s, double *o, const float *y, const float *w, const float *b,
                              const double *sum, const double *asum, const double *mx, const ck_conv_dims *d,
                              size_t n, int weighted) {
    LAUNCH(n * d->oc, k_ck_conv_fwd, o, y, w, b, sum, asum, mx, *d, n, weighted);
}
extern "C" int lk_ck_conv_bwd_data(cudaStream_t s, double *o, const float *dx, const float *w, const double *sum,
                                   const double *asum, const double *mx, const ck_conv_dims *d, size_t n,
                                   int weighted) {
    LAUNCH(n * d->c, k_ck_conv_bwd_data, o, dx, w, sum, asum, mx, *d, n, weighted);
}
extern "C" int lk_ck_conv_z(cudaStream_t s, double *z, double *za, const float *x, const ck_conv_dims *d, size_t n,
                            int weighted) {
    LAUNCH(n * d->oh * d->ow, k_ck_conv_z, z, za, x, *d, n, weighted);
}
extern "C" int lk_ck_conv_bwd_w(cudaStream_t s, double *ow, double *ob, const float *dw, const float *db,
                                const float *dy, const double *z, const double *za, const double *mx, double *part,
                                const ck_conv_dims *d, size_t n, int weighted) {
    size_t planes = n * (size_t)d->oc, wpb = LK_THREADS / 32;
    if (planes == 0) return 0;
    unsigned nb = cp_grid_blocks(planes, (unsigned)wpb, LK_MAX_BLOCKS);
    clear_stale();
    k_ck_conv_bwd_w_part<<<nb, LK_THREADS, 0, s>>>(part, dy, z, za, *d, n);
    int rc = launched();
    if (rc) return rc;
    LAUNCH((size_t)d->oc, k_ck_conv_bwd_w, ow, ob, dw, db, part, mx, *d, n, weighted);
}
extern "C" int lk_ck_sums(cudaStream_t s, double *sum, double *asum, double *mx, const float *x, size_t rows,
                          size_t cols, int by_row) {
    LAUNCH(by_row ? rows : cols, k_ck_sums, sum, asum, mx, x, rows, cols, by_row);
}
extern "C" int lk_ck_dense(cudaStream_t s, double *o, double *ob, const float *w, const float *b, const float *lhs,
                           const float *dy, const double *sum, const double *asum, const double *mx, size_t n,
                           size_t in, size_t out, int mode) {
    LAUNCH(mode == 1 ? in : out, k_ck_dense, o, ob, w, b, lhs, dy, sum, asum, mx, n, in, out, mode);
}
extern "C" int lk_ck_dense_sample(cudaStream_t s, double *o, const float *lhs, const float *x, const double *cs,
                                  const double *csa, const double *lw, const float *b, size_t n, size_t nl, size_t nx) {
    LAUNCH(n, k_ck_dense_sample, o, lhs, x, cs, csa, lw, b, n, nl, nx);
}
extern "C" int lk_ck_conv_zero(cudaStream_t s, double *o, const float *dw, const float *x, const float *dy,
                               const double *part, const double *mx_x, const ck_conv_dims *d, size_t n) {
    if (d->oc <= 0) return 0;
    unsigned nb = d->oc < (int)LK_MAX_BLOCKS ? (unsigned)d->oc : LK_MAX_BLOCKS;
    clear_stale();
    k_ck_conv_zero<<<nb, LK_THREADS, 0, s>>>(o, dw, x, dy, part, mx_x, *d, n);
    return launched();
}
extern "C" int lk_ck_dense_opeek(cudaStream_t s, double *o, const float *w, const float *b, const float *x,
                                 const float *y, size_t n, size_t in, size_t out, int bwd) {
    if (n == 0) return 0;
    unsigned nb = n < LK_MAX_BLOCKS ? (unsigned)n : LK_MAX_BLOCKS;
    clear_stale();
    k_ck_dense_opeek<<<nb, LK_DPEEK_THREADS, 0, s>>>(o, w, b, x, y, n, in, out, bwd);
    return launched();
}
extern "C" int lk_ck_conv_peek(cudaStream_t s, double *o, const float *yt, const float *src, const float *w,
                               const float *b, const ck_conv_dims *d, size_t n, int bwd, const double *dig,
                               uint32_t step, uint32_t stage, int layer) {
    LAUNCH(n * (size_t)(bwd ? d->c : d->oc), k_ck_conv_peek, o, yt, src, w, b, *d, n, bwd, dig, step, stage, layer);
}
static size_t rnd_ws(const ck_conv_dims *d, int dense) {
    return dense ? CK_RND_WS((size_t)d->oc, 0, (size_t)d->c, 0)
                 : CK_RND_WS((size_t)d->oh, (size_t)d->ow, (size_t)d->h, (size_t)d->w);
}
extern "C" int lk_ck_conv_rnd(cudaStream_t s, double *o, const double *plain, const float *yt, const float *src,
                              const float *w, const float *b, const ck_conv_dims *d, size_t n, int bwd, double *rs,
                              const double *dig, uint32_t step, uint32_t stage, int layer) {
    size_t ws = rnd_ws(d, 0), ns = bwd ? (size_t)d->oc : (size_t)d->c, NC = bwd ? (size_t)d->c : (size_t)d->oc;
    size_t kk = (size_t)d->k * d->k, per = n * ns * kk;
    double *g = rs + LK_RND_DRAWS * ws;
    unsigned nb = cp_grid_blocks(LK_RND_DRAWS * ws, LK_THREADS, LK_MAX_BLOCKS);
    if (nb == 0 || n == 0) return 0;
    clear_stale();
    k_ck_rnd_weights<<<nb, LK_THREADS, 0, s>>>(rs, (size_t)d->oh, (size_t)d->ow, (size_t)d->h, (size_t)d->w, dig, step,
                                                stage, layer);
    int rc = launched();
    if (rc) return rc;
    k_ck_conv_rnd_win<<<cp_grid_blocks(LK_RND_DRAWS * per, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(
        g, rs, ws, src, *d, n, bwd);
    if ((rc = launched())) return rc;
    k_ck_conv_rnd_rel<<<cp_grid_blocks(n * NC, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(o, plain, g, rs, ws, yt,
                                                                                              w, b, *d, n, bwd);
    return launched();
}
extern "C" int lk_ck_dense_rnd(cudaStream_t s, double *of, double *ob, const float *w, const float *b, const float *x,
                               const float *y, const float *dy, const float *dx, size_t n, size_t in, size_t out,
                               double *rs, const double *dig, uint32_t step, uint32_t stage, int layer) {
    ck_conv_dims d = {(int)in, 1, 1, (int)out, 1, 1, 1, 0};
    size_t ws = rnd_ws(&d, 1);
    double *x2 = rs + LK_RND_DRAWS * ws;
    int bwd = ob != NULL, rc;
    if (n == 0) return 0;
    clear_stale();
    k_ck_rnd_weights<<<cp_grid_blocks(LK_RND_DRAWS * ws, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(
        rs, out, 0, in, 0, dig, step, stage, layer);
    if ((rc = launched())) return rc;
    size_t t = LK_RND_DRAWS * in + out + (bwd ? LK_RND_DRAWS * out + in : 0);
    k_ck_dense_rnd_prep<<<cp_grid_blocks(t, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(x2, rs, ws, w, in, out, bwd);
    if ((rc = launched())) return rc;
    k_ck_dense_rnd_scalars<<<1, 1, 0, s>>>(x2, rs, ws, b, in, out);
    if ((rc = launched())) return rc;
    unsigned nb = cp_grid_blocks(n * LK_RND_DRAWS, LK_THREADS, LK_MAX_BLOCKS);
    k_ck_dense_rnd_rel<<<nb, LK_THREADS, 0, s>>>(of, x2, rs, ws, y, x, n, in, out, 0);
    if ((rc = launched())) return rc;
    if (!bwd) return 0;
    k_ck_dense_rnd_rel<<<nb, LK_THREADS, 0, s>>>(ob, x2, rs, ws, dx, dy, n, in, out, 1);
    return launched();
}
extern "C" int lk_ck_dense_wpeek(cudaStream_t s, double *o, const float *dw, const float *dy, const float *x,
                                 size_t n, size_t in, size_t out, const double *dig, uint32_t step, uint32_t stage,
                                 int layer) {
    (void)dig, (void)step, (void)stage, (void)layer; /* every element: no draws */
    if (out == 0) return 0;
    unsigned nb = out < LK_MAX_BLOCKS ? (unsigned)out : LK_MAX_BLOCKS;
    clear_stale();
    k_ck_dense_wpeek<<<nb, LK_DPEEK_THREADS, 0, s>>>(o, dw, dy, x, n, in, out);
    return launched();
}
extern "C" int lk_ck_conv_wpeek(cudaStream_t s, double *o, const float *dw, const float *x, const float *dy,
                                const ck_conv_dims *d, size_t n, const double *dig, uint32_t step, uint32_t stage,
                                int layer) {
    if (d->oc <= 0) return 0;
    unsigned nb = d->oc < (int)LK_MAX_BLOCKS ? (unsigned)d->oc : LK_MAX_BLOCKS;
    clear_stale();
    k_ck_conv_wpeek<<<nb, LK_THREADS, 0, s>>>(o, dw, x, dy, *d, n, dig, step, stage, layer);
    return launched();
}
#define LK_GO(nthreads, kernel, ...)                                                                  \
    do {                                                                                                \
        unsigned nb_ = cp_grid_blocks((nthreads), LK_THREADS, LK_MAX_BLOCKS);                           \
        if (nb_) {                                                                                      \
            kernel<<<nb_, LK_THREADS, 0, s>>>(__VA_ARGS__);                                             \
            if ((rc = launched())) return rc;                                                           \
        }                                                                                               \
    } while (0)
/* the hashes, keys and firsts of cp_ck_blank's scratch (its first n (HWs + Po) u64 and n Po u32) */
static int grp_keys(cudaStream_t s, void *scr, const float *src, size_t NU, int hs, int ws, int ow, size_t Po, int k,
                    int o, size_t n) {
    size_t HWs = (size_t)hs * ws;
    cp_grp_layout g = cp_ck_grp_layout(n, HWs, Po, NU, 0); /* the hashes and firsts only: nv is not used */
    uint64_t *hpos = (uint64_t *)((char *)scr + g.hpos), *key = (uint64_t *)((char *)scr + g.key);
    uint32_t *fm = (uint32_t *)((char *)scr + g.fm);
    int rc;
    k_ck_grp_pos<<<cp_grid_blocks(n * HWs, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(hpos, src, NU, HWs, n);
    if ((rc = launched())) return rc;
    k_ck_grp_key<<<cp_grid_blocks(n * Po, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(key, hpos, hs, ws, ow, k, o,
                                                                                         Po, n);
    if ((rc = launched())) return rc;
    k_ck_grp_first<<<cp_grid_blocks(n * Po, LK_THREADS, LK_MAX_BLOCKS), LK_THREADS, 0, s>>>(fm, key, Po, n);
    return launched();
}
extern "C" int lk_ck_blank(cudaStream_t s, double *o, const float *x, const float *y, const float *w,
                           const float *b, const ck_conv_dims *d, size_t n, void *scr, int keyed) {
    size_t HW = (size_t)d->h * d->w, P = (size_t)d->oh * d->ow;
    cp_grp_layout g = cp_ck_grp_layout(n, HW, P, (size_t)d->c, (size_t)d->oc); /* lk_ck_conv_grp's forward */
    uint64_t *key = (uint64_t *)((char *)scr + g.key);
    uint32_t *fm = (uint32_t *)((char *)scr + g.fm);
    int rc;
    if (n == 0 || P == 0) return 0;
    clear_stale();
    if (!keyed && (rc = grp_keys(s, scr, x, (size_t)d->c, d->h, d->w, d->ow, P, d->k, -d->pad, n))) return rc;
    unsigned nb = n < LK_MAX_BLOCKS ? (unsigned)n : LK_MAX_BLOCKS;
    k_ck_blank<<<nb, LK_THREADS, 0, s>>>(o, x, y, w, b, key, fm, *d, n);
    return launched();
}
extern "C" int lk_ck_conv_grp(cudaStream_t s, double *o, double *opw, double *ora, double *oca, const float *src,
                              const float *w, const float *b, const ck_conv_dims *d, size_t n, int bwd, void *scr) {
    int hs = bwd ? d->oh : d->h, ws = bwd ? d->ow : d->w, ow = bwd ? d->w : d->ow;
    int off = bwd ? d->pad - (d->k - 1) : -d->pad;
    size_t HWs = (size_t)hs * ws, Po = bwd ? (size_t)d->h * d->w : (size_t)d->oh * d->ow;
    size_t NU = bwd ? (size_t)d->oc : (size_t)d->c, NV = bwd ? (size_t)d->c : (size_t)d->oc;
    int rc = 0;
    if (n == 0 || Po == 0 || HWs == 0) return 0;
    clear_stale();
    if ((rc = grp_keys(s, scr, src, NU, hs, ws, ow, Po, d->k, off, n))) return rc;
    cp_grp_layout g = cp_ck_grp_layout(n, HWs, Po, NU, NV);
    char *sb = (char *)scr;
    uint32_t *fm = (uint32_t *)(sb + g.fm), *cnt = (uint32_t *)(sb + g.cnt), *first = (uint32_t *)(sb + g.first);
    uint32_t *ng = (uint32_t *)(sb + g.ng);
    double *f = (double *)(sb + g.f), *over = (double *)(sb + g.over);
    double *gmx = (double *)(sb + g.gmx), *coef = (double *)(sb + g.coef);
    LK_GO(n, k_ck_grp_list, first, f, ng, over, fm, cnt, Po, n);
    LK_GO(n * CK_GRP_EXACT * NU, k_ck_grp_mx, gmx, src, first, ng, NU, hs, ws, ow, d->k, off, n);
    LK_GO(NU * NV, k_ck_grp_wsum, coef, w, *d, bwd);
    LK_GO(n * NV, k_ck_grp_e, o, opw, ora, oca, gmx, f, ng, over, coef, b, NU, NV, Po, n);
    return 0;
}
extern "C" int lk_ck_conv_wrnd(cudaStream_t s, double *o, const float *dw, const float *x, const float *dy,
                               const ck_conv_dims *d, size_t n, double *rs, const double *dig, uint32_t step,
                               uint32_t stage, int layer) {
    size_t C = (size_t)d->c, kk = (size_t)d->k * d->k, OC = (size_t)d->oc, OP = (size_t)d->oh * d->ow;
    double *W = rs, *U = W + LK_RND_DRAWS * (C + kk), *res = U + 2 * LK_RND_DRAWS * n * OP;
    double *mx = res + 3 * LK_RND_DRAWS * n * OC;
    int rc = 0;
    if (n == 0) return 0;
    clear_stale();
    LK_GO(LK_RND_DRAWS * (C + kk), k_ck_wrnd_weights, W, C + kk, dig, step, stage, layer);
    LK_GO(LK_RND_DRAWS * n * OP, k_ck_wrnd_u, U, W, x, *d, n);
    LK_GO(n, k_ck_wrnd_mx, mx, x, C * (size_t)d->h * d->w, n);
    LK_GO(LK_RND_DRAWS * OC * n, k_ck_wrnd_res, res, U, mx, dy, *d, n);
    LK_GO(OC * LK_RND_DRAWS, k_ck_wrnd_conv_fin, o, dw, W, res, *d, n);
    return 0;
}
extern "C" int lk_ck_dense_wrnd(cudaStream_t s, double *o, const float *dw, const float *dy, const float *x,
                                const double *mx, size_t n, size_t in, size_t out, double *rs, const double *dig,
                                uint32_t step, uint32_t stage, int layer) {
    double *W = rs, *rx = W + LK_RND_DRAWS * in;
    int rc = 0;
    if (n == 0) return 0;
    clear_stale();
    LK_GO(LK_RND_DRAWS * in, k_ck_wrnd_weights, W, in, dig, step, stage, layer);
    LK_GO(LK_RND_DRAWS * n, k_ck_wrnd_rx, rx, W, x, n, in);
    LK_GO(out * LK_RND_DRAWS, k_ck_wrnd_dense_fin, o, dw, dy, W, rx, mx, n, in, out);
    return 0;
}
extern "C" int lk_ck_dense_zero(cudaStream_t s, double *o, const float *dw, const float *dy, const float *x,
                                const double *xa, size_t n, size_t in, size_t out) {
    if (out == 0) return 0;
    unsigned nb = out < LK_MAX_BLOCKS ? (unsigned)out : LK_MAX_BLOCKS;
    clear_stale();
    k_ck_dense_zero<<<nb, LK_THREADS, 0, s>>>(o, dw, dy, x, xa, n, in, out);
    return launched();
}
extern "C" int lk_ck_elem(cudaStream_t s, double *bad, int kind, int backward, int training, const float *x,
                          const float *y, const float *dy, const float *dx, size_t count, uint64_t seed, uint32_t step,
                          uint32_t layer, float p, float scale) {
    LAUNCH(count, k_ck_elem, bad, kind, backward, training, x, y, dy, dx, count, seed, step, layer, p, scale);
}
extern "C" int lk_ck_pool(cudaStream_t s, double *bad, const float *x, const float *y, const float *dy,
                          const float *dx, size_t planes, int h, int w, int oh, int ow, int backward) {
    LAUNCH(planes * h * w, k_ck_pool, bad, x, y, dy, dx, planes, h, w, oh, ow, backward);
}
extern "C" int lk_ck_digest(cudaStream_t s, double *slot, const float *x, size_t count) {
    LAUNCH(count, k_ck_digest, (unsigned long long *)slot, x, count);
}
extern "C" int lk_ck_adam(cudaStream_t s, double *out, double *far, const float *p0, const float *m0,
                          const float *v0, const float *g, const float *p, const float *m, const float *v, size_t count,
                          float b1, float omb1, float b2, float omb2, float step_size, float bc2_sqrt, float eps,
                          adam_order_sc osc) {
    unsigned nb = cp_grid_blocks(count, LK_THREADS, LK_MAX_BLOCKS);
    int rc;
    if (nb == 0) return 0;
    clear_stale();
    k_ck_adam<<<nb, LK_THREADS, 0, s>>>(out, far, p0, m0, v0, g, p, m, v, count, b1, omb1, b2, omb2, step_size,
                                        bc2_sqrt, eps, osc);
    if ((rc = launched())) return rc;
    k_ck_adam_orders<<<nb, LK_THREADS, 0, s>>>(out, far, p0, m0, v0, g, p, m, v, count, osc);
    if ((rc = launched())) return rc;
    k_ck_adam_first<<<nb, LK_THREADS, 0, s>>>(far, p0, m0, v0, g, p, m, v, count, b1, omb1, b2, omb2, step_size,
                                              bc2_sqrt, eps);
    if ((rc = launched())) return rc;
    k_ck_adam_far<<<1, 1, 0, s>>>(far, p0, m0, v0, g, p, m, v);
    return launched();
}
