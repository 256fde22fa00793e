/*
 * golden.c — the .lsg writer and reader (golden.h; the
 * byte layout is golden/FORMAT.md and this file must agree with it).
 *
 * Integrity, from the outside in: a fixed header with the total file length
 * (a short file names its missing bytes), a crc32 over every byte before the
 * footer's checksum field (any flipped bit), the zlib stream's adler32 and
 * its exact length, then per record a crc32 of the values and a shape that
 * must account for every byte.  Each layer is checked even though the outer
 * crc already covers it, so that a file "repaired" by hand with a recomputed
 * checksum still cannot carry a damaged stream or record.
 *
 * All integers are little-endian and read byte by byte, so the code does not
 * depend on the host's byte order or alignment.
 *
 * Not here: which tensors a run records, running engines, printing.
 */
#include "formats/golden.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "model/tensor.h"

static const unsigned char golden_magic[8] = {0x89, 'L', 'S', 'G', '\r', '\n', 0x1a, '\n'};
static const unsigned char footer_magic[4] = {'L', 'S', 'G', 'F'};

enum {
    HEADER_BYTES = 32,        /* magic 8, version 4, flags 4, file size 8, n_prov 4, prov bytes 4 */
    FOOTER_BYTES = 28,        /* magic 4, reserved 4, records 8, raw bytes 8, crc32 4 */
    RECORD_HEAD_BYTES = 32,   /* step 4, layer 4, kind 2, ndim 1, name len 1, shape 16, crc32 4 */
    PROV_MAX_KEY = 255,
    PROV_MAX_VAL = 16 << 20,
    CHUNK = 1 << 16,
};

/* zlib's own calls: log the call and where, then one cleanup label */
#define CHECK_Z(call)                                                                           \
    do {                                                                                        \
        int zrc_ = (call);                                                                      \
        if (zrc_ != Z_OK) {                                                                     \
            rc = ls_err(LS_ELIB, "%s:%d: %s failed: %d (%s)", __FILE__, __LINE__, #call, zrc_,  \
                        zError(zrc_));                                                          \
            goto cleanup;                                                                       \
        }                                                                                       \
    } while (0)

/* ---- little-endian bytes ----------------------------------------------- */

static void put_u16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get_u64(const unsigned char *p) { return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

/* fp32 values <-> little-endian bytes */
static void floats_to_le(unsigned char *out, const float *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        put_u32(out + 4 * i, u);
    }
}
static void le_to_floats(float *out, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t u = get_u32(p + 4 * i);
        memcpy(&out[i], &u, 4);
    }
}

/* crc32 over a buffer of any size (zlib's length argument is uInt) */
static uint32_t crc32_big(uint32_t crc, const unsigned char *p, size_t n) {
    while (n) {
        uInt len = n > (size_t)UINT_MAX ? UINT_MAX : (uInt)n;
        crc = (uint32_t)crc32(crc, p, len);
        p += len;
        n -= len;
    }
    return crc;
}

/* ---- provenance --------------------------------------------------------- */

void golden_prov_init(golden_prov *p) { memset(p, 0, sizeof *p); }

void golden_prov_free(golden_prov *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->key[i]);
        free(p->val[i]);
    }
    free(p->key);
    free(p->val);
    memset(p, 0, sizeof *p);
}

static int key_valid(const char *k, size_t len) {
    if (len == 0 || len > PROV_MAX_KEY) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

const char *golden_prov_get(const golden_prov *p, const char *key) {
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->key[i], key) == 0) return p->val[i];
    return NULL;
}

static char *dup_n(const char *s, size_t n) {
    char *d = ls_malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* A new entry at the end, without looking for the key (the reader's path:
 * parse_prov finds duplicates once, sorted); no checks on the value. */
static int prov_append_n(golden_prov *p, const char *key, size_t klen, const char *val, size_t vlen) {
    char *v = dup_n(val, vlen);
    if (!v) return LS_ENOMEM;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        char **k2 = realloc(p->key, cap * sizeof *k2);
        if (!k2) goto nomem;
        p->key = k2;
        char **v2 = realloc(p->val, cap * sizeof *v2);
        if (!v2) goto nomem;
        p->val = v2;
        p->cap = cap;
    }
    char *k = dup_n(key, klen);
    if (!k) {
        free(v);
        return LS_ENOMEM;
    }
    p->key[p->n] = k;
    p->val[p->n] = v;
    p->n++;
    return 0;
nomem:
    free(v);
    return ls_err(LS_ENOMEM, "out of memory for provenance");
}

/* key and value as byte ranges; replaces the value of an existing key */
static int prov_set_n(golden_prov *p, const char *key, size_t klen, const char *val, size_t vlen) {
    for (size_t i = 0; i < p->n; i++) {
        if (strlen(p->key[i]) == klen && memcmp(p->key[i], key, klen) == 0) {
            char *v = dup_n(val, vlen);
            if (!v) return LS_ENOMEM;
            free(p->val[i]);
            p->val[i] = v;
            return 0;
        }
    }
    return prov_append_n(p, key, klen, val, vlen);
}

int golden_prov_set(golden_prov *p, const char *key, const char *val) {
    if (!key || !key_valid(key, strlen(key)))
        return ls_err(LS_EINVAL, "provenance key \"%s\": want 1-255 characters of [A-Za-z0-9_.-]", key ? key : "");
    if (!val) val = "";
    size_t vlen = strlen(val);
    if (vlen >= PROV_MAX_VAL)
        return ls_err(LS_EINVAL, "provenance value of \"%s\": %zu bytes, the limit is %d", key, vlen, PROV_MAX_VAL - 1);
    return prov_set_n(p, key, strlen(key), val, vlen);
}

/* ---- kinds and labels ---------------------------------------------------- */

const char *golden_kind_name(unsigned kind, char buf[16]) {
    if (kind <= TENSOR_LOSS) return tensor_kind_name((tensor_kind)kind);
    if (kind == GOLDEN_KIND_PREDICTIONS) return "predictions";
    if (kind == GOLDEN_KIND_LOGITS) return "logits";
    if (kind == GOLDEN_KIND_STEP) return "step";
    if (kind == GOLDEN_KIND_LABELS) return "labels";
    if (kind == GOLDEN_KIND_BATCH_INDEX) return "batch_index";
    if (kind == GOLDEN_KIND_EPOCH) return "epoch";
    if (kind == GOLDEN_KIND_TIMING) return "timing";
    if (kind == GOLDEN_KIND_CK_STEP) return "ck_step";
    if (kind == GOLDEN_KIND_CK_UPDATE) return "ck_update";
    if (kind == GOLDEN_KIND_CK_EVAL) return "ck_eval";
    snprintf(buf, 16, "kind%u", kind);
    return buf;
}

void golden_record_label(const golden_record *r, char *buf, size_t len) {
    char kb[16];
    const char *kn = golden_kind_name(r->kind, kb);
    if (r->layer >= 0)
        snprintf(buf, len, "step %u layer %d%s%s%s %s", (unsigned)r->step, (int)r->layer, r->name[0] ? " (" : "",
                 r->name, r->name[0] ? ")" : "", kn);
    else
        snprintf(buf, len, "step %u %s%s%s%s", (unsigned)r->step, kn, r->name[0] ? " (" : "", r->name,
                 r->name[0] ? ")" : "");
}

/* ---- writer ------------------------------------------------------------- */

struct golden_writer {
    FILE *f;
    char *path, *tmp;
    z_stream z;
    int z_open;
    int err;              /* first error; the writer refuses work after it */
    uint64_t n_records, raw_bytes;
    unsigned char out[CHUNK];
    unsigned char conv[CHUNK]; /* values converted to little-endian bytes */
};

static int writer_put(golden_writer *w, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, w->f) != n)
        return ls_err(LS_EIO, "%s: write failed: %s", w->tmp, strerror(errno));
    return 0;
}

/* Feed n bytes to deflate with `flush`, writing out whatever it produces. */
static int writer_deflate(golden_writer *w, const unsigned char *p, size_t n, int flush) {
    int rc = 0;
    do {
        uInt len = n > (size_t)UINT_MAX ? UINT_MAX : (uInt)n;
        w->z.next_in = (Bytef *)p;
        w->z.avail_in = len;
        if (len) p += len; /* p is NULL when there is nothing to feed (the final flush) */
        n -= len;
        int f = n ? Z_NO_FLUSH : flush;
        int zr;
        do {
            w->z.next_out = w->out;
            w->z.avail_out = CHUNK;
            zr = deflate(&w->z, f);
            if (zr == Z_STREAM_ERROR) return ls_err(LS_ELIB, "%s:%d: deflate failed: Z_STREAM_ERROR", __FILE__, __LINE__);
            rc = writer_put(w, w->out, CHUNK - w->z.avail_out);
            if (rc) return rc;
        } while (w->z.avail_out == 0 || (f == Z_FINISH && zr != Z_STREAM_END));
    } while (n);
    return rc;
}

int golden_writer_open(golden_writer **out, const char *path, const golden_prov *prov) {
    int rc = 0;
    lsbuf hb;
    lsbuf_init(&hb);
    *out = NULL;
    golden_writer *w = ls_calloc(1, sizeof *w);
    if (!w) return LS_ENOMEM;
    size_t plen = strlen(path);
    w->path = dup_n(path, plen);
    w->tmp = ls_malloc(plen + 32);
    if (!w->path || !w->tmp) {
        rc = LS_ENOMEM;
        goto cleanup;
    }
    snprintf(w->tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());

    /* header and provenance, built in memory first */
    unsigned char h[HEADER_BYTES];
    memcpy(h, golden_magic, 8);
    put_u32(h + 8, GOLDEN_VERSION);
    put_u32(h + 12, 0);  /* flags */
    put_u64(h + 16, 0);  /* file size: patched at close */
    size_t np = prov ? prov->n : 0;
    uint64_t pbytes = 0;
    for (size_t i = 0; i < np; i++) {
        size_t kl = strlen(prov->key[i]), vl = strlen(prov->val[i]);
        if (!key_valid(prov->key[i], kl)) {
            rc = ls_err(LS_EINVAL, "%s: provenance key \"%s\" is not valid", path, prov->key[i]);
            goto cleanup;
        }
        if (vl >= PROV_MAX_VAL) {
            rc = ls_err(LS_EINVAL, "%s: provenance value of \"%s\" too long", path, prov->key[i]);
            goto cleanup;
        }
        pbytes += 8 + kl + vl;
    }
    if (pbytes > UINT32_MAX || np > UINT32_MAX) {
        rc = ls_err(LS_EINVAL, "%s: provenance too large (%llu bytes)", path, (unsigned long long)pbytes);
        goto cleanup;
    }
    put_u32(h + 24, (uint32_t)np);
    put_u32(h + 28, (uint32_t)pbytes);
    lsbuf_put(&hb, (const char *)h, HEADER_BYTES);
    for (size_t i = 0; i < np; i++) {
        unsigned char l[4];
        size_t kl = strlen(prov->key[i]), vl = strlen(prov->val[i]);
        put_u32(l, (uint32_t)kl);
        lsbuf_put(&hb, (const char *)l, 4);
        lsbuf_put(&hb, prov->key[i], kl);
        put_u32(l, (uint32_t)vl);
        lsbuf_put(&hb, (const char *)l, 4);
        lsbuf_put(&hb, prov->val[i], vl);
    }
    if (hb.failed) {
        rc = ls_err(LS_ENOMEM, "%s: out of memory building the header", path);
        goto cleanup;
    }

    /* the target must be a regular file or new: the rename at close
     * would replace a FIFO, device or symlink */
    if ((rc = ls_check_output_path(path))) goto cleanup;
    /* w+: close() reads the file back to compute the checksum; x: never
     * write through what was left under the temporary name */
    remove(w->tmp);
    /* registered before it exists: a signal between the two would
     * otherwise leave it (the handler's unlink of a name not yet created
     * is harmless); removed if SIGINT/SIGTERM kill the recording */
    ls_tmp_register(w->tmp);
    w->f = fopen(w->tmp, "w+bx");
    if (!w->f) {
        rc = ls_err(LS_EIO, "%s: cannot create: %s", w->tmp, strerror(errno));
        ls_tmp_unregister(w->tmp);
        goto cleanup;
    }
    rc = writer_put(w, hb.s, hb.len);
    if (rc) goto cleanup;
    CHECK_Z(deflateInit(&w->z, Z_DEFAULT_COMPRESSION));
    w->z_open = 1;

cleanup:
    lsbuf_free(&hb);
    if (rc) {
        /* keep the message of the first failure; close() only cleans up */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ls_errmsg());
        golden_writer_close(w, 0);
        ls_err(rc, "%s", msg);
        return rc;
    }
    *out = w;
    return 0;
}

const char *golden_writer_tmp_path(const golden_writer *w) { return w->tmp; }

int golden_writer_add(golden_writer *w, uint32_t step, int32_t layer, unsigned kind, const char *name,
                      int ndim, const size_t *shape, const float *values) {
    if (w->err) return w->err;
    int rc = 0;
    size_t nlen = name ? strlen(name) : 0;
    if (ndim < 0 || ndim > GOLDEN_MAX_NDIM) {
        rc = ls_err(LS_EINVAL, "%s: record ndim %d (0..%d)", w->path, ndim, GOLDEN_MAX_NDIM);
        goto done;
    }
    if (nlen > GOLDEN_MAX_NAME) {
        rc = ls_err(LS_EINVAL, "%s: record name \"%s\" longer than %d bytes", w->path, name, GOLDEN_MAX_NAME);
        goto done;
    }
    for (size_t i = 0; i < nlen; i++) {
        if (name[i] < 0x20 || name[i] > 0x7e) {
            rc = ls_err(LS_EINVAL, "%s: record name has a non-printable byte", w->path);
            goto done;
        }
    }
    if (layer < -1) {
        rc = ls_err(LS_EINVAL, "%s: record layer %d (want >= -1)", w->path, (int)layer);
        goto done;
    }
    if (kind > 0xffff) {
        rc = ls_err(LS_EINVAL, "%s: record kind %u does not fit 16 bits", w->path, kind);
        goto done;
    }
    size_t count = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] > UINT32_MAX || (shape[d] && count > SIZE_MAX / 4 / shape[d])) {
            rc = ls_err(LS_EINVAL, "%s: record shape too large", w->path);
            goto done;
        }
        count *= shape[d];
    }

    /* crc32 of the value bytes as stored, before the header that carries it */
    uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
    for (size_t i = 0; i < count; i += CHUNK / 4) {
        size_t m = count - i < CHUNK / 4 ? count - i : CHUNK / 4;
        floats_to_le(w->conv, values + i, m);
        crc = crc32_big(crc, w->conv, 4 * m);
    }
    unsigned char h[RECORD_HEAD_BYTES + GOLDEN_MAX_NAME];
    memset(h, 0, sizeof h);
    put_u32(h + 0, step);
    put_u32(h + 4, (uint32_t)layer);
    put_u16(h + 8, kind);
    h[10] = (unsigned char)ndim;
    h[11] = (unsigned char)nlen;
    for (int d = 0; d < ndim; d++) put_u32(h + 12 + 4 * d, (uint32_t)shape[d]);
    put_u32(h + 28, crc);
    if (nlen) memcpy(h + RECORD_HEAD_BYTES, name, nlen); /* name may be NULL when nameless */
    rc = writer_deflate(w, h, RECORD_HEAD_BYTES + nlen, Z_NO_FLUSH);
    for (size_t i = 0; !rc && i < count; i += CHUNK / 4) {
        size_t m = count - i < CHUNK / 4 ? count - i : CHUNK / 4;
        floats_to_le(w->conv, values + i, m);
        rc = writer_deflate(w, w->conv, 4 * m, Z_NO_FLUSH);
    }
    if (!rc) {
        w->n_records++;
        w->raw_bytes += RECORD_HEAD_BYTES + nlen + 4 * (uint64_t)count;
    }
done:
    if (rc) w->err = rc;
    return rc;
}

/* Finish the stream, patch the length, checksum what was written, append
 * the footer's last field, fsync. */
static int writer_finish(golden_writer *w) {
    int rc = writer_deflate(w, NULL, 0, Z_FINISH);
    if (rc) return rc;
    unsigned char ft[FOOTER_BYTES];
    memcpy(ft, footer_magic, 4);
    put_u32(ft + 4, 0);
    put_u64(ft + 8, w->n_records);
    put_u64(ft + 16, w->raw_bytes);
    rc = writer_put(w, ft, FOOTER_BYTES - 4);
    if (rc) return rc;
    long end = ftell(w->f);
    if (end < 0) return ls_err(LS_EIO, "%s: ftell: %s", w->tmp, strerror(errno));
    unsigned char sz[8];
    put_u64(sz, (uint64_t)end + 4);
    if (fseek(w->f, 16, SEEK_SET) != 0) return ls_err(LS_EIO, "%s: seek: %s", w->tmp, strerror(errno));
    rc = writer_put(w, sz, 8);
    if (rc) return rc;
    /* read back every byte (the patched length included) for the crc */
    if (fflush(w->f) != 0 || fseek(w->f, 0, SEEK_SET) != 0)
        return ls_err(LS_EIO, "%s: flush: %s", w->tmp, strerror(errno));
    uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
    long left = end;
    while (left > 0) {
        size_t want = left < CHUNK ? (size_t)left : CHUNK;
        size_t got = fread(w->out, 1, want, w->f);
        if (got != want) return ls_err(LS_EIO, "%s: reading back: short read", w->tmp);
        crc = crc32_big(crc, w->out, got);
        left -= (long)got;
    }
    if (fseek(w->f, 0, SEEK_END) != 0) return ls_err(LS_EIO, "%s: seek: %s", w->tmp, strerror(errno));
    unsigned char c4[4];
    put_u32(c4, crc);
    rc = writer_put(w, c4, 4);
    if (rc) return rc;
    if (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)
        return ls_err(LS_EIO, "%s: flush: %s", w->tmp, strerror(errno));
    return 0;
}

int golden_writer_close(golden_writer *w, int commit) {
    if (!w) return 0;
    int rc = w->err;
    if (commit && !rc && w->f && w->z_open) rc = writer_finish(w);
    if (w->z_open) deflateEnd(&w->z);
    if (w->f && fclose(w->f) != 0 && !rc && commit)
        rc = ls_err(LS_EIO, "%s: close: %s", w->tmp, strerror(errno));
    if (w->f) {
        if (commit && !rc) {
            if (rename(w->tmp, w->path) != 0) {
                rc = ls_err(LS_EIO, "%s: cannot rename to %s: %s", w->tmp, w->path, strerror(errno));
                remove(w->tmp);
            }
        } else {
            remove(w->tmp);
        }
    }
    if (commit && !w->f && !rc) rc = ls_err(LS_EINVAL, "golden writer was never opened");
    if (w->tmp) ls_tmp_unregister(w->tmp);
    free(w->path);
    free(w->tmp);
    free(w);
    return rc;
}

/* ---- reader -------------------------------------------------------------- */

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* No key twice: sorted once, O(n log n) (a search per entry made a file of
 * many keys cost quadratic time before any other check). */
static int prov_unique(const golden_prov *prov, const char *path) {
    if (prov->n < 2) return 0;
    char **k = malloc(prov->n * sizeof *k);
    if (!k) return ls_err(LS_ENOMEM, "out of memory for provenance");
    memcpy(k, prov->key, prov->n * sizeof *k);
    qsort(k, prov->n, sizeof *k, cmp_str_ptr);
    int rc = 0;
    for (size_t i = 1; i < prov->n && !rc; i++)
        if (strcmp(k[i - 1], k[i]) == 0)
            rc = ls_err(LS_EFORMAT, "%s: provenance key \"%s\" appears twice: corrupt", path, k[i]);
    free(k);
    return rc;
}

/* The provenance block buf[HEADER_BYTES, end): n entries, each bounds-checked. */
static int parse_prov(golden_prov *prov, const unsigned char *buf, size_t end, uint32_t n, const char *path) {
    size_t off = HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        if (end - off < 4) break;
        uint32_t kl = get_u32(buf + off);
        off += 4;
        if (kl > end - off || !key_valid((const char *)buf + off, kl)) break;
        const char *key = (const char *)buf + off;
        off += kl;
        if (end - off < 4) break;
        uint32_t vl = get_u32(buf + off);
        off += 4;
        if (vl > end - off || memchr(buf + off, 0, vl)) break;
        const char *val = (const char *)buf + off;
        off += vl;
        int rc = prov_append_n(prov, key, kl, val, vl);
        if (rc) return rc;
        if (i + 1 == n && off == end) return prov_unique(prov, path);
    }
    if (n == 0 && off == end) return 0;
    return ls_err(LS_EFORMAT, "%s: provenance block malformed near byte %zu: corrupt", path, off);
}

/* The fixed header, the footer and the crc over the whole file: on success,
 * the footer's record count and the inflated size of the record stream. */
static int parse_frame(const unsigned char *buf, size_t len, const char *path, uint64_t *n_records,
                       uint64_t *raw_bytes) {
    if (len < 8 || memcmp(buf, golden_magic, 8) != 0) {
        if (len < 8 && memcmp(buf, golden_magic, len) == 0)
            return ls_err(LS_EFORMAT, "%s: truncated: %zu bytes, not even the 8-byte magic", path, len);
        return ls_err(LS_EFORMAT, "%s: not a lockstep golden file (bad magic)", path);
    }
    if (len < HEADER_BYTES)
        return ls_err(LS_EFORMAT, "%s: truncated: %zu bytes, the header alone is %d", path, len, HEADER_BYTES);
    uint32_t version = get_u32(buf + 8);
    if (version != GOLDEN_VERSION)
        return ls_err(LS_EFORMAT, "%s: format version %u; this build reads version %d only", path, version,
                      GOLDEN_VERSION);
    uint32_t flags = get_u32(buf + 12);
    if (flags != 0)
        return ls_err(LS_EFORMAT, "%s: unknown header flags 0x%08x (version %d defines none): corrupt", path,
                      flags, GOLDEN_VERSION);
    uint64_t fsize = get_u64(buf + 16);
    if (fsize != len) {
        if (len < fsize)
            return ls_err(LS_EFORMAT, "%s: truncated: %zu of %llu bytes (or a corrupt header)", path, len,
                          (unsigned long long)fsize);
        return ls_err(LS_EFORMAT, "%s: %llu unexpected bytes after the end (header says %llu bytes): corrupt", path,
                      (unsigned long long)(len - fsize), (unsigned long long)fsize);
    }
    if (len < HEADER_BYTES + FOOTER_BYTES)
        return ls_err(LS_EFORMAT, "%s: %zu bytes cannot hold a header and a footer: corrupt", path, len);

    /* everything before the last 4 bytes is covered by the crc */
    const unsigned char *ft = buf + len - FOOTER_BYTES;
    uint32_t stored = get_u32(ft + 24);
    uint32_t computed = crc32_big((uint32_t)crc32(0L, Z_NULL, 0), buf, len - 4);
    if (stored != computed)
        return ls_err(LS_EFORMAT, "%s: checksum mismatch (stored %08x, computed %08x): the file is corrupt", path,
                      stored, computed);
    if (memcmp(ft, footer_magic, 4) != 0 || get_u32(ft + 4) != 0)
        return ls_err(LS_EFORMAT, "%s: footer damaged (bad footer magic)", path);
    *n_records = get_u64(ft + 8);
    *raw_bytes = get_u64(ft + 16);
    return 0;
}

/* Inflate exactly raw_bytes from exactly the zlen bytes at zs into raw, which
 * has raw_bytes + 1 bytes of room (the extra byte notices a longer stream). */
static int inflate_stream(unsigned char *raw, uint64_t raw_bytes, const unsigned char *zs, size_t zlen,
                          const char *path) {
    int rc = 0;
    z_stream z;
    int z_open = 0;
    memset(&z, 0, sizeof z);

    CHECK_Z(inflateInit(&z));
    z_open = 1;
    z.next_out = raw;
    z.avail_out = 0;
    size_t out_left = raw_bytes + 1, in_left = zlen;
    const unsigned char *in = zs;
    int zr = Z_OK;
    while (zr == Z_OK) {
        if (z.avail_in == 0 && in_left) {
            z.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
            z.next_in = (Bytef *)in;
            in += z.avail_in;
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0 && out_left) {
            z.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
            out_left -= z.avail_out;
        }
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr == Z_BUF_ERROR && (z.avail_in || in_left) && (z.avail_out || out_left)) zr = Z_OK;
    }
    if (zr != Z_STREAM_END) {
        if (zr == Z_BUF_ERROR && z.total_out > raw_bytes)
            rc = ls_err(LS_EFORMAT, "%s: record stream longer than the %llu bytes the footer says: corrupt", path,
                        (unsigned long long)raw_bytes);
        else
            rc = ls_err(LS_EFORMAT, "%s: record stream damaged (zlib: %s%s%s): corrupt", path,
                        zr == Z_BUF_ERROR ? "stream ends early" : zError(zr), z.msg ? ", " : "",
                        z.msg ? z.msg : "");
        goto cleanup;
    }
    if (z.avail_in || in_left) {
        rc = ls_err(LS_EFORMAT, "%s: %zu stray bytes between the record stream and the footer: corrupt", path,
                    (size_t)z.avail_in + in_left);
        goto cleanup;
    }
    if (z.total_out != raw_bytes) {
        rc = ls_err(LS_EFORMAT, "%s: record stream holds %lu bytes, the footer says %llu: corrupt", path,
                    (unsigned long)z.total_out, (unsigned long long)raw_bytes);
        goto cleanup;
    }

cleanup:
    if (z_open) inflateEnd(&z);
    return rc;
}

/* One record's fixed header at h, with left bytes of the stream from h on:
 * fills r's step, layer, kind, shape and crc; *count values and *name_len
 * name bytes follow the header, and both are known to fit in left. */
static int parse_record_head(golden_record *r, const unsigned char *h, size_t left, size_t nrec, const char *path,
                             size_t *count_out, unsigned *name_len) {
    if (left < RECORD_HEAD_BYTES)
        return ls_err(LS_EFORMAT, "%s: record %zu: header cut short: corrupt", path, nrec);
    r->step = get_u32(h);
    r->layer = (int32_t)get_u32(h + 4);
    r->kind = get_u16(h + 8);
    r->ndim = h[10];
    unsigned nl = h[11];
    if (r->ndim > GOLDEN_MAX_NDIM || nl > GOLDEN_MAX_NAME || r->layer < -1)
        return ls_err(LS_EFORMAT, "%s: record %zu: bad header (ndim %d, name length %u, layer %d): corrupt", path,
                      nrec, r->ndim, nl, (int)r->layer);
    size_t count = 1, room = (left - RECORD_HEAD_BYTES) / 4;
    int bad_shape = 0;
    for (int d = 0; d < GOLDEN_MAX_NDIM; d++) {
        uint32_t s = get_u32(h + 12 + 4 * d);
        if (d >= r->ndim) {
            bad_shape |= s != 0;
            continue;
        }
        r->shape[d] = s;
        if (s && count > room / s) bad_shape = 1; /* larger than what is left: no overflow possible */
        else count *= s;
    }
    if (bad_shape || (size_t)nl + 4 * count > left - RECORD_HEAD_BYTES)
        return ls_err(LS_EFORMAT, "%s: record %zu: shape does not fit the stream: corrupt", path, nrec);
    r->crc = get_u32(h + 28);
    *count_out = count;
    *name_len = nl;
    return 0;
}

/* by (step, layer, kind), then position in the file (the first one wins) */
static int rec_key_cmp(const void *a, const void *b) {
    const golden_record *x = *(const golden_record *const *)a, *y = *(const golden_record *const *)b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Split the inflated stream into its n_records records: each header, its
 * printable name and the values whose crc32 it carries, into gf. */
static int parse_records(golden_file *gf, const unsigned char *raw, uint64_t raw_bytes, uint64_t n_records,
                         const char *path) {
    gf->values = ls_malloc(raw_bytes / 4 * sizeof(float) + sizeof(float));
    gf->records = ls_calloc(n_records ? n_records : 1, sizeof *gf->records);
    if (!gf->values || !gf->records) return LS_ENOMEM;
    size_t p = 0, nvals = 0, nrec = 0;
    while (p < raw_bytes) {
        if (nrec == n_records)
            return ls_err(LS_EFORMAT, "%s: more records than the %llu the footer says: corrupt", path,
                          (unsigned long long)n_records);
        golden_record *r = &gf->records[nrec];
        size_t count = 0;
        unsigned nl = 0;
        int rc = parse_record_head(r, raw + p, raw_bytes - p, nrec, path, &count, &nl);
        if (rc) return rc;
        p += RECORD_HEAD_BYTES;
        for (unsigned i = 0; i < nl; i++) {
            if (raw[p + i] < 0x20 || raw[p + i] > 0x7e)
                return ls_err(LS_EFORMAT, "%s: record %zu: name has a non-printable byte: corrupt", path, nrec);
        }
        memcpy(r->name, raw + p, nl);
        r->name[nl] = 0;
        p += nl;
        uint32_t crc = crc32_big((uint32_t)crc32(0L, Z_NULL, 0), raw + p, 4 * count);
        if (crc != r->crc) {
            char lab[128];
            golden_record_label(r, lab, sizeof lab);
            return ls_err(LS_EFORMAT, "%s: record %zu (%s): value crc32 %08x, stored %08x: corrupt", path, nrec,
                          lab, crc, r->crc);
        }
        r->count = count;
        le_to_floats(gf->values + nvals, raw + p, count);
        r->values = gf->values + nvals;
        nvals += count;
        p += 4 * count;
        nrec++;
    }
    if (nrec != n_records)
        return ls_err(LS_EFORMAT, "%s: %zu records, the footer says %llu: corrupt", path, nrec,
                      (unsigned long long)n_records);
    /* golden_find's index: a scan per look-up made a reader that looks up
     * every step (recording_open) quadratic in the records */
    gf->index = ls_malloc((nrec ? nrec : 1) * sizeof *gf->index);
    if (!gf->index) return LS_ENOMEM;
    for (size_t i = 0; i < nrec; i++) gf->index[i] = &gf->records[i];
    qsort(gf->index, nrec, sizeof *gf->index, rec_key_cmp);
    gf->n_records = nrec;
    gf->raw_bytes = raw_bytes;
    return 0;
}

/* Parse a whole file image: the frame, the provenance, the record stream,
 * the records.  Every check names the file. */
static int golden_parse(golden_file *gf, const unsigned char *buf, size_t len, const char *path) {
    uint64_t n_records = 0, raw_bytes = 0;
    int rc = parse_frame(buf, len, path, &n_records, &raw_bytes);
    if (rc) return rc;

    /* provenance */
    uint32_t n_prov = get_u32(buf + 24), prov_bytes = get_u32(buf + 28);
    size_t end_prov = (size_t)HEADER_BYTES + prov_bytes;
    if ((uint64_t)prov_bytes > len - HEADER_BYTES - FOOTER_BYTES)
        return ls_err(LS_EFORMAT, "%s: provenance of %u bytes runs past the end of the file: corrupt", path,
                      prov_bytes);
    rc = parse_prov(&gf->prov, buf, end_prov, n_prov, path);
    if (rc) return rc;

    /* the record stream: inflate exactly raw_bytes from exactly the stream's bytes */
    const unsigned char *zs = buf + end_prov;
    size_t zlen = len - FOOTER_BYTES - end_prov;
    /* deflate expands at most ~1032:1; refuse absurd sizes before allocating */
    if (raw_bytes / 1100 > zlen || raw_bytes > (uint64_t)SIZE_MAX / 2 || n_records > raw_bytes / RECORD_HEAD_BYTES)
        return ls_err(LS_EFORMAT, "%s: footer claims %llu records in %llu bytes from a %zu-byte stream: corrupt",
                      path, (unsigned long long)n_records, (unsigned long long)raw_bytes, zlen);
    unsigned char *raw = ls_malloc(raw_bytes + 1); /* +1: room to notice a stream longer than recorded */
    if (!raw) return LS_ENOMEM;
    rc = inflate_stream(raw, raw_bytes, zs, zlen, path);
    if (!rc) rc = parse_records(gf, raw, raw_bytes, n_records, path);
    free(raw);
    return rc;
}

int golden_read(golden_file **out, const char *path) {
    int rc = 0;
    unsigned char *buf = NULL;
    *out = NULL;
    /* a FIFO or device is refused before anything blocks on it */
    int fd = ls_open_regular(path, NULL);
    if (fd < 0) return fd;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return ls_err(LS_ENOMEM, "%s: fdopen: %s", path, strerror(errno));
    }
    golden_file *gf = ls_calloc(1, sizeof *gf);
    if (!gf) {
        fclose(f);
        return LS_ENOMEM;
    }
    snprintf(gf->path, sizeof gf->path, "%s", path);
    golden_prov_init(&gf->prov);
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = ls_err(LS_EIO, "%s: not a regular file", path);
        goto cleanup;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        rc = ls_err(LS_EIO, "%s: cannot seek: %s", path, strerror(errno));
        goto cleanup;
    }
    long sz = ftell(f);
    if (sz < 0 || fseek(f, 0, SEEK_SET) != 0) {
        rc = ls_err(LS_EIO, "%s: cannot size: %s", path, strerror(errno));
        goto cleanup;
    }
    buf = ls_malloc((size_t)sz + 1);
    if (!buf) {
        rc = LS_ENOMEM;
        goto cleanup;
    }
    if (fread(buf, 1, (size_t)sz, f) != (size_t)sz || ferror(f)) {
        rc = ls_err(LS_EIO, "%s: read failed", path);
        goto cleanup;
    }
    gf->file_bytes = (size_t)sz;
    gf->version = GOLDEN_VERSION;
    rc = golden_parse(gf, buf, (size_t)sz, path);

cleanup:
    fclose(f);
    free(buf);
    if (rc) {
        golden_file_free(gf);
        return rc;
    }
    *out = gf;
    return 0;
}

void golden_file_free(golden_file *gf) {
    if (!gf) return;
    golden_prov_free(&gf->prov);
    free(gf->index);
    free(gf->records);
    free(gf->values);
    free(gf);
}

const char *golden_provenance_get(const golden_file *gf, const char *key) { return golden_prov_get(&gf->prov, key); }

const golden_record *golden_find(const golden_file *gf, uint32_t step, int32_t layer, unsigned kind) {
    size_t lo = 0, hi = gf->n_records; /* the first index entry not below the key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const golden_record *r = gf->index[mid];
        int below = r->step != step ? r->step < step : r->layer != layer ? r->layer < layer : r->kind < kind;
        if (below) lo = mid + 1;
        else hi = mid;
    }
    if (lo == gf->n_records) return NULL;
    const golden_record *r = gf->index[lo];
    return r->step == step && r->layer == layer && r->kind == kind ? r : NULL;
}

int golden_verdict(int rc) {
    if (rc == 0) return GOLDEN_PASS;
    if (rc == LS_EMISMATCH) return GOLDEN_REGRESSION;
    return GOLDEN_UNUSABLE;
}
