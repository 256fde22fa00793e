/*
 * kulisch.c — the slow half of the exact fp32-product accumulator
 * (kulisch.h): digits for terms below the window, and the one rounding.
 *
 * Invariants: dig[i] holds a signed count of 2^(KUL_EMIN + 32 i); every
 * addition puts at most 2^32 in magnitude into a digit, so 2^31 additions
 * cannot overflow an int64 digit (no intermediate carries needed).  Carries
 * are propagated only in kul_round, on a copy.
 *
 * Not here: anything about layers or MPFR (the tests compare against MPFR).
 */
#include <math.h>
#include <string.h>

#include "kulisch.h"

size_t kfl_split(kfl *out, const float *x, size_t n, int *emax) {
    int em = -149;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &x[i], 4);
        uint32_t ex = (b >> 23) & 0xff;
        if (ex == 0xff) {
            bad++;
            continue;
        }
        if ((b & 0x7fffffffu) == 0) continue;
        int e = ex == 0 ? -149 : (int)ex - 150;
        if (e > em) em = e;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &x[i], 4);
        if (((b >> 23) & 0xff) == 0xff)
            out[i] = (kfl){0, em};
        else
            out[i] = kfl_of(x[i], em);
    }
    *emax = em;
    return bad;
}

/* Add a signed t (|t| < 2^95) times 2^(KUL_EMIN + pos) to the digits
 * (touches digits pos/32 .. pos/32 + 3). */
static void dig_add(int64_t *dig, __int128 t, int pos) {
    int i = pos >> 5, s = pos & 31;
    t *= (__int128)1 << s; /* |t| < 2^126: no overflow */
    for (int k = 0; k < 3; k++) {
        int64_t lo = (int64_t)(uint32_t)(unsigned __int128)t; /* in [0, 2^32) */
        dig[i++] += lo;
        t = (t - lo) >> 32; /* exact: t - lo is a multiple of 2^32 */
    }
    dig[i] += (int64_t)t; /* signed rest, |t| < 2^30 */
}

void kul_add_slow(kul_acc *a, int64_t m, int e) {
    if (a->nslow++ == 0) memset(a->dig, 0, sizeof a->dig);
    dig_add(a->dig, m, e - KUL_EMIN);
}

/* Round the magnitude u * 2^lsb (u < 2^128, u > 0) to fp32. */
static float round_u128(unsigned __int128 u, int lsb) {
    int hb = 127 - (u >> 64 ? __builtin_clzll((uint64_t)(u >> 64)) : 64 + __builtin_clzll((uint64_t)u));
    int E = lsb + hb;         /* u * 2^lsb in [2^E, 2^(E+1)) */
    int q = E - 23;           /* weight of the last kept bit */
    if (q < -149) q = -149;   /* subnormal: fixed quantum 2^-149 */
    int sh = q - lsb;
    if (sh <= 0) return (float)ldexp((double)(uint64_t)u, lsb); /* exact: < 2^24 units */
    if (sh > hb + 1) return 0.0f;                               /* below half the quantum */
    unsigned __int128 r = sh >= 128 ? 0 : u >> sh;
    int rb = (int)((u >> (sh - 1)) & 1);
    unsigned __int128 below = sh - 1 == 0 ? 0 : u & ((((unsigned __int128)1) << (sh - 1)) - 1);
    if (rb && (below != 0 || (r & 1))) r++;
    /* r <= 2^24 and 2^q * r is exact in double; converting it to float is
     * exact, or overflows to inf exactly when the unbounded-exponent
     * rounding reached 2^128, which is IEEE's overflow rule under RN. */
    return (float)ldexp((double)(uint64_t)r, q);
}

/* Bit k of a magnitude made of 32-bit digits (0 outside). */
static int mag_bit(const uint64_t *mag, int nd, int k) {
    if (k < 0 || k >= 32 * nd) return 0;
    return (int)((mag[k >> 5] >> (k & 31)) & 1);
}

float kul_round(const kul_acc *a, int *is_zero) {
    if (is_zero) *is_zero = 0;
    if (a->nslow == 0) {
        __int128 w = (__int128)a->win;
        if (w == 0) {
            if (is_zero) *is_zero = 1;
            return 0.0f;
        }
        unsigned __int128 u = w < 0 ? (unsigned __int128)(-w) : (unsigned __int128)w;
        float f = round_u128(u, a->lsb);
        return w < 0 ? -f : f;
    }
    /* Merge the window into a copy of the digits, propagate carries. */
    int64_t d[KUL_DIGITS + 2];
    memcpy(d, a->dig, sizeof a->dig);
    d[KUL_DIGITS] = d[KUL_DIGITS + 1] = 0;
    __int128 w = (__int128)a->win;
    /* w in three 48-bit chunks (the top one signed) at lsb, lsb+48, lsb+96 */
    for (int c = 0; c < 3; c++) {
        __int128 chunk;
        if (c < 2) {
            chunk = (__int128)((unsigned __int128)w & (((unsigned __int128)1 << 48) - 1));
            w = (w - chunk) >> 48;
        } else {
            chunk = w;
        }
        if (chunk) dig_add(d, chunk, a->lsb + 48 * c - KUL_EMIN);
    }
    for (int i = 0; i < KUL_DIGITS + 1; i++) {
        int64_t carry = d[i] >> 32; /* arithmetic: floor division */
        d[i] -= carry * ((int64_t)1 << 32);
        d[i + 1] += carry;
    }
    int neg = d[KUL_DIGITS + 1] < 0;
    uint64_t mag[KUL_DIGITS + 2];
    /* two's complement negate if negative: mag = -value */
    int64_t borrow = 0;
    for (int i = 0; i < KUL_DIGITS + 2; i++) {
        int64_t v = d[i] & 0xffffffff;
        if (neg) {
            int64_t t = -v - borrow; /* digit of 0 - value */
            borrow = t < 0;
            mag[i] = (uint64_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
        } else {
            mag[i] = (uint64_t)v;
        }
    }
    int nd = KUL_DIGITS + 2, hb = -1;
    for (int i = nd - 1; i >= 0 && hb < 0; i--)
        if (mag[i]) hb = 32 * i + 63 - __builtin_clzll(mag[i]);
    if (hb < 0) {
        if (is_zero) *is_zero = 1;
        return 0.0f;
    }
    int E = KUL_EMIN + hb;
    int q = E - 23;
    if (q < -149) q = -149;
    int qk = q - KUL_EMIN; /* bit index of the last kept bit, >= 149 */
    uint64_t r = 0;
    for (int k = hb; k >= qk; k--) r = (r << 1) | (uint64_t)mag_bit(mag, nd, k);
    int rb = mag_bit(mag, nd, qk - 1), sticky = 0;
    for (int k = qk - 2; k >= 0 && !sticky; k--) sticky = mag_bit(mag, nd, k);
    if (rb && (sticky || (r & 1))) r++;
    float f = (float)ldexp((double)r, q);
    return neg ? -f : f;
}
