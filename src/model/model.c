/*
 * model.c — built-in models, the text spec parser, the flat parameter table
 * and PyTorch-style initialisation.  See model.h.
 */
#include "model/model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/util.h"

static const char SMALLCNN_SPEC[] =
    "input 1 28 28; conv 16 3 pad 1; relu; maxpool; conv 32 3 pad 1; relu; maxpool; "
    "flatten; dense 64; relu; dense 10";
static const char MNIST_CONVNET_SPEC[] =
    "input 1 28 28; conv 32 3; relu; maxpool; conv 64 3; relu; maxpool; "
    "flatten; dropout 0.5; dense 10";

/* Register a weight or bias tensor for layer li and return its index. */
static int add_tensor(model *m, int li, int is_bias, int ndim, const int *shape, int fan_in) {
    model_tensor *t = &m->tensors[m->n_tensors];
    char lname[sizeof m->layers[0].name];
    memcpy(lname, m->layers[li].name, sizeof lname);
    snprintf(t->name, sizeof t->name, "%s.%s", lname, is_bias ? "bias" : "weight");
    t->offset = m->n_params;
    t->layer = li;
    t->is_bias = is_bias;
    t->ndim = ndim;
    t->numel = 1;
    for (int d = 0; d < 4; d++) t->shape[d] = d < ndim ? shape[d] : 1;
    for (int d = 0; d < ndim; d++) t->numel *= (size_t)shape[d];
    t->fan_in = fan_in;
    m->n_params += t->numel;
    return m->n_tensors++;
}

/* Size caps, so that every size fits an int and a run can be held in
 * memory: a per-sample tensor (input or a layer's output) of at most 2^26
 * values (256 MiB of fp32 per image), at most 2^30 parameters (4 GiB of
 * fp32; Adam keeps three more copies). */
#define MODEL_MAX_VALUES (1ll << 26)
#define MODEL_MAX_PARAMS (1ll << 30)

/* Split the next non-empty statement off *p (up to ';' or a newline, '#'
 * starts a comment to the end of the line), trimmed, into out; *line counts
 * newlines consumed and *stmt_line gets the statement's own line.  Returns
 * 1, 0 at the end, or -1 when the statement does not fit in cap (it is
 * refused, never cut: "conv 16 3<250 spaces>pad 1" is not "conv 16 3"). */
static int next_statement(const char **p, char *out, size_t cap, int *line, int *stmt_line) {
    while (**p) {
        size_t n = 0;
        int in_comment = 0, too_long = 0;
        *stmt_line = *line;
        while (**p && **p != ';' && **p != '\n') {
            if (**p == '#') in_comment = 1;
            if (!in_comment) {
                if (n + 1 < cap) out[n++] = **p;
                else too_long = 1;
            }
            (*p)++;
        }
        if (too_long) return -1;
        if (**p == '\n') (*line)++;
        if (**p) (*p)++;
        out[n] = 0;
        char *a = out;
        while (*a && isspace((unsigned char)*a)) a++;
        if (a != out) memmove(out, a, strlen(a) + 1);
        size_t len = strlen(out);
        while (len > 0 && isspace((unsigned char)out[len - 1])) out[--len] = 0;
        if (len > 0) return 1;
    }
    return 0;
}

static int parse_int(const char *tok, int lo, int hi, int *out) {
    if (!tok) return -1;
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (errno || *end || end == tok || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* What the parser carries from one statement to the next: the shape flowing
 * into the next layer and the per-kind counters that number layer names. */
typedef struct {
    int c, h, w, spatial;
    int n_conv, n_relu, n_pool, n_dense, n_drop, n_flat;
} spec_state;

/* 'input C H W': the image shape; only before the first layer. */
static int parse_input_stmt(model *m, spec_state *st, char **tok, int nt, const char *stmt, const char *src,
                            int stmt_line) {
    int c = st->c, h = st->h, w = st->w;
    if (m->n_layers > 0) return ls_err(LS_EINVAL, "%s:%d: 'input' must come before the layers", src, stmt_line);
    if (nt != 4 || parse_int(tok[1], 1, 4096, &c) || parse_int(tok[2], 1, 4096, &h) ||
        parse_int(tok[3], 1, 4096, &w))
        return ls_err(LS_EINVAL, "%s:%d: expected 'input C H W' with positive sizes, got '%s'", src, stmt_line, stmt);
    if ((long long)c * h * w > MODEL_MAX_VALUES)
        return ls_err(LS_EINVAL, "%s:%d: input %dx%dx%d is %lld values per image, more than the cap of %lld "
                      "(256 MiB of fp32)", src, stmt_line, c, h, w, (long long)c * h * w, MODEL_MAX_VALUES);
    st->c = c;
    st->h = h;
    st->w = w;
    m->in_c = c;
    m->in_h = h;
    m->in_w = w;
    return LS_OK;
}

/* 'conv OUT_CHANNELS KERNEL [pad P]' on a spatial input. */
static int parse_conv_stmt(layer *l, spec_state *st, char **tok, int nt, const char *stmt, const char *src,
                           int stmt_line) {
    int oc, k, pad = 0;
    int c = st->c, h = st->h, w = st->w;
    if (!(nt == 3 || (nt == 5 && strcmp(tok[3], "pad") == 0)) || parse_int(tok[1], 1, 65536, &oc) ||
        parse_int(tok[2], 1, 64, &k) || (nt == 5 && parse_int(tok[4], 0, 64, &pad)))
        return ls_err(LS_EINVAL, "%s:%d: expected 'conv OUT_CHANNELS KERNEL [pad P]', got '%s'",
                      src, stmt_line, stmt);
    if (!st->spatial)
        return ls_err(LS_EINVAL, "%s:%d: conv needs a spatial input, but the input here is flat (%d features)",
                      src, stmt_line, c * h * w);
    int oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
    if (oh < 1 || ow < 1)
        return ls_err(LS_EINVAL, "%s:%d: impossible shape: conv %dx%d pad %d on a %dx%d input gives %dx%d",
                      src, stmt_line, k, k, pad, h, w, oh, ow);
    /* sizes in 64 bits: 65536 channels of 4096x4096 wrap an int */
    long long outv = (long long)oc * oh * ow, wv = (long long)oc * c * k * k;
    if (outv > MODEL_MAX_VALUES)
        return ls_err(LS_EINVAL, "%s:%d: conv output %dx%dx%d is %lld values per image, more than the cap "
                      "of %lld (256 MiB of fp32)", src, stmt_line, oc, oh, ow, outv, MODEL_MAX_VALUES);
    if (wv > MODEL_MAX_PARAMS)
        return ls_err(LS_EINVAL, "%s:%d: conv weights %dx%dx%dx%d are %lld values, more than the cap of "
                      "%lld parameters", src, stmt_line, oc, c, k, k, wv, MODEL_MAX_PARAMS);
    l->kind = LAYER_CONV;
    l->k = k;
    l->pad = pad;
    snprintf(l->name, sizeof l->name, "conv%d", ++st->n_conv);
    st->c = oc;
    st->h = oh;
    st->w = ow;
    return LS_OK;
}

/* 'dense OUT_FEATURES': reads its input as flat features. */
static int parse_dense_stmt(layer *l, spec_state *st, char **tok, int nt, const char *stmt, const char *src,
                            int stmt_line) {
    int out;
    int c = st->c, h = st->h, w = st->w;
    if (nt != 2 || parse_int(tok[1], 1, 1 << 20, &out))
        return ls_err(LS_EINVAL, "%s:%d: expected 'dense OUT_FEATURES', got '%s'", src, stmt_line, stmt);
    long long wv = (long long)out * c * h * w;
    if (wv > MODEL_MAX_PARAMS)
        return ls_err(LS_EINVAL, "%s:%d: dense %d on %lld features is %lld weights, more than the cap of "
                      "%lld parameters", src, stmt_line, out, (long long)c * h * w, wv, MODEL_MAX_PARAMS);
    l->kind = LAYER_DENSE;
    snprintf(l->name, sizeof l->name, "fc%d", ++st->n_dense);
    /* a dense layer reads its NCHW input as flat features */
    l->in_c = c * h * w;
    l->in_h = l->in_w = 1;
    st->c = out;
    st->h = st->w = 1;
    st->spatial = 0;
    return LS_OK;
}

/* 'dropout P' with P checked as the float it is stored as. */
static int parse_dropout_stmt(layer *l, spec_state *st, char **tok, int nt, const char *stmt, const char *src,
                              int stmt_line) {
    char *end;
    double pv = nt == 2 ? strtod(tok[1], &end) : -1;
    /* checked as stored: 0.99999999 rounds to the float 1.0,
     * which would drop every activation */
    float pf = (float)pv;
    if (nt != 2 || *end || !(pv >= 0.0 && pv < 1.0) || !(pf < 1.0f))
        return ls_err(LS_EINVAL, "%s:%d: expected 'dropout P' with 0 <= P < 1 (as a float: P <= 1 - 2^-24), "
                      "got '%s'", src, stmt_line, stmt);
    l->kind = LAYER_DROPOUT;
    l->p = pf;
    snprintf(l->name, sizeof l->name, "drop%d", ++st->n_drop);
    return LS_OK;
}

/* Any statement but 'input': appends one layer to m and moves the shape on. */
static int parse_layer_stmt(model *m, spec_state *st, char **tok, int nt, const char *stmt, const char *src,
                            int stmt_line) {
    if (m->n_layers >= MODEL_MAX_LAYERS)
        return ls_err(LS_EINVAL, "%s:%d: more than %d layers", src, stmt_line, MODEL_MAX_LAYERS);
    layer *l = &m->layers[m->n_layers];
    memset(l, 0, sizeof *l);
    l->in_c = st->c;
    l->in_h = st->h;
    l->in_w = st->w;
    l->w_tensor = l->b_tensor = -1;
    int rc = LS_OK;
    if (strcmp(tok[0], "conv") == 0) {
        rc = parse_conv_stmt(l, st, tok, nt, stmt, src, stmt_line);
    } else if (strcmp(tok[0], "relu") == 0 && nt == 1) {
        l->kind = LAYER_RELU;
        snprintf(l->name, sizeof l->name, "relu%d", ++st->n_relu);
    } else if (strcmp(tok[0], "maxpool") == 0 && nt == 1) {
        if (!st->spatial)
            return ls_err(LS_EINVAL, "%s:%d: maxpool needs a spatial input, but the input here is flat", src, stmt_line);
        if (st->h < 2 || st->w < 2)
            return ls_err(LS_EINVAL, "%s:%d: impossible shape: maxpool 2x2 on a %dx%d input", src, stmt_line, st->h,
                          st->w);
        l->kind = LAYER_MAXPOOL;
        snprintf(l->name, sizeof l->name, "pool%d", ++st->n_pool);
        st->h /= 2;
        st->w /= 2;
    } else if (strcmp(tok[0], "flatten") == 0 && nt == 1) {
        l->kind = LAYER_FLATTEN;
        st->n_flat++;
        if (st->n_flat == 1) snprintf(l->name, sizeof l->name, "flatten");
        else snprintf(l->name, sizeof l->name, "flatten%d", st->n_flat % 100);
        st->c = st->c * st->h * st->w;
        st->h = st->w = 1;
        st->spatial = 0;
    } else if (strcmp(tok[0], "dense") == 0) {
        rc = parse_dense_stmt(l, st, tok, nt, stmt, src, stmt_line);
    } else if (strcmp(tok[0], "dropout") == 0) {
        rc = parse_dropout_stmt(l, st, tok, nt, stmt, src, stmt_line);
    } else {
        return ls_err(LS_EINVAL,
                      "%s:%d: unknown layer '%s' (known: input, conv, relu, maxpool, flatten, dense, dropout)",
                      src, stmt_line, stmt);
    }
    if (rc) return rc;
    l->out_c = st->c;
    l->out_h = st->h;
    l->out_w = st->w;
    m->n_layers++;
    return LS_OK;
}

/* After the last statement: the logits layer, the spec with its own "input"
 * line first, the parameter table and the model's name. */
static int finish_spec(model *m, const char *src) {
    if (m->n_layers == 0) return ls_err(LS_EINVAL, "%s: no layers", src);
    const layer *last = &m->layers[m->n_layers - 1];
    if (last->kind != LAYER_DENSE)
        return ls_err(LS_EINVAL, "%s: the last layer must be 'dense N' (the logits), not %s", src, last->name);
    if (last->out_c < 2) return ls_err(LS_EINVAL, "%s: the logits layer needs at least 2 classes", src);
    m->n_classes = last->out_c;
    /* spec's own "input" line first */
    char full[1024];
    int n = snprintf(full, sizeof full, "input %d %d %d; %s", m->in_c, m->in_h, m->in_w, m->spec);
    if (n < 0 || (size_t)n >= sizeof full) return ls_err(LS_EINVAL, "%s: model spec too long", src);
    memcpy(m->spec, full, sizeof m->spec);
    /* parameter table, layer order, weight then bias; every tensor is
     * below the cap (checked above), their sum is checked here */
    long long total = 0;
    for (int i = 0; i < m->n_layers; i++) {
        const layer *l = &m->layers[i];
        if (l->kind == LAYER_CONV) total += (long long)l->out_c * l->in_c * l->k * l->k + l->out_c;
        else if (l->kind == LAYER_DENSE) total += (long long)l->out_c * l->in_c + l->out_c;
    }
    if (total > MODEL_MAX_PARAMS)
        return ls_err(LS_EINVAL, "%s: %lld parameters, more than the cap of %lld (4 GiB of fp32)", src, total,
                      MODEL_MAX_PARAMS);
    for (int i = 0; i < m->n_layers; i++) {
        layer *l = &m->layers[i];
        if (l->kind == LAYER_CONV) {
            int ws[4] = {l->out_c, l->in_c, l->k, l->k}, bs[1] = {l->out_c};
            int fan = l->in_c * l->k * l->k;
            l->w_tensor = add_tensor(m, i, 0, 4, ws, fan);
            l->b_tensor = add_tensor(m, i, 1, 1, bs, fan);
        } else if (l->kind == LAYER_DENSE) {
            int ws[2] = {l->out_c, l->in_c}, bs[1] = {l->out_c};
            l->w_tensor = add_tensor(m, i, 0, 2, ws, l->in_c);
            l->b_tensor = add_tensor(m, i, 1, 1, bs, l->in_c);
        }
    }
    const char *base = strrchr(src, '/');
    snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : src);
    return LS_OK;
}

int model_parse_spec(model *m, const char *text, const char *src) {
    memset(m, 0, sizeof *m);
    m->in_c = 1;
    m->in_h = 28;
    m->in_w = 28;
    spec_state st = {.c = 1, .h = 28, .w = 28, .spatial = 1};
    const char *p = text;
    char stmt[256];
    int line = 1, stmt_line = 1;
    size_t spec_len = 0;
    while (1) {
        int ns = next_statement(&p, stmt, sizeof stmt, &line, &stmt_line);
        if (ns < 0)
            return ls_err(LS_EINVAL, "%s:%d: statement longer than %zu characters", src, stmt_line, sizeof stmt - 1);
        if (ns == 0) break;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", stmt);
        char *tok[8] = {0};
        int nt = 0;
        for (char *s = strtok(buf, " \t\r"); s && nt < 8; s = strtok(NULL, " \t\r")) tok[nt++] = s;
        if (nt == 0) continue;
        int is_input = strcmp(tok[0], "input") == 0;
        int rc = is_input ? parse_input_stmt(m, &st, tok, nt, stmt, src, stmt_line)
                          : parse_layer_stmt(m, &st, tok, nt, stmt, src, stmt_line);
        if (rc) return rc;
        if (is_input) continue;
        int n = snprintf(m->spec + spec_len, sizeof m->spec - spec_len, "%s%s", spec_len ? "; " : "", stmt);
        if (n < 0 || (size_t)n >= sizeof m->spec - spec_len)
            return ls_err(LS_EINVAL, "%s: model spec longer than %zu characters", src, sizeof m->spec);
        spec_len += (size_t)n;
    }
    return finish_spec(m, src);
}

int model_build(model *m, const char *name_or_path) {
    if (strcmp(name_or_path, "smallcnn") == 0 || strcmp(name_or_path, "mnist-convnet") == 0) {
        const char *spec = name_or_path[0] == 's' ? SMALLCNN_SPEC : MNIST_CONVNET_SPEC;
        int rc = model_parse_spec(m, spec, name_or_path);
        if (rc == 0) snprintf(m->name, sizeof m->name, "%s", name_or_path);
        return rc;
    }
    /* a FIFO or device is refused before anything blocks on it */
    struct stat sb;
    if (stat(name_or_path, &sb) != 0 && errno == ENOENT)
        return ls_err(LS_EIO, "%s: not a built-in model (smallcnn, mnist-convnet) and no such spec file", name_or_path);
    int fd = ls_open_regular(name_or_path, NULL);
    if (fd < 0) {
        /* "PATH: not a regular file (a FIFO)", the path in front */
        char why[1024];
        snprintf(why, sizeof why, "%s", ls_errmsg());
        return ls_err(fd, "%s, and not a built-in model (smallcnn, mnist-convnet)", why);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return ls_err(LS_ENOMEM, "%s: fdopen: %s", name_or_path, strerror(errno));
    }
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    int rd_err = ferror(f), more = !feof(f) && fgetc(f) != EOF;
    fclose(f);
    if (rd_err) return ls_err(LS_EIO, "%s: read error", name_or_path);
    if (more) return ls_err(LS_EINVAL, "%s: spec file larger than %zu bytes", name_or_path, sizeof text - 1);
    text[n] = 0;
    if (memchr(text, 0, n)) return ls_err(LS_EFORMAT, "%s: not a text file (contains NUL bytes)", name_or_path);
    return model_parse_spec(m, text, name_or_path);
}

int model_first_param_layer(const model *m) {
    for (int i = 0; i < m->n_layers; i++)
        if (m->layers[i].w_tensor >= 0) return i;
    return -1;
}

int model_grad_in(const model *m, int l) {
    for (int k = 0; k < l && k < m->n_layers; k++)
        if (m->layers[k].kind != LAYER_FLATTEN) return 1;
    return 0;
}

void model_init_params(const model *m, float *params, uint64_t seed) {
    for (int ti = 0; ti < m->n_tensors; ti++) {
        const model_tensor *t = &m->tensors[ti];
        /* bound rounded to fp32 once; u*2-1 is exact for u = k*2^-24, and
         * the product is one rounding: the same value on every machine */
        float bound = (float)(1.0 / sqrt((double)t->fan_in));
        float *p = params + t->offset;
        for (size_t i = 0; i < t->numel; i++) {
            float u = rng_uniform(seed, (uint32_t)i, (uint32_t)ti, 0, RNG_STREAM_INIT);
            p[i] = (u * 2.0f - 1.0f) * bound;
        }
    }
}

uint64_t model_hash(const model *m) {
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *s = (const unsigned char *)m->spec; *s; s++) {
        h ^= *s;
        h *= 1099511628211ull;
    }
    return h;
}

void model_print(const model *m, void *file) {
    FILE *f = file;
    fprintf(f, "model %s: %zu parameters, input %dx%dx%d, %d classes\n", m->name, m->n_params, m->in_c, m->in_h,
            m->in_w, m->n_classes);
    for (int i = 0; i < m->n_layers; i++) {
        const layer *l = &m->layers[i];
        size_t np = 0;
        if (l->w_tensor >= 0) np = m->tensors[l->w_tensor].numel + m->tensors[l->b_tensor].numel;
        fprintf(f, "  %2d %-8s -> %4d x %3d x %3d", i, l->name, l->out_c, l->out_h, l->out_w);
        if (np) fprintf(f, "   %zu params", np);
        if (l->kind == LAYER_DROPOUT) fprintf(f, "   p=%g", (double)l->p);
        fprintf(f, "\n");
    }
}
