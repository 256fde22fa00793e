/*
 * run.h — one engine over the data: the run's configuration (model, data,
 * seed, batch, epochs, Adam, limits, --init/--order/--save), evaluation on
 * the test set, and weights saved to safetensors.  Every command that
 * trains builds on these.
 *
 * Not here: the `train` command (commands/train.c), comparing engines
 * (audit/driver.c).
 */
#ifndef LS_RUN_H
#define LS_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/data.h"
#include "engines/engine.h"
#include "model/model.h"
#include "base/util.h"

typedef struct {
    const char *model;       /* "smallcnn", "mnist-convnet" or a spec file */
    const char *data_dir;    /* IDX directory */
    const char *engine;      /* engine spec for `train` */
    int epochs;
    size_t batch;
    adam_cfg adam;
    uint64_t seed;
    int threads;             /* 0: engine default; else added as threads=N */
    size_t limit_train;      /* 0: all */
    size_t limit_test;       /* 0: all */
    long max_steps;          /* -1: all; else stop after this many steps */
    const char *json_path;   /* NULL: none */
    int progress;            /* progress line on stderr */
    int print_steps;         /* a line per step (loss, seconds) */
    const char *init_path;   /* --init: initial weights (safetensors); NULL: seeded draw */
    const char *order_path;  /* --order: batch order (.npy or text); NULL: Philox shuffle */
    const char *save_path;   /* --save: final weights (safetensors); NULL: none */
    int save_optimizer;      /* --save-optimizer: Adam m, v and step in the --save file too */
    int normalize;           /* --normalize MEAN,STD: torchvision's Normalize on every batch */
    float norm_mean, norm_std; /* rounded to fp32 once, as torch.as_tensor(mean, dtype=float32) does */
} run_cfg;

void run_cfg_default(run_cfg *c);

/* --normalize's text "MEAN,STD" into c (finite, std not 0: torchvision's
 * own refusal); LS_EINVAL with a message otherwise. */
int run_parse_normalize(run_cfg *c, const char *text);
/* The run's input transform as provenance records it: "MEAN,STD" of the fp32
 * values in round-trip digits (%.9g), or "none". */
void run_normalize_str(const run_cfg *c, char *buf, size_t cap);
/* Apply c's --normalize (if any) to a loaded data set. */
void run_apply_normalize(const run_cfg *c, dataset *ds);
/* --limit-train/--limit-test past the loaded data set's size: the run uses
 * the whole set (the limits are clamped where they are read); said once per
 * process on stderr, "lockstep CMD: note: ...", so that a run is never
 * smaller than asked without a word. */
void run_note_limits(const run_cfg *c, const dataset *ds, const char *cmd);
/* No such note from this process (a seed loop's audit: the main one says it). */
void run_note_limits_mute(void);
/* The logits layer against the data's classes (dataset_n_classes): a last
 * dense wider than them (dense 64 on FashionMNIST's 10) is refused,
 * LS_EINVAL naming --model, the layer and both numbers.  No use needs the
 * extra logits: no label names them, so the loss only pushes them down
 * while the accuracy counts them as classes; a wider layer to exercise is
 * a hidden dense before the logits.  (Narrower: the loader refused a label
 * at or above the model's classes already.) */
int run_check_classes(const run_cfg *c, const model *m, const dataset *ds);

/* Class names for a data set (FashionMNIST's when the directory says
 * fashion and there are 10 classes; else "0", "1", ...). */
const char *class_name(const char *data_dir, int n_classes, int k, char *buf, size_t cap);

typedef struct {
    double loss;           /* mean cross-entropy, computed in double from the logits */
    double accuracy;
    size_t n;
    int n_classes;
    long *confusion;       /* n_classes x n_classes, row = true class */
    uint8_t *pred;         /* n predictions */
    float *logits;         /* n x n_classes, row-major; NULL unless asked (eval_engine_logits) */
} eval_result;

void eval_result_free(eval_result *r);
/* For evaluation loops of their own (lockstep eval): r for n images of C
 * classes (logits kept when asked); each batch's logits (nb x C, as
 * doubles: a reference's full values) added at image s — prediction (the
 * first maximum), confusion, loss in double; eval_finish makes the means. */
int eval_result_alloc(eval_result *r, size_t n, int C, int keep_logits);
void eval_add_batch(eval_result *r, const double *z, const int32_t *y, size_t s, size_t nb);
void eval_finish(eval_result *r);
/* Per-class accuracy and the confusion matrix, as `train` prints them. */
void eval_print_confusion(FILE *f, const char *data_dir, const eval_result *r);
/* Forward the whole test set (training = 0) in batches of e->max_batch. */
int eval_engine(engine *e, const idx_set *test, size_t limit, eval_result *r);
/* The same, keeping every image's logits in r->logits (n x C floats):
 * what the audit needs for top-two margins (stats.h).  `train` does not
 * ask, so it holds no more than one batch of logits. */
int eval_engine_logits(engine *e, const idx_set *test, size_t limit, eval_result *r);
/* eval_engine_logits, calling hook after each batch's forward and the
 * read-back of its logits (the audit's every-step checksums of the
 * evaluation, and the tie of those logits to them: what the accuracy is
 * counted from); a nonzero return stops it. */
typedef int (*eval_hook)(void *ctx, engine *e, const float *x, const int32_t *labels, size_t n, const float *logits);
int eval_engine_hooked(engine *e, const idx_set *test, size_t limit, eval_hook hook, void *ctx, eval_result *r);

typedef struct {
    int epoch;
    double seconds, images_per_s, train_loss, test_loss, test_accuracy;
    size_t steps, images;
} epoch_stats;

/* The most epochs a run takes (--epochs 1..RUN_MAX_EPOCHS). */
#define RUN_MAX_EPOCHS 1000

/* Steps per epoch for n samples (the last batch may be partial). */
static inline size_t steps_per_epoch(size_t n, size_t batch) { return (n + batch - 1) / batch; }

/* Add threads=N to an engine spec unless it has a threads knob already. */
void spec_with_threads(char *out, size_t cap, const char *spec, int threads);

/* --save: engine e's weights (and with c->save_optimizer its Adam m, v and
 * the step count) to path as safetensors, atomically; params is scratch of
 * n_params floats. */
int train_save_weights(const run_cfg *c, const model *m, engine *e, const char *path, float *params, long steps);
/* train_save_weights, calling verify with what it read back (p; Adam's m,
 * v with --save-optimizer, else NULL) before it writes anything: a
 * nonzero return is returned, and nothing is written (the audit ties the
 * read-back to the digests its checks chained). */
typedef int (*save_verify)(void *ctx, const float *p, const float *am, const float *av);
int train_save_weights_verified(const run_cfg *c, const model *m, engine *e, const char *path, float *params,
                                long steps, save_verify verify, void *ctx);
/* The same, recording (with --save-optimizer) the batch and the n_train
 * training images too, so that `train --init` resuming from the file can
 * check it continues the same plan (n_train 0: not recorded). */
/* --init from a --save-optimizer file (after engine_set_params): Adam's
 * moments into the engine and *start_step = the file's optim.step, so the
 * run continues at step optim.step + 1 — epoch step / steps-per-epoch,
 * batch step % steps-per-epoch, Adam's bias corrections at that step: the
 * uninterrupted run, bit for bit.  The file's Adam settings, batch and
 * training images must be the run's (else LS_EINVAL: it would continue
 * another run).  No --init or no optim/ tensors: *start_step = 0. */
int run_resume(const run_cfg *c, const model *m, engine *e, size_t n_train, long *start_step);
int train_save_state(const run_cfg *c, const model *m, engine *e, const char *path, float *params, long steps,
                     size_t n_train);


#endif
