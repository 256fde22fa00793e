/*
 * registry.c — engine_create: an engine by its name.  The one file that
 * knows every engine; the engines themselves know only engine.h.  The CUDA
 * engine is loaded from its shared object on first use.
 */
#include "engines/registry.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "engines/cuda/cuda_policy.h"

#if LS_HAVE_CUDA
/* The CUDA engine lives in liblockstep_cuda.so next to the executable (or
 * one directory up, for the test programs in build/tests/), or where
 * $LOCKSTEP_CUDA_LIB says; it is loaded on first use so that runs without a
 * cuda engine never map the cuDNN and cuBLAS libraries. */
static int cuda_create(engine *e, const engine_spec *s) {
    typedef int (*create_fn)(engine *, const engine_spec *);
    static create_fn fn;
    if (!fn) {
        char exe[PATH_MAX], cand[3][PATH_MAX + 64];
        int nc = 0;
        const char *env = getenv("LOCKSTEP_CUDA_LIB");
        if (env && *env) snprintf(cand[nc++], sizeof cand[0], "%s", env);
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            char *slash = strrchr(exe, '/');
            if (slash) *slash = 0;
            snprintf(cand[nc++], sizeof cand[0], "%s/liblockstep_cuda.so", exe);
            snprintf(cand[nc++], sizeof cand[0], "%s/../liblockstep_cuda.so", exe);
        }
        char why[512] = "liblockstep_cuda.so not found next to the executable";
        void *h = NULL;
        for (int i = 0; i < nc && !h; i++) {
            if (access(cand[i], R_OK) != 0) continue;
            h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
            if (!h) snprintf(why, sizeof why, "cannot load %.300s: %.180s", cand[i], dlerror());
        }
        if (!h) return ls_err(LS_EUNAVAIL, "cuda: unavailable (%s)", why);
        fn = (create_fn)dlsym(h, "engine_cuda_create");
        if (!fn) return ls_err(LS_EUNAVAIL, "cuda: unavailable (engine_cuda_create missing from the CUDA library)");
    }
    return fn(e, s);
}
#endif

int engine_spec_known(const engine_spec *s) {
    if (strcmp(s->name, "cpu") == 0) return engine_cpu_knobs_check(s);
    if (strcmp(s->name, "cuda") == 0) {
        cp_opts o;
        return cp_opts_parse(&o, s);
    }
    if (strcmp(s->name, "reference") == 0 || strcmp(s->name, "ref") == 0 || strcmp(s->name, "recorded") == 0)
        return LS_OK;
    return ls_err(LS_EINVAL, "unknown engine '%s' (known: cpu, reference, cuda, recorded:PATH)", s->name);
}

int engine_create(engine **out, const char *spec_text, const model *m, const engine_opts *o) {
    *out = NULL;
    engine *e = ls_calloc(1, sizeof *e);
    if (!e) return LS_ENOMEM;
    int rc = engine_spec_parse(&e->spec, spec_text);
    if (rc) goto fail;
    e->m = m;
    e->max_batch = o->max_batch;
    e->seed = o->seed;
    e->ck_threads = o->ck_threads;
    if (o->max_batch == 0) {
        rc = ls_err(LS_EINVAL, "engine %s: batch size must be positive", spec_text);
        goto fail;
    }
    if (strcmp(e->spec.name, "cpu") == 0) {
        rc = engine_cpu_create(e, &e->spec);
    } else if (strcmp(e->spec.name, "reference") == 0 || strcmp(e->spec.name, "ref") == 0) {
        rc = engine_reference_create(e, &e->spec);
    } else if (strcmp(e->spec.name, "cuda") == 0) {
        /* its knobs first, host code in every build: a bad value is a usage error (exit 2) whether or not
         * there is a device or a CUDA build, worded as every engine's (engine_spec_choice) */
        cp_opts co;
        rc = cp_opts_parse(&co, &e->spec);
#if LS_HAVE_CUDA
        if (!rc) rc = cuda_create(e, &e->spec);
#else
        if (!rc)
            rc = ls_err(LS_EUNAVAIL, "cuda: unavailable (built without CUDA: no nvcc/cuDNN at build time, or make "
                        "CUDA=0)");
#endif
    } else if (strcmp(e->spec.name, "recorded") == 0) {
        rc = engine_recorded_create(e, &e->spec);
    } else {
        rc = ls_err(LS_EINVAL, "unknown engine '%s' (known: cpu, reference, cuda, recorded:PATH)", e->spec.name);
    }
    if (rc) goto fail;
    *out = e;
    return LS_OK;
fail:
    free(e);
    return rc;
}

