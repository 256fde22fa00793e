/*
 * adam_bound.h — the fp32 error bound of one Adam element (ops_adam_elem's
 * update of p, m, v), and the ratio of an engine's update to it.
 *
 * The derivation is checks/bounds.c's (bounds_adam, which loops over this
 * body).  It lives here, below the engines, because the every-step Adam
 * re-check (engines/checksums.c adam_recheck) must pick, of the elements
 * that differ from ops_adam_elem, the one furthest over its bound: the judge
 * (checks/checksums.c) bounds only the element the vector carries.  Picked
 * by ULP distance instead (before zoo attack 10), a legal evaluation order's
 * many-ulp difference where the bound is wide (p' near 0, m' with
 * cancellation) was carried and a few-ulp violation elsewhere was not seen.
 *
 * LS_HD (base/rng.h): the CUDA kernels pick ADAMW's element with it too.
 * Not here: loops, the overflow exactness rule's bookkeeping (bounds.c).
 */
#ifndef LS_ADAM_BOUND_H
#define LS_ADAM_BOUND_H

#include <math.h>

#include "base/ops_elem.h"

/* Whether ops_adam_elem's v' overflows fp32 (bounds.c: then p' and v' get
 * an exactness rule, bound 0); its p' and v' in want_p, want_v. */
LS_HD int ops_adam_v_overflows(float p, float m, float v, float g, float b1, float omb1, float b2, float omb2,
                                       float step, float bc2_sqrt, float eps, float *want_p, float *want_v) {
    float pp = p, mm = m, vv = v;
    ops_adam_elem(&pp, &mm, &vv, g, b1, omb1, b2, omb2, step, bc2_sqrt, eps);
    if (want_p) *want_p = pp;
    if (want_v) *want_v = vv;
    return isinf(vv);
}

/* The bounds of p', m', v' for one element from (p, m, v, g) and the fp32
 * scalars; vs_exact: against the exact mathematics with the double settings
 * (each fp32 constant one more rounding), else against the exact evaluation
 * with these fp32 constants.  bounds.c, bounds_adam, has the derivation. */
LS_HD void ops_adam_elem_bound(float p, float m, float v, float g, float b1, float omb1, float b2, float omb2,
                                       float step, float bc2_sqrt, float eps, int vs_exact, double *bp, double *bm,
                                       double *bv) {
    double u = 0x1p-24, k = vs_exact ? 1.0 : 0.0, eta = 0x1p-150;
    double b1m = fabs((double)b1 * m), o1g = fabs((double)omb1 * g);
    double b2v = fabs((double)b2 * v), o2g = (double)omb2 * (double)g * g;
    double mn = (double)b1 * m + (double)omb1 * g;
    double vn = b2v + o2g;
    /* m' in another legal order: PyTorch's m.lerp_(g, 1 - b1) = m + w (g - m) (w = omb1 < 0.5; at w >= 0.5,
     * g - (g - m)(1 - w), the roles of m and g swapped) rounds g - m, w (g - m) and the sum, and its m
     * coefficient is 1 - w, not b1 (|1 - w - b1| <= u (b1 + w), each rounded from one exact pair):
     * 2u w|g - m| + u|m'| + u(b1 + w)|m| <= 2u b1|m| + 3u w|g| + 3u w|m|, beyond ops_adam_elem's 2u(b1|m| + w|g|)
     * by u w|g| + 3u w|m|; against the exact constants (k) w (g - m) carries w's rounding, u w(|g| + |m|) more.
     * From m = 0 (the first step) g - m and the sum are exact and the lerp is one rounding, within ops' bound.
     * Measured without it: adam_pytorch_lerp 1.16 of the bound (zoo attack 10).  v' in PyTorch's order,
     * b2 v + ((1 - b2) g) g, has ops_adam_elem's three roundings on the same terms: within ev as it is.
     * At w >= 0.5 (beta1 < 0.5: a golden file's adam.beta1 may say so) the roles do not swap in the bound: m's
     * coefficient is still 1 - w (exact), not b1, and 1 - w is now the small one: |1 - w - b1| |m| + 2u(1 - w)
     * (|g| + |m|) + u|m'| exceeds ops' bound by (2 b1 + w) u|m| + max(0, 2 b1 - w) u|g| (against the exact
     * constants, k: u w (|g| + |m|) more, loosely), also at g = 0 (g - m exact, one rounding of (1 - w) m: the
     * coefficient's error stays; b1 = 0.1 reached 2.3 of the bound that swapped m and g,
     * test_adam_pytorch_order_small_beta1). */
    int lo = omb1 < 0.5f;
    double lerp = lo ? (m == 0.0f /* then g - m and the sum are exact: one rounding, as ops' */
                            ? 0.0
                            : (1 + k) * u * o1g + (3 + k) * u * fmin(fabs((double)omb1), fabs((double)b1)) * fabs((double)m))
                     : u * (2 * fabs((double)b1) + (1 + k) * fabs((double)omb1)) * fabs((double)m) +
                           u * (fmax(0.0, 2 * fabs((double)b1) - fabs((double)omb1)) + k * fabs((double)omb1)) *
                               fabs((double)g);
    double em = (2 + k) * u * (b1m + o1g) + lerp + 2 * eta, ev = (3 + k) * u * (b2v + o2g) + 3 * eta;
    double sq = sqrt(vn);
    double esq = u * sq + (sq > 0 ? fmin(sqrt(ev), ev / (2 * sq)) : sqrt(ev));
    double bc = bc2_sqrt, den = sq / bc + eps;
    double eden = esq / bc + u * sq / bc + eta + u * den + k * u * (sq / bc + eps);
    double q = mn / den;
    double eq = em / den + fabs(q) * eden / den + u * fabs(q) + eta;
    double upd = (double)step * q;
    double eupd = (double)step * eq + (1 + k) * u * fabs(upd) + eta;
    double pn = (double)p - upd;
    *bp = 1.01 * (eupd + u * fabs(pn)) + 0x1p-140;
    *bm = 1.01 * em + 0x1p-140;
    *bv = 1.01 * ev + 0x1p-140;
    if (ops_adam_v_overflows(p, m, v, g, b1, omb1, b2, omb2, step, bc2_sqrt, eps, NULL, NULL))
        *bp = *bv = 0.0; /* beyond fp32's range: the exactness rule (bounds.c) */
}

/* How far an engine's update (p1, m1, v1) of the element (p, m, v, g) is
 * from the exact evaluation with the same fp32 scalars, in units of its
 * bound (vs_exact 0), the worst of p', m', v'; a NaN is +inf. */
LS_HD double ops_adam_elem_ratio(float p, float m, float v, float g, float b1, float omb1, float b2, float omb2,
                                         float step, float bc2_sqrt, float eps, double p1, double m1, double v1) {
    double bp, bm, bv;
    ops_adam_elem_bound(p, m, v, g, b1, omb1, b2, omb2, step, bc2_sqrt, eps, 0, &bp, &bm, &bv);
    double me = (double)b1 * m + (double)omb1 * g;
    double ve = (double)b2 * v + (double)omb2 * ((double)g * g);
    double pe = (double)p - (double)step * (me / (sqrt(ve) / (double)bc2_sqrt + (double)eps));
    double rp = fabs(p1 - pe) / (bp + 0x1p-50 * fabs(pe)), rm = fabs(m1 - me) / (bm + 0x1p-50 * fabs(me));
    double rv = fabs(v1 - ve) / (bv + 0x1p-50 * fabs(ve)), r = fmax(rp, fmax(rm, rv));
    return r == r ? r : INFINITY;
}

#endif
