/*
 * test_reference.c — proofs for the MPFR reference engine (reference/).
 *
 *   kulisch / fp32cr  the exact accumulator and the correctly rounded
 *                     element-wise ops against MPFR, bit for bit, on random
 *                     and adversarial data (cancellation, subnormals, values
 *                     near FLT_MAX, exact ties, signed zeros);
 *   xacc              the exact mode's 256-bit window dot product against an
 *                     exact MPFR sum, within its stated bound;
 *   hand cases        a 3x3 convolution, a 4-wide dense layer and a softmax
 *                     over 3 logits whose exact answers are written here;
 *   engine            fp32cr layer by layer equals exact MPFR rounded once
 *                     (real FashionMNIST batch); P and 2P agree to P-16 bits;
 *                     a high-precision finite-difference gradient check of a
 *                     whole network (with dropout); results independent of
 *                     the thread count; the cpu engine within the a-priori
 *                     fp32 bound of the reference, layer by layer.
 *
 * Reference values in MPFR are computed here independently of the engine:
 * exact sums at 1200 bits (every sum of fp32 products fits in < 600 bits),
 * transcendental values at 2000 bits, then one mpfr_get_flt(RNDN).
 * Not here: speed (tests/bench_reference.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/data.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "engine_reference.h"
#include "fp32cr.h"
#include "kulisch.h"
#include "model/model.h"
#include "base/util.h"
#include "xacc.h"

/* ---- helpers --------------------------------------------------------------- */

static uint64_t g_rs = 0x9E3779B97F4A7C15ull;
static uint64_t xr(void) {
    g_rs ^= g_rs << 13;
    g_rs ^= g_rs >> 7;
    g_rs ^= g_rs << 17;
    return g_rs;
}
static float f_of_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, 4);
    return f;
}
static uint32_t bits_of(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}
/* a random finite float of one of several kinds */
static float rand_float(int kind) {
    uint32_t b = (uint32_t)xr();
    switch (kind) {
    case 0: return (float)((double)(int32_t)b / 2147483648.0);                        /* [-1, 1) */
    case 1: return f_of_bits((b & 0x807fffffu) | ((uint32_t)(xr() % 3) << 23));       /* subnormal / tiny */
    case 2: return f_of_bits((b & 0x807fffffu) | ((uint32_t)(250 + xr() % 5) << 23)); /* near FLT_MAX */
    default: {
        float f = f_of_bits(b);
        return isfinite(f) ? f : 1.5f;
    }
    }
}

/* MPFR: the exact sum of products a[i]*b[i] (+ bias), rounded once to fp32. */
static float mp_dot_cr(const float *a, const float *b, int n, const float *bias) {
    int nt = n + (bias ? 1 : 0);
    mpfr_t *p = malloc((size_t)nt * sizeof *p);
    mpfr_ptr *pp = malloc((size_t)nt * sizeof *pp);
    for (int i = 0; i < n; i++) {
        mpfr_init2(p[i], 48); /* a product of two 24-bit significands is exact in 48 bits */
        mpfr_set_flt(p[i], a[i], MPFR_RNDN);
        mpfr_mul_d(p[i], p[i], (double)b[i], MPFR_RNDN);
        pp[i] = p[i];
    }
    if (bias) {
        mpfr_init2(p[n], 24);
        mpfr_set_flt(p[n], *bias, MPFR_RNDN);
        pp[n] = p[n];
    }
    mpfr_t r;
    mpfr_init2(r, 1200);
    mpfr_sum(r, pp, (unsigned long)nt, MPFR_RNDN); /* exact at 1200 bits */
    float f = mpfr_get_flt(r, MPFR_RNDN);
    /* second route, IEEE emulation: round to 24 bits in the binary32
     * exponent range and subnormalize; both must agree */
    mpfr_t s;
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    mpfr_init2(s, 24);
    int t = mpfr_sum(s, pp, (unsigned long)nt, MPFR_RNDN);
    t = mpfr_check_range(s, t, MPFR_RNDN);
    mpfr_subnormalize(s, t, MPFR_RNDN);
    float g = mpfr_get_flt(s, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    assert_true(bits_of(f) == bits_of(g));
    mpfr_clears(r, s, (mpfr_ptr)0);
    for (int i = 0; i < nt; i++) mpfr_clear(p[i]);
    free(p);
    free(pp);
    return f;
}

static float kul_dot(const float *a, const float *b, int n, int *slow) {
    kfl *ka = malloc((size_t)n * sizeof *ka), *kb = malloc((size_t)n * sizeof *kb);
    int ea, eb;
    assert_int_equal(kfl_split(ka, a, (size_t)n, &ea), 0);
    assert_int_equal(kfl_split(kb, b, (size_t)n, &eb), 0);
    kul_acc k;
    kul_init(&k, ea + eb, (size_t)n);
    for (int i = 0; i < n; i++) kul_mac(&k, ka[i], kb[i]);
    int z;
    float f = kul_round(&k, &z);
    if (z) { /* IEEE / mpfr_sum: an exact zero is -0 only if every term is -0 */
        int neg = 1;
        for (int i = 0; i < n; i++) neg &= (a[i] == 0 || b[i] == 0) && signbit(a[i]) != signbit(b[i]);
        if (neg) f = -0.0f;
    }
    *slow += k.nslow > 0;
    free(ka);
    free(kb);
    return f;
}

/* ---- the exact accumulator ------------------------------------------------- */

static void test_kulisch_random(void **st) {
    int slow = 0, n_cases = 0;
    for (int it = 0; it < 6000; it++) {
        int n = 1 + (int)(xr() % 40);
        float a[48], b[48];
        int ka = (int)(xr() % 4);
        for (int i = 0; i < n; i++) {
            a[i] = rand_float(ka);
            b[i] = rand_float((int)(xr() % 4));
        }
        if (it % 3 == 0 && n > 2) { /* cancellation: the first term removed again */
            a[n - 1] = -a[0];
            b[n - 1] = b[0];
        }
        float f = kul_dot(a, b, n, &slow), g = mp_dot_cr(a, b, n, NULL);
        if (bits_of(f) != bits_of(g)) fail_msg("case %d (n %d): kulisch %a, MPFR %a", it, n, f, g);
        n_cases++;
    }
    /* the slow path (terms far below the window) must have been exercised */
    assert_true(slow > 100);
    printf("      %d random dot products equal MPFR bit for bit (%d used the slow digits)\n", n_cases, slow);
}

/* One case: terms (a[i], b[i]) and the float the exact sum must round to. */
static void check_case(const char *what, const float *a, const float *b, int n, float want) {
    int slow = 0;
    float f = kul_dot(a, b, n, &slow), g = mp_dot_cr(a, b, n, NULL);
    if (bits_of(g) != bits_of(want)) fail_msg("%s: MPFR gives %a, the hand answer is %a", what, g, want);
    if (bits_of(f) != bits_of(want)) fail_msg("%s: kulisch gives %a, want %a", what, f, want);
}

static void test_kulisch_adversarial(void **st) {
    const float u = 0x1p-24f, one = 1.0f, min_sub = 0x1p-149f;
    /* exact ties, to even: 1 + 2^-24 -> 1;  1 + 3*2^-24 -> 1 + 2^-22 */
    { float a[] = {one, u}, b[] = {one, one}; check_case("tie down to even", a, b, 2, one); }
    { float a[] = {one, 3 * u}, b[] = {one, one}; check_case("tie up to even", a, b, 2, 1.0f + 0x1p-22f); }
    /* a tie decided by a term 2^-200 far below: sticky bit */
    { float a[] = {one, u, 0x1p-100f}, b[] = {one, one, 0x1p-100f};
      check_case("tie broken by a tiny term", a, b, 3, 1.0f + 0x1p-23f); }
    { float a[] = {one, u, -0x1p-100f}, b[] = {one, one, 0x1p-100f};
      check_case("tie broken downward", a, b, 3, one); }
    /* subnormal ties: 2^-150 -> 0 (even), 3*2^-150 -> 2^-148 */
    { float a[] = {0x1p-75f}, b[] = {0x1p-75f}; check_case("half of min subnormal", a, b, 1, 0.0f); }
    { float a[] = {0x1p-75f, 0x1p-74f}, b[] = {0x1p-75f, 0x1p-75f};
      check_case("1.5 min subnormal", a, b, 2, 2 * min_sub); }
    /* a product of two subnormals (2^-298) alone rounds to zero, with the sign */
    { float a[] = {-min_sub}, b[] = {min_sub}; check_case("negative underflow", a, b, 1, -0.0f); }
    /* subnormal result out of cancellation of normal terms */
    { float a[] = {0x1.000002p-63f, -0x1p-63f}, b[] = {0x1p-63f, 0x1p-63f};
      check_case("cancellation to a subnormal", a, b, 2, 0x1p-149f); }
    /* near FLT_MAX: FLT_MAX + half an ulp is a tie, and FLT_MAX's last bit is
     * odd, so it rounds to 2^128 = overflow (inf); just below stays FLT_MAX */
    { float a[] = {FLT_MAX, 0x1p103f}, b[] = {one, one}; check_case("overflow tie", a, b, 2, INFINITY); }
    { float a[] = {FLT_MAX, 0x1p102f}, b[] = {one, one}; check_case("below overflow", a, b, 2, FLT_MAX); }
    { float a[] = {FLT_MAX, FLT_MAX, -FLT_MAX}, b[] = {one, one, one};
      check_case("intermediate beyond FLT_MAX", a, b, 3, FLT_MAX); }
    { float a[] = {0x1p127f, -0x1p127f}, b[] = {0x1p100f, 0x1p100f};
      check_case("huge products cancel", a, b, 2, 0.0f); }
    /* massive cancellation: 1e30 - 1e30 + 1 + 2^-30 */
    { float a[] = {1e30f, -1e30f, one, 0x1p-30f}, b[] = {1e8f, 1e8f, one, one};
      check_case("massive cancellation", a, b, 4, 1.0f); }
    /* signed zeros: all -0 terms give -0; -0 + +0 gives +0; exact cancellation +0 */
    { float a[] = {-0.0f, 0.0f}, b[] = {1.0f, -1.0f}; check_case("all terms -0", a, b, 2, -0.0f); }
    { float a[] = {-0.0f, 0.0f}, b[] = {1.0f, 1.0f}; check_case("-0 + +0", a, b, 2, 0.0f); }
    { float a[] = {-2.0f, 2.0f}, b[] = {3.0f, 3.0f}; check_case("exact cancellation", a, b, 2, 0.0f); }
    /* many equal terms: 2^20 copies of (1 + 2^-23) * 2^-20 -> exact 1 + 2^-23 */
    {
        int n = 1 << 20;
        float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
        for (int i = 0; i < n; i++) {
            a[i] = 1.0f + 0x1p-23f;
            b[i] = 0x1p-20f;
        }
        int slow = 0;
        float f = kul_dot(a, b, n, &slow);
        assert_true(bits_of(f) == bits_of(1.0f + 0x1p-23f));
        free(a);
        free(b);
    }
}

/* ---- correctly rounded element-wise ops ----------------------------------- */

/* MPFR at 2000 bits, rounded once: the exact Adam element of fp32 inputs */
static void mp_adam(float p, float m, float v, float g, const adam_scalars *s, float *po, float *mo, float *vo) {
    mpfr_t a, b, t;
    mpfr_inits2(2000, a, b, t, (mpfr_ptr)0);
    mpfr_set_flt(a, s->beta1, MPFR_RNDN);
    mpfr_mul_d(a, a, (double)m, MPFR_RNDN);
    mpfr_set_flt(b, s->one_minus_beta1, MPFR_RNDN);
    mpfr_mul_d(b, b, (double)g, MPFR_RNDN);
    mpfr_add(a, a, b, MPFR_RNDN);
    float mn = mpfr_get_flt(a, MPFR_RNDN);
    if (mpfr_zero_p(a)) mn = (signbit(m) && signbit(g)) ? -0.0f : 0.0f;
    mpfr_set_flt(a, s->beta2, MPFR_RNDN);
    mpfr_mul_d(a, a, (double)v, MPFR_RNDN);
    mpfr_set_flt(b, g, MPFR_RNDN);
    mpfr_sqr(b, b, MPFR_RNDN);
    mpfr_mul_d(b, b, (double)s->one_minus_beta2, MPFR_RNDN);
    mpfr_add(a, a, b, MPFR_RNDN);
    float vn = mpfr_get_flt(a, MPFR_RNDN);
    mpfr_set_flt(a, vn, MPFR_RNDN);
    mpfr_sqrt(a, a, MPFR_RNDN);
    mpfr_div_d(a, a, (double)s->bc2_sqrt, MPFR_RNDN);
    mpfr_add_d(a, a, (double)s->eps, MPFR_RNDN);
    mpfr_set_flt(b, mn, MPFR_RNDN);
    mpfr_div(b, b, a, MPFR_RNDN);
    mpfr_mul_d(b, b, (double)s->step_size, MPFR_RNDN);
    mpfr_set_flt(t, p, MPFR_RNDN);
    mpfr_sub(t, t, b, MPFR_RNDN);
    *po = mpfr_get_flt(t, MPFR_RNDN);
    *mo = mn;
    *vo = vn;
    mpfr_clears(a, b, t, (mpfr_ptr)0);
}

static void test_fp32cr_adam(void **st) {
    adam_cfg cfg = adam_default();
    int mism = 0, fallback_cases = 0;
    for (int it = 0; it < 20000; it++) {
        adam_scalars s = adam_make_scalars(&cfg, 1 + (int)(xr() % 2000));
        float p = rand_float((int)(xr() % 2) ? 0 : 3), g = rand_float((int)(xr() % 2));
        float m = rand_float(0) * 1e-2f, v = fabsf(rand_float(0)) * 1e-4f;
        switch (it % 8) { /* adversarial: zeros, subnormal g, p tiny vs the step */
        case 1: g = 0.0f; m = 0.0f; v = 0.0f; break;
        case 2: g = rand_float(1); break;
        case 3: p = 0x1p-30f; break;
        case 4: p = (float)(s.step_size * 1.0); m = 1e-3f; break;
        case 5: g = -0.0f; m = -0.0f; break;
        default: break;
        }
        float pa = p, ma = m, va = v, pb, mb, vb;
        fcr_adam(&pa, &ma, &va, g, &s);
        mp_adam(p, m, v, g, &s, &pb, &mb, &vb);
        if (bits_of(pa) != bits_of(pb) || bits_of(ma) != bits_of(mb) || bits_of(va) != bits_of(vb)) {
            if (mism++ < 5)
                printf("      adam mismatch p %a m %a v %a g %a: (%a %a %a) vs MPFR (%a %a %a)\n", p, m, v, g, pa, ma,
                       va, pb, mb, vb);
        }
        /* the MPFR-only path must agree too (it is what the fast path falls back to) */
        float pm = fcr_adam_param_mpfr(p, mb, vb, s.step_size, s.bc2_sqrt, s.eps);
        if (bits_of(pm) != bits_of(pb)) mism++;
        fallback_cases += bits_of(fcr_adam_v_mpfr(v, g, s.beta2, s.one_minus_beta2)) == bits_of(vb);
    }
    assert_int_equal(mism, 0);
    assert_int_equal(fallback_cases, 20000);
}

/* an exact tie for p: p - u with u chosen so that the exact result is a
 * float midpoint (only possible when every operation is exact: v = 0,
 * eps = 1, bc2 = 1, m and step size powers of two) */
static void test_fp32cr_adam_tie(void **st) {
    adam_scalars s = {0.5f, 0.5f, 0.5f, 0.5f, 0x1p-24f, 1.0f, 1.0f, {0, 0, 0, 0}, 1};
    float p = 1.0f, m = 2.0f, v = 0.0f, g = 0.0f;
    /* m' = 0.5*2 = 1, v' = 0, p' = 1 - 2^-24 * 1 / (0 + 1): exact, representable */
    fcr_adam(&p, &m, &v, g, &s);
    assert_true(p == 1.0f - 0x1p-24f);
    /* p = 1 + 2^-23 (odd last bit), u = 2^-24 * 1 -> exact 1 + 2^-24: a tie,
     * to even -> 1 */
    p = 1.0f + 0x1p-23f; m = 2.0f; v = 0.0f;
    fcr_adam(&p, &m, &v, g, &s);
    assert_true(bits_of(p) == bits_of(1.0f));
}

static void test_fp32cr_dropout(void **st) {
    float ps[] = {0.5f, 0.25f, 0.3f, 0.1f, 0.9f};
    for (size_t k = 0; k < LS_ARRAY_LEN(ps); k++)
        for (int it = 0; it < 2000; it++) {
            float x = rand_float((int)(xr() % 4));
            float got = fcr_dropout_scale(x, ps[k]);
            mpfr_t a, d;
            mpfr_inits2(2000, a, d, (mpfr_ptr)0);
            mpfr_set_ui(d, 1, MPFR_RNDN);
            mpfr_sub_d(d, d, (double)ps[k], MPFR_RNDN);
            mpfr_set_flt(a, x, MPFR_RNDN);
            mpfr_div(a, a, d, MPFR_RNDN);
            float want = mpfr_get_flt(a, MPFR_RNDN);
            mpfr_clears(a, d, (mpfr_ptr)0);
            if (bits_of(got) != bits_of(want)) fail_msg("dropout p %g x %a: %a vs MPFR %a", ps[k], x, got, want);
        }
}

/* softmax-CE of fp32 logits, each output rounded once, against MPFR at 2000
 * bits (the chance that a value lies within 2^-1970 of a midpoint is nil) */
static void test_fp32cr_softmax(void **st) {
    enum { N = 64, C = 10 };
    float z[N * C], dz[N * C], loss;
    int32_t y[N];
    for (int i = 0; i < N; i++) {
        y[i] = (int32_t)(xr() % C);
        for (int j = 0; j < C; j++) {
            float v = rand_float(0) * 8.0f;
            if (i % 4 == 1) v = 1.0f;                   /* all equal: softmax exactly 1/C */
            if (i % 4 == 2 && j == 3) v = 80.0f;        /* one dominant logit: tiny exps */
            if (i % 4 == 3) v = rand_float(0) * 1e-6f;  /* near-equal logits */
            z[i * C + j] = v;
        }
    }
    assert_int_equal(fcr_softmax_xent(z, y, N, C, dz, &loss), 0);
    mpfr_t s, e, t, tot;
    mpfr_inits2(2000, s, e, t, tot, (mpfr_ptr)0);
    mpfr_set_zero(tot, 1);
    for (int i = 0; i < N; i++) {
        mpfr_set_zero(s, 1);
        for (int j = 0; j < C; j++) {
            mpfr_set_flt(e, z[i * C + j], MPFR_RNDN);
            mpfr_exp(e, e, MPFR_RNDN);
            mpfr_add(s, s, e, MPFR_RNDN);
        }
        for (int j = 0; j < C; j++) {
            mpfr_set_flt(e, z[i * C + j], MPFR_RNDN);
            mpfr_exp(e, e, MPFR_RNDN);
            mpfr_div(t, e, s, MPFR_RNDN);
            if (j == y[i]) mpfr_sub_ui(t, t, 1, MPFR_RNDN);
            mpfr_div_ui(t, t, N, MPFR_RNDN);
            float want = mpfr_get_flt(t, MPFR_RNDN);
            if (bits_of(want) != bits_of(dz[i * C + j]))
                fail_msg("softmax row %d col %d: %a vs MPFR %a", i, j, dz[i * C + j], want);
        }
        mpfr_log(t, s, MPFR_RNDN);
        mpfr_add(tot, tot, t, MPFR_RNDN);
        mpfr_sub_d(tot, tot, (double)z[i * C + y[i]], MPFR_RNDN);
    }
    mpfr_div_ui(tot, tot, N, MPFR_RNDN);
    float want = mpfr_get_flt(tot, MPFR_RNDN);
    assert_true(bits_of(want) == bits_of(loss));
    mpfr_clears(s, e, t, tot, (mpfr_ptr)0);
}

/* Rows whose label leads every other logit by D far beyond 5678 = 8192 ln 2
 * (the softmax's Ziv loop's last precision) and beyond MPFR's exp range
 * (~7.4e8): the exact values are decided though no interval end resolves
 * exp(-D).  For D >= 105, 0 < 1 - p_y = sum_{k != y} e^(z_k - z_y) / s
 * <= (C - 1) e^-D < 2^-150, so RN((p_y - 1)/n) = -0 (a negative value below
 * half the smallest subnormal), RN(p_k / n) = +0, and a row's loss
 * log(1 + sum_{k != y} e^(z_k - z_y)) lies in (0, 2^-150).  The old loop
 * never decided the label's sign of zero ([-0, +0]) and stopped with "did
 * not converge (non-finite logits?)".  Checked against MPFR at 2000 bits
 * with the widest exponent range (2^(+-2^62)), in forms without cancellation
 * (dz_y = -(sum_{k != y} e_k / s) / n, loss_row = log1p(sum_{k != y} ...)),
 * so that even an underflowed term keeps its sign. */
static void softmax_want(const float *z, const int32_t *y, int n, int c, float *dz, float *loss) {
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max()); /* e^(z_k - z_y) up to e^1e9 when the label trails */
    mpfr_t s, r, e, t, tot;
    mpfr_inits2(2000, s, r, e, t, tot, (mpfr_ptr)0);
    mpfr_set_zero(tot, 1);
    for (int i = 0; i < n; i++) {
        const float *zi = z + (size_t)i * c;
        int yi = y[i];
        /* s = sum_k e^(z_k - z_y), r = s - 1 (the terms k != y): both > 0 */
        mpfr_set_zero(r, 1);
        for (int k = 0; k < c; k++) {
            if (k == yi) continue;
            mpfr_set_flt(e, zi[k], MPFR_RNDN);
            mpfr_sub_d(e, e, (double)zi[yi], MPFR_RNDN); /* exact: two fp32 at 2000 bits */
            mpfr_exp(e, e, MPFR_RNDN);
            mpfr_add(r, r, e, MPFR_RNDN);
        }
        mpfr_add_ui(s, r, 1, MPFR_RNDN);
        for (int k = 0; k < c; k++) {
            if (k == yi) {
                mpfr_div(t, r, s, MPFR_RNDN);
                mpfr_neg(t, t, MPFR_RNDN);
            } else {
                mpfr_set_flt(e, zi[k], MPFR_RNDN);
                mpfr_sub_d(e, e, (double)zi[yi], MPFR_RNDN);
                mpfr_exp(e, e, MPFR_RNDN);
                mpfr_div(t, e, s, MPFR_RNDN);
            }
            mpfr_div_ui(t, t, (unsigned long)n, MPFR_RNDN);
            dz[(size_t)i * c + k] = mpfr_get_flt(t, MPFR_RNDN);
        }
        mpfr_log1p(t, r, MPFR_RNDN);
        mpfr_add(tot, tot, t, MPFR_RNDN);
    }
    mpfr_div_ui(tot, tot, (unsigned long)n, MPFR_RNDN);
    *loss = mpfr_get_flt(tot, MPFR_RNDN);
    mpfr_clears(s, r, e, t, tot, (mpfr_ptr)0);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
}

static void test_fp32cr_softmax_label_far_ahead(void **st) {
    enum { N = 6, C = 10 };
    float z[N * C], dz[N * C], want[N * C], loss, want_loss;
    int32_t y[N] = {2, 7, 0, 4, 1, 9};
    for (int i = 0; i < N; i++)
        for (int j = 0; j < C; j++) z[i * C + j] = rand_float(0) * 8.0f;
    for (int j = 0; j < C; j++) {
        z[0 * C + j] = j == 2 ? 5e8f : -5e8f;         /* D = 1e9: exp underflows in MPFR */
        z[1 * C + j] = j == 7 ? 1e30f : (float)j;     /* D = 1e30 */
        z[2 * C + j] = j == 0 ? 1e4f : -0.5f * j;     /* D ~ 1e4: past 8192 ln 2 */
        z[3 * C + j] = j == 5 ? 1e9f : 0.0f;          /* another class leads: dz_y = -1/n */
    }
    assert_int_equal(fcr_softmax_xent(z, y, N, C, dz, &loss), 0);
    softmax_want(z, y, N, C, want, &want_loss);
    for (int k = 0; k < N * C; k++)
        if (bits_of(want[k]) != bits_of(dz[k]))
            fail_msg("softmax row %d col %d: %a vs MPFR %a", k / C, k % C, dz[k], want[k]);
    assert_true(bits_of(want_loss) == bits_of(loss));
    /* the hand-written answers of the comment above */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < C; j++)
            assert_true(bits_of(dz[i * C + j]) == bits_of(j == y[i] ? -0.0f : 0.0f));
    assert_true(dz[3 * C + 4] == -1.0f / N && dz[3 * C + 5] == 1.0f / N);

    /* a batch of such rows only: loss +0 (positive, below 2^-150) */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fcr_softmax_xent(z + i * C, y + i, 1, C, dz, &loss), 0);
        assert_true(bits_of(loss) == bits_of(0.0f));
        assert_true(bits_of(dz[y[i]]) == bits_of(-0.0f));
    }

    /* non-finite logits are still refused, and said to be */
    z[1 * C + 3] = INFINITY;
    assert_int_not_equal(fcr_softmax_xent(z, y, N, C, dz, &loss), 0);
    assert_non_null(strstr(ls_errmsg(), "non-finite logit"));
}

/* ---- the exact mode's window dot product ----------------------------------- */

static void test_xacc(void **st) {
    /* K random P-bit terms (P = 64 and 128, wide exponent spread, heavy
     * cancellation), window sum vs the exact sum: error below the bound
     * K * 2^L of xacc.h, and the rounded results agree to P - 1 bits */
    int precs[] = {64, 128};
    for (int pi = 0; pi < 2; pi++) {
        mpfr_prec_t P = precs[pi];
        for (int it = 0; it < 300; it++) {
            int K = 1 + (int)(xr() % 300);
            __mpfr_struct *a = malloc((size_t)K * sizeof *a), *b = malloc((size_t)K * sizeof *b);
            mpfr_ptr *pp = malloc((size_t)K * sizeof *pp);
            mpfr_t *pr = malloc((size_t)K * sizeof *pr);
            for (int i = 0; i < K; i++) {
                mpfr_init2(&a[i], P);
                mpfr_init2(&b[i], P);
                mpfr_set_d(&a[i], (double)rand_float(0), MPFR_RNDN);
                mpfr_sqrt_ui(&b[i], 2 + (unsigned long)(xr() % 1000), MPFR_RNDN); /* full P-bit significands */
                mpfr_mul_2si(&b[i], &b[i], (long)(xr() % 80) - 40, MPFR_RNDN);
                if (xr() % 2) mpfr_neg(&b[i], &b[i], MPFR_RNDN);
                if (it % 2 && i == K - 1 && K > 1) { /* cancel the first term */
                    mpfr_neg(&a[i], &a[0], MPFR_RNDN);
                    mpfr_set(&b[i], &b[0], MPFR_RNDN);
                }
                if (xr() % 7 == 0) mpfr_set_zero(&a[i], 1);
                mpfr_init2(pr[i], 2 * P);
                mpfr_mul(pr[i], &a[i], &b[i], MPFR_RNDN); /* exact */
                pp[i] = pr[i];
            }
            xfl *xa = malloc((size_t)K * sizeof *xa), *xb = malloc((size_t)K * sizeof *xb);
            int ea, eb;
            assert_int_equal(xfl_split(xa, a, (size_t)K, &ea), 0);
            assert_int_equal(xfl_split(xb, b, (size_t)K, &eb), 0);
            xacc acc;
            xacc_init(&acc, ea + eb, (size_t)K);
            for (int i = 0; i < K; i++) xacc_mac(&acc, &xa[i], &xb[i]);
            mpz_t z;
            mpz_init(z);
            mpfr_t got, exact, d, bound;
            mpfr_inits2(2000, got, exact, d, bound, (mpfr_ptr)0);
            xacc_get(got, &acc, z); /* at 2000 bits: the window itself, unrounded */
            mpfr_sum(exact, pp, (unsigned long)K, MPFR_RNDN);
            mpfr_sub(d, got, exact, MPFR_RNDN);
            mpfr_abs(d, d, MPFR_RNDN);
            mpfr_set_ui_2exp(bound, (unsigned long)K, acc.L, MPFR_RNDN); /* K * 2^L */
            if (mpfr_cmp(d, bound) > 0) fail_msg("xacc error above K*2^L (P %ld, K %d)", (long)P, K);
            /* and that bound is below 2^-200 of the largest term bound 2^(ea+eb) */
            assert_true(acc.L + xacc_bitlen((size_t)K) - (ea + eb) <= -200);
            mpfr_clears(got, exact, d, bound, (mpfr_ptr)0);
            mpz_clear(z);
            for (int i = 0; i < K; i++) {
                mpfr_clear(&a[i]);
                mpfr_clear(&b[i]);
                mpfr_clear(pr[i]);
            }
            free(a);
            free(b);
            free(pp);
            free(pr);
            free(xa);
            free(xb);
        }
    }
}

/* ---- hand cases with exact answers ---------------------------------------------- */

static engine *make_engine(const char *spec, const model *m, size_t batch) {
    engine *e = NULL;
    engine_opts o = {42, batch, 0};
    int rc = engine_create(&e, spec, m, &o);
    if (rc) fail_msg("engine_create(%s): %s", spec, ls_errmsg());
    return e;
}

static void test_hand_conv(void **st) {
    /* 3x3 input (1..9)/8, Sobel-x kernel / 4, bias 1/2, padding 1: every
     * output is exact in fp32 and in MPFR; worked out by hand (fractions) */
    model m;
    assert_int_equal(model_parse_spec(&m, "input 1 3 3; conv 1 3 pad 1; flatten; dense 2", "hand"), 0);
    float params[64] = {0};
    const float w[9] = {0.25f, 0, -0.25f, 0.5f, 0, -0.5f, 0.25f, 0, -0.25f};
    memcpy(params + m.tensors[0].offset, w, sizeof w);
    params[m.tensors[1].offset] = 0.5f;
    float x[9];
    for (int i = 0; i < 9; i++) x[i] = (float)(i + 1) / 8.0f;
    int32_t lab[1] = {0};
    const double want[9] = {7.0 / 32, 5.0 / 16, 25.0 / 32, -1.0 / 8, 1.0 / 4, 9.0 / 8, -5.0 / 32, 5.0 / 16, 37.0 / 32};
    const char *specs[] = {"reference:threads=1", "reference:mode=fp32cr:threads=1", "reference:prec=256:threads=1"};
    for (size_t k = 0; k < LS_ARRAY_LEN(specs); k++) {
        engine *e = make_engine(specs[k], &m, 1);
        assert_int_equal(engine_set_params(e, params), 0);
        assert_int_equal(engine_set_batch(e, x, lab, 1, 0), 0);
        assert_int_equal(engine_forward_layer(e, 0, 1), 0);
        double y[9];
        assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_ACT, 0}, y), 0);
        for (int i = 0; i < 9; i++)
            if (y[i] != want[i]) fail_msg("%s: conv output %d = %.17g, want %.17g", specs[k], i, y[i], want[i]);
        engine_free(e);
    }
}

static void test_hand_dense_softmax(void **st) {
    /* x = (1, -2, 1/2, 3), a 3x4 weight matrix and bias of small dyadic
     * numbers: logits (0, -3/8, 15/4) exactly.  For label 1 the softmax,
     * loss and logit gradient (batch 1) are, to 40 digits (Python Decimal):
     *   softmax = 0.02262015023562587642925449280983617135919,
     *             0.01554658674158674845247531464676109957626,
     *             0.9618332630227873751182701925434027290644
     *   loss    = 4.163914166599778596571781917054931356286            */
    model m;
    assert_int_equal(model_parse_spec(&m, "input 4 1 1; flatten; dense 3", "hand"), 0);
    float params[15];
    const float W[12] = {0.5f, 0.25f, -1.0f, 0.125f, -0.25f, 0.5f, 0.5f, 0.25f, 1.0f, -0.5f, 0.0f, 0.5f};
    const float b[3] = {0.125f, -0.125f, 0.25f};
    memcpy(params, W, sizeof W);
    memcpy(params + 12, b, sizeof b);
    float x[4] = {1.0f, -2.0f, 0.5f, 3.0f};
    int32_t lab[1] = {1};
    const char *sm_txt[3] = {"0.02262015023562587642925449280983617135919",
                             "0.01554658674158674845247531464676109957626",
                             "0.9618332630227873751182701925434027290644"};
    const char *loss_txt = "4.163914166599778596571781917054931356286";
    const char *specs[] = {"reference:threads=1", "reference:mode=fp32cr:threads=1"};
    for (size_t k = 0; k < LS_ARRAY_LEN(specs); k++) {
        int cr = k == 1;
        engine *e = make_engine(specs[k], &m, 1);
        assert_int_equal(engine_set_params(e, params), 0);
        assert_int_equal(engine_set_batch(e, x, lab, 1, 0), 0);
        assert_int_equal(engine_forward(e, 1), 0);
        double z[3];
        assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_ACT, 1}, z), 0);
        assert_true(z[0] == 0.0 && z[1] == -0.375 && z[2] == 3.75);
        float loss;
        assert_int_equal(engine_loss(e, &loss), 0);
        double dz[3], l64;
        assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_DACT, 1}, dz), 0);
        assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_LOSS, 0}, &l64), 0);
        mpfr_t r;
        mpfr_init2(r, 140);
        for (int j = 0; j < 3; j++) {
            mpfr_set_str(r, sm_txt[j], 10, MPFR_RNDN);
            if (j == 1) mpfr_sub_ui(r, r, 1, MPFR_RNDN);
            /* exact mode: the double read-out of a 128-bit value is the
             * correct rounding of a number within 2^-120 relative of the
             * truth, so it equals the double rounding of the 40-digit
             * constant (checked: none of these lies near a double
             * midpoint).  fp32cr: the float is the correct rounding. */
            double want = cr ? (double)mpfr_get_flt(r, MPFR_RNDN) : mpfr_get_d(r, MPFR_RNDN);
            if (dz[j] != want) fail_msg("%s: dz[%d] = %.17g, want %.17g", specs[k], j, dz[j], want);
        }
        mpfr_set_str(r, loss_txt, 10, MPFR_RNDN);
        double wl = cr ? (double)mpfr_get_flt(r, MPFR_RNDN) : mpfr_get_d(r, MPFR_RNDN);
        if (l64 != wl) fail_msg("%s: loss %.17g, want %.17g", specs[k], l64, wl);
        assert_true(loss == mpfr_get_flt(r, MPFR_RNDN));
        /* dense backward: dW[o][i] = dz[o] * x[i], db = dz (x is exact) */
        assert_int_equal(engine_backward(e), 0);
        double g[15];
        assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_GRADS, 0}, g), 0);
        for (int o = 0; o < 3; o++) {
            mpfr_set_str(r, sm_txt[o], 10, MPFR_RNDN);
            if (o == 1) mpfr_sub_ui(r, r, 1, MPFR_RNDN);
            for (int i = 0; i < 4; i++) {
                mpfr_t t;
                mpfr_init2(t, 140);
                mpfr_mul_d(t, r, (double)x[i], MPFR_RNDN);
                /* fp32cr: the correct rounding of the product of its fp32
                 * inputs fl(dz) * x (exact in double, rounded once) */
                double want = cr ? (double)(float)((double)mpfr_get_flt(r, MPFR_RNDN) * x[i]) : mpfr_get_d(t, MPFR_RNDN);
                if (g[o * 4 + i] != want) fail_msg("%s: dW[%d][%d] = %.17g, want %.17g", specs[k], o, i, g[o * 4 + i], want);
                mpfr_clear(t);
            }
            double want = cr ? (double)mpfr_get_flt(r, MPFR_RNDN) : mpfr_get_d(r, MPFR_RNDN);
            assert_true(g[12 + o] == want);
        }
        mpfr_clear(r);
        engine_free(e);
    }
}

/* ---- engine-level proofs on real data ----------------------------------------- */

static dataset g_data;
static int g_have_data;

static int group_setup(void **st) {
    g_have_data = access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) == 0 &&
                  dataset_load(&g_data, DATA_DEFAULT_DIR, 10) == 0;
    return 0;
}
static int group_teardown(void **st) {
    if (g_have_data) dataset_free(&g_data);
    return 0;
}

static void real_batch(size_t first, size_t n, float *x, int32_t *y) {
    data_make_batch(&g_data.train, NULL, first, n, x, y);
}

/* fp32cr, layer by layer: each output, gradient and loss equals the exact
 * result of the same fp32 inputs rounded once.  The exact results come from
 * the exact engine at 1200 bits (its mpfr_fma accumulator then holds every
 * sum of fp32 products exactly; the softmax is within 2^-1100 of exact). */
/* Bitwise, except the sign of an exact zero: the exact engine's MPFR
 * accumulator starts from +0 (exact mathematics has no signed zero), while
 * fp32cr applies the IEEE / mpfr_sum rule (-0 when every term is -0), which
 * test_kulisch_adversarial checks bit for bit against mpfr_sum. */
static int same_cr(float a, float b) { return bits_of(a) == bits_of(b) || (a == 0 && b == 0); }

static void layers_equal_mpfr(const char *model_name) {
    model m;
    assert_int_equal(model_build(&m, model_name), 0);
    enum { N = 3 };
    float *x = malloc(N * 784 * sizeof *x), *params = malloc(m.n_params * sizeof *params);
    int32_t y[N];
    real_batch(100, N, x, y);
    model_init_params(&m, params, 42);
    engine *F = make_engine("reference:mode=fp32cr:threads=2", &m, N);
    engine *X = make_engine("reference:prec=1200:threads=2", &m, N);
    assert_int_equal(engine_set_params(F, params), 0);
    assert_int_equal(engine_set_params(X, params), 0);
    assert_int_equal(engine_set_batch(F, x, y, N, 1), 0);
    assert_int_equal(engine_set_batch(X, x, y, N, 1), 0);
    size_t big = N * 32 * 784;
    float *a = malloc(big * sizeof *a), *b = malloc(big * sizeof *b);
    float *ga = malloc(m.n_params * sizeof *ga), *gb = malloc(m.n_params * sizeof *gb);
    for (int l = 0; l < m.n_layers; l++) {
        if (l > 0) { /* X gets F's fp32 input to layer l */
            size_t n = tensor_numel(&m, (tensor_id){TENSOR_ACT, l - 1}, N);
            assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_ACT, l - 1}, a), 0);
            assert_int_equal(engine_set_tensor(X, (tensor_id){TENSOR_ACT, l - 1}, a), 0);
            (void)n;
        }
        assert_int_equal(engine_forward_layer(F, l, 1), 0);
        assert_int_equal(engine_forward_layer(X, l, 1), 0);
        size_t n = tensor_numel(&m, (tensor_id){TENSOR_ACT, l}, N);
        assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_ACT, l}, a), 0);
        assert_int_equal(engine_get_tensor(X, (tensor_id){TENSOR_ACT, l}, b), 0);
        for (size_t i = 0; i < n; i++)
            if (!same_cr(a[i], b[i])) fail_msg("forward %s [%zu]: fp32cr %a, MPFR %a", m.layers[l].name, i, a[i], b[i]);
    }
    int L = m.n_layers;
    float lf, lx;
    assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_ACT, L - 1}, a), 0);
    assert_int_equal(engine_set_tensor(X, (tensor_id){TENSOR_ACT, L - 1}, a), 0);
    assert_int_equal(engine_loss(F, &lf), 0);
    assert_int_equal(engine_loss(X, &lx), 0);
    assert_true(bits_of(lf) == bits_of(lx));
    for (int l = L - 1; l >= 0; l--) {
        size_t n = tensor_numel(&m, (tensor_id){TENSOR_DACT, l}, N);
        assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_DACT, l}, a), 0);
        assert_int_equal(engine_set_tensor(X, (tensor_id){TENSOR_DACT, l}, a), 0);
        if (l > 0) {
            assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_ACT, l - 1}, a), 0);
            assert_int_equal(engine_set_tensor(X, (tensor_id){TENSOR_ACT, l - 1}, a), 0);
        }
        (void)n;
        assert_int_equal(engine_backward_layer(F, l), 0);
        assert_int_equal(engine_backward_layer(X, l), 0);
        if (l > 0) {
            size_t ni = tensor_numel(&m, (tensor_id){TENSOR_DACT, l - 1}, N);
            assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_DACT, l - 1}, a), 0);
            assert_int_equal(engine_get_tensor(X, (tensor_id){TENSOR_DACT, l - 1}, b), 0);
            for (size_t i = 0; i < ni; i++)
                if (!same_cr(a[i], b[i]))
                    fail_msg("backward-data %s [%zu]: fp32cr %a, MPFR %a", m.layers[l].name, i, a[i], b[i]);
        }
    }
    assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_GRADS, 0}, ga), 0);
    assert_int_equal(engine_get_tensor(X, (tensor_id){TENSOR_GRADS, 0}, gb), 0);
    for (size_t i = 0; i < m.n_params; i++)
        if (!same_cr(ga[i], gb[i])) fail_msg("gradient [%zu]: fp32cr %a, MPFR %a", i, ga[i], gb[i]);
    /* Adam: every updated element against the MPFR formula of its fp32 inputs */
    adam_cfg cfg = adam_default();
    adam_scalars s = adam_make_scalars(&cfg, 1);
    assert_int_equal(engine_update(F, &cfg, 1), 0);
    float *pn = malloc(m.n_params * sizeof *pn), *mn = malloc(m.n_params * sizeof *mn), *vn = malloc(m.n_params * sizeof *vn);
    assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_PARAMS, 0}, pn), 0);
    assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_ADAM_M, 0}, mn), 0);
    assert_int_equal(engine_get_tensor(F, (tensor_id){TENSOR_ADAM_V, 0}, vn), 0);
    for (size_t i = 0; i < m.n_params; i++) {
        float p2, m2, v2;
        mp_adam(params[i], 0.0f, 0.0f, ga[i], &s, &p2, &m2, &v2);
        if (bits_of(p2) != bits_of(pn[i]) || bits_of(m2) != bits_of(mn[i]) || bits_of(v2) != bits_of(vn[i]))
            fail_msg("adam [%zu]: %a %a %a vs MPFR %a %a %a", i, pn[i], mn[i], vn[i], p2, m2, v2);
    }
    printf("      %s: fp32cr == MPFR correctly rounded: %d layers forward and backward, loss, %zu gradients, Adam\n",
           model_name, L, m.n_params);
    engine_free(F);
    engine_free(X);
    free(x); free(params); free(a); free(b); free(ga); free(gb); free(pn); free(mn); free(vn);
}

/* smallcnn, and mnist-convnet for unpadded convolutions and dropout */
static void test_fp32cr_layers_equal_mpfr(void **st) {
    if (!g_have_data) skip();
    layers_equal_mpfr("smallcnn");
    layers_equal_mpfr("mnist-convnet");
}

/* max_i |a_i - b_i| / max_i |b_i| as a power of two (-inf when equal) */
static double agree_log2(const __mpfr_struct *a, const __mpfr_struct *b, size_t n) {
    mpfr_t d, md, mb;
    mpfr_inits2(512, d, md, mb, (mpfr_ptr)0);
    mpfr_set_zero(md, 1);
    mpfr_set_zero(mb, 1);
    for (size_t i = 0; i < n; i++) {
        mpfr_sub(d, &a[i], &b[i], MPFR_RNDN);
        mpfr_abs(d, d, MPFR_RNDN);
        if (mpfr_cmp(d, md) > 0) mpfr_set(md, d, MPFR_RNDN);
        mpfr_abs(d, &b[i], MPFR_RNDN);
        if (mpfr_cmp(d, mb) > 0) mpfr_set(mb, d, MPFR_RNDN);
    }
    double r = -INFINITY;
    if (!mpfr_zero_p(md)) {
        mpfr_div(d, md, mb, MPFR_RNDN);
        mpfr_log2(d, d, MPFR_RNDN);
        r = mpfr_get_d(d, MPFR_RNDN);
    }
    mpfr_clears(d, md, mb, (mpfr_ptr)0);
    return r;
}

/* One training step (+ the next forward) at P and at 2P on 8 real images:
 * every tensor agrees to P-16 bits relative to the tensor's largest value.
 * Why 16: each stored value is the P-bit rounding (2^-P relative) of an
 * operation whose inputs carry the earlier roundings; through ~20 dependent
 * layer operations of a step the tensor-relative error grows by the layers'
 * condition numbers, which here stay far below the 2^16 allowed (the
 * measured margin is printed).  P = 64 and 128 use the window dot product
 * (xacc.h), 2P = 256 the mpfr_fma loops: two independent code paths. */
static void prec_pair(const char *spec_p, const char *spec_2p, long P) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    enum { N = 8 };
    float *x = malloc(N * 784 * sizeof *x), *params = malloc(m.n_params * sizeof *params);
    int32_t y[N], y2[N];
    real_batch(0, N, x, y);
    model_init_params(&m, params, 42);
    engine *A = make_engine(spec_p, &m, N), *B = make_engine(spec_2p, &m, N);
    adam_cfg cfg = adam_default();
    float *x2 = malloc(N * 784 * sizeof *x2);
    real_batch(N, N, x2, y2);
    engine *E[2] = {A, B};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(engine_set_params(E[k], params), 0);
        float loss;
        assert_int_equal(engine_train_step(E[k], x, y, N, 0, &cfg, 1, &loss), 0);
    }
    double worst = -INFINITY;
    char name[64], worst_name[64] = "";
    for (int pass = 0; pass < 2; pass++) {
        int L = m.n_layers;
        for (int kind = 0; kind < 8; kind++) {
            int nl = (kind == TENSOR_ACT || kind == TENSOR_DACT) ? L : 1;
            if (kind == TENSOR_INPUT) continue;
            if (pass == 1 && kind != TENSOR_ACT && kind != TENSOR_LOSS) continue;
            for (int l = 0; l < nl; l++) {
                tensor_id t = {(tensor_kind)kind, l};
                size_t na, nb;
                __mpfr_struct *a = engine_reference_mpfr(A, t, &na), *b = engine_reference_mpfr(B, t, &nb);
                assert_non_null(a);
                assert_non_null(b);
                assert_int_equal(na, nb);
                double r = agree_log2(a, b, na);
                snprintf(name, sizeof name, "%s %s%s", tensor_kind_name(t.kind), nl > 1 ? m.layers[l].name : "",
                         pass ? " (step 2)" : "");
                if (r > -(double)(P - 16)) fail_msg("P=%ld: %s agrees only to 2^%.1f", P, name, r);
                if (r > worst) {
                    worst = r;
                    snprintf(worst_name, sizeof worst_name, "%s", name);
                }
            }
        }
        if (pass == 0) /* step 2's forward on the updated parameters */
            for (int k = 0; k < 2; k++) {
                float loss;
                assert_int_equal(engine_set_batch(E[k], x2, y2, N, 1), 0);
                assert_int_equal(engine_forward(E[k], 1), 0);
                assert_int_equal(engine_loss(E[k], &loss), 0);
            }
    }
    printf("      P=%ld vs 2P: worst tensor agreement 2^%.1f of its max (%s); required 2^-%ld\n", P, worst, worst_name,
           P - 16);
    engine_free(A);
    engine_free(B);
    free(x); free(x2); free(params);
}

static void test_prec_doubling(void **st) {
    if (!g_have_data) skip();
    prec_pair("reference:prec=128:threads=2", "reference:prec=256:threads=2", 128);
    prec_pair("reference:prec=64:threads=2", "reference:prec=128:threads=2", 64);
}

/* Central differences at 256 bits, h = 2^-40, for every parameter of a small
 * network with conv, relu, maxpool, dropout and two dense layers.
 * Tolerance: the truncation error is h^2/6 |L'''| ~ 2^-80 * |L'''| (with
 * |L'''| << 2^10 for a softmax-CE of logits linear in one parameter, it is
 * below 1e-21) and the rounding error 2^-250/h ~ 2^-210; 1e-18 absolute
 * leaves a 1000x margin and is 10^-15 of the gradients' size. */
static void test_finite_differences(void **st) {
    model m;
    assert_int_equal(model_parse_spec(&m, "input 1 6 6; conv 2 3 pad 1; relu; maxpool; flatten; dropout 0.5; "
                                          "dense 5; relu; dense 3", "fd"), 0);
    enum { N = 3 };
    float x[N * 36];
    int32_t y[N] = {0, 2, 1};
    for (int i = 0; i < N * 36; i++) x[i] = (float)(xr() % 256) / 255.0f;
    float *params = malloc(m.n_params * sizeof *params);
    model_init_params(&m, params, 7);
    engine *e = make_engine("reference:prec=256:threads=1", &m, N);
    assert_int_equal(engine_set_params(e, params), 0);
    assert_int_equal(engine_set_batch(e, x, y, N, 3), 0);
    float loss;
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, &loss), 0);
    assert_int_equal(engine_backward(e), 0);
    size_t np, ng, nl;
    __mpfr_struct *p = engine_reference_mpfr(e, (tensor_id){TENSOR_PARAMS, 0}, &np);
    __mpfr_struct *g = engine_reference_mpfr(e, (tensor_id){TENSOR_GRADS, 0}, &ng);
    __mpfr_struct *L = engine_reference_mpfr(e, (tensor_id){TENSOR_LOSS, 0}, &nl);
    mpfr_t save, lp, lm, fd, gsave;
    mpfr_inits2(256, save, lp, lm, fd, (mpfr_ptr)0);
    mpfr_init2(gsave, 256);
    double worst = 0, gmax = 0;
    for (size_t i = 0; i < np; i++) {
        mpfr_set(gsave, &g[i], MPFR_RNDN);
        mpfr_set(save, &p[i], MPFR_RNDN);
        mpfr_add_d(&p[i], save, 0x1p-40, MPFR_RNDN);
        assert_int_equal(engine_forward(e, 1), 0);
        assert_int_equal(engine_loss(e, &loss), 0);
        mpfr_set(lp, L, MPFR_RNDN);
        mpfr_sub_d(&p[i], save, 0x1p-40, MPFR_RNDN);
        assert_int_equal(engine_forward(e, 1), 0);
        assert_int_equal(engine_loss(e, &loss), 0);
        mpfr_set(lm, L, MPFR_RNDN);
        mpfr_set(&p[i], save, MPFR_RNDN);
        mpfr_sub(fd, lp, lm, MPFR_RNDN);
        mpfr_mul_2si(fd, fd, 39, MPFR_RNDN); /* / (2h) */
        mpfr_sub(fd, fd, gsave, MPFR_RNDN);
        double d = fabs(mpfr_get_d(fd, MPFR_RNDN)), gv = fabs(mpfr_get_d(gsave, MPFR_RNDN));
        if (d > worst) worst = d;
        if (gv > gmax) gmax = gv;
        if (d > 1e-18) fail_msg("parameter %zu: finite difference off by %.3g (gradient %.6g)", i, d, gv);
    }
    assert_true(gmax > 1e-3); /* the check is not vacuous */
    printf("      %zu parameters: |finite difference - gradient| <= %.2g (gradients up to %.3g)\n", np, worst, gmax);
    mpfr_clears(save, lp, lm, fd, gsave, (mpfr_ptr)0);
    engine_free(e);
    free(params);
}

/* Results do not depend on the thread count (each output is computed whole
 * by one thread, in a fixed order): bitwise, both modes. */
static void test_threads_bitwise(void **st) {
    if (!g_have_data) skip();
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    enum { N = 4 };
    float *x = malloc(N * 784 * sizeof *x), *params = malloc(m.n_params * sizeof *params);
    int32_t y[N];
    real_batch(40, N, x, y);
    model_init_params(&m, params, 42);
    adam_cfg cfg = adam_default();
    const char *pairs[2][2] = {{"reference:mode=fp32cr:threads=1", "reference:mode=fp32cr:threads=2"},
                               {"reference:threads=1", "reference:threads=2"}};
    for (int k = 0; k < 2; k++) {
        double *r[2];
        for (int j = 0; j < 2; j++) {
            engine *e = make_engine(pairs[k][j], &m, N);
            assert_int_equal(engine_set_params(e, params), 0);
            float loss;
            assert_int_equal(engine_train_step(e, x, y, N, 0, &cfg, 1, &loss), 0);
            r[j] = malloc(m.n_params * sizeof(double));
            assert_int_equal(engine_get_tensor_f64(e, (tensor_id){TENSOR_PARAMS, 0}, r[j]), 0);
            engine_free(e);
        }
        assert_memory_equal(r[0], r[1], m.n_params * sizeof(double));
        free(r[0]);
        free(r[1]);
    }
    free(x);
    free(params);
}

/* The cpu engine, each layer fed the reference's input rounded to fp32 (and
 * the reference fed the same fp32 values, so both compute the same
 * mathematical function): for conv and dense outputs
 *     |y_cpu - y_ref| <= gamma_K * (|b| + sum |w||x|),  gamma_K = K u / (1 - K u),
 * u = 2^-24, K = C k k + 1 terms (bias included): the standard a-priori
 * bound for a length-K dot product in fp32 in any order, with or without
 * FMA (Higham, Accuracy and Stability, 3.1).  ReLU, max-pool and flatten
 * are exact in fp32: bitwise equal. */
static void test_cpu_within_bound(void **st) {
    if (!g_have_data) skip();
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    enum { N = 8 };
    float *x = malloc(N * 784 * sizeof *x), *params = malloc(m.n_params * sizeof *params);
    int32_t y[N];
    real_batch(200, N, x, y);
    model_init_params(&m, params, 42);
    engine *C = NULL;
    engine_opts o = {42, N, 0};
    if (engine_create(&C, "cpu:threads=1", &m, &o)) skip(); /* no cpu engine in this build */
    engine *R = make_engine("reference:threads=2", &m, N);
    assert_int_equal(engine_set_params(C, params), 0);
    assert_int_equal(engine_set_params(R, params), 0);
    assert_int_equal(engine_set_batch(C, x, y, N, 0), 0);
    assert_int_equal(engine_set_batch(R, x, y, N, 0), 0);
    size_t big = N * 16 * 784;
    float *in = malloc(big * sizeof *in), *yc = malloc(big * sizeof *yc);
    double *yr = malloc(big * sizeof *yr), *ri = malloc(big * sizeof *ri);
    const double u = 0x1p-24;
    for (int l = 0; l < m.n_layers; l++) {
        const layer *ly = &m.layers[l];
        size_t ni = N * layer_in_size(ly), no = N * layer_out_size(ly);
        if (l == 0) {
            memcpy(in, x, ni * sizeof *in);
        } else {
            assert_int_equal(engine_get_tensor_f64(R, (tensor_id){TENSOR_ACT, l - 1}, ri), 0);
            for (size_t i = 0; i < ni; i++) in[i] = (float)ri[i];
            assert_int_equal(engine_set_tensor(C, (tensor_id){TENSOR_ACT, l - 1}, in), 0);
            assert_int_equal(engine_set_tensor(R, (tensor_id){TENSOR_ACT, l - 1}, in), 0);
        }
        assert_int_equal(engine_forward_layer(C, l, 1), 0);
        assert_int_equal(engine_forward_layer(R, l, 1), 0);
        assert_int_equal(engine_get_tensor(C, (tensor_id){TENSOR_ACT, l}, yc), 0);
        assert_int_equal(engine_get_tensor_f64(R, (tensor_id){TENSOR_ACT, l}, yr), 0);
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) {
            for (size_t i = 0; i < no; i++)
                if (bits_of(yc[i]) != bits_of((float)yr[i])) fail_msg("%s [%zu]: cpu %a, exact %a", ly->name, i, yc[i], yr[i]);
            continue;
        }
        int k = ly->kind == LAYER_CONV ? ly->k : 1, pad = ly->kind == LAYER_CONV ? ly->pad : 0;
        int Cc = ly->in_c, H = ly->in_h, W = ly->in_w, O = ly->out_c, OH = ly->out_h, OW = ly->out_w;
        size_t K = (size_t)Cc * k * k + 1;
        double gam = K * u / (1 - K * u), worst = 0;
        const float *w = params + m.tensors[ly->w_tensor].offset, *b = params + m.tensors[ly->b_tensor].offset;
        for (int n = 0; n < N; n++)
            for (int oc = 0; oc < O; oc++)
                for (int i = 0; i < OH; i++)
                    for (int j = 0; j < OW; j++) {
                        double S = fabs((double)b[oc]); /* sum of |terms|, each product exact in double */
                        for (int c = 0; c < Cc; c++)
                            for (int ky = 0; ky < k; ky++)
                                for (int kx = 0; kx < k; kx++) {
                                    int iy = i + ky - pad, ix = j + kx - pad;
                                    if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                                    S += fabs((double)w[((oc * Cc + c) * k + ky) * k + kx] *
                                              in[((size_t)(n * Cc + c) * H + iy) * W + ix]);
                                }
                        size_t idx = (((size_t)n * O + oc) * OH + i) * OW + j;
                        /* S summed in double: relative error < K 2^-53, covered by the factor 1.001 */
                        double bound = gam * S * 1.001, err = fabs((double)yc[idx] - yr[idx]);
                        if (err > bound) fail_msg("%s [%zu]: |cpu - exact| = %.3g > bound %.3g", ly->name, idx, err, bound);
                        if (bound > 0 && err / bound > worst) worst = err / bound;
                    }
        printf("      %-6s K=%-5zu worst |cpu - exact| / (gamma_K sum|w||x|) = %.4f\n", ly->name, K, worst);
    }
    engine_free(C);
    engine_free(R);
    free(x); free(params); free(in); free(yc); free(yr); free(ri);
}

/* Max-pool ties: the reference routes the gradient to the first maximum of
 * the window in row-major order; oneDNN (the cpu engine) must route the
 * same way on windows with 2-, 3- and 4-way ties (zeros after ReLU too). */
static void test_maxpool_ties_match_cpu(void **st) {
    model m;
    assert_int_equal(model_parse_spec(&m, "input 2 4 4; relu; maxpool; flatten; dense 3", "ties"), 0);
    const float xin[32] = {1, 1, 2, 2, 1, 1, 2, 0, 0, 0, 3, 3, 0, 0, 3, 3,
                           -1, -1, 5, 4, -2, -3, 5, 5, 7, 1, 0, 2, 1, 7, 2, 0};
    float *params = malloc(m.n_params * sizeof *params);
    model_init_params(&m, params, 3);
    int32_t y[1] = {2};
    engine *C = NULL;
    engine_opts o = {42, 1, 0};
    if (engine_create(&C, "cpu:threads=1", &m, &o)) skip();
    engine *R = make_engine("reference:mode=fp32cr:threads=1", &m, 1);
    float gc[32], gr[32];
    engine *E[2] = {C, R};
    float *G[2] = {gc, gr};
    for (int k = 0; k < 2; k++) {
        float loss;
        assert_int_equal(engine_set_params(E[k], params), 0);
        assert_int_equal(engine_set_batch(E[k], xin, y, 1, 0), 0);
        assert_int_equal(engine_forward(E[k], 1), 0);
        assert_int_equal(engine_loss(E[k], &loss), 0);
        assert_int_equal(engine_backward(E[k]), 0);
        assert_int_equal(engine_get_tensor(E[k], (tensor_id){TENSOR_DACT, 0}, G[k]), 0);
    }
    /* the routing: the same elements receive a gradient (the values
     * themselves differ in the last bits: the dense layer's backward-data
     * before the pool is rounded differently) */
    for (int i = 0; i < 32; i++)
        if ((gc[i] != 0) != (gr[i] != 0)) fail_msg("pool gradient [%d]: cpu %a, reference %a", i, gc[i], gr[i]);
    /* and the routing is the first maximum: window (0,0) is all ones */
    assert_true(gr[0] != 0 && gr[1] == 0 && gr[4] == 0 && gr[5] == 0);
    engine_free(C);
    engine_free(R);
    free(params);
}

static void test_knobs(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine *e = NULL;
    engine_opts o = {42, 2, 0};
    /* a bad value worded as every engine's (engine.c engine_spec_choice, engine_cpu.c's threads=): it said
     * "reference: mode must be exact or fp32cr, got 'fast'" */
    static const char *bad[][2] = {
        {"reference:mode=fast",
         "engine reference:mode=fast: unknown value 'fast' for knob mode (known: exact, fp32cr)"},
        {"reference:tf32=yes", "engine reference:tf32=yes: unknown value 'yes' for knob tf32 (known: off, on)"},
        {"reference:tf32=on:tf32round=up",
         "engine reference:tf32=on:tf32round=up: unknown value 'up' for knob tf32round (known: rna, rne, rz)"},
        {"reference:prec=8", "engine reference:prec=8: bad value '8' for knob prec (expected a count of bits from 24 "
                             "to 65536)"},
        {"reference:threads=0", "engine reference:threads=0: bad value '0' for knob threads (expected a count from 1 "
                                "to 1024)"},
        {"reference:colour=red", "engine reference:colour=red: unknown knob 'colour' (known: mode, prec, threads, "
                                 "tf32, tf32round)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(engine_create(&e, bad[i][0], &m, &o), LS_EINVAL);
        assert_null(e);
        if (strcmp(ls_errmsg(), bad[i][1])) fail_msg("%s: '%s', want '%s'", bad[i][0], ls_errmsg(), bad[i][1]);
    }
    assert_int_equal(engine_create(&e, "reference:mode=fp32cr:threads=1", &m, &o), 0);
    char *d = engine_describe(e);
    assert_non_null(d);
    assert_non_null(strstr(d, "\"fp32cr\""));
    free(d);
    assert_null(engine_reference_mpfr(e, (tensor_id){TENSOR_PARAMS, 0}, &(size_t){0}));
    engine_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kulisch_random),
        cmocka_unit_test(test_kulisch_adversarial),
        cmocka_unit_test(test_fp32cr_adam),
        cmocka_unit_test(test_fp32cr_adam_tie),
        cmocka_unit_test(test_fp32cr_dropout),
        cmocka_unit_test(test_fp32cr_softmax),
        cmocka_unit_test(test_fp32cr_softmax_label_far_ahead),
        cmocka_unit_test(test_xacc),
        cmocka_unit_test(test_hand_conv),
        cmocka_unit_test(test_hand_dense_softmax),
        cmocka_unit_test(test_knobs),
        cmocka_unit_test(test_maxpool_ties_match_cpu),
        cmocka_unit_test(test_fp32cr_layers_equal_mpfr),
        cmocka_unit_test(test_prec_doubling),
        cmocka_unit_test(test_finite_differences),
        cmocka_unit_test(test_threads_bitwise),
        cmocka_unit_test(test_cpu_within_bound),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
