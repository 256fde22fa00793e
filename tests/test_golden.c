/*
 * test_golden.c — the .lsg writer, reader and policies (src/formats/golden.c), on
 * files made in a mkdtemp directory: a round trip that is bit exact
 * (special values included); a one-ULP change reported as a regression
 * naming step, layer, tensor, index, both values and the distance; every
 * kind of damage — truncation at each sixteenth, a flipped bit at every
 * byte, wrong magic, wrong version, and damage behind a recomputed outer
 * checksum (stream, record crc, record count) — refused as LS_EFORMAT with
 * a message naming the file; the auto policy switching to bound, and why.
 *
 * The damage-behind-the-checksum cases rebuild files with a small reader
 * and writer of their own written from golden/FORMAT.md, so they also check
 * that the document and the code agree.
 *
 * Not here: running engines or the `golden` CLI (the lead's tests).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/golden.h"
#include "checks/golden_check.h"
#include "base/util.h"

static char g_dir[64];
static char g_good[128]; /* a committed sample file, written once */

/* ---- fixtures ------------------------------------------------------------ */

static float val_at(size_t rec, size_t i) {
    /* deterministic, incompressible-ish values of both signs and many exponents */
    uint32_t h = (uint32_t)(rec * 2654435761u) ^ (uint32_t)(i * 2246822519u);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return ldexpf((float)(h & 0xffffff) / 16777216.0f - 0.5f, (int)(h >> 28) - 8);
}

/* The sample: provenance, then records of several shapes and kinds; record 1
 * (step 1, layer 2 "conv2", act) is (4, 16, 3, 3). */
static int write_sample(const char *path, int n_steps) {
    golden_prov p;
    golden_prov_init(&p);
    int rc = 0;
    rc |= golden_prov_set(&p, "lockstep.version", "0.1");
    rc |= golden_prov_set(&p, "lib.onednn", "2.6.3");
    rc |= golden_prov_set(&p, "cpu.isa", "avx512_core");
    rc |= golden_prov_set(&p, "threads", "2");
    rc |= golden_prov_set(&p, "engine.spec", "cpu");
    rc |= golden_prov_set(&p, "model.spec", "input 1 28 28; conv 16 3 pad 1; relu; maxpool");
    rc |= golden_prov_set(&p, "seed", "42");
    if (rc) return rc;
    golden_writer *w;
    rc = golden_writer_open(&w, path, &p);
    golden_prov_free(&p);
    if (rc) return rc;
    float buf[4 * 16 * 3 * 3];
    size_t rec = 0;
    for (int step = 0; step < n_steps && !rc; step++) {
        size_t s4[4] = {4, 16, 3, 3}, s2[2] = {4, 10};
        for (size_t i = 0; i < 576; i++) buf[i] = val_at(rec, i);
        rc = golden_writer_add(w, (uint32_t)step, 0, 1 /* act */, "conv1", 2, s2, buf);
        rec++;
        for (size_t i = 0; i < 576; i++) buf[i] = val_at(rec, i);
        if (!rc) rc = golden_writer_add(w, (uint32_t)step, 2, 1 /* act */, "conv2", 4, s4, buf);
        rec++;
        float loss = 2.302585f + (float)step;
        if (!rc) rc = golden_writer_add(w, (uint32_t)step, -1, 7 /* loss */, "", 0, NULL, &loss);
        rec++;
    }
    /* special values survive bit for bit */
    float special[8] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, -FLT_MAX, FLT_MIN};
    size_t s1[1] = {8};
    if (!rc) rc = golden_writer_add(w, (uint32_t)n_steps, -1, GOLDEN_KIND_PREDICTIONS, NULL, 1, s1, special);
    /* an empty tensor is legal */
    size_t s0[1] = {0};
    if (!rc) rc = golden_writer_add(w, (uint32_t)n_steps, -1, 3 /* params */, "empty", 1, s0, special);
    int rc2 = golden_writer_close(w, rc == 0);
    return rc ? rc : rc2;
}

static int group_setup(void **state) {
    snprintf(g_dir, sizeof g_dir, "/tmp/ls_test_golden_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    snprintf(g_good, sizeof g_good, "%s/good.lsg", g_dir);
    return write_sample(g_good, 3) == 0 ? 0 : -1;
}

/* Remove the files (fixtures make no subdirectories), then the directory. */
static int group_teardown(void **state) {
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            remove(p);
        }
        closedir(d);
    }
    rmdir(g_dir);
    return 0;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void le32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Recompute the outer checksum (FORMAT.md: crc32 of every byte before the
 * last 4) so that only the inner checks can catch a change. */
static void fix_crc(unsigned char *b, size_t len) {
    le32(b + len - 4, (uint32_t)crc32(0L, b, (uInt)(len - 4)));
}

/* Expect golden_read to refuse `path` as LS_EFORMAT with a message that
 * names the file and contains `want` (NULL: any). */
static void expect_format_error(const char *path, const char *want) {
    golden_file *gf = (golden_file *)1;
    int rc = golden_read(&gf, path);
    if (rc != LS_EFORMAT) fail_msg("%s: rc %d (want LS_EFORMAT), message \"%s\"", path, rc, ls_errmsg());
    assert_null(gf);
    assert_int_equal(golden_verdict(rc), GOLDEN_UNUSABLE);
    if (!strstr(ls_errmsg(), path)) fail_msg("message does not name the file: \"%s\"", ls_errmsg());
    if (want && !strstr(ls_errmsg(), want)) fail_msg("message \"%s\" lacks \"%s\"", ls_errmsg(), want);
}

/* ---- round trip ---------------------------------------------------------- */

static void test_round_trip(void **state) {
    golden_file *gf;
    assert_int_equal(golden_read(&gf, g_good), 0);
    assert_int_equal(gf->n_records, 3 * 3 + 2);
    assert_string_equal(golden_provenance_get(gf, "lib.onednn"), "2.6.3");
    assert_string_equal(golden_provenance_get(gf, "model.spec"), "input 1 28 28; conv 16 3 pad 1; relu; maxpool");
    assert_null(golden_provenance_get(gf, "lib.cudnn"));
    assert_string_equal(gf->prov.key[0], "lockstep.version"); /* order kept */
    size_t rec = 0;
    for (uint32_t step = 0; step < 3; step++) {
        const golden_record *r = &gf->records[3 * step];
        assert_int_equal(r->step, step);
        assert_int_equal(r->layer, 0);
        assert_int_equal(r->kind, 1);
        assert_string_equal(r->name, "conv1");
        assert_int_equal(r->ndim, 2);
        assert_int_equal(r->shape[0], 4);
        assert_int_equal(r->shape[1], 10);
        assert_int_equal(r->count, 40);
        for (size_t i = 0; i < 40; i++) {
            float v = val_at(rec, i);
            assert_memory_equal(&r->values[i], &v, 4);
        }
        rec++;
        r = &gf->records[3 * step + 1];
        assert_ptr_equal(golden_find(gf, step, 2, 1), r);
        assert_int_equal(r->ndim, 4);
        assert_int_equal(r->count, 576);
        for (size_t i = 0; i < 576; i++) {
            float v = val_at(rec, i);
            assert_memory_equal(&r->values[i], &v, 4);
        }
        rec++;
        r = &gf->records[3 * step + 2];
        assert_int_equal(r->layer, -1);
        assert_int_equal(r->ndim, 0);
        assert_int_equal(r->count, 1);
        assert_true(r->values[0] == 2.302585f + (float)step);
        rec++;
    }
    const golden_record *sp = golden_find(gf, 3, -1, GOLDEN_KIND_PREDICTIONS);
    assert_non_null(sp);
    float special[8] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, -FLT_MAX, FLT_MIN};
    assert_memory_equal(sp->values, special, sizeof special);
    assert_int_equal(gf->records[10].count, 0);
    assert_null(golden_find(gf, 9, 0, 1));
    char lab[128];
    golden_record_label(&gf->records[1], lab, sizeof lab);
    assert_string_equal(lab, "step 0 layer 2 (conv2) act");
    golden_record_label(&gf->records[2], lab, sizeof lab);
    assert_string_equal(lab, "step 0 loss");
    golden_file_free(gf);

    /* nothing else was left in the directory (no temporary names) */
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int others = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strcmp(e->d_name, "good.lsg") != 0 && strncmp(e->d_name, "t_", 2) != 0) others++;
    closedir(d);
    assert_int_equal(others, 0);
}

static void test_deterministic_bytes(void **state) {
    char p2[160];
    snprintf(p2, sizeof p2, "%s/t_again.lsg", g_dir);
    assert_int_equal(write_sample(p2, 3), 0);
    size_t l1, l2;
    unsigned char *a = slurp(g_good, &l1), *b = slurp(p2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    free(a);
    free(b);
}

static void test_abort_leaves_nothing(void **state) {
    char p[160];
    snprintf(p, sizeof p, "%s/t_aborted.lsg", g_dir);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, p, NULL), 0);
    float v = 1;
    assert_int_equal(golden_writer_add(w, 0, 0, 1, "x", 0, NULL, &v), 0);
    assert_int_equal(golden_writer_close(w, 0), 0);
    assert_int_equal(access(p, F_OK), -1);
    char tmp[200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p, (long)getpid());
    assert_int_equal(access(tmp, F_OK), -1);

    /* a bad record fails the writer; commit then refuses and removes the file */
    assert_int_equal(golden_writer_open(&w, p, NULL), 0);
    size_t shape[5] = {1, 1, 1, 1, 1};
    assert_int_equal(golden_writer_add(w, 0, 0, 1, "x", 5, shape, &v), LS_EINVAL);
    assert_int_equal(golden_writer_add(w, 0, 0, 1, "x", 0, NULL, &v), LS_EINVAL);
    assert_int_equal(golden_writer_close(w, 1), LS_EINVAL);
    assert_int_equal(access(p, F_OK), -1);
    assert_int_equal(access(tmp, F_OK), -1);

    /* bad provenance keys are refused */
    golden_prov pr;
    golden_prov_init(&pr);
    assert_int_equal(golden_prov_set(&pr, "has space", "x"), LS_EINVAL);
    assert_int_equal(golden_prov_set(&pr, "", "x"), LS_EINVAL);
    assert_int_equal(golden_prov_set(&pr, "ok.key", "1"), 0);
    assert_int_equal(golden_prov_set(&pr, "ok.key", "2"), 0); /* replaced */
    assert_int_equal(pr.n, 1);
    assert_string_equal(golden_prov_get(&pr, "ok.key"), "2");
    golden_prov_free(&pr);
    /* a directory that does not exist: LS_EIO */
    assert_int_equal(golden_writer_open(&w, "/nonexistent-dir/x.lsg", NULL), LS_EIO);
}

/* ---- regressions ---------------------------------------------------------- */

static void test_one_ulp_regression(void **state) {
    golden_file *gf;
    assert_int_equal(golden_read(&gf, g_good), 0);
    const golden_record *r = golden_find(gf, 1, 2, 1);
    assert_non_null(r);
    float *cur = malloc(r->count * sizeof(float));
    memcpy(cur, r->values, r->count * sizeof(float));
    golden_policy exact, ulp1, ulp0, bound;
    assert_int_equal(golden_policy_parse(&exact, "exact"), 0);
    assert_int_equal(golden_policy_parse(&ulp1, "ulp:1"), 0);
    assert_int_equal(golden_policy_parse(&ulp0, "ulp:0"), 0);
    assert_int_equal(golden_policy_parse(&bound, "bound"), 0);
    golden_result res;

    /* unchanged: passes every policy */
    assert_int_equal(golden_compare_record(&res, r, cur, r->count, &exact, NULL), 0);
    assert_true(res.pass);
    assert_int_equal(res.stats.n_equal, r->count);

    /* one value one ULP up */
    cur[123] = nextafterf(cur[123], INFINITY);
    assert_int_equal(golden_compare_record(&res, r, cur, r->count, &exact, NULL), 0);
    assert_false(res.pass);
    assert_int_equal(res.n_fail, 1);
    assert_int_equal(res.n_shown, 1);
    assert_int_equal(res.shown[0].index, 123);
    assert_true(res.shown[0].ulp == 1);
    assert_memory_equal(&res.shown[0].golden, &r->values[123], 4);
    assert_memory_equal(&res.shown[0].current, &cur[123], 4);
    assert_true(res.stats.max_ulp == 1);
    lsbuf b;
    lsbuf_init(&b);
    golden_mismatch_str(&b, r, &res.shown[0]);
    char want[200];
    uint32_t gb, cb;
    /* flat index 123 of (4, 16, 3, 3): 0*144 + 13*9 + 2*3 + 0 */
    memcpy(&gb, &r->values[123], 4);
    memcpy(&cb, &cur[123], 4);
    snprintf(want, sizeof want, "step 1 layer 2 (conv2) act [n=0 c=13 h=2 w=0]: golden %.9g (0x%08x), new %.9g (0x%08x), 1 ULP",
             (double)r->values[123], (unsigned)gb, (double)cur[123], (unsigned)cb);
    assert_string_equal(b.s, want);
    lsbuf_free(&b);
    assert_int_equal(golden_verdict(LS_EMISMATCH), GOLDEN_REGRESSION);
    assert_int_equal(golden_verdict(0), GOLDEN_PASS);

    /* ulp:1 accepts it, ulp:0 does not */
    golden_compare_record(&res, r, cur, r->count, &ulp1, NULL);
    assert_true(res.pass);
    golden_compare_record(&res, r, cur, r->count, &ulp0, NULL);
    assert_false(res.pass);

    /* bound: tolerance 2*bound[i]; a bound of half the difference just passes
     * (|d| <= 2 * |d|/2 holds exactly: halving is exact), a quarter fails */
    double *bd = calloc(r->count, sizeof(double));
    double d = fabs((double)cur[123] - r->values[123]);
    bd[123] = d / 2;
    golden_compare_record(&res, r, cur, r->count, &bound, bd);
    assert_true(res.pass);
    bd[123] = d / 4;
    golden_compare_record(&res, r, cur, r->count, &bound, bd);
    assert_false(res.pass);
    assert_true(res.shown[0].bound == d / 2);
    /* bound without a bound array falls back to ULPs (bound = bound:0) */
    golden_compare_record(&res, r, cur, r->count, &bound, NULL);
    assert_false(res.pass);

    /* many changes: only the first GOLDEN_MAX_SHOWN are kept, in order */
    for (size_t i = 0; i < 20; i++) cur[200 + i] = -cur[200 + i] + 1.0f;
    golden_compare_record(&res, r, cur, r->count, &exact, NULL);
    assert_int_equal(res.n_fail, 21);
    assert_int_equal(res.n_shown, GOLDEN_MAX_SHOWN);
    assert_int_equal(res.shown[0].index, 123);
    assert_int_equal(res.shown[1].index, 200);

    /* a NaN where the golden has a number: fails every tolerance */
    memcpy(cur, r->values, r->count * sizeof(float));
    cur[7] = NAN;
    golden_policy big;
    assert_int_equal(golden_policy_parse(&big, "ulp:4000000000"), 0);
    golden_compare_record(&res, r, cur, r->count, &big, NULL);
    assert_false(res.pass);
    assert_true(isinf(res.shown[0].ulp));

    /* wrong length and unresolved auto are errors, not verdicts */
    golden_policy a;
    golden_policy_parse(&a, "auto");
    assert_int_equal(golden_compare_record(&res, r, cur, r->count - 1, &exact, NULL), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "step 1 layer 2 (conv2) act"));
    assert_int_equal(golden_compare_record(&res, r, cur, r->count, &a, NULL), LS_EINVAL);
    free(bd);
    free(cur);
    golden_file_free(gf);
}

/* A mismatch across zero (a zero, or opposite signs) has an ordinal ULP
 * distance that counts every float down to 0 (0 vs -2.18e-11 read "767557632
 * ULP" in `golden check --engine cpu:algo=winograd`): the line says |diff|
 * and "across zero" instead, unless the policy judges by ULPs; +0 vs -0
 * says so; under bound a tolerance of 0 is said, not dropped. */
static void test_mismatch_across_zero(void **state) {
    (void)state;
    golden_file *gf;
    assert_int_equal(golden_read(&gf, g_good), 0);
    const golden_record *r0 = golden_find(gf, 1, 2, 1);
    assert_non_null(r0);
    golden_record rec = *r0, *r = &rec; /* the record with golden values set below */
    float *gv = malloc(r->count * sizeof(float)), *cur = malloc(r->count * sizeof(float));
    assert_non_null(gv);
    assert_non_null(cur);
    memcpy(gv, r0->values, r->count * sizeof(float));
    rec.values = gv;
    gv[5] = 0.0f;
    gv[6] = 0.0f;
    gv[9] = 0.25f;
    memcpy(cur, r->values, r->count * sizeof(float));
    cur[5] = -2.18278728e-11f; /* 0 vs a tiny value */
    cur[6] = -0.0f;            /* +0 vs -0 */
    cur[9] = -0.25f;           /* a sign change */
    golden_policy exact, ulp, bound;
    assert_int_equal(golden_policy_parse(&exact, "exact"), 0);
    assert_int_equal(golden_policy_parse(&ulp, "ulp:4"), 0);
    assert_int_equal(golden_policy_parse(&bound, "bound"), 0);
    golden_result res;
    assert_int_equal(golden_compare_record(&res, r, cur, r->count, &exact, NULL), 0);
    assert_int_equal(res.n_shown, 3);
    const char *want[3] = {"golden 0 (0x00000000), new -2.18278728e-11 (0xadc00000), |diff| 2.18e-11, across zero "
                           "(no ULP count)",
                           "golden 0 (0x00000000), new -0 (0x80000000), +0 vs -0",
                           "golden 0.25 (0x3e800000), new -0.25 (0xbe800000), |diff| 0.5, across zero (no ULP count)"};
    for (int i = 0; i < 3; i++) {
        lsbuf b;
        lsbuf_init(&b);
        golden_mismatch_str(&b, r, &res.shown[i]);
        if (!strstr(b.s, want[i])) print_message("%s\n", b.s);
        assert_non_null(strstr(b.s, want[i]));
        assert_null(strstr(b.s, " ULP,")); /* no ordinal count */
        lsbuf_free(&b);
    }
    /* ulp:N judges by the ordinal distance: the count stays */
    assert_int_equal(golden_compare_record(&res, r, cur, r->count, &ulp, NULL), 0);
    assert_int_equal(res.n_shown, 2); /* +0 vs -0 is 0 ULP apart */
    lsbuf b;
    lsbuf_init(&b);
    golden_mismatch_str(&b, r, &res.shown[0]);
    assert_non_null(strstr(b.s, "(0xadc00000), 767557632 ULP"));
    lsbuf_free(&b);
    /* bound, tolerance 0 at index 5: said */
    double *bd = calloc(r->count, sizeof(double));
    assert_non_null(bd);
    assert_int_equal(golden_compare_record(&res, r, cur, r->count, &bound, bd), 0);
    lsbuf_init(&b);
    golden_mismatch_str(&b, r, &res.shown[0]);
    assert_non_null(strstr(b.s, "across zero (no ULP count) (|diff| 2.18e-11 > tolerance 0: fp32 gives this value "
                                "exactly)"));
    lsbuf_free(&b);
    free(bd);
    free(cur);
    free(gv);
    golden_file_free(gf);
}

/* ---- damage ----------------------------------------------------------------- */

static void test_missing(void **state) {
    char p[160];
    snprintf(p, sizeof p, "%s/t_does_not_exist.lsg", g_dir);
    golden_file *gf;
    int rc = golden_read(&gf, p);
    assert_int_equal(rc, LS_EIO);
    assert_int_equal(golden_verdict(rc), GOLDEN_UNUSABLE);
    assert_non_null(strstr(ls_errmsg(), p));
    /* a directory is not a golden file either */
    assert_int_equal(golden_read(&gf, g_dir), LS_EIO);
    assert_non_null(strstr(ls_errmsg(), "not a regular file"));
}

static void test_truncation(void **state) {
    size_t len;
    unsigned char *b = slurp(g_good, &len);
    assert_non_null(b);
    char p[160];
    snprintf(p, sizeof p, "%s/t_trunc.lsg", g_dir);
    for (int k = 0; k < 16; k++) {
        size_t cut = len * (size_t)k / 16;
        spit(p, b, cut);
        expect_format_error(p, "truncated");
    }
    spit(p, b, len - 1);
    expect_format_error(p, "truncated");
    /* and appended bytes */
    unsigned char *b2 = malloc(len + 3);
    memcpy(b2, b, len);
    memset(b2 + len, 0, 3);
    spit(p, b2, len + 3);
    expect_format_error(p, "unexpected bytes");
    free(b2);
    free(b);
}

static void test_flipped_bytes(void **state) {
    size_t len;
    unsigned char *b = slurp(g_good, &len);
    char p[160];
    snprintf(p, sizeof p, "%s/t_flip.lsg", g_dir);
    uint32_t prov_bytes = rd32(b + 28);
    size_t stream = 32 + prov_bytes, footer = len - 28;
    struct {
        size_t at;
        const char *want;
    } cases[] = {
        {0, "bad magic"},
        {8, "format version"},
        {12, "flags"},
        {18, "truncated"},                 /* the file-size field: +1 MiB */
        {40, "checksum"},                  /* provenance */
        {stream + 1, "checksum"},          /* zlib header */
        {stream + 100, "checksum"},        /* inside the deflate data */
        {(stream + footer) / 2, "checksum"},
        {footer - 2, "checksum"},          /* zlib's adler32 */
        {footer, "checksum"},              /* footer magic */
        {footer + 9, "checksum"},          /* record count */
        {footer + 17, "checksum"},         /* raw byte count */
        {len - 1, "checksum"},             /* the checksum itself */
    };
    for (size_t i = 0; i < LS_ARRAY_LEN(cases); i++) {
        b[cases[i].at] ^= 0x10;
        spit(p, b, len);
        expect_format_error(p, cases[i].want);
        b[cases[i].at] ^= 0x10;
    }
    free(b);
}

/* Every byte of a small file, one bit flipped at a time: never valid. */
static void test_flip_every_byte(void **state) {
    char small[160], p[160];
    snprintf(small, sizeof small, "%s/t_small.lsg", g_dir);
    snprintf(p, sizeof p, "%s/t_flip_all.lsg", g_dir);
    assert_int_equal(write_sample(small, 1), 0);
    size_t len;
    unsigned char *b = slurp(small, &len);
    for (size_t i = 0; i < len; i++) {
        unsigned char bit = (unsigned char)(1u << (i % 8));
        b[i] ^= bit;
        spit(p, b, len);
        golden_file *gf;
        int rc = golden_read(&gf, p);
        if (rc != LS_EFORMAT) fail_msg("byte %zu flipped: rc %d", i, rc);
        b[i] ^= bit;
    }
    free(b);
}

static void test_wrong_magic_and_version(void **state) {
    size_t len;
    unsigned char *b = slurp(g_good, &len);
    char p[160];
    snprintf(p, sizeof p, "%s/t_magic.lsg", g_dir);
    unsigned char save[8];
    memcpy(save, b, 8);
    memcpy(b, "PK\x03\x04\0\0\0\0", 8);
    fix_crc(b, len);
    spit(p, b, len);
    expect_format_error(p, "not a lockstep golden file");
    memcpy(b, save, 8);
    /* version 2 with a correct checksum: only the version is wrong */
    le32(b + 8, 2);
    fix_crc(b, len);
    spit(p, b, len);
    expect_format_error(p, "format version 2");
    /* a text file and an empty file */
    spit(p, (const unsigned char *)"hello\n", 6);
    expect_format_error(p, "bad magic");
    spit(p, b, 0);
    expect_format_error(p, "truncated");
    free(b);
}

/* ---- damage behind a valid outer checksum ------------------------------------ */

/* Split a good file into its parts (FORMAT.md), let `mutate` change the
 * inflated records or the footer, and rebuild a file whose outer checksum
 * and length are right again.  recompress = 0 keeps the original stream. */
typedef void (*mutate_fn)(unsigned char *raw, size_t raw_len, unsigned char *footer);

static void rebuild(const char *out, mutate_fn mutate, int recompress) {
    size_t len;
    unsigned char *b = slurp(g_good, &len);
    uint32_t prov_bytes = rd32(b + 28);
    size_t stream = 32 + prov_bytes, zlen = len - 28 - stream;
    unsigned char footer[28];
    memcpy(footer, b + len - 28, 28);
    uint64_t raw_len = 0;
    for (int i = 0; i < 8; i++) raw_len |= (uint64_t)footer[16 + i] << (8 * i);
    unsigned char *raw = malloc(raw_len);
    uLongf rl = (uLongf)raw_len;
    assert_int_equal(uncompress(raw, &rl, b + stream, (uLong)zlen), Z_OK);
    assert_int_equal(rl, raw_len);
    mutate(raw, raw_len, footer);
    uLongf zl = compressBound((uLong)raw_len);
    unsigned char *z = malloc(zl);
    if (recompress) {
        assert_int_equal(compress(z, &zl, raw, (uLong)raw_len), Z_OK);
    } else {
        memcpy(z, b + stream, zlen);
        zl = zlen;
    }
    size_t nlen = stream + zl + 28;
    unsigned char *n = malloc(nlen);
    memcpy(n, b, stream);
    memcpy(n + stream, z, zl);
    memcpy(n + stream + zl, footer, 28);
    le64(n + 16, nlen);
    fix_crc(n, nlen);
    spit(out, n, nlen);
    free(n);
    free(z);
    free(raw);
    free(b);
}

static void mut_none(unsigned char *raw, size_t len, unsigned char *footer) {}
static void mut_value(unsigned char *raw, size_t len, unsigned char *footer) {
    /* first record: 32-byte header, "conv1" (5 bytes), then values */
    raw[32 + 5 + 10] ^= 0x01;
}
static void mut_count(unsigned char *raw, size_t len, unsigned char *footer) { footer[8] += 1; }
static void mut_shape(unsigned char *raw, size_t len, unsigned char *footer) {
    le32(raw + 12, rd32(raw + 12) + 1); /* first record: shape[0] 4 -> 5 */
}
static void mut_ndim(unsigned char *raw, size_t len, unsigned char *footer) { raw[10] = 5; }

static void test_damage_behind_checksum(void **state) {
    char p[160];
    snprintf(p, sizeof p, "%s/t_rebuilt.lsg", g_dir);
    /* control: the rebuilder itself makes valid files */
    rebuild(p, mut_none, 1);
    golden_file *gf;
    assert_int_equal(golden_read(&gf, p), 0);
    golden_file_free(gf);

    rebuild(p, mut_value, 1);
    expect_format_error(p, "record 0 (step 0 layer 0 (conv1) act): value crc32");
    rebuild(p, mut_count, 1);
    expect_format_error(p, "records, the footer says");
    rebuild(p, mut_shape, 1);
    expect_format_error(p, "record 0");
    rebuild(p, mut_ndim, 1);
    expect_format_error(p, "bad header");

    /* a flipped byte inside the deflate data, outer checksum recomputed:
     * zlib's own checks (codes, distances, adler32) catch it */
    size_t len;
    unsigned char *b = slurp(g_good, &len);
    size_t stream = 32 + rd32(b + 28);
    size_t pos[4] = {stream + 2, stream + 50, (stream + len - 28) / 2, len - 28 - 3};
    for (int i = 0; i < 4; i++) {
        b[pos[i]] ^= 0x04;
        fix_crc(b, len);
        spit(p, b, len);
        expect_format_error(p, "record");
        b[pos[i]] ^= 0x04;
    }
    free(b);
}

/* ---- policies ----------------------------------------------------------------- */

static void test_policy_parse(void **state) {
    golden_policy p;
    char buf[32];
    const char *good[] = {"auto", "exact", "ulp:0", "ulp:4", "bound", "bound:2", "ulp:4294967295"};
    for (size_t i = 0; i < LS_ARRAY_LEN(good); i++) {
        assert_int_equal(golden_policy_parse(&p, good[i]), 0);
        assert_string_equal(golden_policy_str(&p, buf, sizeof buf), good[i]);
    }
    assert_int_equal(golden_policy_parse(&p, "ulp:7"), 0);
    assert_int_equal(p.kind, GOLDEN_POLICY_ULP);
    assert_int_equal(p.ulp, 7);
    const char *bad[] = {"", "ulp", "ulp:", "ulp:-1", "ulp:x", "ulp:4294967296", "fuzzy", "EXACT", "bound:", "ulp:1 "};
    for (size_t i = 0; i < LS_ARRAY_LEN(bad); i++) {
        assert_int_equal(golden_policy_parse(&p, bad[i]), LS_EINVAL);
        assert_non_null(strstr(ls_errmsg(), "auto, exact, ulp:N, bound"));
    }
}

static void test_auto_policy(void **state) {
    golden_file *gf;
    assert_int_equal(golden_read(&gf, g_good), 0);
    golden_policy asked, used;
    golden_policy_parse(&asked, "auto");
    char why[256];

    /* the same environment (non-bit keys may differ): exact */
    golden_prov cur;
    golden_prov_init(&cur);
    golden_prov_set(&cur, "lib.onednn", "2.6.3");
    golden_prov_set(&cur, "cpu.isa", "avx512_core");
    golden_prov_set(&cur, "threads", "2");
    golden_prov_set(&cur, "engine.spec", "cpu");
    golden_prov_set(&cur, "lockstep.version", "0.2");
    golden_policy_resolve(&used, &asked, &gf->prov, &cur, why, sizeof why);
    assert_int_equal(used.kind, GOLDEN_POLICY_EXACT);
    assert_non_null(strstr(why, "auto → exact"));

    /* a library version differs: bound, and the reason says which */
    golden_prov_set(&cur, "lib.onednn", "3.0");
    golden_policy_resolve(&used, &asked, &gf->prov, &cur, why, sizeof why);
    assert_int_equal(used.kind, GOLDEN_POLICY_BOUND);
    assert_string_equal(why, "auto → bound: oneDNN version differs: 2.6.3 vs 3.0");

    /* several differences, one key missing on each side */
    golden_prov_set(&cur, "threads", "1");
    golden_prov_set(&cur, "lib.cudnn", "9.1");
    golden_prov cur2;
    golden_prov_init(&cur2);
    for (size_t i = 0; i < cur.n; i++)
        if (strcmp(cur.key[i], "cpu.isa") != 0) golden_prov_set(&cur2, cur.key[i], cur.val[i]);
    golden_policy_resolve(&used, &asked, &gf->prov, &cur2, why, sizeof why);
    assert_int_equal(used.kind, GOLDEN_POLICY_BOUND);
    assert_string_equal(why, "auto → bound: oneDNN version differs: 2.6.3 vs 3.0; ISA differs: avx512_core vs "
                             "(absent); threads differs: 2 vs 1; cuDNN version differs: (absent) vs 9.1");

    /* an explicit policy is used as asked, whatever the provenance */
    golden_policy ex;
    golden_policy_parse(&ex, "ulp:3");
    golden_policy_resolve(&used, &ex, &gf->prov, &cur2, why, sizeof why);
    assert_int_equal(used.kind, GOLDEN_POLICY_ULP);
    assert_int_equal(used.ulp, 3);
    assert_string_equal(why, "policy ulp:3 (asked)");

    /* a short reason buffer is truncated, never overrun */
    char tiny[8];
    golden_policy_resolve(&used, &asked, &gf->prov, &cur2, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 7);
    golden_prov_free(&cur);
    golden_prov_free(&cur2);
    golden_file_free(gf);
}

/* Two long values that differ far in (engine.algorithms of a cpu golden
 * replayed with algo=winograd, ~300 bytes each, differing at conv2) were
 * cut at 60 bytes from their starts: the clause showed the same prefix
 * twice.  It shows each from a little before the first difference. */
static void test_auto_policy_long_values(void **state) {
    (void)state;
    const char *was = "conv1.fwd=jit:avx512_core/convolution_direct;conv1.bwd_weights=jit:avx512_core/"
                      "convolution_direct;conv2.fwd=jit:avx512_core/convolution_direct";
    const char *now = "conv1.fwd=jit:avx512_core/convolution_direct;conv1.bwd_weights=jit:avx512_core/"
                      "convolution_direct;conv2.fwd=jit_wino_4x3:avx512_core/convolution_winograd";
    golden_prov a, b;
    golden_prov_init(&a);
    golden_prov_init(&b);
    assert_int_equal(golden_prov_set(&a, "engine.algorithms", was), 0);
    assert_int_equal(golden_prov_set(&b, "engine.algorithms", now), 0);
    golden_policy asked, used;
    golden_policy_parse(&asked, "auto");
    char why[512];
    golden_policy_resolve(&used, &asked, &a, &b, why, sizeof why);
    assert_int_equal(used.kind, GOLDEN_POLICY_BOUND);
    const char *w = strstr(why, "algorithms differs: ");
    assert_non_null(w);
    const char *vs = strstr(w, " vs ");
    assert_non_null(vs);
    /* each side shows where they differ */
    if (!strstr(w, "conv2.fwd=jit:avx512_core") || !strstr(vs, "conv2.fwd=jit_wino_4x3")) fail_msg("%s", why);
    assert_string_equal(why, "auto → bound: algorithms differs: ...direct;conv2.fwd=jit:avx512_core/"
                             "convolution_direct vs ...direct;conv2.fwd=jit_wino_4x3:avx512_core/"
                             "convolution_winogr...");
    golden_prov_free(&a);
    golden_prov_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_deterministic_bytes),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_one_ulp_regression),
        cmocka_unit_test(test_mismatch_across_zero),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_flip_every_byte),
        cmocka_unit_test(test_wrong_magic_and_version),
        cmocka_unit_test(test_damage_behind_checksum),
        cmocka_unit_test(test_policy_parse),
        cmocka_unit_test(test_auto_policy),
        cmocka_unit_test(test_auto_policy_long_values),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
