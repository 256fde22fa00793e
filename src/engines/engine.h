/*
 * engine.h — the engine interface: one table of function pointers per
 * numeric path (cpu/oneDNN, cuda/cuDNN+cuBLAS, reference/MPFR), in the
 * spirit of ggml's backend table.  Callers never touch the table: they use
 * the engine_* wrappers below, which check optional entries and keep the
 * per-layer timing.
 *
 * Calls are layer-level because lockstep compares layer by layer and because
 * isolated mode feeds each layer the leader's input.  The data flow of one
 * training step, for layers 0..L-1:
 *
 *   set_batch(x, labels, step)        x is (n, C, H, W) fp32, already x/255
 *   forward_layer(l, training)  l = 0..L-1: ACT[l] = f_l(ACT[l-1]), ACT[-1] = x
 *   loss()                            LOSS = mean softmax-CE(ACT[L-1], labels),
 *                                     DACT[L-1] = (softmax - onehot) / n
 *   backward_layer(l)           l = L-1..0: GRADS of layer l from DACT[l] and
 *                                     ACT[l-1]; DACT[l-1] too, except for l == 0
 *   update(adam, t)                   Adam step t (1-based) on PARAMS, ADAM_M, ADAM_V
 *
 * Tensors are read and written in plain layouts (NCHW, OIHW, (out, in)),
 * whatever the engine keeps internally.  PARAMS, GRADS, ADAM_M and ADAM_V
 * are whole flat buffers in model.h's layout.
 *
 * Not here: comparison, scheduling of engines, process isolation
 * (audit/driver.c and remote.c do those).
 */
#ifndef LS_ENGINE_H
#define LS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/tensor.h"


typedef struct engine engine;

/* Stages of the every-step checksum vector (engines/checksums.h). */
enum { CK_STAGE_STEP = 1, CK_STAGE_UPDATE = 2, CK_STAGE_EVAL = 3 };
/* Flags or'd into a stage, for engines whose checksums are the host's
 * (engine_checksums_host; others refuse them): CK_STAGE_HASH also puts
 * the operand hash (ck_operand_hash: every value the stage's vector is
 * computed from) at out[total]; CK_STAGE_HASH_ONLY computes only that
 * hash and the header (and keeps the engine's snapshot as the full stage
 * would), for a repeat of an engine whose vector it can share when the
 * hashes agree.  out then holds ck_layout.total + 1 doubles. */
enum { CK_STAGE_MASK = 15, CK_STAGE_HASH = 16, CK_STAGE_HASH_ONLY = 32 };
/* CK_STAGE_LIGHT (STEP only, any engine): each layer's plain FWD,
 * BWD_DATA, BWD_W, BWD_B blocks, the element-wise blocks, LOSS, DIGEST,
 * INPUT and the dense layers' blocks after INPUT but the every-output
 * re-dos (engines/checksums.h, ck_light_keeps); the other blocks after
 * INPUT may be left 0 (the host's are;
 * an engine that computes them anyway is judged as if it had not).  The
 * audit's light steps (--complete-every K: audit.h); the cuda and recorded
 * engines ignore it. */
enum { CK_STAGE_LIGHT = 64 };

typedef struct engine_i {
    const char *name; /* "cpu", "cuda", "reference" */
    /* A JSON object (malloc'd, caller frees): library versions, ISA,
     * threads, math modes, per-layer algorithms.  NULL on failure. */
    char *(*describe)(engine *e);
    int (*set_batch)(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step);
    int (*forward_layer)(engine *e, int layer, int training);
    int (*loss)(engine *e, float *loss_out);
    int (*backward_layer)(engine *e, int layer);
    int (*update)(engine *e, const adam_scalars *a);
    int (*get_tensor)(engine *e, tensor_id t, float *out);
    int (*set_tensor)(engine *e, tensor_id t, const float *in);
    /* optional: read a tensor as double (the reference's full value); the
     * wrapper converts get_tensor's floats when NULL */
    int (*get_tensor_f64)(engine *e, tensor_id t, double *out);
    /* optional: wait until queued work is done (device engines) */
    int (*synchronize)(engine *e);
    void (*free)(engine *e);
    /* optional: the every-step checksum vector of a stage (engines/checksums.h
     * has the layout), computed where the tensors live; only the small
     * vector comes back.  NULL: the engine has no every-step checks. */
    int (*checksums)(engine *e, int stage, double *out);
    /* optional, for the host checksums: 1 when ReLU layer r and the
     * max-pool after it ran as one pass whose ReLU tensors exist only as
     * rules now (forward; with `backward`, its gradient too): the checks
     * then judge the pair as one operation from layer r-1's tensors and
     * the pool's, without writing the ReLU's (cpu fuse=on) */
    int (*ck_fused)(engine *e, int relu_layer, int backward);
    /* optional, for the host checksums: the engine's own buffer of a 4-D
     * ACT or DACT (read only, valid until the engine runs again) and its
     * channel block: 1 plain NCHW, 16 nChw16c; *ptr NULL when the tensor is
     * not held as such (then get_tensor) */
    void (*ck_view)(engine *e, tensor_id t, const float **ptr, int *cblock);
} engine_i;

#define ENGINE_MAX_KNOBS 8

/* "cpu:threads=1:algo=winograd" → name "cpu", knobs threads=1, algo=winograd.
 * "recorded:PATH" → name "recorded", no knobs (the path is the rest of spec). */
typedef struct {
    char spec[128]; /* the whole text as given */
    char name[32];
    int n_knobs;
    char key[ENGINE_MAX_KNOBS][32];
    char val[ENGINE_MAX_KNOBS][64];
} engine_spec;

int engine_spec_parse(engine_spec *s, const char *text);
/* The knob's value, or `def` when absent. */
const char *engine_spec_get(const engine_spec *s, const char *key, const char *def);
/* Fails with a message naming the first knob not in `allowed` (NULL-terminated). */
int engine_spec_check(const engine_spec *s, const char *const *allowed);
/* Knob `key` (`def` when absent) as its index in `names` (NULL-terminated)
 * into *out; any other value fails (LS_EINVAL) with one wording for every
 * engine: "engine SPEC: unknown value 'V' for knob K (known: a, b, ...)",
 * naming every known value. */
int engine_spec_choice(const engine_spec *s, const char *key, const char *def, const char *const *names, int *out);

struct engine {
    const engine_i *iface;
    void *ctx;
    const model *m;
    size_t max_batch;
    size_t batch;     /* n of the current batch */
    uint64_t seed;    /* for dropout masks */
    engine_spec spec;
    engine_timing timing;
    engine_timing_samples *samples; /* per-call spread (NULL until the first timed call; owned) */
    int time_layers;  /* when set, wrappers synchronize around timed calls */
    int timed_inside; /* when set, the implementation keeps `timing` itself
                       * (remote engines: the child times the real calls,
                       * so the IPC round trip is not charged to a layer) */
    uint64_t step;          /* of the current batch (set_batch), for re-checks */
    adam_scalars last_adam; /* of the last update, for the Adam re-check */
    int ck_threads;         /* engine_opts.ck_threads */
    void *ck_state;         /* engines/checksums.c's snapshot and scratch, */
    void (*ck_state_free)(void *); /* freed by engine_free through this */
};

typedef struct {
    uint64_t seed;      /* dropout stream key */
    size_t max_batch;
    int ck_threads;     /* threads of the host checksums; 0: every core the process may use (<= 8) */
} engine_opts;

void engine_free(engine *e);

/* Wrappers: check arguments, time, forward to the table. */
char *engine_describe(engine *e);
int engine_set_params(engine *e, const float *params); /* PARAMS, zero GRADS/M/V */
int engine_set_batch(engine *e, const float *x, const int32_t *labels, size_t n, uint64_t step);
int engine_forward_layer(engine *e, int layer, int training);
int engine_loss(engine *e, float *loss_out);
int engine_backward_layer(engine *e, int layer);
int engine_update(engine *e, const adam_cfg *cfg, int t);
int engine_get_tensor(engine *e, tensor_id t, float *out);
int engine_get_tensor_f64(engine *e, tensor_id t, double *out);
int engine_set_tensor(engine *e, tensor_id t, const float *in);
int engine_synchronize(engine *e);
/* The engine's checksum vector of `stage` (engines/checksums.h); LS_EUNAVAIL
 * when the engine has none. */
int engine_checksums(engine *e, int stage, double *out);

/* Whole-step helpers built on the wrappers. */
int engine_forward(engine *e, int training);          /* all layers */
int engine_backward(engine *e);                       /* all layers, last to first */
int engine_train_step(engine *e, const float *x, const int32_t *labels, size_t n,
                      uint64_t step, const adam_cfg *cfg, int t, float *loss_out);

#endif
