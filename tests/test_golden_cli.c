/*
 * test_golden_cli.c — `lockstep golden record` and `golden check`
 * (src/commands/golden_cli.c) end to end, on a slice of real FashionMNIST, through
 * the same job functions main() calls, with their output captured:
 *   - round trips record -> check pass for the cpu engine and the fp32cr
 *     reference, over two steps (so the replay of step 2 starts from the
 *     golden's recorded state);
 *   - one value moved by one ULP (a copy re-written with the writer API, so
 *     every checksum is valid) is a regression naming step, layer, tensor
 *     and index;
 *   - truncation at each sixteenth, flipped bytes, wrong magic, wrong
 *     version, a missing file: unusable (exit 2), never a pass;
 *   - an error that cuts the replay short (a record missing at step 2) is
 *     unusable, and the mismatch found at step 1 is still printed;
 *   - a provenance mismatch (lib.onednn) switches auto to bound and says so;
 *   - data whose crc32 differs from the recorded one is unusable;
 *   - the bound policy's tolerances hold across engines: a cpu golden
 *     replayed by the fp32cr reference passes under bound (each side is a
 *     valid fp32 evaluation, so a failure would mean a wrong bound);
 *   - the committed goldens pass: ref-fp32cr under exact, cpu under auto.
 * No numeric tolerance is chosen here: the policies carry them (golden.c,
 * golden_cli.c), and every comparison in this file is an exit status or a
 * message.
 *
 * Not here: the file format's own damage cases (test_golden.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/golden.h"
#include "commands/golden_cli.h"
#include "base/util.h"

static char g_dir[64];
static char g_cpu[128], g_ref[128]; /* two-step goldens recorded by the fixture */
static char g_committed[2][600];     /* golden/cpu.lsg, golden/ref-fp32cr.lsg */
static int g_have_data;

/* ---- helpers ------------------------------------------------------------------ */

/* Run the check job with output captured into *text (caller frees);
 * verbose: with the per-tensor table. */
static int run_check_v(const char *path, const char *engine, const char *policy, int verbose, char **text) {
    golden_check_cfg c;
    golden_check_cfg_default(&c);
    c.verbose = verbose;
    c.path = path;
    c.engine = engine;
    c.policy = policy;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    c.out = c.err = f;
    int rc = golden_check_run(&c);
    fclose(f);
    if (text) *text = buf;
    else free(buf);
    return rc;
}

static int run_check(const char *path, const char *engine, const char *policy, char **text) {
    return run_check_v(path, engine, policy, 0, text);
}

static int record(const char *path, const char *engine, long steps, size_t batch, size_t limit_test) {
    golden_record_cfg c;
    golden_record_cfg_default(&c);
    c.run.engine = engine;
    c.run.batch = batch;
    c.run.limit_train = 64;
    c.run.limit_test = limit_test;
    c.steps = steps;
    c.out_path = path;
    c.out = NULL;
    return golden_record_run(&c);
}

/* Re-write golden `src` to `dst` through the writer API: provenance key
 * `key` set to `val` (when key is not NULL), and value `index` of the first
 * record matching (step, layer, kind) moved one ULP up (when step > 0). */
static void (*g_edit)(float *v, size_t n); /* when set, rewrite() applies it to the record instead */

static void rewrite(const char *src, const char *dst, const char *key, const char *val, uint32_t step, int32_t layer,
                    unsigned kind, size_t index) {
    golden_file *gf;
    assert_int_equal(golden_read(&gf, src), 0);
    golden_prov p;
    golden_prov_init(&p);
    for (size_t i = 0; i < gf->prov.n; i++) assert_int_equal(golden_prov_set(&p, gf->prov.key[i], gf->prov.val[i]), 0);
    if (key) assert_int_equal(golden_prov_set(&p, key, val), 0);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, dst, &p), 0);
    int done = 0;
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *r = &gf->records[i];
        float *v = malloc((r->count ? r->count : 1) * sizeof *v);
        assert_non_null(v);
        memcpy(v, r->values, r->count * sizeof *v);
        if (step && !done && r->step == step && r->layer == layer && r->kind == kind) {
            assert_true(index < r->count);
            if (g_edit) g_edit(v, r->count);
            else v[index] = nextafterf(v[index], INFINITY);
            done = 1;
        }
        assert_int_equal(golden_writer_add(w, r->step, r->layer, r->kind, r->name, r->ndim, r->shape, v), 0);
        free(v);
    }
    assert_int_equal(golden_writer_close(w, 1), 0);
    assert_true(done || !step);
    golden_prov_free(&p);
    golden_file_free(gf);
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* golden/NAME from the working directory (make test runs from the
 * checkout), else relative to this executable (build/tests/). */
static void committed_path(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "golden/%s", name);
    if (access(out, R_OK) == 0) return;
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *s = strrchr(exe, '/');
        if (s) *s = 0;
        snprintf(out, cap, "%s/../../golden/%s", exe, name);
    }
}

/* ---- fixtures ----------------------------------------------------------------- */

static int setup(void **state) {
    (void)state;
    g_have_data = access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", R_OK) == 0 ||
                  access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte", R_OK) == 0;
    snprintf(g_dir, sizeof g_dir, "/tmp/lsg_cli_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    snprintf(g_cpu, sizeof g_cpu, "%s/cpu.lsg", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref.lsg", g_dir);
    committed_path(g_committed[0], sizeof g_committed[0], "cpu.lsg");
    committed_path(g_committed[1], sizeof g_committed[1], "ref-fp32cr.lsg");
    if (!g_have_data) return 0;
    /* two steps of batch 2 and 16 test images: small, and step 2 starts from
     * the recorded state of step 1 */
    if (record(g_cpu, "cpu:threads=1", 2, 2, 16)) {
        fprintf(stderr, "record cpu: %s\n", ls_errmsg());
        return -1;
    }
    if (record(g_ref, "reference:mode=fp32cr:threads=1", 2, 2, 16)) {
        fprintf(stderr, "record reference: %s\n", ls_errmsg());
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

#define NEED_DATA()                                                                          \
    do {                                                                                     \
        if (!g_have_data) {                                                                  \
            print_message("FashionMNIST not installed (dataset-fashion-mnist): skipped\n");  \
            skip();                                                                          \
        }                                                                                    \
    } while (0)

/* ---- tests -------------------------------------------------------------------- */

static void test_roundtrip_cpu(void **state) {
    (void)state;
    NEED_DATA();
    char *out;
    assert_int_equal(run_check_v(g_cpu, NULL, "auto", 1, &out), GOLDEN_PASS);
    /* the policy and the engine said once ("policy exact — auto → exact: ...", "engine cpu (recorded with cpu)") */
    assert_non_null(strstr(out, "\npolicy exact (auto: library versions, ISA, threads, algorithms and engine spec all "
                                "match)\n"));
    assert_non_null(strstr(out, "(as recorded)"));
    assert_null(strstr(out, "recorded with"));
    assert_null(strstr(out, "→"));
    assert_non_null(strstr(out, "PASS"));
    /* an exact replay judges no sharper tier: no record is SUSPECT (the
     * summary rows past the first 64 read an uninitialized flag and marked
     * records '?' with ratios -1) */
    if (strstr(out, "SUSPECT")) print_message("%s\n", out);
    assert_null(strstr(out, "SUSPECT"));
    /* two steps: both were replayed and compared */
    assert_non_null(strstr(out, "step 2 layer 9 (fc2.bias) adam_v"));
    free(out);
}

static void test_roundtrip_reference(void **state) {
    (void)state;
    NEED_DATA();
    char *out;
    assert_int_equal(run_check(g_ref, NULL, "exact", &out), GOLDEN_PASS);
    assert_non_null(strstr(out, "\npolicy exact (asked)\n"));
    assert_null(strstr(out, "policy exact — policy exact"));
    free(out);
}

static void test_one_ulp_is_regression(void **state) {
    (void)state;
    NEED_DATA();
    char bad[160], *out;
    /* step 1, layer 3 (conv2), act, index 5: (n, c, h, w) = (0, 0, 0, 5) */
    snprintf(bad, sizeof bad, "%s/ulp_act.lsg", g_dir);
    rewrite(g_cpu, bad, NULL, NULL, 1, 3, 1 /* act */, 5);
    assert_int_equal(run_check(bad, NULL, "exact", &out), GOLDEN_REGRESSION);
    assert_non_null(strstr(out, "step 1 layer 3 (conv2) act [n=0 c=0 h=0 w=5]"));
    assert_non_null(strstr(out, "1 ULP"));
    assert_non_null(strstr(out, "REGRESSION"));
    free(out);
    /* a value of step 2's update: step 2 is compared too; fc1.weight is
     * (out, in) with in > 123 */
    snprintf(bad, sizeof bad, "%s/ulp_params.lsg", g_dir);
    rewrite(g_cpu, bad, NULL, NULL, 2, 7, 3 /* params */, 123);
    assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_REGRESSION);
    assert_non_null(strstr(out, "step 2 layer 7 (fc1.weight) params [out=0 in=123]"));
    free(out);
    /* ulp:1 lets exactly that one ULP through */
    assert_int_equal(run_check(bad, NULL, "ulp:1", &out), GOLDEN_PASS);
    free(out);
}

/* The last line of text (without its newline), in a static buffer. */
static const char *last_line(const char *text) {
    static char line[512];
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n') n--;
    size_t b = n;
    while (b && text[b - 1] != '\n') b--;
    snprintf(line, sizeof line, "%.*s", (int)(n - b), text + b);
    return line;
}

/* The first screen is the verdict: `golden check` printed its 55-row
 * table before PASS/REGRESSION.  Now the verdict follows the three lines
 * that say what was checked; the first mismatches follow it; the table
 * only with --verbose; and the verdict is the last line too whenever
 * anything follows it (CI logs read the tail). */
static void test_verdict_first(void **state) {
    (void)state;
    NEED_DATA();
    char *out, bad[160];
    assert_int_equal(run_check(g_cpu, NULL, "auto", &out), GOLDEN_PASS);
    const char *v = strstr(out, "\n\nPASS: ");
    if (!v || strstr(out, "per-tensor summary") || strncmp(last_line(out), "PASS: ", 6) != 0 ||
        strchr(v + 2, '\n') != out + strlen(out) - 1)
        fail_msg("want the header, then PASS as the last line, no table:\n%s", out);
    free(out);
    assert_int_equal(run_check_v(g_cpu, NULL, "auto", 1, &out), GOLDEN_PASS);
    const char *t = strstr(out, "per-tensor summary");
    v = strstr(out, "PASS: ");
    if (!t || !v || v > t || strncmp(last_line(out), "PASS: ", 6) != 0)
        fail_msg("--verbose: want PASS, the table, PASS again last:\n%s", out);
    free(out);
    snprintf(bad, sizeof bad, "%s/ulp_first.lsg", g_dir);
    rewrite(g_cpu, bad, NULL, NULL, 1, 3, 1 /* act */, 5);
    assert_int_equal(run_check(bad, NULL, "exact", &out), GOLDEN_REGRESSION);
    const char *r = strstr(out, "\n\nREGRESSION: ");
    const char *m = strstr(out, "first mismatches:\n  step 1 layer 3 (conv2) act");
    const char *hint = strstr(out, "records outside the policy (!) or SUSPECT (?)");
    hint = hint ? strstr(hint, "\n! step 1 layer 3 (conv2) act ") : NULL;
    hint = hint ? strstr(hint, "(all ") : NULL;
    const char *r2 = r ? strstr(r + 2, "\n\nREGRESSION: ") : NULL;
    if (!r || !m || m < r || !hint || hint < m || !r2 || r2 < hint || strstr(out, "per-tensor summary") ||
        strncmp(last_line(out), "REGRESSION: ", 12) != 0)
        fail_msg("want REGRESSION, the first mismatches, the flagged rows and the --verbose hint, REGRESSION again "
                 "last:\n%s", out);
    free(out);
}

/* g_edit hooks: the record's first zero made -0, or 1e-30 */
static void edit_neg_zero(float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] == 0) {
            v[i] = -0.0f;
            return;
        }
    fail_msg("no zero in the record");
}

static void edit_tiny(float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] == 0) {
            v[i] = 1e-30f;
            return;
        }
    fail_msg("no zero in the record");
}

/* The flagged row of `label` in out: its ULP column and max |diff| column
 * as text (the columns after values and failed). */
static void row_cols(const char *out, const char *label, char *ulp, char *diff) {
    const char *r = strstr(out, label);
    if (!r || sscanf(r + strlen(label), " %*u %*u %31s %31s", ulp, diff) != 2)
        fail_msg("no row '%s' in:\n%s", label, out);
}

/* The table's numbers mean something: a zero made 1e-30 is ~2.3e8 floats
 * away by the ordinal count (the "max ULP" column said so, and 810024960
 * for conv2's weight gradient under winograd, whose |diff| was 1e-8), so
 * outside ulp:N the column is the error in ULPs of the record's largest
 * value (ULP@max); a record failing only on +0 vs -0 says so where it
 * said "max |diff| 0". */
static void test_table_ulp_and_signed_zero(void **state) {
    (void)state;
    NEED_DATA();
    char bad[160], *out, ulp[32], diff[32];
    snprintf(bad, sizeof bad, "%s/tiny_relu.lsg", g_dir);
    g_edit = edit_tiny;
    rewrite(g_cpu, bad, NULL, NULL, 1, 1 /* relu1 */, 1 /* act */, 0);
    g_edit = NULL;
    assert_int_equal(run_check(bad, NULL, "exact", &out), GOLDEN_REGRESSION);
    if (!strstr(out, "ULP@max = max |diff| in ULPs of the record's largest |golden| value")) fail_msg("%s", out);
    row_cols(out, "\n! step 1 layer 1 (relu1) act ", ulp, diff);
    char *end;
    double u = strtod(ulp, &end);
    if (*end || !(u < 1)) fail_msg("ULP column '%s' for a 1e-30 error at a scale of ~1: want < 1\n%s", ulp, out);
    assert_non_null(strstr(out, "across zero (no ULP count)"));
    free(out);
    /* ulp:N: the ordinal count is the policy's measure, and stays */
    assert_int_equal(run_check(bad, NULL, "ulp:4", &out), GOLDEN_REGRESSION);
    assert_non_null(strstr(out, "max ULP = the largest ULP distance, the policy's measure"));
    row_cols(out, "\n! step 1 layer 1 (relu1) act ", ulp, diff);
    float t = 1e-30f;
    uint32_t tb;
    memcpy(&tb, &t, 4);
    char want[32];
    snprintf(want, sizeof want, "%u", (unsigned)tb);
    if (strcmp(ulp, want) != 0) fail_msg("ulp:4: want the ordinal count %s, got %s\n%s", want, ulp, out);
    free(out);

    snprintf(bad, sizeof bad, "%s/negzero_relu.lsg", g_dir);
    g_edit = edit_neg_zero;
    rewrite(g_cpu, bad, NULL, NULL, 1, 1 /* relu1 */, 1 /* act */, 0);
    g_edit = NULL;
    assert_int_equal(run_check(bad, NULL, "exact", &out), GOLDEN_REGRESSION);
    if (!strstr(out, "\n! step 1 layer 1 (relu1) act ")) fail_msg("%s", out);
    /* "+0 vs -0" spans two words: the row's text after its label */
    const char *r = strstr(out, "\n! step 1 layer 1 (relu1) act ");
    const char *nl = strchr(r + 1, '\n');
    const char *z = strstr(r, "+0 vs -0");
    if (!z || z > nl) fail_msg("want the row to say +0 vs -0:\n%s", out);
    assert_non_null(strstr(out, "new -0 (0x80000000), +0 vs -0"));
    free(out);
}

/* Re-write golden `src` to `dst` as rewrite() with one value of (step,
 * layer, kind) moved one ULP up, and without the record (dstep, dlayer,
 * dkind): a golden whose later part the replay cannot read. */
static void rewrite_without(const char *src, const char *dst, uint32_t step, int32_t layer, unsigned kind,
                            size_t index, uint32_t dstep, int32_t dlayer, unsigned dkind) {
    char mid[200];
    snprintf(mid, sizeof mid, "%s.mid", dst);
    rewrite(src, mid, NULL, NULL, step, layer, kind, index);
    golden_file *gf;
    assert_int_equal(golden_read(&gf, mid), 0);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, dst, &gf->prov), 0);
    int dropped = 0;
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *r = &gf->records[i];
        if (r->step == dstep && r->layer == dlayer && r->kind == dkind) {
            dropped++;
            continue;
        }
        assert_int_equal(golden_writer_add(w, r->step, r->layer, r->kind, r->name, r->ndim, r->shape, r->values), 0);
    }
    assert_int_equal(golden_writer_close(w, 1), 0);
    assert_int_equal(dropped, 1);
    golden_file_free(gf);
    unlink(mid);
}

/* An error that cuts the replay short (here step 2's conv1 act is missing
 * from the file) is exit 2 with the error named — and the mismatches step
 * 1 had already shown are still printed, not lost with the verdict: a
 * user whose replay broke at step 900 keeps what steps 1..899 found. */
static void test_error_keeps_earlier_mismatches(void **state) {
    (void)state;
    NEED_DATA();
    char bad[160], *out;
    snprintf(bad, sizeof bad, "%s/ulp_then_missing.lsg", g_dir);
    rewrite_without(g_cpu, bad, 1, 3, 1 /* act */, 5, 2, 0, 1 /* act */);
    assert_int_equal(run_check(bad, NULL, "exact", &out), GOLDEN_UNUSABLE);
    /* two records: conv2's act, and relu2's, which the replay computes from the golden's conv2 act; then
     * the error, the last line */
    const char *b = strstr(out, "the replay stopped at an error (below); before it, 2 record(s) had failed and 0 "
                                "were SUSPECT:\n");
    const char *m = b ? strstr(b, "first mismatches:\n  step 1 layer 3 (conv2) act [n=0 c=0 h=0 w=5]") : NULL;
    m = m ? strstr(m, "\n  step 1 layer 4 (relu2) act [n=0 c=0 h=0 w=5]") : NULL;
    const char *e = m ? strstr(m, "\nlockstep golden check: ") : NULL;
    if (!b || !m || !e || strstr(out, "PASS") || strstr(out, "REGRESSION: ") ||
        !strstr(last_line(out), "ulp_then_missing.lsg: no record for step 2 layer 0 act (conv1): the file does not "
                                "hold what its provenance says it holds"))
        fail_msg("want step 1's mismatches, then the error naming the file and the missing record as the last "
                 "line, no verdict:\n%s", out);
    free(out);
    /* the same cut with nothing found before it says nothing of "before" */
    snprintf(bad, sizeof bad, "%s/missing_only.lsg", g_dir);
    rewrite_without(g_cpu, bad, 0, 0, 0, 0, 2, 0, 1 /* act */);
    assert_int_equal(run_check(bad, NULL, "exact", &out), GOLDEN_UNUSABLE);
    if (!strstr(out, "no record for step 2 layer 0 act (conv1)") || strstr(out, "before it"))
        fail_msg("want the error alone:\n%s", out);
    free(out);
}

static void test_damage_is_unusable(void **state) {
    (void)state;
    NEED_DATA();
    size_t n;
    unsigned char *b = slurp(g_cpu, &n);
    char bad[160], *out;
    snprintf(bad, sizeof bad, "%s/damaged.lsg", g_dir);
    /* truncation at each sixteenth (0 included: an empty file) */
    for (int k = 0; k < 16; k++) {
        spit(bad, b, n * (size_t)k / 16);
        assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
        assert_non_null(strstr(out, "damaged.lsg"));
        free(out);
    }
    /* flipped bytes: header, provenance, record stream (several places), footer */
    size_t at[] = {3, 20, 40, 300, n / 3, n / 2, 2 * n / 3, n - 30, n - 10, n - 1};
    for (size_t i = 0; i < LS_ARRAY_LEN(at); i++) {
        b[at[i]] ^= 0x5a;
        spit(bad, b, n);
        b[at[i]] ^= 0x5a;
        assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
        free(out);
    }
    /* wrong magic */
    b[1] = 'X';
    spit(bad, b, n);
    b[1] = 'L';
    assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
    assert_non_null(strstr(out, "magic"));
    free(out);
    /* wrong version */
    b[8] = 2;
    spit(bad, b, n);
    b[8] = 1;
    assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
    assert_non_null(strstr(out, "version"));
    free(out);
    /* missing */
    snprintf(bad, sizeof bad, "%s/missing.lsg", g_dir);
    assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
    free(out);
    /* a bad policy is a usage error, not a pass */
    assert_int_equal(run_check(g_cpu, NULL, "sloppy", &out), GOLDEN_UNUSABLE);
    free(out);
    free(b);
}

static void test_provenance_mismatch_switches_to_bound(void **state) {
    (void)state;
    NEED_DATA();
    char other[160], *out;
    snprintf(other, sizeof other, "%s/onednn.lsg", g_dir);
    rewrite(g_cpu, other, "lib.onednn", "9.9.9", 0, 0, 0, 0);
    assert_int_equal(run_check(other, NULL, "auto", &out), GOLDEN_PASS);
    assert_non_null(strstr(out, "\npolicy bound (auto: oneDNN version differs: 9.9.9 vs"));
    assert_null(strstr(out, "→"));
    free(out);
}

static void test_data_crc_mismatch_is_unusable(void **state) {
    (void)state;
    NEED_DATA();
    char other[160], *out;
    snprintf(other, sizeof other, "%s/data.lsg", g_dir);
    rewrite(g_cpu, other, "data.t10k-images-idx3-ubyte.crc32", "01234567", 0, 0, 0, 0);
    assert_int_equal(run_check(other, NULL, "auto", &out), GOLDEN_UNUSABLE);
    assert_non_null(strstr(out, "t10k-images-idx3-ubyte"));
    assert_non_null(strstr(out, "01234567"));
    free(out);
}

/* Copy golden src to dst with value `index` of the first record of `kind`
 * replaced by v. */
static void rewrite_set(const char *src, const char *dst, unsigned kind, size_t index, float v) {
    golden_file *gf;
    assert_int_equal(golden_read(&gf, src), 0);
    golden_writer *w;
    assert_int_equal(golden_writer_open(&w, dst, &gf->prov), 0);
    int done = 0;
    for (size_t i = 0; i < gf->n_records; i++) {
        const golden_record *r = &gf->records[i];
        float *vals = malloc((r->count ? r->count : 1) * sizeof *vals);
        assert_non_null(vals);
        memcpy(vals, r->values, r->count * sizeof *vals);
        if (!done && r->kind == kind) {
            assert_true(index < r->count);
            vals[index] = v;
            done = 1;
        }
        assert_int_equal(golden_writer_add(w, r->step, r->layer, r->kind, r->name, r->ndim, r->shape, vals), 0);
        free(vals);
    }
    assert_int_equal(golden_writer_close(w, 1), 0);
    assert_true(done);
    golden_file_free(gf);
}

/* A stored prediction that is no class (NaN, 1e30, -1, 2.5): converting it
 * to int was undefined behaviour; now the file is unusable, with the value. */
static void test_bad_prediction_is_unusable(void **state) {
    (void)state;
    NEED_DATA();
    char bad[160], *out;
    snprintf(bad, sizeof bad, "%s/pred.lsg", g_dir);
    const float vals[4] = {NAN, 1e30f, -1.0f, 2.5f};
    const char *shown[4] = {"value nan", "value 1e+30", "value -1", "value 2.5"};
    for (int i = 0; i < 4; i++) {
        rewrite_set(g_cpu, bad, GOLDEN_KIND_PREDICTIONS, 3, vals[i]);
        assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
        if (!strstr(out, shown[i])) print_message("%s\n", out);
        assert_non_null(strstr(out, shown[i]));
        assert_non_null(strstr(out, "at test image 3 is not a class in 0..9"));
        free(out);
    }
}

/* Issue 25: a golden holding a NaN or infinity read as a regression (exit
 * 1); now it is unusable (exit 2), naming the record and the field. */
static void test_nonfinite_golden_is_unusable(void **state) {
    (void)state;
    NEED_DATA();
    char bad[160], *out;
    snprintf(bad, sizeof bad, "%s/nan.lsg", g_dir);
    const unsigned kinds[3] = {TENSOR_ACT, TENSOR_PARAMS, GOLDEN_KIND_LOGITS};
    const float vals[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        rewrite_set(g_cpu, bad, kinds[i], 2, vals[i]);
        assert_int_equal(run_check(bad, NULL, "auto", &out), GOLDEN_UNUSABLE);
        if (!strstr(out, "field values: value 2 is") || !strstr(out, "a golden holds finite values"))
            fail_msg("kind %u: %s", kinds[i], out);
        free(out);
    }
}

/* A golden whose provenance says batch 65536 made golden check allocate
 * 21 GB; now the replay's memory is estimated first (smallcnn: ~1.1 MB per
 * image, ~74 GB) and refused with the figure.  On a machine with that much
 * memory the replay is legitimate: skipped there. */
static void test_huge_batch_refused(void **state) {
    (void)state;
    NEED_DATA();
    if (ls_phys_mem() == 0 || ls_phys_mem() > (size_t)60 << 30) skip();
    char big[160], *out;
    snprintf(big, sizeof big, "%s/batch.lsg", g_dir);
    rewrite(g_cpu, big, "batch", "65536", 0, 0, 0, 0);
    double t0 = ls_now();
    assert_int_equal(run_check(big, NULL, "auto", &out), GOLDEN_UNUSABLE);
    print_message("  %.2f s: %s", ls_now() - t0, out);
    assert_non_null(strstr(out, "a replay of model smallcnn at batch 65536 needs about"));
    free(out);
}

/* The auto policy's line listed every difference: a cpu golden replayed
 * by the reference made one line of 1,000 characters cut mid-word, with
 * --verbose too.  The first screen lists three and counts the rest;
 * --verbose lists them all, uncut. */
static void test_policy_line_short_then_verbose(void **state) {
    (void)state;
    NEED_DATA();
    char *out;
    /* the fixture is cpu:threads=1; layout=plain: engine spec, algo.conv1.fwd,
     * algo.conv1.bwd_weights, ..., algorithms (gemm against the blocked
     * layout's JIT kernels: 7 differences on AVX2, as many on AVX-512) */
    const char *spec = "cpu:threads=1:layout=plain";
    int rc = run_check(g_cpu, spec, "auto", &out);
    assert_true(rc == GOLDEN_PASS || rc == GOLDEN_REGRESSION);
    const char *p = strstr(out, "\npolicy bound (auto: engine spec differs: ");
    const char *e = p ? strchr(p + 1, '\n') : NULL;
    const char *m = p ? strstr(p, " more difference(s): --verbose lists them)\n") : NULL;
    int listed = 0;
    for (const char *q = p; q && q < e; q = strstr(q + 1, " differs: ")) listed += q != p;
    if (!p || !m || m > e || listed != 3) fail_msg("want three differences listed and 'N more':\n%s", out);
    free(out);
    rc = run_check_v(g_cpu, spec, "auto", 1, &out);
    assert_true(rc == GOLDEN_PASS || rc == GOLDEN_REGRESSION);
    p = strstr(out, "\npolicy bound (auto: engine spec differs: ");
    e = p ? strchr(p + 1, '\n') : NULL;
    const char *a = p ? strstr(p, "; algorithms differs: ") : NULL;
    listed = 0;
    for (const char *q = p; q && q < e; q = strstr(q + 1, " differs: ")) listed += q != p;
    if (!p || !a || a > e || strstr(out, "more difference") || e[-1] != ')' || listed < 4)
        fail_msg("--verbose: want every difference:\n%s", out);
    free(out);
}

/* A golden of the exact reference (`golden record --engine reference`, its
 * default mode) failed its own check on the same machine: auto picks exact,
 * and the replay, which starts each operation from the golden's fp32
 * values, cannot give the bits the engine got from its values beyond fp32.
 * The check says so under exact; a golden of the fp32cr reference (bits
 * reproducible) gets no such note. */
static void test_exact_reference_golden_note(void **state) {
    (void)state;
    NEED_DATA();
    char g[160], *out;
    snprintf(g, sizeof g, "%s/exactref.lsg", g_dir);
    assert_int_equal(record(g, "reference", 1, 2, 16), 0);
    int rc = run_check(g, NULL, "auto", &out);
    assert_true(rc == GOLDEN_PASS || rc == GOLDEN_REGRESSION);
    if (!strstr(out, "\npolicy exact (auto: ") ||
        !strstr(out, "\nnote: this golden's engine, the exact reference, carries values beyond fp32"))
        fail_msg("want the note under exact:\n%s", out);
    free(out);
    assert_int_equal(run_check(g, NULL, "bound", &out), GOLDEN_PASS);
    assert_null(strstr(out, "note:"));
    free(out);
    assert_int_equal(run_check(g_ref, NULL, "auto", &out), GOLDEN_PASS);
    assert_null(strstr(out, "note:"));
    free(out);
}

static void test_bound_holds_across_engines(void **state) {
    (void)state;
    NEED_DATA();
    char *out;
    /* the cpu golden replayed by the correctly rounded reference, and the
     * reference golden by the cpu engine: different summation orders, each
     * within the a-priori fp32 bound of the exact result */
    int rc = run_check_v(g_cpu, "reference:mode=fp32cr:threads=1", "bound", 1, &out);
    if (rc != GOLDEN_PASS) print_message("%s\n", out);
    assert_int_equal(rc, GOLDEN_PASS);
    /* legal reorderings: no false alarm of the sharper tier either (issue 24) */
    if (strstr(out, "SUSPECT")) print_message("%s\n", out);
    assert_null(strstr(out, "SUSPECT"));
    assert_non_null(strstr(out, "sharp")); /* the table's column (--verbose) */
    /* another engine than the file's is named as such; the asked policy once */
    assert_non_null(strstr(out, "engine reference:mode=fp32cr:threads=1 (recorded with cpu"));
    assert_non_null(strstr(out, "\npolicy bound (asked)\n"));
    assert_null(strstr(out, "policy bound — policy bound"));
    free(out);
    rc = run_check(g_ref, "cpu:threads=1", "bound", &out);
    if (rc != GOLDEN_PASS) print_message("%s\n", out);
    assert_int_equal(rc, GOLDEN_PASS);
    if (strstr(out, "SUSPECT")) print_message("%s\n", out);
    assert_null(strstr(out, "SUSPECT"));
    /* and exact does see that they differ */
    free(out);
    assert_int_equal(run_check(g_ref, "cpu:threads=1", "exact", &out), GOLDEN_REGRESSION);
    free(out);
}

static void test_committed_goldens_pass(void **state) {
    (void)state;
    NEED_DATA();
    char *out;
    struct stat sb;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(stat(g_committed[i], &sb), 0);
        assert_true(sb.st_size <= 2 * 1024 * 1024); /* the size limit */
    }
    int rc = run_check(g_committed[1], NULL, "exact", &out);
    if (rc != GOLDEN_PASS) print_message("%s\n", out);
    assert_int_equal(rc, GOLDEN_PASS);
    free(out);
    rc = run_check(g_committed[0], NULL, "auto", &out);
    if (rc != GOLDEN_PASS) print_message("%s\n", out);
    assert_int_equal(rc, GOLDEN_PASS);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_cpu),
        cmocka_unit_test(test_roundtrip_reference),
        cmocka_unit_test(test_one_ulp_is_regression),
        cmocka_unit_test(test_damage_is_unusable),
        cmocka_unit_test(test_error_keeps_earlier_mismatches),
        cmocka_unit_test(test_verdict_first),
        cmocka_unit_test(test_table_ulp_and_signed_zero),
        cmocka_unit_test(test_provenance_mismatch_switches_to_bound),
        cmocka_unit_test(test_policy_line_short_then_verbose),
        cmocka_unit_test(test_exact_reference_golden_note),
        cmocka_unit_test(test_data_crc_mismatch_is_unusable),
        cmocka_unit_test(test_bound_holds_across_engines),
        cmocka_unit_test(test_bad_prediction_is_unusable),
        cmocka_unit_test(test_nonfinite_golden_is_unusable),
        cmocka_unit_test(test_huge_batch_refused),
        cmocka_unit_test(test_committed_goldens_pass),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
