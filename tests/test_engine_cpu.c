/*
 * test_engine_cpu.c — the oneDNN cpu engine against a plain double-precision
 * implementation of the same network written here.
 *
 * The double implementation carries, next to every value, a rigorous bound
 * on how far an fp32 engine's value may be from it (a running forward error
 * bound).  Each rule, for inputs x^ = x + dx with |dx| <= ex:
 *   dot product of K terms (conv, dense, their backward passes, grads):
 *       |y^ - y| <= sum|w| ex + gamma_K * sum |w| (|x| + ex)     (+ the bias as one more term)
 *     with gamma_K = K u / (1 - K u), u = 2^-24: the classic bound for a
 *     float sum of K products in ANY order, FMA or not (Higham, ASNA 3.1),
 *     so it holds for blocked, multi-threaded or GEMM-based kernels alike.
 *     The double reference's own rounding (K * 2^-52 * sum) is added.
 *   ReLU, max-pool forward: 1-Lipschitz in the max norm, no rounding: ey = ex.
 *   ReLU backward: exact where the sign of x is certain (|x| > ex), else the
 *     whole |dy| + edy (the engine may have taken the other branch).
 *   Max-pool backward: exact routing where the window's arg-max is certain,
 *     else |dy| + edy at every candidate (this also covers tie-breaking).
 *   Dropout: one rounding of x * scale with the same mask.
 *   Softmax cross-entropy: see loss_ref().
 * With ex = 0 (a layer fed the engine's own input) these are the per-layer
 * bounds; chained through the network they bound the whole step.  Every
 * comparison is per element.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/cpu/cpu_pool.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"
#include "base/ops_elem.h"
#include "base/rng.h"
#include "base/util.h"

#define U32 0x1p-24
#define U64 0x1p-52 /* 2u of double: a margin for the reference's own roundings */

static double gam(double k) { return k * U32 / (1.0 - k * U32); }

/* ---- the double-precision network ----------------------------------------- */

typedef struct {
    const model *m;
    size_t n;
    uint64_t seed, step;
    const double *p; /* parameters, model.h layout */
} net;

static const double *wt(const net *nt, const layer *ly) { return nt->p + nt->m->tensors[ly->w_tensor].offset; }
static const double *bs(const net *nt, const layer *ly) { return nt->p + nt->m->tensors[ly->b_tensor].offset; }

/* Layer l forward: y, ey from x, ex (n samples, plain layouts). */
static void layer_fwd(const net *nt, int l, const double *x, const double *ex, double *y, double *ey) {
    const layer *ly = &nt->m->layers[l];
    size_t n = nt->n, isz = layer_in_size(ly), osz = layer_out_size(ly);
    switch (ly->kind) {
    case LAYER_CONV: {
        const double *w = wt(nt, ly), *b = bs(nt, ly);
        int C = ly->in_c, H = ly->in_h, W = ly->in_w, O = ly->out_c, OH = ly->out_h, OW = ly->out_w, k = ly->k;
        double K = (double)C * k * k + 1;
        for (size_t s = 0; s < n; s++)
            for (int o = 0; o < O; o++)
                for (int oh = 0; oh < OH; oh++)
                    for (int ow = 0; ow < OW; ow++) {
                        double v = b[o], S = fabs(b[o]), E = 0;
                        for (int c = 0; c < C; c++)
                            for (int kh = 0; kh < k; kh++)
                                for (int kw = 0; kw < k; kw++) {
                                    int ih = oh + kh - ly->pad, iw = ow + kw - ly->pad;
                                    if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                    size_t xi = s * isz + ((size_t)c * H + ih) * W + iw;
                                    double wv = w[(((size_t)o * C + c) * k + kh) * k + kw];
                                    v += wv * x[xi];
                                    S += fabs(wv) * (fabs(x[xi]) + ex[xi]);
                                    E += fabs(wv) * ex[xi];
                                }
                        size_t yi = s * osz + ((size_t)o * OH + oh) * OW + ow;
                        y[yi] = v;
                        ey[yi] = E + (gam(K) + K * U64) * S;
                    }
        break;
    }
    case LAYER_DENSE: {
        const double *w = wt(nt, ly), *b = bs(nt, ly);
        double K = (double)isz + 1;
        for (size_t s = 0; s < n; s++)
            for (size_t o = 0; o < osz; o++) {
                double v = b[o], S = fabs(b[o]), E = 0;
                for (size_t i = 0; i < isz; i++) {
                    double wv = w[o * isz + i];
                    v += wv * x[s * isz + i];
                    S += fabs(wv) * (fabs(x[s * isz + i]) + ex[s * isz + i]);
                    E += fabs(wv) * ex[s * isz + i];
                }
                y[s * osz + o] = v;
                ey[s * osz + o] = E + (gam(K) + K * U64) * S;
            }
        break;
    }
    case LAYER_RELU:
        for (size_t i = 0; i < n * osz; i++) {
            y[i] = x[i] > 0 ? x[i] : 0.0;
            ey[i] = ex[i];
        }
        break;
    case LAYER_MAXPOOL: {
        int C = ly->in_c, H = ly->in_h, W = ly->in_w, OH = ly->out_h, OW = ly->out_w;
        for (size_t s = 0; s < n; s++)
            for (int c = 0; c < C; c++)
                for (int oh = 0; oh < OH; oh++)
                    for (int ow = 0; ow < OW; ow++) {
                        double mx = -INFINITY, E = 0;
                        for (int d = 0; d < 4; d++) {
                            size_t xi = s * isz + ((size_t)c * H + 2 * oh + d / 2) * W + 2 * ow + d % 2;
                            if (x[xi] > mx) mx = x[xi];
                            if (ex[xi] > E) E = ex[xi];
                        }
                        size_t yi = s * osz + ((size_t)c * OH + oh) * OW + ow;
                        y[yi] = mx;
                        ey[yi] = E;
                    }
        break;
    }
    case LAYER_FLATTEN:
        memcpy(y, x, n * osz * sizeof *y);
        memcpy(ey, ex, n * osz * sizeof *ey);
        break;
    case LAYER_DROPOUT: {
        double scale = (float)(1.0 / (1.0 - (double)ly->p)); /* the engine's fp32 scale */
        for (size_t i = 0; i < n * osz; i++) {
            int keep = rng_dropout_keep(nt->seed, (uint32_t)nt->step, (uint32_t)l, (uint32_t)i, ly->p);
            y[i] = keep ? x[i] * scale : 0.0;
            ey[i] = keep ? scale * ex[i] + (U32 + U64) * scale * (fabs(x[i]) + ex[i]) : 0.0;
        }
        break;
    }
    }
}

/* Layer l backward: dx (if not NULL), grads g/eg (model layout) from dy. */
static void layer_bwd(const net *nt, int l, const double *x, const double *ex, const double *dy, const double *edy,
                      double *dx, double *edx, double *g, double *eg) {
    const layer *ly = &nt->m->layers[l];
    size_t n = nt->n, isz = layer_in_size(ly), osz = layer_out_size(ly);
    switch (ly->kind) {
    case LAYER_CONV: {
        const double *w = wt(nt, ly);
        int C = ly->in_c, H = ly->in_h, W = ly->in_w, O = ly->out_c, OH = ly->out_h, OW = ly->out_w, k = ly->k;
        double *gw = g + nt->m->tensors[ly->w_tensor].offset, *gb = g + nt->m->tensors[ly->b_tensor].offset;
        double *ew = eg + nt->m->tensors[ly->w_tensor].offset, *eb = eg + nt->m->tensors[ly->b_tensor].offset;
        double Kg = (double)n * OH * OW, Kd = (double)O * k * k;
        for (int o = 0; o < O; o++) {
            double v = 0, S = 0, E = 0;
            for (size_t s = 0; s < n; s++)
                for (int i = 0; i < OH * OW; i++) {
                    size_t yi = s * osz + (size_t)o * OH * OW + i;
                    v += dy[yi];
                    S += fabs(dy[yi]) + edy[yi];
                    E += edy[yi];
                }
            gb[o] = v;
            eb[o] = E + (gam(Kg) + Kg * U64) * S;
            for (int c = 0; c < C; c++)
                for (int kh = 0; kh < k; kh++)
                    for (int kw = 0; kw < k; kw++) {
                        v = S = E = 0;
                        for (size_t s = 0; s < n; s++)
                            for (int oh = 0; oh < OH; oh++)
                                for (int ow = 0; ow < OW; ow++) {
                                    int ih = oh + kh - ly->pad, iw = ow + kw - ly->pad;
                                    if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                    size_t xi = s * isz + ((size_t)c * H + ih) * W + iw;
                                    size_t yi = s * osz + ((size_t)o * OH + oh) * OW + ow;
                                    v += dy[yi] * x[xi];
                                    S += (fabs(dy[yi]) + edy[yi]) * (fabs(x[xi]) + ex[xi]);
                                    E += fabs(dy[yi]) * ex[xi] + edy[yi] * fabs(x[xi]) + edy[yi] * ex[xi];
                                }
                        size_t wi = (((size_t)o * C + c) * k + kh) * k + kw;
                        gw[wi] = v;
                        ew[wi] = E + (gam(Kg) + Kg * U64) * S;
                    }
        }
        if (!dx) break;
        for (size_t s = 0; s < n; s++)
            for (int c = 0; c < C; c++)
                for (int ih = 0; ih < H; ih++)
                    for (int iw = 0; iw < W; iw++) {
                        double v = 0, S = 0, E = 0;
                        for (int o = 0; o < O; o++)
                            for (int kh = 0; kh < k; kh++)
                                for (int kw = 0; kw < k; kw++) {
                                    int oh = ih - kh + ly->pad, ow = iw - kw + ly->pad;
                                    if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                                    size_t yi = s * osz + ((size_t)o * OH + oh) * OW + ow;
                                    double wv = w[(((size_t)o * C + c) * k + kh) * k + kw];
                                    v += wv * dy[yi];
                                    S += fabs(wv) * (fabs(dy[yi]) + edy[yi]);
                                    E += fabs(wv) * edy[yi];
                                }
                        size_t xi = s * isz + ((size_t)c * H + ih) * W + iw;
                        dx[xi] = v;
                        edx[xi] = E + (gam(Kd) + Kd * U64) * S;
                    }
        break;
    }
    case LAYER_DENSE: {
        const double *w = wt(nt, ly);
        double *gw = g + nt->m->tensors[ly->w_tensor].offset, *gb = g + nt->m->tensors[ly->b_tensor].offset;
        double *ew = eg + nt->m->tensors[ly->w_tensor].offset, *eb = eg + nt->m->tensors[ly->b_tensor].offset;
        double Kg = (double)n, Kd = (double)osz;
        for (size_t o = 0; o < osz; o++) {
            double v = 0, S = 0, E = 0;
            for (size_t s = 0; s < n; s++) {
                v += dy[s * osz + o];
                S += fabs(dy[s * osz + o]) + edy[s * osz + o];
                E += edy[s * osz + o];
            }
            gb[o] = v;
            eb[o] = E + (gam(Kg) + Kg * U64) * S;
            for (size_t i = 0; i < isz; i++) {
                v = S = E = 0;
                for (size_t s = 0; s < n; s++) {
                    double a = dy[s * osz + o], ea = edy[s * osz + o], b = x[s * isz + i], eb2 = ex[s * isz + i];
                    v += a * b;
                    S += (fabs(a) + ea) * (fabs(b) + eb2);
                    E += fabs(a) * eb2 + ea * fabs(b) + ea * eb2;
                }
                gw[o * isz + i] = v;
                ew[o * isz + i] = E + (gam(Kg) + Kg * U64) * S;
            }
        }
        if (!dx) break;
        for (size_t s = 0; s < n; s++)
            for (size_t i = 0; i < isz; i++) {
                double v = 0, S = 0, E = 0;
                for (size_t o = 0; o < osz; o++) {
                    double wv = w[o * isz + i];
                    v += wv * dy[s * osz + o];
                    S += fabs(wv) * (fabs(dy[s * osz + o]) + edy[s * osz + o]);
                    E += fabs(wv) * edy[s * osz + o];
                }
                dx[s * isz + i] = v;
                edx[s * isz + i] = E + (gam(Kd) + Kd * U64) * S;
            }
        break;
    }
    case LAYER_RELU:
        if (!dx) break;
        for (size_t i = 0; i < n * osz; i++) {
            dx[i] = x[i] > 0 ? dy[i] : 0.0;
            if (x[i] - ex[i] > 0) edx[i] = edy[i];         /* surely passed */
            else if (x[i] + ex[i] <= 0) edx[i] = 0.0;      /* surely blocked: exact 0 */
            else edx[i] = fabs(dy[i]) + edy[i];            /* either branch possible */
        }
        break;
    case LAYER_MAXPOOL: {
        if (!dx) break;
        int C = ly->in_c, H = ly->in_h, W = ly->in_w, OH = ly->out_h, OW = ly->out_w;
        memset(dx, 0, n * isz * sizeof *dx);
        memset(edx, 0, n * isz * sizeof *edx);
        for (size_t s = 0; s < n; s++)
            for (int c = 0; c < C; c++)
                for (int oh = 0; oh < OH; oh++)
                    for (int ow = 0; ow < OW; ow++) {
                        size_t xi[4];
                        int am = 0;
                        double lo = -INFINITY; /* the engine's max is at least this */
                        for (int d = 0; d < 4; d++) {
                            xi[d] = s * isz + ((size_t)c * H + 2 * oh + d / 2) * W + 2 * ow + d % 2;
                            if (x[xi[d]] > x[xi[am]]) am = d;
                            if (x[xi[d]] - ex[xi[d]] > lo) lo = x[xi[d]] - ex[xi[d]];
                        }
                        size_t yi = s * osz + ((size_t)c * OH + oh) * OW + ow;
                        int cand = 0;
                        for (int d = 0; d < 4; d++) cand += x[xi[d]] + ex[xi[d]] >= lo;
                        dx[xi[am]] = dy[yi];
                        for (int d = 0; d < 4; d++)
                            if (x[xi[d]] + ex[xi[d]] >= lo) edx[xi[d]] = cand == 1 ? edy[yi] : fabs(dy[yi]) + edy[yi];
                    }
        break;
    }
    case LAYER_FLATTEN:
        if (!dx) break;
        memcpy(dx, dy, n * osz * sizeof *dx);
        memcpy(edx, edy, n * osz * sizeof *edx);
        break;
    case LAYER_DROPOUT: {
        if (!dx) break;
        double scale = (float)(1.0 / (1.0 - (double)ly->p));
        for (size_t i = 0; i < n * osz; i++) {
            int keep = rng_dropout_keep(nt->seed, (uint32_t)nt->step, (uint32_t)l, (uint32_t)i, ly->p);
            dx[i] = keep ? dy[i] * scale : 0.0;
            edx[i] = keep ? scale * edy[i] + (U32 + U64) * scale * (fabs(dy[i]) + edy[i]) : 0.0;
        }
        break;
    }
    }
}

/* Softmax cross-entropy: the mean loss and dz = (softmax - onehot) / n, and
 * bounds for an fp32 evaluation (ops_softmax_xent_row) from z^ = z + dz,
 * |dz| <= ez.  With E = max_k ez_k in a row:
 *  - softmax is 2E-Lipschitz in log space: p(z^)_j / p(z)_j in [e^-2E, e^2E];
 *  - fp32 roundings, relative to p_j: the subtraction z_j - max (u |d_j|
 *    absolute in the argument of exp, d_j = z_j - max, plus 2E for the
 *    shifted inputs), expf (< 1 ulp = 2u), the sum of c terms (gamma_c),
 *    the division (u): rel_j = t_j + max_k t_k + gamma_c + u with
 *    t_j = u (|d_j| + 2E) + 2u;
 *  - then p - onehot (u |p - t|), times inv_n (inv_n = fl(1/n): u; product: u).
 * Products of two of these terms (all < 1e-4 here) are covered by the final
 * factor 1 + 1e-3.  The loss: lse moves by <= E + the log's input error
 * (max t + gamma_c) + logf (2u |lse|); z_y - max by <= 2E + u |d_y|; the
 * final subtraction u |row|; rows summed in double; (float) of the mean: u. */
static void loss_ref(const double *z, const double *ez, const int32_t *y, size_t n, int c, double *dz, double *edz,
                     double *loss, double *eloss) {
    double L = 0, EL = 0;
    for (size_t s = 0; s < n; s++) {
        const double *zr = z + s * c, *er = ez + s * c;
        double mx = zr[0], E = 0, sum = 0, tmax = 0;
        for (int j = 0; j < c; j++) {
            if (zr[j] > mx) mx = zr[j];
            if (er[j] > E) E = er[j];
        }
        for (int j = 0; j < c; j++) {
            sum += exp(zr[j] - mx);
            double t = U32 * (fabs(zr[j] - mx) + 2 * E) + 2 * U32;
            if (t > tmax) tmax = t;
        }
        double lse = log(sum), row = lse - (zr[y[s]] - mx);
        for (int j = 0; j < c; j++) {
            double p = exp(zr[j] - mx) / sum, t = j == y[s] ? 1.0 : 0.0;
            double tj = U32 * (fabs(zr[j] - mx) + 2 * E) + 2 * U32;
            double rel = tj + tmax + gam(c) + U32;
            double e2 = expm1(2 * E);
            dz[s * c + j] = (p - t) / (double)n;
            edz[s * c + j] = (p * e2 + p * (1 + e2) * rel + U32 * fabs(p - t)) * (1 + 3 * U32) / (double)n * (1 + 1e-3) +
                             U64 * fabs(p - t) / (double)n;
        }
        L += row;
        EL += (E + tmax + gam(c) + 2 * U32 * fabs(lse) + 2 * E + U32 * fabs(zr[y[s]] - mx) + U32 * fabs(row)) *
              (1 + 1e-3);
    }
    *loss = L / (double)n;
    *eloss = EL / (double)n + U32 * fabs(*loss) + 1e-15;
}

/* ---- helpers ---------------------------------------------------------------- */

static void fill_uniform(float *a, size_t n, uint64_t seed, uint32_t tag, float lo, float hi) {
    for (size_t i = 0; i < n; i++)
        a[i] = lo + (hi - lo) * rng_uniform(seed, (uint32_t)i, tag, 7, RNG_STREAM_PERTURB);
}

static engine *make_engine(const model *m, const char *spec, size_t max_batch) {
    engine *e = NULL;
    engine_opts o = {1234, max_batch, 0};
    int rc = engine_create(&e, spec, m, &o);
    if (rc) fprintf(stderr, "engine_create(%s): %s\n", spec, ls_errmsg());
    assert_int_equal(rc, 0);
    return e;
}

/* Per-element check |got - ref| <= bound; prints the worst offenders. */
static void check_close(const char *what, const float *got, const double *ref, const double *bound, size_t cnt) {
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < cnt; i++) {
        double err = fabs((double)got[i] - ref[i]);
        if (!(err <= bound[i])) {
            if (bad < 5)
                fprintf(stderr, "  %s[%zu]: got %.9g, ref %.12g, err %.3g > bound %.3g\n", what, i, (double)got[i],
                        ref[i], err, bound[i]);
            bad++;
        }
        if (bound[i] > 0 && err / bound[i] > worst) worst = err / bound[i];
    }
    if (bad) fprintf(stderr, "  %s: %zu of %zu elements outside their bound\n", what, bad, cnt);
    else printf("  %-22s %7zu elements, worst err/bound %.3f\n", what, cnt, worst);
    assert_int_equal(bad, 0);
}

static double *f2d(const float *a, size_t n) {
    double *d = malloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = a[i];
    return d;
}

/* Everything one comparison needs for a model at batch n. */
typedef struct {
    model m;
    engine *e;
    size_t n;
    float *x, *p;
    int32_t *y;
} setup;

static void setup_make(setup *S, const char *spec_text, const char *name, const char *engine_spec, size_t max_batch,
                       size_t n, uint64_t seed) {
    memset(S, 0, sizeof *S);
    int rc = spec_text ? model_parse_spec(&S->m, spec_text, "test") : model_build(&S->m, name);
    if (rc) fprintf(stderr, "%s\n", ls_errmsg());
    assert_int_equal(rc, 0);
    S->e = make_engine(&S->m, engine_spec, max_batch);
    S->n = n;
    size_t in = (size_t)S->m.in_c * S->m.in_h * S->m.in_w;
    S->x = malloc(max_batch * in * sizeof *S->x);
    S->p = malloc(S->m.n_params * sizeof *S->p);
    S->y = malloc(max_batch * sizeof *S->y);
    fill_uniform(S->x, max_batch * in, seed, 1, 0.0f, 1.0f);
    for (size_t i = 0; i < max_batch; i++) S->y[i] = (int32_t)(rng_u32(seed, (uint32_t)i, 2, 0, 9) % (uint32_t)S->m.n_classes);
    model_init_params(&S->m, S->p, seed);
    assert_int_equal(engine_set_params(S->e, S->p), 0);
}

static void setup_free(setup *S) {
    engine_free(S->e);
    free(S->x);
    free(S->p);
    free(S->y);
}

static float *get_t(engine *e, tensor_kind k, int l) {
    tensor_id t = {k, l};
    size_t cnt = tensor_numel(e->m, t, e->batch);
    float *a = malloc((cnt ? cnt : 1) * sizeof *a);
    assert_int_equal(engine_get_tensor(e, t, a), 0);
    return a;
}

/* ---- per-layer checks: each layer fed the engine's own fp32 input -------- */

static void check_layers(setup *S, uint64_t step) {
    const model *m = &S->m;
    engine *e = S->e;
    size_t n = S->n;
    float loss;
    assert_int_equal(engine_set_batch(e, S->x, S->y, n, step), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, &loss), 0);
    assert_int_equal(engine_backward(e), 0);

    double *pd = f2d(S->p, m->n_params);
    net nt = {m, n, e->seed, step, pd};
    double *g = calloc(m->n_params, sizeof *g), *eg = calloc(m->n_params, sizeof *eg);
    float *grads = get_t(e, TENSOR_GRADS, 0);
    char what[64];
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        size_t isz = n * layer_in_size(ly), osz = n * layer_out_size(ly);
        float *xin = l ? get_t(e, TENSOR_ACT, l - 1) : get_t(e, TENSOR_INPUT, 0);
        float *yout = get_t(e, TENSOR_ACT, l), *dyo = get_t(e, TENSOR_DACT, l);
        double *x = f2d(xin, isz), *ex = calloc(isz, sizeof *ex), *y = malloc(osz * sizeof *y),
               *ey = malloc(osz * sizeof *ey);
        layer_fwd(&nt, l, x, ex, y, ey);
        snprintf(what, sizeof what, "%s forward", ly->name);
        check_close(what, yout, y, ey, osz);
        if (ly->kind == LAYER_DROPOUT) {
            /* bitwise: the engine must use exactly ops_dropout_fwd */
            float scale = (float)(1.0 / (1.0 - (double)ly->p));
            for (size_t i = 0; i < osz; i++)
                assert_true(yout[i] == ops_dropout_fwd(xin[i], e->seed, (uint32_t)step, (uint32_t)l, (uint32_t)i,
                                                       ly->p, scale));
        }
        /* backward from the engine's own DACT[l] */
        double *dy = f2d(dyo, osz), *edy = calloc(osz, sizeof *edy);
        double *dx = l ? malloc(isz * sizeof *dx) : NULL, *edx = l ? malloc(isz * sizeof *edx) : NULL;
        layer_bwd(&nt, l, x, ex, dy, edy, dx, edx, g, eg);
        if (l) {
            float *dxe = get_t(e, TENSOR_DACT, l - 1);
            snprintf(what, sizeof what, "%s backward-data", ly->name);
            check_close(what, dxe, dx, edx, isz);
            if (ly->kind == LAYER_MAXPOOL) {
                /* exactly one of each window's four gradients is dy (the
                 * others 0), at a position holding the window's maximum */
                int C = ly->in_c, H = ly->in_h, W = ly->in_w, OH = ly->out_h, OW = ly->out_w;
                for (size_t s = 0; s < n; s++)
                    for (int c = 0; c < C; c++)
                        for (int oh = 0; oh < OH; oh++)
                            for (int ow = 0; ow < OW; ow++) {
                                size_t yi = s * layer_out_size(ly) + ((size_t)c * OH + oh) * OW + ow;
                                int hits = 0;
                                for (int d = 0; d < 4; d++) {
                                    size_t xi = s * layer_in_size(ly) + ((size_t)c * H + 2 * oh + d / 2) * W + 2 * ow + d % 2;
                                    if (dxe[xi] != 0.0f) {
                                        hits++;
                                        assert_true(dxe[xi] == dyo[yi]);
                                        assert_true(xin[xi] == yout[yi]);
                                    }
                                }
                                assert_true(hits <= 1);
                            }
            }
            free(dxe);
        }
        if (ly->w_tensor >= 0) {
            const model_tensor *tw = &m->tensors[ly->w_tensor], *tb = &m->tensors[ly->b_tensor];
            snprintf(what, sizeof what, "%s weight grad", ly->name);
            check_close(what, grads + tw->offset, g + tw->offset, eg + tw->offset, tw->numel);
            snprintf(what, sizeof what, "%s bias grad", ly->name);
            check_close(what, grads + tb->offset, g + tb->offset, eg + tb->offset, tb->numel);
        }
        free(xin); free(yout); free(dyo); free(x); free(ex); free(y); free(ey);
        free(dy); free(edy); free(dx); free(edx);
    }
    /* the loss from the engine's own logits; and bitwise the shared row code */
    int last = m->n_layers - 1, c = m->n_classes;
    float *z = get_t(e, TENSOR_ACT, last), *dz = get_t(e, TENSOR_DACT, last);
    double *zd = f2d(z, n * c), *ez = calloc(n * c, sizeof *ez), *dzr = malloc(n * c * sizeof *dzr),
           *edz = malloc(n * c * sizeof *edz), lref, eloss;
    loss_ref(zd, ez, S->y, n, c, dzr, edz, &lref, &eloss);
    check_close("loss dz", dz, dzr, edz, n * c);
    check_close("loss", &loss, &lref, &eloss, 1);
    float *dz2 = malloc(n * c * sizeof *dz2);
    double acc = 0;
    for (size_t s = 0; s < n; s++) acc += ops_softmax_xent_row(z + s * c, c, S->y[s], 1.0f / (float)n, 0, dz2 + s * c);
    assert_true((float)(acc / (double)n) == loss);
    assert_memory_equal(dz2, dz, n * c * sizeof *dz);
    free(z); free(dz); free(zd); free(ez); free(dzr); free(edz); free(dz2);
    free(grads); free(g); free(eg); free(pd);
}

#define SMALL_SPEC "input 3 9 9; conv 5 3 pad 1; relu; maxpool; conv 6 2; relu; dense 7; relu; dropout 0.3; dense 4"

/* Small random shapes: odd sizes (9x9 pooled to 4x4 drops a row and a
 * column), channel counts that fill no SIMD block, a dense layer reading a
 * 4-D input, dropout, a partial batch (5 of at most 8), then the full
 * batch and the partial one again (cached primitives). */
static void test_layers_small(void **st) {
    setup S;
    setup_make(&S, SMALL_SPEC, NULL, "cpu:threads=1", 8, 5, 11);
    check_layers(&S, 3);
    S.n = 8;
    check_layers(&S, 4);
    S.n = 5;
    check_layers(&S, 5);
    setup_free(&S);
}

/* Dropout straight after a max-pool: its input comes in a blocked layout
 * and is reordered to plain (n, C, H, W) order, the order of its mask; the
 * flatten and dense after it read that plain tensor. */
static void test_layers_dropout_blocked(void **st) {
    setup S;
    setup_make(&S, "input 2 10 10; conv 16 3 pad 1; relu; maxpool; dropout 0.5; flatten; dense 5", NULL,
               "cpu:threads=1", 4, 3, 14);
    check_layers(&S, 9);
    setup_free(&S);
}

/* SmallCNN's shapes at batch 3 (of max 4). */
static void test_layers_smallcnn(void **st) {
    setup S;
    setup_make(&S, NULL, "smallcnn", "cpu:threads=1", 4, 3, 12);
    check_layers(&S, 0);
    setup_free(&S);
}

/* The same checks with the plain-layout variant (no reorders). */
static void test_layers_plain_layout(void **st) {
    setup S;
    setup_make(&S, SMALL_SPEC, NULL, "cpu:threads=1:layout=plain", 8, 6, 13);
    check_layers(&S, 1);
    setup_free(&S);
}

/* ---- whole network ---------------------------------------------------------- */

typedef struct {
    double *a[MODEL_MAX_LAYERS + 1], *ea[MODEL_MAX_LAYERS + 1]; /* a[0] input, a[l+1] = ACT[l] */
    double *d[MODEL_MAX_LAYERS + 1], *ed[MODEL_MAX_LAYERS + 1]; /* d[l+1] = DACT[l] */
    double *g, *eg, loss, eloss;
} trace;

static void trace_alloc(trace *T, const model *m, size_t n) {
    memset(T, 0, sizeof *T);
    for (int l = -1; l < m->n_layers; l++) {
        size_t sz = n * (l < 0 ? (size_t)m->in_c * m->in_h * m->in_w : layer_out_size(&m->layers[l]));
        T->a[l + 1] = calloc(sz, sizeof(double));
        T->ea[l + 1] = calloc(sz, sizeof(double));
        T->d[l + 1] = calloc(sz, sizeof(double));
        T->ed[l + 1] = calloc(sz, sizeof(double));
    }
    T->g = calloc(m->n_params, sizeof(double));
    T->eg = calloc(m->n_params, sizeof(double));
}

static void trace_free(trace *T, const model *m) {
    for (int l = 0; l <= m->n_layers; l++) {
        free(T->a[l]); free(T->ea[l]); free(T->d[l]); free(T->ed[l]);
    }
    free(T->g);
    free(T->eg);
}

/* Forward (and backward when `grads`) of the whole network in double, with
 * the running error bounds, from the fp32 input x (exact: ea[0] = 0). */
static void net_run(const net *nt, trace *T, const float *x, const int32_t *y, int grads) {
    const model *m = nt->m;
    size_t in = nt->n * (size_t)m->in_c * m->in_h * m->in_w;
    for (size_t i = 0; i < in; i++) T->a[0][i] = x[i];
    for (int l = 0; l < m->n_layers; l++) layer_fwd(nt, l, T->a[l], T->ea[l], T->a[l + 1], T->ea[l + 1]);
    int L = m->n_layers;
    loss_ref(T->a[L], T->ea[L], y, nt->n, m->n_classes, T->d[L], T->ed[L], &T->loss, &T->eloss);
    if (!grads) return;
    for (int l = L - 1; l >= 0; l--)
        layer_bwd(nt, l, T->a[l], T->ea[l], T->d[l + 1], T->ed[l + 1], l ? T->d[l] : NULL, l ? T->ed[l] : NULL,
                  T->g, T->eg);
}

/* The double implementation's gradient against central differences, then
 * the engine's whole step (ACT, DACT, GRADS, loss) against the double
 * values within the chained bounds. */
static void gradient_check(const char *spec_text, const char *name, size_t n, uint64_t step) {
    setup S;
    setup_make(&S, spec_text, name, "cpu:threads=1", n, n, 21);
    const model *m = &S.m;
    double *pd = f2d(S.p, m->n_params);
    net nt = {m, n, S.e->seed, step, pd};
    trace T;
    trace_alloc(&T, m, n);
    net_run(&nt, &T, S.x, S.y, 1);

    /* Central differences on every bias and a spread of weights.  h = 1e-6:
     * truncation h^2 |L'''| / 6 ~ 1e-13; the double rounding of L (about
     * 1e5 terms: < 1e-11 relative, and largely the same at p +- h) over 2h
     * stays < 1e-5 in the worst case, ~1e-9 in practice.  A ReLU or
     * max-pool switching inside [p-h, p+h] would break the difference; with
     * h this small that is rare, and the seed is fixed, so the check is
     * deterministic.  Tolerance: 1e-6 absolute + 1e-4 relative; a wrong
     * gradient formula is off by O(|g|). */
    trace T2;
    trace_alloc(&T2, m, n);
    double h = 1e-6, worst = 0;
    int checked = 0;
    for (int t = 0; t < m->n_tensors; t++) {
        const model_tensor *mt = &m->tensors[t];
        size_t stride = mt->is_bias ? 1 : (mt->numel / 24 ? mt->numel / 24 : 1);
        for (size_t i = 0; i < mt->numel; i += stride) {
            size_t k = mt->offset + i;
            double p0 = pd[k], lp, lm;
            pd[k] = p0 + h;
            net_run(&nt, &T2, S.x, S.y, 0);
            lp = T2.loss;
            pd[k] = p0 - h;
            net_run(&nt, &T2, S.x, S.y, 0);
            lm = T2.loss;
            pd[k] = p0;
            double fd = (lp - lm) / (2 * h), an = T.g[k];
            double err = fabs(fd - an), tol = 1e-6 + 1e-4 * fabs(an);
            if (err > tol) fprintf(stderr, "  %s[%zu]: finite difference %.10g, analytic %.10g\n", mt->name, i, fd, an);
            assert_true(err <= tol);
            if (err / tol > worst) worst = err / tol;
            checked++;
        }
    }
    printf("  %s: %d finite differences, worst err/tol %.2e\n", m->name, checked, worst);
    trace_free(&T2, m);

    /* the engine, one whole training step, against the chained bounds */
    float loss;
    engine *e = S.e;
    assert_int_equal(engine_set_batch(e, S.x, S.y, n, step), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, &loss), 0);
    assert_int_equal(engine_backward(e), 0);
    char what[64];
    for (int l = 0; l < m->n_layers; l++) {
        size_t osz = n * layer_out_size(&m->layers[l]);
        float *a = get_t(e, TENSOR_ACT, l), *d = get_t(e, TENSOR_DACT, l);
        snprintf(what, sizeof what, "chained ACT %s", m->layers[l].name);
        check_close(what, a, T.a[l + 1], T.ea[l + 1], osz);
        snprintf(what, sizeof what, "chained DACT %s", m->layers[l].name);
        check_close(what, d, T.d[l + 1], T.ed[l + 1], osz);
        free(a);
        free(d);
    }
    check_close("chained loss", &loss, &T.loss, &T.eloss, 1);
    float *g = get_t(e, TENSOR_GRADS, 0);
    check_close("chained GRADS", g, T.g, T.eg, m->n_params);
    /* how tight: the median bound relative to |g| (informational) */
    free(g);
    trace_free(&T, m);
    free(pd);
    setup_free(&S);
}

static void test_gradcheck_small(void **st) { gradient_check(SMALL_SPEC, NULL, 4, 2); }
static void test_gradcheck_smallcnn(void **st) { gradient_check(NULL, "smallcnn", 2, 0); }

/* ---- shapes, partial batches ---------------------------------------------- */

static void test_smallcnn_shapes(void **st) {
    setup S;
    setup_make(&S, NULL, "smallcnn", "cpu:threads=1", 4, 4, 5);
    assert_int_equal(S.m.n_params, 105866);
    assert_int_equal(engine_set_batch(S.e, S.x, S.y, 4, 0), 0);
    assert_int_equal(engine_forward(S.e, 0), 0);
    tensor_id in = {TENSOR_INPUT, 0}, out = {TENSOR_ACT, S.m.n_layers - 1};
    assert_int_equal(tensor_numel(&S.m, in, 4), 4 * 1 * 28 * 28);
    assert_int_equal(tensor_numel(&S.m, out, 4), 4 * 10);
    float *z = get_t(S.e, TENSOR_ACT, S.m.n_layers - 1);
    for (int i = 0; i < 40; i++) assert_true(isfinite(z[i]));
    free(z);
    /* a partial batch (1 of 4) runs a whole step; a batch above the
     * maximum is refused */
    float loss;
    assert_int_equal(engine_train_step(S.e, S.x, S.y, 1, 1, &(adam_cfg){1e-3, 0.9, 0.999, 1e-8}, 1, &loss), 0);
    assert_true(isfinite(loss));
    assert_int_not_equal(engine_set_batch(S.e, S.x, S.y, 5, 2), 0);
    setup_free(&S);
}

/* ---- determinism --------------------------------------------------------------- */

static float *run_steps(const char *spec, int steps, size_t n) {
    setup S;
    setup_make(&S, "input 1 12 12; conv 8 3; relu; maxpool; flatten; dropout 0.5; dense 16; relu; dense 10", NULL,
               spec, n, n, 31);
    adam_cfg cfg = adam_default();
    size_t in = 144;
    for (int s = 0; s < steps; s++) {
        float loss;
        /* a different slice of inputs each step, last one partial */
        size_t nb = s == steps - 1 ? n - 3 : n;
        fill_uniform(S.x, n * in, 40 + (uint64_t)s, 1, 0.0f, 1.0f);
        assert_int_equal(engine_train_step(S.e, S.x, S.y, nb, (uint64_t)s, &cfg, s + 1, &loss), 0);
    }
    float *out = malloc(3 * S.m.n_params * sizeof *out);
    assert_int_equal(engine_get_tensor(S.e, (tensor_id){TENSOR_PARAMS, 0}, out), 0);
    assert_int_equal(engine_get_tensor(S.e, (tensor_id){TENSOR_ADAM_M, 0}, out + S.m.n_params), 0);
    assert_int_equal(engine_get_tensor(S.e, (tensor_id){TENSOR_ADAM_V, 0}, out + 2 * S.m.n_params), 0);
    setup_free(&S);
    return out;
}

static void test_determinism(void **st) {
    model m;
    assert_int_equal(model_parse_spec(&m, "input 1 12 12; conv 8 3; relu; maxpool; flatten; dropout 0.5; dense 16; "
                                          "relu; dense 10", "test"), 0);
    float *a = run_steps("cpu:threads=1", 6, 16), *b = run_steps("cpu:threads=1", 6, 16);
    assert_memory_equal(a, b, 3 * m.n_params * sizeof *a);
    /* and the steps did change the parameters */
    float *p0 = malloc(m.n_params * sizeof *p0);
    model_init_params(&m, p0, 31);
    assert_memory_not_equal(a, p0, m.n_params * sizeof *a);
    free(a);
    free(b);
    free(p0);
}

/* ---- get/set round trips ----------------------------------------------------- */

static void test_roundtrip(void **st) {
    setup S;
    setup_make(&S, SMALL_SPEC, NULL, "cpu:threads=1", 8, 6, 41);
    engine *e = S.e;
    assert_int_equal(engine_set_batch(e, S.x, S.y, 6, 0), 0);
    for (int k = TENSOR_INPUT; k <= TENSOR_ADAM_V; k++)
        for (int l = 0; l < ((k == TENSOR_ACT || k == TENSOR_DACT) ? S.m.n_layers : 1); l++) {
            tensor_id t = {(tensor_kind)k, l};
            size_t cnt = tensor_numel(&S.m, t, 6);
            uint32_t *bits = malloc(cnt * sizeof *bits);
            float *back = malloc(cnt * sizeof *back);
            /* arbitrary finite bit patterns, sign and exponent included */
            for (size_t i = 0; i < cnt; i++) {
                uint32_t r = rng_u32(5, (uint32_t)i, (uint32_t)k, (uint32_t)l, 9);
                if (((r >> 23) & 0xff) == 0xff) r &= ~(1u << 30);
                bits[i] = r;
            }
            assert_int_equal(engine_set_tensor(e, t, (const float *)bits), 0);
            assert_int_equal(engine_get_tensor(e, t, back), 0);
            if (memcmp(bits, back, cnt * sizeof *back))
                fprintf(stderr, "  round trip of %s[%d] not bitwise\n", tensor_kind_name(t.kind), l);
            assert_memory_equal(bits, back, cnt * sizeof *back);
            free(bits);
            free(back);
        }
    /* LOSS: read back what loss() returned; it cannot be set */
    float loss, got;
    assert_int_equal(engine_set_params(e, S.p), 0);
    assert_int_equal(engine_set_batch(e, S.x, S.y, 6, 0), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, &loss), 0);
    assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_LOSS, 0}, &got), 0);
    assert_memory_equal(&loss, &got, sizeof loss);
    setup_free(&S);
}

/* ---- fused ReLU + max-pool: the same bits as oneDNN's two primitives --------- */

/* Every ACT and DACT of every layer, the loss and GRADS: bitwise equal. */
static void expect_same_tensors(engine *a, engine *b, const char *when) {
    const model *m = a->m;
    for (int k = TENSOR_ACT; k <= TENSOR_GRADS; k++)
        for (int l = 0; l < ((k == TENSOR_ACT || k == TENSOR_DACT) ? m->n_layers : 1); l++) {
            if (k == TENSOR_PARAMS) continue;
            float *x = get_t(a, (tensor_kind)k, l), *y = get_t(b, (tensor_kind)k, l);
            size_t cnt = tensor_numel(m, (tensor_id){(tensor_kind)k, l}, a->batch);
            if (memcmp(x, y, cnt * sizeof *x)) {
                size_t i = 0;
                while (((uint32_t *)x)[i] == ((uint32_t *)y)[i]) i++;
                fprintf(stderr, "  %s: %s[%d] differs at %zu: %a (off) vs %a (on)\n", when,
                        tensor_kind_name((tensor_kind)k), l, i, x[i], y[i]);
            }
            assert_memory_equal(x, y, cnt * sizeof *x);
            free(x);
            free(y);
        }
}

/* Values that make every rule of cpu_pool.h matter: ties (a small palette),
 * +0 and -0, NaN, infinities, -FLT_MAX, subnormals, negatives. */
static void fill_nasty(float *a, size_t n, uint64_t seed, uint32_t tag) {
    static const float pal[] = {1.0f, -1.0f, 0.0f, -0.0f, 2.0f, 0.5f, -2.0f, 0x1p-149f, -0x1p-149f, -FLT_MAX,
                                FLT_MAX, INFINITY, -INFINITY, NAN, 3.0f, -0.5f};
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rng_u32(seed, (uint32_t)i, tag, 3, 1);
        a[i] = (r & 3) == 0 ? (float)(r >> 8) * 0x1p-20f - 8.0f : pal[(r >> 2) % LS_ARRAY_LEN(pal)];
    }
}

static void set_both(engine *a, engine *b, tensor_kind k, int l, const float *v) {
    assert_int_equal(engine_set_tensor(a, (tensor_id){k, l}, v), 0);
    assert_int_equal(engine_set_tensor(b, (tensor_id){k, l}, v), 0);
}

static void fuse_case(const char *spec_text, const char *name, const char *knobs, size_t n) {
    model m;
    int rc = spec_text ? model_parse_spec(&m, spec_text, "test") : model_build(&m, name);
    assert_int_equal(rc, 0);
    char sa[96], sb[96];
    snprintf(sa, sizeof sa, "cpu:%s:fuse=off", knobs);
    snprintf(sb, sizeof sb, "cpu:%s:fuse=on", knobs);
    engine *a = make_engine(&m, sa, n), *b = make_engine(&m, sb, n);
    char *d = engine_describe(b);
    if (!strstr(d, "lockstep:cpu_pool_fwd")) fprintf(stderr, "nothing fused in %s: %s\n", sb, d);
    assert_non_null(strstr(d, "lockstep:cpu_pool_fwd")); /* else this test compares nothing new */
    free(d);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *x = malloc(n * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t *y = malloc(n * sizeof *y);
    model_init_params(&m, p, 77);
    assert_int_equal(engine_set_params(a, p), 0);
    assert_int_equal(engine_set_params(b, p), 0);
    adam_cfg cfg = adam_default();

    /* three training steps, compared after each: forward, loss, backward,
     * then the update they feed */
    for (int s = 0; s < 3; s++) {
        fill_uniform(x, n * in, 90 + (uint64_t)s, 1, 0.0f, 1.0f);
        for (size_t i = 0; i < n; i++) y[i] = (int32_t)((i * 7 + (size_t)s) % (size_t)m.n_classes);
        float la, lb;
        assert_int_equal(engine_train_step(a, x, y, n, (uint64_t)s, &cfg, s + 1, &la), 0);
        assert_int_equal(engine_train_step(b, x, y, n, (uint64_t)s, &cfg, s + 1, &lb), 0);
        assert_memory_equal(&la, &lb, sizeof la);
        float *pa = get_t(a, TENSOR_PARAMS, 0), *pb = get_t(b, TENSOR_PARAMS, 0);
        assert_memory_equal(pa, pb, m.n_params * sizeof *pa);
        free(pa);
        free(pb);
    }
    assert_int_equal(engine_set_batch(a, x, y, n, 9), 0);
    assert_int_equal(engine_set_batch(b, x, y, n, 9), 0);
    assert_int_equal(engine_forward(a, 1), 0);
    assert_int_equal(engine_forward(b, 1), 0);
    float la, lb;
    assert_int_equal(engine_loss(a, &la), 0);
    assert_int_equal(engine_loss(b, &lb), 0);
    assert_int_equal(engine_backward(a), 0);
    assert_int_equal(engine_backward(b), 0);
    expect_same_tensors(a, b, "a training step");

    /* each pair alone on nasty values, the way isolated replay drives it */
    for (int r = 1; r + 1 < m.n_layers; r++) {
        if (m.layers[r].kind != LAYER_RELU || m.layers[r + 1].kind != LAYER_MAXPOOL) continue;
        size_t ci = tensor_numel(&m, (tensor_id){TENSOR_ACT, r}, n);
        size_t co = tensor_numel(&m, (tensor_id){TENSOR_ACT, r + 1}, n);
        float *v = malloc(ci * sizeof *v), *g = malloc(co * sizeof *g), *gi = malloc(ci * sizeof *gi);
        fill_nasty(v, ci, 5, (uint32_t)r);
        fill_nasty(g, co, 6, (uint32_t)r);
        fill_nasty(gi, ci, 7, (uint32_t)r);
        /* (1) the fused path: the ReLU's input set, both layers run forward
         * and backward, then every tensor read */
        set_both(a, b, TENSOR_ACT, r - 1, v);
        for (int l = r; l <= r + 1; l++) {
            assert_int_equal(engine_forward_layer(a, l, 1), 0);
            assert_int_equal(engine_forward_layer(b, l, 1), 0);
        }
        set_both(a, b, TENSOR_DACT, r + 1, g);
        for (int l = r + 1; l >= r; l--) {
            assert_int_equal(engine_backward_layer(a, l), 0);
            assert_int_equal(engine_backward_layer(b, l), 0);
        }
        expect_same_tensors(a, b, "relu+pool on nasty values");
        /* (2) the pool fed a ReLU output set from outside (NaN, -inf and
         * all), and the ReLU backward fed its own DACT and input */
        set_both(a, b, TENSOR_ACT, r, v);
        assert_int_equal(engine_forward_layer(a, r + 1, 1), 0);
        assert_int_equal(engine_forward_layer(b, r + 1, 1), 0);
        set_both(a, b, TENSOR_DACT, r + 1, g);
        assert_int_equal(engine_backward_layer(a, r + 1), 0);
        assert_int_equal(engine_backward_layer(b, r + 1), 0);
        float *da = get_t(a, TENSOR_DACT, r), *db = get_t(b, TENSOR_DACT, r);
        assert_memory_equal(da, db, ci * sizeof *da);
        free(da);
        free(db);
        set_both(a, b, TENSOR_ACT, r - 1, gi);
        set_both(a, b, TENSOR_DACT, r, v);
        assert_int_equal(engine_backward_layer(a, r), 0);
        assert_int_equal(engine_backward_layer(b, r), 0);
        expect_same_tensors(a, b, "pool and relu fed from outside");
        free(v);
        free(g);
        free(gi);
    }
    engine_free(a);
    engine_free(b);
    free(x);
    free(p);
    free(y);
}

/* The mutation zoo's knob exists only in the test build (-DLS_FAULTS=1,
 * build/lockstep-faults): this program links the user build's engine, which
 * must refuse fault= as an unknown knob. */
static void test_no_fault_knob(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine *e = NULL;
    engine_opts o = {1, 4, 0};
    assert_int_not_equal(engine_create(&e, "cpu:fault=conv1_bias_twice", &m, &o), 0);
    assert_null(e);
    assert_non_null(strstr(ls_errmsg(), "unknown knob 'fault'"));
}

/* The count describe() gives under "other_path" for `key` ("relu1.act"). */
static long other_path_count(engine *e, const char *key) {
    char *d = engine_describe(e), pat[64];
    assert_non_null(d);
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *o = strstr(d, "\"other_path\":{");
    assert_non_null(o);
    const char *k = strstr(o, pat);
    assert_non_null(k);
    long v = strtol(k + strlen(pat), NULL, 10);
    free(d);
    return v;
}

/* Isolated replay (audit/driver.c step_once) reads every layer's output and
 * sets it back, as the leader's value, before the next layer runs.  The
 * fused ReLU + max-pool must keep running as in training when the value set
 * is the one its rule gives: describe() counts no set off the rule, and the
 * bits are oneDNN's separate primitives' (fuse=off) as in training.  A set
 * that breaks the rule (one element moved) must be counted, and the pair
 * must then compute from the value set, like the separate layers do. */
static void test_isolated_replay_fused(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    size_t n = 8, in = (size_t)m.in_c * m.in_h * m.in_w;
    engine *a = make_engine(&m, "cpu:fuse=off", n), *b = make_engine(&m, "cpu:fuse=on", n);
    float *x = malloc(n * in * sizeof *x), *p = malloc(m.n_params * sizeof *p);
    int32_t *y = malloc(n * sizeof *y);
    fill_uniform(x, n * in, 31, 1, 0.0f, 1.0f);
    for (size_t i = 0; i < n; i++) y[i] = (int32_t)(i % (size_t)m.n_classes);
    model_init_params(&m, p, 31);
    assert_int_equal(engine_set_params(a, p), 0);
    assert_int_equal(engine_set_params(b, p), 0);
    for (int step = 1; step <= 2; step++) {
        assert_int_equal(engine_set_batch(a, x, y, n, (uint64_t)step), 0);
        assert_int_equal(engine_set_batch(b, x, y, n, (uint64_t)step), 0);
        for (int l = 0; l < m.n_layers; l++) {
            if (l > 0) {
                float *v = get_t(a, TENSOR_ACT, l - 1), *w = get_t(b, TENSOR_ACT, l - 1);
                assert_memory_equal(v, w, tensor_numel(&m, (tensor_id){TENSOR_ACT, l - 1}, n) * sizeof *v);
                set_both(a, b, TENSOR_ACT, l - 1, v);
                free(v);
                free(w);
            }
            assert_int_equal(engine_forward_layer(a, l, 1), 0);
            assert_int_equal(engine_forward_layer(b, l, 1), 0);
        }
        float la, lb;
        assert_int_equal(engine_loss(a, &la), 0);
        assert_int_equal(engine_loss(b, &lb), 0);
        for (int l = m.n_layers - 1; l >= 0; l--) {
            float *v = get_t(a, TENSOR_DACT, l);
            set_both(a, b, TENSOR_DACT, l, v);
            free(v);
            assert_int_equal(engine_backward_layer(a, l), 0);
            assert_int_equal(engine_backward_layer(b, l), 0);
        }
        expect_same_tensors(a, b, "isolated replay");
        assert_int_equal(engine_update(a, &(adam_cfg){1e-3, 0.9, 0.999, 1e-8}, step), 0);
        assert_int_equal(engine_update(b, &(adam_cfg){1e-3, 0.9, 0.999, 1e-8}, step), 0);
    }
    const char *keys[] = {"relu1.act", "relu1.dact", "relu2.act", "relu2.dact"};
    for (size_t k = 0; k < LS_ARRAY_LEN(keys); k++) assert_int_equal(other_path_count(b, keys[k]), 0);

    /* relu1's ACT set off its rule: counted, and pool1 computes from it */
    int r = 1;
    assert_int_equal(m.layers[r].kind, LAYER_RELU);
    float *v = get_t(b, TENSOR_ACT, r);
    v[3] = v[3] + 1.0f; /* relu of anything is never this where it was +0, and never x + 1 */
    set_both(a, b, TENSOR_ACT, r, v);
    assert_int_equal(engine_forward_layer(a, r + 1, 1), 0);
    assert_int_equal(engine_forward_layer(b, r + 1, 1), 0);
    float *pa = get_t(a, TENSOR_ACT, r + 1), *pb = get_t(b, TENSOR_ACT, r + 1);
    assert_memory_equal(pa, pb, tensor_numel(&m, (tensor_id){TENSOR_ACT, r + 1}, n) * sizeof *pa);
    assert_int_equal(other_path_count(b, "relu1.act"), 1);
    free(v);
    free(pa);
    free(pb);
    engine_free(a);
    engine_free(b);
    free(x);
    free(p);
    free(y);
}

/* cpu_pool.c's three paths (AVX-512F, AVX2, scalar) give the same bits on
 * nasty values, in nChw16c and nChw8c, even and odd sizes.  The scalar
 * path is the rules as written; test_fuse_bitwise holds the path this CPU
 * takes to oneDNN's own primitives. */
static void test_cpu_pool_paths(void **st) {
    const cpu_pool_geom geoms[] = {{3, 2, 16, 6, 8, 3, 4}, {2, 3, 8, 7, 5, 3, 2}, {2, 1, 16, 5, 5, 2, 2}};
    const char *paths[] = {"avx512f", "avx2"};
    for (size_t gi = 0; gi < LS_ARRAY_LEN(geoms); gi++) {
        const cpu_pool_geom *g = &geoms[gi];
        size_t ni = g->n * g->cb * g->blk * g->h * g->w, no = g->n * g->cb * g->blk * g->oh * g->ow;
        float *in = malloc(ni * sizeof *in), *dout = malloc(no * sizeof *dout);
        fill_nasty(in, ni, 11, (uint32_t)gi);
        fill_nasty(dout, no, 12, (uint32_t)gi);
        float *ref_o = malloc(no * sizeof *ref_o), *ref_d[2], *o = malloc(no * sizeof *o), *dd = malloc(ni * sizeof *dd);
        uint8_t *ref_ix = malloc(no), *ix = malloc(no);
        assert_int_equal(cpu_pool_force_isa("scalar"), 0);
        cpu_pool_fwd(ref_o, ref_ix, in, 1, g);
        for (int relu = 0; relu < 2; relu++) {
            ref_d[relu] = malloc(ni * sizeof *dd);
            memset(ref_d[relu], 0x7f, ni * sizeof *dd); /* every element must be written */
            cpu_pool_bwd(ref_d[relu], dout, ref_ix, relu, g);
        }
        for (size_t pi = 0; pi < LS_ARRAY_LEN(paths); pi++) {
            if (cpu_pool_force_isa(paths[pi])) {
                printf("  %s: not on this CPU, not compared\n", paths[pi]);
                continue;
            }
            cpu_pool_fwd(o, ix, in, 1, g);
            assert_memory_equal(o, ref_o, no * sizeof *o);
            assert_memory_equal(ix, ref_ix, no);
            for (int relu = 0; relu < 2; relu++) {
                memset(dd, 0x7f, ni * sizeof *dd);
                cpu_pool_bwd(dd, dout, ix, relu, g);
                assert_memory_equal(dd, ref_d[relu], ni * sizeof *dd);
            }
            printf("  %s = scalar: blk %zu, %zux%zu -> %zux%zu\n", paths[pi], g->blk, g->h, g->w, g->oh, g->ow);
        }
        /* leave the fastest path on, as the engine would pick it */
        assert_true(cpu_pool_force_isa("avx512f") == 0 || cpu_pool_force_isa("avx2") == 0 ||
                    cpu_pool_force_isa("scalar") == 0);
        free(in); free(dout); free(ref_o); free(ref_d[0]); free(ref_d[1]); free(o); free(dd); free(ref_ix); free(ix);
    }
}

/* fuse=on must be a speed knob only.  SmallCNN (nChw16c), 2 threads; odd
 * sizes with a channel count that fills no block; 8 channels; plain NCHW. */
static void test_fuse_bitwise(void **st) {
    fuse_case(NULL, "smallcnn", "threads=2", 6);
    fuse_case("input 3 9 9; conv 5 3 pad 1; relu; maxpool; conv 6 2; relu; maxpool; flatten; dense 4", NULL,
              "threads=1", 5);
    fuse_case("input 2 8 8; conv 8 3 pad 1; relu; maxpool; flatten; dense 3", NULL, "threads=1", 4);
    fuse_case("input 3 9 9; conv 5 3 pad 1; relu; maxpool; conv 6 2; relu; maxpool; flatten; dense 4", NULL,
              "threads=1:layout=plain", 5);
}

/* ---- Adam, knobs, describe ----------------------------------------------------- */

static void test_adam_bitwise(void **st) {
    setup S;
    setup_make(&S, SMALL_SPEC, NULL, "cpu:threads=1", 8, 8, 51);
    size_t np = S.m.n_params;
    float *g = malloc(np * sizeof *g), *m = malloc(np * sizeof *m), *v = malloc(np * sizeof *v);
    float *p = malloc(np * sizeof *p), *got = malloc(np * sizeof *got);
    fill_uniform(g, np, 52, 1, -1e-2f, 1e-2f);
    fill_uniform(m, np, 52, 2, -1e-3f, 1e-3f);
    fill_uniform(v, np, 52, 3, 0.0f, 1e-5f);
    memcpy(p, S.p, np * sizeof *p);
    assert_int_equal(engine_set_tensor(S.e, (tensor_id){TENSOR_GRADS, 0}, g), 0);
    assert_int_equal(engine_set_tensor(S.e, (tensor_id){TENSOR_ADAM_M, 0}, m), 0);
    assert_int_equal(engine_set_tensor(S.e, (tensor_id){TENSOR_ADAM_V, 0}, v), 0);
    adam_cfg cfg = adam_default();
    assert_int_equal(engine_update(S.e, &cfg, 7), 0);
    adam_scalars a = adam_make_scalars(&cfg, 7);
    for (size_t i = 0; i < np; i++)
        ops_adam_elem(p + i, m + i, v + i, g[i], a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2, a.step_size,
                      a.bc2_sqrt, a.eps);
    assert_int_equal(engine_get_tensor(S.e, (tensor_id){TENSOR_PARAMS, 0}, got), 0);
    assert_memory_equal(p, got, np * sizeof *p);
    assert_int_equal(engine_get_tensor(S.e, (tensor_id){TENSOR_ADAM_M, 0}, got), 0);
    assert_memory_equal(m, got, np * sizeof *p);
    assert_int_equal(engine_get_tensor(S.e, (tensor_id){TENSOR_ADAM_V, 0}, got), 0);
    assert_memory_equal(v, got, np * sizeof *p);
    free(g); free(m); free(v); free(p); free(got);
    setup_free(&S);
}

static void test_knobs_and_describe(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine_opts o = {1, 4, 0};
    engine *e = NULL;
    /* a knob's value refused is worded as its name refused ("engine SPEC: unknown knob 'colour' (known:
     * ...)"): the spec, the value, the knob and the choices; it read "cpu: algo=fft (known: ...)" */
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"cpu:colour=blue", "engine cpu:colour=blue: unknown knob 'colour' (known: threads, algo,"},
        {"cpu:algo=fft", "engine cpu:algo=fft: unknown value 'fft' for knob algo (known: direct, winograd, auto)"},
        {"cpu:math=fast", "engine cpu:math=fast: unknown value 'fast' for knob math (known: vendor, portable)"},
        {"cpu:layout=nhwc", "engine cpu:layout=nhwc: unknown value 'nhwc' for knob layout (known: plain, blocked)"},
        {"cpu:fuse=yes", "engine cpu:fuse=yes: unknown value 'yes' for knob fuse (known: off, on)"},
        {"cpu:tf32=yes", "engine cpu:tf32=yes: unknown value 'yes' for knob tf32 (known: off, on)"},
        {"cpu:dtype=f16", "engine cpu:dtype=f16: unknown value 'f16' for knob dtype (known: f32, bf16)"},
        {"cpu:tf32=on:tf32round=up",
         "engine cpu:tf32=on:tf32round=up: unknown value 'up' for knob tf32round (known: rna, rne, rz)"},
        {"cpu:isa=avx9", "engine cpu:isa=avx9: unknown value 'avx9' for knob isa (known: all, sse41, avx,"},
        {"cpu:threads=0", "engine cpu:threads=0: bad value '0' for knob threads (expected a count from 1 to 1024)"},
    };
    for (size_t i = 0; i < LS_ARRAY_LEN(bad); i++) {
        assert_int_equal(engine_create(&e, bad[i].spec, &m, &o), LS_EINVAL);
        if (!strstr(ls_errmsg(), bad[i].msg)) fail_msg("%s: '%s' lacks '%s'", bad[i].spec, ls_errmsg(), bad[i].msg);
    }
    /* oneDNN has built primitives in this process by now: the ISA cap can
     * no longer be changed, and asking must fail cleanly, not be ignored */
    e = make_engine(&m, "cpu:threads=1", 4);
    engine_free(e);
    e = NULL;
    int rc = engine_create(&e, "cpu:isa=avx2", &m, &o);
    assert_int_equal(rc, LS_EUNAVAIL);
    assert_non_null(strstr(ls_errmsg(), "isa"));
    /* describe names version, ISA, threads, fpmath, algorithms, math */
    e = make_engine(&m, "cpu:threads=1:math=portable:algo=auto", 4);
    char *d = engine_describe(e);
    assert_non_null(d);
    const char *keys[] = {"\"version\":\"2.6", "\"isa\":", "\"threads\":1", "\"fpmath\":\"fpmath_mode_strict\"",
                          "\"algo\":\"auto\"", "\"math\":\"portable\"", "\"fwd\":\"", "\"bwd_weights\":\""};
    for (size_t i = 0; i < LS_ARRAY_LEN(keys); i++) {
        if (!strstr(d, keys[i])) fprintf(stderr, "describe lacks %s: %s\n", keys[i], d);
        assert_non_null(strstr(d, keys[i]));
    }
    free(d);
    engine_free(e);
    /* the default engine runs no oneDNN reference kernel (ref:any is a
     * correctness fallback ~70x slower): on AVX2, conv1's backward-weights
     * took ref:any until it got its own nChw8c copy of the image
     * (bwd_w_own_src) */
    e = make_engine(&m, "cpu:threads=1", 4);
    d = engine_describe(e);
    if (strstr(d, "\":\"ref:")) fail_msg("a oneDNN reference kernel in the default engine: %s", d);
    free(d);
    engine_free(e);
    /* Winograd: builds (layers it cannot do fall back to direct, said in
     * describe) and trains a step to a finite loss */
    e = make_engine(&m, "cpu:threads=1:algo=winograd", 4);
    float *x = calloc(4 * 784, sizeof *x), loss;
    int32_t y[4] = {1, 2, 3, 4};
    float *p = malloc(m.n_params * sizeof *p);
    model_init_params(&m, p, 3);
    assert_int_equal(engine_set_params(e, p), 0);
    for (int i = 0; i < 4 * 784; i++) x[i] = (float)(i % 17) / 17.0f;
    assert_int_equal(engine_train_step(e, x, y, 4, 0, &(adam_cfg){1e-3, 0.9, 0.999, 1e-8}, 1, &loss), 0);
    assert_true(isfinite(loss));
    d = engine_describe(e);
    printf("  winograd: %s\n", d);
    if (strstr(d, "\"isa\":\"cpu_isa_avx512") || strstr(d, "\"isa\":\"cpu_isa_avx10")) {
        /* conv2 (16 input channels, blocked) runs Winograd: the engine's algo is the one asked for */
        assert_non_null(strstr(d, "\"algo\":\"winograd\""));
        assert_null(strstr(d, "algo_requested"));
    } else {
        /* oneDNN 2.6 has no Winograd below AVX-512 (an AVX2 AMD EPYC, say):
         * every convolution ran direct, and the note says why */
        if (!strstr(d, "\"algo\":\"direct\"") || !strstr(d, "Winograd kernels for AVX-512 only"))
            fail_msg("a Winograd that ran direct on a CPU without AVX-512, described as: %s", d);
        printf("  winograd: no AVX-512 on this CPU: the fallback to direct checked instead\n");
    }
    free(d);
    engine_free(e);
    /* with a plain layout no convolution has a Winograd kernel: the engine says it ran direct */
    e = make_engine(&m, "cpu:threads=1:algo=winograd:layout=plain", 4);
    d = engine_describe(e);
    if (!strstr(d, "\"algo\":\"direct\"") || !strstr(d, "\"algo_requested\":\"winograd\""))
        fail_msg("a Winograd that ran direct, described as: %s", d);
    if (!strstr(d, "layout or shapes") && !strstr(d, "Winograd kernels for AVX-512 only"))
        fail_msg("plain layout's fallback, described as: %s", d);
    free(d);
    engine_free(e);
    /* dtype=bf16 builds every convolution direct whatever algo= says: the
     * note names the dtype (not "layout or shapes", whose fix, a blocked
     * layout, it already has), and auto, which promises no algorithm, is no
     * fallback at all */
    engine *eb = NULL;
    engine_opts ob = {1234, 4, 0};
    if (engine_create(&eb, "cpu:threads=1:algo=winograd:dtype=bf16", &m, &ob) == 0) {
        d = engine_describe(eb);
        if (!strstr(d, "\"algo\":\"direct\"") || !strstr(d, "dtype=bf16") || strstr(d, "layout or shapes"))
            fail_msg("bf16's direct convolutions, described as: %s", d);
        free(d);
        engine_free(eb);
        eb = make_engine(&m, "cpu:threads=1:algo=auto:dtype=bf16", 4);
        d = engine_describe(eb);
        if (strstr(d, "algo_requested")) fail_msg("algo=auto described as a fallback: %s", d);
        free(d);
        engine_free(eb);
    } else {
        ls_err_clear(); /* no bf16 kernels on this CPU (LS_EUNAVAIL) */
    }
    free(x);
    free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers_small),
        cmocka_unit_test(test_layers_smallcnn),
        cmocka_unit_test(test_layers_plain_layout),
        cmocka_unit_test(test_layers_dropout_blocked),
        cmocka_unit_test(test_gradcheck_small),
        cmocka_unit_test(test_gradcheck_smallcnn),
        cmocka_unit_test(test_smallcnn_shapes),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_adam_bitwise),
        cmocka_unit_test(test_knobs_and_describe),
        cmocka_unit_test(test_fuse_bitwise),
        cmocka_unit_test(test_cpu_pool_paths),
        cmocka_unit_test(test_isolated_replay_fused),
        cmocka_unit_test(test_no_fault_knob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
