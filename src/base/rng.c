/*
 * rng.c — the per-epoch shuffle (everything else in rng.h is inline so that
 * CUDA kernels can use it too).
 *
 * Not here: any stateful generator; every draw is a pure function of
 * (seed, counter).
 */
#include "base/rng.h"

/*
 * Fisher-Yates in Durstenfeld's in-place, downward form.  The exact draw
 * order is part of every run's identity (it decides which images form which
 * batch), so it is fixed here and pinned by tests/test_rng.c:
 *
 *   perm[k] = k for k = 0..n-1
 *   for i = n-1 down to 1:
 *       j = rng_below(seed, i, epoch, RNG_STREAM_SHUFFLE, i + 1)   -- uniform in [0, i]
 *           i.e. Philox4x32-10, counter {i, epoch, 0, RNG_STREAM_SHUFFLE},
 *           key {seed low 32 bits, seed high 32 bits}; output words 0 (high)
 *           and 1 (low) form a 64-bit fraction x, and j = floor(x * (i+1) / 2^64)
 *       swap perm[i], perm[j]
 *
 * Draw i depends only on (seed, epoch, i), never on earlier draws.
 * n = 0 and n = 1 give the identity (nothing to draw).
 */
void rng_shuffle(uint32_t *perm, uint32_t n, uint64_t seed, uint32_t epoch) {
    for (uint32_t k = 0; k < n; k++) perm[k] = k;
    for (uint32_t i = n > 0 ? n - 1 : 0; i >= 1; i--) {
        uint32_t j = rng_below(seed, i, epoch, RNG_STREAM_SHUFFLE, i + 1);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}
