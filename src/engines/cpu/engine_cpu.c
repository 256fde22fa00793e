/*
 * engine_cpu.c — the cpu engine: oneDNN 2.6 (v2 C API) primitives for
 * convolution, inner product, ReLU and max-pool, forward and backward, plus
 * our own OpenMP loops for dropout, softmax cross-entropy and Adam built on
 * ops_elem.h (the same per-element code as the CUDA kernels).
 *
 * Fusion (fuse=on, the default).  A ReLU followed by a max-pool runs as one
 * pass of cpu_pool.c, forward and backward, with the bits of oneDNN's two
 * primitives; the ReLU's ACT and DACT are then written only on demand (see
 * the lazy flags in cpu_ctx).  fuse=off runs the primitives.
 *
 * Layouts.  Parameters, gradients and Adam state are the flat plain buffers
 * of model.h, so Adam and get/set are plain loops.  Activations may live in
 * the layouts the primitives prefer (layout=blocked, the default: usually
 * nChw16c after the first convolution); get_tensor/set_tensor reorder to and
 * from plain NCHW / (n, features).  Weights are reordered into a primitive's
 * preferred layout lazily, once per parameter change, and weight gradients
 * back into the flat buffer after each backward-weights call.  Reorders only
 * move bits, so nothing here changes a value.
 *
 * Batches.  Primitives are built per batch size ("plans"): the max_batch plan
 * at creation (it also sizes every buffer, allocated once), others lazily on
 * set_batch (the last, partial batch of an epoch; evaluation).  At most
 * PLAN_MAX plans live; the max_batch one is never evicted.  Every plan binds
 * the same buffers, so a step allocates nothing.
 *
 * Reduced-precision twins (issue 12; the lowp_* functions after build_linear).
 * tf32=on rounds the inputs of every convolution and inner product
 * (forward x and w, backward-data dy and w, backward-weights x and dy) to
 * TF32 (lowp.h, tf32round=rna|rne|rz) into engine-owned copies, then runs
 * the same fp32 primitives: the products of 11-bit significands are exact
 * in fp32 and the sums stay fp32, the arithmetic of tensor-core TF32.  The
 * bias gradient is an fp32 reduction of the unrounded dy, as cuDNN's and
 * PyTorch's (a sum, not a tensor-core product).  dtype=bf16 builds oneDNN's
 * bf16 primitives instead (bf16 src, weights and diff_dst, fp32 dst, bias,
 * diff_weights and accumulation) and converts fp32 activations, gradients
 * and weights to bf16 copies by reorder (round to nearest even) before each
 * call.  The master weights, the activations other layers read and every
 * tensor get/set_tensor speak stay fp32 and unrounded in both.
 *
 * Threads.  oneDNN fixes its thread count when a primitive is created, so
 * omp_set_num_threads(threads) comes first in every entry point.  Results
 * change with threads, ISA and algorithm; with all three fixed they are
 * bitwise reproducible (our own loops are element-wise or summed serially).
 *
 * Not here: comparison, timing (engine.c's wrappers), data loading.
 */
#include "engines/checksums.h"
#include "engines/engine.h"
#include "engines/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#if LS_FAULTS && defined(__x86_64__)
#include <xmmintrin.h> /* zoo attack 13: MXCSR */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include "engines/cpu/cpu_faults.h"
#include "engines/cpu/cpu_pool.h"
#include "base/lowp.h"
#include "base/ops_elem.h"
#include "base/util.h"

#define PLAN_MAX 4

/* Every oneDNN call goes through this: file:line, the call and oneDNN's
 * status text, then the function's one cleanup label (needs `int rc`). */
#define CHECK_DNNL(call)                                                                              \
    do {                                                                                              \
        dnnl_status_t st_ = (call);                                                                   \
        if (st_ != dnnl_success) {                                                                    \
            rc = ls_err(LS_ELIB, "cpu: %s:%d: %s: %s", __FILE__, __LINE__, #call, dnnl_status2str(st_)); \
            goto cleanup;                                                                             \
        }                                                                                             \
    } while (0)

typedef struct {
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    dnnl_memory_t scratch; /* bound to the shared scratchpad; NULL if none needed */
} cprim;

/* A weight argument in the layout one primitive wants: the user's plain
 * memory itself when the layouts agree (buf NULL), else an own buffer plus
 * a reorder (user -> own for weights, own -> user for weight gradients). */
typedef struct {
    dnnl_memory_t mem;
    float *buf;
    dnnl_primitive_t reorder;
    uint64_t ver; /* params version the buffer holds (weights only) */
} warg;

/* The operand slots of a tf32 / bf16 linear layer (player.lp_mem).  tf32
 * rounds keeping the layout, so backward-weights refills and reads LP_SRC
 * and backward-data reads LP_DY; bf16 gives each primitive's bf16 operand
 * its own slot (the layouts the primitives chose may differ), and its
 * weights go through the warg reorders (f32 plain -> bf16 blocked) instead
 * of LP_W / LP_WB. */
enum { LP_SRC, LP_SRC_W, LP_DY, LP_DY_D, LP_W, LP_WB, LP_NSLOT };

typedef struct {
    int alias;     /* FLATTEN: ACT and DACT are the input's own memories */
    int need_dsrc; /* backward computes DACT of the input (not for the image) */
    dnnl_memory_desc_t md, plain_md;
    int is_plain;
    dnnl_memory_t act, dact; /* dact NULL when the input is the image */
    dnnl_memory_t ws;        /* max-pool workspace */
    cprim fwd, bwd_data, bwd_w;
    dnnl_memory_t w_user, b_user, dw_user, db_user; /* views of PARAMS / GRADS */
    warg w_fwd, w_bwd, dw;
    dnnl_memory_t user;                        /* plain_md, handle set per call */
    dnnl_primitive_t to_plain, from_plain;     /* NULL when is_plain */
    dnnl_memory_t tmp_plain;                   /* dropout backward into a blocked DACT */
    char alg[64];                              /* conv algorithm actually used */
    /* backward-weights' own copy of its input, in the layout its kernel
     * takes, where that differs from the input's (see build_linear) */
    dnnl_memory_t bw_src;
    float *bw_src_buf;
    dnnl_primitive_t bw_src_reo;
    int fused;                                 /* ReLU l + max-pool l+1 run as one (cpu_pool.h) */
    cpu_pool_geom pg;                          /* the max-pool's shape, when fused */
    /* tf32=on / dtype=bf16: the rounded operand copies (LP_* slots) and,
     * for bf16, the f32 -> bf16 reorders that fill them; for tf32, slot
     * LP_DY_D is dy in plain layout for the bias gradient (when the layout
     * is blocked), lp_reo[LP_DY_D] the reorder that writes it */
    dnnl_memory_t lp_mem[LP_NSLOT];
    dnnl_primitive_t lp_reo[LP_NSLOT];
} player;

typedef struct {
    size_t n;
    uint64_t last_used;
    dnnl_memory_desc_t in_md;
    dnnl_memory_t input;
    player L[MODEL_MAX_LAYERS];
} plan;

typedef struct {
    int threads, portable, blocked;
    dnnl_alg_kind_t alg;
    char algo_name[16], isa_req[32];
    int isa_k; /* isa_req's index in isa_names */
    const model *m;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    dnnl_primitive_attr_t attr;
    /* buffers, allocated once from the max_batch plan */
    float *x;
    int32_t *labels;
    float *act_buf[MODEL_MAX_LAYERS], *dact_buf[MODEL_MAX_LAYERS], *ws_buf[MODEL_MAX_LAYERS];
    size_t act_cap[MODEL_MAX_LAYERS], dact_cap[MODEL_MAX_LAYERS], ws_cap[MODEL_MAX_LAYERS];
    float *plain_buf; /* n * largest layer, for dropout into blocked layouts */
    size_t plain_cap;
    void *scratch_buf;
    size_t scratch_cap;
    float *row_loss;
    float *params, *grads, *adam_m, *adam_v;
    uint64_t params_ver;
    float loss;
    uint64_t step;
    /* Fused ReLU + max-pool pairs (fuse=on).  The ReLU's ACT and DACT are
     * not written in a training step; each is kept as a rule and written
     * only when somebody reads it (get_tensor) or is about to overwrite what
     * it is computed from:
     *   act_lazy[r]:  ACT[r] is relu(ACT[r-1]) (oneDNN's eltwise computes it)
     *   dact_lazy[r]: DACT[r] is the max-pool backward of DACT[r+1]
     *   mask_ok[q]:   pool q's pidx holds ReLU pass bits of the current
     *                 ACT[q-2], so the ReLU backward needs neither buffer.
     * Per layer, not per plan: the buffers are shared by every plan.
     * The one liberty: between forward_layer(r-1) and forward_layer(r) (or
     * backward_layer(q+1) and backward_layer(q)) the lazy tensor already
     * follows the new input; a separate engine would still hold the old
     * value there.  No caller reads a layer's output before running it.
     *
     * Written or not, the rule may still hold, and then the pair runs fused
     * (the kernel it trains with) even when its tensors come from outside,
     * as in isolated replay, which reads each ReLU tensor (writing it) and
     * sets it back to the leader's value before the next layer runs:
     *   act_rule[r]:  ACT[r] is relu(ACT[r-1]) of the current ACT[r-1], so
     *                 the max-pool may read ACT[r-1] and apply the ReLU
     *   dact_rule[r]: DACT[r] is the max-pool backward of the current
     *                 DACT[r+1] through the current pidx, so the ReLU's
     *                 backward may start from DACT[r+1]
     * A set that keeps a rule (the value is, bit for bit, what the rule
     * gives) keeps the fused path; one that breaks it sends that layer to
     * the separate path (the scalar pool without the ReLU, oneDNN's ReLU
     * backward) and is counted in other_path[r][0 (ACT) or 1 (DACT)], which
     * describe() reports: what was compared there is not the kernel that
     * trains.  Every other tensor a set can reach (the input, PARAMS read
     * through the blocked weight copies, GRADS, ADAM_M/V) is consumed by the
     * same code whether it was set or computed: the weight copies are
     * refreshed by params_ver, which set and update bump alike. */
    int fuse;
    uint8_t *pidx[MODEL_MAX_LAYERS];
    size_t pidx_cap[MODEL_MAX_LAYERS];
    unsigned char act_lazy[MODEL_MAX_LAYERS], dact_lazy[MODEL_MAX_LAYERS], mask_ok[MODEL_MAX_LAYERS];
    unsigned char act_rule[MODEL_MAX_LAYERS], dact_rule[MODEL_MAX_LAYERS];
    long other_path[MODEL_MAX_LAYERS][2];
    float *check_buf; /* plain (n, size): a set value against its rule */
    size_t check_cap;
    plan plans[PLAN_MAX];
    int n_plans;
    plan *cur;
    uint64_t clock;
    /* reduced-precision twins: tf32=on (rounding tf32_mode) or dtype=bf16;
     * lp_buf holds the rounded copies, one per layer and LP_* slot, sized
     * by the max_batch plan and shared by every plan like act_buf */
    int tf32, bf16;
    lowp_round tf32_mode;
    float *lp_buf[MODEL_MAX_LAYERS][LP_NSLOT];
    size_t lp_cap[MODEL_MAX_LAYERS][LP_NSLOT];
    CPU_FAULT_ONLY(void *fault;) /* the zoo's fault_state (cpu_faults.h) */
} cpu_ctx;

static void *alloc_aligned(size_t bytes) {
    size_t b = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, b ? b : 64);
    if (!p) ls_err(LS_ENOMEM, "cpu: out of memory (%zu bytes)", bytes);
    else memset(p, 0, b ? b : 64);
    return p;
}

static int plain_tag(int ndims) {
    switch (ndims) {
    case 1: return dnnl_a;
    case 2: return dnnl_ab;
    case 3: return dnnl_abc;
    default: return dnnl_abcd;
    }
}

static size_t md_floats(const dnnl_memory_desc_t *md) {
    size_t n = 1;
    for (int i = 0; i < md->ndims; i++) n *= (size_t)md->dims[i];
    return n;
}

/* ---- primitives ---------------------------------------------------------- */

static int scratch_rebind(cpu_ctx *c) {
    int rc = 0;
    for (int i = 0; i < c->n_plans; i++) {
        plan *P = &c->plans[i];
        for (int l = 0; l < MODEL_MAX_LAYERS; l++) {
            cprim *ps[3] = {&P->L[l].fwd, &P->L[l].bwd_data, &P->L[l].bwd_w};
            for (int k = 0; k < 3; k++)
                if (ps[k]->scratch) CHECK_DNNL(dnnl_memory_set_data_handle(ps[k]->scratch, c->scratch_buf));
        }
    }
cleanup:
    return rc;
}

/* Make the primitive of `p->pd` and bind its scratchpad (user mode: one
 * shared buffer, grown only while plans are built, never during a step). */
static int cprim_finish(cpu_ctx *c, cprim *p) {
    int rc = 0;
    CHECK_DNNL(dnnl_primitive_create(&p->p, p->pd));
    const dnnl_memory_desc_t *smd = dnnl_primitive_desc_query_md(p->pd, dnnl_query_scratchpad_md, 0);
    size_t sz = smd ? dnnl_memory_desc_get_size(smd) : 0;
    if (sz == 0) return 0;
    if (sz > c->scratch_cap) {
        void *nb = alloc_aligned(sz);
        if (!nb) return LS_ENOMEM;
        free(c->scratch_buf);
        c->scratch_buf = nb;
        c->scratch_cap = sz;
        rc = scratch_rebind(c);
        if (rc) return rc;
    }
    CHECK_DNNL(dnnl_memory_create(&p->scratch, smd, c->eng, c->scratch_buf));
cleanup:
    return rc;
}

static void cprim_free(cprim *p) {
    if (p->p) dnnl_primitive_destroy(p->p);
    if (p->pd) dnnl_primitive_desc_destroy(p->pd);
    if (p->scratch) dnnl_memory_destroy(p->scratch);
    memset(p, 0, sizeof *p);
}

static int exec(cpu_ctx *c, cprim *p, int nargs, dnnl_exec_arg_t *args) {
    int rc = 0;
    if (p->scratch) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, p->scratch};
    CHECK_DNNL(dnnl_primitive_execute(p->p, c->stream, nargs, args));
    CHECK_DNNL(dnnl_stream_wait(c->stream));
cleanup:
    return rc;
}

static int reorder(cpu_ctx *c, dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to) {
    int rc = 0;
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    CHECK_DNNL(dnnl_primitive_execute(r, c->stream, 2, a));
    CHECK_DNNL(dnnl_stream_wait(c->stream));
cleanup:
    return rc;
}

static int make_reorder(cpu_ctx *c, dnnl_primitive_t *r, const dnnl_memory_desc_t *from,
                        const dnnl_memory_desc_t *to) {
    int rc = 0;
    dnnl_primitive_desc_t pd = NULL;
    CHECK_DNNL(dnnl_reorder_primitive_desc_create(&pd, from, c->eng, to, c->eng, NULL));
    CHECK_DNNL(dnnl_primitive_create(r, pd));
cleanup:
    if (pd) dnnl_primitive_desc_destroy(pd);
    return rc;
}

/* Bind a weight (or weight-gradient) argument of the layout `want`. */
static int warg_bind(cpu_ctx *c, warg *w, const dnnl_memory_desc_t *want, dnnl_memory_t user,
                     int to_user) {
    int rc = 0;
    const dnnl_memory_desc_t *umd;
    CHECK_DNNL(dnnl_memory_get_memory_desc(user, &umd));
    if (dnnl_memory_desc_equal(want, umd)) {
        w->mem = user;
        return 0;
    }
    w->buf = alloc_aligned(dnnl_memory_desc_get_size(want));
    if (!w->buf) return LS_ENOMEM;
    CHECK_DNNL(dnnl_memory_create(&w->mem, want, c->eng, w->buf));
    rc = to_user ? make_reorder(c, &w->reorder, want, umd) : make_reorder(c, &w->reorder, umd, want);
cleanup:
    return rc;
}

static void warg_free(warg *w) {
    if (w->buf) {
        if (w->mem) dnnl_memory_destroy(w->mem);
        free(w->buf);
    }
    if (w->reorder) dnnl_primitive_destroy(w->reorder);
    memset(w, 0, sizeof *w);
}

static int warg_refresh(cpu_ctx *c, warg *w, dnnl_memory_t user) {
    if (!w->reorder || w->ver == c->params_ver) return 0;
    int rc = reorder(c, w->reorder, user, w->mem);
    if (rc == 0) w->ver = c->params_ver;
    return rc;
}

/* A memory on one of the engine's buffers; the first (max_batch) plan sizes
 * the buffer, later plans must fit in it. */
static int bind_buf(cpu_ctx *c, float **buf, size_t *cap, const dnnl_memory_desc_t *md, dnnl_memory_t *mem,
                    const char *what, int l) {
    int rc = 0;
    size_t sz = dnnl_memory_desc_get_size(md);
    if (!*buf) {
        *buf = alloc_aligned(sz);
        if (!*buf) return LS_ENOMEM;
        *cap = sz;
    } else if (sz > *cap) {
        return ls_err(LS_ELIB, "cpu: layer %d %s needs %zu bytes in this batch size's layout, more than the %zu "
                      "of the max-batch layout", l, what, sz, *cap);
    }
    CHECK_DNNL(dnnl_memory_create(mem, md, c->eng, *buf));
cleanup:
    return rc;
}

static void lowp_player_free(player *L) {
    for (int k = 0; k < LP_NSLOT; k++) {
        if (L->lp_mem[k]) dnnl_memory_destroy(L->lp_mem[k]);
        if (L->lp_reo[k]) dnnl_primitive_destroy(L->lp_reo[k]);
    }
}

static void plan_free(plan *P) {
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) {
        player *L = &P->L[l];
        lowp_player_free(L);
        cprim_free(&L->fwd);
        cprim_free(&L->bwd_data);
        cprim_free(&L->bwd_w);
        warg_free(&L->w_fwd);
        warg_free(&L->w_bwd);
        warg_free(&L->dw);
        dnnl_memory_t ms[] = {L->ws, L->w_user, L->b_user, L->dw_user, L->db_user, L->tmp_plain, L->bw_src};
        for (size_t i = 0; i < LS_ARRAY_LEN(ms); i++)
            if (ms[i]) dnnl_memory_destroy(ms[i]);
        if (L->bw_src_reo) dnnl_primitive_destroy(L->bw_src_reo);
        free(L->bw_src_buf);
        if (!L->alias) {
            if (L->act) dnnl_memory_destroy(L->act);
            if (L->dact) dnnl_memory_destroy(L->dact);
            if (L->user) dnnl_memory_destroy(L->user);
            if (L->to_plain) dnnl_primitive_destroy(L->to_plain);
            if (L->from_plain) dnnl_primitive_destroy(L->from_plain);
        }
    }
    if (P->input) dnnl_memory_destroy(P->input);
    memset(P, 0, sizeof *P);
}

/* ---- building a plan (all primitives for one batch size) ----------------- */

/* The buffer behind layer l's ACT (or DACT), through FLATTEN aliases;
 * l == -1 (or an alias of it) is the batch itself, which has no DACT. */
static float *act_ptr(cpu_ctx *c, const plan *P, int l) {
    while (l >= 0 && P->L[l].alias) l--;
    return l < 0 ? c->x : c->act_buf[l];
}
static float *dact_ptr(cpu_ctx *c, const plan *P, int l) {
    while (l >= 0 && P->L[l].alias) l--;
    return l < 0 ? NULL : c->dact_buf[l];
}

/* Layer l's ACT/DACT layout is `md`: bind the buffers, and the reorders
 * that get/set_tensor use when the layout is not plain. */
static int set_layout(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *md) {
    int rc = 0;
    player *L = &P->L[l];
    L->md = *md;
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&L->plain_md, md->ndims, md->dims, dnnl_f32, plain_tag(md->ndims)));
    L->is_plain = dnnl_memory_desc_equal(&L->md, &L->plain_md);
    rc = bind_buf(c, &c->act_buf[l], &c->act_cap[l], md, &L->act, "activation", l);
    if (!rc) rc = bind_buf(c, &c->dact_buf[l], &c->dact_cap[l], md, &L->dact, "activation gradient", l);
    if (rc) return rc;
    CHECK_DNNL(dnnl_memory_create(&L->user, &L->plain_md, c->eng, DNNL_MEMORY_NONE));
    if (!L->is_plain) {
        rc = make_reorder(c, &L->to_plain, &L->md, &L->plain_md);
        if (!rc) rc = make_reorder(c, &L->from_plain, &L->plain_md, &L->md);
    }
cleanup:
    return rc;
}

/* Views of this layer's weight and bias in PARAMS and GRADS (plain). */
static int bind_params(cpu_ctx *c, player *L, const layer *ly, const dnnl_memory_desc_t *wu_md) {
    int rc = 0;
    const model_tensor *tw = &c->m->tensors[ly->w_tensor], *tb = &c->m->tensors[ly->b_tensor];
    dnnl_memory_desc_t b_md;
    dnnl_dims_t bd = {ly->out_c};
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_f32, dnnl_a));
    CHECK_DNNL(dnnl_memory_create(&L->w_user, wu_md, c->eng, c->params + tw->offset));
    CHECK_DNNL(dnnl_memory_create(&L->b_user, &b_md, c->eng, c->params + tb->offset));
    CHECK_DNNL(dnnl_memory_create(&L->dw_user, wu_md, c->eng, c->grads + tw->offset));
    CHECK_DNNL(dnnl_memory_create(&L->db_user, &b_md, c->eng, c->grads + tb->offset));
cleanup:
    return rc;
}

static const dnnl_memory_desc_t *qmd(const cprim *p, dnnl_query_t q) {
    return dnnl_primitive_desc_query_md(p->pd, q, 0);
}

/* oneDNN 2.6 has no JIT backward-weights kernel for AVX2 that reads a
 * 1-channel image in NCHW next to an nChw8c gradient: it falls back to
 * ref:any, measured at ~450 ms for conv1 at batch 64 on a 2-core AMD EPYC
 * without AVX-512 (the whole training step ~10 ms on AVX-512 machines,
 * where jit:avx512_core takes NCHW).  Its AVX2 kernel takes the input as
 * nChw8c: when the first choice is a reference kernel and one with the
 * input in a layout of the library's choosing is not, backward-weights
 * gets its own copy of the input in that layout, refilled by a reorder
 * before each use (a copy with zero padding channels: no arithmetic).
 * The sums of dW are then the JIT kernel's order instead of the reference
 * kernel's: an implementation choice, as every other layout choice here.
 * AVX-512 machines keep their first choice, so their results do not move. */
static int bwd_w_own_src(cpu_ctx *c, player *L, dnnl_alg_kind_t alg, const dnnl_memory_desc_t *smd,
                         const dnnl_memory_desc_t *w_md, const dnnl_memory_desc_t *b_md, const dnnl_dims_t st,
                         const dnnl_dims_t pad) {
    int rc = 0;
    const char *first = NULL;
    if (dnnl_primitive_desc_query(L->bwd_w.pd, dnnl_query_impl_info_str, 0, &first) != dnnl_success || !first || strncmp(first, "ref", 3) != 0 || smd->ndims != 4) return 0;
    dnnl_memory_desc_t any;
    dnnl_convolution_desc_t bwd;
    dnnl_primitive_desc_t pd = NULL;
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&any, 4, smd->dims, dnnl_f32, dnnl_format_tag_any));
    CHECK_DNNL(dnnl_convolution_backward_weights_desc_init(&bwd, alg, &any, w_md, b_md, &L->md, st, pad, pad));
    if (dnnl_primitive_desc_create(&pd, &bwd, c->attr, c->eng, L->fwd.pd) != dnnl_success) return 0;
    const char *alt = NULL;
    const dnnl_memory_desc_t *amd = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &alt) != dnnl_success || !alt ||
        strncmp(alt, "ref", 3) == 0 || !amd || dnnl_memory_desc_equal(amd, smd)) {
        dnnl_primitive_desc_destroy(pd);
        return 0;
    }
    L->bw_src_buf = alloc_aligned(dnnl_memory_desc_get_size(amd));
    if (!L->bw_src_buf) {
        dnnl_primitive_desc_destroy(pd);
        return LS_ENOMEM;
    }
    CHECK_DNNL(dnnl_memory_create(&L->bw_src, amd, c->eng, L->bw_src_buf));
    if ((rc = make_reorder(c, &L->bw_src_reo, smd, amd))) goto cleanup;
    dnnl_primitive_desc_destroy(L->bwd_w.pd);
    L->bwd_w.pd = pd;
    pd = NULL;
cleanup:
    if (pd) dnnl_primitive_desc_destroy(pd);
    return rc;
}

/* Convolution (k x k, stride 1, pad p, bias) or inner product (bias):
 * forward, backward-weights (with the bias gradient) and, unless the input
 * is the image, backward-data. */
static int build_linear(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *smd) {
    int rc = 0;
    const layer *ly = &c->m->layers[l];
    player *L = &P->L[l];
    int conv = ly->kind == LAYER_CONV;
    dnnl_dim_t n = (dnnl_dim_t)P->n;
    dnnl_memory_desc_t w_md, wu_md, b_md, d_md;
    dnnl_dims_t wd, bd = {ly->out_c}, st = {1, 1}, pad = {ly->pad, ly->pad};
    int wnd;
    if (conv) {
        wnd = 4;
        wd[0] = ly->out_c; wd[1] = ly->in_c; wd[2] = ly->k; wd[3] = ly->k;
        dnnl_dims_t dd = {n, ly->out_c, ly->out_h, ly->out_w};
        CHECK_DNNL(dnnl_memory_desc_init_by_tag(&d_md, 4, dd, dnnl_f32, c->blocked ? dnnl_format_tag_any : dnnl_nchw));
    } else {
        /* the inner product reads its input in whatever shape it comes
         * (N,C,H,W or N,F); weights (out, in) are OIHW of the same C,H,W */
        wnd = smd->ndims;
        wd[0] = ly->out_c;
        for (int i = 1; i < wnd; i++) wd[i] = smd->dims[i];
        dnnl_dims_t dd = {n, ly->out_c};
        CHECK_DNNL(dnnl_memory_desc_init_by_tag(&d_md, 2, dd, dnnl_f32, dnnl_ab)); /* logits stay plain */
    }
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&wu_md, wnd, wd, dnnl_f32, plain_tag(wnd)));
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&w_md, wnd, wd, dnnl_f32, c->blocked ? dnnl_format_tag_any : plain_tag(wnd)));
    if (!conv && c->blocked && wnd == 4) {
        /* weights (out, C, H, W) in the channel blocking of the 4-D input
         * (nChw16c after a blocked convolution): the gemm inner product then
         * takes them as they are in all three passes, forward and
         * backward-data share one reordered copy, and the reorders from and
         * to the flat buffer are simple ones.  format_tag_any picks
         * BcdA16b64a for forward and backward-weights: SmallCNN's fc1 took
         * ~1.75 ms a step that way at batch 256, ~1.2 ms this way.  The sum
         * order of the forward changes with it (bits, not the algorithm).
         * Falls through to format_tag_any when the input's layout is none
         * of these. */
        static const dnnl_format_tag_t tags[] = {dnnl_aBcd16b, dnnl_aBcd8b, dnnl_acdb, dnnl_abcd};
        for (size_t i = 0; i < LS_ARRAY_LEN(tags); i++) {
            dnnl_memory_desc_t t;
            CHECK_DNNL(dnnl_memory_desc_init_by_tag(&t, 4, smd->dims, dnnl_f32, tags[i]));
            if (dnnl_memory_desc_equal(&t, smd)) {
                CHECK_DNNL(dnnl_memory_desc_init_by_tag(&w_md, wnd, wd, dnnl_f32, tags[i]));
                break;
            }
        }
    }
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_f32, dnnl_a));
    rc = bind_params(c, L, ly, &wu_md);
    if (rc) return rc;

    if (conv) {
        dnnl_alg_kind_t alg = c->alg;
        dnnl_convolution_desc_t fd, bdd, bwd;
        CHECK_DNNL(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, alg, smd, &w_md, &b_md, &d_md,
                                                      st, pad, pad));
        if (alg == dnnl_convolution_winograd &&
            dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL) != dnnl_success) {
            /* Winograd covers only some shapes (not 1-channel inputs, say):
             * this layer runs direct, and describe() says so */
            L->fwd.pd = NULL;
            alg = dnnl_convolution_direct;
            snprintf(L->alg, sizeof L->alg, "direct (winograd unimplemented here)");
            CHECK_DNNL(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, alg, smd, &w_md, &b_md,
                                                          &d_md, st, pad, pad));
        }
        if (!L->fwd.pd) CHECK_DNNL(dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL));
        rc = set_layout(c, P, l, qmd(&L->fwd, dnnl_query_dst_md));
        if (rc) return rc;
        CHECK_DNNL(dnnl_convolution_backward_weights_desc_init(&bwd, alg, smd, &w_md, &b_md, &L->md, st, pad, pad));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_w.pd, &bwd, c->attr, c->eng, L->fwd.pd));
        if (c->blocked && (rc = bwd_w_own_src(c, L, alg, smd, &w_md, &b_md, st, pad))) return rc;
        if (L->need_dsrc) {
            CHECK_DNNL(dnnl_convolution_backward_data_desc_init(&bdd, alg, smd, &w_md, &L->md, st, pad, pad));
            CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_data.pd, &bdd, c->attr, c->eng, L->fwd.pd));
        }
    } else {
        dnnl_inner_product_desc_t fd, bdd, bwd;
        CHECK_DNNL(dnnl_inner_product_forward_desc_init(&fd, dnnl_forward_training, smd, &w_md, &b_md, &d_md));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL));
        rc = set_layout(c, P, l, qmd(&L->fwd, dnnl_query_dst_md));
        if (rc) return rc;
        CHECK_DNNL(dnnl_inner_product_backward_weights_desc_init(&bwd, smd, &w_md, &b_md, &L->md));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_w.pd, &bwd, c->attr, c->eng, L->fwd.pd));
        if (L->need_dsrc) {
            CHECK_DNNL(dnnl_inner_product_backward_data_desc_init(&bdd, smd, &w_md, &L->md));
            CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_data.pd, &bdd, c->attr, c->eng, L->fwd.pd));
        }
    }
    if ((rc = cprim_finish(c, &L->fwd)) || (rc = cprim_finish(c, &L->bwd_w))) return rc;
    if ((rc = warg_bind(c, &L->w_fwd, qmd(&L->fwd, dnnl_query_weights_md), L->w_user, 0))) return rc;
    if ((rc = warg_bind(c, &L->dw, qmd(&L->bwd_w, dnnl_query_diff_weights_md), L->dw_user, 1))) return rc;
    if (L->need_dsrc) {
        if ((rc = cprim_finish(c, &L->bwd_data))) return rc;
        /* one reordered copy serves both when the layouts agree (w_bwd unbound) */
        const dnnl_memory_desc_t *bwm = qmd(&L->bwd_data, dnnl_query_weights_md);
        if (!dnnl_memory_desc_equal(bwm, qmd(&L->fwd, dnnl_query_weights_md)))
            rc = warg_bind(c, &L->w_bwd, bwm, L->w_user, 0);
    }
cleanup:
    return rc;
}

/* ---- reduced-precision twins: tf32=on, dtype=bf16 ------------------------ */

/* Slot k of layer l on the engine's lowp buffer, in layout `md`. */
static int lowp_slot(cpu_ctx *c, player *L, int l, int k, const dnnl_memory_desc_t *md) {
    return bind_buf(c, &c->lp_buf[l][k], &c->lp_cap[l][k], md, &L->lp_mem[k], "reduced-precision copy", l);
}

/* tf32=on, after build_linear: slots for the rounded copies (the layouts of
 * the originals), and a plain copy of dy for the bias gradient when dy is
 * blocked (oneDNN 2.6's reduction primitive runs its reference code on
 * nChw16c: ~30 ms a step for conv1 at batch 256; a reorder and a loop are
 * ~1 ms). */
static int lowp_bind_tf32(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *smd) {
    int rc;
    player *L = &P->L[l];
    if ((rc = lowp_slot(c, L, l, LP_SRC, smd)) || (rc = lowp_slot(c, L, l, LP_DY, &L->md)) ||
        (rc = lowp_slot(c, L, l, LP_W, qmd(&L->fwd, dnnl_query_weights_md))))
        return rc;
    if (L->need_dsrc && (rc = lowp_slot(c, L, l, LP_WB, qmd(&L->bwd_data, dnnl_query_weights_md)))) return rc;
    if (L->is_plain) return 0;
    if ((rc = lowp_slot(c, L, l, LP_DY_D, &L->plain_md))) return rc;
    return make_reorder(c, &L->lp_reo[LP_DY_D], &L->md, &L->plain_md);
}

/* tf32=on: db[o] = sum over samples and positions of the unrounded dy, in
 * fp32, samples then positions in order, one channel per thread (the same
 * bits whatever the thread count).  It replaces the sum the
 * backward-weights primitive formed from the rounded dy: cuDNN's and
 * PyTorch's bias gradient is an fp32 reduction, not a tensor-core product. */
static int lowp_bias_grad(cpu_ctx *c, plan *P, int l) {
    player *L = &P->L[l];
    const layer *ly = &c->m->layers[l];
    const float *dy = c->dact_buf[l];
    if (!L->is_plain) {
        int rc = reorder(c, L->lp_reo[LP_DY_D], L->dact, L->lp_mem[LP_DY_D]);
        if (rc) return rc;
        dy = c->lp_buf[l][LP_DY_D];
    }
    ptrdiff_t oc = ly->out_c;
    size_t n = P->n, pos = layer_out_size(ly) / (size_t)ly->out_c;
    float *db = c->grads + c->m->tensors[ly->b_tensor].offset;
#pragma omp parallel for schedule(static)
    for (ptrdiff_t o = 0; o < oc; o++) {
        float acc = 0.0f;
        for (size_t i = 0; i < n; i++) {
            const float *r = dy + (i * (size_t)oc + (size_t)o) * pos;
            for (size_t p = 0; p < pos; p++) acc += r[p];
        }
        db[o] = acc;
    }
    return 0;
}

/* dtype=bf16: build_linear with oneDNN's bf16 primitives.  src, weights and
 * diff_dst bf16; dst, bias, diff_src, diff_weights and diff_bias f32 (the
 * activations and gradients the other layers and Adam read stay fp32).
 * Convolutions run direct whatever algo says (describe() notes it). */
static int build_linear_bf16(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *smd) {
    int rc = 0;
    const layer *ly = &c->m->layers[l];
    player *L = &P->L[l];
    int conv = ly->kind == LAYER_CONV;
    dnnl_dim_t n = (dnnl_dim_t)P->n;
    dnnl_memory_desc_t s_bf, w_bf, wu_md, dw_md, b_md, d_md, dy_bf;
    dnnl_dims_t wd, bd = {ly->out_c}, st = {1, 1}, pad = {ly->pad, ly->pad};
    int wnd = conv ? 4 : smd->ndims;
    wd[0] = ly->out_c;
    if (conv) {
        wd[1] = ly->in_c; wd[2] = ly->k; wd[3] = ly->k;
        dnnl_dims_t dd = {n, ly->out_c, ly->out_h, ly->out_w};
        CHECK_DNNL(dnnl_memory_desc_init_by_tag(&d_md, 4, dd, dnnl_f32, c->blocked ? dnnl_format_tag_any : dnnl_nchw));
    } else {
        for (int i = 1; i < wnd; i++) wd[i] = smd->dims[i];
        dnnl_dims_t dd = {n, ly->out_c};
        CHECK_DNNL(dnnl_memory_desc_init_by_tag(&d_md, 2, dd, dnnl_f32, dnnl_ab));
    }
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&s_bf, smd->ndims, smd->dims, dnnl_bf16, dnnl_format_tag_any));
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&wu_md, wnd, wd, dnnl_f32, plain_tag(wnd)));
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&w_bf, wnd, wd, dnnl_bf16, dnnl_format_tag_any));
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&dw_md, wnd, wd, dnnl_f32, dnnl_format_tag_any));
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_f32, dnnl_a));
    if ((rc = bind_params(c, L, ly, &wu_md))) return rc;
    if (conv) {
        dnnl_convolution_desc_t fd, bdd, bwd;
        if (c->alg != dnnl_convolution_direct) snprintf(L->alg, sizeof L->alg, "direct (dtype=bf16)");
        CHECK_DNNL(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &s_bf, &w_bf,
                                                      &b_md, &d_md, st, pad, pad));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL));
        if ((rc = set_layout(c, P, l, qmd(&L->fwd, dnnl_query_dst_md)))) return rc;
        CHECK_DNNL(dnnl_memory_desc_init_by_tag(&dy_bf, 4, L->md.dims, dnnl_bf16, dnnl_format_tag_any));
        CHECK_DNNL(dnnl_convolution_backward_weights_desc_init(&bwd, dnnl_convolution_direct, &s_bf, &dw_md, &b_md,
                                                               &dy_bf, st, pad, pad));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_w.pd, &bwd, c->attr, c->eng, L->fwd.pd));
        if (L->need_dsrc) {
            CHECK_DNNL(dnnl_convolution_backward_data_desc_init(&bdd, dnnl_convolution_direct, smd, &w_bf, &dy_bf, st,
                                                                pad, pad));
            CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_data.pd, &bdd, c->attr, c->eng, L->fwd.pd));
        }
    } else {
        dnnl_inner_product_desc_t fd, bdd, bwd;
        CHECK_DNNL(dnnl_inner_product_forward_desc_init(&fd, dnnl_forward_training, &s_bf, &w_bf, &b_md, &d_md));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL));
        if ((rc = set_layout(c, P, l, qmd(&L->fwd, dnnl_query_dst_md)))) return rc;
        CHECK_DNNL(dnnl_memory_desc_init_by_tag(&dy_bf, 2, L->md.dims, dnnl_bf16, dnnl_format_tag_any));
        CHECK_DNNL(dnnl_inner_product_backward_weights_desc_init(&bwd, &s_bf, &dw_md, &b_md, &dy_bf));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_w.pd, &bwd, c->attr, c->eng, L->fwd.pd));
        if (L->need_dsrc) {
            CHECK_DNNL(dnnl_inner_product_backward_data_desc_init(&bdd, smd, &w_bf, &dy_bf));
            CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_data.pd, &bdd, c->attr, c->eng, L->fwd.pd));
        }
    }
    if ((rc = cprim_finish(c, &L->fwd)) || (rc = cprim_finish(c, &L->bwd_w))) return rc;
    /* weights: the warg reorder converts the flat fp32 master copy to bf16
     * in the primitive's layout, once per parameter change */
    if ((rc = warg_bind(c, &L->w_fwd, qmd(&L->fwd, dnnl_query_weights_md), L->w_user, 0))) return rc;
    if ((rc = warg_bind(c, &L->dw, qmd(&L->bwd_w, dnnl_query_diff_weights_md), L->dw_user, 1))) return rc;
    /* activations and dy: a bf16 copy per primitive, filled by reorder */
    const dnnl_memory_desc_t *ms[4] = {qmd(&L->fwd, dnnl_query_src_md), qmd(&L->bwd_w, dnnl_query_src_md),
                                       qmd(&L->bwd_w, dnnl_query_diff_dst_md), NULL};
    const dnnl_memory_desc_t *from[4] = {smd, smd, &L->md, &L->md};
    if (L->need_dsrc) {
        if ((rc = cprim_finish(c, &L->bwd_data))) return rc;
        const dnnl_memory_desc_t *bwm = qmd(&L->bwd_data, dnnl_query_weights_md);
        if (!dnnl_memory_desc_equal(bwm, qmd(&L->fwd, dnnl_query_weights_md)) &&
            (rc = warg_bind(c, &L->w_bwd, bwm, L->w_user, 0)))
            return rc;
        ms[3] = qmd(&L->bwd_data, dnnl_query_diff_dst_md);
    }
    for (int k = LP_SRC; k <= LP_DY_D; k++) {
        if (!ms[k]) continue;
        if ((rc = lowp_slot(c, L, l, k, ms[k])) || (rc = make_reorder(c, &L->lp_reo[k], from[k], ms[k]))) return rc;
    }
cleanup:
    return rc;
}

/* Slot k := the reduced-precision copy of `from` (fp32): bf16 by the
 * slot's reorder, tf32 by rounding element by element in the same layout
 * (a blocked layout's padding is zeros and rounds to zeros). */
static int lowp_fill(cpu_ctx *c, player *L, int l, int k, dnnl_memory_t from) {
    int rc = 0;
    if (c->bf16) return reorder(c, L->lp_reo[k], from, L->lp_mem[k]);
    void *src;
    const dnnl_memory_desc_t *md;
    CHECK_DNNL(dnnl_memory_get_data_handle(from, &src));
    CHECK_DNNL(dnnl_memory_get_memory_desc(L->lp_mem[k], &md));
    lowp_round_tf32_array(c->lp_buf[l][k], src, dnnl_memory_desc_get_size(md) / sizeof(float), c->tf32_mode);
cleanup:
    return rc;
}

/* Forward of a conv / dense layer on reduced-precision operands. */
static int lowp_linear_fwd(cpu_ctx *c, plan *P, int l, dnnl_memory_t sact) {
    player *L = &P->L[l];
    int rc = warg_refresh(c, &L->w_fwd, L->w_user);
    dnnl_memory_t w = L->w_fwd.mem;
    if (rc || (rc = lowp_fill(c, L, l, LP_SRC, sact))) return rc;
    if (c->tf32) {
        if ((rc = lowp_fill(c, L, l, LP_W, w))) return rc;
        w = L->lp_mem[LP_W];
    }
    dnnl_exec_arg_t a[5] = {{DNNL_ARG_SRC, L->lp_mem[LP_SRC]}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, L->b_user},
                            {DNNL_ARG_DST, L->act}};
    return exec(c, &L->fwd, 4, a);
}

/* backward-weights' input: *src, or, where bwd_w_own_src gave the kernel
 * its own layout, *src copied into it (the copy then replaces *src) */
static int bwd_w_src(cpu_ctx *c, player *L, dnnl_memory_t *src) {
    if (!L->bw_src_reo) return 0;
    int rc = reorder(c, L->bw_src_reo, *src, L->bw_src);
    if (!rc) *src = L->bw_src;
    return rc;
}

/* Backward (weights, bias, and data unless the input is the image). */
static int lowp_linear_bwd(cpu_ctx *c, plan *P, int l, dnnl_memory_t sact, dnnl_memory_t sdact) {
    player *L = &P->L[l];
    int ks = c->bf16 ? LP_SRC_W : LP_SRC, kd = c->bf16 ? LP_DY_D : LP_DY, rc;
    if ((rc = lowp_fill(c, L, l, ks, sact)) || (rc = lowp_fill(c, L, l, LP_DY, L->dact))) return rc;
    dnnl_memory_t bsrc = L->lp_mem[ks];
    if ((rc = bwd_w_src(c, L, &bsrc))) return rc; /* tf32 on AVX2: the rounded input, in the kernel's layout */
    dnnl_exec_arg_t a[5] = {{DNNL_ARG_SRC, bsrc}, {DNNL_ARG_DIFF_DST, L->lp_mem[LP_DY]},
                            {DNNL_ARG_DIFF_WEIGHTS, L->dw.mem}, {DNNL_ARG_DIFF_BIAS, L->db_user}};
    if ((rc = exec(c, &L->bwd_w, 4, a))) return rc;
    if (L->dw.reorder && (rc = reorder(c, L->dw.reorder, L->dw.mem, L->dw_user))) return rc;
    if (c->tf32 && (rc = lowp_bias_grad(c, P, l))) return rc;
    if (!L->need_dsrc) return 0;
    warg *wb = L->w_bwd.mem ? &L->w_bwd : &L->w_fwd;
    if ((rc = warg_refresh(c, wb, L->w_user))) return rc;
    dnnl_memory_t w = wb->mem;
    if (c->tf32) {
        if ((rc = lowp_fill(c, L, l, LP_WB, w))) return rc;
        w = L->lp_mem[LP_WB];
    } else if ((rc = lowp_fill(c, L, l, kd, L->dact))) {
        return rc;
    }
    a[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, L->lp_mem[kd]};
    a[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, w};
    a[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, sdact};
    return exec(c, &L->bwd_data, 3, a);
}

static int build_relu(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *smd) {
    int rc = 0;
    player *L = &P->L[l];
    dnnl_eltwise_desc_t fd, bd;
    CHECK_DNNL(dnnl_eltwise_forward_desc_init(&fd, dnnl_forward_training, dnnl_eltwise_relu, smd, 0.0f, 0.0f));
    CHECK_DNNL(dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL));
    if ((rc = set_layout(c, P, l, qmd(&L->fwd, dnnl_query_dst_md))) || (rc = cprim_finish(c, &L->fwd))) return rc;
    if (L->need_dsrc) {
        /* dx = dy where x > 0, else 0 (x = the ReLU's input) */
        CHECK_DNNL(dnnl_eltwise_backward_desc_init(&bd, dnnl_eltwise_relu, smd, smd, 0.0f, 0.0f));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_data.pd, &bd, c->attr, c->eng, L->fwd.pd));
        rc = cprim_finish(c, &L->bwd_data);
    }
cleanup:
    return rc;
}

static int build_pool(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *smd) {
    int rc = 0;
    const layer *ly = &c->m->layers[l];
    player *L = &P->L[l];
    dnnl_dims_t dd = {(dnnl_dim_t)P->n, ly->out_c, ly->out_h, ly->out_w}, k = {2, 2}, st = {2, 2}, pad = {0, 0};
    /* floor mode: an odd last row or column is simply never read; oneDNN's
     * shape check (in - 2) / 2 + 1 == out divides with truncation too */
    dnnl_dims_t pad_r = {0, 0};
    dnnl_memory_desc_t d_md;
    dnnl_pooling_desc_t fd, bd;
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&d_md, 4, dd, dnnl_f32, c->blocked ? dnnl_format_tag_any : dnnl_nchw));
    CHECK_DNNL(dnnl_pooling_forward_desc_init(&fd, dnnl_forward_training, dnnl_pooling_max, smd, &d_md, st, k, pad,
                                              pad_r));
    CHECK_DNNL(dnnl_primitive_desc_create(&L->fwd.pd, &fd, c->attr, c->eng, NULL));
    if ((rc = set_layout(c, P, l, qmd(&L->fwd, dnnl_query_dst_md))) || (rc = cprim_finish(c, &L->fwd))) return rc;
    rc = bind_buf(c, &c->ws_buf[l], &c->ws_cap[l], qmd(&L->fwd, dnnl_query_workspace_md), &L->ws, "workspace", l);
    if (rc) return rc;
    if (L->need_dsrc) {
        CHECK_DNNL(dnnl_pooling_backward_desc_init(&bd, dnnl_pooling_max, smd, &L->md, st, k, pad, pad_r));
        CHECK_DNNL(dnnl_primitive_desc_create(&L->bwd_data.pd, &bd, c->attr, c->eng, L->fwd.pd));
        rc = cprim_finish(c, &L->bwd_data);
    }
cleanup:
    return rc;
}

/* Dropout keeps plain (n, size) order, the order its mask is keyed by. */
static int build_dropout(cpu_ctx *c, plan *P, int l, const dnnl_memory_desc_t *smd) {
    int rc = 0;
    player *L = &P->L[l];
    dnnl_memory_desc_t pmd;
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&pmd, smd->ndims, smd->dims, dnnl_f32, plain_tag(smd->ndims)));
    if ((rc = set_layout(c, P, l, &pmd))) return rc;
    if (L->need_dsrc && !P->L[l - 1].is_plain) {
        if (c->plain_cap < dnnl_memory_desc_get_size(&pmd))
            return ls_err(LS_ELIB, "cpu: layer %d: dropout scratch too small", l);
        CHECK_DNNL(dnnl_memory_create(&L->tmp_plain, &pmd, c->eng, c->plain_buf));
    }
cleanup:
    return rc;
}

/* The channel block of a 4-D activation layout: 16 or 8 for nChw16c /
 * nChw8c, 1 for plain NCHW, 0 for anything cpu_pool.c does not walk. */
static size_t md_block(const dnnl_memory_desc_t *md) {
    static const struct {
        dnnl_format_tag_t tag;
        size_t blk;
    } tags[] = {{dnnl_nChw16c, 16}, {dnnl_nChw8c, 8}, {dnnl_nchw, 1}};
    if (md->ndims != 4 || md->data_type != dnnl_f32) return 0;
    for (size_t i = 0; i < LS_ARRAY_LEN(tags); i++) {
        dnnl_memory_desc_t t;
        if (dnnl_memory_desc_init_by_tag(&t, 4, md->dims, dnnl_f32, tags[i].tag) == dnnl_success &&
            dnnl_memory_desc_equal(&t, md))
            return tags[i].blk;
    }
    return 0;
}

/* Mark the ReLU + max-pool pairs this plan runs fused: both activations in
 * the same nChw{16,8}c or NCHW layout.  The arg-max buffer is sized by the
 * first (max_batch) plan; a pair that would not fit stays separate. */
static int plan_fuse(cpu_ctx *c, plan *P) {
    const model *m = c->m;
    for (int l = 0; l + 1 < m->n_layers; l++) {
        const layer *q = &m->layers[l + 1];
        if (m->layers[l].kind != LAYER_RELU || q->kind != LAYER_MAXPOOL) continue;
        player *R = &P->L[l], *Q = &P->L[l + 1];
        size_t blk = md_block(&R->md);
        if (!blk || md_block(&Q->md) != blk) continue;
        cpu_pool_geom g = {P->n, ((size_t)q->out_c + blk - 1) / blk, blk, (size_t)R->md.dims[2],
                           (size_t)R->md.dims[3], (size_t)q->out_h, (size_t)q->out_w};
        if (g.oh != g.h / 2 || g.ow != g.w / 2) continue;
        size_t need = g.n * g.cb * g.blk * g.oh * g.ow;
        if (!c->pidx[l + 1]) {
            c->pidx[l + 1] = alloc_aligned(need);
            if (!c->pidx[l + 1]) return LS_ENOMEM;
            c->pidx_cap[l + 1] = need;
        } else if (need > c->pidx_cap[l + 1]) {
            continue;
        }
        Q->pg = g;
        R->fused = Q->fused = 1;
    }
    return 0;
}

static int plan_build(cpu_ctx *c, plan *P, size_t n) {
    int rc = 0;
    const model *m = c->m;
    P->n = n;
    omp_set_num_threads(c->threads);
    dnnl_dims_t id = {(dnnl_dim_t)n, m->in_c, m->in_h, m->in_w};
    CHECK_DNNL(dnnl_memory_desc_init_by_tag(&P->in_md, 4, id, dnnl_f32, dnnl_nchw));
    CHECK_DNNL(dnnl_memory_create(&P->input, &P->in_md, c->eng, c->x));
    for (int l = 0; l < m->n_layers && rc == 0; l++) {
        player *L = &P->L[l];
        L->need_dsrc = l > 0 && P->L[l - 1].dact != NULL;
        const dnnl_memory_desc_t *smd = l ? &P->L[l - 1].md : &P->in_md;
        switch (m->layers[l].kind) {
        case LAYER_CONV:
        case LAYER_DENSE:
            rc = c->bf16 ? build_linear_bf16(c, P, l, smd) : build_linear(c, P, l, smd);
            if (rc == 0 && c->tf32) rc = lowp_bind_tf32(c, P, l, smd);
            break;
        case LAYER_RELU: rc = build_relu(c, P, l, smd); break;
        case LAYER_MAXPOOL: rc = build_pool(c, P, l, smd); break;
        case LAYER_DROPOUT: rc = build_dropout(c, P, l, smd); break;
        case LAYER_FLATTEN:
            /* a no-op: the same memory, read as (n, features) by whoever
             * comes next (the inner product takes 4-D input directly) */
            L->alias = 1;
            if (l > 0) {
                player *S = &P->L[l - 1];
                L->md = S->md; L->plain_md = S->plain_md; L->is_plain = S->is_plain;
                L->act = S->act; L->dact = S->dact; L->user = S->user;
                L->to_plain = S->to_plain; L->from_plain = S->from_plain;
            } else {
                L->md = L->plain_md = P->in_md;
                L->is_plain = 1;
                L->act = P->input;
            }
            break;
        }
    }
    if (rc == 0 && c->fuse) rc = plan_fuse(c, P);
cleanup:
    return rc;
}

/* The plan for batch size n: cached, or built (evicting the least recently
 * used one, never the max_batch plan in slot 0). */
static int plan_get(cpu_ctx *c, size_t n, plan **out) {
    int rc;
    for (int i = 0; i < c->n_plans; i++)
        if (c->plans[i].n == n) {
            *out = &c->plans[i];
            return 0;
        }
    int k;
    if (c->n_plans < PLAN_MAX) {
        k = c->n_plans++;
    } else {
        k = 1;
        for (int i = 2; i < PLAN_MAX; i++)
            if (c->plans[i].last_used < c->plans[k].last_used) k = i;
        if (c->cur == &c->plans[k]) c->cur = NULL;
        plan_free(&c->plans[k]);
    }
    rc = plan_build(c, &c->plans[k], n);
    if (rc) {
        plan_free(&c->plans[k]);
        if (k == c->n_plans - 1) c->n_plans--;
        else c->plans[k].n = 0; /* an empty slot; never matches a batch size */
        return rc;
    }
    *out = &c->plans[k];
    return 0;
}

/* ---- the engine table ------------------------------------------------------ */

#if LS_FAULTS
static int z17_pool_fault(const cpu_ctx *c, int cur);
#endif

static cpu_ctx *ctx_of(engine *e) {
    cpu_ctx *c = e->ctx;
    omp_set_num_threads(c->threads); /* oneDNN and our loops both read it */
    CPU_FAULT_ONLY(cpu_fault_cur = c->fault ? *(int *)c->fault : 0;)
    CPU_FAULT_ONLY(cpu_fault_cur = z17_pool_fault(c, cpu_fault_cur);) /* zoo attack 17: a repeat's second copy */
    CPU_FAULT_ONLY(cpu_fault_step = c->step;) /* zoo attack 13: the per-plane pool faults keyed on a step */
    return c;
}

static int need_batch(cpu_ctx *c) {
    return c->cur ? 0 : ls_err(LS_EINVAL, "cpu: no batch set (call set_batch first)");
}

/* ---- fused ReLU + max-pool: writing the lazy tensors (see cpu_ctx) -------- */

/* Layer l through FLATTEN aliases to the layer that owns its buffers;
 * -1 is the image. */
static int owner(const plan *P, int l) {
    while (l >= 0 && P->L[l].alias) l--;
    return l;
}

static int is_fused(const cpu_ctx *c, int l, layer_kind k) {
    return l >= 0 && l < c->m->n_layers && c->cur->L[l].fused && c->m->layers[l].kind == k;
}

/* ACT[r] = relu(ACT[r-1]) by the oneDNN primitive a separate ReLU runs. */
static int act_materialize(cpu_ctx *c, int r) {
    if (!c->act_lazy[r]) return 0;
    plan *P = c->cur;
    dnnl_exec_arg_t a[3] = {{DNNL_ARG_SRC, r ? P->L[r - 1].act : P->input}, {DNNL_ARG_DST, P->L[r].act}};
    int rc = exec(c, &P->L[r].fwd, 2, a);
    if (rc == 0) c->act_lazy[r] = 0;
    return rc;
}

/* DACT[r] = max-pool backward of DACT[r+1] (the pool's own gradient). */
static int dact_materialize(cpu_ctx *c, int r) {
    if (!c->dact_lazy[r]) return 0;
    cpu_pool_bwd(c->dact_buf[r], c->dact_buf[r + 1], c->pidx[r + 1], 0, &c->cur->L[r + 1].pg);
    c->dact_lazy[r] = 0;
    return 0;
}

/* ACT of owner b (-1: the image) is about to change.  From set_tensor
 * (materialize != 0) a lazy ReLU of it is written first, so it keeps the
 * value it had; either way the pool's pass bits no longer describe it, and
 * a written ReLU ACT no longer follows the rule (a lazy one does: the
 * liberty above). */
static int before_act_write(cpu_ctx *c, int b, int materialize) {
    for (int r = 0; r < c->m->n_layers; r++) {
        if (!is_fused(c, r, LAYER_RELU) || owner(c->cur, r - 1) != b) continue;
        int rc = materialize ? act_materialize(c, r) : 0;
        if (rc) return rc;
        if (!c->act_lazy[r]) c->act_rule[r] = 0;
        c->mask_ok[r + 1] = 0;
    }
    return 0;
}

/* DACT of owner b is about to be set: a lazy ReLU gradient made from it is
 * written first, and no longer follows its rule. */
static int before_dact_write(cpu_ctx *c, int b) {
    if (!is_fused(c, b, LAYER_MAXPOOL)) return 0;
    c->dact_rule[b - 1] = 0;
    return dact_materialize(c, b - 1);
}

static int act_io(cpu_ctx *c, int l, int grad, float *user, int to_user);

/* Whether `in` (plain) is, bit for bit, ACT (grad 0) or DACT (grad 1) of
 * the fused ReLU r as its rule defines it now; writes the lazy tensor to
 * read it.  A NaN payload or a -0 the rule would not give is a difference:
 * the training kernel is used only for exactly the values it would make. */
static int rule_holds(cpu_ctx *c, int r, int grad, const float *in, int *holds) {
    *holds = 0;
    if (!(grad ? c->dact_rule[r] : c->act_rule[r])) return 0;
    int rc = grad ? dact_materialize(c, r) : act_materialize(c, r);
    size_t bytes = md_floats(&c->cur->L[r].md) * sizeof(float);
    if (rc || bytes > c->check_cap) return rc;
    if ((rc = act_io(c, r, grad, c->check_buf, 1))) return rc;
    *holds = memcmp(c->check_buf, in, bytes) == 0;
    return 0;
}

/* engine_i.ck_fused: ReLU r's ACT (and with `backward` its DACT) is
 * unwritten and follows its rule, and the pool's backward ran from the
 * pass bits (mask_ok): the pair's outputs are the fused pass's alone. */
static int cpu_ck_fused(engine *e, int r, int backward) {
    cpu_ctx *c = ctx_of(e);
    if (!c->cur || !is_fused(c, r, LAYER_RELU) || !c->act_lazy[r] || !c->act_rule[r]) return 0;
    return !backward || (c->dact_lazy[r] && c->dact_rule[r] && c->mask_ok[r + 1]);
}

/* engine_i.ck_view: the buffer a conv or max-pool layer's ACT/DACT lives
 * in, when its layout is plain NCHW or exactly nChw16c (C a multiple of
 * 16, so no padding); not for the image, aliases (FLATTEN), ReLUs (lazy
 * when fused) or any other layout. */
static void cpu_ck_view(engine *e, tensor_id t, const float **ptr, int *cblock) {
    cpu_ctx *c = ctx_of(e);
    *ptr = NULL, *cblock = 0;
    if (!c->cur || (t.kind != TENSOR_ACT && t.kind != TENSOR_DACT) || t.layer < 0 || t.layer >= c->m->n_layers) return;
    const player *L = &c->cur->L[t.layer];
    layer_kind k = c->m->layers[t.layer].kind;
    if (L->alias || (k != LAYER_CONV && k != LAYER_MAXPOOL) || L->md.ndims != 4) return;
    if (t.kind == TENSOR_DACT ? !L->dact : !L->act) return;
    int cb = 0;
    if (L->is_plain) cb = 1;
    else {
        dnnl_memory_desc_t b16;
        if (L->md.dims[1] % 16 == 0 &&
            dnnl_memory_desc_init_by_tag(&b16, 4, L->md.dims, dnnl_f32, dnnl_nChw16c) == dnnl_success &&
            dnnl_memory_desc_equal(&b16, &L->md))
            cb = 16;
    }
    if (!cb) return;
    *ptr = t.kind == TENSOR_DACT ? c->dact_buf[t.layer] : c->act_buf[t.layer];
    *cblock = cb;
}

/* Before the current plan is left: every lazy tensor written, by its rules. */
static int materialize_all(cpu_ctx *c) {
    for (int r = 0; r < c->m->n_layers; r++) {
        if (!is_fused(c, r, LAYER_RELU)) continue;
        int rc = act_materialize(c, r);
        if (!rc) rc = dact_materialize(c, r);
        if (rc) return rc;
    }
    memset(c->mask_ok, 0, sizeof c->mask_ok);
    memset(c->act_rule, 0, sizeof c->act_rule);
    memset(c->dact_rule, 0, sizeof c->dact_rule);
    return 0;
}

static int cpu_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    cpu_ctx *c = ctx_of(e);
    plan *P;
    int rc = plan_get(c, n, &P);
    if (rc) return rc;
    if (c->cur && c->cur != P && (rc = materialize_all(c))) return rc;
    if (c->cur == P && (rc = before_act_write(c, -1, 0))) return rc;
    const model *m = c->m;
    memcpy(c->x, x, n * (size_t)m->in_c * m->in_h * m->in_w * sizeof *c->x);
    memcpy(c->labels, labels, n * sizeof *labels);
    c->step = step;
    c->cur = P;
    P->last_used = ++c->clock;
    e->batch = n;
    return 0;
}

static int cpu_forward_layer(engine *e, int l, int training) {
    cpu_ctx *c = ctx_of(e);
    int rc = need_batch(c);
    if (rc) return rc;
    plan *P = c->cur;
    player *L = &P->L[l];
    const layer *ly = &c->m->layers[l];
    dnnl_memory_t sact = l ? P->L[l - 1].act : P->input;
    dnnl_exec_arg_t a[8];
    if (ly->kind != LAYER_FLATTEN && (rc = before_act_write(c, l, 0))) return rc;
    if (L->fused && ly->kind == LAYER_RELU) {
        c->act_lazy[l] = c->act_rule[l] = 1; /* the max-pool after it does the work */
        return 0;
    }
    if (L->fused) {
        /* {N, C, H, W} -> {N, C, H/2, W/2}: the max-pool of relu(ACT[l-2])
         * while the ReLU's ACT follows its rule, else of that ACT as it was
         * set; new arg-maxes: a ReLU gradient made from the old ones no
         * longer follows its rule */
        int rule = c->act_rule[l - 1];
        const float *src = rule ? act_ptr(c, P, l - 2) : c->act_buf[l - 1];
        cpu_pool_fwd(c->act_buf[l], c->pidx[l], src, rule, &L->pg);
        c->mask_ok[l] = (unsigned char)rule;
        c->dact_rule[l - 1] = 0;
        return 0;
    }
    switch (ly->kind) {
    case LAYER_CONV:
    case LAYER_DENSE:
        /* {N, C, H, W} (x) {O, C, k, k} + b -> {N, O, OH, OW}; dense: {N, in} (x) {out, in} + b -> {N, out} */
        if (c->tf32 || c->bf16) return lowp_linear_fwd(c, P, l, sact);
        if ((rc = warg_refresh(c, &L->w_fwd, L->w_user))) return rc;
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, L->w_fwd.mem};
        a[2] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, L->b_user};
        a[3] = (dnnl_exec_arg_t){DNNL_ARG_DST, L->act};
        return exec(c, &L->fwd, 4, a);
    case LAYER_RELU:
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_DST, L->act};
        return exec(c, &L->fwd, 2, a);
    case LAYER_MAXPOOL:
        /* training or not, the same primitive (and so the same bits); the
         * workspace keeps each window's arg-max for the backward pass */
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_DST, L->act};
        a[2] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, L->ws};
        return exec(c, &L->fwd, 3, a);
    case LAYER_FLATTEN: return 0;
    case LAYER_DROPOUT: {
        const player *S = l ? &P->L[l - 1] : NULL;
        const float *src = act_ptr(c, P, l - 1);
        float *dst = c->act_buf[l];
        if (S && !S->is_plain) {
            if ((rc = reorder(c, S->to_plain, S->act, L->act))) return rc;
            src = dst;
        }
        ptrdiff_t cnt = (ptrdiff_t)md_floats(&L->md);
        float p = ly->p, scale = (float)(1.0 / (1.0 - (double)ly->p));
        uint64_t seed = e->seed;
        uint32_t step = (uint32_t)c->step;
#pragma omp parallel for schedule(static)
        for (ptrdiff_t i = 0; i < cnt; i++)
            dst[i] = training ? ops_dropout_fwd(src[i], seed, step, (uint32_t)l, (uint32_t)i, p, scale) : src[i];
        return 0;
    }
    }
    return ls_err(LS_EINVAL, "cpu: layer %d: unknown kind", l);
}

static int cpu_loss(engine *e, float *loss_out) {
    cpu_ctx *c = ctx_of(e);
    int rc = need_batch(c);
    if (rc) return rc;
    plan *P = c->cur;
    int last = c->m->n_layers - 1, nc = c->m->n_classes, portable = c->portable;
    ptrdiff_t n = (ptrdiff_t)P->n;
    const float *z = act_ptr(c, P, last);
    float *dz = dact_ptr(c, P, last); /* the last layer is dense: plain (n, classes) */
    const int32_t *y = c->labels;
    float *rl = c->row_loss;
    float inv_n = 1.0f / (float)n;
#pragma omp parallel for schedule(static)
    for (ptrdiff_t i = 0; i < n; i++)
        rl[i] = ops_softmax_xent_row(z + i * nc, nc, y[i], inv_n, portable, dz + i * nc);
    /* rows summed in order, in double, so the threads cannot change it */
    double acc = 0.0;
    for (ptrdiff_t i = 0; i < n; i++) acc += (double)rl[i];
    c->loss = (float)(acc / (double)n);
    *loss_out = c->loss;
    return 0;
}

static int cpu_backward_layer(engine *e, int l) {
    cpu_ctx *c = ctx_of(e);
    int rc = need_batch(c);
    if (rc) return rc;
    plan *P = c->cur;
    player *L = &P->L[l];
    const layer *ly = &c->m->layers[l];
    dnnl_memory_t sact = l ? P->L[l - 1].act : P->input;
    dnnl_memory_t sdact = l ? P->L[l - 1].dact : NULL;
    dnnl_exec_arg_t a[8];
    switch (ly->kind) {
    case LAYER_CONV:
    case LAYER_DENSE:
        /* GRADS of this layer are overwritten (=, not +=) */
        if (c->tf32 || c->bf16) return lowp_linear_bwd(c, P, l, sact, sdact);
        if ((rc = bwd_w_src(c, L, &sact))) return rc;
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, L->dact};
        a[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS, L->dw.mem};
        a[3] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_BIAS, L->db_user};
        if ((rc = exec(c, &L->bwd_w, 4, a))) return rc;
        if (L->dw.reorder && (rc = reorder(c, L->dw.reorder, L->dw.mem, L->dw_user))) return rc;
        if (!L->need_dsrc) return 0;
        warg *wb = L->w_bwd.mem ? &L->w_bwd : &L->w_fwd;
        if ((rc = warg_refresh(c, wb, L->w_user))) return rc;
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, L->dact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, wb->mem};
        a[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, sdact};
        return exec(c, &L->bwd_data, 3, a);
    case LAYER_RELU:
        if (!L->need_dsrc) return 0;
        if (L->fused && c->dact_rule[l] && c->mask_ok[l + 1]) {
            /* max-pool and ReLU backward in one pass: DACT[l-1] from the
             * pool's gradient and arg-max bits; DACT[l] stays lazy */
            cpu_pool_bwd(dact_ptr(c, P, l - 1), c->dact_buf[l + 1], c->pidx[l + 1], 1, &P->L[l + 1].pg);
            return 0;
        }
        if ((rc = dact_materialize(c, l))) return rc;
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, L->dact};
        a[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, sdact};
        return exec(c, &L->bwd_data, 3, a);
    case LAYER_MAXPOOL:
        if (!L->need_dsrc) return 0;
        if (L->fused) {
            c->dact_lazy[l - 1] = c->dact_rule[l - 1] = 1; /* written by the ReLU's backward, or when read */
            return 0;
        }
        a[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, L->dact};
        a[1] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, L->ws};
        a[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, sdact};
        return exec(c, &L->bwd_data, 3, a);
    case LAYER_FLATTEN: return 0; /* DACT is the input's DACT already */
    case LAYER_DROPOUT: {
        if (!L->need_dsrc) return 0;
        const player *S = &P->L[l - 1];
        const float *dy = c->dact_buf[l];
        float *dx = S->is_plain ? dact_ptr(c, P, l - 1) : c->plain_buf;
        ptrdiff_t cnt = (ptrdiff_t)md_floats(&L->md);
        float p = ly->p, scale = (float)(1.0 / (1.0 - (double)ly->p));
        uint64_t seed = e->seed;
        uint32_t step = (uint32_t)c->step;
#pragma omp parallel for schedule(static)
        for (ptrdiff_t i = 0; i < cnt; i++)
            dx[i] = ops_dropout_bwd(dy[i], seed, step, (uint32_t)l, (uint32_t)i, p, scale);
        if (!S->is_plain) return reorder(c, S->from_plain, L->tmp_plain, S->dact);
        return 0;
    }
    }
    return ls_err(LS_EINVAL, "cpu: layer %d: unknown kind", l);
}

static int cpu_update(engine *e, const adam_scalars *s) {
    cpu_ctx *c = ctx_of(e);
    float *p = c->params, *m = c->adam_m, *v = c->adam_v;
    const float *g = c->grads;
    ptrdiff_t n = (ptrdiff_t)c->m->n_params;
    adam_scalars a = *s;
    /* element-wise and independent: vectorizing changes no value (the
     * file is built with -fno-math-errno so sqrtf can be the instruction) */
#pragma omp parallel for simd schedule(static)
    for (ptrdiff_t i = 0; i < n; i++)
        ops_adam_elem(p + i, m + i, v + i, g[i], a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2,
                      a.step_size, a.bc2_sqrt, a.eps);
    c->params_ver++; /* weights in blocked layouts are refreshed on next use */
    return 0;
}

/* ACT/DACT of layer l to or from plain layout (to_user: engine -> out). */
static int act_io(cpu_ctx *c, int l, int grad, float *user, int to_user) {
    int rc = 0;
    plan *P = c->cur;
    player *L = &P->L[l];
    dnnl_memory_t mem = grad ? L->dact : L->act;
    size_t bytes = md_floats(&L->md) * sizeof(float);
    if (!mem) { /* the DACT of an alias of the image: never computed */
        if (to_user) memset(user, 0, bytes);
        return 0;
    }
    if (L->is_plain) {
        float *buf = grad ? dact_ptr(c, P, l) : act_ptr(c, P, l);
        if (to_user) memcpy(user, buf, bytes);
        else memcpy(buf, user, bytes);
        return 0;
    }
    CHECK_DNNL(dnnl_memory_set_data_handle(L->user, user));
    rc = to_user ? reorder(c, L->to_plain, mem, L->user) : reorder(c, L->from_plain, L->user, mem);
cleanup:
    return rc;
}

static float *flat_buf(cpu_ctx *c, tensor_kind k) {
    switch (k) {
    case TENSOR_PARAMS: return c->params;
    case TENSOR_GRADS: return c->grads;
    case TENSOR_ADAM_M: return c->adam_m;
    case TENSOR_ADAM_V: return c->adam_v;
    default: return NULL;
    }
}

static int cpu_get_tensor(engine *e, tensor_id t, float *out) {
    cpu_ctx *c = ctx_of(e);
    int rc;
    switch (t.kind) {
    case TENSOR_INPUT:
        if ((rc = need_batch(c))) return rc;
        memcpy(out, c->x, tensor_numel(c->m, t, c->cur->n) * sizeof *out);
        return 0;
    case TENSOR_ACT:
    case TENSOR_DACT: {
        if ((rc = need_batch(c))) return rc;
        int b = owner(c->cur, t.layer);
        if (is_fused(c, b, LAYER_RELU))
            rc = t.kind == TENSOR_ACT ? act_materialize(c, b) : dact_materialize(c, b);
        return rc ? rc : act_io(c, t.layer, t.kind == TENSOR_DACT, out, 1);
    }
    case TENSOR_LOSS: *out = c->loss; return 0;
    default: memcpy(out, flat_buf(c, t.kind), c->m->n_params * sizeof *out); return 0;
    }
}

static int cpu_set_tensor(engine *e, tensor_id t, const float *in) {
    cpu_ctx *c = ctx_of(e);
    int rc;
    switch (t.kind) {
    case TENSOR_INPUT:
        if ((rc = need_batch(c)) || (rc = before_act_write(c, -1, 1))) return rc;
        memcpy(c->x, in, tensor_numel(c->m, t, c->cur->n) * sizeof *in);
        return 0;
    case TENSOR_ACT:
    case TENSOR_DACT: {
        if ((rc = need_batch(c))) return rc;
        int b = owner(c->cur, t.layer), grad = t.kind == TENSOR_DACT;
        if ((rc = grad ? before_dact_write(c, b) : before_act_write(c, b, 1))) return rc;
        if (is_fused(c, b, LAYER_RELU)) {
            /* the value its rule gives: already in place, and the pair
             * keeps running fused; any other: written, and off the rule */
            int holds;
            if ((rc = rule_holds(c, b, grad, in, &holds))) return rc;
            if (holds) return 0;
            c->other_path[b][grad]++;
            if (grad) c->dact_lazy[b] = c->dact_rule[b] = 0;
            else c->act_lazy[b] = c->act_rule[b] = 0;
        }
        return act_io(c, t.layer, grad, (float *)in, 0); /* in is only read */
    }
    case TENSOR_LOSS: c->loss = *in; return 0;
    default:
        memcpy(flat_buf(c, t.kind), in, c->m->n_params * sizeof *in);
        if (t.kind == TENSOR_PARAMS) c->params_ver++;
        return 0;
    }
}

static int cpu_synchronize(engine *e) {
    cpu_ctx *c = e->ctx;
    int rc = 0;
    CHECK_DNNL(dnnl_stream_wait(c->stream));
cleanup:
    return rc;
}

static const char *impl_str(const cprim *p) {
    const char *s = NULL;
    if (!p->pd || dnnl_primitive_desc_query(p->pd, dnnl_query_impl_info_str, 0, &s) != dnnl_success) return NULL;
    return s;
}

static const char *conv_alg(const cprim *p) {
    const dnnl_convolution_desc_t *d = NULL;
    if (!p->pd || dnnl_primitive_desc_query(p->pd, dnnl_query_convolution_d, 0, &d) != dnnl_success || !d)
        return NULL;
    return dnnl_alg_kind2str(d->alg_kind);
}

static void json_str_or_null(lsbuf *b, const char *s) {
    if (s) lsbuf_json_str(b, s);
    else lsbuf_printf(b, "null");
}

static char *cpu_describe(engine *e) {
    cpu_ctx *c = e->ctx;
    const dnnl_version_t *v = dnnl_version();
    dnnl_fpmath_mode_t fm = dnnl_fpmath_mode_strict;
    dnnl_get_default_fpmath_mode(&fm);
    const plan *P = &c->plans[0]; /* the max_batch plan, always built */
    lsbuf b;
    lsbuf_init(&b);
    lsbuf_printf(&b, "{\"engine\":\"cpu\",\"library\":\"oneDNN\",\"version\":\"%d.%d.%d\",\"git_hash\":", v->major,
                 v->minor, v->patch);
    lsbuf_json_str(&b, v->hash ? v->hash : "");
    lsbuf_printf(&b, ",\"cpu_runtime\":\"%s\",\"isa\":", dnnl_runtime2str(v->cpu_runtime));
    lsbuf_json_str(&b, dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()));
    lsbuf_printf(&b, ",\"isa_requested\":");
    lsbuf_json_str(&b, c->isa_req[0] ? c->isa_req : "default");
    /* the algorithm that ran: winograd asked for and unimplemented for
     * every convolution (a plain layout, a 1-channel input) ran direct,
     * and says so, so that no report credits (or blames) winograd for it */
    const char *algo = c->algo_name;
    int convs = 0, fell = 0;
    for (int l = 0; l < c->m->n_layers; l++)
        if (c->m->layers[l].kind == LAYER_CONV) convs++, fell += strncmp(P->L[l].alg, "direct (", 8) == 0;
    /* auto promises no algorithm (oneDNN's choice): only winograd asked for can fall back */
    if (c->alg == dnnl_convolution_winograd && convs && fell == convs) algo = "direct";
    lsbuf_printf(&b, ",\"threads\":%d,\"fpmath\":\"%s\",\"algo\":\"%s\",\"layout\":\"%s\",\"math\":\"%s\"",
                 c->threads, dnnl_fpmath_mode2str(fm), algo, c->blocked ? "blocked" : "plain",
                 c->portable ? "portable" : "vendor");
    /* oneDNN 2.6's Winograd kernels are all AVX-512 (jit_avx512_core_f32_wino_conv_*,
     * jit_avx512_common_convolution_winograd): an AVX2 machine has none */
    const char *isa_now = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());
    int wino_isa = isa_now && strstr(isa_now, "avx512") != NULL;
    if (algo != c->algo_name)
        lsbuf_printf(&b, ",\"algo_requested\":\"%s\",\"algo_note\":\"%s unimplemented here for every "
                         "convolution (%s%s): ran direct\"", c->algo_name, c->algo_name,
                     c->bf16 ? "dtype=bf16: its convolutions always run direct"
                     : wino_isa ? "layout or shapes"
                                : "oneDNN 2.6 has Winograd kernels for AVX-512 only; this CPU runs ",
                     c->bf16 || wino_isa ? "" : isa_now);
    lsbuf_printf(&b, ",\"fuse\":\"%s\"", c->fuse ? "on" : "off");
    lsbuf_printf(&b, ",\"tf32\":\"%s\",\"dtype\":\"%s\"", c->tf32 ? "on" : "off", c->bf16 ? "bf16" : "f32");
    if (c->tf32) lsbuf_printf(&b, ",\"tf32round\":\"%s\"", lowp_round_name(c->tf32_mode));
    lsbuf_printf(&b, ",\"batch\":%zu,\"batch_sizes_built\":[", P->n);
    for (int i = 0; i < c->n_plans; i++) lsbuf_printf(&b, "%s%zu", i ? "," : "", c->plans[i].n);
    lsbuf_printf(&b, "],\"layers\":[");
    for (int l = 0; l < c->m->n_layers; l++) {
        const layer *ly = &c->m->layers[l];
        const player *L = &P->L[l];
        static const char *kinds[] = {"conv", "relu", "maxpool", "flatten", "dense", "dropout"};
        lsbuf_printf(&b, "%s{\"layer\":%d,\"name\":", l ? "," : "", l);
        lsbuf_json_str(&b, ly->name);
        lsbuf_printf(&b, ",\"kind\":\"%s\"", kinds[ly->kind]);
        if (ly->kind == LAYER_DROPOUT) {
            lsbuf_printf(&b, ",\"fwd\":\"lockstep:ops_dropout_fwd\",\"bwd_data\":\"lockstep:ops_dropout_bwd\"}");
            continue;
        }
        if (ly->kind == LAYER_FLATTEN) {
            lsbuf_printf(&b, ",\"fwd\":\"none (same memory)\"}");
            continue;
        }
        if (L->fused) {
            /* what runs in a step is ours; oneDNN's primitives write a
             * ReLU's lazy ACT (eltwise) and serve fuse=off */
            const char *other = ly->kind == LAYER_RELU ? c->m->layers[l + 1].name : c->m->layers[l - 1].name;
            lsbuf_printf(&b, ",\"fused\":");
            json_str_or_null(&b, other);
            lsbuf_printf(&b, ",\"fwd\":\"lockstep:cpu_pool_fwd:%s\",\"bwd_data\":\"lockstep:cpu_pool_bwd:%s\"",
                         cpu_pool_isa(), cpu_pool_isa());
            if (ly->kind == LAYER_RELU) {
                lsbuf_printf(&b, ",\"fwd_when_read\":");
                json_str_or_null(&b, impl_str(&L->fwd));
            }
            lsbuf_printf(&b, "%s}", L->is_plain ? "" : ",\"layout\":\"blocked\"");
            continue;
        }
        lsbuf_printf(&b, ",\"fwd\":");
        json_str_or_null(&b, impl_str(&L->fwd));
        lsbuf_printf(&b, ",\"bwd_data\":");
        json_str_or_null(&b, impl_str(&L->bwd_data));
        if (ly->kind == LAYER_CONV || ly->kind == LAYER_DENSE) {
            lsbuf_printf(&b, ",\"bwd_weights\":");
            json_str_or_null(&b, impl_str(&L->bwd_w));
            if (c->tf32) lsbuf_printf(&b, ",\"bwd_bias\":\"lockstep:fp32 sum of the unrounded dy\"");
        }
        if (ly->kind == LAYER_CONV) {
            lsbuf_printf(&b, ",\"alg\":{\"fwd\":");
            json_str_or_null(&b, conv_alg(&L->fwd));
            lsbuf_printf(&b, ",\"bwd_data\":");
            json_str_or_null(&b, conv_alg(&L->bwd_data));
            lsbuf_printf(&b, ",\"bwd_weights\":");
            json_str_or_null(&b, conv_alg(&L->bwd_w));
            lsbuf_printf(&b, "}");
            if (L->alg[0]) {
                lsbuf_printf(&b, ",\"note\":");
                lsbuf_json_str(&b, L->alg);
            }
        }
        if (!L->is_plain) {
            lsbuf_printf(&b, ",\"layout\":");
            json_str_or_null(&b, L->md.format_kind == dnnl_blocked ? "blocked" : "other");
        }
        lsbuf_printf(&b, "}");
    }
    /* sets from outside that broke a fused ReLU's rule, so the layers
     * around it ran another kernel than training's (see cpu_ctx) */
    lsbuf_printf(&b, "],\"other_path\":{");
    int first = 1;
    for (int r = 0; r < c->m->n_layers; r++) {
        if (!P->L[r].fused || c->m->layers[r].kind != LAYER_RELU) continue;
        for (int g = 0; g < 2; g++) {
            lsbuf_printf(&b, "%s\"%s.%s\":%ld", first ? "" : ",", c->m->layers[r].name, g ? "dact" : "act",
                         c->other_path[r][g]);
            first = 0;
        }
    }
    lsbuf_printf(&b, "},\"loss\":\"lockstep:ops_softmax_xent_row\",\"optimizer\":\"lockstep:ops_adam_elem\"}");
    if (b.failed) {
        lsbuf_free(&b);
        ls_err(LS_ENOMEM, "cpu: out of memory in describe");
        return NULL;
    }
    return b.s;
}

CPU_FAULT_ONLY(static void fault_free(void *p);)

static void ctx_free(cpu_ctx *c) {
    if (!c) return;
    for (int i = 0; i < PLAN_MAX; i++) plan_free(&c->plans[i]);
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) {
        free(c->act_buf[l]);
        free(c->dact_buf[l]);
        free(c->ws_buf[l]);
        free(c->pidx[l]);
        for (int k = 0; k < LP_NSLOT; k++) free(c->lp_buf[l][k]);
    }
    free(c->x);
    free(c->labels);
    free(c->plain_buf);
    free(c->check_buf);
    free(c->scratch_buf);
    free(c->row_loss);
    free(c->params);
    free(c->grads);
    free(c->adam_m);
    free(c->adam_v);
    CPU_FAULT_ONLY(fault_free(c->fault);)
    if (c->attr) dnnl_primitive_attr_destroy(c->attr);
    if (c->stream) dnnl_stream_destroy(c->stream);
    if (c->eng) dnnl_engine_destroy(c->eng);
    free(c);
}

static void cpu_free(engine *e) {
    ctx_free(e->ctx);
    e->ctx = NULL;
}

#if LS_FAULTS
/* ---- the mutation zoo (cpu_faults.h): test builds only ----------------------
 * Each fault wraps one entry of the table below: the correct call runs, and
 * the fault edits its result (in plain layout, through act_io), or edits
 * its input around it, or replaces it (Adam).  Nothing here is compiled
 * into build/lockstep. */

int cpu_fault_cur;
unsigned long long cpu_fault_step;

#define FAULT_NAME_(id, name, ...) name,
static const char *const fault_names[CPU_FAULT_COUNT] = {"none", CPU_FAULT_LIST(FAULT_NAME_)};
#undef FAULT_NAME_

typedef struct {
    int id;             /* first: ctx_of reads it as an int */
    float *a, *b;       /* plain scratch, max_batch * widest layer */
    float *p_copy, *m_copy, *v_copy; /* copies set_tensor refreshes (state faults) */
    float *dw_save;
    float *p_old, *p_cur; /* eval_stale_weights: the first evaluation's weights, the current ones */
    uint8_t *pidx_save[MODEL_MAX_LAYERS];
    int bwd_seen[MODEL_MAX_LAYERS];
    double rel;         /* the *_rel faults' 2^-k (knob fault_k) */
    int evaluated;      /* an inference forward ran since the last training step (an epoch ended) */
    int corrupted;      /* the one-off corruption happened */
    int in_eval, eval_round, eval_k; /* set_batch at step 0: evaluation round (from 1) and batch in it (from 0) */
    uint64_t epoch0;    /* dropout_mask_epoch_step: the last step before the current epoch (0 in the first) */
    long updates;       /* updates run (params_restore_last_tensor_skipped: a restore after training) */
    int reads_after;    /* params_save_readback_stale: parameter read-backs since the last evaluation began */
    int ck_lost;        /* ck_lost_step7_act_corrupt_step8: the checks stopped answering */
    float *z11;         /* zoo attack 11: adam_v_used_stale_step8's v before step 7's update */
    float last_loss;    /* zoo attack 11: the last training step's loss value */
    int z11_after_eval; /* zoo attack 11: an evaluation batch was set since the last training one */
    uint64_t z12_batches; /* zoo attack 12: dropout_key_own_counter's count of training batches set */
    int z12_after_eval; /* zoo attack 12: an inference forward ran since the last training step */
    int z12_fired;      /* zoo attack 12: this training step is the first after an evaluation (a one-shot flag) */
    int z12_copy;       /* zoo attack 12: this process's place among the engines of one audit created with the same
                         * repeat2_ fault (1, 2, ...; an instance counter: fault_copy_ordinal) */
    size_t z13_prev_n;  /* zoo attack 13: the last training batch's size */
    int z13_conv2_bwd;  /* zoo attack 13: conv2's backward call is running */
    size_t z13_short;   /* zoo attack 13: this step is the first full batch after a partial one of this size (0: not) */
    int z14_partials;   /* zoo attack 14: partial-batch updates run (adam_t_skip_partial) */
    float *z16;         /* zoo attack 16: relu3's step-6 output, conv2's step-6 db (lazily allocated) */
    uint8_t *z16_arg;   /* zoo attack 16: pool1's arg-maxes (0..3 a window) of the last training forward */
    size_t z16_n;       /* zoo attack 16: that forward's batch size */
    float *z20;         /* zoo attack 20: a saved tensor of an earlier step (lazily allocated, z20_cap floats) */
    size_t z20_cap, z20_n; /* its capacity and the batch size it was saved at (0: nothing saved) */
    float *z21;         /* zoo attack 21: conv2's step-6 bias (lazily allocated, z21_cap floats) */
    size_t z21_cap, z21_prev_n; /* its capacity; the last training loss's batch size */
    float z21_T;        /* zoo attack 21: conv2_fwd_clip_above_step1_max's threshold */
    int z21_T_set, z21_eval, z21_swapped; /* T recorded; an evaluation batch since the last new step; the
                                           * evaluation's step-ahead weights are in c->params */
    unsigned long long z21_last_step; /* the last training step a loss ran at */
    adam_cfg z23_cfg;   /* zoo attack 23: the last update's Adam settings (fc2_dx_post_update_w_once) */
    int z23_cfg_set;
    int in_ck;          /* the engine's own checks are running (they read its tensors in place; the report faults
                         * of zoo attack 6 are in the copy-out to the caller only) */
} fault_state;

static int fault_layer(const cpu_ctx *c, int l, const char *name) {
    return l >= 0 && l < c->m->n_layers && strcmp(c->m->layers[l].name, name) == 0;
}

static void fault_free(void *p) {
    fault_state *F = p;
    if (!F) return;
    free(F->a);
    free(F->b);
    free(F->p_copy);
    free(F->m_copy);
    free(F->v_copy);
    free(F->dw_save);
    free(F->p_old);
    free(F->p_cur);
    free(F->z11);
    free(F->z16);
    free(F->z16_arg);
    free(F->z20);
    free(F->z21);
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) free(F->pidx_save[l]);
    free(F);
}

/* zoo attack 12: an instance counter across the engine processes of one
 * audit (each engine is a child of the audit's process, created one after
 * the other): the first free name of "lockstep-fault-copy-PPID-K" in the
 * abstract socket namespace, bound and held for the process's life (the
 * kernel frees it at exit: no file is left behind).  1 for the engine
 * created first, 2 for the second, ...; 0 when no socket can be made (the
 * fault then never fires). */
static int fault_copy_ordinal(void) {
    for (int k = 1; k <= 64; k++) {
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return 0;
        struct sockaddr_un a;
        memset(&a, 0, sizeof a);
        a.sun_family = AF_UNIX;
        int len = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "lockstep-fault-copy-%ld-%d", (long)getppid(), k);
        if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) == 0)
            return k; /* fd kept open: the name is this process's until it exits */
        int err = errno;
        close(fd);
        if (err != EADDRINUSE) return 0;
    }
    return 0;
}

static int fault_init(cpu_ctx *c, const engine_spec *s, size_t max_batch) {
    const char *v = engine_spec_get(s, "fault", NULL);
    if (!v) return 0;
    int id = 0;
    for (int i = 1; i < CPU_FAULT_COUNT; i++)
        if (strcmp(v, fault_names[i]) == 0) id = i;
    if (!id)
        return ls_err(LS_EINVAL, "engine %s: unknown value '%s' for knob fault (known: the zoo's names, "
                      "src/engines/cpu/cpu_faults.h)", s->spec, v);
    /* LS_FAULT_ONE_COPY=PATH[,N]: the fault is on in one engine only, the
     * N-th (default 1st) of all the processes given PATH to be created
     * (each takes the first free PATH.1, PATH.2, ...), off in the others: a
     * fault in one of two runs of the same engine (a flaky core, a race),
     * which a repeat judged on its first listing's vector must not hide
     * (test_audit: the audit names the copy that has it) */
    const char *one = getenv("LS_FAULT_ONE_COPY");
    if (one && *one) {
        char path[4096];
        const char *comma = strrchr(one, ',');
        int want = comma ? atoi(comma + 1) : 1;
        size_t plen = comma ? (size_t)(comma - one) : strlen(one);
        int ord = 0;
        for (int k = 1; k <= 64 && !ord; k++) {
            snprintf(path, sizeof path, "%.*s.%d", (int)plen, one, k);
            int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
            if (fd >= 0) close(fd), ord = k;
            else if (errno != EEXIST) return ls_err(LS_EIO, "cpu: LS_FAULT_ONE_COPY: %s: %s", path, strerror(errno));
        }
        if (ord != want) return 0;
    }
    size_t widest = (size_t)c->m->in_c * c->m->in_h * c->m->in_w, np = c->m->n_params;
    for (int l = 0; l < c->m->n_layers; l++)
        if (layer_out_size(&c->m->layers[l]) > widest) widest = layer_out_size(&c->m->layers[l]);
    fault_state *F = ls_calloc(1, sizeof *F);
    if (!F) return LS_ENOMEM;
    F->id = id;
    if (strncmp(fault_names[id], "repeat2_", 8) == 0) F->z12_copy = fault_copy_ordinal();
    const char *k = engine_spec_get(s, "fault_k", "16");
    char *end;
    long kv = strtol(k, &end, 10);
    if (*end || kv < 1 || kv > 60) {
        fault_free(F);
        return ls_err(LS_EINVAL, "engine %s: bad value '%s' for knob fault_k (expected an integer 1..60: the "
                      "relative perturbation 2^-k)", s->spec, k);
    }
    F->rel = ldexp(1.0, (int)-kv);
    F->a = alloc_aligned(max_batch * widest * sizeof(float));
    F->b = alloc_aligned(max_batch * widest * sizeof(float));
    F->p_copy = alloc_aligned(np * sizeof(float));
    F->m_copy = alloc_aligned(np * sizeof(float));
    F->v_copy = alloc_aligned(np * sizeof(float));
    F->dw_save = alloc_aligned(np * sizeof(float));
    F->p_old = alloc_aligned(np * sizeof(float));
    F->p_cur = alloc_aligned(np * sizeof(float));
    if (!F->a || !F->b || !F->p_copy || !F->m_copy || !F->v_copy || !F->dw_save || !F->p_old || !F->p_cur) {
        fault_free(F);
        return LS_ENOMEM;
    }
    c->fault = F;
    return 0;
}

/* The weights of layer l edited in place (shift: w[i] = w[i+1]; rotate:
 * each k x k kernel turned 180 degrees; 3: rounded to TF32, 4: to bf16;
 * 5: each k x k kernel transposed; 6: a dense layer's last column read as 0),
 * or restored from `save`; the
 * weight copies are refreshed either way. */
static void fault_edit_weights(cpu_ctx *c, int l, int how, float *save) {
    const layer *ly = &c->m->layers[l];
    const model_tensor *t = &c->m->tensors[ly->w_tensor];
    float *w = c->params + t->offset;
    if (how == 0) {
        memcpy(w, save, t->numel * sizeof *w);
    } else {
        memcpy(save, w, t->numel * sizeof *w);
        if (how == 1) {
            for (size_t i = 0; i < t->numel; i++) w[i] = save[(i + 1) % t->numel];
        } else if (how == 3) {
            for (size_t i = 0; i < t->numel; i++) w[i] = lowp_round_tf32(save[i], LOWP_RNE);
        } else if (how == 4) {
            for (size_t i = 0; i < t->numel; i++) w[i] = lowp_round_bf16(save[i], LOWP_RNE);
        } else if (how == 6) {
            /* a dense layer's last input column left out (each row's last weight read as 0) */
            size_t in = t->numel / (size_t)ly->out_c;
            for (size_t j = 0; j < (size_t)ly->out_c; j++) w[j * in + in - 1] = 0.0f;
        } else if (how == 5) {
            size_t k = (size_t)ly->k, kk = k * k;
            for (size_t i = 0; i < t->numel; i++) w[i] = save[i / kk * kk + i % k * k + i % kk / k];
        } else {
            size_t kk = (size_t)ly->k * ly->k;
            for (size_t i = 0; i < t->numel; i++) w[i] = save[i / kk * kk + (kk - 1 - i % kk)];
        }
    }
    c->params_ver++;
}

/* At the first layer of a training forward: the epoch-start and between-
 * step faults (Adam state re-created after an evaluation; one weight's
 * sign flipped before step 8). */
static int fault_step_start(cpu_ctx *c, fault_state *F, int l, int training) {
    if (l != 0) return 0;
    if (!training) {
        F->evaluated = 1;
        return 0;
    }
    if (F->evaluated) F->epoch0 = c->step - 1; /* the first training step after an evaluation: an epoch starts */
    if (c->step <= F->epoch0) F->epoch0 = 0;   /* a restart (the drift phase after attribution) */
    if (F->id == CPU_FAULT_ADAM_RESET_EPOCH && F->evaluated) {
        memset(c->adam_m, 0, c->m->n_params * sizeof(float));
        memset(c->adam_v, 0, c->m->n_params * sizeof(float));
    }
    F->evaluated = 0;
    if (F->id == CPU_FAULT_ADAM_M_BITFLIP_ONCE && c->step == 8 && !F->corrupted)
        for (int k = 0; k < c->m->n_layers; k++)
            if (fault_layer(c, k, "conv2")) {
                /* the top mantissa bit of Adam's m of conv2's weight of the largest |m| (a single-bit upset
                 * in the optimizer state between two steps: m off by 25 to 50 percent) */
                const model_tensor *t = &c->m->tensors[c->m->layers[k].w_tensor];
                float *mm = c->adam_m + t->offset;
                size_t i = 0;
                for (size_t j = 1; j < t->numel; j++) i = fabsf(mm[j]) > fabsf(mm[i]) ? j : i;
                uint32_t u;
                memcpy(&u, &mm[i], 4);
                u ^= 1u << 22;
                memcpy(&mm[i], &u, 4);
                F->corrupted = 1;
            }
    if (F->id == CPU_FAULT_WEIGHT_CORRUPT_ONCE && c->step == 8 && !F->corrupted)
        for (int k = 0; k < c->m->n_layers; k++)
            if (fault_layer(c, k, "fc1")) {
                float *w = c->params + c->m->tensors[c->m->layers[k].w_tensor].offset;
                w[3] = -w[3];
                c->params_ver++; /* the blocked copies follow: what is corrupted is the weight itself */
                F->corrupted = 1;
            }
    return 0;
}

/* A Winograd F(4x4, 3x3) output tile with one transform-domain value off:
 * an error eps in M[2][1] comes out of Y = A^T M A as eps * a2 a1^T, a2 =
 * (1, -1, 1, -1) and a1 = (1, 1, 1, 1) the columns of A^T: the 4x4 tile (4-
 * aligned, clipped at the plane's edge) holding element `at` of the plane
 * gets +eps in its rows 0 and 2, -eps in rows 1 and 3.  eps = |pl[at]| x
 * 2^8 x rel (2^-8 of it at fault_k=16). */
static void wino_tile_at(float *pl, size_t h, size_t w, size_t at, double rel, int cols) {
    double eps = fabs((double)pl[at]) * 256.0 * rel;
    size_t i0 = at / w & ~(size_t)3, j0 = at % w & ~(size_t)3;
    for (size_t i = i0; i < i0 + 4 && i < h; i++)
        for (size_t j = j0; j < j0 + 4 && j < w; j++)
            pl[i * w + j] = (float)((double)pl[i * w + j] + ((cols ? j - j0 : i - i0) & 1 ? -eps : eps));
}
static void wino_tile(float *pl, size_t h, size_t w, size_t at, double rel) { wino_tile_at(pl, h, w, at, rel, 0); }
/* The same with M[1][2] off: eps a1 a2^T, +eps in the tile's columns 0 and
 * 2, -eps in columns 1 and 3. */
static void wino_col_tile(float *pl, size_t h, size_t w, size_t at, double rel) { wino_tile_at(pl, h, w, at, rel, 1); }
/* The 4-lane group (4-aligned columns of its row) of element `at` of a plane w wide has its two 2-lane
 * halves exchanged, (a, b, c, d) -> (c, d, a, b): a 128-bit shuffle with the wrong immediate.  Returns 0 when
 * the group does not fit in the row. */
static int halves_swap_at(float *pl, size_t w, size_t at) {
    size_t j0 = at % w & ~(size_t)3, r = at - at % w;
    if (j0 + 3 >= w) return 0;
    float *g = pl + r + j0, t0 = g[0], t1 = g[1];
    g[0] = g[2], g[1] = g[3], g[2] = t0, g[3] = t1;
    return 1;
}
/* The largest value of a plane (a forward tile there reaches the ReLU). */
static size_t argmax_plane(const float *pl, size_t cnt) {
    size_t big = 0;
    for (size_t i = 1; i < cnt; i++) big = pl[i] > pl[big] ? i : big;
    return big;
}

static float round_fp16(float v);

/* The locals every hook part starts from (the engine's context, the
 * fault, the step's plan, the layer, the batch, its output's size, the
 * fault's id, a status, and two scratch buffers); a part uses some. */
#define FAULT_LOCALS                                                                                      \
    cpu_ctx *c = ctx_of(e);                                                                               \
    fault_state *F = c->fault;                                                                            \
    plan *P = c->cur;                                                                                     \
    const layer *ly = &c->m->layers[l];                                                                   \
    size_t n = P->n, cnt = n * layer_out_size(ly);                                                        \
    int id = F->id, rc = 0;                                                                               \
    float *a = F->a, *x = F->b;                                                                           \
    (void)P, (void)ly, (void)n, (void)cnt, (void)id, (void)rc, (void)a, (void)x

/* A hook part that ended the call: its status in *done, and 1 (2 from an
 * edit part of the forward: fault_forward_layer writes nothing back). */
#define FAULT_DONE(x)   \
    do {                \
        *done = (x);    \
        return 1;       \
    } while (0)
#define FAULT_ENDED(x)  \
    do {                \
        *done = (x);    \
        return 2;       \
    } while (0)

/* fault_forward_layer's hooks, a part a function.  fault_fwd_around:
 * faults that replace or wrap the layer's own forward (1: one did, its
 * status in *done); fault_fwd_state: state faults after it (the same);
 * fault_fwd_edit_K: the output edits, each branch testing its own fault
 * id, so the branches exclude each other and split into parts in order
 * (0: none of this part's; 1: an edit of F->a, to write back; 2: one
 * ended the hook, its status in *done). */

static int fault_fwd_around(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if ((rc = fault_step_start(c, F, l, training))) FAULT_DONE(rc);
    if (id == CPU_FAULT_EVAL_BATCH_SKIPPED_ONCE && !training && F->in_eval && F->eval_round == 1 && F->eval_k == 2)
        FAULT_DONE(0); /* zoo attack 8: this batch's forward never ran: every layer holds the batch before's outputs */
    if (id == CPU_FAULT_EVAL_DROPOUT_ON && !training && ly->kind == LAYER_DROPOUT) FAULT_DONE(cpu_forward_layer(e, l, 1));
    if (id == CPU_FAULT_DROPOUT_OFF_AFTER_EVAL && training && ly->kind == LAYER_DROPOUT && F->epoch0 &&
        c->step == F->epoch0 + 1)
        FAULT_DONE(cpu_forward_layer(e, l, 0)); /* the evaluation's mode, left set for the epoch's first step */
    if (id == CPU_FAULT_DROPOUT_MASK_EPOCH_STEP && training && ly->kind == LAYER_DROPOUT && F->epoch0) {
        /* the mask's key is the step within the epoch (a counter reset at each epoch): epoch 2 redraws epoch 1's */
        uint64_t st = c->step;
        c->step = st - F->epoch0;
        rc = cpu_forward_layer(e, l, training);
        c->step = st;
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_DROPOUT_MASK_STALE_ONCE && training && ly->kind == LAYER_DROPOUT && c->step == 7) {
        /* the mask's key is the step before's (a counter advanced after the draw, once) */
        c->step = 6;
        rc = cpu_forward_layer(e, l, training);
        c->step = 7;
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_EVAL_FC2_PRE_UPDATE_WEIGHTS && !training && F->in_eval && F->updates > 0 &&
        fault_layer(c, l, "fc2")) {
        /* zoo attack 10: the inference copy of fc2's weights from before the last update */
        if (getenv("LS_FAULT_VERBOSE")) { double md = 0; const model_tensor *tt = &c->m->tensors[ly->w_tensor]; for (size_t q = 0; q < tt->numel; q++) md = fmax(md, fabs((double)c->params[tt->offset + q] - F->p_old[tt->offset + q])); fprintf(stderr, "eval_fc2_pre_update_weights: round %d batch %d maxdiff %g\n", F->eval_round, F->eval_k, md); }
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        float *w = c->params + t->offset;
        memcpy(F->p_cur, w, t->numel * sizeof *w);
        memcpy(w, F->p_old + t->offset, t->numel * sizeof *w);
        c->params_ver++;
        rc = cpu_forward_layer(e, l, training);
        memcpy(w, F->p_cur, t->numel * sizeof *w);
        c->params_ver++;
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_EVAL_STALE_WEIGHTS && !training && F->corrupted == 1 && l == c->m->n_layers - 1) {
        /* the batch ran on the previous evaluation's weights; the current ones are back for the report */
        rc = cpu_forward_layer(e, l, training);
        memcpy(c->params, F->p_cur, c->m->n_params * sizeof(float));
        c->params_ver++;
        F->corrupted = 2;
        FAULT_DONE(rc);
    }
    int how = id == CPU_FAULT_CONV1_WEIGHT_SHIFTED && fault_layer(c, l, "conv1")  ? 1
              : id == CPU_FAULT_CONV2_FWD_W_TF32 && fault_layer(c, l, "conv2") ? 3
              : id == CPU_FAULT_FC1_FWD_W_BF16 && fault_layer(c, l, "fc1")     ? 4
              : id == CPU_FAULT_CONV2_FWD_W_TRANSPOSED && fault_layer(c, l, "conv2") ? 5
              : id == CPU_FAULT_FC1_FWD_TAIL_DROPPED_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") ? 6
                                                                                : 0;
    if (how) {
        fault_edit_weights(c, l, how, F->dw_save);
        rc = cpu_forward_layer(e, l, training);
        fault_edit_weights(c, l, 0, F->dw_save);
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_STATE_BIAS_COPY_STALE && ly->b_tensor >= 0) {
        const model_tensor *t = &c->m->tensors[ly->b_tensor];
        float *b = c->params + t->offset;
        memcpy(F->dw_save, b, t->numel * sizeof *b);
        memcpy(b, F->p_copy + t->offset, t->numel * sizeof *b);
        rc = cpu_forward_layer(e, l, training);
        memcpy(b, F->dw_save, t->numel * sizeof *b);
        FAULT_DONE(rc);
    }
    return 0;
}

static int fault_fwd_state(engine *e, int l, int *done) {
    FAULT_LOCALS;
    player *L = &P->L[l];
    if (id == CPU_FAULT_STATE_PIDX_REUSED && L->fused && ly->kind == LAYER_MAXPOOL) {
        size_t bytes = L->pg.n * L->pg.cb * L->pg.blk * L->pg.oh * L->pg.ow;
        if (!F->pidx_save[l]) {
            F->pidx_save[l] = malloc(c->pidx_cap[l]);
            if (!F->pidx_save[l]) FAULT_DONE(LS_ENOMEM);
            memcpy(F->pidx_save[l], c->pidx[l], bytes);
        } else {
            memcpy(c->pidx[l], F->pidx_save[l], bytes);
        }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_STATE_LAZY_ACT_STALE && L->fused && ly->kind == LAYER_RELU) {
        c->act_lazy[l] = 0; /* the rule still holds for the pool; the buffer is old */
        FAULT_DONE(0);
    }
    return 0;
}

static int fault_fwd_edit_1(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    const float *bias = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    if ((((id == CPU_FAULT_ACT_CORRUPT_ONCE || id == CPU_FAULT_CK_NONE_ACT_CORRUPT_ONCE ||
           id == CPU_FAULT_DESCRIBE_WINO_CONV2_ACT_CORRUPT_ONCE) && c->step == 7) || (id == CPU_FAULT_CK_LOST_STEP7_ACT_CORRUPT_STEP8 && c->step == 8)) &&
        training && fault_layer(c, l, "conv2")) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t big = 0;
        for (size_t i = 1; i < (size_t)ly->out_h * ly->out_w; i++) big = fabsf(a[i]) > fabsf(a[big]) ? i : big;
        a[big] *= 2.0f;
    } else if ((id == CPU_FAULT_CONV1_BIAS_TWICE && fault_layer(c, l, "conv1")) ||
        (id == CPU_FAULT_EVAL_FC2_BIAS_TWICE && !training && fault_layer(c, l, "fc2")) ||
        (id == CPU_FAULT_CONV2_PARTIAL_BATCH_BIAS && fault_layer(c, l, "conv2") && n < e->max_batch)) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t hw = (size_t)ly->out_h * ly->out_w;
        for (size_t i = 0; i < cnt; i++) a[i] = a[i] + bias[i / hw % (size_t)ly->out_c];
    } else if (id == CPU_FAULT_FC2_BIAS_SCALED && fault_layer(c, l, "fc2")) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) a[i] = a[i] + bias[i % (size_t)ly->out_c] * 0x1p-10f;
    } else if (id == CPU_FAULT_EVAL_POOL2_BLOCK1_1ULP && !training && fault_layer(c, l, "pool2") && ly->out_c > 21) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t hw = (size_t)ly->out_h * ly->out_w, i = 21 * hw, end = 22 * hw;
        while (i < end && !(a[i] > 0)) i++;
        if (i < end) a[i] = nextafterf(a[i], INFINITY);
    } else if (id == CPU_FAULT_FC1_SAMPLES_SWAPPED_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") &&
               n > 1) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (int j = 0; j < ly->out_c; j++) {
            float t = a[j];
            a[j] = a[ly->out_c + j], a[ly->out_c + j] = t;
        }
    } else if (id == CPU_FAULT_CONV2_PLANE_TRANSPOSED_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->out_h == ly->out_w) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        int h = ly->out_h;
        for (int i = 0; i < h; i++)
            for (int j = i + 1; j < h; j++) {
                float t = a[i * h + j];
                a[i * h + j] = a[j * h + i], a[j * h + i] = t;
            }
    } else if (id == CPU_FAULT_CONV2_PLANE_MIRRORED_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (int i = 0; i < ly->out_h; i++)
            for (int j = 0; j < ly->out_w / 2; j++) {
                float *row = a + (size_t)i * ly->out_w, t = row[j];
                row[j] = row[ly->out_w - 1 - j], row[ly->out_w - 1 - j] = t;
            }
    } else if (((id == CPU_FAULT_CONV2_POOL_WINDOW_SWAP_ONCE && fault_layer(c, l, "conv2")) ||
                (id == CPU_FAULT_CONV1_POOL_WINDOW_SWAP_ONCE && fault_layer(c, l, "conv1"))) &&
               training && c->step == 7 && ly->out_w % 2 == 0) {
        /* out_w even: a linear index's parity is its column's, so i ^ 1 is i's partner in its 2x2 window's row */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t big = 0;
        for (size_t i = 1; i < (size_t)ly->out_h * ly->out_w; i++) big = a[i] > a[big] ? i : big;
        float t = a[big];
        a[big] = a[big ^ 1], a[big ^ 1] = t;
    } else if (id == CPU_FAULT_CONV2_POOL_LANE_SWAP && training && fault_layer(c, l, "conv2") && ly->out_h > 7 &&
               ly->out_w > 7) {
        /* every plane: (6, 6) <-> (6, 7), one 2x2 pooling window's top row */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t hw = (size_t)ly->out_h * ly->out_w, i0 = 6 * (size_t)ly->out_w + 6;
        for (size_t pl = 0; pl < n * (size_t)ly->out_c; pl++) {
            float t = a[pl * hw + i0];
            a[pl * hw + i0] = a[pl * hw + i0 + 1], a[pl * hw + i0 + 1] = t;
        }
    } else if (id == CPU_FAULT_CONV2_FWD_LANE02_SWAP_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->out_w > 3) {
        /* the plane's largest value and the one two columns away in its row (column ^ 2, or - 2 past the
         * row's end): the same checkerboard sign */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t big = 0, w = (size_t)ly->out_w;
        for (size_t i = 1; i < (size_t)ly->out_h * w; i++) big = a[i] > a[big] ? i : big;
        size_t col = big % w, col2 = (col ^ 2) < w ? col ^ 2 : col - 2, mate = big - col + col2;
        float t = a[big];
        a[big] = a[mate], a[mate] = t;
    } else if (id == CPU_FAULT_EVAL_CONV1_LAST_PLANE_SWAP && !training && F->in_eval && F->eval_k >= 1 &&
               fault_layer(c, l, "conv1") && ly->out_w % 2 == 0) {
        /* the last sample's last channel: its largest value and the partner in its 2x2 window's row */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t hw = (size_t)ly->out_h * ly->out_w, big = 0;
        float *pl = a + ((n - 1) * (size_t)ly->out_c + (size_t)ly->out_c - 1) * hw;
        for (size_t i = 1; i < hw; i++) big = pl[i] > pl[big] ? i : big;
        float t = pl[big];
        pl[big] = pl[big ^ 1], pl[big ^ 1] = t;
    } else if (id == CPU_FAULT_FC1_SAMPLE_DUPLICATED_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") &&
               n > 1) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        memcpy(a + ly->out_c, a, (size_t)ly->out_c * sizeof *a);
    } else if (id == CPU_FAULT_CONV2_WINO_TILE_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* sample 0, channel 0 */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        wino_tile(a, (size_t)ly->out_h, (size_t)ly->out_w, argmax_plane(a, (size_t)ly->out_h * ly->out_w), F->rel);
    } else if (id == CPU_FAULT_CONV2_WINO_COL_TILE_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* sample 0, channel 0, as conv2_wino_tile_once with the pattern by columns */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        wino_col_tile(a, (size_t)ly->out_h, (size_t)ly->out_w, argmax_plane(a, (size_t)ly->out_h * ly->out_w), F->rel);
    } else {
        return 0;
    }
    return 1;
}

static int fault_fwd_edit_2(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV2_WINO_U21_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->k == 3 && ly->pad == 1) {
        /* Winograd F(4x4, 3x3) with one element of the transformed weights, U[2][1] of (output channel 0,
         * input channel 0), off by dU = |U[2][1]| x 2^8 x rel: every 4x4 output tile of channel 0, every
         * sample, gets dU V[2][1] (-1)^i, V = B^T d B of the tile's 6x6 input window of channel 0 */
        static const double G1[3] = {-1.0 / 6, -1.0 / 6, -1.0 / 6}, G2[3] = {-1.0 / 6, 1.0 / 6, -1.0 / 6};
        static const double B1[6] = {0, -4, -4, 1, 1, 0}, B2[6] = {0, 4, -4, -1, 1, 0};
        const float *g = c->params + c->m->tensors[ly->w_tensor].offset;
        double u21 = 0;
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) u21 += G2[p] * g[p * 3 + q] * G1[q];
        double du = fabs(u21) * 256.0 * F->rel;
        size_t H = (size_t)ly->out_h, W = (size_t)ly->out_w, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++) {
            const float *xi = x + s0 * (size_t)ly->in_c * IH * IW;
            float *yo = a + s0 * (size_t)ly->out_c * H * W;
            for (size_t oi = 0; oi < H; oi += 4)
                for (size_t oj = 0; oj < W; oj += 4) {
                    double v21 = 0;
                    for (int r = 0; r < 6; r++)
                        for (int q = 0; q < 6; q++) {
                            long ii = (long)oi - 1 + r, jj = (long)oj - 1 + q;
                            if (ii >= 0 && jj >= 0 && ii < (long)IH && jj < (long)IW)
                                v21 += B2[r] * xi[(size_t)ii * IW + (size_t)jj] * B1[q];
                        }
                    for (size_t i = oi; i < oi + 4 && i < H; i++)
                        for (size_t j = oj; j < oj + 4 && j < W; j++)
                            yo[i * W + j] = (float)((double)yo[i * W + j] + ((i - oi) & 1 ? -1 : 1) * du * v21);
                }
        }
    } else if (id == CPU_FAULT_EVAL_CONV1_WINO_TILE && !training && F->in_eval && F->eval_round >= 2 &&
               F->eval_k >= 1 && fault_layer(c, l, "conv1")) {
        /* the last sample, at its largest value (over all channels), in every batch but the first of the
         * second evaluation on (the last one of a 2-epoch run, and the reference's pass after it) */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t hw = (size_t)ly->out_h * ly->out_w, per = (size_t)ly->out_c * hw;
        float *s0 = a + (n - 1) * per;
        size_t big = argmax_plane(s0, per);
        wino_tile(s0 + big / hw * hw, (size_t)ly->out_h, (size_t)ly->out_w, big % hw, F->rel);
    } else if (id == CPU_FAULT_CONV2_POOL_NEAR_TIE_SWAP_ONCE && training && c->step == 7 &&
               fault_layer(c, l, "conv2") && ly->out_w % 2 == 0 && ly->out_h % 2 == 0) {
        /* sample 0, every channel: the 2x2 pooling window whose largest value (> 0) is closest to its
         * second largest (distinct) has the two exchanged */
        size_t w = (size_t)ly->out_w, hw = (size_t)ly->out_h * w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t ch = 0; ch < (size_t)ly->out_c; ch++) {
            float *pl = a + ch * hw;
            size_t best_a = 0, best_b = 0;
            float best_gap = INFINITY;
            for (size_t i = 0; i < (size_t)ly->out_h; i += 2)
                for (size_t j = 0; j < w; j += 2) {
                    size_t q[4] = {i * w + j, i * w + j + 1, (i + 1) * w + j, (i + 1) * w + j + 1}, k1 = 0, k2;
                    for (int t = 1; t < 4; t++) k1 = pl[q[t]] > pl[q[k1]] ? (size_t)t : k1;
                    k2 = k1 ? 0 : 1;
                    for (int t = 0; t < 4; t++) k2 = (size_t)t != k1 && pl[q[t]] > pl[q[k2]] ? (size_t)t : k2;
                    float gap = pl[q[k1]] - pl[q[k2]];
                    if (pl[q[k1]] > 0 && gap > 0 && gap < best_gap) best_gap = gap, best_a = q[k1], best_b = q[k2];
                }
            if (best_gap < INFINITY) {
                float t = pl[best_a];
                pl[best_a] = pl[best_b], pl[best_b] = t;
            }
        }
    } else if (id == CPU_FAULT_CONV1_NAN_DEAD_WINDOW_ONCE && training && c->step == 7 &&
               fault_layer(c, l, "conv1") && ly->out_w % 2 == 0 && ly->out_h % 2 == 0) {
        /* sample 0, channel 0: the first 2x2 pooling window whose four values are all negative gets a NaN in
         * its first element */
        size_t w = (size_t)ly->out_w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0, done = 0; i < (size_t)ly->out_h && !done; i += 2)
            for (size_t j = 0; j < w && !done; j += 2)
                if (a[i * w + j] < 0 && a[i * w + j + 1] < 0 && a[(i + 1) * w + j] < 0 && a[(i + 1) * w + j + 1] < 0)
                    a[i * w + j] = NAN, done = 1;
    } else if (id == CPU_FAULT_FC1_FWD_TAIL_SAMPLES_CROSSED_ONCE && training && c->step == 7 &&
               fault_layer(c, l, "fc1") && n > 1) {
        /* the K-loop's tail (the last 32 input features) reads sample 1's inputs for sample 0 and sample 0's
         * for sample 1, for every output */
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), t0 = in > 32 ? in - 32 : 0;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t j = 0; j < (size_t)ly->out_c; j++) {
            double d = 0;
            for (size_t t = t0; t < in; t++) d += (double)w[j * in + t] * ((double)x[in + t] - (double)x[t]);
            a[j] = (float)((double)a[j] + d);
            a[ly->out_c + j] = (float)((double)a[ly->out_c + j] - d);
        }
    } else if (id == CPU_FAULT_CONV2_FWD_HALVES_SWAP_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* sample 0, channel 0: the 4-lane group of the plane's largest value, halves exchanged */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t w = (size_t)ly->out_w, hw = (size_t)ly->out_h * w, fit = w & ~(size_t)3, big = 0;
        for (size_t i = 1; i < hw; i++) big = i % w < fit && (big % w >= fit || a[i] > a[big]) ? i : big;
        halves_swap_at(a, w, big);
    } else {
        return 0;
    }
    return 1;
}

static int fault_fwd_edit_3(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV2_FWD_HALVES_SWAP_EVERY_PLANE_ONCE && training && c->step == 7 &&
               fault_layer(c, l, "conv2") && ly->out_h > 6 && ly->out_w >= 8) {
        /* every (sample, channel) plane: the 4-lane group at row 6, columns 4..7, halves exchanged */
        size_t w = (size_t)ly->out_w, hw = (size_t)ly->out_h * w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t pl = 0; pl < n * (size_t)ly->out_c; pl++) halves_swap_at(a + pl * hw, w, 6 * w + 4);
    } else if (id == CPU_FAULT_CONV1_FWD_HALVES_ANTISYM_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* sample 0, channel 0: the 4-lane group (4-aligned columns) of the plane's largest value gets +e in its
         * first half and -e in its second, e = 2^(12 - k) of that value (2^-4 at fault_k=16): a correction term
         * of the group applied with opposite signs to its two halves */
        size_t w = (size_t)ly->out_w, hw = (size_t)ly->out_h * w, fit = w & ~(size_t)3, big = 0;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 1; i < hw; i++) big = i % w < fit && (big % w >= fit || a[i] > a[big]) ? i : big;
        double eps = fabs((double)a[big]) * F->rel * 0x1p12;
        float *g = a + big - big % w + (big % w & ~(size_t)3);
        if ((size_t)(g - a) % w + 3 < w)
            for (int t = 0; t < 4; t++) g[t] = (float)((double)g[t] + (t < 2 ? eps : -eps));
    } else if (id == CPU_FAULT_FC1_FWD_TILE_ANTISYM_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") &&
               n > 1 && ly->out_c > 1) {
        /* the 2 x 2 register tile (samples 0, 1; outputs j0, j0 + 1, j0 the even-aligned pair of sample 0's
         * largest output) gets +e on its diagonal and -e off it, e = 2^(12 - k) of that output (2^-4 at
         * fault_k=16): a tile's correction term added with the wrong sign pattern */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t oc = (size_t)ly->out_c, big = argmax_plane(a, oc), j0 = big & ~(size_t)1;
        if (j0 + 1 < oc) {
            double eps = fabs((double)a[big]) * F->rel * 0x1p12;
            a[j0] = (float)((double)a[j0] + eps), a[j0 + 1] = (float)((double)a[j0 + 1] - eps);
            a[oc + j0] = (float)((double)a[oc + j0] - eps), a[oc + j0 + 1] = (float)((double)a[oc + j0 + 1] + eps);
        }
    } else if (id == CPU_FAULT_EVAL_FC2_TILE_ANTISYM && !training && F->in_eval && F->eval_round == 1 &&
               F->eval_k == 0 && fault_layer(c, l, "fc2") && n > 1 && ly->out_c > 1) {
        /* the first evaluation's first batch: samples 0 and 1, classes c0 (sample 0's largest logit) and c1 (its
         * second largest) get -e, +e (sample 0) and +e, -e (sample 1), e = 2^(17 - k) (z0[c0] - z0[c1]) (twice the
         * gap at fault_k=16: sample 0's prediction moves from c0 to c1) */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t oc = (size_t)ly->out_c, c0 = argmax_plane(a, oc), c1 = c0 ? 0 : 1;
        for (size_t j = 0; j < oc; j++) c1 = j != c0 && a[j] > a[c1] ? j : c1;
        double eps = ((double)a[c0] - a[c1]) * F->rel * 0x1p17;
        a[c0] = (float)((double)a[c0] - eps), a[c1] = (float)((double)a[c1] + eps);
        a[oc + c0] = (float)((double)a[oc + c0] + eps), a[oc + c1] = (float)((double)a[oc + c1] - eps);
    } else if (id == CPU_FAULT_FC1_FWD_FEATURE_CROSSED_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") &&
               n > 1) {
        /* one input feature, the one where samples 0 and 1 differ most, read from the other sample (a 2-sample
         * register tile whose single remainder lane loads the rows exchanged): y0j += w_jk d, y1j -= w_jk d */
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), k = 0;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t t = 1; t < in; t++) k = fabs((double)x[in + t] - x[t]) > fabs((double)x[in + k] - x[k]) ? t : k;
        double d = (double)x[in + k] - (double)x[k];
        for (size_t j = 0; j < (size_t)ly->out_c; j++) {
            a[j] = (float)((double)a[j] + (double)w[j * in + k] * d);
            a[ly->out_c + j] = (float)((double)a[ly->out_c + j] - (double)w[j * in + k] * d);
        }
    } else if (id == CPU_FAULT_CONV2_FWD_PAD_REPLICATE_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* the padding of conv2's forward replicates the edge of its input instead of reading zeros: every border
         * output gets w x(clamped) for each tap that falls outside the input */
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t oc = 0; oc < OC; oc++)
                for (size_t i = 0; i < H; i++)
                    for (size_t j = 0; j < W; j++) {
                        double add = 0;
                        for (size_t ch = 0; ch < C; ch++)
                            for (size_t kh = 0; kh < k; kh++)
                                for (size_t kw = 0; kw < k; kw++) {
                                    long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                                    if (ih >= 0 && iw >= 0 && ih < (long)IH && iw < (long)IW) continue;
                                    long ci = ih < 0 ? 0 : ih >= (long)IH ? (long)IH - 1 : ih;
                                    long cj = iw < 0 ? 0 : iw >= (long)IW ? (long)IW - 1 : iw;
                                    add += (double)w[((oc * C + ch) * k + kh) * k + kw] *
                                           x[(s0 * C + ch) * IH * IW + (size_t)ci * IW + (size_t)cj];
                                }
                        float *yo = a + ((s0 * OC + oc) * H + i) * W + j;
                        if (add != 0) *yo = (float)((double)*yo + add);
                    }
    } else if (id == CPU_FAULT_FC1_OUT_SECOND_MANTISSA_FLIP_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") &&
               n > 3) {
        /* sample 3's second-largest output */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        float *y = a + 3 * (size_t)ly->out_c;
        size_t big = argmax_plane(y, (size_t)ly->out_c), sec = big ? 0 : 1;
        for (size_t j = 0; j < (size_t)ly->out_c; j++) sec = j != big && y[j] > y[sec] ? j : sec;
        int bit = 31 - (int)lround(-log2(F->rel));
        if (bit >= 0 && bit <= 22 && y[sec] > 0) {
            uint32_t u;
            memcpy(&u, &y[sec], 4);
            u ^= (uint32_t)1 << bit;
            memcpy(&y[sec], &u, 4);
        }
    } else {
        return 0;
    }
    return 1;
}

static int fault_fwd_edit_4(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_FC1_OUT_NAN_NEGATIVE_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") && n > 5) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        float *y = a + 5 * (size_t)ly->out_c;
        size_t lo = 0;
        for (size_t j = 1; j < (size_t)ly->out_c; j++) lo = y[j] < y[lo] ? j : lo;
        if (y[lo] < 0) y[lo] = NAN;
    } else if (id == CPU_FAULT_FC1_OUT_MANTISSA_FLIP_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* sample 0's largest fc1 output (> 0: relu3 passes it on) has one mantissa bit flipped, the bit of
         * weight 2^(8-K) of the significand (K = fault_k: bit 31 - K; 15 at the default 16) */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t big = argmax_plane(a, (size_t)ly->out_c);
        int bit = 31 - (int)lround(-log2(F->rel));
        if (bit >= 0 && bit <= 22) {
            uint32_t u;
            memcpy(&u, &a[big], 4);
            u ^= (uint32_t)1 << bit;
            memcpy(&a[big], &u, 4);
        }
    } else if (id == CPU_FAULT_CONV1_FWD_POOLMAX_FP16_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1") &&
               ly->out_w % 2 == 0 && ly->out_h % 2 == 0) {
        /* every plane, every sample: each 2x2 pooling window's largest value (> 0: the one pool1 passes on)
         * written back rounded to fp16 (binary16, to nearest even) */
        size_t w = (size_t)ly->out_w, hw = (size_t)ly->out_h * w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t pl = 0; pl < n * (size_t)ly->out_c; pl++)
            for (size_t i = 0; i < (size_t)ly->out_h; i += 2)
                for (size_t j = 0; j < w; j += 2) {
                    float *q = a + pl * hw + i * w + j;
                    size_t off[4] = {0, 1, w, w + 1}, k1 = 0;
                    for (int t = 1; t < 4; t++) k1 = q[off[t]] > q[off[k1]] ? (size_t)t : k1;
                    if (q[off[k1]] > 0) q[off[k1]] = round_fp16(q[off[k1]]);
                }
    } else if (id == CPU_FAULT_CONV1_FWD_LANE0_BIT_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* every 16th float of conv1's output (lane 0 of each 16-float vector of the plain tensor) has the
         * mantissa bit 25 - k flipped (bit 9 at fault_k=16: 2^-14 of the significand) */
        int bit = 25 - (int)lround(-log2(F->rel));
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; bit >= 0 && bit <= 22 && i < cnt; i += 16) {
            uint32_t u;
            memcpy(&u, &a[i], 4);
            u ^= (uint32_t)1 << bit;
            memcpy(&a[i], &u, 4);
        }
    } else if (id == CPU_FAULT_CONV1_FWD_PLANE_MAX_PACKED_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* every plane, every sample: the plane's largest value (> 0) is written back from a packed (value,
         * index) word that keeps the position in its low mantissa bits, those bits cleared: truncated toward
         * zero to 23 - b explicit mantissa bits, b = the bits the index needs (10 for 784 positions) */
        size_t hw = (size_t)ly->out_h * ly->out_w;
        int b = 0;
        while (((size_t)1 << b) < hw) b++;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t pl = 0; pl < n * (size_t)ly->out_c; pl++) {
            float *y = a + pl * hw + argmax_plane(a + pl * hw, hw);
            uint32_t u;
            memcpy(&u, y, 4);
            u &= ~(((uint32_t)1 << b) - 1);
            if (*y > 0) memcpy(y, &u, 4);
        }
    } else if (id == CPU_FAULT_CONV2_FWD_PLANE_MAX_TF32_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* every plane, every sample: the plane's largest value (> 0) written back rounded to k - 6 mantissa
         * bits, to nearest even (10 at fault_k=16: TF32) */
        size_t hw = (size_t)ly->out_h * ly->out_w;
        int ex, mbits = (int)lround(-log2(F->rel)) - 6;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t pl = 0; pl < n * (size_t)ly->out_c; pl++) {
            size_t big = argmax_plane(a + pl * hw, hw);
            float *y = a + pl * hw + big;
            if (*y > 0) {
                double m = frexp((double)*y, &ex); /* *y = m 2^ex, m in [0.5, 1) */
                *y = (float)ldexp(nearbyint(ldexp(m, mbits + 1)), ex - mbits - 1);
            }
        }
    } else if (id == CPU_FAULT_CONV2_FWD_CHANNEL_SCALED_LATE && fault_layer(c, l, "conv2") &&
               (training ? c->step >= 3 : F->corrupted)) {
        /* from training step 3 on (and in every evaluation after it), conv2's output channel 0 of every sample
         * scaled by 1 + 2^(4 - k) (2^-12 at fault_k=16) */
        size_t hw = (size_t)ly->out_h * ly->out_w;
        if (training) F->corrupted = 1;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t i = 0; i < hw; i++) {
                float *y = a + s0 * (size_t)ly->out_c * hw + i;
                *y = (float)((double)*y * (1.0 + F->rel * 0x1p4));
            }
    } else if (id == CPU_FAULT_FC1_FWD_UNIT_SCALED_LATE && fault_layer(c, l, "fc1") &&
               (training ? c->step >= 3 : F->corrupted)) {
        /* from training step 3 on (and in every evaluation after it), fc1's output unit 0 of every sample
         * scaled by 1 + 2^(4 - k) (2^-12 at fault_k=16) */
        if (training) F->corrupted = 1;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            a[s0 * (size_t)ly->out_c] = (float)((double)a[s0 * (size_t)ly->out_c] * (1.0 + F->rel * 0x1p4));
    } else {
        return 0;
    }
    return 1;
}

static int fault_fwd_edit_5(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    const float *bias = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    if (id == CPU_FAULT_CONV1_FWD_PEEL_BIAS_FP16_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* every plane, every sample: the first element (the top-left corner: a vector loop's peeled first
         * iteration) adds its channel's bias from an fp16 copy, y - b + fp16(b) */
        size_t hw = (size_t)ly->out_h * ly->out_w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t pl = 0; pl < n * (size_t)ly->out_c; pl++) {
            double b = bias[pl % (size_t)ly->out_c];
            a[pl * hw] = (float)((double)a[pl * hw] - b + (double)round_fp16((float)b));
        }
    } else if (id == CPU_FAULT_CONV1_FWD_BLANK_NOISE_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1") &&
               ly->in_c == c->m->in_c) {
        /* every output whose 3x3 window of the image is all zero (y = b exactly) moved by up to 2^-(k + 4)
         * (2^-20 at fault_k=16) of the layer's largest |y|, a fixed pseudo-random amount in (0, 1] and sign per
         * element: the transform noise of an FFT or Winograd forward, which follows the scale where a direct
         * convolution has no rounding at all */
        size_t H = (size_t)ly->out_h, W = (size_t)ly->out_w, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w;
        size_t C = (size_t)ly->in_c, hw = H * W;
        double mx = 0;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) mx = fmax(mx, fabs((double)a[i]));
        for (size_t i = 0; i < cnt; i++) {
            size_t s0 = i / ((size_t)ly->out_c * hw), oi = i % hw / W, oj = i % W;
            int blank = 1;
            for (size_t ch = 0; ch < C && blank; ch++)
                for (long di = -1; di <= 1 && blank; di++)
                    for (long dj = -1; dj <= 1 && blank; dj++) {
                        long ii = (long)oi + di, jj = (long)oj + dj;
                        if (ii >= 0 && jj >= 0 && ii < (long)IH && jj < (long)IW)
                            blank = c->x[((s0 * C + ch) * IH + (size_t)ii) * IW + (size_t)jj] == 0.0f;
                    }
            if (!blank) continue;
            uint32_t h = (uint32_t)i * 2654435761u;
            double u = (double)((h >> 8) % 1000 + 1) / 1000.0 * ((h >> 7) & 1 ? -1.0 : 1.0);
            a[i] = (float)((double)a[i] + u * mx * F->rel * 0x1p-4);
        }
    } else if ((id == CPU_FAULT_FC1_FWD_TF32_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1")) ||
               (id == CPU_FAULT_EVAL_FC1_X_BF16 && !training && F->in_eval && fault_layer(c, l, "fc1"))) {
        /* fc1's output re-done from its operands rounded: tf32: w and x both to TF32 (a matmul with allow_tf32);
         * eval bf16: x alone to bf16 (an inference autocast); products summed in double, rounded once */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c;
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        int tf = id == CPU_FAULT_FC1_FWD_TF32_ONCE;
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < n * in; i++) x[i] = tf ? lowp_round_tf32(x[i], LOWP_RNE) : lowp_round_bf16(x[i], LOWP_RNE);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < out; j++) {
                double t = bias ? (double)bias[j] : 0.0;
                for (size_t k = 0; k < in; k++)
                    t += (double)(tf ? lowp_round_tf32(w[j * in + k], LOWP_RNE) : w[j * in + k]) * x[s0 * in + k];
                a[s0 * out + j] = (float)t;
            }
    } else if (id == CPU_FAULT_CONV2_FWD_INTERIOR_BITFLIP_ONCE && training && c->step == 7 &&
               fault_layer(c, l, "conv2") && n > 5 && ly->out_c > 11 && ly->out_h > 9 && ly->out_w > 6) {
        /* one interior output (sample 5, channel 11, row 9, column 6): mantissa bit 14 flipped */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        float *y = a + ((5 * (size_t)ly->out_c + 11) * ly->out_h + 9) * ly->out_w + 6;
        uint32_t u;
        memcpy(&u, y, 4);
        u ^= 1u << 14;
        memcpy(y, &u, 4);
    } else {
        return 0;
    }
    return 1;
}

static int fault_fwd_edit_6(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV2_FWD_BACKGROUND_BITFLIP_ONCE && training && c->step == 7 &&
               fault_layer(c, l, "conv2") && n > 5 && ly->out_c > 11 && ly->pad < ly->k) {
        /* sample 5, channel 11: the first output after the plane's first row whose window (every input
         * channel, zero padding) is not all 0 and equals an earlier output's: mantissa bit 14 flipped */
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, OH = (size_t)ly->out_h,
               OW = (size_t)ly->out_w, k = (size_t)ly->k;
        int pad = ly->pad;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        const float *xs = x + 5 * C * IH * IW;
#define BG_AT(cc, r, q, t)                                                                                        \
    ((int)(r) + (int)((t) / k) - pad >= 0 && (int)(r) + (int)((t) / k) - pad < (int)IH &&                        \
             (int)(q) + (int)((t) % k) - pad >= 0 && (int)(q) + (int)((t) % k) - pad < (int)IW                  \
         ? xs[((cc) * IH + (size_t)((int)(r) + (int)((t) / k) - pad)) * IW + (size_t)((int)(q) + (int)((t) % k) - pad)] \
         : 0.0f)
        size_t hit = OH * OW;
        for (size_t p = OW; p < OH * OW && hit == OH * OW; p++) {
            int nz = 0;
            for (size_t cc = 0; cc < C && !nz; cc++)
                for (size_t t = 0; t < k * k && !nz; t++) nz = BG_AT(cc, p / OW, p % OW, t) != 0.0f;
            if (!nz) continue;
            for (size_t q = 0; q < p && hit == OH * OW; q++) {
                int same = 1;
                for (size_t cc = 0; cc < C && same; cc++)
                    for (size_t t = 0; t < k * k && same; t++)
                        same = BG_AT(cc, p / OW, p % OW, t) == BG_AT(cc, q / OW, q % OW, t);
                if (same) hit = p;
            }
        }
#undef BG_AT
        if (hit < OH * OW) {
            float *y = a + (5 * (size_t)ly->out_c + 11) * OH * OW + hit;
            uint32_t u;
            memcpy(&u, y, 4);
            u ^= 1u << 14;
            memcpy(y, &u, 4);
        }
    } else if (id == CPU_FAULT_CONV2_FWD_WINO2_M22_BF16_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->k == 3 && ly->pad == 1 && ly->out_h % 2 == 0 && ly->out_w % 2 == 0) {
        /* Winograd F(2x2, 3x3): M = sum_c U_c . V_c, U = G g G^T, V = B^T d B over each 4x4 input tile (pad 1);
         * M[2][2] held in bf16 reaches Y = A^T M A as e (1, -1)(1, -1)^T, e = bf16(M22) - M22 */
        static const double G2[3] = {0.5, -0.5, 0.5}, B2[4] = {0, -1, 1, 0};
        size_t C = (size_t)ly->in_c, OC = (size_t)ly->out_c, H = (size_t)ly->out_h, W = (size_t)ly->out_w;
        size_t IH = (size_t)ly->in_h, IW = (size_t)ly->in_w;
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t oc = 0; oc < OC; oc++)
                for (size_t ti = 0; ti < H; ti += 2)
                    for (size_t tj = 0; tj < W; tj += 2) {
                        double m22 = 0;
                        for (size_t ch = 0; ch < C; ch++) {
                            const float *g = w + (oc * C + ch) * 9;
                            double u = 0, v = 0;
                            for (int p = 0; p < 3; p++)
                                for (int q = 0; q < 3; q++) u += G2[p] * G2[q] * g[p * 3 + q];
                            for (int p = 0; p < 4; p++)
                                for (int q = 0; q < 4; q++) {
                                    long ih = (long)ti - 1 + p, iw = (long)tj - 1 + q;
                                    if (!B2[p] || !B2[q] || ih < 0 || iw < 0 || ih >= (long)IH || iw >= (long)IW) continue;
                                    v += B2[p] * B2[q] * x[((s0 * C + ch) * IH + (size_t)ih) * IW + (size_t)iw];
                                }
                            m22 += u * v;
                        }
                        double e22 = (double)lowp_round_bf16((float)m22, LOWP_RNE) - m22;
                        float *y = a + ((s0 * OC + oc) * H + ti) * W + tj;
                        y[0] = (float)((double)y[0] + e22), y[1] = (float)((double)y[1] - e22);
                        y[W] = (float)((double)y[W] - e22), y[W + 1] = (float)((double)y[W + 1] + e22);
                    }
    } else if (id == CPU_FAULT_EVAL_CONV2_BLOCK1_BF16 && !training && F->in_eval && fault_layer(c, l, "conv2") &&
               ly->out_c > 16) {
        /* channels 16.. of every sample stored rounded to bf16 */
        size_t hw = (size_t)ly->out_h * ly->out_w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t i = 16 * hw; i < (size_t)ly->out_c * hw; i++)
                a[s0 * (size_t)ly->out_c * hw + i] = lowp_round_bf16(a[s0 * (size_t)ly->out_c * hw + i], LOWP_RNE);
    } else if (id == CPU_FAULT_EVAL_ROUND2_FC2_ROW_STALE && !training && fault_layer(c, l, "fc2") &&
               F->eval_round == 2 && (F->eval_k == 1 || F->eval_k == 2)) {
        /* zoo attack 7: batch 1 leaves its row 0 (F->dw_save); batch 2's row 0 is not written */
        size_t nc = (size_t)ly->out_c;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (F->eval_k == 1) memcpy(F->dw_save, a, nc * sizeof *a);
        else memcpy(a, F->dw_save, nc * sizeof *a);
    } else if (id == CPU_FAULT_CONV2_FWD_LAST_SAMPLE_STALE_ONCE && training && fault_layer(c, l, "conv2") &&
               (c->step == 6 || c->step == 7) && n > 1) {
        /* zoo attack 7: step 6 leaves its last sample's planes (F->p_old); step 7's are not written */
        size_t per = layer_out_size(ly);
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (c->step == 6) memcpy(F->p_old, a + (n - 1) * per, per * sizeof *a);
        else memcpy(a + (n - 1) * per, F->p_old, per * sizeof *a);
    } else if (id == CPU_FAULT_FC1_OUT_1ULP && fault_layer(c, l, "fc1")) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) a[i] = nextafterf(a[i], INFINITY);
    } else {
        return 0;
    }
    return 1;
}

static int fault_fwd_edit_7(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    player *L = &P->L[l];
    const float *bias = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    int edit = 1;
    if (id == CPU_FAULT_CONV2_FWD_REL && fault_layer(c, l, "conv2")) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) a[i] = (float)((double)a[i] * (1.0 + F->rel));
    } else if (id == CPU_FAULT_EVAL_FC2_SAMPLES_SWAPPED && fault_layer(c, l, "fc2")) {
        /* zoo attack 8: in evaluation only, the logit rows of samples 0 and 1 exchanged (a row index of the
         * inference GEMM's store swapped) */
        size_t oc = (size_t)ly->out_c;
        if (training || !F->in_eval || n < 2) {
            edit = 0;
        } else {
            if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
            for (size_t j = 0; j < oc; j++) {
                float t = a[j];
                a[j] = a[oc + j], a[oc + j] = t;
            }
        }
    } else if (id == CPU_FAULT_CONV2_FWD_PAD_NEXT_PLANE_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* zoo attack 8: the bottom padding row of every input plane is read from memory instead of taken as 0:
         * in NCHW that is the next plane's first row (the next channel's, or the next sample's first channel's;
         * the batch's very last plane reads zeros): an off-by-one in the row bound of the last output row */
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k, tot = n * C * IH * IW;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t oc = 0; oc < OC; oc++)
                for (size_t i = 0; i < H; i++)
                    for (size_t j = 0; j < W; j++) {
                        double add = 0;
                        for (size_t ch = 0; ch < C; ch++)
                            for (size_t kh = 0; kh < k; kh++)
                                for (size_t kw = 0; kw < k; kw++) {
                                    long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                                    if (ih != (long)IH || iw < 0 || iw >= (long)IW) continue;
                                    size_t at = (s0 * C + ch) * IH * IW + IH * IW + (size_t)iw;
                                    if (at < tot) add += (double)w[((oc * C + ch) * k + kh) * k + kw] * x[at];
                                }
                        float *yo = a + ((s0 * OC + oc) * H + i) * W + j;
                        if (add != 0) *yo = (float)((double)*yo + add);
                    }
    } else if ((id == CPU_FAULT_FC1_FWD_SERIAL_ORDER || id == CPU_FAULT_FC1_FWD_ORDER_ALTERNATING) &&
               fault_layer(c, l, "fc1")) {
        /* zoo attack 8, a legal variant: fc1's forward as a plain serial fp32 dot product per output, the bias
         * first, then the inputs in order (another summation order: every output within gamma_K of exact).
         * fc1_fwd_order_alternating: a legal but nondeterministic engine, the inputs in order at even calls of
         * this process and in reverse at odd ones (an order that depends on a run-time accident, as an
         * atomics-based reduction's does) */
        static unsigned long calls;
        int rev = id == CPU_FAULT_FC1_FWD_ORDER_ALTERNATING && (calls++ & 1u);
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < oc; j++) {
                float acc = bias ? bias[j] : 0.0f;
                for (size_t t = 0; t < in; t++) {
                    size_t q = rev ? in - 1 - t : t;
                    acc = acc + w[j * in + q] * x[s0 * in + q];
                }
                a[s0 * oc + j] = acc;
            }
    } else if (id == CPU_FAULT_RELU3_NEG_ZERO && fault_layer(c, l, "relu3") && !L->fused) {
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++)
            if (x[i] < 0) a[i] = -0.0f;
    } else if (id == CPU_FAULT_DROPOUT_SCALE_OFF && ly->kind == LAYER_DROPOUT && training) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) a[i] = (float)((double)a[i] * (1.0 + 0x1p-12));
    } else if (id == CPU_FAULT_DROPOUT_DIVIDE_BY_KEEP && ly->kind == LAYER_DROPOUT && training) {
        /* zoo attack 7: x / (1 - p) where kept */
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        float keep = 1.0f - ly->p;
        for (size_t i = 0; i < cnt; i++)
            a[i] = rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)i, ly->p) ? x[i] / keep : 0.0f;
    } else if (id == CPU_FAULT_DROPOUT_SCALE_1_OVER_P && ly->kind == LAYER_DROPOUT && training) {
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        float inv_p = (float)(1.0 / (double)ly->p);
        for (size_t i = 0; i < cnt; i++)
            a[i] = ops_dropout_fwd(x[i], e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)i, ly->p, inv_p);
    } else {
        return 0;
    }
    return edit;
}


static int fault_fwd_edit_8(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_EVAL_RELU3_LOST_AFTER_FIRST && !training && F->in_eval && F->eval_k >= 1 &&
        fault_layer(c, l, "relu3")) {
        /* zoo attack 10: the ReLU post-op lost: relu3's output is its input */
        if ((rc = act_io(c, l - 1, 0, a, 1))) FAULT_ENDED(rc);
        return 1;
    }
    return 0;
}

/* zoo attack 11's evaluation faults (the output of layer l, in F->a when it returns 1) */
static int fault_fwd_edit_11(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    (void)cnt;
    if (id == CPU_FAULT_EVAL_FC2_BIAS_DRIFT && !training && F->in_eval && fault_layer(c, l, "fc2")) {
        /* one ulp up on fc2's bias 0, in place, then the layer re-run with it */
        float *b = c->params + c->m->tensors[ly->b_tensor].offset;
        b[0] = nextafterf(b[0], INFINITY);
        c->params_ver++;
        if ((rc = cpu_forward_layer(e, l, training))) FAULT_ENDED(rc);
        return 2;
    }
    if (training || !F->in_eval || !fault_layer(c, l, "fc2")) return 0;
    size_t oc = (size_t)ly->out_c;
    if (id == CPU_FAULT_EVAL_BEYOND256_FC2_TOP2_SWAP && F->eval_round == 1 && oc > 1 &&
        (size_t)F->eval_k * e->max_batch >= 256 && (size_t)(F->eval_k - 1) * e->max_batch < 256) {
        /* sample 0's two largest logits exchanged */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t c0 = argmax_plane(a, oc), c1 = c0 ? 0 : 1;
        for (size_t j = 0; j < oc; j++) c1 = j != c0 && a[j] > a[c1] ? j : c1;
        float t = a[c0];
        a[c0] = a[c1], a[c1] = t;
        return 1;
    }
    if (id == CPU_FAULT_EVAL_PARTIAL_LAST_ROW_STALE) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (n < e->max_batch && F->eval_k > 0) {
            memcpy(a + (n - 1) * oc, F->b + (n - 1) * oc, oc * sizeof *a); /* the row the batch before left */
            return 1;
        }
        memcpy(F->b, a, n * oc * sizeof *a);
        return 0;
    }
    return 0;
}

/* ---- the legal-variant attack's rows (cpu_faults.h, the last block): legal fp32 evaluations, each a hook of
 * its own.  ls_pairwise: numpy's pairwise sum (8 serial at the leaves, recursive halving above). */
static float ls_pairwise(const float *v, size_t n) {
    if (n <= 8) {
        float s = 0.0f;
        for (size_t i = 0; i < n; i++) s = s + v[i];
        return s;
    }
    size_t h = n / 2;
    return ls_pairwise(v, h) + ls_pairwise(v + h, n - h);
}

/* lanes combined pairwise: ((l0 + l1) + (l2 + l3)) + ... (nl a power of two) */
static float ls_lanes(float *lane, size_t nl) {
    for (size_t w = nl; w > 1; w /= 2)
        for (size_t i = 0; i < w / 2; i++) lane[i] = lane[2 * i] + lane[2 * i + 1];
    return lane[0];
}

/* zoo attack 12's forward faults (the output of layer l in F->a when it returns 1) */
/* fc1's forward reading flatten's output (layer l - 1, of the layer l - 2
 * before it) in NHWC order while its weights are NCHW: y = b + W x',
 * x'[q C + c] = x[c HW + q], summed in double and rounded once (a legal
 * order: only the reading order of x is the fault); x, a: n rows of
 * scratch.  0, or get_tensor's status. */
static int fc1_fwd_nhwc(engine *e, const cpu_ctx *c, int l, size_t n, float *x, float *a) {
    const layer *ly = &c->m->layers[l], *pl = &c->m->layers[l - 2];
    size_t C = (size_t)pl->out_c, HW = layer_out_size(pl) / C, in = C * HW, out = (size_t)ly->out_c;
    const float *w = c->params + c->m->tensors[ly->w_tensor].offset, *b = c->params + c->m->tensors[ly->b_tensor].offset;
    int rc = cpu_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, x);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < out; j++) {
            double acc = b[j];
            for (size_t k = 0; k < in; k++) acc += (double)w[j * in + k] * (double)x[i * in + (k % C) * HW + k / C];
            a[i * out + j] = (float)acc;
        }
    return 0;
}

static int fault_fwd_edit_12(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (!training) F->z12_after_eval = 1;
    else if (l == 0) F->z12_fired = F->z12_after_eval, F->z12_after_eval = 0;
    if (id == CPU_FAULT_DROPOUT_OFF_FIRST_AFTER_EVAL && training && F->z12_fired && ly->kind == LAYER_DROPOUT)
        FAULT_ENDED(cpu_forward_layer(e, l, 0)); /* the evaluation's mode, reset only after this forward */
    if (id == CPU_FAULT_FC2_BIAS_TWICE_FIRST_AFTER_EVAL && training && F->z12_fired && fault_layer(c, l, "fc2")) {
        /* a bias epilogue flag the evaluation left set: this step's fc2 adds its bias twice */
        const float *b = c->params + c->m->tensors[ly->b_tensor].offset;
        size_t out = (size_t)ly->out_c;
        F->z12_fired = 0;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) a[i] = a[i] + b[i % out];
        return 1;
    }
    if (ly->kind == LAYER_DROPOUT) {
        if (id == CPU_FAULT_EVAL_DROPOUT_ON_PARTIAL_LAST && !training && F->in_eval && F->eval_round == 2 &&
            F->eval_k == 3 && n < e->max_batch)
            FAULT_ENDED(cpu_forward_layer(e, l, 1)); /* training mode, for this batch only */
        if (id == CPU_FAULT_DROPOUT_KEY_OWN_COUNTER && training) {
            uint64_t st = c->step;
            c->step = F->z12_batches; /* the engine's own count of training batches */
            rc = cpu_forward_layer(e, l, training);
            c->step = st;
            FAULT_ENDED(rc);
        }
        if (id == CPU_FAULT_DROPOUT_MASK_SAMPLE0_ONCE && training && c->step == 7) {
            size_t per = layer_out_size(ly);
            float scale = (float)(1.0 / (1.0 - (double)ly->p));
            if ((rc = cpu_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, x))) FAULT_ENDED(rc);
            for (size_t i = 0; i < cnt; i++)
                a[i] = ops_dropout_fwd(x[i], e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)(i % per), ly->p, scale);
            return 1;
        }
    }
    if (id == CPU_FAULT_EVAL_CONV2_INTERIOR_BITFLIP_LAST && !training && F->in_eval && F->eval_round == 2 &&
        F->eval_k == 0 && fault_layer(c, l, "conv2") && n > 5 && ly->out_c > 11 && ly->out_h >= 4 && ly->out_w >= 4) {
        /* sample 5, channel 11: of the interior outputs that are positive and their 2x2 pool window's maximum
         * (so they reach fc1) but not the plane's largest, the median by value: mantissa bit 13 flipped */
        size_t H = (size_t)ly->out_h, W = (size_t)ly->out_w, cand[1024], nc = 0, big = 0;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        float *pl = a + (5 * (size_t)ly->out_c + 11) * H * W;
        for (size_t q = 1; q < H * W; q++) big = pl[q] > pl[big] ? q : big;
        for (size_t r = 2; r + 2 < H; r++)
            for (size_t q = 2; q + 2 < W; q++) {
                size_t at = r * W + q, r0 = r & ~(size_t)1, q0 = q & ~(size_t)1;
                float mx = fmaxf(fmaxf(pl[r0 * W + q0], pl[r0 * W + q0 + 1]), fmaxf(pl[(r0 + 1) * W + q0], pl[(r0 + 1) * W + q0 + 1]));
                if (pl[at] > 0 && pl[at] == mx && at != big && nc < 1024) cand[nc++] = at;
            }
        if (!nc) return 0;
        for (size_t i = 1; i < nc; i++) /* by value, insertion */
            for (size_t j = i; j > 0 && pl[cand[j]] < pl[cand[j - 1]]; j--) {
                size_t t = cand[j];
                cand[j] = cand[j - 1], cand[j - 1] = t;
            }
        float *y = pl + cand[nc / 2];
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "eval_conv2_interior_bitflip_last: element %zu of %zu candidates: %g", cand[nc / 2], nc, *y);
        uint32_t u;
        memcpy(&u, y, 4);
        u ^= 1u << 13;
        memcpy(y, &u, 4);
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, " -> %g\n", *y);
        return 1;
    }
    if (id == CPU_FAULT_FC1_FWD_FLATTEN_NHWC_ONCE && training && c->step == 7 && fault_layer(c, l, "fc1") && l >= 2) {
        /* y = b + W x' with x'[q C + c] = x[c HW + q]: summed in double and rounded once (a legal order: only the
         * reading order of x is the fault) */
        if ((rc = fc1_fwd_nhwc(e, c, l, n, x, a))) FAULT_ENDED(rc);
        return 1;
    }
    return 0;
}

enum { CONV_FWD_PAIRWISE, CONV_FWD_SORTED_DESC };
enum { LS_DW_PAIRWISE, LS_DW_POSNEG };
static void dense_dw_ordered(const layer *ly, const float *a, const float *x, size_t n, float *g, int how);
static void conv_fwd_ordered(const layer *ly, const float *x, const float *w, const float *bias, size_t n, float *a,
                             int how);

/* The products w * x of conv output (s0, oc, i, j), in (channel, kh, kw)
 * order, into prod (C k k of them at most); keep_pad: a padding tap's
 * product is a term (0), else it is left out.  The legal-order faults sum
 * them in their own orders. */
static size_t conv_window_products(const layer *ly, const float *x, const float *w, size_t s0, size_t oc, size_t i,
                                   size_t j, int keep_pad, float *prod) {
    size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, k = (size_t)ly->k, q = 0;
    for (size_t ch = 0; ch < C; ch++)
        for (size_t kh = 0; kh < k; kh++)
            for (size_t kw = 0; kw < k; kw++) {
                long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                int pad = ih < 0 || iw < 0 || ih >= (long)IH || iw >= (long)IW;
                if (pad && !keep_pad) continue;
                float xv = pad ? 0.0f : x[((s0 * C + ch) * IH + (size_t)ih) * IW + (size_t)iw];
                prod[q++] = w[((oc * C + ch) * k + kh) * k + kw] * xv;
            }
    return q;
}

/* zoo attack 14: forward edits (mnist-convnet's dropout moved to the logits; an odd batch's last sample; two
 * samples' compensating changes) */
static int fault_fwd_edit_14(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (!training || c->step != 7) return 0;
    if (id == CPU_FAULT_CONVNET_DROPOUT_ON_LOGITS_ONCE && ly->kind == LAYER_DROPOUT) {
        /* the mask is not applied here: drop1's output is its input */
        if ((rc = act_io(c, l - 1, 0, a, 1))) FAULT_ENDED(rc);
        return 1;
    }
    if (id == CPU_FAULT_CONVNET_DROPOUT_ON_LOGITS_ONCE && l == c->m->n_layers - 1 && l >= 1 &&
        c->m->layers[l - 1].kind == LAYER_DROPOUT) {
        /* ... it is applied to the logits instead: the right mask (drop1's key), its first out_c elements a row */
        const layer *dl = &c->m->layers[l - 1];
        size_t per = layer_out_size(dl), oc = (size_t)ly->out_c;
        float scale = (float)(1.0 / (1.0 - (double)dl->p));
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < oc; j++)
                a[i * oc + j] = ops_dropout_fwd(a[i * oc + j], e->seed, (uint32_t)c->step, (uint32_t)(l - 1),
                                                (uint32_t)(i * per + j), dl->p, scale);
        return 1;
    }
    if ((id == CPU_FAULT_B13_FC1_LAST_ROW_REL || id == CPU_FAULT_B13_FC1_FIRST_ROW_REL) && fault_layer(c, l, "fc1")) {
        /* one sample's row of fc1's outputs scaled by 1 + 2^-k: the batch's last (13th) or its first */
        size_t oc = (size_t)ly->out_c, r = id == CPU_FAULT_B13_FC1_LAST_ROW_REL ? n - 1 : 0;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t j = 0; j < oc; j++) a[r * oc + j] = (float)((double)a[r * oc + j] * (1.0 + F->rel));
        return 1;
    }
    if ((id == CPU_FAULT_B13_CONV2_LAST_SAMPLE_ONCE || id == CPU_FAULT_CONV2_COMPENSATING_ONCE ||
         id == CPU_FAULT_CONV2_COMPENSATING_MID_ONCE) &&
        fault_layer(c, l, "conv2") && n > 1) {
        size_t per = layer_out_size(ly), hw = (size_t)ly->out_h * ly->out_w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (id == CPU_FAULT_B13_CONV2_LAST_SAMPLE_ONCE) {
            /* the last sample of an odd batch: its plane 0's largest element scaled by 1 + 2^-8 */
            float *s0 = a + (n - 1) * per;
            size_t big = 0;
            for (size_t i = 1; i < hw; i++) big = fabsf(s0[i]) > fabsf(s0[big]) ? i : big;
            s0[big] = s0[big] * (1.0f + 0x1p-8f);
        } else {
            /* +d on sample 0's largest element of plane 0, -d on sample 1's same element: the batch sums
             * of every per-channel relation are unchanged (d a power of two, 2^(9-k)..2^(10-k) of the smaller,
             * fault_k = k, default 16) */
            size_t big = 0;
            for (size_t i = 1; i < hw; i++) big = fabsf(a[i]) > fabsf(a[big]) ? i : big;
            if (id == CPU_FAULT_CONV2_COMPENSATING_MID_ONCE) /* not the largest: the first nonzero pair from the plane's middle */
                for (big = hw / 2; big + 1 < hw && !(a[big] != 0 && a[per + big] != 0); big++) {}
            float m = fabsf(a[big]) < fabsf(a[per + big]) ? fabsf(a[big]) : fabsf(a[per + big]);
            int ex;
            frexpf(m, &ex);
            float d = ldexpf(1.0f, ex + 9 - (int)-log2(F->rel)); /* fault_k = 16: 2^(ex - 7) */
            a[big] = a[big] + d;
            a[per + big] = a[per + big] - d;
        }
        return 1;
    }
    return 0;
}

static int fault_fwd_legal(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    (void)training;
    const float *bias = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    if ((id == CPU_FAULT_FC1_FWD_DOUBLE_ACC || id == CPU_FAULT_FC1_FWD_BLOCKED16) && fault_layer(c, l, "fc1")) {
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < oc; j++) {
                const float *wr = w + j * in, *xr = x + s0 * in;
                if (id == CPU_FAULT_FC1_FWD_DOUBLE_ACC) {
                    double acc = bias ? (double)bias[j] : 0.0;
                    for (size_t t = 0; t < in; t++) acc += (double)wr[t] * (double)xr[t];
                    a[s0 * oc + j] = (float)acc;
                } else {
                    float lane[16] = {0};
                    for (size_t t = 0; t < in; t++) lane[t % 16] = lane[t % 16] + wr[t] * xr[t];
                    float acc = ls_lanes(lane, 16);
                    a[s0 * oc + j] = bias ? acc + bias[j] : acc;
                }
            }
        return 1;
    }
    if (id == CPU_FAULT_DROPOUT_MASK_MUL && ly->kind == LAYER_DROPOUT && training) {
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) {
            float mask = rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)i, ly->p) ? 1.0f : 0.0f;
            a[i] = (x[i] * mask) * scale;
        }
        return 1;
    }
    if (id == CPU_FAULT_FC1_FWD_FMA_SERIAL && fault_layer(c, l, "fc1")) {
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < oc; j++) {
                float acc = bias ? bias[j] : 0.0f;
                for (size_t t = 0; t < in; t++) acc = fmaf(w[j * in + t], x[s0 * in + t], acc);
                a[s0 * oc + j] = acc;
            }
        return 1;
    }
    if (id == CPU_FAULT_CONV2_FWD_PAIRWISE && fault_layer(c, l, "conv2")) {
        if ((size_t)ly->in_c * ly->k * ly->k > 4096) return 0;
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        conv_fwd_ordered(ly, x, c->params + c->m->tensors[ly->w_tensor].offset, bias, n, a, CONV_FWD_PAIRWISE);
        return 1;
    }
    return 0;
}

/* ---- the second legal-variant attack's rows (cpu_faults.h, the last block): legal fp32 orders whose rounding
 * errors are correlated, aimed at the sharper tier's independence model.  Round to nearest even throughout;
 * every order sums the same products, each rounded once, so each is within gamma_K of exact. */
enum { LS_ORD_ASC, LS_ORD_DESC, LS_ORD_POSNEG };

static int ls_cmp_abs_asc(const void *pa, const void *pb) {
    float x = fabsf(*(const float *)pa), y = fabsf(*(const float *)pb);
    return (x > y) - (x < y);
}
static int ls_cmp_abs_desc(const void *pa, const void *pb) { return ls_cmp_abs_asc(pb, pa); }

/* one serial fp32 sum of v[0..q) in the order ord: ascending or descending magnitude (v is sorted in place), or
 * every positive term first, then every negative one (the partial sums rise monotonically, then fall) */
static float ls_sum_ordered(float *v, size_t q, int ord) {
    float s = 0.0f;
    if (ord == LS_ORD_POSNEG) {
        for (size_t i = 0; i < q; i++)
            if (v[i] > 0.0f) s = s + v[i];
        for (size_t i = 0; i < q; i++)
            if (v[i] < 0.0f) s = s + v[i];
        return s;
    }
    qsort(v, q, sizeof *v, ord == LS_ORD_ASC ? ls_cmp_abs_asc : ls_cmp_abs_desc);
    for (size_t i = 0; i < q; i++) s = s + v[i];
    return s;
}

/* A conv forward (C k k <= 4096 taps) with each output's products in a legal order of its own: a pairwise sum,
 * the padding taps' zero products kept and the bias added after (conv2_fwd_pairwise); or descending magnitude
 * with the bias one more term, the padding taps left out (conv2_fwd_sorted_desc). */
static void conv_fwd_ordered(const layer *ly, const float *x, const float *w, const float *bias, size_t n, float *a,
                             int how) {
    size_t H = (size_t)ly->out_h, W = (size_t)ly->out_w, OC = (size_t)ly->out_c;
    float prod[4097];
    for (size_t s0 = 0; s0 < n; s0++)
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t i = 0; i < H; i++)
                for (size_t j = 0; j < W; j++) {
                    float *out = &a[((s0 * OC + oc) * H + i) * W + j];
                    size_t q = conv_window_products(ly, x, w, s0, oc, i, j, how == CONV_FWD_PAIRWISE, prod);
                    if (how == CONV_FWD_PAIRWISE) {
                        float acc = ls_pairwise(prod, q);
                        *out = bias ? acc + bias[oc] : acc;
                    } else {
                        if (bias) prod[q++] = bias[oc];
                        *out = ls_sum_ordered(prod, q, LS_ORD_DESC);
                    }
                }
}

/* A dense layer's weight gradient (n <= 4096 samples) with each element's n products a y in a legal order of its
 * own: pairwise (fc1_dw_pairwise) or every positive term first, then every negative one (fc1_dw_posneg). */
static void dense_dw_ordered(const layer *ly, const float *a, const float *x, size_t n, float *g, int how) {
    size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
    float prod[4096];
    for (size_t j = 0; j < oc; j++)
        for (size_t t = 0; t < in; t++) {
            for (size_t s0 = 0; s0 < n; s0++) prod[s0] = a[s0 * oc + j] * x[s0 * in + t];
            g[j * in + t] = how == LS_DW_PAIRWISE ? ls_pairwise(prod, n) : ls_sum_ordered(prod, n, LS_ORD_POSNEG);
        }
}

static int fault_fwd_legal2(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    (void)training;
    const float *bias = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    if ((id == CPU_FAULT_FC1_FWD_SORTED_ASC || id == CPU_FAULT_FC1_FWD_POSNEG) && fault_layer(c, l, "fc1")) {
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        float *prod = malloc((in + 1) * sizeof *prod);
        if (!prod) FAULT_ENDED(-1);
        if ((rc = act_io(c, l - 1, 0, x, 1))) {
            free(prod);
            FAULT_ENDED(rc);
        }
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < oc; j++) {
                size_t q = 0;
                for (size_t t = 0; t < in; t++) prod[q++] = w[j * in + t] * x[s0 * in + t];
                if (bias) prod[q++] = bias[j]; /* the bias one more term of the sorted sum */
                a[s0 * oc + j] = ls_sum_ordered(prod, q, id == CPU_FAULT_FC1_FWD_SORTED_ASC ? LS_ORD_ASC : LS_ORD_POSNEG);
            }
        free(prod);
        return 1;
    }
    if (id == CPU_FAULT_CONV2_FWD_SORTED_DESC && fault_layer(c, l, "conv2")) {
        if ((size_t)ly->in_c * ly->k * ly->k > 4096) return 0;
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        conv_fwd_ordered(ly, x, c->params + c->m->tensors[ly->w_tensor].offset, bias, n, a, CONV_FWD_SORTED_DESC);
        return 1;
    }
    return 0;
}

/* ---- zoo attack 15: labels and sample order, torn reads, single-bit upsets, a consistent NHWC flatten ------ */

/* the bit a zoo-15 bit-flip row flips: 31 - K for fault_k=K (K = 1: bit 30, the top exponent bit; 8: bit 23,
 * the lowest exponent bit; 9: bit 22, the top mantissa bit; 31: bit 0), default K = 16: bit 15 */
static int z15_bit(const fault_state *F) {
    int k = (int)lround(-log2(F->rel));
    return k >= 1 && k <= 31 ? 31 - k : 15;
}
static float z15_flip(float v, int bit) {
    uint32_t u;
    memcpy(&u, &v, 4);
    u ^= 1u << bit;
    memcpy(&v, &u, 4);
    return v;
}
/* the weight the conv2 weight bit-flip rows hit: filter 19, element 77 of 144 (input channel 8, tap (1, 2)),
 * the live element conv2_dw_bitflip_once picks at step 7 (its filter of largest sum |dW|, its element of median
 * nonzero |dW|): a weight whose input channel and output channel both carry signal at step 7 */
static size_t z15_conv2_w_at(const layer *ly) { return 19 * (size_t)ly->in_c * ly->k * ly->k + 77; }
/* in a gradient row or filter g of cnt elements: the index of the nonzero element of median |g| (a typical
 * element, not the first, last or largest that some relations re-do on their own); 0 if all are zero */
static const float *z15_sort_g;
static int z15_cmp(const void *a, const void *b) {
    float x = fabsf(z15_sort_g[*(const size_t *)a]), y = fabsf(z15_sort_g[*(const size_t *)b]);
    return x < y ? -1 : x > y;
}
/* of units rows of cnt elements: the one of the largest sum |g| (a live filter or row) */
static size_t z15_live_unit(const float *g, size_t units, size_t cnt) {
    size_t best = 0;
    double bs = -1;
    for (size_t u = 0; u < units; u++) {
        double sum = 0;
        for (size_t i = 0; i < cnt; i++) sum += fabs((double)g[u * cnt + i]);
        if (sum > bs) bs = sum, best = u;
    }
    return best;
}
static size_t z15_median_nonzero(const float *g, size_t cnt, size_t *idx) {
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++)
        if (g[i] != 0.0f) idx[k++] = i;
    if (!k) return 0;
    z15_sort_g = g;
    qsort(idx, k, sizeof *idx, z15_cmp);
    return idx[k / 2];
}

/* the consistent NHWC flatten (fc1_flatten_nhwc_all, every step and evaluation; fc1_flatten_nhwc_step7, at
 * step 7 only): forward, backward-data and backward-weights all read the features as x'[q C + c] = x[c HW + q],
 * a self-consistent network whose fc1 weights mean W P (P the permutation), not W */
static int z15_nhwc(const cpu_ctx *c, const fault_state *F, int l, int training) {
    if (!fault_layer(c, l, "fc1") || l < 2) return 0;
    if (F->id == CPU_FAULT_FC1_FLATTEN_NHWC_ALL) return 1;
    return F->id == CPU_FAULT_FC1_FLATTEN_NHWC_STEP7 && training && c->step == 7;
}

/* the labels and images the engine is given (set_batch) */
static void fault_set_batch_15(engine *e, const float **xp, const int32_t **yp, size_t n, uint64_t step) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id, nc = c->m->n_classes;
    size_t img = (size_t)c->m->in_c * c->m->in_h * c->m->in_w;
    const int32_t *labels = *yp;
    const float *x = *xp;
    int32_t *y = (int32_t *)F->b;
    if ((id == CPU_FAULT_LABELS_LAST_CLASS_AS_0_ONCE && step == 7) || (id == CPU_FAULT_EVAL_LABELS_LAST_CLASS_AS_0 && !step)) {
        /* class C - 1's label read as class 0 (a label map off by one class), at one step / in evaluation only */
        int hit = 0;
        for (size_t i = 0; i < n; i++) y[i] = labels[i] == nc - 1 ? (hit++, 0) : labels[i];
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 labels: step %llu, %d of %zu relabelled\n", (unsigned long long)step, hit, n);
        *yp = y;
    }
    if (id == CPU_FAULT_LABELS_BATCH_SHIFTED_ONCE && step == 7 && n > 1) {
        /* every label one slot on: image i trained with label i + 1 (the last with the first's) */
        for (size_t i = 0; i < n; i++) y[i] = labels[(i + 1) % n];
        *yp = y;
    }
    if ((id == CPU_FAULT_BATCH_REVERSED_WITH_LABELS_ONCE || id == CPU_FAULT_IMAGES_REVERSED_ONCE) && step == 7 && n > 1) {
        /* the batch's samples in reverse order: images and labels alike, or the images alone */
        for (size_t i = 0; i < n; i++) memcpy(F->a + i * img, x + (n - 1 - i) * img, img * sizeof *x);
        *xp = F->a;
        if (id == CPU_FAULT_BATCH_REVERSED_WITH_LABELS_ONCE) {
            for (size_t i = 0; i < n; i++) y[i] = labels[n - 1 - i];
            *yp = y;
        }
    }
    if (id == CPU_FAULT_INPUT_TORN_ONCE && step == 7 && c->cur && e->batch >= n) {
        /* a double buffer swapped half-way: the first half of the images are still the step before's */
        memcpy(F->a, x, n * img * sizeof *x);
        memcpy(F->a, c->x, n / 2 * img * sizeof *x);
        *xp = F->a;
    }
}

/* forward: the weights read torn, or one weight read with a bit flipped (1: it ran the layer, status in *done) */
static int fault_fwd_around_15(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (!training || c->step != 7) return 0;
    if (id == CPU_FAULT_FC1_FWD_TORN_VEC_ONCE && fault_layer(c, l, "fc1")) {
        /* one 16-float vector of fc1.weight (elements 1568..1583, the middle of a 3136-wide row, of the row
         * where step 6's update moved them most) read as it was before step 6's update (an update racing the
         * next forward by one vector store) */
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        size_t in = t->numel / (size_t)ly->out_c, at = in / 2;
        double best = -1;
        for (size_t r = 0; r < (size_t)ly->out_c; r++) {
            double d = 0;
            for (size_t i = 0; i < 16; i++)
                d += fabs((double)c->params[t->offset + r * in + in / 2 + i] - (double)F->p_old[t->offset + r * in + in / 2 + i]);
            if (d > best) best = d, at = r * in + in / 2;
        }
        float *w = c->params + t->offset + at;
        memcpy(F->dw_save, w, 16 * sizeof *w);
        memcpy(w, F->p_old + t->offset + at, 16 * sizeof *w);
        if (getenv("LS_FAULT_VERBOSE"))
            for (int i = 0; i < 16; i++) fprintf(stderr, "z15 fc1 torn w[%zu]: %g -> %g\n", at + (size_t)i, F->dw_save[i], w[i]);
        c->params_ver++;
        rc = cpu_forward_layer(e, l, training);
        memcpy(w, F->dw_save, 16 * sizeof *w);
        c->params_ver++;
        FAULT_DONE(rc);
    }
    if (!fault_layer(c, l, "conv2")) return 0;
    if (id != CPU_FAULT_CONV2_FWD_TORN_W_ONCE && id != CPU_FAULT_CONV2_FWD_W_BITFLIP_ONCE) return 0;
    const model_tensor *t = &c->m->tensors[ly->w_tensor];
    float *w = c->params + t->offset;
    memcpy(F->dw_save, w, t->numel * sizeof *w);
    if (id == CPU_FAULT_CONV2_FWD_TORN_W_ONCE)
        /* an update racing the next forward: filters 0..OC/2-1 read as they were before step 6's update */
        memcpy(w, F->p_old + t->offset, t->numel / 2 * sizeof *w);
    else {
        w[z15_conv2_w_at(ly)] = z15_flip(w[z15_conv2_w_at(ly)], z15_bit(F));
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z15 conv2 w read bit %d: %g -> %g\n", z15_bit(F), F->dw_save[z15_conv2_w_at(ly)], w[z15_conv2_w_at(ly)]);
    }
    c->params_ver++;
    rc = cpu_forward_layer(e, l, training);
    memcpy(w, F->dw_save, t->numel * sizeof *w);
    c->params_ver++;
    FAULT_DONE(rc);
}

/* forward output edits (1: F->a to write back) */
static int fault_fwd_edit_15(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV2_FWD_BITFLIP_ONCE && training && c->step == 7 && fault_layer(c, l, "conv2") && n > 3 &&
        ly->out_c > 5 && ly->out_h > 7 && ly->out_w > 7) {
        size_t hw = (size_t)ly->out_h * ly->out_w, at = 3 * layer_out_size(ly) + 5 * hw + 7 * (size_t)ly->out_w + 7;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        float was = a[at];
        a[at] = z15_flip(a[at], z15_bit(F));
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 conv2 act bit %d: %g -> %g\n", z15_bit(F), was, a[at]);
        return 1;
    }
    if ((id == CPU_FAULT_CONV2_NAN_POOL_MASKED_ONCE || id == CPU_FAULT_CONV2_NEG_INF_RELU_MASKED_ONCE) && training &&
        c->step == 7 && fault_layer(c, l, "conv2") && ly->out_h >= 2 && ly->out_w >= 2) {
        /* sample 0, the first channel with a 2x2 window (as pool2 tiles the plane) whose maximum is > 0 and whose
         * first element is not its maximum: its second-largest element becomes NaN (relu2 + pool2 pass the
         * maximum on: relu(NaN) is 0 in the fused kernel, and the arg-max stays); or (neg_inf) the first
         * element < 0 of sample 0's plane 0 becomes -inf (relu2 makes it 0 as it did the negative value) */
        size_t H = (size_t)ly->out_h, W = (size_t)ly->out_w, hw = H * W, at = cnt;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (id == CPU_FAULT_CONV2_NEG_INF_RELU_MASKED_ONCE) {
            for (size_t i = 0; i < hw && at == cnt; i++)
                if (a[i] < 0) at = i;
        } else {
            for (size_t ch = 0; ch < (size_t)ly->out_c && at == cnt; ch++)
                for (size_t i = 0; i + 1 < H && at == cnt; i += 2)
                    for (size_t j = 0; j + 1 < W && at == cnt; j += 2) {
                        size_t q[4] = {ch * hw + i * W + j, ch * hw + i * W + j + 1, ch * hw + (i + 1) * W + j,
                                       ch * hw + (i + 1) * W + j + 1};
                        size_t mx = 0, sec = 4;
                        for (int k = 1; k < 4; k++) mx = a[q[k]] > a[q[mx]] ? (size_t)k : mx;
                        if (!(a[q[mx]] > 0) || mx == 0) continue;
                        for (int k = 0; k < 4; k++)
                            if ((size_t)k != mx && (sec == 4 || a[q[k]] > a[q[sec]])) sec = (size_t)k;
                        if (sec != 0 && a[q[sec]] < a[q[mx]]) at = q[sec];
                    }
        }
        if (at == cnt) return 0;
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 conv2 masked: element %zu %g -> %s\n", at, a[at], id == CPU_FAULT_CONV2_NAN_POOL_MASKED_ONCE ? "NaN" : "-inf");
        a[at] = id == CPU_FAULT_CONV2_NAN_POOL_MASKED_ONCE ? NAN : -INFINITY;
        return 1;
    }
    if (z15_nhwc(c, F, l, training)) {
        /* y = b + W x', x'[q C + c] = x[c HW + q], summed in double and rounded once */
        if ((rc = fc1_fwd_nhwc(e, c, l, n, x, a))) FAULT_ENDED(rc);
        return 1;
    }
    return 0;
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_15(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV2_DW_BITFLIP_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* the live filter's (largest sum |dW|) element of median nonzero |dW| */
        size_t per = (size_t)ly->in_c * ly->k * ly->k, *idx = (size_t *)(void *)F->a;
        float *g0 = c->grads + c->m->tensors[ly->w_tensor].offset;
        size_t u = z15_live_unit(g0, (size_t)ly->out_c, per), at = z15_median_nonzero(g0 + u * per, per, idx);
        float *g = g0 + u * per + at;
        float was = *g;
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 conv2 dW element %zu of filter %zu; ", at, u);
        *g = z15_flip(*g, z15_bit(F));
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 conv2 dW bit %d: %g -> %g\n", z15_bit(F), was, *g);
        c->params_ver++;
    }
    if ((id == CPU_FAULT_FC1_DW_BITFLIP_ONCE || id == CPU_FAULT_FC1_DW_ZERO_BITFLIP_ONCE) && c->step == 7 &&
        fault_layer(c, l, "fc1")) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        size_t in = t->numel / (size_t)ly->out_c;
        size_t *idx = (size_t *)(void *)F->a, u = z15_live_unit(c->grads + t->offset, (size_t)ly->out_c, in);
        size_t at = z15_median_nonzero(c->grads + t->offset + u * in, in, idx);
        if (id == CPU_FAULT_FC1_DW_ZERO_BITFLIP_ONCE) {
            /* the first row whose gradient is all zero (a unit relu3 kept dead for the whole batch), element 0 */
            u = (size_t)ly->out_c, at = 0;
            for (size_t r = 0; r < (size_t)ly->out_c && u == (size_t)ly->out_c; r++) {
                size_t i = 0;
                while (i < in && c->grads[t->offset + r * in + i] == 0.0f) i++;
                if (i == in) u = r;
            }
            if (u == (size_t)ly->out_c) return 0;
        }
        float *g = c->grads + t->offset + u * in + at;
        float was = *g;
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 fc1 dW element %zu of row %zu; ", at, u);
        *g = z15_flip(*g, z15_bit(F));
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 fc1 dW bit %d: %g -> %g\n", z15_bit(F), was, *g);
        c->params_ver++;
    }
    if (z15_nhwc(c, F, l, 1)) {
        const layer *pl = &c->m->layers[l - 2];
        size_t C = (size_t)pl->out_c, HW = layer_out_size(pl) / C, in = C * HW;
        /* dW'[j][q C + c] = dW[j][c HW + q] (the engine's dW is against the NCHW features) */
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        float *g = c->grads + t->offset;
        for (size_t j = 0; j < t->numel / in; j++) {
            float *row = g + j * in;
            for (size_t k = 0; k < in; k++) F->a[k] = row[(k % C) * HW + k / C];
            memcpy(row, F->a, in * sizeof *row);
        }
        c->params_ver++;
        if (P->L[l].need_dsrc) {
            /* dx written back through P^T: what belongs at feature q C + c lands at c HW + q */
            if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < in; k++) x[i * in + (k % C) * HW + k / C] = a[i * in + k];
            FAULT_DONE(act_io(c, l - 1, 1, x, 0));
        }
    }
    return 0;
}

/* the update: state saved at step 6 for the torn reads of step 7, Adam's m or v read torn at step 7, one
 * weight's bit flipped after step 7's update (1: it ran the update, status in *done) */
static int fault_update_15(engine *e, int *done, const adam_scalars *ap) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id;
    size_t np = c->m->n_params;
    if (id != CPU_FAULT_CONV2_FWD_TORN_W_ONCE && id != CPU_FAULT_ADAM_M_TORN_ONCE && id != CPU_FAULT_ADAM_V_TORN_ONCE &&
        id != CPU_FAULT_CONV2_W_BITFLIP_ONCE && id != CPU_FAULT_FC1_FWD_TORN_VEC_ONCE)
        return 0;
    if (c->step == 6) {
        /* what step 6's update is about to overwrite */
        memcpy(F->p_old, c->params, np * sizeof(float));
        memcpy(F->m_copy, c->adam_m, np * sizeof(float));
        memcpy(F->v_copy, c->adam_v, np * sizeof(float));
        return 0;
    }
    if (c->step != 7) return 0;
    if (id == CPU_FAULT_ADAM_M_TORN_ONCE || id == CPU_FAULT_ADAM_V_TORN_ONCE) {
        /* step 7's update reads the first half of conv2.weight's m (v) as it was before step 6's update */
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "conv2")) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].w_tensor];
                float *dst = (id == CPU_FAULT_ADAM_M_TORN_ONCE ? c->adam_m : c->adam_v) + t->offset;
                const float *src = (id == CPU_FAULT_ADAM_M_TORN_ONCE ? F->m_copy : F->v_copy) + t->offset;
                memcpy(dst, src, t->numel / 2 * sizeof *dst);
            }
        *done = cpu_update(e, ap);
        return 1;
    }
    if (id == CPU_FAULT_CONV2_W_BITFLIP_ONCE) {
        if ((*done = cpu_update(e, ap))) return 1;
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "conv2")) {
                float *w = c->params + c->m->tensors[c->m->layers[l].w_tensor].offset + z15_conv2_w_at(&c->m->layers[l]);
                float was = *w;
                *w = z15_flip(*w, z15_bit(F));
                if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z15 conv2 w bit %d: %g -> %g\n", z15_bit(F), was, *w);
            }
        c->params_ver++;
        return 1;
    }
    return 0;
}


/* ---- zoo attack 16: optimizer bookkeeping, stale buffers, a thread's share twice, data, a stale pool index ---- */

/* the step a zoo-16 one-off fires at: 2 for the *_step2 rows (the step after the first round-tripped one), else
 * 7 (LS_FAULT_STEP=K moves it, for exploring other steps by hand; no row sets it) */
static uint64_t z16_at(const fault_state *F) {
    if (F->id == CPU_FAULT_RELU3_BWD_PREV_MASK_STEP2 || F->id == CPU_FAULT_CONV2_DB_PREV_DY_STEP2 ||
        F->id == CPU_FAULT_CONV2_FWD_PREV_X_STEP2)
        return 2;
    if (F->id == CPU_FAULT_CONV2_DB_TWO_BACK_STEP6) return 6;
    const char *v = getenv("LS_FAULT_STEP");
    return v && atoi(v) > 1 ? (uint64_t)atoi(v) : 7;
}

static int z16_layer(const cpu_ctx *c, const char *name) {
    for (int l = 0; l < c->m->n_layers; l++)
        if (fault_layer(c, l, name)) return l;
    return -1;
}

/* the images and labels the engine is given */
static void fault_set_batch_16(engine *e, const float **xp, const int32_t **yp, size_t n, uint64_t step) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id, nc = c->m->n_classes;
    size_t img = (size_t)c->m->in_c * c->m->in_h * c->m->in_w;
    if (step != z16_at(F)) return;
    if (id == CPU_FAULT_LABELS_OUT_OF_RANGE_ONCE && n > 1) {
        /* label + 1 with no wrap for the first sample of class C - 1 that is not the last (the engine's loss then
         * reads z[C], the next row's first logit, inside the buffer) */
        int32_t *y = (int32_t *)F->b;
        memcpy(y, *yp, n * sizeof *y);
        for (size_t i = 0; i + 1 < n; i++)
            if (y[i] == nc - 1) {
                y[i] = nc;
                if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z16 label of sample %zu: %d -> %d\n", i, nc - 1, nc);
                break;
            }
        *yp = y;
    }
    if ((id == CPU_FAULT_INPUT_ZERO_IMAGE_ONCE && n > 5) || id == CPU_FAULT_INPUT_NORMALIZED_TWICE_ONCE) {
        memcpy(F->a, *xp, n * img * sizeof(float));
        if (id == CPU_FAULT_INPUT_ZERO_IMAGE_ONCE) memset(F->a + 5 * img, 0, img * sizeof(float));
        else
            for (size_t i = 0; i < n * img; i++) F->a[i] = (F->a[i] - 0.2860f) / 0.3530f;
        *xp = F->a;
    }
}

/* forward output edits (1: F->a to write back) and what the faults keep of a forward */
static int fault_fwd_edit_16(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_RELU3_BWD_PREV_MASK_ONCE || id == CPU_FAULT_RELU3_BWD_PREV_MASK_STEP2) && training && c->step == z16_at(F) - 1 && fault_layer(c, l, "relu3")) {
        /* keep step 6's relu3 output (the mask the faulty backward of step 7 reads) */
        if (!F->z16 && !(F->z16 = ls_malloc(e->max_batch * layer_out_size(ly) * sizeof(float)))) FAULT_ENDED(LS_ENOMEM);
        if ((rc = act_io(c, l, 0, F->z16, 1))) FAULT_ENDED(rc);
        F->z16_n = n;
        return 0;
    }
    if ((id == CPU_FAULT_CONV2_FWD_PREV_X_ONCE || id == CPU_FAULT_CONV2_FWD_PREV_X_STEP2) && training) {
        /* conv2's forward reads the pool1 output the step before left (a stale input buffer): kept at the step
         * before, used at the step (a pairwise sum a output, with the current weights and bias) */
        if (fault_layer(c, l, "pool1") && c->step == z16_at(F) - 1) {
            if (!F->z16 && !(F->z16 = ls_malloc(e->max_batch * layer_out_size(ly) * sizeof(float)))) FAULT_ENDED(LS_ENOMEM);
            if ((rc = act_io(c, l, 0, F->z16, 1))) FAULT_ENDED(rc);
            F->z16_n = n;
            return 0;
        }
        if (fault_layer(c, l, "conv2") && c->step == z16_at(F) && F->z16 && F->z16_n >= n && ly->b_tensor >= 0) {
            conv_fwd_ordered(ly, F->z16, c->params + c->m->tensors[ly->w_tensor].offset,
                             c->params + c->m->tensors[ly->b_tensor].offset, n, a, CONV_FWD_PAIRWISE);
            return 1;
        }
        return 0;
    }
    if (id == CPU_FAULT_EVAL_POOL1_TRAIN_ARGMAX && fault_layer(c, l, "pool1") && l >= 2 && ly->kind == LAYER_MAXPOOL) {
        const layer *cl = &c->m->layers[l - 2];
        size_t C = (size_t)ly->out_c, OH = (size_t)ly->out_h, OW = (size_t)ly->out_w, IW = (size_t)cl->out_w,
               IH = (size_t)cl->out_h, per = C * OH * OW;
        if (!F->z16_arg && !(F->z16_arg = ls_malloc(e->max_batch * per))) FAULT_ENDED(LS_ENOMEM);
        if ((rc = act_io(c, l - 2, 0, x, 1))) FAULT_ENDED(rc); /* conv1's output, plain NCHW */
        if (training) {
            /* the arg-max of each window (first of ties), as the training pool's index buffer holds it */
            for (size_t s0 = 0; s0 < n; s0++)
                for (size_t ch = 0; ch < C; ch++)
                    for (size_t i = 0; i < OH; i++)
                        for (size_t j = 0; j < OW; j++) {
                            const float *pl = x + (s0 * C + ch) * IH * IW;
                            int best = 0;
                            float bv = pl[2 * i * IW + 2 * j];
                            for (int q = 1; q < 4; q++) {
                                float v = pl[(2 * i + (size_t)(q >> 1)) * IW + 2 * j + (size_t)(q & 1)];
                                if (v > bv) bv = v, best = q;
                            }
                            F->z16_arg[s0 * per + (ch * OH + i) * OW + j] = (uint8_t)best;
                        }
            F->z16_n = n;
            return 0;
        }
        if (!F->z16_n) return 0;
        /* inference: relu(x) at the training positions, not the window's maximum */
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t i = 0; i < OH; i++)
                    for (size_t j = 0; j < OW; j++) {
                        const float *pl = x + (s0 * C + ch) * IH * IW;
                        int q = F->z16_arg[(s0 % F->z16_n) * per + (ch * OH + i) * OW + j];
                        float v = pl[(2 * i + (size_t)(q >> 1)) * IW + 2 * j + (size_t)(q & 1)];
                        a[s0 * per + (ch * OH + i) * OW + j] = v > 0.0f ? v : 0.0f;
                    }
        return 1;
    }
    return 0;
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_16(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_RELU3_BWD_PREV_MASK_ONCE || id == CPU_FAULT_RELU3_BWD_PREV_MASK_STEP2) && c->step == z16_at(F) && fault_layer(c, l, "relu3") && F->z16 &&
        F->z16_n >= n && P->L[l].need_dsrc) {
        /* dx = dy where step 6's relu3 output was > 0 */
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++) x[i] = F->z16[i] > 0.0f ? a[i] : 0.0f;
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_FC1_DX_STALE_W_ONCE && c->step == z16_at(F) && fault_layer(c, l, "fc1") && P->L[l].need_dsrc) {
        /* dx = W_old^T dy, W_old the weights before step 6's update (a serial fp32 dot product a feature) */
        const float *w = F->p_old + c->m->tensors[ly->w_tensor].offset;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t t = 0; t < in; t++) {
                float acc = 0.0f;
                for (size_t j = 0; j < oc; j++) acc = acc + w[j * in + t] * a[s0 * oc + j];
                x[s0 * in + t] = acc;
            }
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if ((id == CPU_FAULT_CONV2_DB_PREV_DY_ONCE || id == CPU_FAULT_CONV2_DB_PREV_DY_STEP2 ||
         id == CPU_FAULT_CONV2_DB_TWO_BACK_STEP6) &&
        fault_layer(c, l, "conv2") && ly->b_tensor >= 0) {
        /* the bias gradient of the step before (two steps before for the _two_back_ row: a ring of three
         * buffers, read one slot off) */
        uint64_t lag = id == CPU_FAULT_CONV2_DB_TWO_BACK_STEP6 ? 2 : 1;
        if (c->step != z16_at(F) - lag && c->step != z16_at(F)) return 0;
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        float *db = c->grads + tb->offset;
        if (c->step == z16_at(F) - lag) {
            if (!F->z16 && !(F->z16 = ls_malloc(tb->numel * sizeof(float)))) FAULT_DONE(LS_ENOMEM);
            memcpy(F->z16, db, tb->numel * sizeof *db); /* the sums of step 6's dy */
            F->z16_n = n;
        } else if (F->z16) {
            memcpy(db, F->z16, tb->numel * sizeof *db);
            c->params_ver++;
        }
        return 0;
    }
    if ((id == CPU_FAULT_CONV2_DW_THREAD_SHARE_TWICE_ONCE || id == CPU_FAULT_CONV2_DW_TAIL4_DROPPED_ONCE) &&
        c->step == z16_at(F) && fault_layer(c, l, "conv2") && n > 1) {
        /* thread share: the second thread's partial (samples n/2 .. n-1, all positions) added once more; tail:
         * the last 4 output positions of each plane (H W = 196 = 12 x 16 + 4, the remainder of a 16-wide vector
         * loop over positions) left out, every sample (a serial fp32 partial sum, added or taken away) */
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k;
        int tail = id == CPU_FAULT_CONV2_DW_TAIL4_DROPPED_ONCE;
        size_t s_from = tail ? 0 : n / 2, q_from = tail ? (H * W / 16) * 16 : 0;
        if (tail && q_from == H * W) return 0;
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_DONE(rc);
        float *g = c->grads + c->m->tensors[ly->w_tensor].offset;
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t kh = 0; kh < k; kh++)
                    for (size_t kw = 0; kw < k; kw++) {
                        float acc = 0.0f;
                        for (size_t s0 = s_from; s0 < n; s0++)
                            for (size_t q = q_from; q < H * W; q++) {
                                size_t i = q / W, j = q % W;
                                long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                                if (ih < 0 || iw < 0 || ih >= (long)IH || iw >= (long)IW) continue;
                                acc = acc + a[((s0 * OC + oc) * H + i) * W + j] *
                                                x[((s0 * C + ch) * IH + (size_t)ih) * IW + (size_t)iw];
                            }
                        size_t at = ((oc * C + ch) * k + kh) * k + kw;
                        g[at] = tail ? g[at] - acc : g[at] + acc;
                    }
        c->params_ver++;
        return 0;
    }
    return 0;
}

/* the update (1: it ran the update, status in *done) */
static int fault_update_16(engine *e, const adam_scalars *s, adam_scalars *ap, int *done) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id;
    size_t np = c->m->n_params;
    if (id == CPU_FAULT_ADAM_EPS_KERAS) {
        ap->eps = 1e-7f;
        return 0;
    }
    if ((uint64_t)s->t != z16_at(F)) return 0;
    if (id == CPU_FAULT_ADAM_P_FROZEN_ONCE || id == CPU_FAULT_ADAM_MV_DROPPED_ONCE) {
        int l = z16_layer(c, id == CPU_FAULT_ADAM_P_FROZEN_ONCE ? "fc1" : "conv2");
        if (l < 0) return 0;
        const layer *ly = &c->m->layers[l];
        const model_tensor *t = &c->m->tensors[id == CPU_FAULT_ADAM_P_FROZEN_ONCE ? ly->b_tensor : ly->w_tensor];
        size_t o = t->offset, k = t->numel;
        memcpy(F->p_copy + o, c->params + o, k * sizeof(float));
        memcpy(F->m_copy + o, c->adam_m + o, k * sizeof(float));
        memcpy(F->v_copy + o, c->adam_v + o, k * sizeof(float));
        if ((*done = cpu_update(e, ap))) return 1;
        if (id == CPU_FAULT_ADAM_P_FROZEN_ONCE) {
            memcpy(c->params + o, F->p_copy + o, k * sizeof(float)); /* p not written back; m and v are */
        } else {
            memcpy(c->adam_m + o, F->m_copy + o, k * sizeof(float)); /* m and v not written back; p is */
            memcpy(c->adam_v + o, F->v_copy + o, k * sizeof(float));
        }
        c->params_ver++;
        return 1;
    }
    if (id == CPU_FAULT_ADAM_DEN_OLD_V_ONCE) {
        adam_scalars a = *ap;
        for (size_t i = 0; i < np; i++) {
            float g = c->grads[i], vo = c->adam_v[i];
            float mn = a.beta1 * c->adam_m[i] + a.one_minus_beta1 * g;
            float vn = a.beta2 * vo + a.one_minus_beta2 * (g * g);
            float den = sqrtf(vo) / a.bc2_sqrt + a.eps; /* v before its update */
            c->params[i] = c->params[i] - a.step_size * (mn / den);
            c->adam_m[i] = mn;
            c->adam_v[i] = vn;
        }
        c->params_ver++;
        *done = 0;
        return 1;
    }
    return 0;
}

/* ---- zoo attack 17: faults aimed at the checker's own assumptions ---------- */

/* The pool fault a call runs with (ctx_of): repeat2_pool_tie_last_step7 is pool_tie_last in the second copy at
 * step 7 only */
static int z17_pool_fault(const cpu_ctx *c, int cur) {
    const fault_state *F = c->fault;
    if (F && F->id == CPU_FAULT_REPEAT2_POOL_TIE_LAST_STEP7)
        return F->z12_copy == 2 && c->step == 7 ? CPU_FAULT_POOL_TIE_LAST : 0;
    return cur;
}

/* Solves the nr x nr system A d = r (row-major, partial pivoting) in place; 0 when singular. */
static int z17_solve(double *A, double *r, int nr) {
    for (int k = 0; k < nr; k++) {
        int pv = k;
        for (int i = k + 1; i < nr; i++)
            if (fabs(A[i * nr + k]) > fabs(A[pv * nr + k])) pv = i;
        if (!(fabs(A[pv * nr + k]) > 1e-300)) return 0;
        if (pv != k) {
            for (int j = 0; j < nr; j++) {
                double t = A[k * nr + j];
                A[k * nr + j] = A[pv * nr + j], A[pv * nr + j] = t;
            }
            double t = r[k];
            r[k] = r[pv], r[pv] = t;
        }
        for (int i = k + 1; i < nr; i++) {
            double f = A[i * nr + k] / A[k * nr + k];
            for (int j = k; j < nr; j++) A[i * nr + j] -= f * A[k * nr + j];
            r[i] -= f * r[k];
        }
    }
    for (int k = nr - 1; k >= 0; k--) {
        double t = r[k];
        for (int j = k + 1; j < nr; j++) t -= A[k * nr + j] * r[j];
        r[k] = t / A[k * nr + k];
    }
    return 1;
}

/* conv2_fwd_{draw,fixed}_orthogonal_*: in one conv2 output plane (sample 3, channel 5), a change d of nq elements
 * that every linear relation of the plane weighs to zero: the plain sum (1), the position-weighted one
 * ((-1)^(i+j) (W i + j + 1)), the row- and column-alternating ones ((-1)^i, (-1)^j) and, for the draw_ row, the
 * two random-weighted ones (a[i] b[j], drawn as engines/checksums.c draws them: Philox keyed by the digest of the
 * images, the step and the stage, all of which the engine holds before it computes).  The elements: interior,
 * value unique in the plane (a window alone: no identical-windows group, not blank), not the plane's first, last,
 * largest or drawn one (FWD_PEEK), in order of |y|, smallest first; d scaled to 2^-2 of the plane's largest |y|
 * (less where an element would reach the largest). */
static int z17_orthogonal(engine *e, cpu_ctx *c, fault_state *F, int l, size_t n, float *a) {
    const layer *ly = &c->m->layers[l];
    int draws = F->id != CPU_FAULT_CONV2_FWD_FIXED_ORTHOGONAL_ONCE;
    size_t H = (size_t)ly->out_h, W = (size_t)ly->out_w, P = H * W, s0 = 3, oc = 5;
    if (n <= s0 || (size_t)ly->out_c <= oc || H < 8 || W < 8) return 0;
    int rc = act_io(c, l, 0, a, 1);
    if (rc) return -rc;
    float *y = a + (s0 * (size_t)ly->out_c + oc) * P;
    size_t img = (size_t)c->m->in_c * c->m->in_h * c->m->in_w;
    ck_rnd_key_t key = ck_rnd_key(ck_digest(c->x, n * img), (long)e->step, CK_STAGE_STEP);
    double ra[CK_RND_DRAWS][64], cb[CK_RND_DRAWS][64];
    if (H > 64 || W > 64) return 0;
    for (int dr = 0; dr < CK_RND_DRAWS; dr++)
        ck_rnd_weights(ra[dr], H, key, l, 4 * dr), ck_rnd_weights(cb[dr], W, key, l, 4 * dr + 1);
    size_t drawn[CK_OPEEK_RANDOM];
    ck_plane_draw(drawn, P, key, l, s0 * (size_t)ly->out_c + oc, 0);
    size_t big = 0;
    for (size_t p = 1; p < P; p++) big = y[p] > y[big] ? p : big;
    double ymax = 0;
    for (size_t p = 0; p < P; p++) ymax = fmax(ymax, fabs((double)y[p]));
    enum { NF = 6 };
    int nf = draws ? NF : 4, nq = nf + 1;
    size_t q[NF + 1];
    int got = 0;
    /* candidates by |y|, smallest first (a selection: nq passes) */
    unsigned char *used = (unsigned char *)F->b;
    memset(used, 0, P);
    while (got < nq) {
        size_t best = P;
        for (size_t p = 0; p < P; p++) {
            size_t i = p / W, j = p % W;
            if (used[p] || i < 2 || j < 2 || i + 2 >= H || j + 2 >= W || p == big) continue;
            int skip = 0;
            for (int k = 0; k < CK_OPEEK_RANDOM; k++) skip |= drawn[k] == p;
            for (size_t o = 0; o < P && !skip; o++) skip |= o != p && y[o] == y[p];
            if (skip || !(fabs((double)y[p]) > 0)) continue;
            if (best == P || fabs((double)y[p]) < fabs((double)y[best])) best = p;
        }
        if (best == P) return 0;
        used[best] = 1, q[got++] = best;
    }
    /* the null vector: d[nq - 1] = 1, the others from the nf x nf system */
    double M[NF * NF], r[NF], d[NF + 1];
    for (int f = 0; f < nf; f++) {
        for (int k = 0; k < nq; k++) {
            size_t i = q[k] / W, j = q[k] % W;
            double v = f == 0   ? 1.0
                       : f == 1 ? ((i + j) & 1 ? -1.0 : 1.0) * (double)(W * i + j + 1)
                       : f == 2 ? (i & 1 ? -1.0 : 1.0)
                       : f == 3 ? (j & 1 ? -1.0 : 1.0)
                                : ra[f - 4][i] * cb[f - 4][j];
            if (k < nf) M[f * nf + k] = v;
            else r[f] = -v;
        }
    }
    if (!z17_solve(M, r, nf)) return 0;
    double dm = 1;
    for (int k = 0; k < nf; k++) d[k] = r[k], dm = fmax(dm, fabs(r[k]));
    d[nf] = 1;
    double sc = 0.25 * ymax / dm;
    for (int k = 0; k < nq; k++) /* no element reaches the plane's largest */
        while ((double)y[q[k]] + sc * d[k] >= 0.9 * (double)y[big] && sc > 0) sc *= 0.5;
    for (int k = 0; k < nq; k++) {
        float was = y[q[k]];
        y[q[k]] = (float)((double)y[q[k]] + sc * d[k]);
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z17 orthogonal (%s): step %llu plane (%zu, %zu) element %zu (%zu, %zu): %g -> %g\n",
                    draws ? "draws too" : "fixed weights", (unsigned long long)e->step, s0, oc, q[k], q[k] / W, q[k] % W,
                    (double)was, (double)y[q[k]]);
    }
    if (getenv("LS_FAULT_VERBOSE")) {
        double res[NF] = {0};
        for (int f = 0; f < nf; f++)
            for (int k = 0; k < nq; k++) {
                size_t i = q[k] / W, j = q[k] % W;
                double v = f == 0 ? 1.0 : f == 1 ? ((i + j) & 1 ? -1.0 : 1.0) * (double)(W * i + j + 1)
                         : f == 2 ? (i & 1 ? -1.0 : 1.0) : f == 3 ? (j & 1 ? -1.0 : 1.0) : ra[f - 4][i] * cb[f - 4][j];
                res[f] += v * sc * d[k];
            }
        fprintf(stderr, "z17 orthogonal: plane max |y| %g, |d| up to %g; weighted sums of d:", ymax, sc * dm);
        for (int f = 0; f < nf; f++) fprintf(stderr, " %.3g", res[f]);
        fprintf(stderr, "\n");
    }
    return 1;
}

/* conv2_fwd_ocblock0_round_up_*: conv2's forward run a second time with MXCSR rounding upward on every thread,
 * its output channels 0..15 (the first 16-channel block: one thread's share of a kernel parallel over output-channel
 * blocks) taken from that run, the others from the round-to-nearest one (in F->a).  x86-64 only. */
static int z17_ocblock_round_up(engine *e, cpu_ctx *c, int l, int training, size_t n, float *a, float *x) {
#if defined(__x86_64__)
    static unsigned saved[1024];
    const layer *ly = &c->m->layers[l];
    size_t OC = (size_t)ly->out_c, HW = (size_t)ly->out_h * ly->out_w, blk = OC > 16 ? 16 : OC / 2;
    int rc = act_io(c, l, 0, a, 1);
    if (rc) return -rc;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < 1024) saved[t] = _mm_getcsr(), _mm_setcsr((saved[t] & ~0x6000u) | 0x4000u);
    }
    rc = cpu_forward_layer(e, l, training);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < 1024) _mm_setcsr(saved[t]);
    }
    if (rc || (rc = act_io(c, l, 0, x, 1))) return -rc;
    size_t up = 0, dn = 0;
    for (size_t s0 = 0; s0 < n; s0++)
        for (size_t o = 0; o < blk; o++)
            for (size_t p = 0; p < HW; p++) {
                size_t at = (s0 * OC + o) * HW + p;
                up += x[at] > a[at], dn += x[at] < a[at];
                a[at] = x[at];
            }
    if (getenv("LS_FAULT_VERBOSE"))
        fprintf(stderr, "z17 conv2 oc block 0 rounded up: %zu outputs larger, %zu smaller (channels 0..%zu of %zu)\n", up,
                dn, blk - 1, OC);
    return 1;
#else
    return (void)e, (void)c, (void)l, (void)training, (void)n, (void)a, (void)x, 0;
#endif
}

/* forward output edits (1: F->a to write back; 2: ended, status in *done) */
static int fault_fwd_edit_17(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_CONV2_FWD_DRAW_ORTHOGONAL_ONCE || id == CPU_FAULT_CONV2_FWD_FIXED_ORTHOGONAL_ONCE ||
         id == CPU_FAULT_CONV2_FWD_DRAW_ORTHOGONAL_STEP2) &&
        training && c->step == (id == CPU_FAULT_CONV2_FWD_DRAW_ORTHOGONAL_STEP2 ? 2u : 7u) && fault_layer(c, l, "conv2")) {
        int r = z17_orthogonal(e, c, F, l, n, a);
        if (r < 0) FAULT_ENDED(-r);
        return r;
    }
    if ((id == CPU_FAULT_CONV2_FWD_OCBLOCK0_ROUND_UP_STEP7 || id == CPU_FAULT_CONV2_FWD_OCBLOCK0_ROUND_UP_STEP2 ||
         id == CPU_FAULT_CONV2_FWD_OCBLOCK0_ROUND_UP_ALL) &&
        training && (id == CPU_FAULT_CONV2_FWD_OCBLOCK0_ROUND_UP_ALL || c->step == (id == CPU_FAULT_CONV2_FWD_OCBLOCK0_ROUND_UP_STEP2 ? 2u : 7u)) &&
        fault_layer(c, l, "conv2")) {
        int r = z17_ocblock_round_up(e, c, l, training, n, a, x);
        if (r < 0) FAULT_ENDED(-r);
        return r;
    }
    if (id == CPU_FAULT_CONV2_FWD_BACKGROUND_STALE_BIAS_ONCE && training && fault_layer(c, l, "conv2") &&
        ly->b_tensor >= 0 && l > 0) {
        /* a kernel that memoizes the output of the background window (the window at (1, 1), which MNIST's
         * corners leave blank in the image: a ReLU'd conv1 bias after pool1) across steps, keyed on the
         * window's values and not on the weights: the outputs of the windows equal to it are computed with
         * step 6's bias at step 7 (the weights' part is unchanged: this is the bias's share of the stale value) */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        if (c->step == 6) {
            memcpy(F->p_copy + tb->offset, c->params + tb->offset, tb->numel * sizeof(float));
            return 0;
        }
        if (c->step != 7) return 0;
        const layer *il = &c->m->layers[l - 1];
        size_t C = (size_t)il->out_c, IH = (size_t)il->out_h, IW = (size_t)il->out_w, OC = (size_t)ly->out_c,
               H = (size_t)ly->out_h, W = (size_t)ly->out_w, k = (size_t)ly->k;
        if (ly->pad != 1 || k != 3 || IH != H || IW != W || H < 4 || W < 4) return 0;
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        const float *b = c->params + tb->offset, *bo = F->p_copy + tb->offset;
        size_t moved = 0;
        for (size_t s = 0; s < n; s++) {
            const float *xs = x + s * C * IH * IW;
            for (size_t i = 1; i + 1 < H; i++)
                for (size_t j = 1; j + 1 < W; j++) {
                    int same = 1;
                    for (size_t ch = 0; ch < C && same; ch++)
                        for (size_t u = 0; u < 3 && same; u++)
                            for (size_t v = 0; v < 3 && same; v++)
                                same = xs[(ch * IH + i - 1 + u) * IW + j - 1 + v] == xs[(ch * IH + u) * IW + v];
                    if (!same) continue;
                    for (size_t o = 0; o < OC; o++) {
                        float *yo = a + ((s * OC + o) * H + i) * W + j;
                        *yo = (*yo - b[o]) + bo[o];
                    }
                    moved++;
                }
        }
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z17 background stale bias: %zu windows x %zu channels\n", moved, OC);
        return moved > 0;
    }
    return 0;
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_17(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_FC2_DW_CORRECT_SKIPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc2") && l > 0) {
        /* a 'selective backprop' the run did not ask for: fc2's weight gradient leaves out the samples the model
         * already classifies right (arg-max of the logits == label); the bias gradient and dx are right */
        size_t oc = (size_t)ly->out_c, in = layer_in_size(ly);
        float *z = F->p_cur; /* logits n x oc (np >= n oc here) */
        if (n * oc > c->m->n_params) return 0;
        if ((rc = act_io(c, l, 0, z, 1)) || (rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1)))
            FAULT_DONE(rc);
        unsigned char right[1024] = {0};
        size_t nr = 0;
        for (size_t s = 0; s < n && s < 1024; s++) {
            size_t am = 0;
            for (size_t j = 1; j < oc; j++) am = z[s * oc + j] > z[s * oc + am] ? j : am;
            right[s] = (int32_t)am == c->labels[s];
            nr += right[s];
        }
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z17 fc2 dW: %zu of %zu samples classified right left out\n", nr, n);
        if (!nr) return 0;
        float *g = c->grads + c->m->tensors[ly->w_tensor].offset;
        for (size_t j = 0; j < oc; j++)
            for (size_t t = 0; t < in; t++) {
                float acc = 0.0f;
                for (size_t s = 0; s < n; s++)
                    if (!right[s]) acc = acc + a[s * oc + j] * x[s * in + t];
                g[j * in + t] = acc;
            }
        c->params_ver++;
        return 0;
    }
    return 0;
}

#if defined(__x86_64__)
/* conv bias gradient o of a (n samples of oc planes of hw) reduced serially in fp32 (samples outer,
 * positions inner, as db_serial_fp32, a legal order, does it rounding to nearest) with MXCSR's rounding
 * control set to mode (0x4000 upward, 0x2000 downward) for the sum: conv_db_round_up_all and
 * conv_db_rurd_alternate_all */
static float db_serial_mode(const float *a, size_t n, size_t oc, size_t hw, size_t o, unsigned mode) {
    unsigned csr = _mm_getcsr();
    _mm_setcsr((csr & ~0x6000u) | mode);
    volatile float acc = 0.0f;
    for (size_t s0 = 0; s0 < n; s0++)
        for (size_t q = 0; q < hw; q++) acc = acc + a[(s0 * oc + o) * hw + q];
    _mm_setcsr(csr);
    return acc;
}
#endif

/* ---- zoo attack 19: the coverage map's thin cells ---------------------------------------------------------
 * The every-step vector judges a conv layer's outputs, input gradients and weight gradients through sums (per
 * plane, per filter) plus a few re-done elements; a conv bias gradient per element but, with fewer than 57
 * relations a block, never by the sign test; the logits per element (FWD_DPEEK) but fc2's blocks, 10 and n
 * relations, never by the sign test either.  These rows put one wrong value in each such cell at step 7 (a
 * step only the every-step checks see), or a one-signed rounding where only a sign test could. */
/* in a plain buffer of units planes of hw elements: the live plane's (largest sum |v|) element of median nonzero
 * |v|, moved off the plane's first and last element (re-done by the PEEK blocks on their own); cnt if none */
static size_t z19_typical(const float *v, size_t units, size_t hw, size_t *idx, size_t *unit) {
    size_t u = z15_live_unit(v, units, hw), k = 0;
    for (size_t i = 0; i < hw; i++)
        if (v[u * hw + i] != 0.0f) idx[k++] = i;
    *unit = u;
    if (!k) return units * hw;
    z15_sort_g = v + u * hw;
    qsort(idx, k, sizeof *idx, z15_cmp);
    size_t m = k / 2;
    while (m > 0 && (idx[m] == 0 || idx[m] == hw - 1)) m--;
    return u * hw + idx[m];
}

static int fault_fwd_edit_19(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV1_FWD_BITFLIP_ONCE && training && c->step == 7 && fault_layer(c, l, "conv1")) {
        size_t hw = (size_t)ly->out_h * ly->out_w, u, *idx = (size_t *)(void *)x;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        size_t at = z19_typical(a, n * (size_t)ly->out_c, hw, idx, &u);
        if (at >= cnt) return 0;
        float was = a[at];
        a[at] = z15_flip(a[at], z15_bit(F));
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z19 conv1 act: sample %zu channel %zu element %zu bit %d: %g -> %g\n", u / ly->out_c,
                    u % ly->out_c, at % hw, z15_bit(F), was, a[at]);
        return 1;
    }
    if (((id == CPU_FAULT_FC2_OUT_1ULP_STEP7 && training && c->step == 7) || (id == CPU_FAULT_EVAL_FC2_OUT_1ULP && !training)) &&
        fault_layer(c, l, "fc2")) {
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++) a[i] = nextafterf(a[i], INFINITY);
        return 1;
    }
    return 0;
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_19(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_CONV2_DX_BITFLIP_ONCE || id == CPU_FAULT_CONV2_DX_BITFLIP_STEP2 ||
         id == CPU_FAULT_CONV2_DX_LOST_TAP_ONCE) &&
        c->step == (id == CPU_FAULT_CONV2_DX_BITFLIP_STEP2 ? 2u : 7u) && fault_layer(c, l, "conv2") && l > 0 &&
        ly->k == 3 && ly->pad == 1) {
        /* conv2's input gradient (pool1's DACT), the live plane's typical element */
        size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w, hw = H * W, OC = (size_t)ly->out_c;
        size_t u, *idx = (size_t *)(void *)F->p_cur;
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        size_t at = z19_typical(a, n * C, hw, idx, &u);
        if (at >= n * C * hw) return 0;
        float was = a[at];
        if (id != CPU_FAULT_CONV2_DX_LOST_TAP_ONCE) {
            a[at] = z15_flip(a[at], z15_bit(F));
        } else {
            /* a lost update in a racy scatter-add (col2im): of the 9 per-tap partial sums sum_oc w dy this element
             * receives, the first nonzero one (taps in (kh, kw) order) never lands */
            size_t s = u / C, ch = u % C, i = at % hw / W, j = at % W;
            const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
            if ((rc = act_io(c, l, 1, x, 1))) FAULT_DONE(rc);
            float part = 0.0f;
            int tap = -1;
            for (int kh = 0; kh < 3 && tap < 0; kh++)
                for (int kw = 0; kw < 3 && tap < 0; kw++) {
                    long p = (long)i - kh + 1, q = (long)j - kw + 1;
                    if (p < 0 || q < 0 || p >= (long)ly->out_h || q >= (long)ly->out_w) continue;
                    float acc = 0.0f;
                    for (size_t o = 0; o < OC; o++)
                        acc += w[((o * C + ch) * 3 + (size_t)kh) * 3 + (size_t)kw] *
                               x[((s * OC + o) * (size_t)ly->out_h + (size_t)p) * (size_t)ly->out_w + (size_t)q];
                    if (acc != 0.0f) part = acc, tap = kh * 3 + kw;
                }
            if (tap < 0) return 0;
            a[at] = a[at] - part;
            if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z19 conv2 dx lost tap %d: partial %g; ", tap, part);
        }
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z19 conv2 dx: sample %zu channel %zu element %zu (bit %d): %g -> %g\n", u / C, u % C,
                    at % hw, z15_bit(F), was, a[at]);
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if ((id == CPU_FAULT_CONV1_DW_BITFLIP_ONCE && fault_layer(c, l, "conv1")) ||
        (id == CPU_FAULT_CONV2_DB_BITFLIP_ONCE && fault_layer(c, l, "conv2"))) {
        if (c->step != 7) return 0;
        int bias = id == CPU_FAULT_CONV2_DB_BITFLIP_ONCE;
        const model_tensor *t = &c->m->tensors[bias ? ly->b_tensor : ly->w_tensor];
        size_t per = bias ? t->numel : t->numel / (size_t)ly->out_c, units = bias ? 1 : (size_t)ly->out_c, u;
        float *g = c->grads + t->offset;
        size_t at = z19_typical(g, units, per, (size_t *)(void *)a, &u);
        if (at >= t->numel) return 0;
        float was = g[at];
        g[at] = z15_flip(g[at], z15_bit(F));
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z19 %s.%s grad element %zu (unit %zu) bit %d: %g -> %g\n", ly->name, bias ? "bias" : "weight",
                    at, u, z15_bit(F), was, g[at]);
        c->params_ver++;
        return 0;
    }
    if (id == CPU_FAULT_CONV_DB_ROUND_UP_ALL && ly->kind == LAYER_CONV && ly->b_tensor >= 0) {
#if defined(__x86_64__)
        /* the bias reduction on a core whose MXCSR rounds upward: serial fp32 sums (samples outer, positions
         * inner), as db_serial_fp32 (a legal order) does them rounding to nearest */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t oc = (size_t)ly->out_c, hw = (size_t)ly->out_h * ly->out_w;
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) c->grads[tb->offset + o] = db_serial_mode(a, n, oc, hw, o, 0x4000u);
        c->params_ver++;
#endif
        return 0;
    }
    return 0;
}

/* backward calls a fault replaces (1: it ran the layer's backward, its status in *done) */
static int fault_bwd_before_19(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_CONV2_DW_ROUND_UP_STEP7 && c->step == 7) || id == CPU_FAULT_CONV2_DW_ROUND_UP_ALL) {
        if (!fault_layer(c, l, "conv2")) return 0;
#if defined(__x86_64__)
        /* backward-weights on cores whose MXCSR rounds upward (a primitive of its own on its own threads), the
         * rest of the layer's backward (backward-data, the bias) rounding to nearest: the layer's backward run
         * with every thread's MXCSR rounding upward, its weight gradient kept, then run again as it is */
        static unsigned saved[1024];
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            if (t < 1024) saved[t] = _mm_getcsr(), _mm_setcsr((saved[t] & ~0x6000u) | 0x4000u);
        }
        rc = cpu_backward_layer(e, l);
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            if (t < 1024) _mm_setcsr(saved[t]);
        }
        if (rc) FAULT_DONE(rc);
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        size_t up = 0, dn = 0;
        for (size_t i = 0; i < tw->numel; i++) {
            float r = c->grads[tw->offset + i], u = F->dw_save[i];
            up += u > r, dn += u < r;
        }
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z19 conv2 dW round-up, step %llu: %zu of %zu elements above round-to-nearest's, %zu below\n",
                    (unsigned long long)c->step, up, (size_t)tw->numel, dn);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        c->params_ver++;
        FAULT_DONE(0);
#else
        return 0;
#endif
    }
    return 0;
}

/* ---- zoo attack 20: borders and padding, a channel permutation, a lost write-back, partial-batch-only and
 * first-evaluation-only faults, a class weight, stochastic rounding ------------------------------------------ */
/* a scratch buffer of cnt floats kept across steps (F->z20; z20_n: the batch size it was saved at) */
static float *z20_buf(fault_state *F, size_t cnt) {
    if (F->z20_cap < cnt) {
        free(F->z20);
        F->z20 = malloc(cnt * sizeof(float));
        F->z20_cap = F->z20 ? cnt : 0;
        F->z20_n = 0;
    }
    return F->z20;
}

/* a keyed uniform in [0, 1) (splitmix64 of key and index): the random bits of fc1_fwd_f64_sr_all */
static double z20_unif(uint64_t key, uint64_t i) {
    uint64_t z = key * 0x9E3779B97F4A7C15ull ^ (i + 0x632BE59BD9B4E019ull);
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

/* v rounded to fp32 stochastically: the float above with probability (v - lo) / (hi - lo), else the one below
 * (unbiased; at most one ulp from v, where round-to-nearest is half an ulp) */
static float z20_sr(double v, double u) {
    float f = (float)v;
    if ((double)f == v || !isfinite(f)) return f;
    float lo = (double)f < v ? f : nextafterf(f, -INFINITY), hi = (double)f < v ? nextafterf(f, INFINITY) : f;
    return u < (v - (double)lo) / ((double)hi - (double)lo) ? hi : lo;
}

static const double *z20_sort_d;
static int z20_cmp(const void *p, const void *q) {
    double a = z20_sort_d[*(const size_t *)p], b = z20_sort_d[*(const size_t *)q];
    return a < b ? -1 : a > b;
}

/* forward calls a fault replaces */
static int fault_fwd_around_20(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_EVAL_FIRST_CONV2_W_TF32 && !training && F->in_eval && F->eval_round == 1 &&
        fault_layer(c, l, "conv2")) {
        /* the first evaluation's conv2 on weights rounded to TF32 (an inference path with TF32 left allowed) */
        fault_edit_weights(c, l, 3, F->dw_save);
        rc = cpu_forward_layer(e, l, training);
        fault_edit_weights(c, l, 0, F->dw_save);
        FAULT_DONE(rc);
    }
    return 0;
}

/* forward edits after the layer's own forward (1: F->a is the output to write back) */
static int fault_fwd_edit_20(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_CONV2_FWD_OC_PAIR_SWAP_ONCE || id == CPU_FAULT_CONV2_BIAS_TWICE_ONE_ELEMENT_ONCE) &&
        training && c->step == 7 && fault_layer(c, l, "conv2") && ly->b_tensor >= 0) {
        size_t OC = (size_t)ly->out_c, hw = (size_t)ly->out_h * ly->out_w;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (id == CPU_FAULT_CONV2_BIAS_TWICE_ONE_ELEMENT_ONCE) {
            /* the live plane's typical element gets its channel's bias a second time */
            size_t u, *idx = (size_t *)(void *)x;
            size_t at = z19_typical(a, n * OC, hw, idx, &u);
            if (at >= cnt) return 0;
            const float *b = c->params + c->m->tensors[ly->b_tensor].offset;
            float was = a[at];
            a[at] = a[at] + b[u % OC];
            if (getenv("LS_FAULT_VERBOSE"))
                fprintf(stderr, "z20 conv2 bias twice: sample %zu channel %zu element %zu: %g -> %g (b %g)\n", u / OC,
                        u % OC, at % hw, was, a[at], b[u % OC]);
            return 1;
        }
        /* of all (sample, o < o') with unequal planes, the pair whose plain sums are closest: exchanged */
        double *S = (double *)(void *)x, best = INFINITY;
        size_t bs = 0, bo = 0, bp = 0;
        for (size_t u = 0; u < n * OC; u++) {
            S[u] = 0;
            for (size_t i = 0; i < hw; i++) S[u] += (double)a[u * hw + i];
        }
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t o = 0; o < OC; o++)
                for (size_t q = o + 1; q < OC; q++) {
                    double d = fabs(S[s0 * OC + o] - S[s0 * OC + q]);
                    if (d < best && memcmp(a + (s0 * OC + o) * hw, a + (s0 * OC + q) * hw, hw * sizeof *a))
                        best = d, bs = s0, bo = o, bp = q;
                }
        if (!isfinite(best)) return 0;
        float *P0 = a + (bs * OC + bo) * hw, *P1 = a + (bs * OC + bp) * hw;
        for (size_t i = 0; i < hw; i++) {
            float t = P0[i];
            P0[i] = P1[i], P1[i] = t;
        }
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z20 conv2 planes swapped: sample %zu channels %zu and %zu, sums %.9g and %.9g\n", bs, bo,
                    bp, S[bs * OC + bo], S[bs * OC + bp]);
        return 1;
    }
    if ((id == CPU_FAULT_FC1_FWD_F64_SR_ALL || id == CPU_FAULT_FC1_FWD_F64_SR_BIASED_ALL ||
         (id == CPU_FAULT_FC1_FWD_F64_SR_BIASED_STEP7 && training && c->step == 7)) &&
        fault_layer(c, l, "fc1")) {
        /* a legal variant: every fc1 output summed in fp64 and rounded to fp32 stochastically, keyed on the
         * step and the element (deterministic: a second instance and a second pass give the same bits); the
         * biased rows draw u from [0, 1/2) instead of [0, 1): up with probability min(1, 2 frac), a stochastic
         * rounding unit whose random bits lost their top bit */
        int biased = id != CPU_FAULT_FC1_FWD_F64_SR_ALL;
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        const float *bias = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        uint64_t key = c->step * 2 + (training ? 0 : 1);
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < oc; j++) {
                const float *wr = w + j * in, *xr = x + s0 * in;
                double acc = bias ? (double)bias[j] : 0.0;
                for (size_t t = 0; t < in; t++) acc += (double)wr[t] * (double)xr[t];
                double u = z20_unif(key, s0 * oc + j);
                a[s0 * oc + j] = z20_sr(acc, biased ? u * 0.5 : u);
            }
        return 1;
    }
    if (id == CPU_FAULT_DROPOUT_PARTIAL_MASK_RIGHT_ALIGNED && training && ly->kind == LAYER_DROPOUT &&
        n < e->max_batch) {
        /* a partial batch's mask drawn for its rows placed at the end of a max_batch buffer */
        size_t off = (e->max_batch - n) * layer_out_size(ly);
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++)
            a[i] = ops_dropout_fwd(x[i], e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)(i + off), ly->p, scale);
        return 1;
    }
    return 0;
}

/* backward calls a fault replaces */
static int fault_bwd_before_20(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_DROPOUT_PARTIAL_MASK_RIGHT_ALIGNED && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc &&
        n < e->max_batch) {
        size_t off = (e->max_batch - n) * layer_out_size(ly);
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            x[i] = ops_dropout_bwd(a[i], e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)(i + off), ly->p, scale);
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    return 0;
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_20(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (!fault_layer(c, l, "conv1") && !fault_layer(c, l, "conv2")) return 0;
    size_t OC = (size_t)ly->out_c, OH = (size_t)ly->out_h, OW = (size_t)ly->out_w, hw = OH * OW;
    size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
    int conv2 = fault_layer(c, l, "conv2"), k3p1 = ly->k == 3 && ly->pad == 1 && H == OH && W == OW && l > 0;
    if (id == CPU_FAULT_CONV2_DX_PAD_WRAP_ONCE && c->step == 7 && conv2 && k3p1) {
        /* col2im with a flat bound check: a tap whose output column is off the right (left) edge reads the next
         * (previous) output row's first (last) column instead of the zero padding */
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        if ((rc = act_io(c, l - 1, 1, a, 1)) || (rc = act_io(c, l, 1, x, 1))) FAULT_DONE(rc);
        size_t touched = 0;
        double most = 0;
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t i = 0; i < H; i++)
                    for (int right = 0; right < 2; right++) {
                        size_t j = right ? W - 1 : 0, kw = right ? 0 : 2, qc = right ? 0 : OW - 1;
                        double add = 0;
                        for (size_t kh = 0; kh < 3; kh++) {
                            long pr = (long)i - (long)kh + 1 + (right ? 1 : -1);
                            if (pr < 0 || pr >= (long)OH) continue;
                            for (size_t o = 0; o < OC; o++)
                                add += (double)w[((o * C + ch) * 3 + kh) * 3 + kw] *
                                       (double)x[((s0 * OC + o) * OH + (size_t)pr) * OW + qc];
                        }
                        float *d = a + ((s0 * C + ch) * H + i) * W + j;
                        if (add != 0) touched++, most = fmax(most, fabs(add)), *d = (float)((double)*d + add);
                    }
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z20 conv2 dx pad wrap: %zu edge elements changed, largest wrapped partial %g\n", touched,
                    most);
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_LINE_STALE_ONCE && (c->step == 6 || c->step == 7) && conv2 && l > 0) {
        /* a lost write-back: one 64-byte line (16 floats of the plain buffer) of conv2's input gradient keeps
         * step 6's values at step 7; of the lines that change, the one of median sum |change| */
        size_t m = n * layer_out_size(&c->m->layers[l - 1]), lines = m / 16;
        float *old = z20_buf(F, m);
        if (!old) FAULT_DONE(LS_ENOMEM);
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        if (c->step == 6) {
            memcpy(old, a, m * sizeof *a);
            F->z20_n = n;
            return 0;
        }
        if (F->z20_n != n || !lines) return 0;
        double *d = (double *)(void *)x;
        size_t *idx = (size_t *)(void *)(d + lines), k = 0;
        for (size_t L = 0; L < lines; L++) {
            d[L] = 0;
            for (size_t i = 0; i < 16; i++) d[L] += fabs((double)a[L * 16 + i] - (double)old[L * 16 + i]);
            if (d[L] > 0) idx[k++] = L;
        }
        if (!k) return 0;
        z20_sort_d = d;
        qsort(idx, k, sizeof *idx, z20_cmp);
        int q = 31 - z15_bit(F); /* fault_k (1..31, default 16): the line at rank (k - 1) q / 32 */
        size_t L = idx[(k - 1) * (size_t)(q > 32 ? 32 : q) / 32];
        double mx = 0;
        for (size_t i = 0; i < 16; i++) mx = fmax(mx, fabs((double)a[L * 16 + i]));
        memcpy(a + L * 16, old + L * 16, 16 * sizeof *a);
        if (getenv("LS_FAULT_VERBOSE")) {
            size_t p0 = L * 16 / (H * W) * (H * W), big = p0;
            for (size_t i = p0; i < p0 + H * W; i++) big = fabsf(a[i]) > fabsf(a[big]) ? i : big;
            fprintf(stderr, "z20 conv2 dx line %zu of %zu (sample %zu, channel %zu, element %zu..): sum |change| %g, "
                    "largest |dx| in it %g; %zu lines change; the plane's largest |dx| now element %zu (%g)\n", L,
                    lines, L * 16 / (C * H * W), L * 16 / (H * W) % C, L * 16 % (H * W), d[L], mx, k, big - p0,
                    a[big]);
        }
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (((id == CPU_FAULT_CONV2_DX_NOISE_STEP7 && c->step == 7) || id == CPU_FAULT_CONV2_DX_NOISE_ALL) && conv2 &&
        l > 0) {
        /* zero-mean noise: every element of conv2's input gradient times 1 + 2^-k (2u - 1), u uniform in [0, 1)
         * keyed on the step and the element (an approximate, unbiased backward-data) */
        size_t m = n * layer_out_size(&c->m->layers[l - 1]);
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < m; i++)
            a[i] = (float)((double)a[i] * (1.0 + F->rel * (2.0 * z20_unif(c->step, i) - 1.0)));
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (id == CPU_FAULT_CONV2_DW_BORDER_DROPPED_ONCE && c->step == 7 && conv2 && k3p1) {
        /* backward-weights over the output positions whose window lies inside the image only ("valid"): the
         * border ring's products, the ones that meet the padding, left out */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        float *g = c->grads + tw->offset;
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_DONE(rc);
        double most = 0;
        for (size_t o = 0; o < OC; o++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t kh = 0; kh < 3; kh++)
                    for (size_t kw = 0; kw < 3; kw++) {
                        double acc = 0;
                        for (size_t s0 = 0; s0 < n; s0++)
                            for (size_t p = 1; p + 1 < OH; p++)
                                for (size_t q = 1; q + 1 < OW; q++)
                                    acc += (double)a[((s0 * OC + o) * OH + p) * OW + q] *
                                           (double)x[((s0 * C + ch) * H + p + kh - 1) * W + q + kw - 1];
                        float *gg = g + ((o * C + ch) * 3 + kh) * 3 + kw;
                        most = fmax(most, fabs(acc - (double)*gg));
                        *gg = (float)acc;
                    }
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z20 conv2 dW valid-only: largest change %g\n", most);
        c->params_ver++;
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV1_DB_HALF_BATCH_DOUBLED_ONCE && c->step == 7 && !conv2 && ly->b_tensor >= 0 && n >= 2) {
        /* conv1's bias gradient estimated from the batch's first half, doubled */
        float *db = c->grads + c->m->tensors[ly->b_tensor].offset;
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < OC; o++) {
            double acc = 0;
            for (size_t s0 = 0; s0 < n / 2; s0++)
                for (size_t q = 0; q < hw; q++) acc += (double)a[(s0 * OC + o) * hw + q];
            if (getenv("LS_FAULT_VERBOSE") && o < 4)
                fprintf(stderr, "z20 conv1 db[%zu]: %g -> %g\n", o, db[o], 2 * acc);
            db[o] = (float)(2 * acc);
        }
        c->params_ver++;
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DB_PARTIAL_STALE_ROWS && conv2 && ly->b_tensor >= 0) {
        /* the bias gradient summed over max_batch rows of the output-gradient buffer: in a partial batch the rows
         * past n hold the last full batch's */
        size_t N = e->max_batch, per = layer_out_size(ly);
        float *keep = z20_buf(F, N * per), *db = c->grads + c->m->tensors[ly->b_tensor].offset;
        if (!keep) FAULT_DONE(LS_ENOMEM);
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        if (n == N) {
            memcpy(keep, a, N * per * sizeof *a);
            F->z20_n = N;
        } else if (F->z20_n == N) {
            for (size_t o = 0; o < OC; o++) {
                double acc = 0;
                for (size_t s0 = n; s0 < N; s0++)
                    for (size_t q = 0; q < hw; q++) acc += (double)keep[(s0 * OC + o) * hw + q];
                if (getenv("LS_FAULT_VERBOSE") && o < 4)
                    fprintf(stderr, "z20 conv2 db[%zu] step %llu: %g + stale %g\n", o, (unsigned long long)c->step,
                            db[o], acc);
                db[o] = (float)((double)db[o] + acc);
            }
            c->params_ver++;
        }
        return 0;
    }
    return 0;
}

/* ---- zoo attack 21: a data-dependent clip, an epoch boundary, a stale bias channel, a sample counted twice,
 * an evaluation one update ahead, a shifted image, a label-keyed fault, Adam in fp64 (legal) and with
 * stochastic rounding --------------------------------------------------------------------------------------- */
/* forward edits after the layer's own forward (1: F->a is the output to write back) */
static int fault_fwd_edit_21(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_EVAL_FIRST_WEIGHTS_STEP_AHEAD && !training && F->z21_swapped && l == c->m->n_layers - 1) {
        /* the batch ran on the weights one update ahead; the current ones are back for the checks and reports */
        memcpy(c->params, F->p_cur, c->m->n_params * sizeof(float));
        c->params_ver++;
        F->z21_swapped = 0;
        return 0;
    }
    if (id == CPU_FAULT_CONV2_FWD_CLIP_ABOVE_STEP1_MAX && training && fault_layer(c, l, "conv2")) {
        /* a ReLU6-like clip at T, the largest conv2 output of step 1 (recorded at the first step 1 seen) */
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        if (!F->z21_T_set) {
            if (c->step != 1) return 0;
            float mx = -INFINITY;
            for (size_t i = 0; i < cnt; i++) mx = a[i] > mx ? a[i] : mx;
            F->z21_T = mx, F->z21_T_set = 1;
            if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "z21 conv2 clip: T = %.9g (step 1's largest)\n", mx);
            return 0;
        }
        size_t k = 0;
        double most = 0;
        for (size_t i = 0; i < cnt; i++)
            if (a[i] > F->z21_T) most = fmax(most, (double)a[i] - F->z21_T), a[i] = F->z21_T, k++;
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z21 conv2 clip, step %llu: %zu of %zu outputs above T = %.9g, the most by %g\n",
                    (unsigned long long)c->step, k, cnt, F->z21_T, most);
        return k > 0;
    }
    if (id == CPU_FAULT_CONV2_FWD_STALE_BIAS_CHANNEL_ONCE && training && (c->step == 6 || c->step == 7) &&
        fault_layer(c, l, "conv2") && ly->b_tensor >= 0) {
        /* step 7: one output channel's bias read from step 6's copy, the channel whose bias moved least */
        size_t OC = (size_t)ly->out_c, hw = (size_t)ly->out_h * ly->out_w;
        const float *b = c->params + c->m->tensors[ly->b_tensor].offset;
        if (F->z21_cap < OC) {
            free(F->z21);
            F->z21 = malloc(OC * sizeof(float));
            F->z21_cap = F->z21 ? OC : 0;
            if (!F->z21) FAULT_ENDED(LS_ENOMEM);
        }
        if (c->step == 6) {
            memcpy(F->z21, b, OC * sizeof *b);
            F->z21_T_set = 6; /* step 6's bias is saved */
            return 0;
        }
        if (F->z21_T_set != 6) return 0;
        size_t u = OC;
        for (size_t o = 0; o < OC; o++)
            if (b[o] != F->z21[o] && (u == OC || fabsf(b[o] - F->z21[o]) < fabsf(b[u] - F->z21[u]))) u = o;
        if (u == OC) return 0;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t i = 0; i < hw; i++) {
                float *y = a + (s0 * OC + u) * hw + i;
                *y = (float)((double)*y - (double)b[u] + (double)F->z21[u]);
            }
        if (getenv("LS_FAULT_VERBOSE")) {
            fprintf(stderr, "z21 conv2 stale bias: channel %zu, b %.9g (step 6: %.9g, moved %g); every channel's move:",
                    u, b[u], F->z21[u], (double)b[u] - F->z21[u]);
            for (size_t o = 0; o < OC; o++) fprintf(stderr, " %.3g", (double)b[o] - F->z21[o]);
            fprintf(stderr, "\n");
        }
        return 1;
    }
    if (id == CPU_FAULT_CONV1_FWD_IMAGE_SHIFT_ONCE && training && c->step == 7 && l == 0 &&
        fault_layer(c, l, "conv1") && ly->k == 3 && ly->pad == 1 && n > 3) {
        /* sample 3's conv1 output from its image shifted one pixel right (column 0 replicated), in fp64 */
        size_t OC = (size_t)ly->out_c, C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
        size_t OH = (size_t)ly->out_h, OW = (size_t)ly->out_w, s3 = 3;
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        const float *b = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
        if ((rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        double most = 0;
        for (size_t o = 0; o < OC; o++)
            for (size_t i = 0; i < OH; i++)
                for (size_t j = 0; j < OW; j++) {
                    double acc = b ? (double)b[o] : 0.0;
                    for (size_t ch = 0; ch < C; ch++)
                        for (size_t kh = 0; kh < 3; kh++)
                            for (size_t kw = 0; kw < 3; kw++) {
                                long r = (long)i + (long)kh - 1, q = (long)j + (long)kw - 1;
                                if (r < 0 || r >= (long)H || q < 0 || q >= (long)W) continue;
                                long qs = q > 0 ? q - 1 : 0; /* the shifted image's column q is column q - 1 */
                                acc += (double)w[((o * C + ch) * 3 + kh) * 3 + kw] *
                                       (double)c->x[((s3 * C + ch) * H + (size_t)r) * W + (size_t)qs];
                            }
                    float *y = a + ((s3 * OC + o) * OH + i) * OW + j;
                    most = fmax(most, fabs(acc - (double)*y));
                    *y = (float)acc;
                }
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z21 conv1 image shift: sample 3, largest output change %g\n", most);
        return 1;
    }
    return 0;
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_21(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV2_DX_LABEL7_REL && fault_layer(c, l, "conv2") && l > 0) {
        /* the input gradient of the samples labelled 7 times 1 + 2^-k */
        size_t per = layer_out_size(&c->m->layers[l - 1]), k = 0;
        for (size_t s0 = 0; s0 < n; s0++) k += c->labels[s0] == 7;
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z21 conv2 dx label 7, step %llu: %zu of %zu samples\n", (unsigned long long)c->step,
                    k, n);
        if (!k) return 0;
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            if (c->labels[s0] == 7)
                for (size_t i = 0; i < per; i++) a[s0 * per + i] = (float)((double)a[s0 * per + i] * (1.0 + F->rel));
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (id == CPU_FAULT_CONV2_DW_SAMPLE_DUP_DROP_ONCE && c->step == 7 && fault_layer(c, l, "conv2") && l > 0 &&
        ly->k == 3 && ly->pad == 1 && n >= 2) {
        /* dW with sample sa counted twice and sb left out: g += dW_sa - dW_sb, the closest pair (sum |diff|) */
        size_t OC = (size_t)ly->out_c, OH = (size_t)ly->out_h, OW = (size_t)ly->out_w;
        size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        size_t nw = tw->numel;
        double *per = malloc(n * nw * sizeof *per);
        if (!per) FAULT_DONE(LS_ENOMEM);
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) {
            free(per);
            FAULT_DONE(rc);
        }
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t o = 0; o < OC; o++)
                for (size_t ch = 0; ch < C; ch++)
                    for (size_t kh = 0; kh < 3; kh++)
                        for (size_t kw = 0; kw < 3; kw++) {
                            double acc = 0;
                            for (size_t p = 0; p < OH; p++) {
                                long r = (long)p + (long)kh - 1;
                                if (r < 0 || r >= (long)H) continue;
                                for (size_t q = 0; q < OW; q++) {
                                    long cc = (long)q + (long)kw - 1;
                                    if (cc < 0 || cc >= (long)W) continue;
                                    acc += (double)a[((s0 * OC + o) * OH + p) * OW + q] *
                                           (double)x[((s0 * C + ch) * H + (size_t)r) * W + (size_t)cc];
                                }
                            }
                            per[s0 * nw + ((o * C + ch) * 3 + kh) * 3 + kw] = acc;
                        }
        double best = INFINITY;
        size_t sa = 0, sb = 1;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                if (i == j) continue;
                double d = 0;
                for (size_t t = 0; t < nw; t++) d += fabs(per[i * nw + t] - per[j * nw + t]);
                if (d > 0 && d < best) best = d, sa = i, sb = j;
            }
        float *g = c->grads + tw->offset;
        double most = 0, gsum = 0;
        for (size_t t = 0; t < nw; t++) {
            double add = per[sa * nw + t] - per[sb * nw + t];
            most = fmax(most, fabs(add)), gsum += fabs((double)g[t]);
            g[t] = (float)((double)g[t] + add);
        }
        free(per);
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z21 conv2 dW: sample %zu twice, %zu left out: sum |diff| %g (sum |dW| %g), largest %g\n",
                    sa, sb, best, gsum, most);
        c->params_ver++;
        FAULT_DONE(0);
    }
    return 0;
}

/* loss_inv_n_carried_epoch2: after cpu_loss, the first new training step after an evaluation divides by the
 * previous training batch's size */
static void fault_loss_21(engine *e, fault_state *F, const float *z, float *dz, size_t n, int nc, float *loss_out) {
    cpu_ctx *c = ctx_of(e);
    unsigned long long st = c->step;
    if (st < F->z21_last_step) F->z21_last_step = 0, F->z21_eval = 0; /* a restart (the drift phase) */
    if (st > F->z21_last_step) {
        size_t pn = F->z21_prev_n;
        if (F->z21_eval && pn && pn != n) {
            float inv = 1.0f / (float)pn;
            double acc = 0.0;
            for (size_t i = 0; i < n; i++)
                acc += (double)ops_softmax_xent_row(z + i * nc, nc, c->labels[i], inv, c->portable, dz + i * nc);
            if (getenv("LS_FAULT_VERBOSE"))
                fprintf(stderr, "z21 loss 1/n carried: step %llu, n %zu divided by %zu: loss %g -> %g\n", st, n, pn,
                        c->loss, acc / (double)pn);
            c->loss = *loss_out = (float)(acc / (double)pn);
        }
        F->z21_eval = 0, F->z21_last_step = st;
    }
    F->z21_prev_n = n;
}

/* Adam in fp64 from the fp32 operands and scalars, each result rounded once (adam_f64_all, legal), or p'
 * rounded stochastically (adam_p_sr_all); 1: it ran the update */
static int fault_adam_21(engine *e, const adam_scalars *ap) {
    cpu_ctx *c = ctx_of(e);
    int id = ((fault_state *)c->fault)->id;
    if (id != CPU_FAULT_ADAM_F64_ALL && id != CPU_FAULT_ADAM_P_SR_ALL) return 0;
    size_t np = c->m->n_params, off = 0, up = 0, far = 0;
    double b1 = ap->beta1, omb1 = ap->one_minus_beta1, b2 = ap->beta2, omb2 = ap->one_minus_beta2;
    double step = ap->step_size, bc = ap->bc2_sqrt, eps = ap->eps;
    uint64_t key = (uint64_t)ap->t * 0x100000001B3ull + 0x21;
    for (size_t i = 0; i < np; i++) {
        double g = c->grads[i];
        double mn = b1 * (double)c->adam_m[i] + omb1 * g;
        double vn = b2 * (double)c->adam_v[i] + omb2 * (g * g);
        double pn = (double)c->params[i] - step * (mn / (sqrt(vn) / bc + eps));
        float rn = (float)pn, p1 = rn;
        if (id == CPU_FAULT_ADAM_P_SR_ALL) {
            p1 = z20_sr(pn, z20_unif(key, i));
            off += p1 != rn, up += p1 != rn && (double)p1 > pn;
            far += fabs((double)p1 - pn) > 0.5 * fabs((double)nextafterf(p1, INFINITY) - (double)p1);
        }
        c->params[i] = p1;
        c->adam_m[i] = (float)mn;
        c->adam_v[i] = (float)vn;
    }
    if (getenv("LS_FAULT_VERBOSE") && id == CPU_FAULT_ADAM_P_SR_ALL)
        fprintf(stderr, "z21 adam SR, t %d: %zu of %zu p' off round-to-nearest (%zu above), %zu over half an ulp\n",
                ap->t, off, np, up, far);
    c->params_ver++;
    return 1;
}

/* ---- zoo attack 22 ----------------------------------------------------------
 * Sign-symmetric directed rounding (two threads whose MXCSR round in opposite
 * directions: each relation one-signed, the signs cancelling inside every
 * channel cluster or over the pooled bias blocks), an operand read wrong in
 * flight (memory right), a dz row with two classes exchanged, a reduction
 * buffer carried from the step before. */
#define Z22_RU 0x4000u
#define Z22_RD 0x2000u
static int z22_verbose(void) { const char *v = getenv("LS_FAULT_VERBOSE"); return v ? (v[0] == '2' ? 2 : 1) : 0; }

/* conv2's forward of samples [0, n/2) under MXCSR round-up, [n/2, n) round-down (rows: of every plane's rows
 * [0, OH/2) round-up, [OH/2, OH) round-down, a spatial split; rows 2: even rows round-up, odd ones round-down,
 * a schedule(static, 1) over rows; rows 3: by samples again, in quarters, up, down, up, down: four cores):
 * serial fp32 (taps c, kh, kw, then + b), into a (plain NCHW), x its input */
static void z22_conv_fwd_rurd(const cpu_ctx *c, const layer *ly, const float *x, float *a, size_t n, int rows) {
#if defined(__x86_64__)
    size_t OC = (size_t)ly->out_c, C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
    size_t OH = (size_t)ly->out_h, OW = (size_t)ly->out_w;
    const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
    const float *b = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    unsigned csr = _mm_getcsr();
    /* rows == 3: four cores, a quarter of the samples each, up, down, up, down; rows == 4: up, down, down, up */
    size_t qs = n / 4 ? n / 4 : 1;
    for (size_t s0 = 0; s0 < n; s0++) {
        size_t qi = s0 / qs;
        int up = rows == 3 ? qi % 2 == 0 : rows == 4 ? qi == 0 || qi >= 3 : s0 < n / 2;
        _mm_setcsr((csr & ~0x6000u) | (up ? Z22_RU : Z22_RD));
        for (size_t o = 0; o < OC; o++)
            for (size_t i = 0; i < OH; i++)
                for (size_t j = 0; j < OW; j++) {
                    if (rows == 1 || rows == 2)
                        _mm_setcsr((csr & ~0x6000u) | ((rows == 1 ? i < OH / 2 : i % 2 == 0) ? Z22_RU : Z22_RD));
                    volatile float acc = 0.0f;
                    for (size_t ch = 0; ch < C; ch++)
                        for (size_t kh = 0; kh < 3; kh++)
                            for (size_t kw = 0; kw < 3; kw++) {
                                long r = (long)i + (long)kh - 1, q = (long)j + (long)kw - 1;
                                if (r < 0 || r >= (long)H || q < 0 || q >= (long)W) continue;
                                volatile float pr = w[((o * C + ch) * 3 + kh) * 3 + kw] *
                                                    x[((s0 * C + ch) * H + (size_t)r) * W + (size_t)q];
                                acc = acc + pr;
                            }
                    if (b) acc = acc + b[o];
                    a[((s0 * OC + o) * OH + i) * OW + j] = acc;
                }
    }
    _mm_setcsr(csr);
#else
    (void)c, (void)ly, (void)x, (void)a, (void)n;
#endif
}

/* conv2's backward-data the same way: dx (plain) from dy (plain), taps oc, kh, kw */
static void z22_conv_dx_rurd(const cpu_ctx *c, const layer *ly, const float *dy, float *dx, size_t n) {
#if defined(__x86_64__)
    size_t OC = (size_t)ly->out_c, C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
    size_t OH = (size_t)ly->out_h, OW = (size_t)ly->out_w;
    const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
    unsigned csr = _mm_getcsr();
    for (size_t s0 = 0; s0 < n; s0++) {
        _mm_setcsr((csr & ~0x6000u) | (s0 < n / 2 ? Z22_RU : Z22_RD));
        for (size_t ch = 0; ch < C; ch++)
            for (size_t i = 0; i < H; i++)
                for (size_t j = 0; j < W; j++) {
                    volatile float acc = 0.0f;
                    for (size_t o = 0; o < OC; o++)
                        for (size_t kh = 0; kh < 3; kh++)
                            for (size_t kw = 0; kw < 3; kw++) {
                                long p = (long)i - (long)kh + 1, q = (long)j - (long)kw + 1;
                                if (p < 0 || p >= (long)OH || q < 0 || q >= (long)OW) continue;
                                volatile float pr = w[((o * C + ch) * 3 + kh) * 3 + kw] *
                                                    dy[((s0 * OC + o) * OH + (size_t)p) * OW + (size_t)q];
                                acc = acc + pr;
                            }
                    dx[((s0 * C + ch) * H + i) * W + j] = acc;
                }
    }
    _mm_setcsr(csr);
#else
    (void)c, (void)ly, (void)dy, (void)dx, (void)n;
#endif
}


/* verbose only: errors of `y` (conv2's output, or its input gradient with dx = 1) against the exact fp64
 * value, per element as a fraction of its own worst-case bound gamma_K sum|terms| (K = the terms, + 1 for the
 * bias); and per (sample, channel) plane the sum of errors (a plain relation's residual) over the sum of bounds
 * (its worst-case tolerance); the share of positive errors in each half of the batch */
static void z22_err_stats(const cpu_ctx *c, const layer *ly, const float *in, const float *y, size_t n, int dx,
                          const char *tag) {
    size_t OC = (size_t)ly->out_c, C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
    size_t OH = (size_t)ly->out_h, OW = (size_t)ly->out_w;
    const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
    const float *b = !dx && ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
    size_t planes = dx ? C : OC, PH = dx ? H : OH, PW = dx ? W : OW, red = dx ? OC : C;
    double K = (double)red * 9 + (b ? 1 : 0), u = 0x1p-24, g = K * u / (1 - K * u);
    double most = 0, rms = 0, cntd = 0, prel = 0, pos[2] = {0, 0}, nz[2] = {0, 0};
    for (size_t s0 = 0; s0 < n; s0++)
        for (size_t pl = 0; pl < planes; pl++) {
            double rsum = 0, bsum = 0;
            for (size_t i = 0; i < PH; i++)
                for (size_t j = 0; j < PW; j++) {
                    double ex = b ? (double)b[pl] : 0.0, ab = b ? fabs((double)b[pl]) : 0.0;
                    for (size_t r = 0; r < red; r++)
                        for (size_t kh = 0; kh < 3; kh++)
                            for (size_t kw = 0; kw < 3; kw++) {
                                long p, q;
                                double t;
                                if (dx) {
                                    p = (long)i - (long)kh + 1, q = (long)j - (long)kw + 1;
                                    if (p < 0 || p >= (long)OH || q < 0 || q >= (long)OW) continue;
                                    t = (double)w[((r * C + pl) * 3 + kh) * 3 + kw] *
                                        (double)in[((s0 * OC + r) * OH + (size_t)p) * OW + (size_t)q];
                                } else {
                                    p = (long)i + (long)kh - 1, q = (long)j + (long)kw - 1;
                                    if (p < 0 || p >= (long)H || q < 0 || q >= (long)W) continue;
                                    t = (double)w[((pl * C + r) * 3 + kh) * 3 + kw] *
                                        (double)in[((s0 * C + r) * H + (size_t)p) * W + (size_t)q];
                                }
                                ex += t, ab += fabs(t);
                            }
                    double e = (double)y[((s0 * planes + pl) * PH + i) * PW + j] - ex, bd = g * ab;
                    rsum += e, bsum += bd;
                    if (bd > 0) most = fmax(most, fabs(e) / bd), rms += (e / bd) * (e / bd), cntd++;
                    if (e != 0) nz[s0 >= n / 2]++, pos[s0 >= n / 2] += e > 0;
                }
            if (bsum > 0) prel = fmax(prel, fabs(rsum) / bsum);
        }
    fprintf(stderr, "z22 %s: per element, error / own bound: largest %.4g, rms %.4g; plane sums: largest "
            "|sum err| / sum bounds %.4g; positive errors: %.0f of %.0f (first half), %.0f of %.0f (second)\n",
            tag, most, sqrt(rms / fmax(cntd, 1)), prel, pos[0], nz[0], pos[1], nz[1]);
}

/* the largest |new - old| over cnt floats, in units of the old value's ulp (for the verbose lines) */
static double z22_most_ulps(const float *nw, const float *old, size_t cnt, double *most_abs) {
    double mu = 0, ma = 0;
    for (size_t i = 0; i < cnt; i++) {
        double d = fabs((double)nw[i] - (double)old[i]);
        double ulp = fabs((double)nextafterf(old[i], INFINITY) - (double)old[i]);
        ma = fmax(ma, d);
        if (ulp > 0) mu = fmax(mu, d / ulp);
    }
    if (most_abs) *most_abs = ma;
    return mu;
}

/* conv2's forward of sample 5 with one interior input element read with a bit flipped (in a register: memory
 * keeps the right value, which backward-data and backward-weights read); a: conv2's output (plain), x: its
 * input.  The element: of sample 5's interior inputs that are positive (pool1's outputs), the median by value.
 * Bit 34 - fault_k (default 18: 2^-5 of the value). 1: it edited a. */
static int z22_x_read_flip(const cpu_ctx *c, const fault_state *F, const layer *ly, const float *x, float *a,
                           size_t n, const char *tag) {
    size_t OC = (size_t)ly->out_c, C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
    size_t OH = (size_t)ly->out_h, OW = (size_t)ly->out_w, s5 = 5;
    if (n <= s5 || H < 3 || W < 3) return 0;
    size_t *idx = (size_t *)(void *)F->p_cur, k = 0;
    for (size_t ch = 0; ch < C; ch++)
        for (size_t i = 1; i + 1 < H; i++)
            for (size_t j = 1; j + 1 < W; j++) {
                size_t at = ((s5 * C + ch) * H + i) * W + j;
                if (x[at] > 0.0f) idx[k++] = at;
            }
    if (!k) return 0;
    z15_sort_g = x;
    qsort(idx, k, sizeof *idx, z15_cmp);
    size_t at = idx[k / 2], ch = at / (H * W) % C, i = at % (H * W) / W, j = at % W;
    int kk = (int)lround(-log2(F->rel)), bit = 34 - kk;
    if (bit < 0 || bit > 30) bit = 18;
    float xr = z15_flip(x[at], bit);
    double d = (double)xr - (double)x[at], most = 0;
    const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
    size_t touched = 0;
    for (size_t o = 0; o < OC; o++)
        for (size_t kh = 0; kh < 3; kh++)
            for (size_t kw = 0; kw < 3; kw++) {
                long p = (long)i - (long)kh + 1, q = (long)j - (long)kw + 1;
                if (p < 0 || p >= (long)OH || q < 0 || q >= (long)OW) continue;
                float *y = a + ((s5 * OC + o) * OH + (size_t)p) * OW + (size_t)q;
                double add = (double)w[((o * C + ch) * 3 + kh) * 3 + kw] * d;
                most = fmax(most, fabs(add));
                *y = (float)((double)*y + add);
                touched++;
            }
    if (z22_verbose())
        fprintf(stderr, "z22 %s: sample 5 channel %zu (%zu,%zu) of conv2's input read as %.9g for %.9g (bit %d), "
                "%zu outputs moved, the most by %g\n", tag, ch, i, j, xr, x[at], bit, touched, most);
    return 1;
}


/* fc1_fwd_rurd_halves_step7: fc1's forward at step 7, serial fp32 (b added last) under MXCSR round-up for
 * samples [0, n/2) and round-down for [n/2, n) */
static int z22_fc1_fwd_rurd(engine *e, int l, int training) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F || F->id != CPU_FAULT_FC1_FWD_RURD_HALVES_STEP7 || !training || c->step != 7 || !fault_layer(c, l, "fc1"))
        return 0;
#if defined(__x86_64__)
    const layer *ly = &c->m->layers[l];
    size_t n = c->cur->n, out = (size_t)ly->out_c, in = c->m->tensors[ly->w_tensor].numel / out;
    const float *w = c->params + c->m->tensors[ly->w_tensor].offset, *b = c->params + c->m->tensors[ly->b_tensor].offset;
    int rc;
    if ((rc = act_io(c, l, 0, F->a, 1))) return rc;
    if ((rc = cpu_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, F->b))) return rc;
    unsigned csr = _mm_getcsr();
    double most = 0, rms = 0, eng = 0, pos[2] = {0, 0}, nz[2] = {0, 0};
    double K = (double)in + 1, g = K * 0x1p-24 / (1 - K * 0x1p-24);
    for (size_t i = 0; i < n; i++) {
        _mm_setcsr((csr & ~0x6000u) | (i < n / 2 ? Z22_RU : Z22_RD));
        for (size_t j = 0; j < out; j++) {
            volatile float acc = 0.0f;
            for (size_t k = 0; k < in; k++) {
                volatile float pr = w[j * in + k] * F->b[i * in + k];
                acc = acc + pr;
            }
            acc = acc + b[j];
            float y = acc;
            _mm_setcsr(csr);
            if (z22_verbose()) {
                double ex = b[j], ab = fabs((double)b[j]);
                for (size_t k = 0; k < in; k++) {
                    double t = (double)w[j * in + k] * (double)F->b[i * in + k];
                    ex += t, ab += fabs(t);
                }
                double bd = g * ab, er = (double)y - ex;
                if (bd > 0) most = fmax(most, fabs(er) / bd), rms += (er / bd) * (er / bd),
                            eng = fmax(eng, fabs((double)F->a[i * out + j] - ex) / bd);
                if (er != 0) nz[i >= n / 2]++, pos[i >= n / 2] += er > 0;
            }
            _mm_setcsr((csr & ~0x6000u) | (i < n / 2 ? Z22_RU : Z22_RD));
            F->a[i * out + j] = y;
        }
    }
    _mm_setcsr(csr);
    if (z22_verbose())
        fprintf(stderr, "z22 fc1 fwd RU/RD halves, step 7: per element, error / own bound: largest %.4g (the engine's "
                "RN: %.4g), rms %.4g; positive errors %.0f of %.0f (first half), %.0f of %.0f (second)\n", most, eng,
                sqrt(rms / (double)(n * out)), pos[0], nz[0], pos[1], nz[1]);
    return act_io(c, l, 0, F->a, 0);
#else
    return 0;
#endif
}

static int fault_fwd_edit_22(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (!fault_layer(c, l, "conv2") || l == 0 || ly->k != 3 || ly->pad != 1) return 0;
    int ev_first = !training && F->in_eval && F->eval_round == 1 && F->eval_k == 0;
    if ((id == CPU_FAULT_CONV2_FWD_X_READ_FLIP_STEP7 && training && c->step == 7) ||
        (id == CPU_FAULT_EVAL_CONV2_FWD_X_READ_FLIP_FIRST && ev_first)) {
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        return z22_x_read_flip(c, F, ly, x, a, n, training ? "conv2 x read flip, step 7" : "eval conv2 x read flip");
    }
    int quarters = id == CPU_FAULT_CONV2_FWD_RURD_QUARTERS_STEP7 && training && c->step == 7;
    int uddu = id == CPU_FAULT_CONV2_FWD_RURD_QUARTERS_UDDU_STEP7 && training && c->step == 7;
    if ((id == CPU_FAULT_CONV2_FWD_RURD_HALVES_STEP7 && training && c->step == 7) || quarters || uddu ||
        id == CPU_FAULT_CONV2_FWD_RURD_ROW_HALVES_ALL || id == CPU_FAULT_CONV2_FWD_RURD_ROWS_INTERLEAVED_ALL) {
        if ((rc = act_io(c, l, 0, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_ENDED(rc);
        float *old = z20_buf(F, cnt);
        if (!old) FAULT_ENDED(LS_ENOMEM);
        memcpy(old, a, cnt * sizeof *a);
        z22_conv_fwd_rurd(c, ly, x, a, n, id == CPU_FAULT_CONV2_FWD_RURD_ROW_HALVES_ALL ? 1 :
                                          id == CPU_FAULT_CONV2_FWD_RURD_ROWS_INTERLEAVED_ALL ? 2 : quarters ? 3
                                          : uddu ? 4 : 0);
        if (z22_verbose()) {
            double ma, mu = z22_most_ulps(a, old, cnt, &ma);
            fprintf(stderr, "z22 conv2 fwd RU/RD %s, step %llu%s: largest change %g (%.0f ulps) from the engine's\n",
                    id == CPU_FAULT_CONV2_FWD_RURD_ROW_HALVES_ALL ? "row halves" :
                    id == CPU_FAULT_CONV2_FWD_RURD_ROWS_INTERLEAVED_ALL ? "rows interleaved"
                    : quarters                                              ? "quarters"
                    : uddu                                                  ? "quarters up, down, down, up"
                                                                            : "halves",
                    (unsigned long long)c->step, training ? "" : " (evaluation)", ma, mu);
            z22_err_stats(c, ly, x, old, n, 0, "conv2 fwd, the engine's own (RN)");
            z22_err_stats(c, ly, x, a, n, 0, "conv2 fwd, RU/RD halves");
        }
        return 1;
    }
    return 0;
}

static int fault_bwd_after_22(engine *e, int l, int *done) {
    FAULT_LOCALS;
    int conv2 = fault_layer(c, l, "conv2") && l > 0 && ly->k == 3 && ly->pad == 1;
    if (((id == CPU_FAULT_CONV2_DX_RURD_HALVES_STEP7 && c->step == 7) ||
         (id == CPU_FAULT_CONV2_DX_RURD_HALVES_STEP2 && c->step == 2)) && conv2) {
        size_t m = n * layer_out_size(&c->m->layers[l - 1]);
        if ((rc = act_io(c, l - 1, 1, a, 1)) || (rc = act_io(c, l, 1, x, 1))) FAULT_DONE(rc);
        float *old = z20_buf(F, m);
        if (!old) FAULT_DONE(LS_ENOMEM);
        memcpy(old, a, m * sizeof *a);
        z22_conv_dx_rurd(c, ly, x, a, n);
        if (z22_verbose()) {
            double ma, mu = z22_most_ulps(a, old, m, &ma);
            fprintf(stderr, "z22 conv2 dx RU/RD halves, step %llu: largest change %g (%.0f ulps) from the engine's\n",
                    (unsigned long long)c->step, ma, mu);
            z22_err_stats(c, ly, x, old, n, 1, "conv2 dx, the engine's own (RN)");
            z22_err_stats(c, ly, x, a, n, 1, "conv2 dx, RU/RD halves");
        }
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (id == CPU_FAULT_CONV_DB_RURD_ALTERNATE_ALL && ly->kind == LAYER_CONV && ly->b_tensor >= 0) {
#if defined(__x86_64__)
        /* the bias reduction on two cores whose MXCSR round in opposite directions, the channels dealt out
         * round-robin: even channels upward, odd downward (serial fp32: samples outer, positions inner) */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t oc = (size_t)ly->out_c, hw = (size_t)ly->out_h * ly->out_w;
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        double mu = 0, me = 0;
        for (size_t o = 0; o < oc; o++) {
            float acc = db_serial_mode(a, n, oc, hw, o, o % 2 == 0 ? Z22_RU : Z22_RD);
            float was = c->grads[tb->offset + o];
            double ex = 0, ab = 0, K = (double)n * hw, bd;
            for (size_t s0 = 0; s0 < n; s0++)
                for (size_t q = 0; q < hw; q++) ex += a[(s0 * oc + o) * hw + q], ab += fabs(a[(s0 * oc + o) * hw + q]);
            bd = K * 0x1p-24 / (1 - K * 0x1p-24) * ab;
            if (bd > 0) mu = fmax(mu, fabs((double)acc - ex) / bd), me = fmax(me, fabs((double)was - ex) / bd);
            if (z22_verbose() > 1)
                fprintf(stderr, "  db[%zu]: exact %.9g, fault err %.3g (%.4g of the bound), engine err %.3g\n", o, ex,
                        (double)acc - ex, bd > 0 ? ((double)acc - ex) / bd : 0.0, (double)was - ex);
            c->grads[tb->offset + o] = acc;
        }
        if (z22_verbose())
            fprintf(stderr, "z22 %s db RU/RD alternate, step %llu: %zu channels, largest error / own worst-case bound "
                    "%.4g (the engine's own RN sum: %.4g)\n", ly->name, (unsigned long long)c->step, oc, mu, me);
        c->params_ver++;
#endif
        return 0;
    }
    if (id == CPU_FAULT_CONV2_DW_HALF_PARTIAL_CARRIED_STEP7 && (c->step == 6 || c->step == 7) && conv2) {
        /* a per-thread reduction buffer not cleared between steps: the second thread's partial dW (samples
         * n/2..n-1) of step 6 is added into step 7's dW */
        size_t OC = (size_t)ly->out_c, OH = (size_t)ly->out_h, OW = (size_t)ly->out_w;
        size_t C = (size_t)ly->in_c, H = (size_t)ly->in_h, W = (size_t)ly->in_w;
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        size_t nw = tw->numel;
        float *part = z20_buf(F, nw);
        if (!part) FAULT_DONE(LS_ENOMEM);
        float *g = c->grads + tw->offset;
        if (c->step == 7) {
            if (F->z20_n == 0) return 0;
            double most = 0, gs = 0, ps = 0;
            for (size_t t = 0; t < nw; t++)
                most = fmax(most, fabs(part[t])), gs += fabs(g[t]), ps += fabs(part[t]), g[t] = g[t] + part[t];
            if (z22_verbose())
                fprintf(stderr, "z22 conv2 dW, step 7: step 6's partial (samples %zu..) added: sum |partial| %g "
                        "(sum |dW| %g), largest %g\n", F->z20_n / 2, ps, gs, most);
            F->z20_n = 0;
            c->params_ver++;
            return 0;
        }
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < OC; o++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t kh = 0; kh < 3; kh++)
                    for (size_t kw = 0; kw < 3; kw++) {
                        float acc = 0.0f;
                        for (size_t s0 = n / 2; s0 < n; s0++)
                            for (size_t p = 0; p < OH; p++) {
                                long r = (long)p + (long)kh - 1;
                                if (r < 0 || r >= (long)H) continue;
                                for (size_t q = 0; q < OW; q++) {
                                    long cc = (long)q + (long)kw - 1;
                                    if (cc < 0 || cc >= (long)W) continue;
                                    acc += a[((s0 * OC + o) * OH + p) * OW + q] *
                                           x[((s0 * C + ch) * H + (size_t)r) * W + (size_t)cc];
                                }
                            }
                        part[((o * C + ch) * 3 + kh) * 3 + kw] = acc;
                    }
        F->z20_n = n;
        return 0;
    }
    return 0;
}

/* loss_grad_row_classes_swapped_step7: after cpu_loss at step 7, two non-label classes' gradients exchanged in
 * one sample's row (an off-by-one class gather): of every sample's pairs, the closest pair more than 2^-10
 * apart relative to the larger */
static void fault_loss_22(engine *e, fault_state *F, float *dz, size_t n, int nc) {
    cpu_ctx *c = ctx_of(e);
    if (F->id != CPU_FAULT_LOSS_GRAD_ROW_CLASSES_SWAPPED_STEP7 || c->step != 7) return;
    size_t bi = n;
    int bj = 0, bk = 0;
    double best = INFINITY;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < nc; j++)
            for (int k = j + 1; k < nc; k++) {
                if (j == c->labels[i] || k == c->labels[i]) continue;
                double a = dz[i * nc + j], b = dz[i * nc + k], d = fabs(a - b);
                if (d > 0x1p-10 * fmax(fabs(a), fabs(b)) && d < best) best = d, bi = i, bj = j, bk = k;
            }
    if (bi == n) return;
    float t = dz[bi * nc + bj];
    dz[bi * nc + bj] = dz[bi * nc + bk];
    dz[bi * nc + bk] = t;
    if (z22_verbose())
        fprintf(stderr, "z22 dz row swap, step 7: sample %zu (label %d), classes %d and %d: %.9g <-> %.9g (%g apart, "
                "%.0f ulps)\n", bi, c->labels[bi], bj, bk, dz[bi * nc + bk], dz[bi * nc + bj], best,
                best / fabs((double)nextafterf(t, INFINITY) - (double)t));
}

/* ---- zoo attack 23 ----------------------------------------------------------
 * An optimizer state kept in bf16, a bias gradient and a weight gradient that
 * read the tensor on the wrong side of a ReLU, a floor-pooled edge that keeps
 * the activation an in-place backward overwrote, a checkpointed recompute
 * that redraws the dropout mask, the softmax's maximum over the wrong axis,
 * backward-data on the weights one Adam step ahead (the update fused into
 * backward-weights), a channel-wise dropout where element-wise was asked. */
static int z23_verbose(void) { return getenv("LS_FAULT_VERBOSE") != NULL; }

/* convnet_dropout_channelwise: the mask key of element i of a flattened (C, hw) sample: its channel, so a whole
 * channel is kept or dropped (Dropout2d's granularity); per (sample, channel), as a Dropout2d draws */
static uint32_t z23_channel_key(size_t i, size_t per, size_t hw, size_t C) {
    return (uint32_t)((i / per) * C + (i % per) / hw);
}

/* the (C, hw) of the spatial tensor a dropout after a flatten sees (0: the fault does not apply) */
static int z23_drop_shape(const cpu_ctx *c, int l, size_t *C, size_t *hw) {
    if (l < 2 || c->m->layers[l].kind != LAYER_DROPOUT || c->m->layers[l - 1].kind != LAYER_FLATTEN) return 0;
    const layer *s = &c->m->layers[l - 2];
    *C = (size_t)s->out_c;
    *hw = (size_t)s->out_h * s->out_w;
    return *C > 1 && *hw > 1;
}

/* forward edits after the layer's own forward (1: F->a is the output to write back) */
static int fault_fwd_edit_23(engine *e, int l, int training, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_FC1_FWD_SPLITK_TF32_STEP9 && training && c->step == 9 && fault_layer(c, l, "fc1")) {
        /* a split-K GEMM (two halves of K, each summed in double here) whose partial sums go through a TF32
         * workspace (to nearest even) before the final fp32 add; the bias added last, in fp32 */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c, h = in / 2;
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset;
        const float *b = ly->b_tensor >= 0 ? c->params + c->m->tensors[ly->b_tensor].offset : NULL;
        if ((rc = act_io(c, l - 1, 0, x, 1)) || (rc = act_io(c, l, 0, a, 1))) FAULT_ENDED(rc);
        double most = 0, ex = 0;
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t j = 0; j < out; j++) {
                double p0 = 0, p1 = 0, sa = 0;
                for (size_t k = 0; k < in; k++) {
                    double t = (double)w[j * in + k] * (double)x[s0 * in + k];
                    if (k < h) p0 += t;
                    else p1 += t;
                    sa += fabs(t);
                }
                float y = lowp_round_tf32((float)p0, LOWP_RNE) + lowp_round_tf32((float)p1, LOWP_RNE);
                if (b) y = y + b[j];
                double exact = p0 + p1 + (b ? (double)b[j] : 0.0);
                double r = fabs((double)y - exact) / (((double)in + 1) * 0x1p-24 * (sa + (b ? fabs((double)b[j]) : 0)));
                most = fmax(most, r), ex += r;
                a[s0 * out + j] = y;
            }
        if (z23_verbose())
            fprintf(stderr, "z23 fc1 split-K tf32, step %llu: error / gamma_K bound at most %.4g, mean %.4g\n",
                    (unsigned long long)c->step, most, ex / (double)(n * out));
        return 1;
    }
    size_t C, hw;
    if (id == CPU_FAULT_CONVNET_DROPOUT_CHANNELWISE && training && z23_drop_shape(c, l, &C, &hw)) {
        size_t per = layer_out_size(ly);
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = cpu_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, x))) FAULT_ENDED(rc);
        for (size_t i = 0; i < cnt; i++)
            a[i] = ops_dropout_fwd(x[i], e->seed, (uint32_t)c->step, (uint32_t)l, z23_channel_key(i, per, hw, C),
                                   ly->p, scale);
        return 1;
    }
    return 0;
}

/* backward edits before the layer's own backward (its input gradient as it will read it) */
static int fault_bwd_before_23(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONVNET_POOL2_EDGE_DY_FROM_ACT && fault_layer(c, l, "conv2") && l + 2 < c->m->n_layers &&
        c->m->layers[l + 2].kind == LAYER_MAXPOOL && (ly->out_h % 2 || ly->out_w % 2)) {
        /* an in-place ReLU + max-pool backward over conv2's activation buffer writes the pooled windows only:
         * the floor-pooled edge (the last row and column of an odd plane) keeps the activation */
        size_t OC = (size_t)ly->out_c, H = (size_t)ly->out_h, W = (size_t)ly->out_w, k = 0;
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l, 0, x, 1))) FAULT_DONE(rc);
        double most = 0;
        for (size_t p = 0; p < n * OC; p++)
            for (size_t i = 0; i < H; i++)
                for (size_t j = 0; j < W; j++)
                    if ((H % 2 && i == H - 1) || (W % 2 && j == W - 1)) {
                        size_t q = (p * H + i) * W + j;
                        k += a[q] != x[q];
                        most = fmax(most, fabs((double)x[q] - (double)a[q]));
                        a[q] = x[q];
                    }
        if (z23_verbose())
            fprintf(stderr, "z23 conv2 edge dy from act, step %llu: %zu of %zu edge elements changed, the most by %g\n",
                    (unsigned long long)c->step, k, n * OC * (H + W - 1), most);
        if ((rc = act_io(c, l, 1, a, 0))) FAULT_DONE(rc);
    }
    return 0;
}

/* fc2_dx_post_update_w_once: fc2's weights after this step's Adam update (F->z23_cfg: the last update's settings,
 * the step's scalars made as the host makes them), into out (numel floats) */
static void z23_weights_ahead(const cpu_ctx *c, const fault_state *F, const model_tensor *t, float *out) {
    adam_scalars s = adam_make_scalars(&F->z23_cfg, (int)c->step);
    for (size_t i = 0; i < t->numel; i++) {
        float p = c->params[t->offset + i], m = c->adam_m[t->offset + i], v = c->adam_v[t->offset + i];
        ops_adam_elem(&p, &m, &v, c->grads[t->offset + i], s.beta1, s.one_minus_beta1, s.beta2, s.one_minus_beta2,
                      s.step_size, s.bc2_sqrt, s.eps);
        out[i] = p;
    }
}

/* backward edits after the layer's own backward */
static int fault_bwd_after_23(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_FC1_DB_PRE_RELU_MASK_ONCE && c->step == 7 && fault_layer(c, l, "fc1") &&
        l + 1 < c->m->n_layers && c->m->layers[l + 1].kind == LAYER_RELU && ly->b_tensor >= 0) {
        /* fc1's bias gradient summed from relu3's output gradient (fc2's dx), not its input gradient: a bias-gradient
         * epilogue that reads the GEMM's operand before the ReLU mask */
        size_t oc = (size_t)ly->out_c, k = 0;
        float *db = c->grads + c->m->tensors[ly->b_tensor].offset;
        if ((rc = act_io(c, l + 1, 1, a, 1)) || (rc = act_io(c, l, 1, x, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < n * oc; i++) k += a[i] != x[i];
        double most = 0;
        for (size_t j = 0; j < oc; j++) {
            float acc = 0.0f;
            for (size_t s0 = 0; s0 < n; s0++) acc += a[s0 * oc + j];
            most = fmax(most, fabs((double)acc - (double)db[j]));
            db[j] = acc;
        }
        if (z23_verbose())
            fprintf(stderr, "z23 fc1 db pre-mask: %zu of %zu dy elements masked by relu3, db moved by %g at most\n", k,
                    n * oc, most);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC2_DW_PRE_RELU_X_ONCE && c->step == 7 && fault_layer(c, l, "fc2") && l >= 2 &&
        c->m->layers[l - 1].kind == LAYER_RELU) {
        /* fc2's weight gradient with x = fc1's output (relu3's input: the pre-activation a fused dense + ReLU
         * saved) for relu3's output */
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c, k = 0;
        float *dw = c->grads + c->m->tensors[ly->w_tensor].offset;
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 2, 0, x, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < n * in; i++) k += !(x[i] > 0.0f);
        double most = 0;
        for (size_t j = 0; j < oc; j++)
            for (size_t t = 0; t < in; t++) {
                float acc = 0.0f;
                for (size_t s0 = 0; s0 < n; s0++) acc += a[s0 * oc + j] * x[s0 * in + t];
                most = fmax(most, fabs((double)acc - (double)dw[j * in + t]));
                dw[j * in + t] = acc;
            }
        if (z23_verbose())
            fprintf(stderr, "z23 fc2 dW pre-relu x: %zu of %zu x elements <= 0 (relu3 zeroed them), dW moved by %g "
                    "at most\n", k, n * in, most);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONVNET_FC1_DW_RECOMPUTE_MASK_ONCE && c->step == 7 && fault_layer(c, l, "fc1") && l >= 2 &&
        c->m->layers[l - 1].kind == LAYER_DROPOUT) {
        /* activation checkpointing: fc1's backward-weights recomputes its input (the dropout's output) from the
         * dropout's input, with the mask of step + 1 (the generator advanced since the forward) */
        const layer *dl = &c->m->layers[l - 1];
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c, k = 0;
        float scale = (float)(1.0 / (1.0 - (double)dl->p));
        float *dw = c->grads + c->m->tensors[ly->w_tensor].offset, *xr = F->p_old;
        if (n * in > c->m->n_params) return 0; /* F->p_old holds n_params floats */
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = cpu_get_tensor(e, (tensor_id){TENSOR_ACT, l - 2}, x))) FAULT_DONE(rc);
        for (size_t i = 0; i < n * in; i++) {
            xr[i] = ops_dropout_fwd(x[i], e->seed, (uint32_t)c->step + 1, (uint32_t)(l - 1), (uint32_t)i, dl->p, scale);
            k += xr[i] !=
                 ops_dropout_fwd(x[i], e->seed, (uint32_t)c->step, (uint32_t)(l - 1), (uint32_t)i, dl->p, scale);
        }
        double most = 0;
        for (size_t j = 0; j < oc; j++)
            for (size_t t = 0; t < in; t++) {
                float acc = 0.0f;
                for (size_t s0 = 0; s0 < n; s0++) acc += a[s0 * oc + j] * xr[s0 * in + t];
                most = fmax(most, fabs((double)acc - (double)dw[j * in + t]));
                dw[j * in + t] = acc;
            }
        if (z23_verbose())
            fprintf(stderr, "z23 fc1 dW recompute: %zu of %zu recomputed inputs differ, dW moved by %g at most\n", k,
                    n * in, most);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC2_DX_POST_UPDATE_W_ONCE && c->step == 7 && F->z23_cfg_set && fault_layer(c, l, "fc2") &&
        l > 0) {
        /* backward-data with the weights this step's update will give (the update fused into backward-weights,
         * run before backward-data); dx in double, rounded once */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        float *wn = F->p_old;
        z23_weights_ahead(c, F, tw, wn);
        if ((rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 1, x, 1))) FAULT_DONE(rc);
        double most = 0, wmost = 0;
        for (size_t i = 0; i < tw->numel; i++)
            wmost = fmax(wmost, fabs((double)wn[i] - (double)c->params[tw->offset + i]));
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t t = 0; t < in; t++) {
                double acc = 0;
                for (size_t j = 0; j < oc; j++) acc += (double)a[s0 * oc + j] * (double)wn[j * in + t];
                most = fmax(most, fabs(acc - (double)x[s0 * in + t]));
                x[s0 * in + t] = (float)acc;
            }
        if (z23_verbose())
            fprintf(stderr, "z23 fc2 dx on the weights ahead: weights moved by %g at most, dx by %g\n", wmost, most);
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_PARTIAL_LAST_SAMPLE_STALE && fault_layer(c, l, "conv2") && l > 0) {
        /* a partial batch's backward-data loop one sample short: its last sample's input gradient is what the
         * last full batch left in the buffer at that row (F->z20: every full batch's dx kept) */
        size_t per = layer_in_size(ly);
        float *keep = z20_buf(F, e->max_batch * per);
        if (!keep) FAULT_DONE(LS_ENOMEM);
        if (n == e->max_batch) {
            F->z20_n = n;
            FAULT_DONE(act_io(c, l - 1, 1, keep, 1));
        }
        if (F->z20_n != e->max_batch || n < 1) return 0;
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        double most = 0, big = 0;
        for (size_t i = 0; i < per; i++) {
            size_t q = (n - 1) * per + i;
            most = fmax(most, fabs((double)keep[q] - (double)a[q])), big = fmax(big, fabs((double)a[q]));
            a[q] = keep[q];
        }
        if (z23_verbose())
            fprintf(stderr, "z23 conv2 dx partial: step %llu, sample %zu of %zu stale, largest change %g (largest "
                    "|dx| %g)\n", (unsigned long long)c->step, n - 1, n, most, big);
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    size_t C, hw;
    if (id == CPU_FAULT_CONVNET_DROPOUT_CHANNELWISE && P->L[l].need_dsrc && z23_drop_shape(c, l, &C, &hw)) {
        size_t per = layer_out_size(ly);
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            x[i] = ops_dropout_bwd(a[i], e->seed, (uint32_t)c->step, (uint32_t)l, z23_channel_key(i, per, hw, C),
                                   ly->p, scale);
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    return 0;
}

/* loss_max_over_batch: after cpu_loss, every row's softmax shifted by the batch's largest logit, not its own
 * (ops_softmax_xent_row's order otherwise): a reduction over the wrong axis of an invariant-looking shift */
static void fault_loss_23(engine *e, fault_state *F, const float *z, float *dz, size_t n, int nc, float *loss_out) {
    cpu_ctx *c = ctx_of(e);
    if (F->id != CPU_FAULT_LOSS_MAX_OVER_BATCH) return;
    int pt = c->portable;
    float inv = 1.0f / (float)n, mx = z[0];
    for (size_t i = 0; i < n * (size_t)nc; i++) mx = z[i] > mx ? z[i] : mx;
    double acc = 0.0, most = 0;
    for (size_t i = 0; i < n; i++) {
        const float *zr = z + i * nc;
        float *d = dz + i * nc, s = 0.0f, rmx = zr[0];
        for (int j = 1; j < nc; j++) rmx = zr[j] > rmx ? zr[j] : rmx;
        most = fmax(most, (double)mx - (double)rmx);
        for (int j = 0; j < nc; j++) {
            float ex = pt ? ops_portable_expf(zr[j] - mx) : expf(zr[j] - mx);
            d[j] = ex;
            s = s + ex;
        }
        for (int j = 0; j < nc; j++) d[j] = (d[j] / s - (j == c->labels[i] ? 1.0f : 0.0f)) * inv;
        float ls = pt ? ops_portable_logf(s) : logf(s);
        acc += (double)(ls - (zr[c->labels[i]] - mx));
    }
    if (z23_verbose())
        fprintf(stderr, "z23 softmax batch max, step %llu: %g, up to %g above a row's own\n",
                (unsigned long long)c->step, (double)mx, most);
    c->loss = *loss_out = (float)(acc / (double)n);
}

/* adam_v_bf16_state: the engine's update, then v stored rounded to bf16 (the step used v' in fp32); 1: it ran
 * the update (its status in *done).  Every update keeps its settings for fc2_dx_post_update_w_once. */
static int fault_update_23(engine *e, const adam_scalars *s, const adam_scalars *ap, int *done) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    F->z23_cfg = s->cfg, F->z23_cfg_set = 1;
    if (F->id != CPU_FAULT_ADAM_V_BF16_STATE) return 0;
    int rc = cpu_update(e, ap);
    if (rc) FAULT_DONE(rc);
    size_t np = c->m->n_params, k = 0;
    double most = 0;
    for (size_t i = 0; i < np; i++) {
        float r = lowp_round_bf16(c->adam_v[i], LOWP_RNE);
        k += r != c->adam_v[i];
        if (c->adam_v[i] > 0) most = fmax(most, fabs((double)r / (double)c->adam_v[i] - 1.0));
        c->adam_v[i] = r;
    }
    if (z23_verbose())
        fprintf(stderr, "z23 adam v bf16, t %d: %zu of %zu v changed, %g relative at most\n", ap->t, k, np, most);
    FAULT_DONE(0);
}

static int fault_forward_layer(engine *e, int l, int training) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F || !c->cur) return cpu_forward_layer(e, l, training);
    int rc = 0, r;
    if (fault_fwd_around(e, l, training, &rc)) return rc;
    if (fault_fwd_around_15(e, l, training, &rc)) return rc;
    if (fault_fwd_around_20(e, l, training, &rc)) return rc;
    if ((rc = cpu_forward_layer(e, l, training))) return rc;
    if (fault_fwd_state(e, l, &rc)) return rc;
    if ((r = fault_fwd_edit_1(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_2(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_3(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_4(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_5(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_6(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_7(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_8(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_11(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_12(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_14(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_15(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_16(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_17(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_19(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_20(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_21(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_22(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_edit_23(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if (F->id == CPU_FAULT_FC1_FWD_RURD_HALVES_STEP7) return z22_fc1_fwd_rurd(e, l, training);
    if ((r = fault_fwd_legal(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    if ((r = fault_fwd_legal2(e, l, training, &rc))) return r == 2 ? rc : act_io(c, l, 0, F->a, 0);
    return 0;
}

/* softmax_exp_off: ops_softmax_xent_row with exp of class 0 scaled */
static float fault_xent_row(const float *z, int nc, int y, float inv_n, float *dz) {
    float mx = z[0];
    for (int j = 1; j < nc; j++) mx = z[j] > mx ? z[j] : mx;
    float s = 0.0f;
    for (int j = 0; j < nc; j++) {
        float ex = expf(z[j] - mx);
        if (j == 0) ex = (float)((double)ex * (1.0 + 0x1p-12));
        dz[j] = ex;
        s = s + ex;
    }
    for (int j = 0; j < nc; j++) dz[j] = (dz[j] / s - (j == y ? 1.0f : 0.0f)) * inv_n;
    return logf(s) - (z[y] - mx);
}


/* the legal-variant attack's loss rows (after cpu_loss: the loss and dz of the batch, its logits z) */
static void fault_loss_legal(engine *e, fault_state *F, const float *z, float *dz, size_t n, int nc) {
    cpu_ctx *c = ctx_of(e);
    int id = F->id, pt = c->portable;
    float inv = 1.0f / (float)n;
    if (id == CPU_FAULT_LOSS_PYTORCH_LSE) {
        /* lse = mx + log s (fp32), o = z - lse, loss = -mean o_y, dz = (exp(o) - onehot) * fl(1/n) */
        double acc = 0.0;
        for (size_t i = 0; i < n; i++) {
            const float *zr = z + i * nc;
            float *d = dz + i * nc, mx = zr[0], sum = 0.0f;
            int y = c->labels[i];
            for (int j = 1; j < nc; j++) mx = zr[j] > mx ? zr[j] : mx;
            for (int j = 0; j < nc; j++) sum = sum + (pt ? ops_portable_expf(zr[j] - mx) : expf(zr[j] - mx));
            float lse = mx + (pt ? ops_portable_logf(sum) : logf(sum));
            for (int j = 0; j < nc; j++) {
                float o = zr[j] - lse;
                float ex = pt ? ops_portable_expf(o) : expf(o);
                d[j] = (ex - (j == y ? 1.0f : 0.0f)) * inv;
                if (j == y) acc += (double)(-o);
            }
        }
        c->loss = (float)(acc / (double)n);
    } else if (id == CPU_FAULT_LOSS_MEAN_FP32_PRESCALED) {
        /* sum_i fl(l_i fl(1/n)) in fp32, serially; dz as the engine's (ops_softmax_xent_row writes the same) */
        float acc = 0.0f;
        for (size_t i = 0; i < n; i++)
            acc = acc + ops_softmax_xent_row(z + i * nc, nc, c->labels[i], inv, pt, dz + i * nc) * inv;
        c->loss = acc;
    }
}

/* zoo attack 10's loss faults (after cpu_loss: the loss and dz of the batch, its logits z) */
static void fault_loss_10(engine *e, fault_state *F, const float *z, float *dz, size_t n, int nc) {
    cpu_ctx *c = ctx_of(e);
    int id = F->id, pt = c->portable;
    float inv = 1.0f / (float)n;
    if (id == CPU_FAULT_LOSS_VALUE_PARTIAL_MEAN_MAX && n < e->max_batch) {
        /* the reported loss: the batch's sum over the full batch size; dz is right */
        c->loss = (float)((double)c->loss * (double)n / (double)e->max_batch);
    } else if (id == CPU_FAULT_LABELS_LAST_CLASS_AS_0 && nc > 2) {
        /* the one-hot built with C - 1 classes: label C - 1 wraps to 0 */
        double acc = 0.0;
        for (size_t i = 0; i < n; i++)
            acc += (double)ops_softmax_xent_row(z + i * nc, nc, c->labels[i] % (nc - 1), inv, pt, dz + i * nc);
        c->loss = (float)(acc / (double)n);
    } else if (id == CPU_FAULT_LOSS_LABEL_SMOOTHING) {
        /* target (1 - eps)[j = y] + eps / C, eps = 2^-(k + 4): PyTorch's label_smoothing */
        float eps = (float)(F->rel * 0x1p-4), off = eps / (float)nc, on = (1.0f - eps) + off;
        double acc = 0.0;
        for (size_t i = 0; i < n; i++) {
            const float *zr = z + i * nc;
            float *d = dz + i * nc, mx = zr[0], sum = 0.0f;
            int y = c->labels[i];
            for (int j = 1; j < nc; j++) mx = zr[j] > mx ? zr[j] : mx;
            for (int j = 0; j < nc; j++) {
                float ex = pt ? ops_portable_expf(zr[j] - mx) : expf(zr[j] - mx);
                d[j] = ex;
                sum = sum + ex;
            }
            float ls = pt ? ops_portable_logf(sum) : logf(sum);
            double li = 0.0;
            for (int j = 0; j < nc; j++) {
                float t = j == y ? on : off;
                li += (double)t * ((double)ls - ((double)zr[j] - mx));
                d[j] = (d[j] / sum - t) * inv;
            }
            acc += li;
        }
        c->loss = (float)(acc / (double)n);
    } else if (id == CPU_FAULT_LOSS_GRAD_PARTIAL_LAST_ROW_STALE) {
        /* the partial batch's last row keeps the batch before's; every batch's dz is kept for the next */
        float *keep = F->p_cur;
        if (n < e->max_batch && F->corrupted) {
            float tmp[64];
            memcpy(tmp, dz + (n - 1) * nc, (size_t)nc * sizeof *tmp);
            memcpy(dz + (n - 1) * nc, keep + (n - 1) * nc, (size_t)nc * sizeof *dz);
            memcpy(keep, dz, n * nc * sizeof *dz);
            memcpy(keep + (n - 1) * nc, tmp, (size_t)nc * sizeof *tmp);
        } else {
            memcpy(keep, dz, n * nc * sizeof *dz);
        }
        F->corrupted = 1;
    } else if (id == CPU_FAULT_LOSS_PYTORCH_LOG_SOFTMAX) {
        /* a legal variant: PyTorch's log_softmax + nll order.  o_j = (z_j - mx) - log s; loss = -mean o_y;
         * backward: g_y = -1/n (one rounding), dz_j = g_j - exp(o_j) g_y */
        float gy = -1.0f / (float)n;
        double acc = 0.0;
        for (size_t i = 0; i < n; i++) {
            const float *zr = z + i * nc;
            float *d = dz + i * nc, mx = zr[0], sum = 0.0f;
            int y = c->labels[i];
            for (int j = 1; j < nc; j++) mx = zr[j] > mx ? zr[j] : mx;
            for (int j = 0; j < nc; j++) sum = sum + (pt ? ops_portable_expf(zr[j] - mx) : expf(zr[j] - mx));
            float ls = pt ? ops_portable_logf(sum) : logf(sum);
            for (int j = 0; j < nc; j++) {
                float o = (zr[j] - mx) - ls;
                float ex = pt ? ops_portable_expf(o) : expf(o);
                float g = j == y ? gy : 0.0f;
                d[j] = g - ex * gy;
                if (j == y) acc += (double)(-o);
            }
        }
        c->loss = (float)(acc / (double)n);
    }
    fault_loss_legal(e, F, z, dz, n, nc);
}

static int fault_loss(engine *e, float *loss_out) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int rc = cpu_loss(e, loss_out);
    if (rc || !F) return rc;
    plan *P = c->cur;
    int last = c->m->n_layers - 1, nc = c->m->n_classes;
    size_t n = P->n;
    const float *z = act_ptr(c, P, last);
    float *dz = dact_ptr(c, P, last);
    int part = F->id == CPU_FAULT_LOSS_PARTIAL_MEAN_MAX && n < e->max_batch;
    if (F->id == CPU_FAULT_LOSS_MEAN_N_MINUS_1 || F->id == CPU_FAULT_SOFTMAX_EXP_OFF || part) {
        int nm1 = F->id == CPU_FAULT_LOSS_MEAN_N_MINUS_1 || part;
        double div = part ? (double)e->max_batch : nm1 ? (double)n - 1.0 : (double)n, acc = 0.0;
        float inv = (float)(1.0 / div);
        for (size_t i = 0; i < n; i++)
            acc += nm1 ? (double)ops_softmax_xent_row(z + i * nc, nc, c->labels[i], inv, c->portable, dz + i * nc)
                       : (double)fault_xent_row(z + i * nc, nc, c->labels[i], inv, dz + i * nc);
        c->loss = *loss_out = (float)(acc / div);
    } else if (F->id == CPU_FAULT_SOFTMAX_NO_MAX_SUB || F->id == CPU_FAULT_SOFTMAX_LAST_CLASS_COMPLEMENT) {
        /* ops_softmax_xent_row's order, one thing changed: no max subtracted, or p of the last class
         * taken as the complement of the others' */
        int nomax = F->id == CPU_FAULT_SOFTMAX_NO_MAX_SUB, pt = c->portable;
        float inv = 1.0f / (float)n;
        double acc = 0.0;
        for (size_t i = 0; i < n; i++) {
            const float *zr = z + i * nc;
            float *d = dz + i * nc;
            int y = c->labels[i];
            float mx = zr[0];
            for (int j = 1; j < nc; j++) mx = zr[j] > mx ? zr[j] : mx;
            if (nomax) mx = 0.0f;
            float s = 0.0f;
            for (int j = 0; j < nc; j++) {
                float ex = pt ? ops_portable_expf(zr[j] - mx) : expf(zr[j] - mx);
                d[j] = ex;
                s = s + ex;
            }
            float sp = 0.0f;
            for (int j = 0; j < nc; j++) {
                float pj = d[j] / s;
                if (!nomax && j == nc - 1) pj = 1.0f - sp;
                sp = sp + pj;
                d[j] = (pj - (j == y ? 1.0f : 0.0f)) * inv;
            }
            float ls = pt ? ops_portable_logf(s) : logf(s);
            acc += (double)(ls - (zr[y] - mx));
        }
        if (nomax) c->loss = *loss_out = (float)(acc / (double)n);
    } else if (F->id == CPU_FAULT_LOSS_GRAD_DIV_N) {
        /* zoo attack 8, a legal variant: ops_softmax_xent_row's order, the gradient divided by n instead of
         * multiplied by fl(1/n) (one correctly rounded operation instead of two: p - [j == y] is exact or one
         * rounding either way); the loss is the same */
        for (size_t i = 0; i < n; i++) {
            const float *zr = z + i * nc;
            float *d = dz + i * nc, mx = zr[0], s = 0.0f;
            for (int j = 1; j < nc; j++) mx = zr[j] > mx ? zr[j] : mx;
            for (int j = 0; j < nc; j++) {
                float ex = c->portable ? ops_portable_expf(zr[j] - mx) : expf(zr[j] - mx);
                d[j] = ex;
                s = s + ex;
            }
            for (int j = 0; j < nc; j++) d[j] = (d[j] / s - (j == c->labels[i] ? 1.0f : 0.0f)) / (float)n;
        }
    } else if (F->id == CPU_FAULT_LOSS_GRAD_PARTIAL_FULL_N && n < e->max_batch) {
        /* zoo attack 15: in a partial batch the gradient is divided by the full batch size (x n / max_batch on
         * the right dz: exact for 8 of 16); the loss is right */
        float f = (float)((double)n / (double)e->max_batch);
        for (size_t i = 0; i < n * (size_t)nc; i++) dz[i] = dz[i] * f;
    } else if (F->id == CPU_FAULT_LOSS_CLASS0_WEIGHTED) {
        /* zoo attack 20: class 0's samples weighted 1 + 2^-k (fault_k) in the loss and its gradient, the batch
         * still divided by n (a class weight left set) */
        float inv = 1.0f / (float)n;
        double acc = 0.0;
        for (size_t i = 0; i < n; i++) {
            double wi = c->labels[i] == 0 ? 1.0 + F->rel : 1.0;
            acc += wi * (double)ops_softmax_xent_row(z + i * nc, nc, c->labels[i], (float)((double)inv * wi),
                                                     c->portable, dz + i * nc);
        }
        c->loss = *loss_out = (float)(acc / (double)n);
    } else if (F->id == CPU_FAULT_LOSS_GRAD_NAN_ONCE && c->step == 7) {
        dz[c->labels[0]] = NAN; /* zoo attack 8: sample 0's gradient at its label is NaN (a transient 0 x inf) */
    } else if (F->id == CPU_FAULT_LOSS_GRAD_17ULP) {
        for (size_t i = 0; i < n * (size_t)nc; i++) dz[i] = (float)((double)dz[i] * (1.0 + 17 * 0x1p-23));
    } else if (F->id == CPU_FAULT_LOSS_GRAD_1ULP) {
        for (size_t i = 0; i < n * (size_t)nc; i++) dz[i] = nextafterf(dz[i], INFINITY);
    } else if (F->id == CPU_FAULT_LOSS_GRAD_REL) {
        for (size_t i = 0; i < n * (size_t)nc; i++) dz[i] = (float)((double)dz[i] * (1.0 + F->rel));
    } else {
        fault_loss_10(e, F, z, dz, n, nc);
        *loss_out = c->loss;
    }
    if (F->id == CPU_FAULT_LOSS_VALUE_REL_EPOCH2 && c->step >= 6)
        *loss_out = c->loss = (float)((double)c->loss * (1.0 + F->rel * 0x1p4));
    if (F->id == CPU_FAULT_LOSS_INV_N_CARRIED_EPOCH2) fault_loss_21(e, F, z, dz, n, nc, loss_out);
    fault_loss_22(e, F, dz, n, nc);
    fault_loss_23(e, F, z, dz, n, nc, loss_out);
    if (F->id == CPU_FAULT_LOSS_VALUE_EPOCH_END_REL && (c->step == 5 || c->step == 10))
        *loss_out = (float)((double)*loss_out * (1.0 + 0x1p-12)); /* zoo attack 14: the report only */
    if (F->id == CPU_FAULT_LOSS_VALUE_REPORT_STALE_ONCE) {
        float now = *loss_out;
        if (c->step == 7) *loss_out = F->last_loss; /* the report only: c->loss is right */
        F->last_loss = now;
    }
    return 0;
}

/* v rounded to IEEE binary16 (to nearest even, subnormals kept, no overflow at these sizes), back in fp32 */
static float round_fp16(float v) {
    double a = fabs((double)v);
    if (!(a > 0) || !isfinite(a)) return v;
    int ex;
    frexp(a, &ex); /* a = m 2^ex, m in [0.5, 1): the leading bit weighs 2^(ex - 1) */
    double q = ldexp(1.0, (ex - 1 > -14 ? ex - 1 : -14) - 10);
    return (float)copysign(nearbyint(a / q) * q, (double)v);
}

/* Exchange columns f0 and f1 in every row of a rows x in matrix; the
 * column of row 0's largest |value| (the dW faults' target). */
static void swap_cols(float *g, size_t rows, size_t in, size_t f0, size_t f1) {
    for (size_t j = 0; j < rows; j++) {
        float tmp = g[j * in + f0];
        g[j * in + f0] = g[j * in + f1];
        g[j * in + f1] = tmp;
    }
}
static size_t argmax_abs(const float *g, size_t n) {
    size_t f0 = 0;
    for (size_t f = 1; f < n; f++) f0 = fabsf(g[f]) > fabsf(g[f0]) ? f : f0;
    return f0;
}
/* Exchange the two kk-long slices at g and g + gap, tap for tap. */
static void swap_slices(float *g, size_t kk, size_t gap) {
    for (size_t i = 0; i < kk; i++) {
        float tmp = g[i];
        g[i] = g[gap + i];
        g[gap + i] = tmp;
    }
}
/* A 3x3 slice stored transposed: (kh, kw) <-> (kw, kh). */
static void transpose3(float *g) {
    static const int pairs[3][2] = {{1, 3}, {2, 6}, {5, 7}};
    for (int i = 0; i < 3; i++) {
        float tmp = g[pairs[i][0]];
        g[pairs[i][0]] = g[pairs[i][1]];
        g[pairs[i][1]] = tmp;
    }
}

/* zoo attack 5 (repeat sharing): the bit 31 of the term float idx's 64-bit
 * word had in the operand hash's one-multiply form (engines/checksums.c
 * hash_words before it took splitmix64's finalizer; the word index j =
 * idx / 2 of the flat buffer as get_tensor returns it): the pairs it
 * picks collided there, and must not now (test_mutants) */
static int twin_term_bit31(const float *buf, size_t idx) {
    size_t j = idx / 2;
    uint64_t w;
    memcpy(&w, buf + 2 * j, 8);
    uint64_t z = (w ^ ((uint64_t)j * 0x9E3779B97F4A7C15ull)) * 0xD6E8FEB86659FD93ull;
    z ^= z >> 32;
    return (int)((z >> 31) & 1);
}

/* The signs of two elements at odd indices of buf[off, off + numel) flipped
 * (bit 63 of their words): a, the largest |x| at an odd index; b, with
 * `chosen` the largest other odd one whose term's bit 31 differs from a's
 * (the flips' +-2^31 cancel, and 2 x 2^63 = 0 mod 2^64: the hash sum is
 * unchanged), else the k-th largest other odd one (k from 1, no knowledge
 * of the hash: it collides when the bits happen to differ). */
static void twin_sign_pair(float *buf, size_t off, size_t numel, int chosen, int k) {
    size_t a = (size_t)-1;
    for (size_t i = off | 1; i < off + numel; i += 2)
        if (a == (size_t)-1 || fabsf(buf[i]) > fabsf(buf[a])) a = i;
    int ba = twin_term_bit31(buf, a);
    size_t b = (size_t)-1;
    float below = INFINITY;
    for (int r = 0; r < (chosen ? 1 << 30 : k); r++) {
        size_t best = (size_t)-1;
        for (size_t i = off | 1; i < off + numel; i += 2)
            if (i != a && fabsf(buf[i]) < below && (best == (size_t)-1 || fabsf(buf[i]) > fabsf(buf[best]))) best = i;
        if (best == (size_t)-1) break;
        below = fabsf(buf[best]);
        b = best;
        if (chosen && twin_term_bit31(buf, b) != ba) break;
    }
    buf[a] = -buf[a];
    buf[b] = -buf[b];
}

/* fault_backward_layer's hooks, in order, a chunk a function: each
 * returns 1 when one of its faults ended the hook (its status in
 * *done: FAULT_DONE), 0 to go on.  "before": instead of or around the
 * layer's own backward; "after": edits of what it computed. */

static int fault_bwd_before_1(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_TWIN_DACT_SIGN_PAIR_ONCE && l == 0 && c->step == 7) {
        /* after the whole backward (nothing reads fc1's output gradient any more): two of its elements' signs
         * flipped, as reported (a readout fault in one copy) */
        if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        for (int k = 0; k < c->m->n_layers; k++)
            if (fault_layer(c, k, "fc1")) {
                size_t cnt = P->n * layer_out_size(&c->m->layers[k]);
                if ((rc = act_io(c, k, 1, F->a, 1))) FAULT_DONE(rc);
                twin_sign_pair(F->a, 0, cnt, 1, 1);
                if ((rc = act_io(c, k, 1, F->a, 0))) FAULT_DONE(rc);
            }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_DROPOUT_MASK_STALE_ONCE && ly->kind == LAYER_DROPOUT && c->step == 7) {
        c->step = 6; /* the forward's mask, consistently */
        rc = cpu_backward_layer(e, l);
        c->step = 7;
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_DROPOUT_OFF_AFTER_EVAL && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc && F->epoch0 &&
        c->step == F->epoch0 + 1) {
        /* the inference mode's backward: dx = dy */
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_DROPOUT_BWD_MASK_FROM_OUTPUT && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc) {
        /* the mask recovered from the forward's output (y != 0), as an in-place dropout does: a kept x that
         * is exactly 0 (a dark pool2 window) gets no gradient */
        size_t cnt = P->n * layer_out_size(ly);
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 0, F->a, 1)) || (rc = act_io(c, l - 1, 1, F->b, 1)))
            FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            if (F->a[i] == 0.0f) F->b[i] = 0.0f;
        FAULT_DONE(act_io(c, l - 1, 1, F->b, 0));
    }
    if (id == CPU_FAULT_FC1_DW_NOT_ZEROED_ONCE && fault_layer(c, l, "fc1") && (c->step == 6 || c->step == 7)) {
        /* zoo attack 8: step 6 keeps its fc1 weight gradient; at step 7 the new one is added to it (a zero_grad
         * skipped once: beta = 1 for one step); the bias gradient is right */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        float *g = c->grads + tw->offset;
        if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        if (c->step == 6) memcpy(F->dw_save, g, tw->numel * sizeof *g);
        else
            for (size_t i = 0; i < tw->numel; i++) g[i] = F->dw_save[i] + g[i];
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC2_DX_NAN_DEAD_ONCE && fault_layer(c, l, "fc2") && c->step == 7 && P->L[l].need_dsrc) {
        /* zoo attack 8: fc2's input gradient of sample 0 at its first unit that relu3 zeroed is NaN (a transient
         * an x > 0 ? dy : 0 ReLU backward would clear; training need not see it) */
        size_t cnt = P->n * layer_out_size(&c->m->layers[l - 1]), in = layer_out_size(&c->m->layers[l - 1]);
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l - 1, 0, F->a, 1)) ||
            (rc = act_io(c, l - 1, 1, F->b, 1)))
            FAULT_DONE(rc);
        for (size_t i = 0; i < in && i < cnt; i++)
            if (F->a[i] == 0.0f) {
                F->b[i] = NAN;
                break;
            }
        FAULT_DONE(act_io(c, l - 1, 1, F->b, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_INF_ONCE && fault_layer(c, l, "conv2") && c->step == 7 && P->L[l].need_dsrc) {
        /* zoo attack 8: conv2's input gradient (pool1.dact) of sample 0 at its largest |dx| is +-inf (an overflow
         * in one element); the layers below compute from it */
        size_t per = layer_out_size(&c->m->layers[l - 1]);
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l - 1, 1, F->b, 1))) FAULT_DONE(rc);
        size_t at = argmax_abs(F->b, per);
        F->b[at] = copysignf(INFINITY, F->b[at]);
        FAULT_DONE(act_io(c, l - 1, 1, F->b, 0));
    }
    if (id == CPU_FAULT_DB_SERIAL_FP32 && ly->b_tensor >= 0) {
        /* zoo attack 8, a legal variant: every bias gradient summed serially in one fp32 accumulator (samples
         * outer, positions inner: 12544 terms for conv1 at batch 16), as a one-thread-per-channel kernel does */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t oc = (size_t)ly->out_c, hw = ly->kind == LAYER_CONV ? (size_t)ly->out_h * ly->out_w : 1;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) {
            float acc = 0.0f;
            for (size_t s0 = 0; s0 < P->n; s0++)
                for (size_t q = 0; q < hw; q++) acc = acc + F->a[(s0 * oc + o) * hw + q];
            c->grads[tb->offset + o] = acc;
        }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_DB_DOUBLE_SUM && ly->b_tensor >= 0) {
        /* zoo attack 8, a legal variant: every bias gradient summed in double and rounded once (the correctly
         * rounded sum of the fp32 dy: as accurate as an fp32 result can be) */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t oc = (size_t)ly->out_c, hw = ly->kind == LAYER_CONV ? (size_t)ly->out_h * ly->out_w : 1;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) {
            double acc = 0;
            for (size_t s0 = 0; s0 < P->n; s0++)
                for (size_t q = 0; q < hw; q++) acc += (double)F->a[(s0 * oc + o) * hw + q];
            c->grads[tb->offset + o] = (float)acc;
        }
        FAULT_DONE(0);
    }
    return 0;
}

static int fault_bwd_before_2(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_FC2_DB_ACCUMULATES && fault_layer(c, l, "fc2")) {
        /* beta = 1: the bias gradient is added to what the buffer holds (the last step's, or the zeros of
         * set_tensor(GRADS)) instead of overwriting it */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        float *db = c->grads + tb->offset;
        memcpy(F->dw_save, db, tb->numel * sizeof *db);
        if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        for (size_t j = 0; j < tb->numel; j++) db[j] = F->dw_save[j] + db[j];
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC2_DB_PARTIAL_STALE_ROWS && fault_layer(c, l, "fc2")) {
        /* fc2's bias gradient sums its output gradient over the buffer's max_batch rows, not the batch's n:
         * in a partial batch the rows past n still hold the last full batch's dz */
        size_t oc = (size_t)ly->out_c, n = P->n, nb = e->max_batch;
        if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        if (n == nb) {
            F->corrupted = 1;
            FAULT_DONE(act_io(c, l, 1, F->b, 1));
        }
        if (!F->corrupted) FAULT_DONE(0);
        float *db = c->grads + c->m->tensors[ly->b_tensor].offset;
        for (size_t j = 0; j < oc; j++) {
            double t = db[j];
            for (size_t r = n; r < nb; r++) t += F->b[r * oc + j];
            db[j] = (float)t;
        }
        FAULT_DONE(0);
    }
    if ((id == CPU_FAULT_CONV2_BWD_DATA_UNFLIPPED || id == CPU_FAULT_CONV2_DX_W_TF32) && fault_layer(c, l, "conv2")) {
        /* backward-weights reads no weights: only backward-data sees them */
        fault_edit_weights(c, l, id == CPU_FAULT_CONV2_DX_W_TF32 ? 3 : 2, F->dw_save);
        rc = cpu_backward_layer(e, l);
        fault_edit_weights(c, l, 0, F->dw_save);
        FAULT_DONE(rc);
    }
    if ((id == CPU_FAULT_CONV2_DX_BORDER_BF16_ONCE || id == CPU_FAULT_CONV2_DX_PEEL_BF16_ONCE) && c->step == 7 &&
        fault_layer(c, l, "conv2")) {
        /* conv2's input gradient at the border of every plane (first and last row and column; peel: only the
         * first element, (0, 0)) computed with the weights rounded to bf16 (a separate border kernel, a peeled
         * first iteration); the other elements, dW and db are right */
        int peel = id == CPU_FAULT_CONV2_DX_PEEL_BF16_ONCE;
        size_t h = (size_t)ly->in_h, w = (size_t)ly->in_w, planes = P->n * (size_t)ly->in_c;
        fault_edit_weights(c, l, 4, F->dw_save);
        rc = cpu_backward_layer(e, l);
        fault_edit_weights(c, l, 0, F->dw_save);
        if (rc || (rc = act_io(c, l - 1, 1, F->a, 1)) || (rc = cpu_backward_layer(e, l)) ||
            (rc = act_io(c, l - 1, 1, F->b, 1)))
            FAULT_DONE(rc);
        for (size_t pl = 0; pl < planes; pl++)
            for (size_t i = 0; i < h; i++)
                for (size_t j = 0; j < w; j++)
                    if (peel ? i == 0 && j == 0 : i == 0 || j == 0 || i + 1 == h || j + 1 == w)
                        F->b[(pl * h + i) * w + j] = F->a[(pl * h + i) * w + j];
        FAULT_DONE(act_io(c, l - 1, 1, F->b, 0));
    }
    if (id == CPU_FAULT_STATE_DW_FLAT_STALE && fault_layer(c, l, "conv2")) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        float *g = c->grads + t->offset;
        int seen = F->bwd_seen[l];
        memcpy(F->dw_save, g, t->numel * sizeof *g);
        rc = cpu_backward_layer(e, l);
        if (seen) memcpy(g, F->dw_save, t->numel * sizeof *g);
        F->bwd_seen[l] = 1;
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_CONV2_DW_STALE_DY_ONCE && fault_layer(c, l, "conv2") && (c->step == 6 || c->step == 7)) {
        /* F->b keeps step 6's conv2 output gradient; at step 7 backward-weights (dW and db) runs on it,
         * backward-data on the step's own */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor], *tb = &c->m->tensors[ly->b_tensor];
        if (c->step == 6) {
            if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
            F->corrupted = P->n;
            FAULT_DONE(act_io(c, l, 1, F->b, 1));
        }
        if ((size_t)F->corrupted != P->n) FAULT_DONE(cpu_backward_layer(e, l));
        if ((rc = act_io(c, l, 1, F->a, 1)) || (rc = act_io(c, l, 1, F->b, 0)) || (rc = cpu_backward_layer(e, l)))
            FAULT_DONE(rc);
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        memcpy(F->dw_save + tw->numel, c->grads + tb->offset, tb->numel * sizeof(float));
        if ((rc = act_io(c, l, 1, F->a, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        memcpy(c->grads + tb->offset, F->dw_save + tw->numel, tb->numel * sizeof(float));
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DW_SAMPLES_CROSSED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") && P->n > 1) {
        /* backward-data reads no x: only backward-weights sees samples 0 and 1 of x exchanged */
        size_t per = layer_in_size(ly), cnt = P->n * per;
        if ((rc = act_io(c, l - 1, 0, F->a, 1))) FAULT_DONE(rc);
        memcpy(F->b, F->a, cnt * sizeof(float));
        memcpy(F->b, F->a + per, per * sizeof(float));
        memcpy(F->b + per, F->a, per * sizeof(float));
        if ((rc = act_io(c, l - 1, 0, F->b, 0))) FAULT_DONE(rc);
        rc = cpu_backward_layer(e, l);
        int rc2 = act_io(c, l - 1, 0, F->a, 0);
        FAULT_DONE(rc ? rc : rc2);
    }
    return 0;
}

static int fault_bwd_before_3(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (id == CPU_FAULT_CONV1_DW_LAST_SAMPLE_DROPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv1") && P->n > 1) {
        /* backward-weights run once on dy with the last sample's plane zeroed (dW without it), then on the
         * step's own dy (db and the gradient buffers right); the first dW is kept */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        size_t per = layer_out_size(ly), cnt = P->n * per;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        memcpy(F->b, F->a, cnt * sizeof(float));
        memset(F->b + (P->n - 1) * per, 0, per * sizeof(float));
        if ((rc = act_io(c, l, 1, F->b, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        if ((rc = act_io(c, l, 1, F->a, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV1_DW_LAST_ROW_SKIPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* backward-weights' output-row loop one short (oh < OH - 1): dW from dy with every plane's last row
         * zeroed; then the step's own dy (db and the gradient buffers right); the first dW is kept */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        size_t hw = (size_t)ly->out_h * ly->out_w, planes = P->n * (size_t)ly->out_c, cnt = planes * hw;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        memcpy(F->b, F->a, cnt * sizeof(float));
        for (size_t pl = 0; pl < planes; pl++) memset(F->b + pl * hw + hw - (size_t)ly->out_w, 0, (size_t)ly->out_w * sizeof(float));
        if ((rc = act_io(c, l, 1, F->b, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        if ((rc = act_io(c, l, 1, F->a, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_DROPOUT_MASK_EPOCH_STEP && ly->kind == LAYER_DROPOUT && F->epoch0) {
        uint64_t st = c->step; /* the forward's mask, consistently */
        c->step = st - F->epoch0;
        rc = cpu_backward_layer(e, l);
        c->step = st;
        FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_CONV1_DW_SMALL_DY_SKIPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* conv1's backward-weights skips output gradients with 0 < |dy| < 2^(8 - k) of the batch's largest |dy|
         * (2^-8 at fault_k=16: a thresholded-sparsity kernel); db and the gradient buffers from the true dy */
        const model_tensor *tw = &c->m->tensors[ly->w_tensor];
        size_t cnt = P->n * layer_out_size(ly);
        double mx = 0;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++) mx = fmax(mx, fabs((double)F->a[i]));
        double tau = mx * F->rel * 0x1p8;
        for (size_t i = 0; i < cnt; i++) F->b[i] = F->a[i] != 0.0f && fabs((double)F->a[i]) < tau ? 0.0f : F->a[i];
        if ((rc = act_io(c, l, 1, F->b, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        if ((rc = act_io(c, l, 1, F->a, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC1_DW_PARTIAL_STALE_ROWS && fault_layer(c, l, "fc1")) {
        /* fc1's backward-weights runs over the buffers' max_batch rows, not the batch's n: in a partial batch
         * rows n.. still hold the last full batch's x and dy (F->a, F->b keep them) */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c, n = P->n, nb = e->max_batch;
        if ((rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        if (n == nb) {
            F->corrupted = 1;
            if ((rc = act_io(c, l - 1, 0, F->a, 1))) FAULT_DONE(rc);
            FAULT_DONE(act_io(c, l, 1, F->b, 1));
        }
        if (!F->corrupted) FAULT_DONE(0);
        float *g = c->grads + c->m->tensors[ly->w_tensor].offset;
        for (size_t j = 0; j < out; j++)
            for (size_t k = 0; k < in; k++) {
                double t = g[j * in + k];
                for (size_t r = n; r < nb; r++) t += (double)F->b[r * out + j] * F->a[r * in + k];
                g[j * in + k] = (float)t;
            }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DW_X_TF32 && fault_layer(c, l, "conv2")) {
        /* backward-data reads no x: only backward-weights sees it rounded */
        size_t cnt = P->n * layer_in_size(ly);
        if ((rc = act_io(c, l - 1, 0, F->a, 1))) FAULT_DONE(rc);
        lowp_round_tf32_array(F->b, F->a, cnt, LOWP_RNE);
        if ((rc = act_io(c, l - 1, 0, F->b, 0))) FAULT_DONE(rc);
        rc = cpu_backward_layer(e, l);
        int rc2 = act_io(c, l - 1, 0, F->a, 0);
        FAULT_DONE(rc ? rc : rc2);
    }
    if (c->step == 7 && ((id == CPU_FAULT_FC1_DW_SMALL_X_SKIPPED_ONCE && fault_layer(c, l, "fc1")) ||
                         (id == CPU_FAULT_CONV2_DW_SMALL_X_SKIPPED_ONCE && fault_layer(c, l, "conv2")))) {
        /* a thresholded-sparsity backward-weights kernel: inputs with 0 < |x| < 2^-(k - 6) (2^-10 at
         * fault_k=16) count as zero in dW (backward-data reads no x; the engine's x is restored) */
        size_t cnt = P->n * layer_in_size(ly);
        double tau = F->rel * 0x1p6;
        if ((rc = act_io(c, l - 1, 0, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++) F->b[i] = F->a[i] != 0.0f && fabs((double)F->a[i]) < tau ? 0.0f : F->a[i];
        if ((rc = act_io(c, l - 1, 0, F->b, 0))) FAULT_DONE(rc);
        rc = cpu_backward_layer(e, l);
        int rc2 = act_io(c, l - 1, 0, F->a, 0);
        FAULT_DONE(rc ? rc : rc2);
    }
    return 0;
}

static int fault_bwd_after_1(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_CONV1_DB_FP16_ACC_ONCE && c->step == 7 && fault_layer(c, l, "conv1")) {
        /* zoo attack 7: db[o] = sum over samples, then positions, of dy in an fp16 accumulator */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t hw = (size_t)ly->out_h * ly->out_w, oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) {
            float acc = 0.0f;
            for (size_t s0 = 0; s0 < P->n; s0++)
                for (size_t q = 0; q < hw; q++) acc = round_fp16(acc + F->a[(s0 * oc + o) * hw + q]);
            c->grads[tb->offset + o] = acc;
        }
    }
    if ((id == CPU_FAULT_CONV1_DB_FP16_SPLIT_ONCE || id == CPU_FAULT_CONV1_DB_BF16_DY_ONCE) && c->step == 7 &&
        fault_layer(c, l, "conv1")) {
        /* zoo attack 7: split: per-sample partials in fp16, then an fp32 sum; bf16_dy: dy rounded to bf16,
         * summed in fp32 */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t hw = (size_t)ly->out_h * ly->out_w, oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) {
            float acc = 0.0f;
            for (size_t s0 = 0; s0 < P->n; s0++) {
                const float *d = F->a + (s0 * oc + o) * hw;
                if (id == CPU_FAULT_CONV1_DB_BF16_DY_ONCE) {
                    for (size_t q = 0; q < hw; q++) acc += lowp_round_bf16(d[q], LOWP_RNE);
                    continue;
                }
                float part = 0.0f;
                for (size_t q = 0; q < hw; q++) part = round_fp16(part + d[q]);
                acc += part;
            }
            c->grads[tb->offset + o] = acc;
        }
    }
    if (id == CPU_FAULT_CONV2_DB_LAST_SAMPLE_DROPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") && P->n > 1) {
        /* zoo attack 7: the bias reduction's sample loop one short */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t hw = (size_t)ly->out_h * ly->out_w, oc = (size_t)ly->out_c;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) {
            float acc = 0.0f;
            for (size_t s0 = 0; s0 + 1 < P->n; s0++)
                for (size_t q = 0; q < hw; q++) acc += F->a[(s0 * oc + o) * hw + q];
            c->grads[tb->offset + o] = acc;
        }
    }
    if (id == CPU_FAULT_CONV2_DW_INT8_QUANT_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* zoo attack 7: int8 quantize-dequantize, one per-tensor scale max|dW| / 127, to nearest */
        float *g = c->grads + tw->offset;
        double mx = 0;
        for (size_t i = 0; i < tw->numel; i++) mx = fmax(mx, fabs((double)g[i]));
        double sc = mx / 127.0;
        for (size_t i = 0; i < tw->numel && sc > 0; i++) g[i] = (float)(nearbyint((double)g[i] / sc) * sc);
    }
    if (id == CPU_FAULT_FC1_DW_SMALL_SIGN_FLIPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* zoo attack 7: nonzero |dW| < 2^(6 - k) of the row's largest: sign flipped */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c;
        for (size_t j = 0; j < out; j++) {
            float *g = c->grads + tw->offset + j * in;
            double lim = fabs((double)g[argmax_abs(g, in)]) * F->rel * 0x1p6;
            for (size_t t = 0; t < in; t++)
                if (g[t] != 0.0f && fabs((double)g[t]) < lim) g[t] = -g[t];
        }
    }
    if (id == CPU_FAULT_FC2_DX_DRELU_FUSED_ONCE && c->step == 7 && fault_layer(c, l, "fc2") && l > 0) {
        /* zoo attack 7: fc2's dx stored with relu3's mask applied (a DRELU epilogue); relu3's backward
         * then gives the same gradient */
        size_t cnt = P->n * layer_in_size(ly);
        if ((rc = act_io(c, l - 1, 1, F->a, 1)) || (rc = act_io(c, l - 1, 0, F->b, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            if (!(F->b[i] > 0)) F->a[i] = 0.0f;
        if ((rc = act_io(c, l - 1, 1, F->a, 0))) FAULT_DONE(rc);
    }
    if (id == CPU_FAULT_FC1_DB_STALE_ONCE && fault_layer(c, l, "fc1") && (c->step == 7 || c->step == 8)) {
        /* step 7's fc1 bias gradient kept (F->p_old); at step 8 it is what the gradient buffer holds */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        if (c->step == 7) memcpy(F->p_old, c->grads + tb->offset, tb->numel * sizeof(float));
        else memcpy(c->grads + tb->offset, F->p_old, tb->numel * sizeof(float));
    }
    if (id == CPU_FAULT_FC1_DW_ROWS_SAMPLE0_MASK_ONCE && c->step == 7 && fault_layer(c, l, "fc1") && P->n > 1) {
        /* a backward-weights kernel that skips the output units it takes for ReLU-dead, deciding from
         * sample 0's output gradient alone: the rows j with dy[0][j] == 0 are left +0 */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c;
        float *g = c->grads + tw->offset;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t j = 0; j < out; j++)
            if (F->a[j] == 0.0f) memset(g + j * in, 0, in * sizeof *g);
    }
    return 0;
}

static int fault_bwd_after_2(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_FC1_DW_DEAD_FEATURES_STALE_ONCE && fault_layer(c, l, "fc1") && (c->step == 6 || c->step == 7)) {
        /* a zero-skipping backward-weights kernel that does not write what it skips: at step 7 the columns
         * of the input features that are +0 in every sample of the batch keep the values step 6 left in
         * the gradient buffer */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c, n = P->n;
        float *g = c->grads + tw->offset;
        if (c->step == 6) {
            memcpy(F->dw_save, g, tw->numel * sizeof(float));
            F->corrupted = 1;
        } else if (F->corrupted == 1) {
            if ((rc = act_io(c, l - 1, 0, F->a, 1))) FAULT_DONE(rc);
            for (size_t k = 0; k < in; k++) {
                int dead = 1;
                for (size_t i = 0; i < n && dead; i++) dead = F->a[i * in + k] == 0.0f;
                for (size_t j = 0; dead && j < out; j++) g[j * in + k] = F->dw_save[j * in + k];
            }
            F->corrupted = 2;
        }
    }
    if (id == CPU_FAULT_FC1_DW_STALE_SPARSITY_ONCE && fault_layer(c, l, "fc1") && (c->step == 6 || c->step == 7)) {
        /* a zero-skipping backward-weights kernel whose list of active input features (nonzero in some
         * sample of the batch) is step 6's at step 7: the columns of features that were zero throughout
         * step 6's batch are left at +0 */
        size_t in = layer_in_size(ly), n = P->n;
        if ((rc = act_io(c, l - 1, 0, F->a, 1))) FAULT_DONE(rc);
        if (c->step == 6) {
            for (size_t k = 0; k < in; k++) {
                F->b[k] = 0.0f;
                for (size_t i = 0; i < n; i++) F->b[k] = F->a[i * in + k] != 0.0f ? 1.0f : F->b[k];
            }
            F->corrupted = 1;
        } else if (F->corrupted == 1) {
            float *g = c->grads + tw->offset;
            for (size_t k = 0; k < in; k++)
                if (F->b[k] == 0.0f)
                    for (size_t j = 0; j < (size_t)ly->out_c; j++) g[j * in + k] = 0.0f;
            F->corrupted = 2;
        }
    }
    if (id == CPU_FAULT_CONV2_DX_SMALL_DY_SKIPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* conv2's input gradient as a backward-data kernel that skips output gradients with 0 < |dy| < 2^(8 - k)
         * of the batch's largest |dy| (2^-8 at fault_k=16) computes it: the input gradient recomputed from the
         * thresholded dy, dW and db kept from the true one */
        size_t cnt = P->n * layer_out_size(ly);
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        double mx = 0;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++) mx = fmax(mx, fabs((double)F->a[i]));
        double tau = mx * F->rel * 0x1p8;
        for (size_t i = 0; i < cnt; i++) F->b[i] = F->a[i] != 0.0f && fabs((double)F->a[i]) < tau ? 0.0f : F->a[i];
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        memcpy(F->dw_save + tw->numel, c->grads + tb->offset, tb->numel * sizeof(float));
        if ((rc = act_io(c, l, 1, F->b, 0)) || (rc = cpu_backward_layer(e, l))) FAULT_DONE(rc);
        if ((rc = act_io(c, l, 1, F->a, 0))) FAULT_DONE(rc);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        memcpy(c->grads + tb->offset, F->dw_save + tw->numel, tb->numel * sizeof(float));
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FUSED_GRAD_ONCE_BLOCK1 && c->step == 7 && fault_layer(c, l, "relu2") &&
        c->m->layers[l - 1].out_c > 17) {
        /* relu2's backward wrote conv2's output gradient (fused: with pool2's) */
        const layer *cv = &c->m->layers[l - 1];
        size_t hw = (size_t)cv->out_h * cv->out_w, i = 17 * hw, end = 18 * hw;
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        while (i < end && F->a[i] != 0.0f) i++;
        if (i < end) F->a[i] = 1e-3f;
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_PLANE_TRANSPOSED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
        ly->in_h == ly->in_w) {
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        int h = ly->in_h;
        for (int i = 0; i < h; i++)
            for (int j = i + 1; j < h; j++) {
                float t = F->a[i * h + j];
                F->a[i * h + j] = F->a[j * h + i], F->a[j * h + i] = t;
            }
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_ADJACENT_SWAP_ONCE && c->step == 7 && fault_layer(c, l, "conv2") && ly->in_w > 1) {
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        size_t big = 0, w = (size_t)ly->in_w;
        for (size_t i = 1; i < (size_t)ly->in_h * w; i++) big = fabsf(F->a[i]) > fabsf(F->a[big]) ? i : big;
        size_t mate = big % w + 1 < w ? big + 1 : big - 1;
        float t = F->a[big];
        F->a[big] = F->a[mate], F->a[mate] = t;
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_TILE_TRANSPOSED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
        ly->in_w % 2 == 0 && ly->in_h % 2 == 0) {
        /* the 2x2 tile of the largest |dx| (sample 0, channel 0) transposed: its anti-diagonal pair exchanged */
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        size_t big = 0, w = (size_t)ly->in_w;
        for (size_t i = 1; i < (size_t)ly->in_h * w; i++) big = fabsf(F->a[i]) > fabsf(F->a[big]) ? i : big;
        size_t top = (big / w & ~(size_t)1) * w + (big % w & ~(size_t)1);
        float t = F->a[top + 1];
        F->a[top + 1] = F->a[top + w], F->a[top + w] = t;
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    return 0;
}

static int fault_bwd_after_3(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_CONV2_DX_TILES_TRANSPOSED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
        ly->in_w % 2 == 0 && ly->in_h % 2 == 0) {
        /* every 2x2 tile of every (sample, channel) plane transposed: each anti-diagonal pair exchanged */
        size_t w = (size_t)ly->in_w, hw = (size_t)ly->in_h * w, planes = P->n * (size_t)ly->in_c;
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t pl = 0; pl < planes; pl++)
            for (size_t i = 0; i < (size_t)ly->in_h; i += 2)
                for (size_t j = 0; j < w; j += 2) {
                    float *t0 = F->a + pl * hw + i * w + j, t = t0[1];
                    t0[1] = t0[w], t0[w] = t;
                }
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_FC1_DX_LANE_PAIR_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* fc1's input gradient, sample 0 only: the feature of the largest |dx| and its even/odd partner */
        size_t in = layer_in_size(ly), big = 0;
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 1; i < in; i++) big = fabsf(F->a[i]) > fabsf(F->a[big]) ? i : big;
        size_t mate = (big ^ 1) < in ? big ^ 1 : big;
        float t = F->a[big];
        F->a[big] = F->a[mate], F->a[mate] = t;
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_WINO_TILE_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* conv2's input gradient, sample 0: the plane of the largest |dx| that the pool before conv2 passes
         * on (its output > 0: the ReLU passed; elsewhere the tile would be lost in relu1's backward) */
        size_t hw = (size_t)ly->in_h * ly->in_w, big = 0, per = (size_t)ly->in_c * hw;
        if ((rc = act_io(c, l - 1, 1, F->a, 1)) || (rc = act_io(c, l - 1, 0, F->b, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < per; i++)
            big = F->b[i] > 0 && (!(F->b[big] > 0) || fabsf(F->a[i]) > fabsf(F->a[big])) ? i : big;
        wino_tile(F->a + big / hw * hw, (size_t)ly->in_h, (size_t)ly->in_w, big % hw, F->rel);
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_HALVES_ANTISYM_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* conv2's input gradient, sample 0: in the plane of the largest |dx| where pool1's output is > 0, the
         * 4-lane group of that element gets +e, +e, -e, -e, e = 2^(12 - k) of that |dx| (2^-4 at fault_k=16) */
        size_t hw = (size_t)ly->in_h * ly->in_w, w = (size_t)ly->in_w, big = 0, per = (size_t)ly->in_c * hw;
        if ((rc = act_io(c, l - 1, 1, F->a, 1)) || (rc = act_io(c, l - 1, 0, F->b, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < per; i++)
            big = F->b[i] > 0 && i % w < (w & ~(size_t)3) &&
                          (!(F->b[big] > 0) || big % w >= (w & ~(size_t)3) || fabsf(F->a[i]) > fabsf(F->a[big]))
                      ? i
                      : big;
        float *pl = F->a + big / hw * hw, *g = pl + big % hw - big % w + (big % w & ~(size_t)3);
        double eps = fabs((double)F->a[big]) * F->rel * 0x1p12;
        for (int t = 0; t < 4; t++) g[t] = (float)((double)g[t] + (t < 2 ? eps : -eps));
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_FC1_DX_TILE_ANTISYM_ONCE && c->step == 7 && fault_layer(c, l, "fc1") && P->n > 1) {
        /* fc1's input gradient: the 2 x 2 tile (samples 0, 1; features k0, k0 + 1, k0 the even-aligned pair of
         * sample 0's largest |dx|) gets +e on its diagonal and -e off it, e = 2^(12 - k) of that |dx| */
        size_t in = layer_in_size(ly), big = in;
        if ((rc = act_io(c, l - 1, 1, F->a, 1)) || (rc = act_io(c, l - 1, 0, F->b, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i + 1 < in; i++) { /* both features > 0 in both samples: pool2 and relu2 pass them back */
            size_t q = i & ~(size_t)1;
            int live = F->b[q] > 0 && F->b[q + 1] > 0 && F->b[in + q] > 0 && F->b[in + q + 1] > 0;
            big = live && (big == in || fabsf(F->a[i]) > fabsf(F->a[big])) ? i : big;
        }
        size_t k0 = big & ~(size_t)1;
        if (big < in && k0 + 1 < in) {
            double eps = fabs((double)F->a[big]) * F->rel * 0x1p12;
            F->a[k0] = (float)((double)F->a[k0] + eps), F->a[k0 + 1] = (float)((double)F->a[k0 + 1] - eps);
            F->a[in + k0] = (float)((double)F->a[in + k0] - eps);
            F->a[in + k0 + 1] = (float)((double)F->a[in + k0 + 1] + eps);
        }
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_HALVES_SWAP_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* conv2's input gradient, sample 0: in the plane of the largest |dx| where pool1's output is > 0 (relu1
         * passes it on), the 4-lane group of that element has its halves exchanged */
        size_t hw = (size_t)ly->in_h * ly->in_w, big = 0, per = (size_t)ly->in_c * hw;
        if ((rc = act_io(c, l - 1, 1, F->a, 1)) || (rc = act_io(c, l - 1, 0, F->b, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < per; i++)
            big = F->b[i] > 0 && (!(F->b[big] > 0) || fabsf(F->a[i]) > fabsf(F->a[big])) ? i : big;
        halves_swap_at(F->a + big / hw * hw, (size_t)ly->in_w, big % hw);
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if ((id == CPU_FAULT_CONV2_DX_1ULP || id == CPU_FAULT_CONV2_DX_REL) && fault_layer(c, l, "conv2")) {
        size_t cnt = P->n * layer_in_size(ly);
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            F->a[i] = id == CPU_FAULT_CONV2_DX_1ULP ? nextafterf(F->a[i], INFINITY)
                                                    : (float)((double)F->a[i] * (1.0 + F->rel));
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_CONV1_DW_AVG3_BF16_LATE && c->step >= 3 && fault_layer(c, l, "conv1")) {
        /* from step 3 on, conv1's weight gradient averaged over 3 replicas with 1/3 held in bf16: x 3 fl_bf16(1/3)
         * = 1 + 2^-9 (db is right) */
        double f = 3.0 * (double)lowp_round_bf16(1.0f / 3.0f, LOWP_RNE);
        for (size_t i = 0; i < tw->numel; i++) c->grads[tw->offset + i] = (float)((double)c->grads[tw->offset + i] * f);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DW_IC8_PEEL_BF16_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* the second half of an input-channel split: each filter's element (C / 2) k k stored rounded to bf16 */
        size_t per = tw->numel / (size_t)ly->out_c, at = (size_t)ly->in_c / 2 * (size_t)ly->k * ly->k;
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++)
            c->grads[tw->offset + oc * per + at] = lowp_round_bf16(c->grads[tw->offset + oc * per + at], LOWP_RNE);
        FAULT_DONE(0);
    }
    return 0;
}

static int fault_bwd_after_4(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (((id == CPU_FAULT_CONV2_DW_PEEL_BF16_ONCE || id == CPU_FAULT_CONV2_DW_IC0_BF16_ONCE) &&
         fault_layer(c, l, "conv2")) ||
        (id == CPU_FAULT_CONV1_DW_PEEL_BF16_ONCE && fault_layer(c, l, "conv1"))) {
        /* at step 7, the first element of every filter of the weight gradient (input channel 0, tap (0, 0):
         * a peeled first iteration; ic0: the whole k x k slice of input channel 0, a separate first tile)
         * stored rounded to bf16 (to nearest even) */
        size_t per = tw->numel / (size_t)ly->out_c, cnt = id == CPU_FAULT_CONV2_DW_IC0_BF16_ONCE ? (size_t)ly->k * ly->k : 1;
        for (size_t oc = 0; oc < (size_t)ly->out_c && c->step == 7; oc++)
            for (size_t t = 0; t < cnt; t++)
                c->grads[tw->offset + oc * per + t] = lowp_round_bf16(c->grads[tw->offset + oc * per + t], LOWP_RNE);
        FAULT_DONE(0);
    }
    if ((id == CPU_FAULT_TWIN_DW_SIGN_PAIR_ONCE || id == CPU_FAULT_TWIN_DW_SIGN_PAIR_CHOSEN_ONCE) && c->step == 7 &&
        fault_layer(c, l, "fc1")) {
        twin_sign_pair(c->grads, tw->offset, tw->numel, id == CPU_FAULT_TWIN_DW_SIGN_PAIR_CHOSEN_ONCE,
                       (int)lround(-log2(F->rel)) - 15);
        FAULT_DONE(0);
    }
    if ((id == CPU_FAULT_CONV2_DW_EXP_FLIP_SMALL_ONCE || id == CPU_FAULT_CONV2_DW_SECOND_SMALLEST_DOUBLED_ONCE) &&
        c->step == 7 && fault_layer(c, l, "conv2")) {
        /* every filter: the element of the second-smallest nonzero |dW|, its exponent's lowest bit flipped */
        size_t per = tw->numel / (size_t)ly->out_c;
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
            float *g = c->grads + tw->offset + oc * per;
            size_t s1 = per, s2 = per;
            for (size_t i = 0; i < per; i++) {
                if (g[i] == 0.0f) continue;
                if (s1 == per || fabsf(g[i]) < fabsf(g[s1])) s2 = s1, s1 = i;
                else if (s2 == per || fabsf(g[i]) < fabsf(g[s2])) s2 = i;
            }
            if (s2 == per) continue;
            if (id == CPU_FAULT_CONV2_DW_SECOND_SMALLEST_DOUBLED_ONCE) {
                g[s2] *= 2.0f;
                continue;
            }
            uint32_t u;
            memcpy(&u, &g[s2], 4);
            u ^= 1u << 23;
            memcpy(&g[s2], &u, 4);
        }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC1_DW_EXP_FLIP_SCATTERED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* 16 scattered nonzero elements (the first nonzero at or after i x 6553 + 977), exponent's lowest bit */
        float *g = c->grads + tw->offset;
        for (size_t i = 0; i < 16; i++)
            for (size_t j = i * 6553 + 977; j < tw->numel; j++)
                if (g[j] != 0.0f) {
                    uint32_t u;
                    memcpy(&u, &g[j], 4);
                    u ^= 1u << 23;
                    memcpy(&g[j], &u, 4);
                    break;
                }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DW_WALSH4_ONCE && c->step == 7 && fault_layer(c, l, "conv2") && ly->k == 3 &&
        ly->in_c >= 8) {
        /* the pattern w = (1, -1, -1, 1) on one tap over channels c..c+3 is orthogonal to the constant, to the
         * channel parity (-1)^c and to the channel index c: the filter's signed sum (ck_cw) and its index-weighted
         * sum (ck_iw = 9 c + s (tap + 1)) are both unchanged */
        size_t per = tw->numel / (size_t)ly->out_c, kk = 9, tap = 4;
        float *g = c->grads + tw->offset;
        size_t sm = per, big = argmax_abs(g, per);
        for (size_t t = 0; t < per; t++)
            if (g[t] != 0.0f && (sm == per || fabsf(g[t]) < fabsf(g[sm]))) sm = t;
        double e = fabs((double)g[big]) * F->rel * 65536.0;
        static const double wv[4] = {1, -1, -1, 1};
        for (size_t c0 = 4; c0 + 4 < (size_t)ly->in_c; c0++) {
            int ok = 1;
            for (size_t q = 0; q < 4; q++) {
                size_t t = (c0 + q) * kk + tap;
                ok &= g[t] != 0.0f && t != sm && t != big;
            }
            if (!ok) continue;
            for (size_t q = 0; q < 4; q++) {
                size_t t = (c0 + q) * kk + tap;
                g[t] = (float)((double)g[t] + wv[q] * e);
            }
            break;
        }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC1_DW_ROW_PATTERN_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* row 0 takes ck_iw's sign pattern 0, (-1)^t: weights (t+1, -(t+2), t+3, -(t+4)) on an even-aligned block;
         * (1, 1, -1, -1) sums to 0 against them and against the unsigned row sum */
        size_t in = layer_in_size(ly), sm = in;
        float *g = c->grads + tw->offset;
        for (size_t t = 0; t < in; t++)
            if (g[t] != 0.0f && (sm == in || fabsf(g[t]) < fabsf(g[sm]))) sm = t;
        double e = fabs((double)g[argmax_abs(g, in)]) * F->rel * 65536.0;
        for (size_t t = 2; t + 4 < in; t += 2)
            if (g[t] != 0.0f && g[t + 1] != 0.0f && g[t + 2] != 0.0f && g[t + 3] != 0.0f && (sm < t || sm > t + 3)) {
                g[t] = (float)((double)g[t] + e), g[t + 1] = (float)((double)g[t + 1] + e);
                g[t + 2] = (float)((double)g[t + 2] - e), g[t + 3] = (float)((double)g[t + 3] - e);
                break;
            }
        FAULT_DONE(0);
    }
    return 0;
}

static int fault_bwd_after_5(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_CONV2_DW_FILTER_MAX_SCALED_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        size_t per = tw->numel / (size_t)ly->out_c;
        for (size_t oc = 0; oc < 1; oc++) { /* filter 0 only */
            float *g = c->grads + tw->offset + oc * per;
            size_t big = argmax_abs(g, per);
            if (big == 0 || big == per - 1) continue;
            g[big] = (float)((double)g[big] * (1.0 + F->rel * 4096.0));
        }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC1_DX_SECOND_SCALED_ONCE && c->step == 7 && fault_layer(c, l, "fc1") && P->n > 3) {
        /* sample 3's second-largest |dx| */
        size_t in = layer_in_size(ly);
        if ((rc = act_io(c, l - 1, 1, F->a, 1))) FAULT_DONE(rc);
        float *d = F->a + 3 * in;
        size_t big = argmax_abs(d, in), sec = big ? 0 : 1;
        for (size_t k = 0; k < in; k++) sec = k != big && fabsf(d[k]) > fabsf(d[sec]) ? k : sec;
        d[sec] = (float)((double)d[sec] * (1.0 + F->rel * 256.0));
        FAULT_DONE(act_io(c, l - 1, 1, F->a, 0));
    }
    if (id == CPU_FAULT_FC1_DW_PEEL_DY_FP16_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* the first input feature's column of every row (a K-loop's peeled first iteration) computed from the
         * output gradient rounded to fp16 (binary16, to nearest even): dW[j][0] = sum_s fp16(dy[s][j]) x[s][0] */
        size_t in = layer_in_size(ly), out = (size_t)ly->out_c, n = P->n;
        float *g = c->grads + tw->offset;
        if ((rc = act_io(c, l, 1, F->a, 1)) || (rc = act_io(c, l - 1, 0, F->b, 1))) FAULT_DONE(rc);
        for (size_t j = 0; j < out; j++) {
            double t = 0;
            for (size_t s0 = 0; s0 < n; s0++) t += (double)round_fp16(F->a[s0 * out + j]) * F->b[s0 * in];
            g[j * in] = (float)t;
        }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC1_DW_1ULP && fault_layer(c, l, "fc1")) {
        for (size_t i = 0; i < tw->numel; i++) c->grads[tw->offset + i] = nextafterf(c->grads[tw->offset + i], INFINITY);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DW_REL && fault_layer(c, l, "conv2")) {
        for (size_t i = 0; i < tw->numel; i++)
            c->grads[tw->offset + i] = (float)((double)c->grads[tw->offset + i] * (1.0 + F->rel));
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_GRAD_CORRUPT_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        float *g = c->grads + t->offset;
        size_t big = 0;
        for (size_t i = 1; i < t->numel; i++) big = fabsf(g[i]) > fabsf(g[big]) ? i : big;
        g[big] *= 2.0f;
    }
    if (id == CPU_FAULT_CONV2_DW_FLIPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        size_t kk = (size_t)ly->k * ly->k;
        float *g = c->grads + t->offset;
        for (size_t s0 = 0; s0 < t->numel; s0 += kk)
            for (size_t a = 0, b = kk - 1; a < b; a++, b--) {
                float tmp = g[s0 + a];
                g[s0 + a] = g[s0 + b];
                g[s0 + b] = tmp;
            }
    }
    if (id == CPU_FAULT_FC1_DW_NHWC_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        const layer *src = &c->m->layers[l - 1]; /* the flatten before fc1: its input is (C, H, W) */
        size_t C = (size_t)src->in_c, HW = (size_t)src->in_h * src->in_w, in = C * HW;
        float *g = c->grads + t->offset;
        for (size_t j = 0; j < t->numel / in; j++) {
            float *row = g + j * in;
            for (size_t ch = 0; ch < C; ch++)
                for (size_t p = 0; p < HW; p++) F->a[ch * HW + p] = row[p * C + ch];
            memcpy(row, F->a, in * sizeof *row);
        }
    }
    if (((id == CPU_FAULT_CONV2_DW_SLICE_TRANSPOSED_ONCE && fault_layer(c, l, "conv2")) ||
                (id == CPU_FAULT_CONV1_DW_SLICE_TRANSPOSED_ONCE && fault_layer(c, l, "conv1")) ||
                (id == CPU_FAULT_CONV2_DW_TRANSPOSED_ONCE && fault_layer(c, l, "conv2"))) &&
               c->step == 7 && ly->k == 3) {
        /* slice (output channel 0, input channel 0), or every slice: (kh, kw) <-> (kw, kh) */
        size_t slices = id == CPU_FAULT_CONV2_DW_TRANSPOSED_ONCE ? tw->numel / 9 : 1;
        for (size_t s0 = 0; s0 < slices; s0++) transpose3(c->grads + tw->offset + 9 * s0);
    }
    if (id == CPU_FAULT_CONV2_DW_OC_SLICE_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->out_c > 1) {
        swap_slices(c->grads + tw->offset, (size_t)ly->k * ly->k, tw->numel / (size_t)ly->out_c);
    }
    if ((id == CPU_FAULT_CONV2_DW_SLICE_TRANSPOSED_ALWAYS ||
                (id == CPU_FAULT_CONV2_DW_SLICE_TRANSPOSED_ALWAYS_LATE && c->step >= 3)) &&
               fault_layer(c, l, "conv2") && ly->k == 3) {
        /* every step (_late: from step 3), the slice (output channel 0, input channel 0) */
        transpose3(c->grads + tw->offset);
    }
    if (id == CPU_FAULT_CONV2_DW_IC_SLICES_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->in_c > 1) {
        /* output channel 0: the slices of input channels 0 and 1, tap for tap */
        swap_slices(c->grads + tw->offset, (size_t)ly->k * ly->k, (size_t)ly->k * ly->k);
    }
    return 0;
}

static int fault_bwd_after_6(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_FC1_DW_LANE_PAIR_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* the even/odd column pair of row 0's largest |dW|, exchanged in every row */
        size_t in = tw->numel / (size_t)ly->out_c;
        float *g = c->grads + tw->offset;
        size_t f0 = argmax_abs(g, in), f1 = (f0 ^ 1) < in ? f0 ^ 1 : f0;
        swap_cols(g, (size_t)ly->out_c, in, f0, f1);
    }
    if (id == CPU_FAULT_CONV2_DW_IC_PAIR_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->in_c > 1) {
        /* every filter: the slices of input channels 0 and 1, tap for tap */
        size_t kk = (size_t)ly->k * ly->k, per = tw->numel / (size_t)ly->out_c;
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) swap_slices(c->grads + tw->offset + oc * per, kk, kk);
    }
    if (id == CPU_FAULT_FC1_DW_LANE02_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* the columns of row 0's largest |dW| and of the lane two away in its 4-lane group, in every row */
        size_t in = tw->numel / (size_t)ly->out_c;
        float *g = c->grads + tw->offset;
        size_t f0 = argmax_abs(g, in), f1 = (f0 ^ 2) < in ? f0 ^ 2 : f0;
        swap_cols(g, (size_t)ly->out_c, in, f0, f1);
    }
    if (id == CPU_FAULT_FC1_DW_HALVES_SWAPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* the 4-lane group of row 0's largest |dW|: (a, b, c, d) -> (c, d, a, b) in every row */
        size_t in = tw->numel / (size_t)ly->out_c;
        float *g = c->grads + tw->offset;
        size_t f0 = argmax_abs(g, in) & ~(size_t)3;
        if (f0 + 3 < in) {
            swap_cols(g, (size_t)ly->out_c, in, f0, f0 + 2);
            swap_cols(g, (size_t)ly->out_c, in, f0 + 1, f0 + 3);
        }
    }
    if (id == CPU_FAULT_CONV2_DW_EQUAL_WEIGHT_SWAP_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
               ly->in_c > 1 && ly->k == 3) {
        /* every filter: (input channel 0, tap (0, 0)) <-> (input channel 1, tap (2, 1)), flat 0 <-> 16 */
        size_t per = tw->numel / (size_t)ly->out_c;
        float *g = c->grads + tw->offset;
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
            float tmp = g[oc * per];
            g[oc * per] = g[oc * per + 16];
            g[oc * per + 16] = tmp;
        }
    }
    if (id == CPU_FAULT_CONV2_DW_TINY_TO_MIN_NORMAL_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* every nonzero |dW| below 2^-(k + 2) (2^-18 at fault_k=16; 2^-14, fp16's smallest normal, at 12) set to
         * that magnitude, its sign kept (a flush that rounds up to the smallest normal instead of to 0) */
        float *g = c->grads + tw->offset;
        double lim = F->rel * 0x1p-2;
        for (size_t i = 0; i < tw->numel; i++)
            if (g[i] != 0.0f && fabs((double)g[i]) < lim) g[i] = copysignf((float)lim, g[i]);
    }
    if (((id == CPU_FAULT_CONV2_DW_FP16_ONCE && fault_layer(c, l, "conv2")) ||
                (id == CPU_FAULT_FC1_DW_FP16_ONCE && fault_layer(c, l, "fc1"))) &&
               c->step == 7) {
        /* the weight gradient stored as fp16 (binary16, to nearest, subnormals kept) with no loss scaling */
        float *g = c->grads + tw->offset;
        for (size_t i = 0; i < tw->numel; i++) g[i] = round_fp16(g[i]);
    }
    if (id == CPU_FAULT_FC1_DW_CLIP_VALUE_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* per-element gradient clipping (clip_grad_value) at 2^(9 - k) (2^-7 at fault_k=16), applied silently */
        float *g = c->grads + tw->offset, lim = (float)(F->rel * 0x1p9);
        for (size_t i = 0; i < tw->numel; i++) g[i] = g[i] > lim ? lim : g[i] < -lim ? -lim : g[i];
    }
    if (id == CPU_FAULT_FC1_DW_TINY_FLUSHED_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* every nonzero |dW| below 2^-(k + 8) (2^-24 at fault_k=16: fp16's smallest subnormal) flushed to +0 */
        float *g = c->grads + tw->offset;
        for (size_t i = 0; i < tw->numel; i++)
            if (g[i] != 0.0f && fabs((double)g[i]) < F->rel * 0x1p-8) g[i] = 0.0f;
    }
    if (((id == CPU_FAULT_FC1_DW_TINY_TO_SUBNORMAL_ONCE && fault_layer(c, l, "fc1")) ||
                (id == CPU_FAULT_FC2_DW_TINY_FLUSHED_ONCE && fault_layer(c, l, "fc2")) ||
                (id == CPU_FAULT_CONV2_DW_TINY_FLUSHED_ONCE && fault_layer(c, l, "conv2"))) &&
               c->step == 7) {
        /* fc1_..._to_subnormal: every nonzero |dW| below 2^-(k + 8) (2^-24 at fault_k=16) set to that
         * magnitude, its sign kept (an fp16 conversion that rounds tiny values away from zero, to the
         * smallest subnormal, instead of to 0); fc2_..._flushed: below 2^-k (2^-16) flushed to +0;
         * conv2_..._flushed: below 2^-(k + 2) (2^-18; 2^-14 at fault_k=12 is fp16's smallest normal, an
         * fp16 path with flush-to-zero) flushed to +0 */
        float *g = c->grads + tw->offset;
        double lim = id == CPU_FAULT_CONV2_DW_TINY_FLUSHED_ONCE ? F->rel * 0x1p-2
                     : id == CPU_FAULT_FC2_DW_TINY_FLUSHED_ONCE ? F->rel
                                                                : F->rel * 0x1p-8;
        for (size_t i = 0; i < tw->numel; i++) {
            if (g[i] == 0.0f || !(fabs((double)g[i]) < lim)) continue;
            g[i] = id == CPU_FAULT_FC1_DW_TINY_TO_SUBNORMAL_ONCE ? copysignf((float)lim, g[i]) : 0.0f;
        }
    }
    return 0;
}

static int fault_bwd_after_7(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_CONV2_DW_TRANSFORM_NOISE_ONCE && c->step == 7 && fault_layer(c, l, "conv2")) {
        /* every element of every filter that has a gradient (a filter all +-0 is left alone: its plain
         * relation, A = 0, would see any noise), zeros included, moved by up to 2^-(k + 14) of the layer's
         * largest |dW|: a fixed pseudo-random amount in (0, 1] and sign per element (an FFT's rounding
         * follows the scale) */
        float *g = c->grads + tw->offset;
        size_t per = tw->numel / (size_t)ly->out_c;
        double mx = 0;
        for (size_t i = 0; i < tw->numel; i++) mx = fmax(mx, fabs((double)g[i]));
        for (size_t oc = 0; oc < (size_t)ly->out_c; oc++) {
            int live = 0;
            for (size_t t = 0; t < per; t++) live |= g[oc * per + t] != 0;
            for (size_t t = 0; t < per && live; t++) {
                size_t i = oc * per + t;
                uint32_t h = (uint32_t)i * 2654435761u;
                double u = (double)((h >> 8) % 1000 + 1) / 1000.0 * ((h >> 7) & 1 ? -1.0 : 1.0);
                g[i] = (float)((double)g[i] + u * mx * F->rel * 0x1p-14);
            }
        }
    }
    if (id == CPU_FAULT_CONV2_DB_TWICE && fault_layer(c, l, "conv2")) {
        const model_tensor *t = &c->m->tensors[ly->b_tensor];
        for (size_t i = 0; i < t->numel; i++) c->grads[t->offset + i] *= 2.0f;
    }
    if (id == CPU_FAULT_FC2_DW_ROWS_SWAPPED && fault_layer(c, l, "fc2")) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        size_t in = t->numel / (size_t)ly->out_c;
        float *g = c->grads + t->offset;
        for (size_t i = 0; i < in; i++) {
            float tmp = g[i];
            g[i] = g[in + i];
            g[in + i] = tmp;
        }
    }
    if (id == CPU_FAULT_DROPOUT_DIVIDE_BY_KEEP && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc) {
        /* zoo attack 7: dy / (1 - p) where kept */
        size_t cnt = P->n * layer_out_size(ly);
        float keep = 1.0f - ly->p;
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            F->b[i] = rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)i, ly->p) ? F->a[i] / keep : 0.0f;
        FAULT_DONE(act_io(c, l - 1, 1, F->b, 0));
    }
    if (id == CPU_FAULT_DROPOUT_MASK_WRONG_STEP && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc) {
        size_t cnt = P->n * layer_out_size(ly);
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = act_io(c, l, 1, F->a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            F->b[i] = ops_dropout_bwd(F->a[i], e->seed, (uint32_t)c->step + 1, (uint32_t)l, (uint32_t)i, ly->p, scale);
        FAULT_DONE(act_io(c, l - 1, 1, F->b, 0));
    }
    if (id == CPU_FAULT_STATE_LAZY_DACT_STALE && P->L[l].fused && ly->kind == LAYER_MAXPOOL) {
        c->dact_lazy[l - 1] = 0; /* the rule still holds for the ReLU; the buffer is old */
    }
    return 0;
}


/* zoo attack 12's backward faults, after the layer's own backward */
static int fault_bwd_after_12(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if (ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc &&
        ((id == CPU_FAULT_DROPOUT_BWD_PREV_MASK_ONCE && c->step == 7) ||
         (id == CPU_FAULT_DROPOUT_MASK_SAMPLE0_ONCE && c->step == 7) || id == CPU_FAULT_DROPOUT_KEY_OWN_COUNTER)) {
        size_t per = layer_out_size(ly);
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        uint32_t key = id == CPU_FAULT_DROPOUT_BWD_PREV_MASK_ONCE ? (uint32_t)c->step - 1
                       : id == CPU_FAULT_DROPOUT_KEY_OWN_COUNTER  ? (uint32_t)F->z12_batches
                                                                  : (uint32_t)c->step;
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++)
            x[i] = ops_dropout_bwd(a[i], e->seed, key, (uint32_t)l,
                                   (uint32_t)(id == CPU_FAULT_DROPOUT_MASK_SAMPLE0_ONCE ? i % per : i), ly->p, scale);
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_DROPOUT_OFF_FIRST_AFTER_EVAL && F->z12_fired && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc) {
        F->z12_fired = 0; /* the inference mode's backward: dx = dy */
        if ((rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (id == CPU_FAULT_FC1_DX_FLATTEN_NHWC_ONCE && c->step == 7 && fault_layer(c, l, "fc1") && l >= 2) {
        /* fc1's input gradient written in NHWC order: dx[c HW + q] receives what belongs at q C + c */
        const layer *pl = &c->m->layers[l - 2];
        size_t C = (size_t)pl->out_c, HW = layer_out_size(pl) / C, in = C * HW;
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < in; k++) x[i * in + (k % C) * HW + k / C] = a[i * in + k];
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_CONV1_DB_LATE_SCALED && c->step == 9 && fault_layer(c, l, "conv1")) {
        const model_tensor *t = &c->m->tensors[ly->b_tensor];
        for (size_t i = 0; i < t->numel; i++) c->grads[t->offset + i] *= 1.0f + 0x1p-10f;
    }
    return 0;
}

/* zoo attack 14: backward edits (a weight gradient scaled at one late step) */
static int fault_bwd_after_14(engine *e, int l, int *done) {
    FAULT_LOCALS;
    if ((id == CPU_FAULT_CONVNET_CONV2_DW_SCALED_STEP9 && c->step == 9 && fault_layer(c, l, "conv2")) ||
        (id == CPU_FAULT_FC1_DW_SCALED_LAST_STEP && c->step == 10 && fault_layer(c, l, "fc1"))) {
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        float f = id == CPU_FAULT_FC1_DW_SCALED_LAST_STEP ? 1.0f + 0x1p-12f : 1.0f + 0x1p-10f;
        for (size_t i = 0; i < t->numel; i++) c->grads[t->offset + i] *= f;
    }
    if (id == CPU_FAULT_CONVNET_FC1_DX_DROPPED_ONCE && c->step == 7 && l == c->m->n_layers - 1 && l >= 1 &&
        c->m->layers[l - 1].kind == LAYER_DROPOUT && P->L[l].need_dsrc) {
        /* fc1's input gradient doubled where drop1's mask dropped: drop1's backward zeroes those, so training is
         * right; the wrong values are in the tensor fc1 computed (drop1.dact) only */
        const layer *dl = &c->m->layers[l - 1];
        size_t per = layer_out_size(dl);
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < n * per; i++)
            if (!rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)(l - 1), (uint32_t)i, dl->p)) a[i] *= 2.0f;
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (((id == CPU_FAULT_CONV2_DW_COMPENSATING_ONCE && fault_layer(c, l, "conv2")) ||
         (id == CPU_FAULT_FC1_DW_COMPENSATING_ONCE && fault_layer(c, l, "fc1"))) && c->step == 7) {
        /* +d and -d on the second and third largest |dW| of output channel 0 (not the largest, the first or the
         * last, which a peek relation re-does alone): the channel's sum is unchanged; d a power of two, 2^-5..2^-4 of the smaller
         * at fault_k = 16, 2^(11-k)..2^(12-k) at fault_k = k */
        const model_tensor *t = &c->m->tensors[ly->w_tensor];
        size_t per = t->numel / (size_t)ly->out_c, top[3] = {0, 0, 0};
        float *g = c->grads + t->offset, tv[3] = {-1.0f, -1.0f, -1.0f};
        for (size_t i = 1; i + 1 < per; i++) { /* the three largest |dW| but the row's first and last (peeked) */
            float v = fabsf(g[i]);
            int k = v > tv[0] ? 0 : v > tv[1] ? 1 : v > tv[2] ? 2 : 3;
            for (int q = 2; q > k; q--) tv[q] = tv[q - 1], top[q] = top[q - 1];
            if (k < 3) tv[k] = v, top[k] = i;
        }
        size_t i2 = top[1], i3 = top[2];
        int ex;
        frexpf(fminf(fabsf(g[i2]), fabsf(g[i3])), &ex);
        float d = ldexpf(1.0f, ex + 11 - (int)-log2(F->rel)); /* fault_k = 16: 2^(ex - 5) */
        g[i2] = g[i2] + d;
        g[i3] = g[i3] - d;
    }
    return 0;
}

static int fault_bwd_after_8(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_CONV2_DX_SLICE_STALE_W_ONCE && c->step == 7 && fault_layer(c, l, "conv2") &&
        P->L[l].need_dsrc && n > 1 && F->updates > 0) {
        /* zoo attack 10: the second half of the samples' dx from the weights before the last update */
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t per = layer_in_size(ly), h = n / 2;
        float *w = c->params + tw->offset;
        if ((rc = act_io(c, l - 1, 1, a, 1))) FAULT_DONE(rc);
        memcpy(F->dw_save, c->grads + tw->offset, tw->numel * sizeof(float));
        memcpy(F->dw_save + tw->numel, c->grads + tb->offset, tb->numel * sizeof(float));
        memcpy(F->p_cur, w, tw->numel * sizeof *w);
        memcpy(w, F->p_old + tw->offset, tw->numel * sizeof *w);
        c->params_ver++;
        rc = cpu_backward_layer(e, l);
        memcpy(w, F->p_cur, tw->numel * sizeof *w);
        c->params_ver++;
        if (rc || (rc = act_io(c, l - 1, 1, x, 1))) FAULT_DONE(rc);
        memcpy(a + h * per, x + h * per, (n - h) * per * sizeof *a);
        memcpy(c->grads + tw->offset, F->dw_save, tw->numel * sizeof(float));
        memcpy(c->grads + tb->offset, F->dw_save + tw->numel, tb->numel * sizeof(float));
        FAULT_DONE(act_io(c, l - 1, 1, a, 0));
    }
    if (id == CPU_FAULT_FC1_DW_SHORT_SIGN_ONCE && c->step == 7 && fault_layer(c, l, "fc1")) {
        /* zoo attack 10: dW elements with their low 12 mantissa bits zero stored as +|g| */
        float *g = c->grads + tw->offset;
        size_t hit = 0;
        for (size_t i = 0; i < tw->numel; i++) {
            uint32_t u;
            memcpy(&u, &g[i], 4);
            if ((u & 0xFFFu) == 0 && (u & 0x80000000u) && (u & 0x7FFFFFFFu)) g[i] = -g[i], hit++;
        }
        if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "fc1_dw_short_sign_once: %zu element(s)\n", hit);
        FAULT_DONE(0);
    }
    return 0;
}

/* the legal-variant attack's backward rows: the engine's backward, then one result re-done in a legal order */
static int fault_bwd_legal(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    if (id == CPU_FAULT_FC1_DX_BLOCKED8 && fault_layer(c, l, "fc1") && P->L[l].need_dsrc) {
        const float *w = c->params + tw->offset;
        size_t in = layer_in_size(ly), oc = (size_t)ly->out_c;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t t = 0; t < in; t++) {
                float lane[8] = {0};
                for (size_t j = 0; j < oc; j++) lane[j % 8] = lane[j % 8] + w[j * in + t] * a[s0 * oc + j];
                x[s0 * in + t] = ls_lanes(lane, 8);
            }
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_FC1_DW_PAIRWISE && fault_layer(c, l, "fc1")) {
        if (n > 4096) return 0;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1)))
            FAULT_DONE(rc);
        dense_dw_ordered(ly, a, x, n, c->grads + tw->offset, LS_DW_PAIRWISE);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_CONV2_DW_BLOCKED16 && fault_layer(c, l, "conv2")) {
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1)))
            FAULT_DONE(rc);
        float *g = c->grads + tw->offset;
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t kh = 0; kh < k; kh++)
                    for (size_t kw = 0; kw < k; kw++) {
                        float lane[16] = {0};
                        size_t q = 0;
                        for (size_t s0 = 0; s0 < n; s0++)
                            for (size_t i = 0; i < H; i++)
                                for (size_t j = 0; j < W; j++, q++) {
                                    long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                                    if (ih < 0 || iw < 0 || ih >= (long)IH || iw >= (long)IW) continue;
                                    float dy = a[((s0 * OC + oc) * H + i) * W + j];
                                    float xv = x[((s0 * C + ch) * IH + (size_t)ih) * IW + (size_t)iw];
                                    lane[q % 16] = lane[q % 16] + dy * xv;
                                }
                        g[((oc * C + ch) * k + kh) * k + kw] = ls_lanes(lane, 16);
                    }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_DROPOUT_MASK_MUL && ly->kind == LAYER_DROPOUT && P->L[l].need_dsrc) {
        float scale = (float)(1.0 / (1.0 - (double)ly->p));
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t i = 0; i < cnt; i++) {
            float mask = rng_dropout_keep(e->seed, (uint32_t)c->step, (uint32_t)l, (uint32_t)i, ly->p) ? 1.0f : 0.0f;
            x[i] = (a[i] * mask) * scale;
        }
        if (getenv("LS_FAULT_VERBOSE")) {
            size_t nz = 0;
            for (size_t i = 0; i < cnt; i++) nz += x[i] == 0.0f && signbit(x[i]);
            fprintf(stderr, "dropout_mask_mul: step %llu, %zu -0 of %zu in dx\n", (unsigned long long)c->step, nz, cnt);
        }
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_CONV2_DX_PAIRWISE && fault_layer(c, l, "conv2") && P->L[l].need_dsrc) {
        const float *w = c->params + tw->offset;
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k;
        float prod[4096];
        if (OC * k * k > 4096) return 0;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t s0 = 0; s0 < n; s0++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t ih = 0; ih < IH; ih++)
                    for (size_t iw = 0; iw < IW; iw++) {
                        size_t q = 0;
                        for (size_t oc = 0; oc < OC; oc++)
                            for (size_t kh = 0; kh < k; kh++)
                                for (size_t kw = 0; kw < k; kw++) {
                                    long i = (long)ih - (long)kh + ly->pad, j = (long)iw - (long)kw + ly->pad;
                                    if (i < 0 || j < 0 || i >= (long)H || j >= (long)W) continue;
                                    prod[q++] = w[((oc * C + ch) * k + kh) * k + kw] *
                                                a[((s0 * OC + oc) * H + (size_t)i) * W + (size_t)j];
                                }
                        x[((s0 * C + ch) * IH + ih) * IW + iw] = ls_pairwise(prod, q);
                    }
        FAULT_DONE(act_io(c, l - 1, 1, x, 0));
    }
    if (id == CPU_FAULT_CONV_DW_SERIAL_FP32 && ly->kind == LAYER_CONV) {
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        if (l == 0) x = c->x; /* the batch's images, plain NCHW */
        else if ((rc = act_io(c, l - 1, 0, x, 1))) FAULT_DONE(rc);
        float *g = c->grads + tw->offset;
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t kh = 0; kh < k; kh++)
                    for (size_t kw = 0; kw < k; kw++) {
                        float acc = 0.0f;
                        for (size_t s0 = 0; s0 < n; s0++)
                            for (size_t i = 0; i < H; i++)
                                for (size_t j = 0; j < W; j++) {
                                    long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                                    if (ih < 0 || iw < 0 || ih >= (long)IH || iw >= (long)IW) continue;
                                    acc = acc + a[((s0 * OC + oc) * H + i) * W + j] *
                                                    x[((s0 * C + ch) * IH + (size_t)ih) * IW + (size_t)iw];
                                }
                        g[((oc * C + ch) * k + kh) * k + kw] = acc;
                    }
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_DB_KAHAN && ly->b_tensor >= 0) {
        const model_tensor *tb = &c->m->tensors[ly->b_tensor];
        size_t oc = (size_t)ly->out_c, hw = ly->kind == LAYER_CONV ? (size_t)ly->out_h * ly->out_w : 1;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1))) FAULT_DONE(rc);
        for (size_t o = 0; o < oc; o++) {
            float s = 0.0f, comp = 0.0f;
            for (size_t s0 = 0; s0 < n; s0++)
                for (size_t q = 0; q < hw; q++) {
                    float y = a[(s0 * oc + o) * hw + q] - comp;
                    float t2 = s + y;
                    comp = (t2 - s) - y;
                    s = t2;
                }
            c->grads[tb->offset + o] = s;
        }
        FAULT_DONE(0);
    }
    return 0;
}

/* the second legal-variant attack's backward rows: the engine's backward, then one weight gradient re-done in a
 * legal order (padding taps skipped: their products are exactly 0).  Minibatch chunks as oneDNN's
 * backward-weights splits the batch over threads: LS_CHUNKS chunks of ceil(n / LS_CHUNKS) samples (the last ones
 * shorter, or empty), each a serial sum over its samples and positions, the chunk sums added in chunk order.
 * Uneven blocks: LS_BLOCK consecutive terms a block (200704 = 200 x 1000 + 704 for conv1 at batch 256), each
 * block serial, the block sums accumulated serially. */
#define LS_CHUNKS 6
#define LS_BLOCK 1000
static int fault_bwd_legal2(engine *e, int l, int *done) {
    FAULT_LOCALS;
    const model_tensor *tw = ly->w_tensor >= 0 ? &c->m->tensors[ly->w_tensor] : NULL;
    int sorted = (id == CPU_FAULT_CONV1_DW_SORTED_ASC || id == CPU_FAULT_CONV1_DW_SORTED_DESC ||
                  id == CPU_FAULT_CONV1_DW_POSNEG) && fault_layer(c, l, "conv1");
    int split = (id == CPU_FAULT_CONV_DW_MB_CHUNKS || id == CPU_FAULT_CONV_DW_BLOCKED_UNEVEN) && ly->kind == LAYER_CONV;
    if (sorted || split) {
        size_t C = (size_t)ly->in_c, IH = (size_t)ly->in_h, IW = (size_t)ly->in_w, H = (size_t)ly->out_h,
               W = (size_t)ly->out_w, OC = (size_t)ly->out_c, k = (size_t)ly->k;
        float *prod = malloc(n * H * W * sizeof *prod);
        size_t *sq = malloc((n + 1) * sizeof *sq); /* where sample s0's terms start in prod */
        if (!prod || !sq) {
            free(prod), free(sq);
            FAULT_DONE(-1);
        }
        rc = cpu_backward_layer(e, l);
        if (!rc) rc = act_io(c, l, 1, a, 1);
        if (!rc && l == 0) x = c->x; /* the batch's images, plain NCHW */
        else if (!rc) rc = act_io(c, l - 1, 0, x, 1);
        if (rc) {
            free(prod), free(sq);
            FAULT_DONE(rc);
        }
        int ord = id == CPU_FAULT_CONV1_DW_SORTED_ASC ? LS_ORD_ASC
                  : id == CPU_FAULT_CONV1_DW_SORTED_DESC ? LS_ORD_DESC : LS_ORD_POSNEG;
        float *g = c->grads + tw->offset;
        for (size_t oc = 0; oc < OC; oc++)
            for (size_t ch = 0; ch < C; ch++)
                for (size_t kh = 0; kh < k; kh++)
                    for (size_t kw = 0; kw < k; kw++) {
                        size_t q = 0;
                        for (size_t s0 = 0; s0 < n; s0++) {
                            sq[s0] = q;
                            for (size_t i = 0; i < H; i++)
                                for (size_t j = 0; j < W; j++) {
                                    long ih = (long)i + (long)kh - ly->pad, iw = (long)j + (long)kw - ly->pad;
                                    if (ih < 0 || iw < 0 || ih >= (long)IH || iw >= (long)IW) continue;
                                    prod[q++] = a[((s0 * OC + oc) * H + i) * W + j] *
                                                x[((s0 * C + ch) * IH + (size_t)ih) * IW + (size_t)iw];
                                }
                        }
                        sq[n] = q;
                        float acc = 0.0f;
                        if (sorted) acc = ls_sum_ordered(prod, q, ord);
                        else if (id == CPU_FAULT_CONV_DW_BLOCKED_UNEVEN)
                            for (size_t b0 = 0; b0 < q; b0 += LS_BLOCK) {
                                float bs = 0.0f;
                                for (size_t t = b0; t < q && t < b0 + LS_BLOCK; t++) bs = bs + prod[t];
                                acc = acc + bs;
                            }
                        else {
                            size_t per = (n + LS_CHUNKS - 1) / LS_CHUNKS;
                            for (size_t s0 = 0; s0 < n; s0 += per) {
                                float cs = 0.0f;
                                size_t s1 = s0 + per < n ? s0 + per : n;
                                for (size_t t = sq[s0]; t < sq[s1]; t++) cs = cs + prod[t];
                                acc = acc + cs;
                            }
                        }
                        g[((oc * C + ch) * k + kh) * k + kw] = acc;
                    }
        free(prod), free(sq);
        FAULT_DONE(0);
    }
    if (id == CPU_FAULT_FC1_DW_POSNEG && fault_layer(c, l, "fc1")) {
        if (n > 4096) return 0;
        if ((rc = cpu_backward_layer(e, l)) || (rc = act_io(c, l, 1, a, 1)) || (rc = act_io(c, l - 1, 0, x, 1)))
            FAULT_DONE(rc);
        dense_dw_ordered(ly, a, x, n, c->grads + tw->offset, LS_DW_POSNEG);
        FAULT_DONE(0);
    }
    return 0;
}

static int fault_backward_layer(engine *e, int l) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F || !c->cur) return cpu_backward_layer(e, l);
    int rc = 0;
    if (fault_bwd_before_1(e, l, &rc)) return rc;
    if (fault_bwd_before_2(e, l, &rc)) return rc;
    if (fault_bwd_before_3(e, l, &rc)) return rc;
    if (fault_bwd_before_19(e, l, &rc)) return rc;
    if (fault_bwd_before_20(e, l, &rc)) return rc;
    if (fault_bwd_before_23(e, l, &rc)) return rc;
    if (fault_bwd_legal(e, l, &rc)) return rc;
    if (fault_bwd_legal2(e, l, &rc)) return rc;
    if ((rc = cpu_backward_layer(e, l))) return rc;
    if (fault_bwd_after_1(e, l, &rc)) return rc;
    if (fault_bwd_after_2(e, l, &rc)) return rc;
    if (fault_bwd_after_3(e, l, &rc)) return rc;
    if (fault_bwd_after_4(e, l, &rc)) return rc;
    if (fault_bwd_after_5(e, l, &rc)) return rc;
    if (fault_bwd_after_6(e, l, &rc)) return rc;
    if (fault_bwd_after_7(e, l, &rc)) return rc;
    if (fault_bwd_after_8(e, l, &rc)) return rc;
    if (fault_bwd_after_12(e, l, &rc)) return rc;
    if (fault_bwd_after_14(e, l, &rc)) return rc;
    if (fault_bwd_after_15(e, l, &rc)) return rc;
    if (fault_bwd_after_16(e, l, &rc)) return rc;
    if (fault_bwd_after_17(e, l, &rc)) return rc;
    if (fault_bwd_after_19(e, l, &rc)) return rc;
    if (fault_bwd_after_20(e, l, &rc)) return rc;
    if (fault_bwd_after_21(e, l, &rc)) return rc;
    if (fault_bwd_after_22(e, l, &rc)) return rc;
    if (fault_bwd_after_23(e, l, &rc)) return rc;
    if (F->id == CPU_FAULT_FC2_DB_SAME_LABEL_DROPPED_ONCE && c->step == 7 && fault_layer(c, l, "fc2")) {
        /* zoo attack 11: db leaves out the samples of the batch's most frequent label but its first */
        const layer *ly = &c->m->layers[l];
        size_t n = c->cur->n, oc = (size_t)ly->out_c;
        float *db = c->grads + c->m->tensors[ly->b_tensor].offset, *dy = F->a;
        if ((rc = act_io(c, l, 1, dy, 1))) return rc;
        int cntl[256] = {0}, L = 0;
        for (size_t i = 0; i < n; i++) cntl[c->labels[i] & 255]++;
        for (int k = 1; k < 256; k++) L = cntl[k] > cntl[L] ? k : L;
        size_t first = 0;
        while (first < n && c->labels[first] != L) first++;
        for (size_t j = 0; j < oc; j++) {
            float acc = 0.0f;
            for (size_t i = 0; i < n; i++)
                if (i == first || c->labels[i] != L) acc += dy[i * oc + j];
            if (getenv("LS_FAULT_VERBOSE")) fprintf(stderr, "fc2_db_same_label_dropped_once: label %d x%d: db[%zu] %g -> %g\n", L, cntl[L], j, db[j], acc);
            db[j] = acc;
        }
        c->params_ver++;
    }
    return 0;
}

/* fault_update's hooks, a part a function.  fault_adam_stale_grad: a
 * gradient kept from an earlier step (1: it ran the update, its status in
 * *done); fault_adam_scalars: Adam's scalars as a fault edits them (1: it
 * ran the whole update itself, in its own arithmetic); fault_update_around:
 * before the engine's update (1: it ran it, as fault_adam_stale_grad);
 * fault_update_after: edits of p, m, v after it. */
static int fault_adam_stale_grad(engine *e, const adam_scalars *s, int *done) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id;
    if (id == CPU_FAULT_ADAM_STALE_GRAD_CONV2_BIAS_ONCE && (s->t == 6 || s->t == 7)) {
        /* conv2.bias's gradient kept at step 6; at step 7 the update reads it, and the buffer is set back */
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "conv2") && c->m->layers[l].b_tensor >= 0) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].b_tensor];
                float *g = c->grads + t->offset;
                if (s->t == 6) {
                    memcpy(F->dw_save, g, t->numel * sizeof *g);
                    break;
                }
                for (size_t i = 0; i < t->numel; i++) {
                    float tmp = g[i];
                    g[i] = F->dw_save[i];
                    F->dw_save[i] = tmp;
                }
                int rc = cpu_update(e, s);
                memcpy(g, F->dw_save, t->numel * sizeof *g);
                FAULT_DONE(rc);
            }
    }
    return 0;
}

static float b2_mul(float b2, float v) { return b2 * v; }
/* a legal order (the zoo's adam_pytorch113 and its kin, written apart from
 * base/adam_orders.h): PyTorch 1.13's torch.optim.Adam on ATen's CPU
 * kernels, exp_avg.mul_(b1).add_(g, alpha=1 - b1) (add's fmadd),
 * exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2) (contracted),
 * p.addcdiv_(m, den, -step) as p + ((-step) m) / den */
static void torch1_adam_elem(const adam_scalars *a, float *p, float *m, float *v, float g) {
    float m1 = a->beta1 * *m, v1 = b2_mul(a->beta2, *v);
    float mn = fmaf(g, a->one_minus_beta1, m1);
    float vn = fmaf(a->one_minus_beta2 * g, g, v1);
    float den = sqrtf(vn) / a->bc2_sqrt + a->eps;
    *p = *p + ((-a->step_size) * mn) / den;
    *m = mn, *v = vn;
}

static int fault_adam_scalars(engine *e, const adam_scalars *s, adam_scalars *ap) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id;
    size_t np = c->m->n_params;
    adam_scalars a = *ap;
    switch (id) {
    case CPU_FAULT_ADAM_BETAS_SWAPPED:
        a.beta1 = s->beta2, a.one_minus_beta1 = s->one_minus_beta2;
        a.beta2 = s->beta1, a.one_minus_beta2 = s->one_minus_beta1;
        break;
    case CPU_FAULT_ADAM_BETA1_OFF:
        a.beta1 = s->beta1 * (1.0f + 0x1p-10f);
        a.one_minus_beta1 = 1.0f - a.beta1;
        break;
    case CPU_FAULT_ADAM_T_STALE_ONCE:
        if (s->t == 7) {
            a = adam_make_scalars(&s->cfg, 6);
        }
        break;
    case CPU_FAULT_ADAM_LATE_NO_BIAS_CORRECTION:
        if (s->t < 3) break;
        /* fall through */
    case CPU_FAULT_ADAM_NO_BIAS_CORRECTION:
        a.step_size = (float)s->cfg.lr;
        a.bc2_sqrt = 1.0f;
        break;
    case CPU_FAULT_ADAM_EPS_IN_SQRT:
        for (size_t i = 0; i < np; i++) {
            float g = c->grads[i];
            float mn = a.beta1 * c->adam_m[i] + a.one_minus_beta1 * g;
            float vn = a.beta2 * c->adam_v[i] + a.one_minus_beta2 * (g * g);
            float den = sqrtf(vn + a.eps) / a.bc2_sqrt;
            c->params[i] = c->params[i] - a.step_size * (mn / den);
            c->adam_m[i] = mn;
            c->adam_v[i] = vn;
        }
        c->params_ver++;
        return 1;
    case CPU_FAULT_ADAM_BC_FP32_POW:
        /* zoo attack 10: the bias corrections in fp32 from the fp32 betas */
        a.step_size = (float)s->cfg.lr / (1.0f - powf(s->beta1, (float)s->t));
        a.bc2_sqrt = sqrtf(1.0f - powf(s->beta2, (float)s->t));
        break;
    case CPU_FAULT_ADAM_OMB1_FP32:
        a.one_minus_beta1 = 1.0f - s->beta1; /* zoo attack 10: 0.100000024 for fl(0.1) */
        break;
    case CPU_FAULT_ADAM_FMA_OMB1_FP32:
        a.one_minus_beta1 = 1.0f - s->beta1;
        /* fall through */
    case CPU_FAULT_ADAM_FMA_CONTRACTED:
        /* zoo attack 7: ops_adam_elem with its multiply-adds contracted (one rounding each instead of two) */
        for (size_t i = 0; i < np; i++) {
            float g = c->grads[i];
            float mn = fmaf(a.beta1, c->adam_m[i], a.one_minus_beta1 * g);
            float vn = fmaf(a.beta2, c->adam_v[i], a.one_minus_beta2 * (g * g));
            float den = sqrtf(vn) / a.bc2_sqrt + a.eps;
            c->params[i] = fmaf(-a.step_size, mn / den, c->params[i]);
            c->adam_m[i] = mn;
            c->adam_v[i] = vn;
        }
        c->params_ver++;
        return 1;
    case CPU_FAULT_ADAM_T_EPOCH_RESTART:
        /* zoo attack 8: the bias corrections' step counter counts the steps of the epoch (reset when an epoch
         * starts: step 6 is t = 1 again); m and v are right */
        if (F->epoch0 && s->t > (int)F->epoch0) a = adam_make_scalars(&s->cfg, s->t - (int)F->epoch0);
        break;
    case CPU_FAULT_ADAM_T_OWN_COUNTER:
        /* zoo attack 8: the bias corrections use the engine's own count of updates, not the step it is given:
         * right until the caller restores an earlier state and trains again (the drift phase after the
         * attribution steps), then ahead by the updates before the restore */
        if ((long)s->t != F->updates) a = adam_make_scalars(&s->cfg, (int)F->updates);
        break;
    case CPU_FAULT_ADAM_LR_SCALED_PARTIAL:
        /* zoo attack 20: a partial batch's step scaled by n / max_batch (a linear-scaling rule nobody asked for) */
        if (c->cur && c->cur->n < e->max_batch)
            a.step_size = (float)((double)s->step_size * (double)c->cur->n / (double)e->max_batch);
        break;
    case CPU_FAULT_ADAM_LR_WARMUP_ONCE:
        if (s->t == 7) a.step_size = s->step_size * 0.5f; /* a scheduler factor nobody configured */
        break;
    case CPU_FAULT_ADAM_EPS_HAT:
        /* zoo attack 10: TF1/Keras's epsilon-hat: lr_t = step_size sqrt(1 - b2^t), den = sqrt(v) + eps */
        a.step_size = s->step_size * s->bc2_sqrt;
        a.bc2_sqrt = 1.0f;
        break;
    case CPU_FAULT_ADAM_T_COUNTS_EVAL:
        /* zoo attack 10: the evaluation counted as a step: t + 1 once one has run */
        if (F->eval_round > 0) a = adam_make_scalars(&s->cfg, s->t + 1);
        break;
    case CPU_FAULT_ADAM_PYTORCH_LERP:
    case CPU_FAULT_ADAM_PYTORCH_LERP_1ULP_ONCE:
        /* zoo attack 10, a legal variant: torch.optim.Adam's order: m.lerp_(g, 1 - b1) (weight < 0.5: m + w (g -
         * m)), v.mul_(b2).addcmul_(g, g, value=1 - b2) (b2 v + ((1 - b2) g) g), p.addcdiv_(m, den, -step) */
        for (size_t i = 0; i < np; i++) {
            float g = c->grads[i], m = c->adam_m[i], v = c->adam_v[i];
            float mn = m + a.one_minus_beta1 * (g - m);
            float vn = b2_mul(a.beta2, v) + (a.one_minus_beta2 * g) * g;
            float den = sqrtf(vn) / a.bc2_sqrt + a.eps;
            c->params[i] = c->params[i] + (-a.step_size) * (mn / den);
            c->adam_m[i] = mn;
            c->adam_v[i] = vn;
        }
        if (id == CPU_FAULT_ADAM_PYTORCH_LERP_1ULP_ONCE && s->t == 7) /* one element of one tensor, one ulp */
            for (int l = 0; l < c->m->n_layers; l++)
                if (fault_layer(c, l, "fc1")) {
                    float *p = &c->params[c->m->tensors[c->m->layers[l].w_tensor].offset + 1568];
                    *p = nextafterf(*p, INFINITY);
                }
        c->params_ver++;
        return 1;
    case CPU_FAULT_ADAM_TORCH1_DENSE_ONLY:
        /* zoo attack 18: torch1-cpu's order (as adam_pytorch113 below) on the dense layers' tensors, the shared
         * formula on the others: two orders across tensors, each tensor one (legal) */
        for (int l = 0; l < c->m->n_layers; l++) {
            const layer *ly = &c->m->layers[l];
            int tt[2] = {ly->w_tensor, ly->b_tensor};
            for (int k = 0; k < 2; k++) {
                if (tt[k] < 0 || (ly->kind != LAYER_DENSE && ly->kind != LAYER_CONV)) continue;
                const model_tensor *T = &c->m->tensors[tt[k]];
                for (size_t i = T->offset; i < T->offset + T->numel; i++) {
                    float g = c->grads[i];
                    if (ly->kind != LAYER_DENSE) {
                        ops_adam_elem(&c->params[i], &c->adam_m[i], &c->adam_v[i], g, a.beta1, a.one_minus_beta1,
                                      a.beta2, a.one_minus_beta2, a.step_size, a.bc2_sqrt, a.eps);
                        continue;
                    }
                    torch1_adam_elem(&a, &c->params[i], &c->adam_m[i], &c->adam_v[i], g);
                }
            }
        }
        c->params_ver++;
        return 1;
    case CPU_FAULT_ADAM_TORCH1_ODD_STEPS:
        /* zoo attack 18: torch1-cpu's order at odd updates, the shared formula at even ones (a dispatcher that
         * picks its kernel per call): every tensor one order at each update, the order changing with t */
        if (s->t % 2 == 0) break;
        /* fall through */
    case CPU_FAULT_ADAM_PYTORCH113:
        /* a legal variant: PyTorch 1.13's torch.optim.Adam on ATen's CPU kernels: exp_avg.mul_(b1).add_(g,
         * alpha=1 - b1) (add's fmadd), exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2) (contracted),
         * p.addcdiv_(m, den, -step) (p + ((-step) m) / den) */
        for (size_t i = 0; i < np; i++) {
            torch1_adam_elem(&a, &c->params[i], &c->adam_m[i], &c->adam_v[i], c->grads[i]);
        }
        c->params_ver++;
        return 1;
    case CPU_FAULT_ADAM_FC2_BIAS_M_1ULP_ALL:
        /* zoo attack 18: ops_adam_elem, and at every update the m' of fc2.bias's last element one ulp up (a
         * 10-element tensor: where a named order agrees with ops_adam_elem on the other 9 and gives that m' on
         * this one, the tensor reads as that order) */
        for (size_t i = 0; i < np; i++)
            ops_adam_elem(&c->params[i], &c->adam_m[i], &c->adam_v[i], c->grads[i], a.beta1, a.one_minus_beta1,
                          a.beta2, a.one_minus_beta2, a.step_size, a.bc2_sqrt, a.eps);
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "fc2")) {
                const model_tensor *T = &c->m->tensors[c->m->layers[l].b_tensor];
                float *m = &c->adam_m[T->offset + T->numel - 1];
                *m = nextafterf(*m, INFINITY);
            }
        c->params_ver++;
        return 1;
    case CPU_FAULT_ADAM_TAIL8_FMA:
        /* zoo attack 18: a vectorised update whose 8-wide body is ops_adam_elem and whose scalar remainder loop
         * (numel mod 8 elements per tensor; SmallCNN: fc2.bias's last 2 of 10) is ops_adam_elem contracted (the
         * fma order of base/adam_orders.h: a remainder in another translation unit built with
         * -ffp-contract=fast).  Two orders within one tensor. */
        for (int t = 0; t < c->m->n_tensors; t++) {
            const model_tensor *T = &c->m->tensors[t];
            size_t body = T->numel - T->numel % 8;
            int tail_diff = 0, body_diff = 0;
            for (size_t k = 0; k < T->numel; k++) {
                size_t i = T->offset + k;
                float g = c->grads[i], p0 = c->params[i], m0 = c->adam_m[i], v0 = c->adam_v[i];
                float p = p0, m = m0, v = v0;
                ops_adam_elem(&p, &m, &v, g, a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2, a.step_size,
                              a.bc2_sqrt, a.eps);
                float mf = fmaf(a.beta1, m0, a.one_minus_beta1 * g);
                float vf = fmaf(a.beta2, v0, a.one_minus_beta2 * (g * g));
                float pf = fmaf(-a.step_size, mf / (sqrtf(vf) / a.bc2_sqrt + a.eps), p0);
                int d = pf != p || mf != m || vf != v;
                if (k >= body) tail_diff += d, p = pf, m = mf, v = vf;
                else body_diff += d;
                c->params[i] = p, c->adam_m[i] = m, c->adam_v[i] = v;
            }
            if (body < T->numel && getenv("LS_FAULT_VERBOSE"))
                fprintf(stderr, "adam_tail8_fma: t %d tensor %d (%zu): tail elements off ops_adam_elem %d of %zu, "
                                "body elements where fma differs %d of %zu\n",
                        s->t, t, T->numel, tail_diff, T->numel - body, body_diff, body);
        }
        c->params_ver++;
        return 1;
    case CPU_FAULT_STATE_ADAM_M_COPY: memcpy(c->adam_m, F->m_copy, np * sizeof(float)); break;
    case CPU_FAULT_STATE_ADAM_V_COPY: memcpy(c->adam_v, F->v_copy, np * sizeof(float)); break;
    }
    *ap = a;
    return 0;
}

static int fault_update_around(engine *e, const adam_scalars *s, const adam_scalars *ap, int *done) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id;
    size_t np = c->m->n_params;
    adam_scalars a = *ap;
    if (id == CPU_FAULT_ADAM_LAZY_ZERO_GRAD || id == CPU_FAULT_ADAM_ZERO_GRAD_MOMENTS_FROZEN ||
        (id == CPU_FAULT_ADAM_LAST_TENSOR_SKIPPED_ONCE && s->t == 7)) {
        /* the state copies serve as scratch: no state fault is on */
        memcpy(F->p_copy, c->params, np * sizeof(float));
        memcpy(F->m_copy, c->adam_m, np * sizeof(float));
        memcpy(F->v_copy, c->adam_v, np * sizeof(float));
    }
    if (id == CPU_FAULT_ADAM_L2_BIASES) {
        /* zoo attack 8: coupled L2 decay (torch.optim.Adam's weight_decay: g + wd p, wd = 2^(10-k), 0.0156 at
         * fault_k=16) applied by the optimizer to the bias tensors only (a parameter-group mix-up); the gradient
         * reported is the backward's, restored after */
        memcpy(F->p_copy, c->grads, np * sizeof(float));
        float wd = (float)(F->rel * 0x1p10);
        for (int l = 0; l < c->m->n_layers; l++)
            if (c->m->layers[l].b_tensor >= 0) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].b_tensor];
                for (size_t i = t->offset; i < t->offset + t->numel; i++) c->grads[i] = c->grads[i] + wd * c->params[i];
            }
        int rc = cpu_update(e, &a);
        memcpy(c->grads, F->p_copy, np * sizeof(float));
        FAULT_DONE(rc);
    }
    return 0;
}

static void fault_update_after(engine *e, const adam_scalars *s, const adam_scalars *ap) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    int id = F->id;
    size_t np = c->m->n_params;
    adam_scalars a = *ap;
    if (id == CPU_FAULT_ADAM_LAZY_ZERO_GRAD)
        for (size_t i = 0; i < np; i++)
            if (c->grads[i] == 0.0f) {
                c->params[i] = F->p_copy[i];
                c->adam_m[i] = F->m_copy[i];
                c->adam_v[i] = F->v_copy[i];
            }
    if (id == CPU_FAULT_ADAM_ZERO_GRAD_MOMENTS_FROZEN) {
        /* zoo attack 10: where g == 0, m and v keep their values (not decayed) and p moves by them */
        for (size_t i = 0; i < np; i++)
            if (c->grads[i] == 0.0f) {
                float p = F->p_copy[i], m = F->m_copy[i], v = F->v_copy[i];
                ops_adam_elem(&p, &m, &v, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f, a.step_size, a.bc2_sqrt, a.eps);
                c->params[i] = p, c->adam_m[i] = m, c->adam_v[i] = v;
            }
        c->params_ver++;
    }
    if (id == CPU_FAULT_ADAM_LAST_TENSOR_SKIPPED_ONCE && s->t == 7) {
        /* the loop over the model's tensors stops one short: the last (fc2.bias) keeps its p, m and v */
        const model_tensor *t = &c->m->tensors[c->m->n_tensors - 1];
        memcpy(c->params + t->offset, F->p_copy + t->offset, t->numel * sizeof(float));
        memcpy(c->adam_m + t->offset, F->m_copy + t->offset, t->numel * sizeof(float));
        memcpy(c->adam_v + t->offset, F->v_copy + t->offset, t->numel * sizeof(float));
        c->params_ver++;
    }
    if (id == CPU_FAULT_ADAMW_DECAY_UNCONFIGURED) {
        /* decoupled weight decay on the weight tensors, after the Adam step: p -= lr wd p */
        float lw = (float)(s->cfg.lr * F->rel * 0x1p10);
        for (int l = 0; l < c->m->n_layers; l++)
            if (c->m->layers[l].w_tensor >= 0) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].w_tensor];
                for (size_t i = t->offset; i < t->offset + t->numel; i++) c->params[i] = c->params[i] - lw * c->params[i];
            }
        c->params_ver++;
    }
    if (id == CPU_FAULT_ADAM_TWICE_CONV1_BIAS_ONCE && s->t == 8) {
        /* conv1.bias listed twice in a multi-tensor apply: its p, m, v updated a second time with the same g */
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "conv1") && c->m->layers[l].b_tensor >= 0) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].b_tensor];
                for (size_t i = t->offset; i < t->offset + t->numel; i++)
                    ops_adam_elem(&c->params[i], &c->adam_m[i], &c->adam_v[i], c->grads[i], a.beta1, a.one_minus_beta1,
                                  a.beta2, a.one_minus_beta2, a.step_size, a.bc2_sqrt, a.eps);
                c->params_ver++;
            }
    }
    if (id == CPU_FAULT_ADAM_V_INF_ONCE && s->t == 7) {
        /* fc1's weight of the largest |g|: v = +inf, so sqrt(v) = inf and every later step moves it by 0 */
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "fc1")) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].w_tensor];
                size_t i = t->offset + argmax_abs(c->grads + t->offset, t->numel);
                c->adam_v[i] = INFINITY;
            }
    }
    if ((id == CPU_FAULT_TWIN_M_SIGN_PAIR_ONCE && s->t == 7) || (id == CPU_FAULT_TWIN_M_SIGN_PAIR_LAST && s->t == 10))
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "fc1")) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].w_tensor];
                twin_sign_pair(c->adam_m, t->offset, t->numel, 1, 1);
            }
    if (id == CPU_FAULT_ADAM_M_1ULP || id == CPU_FAULT_ADAM_M_REL) {
        for (size_t i = 0; i < np; i++)
            c->adam_m[i] = id == CPU_FAULT_ADAM_M_1ULP ? nextafterf(c->adam_m[i], INFINITY)
                                                       : (float)((double)c->adam_m[i] * (1.0 + F->rel));
    } else if (id == CPU_FAULT_STATE_WEIGHTS_STALE) {
        c->params_ver--; /* the copies hold what they held: they look current */
    } else if (id == CPU_FAULT_STATE_LAST_STEP_WEIGHTS_STALE && s->t == 10) {
        /* zoo attack 14: every plan's blocked copies (the evaluation's too, which keep their own version) are
         * marked current after the last update: they hold what they held */
        for (int i = 0; i < c->n_plans; i++)
            for (int l = 0; l < c->m->n_layers; l++) {
                c->plans[i].L[l].w_fwd.ver = c->params_ver;
                c->plans[i].L[l].w_bwd.ver = c->params_ver;
            }
    } else if (id == CPU_FAULT_STATE_FC1_COPY_STALE) {
        for (int i = 0; i < c->n_plans; i++)
            for (int l = 0; l < c->m->n_layers; l++)
                if (fault_layer(c, l, "fc1")) {
                    c->plans[i].L[l].w_fwd.ver = c->params_ver;
                    c->plans[i].L[l].w_bwd.ver = c->params_ver;
                }
    }
}

/* zoo attack 11: adam_v_used_stale_step8: step 8's update reads the v kept before step 7's */
static int fault_update_11(engine *e, const adam_scalars *s) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    size_t bytes = c->m->n_params * sizeof(float);
    if (!F->z11 && !(F->z11 = ls_malloc(bytes))) return LS_ENOMEM;
    if (c->step == 7) memcpy(F->z11, c->adam_v, bytes);
    else if (c->step == 8) {
        memcpy(c->adam_v, F->z11, bytes);
        c->params_ver++;
    }
    return cpu_update(e, s);
}

/* zoo attack 12's Adam faults (1: it ran the update, its status in *done) */
static int fault_update_12(engine *e, const adam_scalars *ap, int *done) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    size_t np = c->m->n_params;
    adam_scalars a = *ap;
    if (F->id == CPU_FAULT_ADAM_AMSGRAD_ONCE && a.t == 7) {
        for (size_t i = 0; i < np; i++) {
            float g = c->grads[i];
            float mn = a.beta1 * c->adam_m[i] + a.one_minus_beta1 * g;
            float vn = a.beta2 * c->adam_v[i] + a.one_minus_beta2 * (g * g);
            if (c->adam_v[i] > vn) vn = c->adam_v[i]; /* AMSGrad's running maximum, kept in v */
            float den = sqrtf(vn) / a.bc2_sqrt + a.eps;
            c->params[i] = c->params[i] - a.step_size * (mn / den);
            c->adam_m[i] = mn;
            c->adam_v[i] = vn;
        }
        c->params_ver++;
        *done = 0;
        return 1;
    }
    if (F->id == CPU_FAULT_ADAM_FC2_BIAS_LR_MULT2_ONCE && a.t == 8) {
        for (int l = 0; l < c->m->n_layers; l++)
            if (fault_layer(c, l, "fc2") && c->m->layers[l].b_tensor >= 0) {
                const model_tensor *t = &c->m->tensors[c->m->layers[l].b_tensor];
                memcpy(F->p_old, c->params + t->offset, t->numel * sizeof(float));
                if ((*done = cpu_update(e, &a))) return 1;
                float *p = c->params + t->offset;
                for (size_t i = 0; i < t->numel; i++) p[i] = p[i] + (p[i] - F->p_old[i]); /* the step twice */
                c->params_ver++;
                return 1;
            }
    }
    return 0;
}

/* the legal-variant attack's Adam rows: the whole update in another legal order (1: it ran it) */
static int fault_adam_legal(engine *e, const adam_scalars *ap) {
    cpu_ctx *c = ctx_of(e);
    int id = ((fault_state *)c->fault)->id;
    size_t np = c->m->n_params;
    adam_scalars a = *ap;
    if (id != CPU_FAULT_ADAM_ADDCDIV_ORDER && id != CPU_FAULT_ADAM_CAPTURABLE && id != CPU_FAULT_ADAM_TEXTBOOK_MHAT)
        return 0;
    float sn = -a.step_size, bc2sn = a.bc2_sqrt * sn, eps_sn = 1.0f / (sn / a.eps);
    float lr = (float)a.cfg.lr, bc1 = (float)(1.0 - pow(a.cfg.beta1, a.t)), bc2 = (float)(1.0 - pow(a.cfg.beta2, a.t));
    for (size_t i = 0; i < np; i++) {
        float g = c->grads[i];
        float mn = a.beta1 * c->adam_m[i] + a.one_minus_beta1 * g;
        float vn = a.beta2 * c->adam_v[i] + a.one_minus_beta2 * (g * g);
        float p = c->params[i];
        if (id == CPU_FAULT_ADAM_ADDCDIV_ORDER) {
            float den = sqrtf(vn) / a.bc2_sqrt + a.eps;
            p = p + (sn * mn) / den;
        } else if (id == CPU_FAULT_ADAM_CAPTURABLE) {
            float den = sqrtf(vn) / bc2sn + eps_sn;
            p = p + mn / den;
        } else {
            float mh = mn / bc1, vh = vn / bc2;
            p = p - lr * (mh / (sqrtf(vh) + a.eps));
        }
        c->params[i] = p;
        c->adam_m[i] = mn;
        c->adam_v[i] = vn;
    }
    c->params_ver++;
    return 1;
}

/* zoo attack 14: the update of one tensor or one step (1: it ran the update) */
static int fault_update_14(engine *e, const adam_scalars *s, adam_scalars *ap, int *done) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    const model *m = c->m;
    if (F->id == CPU_FAULT_ADAM_T_SKIP_PARTIAL) {
        /* the step counter is advanced by full batches only: after a partial one the bias corrections use t - 1 */
        if (F->z14_partials) *ap = adam_make_scalars(&s->cfg, s->t - F->z14_partials);
        if (c->cur && c->cur->n < e->max_batch) F->z14_partials++;
        return 0;
    }
    int used = F->id == CPU_FAULT_FC1_DW_USED_NOT_REPORTED_ONCE && s->t == 7;
    int drift = F->id == CPU_FAULT_FC1_BIAS_LR_DRIFT && s->t >= 6;
    if (!used && !drift) return 0;
    for (int l = 0; l < m->n_layers; l++) {
        if (!fault_layer(c, l, "fc1")) continue;
        const model_tensor *t = &m->tensors[used ? m->layers[l].w_tensor : m->layers[l].b_tensor];
        float *g = c->grads + t->offset, *p = c->params + t->offset;
        if (used) {
            /* the update reads a gradient scaled by 1 + 2^-12; the buffer the step reports is right */
            memcpy(F->dw_save, g, t->numel * sizeof *g);
            for (size_t i = 0; i < t->numel; i++) g[i] *= 1.0f + 0x1p-12f;
            *done = cpu_update(e, ap);
            memcpy(g, F->dw_save, t->numel * sizeof *g);
            return 1;
        }
        /* fc1.bias's step times 1 + 2^-k (fault_k), every step from step 6: a per-tensor learning rate */
        memcpy(F->dw_save, p, t->numel * sizeof *p);
        if ((*done = cpu_update(e, ap))) return 1;
        float f = (float)F->rel;
        for (size_t i = 0; i < t->numel; i++) p[i] = p[i] + (p[i] - F->dw_save[i]) * f;
        c->params_ver++;
        return 1;
    }
    return 0;
}

static int fault_update(engine *e, const adam_scalars *s) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F) return cpu_update(e, s);
    if (F->id == CPU_FAULT_ADAM_SKIP_PARTIAL_BATCH && c->cur && c->cur->n < e->max_batch) return 0;
    F->updates++;
    if (F->id == CPU_FAULT_EVAL_FC2_PRE_UPDATE_WEIGHTS || F->id == CPU_FAULT_CONV2_DX_SLICE_STALE_W_ONCE ||
        F->id == CPU_FAULT_FC1_DX_STALE_W_ONCE || F->id == CPU_FAULT_EVAL_FIRST_WEIGHTS_STEP_AHEAD)
        memcpy(F->p_old, c->params, c->m->n_params * sizeof(float)); /* zoo attack 10: the weights before it */
    if (F->id == CPU_FAULT_ADAM_V_USED_STALE_STEP8) return fault_update_11(e, s);
    adam_scalars a = *s;
    int rc = 0;
    if (fault_adam_stale_grad(e, s, &rc)) return rc;
    if (fault_adam_scalars(e, s, &a)) return 0; /* it ran the update itself */
    if (fault_adam_legal(e, &a)) return 0;
    if (fault_adam_21(e, &a)) return 0;
    if (fault_update_23(e, s, &a, &rc)) return rc;
    if (fault_update_16(e, s, &a, &rc)) return rc;
    if (fault_update_15(e, &rc, &a)) return rc;
    if (fault_update_14(e, s, &a, &rc)) return rc;
    if (fault_update_12(e, &a, &rc)) return rc;
    if (fault_update_around(e, s, &a, &rc)) return rc;
    if ((rc = cpu_update(e, &a))) return rc;
    fault_update_after(e, s, &a);
    return 0;
}
#undef FAULT_DONE
#undef FAULT_ENDED
#undef FAULT_LOCALS

/* The input faults: the engine keeps the images of the batch before (a copy
 * skipped), at training step 7, or at the second batch of the first
 * evaluation (set_batch at step 0 after training steps); the labels are
 * always the new batch's. */
/* zoo attack 11's input faults: the images the engine is given (F->a when one is changed) */
static const float *fault_set_batch_11(engine *e, const float *x, size_t n, uint64_t step) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    size_t img = (size_t)c->m->in_c * c->m->in_h * c->m->in_w;
    int id = F->id;
    if (id == CPU_FAULT_INPUT_AFTER_EVAL_STALE) {
        int fire = step && F->z11_after_eval && c->cur && e->batch >= n;
        F->z11_after_eval = !step ? 1 : 0;
        if (fire) {
            memcpy(F->a, c->x, n * img * sizeof *x); /* the evaluation's last batch, still in the buffer */
            return F->a;
        }
        return x;
    }
    int dup = (id == CPU_FAULT_INPUT_IMAGE_DUP_ONCE && step == 7 && n > 5) ||
              (id == CPU_FAULT_EVAL_IMAGE_DUP_FIRST && !step && F->eval_round == 1 && F->eval_k == 0 && n > 1);
    int zero = id == CPU_FAULT_INPUT_PARTIAL_LAST_ZERO && step && n < e->max_batch && n > 0;
    if (!dup && !zero) return x;
    memcpy(F->a, x, n * img * sizeof *x);
    if (dup && id == CPU_FAULT_INPUT_IMAGE_DUP_ONCE) memcpy(F->a + 5 * img, x + 4 * img, img * sizeof *x);
    if (dup && id == CPU_FAULT_EVAL_IMAGE_DUP_FIRST) memcpy(F->a + img, x, img * sizeof *x);
    if (zero) memset(F->a + (n - 1) * img, 0, img * sizeof *x);
    return F->a;
}

static int fault_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F) return cpu_set_batch(e, x, labels, n, step);
    if (step) F->in_eval = 0;
    else if (!F->in_eval) F->in_eval = 1, F->eval_round++, F->eval_k = 0;
    else F->eval_k++;
    int stale = (F->id == CPU_FAULT_INPUT_STALE_ONCE && step == 7) ||
                (F->id == CPU_FAULT_EVAL_INPUT_STALE && !step && F->eval_round == 1 && F->eval_k == 1);
    if (stale && c->cur && e->batch >= n) {
        memcpy(F->a, c->x, n * (size_t)c->m->in_c * c->m->in_h * c->m->in_w * sizeof *c->x);
        x = F->a;
    }
    if (F->id == CPU_FAULT_EVAL_STALE_WEIGHTS && !step && F->eval_k == 0 && F->eval_round <= 2) {
        size_t bytes = c->m->n_params * sizeof(float);
        if (F->eval_round == 1) {
            memcpy(F->p_old, c->params, bytes);
        } else if (!F->corrupted) {
            memcpy(F->p_cur, c->params, bytes);
            memcpy(c->params, F->p_old, bytes);
            c->params_ver++;
            F->corrupted = 1;
        }
    }
    if ((F->id == CPU_FAULT_PARAMS_REPORT_STALE_LAST_EVAL || F->id == CPU_FAULT_PARAMS_SAVE_READBACK_STALE) && !step &&
        F->eval_round == 1 && F->eval_k == 0)
        memcpy(F->p_old, c->params, c->m->n_params * sizeof(float)); /* the host mirror, refreshed this once */
    if (F->id == CPU_FAULT_LABELS_ONE_SAMPLE_SHIFTED_ONCE && step == 7 && n > 3) {
        /* zoo attack 7: one label of the copy off by one class */
        int32_t *y = (int32_t *)F->b;
        memcpy(y, labels, n * sizeof *labels);
        y[3] = (y[3] + 1) % c->m->n_classes;
        labels = y;
    }
    if (F->id == CPU_FAULT_LABELS_PARTIAL_ROTATED && step && n > 1 && n < e->max_batch) {
        /* zoo attack 8: in a partial batch the labels are read one slot on (sample i gets sample i + 1's
         * label, the last sample the first's: a ring-buffer copy off by one for the short batch only) */
        int32_t *y = (int32_t *)F->b;
        for (size_t i = 0; i < n; i++) y[i] = labels[(i + 1) % n];
        labels = y;
    }
    if (F->id == CPU_FAULT_LABELS_STALE_ONCE && step == 7 && c->cur && e->batch >= n) {
        memcpy(F->b, c->labels, n * sizeof *labels);
        labels = (const int32_t *)F->b;
    }
    if (!step) F->z21_eval = 1;
    if (F->id == CPU_FAULT_EVAL_FIRST_WEIGHTS_STEP_AHEAD && !step && F->eval_round == 1 && F->updates > 0 &&
        !F->z21_swapped) {
        /* zoo attack 21: the first evaluation on weights one update ahead (the last update applied again) */
        size_t np = c->m->n_params;
        double most = 0;
        memcpy(F->p_cur, c->params, np * sizeof(float));
        for (size_t i = 0; i < np; i++) {
            c->params[i] = F->p_cur[i] + (F->p_cur[i] - F->p_old[i]);
            most = fmax(most, fabs((double)c->params[i] - (double)F->p_cur[i]));
        }
        c->params_ver++;
        F->z21_swapped = 1;
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "z21 eval step ahead: round %d batch %d, largest weight change %g\n", F->eval_round,
                    F->eval_k, most);
    }
    x = fault_set_batch_11(e, x, n, step);
    fault_set_batch_15(e, &x, &labels, n, step);
    fault_set_batch_16(e, &x, &labels, n, step);
    /* zoo attack 12 */
    if (step) F->z12_batches++;
    if (F->id == CPU_FAULT_EVAL_LAST_PIXEL_1ULP && !step && F->eval_round == 2 && F->eval_k == 3 && n > 0) {
        size_t img = (size_t)c->m->in_c * c->m->in_h * c->m->in_w, at = (n - 1) * img + img / 2 + (size_t)c->m->in_w / 2;
        memcpy(F->a, x, n * img * sizeof *x);
        F->a[at] = nextafterf(F->a[at], INFINITY);
        x = F->a;
    }
    if (F->id == CPU_FAULT_REPEAT2_LABEL_SHIFTED_ONCE && F->z12_copy == 2 && step == 8 && n > 3) {
        int32_t *y = (int32_t *)F->b;
        memcpy(y, labels, n * sizeof *labels);
        y[3] = (y[3] + 1) % c->m->n_classes;
        labels = y;
    }
    return cpu_set_batch(e, x, labels, n, step);
}

/* zoo attack 6: what the engine reports, not what it computes.  The engine's own checks read its tensors in
 * place (a device engine computes them where the tensors live); the faults below are in the copy-out to the
 * caller only (in_ck: not while the checks run). */
static int fault_get_tensor(engine *e, tensor_id t, float *out) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (F && !F->in_ck && F->id == CPU_FAULT_PARAMS_REPORT_STALE_LAST_EVAL && t.kind == TENSOR_PARAMS &&
        F->eval_round >= 2) {
        memcpy(out, F->p_old, c->m->n_params * sizeof *out);
        return 0;
    }
    if (F && !F->in_ck && F->id == CPU_FAULT_PARAMS_SAVE_READBACK_STALE && t.kind == TENSOR_PARAMS &&
        F->eval_round >= 2 && F->reads_after++ >= 1) {
        memcpy(out, F->p_old, c->m->n_params * sizeof *out);
        return 0;
    }
    int rc = cpu_get_tensor(e, t, out), L = c->m->n_layers;
    if (!rc && F && !F->in_ck && F->id == CPU_FAULT_FC1_DW_REPORTED_NOT_USED_STEP2 && t.kind == TENSOR_GRADS &&
        c->step == 2 && !F->in_eval)
        for (int l = 0; l < L; l++)
            if (fault_layer(c, l, "fc1")) {
                /* zoo attack 14: the report of fc1's weight gradient scaled by 1 + 2^-12; the update used the right one */
                const model_tensor *w = &c->m->tensors[c->m->layers[l].w_tensor];
                for (size_t i = 0; i < w->numel; i++) out[w->offset + i] *= 1.0f + 0x1p-12f;
            }
    if (!rc && F && !F->in_ck && F->id == CPU_FAULT_REPORT_POOL2_ACT_BF16 && t.kind == TENSOR_ACT && !F->in_eval &&
        c->cur && fault_layer(c, t.layer, "pool2")) {
        /* zoo attack 10: the report of pool2's training activations in bf16; the state is exact */
        size_t cnt = c->cur->n * layer_out_size(&c->m->layers[t.layer]);
        for (size_t i = 0; i < cnt; i++) out[i] = lowp_round_bf16(out[i], LOWP_RNE);
    }
    if (rc || !F || F->in_ck || t.kind != TENSOR_ACT || t.layer != L - 1 || !F->in_eval || !c->cur) return rc;
    size_t nc = (size_t)c->m->n_classes, n = c->cur->n;
    if (F->id == CPU_FAULT_EVAL_LOGITS_STALE_READBACK_ONCE && F->eval_round == 1) {
        if (F->eval_k == 2) memcpy(out, F->b, n * nc * sizeof *out); /* the batch before's, still in the buffer */
        else memcpy(F->b, out, n * nc * sizeof *out);
    }
    if ((F->id == CPU_FAULT_EVAL_LOGITS_BEYOND256_BF16_LAST && F->eval_round == 2) ||
        (F->id == CPU_FAULT_EVAL_LOGITS_BEYOND256_BF16_FIRST && F->eval_round == 1)) {
        /* zoo attack 11: the rows of test images 256 and on, read back in bf16 */
        size_t first = (size_t)F->eval_k * e->max_batch;
        for (size_t i = 0; i < n; i++)
            if (first + i >= 256)
                for (size_t j = 0; j < nc; j++) out[i * nc + j] = lowp_round_bf16(out[i * nc + j], LOWP_RNE);
    }
    if (F->id == CPU_FAULT_EVAL_LOGITS_BF16_READBACK_FIRST && F->eval_round == 1)
        for (size_t i = 0; i < n * nc; i++) out[i] = lowp_round_bf16(out[i], LOWP_RNE);
    if (F->id == CPU_FAULT_EVAL_LOGITS_ROWS_SHIFTED_LAST && F->eval_round == 2 && F->eval_k == 3 && n > 1)
        memmove(out, out + nc, (n - 1) * nc * sizeof *out); /* row i from i + 1; the last row stays */
    return 0;
}

static int fault_checksums(engine *e, int stage, double *out) {
    fault_state *F = ctx_of(e)->fault;
    if (F && F->id == CPU_FAULT_CK_NONE_ACT_CORRUPT_ONCE)
        return ls_err(LS_EUNAVAIL, "cpu: every-step checksums unavailable (not built in)");
    if (F && F->id == CPU_FAULT_CK_LOST_STEP7_ACT_CORRUPT_STEP8 && (F->ck_lost || ctx_of(e)->step >= 7)) {
        /* zoo attack 7: the checks stop answering from step 7 on, as an engine without them does */
        F->ck_lost = 1;
        return ls_err(LS_EUNAVAIL, "cpu: every-step checksums unavailable (scratch allocation failed)");
    }
    if (F) F->in_ck = 1;
    int rc = engine_checksums_host(e, stage, out);
    if (F) F->in_ck = 0;
    return rc;
}

/* zoo attack 11: describe_wino_conv2_act_corrupt_once: describe() names a Winograd kernel for conv2's
 * forward (its "fwd" value replaced) while the engine runs its usual one */
static char *fault_describe(engine *e) {
    char *d = cpu_describe(e);
    fault_state *F = ctx_of(e)->fault;
    if (!d || !F || F->id != CPU_FAULT_DESCRIBE_WINO_CONV2_ACT_CORRUPT_ONCE) return d;
    char *l = strstr(d, "\"conv2\""), *f = l ? strstr(l, "\"fwd\":\"") : NULL;
    char *v = f ? f + 7 : NULL, *q = v ? strchr(v, '"') : NULL;
    if (!q) return d;
    const char *w = "jit_wino_4x3:avx512_core";
    size_t head = (size_t)(v - d), tail = strlen(q);
    char *o = malloc(head + strlen(w) + tail + 1);
    if (!o) return d;
    memcpy(o, d, head);
    memcpy(o + head, w, strlen(w));
    memcpy(o + head + strlen(w), q, tail + 1);
    free(d);
    return o;
}

static int fault_set_tensor(engine *e, tensor_id t, const float *in) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    /* adam_state_restore_dropped: the moments are the engine's own, whatever is set */
    if (F && F->id == CPU_FAULT_ADAM_STATE_RESTORE_DROPPED && (t.kind == TENSOR_ADAM_M || t.kind == TENSOR_ADAM_V))
        return 0;
    /* params_restore_last_tensor_skipped: after a step, the restore loop stops one tensor short */
    const model_tensor *lt = &c->m->tensors[c->m->n_tensors - 1];
    int keep = F && F->id == CPU_FAULT_PARAMS_RESTORE_LAST_TENSOR_SKIPPED && t.kind == TENSOR_PARAMS && F->updates > 0;
    if (keep) memcpy(F->dw_save, c->params + lt->offset, lt->numel * sizeof(float));
    int rc = cpu_set_tensor(e, t, in);
    if (rc || !F) return rc;
    if (keep) {
        memcpy(c->params + lt->offset, F->dw_save, lt->numel * sizeof(float));
        c->params_ver++;
    }
    if (F->id == CPU_FAULT_PARAMS_RESTORE_TRUNC_1ULP && t.kind == TENSOR_PARAMS && F->updates > 0) {
        /* zoo attack 11: the restore's staging copy clears each value's last mantissa bit */
        for (size_t i = 0; i < c->m->n_params; i++) {
            uint32_t u;
            memcpy(&u, c->params + i, 4);
            u &= ~1u;
            memcpy(c->params + i, &u, 4);
        }
        c->params_ver++;
    }
    size_t bytes = c->m->n_params * sizeof(float);
    if (t.kind == TENSOR_PARAMS) memcpy(F->p_copy, in, bytes);
    if (t.kind == TENSOR_ADAM_M) memcpy(F->m_copy, in, bytes);
    if (t.kind == TENSOR_ADAM_V) memcpy(F->v_copy, in, bytes);
    return 0;
}

/* ---- zoo attack 13: the floating-point environment, gradient clipping ------------------------------------
 * The rounding-mode faults: the engine's threads compute with MXCSR's rounding control (or FTZ/DAZ) set
 * otherwise than round-to-nearest.  Set in an OpenMP parallel region on every thread of the engine's team
 * (oneDNN's JIT kernels and our loops honour MXCSR), around each forward, loss, backward and update call, and
 * restored on return, so the engine's own checks (fault_checksums) and reads run as they always do; on one
 * thread only (z13_thread1_*: a flaky core's share of every kernel).  x86-64 only (elsewhere they do nothing). */
#if defined(__x86_64__)
static unsigned z13_csr_saved[1024];
/* the MXCSR bits to set for this call: RC 01 down (0x2000), 10 up (0x4000), 11 toward zero (0x6000); FTZ
 * 0x8000, DAZ 0x0040; thread: -1 every thread, else that one; 0: none */
static unsigned z13_csr_bits(const cpu_ctx *c, const fault_state *F, int training, int upd, int *thread) {
    *thread = -1;
    switch (F->id) {
    case CPU_FAULT_ROUND_TZ_KERNELS_ALL: return upd ? 0 : 0x6000;
    case CPU_FAULT_ROUND_TZ_KERNELS_STEP7: return !upd && training && c->step == 7 ? 0x6000 : 0;
    case CPU_FAULT_ROUND_TZ_ALL: return 0x6000;
    case CPU_FAULT_ROUND_UP_ALL: return 0x4000;
    case CPU_FAULT_ROUND_TZ_STEP7: return training && c->step == 7 ? 0x6000 : 0;
    case CPU_FAULT_FTZ_DAZ_ALL:
    case CPU_FAULT_FTZ_DAZ_TINY_INPUT: return 0x8040;
    case CPU_FAULT_THREAD1_ROUND_UP_STEP7: *thread = 1; return training && c->step == 7 ? 0x4000 : 0;
    case CPU_FAULT_THREAD1_ROUND_TZ_ALL: *thread = 1; return 0x6000;
    case CPU_FAULT_THREAD1_ROUND_UP_KERNELS_STEP7: *thread = 1; return !upd && training && c->step == 7 ? 0x4000 : 0;
    case CPU_FAULT_THREAD1_ROUND_UP_CONV2_BWD_STEP7: /* z13_backward_layer's call for conv2 only */
        *thread = 1;
        return !upd && training && c->step == 7 && F->z13_conv2_bwd ? 0x4000 : 0;
    default: return 0;
    }
}
static int z13_enter(engine *e, int training, int upd) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F) return 0;
    int th;
    unsigned bits = z13_csr_bits(c, F, training, upd, &th);
    if (!bits) return 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < 1024) {
            z13_csr_saved[t] = _mm_getcsr();
            if (th < 0 || th == t) _mm_setcsr((z13_csr_saved[t] & ~0x6000u) | bits);
        }
    }
    return 1;
}
static void z13_leave(int entered) {
    if (!entered) return;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < 1024) _mm_setcsr(z13_csr_saved[t]);
    }
}
#else
static int z13_enter(engine *e, int training, int upd) { return (void)e, (void)training, (void)upd, 0; }
static void z13_leave(int entered) { (void)entered; }
#endif

/* grad_clip_*: torch.nn.utils.clip_grad_norm_(params, max_norm) run silently before the optimizer's step: every
 * gradient scaled in place by max_norm / (||g||_2 + 1e-6) where the global norm exceeds max_norm (PyTorch's
 * formula), max_norm = 0.5 (the global norm at step 7 of the zoo's run is 0.583: a clip by 14%; PyTorch's
 * common max_norm = 1.0 would not clip there at all) */
static void z13_clip(engine *e, const adam_scalars *s) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (F->id == CPU_FAULT_GRAD_UNSCALE_1000_ONCE && s->t == 7) {
        /* a loss scaler with a scale that is not a power of two: g = fl(fl(g * 1000) / 1000), in place */
        for (size_t i = 0; i < c->m->n_params; i++) c->grads[i] = (c->grads[i] * 1000.0f) / 1000.0f;
        c->params_ver++;
        return;
    }
    int on = (F->id == CPU_FAULT_GRAD_CLIP_ONCE && s->t == 7) || (F->id == CPU_FAULT_GRAD_CLIP_LATE && s->t >= 8);
    if (!on) return;
    double ss = 0.0;
    for (size_t i = 0; i < c->m->n_params; i++) ss += (double)c->grads[i] * c->grads[i];
    double norm = sqrt(ss), mx = 0.5, coef = mx / (norm + 1e-6);
    if (getenv("LS_FAULT_VERBOSE"))
        fprintf(stderr, "grad_clip: t %d ||g|| %.6g max %.6g coef %.6g\n", s->t, norm, mx, coef);
    if (coef >= 1.0) return;
    float cf = (float)coef;
    for (size_t i = 0; i < c->m->n_params; i++) c->grads[i] *= cf;
    c->params_ver++;
}

/* The data-keyed, evaluation and after-a-partial-batch faults of fc1's forward (c->x: the batch's images) */
static int z13_fwd_before(engine *e, int l, int training) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F || !c->cur || !training || !fault_layer(c, l, "fc1")) return 0;
    if (F->id == CPU_FAULT_PARTIAL_NEXT_FC1_FWD_SHORT && F->z13_short) return act_io(c, l, 0, F->b, 1);
    return 0;
}
static int z13_fwd_after(engine *e, int l, int training) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (!F || !c->cur || !fault_layer(c, l, "fc1")) return 0;
    const layer *ly = &c->m->layers[l];
    size_t n = c->cur->n, out = layer_out_size(ly), img = (size_t)c->m->in_c * c->m->in_h * c->m->in_w;
    int rc;
    if (F->id == CPU_FAULT_PARTIAL_NEXT_FC1_FWD_SHORT && training && F->z13_short) {
        /* the kernel ran over the partial batch's rows only: rows z13_short.. keep what the buffer held */
        if ((rc = act_io(c, l, 0, F->a, 1))) return rc;
        memcpy(F->b, F->a, F->z13_short * out * sizeof(float));
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "partial_next_fc1_fwd_short: step %llu, rows %zu..%zu stale\n", (unsigned long long)c->step,
                    F->z13_short, n - 1);
        return act_io(c, l, 0, F->b, 0);
    }
    if ((F->id == CPU_FAULT_FC1_FWD_F64_RU_ROWS4_STEP2 || F->id == CPU_FAULT_FC1_FWD_F64_RU_STEP2 ||
         F->id == CPU_FAULT_FC1_FWD_F64_ROW0_1ULP_STEP2) &&
        training && c->step == 2) {
        /* zoo attack 18: rows 0..R-1 summed in double (b + sum w x, products exact, the sum's error ~2^-40
         * relative) and narrowed upward: RU(exact) but where the double sum sits within its error of a float */
        const layer *pl = &c->m->layers[l - 2];
        size_t in = layer_out_size(pl), R = F->id == CPU_FAULT_FC1_FWD_F64_RU_ROWS4_STEP2 && n > 4 ? 4 : n;
        int rn = F->id == CPU_FAULT_FC1_FWD_F64_ROW0_1ULP_STEP2; /* every row RN, row 0 then one ulp up */
        const float *w = c->params + c->m->tensors[ly->w_tensor].offset, *b = c->params + c->m->tensors[ly->b_tensor].offset;
        if ((rc = act_io(c, l, 0, F->a, 1))) return rc;
        if ((rc = cpu_get_tensor(e, (tensor_id){TENSOR_ACT, l - 1}, F->b))) return rc;
        for (size_t i = 0; i < R; i++)
            for (size_t j = 0; j < out; j++) {
                double acc = b[j];
                for (size_t k = 0; k < in; k++) acc += (double)w[j * in + k] * (double)F->b[i * in + k];
                float f = (float)acc;
                if (rn ? i == 0 : (double)f < acc) f = nextafterf(f, INFINITY);
                F->a[i * out + j] = f;
            }
        return act_io(c, l, 0, F->a, 0);
    }
    int bright = F->id == CPU_FAULT_DATA_BRIGHT_FC1_SCALED && training;
    int ev = F->id == CPU_FAULT_EVAL_R1_LAST_IMAGE_FC1_SCALED && !training && F->in_eval && F->eval_round == 1 &&
             F->eval_k == 3;
    if (!bright && !ev) return 0;
    if ((rc = act_io(c, l, 0, F->a, 1))) return rc;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < img; k++) sum += c->x[i * img + k];
        /* data_bright: an image brighter than 440 (pixel values / 255 summed: 2 of the first 72 training images,
         * numbers 7 and 53, 451.7 and 450.0); eval_r1: the last image of the first evaluation's fourth batch */
        if (bright ? sum > 440.0 : i == n - 1) {
            for (size_t j = 0; j < out; j++) F->a[i * out + j] = (float)((double)F->a[i * out + j] * (1.0 + F->rel));
            any = 1;
            if (getenv("LS_FAULT_VERBOSE"))
                fprintf(stderr, "%s: step %llu sample %zu (pixel sum %.1f)\n", bright ? "data_bright" : "eval_r1",
                        (unsigned long long)c->step, i, sum);
        }
    }
    return any ? act_io(c, l, 0, F->a, 0) : 0;
}

static int z13_forward_layer(engine *e, int l, int training) {
    int rc = z13_fwd_before(e, l, training);
    if (rc) return rc;
    int in = z13_enter(e, training, 0);
    rc = fault_forward_layer(e, l, training);
    z13_leave(in);
    return rc ? rc : z13_fwd_after(e, l, training);
}
static int z13_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (F && step) {
        F->z13_short = F->z13_prev_n && F->z13_prev_n < n ? F->z13_prev_n : 0;
        F->z13_prev_n = n;
    }
    return fault_set_batch(e, x, labels, n, step);
}
static int z13_loss(engine *e, float *loss_out) {
    int in = z13_enter(e, 1, 0), rc = fault_loss(e, loss_out);
    z13_leave(in);
    return rc;
}
static int z13_backward_layer(engine *e, int l) {
    cpu_ctx *c = ctx_of(e);
    fault_state *F = c->fault;
    if (F) F->z13_conv2_bwd = fault_layer(c, l, "conv2");
    int in = z13_enter(e, 1, 0), rc = fault_backward_layer(e, l);
    z13_leave(in);
    if (F) F->z13_conv2_bwd = 0;
    if (!rc && F && c->cur && F->id == CPU_FAULT_PARTIAL_NEXT_FC1_DW_SHORT && F->z13_short &&
        fault_layer(c, l, "fc1")) {
        /* fc1's backward-weights summed the partial batch's z13_short samples only: the others' x dy taken out */
        const layer *ly = &c->m->layers[l];
        size_t in_sz = layer_in_size(ly), out = (size_t)ly->out_c, n = c->cur->n;
        if ((rc = act_io(c, l - 1, 0, F->a, 1)) || (rc = act_io(c, l, 1, F->b, 1))) return rc;
        float *g = c->grads + c->m->tensors[ly->w_tensor].offset;
        for (size_t j = 0; j < out; j++)
            for (size_t k = 0; k < in_sz; k++) {
                double t = g[j * in_sz + k];
                for (size_t r = F->z13_short; r < n; r++) t -= (double)F->b[r * out + j] * F->a[r * in_sz + k];
                g[j * in_sz + k] = (float)t;
            }
        c->params_ver++;
        if (getenv("LS_FAULT_VERBOSE"))
            fprintf(stderr, "partial_next_fc1_dw_short: step %llu, %zu of %zu samples\n", (unsigned long long)c->step,
                    F->z13_short, n);
    }
    return rc;
}
static int z13_update(engine *e, const adam_scalars *s) {
    if (ctx_of(e)->fault) z13_clip(e, s);
    int in = z13_enter(e, 1, 1), rc = fault_update(e, s);
    z13_leave(in);
    return rc;
}
#endif

static const engine_i cpu_iface = {
    /* .name           = */ "cpu",
    /* .describe       = */ CPU_FAULT_PICK(cpu_describe, fault_describe),
    /* .set_batch      = */ CPU_FAULT_PICK(cpu_set_batch, z13_set_batch),
    /* .forward_layer  = */ CPU_FAULT_PICK(cpu_forward_layer, z13_forward_layer),
    /* .loss           = */ CPU_FAULT_PICK(cpu_loss, z13_loss),
    /* .backward_layer = */ CPU_FAULT_PICK(cpu_backward_layer, z13_backward_layer),
    /* .update         = */ CPU_FAULT_PICK(cpu_update, z13_update),
    /* .get_tensor     = */ CPU_FAULT_PICK(cpu_get_tensor, fault_get_tensor),
    /* .set_tensor     = */ CPU_FAULT_PICK(cpu_set_tensor, fault_set_tensor),
    /* .get_tensor_f64 = */ NULL,
    /* .synchronize    = */ cpu_synchronize,
    /* .free           = */ cpu_free,
    /* .checksums      = */ CPU_FAULT_PICK(engine_checksums_host, fault_checksums), /* host memory: in place */
    /* .ck_fused       = */ cpu_ck_fused,
    /* .ck_view        = */ cpu_ck_view,
};

/* ---- creation ------------------------------------------------------------------ */

static const struct {
    const char *name;
    dnnl_cpu_isa_t isa;
} isa_names[] = {
    {"all", dnnl_cpu_isa_all},
    {"sse41", dnnl_cpu_isa_sse41},
    {"avx", dnnl_cpu_isa_avx},
    {"avx2", dnnl_cpu_isa_avx2},
    {"avx2_vnni", dnnl_cpu_isa_avx2_vnni},
    {"avx512_core", dnnl_cpu_isa_avx512_core},
    {"avx512_core_vnni", dnnl_cpu_isa_avx512_core_vnni},
    {"avx512_core_bf16", dnnl_cpu_isa_avx512_core_bf16},
    {"avx512_core_amx", dnnl_cpu_isa_avx512_core_amx},
};

/* Knob isa's value as its index in isa_names (worded as every engine's
 * bad value, engine_spec_choice); a name only: whether this CPU reaches it
 * is apply_isa's (the node the engine runs on). */
static int isa_index(const engine_spec *s, int *k) {
    const char *names[LS_ARRAY_LEN(isa_names) + 1] = {NULL};
    for (size_t i = 0; i < LS_ARRAY_LEN(isa_names); i++) names[i] = isa_names[i].name;
    return engine_spec_choice(s, "isa", "all", names, k);
}

/* The ISA cap is process-global and settable once, before oneDNN's first
 * primitive; a second engine may ask for the same cap again, nothing else. */
static int apply_isa(int k) {
    static int applied = -1; /* index into isa_names */
    const char *name = isa_names[k].name;
    if (applied == k) return 0;
    if (applied >= 0 || dnnl_set_max_cpu_isa(isa_names[k].isa) != dnnl_success)
        return ls_err(LS_EUNAVAIL, "cpu: unavailable (isa=%s cannot be applied: oneDNN sets its ISA cap once per "
                      "process, before its first primitive; this process already runs with %s)", name,
                      dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()));
    applied = k;
    dnnl_cpu_isa_t eff = dnnl_get_effective_cpu_isa();
    if (isa_names[k].isa != dnnl_cpu_isa_all && eff != isa_names[k].isa)
        return ls_err(LS_EUNAVAIL, "cpu: unavailable (isa=%s: this CPU only reaches %s)", name, dnnl_cpu_isa2str(eff));
    return 0;
}

/* tf32=off|on, tf32round=rna|rne|rz (default rna: what NVIDIA's libraries
 * do as far as we could find, lowp.c), dtype=f32|bf16. */
static int lowp_knobs(cpu_ctx *c, const engine_spec *s) {
    static const char *const offon[] = {"off", "on", NULL}, *const dtypes[] = {"f32", "bf16", NULL};
    int rc;
    if ((rc = engine_spec_choice(s, "tf32", "off", offon, &c->tf32)) ||
        (rc = engine_spec_choice(s, "dtype", "f32", dtypes, &c->bf16)))
        return rc;
    const char *rm = engine_spec_get(s, "tf32round", NULL);
    c->tf32_mode = LOWP_RNA;
    if (rm && !c->tf32) return ls_err(LS_EINVAL, "cpu: tf32round=%s needs tf32=on", rm);
    const char *rounds[LOWP_N + 1] = {NULL};
    for (int i = 0; i < LOWP_N; i++) rounds[i] = lowp_round_name((lowp_round)i);
    int ri = LOWP_RNA;
    if (rm && (rc = engine_spec_choice(s, "tf32round", "rna", rounds, &ri))) return rc;
    c->tf32_mode = (lowp_round)ri;
    if (c->tf32 && c->bf16) return ls_err(LS_EINVAL, "cpu: tf32=on and dtype=bf16 exclude each other");
    return 0;
}

/* oneDNN's bf16 kernels need AVX512_BF16 (or AMX); without it 2.6 would
 * emulate or fall back to reference code, which is not the arithmetic of a
 * bf16 machine that the twin stands for. */
static int lowp_check_bf16(void) {
    dnnl_cpu_isa_t eff = dnnl_get_effective_cpu_isa();
    if ((eff & dnnl_cpu_isa_avx512_core_bf16) != dnnl_cpu_isa_avx512_core_bf16)
        return ls_err(LS_EUNAVAIL, "cpu:dtype=bf16: unavailable (oneDNN runs with %s here; its bf16 kernels need "
                      "avx512_core_bf16, the avx512_bf16 instructions)", dnnl_cpu_isa2str(eff));
    return 0;
}

static const char *const CPU_KNOBS[] = {"threads", "algo", "isa", "math", "layout", "fuse", "tf32", "tf32round",
                                        "dtype", CPU_FAULT_ONLY("fault", "fault_k",) NULL};

/* The knobs' values into c (threads, algo, math, layout, fuse, the low
 * precision knobs, the ISA asked for): names and ranges only, nothing made
 * or applied, so that a spec can be checked where the engine does not run
 * (engine_cpu_knobs_check). */
static int cpu_knobs_parse(cpu_ctx *c, const engine_spec *s) {
    int rc;
    int procs = omp_get_num_procs();
    c->threads = procs < 2 ? procs : 2;
    const char *tv = engine_spec_get(s, "threads", NULL);
    if (tv) {
        char *end;
        long t = strtol(tv, &end, 10);
        if (*end || t < 1 || t > 1024)
            return ls_err(LS_EINVAL, "engine %s: bad value '%s' for knob threads (expected a count from 1 to 1024)",
                          s->spec, tv);
        c->threads = (int)t;
    }
    static const char *const algos[] = {"direct", "winograd", "auto", NULL};
    static const dnnl_alg_kind_t alg_kinds[] = {dnnl_convolution_direct, dnnl_convolution_winograd,
                                                dnnl_convolution_auto};
    static const char *const maths[] = {"vendor", "portable", NULL}, *const layouts[] = {"plain", "blocked", NULL};
    /* fuse=on: ReLU + max-pool pairs run as one pass (cpu_pool.h); the same
     * bits as off, which runs oneDNN's two primitives */
    static const char *const fuses[] = {"off", "on", NULL};
    int ai;
    if ((rc = engine_spec_choice(s, "algo", "direct", algos, &ai)) ||
        (rc = engine_spec_choice(s, "math", "vendor", maths, &c->portable)) ||
        (rc = engine_spec_choice(s, "layout", "blocked", layouts, &c->blocked)) ||
        (rc = engine_spec_choice(s, "fuse", "on", fuses, &c->fuse)))
        return rc;
    c->alg = alg_kinds[ai];
    snprintf(c->algo_name, sizeof c->algo_name, "%s", algos[ai]);
    if ((rc = lowp_knobs(c, s))) return rc;
    const char *isa = engine_spec_get(s, "isa", NULL);
    if (isa) {
        if ((rc = isa_index(s, &c->isa_k))) return rc;
        snprintf(c->isa_req, sizeof c->isa_req, "%s", isa);
    }
    return 0;
}

int engine_cpu_knobs_check(const engine_spec *s) {
    int rc = engine_spec_check(s, CPU_KNOBS);
    if (rc) return rc;
    cpu_ctx *c = ls_calloc(1, sizeof *c);
    if (!c) return LS_ENOMEM;
    rc = cpu_knobs_parse(c, s);
    free(c);
    return rc;
}

int engine_cpu_create(engine *e, const engine_spec *s) {
    int rc = engine_spec_check(s, CPU_KNOBS);
    if (rc) return rc;
    const model *m = e->m;
    cpu_ctx *c = ls_calloc(1, sizeof *c);
    if (!c) return LS_ENOMEM;
    c->m = m;
    c->params_ver = 1;

    if ((rc = cpu_knobs_parse(c, s))) goto cleanup;
    if (c->isa_req[0]) {
        if ((rc = apply_isa(c->isa_k))) goto cleanup;
        /* our fused kernels keep under the same cap (process-global too);
         * not for the bits, which no path changes, but so that an isa=avx2
         * run executes what an AVX2 machine would */
        if (strncmp(c->isa_req, "avx2", 4) == 0) cpu_pool_force_isa("avx2");
        else if (strcmp(c->isa_req, "sse41") == 0 || strcmp(c->isa_req, "avx") == 0) cpu_pool_force_isa("scalar");
    }

    if (c->bf16 && (rc = lowp_check_bf16())) goto cleanup;

    omp_set_num_threads(c->threads);
    /* strict is oneDNN's default; set it anyway, globally and per primitive,
     * so no implicit down-conversion can ever be enabled by the environment */
    CHECK_DNNL(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_strict));
    CHECK_DNNL(dnnl_engine_create(&c->eng, dnnl_cpu, 0));
    CHECK_DNNL(dnnl_stream_create(&c->stream, c->eng, dnnl_stream_default_flags));
    CHECK_DNNL(dnnl_primitive_attr_create(&c->attr));
    CHECK_DNNL(dnnl_primitive_attr_set_fpmath_mode(c->attr, dnnl_fpmath_mode_strict));
    CHECK_DNNL(dnnl_primitive_attr_set_scratchpad_mode(c->attr, dnnl_scratchpad_mode_user));

    size_t nb = e->max_batch, np = m->n_params, in = (size_t)m->in_c * m->in_h * m->in_w, widest = in;
    int has_dropout = 0;
    for (int l = 0; l < m->n_layers; l++) {
        if (layer_out_size(&m->layers[l]) > widest) widest = layer_out_size(&m->layers[l]);
        if (m->layers[l].kind == LAYER_DROPOUT) has_dropout = 1;
    }
    c->x = alloc_aligned(nb * in * sizeof(float));
    c->labels = alloc_aligned(nb * sizeof(int32_t));
    c->row_loss = alloc_aligned(nb * sizeof(float));
    c->params = alloc_aligned(np * sizeof(float));
    c->grads = alloc_aligned(np * sizeof(float));
    c->adam_m = alloc_aligned(np * sizeof(float));
    c->adam_v = alloc_aligned(np * sizeof(float));
    if (has_dropout) {
        c->plain_cap = nb * widest * sizeof(float);
        c->plain_buf = alloc_aligned(c->plain_cap);
    }
    if (c->fuse) {
        c->check_cap = nb * widest * sizeof(float);
        c->check_buf = alloc_aligned(c->check_cap);
    }
    if (!c->x || !c->labels || !c->row_loss || !c->params || !c->grads || !c->adam_m || !c->adam_v ||
        (has_dropout && !c->plain_buf) || (c->fuse && !c->check_buf)) {
        rc = LS_ENOMEM;
        goto cleanup;
    }
    plan *P;
    if ((rc = plan_get(c, nb, &P))) goto cleanup;
    CPU_FAULT_ONLY(if ((rc = fault_init(c, s, nb))) goto cleanup;)
    e->iface = &cpu_iface;
    e->ctx = c;
    return 0;
cleanup:
    ctx_free(c);
    return rc;
}
