/*
 * checksums.c — the checksum vector's layout and its host implementation
 * (checksums.h).  Every sum is base/checksum_ops.h's, in double; the
 * tensors are the engine's own, read through its table in plain layouts,
 * so a stale internal copy (a blocked weight not refreshed, say) shows as
 * a relation that does not hold.
 */
#include "engines/checksums.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/checksum_ops.h"
#include "base/ops_elem.h"
#include "base/util.h"

const char *ck_phase_name(int phase) {
    switch (phase) {
    case CK_FWD: return "forward";
    case CK_BWD_DATA: return "backward-data";
    case CK_BWD_W: return "backward-weights";
    case CK_BWD_B: return "backward-weights (bias)";
    }
    return "?";
}

uint64_t ck_get_u64(const double *slot) {
    uint64_t v;
    memcpy(&v, slot, 8);
    return v;
}

void ck_put_u64(double *slot, uint64_t v) { memcpy(slot, &v, 8); }

uint64_t ck_digest(const float *x, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += ck_digest_term(x[i], i);
    return s;
}

void ck_layout_make(ck_layout *L, const model *m, size_t n) {
    memset(L, 0, sizeof *L);
    size_t at = CK_HDR;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        int lin = ly->kind == LAYER_CONV || ly->kind == LAYER_DENSE;
        L->is_rel[l] = lin;
        size_t per = lin ? 3 : 2;
        if (ly->kind == LAYER_CONV) {
            L->cnt[l][CK_FWD] = n * (size_t)ly->out_c;
            L->cnt[l][CK_BWD_DATA] = l > 0 ? n * (size_t)ly->in_c : 0;
        } else if (ly->kind == LAYER_DENSE) {
            L->cnt[l][CK_FWD] = (size_t)ly->out_c;
            L->cnt[l][CK_BWD_DATA] = l > 0 ? (size_t)ly->in_c : 0;
        } else {
            L->cnt[l][CK_FWD] = 1;
            L->cnt[l][CK_BWD_DATA] = l > 0 ? 1 : 0;
        }
        if (lin) L->cnt[l][CK_BWD_W] = L->cnt[l][CK_BWD_B] = (size_t)ly->out_c;
        for (int ph = 0; ph < CK_NPHASE; ph++) {
            L->off[l][ph] = at;
            at += per * L->cnt[l][ph];
        }
    }
    L->loss_off = at;
    at += 1 + 2 * n * (size_t)m->n_classes;
    L->adam_off = at;
    at += 2 * (size_t)m->n_tensors;
    L->digest_off = at;
    at += 3 * (size_t)m->n_tensors;
    L->total = at;
}

/* ---- scratch ------------------------------------------------------------ */

typedef struct {
    size_t n, cap_n;            /* batch the buffers are sized for */
    float *act[MODEL_MAX_LAYERS], *dact[MODEL_MAX_LAYERS], *input;
    float *p, *g, *m, *v;       /* the engine's flat buffers now */
    float *p0, *m0, *v0;        /* snapshot: the state the step computed with */
    int have_snapshot;
    double *s, *sa;             /* window sums, sized for the largest layer */
    size_t s_cap;
} ck_state;

static void state_free_bufs(ck_state *S) {
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) {
        free(S->act[l]);
        free(S->dact[l]);
        S->act[l] = S->dact[l] = NULL;
    }
    free(S->input);
    S->input = NULL;
}

static void state_free(void *p) {
    ck_state *S = p;
    if (!S) return;
    state_free_bufs(S);
    free(S->p), free(S->g), free(S->m), free(S->v), free(S->p0), free(S->m0), free(S->v0);
    free(S->s), free(S->sa);
    free(S);
}

/* Scratch for window sums: the largest of n*C*k*k (forward), n*OC*k*k
 * (backward-data), n*OH*OW (backward-weights) and dense widths. */
static size_t sums_needed(const model *m, size_t n) {
    size_t mx = 1;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        size_t kk = (size_t)ly->k * ly->k, t[4] = {n * ly->in_c * kk, n * ly->out_c * kk,
                                                   n * (size_t)ly->out_h * ly->out_w,
                                                   (size_t)(ly->in_c > ly->out_c ? ly->in_c : ly->out_c) + n};
        if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) continue;
        for (int i = 0; i < 4; i++) mx = t[i] > mx ? t[i] : mx;
    }
    return mx;
}

static int state_get(engine *e, ck_state **out) {
    const model *m = e->m;
    ck_state *S = e->ck_state;
    if (!S) {
        S = e->ck_state = ls_calloc(1, sizeof *S);
        if (!S) return LS_ENOMEM;
        e->ck_state_free = state_free;
        size_t np = m->n_params;
        S->p = ls_malloc(np * 4), S->g = ls_malloc(np * 4), S->m = ls_malloc(np * 4), S->v = ls_malloc(np * 4);
        S->p0 = ls_malloc(np * 4), S->m0 = ls_malloc(np * 4), S->v0 = ls_malloc(np * 4);
        S->s_cap = sums_needed(m, e->max_batch);
        S->s = ls_malloc(S->s_cap * 8), S->sa = ls_malloc(S->s_cap * 8);
        if (!S->p || !S->g || !S->m || !S->v || !S->p0 || !S->m0 || !S->v0 || !S->s || !S->sa) return LS_ENOMEM;
    }
    if (!S->input) {
        size_t B = e->max_batch;
        S->input = ls_malloc(B * (size_t)m->in_c * m->in_h * m->in_w * 4);
        if (!S->input) return LS_ENOMEM;
        for (int l = 0; l < m->n_layers; l++) {
            size_t z = B * layer_out_size(&m->layers[l]) * 4;
            S->act[l] = ls_malloc(z), S->dact[l] = ls_malloc(z);
            if (!S->act[l] || !S->dact[l]) return LS_ENOMEM;
        }
    }
    *out = S;
    return LS_OK;
}

/* The engine's tensors, through its own table (no wrapper timing). */
static int fetch(engine *e, ck_state *S, int backward) {
    const engine_i *I = e->iface;
    int rc = I->get_tensor(e, (tensor_id){TENSOR_INPUT, 0}, S->input);
    for (int l = 0; l < e->m->n_layers && !rc; l++) {
        rc = I->get_tensor(e, (tensor_id){TENSOR_ACT, l}, S->act[l]);
        if (!rc && backward) rc = I->get_tensor(e, (tensor_id){TENSOR_DACT, l}, S->dact[l]);
    }
    if (!rc) rc = I->get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, S->p);
    if (!rc && backward) rc = I->get_tensor(e, (tensor_id){TENSOR_GRADS, 0}, S->g);
    return rc;
}

/* ---- relations of conv and dense ---------------------------------------- */

static void put_rel(double *o, double lhs, double lhs_a, double rhs, double a) {
    o[0] = lhs - rhs;
    o[1] = a;
    o[2] = lhs_a;
}

static ck_conv_dims dims_of(const layer *ly) {
    ck_conv_dims d = {ly->in_c, ly->in_h, ly->in_w, ly->out_c, ly->out_h, ly->out_w, ly->k, ly->pad};
    return d;
}

static void conv_fwd(ck_state *S, const layer *ly, const float *w, const float *b, const float *x, const float *y,
                     size_t n, double *o) {
    ck_conv_dims d = dims_of(ly);
    size_t kk = (size_t)d.k * d.k, ckk = d.c * kk, P = (size_t)d.oh * d.ow, HW = (size_t)d.h * d.w;
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < d.c; c++)
            for (size_t t = 0; t < kk; t++)
                ck_window_sum(x + (i * d.c + c) * HW, &d, (int)(t / d.k), (int)(t % d.k), &S->s[c * kk + t],
                              &S->sa[c * kk + t]);
        for (int oc = 0; oc < d.oc; oc++) {
            double ls, la, rhs = P * (double)b[oc], a = P * fabs((double)b[oc]);
            ck_sum(y + (i * d.oc + oc) * P, P, 1, &ls, &la);
            ck_dot_acc(&rhs, &a, w + oc * ckk, 1, S->s, S->sa, 1, ckk);
            put_rel(o + 3 * (i * d.oc + oc), ls, la, rhs, a);
        }
    }
}

static void conv_bwd_data(ck_state *S, const layer *ly, const float *w, const float *dy, const float *dx, size_t n,
                          double *o) {
    ck_conv_dims d = dims_of(ly);
    size_t kk = (size_t)d.k * d.k, ckk = d.c * kk, P = (size_t)d.oh * d.ow, HW = (size_t)d.h * d.w;
    for (size_t i = 0; i < n; i++) {
        for (int oc = 0; oc < d.oc; oc++)
            for (size_t t = 0; t < kk; t++)
                ck_window_sum_dy(dy + (i * d.oc + oc) * P, &d, (int)(t / d.k), (int)(t % d.k), &S->s[oc * kk + t],
                                 &S->sa[oc * kk + t]);
        for (int c = 0; c < d.c; c++) {
            double ls, la, rhs = 0, a = 0;
            ck_sum(dx + (i * d.c + c) * HW, HW, 1, &ls, &la);
            for (int oc = 0; oc < d.oc; oc++)
                ck_dot_acc(&rhs, &a, w + oc * ckk + c * kk, 1, S->s + oc * kk, S->sa + oc * kk, 1, kk);
            put_rel(o + 3 * (i * d.c + c), ls, la, rhs, a);
        }
    }
}

/* Sum over (c, kh, kw) of dW[o] = sum over samples and positions of
 * dy[n, o, p] Z[n, p], Z = the input summed over every element that meets
 * position p (all channels, all kernel offsets). */
static void conv_bwd_w(ck_state *S, const layer *ly, const float *x, const float *dy, const float *dw,
                       const float *db, size_t n, double *ow_, double *ob) {
    ck_conv_dims d = dims_of(ly);
    size_t kk = (size_t)d.k * d.k, ckk = d.c * kk, P = (size_t)d.oh * d.ow, HW = (size_t)d.h * d.w;
    for (size_t i = 0; i < n; i++)
        for (int r = 0; r < d.oh; r++)
            for (int q = 0; q < d.ow; q++) {
                double z = 0, za = 0;
                for (int c = 0; c < d.c; c++)
                    for (int kh = 0; kh < d.k; kh++) {
                        int rr = r + kh - d.pad;
                        if (rr < 0 || rr >= d.h) continue;
                        for (int kw = 0; kw < d.k; kw++) {
                            int qq = q + kw - d.pad;
                            if (qq < 0 || qq >= d.w) continue;
                            double v = x[(i * d.c + c) * HW + rr * d.w + qq];
                            z += v;
                            za += fabs(v);
                        }
                    }
                S->s[i * P + r * d.ow + q] = z;
                S->sa[i * P + r * d.ow + q] = za;
            }
    for (int oc = 0; oc < d.oc; oc++) {
        double ls, la, rhs = 0, a = 0, bs = 0, ba = 0;
        ck_sum(dw + oc * ckk, ckk, 1, &ls, &la);
        for (size_t i = 0; i < n; i++) {
            double s1, a1;
            ck_dot_acc(&rhs, &a, dy + (i * d.oc + oc) * P, 1, S->s + i * P, S->sa + i * P, 1, P);
            ck_sum(dy + (i * d.oc + oc) * P, P, 1, &s1, &a1);
            bs += s1, ba += a1;
        }
        put_rel(ow_ + 3 * oc, ls, la, rhs, a);
        put_rel(ob + 3 * oc, db[oc], fabs((double)db[oc]), bs, ba);
    }
}

static void dense_all(ck_state *S, const layer *ly, const float *w, const float *b, const float *x, const float *y,
                      const float *dy, const float *dx, const float *dw, const float *db, size_t n, double *o[4]) {
    size_t in = (size_t)ly->in_c, out = (size_t)ly->out_c;
    double *xs = S->s, *xa = S->sa;
    for (size_t k = 0; k < in; k++) ck_sum(x + k, n, in, &xs[k], &xa[k]);
    for (size_t j = 0; j < out; j++) {
        double ls, la, rhs = n * (double)b[j], a = n * fabs((double)b[j]);
        ck_sum(y + j, n, out, &ls, &la);
        ck_dot_acc(&rhs, &a, w + j * in, 1, xs, xa, 1, in);
        put_rel(o[CK_FWD] + 3 * j, ls, la, rhs, a);
    }
    if (!dy) return;
    /* backward: Ds (out) = dy summed over the batch, Rx (n) = x summed over features */
    double *ds = S->s, *da = S->sa, *rx = S->s + out, *ra = S->sa + out;
    for (size_t j = 0; j < out; j++) ck_sum(dy + j, n, out, &ds[j], &da[j]);
    for (size_t i = 0; i < n; i++) ck_sum(x + i * in, in, 1, &rx[i], &ra[i]);
    if (dx && o[CK_BWD_DATA])
        for (size_t k = 0; k < in; k++) {
            double ls, la, rhs = 0, a = 0;
            ck_sum(dx + k, n, in, &ls, &la);
            ck_dot_acc(&rhs, &a, w + k, in, ds, da, 1, out);
            put_rel(o[CK_BWD_DATA] + 3 * k, ls, la, rhs, a);
        }
    for (size_t j = 0; j < out; j++) {
        double ls, la, rhs = 0, a = 0;
        ck_sum(dw + j * in, in, 1, &ls, &la);
        ck_dot_acc(&rhs, &a, dy + j, out, rx, ra, 1, n);
        put_rel(o[CK_BWD_W] + 3 * j, ls, la, rhs, a);
        put_rel(o[CK_BWD_B] + 3 * j, db[j], fabs((double)db[j]), ds[j], da[j]);
    }
}

/* ---- element-wise layers ------------------------------------------------ */

static double elem_fwd(engine *e, const layer *ly, int l, const float *x, const float *y, size_t n, int training) {
    size_t cnt = n * layer_out_size(ly), bad = 0;
    float scale = ly->kind == LAYER_DROPOUT ? (float)(1.0 / (1.0 - (double)ly->p)) : 1.0f;
    if (ly->kind == LAYER_MAXPOOL) {
        size_t HW = (size_t)ly->in_h * ly->in_w, P = (size_t)ly->out_h * ly->out_w;
        for (size_t nc = 0; nc < n * ly->in_c; nc++)
            for (int i = 0; i < ly->out_h; i++)
                for (int j = 0; j < ly->out_w; j++)
                    bad += ck_pool_bad(x + nc * HW, ly->in_w, i, j, y[nc * P + i * ly->out_w + j], NULL, 0, 0);
        return (double)bad;
    }
    for (size_t i = 0; i < cnt; i++) {
        if (ly->kind == LAYER_RELU) bad += ck_relu_fwd_bad(x[i], y[i]);
        else if (ly->kind == LAYER_FLATTEN) bad += ck_bits_differ(x[i], y[i]);
        else
            bad += ck_dropout_fwd_bad(x[i], y[i], training, e->seed, (uint32_t)e->step, (uint32_t)l, (uint32_t)i,
                                      ly->p, scale);
    }
    return (double)bad;
}

static double elem_bwd(engine *e, const layer *ly, int l, const float *x, const float *y, const float *dy,
                       const float *dx, size_t n) {
    size_t cnt = n * layer_out_size(ly), bad = 0;
    float scale = ly->kind == LAYER_DROPOUT ? (float)(1.0 / (1.0 - (double)ly->p)) : 1.0f;
    if (ly->kind == LAYER_MAXPOOL) {
        size_t HW = (size_t)ly->in_h * ly->in_w, P = (size_t)ly->out_h * ly->out_w;
        for (size_t nc = 0; nc < n * ly->in_c; nc++) {
            for (int i = 0; i < ly->out_h; i++)
                for (int j = 0; j < ly->out_w; j++)
                    bad += ck_pool_bad(x + nc * HW, ly->in_w, i, j, 0, dx + nc * HW, dy[nc * P + i * ly->out_w + j], 1);
            /* a floor-pooled odd edge gets no gradient */
            for (int r = 0; r < ly->in_h; r++)
                for (int q = 0; q < ly->in_w; q++)
                    if (r >= 2 * ly->out_h || q >= 2 * ly->out_w) bad += ck_bits_differ(0.0f, dx[nc * HW + r * ly->in_w + q]);
        }
        return (double)bad;
    }
    for (size_t i = 0; i < cnt; i++) {
        if (ly->kind == LAYER_RELU) bad += ck_relu_bwd_bad(y[i], dy[i], dx[i]);
        else if (ly->kind == LAYER_FLATTEN) bad += ck_bits_differ(dy[i], dx[i]);
        else bad += ck_dropout_bwd_bad(dy[i], dx[i], e->seed, (uint32_t)e->step, (uint32_t)l, (uint32_t)i, ly->p, scale);
    }
    (void)x;
    return (double)bad;
}

/* ---- stages ------------------------------------------------------------- */

static void layers_all(engine *e, ck_state *S, const ck_layout *L, int backward, int training, double *out) {
    const model *m = e->m;
    size_t n = e->batch;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *ly = &m->layers[l];
        const float *x = l ? S->act[l - 1] : S->input, *y = S->act[l];
        const float *dy = backward ? S->dact[l] : NULL, *dx = backward && l ? S->dact[l - 1] : NULL;
        if (ly->kind == LAYER_CONV || ly->kind == LAYER_DENSE) {
            const float *w = S->p + m->tensors[ly->w_tensor].offset, *b = S->p + m->tensors[ly->b_tensor].offset;
            const float *dw = S->g + m->tensors[ly->w_tensor].offset, *db = S->g + m->tensors[ly->b_tensor].offset;
            double *o[4];
            for (int ph = 0; ph < 4; ph++) o[ph] = L->cnt[l][ph] ? out + L->off[l][ph] : NULL;
            if (ly->kind == LAYER_DENSE) {
                dense_all(S, ly, w, b, x, y, dy, dx, dw, db, n, o);
                continue;
            }
            conv_fwd(S, ly, w, b, x, y, n, o[CK_FWD]);
            if (!backward) continue;
            if (dx) conv_bwd_data(S, ly, w, dy, dx, n, o[CK_BWD_DATA]);
            conv_bwd_w(S, ly, x, dy, dw, db, n, o[CK_BWD_W], o[CK_BWD_B]);
        } else {
            out[L->off[l][CK_FWD]] = elem_fwd(e, ly, l, x, y, n, training);
            if (dx) out[L->off[l][CK_BWD_DATA]] = elem_bwd(e, ly, l, x, y, dy, dx, n);
        }
    }
}

/* Per model tensor: PARAMS, ADAM_M, ADAM_V digests at out[3 t + 0, 1, 2]. */
static void digests(const model *m, const float *p, const float *mm, const float *v, double *out) {
    for (int t = 0; t < m->n_tensors; t++) {
        const model_tensor *T = &m->tensors[t];
        ck_put_u64(out + 3 * t, ck_digest(p + T->offset, T->numel));
        if (mm) ck_put_u64(out + 3 * t + 1, ck_digest(mm + T->offset, T->numel));
        if (v) ck_put_u64(out + 3 * t + 2, ck_digest(v + T->offset, T->numel));
    }
}

/* ops_adam_elem re-done from the snapshot (the step's p, m, v) and the
 * engine's gradient, per model tensor: elements whose p, m or v differ. */
static void adam_recheck(engine *e, ck_state *S, const ck_layout *L, double *out) {
    const model *m = e->m;
    const adam_scalars *a = &e->last_adam;
    for (int t = 0; t < m->n_tensors; t++) {
        const model_tensor *T = &m->tensors[t];
        double bad = 0, worst = 0;
        for (size_t i = T->offset; i < T->offset + T->numel; i++) {
            float p = S->p0[i], mm = S->m0[i], v = S->v0[i];
            ops_adam_elem(&p, &mm, &v, S->g[i], a->beta1, a->one_minus_beta1, a->beta2, a->one_minus_beta2,
                          a->step_size, a->bc2_sqrt, a->eps);
            int b = ck_bits_differ(p, S->p[i]) | ck_bits_differ(mm, S->m[i]) | ck_bits_differ(v, S->v[i]);
            if (b) {
                bad += 1;
                double d = fmax(fabs((double)p - S->p[i]), fmax(fabs((double)mm - S->m[i]), fabs((double)v - S->v[i])));
                worst = d > worst || d != d ? d : worst;
            }
        }
        out[L->adam_off + 2 * t] = bad;
        out[L->adam_off + 2 * t + 1] = worst;
    }
}

int engine_checksums_host(engine *e, int stage, double *out) {
    const model *m = e->m;
    const engine_i *I = e->iface;
    ck_state *S;
    int rc = state_get(e, &S);
    if (rc) return rc;
    ck_layout L;
    ck_layout_make(&L, m, e->batch);
    memset(out, 0, L.total * sizeof *out);
    out[0] = stage, out[1] = (double)e->batch, out[2] = (double)e->step;
    if (stage == CK_STAGE_UPDATE) {
        if (!S->have_snapshot) return ls_err(LS_EINVAL, "%s: checksums after an update with no step before", e->spec.spec);
        if ((rc = I->get_tensor(e, (tensor_id){TENSOR_PARAMS, 0}, S->p)) ||
            (rc = I->get_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, S->m)) ||
            (rc = I->get_tensor(e, (tensor_id){TENSOR_ADAM_V, 0}, S->v)))
            return rc;
        adam_recheck(e, S, &L, out);
        digests(m, S->p, S->m, S->v, out + L.digest_off);
        S->have_snapshot = 0;
        return LS_OK;
    }
    int backward = stage == CK_STAGE_STEP;
    if ((rc = fetch(e, S, backward))) return rc;
    layers_all(e, S, &L, backward, backward, out);
    if (!backward) {
        digests(m, S->p, NULL, NULL, out + L.digest_off);
        return LS_OK;
    }
    float loss = 0;
    if ((rc = I->get_tensor(e, (tensor_id){TENSOR_LOSS, 0}, &loss))) return rc;
    out[L.loss_off] = loss;
    const float *z = S->act[m->n_layers - 1], *dz = S->dact[m->n_layers - 1];
    size_t nz = e->batch * (size_t)m->n_classes;
    for (size_t i = 0; i < nz; i++) {
        out[L.loss_off + 1 + i] = z[i];
        out[L.loss_off + 1 + nz + i] = dz[i];
    }
    if ((rc = I->get_tensor(e, (tensor_id){TENSOR_ADAM_M, 0}, S->m0)) ||
        (rc = I->get_tensor(e, (tensor_id){TENSOR_ADAM_V, 0}, S->v0)))
        return rc;
    memcpy(S->p0, S->p, m->n_params * sizeof *S->p);
    S->have_snapshot = 1;
    digests(m, S->p0, S->m0, S->v0, out + L.digest_off);
    return LS_OK;
}
