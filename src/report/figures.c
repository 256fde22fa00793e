/*
 * figures.c — the numbers behind the charts (report/figures.h).
 */
#include "report/figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "audit/explain.h"

const char *fig_cell(const figure *f, int k, int c, char *buf, size_t cap) {
    double v = fig_get(f, k, c);
    if (isnan(v)) snprintf(buf, cap, "–");
    else snprintf(buf, cap, f->fmt ? f->fmt : "%.3g", v);
    return buf;
}

static void fig_init(figure *f, const char *fmt) {
    memset(f, 0, sizeof *f);
    f->fmt = fmt;
    for (int i = 0; i < FIG_MAX_SERIES * FIG_MAX_CATS; i++) f->v[i] = NAN;
}

void fig_seed_accuracy(figure *f, const seeds_result *S) {
    fig_init(f, "%.2f");
    int last = S->epochs - 1, N = S->n_seeds < FIG_MAX_CATS ? S->n_seeds : FIG_MAX_CATS;
    f->nc = N;
    for (int sd = 0; sd < N; sd++)
        snprintf(f->cats[sd], sizeof f->cats[sd], "seed %llu", (unsigned long long)(S->seed0 + (uint64_t)sd));
    for (int i = 0; i < S->n_engines && f->ns < FIG_MAX_SERIES; i++) {
        if (!S->eng[i].available) continue;
        snprintf(f->series[f->ns], sizeof f->series[0], "%s", S->eng[i].label);
        f->ns++;
    }
    for (int i = 0, k = 0; i < S->n_engines && k < f->ns; i++) {
        if (!S->eng[i].available) continue;
        for (int sd = 0; sd < N; sd++) *fig_at(f, k, sd) = 100 * S->eng[i].acc[sd][last];
        k++;
    }
}

int fig_layer_time(figure *f, const audit_result *r, const model *m, int ph, int q, int fp32_only) {
    fig_init(f, "%.3g");
    f->nc = m->n_layers < FIG_MAX_CATS ? m->n_layers : FIG_MAX_CATS;
    for (int l = 0; l < f->nc; l++) snprintf(f->cats[l], sizeof f->cats[l], "%s", m->layers[l].name);
    for (int i = 0; i < r->n_engines && f->ns < FIG_MAX_SERIES; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || !ae->tsamples || (fp32_only && ae->is_ref)) continue;
        int k = f->ns++;
        snprintf(f->series[k], sizeof f->series[0], "%s", ae->label);
        for (int l = 0; l < f->nc; l++) {
            double qs[3];
            if (timing_quantiles(&ae->tsamples->layer[l][ph], &qs[0], &qs[1], &qs[2]))
                *fig_at(f, k, l) = 1e3 * qs[q];
        }
    }
    return f->ns;
}

/* The layer of slot s (index into m->layers), n_layers for the loss, -1
 * for an update slot (parameters, Adam moments: not one layer's output). */
static int slot_layer(const audit_result *r, const model *m, int s) {
    if (strcmp(r->slot_phase[s], "update") == 0) return -1;
    char org[64];
    explain_slot_origin(r, m, s, org, sizeof org);
    for (int k = 0; k < m->n_layers; k++) {
        size_t len = strlen(m->layers[k].name);
        if (strncmp(org, m->layers[k].name, len) == 0 && org[len] == ' ') return k;
    }
    return m->n_layers;
}

void fig_layer_error(figure *f, const audit_result *r, const model *m) {
    fig_init(f, "%.3g");
    int nl = m->n_layers < FIG_MAX_CATS - 1 ? m->n_layers : FIG_MAX_CATS - 1;
    f->nc = nl + 1;
    for (int l = 0; l < nl; l++) snprintf(f->cats[l], sizeof f->cats[l], "%s", m->layers[l].name);
    snprintf(f->cats[nl], sizeof f->cats[nl], "loss");
    f->ns = r->n_pairs < FIG_MAX_SERIES ? r->n_pairs : FIG_MAX_SERIES;
    for (int pi = 0; pi < f->ns; pi++) {
        const audit_pair *p = &r->pair[pi];
        snprintf(f->series[pi], sizeof f->series[0], "%s vs %s", r->eng[p->a].label, r->eng[p->b].label);
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            int l = ss->n_steps ? slot_layer(r, m, s) : -1;
            if (l < 0 || l > nl) continue;
            double *cell = fig_at(f, pi, l);
            if (isnan(*cell) || ss->max_rel_l2 > *cell) *cell = ss->max_rel_l2;
        }
    }
}
