/*
 * rounding_tests.c — the sharper tier's per-element ratio and the
 * per-tensor sign and mean-square tests (rounding_tests.h derives them).
 */
#include "checks/rounding_tests.h"

#include <math.h>
#include <string.h>

static void begin(rounding_stats *st, double alpha) {
    memset(st, 0, sizeof *st); /* the cluster sums included */
    st->max_sharp_ratio = -1;
    st->sign_limit = sqrt(2 * log(4 / alpha));
    st->sign_p = st->ms_p = 1;
}

/* 1 when (r, c) was seen before in this tensor (linear probing; key 0 is
 * the empty word).  No hash table: every element is new. */
static int seen(uint64_t *h, size_t cap, double r, double c) {
    if (!h) return 0;
    uint64_t a, b;
    memcpy(&a, &r, 8);
    memcpy(&b, &c, 8);
    uint64_t k = (a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    k ^= k >> 31;
    if (!k) k = 1;
    for (size_t i = (size_t)k & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (h[i] == k) return 1;
        if (!h[i]) {
            h[i] = k;
            return 0;
        }
    }
}

/* The part of the caller's table this tensor uses: the smallest power of
 * two >= 2n (not the whole scratch: clearing a table sized for the largest
 * tensor on every small one cost 30% of the comparison time), cleared; 0
 * when there is none, too small, or no aggregate test. */
static size_t table_cap(uint64_t *hash, size_t hash_cap, size_t n, int aggregate) {
    if (!hash || !aggregate) return 0;
    if (n > RT_SAMPLE) n = RT_SAMPLE + RT_SAMPLE / 8; /* the sample's size, with room for its spread */
    size_t cap = 1;
    while (cap < 2 * n) cap *= 2;
    if (cap > hash_cap) return 0;
    memset(hash, 0, cap * sizeof *hash);
    return cap;
}

/* Whether element i is in the aggregate tests' sample: all of them up to
 * RT_SAMPLE elements, else each with probability RT_SAMPLE / n by a hash of
 * its index (fixed, independent of the values: the sample is as random as
 * the tests need, and the same on every run). */
static uint64_t sample_thr(size_t n) {
    return n <= RT_SAMPLE ? UINT64_MAX : (uint64_t)((double)RT_SAMPLE / (double)n * 0x1p64);
}
static int sampled(size_t i, uint64_t thr) {
    if (thr == UINT64_MAX) return 1;
    uint64_t h = ((uint64_t)i + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    return h < thr;
}

/* One element: err = cand - ref, judged against its sharp bound, and its
 * clipped z^2 added when the aggregate model applies. */
static void element(rounding_stats *st, size_t i, double err, double r, double worst, double f, double sdf,
                    double ref_u, double *sum_z2, double *c2max, int dup, size_t c, int take) {
    if (!(worst > 0) || !isfinite(err)) return;
    st->n++;
    double sharp = f * worst + ref_u * fabs(r);
    double q = fabs(err) / sharp;
    if (q > st->max_sharp_ratio) {
        st->max_sharp_ratio = q;
        st->worst_sharp_index = i;
    }
    st->n_over_sharp += q > 1;
    if (sdf <= 0 || dup || !take) return;
    st->n_distinct++;
    if (err != 0) {
        int pos = err > 0, away = r != 0 && pos == (r > 0);
        st->n_pos += pos;
        st->n_neg += !pos;
        st->n_away += away;
        st->cs[c] += pos ? 1 : -1;
        st->ca[c] += away ? 1 : -1;
        st->cm[c]++;
    }
    double sd = ref_u == 0 ? sdf * worst : sqrt(sdf * worst * sdf * worst + ref_u * r * ref_u * r);
    double c2 = (sharp / sd) * (sharp / sd), z2 = (err / sd) * (err / sd);
    *sum_z2 += z2 < c2 ? z2 : c2;
    if (c2 > *c2max) *c2max = c2;
}

/* The aggregate statistics from the counts.  c2max: the largest clip, the
 * range Hoeffding's bound needs (every z^2 term lies in [0, c2max]). */
static void finish(rounding_stats *st, double sum_z2, double c2max, double alpha) {
    if (!st->aggregate || !st->n_distinct) return;
    double m = (double)(st->n_pos + st->n_neg);
    if (m > 0) {
        double S = (double)st->n_pos - (double)st->n_neg, A = 2 * (double)st->n_away - m;
        double vs = 0, va = 0, C = 0;
        for (int c = 0; c < RT_CLUSTERS; c++) {
            if (!st->cm[c]) continue;
            double share = st->cm[c] / m, ds = st->cs[c] - share * S, da = st->ca[c] - share * A;
            vs += ds * ds;
            va += da * da;
            C++;
        }
        vs = C > 1 ? fmax(m, C / (C - 1) * vs) : m;
        va = C > 1 ? fmax(m, C / (C - 1) * va) : m;
        st->design_s = vs / m;
        st->design_a = va / m;
        st->sign_z = S / sqrt(vs);
        st->away_z = A / sqrt(va);
        double w = fmax(fabs(st->sign_z), fabs(st->away_z));
        st->sign_p = fmin(1.0, 4 * exp(-w * w / 2));
    }
    double n = (double)st->n_distinct, L = log(1 / alpha);
    st->ms = sum_z2 / n;
    /* Bernstein's t at alpha: n t^2 = 2 L c^2 (1 + t/3), the positive root */
    double qa = n, qb = -2 * L * c2max / 3, qc = -2 * L * c2max;
    st->ms_limit = 1 + (-qb + sqrt(qb * qb - 4 * qa * qc)) / (2 * qa);
    if (st->ms > 1 && c2max > 0) {
        double t = st->ms - 1;
        st->ms_p = fmin(1.0, exp(-n * t * t / (2 * c2max * (1 + t / 3))));
    }
    st->bias_score = fmax(fabs(st->sign_z), fabs(st->away_z)) / st->sign_limit;
    st->scale_score = st->ms / st->ms_limit;
    st->bias_fail = st->bias_score >= 1;
    st->scale_fail = st->scale_score >= 1;
}

void rounding_test_f64(rounding_stats *st, const double *ref, const float *cand, const double *worst, size_t n,
                       double sharp_factor, double sd_factor, double ref_u, double alpha, uint64_t *hash,
                       size_t hash_cap, size_t cdiv, size_t cmod) {
    begin(st, alpha);
    st->aggregate = sd_factor > 0;
    double sum_z2 = 0, c2max = 0;
    hash_cap = table_cap(hash, hash_cap, n, st->aggregate);
    if (!hash_cap) hash = NULL;
    uint64_t thr = sample_thr(n);
    for (size_t i = 0; i < n; i++) {
        int take = sampled(i, thr);
        int dup = take && hash && worst[i] > 0 && seen(hash, hash_cap, ref[i], (double)cand[i]);
        size_t c = cmod > 1 ? (i / cdiv) % cmod % RT_CLUSTERS : 0;
        element(st, i, (double)cand[i] - ref[i], ref[i], worst[i], sharp_factor, sd_factor, ref_u, &sum_z2, &c2max,
                dup, c, take);
    }
    finish(st, sum_z2, c2max, alpha);
}

void rounding_test_d(rounding_stats *st, const double *ref, const double *cand, const double *worst, size_t n,
                     double sharp_factor, double sd_factor, double ref_u, double alpha, uint64_t *hash,
                     size_t hash_cap, size_t cdiv, size_t cmod) {
    begin(st, alpha);
    st->aggregate = sd_factor > 0;
    double sum_z2 = 0, c2max = 0;
    hash_cap = table_cap(hash, hash_cap, n, st->aggregate);
    if (!hash_cap) hash = NULL;
    uint64_t thr = sample_thr(n);
    for (size_t i = 0; i < n; i++) {
        int take = sampled(i, thr);
        int dup = take && hash && worst[i] > 0 && seen(hash, hash_cap, ref[i], cand[i]);
        size_t c = cmod > 1 ? (i / cdiv) % cmod % RT_CLUSTERS : 0;
        element(st, i, cand[i] - ref[i], ref[i], worst[i], sharp_factor, sd_factor, ref_u, &sum_z2, &c2max, dup, c,
                take);
    }
    finish(st, sum_z2, c2max, alpha);
}

void rounding_test_f32(rounding_stats *st, const float *ref, const float *cand, const double *worst, size_t n,
                       double sharp_factor, double sd_factor, double alpha, uint64_t *hash, size_t hash_cap,
                       size_t cdiv, size_t cmod) {
    begin(st, alpha);
    st->aggregate = sd_factor > 0;
    double sum_z2 = 0, c2max = 0;
    hash_cap = table_cap(hash, hash_cap, n, st->aggregate);
    if (!hash_cap) hash = NULL;
    uint64_t thr = sample_thr(n);
    for (size_t i = 0; i < n; i++) {
        double r = ref[i], c = cand[i];
        int take = sampled(i, thr);
        int dup = take && hash && worst[i] > 0 && seen(hash, hash_cap, r, c);
        size_t cl = cmod > 1 ? (i / cdiv) % cmod % RT_CLUSTERS : 0;
        element(st, i, c - r, r, worst[i], sharp_factor, sd_factor, 0, &sum_z2, &c2max, dup, cl, take);
    }
    finish(st, sum_z2, c2max, alpha);
}
