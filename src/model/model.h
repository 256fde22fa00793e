/*
 * model.h — sequential CNNs: the layer list, shapes, the flat parameter
 * table and PyTorch-style initialisation.
 *
 * A model is a list of layers with per-sample shapes worked out once.  All
 * parameters live in one flat fp32 buffer (and gradients, Adam m and v in
 * buffers of the same layout); `model_tensor` rows give each tensor's name,
 * offset and shape.  Every engine, golden file and report speaks this layout.
 * Weights are OIHW for convolutions and (out, in) for dense layers, biases
 * follow their weight.  Activations are NCHW (dense: (N, features)).
 *
 * Not here: any arithmetic on tensors (engines do that).
 */
#ifndef LS_MODEL_H
#define LS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_LAYERS 32
#define MODEL_MAX_TENSORS (2 * MODEL_MAX_LAYERS)

typedef enum {
    LAYER_CONV,    /* k x k, stride 1, zero padding `pad`, bias */
    LAYER_RELU,
    LAYER_MAXPOOL, /* 2x2, stride 2, floor (PyTorch's default) */
    LAYER_FLATTEN, /* a no-op on NCHW memory; kept so shapes read like the spec */
    LAYER_DENSE,   /* y = W x + b, W is (out, in) */
    LAYER_DROPOUT, /* training only: x * mask / (1 - p) */
} layer_kind;

typedef struct {
    layer_kind kind;
    char name[16];          /* "conv1", "relu1", "pool1", "fc1", ... */
    int in_c, in_h, in_w;   /* per-sample input shape (dense: in_c = features, h = w = 1) */
    int out_c, out_h, out_w;
    int k, pad;             /* conv only */
    float p;                /* dropout only */
    int w_tensor, b_tensor; /* index into model.tensors, -1 if none */
} layer;

typedef struct {
    char name[24];   /* "conv1.weight" */
    size_t offset;   /* into the flat buffer, in floats */
    size_t numel;
    int layer;
    int is_bias;
    int ndim;
    int shape[4];
    int fan_in;      /* for initialisation bound 1/sqrt(fan_in) */
} model_tensor;

typedef struct {
    char name[64];            /* "smallcnn", "mnist-convnet" or the spec file's base name */
    int in_c, in_h, in_w;
    int n_classes;
    int n_layers;
    layer layers[MODEL_MAX_LAYERS];
    int n_tensors;
    model_tensor tensors[MODEL_MAX_TENSORS];
    size_t n_params;
    char spec[1024];          /* canonical one-line text of the model, hashed into goldens */
} model;

static inline size_t layer_in_size(const layer *l) { return (size_t)l->in_c * l->in_h * l->in_w; }
static inline size_t layer_out_size(const layer *l) { return (size_t)l->out_c * l->out_h * l->out_w; }

/* Build from a name ("smallcnn", "mnist-convnet") or a spec file path.
 * The spec text: one layer per line (or separated by ';'), '#' comments:
 *     input 1 28 28
 *     conv 16 3 pad 1        # out-channels, kernel, optional padding
 *     relu
 *     maxpool
 *     flatten
 *     dense 64
 *     dropout 0.5
 *     dense 10               # the last dense gives the logits
 * Errors name the file, the line and the problem (impossible shapes too). */
int model_build(model *m, const char *name_or_path);
int model_parse_spec(model *m, const char *text, const char *source_name);

/* The index of the last layer that has parameters, or -1. */
int model_first_param_layer(const model *m);

/* Whether layer l computes a gradient of its input (DACT of layer l - 1):
 * not for the first layer, nor after layers that are all flatten (views
 * of the image, as in an MLP's "input; flatten; dense ...": no engine needs
 * the image's gradient, and the cpu engine computes none). */
int model_grad_in(const model *m, int l);

/* Fill params (n_params floats) with PyTorch's default scheme: every weight
 * and bias uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn in fp32 from
 * the Philox init stream (counter {index, tensor, 0, INIT}). */
void model_init_params(const model *m, float *params, uint64_t seed);

/* 64-bit FNV-1a of the canonical spec: the model's identity in goldens. */
uint64_t model_hash(const model *m);

/* Human-readable multi-line summary (layer, output shape, parameters). */
void model_print(const model *m, void *file /* FILE* */);

#endif
