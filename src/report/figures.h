/*
 * report/figures.h — the numbers behind every chart, made once: a figure is
 * ns series by nc categories, stored series-major (v[k * nc + c]), with the
 * one format its table cells and its chart's tooltips both print.  The
 * report draws the table row and the chart bar of (k, c) from the same
 * element, and run.json writes the same arrays, so the three cannot
 * disagree (tests/test_report_html.c parses the charts to hold that).
 */
#ifndef LS_FIGURES_H
#define LS_FIGURES_H

#include "audit/audit.h"
#include "audit/seeds.h"
#include "model/model.h"

#define FIG_MAX_SERIES (AUDIT_MAX_PAIRS + 2)
#define FIG_MAX_CATS 64

typedef struct {
    int ns, nc;
    char series[FIG_MAX_SERIES][AUDIT_PAIR_NAME_BYTES];
    char cats[FIG_MAX_CATS][48];
    const char *fmt;               /* printf format of one value ("%.2f") */
    double v[FIG_MAX_SERIES * FIG_MAX_CATS];
} figure;

static inline double *fig_at(figure *f, int k, int c) { return &f->v[k * f->nc + c]; }
static inline double fig_get(const figure *f, int k, int c) { return f->v[k * f->nc + c]; }
/* The value as table and tooltip print it ("–" when NAN), into buf. */
const char *fig_cell(const figure *f, int k, int c, char *buf, size_t cap);

/* Test accuracy (%), last epoch: one series per engine that ran every
 * seed, one category per seed ("seed 42"). */
void fig_seed_accuracy(figure *f, const seeds_result *S);

/* Median time per call (ms) of each layer in phase ph (TPH_*), warm-up
 * excluded; q: 0 p10, 1 median, 2 p90.  Series: the engines with samples
 * (fp32 engines only when fp32_only), categories: the layers.  Returns the
 * number of series. */
int fig_layer_time(figure *f, const audit_result *r, const model *m, int ph, int q, int fp32_only);

/* The largest normwise relative error (rel. L2) over the compared steps
 * of the tensors each layer computed (forward output, backward-data,
 * weight and bias gradients; "loss" for the loss), per engine pair. */
void fig_layer_error(figure *f, const audit_result *r, const model *m);

#endif
