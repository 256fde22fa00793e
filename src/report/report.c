/*
 * report.c — report.md and report.html for an audit (see report.h).
 *
 * Both files come from one walk over the sections through a tiny "doc"
 * layer (heading, paragraph, table, finding, raw SVG) that escapes for the
 * target format, so the two always say the same thing; the charts exist in
 * the HTML only (the markdown points to it and carries the numbers as
 * tables).  Charts are hand-written SVG: a log-y line chart of the
 * parameter divergence per step, and grouped bar charts (time per layer,
 * max ULP per layer).
 *
 * Not here: measuring or interpreting (audit/driver.c, explain.c).
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/every_step.h"
#include "audit/explain.h"
#include "audit/seeds.h"
#include "audit/headline.h"
#include "report/figures.h"

/* ---- escaping ---------------------------------------------------------- */

/* A byte that starts no whole UTF-8 character (a label or message cut
 * mid-character by a fixed buffer) is U+FFFD: the document stays UTF-8.
 * Returns 1 where *pp was such a byte or a whole multi-byte character,
 * written and stepped over (p left on its last byte). */
static int put_utf8(lsbuf *b, const char **pp) {
    const unsigned char *p = (const unsigned char *)*pp;
    if (*p < 0x80) return 0;
    size_t n = ls_utf8_seq_len(p);
    if (n) {
        lsbuf_put(b, *pp, n);
        *pp += n - 1;
    } else lsbuf_put(b, "\xef\xbf\xbd", 3);
    return 1;
}

void report_html_escape(lsbuf *b, const char *s) {
    for (const char *p = s ? s : ""; *p; p++) {
        if (put_utf8(b, &p)) continue;
        switch (*p) {
        case '&': lsbuf_put(b, "&amp;", 5); break;
        case '<': lsbuf_put(b, "&lt;", 4); break;
        case '>': lsbuf_put(b, "&gt;", 4); break;
        case '"': lsbuf_put(b, "&quot;", 6); break;
        case '\'': lsbuf_put(b, "&#39;", 5); break;
        default: lsbuf_put(b, p, 1);
        }
    }
}

/* Markdown (CommonMark): backslash what could start emphasis, code, links
 * or end a table cell; an entity for '<' where it could open an HTML tag
 * and for '&' where it could form an entity; newlines become spaces.  An
 * intraword '_' cannot open emphasis, so "cpu_isa_avx512" stays as is. */
static int md_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

static void md_escape(lsbuf *b, const char *s) {
    const char *p0 = s ? s : "";
    for (const char *p = p0; *p; p++) {
        char prev = p > p0 ? p[-1] : ' ', next = p[1];
        if (put_utf8(b, &p)) continue;
        switch (*p) {
        case '_':
            if (md_word(prev) && md_word(next)) lsbuf_put(b, p, 1);
            else lsbuf_put(b, "\\_", 2);
            break;
        case '\\': case '`': case '*': case '[': case ']': case '|':
            lsbuf_put(b, "\\", 1);
            lsbuf_put(b, p, 1);
            break;
        case '<':
            if (md_word(next) || next == '/' || next == '!' || next == '?') lsbuf_put(b, "&lt;", 4);
            else lsbuf_put(b, p, 1);
            break;
        case '&':
            if (md_word(next) || next == '#') lsbuf_put(b, "&amp;", 5);
            else lsbuf_put(b, p, 1);
            break;
        case '\n': case '\r': lsbuf_put(b, " ", 1); break;
        default: lsbuf_put(b, p, 1);
        }
    }
}

/* ---- the doc layer ------------------------------------------------------ */

typedef struct {
    lsbuf b;
    int html;
    int ncols; /* of the open table */
    int n_ids; /* ids given so far: a repeated one gets "-2", "-3", ... */
    char ids[256][40];
} doc;

static void esc(doc *d, const char *s) {
    if (d->html) report_html_escape(&d->b, s);
    else md_escape(&d->b, s);
}

static void raw(doc *d, const char *s) { lsbuf_put(&d->b, s, strlen(s)); }

static void rawf(doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rawf(doc *d, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        lsbuf_put(&d->b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        d->b.failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    lsbuf_put(&d->b, big, (size_t)n);
    free(big);
}

static void heading(doc *d, int level, const char *id, const char *text) {
    if (d->html) {
        int seen = 0;
        for (int i = 0; i < d->n_ids; i++) seen += strcmp(d->ids[i], id) == 0;
        if (d->n_ids < 256) snprintf(d->ids[d->n_ids++], sizeof d->ids[0], "%s", id);
        if (seen) rawf(d, "<h%d id=\"%s-%d\">", level, id, seen + 1);
        else rawf(d, "<h%d id=\"%s\">", level, id);
        esc(d, text);
        rawf(d, "</h%d>\n", level);
    } else {
        rawf(d, "\n%.*s ", level, "######");
        esc(d, text);
        raw(d, "\n\n");
    }
}

/* A paragraph of escaped text (printf-style). */
static void para(doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(doc *d, const char *fmt, ...) {
    char tmp[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    raw(d, d->html ? "<p>" : "");
    esc(d, tmp);
    raw(d, d->html ? "</p>\n" : "\n\n");
}

static void table_begin(doc *d, int ncols, const char *const *head) {
    d->ncols = ncols;
    if (d->html) {
        raw(d, "<table><thead><tr>");
        for (int i = 0; i < ncols; i++) {
            raw(d, "<th>");
            esc(d, head[i]);
            raw(d, "</th>");
        }
        raw(d, "</tr></thead><tbody>\n");
    } else {
        raw(d, "|");
        for (int i = 0; i < ncols; i++) {
            raw(d, " ");
            esc(d, head[i]);
            raw(d, " |");
        }
        raw(d, "\n|");
        for (int i = 0; i < ncols; i++) raw(d, " --- |");
        raw(d, "\n");
    }
}

static void table_row(doc *d, const char *const *cell) {
    raw(d, d->html ? "<tr>" : "|");
    for (int i = 0; i < d->ncols; i++) {
        raw(d, d->html ? "<td>" : " ");
        esc(d, cell[i] ? cell[i] : "");
        raw(d, d->html ? "</td>" : " |");
    }
    raw(d, d->html ? "</tr>\n" : "\n");
}

static void table_end(doc *d) { raw(d, d->html ? "</tbody></table>\n" : "\n"); }

/* ---- number formatting ------------------------------------------------- */

static const char *fnum(char *buf, size_t cap, double v) { return ls_fmt_num(buf, cap, v, "–"); }

static const char *dget(const char *json, const char *key, char *buf, size_t cap) {
    if (!json || explain_json_get(json, key, buf, cap) != 0 || strcmp(buf, "null") == 0) buf[0] = 0;
    return buf;
}

/* ---- SVG charts --------------------------------------------------------- */

static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                     "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define N_COLORS ((int)LS_ARRAY_LEN(COLORS))

/* Decade range [lo, hi] (powers of ten) covering the positive finite values. */
static int log_range(const double *v, size_t n, int *lo, int *hi) {
    double mn = INFINITY, mx = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            if (v[i] < mn) mn = v[i];
            if (v[i] > mx) mx = v[i];
        }
    if (mx == 0) return 0;
    *lo = (int)floor(log10(mn));
    *hi = (int)ceil(log10(mx));
    if (*hi == *lo) (*hi)++;
    return 1;
}

/* Legend entries only for series with something drawn (has[k]); each
 * entry names its series (data-legend) as the drawn marks do (data-series),
 * so a checker can tell an entry without a series. */
static void svg_legend(doc *d, int x, int y, const char *const *names, int n, const int *has) {
    for (int i = 0, row = 0; i < n; i++) {
        if (has && !has[i]) continue;
        int yy = y + 18 * row++;
        rawf(d, "<rect data-legend=\"s%d\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", i, x, yy - 10,
             COLORS[i % N_COLORS]);
        rawf(d, "<text x=\"%d\" y=\"%d\">", x + 18, yy);
        esc(d, names[i]);
        raw(d, "</text>\n");
    }
}

/* Charts are at most CHART_W px wide: drawn at their size (scale 1) in the
 * report's 1200 px column, so 12 px text renders at 12 px. */
#define CHART_W 1100
#define LINE_MAX_POINTS 300 /* per series: a chart 800 px wide shows no more */

/* Line chart, log y: series k has y[k][i] at step i + 1 (NAN: no point; 0:
 * drawn on a separate "0" row under the axis; +inf, an exact check failed:
 * on an "inf" row above it, so that the engine that failed is drawn, not
 * left out).  One <polyline> per run of consecutive points, thinned to at
 * most 2 LINE_MAX_POINTS per series, each block's smallest and largest
 * (every value is in run.json). */
static void svg_line_log(doc *d, const char *title, const char *ylabel, int ns, const char *const *names,
                         double *const *y, long n) {
    const int W = 900, left = 70, right = 250, top = 30, PH = 260, bottom = 60;
    const int H = top + PH + bottom, PW = W - left - right;
    int lo = 0, hi = 1, any = 0, any_inf = 0, has[FIG_MAX_SERIES] = {0};
    for (int k = 0; k < ns && k < FIG_MAX_SERIES; k++) {
        int a, b;
        if (log_range(y[k], (size_t)n, &a, &b)) {
            if (!any || a < lo) lo = a;
            if (!any || b > hi) hi = b;
            any = 1;
        }
        for (long i = 0; i < n; i++) {
            has[k] |= !isnan(y[k][i]) && y[k][i] >= 0;
            any_inf |= isinf(y[k][i]) && y[k][i] > 0;
        }
    }
    rawf(d, "<figure><svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
            "aria-label=\"line chart\">", W, H, W, H);
    raw(d, "<title>");
    esc(d, title);
    raw(d, "</title>\n");
    rawf(d, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"plot\"/>\n", left, top, PW, PH);
    double xmax = n > 1 ? (double)n : 2;
#define XP(step) (left + (double)PW * ((step) - 1) / (xmax - 1))
#define YP(v) (top + PH - (double)PH * (log10(v) - lo) / (hi - lo))
    const double yzero = top + PH + 14, yinf = top - 14;
    int de = (hi - lo + 7) / 8;
    for (int e = lo; e <= hi; e += de) {
        double yy = YP(pow(10, e));
        rawf(d, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", left, left + PW, yy, yy);
        rawf(d, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", left - 6, yy + 4, e);
    }
    rawf(d, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">0</text>\n", left - 6, yzero + 4);
    if (any_inf) rawf(d, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">inf</text>\n", left - 6, yinf + 4);
    long stepx = n > 8 ? (n + 7) / 8 : 1;
    for (long s = 1; s <= n; s += stepx)
        rawf(d, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%ld</text>\n", XP(s), yzero + 22, s);
    rawf(d, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step</text>", left + PW / 2, H - 8);
    rawf(d, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">", top + PH / 2,
         top + PH / 2);
    esc(d, ylabel);
    raw(d, "</text>\n");
    long stride = n > LINE_MAX_POINTS ? (n + LINE_MAX_POINTS - 1) / LINE_MAX_POINTS : 1;
    for (int k = 0; k < ns; k++) {
        if (k < FIG_MAX_SERIES && !has[k]) continue;
        const char *col = COLORS[k % N_COLORS];
        int open = 0;
        /* per block of `stride` steps, each run of drawable points gives its
         * smallest and largest (in step order): thinning keeps every spike */
        for (long b0 = 0; b0 < n; b0 += stride) {
            long b1 = b0 + stride < n ? b0 + stride : n;
            for (long i = b0; i < b1;) {
                if (isnan(y[k][i]) || y[k][i] < 0) {
                    if (open) raw(d, "\"/>");
                    open = 0;
                    i++;
                    continue;
                }
                long j = i, imin = i, imax = i;
                for (; j < b1 && !(isnan(y[k][j]) || y[k][j] < 0); j++) {
                    if (y[k][j] < y[k][imin]) imin = j;
                    if (y[k][j] > y[k][imax]) imax = j;
                }
                long pt[2] = {imin < imax ? imin : imax, imin < imax ? imax : imin};
                double yc[2];
                for (int q = 0; q < 2; q++) {
                    double v = y[k][pt[q]];
                    yc[q] = isinf(v) ? yinf : v > 0 && any ? YP(v) : yzero;
                }
                /* both within a pixel of each other: one point, the block's
                 * largest (a smooth curve's blocks, most of them: the file
                 * stays within its size budget; a spike is many pixels) */
                int two = pt[0] != pt[1] && fabs(yc[0] - yc[1]) >= 1.0;
                if (!two) {
                    if (pt[1] == imax) yc[0] = yc[1];
                    pt[0] = imax;
                }
                if (!open)
                    rawf(d, "<polyline data-series=\"s%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                            "points=\"", k, col);
                open = 1;
                for (int q = 0; q < (two ? 2 : 1); q++) rawf(d, "%.1f,%.1f ", XP(pt[q] + 1), yc[q]);
                i = j;
            }
        }
        if (open) raw(d, "\"/>");
        raw(d, "\n");
    }
#undef XP
#undef YP
    svg_legend(d, left + PW + 16, top + 12, names, ns, has);
    raw(d, "</svg><figcaption>");
    esc(d, title);
    raw(d, "</figcaption></figure>\n");
}

/* Grouped bars of a figure: category c, series k, value fig_get(f, k, c)
 * (NAN: none), its tooltip "series · category: value" printed with the
 * figure's format, the same text as its table cell.  log_y: decades,
 * zeros drawn as a dot on the baseline. */
static void svg_bars(doc *d, const char *title, const char *ylabel, const figure *f, int log_y) {
    const int left = 70, right = 250, top = 30, PH = 240, bottom = 80;
    int nc = f->nc, ns = f->ns;
    if (nc < 1 || ns < 1) return;
    int PW = nc * (ns * 12 + 14);
    if (PW < 400) PW = 400;
    if (PW > CHART_W - left - right) PW = CHART_W - left - right;
    int W = left + PW + right, H = top + PH + bottom;
    double vmax = 0;
    int lo = 0, hi = 1, any = log_y ? log_range(f->v, (size_t)(nc * ns), &lo, &hi) : 0, has[FIG_MAX_SERIES] = {0};
    for (int k = 0; k < ns; k++)
        for (int c = 0; c < nc; c++) {
            double v = fig_get(f, k, c);
            if (isfinite(v) && v > vmax) vmax = v;
            has[k] |= isfinite(v) && v >= 0;
        }
    if (!log_y) {
        double p = vmax > 0 ? pow(10, floor(log10(vmax))) : 1;
        vmax = vmax <= p ? p : vmax <= 2 * p ? 2 * p : vmax <= 5 * p ? 5 * p : 10 * p;
    }
    rawf(d, "<figure><svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
            "aria-label=\"bar chart\">", W, H, W, H);
    raw(d, "<title>");
    esc(d, title);
    raw(d, "</title>\n");
    rawf(d, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"plot\"/>\n", left, top, PW, PH);
    char b1[48];
    if (log_y && any) {
        int de = (hi - lo + 7) / 8;
        for (int e = lo; e <= hi; e += de) {
            double yy = top + PH - (double)PH * (e - lo) / (hi - lo);
            rawf(d, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", left, left + PW, yy, yy);
            rawf(d, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", left - 6, yy + 4, e);
        }
    } else if (!log_y) {
        for (int t = 0; t <= 4; t++) {
            double val = vmax * t / 4, yy = top + PH - (double)PH * t / 4;
            rawf(d, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", left, left + PW, yy, yy);
            rawf(d, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left - 6, yy + 4,
                 fnum(b1, sizeof b1, val));
        }
    }
    rawf(d, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">", top + PH / 2,
         top + PH / 2);
    esc(d, ylabel);
    raw(d, "</text>\n");
    double gw = (double)PW / nc, bw = (gw - 10) / ns;
    for (int c = 0; c < nc; c++) {
        double gx = left + gw * c + 5;
        rawf(d, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-35 %.1f %d)\">", gx + gw / 2,
             top + PH + 16, gx + gw / 2, top + PH + 16);
        esc(d, f->cats[c]);
        raw(d, "</text>\n");
        for (int k = 0; k < ns; k++) {
            double val = fig_get(f, k, c);
            if (!isfinite(val) || val < 0) continue;
            double h;
            if (log_y) h = val > 0 && any ? (double)PH * (log10(val) - lo) / (hi - lo) : 0;
            else h = vmax > 0 ? (double)PH * val / vmax : 0;
            if (h < 0) h = 0;
            double x = gx + bw * k;
            if (h > 0)
                rawf(d, "<rect data-series=\"s%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                        "<title>", k, x, top + PH - h, bw > 1 ? bw - 1 : bw, h, COLORS[k % N_COLORS]);
            else
                rawf(d, "<circle data-series=\"s%d\" cx=\"%.1f\" cy=\"%d\" r=\"2.5\" fill=\"%s\"><title>", k,
                     x + bw / 2, top + PH - 3, COLORS[k % N_COLORS]);
            esc(d, f->series[k]);
            raw(d, " · ");
            esc(d, f->cats[c]);
            raw(d, ": ");
            esc(d, fig_cell(f, k, c, b1, sizeof b1));
            raw(d, h > 0 ? "</title></rect>\n" : "</title></circle>\n");
        }
    }
    const char *names[FIG_MAX_SERIES];
    for (int k = 0; k < ns; k++) names[k] = f->series[k];
    svg_legend(d, left + PW + 16, top + 12, names, ns, has);
    raw(d, "</svg><figcaption>");
    esc(d, title);
    raw(d, "</figcaption></figure>\n");
}

/* ---- sections ------------------------------------------------------------ */

typedef struct {
    const audit_cfg *c;
    const model *m;
    const dataset *ds;
    const audit_result *r;
    const explain_list *L;
} ctx;

static const char *engine_kind(const audit_engine *ae, char *buf, size_t cap) {
    engine_spec sp;
    if (engine_spec_parse(&sp, ae->spec) == 0) snprintf(buf, cap, "%s", sp.name);
    else snprintf(buf, cap, "?");
    return buf;
}

static void sec_header(doc *d, const ctx *x) {
    const audit_cfg *c = x->c;
    const audit_result *r = x->r;
    if (d->html) {
        raw(d, "<h1>lockstep audit report</h1>\n");
    } else {
        raw(d, "# lockstep audit report\n\n");
    }
    para(d, "Model %s, mode %s, %d epoch(s) run, batch %zu, seed %llu, %ld steps. Engines: %s.", x->m->name,
         lockstep_mode_name(c->mode), r->epochs_done, c->run.batch, (unsigned long long)c->run.seed, r->total_steps,
         c->engines);
    /* a partial run says so before anything else is read */
    if (r->interrupted && r->interrupted_seeds)
        para(d, "INTERRUPTED by signal %d in the seed loop: the main run below is whole (%ld of %ld steps); the seed "
             "loop's results are not in this report.", r->interrupted, r->interrupted_step, r->total_steps);
    else if (r->interrupted && r->interrupted_step == 0)
        para(d, "INTERRUPTED by signal %d before drift step 1 of %ld: no drift step ran; everything below covers the "
             "%ld attribution step(s) only.", r->interrupted, r->total_steps, r->attribution_steps);
    else if (r->interrupted)
        para(d, "INTERRUPTED by signal %d after step %ld of %ld: everything below covers steps 1..%ld only.",
             r->interrupted, r->interrupted_step, r->total_steps, r->interrupted_step);
    for (int i = 0; i < r->n_engines; i++)
        if (r->eng[i].failed) {
            para(d, "Engine %s FAILED: %s; it is left out from then on.", r->eng[i].label, r->eng[i].fail_reason);
        }
    if (r->abandoned_step > 0)
        para(d, "Step %ld was abandoned for every engine: the others skipped its batch (or only some applied its "
             "update), so from there on they are not the run an undisturbed audit makes.", r->abandoned_step);
    if (d->html)
        raw(d, "<p class=\"toc\"><a href=\"#env\">Environment</a> · <a href=\"#verdicts\">Verdicts</a> · "
               "<a href=\"#evidence\">Evidence</a></p>\n");
    else
        raw(d, "Charts are in report.html; every number shown in them is also in the tables below and in "
               "run.json.\n\n");
}

/* The environment table's cells for one engine, from its description
 * (JSON written by the engine's describe): one helper per kind of engine. */
typedef struct {
    char lib[160], isa[160], threads[96], math[160], algos[200];
} env_cells;

static void env_cells_cpu(env_cells *e, const char *js) {
    char v1[64], v2[64], v3[64];
    snprintf(e->lib, sizeof e->lib, "%s %s (%s)", dget(js, "library", v1, sizeof v1),
             dget(js, "version", v2, sizeof v2), dget(js, "cpu_runtime", v3, sizeof v3));
    snprintf(e->isa, sizeof e->isa, "%s", dget(js, "isa", v1, sizeof v1));
    snprintf(e->threads, sizeof e->threads, "%s", dget(js, "threads", v1, sizeof v1));
    snprintf(e->math, sizeof e->math, "fpmath %s; exp/log %s", dget(js, "fpmath", v1, sizeof v1),
             dget(js, "math", v2, sizeof v2));
    dget(js, "algo_requested", v3, sizeof v3); /* before the call: argument order is unspecified */
    snprintf(e->algos, sizeof e->algos, "conv %s%s%s%s; layout %s", dget(js, "algo", v1, sizeof v1),
             v3[0] ? " (" : "", v3, v3[0] ? " asked for: unimplemented here)" : "", dget(js, "layout", v2, sizeof v2));
}

static void env_cells_cuda(env_cells *e, const char *js) {
    char v1[64], v2[64], v3[64], v4[64];
    snprintf(e->lib, sizeof e->lib, "cuDNN %s, cuBLAS %s, runtime %s, driver %s",
             dget(js, "cudnn_version", v1, sizeof v1), dget(js, "cublas_version", v2, sizeof v2),
             dget(js, "runtime_version", v3, sizeof v3), dget(js, "driver_version", v4, sizeof v4));
    /* the device is a nested object */
    char dn[96] = "", cc[16] = "";
    const char *dev = strstr(js, "\"device\":{");
    if (dev) {
        dget(dev + 9, "name", dn, sizeof dn);
        dget(dev + 9, "compute_capability", cc, sizeof cc);
    }
    snprintf(e->isa, sizeof e->isa, "%s (cc %s)", dn, cc);
    snprintf(e->threads, sizeof e->threads, "–");
    snprintf(e->math, sizeof e->math, "%s (cuBLAS %s); exp %s", dget(js, "math", v1, sizeof v1),
             dget(js, "cublas_math", v2, sizeof v2), dget(js, "expm", v3, sizeof v3));
    snprintf(e->algos, sizeof e->algos, "policy %s; conv %s; pool %s", dget(js, "algo_policy", v1, sizeof v1),
             dget(js, "conv_algos", v2, sizeof v2), dget(js, "pool_mode", v3, sizeof v3));
}

static void env_cells_reference(env_cells *e, const char *js) {
    char v1[64], v2[64];
    snprintf(e->lib, sizeof e->lib, "MPFR %s, GMP %s", dget(js, "mpfr", v1, sizeof v1),
             dget(js, "gmp", v2, sizeof v2));
    snprintf(e->isa, sizeof e->isa, "host");
    snprintf(e->threads, sizeof e->threads, "%s", dget(js, "threads", v1, sizeof v1));
    snprintf(e->math, sizeof e->math, "%s, %s bits", dget(js, "mode", v1, sizeof v1),
             dget(js, "prec_bits", v2, sizeof v2));
    snprintf(e->algos, sizeof e->algos, "exact dot products; max-pool ties: %s",
             dget(js, "maxpool_ties", v1, sizeof v1));
}

/* one row of the environment table */
static void env_engine_row(doc *d, const audit_engine *ae) {
    char k[32];
    env_cells e;
    const char *js = ae->describe;
    engine_kind(ae, k, sizeof k);
    e.lib[0] = e.isa[0] = e.threads[0] = e.math[0] = e.algos[0] = 0;
    char status[600];
    if (!ae->available) snprintf(status, sizeof status, "skipped: %s", ae->skip_reason);
    else if (ae->failed) snprintf(status, sizeof status, "FAILED: %s", ae->fail_reason);
    else if (ae->is_ref) snprintf(status, sizeof status, "ran %ld steps", ae->steps_run);
    else snprintf(status, sizeof status, "ran %ld steps", ae->steps_run);
    if (ae->available && js) {
        if (strcmp(k, "cpu") == 0) env_cells_cpu(&e, js);
        else if (strcmp(k, "cuda") == 0) env_cells_cuda(&e, js);
        else if (strcmp(k, "reference") == 0 || strcmp(k, "ref") == 0) env_cells_reference(&e, js);
    }
    const char *cells[] = {ae->label, k, status, e.lib, e.isa, e.threads, e.math, e.algos};
    table_row(d, cells);
}

/* kernels per layer, for the engines that report them */
static void env_kernels(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    const model *m = x->m;
    int cols[AUDIT_MAX_ENGINES], nk = 0;
    for (int i = 0; i < r->n_engines; i++) {
        const char *js = r->eng[i].available ? r->eng[i].describe : NULL;
        if (js && (strstr(js, "\"layers\"") || strstr(js, "\"plans\""))) cols[nk++] = i;
    }
    if (nk > 0) {
        heading(d, 3, "kernels", "Kernels per layer (from each engine's description)");
        const char *head[AUDIT_MAX_ENGINES + 1];
        head[0] = "Layer";
        for (int j = 0; j < nk; j++) head[j + 1] = r->eng[cols[j]].label;
        table_begin(d, nk + 1, head);
        static char cellbuf[AUDIT_MAX_ENGINES][400];
        for (int l = 0; l < m->n_layers; l++) {
            const char *cells[AUDIT_MAX_ENGINES + 1];
            int anyk = 0;
            cells[0] = m->layers[l].name;
            for (int j = 0; j < nk; j++) {
                char *cb = cellbuf[j];
                cb[0] = 0;
                if (explain_layer_kernels(r->eng[cols[j]].describe, m->layers[l].name, cb, sizeof cellbuf[j]) > 0)
                    anyk = 1;
            }
            for (int j = 0; j < nk; j++) cells[j + 1] = cellbuf[j];
            if (anyk) table_row(d, cells);
        }
        table_end(d);
    }
}

/* build, model, data and run settings: what a rerun needs */
static void env_build(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    const model *m = x->m;
    const audit_cfg *c = x->c;
    heading(d, 3, "build", "Build, model, data and run settings");
    static const char *const H2[] = {"Item", "Value"};
    table_begin(d, 2, H2);
    char v[1200];
    const char *row[2];
#define ROW(name, ...)                          \
    do {                                        \
        snprintf(v, sizeof v, __VA_ARGS__);     \
        row[0] = name;                          \
        row[1] = v;                             \
        table_row(d, row);                      \
    } while (0)
    ROW("compiler", "gcc %s", __VERSION__);
#ifdef LS_BUILD_CFLAGS
    ROW("flags (numerics)", "%s", LS_BUILD_CFLAGS);
#else
    ROW("flags (numerics)", "not passed by the build");
#endif
#ifdef __FAST_MATH__
    ROW("fast-math", "ON (this build is not numerically honest)");
#else
    ROW("fast-math", "off (checked at compile time: __FAST_MATH__ is not defined)");
#endif
#ifdef __OPTIMIZE__
    ROW("optimization", "on");
#else
    ROW("optimization", "off");
#endif
    ROW("model", "%s, %zu parameters", m->name, m->n_params);
    ROW("model spec", "%s", m->spec);
    if (x->ds) {
        const dataset *ds = x->ds;
        ROW("data", "%s", ds->dir[0] ? ds->dir : c->run.data_dir ? c->run.data_dir : "");
        ROW("data crc32", "train images %08x, train labels %08x, test images %08x, test labels %08x",
            ds->train.images_crc, ds->train.labels_crc, ds->test.images_crc, ds->test.labels_crc);
        size_t ntr = c->run.limit_train && c->run.limit_train < ds->train.n ? c->run.limit_train : ds->train.n;
        size_t nte = c->run.limit_test && c->run.limit_test < ds->test.n ? c->run.limit_test : ds->test.n;
        ROW("images used", "%zu training, %zu test", ntr, nte);
    } else {
        ROW("data", "%s (provenance not recorded)", c->run.data_dir ? c->run.data_dir : "");
    }
    ROW("mode", "%s", lockstep_mode_name(c->mode));
    ROW("seed, batch, epochs", "%llu, %zu, %d (%d run)", (unsigned long long)c->run.seed, c->run.batch,
        c->run.epochs, r->epochs_done);
    ROW("optimizer", "Adam lr %g, betas %g/%g, eps %g", c->run.adam.lr, c->run.adam.beta1, c->run.adam.beta2,
        c->run.adam.eps);
    if (c->ref_steps > 0)
        ROW("audit plan", "reference steps 1..%ld, then a shadow step every %ld; full comparison at those steps; "
            "parameters compared after every step; repeat %d, evaluation %s", c->ref_steps, c->audit_every,
            c->repeat, c->eval ? "on" : "off");
    else
        ROW("audit plan", "reference: %ld attribution step(s), then a shadow step every %ld; every tensor compared "
            "at those steps, parameters after every step; repeat %d, evaluation %s", r->attribution_steps,
            c->audit_every, c->repeat, c->eval ? "on" : "off");
    {
        /* threads and the OpenMP wait policy: they change the timing (not a
         * value); lockstep sets OMP_WAIT_POLICY itself unless the user did */
        const char *wp = getenv("OMP_WAIT_POLICY"), *nt = getenv("OMP_NUM_THREADS");
        ROW("threads", "OMP_WAIT_POLICY=%s (lockstep sets passive when two or more multi-threaded engines share "
            "the cores, active otherwise, unless you set it); OMP_NUM_THREADS=%s; each engine's own thread "
            "count is in the engine table above", wp ? wp : "(unset)", nt ? nt : "(unset)");
    }
#undef ROW
    table_end(d);
}

static void sec_environment(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    heading(d, 2, "env", "Environment");
    static const char *const H[] = {"Engine", "Kind", "Status", "Library versions", "ISA / device", "Threads",
                                    "Math", "Algorithms"};
    table_begin(d, 8, H);
    for (int i = 0; i < r->n_engines; i++) env_engine_row(d, &r->eng[i]);
    table_end(d);
    env_kernels(d, x);
    env_build(d, x);
}

static void finding_block(doc *d, const explain_finding *f) {
    static const char *const SEV[] = {"problem", "suspect", "cause", "ok", "info"};
    static const char *const SEVT[] = {"PROBLEM", "SUSPECT", "CAUSE", "OK", "INFO"};
    const char *lab[] = {"Where", "Cause", "Evidence", "Fix"};
    char where[200];
    snprintf(where, sizeof where, "%s%s%s", f->tensor, f->tensor[0] && f->layer[0] ? ", computed by " : "",
             f->layer);
    const char *val[] = {where, f->cause, f->evidence, f->fix};
    if (d->html) {
        rawf(d, "<div class=\"finding %s\"><div class=\"ft\"><span class=\"tag\">%s</span> ", SEV[f->severity],
             SEVT[f->severity]);
        esc(d, f->title);
        raw(d, "</div><dl>");
        for (int i = 0; i < 4; i++) {
            if (!val[i][0]) continue;
            rawf(d, "<dt>%s</dt><dd>", lab[i]);
            esc(d, val[i]);
            raw(d, "</dd>");
        }
        raw(d, "</dl></div>\n");
    } else {
        rawf(d, "- **%s** — ", SEVT[f->severity]);
        esc(d, f->title);
        raw(d, "\n");
        for (int i = 0; i < 4; i++) {
            if (!val[i][0]) continue;
            rawf(d, "  - *%s:* ", lab[i]);
            esc(d, val[i]);
            raw(d, "\n");
        }
    }
}

/* ---- is the gap real? (the seed loop, McNemar, margins, the noise band) ---- */

static const char *pct_pt(char *buf, size_t cap, double frac) {
    snprintf(buf, cap, "%.2f", 100 * frac);
    return buf;
}

/* Without a seed loop: per fp32 pair of this run, the gap after epoch ep
 * and its exact McNemar p-value, and the note that the spread was not measured. */
static void gap_single_seed(doc *d, const audit_result *r, int ep) {
    char b1[32], b2[32];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
        if (ea->is_ref || eb->is_ref || eb->repeat_of >= 0 || ea->repeat_of >= 0) continue;
        const stats_mcnemar *mc = &p->mcnemar[ep];
        if (isnan(ea->test_acc[ep]) || isnan(eb->test_acc[ep])) { /* an engine failed before this evaluation */
            para(d, "%s vs %s after epoch %d: not compared (%s failed before it was evaluated).", ea->label,
                 eb->label, ep + 1, isnan(ea->test_acc[ep]) ? ea->label : eb->label);
            continue;
        }
        para(d, "%s vs %s after epoch %d: %s%% vs %s%% (%+.2f points); %ld images classified differently (b = %ld "
                "right only on %s, c = %ld right only on %s), exact McNemar p = %.3g. One seed only: the spread "
                "over seeds was not measured (audit --seeds N).",
             ea->label, eb->label, ep + 1, pct_pt(b1, sizeof b1, ea->test_acc[ep]),
             pct_pt(b2, sizeof b2, eb->test_acc[ep]), 100 * (ea->test_acc[ep] - eb->test_acc[ep]), p->disagree[ep],
             mc->b, ea->label, mc->c, eb->label, mc->p);
    }
}

/* The answer in words, per judged pair of the seed loop: the gap, its exact
 * p-value, the spread over seeds, the near-tie flips, the verdict. */
static void gap_summary(doc *d, const seeds_result *S) {
    char b1[32], b2[32], b3[32];
    int last = S->epochs - 1, N = S->n_seeds;
    for (int pi = 0; pi < S->n_pairs; pi++) {
        const seeds_pair *p = &S->pair[pi];
        if (p->floor_pair) continue;
        const seeds_engine *ea = &S->eng[p->a], *eb = &S->eng[p->b];
        const stats_mcnemar *m0 = &p->mcnemar[0][last];
        const stats_paired *pd = &p->paired[last];
        para(d, "%s. At seed %llu after epoch %d: %s %s%%, %s %s%%; %ld images classified differently (b = %ld, "
                "c = %ld), exact McNemar p = %.3g. Over %d seeds the paired gap is %+.2f ± %.2f points (95%% t-interval; "
                "accuracy sd over seeds %s points); %ld of %ld flipped images sit at near-tie margins (rank below %.0f%% "
                "of all images' margins); the noise floor (%s moved 1 ulp, %d draws) flips %.1f images on average, at "
                "most %.0f, and this pair's flips lie within it in %d of %d seeds.",
             p->verdict, (unsigned long long)S->seed0, last + 1, ea->label, pct_pt(b1, sizeof b1, ea->acc[0][last]),
             eb->label, pct_pt(b2, sizeof b2, eb->acc[0][last]), p->flips[0][last], m0->b, m0->c, m0->p, N,
             100 * pd->mean, 100 * pd->half_width, pct_pt(b3, sizeof b3, ea->spread[last].sd), p->near_tie_flips,
             p->total_flips, 100 * SEEDS_NEAR_TIE_RANK, S->floor_engine, S->n_draws, S->floor_flips.mean,
             S->floor_flips.max, p->flips_within, N);
    }
}

/* accuracy per seed per engine: the table and the chart read one figure */
static void gap_accuracy_per_seed(doc *d, const seeds_result *S) {
    char b1[32], b2[32], b3[32], b4[32];
    int last = S->epochs - 1;
    heading(d, 3, "seeds", "Test accuracy per seed (%)");
    para(d, "Coverage: %s; the other seeds' runs are drift only: their steps are unchecked (no every-step "
            "checksums, no reference), so their accuracies are as trusted as the engines the checked run covers.",
         S->seed0_from_audit ? "the first seed is this audit's run, checked as the verdict says" : "no seed is this audit's run");
    static figure f;
    fig_seed_accuracy(&f, S);
    const char *head[2 + FIG_MAX_CATS];
    head[0] = "Engine";
    for (int c = 0; c < f.nc; c++) head[1 + c] = f.cats[c];
    head[1 + f.nc] = "mean ± sd [min, max]";
    table_begin(d, f.nc + 2, head);
    static char cb[FIG_MAX_CATS + 1][160];
    for (int k = 0, i = 0; k < f.ns; k++, i++) {
        while (i < S->n_engines && !S->eng[i].available) i++;
        const char *cells[2 + FIG_MAX_CATS];
        cells[0] = f.series[k];
        for (int c = 0; c < f.nc; c++) cells[1 + c] = fig_cell(&f, k, c, cb[c], sizeof cb[c]);
        const stats_spread *sp = &S->eng[i].spread[last];
        snprintf(cb[f.nc], sizeof cb[f.nc], "%s ± %s [%s, %s]", pct_pt(b1, sizeof b1, sp->mean),
                 pct_pt(b2, sizeof b2, sp->sd), pct_pt(b3, sizeof b3, sp->min), pct_pt(b4, sizeof b4, sp->max));
        cells[1 + f.nc] = cb[f.nc];
        table_row(d, cells);
    }
    table_end(d);
    if (d->html) svg_bars(d, "Test accuracy per seed and engine (%), last epoch", "accuracy %", &f, 0);
}

/* McNemar per seed, and margins of flipped vs all images */
static void gap_mcnemar(doc *d, const seeds_result *S) {
    char b1[32], b2[32];
    int last = S->epochs - 1, N = S->n_seeds;
    heading(d, 3, "mcnemar", "Exact McNemar per seed, and the margins of the flipped images");
    static const char *const H[] = {"Pair", "Seed", "Flips", "b (a right)", "c (b right)", "exact p",
                                    "flipped: median margin (a)", "all: median margin (a)"};
    table_begin(d, 8, H);
    for (int pi = 0; pi < S->n_pairs; pi++) {
        const seeds_pair *p = &S->pair[pi];
        if (p->floor_pair) continue;
        char nm[AUDIT_PAIR_NAME_BYTES], c1[24], c2[24], c3[24], c4[24], c5[24], c6[64], c7[64];
        snprintf(nm, sizeof nm, "%s vs %s", S->eng[p->a].label, S->eng[p->b].label);
        for (int sd = 0; sd < N; sd++) {
            const stats_mcnemar *mc = &p->mcnemar[sd][last];
            snprintf(c1, sizeof c1, "%llu", (unsigned long long)(S->seed0 + (uint64_t)sd));
            snprintf(c2, sizeof c2, "%ld", p->flips[sd][last]);
            snprintf(c3, sizeof c3, "%ld", mc->b);
            snprintf(c4, sizeof c4, "%ld", mc->c);
            snprintf(c5, sizeof c5, "%.3g", mc->p);
            snprintf(c6, sizeof c6, "%s", sd == 0 ? fnum(b1, sizeof b1, p->margin_flip_a.median) : "(pooled above)");
            snprintf(c7, sizeof c7, "%s", sd == 0 ? fnum(b2, sizeof b2, p->margin_all_a.median) : "");
            const char *cells[] = {sd == 0 ? nm : "", c1, c2, c3, c4, c5, c6, c7};
            table_row(d, cells);
        }
    }
    table_end(d);
}

/* histogram of logit margins on engine a, last epoch, pooled over
 * seeds: the images the pair classifies differently vs all images
 * (seeds_margin_histogram: the numbers run.json also holds).  A flip at
 * margin 1e-4 is rounding meeting a near-tie; at 3 it is not. */
static void gap_margins(doc *d, const seeds_result *S) {
    heading(d, 3, "margins", "Margins of flipped images vs all images");
    const char *HM[2 + SEEDS_MARGIN_BINS] = {"Pair", "Images"};
    for (int k = 0; k < SEEDS_MARGIN_BINS; k++) HM[2 + k] = SEEDS_MARGIN_LABELS[k];
    table_begin(d, 2 + SEEDS_MARGIN_BINS, HM);
    static figure f, fc;
    int charted = 0;
    char t[300] = "";
    for (int pi = 0; pi < S->n_pairs; pi++) {
        const seeds_pair *p = &S->pair[pi];
        if (p->floor_pair) continue;
        const seeds_engine *ea = &S->eng[p->a], *eb = &S->eng[p->b];
        seeds_margin_bins mb;
        if (seeds_margin_histogram(S, pi, &mb)) continue;
        /* the figure first: the table rows print its cells */
        memset(&f, 0, sizeof f);
        f.fmt = "%.1f";
        f.ns = 2;
        f.nc = SEEDS_MARGIN_BINS;
        snprintf(f.series[0], sizeof f.series[0], "flipped images");
        snprintf(f.series[1], sizeof f.series[1], "all images");
        for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
            snprintf(f.cats[k], sizeof f.cats[k], "%s", SEEDS_MARGIN_LABELS[k]);
            *fig_at(&f, 0, k) = mb.flipped_pct[k];
            *fig_at(&f, 1, k) = mb.all_pct[k];
        }
        char nm[2][AUDIT_PAIR_NAME_BYTES + 16], cnt[2][32], cells[2][SEEDS_MARGIN_BINS][32];
        snprintf(nm[0], sizeof nm[0], "%s vs %s: flipped", ea->label, eb->label);
        snprintf(nm[1], sizeof nm[1], "%s: all images", ea->label);
        snprintf(cnt[0], sizeof cnt[0], "%ld", mb.n_flipped);
        snprintf(cnt[1], sizeof cnt[1], "%ld", mb.n_all);
        for (int row = 0; row < 2; row++) {
            const char *r_[2 + SEEDS_MARGIN_BINS] = {nm[row], cnt[row]};
            for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
                /* no image to share out: "–", not 0.0% in every bin (shares that add up to 0) */
                if (row == 0 && mb.n_flipped == 0) snprintf(cells[row][k], sizeof cells[row][k], "–");
                else {
                    fig_cell(&f, row, k, cells[row][k], sizeof cells[row][k] - 1);
                    strcat(cells[row][k], "%");
                }
                r_[2 + k] = cells[row][k];
            }
            table_row(d, r_);
        }
        if (!charted && mb.n_flipped > 0) {
            snprintf(t, sizeof t, "Top-two logit margin on %s, last epoch, all seeds: flipped (vs %s) and all "
                                  "images (%%)", ea->label, eb->label);
            charted = 1;
            fc = f; /* the chart shows the first judged pair's figure */
        }
    }
    table_end(d);
    if (d->html && charted) svg_bars(d, t, "% of images", &fc, 0);
}

/* divergence growth against the noise band (seed s0) */
static void gap_band(doc *d, const seeds_result *S) {
    char b1[32];
    int N = S->n_seeds;
    heading(d, 3, "band", "Divergence growth against the noise band");
    if (S->band_hi && S->total_steps > 0) {
        static const char *const HB[] = {"Pair", "e-fold: steps to grow x2.72 (median over seeds; fit quality)",
                                         "Leaves the noise band (factor 2)"};
        table_begin(d, 3, HB);
        const char *names[AUDIT_MAX_PAIRS + 2];
        double *ys[AUDIT_MAX_PAIRS + 2];
        static char nb[AUDIT_MAX_PAIRS][AUDIT_PAIR_NAME_BYTES];
        int ns = 0;
        names[ns] = "noise band (max)";
        ys[ns++] = S->band_hi;
        names[ns] = "noise band (min)";
        ys[ns++] = S->band_lo;
        for (int pi = 0; pi < S->n_pairs; pi++) {
            const seeds_pair *p = &S->pair[pi];
            if (p->floor_pair || !p->rel_l2[0]) continue;
            snprintf(nb[pi], sizeof nb[pi], "%s vs %s", S->eng[p->a].label, S->eng[p->b].label);
            names[ns] = nb[pi];
            ys[ns++] = p->rel_l2[0];
            char c1[64], c2[96];
            /* the fitted rate with its fit quality: mean r² of the per-seed log-linear fits */
            double r2 = 0;
            int nr = 0;
            for (int sd = 0; sd < N; sd++)
                if (!isnan(p->growth[sd].r2)) r2 += p->growth[sd].r2, nr++;
            char b2[32];
            if (p->rate_median > 0)
                snprintf(c1, sizeof c1, "%s (fit r² %s)", fnum(b1, sizeof b1, 1 / p->rate_median),
                         nr ? fnum(b2, sizeof b2, r2 / nr) : "–");
            else snprintf(c1, sizeof c1, "no growth");
            int n_exit = 0;
            long first = 0;
            for (int sd = 0; sd < N; sd++)
                if (p->band_exit[sd] > 0) {
                    n_exit++;
                    if (!first || p->band_exit[sd] < first) first = p->band_exit[sd];
                }
            if (n_exit) snprintf(c2, sizeof c2, "from step %ld in %d of %d seeds", first, n_exit, N);
            else snprintf(c2, sizeof c2, "never");
            const char *cells[] = {nb[pi], c1, c2};
            table_row(d, cells);
        }
        table_end(d);
        if (d->html)
            svg_line_log(d, "Parameters: relative L2 distance per step, seed s0, against the noise band",
                         "rel. L2", ns, names, ys, S->total_steps);
    } else {
        para(d, "No noise band (no perturbed engine ran).");
    }
}

/* Is the gap real: the answer in words first (per pair of the seed loop or,
 * without one, per fp32 pair of this run), then the evidence per seed. */
static void sec_gap(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    const seeds_result *S = r->seeds;
    heading(d, 2, "gap", "Is the gap real?");
    int ep = r->epochs_done - 1;
    if (ep < 0 || r->drift_mode != MODE_FREE) {
        para(d, "Not measured: no epoch was evaluated in free mode.");
        return;
    }
    if (!S) {
        gap_single_seed(d, r, ep);
        return;
    }
    gap_summary(d, S);
    gap_accuracy_per_seed(d, S);
    gap_mcnemar(d, S);
    gap_margins(d, S);
    gap_band(d, S);
}

/* The first screen: the verdict line, engines not run and the way out,
 * then in three sentences what was compared, what was found, what to
 * change (the first problem's or cause's fix). */
static void verdict_box(doc *d, const ctx *x, const verdict_table *vt) {
    const audit_result *r = x->r;
    headline h;
    headline_make(&h, r, vt);
    if (d->html) rawf(d, "<div class=\"verdict %s\"><p class=\"vline\">", h.css);
    else raw(d, "> **");
    esc(d, h.line);
    raw(d, d->html ? "</p>" : "**\n>\n");
    for (int k = 0; k < h.n_missing; k++) {
        const audit_engine *ae = &r->eng[h.missing[k]];
        char t[700];
        snprintf(t, sizeof t, "%s %s: %s", ae->label, ae->available ? "failed" : "was not run",
                 ae->available ? ae->fail_reason : ae->skip_reason);
        raw(d, d->html ? "<p>" : "> ");
        esc(d, t);
        raw(d, d->html ? "</p>" : "\n>\n");
    }
    if (h.next[0]) {
        raw(d, d->html ? "<p><b>" : "> **");
        esc(d, h.next);
        raw(d, d->html ? "</b></p>" : "**\n>\n");
    }
    char what[600], reps[64] = "", steps[64], refd[200];
    int n_fp32 = 0, n_rep = 0, have_ref = 0;
    for (int i = 0; i < r->n_engines; i++) {
        n_fp32 += r->eng[i].available && !r->eng[i].is_ref && r->eng[i].repeat_of < 0;
        n_rep += r->eng[i].available && !r->eng[i].is_ref && r->eng[i].repeat_of >= 0;
        have_ref |= r->eng[i].available && r->eng[i].is_ref;
    }
    if (n_rep) snprintf(reps, sizeof reps, " (and %d repeat(s) of them)", n_rep);
    /* what ran: a partial run says how far it got; no reference, no reference check */
    if (r->interrupted && !r->interrupted_seeds)
        snprintf(steps, sizeof steps, "%ld of %ld steps (interrupted)", r->interrupted_step, r->total_steps);
    else snprintf(steps, sizeof steps, "%ld steps", r->total_steps);
    if (have_ref)
        snprintf(refd, sizeof refd, "every layer checked against an exact (MPFR) reference on %ld attribution "
                                    "step(s) and %ld shadow replay(s)", r->attribution_steps, r->n_shadows);
    else snprintf(refd, sizeof refd, "no exact reference listed, so no layer was checked against one");
    snprintf(what, sizeof what, "Compared: %d engine(s)%s trained side by side on %s for %s from the same "
                                "weights and batches, %s.", n_fp32, reps, x->m->name, steps, refd);
    raw(d, d->html ? "<p>" : "> ");
    esc(d, what);
    raw(d, d->html ? "</p>" : "\n>\n");
    /* the root cause first: a problem, else a finding that names why two
     * engines differ (a knob, an algorithm, reduced precision), else the
     * first cause; decision flips are consequences of those */
    const explain_finding *top = NULL;
    static const char *const ROOT[] = {"knob", "approximate-algorithm", "reduced-precision", "vendor-math",
                                       "divergence"};
    for (int i = 0; x->L && i < x->L->n && !top; i++)
        if (x->L->f[i].severity == EXPLAIN_PROBLEM) top = &x->L->f[i];
    for (size_t k = 0; k < sizeof ROOT / sizeof ROOT[0] && !top; k++)
        for (int i = 0; x->L && i < x->L->n && !top; i++)
            if (strcmp(x->L->f[i].rule, ROOT[k]) == 0) top = &x->L->f[i];
    for (int i = 0; x->L && i < x->L->n && !top; i++)
        if (x->L->f[i].severity <= EXPLAIN_CAUSE) top = &x->L->f[i];
    char found[900];
    if (top) snprintf(found, sizeof found, "Found: %s.", top->title);
    else snprintf(found, sizeof found, "Found: no difference that needs explaining.");
    raw(d, d->html ? "<p>" : "> ");
    esc(d, found);
    raw(d, d->html ? "</p>" : "\n>\n");
    const seeds_result *S = r->seeds;
    for (int pi = 0; S && pi < S->n_pairs; pi++) {
        const seeds_pair *p = &S->pair[pi];
        if (p->floor_pair || S->eng[p->a].perturbed || S->eng[p->b].perturbed) continue;
        char acc[600];
        snprintf(acc, sizeof acc, "Accuracy over %d seeds: %s.", S->n_seeds, p->verdict);
        raw(d, d->html ? "<p>" : "> ");
        esc(d, acc);
        raw(d, d->html ? "</p>" : "\n>\n");
    }
    if (top && top->fix[0]) {
        raw(d, d->html ? "<p>To change: " : "> To change: ");
        esc(d, top->fix);
        raw(d, d->html ? "</p>" : "\n");
    }
    raw(d, d->html ? "</div>\n" : "\n");
}

static void sec_verdicts(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    char b1[32], b2[32], b3[32], c1[AUDIT_PAIR_NAME_BYTES], c2[120], c3[160], c4[64], c5[64], c6[64], c7[64];
    heading(d, 2, "verdicts", "Verdicts");
    verdict_table vt;
    explain_verdicts(&vt, r, x->m);
    verdict_box(d, x, &vt);
    para(d, "Checks: %ld attribution step(s) in isolated mode, and free-mode shadow replays (the reference fed one "
            "engine's own inputs); coverage = tensors judged by a bound or an exactness rule / tensors compared.",
         r->attribution_steps);
    {
        static const char *const H[] = {"Engine", "Verdict vs the exact reference", "Coverage (judged / compared)",
                                        "Largest error / fp32 bound", "ReLU/max-pool choices flipped", "Detail"};
        table_begin(d, 6, H);
        for (int k = 0; k < vt.n_eng; k++) {
            const engine_verdict *ev = &vt.e[k];
            char cov[32] = "–", wr[64] = "–", fl[32] = "–";
            if (ev->n_compared) snprintf(cov, sizeof cov, "%d of %d", ev->n_bounded, ev->n_compared);
            if (ev->worst_slot >= 0)
                snprintf(wr, sizeof wr, "%s (%s, step %ld)", fnum(b1, sizeof b1, ev->worst_ratio),
                         r->slot_name[ev->worst_slot], ev->worst_step);
            if (ev->n_compared) snprintf(fl, sizeof fl, "%ld (%ld near-ties)", ev->flips, ev->sub_ulp);
            const char *cells[] = {r->eng[ev->engine].label, ev->verdict, cov, wr, fl, ev->detail};
            table_row(d, cells);
        }
        table_end(d);
        static const char *const H2[] = {"Pair", "Verdict", "Weights first differ (every step) / first tensor (sampled)",
                                         "Weights apart (rel. L2, end)", "Test images flipped (last epoch)",
                                         "Accuracy gap (points)"};
        table_begin(d, 6, H2);
        for (int k = 0; k < vt.n_pair; k++) {
            const pair_verdict *pv = &vt.p[k];
            const audit_pair *p = &r->pair[pv->pair];
            char nm[AUDIT_PAIR_NAME_BYTES], fd[96] = "never", e1[32] = "–", e2[32] = "–", e3[32] = "–";
            if (isnan(pv->end_rel_l2)) snprintf(fd, sizeof fd, "not compared after any step");
            snprintf(nm, sizeof nm, "%s vs %s", r->eng[p->a].label, r->eng[p->b].label);
            if (pv->first_diff_step && pv->first_slot >= 0)
                snprintf(fd, sizeof fd, "after step %ld / %s, compared at step %ld", pv->first_diff_step,
                         r->slot_name[pv->first_slot], p->slot[pv->first_slot].first_unequal_step);
            else if (pv->first_slot >= 0)
                snprintf(fd, sizeof fd, "%s / %s, compared at step %ld",
                         isnan(pv->end_rel_l2) ? "not compared after any step" : "never", r->slot_name[pv->first_slot],
                         p->slot[pv->first_slot].first_unequal_step);
            else if (pv->first_diff_step) snprintf(fd, sizeof fd, "after step %ld", pv->first_diff_step);
            if (isinf(pv->end_rel_l2)) snprintf(e1, sizeof e1, "inf (NaN/inf on one side)");
            else if (!isnan(pv->end_rel_l2)) fnum(e1, sizeof e1, pv->end_rel_l2);
            if (pv->flips >= 0) snprintf(e2, sizeof e2, "%ld", pv->flips);
            if (!isnan(pv->acc_gap)) snprintf(e3, sizeof e3, "%+.2f", pv->acc_gap);
            const char *cells[] = {nm, pv->verdict, fd, e1, e2, e3};
            table_row(d, cells);
        }
        table_end(d);
    }
    heading(d, 3, "findings", "Findings");
    if (x->L && x->L->n) {
        for (int i = 0; i < x->L->n; i++) finding_block(d, &x->L->f[i]);
        if (!d->html) raw(d, "\n");
    } else {
        para(d, "No findings (the explanation rules could not run).");
    }
    heading(d, 3, "pairs", "Engine pairs");
    static const char *const H[] = {"Pair",          "Kind",       "Parameters",          "First tensor to differ",
                                    "Params rel. L2 (last)", "Max bound ratio", "Test images differing (last epoch)"};
    table_begin(d, 7, H);
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
        int rep = eb->repeat_of == p->a || ea->repeat_of == p->b;
        snprintf(c1, sizeof c1, "%s vs %s", eb->label, ea->label);
        const char *kind = rep ? "run-to-run determinism" : ea->is_ref ? "vs exact reference" : "engine vs engine";
        long last = -1;
        for (long s = r->total_steps - 1; s >= 0 && p->param_rel_l2; s--)
            if (!isnan(p->param_rel_l2[s])) {
                last = s;
                break;
            }
        if (p->first_diff_step) snprintf(c2, sizeof c2, "first differ after step %ld", p->first_diff_step);
        else if (last < 0) snprintf(c2, sizeof c2, "not compared after any step"); /* equal over none is no claim */
        else snprintf(c2, sizeof c2, "bitwise equal at every step");
        int fs = -1;
        double mb = -1;
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!ss->n_steps) continue;
            if (ss->first_unequal_step && (fs < 0 || ss->first_unequal_step < p->slot[fs].first_unequal_step)) fs = s;
            if (ss->max_bound_ratio >= 0 && (mb < 0 || !(ss->max_bound_ratio <= mb))) mb = ss->max_bound_ratio;
        }
        if (fs >= 0) snprintf(c3, sizeof c3, "%s (step %ld)", r->slot_name[fs], p->slot[fs].first_unequal_step);
        else snprintf(c3, sizeof c3, "none");
        if (last >= 0) snprintf(c4, sizeof c4, "%s (step %ld)", fnum(b1, sizeof b1, p->param_rel_l2[last]), last + 1);
        else snprintf(c4, sizeof c4, "–");
        snprintf(c5, sizeof c5, "%s", mb >= 0 ? fnum(b2, sizeof b2, mb) : "not bounded");
        if (!ea->is_ref && !eb->is_ref && r->epochs_done > 0 && ea->pred && eb->pred)
            snprintf(c6, sizeof c6, "%ld", p->disagree[r->epochs_done - 1]);
        else snprintf(c6, sizeof c6, "–");
        (void)b3;
        (void)c7;
        const char *cells[] = {c1, kind, c2, c3, c4, c5, c6};
        table_row(d, cells);
    }
    table_end(d);
}

static void sec_accuracy(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    heading(d, 3, "accuracy", "Test accuracy per epoch");
    if (r->epochs_done == 0 || !x->c->eval) {
        para(d, "Not measured (evaluation off or no epoch completed).");
        return;
    }
    const char *head[66];
    char hb[64][24];
    head[0] = "Engine";
    for (int ep = 0; ep < r->epochs_done; ep++) {
        snprintf(hb[ep], sizeof hb[ep], "epoch %d", ep + 1);
        head[ep + 1] = hb[ep];
    }
    table_begin(d, r->epochs_done + 1, head);
    static char cb[64][48];
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref) continue;
        const char *cells[66];
        cells[0] = ae->label;
        for (int ep = 0; ep < r->epochs_done; ep++) {
            if (isnan(ae->test_acc[ep])) snprintf(cb[ep], sizeof cb[ep], "– (failed: not evaluated)");
            else if (!isfinite(ae->test_loss[ep])) /* NaN or inf logits: it printed "loss nan" */
                snprintf(cb[ep], sizeof cb[ep], "%.2f%% (loss not finite)", 100 * ae->test_acc[ep]);
            else snprintf(cb[ep], sizeof cb[ep], "%.2f%% (loss %.4f)", 100 * ae->test_acc[ep], ae->test_loss[ep]);
            cells[ep + 1] = cb[ep];
        }
        table_row(d, cells);
    }
    table_end(d);
}

static void timing_layers(doc *d, const ctx *x);

/* The every-step checksums: coverage, and the worst ratio per step per
 * engine — the table (worst over blocks of steps) and the chart (every
 * step) both drawn from audit_engine.ck_step_ratio. */
static void sec_checksums(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    heading(d, 3, "checksums", "Every-step checksums: worst ratio to the bound per step");
    if (!x->c->checksums) {
        para(d, "Off (--no-checksums): only the steps compared with the reference were judged.");
        return;
    }
    int ns = 0, idx[AUDIT_MAX_ENGINES];
    const char *names[AUDIT_MAX_ENGINES];
    double *y[AUDIT_MAX_ENGINES];
    long n = 0;
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref) continue;
        char b1[32];
        if (!ae->ck_have && ae->ck_steps > 0)
            para(d, "%s: every-step checksums stopped after %ld of %ld drift steps (%s): the steps after, and the "
                    "evaluations after, were judged by nothing but the per-element checks listed above.",
                 ae->label, ae->ck_steps, every_step_of_steps(r, ae), ae->ck_none);
        else if (!ae->ck_have) para(d, "%s: no every-step checksums (%s).", ae->label, ae->ck_none);
        else if (!ae->ck_relations) /* no worst ratio: it read "worst ratio 0 ()" */
            para(d, "%s: %ld of %ld drift steps and %ld evaluation batches judged: no relation judged.", ae->label,
                 ae->ck_steps, every_step_of_steps(r, ae), ae->ck_eval_batches);
        else
            para(d, "%s: %ld of %ld drift steps and %ld evaluation batches (%d epoch(s)) judged, %ld relations and "
                    "re-checks; worst ratio %s (%s); %ld judged stage(s) violated (steps, updates, evaluation batches, read-backs); %.2f s.",
                 ae->label, ae->ck_steps,
                 every_step_of_steps(r, ae),
                 ae->ck_eval_batches, ae->ck_eval_epochs,
                 ae->ck_relations, fnum(b1, sizeof b1, ae->ck_worst), ae->ck_worst_what, ae->ck_viol_checks, ae->ck_s);
        if (ae->ck_have && ae->ck_light_steps)
            para(d, "%s: %ld of those drift steps light (--complete-every %ld): the conv layers' plain relations, the "
                    "dense layers' relations but their every-output re-dos, the element-wise re-checks, the loss, "
                    "the update, continuity and the input digest only; every relation at the other %ld.",
                 ae->label, ae->ck_light_steps, r->cfg.complete_every, ae->ck_steps - ae->ck_light_steps);
        if (ae->ck_have && ae->ck_partial[0]) para(d, "%s: not every relation judged: %s.", ae->label, ae->ck_partial);
        if (r->cfg.checksums && ae->ck_unjudged)
            para(d, "%s: %ld relation(s) and re-checked element(s) not judged: fp32 may overflow there (a legal "
                    "evaluation may give inf or NaN; checks/checksums.c, ck_rel_unbound).", ae->label, ae->ck_unjudged);
        char rtw[400];
        every_step_roundtrip_words(r, ae, rtw, sizeof rtw);
        if (rtw[0]) para(d, "%s: %s.", ae->label, rtw);
        if (ae->ck_have && ae->ck_twin_of >= 0) {
            char sp[96] = "";
            if (ae->ck_twin_split > 0)
                snprintf(sp, sizeof sp, "; they first disagreed at step %ld: its own vectors from there",
                         ae->ck_twin_split);
            else if (ae->ck_twin_split < 0)
                snprintf(sp, sizeof sp, "; they first disagreed in attribution: its own vectors from there");
            else if (ae->ck_twin_off[0])
                snprintf(sp, sizeof sp, "; its own vectors from then on (%s)", ae->ck_twin_off);
            para(d, "%s: %ld of those steps judged on %s's vector, every operand of the step hashed and equal to %s's "
                    "(a repeat: bit-identical operands give the same vector)%s.",
                 ae->label, ae->ck_twin_steps, r->eng[ae->ck_twin_of].label, r->eng[ae->ck_twin_of].label, sp);
        }
        if (!ae->ck_have || !ae->ck_step_ratio || ns >= AUDIT_MAX_ENGINES) continue;
        idx[ns] = i;
        names[ns] = ae->label;
        n = ae->ck_total;
        ns++;
    }
    if (!ns || n <= 0) return;
    long blk = n > 20 ? (n + 19) / 20 : 1;
    const char *head[AUDIT_MAX_ENGINES + 1];
    head[0] = "Steps";
    for (int k = 0; k < ns; k++) head[k + 1] = names[k];
    table_begin(d, ns + 1, head);
    for (long s0 = 0; s0 < n; s0 += blk) {
        char cb[AUDIT_MAX_ENGINES + 1][40];
        const char *cells[AUDIT_MAX_ENGINES + 1];
        long s1 = s0 + blk < n ? s0 + blk : n;
        snprintf(cb[0], sizeof cb[0], s1 - s0 > 1 ? "%ld–%ld" : "%ld", s0 + 1, s1);
        cells[0] = cb[0];
        for (int k = 0; k < ns; k++) {
            const float *q = r->eng[idx[k]].ck_step_ratio;
            double w = NAN;
            for (long t = s0; t < s1; t++)
                if (!isnan(q[t]) && (isnan(w) || q[t] > w)) w = q[t];
            fnum(cb[k + 1], sizeof cb[k + 1], w);
            cells[k + 1] = cb[k + 1];
        }
        table_row(d, cells);
    }
    table_end(d);
    if (!d->html) return;
    for (int k = 0; k < ns; k++) {
        if (!(y[k] = malloc((size_t)n * sizeof *y[k]))) {
            for (int j = 0; j < k; j++) free(y[j]);
            return;
        }
        for (long t = 0; t < n; t++) y[k][t] = r->eng[idx[k]].ck_step_ratio[t];
    }
    svg_line_log(d, "worst checksum ratio per step (1 = the bound)", "ratio", ns, names, y, n);
    for (int k = 0; k < ns; k++) free(y[k]);
}

static void sec_timing(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    char c1[32], c2[32], c3[32], c4[32], c5[32], c6[32];
    heading(d, 3, "timing", "Time and memory");
    para(d, "Training time per epoch counts batch making and this engine's forward, loss, backward and update calls "
            "(in its own process); comparison is counted separately. Cold = epoch 1, warm = mean of later epochs.");
    static const char *const H[] = {"Engine", "Epoch cold s", "Epoch warm s", "Images/s (last epoch)",
                                    "Peak RSS MiB", "Loss s", "Update s"};
    table_begin(d, 7, H);
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available) continue;
        int ne = r->epochs_done, last = ne - 1;
        double warm = report_warm_epoch_s(r, ae);
        /* no epoch completed (interrupted, or the reference's timing is per step): "–", never "nan" */
        if (ne) snprintf(c1, sizeof c1, "%.3f", ae->train_s[0]);
        else snprintf(c1, sizeof c1, "–");
        snprintf(c2, sizeof c2, "%s", isnan(warm) ? "–" : (snprintf(c6, sizeof c6, "%.3f", warm), c6));
        if (ne && ae->train_s[last] > 0) snprintf(c3, sizeof c3, "%.0f", ae->images[last] / ae->train_s[last]);
        else snprintf(c3, sizeof c3, "–");
        snprintf(c4, sizeof c4, "%.1f", ae->peak_rss / 1048576.0);
        snprintf(c5, sizeof c5, "%.3f", ae->timing.loss_s);
        char c7[32];
        snprintf(c7, sizeof c7, "%.3f", ae->timing.update_s);
        const char *cells[] = {ae->label, c1, c2, c3, c4, c5, c7};
        table_row(d, cells);
    }
    table_end(d);
    para(d, "Every-step checks: %.2f s of %.2f s total (%.0f%%; the engines compute theirs at once, so this is wall "
            "time). Comparison cost: %.2f s (%.0f%%); driver peak RSS %.1f MiB; %ld lines in steps.jsonl.",
         r->checks_s, r->total_s, r->total_s > 0 ? 100 * r->checks_s / r->total_s : 0.0,
         r->compare_s, r->total_s > 0 ? 100 * r->compare_s / r->total_s : 0.0,
         r->parent_peak_rss / 1048576.0, r->jsonl_lines);
    if (r->seeds && r->seeds->early)
        para(d, "These times were measured with the seed loop's audits running alongside, in Linux's idle scheduling "
                "class (SCHED_IDLE): they take only cores these engines leave idle, but share caches and memory "
                "bandwidth with them. For timings alone, audit without --seeds.");

    timing_layers(d, x);
}

double report_warm_epoch_s(const audit_result *r, const audit_engine *ae) {
    double sum = 0;
    int n = 0;
    for (int ep = 1; ep < r->epochs_done; ep++)
        if (ae->images[ep] > 0) sum += ae->train_s[ep], n++;
    return n ? sum / n : NAN;
}

/* The largest relative difference of the median per-call times of an
 * engine and its repeat copy (the same engine twice): run-to-run timing
 * noise on this machine.  NAN when no engine ran twice. */
static double copy_noise(const audit_result *r, const model *m, char *who, size_t cap) {
    double worst = NAN;
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *c = &r->eng[i];
        if (c->repeat_of < 0 || !c->tsamples || !r->eng[c->repeat_of].tsamples) continue;
        const audit_engine *o = &r->eng[c->repeat_of];
        for (int l = 0; l < m->n_layers; l++)
            for (int ph = 0; ph < TPH_N; ph++) {
                double a[3], b[3];
                if (!timing_quantiles(&o->tsamples->layer[l][ph], &a[0], &a[1], &a[2]) ||
                    !timing_quantiles(&c->tsamples->layer[l][ph], &b[0], &b[1], &b[2]) || a[1] <= 0 || b[1] <= 0)
                    continue;
                double rel = fabs(a[1] - b[1]) / fmin(a[1], b[1]);
                if (isnan(worst) || rel > worst) {
                    worst = rel;
                    snprintf(who, cap, "%s and %s, %s %s", o->label, c->label, m->layers[l].name,
                             timing_phase_name(ph));
                }
            }
    }
    return worst;
}

/* Per layer, engine and phase: median and p10-p90 of single calls (warm-up
 * left out), from the figures the charts draw. */
static void timing_layers(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    const model *m = x->m;
    static figure med[TPH_N], p10[TPH_N], p90[TPH_N];
    int ns = 0;
    for (int ph = 0; ph < TPH_N; ph++) {
        ns = fig_layer_time(&med[ph], r, m, ph, 1, 0);
        fig_layer_time(&p10[ph], r, m, ph, 0, 0);
        fig_layer_time(&p90[ph], r, m, ph, 2, 0);
    }
    heading(d, 4, "layer-time", "Time per layer call: median [p10–p90] ms");
    if (ns == 0) {
        para(d, "No per-call timing came back from the engines (a recording keeps sums only).");
        return;
    }
    para(d, "Each cell: the median of single calls and, in brackets, the 10th–90th percentile, over the calls of the "
            "whole run; the first %d calls of each layer and phase are left out (warm-up: kernel generation, first "
            "allocations, cold caches). Training forward and backward are one call per step; evaluation forwards "
            "(no dropout, once per test batch) are a phase of their own.", TIMING_WARMUP);
    char who[200] = "";
    double noise = copy_noise(r, m, who, sizeof who);
    if (!isnan(noise))
        para(d, "Timing noise: the same engine run twice differs by up to %.0f%% in a median (%s). Differences "
                "between engines smaller than that are noise of this machine, not of the engines.",
             100 * noise, who);
    for (int ph = 0; ph < TPH_N; ph++) {
        const char *head[1 + FIG_MAX_SERIES];
        head[0] = "Layer";
        for (int k = 0; k < med[ph].ns; k++) head[1 + k] = med[ph].series[k];
        rawf(d, d->html ? "<p><b>%s</b></p>\n" : "**%s**\n\n", timing_phase_name(ph));
        table_begin(d, 1 + med[ph].ns, head);
        static char cb[FIG_MAX_SERIES][96];
        for (int c = 0; c < med[ph].nc; c++) {
            const char *cells[1 + FIG_MAX_SERIES];
            cells[0] = med[ph].cats[c];
            for (int k = 0; k < med[ph].ns; k++) {
                char a[32], b[32], e[32];
                if (isnan(fig_get(&med[ph], k, c))) snprintf(cb[k], sizeof cb[k], "–");
                else
                    snprintf(cb[k], sizeof cb[k], "%s [%s–%s]", fig_cell(&med[ph], k, c, a, sizeof a),
                             fig_cell(&p10[ph], k, c, b, sizeof b), fig_cell(&p90[ph], k, c, e, sizeof e));
                cells[1 + k] = cb[k];
            }
            table_row(d, cells);
        }
        table_end(d);
    }
    if (d->html) {
        /* bars for the fp32 engines (the reference is orders of magnitude slower: in the table) */
        static figure f;
        if (fig_layer_time(&f, r, m, TPH_TRAIN_FWD, 1, 1))
            svg_bars(d, "Training forward time per layer, median ms per call (fp32 engines; p10-p90 in the table)",
                     "ms per call", &f, 0);
        if (fig_layer_time(&f, r, m, TPH_BWD, 1, 1))
            svg_bars(d, "Backward time per layer, median ms per call (fp32 engines; p10-p90 in the table)",
                     "ms per call", &f, 0);
    }
}

static void layer_error(doc *d, const ctx *x);

static void sec_divergence(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    heading(d, 3, "divergence", "Parameter divergence per step");
    para(d, "Relative L2 difference of all parameters after each step, for every engine pair. Against the "
            "reference only on the steps it ran: its first steps (accumulated error), then shadow steps that start "
            "from one fp32 engine's state (one step's error, not accumulated). Zero (bitwise equal) is drawn on the "
            "row under the axis; inf (some parameter NaN or inf on one side only) on the row above it.");
    if (r->n_pairs == 0 || r->total_steps == 0) {
        para(d, "No pair to show.");
        return;
    }
    const char *names[AUDIT_MAX_PAIRS];
    double *ys[AUDIT_MAX_PAIRS];
    static char nb[AUDIT_MAX_PAIRS][AUDIT_PAIR_NAME_BYTES];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        snprintf(nb[pi], sizeof nb[pi], "%s vs %s", r->eng[r->pair[pi].b].label, r->eng[r->pair[pi].a].label);
        names[pi] = nb[pi];
        ys[pi] = r->pair[pi].param_rel_l2;
    }
    if (d->html && r->pair[0].param_rel_l2)
        svg_line_log(d, "Parameters: relative L2 difference per step (log scale)", "rel. L2 difference", r->n_pairs,
                     names, ys, r->total_steps);
    /* the numbers, sampled: every step up to 20, else about 20 rows */
    long stride = r->total_steps > 20 ? (r->total_steps + 19) / 20 : 1;
    const char *head[AUDIT_MAX_PAIRS + 1];
    head[0] = "Step";
    for (int pi = 0; pi < r->n_pairs; pi++) head[pi + 1] = names[pi];
    table_begin(d, r->n_pairs + 1, head);
    static char cb[AUDIT_MAX_PAIRS + 1][32];
    for (long s = 0; s < r->total_steps; s++) {
        if (s % stride != 0 && s != r->total_steps - 1) continue;
        const char *cells[AUDIT_MAX_PAIRS + 1];
        snprintf(cb[0], sizeof cb[0], "%ld", s + 1);
        cells[0] = cb[0];
        for (int pi = 0; pi < r->n_pairs; pi++) {
            double v = r->pair[pi].param_rel_l2 ? r->pair[pi].param_rel_l2[s] : NAN;
            fnum(cb[pi + 1], sizeof cb[0], v);
            cells[pi + 1] = cb[pi + 1];
        }
        table_row(d, cells);
    }
    table_end(d);

    layer_error(d, x);
}

/* Relative error per layer: which layer's tensors diverge most, scale-aware
 * (max ULP is ~2e9 near every zero crossing and tells layers apart no
 * better than a coin). */
static void layer_error(doc *d, const ctx *x) {
    heading(d, 3, "layer-error", "Relative error per layer");
    para(d, "Largest normwise relative error (rel. L2 = |a - b| / |a|) over the compared steps among the tensors each "
            "layer computed (forward output, backward-data, weight and bias gradients); 0 = bitwise equal.");
    static figure f;
    fig_layer_error(&f, x->r, x->m);
    if (d->html)
        svg_bars(d, "Relative error per layer and pair (largest rel. L2 over the compared steps; log scale; a dot on "
                    "the baseline: 0)", "rel. L2", &f, 1);
    const char *head[2 + FIG_MAX_CATS];
    head[0] = "Pair";
    for (int c = 0; c < f.nc; c++) head[1 + c] = f.cats[c];
    table_begin(d, f.nc + 1, head);
    static char cb[FIG_MAX_CATS][48];
    for (int k = 0; k < f.ns; k++) {
        const char *cells[2 + FIG_MAX_CATS];
        cells[0] = f.series[k];
        for (int c = 0; c < f.nc; c++) cells[1 + c] = fig_cell(&f, k, c, cb[c], sizeof cb[c]);
        table_row(d, cells);
    }
    table_end(d);
}

static int pair_all_equal(const audit_result *r, const audit_pair *p) {
    if (p->first_diff_step) return 0;
    for (int s = 0; s < r->n_slots; s++)
        if (p->slot[s].n_steps && (p->slot[s].first_unequal_step || p->slot[s].min_frac_equal < 1)) return 0;
    return 1;
}

/* When one side of p is a repeat copy bitwise equal to its original, the
 * index of the pair with the original in its place; else -1. */
static int same_as_original(const audit_result *r, const audit_pair *p) {
    int a = p->a, b = p->b;
    int ra = r->eng[a].repeat_of, rb = r->eng[b].repeat_of;
    int copy = ra >= 0 && ra != b ? a : rb >= 0 && rb != a ? b : -1;
    if (copy < 0) return -1;
    int orig = r->eng[copy].repeat_of, other = copy == a ? b : a;
    int rp = audit_pair_index(r, r->eng[copy].label, r->eng[orig].label);
    int op = audit_pair_index(r, r->eng[orig].label, r->eng[other].label);
    if (rp < 0 || op < 0 || !pair_all_equal(r, &r->pair[rp])) return -1;
    return op;
}

static void sec_tensors(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    const model *m = x->m;
    char c1[32], c2[32], c3[32], c4[32], c5[64], c6[32], org[64];
    heading(d, 3, "tensors", "Worst divergence per tensor");
    para(d, "Per pair, over every compared step: normwise relative L2 error, max ULP, max relative error, max bound ratio (error / a-priori fp32 "
            "bound; <= 1 reads consistent with fp32 rounding in some order; bounds exist only in isolated mode against "
            "the reference), smallest fraction of bitwise-equal elements, and the first step with a difference. "
            "Elements NaN or inf on one side only are counted in the %% equal column (\"NaN/inf vs not\", summed over "
            "steps) and kept out of the error columns. Adam moments are in run.json.");
    static const char *const H[] = {"Tensor",      "Computed by", "Steps",       "Rel. L2 (normwise)", "Max ULP",
                                    "Max rel. err.", "Bound ratio", "Min % equal", "First unequal step"};
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        char t[AUDIT_PAIR_NAME_BYTES];
        snprintf(t, sizeof t, "%s vs %s", r->eng[p->b].label, r->eng[p->a].label);
        heading(d, 4, "pair", t);
        /* no table of zeros, no table twice: a bitwise-equal pair in one
         * line; a repeat copy equal to its original has its original's table */
        if (pair_all_equal(r, p)) {
            para(d, "Bitwise equal in every tensor at every compared step.");
            continue;
        }
        int orig = same_as_original(r, p);
        if (orig >= 0) {
            para(d, "The same numbers as %s vs %s: %s is bitwise equal to %s at every compared step.",
                 r->eng[r->pair[orig].b].label, r->eng[r->pair[orig].a].label,
                 r->eng[p->a].repeat_of >= 0 ? r->eng[p->a].label : r->eng[p->b].label,
                 r->eng[p->a].repeat_of >= 0 ? r->eng[r->eng[p->a].repeat_of].label
                                             : r->eng[r->eng[p->b].repeat_of].label);
            continue;
        }
        table_begin(d, 9, H);
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!ss->n_steps || strstr(r->slot_name[s], ".adam_")) continue;
            snprintf(c1, sizeof c1, "%ld", ss->n_steps);
            fnum(c2, sizeof c2, ss->max_ulp);
            fnum(c3, sizeof c3, ss->max_rel);
            if (ss->max_bound_ratio >= 0) fnum(c4, sizeof c4, ss->max_bound_ratio);
            else snprintf(c4, sizeof c4, "–");
            /* NaN or inf on one side only: kept out of the error columns, which then say nothing of them;
             * else unequal bits at ULP distance 0: only the sign of a zero differs */
            if (ss->n_nonfinite)
                snprintf(c5, sizeof c5, "%.4g (%ld NaN/inf vs not)", 100 * ss->min_frac_equal, ss->n_nonfinite);
            else if (ss->min_frac_equal < 1 && ss->max_ulp == 0)
                snprintf(c5, sizeof c5, "%.4g (rest: +0 vs -0)", 100 * ss->min_frac_equal);
            else snprintf(c5, sizeof c5, "%.4g", 100 * ss->min_frac_equal);
            if (ss->first_unequal_step) snprintf(c6, sizeof c6, "%ld", ss->first_unequal_step);
            else snprintf(c6, sizeof c6, "bitwise equal");
            char c7[32];
            fnum(c7, sizeof c7, ss->max_rel_l2);
            const char *cells[] = {r->slot_name[s], explain_slot_origin(r, m, s, org, sizeof org), c1, c7, c2, c3, c4,
                                   c5, c6};
            table_row(d, cells);
        }
        table_end(d);
    }
}

/* The sharper tier's margin per tensor kind (issue 24): how much of the
 * sharp bound the elements use, from the audit's per-kind distributions
 * (audit.h audit_sharp_dist; run.json's "sharp_margin" holds the same
 * numbers): the quantiles are the upper edges of power-of-two buckets. */
static void sec_sharp_margin(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    heading(d, 3, "sharp-margin", "Sharper tier: margin per tensor kind");
    para(d, "Per kind of tensor vs the exact reference, over every element judged at every check: the ratio of the "
            "error to the sharper bound at the median, the 99th and the 99.99th percentile (each the upper edge of "
            "its power-of-two bucket: within a factor 2 above the true quantile) and at the worst element, the share "
            "of the sharp bound that element used, the elements over it (SUSPECT), and the sharp tier's largest "
            "per-element false-alarm probability for these tensors (0: the tiers coincide, few-operation rules).");
    static const char *const H[] = {"Kind",   "Checks", "Elements", "Exact", "Median", "p99",
                                    "p99.99", "Max",    "Worst used", "Over", "False alarm / element"};
    char c[10][40];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        int rows = 0;
        for (int k = 0; k < AUDIT_SK_N; k++) rows += p->sharp_kind[k].checks > 0;
        if (!rows) continue;
        char t[AUDIT_PAIR_NAME_BYTES];
        snprintf(t, sizeof t, "%s vs %s", r->eng[p->b].label, r->eng[p->a].label);
        heading(d, 4, "margin-pair", t);
        table_begin(d, 11, H);
        for (int k = 0; k < AUDIT_SK_N; k++) {
            const audit_sharp_dist *sd = &p->sharp_kind[k];
            if (!sd->checks) continue;
            snprintf(c[0], sizeof c[0], "%ld", sd->checks);
            snprintf(c[1], sizeof c[1], "%llu", (unsigned long long)sd->n);
            snprintf(c[2], sizeof c[2], "%llu", (unsigned long long)sd->hist[0]);
            fnum(c[3], sizeof c[3], audit_sharp_quantile(sd, 0.5));
            fnum(c[4], sizeof c[4], audit_sharp_quantile(sd, 0.99));
            fnum(c[5], sizeof c[5], audit_sharp_quantile(sd, 0.9999));
            fnum(c[6], sizeof c[6], sd->max_ratio);
            snprintf(c[7], sizeof c[7], "%.3g%%", 100 * sd->max_ratio);
            snprintf(c[8], sizeof c[8], "%ld", sd->n_over);
            fnum(c[9], sizeof c[9], sd->max_alarm);
            const char *cells[] = {audit_sharp_kind_name(k), c[0], c[1], c[2], c[3], c[4],
                                   c[5], c[6], c[7], c[8], c[9]};
            table_row(d, cells);
        }
        table_end(d);
    }
}

/* The every-step relations, per block: how much of each tolerance this
 * run's rounding used (checks/checksums.h ck_block_margin), per engine
 * with checks.  The reciprocal is the headroom: a fault must move a
 * relation about that many times more than rounding did to be seen. */
static void sec_ck_margin(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    if (!x->c->checksums) return;
    int idx[AUDIT_MAX_ENGINES], ne = 0;
    for (int i = 0; i < r->n_engines && ne < 6; i++) {
        const audit_engine *ae = &r->eng[i];
        long any = 0;
        for (int l = 0; l < r->m.n_layers; l++)
            for (int ph = 0; ph < CK_NPHASE_ALL; ph++) any += ae->ck_blk[l][ph].n;
        if (ae->ck_have && any) idx[ne++] = i;
    }
    if (!ne) return;
    heading(d, 3, "ck-margin", "Every-step relations: how much of each tolerance rounding used");
    para(d, "Per block of relations, over every step and evaluation batch: the largest |residual| / tolerance on the "
            "sharper tier (SUSPECT over 1) for each engine, and on the worst-case tier (PROBLEM over 1) the largest "
            "over these engines. 1 / that ratio is the headroom: a fault must move a relation about that many times "
            "more than this run's rounding did to be seen there (README, \"How sharp the checks are\").");
    const char *H[3 + AUDIT_MAX_ENGINES];
    char hb[AUDIT_MAX_ENGINES][80];
    H[0] = "Layer";
    H[1] = "Relations";
    for (int k = 0; k < ne; k++) {
        snprintf(hb[k], sizeof hb[k], "%s: sharper tier", r->eng[idx[k]].label);
        H[2 + k] = hb[k];
    }
    H[2 + ne] = "Worst case (max)";
    table_begin(d, 3 + ne, H);
    char cb[AUDIT_MAX_ENGINES][32], wb[32];
    for (int l = 0; l < r->m.n_layers; l++)
        for (int ph = 0; ph < CK_NPHASE_ALL; ph++) {
            double w = -1;
            int any = 0;
            for (int k = 0; k < ne; k++) {
                const ck_block_margin *bm = &r->eng[idx[k]].ck_blk[l][ph];
                any |= bm->n > 0;
                if (bm->n && bm->worst > w) w = bm->worst;
                if (bm->n) fnum(cb[k], sizeof cb[k], bm->sharp);
                else snprintf(cb[k], sizeof cb[k], "–");
            }
            if (!any) continue;
            fnum(wb, sizeof wb, w);
            const char *cells[3 + AUDIT_MAX_ENGINES];
            cells[0] = r->m.layers[l].name;
            cells[1] = ck_block_name(&r->m, l, ph);
            for (int k = 0; k < ne; k++) cells[2 + k] = cb[k];
            cells[2 + ne] = wb;
            table_row(d, cells);
        }
    table_end(d);
}

/* The sharper tier (checks/bounds.h): per tensor vs the reference, the
 * ratio to each tier and the aggregate tests' scores: how much margin the
 * check has on this model (a score >= 1 is SUSPECT). */
static void sec_sharp(doc *d, const ctx *x) {
    const audit_result *r = x->r;
    int any = 0;
    for (int pi = 0; pi < r->n_pairs && !any; pi++)
        for (int s = 0; s < r->n_slots; s++) any |= r->pair[pi].slot[s].n_sharp > 0;
    if (!any) return;
    sec_sharp_margin(d, x);
    heading(d, 3, "sharp", "Sharper tier: margin per tensor");
    para(d, "Per tensor vs the exact reference, at the checked steps: the worst ratio of the error to the worst-case "
            "bound (> 1: PROBLEM) and to the sharper, probabilistic bound (Higham & Mary's lambda sqrt(K) u, "
            "per-element false alarm <= 1e-16), the sign tests' and the mean square's largest score (statistic / "
            "its limit, per-check false alarm <= 1e-10); any of them >= 1 within the worst case is SUSPECT. "
            "Few-operation rules (loss, Adam) keep their worst case: there the two ratios coincide.");
    static const char *const H[] = {"Tensor", "Checks", "Worst-case ratio", "Sharp factor", "Sharp ratio",
                                    "Bias score", "Scale score", "SUSPECT checks"};
    char c1[32], c2[32], c3[32], c4[32], c5[32], c6[32], c7[32];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        int rows = 0;
        for (int s = 0; s < r->n_slots; s++) rows += p->slot[s].n_sharp > 0;
        if (!rows) continue;
        char t[AUDIT_PAIR_NAME_BYTES];
        snprintf(t, sizeof t, "%s vs %s", r->eng[p->b].label, r->eng[p->a].label);
        heading(d, 4, "pair", t);
        table_begin(d, 8, H);
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!ss->n_sharp) continue;
            snprintf(c1, sizeof c1, "%ld", ss->n_sharp);
            fnum(c2, sizeof c2, ss->max_bound_ratio);
            fnum(c3, sizeof c3, ss->sharp_factor);
            fnum(c4, sizeof c4, ss->max_sharp_ratio);
            if (ss->n_aggregate) {
                fnum(c5, sizeof c5, ss->max_bias_score);
                fnum(c6, sizeof c6, ss->max_scale_score);
            } else {
                snprintf(c5, sizeof c5, "–");
                snprintf(c6, sizeof c6, "–");
            }
            snprintf(c7, sizeof c7, "%ld", ss->n_suspect);
            const char *cells[] = {r->slot_name[s], c1, c2, c3, c4, c5, c6, c7};
            table_row(d, cells);
        }
        table_end(d);
    }
}

static const char CSS[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1200px;margin:1.5em auto;"
    "padding:0 1em;color:#222}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}"
    "h4{margin-bottom:.3em}"
    "table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:12.5px}"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
    "th{background:#f2f4f7}tr:nth-child(even) td{background:#fafafa}"
    ".finding{border-left:5px solid #999;background:#fafafa;margin:.7em 0;padding:.4em .8em}"
    ".finding.problem{border-color:#d62728;background:#fff5f5}.finding.cause{border-color:#ff7f0e}"
    ".finding.ok{border-color:#2ca02c;background:#f6fff6}.finding.info{border-color:#1f77b4}"
    ".finding.suspect{border-color:#bcbd22;background:#fffff0}.suspect .tag{background:#9a9a10}"
    ".ft{font-weight:600}.tag{font-size:11px;padding:1px 6px;border-radius:3px;background:#555;color:#fff;"
    "margin-right:.4em}.problem .tag{background:#d62728}.cause .tag{background:#e07000}.ok .tag{background:#2ca02c}"
    ".info .tag{background:#1f77b4}"
    "dl{display:grid;grid-template-columns:6.5em 1fr;gap:2px 10px;margin:.4em 0}dt{color:#666}dd{margin:0}"
    "svg.chart{max-width:100%;height:auto;font:12px sans-serif;background:#fff}"
    "svg .plot{fill:none;stroke:#999}svg .grid{stroke:#e4e4e4}"
    "figure{margin:.8em 0}figcaption{color:#555;font-size:12px}"
    ".toc{color:#555}"
    ".verdict{border-left:8px solid #999;background:#f7f7f7;padding:.5em 1em;margin:1em 0}"
    ".verdict .vline{font-size:1.25em;font-weight:700;margin:.3em 0}"
    ".v-ok{border-color:#2ca02c;background:#f3fbf3}.v-problem{border-color:#d62728;background:#fff3f3}"
    ".v-suspect{border-color:#e0a000;background:#fffaf0}.v-incomplete{border-color:#e0a000;background:#fffaf0}.v-unchecked{border-color:#e0a000;background:#fffaf0}"
    "details{margin:.6em 0;border:1px solid #ddd;border-radius:4px;padding:.2em .8em}"
    "summary{cursor:pointer;font-weight:600;font-size:1.1em;padding:.3em 0}";

/* Evidence folded in the HTML (<details>, closed): the first screen is the
 * verdict; Markdown shows everything. */
static void fold_begin(doc *d, const char *summary) {
    if (!d->html) return;
    raw(d, "<details><summary>");
    esc(d, summary);
    raw(d, "</summary>\n");
}
static void fold_end(doc *d) {
    if (d->html) raw(d, "</details>\n");
}

/* The words the report uses, once. */
static void sec_glossary(doc *d) {
    static const char *const G[][2] = {
        {"fp32 bound", "the largest error fp32 arithmetic can make on an operation in any summation order "
                       "(gamma_K times the sum of |products|); an error within it is rounding"},
        {"bound ratio", "error / fp32 bound: <= 1 is consistent with fp32 rounding; > 1 is not; inf means an "
                        "element whose bound is 0 (all products exactly 0, or an exact layer) still differed"},
        {"coverage", "tensors judged by a bound or an exactness rule / tensors compared; unchecked is never ok"},
        {"attribution step", "a step in isolated mode: each layer gets the reference's inputs, so its own error is "
                             "measured alone"},
        {"shadow replay", "every N steps the exact reference redoes one step from an engine's state: that engine's "
                          "operations are judged again on its own trajectory"},
        {"noise floor", "the same engine started from weights 1 ULP away: how far training amplifies one rounding; "
                        "differences below it are noise"},
        {"near-tie", "a ReLU sign or max-pool choice whose inputs were within 1 ULP of the boundary: rounding "
                     "decided it"},
        {"drifted flip", "a decision that went the other way because its inputs already differed by more than a "
                         "rounding (the trajectories had drifted apart)"},
        {"ULP", "unit in the last place: the gap between adjacent fp32 numbers at a value"},
        {"rel. L2", "normwise relative difference |a - b| / |a| over a whole tensor; inf: some element NaN or inf "
                    "on one side only"},
        {".act / .dact", "a layer's forward output / the gradient with respect to it (backward)"},
        {"McNemar", "exact test on the test images exactly one engine got right (b: only a, c: only b); it "
                    "assumes images are independent"},
        {"e-fold", "steps for the distance between two runs to grow by a factor e (fitted; r² is the fit "
                   "quality)"},
    };
    heading(d, 2, "glossary", "Glossary");
    static const char *const H[] = {"Term", "Meaning"};
    table_begin(d, 2, H);
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) table_row(d, G[i]);
    table_end(d);
}

static int build(doc *d, const ctx *x) {
    if (d->html) {
        raw(d, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>lockstep audit: ");
        esc(d, x->m->name);
        raw(d, "</title>\n<style>");
        raw(d, CSS);
        raw(d, "</style></head><body>\n");
    }
    sec_header(d, x);
    sec_verdicts(d, x);
    fold_begin(d, "Is the gap real? Accuracy over seeds, McNemar, margins, the noise band");
    sec_gap(d, x);
    fold_end(d);
    heading(d, 2, "evidence", "Evidence");
    fold_begin(d, "Accuracy per epoch, every-step checksums, time per layer (median and spread), memory");
    sec_accuracy(d, x);
    sec_checksums(d, x);
    sec_ck_margin(d, x);
    sec_timing(d, x);
    fold_end(d);
    fold_begin(d, "Divergence: parameters per step, relative error per layer");
    sec_divergence(d, x);
    fold_end(d);
    fold_begin(d, "Every tensor, per engine pair");
    sec_tensors(d, x);
    sec_sharp(d, x);
    fold_end(d);
    fold_begin(d, "Environment: engines, libraries, kernels, build, threads");
    sec_environment(d, x);
    fold_end(d);
    sec_glossary(d);
    para(d, "Files beside this report: run.json (the summary as JSON: every number of every chart), steps.jsonl.gz "
            "(gzip; one line per compared tensor and step: zcat steps.jsonl.gz).");
    if (d->html) raw(d, "</body></html>\n");
    return d->b.failed ? LS_ENOMEM : LS_OK;
}

int report_write(const char *dir, const audit_cfg *c, const model *m, const dataset *ds, const audit_result *r) {
    struct stat st;
    if (!dir || stat(dir, &st) != 0) return ls_err(LS_EIO, "%s: report directory: %s", dir ? dir : "(null)",
                                                   strerror(errno));
    if (!S_ISDIR(st.st_mode)) return ls_err(LS_EIO, "%s: report directory: not a directory", dir);
    explain_list L;
    int have_l = explain_run(&L, r, m) == 0;
    ctx x = {c, m, ds, r, have_l ? &L : NULL};
    int rc = LS_OK;
    static const char *const NAMES[2] = {"report.md", "report.html"};
    for (int h = 0; h < 2 && !rc; h++) {
        doc d;
        memset(&d, 0, sizeof d);
        lsbuf_init(&d.b);
        d.html = h;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, NAMES[h]);
        if (build(&d, &x)) rc = ls_err(LS_ENOMEM, "%s: out of memory building the report", path);
        else if ((rc = ls_write_file_atomic(path, d.b.s, d.b.len)))
            rc = ls_err_prefix(rc, "report");
        lsbuf_free(&d.b);
    }
    if (have_l) explain_list_free(&L);
    return rc;
}
