/*
 * tensor.c — tensor sizes and names, Adam's fp32 scalars (model/tensor.h).
 */
#include "model/tensor.h"

#include <math.h>

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

