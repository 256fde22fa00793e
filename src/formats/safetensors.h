/*
 * safetensors.h — the safetensors format in and out (the format PyTorch
 * users exchange weights in), and lockstep's parameters in PyTorch's names
 * and layouts.
 *
 * The format: 8 bytes, a little-endian u64 N; N bytes of a UTF-8 JSON object
 * (the header); then the data.  The header maps each tensor name to
 * {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, offsets in
 * bytes from the start of the data; an optional "__metadata__" maps strings
 * to strings.  Values are raw little-endian, row-major (C order).
 *
 * The reader is strict: N within [2, 100 MiB] and within the file, the
 * header well-formed JSON (parsed by jansson, duplicate keys rejected), each
 * entry with exactly those three keys, dtype one of F32/F64/I64/I32, each
 * tensor's byte length equal to prod(shape) * dtype size, and the tensors'
 * byte ranges, sorted, tiling the data exactly: starting at 0, no overlap, no
 * gap, ending at the end of the file.  Anything else is LS_EFORMAT with a
 * message "NAME: problem".  st_parse is a pure function over a buffer (the
 * libFuzzer harness tests/fuzz/fuzz_safetensors.c calls it).
 *
 * The writer builds the whole file in memory and writes it with
 * ls_write_file_atomic: nothing half-written is ever found under the path.
 * It pads the header with spaces to a multiple of 8 bytes, as the Python
 * `safetensors` package does, so the data is 8-byte aligned in the file.
 *
 * Parameter names (st_load_params / st_save_params): lockstep's own tensor
 * names, which are a PyTorch module's state_dict names for a model written
 * with attributes conv1, conv2, ..., fc1, fc2, ... (write-up B's SmallCNN:
 * conv1.weight, conv1.bias, conv2.*, fc1.*, fc2.*), numbered per kind in
 * layer order.  The reader also accepts the names of the same model written
 * as one torch.nn.Sequential (Conv2d, ReLU, MaxPool2d, Flatten, Linear,
 * Dropout, one module per spec line): "<layer index>.weight", e.g.
 * SmallCNN's 0.*, 3.*, 7.*, 9.*.  Layouts are PyTorch's: OIHW for
 * convolutions, (out, in) for dense layers, and a dense layer after a
 * flatten reads its input in (C, H, W) order, which is NCHW memory as
 * lockstep keeps it.
 *
 * Not here: running engines (export.c), batch orders (order.h).
 */
#ifndef LS_SAFETENSORS_H
#define LS_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "model/tensor.h"
#include "model/model.h"

#define ST_MAX_NDIM 8
#define ST_MAX_HEADER ((size_t)100 << 20) /* the Python package's own limit */
#define ST_MAX_NAME 255

typedef enum { ST_F32, ST_F64, ST_I64, ST_I32 } st_dtype;

const char *st_dtype_name(st_dtype d); /* "F32", ... */
size_t st_dtype_size(st_dtype d);

typedef struct {
    char name[ST_MAX_NAME + 1];
    st_dtype dtype;
    int ndim;                      /* 0: a scalar (one value) */
    uint64_t shape[ST_MAX_NDIM];
    size_t numel;
    size_t begin, end;             /* byte offsets into the data section */
    const unsigned char *data;     /* end - begin bytes, inside the parsed buffer; may be unaligned */
} st_tensor;

typedef struct {
    char path[512];                /* the name errors use */
    size_t n;
    st_tensor *t;                  /* in header order */
    size_t n_meta;
    char **meta_key, **meta_val;
    unsigned char *owned;          /* the file's bytes when st_read read them */
} st_file;

/* Parse len bytes (not copied: tensors point into buf, which must outlive
 * out).  Returns 0, LS_EFORMAT ("name: problem") or LS_ENOMEM; on error out
 * is left with nothing to free. */
int st_parse(st_file *out, const void *buf, size_t len, const char *name_for_errors);
/* Read a whole file and parse it (LS_EIO when it cannot be read). */
int st_read(st_file *out, const char *path);
void st_free(st_file *f);
const st_tensor *st_find(const st_file *f, const char *name);
const char *st_meta(const st_file *f, const char *key); /* NULL when absent */
/* Copy a tensor's values out (memcpy: the data may be unaligned). */
void st_tensor_copy(const st_tensor *t, void *out);

/* ---- writing ----------------------------------------------------------- */
typedef struct st_writer st_writer;

int st_writer_new(st_writer **out);
/* Append a tensor; data (prod(shape) values of dtype) is copied.  Names
 * must be unique and 1..ST_MAX_NAME bytes (LS_EINVAL otherwise). */
int st_writer_add(st_writer *w, const char *name, st_dtype dtype, int ndim, const size_t *shape, const void *data);
int st_writer_meta(st_writer *w, const char *key, const char *val);
/* Write the file atomically.  Does not free w. */
int st_writer_write(st_writer *w, const char *path);
void st_writer_free(st_writer *w);

/* ---- a model's parameters ----------------------------------------------- */

/* Fill params (m->n_params floats) from a safetensors file: every weight
 * and bias present, F32, in the model's exact shape, under one naming
 * scheme (see above).  Tensors named "optim/..." (Adam state written by
 * --save-optimizer) are skipped; any other name is an error, as is a
 * missing tensor.  Errors name the file and the tensor. */
int st_load_params(const model *m, const char *path, float *params);

/* The run's initial weights: from init_path when it is not NULL (the
 * values bit for bit), else lockstep's seeded PyTorch-style draw. */
int st_init_params(const model *m, const char *init_path, uint64_t seed, float *params);

/* Adam state to save next to the weights (NULL: weights only). */
typedef struct {
    const float *m, *v; /* n_params each, model.h's layout */
    long step;          /* Adam steps taken (PyTorch's state "step") */
    adam_cfg cfg;
    size_t batch, n_train; /* the run's batch and training images, so a resume can check its position (0: not written) */
} st_optim;

/* Write the weights under lockstep's (= the PyTorch module's) names, and
 * with opt the Adam moments as "optim/<param>/exp_avg" and
 * ".../exp_avg_sq" (PyTorch's names for m and v) with the step and the
 * settings in the metadata. */
int st_save_params(const model *m, const char *path, const float *params, const st_optim *opt);

/* Adam state read back from a --save-optimizer file (to resume a run). */
typedef struct {
    int present;         /* 0: the file has no optim/ tensors (mbuf, vbuf untouched) */
    long step;           /* metadata optim.step: the steps taken */
    adam_cfg cfg;        /* optim.lr, optim.beta1, optim.beta2, optim.eps */
    long batch, n_train; /* optim.batch, optim.n_train; -1 when not recorded */
} st_optim_in;

/* Read "optim/<param>/exp_avg" and ".../exp_avg_sq" for every parameter
 * (F32, the parameter's size) into mbuf/vbuf (n_params floats each, model.h's
 * layout) and the step and settings from the metadata.  A file without
 * optim/ tensors is not an error (present = 0); one with some but not all,
 * an unknown optim/ name, or no optim.step is. */
int st_load_optim(const model *m, const char *path, float *mbuf, float *vbuf, st_optim_in *out);

#endif
