/*
 * xacc.c — splitting MPFR numbers into two-limb significands and turning a
 * 256-bit window back into an MPFR number (xacc.h has the error bound).
 *
 * Not here: the accumulation loop (inline in xacc.h).
 */
#include "xacc.h"

size_t xfl_split(xfl *out, const __mpfr_struct *v, size_t n, int *emax) {
    size_t bad = 0;
    int em = -(1 << 28);
    for (size_t i = 0; i < n; i++) {
        const __mpfr_struct *x = &v[i];
        xfl r = {0, 0, 0, 0};
        if (mpfr_regular_p(x)) {
            const mp_limb_t *d = mpfr_custom_get_significand(x);
            /* the significand is normalised (top bit set) in ceil(p/64)
             * limbs; value = 0.d * 2^exp = (hi 2^64 + lo) 2^(exp - 128) */
            if (mpfr_get_prec(x) <= 64) {
                r.hi = d[0];
                r.lo = 0;
            } else {
                r.hi = d[1];
                r.lo = d[0];
            }
            r.e = (int32_t)(mpfr_get_exp(x) - 128);
            r.neg = mpfr_signbit(x) ? 1 : 0;
            if (r.e + 128 > em) em = r.e + 128;
        } else if (!mpfr_zero_p(x)) {
            bad++;
        }
        out[i] = r;
    }
    *emax = em;
    return bad;
}

void xacc_get(mpfr_ptr out, const xacc *a, mpz_t z) {
    uint64_t m[4];
    int neg = (int)(a->w[3] >> 63);
    if (neg) { /* magnitude = -w (two's complement) */
        unsigned __int128 c = 1;
        for (int i = 0; i < 4; i++) {
            c += (uint64_t)~a->w[i];
            m[i] = (uint64_t)c;
            c >>= 64;
        }
    } else {
        for (int i = 0; i < 4; i++) m[i] = a->w[i];
    }
    mpz_import(z, 4, -1, sizeof m[0], 0, 0, m);
    if (neg) mpz_neg(z, z);
    mpfr_set_z_2exp(out, z, a->L, MPFR_RNDN);
}
