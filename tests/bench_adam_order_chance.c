/*
 * bench_adam_order_chance.c — how often one ulp of fault in an otherwise
 * clean Adam update passes as a named legal order (src/base/adam_orders.h).
 *   build/tests/bench_adam_order_chance [TRIALS]   (default 20000)
 * The every-step Adam re-check calls a tensor ok when one named order
 * reproduces every element of it bit for bit (engines/checksums.c
 * adam_recheck).  A clean engine's update is the shared formula
 * (ops_adam_elem); move one element's p', m' or v' one ulp and the tensor
 * passes only if some order gives that value there AND the shared
 * formula's values everywhere else.  Per tensor size (8, 10, 32, 288
 * elements: a bias of 8..32, and more) and per moved value, the share of
 * random states that pass, over TRIALS states of log-normal gradients
 * (N(0,1) e^(2 N(0,1)) 1e-3), p ~ N(0, 0.05), m ~ g (1 + N(0,1)) / 2,
 * v ~ g^2 (1 + |N(0,1)|), t uniform in 2..51, lr 1e-3, betas 0.9/0.999.
 * Prints one line per size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/adam_orders.h"
#include "base/ops_elem.h"
#include "model/tensor.h"

static unsigned long long g_s = 0x9e3779b97f4a7c15ull;
static double unif(void) { /* (0, 1), xorshift64* */
    g_s ^= g_s >> 12, g_s ^= g_s << 25, g_s ^= g_s >> 27;
    return ((double)((g_s * 2685821657736338717ull) >> 11) + 0.5) * 0x1p-53;
}
static double nrm(void) { return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif()); }
static unsigned urand(unsigned n) { return (unsigned)(unif() * n); }

enum { NMAX = 288 };

int main(int argc, char **argv) {
    int trials = argc > 1 ? atoi(argv[1]) : 20000;
    if (trials <= 0) trials = 20000;
    adam_cfg cfg = {1e-3, 0.9, 0.999, 1e-8};
    static const int sizes[] = {8, 10, 32, 288};
    printf("one ulp of fault passing as a named Adam order (%d orders), %d random states per size:\n",
           ADAM_ORDER_COUNT, trials);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int N = sizes[si], pass[3] = {0};
        for (int tr = 0; tr < trials; tr++) {
            int t = 2 + (int)urand(50);
            adam_scalars a = adam_make_scalars(&cfg, t);
            float osc[ADAM_ORDER_NSC] = {a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2, a.step_size,
                                         a.bc2_sqrt, a.eps};
            adam_order_scalars(cfg.lr, cfg.beta1, cfg.beta2, t, osc + 7);
            float p0[NMAX], m0[NMAX], v0[NMAX], g[NMAX], p[NMAX], m[NMAX], v[NMAX];
            for (int i = 0; i < N; i++) {
                g[i] = (float)(nrm() * exp(2 * nrm()) * 1e-3);
                p0[i] = (float)(0.05 * nrm());
                m0[i] = (float)(g[i] * (0.5 + 0.5 * nrm()));
                v0[i] = (float)((double)g[i] * g[i] * (1 + fabs(nrm())));
                p[i] = p0[i], m[i] = m0[i], v[i] = v0[i];
                ops_adam_elem(&p[i], &m[i], &v[i], g[i], a.beta1, a.one_minus_beta1, a.beta2, a.one_minus_beta2,
                              a.step_size, a.bc2_sqrt, a.eps);
            }
            for (int which = 0; which < 3; which++) {
                float pp[NMAX], mm[NMAX], vv[NMAX];
                for (int i = 0; i < N; i++) pp[i] = p[i], mm[i] = m[i], vv[i] = v[i];
                int k = (int)urand((unsigned)N);
                float *x = which == 0 ? &pp[k] : which == 1 ? &mm[k] : &vv[k];
                *x = nextafterf(*x, urand(2) ? INFINITY : -INFINITY);
                unsigned mask = ADAM_ORDER_ALL;
                for (int i = 0; i < N && mask; i++)
                    mask &= adam_orders_match(p0[i], m0[i], v0[i], g[i], osc, pp[i], mm[i], vv[i]);
                pass[which] += mask != 0;
            }
        }
        printf("  %3d elements: p' %.2f%%  m' %.2f%%  v' %.2f%%\n", N, 100.0 * pass[0] / trials,
               100.0 * pass[1] / trials, 100.0 * pass[2] / trials);
    }
    return 0;
}
