/*
 * cpu_pool.c — 2x2 max-pool with the ReLU before it folded in; the rules
 * and the index format are in cpu_pool.h.
 *
 * Threads split the (image, channel block) planes; each output element is
 * computed by one thread from its own window, so the split changes nothing.
 *
 * nChw16c and nChw8c blocks are processed a register of channels at a
 * time with AVX-512F or AVX2 intrinsics, picked at run time by what the CPU
 * has (the build itself targets the x86-64 baseline); the rules become
 * compares and selects, with no branch.  Plain NCHW (block 1), other CPUs
 * and the ReLU-less forward take the scalar loop, which states the same
 * rules one element at a time.  Which path runs changes no bit: nothing
 * here rounds (the one product, g * 0 or g * 1, is exact).
 */
#include "engines/cpu/cpu_pool.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/cpu/cpu_faults.h"

/* ---- the rules, one element at a time ------------------------------------ */

static inline float relu_fwd(float x) {
    return x > 0.0f ? x : 0.0f;
}

/* Output element from the window x[0..3] (row-major): value, and the code
 * of cpu_pool.h (position, and with relu the ReLU's pass bit). */
static inline float pool_elem(const float x[4], int relu, uint8_t *code) {
    float best = -FLT_MAX;
    unsigned k = 0;
    for (unsigned q = 0; q < 4; q++) {
        float v = relu ? relu_fwd(x[q]) : x[q];
        if (v > best) {
            best = v;
            k = q;
        }
    }
    /* relu'(x, g) passes g unless x <= 0 (so NaN passes) */
    unsigned pass = relu && !(x[k] <= 0.0f) ? CPU_POOL_RELU_PASS : 0u;
    *code = (uint8_t)(k | pass);
    return best;
}

static void fwd_plane_scalar(float *d, uint8_t *ix, const float *s, int relu, const cpu_pool_geom *g) {
    const size_t B = g->blk, W = g->w;
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++)
            for (size_t c = 0; c < B; c++) {
                const float *r0 = s + (2 * oh * W + 2 * ow) * B + c, *r1 = r0 + W * B;
                float x[4] = {r0[0], r0[B], r1[0], r1[B]};
                size_t o = (oh * g->ow + ow) * B + c;
                d[o] = pool_elem(x, relu, &ix[o]);
            }
}

static void bwd_plane_scalar(float *s, const float *d, const uint8_t *ix, int relu, const cpu_pool_geom *g) {
    const size_t B = g->blk, W = g->w;
    memset(s, 0, g->h * W * B * sizeof *s); /* +0 where no arg-max is (and the unread edge) */
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++)
            for (size_t c = 0; c < B; c++) {
                size_t o = (oh * g->ow + ow) * B + c;
                unsigned k = ix[o] & CPU_POOL_POS_MASK;
                /* oneDNN's max-pool backward adds the gradient to a zeroed
                 * buffer: +0 + g, which turns -0 into +0 */
                float gv = 0.0f + d[o];
                /* the ReLU's zero is g * 0, not +0: oneDNN's keeps g's sign */
                if (relu && !(ix[o] & CPU_POOL_RELU_PASS)) gv = gv * 0.0f;
                s[(2 * oh + k / 2) * W * B + (2 * ow + k % 2) * B + c] = gv;
            }
}

/* ---- the same, a vector of channels at a time ------------------------------- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LS_POOL_X86 1
#include <immintrin.h>

/* AVX-512F: one nChw16c pixel is one register; compares give k-masks. */
__attribute__((target("avx512f"))) static void fwd_plane_avx512(float *d, uint8_t *ix, const float *s,
                                                               const cpu_pool_geom *g) {
    const size_t W = g->w;
    const __m512 zero = _mm512_setzero_ps();
    const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2), three = _mm512_set1_epi32(3);
    const __m512i pass_bit = _mm512_set1_epi32((int)CPU_POOL_RELU_PASS);
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++) {
            const float *r0 = s + (2 * oh * W + 2 * ow) * 16, *r1 = r0 + W * 16;
            size_t o = (oh * g->ow + ow) * 16;
            /* window order (0,0) (0,1) (1,0) (1,1), as oneDNN walks it */
            __m512 x0 = _mm512_loadu_ps(r0), x1 = _mm512_loadu_ps(r0 + 16);
            __m512 x2 = _mm512_loadu_ps(r1), x3 = _mm512_loadu_ps(r1 + 16);
            /* relu: x where x > 0, else +0 (NaN and -0 included) */
            __m512 v0 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x0, zero, _CMP_GT_OQ), x0);
            __m512 v1 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x1, zero, _CMP_GT_OQ), x1);
            __m512 v2 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x2, zero, _CMP_GT_OQ), x2);
            __m512 v3 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x3, zero, _CMP_GT_OQ), x3);
            /* no value is NaN or below +0 now, so oneDNN's scan ("from
             * -FLT_MAX, take only what is greater") is a knock-out that
             * keeps the earlier on a tie: (0,1), (2,3), then the winners */
            __mmask16 c01 = _mm512_cmp_ps_mask(v1, v0, _CMP_GT_OQ), c23 = _mm512_cmp_ps_mask(v3, v2, _CMP_GT_OQ);
            __m512 va = _mm512_mask_mov_ps(v0, c01, v1), xa = _mm512_mask_mov_ps(x0, c01, x1);
            __m512 vb = _mm512_mask_mov_ps(v2, c23, v3), xb = _mm512_mask_mov_ps(x2, c23, x3);
            __mmask16 cab = _mm512_cmp_ps_mask(vb, va, _CMP_GT_OQ);
            __m512 best = _mm512_mask_mov_ps(va, cab, vb), xk = _mm512_mask_mov_ps(xa, cab, xb);
            __m512i ka = _mm512_maskz_mov_epi32(c01, one), kb = _mm512_mask_mov_epi32(two, c23, three);
            __m512i k = _mm512_mask_mov_epi32(ka, cab, kb);
            /* relu'(x, g) passes g unless x <= 0: "not <=", unordered, is true for NaN */
            __mmask16 pass = _mm512_cmp_ps_mask(xk, zero, _CMP_NLE_UQ);
            k = _mm512_mask_or_epi32(k, pass, k, pass_bit);
            _mm512_storeu_ps(d + o, best);
            _mm_storeu_si128((__m128i *)(ix + o), _mm512_cvtepi32_epi8(k));
        }
}

__attribute__((target("avx512f"))) static void bwd_plane_avx512(float *s, const float *d, const uint8_t *ix,
                                                               int relu, const cpu_pool_geom *g) {
    const size_t W = g->w;
    const __m512 zero = _mm512_setzero_ps();
    const __m512i pos = _mm512_set1_epi32((int)CPU_POOL_POS_MASK);
    const __m512i pass_bit = _mm512_set1_epi32((int)CPU_POOL_RELU_PASS);
    const __m512i q0 = _mm512_setzero_si512(), q1 = _mm512_set1_epi32(1), q2 = _mm512_set1_epi32(2);
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++) {
            float *r0 = s + (2 * oh * W + 2 * ow) * 16, *r1 = r0 + W * 16;
            size_t o = (oh * g->ow + ow) * 16;
            __m512i code = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(ix + o)));
            __m512 gv = _mm512_add_ps(zero, _mm512_loadu_ps(d + o)); /* +0 + g: oneDNN's -0 -> +0 */
            /* the ReLU's zero is g * 0, not +0: oneDNN's keeps g's sign */
            if (relu) gv = _mm512_mask_mov_ps(_mm512_mul_ps(gv, zero), _mm512_test_epi32_mask(code, pass_bit), gv);
            __m512i k = _mm512_and_si512(code, pos);
            /* +0 everywhere but the arg-max (relu'(x, +0) is +0 for every x) */
            _mm512_storeu_ps(r0, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(k, q0), gv));
            _mm512_storeu_ps(r0 + 16, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(k, q1), gv));
            _mm512_storeu_ps(r1, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(k, q2), gv));
            _mm512_storeu_ps(r1 + 16, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(k, pos), gv));
        }
}

/* AVX2: 8 channels a register (nChw8c: one pixel; nChw16c: two). */
__attribute__((target("avx2"))) static void fwd_plane_avx2(float *d, uint8_t *ix, const float *s,
                                                          const cpu_pool_geom *g) {
    const size_t B = g->blk, W = g->w;
    const __m256 zero = _mm256_setzero_ps();
    const __m256i one = _mm256_set1_epi32(1), two = _mm256_set1_epi32(2);
    const __m256i pass_bit = _mm256_set1_epi32((int)CPU_POOL_RELU_PASS);
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++)
            for (size_t c = 0; c < B; c += 8) {
                const float *r0 = s + (2 * oh * W + 2 * ow) * B + c, *r1 = r0 + W * B;
                size_t o = (oh * g->ow + ow) * B + c;
                __m256 x0 = _mm256_loadu_ps(r0), x1 = _mm256_loadu_ps(r0 + B);
                __m256 x2 = _mm256_loadu_ps(r1), x3 = _mm256_loadu_ps(r1 + B);
                __m256 v0 = _mm256_and_ps(x0, _mm256_cmp_ps(x0, zero, _CMP_GT_OQ));
                __m256 v1 = _mm256_and_ps(x1, _mm256_cmp_ps(x1, zero, _CMP_GT_OQ));
                __m256 v2 = _mm256_and_ps(x2, _mm256_cmp_ps(x2, zero, _CMP_GT_OQ));
                __m256 v3 = _mm256_and_ps(x3, _mm256_cmp_ps(x3, zero, _CMP_GT_OQ));
                __m256 c01 = _mm256_cmp_ps(v1, v0, _CMP_GT_OQ), c23 = _mm256_cmp_ps(v3, v2, _CMP_GT_OQ);
                __m256 va = _mm256_blendv_ps(v0, v1, c01), xa = _mm256_blendv_ps(x0, x1, c01);
                __m256 vb = _mm256_blendv_ps(v2, v3, c23), xb = _mm256_blendv_ps(x2, x3, c23);
                __m256 cab = _mm256_cmp_ps(vb, va, _CMP_GT_OQ);
                __m256 best = _mm256_blendv_ps(va, vb, cab), xk = _mm256_blendv_ps(xa, xb, cab);
                /* masks are -1: pair (0,1) gives 0 - c01, pair (2,3) gives 2 - c23 */
                __m256i ka = _mm256_and_si256(_mm256_castps_si256(c01), one);
                __m256i kb = _mm256_sub_epi32(two, _mm256_castps_si256(c23));
                __m256i k = _mm256_castps_si256(
                    _mm256_blendv_ps(_mm256_castsi256_ps(ka), _mm256_castsi256_ps(kb), cab));
                __m256 pass = _mm256_cmp_ps(xk, zero, _CMP_NLE_UQ);
                k = _mm256_or_si256(k, _mm256_and_si256(_mm256_castps_si256(pass), pass_bit));
                _mm256_storeu_ps(d + o, best);
                __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
                _mm_storel_epi64((__m128i *)(ix + o), _mm_packus_epi16(w, w));
            }
}

__attribute__((target("avx2"))) static void bwd_plane_avx2(float *s, const float *d, const uint8_t *ix, int relu,
                                                          const cpu_pool_geom *g) {
    const size_t B = g->blk, W = g->w;
    const __m256 zero = _mm256_setzero_ps();
    const __m256i pos = _mm256_set1_epi32((int)CPU_POOL_POS_MASK);
    const __m256i pass_bit = _mm256_set1_epi32((int)CPU_POOL_RELU_PASS);
    const __m256i q0 = _mm256_setzero_si256(), q1 = _mm256_set1_epi32(1), q2 = _mm256_set1_epi32(2);
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++)
            for (size_t c = 0; c < B; c += 8) {
                float *r0 = s + (2 * oh * W + 2 * ow) * B + c, *r1 = r0 + W * B;
                size_t o = (oh * g->ow + ow) * B + c;
                __m256i code = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(ix + o)));
                __m256 gv = _mm256_add_ps(zero, _mm256_loadu_ps(d + o)); /* +0 + g: oneDNN's -0 -> +0 */
                if (relu) {
                    __m256 keep = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(code, pass_bit), pass_bit));
                    gv = _mm256_blendv_ps(_mm256_mul_ps(gv, zero), gv, keep);
                }
                __m256i k = _mm256_and_si256(code, pos);
                _mm256_storeu_ps(r0, _mm256_and_ps(gv, _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, q0))));
                _mm256_storeu_ps(r0 + B, _mm256_and_ps(gv, _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, q1))));
                _mm256_storeu_ps(r1, _mm256_and_ps(gv, _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, q2))));
                _mm256_storeu_ps(r1 + B, _mm256_and_ps(gv, _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, pos))));
            }
}

typedef enum { POOL_ISA_SCALAR, POOL_ISA_AVX2, POOL_ISA_AVX512 } pool_isa;

static int pool_isa_best(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? POOL_ISA_AVX512
           : __builtin_cpu_supports("avx2") ? POOL_ISA_AVX2 : POOL_ISA_SCALAR;
}

static int pool_isa_cur = -1; /* set once before threads use it (a benign race: all compute the same) */

static pool_isa pool_isa_get(void) {
    if (pool_isa_cur < 0) pool_isa_cur = pool_isa_best();
    return (pool_isa)pool_isa_cur;
}
#endif

int cpu_pool_force_isa(const char *name) {
#ifdef LS_POOL_X86
    int want = strcmp(name, "avx512f") == 0 ? POOL_ISA_AVX512
               : strcmp(name, "avx2") == 0  ? POOL_ISA_AVX2
               : strcmp(name, "scalar") == 0 ? POOL_ISA_SCALAR : -1;
    if (want < 0 || want > pool_isa_best()) return -1;
    pool_isa_cur = want;
    return 0;
#else
    return strcmp(name, "scalar") == 0 ? 0 : -1;
#endif
}

/* ---- entry points ------------------------------------------------------------ */

const char *cpu_pool_isa(void) {
#ifdef LS_POOL_X86
    switch (pool_isa_get()) {
    case POOL_ISA_AVX512: return "avx512f";
    case POOL_ISA_AVX2: return "avx2";
    default: break;
    }
#endif
    return "scalar";
}

static void fwd_plane(float *d, uint8_t *ix, const float *s, int relu, const cpu_pool_geom *g) {
#ifdef LS_POOL_X86
    pool_isa isa = pool_isa_get();
    if (relu && g->blk == 16 && isa == POOL_ISA_AVX512) {
        fwd_plane_avx512(d, ix, s, g);
        return;
    }
    if (relu && g->blk % 8 == 0 && isa >= POOL_ISA_AVX2) {
        fwd_plane_avx2(d, ix, s, g);
        return;
    }
#endif
    /* and without the ReLU (a tensor set from outside, NaN and all, in
     * isolated replay): oneDNN's scan exactly as written */
    fwd_plane_scalar(d, ix, s, relu, g);
}

static void bwd_plane(float *s, const float *d, const uint8_t *ix, int relu, const cpu_pool_geom *g) {
#ifdef LS_POOL_X86
    pool_isa isa = pool_isa_get();
    int ragged = g->h != 2 * g->oh || g->w != 2 * g->ow;
    if (ragged) memset(s, 0, g->h * g->w * g->blk * sizeof *s); /* the row/column no window reads */
    if (g->blk == 16 && isa == POOL_ISA_AVX512) {
        bwd_plane_avx512(s, d, ix, relu, g);
        return;
    }
    if (g->blk % 8 == 0 && isa >= POOL_ISA_AVX2) {
        bwd_plane_avx2(s, d, ix, relu, g);
        return;
    }
#endif
    bwd_plane_scalar(s, d, ix, relu, g);
}

#if LS_FAULTS
/* ---- the zoo's faults in this kernel (cpu_faults.h), test builds only ----
 * Applied after the correct pass, per plane, in the scalar form of the
 * rules, so every ISA path carries the same fault. */

static void fault_fwd_plane(float *d, uint8_t *ix, const float *s, int relu, const cpu_pool_geom *g) {
    const size_t B = g->blk, W = g->w;
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++)
            for (size_t c = 0; c < B; c++) {
                const float *r0 = s + (2 * oh * W + 2 * ow) * B + c, *r1 = r0 + W * B;
                float x[4] = {r0[0], r0[B], r1[0], r1[B]};
                size_t o = (oh * g->ow + ow) * B + c;
                if (cpu_fault_cur == CPU_FAULT_FUSED_RELU_NEG_WINDOW && relu && x[0] < 0 && x[1] < 0 && x[2] < 0 &&
                    x[3] < 0) {
                    float m = x[0];
                    for (int q = 1; q < 4; q++) m = x[q] > m ? x[q] : m;
                    d[o] = m;
                } else if (cpu_fault_cur == CPU_FAULT_FUSED_RELU_PASS_ELEM0 && relu) {
                    ix[o] = (uint8_t)((ix[o] & CPU_POOL_POS_MASK) | (x[0] > 0 ? CPU_POOL_RELU_PASS : 0u));
                } else if (cpu_fault_cur == CPU_FAULT_POOL_TIE_LAST) {
                    unsigned last = 0;
                    for (unsigned q = 0; q < 4; q++)
                        if ((relu ? relu_fwd(x[q]) : x[q]) == d[o]) last = q;
                    unsigned pass = relu && !(x[last] <= 0.0f) ? CPU_POOL_RELU_PASS : 0u;
                    ix[o] = (uint8_t)(last | pass);
                }
            }
}

/* zoo attack 13: the inputs of the forwards (pool_tie_both_once's backward finds a window's ties in the input its
 * forward read, kept by the engine until the backward), by their index buffer */
static struct { const uint8_t *idx; const float *in; } z13_pool_in[8];

/* relu_grad_at_zero: the ReLU's pass bit set for x >= 0 (relu'(0) = 1), not x > 0: the arg-max's input */
static void z13_fwd_plane(uint8_t *ix, const float *s, int relu, const cpu_pool_geom *g) {
    const size_t B = g->blk, W = g->w;
    if (!relu) return;
    for (size_t oh = 0; oh < g->oh; oh++)
        for (size_t ow = 0; ow < g->ow; ow++)
            for (size_t c = 0; c < B; c++) {
                const float *r0 = s + (2 * oh * W + 2 * ow) * B + c, *r1 = r0 + W * B;
                float x[4] = {r0[0], r0[B], r1[0], r1[B]};
                size_t o = (oh * g->ow + ow) * B + c;
                if (x[ix[o] & CPU_POOL_POS_MASK] >= 0.0f) {
                    if (!(ix[o] & CPU_POOL_RELU_PASS) && getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "relu0 flip\n");
                    ix[o] = (uint8_t)(ix[o] | CPU_POOL_RELU_PASS);
                }
            }
}

static void fault_pool_fwd(float *out, uint8_t *idx, const float *in, int relu, const cpu_pool_geom *g) {
    const size_t isz = g->h * g->w * g->blk, osz = g->oh * g->ow * g->blk, planes = g->n * g->cb;
    if (cpu_fault_cur == CPU_FAULT_POOL_TIE_BOTH_ONCE) {
        int k = 0;
        while (k < 7 && z13_pool_in[k].idx && z13_pool_in[k].idx != idx) k++;
        z13_pool_in[k].idx = idx, z13_pool_in[k].in = in;
    }
    if (cpu_fault_cur == CPU_FAULT_RELU_GRAD_AT_ZERO)
        for (size_t pl = 0; pl < planes; pl++) z13_fwd_plane(idx + pl * osz, in + pl * isz, relu, g);
    if (cpu_fault_cur != CPU_FAULT_FUSED_RELU_NEG_WINDOW && cpu_fault_cur != CPU_FAULT_FUSED_RELU_PASS_ELEM0 &&
        cpu_fault_cur != CPU_FAULT_POOL_TIE_LAST)
        return;
    for (size_t pl = 0; pl < planes; pl++) fault_fwd_plane(out + pl * osz, idx + pl * osz, in + pl * isz, relu, g);
}

/* pool_grad_next: the gradient goes to the element after the arg-max */
static void fault_pool_bwd(float *din, const float *dout, const uint8_t *idx, int relu, const cpu_pool_geom *g) {
    const size_t isz = g->h * g->w * g->blk, osz = g->oh * g->ow * g->blk, planes = g->n * g->cb;
    if (cpu_fault_cur == CPU_FAULT_POOL_TIE_BOTH_ONCE && cpu_fault_step == 7) {
        /* zoo attack 13: a window whose maximum appears at more than one position sends its gradient to each
         * of them (double counting), at step 7 only */
        const float *in = NULL;
        for (int k = 0; k < 8; k++)
            if (z13_pool_in[k].idx == idx) in = z13_pool_in[k].in;
        if (!in) return;
        const size_t B = g->blk, W = g->w;
        size_t hits = 0;
        for (size_t pl = 0; pl < planes; pl++)
            for (size_t oh = 0; oh < g->oh; oh++)
                for (size_t ow = 0; ow < g->ow; ow++)
                    for (size_t c = 0; c < B; c++) {
                        size_t off[4] = {(2 * oh * W + 2 * ow) * B + c, (2 * oh * W + 2 * ow + 1) * B + c,
                                         ((2 * oh + 1) * W + 2 * ow) * B + c, ((2 * oh + 1) * W + 2 * ow + 1) * B + c};
                        const float *s = in + pl * isz;
                        size_t o = (oh * g->ow + ow) * B + c;
                        unsigned pos = idx[pl * osz + o] & CPU_POOL_POS_MASK;
                        float m = s[off[pos]];
                        if (relu && !(m > 0.0f)) continue; /* the ReLU passes nothing */
                        for (unsigned q = 0; q < 4; q++)
                            if (q != pos && s[off[q]] == m) din[pl * isz + off[q]] += dout[pl * osz + o], hits++;
                    }
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "pool_tie_both_once: %zu extra routes\n", hits);
        return;
    }
    if (cpu_fault_cur != CPU_FAULT_POOL_GRAD_NEXT) return;
    for (size_t pl = 0; pl < planes; pl++) {
        uint8_t *ix = malloc(osz);
        if (!ix) return;
        for (size_t o = 0; o < osz; o++)
            ix[o] = (uint8_t)((idx[pl * osz + o] & ~CPU_POOL_POS_MASK) | ((idx[pl * osz + o] + 1) & CPU_POOL_POS_MASK));
        bwd_plane_scalar(din + pl * isz, dout + pl * osz, ix, relu, g);
        free(ix);
    }
}
#endif

void cpu_pool_fwd(float *out, uint8_t *idx, const float *in, int relu, const cpu_pool_geom *g) {
    const size_t isz = g->h * g->w * g->blk, osz = g->oh * g->ow * g->blk, planes = g->n * g->cb;
#pragma omp parallel for schedule(static)
    for (size_t pl = 0; pl < planes; pl++) fwd_plane(out + pl * osz, idx + pl * osz, in + pl * isz, relu, g);
    CPU_FAULT_ONLY(fault_pool_fwd(out, idx, in, relu, g);)
}

void cpu_pool_bwd(float *din, const float *dout, const uint8_t *idx, int relu, const cpu_pool_geom *g) {
    const size_t isz = g->h * g->w * g->blk, osz = g->oh * g->ow * g->blk, planes = g->n * g->cb;
#pragma omp parallel for schedule(static)
    for (size_t pl = 0; pl < planes; pl++) bwd_plane(din + pl * isz, dout + pl * osz, idx + pl * osz, relu, g);
    CPU_FAULT_ONLY(fault_pool_bwd(din, dout, idx, relu, g);)
}
