/*
 * rounding_tests.c — the sharper tier's per-element ratio and the
 * per-tensor sign and mean-square tests (rounding_tests.h derives them).
 *
 * Two passes, for cost (the audit runs this on every compared tensor):
 * the per-element ratio over every element, a tight loop; the aggregate
 * tests over the sample only (at most RT_SAMPLE elements in blocks spread
 * over the tensor: sample_stride).
 */
#include "checks/rounding_tests.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void begin(rounding_stats *st, double alpha, double sd_factor) {
    memset(st, 0, sizeof *st); /* the cluster sums included */
    st->max_sharp_ratio = -1;
    st->sign_limit = sqrt(2 * log(4 / alpha));
    st->sign_p = st->ms_p = 1;
    st->aggregate = sd_factor > 0;
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
    k *= 0x94D049BB133111EBull;
    k ^= k >> 29;
    return rt_set_seen(h, cap, k);
}

int rt_set_seen(uint64_t *h, size_t cap, uint64_t k) {
    if (!k) k = 1;
    for (size_t i = (size_t)k & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (h[i] == k) return 1;
        if (!h[i]) {
            h[i] = k;
            return 0;
        }
    }
}

/* The part of the caller's table the sample uses: the smallest power of
 * two >= 2m, cleared (clearing a table sized for the largest tensor on
 * every tensor cost 30% of the comparison time); 0 when there is none or
 * it is too small. */
static size_t table_cap(uint64_t *hash, size_t hash_cap, size_t m) {
    if (!hash) return 0;
    size_t cap = 1;
    while (cap < 2 * m) cap *= 2;
    if (cap > hash_cap) return 0;
    memset(hash, 0, cap * sizeof *hash);
    return cap;
}

static size_t gcd(size_t a, size_t b) {
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The sample: every element when n <= RT_SAMPLE, else RT_SAMPLE / RT_BLOCK
 * blocks of RT_BLOCK contiguous elements (cache lines, not one miss per
 * element: strided single elements cost ~240 ns each), block b = k x
 * stride mod (n / RT_BLOCK), stride the integer nearest 0.618 of the block
 * count that is coprime to it: distinct blocks spread evenly over channels
 * and positions.  *stride 0: every element. */
#define RT_BLOCK 64
static size_t sample_stride(size_t n) {
    if (n <= RT_SAMPLE) return 0;
    size_t nb = n / RT_BLOCK, s = (size_t)((double)nb * 0.6180339887498949);
    if (s < 1) s = 1;
    while (gcd(s, nb) != 1) s++;
    return s;
}

/* floor(log2(e / s)) by division: the rare subnormal or non-finite case. */
static __attribute__((noinline)) int ratio_binade_slow(double e, double s) {
    double q = e / s;
    return q > 0 && isfinite(q) ? ilogb(q) : q > 0 ? RT_HIST_HI : RT_HIST_LO - 1;
}

/* The bucket of e / s (e >= 0 finite, s > 0): floor(log2(e / s)) exactly,
 * from the exponents and the mantissas (e = 2^a (1 + m), s = 2^b (1 + n):
 * the quotient's binade is a - b, one lower when m < n).  The fast path
 * takes s with an exponent field >= 64 (s >= 2^-959): then an e of 0 or
 * subnormal (exponent field 0) gives a - b <= -64, the bucket below
 * 2^RT_HIST_LO (right for a subnormal e: its ratio is below 2^-63; an e of
 * 0 is masked to bucket 0); a smaller or non-finite s (never, from a bound
 * with its underflow term) takes the division.  Inlined: as a call it
 * spilled the loop's registers (+2 ns an element). */
static inline __attribute__((always_inline)) int ratio_bucket(double e, double s) {
    uint64_t be, bs;
    memcpy(&be, &e, 8);
    memcpy(&bs, &s, 8);
    int xe = (int)(be >> 52), xs = (int)(bs >> 52), k;
    const uint64_t M = (1ull << 52) - 1;
    if (__builtin_expect((unsigned)xs - 64u < 0x7ffu - 64u, 1)) k = xe - xs - ((be & M) < (bs & M));
    else k = ratio_binade_slow(e, s);
    k = k < RT_HIST_LO - 1 ? RT_HIST_LO - 1 : k;
    k = k > RT_HIST_HI ? RT_HIST_HI : k;
    return (k - RT_HIST_LO + 2) & -(int)(be != 0); /* a mask, not a branch: exact elements are common */
}

double rt_hist_quantile(const uint64_t *hist, double q, double max) {
    uint64_t n = 0;
    for (int b = 0; b < RT_HIST_N; b++) n += hist[b];
    if (!n) return -1;
    /* the ceil(q n)-th smallest ratio (1-based), at least the first */
    double want = ceil(q * (double)n);
    uint64_t rank = want < 1 ? 1 : want > (double)n ? n : (uint64_t)want, seen = 0;
    for (int b = 0; b < RT_HIST_N; b++) {
        seen += hist[b];
        if (seen < rank) continue;
        if (b == 0) return 0;
        if (b == RT_HIST_N - 1) return max;
        double edge = ldexp(1.0, b == 1 ? RT_HIST_LO : b - 2 + RT_HIST_LO + 1);
        return max >= 0 && max < edge ? max : edge;
    }
    return max;
}

/* Pass 2, one sampled element: signs per cluster, clipped z^2.  rn: the
 * candidate is the exact value correctly rounded to fp32 (rounding_tests.h,
 * "Correctly rounded elements"): no sign counted. */
static void sampled(rounding_stats *st, double err, double r, double worst, double f, double sdf, double ref_u,
                    size_t c, int rn, double *sum_z2, double *c2max) {
    st->n_distinct++;
    st->n_rn += err != 0 && rn;
    if (err != 0 && !rn) {
        int pos = err > 0, away = r != 0 && pos == (r > 0);
        st->n_pos += pos;
        st->n_neg += !pos;
        st->n_away += away;
        st->cs[c] += pos ? 1 : -1;
        st->ca[c] += away ? 1 : -1;
        st->cm[c]++;
    }
    double sharp = f * worst + ref_u * fabs(r);
    double sd = ref_u == 0 ? sdf * worst : sqrt(sdf * worst * sdf * worst + ref_u * r * ref_u * r);
    double c2 = (sharp / sd) * (sharp / sd), z2 = (err / sd) * (err / sd);
    *sum_z2 += z2 < c2 ? z2 : c2;
    if (c2 > *c2max) *c2max = c2;
}

/* The aggregate statistics from the counts.  c2max: the largest clip, the
 * range Bernstein's bound needs (every z^2 term lies in [0, c2max]).
 * clustered: the tensor has channels (cmod >= 1), whose sign tests need
 * RT_MIN_CLUSTERS of them (rounding_tests.h, "Too few clusters"). */
static void finish(rounding_stats *st, double sum_z2, double c2max, double alpha, int clustered) {
    if (!st->aggregate || !st->n_distinct) return;
    double m = (double)(st->n_pos + st->n_neg);
    st->bias_judged = 1;
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
        st->n_clusters = (size_t)C;
        /* z kept for the record; no judgement from fewer channels than the robust variance needs */
        st->bias_judged = !clustered || C >= RT_MIN_CLUSTERS;
        double w = fmax(fabs(st->sign_z), fabs(st->away_z));
        if (st->bias_judged) st->sign_p = fmin(1.0, 4 * exp(-w * w / 2));
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
    st->bias_score = st->bias_judged ? fmax(fabs(st->sign_z), fabs(st->away_z)) / st->sign_limit : 0;
    st->scale_score = st->ms / st->ms_limit;
    st->bias_fail = st->bias_score >= 1;
    st->scale_fail = st->scale_score >= 1;
}

/* Pass 1, every element: the ratio of |err| to its sharp bound (a division
 * only for a new maximum) and its bucket; counts in locals, the buckets in
 * four interleaved sub-histograms of 32-bit counts (each counter sees at
 * most 2^30 of a chunk's 2^32 elements; the same bucket's increments back
 * to back would each wait on the one before), folded into st->hist.
 * Measured (bench_compare, 3.2 M elements): +2 ns an element over the
 * pass without buckets, ~10% of compare_f64 with bounds plus this tier;
 * in an audit, +0.5% of its comparison time (tests/EVIDENCE.md, "Two
 * tiers"). */
#define RT_CHUNK ((size_t)1 << 32)
#define PER_ELEMENT_PASS(REF, CAND, REF_U)                                                                             \
    do {                                                                                                               \
        size_t n1 = 0, over = 0, wi = 0;                                                                               \
        double mx = -1;                                                                                                \
        uint32_t h[4][RT_HIST_N];                                                                                      \
        for (size_t c0 = 0; c0 < n; c0 += RT_CHUNK) {                                                                  \
            size_t c1 = n - c0 < RT_CHUNK ? n : c0 + RT_CHUNK;                                                         \
            memset(h, 0, sizeof h);                                                                                    \
            for (size_t i = c0; i < c1; i++) {                                                                         \
                double r = REF(i), err = CAND(i) - r, w = worst[i];                                                    \
                /* w = +inf: no information (bounds_range_unbound), not a sample */                                   \
                if (!(w > 0 && w < INFINITY) || !isfinite(err)) continue;                                              \
                double sharp = sharp_factor * w + (REF_U) * fabs(r), e = fabs(err);                                    \
                n1++;                                                                                                  \
                if (e > mx * sharp) mx = e / sharp, wi = i;                                                            \
                over += e > sharp;                                                                                     \
                h[i & 3][ratio_bucket(e, sharp)]++;                                                                    \
            }                                                                                                          \
            for (int q = 0; q < 4; q++)                                                                                \
                for (int bk = 0; bk < RT_HIST_N; bk++) st->hist[bk] += h[q][bk];                                       \
        }                                                                                                              \
        st->n = n1;                                                                                                    \
        st->n_over_sharp = over;                                                                                       \
        st->max_sharp_ratio = mx;                                                                                      \
        st->worst_sharp_index = wi;                                                                                    \
    } while (0)

/* One body for the three element types: REF(i), CAND(i) give doubles. */
#define ROUNDING_TEST_BODY(REF, CAND, REF_U)                                                                        \
    do {                                                                                                               \
        begin(st, alpha, sd_factor);                                                                                   \
        PER_ELEMENT_PASS(REF, CAND, REF_U);                                                                            \
        if (!st->aggregate || !st->n) break;                                                                           \
        size_t m = n < RT_SAMPLE ? n : RT_SAMPLE, stride = sample_stride(n), nblk = n / RT_BLOCK, b = 0;           \
        size_t cap = table_cap(hash, hash_cap, m);                                                                     \
        double sum_z2 = 0, c2max = 0;                                                                                  \
        for (size_t k = 0; k < m; k++) {                                                                               \
            size_t i = stride ? b * RT_BLOCK + k % RT_BLOCK : k;                                                       \
            if (stride && k % RT_BLOCK == RT_BLOCK - 1) b = (b + stride) % nblk;                                       \
            double r = REF(i), c = CAND(i), err = c - r;                                                               \
            if (!(worst[i] > 0 && worst[i] < INFINITY) || !isfinite(err) || (cap && seen(hash, cap, r, c))) continue; \
            size_t cl = cmod > 1 ? (i / cdiv) % cmod % RT_CLUSTERS : 0;                                                \
            int rn = fabs(r) <= FLT_MAX && (double)(float)r == c; /* fp32's best (rounding_tests.h) */                 \
            sampled(st, err, r, worst[i], sharp_factor, sd_factor, REF_U, cl, rn, &sum_z2, &c2max);                    \
        }                                                                                                              \
        finish(st, sum_z2, c2max, alpha, cmod >= 1);                                                                   \
    } while (0)

void rounding_test_f64(rounding_stats *st, const double *ref, const float *cand, const double *worst, size_t n,
                       double sharp_factor, double sd_factor, double ref_u, double alpha, uint64_t *hash,
                       size_t hash_cap, size_t cdiv, size_t cmod) {
#define R_(i) ref[i]
#define C_(i) (double)cand[i]
    ROUNDING_TEST_BODY(R_, C_, ref_u);
#undef R_
#undef C_
}

void rounding_test_d(rounding_stats *st, const double *ref, const double *cand, const double *worst, size_t n,
                     double sharp_factor, double sd_factor, double ref_u, double alpha, uint64_t *hash,
                     size_t hash_cap, size_t cdiv, size_t cmod) {
#define R_(i) ref[i]
#define C_(i) cand[i]
    ROUNDING_TEST_BODY(R_, C_, ref_u);
#undef R_
#undef C_
}

void rounding_test_f32(rounding_stats *st, const float *ref, const float *cand, const double *worst, size_t n,
                       double sharp_factor, double sd_factor, double alpha, uint64_t *hash, size_t hash_cap,
                       size_t cdiv, size_t cmod) {
#define R_(i) (double)ref[i]
#define C_(i) (double)cand[i]
    ROUNDING_TEST_BODY(R_, C_, 0.0);
#undef R_
#undef C_
}
