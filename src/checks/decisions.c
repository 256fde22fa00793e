/*
 * decisions.c — discrete decisions of ReLU, max-pool, dropout and the
 * predicted class, compared between a reference and a candidate, and the
 * share of a squared error carried by a masked set of elements (see
 * decisions.h for the rules and what a near-tie is).
 *
 * One body per decision kind, written once over a reference that is either
 * fp32 or double: ref_at() reads it, and the body is always inlined into
 * two thin wrappers with a constant f64 flag, so each variant compiles to
 * its own straight loop (no per-element branch on the type).
 *
 * Every decision is recomputed here from the input values with the
 * engine's own comparisons (on the fp32 values as floats, on the double
 * reference as doubles), never read from an engine's workspace: the point
 * is to check those.
 *
 * Not here: I/O beyond appending JSON to a caller's buffer, allocation,
 * verdicts.
 */
#include "checks/decisions.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "checks/compare.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE double ref_at(const void *ref, int f64, size_t i) {
    return f64 ? ((const double *)ref)[i] : (double)((const float *)ref)[i];
}

static void stats_init(decision_stats *st, size_t n_decisions) {
    memset(st, 0, sizeof *st);
    st->n_decisions = n_decisions;
    st->first_flip = DECISION_NONE;
}

/* One flipped decision k.  gap: how far the reference was from deciding
 * the other way (NaN when undefined: a NaN input); allow: how much the
 * inputs may differ by (bounds, or the observed differences); sub_ulp: the
 * gap is within one fp32 ULP; ulp: the ULP the gap is measured in for
 * max_gap_flipped_ulp (0: not applicable). */
static void record_flip(decision_stats *st, size_t k, double gap, double allow, int sub_ulp, double ulp) {
    st->n_flips++;
    if (st->first_flip == DECISION_NONE) st->first_flip = k;
    st->n_sub_ulp += sub_ulp != 0;
    st->n_near_ties += sub_ulp || gap <= allow; /* false for a NaN gap */
    if (gap > st->max_gap_flipped) st->max_gap_flipped = gap;
    if (ulp > 0 && gap / ulp > st->max_gap_flipped_ulp) st->max_gap_flipped_ulp = gap / ulp;
}

/* ---- ReLU ------------------------------------------------------------------ */

/* 1 pass (x > 0), 0 block (x <= 0, -0 included), 2 NaN: blocked forward,
 * passed backward (x <= 0 is false).  Without branches: the signs of
 * neighbouring elements are close to random, and a mispredicted branch per
 * element costs more than the rest of the loop. */
ALWAYS_INLINE int relu_class(double x) { return (x > 0) | ((x != x) << 1); }

ALWAYS_INLINE void relu_body(decision_stats *st, const void *ref, int f64, const float *cand, size_t n,
                             const double *bound, uint8_t *mask) {
    stats_init(st, n);
    for (size_t i = 0; i < n; i++) {
        double r = ref_at(ref, f64, i);
        float c = cand[i];
        int fr = relu_class(r), fc = relu_class(c);
        if (mask) mask[i] = fr != fc;
        if (fr == fc) continue;
        /* the reference's distance to the threshold 0; undefined with a NaN */
        double gap = fr == 2 || fc == 2 ? NAN : fabs(r);
        double allow = bound ? bound[i] : fabs((double)c - r);
        /* the reference is 0 in fp32: the sign is rounding's to decide */
        int sub_ulp = fr != 2 && fc != 2 && (float)r == 0;
        record_flip(st, i, gap, allow, sub_ulp, 0);
    }
}

void decision_relu_f32(decision_stats *st, const float *ref_in, const float *cand_in, size_t n, const double *bound,
                       uint8_t *mask) {
    relu_body(st, ref_in, 0, cand_in, n, bound, mask);
}

void decision_relu_f64(decision_stats *st, const double *ref_in, const float *cand_in, size_t n, const double *bound,
                       uint8_t *mask) {
    relu_body(st, ref_in, 1, cand_in, n, bound, mask);
}

/* ---- arg-max flips (max-pool windows, logit rows) ---------------------------- */

/* A group whose arg-max differs: ia the reference's choice, ib the
 * candidate's (input element indices), k the decision's index. */
ALWAYS_INLINE void argmax_flip(decision_stats *st, size_t k, const void *ref, int f64, const float *cand, size_t ia,
                               size_t ib, const double *bound) {
    double a = ref_at(ref, f64, ia), b = ref_at(ref, f64, ib);
    /* a >= b unless a NaN/-inf default choice is involved: then undefined */
    double gap = a - b;
    if (!(gap >= 0) || isinf(gap)) gap = NAN;
    double allow = bound ? bound[ia] + bound[ib] : fabs((double)cand[ia] - a) + fabs((double)cand[ib] - b);
    double ulp = isfinite(a) ? compare_ulp_of(a) : 0;
    record_flip(st, k, gap, allow, ulp > 0 && gap <= ulp, ulp);
}

ALWAYS_INLINE void maxpool_body(decision_stats *st, const void *ref, int f64, const float *cand, size_t n, size_t c,
                                size_t h, size_t w, const double *bound, uint8_t *mask) {
    size_t oh = h / 2, ow = w / 2;
    stats_init(st, n * c * oh * ow);
    if (mask) memset(mask, 0, n * c * h * w);
    size_t k = 0;
    for (size_t p = 0; p < n * c; p++) {
        for (size_t y = 0; y < oh; y++) {
            for (size_t x = 0; x < ow; x++, k++) {
                size_t i0 = p * h * w + 2 * y * w + 2 * x;
                size_t idx[4] = {i0, i0 + 1, i0 + w, i0 + w + 1}; /* row-major window order */
                /* the engine's rule: from -FLT_MAX at position 0, strictly greater wins */
                double rm = -FLT_MAX;
                float cm = -FLT_MAX;
                int ra = 0, ca = 0;
                for (int j = 0; j < 4; j++) {
                    double rv = ref_at(ref, f64, idx[j]);
                    float cv = cand[idx[j]];
                    /* selects, not branches (the winner's position is data) */
                    int rg = rv > rm, cg = cv > cm;
                    rm = rg ? rv : rm;
                    ra = rg ? j : ra;
                    cm = cg ? cv : cm;
                    ca = cg ? j : ca;
                }
                if (ra == ca) continue;
                argmax_flip(st, k, ref, f64, cand, idx[ra], idx[ca], bound);
                if (mask)
                    for (int j = 0; j < 4; j++) mask[idx[j]] = 1;
            }
        }
    }
}

void decision_maxpool_f32(decision_stats *st, const float *ref_in, const float *cand_in, size_t n, size_t c,
                          size_t h, size_t w, const double *bound, uint8_t *mask) {
    maxpool_body(st, ref_in, 0, cand_in, n, c, h, w, bound, mask);
}

void decision_maxpool_f64(decision_stats *st, const double *ref_in, const float *cand_in, size_t n, size_t c,
                          size_t h, size_t w, const double *bound, uint8_t *mask) {
    maxpool_body(st, ref_in, 1, cand_in, n, c, h, w, bound, mask);
}

ALWAYS_INLINE void argmax_body(decision_stats *st, const void *ref, int f64, const float *cand, size_t n,
                               size_t classes, const double *bound, uint8_t *mask) {
    stats_init(st, classes ? n : 0);
    if (!classes) return;
    for (size_t r = 0; r < n; r++) {
        size_t base = r * classes, ra = 0, ca = 0;
        /* eval_engine's rule: start at element 0, strictly greater wins */
        double rm = ref_at(ref, f64, base);
        float cm = cand[base];
        for (size_t j = 1; j < classes; j++) {
            double rv = ref_at(ref, f64, base + j);
            float cv = cand[base + j];
            if (rv > rm) {
                rm = rv;
                ra = j;
            }
            if (cv > cm) {
                cm = cv;
                ca = j;
            }
        }
        if (mask) mask[r] = ra != ca;
        if (ra != ca) argmax_flip(st, r, ref, f64, cand, base + ra, base + ca, bound);
    }
}

void decision_argmax_f32(decision_stats *st, const float *ref, const float *cand, size_t n, size_t classes,
                         const double *bound, uint8_t *mask) {
    argmax_body(st, ref, 0, cand, n, classes, bound, mask);
}

void decision_argmax_f64(decision_stats *st, const double *ref, const float *cand, size_t n, size_t classes,
                         const double *bound, uint8_t *mask) {
    argmax_body(st, ref, 1, cand, n, classes, bound, mask);
}

/* ---- dropout ------------------------------------------------------------------ */

ALWAYS_INLINE void dropout_body(decision_stats *st, const void *ref_in, const void *ref_out, int f64,
                                const float *cand_in, const float *cand_out, size_t n, uint8_t *mask) {
    stats_init(st, 0);
    for (size_t i = 0; i < n; i++) {
        double ri = ref_at(ref_in, f64, i);
        float ci = cand_in[i];
        /* a zero input gives a zero output either way: no decision to see;
         * a NaN/Inf input may give NaN even when dropped (NaN * 0) */
        int seen = ri != 0 && ci != 0 && isfinite(ri) && isfinite(ci);
        int flip = seen && (ref_at(ref_out, f64, i) != 0) != (cand_out[i] != 0);
        if (mask) mask[i] = (uint8_t)flip;
        st->n_decisions += seen;
        if (flip) record_flip(st, i, NAN, 0, 0, 0); /* no gap: never a near-tie */
    }
}

void decision_dropout_f32(decision_stats *st, const float *ref_in, const float *ref_out, const float *cand_in,
                          const float *cand_out, size_t n, uint8_t *mask) {
    dropout_body(st, ref_in, ref_out, 0, cand_in, cand_out, n, mask);
}

void decision_dropout_f64(decision_stats *st, const double *ref_in, const double *ref_out, const float *cand_in,
                          const float *cand_out, size_t n, uint8_t *mask) {
    dropout_body(st, ref_in, ref_out, 1, cand_in, cand_out, n, mask);
}

/* ---- error share ------------------------------------------------------------- */

ALWAYS_INLINE void share_body(decision_share *sh, const void *ref, int f64, const float *cand, const uint8_t *mask,
                              size_t n) {
    memset(sh, 0, sizeof *sh);
    /* two sums in index order: the same inputs give the same bits */
    double in = 0, all = 0;
    for (size_t i = 0; i < n; i++) {
        double r = ref_at(ref, f64, i), e = (double)cand[i] - r;
        int m = mask[i] != 0;
        sh->n_masked += (size_t)m;
        if (!isfinite(e)) continue;
        all += e * e;
        if (m) in += e * e;
    }
    sh->sq_err_masked = in;
    sh->sq_err_total = all;
    sh->share = all > 0 ? in / all : 0.0;
}

void decision_share_f32(decision_share *sh, const float *ref, const float *cand, const uint8_t *mask, size_t n) {
    share_body(sh, ref, 0, cand, mask, n);
}

void decision_share_f64(decision_share *sh, const double *ref, const float *cand, const uint8_t *mask, size_t n) {
    share_body(sh, ref, 1, cand, mask, n);
}

/* ---- JSON ---------------------------------------------------------------------- */

void decision_stats_json(lsbuf *b, const decision_stats *st) {
    lsbuf_printf(b, "{\"n\":%zu,\"flips\":%zu,\"near_ties\":%zu,\"sub_ulp\":%zu,\"first_flip\":", st->n_decisions,
                 st->n_flips, st->n_near_ties, st->n_sub_ulp);
    if (st->first_flip == DECISION_NONE)
        lsbuf_printf(b, "null");
    else
        lsbuf_printf(b, "%zu", st->first_flip);
    lsbuf_printf(b, ",\"max_gap_flipped\":");
    lsbuf_json_num(b, st->max_gap_flipped);
    lsbuf_printf(b, ",\"max_gap_flipped_ulp\":");
    lsbuf_json_num(b, st->max_gap_flipped_ulp);
    lsbuf_printf(b, "}");
}

void decision_share_json(lsbuf *b, const decision_share *sh) {
    lsbuf_printf(b, "{\"n_masked\":%zu,\"sq_err_masked\":", sh->n_masked);
    lsbuf_json_num(b, sh->sq_err_masked);
    lsbuf_printf(b, ",\"sq_err_total\":");
    lsbuf_json_num(b, sh->sq_err_total);
    lsbuf_printf(b, ",\"share\":");
    lsbuf_json_num(b, sh->share);
    lsbuf_printf(b, "}");
}
