/*
 * bench_conv_dw_sharpness.c — why the conv backward-weights relations'
 * sharper tier is thousands of times wider than the rounding it meets,
 * measured on real FashionMNIST steps of the cpu engine (SmallCNN, batch
 * 256), and how much of that a tighter order-free bound could win.
 *   build/tests/bench_conv_dw_sharpness [STEPS [ENGINE]]   (default 20, cpu)
 * For each filter o of conv1 and conv2 at the first and the last step, in
 * double from the engine's own x, dy and dW: each element's exact dW and
 * S_p = sum over samples and positions of |dy x|, then the residual of a
 * +-1-weighted filter relation (the engine's dW minus the exact one)
 * against three tolerances of the tier's form lambda u (1 + gamma)
 * sqrt(...) (src/checks/bounds.c, "the sharper tier of a relation"):
 *   now:      n_r S A, with S the vector's order-free bound on max_p S_p
 *             (sum over samples of the plane's max|x| times sum|dy|);
 *   exact S_p: n_r sum_p S_p^2 (each element's own S_p: the layer's
 *             arithmetic again, in double);
 *   + products exact: sum_p sum_i t_i^2 + (K - 1) sum_p S_p^2 (each
 *             product's rounding bounded by its own |t_i|, each addition's
 *             by S_p, the partial sums of an unknown order);
 * and per element |e_p| / (lambda u sqrt(n_r) S_p).  Prints the worst
 * ratio to each and the mean looseness factors.  What is left after the
 * two refinements is the additions' term: in an unknown summation order
 * a partial sum may be as large as S_p, while in fact the partial sums of
 * a gradient cancel; no order-free bound may assume that.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/rng.h"
#include "checks/bounds.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "formats/data.h"

static void one(const model *m, engine *e, int lc, size_t n) {
    const layer *ly = &m->layers[lc];
    int C = ly->in_c, OC = ly->out_c, k = ly->k, H = ly->in_h, W = ly->in_w, pad = ly->pad;
    int OH = ly->out_h, OW = ly->out_w;
    size_t xs = (size_t)C * H * W, ys = (size_t)OC * OH * OW;
    float *x = malloc(n * xs * 4), *dy = malloc(n * ys * 4), *g = malloc(m->n_params * 4);
    if (lc == 0) engine_get_tensor(e, (tensor_id){TENSOR_INPUT, 0}, x);
    else engine_get_tensor(e, (tensor_id){TENSOR_ACT, lc - 1}, x);
    engine_get_tensor(e, (tensor_id){TENSOR_DACT, lc}, dy);
    engine_get_tensor(e, (tensor_id){TENSOR_GRADS, 0}, g);
    const float *dw = g + m->tensors[ly->w_tensor].offset;
    size_t K = n * (size_t)OH * OW, P = (size_t)C * k * k;
    double u = 0x1p-24, lam = bounds_ck_sharp_lambda(), nr = 2.0 * K - 1, gn = K * u / (1 - K * u);
    double worst_now = 0, worst_sp = 0, worst_pe = 0, mS = 0, mq = 0;
    double rS = 0, rSA = 0;
    for (int o = 0; o < OC; o++) {
        double Scode = 0, A = 0, SS = 0, T2 = 0, Smax = 0, res = 0;
        /* code's S: sum_n max|x_n| sum|dy_n| */
        for (size_t i = 0; i < n; i++) {
            double mx = 0, sd = 0;
            for (size_t q = 0; q < xs; q++) mx = fmax(mx, fabs(x[i * xs + q]));
            for (int p = 0; p < OH * OW; p++) sd += fabs(dy[i * ys + (size_t)o * OH * OW + p]);
            Scode += mx * sd;
        }
        for (int c = 0; c < C; c++)
            for (int t = 0; t < k * k; t++) {
                int kh = t / k, kw = t % k;
                double ex = 0, sp = 0, t2 = 0;
                for (size_t i = 0; i < n; i++)
                    for (int oh = 0; oh < OH; oh++) {
                        int ih = oh - pad + kh;
                        if (ih < 0 || ih >= H) continue;
                        for (int ow = 0; ow < OW; ow++) {
                            int iw = ow - pad + kw;
                            if (iw < 0 || iw >= W) continue;
                            double d = dy[i * ys + (size_t)o * OH * OW + oh * OW + ow];
                            if (d == 0) continue;
                            double xv = x[i * xs + (size_t)c * H * W + ih * W + iw], pr = d * xv;
                            ex += pr, sp += fabs(pr), t2 += pr * pr;
                        }
                    }
                double e1 = (double)dw[(size_t)o * P + (size_t)c * k * k + t] - ex;
                /* sign weight: a fixed pseudo-random +-1 */
                int sg = (rng_uniform(7, (uint32_t)(o * 1000 + c * 16 + t), 0, 0, 1) < 0.5) ? -1 : 1;
                res += sg * e1;
                A += sp, SS += sp * sp, T2 += t2, Smax = fmax(Smax, sp);
                /* per element sharp */
                double pe = fabs(e1) / (lam * u * (1 + gn) * sqrt(nr) * sp);
                if (sp > 0) worst_pe = fmax(worst_pe, pe);
            }
        double tnow = lam * u * (1 + gn) * sqrt(nr * Scode * A);
        double tsp = lam * u * (1 + gn) * sqrt(nr * SS);
        double tpe = lam * u * (1 + gn) * sqrt(T2 + (K - 1.0) * SS);
        worst_now = fmax(worst_now, fabs(res) / tnow);
        worst_sp = fmax(worst_sp, fabs(res) / tsp);
        mq = fmax(mq, fabs(res) / tpe);
        rS += Scode / Smax, rSA += sqrt(Scode * A / SS);
        mS += tnow / tsp;
    }
    printf("%s: K=%zu P=%zu  mean S_code/max S_p %.2f  mean sqrt(S A / sum S_p^2) %.2f  mean tol_now/tol_Sp %.2f\n",
           ly->name, K, P, rS / OC, rSA / OC, mS / OC);
    printf("   worst |residual|/tol: now %.3g  with exact S_p %.3g  + products exact %.3g   per element worst %.3g\n",
           worst_now, worst_sp, mq, worst_pe);
    free(x), free(dy), free(g);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    if (steps < 1) steps = 1;
    model m;
    if (model_build(&m, "smallcnn")) return 1;
    size_t n = 256;
    engine_opts o = {.seed = 1, .max_batch = n};
    engine *e = NULL;
    if (engine_create(&e, argc > 2 ? argv[2] : "cpu", &m, &o)) return 1;
    float *x = malloc(n * 784 * 4), *p = malloc(m.n_params * 4);
    int32_t *y = malloc(n * 4);
    dataset ds;
    memset(&ds, 0, sizeof ds);
    if (dataset_load(&ds, DATA_DEFAULT_DIR, 10)) {
        fprintf(stderr, "bench_conv_dw_sharpness: %s: FashionMNIST needed (make deps)\n", DATA_DEFAULT_DIR);
        return 1;
    }
    model_init_params(&m, p, 1);
    engine_set_params(e, p);
    adam_cfg a = adam_default();
    for (int s = 0; s < steps; s++) {
        data_make_batch(&ds.train, NULL, (size_t)s * n, n, x, y);
        engine_set_batch(e, x, y, n, (uint64_t)s + 1);
        engine_forward(e, 1), engine_loss(e, NULL), engine_backward(e);
        if (s == steps - 1 || s == 0) {
            printf("step %d\n", s + 1);
            one(&m, e, 0, n);
            one(&m, e, 3, n);
        }
        engine_update(e, &a, s + 1);
    }
    return 0;
}
