/* cpu_caps.h — what this machine's oneDNN can run, for the tests whose
 * subject needs it.  oneDNN 2.6's Winograd convolutions are all AVX-512
 * (jit_avx512_core_f32_wino_conv_*, jit_avx512_common_convolution_winograd):
 * on an AVX2 machine (a 2-core AMD EPYC without AVX-512, say) the cpu
 * engine's algo=winograd runs direct and says so (describe's algo_note),
 * so a test that needs Winograd's rounding checks that fallback instead. */
#ifndef LS_TESTS_CPU_CAPS_H
#define LS_TESTS_CPU_CAPS_H

static inline int cpu_has_winograd(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

#define NO_WINOGRAD_WHY "oneDNN 2.6 has Winograd kernels for AVX-512 only, and this CPU has none"

#endif
