/*
 * rng.h — Philox4x32-10, the one source of randomness in lockstep.
 *
 * Counter-based: the value for (seed, counter) does not depend on what was
 * drawn before, so every engine, in any parallel split, on the host or in a
 * CUDA kernel, gets the same numbers.  This header is included by C and by
 * CUDA code (LS_HD marks the functions __host__ __device__ under nvcc).
 *
 * Streams (the fourth counter word) keep the uses apart:
 *   RNG_STREAM_INIT     counter = {index, tensor, 0, INIT}        initial weights
 *   RNG_STREAM_SHUFFLE  counter = {i, epoch, 0, SHUFFLE}          Fisher-Yates draws
 *   RNG_STREAM_DROPOUT  counter = {element, step, layer, DROPOUT} dropout masks
 *   RNG_STREAM_CK       counter = {index, step, what, CK}          the every-step checks'
 *                       random weights (engines/checksums.h's ck_rnd_weights; its key
 *                       is the batch's input digest, not the run's seed: drawn after
 *                       the images are known)
 * The key is the 64-bit seed split into two words.
 * Not here: Box-Muller or other distributions; nothing needs them yet.
 */
#ifndef LS_RNG_H
#define LS_RNG_H

#include <stdint.h>

#ifdef __CUDACC__
#define LS_HD __host__ __device__ static inline
#else
#define LS_HD static inline
#endif

enum {
    RNG_STREAM_INIT = 1,
    RNG_STREAM_SHUFFLE = 2,
    RNG_STREAM_DROPOUT = 3,
    RNG_STREAM_PERTURB = 4, /* 1-ULP perturbations for the noise-floor runs */
    RNG_STREAM_CK = 5,      /* the every-step checks' random weights */
};

typedef struct { uint32_t v[4]; } philox_ctr;
typedef struct { uint32_t v[2]; } philox_key;

LS_HD void philox_mulhilo(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo) {
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

/* Philox4x32 with R rounds (10 is the standard, the one Random123, cuRAND
 * and PyTorch use; R is a parameter only so tests can hit the published
 * known-answer vectors for other round counts if they wish). */
LS_HD philox_ctr philox4x32_r(philox_ctr c, philox_key k, int rounds) {
    const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int r = 0; r < rounds; r++) {
        if (r > 0) { k.v[0] += W0; k.v[1] += W1; }
        uint32_t hi0, lo0, hi1, lo1;
        philox_mulhilo(M0, c.v[0], &hi0, &lo0);
        philox_mulhilo(M1, c.v[2], &hi1, &lo1);
        philox_ctr o;
        o.v[0] = hi1 ^ c.v[1] ^ k.v[0];
        o.v[1] = lo1;
        o.v[2] = hi0 ^ c.v[3] ^ k.v[1];
        o.v[3] = lo0;
        c = o;
    }
    return c;
}

LS_HD philox_ctr philox4x32_10(philox_ctr c, philox_key k) { return philox4x32_r(c, k, 10); }

LS_HD philox_key rng_key(uint64_t seed) {
    philox_key k;
    k.v[0] = (uint32_t)seed;
    k.v[1] = (uint32_t)(seed >> 32);
    return k;
}

/* First 32-bit output word for counter {a, b, c, stream}. */
LS_HD uint32_t rng_u32(uint64_t seed, uint32_t a, uint32_t b, uint32_t c, uint32_t stream) {
    philox_ctr ctr;
    ctr.v[0] = a; ctr.v[1] = b; ctr.v[2] = c; ctr.v[3] = stream;
    return philox4x32_10(ctr, rng_key(seed)).v[0];
}

/* Uniform float in [0, 1) with 24 random bits: exactly k * 2^-24, so the
 * conversion is exact on every platform. */
LS_HD float rng_uniform(uint64_t seed, uint32_t a, uint32_t b, uint32_t c, uint32_t stream) {
    return (float)(rng_u32(seed, a, b, c, stream) >> 8) * (1.0f / 16777216.0f);
}

/* Dropout keep decision for one element: kept when u >= p.  With p = 0.5
 * this keeps exactly the elements whose top bit is set. */
LS_HD int rng_dropout_keep(uint64_t seed, uint32_t step, uint32_t layer, uint32_t element, float p) {
    return rng_uniform(seed, element, step, layer, RNG_STREAM_DROPOUT) >= p;
}

/* Uniform integer in [0, n) for the shuffle: two 32-bit words give a 64-bit
 * fraction, multiplied by n; the bias is below n * 2^-64 (negligible, and
 * identical everywhere, which is what matters here). */
static inline uint32_t rng_below(uint64_t seed, uint32_t a, uint32_t b, uint32_t stream, uint32_t n) {
    philox_ctr ctr = {{a, b, 0, stream}};
    philox_ctr o = philox4x32_10(ctr, rng_key(seed));
    uint64_t x = ((uint64_t)o.v[0] << 32) | o.v[1];
    /* high 64 bits of the 128-bit product x * n */
    uint64_t lo = (x & 0xffffffffu) * n;
    uint64_t hi = (x >> 32) * n + (lo >> 32);
    return (uint32_t)(hi >> 32);
}

/* Fisher-Yates permutation of 0..n-1 for one epoch (writes perm[0..n-1]). */
void rng_shuffle(uint32_t *perm, uint32_t n, uint64_t seed, uint32_t epoch);

#endif
