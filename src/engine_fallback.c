/*
 * engine_fallback.c — TEMPORARY link-time fallbacks while the cpu and
 * reference engines are being written in parallel: weak definitions that
 * report the engine as unavailable.  The real engines' strong symbols
 * replace them; this file is deleted once both have landed.
 */
#include "engine.h"
#include "util.h"

__attribute__((weak)) int engine_cpu_create(engine *e, const engine_spec *s) {
    return ls_err(LS_EUNAVAIL, "cpu: unavailable (engine not in this build yet)");
}
__attribute__((weak)) int engine_reference_create(engine *e, const engine_spec *s) {
    return ls_err(LS_EUNAVAIL, "reference: unavailable (engine not in this build yet)");
}
#if LS_HAVE_CUDA
__attribute__((weak)) int engine_cuda_create(engine *e, const engine_spec *s) {
    return ls_err(LS_EUNAVAIL, "cuda: unavailable (engine not in this build yet)");
}
#endif
