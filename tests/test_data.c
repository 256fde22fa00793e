/*
 * test_data.c — the IDX reader (src/formats/data.c) on files made by fixtures in a
 * mkdtemp directory: good plain and gzip files, then every kind of damage
 * the reader must refuse with a message that names the file and the
 * problem; the real FashionMNIST files when installed; data_make_batch.
 *
 * Leaks are checked by running this binary under valgrind (see the report
 * in the commit); the tests themselves check that a failed load leaves the
 * set zeroed, so idx_free() on it is harmless.
 *
 * Not here: anything about training or the shuffle (test_rng.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/data.h"
#include "base/util.h"

static char g_dir[64];

/* ---- fixtures ---------------------------------------------------------- */

static int group_setup(void **state) {
    snprintf(g_dir, sizeof g_dir, "/tmp/ls_test_data_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    return 0;
}

/* Remove the files one level deep, then the directory (fixtures make no
 * deeper trees). */
static void rm_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int group_teardown(void **state) {
    rm_tree(g_dir);
    return 0;
}

/* ---- helpers ----------------------------------------------------------- */

typedef struct {
    uint8_t *b;
    size_t len;
} bytes;

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* pixel k of a fixture image set: a pattern that covers 0..255 */
static uint8_t pix(size_t k) { return (uint8_t)(k * 7 + 3); }

/* An IDX images file: magic, n, rows, cols, then n*rows*cols pattern bytes. */
static bytes make_images(uint32_t magic, uint32_t n, uint32_t rows, uint32_t cols) {
    size_t len = 16 + (size_t)n * rows * cols;
    bytes r = {malloc(len), len};
    assert_non_null(r.b);
    put_be32(r.b, magic);
    put_be32(r.b + 4, n);
    put_be32(r.b + 8, rows);
    put_be32(r.b + 12, cols);
    for (size_t k = 0; k < len - 16; k++) r.b[16 + k] = pix(k);
    return r;
}

/* An IDX labels file: magic, n, then label i = i % n_classes. */
static bytes make_labels(uint32_t magic, uint32_t n, int n_classes) {
    size_t len = 8 + (size_t)n;
    bytes r = {malloc(len), len};
    assert_non_null(r.b);
    put_be32(r.b, magic);
    put_be32(r.b + 4, n);
    for (size_t i = 0; i < n; i++) r.b[8 + i] = (uint8_t)(i % (size_t)n_classes);
    return r;
}

/* Full path of a fixture file (static storage, four slots in rotation). */
static const char *fx_path(const char *name) {
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static const char *write_plain(const char *name, const void *data, size_t len) {
    const char *p = fx_path(name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (len) assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return p;
}

/* gzip `data` in memory (deflate with a gzip wrapper), returning the
 * compressed bytes, so tests can cut or corrupt them. */
static bytes gzip_bytes(const void *data, size_t len) {
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, len);
    bytes r = {malloc(cap), 0};
    assert_non_null(r.b);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = r.b;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    r.len = cap - z.avail_out;
    deflateEnd(&z);
    return r;
}

static const char *write_gz(const char *name, const void *data, size_t len) {
    bytes g = gzip_bytes(data, len);
    const char *p = write_plain(name, g.b, g.len);
    free(g.b);
    return p;
}

static void assert_zeroed(const idx_set *s) {
    assert_null(s->images);
    assert_null(s->labels);
    assert_int_equal(s->n, 0);
}

/* idx_load must fail with `code`, and the message must name `who` and
 * contain `what`. */
static void expect_fail(const char *images, const char *labels, int n_classes, int code, const char *who,
                        const char *what) {
    idx_set s;
    int rc = idx_load(&s, images, labels, n_classes);
    const char *m = ls_errmsg();
    if (rc != code || !strstr(m, who) || !strstr(m, what))
        print_error("rc = %d (want %d), message: \"%s\"\n  want it to contain \"%s\" and \"%s\"\n", rc, code, m, who,
                    what);
    else
        print_message("  refused as expected: %s\n", m);
    assert_int_equal(rc, code);
    assert_non_null(strstr(m, who));
    assert_non_null(strstr(m, what));
    assert_zeroed(&s);
    idx_free(&s); /* harmless on a zeroed set */
}

/* Standard good pair used by many tests: 5 images of 3x4, 10 classes. */
#define GN 5
#define GR 3
#define GC 4

static const char *good_labels_plain(void) {
    bytes l = make_labels(0x00000801, GN, 10);
    const char *p = write_plain("good-labels", l.b, l.len);
    free(l.b);
    return p;
}

/* ---- good files -------------------------------------------------------- */

static void check_good_set(const idx_set *s, const bytes *im, const bytes *lb) {
    assert_int_equal(s->n, GN);
    assert_int_equal(s->rows, GR);
    assert_int_equal(s->cols, GC);
    assert_memory_equal(s->images, im->b + 16, (size_t)GN * GR * GC);
    assert_memory_equal(s->labels, lb->b + 8, GN);
    /* crc32 of the whole decompressed file, header included */
    assert_int_equal(s->images_crc, (uint32_t)crc32_z(crc32_z(0, NULL, 0), im->b, im->len));
    assert_int_equal(s->labels_crc, (uint32_t)crc32_z(crc32_z(0, NULL, 0), lb->b, lb->len));
}

static void test_good_plain(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC), lb = make_labels(0x00000801, GN, 10);
    const char *ip = write_plain("good-images", im.b, im.len);
    const char *lp = write_plain("good-labels", lb.b, lb.len);
    idx_set s;
    assert_int_equal(idx_load(&s, ip, lp, 10), 0);
    check_good_set(&s, &im, &lb);
    assert_int_equal(idx_last_reader(), IDX_READER_PLAIN);
    assert_string_equal(s.images_path, ip);
    assert_string_equal(s.labels_path, lp);
    idx_free(&s);
    assert_zeroed(&s);
    free(im.b);
    free(lb.b);
}

static void test_good_gzip(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC), lb = make_labels(0x00000801, GN, 10);
    const char *ip = write_gz("good-images.gz", im.b, im.len);
    const char *lp = write_gz("good-labels.gz", lb.b, lb.len);
    idx_set s;
    assert_int_equal(idx_load(&s, ip, lp, 10), 0);
    /* the same crcs as the plain files: they describe the contents */
    check_good_set(&s, &im, &lb);
    /* a well-formed single-member file: inflated by libdeflate */
    assert_int_equal(idx_last_reader(), IDX_READER_LIBDEFLATE);
    idx_free(&s);
    free(im.b);
    free(lb.b);
}

/* Two gzip members one after the other (what `cat a.gz b.gz` makes; zlib
 * reads on into the second): the fast reader declines them and zlib's
 * reads them, to the same bytes and crcs as one member or a plain file. */
static void test_gzip_two_members(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC), lb = make_labels(0x00000801, GN, 10);
    const bytes *src[2] = {&im, &lb};
    const char *name[2] = {"two-images.gz", "two-labels.gz"}, *path[2];
    for (int k = 0; k < 2; k++) {
        size_t cut = src[k]->len / 3;
        bytes a = gzip_bytes(src[k]->b, cut), b = gzip_bytes(src[k]->b + cut, src[k]->len - cut);
        uint8_t *ab = malloc(a.len + b.len);
        assert_non_null(ab);
        memcpy(ab, a.b, a.len);
        memcpy(ab + a.len, b.b, b.len);
        path[k] = write_plain(name[k], ab, a.len + b.len);
        free(ab);
        free(a.b);
        free(b.b);
    }
    idx_set s;
    assert_int_equal(idx_load(&s, path[0], path[1], 10), 0);
    check_good_set(&s, &im, &lb);
    assert_int_equal(idx_last_reader(), IDX_READER_ZLIB);
    idx_free(&s);
    free(im.b);
    free(lb.b);
}

/* ---- damaged files ----------------------------------------------------- */

static void test_truncated_header(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC);
    const char *lp = good_labels_plain();
    /* magic cut */
    const char *ip = write_plain("trunc-magic", im.b, 3);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "truncated: expected a 4-byte IDX magic number, got 3 bytes");
    /* dimensions cut */
    ip = write_plain("trunc-dims", im.b, 10);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "truncated: expected 12 bytes of header after the magic, got 6");
    /* labels header cut */
    bytes lb = make_labels(0x00000801, GN, 10);
    const char *ip2 = write_plain("good-images", im.b, im.len);
    const char *lp2 = write_plain("trunc-labels-hdr", lb.b, 6);
    expect_fail(ip2, lp2, 10, LS_EFORMAT, lp2, "truncated");
    free(im.b);
    free(lb.b);
}

static void test_truncated_data(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC);
    const char *lp = good_labels_plain();
    const char *ip = write_plain("trunc-data", im.b, im.len - 1);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "truncated: expected 60 bytes of pixel data, got 59");
    /* header only */
    ip = write_plain("trunc-data0", im.b, 16);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "truncated: expected 60 bytes of pixel data, got 0");
    /* labels short */
    bytes lb = make_labels(0x00000801, GN, 10);
    const char *ip2 = write_plain("good-images", im.b, im.len);
    const char *lp2 = write_plain("trunc-labels", lb.b, lb.len - 2);
    expect_fail(ip2, lp2, 10, LS_EFORMAT, lp2, "truncated: expected 5 bytes of label data, got 3");
    free(im.b);
    free(lb.b);
}

/* A gzip stream cut in the middle, and one missing only its 8-byte trailer
 * (crc32 + length): both are truncated files, never a success. */
/* A ~1 KB .gz declaring 16384 images of 256x256 (1 GiB) cost that GiB
 * before any check: now the model's shape is checked first, and without a
 * shape the file's size bounds what it can hold (deflate: at most 1032x). */
static void test_shape_checked_before_allocating(void **state) {
    size_t body = 1u << 20;
    uint8_t *raw = calloc(1, 16 + body);
    assert_non_null(raw);
    put_be32(raw, 0x00000803);
    put_be32(raw + 4, 16384);
    put_be32(raw + 8, 256);
    put_be32(raw + 12, 256);
    const char *ip = write_gz("bomb-images.gz", raw, 16 + body);
    free(raw);
    const char *lp = good_labels_plain();
    idx_set s;
    int rc = idx_load_shape(&s, ip, lp, 10, 28, 28);
    print_message("  %s\n", ls_errmsg());
    assert_int_equal(rc, LS_EFORMAT);
    assert_non_null(strstr(ls_errmsg(), "images are 256x256 but the model expects 28x28"));
    assert_zeroed(&s);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "announces 1073741824 bytes of pixel data, more than a");
    /* a plain file: bounded by its own size, with the usual wording */
    bytes im = make_images(0x00000803, GN, GR, GC);
    put_be32(im.b + 4, 1000000);
    const char *pp = write_plain("plain-overcount", im.b, im.len);
    expect_fail(pp, lp, 10, LS_EFORMAT, pp, "truncated: expected");
    free(im.b);
}

static void test_truncated_gzip(void **state) {
    bytes im = make_images(0x00000803, 200, 28, 28); /* big enough that a cut lands inside the data */
    const char *lp = good_labels_plain();
    bytes g = gzip_bytes(im.b, im.len);
    const char *ip = write_plain("trunc-mid.gz", g.b, g.len / 2);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "truncated: expected 156800 bytes of pixel data, got");
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "unexpected end of file");

    /* n = 5 so the labels agree; cut only the gzip trailer */
    bytes im5 = make_images(0x00000803, GN, GR, GC);
    bytes g5 = gzip_bytes(im5.b, im5.len);
    ip = write_plain("trunc-trailer.gz", g5.b, g5.len - 8);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "gzip error: unexpected end of file (the stream ends without its trailer)");

    /* a flipped bit in the stored crc32: the data are all there, but corrupt */
    g5.b[g5.len - 8] ^= 1;
    ip = write_plain("bad-crc.gz", g5.b, g5.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "gzip error");
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "incorrect data check");
    free(g.b);
    free(g5.b);
    free(im.b);
    free(im5.b);
}

static void test_wrong_magic(void **state) {
    const char *lp = good_labels_plain();
    bytes im = make_images(0x12345678, GN, GR, GC);
    const char *ip = write_plain("magic-junk", im.b, im.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "wrong magic 0x12345678, expected 0x00000803");
    free(im.b);
    /* element type 0x0D (float) instead of unsigned byte */
    im = make_images(0x00000D03, GN, GR, GC);
    ip = write_plain("magic-float", im.b, im.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "element type 0x0d, expected 0x08");
    /* images and labels swapped */
    bytes img = make_images(0x00000803, GN, GR, GC);
    const char *good_ip = write_plain("good-images", img.b, img.len);
    expect_fail(lp, good_ip, 10, LS_EFORMAT, lp, "1 dimensions, expected 3");
    free(im.b);
    free(img.b);
}

static void test_wrong_ndims(void **state) {
    const char *lp = good_labels_plain();
    /* images claiming 2 dimensions (header otherwise of an images file) */
    bytes im = make_images(0x00000802, GN, GR, GC);
    const char *ip = write_plain("ndims2", im.b, im.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "wrong magic 0x00000802: 2 dimensions, expected 3");
    free(im.b);
    /* labels claiming 3 dimensions */
    bytes img = make_images(0x00000803, GN, GR, GC);
    ip = write_plain("good-images", img.b, img.len);
    bytes lb = make_labels(0x00000803, GN, 10);
    const char *lp2 = write_plain("labels-ndims3", lb.b, lb.len);
    expect_fail(ip, lp2, 10, LS_EFORMAT, lp2, "3 dimensions, expected 1");
    free(img.b);
    free(lb.b);
}

static void test_bad_sides(void **state) {
    const char *lp = good_labels_plain();
    bytes im = make_images(0x00000803, GN, 0, GC);
    const char *ip = write_plain("rows0", im.b, im.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "rows = 0 in the header, expected 1..4096");
    free(im.b);
    /* a cols field of 5000 with no data behind it: refused before any allocation */
    im = make_images(0x00000803, GN, GR, 0);
    put_be32(im.b + 12, 5000);
    ip = write_plain("cols5000", im.b, im.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "cols = 5000 in the header");
    free(im.b);
    im = make_images(0x00000803, 0, GR, GC);
    ip = write_plain("n0", im.b, im.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "0 samples");
    free(im.b);
}

static void test_count_mismatch(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC), lb = make_labels(0x00000801, GN + 1, 10);
    const char *ip = write_plain("good-images", im.b, im.len);
    const char *lp = write_plain("labels6", lb.b, lb.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "holds 5 images but");
    expect_fail(ip, lp, 10, LS_EFORMAT, lp, "holds 6 labels: counts differ");
    free(im.b);
    free(lb.b);
}

static void test_label_out_of_range(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC), lb = make_labels(0x00000801, GN, 10);
    const char *ip = write_plain("good-images", im.b, im.len);
    lb.b[8 + 3] = 10;
    lb.b[8 + 4] = 200;
    const char *lp = write_plain("labels-bad", lb.b, lb.len);
    expect_fail(ip, lp, 10, LS_EFORMAT, lp, "label 10 at index 3 is out of range (expected 0..9)");
    /* the same file is fine with more classes */
    idx_set s;
    assert_int_equal(idx_load(&s, ip, lp, 201), 0);
    idx_free(&s);
    /* bad argument: n_classes outside 1..256 */
    expect_fail(ip, lp, 0, LS_EINVAL, lp, "the model has 0 classes; IDX labels are single bytes, so 1..256");
    expect_fail(ip, lp, 257, LS_EINVAL, lp, "the model has 257 classes");
    free(im.b);
    free(lb.b);
}

static void test_trailing_garbage(void **state) {
    bytes im = make_images(0x00000803, GN, GR, GC);
    const char *lp = good_labels_plain();
    uint8_t *b = malloc(im.len + 3);
    assert_non_null(b);
    memcpy(b, im.b, im.len);
    memcpy(b + im.len, "xyz", 3);
    const char *ip = write_plain("trailing", b, im.len + 3);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "trailing data: more than the 60 bytes of pixel data");
    /* the same inside the gzip stream */
    ip = write_gz("trailing.gz", b, im.len + 1);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "trailing data");
    /* labels */
    bytes lb = make_labels(0x00000801, GN, 10);
    uint8_t *c = malloc(lb.len + 1);
    assert_non_null(c);
    memcpy(c, lb.b, lb.len);
    c[lb.len] = 0;
    const char *ip2 = write_plain("good-images", im.b, im.len);
    const char *lp2 = write_plain("labels-trailing", c, lb.len + 1);
    expect_fail(ip2, lp2, 10, LS_EFORMAT, lp2, "trailing data: more than the 5 bytes of label data");
    free(b);
    free(c);
    free(im.b);
    free(lb.b);
}

/* A valid 10-byte gzip header followed by junk: the first deflate block
 * header 0xff says BFINAL=1, BTYPE=11 (reserved), which inflate rejects. */
static void test_garbage_gzip(void **state) {
    const char *lp = good_labels_plain();
    uint8_t g[64] = {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03};
    memset(g + 10, 0xff, sizeof g - 10);
    const char *ip = write_plain("garbage.gz", g, sizeof g);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "gzip error: invalid block type");
    /* junk that starts like a stored block: the length check fails */
    memset(g + 10, 0x00, sizeof g - 10);
    g[10] = 0x01; /* BFINAL=1, BTYPE=00 (stored), then LEN=0x0000, NLEN=0x0000 (should be 0xffff) */
    ip = write_plain("garbage2.gz", g, sizeof g);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "gzip error");
    /* only the two magic bytes */
    ip = write_plain("gzmagic-only.gz", g, 2);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "truncated: expected a 4-byte IDX magic number, got 0 bytes (zlib: unexpected end of file)");
}

static void test_empty_file(void **state) {
    const char *lp = good_labels_plain();
    const char *ip = write_plain("empty", "", 0);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "empty file");
    /* an empty file inside a valid gzip wrapper */
    ip = write_gz("empty.gz", "", 0);
    expect_fail(ip, lp, 10, LS_EFORMAT, ip, "empty file");
    bytes im = make_images(0x00000803, GN, GR, GC);
    const char *ip2 = write_plain("good-images", im.b, im.len);
    const char *lp2 = write_plain("empty-labels", "", 0);
    expect_fail(ip2, lp2, 10, LS_EFORMAT, lp2, "empty file");
    free(im.b);
}

static void test_missing_file(void **state) {
    const char *lp = good_labels_plain();
    const char *ip = fx_path("no-such-file");
    expect_fail(ip, lp, 10, LS_EIO, ip, "cannot open: No such file or directory");
    bytes im = make_images(0x00000803, GN, GR, GC);
    const char *ip2 = write_plain("good-images", im.b, im.len);
    const char *lp2 = fx_path("no-such-labels");
    expect_fail(ip2, lp2, 10, LS_EIO, lp2, "No such file");
    /* a directory is not a file */
    expect_fail(g_dir, lp, 10, LS_EIO, g_dir, "not a regular file (a directory)");
    free(im.b);
}

static void test_long_path(void **state) {
    char p[700];
    memset(p, 'a', sizeof p - 1);
    p[sizeof p - 1] = 0;
    expect_fail(p, p, 10, LS_EINVAL, "path longer than 511 characters", "aaaa");
}

/* ---- dataset_load ------------------------------------------------------- */

/* Other sizes than 28x28: 13 training images of 7x5 gzipped, 4 test images
 * plain, 3 classes — the .gz-then-plain lookup and the sizes both work. */
static void test_dataset_other_sizes(void **state) {
    char sub[128];
    snprintf(sub, sizeof sub, "%s/tiny", g_dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    bytes a = make_images(0x00000803, 13, 7, 5), b = make_labels(0x00000801, 13, 3);
    bytes c = make_images(0x00000803, 4, 7, 5), d = make_labels(0x00000801, 4, 3);
    write_gz("tiny/train-images-idx3-ubyte.gz", a.b, a.len);
    write_gz("tiny/train-labels-idx1-ubyte.gz", b.b, b.len);
    write_plain("tiny/t10k-images-idx3-ubyte", c.b, c.len);
    write_plain("tiny/t10k-labels-idx1-ubyte", d.b, d.len);
    dataset ds;
    assert_int_equal(dataset_load(&ds, sub, 3), 0);
    assert_int_equal(ds.train.n, 13);
    assert_int_equal(ds.test.n, 4);
    assert_int_equal(ds.train.rows, 7);
    assert_int_equal(ds.train.cols, 5);
    assert_int_equal(ds.test.rows, 7);
    assert_non_null(strstr(ds.train.images_path, "train-images-idx3-ubyte.gz"));
    assert_non_null(strstr(ds.test.images_path, "t10k-images-idx3-ubyte"));
    assert_null(strstr(ds.test.images_path, ".gz"));
    assert_memory_equal(ds.train.images, a.b + 16, 13 * 35);
    assert_memory_equal(ds.test.labels, d.b + 8, 4);
    assert_string_equal(ds.dir, sub);
    /* too few classes for these labels (0..2): the first bad one is index 2 */
    dataset bad;
    assert_int_equal(dataset_load(&bad, sub, 2), LS_EFORMAT);
    assert_non_null(strstr(ls_errmsg(), "train-labels-idx1-ubyte.gz: label 2 at index 2"));
    assert_null(bad.train.images);
    dataset_free(&bad);
    dataset_free(&ds);
    free(a.b);
    free(b.b);
    free(c.b);
    free(d.b);
}

static void test_dataset_missing(void **state) {
    char sub[128];
    snprintf(sub, sizeof sub, "%s/nothing-here", g_dir);
    dataset ds;
    assert_int_equal(dataset_load(&ds, sub, 10), LS_EIO);
    const char *m = ls_errmsg();
    assert_non_null(strstr(m, sub));
    assert_non_null(strstr(m, "tried train-images-idx3-ubyte.gz, then train-images-idx3-ubyte"));
    assert_null(ds.train.images);
    dataset_free(&ds);
}

/* The real FashionMNIST files of Debian's dataset-fashion-mnist. */
static void test_fashion_mnist(void **state) {
    char p[600];
    snprintf(p, sizeof p, "%s/train-images-idx3-ubyte.gz", DATA_DEFAULT_DIR);
    if (access(p, R_OK) != 0) {
        print_message("skipped: %s not readable (install dataset-fashion-mnist)\n", p);
        skip();
    }
    dataset ds;
    int rc = dataset_load(&ds, DATA_DEFAULT_DIR, 10);
    if (rc) print_error("%s\n", ls_errmsg());
    assert_int_equal(rc, 0);
    assert_int_equal(ds.train.n, 60000);
    assert_int_equal(ds.test.n, 10000);
    assert_int_equal(ds.train.rows, 28);
    assert_int_equal(ds.train.cols, 28);
    assert_int_equal(ds.test.rows, 28);
    assert_int_equal(ds.test.cols, 28);
    /* FashionMNIST is balanced: 6,000 training and 1,000 test images per class. */
    size_t cnt[2][10] = {{0}};
    for (size_t i = 0; i < ds.train.n; i++) {
        assert_true(ds.train.labels[i] < 10);
        cnt[0][ds.train.labels[i]]++;
    }
    for (size_t i = 0; i < ds.test.n; i++) {
        assert_true(ds.test.labels[i] < 10);
        cnt[1][ds.test.labels[i]]++;
    }
    for (int c = 0; c < 10; c++) {
        assert_int_equal(cnt[0][c], 6000);
        assert_int_equal(cnt[1][c], 1000);
    }
    print_message("crc32: train images %08x labels %08x, test images %08x labels %08x\n", ds.train.images_crc,
                  ds.train.labels_crc, ds.test.images_crc, ds.test.labels_crc);
    /* read by libdeflate (the last file, t10k's labels), and the crc each
     * set reports is the CRC-32 its gzip member carries (the file's
     * trailer, written by whoever compressed it) */
    assert_int_equal(idx_last_reader(), IDX_READER_LIBDEFLATE);
    const char *base[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                           "t10k-labels-idx1-ubyte"};
    uint32_t got[4] = {ds.train.images_crc, ds.train.labels_crc, ds.test.images_crc, ds.test.labels_crc};
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s/%s.gz", DATA_DEFAULT_DIR, base[k]);
        FILE *f = fopen(p, "rb");
        assert_non_null(f);
        uint8_t t[8];
        assert_int_equal(fseek(f, -8, SEEK_END), 0);
        assert_int_equal(fread(t, 1, 8, f), 8);
        fclose(f);
        uint32_t trailer = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
        assert_int_equal(got[k], trailer);
    }
    dataset_free(&ds);
}

/* ---- the decompressed copy (data.c: the cache) ---------------------------- */

/* The one copy in dir (not a temporary), into out; 0 if none, -1 if more. */
static int cache_file(const char *dir, char *out, size_t cap) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "idx-", 4)) {
            n = strstr(e->d_name, ".tmp.") || n ? -1 : 1;
            snprintf(out, cap, "%s/%s", dir, e->d_name);
        }
    closedir(d);
    return n;
}

/* 1400 28x28 images (1.1 MB: over the 1 MiB a copy needs), gzipped. */
#define CN 1400
static void load_big(const char *ip, const char *lp, const bytes *im, int want_reader) {
    idx_set s;
    int rc = idx_load(&s, ip, lp, 10);
    if (rc) print_error("%s\n", ls_errmsg());
    assert_int_equal(rc, 0);
    assert_int_equal(s.n, CN);
    assert_memory_equal(s.images, im->b + 16, (size_t)CN * 28 * 28);
    assert_int_equal(s.images_crc, (uint32_t)crc32_z(crc32_z(0, NULL, 0), im->b, im->len));
    /* the images file is the first read, so the reader of the labels
     * (small: never copied) is what idx_last_reader says; the images'
     * reader shows as whether they lie in a mapping */
    assert_int_equal(s.images_map != NULL, want_reader == IDX_READER_CACHE);
    assert_null(s.labels_map);
    idx_free(&s);
    assert_zeroed(&s);
}

/* A large gzip file is inflated once and copied; the next load maps the
 * copy: the same bytes and crc.  A copy whose bytes were damaged, that
 * was cut short, or that belongs to the file as it was before it was
 * rewritten is not used (and is written again); LOCKSTEP_CACHE=off writes
 * none; a cache that cannot be written costs nothing but the time. */
static void test_cache_copy(void **state) {
    char cdir[700], cf[1400];
    snprintf(cdir, sizeof cdir, "%s/cache", g_dir);
    setenv("LOCKSTEP_CACHE", cdir, 1);
    bytes im = make_images(0x00000803, CN, 28, 28), lb = make_labels(0x00000801, CN, 10);
    const char *ip0 = write_gz("big-images.gz", im.b, im.len);
    char ip[600], lp[600];
    snprintf(ip, sizeof ip, "%s", ip0);
    snprintf(lp, sizeof lp, "%s", write_gz("big-labels.gz", lb.b, lb.len));
    assert_int_equal(cache_file(cdir, cf, sizeof cf), 0);
    load_big(ip, lp, &im, IDX_READER_LIBDEFLATE); /* inflated, and copied */
    assert_int_equal(cache_file(cdir, cf, sizeof cf), 1);
    struct stat st;
    assert_int_equal(stat(cf, &st), 0);
    assert_int_equal((size_t)st.st_size, 64 + im.len);
    load_big(ip, lp, &im, IDX_READER_CACHE); /* mapped */

    /* one byte of the copy's pixels changed: its CRC-32 no longer matches
     * the gzip trailer's; inflated again, and the copy rewritten */
    FILE *f = fopen(cf, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 64 + 16 + 1000, SEEK_SET), 0);
    assert_int_equal(fputc(pix(1000) ^ 0x40, f), pix(1000) ^ 0x40);
    assert_int_equal(fclose(f), 0);
    load_big(ip, lp, &im, IDX_READER_LIBDEFLATE);
    load_big(ip, lp, &im, IDX_READER_CACHE);

    /* cut short */
    assert_int_equal(truncate(cf, 64 + (off_t)im.len - 1), 0);
    load_big(ip, lp, &im, IDX_READER_LIBDEFLATE);
    load_big(ip, lp, &im, IDX_READER_CACHE);

    /* a copy someone else could have written or could rewrite (group- or
     * world-writable, another owner) is not used, whatever its CRC-32 (four
     * bytes restore any CRC-32): inflated again, and the copy rewritten */
    assert_int_equal(chmod(cf, 0664), 0);
    load_big(ip, lp, &im, IDX_READER_LIBDEFLATE);
    load_big(ip, lp, &im, IDX_READER_CACHE);
    if (geteuid() == 0) {
        assert_int_equal(chown(cf, 65534, 65534), 0);
        load_big(ip, lp, &im, IDX_READER_LIBDEFLATE);
        load_big(ip, lp, &im, IDX_READER_CACHE);
    }

    /* the gzip file rewritten with other pixels: the old copy is not the
     * file's any more (size, inode, time or trailer differ) */
    bytes im2 = make_images(0x00000803, CN, 28, 28);
    for (size_t k = 16; k < im2.len; k += 97) im2.b[k] ^= 0x11;
    unlink(ip);
    write_gz("big-images.gz", im2.b, im2.len);
    load_big(ip, lp, &im2, IDX_READER_LIBDEFLATE);
    load_big(ip, lp, &im2, IDX_READER_CACHE);
    assert_int_equal(cache_file(cdir, cf, sizeof cf), 1); /* one copy per file, replaced */

    /* off: nothing read from or written to the cache */
    setenv("LOCKSTEP_CACHE", "off", 1);
    load_big(ip, lp, &im2, IDX_READER_LIBDEFLATE);
    /* a cache directory that cannot be made (under a regular file) */
    char bad[800];
    snprintf(bad, sizeof bad, "%s/cache-under", lp);
    setenv("LOCKSTEP_CACHE", bad, 1);
    load_big(ip, lp, &im2, IDX_READER_LIBDEFLATE);
    load_big(ip, lp, &im2, IDX_READER_LIBDEFLATE);
    unsetenv("LOCKSTEP_CACHE");
    free(im.b);
    free(im2.b);
    free(lb.b);
}

/* ---- data_make_batch ---------------------------------------------------- */

static void test_make_batch(void **state) {
    /* 256 "images" of 1x1, pixel = index, so every byte value appears once */
    idx_set s;
    memset(&s, 0, sizeof s);
    uint8_t im[256 * 2], lb[256];
    for (int i = 0; i < 256; i++) {
        im[2 * i] = (uint8_t)i;
        im[2 * i + 1] = (uint8_t)(255 - i);
        lb[i] = (uint8_t)(i % 10);
    }
    s.n = 256;
    s.rows = 1;
    s.cols = 2;
    s.images = im;
    s.labels = lb;
    float x[256 * 2];
    int32_t y[256];
    data_make_batch(&s, NULL, 0, 256, x, y);
    for (int i = 0; i < 256; i++) {
        /* Independent check: b/255 in double, then rounded to float.  The
         * double rounding is innocuous for division because 53 >= 2*24 + 2
         * (Figueroa's theorem), so this equals the correctly rounded fp32
         * quotient bit for bit — tolerance zero. */
        float want = (float)((double)i / 255.0);
        assert_memory_equal(&x[2 * i], &want, sizeof want);
        float want2 = (float)((double)(255 - i) / 255.0);
        assert_memory_equal(&x[2 * i + 1], &want2, sizeof want2);
        assert_int_equal(y[i], i % 10);
    }
    assert_true(x[0] == 0.0f);
    assert_true(x[2 * 255] == 1.0f);
    assert_true(x[2 * 51] == 0.2f); /* 51/255 = 1/5 exactly, rounded once */

    /* through an index list, and with an offset */
    uint32_t idx[3] = {200, 7, 200};
    float xi[6];
    int32_t yi[3];
    data_make_batch(&s, idx, 0, 3, xi, yi);
    assert_memory_equal(&xi[0], &x[400], 2 * sizeof(float));
    assert_memory_equal(&xi[2], &x[14], 2 * sizeof(float));
    assert_memory_equal(&xi[4], &x[400], 2 * sizeof(float));
    assert_int_equal(yi[0], 0);
    assert_int_equal(yi[1], 7);
    data_make_batch(&s, NULL, 100, 3, xi, yi);
    assert_memory_equal(xi, &x[200], 6 * sizeof(float));
    assert_int_equal(yi[2], 2);
    /* y may be NULL (evaluation without labels) */
    data_make_batch(&s, NULL, 5, 1, xi, NULL);
    assert_memory_equal(xi, &x[10], 2 * sizeof(float));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_plain),         cmocka_unit_test(test_good_gzip), cmocka_unit_test(test_gzip_two_members),
        cmocka_unit_test(test_truncated_header),   cmocka_unit_test(test_truncated_data),
        cmocka_unit_test(test_truncated_gzip),     cmocka_unit_test(test_wrong_magic),
        cmocka_unit_test(test_wrong_ndims),        cmocka_unit_test(test_bad_sides),
        cmocka_unit_test(test_count_mismatch),     cmocka_unit_test(test_label_out_of_range),
        cmocka_unit_test(test_trailing_garbage),   cmocka_unit_test(test_garbage_gzip),
        cmocka_unit_test(test_empty_file),         cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_long_path),          cmocka_unit_test(test_dataset_other_sizes),
        cmocka_unit_test(test_dataset_missing),    cmocka_unit_test(test_fashion_mnist),
        cmocka_unit_test(test_make_batch),         cmocka_unit_test(test_shape_checked_before_allocating),
        cmocka_unit_test(test_cache_copy),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
