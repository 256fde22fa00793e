/*
 * xacc.h — the exact mode's fast dot product for precisions up to 128 bits:
 * exact 256-bit products of two-limb MPFR significands, accumulated in a
 * 256-bit two's-complement fixed-point window, rounded once to P bits.
 *
 * Error bound (the only rounding besides the final one): the window's top
 * lies hb = bitlen(K) + 1 bits above the largest possible term 2^T (T =
 * max exponent of x + max exponent of y, products < 2^T), so it cannot
 * overflow; its lowest bit is 2^L with L = T + hb - 256.  Each product is
 * truncated (toward -inf) to a multiple of 2^L, so the computed sum differs
 * from the exact one by less than K * 2^L <= 2^(T - 256 + 2 hb), i.e. below
 * 2^-(256 - 2*21) = 2^-214 times the largest possible term for K < 2^20.
 * That is far below the P-bit (P <= 128) rounding of the result, and
 * smaller than a P+64-bit mpfr_fma accumulation would give.  MPFR's
 * mpfr_set_z_2exp then rounds the window once to the destination's P bits.
 *
 * Not here: precisions above 128 bits and non-finite values (the engine
 * uses plain mpfr_fma loops for those).
 */
#ifndef LS_XACC_H
#define LS_XACC_H

#include <stddef.h>
#include <stdint.h>

#include <gmp.h>
#include <mpfr.h>

/* value = (neg ? -1 : 1) * (hi * 2^64 + lo) * 2^e; zero has hi == lo == 0 */
typedef struct {
    uint64_t hi, lo;
    int32_t e, neg;
} xfl;

typedef struct {
    uint64_t w[4]; /* two's complement, value w * 2^L */
    int L;
} xacc;

/* Split n MPFR numbers of precision <= 128.  Returns the number of
 * non-finite ones.  *emax: the largest exponent e + 128 of a nonzero value
 * (so |value| < 2^emax); -2^28 if none. */
size_t xfl_split(xfl *out, const __mpfr_struct *v, size_t n, int *emax);

static inline int xacc_bitlen(size_t n) {
    int b = 0;
    while (n) { b++; n >>= 1; }
    return b;
}

/* For at most K terms, each below 2^T in magnitude. */
static inline void xacc_init(xacc *a, int T, size_t K) {
    a->w[0] = a->w[1] = a->w[2] = a->w[3] = 0;
    a->L = T + xacc_bitlen(K) + 1 - 256;
}

/* Add x * y, truncated to the window (see the bound above). */
static inline void xacc_mac(xacc *a, const xfl *x, const xfl *y) {
    if ((x->hi | x->lo) == 0 || (y->hi | y->lo) == 0) return;
    /* the exact 256-bit product p of the significands */
    unsigned __int128 ll = (unsigned __int128)x->lo * y->lo, lh = (unsigned __int128)x->lo * y->hi;
    unsigned __int128 hl = (unsigned __int128)x->hi * y->lo, hh = (unsigned __int128)x->hi * y->hi;
    /* in scalars, not arrays indexed by the shift: an indexed local array
     * lives on the stack (and under AddressSanitizer gets its redzones
     * poisoned and cleared at every call: 26% of an ASan reference audit) */
    uint64_t p0 = (uint64_t)ll;
    unsigned __int128 t = (ll >> 64) + (uint64_t)lh + (uint64_t)hl;
    uint64_t p1 = (uint64_t)t;
    t = (t >> 64) + (lh >> 64) + (hl >> 64) + (uint64_t)hh;
    uint64_t p2 = (uint64_t)t;
    uint64_t p3 = (uint64_t)((hh >> 64) + (t >> 64));
    /* value p * 2^(ex + ey); in window units shift right by s = L - ex - ey */
    int s = a->L - x->e - y->e;
    if (s >= 256) return; /* entirely below the window: < 2^L, within the bound */
    /* r = p >> s (s <= 0 cannot happen: s >= bitlen(K) + 1 by xacc_init;
     * kept for safety as no shift) */
    uint64_t r0 = p0, r1 = p1, r2 = p2, r3 = p3;
    if (s > 0) {
        int b = s & 63;
        switch (s >> 6) { /* whole limbs first */
        case 0: break;
        case 1: r0 = p1; r1 = p2; r2 = p3; r3 = 0; break;
        case 2: r0 = p2; r1 = p3; r2 = 0; r3 = 0; break;
        default: r0 = p3; r1 = 0; r2 = 0; r3 = 0; break;
        }
        if (b) {
            r0 = (r0 >> b) | (r1 << (64 - b));
            r1 = (r1 >> b) | (r2 << (64 - b));
            r2 = (r2 >> b) | (r3 << (64 - b));
            r3 = r3 >> b;
        }
    }
    unsigned __int128 c;
    if (x->neg == y->neg) {
        c = (unsigned __int128)a->w[0] + r0;
        a->w[0] = (uint64_t)c;
        c = (unsigned __int128)a->w[1] + r1 + (uint64_t)(c >> 64);
        a->w[1] = (uint64_t)c;
        c = (unsigned __int128)a->w[2] + r2 + (uint64_t)(c >> 64);
        a->w[2] = (uint64_t)c;
        a->w[3] = a->w[3] + r3 + (uint64_t)(c >> 64);
    } else {
        /* subtracting the truncated magnitude: the sum moves toward -inf
         * relative to exact, by less than 2^L, the same bound */
        c = (unsigned __int128)a->w[0] - r0;
        a->w[0] = (uint64_t)c;
        c = (unsigned __int128)a->w[1] - r1 - (uint64_t)((c >> 64) & 1);
        a->w[1] = (uint64_t)c;
        c = (unsigned __int128)a->w[2] - r2 - (uint64_t)((c >> 64) & 1);
        a->w[2] = (uint64_t)c;
        a->w[3] = a->w[3] - r3 - (uint64_t)((c >> 64) & 1);
    }
}

/* out = the window, rounded once (RN) to out's precision.  z is scratch. */
void xacc_get(mpfr_ptr out, const xacc *a, mpz_t z);

#endif
