/*
 * test_cuda.c — the CUDA engine.
 *
 * Host part, run on every machine (GPU or not, CUDA build or not): knob
 * parsing, the algorithm policy over hand-made candidate lists, algorithm
 * names against cuDNN's enums, descriptor shapes of SmallCNN, launch
 * geometry, error hints, the "cuda: unavailable (...)" path, the
 * checksums' device buffers allocated all or none (a fake allocator); and the
 * device's every-step blocks on the host: base/checksum_peek.h's,
 * checksum_rnd.h's and checksum_blank.h's per-element bodies (the
 * kernels' own), looped as the kernels split them, give a cpu engine's
 * vector bit for bit on SmallCNN and mnist-convnet tensors, and the judge
 * names faults only those blocks see (tests/ck_peek_expect.h); so does
 * the conv relations' S with the identical windows' term (expect_grp,
 * lk_ck_conv_grp's loops), forward on flat backgrounds and backward-data
 * on a dy given flat regions.
 *
 * Device part, which calls skip() with the reason when there is no usable
 * device (or the build has no CUDA): our element-wise kernels bitwise equal
 * to the C code on the same inputs; SmallCNN layer by layer against the cpu
 * engine, each layer fed the cpu engine's input (so each comparison sees
 * one layer's rounding only) within the fp32 bound; a few training steps
 * that lower the loss and repeat bit for bit; the device's checksum
 * vector, every block against the host loops on the device's own tensors
 * (and on flat backgrounds, the identical windows' term: test_dev_grp).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checksums.h"
#include "engines/checksums.h"
#include "engines/cuda/cuda_policy.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"
#include "base/ops_elem.h"
#include "base/rng.h"
#include "base/util.h"
#include "ck_peek_expect.h"

#if LS_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "engines/cuda/kernels.h"
#include "ck_s_expect.h"
#endif

#define U32 0x1p-24 /* fp32 unit roundoff */

static engine_spec spec_of(const char *text) {
    engine_spec s;
    int rc = engine_spec_parse(&s, text);
    if (rc) fail_msg("%s: %s", text, ls_errmsg());
    return s;
}

/* ---- knobs ------------------------------------------------------------ */

static void test_opts(void **st) {
    cp_opts o;
    engine_spec s = spec_of("cuda");
    assert_int_equal(cp_opts_parse(&o, &s), 0);
    assert_int_equal(o.math, CP_MODE_FMA);
    assert_int_equal(o.algo, CP_ALGO_DET);
    assert_int_equal(o.pool_det, 1);
    assert_int_equal(o.portable_exp, 0);
    assert_int_equal(o.gemm_only, 1); /* det: the exact-sum algorithms only */
    assert_true(o.ws_limit == (size_t)64 << 20);
    assert_int_equal(o.timing, 1);

    s = spec_of("cuda:math=tf32:algo=fast:expm=portable:conv=gemm:ws=8:timing=0");
    assert_int_equal(cp_opts_parse(&o, &s), 0);
    assert_int_equal(o.math, CP_MODE_TF32);
    assert_int_equal(o.algo, CP_ALGO_FAST);
    assert_int_equal(o.pool_det, 0); /* follows algo */
    assert_int_equal(o.portable_exp, 1);
    assert_int_equal(o.gemm_only, 1);
    assert_true(o.ws_limit == (size_t)8 << 20);
    assert_int_equal(o.timing, 0);

    s = spec_of("cuda:algo=fast:pool=det");
    assert_int_equal(cp_opts_parse(&o, &s), 0);
    assert_int_equal(o.pool_det, 1);
    assert_int_equal(o.gemm_only, 0); /* conv follows algo: fast takes FFT and Winograd too */
    s = spec_of("cuda:conv=any");
    assert_int_equal(cp_opts_parse(&o, &s), 0);
    assert_int_equal(o.gemm_only, 0);
    assert_int_equal(o.algo, CP_ALGO_DET);

    /* every knob's bad value worded as the other engines' (engine.c engine_spec_choice, engine_cpu.c's
     * threads=): the whole message, every known value named (it said "cuda: math=fp16: expected fma or tf32") */
    static const char *bad[][2] = {
        {"cuda:math=fp16", "engine cuda:math=fp16: unknown value 'fp16' for knob math (known: fma, tf32)"},
        {"cuda:algo=fastest", "engine cuda:algo=fastest: unknown value 'fastest' for knob algo (known: det, fast)"},
        {"cuda:expm=glibc", "engine cuda:expm=glibc: unknown value 'glibc' for knob expm (known: vendor, portable)"},
        {"cuda:pool=maybe", "engine cuda:pool=maybe: unknown value 'maybe' for knob pool (known: det, fast)"},
        {"cuda:algo=fast:pool=maybe", "engine cuda:algo=fast:pool=maybe: unknown value 'maybe' for knob pool (known: "
                                      "det, fast)"},
        {"cuda:conv=fft", "engine cuda:conv=fft: unknown value 'fft' for knob conv (known: any, gemm)"},
        {"cuda:timing=yes", "engine cuda:timing=yes: unknown value 'yes' for knob timing (known: 1, 0)"},
        {"cuda:ws=-1", "engine cuda:ws=-1: bad value '-1' for knob ws (expected a workspace limit in MiB, 0 to 65536)"},
        {"cuda:ws=12MiB", "engine cuda:ws=12MiB: bad value '12MiB' for knob ws (expected a workspace limit in MiB, 0 "
                          "to 65536)"},
        {"cuda:device=x", "engine cuda:device=x: bad value 'x' for knob device (expected a device index from 0 to "
                          "1024)"},
        {"cuda:threads=2", "engine cuda:threads=2: unknown knob 'threads' (known: math, algo, pool, expm, conv, ws, "
                           "device, timing)"},
    };
    for (size_t i = 0; i < LS_ARRAY_LEN(bad); i++) {
        s = spec_of(bad[i][0]);
        assert_int_equal(cp_opts_parse(&o, &s), LS_EINVAL);
        if (strcmp(ls_errmsg(), bad[i][1])) fail_msg("%s: message '%s', want '%s'", bad[i][0], ls_errmsg(), bad[i][1]);
    }
    /* the values the old parser took still parse to the same options */
    s = spec_of("cuda:pool=fast:timing=1:expm=vendor:conv=gemm:algo=det:math=fma");
    assert_int_equal(cp_opts_parse(&o, &s), 0);
    assert_int_equal(o.pool_det, 0);
    assert_int_equal(o.timing, 1);
    assert_int_equal(o.portable_exp, 0);
    assert_int_equal(o.gemm_only, 1);
}

/* ---- algorithm policy ------------------------------------------------- */

/* A candidate list shaped like cuDNN's: ranked, mixed determinism and math
 * types, one failed, one too big. */
static const cp_algo_cand CANDS[] = {
    /* algo status time  memory  det math */
    {0, 0, 0.50f, 0, 0, CP_MATH_FMA},                  /* 0: non-deterministic */
    {1, 0, 0.40f, 1024, 1, CP_MATH_DEFAULT},           /* 1: TF32 allowed */
    {1, 3, 0.10f, 0, 1, CP_MATH_FMA},                  /* 2: failed status */
    {7, 0, 0.20f, (size_t)1 << 30, 1, CP_MATH_FMA},    /* 3: 1 GiB workspace */
    {6, 0, 0.30f, 4096, 1, CP_MATH_FMA},               /* 4: Winograd, fits */
    {1, 0, 0.35f, 2048, 1, CP_MATH_FMA},               /* 5: precomp GEMM */
    {1, 0, 0.05f, 0, 1, CP_MATH_TENSOR_OP_CONVERT},    /* 6: fp16 conversion */
    {2, 0, 0.30f, 0, 1, CP_MATH_FMA},                  /* 7: GEMM, ties with 4 */
};

static cp_opts opts(cp_math_mode math, cp_algo_policy algo, int gemm_only) {
    cp_opts o;
    memset(&o, 0, sizeof o);
    o.math = math;
    o.algo = algo;
    o.gemm_only = gemm_only;
    o.ws_limit = (size_t)64 << 20;
    return o;
}

static void test_pick(void **st) {
    int n = (int)LS_ARRAY_LEN(CANDS);
    cp_opts o;
    char why[320];
    /* det + fma: first deterministic FMA candidate that succeeded and fits */
    o = opts(CP_MODE_FMA, CP_ALGO_DET, 0);
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 0, why, sizeof why), 4);
    /* the same list from a timed Find changes nothing under det */
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 1, why, sizeof why), 4);
    /* conv=gemm refuses the Winograd entry */
    o = opts(CP_MODE_FMA, CP_ALGO_DET, 1);
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 0, why, sizeof why), 5);
    /* det + tf32: DEFAULT math is acceptable, so the ranking's entry 1 */
    o = opts(CP_MODE_TF32, CP_ALGO_DET, 0);
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 0, why, sizeof why), 1);
    /* fast + fma, timed: the fastest allowed FMA entry; 0 (non-deterministic,
     * 0.50) loses to 4 (0.30), and 7 ties with 4 so the earlier stays */
    o = opts(CP_MODE_FMA, CP_ALGO_FAST, 0);
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 1, why, sizeof why), 4);
    /* fast + fma from heuristics (no times): cuDNN's first allowed entry */
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 0, why, sizeof why), 0);
    /* fast + tf32, timed: 6 (0.05) is fp16 conversion, never allowed; 2
     * (0.10) failed; 3 (0.20) is over the workspace limit; of 1 (0.40),
     * 5 (0.35), 4 (0.30) and 7 (0.30), 4 wins the tie by coming first */
    o = opts(CP_MODE_TF32, CP_ALGO_FAST, 0);
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 1, why, sizeof why), 4);
    /* a bigger workspace limit lets entry 3 (0.20) win */
    o.ws_limit = (size_t)2 << 30;
    assert_int_equal(cp_pick_algo(CANDS, n, CP_CONV_FWD, &o, 1, why, sizeof why), 3);
    /* nothing acceptable: -1 and a reason that counts each rejection */
    o = opts(CP_MODE_FMA, CP_ALGO_DET, 0);
    const cp_algo_cand none[] = {{0, 0, -1.0f, 0, 0, CP_MATH_FMA}, {1, 0, -1.0f, 0, 1, CP_MATH_DEFAULT},
                                 {1, 9, -1.0f, 0, 1, CP_MATH_FMA}};
    assert_int_equal(cp_pick_algo(none, 3, CP_CONV_BWD_FILTER, &o, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "bwd_filter"));
    assert_non_null(strstr(why, "1 failed status"));
    assert_non_null(strstr(why, "1 non-deterministic"));
    assert_non_null(strstr(why, "1 wrong math type"));
    assert_int_equal(cp_pick_algo(NULL, 0, CP_CONV_FWD, &o, 0, NULL, 0), -1);
}

static void test_algo_names(void **st) {
    assert_string_equal(cp_algo_name(CP_CONV_FWD, 1), "IMPLICIT_PRECOMP_GEMM");
    assert_string_equal(cp_algo_name(CP_CONV_BWD_FILTER, 3), "ALGO_3");
    assert_string_equal(cp_algo_name(CP_CONV_BWD_DATA, 5), "WINOGRAD_NONFUSED");
    assert_string_equal(cp_algo_name(CP_CONV_FWD, 8), "?");
    assert_string_equal(cp_algo_name(CP_CONV_FWD, -1), "?");
    assert_string_equal(cp_algo_name(7, 0), "?");
    /* transforms: FFT and Winograd, never the GEMM family */
    int fwd_t[] = {0, 0, 0, 0, 1, 1, 1, 1}, bd_t[] = {0, 0, 1, 1, 1, 1}, bf_t[] = {0, 0, 1, 0, 1, 1, 1};
    for (int a = 0; a < 8; a++) assert_int_equal(cp_algo_is_transform(CP_CONV_FWD, a), fwd_t[a]);
    for (int a = 0; a < 6; a++) assert_int_equal(cp_algo_is_transform(CP_CONV_BWD_DATA, a), bd_t[a]);
    for (int a = 0; a < 7; a++) assert_int_equal(cp_algo_is_transform(CP_CONV_BWD_FILTER, a), bf_t[a]);
    assert_string_equal(cp_math_name(CP_MATH_FMA), "FMA_MATH");
#if LS_HAVE_CUDA
    /* our tables against the cuDNN headers this build uses */
    assert_int_equal(CUDNN_CONVOLUTION_FWD_ALGO_COUNT, 8);
    assert_int_equal(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, 6);
    assert_int_equal(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, 7);
    assert_string_equal(cp_algo_name(CP_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED), "WINOGRAD_NONFUSED");
    assert_string_equal(cp_algo_name(CP_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT), "DIRECT");
    assert_string_equal(cp_algo_name(CP_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING), "FFT_TILING");
    assert_string_equal(cp_algo_name(CP_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING), "FFT_TILING");
    assert_int_equal(CP_MATH_FMA, CUDNN_FMA_MATH);
    assert_int_equal(CP_MATH_DEFAULT, CUDNN_DEFAULT_MATH);
#endif
}

/* ---- shapes, geometry, hints ------------------------------------------ */

static void test_dims_smallcnn(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    const size_t n = 256;
    /* conv1 conv relu pool conv relu pool flatten fc1 relu fc2 */
    struct { const char *name; int x[4], y[4], w[4], pad; } want[] = {
        {"conv1", {256, 1, 28, 28}, {256, 16, 28, 28}, {16, 1, 3, 3}, 1},
        {"pool1", {256, 16, 28, 28}, {256, 16, 14, 14}, {0, 0, 0, 0}, 0},
        {"conv2", {256, 16, 14, 14}, {256, 32, 14, 14}, {32, 16, 3, 3}, 1},
        {"pool2", {256, 32, 14, 14}, {256, 32, 7, 7}, {0, 0, 0, 0}, 0},
        {"fc1", {256, 1568, 1, 1}, {256, 64, 1, 1}, {64, 1568, 1, 1}, 0},
        {"fc2", {256, 64, 1, 1}, {256, 10, 1, 1}, {10, 64, 1, 1}, 0},
    };
    int found = 0;
    for (int l = 0; l < m.n_layers; l++) {
        cp_dims d;
        if (cp_layer_dims(&d, &m.layers[l], n)) fail_msg("%s: %s", m.layers[l].name, ls_errmsg());
        assert_true(d.x_numel == n * layer_in_size(&m.layers[l]));
        assert_true(d.y_numel == n * layer_out_size(&m.layers[l]));
        for (size_t i = 0; i < LS_ARRAY_LEN(want); i++) {
            if (strcmp(want[i].name, m.layers[l].name)) continue;
            found++;
            assert_memory_equal(d.x, want[i].x, sizeof d.x);
            assert_memory_equal(d.y, want[i].y, sizeof d.y);
            assert_memory_equal(d.w, want[i].w, sizeof d.w);
            assert_int_equal(d.pad, want[i].pad);
        }
    }
    assert_int_equal(found, (int)LS_ARRAY_LEN(want));
    cp_dims d;
    /* conv1's output of 12,544 floats per sample: 2^31 / 12544 = 171,196 */
    assert_int_equal(cp_layer_dims(&d, &m.layers[0], 171196), 0);
    assert_int_equal(cp_layer_dims(&d, &m.layers[0], 171197), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "2^31"));
    assert_int_equal(cp_layer_dims(&d, &m.layers[0], 0), LS_EINVAL);
    /* a shape cuDNN would not compute */
    layer bad = m.layers[0];
    bad.out_h = 27;
    assert_int_equal(cp_layer_dims(&d, &bad, 4), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "conv1"));
    layer badpool = m.layers[2];
    assert_int_equal(badpool.kind, LAYER_MAXPOOL);
    badpool.out_w = 15;
    assert_int_equal(cp_layer_dims(&d, &badpool, 4), LS_EINVAL);
}

static void test_grid(void **st) {
    assert_int_equal(cp_grid_blocks(0, 256, 4096), 0);
    assert_int_equal(cp_grid_blocks(1, 256, 4096), 1);
    assert_int_equal(cp_grid_blocks(256, 256, 4096), 1);
    assert_int_equal(cp_grid_blocks(257, 256, 4096), 2);
    assert_int_equal(cp_grid_blocks((size_t)256 * 4096, 256, 4096), 4096);
    assert_int_equal(cp_grid_blocks((size_t)256 * 4096 + 1, 256, 4096), 4096); /* grid-stride covers the rest */
    assert_int_equal(cp_grid_blocks((size_t)1 << 40, 256, 4096), 4096);
    assert_int_equal(cp_grid_blocks(10, 0, 4096), 0);
}

static void test_hints(void **st) {
    assert_non_null(strstr(cp_cuda_hint(35), "driver"));
    assert_non_null(strstr(cp_cuda_hint(100), "no CUDA-capable device"));
    assert_non_null(strstr(cp_cuda_hint(209), "sm_80"));
    assert_non_null(strstr(cp_cuda_hint(98), "sm_80"));
    assert_null(cp_cuda_hint(0));
    assert_null(cp_cuda_hint(12345));
}

/* ---- the engine, with or without a device ----------------------------- */

/* NULL when a device can be used, else why not (for skip messages). */
static const char *no_device(void) {
#if LS_HAVE_CUDA
    static char why[256];
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, sizeof why, "no usable CUDA device (cudaGetDeviceCount: %s)", cudaGetErrorName(e));
        return why;
    }
    if (count == 0) return "no CUDA device";
    return NULL;
#else
    return "built without CUDA (LS_HAVE_CUDA=0)";
#endif
}

/* The device checksums' host logic: scratch large enough for every
 * kernel's sums (the values worked out by hand for SmallCNN), the blocks
 * each stage computes are the ones checks/checksums.c judges, and each
 * element-wise layer has its kernel. */
static void test_ck_policy(void **st) {
    (void)st;
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    /* conv1: 256 x 28 x 28 patch sums = 200704 is the largest (conv2: 256 x 32 x 9 = 73728) */
    assert_int_equal(cp_ck_scratch(&m, 256), 200704);
    assert_int_equal(cp_ck_scratch(&m, 1), 1568 + 64); /* fc1's 1568 inputs and 64 outputs: W's column and row sums */
    /* plane maxima: conv2's n (16 x planes + 32 dy planes); a dense layer's 2 at least */
    assert_int_equal(cp_ck_maxima(&m, 256), 256 * 48);
    assert_int_equal(cp_ck_maxima(&m, 1), 48);
    model dd;
    assert_int_equal(model_parse_spec(&dd, "input 4 1 1; flatten; dense 3", "t"), 0);
    assert_int_equal(cp_ck_maxima(&dd, 64), 2);
    /* conv backward-weights' per-plane sums: 4 per (sample, filter), conv2's 32 filters the most */
    assert_int_equal(cp_ck_parts(&m, 256), 4 * 256 * 32);
    assert_int_equal(cp_ck_parts(&dd, 64), 4);
    for (int ph = 0; ph < CK_NPHASE; ph++) {
        assert_true(cp_ck_wants(CK_STAGE_STEP, ph));
        assert_int_equal(cp_ck_wants(CK_STAGE_EVAL, ph), ph == CK_FWD);
        assert_false(cp_ck_wants(CK_STAGE_UPDATE, ph));
    }
    assert_true(cp_ck_wants(CK_STAGE_EVAL, CK_FWD_DPEEK)); /* every output re-done at evaluation too */
    assert_false(cp_ck_wants(CK_STAGE_EVAL, CK_BWD_DATA_DPEEK));
    assert_true(cp_ck_wants(CK_STAGE_STEP, CK_BWD_DATA_DPEEK));
    assert_true(cp_ck_wants(CK_STAGE_EVAL, CK_FWD_PEEK) && cp_ck_wants(CK_STAGE_EVAL, CK_FWD_RND));
    assert_false(cp_ck_wants(CK_STAGE_EVAL, CK_BWD_DATA_PEEK) || cp_ck_wants(CK_STAGE_EVAL, CK_BWD_DATA_RND));
    /* the random-weight scratch: at n = 1 fc1's 2 x (2 64 + 2 1568) + 5 (1568 + 64) + 9 the most */
    /* BWD_W_RND's conv1 needs more at n = 256: U and Ua of both draws (4 n 28 28), the shares (6 n 16), n maxima */
    assert_int_equal(cp_ck_rnd(&m, 256), 2 * (1 + 9) + 4 * 256 * 784 + 6 * 256 * 16 + 256);
    assert_int_equal(cp_ck_rnd(&m, 1), 2 * (2 * 64 + 2 * 1568) + 5 * (1568 + 64) + 9);
    int kinds[6] = {0};
    for (int l = 0; l < m.n_layers; l++) {
        int k = cp_ck_elem_kind(&m.layers[l]);
        int lin = m.layers[l].kind == LAYER_CONV || m.layers[l].kind == LAYER_DENSE;
        assert_int_equal(k < 0, lin);
        if (k >= 0) kinds[k]++;
    }
    assert_int_equal(kinds[0], 3); /* relu1..3 */
    assert_int_equal(kinds[1], 1); /* flatten */
    assert_int_equal(kinds[3], 2); /* pool1, pool2 */
    model d;
    assert_int_equal(model_build(&d, "mnist-convnet"), 0);
    int drop = 0;
    for (int l = 0; l < d.n_layers; l++) drop += cp_ck_elem_kind(&d.layers[l]) == 2;
    assert_int_equal(drop, 1);
}

/* The blank and identical windows' scratch (cp_ck_blank): the layout
 * lk_ck_conv_grp and lk_ck_blank carve it into (cp_ck_grp_layout, the one
 * function both kernels' hosts and cp_ck_blank use) has its regions in
 * order, apart, 8-byte aligned where they hold u64 or doubles, and ends
 * within cp_ck_blank for every conv layer, direction and batch size (an
 * odd n makes the u32 region's count odd: its rounding up to whole u64).
 * Before, the size and the kernels' pointer arithmetic were two copies
 * that only reading kept in agreement. */
static void check_grp_layout(const model *m, size_t n) {
    size_t total = cp_ck_blank(m, n);
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV) continue;
        size_t HW = (size_t)ly->in_h * ly->in_w, P = (size_t)ly->out_h * ly->out_w;
        for (int bwd = 0; bwd < 2; bwd++) {
            size_t hws = bwd ? P : HW, po = bwd ? HW : P;
            size_t nu = (size_t)(bwd ? ly->out_c : ly->in_c), nv = (size_t)(bwd ? ly->in_c : ly->out_c);
            cp_grp_layout g = cp_ck_grp_layout(n, hws, po, nu, nv);
            assert_int_equal(g.hpos, 0);
            assert_int_equal(g.key, g.hpos + 8 * n * hws);
            assert_int_equal(g.fm, g.key + 8 * n * po);
            assert_int_equal(g.cnt, g.fm + 4 * n * po);
            assert_int_equal(g.first, g.cnt + 4 * n * po);
            assert_int_equal(g.ng, g.first + 4 * n * CK_GRP_EXACT);
            assert_true(g.ng + 4 * n <= g.f && g.f < g.ng + 4 * n + 8); /* ng's n u32, then at most 4 bytes' pad */
            assert_int_equal(g.f % 8, 0);
            assert_int_equal(g.over, g.f + 8 * n * CK_GRP_EXACT);
            assert_int_equal(g.gmx, g.over + 8 * n);
            assert_int_equal(g.coef, g.gmx + 8 * n * CK_GRP_EXACT * nu);
            assert_int_equal(g.end, g.coef + 8 * nu * nv);
            if (g.end > total)
                fail_msg("layer %s %s, n %zu: the layout needs %zu bytes, cp_ck_blank gives %zu", ly->name,
                         bwd ? "backward-data" : "forward", n, g.end, total);
        }
    }
}

static void test_ck_blank_layout(void **st) {
    (void)st;
    model m, d;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    assert_int_equal(model_build(&d, "mnist-convnet"), 0);
    /* SmallCNN at 256, worked by hand: conv1's backward-data (dy's 28 x 28
     * windows over the 28 x 28 input positions, 16 source channels, 1
     * result channel) is the largest: hashes 8 n (784 + 784) = 3211264;
     * u32s 2 n 784 + 16 n + n = 405760, as 202880 u64 = 1623040; doubles
     * 16 n + n + 16 n 16 + 16 1 = 69904, 559232 bytes; 5393536 in all
     * (conv1 forward 4902016, conv2 2309120 backward-data) */
    assert_int_equal(cp_ck_blank(&m, 256), 5393536);
    size_t ns[] = {1, 7, 16, 255, 256};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        check_grp_layout(&m, ns[i]);
        check_grp_layout(&d, ns[i]);
    }
}

/* A fake device allocator for cp_alloc_all: fails the fail_at-th call
 * (1-based; 0 never), counts what is live, and says what release() got. */
typedef struct {
    int calls, fail_at, live, released, bad_release;
    char mem[8][64];
} fake_dev;

static int fake_alloc(void *ctx, void **p, size_t bytes) {
    fake_dev *f = ctx;
    int k = f->calls++;
    if (f->calls == f->fail_at) return ls_err(LS_ELIB, "fake: cudaMalloc(p, %zu): out of memory", bytes);
    *p = bytes ? f->mem[k] : NULL;
    f->live += bytes != 0;
    return 0;
}

static void fake_release(void *ctx, void **p, size_t bytes) {
    fake_dev *f = ctx;
    if (*p) {
        f->live--;
        f->released++;
        if (bytes == 0) f->bad_release++;
    }
    *p = NULL;
    ls_err(LS_EIO, "release's own message"); /* must not replace the cause */
}

/* The checksums' device buffers are a set, all or none: a failure past the
 * first buffer left the earlier ones allocated and the rest NULL, and the
 * next call (which took "ck_vec allocated" for "ready") ran kernels on the
 * NULLs.  Here every position fails in turn: nothing stays allocated, every
 * pointer is NULL, the message names the set, the buffer and the cause; a
 * later call can allocate the whole set. */
static void test_alloc_all_or_none(void **st) {
    (void)st;
    void *p[5];
    const cp_buf set[5] = {{&p[0], 1 << 20, "ck_vec"}, {&p[1], 512 << 10, "ck_s"}, {&p[2], 0, "ck_grp"},
                           {&p[3], 1 << 20, "ck_p0"},  {&p[4], 3 << 19, "ck_m0"}};
    for (int at = 1; at <= 5; at++) {
        if (at == 3) continue; /* a 0-byte buffer is still asked for: fail it too below */
        fake_dev f = {0};
        f.fail_at = at;
        for (int i = 0; i < 5; i++) p[i] = (void *)&f; /* stale values: none may survive */
        int rc = cp_alloc_all(set, 5, fake_alloc, fake_release, &f, "the every-step checksums");
        assert_int_equal(rc, LS_ELIB);
        assert_int_equal(f.live, 0);
        assert_int_equal(f.bad_release, 0);
        for (int i = 0; i < 5; i++)
            if (p[i]) fail_msg("failure at buffer %d: buffer %d (%s) left non-NULL", at, i + 1, set[i].name);
        char want[256];
        snprintf(want, sizeof want, "cuda: cannot allocate the device memory of the every-step checksums: %s (%.1f "
                 "MiB, buffer %d of 5; 4.0 MiB in all), none kept: fake: cudaMalloc(p, %zu): out of memory",
                 set[at - 1].name, set[at - 1].bytes / 1048576.0, at, set[at - 1].bytes);
        assert_string_equal(ls_errmsg(), want);
    }
    /* the 0-byte buffer's allocation failing (a sticky device error) is handled the same way */
    fake_dev f = {0};
    f.fail_at = 3;
    assert_int_equal(cp_alloc_all(set, 5, fake_alloc, fake_release, &f, "x"), LS_ELIB);
    assert_int_equal(f.live, 0);
    assert_int_equal(f.released, 2);
    /* then the whole set, on a device with room */
    fake_dev g = {0};
    assert_int_equal(cp_alloc_all(set, 5, fake_alloc, fake_release, &g, "x"), 0);
    assert_int_equal(g.live, 4);
    for (int i = 0; i < 5; i++) assert_int_equal(p[i] != NULL, set[i].bytes != 0);
}

static void test_create_or_unavailable(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine_opts eo = {42, 64, 0};
    engine *e = NULL;
    int rc = engine_create(&e, "cuda", &m, &eo);
    if (no_device()) {
        /* the message a user sees: "cuda: unavailable (reason)" */
        assert_int_equal(rc, LS_EUNAVAIL);
        assert_null(e);
        assert_true(strncmp(ls_errmsg(), "cuda: unavailable (", 19) == 0);
        assert_true(ls_errmsg()[strlen(ls_errmsg()) - 1] == ')');
    } else {
        if (rc) fail_msg("%s", ls_errmsg());
        char *d = engine_describe(e);
        assert_non_null(d);
        assert_non_null(strstr(d, "\"compute_capability\""));
        assert_non_null(strstr(d, "\"cudnn_version\""));
        assert_non_null(strstr(d, "\"FMA_MATH\""));
        assert_null(strstr(d, "TENSOR_OP_MATH\"")); /* fma: no tensor-core math anywhere */
        free(d);
        engine_free(e);
    }
    /* knob errors are reported whether or not there is a device, and in a
     * build without CUDA too (the registry parses the knobs first), worded
     * as every engine's: the value, the knob, every known value */
    rc = engine_create(&e, "cuda:math=fp64", &m, &eo);
    assert_int_equal(rc, LS_EINVAL);
    assert_null(e);
    assert_string_equal(ls_errmsg(), "engine cuda:math=fp64: unknown value 'fp64' for knob math (known: fma, tf32)");
#if !LS_HAVE_CUDA
    rc = engine_create(&e, "cuda:math=tf32", &m, &eo);
    assert_int_equal(rc, LS_EUNAVAIL);
    assert_non_null(strstr(ls_errmsg(), "built without CUDA"));
#endif
}

/* ---- the device's output-element blocks, on the host --------------------
 * base/checksum_peek.h's loops (the bodies k_ck_dense_opeek calls, in the
 * device's split too) over a cpu engine's own SmallCNN tensors give its
 * vector's blocks bit for bit (the same chains in the same order, in
 * double), and the judge reads them for a cuda engine. */

/* a batch with blank areas and flat backgrounds, as images have: in odd
 * samples the top 8 rows and the left 6 columns 0 and every other row of
 * the rest 0 (blank windows, identical windows); in samples 4k + 2 the
 * bottom 10 rows a constant (identical windows that are not blank) */
static void blank_batch(float *x, int32_t *y, size_t n, size_t in, uint32_t step) {
    for (size_t i = 0; i < n * in; i++) {
        size_t s = i / in, r = (i % in) / 28, c = (i % in) % 28;
        float u = rng_uniform(11, (uint32_t)i, step, 0, 3);
        x[i] = (s & 1) && (r < 8 || c < 6 || (r & 1)) ? 0.0f : s % 4 == 2 && r >= 18 ? 0.375f : u;
    }
    for (size_t i = 0; i < n; i++) y[i] = (int32_t)(rng_u32(11, (uint32_t)i, step, 1, 3) % 10);
}

static void test_peek_host(void **st) {
    (void)st;
    enum { N = 24 };
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine_opts o = {.seed = 42, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cpu:threads=1", &m, &o), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *p = malloc(m.n_params * 4), *x = malloc(N * in * 4);
    int32_t y[N];
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *v = calloc(L.total, sizeof *v);
    assert_true(p && x && v);
    model_init_params(&m, p, 42);
    assert_int_equal(engine_set_params(e, p), 0);
    adam_cfg a = adam_default();
    size_t cnt = 0, kept = 0, pcnt = 0, pkept = 0, rcnt = 0, wcnt = 0, wkept = 0, bcnt = 0, bgrp = 0, wrcnt = 0;
    size_t gcnt = 0, gwith[2] = {0, 0}, ggrp = 0;
    double bpos = 0;
    for (uint32_t step = 1; step <= 3; step++) { /* the initial weights, then trained ones */
        blank_batch(x, y, N, in, step);
        assert_int_equal(engine_set_batch(e, x, y, N, step), 0);
        assert_int_equal(engine_forward(e, 1), 0);
        assert_int_equal(engine_loss(e, NULL), 0);
        assert_int_equal(engine_backward(e), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
        peek_tensors t;
        peek_tensors_get(&t, e, &m, N, x, 1);
        cnt += expect_dpeek(&m, v, N, &t, step == 1 ? 128 : step == 2 ? 32 : 1, &kept);
        pcnt += expect_peek(&m, v, N, &t, &pkept);
        rcnt += expect_rnd(&m, v, N, &t);
        wcnt += expect_wpeek(&m, v, N, &t, &wkept);
        bcnt += expect_blank(&m, v, N, &t, &bpos, &bgrp);
        gcnt += expect_grp(&m, v, N, &t, gwith, &ggrp);
        wrcnt += expect_wrnd(&m, v, N, &t);
        peek_tensors_free(&t, &m);
        assert_int_equal(engine_update(e, &a, step), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_UPDATE, v), 0);
    }
    /* an evaluation batch: FWD_DPEEK only */
    assert_int_equal(engine_set_batch(e, x, y, N, 0), 0);
    assert_int_equal(engine_forward(e, 0), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_EVAL, v), 0);
    peek_tensors t;
    peek_tensors_get(&t, e, &m, N, x, 0);
    cnt += expect_dpeek(&m, v, N, &t, 128, &kept);
    pcnt += expect_peek(&m, v, N, &t, &pkept);
    rcnt += expect_rnd(&m, v, N, &t);
    bcnt += expect_blank(&m, v, N, &t, &bpos, &bgrp);
    gcnt += expect_grp(&m, v, N, &t, gwith, &ggrp);
    print_message("blank and identical windows: %zu entries bit for bit as the cpu engine's (%.0f blank positions, %zu "
                  "entries with identical windows' outputs apart)\n", bcnt, bpos, bgrp);
    /* the identical windows' term (lk_ck_conv_grp's loops): every conv forward and backward-data relation's S
     * and its companions' as the cpu engine's, bit for bit; where the term moves S, a vector without it (the
     * device's before) fails that comparison: blank_batch's flat regions must give such relations */
    print_message("identical windows' term: %zu relations' S bit for bit as the cpu engine's (%zu exact groups; %zu "
                  "forward and %zu backward-data relations whose S the term moves)\n", gcnt, ggrp, gwith[0], gwith[1]);
    /* conv1 (16), conv2 (32 forward, 16 backward-data) a sample, 3 steps; forward at eval */
    assert_int_equal(gcnt, 3 * N * (16 + 32 + 16) + N * (16 + 32));
    assert_true(ggrp > 0 && gwith[0] * 10 > gcnt); /* measured: see the message */
    assert_int_equal(bcnt, 4 * N * 2); /* conv1, conv2: 3 steps and the evaluation */
    assert_true(bpos > 0);
    print_message("random-weight relations: %zu entries bit for bit as the cpu engine's\n", rcnt);
    print_message("random-weighted weight gradients: %zu entries bit for bit as the cpu engine's\n", wrcnt);
    assert_int_equal(wrcnt, 3 * CK_RND_DRAWS * (16 + 32 + 64 + 10));
    print_message("weight-gradient sampled elements: %zu entries bit for bit as the cpu engine's, %zu re-done\n", wcnt,
                  wkept);
    assert_int_equal(wcnt, 3 * (16 + 32 + 64 + 10)); /* a filter or row each, 3 steps */
    assert_true(wkept * 2 > wcnt); /* a row whose dy is 0 in the whole batch keeps nothing (its dW must be 0) */
    /* per draw: conv1 (16 forward), conv2 (32, 16), fc1 (1, 1), fc2 (1, 1) a sample, 3 steps; the forward at eval */
    assert_int_equal(rcnt, CK_RND_DRAWS * (3 * N * (16 + 48 + 4) + N * (16 + 32 + 2)));
    print_message("dense output elements: %zu entries bit for bit as the cpu engine's, %zu with a re-done element\n",
                  cnt, kept);
    print_message("conv planes' sampled elements: %zu entries bit for bit as the cpu engine's, %zu with a re-done "
                  "element\n", pcnt, pkept);
    assert_int_equal(cnt, 3 * 4 * N + 2 * N); /* fc1, fc2: forward and backward-data, 3 steps; 2 forward at eval */
    assert_true(kept * 10 > cnt * 9);
    /* conv1 (16 planes, forward only), conv2 (32 forward, 16 backward-data), 3 steps; forward at eval */
    assert_int_equal(pcnt, 3 * N * (16 + 32 + 16) + N * (16 + 32));
    assert_true(pkept * 10 > pcnt * 9);
    peek_tensors_free(&t, &m);
    engine_free(e);
    free(p), free(x), free(v);
}

/* dy's identical windows (backward-data, taps reversed): the models'
 * gradients have none (a ReLU'd background routes no gradient: blank, not
 * a group), so a cpu engine's conv2 dy is given flat regions (set_tensor):
 * in even samples the bottom 8 rows of each channel that channel's
 * constant, in samples 4k + 1 every plane its channel's constant; its
 * backward-data relations' S (and their companions') are then the
 * kernels' loops' bit for bit, the term moving most of them. */
static void grp_bwd_model(const char *name, size_t rels) {
    enum { N = 8 };
    model m;
    assert_int_equal(model_build(&m, name), 0);
    engine_opts o = {.seed = 5, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cpu:threads=1", &m, &o), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *p = malloc(m.n_params * 4), *x = malloc(N * in * 4);
    int32_t y[N];
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *v = calloc(L.total, sizeof *v);
    assert_true(p && x && v);
    model_init_params(&m, p, 5);
    assert_int_equal(engine_set_params(e, p), 0);
    blank_batch(x, y, N, in, 1);
    assert_int_equal(engine_set_batch(e, x, y, N, 1), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, NULL), 0);
    assert_int_equal(engine_backward(e), 0);
    int l2 = -1;
    for (int l = 1; l < m.n_layers; l++)
        if (m.layers[l].kind == LAYER_CONV) l2 = l;
    assert_true(l2 > 0);
    const layer *c2 = &m.layers[l2];
    peek_tensors t;
    peek_tensors_get(&t, e, &m, N, x, 1);
    size_t P = (size_t)c2->out_h * c2->out_w, OC = (size_t)c2->out_c;
    for (size_t i = 0; i < N; i++)
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t q = 0; q < P; q++) {
                float *dy = &t.dact[l2][(i * OC + oc) * P + q];
                if (i % 2 == 0 && q / (size_t)c2->out_w >= (size_t)c2->out_h - 8) *dy = 1e-3f * (float)(oc + 1);
                if (i % 4 == 1) *dy = -2e-3f * (float)(oc % 5 + 1);
            }
    assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_DACT, l2}, t.dact[l2]), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    size_t with[2] = {0, 0}, grp = 0, cnt = expect_grp(&m, v, N, &t, with, &grp);
    print_message("%s, conv2 dy given flat regions: %zu relations' S bit for bit as the cpu engine's (%zu exact "
                  "groups; %zu forward and %zu backward-data relations whose S the term moves)\n", name, cnt, grp,
                  with[0], with[1]);
    assert_int_equal(cnt, N * rels);
    assert_true(with[1] * 2 > N * (size_t)c2->in_c); /* most of conv2's backward-data relations */
    peek_tensors_free(&t, &m);
    engine_free(e);
    free(p), free(x), free(v);
}

/* smallcnn (k 3, pad 1: dy's reversed windows start where x's do) and
 * mnist-convnet (pad 0: they start k - 1 before) */
static void test_grp_bwd_host(void **st) {
    (void)st;
    grp_bwd_model("smallcnn", 16 + 32 + 16);
    grp_bwd_model("mnist-convnet", 32 + 64 + 32);
}

/* The judge reads every block of a cuda engine's vector as a cpu
 * engine's (CK_BLOCKS_LIVE): faults that only the ported blocks see, each
 * entry re-done by the host loop as the device would, are named there,
 * and a judge at the cuda engine's old level (CK_BLOCKS_Z) does not see
 * them. */
static void test_dpeek_judged(void **st) {
    (void)st;
    enum { N = 16 };
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine_opts o = {.seed = 42, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cpu:threads=1", &m, &o), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *p = malloc(m.n_params * 4), *x = malloc(N * in * 4);
    int32_t y[N];
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *v = calloc(L.total, sizeof *v);
    assert_true(p && x && v);
    model_init_params(&m, p, 42);
    assert_int_equal(engine_set_params(e, p), 0);
    blank_batch(x, y, N, in, 1);
    assert_int_equal(engine_set_batch(e, x, y, N, 1), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, NULL), 0);
    assert_int_equal(engine_backward(e), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    ck_verdict cv;
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    if (cv.n_viol) fail_msg("clean cuda-shaped vector: %s", cv.v[0].what);
    /* fc1's output: sample 3's second-largest output moved by 6 times its own bound (gamma_K A, K = in + 1) */
    int l = -1;
    for (int k = 0; k < m.n_layers; k++)
        if (m.layers[k].kind == LAYER_DENSE && l < 0) l = k;
    const layer *ly = &m.layers[l];
    peek_tensors t;
    peek_tensors_get(&t, e, &m, N, x, 1);
    size_t out = (size_t)ly->out_c, fin = (size_t)ly->in_c, i = 3, big = 0, second = 1;
    float *yo = t.act[l] + i * out;
    for (size_t j = 0; j < out; j++) big = yo[j] > yo[big] ? j : big;
    second = big ? 0 : 1;
    for (size_t j = 0; j < out; j++) second = j != big && yo[j] > yo[second] ? j : second;
    const float *w = t.p + m.tensors[ly->w_tensor].offset, *b = t.p + m.tensors[ly->b_tensor].offset;
    double R, A;
    (void)ck_dense_elem_redo(w, t.act[l - 1] + i * fin, fin, fin, second, 0, &R, &A);
    A += fabs((double)b[second]);
    double K = (double)fin + 1, gam = K * U32 / (1 - K * U32);
    yo[second] = (float)((double)yo[second] + 6 * gam * A);
    ck_dense_opeek_sample(v + L.off[l][CK_FWD_DPEEK] + CK_REL * i, w, b, t.act[l - 1], t.act[l], fin, out, i, 0);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    assert_true(cv.n_viol >= 1);
    assert_int_equal(cv.v[0].layer, l);
    assert_non_null(strstr(cv.v[0].what, "every output"));
    print_message("fc1 output 6x its bound off: %s (ratio %.3g)\n", cv.v[0].what, cv.v[0].ratio);
    /* at the cuda engine's old level (CK_BLOCKS_Z: its vectors before these kernels) the same vector passes:
     * the sums do not see it */
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_Z, &cv), 0);
    assert_int_equal(cv.n_viol, 0);
    /* conv2's output: sample 2, channel 5, its largest element 20 times its own bound up, re-done by the
     * host loop as the device would: FWD_PEEK names it */
    int lc = -1;
    for (int k = 0; k < m.n_layers; k++)
        if (m.layers[k].kind == LAYER_CONV) lc = k; /* the last conv layer */
    const layer *cy = &m.layers[lc];
    ck_conv_dims d = {cy->in_c, cy->in_h, cy->in_w, cy->out_c, cy->out_h, cy->out_w, cy->k, cy->pad};
    size_t P = (size_t)d.oh * d.ow, u = 2 * (size_t)d.oc + 5, HW = (size_t)d.h * d.w, drawn[CK_OPEEK_RANDOM];
    const float *cw = t.p + m.tensors[cy->w_tensor].offset, *cb = t.p + m.tensors[cy->b_tensor].offset;
    const float *src = t.act[lc - 1] + 2 * (size_t)d.c * HW;
    float *yp = t.act[lc] + u * P;
    size_t am = ck_plane_argmax(yp, P, 0);
    (void)ck_conv_elem_redo(src, cw, &d, 0, 5, (int)(am / (size_t)d.ow), (int)(am % (size_t)d.ow), &R, &A);
    A += fabs((double)cb[5]);
    K = (double)d.c * d.k * d.k + 1, gam = K * U32 / (1 - K * U32);
    yp[am] = (float)((double)yp[am] + 20 * gam * A);
    uint64_t dig = ck_get_u64(v + L.input_off);
    for (int k = 0; k < CK_OPEEK_RANDOM; k++) drawn[k] = ck_plane_draw_one(dig, 1, CK_STAGE_STEP, lc, u, 0, k, P);
    ck_conv_plane_peek(v + L.off[lc][CK_FWD_PEEK] + CK_REL * u, yp, src, cw, cb, &d, 0, 5, drawn);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    int named = 0;
    for (int k = 0; k < cv.n_viol; k++)
        named |= cv.v[k].layer == lc && strstr(cv.v[k].what, "first, last, largest and sampled outputs") != NULL;
    if (!named) fail_msg("%s largest output 20x its bound up: not named by FWD_PEEK", cy->name);
    print_message("%s largest output 20x its bound up: named by FWD_PEEK among %d violation(s)\n", cy->name, cv.n_viol);
    /* conv1's output: (+e, +e, -e, -e) along row 10 of plane (1, 3), e 1% of the plane's largest |y|, which
     * keeps every fixed-weight relation exactly; FWD_RND re-done by the host loop (as the device would) over
     * the moved tensor names it (every other block left as computed) */
    int l1 = -1;
    for (int k = 0; k < m.n_layers && l1 < 0; k++)
        if (m.layers[k].kind == LAYER_CONV) l1 = k;
    const layer *c1 = &m.layers[l1];
    size_t P1 = (size_t)c1->out_h * c1->out_w, u1 = 1 * (size_t)c1->out_c + 3;
    float *y1 = t.act[l1] + u1 * P1;
    double e1 = 0.01 * ck_rnd_max_abs(y1, P1);
    static const double pat[4] = {1, 1, -1, -1};
    for (int k = 0; k < 4; k++) y1[10 * (size_t)c1->out_w + 10 + (size_t)k] += (float)(pat[k] * e1);
    double *v2 = malloc(L.total * sizeof *v2);
    memcpy(v2, v, L.total * sizeof *v2);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v2, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    int before = cv.n_viol;
    /* expect_rnd fails on the first entry the moved plane changes: compute the plane's entries instead */
    {
        ck_conv_dims d1 = {c1->in_c, c1->in_h, c1->in_w, c1->out_c, c1->out_h, c1->out_w, c1->k, c1->pad};
        size_t kk = (size_t)d1.k * d1.k;
        const float *w1 = t.p + m.tensors[c1->w_tensor].offset, *b1 = t.p + m.tensors[c1->b_tensor].offset;
        for (int dr = 0; dr < CK_RND_DRAWS; dr++) {
            double *W = rnd_weights_of(dig, 1, CK_STAGE_STEP, l1, dr, (size_t)d1.oh, (size_t)d1.ow, (size_t)d1.h,
                                       (size_t)d1.w);
            double g[64 * 9];
            assert_true((size_t)d1.c * kk <= 64 * 9);
            for (size_t sp = 0; sp < (size_t)d1.c * kk; sp++)
                g[sp] = ck_rnd_win(x + (1 * (size_t)d1.c + sp / kk) * (size_t)d1.h * d1.w, d1.h, d1.w, d1.k, d1.pad, -1,
                                   W, d1.oh, W + 2 * (size_t)d1.oh, d1.ow, (int)(sp % kk / (size_t)d1.k),
                                   (int)(sp % (size_t)d1.k));
            double rhs = ck_rnd_total(W, (size_t)d1.oh) * ck_rnd_total(W + 2 * (size_t)d1.oh, (size_t)d1.ow) * (double)b1[3];
            rhs = ck_rnd_rhs_acc(rhs, w1, g, (size_t)d1.c, (size_t)d1.c, kk, 3, 0);
            double ys = ck_rnd_plane(y1, d1.oh, d1.ow, W, W + 2 * (size_t)d1.oh);
            v2[L.off[l1][CK_FWD_RND] + CK_REL * (u1 * CK_RND_DRAWS + (size_t)dr)] = ys - rhs;
            free(W);
        }
    }
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v2, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    int rnd_named = 0;
    for (int k = 0; k < cv.n_viol; k++)
        rnd_named |= cv.v[k].layer == l1 && strstr(cv.v[k].what, "random-weighted") != NULL;
    if (!rnd_named) fail_msg("%s (+e, +e, -e, -e) along a row: not named by FWD_RND", c1->name);
    print_message("%s (+e, +e, -e, -e) along a row: named by FWD_RND (violations %d, %d before)\n", c1->name, cv.n_viol,
                  before);
    /* fc1's dW: in each row an element that is not its first, last or largest (the first from the middle
     * with a nonzero term) 8 times its own bound (gamma_n A, n the batch) up, re-done by the host loop as the
     * device would (every element, since zoo attack 15: the five of before re-did it only by a draw's luck):
     * BWD_W_PEEK names it */
    {
        size_t fo = (size_t)ly->out_c, fi = (size_t)ly->in_c, moved = 0;
        float *gw = t.g + m.tensors[ly->w_tensor].offset;
        double gn = (double)N * U32 / (1 - (double)N * U32);
        for (size_t j = 0; j < fo; j++) {
            size_t te[CK_PEEK];
            ck_peek_elems_at(te, gw + j * fi, fi, dig, 1, CK_STAGE_STEP, l, j);
            for (size_t c = fi / 2; c + 1 < fi; c++) {
                double R2, A2;
                (void)ck_dense_redo(t.dact[l], t.act[l - 1], N, fi, fo, j, c, &R2, &A2);
                if (!(A2 > 0) || c == te[CK_PEEK - 1]) continue;
                gw[j * fi + c] = (float)((double)gw[j * fi + c] + 8 * gn * A2);
                moved++;
                break;
            }
            ck_dense_wpeek_all_row(v2 + L.off[l][CK_BWD_W_PEEK] + CK_REL * j, gw, t.dact[l], t.act[l - 1], N, fi, fo,
                                   j);
        }
        assert_true(moved > 0);
        ck_verdict_init(&cv);
        assert_int_equal(checksums_judge(&m, v2, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
        int wnamed = 0;
        for (int k = 0; k < cv.n_viol; k++)
            wnamed |= cv.v[k].layer == l && strstr(cv.v[k].what, "re-done elements of each row") != NULL;
        if (!wnamed) fail_msg("%s dW 8x its bound: not named by BWD_W_PEEK", ly->name);
        print_message("%s dW, an interior element of %zu rows 8x its bound up: named by BWD_W_PEEK\n", ly->name,
                      moved);
    }
    free(v2);
    peek_tensors_free(&t, &m);
    /* FWD_BLANK's two parts with a cpu engine's own vector after its conv1 output is moved (set_tensor):
     * sample 1's output (2, 2) of channel 3, whose window is blank, and sample 2's output (22, 10) of
     * channel 0, whose window is one of the flat background's identical windows; the host loop over the
     * moved tensors gives the cpu engine's entries bit for bit, and the judge names both */
    {
        peek_tensors tb;
        peek_tensors_get(&tb, e, &m, N, x, 1);
        double *vc = malloc(L.total * sizeof *vc); /* the clean vector: judged with the moved FWD_BLANK alone */
        assert_int_equal(engine_checksums(e, CK_STAGE_STEP, vc), 0);
        const layer *c1 = &m.layers[0];
        size_t P1 = (size_t)c1->out_h * c1->out_w, OC1 = (size_t)c1->out_c;
        tb.act[0][(1 * OC1 + 3) * P1 + 2 * (size_t)c1->out_w + 2] += 0.5f;
        tb.act[0][(2 * OC1 + 0) * P1 + 22 * (size_t)c1->out_w + 10] *= 1.001f;
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, 0}, tb.act[0]), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
        double bpos = 0;
        size_t bgrp = 0, bcnt = expect_blank(&m, v, N, &tb, &bpos, &bgrp);
        const double *e1 = v + L.off[0][CK_FWD_BLANK] + CK_REL * 1, *e2 = v + L.off[0][CK_FWD_BLANK] + CK_REL * 2;
        print_message("conv1 moved: sample 1 %.0f blank output(s) off its bias (by %.3g), sample 2's identical "
                      "windows %.3g of gamma_K apart (%zu entries bit for bit as the cpu engine's)\n", e1[0], e1[1],
                      e2[3] / (10 * U32 / (1 - 10 * U32)), bcnt);
        assert_true(e1[0] == 1 && e1[1] > 0.4 && e2[3] > 0 && bgrp == 1);
        memcpy(vc + L.off[0][CK_FWD_BLANK], v + L.off[0][CK_FWD_BLANK], CK_REL * L.cnt[0][CK_FWD_BLANK] * sizeof *vc);
        ck_verdict_init(&cv);
        assert_int_equal(checksums_judge(&m, vc, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
        free(vc);
        int nb = 0, ng = 0;
        for (int k = 0; k < cv.n_viol; k++)
            nb |= cv.v[k].layer == 0 && strstr(cv.v[k].what, "all-zero windows are not exactly its bias") != NULL,
                ng |= cv.v[k].layer == 0 && strstr(cv.v[k].what, "identical windows") != NULL;
        for (int k = 0; !(nb && ng) && k < cv.n_viol; k++) print_message("  %s (%g)\n", cv.v[k].what, cv.v[k].ratio);
        if (!nb || !ng) fail_msg("conv1's blank and identical windows: named %d, %d", nb, ng);
        peek_tensors_free(&tb, &m);
    }
    engine_free(e);
    free(p), free(x), free(v);
}

/* The same comparisons on mnist-convnet (convolutions without padding,
 * dropout between the dense layers, 32 and 64 channels), two training
 * steps and an evaluation batch: every ported block bit for bit as the
 * cpu engine's. */
static void test_blocks_mnist_convnet(void **st) {
    (void)st;
    enum { N = 8 };
    model m;
    assert_int_equal(model_build(&m, "mnist-convnet"), 0);
    engine_opts o = {.seed = 7, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cpu:threads=1", &m, &o), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w, cnt = 0, kept = 0;
    float *p = malloc(m.n_params * 4), *x = malloc(N * in * 4);
    int32_t y[N];
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *v = calloc(L.total, sizeof *v), bpos = 0;
    assert_true(p && x && v);
    model_init_params(&m, p, 7);
    assert_int_equal(engine_set_params(e, p), 0);
    adam_cfg a = adam_default();
    size_t bgrp = 0, gwith[2] = {0, 0}, ggrp = 0;
    for (uint32_t step = 1; step <= 3; step++) {
        blank_batch(x, y, N, in, step);
        assert_int_equal(engine_set_batch(e, x, y, N, step), 0);
        int train = step < 3;
        assert_int_equal(engine_forward(e, train), 0);
        if (train) {
            assert_int_equal(engine_loss(e, NULL), 0);
            assert_int_equal(engine_backward(e), 0);
        }
        assert_int_equal(engine_checksums(e, train ? CK_STAGE_STEP : CK_STAGE_EVAL, v), 0);
        peek_tensors t;
        peek_tensors_get(&t, e, &m, N, x, train);
        cnt += expect_dpeek(&m, v, N, &t, 128, &kept) + expect_peek(&m, v, N, &t, &kept) + expect_rnd(&m, v, N, &t) +
               expect_blank(&m, v, N, &t, &bpos, &bgrp) + expect_wpeek(&m, v, N, &t, &kept) + expect_wrnd(&m, v, N, &t) +
               expect_grp(&m, v, N, &t, gwith, &ggrp);
        peek_tensors_free(&t, &m);
        if (train) {
            assert_int_equal(engine_update(e, &a, step), 0);
            assert_int_equal(engine_checksums(e, CK_STAGE_UPDATE, v), 0);
        }
    }
    print_message("mnist-convnet: %zu entries of the ported blocks bit for bit as the cpu engine's (%.0f blank "
                  "positions; identical windows' term: %zu exact groups, %zu relations whose S it moves)\n", cnt, bpos,
                  ggrp, gwith[0] + gwith[1]);
    assert_true(cnt > 1000 && bpos > 0 && ggrp > 0 && gwith[0] > 0);
    engine_free(e);
    free(p), free(x), free(v);
}

/* ADAMW: a cpu engine's update, then three p and one m element moved by
 * a few ulps (set_tensor): its UPDATE vector's ADAM counts and ADAMW
 * entries are the host loop's (the body k_ck_adam and k_ck_adam_far run)
 * bit for bit, and the judge bounds the furthest element.  Step 3: the
 * update redone FMA-contracted (a named legal order, base/adam_orders.h):
 * ADAMW's first doubles carry the mask of named orders packed with the
 * index, as the host loop's, and the judge says ok. */
static void test_adamw_host(void **st) {
    (void)st;
    enum { N = 16 };
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine_opts o = {.seed = 42, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cpu:threads=1", &m, &o), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w, np = m.n_params;
    float *x = malloc(N * in * 4), *st7 = malloc(7 * np * 4);
    float *p0 = st7, *m0 = p0 + np, *v0 = m0 + np, *g = v0 + np, *p = g + np, *mo = p + np, *v = mo + np;
    int32_t y[N];
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *vec = calloc(L.total, sizeof *vec);
    assert_true(x && st7 && vec);
    model_init_params(&m, p0, 42);
    assert_int_equal(engine_set_params(e, p0), 0);
    adam_cfg a = adam_default();
    for (uint32_t step = 1; step <= 3; step++) {
        blank_batch(x, y, N, in, step);
        assert_int_equal(engine_set_batch(e, x, y, N, step), 0);
        assert_int_equal(engine_forward(e, 1), 0);
        assert_int_equal(engine_loss(e, NULL), 0);
        assert_int_equal(engine_backward(e), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_STEP, vec), 0);
        static const tensor_kind kinds[4] = {TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V, TENSOR_GRADS};
        for (int k = 0; k < 4; k++) assert_int_equal(engine_get_tensor(e, (tensor_id){kinds[k], 0}, st7 + k * np), 0);
        assert_int_equal(engine_update(e, &a, step), 0);
        for (int k = 0; k < 3; k++) assert_int_equal(engine_get_tensor(e, (tensor_id){kinds[k], 0}, p + k * np), 0);
        if (step == 2) { /* p: 3 elements of two tensors, m: one */
            size_t at[3] = {5, np / 2, np - 3};
            for (int k = 0; k < 3; k++) p[at[k]] = nextafterf(nextafterf(p[at[k]], INFINITY), INFINITY);
            mo[7] = nextafterf(mo[7], -INFINITY);
            assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, p), 0);
            assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, mo), 0);
        }
        if (step == 3) { /* every element FMA-contracted */
            const adam_scalars *s = &e->last_adam;
            for (size_t i = 0; i < np; i++) {
                mo[i] = fmaf(s->beta1, m0[i], s->one_minus_beta1 * g[i]);
                v[i] = fmaf(s->beta2, v0[i], s->one_minus_beta2 * (g[i] * g[i]));
                p[i] = fmaf(-s->step_size, mo[i] / (sqrtf(v[i]) / s->bc2_sqrt + s->eps), p0[i]);
            }
            for (int k = 0; k < 3; k++) assert_int_equal(engine_set_tensor(e, (tensor_id){kinds[k], 0}, p + k * np), 0);
        }
        assert_int_equal(engine_checksums(e, CK_STAGE_UPDATE, vec), 0);
        size_t bad = expect_adamw(&m, vec, N, &e->last_adam, p0, m0, v0, g, p, mo, v);
        if (step == 3) {
            unsigned mk = 0, all = ADAM_ORDER_ALL;
            for (int t = 0; t < m.n_tensors; t++)
                if (vec[L.adam_off + 2 * (size_t)t] > 0) {
                    adam_orders_unpack(vec[L.adamw_off + CK_ADAMW_HDR + CK_ADAMW_PER * (size_t)t], &mk);
                    all &= mk;
                }
            print_message("Adam FMA-contracted: %zu elements differ, the named orders every tensor agrees on %#x\n", bad,
                          all);
            assert_true(bad > 0);
            assert_true(all >> ADAM_ORDER_FMA & 1u);
        } else assert_int_equal(bad, step == 2 ? 4 : 0);
        ck_verdict cv;
        ck_verdict_init(&cv);
        assert_int_equal(checksums_judge(&m, vec, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
        if (step == 2) {
            assert_true(cv.n_viol + cv.n_sus >= 1);
            print_message("Adam, 4 elements moved by 1-2 ulps: ADAM and ADAMW as the host loop's bit for bit; %s\n",
                          cv.n_viol ? cv.v[0].what : cv.sus.what);
        } else assert_int_equal(cv.n_viol + cv.n_sus, 0);
        if (step == 3) assert_true(cv.n_legal >= 1);
    }
    engine_free(e);
    free(x), free(st7), free(vec);
}

#if LS_HAVE_CUDA
/* ---- device: element-wise kernels bitwise equal to the C code ---------- */

#define DEV(call)                                                                   \
    do {                                                                            \
        int e_ = (int)(call);                                                       \
        if (e_) fail_msg("%s:%d: %s: %s", __FILE__, __LINE__, #call,                \
                         cudaGetErrorString((cudaError_t)e_));                      \
    } while (0)

static float *dput(const void *h, size_t bytes) {
    void *d = NULL;
    DEV(cudaMalloc(&d, bytes ? bytes : 4));
    if (bytes && h) DEV(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); /* h NULL: allocate only */
    return d;
}

static void dget(void *h, const void *d, size_t bytes) {
    DEV(cudaDeviceSynchronize());
    DEV(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}

static void fill(float *x, size_t n, uint32_t tag, float lo, float hi) {
    for (size_t i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * rng_uniform(7, (uint32_t)i, tag, 0, RNG_STREAM_PERTURB);
}

static void expect_bitwise(const char *what, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t ua, ub;
        memcpy(&ua, &a[i], 4);
        memcpy(&ub, &b[i], 4);
        if (ua != ub) fail_msg("%s[%zu]: device %.9g (0x%08x) vs C %.9g (0x%08x)", what, i, (double)a[i], ua,
                               (double)b[i], ub);
    }
}

/* For engine against engine: equal values, +0 and -0 counted equal (a
 * library may produce -0 where we produce +0, e.g. ReLU as x * 0). */
static void expect_same_values(const char *what, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(a[i] == b[i]) && !(isnan(a[i]) && isnan(b[i])))
            fail_msg("%s[%zu]: cuda %.9g vs cpu %.9g", what, i, (double)a[i], (double)b[i]);
}

static void test_dev_elementwise(void **st) {
    const char *why = no_device();
    if (why) { print_message("skipped: %s\n", why); skip(); }
    const size_t N = 100003; /* not a multiple of the block size */
    float *x = malloc(N * 4), *dy = malloc(N * 4), *want = malloc(N * 4), *got = malloc(N * 4);
    fill(x, N, 1, -2.0f, 2.0f);
    fill(dy, N, 2, -1.0f, 1.0f);
    x[0] = 0.0f; x[1] = -0.0f;
    float *dx_ = dput(x, N * 4), *ddy = dput(dy, N * 4), *dout = dput(NULL, N * 4);

    /* ReLU: a selection, exact on both sides */
    DEV(lk_relu_fwd(0, dout, dx_, N));
    dget(got, dout, N * 4);
    for (size_t i = 0; i < N; i++) want[i] = x[i] > 0.0f ? x[i] : 0.0f;
    expect_bitwise("relu_fwd", got, want, N);
    DEV(lk_relu_bwd(0, dout, ddy, dx_, N));
    dget(got, dout, N * 4);
    for (size_t i = 0; i < N; i++) want[i] = x[i] > 0.0f ? dy[i] : 0.0f;
    expect_bitwise("relu_bwd", got, want, N);

    /* dropout: the same Philox mask and one product */
    float p = 0.3f, scale = (float)(1.0 / (1.0 - (double)p));
    DEV(lk_dropout_fwd(0, dout, dx_, N, 42, 17, 5, p, scale));
    dget(got, dout, N * 4);
    for (size_t i = 0; i < N; i++) want[i] = ops_dropout_fwd(x[i], 42, 17, 5, (uint32_t)i, p, scale);
    expect_bitwise("dropout_fwd", got, want, N);
    DEV(lk_dropout_bwd(0, dout, ddy, N, 42, 17, 5, p, scale));
    dget(got, dout, N * 4);
    for (size_t i = 0; i < N; i++) want[i] = ops_dropout_bwd(dy[i], 42, 17, 5, (uint32_t)i, p, scale);
    expect_bitwise("dropout_bwd", got, want, N);

    /* bias add: one addition per element; (n, c, hw) = (7, 13, N/91) */
    size_t bn = 7, bc = 13, bhw = N / 91, bcount = bn * bc * bhw;
    float b[13];
    fill(b, 13, 3, -0.5f, 0.5f);
    float *db = dput(b, sizeof b);
    DEV(cudaMemcpy(dout, x, bcount * 4, cudaMemcpyHostToDevice));
    DEV(lk_bias_add(0, dout, db, bn, bc, bhw));
    dget(got, dout, bcount * 4);
    for (size_t i = 0; i < bcount; i++) want[i] = x[i] + b[(i / bhw) % bc];
    expect_bitwise("bias_add", got, want, bcount);

    /* bias gradient: a float sum of n*hw terms in a fixed order.  Any order
     * of summing K terms errs by at most (K-1) u sum|t| (Higham 4.2); ours
     * is <= ceil(K/256) sequential adds then 8 tree levels, well inside. */
    DEV(lk_bias_grad(0, db, ddy, bn, bc, bhw));
    float gb[13], gb2[13];
    dget(gb, db, sizeof gb);
    for (size_t c = 0; c < bc; c++) {
        double s = 0.0, sa = 0.0;
        for (size_t i = 0; i < bn; i++)
            for (size_t j = 0; j < bhw; j++) {
                s += dy[(i * bc + c) * bhw + j];
                sa += fabs(dy[(i * bc + c) * bhw + j]);
            }
        double K = (double)(bn * bhw);
        if (fabs(gb[c] - s) > (K - 1) * U32 * sa) fail_msg("bias_grad[%zu] %.9g vs %.12g", c, (double)gb[c], s);
    }
    /* and the same bits on a second run: no atomics */
    DEV(lk_bias_grad(0, db, ddy, bn, bc, bhw));
    dget(gb2, db, sizeof gb2);
    expect_bitwise("bias_grad rerun", gb2, gb, bc);

    /* Adam: the same 15 IEEE operations in the same order */
    float *pm = malloc(N * 4), *mm = malloc(N * 4), *vm = malloc(N * 4);
    fill(pm, N, 4, -1.0f, 1.0f);
    fill(mm, N, 5, -0.01f, 0.01f);
    fill(vm, N, 6, 0.0f, 1e-4f);
    float *dp = dput(pm, N * 4), *dm = dput(mm, N * 4), *dv = dput(vm, N * 4);
    adam_cfg cfg = adam_default();
    adam_scalars a = adam_make_scalars(&cfg, 3);
    DEV(lk_adam(0, dp, dm, dv, ddy, N, a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2, a.step_size,
                a.bc2_sqrt, a.eps));
    for (size_t i = 0; i < N; i++)
        ops_adam_elem(&pm[i], &mm[i], &vm[i], dy[i], a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2,
                      a.step_size, a.bc2_sqrt, a.eps);
    dget(got, dp, N * 4);
    expect_bitwise("adam p", got, pm, N);
    dget(got, dm, N * 4);
    expect_bitwise("adam m", got, mm, N);
    dget(got, dv, N * 4);
    expect_bitwise("adam v", got, vm, N);

    /* softmax cross-entropy, portable exp/log: bitwise; vendor: CUDA's expf
     * is within 2 ulp and logf within 1 ulp (CUDA C Programming Guide,
     * maths functions), glibc's within 1: the probabilities then differ by
     * a few ulps, the loss by a few ulps of its size. */
    const size_t rows = 1000;
    const int C = 10;
    int32_t lab[1000];
    for (size_t i = 0; i < rows; i++) lab[i] = (int32_t)(rng_u32(7, (uint32_t)i, 9, 0, RNG_STREAM_PERTURB) % C);
    int32_t *dlab = (int32_t *)dput(lab, sizeof lab);
    float *drl = dput(NULL, rows * 4), *dloss = dput(NULL, 4);
    float *rl = malloc(rows * 4), *dz = malloc(rows * C * 4);
    for (int portable = 1; portable >= 0; portable--) {
        float inv_n = 1.0f / (float)rows;
        DEV(lk_softmax_xent(0, dout, drl, ddy, dlab, rows, C, inv_n, portable));
        DEV(lk_loss_mean(0, dloss, drl, rows));
        double acc = 0.0;
        for (size_t i = 0; i < rows; i++) {
            rl[i] = ops_softmax_xent_row(dy + i * C, C, lab[i], inv_n, portable, dz + i * C);
            acc += (double)rl[i];
        }
        float loss = (float)(acc / (double)rows), gloss;
        dget(got, dout, rows * C * 4);
        dget(&gloss, dloss, 4);
        if (portable) {
            expect_bitwise("softmax dz (portable)", got, dz, rows * C);
            assert_true(gloss == loss);
        } else {
            /* dz = (e_j / s - [j==y]) / n: 2 ulp from exp, ~2 from the sum and
             * division; 8 ulps of the row's largest |dz| covers it */
            for (size_t i = 0; i < rows * C; i++) {
                double tol = 8 * U32 * (1.0 * inv_n);
                if (fabs(got[i] - dz[i]) > tol) fail_msg("softmax dz[%zu] %.9g vs %.9g", i, (double)got[i], (double)dz[i]);
            }
            /* loss values ~2.3; each row's log differs by <= a few ulps */
            assert_true(fabs(gloss - loss) <= 8 * U32 * fabs(loss));
        }
    }

    /* portable exp/log on their own, bitwise: exp over [-100, 89] (both
     * ends of the range, underflow and overflow included), log over
     * positives 2^-126..2^127 */
    float *ex = malloc(N * 4), *lg = malloc(N * 4);
    float *dlg = dput(NULL, N * 4);
    fill(x, N, 10, -100.0f, 89.0f);
    DEV(cudaMemcpy(dx_, x, N * 4, cudaMemcpyHostToDevice));
    DEV(lk_test_expf_logf(0, dout, dlg, dx_, N, 1));
    dget(ex, dout, N * 4);
    for (size_t i = 0; i < N; i++) want[i] = ops_portable_expf(x[i]);
    expect_bitwise("portable expf", ex, want, N);
    fill(x, N, 13, 1.0f, 2.0f);
    for (size_t i = 0; i < N; i++) x[i] = ldexpf(x[i], (int)(i % 253) - 126);
    DEV(cudaMemcpy(dx_, x, N * 4, cudaMemcpyHostToDevice));
    DEV(lk_test_expf_logf(0, dout, dlg, dx_, N, 1));
    dget(lg, dlg, N * 4);
    for (size_t i = 0; i < N; i++) want[i] = ops_portable_logf(x[i]);
    expect_bitwise("portable logf", lg, want, N);

    cudaFree(dx_); cudaFree(ddy); cudaFree(dout); cudaFree(db); cudaFree(dp); cudaFree(dm); cudaFree(dv);
    cudaFree(dlab); cudaFree(drl); cudaFree(dloss); cudaFree(dlg);
    free(x); free(dy); free(want); free(got); free(pm); free(mm); free(vm); free(rl); free(dz); free(ex); free(lg);
}

/* ---- device: SmallCNN layer by layer against the cpu engine ------------- */

static float maxabs(const float *x, size_t n) {
    float m = 0.0f;
    for (size_t i = 0; i < n; i++) m = fabsf(x[i]) > m ? fabsf(x[i]) : m;
    return m;
}

static void expect_close(const char *what, const float *a, const float *b, size_t n, double tol) {
    double worst = 0.0;
    size_t wi = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= worst)) { worst = d; wi = i; }
    }
    if (!(worst <= tol))
        fail_msg("%s: |cuda - cpu| = %.3g at %zu (%.9g vs %.9g) > bound %.3g", what, worst, wi, (double)a[wi],
                 (double)b[wi], tol);
}

/* Per output, the largest sum_j |w_ij| over the rows of a weight matrix
 * viewed as (rows, cols) with the given strides: conv forward sums over
 * (ic, r, s) per oc; backward-data over (oc, r, s) per ic. */
static double max_row_abs(const float *w, int rows, int cols, int inner, int by_out) {
    /* w is (rows_o, cols_i, inner) = OIHW with inner = k*k (dense: 1) */
    double best = 0.0;
    int outer = by_out ? rows : cols;
    for (int o = 0; o < outer; o++) {
        double s = 0.0;
        int other = by_out ? cols : rows;
        for (int i = 0; i < other; i++)
            for (int k = 0; k < inner; k++) {
                size_t idx = by_out ? ((size_t)o * cols + i) * inner + k : ((size_t)i * cols + o) * inner + k;
                s += fabs(w[idx]);
            }
        best = s > best ? s : best;
    }
    return best;
}

static void test_dev_vs_cpu(void **st) {
    const char *why = no_device();
    if (why) { print_message("skipped: %s\n", why); skip(); }
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    const size_t n = 16;
    engine_opts eo = {42, n, 0};
    engine *cpu = NULL, *gpu = NULL;
    if (engine_create(&cpu, "cpu:threads=1:math=portable", &m, &eo)) fail_msg("cpu: %s", ls_errmsg());
    if (engine_create(&gpu, "cuda:math=fma:algo=det:expm=portable", &m, &eo)) fail_msg("cuda: %s", ls_errmsg());
    float *params = malloc(m.n_params * 4);
    model_init_params(&m, params, 42);
    assert_int_equal(engine_set_params(cpu, params), 0);
    assert_int_equal(engine_set_params(gpu, params), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w, big = n * in;
    for (int l = 0; l < m.n_layers; l++)
        if (n * layer_out_size(&m.layers[l]) > big) big = n * layer_out_size(&m.layers[l]);
    float *x = malloc(n * in * 4), *a = malloc(big * 4), *b = malloc(big * 4), *prev = malloc(big * 4);
    int32_t y[16];
    fill(x, n * in, 11, 0.0f, 1.0f);
    for (size_t i = 0; i < n; i++) y[i] = (int32_t)(i % 10);
    assert_int_equal(engine_set_batch(cpu, x, y, n, 1), 0);
    assert_int_equal(engine_set_batch(gpu, x, y, n, 1), 0);

    /* forward, each cuda layer fed the cpu's input.  For a dot product of
     * length K plus a bias, any fp32 evaluation order errs from the exact
     * value by at most gamma_{K+1} (sum|w||x| + |b|), gamma_k = k u / (1 - k u)
     * (Higham 3.1); two engines differ by at most twice that.  sum|w||x| <=
     * max|x| * max over outputs of sum|w|. */
    memcpy(prev, x, n * in * 4);
    for (int l = 0; l < m.n_layers; l++) {
        const layer *ly = &m.layers[l];
        size_t cnt = n * layer_out_size(ly), icnt = n * layer_in_size(ly);
        tensor_id tin = l ? (tensor_id){TENSOR_ACT, l - 1} : (tensor_id){TENSOR_INPUT, 0};
        assert_int_equal(engine_set_tensor(gpu, tin, prev), 0);
        assert_int_equal(engine_forward_layer(cpu, l, 1), 0);
        assert_int_equal(engine_forward_layer(gpu, l, 1), 0);
        assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_ACT, l}, a), 0);
        assert_int_equal(engine_get_tensor(gpu, (tensor_id){TENSOR_ACT, l}, b), 0);
        if (ly->kind == LAYER_CONV || ly->kind == LAYER_DENSE) {
            const model_tensor *wt = &m.tensors[ly->w_tensor], *bt = &m.tensors[ly->b_tensor];
            int inner = ly->kind == LAYER_CONV ? ly->k * ly->k : 1;
            int cols = ly->kind == LAYER_CONV ? ly->in_c : (int)layer_in_size(ly);
            int rows = ly->kind == LAYER_CONV ? ly->out_c : (int)layer_out_size(ly);
            double K = (double)cols * inner + 1;
            double g = K * U32 / (1 - K * U32);
            double tol = 2 * g * (maxabs(prev, icnt) * max_row_abs(params + wt->offset, rows, cols, inner, 1) +
                                  maxabs(params + bt->offset, bt->numel));
            expect_close(ly->name, b, a, cnt, tol);
        } else {
            /* ReLU, max-pool and flatten select or copy: equal values */
            expect_same_values(ly->name, b, a, cnt);
        }
        memcpy(prev, a, cnt * 4);
    }
    /* the loss with portable exp/log on both, from the same logits: the
     * same operations, bitwise */
    float lc, lg;
    int L = m.n_layers;
    assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_ACT, L - 1}, a), 0);
    assert_int_equal(engine_set_tensor(gpu, (tensor_id){TENSOR_ACT, L - 1}, a), 0);
    assert_int_equal(engine_loss(cpu, &lc), 0);
    assert_int_equal(engine_loss(gpu, &lg), 0);
    assert_true(lc == lg);
    assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_DACT, L - 1}, a), 0);
    assert_int_equal(engine_get_tensor(gpu, (tensor_id){TENSOR_DACT, L - 1}, b), 0);
    expect_bitwise("dlogits", b, a, n * 10);

    /* backward, each cuda layer fed the cpu's output gradient */
    float *gc = malloc(m.n_params * 4), *gg = malloc(m.n_params * 4), *act_in = malloc(big * 4);
    for (int l = L - 1; l >= 0; l--) {
        const layer *ly = &m.layers[l];
        size_t cnt = n * layer_out_size(ly), icnt = n * layer_in_size(ly);
        assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_DACT, l}, a), 0);
        assert_int_equal(engine_set_tensor(gpu, (tensor_id){TENSOR_DACT, l}, a), 0);
        float dymax = maxabs(a, cnt);
        assert_int_equal(engine_backward_layer(cpu, l), 0);
        assert_int_equal(engine_backward_layer(gpu, l), 0);
        if (ly->kind == LAYER_CONV || ly->kind == LAYER_DENSE) {
            const model_tensor *wt = &m.tensors[ly->w_tensor], *bt = &m.tensors[ly->b_tensor];
            tensor_id tin = l ? (tensor_id){TENSOR_ACT, l - 1} : (tensor_id){TENSOR_INPUT, 0};
            assert_int_equal(engine_get_tensor(cpu, tin, act_in), 0);
            assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_GRADS, 0}, gc), 0);
            assert_int_equal(engine_get_tensor(gpu, (tensor_id){TENSOR_GRADS, 0}, gg), 0);
            /* dW: sums over the batch and the output positions, K = n*oh*ow
             * terms each |dy||x| <= max|dy| max|x|; db: K terms of |dy| */
            double K = (double)n * ly->out_h * ly->out_w;
            double g = K * U32 / (1 - K * U32);
            char what[64];
            snprintf(what, sizeof what, "%s dW", ly->name);
            expect_close(what, gg + wt->offset, gc + wt->offset, wt->numel, 2 * g * K * dymax * maxabs(act_in, icnt));
            snprintf(what, sizeof what, "%s db", ly->name);
            expect_close(what, gg + bt->offset, gc + bt->offset, bt->numel, 2 * g * K * dymax);
            if (l > 0) {
                int inner = ly->kind == LAYER_CONV ? ly->k * ly->k : 1;
                int cols = ly->kind == LAYER_CONV ? ly->in_c : (int)layer_in_size(ly);
                int rows = ly->kind == LAYER_CONV ? ly->out_c : (int)layer_out_size(ly);
                double Kd = (double)rows * inner;
                double gd = Kd * U32 / (1 - Kd * U32);
                assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_DACT, l - 1}, a), 0);
                assert_int_equal(engine_get_tensor(gpu, (tensor_id){TENSOR_DACT, l - 1}, b), 0);
                snprintf(what, sizeof what, "%s dx", ly->name);
                expect_close(what, b, a, icnt, 2 * gd * dymax * max_row_abs(params + wt->offset, rows, cols, inner, 0));
            }
        } else if (l > 0) {
            assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_DACT, l - 1}, a), 0);
            assert_int_equal(engine_get_tensor(gpu, (tensor_id){TENSOR_DACT, l - 1}, b), 0);
            /* ReLU and flatten are selections/copies: equal values.
             * Max-pool routes each gradient to its window's arg-max; windows
             * whose maximum is tied (all four inputs 0 after a ReLU) may
             * route it to different zeros, which the ReLU's backward then
             * drops: compare only where the pool's input is non-zero. */
            if (ly->kind == LAYER_MAXPOOL) {
                assert_int_equal(engine_get_tensor(cpu, (tensor_id){TENSOR_ACT, l - 1}, act_in), 0);
                for (size_t i = 0; i < icnt; i++)
                    if (act_in[i] == 0.0f) a[i] = b[i] = 0.0f;
            }
            expect_same_values(ly->name, b, a, icnt);
        }
    }
    engine_free(cpu);
    engine_free(gpu);
    free(params); free(x); free(a); free(b); free(prev); free(gc); free(gg); free(act_in);
}

/* ---- device: training steps ------------------------------------------- */

static void train_steps(const char *spec, int steps, float *losses, float *final_params) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    const size_t n = 64;
    engine_opts eo = {42, n, 0};
    engine *e = NULL;
    if (engine_create(&e, spec, &m, &eo)) fail_msg("%s: %s", spec, ls_errmsg());
    float *params = malloc(m.n_params * 4), *x = malloc(n * 784 * 4);
    int32_t y[64];
    model_init_params(&m, params, 42);
    assert_int_equal(engine_set_params(e, params), 0);
    /* one fixed batch: a few steps must fit it better */
    fill(x, n * 784, 12, 0.0f, 1.0f);
    for (size_t i = 0; i < n; i++) y[i] = (int32_t)(i % 10);
    adam_cfg cfg = adam_default();
    for (int t = 1; t <= steps; t++) {
        /* the last step with a partial batch, to exercise a second plan */
        size_t nb = t == steps ? 40 : n;
        if (engine_train_step(e, x, y, nb, (uint64_t)t, &cfg, t, &losses[t - 1])) fail_msg("%s", ls_errmsg());
    }
    assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, final_params), 0);
    char *d = engine_describe(e);
    assert_non_null(d);
    assert_non_null(strstr(d, "\"batch\":40"));
    free(d);
    engine_free(e);
    free(params);
    free(x);
}

static void test_dev_train(void **st) {
    const char *why = no_device();
    if (why) { print_message("skipped: %s\n", why); skip(); }
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    enum { STEPS = 8 };
    float l1[STEPS], l2[STEPS];
    float *p1 = malloc(m.n_params * 4), *p2 = malloc(m.n_params * 4);
    train_steps("cuda:math=fma:algo=det", STEPS, l1, p1);
    for (int i = 0; i < STEPS; i++) assert_true(isfinite(l1[i]));
    /* random labels on random images: the loss starts near ln 10 = 2.30 and
     * 7 Adam steps on the same batch must lower it */
    assert_true(l1[0] > 2.0f && l1[0] < 2.6f);
    assert_true(l1[STEPS - 2] < l1[0]);
    /* det: a second engine repeats every bit */
    train_steps("cuda:math=fma:algo=det", STEPS, l2, p2);
    assert_memory_equal(l1, l2, sizeof l1);
    assert_memory_equal(p1, p2, m.n_params * 4);
    /* tf32 trains too (its numbers differ; the audit measures by how much) */
    train_steps("cuda:math=tf32:algo=fast", STEPS, l2, p2);
    assert_true(l2[STEPS - 2] < l2[0]);
    free(p1);
    free(p2);
}

/* The device vector's S fields (kernels.cu's plane maxima and ck_s_*) are
 * bit for bit what checksum_ops.h's functions give on the engine's own
 * tensors (tests/ck_s_expect.h composes them as the kernels do; every max
 * is exact, every sum in the same order, --fmad=false). */
static void expect_dev_s(engine *e, const model *m, const double *v, size_t n, const float *x) {
    ck_layout L;
    ck_layout_make(&L, m, n);
    float *p = malloc(m->n_params * 4), *act[MODEL_MAX_LAYERS] = {0}, *dact[MODEL_MAX_LAYERS] = {0};
    assert_non_null(p);
    assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, p), 0);
    for (int l = 0; l < m->n_layers; l++) {
        size_t z = n * layer_out_size(&m->layers[l]);
        act[l] = malloc(z * 4), dact[l] = malloc(z * 4);
        assert_true(act[l] && dact[l]);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_ACT, l}, act[l]), 0);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_DACT, l}, dact[l]), 0);
    }
    size_t below = 0, cnt = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        double *s[3];
        for (int ph = 0; ph < 3; ph++) s[ph] = L.cnt[l][ph] ? malloc(L.cnt[l][ph] * sizeof(double)) : NULL;
        assert_int_equal(ck_s_expect_layer(ly, n, l ? act[l - 1] : x, dact[l], p + m->tensors[ly->w_tensor].offset,
                                           p + m->tensors[ly->b_tensor].offset, s),
                         0);
        for (int ph = 0; ph < 3; ph++)
            for (size_t r = 0; r < L.cnt[l][ph]; r++, cnt++) {
                const double *o = v + L.off[l][ph] + CK_REL * r;
                if (!(o[3] == s[ph][r]))
                    fail_msg("%s %s relation %zu: device S %.17g, checksum_ops.h %.17g", ly->name, ck_phase_name(ph), r,
                             o[3], s[ph][r]);
                below += o[3] < o[1];
            }
        for (int ph = 0; ph < 3; ph++) free(s[ph]);
    }
    print_message("device S: %zu relations bit for bit, %zu below A\n", cnt, below);
    assert_true(below * 2 > cnt); /* the sharper tier is active on the device */
    for (int l = 0; l < m->n_layers; l++) free(act[l]), free(dact[l]);
    free(p);
}

/* The device's zero-element relations (k_ck_conv_zero: a block per filter,
 * a tree over its threads; k_ck_dense_zero) against base/checksum_ops.h's
 * loops on the device's own tensors: the same element kept (|v| bit for
 * bit), residual and A within double rounding of each other (2^-30 of
 * A: each order errs by at most K u_double A, K = 21632 terms here, about
 * 2^-38.6 A). */
static void expect_dev_zero(engine *e, const model *m, const double *v, size_t n, const float *x, const ck_layout *L) {
    float *g = malloc(m->n_params * 4);
    assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_GRADS, 0}, g), 0);
    size_t judged = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        size_t in_n = n * layer_in_size(ly), out_n = n * layer_out_size(ly), in = (size_t)ly->in_c;
        float *xin = malloc(in_n * 4), *dy = malloc(out_n * 4);
        if (l) assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, xin), 0);
        else memcpy(xin, x, in_n * 4);
        assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_DACT, l}, dy), 0);
        const float *gw = g + m->tensors[ly->w_tensor].offset;
        size_t row = m->tensors[ly->w_tensor].numel / (size_t)ly->out_c;
        double *xa = calloc(in, sizeof *xa);
        for (size_t i = 0; i < n && ly->kind == LAYER_DENSE; i++)
            for (size_t k = 0; k < in; k++) xa[k] += fabs((double)xin[i * in + k]);
        ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
            double want[4];
            if (ly->kind == LAYER_CONV) ck_conv_zero_filter(want, gw + oc * row, xin, 1, dy, 1, NULL, NULL, &d, n, oc);
            else ck_dense_zero_row(want, gw + oc * row, dy, xin, xa, n, in, (size_t)ly->out_c, oc);
            const double *got = v + L->off[l][CK_BWD_W_Z] + CK_REL * oc;
            double tol = 0x1p-30 * (want[1] + fabs(want[0]) + fabs(want[2]));
            if (got[2] != want[2] || fabs(got[0] - want[0]) > tol || fabs(got[1] - want[1]) > tol)
                fail_msg("%s filter/row %zu: device (%g %g %g %g), the shared loop (%g %g %g %g)", ly->name, oc, got[0],
                         got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            judged += want[1] > 0;
        }
        free(xin), free(dy), free(xa);
    }
    print_message("device zero and smallest elements: as the shared loop in every filter and row, %zu judged\n", judged);
    assert_true(judged > 0);
    free(g);
}

/* The device checksums on a real step: every relation holds, a doubled
 * activation is caught at its layer, and the update re-check holds. */
static void test_dev_checksums(void **st) {
    const char *why = no_device();
    if (why) { print_message("skipped: %s\n", why); skip(); }
    model m;
    assert_int_equal(model_build(&m, "mnist-convnet"), 0);
    enum { N = 32 };
    engine_opts o = {.seed = 42, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cuda:math=fma:algo=det", &m, &o), 0);
    float *p = malloc(m.n_params * 4), *x = malloc(N * 784 * 4);
    int32_t y[N];
    for (size_t i = 0; i < N * 784; i++) x[i] = rng_uniform(3, (uint32_t)i, 0, 0, 3);
    for (int i = 0; i < N; i++) y[i] = i % 10;
    model_init_params(&m, p, 42);
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *v = calloc(L.total, sizeof *v);
    assert_int_equal(engine_set_params(e, p), 0);
    assert_int_equal(engine_set_batch(e, x, y, N, 1), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, NULL), 0);
    assert_int_equal(engine_backward(e), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    ck_verdict cv;
    ck_verdict_init(&cv);
    /* as the audit judges a live cuda engine: every block (CK_BLOCKS_LIVE) */
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    /* the device's digest of its input: the batch it was given */
    checksums_input(&m, v, N, ck_digest(x, N * 784), &cv);
    if (cv.n_viol) fail_msg("cuda step: %s (ratio %g)", cv.v[0].what, cv.v[0].ratio);
    expect_dev_s(e, &m, v, N, x);
    expect_dev_zero(e, &m, v, N, x, &L);
    /* the output-element blocks (k_ck_dense_opeek) against checksum_peek.h's host loop on the device's own
     * tensors, bit for bit (the same chains in the same order, --fmad=false) */
    peek_tensors pt;
    size_t kept = 0, cnt;
    peek_tensors_get(&pt, e, &m, N, x, 1);
    cnt = expect_dpeek(&m, v, N, &pt, 128, &kept);
    print_message("device dense output elements: %zu entries bit for bit as the host loop, %zu re-done\n", cnt, kept);
    assert_true(cnt > 0 && kept * 2 > cnt);
    /* the conv planes' sampled elements (k_ck_conv_peek), the draws keyed by the device's own input digest */
    kept = 0;
    cnt = expect_peek(&m, v, N, &pt, &kept);
    /* the random-weight relations (k_ck_conv_rnd_*, k_ck_dense_rnd_*), A, Y, S the device's plain ones */
    size_t rcnt = expect_rnd(&m, v, N, &pt);
    print_message("device random-weight relations: %zu entries bit for bit as the host loops\n", rcnt);
    assert_true(rcnt > 0);
    /* the random-weighted weight gradients (k_ck_wrnd_*) */
    cnt = expect_wrnd(&m, v, N, &pt);
    print_message("device random-weighted weight gradients: %zu entries bit for bit as the host loops\n", cnt);
    assert_true(cnt > 0);
    /* the weight gradients' sampled elements (k_ck_conv_wpeek, k_ck_dense_wpeek) */
    kept = 0;
    cnt = expect_wpeek(&m, v, N, &pt, &kept);
    print_message("device weight-gradient sampled elements: %zu entries bit for bit as the host loop, %zu re-done\n",
                  cnt, kept);
    assert_true(cnt > 0 && kept * 2 > cnt);
    /* blank and identical windows (k_ck_grp_*, k_ck_blank) */
    double bpos = 0;
    size_t bgrp = 0;
    cnt = expect_blank(&m, v, N, &pt, &bpos, &bgrp);
    print_message("device blank and identical windows: %zu entries bit for bit as the host loop (%.0f blank positions, "
                  "%zu with identical windows apart)\n", cnt, bpos, bgrp);
    assert_true(cnt > 0);
    peek_tensors_free(&pt, &m);
    print_message("device conv planes' sampled elements: %zu entries bit for bit as the host loop, %zu re-done\n",
                  cnt, kept);
    assert_true(cnt > 0 && kept * 2 > cnt);
    adam_cfg a = adam_default();
    assert_int_equal(engine_update(e, &a, 1), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_UPDATE, v), 0);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    if (cv.n_viol) fail_msg("cuda update: %s", cv.v[0].what);
    /* an evaluation batch: FWD_DPEEK on the device too */
    assert_int_equal(engine_forward(e, 0), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_EVAL, v), 0);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, NULL, 0, CK_BLOCKS_LIVE, &cv), 0);
    if (cv.n_viol) fail_msg("cuda evaluation: %s", cv.v[0].what);
    peek_tensors_get(&pt, e, &m, N, x, 0);
    kept = 0;
    cnt = expect_dpeek(&m, v, N, &pt, 128, &kept);
    cnt += expect_peek(&m, v, N, &pt, &kept);
    cnt += expect_rnd(&m, v, N, &pt);
    cnt += expect_blank(&m, v, N, &pt, &bpos, &bgrp);
    peek_tensors_free(&pt, &m);
    assert_true(cnt > 0);
    /* the first dense layer's output: one element 6 times its own bound off, set on the device: the device's
     * DPEEK block names it */
    {
        int l = -1;
        for (int k = 0; k < m.n_layers && l < 0; k++)
            if (m.layers[k].kind == LAYER_DENSE) l = k;
        const layer *ly = &m.layers[l];
        assert_int_equal(engine_forward(e, 1), 0);
        assert_int_equal(engine_loss(e, NULL), 0);
        assert_int_equal(engine_backward(e), 0);
        peek_tensors_get(&pt, e, &m, N, x, 1);
        size_t fin = (size_t)ly->in_c, out = (size_t)ly->out_c, i = 5, j = 1;
        const float *w = pt.p + m.tensors[ly->w_tensor].offset, *b = pt.p + m.tensors[ly->b_tensor].offset;
        double R, A;
        (void)ck_dense_elem_redo(w, (l ? pt.act[l - 1] : x) + i * fin, fin, fin, j, 0, &R, &A);
        A += fabs((double)b[j]);
        double K = (double)fin + 1, gam = K * U32 / (1 - K * U32);
        float orig = pt.act[l][i * out + j];
        pt.act[l][i * out + j] = (float)((double)pt.act[l][i * out + j] + 6 * gam * A);
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, l}, pt.act[l]), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
        ck_verdict_init(&cv);
        assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
        int named = 0;
        for (int k = 0; k < cv.n_viol; k++) named |= cv.v[k].layer == l && strstr(cv.v[k].what, "every output") != NULL;
        if (!named) fail_msg("%s output 6x its bound off: not named by the device's DPEEK block", ly->name);
        /* its dW: row 2's largest |dW| 8 times its own bound up, set on the device (the output put back):
         * BWD_W_PEEK names it */
        pt.act[l][i * out + j] = orig;
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, l}, pt.act[l]), 0);
        float *gw = pt.g + m.tensors[ly->w_tensor].offset;
        uint64_t dig = ck_get_u64(v + L.input_off);
        size_t te[CK_PEEK], jr = 2;
        ck_peek_elems_at(te, gw + jr * fin, fin, dig, (uint32_t)v[2], CK_STAGE_STEP, l, jr);
        (void)ck_dense_redo(pt.dact[l], l ? pt.act[l - 1] : x, N, fin, out, jr, te[CK_PEEK - 1], &R, &A);
        gw[jr * fin + te[CK_PEEK - 1]] += (float)(8 * ((double)N * U32 / (1 - (double)N * U32)) * A);
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_GRADS, 0}, pt.g), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
        ck_verdict_init(&cv);
        assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
        named = 0;
        for (int k = 0; k < cv.n_viol; k++)
            named |= cv.v[k].layer == l && strstr(cv.v[k].what, "first, last, largest and sampled elements") != NULL;
        if (!named) fail_msg("%s dW 8x its bound: not named by the device's BWD_W_PEEK block", ly->name);
        peek_tensors_free(&pt, &m);
    }
    /* conv1's output, one element doubled */
    size_t na = N * layer_out_size(&m.layers[0]);
    float *act = malloc(na * 4);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, NULL), 0);
    assert_int_equal(engine_backward(e), 0);
    assert_int_equal(engine_get_tensor(e, (tensor_id){TENSOR_ACT, 0}, act), 0);
    size_t big = 0;
    for (size_t i = 1; i < 784; i++) big = fabsf(act[i]) > fabsf(act[big]) ? i : big;
    act[big] *= 2;
    assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, 0}, act), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    assert_true(cv.n_viol >= 1);
    assert_int_equal(cv.v[0].layer, 0);
    /* judged as the audit judges cuda, the device's FWD_PEEK names a plane's largest output moved (re-done):
     * the element above put back, plane (0, 0)'s largest y doubled (or raised by 1 where it is <= 0) */
    act[big] /= 2;
    size_t P0 = (size_t)m.layers[0].out_h * m.layers[0].out_w, am = ck_plane_argmax(act, P0, 0);
    act[am] = act[am] > 0 ? 2 * act[am] : act[am] + 1;
    assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ACT, 0}, act), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    int peeked = 0;
    for (int k = 0; k < cv.n_viol; k++)
        peeked |= cv.v[k].layer == 0 && strstr(cv.v[k].what, "first, last, largest and sampled outputs") != NULL;
    if (!peeked) fail_msg("conv1's largest output of plane (0, 0) moved: not named by the device's FWD_PEEK");
    /* ADAMW on the device: an update from this step, then three p and one m element moved by 1-2 ulps
     * (set_tensor): the device's ADAM counts and ADAMW entries are the host loop's bit for bit */
    {
        size_t np = m.n_params;
        float *st7 = malloc(7 * np * 4), *q0 = st7, *qm0 = q0 + np, *qv0 = qm0 + np, *qg = qv0 + np, *qp = qg + np;
        float *qm = qp + np, *qv = qm + np;
        static const tensor_kind kinds[4] = {TENSOR_PARAMS, TENSOR_ADAM_M, TENSOR_ADAM_V, TENSOR_GRADS};
        for (int k = 0; k < 4; k++) assert_int_equal(engine_get_tensor(e, (tensor_id){kinds[k], 0}, st7 + k * np), 0);
        assert_int_equal(engine_update(e, &a, 2), 0);
        for (int k = 0; k < 3; k++) assert_int_equal(engine_get_tensor(e, (tensor_id){kinds[k], 0}, qp + k * np), 0);
        size_t at[3] = {5, np / 2, np - 3};
        for (int k = 0; k < 3; k++) qp[at[k]] = nextafterf(nextafterf(qp[at[k]], INFINITY), INFINITY);
        qm[7] = nextafterf(qm[7], -INFINITY);
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, qp), 0);
        assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, qm), 0);
        assert_int_equal(engine_checksums(e, CK_STAGE_UPDATE, v), 0);
        size_t bad = expect_adamw(&m, v, N, &e->last_adam, q0, qm0, qv0, qg, qp, qm, qv);
        print_message("device Adam, 4 elements moved: ADAM and ADAMW bit for bit as the host loop's (%zu differ)\n", bad);
        assert_int_equal(bad, 4);
        free(st7);
    }
    engine_free(e);
    free(p), free(x), free(v), free(act);
}
/* The identical windows' term on the device (lk_ck_conv_grp): mnist-convnet
 * (pad 0: dy's reversed windows start k - 1 before x's) on blank_batch's
 * flat backgrounds, a training step and an evaluation batch judged clean
 * as the audit judges a live cuda engine, every conv forward relation's S
 * (and its alternating, random-weight and position-weighted companions')
 * the host loops' on the device's own tensors and A, bit for bit; then
 * conv2's dy given flat regions on the device (set_tensor), the
 * backward-data relations' too. */
static void test_dev_grp(void **st) {
    const char *why = no_device();
    if (why) { print_message("skipped: %s\n", why); skip(); }
    enum { N = 16 };
    model m;
    assert_int_equal(model_build(&m, "mnist-convnet"), 0);
    engine_opts o = {.seed = 9, .max_batch = N};
    engine *e = NULL;
    assert_int_equal(engine_create(&e, "cuda:math=fma:algo=det", &m, &o), 0);
    size_t in = (size_t)m.in_c * m.in_h * m.in_w;
    float *p = malloc(m.n_params * 4), *x = malloc(N * in * 4);
    int32_t y[N];
    ck_layout L;
    ck_layout_make(&L, &m, N);
    double *v = calloc(L.total, sizeof *v);
    assert_true(p && x && v);
    model_init_params(&m, p, 9);
    assert_int_equal(engine_set_params(e, p), 0);
    blank_batch(x, y, N, in, 1);
    assert_int_equal(engine_set_batch(e, x, y, N, 1), 0);
    assert_int_equal(engine_forward(e, 1), 0);
    assert_int_equal(engine_loss(e, NULL), 0);
    assert_int_equal(engine_backward(e), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    ck_verdict cv;
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, y, 0, CK_BLOCKS_LIVE, &cv), 0);
    if (cv.n_viol) fail_msg("cuda step on flat backgrounds: %s (ratio %g)", cv.v[0].what, cv.v[0].ratio);
    peek_tensors t;
    peek_tensors_get(&t, e, &m, N, x, 1);
    size_t with[2] = {0, 0}, grp = 0, cnt = expect_grp(&m, v, N, &t, with, &grp);
    double bpos = 0;
    size_t bgrp = 0, bcnt = expect_blank(&m, v, N, &t, &bpos, &bgrp), rcnt = expect_rnd(&m, v, N, &t);
    print_message("device identical windows' term: %zu relations' S bit for bit as the host loops (%zu exact groups, "
                  "%zu forward relations whose S it moves; FWD_BLANK %zu, random-weight %zu entries as well)\n", cnt,
                  grp, with[0], bcnt, rcnt);
    assert_true(grp > 0 && with[0] > 0 && bcnt > 0 && rcnt > 0);
    /* conv2's dy: in even samples the bottom 8 rows of each channel that channel's constant */
    int l2 = -1;
    for (int l = 1; l < m.n_layers; l++)
        if (m.layers[l].kind == LAYER_CONV) l2 = l;
    const layer *c2 = &m.layers[l2];
    size_t P = (size_t)c2->out_h * c2->out_w, OC = (size_t)c2->out_c;
    for (size_t i = 0; i < N; i += 2)
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t q = P - 8 * (size_t)c2->out_w; q < P; q++) t.dact[l2][(i * OC + oc) * P + q] = 1e-3f * (float)(oc + 1);
    assert_int_equal(engine_set_tensor(e, (tensor_id){TENSOR_DACT, l2}, t.dact[l2]), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_STEP, v), 0);
    with[0] = with[1] = grp = 0;
    cnt = expect_grp(&m, v, N, &t, with, &grp);
    print_message("device identical windows' term, conv2 dy given flat regions: %zu relations' S bit for bit as the "
                  "host loops (%zu backward-data relations whose S it moves)\n", cnt, with[1]);
    assert_true(with[1] > 0);
    peek_tensors_free(&t, &m);
    /* an evaluation batch: the forward relations' */
    assert_int_equal(engine_forward(e, 0), 0);
    assert_int_equal(engine_checksums(e, CK_STAGE_EVAL, v), 0);
    ck_verdict_init(&cv);
    assert_int_equal(checksums_judge(&m, v, N, NULL, 0, CK_BLOCKS_LIVE, &cv), 0);
    if (cv.n_viol) fail_msg("cuda evaluation on flat backgrounds: %s (ratio %g)", cv.v[0].what, cv.v[0].ratio);
    peek_tensors_get(&t, e, &m, N, x, 0);
    with[0] = with[1] = grp = 0;
    cnt = expect_grp(&m, v, N, &t, with, &grp);
    assert_true(cnt > 0 && with[0] > 0);
    peek_tensors_free(&t, &m);
    engine_free(e);
    free(p), free(x), free(v);
}
#else
/* For engine against engine: equal values, +0 and -0 counted equal (a
 * library may produce -0 where we produce +0, e.g. ReLU as x * 0). */
__attribute__((unused)) static void expect_same_values(const char *what, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(a[i] == b[i]) && !(isnan(a[i]) && isnan(b[i])))
            fail_msg("%s[%zu]: cuda %.9g vs cpu %.9g", what, i, (double)a[i], (double)b[i]);
}

static void test_dev_elementwise(void **st) { print_message("skipped: %s\n", no_device()); skip(); }
static void test_dev_vs_cpu(void **st) { print_message("skipped: %s\n", no_device()); skip(); }
static void test_dev_train(void **st) { print_message("skipped: %s\n", no_device()); skip(); }
static void test_dev_checksums(void **st) { print_message("skipped: %s\n", no_device()); skip(); }
static void test_dev_grp(void **st) { print_message("skipped: %s\n", no_device()); skip(); }
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opts),          cmocka_unit_test(test_pick),
        cmocka_unit_test(test_algo_names),    cmocka_unit_test(test_dims_smallcnn),
        cmocka_unit_test(test_grid),          cmocka_unit_test(test_hints),
        cmocka_unit_test(test_ck_policy),     cmocka_unit_test(test_ck_blank_layout),
        cmocka_unit_test(test_create_or_unavailable),
        cmocka_unit_test(test_alloc_all_or_none),
        cmocka_unit_test(test_dev_elementwise), cmocka_unit_test(test_dev_vs_cpu),
        cmocka_unit_test(test_dev_train),     cmocka_unit_test(test_dev_checksums),
        cmocka_unit_test(test_dev_grp),
        cmocka_unit_test(test_peek_host),    cmocka_unit_test(test_dpeek_judged),
        cmocka_unit_test(test_adamw_host),    cmocka_unit_test(test_blocks_mnist_convnet),
        cmocka_unit_test(test_grp_bwd_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
