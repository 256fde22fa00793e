/*
 * test_report_html.c — the report as a reader sees it (issue 20): every
 * chart shows the numbers of its table (one source of truth), the headline
 * is honest about engines that did not run, and the HTML keeps its budgets
 * in a real browser (scripts/check-report.sh, headless Chromium).
 *
 * One small real audit (FashionMNIST slice, cuda listed: without a GPU it
 * cannot run) makes the report set the tests read; LS_REPORT_DIR=DIR reads
 * an existing report set instead (e.g. reports/sample: the main job's).
 *
 * Charts: each bar's tooltip "<series> · <category>: <value>" is parsed out
 * of the SVG and compared, as the same text, with the value run.json holds
 * (formatted as the table formats it).  A chart this test does not know
 * fails it: a new chart needs its check here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit/headline.h"
#include "base/util.h"
#include "engines/run.h"

static char g_root[PATH_MAX];   /* the repository */
static char g_dir[PATH_MAX];    /* the report set read */
static char g_console[16384];   /* the audit's stdout (own run only) */
static int g_own;               /* 1: this test ran the audit */

static int have_data(void) { return access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) == 0; }

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
    fclose(f);
    if (s) s[got] = 0;
    return s;
}

/* Run a shell command, its stdout+stderr into out; returns the exit status. */
static int run_cmd(const char *cmd, char *out, size_t cap) {
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = 0;
    out[0] = 0;
    while (n + 1 < cap) {
        size_t k = fread(out + n, 1, cap - 1 - n, p);
        if (k == 0) break;
        n += k;
    }
    out[n] = 0;
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int setup(void **st) {
    (void)st;
    ssize_t n = readlink("/proc/self/exe", g_root, sizeof g_root - 32);
    if (n <= 0) return -1;
    g_root[n] = 0;
    char *slash = strrchr(g_root, '/');
    if (!slash) return -1;
    strcpy(slash, "/../..");
    const char *dir = getenv("LS_REPORT_DIR");
    if (dir && *dir) {
        snprintf(g_dir, sizeof g_dir, "%s", dir);
        return 0;
    }
    if (!have_data()) return 0;
    snprintf(g_dir, sizeof g_dir, "/tmp/ls-report-html.%ld", (long)getpid());
    char cmd[PATH_MAX * 3];
    /* 32 steps of batch 64, two seeds: every chart of the seed loop */
    snprintf(cmd, sizeof cmd,
             "OMP_WAIT_POLICY=passive '%s/build/lockstep' audit --engines reference,cpu,cpu:threads=1,cuda "
             "--limit-train 2048 --limit-test 500 --batch 64 --epochs 1 --attribution-steps 1 --audit-every 8 "
             "--seeds 2 --jobs 1 --fail-on problem --out '%s' 2>&1",
             g_root, g_dir);
    int rc = run_cmd(cmd, g_console, sizeof g_console);
    if (rc != 0) {
        fprintf(stderr, "audit exit %d:\n%s\n", rc, g_console);
        return -1;
    }
    g_own = 1;
    return 0;
}

static int teardown(void **st) {
    (void)st;
    if (g_own) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) return -1;
    }
    return 0;
}

static void need_report(void) {
    if (!g_dir[0]) {
        print_message("no FashionMNIST under " DATA_DEFAULT_DIR " and no LS_REPORT_DIR: nothing to read\n");
        skip();
    }
}

static char *read_in_dir(const char *name) {
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    char *s = slurp(p);
    if (!s) fail_msg("%s: cannot read", p);
    return s;
}

/* ---- the charts ------------------------------------------------------------ */

typedef struct {
    char series[96], cat[64], value[48];
} bar;

typedef struct {
    char title[300];
    int n;
    bar b[2048];
} chart;

/* "&amp;" and the like back to text (the report escapes every label). */
static void unescape(char *s) {
    static const char *const E[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
    for (size_t k = 0; k < sizeof E / sizeof E[0]; k++) {
        char *p;
        size_t el = strlen(E[k][0]);
        while ((p = strstr(s, E[k][0]))) memmove(p + 1, p + el, strlen(p + el) + 1), p[0] = E[k][1][0];
    }
}

/* The next <svg>...</svg> from *pos: its title and bar tooltips.  Returns 0 at the end. */
static int next_chart(const char **pos, chart *c) {
    const char *s = strstr(*pos, "<svg");
    if (!s) return 0;
    const char *e = strstr(s, "</svg>");
    assert_non_null(e);
    *pos = e + 6;
    memset(c, 0, sizeof *c);
    const char *t = strstr(s, "<title>");
    if (t && t < e) {
        t += 7;
        const char *te = strstr(t, "</title>");
        snprintf(c->title, sizeof c->title, "%.*s", (int)(te - t), t);
        unescape(c->title);
        s = te;
    }
    /* bar tooltips: <rect ...><title>S · C: V</title> or <circle ...><title>... */
    while ((t = strstr(s, "<title>")) && t < e) {
        t += 7;
        const char *te = strstr(t, "</title>");
        char txt[300];
        snprintf(txt, sizeof txt, "%.*s", (int)(te - t), t);
        s = te;
        unescape(txt);
        char *dot = strstr(txt, " · ");
        char *colon = strrchr(txt, ':');
        if (!dot || !colon || colon < dot || c->n >= (int)(sizeof c->b / sizeof c->b[0])) continue;
        bar *b = &c->b[c->n++];
        snprintf(b->series, sizeof b->series, "%.*s", (int)(dot - txt), txt);
        snprintf(b->cat, sizeof b->cat, "%.*s", (int)(colon - dot - strlen(" · ")), dot + strlen(" · "));
        snprintf(b->value, sizeof b->value, "%s", colon + 2);
    }
    return 1;
}

/* Whether the shown text is the true value as displayed: within half a unit
 * of its last shown digit (the display's rounding, nothing more). */
static int shows(const char *shown, double truth) {
    char *end;
    double v = strtod(shown, &end);
    if (end == shown) return 0;
    const char *dot = strchr(shown, '.');
    int dec = 0;
    if (dot && dot < end)
        for (const char *q = dot + 1; q < end && *q >= '0' && *q <= '9'; q++) dec++;
    const char *ex = strpbrk(shown, "eE");
    int e10 = ex && ex < end ? atoi(ex + 1) : 0;
    double half = 0.5 * pow(10, e10 - dec);
    if (!dot || (ex && dot > ex)) {
        /* an integer mantissa: its last digit is the unit */
        half = 0.5 * pow(10, e10);
    }
    return fabs(v - truth) <= half * (1 + 1e-9);
}

static json_t *seeds_engine(json_t *seeds, const char *label) {
    json_t *engs = json_object_get(seeds, "engines");
    for (size_t i = 0; i < json_array_size(engs); i++) {
        json_t *e = json_array_get(engs, i);
        if (strcmp(json_string_value(json_object_get(e, "label")), label) == 0) return e;
    }
    return NULL;
}

/* "Test accuracy per seed": bar (engine, "seed N") = run.json's
 * seeds.engines[engine].accuracy[N - first_seed][last epoch], in % with 2 decimals. */
static int check_accuracy_chart(const chart *c, json_t *run) {
    json_t *seeds = json_object_get(run, "seeds");
    assert_non_null(seeds);
    long first = (long)json_integer_value(json_object_get(seeds, "first_seed"));
    int bad = 0;
    for (int i = 0; i < c->n; i++) {
        const bar *b = &c->b[i];
        json_t *e = seeds_engine(seeds, b->series);
        if (!e) fail_msg("accuracy chart: series '%s' is no engine of run.json", b->series);
        long sd = strtol(b->cat + strlen("seed "), NULL, 10) - first;
        json_t *acc = json_array_get(json_object_get(e, "accuracy"), (size_t)sd);
        double a = json_real_value(json_array_get(acc, json_array_size(acc) - 1));
        double truth = 100 * a;
        char want[48];
        snprintf(want, sizeof want, "%.2f", truth);
        if (!shows(b->value, truth)) {
            print_message("accuracy chart: %s · %s shows %s, run.json says %s\n", b->series, b->cat, b->value, want);
            bad++;
        }
    }
    return bad;
}

/* The cells of the table row whose first cell is `first` (after `from`),
 * unescaped, into cell[]; returns how many (0: no such row). */
static int table_row_cells(const char *html, const char *first, char cell[][48], int max) {
    char key[300];
    snprintf(key, sizeof key, "<tr><td>%s</td>", first);
    const char *r = strstr(html, key);
    if (!r) return 0;
    const char *end = strstr(r, "</tr>");
    int n = 0;
    for (const char *q = strstr(r + strlen(key), "<td>"); q && q < end && n < max; q = strstr(q, "<td>")) {
        q += 4;
        const char *qe = strstr(q, "</td>");
        snprintf(cell[n], 48, "%.*s", (int)(qe - q), q);
        unescape(cell[n]);
        n++;
    }
    return n;
}

/* The margins chart: bar (series, bin) = run.json's margins_last_epoch.bins
 * of the pair named in the title, in %; where run.json has no bins (reports
 * before issue 20), the report's own table row of that pair. */
static int check_margin_chart(const chart *c, json_t *run, const char *html) {
    json_t *pairs = json_object_get(json_object_get(run, "seeds"), "pairs");
    json_t *mb = NULL;
    const char *pa = NULL, *pb = NULL;
    for (size_t i = 0; i < json_array_size(pairs) && !mb; i++) {
        json_t *p = json_array_get(pairs, i);
        char want[256], vs[256];
        snprintf(want, sizeof want, " on %s, ", json_string_value(json_object_get(p, "a")));
        snprintf(vs, sizeof vs, "(vs %s)", json_string_value(json_object_get(p, "b")));
        if (strstr(c->title, want) && strstr(c->title, vs)) {
            pa = json_string_value(json_object_get(p, "a"));
            pb = json_string_value(json_object_get(p, "b"));
            mb = json_object_get(json_object_get(p, "margins_last_epoch"), "bins");
            break;
        }
    }
    if (!pa) fail_msg("margins chart '%s': no pair of run.json", c->title);
    static const char *const BINS[] = {"< 1e-4", "1e-4..1e-3", "1e-3..0.01", "0.01..0.1",
                                       "0.1..0.3", "0.3..1",    "1..3",       ">= 3"};
    char rowf[16][48], rowa[16][48];
    char kf[240], ka[240];
    snprintf(kf, sizeof kf, "%s vs %s: flipped", pa, pb);
    snprintf(ka, sizeof ka, "%s: all images", pa);
    int nf = mb ? 0 : table_row_cells(html, kf, rowf, 16), na = mb ? 0 : table_row_cells(html, ka, rowa, 16);
    if (!mb && (nf < 9 || na < 9)) fail_msg("margins chart: neither run.json bins nor the table rows of %s", kf);
    int bad = 0;
    for (int i = 0; i < c->n; i++) {
        const bar *b = &c->b[i];
        int flipped = strcmp(b->series, "flipped images") == 0;
        if (!flipped && strcmp(b->series, "all images") != 0) fail_msg("margins chart: unknown series '%s'", b->series);
        size_t k = 0;
        while (k < 8 && strcmp(BINS[k], b->cat) != 0) k++;
        if (k == 8) fail_msg("margins chart: unknown bin '%s'", b->cat);
        double truth = mb ? json_real_value(json_array_get(json_object_get(mb, flipped ? "flipped_pct" : "all_pct"), k))
                          : strtod(flipped ? rowf[1 + k] : rowa[1 + k], NULL);
        if (!shows(b->value, truth)) {
            print_message("margins chart: %s · %s shows %s, %s says %.1f\n", b->series, b->cat, b->value,
                          mb ? "run.json" : "the table", truth);
            bad++;
        }
    }
    return bad;
}

/* Timing charts: bar (engine, layer) = run.json's engines[engine].timing
 * median of that layer and phase, in ms with 3 significant digits. */
static int check_timing_chart(const chart *c, json_t *run, const char *phase) {
    json_t *engs = json_object_get(run, "engines");
    int bad = 0;
    for (int i = 0; i < c->n; i++) {
        const bar *b = &c->b[i];
        json_t *e = NULL;
        for (size_t k = 0; k < json_array_size(engs) && !e; k++)
            if (strcmp(json_string_value(json_object_get(json_array_get(engs, k), "label")), b->series) == 0)
                e = json_array_get(engs, k);
        if (!e) fail_msg("timing chart: series '%s' is no engine", b->series);
        json_t *layers = json_object_get(json_object_get(json_object_get(e, "timing"), "timing_spread"), "layers");
        json_t *ly = NULL;
        for (size_t k = 0; k < json_array_size(layers) && !ly; k++)
            if (strcmp(json_string_value(json_object_get(json_array_get(layers, k), "layer")), b->cat) == 0)
                ly = json_array_get(layers, k);
        json_t *ph = ly ? json_object_get(ly, phase) : NULL;
        if (!ph) fail_msg("timing chart: %s · %s has no %s in run.json", b->series, b->cat, phase);
        double truth = 1e3 * json_real_value(json_object_get(ph, "median_s"));
        char want[48];
        snprintf(want, sizeof want, "%.3g", truth);
        if (!shows(b->value, truth)) {
            print_message("timing chart: %s · %s shows %s, run.json says %s\n", b->series, b->cat, b->value, want);
            bad++;
        }
    }
    return bad;
}

/* Per-layer divergence chart: bar (pair, layer) = run.json's
 * pairs[].layers[layer].rel_l2, 3 significant digits. */
static int check_layer_chart(const chart *c, json_t *run) {
    json_t *pairs = json_object_get(run, "pairs");
    int bad = 0;
    for (int i = 0; i < c->n; i++) {
        const bar *b = &c->b[i];
        json_t *hit = NULL;
        for (size_t k = 0; k < json_array_size(pairs) && !hit; k++) {
            json_t *p = json_array_get(pairs, k);
            char nm[200];
            snprintf(nm, sizeof nm, "%s vs %s", json_string_value(json_object_get(p, "a")),
                     json_string_value(json_object_get(p, "b")));
            if (strcmp(nm, b->series) != 0) continue;
            json_t *ls = json_object_get(p, "layers");
            for (size_t j = 0; j < json_array_size(ls) && !hit; j++)
                if (strcmp(json_string_value(json_object_get(json_array_get(ls, j), "layer")), b->cat) == 0)
                    hit = json_array_get(ls, j);
        }
        if (!hit) fail_msg("layer chart: %s · %s not in run.json pairs[].layers", b->series, b->cat);
        double truth = json_real_value(json_object_get(hit, "rel_l2"));
        char want[48];
        snprintf(want, sizeof want, "%.3g", truth);
        if (!shows(b->value, truth)) {
            print_message("layer chart: %s · %s shows %s, run.json says %s\n", b->series, b->cat, b->value, want);
            bad++;
        }
    }
    return bad;
}

static void test_charts_match_run_json(void **st) {
    (void)st;
    need_report();
    char *html = read_in_dir("report.html");
    char *js = read_in_dir("run.json");
    json_error_t err;
    json_t *run = json_loads(js, 0, &err);
    if (!run) fail_msg("run.json: %s (line %d)", err.text, err.line);
    static chart c;
    const char *pos = html;
    int bad = 0, n_acc = 0, n_charts = 0;
    while (next_chart(&pos, &c)) {
        n_charts++;
        if (c.n == 0) continue; /* line charts: no bars to read (their series are in the tables) */
        if (strncmp(c.title, "Test accuracy per seed", 22) == 0) {
            bad += check_accuracy_chart(&c, run);
            n_acc++;
        } else if (strncmp(c.title, "Top-two logit margin", 20) == 0) bad += check_margin_chart(&c, run, html);
        else if (strncmp(c.title, "Training forward time per layer", 31) == 0)
            bad += check_timing_chart(&c, run, "training_forward");
        else if (strncmp(c.title, "Backward time per layer", 23) == 0) bad += check_timing_chart(&c, run, "backward");
        else if (strncmp(c.title, "Relative error per layer", 24) == 0) bad += check_layer_chart(&c, run);
        else {
            print_message("a chart this test does not check: '%s' (add its check)\n", c.title);
            bad++;
        }
    }
    print_message("%d chart(s) read, %d value(s) off\n", n_charts, bad);
    assert_int_equal(n_acc, 1);
    assert_int_equal(bad, 0);
    /* the seed loop's own runs are said to be unchecked, next to their accuracies */
    const char *acc = strstr(html, "Test accuracy per seed");
    assert_non_null(acc);
    assert_non_null(strstr(acc, "their steps are unchecked"));
    json_decref(run);
    free(js);
    free(html);
}

/* ---- the sharper tier's margin per tensor kind (issue 24) -------------------- */

/* The q-quantile of run.json's bucket counts, re-derived here from the
 * bucket layout run.json states (exact, below 2^lo, [2^k, 2^(k+1)) for
 * k = lo..hi-1, at or above 2^hi): the upper edge of the bucket holding the
 * ceil(q n)-th ratio, the max when smaller or in the top bucket. */
static double counts_quantile(json_t *counts, int lo, int hi, double q, double max) {
    double n = 0;
    size_t nb = json_array_size(counts);
    for (size_t b = 0; b < nb; b++) n += json_number_value(json_array_get(counts, b));
    double rank = fmax(1, ceil(q * n)), seen = 0;
    for (size_t b = 0; b < nb; b++) {
        seen += json_number_value(json_array_get(counts, b));
        if (seen < rank) continue;
        if (b == 0) return 0;
        if (b == nb - 1) return max;
        double edge = ldexp(1.0, b == 1 ? lo : (int)b - 2 + lo + 1);
        return max < edge ? max : edge;
    }
    (void)hi;
    return max;
}

/* One pair's margin table in the HTML (after the "B vs A" heading inside the
 * margin section) against its run.json "sharp_margin": every cell is
 * run.json's number as the report formats it; returns the cells off. */
static int check_margin_pair(const char *sec, const char *sec_end, json_t *pair) {
    const char *a = json_string_value(json_object_get(pair, "a")), *b = json_string_value(json_object_get(pair, "b"));
    json_t *sm = json_object_get(pair, "sharp_margin");
    char head[300];
    snprintf(head, sizeof head, ">%s vs %s</h4>", b, a);
    const char *h = strstr(sec, head);
    if (!h || h > sec_end) {
        print_message("margin table of %s vs %s: not in the report\n", b, a);
        return 1;
    }
    const char *next = strstr(h + 1, "<h4"), *end = next && next < sec_end ? next : sec_end;
    json_t *ex = json_object_get(sm, "bucket_exponents");
    int lo = (int)json_integer_value(json_array_get(ex, 0)), hi = (int)json_integer_value(json_array_get(ex, 1));
    json_t *kinds = json_object_get(sm, "kinds");
    int bad = 0;
    for (size_t k = 0; k < json_array_size(kinds); k++) {
        json_t *kd = json_array_get(kinds, k);
        const char *name = json_string_value(json_object_get(kd, "name"));
        char key[200], cell[12][48];
        snprintf(key, sizeof key, "<tr><td>%s</td>", name);
        const char *row = strstr(h, key);
        if (!row || row > end || table_row_cells(row, name, cell, 12) != 10) {
            print_message("margin %s vs %s: no row '%s'\n", b, a, name);
            bad++;
            continue;
        }
        double mx = json_number_value(json_object_get(kd, "max_ratio"));
        char want[10][48];
        snprintf(want[0], 48, "%lld", (long long)json_integer_value(json_object_get(kd, "checks")));
        snprintf(want[1], 48, "%lld", (long long)json_integer_value(json_object_get(kd, "elements")));
        snprintf(want[2], 48, "%lld", (long long)json_integer_value(json_object_get(kd, "exact")));
        static const char *const QN[] = {"median", "p99", "p9999"};
        static const double QV[] = {0.5, 0.99, 0.9999};
        for (int q = 0; q < 3; q++) {
            double v = json_number_value(json_object_get(kd, QN[q]));
            /* run.json's quantile is the one its counts give */
            double re = counts_quantile(json_object_get(kd, "counts"), lo, hi, QV[q], mx);
            if (v != re) {
                print_message("margin %s vs %s, %s: run.json %s %.17g, its counts give %.17g\n", b, a, name, QN[q], v,
                              re);
                bad++;
            }
            ls_fmt_num(want[3 + q], 48, v, "–");
        }
        ls_fmt_num(want[6], 48, mx, "–");
        snprintf(want[7], 48, "%.3g%%", 100 * mx);
        snprintf(want[8], 48, "%lld", (long long)json_integer_value(json_object_get(kd, "over")));
        ls_fmt_num(want[9], 48, json_number_value(json_object_get(kd, "alarm_per_element")), "–");
        for (int c = 0; c < 10; c++)
            if (strcmp(cell[c], want[c]) != 0) {
                print_message("margin %s vs %s, %s, column %d: shows '%s', run.json gives '%s'\n", b, a, name, c + 2,
                              cell[c], want[c]);
                bad++;
            }
        /* the counts add up to the elements, and the exact ones are bucket 0 */
        json_t *counts = json_object_get(kd, "counts");
        long long tot = 0;
        for (size_t i = 0; i < json_array_size(counts); i++) tot += json_integer_value(json_array_get(counts, i));
        if (tot != json_integer_value(json_object_get(kd, "elements")) ||
            json_integer_value(json_array_get(counts, 0)) != json_integer_value(json_object_get(kd, "exact"))) {
            print_message("margin %s vs %s, %s: counts sum %lld, elements %lld\n", b, a, name, tot,
                          (long long)json_integer_value(json_object_get(kd, "elements")));
            bad++;
        }
    }
    return bad;
}

/* The margin tables (report.html) show run.json's sharp_margin numbers,
 * every reference pair that has them has its table, and the run's
 * activations and weight gradients are among the kinds. */
static void test_sharp_margin_matches_run_json(void **st) {
    (void)st;
    need_report();
    char *html = read_in_dir("report.html");
    char *js = read_in_dir("run.json");
    json_t *run = json_loads(js, 0, NULL);
    assert_non_null(run);
    const char *sec = strstr(html, "<h3 id=\"sharp-margin\">");
    if (!sec) fail_msg("report.html: no margin section (h3 id sharp-margin)");
    const char *sec_end = strstr(sec + 1, "<h3 ");
    if (!sec_end) sec_end = html + strlen(html);
    json_t *pairs = json_object_get(run, "pairs");
    int tables = 0, bad = 0, kinds_seen = 0;
    for (size_t i = 0; i < json_array_size(pairs); i++) {
        json_t *p = json_array_get(pairs, i);
        json_t *sm = json_object_get(p, "sharp_margin");
        if (!sm) continue;
        tables++;
        bad += check_margin_pair(sec, sec_end, p);
        json_t *kinds = json_object_get(sm, "kinds");
        for (size_t k = 0; k < json_array_size(kinds); k++) {
            const char *key = json_string_value(json_object_get(json_array_get(kinds, k), "kind"));
            kinds_seen |= strcmp(key, "act") == 0 ? 1 : strcmp(key, "weight_grad") == 0 ? 2 : 0;
        }
    }
    print_message("%d margin table(s) checked, %d value(s) off\n", tables, bad);
    assert_true(tables >= 1);
    assert_int_equal(kinds_seen, 3);
    assert_int_equal(bad, 0);
    json_decref(run);
    free(js);
    free(html);
}

/* ---- the headline --------------------------------------------------------- */

/* The console's verdict when cuda was listed and could not run: incomplete,
 * its reason on the same line in <= 100 characters and cut at a word, the
 * route to a recorded GPU run on the next; run.json keeps the whole reason. */
static void test_incomplete_headline(void **st) {
    (void)st;
    need_report();
    char *js = read_in_dir("run.json");
    json_t *run = json_loads(js, 0, NULL);
    assert_non_null(run);
    json_t *engs = json_object_get(run, "engines");
    const char *full = NULL;
    for (size_t i = 0; i < json_array_size(engs); i++) {
        json_t *e = json_array_get(engs, i);
        if (strcmp(json_string_value(json_object_get(e, "label")), "cuda") == 0 &&
            json_is_string(json_object_get(e, "skipped")))
            full = json_string_value(json_object_get(e, "skipped"));
    }
    if (!full) {
        json_decref(run);
        free(js);
        print_message("cuda ran here: no incomplete verdict to check\n");
        skip();
    }
    /* whole, not cut: the cuda engine's reasons end with ')' */
    assert_true(full[strlen(full) - 1] == ')');
    const char *verdict = json_string_value(json_object_get(run, "verdict_kind"));
    const char *line = json_string_value(json_object_get(run, "headline"));
    if (!verdict || strcmp(verdict, "incomplete") != 0) fail_msg("run.json verdict '%s', expected incomplete", verdict ? verdict : "(none)");
    if (!line || !strstr(line, "VERDICT: incomplete — cuda was not run: ")) fail_msg("run.json headline '%s'", line ? line : "(none)");
    if (g_own) {
        const char *v = strstr(g_console, "VERDICT: incomplete — cuda was not run: ");
        assert_non_null(v);
        const char *reason = v + strlen("VERDICT: incomplete — cuda was not run: ");
        const char *eol = strchr(reason, '\n');
        assert_non_null(eol);
        assert_true(eol - reason <= 100);
        assert_true(strncmp(eol + 1, "next: run scripts/gpu-check.sh on a GPU machine", 47) == 0);
        const char *eol2 = strchr(eol + 1, '\n');
        assert_non_null(strstr(eol + 1, ",recorded:FILE"));
        assert_true(strstr(eol + 1, ",recorded:FILE") < eol2);
        /* the short reason is the plain-words part of the full one, whole */
        char shortr[128];
        snprintf(shortr, sizeof shortr, "%.*s", (int)(eol - reason), reason);
        assert_non_null(strstr(full, shortr));
    }
    json_decref(run);
    free(js);
}

static audit_result *mini_result(void) {
    audit_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    const char *specs[] = {"reference", "cpu", "cpu:threads=1", "cuda"};
    for (int i = 0; i < 4; i++) {
        audit_engine *e = &r->eng[r->n_engines++];
        snprintf(e->label, sizeof e->label, "%s", specs[i]);
        snprintf(e->spec, sizeof e->spec, "%s", specs[i]);
        e->available = 1;
        e->repeat_of = -1;
        e->is_ref = i == 0;
    }
    return r;
}

/* headline_make on constructed results: ok only when every engine listed
 * ran; a missing engine wins over "unchecked", a problem over both; a long
 * reason is cut at a word to <= 100 characters. */
static void test_headline_kinds(void **st) {
    (void)st;
    audit_result *r = mini_result();
    verdict_table v;
    memset(&v, 0, sizeof v);
    headline h;
    r->n_engines = 3; /* reference,cpu,cpu:threads=1 */
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_OK);
    assert_true(strncmp(h.line, "VERDICT: ok — ", 14) == 0);
    assert_string_equal(h.next, "");
    r->n_engines = 4;
    audit_engine *cu = &r->eng[3];
    cu->available = 0;
    snprintf(cu->skip_reason, sizeof cu->skip_reason,
             "cuda: unavailable (cudaGetDeviceCount: cudaErrorInsufficientDriver (35): CUDA driver version is "
             "insufficient for CUDA runtime version; no NVIDIA driver is loaded, or it is older than this CUDA runtime)");
    v.unchecked = 1;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_INCOMPLETE);
    assert_string_equal(h.line, "VERDICT: incomplete — cuda was not run: no NVIDIA driver is loaded, or it is older "
                                "than this CUDA runtime");
    assert_non_null(strstr(h.next, "--engines reference,cpu,cpu:threads=1,recorded:FILE"));
    v.problems = 2;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_PROBLEM);
    assert_int_equal(h.n_missing, 1); /* still said, below the headline */
    /* a long reason without a hint: cut at a word, "..." added, <= 100 */
    char shortr[HEADLINE_SHORT];
    headline_short_reason("engine x: unavailable (the quick brown fox jumps over the lazy dog again and again and "
                          "again until the line is much longer than one hundred characters allow)",
                          shortr, sizeof shortr);
    assert_true(strlen(shortr) <= 100);
    assert_true(strcmp(shortr + strlen(shortr) - 3, "...") == 0);
    assert_true(shortr[strlen(shortr) - 4] != ' ');
    /* the text before "..." is the reason's start, ending on a whole word */
    assert_true(strncmp(shortr, "the quick brown fox jumps", 25) == 0);
    const char *src = "the quick brown fox jumps over the lazy dog again and again and again until the line is "
                      "much longer than one hundred characters allow";
    size_t kept = strlen(shortr) - 3;
    assert_memory_equal(shortr, src, kept);
    assert_true(src[kept] == ' ');
    free(r);
}

/* The incomplete screen's next step keeps the user's --engines list: an
 * engine listed twice (the determinism pair cpu,cpu) stays twice, a
 * driver knob (perturb=1) stays in its label, and only the missing cuda
 * engine is replaced, in its place, by its recording; two missing cuda
 * engines get a recording each; under --repeat 2 the repeats are the
 * flag's, not the list's. */
static void test_next_step_keeps_engine_list(void **st) {
    (void)st;
    audit_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    /* --engines reference,cpu,cuda,cpu,cpu:threads=1,cpu:perturb=1 */
    const char *lab[] = {"reference", "cpu", "cuda", "cpu#2", "cpu:threads=1", "cpu:perturb=1"};
    const char *spec[] = {"reference", "cpu", "cuda", "cpu", "cpu:threads=1", "cpu"};
    for (int i = 0; i < 6; i++) {
        audit_engine *e = &r->eng[r->n_engines++];
        snprintf(e->label, sizeof e->label, "%s", lab[i]);
        snprintf(e->spec, sizeof e->spec, "%s", spec[i]);
        e->available = i != 2;
        e->repeat_of = i == 3 ? 1 : -1;
        e->is_ref = i == 0;
    }
    snprintf(r->eng[2].skip_reason, sizeof r->eng[2].skip_reason, "cuda: unavailable (no NVIDIA driver is loaded)");
    r->cfg.repeat = 1;
    verdict_table v;
    memset(&v, 0, sizeof v);
    headline h;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_INCOMPLETE);
    const char *want = "then here, on that plan: --engines reference,cpu,recorded:FILE.lsr,cpu,cpu:threads=1,cpu:perturb=1 " GPU_CHECK_PLAN;
    if (!strstr(h.next, want) || strstr(h.next, want)[strlen(want)] != 0) fail_msg("next: %s", h.next);
    /* the plan named is the one scripts/gpu-check.sh records on (its REC_PLAN, less what the audit takes from the
     * recording): after `make run` the line gave the engines only, and the audit it led to was refused
     * ("recorded with batch 16, this run has batch 256") */
    char cmd[PATH_MAX + 160], line[512] = "";
    snprintf(cmd, sizeof cmd, "grep -m1 '^REC_PLAN=(' '%s/scripts/gpu-check.sh'", g_root);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
    if (strncmp(line, "REC_PLAN=(" GPU_CHECK_PLAN " --audit-every ", strlen("REC_PLAN=(" GPU_CHECK_PLAN " --audit-every ")))
        fail_msg("scripts/gpu-check.sh's plan '%s' is not GPU_CHECK_PLAN '%s'", line, GPU_CHECK_PLAN);
    /* a second cuda engine missing: a recording each */
    snprintf(r->eng[4].spec, sizeof r->eng[4].spec, "cuda:math=tf32");
    snprintf(r->eng[4].label, sizeof r->eng[4].label, "cuda:math=tf32");
    r->eng[4].available = 0;
    headline_make(&h, r, &v);
    want = "then here, on that plan: --engines reference,cpu,recorded:FILE1.lsr,cpu,recorded:FILE2.lsr,cpu:perturb=1 " GPU_CHECK_PLAN;
    if (!strstr(h.next, want) || strstr(h.next, want)[strlen(want)] != 0) fail_msg("next: %s", h.next);
    /* --repeat 2: every engine's copy is the flag's, not listed again */
    r->cfg.repeat = 2;
    headline_make(&h, r, &v);
    want = "then here, on that plan: --engines reference,cpu,recorded:FILE1.lsr,recorded:FILE2.lsr,cpu:perturb=1 " GPU_CHECK_PLAN;
    if (!strstr(h.next, want) || strstr(h.next, want)[strlen(want)] != 0) fail_msg("next: %s", h.next);
    /* a cpu engine that died: audit without it, the pair kept */
    r->cfg.repeat = 1;
    r->eng[2].available = r->eng[4].available = 1;
    snprintf(r->eng[2].spec, sizeof r->eng[2].spec, "cpu:algo=winograd");
    snprintf(r->eng[2].label, sizeof r->eng[2].label, "cpu:algo=winograd");
    snprintf(r->eng[4].spec, sizeof r->eng[4].spec, "cpu:threads=1");
    snprintf(r->eng[4].label, sizeof r->eng[4].label, "cpu:threads=1");
    r->eng[2].failed = 1;
    snprintf(r->eng[2].fail_reason, sizeof r->eng[2].fail_reason, "died at drift step 2 (signal 9, Killed)");
    headline_make(&h, r, &v);
    want = "or audit without it: --engines reference,cpu,cpu,cpu:threads=1,cpu:perturb=1";
    if (!strstr(h.next, want) || strstr(h.next, want)[strlen(want)] != 0) fail_msg("next: %s", h.next);
    free(r);
}

/* --fail-on incomplete: exit 1 when a listed engine did not run. */
static void test_fail_on_incomplete(void **st) {
    (void)st;
    if (!have_data()) skip();
    char cmd[PATH_MAX * 2], out[16384];
    snprintf(cmd, sizeof cmd,
             "OMP_WAIT_POLICY=passive '%s/build/lockstep' audit --engines cpu,cuda --limit-train 128 --limit-test 64 "
             "--batch 64 --epochs 1 --fail-on incomplete 2>&1",
             g_root);
    int rc = run_cmd(cmd, out, sizeof out);
    if (!strstr(out, "cuda was not run")) {
        print_message("cuda ran here: nothing incomplete to fail on\n");
        skip();
    }
    if (rc != 1) fail_msg("--fail-on incomplete: exit %d, expected 1:\n%s", rc, out);
    snprintf(cmd, sizeof cmd,
             "OMP_WAIT_POLICY=passive '%s/build/lockstep' audit --engines cpu,cuda --limit-train 128 --limit-test 64 "
             "--batch 64 --epochs 1 --fail-on problem 2>&1",
             g_root);
    assert_int_equal(run_cmd(cmd, out, sizeof out), 0);
}

/* ---- the browser ---------------------------------------------------------- */

static int check_report(const char *html, char *out, size_t cap) {
    char cmd[PATH_MAX * 3];
    /* the screenshot and measurements go to /tmp, never beside the report */
    snprintf(cmd, sizeof cmd, "d=$(mktemp -d /tmp/ls-check.XXXXXX) && bash '%s/scripts/check-report.sh' '%s' \"$d\" 2>&1; "
             "rc=$?; rm -rf \"$d\"; exit $rc", g_root, html);
    return run_cmd(cmd, out, cap);
}

/* The real report in headless Chromium: every budget holds. */
static void test_budgets_in_browser(void **st) {
    (void)st;
    need_report();
    char html[PATH_MAX + 32], out[8192];
    snprintf(html, sizeof html, "%s/report.html", g_dir);
    int rc = check_report(html, out, sizeof out);
    if (rc == 77) {
        print_message("%s", out);
        skip();
    }
    if (rc != 0) fail_msg("check-report.sh exit %d:\n%s", rc, out);
}

/* The checker can fail: a page with each defect it looks for. */
static void test_checker_catches_defects(void **st) {
    (void)st;
    char html[64], out[8192];
    snprintf(html, sizeof html, "/tmp/ls-bad-report.%ld.html", (long)getpid());
    FILE *f = fopen(html, "w");
    assert_non_null(f);
    fprintf(f, "<!doctype html><html><body><h1 id=\"x\">r</h1><p id=\"x\">no verdict box</p>"
               "<div style=\"height:9000px\"></div>"
               "<svg viewBox=\"0 0 1800 200\" width=\"900\" aria-label=\"tiny\"><text x=\"5\" y=\"20\" "
               "font-size=\"11\">half size</text><rect data-legend=\"ghost\" x=\"1\" y=\"1\" width=\"5\" "
               "height=\"5\"/></svg></body></html>\n");
    fclose(f);
    int rc = check_report(html, out, sizeof out);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -f '%s'", html);
    if (rc == 77) {
        print_message("%s", out);
        if (system(cmd) != 0) fail_msg("%s", cmd);
        skip();
    }
    if (system(cmd) != 0) fail_msg("%s", cmd);
    if (rc != 1) fail_msg("check-report.sh on a bad page: exit %d, expected 1:\n%s", rc, out);
    const char *want[] = {"check height: FAIL", "check verdict: FAIL", "check font: FAIL (font_min 5.50",
                          "check ids: FAIL", "check legend: FAIL", "check size: ok"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!strstr(out, want[k])) fail_msg("check-report.sh output lacks '%s':\n%s", want[k], out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headline_kinds),
        cmocka_unit_test(test_next_step_keeps_engine_list),
        cmocka_unit_test(test_checker_catches_defects),
        cmocka_unit_test(test_charts_match_run_json),
        cmocka_unit_test(test_sharp_margin_matches_run_json),
        cmocka_unit_test(test_incomplete_headline),
        cmocka_unit_test(test_budgets_in_browser),
        cmocka_unit_test(test_fail_on_incomplete),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
