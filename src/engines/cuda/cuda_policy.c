/*
 * cuda_policy.c — host-side decisions of the CUDA engine (knobs, algorithm
 * choice, descriptor shapes, launch geometry, error hints) in plain C.
 * See cuda_policy.h.  Not here: any CUDA, cuDNN or cuBLAS call, so that
 * this file builds and is tested with CUDA=0 as well.
 */
#include "engines/cuda/cuda_policy.h"

#include "base/checksum_ops.h"
#include "base/checksum_blank.h"
#include "engines/checksums.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

int cp_opts_parse(cp_opts *o, const engine_spec *s) {
    static const char *const allowed[] = {"math", "algo", "pool", "expm", "conv",
                                          "ws", "device", "timing", NULL};
    int rc = engine_spec_check(s, allowed);
    if (rc) return rc;
    memset(o, 0, sizeof *o);

    /* valued knobs: one wording on every engine (engine.c engine_spec_choice, naming every known value) */
    static const char *const maths[] = {"fma", "tf32", NULL}, *const algos[] = {"det", "fast", NULL},
                             *const pools[] = {"det", "fast", NULL}, *const expms[] = {"vendor", "portable", NULL},
                             *const convs[] = {"any", "gemm", NULL}, *const timings[] = {"1", "0", NULL};
    _Static_assert(CP_MODE_FMA == 0 && CP_MODE_TF32 == 1 && CP_ALGO_DET == 0 && CP_ALGO_FAST == 1,
                   "maths[] and algos[] are indexed by the enums");
    int math, algo, pool, timing;
    if ((rc = engine_spec_choice(s, "math", "fma", maths, &math)) ||
        (rc = engine_spec_choice(s, "algo", "det", algos, &algo)))
        return rc;
    o->math = (cp_math_mode)math;
    o->algo = (cp_algo_policy)algo;
    /* pool and conv default after algo: det's exact-sum paths, fast's whatever cuDNN ranks */
    if ((rc = engine_spec_choice(s, "pool", o->algo == CP_ALGO_DET ? "det" : "fast", pools, &pool)) ||
        (rc = engine_spec_choice(s, "expm", "vendor", expms, &o->portable_exp)))
        return rc;
    o->pool_det = pool == 0;

    /* algo=det is also the exact-sum path: no FFT or Winograd, whose
     * transforms round (an FFT dW of a dead tap comes out ~1e-12, not 0:
     * seen on an H200, cuDNN 9.19); algo=fast takes whatever cuDNN ranks */
    if ((rc = engine_spec_choice(s, "conv", o->algo == CP_ALGO_DET ? "gemm" : "any", convs, &o->gemm_only))) return rc;

    char *end;
    const char *v = engine_spec_get(s, "ws", "64");
    errno = 0;
    unsigned long mib = strtoul(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-' || mib > 65536)
        return ls_err(LS_EINVAL, "engine %s: bad value '%s' for knob ws (expected a workspace limit in MiB, 0 to "
                      "65536)", s->spec, v);
    o->ws_limit = (size_t)mib << 20;

    v = engine_spec_get(s, "device", "0");
    errno = 0;
    long dev = strtol(v, &end, 10);
    if (errno || end == v || *end || dev < 0 || dev > 1024)
        return ls_err(LS_EINVAL, "engine %s: bad value '%s' for knob device (expected a device index from 0 to 1024)",
                      s->spec, v);
    o->device = (int)dev;

    if ((rc = engine_spec_choice(s, "timing", "1", timings, &timing))) return rc;
    o->timing = timing == 0;
    return 0;
}

/* ---- algorithms ------------------------------------------------------ */

static const char *const fwd_names[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
    "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const bwd_data_names[] = {
    "ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const bwd_filter_names[] = {
    "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};

const char *cp_algo_name(int dir, int algo) {
    if (algo < 0) return "?";
    switch (dir) {
    case CP_CONV_FWD:
        return (size_t)algo < LS_ARRAY_LEN(fwd_names) ? fwd_names[algo] : "?";
    case CP_CONV_BWD_DATA:
        return (size_t)algo < LS_ARRAY_LEN(bwd_data_names) ? bwd_data_names[algo] : "?";
    case CP_CONV_BWD_FILTER:
        return (size_t)algo < LS_ARRAY_LEN(bwd_filter_names) ? bwd_filter_names[algo] : "?";
    default:
        return "?";
    }
}

int cp_algo_is_transform(int dir, int algo) {
    const char *n = cp_algo_name(dir, algo);
    return !strncmp(n, "FFT", 3) || !strncmp(n, "WINOGRAD", 8);
}

const char *cp_math_name(int math) {
    switch (math) {
    case CP_MATH_DEFAULT: return "DEFAULT_MATH";
    case CP_MATH_TENSOR_OP: return "TENSOR_OP_MATH";
    case CP_MATH_TENSOR_OP_CONVERT: return "TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CP_MATH_FMA: return "FMA_MATH";
    default: return "?";
    }
}

const char *cp_dir_name(int dir) {
    switch (dir) {
    case CP_CONV_FWD: return "fwd";
    case CP_CONV_BWD_DATA: return "bwd_data";
    case CP_CONV_BWD_FILTER: return "bwd_filter";
    default: return "?";
    }
}

int cp_pick_algo(const cp_algo_cand *c, int n, int dir, const cp_opts *o, int timed,
                 char *why, size_t why_len) {
    int best = -1;
    int r_status = 0, r_mem = 0, r_det = 0, r_math = 0, r_transform = 0;
    for (int i = 0; i < n; i++) {
        if (c[i].status != 0) { r_status++; continue; }
        if (c[i].memory > o->ws_limit) { r_mem++; continue; }
        if (o->algo == CP_ALGO_DET && c[i].deterministic != 1) { r_det++; continue; }
        if (o->math == CP_MODE_FMA ? c[i].math != CP_MATH_FMA
                                   : c[i].math == CP_MATH_TENSOR_OP_CONVERT) {
            r_math++;
            continue;
        }
        if (o->gemm_only && cp_algo_is_transform(dir, c[i].algo)) { r_transform++; continue; }
        if (best < 0) { best = i; continue; }
        /* strictly smaller time wins, so ties keep cuDNN's order */
        if (timed && o->algo == CP_ALGO_FAST && c[i].time_ms >= 0.0f &&
            (c[best].time_ms < 0.0f || c[i].time_ms < c[best].time_ms))
            best = i;
    }
    if (best < 0 && why && why_len)
        snprintf(why, why_len,
                 "no usable %s algorithm among %d candidates (rejected: %d failed status, "
                 "%d over the %zu MiB workspace limit, %d non-deterministic, %d wrong math type, "
                 "%d FFT/Winograd)",
                 cp_dir_name(dir), n, r_status, r_mem, o->ws_limit >> 20, r_det, r_math,
                 r_transform);
    return best;
}

/* ---- shapes ---------------------------------------------------------- */

static int fits_int(size_t v) { return v <= (size_t)INT_MAX; }

int cp_layer_dims(cp_dims *d, const layer *l, size_t n) {
    memset(d, 0, sizeof *d);
    if (n == 0 || !fits_int(n)) return ls_err(LS_EINVAL, "cuda: %s: batch %zu out of range", l->name, n);
    size_t in = layer_in_size(l), out = layer_out_size(l);
    /* cuDNN's 4-d descriptors take int dimensions and int strides: the
     * whole tensor's element count must fit an int. */
    if (!fits_int(in) || !fits_int(out) || in > (size_t)INT_MAX / n || out > (size_t)INT_MAX / n)
        return ls_err(LS_EINVAL, "cuda: %s: batch %zu makes a tensor larger than cuDNN's 2^31 elements",
                      l->name, n);
    d->x[0] = d->y[0] = (int)n;
    d->x[1] = l->in_c; d->x[2] = l->in_h; d->x[3] = l->in_w;
    d->y[1] = l->out_c; d->y[2] = l->out_h; d->y[3] = l->out_w;
    d->x_numel = n * in;
    d->y_numel = n * out;
    switch (l->kind) {
    case LAYER_CONV: {
        if (l->k < 1 || l->pad < 0)
            return ls_err(LS_EINVAL, "cuda: %s: bad kernel %d or padding %d", l->name, l->k, l->pad);
        int oh = l->in_h + 2 * l->pad - l->k + 1, ow = l->in_w + 2 * l->pad - l->k + 1;
        if (oh != l->out_h || ow != l->out_w)
            return ls_err(LS_EINVAL, "cuda: %s: model says %dx%d output, stride-1 convolution gives %dx%d",
                          l->name, l->out_h, l->out_w, oh, ow);
        d->w[0] = l->out_c; d->w[1] = l->in_c; d->w[2] = l->k; d->w[3] = l->k;
        d->pad = l->pad;
        d->w_numel = (size_t)l->out_c * l->in_c * l->k * l->k;
        break;
    }
    case LAYER_MAXPOOL:
        if (l->out_c != l->in_c || l->out_h != l->in_h / 2 || l->out_w != l->in_w / 2)
            return ls_err(LS_EINVAL, "cuda: %s: model's pooled shape %dx%dx%d is not floor(%dx%dx%d / 2)",
                          l->name, l->out_c, l->out_h, l->out_w, l->in_c, l->in_h, l->in_w);
        break;
    case LAYER_DENSE:
        /* (n, features) viewed as (n, features, 1, 1) */
        d->x[1] = (int)in; d->x[2] = d->x[3] = 1;
        d->y[1] = (int)out; d->y[2] = d->y[3] = 1;
        d->w[0] = (int)out; d->w[1] = (int)in; d->w[2] = d->w[3] = 1;
        d->w_numel = in * out;
        break;
    case LAYER_RELU:
    case LAYER_DROPOUT:
    case LAYER_FLATTEN:
        if (in != out)
            return ls_err(LS_EINVAL, "cuda: %s: element-wise layer changes the size (%zu -> %zu)",
                          l->name, in, out);
        break;
    default:
        return ls_err(LS_EINVAL, "cuda: %s: unknown layer kind %d", l->name, (int)l->kind);
    }
    return 0;
}

unsigned cp_grid_blocks(size_t count, unsigned threads, unsigned max_blocks) {
    if (count == 0 || threads == 0) return 0;
    size_t b = count / threads + (count % threads != 0);
    if (max_blocks == 0) max_blocks = 1;
    return b > max_blocks ? max_blocks : (unsigned)b;
}

const char *cp_cuda_hint(int e) {
    switch (e) {
    case 35: return "no NVIDIA driver is loaded, or it is older than this CUDA runtime";
    case 34: return "the CUDA driver found is a stub library, not a real driver";
    case 100: return "the driver sees no CUDA-capable device";
    case 101: return "no device with that index (check the device= knob and CUDA_VISIBLE_DEVICES)";
    case 46: return "every device is busy or in exclusive-process mode";
    case 3: return "the driver failed to initialise (check dmesg and nvidia-smi)";
    case 2: return "out of device memory";
    case 98: /* cudaErrorInvalidDeviceFunction: what some runtimes answer for a kernel with no image */
    case 209: return "this binary has no code for this GPU's architecture (built for sm_80, sm_90 and compute_90 PTX)";
    case 222: return "the driver is too old for this binary's PTX";
    case 802: return "the system is not ready (fabric manager not running?)";
    case 803: return "driver and kernel-module versions differ; reboot or reinstall the driver";
    case 804: return "forward-compatibility is not supported on this device";
    default: return NULL;
    }
}

/* ---- every-step checksums ------------------------------------------------ */

size_t cp_ck_scratch(const model *m, size_t n) {
    size_t mx = 1;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        size_t kk = (size_t)ly->k * ly->k, t[3] = {0, 0, 0};
        if (ly->kind == LAYER_CONV) {
            t[0] = n * (size_t)ly->in_c * kk, t[1] = n * (size_t)ly->out_c * kk, t[2] = n * (size_t)ly->out_h * ly->out_w;
        } else if (ly->kind == LAYER_DENSE) {
            /* t[0]: W's column and row sums; t[2]: the input's index-weighted sums, n per pattern */
            t[0] = (size_t)ly->in_c + ly->out_c, t[1] = (size_t)ly->out_c, t[2] = CK_IW_PATTERNS * n;
        }
        for (int i = 0; i < 3; i++) mx = t[i] > mx ? t[i] : mx;
    }
    return mx;
}

_Static_assert(CK_RND_DRAWS == 2, "kernels.cu's LK_RND_DRAWS");
size_t cp_ck_rnd(const model *m, size_t n) {
    size_t mx = 1;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        size_t t = 0, kk = (size_t)ly->k * ly->k, C = (size_t)ly->in_c, OC = (size_t)ly->out_c;
        size_t w = 0; /* BWD_W_RND's: weights, U and Ua, the shares, each sample's max |x| (or rx, rxa) */
        if (ly->kind == LAYER_CONV) {
            t = CK_RND_DRAWS * (2 * (size_t)ly->out_h + ly->out_w + 2 * (size_t)ly->in_h + ly->in_w) +
                CK_RND_DRAWS * n * (C > OC ? C : OC) * kk;
            w = CK_RND_DRAWS * (C + kk) + 2 * CK_RND_DRAWS * n * (size_t)ly->out_h * ly->out_w +
                3 * CK_RND_DRAWS * n * OC + n;
        } else if (ly->kind == LAYER_DENSE) {
            t = CK_RND_DRAWS * (2 * OC + 2 * C) + 5 * C + 5 * OC + 4 * CK_RND_DRAWS + 1;
            w = CK_RND_DRAWS * C + 2 * CK_RND_DRAWS * n;
        }
        mx = t > mx ? t : mx;
        mx = w > mx ? w : mx;
    }
    return mx;
}

cp_grp_layout cp_ck_grp_layout(size_t n, size_t hws, size_t po, size_t nu, size_t nv) {
    cp_grp_layout g;
    size_t u32s = 2 * n * po + n * CK_GRP_EXACT + n; /* fm, cnt, first, ng */
    g.hpos = 0;
    g.key = g.hpos + 8 * n * hws;
    g.fm = g.key + 8 * n * po;
    g.cnt = g.fm + 4 * n * po;
    g.first = g.cnt + 4 * n * po;
    g.ng = g.first + 4 * n * CK_GRP_EXACT;
    g.f = g.fm + 8 * ((u32s + 1) / 2); /* the u32 region rounded up to whole u64 */
    g.over = g.f + 8 * n * CK_GRP_EXACT;
    g.gmx = g.over + 8 * n;
    g.coef = g.gmx + 8 * n * CK_GRP_EXACT * nu;
    g.end = g.coef + 8 * nu * nv;
    return g;
}

size_t cp_ck_blank(const model *m, size_t n) {
    size_t mx = 8;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV) continue;
        size_t HW = (size_t)ly->in_h * ly->in_w, P = (size_t)ly->out_h * ly->out_w;
        size_t C = (size_t)ly->in_c, OC = (size_t)ly->out_c;
        for (int bwd = 0; bwd < 2; bwd++) { /* lk_ck_conv_grp's layout (lk_ck_blank's is its first part) */
            size_t t = cp_ck_grp_layout(n, bwd ? P : HW, bwd ? HW : P, bwd ? OC : C, bwd ? C : OC).end;
            mx = t > mx ? t : mx;
        }
    }
    return mx;
}

size_t cp_ck_maxima(const model *m, size_t n) {
    size_t mx = 2;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        size_t t = ly->kind == LAYER_CONV ? n * ((size_t)ly->in_c + (size_t)ly->out_c) : 0;
        mx = t > mx ? t : mx;
    }
    return mx;
}

size_t cp_ck_parts(const model *m, size_t n) {
    size_t mx = 4;
    for (int l = 0; l < m->n_layers; l++)
        if (m->layers[l].kind == LAYER_CONV && 4 * n * (size_t)m->layers[l].out_c > mx) mx = 4 * n * (size_t)m->layers[l].out_c;
    return mx;
}

int cp_ck_wants(int stage, int phase) {
    if (stage == CK_STAGE_STEP) return phase >= CK_FWD && phase < CK_NPHASE_ALL;
    if (stage == CK_STAGE_EVAL)
        return phase == CK_FWD || phase == CK_FWD_PS || phase == CK_FWD_PW || phase == CK_FWD_RA || phase == CK_FWD_CA ||
               phase == CK_FWD_DPEEK || phase == CK_FWD_PEEK || phase == CK_FWD_RND || phase == CK_FWD_BLANK;
    return 0;
}

int cp_ck_elem_kind(const layer *l) {
    switch (l->kind) {
    case LAYER_RELU: return 0;
    case LAYER_FLATTEN: return 1;
    case LAYER_DROPOUT: return 2;
    case LAYER_MAXPOOL: return 3;
    default: return -1;
    }
}

int cp_alloc_all(const cp_buf *b, int n, cp_alloc_fn alloc, cp_release_fn release, void *ctx, const char *what) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        *b[i].p = NULL;
        total += (double)b[i].bytes;
    }
    for (int i = 0; i < n; i++) {
        int rc = alloc(ctx, b[i].p, b[i].bytes);
        if (!rc) continue;
        /* the cause first: release() may set a message of its own */
        char cause[512];
        snprintf(cause, sizeof cause, "%s", ls_errmsg());
        for (int k = i - 1; k >= 0; k--) release(ctx, b[k].p, b[k].bytes);
        for (int k = 0; k < n; k++) *b[k].p = NULL;
        return ls_err(rc, "cuda: cannot allocate the device memory of %s: %s (%.1f MiB, buffer %d of %d; %.1f MiB in "
                      "all), none kept: %s", what, b[i].name, (double)b[i].bytes / 1048576.0, i + 1, n,
                      total / 1048576.0, cause);
    }
    return 0;
}
