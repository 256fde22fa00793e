/*
 * safetensors.c — safetensors reader and writer, and a model's parameters
 * in PyTorch's names.  See safetensors.h for the format and the rules.
 *
 * JSON: jansson (Debian's libjansson-dev), not a parser of our own.  It
 * rejects duplicate keys when asked (JSON_REJECT_DUPLICATES: two entries for
 * one tensor name would otherwise silently keep one), keeps integers as
 * 64-bit (offsets beyond 2^53 stay exact), validates UTF-8, reports the
 * position of a syntax error, and parses a buffer of a given length
 * (json_loadb), so the header needs no NUL terminator and no copy.
 *
 * Not here: what tensors mean beyond parameters (export.c).
 */
#include "formats/safetensors.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.c copies little-endian values as they are: port the byte order first"
#endif

static const char *const DTYPE_NAMES[] = {"F32", "F64", "I64", "I32"};
static const size_t DTYPE_SIZES[] = {4, 8, 8, 4};

const char *st_dtype_name(st_dtype d) { return DTYPE_NAMES[d]; }
size_t st_dtype_size(st_dtype d) { return DTYPE_SIZES[d]; }

void st_free(st_file *f) {
    if (!f) return;
    free(f->t);
    for (size_t i = 0; i < f->n_meta; i++) {
        free(f->meta_key[i]);
        free(f->meta_val[i]);
    }
    free(f->meta_key);
    free(f->meta_val);
    free(f->owned);
    memset(f, 0, sizeof *f);
}

/* by begin, then end: zero-length tensors sort before a tensor that starts
 * where they are */
static int cmp_range(const void *a, const void *b) {
    const st_tensor *x = *(const st_tensor *const *)a, *y = *(const st_tensor *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

/* A JSON integer in [0, max], else -1. */
static int json_u64(const json_t *v, uint64_t max, uint64_t *out) {
    if (!json_is_integer(v)) return -1;
    json_int_t i = json_integer_value(v);
    if (i < 0 || (uint64_t)i > max) return -1;
    *out = (uint64_t)i;
    return 0;
}

static int parse_entry(st_tensor *t, const char *name, const json_t *v, size_t data_len, const char *fn) {
    if (!json_is_object(v)) return ls_err(LS_EFORMAT, "%s: header entry \"%s\" is not an object", fn, name);
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
        if (strcmp(k, "dtype") && strcmp(k, "shape") && strcmp(k, "data_offsets"))
            return ls_err(LS_EFORMAT, "%s: tensor \"%s\" has an unknown field \"%s\" (want dtype, shape, data_offsets)",
                          fn, name, k);
    }
    const json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"),
                 *off = json_object_get(v, "data_offsets");
    if (!dt || !sh || !off)
        return ls_err(LS_EFORMAT, "%s: tensor \"%s\" lacks %s", fn, name, !dt ? "dtype" : !sh ? "shape" : "data_offsets");
    if (!json_is_string(dt)) return ls_err(LS_EFORMAT, "%s: tensor \"%s\": dtype is not a string", fn, name);
    const char *ds = json_string_value(dt);
    int found = -1;
    for (int i = 0; i < (int)LS_ARRAY_LEN(DTYPE_NAMES); i++)
        if (strcmp(ds, DTYPE_NAMES[i]) == 0) found = i;
    if (found < 0)
        return ls_err(LS_EFORMAT, "%s: tensor \"%s\" has dtype \"%.16s\": the reader knows F32, F64, I64 and I32 (weights for --init must be F32: tensor.float())",
                      fn, name, ds);
    t->dtype = (st_dtype)found;
    if (!json_is_array(sh) || json_array_size(sh) > ST_MAX_NDIM)
        return ls_err(LS_EFORMAT, "%s: tensor \"%s\": shape is not an array of at most %d sizes", fn, name, ST_MAX_NDIM);
    t->ndim = (int)json_array_size(sh);
    /* numel * size must fit the data, which fits in memory: any product
     * beyond data_len is already wrong, so checking each factor against it
     * (and the running product) cannot overflow */
    uint64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (json_u64(json_array_get(sh, (size_t)d), UINT32_MAX, &t->shape[d]))
            return ls_err(LS_EFORMAT, "%s: tensor \"%s\": shape[%d] is not an integer in 0..2^32-1", fn, name, d);
        /* saturate (the size check below fails) before the product can wrap */
        if (t->shape[d] && numel > ((uint64_t)data_len + 1) / t->shape[d]) numel = (uint64_t)data_len + 1;
        else numel *= t->shape[d];
    }
    uint64_t b, e;
    if (!json_is_array(off) || json_array_size(off) != 2 || json_u64(json_array_get(off, 0), INT64_MAX, &b) ||
        json_u64(json_array_get(off, 1), INT64_MAX, &e))
        return ls_err(LS_EFORMAT, "%s: tensor \"%s\": data_offsets must be [begin, end], two non-negative integers",
                      fn, name);
    if (e > data_len || b > data_len)
        return ls_err(LS_EFORMAT, "%s: tensor \"%s\": data_offsets [%llu, %llu] run past the %zu data bytes of the "
                      "file: truncated, or offsets out of range", fn, name, (unsigned long long)b,
                      (unsigned long long)e, data_len);
    if (b > e) return ls_err(LS_EFORMAT, "%s: tensor \"%s\": data_offsets begin %llu > end %llu", fn, name,
                             (unsigned long long)b, (unsigned long long)e);
    if (numel * DTYPE_SIZES[t->dtype] != e - b)
        return ls_err(LS_EFORMAT, "%s: tensor \"%s\": %llu bytes at data_offsets, but dtype %s and its shape need %llu",
                      fn, name, (unsigned long long)(e - b), ds, (unsigned long long)(numel * DTYPE_SIZES[t->dtype]));
    t->numel = (size_t)numel;
    t->begin = (size_t)b;
    t->end = (size_t)e;
    return LS_OK;
}

int st_parse(st_file *out, const void *buf, size_t len, const char *fn) {
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", fn);
    const unsigned char *p = buf;
    if (len < 8) return ls_err(LS_EFORMAT, "%s: %zu bytes: too short for a safetensors file (8-byte header length)", fn, len);
    /* lockstep's own files are the likely mistake: say which it is */
    if (memcmp(p, "\x89LSG", 4) == 0)
        return ls_err(LS_EFORMAT, "%s: a lockstep golden file or recording (\\x89LSG magic), not a safetensors file",
                      fn);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | p[i];
    if (n < 2 || n > ST_MAX_HEADER)
        return ls_err(LS_EFORMAT, "%s: header length %llu is outside 2..%zu: not a safetensors file", fn,
                      (unsigned long long)n, ST_MAX_HEADER);
    if (n > len - 8)
        return ls_err(LS_EFORMAT, "%s: header length %llu runs past the end of the file (%zu bytes): truncated?", fn,
                      (unsigned long long)n, len);
    const char *h = (const char *)p + 8;
    if (h[0] != '{') return ls_err(LS_EFORMAT, "%s: the header does not start with '{'", fn);
    size_t data_len = len - 8 - (size_t)n;
    const unsigned char *data = p + 8 + n;
    json_error_t jerr;
    json_t *root = json_loadb(h, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return ls_err(LS_EFORMAT, "%s: the header is not valid JSON: %s (line %d, column %d)", fn, jerr.text, jerr.line,
                      jerr.column);
    int rc = LS_OK;
    st_tensor **order = NULL;
    if (!json_is_object(root)) {
        rc = ls_err(LS_EFORMAT, "%s: the header is not a JSON object", fn);
        goto done;
    }
    size_t n_all = json_object_size(root);
    const json_t *meta = json_object_get(root, "__metadata__");
    size_t nt = n_all - (meta ? 1 : 0);
    out->t = calloc(nt ? nt : 1, sizeof *out->t);
    order = calloc(nt ? nt : 1, sizeof *order);
    if (!out->t || !order) {
        rc = ls_err(LS_ENOMEM, "%s: out of memory", fn);
        goto done;
    }
    if (meta) {
        if (!json_is_object(meta)) {
            rc = ls_err(LS_EFORMAT, "%s: __metadata__ is not an object", fn);
            goto done;
        }
        size_t nm = json_object_size(meta);
        out->meta_key = calloc(nm ? nm : 1, sizeof *out->meta_key);
        out->meta_val = calloc(nm ? nm : 1, sizeof *out->meta_val);
        if (!out->meta_key || !out->meta_val) {
            rc = ls_err(LS_ENOMEM, "%s: out of memory", fn);
            goto done;
        }
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)meta, k, v) {
            if (!json_is_string(v)) {
                rc = ls_err(LS_EFORMAT, "%s: __metadata__ \"%.64s\" is not a string (safetensors metadata is string to string)",
                            fn, k);
                goto done;
            }
            out->meta_key[out->n_meta] = strdup(k);
            out->meta_val[out->n_meta] = strdup(json_string_value(v));
            if (!out->meta_key[out->n_meta] || !out->meta_val[out->n_meta]) {
                out->n_meta++;
                rc = ls_err(LS_ENOMEM, "%s: out of memory", fn);
                goto done;
            }
            out->n_meta++;
        }
    }
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) {
        if (strcmp(k, "__metadata__") == 0) continue;
        size_t kl = strlen(k);
        if (kl == 0 || kl > ST_MAX_NAME) {
            rc = ls_err(LS_EFORMAT, "%s: a tensor name of %zu bytes (want 1..%d)", fn, kl, ST_MAX_NAME);
            goto done;
        }
        st_tensor *t = &out->t[out->n];
        memcpy(t->name, k, kl + 1);
        if ((rc = parse_entry(t, t->name, v, data_len, fn))) goto done;
        t->data = data + t->begin;
        order[out->n] = t;
        out->n++;
    }
    /* the byte ranges must tile the data exactly: a gap is bytes nobody
     * owns (a writer bug or a spliced file), an overlap two tensors sharing
     * bytes, and either way the file is not what its header says */
    qsort(order, out->n, sizeof *order, cmp_range);
    size_t at = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (order[i]->begin != at) {
            rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\" starts at data byte %zu but the previous tensor ends at %zu: %s",
                        fn, order[i]->name, order[i]->begin, at,
                        order[i]->begin < at ? "overlapping data_offsets" : "a gap in the data");
            goto done;
        }
        at = order[i]->end;
    }
    if (at != data_len) {
        rc = ls_err(LS_EFORMAT, "%s: the tensors cover %zu data bytes but the file holds %zu: %s", fn, at, data_len,
                    at < data_len ? "trailing bytes" : "truncated");
        goto done;
    }
done:
    free(order);
    json_decref(root);
    if (rc) {
        char keep[512];
        memcpy(keep, out->path, sizeof keep);
        st_free(out);
        memcpy(out->path, keep, sizeof keep);
    }
    return rc;
}

int st_read(st_file *out, const char *path) {
    memset(out, 0, sizeof *out);
    int orc;
    FILE *f = ls_fopen_regular(path, &orc); /* a FIFO would block: refused before any read */
    if (!f) return orc;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return ls_err(LS_EIO, "%s: not a regular file", path);
    }
    size_t len = (size_t)sb.st_size;
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf) {
        fclose(f);
        return ls_err(LS_ENOMEM, "%s: out of memory reading %zu bytes", path, len);
    }
    size_t got = fread(buf, 1, len, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != len) {
        free(buf);
        return ls_err(LS_EIO, "%s: read error", path);
    }
    int rc = st_parse(out, buf, len, path);
    if (rc) {
        free(buf);
        return rc;
    }
    out->owned = buf;
    return LS_OK;
}

const st_tensor *st_find(const st_file *f, const char *name) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->t[i].name, name) == 0) return &f->t[i];
    return NULL;
}

const char *st_meta(const st_file *f, const char *key) {
    for (size_t i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta_key[i], key) == 0) return f->meta_val[i];
    return NULL;
}

void st_tensor_copy(const st_tensor *t, void *out) {
    if (t->end > t->begin) memcpy(out, t->data, t->end - t->begin);
}

/* ---- writer ---------------------------------------------------------------- */

struct st_writer {
    json_t *header; /* insertion-ordered (jansson keeps objects in insertion order) */
    json_t *meta;
    unsigned char *data;
    size_t len, cap;
};

int st_writer_new(st_writer **out) {
    st_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->header = json_object()) || !(w->meta = json_object())) {
        if (w) json_decref(w->header);
        free(w);
        return ls_err(LS_ENOMEM, "safetensors writer: out of memory");
    }
    *out = w;
    return LS_OK;
}

void st_writer_free(st_writer *w) {
    if (!w) return;
    json_decref(w->header);
    json_decref(w->meta);
    free(w->data);
    free(w);
}

int st_writer_add(st_writer *w, const char *name, st_dtype dtype, int ndim, const size_t *shape, const void *data) {
    size_t nl = strlen(name);
    if (nl == 0 || nl > ST_MAX_NAME || strcmp(name, "__metadata__") == 0)
        return ls_err(LS_EINVAL, "safetensors writer: bad tensor name \"%s\"", name);
    if (json_object_get(w->header, name)) return ls_err(LS_EINVAL, "safetensors writer: duplicate tensor \"%s\"", name);
    if (ndim < 0 || ndim > ST_MAX_NDIM) return ls_err(LS_EINVAL, "safetensors writer: \"%s\": %d dimensions", name, ndim);
    size_t numel = 1;
    json_t *sh = json_array();
    for (int d = 0; d < ndim && sh; d++) {
        numel *= shape[d];
        json_array_append_new(sh, json_integer((json_int_t)shape[d]));
    }
    size_t bytes = numel * DTYPE_SIZES[dtype];
    if (w->len + bytes > w->cap) {
        size_t cap = w->cap ? w->cap : 1 << 16;
        while (cap < w->len + bytes) cap *= 2;
        unsigned char *nd = realloc(w->data, cap);
        if (!nd) {
            json_decref(sh);
            return ls_err(LS_ENOMEM, "safetensors writer: out of memory (%zu bytes)", cap);
        }
        w->data = nd;
        w->cap = cap;
    }
    json_t *e = json_pack("{s:s, s:o, s:[I,I]}", "dtype", DTYPE_NAMES[dtype], "shape", sh, "data_offsets",
                          (json_int_t)w->len, (json_int_t)(w->len + bytes));
    if (!e || json_object_set_new(w->header, name, e)) return ls_err(LS_ENOMEM, "safetensors writer: out of memory");
    if (bytes) memcpy(w->data + w->len, data, bytes);
    w->len += bytes;
    return LS_OK;
}

int st_writer_meta(st_writer *w, const char *key, const char *val) {
    if (json_object_set_new(w->meta, key, json_string(val)))
        return ls_err(LS_EINVAL, "safetensors writer: bad metadata \"%s\" (not UTF-8?)", key);
    return LS_OK;
}

int st_writer_write(st_writer *w, const char *path) {
    json_t *all = json_object();
    if (!all) return ls_err(LS_ENOMEM, "%s: out of memory", path);
    /* __metadata__ first, as the Python package writes it */
    if (json_object_size(w->meta)) json_object_set(all, "__metadata__", w->meta);
    json_object_update(all, w->header);
    char *h = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(all);
    if (!h) return ls_err(LS_ENOMEM, "%s: out of memory building the header", path);
    size_t hl = strlen(h), padded = (hl + 7) / 8 * 8;
    size_t total = 8 + padded + w->len;
    unsigned char *buf = malloc(total);
    if (!buf) {
        free(h);
        return ls_err(LS_ENOMEM, "%s: out of memory (%zu bytes)", path, total);
    }
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(buf + 8, h, hl);
    memset(buf + 8 + hl, ' ', padded - hl);
    if (w->len) memcpy(buf + 8 + padded, w->data, w->len);
    free(h);
    int rc = ls_write_file_atomic(path, buf, total);
    free(buf);
    return rc;
}

/* ---- parameters ------------------------------------------------------------ */

/* name of tensor ti under scheme 0 (module: conv1.weight) or 1
 * (nn.Sequential: "<layer index>.weight") */
static void param_name(const model *m, int ti, int scheme, char *buf, size_t cap) {
    const model_tensor *t = &m->tensors[ti];
    if (scheme == 0) snprintf(buf, cap, "%s", t->name);
    else snprintf(buf, cap, "%d.%s", t->layer, t->is_bias ? "bias" : "weight");
}

int st_load_params(const model *m, const char *path, float *params) {
    st_file f;
    int rc = st_read(&f, path);
    if (rc) return rc;
    char nm[64];
    /* the scheme is the one the first parameter is found under */
    int scheme = -1;
    for (int s = 0; s < 2 && scheme < 0; s++) {
        param_name(m, 0, s, nm, sizeof nm);
        if (st_find(&f, nm)) scheme = s;
    }
    if (scheme < 0) {
        char alt[64];
        param_name(m, 0, 1, alt, sizeof alt);
        rc = ls_err(LS_EFORMAT, "%s: no tensor \"%s\" (or \"%s\", nn.Sequential style): not weights of model %s "
                    "(names expected: %s, %s, ...; see README, \"Bring your own run\")", path, m->tensors[0].name, alt,
                    m->name, m->tensors[0].name, m->n_tensors > 1 ? m->tensors[1].name : "");
        goto done;
    }
    size_t used = 0;
    for (int ti = 0; ti < m->n_tensors; ti++) {
        const model_tensor *mt = &m->tensors[ti];
        param_name(m, ti, scheme, nm, sizeof nm);
        const st_tensor *t = st_find(&f, nm);
        if (!t) {
            rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\" of model %s is missing", path, nm, m->name);
            goto done;
        }
        if (t->dtype != ST_F32) {
            rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\" is %s: lockstep starts from fp32 weights (F32); convert it "
                        "with tensor.float() first", path, nm, st_dtype_name(t->dtype));
            goto done;
        }
        int same = t->ndim == mt->ndim;
        for (int d = 0; d < mt->ndim && same; d++) same = t->shape[d] == (uint64_t)mt->shape[d];
        if (!same) {
            char want[64] = "", got[96] = "";
            for (int d = 0; d < mt->ndim; d++)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d", d ? ", " : "", mt->shape[d]);
            for (int d = 0; d < t->ndim; d++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu", d ? ", " : "",
                         (unsigned long long)t->shape[d]);
            rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\" has shape (%s) but model %s needs (%s)", path, nm, got, m->name,
                        want);
            goto done;
        }
        st_tensor_copy(t, params + mt->offset);
        /* weights from another program: a NaN or infinity would be trained
         * from and reported as the engines' drift */
        for (size_t k = 0; k < mt->numel; k++)
            if (!isfinite(params[mt->offset + k])) {
                rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\": value %zu is %g: initial weights must be finite (field: %s)",
                            path, nm, k, (double)params[mt->offset + k], nm);
                goto done;
            }
        used++;
    }
    for (size_t i = 0; i < f.n; i++) {
        if (strncmp(f.t[i].name, "optim/", 6) == 0) continue;
        int known = 0;
        for (int ti = 0; ti < m->n_tensors && !known; ti++) {
            param_name(m, ti, scheme, nm, sizeof nm);
            known = strcmp(nm, f.t[i].name) == 0;
        }
        if (!known) {
            rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\" is not a parameter of model %s (it has %d: %s, ...)", path,
                        f.t[i].name, m->name, m->n_tensors, m->tensors[0].name);
            goto done;
        }
    }
done:
    st_free(&f);
    return rc;
}

int st_init_params(const model *m, const char *init_path, uint64_t seed, float *params) {
    if (!init_path) {
        model_init_params(m, params, seed);
        return LS_OK;
    }
    return st_load_params(m, init_path, params);
}

int st_save_params(const model *m, const char *path, const float *params, const st_optim *opt) {
    st_writer *w;
    int rc = st_writer_new(&w);
    if (rc) return rc;
    char buf[320];
    rc |= st_writer_meta(w, "format", "pt");
    rc |= st_writer_meta(w, "lockstep.model", m->name);
    rc |= st_writer_meta(w, "lockstep.model_spec", m->spec);
    for (int pass = 0; pass < (opt ? 3 : 1) && !rc; pass++) {
        const float *src = pass == 0 ? params : pass == 1 ? opt->m : opt->v;
        for (int ti = 0; ti < m->n_tensors && !rc; ti++) {
            const model_tensor *t = &m->tensors[ti];
            size_t shape[4];
            for (int d = 0; d < t->ndim; d++) shape[d] = (size_t)t->shape[d];
            if (pass == 0) snprintf(buf, sizeof buf, "%s", t->name);
            else snprintf(buf, sizeof buf, "optim/%s/%s", t->name, pass == 1 ? "exp_avg" : "exp_avg_sq");
            rc = st_writer_add(w, buf, ST_F32, t->ndim, shape, src + t->offset);
        }
    }
    if (opt && !rc) {
        snprintf(buf, sizeof buf, "%ld", opt->step);
        rc |= st_writer_meta(w, "optim.step", buf);
        if (opt->batch) {
            snprintf(buf, sizeof buf, "%zu", opt->batch);
            rc |= st_writer_meta(w, "optim.batch", buf);
            snprintf(buf, sizeof buf, "%zu", opt->n_train);
            rc |= st_writer_meta(w, "optim.n_train", buf);
        }
        rc |= st_writer_meta(w, "optim.name", "Adam");
        snprintf(buf, sizeof buf, "%.17g", opt->cfg.lr);
        rc |= st_writer_meta(w, "optim.lr", buf);
        snprintf(buf, sizeof buf, "%.17g", opt->cfg.beta1);
        rc |= st_writer_meta(w, "optim.beta1", buf);
        snprintf(buf, sizeof buf, "%.17g", opt->cfg.beta2);
        rc |= st_writer_meta(w, "optim.beta2", buf);
        snprintf(buf, sizeof buf, "%.17g", opt->cfg.eps);
        rc |= st_writer_meta(w, "optim.eps", buf);
    }
    if (rc) rc = rc < 0 ? rc : LS_EINVAL;
    if (!rc) rc = st_writer_write(w, path);
    st_writer_free(w);
    return rc;
}

/* metadata key as a number; -1 when absent, -2 when not a number */
static int meta_num(const st_file *f, const char *key, double *out) {
    const char *v = st_meta(f, key);
    if (!v) return -1;
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    return errno || end == v || *end ? -2 : 0;
}

int st_load_optim(const model *m, const char *path, float *mbuf, float *vbuf, st_optim_in *out) {
    memset(out, 0, sizeof *out);
    st_file f;
    int rc = st_read(&f, path);
    if (rc) return rc;
    size_t n_optim = 0;
    for (size_t i = 0; i < f.n; i++) n_optim += strncmp(f.t[i].name, "optim/", 6) == 0;
    if (n_optim == 0) goto done;
    char nm[320];
    for (int pass = 0; pass < 2 && !rc; pass++) {
        for (int ti = 0; ti < m->n_tensors && !rc; ti++) {
            const model_tensor *mt = &m->tensors[ti];
            snprintf(nm, sizeof nm, "optim/%s/%s", mt->name, pass ? "exp_avg_sq" : "exp_avg");
            const st_tensor *t = st_find(&f, nm);
            size_t numel = 1;
            for (int d = 0; d < mt->ndim; d++) numel *= (size_t)mt->shape[d];
            if (!t)
                rc = ls_err(LS_EFORMAT, "%s: has Adam state (optim/...) but lacks \"%s\": a resumable file holds "
                            "optim/<param>/exp_avg and /exp_avg_sq for every parameter", path, nm);
            else if (t->dtype != ST_F32 || t->numel != numel)
                rc = ls_err(LS_EFORMAT, "%s: \"%s\" must be F32 with %zu values (it is %s with %zu)", path, nm, numel,
                            st_dtype_name(t->dtype), t->numel);
            else st_tensor_copy(t, (pass ? vbuf : mbuf) + mt->offset);
        }
    }
    if (rc) goto done;
    if (n_optim != 2 * (size_t)m->n_tensors) {
        for (size_t i = 0; i < f.n && !rc; i++) {
            if (strncmp(f.t[i].name, "optim/", 6) != 0) continue;
            int known = 0;
            for (int ti = 0; ti < m->n_tensors && !known; ti++)
                for (int pass = 0; pass < 2 && !known; pass++) {
                    snprintf(nm, sizeof nm, "optim/%s/%s", m->tensors[ti].name, pass ? "exp_avg_sq" : "exp_avg");
                    known = strcmp(nm, f.t[i].name) == 0;
                }
            if (!known)
                rc = ls_err(LS_EFORMAT, "%s: tensor \"%s\" is not Adam state lockstep knows (optim/<param>/exp_avg "
                            "or /exp_avg_sq)", path, f.t[i].name);
        }
        if (rc) goto done;
    }
    double step, x;
    const char *keys[] = {"optim.lr", "optim.beta1", "optim.beta2", "optim.eps"};
    double *dst[] = {&out->cfg.lr, &out->cfg.beta1, &out->cfg.beta2, &out->cfg.eps};
    if (meta_num(&f, "optim.step", &step) || step < 1 || step > 1e15 || step != floor(step)) {
        rc = ls_err(LS_EFORMAT, "%s: has Adam state but no metadata \"optim.step\" (a whole number >= 1: the steps "
                    "taken, PyTorch's state \"step\")", path);
        goto done;
    }
    for (size_t i = 0; i < LS_ARRAY_LEN(keys); i++)
        if (meta_num(&f, keys[i], dst[i])) {
            rc = ls_err(LS_EFORMAT, "%s: has Adam state but no number in metadata \"%s\"", path, keys[i]);
            goto done;
        }
    out->step = (long)step;
    /* absent: -1 (not recorded); present: a whole number, else converting
     * it to long is undefined (1e300, nan) and a negative one would turn
     * run_resume's batch check off */
    const char *counts[] = {"optim.batch", "optim.n_train"};
    long *cdst[] = {&out->batch, &out->n_train};
    for (size_t i = 0; i < LS_ARRAY_LEN(counts); i++) {
        int r = meta_num(&f, counts[i], &x);
        if (r == -1) *cdst[i] = -1;
        else if (r || !(x >= 1 && x <= 1e15) || x != floor(x)) {
            rc = ls_err(LS_EFORMAT, "%s: metadata \"%s\" = \"%s\": want a whole number in 1..1e15", path, counts[i],
                        st_meta(&f, counts[i]));
            goto done;
        } else *cdst[i] = (long)x;
    }
    out->present = 1;
done:
    st_free(&f);
    return rc;
}
