/*
 * export.h — `lockstep export`: every compared tensor of one training step,
 * written as safetensors with names a user can guess, so that numpy or
 * PyTorch can look at lockstep's numbers directly.
 *
 * Two sources:
 *   a file    a golden (.lsg; later recordings of the same family are
 *             dispatched on their magic too): the tensors one engine pinned
 *             at that step, fp32 as stored.
 *   live      an engine spec and the train options: the engine runs from the
 *             seeded (or --init) weights through steps 1..S-1 (with the
 *             --order batches, if any), then step S layer by layer, and its
 *             tensors are read out — a reference engine's as float64 (its
 *             full value, engine_get_tensor_f64), any other as its fp32 bits.
 *             S is a step of the run the options describe: --epochs (3 by
 *             default, as train) times the steps per epoch bound it, and a
 *             step past them is refused before the replay starts.
 *
 * Names, for step S (layer names as `lockstep model` prints them; parameter
 * names as in safetensors.h):
 *   stepS/input              (n, C, H, W) the batch, x/255 in fp32 (a golden holds
 *                            no inputs: rebuilt from its provenance when the data
 *                            and --order file match their crc32s)
 *   stepS/labels             (n) int64
 *   stepS/<layer>/act        the layer's output, (n, C, H, W) or (n, F)
 *   stepS/loss               () the batch-mean cross-entropy
 *   stepS/<layer>/dact       dLoss/d(the layer's output)
 *   stepS/<param>/grad       e.g. step1/conv2.weight/grad
 *   stepS/<param>            the parameter after step S's Adam update
 *   stepS/<param>/adam_m     Adam's first moment after the update (PyTorch: exp_avg)
 *   stepS/<param>/adam_v     second moment (PyTorch: exp_avg_sq)
 *   stepS/test/logits, stepS/test/predictions   a golden's final evaluation (last step only)
 * The metadata says the source, engine, step, model spec, seed and batch.
 *
 * --state-dict (live only): instead, exactly a PyTorch state_dict of the
 * weights after step S (S = 0: the initial weights): the parameter names
 * of safetensors.h (conv1.weight, ...), no prefix, no other tensor, F32 —
 * the engine's bits, or a reference engine's values rounded once to fp32 —
 * and F64 (the reference's full values) only with --f64.  It loads with
 * model.load_state_dict(safetensors.torch.load_file(path)) strictly.
 *
 * Not here: argument parsing (main.c), the format (safetensors.h).
 */
#ifndef LS_EXPORT_H
#define LS_EXPORT_H

#include <stdio.h>

#include "engines/run.h"

#define EXPORT_STEP_UNSET (-1L)

typedef struct {
    run_cfg run;          /* live: engine, model, data, seed, batch, lr, threads, limits, init, order */
    const char *source;   /* a golden file; NULL: live */
    long step;            /* S >= 1 (>= 0 with state_dict); EXPORT_STEP_UNSET: not given, refused naming
                           * the steps there are (no default: a quiet step 1 was never what was asked) */
    int state_dict;       /* --state-dict: only the weights after step S, PyTorch's state_dict */
    int f64;              /* --f64: with state_dict, a reference engine's values as F64 */
    const char *out_path; /* the .safetensors to write */
    FILE *out;            /* a summary line (NULL: none) */
} export_cfg;

void export_cfg_default(export_cfg *c);

/* Returns 0, or an error code with ls_errmsg() set ("FILE: problem"); on
 * error nothing is written under out_path. */
int export_run(const export_cfg *c);

#endif
