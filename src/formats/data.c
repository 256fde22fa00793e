/*
 * data.c — IDX image/label sets (MNIST, FashionMNIST), gzip or plain.
 *
 * One reader, read_idx(), handles both kinds of file through zlib's gz*
 * interface (gzread passes plain files through unchanged).  It checks, in
 * this order, and stops at the first problem with a message that names the
 * file: the file opens and is a regular file (a FIFO would block); it is not empty; the 4-byte magic (00 00 08 NDIMS:
 * unsigned bytes, the dimension count the caller expects); the big-endian
 * dimensions; the data is exactly prod(dims) bytes (a short file says
 * "truncated: expected N bytes of ..., got M"; one more byte is "trailing
 * data"); zlib reported no error on the way.  idx_load() then checks that the
 * image and label counts agree and that every label is below n_classes.
 *
 * The crc32 of the decompressed contents (header included) of each file is
 * kept, so a golden file or report can say exactly which data it ran on,
 * whether the data came gzipped or not.
 *
 * Speed: a well-formed gzip file is first read whole and inflated by
 * libdeflate (read_idx_fast), ~2.5x zlib's inflate here (the 26 MB
 * FashionMNIST training images: 0.12 s against 0.30 s; a whole data set
 * load 0.36 s was ~70% of a short audit's time).  Every check above is made
 * there too; anything in doubt (not gzip, several gzip members, a size or
 * header that does not add up, any libdeflate error, memory) discards it
 * and the zlib reader below reads the file again from the start and says
 * what is wrong, so the messages are the zlib reader's alone, and both
 * readers give the same bytes and crc for a good file (test_data).  A large
 * gzip file's checked decompressed copy is kept in a cache directory and
 * mapped by later loads (see "the decompressed copy" below).
 *
 * Every early exit frees what was allocated and closes the file; after a
 * failed idx_load() the set is zeroed and idx_free() on it is harmless.
 *
 * Not here: augmentation, normalisation (the write-ups use none), formats
 * other than unsigned-byte IDX (the 0x09..0x0E element types are refused).
 */
#include "formats/data.h"
#include "base/util.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <libdeflate.h>
#include <zlib.h>

#define IDX_MAGIC_IMAGES 0x00000803u /* u8 elements, 3 dimensions (n, rows, cols) */
#define IDX_MAGIC_LABELS 0x00000801u /* u8 elements, 1 dimension (n) */
#define IDX_MAX_SIDE 4096            /* rows/cols above this are surely a corrupt header */
#define IDX_READ_CHUNK (1u << 24)    /* gzread takes an unsigned length: read in chunks */

/* One decoded IDX file. */
typedef struct {
    uint32_t dims[3];
    int ndims;
    uint8_t *data; /* prod(dims) bytes, owned (or inside map) */
    size_t len;
    void *map; /* the decompressed copy mapped read-only (idx_cache_*), or NULL */
    size_t map_len;
    uint32_t crc; /* crc32 of header + data as decompressed */
} idx_raw;

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* zlib's description of the stream's error state ("" when there is none),
 * without the "PATH: " prefix zlib puts in front of it (our messages name
 * the file themselves). */
static const char *gz_why(gzFile gz, const char *path, int *errnum) {
    int e = Z_OK;
    const char *msg = gzerror(gz, &e);
    if (errnum) *errnum = e;
    if (e == Z_OK || !msg) return "";
    size_t n = strlen(path);
    if (strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
    else if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ">: ")) msg = strstr(msg, ">: ") + 3; /* gzdopen's name */
    return msg;
}

/*
 * Read up to `want` bytes into buf.  Returns the count read (short only at
 * end of data), or -1 when zlib reports a hard error, with *code set to
 * LS_EIO (the OS failed a read, Z_ERRNO) or LS_EFORMAT (corrupt gzip
 * stream) and the reason in *why.  A gzip stream that simply ends early is
 * not a hard error here: the caller sees a short count and reports it as
 * truncation, adding zlib's "unexpected end of file".
 */
static long long gz_read_full(gzFile gz, const char *path, uint8_t *buf, size_t want, int *code,
                              const char **why) {
    size_t got = 0;
    *why = "";
    *code = LS_OK;
    while (got < want) {
        size_t ask = want - got;
        if (ask > IDX_READ_CHUNK) ask = IDX_READ_CHUNK;
        int r = gzread(gz, buf + got, (unsigned)ask);
        if (r < 0) {
            int e;
            *why = gz_why(gz, path, &e);
            *code = e == Z_ERRNO ? LS_EIO : LS_EFORMAT;
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (long long)got;
}

/* " (zlib: unexpected end of file)" when the stream carries an error note
 * that explains a short read, else "". */
static const char *gz_note(gzFile gz, const char *path, char *buf, size_t cap) {
    int e;
    const char *w = gz_why(gz, path, &e);
    if (e == Z_OK || !w[0]) return "";
    snprintf(buf, cap, " (zlib: %s)", w);
    return buf;
}

static const char *zerr_kind(int code) { return code == LS_EIO ? "read error" : "gzip error"; }

/* Open path for reading, plain or gzipped.  A FIFO or device is refused
 * before anything blocks on it.  On success *gz is open and *file_size is the
 * size on disk. */
static int open_idx(gzFile *gz_out, size_t *file_size, const char *path) {
    int fd = ls_open_regular(path, file_size);
    if (fd < 0) return fd;
    errno = 0;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        /* gzdopen sets errno for OS failures; 0 means zlib itself failed (memory). */
        int e = errno;
        close(fd);
        if (e == 0) return ls_err(LS_ENOMEM, "%s: cannot open: out of memory in zlib", path);
        return ls_err(LS_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    /* A larger buffer than zlib's 8 KiB default: the real files are 26-47 MB
     * decompressed, read in one pass. Failure only costs speed. */
    (void)gzbuffer(gz, 1u << 17);
    *gz_out = gz;
    return LS_OK;
}

/* The 4-byte magic (00 00 TYPE NDIMS) into hdr; a wrong one says which part
 * is wrong. */
static int read_idx_magic(gzFile gz, const char *path, uint8_t *hdr, int ndims) {
    char note[160];
    const char *why;
    int zc;
    long long r = gz_read_full(gz, path, hdr, 4, &zc, &why);
    if (r < 0) return ls_err(zc, "%s: %s: %s", path, zerr_kind(zc), why);
    if (r == 0 && !gz_note(gz, path, note, sizeof note)[0]) return ls_err(LS_EFORMAT, "%s: empty file", path);
    if (r < 4)
        return ls_err(LS_EFORMAT, "%s: truncated: expected a 4-byte IDX magic number, got %lld bytes%s", path, r,
                      gz_note(gz, path, note, sizeof note));
    uint32_t magic = be32(hdr);
    uint32_t want_magic = ndims == 3 ? IDX_MAGIC_IMAGES : IDX_MAGIC_LABELS;
    if (magic != want_magic) {
        /* Say which part is wrong: a label file given as images (or the
         * reverse) differs only in the dimension count. */
        if (hdr[0] == 0 && hdr[1] == 0 && hdr[2] == 0x08)
            return ls_err(LS_EFORMAT,
                          "%s: wrong magic 0x%08x: %d dimensions, expected %d (magic 0x%08x, IDX %s file)", path,
                          magic, hdr[3], ndims, want_magic, ndims == 3 ? "images" : "labels");
        else if (hdr[0] == 0 && hdr[1] == 0)
            return ls_err(LS_EFORMAT,
                          "%s: wrong magic 0x%08x: element type 0x%02x, expected 0x08 (unsigned byte; magic 0x%08x)",
                          path, magic, hdr[2], want_magic);
        else
            return ls_err(LS_EFORMAT, "%s: wrong magic 0x%08x, expected 0x%08x: not an IDX %s file", path, magic,
                          want_magic, ndims == 3 ? "images" : "labels");
    }
    return LS_OK;
}

/* The dimensions after the magic (big-endian u32 each) into hdr + 4 and
 * out->dims, checked against the model's image shape and against what the
 * file can possibly hold, before anything is allocated.  *len_out: the
 * payload size the header announces. */
static int read_idx_dims(idx_raw *out, size_t *len_out, gzFile gz, const char *path, uint8_t *hdr, int ndims,
                         const char *what, int want_rows, int want_cols, size_t file_size, int is_gzip) {
    char note[160];
    const char *why;
    int zc;
    size_t dim_bytes = 4 * (size_t)ndims;
    long long r = gz_read_full(gz, path, hdr + 4, dim_bytes, &zc, &why);
    if (r < 0) return ls_err(zc, "%s: %s: %s", path, zerr_kind(zc), why);
    if ((size_t)r < dim_bytes)
        return ls_err(LS_EFORMAT, "%s: truncated: expected %zu bytes of header after the magic, got %lld%s", path,
                      dim_bytes, r, gz_note(gz, path, note, sizeof note));
    size_t len = 1;
    for (int i = 0; i < ndims; i++) {
        out->dims[i] = be32(hdr + 4 + 4 * i);
        len *= out->dims[i]; /* n < 2^32, rows*cols <= 2^24 checked below: no overflow in 64 bits */
    }
    out->ndims = ndims;
    if (ndims == 3) {
        static const char *side[3] = {"count", "rows", "cols"};
        for (int i = 1; i < 3; i++)
            if (out->dims[i] == 0 || out->dims[i] > IDX_MAX_SIDE)
                return ls_err(LS_EFORMAT, "%s: %s = %u in the header, expected 1..%d", path, side[i], out->dims[i],
                              IDX_MAX_SIDE);
    }
    if (out->dims[0] == 0) return ls_err(LS_EFORMAT, "%s: the header says 0 samples", path);
    /* Before allocating: the image shape the model expects (a 1 MB .gz that
     * declares 16384 256x256 images would cost 1 GiB before any later
     * check), and what the file can possibly hold — its own size when
     * plain, 1032x its size when gzipped (deflate's largest ratio: 258
     * bytes per 2-bit code). */
    if (ndims == 3 && want_rows > 0 && (out->dims[1] != (uint32_t)want_rows || out->dims[2] != (uint32_t)want_cols))
        return ls_err(LS_EFORMAT, "%s: images are %ux%u but the model expects %dx%d", path, out->dims[1],
                      out->dims[2], want_rows, want_cols);
    if (!is_gzip && len > file_size - (4 + dim_bytes))
        return ls_err(LS_EFORMAT, "%s: truncated: expected %zu bytes of %s, got %zu", path, len, what,
                      file_size - (4 + dim_bytes));
    if (is_gzip && (double)len > 1032.0 * (double)file_size)
        return ls_err(LS_EFORMAT, "%s: truncated: the header announces %zu bytes of %s, more than a %zu-byte gzip "
                      "file can hold (at most 1032x its size)", path, len, what, file_size);
    *len_out = len;
    return LS_OK;
}

/* Exactly len payload bytes into data, then nothing more: no trailing data,
 * and a clean end of the gzip stream. */
static int read_idx_payload(gzFile gz, const char *path, uint8_t *data, size_t len, const char *what) {
    char note[160];
    const char *why;
    int zc;
    long long r = gz_read_full(gz, path, data, len, &zc, &why);
    if (r < 0) return ls_err(zc, "%s: %s: %s", path, zerr_kind(zc), why);
    if ((size_t)r < len)
        return ls_err(LS_EFORMAT, "%s: truncated: expected %zu bytes of %s, got %lld%s", path, len, what, r,
                      gz_note(gz, path, note, sizeof note));
    /* Anything after the data is an error: a header that undercounts is as
     * wrong as one that overcounts.  (zlib itself ignores junk after the
     * last complete gzip member; that junk is not part of the contents.) */
    uint8_t extra[64];
    r = gz_read_full(gz, path, extra, sizeof extra, &zc, &why);
    if (r < 0) return ls_err(zc, "%s: %s: %s", path, zerr_kind(zc), why);
    if (r > 0)
        return ls_err(LS_EFORMAT, "%s: trailing data: more than the %zu bytes of %s the header announces", path, len,
                      what);
    /* A clean end must also be a clean end of the gzip stream (its crc and
     * length trailer checked): gzread reports a missing trailer as
     * Z_BUF_ERROR ("unexpected end of file") with no short count. */
    int zerr;
    why = gz_why(gz, path, &zerr);
    if (zerr != Z_OK)
        return ls_err(LS_EFORMAT, "%s: gzip error: %s (the stream ends without its trailer)", path, why);
    return LS_OK;
}

/* How the last read_idx() of this process read its file (data.h). */
static int g_last_reader = IDX_READER_NONE;
int idx_last_reader(void) { return g_last_reader; }

/* ---- the decompressed copy of a large gzip file --------------------------
 * Inflating the 26 MB FashionMNIST training images costs every process
 * that loads them ~0.13 s of libdeflate and ~0.1 s of page faults on the
 * 47 MB it writes (measured: 0.41 s CPU for a 1-step audit, 73% of it
 * that); `make test` starts several hundred such processes.  So a gzip
 * file of at least IDX_CACHE_MIN decompressed bytes, once inflated and
 * checked, is also written decompressed to the cache directory
 * ($LOCKSTEP_CACHE; else $XDG_CACHE_HOME/lockstep; else
 * $HOME/.cache/lockstep; LOCKSTEP_CACHE=off: none), and later loads map
 * that copy read-only instead of inflating.
 *
 * A copy is used only when its 64-byte header names the same gzip file as
 * it is now (size, inode, device, modification time to the nanosecond) and
 * the same CRC-32 and length as the gzip trailer says now, AND the CRC-32
 * of the mapped bytes, computed at every load (~5 ms), equals that
 * trailer's.  The gzip file's own CRC was checked when the copy was made
 * (libdeflate checks it), so the bytes used are the bytes the file inflates
 * to, to the strength of CRC-32, and the crc reported is the same either
 * way.  A copy that fails any of this is ignored and rewritten; a cache
 * that cannot be written (read-only, full) only costs the time.  The copy
 * is written to a temporary name and renamed (registered for removal on
 * SIGINT/SIGTERM); no fsync: a copy torn by a crash fails its CRC. */
#define IDX_CACHE_MIN ((size_t)1 << 20)
#define IDX_CACHE_HEAD 64
static const char idx_cache_magic[8] = {'L', 'S', 'I', 'D', 'X', 'C', '1', '\n'};

static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The header a copy of the gzip file behind fd (trailer crc, isize) has. */
static void idx_cache_head(uint8_t h[IDX_CACHE_HEAD], const struct stat *st, uint32_t crc, uint32_t isize) {
    memset(h, 0, IDX_CACHE_HEAD);
    memcpy(h, idx_cache_magic, 8);
    put_le64(h + 8, (uint64_t)st->st_size);
    put_le64(h + 16, (uint64_t)st->st_ino);
    put_le64(h + 24, (uint64_t)st->st_dev);
    put_le64(h + 32, (uint64_t)st->st_mtim.tv_sec);
    put_le64(h + 40, (uint64_t)st->st_mtim.tv_nsec);
    put_le64(h + 48, (uint64_t)crc | (uint64_t)isize << 32);
}

/* The cache directory (see above); 0, or -1 for none. */
static int idx_cache_dir(char *dst, size_t cap) {
    const char *e = getenv("LOCKSTEP_CACHE");
    int n;
    if (e) {
        if (!*e || !strcmp(e, "off")) return -1;
        n = snprintf(dst, cap, "%s", e);
    } else if ((e = getenv("XDG_CACHE_HOME")) && e[0] == '/')
        n = snprintf(dst, cap, "%s/lockstep", e);
    else if ((e = getenv("HOME")) && e[0] == '/')
        n = snprintf(dst, cap, "%s/.cache/lockstep", e);
    else
        return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* DIR/idx-HASH-BASE: one copy per gzip file's real path (HASH: FNV-1a of
 * it; BASE: its name, to be recognisable). */
static int idx_cache_path(char *dst, size_t cap, const char *path) {
    char dir[PATH_MAX], real[PATH_MAX];
    if (idx_cache_dir(dir, sizeof dir) || !realpath(path, real)) return -1;
    uint64_t h = 1469598103934665603ull;
    for (const char *c = real; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
    const char *b = strrchr(real, '/');
    int n = snprintf(dst, cap, "%s/idx-%016llx-%.100s", dir, (unsigned long long)h, b ? b + 1 : real);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The copy at cpath mapped read-only, if it is the one described by
 * `head` and its bytes have the crc; else NULL. */
static uint8_t *idx_cache_map(const char *cpath, const uint8_t head[IDX_CACHE_HEAD], uint32_t crc, size_t isize) {
    int fd = open(cpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return NULL;
    struct stat cs;
    uint8_t h[IDX_CACHE_HEAD];
    void *m = MAP_FAILED;
    /* only a copy this user wrote and nobody else can rewrite: CRC-32 is no
     * defence against a forged copy (4 bytes restore any CRC), and a copy
     * someone else owns could also be rewritten in place after the check */
    if (fstat(fd, &cs) == 0 && S_ISREG(cs.st_mode) && cs.st_uid == geteuid() && !(cs.st_mode & (S_IWGRP | S_IWOTH)) &&
        (uint64_t)cs.st_size == IDX_CACHE_HEAD + (uint64_t)isize &&
        pread(fd, h, IDX_CACHE_HEAD, 0) == IDX_CACHE_HEAD && !memcmp(h, head, IDX_CACHE_HEAD))
        m = mmap(NULL, IDX_CACHE_HEAD + isize, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return NULL;
    if ((uint32_t)libdeflate_crc32(0, (uint8_t *)m + IDX_CACHE_HEAD, isize) != crc) {
        munmap(m, IDX_CACHE_HEAD + isize);
        return NULL;
    }
    return m;
}

/* mkdir -p of the directory part of path (0700 for what it creates) */
static int idx_cache_mkdirs(const char *path) {
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    char *slash = strrchr(d, '/');
    if (!slash || slash == d) return -1;
    *slash = 0;
    for (char *p = d + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(d, 0700) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(d, 0700) && errno != EEXIST ? -1 : 0;
}

/* Write the copy (head, then isize bytes); failures leave nothing. */
static void idx_cache_write(const char *cpath, const uint8_t head[IDX_CACHE_HEAD], const uint8_t *buf, size_t isize) {
    if (idx_cache_mkdirs(cpath)) return;
    char tmp[PATH_MAX + 32];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", cpath, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) return;
    unlink(tmp);
    ls_tmp_register(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    int ok = fd >= 0;
    for (size_t off = 0, all = IDX_CACHE_HEAD + isize; ok && off < all;) {
        const uint8_t *p = off < IDX_CACHE_HEAD ? head + off : buf + (off - IDX_CACHE_HEAD);
        size_t want = off < IDX_CACHE_HEAD ? IDX_CACHE_HEAD - off : all - off;
        ssize_t w = write(fd, p, want);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) ok = 0;
        else off += (size_t)w;
    }
    if (fd >= 0 && close(fd)) ok = 0;
    if (!ok || rename(tmp, cpath)) unlink(tmp);
    ls_tmp_unregister(tmp);
}

/* read_idx_magic's and read_idx_dims' checks on a decompressed file's
 * isize bytes: 1 with dims and the payload's length, else 0. */
static int idx_bytes_ok(const uint8_t *buf, size_t isize, int ndims, int want_rows, int want_cols, uint32_t dims[3],
                        size_t *lenp) {
    size_t hlen = 4 + 4 * (size_t)ndims;
    if (isize < hlen || be32(buf) != (ndims == 3 ? IDX_MAGIC_IMAGES : IDX_MAGIC_LABELS)) return 0;
    size_t len = 1;
    for (int i = 0; i < ndims; i++) len *= dims[i] = be32(buf + 4 + 4 * i);
    if (dims[0] == 0) return 0;
    if (ndims == 3 && (dims[1] == 0 || dims[1] > IDX_MAX_SIDE || dims[2] == 0 || dims[2] > IDX_MAX_SIDE)) return 0;
    if (ndims == 3 && want_rows > 0 && (dims[1] != (uint32_t)want_rows || dims[2] != (uint32_t)want_cols)) return 0;
    if (len != isize - hlen) return 0; /* truncated or trailing data */
    *lenp = len;
    return 1;
}

/* A well-formed single-member gzip IDX file, inflated by libdeflate (or
 * its checked decompressed copy, above): 1 with *out filled (as the zlib
 * reader would fill it), else 0 with nothing allocated, nothing reported
 * and *out untouched: the caller then reads with zlib, which says what is
 * wrong (the header comment). */
static int read_idx_fast(idx_raw *out, const char *path, int ndims, int want_rows, int want_cols) {
    size_t size = 0;
    int fd = ls_open_regular(path, &size);
    if (fd < 0) {
        ls_err_clear(); /* the zlib reader opens it again and reports */
        return 0;
    }
    uint8_t *in = NULL, *buf = NULL, *map = NULL;
    struct libdeflate_decompressor *d = NULL;
    int ok = 0;
    size_t hlen = 4 + 4 * (size_t)ndims, len = 0;
    uint32_t dims[3] = {0, 0, 0};
    struct stat st;
    uint8_t head[IDX_CACHE_HEAD];
    char cpath[PATH_MAX];
    int cached = 0;
    uint8_t mg[2], tr[8];
    uint32_t tcrc = 0;
    size_t isize = 0;
    /* gzip: 10-byte header, deflate data, crc32 and ISIZE (the size mod 2^32) */
    if (size < 18 || size > ((size_t)1 << 31) || fstat(fd, &st)) goto done;
    /* a plain IDX file is the zlib reader's (a plain read there): look at
     * the magic before reading the whole file, not read it twice */
    if (pread(fd, mg, 2, 0) != 2 || mg[0] != 0x1f || mg[1] != 0x8b) goto done;
    if (pread(fd, tr, 8, (off_t)size - 8) != 8) goto done;
    tcrc = (uint32_t)tr[0] | (uint32_t)tr[1] << 8 | (uint32_t)tr[2] << 16 | (uint32_t)tr[3] << 24;
    isize = (size_t)tr[4] | (size_t)tr[5] << 8 | (size_t)tr[6] << 16 | (size_t)tr[7] << 24;
    if (isize < hlen || (double)isize > 1032.0 * (double)size) goto done;
    int use_cache = isize >= IDX_CACHE_MIN && !idx_cache_path(cpath, sizeof cpath, path);
    if (use_cache) {
        idx_cache_head(head, &st, tcrc, (uint32_t)isize);
        map = idx_cache_map(cpath, head, tcrc, isize);
    }
    if (map) {
        if (!idx_bytes_ok(map + IDX_CACHE_HEAD, isize, ndims, want_rows, want_cols, dims, &len)) goto done;
        memset(out, 0, sizeof *out);
        out->crc = tcrc; /* the mapped bytes' CRC-32, just computed (idx_cache_map) */
        out->data = map + IDX_CACHE_HEAD + hlen;
        out->map = map;
        out->map_len = IDX_CACHE_HEAD + isize;
        map = NULL;
        cached = 1;
    } else {
        in = ls_malloc(size);
        if (!in) goto done;
        size_t got = 0;
        while (got < size) {
            ssize_t r = pread(fd, in + got, size - got, (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) goto done;
            got += (size_t)r;
        }
        buf = ls_malloc(isize);
        d = libdeflate_alloc_decompressor();
        if (!buf || !d) goto done;
        size_t in_used = 0;
        got = 0;
        if (libdeflate_gzip_decompress_ex(d, in, size, buf, isize, &in_used, &got) != LIBDEFLATE_SUCCESS ||
            in_used != size || got != isize)
            goto done;
        if (!idx_bytes_ok(buf, isize, ndims, want_rows, want_cols, dims, &len)) goto done;
        /* libdeflate checked the bytes against the trailer's CRC-32 */
        if (use_cache) idx_cache_write(cpath, head, buf, isize);
        memset(out, 0, sizeof *out);
        out->crc = (uint32_t)libdeflate_crc32(0, buf, isize); /* CRC-32 of header + data, as crc32_z */
        memmove(buf, buf + hlen, len);
        uint8_t *shrunk = realloc(buf, len);
        out->data = shrunk ? shrunk : buf;
        buf = NULL;
    }
    memcpy(out->dims, dims, sizeof dims);
    out->ndims = ndims;
    out->len = len;
    ok = 1;
    g_last_reader = cached ? IDX_READER_CACHE : IDX_READER_LIBDEFLATE;
done:
    if (map) munmap(map, IDX_CACHE_HEAD + isize);
    if (d) libdeflate_free_decompressor(d);
    free(buf);
    free(in);
    close(fd);
    return ok;
}

/*
 * Read one IDX file of unsigned bytes with `ndims` dimensions.
 * `what` names the payload in messages ("pixel data", "label data").
 * Returns 0, or:
 *   LS_EIO      the file cannot be opened or read (OS error)
 *   LS_EFORMAT  empty, truncated, wrong magic / type / dimension count,
 *               insane dimensions, trailing data, corrupt gzip stream
 *   LS_ENOMEM   the data does not fit in memory
 * On error out->data is NULL and nothing is left open.
 */
static int read_idx(idx_raw *out, const char *path, int ndims, const char *what, int want_rows, int want_cols) {
    if (read_idx_fast(out, path, ndims, want_rows, want_cols)) return LS_OK;
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t file_size = 0, len = 0;
    gzFile gz = NULL;
    int rc = open_idx(&gz, &file_size, path);
    if (rc) return rc;
    int is_gzip = !gzdirect(gz);

    uint8_t hdr[4 + 4 * 3];
    rc = read_idx_magic(gz, path, hdr, ndims);
    if (rc) goto cleanup;
    rc = read_idx_dims(out, &len, gz, path, hdr, ndims, what, want_rows, want_cols, file_size, is_gzip);
    if (rc) goto cleanup;

    data = ls_malloc(len);
    if (!data) {
        rc = ls_err(LS_ENOMEM, "%s: cannot allocate %zu bytes of %s", path, len, what);
        goto cleanup;
    }
    rc = read_idx_payload(gz, path, data, len, what);
    if (rc) goto cleanup;

    uLong crc = crc32_z(0L, Z_NULL, 0);
    crc = crc32_z(crc, hdr, 4 + 4 * (size_t)ndims);
    crc = crc32_z(crc, data, len);
    out->crc = (uint32_t)crc;
    out->data = data;
    out->len = len;
    data = NULL;
    g_last_reader = is_gzip ? IDX_READER_ZLIB : IDX_READER_PLAIN;

cleanup:
    free(data);
    {
        int c = gzclose_r(gz);
        if (rc == LS_OK && c != Z_OK) {
            /* Z_BUF_ERROR here: the stream ended mid-member; anything else is
             * an OS error on close. Either way the data cannot be trusted. */
            free(out->data);
            out->data = NULL;
            out->len = 0;
            rc = ls_err(LS_EFORMAT, "%s: gzip error on close (%s)", path,
                        c == Z_BUF_ERROR ? "unexpected end of file" : "read error");
        }
    }
    if (rc != LS_OK) memset(out, 0, sizeof *out);
    return rc;
}

static int copy_path(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) return ls_err(LS_EINVAL, "%.60s...: path longer than %zu characters", src, cap - 1);
    memcpy(dst, src, n + 1);
    return LS_OK;
}

/*
 * Returns 0, or LS_EINVAL (bad arguments: NULL path, n_classes outside
 * 1..256, path too long), or read_idx()'s codes, or LS_EFORMAT for
 * inconsistent files (counts differ, a label out of range).
 */
int idx_load_shape(idx_set *s, const char *images_path, const char *labels_path, int n_classes, int rows, int cols) {
    memset(s, 0, sizeof *s);
    if (!images_path || !labels_path) return ls_err(LS_EINVAL, "idx_load: NULL path");
    /* Labels are single bytes: more than 256 classes cannot be represented. */
    if (n_classes < 1 || n_classes > 256)
        return ls_err(LS_EINVAL, "%s: the model has %d classes; IDX labels are single bytes, so 1..256", labels_path,
                      n_classes);
    int rc = copy_path(s->images_path, sizeof s->images_path, images_path);
    if (rc) return rc;
    rc = copy_path(s->labels_path, sizeof s->labels_path, labels_path);
    if (rc) goto fail;

    idx_raw im, lb;
    rc = read_idx(&im, images_path, 3, "pixel data", rows, cols);
    if (rc) goto fail;
    s->images = im.data;
    s->images_map = im.map;
    s->images_map_len = im.map_len;
    s->images_crc = im.crc;
    s->n = im.dims[0];
    s->rows = (int)im.dims[1];
    s->cols = (int)im.dims[2];

    rc = read_idx(&lb, labels_path, 1, "label data", 0, 0);
    if (rc) goto fail;
    s->labels = lb.data;
    s->labels_map = lb.map;
    s->labels_map_len = lb.map_len;
    s->labels_crc = lb.crc;

    if ((size_t)lb.dims[0] != s->n) {
        rc = ls_err(LS_EFORMAT, "%s holds %zu images but %s holds %zu labels: counts differ", images_path, s->n,
                    labels_path, (size_t)lb.dims[0]);
        goto fail;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->labels[i] >= n_classes) {
            rc = ls_err(LS_EFORMAT, "%s: label %d at index %zu is out of range (expected 0..%d)", labels_path,
                        s->labels[i], i, n_classes - 1);
            goto fail;
        }
    return LS_OK;

fail:
    idx_free(s);
    return rc;
}

int idx_load(idx_set *s, const char *images_path, const char *labels_path, int n_classes) {
    return idx_load_shape(s, images_path, labels_path, n_classes, 0, 0);
}

void idx_free(idx_set *s) {
    if (!s) return;
    if (s->images_map) munmap(s->images_map, s->images_map_len);
    else free(s->images);
    if (s->labels_map) munmap(s->labels_map, s->labels_map_len);
    else free(s->labels);
    memset(s, 0, sizeof *s);
}

/* DIR/BASE.gz if it exists, else DIR/BASE if it exists; else an error
 * naming both. */
static int pick_path(char *dst, size_t cap, const char *dir, const char *base) {
    int n = snprintf(dst, cap, "%s/%s.gz", dir, base);
    if (n < 0 || (size_t)n >= cap) return ls_err(LS_EINVAL, "%s: data directory path too long", dir);
    if (access(dst, F_OK) == 0) return LS_OK;
    int e = errno;
    n = snprintf(dst, cap, "%s/%s", dir, base);
    if (access(dst, F_OK) == 0) return LS_OK;
    if (errno != ENOENT) e = errno;
    return ls_err(LS_EIO, "%s: cannot open: %s (tried %s.gz, then %s)", dst, strerror(e), base, base);
}

static int load_pair(idx_set *s, const char *dir, const char *prefix, int n_classes, int rows, int cols) {
    char ip[512], lp[512], base[64];
    snprintf(base, sizeof base, "%s-images-idx3-ubyte", prefix);
    int rc = pick_path(ip, sizeof ip, dir, base);
    if (rc) return rc;
    snprintf(base, sizeof base, "%s-labels-idx1-ubyte", prefix);
    rc = pick_path(lp, sizeof lp, dir, base);
    if (rc) return rc;
    return idx_load_shape(s, ip, lp, n_classes, rows, cols);
}

int dataset_load(dataset *d, const char *dir, int n_classes) { return dataset_load_shape(d, dir, n_classes, 0, 0); }

int dataset_load_shape(dataset *d, const char *dir, int n_classes, int rows, int cols) {
    memset(d, 0, sizeof *d);
    if (!dir) dir = DATA_DEFAULT_DIR;
    int rc = copy_path(d->dir, sizeof d->dir, dir);
    if (rc) return rc;
    rc = load_pair(&d->train, dir, "train", n_classes, rows, cols);
    if (rc) goto fail;
    rc = load_pair(&d->test, dir, "t10k", n_classes, rows, cols);
    if (rc) goto fail;
    if (d->train.rows != d->test.rows || d->train.cols != d->test.cols) {
        rc = ls_err(LS_EFORMAT, "%s: training images are %dx%d but test images (%s) are %dx%d", d->train.images_path,
                    d->train.rows, d->train.cols, d->test.images_path, d->test.rows, d->test.cols);
        goto fail;
    }
    return LS_OK;

fail:
    dataset_free(d);
    return rc;
}

int dataset_n_classes(const dataset *d) {
    int top = -1;
    const idx_set *sets[2] = {&d->train, &d->test};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sets[k]->n; i++)
            if (sets[k]->labels[i] > top) top = sets[k]->labels[i];
    return top + 1;
}

void dataset_free(dataset *d) {
    if (!d) return;
    idx_free(&d->train);
    idx_free(&d->test);
    memset(d, 0, sizeof *d);
}

/*
 * x is (n, 1, rows, cols) fp32, y is (n) int32.
 * Each pixel becomes (float)b / 255.0f: one correctly rounded fp32 division,
 * so every engine and every platform sees the same bits.  The 256 possible
 * values are computed once per call with exactly that expression and looked
 * up, which gives the same bits as dividing each pixel.
 */
void dataset_set_normalize(dataset *d, float mean, float std) {
    idx_set *sets[2] = {&d->train, &d->test};
    for (int i = 0; i < 2; i++) {
        sets[i]->normalize = 1;
        sets[i]->norm_mean = mean;
        sets[i]->norm_std = std;
    }
}

void data_make_batch(const idx_set *s, const uint32_t *idx, size_t first, size_t n, float *x, int32_t *y) {
    float lut[256];
    for (int b = 0; b < 256; b++) lut[b] = (float)b / 255.0f;
    if (s->normalize) /* torchvision: tensor.sub_(mean).div_(std), in fp32 */
        for (int b = 0; b < 256; b++) lut[b] = (lut[b] - s->norm_mean) / s->norm_std;
    size_t img = (size_t)s->rows * (size_t)s->cols;
    for (size_t j = 0; j < n; j++) {
        size_t k = idx ? (size_t)idx[j] : first + j;
        assert(k < s->n);
        const uint8_t *src = s->images + k * img;
        float *dst = x + j * img;
        for (size_t p = 0; p < img; p++) dst[p] = lut[src[p]];
        if (y) y[j] = (int32_t)s->labels[k];
    }
}
