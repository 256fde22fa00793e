/*
 * adam_orders.h — the legal fp32 evaluation orders of one Adam element
 * that the every-step Adam re-check recognises by name, bit for bit.
 *
 * The engines share ops_adam_elem (base/ops_elem.h) word for word, so a
 * clean engine's update is it bit for bit.  An engine built from another
 * source — PyTorch's own optimizer, a textbook transcription, the same
 * source compiled with FMA contraction — evaluates the same update in
 * another order, which moves some elements by an ulp or more within the
 * fp32 bound (base/adam_bound.h).  Within the bound is all the bound can
 * say; a fault of a few ulps is within it too.  These orders are sharper:
 * each is one exact fp32 formula, so an engine that runs it reproduces it
 * bit for bit on EVERY element, and the re-check (engines/checksums.c
 * adam_recheck; the cuda engine's k_ck_adam, k_ck_adam_orders) keeps, per
 * tensor, the mask of the orders that reproduce every differing element's
 * p, m AND v — and, where any element differs, every other element's too
 * (an engine runs its order everywhere; over the differing elements only,
 * a clean engine's one element one ulp off matched some order by chance in
 * 4% (p'), 22% (m'), 11% (v') of random states).  An element one ulp off
 * in such an engine reproduces no order (it is one ulp from the order its
 * neighbours follow) and clears the mask.
 *
 * Each order is written from its source, every line one IEEE operation
 * (fmaf one rounding), the parentheses the order; the scalars are those of
 * base/model's adam_scalars (each rounded once from double) plus lr, bc1 =
 * 1 - b1^t and bc2 = 1 - b2^t, each rounded once from double
 * (adam_order_scalars):
 *   torch-lerp   PyTorch 2.x torch.optim.Adam, single tensor (foreach=False,
 *                capturable=False), torch/optim/adam.py _single_tensor_adam:
 *                exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2)
 *                .addcmul_(grad, grad, value=1 - beta2); denom =
 *                (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps);
 *                param.addcdiv_(exp_avg, denom, value=-step_size), with
 *                ATen's element functors as written: lerp (weight < 0.5:
 *                m + w (g - m), else g - (g - m)(1 - w)), addcmul a + (s b) c,
 *                addcdiv a + s (b / c) (the CUDA functor's order), none
 *                contracted.
 *   torch-cpu    the same on ATen's CPU kernels: addcdiv there is
 *                self + value * t1 / t2 = p + ((-step) m) / den.
 *   torch-cpu-fma  the same with ATen's vectorised CPU lerp (lerp_vec:
 *                fmadd(w, g - m, m), at w >= 0.5 fmadd(w - 1, g - m, g)) and
 *                addcmul's multiply-add contracted (the AVX2 kernels are
 *                built with -mfma under GCC's default -ffp-contract=fast).
 *   torch-cuda   the same on ATen's CUDA kernels under nvcc's default
 *                --fmad=true: lerp fmaf(w, g - m, m) (w >= 0.5:
 *                fmaf(-(g - m), 1 - w, g)), addcmul fmaf(s g, g, b2 v), the
 *                division by the Python scalar bias_correction2_sqrt done as
 *                a multiplication by its fp32 reciprocal (div_true's
 *                CPU-scalar path), addcdiv fmaf(-step, m / den, p).
 *   addcdiv      ops_adam_elem's m and v, p by ATen's CPU addcdiv order
 *                p + ((-step) m) / den (what torch.addcdiv_(p, m, den,
 *                value=-step) makes of ops_adam_elem's last line).
 *   capturable   ops_adam_elem's m and v; p as torch/optim/adam.py's
 *                _multi_tensor_adam with capturable=True: step_size =
 *                -step (its reciprocal chain), den = sqrt(v) /
 *                (bc2_sqrt * step_size) + 1 / (step_size / eps), p + m / den
 *                (foreach addcdiv, value 1: exact), the two scalars rounded
 *                in fp32.
 *   textbook     Kingma and Ba, Algorithm 1: m and v as ops_adam_elem,
 *                m^ = m / bc1, v^ = v / bc2, p - lr (m^ / (sqrt(v^) + eps)).
 *   fma          ops_adam_elem compiled with contraction (GCC
 *                -ffp-contract=fast, nvcc --fmad=true): each multiply-add
 *                fused with its first product: m = fmaf(b1, m, (1 - b1) g),
 *                v = fmaf(b2, v, (1 - b2)(g g)), p = fmaf(-step, q, p).
 *   fma-alt      the same with the other product of each sum fused:
 *                m = fmaf(1 - b1, g, b1 m), v = fmaf(1 - b2, g g, b2 v) (which
 *                product a compiler fuses is its choice).
 *   torch1-cpu   PyTorch 1.x torch.optim.Adam on ATen's CPU kernels,
 *                measured bit for bit against a real build (Debian's
 *                python3-torch 1.13.1, CPU capability AVX2; foreach=False and
 *                True alike: scripts/torch_adam_orders.py, tests/test_train.c
 *                test_torch_adam_orders): exp_avg.mul_(beta1).add_(grad,
 *                alpha=1 - beta1), and ATen's add is fmadd(other, alpha,
 *                self): m = fmaf(1 - b1, g, b1 m); exp_avg_sq.mul_(beta2)
 *                .addcmul_(grad, grad, value=1 - b2) contracted: v =
 *                fmaf((1 - b2) g, g, b2 v); den = sqrt(v) / bc2_sqrt + eps;
 *                p + ((-step) m) / den (addcdiv's CPU order).  None of the
 *                orders above is it: m is fma-alt's, v torch-cpu-fma's.
 *
 * The zoo's legal rows (engines/cpu/cpu_faults.h: adam_pytorch_lerp,
 * adam_addcdiv_order, adam_capturable, adam_textbook_mhat,
 * adam_fma_contracted, adam_pytorch113, written apart from this file) are
 * each recognised as their own order.  Measured against PyTorch 1.13.1
 * (AVX2) here: its own Adam is torch1-cpu on every element (no other
 * order), and PyTorch 2.x's single-tensor Adam written with that build's
 * ops (lerp_, mul_, addcmul_, sqrt, /, add_, addcdiv_) is torch-cpu-fma on
 * every element, which confirms that reading of ATen's CPU kernels (1.13's;
 * 2.x's own build is not installed here).  torch-cuda rests on a reading of
 * the CUDA functors and div_true's reciprocal and of nvcc's contraction;
 * no device has run it: an engine an order misses is bounded as before
 * (SUSPECT within the bound), never called wrong by them.
 *
 * LS_HD (base/rng.h): the cuda engine's re-check kernels call it too.
 * Not here: the loops, the per-tensor AND (the re-checks), the judging
 * (checks/checksums.c judge_adam).
 */
#ifndef LS_ADAM_ORDERS_H
#define LS_ADAM_ORDERS_H

#include <math.h>

#include "base/rng.h"

enum {
    ADAM_ORDER_TORCH_LERP,
    ADAM_ORDER_TORCH_CPU,
    ADAM_ORDER_TORCH_CPU_FMA,
    ADAM_ORDER_TORCH_CUDA,
    ADAM_ORDER_ADDCDIV,
    ADAM_ORDER_CAPTURABLE,
    ADAM_ORDER_TEXTBOOK,
    ADAM_ORDER_FMA,
    ADAM_ORDER_FMA_ALT,
    ADAM_ORDER_TORCH1_CPU, /* appended: the bits before it keep their meaning in recorded masks */
    ADAM_ORDER_COUNT
};
/* every order's bit */
#define ADAM_ORDER_ALL ((1u << ADAM_ORDER_COUNT) - 1u)

/* The scalars the orders read: ADAMW's header (engines/checksums.h,
 * CK_ADAMW_HDR: b1, 1 - b1, b2, 1 - b2, step_size, bc2_sqrt, eps) then lr,
 * bc1, bc2. */
enum { ADAM_ORDER_NSC = 10 };
/* by value, for a kernel's arguments */
typedef struct {
    float s[ADAM_ORDER_NSC];
} adam_order_sc;

/* whether an element's written value is this order's (NaN equals NaN, as
 * the re-check's count: base/checksum_ops.h ck_bits_differ) */
LS_HD int adam_order_same(float a, float b) { return (a == b) | ((a != a) & (b != b)); }

/* ATen's scalar lerp of m towards g with weight w (fp32) */
LS_HD float adam_order_lerp(float m, float g, float w) {
    float d = g - m;
    if (fabsf(w) < 0.5f) {
        float t = w * d;
        return m + t;
    }
    float c = 1.0f - w;
    float t = d * c;
    return g - t;
}
/* the same contracted: ATen's lerp_vec (CPU) and nvcc's contraction of the
 * scalar one (CUDA) both make it one fused multiply-add */
LS_HD float adam_order_lerp_fma(float m, float g, float w, int cuda) {
    float d = g - m;
    if (fabsf(w) < 0.5f) return fmaf(w, d, m);
    if (cuda) return fmaf(-d, 1.0f - w, g);
    return fmaf(w - 1.0f, d, g);
}

/* den = sqrt(v) / bc2_sqrt + eps, each operation rounded once (the orders
 * that divide by the Python scalar; torch-cuda multiplies by its
 * reciprocal) */
LS_HD float adam_order_den(float vn, float bc2s, float eps) {
    float sq = sqrtf(vn);
    float den = sq / bc2s;
    return den + eps;
}
/* ATen's CPU addcdiv p + (value m) / den with value = -step */
LS_HD float adam_order_addcdiv(float p, float mn, float den, float step) {
    float sm = (-step) * mn;
    float u = sm / den;
    return p + u;
}

/* Order k's update of one element from (p, m, v) and g with the scalars sc
 * (ADAM_ORDER_NSC floats, above), in place. */
LS_HD void adam_order_elem(int k, float *p, float *m, float *v, float g, const float *sc) {
    float b1 = sc[0], omb1 = sc[1], b2 = sc[2], omb2 = sc[3], step = sc[4], bc2s = sc[5], eps = sc[6];
    float lr = sc[7], bc1 = sc[8], bc2 = sc[9];
    float mn, vn, pn;
    if (k <= ADAM_ORDER_TORCH_CUDA) { /* PyTorch's single-tensor Adam: lerp_, mul_ then addcmul_, addcdiv_ */
        float v1 = b2 * *v, sg = omb2 * g;
        if (k == ADAM_ORDER_TORCH_LERP || k == ADAM_ORDER_TORCH_CPU) {
            mn = adam_order_lerp(*m, g, omb1);
            float t = sg * g;
            vn = v1 + t;
        } else {
            mn = adam_order_lerp_fma(*m, g, omb1, k == ADAM_ORDER_TORCH_CUDA);
            vn = fmaf(sg, g, v1);
        }
        float sq = sqrtf(vn), den;
        if (k == ADAM_ORDER_TORCH_CUDA) {
            float inv = 1.0f / bc2s;
            den = sq * inv;
        } else {
            den = sq / bc2s;
        }
        den = den + eps;
        float ns = -step;
        if (k == ADAM_ORDER_TORCH_LERP) {
            float q = mn / den;
            float u = ns * q;
            pn = *p + u;
        } else if (k == ADAM_ORDER_TORCH_CUDA) {
            float q = mn / den;
            pn = fmaf(ns, q, *p);
        } else {
            pn = adam_order_addcdiv(*p, mn, den, step);
        }
    } else if (k == ADAM_ORDER_TORCH1_CPU) { /* mul_ then add_ (fmadd), mul_ then addcmul_ (contracted), addcdiv_ */
        float m1 = b1 * *m, v1 = b2 * *v, sg = omb2 * g;
        mn = fmaf(omb1, g, m1);
        vn = fmaf(sg, g, v1);
        pn = adam_order_addcdiv(*p, mn, adam_order_den(vn, bc2s, eps), step);
    } else if (k == ADAM_ORDER_FMA || k == ADAM_ORDER_FMA_ALT) {
        float gg = g * g;
        if (k == ADAM_ORDER_FMA) {
            float m2 = omb1 * g, v2 = omb2 * gg;
            mn = fmaf(b1, *m, m2);
            vn = fmaf(b2, *v, v2);
        } else {
            float m1 = b1 * *m, v1 = b2 * *v;
            mn = fmaf(omb1, g, m1);
            vn = fmaf(omb2, gg, v1);
        }
        float q = mn / adam_order_den(vn, bc2s, eps);
        pn = fmaf(-step, q, *p);
    } else { /* ops_adam_elem's m and v */
        float m1 = b1 * *m, m2 = omb1 * g;
        mn = m1 + m2;
        float v1 = b2 * *v, gg = g * g;
        float v2 = omb2 * gg;
        vn = v1 + v2;
        if (k == ADAM_ORDER_ADDCDIV) {
            pn = adam_order_addcdiv(*p, mn, adam_order_den(vn, bc2s, eps), step);
        } else if (k == ADAM_ORDER_CAPTURABLE) {
            float sn = -step;
            float bs = bc2s * sn;  /* torch._foreach_mul(bias_correction2_sqrt, step_size) */
            float es = sn / eps;   /* torch._foreach_div(step_size, eps) */
            float ie = 1.0f / es;  /* ... reciprocal_ */
            float sq = sqrtf(vn);
            float den = sq / bs;
            den = den + ie;
            float q = mn / den;
            pn = *p + q;
        } else { /* textbook */
            float mh = mn / bc1, vh = vn / bc2;
            float sq = sqrtf(vh);
            float den = sq + eps;
            float q = mh / den;
            float u = lr * q;
            pn = *p - u;
        }
    }
    *p = pn, *m = mn, *v = vn;
}

/* The orders (a bit each) whose update of (p0, m0, v0, g) writes p, m and
 * v bit for bit. */
LS_HD unsigned adam_orders_match(float p0, float m0, float v0, float g, const float *sc, float p, float m, float v) {
    unsigned mask = 0;
    for (int k = 0; k < ADAM_ORDER_COUNT; k++) {
        float pp = p0, mm = m0, vv = v0;
        adam_order_elem(k, &pp, &mm, &vv, g, sc);
        if (adam_order_same(pp, p) & adam_order_same(mm, m) & adam_order_same(vv, v)) mask |= 1u << k;
    }
    return mask;
}

/* The mask travels in the UPDATE vector's ADAMW entry of the tensor
 * (engines/checksums.h), in its first double, the carried element's index
 * i (< 2^32: a tensor's elements): i + 2^32 mask, exact in a double (mask
 * < 2^21).  Where no element differs the entry is all 0, as it was before
 * the mask: a clean engine's vector is unchanged bit for bit. */
LS_HD double adam_orders_pack(double index, unsigned mask) { return index + 0x1p32 * (double)mask; }
/* the index of a packed first double; its mask in *mask */
LS_HD double adam_orders_unpack(double el0, unsigned *mask) {
    double hi = floor(el0 * 0x1p-32);
    *mask = (unsigned)hi;
    return el0 - 0x1p32 * hi;
}

/* Order k's name as the findings say it (host only; under 60 characters:
 * ck_violation.what holds 160 with the tensor's name and the sentence). */
static inline const char *adam_order_name(int k) {
    switch (k) {
    case ADAM_ORDER_TORCH_LERP: return "PyTorch's single-tensor Adam";
    case ADAM_ORDER_TORCH_CPU: return "PyTorch's single-tensor Adam (ATen CPU addcdiv)";
    case ADAM_ORDER_TORCH_CPU_FMA: return "PyTorch's single-tensor Adam (ATen vectorised CPU)";
    case ADAM_ORDER_TORCH_CUDA: return "PyTorch's single-tensor Adam (ATen CUDA, --fmad=true)";
    case ADAM_ORDER_ADDCDIV: return "the shared formula with addcdiv's p + ((-step) m) / den";
    case ADAM_ORDER_CAPTURABLE: return "PyTorch's capturable foreach Adam";
    case ADAM_ORDER_TEXTBOOK: return "Kingma and Ba's Algorithm 1";
    case ADAM_ORDER_FMA: return "the shared formula FMA-contracted";
    case ADAM_ORDER_FMA_ALT: return "the shared formula FMA-contracted (other products)";
    case ADAM_ORDER_TORCH1_CPU: return "PyTorch 1.x's CPU Adam (measured on 1.13)";
    default: return "?";
    }
}

/* lr, bc1 = 1 - b1^t, bc2 = 1 - b2^t from the exact settings (double),
 * each rounded once to fp32, as adam_make_scalars rounds step_size. */
static inline void adam_order_scalars(double lr, double beta1, double beta2, int t, float *out3) {
    out3[0] = (float)lr;
    out3[1] = (float)(1.0 - pow(beta1, (double)t));
    out3[2] = (float)(1.0 - pow(beta2, (double)t));
}

#endif
