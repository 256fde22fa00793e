/*
 * lowp.h — reduced-precision formats as the GPU paths use them: rounding an
 * fp32 value to TF32 (10 explicit mantissa bits, fp32's exponent range) or
 * to bfloat16 (7 bits), and the a-priori error bound of a dot product whose
 * inputs were so rounded before exact products and fp32 accumulation.
 *
 * Rounded values stay in float: a TF32 or bf16 value is an fp32 value whose
 * low 13 (16) significand bits are zero, which is how tensor cores and
 * oneDNN hold them.
 *
 * Not here: the engines' use of it (engine_cpu.c tf32=on, engine_reference.c
 * tf32=on), the fp32 bounds themselves (compare.h), anything that allocates.
 */
#ifndef LS_LOWP_H
#define LS_LOWP_H

#include <stddef.h>

/* Rounding of fp32 to a narrower significand. */
typedef enum {
    LOWP_RNA, /* to nearest, ties away from zero: PTX cvt.rna.tf32.f32 (the default, see lowp.c) */
    LOWP_RNE, /* to nearest, ties to even: IEEE's default, cvt.rn.tf32.f32 (sm_90+), bf16 in oneDNN */
    LOWP_RZ,  /* toward zero: the low bits dropped, what an mma reads from raw fp32 bits */
    LOWP_N
} lowp_round;

/* Unit roundoffs of the formats for round-to-nearest: 2^-p with p the
 * significand's bits including the implicit one (TF32 11, bf16 8).
 * Toward zero doubles them (lowp_unit_roundoff). */
#define LOWP_U_TF32 0x1p-11
#define LOWP_U_BF16 0x1p-8

/* x rounded to TF32 / bf16 in `mode`.  ±0 and ±inf are returned as they
 * are, NaN as a quiet NaN of the same sign (never turned into inf by the
 * dropped bits), subnormals are rounded on the same grid as normals (TF32
 * and bf16 share fp32's exponent range), finite values may round up into
 * the next binade and, past the largest finite value, to inf (RNA, RNE). */
float lowp_round_tf32(float x, lowp_round mode);
float lowp_round_bf16(float x, lowp_round mode);

/* dst[i] = lowp_round_tf32(src[i], mode), i < n; dst == src allowed.
 * OpenMP over i (element-wise: the result does not depend on threads). */
void lowp_round_tf32_array(float *dst, const float *src, size_t n, lowp_round mode);

/* Mode names: "rna", "rne", "rz".  lowp_round_parse returns 0, or
 * LS_EINVAL with a message listing the names (prefixed by `what`). */
const char *lowp_round_name(lowp_round mode);
int lowp_round_parse(const char *name, const char *what, lowp_round *out);

/* The unit roundoff of rounding to `bits` significand bits (implicit one
 * included) in `mode`: 2^-bits for the nearest modes, 2^(1-bits) toward
 * zero.  lowp_unit_roundoff(11, m) for TF32, (8, LOWP_RNE) for bf16. */
double lowp_unit_roundoff(int bits, lowp_round mode);

/* Scale factors that turn compare.h's fp32 bound gamma_K * S of a dot
 * product of K terms into the bound of the same product computed from
 * inputs rounded with unit roundoff u_in, products exact, fp32 accumulation
 * in any order (derivation in lowp.c):
 *   lowp_bound_factor:          S = sum |a_i||b_i| of the unrounded inputs
 *                               (the reference's values): returns
 *                               1 + (2 u_in + u_in^2)(1 + gamma_K) / gamma_K
 *   lowp_bound_factor_rounded:  S = sum |a~_i||b~_i| of the rounded inputs:
 *                               1 + (2 u_in + u_in^2) / ((1 - u_in)^2 gamma_K)
 * K must be the K of the fp32 bound being scaled (compare.h states it per
 * helper).  1 for K == 0 (an empty sum is exact); inf when gamma_K is. */
double lowp_bound_factor(size_t K, double u_in);
double lowp_bound_factor_rounded(size_t K, double u_in);

#endif
