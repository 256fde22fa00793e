/*
 * eval.h — `lockstep eval --init W.safetensors [--engines E1,E2,...]`: the
 * test-set evaluation of given weights, without training: test loss,
 * accuracy, per-class accuracy and the confusion matrix for each engine
 * (the reference included: its logits are its full values), optionally
 * every image's logits and prediction written out; with several engines,
 * the images whose predictions differ and the logits compared against the
 * forward error bound (checks/bounds.h, bounds_eval_layer: each fp32
 * engine's own propagated bound; the reference's error is below fp32's
 * resolution, taken as 0).
 *
 * Output files (--out): FILE.safetensors with "labels" (n, I64) and, per
 * engine, "logits" (n, C) and "predictions" (n, I64) — with several
 * engines prefixed "<engine spec>/" — logits F32 for fp32 engines, F64 for
 * the reference; or FILE.npy (one engine): the logits, and the predictions
 * in FILE.predictions.npy.
 *
 * Not here: training (train.c), argument parsing (main.c).
 */
#ifndef LS_EVAL_H
#define LS_EVAL_H

#include <stdio.h>

#include "engines/run.h"

typedef struct {
    run_cfg run;          /* model, data, batch, limit_test, init (required), normalize, threads */
    const char *engines;  /* comma-separated engine specs; NULL: run.engine */
    const char *out_path; /* logits and predictions (.safetensors or .npy); NULL: none */
    const char *json_path;
    FILE *out;            /* the report (stdout) */
} eval_cfg;

typedef enum { EVAL_OUT_SAFETENSORS, EVAL_OUT_NPY } eval_out_format;

void eval_cfg_default(eval_cfg *c);
/* The format an --out name asks for, from its extension: .safetensors (or
 * .st, the short form lockstep's own examples use) or .npy.  Any other
 * name is refused (LS_EINVAL, ls_errmsg() naming the file and the
 * extensions): `--out F.txt` once wrote safetensors into F.txt. */
int eval_out_format_of(const char *path, eval_out_format *fmt);
/* Returns 0, or an error code with ls_errmsg() set; 1 is never returned
 * (differing predictions are reported, not judged). */
int eval_cmd_run(const eval_cfg *c);

#endif
