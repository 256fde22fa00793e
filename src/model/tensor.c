/*
 * tensor.c — tensor sizes and names, Adam's fp32 scalars (model/tensor.h).
 */
#include "model/tensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

size_t tensor_numel(const model *m, tensor_id t, size_t n) {
    switch (t.kind) {
    case TENSOR_INPUT: return n * (size_t)m->in_c * m->in_h * m->in_w;
    case TENSOR_ACT:
    case TENSOR_DACT:
        if (t.layer < 0 || t.layer >= m->n_layers) return 0;
        return n * layer_out_size(&m->layers[t.layer]);
    case TENSOR_PARAMS:
    case TENSOR_GRADS:
    case TENSOR_ADAM_M:
    case TENSOR_ADAM_V: return m->n_params;
    case TENSOR_LOSS: return 1;
    }
    return 0;
}

const char *tensor_kind_name(tensor_kind k) {
    static const char *names[] = {"input", "act", "dact", "params", "grads", "adam_m", "adam_v", "loss"};
    return (unsigned)k < LS_ARRAY_LEN(names) ? names[k] : "?";
}

adam_cfg adam_default(void) {
    adam_cfg c = {1e-3, 0.9, 0.999, 1e-8};
    return c;
}

adam_scalars adam_make_scalars(const adam_cfg *c, int t) {
    adam_scalars a;
    a.beta1 = (float)c->beta1;
    a.beta2 = (float)c->beta2;
    /* PyTorch computes 1 - beta in Python floats (double) and applies it in
     * fp32; we do the same, rounding each constant once. */
    a.one_minus_beta1 = (float)(1.0 - c->beta1);
    a.one_minus_beta2 = (float)(1.0 - c->beta2);
    double bc1 = 1.0 - pow(c->beta1, (double)t);
    double bc2 = 1.0 - pow(c->beta2, (double)t);
    a.step_size = (float)(c->lr / bc1);
    a.bc2_sqrt = (float)sqrt(bc2);
    a.eps = (float)c->eps;
    a.cfg = *c;
    a.t = t;
    return a;
}


/* ---- timing samples ------------------------------------------------------ */

void timing_add(timing_reservoir *r, double dt) {
    long k = r->calls++ - TIMING_WARMUP; /* index among warm calls */
    if (k < 0) return;
    if (k < TIMING_SAMPLES) {
        r->s[k] = (float)dt;
        return;
    }
    /* reservoir sampling (Algorithm R) with a fixed hash in place of a
     * random draw: the same calls give the same sample on every run */
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    uint64_t j = h % (uint64_t)(k + 1);
    if (j < TIMING_SAMPLES) r->s[j] = (float)dt;
}

int timing_count(const timing_reservoir *r) {
    long k = r->calls - TIMING_WARMUP;
    return k <= 0 ? 0 : k < TIMING_SAMPLES ? (int)k : TIMING_SAMPLES;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* linear interpolation between order statistics (type 7, as numpy's default) */
static double quantile_sorted(const float *v, int n, double q) {
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (h - lo) * ((double)v[hi] - v[lo]);
}

int timing_quantiles(const timing_reservoir *r, double *p10, double *median, double *p90) {
    int n = timing_count(r);
    *p10 = *median = *p90 = NAN;
    if (n == 0) return 0;
    float v[TIMING_SAMPLES];
    memcpy(v, r->s, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    *p10 = quantile_sorted(v, n, 0.10);
    *median = quantile_sorted(v, n, 0.50);
    *p90 = quantile_sorted(v, n, 0.90);
    return n;
}

const char *timing_phase_name(int ph) {
    static const char *const names[TPH_N] = {"training forward", "backward", "evaluation forward"};
    return ph >= 0 && ph < TPH_N ? names[ph] : "?";
}
