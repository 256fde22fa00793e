/*
 * engine_reference.c — the reference engine: the exact mathematics of the
 * training step, as the judge of the fp32 engines (DESIGN.md §2, issue 3).
 *
 * Two modes (knob mode=exact|fp32cr, prec=P, threads=N):
 *   exact   every value (input, activations, gradients, parameters, Adam
 *           moments, loss) is an MPFR number of P bits, starting from the
 *           fp32 parameters and batch; nothing is rounded to fp32.  Each dot
 *           product is accumulated with mpfr_fma into a P+64-bit
 *           accumulator (exact product, one rounding per term far below the
 *           stored precision) and rounded once to P bits.
 *   fp32cr  the ideal fp32 engine: every stored value is fp32, and every
 *           layer output, gradient and Adam element is the correctly
 *           rounded fp32 value of the exact result of that operation's fp32
 *           inputs (dot products through kulisch.h, the rest fp32cr.h).
 *
 * tf32=on (tf32round=rna|rne|rz, default rna as cpu:tf32=on, lowp.h): the
 * ideal TF32 engine.  The operands of every conv / dense product (forward x
 * and w, backward-data dy and w, backward-weights x and dy) are rounded to
 * TF32 first — in exact mode the stored value is rounded to fp32 (what a
 * TF32 engine is given) and then to TF32 — and the products and sums of
 * those operands are exact, rounded once as the mode says.  The bias
 * gradient is summed from the unrounded dy (as cpu:tf32=on and cuDNN: a
 * sum, not a tensor-core product).  Against it, a TF32 engine's own error
 * is fp32 accumulation only.
 *
 * Layer semantics are those of every engine (engine.h, model.h): conv k x k
 * stride 1 zero pad + bias; ReLU (derivative 0 at 0, taken from the layer's
 * input); maxpool 2x2 stride 2 floor, whose backward routes the gradient to
 * the FIRST maximum of the window in row-major order (strict '>' scan:
 * (0,0), (0,1), (1,0), (1,1)), as oneDNN and cuDNN do; flatten; dense
 * (out, in) + bias, computed as a 1x1 convolution over a 1x1 image;
 * dropout with the shared Philox masks (rng_dropout_keep) and the exact
 * scale 1/(1-p); softmax cross-entropy, mean over the batch.
 *
 * Storage: one MPFR custom-interface block per tensor (mpvec: an array of
 * __mpfr_struct plus one limb buffer), made once at creation for
 * max_batch.  Threads: OpenMP over (sample, channel) or (out, in channel)
 * pairs; each output is computed whole by one thread in a fixed order, so
 * results do not depend on the thread count.
 *
 * Not here: comparison, scheduling, the command line.
 */
#include <math.h>
#include <mpfr.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/registry.h"
#include "engine_reference.h"
#include "fp32cr.h"
#include "kulisch.h"
#include "base/lowp.h"
#include "base/ops_elem.h"
#include "base/rng.h"
#include "base/util.h"
#include "xacc.h"

enum { REF_EXACT, REF_FP32CR };

/* ---- contiguous MPFR vectors ------------------------------------------- */

typedef struct {
    size_t n;
    __mpfr_struct *v;
    mp_limb_t *limbs;
} mpvec;

static int mpvec_init(mpvec *a, size_t n, mpfr_prec_t prec) {
    a->n = n;
    size_t sz = mpfr_custom_get_size(prec); /* bytes per significand */
    size_t nl = (sz + sizeof(mp_limb_t) - 1) / sizeof(mp_limb_t);
    a->v = ls_malloc((n ? n : 1) * sizeof *a->v);
    a->limbs = ls_malloc((n ? n : 1) * nl * sizeof(mp_limb_t));
    if (!a->v || !a->limbs) {
        free(a->v);
        free(a->limbs);
        a->v = NULL;
        a->limbs = NULL;
        return LS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        mpfr_custom_init_set(&a->v[i], MPFR_ZERO_KIND, 0, prec, a->limbs + i * nl);
    return LS_OK;
}

static void mpvec_free(mpvec *a) {
    free(a->v);
    free(a->limbs);
    a->v = NULL;
    a->limbs = NULL;
}

/* ---- context ------------------------------------------------------------- */

typedef struct {
    int32_t m, e, q;
} kq;

typedef struct {
    xfl v;
    int32_t q;
} xq;

typedef struct {
    int mode;
    mpfr_prec_t prec;
    int threads;
    int L;
    size_t n;             /* current batch */
    uint64_t step;
    int32_t *labels;
    int training[MODEL_MAX_LAYERS];
    /* fp32cr */
    float *x, *act[MODEL_MAX_LAYERS], *dact[MODEL_MAX_LAYERS];
    float *params, *grads, *am, *av, loss;
    kfl *ka, *kb, *kc; /* split operands (scratch) */
    kq **col;          /* per thread: one sample's nonzero receptive fields */
    int32_t **cnt;     /* per thread: list lengths per position */
    kq *nz;            /* nonzero dy lists per (sample, channel) plane */
    int32_t *nzc;
    /* exact */
    mpvec mx, mact[MODEL_MAX_LAYERS], mdact[MODEL_MAX_LAYERS];
    mpvec mparams, mgrads, mam, mav, mloss;
    mpfr_t *acc, *tmp, *tmp2; /* one each per thread, prec + 64 */
    /* exact, P <= 128 (xacc.h) */
    int fast;          /* prec <= 128: xacc kernels */
    xfl *xa, *xb, *xc; /* split operands (scratch) */
    xq **xcol;         /* per thread lists, as col */
    int32_t **xcnt;
    xq *xnz;           /* nonzero dy lists, as nz (counts in nzc) */
    mpz_t *z;          /* per thread scratch for xacc_get */
    /* tf32=on: TF32-rounded operand copies (fp32cr: tx, tdy, tw; exact:
     * the same as mpvecs), tw / mtw indexed like the parameters */
    int tf32;
    lowp_round tf32_mode;
    float *tx, *tdy, *tw;
    mpvec mtx, mtdy, mtw;
} ref_ctx;

static ref_ctx *ctx_of(engine *e) { return (ref_ctx *)e->ctx; }

/* ============================================================================
 * fp32cr kernels.  A dense layer is a 1x1 convolution on a 1x1 image.
 * ========================================================================== */

typedef struct {
    int N, C, H, W, O, OH, OW, k, pad;
} conv_shape;

static conv_shape shape_of(const layer *l, size_t n) {
    conv_shape s;
    s.N = (int)n;
    s.C = l->in_c;
    s.H = l->in_h;
    s.W = l->in_w;
    s.O = l->out_c;
    s.OH = l->out_h;
    s.OW = l->out_w;
    s.k = l->kind == LAYER_CONV ? l->k : 1;
    s.pad = l->kind == LAYER_CONV ? l->pad : 0;
    return s;
}

static int negzero_prod(float a, float b) { return (a == 0 || b == 0) && signbit(a) != signbit(b); }


/* Lists of nonzero split operands (kq: value and where it goes, a weight
 * index or a packed position) skip zero operands: a zero term changes no
 * exact sum. */
/* Sign of an exact zero result: -0 only when every term is -0 (the IEEE /
 * mpfr_sum rule); each kernel checks its own terms from the float
 * operands in the rare exact-zero case. */

/* y (N,O,OH,OW) = conv(x (N,C,H,W), w (O,C,k,k)) + b (O).  Per sample, each
 * output position's nonzero inputs are listed once (col, cnt), then every
 * output channel is one dot product over that list. */
static void cr_conv_fwd(ref_ctx *c, float *y, const float *x, const float *w, const float *b, conv_shape s) {
    size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.O * s.C * s.k * s.k;
    int ex, ew, eb;
    int bad = kfl_split(c->ka, x, nx, &ex) + kfl_split(c->kb, w, nw, &ew) + kfl_split(c->kc, b, (size_t)s.O, &eb);
    const kfl *kx = c->ka, *kw = c->kb, *kb = c->kc;
    int emax = ex + ew > eb ? ex + ew : eb;
    int kk = s.k * s.k;
    size_t Kw = (size_t)s.C * kk, K = Kw + 1;
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long n = 0; n < (long)s.N; n++) {
        kq *col = c->col[omp_get_thread_num()];
        int32_t *cnt = c->cnt[omp_get_thread_num()];
        if (!bad)
            for (int i = 0; i < s.OH; i++)
                for (int j = 0; j < s.OW; j++) {
                    kq *cr = col + ((size_t)i * s.OW + j) * Kw, *c0 = cr;
                    for (int ci = 0; ci < s.C; ci++)
                        for (int ky = 0; ky < s.k; ky++) {
                            int iy = i + ky - s.pad;
                            if (iy < 0 || iy >= s.H) continue;
                            for (int kx2 = 0; kx2 < s.k; kx2++) {
                                int ix = j + kx2 - s.pad;
                                if (ix < 0 || ix >= s.W) continue;
                                kfl v = kx[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix];
                                if (v.m) *cr++ = (kq){v.m, v.e, ci * kk + ky * s.k + kx2};
                            }
                        }
                    cnt[i * s.OW + j] = (int32_t)(cr - c0);
                }
        for (int o = 0; o < s.O; o++)
            for (int i = 0; i < s.OH; i++)
                for (int j = 0; j < s.OW; j++) {
                    float *out = &y[(((size_t)n * s.O + o) * s.OH + i) * s.OW + j];
                    if (bad) { /* IEEE propagation of inf/NaN, not bit-specified */
                        double acc = b[o];
                        for (int ci = 0; ci < s.C; ci++)
                            for (int ky = 0; ky < s.k; ky++)
                                for (int kx2 = 0; kx2 < s.k; kx2++) {
                                    int iy = i + ky - s.pad, ix = j + kx2 - s.pad;
                                    if (iy < 0 || iy >= s.H || ix < 0 || ix >= s.W) continue;
                                    acc += (double)w[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2] *
                                           x[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix];
                                }
                        *out = (float)acc;
                        continue;
                    }
                    kul_acc a;
                    kul_init(&a, emax, K);
                    unsigned __int128 win = kul_term(0, &a, kb[o].m, kb[o].e);
                    const kfl *wr = kw + (size_t)o * Kw;
                    const kq *cr = col + ((size_t)i * s.OW + j) * Kw;
                    for (int t = 0, nt = cnt[i * s.OW + j]; t < nt; t++) {
                        kfl wv = wr[cr[t].q];
                        win = kul_term(win, &a, (int64_t)wv.m * cr[t].m, wv.e + cr[t].e);
                    }
                    a.win = win;
                    int z;
                    float r = kul_round(&a, &z);
                    if (z) { /* -0 only when every term is -0 */
                        int neg = b[o] == 0 && signbit(b[o]);
                        for (int ci = 0; ci < s.C && neg; ci++)
                            for (int ky = 0; ky < s.k && neg; ky++)
                                for (int kx2 = 0; kx2 < s.k && neg; kx2++) {
                                    int iy = i + ky - s.pad, ix = j + kx2 - s.pad;
                                    if (iy < 0 || iy >= s.H || ix < 0 || ix >= s.W) continue;
                                    neg = negzero_prod(w[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2],
                                                       x[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix]);
                                }
                        if (neg) r = -0.0f;
                    }
                    *out = r;
                }
    }
}

/* dx (N,C,H,W) = conv_transpose(dy (N,O,OH,OW), w (O,C,k,k)).  The weights
 * are regrouped as wt (C, O*k*k); per sample, each input position's nonzero
 * dy values are listed with the tap they meet (most dy are zero after a
 * max-pool backward). */
static void cr_conv_bwd_data(ref_ctx *c, float *dx, const float *dy, const float *w, conv_shape s) {
    size_t ndy = (size_t)s.N * s.O * s.OH * s.OW, nw = (size_t)s.O * s.C * s.k * s.k;
    int ed, ew;
    int bad = kfl_split(c->ka, dy, ndy, &ed) + kfl_split(c->kb, w, nw, &ew);
    const kfl *kd = c->ka, *kw = c->kb;
    int kk = s.k * s.k;
    size_t K = (size_t)s.O * kk;
    kfl *wt = c->kc;
    for (int ci = 0; ci < s.C; ci++)
        for (int o = 0; o < s.O; o++)
            for (int q = 0; q < kk; q++)
                wt[(size_t)ci * K + (size_t)o * kk + q] = kw[((size_t)o * s.C + ci) * kk + q];
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long n = 0; n < (long)s.N; n++) {
        kq *col = c->col[omp_get_thread_num()];
        int32_t *cnt = c->cnt[omp_get_thread_num()];
        if (!bad)
            for (int iy = 0; iy < s.H; iy++)
                for (int ix = 0; ix < s.W; ix++) {
                    kq *cr = col + ((size_t)iy * s.W + ix) * K, *c0 = cr;
                    for (int o = 0; o < s.O; o++)
                        for (int ky = 0; ky < s.k; ky++) {
                            int oy = iy + s.pad - ky;
                            if (oy < 0 || oy >= s.OH) continue;
                            for (int kx2 = 0; kx2 < s.k; kx2++) {
                                int ox = ix + s.pad - kx2;
                                if (ox < 0 || ox >= s.OW) continue;
                                kfl v = kd[(((size_t)n * s.O + o) * s.OH + oy) * s.OW + ox];
                                if (v.m) *cr++ = (kq){v.m, v.e, o * kk + ky * s.k + kx2};
                            }
                        }
                    cnt[iy * s.W + ix] = (int32_t)(cr - c0);
                }
        for (int ci = 0; ci < s.C; ci++)
            for (int iy = 0; iy < s.H; iy++)
                for (int ix = 0; ix < s.W; ix++) {
                    float *out = &dx[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix];
                    if (bad) {
                        double dacc = 0.0;
                        for (int o = 0; o < s.O; o++)
                            for (int ky = 0; ky < s.k; ky++)
                                for (int kx2 = 0; kx2 < s.k; kx2++) {
                                    int oy = iy + s.pad - ky, ox = ix + s.pad - kx2;
                                    if (oy < 0 || oy >= s.OH || ox < 0 || ox >= s.OW) continue;
                                    dacc += (double)w[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2] *
                                            dy[(((size_t)n * s.O + o) * s.OH + oy) * s.OW + ox];
                                }
                        *out = (float)dacc;
                        continue;
                    }
                    kul_acc a;
                    kul_init(&a, ed + ew, K);
                    unsigned __int128 win = 0;
                    const kfl *wr = wt + (size_t)ci * K;
                    const kq *cr = col + ((size_t)iy * s.W + ix) * K;
                    for (int t = 0, nt = cnt[iy * s.W + ix]; t < nt; t++) {
                        kfl wv = wr[cr[t].q];
                        win = kul_term(win, &a, (int64_t)wv.m * cr[t].m, wv.e + cr[t].e);
                    }
                    a.win = win;
                    int z;
                    float r = kul_round(&a, &z);
                    if (z) {
                        int neg = 1;
                        for (int o = 0; o < s.O && neg; o++)
                            for (int ky = 0; ky < s.k && neg; ky++)
                                for (int kx2 = 0; kx2 < s.k && neg; kx2++) {
                                    int oy = iy + s.pad - ky, ox = ix + s.pad - kx2;
                                    if (oy < 0 || oy >= s.OH || ox < 0 || ox >= s.OW) continue;
                                    neg = negzero_prod(w[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2],
                                                       dy[(((size_t)n * s.O + o) * s.OH + oy) * s.OW + ox]);
                                }
                        if (neg) r = -0.0f;
                    }
                    *out = r;
                }
    }
}

/* dw (O,C,k,k) = sum over samples and positions of dy (x) x;  db (O) = sum
 * of dy.  The nonzero dy of every (sample, out channel) plane are listed
 * first (position packed as oy << 16 | ox); each (o, c) job then runs all
 * k*k taps sample by sample, so one sample's planes stay in L1 and each
 * tap's window stays in a register for a whole list. */
static void cr_conv_bwd_weights(ref_ctx *c, float *dw, float *db, const float *dy, const float *x, conv_shape s) {
    size_t ndy = (size_t)s.N * s.O * s.OH * s.OW, nx = (size_t)s.N * s.C * s.H * s.W;
    int ed, ex;
    int bad = kfl_split(c->ka, dy, ndy, &ed) + kfl_split(c->kb, x, nx, &ex);
    const kfl *kd = c->ka, *kx = c->kb;
    size_t K = (size_t)s.N * s.OH * s.OW, P = (size_t)s.OH * s.OW;
    int kk = s.k * s.k;
    kq *nz = c->nz;
    int32_t *nzc = c->nzc;
    if (!bad) {
#pragma omp parallel for num_threads(c->threads) schedule(static)
        for (long no = 0; no < (long)s.N * s.O; no++) {
            const kfl *dr = kd + (size_t)no * P;
            kq *l = nz + (size_t)no * P, *l0 = l;
            for (int oy = 0; oy < s.OH; oy++)
                for (int ox = 0; ox < s.OW; ox++) {
                    kfl v = dr[oy * s.OW + ox];
                    if (v.m) *l++ = (kq){v.m, v.e, (oy << 16) | ox};
                }
            nzc[no] = (int32_t)(l - l0);
        }
    }
    long njobs = (long)s.O * s.C + s.O; /* (o, c) weight jobs, then O bias jobs */
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long job = 0; job < njobs; job++) {
        if (job >= (long)s.O * s.C) {
            int o = (int)(job - (long)s.O * s.C);
            kul_acc a;
            kul_init(&a, ed, K);
            unsigned __int128 win = 0;
            double dacc = 0.0;
            int neg = 1;
            for (int n = 0; n < s.N; n++) {
                size_t base = ((size_t)n * s.O + o) * P;
                for (size_t p = 0; p < P; p++) {
                    dacc += dy[base + p];
                    neg = neg && dy[base + p] == 0 && signbit(dy[base + p]);
                }
                if (!bad)
                    for (int t = 0; t < nzc[(size_t)n * s.O + o]; t++)
                        win = kul_term(win, &a, nz[base + t].m, nz[base + t].e);
            }
            a.win = win;
            int z;
            float r = bad ? (float)dacc : kul_round(&a, &z);
            if (!bad && z) r = neg ? -0.0f : 0.0f;
            db[o] = r;
            continue;
        }
        int o = (int)(job / s.C), ci = (int)(job % s.C);
        kul_acc acc[kk];
        for (int q = 0; q < kk; q++) kul_init(&acc[q], ed + ex, K);
        double dacc[kk];
        for (int q = 0; q < kk; q++) dacc[q] = 0.0;
        for (int n = 0; n < s.N; n++) {
            const kq *l = nz + ((size_t)n * s.O + o) * P;
            int nl = bad ? 0 : nzc[(size_t)n * s.O + o];
            const kfl *xr = kx + ((size_t)n * s.C + ci) * s.H * s.W;
            const float *dyr = dy + ((size_t)n * s.O + o) * P;
            const float *xf = x + ((size_t)n * s.C + ci) * s.H * s.W;
            for (int ky = 0; ky < s.k; ky++)
                for (int kx2 = 0; kx2 < s.k; kx2++) {
                    if (bad) {
                        for (int oy = 0; oy < s.OH; oy++)
                            for (int ox = 0; ox < s.OW; ox++) {
                                int iy = oy + ky - s.pad, ix = ox + kx2 - s.pad;
                                if (iy < 0 || iy >= s.H || ix < 0 || ix >= s.W) continue;
                                dacc[ky * s.k + kx2] += (double)dyr[oy * s.OW + ox] * xf[iy * s.W + ix];
                            }
                        continue;
                    }
                    kul_acc *a = &acc[ky * s.k + kx2];
                    unsigned __int128 win = a->win;
                    int dyo = ky - s.pad, dxo = kx2 - s.pad;
                    for (int t = 0; t < nl; t++) {
                        int iy = (l[t].q >> 16) + dyo, ix = (l[t].q & 0xffff) + dxo;
                        if ((unsigned)iy >= (unsigned)s.H || (unsigned)ix >= (unsigned)s.W) continue;
                        kfl xv = xr[iy * s.W + ix];
                        win = kul_term(win, a, (int64_t)xv.m * l[t].m, xv.e + l[t].e);
                    }
                    a->win = win;
                }
        }
        for (int ky = 0; ky < s.k; ky++)
            for (int kx2 = 0; kx2 < s.k; kx2++) {
                float *out = &dw[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2];
                if (bad) {
                    *out = (float)dacc[ky * s.k + kx2];
                    continue;
                }
                int z, neg = 1;
                float r = kul_round(&acc[ky * s.k + kx2], &z);
                if (z) {
                    for (int n = 0; n < s.N && neg; n++)
                        for (int oy = 0; oy < s.OH && neg; oy++)
                            for (int ox = 0; ox < s.OW && neg; ox++) {
                                int iy = oy + ky - s.pad, ix = ox + kx2 - s.pad;
                                if (iy < 0 || iy >= s.H || ix < 0 || ix >= s.W) continue;
                                neg = negzero_prod(dy[(((size_t)n * s.O + o) * s.OH + oy) * s.OW + ox],
                                                   x[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix]);
                            }
                    if (neg) r = -0.0f;
                }
                *out = r;
            }
    }
}

/* ============================================================================
 * exact kernels (MPFR).  Zero operands are skipped: adding an exact zero
 * product changes nothing.
 * ========================================================================== */

static void mp_conv_fwd(ref_ctx *c, mpvec *y, const mpvec *x, const __mpfr_struct *w, const __mpfr_struct *b,
                        conv_shape s) {
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long no = 0; no < (long)s.N * s.O; no++) {
        mpfr_ptr acc = c->acc[omp_get_thread_num()];
        int n = (int)(no / s.O), o = (int)(no % s.O);
        for (int i = 0; i < s.OH; i++)
            for (int j = 0; j < s.OW; j++) {
                mpfr_set(acc, &b[o], MPFR_RNDN);
                for (int ci = 0; ci < s.C; ci++) {
                    const __mpfr_struct *wr = w + ((size_t)o * s.C + ci) * s.k * s.k;
                    const __mpfr_struct *xr = x->v + ((size_t)n * s.C + ci) * s.H * s.W;
                    for (int ky = 0; ky < s.k; ky++) {
                        int iy = i + ky - s.pad;
                        if (iy < 0 || iy >= s.H) continue;
                        for (int kx2 = 0; kx2 < s.k; kx2++) {
                            int ix = j + kx2 - s.pad;
                            if (ix < 0 || ix >= s.W) continue;
                            const __mpfr_struct *xv = &xr[iy * s.W + ix];
                            if (mpfr_zero_p(xv)) continue;
                            mpfr_fma(acc, &wr[ky * s.k + kx2], xv, acc, MPFR_RNDN);
                        }
                    }
                }
                mpfr_set(&y->v[(((size_t)n * s.O + o) * s.OH + i) * s.OW + j], acc, MPFR_RNDN);
            }
    }
}

static void mp_conv_bwd_data(ref_ctx *c, mpvec *dx, const mpvec *dy, const __mpfr_struct *w, conv_shape s) {
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long nc = 0; nc < (long)s.N * s.C; nc++) {
        mpfr_ptr acc = c->acc[omp_get_thread_num()];
        int n = (int)(nc / s.C), ci = (int)(nc % s.C);
        for (int iy = 0; iy < s.H; iy++)
            for (int ix = 0; ix < s.W; ix++) {
                mpfr_set_zero(acc, 1);
                for (int o = 0; o < s.O; o++)
                    for (int ky = 0; ky < s.k; ky++) {
                        int oy = iy + s.pad - ky;
                        if (oy < 0 || oy >= s.OH) continue;
                        for (int kx2 = 0; kx2 < s.k; kx2++) {
                            int ox = ix + s.pad - kx2;
                            if (ox < 0 || ox >= s.OW) continue;
                            const __mpfr_struct *dv = &dy->v[(((size_t)n * s.O + o) * s.OH + oy) * s.OW + ox];
                            if (mpfr_zero_p(dv)) continue;
                            mpfr_fma(acc, &w[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2], dv, acc, MPFR_RNDN);
                        }
                    }
                mpfr_set(&dx->v[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix], acc, MPFR_RNDN);
            }
    }
}

static void mp_conv_bwd_weights(ref_ctx *c, __mpfr_struct *dw, __mpfr_struct *db, const mpvec *dy, const mpvec *x,
                                conv_shape s) {
    long njobs = (long)s.O * s.C + s.O;
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long job = 0; job < njobs; job++) {
        mpfr_ptr acc = c->acc[omp_get_thread_num()];
        if (job >= (long)s.O * s.C) {
            int o = (int)(job - (long)s.O * s.C);
            mpfr_set_zero(acc, 1);
            for (int n = 0; n < s.N; n++) {
                const __mpfr_struct *dr = dy->v + ((size_t)n * s.O + o) * s.OH * s.OW;
                for (int p = 0; p < s.OH * s.OW; p++)
                    if (!mpfr_zero_p(&dr[p])) mpfr_add(acc, acc, &dr[p], MPFR_RNDN);
            }
            mpfr_set(&db[o], acc, MPFR_RNDN);
            continue;
        }
        int o = (int)(job / s.C), ci = (int)(job % s.C);
        for (int ky = 0; ky < s.k; ky++)
            for (int kx2 = 0; kx2 < s.k; kx2++) {
                mpfr_set_zero(acc, 1);
                for (int n = 0; n < s.N; n++) {
                    const __mpfr_struct *dr = dy->v + ((size_t)n * s.O + o) * s.OH * s.OW;
                    const __mpfr_struct *xr = x->v + ((size_t)n * s.C + ci) * s.H * s.W;
                    for (int oy = 0; oy < s.OH; oy++) {
                        int iy = oy + ky - s.pad;
                        if (iy < 0 || iy >= s.H) continue;
                        int ox0 = s.pad - kx2 > 0 ? s.pad - kx2 : 0;
                        int ox1 = s.W + s.pad - kx2 < s.OW ? s.W + s.pad - kx2 : s.OW;
                        for (int ox = ox0; ox < ox1; ox++) {
                            const __mpfr_struct *dv = &dr[oy * s.OW + ox];
                            const __mpfr_struct *xv = &xr[iy * s.W + ox + kx2 - s.pad];
                            if (mpfr_zero_p(dv) || mpfr_zero_p(xv)) continue;
                            mpfr_fma(acc, dv, xv, acc, MPFR_RNDN);
                        }
                    }
                }
                mpfr_set(&dw[(((size_t)o * s.C + ci) * s.k + ky) * s.k + kx2], acc, MPFR_RNDN);
            }
    }
}

/* ============================================================================
 * exact kernels for P <= 128 (xacc.h): the same loops as the fp32cr ones,
 * on two-limb significands.  Return 1 when they cannot run (non-finite
 * values), so the caller falls back to the mpfr_fma loops.
 * ========================================================================== */

static const xfl XFL_ONE = {1ull << 63, 0, -127, 0};

static int xk_conv_fwd(ref_ctx *c, mpvec *y, const mpvec *x, const __mpfr_struct *w, const __mpfr_struct *b,
                       conv_shape s) {
    size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.O * s.C * s.k * s.k;
    int ex, ew, eb;
    if (xfl_split(c->xa, x->v, nx, &ex) + xfl_split(c->xb, w, nw, &ew) + xfl_split(c->xc, b, (size_t)s.O, &eb))
        return 1;
    const xfl *kx = c->xa, *kw = c->xb, *kb = c->xc;
    int T = ex + ew > eb + 1 ? ex + ew : eb + 1;
    int kk = s.k * s.k;
    size_t Kw = (size_t)s.C * kk;
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long n = 0; n < (long)s.N; n++) {
        int tid = omp_get_thread_num();
        xq *col = c->xcol[tid];
        int32_t *cnt = c->xcnt[tid];
        for (int i = 0; i < s.OH; i++)
            for (int j = 0; j < s.OW; j++) {
                xq *cr = col + ((size_t)i * s.OW + j) * Kw, *c0 = cr;
                for (int ci = 0; ci < s.C; ci++)
                    for (int ky = 0; ky < s.k; ky++) {
                        int iy = i + ky - s.pad;
                        if (iy < 0 || iy >= s.H) continue;
                        for (int kx2 = 0; kx2 < s.k; kx2++) {
                            int ix = j + kx2 - s.pad;
                            if (ix < 0 || ix >= s.W) continue;
                            const xfl *v = &kx[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix];
                            if (v->hi) *cr++ = (xq){*v, ci * kk + ky * s.k + kx2};
                        }
                    }
                cnt[i * s.OW + j] = (int32_t)(cr - c0);
            }
        for (int o = 0; o < s.O; o++)
            for (int i = 0; i < s.OH; i++)
                for (int j = 0; j < s.OW; j++) {
                    xacc a;
                    xacc_init(&a, T, Kw + 1);
                    xacc_mac(&a, &kb[o], &XFL_ONE);
                    const xfl *wr = kw + (size_t)o * Kw;
                    const xq *cr = col + ((size_t)i * s.OW + j) * Kw;
                    for (int t = 0, nt = cnt[i * s.OW + j]; t < nt; t++) xacc_mac(&a, &wr[cr[t].q], &cr[t].v);
                    xacc_get(&y->v[(((size_t)n * s.O + o) * s.OH + i) * s.OW + j], &a, c->z[tid]);
                }
    }
    return 0;
}

static int xk_conv_bwd_data(ref_ctx *c, mpvec *dx, const mpvec *dy, const __mpfr_struct *w, conv_shape s) {
    size_t ndy = (size_t)s.N * s.O * s.OH * s.OW, nw = (size_t)s.O * s.C * s.k * s.k;
    int ed, ew;
    if (xfl_split(c->xa, dy->v, ndy, &ed) + xfl_split(c->xb, w, nw, &ew)) return 1;
    const xfl *kd = c->xa, *kw = c->xb;
    int kk = s.k * s.k;
    size_t K = (size_t)s.O * kk;
    xfl *wt = c->xc;
    for (int ci = 0; ci < s.C; ci++)
        for (int o = 0; o < s.O; o++)
            for (int q = 0; q < kk; q++)
                wt[(size_t)ci * K + (size_t)o * kk + q] = kw[((size_t)o * s.C + ci) * kk + q];
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long n = 0; n < (long)s.N; n++) {
        int tid = omp_get_thread_num();
        xq *col = c->xcol[tid];
        int32_t *cnt = c->xcnt[tid];
        for (int iy = 0; iy < s.H; iy++)
            for (int ix = 0; ix < s.W; ix++) {
                xq *cr = col + ((size_t)iy * s.W + ix) * K, *c0 = cr;
                for (int o = 0; o < s.O; o++)
                    for (int ky = 0; ky < s.k; ky++) {
                        int oy = iy + s.pad - ky;
                        if (oy < 0 || oy >= s.OH) continue;
                        for (int kx2 = 0; kx2 < s.k; kx2++) {
                            int ox = ix + s.pad - kx2;
                            if (ox < 0 || ox >= s.OW) continue;
                            const xfl *v = &kd[(((size_t)n * s.O + o) * s.OH + oy) * s.OW + ox];
                            if (v->hi) *cr++ = (xq){*v, o * kk + ky * s.k + kx2};
                        }
                    }
                cnt[iy * s.W + ix] = (int32_t)(cr - c0);
            }
        for (int ci = 0; ci < s.C; ci++)
            for (int iy = 0; iy < s.H; iy++)
                for (int ix = 0; ix < s.W; ix++) {
                    xacc a;
                    xacc_init(&a, ed + ew, K);
                    const xfl *wr = wt + (size_t)ci * K;
                    const xq *cr = col + ((size_t)iy * s.W + ix) * K;
                    for (int t = 0, nt = cnt[iy * s.W + ix]; t < nt; t++) xacc_mac(&a, &wr[cr[t].q], &cr[t].v);
                    xacc_get(&dx->v[(((size_t)n * s.C + ci) * s.H + iy) * s.W + ix], &a, c->z[tid]);
                }
    }
    return 0;
}

static int xk_conv_bwd_weights(ref_ctx *c, __mpfr_struct *dw, __mpfr_struct *db, const mpvec *dy, const mpvec *x,
                               conv_shape s) {
    size_t ndy = (size_t)s.N * s.O * s.OH * s.OW, nx = (size_t)s.N * s.C * s.H * s.W;
    int ed, ex;
    if (xfl_split(c->xa, dy->v, ndy, &ed) + xfl_split(c->xb, x->v, nx, &ex)) return 1;
    const xfl *kd = c->xa, *kx = c->xb;
    size_t K = (size_t)s.N * s.OH * s.OW, P = (size_t)s.OH * s.OW;
    int kk = s.k * s.k;
    xq *nz = c->xnz;
    int32_t *nzc = c->nzc;
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (long no = 0; no < (long)s.N * s.O; no++) {
        const xfl *dr = kd + (size_t)no * P;
        xq *l = nz + (size_t)no * P, *l0 = l;
        for (int oy = 0; oy < s.OH; oy++)
            for (int ox = 0; ox < s.OW; ox++) {
                const xfl *v = &dr[oy * s.OW + ox];
                if (v->hi) *l++ = (xq){*v, (oy << 16) | ox};
            }
        nzc[no] = (int32_t)(l - l0);
    }
    long njobs = (long)s.O * s.C + s.O;
#pragma omp parallel for num_threads(c->threads) schedule(dynamic)
    for (long job = 0; job < njobs; job++) {
        int tid = omp_get_thread_num();
        if (job >= (long)s.O * s.C) {
            int o = (int)(job - (long)s.O * s.C);
            xacc a;
            xacc_init(&a, ed + 1, K);
            for (int n = 0; n < s.N; n++) {
                const xq *l = nz + ((size_t)n * s.O + o) * P;
                for (int t = 0; t < nzc[(size_t)n * s.O + o]; t++) xacc_mac(&a, &l[t].v, &XFL_ONE);
            }
            xacc_get(&db[o], &a, c->z[tid]);
            continue;
        }
        int o = (int)(job / s.C), ci = (int)(job % s.C);
        xacc acc[kk];
        for (int q = 0; q < kk; q++) xacc_init(&acc[q], ed + ex, K);
        for (int n = 0; n < s.N; n++) {
            const xq *l = nz + ((size_t)n * s.O + o) * P;
            int nl = nzc[(size_t)n * s.O + o];
            const xfl *xr = kx + ((size_t)n * s.C + ci) * s.H * s.W;
            for (int ky = 0; ky < s.k; ky++)
                for (int kx2 = 0; kx2 < s.k; kx2++) {
                    xacc a = acc[ky * s.k + kx2];
                    int dyo = ky - s.pad, dxo = kx2 - s.pad;
                    for (int t = 0; t < nl; t++) {
                        int iy = (l[t].q >> 16) + dyo, ix = (l[t].q & 0xffff) + dxo;
                        if ((unsigned)iy >= (unsigned)s.H || (unsigned)ix >= (unsigned)s.W) continue;
                        xacc_mac(&a, &l[t].v, &xr[iy * s.W + ix]);
                    }
                    acc[ky * s.k + kx2] = a;
                }
        }
        for (int q = 0; q < kk; q++) xacc_get(&dw[((size_t)o * s.C + ci) * kk + q], &acc[q], c->z[tid]);
    }
    return 0;
}

/* ============================================================================
 * tf32=on: rounded operand copies and the bias gradient of the unrounded dy
 * ========================================================================== */

/* dst := TF32 of the fp32 value of src (exact mode: the stored value is
 * rounded to fp32 first, as a TF32 engine would hold it). */
static void mp_round_tf32(ref_ctx *c, __mpfr_struct *dst, const __mpfr_struct *src, size_t n) {
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (long i = 0; i < (long)n; i++)
        mpfr_set_flt(&dst[i], lowp_round_tf32(mpfr_get_flt(&src[i], MPFR_RNDN), c->tf32_mode), MPFR_RNDN);
}

/* db (O) = correctly rounded fp32 of the exact sum of dy over samples and
 * positions.  400 bits hold any sum of fewer than 2^90 floats exactly
 * (2^-149 .. 2^128 spans 277 bits), so the one rounding is mpfr_get_flt's.
 * Sign of an exact zero: -0 only when every term is -0 (the IEEE rule the
 * kernels above follow). */
static void cr_bias_sum(ref_ctx *c, float *db, const float *dy, conv_shape s) {
    size_t P = (size_t)s.OH * s.OW;
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (int o = 0; o < s.O; o++) {
        mpfr_t acc;
        mpfr_init2(acc, 400);
        mpfr_set_zero(acc, 1);
        int neg = 1;
        for (int n = 0; n < s.N; n++) {
            const float *r = dy + ((size_t)n * s.O + o) * P;
            for (size_t p = 0; p < P; p++) {
                neg = neg && r[p] == 0 && signbit(r[p]);
                if (r[p] != 0) mpfr_add_d(acc, acc, (double)r[p], MPFR_RNDN);
            }
        }
        db[o] = mpfr_zero_p(acc) ? (neg ? -0.0f : 0.0f) : mpfr_get_flt(acc, MPFR_RNDN);
        mpfr_clear(acc);
    }
}

/* db (O) = sum of dy at prec bits (prec + 64-bit accumulator, rounded once,
 * as mp_conv_bwd_weights' bias jobs). */
static void mp_bias_sum(ref_ctx *c, __mpfr_struct *db, const mpvec *dy, conv_shape s) {
    size_t P = (size_t)s.OH * s.OW;
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (int o = 0; o < s.O; o++) {
        mpfr_ptr acc = c->acc[omp_get_thread_num()];
        mpfr_set_zero(acc, 1);
        for (int n = 0; n < s.N; n++) {
            const __mpfr_struct *r = dy->v + ((size_t)n * s.O + o) * P;
            for (size_t p = 0; p < P; p++)
                if (!mpfr_zero_p(&r[p])) mpfr_add(acc, acc, &r[p], MPFR_RNDN);
        }
        mpfr_set(&db[o], acc, MPFR_RNDN);
    }
}

/* ============================================================================
 * engine entries
 * ========================================================================== */

static size_t out_n(const ref_ctx *c, const layer *l) { return c->n * layer_out_size(l); }

static int ref_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    ref_ctx *c = ctx_of(e);
    const model *m = e->m;
    size_t nx = n * (size_t)m->in_c * m->in_h * m->in_w;
    c->n = n;
    c->step = step;
    memcpy(c->labels, labels, n * sizeof *labels);
    if (c->mode == REF_FP32CR)
        memcpy(c->x, x, nx * sizeof *x);
    else
        for (size_t i = 0; i < nx; i++) mpfr_set_flt(&c->mx.v[i], x[i], MPFR_RNDN);
    return LS_OK;
}

/* exact 1 - p for an fp32 p, and whether it is a power of two */
static void mp_one_minus(mpfr_t r, float p) {
    mpfr_init2(r, 200); /* exact for any fp32 p in [0, 1) */
    mpfr_set_ui(r, 1, MPFR_RNDN);
    mpfr_sub_d(r, r, (double)p, MPFR_RNDN);
}

static int ref_forward_layer(engine *e, int li, int training) {
    ref_ctx *c = ctx_of(e);
    const layer *l = &e->m->layers[li];
    size_t N = c->n, osz = layer_out_size(l), isz = layer_in_size(l), no = out_n(c, l);
    c->training[li] = training;
    if (c->mode == REF_FP32CR) {
        const float *x = li ? c->act[li - 1] : c->x;
        float *y = c->act[li];
        switch (l->kind) {
        case LAYER_CONV:
        case LAYER_DENSE: {
            const model_tensor *tw = &e->m->tensors[l->w_tensor], *tb = &e->m->tensors[l->b_tensor];
            const float *w = c->params + tw->offset;
            if (c->tf32) {
                lowp_round_tf32_array(c->tx, x, N * isz, c->tf32_mode);
                lowp_round_tf32_array(c->tw + tw->offset, w, tw->numel, c->tf32_mode);
                x = c->tx;
                w = c->tw + tw->offset;
            }
            cr_conv_fwd(c, y, x, w, c->params + tb->offset, shape_of(l, N));
            break;
        }
        case LAYER_RELU:
            for (size_t i = 0; i < no; i++) y[i] = x[i] > 0 ? x[i] : 0.0f;
            break;
        case LAYER_MAXPOOL:
            for (size_t nc = 0; nc < N * (size_t)l->in_c; nc++)
                for (int i = 0; i < l->out_h; i++)
                    for (int j = 0; j < l->out_w; j++) {
                        const float *w0 = x + nc * l->in_h * l->in_w + (size_t)(2 * i) * l->in_w + 2 * j;
                        float mxv = w0[0];
                        if (w0[1] > mxv) mxv = w0[1];
                        if (w0[l->in_w] > mxv) mxv = w0[l->in_w];
                        if (w0[l->in_w + 1] > mxv) mxv = w0[l->in_w + 1];
                        y[nc * l->out_h * l->out_w + (size_t)i * l->out_w + j] = mxv;
                    }
            break;
        case LAYER_FLATTEN:
            memcpy(y, x, no * sizeof *y);
            break;
        case LAYER_DROPOUT:
            if (!training) {
                memcpy(y, x, no * sizeof *y);
                break;
            }
#pragma omp parallel for num_threads(c->threads) schedule(static)
            for (long i = 0; i < (long)no; i++)
                y[i] = rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)li, (uint32_t)i, l->p)
                           ? fcr_dropout_scale(x[i], l->p) : 0.0f;
            break;
        }
        (void)isz;
        (void)osz;
        return LS_OK;
    }
    /* exact */
    const mpvec *x = li ? &c->mact[li - 1] : &c->mx;
    mpvec *y = &c->mact[li];
    switch (l->kind) {
    case LAYER_CONV:
    case LAYER_DENSE: {
        const model_tensor *tw = &e->m->tensors[l->w_tensor], *tb = &e->m->tensors[l->b_tensor];
        const __mpfr_struct *w = c->mparams.v + tw->offset, *b = c->mparams.v + tb->offset;
        if (c->tf32) {
            mp_round_tf32(c, c->mtx.v, x->v, N * isz);
            mp_round_tf32(c, c->mtw.v + tw->offset, w, tw->numel);
            x = &c->mtx;
            w = c->mtw.v + tw->offset;
        }
        if (!c->fast || xk_conv_fwd(c, y, x, w, b, shape_of(l, N))) mp_conv_fwd(c, y, x, w, b, shape_of(l, N));
        break;
    }
    case LAYER_RELU:
        for (size_t i = 0; i < no; i++) {
            if (mpfr_sgn(&x->v[i]) > 0) mpfr_set(&y->v[i], &x->v[i], MPFR_RNDN);
            else mpfr_set_zero(&y->v[i], 1);
        }
        break;
    case LAYER_MAXPOOL:
        for (size_t nc = 0; nc < N * (size_t)l->in_c; nc++)
            for (int i = 0; i < l->out_h; i++)
                for (int j = 0; j < l->out_w; j++) {
                    const __mpfr_struct *w0 = x->v + nc * l->in_h * l->in_w + (size_t)(2 * i) * l->in_w + 2 * j;
                    const __mpfr_struct *best = &w0[0];
                    if (mpfr_greater_p(&w0[1], best)) best = &w0[1];
                    if (mpfr_greater_p(&w0[l->in_w], best)) best = &w0[l->in_w];
                    if (mpfr_greater_p(&w0[l->in_w + 1], best)) best = &w0[l->in_w + 1];
                    mpfr_set(&y->v[nc * l->out_h * l->out_w + (size_t)i * l->out_w + j], best, MPFR_RNDN);
                }
        break;
    case LAYER_FLATTEN:
        for (size_t i = 0; i < no; i++) mpfr_set(&y->v[i], &x->v[i], MPFR_RNDN);
        break;
    case LAYER_DROPOUT: {
        if (!training) {
            for (size_t i = 0; i < no; i++) mpfr_set(&y->v[i], &x->v[i], MPFR_RNDN);
            break;
        }
        mpfr_t omp;
        mp_one_minus(omp, l->p);
        for (size_t i = 0; i < no; i++) {
            if (rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)li, (uint32_t)i, l->p))
                mpfr_div(&y->v[i], &x->v[i], omp, MPFR_RNDN);
            else
                mpfr_set_zero(&y->v[i], 1);
        }
        mpfr_clear(omp);
        break;
    }
    }
    return LS_OK;
}

/* exact softmax cross-entropy: working precision prec + 64, stored at prec */
static int mp_loss(engine *e) {
    ref_ctx *c = ctx_of(e);
    int L = e->m->n_layers, C = e->m->n_classes;
    mpvec *z = &c->mact[L - 1], *dz = &c->mdact[L - 1];
    mpfr_prec_t wp = c->prec + 64;
    mpfr_t tot, mx, s, t, ez[C];
    mpfr_inits2(wp, tot, mx, s, t, (mpfr_ptr)0);
    for (int j = 0; j < C; j++) mpfr_init2(ez[j], wp);
    mpfr_set_zero(tot, 1);
    for (size_t i = 0; i < c->n; i++) {
        const __mpfr_struct *zr = z->v + i * C;
        int y = c->labels[i];
        mpfr_set(mx, &zr[0], MPFR_RNDN);
        for (int j = 1; j < C; j++) mpfr_max(mx, mx, &zr[j], MPFR_RNDN);
        mpfr_set_zero(s, 1);
        for (int j = 0; j < C; j++) {
            mpfr_sub(ez[j], &zr[j], mx, MPFR_RNDN);
            mpfr_exp(ez[j], ez[j], MPFR_RNDN);
            mpfr_add(s, s, ez[j], MPFR_RNDN);
        }
        for (int j = 0; j < C; j++) {
            mpfr_div(t, ez[j], s, MPFR_RNDN);
            if (j == y) mpfr_sub_ui(t, t, 1, MPFR_RNDN);
            mpfr_div_ui(&dz->v[i * C + j], t, (unsigned long)c->n, MPFR_RNDN);
        }
        mpfr_log(t, s, MPFR_RNDN);
        mpfr_add(tot, tot, t, MPFR_RNDN);
        mpfr_sub(t, &zr[y], mx, MPFR_RNDN);
        mpfr_sub(tot, tot, t, MPFR_RNDN);
    }
    mpfr_div_ui(&c->mloss.v[0], tot, (unsigned long)c->n, MPFR_RNDN);
    mpfr_clears(tot, mx, s, t, (mpfr_ptr)0);
    for (int j = 0; j < C; j++) mpfr_clear(ez[j]);
    return LS_OK;
}

static int ref_loss(engine *e, float *loss_out) {
    ref_ctx *c = ctx_of(e);
    int L = e->m->n_layers;
    if (c->mode == REF_FP32CR) {
        int rc = fcr_softmax_xent(c->act[L - 1], c->labels, c->n, e->m->n_classes, c->dact[L - 1], &c->loss);
        if (rc) return rc;
        *loss_out = c->loss;
        return LS_OK;
    }
    int rc = mp_loss(e);
    *loss_out = mpfr_get_flt(&c->mloss.v[0], MPFR_RNDN);
    return rc;
}

/* Backward of layer li in fp32cr mode: every gradient the correctly rounded
 * fp32 value of the exact result of its fp32 inputs. */
static int cr_backward_layer(engine *e, int li) {
    ref_ctx *c = ctx_of(e);
    const layer *l = &e->m->layers[li];
    size_t N = c->n, ni = N * layer_in_size(l);
    int need_dx = li > 0;
    const float *x = li ? c->act[li - 1] : c->x;
    const float *dy = c->dact[li];
    float *dx = li ? c->dact[li - 1] : NULL;
    switch (l->kind) {
    case LAYER_CONV:
    case LAYER_DENSE: {
        const model_tensor *tw = &e->m->tensors[l->w_tensor], *tb = &e->m->tensors[l->b_tensor];
        conv_shape s = shape_of(l, N);
        const float *w = c->params + tw->offset, *dy0 = dy;
        if (c->tf32) {
            lowp_round_tf32_array(c->tx, x, ni, c->tf32_mode);
            lowp_round_tf32_array(c->tdy, dy, N * layer_out_size(l), c->tf32_mode);
            lowp_round_tf32_array(c->tw + tw->offset, w, tw->numel, c->tf32_mode);
            x = c->tx;
            dy = c->tdy;
            w = c->tw + tw->offset;
        }
        cr_conv_bwd_weights(c, c->grads + tw->offset, c->grads + tb->offset, dy, x, s);
        if (c->tf32) cr_bias_sum(c, c->grads + tb->offset, dy0, s);
        if (need_dx) cr_conv_bwd_data(c, dx, dy, w, s);
        break;
    }
    case LAYER_RELU:
        if (need_dx)
            for (size_t i = 0; i < ni; i++) dx[i] = x[i] > 0 ? dy[i] : 0.0f;
        break;
    case LAYER_MAXPOOL:
        if (!need_dx) break;
        memset(dx, 0, ni * sizeof *dx);
        for (size_t nc = 0; nc < N * (size_t)l->in_c; nc++)
            for (int i = 0; i < l->out_h; i++)
                for (int j = 0; j < l->out_w; j++) {
                    size_t b0 = nc * l->in_h * l->in_w + (size_t)(2 * i) * l->in_w + 2 * j;
                    size_t cand[4] = {b0, b0 + 1, b0 + l->in_w, b0 + l->in_w + 1}, best = cand[0];
                    for (int q = 1; q < 4; q++)
                        if (x[cand[q]] > x[best]) best = cand[q];
                    dx[best] = dy[nc * l->out_h * l->out_w + (size_t)i * l->out_w + j];
                }
        break;
    case LAYER_FLATTEN:
        if (need_dx) memcpy(dx, dy, ni * sizeof *dx);
        break;
    case LAYER_DROPOUT:
        if (!need_dx) break;
        if (!c->training[li]) {
            memcpy(dx, dy, ni * sizeof *dx);
            break;
        }
#pragma omp parallel for num_threads(c->threads) schedule(static)
        for (long i = 0; i < (long)ni; i++)
            dx[i] = rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)li, (uint32_t)i, l->p)
                        ? fcr_dropout_scale(dy[i], l->p) : 0.0f;
        break;
    }
    return LS_OK;
}

/* Backward of layer li in exact mode: MPFR values throughout. */
static int mp_backward_layer(engine *e, int li) {
    ref_ctx *c = ctx_of(e);
    const layer *l = &e->m->layers[li];
    size_t N = c->n, ni = N * layer_in_size(l);
    int need_dx = li > 0;
    const mpvec *x = li ? &c->mact[li - 1] : &c->mx;
    const mpvec *dy = &c->mdact[li];
    mpvec *dx = li ? &c->mdact[li - 1] : NULL;
    switch (l->kind) {
    case LAYER_CONV:
    case LAYER_DENSE: {
        const model_tensor *tw = &e->m->tensors[l->w_tensor], *tb = &e->m->tensors[l->b_tensor];
        conv_shape s = shape_of(l, N);
        __mpfr_struct *dw = c->mgrads.v + tw->offset, *db = c->mgrads.v + tb->offset;
        const __mpfr_struct *w = c->mparams.v + tw->offset;
        const mpvec *dy0 = dy;
        if (c->tf32) {
            mp_round_tf32(c, c->mtx.v, x->v, ni);
            mp_round_tf32(c, c->mtdy.v, dy->v, N * layer_out_size(l));
            mp_round_tf32(c, c->mtw.v + tw->offset, w, tw->numel);
            x = &c->mtx;
            dy = &c->mtdy;
            w = c->mtw.v + tw->offset;
        }
        if (!c->fast || xk_conv_bwd_weights(c, dw, db, dy, x, s)) mp_conv_bwd_weights(c, dw, db, dy, x, s);
        if (c->tf32) mp_bias_sum(c, db, dy0, s);
        if (need_dx && (!c->fast || xk_conv_bwd_data(c, dx, dy, w, s))) mp_conv_bwd_data(c, dx, dy, w, s);
        break;
    }
    case LAYER_RELU:
        if (need_dx)
            for (size_t i = 0; i < ni; i++) {
                if (mpfr_sgn(&x->v[i]) > 0) mpfr_set(&dx->v[i], &dy->v[i], MPFR_RNDN);
                else mpfr_set_zero(&dx->v[i], 1);
            }
        break;
    case LAYER_MAXPOOL:
        if (!need_dx) break;
        for (size_t i = 0; i < ni; i++) mpfr_set_zero(&dx->v[i], 1);
        for (size_t nc = 0; nc < N * (size_t)l->in_c; nc++)
            for (int i = 0; i < l->out_h; i++)
                for (int j = 0; j < l->out_w; j++) {
                    size_t b0 = nc * l->in_h * l->in_w + (size_t)(2 * i) * l->in_w + 2 * j;
                    size_t cand[4] = {b0, b0 + 1, b0 + l->in_w, b0 + l->in_w + 1}, best = cand[0];
                    for (int q = 1; q < 4; q++)
                        if (mpfr_greater_p(&x->v[cand[q]], &x->v[best])) best = cand[q];
                    mpfr_set(&dx->v[best], &dy->v[nc * l->out_h * l->out_w + (size_t)i * l->out_w + j], MPFR_RNDN);
                }
        break;
    case LAYER_FLATTEN:
        if (need_dx)
            for (size_t i = 0; i < ni; i++) mpfr_set(&dx->v[i], &dy->v[i], MPFR_RNDN);
        break;
    case LAYER_DROPOUT: {
        if (!need_dx) break;
        mpfr_t omp;
        mp_one_minus(omp, c->training[li] ? l->p : 0.0f);
        for (size_t i = 0; i < ni; i++) {
            if (!c->training[li] || rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)li, (uint32_t)i, l->p))
                mpfr_div(&dx->v[i], &dy->v[i], omp, MPFR_RNDN);
            else
                mpfr_set_zero(&dx->v[i], 1);
        }
        mpfr_clear(omp);
        break;
    }
    }
    return LS_OK;
}

static int ref_backward_layer(engine *e, int li) {
    return ctx_of(e)->mode == REF_FP32CR ? cr_backward_layer(e, li) : mp_backward_layer(e, li);
}

static int ref_update(engine *e, const adam_scalars *a) {
    ref_ctx *c = ctx_of(e);
    size_t np = e->m->n_params;
    if (c->mode == REF_FP32CR) {
#pragma omp parallel for num_threads(c->threads) schedule(static)
        for (long i = 0; i < (long)np; i++) fcr_adam(&c->params[i], &c->am[i], &c->av[i], c->grads[i], a);
        return LS_OK;
    }
    if (a->t < 1) return ls_err(LS_EINVAL, "reference: Adam step t=%d (adam_scalars carries no exact settings)", a->t);
    /* The exact constants from the double settings: step_size = lr/(1-b1^t),
     * bc2 = sqrt(1-b2^t), 1-b1, 1-b2, all at prec + 64 bits. */
    mpfr_prec_t wp = c->prec + 64;
    mpfr_t b1, omb1, b2, omb2, ss, bc, eps;
    mpfr_inits2(wp, b1, omb1, b2, omb2, ss, bc, eps, (mpfr_ptr)0);
    mpfr_set_d(b1, a->cfg.beta1, MPFR_RNDN);
    mpfr_set_d(b2, a->cfg.beta2, MPFR_RNDN);
    mpfr_ui_sub(omb1, 1, b1, MPFR_RNDN);
    mpfr_ui_sub(omb2, 1, b2, MPFR_RNDN);
    mpfr_pow_ui(ss, b1, (unsigned long)a->t, MPFR_RNDN);
    mpfr_ui_sub(ss, 1, ss, MPFR_RNDN);
    mpfr_d_div(ss, a->cfg.lr, ss, MPFR_RNDN);
    mpfr_pow_ui(bc, b2, (unsigned long)a->t, MPFR_RNDN);
    mpfr_ui_sub(bc, 1, bc, MPFR_RNDN);
    mpfr_sqrt(bc, bc, MPFR_RNDN);
    mpfr_set_d(eps, a->cfg.eps, MPFR_RNDN);
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (long i = 0; i < (long)np; i++) {
        int tid = omp_get_thread_num();
        mpfr_ptr t1 = c->acc[tid], t2 = c->tmp[tid], t3 = c->tmp2[tid];
        mpfr_ptr p = &c->mparams.v[i], m = &c->mam.v[i], v = &c->mav.v[i];
        const __mpfr_struct *g = &c->mgrads.v[i];
        mpfr_mul(t1, b1, m, MPFR_RNDN); /* m = b1*m + (1-b1)*g */
        mpfr_fma(t1, omb1, g, t1, MPFR_RNDN);
        mpfr_set(m, t1, MPFR_RNDN);
        mpfr_sqr(t2, g, MPFR_RNDN); /* v = b2*v + (1-b2)*g*g */
        mpfr_mul(t2, t2, omb2, MPFR_RNDN);
        mpfr_fma(t2, b2, v, t2, MPFR_RNDN);
        mpfr_set(v, t2, MPFR_RNDN);
        mpfr_sqrt(t3, v, MPFR_RNDN); /* p -= ss * m / (sqrt(v)/bc + eps) */
        mpfr_div(t3, t3, bc, MPFR_RNDN);
        mpfr_add(t3, t3, eps, MPFR_RNDN);
        mpfr_div(t1, m, t3, MPFR_RNDN);
        mpfr_mul(t1, t1, ss, MPFR_RNDN);
        mpfr_sub(t1, p, t1, MPFR_RNDN);
        mpfr_set(p, t1, MPFR_RNDN);
    }
    mpfr_clears(b1, omb1, b2, omb2, ss, bc, eps, (mpfr_ptr)0);
    return LS_OK;
}

/* Where tensor t lives (one of the two is set). */
static void locate(engine *e, tensor_id t, float **f, mpvec **mv, size_t *n) {
    ref_ctx *c = ctx_of(e);
    *f = NULL;
    *mv = NULL;
    *n = tensor_numel(e->m, t, c->n);
    int cr = c->mode == REF_FP32CR;
    switch (t.kind) {
    case TENSOR_INPUT: if (cr) *f = c->x; else *mv = &c->mx; break;
    case TENSOR_ACT: if (cr) *f = c->act[t.layer]; else *mv = &c->mact[t.layer]; break;
    case TENSOR_DACT: if (cr) *f = c->dact[t.layer]; else *mv = &c->mdact[t.layer]; break;
    case TENSOR_PARAMS: if (cr) *f = c->params; else *mv = &c->mparams; break;
    case TENSOR_GRADS: if (cr) *f = c->grads; else *mv = &c->mgrads; break;
    case TENSOR_ADAM_M: if (cr) *f = c->am; else *mv = &c->mam; break;
    case TENSOR_ADAM_V: if (cr) *f = c->av; else *mv = &c->mav; break;
    case TENSOR_LOSS: if (cr) *f = &c->loss; else *mv = &c->mloss; break;
    }
}

static int ref_get_tensor(engine *e, tensor_id t, float *out) {
    float *f;
    mpvec *mv;
    size_t n;
    locate(e, t, &f, &mv, &n);
    if (f) memcpy(out, f, n * sizeof *out);
    else
        for (size_t i = 0; i < n; i++) out[i] = mpfr_get_flt(&mv->v[i], MPFR_RNDN);
    return LS_OK;
}

static int ref_get_tensor_f64(engine *e, tensor_id t, double *out) {
    float *f;
    mpvec *mv;
    size_t n;
    locate(e, t, &f, &mv, &n);
    for (size_t i = 0; i < n; i++) out[i] = f ? (double)f[i] : mpfr_get_d(&mv->v[i], MPFR_RNDN);
    return LS_OK;
}

static int ref_set_tensor(engine *e, tensor_id t, const float *in) {
    float *f;
    mpvec *mv;
    size_t n;
    locate(e, t, &f, &mv, &n);
    if (f) memcpy(f, in, n * sizeof *in);
    else
        for (size_t i = 0; i < n; i++) mpfr_set_flt(&mv->v[i], in[i], MPFR_RNDN);
    return LS_OK;
}

static char *ref_describe(engine *e) {
    ref_ctx *c = ctx_of(e);
    lsbuf b;
    lsbuf_init(&b);
    lsbuf_printf(&b, "{\"name\": \"reference\", \"mode\": \"%s\", ", c->mode == REF_EXACT ? "exact" : "fp32cr");
    if (c->mode == REF_EXACT)
        lsbuf_printf(&b, "\"prec_bits\": %ld, \"accumulator_bits\": %ld, ", (long)c->prec,
                     c->fast ? 256L : (long)c->prec + 64);
    lsbuf_printf(&b, "\"threads\": %d, \"mpfr\": \"%s\", \"gmp\": \"%s\", \"rounding\": ", c->threads,
                 mpfr_get_version(), gmp_version);
    lsbuf_json_str(&b, c->mode == REF_FP32CR
                           ? "every output the correctly rounded fp32 (RN-even) of the exact result of its fp32 inputs"
                           : c->fast ? "MPFR round-to-nearest at prec bits; dot products of exact products in a 256-bit "
                                       "fixed-point window (error < 2^-214 of the largest term), rounded once"
                                     : "MPFR round-to-nearest at prec bits; dot products in a prec+64-bit mpfr_fma "
                                       "accumulator, rounded once");
    lsbuf_printf(&b, ", \"tf32\": \"%s\"", c->tf32 ? "on" : "off");
    if (c->tf32)
        lsbuf_printf(&b, ", \"tf32round\": \"%s\", \"tf32_operands\": \"conv/dense x, w, dy rounded to TF32 "
                     "(exact mode: via fp32); bias gradient from the unrounded dy\"", lowp_round_name(c->tf32_mode));
    lsbuf_printf(&b, ", \"maxpool_ties\": \"first maximum, row-major\"}");
    if (b.failed) {
        lsbuf_free(&b);
        return NULL;
    }
    return b.s;
}

static void ref_free(engine *e) {
    ref_ctx *c = ctx_of(e);
    if (!c) return;
    free(c->labels);
    free(c->x);
    free(c->params);
    free(c->grads);
    free(c->am);
    free(c->av);
    free(c->ka);
    free(c->kb);
    free(c->kc);
    if (c->col)
        for (int t = 0; t < c->threads; t++) free(c->col[t]);
    if (c->cnt)
        for (int t = 0; t < c->threads; t++) free(c->cnt[t]);
    free(c->col);
    free(c->cnt);
    free(c->nz);
    free(c->nzc);
    for (int i = 0; i < MODEL_MAX_LAYERS; i++) {
        free(c->act[i]);
        free(c->dact[i]);
        mpvec_free(&c->mact[i]);
        mpvec_free(&c->mdact[i]);
    }
    mpvec_free(&c->mx);
    mpvec_free(&c->mparams);
    mpvec_free(&c->mgrads);
    mpvec_free(&c->mam);
    mpvec_free(&c->mav);
    mpvec_free(&c->mloss);
    free(c->tx);
    free(c->tdy);
    free(c->tw);
    mpvec_free(&c->mtx);
    mpvec_free(&c->mtdy);
    mpvec_free(&c->mtw);
    if (c->acc)
        for (int t = 0; t < c->threads; t++) mpfr_clears(c->acc[t], c->tmp[t], c->tmp2[t], (mpfr_ptr)0);
    free(c->acc);
    free(c->tmp);
    free(c->tmp2);
    free(c->xa);
    free(c->xb);
    free(c->xc);
    free(c->xnz);
    if (c->xcol)
        for (int t = 0; t < c->threads; t++) free(c->xcol[t]);
    if (c->xcnt)
        for (int t = 0; t < c->threads; t++) free(c->xcnt[t]);
    free(c->xcol);
    free(c->xcnt);
    if (c->z)
        for (int t = 0; t < c->threads; t++) mpz_clear(c->z[t]);
    free(c->z);
    free(c);
    e->ctx = NULL;
}

static const engine_i reference_iface = {
    /* .name           = */ "reference",
    /* .describe       = */ ref_describe,
    /* .set_batch      = */ ref_set_batch,
    /* .forward_layer  = */ ref_forward_layer,
    /* .loss           = */ ref_loss,
    /* .backward_layer = */ ref_backward_layer,
    /* .update         = */ ref_update,
    /* .get_tensor     = */ ref_get_tensor,
    /* .set_tensor     = */ ref_set_tensor,
    /* .get_tensor_f64 = */ ref_get_tensor_f64,
    /* .synchronize    = */ NULL,
    /* .free           = */ ref_free,
    /* .checksums      = */ NULL, /* checked per element against the others */
    /* .ck_fused       = */ NULL,
    /* .ck_view        = */ NULL,
};

static int parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* The knobs of a reference spec, checked. */
typedef struct {
    int md, tf32;
    lowp_round tmode;
    long prec, threads;
} ref_opts;

static int ref_parse_opts(const engine_spec *s, ref_opts *o) {
    static const char *const allowed[] = {"mode", "prec", "threads", "tf32", "tf32round", NULL};
    int rc = engine_spec_check(s, allowed);
    if (rc) return rc;
    long prec, threads;
    /* one wording for a knob's bad value on every engine (engine_cpu.c's threads=, engine.c
     * engine_spec_choice) */
    if (parse_int(engine_spec_get(s, "prec", "128"), 24, 1 << 16, &prec))
        return ls_err(LS_EINVAL, "engine %s: bad value '%s' for knob prec (expected a count of bits from 24 to 65536)",
                      s->spec, engine_spec_get(s, "prec", ""));
    if (parse_int(engine_spec_get(s, "threads", "2"), 1, 1024, &threads))
        return ls_err(LS_EINVAL, "engine %s: bad value '%s' for knob threads (expected a count from 1 to 1024)",
                      s->spec, engine_spec_get(s, "threads", ""));
    /* MPFR keeps its exponent range, flags and caches per thread only when
     * built thread-safe (TLS); otherwise the engine must stay on one thread */
    if (threads > 1 && !mpfr_buildopt_tls_p())
        return ls_err(LS_EUNAVAIL, "reference: this MPFR is not thread-safe (no TLS); use threads=1");
    /* the index is the mode: names in REF_EXACT, REF_FP32CR order */
    _Static_assert(REF_EXACT == 0 && REF_FP32CR == 1, "modes[] is indexed by the mode");
    static const char *const modes[] = {"exact", "fp32cr", NULL}, *const offon[] = {"off", "on", NULL};
    int md, tf32;
    if ((rc = engine_spec_choice(s, "mode", "exact", modes, &md)) ||
        (rc = engine_spec_choice(s, "tf32", "off", offon, &tf32)))
        return rc;
    const char *tr = engine_spec_get(s, "tf32round", NULL);
    if (tr && !tf32) return ls_err(LS_EINVAL, "reference: tf32round=%s needs tf32=on", tr);
    const char *rounds[LOWP_N + 1] = {NULL};
    for (int i = 0; i < LOWP_N; i++) rounds[i] = lowp_round_name((lowp_round)i);
    int ri = LOWP_RNA;
    if (tr && (rc = engine_spec_choice(s, "tf32round", "rna", rounds, &ri))) return rc;
    lowp_round tmode = (lowp_round)ri;
    o->md = md;
    o->tf32 = tf32;
    o->tmode = tmode;
    o->prec = prec;
    o->threads = threads;
    return LS_OK;
}

/* fp32cr mode's buffers: fp32 values, Kulisch operands, per-thread lists
 * of up to ncol terms.  -1 when out of memory (ref_free() cleans up). */
static int ref_alloc_fp32cr(ref_ctx *c, const model *m, size_t B, size_t nx, size_t maxsz, size_t ncol, size_t nk,
                            int tf32, long threads) {
    c->x = ls_malloc(nx * sizeof *c->x);
    c->params = ls_calloc(m->n_params, sizeof(float));
    c->grads = ls_calloc(m->n_params, sizeof(float));
    c->am = ls_calloc(m->n_params, sizeof(float));
    c->av = ls_calloc(m->n_params, sizeof(float));
    c->ka = ls_malloc(nk * sizeof(kfl));
    c->kb = ls_malloc(nk * sizeof(kfl));
    c->kc = ls_malloc(nk * sizeof(kfl));
    c->col = ls_calloc((size_t)threads, sizeof *c->col);
    c->cnt = ls_calloc((size_t)threads, sizeof *c->cnt);
    c->nz = ls_malloc(maxsz * sizeof *c->nz);
    c->nzc = ls_malloc(maxsz * sizeof *c->nzc);
    if (!c->x || !c->params || !c->grads || !c->am || !c->av || !c->ka || !c->kb || !c->kc || !c->col || !c->cnt ||
        !c->nz || !c->nzc)
        return -1;
    for (int t = 0; t < threads; t++)
        if (!(c->col[t] = ls_malloc(ncol * sizeof(kq))) || !(c->cnt[t] = ls_malloc(ncol * sizeof(int32_t))))
            return -1;
    for (int i = 0; i < m->n_layers; i++) {
        size_t sz = B * layer_out_size(&m->layers[i]);
        c->act[i] = ls_calloc(sz, sizeof(float));
        c->dact[i] = ls_calloc(sz, sizeof(float));
        if (!c->act[i] || !c->dact[i]) return -1;
    }
    if (tf32 && (!(c->tx = ls_malloc(maxsz * sizeof(float))) || !(c->tdy = ls_malloc(maxsz * sizeof(float))) ||
                 !(c->tw = ls_calloc(m->n_params, sizeof(float)))))
        return -1;
    return 0;
}

/* exact mode's buffers: MPFR vectors of prec bits, per-thread accumulators
 * and, when prec <= 128, the fixed-point fast path's.  -1 when out of memory
 * (ref_free() cleans up). */
static int ref_alloc_exact(ref_ctx *c, const model *m, size_t B, size_t nx, size_t maxsz, size_t ncol, size_t nk,
                           int tf32, long prec, long threads) {
    if (mpvec_init(&c->mx, nx, prec) || mpvec_init(&c->mparams, m->n_params, prec) ||
        mpvec_init(&c->mgrads, m->n_params, prec) || mpvec_init(&c->mam, m->n_params, prec) ||
        mpvec_init(&c->mav, m->n_params, prec) || mpvec_init(&c->mloss, 1, prec))
        return -1;
    for (int i = 0; i < m->n_layers; i++) {
        size_t sz = B * layer_out_size(&m->layers[i]);
        if (mpvec_init(&c->mact[i], sz, prec) || mpvec_init(&c->mdact[i], sz, prec)) return -1;
    }
    if (tf32 && (mpvec_init(&c->mtx, maxsz, prec) || mpvec_init(&c->mtdy, maxsz, prec) ||
                 mpvec_init(&c->mtw, m->n_params, prec)))
        return -1;
    c->acc = ls_calloc((size_t)threads, sizeof(mpfr_t));
    c->tmp = ls_calloc((size_t)threads, sizeof(mpfr_t));
    c->tmp2 = ls_calloc((size_t)threads, sizeof(mpfr_t));
    if (!c->acc || !c->tmp || !c->tmp2) {
        free(c->acc);
        c->acc = NULL;
        return -1;
    }
    for (int t = 0; t < threads; t++) mpfr_inits2(prec + 64, c->acc[t], c->tmp[t], c->tmp2[t], (mpfr_ptr)0);
    c->fast = prec <= 128;
    if (c->fast) {
        c->xa = ls_malloc(nk * sizeof *c->xa);
        c->xb = ls_malloc(nk * sizeof *c->xb);
        c->xc = ls_malloc(nk * sizeof *c->xc);
        c->xnz = ls_malloc(maxsz * sizeof *c->xnz);
        c->nzc = ls_malloc(maxsz * sizeof *c->nzc);
        c->xcol = ls_calloc((size_t)threads, sizeof *c->xcol);
        c->xcnt = ls_calloc((size_t)threads, sizeof *c->xcnt);
        c->z = ls_calloc((size_t)threads, sizeof *c->z);
        if (!c->xa || !c->xb || !c->xc || !c->xnz || !c->nzc || !c->xcol || !c->xcnt || !c->z) {
            free(c->z);
            c->z = NULL;
            return -1;
        }
        for (int t = 0; t < threads; t++) mpz_init(c->z[t]);
        for (int t = 0; t < threads; t++)
            if (!(c->xcol[t] = ls_malloc(ncol * sizeof(xq))) || !(c->xcnt[t] = ls_malloc(ncol * sizeof(int32_t))))
                return -1;
    }
    return 0;
}

int engine_reference_create(engine *e, const engine_spec *s) {
    ref_opts o = {0};
    int rc = ref_parse_opts(s, &o);
    if (rc) return rc;
    const int md = o.md, tf32 = o.tf32;
    const long prec = o.prec, threads = o.threads;

    const model *m = e->m;
    ref_ctx *c = ls_calloc(1, sizeof *c);
    if (!c) return LS_ENOMEM;
    e->ctx = c;
    e->iface = &reference_iface;
    c->mode = md;
    c->tf32 = tf32;
    c->tf32_mode = o.tmode;
    c->prec = prec;
    c->threads = (int)threads;
    c->L = m->n_layers;
    size_t B = e->max_batch, nx = B * (size_t)m->in_c * m->in_h * m->in_w, maxsz = nx;
    c->labels = ls_malloc(B * sizeof *c->labels);
    if (!c->labels) goto nomem;
    for (int i = 0; i < m->n_layers; i++) {
        size_t sz = B * layer_out_size(&m->layers[i]);
        if (sz > maxsz) maxsz = sz;
    }
    size_t ncol = 1; /* largest per-sample list: fwd OH*OW*C*k*k, bwd-data H*W*O*k*k */
    for (int i = 0; i < m->n_layers; i++) {
        const layer *l = &m->layers[i];
        if (l->kind != LAYER_CONV && l->kind != LAYER_DENSE) continue;
        size_t kk = l->kind == LAYER_CONV ? (size_t)l->k * l->k : 1;
        size_t f = layer_out_size(l) / l->out_c * l->in_c * kk, d = layer_in_size(l) / l->in_c * l->out_c * kk;
        if (f > ncol) ncol = f;
        if (d > ncol) ncol = d;
    }
    size_t nk = maxsz > m->n_params ? maxsz : m->n_params;
    if (md == REF_FP32CR ? ref_alloc_fp32cr(c, m, B, nx, maxsz, ncol, nk, tf32, threads)
                         : ref_alloc_exact(c, m, B, nx, maxsz, ncol, nk, tf32, prec, threads))
        goto nomem;
    return LS_OK;
nomem:
    ref_free(e);
    e->iface = NULL;
    return ls_err(LS_ENOMEM, "reference: out of memory for batch %zu (%s mode)", B,
                  md == REF_EXACT ? "exact" : "fp32cr");
}

__mpfr_struct *engine_reference_mpfr(engine *e, tensor_id t, size_t *n) {
    if (!e || e->iface != &reference_iface) return NULL;
    if (ctx_of(e)->mode != REF_EXACT) return NULL;
    float *f;
    mpvec *mv;
    locate(e, t, &f, &mv, n);
    return mv ? mv->v : NULL;
}

long engine_reference_prec(engine *e) {
    if (!e || e->iface != &reference_iface || ctx_of(e)->mode != REF_EXACT) return 0;
    return (long)ctx_of(e)->prec;
}
