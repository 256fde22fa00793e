/*
 * lowp.c — TF32 / bf16 rounding of fp32 values and the error bound of dot
 * products on such inputs (lowp.h).
 *
 * How NVIDIA's libraries turn fp32 into TF32.  What we found, and where:
 *   - cuBLAS (CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_TF32_TENSOR_OP_MATH) and
 *     cuDNN (CUDNN_TENSOR_OP_MATH with fp32 data) document only that fp32
 *     inputs "may be converted to TF32"; neither states the rounding, and
 *     both are closed source.  PyTorch's "Numerical accuracy" note says of
 *     TF32 tensor cores that "only the first 10 bits of the input mantissa
 *     are read"; TensorFlow's enable_tensor_float_32_execution says inputs
 *     are "rounded from 23 bits of precision to 10 bits".
 *   - The PTX ISA has exactly one fp32 -> TF32 conversion on Ampere (sm_80):
 *     cvt.rna.tf32.f32, round to nearest, ties away from zero.  The
 *     ties-to-even form cvt.rn.tf32.f32 exists only from sm_90 (PTX 7.8).
 *     An mma.sync with .tf32 operands takes 32-bit registers and uses only
 *     their upper 19 bits, so raw fp32 data fed to it is truncated (toward
 *     zero).  Disassembled for sm_86, cvt.rna is "if finite, add 0x1000;
 *     and 0xffffe000" (the integer form used below).
 *   - CUTLASS (numeric_types.h, numeric_conversion.h), NVIDIA's open
 *     template library from which cuBLAS's TF32 kernels descend: the
 *     tfloat32_t(float) constructor is round_half_ulp_truncate (add half an
 *     ULP to the bits when finite, the low bits are then ignored: nearest,
 *     ties away); NumericConverter<tfloat32_t, float, round_to_nearest> is
 *     ties-to-even (cvt.rn on sm_90); round_toward_zero masks the bits (the
 *     "big" half of the 3xTF32 split).
 * So the default here is RNA: the conversion Ampere's ISA provides and
 * CUTLASS's default.  It is an informed default, not a documented fact of
 * cuBLAS or cuDNN; RNE (Hopper's cvt.rn, CUTLASS round_to_nearest) and RZ
 * (operands never converted) are selectable, so a recording from a GPU can
 * be matched against all three.
 *
 * bf16: oneDNN converts with VCVTNEPS2BF16 (or its emulation): round to
 * nearest even; the AVX512_BF16 instruction treats subnormal inputs as zero
 * (Intel SDM), which lowp_round_bf16 does not model (it rounds subnormals
 * on the grid like TF32): our networks never carry values below 2^-126 into
 * a product that matters, and the bound below assumes none.
 *
 * Not here: the engines, the fp32 bounds (compare.c).
 */
#include "base/lowp.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"

static uint32_t bits_of(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Drop the low `drop` bits of x's significand, rounding in `mode`.
 * The integer add on the sign-magnitude bits is the rounding: a carry out of
 * the significand steps the exponent (the next binade, and past the largest
 * finite value the all-ones exponent with a zero significand, inf), and
 * subnormals sit on the same grid, so no case needs its own code but NaN
 * and inf.  The carry can never reach the sign bit: only 0x7fffffff (a NaN)
 * would carry that far. */
static inline float round_drop(float x, int drop, lowp_round mode) {
    uint32_t u = bits_of(x);
    uint32_t low = (1u << drop) - 1, half = 1u << (drop - 1);
    if ((u & 0x7f800000u) == 0x7f800000u) {
        /* inf stays; a NaN is made quiet first so that dropping its low
         * payload bits cannot leave the inf pattern behind */
        if (u & 0x007fffffu) u |= 0x00400000u;
        return float_of(u & ~low);
    }
    switch (mode) {
    case LOWP_RNA: u += half; break;
    case LOWP_RNE: u += half - 1 + ((u >> drop) & 1u); break;
    case LOWP_RZ:
    default: break;
    }
    return float_of(u & ~low);
}

float lowp_round_tf32(float x, lowp_round mode) { return round_drop(x, 13, mode); }
float lowp_round_bf16(float x, lowp_round mode) { return round_drop(x, 16, mode); }

/* One loop per mode, the mode a constant in each, so the compiler can
 * vectorize the bit operations (same values as round_drop). */
void lowp_round_tf32_array(float *dst, const float *src, size_t n, lowp_round mode) {
    switch (mode) {
    case LOWP_RNA:
#pragma omp parallel for simd schedule(static)
        for (ptrdiff_t i = 0; i < (ptrdiff_t)n; i++) dst[i] = round_drop(src[i], 13, LOWP_RNA);
        break;
    case LOWP_RNE:
#pragma omp parallel for simd schedule(static)
        for (ptrdiff_t i = 0; i < (ptrdiff_t)n; i++) dst[i] = round_drop(src[i], 13, LOWP_RNE);
        break;
    default:
#pragma omp parallel for simd schedule(static)
        for (ptrdiff_t i = 0; i < (ptrdiff_t)n; i++) dst[i] = round_drop(src[i], 13, LOWP_RZ);
        break;
    }
}

static const char *const round_names[LOWP_N] = {"rna", "rne", "rz"};

const char *lowp_round_name(lowp_round mode) {
    return mode >= 0 && mode < LOWP_N ? round_names[mode] : "?";
}

int lowp_round_parse(const char *name, const char *what, lowp_round *out) {
    for (int i = 0; i < LOWP_N; i++)
        if (strcmp(name, round_names[i]) == 0) {
            *out = (lowp_round)i;
            return 0;
        }
    return ls_err(LS_EINVAL, "%s=%s (known: rna, rne, rz)", what, name);
}

double lowp_unit_roundoff(int bits, lowp_round mode) {
    return ldexp(1.0, mode == LOWP_RZ ? 1 - bits : -bits);
}

/*
 * The bound.  A dot product s = sum_{i<K} a_i b_i of fp32 values (the bias,
 * when there is one, is a term with b = 1).  The engine rounds each input
 * to the narrow format first:
 *     a~ = a (1 + alpha),  b~ = b (1 + beta),  |alpha|, |beta| <= u_in
 * (u_in = 2^-11 for TF32 to nearest, 2^-10 toward zero, 2^-8 for bf16 to
 * nearest; this needs a, b outside the subnormal range, where the error is
 * absolute: at most half of 2^-149 * 2^13 for TF32 — assumed absent, as it
 * is in our networks; a bias that is not rounded only has alpha = 0, which
 * the bound covers).  Each product a~ b~ is exact in fp32: 11 x 11 = 22
 * significand bits for TF32, 8 x 8 = 16 for bf16, both <= 24 (barring
 * underflow and overflow of the product).  So the engine sums the exact
 * terms t_i = a_i b_i (1 + theta_i),  |theta_i| <= (1 + u_in)^2 - 1 = 2 u_in + u_in^2,
 * in fp32, in some order.  The standard result for a sum in any order
 * (each of the K - 1 additions rounded once, u = 2^-24): |fl(sum t) - sum t|
 * <= gamma_{K-1} sum |t_i| <= gamma_K sum |t_i|, gamma_K = K u / (1 - K u);
 * gamma_K, one rounding to spare, is what compare.h's helpers use and so
 * what we scale.  Then
 *     |fl(s~) - s| <= |s~ - s| + |fl(s~) - s~|
 *                  <= (2 u_in + u_in^2) sum |a||b| + gamma_K sum |a~||b~|.
 * The rounded inputs' magnitudes do matter, at second order:
 *     sum |a~||b~| <= (1 + u_in)^2 sum |a||b|,
 * so with S = sum |a||b| (the unrounded, reference values)
 *     |fl(s~) - s| <= [(1 + u_in)^2 (1 + gamma_K) - 1] S
 *                  =  gamma_K S * [1 + (2 u_in + u_in^2)(1 + gamma_K) / gamma_K],
 * and the bracket is lowp_bound_factor.  When the bound was computed from
 * the rounded inputs instead (S~ = sum |a~||b~|, what an engine that only
 * sees its own operands can form), |a||b| <= |a~||b~| / (1 - u_in)^2 gives
 *     |fl(s~) - s| <= [(2 u_in + u_in^2) / (1 - u_in)^2 + gamma_K] S~,
 * the factor lowp_bound_factor_rounded.  A plain sum (the bias gradient from
 * rounded dy: b = 1 exactly) has |theta| <= u_in only; the factor above
 * still bounds it, loosely.  Both factors are exact expressions of doubles;
 * their own rounding (relative 2^-52) is far below what they bound.
 * For SmallCNN's conv2 forward (K = 32*9 + 1 = 289) and TF32:
 * gamma_K ~ 1.7e-5, 2 u_in ~ 9.8e-4, the factor ~ 57.
 */
static double gamma_of(size_t K) {
    double ku = (double)K * 0x1p-24;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

double lowp_bound_factor(size_t K, double u_in) {
    if (K == 0) return 1.0;
    double g = gamma_of(K);
    if (isinf(g)) return INFINITY;
    return 1.0 + (2 * u_in + u_in * u_in) * (1 + g) / g;
}

double lowp_bound_factor_rounded(size_t K, double u_in) {
    if (K == 0) return 1.0;
    double g = gamma_of(K);
    if (isinf(g)) return INFINITY;
    return 1.0 + (2 * u_in + u_in * u_in) / ((1 - u_in) * (1 - u_in) * g);
}
