/*
 * kulisch.h — exact sums of fp32 x fp32 products, rounded once to fp32.
 *
 * The product of two floats is an integer below 2^48 times 2^e with
 * e in [-298, 208], so a sum of such products is an integer multiple of
 * 2^-298 that fits in ~600 bits: a fixed-point (Kulisch) accumulator holds
 * it exactly, whatever the order of the terms, and one rounding at the end
 * gives the correctly rounded fp32 result (round to nearest, ties to even,
 * subnormals and overflow as IEEE 754 binary32 does them).
 *
 * Speed: most terms of a dot product lie within ~60 binary orders of the
 * largest one, so every accumulator has a 128-bit two's-complement *window*
 * whose lowest bit is 2^lsb, chosen from a bound on the largest product
 * exponent and the number of terms so that the window cannot overflow
 * (kul_init).  Terms below the window (rare: tiny operands) go to the full
 * 32-bit-digit accumulator `dig`, which is zeroed only when first used.
 * Both parts are exact; kul_round() merges them and rounds once.
 *
 * Zero operands carry m = 0; their exponent may be anything in range (the
 * engine gives them the largest exponent of their array so that a zero
 * never takes the slow path).  Non-finite operands are not representable
 * here: callers check for them first (kfl_split counts them).
 *
 * Sign of an exact zero sum: kul_round() returns +0; the IEEE 754 / mpfr_sum
 * rule (-0 only when every term is -0) is applied by the caller, who knows
 * the terms (kul_round reports the exact zero).
 *
 * Not here: the layer loops (engine_reference.c), non-finite arithmetic.
 */
#ifndef LS_KULISCH_H
#define LS_KULISCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* An fp32 value as m * 2^e, |m| < 2^24 (sign in m), e in [-149, 104]. */
typedef struct {
    int32_t m;
    int32_t e;
} kfl;

#define KUL_EMIN (-298) /* weight of the lowest bit of any fp32 product */
#define KUL_DIGITS 20   /* 32-bit digits from 2^-298: 640 bits */

typedef struct {
    unsigned __int128 win; /* two's complement, value win * 2^lsb */
    int lsb;
    int nslow;             /* terms that went to dig (dig valid iff > 0) */
    int64_t dig[KUL_DIGITS]; /* value sum dig[i] * 2^(KUL_EMIN + 32 i) */
} kul_acc;

/* Split one float (finite).  Zeros get m = 0, e = zero_e. */
static inline kfl kfl_of(float x, int zero_e) {
    uint32_t b;
    memcpy(&b, &x, 4);
    uint32_t ex = (b >> 23) & 0xff, fr = b & 0x7fffff;
    kfl r;
    if (ex == 0) {
        r.m = (int32_t)fr;
        r.e = -149;
    } else {
        r.m = (int32_t)(fr | 0x800000u);
        r.e = (int32_t)ex - 150;
    }
    if (b >> 31) r.m = -r.m;
    if (r.m == 0) r.e = zero_e;
    return r;
}

/* Split n floats.  Returns the number of non-finite values (their entries
 * are left as zeros).  *emax gets the largest exponent of a nonzero value
 * (-149 if none), and every zero gets that exponent. */
size_t kfl_split(kfl *out, const float *x, size_t n, int *emax);

/* Number of bits of n (n < 2^bits). */
static inline int kul_bitlen(size_t n) {
    int b = 0;
    while (n) { b++; n >>= 1; }
    return b;
}

/* Start an accumulator for at most `nterms` terms, each m * 2^e with
 * |m| < 2^48 and e <= emax.  The window then never overflows:
 * nterms * 2^(48 + emax - lsb) <= 2^127.  The span is also capped at 63 so
 * that a term's shift fits one 64-bit shift (kul_term). */
static inline void kul_init(kul_acc *a, int emax, size_t nterms) {
    int span = 127 - 48 - kul_bitlen(nterms);
    if (span > 63) span = 63;
    int lsb = emax - span;
    a->lsb = lsb < KUL_EMIN ? KUL_EMIN : lsb;
    a->win = 0;
    a->nslow = 0;
}

void kul_add_slow(kul_acc *a, int64_t m, int e);

/* m << sh as a 128-bit two's complement value, 0 <= sh <= 63, without the
 * generic 128-bit shift (m >> 1 >> (63 - sh) is m >> (64 - sh), sign kept). */
static inline unsigned __int128 kul_shift(int64_t m, int sh) {
    uint64_t lo = (uint64_t)m << sh;
    uint64_t hi = (uint64_t)((m >> 1) >> (63 - sh));
    return ((unsigned __int128)hi << 64) | lo;
}

/* The hot loop form: the window is a value the caller keeps in registers
 * (w), the accumulator `a` is touched only by terms below the window.
 * Returns the new window.  x * y must satisfy kul_init's bound. */
static inline unsigned __int128 kul_term(unsigned __int128 w, kul_acc *a, int64_t m, int e) {
    int sh = e - a->lsb;
    if (__builtin_expect(sh >= 0, 1))
        w += kul_shift(m, sh);
    else if (m)
        kul_add_slow(a, m, e);
    return w;
}

/* Add m * 2^e exactly (|m| < 2^48, KUL_EMIN <= e <= the emax given to
 * kul_init, or m == 0). */
static inline void kul_add(kul_acc *a, int64_t m, int e) { a->win = kul_term(a->win, a, m, e); }

/* Add the exact product x * y. */
static inline void kul_mac(kul_acc *a, kfl x, kfl y) {
    kul_add(a, (int64_t)x.m * y.m, x.e + y.e);
}

/* Window form of kul_mac. */
static inline unsigned __int128 kul_macw(unsigned __int128 w, kul_acc *a, kfl x, kfl y) {
    return kul_term(w, a, (int64_t)x.m * y.m, x.e + y.e);
}

/* The exact sum rounded once to fp32 (RN-even, IEEE subnormals and
 * overflow).  *is_zero (may be NULL) is set when the exact sum is 0; the
 * returned value is then +0. */
float kul_round(const kul_acc *a, int *is_zero);

#endif
