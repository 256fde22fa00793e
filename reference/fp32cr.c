/*
 * fp32cr.c — correctly rounded fp32 dropout scaling, Adam and softmax
 * cross-entropy for the reference engine's fp32cr mode (see fp32cr.h for
 * what "one operation" is).
 *
 * Rounding to fp32 from MPFR goes through mpfr_get_flt(x, MPFR_RNDN), which
 * rounds the full MPFR value once to binary32 (subnormals and overflow
 * included).  It is applied either to an exact value or to both ends of an
 * enclosing interval; when both ends give the same float, that float is the
 * correctly rounded exact value, because rounding is monotonic.
 *
 * Not here: dot products (kulisch.c).
 */
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "fp32cr.h"
#include "kulisch.h"
#include "base/util.h"

#define ZIV_PREC0 64
#define ZIV_PREC_MAX 8192

static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ---- dropout ----------------------------------------------------------- */

float fcr_dropout_scale(float x, float p) {
    mpfr_t omp, lo, hi;
    /* 1 - p is exact at 200 bits for any fp32 p in [0, 1) */
    mpfr_init2(omp, 200);
    mpfr_set_ui(omp, 1, MPFR_RNDN);
    mpfr_sub_d(omp, omp, (double)p, MPFR_RNDN);
    if (mpfr_cmp_ui_2exp(omp, 1, mpfr_get_exp(omp) - 1) == 0) {
        /* a power of two: x * 2^k is one IEEE multiply, correctly rounded */
        float s = (float)ldexp(1.0, 1 - (int)mpfr_get_exp(omp));
        mpfr_clear(omp);
        return x * s;
    }
    float r = 0.0f;
    for (mpfr_prec_t prec = ZIV_PREC0; prec <= ZIV_PREC_MAX; prec *= 2) {
        mpfr_inits2(prec, lo, hi, (mpfr_ptr)0);
        mpfr_set_flt(lo, x, MPFR_RNDN);
        mpfr_set_flt(hi, x, MPFR_RNDN);
        int t = mpfr_div(lo, lo, omp, MPFR_RNDD);
        mpfr_div(hi, hi, omp, MPFR_RNDU);
        float a = mpfr_get_flt(lo, MPFR_RNDN), b = mpfr_get_flt(hi, MPFR_RNDN);
        mpfr_clears(lo, hi, (mpfr_ptr)0);
        r = a;
        if (t == 0 || same_float(a, b)) break;
    }
    mpfr_clear(omp);
    return r;
}

/* ---- Adam ---------------------------------------------------------------- */

float fcr_adam_v_mpfr(float v, float g, float b2, float omb2) {
    /* b2*v + omb2*g*g is a dyadic rational with < 600 significant bits:
     * exact at 1200 bits, then rounded once */
    mpfr_t a, b;
    mpfr_inits2(1200, a, b, (mpfr_ptr)0);
    mpfr_set_flt(a, b2, MPFR_RNDN);
    mpfr_mul_d(a, a, (double)v, MPFR_RNDN);
    mpfr_set_flt(b, g, MPFR_RNDN);
    mpfr_sqr(b, b, MPFR_RNDN);
    mpfr_mul_d(b, b, (double)omb2, MPFR_RNDN);
    mpfr_add(a, a, b, MPFR_RNDN);
    float r = mpfr_get_flt(a, MPFR_RNDN);
    mpfr_clears(a, b, (mpfr_ptr)0);
    return r;
}

float fcr_adam_param_mpfr(float p, float mn, float vn, float ss, float bc, float eps) {
    float r = NAN;
    for (mpfr_prec_t prec = ZIV_PREC0; prec <= ZIV_PREC_MAX; prec *= 2) {
        mpfr_t dlo, dhi, qlo, qhi, t;
        mpfr_inits2(prec, dlo, dhi, qlo, qhi, t, (mpfr_ptr)0);
        /* den = sqrt(v) / bc + eps, increasing in every input: [dlo, dhi] */
        mpfr_set_flt(dlo, vn, MPFR_RNDN);
        mpfr_sqrt(dlo, dlo, MPFR_RNDD);
        mpfr_div_d(dlo, dlo, (double)bc, MPFR_RNDD);
        mpfr_add_d(dlo, dlo, (double)eps, MPFR_RNDD);
        mpfr_set_flt(dhi, vn, MPFR_RNDN);
        mpfr_sqrt(dhi, dhi, MPFR_RNDU);
        mpfr_div_d(dhi, dhi, (double)bc, MPFR_RNDU);
        mpfr_add_d(dhi, dhi, (double)eps, MPFR_RNDU);
        /* q = m / den: m >= 0 is largest over the smallest den */
        mpfr_set_flt(t, mn, MPFR_RNDN);
        if (mn >= 0) {
            mpfr_div(qlo, t, dhi, MPFR_RNDD);
            mpfr_div(qhi, t, dlo, MPFR_RNDU);
        } else {
            mpfr_div(qlo, t, dlo, MPFR_RNDD);
            mpfr_div(qhi, t, dhi, MPFR_RNDU);
        }
        /* u = ss * q (ss >= 0), then r = p - u: [p - uhi, p - ulo] */
        mpfr_mul_d(qlo, qlo, (double)ss, MPFR_RNDD);
        mpfr_mul_d(qhi, qhi, (double)ss, MPFR_RNDU);
        mpfr_set_flt(t, p, MPFR_RNDN);
        mpfr_sub(dlo, t, qhi, MPFR_RNDD);
        mpfr_sub(dhi, t, qlo, MPFR_RNDU);
        float a = mpfr_get_flt(dlo, MPFR_RNDN), b = mpfr_get_flt(dhi, MPFR_RNDN);
        /* When the interval collapsed to one point, everything was exact
         * (the only way an exact midpoint can arise): that point is the
         * value and its rounding is correct. */
        int exact = mpfr_equal_p(dlo, dhi);
        mpfr_clears(dlo, dhi, qlo, qhi, t, (mpfr_ptr)0);
        r = a;
        if (exact || same_float(a, b)) break;
    }
    return r;
}

/* Does [lo, hi] (doubles, lo <= hi) round to a single float? */
static int decided(double lo, double hi, float *out) {
    float a = (float)lo, b = (float)hi;
    if (!same_float(a, b)) return 0;
    *out = a;
    return 1;
}

void fcr_adam(float *p, float *m, float *v, float g, const adam_scalars *s) {
    /* m' = b1*m + omb1*g: two exact products, summed exactly */
    kul_acc k;
    kfl b1 = kfl_of(s->beta1, 0), omb1 = kfl_of(s->one_minus_beta1, 0);
    kfl km = kfl_of(*m, 0), kg = kfl_of(g, 0);
    kul_init(&k, 208, 2);
    kul_mac(&k, b1, km);
    kul_mac(&k, omb1, kg);
    int z;
    float mn = kul_round(&k, &z);
    if (z && (*m == 0 || s->beta1 == 0) && (g == 0 || s->one_minus_beta1 == 0) &&
        signbit(*m) != signbit(s->beta1) && signbit(g) != signbit(s->one_minus_beta1))
        mn = -0.0f; /* IEEE: an exact zero sum is -0 only when both terms are */

    /* v' = b2*v + omb2*g*g: both terms >= 0.  In double, b2*v and g*g are
     * exact, omb2*(g*g) and the sum each round once (relative error
     * <= 2^-53 each), so the exact value lies within |s| * 2^-51.9 of s;
     * the interval below is wider than that. */
    float vn;
    {
        double sd = (double)s->beta2 * (double)*v + (double)s->one_minus_beta2 * ((double)g * (double)g);
        if (sd == 0.0 && *v == 0 && !signbit(*v))
            vn = 0.0f; /* both terms are +0 (g*g is +0 even for g = -0): the sum is +0 */
        else if (!(sd > 0.0 && isfinite(sd)) ||
            !decided(sd * (1.0 - 0x1p-49), sd * (1.0 + 0x1p-49), &vn))
            vn = fcr_adam_v_mpfr(*v, g, s->beta2, s->one_minus_beta2);
    }

    /* p' = p - ss * m' / (sqrt(v') / bc + eps).  In double each of sqrt,
     * /, +(positive), /, * has relative error <= 2^-53, so u = ss*q is
     * within |u| * 5.01 * 2^-53 < |u| * 2^-50.6; the subtraction adds at
     * most |r| * 2^-53.  B below is more than twice that. */
    float pn;
    {
        double den = sqrt((double)vn) / (double)s->bc2_sqrt + (double)s->eps;
        double u = (double)s->step_size * ((double)mn / den);
        double r = (double)*p - u;
        double B = fabs(u) * 0x1p-49 + fabs(r) * 0x1p-51;
        if (!isfinite(r) || !isfinite(B) || r == 0.0 ||
            !decided(nextafter(r - B, -INFINITY), nextafter(r + B, INFINITY), &pn))
            pn = fcr_adam_param_mpfr(*p, mn, vn, s->step_size, s->bc2_sqrt, s->eps);
    }
    *p = pn;
    *m = mn;
    *v = vn;
}

/* ---- softmax cross-entropy ---------------------------------------------- */

/* One row at precision prec, interval arithmetic.  dlo/dhi get the bounds
 * of dz, llo/lhi (added to) the bounds of the row loss. */
static void row_interval(const float *z, int c, int y, size_t n, mpfr_prec_t prec, float *dlo, float *dhi,
                         mpfr_t llo, mpfr_t lhi) {
    float mx = z[0];
    for (int j = 1; j < c; j++) mx = z[j] > mx ? z[j] : mx;
    mpfr_t d, elo[c], ehi[c], slo, shi, a, b;
    mpfr_init2(d, 320); /* z_j - mx is exact at 320 bits (both fp32) */
    mpfr_inits2(prec, slo, shi, a, b, (mpfr_ptr)0);
    mpfr_set_zero(slo, 1);
    mpfr_set_zero(shi, 1);
    for (int j = 0; j < c; j++) {
        mpfr_inits2(prec, elo[j], ehi[j], (mpfr_ptr)0);
        mpfr_set_flt(d, z[j], MPFR_RNDN);
        mpfr_sub_d(d, d, (double)mx, MPFR_RNDN);
        mpfr_exp(elo[j], d, MPFR_RNDD);
        mpfr_exp(ehi[j], d, MPFR_RNDU);
        mpfr_add(slo, slo, elo[j], MPFR_RNDD);
        mpfr_add(shi, shi, ehi[j], MPFR_RNDU);
    }
    for (int j = 0; j < c; j++) {
        /* softmax_j in [elo / shi, ehi / slo]; minus onehot; / n */
        mpfr_div(a, elo[j], shi, MPFR_RNDD);
        mpfr_div(b, ehi[j], slo, MPFR_RNDU);
        if (j == y) {
            mpfr_sub_ui(a, a, 1, MPFR_RNDD);
            mpfr_sub_ui(b, b, 1, MPFR_RNDU);
        }
        mpfr_div_ui(a, a, (unsigned long)n, MPFR_RNDD);
        mpfr_div_ui(b, b, (unsigned long)n, MPFR_RNDU);
        dlo[j] = mpfr_get_flt(a, MPFR_RNDN);
        dhi[j] = mpfr_get_flt(b, MPFR_RNDN);
        /* a collapsed interval is an exact value: make both ends agree */
        if (mpfr_equal_p(a, b)) dhi[j] = dlo[j];
        /* The label's exact value is strictly negative when c >= 2: every
         * exp(z_k - mx) is > 0, so softmax_y = e_y / (e_y + sum_{k != y} e_k)
         * < 1.  Its interval's upper end can still be exactly 0: once
         * e^(z_k - mx) < 2^-prec (the label leading every other logit by more
         * than prec * ln 2, ~5678 at 8192 bits; or MPFR's exp underflowing,
         * beyond ~7.4e8), slo = 1 + sum elo_k rounded down is 1 and
         * ehi_y / slo - 1 = 0.  RN(0) is +0 and the lower end's RN is -0 once
         * it is above -2^-150: the ends never agree, though the value is
         * decided: a <= x < 0 and RN(a) = -0 give RN(x) = -0 (RN is monotonic,
         * and a nonzero value that rounds to zero keeps its sign).  So an
         * upper end of exactly 0 stands for 0^-.  The other classes need no
         * such rule: their exact value is > 0 and their lower end >= +0
         * (elo_j / shi, with elo_j = +0 where exp underflows), whose RN is
         * the +0 a tiny positive value rounds to. */
        if (j == y && c >= 2 && mpfr_zero_p(b)) dhi[j] = -0.0f;
    }
    /* loss_row = log(s) - (z_y - mx) */
    mpfr_set_flt(d, z[y], MPFR_RNDN);
    mpfr_sub_d(d, d, (double)mx, MPFR_RNDN);
    mpfr_log(a, slo, MPFR_RNDD);
    mpfr_sub(a, a, d, MPFR_RNDD);
    mpfr_log(b, shi, MPFR_RNDU);
    mpfr_sub(b, b, d, MPFR_RNDU);
    mpfr_add(llo, llo, a, MPFR_RNDD);
    mpfr_add(lhi, lhi, b, MPFR_RNDU);
    for (int j = 0; j < c; j++) mpfr_clears(elo[j], ehi[j], (mpfr_ptr)0);
    mpfr_clears(d, slo, shi, a, b, (mpfr_ptr)0);
}

int fcr_softmax_xent(const float *z, const int32_t *labels, size_t n, int c, float *dz, float *loss) {
    float dlo[c], dhi[c];
    int rc = LS_OK;
    /* Non-finite logits have no exact softmax to round: say so, by place.
     * With finite logits every row and the loss decide at some precision
     * (the values are transcendental or exact, and the one sign-of-zero
     * case is handled in row_interval), so a loop that runs out of bits
     * below is a bug of this file, reported as one. */
    for (size_t k = 0; k < n * (size_t)c; k++)
        if (!isfinite(z[k]))
            return ls_err(LS_ELIB, "reference fp32cr: softmax row %zu has a non-finite logit (class %zu: %g)",
                          k / (size_t)c, k % (size_t)c, (double)z[k]);
    for (mpfr_prec_t lp = ZIV_PREC0;; lp *= 2) {
        if (lp > ZIV_PREC_MAX)
            return ls_err(LS_ELIB, "reference fp32cr: softmax loss did not converge at %d bits (finite logits: a bug)",
                          (int)ZIV_PREC_MAX);
        mpfr_t llo, lhi;
        mpfr_inits2(lp + 64, llo, lhi, (mpfr_ptr)0);
        mpfr_set_zero(llo, 1);
        mpfr_set_zero(lhi, 1);
        for (size_t i = 0; i < n && rc == 0; i++) {
            /* each row: raise the precision until every dz is decided; the
             * loss interval uses the last (tightest) row evaluation */
            mpfr_t rl, rh;
            mpfr_inits2(lp + 64, rl, rh, (mpfr_ptr)0);
            for (mpfr_prec_t prec = lp;; prec *= 2) {
                if (prec > ZIV_PREC_MAX) {
                    rc = ls_err(LS_ELIB,
                                "reference fp32cr: softmax row %zu did not converge at %d bits (finite logits: a bug)",
                                i, (int)ZIV_PREC_MAX);
                    break;
                }
                mpfr_set_zero(rl, 1);
                mpfr_set_zero(rh, 1);
                row_interval(z + i * (size_t)c, c, labels[i], n, prec, dlo, dhi, rl, rh);
                int ok = 1;
                for (int j = 0; j < c; j++) ok &= same_float(dlo[j], dhi[j]);
                if (ok) break;
            }
            for (int j = 0; j < c; j++) dz[i * (size_t)c + j] = dlo[j];
            mpfr_add(llo, llo, rl, MPFR_RNDD);
            mpfr_add(lhi, lhi, rh, MPFR_RNDU);
            mpfr_clears(rl, rh, (mpfr_ptr)0);
        }
        if (rc) {
            mpfr_clears(llo, lhi, (mpfr_ptr)0);
            return rc;
        }
        mpfr_div_ui(llo, llo, (unsigned long)n, MPFR_RNDD);
        mpfr_div_ui(lhi, lhi, (unsigned long)n, MPFR_RNDU);
        /* Every row's loss log(sum_k exp(z_k - z_y)) is > 0 when c >= 2 (one
         * term is 1, the others are > 0), so the exact mean is > 0 and +0 is
         * a valid lower end.  Without this, rows whose label leads by more
         * than prec * ln 2 give log(slo) = log(1) = 0 and 0 - 0 rounded down
         * is -0: a lower end of -0 against an upper end that rounds to +0
         * would never decide, though a positive value below 2^-150 rounds
         * to +0. */
        if (c >= 2 && mpfr_sgn(llo) <= 0) mpfr_set_zero(llo, 1);
        float a = mpfr_get_flt(llo, MPFR_RNDN), b = mpfr_get_flt(lhi, MPFR_RNDN);
        int exact = mpfr_equal_p(llo, lhi);
        mpfr_clears(llo, lhi, (mpfr_ptr)0);
        if (exact || same_float(a, b)) {
            *loss = a;
            return LS_OK;
        }
    }
}
