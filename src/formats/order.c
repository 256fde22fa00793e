/*
 * order.c — batch orders from .npy or text files.  See order.h.
 *
 * The .npy reader takes what numpy.save writes for an integer array:
 * magic "\x93NUMPY", version 1.x/2.x/3.x, a header dict with 'descr'
 * '<i8' or '<i4', 'fortran_order' False
 * and a 1- or 2-dimensional 'shape'.  It does not evaluate the dict as
 * Python: it reads those three keys' values by their fixed spelling, which
 * is all numpy.save ever writes.
 */
#include "formats/order.h"

#include <ctype.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/util.h"

/* the value text after 'key': in the header dict, or NULL */
static const char *dict_value(const char *h, size_t hl, const char *key) {
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl + 2 <= hl; i++) {
        if (h[i] == '\'' && memcmp(h + i + 1, key, kl) == 0 && h[i + 1 + kl] == '\'') {
            size_t j = i + kl + 2;
            while (j < hl && h[j] == ' ') j++;
            if (j < hl && h[j] == ':') {
                j++;
                while (j < hl && h[j] == ' ') j++;
                return j < hl ? h + j : NULL;
            }
        }
    }
    return NULL;
}

int npy_parse_i64(const void *buf, size_t len, const char *fn, int64_t **vals, size_t *rows, size_t *cols) {
    const unsigned char *p = buf;
    *vals = NULL;
    if (len < 10 || memcmp(p, "\x93NUMPY", 6) != 0) return ls_err(LS_EFORMAT, "%s: not a .npy file (no \\x93NUMPY magic)", fn);
    unsigned major = p[6];
    size_t hl, off;
    if (major == 1) {
        hl = (size_t)p[8] | (size_t)p[9] << 8;
        off = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return ls_err(LS_EFORMAT, "%s: truncated .npy header", fn);
        hl = (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
        off = 12;
    } else {
        return ls_err(LS_EFORMAT, "%s: .npy version %u.%u is not one lockstep reads (1, 2, 3)", fn, major, p[7]);
    }
    if (hl > len - off || hl > 65536) return ls_err(LS_EFORMAT, "%s: .npy header length %zu runs past the file", fn, hl);
    const char *h = (const char *)p + off;
    const char *descr = dict_value(h, hl, "descr"), *fo = dict_value(h, hl, "fortran_order"),
               *sh = dict_value(h, hl, "shape");
    if (!descr || !fo || !sh) return ls_err(LS_EFORMAT, "%s: .npy header lacks descr, fortran_order or shape", fn);
    size_t left = hl - (size_t)(descr - h);
    size_t esize;
    if (left >= 5 && memcmp(descr, "'<i8'", 5) == 0) esize = 8;
    else if (left >= 5 && memcmp(descr, "'<i4'", 5) == 0) esize = 4;
    else return ls_err(LS_EFORMAT, "%s: .npy dtype is not little-endian int64 or int32 ('<i8', '<i4'): write it "
                       "with numpy.asarray(order, dtype=numpy.int64)", fn);
    if ((size_t)(hl - (size_t)(fo - h)) < 5 || memcmp(fo, "False", 5) != 0)
        return ls_err(LS_EFORMAT, "%s: .npy array is in Fortran order: save a C-order array", fn);
    if (*sh != '(') return ls_err(LS_EFORMAT, "%s: .npy shape is not a tuple", fn);
    uint64_t dims[3];
    int nd = 0;
    const char *q = sh + 1, *end = h + hl;
    while (q < end && *q != ')') {
        while (q < end && (*q == ' ' || *q == ',')) q++;
        if (q < end && *q == ')') break;
        if (q >= end || !isdigit((unsigned char)*q) || nd == 3)
            return ls_err(LS_EFORMAT, "%s: .npy shape is not 1 or 2 non-negative sizes", fn);
        uint64_t v = 0;
        while (q < end && isdigit((unsigned char)*q)) {
            v = v * 10 + (uint64_t)(*q - '0');
            if (v > ((uint64_t)1 << 40)) return ls_err(LS_EFORMAT, "%s: .npy shape too large", fn);
            q++;
        }
        dims[nd++] = v;
    }
    if (q >= end || (nd != 1 && nd != 2))
        return ls_err(LS_EFORMAT, "%s: .npy shape must have 1 or 2 dimensions (epochs, n), has %d", fn, nd);
    *rows = nd == 2 ? (size_t)dims[0] : 1;
    *cols = (size_t)dims[nd - 1];
    size_t count = *rows * *cols;
    if ((*rows && count / *rows != *cols) || count > SIZE_MAX / 8) return ls_err(LS_EFORMAT, "%s: .npy shape too large", fn);
    size_t data = off + hl;
    if (len - data != count * esize)
        return ls_err(LS_EFORMAT, "%s: .npy data is %zu bytes, shape and dtype need %zu: %s", fn, len - data,
                      count * esize, len - data < count * esize ? "truncated" : "trailing bytes");
    int64_t *v = malloc((count ? count : 1) * sizeof *v);
    if (!v) return ls_err(LS_ENOMEM, "%s: out of memory", fn);
    for (size_t i = 0; i < count; i++) {
        const unsigned char *e = p + data + i * esize;
        if (esize == 8) {
            uint64_t u = 0;
            for (int b = 7; b >= 0; b--) u = u << 8 | e[b];
            v[i] = (int64_t)u;
        } else {
            uint32_t u = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
            v[i] = (int32_t)u;
        }
    }
    *vals = v;
    return LS_OK;
}

int order_parse_text(const char *text, size_t len, const char *fn, int64_t **vals, size_t *rows, size_t *cols) {
    size_t cap = 1024, n = 0, r = 0, c0 = 0, line = 1;
    int64_t *v = malloc(cap * sizeof *v);
    *vals = NULL;
    if (!v) return ls_err(LS_ENOMEM, "%s: out of memory", fn);
    size_t i = 0, row_start = 0;
    while (i < len) {
        size_t in_row = n - row_start;
        int c = (unsigned char)text[i];
        if (c == '\n' || c == '#') {
            while (c == '#' && i < len && text[i] != '\n') i++;
            if (n > row_start) {
                if (r == 0) c0 = in_row;
                else if (in_row != c0) {
                    free(v);
                    return ls_err(LS_EFORMAT, "%s:%zu: %zu indices, but the first epoch has %zu", fn, line, in_row, c0);
                }
                r++;
                row_start = n;
            }
            if (i < len) line++;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == ',') {
            i++;
        } else if (isdigit(c) || c == '-') {
            char *end;
            char tmp[32];
            size_t k = 0;
            while (i < len && k < sizeof tmp - 1 && (isdigit((unsigned char)text[i]) || text[i] == '-')) tmp[k++] = text[i++];
            tmp[k] = 0;
            errno = 0;
            long long x = strtoll(tmp, &end, 10);
            if (errno || *end || k == sizeof tmp - 1) {
                free(v);
                return ls_err(LS_EFORMAT, "%s:%zu: '%s' is not an integer", fn, line, tmp);
            }
            if (n == cap) {
                int64_t *nv = realloc(v, 2 * cap * sizeof *v);
                if (!nv) {
                    free(v);
                    return ls_err(LS_ENOMEM, "%s: out of memory", fn);
                }
                v = nv;
                cap *= 2;
            }
            v[n++] = x;
        } else {
            free(v);
            return ls_err(LS_EFORMAT, "%s:%zu: unexpected character '%c' (want indices separated by spaces or commas, "
                          "one epoch per line)", fn, line, isprint(c) ? c : '?');
        }
    }
    if (n > row_start) {
        if (r == 0) c0 = n - row_start;
        else if (n - row_start != c0) {
            free(v);
            return ls_err(LS_EFORMAT, "%s:%zu: %zu indices, but the first epoch has %zu", fn, line, n - row_start, c0);
        }
        r++;
    }
    *vals = v;
    *rows = r;
    *cols = c0;
    return LS_OK;
}

int order_load(batch_order *o, const char *path, size_t n_train) {
    memset(o, 0, sizeof *o);
    snprintf(o->path, sizeof o->path, "%s", path);
    int orc;
    FILE *f = ls_fopen_regular(path, &orc); /* a FIFO blocks, a directory reads as "read error" */
    if (!f) return orc;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) return ls_err(LS_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(buf);
        return ls_err(LS_EIO, "%s: read error", path);
    }
    int64_t *v = NULL;
    size_t rows = 0, cols = 0;
    int rc = len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0 ? npy_parse_i64(buf, len, path, &v, &rows, &cols)
                                                         : order_parse_text(buf, len, path, &v, &rows, &cols);
    free(buf);
    if (rc) return rc;
    uint8_t *seen = NULL;
    if (rows == 0) {
        rc = ls_err(LS_EFORMAT, "%s: no epochs in the batch order", path);
        goto done;
    }
    if (cols != n_train) {
        rc = ls_err(LS_EFORMAT, "%s: each epoch lists %zu indices but the run uses %zu training images (an epoch must "
                    "be a permutation of 0..%zu; --limit-train N uses the first N)", path, cols, n_train,
                    n_train ? n_train - 1 : 0);
        goto done;
    }
    seen = malloc(n_train ? n_train : 1);
    o->idx = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof *o->idx);
    if (!seen || !o->idx) {
        rc = ls_err(LS_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t r = 0; r < rows; r++) {
        memset(seen, 0, n_train);
        for (size_t i = 0; i < cols; i++) {
            int64_t x = v[r * cols + i];
            if (x < 0 || (uint64_t)x >= n_train) {
                rc = ls_err(LS_EFORMAT, "%s: epoch %zu, position %zu: index %lld is outside 0..%zu", path, r + 1, i,
                            (long long)x, n_train - 1);
                goto done;
            }
            if (seen[x]) {
                rc = ls_err(LS_EFORMAT, "%s: epoch %zu, position %zu: index %lld appears twice (an epoch must be a "
                            "permutation)", path, r + 1, i, (long long)x);
                goto done;
            }
            seen[x] = 1;
            o->idx[r * cols + i] = (uint32_t)x;
        }
    }
    o->epochs = rows;
    o->n = cols;
done:
    free(seen);
    free(v);
    if (rc) {
        free(o->idx);
        o->idx = NULL;
    }
    return rc;
}

void order_free(batch_order *o) {
    free(o->idx);
    memset(o, 0, sizeof *o);
}

int order_fill(batch_order *o, const char *path, uint32_t *perm, size_t n, uint64_t seed, int epoch) {
    if (!path) {
        rng_shuffle(perm, (uint32_t)n, seed, (uint32_t)epoch);
        return LS_OK;
    }
    int rc;
    if (!o->idx && (rc = order_load(o, path, n))) return rc;
    if (o->n != n) return ls_err(LS_EINVAL, "%s: loaded for %zu images, asked for %zu", path, o->n, n);
    if ((size_t)epoch >= o->epochs)
        return ls_err(LS_EINVAL, "%s: the batch order has %zu epoch(s); the run needs epoch %d", path, o->epochs,
                      epoch + 1);
    memcpy(perm, o->idx + (size_t)epoch * n, n * sizeof *perm);
    return LS_OK;
}
