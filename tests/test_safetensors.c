/*
 * test_safetensors.c — safetensors in and out, batch orders, --init/--save/
 * --order and `lockstep export`, and the PyTorch round trip.
 *
 * The format tests build files byte by byte (not with our writer) so that
 * each malformation is exactly the one named; the CLI tests run
 * build/lockstep on a 256-image slice of the default data (skipped when the
 * data is not installed).  The PyTorch round trip runs
 * scripts/torch_roundtrip.py when a python3 with torch is found, else it
 * skips with the reason; its numpy-only part runs whenever numpy is found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/data.h"
#include "model/model.h"
#include "formats/order.h"
#include "base/rng.h"
#include "formats/safetensors.h"
#include "formats/golden.h"
#include "base/util.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

static char g_bin[PATH_MAX], g_root[PATH_MAX], g_dir[] = "/tmp/ls_st_testXXXXXX";

/* ---- byte-level builders ---------------------------------------------------- */

/* header JSON + data into a file image; returns its length */
static size_t build(unsigned char *out, size_t cap, const char *json, const void *data, size_t dlen, int64_t hlen_override) {
    size_t hl = strlen(json);
    uint64_t h = hlen_override >= 0 ? (uint64_t)hlen_override : hl;
    assert_true(8 + hl + dlen <= cap);
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)(h >> (8 * i));
    memcpy(out + 8, json, hl);
    if (dlen) memcpy(out + 8 + hl, data, dlen);
    return 8 + hl + dlen;
}

static void expect_bad(const char *json, size_t dlen, int64_t hlen, const char *needle) {
    unsigned char buf[4096];
    float data[64] = {0};
    size_t n = build(buf, sizeof buf, json, data, dlen, hlen);
    st_file f;
    int rc = st_parse(&f, buf, n, "bad.safetensors");
    if (rc != LS_EFORMAT) fail_msg("accepted (rc %d): %s", rc, json);
    const char *msg = ls_errmsg();
    if (!strstr(msg, "bad.safetensors") || !strstr(msg, needle)) fail_msg("message '%s' lacks '%s'", msg, needle);
}

static void test_parse_valid(void **st) {
    unsigned char buf[4096];
    float v[6] = {1.5f, -2.0f, 3.25f, 0.0f, -0.0f, 1e-40f};
    double d = 0.1;
    unsigned char data[32];
    memcpy(data, v, 24);
    memcpy(data + 24, &d, 8);
    const char *js = "{\"__metadata__\":{\"format\":\"pt\"},\"b\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[24,32]},"
                     "\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                     "\"z\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[24,24]}}   ";
    size_t n = build(buf, sizeof buf, js, data, 32, -1);
    st_file f;
    assert_int_equal(st_parse(&f, buf, n, "ok"), 0);
    assert_int_equal(f.n, 3);
    assert_string_equal(st_meta(&f, "format"), "pt");
    const st_tensor *a = st_find(&f, "a"), *b = st_find(&f, "b"), *z = st_find(&f, "z");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(z);
    assert_int_equal(a->ndim, 2);
    assert_int_equal(a->numel, 6);
    assert_int_equal(b->ndim, 0);
    assert_int_equal(b->numel, 1);
    assert_int_equal(z->numel, 0);
    float got[6];
    st_tensor_copy(a, got);
    /* exact: the bytes are copied, never converted */
    assert_memory_equal(got, v, sizeof v);
    double gd;
    st_tensor_copy(b, &gd);
    assert_true(gd == 0.1);
    st_free(&f);
}

static void test_parse_malformed(void **st) {
    const char *ok = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    expect_bad(ok, 8, 1, "header length 1");                         /* below 2 */
    expect_bad(ok, 8, (int64_t)1 << 40, "header length");          /* beyond 100 MiB */
    expect_bad(ok, 8, (int64_t)strlen(ok) + 100, "runs past the end");
    expect_bad("[1,2]", 0, -1, "does not start with '{'");
    expect_bad("{\"a\":{\"dtype\":\"F32\",", 0, -1, "not valid JSON");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 16, -1, "not valid JSON"); /* duplicate */
    expect_bad("{\"a\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4, -1, "dtype \"BF16\"");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, -1, "need 12");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, -1, "shape[0]");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, -1, "overlapping");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]}}", 20, -1, "a gap");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4, -1, "run past the 4 data bytes");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 12, -1, "trailing bytes");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, -1, "begin 8 > end 0");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8, -1, "unknown field");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, -1, "lacks data_offsets");
    expect_bad("{\"__metadata__\":{\"k\":1}}", 0, -1, "not a string");
    /* a shape whose product overflows 64 bits must not wrap into a small size */
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967295,4294967295,4294967295],\"data_offsets\":[0,8]}}", 8, -1,
               "need");
    /* too short for the length itself */
    st_file f;
    assert_int_equal(st_parse(&f, "\x02\0\0", 3, "tiny"), LS_EFORMAT);
}

static void test_writer_roundtrip(void **st) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/w.safetensors", g_dir);
    st_writer *w;
    assert_int_equal(st_writer_new(&w), 0);
    float a[5] = {1, 2, 3, 4, 5};
    double b[2] = {0.1, -0.3};
    int64_t c[3] = {7, -1, 1LL << 40};
    size_t s1 = 5, s2[2] = {1, 2}, s3 = 3;
    assert_int_equal(st_writer_add(w, "a", ST_F32, 1, &s1, a), 0);
    assert_int_equal(st_writer_add(w, "b", ST_F64, 2, s2, b), 0);
    assert_int_equal(st_writer_add(w, "c", ST_I64, 1, &s3, c), 0);
    assert_int_equal(st_writer_add(w, "a", ST_F32, 1, &s1, a), LS_EINVAL); /* duplicate */
    assert_int_equal(st_writer_meta(w, "k", "v"), 0);
    assert_int_equal(st_writer_write(w, path), 0);
    st_writer_free(w);
    st_file f;
    assert_int_equal(st_read(&f, path), 0);
    /* data 8-byte aligned in the file, as the Python package writes it */
    uint64_t hl;
    memcpy(&hl, f.owned, 8);
    assert_int_equal(hl % 8, 0);
    double gb[2];
    int64_t gc[3];
    float ga[5];
    st_tensor_copy(st_find(&f, "a"), ga);
    st_tensor_copy(st_find(&f, "b"), gb);
    st_tensor_copy(st_find(&f, "c"), gc);
    assert_memory_equal(ga, a, sizeof a);
    assert_memory_equal(gb, b, sizeof b);
    assert_memory_equal(gc, c, sizeof c);
    assert_string_equal(st_meta(&f, "k"), "v");
    st_free(&f);
}

/* model parameters: lockstep names, nn.Sequential names, and the errors */
static void test_params(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    float *p = malloc(m.n_params * sizeof *p), *q = malloc(m.n_params * sizeof *q);
    assert_non_null(p);
    assert_non_null(q);
    model_init_params(&m, p, 7);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/p.safetensors", g_dir);
    assert_int_equal(st_save_params(&m, path, p, NULL), 0);
    memset(q, 0, m.n_params * sizeof *q);
    assert_int_equal(st_load_params(&m, path, q), 0);
    assert_memory_equal(p, q, m.n_params * sizeof *p);
    /* nn.Sequential names: SmallCNN's layers 0, 3, 7, 9 */
    st_writer *w;
    assert_int_equal(st_writer_new(&w), 0);
    for (int ti = 0; ti < m.n_tensors; ti++) {
        const model_tensor *t = &m.tensors[ti];
        char nm[32];
        size_t sh[4];
        for (int d = 0; d < t->ndim; d++) sh[d] = (size_t)t->shape[d];
        snprintf(nm, sizeof nm, "%d.%s", t->layer, t->is_bias ? "bias" : "weight");
        assert_int_equal(st_writer_add(w, nm, ST_F32, t->ndim, sh, p + t->offset), 0);
    }
    char seq[PATH_MAX];
    snprintf(seq, sizeof seq, "%s/seq.safetensors", g_dir);
    assert_int_equal(st_writer_write(w, seq), 0);
    st_writer_free(w);
    memset(q, 0, m.n_params * sizeof *q);
    assert_int_equal(st_load_params(&m, seq, q), 0);
    assert_string_equal(m.tensors[2].name, "conv2.weight");
    assert_int_equal(m.tensors[2].layer, 3);
    assert_memory_equal(p, q, m.n_params * sizeof *p);

    /* wrong dtype, wrong shape, missing, unknown: each named */
    struct { const char *drop, *name; st_dtype dt; int bad_shape; const char *needle; } cases[] = {
        {"fc1.bias", "fc1.bias", ST_F64, 0, "\"fc1.bias\" is F64"},
        {"fc1.weight", "fc1.weight", ST_F32, 1, "\"fc1.weight\" has shape (1568, 64) but model smallcnn needs (64, 1568)"},
        {"fc2.bias", NULL, ST_F32, 0, "\"fc2.bias\" of model smallcnn is missing"},
        {NULL, "fc3.weight", ST_F32, 0, "\"fc3.weight\" is not a parameter"},
    };
    for (size_t c = 0; c < LS_ARRAY_LEN(cases); c++) {
        assert_int_equal(st_writer_new(&w), 0);
        for (int ti = 0; ti < m.n_tensors; ti++) {
            const model_tensor *t = &m.tensors[ti];
            if (cases[c].drop && strcmp(t->name, cases[c].drop) == 0) continue;
            size_t sh[4];
            for (int d = 0; d < t->ndim; d++) sh[d] = (size_t)t->shape[d];
            assert_int_equal(st_writer_add(w, t->name, ST_F32, t->ndim, sh, p + t->offset), 0);
        }
        if (cases[c].name) {
            size_t sh[2] = {1568, 64};
            double zeros[64] = {0};
            if (cases[c].dt == ST_F64) assert_int_equal(st_writer_add(w, cases[c].name, ST_F64, 1, (size_t[]){64}, zeros), 0);
            else if (cases[c].bad_shape) assert_int_equal(st_writer_add(w, cases[c].name, ST_F32, 2, sh, p), 0);
            else assert_int_equal(st_writer_add(w, cases[c].name, ST_F32, 1, (size_t[]){4}, p), 0);
        }
        assert_int_equal(st_writer_write(w, path), 0);
        st_writer_free(w);
        assert_int_equal(st_load_params(&m, path, q), LS_EFORMAT);
        if (!strstr(ls_errmsg(), cases[c].needle) || !strstr(ls_errmsg(), path))
            fail_msg("case %zu: message '%s' lacks '%s' or the path", c, ls_errmsg(), cases[c].needle);
    }
    /* issue 25: a NaN or infinity in the weights is refused, naming the tensor */
    const float bad[2] = {NAN, -INFINITY};
    for (int k = 0; k < 2; k++) {
        float keep = p[m.tensors[3].offset + 5];
        p[m.tensors[3].offset + 5] = bad[k];
        assert_int_equal(st_save_params(&m, path, p, NULL), 0);
        p[m.tensors[3].offset + 5] = keep;
        assert_int_equal(st_load_params(&m, path, q), LS_EFORMAT);
        char want[96];
        snprintf(want, sizeof want, "\"%s\": value 5 is", m.tensors[3].name);
        if (!strstr(ls_errmsg(), want) || !strstr(ls_errmsg(), "must be finite"))
            fail_msg("non-finite weight: message '%s' lacks '%s'", ls_errmsg(), want);
    }
    free(p);
    free(q);
}

/* optim.batch / optim.n_train: a whole number or absent.  1e300 or nan
 * made the conversion to long undefined (UBSan: outside the range of
 * 'long'), and a negative or fractional one turned run_resume's batch
 * check off or rounded it. */
static void test_optim_meta_counts(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    float *p = calloc(m.n_params, sizeof *p), *am = malloc(m.n_params * sizeof *am), *av = malloc(m.n_params * sizeof *av);
    assert_true(p && am && av);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/optim-meta.safetensors", g_dir);
    const char *batch[] = {"64", "1e300", "nan", "-5", "2.5", "inf"};
    for (size_t c = 0; c < LS_ARRAY_LEN(batch); c++) {
        st_writer *w;
        assert_int_equal(st_writer_new(&w), 0);
        for (int pass = 0; pass < 3; pass++)
            for (int ti = 0; ti < m.n_tensors; ti++) {
                const model_tensor *t = &m.tensors[ti];
                size_t sh[4];
                for (int d = 0; d < t->ndim; d++) sh[d] = (size_t)t->shape[d];
                char nm[160];
                if (pass == 0) snprintf(nm, sizeof nm, "%s", t->name);
                else snprintf(nm, sizeof nm, "optim/%s/%s", t->name, pass == 1 ? "exp_avg" : "exp_avg_sq");
                assert_int_equal(st_writer_add(w, nm, ST_F32, t->ndim, sh, p + t->offset), 0);
            }
        const char *meta[][2] = {{"optim.step", "3"},   {"optim.lr", "0.001"}, {"optim.beta1", "0.9"},
                                 {"optim.beta2", "0.999"}, {"optim.eps", "1e-08"}, {"optim.batch", batch[c]},
                                 {"optim.n_train", "256"}};
        for (size_t k = 0; k < LS_ARRAY_LEN(meta); k++) assert_int_equal(st_writer_meta(w, meta[k][0], meta[k][1]), 0);
        assert_int_equal(st_writer_write(w, path), 0);
        st_writer_free(w);
        st_optim_in o;
        int rc = st_load_optim(&m, path, am, av, &o);
        if (c == 0) {
            assert_int_equal(rc, 0);
            assert_int_equal(o.present, 1);
            assert_int_equal(o.batch, 64);
            assert_int_equal(o.n_train, 256);
        } else {
            assert_int_equal(rc, LS_EFORMAT);
            if (!strstr(ls_errmsg(), "\"optim.batch\"") || !strstr(ls_errmsg(), path))
                fail_msg("optim.batch = %s: message '%s' lacks the key or the path", batch[c], ls_errmsg());
        }
    }
    free(p);
    free(am);
    free(av);
}

static void test_order_parse(void **st) {
    int64_t *v;
    size_t r, c;
    const char *txt = "# epoch order\n3 1 0 2\n\n2,0,1,3  # second\n";
    assert_int_equal(order_parse_text(txt, strlen(txt), "o.txt", &v, &r, &c), 0);
    assert_int_equal(r, 2);
    assert_int_equal(c, 4);
    assert_int_equal(v[0], 3);
    assert_int_equal(v[7], 3);
    free(v);
    assert_int_equal(order_parse_text("1 2\n3\n", 6, "o.txt", &v, &r, &c), LS_EFORMAT);
    assert_non_null(strstr(ls_errmsg(), "o.txt:2"));
    /* what numpy.save writes for np.array([[2,0,1]], dtype=np.int64) */
    unsigned char npy[128 + 24];
    const char *hdr = "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 3), }";
    memset(npy, ' ', 128);
    memcpy(npy, "\x93NUMPY\x01\x00", 8);
    npy[8] = 118;
    npy[9] = 0;
    memcpy(npy + 10, hdr, strlen(hdr));
    npy[127] = '\n';
    int64_t vals[3] = {2, 0, 1};
    memcpy(npy + 128, vals, 24);
    assert_int_equal(npy_parse_i64(npy, sizeof npy, "o.npy", &v, &r, &c), 0);
    assert_int_equal(r, 1);
    assert_int_equal(c, 3);
    assert_int_equal(v[0], 2);
    free(v);
    assert_int_equal(npy_parse_i64(npy, sizeof npy - 8, "o.npy", &v, &r, &c), LS_EFORMAT);
    assert_non_null(strstr(ls_errmsg(), "truncated"));
    memcpy(npy + 10 + 10, "<f8", 3);
    assert_int_equal(npy_parse_i64(npy, sizeof npy, "o.npy", &v, &r, &c), LS_EFORMAT);

    /* validation against the run: count, range, duplicates, epochs */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/o.txt", g_dir);
    struct { const char *text; const char *needle; } bad[] = {
        {"0 1 2\n", "lists 3 indices but the run uses 4"},
        {"0 1 2 4\n", "index 4 is outside 0..3"},
        {"0 1 1 2\n", "appears twice"},
        {"0 1 -1 2\n", "index -1"},
    };
    batch_order o;
    for (size_t i = 0; i < LS_ARRAY_LEN(bad); i++) {
        FILE *f = fopen(path, "w");
        fputs(bad[i].text, f);
        fclose(f);
        assert_int_equal(order_load(&o, path, 4), LS_EFORMAT);
        if (!strstr(ls_errmsg(), bad[i].needle)) fail_msg("'%s' lacks '%s'", ls_errmsg(), bad[i].needle);
    }
    FILE *f = fopen(path, "w");
    fputs("3 2 1 0\n", f);
    fclose(f);
    memset(&o, 0, sizeof o);
    uint32_t perm[4];
    assert_int_equal(order_fill(&o, path, perm, 4, 42, 0), 0);
    assert_int_equal(perm[0], 3);
    assert_int_equal(order_fill(&o, path, perm, 4, 42, 1), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "needs epoch 2"));
    order_free(&o);
}

/* ---- the command line ---------------------------------------------------- */

static int have_data(void) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/train-images-idx3-ubyte.gz", DATA_DEFAULT_DIR);
    return access(p, R_OK) == 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int same_file(const char *a, const char *b) { return sh("cmp -s '%s' '%s'", a, b) == 0; }

#define SLICE "--limit-train 256 --limit-test 64 --batch 32 --threads 1"

/* --init from a file written by --save reproduces the run bit for bit; an
 * --order equal to lockstep's own shuffle changes nothing, another order
 * does; bad files exit 2 and leave the --save target untouched */
static void test_cli_roundtrip(void **st) {
    if (!have_data()) skip();
    const char *d = g_dir;
    char a[PATH_MAX], b[PATH_MAX], o[PATH_MAX];
    snprintf(a, sizeof a, "%s/a.st", d);
    snprintf(b, sizeof b, "%s/b.st", d);
    assert_int_equal(sh("%s train " SLICE " --steps 0 --save %s/init.st >/dev/null", g_bin, d), 0);
    assert_int_equal(sh("%s train " SLICE " --epochs 2 --steps 10 --save %s >/dev/null", g_bin, a), 0);
    assert_int_equal(sh("%s train " SLICE " --epochs 2 --steps 10 --init %s/init.st --save %s >/dev/null", g_bin, d, b), 0);
    if (!same_file(a, b)) fail_msg("--init of the --save'd initial weights changed the run");
    /* lockstep's own Philox order, written out: 256 images, 2 epochs */
    snprintf(o, sizeof o, "%s/order.txt", d);
    FILE *f = fopen(o, "w");
    assert_non_null(f);
    uint32_t perm[256];
    for (int e = 0; e < 2; e++) {
        rng_shuffle(perm, 256, 42, (uint32_t)e);
        for (int i = 0; i < 256; i++) fprintf(f, "%u%c", perm[i], i == 255 ? '\n' : ' ');
    }
    fclose(f);
    assert_int_equal(sh("%s train " SLICE " --epochs 2 --steps 10 --order %s --save %s >/dev/null", g_bin, o, b), 0);
    if (!same_file(a, b)) fail_msg("--order with lockstep's own shuffle changed the run");
    f = fopen(o, "w");
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < 256; i++) fprintf(f, "%d%c", i, i == 255 ? '\n' : ' ');
    fclose(f);
    assert_int_equal(sh("%s train " SLICE " --epochs 2 --steps 10 --order %s --save %s >/dev/null", g_bin, o, b), 0);
    if (same_file(a, b)) fail_msg("--order 0..255 gave the same weights as the Philox order: --order is not used");
    /* --save-optimizer: m, v and the step */
    assert_int_equal(sh("%s train " SLICE " --steps 3 --save %s --save-optimizer >/dev/null", g_bin, b), 0);
    st_file sf;
    assert_int_equal(st_read(&sf, b), 0);
    assert_string_equal(st_meta(&sf, "optim.step"), "3");
    assert_non_null(st_find(&sf, "optim/fc2.bias/exp_avg_sq"));
    assert_int_equal(sf.n, 3 * 8);
    st_free(&sf);

    /* a truncated --init: exit 2, the file named, the --save target as it was */
    assert_int_equal(sh("head -c 1000 %s/init.st > %s/trunc.st", d, d), 0);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out.txt", d);
    int rc = sh("%s train " SLICE " --steps 2 --init %s/trunc.st --save %s > %s 2>&1", g_bin, d, a, out);
    assert_int_equal(rc, 2);
    assert_int_equal(sh("grep -q 'trunc.st: tensor .* run past the .* data bytes of the file: truncated' %s", out), 0);
    assert_int_equal(sh("%s train " SLICE " --epochs 2 --steps 10 --init %s/init.st --save %s >/dev/null", g_bin, d, b), 0);
    if (!same_file(a, b)) fail_msg("a failed run touched its --save target");
    assert_int_equal(sh("ls %s | grep -q tmp", d), 1);
    /* an order for another slice */
    rc = sh("%s train --limit-train 128 --batch 32 --threads 1 --steps 1 --order %s > %s 2>&1", g_bin, o, out);
    assert_int_equal(rc, 2);
    assert_int_equal(sh("grep -q 'order.txt: each epoch lists 256 indices but the run uses 128' %s", out), 0);
}

/* a golden recorded with --init/--order replays from the same files and
 * refuses a changed one; an audit takes both */
static void test_cli_golden_audit(void **st) {
    if (!have_data()) skip();
    const char *d = g_dir;
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out.txt", d);
    assert_int_equal(sh("%s train --limit-train 64 --batch 8 --steps 0 --seed 5 --save %s/i5.st >/dev/null", g_bin, d), 0);
    FILE *f = fopen(out, "w");
    for (int i = 0; i < 64; i++) fprintf(f, "%d ", (i * 37) % 64); /* 37 is prime to 64: a permutation */
    fclose(f);
    assert_int_equal(sh("cp %s %s/o64.txt", out, d), 0);
    assert_int_equal(sh("%s golden record --out %s/gi.lsg --steps 2 --batch 8 --limit-train 64 --limit-test 16 "
                        "--engine cpu:threads=1 --init %s/i5.st --order %s/o64.txt >/dev/null", g_bin, d, d, d), 0);
    assert_int_equal(sh("%s golden check %s/gi.lsg > %s 2>&1", g_bin, d, out), 0);
    assert_int_equal(sh("grep -q '^PASS' %s", out), 0);
    /* the audit runs from the same files: its run must start where the golden's did */
    assert_int_equal(sh("%s audit --engines cpu:threads=1,reference --ref-steps 1 --limit-train 64 --limit-test 16 "
                        "--batch 8 --epochs 1 --no-eval --init %s/i5.st --order %s/o64.txt > %s 2>&1", g_bin, d, d, out), 0);
    assert_int_equal(sh("printf x >> %s/o64.txt", d), 0);
    assert_int_equal(sh("%s golden check %s/gi.lsg > %s 2>&1", g_bin, d, out), 2);
    assert_int_equal(sh("grep -q 'recorded with --order .*o64.txt of crc32' %s", out), 0);
}

/* d/a and d/b read as safetensors (the two exports a test compares) */
static void read_two(const char *d, const char *a, const char *b, st_file *x, st_file *y) {
    char p1[PATH_MAX], p2[PATH_MAX];
    snprintf(p1, sizeof p1, "%s/%s", d, a);
    snprintf(p2, sizeof p2, "%s/%s", d, b);
    assert_int_equal(st_read(x, p1), 0);
    assert_int_equal(st_read(y, p2), 0);
}

/* export from a golden equals the live replay of the same engine, bit for
 * bit, its batch included */
static void test_cli_export(void **st) {
    if (!have_data()) skip();
    const char *d = g_dir;
    assert_int_equal(sh("%s golden record --out %s/g.lsg --steps 2 --batch 8 --limit-train 64 --limit-test 16 "
                        "--engine cpu:threads=1 >/dev/null", g_bin, d), 0);
    assert_int_equal(sh("%s export %s/g.lsg --step 2 --out %s/eg.st >/dev/null", g_bin, d, d), 0);
    assert_int_equal(sh("%s export --engine cpu:threads=1 --step 2 --batch 8 --limit-train 64 --out %s/el.st >/dev/null",
                        g_bin, d), 0);
    st_file g, l;
    read_two(d, "eg.st", "el.st", &g, &l);
    size_t common = 0;
    for (size_t i = 0; i < g.n; i++) {
        const st_tensor *t = st_find(&l, g.t[i].name);
        if (!t) continue;
        common++;
        if (t->end - t->begin != g.t[i].end - g.t[i].begin || memcmp(t->data, g.t[i].data, t->end - t->begin))
            fail_msg("%s differs between the golden and the live replay", t->name);
    }
    /* input and labels (rebuilt from the golden's provenance), 10 acts,
     * loss, 10 dacts, 8 params x (grad, value, m, v) */
    assert_int_equal(common, 2 + 10 + 1 + 10 + 32);
    assert_non_null(st_find(&l, "step2/conv2.weight/grad"));
    assert_non_null(st_find(&l, "step2/input"));
    assert_int_equal(st_find(&l, "step2/labels")->dtype, ST_I64);
    st_free(&g);
    st_free(&l);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out.txt", d);
    assert_int_equal(sh("%s export %s/g.lsg --step 3 --out %s/x.st > %s 2>&1", g_bin, d, d, out), 2);
    assert_int_equal(sh("grep -q 'no tensors of step 3 (the file holds steps 1..2)' %s", out), 0);
    assert_int_equal(sh("%s export %s/el.st --step 1 --out %s/x.st > %s 2>&1", g_bin, d, d, out), 2);
    assert_int_equal(sh("grep -q 'el.st: not a lockstep golden' %s", out), 0);
    assert_int_equal(sh("test -e %s/x.st", d), 1);
}

/* export from a recording: the tensors a golden's export has, under the
 * same names and shapes, bit for bit the live replay's.  It wrote the
 * recording's own layout: `step1/all` (every parameter flat), layer
 * outputs (n, features), `step1/layer-1/labels` as F32 and the checksum
 * vectors; a step the recording holds no tensors of gave input and labels
 * only.  Now those are refused, naming the full steps. */
static void test_cli_export_recording(void **st) {
    (void)st;
    if (!have_data()) skip();
    const char *d = g_dir;
    assert_int_equal(sh("%s record --engine cpu:threads=1 --out %s/r.lsr --batch 8 --limit-train 64 --limit-test 16 "
                        "--epochs 1 --ref-steps 1 --audit-every 1000 >/dev/null", g_bin, d), 0);
    assert_int_equal(sh("%s export %s/r.lsr --step 8 --out %s/er.st >/dev/null", g_bin, d, d), 0);
    assert_int_equal(sh("%s export --engine cpu:threads=1 --step 8 --batch 8 --limit-train 64 --epochs 1 --out %s/el8.st "
                        ">/dev/null", g_bin, d), 0);
    st_file r, l;
    read_two(d, "er.st", "el8.st", &r, &l);
    /* every tensor of the live export is in the recording's, the same bits, dtype and shape */
    for (size_t i = 0; i < l.n; i++) {
        const st_tensor *t = st_find(&r, l.t[i].name);
        if (!t) fail_msg("%s: in the live export, not in the recording's", l.t[i].name);
        if (t->dtype != l.t[i].dtype || t->ndim != l.t[i].ndim ||
            memcmp(t->shape, l.t[i].shape, (size_t)t->ndim * sizeof *t->shape) ||
            t->end - t->begin != l.t[i].end - l.t[i].begin || memcmp(t->data, l.t[i].data, t->end - t->begin))
            fail_msg("%s differs between the recording's export and the live replay", t->name);
    }
    assert_int_equal(l.n, 2 + 10 + 1 + 10 + 32);
    /* and nothing of the recording's own layout */
    for (size_t i = 0; i < r.n; i++)
        if (strstr(r.t[i].name, "/all") || strstr(r.t[i].name, "layer-1") || strstr(r.t[i].name, "ck_"))
            fail_msg("%s: the recording's own layout exported", r.t[i].name);
    assert_int_equal(st_find(&r, "step8/batch_index")->dtype, ST_I64);
    assert_non_null(st_find(&r, "step8/test/logits")); /* the epoch's last step */
    st_free(&r);
    st_free(&l);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out.txt", d);
    assert_int_equal(sh("%s export %s/r.lsr --step 4 --out %s/x4.st > %s 2>&1", g_bin, d, d, out), 2);
    assert_int_equal(sh("grep -q 'step 4 is not one the recording holds tensors of: it records every tensor at its full '"
                        "'steps (1,8)' %s", out), 0);
    assert_int_equal(sh("test -e %s/x4.st", d), 1);
    /* a label or batch index that is no integer (a file its CRCs call
     * intact, edited): exported as INT64_MIN, exit 0 (a float-to-int
     * conversion out of range: undefined) */
    static const struct {
        unsigned kind;
        float v;
        const char *want;
    } edits[] = {{GOLDEN_KIND_LABELS, NAN, "step 8 labels"}, {GOLDEN_KIND_BATCH_INDEX, 1e30f, "step 8 batch_index"},
                 {GOLDEN_KIND_LABELS, -1, "step 8 labels"}};
    for (size_t k = 0; k < LS_ARRAY_LEN(edits); k++) {
        golden_file *gf;
        char src[PATH_MAX], bad[PATH_MAX];
        snprintf(src, sizeof src, "%s/r.lsr", d);
        snprintf(bad, sizeof bad, "%s/bad%zu.lsr", d, k);
        if (golden_read(&gf, src)) fail_msg("%s", ls_errmsg());
        golden_writer *w;
        assert_int_equal(golden_writer_open(&w, bad, &gf->prov), 0);
        for (size_t i = 0; i < gf->n_records; i++) {
            const golden_record *g = &gf->records[i];
            float *v = malloc((g->count ? g->count : 1) * sizeof *v);
            memcpy(v, g->values, g->count * sizeof *v);
            if (g->kind == edits[k].kind && g->step == 8) v[2] = edits[k].v;
            assert_int_equal(golden_writer_add(w, g->step, g->layer, g->kind, g->name, g->ndim, g->shape, v), 0);
            free(v);
        }
        assert_int_equal(golden_writer_close(w, 1), 0);
        golden_file_free(gf);
        assert_int_equal(sh("%s export %s --step 8 --out %s/xb.st > %s 2>&1", g_bin, bad, d, out), 2);
        if (sh("grep -q '%s: record %s: value 2 is ' %s", bad, edits[k].want, out) != 0) {
            sh("cat %s", out);
            fail_msg("edit %zu: the message does not name the file, %s and its value 2", k, edits[k].want);
        }
        assert_int_equal(sh("test -e %s/xb.st", d), 1);
    }
}

/* a python3 that can import `module`, or NULL */
static const char *find_python(const char *module) {
    static const char *cands[] = {"python3", "/usr/bin/python3"};
    for (size_t i = 0; i < LS_ARRAY_LEN(cands); i++)
        if (sh("%s -c 'import %s' >/dev/null 2>&1", cands[i], module) == 0) return cands[i];
    return NULL;
}

/* the numpy-only check of an exported file: the exact layers bitwise, the
 * loss and the logits' gradient against float64 (tolerances in the script) */
static void test_numpy_check(void **st) {
    const char *py = find_python("numpy");
    if (!py) {
        print_message("      skipped: no python3 with numpy\n");
        skip();
    }
    if (!have_data()) skip();
    assert_int_equal(sh("%s export --engine cpu:threads=1 --step 1 --batch 16 --limit-train 64 --out %s/np.st >/dev/null",
                        g_bin, g_dir), 0);
    assert_int_equal(sh("%s %s/scripts/torch_roundtrip.py --numpy-check %s/np.st", py, g_root, g_dir), 0);
}

/* PyTorch's SmallCNN through lockstep: reference vs PyTorch float64 to
 * 1e-12 normwise on every tensor of step 1 (both are float64-or-better
 * evaluations of the same mathematics: measured ~1e-15), cpu and PyTorch
 * fp32 losses within the first-order fp32 bound of the exact loss */
static void test_torch_roundtrip(void **st) {
    if (UNDER_ASAN) {
        print_message("      skipped under ASan: the normal build's suite runs it; the lockstep commands it calls "
                      "are exercised under ASan by this file's other tests, and PyTorch would add about a minute\n");
        skip();
    }
    const char *py = find_python("torch");
    if (!py) {
        print_message("      skipped: no python3 with torch (apt-get install python3-torch to run it)\n");
        skip();
    }
    if (!have_data()) skip();
    assert_int_equal(sh("%s %s/scripts/torch_roundtrip.py --lockstep %s --dir %s/torch --tol 1e-12", py, g_root, g_bin,
                        g_dir), 0);
}

static int setup(void **st) {
    ssize_t n = readlink("/proc/self/exe", g_bin, sizeof g_bin - 32);
    if (n <= 0) return -1;
    g_bin[n] = 0;
    char *slash = strrchr(g_bin, '/');
    if (!slash) return -1;
    strcpy(slash, "/../lockstep");
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", g_bin);
    if (!realpath(tmp, g_bin)) return -1;
    snprintf(g_root, sizeof g_root, "%s", g_bin);
    for (int i = 0; i < 2; i++) *strrchr(g_root, '/') = 0; /* <root>/build/lockstep -> <root> */
    if (!mkdtemp(g_dir)) return -1;
    return access(g_bin, X_OK) == 0 ? 0 : -1;
}

static int teardown(void **st) {
    sh("rm -rf '%s'", g_dir);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),   cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_writer_roundtrip), cmocka_unit_test(test_params),
        cmocka_unit_test(test_optim_meta_counts), cmocka_unit_test(test_order_parse),   cmocka_unit_test(test_cli_roundtrip),
        cmocka_unit_test(test_cli_golden_audit), cmocka_unit_test(test_cli_export),
        cmocka_unit_test(test_cli_export_recording),
        cmocka_unit_test(test_numpy_check),
        cmocka_unit_test(test_torch_roundtrip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
