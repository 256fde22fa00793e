/*
 * checksum_blank.h — the every-step vector's FWD_BLANK block of a conv
 * layer, piece by piece: the bodies that the CUDA kernels call per thread
 * and that a host loop calls in order (tests/test_cuda.c), so that both
 * give the host implementation's values (engines/checksums.c:
 * conv_blank_sample, and conv_groups' identical windows, whose hashes
 * ck_grp_mix, ck_grp_mix32 and ck_grp_bits are these).
 *
 * Per sample i, 4 doubles: the count of outputs (over channels) whose
 * window is all +-0 in every input channel (a blank window: key 0) and
 * that are not exactly their bias, the largest |y - b| among them (a
 * NaN: inf), the count of blank positions, and the identical windows'
 * term: windows are grouped by a 64-bit hash of their taps (per input
 * position a hash of its channels' bits, ck_grp_pos; per window a
 * weighted sum of its positions', ck_grp_key); the first CK_GRP_EXACT
 * groups of two or more windows, in the order of their first window
 * (row-major), are exact: each output of a group but its first gives
 * (|y_p - y_first| - 2 K 2^-149) / (2 S_g), S_g = |b| + sum over input
 * channels u of wsum[u] times the largest |x_u| of the first window
 * (wsum: the filter's sum of |w| over the channel's taps, in tap order);
 * the largest (a NaN, or S_g = 0 with a difference: inf) is the fourth
 * field.  Every count and maximum is independent of the order it is
 * taken in; S_g is summed in channel order.
 *
 * And the identical windows' term E of the conv forward and
 * backward-data relations' S (the sharper tier's; engines/checksums.c's
 * conv_groups derives it and calls these pieces, lk_ck_conv_grp calls
 * them per thread): the window maxima (ck_grp_win_max), S_g
 * (ck_grp_sg_mx), E in the host's order (ck_grp_e_add, ck_grp_e) and S'
 * (ck_grp_s); the groups in the kernels' way (ck_grp_list over
 * ck_grp_first; dy's windows through ck_grp_key_at with the taps
 * reversed).
 *
 * Plain NCHW / OIHW.  Not here: loops over samples, memory, verdicts.
 */
#ifndef LS_CHECKSUM_BLANK_H
#define LS_CHECKSUM_BLANK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/checksum_ops.h"

/* engines/checksums.c asserts these are its GRP_EXACT and CK_MAXK */
enum { CK_GRP_EXACT = 16, CK_GRP_MAXK = 64 };

/* splitmix64's finalizer */
LS_HD uint64_t ck_grp_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* a 32-bit mixer (lowbias32): a bijection, every input bit moves about
 * half of the output's */
LS_HD uint32_t ck_grp_mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}
/* a float's bits, +-0 as 0 (the same products, the same sums) */
LS_HD uint32_t ck_grp_bits(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b & 0x7fffffffu ? b : 0;
}

/* Input position q's hash over the NU planes (HW each) of one sample:
 * 0 when every channel is +-0, else mix(a1 << 32 | a2) | 1, a1 = sum over
 * u of m_u = mix32(bits ^ k1_u), a2 = sum of m_u k2_u (mod 2^32: any
 * order) */
LS_HD uint64_t ck_grp_pos(const float *xs, size_t NU, size_t HW, size_t q) {
    uint32_t a1 = 0, a2 = 0, any = 0;
    for (size_t u = 0; u < NU; u++) {
        uint32_t k1 = ck_grp_mix32((uint32_t)(2 * u + 1)), k2 = ck_grp_mix32((uint32_t)(2 * u + 2)) | 1;
        uint32_t bt = ck_grp_bits(xs[u * HW + q]), mm = ck_grp_mix32(bt ^ k1);
        a1 += mm, a2 += mm * k2, any |= bt;
    }
    return any ? ck_grp_mix(((uint64_t)a1 << 32) | a2) | 1 : 0;
}

/* Output p's window key on an oh x ow grid (ow given) whose window reads
 * input (h x w) positions (r + a + o, c + b + o), a, b < k: o = -pad
 * forward, pad - (k - 1) backward-data (dy's windows, taps reversed: the
 * same windows are equal either way; engines/checksums.c's conv_groups
 * takes the same taps in the same order): 0 when blank, else mix(sum
 * over taps of hpos kr[a] kc[b]) | 1 (mod 2^64: any order); hpos the
 * sample's position hashes (h x w) */
LS_HD uint64_t ck_grp_key_at(const uint64_t *hpos, int h, int w, int ow, int k, int o, size_t p) {
    int r = (int)(p / (size_t)ow), c = (int)(p % (size_t)ow);
    uint64_t hs = 0, any = 0;
    for (int a = 0; a < k; a++) {
        uint64_t kr = ck_grp_mix((uint64_t)a + 1) | 1, row = 0;
        int ih = r + a + o;
        for (int b = 0; b < k; b++) {
            int iw = c + b + o;
            uint64_t kc = ck_grp_mix((uint64_t)b + 1 + CK_GRP_MAXK) | 1;
            uint64_t hv = ih >= 0 && ih < h && iw >= 0 && iw < w ? hpos[(size_t)ih * w + iw] : 0;
            row += hv * kc, any |= hv;
        }
        hs += row * kr;
    }
    return any ? ck_grp_mix(hs) | 1 : 0;
}
/* forward: output (r, c) reads (r + a - pad, c + b - pad) */
LS_HD uint64_t ck_grp_key(const uint64_t *hpos, const ck_conv_dims *d, size_t p) {
    return ck_grp_key_at(hpos, d->h, d->w, d->ow, d->k, -d->pad, p);
}

/* The first output (row-major) with key[p]'s key, and bit 31 set when
 * the group has two or more; p itself when alone or blank */
LS_HD uint32_t ck_grp_first(const uint64_t *key, size_t P, size_t p) {
    if (!key[p]) return (uint32_t)p;
    for (size_t q = 0; q < P; q++)
        if (q != p && key[q] == key[p]) return (uint32_t)(q < p ? q : p) | 0x80000000u;
    return (uint32_t)p;
}
/* The exact-group rank of a group whose first output is f (fm: each
 * output's ck_grp_first): how many groups of two or more start before f
 * (exact when < CK_GRP_EXACT) */
LS_HD size_t ck_grp_rank(const uint32_t *fm, size_t f) {
    size_t rank = 0;
    for (size_t q = 0; q < f && rank < CK_GRP_EXACT; q++) rank += fm[q] == ((uint32_t)q | 0x80000000u);
    return rank;
}
/* S_g of output channel v for a group whose first output is f: |b_v| +
 * sum over input channels u of wsum(v, u) max over f's window of |x_u| */
LS_HD double ck_grp_sg(const float *xs, const float *w, const float *b, const ck_conv_dims *d, size_t f, size_t v) {
    size_t kk = (size_t)d->k * d->k, HW = (size_t)d->h * d->w, C = (size_t)d->c;
    int r = (int)(f / (size_t)d->ow), c = (int)(f % (size_t)d->ow);
    double g = fabs((double)b[v]);
    for (size_t u = 0; u < C; u++) {
        double ws = 0, m = 0;
        for (size_t t = 0; t < kk; t++) ws += fabs((double)w[(v * C + u) * kk + t]);
        for (int a = 0; a < d->k; a++)
            for (int bb = 0; bb < d->k; bb++) {
                int ih = r + a - d->pad, iw = c + bb - d->pad;
                if (ih >= 0 && ih < d->h && iw >= 0 && iw < d->w) {
                    double t = fabs((double)xs[u * HW + (size_t)ih * d->w + iw]);
                    m = t > m ? t : m;
                }
            }
        g += ws * m;
    }
    return g;
}
/* ---- the identical windows' term of the sharper tier (E) ------------
 * engines/checksums.c's conv_groups (the derivation is there): per sample
 * and relation v, E = sum over the first CK_GRP_EXACT groups of two or
 * more identical windows, in the order of their first window, of (G^2 -
 * G) S_g^2, then + (the other groups' summed G^2 - G) S^2 (S the plane's,
 * >= any S_g), and the relation's S becomes S' = S + E / A (ck_grp_s).
 * The host finds the groups with a hash table, the kernels with
 * ck_grp_first; both add the same terms in the same order with these. */

/* the largest |x| over the window of output (r, c) in one input plane xp
 * (h x w, element stride cb), the window reading (r + a + o, c + b + o) as
 * ck_grp_key_at's (+-0 and NaN: nothing; a max: any order) */
LS_HD double ck_grp_win_max(const float *xp, size_t cb, int h, int w, int k, int o, int r, int c) {
    double m = 0;
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) {
            int ih = r + a + o, iw = c + b + o;
            if (ih >= 0 && ih < h && iw >= 0 && iw < w) {
                double t = fabs((double)xp[((size_t)ih * (size_t)w + (size_t)iw) * cb]);
                m = t > m ? t : m;
            }
        }
    return m;
}
/* S_g of one relation: babs (|b_v|, 0 for backward-data) + sum over the
 * window channels u, in order, of coef[u cs] mx[u] (coef: the relation's
 * sum of |w| over the channel's taps, in tap order; mx: the group's first
 * window's ck_grp_win_max per channel) */
LS_HD double ck_grp_sg_mx(const double *mx, const double *coef, size_t cs, size_t NU, double babs) {
    double g = babs;
    for (size_t u = 0; u < NU; u++) g += coef[u * cs] * mx[u];
    return g;
}
/* e + f g^2: one exact group's share (f = G^2 - G, g = S_g), or the other
 * groups' (f their summed G^2 - G, g = the plane's S), in this order */
LS_HD double ck_grp_e_add(double e, double f, double g) { return e + f * g * g; }
/* S' = S + E / A (E > 0 means a group of G >= 2, and then A >= G S_g > 0
 * but where the operands are 0 or not finite: S' = inf then) */
LS_HD double ck_grp_s(double s, double e, double a) { return e > 0 ? (a > 0 ? s + e / a : INFINITY) : s; }
/* One sample's groups from its outputs' ck_grp_first fm (P): cnt (P
 * scratch) counts each group's outputs at its first; the first
 * CK_GRP_EXACT groups of two or more in the order of their first output
 * (row-major: the order conv_groups' table lists them) go to first[j] and
 * f[j] = G^2 - G; returns their number, *over = the others' summed G^2 - G
 * (integers in double, exact below 2^53: any order) */
LS_HD size_t ck_grp_list(const uint32_t *fm, size_t P, uint32_t *cnt, uint32_t *first, double *f, double *over) {
    size_t ng = 0;
    double ov = 0;
    for (size_t q = 0; q < P; q++) cnt[q] = 0;
    for (size_t q = 0; q < P; q++)
        if (fm[q] >> 31) cnt[fm[q] & 0x7fffffffu]++;
    for (size_t q = 0; q < P; q++) {
        if (cnt[q] < 2) continue;
        double G = (double)cnt[q];
        if (ng < CK_GRP_EXACT) first[ng] = (uint32_t)q, f[ng] = G * G - G, ng++;
        else ov += G * G - G;
    }
    *over = ov;
    return ng;
}
/* E of relation v of one sample: ng exact groups (f[j], their window
 * maxima gmx[j NU ..]), over, coef as ck_grp_sg_mx's (coef + v, stride
 * cs), s the plane's S */
LS_HD double ck_grp_e(size_t ng, const double *f, const double *gmx, double over, const double *coef, size_t cs,
                      size_t NU, double babs, double s) {
    double e = 0;
    for (size_t j = 0; j < ng; j++) e = ck_grp_e_add(e, f[j], ck_grp_sg_mx(gmx + j * NU, coef, cs, NU, babs));
    if (over > 0) e = ck_grp_e_add(e, over, s);
    return e;
}

/* fp32's range for a group of identical windows (checks/checksums.c,
 * ck_rel_unbound, which has the derivation): where S_g (1 + gamma_K) may
 * reach 2^128 (1 - 2^-25), or S_g is inf or NaN (an operand inf or NaN),
 * a legal evaluation may overflow in one twin's order and not in
 * another's, so the twins' gap carries no information and is not judged.
 * No count of its own: the plane's forward relation, whose S >= S_g (the
 * same |b| + sum over taps of |w| times each channel's max|x|, over the
 * whole plane), is then beyond the range too and counted not judged. */
LS_HD int ck_grp_unbound(double sg, double K) {
    double g = K * 0x1p-24 / (1 - K * 0x1p-24);
    return !(sg * (1 + g) < 0x1p128 * (1 - 0x1p-25) * (1 - 0x1p-21));
}

/* One output p's share of the entry (acc[0] count, acc[1] worst |y - b|,
 * acc[2] blank positions, acc[3] the identical windows' worst): xs the
 * sample's input planes, ys its output planes (OC x P), key its window
 * keys, fm their ck_grp_first */
LS_HD void ck_blank_output(double *acc, const float *xs, const float *ys, const float *w, const float *b,
                           const uint64_t *key, const uint32_t *fm, const ck_conv_dims *d, size_t p) {
    size_t P = (size_t)d->oh * d->ow, OC = (size_t)d->oc;
    if (!key[p]) {
        acc[2] += 1;
        for (size_t v = 0; v < OC; v++) {
            float y = ys[v * P + p], bv = b[v];
            if (y == bv) continue;
            double e = fabs((double)y - (double)bv);
            acc[0] += 1, acc[1] = e != e ? INFINITY : e > acc[1] ? e : acc[1];
        }
        return;
    }
    size_t f = fm[p] & 0x7fffffffu;
    if (!(fm[p] >> 31) || f == p || ck_grp_rank(fm, f) >= CK_GRP_EXACT) return;
    double K = (double)d->c * d->k * d->k + 1, und = 2 * K * 0x1p-149;
    for (size_t v = 0; v < OC; v++) {
        float a = ys[v * P + p], b0 = ys[v * P + f];
        if (a == b0) continue;
        double sg = ck_grp_sg(xs, w, b, d, f, v), gap = fabs((double)a - (double)b0) - und, g2 = 2 * sg;
        if (ck_grp_unbound(sg, K)) continue; /* may overflow: no information */
        if (!(gap > 0) && gap == gap) continue;
        double dd = gap != gap ? INFINITY : g2 > 0 ? gap / g2 : INFINITY;
        acc[3] = dd > acc[3] ? dd : acc[3];
    }
}
/* merge two outputs' shares (counts add, maxima: any order) */
LS_HD void ck_blank_merge(double *acc, const double *o) {
    acc[0] += o[0], acc[2] += o[2];
    acc[1] = o[1] > acc[1] || o[1] != o[1] ? o[1] : acc[1];
    acc[3] = o[3] > acc[3] ? o[3] : acc[3];
}

/* The host loop of sample i's entry (o: 4 doubles), in the kernels' steps:
 * position hashes, window keys, firsts, then the outputs in order; scr:
 * HW + P u64 and P u32 of scratch */
LS_HD void ck_blank_sample(double *o, const float *x, const float *y, const float *w, const float *b,
                           const ck_conv_dims *d, size_t i, uint64_t *hpos, uint64_t *key, uint32_t *fm) {
    size_t HW = (size_t)d->h * d->w, P = (size_t)d->oh * d->ow, C = (size_t)d->c, OC = (size_t)d->oc;
    const float *xs = x + i * C * HW, *ys = y + i * OC * P;
    for (size_t q = 0; q < HW; q++) hpos[q] = ck_grp_pos(xs, C, HW, q);
    for (size_t p = 0; p < P; p++) key[p] = ck_grp_key(hpos, d, p);
    for (size_t p = 0; p < P; p++) fm[p] = ck_grp_first(key, P, p);
    double acc[4] = {0, 0, 0, 0};
    for (size_t p = 0; p < P; p++) ck_blank_output(acc, xs, ys, w, b, key, fm, d, p);
    o[0] = acc[0], o[1] = acc[1], o[2] = acc[2], o[3] = acc[3];
}

#endif
