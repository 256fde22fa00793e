/*
 * seeds.c — the seed loop and its statistics.  See seeds.h.
 *
 * Each audit of the loop runs in a child process (fork, then audit_drive,
 * which forks the engine processes in turn) and writes its numbers to a
 * pipe in a small binary form: the same executable reads them, so the
 * layout is this file's private business; a magic word and the length
 * checks catch a child that died half-way.  The parent reads every running
 * child's pipe with poll(), so no child blocks on a full pipe while the
 * parent waits on another (a child started alongside the main audit,
 * seeds_start, may block on its pipe until the audit is over: its work is
 * done by then).  A child ends with _exit(): it is a copy of
 * this process doing one job, not a function returning to a caller.
 *
 * Not here: the statistics themselves (stats.c), the audit (audit/driver.c).
 */
#include "audit/seeds.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEEDS_MAGIC 0x3153534cu /* "LSS1" */

/* ---- the jobs ------------------------------------------------------------ */

typedef struct {
    uint64_t seed;
    int floor_only;          /* an extra noise-floor draw at seed s0 */
    char engines[1024];
} job_def;

typedef struct {
    int available, perturb;
    char spec[128];
    double acc[SEEDS_MAX_EPOCHS];
    uint8_t *pred;           /* epochs x n_test */
    double *margin;          /* n_test */
} job_engine;

typedef struct {
    int rc;
    char msg[512];
    double wall, cpu;
    int n_eng, epochs, C;
    size_t n_test;
    long total_steps;
    uint8_t *labels;
    job_engine e[AUDIT_MAX_ENGINES];
    int n_pairs;
    struct {
        int a, b;
        double *rel_l2;
    } p[AUDIT_MAX_PAIRS];
} job_out;

static void job_out_free(job_out *o) {
    free(o->labels);
    for (int i = 0; i < AUDIT_MAX_ENGINES; i++) {
        free(o->e[i].pred);
        free(o->e[i].margin);
    }
    for (int i = 0; i < AUDIT_MAX_PAIRS; i++) free(o->p[i].rel_l2);
    memset(o, 0, sizeof *o);
}

/* ---- the child's message ------------------------------------------------- */

static void put(lsbuf *b, const void *p, size_t n) { lsbuf_put(b, p, n); }
static void put_i64(lsbuf *b, int64_t v) { put(b, &v, sizeof v); }
static void put_f64(lsbuf *b, double v) { put(b, &v, sizeof v); }
static void put_str(lsbuf *b, const char *s) {
    put_i64(b, (int64_t)strlen(s));
    put(b, s, strlen(s));
}

typedef struct {
    const char *p;
    size_t n, pos;
    int bad;
} reader;

static int get(reader *r, void *out, size_t n) {
    if (r->bad || n > r->n - r->pos) {
        r->bad = 1;
        memset(out, 0, n);
        return -1;
    }
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return 0;
}
static int64_t get_i64(reader *r) {
    int64_t v = 0;
    get(r, &v, sizeof v);
    return v;
}
static double get_f64(reader *r) {
    double v = 0;
    get(r, &v, sizeof v);
    return v;
}
static void get_str(reader *r, char *out, size_t cap) {
    int64_t n = get_i64(r);
    if (n < 0 || (size_t)n >= cap) {
        r->bad = 1;
        out[0] = 0;
        return;
    }
    get(r, out, (size_t)n);
    out[r->bad ? 0 : n] = 0;
}

static double tv_s(struct timeval t) { return (double)t.tv_sec + 1e-6 * (double)t.tv_usec; }

/* The message of one audit: r's engines map[0..n_map-1] (indices into
 * r->eng, -1: absent) in that order, and the pairs among them with their
 * indices translated to positions in map.  r NULL: only the error. */
static void put_result(lsbuf *b, int rc, const char *msg, double wall, double cpu, const audit_result *r, const int *map,
                       int n_map) {
    uint32_t magic = SEEDS_MAGIC;
    put(b, &magic, sizeof magic);
    put_i64(b, rc);
    put_str(b, msg);
    put_f64(b, wall);
    put_f64(b, cpu);
    if (!rc && r) {
        int E = r->epochs_done, C = r->n_classes;
        size_t n = r->n_test;
        put_i64(b, n_map);
        put_i64(b, E);
        put_i64(b, (int64_t)n);
        put_i64(b, C);
        put_i64(b, r->total_steps);
        put(b, r->test_labels, n);
        for (int t = 0; t < n_map; t++) {
            const audit_engine *ae = map[t] >= 0 ? &r->eng[map[t]] : NULL;
            /* an engine that died part-way stays `available` with its later
             * epochs unevaluated: accuracy NaN, predictions the calloc's
             * zeros (class 0 for every image), logits an earlier epoch's;
             * none of that is this seed's result */
            int ok = ae && ae->available && !ae->failed && ae->pred_epoch && ae->logits;
            put_i64(b, ok);
            put_i64(b, ae ? ae->perturb_ulps : 0);
            put_str(b, ae ? ae->spec : "");
            if (!ok) continue;
            put(b, ae->test_acc, (size_t)E * sizeof(double));
            put(b, ae->pred_epoch, (size_t)E * n);
            put(b, ae->logits, n * (size_t)C * sizeof(float));
        }
        int pos[AUDIT_MAX_ENGINES], np = 0;
        for (int i = 0; i < AUDIT_MAX_ENGINES; i++) pos[i] = -1;
        for (int t = 0; t < n_map; t++)
            if (map[t] >= 0) pos[map[t]] = t;
        for (int pi = 0; pi < r->n_pairs; pi++) np += pos[r->pair[pi].a] >= 0 && pos[r->pair[pi].b] >= 0;
        put_i64(b, np);
        for (int pi = 0; pi < r->n_pairs; pi++) {
            if (pos[r->pair[pi].a] < 0 || pos[r->pair[pi].b] < 0) continue;
            put_i64(b, pos[r->pair[pi].a]);
            put_i64(b, pos[r->pair[pi].b]);
            put(b, r->pair[pi].param_rel_l2, (size_t)r->total_steps * sizeof(double));
        }
    }
    put(b, &magic, sizeof magic);
}

/* Run one audit and write its numbers (or its error) to fd. */
static void child_run(const audit_cfg *base, const job_def *j, int fd) {
    audit_cfg c = *base;
    c.run.seed = j->seed;
    c.engines = j->engines;
    c.mode = MODE_FREE;
    c.repeat = 1;
    c.eval = 1;
    c.out = NULL;
    c.out_dir = NULL;
    /* no reference here, and full comparisons only at steps 1 and last:
     * the per-step parameter distance is all the loop needs */
    c.ref_steps = 0;
    c.audit_every = 0;
    /* the drift phase only: no seed loop of its own (the audit runs the
     * loop from inside), no attribution, no round trip, no gate */
    c.seeds = 0;
    c.attribution_steps = 0;
    c.roundtrip = 0;
    /* nor every-step checksums: on this machine they still cost more than
     * a cpu training step (tests/bench_checksums: 1.3-1.8x with 2 threads),
     * and the loop's question is the spread over seeds of the same engines
     * the main run checked at every step; the loop's steps are stated as
     * unchecked (the console's coverage line, run.json
     * seeds.loop_runs_checked; README, "Known limits"; tests/EVIDENCE.md,
     * "Tried and measured, not kept") */
    c.checksums = 0;
    c.verbose = 0;
    c.fail_on = 0;
    c.run.progress = 0;
    c.run.print_steps = 0;
    c.run.max_steps = -1;
    run_note_limits_mute(); /* a --limit-test past the data: the main audit says so */
    /* the result is megabytes (a slot table per pair): not on the stack */
    audit_result *rp = ls_calloc(1, sizeof *rp);
    double t0 = ls_now();
    int rc = rp ? audit_drive(&c, rp) : LS_ENOMEM;
    audit_result *rr = rp;
    /* CPU time of this audit: its own and its engine processes' (all
     * reaped by audit_drive): what the audit costs however busy the
     * machine is (but spinning OpenMP threads count) */
    struct rusage ru_self, ru_kids;
    getrusage(RUSAGE_SELF, &ru_self);
    getrusage(RUSAGE_CHILDREN, &ru_kids);
    double cpu = tv_s(ru_self.ru_utime) + tv_s(ru_self.ru_stime) + tv_s(ru_kids.ru_utime) + tv_s(ru_kids.ru_stime);
    lsbuf b;
    lsbuf_init(&b);
    int map[AUDIT_MAX_ENGINES];
    for (int i = 0; i < AUDIT_MAX_ENGINES; i++) map[i] = i;
    put_result(&b, rc, rc ? ls_errmsg() : "", ls_now() - t0, cpu, rc ? NULL : rr, map, rc ? 0 : rr->n_engines);
    if (!rc) audit_result_free(rr);
    free(rp);
    const char *p = b.s;
    size_t left = b.failed ? 0 : b.len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        p += w;
        left -= (size_t)w;
    }
    lsbuf_free(&b);
}

/* Parse a child's message into o; margins are computed here and the
 * logits dropped.  Returns 0 or an error (a truncated message: the child
 * died). */
static int parse_job(const char *buf, size_t len, job_out *o) {
    memset(o, 0, sizeof *o);
    reader r = {buf, len, 0, 0};
    uint32_t magic = 0;
    get(&r, &magic, sizeof magic);
    if (r.bad || magic != SEEDS_MAGIC) return ls_err(LS_EIO, "no result (the process died before writing one)");
    o->rc = (int)get_i64(&r);
    get_str(&r, o->msg, sizeof o->msg);
    o->wall = get_f64(&r);
    o->cpu = get_f64(&r);
    if (!r.bad && o->rc == 0) {
        o->n_eng = (int)get_i64(&r);
        o->epochs = (int)get_i64(&r);
        o->n_test = (size_t)get_i64(&r);
        o->C = (int)get_i64(&r);
        o->total_steps = (long)get_i64(&r);
        if (r.bad || o->n_eng < 1 || o->n_eng > AUDIT_MAX_ENGINES || o->epochs < 1 || o->epochs > SEEDS_MAX_EPOCHS ||
            o->C < 2 || o->C > 256 || o->n_test > len || o->total_steps < 0 || (size_t)o->total_steps > len)
            return ls_err(LS_EFORMAT, "a malformed result");
        size_t n = o->n_test;
        if (!(o->labels = ls_malloc(n ? n : 1))) return LS_ENOMEM;
        get(&r, o->labels, n);
        float *logits = NULL;
        for (int i = 0; i < o->n_eng && !r.bad; i++) {
            job_engine *e = &o->e[i];
            e->available = (int)get_i64(&r);
            e->perturb = (int)get_i64(&r);
            get_str(&r, e->spec, sizeof e->spec);
            if (!e->available) continue;
            get(&r, e->acc, (size_t)o->epochs * sizeof(double));
            e->pred = ls_malloc((size_t)o->epochs * n + 1);
            e->margin = ls_malloc((n ? n : 1) * sizeof(double));
            if (!logits) logits = ls_malloc((n ? n : 1) * (size_t)o->C * sizeof(float));
            if (!e->pred || !e->margin || !logits) {
                free(logits);
                return LS_ENOMEM;
            }
            get(&r, e->pred, (size_t)o->epochs * n);
            get(&r, logits, n * (size_t)o->C * sizeof(float));
            if (!r.bad) stats_margins(e->margin, logits, n, o->C);
        }
        free(logits);
        o->n_pairs = (int)get_i64(&r);
        if (o->n_pairs < 0 || o->n_pairs > AUDIT_MAX_PAIRS) r.bad = 1;
        for (int pi = 0; pi < o->n_pairs && !r.bad; pi++) {
            o->p[pi].a = (int)get_i64(&r);
            o->p[pi].b = (int)get_i64(&r);
            if (!(o->p[pi].rel_l2 = ls_malloc(((size_t)o->total_steps + 1) * sizeof(double)))) return LS_ENOMEM;
            get(&r, o->p[pi].rel_l2, (size_t)o->total_steps * sizeof(double));
        }
    }
    get(&r, &magic, sizeof magic);
    if (r.bad || magic != SEEDS_MAGIC) return ls_err(LS_EFORMAT, "a truncated result (the process died while writing)");
    return LS_OK;
}

/* ---- the engine list ----------------------------------------------------- */

static int is_reference(const char *tok) {
    engine_spec s;
    if (engine_spec_parse(&s, tok) != 0) return 0;
    return strcmp(s.name, "reference") == 0 || strcmp(s.name, "ref") == 0;
}

/* tok without its perturb= and draw= knobs */
static void strip_perturb(char *out, size_t cap, const char *tok) {
    engine_spec s;
    if (engine_spec_parse(&s, tok) != 0) {
        snprintf(out, cap, "%s", tok);
        return;
    }
    int n = snprintf(out, cap, "%s", s.name);
    for (int q = 0; q < s.n_knobs && n >= 0 && (size_t)n < cap; q++)
        if (strcmp(s.key[q], "perturb") != 0 && strcmp(s.key[q], "draw") != 0)
            n += snprintf(out + n, cap - (size_t)n, ":%s=%s", s.key[q], s.val[q]);
}


/* ---- aggregation --------------------------------------------------------- */

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median_of(double *v, int n) {
    if (n < 1) return NAN;
    double s[SEEDS_MAX];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i])) s[m++] = v[i];
    if (!m) return NAN;
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return m % 2 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
}

static int is_floor_pair(const job_out *o, int a, int b) {
    return strcmp(o->e[a].spec, o->e[b].spec) == 0 && (o->e[a].perturb > 0) != (o->e[b].perturb > 0);
}

static const double *job_curve(const job_out *o, int a, int b) {
    for (int pi = 0; pi < o->n_pairs; pi++)
        if ((o->p[pi].a == a && o->p[pi].b == b) || (o->p[pi].a == b && o->p[pi].b == a)) return o->p[pi].rel_l2;
    return NULL;
}

/* Scratch for the pair statistics: allocated once for every pair. */
typedef struct {
    double *scratch, *pool_a, *pool_b, *pool_r, *all_a, *sorted;
    long *steps;
} pair_scratch;

/* The noise floor: every floor pair of every job, last epoch (before the
 * engines take the predictions over); the floor pairs' divergence curves go
 * to curves[] for the band. */
static void agg_floor(seeds_result *R, const job_out *jo, int n_jobs, const double **curves, int max_curves,
                      int *n_curves) {
    size_t n = R->n_test;
    int last = R->epochs - 1;
    R->n_draws = 0;
    for (int j = 0; j < n_jobs; j++) {
        const job_out *o = &jo[j];
        for (int a = 0; a < o->n_eng; a++)
            for (int b = a + 1; b < o->n_eng; b++) {
                if (!o->e[a].available || !o->e[b].available || !is_floor_pair(o, a, b)) continue;
                if (R->n_draws >= 2 * SEEDS_MAX) continue;
                long fl = 0;
                for (size_t k = 0; k < n; k++) fl += o->e[a].pred[(size_t)last * n + k] != o->e[b].pred[(size_t)last * n + k];
                R->floor_flips_draw[R->n_draws] = (double)fl;
                R->floor_gap_draw[R->n_draws] = fabs(o->e[a].acc[last] - o->e[b].acc[last]);
                R->n_draws++;
                const double *cv = job_curve(o, a, b);
                if (cv && *n_curves < max_curves) curves[(*n_curves)++] = cv;
            }
    }
}

/* engines: the seed jobs list the tokens in order; each engine takes its
 * predictions and margins over from the jobs */
static void agg_engines(seeds_result *R, job_out *jo, char tokens[][256], int n_tok) {
    int N = R->n_seeds, E = R->epochs;
    const job_out *j0 = &jo[0];
    R->n_engines = n_tok;
    for (int i = 0; i < n_tok; i++) {
        seeds_engine *se = &R->eng[i];
        snprintf(se->label, sizeof se->label, "%s", tokens[i]);
        se->perturbed = j0->e[i].perturb > 0;
        se->available = 1;
        se->missing_seed = -1;
        for (int s = 0; s < N; s++) {
            if (!jo[s].e[i].available && se->missing_seed < 0) se->missing_seed = s;
            se->available &= jo[s].e[i].available;
        }
        if (!se->available) continue;
        for (int s = 0; s < N; s++) {
            memcpy(se->acc[s], jo[s].e[i].acc, (size_t)E * sizeof(double));
            se->pred[s] = jo[s].e[i].pred;
            se->margin[s] = jo[s].e[i].margin;
            jo[s].e[i].pred = NULL;
            jo[s].e[i].margin = NULL;
        }
        for (int ep = 0; ep < E; ep++) {
            double v[SEEDS_MAX];
            for (int s = 0; s < N; s++) v[s] = se->acc[s][ep];
            stats_spread_of(&se->spread[ep], v, N);
        }
    }
}

/* the floor's spread and the noise band of the divergence curves */
static int agg_band(seeds_result *R, const double **curves, int n_curves) {
    long T = R->total_steps;
    stats_floor_of(&R->floor_flips, R->floor_flips_draw, R->n_draws);
    stats_floor_of(&R->floor_gap, R->floor_gap_draw, R->n_draws);
    if (!(R->band_lo = ls_malloc(((size_t)T + 1) * sizeof(double))) ||
        !(R->band_hi = ls_malloc(((size_t)T + 1) * sizeof(double))))
        return LS_ENOMEM;
    if (n_curves) stats_band(R->band_lo, R->band_hi, curves, n_curves, (size_t)T);
    else
        for (long s = 0; s < T; s++) R->band_lo[s] = R->band_hi[s] = NAN;
    return LS_OK;
}

/* flips and exact McNemar per seed and epoch (per class at the last epoch) */
static int pair_flips(seeds_result *R, seeds_pair *p) {
    int N = R->n_seeds, E = R->epochs, last = E - 1;
    size_t n = R->n_test;
    int C = R->n_classes;
    const seeds_engine *ea = &R->eng[p->a], *eb = &R->eng[p->b];
    for (int s = 0; s < N; s++) {
        for (int ep = 0; ep < E; ep++) {
            const uint8_t *pa = ea->pred[s] + (size_t)ep * n, *pb = eb->pred[s] + (size_t)ep * n;
            long fl = 0;
            for (size_t k = 0; k < n; k++) fl += pa[k] != pb[k];
            p->flips[s][ep] = fl;
            int want_class = ep == last;
            if (want_class && !(p->mcnemar_class[s] = ls_calloc((size_t)C, sizeof(stats_mcnemar))))
                return LS_ENOMEM;
            stats_mcnemar_fill(&p->mcnemar[s][ep], want_class ? p->mcnemar_class[s] : NULL, pa, pb, R->labels,
                               n, C);
        }
    }
    return LS_OK;
}

/* the paired gap per epoch and the verdict in words */
static void pair_verdict(seeds_result *R, seeds_pair *p) {
    int N = R->n_seeds, E = R->epochs, last = E - 1;
    const seeds_engine *ea = &R->eng[p->a], *eb = &R->eng[p->b];
    for (int ep = 0; ep < E; ep++) {
        double va[SEEDS_MAX], vb[SEEDS_MAX];
        for (int s = 0; s < N; s++) {
            va[s] = ea->acc[s][ep];
            vb[s] = eb->acc[s][ep];
        }
        stats_paired_of(&p->paired[ep], va, vb, N);
    }
    stats_seed_verdict(p->verdict, sizeof p->verdict, &p->paired[last], ea->label, eb->label);
    /* a t-interval over a few seeds is fooled 5% of the time by
     * design, more when the sd of three gaps happens to be small:
     * say too whether the gap is larger than what moving one
     * engine's weights by 1 ulp does */
    p->beyond_floor = -1;
    if (R->n_draws > 0 && !isnan(p->paired[last].mean)) {
        p->beyond_floor = fabs(p->paired[last].mean) > R->floor_gap.max;
        if (p->paired[last].indistinguishable == 0) {
            size_t len = strlen(p->verdict);
            snprintf(p->verdict + len, sizeof p->verdict - len, p->beyond_floor
                         ? "; beyond the noise floor (|gap| max %.2f points over %d draws)"
                         : "; but within the noise floor (|gap| up to %.2f points over %d draws)",
                     100 * R->floor_gap.max, R->n_draws);
        }
    }
}

/* against the floor: in how many seeds the flips and the gap lie within it */
static void pair_against_floor(seeds_result *R, seeds_pair *p) {
    int N = R->n_seeds, last = R->epochs - 1;
    const seeds_engine *ea = &R->eng[p->a], *eb = &R->eng[p->b];
    p->flips_p_emp_min = p->flips_p_emp_max = NAN;
    for (int s = 0; s < N && R->n_draws; s++) {
        double pe;
        p->flips_within += stats_floor_within(R->floor_flips_draw, R->n_draws, (double)p->flips[s][last], &pe) == 1;
        if (isnan(p->flips_p_emp_min) || pe < p->flips_p_emp_min) p->flips_p_emp_min = pe;
        if (isnan(p->flips_p_emp_max) || pe > p->flips_p_emp_max) p->flips_p_emp_max = pe;
        p->gap_within += stats_floor_within(R->floor_gap_draw, R->n_draws, fabs(ea->acc[s][last] - eb->acc[s][last]),
                                            NULL) == 1;
    }
}

/* margins of the last epoch's flips, pooled over seeds; each
 * flip's rank among its own seed's margins on engine a */
static void pair_margins(seeds_result *R, seeds_pair *p, const pair_scratch *w) {
    int N = R->n_seeds, last = R->epochs - 1;
    size_t n = R->n_test;
    const seeds_engine *ea = &R->eng[p->a], *eb = &R->eng[p->b];
    double *scratch = w->scratch, *pool_a = w->pool_a, *pool_b = w->pool_b, *pool_r = w->pool_r, *all_a = w->all_a,
           *sorted = w->sorted;
    size_t nf = 0, na = 0;
    for (int s = 0; s < N; s++) {
        const uint8_t *pa = ea->pred[s] + (size_t)last * n, *pb = eb->pred[s] + (size_t)last * n;
        size_t ns = 0;
        for (size_t k = 0; k < n; k++) {
            all_a[na++] = ea->margin[s][k];
            if (!isnan(ea->margin[s][k])) sorted[ns++] = ea->margin[s][k];
        }
        qsort(sorted, ns, sizeof *sorted, cmp_double);
        for (size_t k = 0; k < n; k++) {
            if (pa[k] == pb[k]) continue;
            pool_a[nf] = ea->margin[s][k];
            pool_b[nf] = eb->margin[s][k];
            stats_margin_ranks(&pool_r[nf], &pool_a[nf], 1, sorted, ns);
            nf++;
        }
    }
    stats_summarize(&p->margin_flip_a, pool_a, nf, scratch);
    stats_summarize(&p->margin_flip_b, pool_b, nf, scratch);
    stats_summarize(&p->margin_all_a, all_a, na, scratch);
    stats_summarize(&p->flip_rank_a, pool_r, nf, scratch);
    p->total_flips = (long)nf;
    p->near_tie_flips = (long)stats_count_below(pool_r, nf, SEEDS_NEAR_TIE_RANK);
}

/* divergence per seed: growth fit and exit from the floor band */
static int pair_divergence(seeds_result *R, job_out *jo, seeds_pair *p, const long *steps, int n_curves) {
    int N = R->n_seeds, a = p->a, b = p->b;
    long T = R->total_steps;
    double rates[SEEDS_MAX];
    for (int s = 0; s < N; s++) {
        p->band_exit[s] = -1;
        rates[s] = NAN;
        for (int pi = 0; pi < jo[s].n_pairs; pi++)
            if ((jo[s].p[pi].a == a && jo[s].p[pi].b == b) || (jo[s].p[pi].a == b && jo[s].p[pi].b == a)) {
                p->rel_l2[s] = jo[s].p[pi].rel_l2;
                if (!p->floor_pair) jo[s].p[pi].rel_l2 = NULL; /* floor curves stay: the band points at them */
                else if (!(p->rel_l2[s] = ls_malloc(((size_t)T + 1) * sizeof(double))))
                    return LS_ENOMEM;
                else
                    memcpy(p->rel_l2[s], jo[s].p[pi].rel_l2, (size_t)T * sizeof(double));
                break;
            }
        if (!p->rel_l2[s]) continue;
        stats_growth_fit(&p->growth[s], steps, p->rel_l2[s], (size_t)T, 1, -1);
        rates[s] = p->growth[s].rate;
        if (n_curves && !p->floor_pair) {
            long e = stats_band_exit(p->rel_l2[s], R->band_hi, (size_t)T, STATS_BAND_FACTOR, STATS_BAND_RUN);
            p->band_exit[s] = e < 0 ? 0 : e + 1;
        }
    }
    p->rate_median = median_of(rates, N);
    return LS_OK;
}

/* one pair among the engines that ran in every seed */
static int agg_pair(seeds_result *R, job_out *jo, seeds_pair *p, const pair_scratch *w, int n_curves) {
    int rc = pair_flips(R, p);
    if (rc) return rc;
    pair_verdict(R, p);
    pair_against_floor(R, p);
    pair_margins(R, p, w);
    return pair_divergence(R, jo, p, w->steps, n_curves);
}

static int aggregate(seeds_result *R, job_out *jo, int n_jobs, char tokens[][256], int n_tok) {
    int N = R->n_seeds;
    const job_out *j0 = &jo[0];
    R->epochs = j0->epochs;
    R->n_test = j0->n_test;
    R->n_classes = j0->C;
    R->total_steps = j0->total_steps;
    for (int j = 1; j < n_jobs; j++)
        if (jo[j].epochs != R->epochs || jo[j].n_test != R->n_test || jo[j].total_steps != R->total_steps)
            return ls_err(LS_EINVAL, "seed loop: the audits disagree on epochs, steps or test images");
    size_t n = R->n_test;
    long T = R->total_steps;
    R->labels = jo[0].labels;
    jo[0].labels = NULL;
    const double *curves[2 * SEEDS_MAX * 4];
    int n_curves = 0;
    agg_floor(R, jo, n_jobs, curves, (int)LS_ARRAY_LEN(curves), &n_curves);
    agg_engines(R, jo, tokens, n_tok);
    if (agg_band(R, curves, n_curves)) return LS_ENOMEM;

    /* pairs among the engines that ran in every seed */
    pair_scratch w;
    w.scratch = ls_malloc(((size_t)N * n + 1) * sizeof(double));
    w.pool_a = ls_malloc(((size_t)N * n + 1) * sizeof(double));
    w.pool_b = ls_malloc(((size_t)N * n + 1) * sizeof(double));
    w.pool_r = ls_malloc(((size_t)N * n + 1) * sizeof(double));
    w.all_a = ls_malloc(((size_t)N * n + 1) * sizeof(double));
    w.sorted = ls_malloc((n + 1) * sizeof(double));
    w.steps = ls_malloc(((size_t)T + 1) * sizeof(long));
    int rc = LS_OK;
    if (!w.scratch || !w.pool_a || !w.pool_b || !w.pool_r || !w.all_a || !w.sorted || !w.steps) {
        rc = LS_ENOMEM;
        goto done;
    }
    for (long t = 0; t < T; t++) w.steps[t] = t + 1;
    R->n_pairs = 0;
    for (int a = 0; a < n_tok && rc == LS_OK; a++)
        for (int b = a + 1; b < n_tok && rc == LS_OK; b++) {
            if (!R->eng[a].available || !R->eng[b].available) continue;
            seeds_pair *p = &R->pair[R->n_pairs++];
            memset(p, 0, sizeof *p);
            p->a = a;
            p->b = b;
            p->floor_pair = is_floor_pair(j0, a, b);
            rc = agg_pair(R, jo, p, &w, n_curves);
        }
done:
    free(w.scratch);
    free(w.pool_a);
    free(w.pool_b);
    free(w.pool_r);
    free(w.all_a);
    free(w.sorted);
    free(w.steps);
    return rc;
}

/* ---- the loop ------------------------------------------------------------ */

typedef struct {
    pid_t pid;
    int fd;
    lsbuf buf;
} running_job;

/* Start job j: a child that runs it and writes to a pipe. */
static int start_job(const audit_cfg *base, const job_def *jd, running_job *rj, const running_job *all, int n_all,
                     int low_prio) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return ls_err(LS_EIO, "seed loop: pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return ls_err(LS_EIO, "seed loop: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        for (int i = 0; i < n_all; i++)
            if (all[i].pid > 0) close(all[i].fd); /* the other jobs' pipes are not ours */
        /* the parent decides when we stop: SIGINT or SIGTERM to the whole
         * group (timeout, scancel) is the user's stop, which the parent turns
         * into a report marked interrupted; it ends us with SIGKILL, and if
         * it dies first the kernel does */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);
        /* started alongside the main audit: Linux's idle scheduling class,
         * so that it runs only on the cores the audit leaves idle and
         * yields the moment one of the audit's processes wakes (nice 19
         * measured worse: see seeds.h); its engine processes inherit it.
         * Not fatal if refused: then nice 19, or the cores shared. */
        if (low_prio) {
            struct sched_param sp = {0};
            if (sched_setscheduler(0, SCHED_IDLE, &sp) != 0 && setpriority(PRIO_PROCESS, 0, 19) != 0) {
            }
        }
        child_run(base, jd, fds[1]);
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    rj->pid = pid;
    rj->fd = fds[0];
    lsbuf_init(&rj->buf);
    return LS_OK;
}

/* The seed loop's arguments, checked before anything forks. */
static int seeds_check_cfg(const audit_cfg *base, const seeds_cfg *sc) {
    int N = sc->n_seeds, K = sc->floor_draws, J = sc->jobs;
    if (N < 1 || N > SEEDS_MAX) return ls_err(LS_EINVAL, "--seeds must be in 1..%d", SEEDS_MAX);
    if (K < 0 || N + K > 2 * SEEDS_MAX) return ls_err(LS_EINVAL, "--floor-draws must be in 0..%d", 2 * SEEDS_MAX - N);
    if (J < 1 || J > 64) return ls_err(LS_EINVAL, "--jobs must be in 1..64");
    if (base->run.epochs < 1 || base->run.epochs > SEEDS_MAX_EPOCHS)
        return ls_err(LS_EINVAL, "--epochs must be in 1..%d for the seed loop", SEEDS_MAX_EPOCHS);
    int nt = ls_thread_count();
    if (nt > 1)
        return ls_err(LS_EINVAL, "seed loop: cannot fork audits from a process already running %d threads "
                      "(run the seed loop before anything starts a thread pool)", nt);
    return LS_OK;
}

/* The non-reference engines of the list, in order, each once, and the
 * noise-floor engine (the first perturbed one, or the first engine moved
 * 1 ulp); partner: the floor engine without its perturbation. */
static int seeds_tokens(const audit_cfg *base, const audit_result *prior, char tokens[][256], int *n_tok_out,
                        int *floor_tok_out, char *partner, size_t partner_cap) {
    int n_tok = 0, floor_tok = -1;
    char list[1024];
    if (strlen(base->engines) >= sizeof list) return ls_err(LS_EINVAL, "--engines list too long");
    snprintf(list, sizeof list, "%s", base->engines);
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        if (!*t || is_reference(t)) continue;
        /* an engine listed twice is a determinism check, not another
         * engine: the seed loop trains it once */
        int dup = 0;
        for (int k = 0; k < n_tok && !dup; k++) dup = strcmp(tokens[k], t) == 0;
        if (dup) continue;
        if (n_tok >= AUDIT_MAX_ENGINES - 1) return ls_err(LS_EINVAL, "seed loop: too many engines");
        engine_spec sp;
        /* an engine the audit could not run (cuda without a GPU) cannot run
         * in the loop's audits either: leaving it out of the loop's engines
         * lets seed s0 be the audit's own run instead of a retrained copy
         * (the jobs still list it, so that the others keep their places:
         * seeds_run) */
        int unavailable = 0;
        for (int i = 0; prior && i < prior->n_engines; i++)
            unavailable |= strcmp(prior->eng[i].label, t) == 0 && !prior->eng[i].available;
        if (unavailable) continue;
        snprintf(tokens[n_tok], sizeof tokens[n_tok], "%s", t);
        if (engine_spec_parse(&sp, t) == 0 && engine_spec_get(&sp, "perturb", NULL) && floor_tok < 0) floor_tok = n_tok;
        n_tok++;
    }
    if (n_tok == 0) return ls_err(LS_EINVAL, "seed loop: no engine that trains whole epochs in --engines");
    if (floor_tok < 0) {
        /* no noise floor listed: the first engine moved 1 ulp */
        char first[256];
        snprintf(first, sizeof first, "%.255s", tokens[0]); /* a token holds at most 255 */
        snprintf(tokens[n_tok], sizeof tokens[n_tok], "%.200s:perturb=1", first);
        floor_tok = n_tok++;
    }
    strip_perturb(partner, partner_cap, tokens[floor_tok]);
    *n_tok_out = n_tok;
    *floor_tok_out = floor_tok;
    return LS_OK;
}

/* jobs: N seeds, then K extra floor draws at the first seed.  Seed job i
 * draws direction i; floor job k draws N + k: all directions differ. */
static int seeds_job_defs(job_def *jd, int n_jobs, int N, const audit_cfg *base, char tokens[][256], int n_tok,
                          int floor_tok, const char *partner) {
    for (int j = 0; j < n_jobs; j++) {
        job_def *d = &jd[j];
        int draw = j;
        d->seed = base->run.seed + (uint64_t)(j < N ? j : 0);
        d->floor_only = j >= N;
        size_t len = 0;
        for (int t = 0; t < n_tok; t++) {
            if (d->floor_only && t != floor_tok) continue;
            if (d->floor_only && len == 0)
                len += (size_t)snprintf(d->engines + len, sizeof d->engines - len, "%s,", partner);
            engine_spec sp;
            int pert = engine_spec_parse(&sp, tokens[t]) == 0 && engine_spec_get(&sp, "perturb", NULL);
            int has_draw = pert && engine_spec_get(&sp, "draw", NULL);
            len += (size_t)snprintf(d->engines + len, sizeof d->engines - len, "%s%s", len && d->engines[len - 1] != ',' ? "," : "",
                                    tokens[t]);
            if (pert && !has_draw) len += (size_t)snprintf(d->engines + len, sizeof d->engines - len, ":draw=%d", draw);
            if (len >= sizeof d->engines) return ls_err(LS_EINVAL, "seed loop: engine list too long");
        }
    }
    return LS_OK;
}

/* Seed s0 is the main audit's own drift when that audit trained these
 * engines freely over the same run: in free mode the reference
 * engines' shadow steps copy state *to* the references, never from
 * them, so the other engines' trajectories do not depend on whether a
 * reference ran.  Its perturbed engine keeps the direction the main
 * audit drew (a different one from the loop's, which is all a draw
 * needs).  *next: 1 when job 0 was taken from the audit, else 0. */
static int seed0_from_audit(const audit_cfg *base, const audit_result *prior, char tokens[][256], int n_tok,
                            job_out *jo0, seeds_result *out, int *next) {
    int rc = LS_OK;
    *next = 0;
    if (prior && base->mode == MODE_FREE && base->repeat == 1 && base->eval && base->run.max_steps < 0 &&
        prior->epochs_done == base->run.epochs && prior->test_labels) {
        int map[AUDIT_MAX_ENGINES], ok = 1;
        for (int t = 0; t < n_tok && ok; t++) {
            map[t] = -1;
            for (int i = 0; i < prior->n_engines; i++)
                if (strcmp(prior->eng[i].label, tokens[t]) == 0 && prior->eng[i].available) map[t] = i;
            ok = map[t] >= 0;
        }
        if (ok) {
            lsbuf b;
            lsbuf_init(&b);
            put_result(&b, 0, "", prior->total_s, NAN, prior, map, n_tok);
            rc = b.failed ? ls_err(LS_ENOMEM, "out of memory") : parse_job(b.s, b.len, jo0);
            lsbuf_free(&b);
            if (rc) return rc;
            out->job_s[0] = prior->total_s;
            out->job_cpu_s[0] = NAN;
            out->seed0_from_audit = 1;
            *next = 1;
        }
    }
    return rc;
}

/* The jobs of one seed loop and their bookkeeping while they run. */
typedef struct {
    const audit_cfg *base;
    job_def *jd;
    job_out *jo;
    running_job *rj;
    struct pollfd *pf;
    int *pf_job;
    int n_jobs;
    /* the jobs train every engine of the list, the ones the main audit
     * could not run too (which then fail to start there as well), so that
     * each engine keeps its place and its perturbation direction, started
     * early or not; perm[t]: the position in their list of the loop's
     * engine t (n_perm engines; 0: the same list) */
    const int *perm;
    int n_perm;
} job_set;

/* A job's numbers in the loop's engine order: the engines the main audit
 * could not run (perm leaves them out) are dropped, with their pairs. */
static void job_remap(job_out *o, const int *perm, int n_final) {
    if (o->rc) return;
    job_engine e[AUDIT_MAX_ENGINES];
    int inv[AUDIT_MAX_ENGINES];
    memset(e, 0, sizeof e);
    for (int u = 0; u < AUDIT_MAX_ENGINES; u++) inv[u] = -1;
    for (int t = 0; t < n_final; t++) {
        if (perm[t] < 0 || perm[t] >= o->n_eng) continue;
        e[t] = o->e[perm[t]];
        o->e[perm[t]].pred = NULL;
        o->e[perm[t]].margin = NULL;
        inv[perm[t]] = t;
    }
    for (int u = 0; u < AUDIT_MAX_ENGINES; u++) {
        free(o->e[u].pred);
        free(o->e[u].margin);
    }
    memcpy(o->e, e, sizeof e);
    o->n_eng = n_final;
    int np = 0;
    for (int pi = 0; pi < o->n_pairs; pi++) {
        int a = o->p[pi].a >= 0 && o->p[pi].a < AUDIT_MAX_ENGINES ? inv[o->p[pi].a] : -1;
        int b = o->p[pi].b >= 0 && o->p[pi].b < AUDIT_MAX_ENGINES ? inv[o->p[pi].b] : -1;
        if (a < 0 || b < 0) {
            free(o->p[pi].rel_l2);
            o->p[pi].rel_l2 = NULL;
            continue;
        }
        double *rl = o->p[pi].rel_l2;
        o->p[pi].rel_l2 = NULL;
        o->p[np].a = a, o->p[np].b = b, o->p[np].rel_l2 = rl;
        np++;
    }
    o->n_pairs = np;
}

/* Job j's pipe reached EOF (or a read error): reap the child, parse what it
 * wrote; the first job that failed names the loop's error. */
static void job_finished(const job_set *js, int j, seeds_result *out, int *rc, int *failed_job) {
    running_job *r = &js->rj[j];
    job_out *jo = js->jo;
    const job_def *jd = js->jd;
    close(r->fd);
    int status = 0;
    while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR) {
    }
    r->pid = 0;
    int prc = r->buf.failed ? ls_err(LS_ENOMEM, "out of memory") : parse_job(r->buf.s, r->buf.len, &jo[j]);
    lsbuf_free(&r->buf);
    if (!prc && jo[j].rc) prc = ls_err(jo[j].rc, "%s", jo[j].msg);
    if (prc && *failed_job < 0) {
        char why[600];
        snprintf(why, sizeof why, "%s", ls_errmsg());
        if (WIFSIGNALED(status)) snprintf(why, sizeof why, "the process died: signal %d", WTERMSIG(status));
        *rc = ls_err(prc, "seed loop, seed %llu%s: %s", (unsigned long long)jd[j].seed,
                     jd[j].floor_only ? " (noise-floor draw)" : "", why);
        *failed_job = j;
    }
    if (!prc && !jd[j].floor_only && js->n_perm) job_remap(&jo[j], js->perm, js->n_perm);
    out->job_s[j] = jo[j].wall;
    out->job_cpu_s[j] = jo[j].cpu;
}

/* Run the jobs not yet started (started[j] 0), with at most J at once
 * (counting those already running), reading every pipe as it fills,
 * until all are done or one failed. */
static int run_jobs(const job_set *js, char *started, int J, seeds_result *out, int *failed_job) {
    int rc = LS_OK, n_running = 0, n_jobs = js->n_jobs, next = 0;
    running_job *rj = js->rj;
    struct pollfd *pf = js->pf;
    int *pf_job = js->pf_job;
    for (int j = 0; j < n_jobs; j++) n_running += started[j] && rj[j].pid > 0;
    for (;;) {
        while (next < n_jobs && started[next]) next++;
        if (!((next < n_jobs && *failed_job < 0) || n_running > 0)) break;
        if (ls_stop_signal()) /* the caller reports the main run, marked interrupted */
            return ls_err(LS_EIO, "stopped by signal %d", ls_stop_signal());
        while (n_running < J && next < n_jobs && *failed_job < 0) {
            if ((rc = start_job(js->base, &js->jd[next], &rj[next], rj, n_jobs, 0))) {
                *failed_job = next;
                break;
            }
            started[next] = 1;
            n_running++;
            while (next < n_jobs && started[next]) next++;
        }
        int np = 0;
        for (int j = 0; j < n_jobs; j++)
            if (rj[j].pid > 0) {
                pf[np] = (struct pollfd){.fd = rj[j].fd, .events = POLLIN};
                pf_job[np++] = j;
            }
        if (np == 0) break;
        if (poll(pf, (nfds_t)np, -1) < 0) {
            if (errno == EINTR) continue;
            rc = ls_err(LS_EIO, "seed loop: poll: %s", strerror(errno));
            break;
        }
        for (int q = 0; q < np; q++) {
            if (!(pf[q].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            running_job *r = &rj[pf_job[q]];
            char chunk[65536];
            ssize_t got = read(r->fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR) continue;
            if (got > 0) {
                lsbuf_put(&r->buf, chunk, (size_t)got);
                continue;
            }
            n_running--;
            job_finished(js, pf_job[q], out, &rc, failed_job);
        }
    }
    return rc;
}

/* Would seed s0 be taken from the main audit, as far as its configuration
 * tells before it runs (seed0_from_audit also needs the run complete)? */
static int seed0_expected(const audit_cfg *base) {
    return base->mode == MODE_FREE && base->repeat == 1 && base->eval && base->run.max_steps < 0;
}

struct seeds_early {
    int n_jobs;
    job_def *jd;
    running_job *rj;
    char *started;
    double t0;
};

static void kill_jobs(running_job *rj, int n) {
    for (int j = 0; rj && j < n; j++)
        if (rj[j].pid > 0) {
            kill(rj[j].pid, SIGKILL); /* they ignore SIGTERM (start_job) */
            close(rj[j].fd);
            waitpid(rj[j].pid, NULL, 0);
            lsbuf_free(&rj[j].buf);
            rj[j].pid = 0;
        }
}

void seeds_early_free(seeds_early *e) {
    if (!e) return;
    kill_jobs(e->rj, e->n_jobs);
    free(e->jd);
    free(e->rj);
    free(e->started);
    free(e);
}

int seeds_start(const audit_cfg *base, const seeds_cfg *sc, seeds_early **out) {
    *out = NULL;
    int rc = seeds_check_cfg(base, sc);
    if (rc) return rc;
    /* the whole engine list, as seeds_run's jobs have it (job_set) */
    char tokens[AUDIT_MAX_ENGINES][256], partner[256];
    int n_tok = 0, floor_tok = -1;
    if ((rc = seeds_tokens(base, NULL, tokens, &n_tok, &floor_tok, partner, sizeof partner))) return rc;
    seeds_early *e = ls_calloc(1, sizeof *e);
    if (!e) return LS_ENOMEM;
    e->n_jobs = sc->n_seeds + sc->floor_draws;
    e->jd = ls_calloc((size_t)e->n_jobs, sizeof *e->jd);
    e->rj = ls_calloc((size_t)e->n_jobs, sizeof *e->rj);
    e->started = ls_calloc((size_t)e->n_jobs, 1);
    if (!e->jd || !e->rj || !e->started) {
        seeds_early_free(e);
        return LS_ENOMEM;
    }
    if ((rc = seeds_job_defs(e->jd, e->n_jobs, sc->n_seeds, base, tokens, n_tok, floor_tok, partner))) {
        seeds_early_free(e);
        return rc;
    }
    e->t0 = ls_now();
    /* seed s0 is expected from the audit itself: the next J jobs start now */
    for (int j = seed0_expected(base) ? 1 : 0, n = 0; j < e->n_jobs && n < sc->jobs; j++, n++) {
        if ((rc = start_job(base, &e->jd[j], &e->rj[j], e->rj, e->n_jobs, 1))) {
            unsigned long long seed = (unsigned long long)e->jd[j].seed;
            seeds_early_free(e);
            return ls_err_prefix(rc, "seed loop, seed %llu", seed);
        }
        e->started[j] = 1;
    }
    *out = e;
    return LS_OK;
}

/* The loop's engines (the audit's run known) against the whole list:
 * the same with some left out (engines the audit could not run), in
 * order, the floor the same engine?  perm[t] = engine t's position in the
 * whole list; *n_perm 0 when the lists are the same. */
static int lists_fit(char all[][256], int n_all, int floor_all, const char *partner_all, char tokens[][256],
                     int n_tok, int floor_tok, const char *partner, int *perm, int *n_perm) {
    if (strcmp(partner_all, partner) != 0) return 0;
    int u = 0;
    for (int t = 0; t < n_tok; t++) {
        while (u < n_all && strcmp(all[u], tokens[t]) != 0) u++;
        if (u == n_all) return 0;
        perm[t] = u++;
    }
    if (perm[floor_tok] != floor_all) return 0;
    *n_perm = n_tok == n_all ? 0 : n_tok;
    return 1;
}

int seeds_run(const audit_cfg *base, const seeds_cfg *sc, const audit_result *prior, seeds_early *early,
              seeds_result *out) {
    memset(out, 0, sizeof *out);
    int N = sc->n_seeds, K = sc->floor_draws, J = sc->jobs;
    int rc = early ? LS_OK : seeds_check_cfg(base, sc);
    if (rc) return rc;
    char tokens[AUDIT_MAX_ENGINES][256], all[AUDIT_MAX_ENGINES][256];
    char partner[256], partner_all[256];
    int n_tok = 0, floor_tok = -1, n_all = 0, floor_all = -1, perm[AUDIT_MAX_ENGINES], n_perm = 0;
    if ((rc = seeds_tokens(base, prior, tokens, &n_tok, &floor_tok, partner, sizeof partner)) ||
        (rc = seeds_tokens(base, NULL, all, &n_all, &floor_all, partner_all, sizeof partner_all))) {
        seeds_early_free(early);
        return rc;
    }
    /* a spec (at most 127 bytes: make_engines) fits a label whole */
    snprintf(out->floor_engine, sizeof out->floor_engine, "%.*s", (int)sizeof out->floor_engine - 1, partner);
    /* the jobs list every engine (see job_set), unless leaving one out
     * changed the floor: then the loop's own list, as the early jobs
     * (which have the whole list) cannot be kept */
    int whole = lists_fit(all, n_all, floor_all, partner_all, tokens, n_tok, floor_tok, partner, perm, &n_perm);
    if (!whole) n_perm = 0;

    int n_jobs = N + K;
    job_def *jd = ls_calloc((size_t)n_jobs, sizeof *jd);
    job_out *jo = ls_calloc((size_t)n_jobs, sizeof *jo);
    running_job *rj = ls_calloc((size_t)n_jobs, sizeof *rj);
    struct pollfd *pf = ls_calloc((size_t)n_jobs, sizeof *pf);
    int *pf_job = ls_calloc((size_t)n_jobs, sizeof *pf_job);
    char *started = ls_calloc((size_t)n_jobs, 1);
    int failed_job = -1;
    double t0 = ls_now();
    if (!jd || !jo || !rj || !pf || !pf_job || !started) {
        rc = LS_ENOMEM;
        goto done;
    }
    if (whole) rc = seeds_job_defs(jd, n_jobs, N, base, all, n_all, floor_all, partner_all);
    else rc = seeds_job_defs(jd, n_jobs, N, base, tokens, n_tok, floor_tok, partner);
    if (rc) goto done;
    out->n_seeds = N;
    out->n_draws_extra = K;
    out->jobs = J;
    out->seed0 = base->run.seed;
    if (early && whole && early->n_jobs == n_jobs) {
        /* the early jobs go on: they are this loop's (the same definitions) */
        for (int j = 0; j < n_jobs; j++) {
            if (!early->started[j]) continue;
            rj[j] = early->rj[j];
            early->rj[j].pid = 0;
            started[j] = 1;
        }
        out->early = 1;
        out->after_audit_from = t0;
        t0 = early->t0;
    }
    seeds_early_free(early); /* kills what was not taken over */
    early = NULL;
    int next;
    if ((rc = seed0_from_audit(base, prior, tokens, n_tok, &jo[0], out, &next))) goto done;
    if (next) started[0] = 1;
    const job_set js = {base, jd, jo, rj, pf, pf_job, n_jobs, perm, n_perm};
    rc = run_jobs(&js, started, J, out, &failed_job);
    out->wall_s = ls_now() - t0;
    out->after_audit_s = out->early ? ls_now() - out->after_audit_from : out->wall_s;
    if (failed_job >= 0 && !rc) rc = LS_EIO;
    if (!rc) rc = aggregate(out, jo, n_jobs, tokens, n_tok);
done:
    seeds_early_free(early);
    kill_jobs(rj, n_jobs);
    for (int j = 0; jo && j < n_jobs; j++) job_out_free(&jo[j]);
    free(jd);
    free(jo);
    free(rj);
    free(pf);
    free(pf_job);
    free(started);
    if (rc) seeds_result_free(out);
    return rc;
}

int seeds_from_audits(seeds_result *out, const audit_result *const *runs, int n_runs, const uint64_t *seeds,
                      char labels[][256], int n_eng, int map[][AUDIT_MAX_ENGINES]) {
    memset(out, 0, sizeof *out);
    if (n_runs < 1 || n_runs > SEEDS_MAX) return ls_err(LS_EINVAL, "significance: %d seeds (1..%d)", n_runs, SEEDS_MAX);
    if (n_eng < 1 || n_eng > AUDIT_MAX_ENGINES) return ls_err(LS_EINVAL, "significance: %d engines (1..%d)", n_eng,
                                                            AUDIT_MAX_ENGINES);
    job_out *jo = ls_calloc((size_t)n_runs, sizeof *jo);
    if (!jo) return LS_ENOMEM;
    int rc = LS_OK;
    /* each audit through the seed loop's own message, so that these
     * numbers are read exactly as the loop reads its children's */
    for (int s = 0; s < n_runs && !rc; s++) {
        lsbuf b;
        lsbuf_init(&b);
        put_result(&b, 0, "", runs[s]->total_s, NAN, runs[s], map[s], n_eng);
        rc = b.failed ? ls_err(LS_ENOMEM, "out of memory") : parse_job(b.s, b.len, &jo[s]);
        lsbuf_free(&b);
        if (rc) rc = ls_err_prefix(rc, "significance, seed %llu", (unsigned long long)seeds[s]);
        out->job_s[s] = runs[s]->total_s;
        out->job_cpu_s[s] = NAN;
    }
    out->n_seeds = n_runs;
    out->jobs = 1;
    out->seed0 = seeds[0];
    if (!rc) rc = aggregate(out, jo, n_runs, labels, n_eng);
    for (int s = 0; s < n_runs; s++) job_out_free(&jo[s]);
    free(jo);
    if (rc) seeds_result_free(out);
    return rc;
}

/* ---- output -------------------------------------------------------------- */

static const char *pct(char *buf, size_t cap, double v) {
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.2f", 100 * v);
    return buf;
}

/* One judged pair below its verdict, in words: the flips and what McNemar
 * says of them (degenerate cases said as such), the noise floor, whether
 * the flips were near-ties, and the drift's growth with its fit quality. */
static void seeds_print_pair_words(FILE *f, const seeds_result *r, const seeds_pair *p, const stats_mcnemar *m,
                                   double pmin, double pmax, const char *exits) {
    int last = r->epochs - 1, N = r->n_seeds;
    const char *a = r->eng[p->a].label, *b = r->eng[p->b].label;
    if (m->b + m->c == 0)
        fprintf(f, "    seed %llu: no test image classified differently: nothing for McNemar to test",
                (unsigned long long)r->seed0);
    else
        fprintf(f, "    seed %llu: %ld test images flipped (%ld right only on %s, %ld right only on %s); exact McNemar "
                   "p %.2g%s", (unsigned long long)r->seed0, p->flips[0][last], m->b, a, m->c, b, m->p,
                N > 1 ? "" : " (one seed)");
    if (N > 1 && m->b + m->c > 0) fprintf(f, ", p %.2g..%.2g over %d seeds", pmin, pmax, N);
    fprintf(f, ";\n    flips within the noise floor in %d of %d seed(s)", p->flips_within, N);
    if (p->total_flips)
        fprintf(f, "; %ld of %ld flips (all seeds) were near-ties (among the %.0f%% smallest logit margins)",
                p->near_tie_flips, p->total_flips, 100 * SEEDS_NEAR_TIE_RANK);
    double r2 = NAN;
    int nr = 0;
    for (int s = 0; s < N; s++)
        if (!isnan(p->growth[s].r2)) {
            r2 = isnan(r2) ? p->growth[s].r2 : r2 + p->growth[s].r2;
            nr++;
        }
    if (nr) r2 /= nr;
    if (isnan(p->rate_median) || p->rate_median <= 0)
        fprintf(f, ";\n    the weights' distance does not grow (no e-fold time)");
    else
        fprintf(f, ";\n    the weights' distance grows x2.72 every %.0f steps (log-linear fit, mean r² %.2f%s), leaves "
                   "the noise band: %s", 1 / p->rate_median, r2, r2 < 0.8 ? ": a rough fit" : "", exits);
    fprintf(f, "\n");
}

void seeds_print(FILE *f, const seeds_result *r) {
    if (!f || r->n_seeds < 1) return;
    int last = r->epochs - 1, N = r->n_seeds;
    char b1[32], b2[32], b3[32], b4[32];
    double cpu = 0;
    int nc = 0;
    for (int j = 0; j < N; j++)
        if (!isnan(r->job_cpu_s[j])) {
            cpu += r->job_cpu_s[j];
            nc++;
        }
    char when[160];
    if (r->early)
        snprintf(when, sizeof when, "started with the audit above at idle priority, done %.1f s after it", r->after_audit_s);
    else
        snprintf(when, sizeof when, "%.1f s", r->wall_s);
    fprintf(f, "\n== seeds: %d seed(s) %llu..%llu%s, %d at once, %s (CPU %.1f s per audit); noise floor: %s moved 1 ulp, "
               "%d draw(s)\n",
            N, (unsigned long long)r->seed0, (unsigned long long)(r->seed0 + (uint64_t)N - 1),
            r->seed0_from_audit ? " (the first from the audit above)" : "", r->jobs, when, nc ? cpu / nc : NAN,
            r->floor_engine, r->n_draws);
    /* what the loop's own runs checked: a seed's accuracy is only as
     * trusted as its run was checked */
    fprintf(f, "  coverage: %s; the other seeds' runs are drift only: their steps are unchecked (no every-step "
               "checksums, no reference)\n",
            r->seed0_from_audit ? "the first seed is the audit above, checked as it says" : "no seed is the audit above");
    fprintf(f, "  %-28s accuracy after epoch %d over seeds: mean  sd  [min, max] (points)\n", "engine", r->epochs);
    for (int i = 0; i < r->n_engines; i++) {
        const seeds_engine *e = &r->eng[i];
        if (!e->available) { /* said, not dropped without a word (an engine that died in one seed's audit) */
            if (e->missing_seed >= 0)
                fprintf(f, "  %-28s left out: seed %llu's audit gave no result for it (it did not run, or died "
                        "part-way); no spread, no pairs\n", e->label,
                        (unsigned long long)(r->seed0 + (uint64_t)e->missing_seed));
            continue;
        }
        const stats_spread *s = &e->spread[last];
        fprintf(f, "  %-28s %s%%  %s  [%s, %s]\n", e->label, pct(b1, sizeof b1, s->mean), pct(b2, sizeof b2, s->sd),
                pct(b3, sizeof b3, s->min), pct(b4, sizeof b4, s->max));
    }
    if (r->n_draws)
        fprintf(f, "  noise floor (%d draws): flips mean %.1f, max %.0f; |gap| mean %s, max %s points\n", r->n_draws,
                r->floor_flips.mean, r->floor_flips.max, pct(b1, sizeof b1, r->floor_gap.mean),
                pct(b2, sizeof b2, r->floor_gap.max));
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const seeds_pair *p = &r->pair[pi];
        /* the perturbed copy is the floor's: judged against, not judged (seeds.json has every pair) */
        if (p->floor_pair || r->eng[p->a].perturbed || r->eng[p->b].perturbed) continue;
        fprintf(f, "  %s\n", p->verdict);
        const stats_mcnemar *m = &p->mcnemar[0][last];
        double pmin = NAN, pmax = NAN;
        for (int s = 0; s < N; s++) {
            double v = p->mcnemar[s][last].p;
            if (isnan(pmin) || v < pmin) pmin = v;
            if (isnan(pmax) || v > pmax) pmax = v;
        }
        char exits[64] = "never";
        int n_exit = 0;
        long first_exit = 0;
        for (int s = 0; s < N; s++)
            if (p->band_exit[s] > 0) {
                n_exit++;
                if (!first_exit || p->band_exit[s] < first_exit) first_exit = p->band_exit[s];
            }
        if (p->band_exit[0] < 0) snprintf(exits, sizeof exits, "no band");
        else if (n_exit) snprintf(exits, sizeof exits, "from step %ld in %d/%d seeds", first_exit, n_exit, N);
        seeds_print_pair_words(f, r, p, m, pmin, pmax, exits);
    }
}

static void json_curve(lsbuf *b, const double *v, long n) {
    /* [[step, value], ...] over the finite values only */
    lsbuf_printf(b, "[");
    int first = 1;
    for (long s = 0; v && s < n; s++) {
        if (!isfinite(v[s])) continue;
        lsbuf_printf(b, "%s[%ld, ", first ? "" : ", ", s + 1);
        lsbuf_json_num(b, v[s]);
        lsbuf_printf(b, "]");
        first = 0;
    }
    lsbuf_printf(b, "]");
}

/* [v0, v1, ...]: the one shape every number list of seeds.json has */
static void json_num_list(lsbuf *b, const double *v, int n) {
    lsbuf_printf(b, "[");
    for (int i = 0; i < n; i++) {
        lsbuf_printf(b, "%s", i ? ", " : "");
        lsbuf_json_num(b, v[i]);
    }
    lsbuf_printf(b, "]");
}

/* one entry of "seeds"."engines": accuracy per seed and epoch, spread per epoch */
static void seeds_json_engine(lsbuf *b, const seeds_result *r, int i) {
    int N = r->n_seeds, E = r->epochs;
    const seeds_engine *e = &r->eng[i];
    lsbuf_printf(b, "%s\n      {\"label\": ", i ? "," : "");
    lsbuf_json_str(b, e->label);
    lsbuf_printf(b, ", \"perturbed\": %s, \"available\": %s", e->perturbed ? "true" : "false",
                 e->available ? "true" : "false");
    if (e->available) {
        lsbuf_printf(b, ", \"accuracy\": [");
        for (int s = 0; s < N; s++) {
            lsbuf_printf(b, "%s", s ? ", " : "");
            json_num_list(b, e->acc[s], E);
        }
        lsbuf_printf(b, "], \"spread\": [");
        for (int ep = 0; ep < E; ep++) {
            lsbuf_printf(b, "%s", ep ? ", " : "");
            stats_spread_json(b, &e->spread[ep]);
        }
        lsbuf_printf(b, "]");
    }
    lsbuf_printf(b, "}");
}

/* "seeds"."noise_floor": the draws, their statistics and the band */
static void seeds_json_floor(lsbuf *b, const seeds_result *r) {
    lsbuf_printf(b, "\"noise_floor\": {\"engine\": ");
    lsbuf_json_str(b, r->floor_engine);
    lsbuf_printf(b, ", \"perturb_ulps\": 1, \"draws\": %d, \"flips\": [", r->n_draws);
    for (int d = 0; d < r->n_draws; d++) lsbuf_printf(b, "%s%.0f", d ? ", " : "", r->floor_flips_draw[d]);
    lsbuf_printf(b, "], \"abs_gap\": ");
    json_num_list(b, r->floor_gap_draw, r->n_draws);
    lsbuf_printf(b, ", \"flips_stats\": ");
    stats_floor_json(b, &r->floor_flips);
    lsbuf_printf(b, ", \"abs_gap_stats\": ");
    stats_floor_json(b, &r->floor_gap);
    lsbuf_printf(b, ", \"band_factor\": ");
    lsbuf_json_num(b, STATS_BAND_FACTOR);
    lsbuf_printf(b, ", \"band_run\": %d, \"band_lo\": ", STATS_BAND_RUN);
    json_curve(b, r->band_lo, r->total_steps);
    lsbuf_printf(b, ", \"band_hi\": ");
    json_curve(b, r->band_hi, r->total_steps);
    lsbuf_printf(b, "}");
}

/* a pair's "paired", "flips", "mcnemar" and "mcnemar_per_class_last_epoch" */
static void seeds_json_pair_tests(lsbuf *b, const seeds_result *r, const seeds_pair *p) {
    int N = r->n_seeds, E = r->epochs, C = r->n_classes;
    lsbuf_printf(b, ", \"paired\": [");
    for (int ep = 0; ep < E; ep++) {
        lsbuf_printf(b, "%s", ep ? ", " : "");
        stats_paired_json(b, &p->paired[ep]);
    }
    lsbuf_printf(b, "],\n       \"flips\": [");
    for (int s = 0; s < N; s++) {
        lsbuf_printf(b, "%s[", s ? ", " : "");
        for (int ep = 0; ep < E; ep++) lsbuf_printf(b, "%s%ld", ep ? ", " : "", p->flips[s][ep]);
        lsbuf_printf(b, "]");
    }
    lsbuf_printf(b, "], \"mcnemar\": [");
    for (int s = 0; s < N; s++) {
        lsbuf_printf(b, "%s[", s ? ", " : "");
        for (int ep = 0; ep < E; ep++) {
            lsbuf_printf(b, "%s", ep ? ", " : "");
            stats_mcnemar_json(b, &p->mcnemar[s][ep]);
        }
        lsbuf_printf(b, "]");
    }
    lsbuf_printf(b, "],\n       \"mcnemar_per_class_last_epoch\": [");
    for (int s = 0; s < N; s++) {
        lsbuf_printf(b, "%s[", s ? ", " : "");
        for (int k = 0; k < C && p->mcnemar_class[s]; k++) {
            lsbuf_printf(b, "%s", k ? ", " : "");
            stats_mcnemar_json(b, &p->mcnemar_class[s][k]);
        }
        lsbuf_printf(b, "]");
    }
    /* one test per class is C tests: Holm-adjusted p per seed; and the
     * caveat that McNemar treats images as independent trials, which two
     * trainings sharing weights, batches and rounding do not make them */
    lsbuf_printf(b, "],\n       \"mcnemar_per_class_holm_p\": [");
    for (int s = 0; s < N; s++) {
        double pv[256], adj[256];
        int n = 0;
        for (int k = 0; k < C && k < 256 && p->mcnemar_class[s]; k++) pv[n++] = p->mcnemar_class[s][k].p;
        stats_holm(pv, n, adj);
        lsbuf_printf(b, "%s[", s ? ", " : "");
        for (int k = 0; k < n; k++) {
            lsbuf_printf(b, "%s", k ? ", " : "");
            lsbuf_json_num(b, adj[k]);
        }
        lsbuf_printf(b, "]");
    }
    lsbuf_printf(b, "], \"mcnemar_caveat\": \"exact McNemar tests these two trained networks on these test "
                    "images, not the two engines: a 1-ulp change of the start gives networks that differ as "
                    "much, so small p-values (per class above all) are expected without any fault; read them "
                    "against the noise floor pair, which gets p-values as small\"");
}

/* a pair's "vs_floor" and "margins_last_epoch" */
static void seeds_json_pair_floor_margins(lsbuf *b, const seeds_result *r, int pi) {
    const seeds_pair *p = &r->pair[pi];
    lsbuf_printf(b, ",\n       \"vs_floor\": {\"flips_within_seeds\": %d, \"abs_gap_within_seeds\": %d, \"flips_p_emp_min\": ",
                 p->flips_within, p->gap_within);
    lsbuf_json_num(b, p->flips_p_emp_min);
    lsbuf_printf(b, ", \"flips_p_emp_max\": ");
    lsbuf_json_num(b, p->flips_p_emp_max);
    lsbuf_printf(b, "},\n       \"margins_last_epoch\": {\"flipped_a\": ");
    stats_summary_json(b, &p->margin_flip_a);
    lsbuf_printf(b, ", \"flipped_b\": ");
    stats_summary_json(b, &p->margin_flip_b);
    lsbuf_printf(b, ", \"all_a\": ");
    stats_summary_json(b, &p->margin_all_a);
    lsbuf_printf(b, ", \"flip_rank_a\": ");
    stats_summary_json(b, &p->flip_rank_a);
    lsbuf_printf(b, ", \"near_tie_rank\": ");
    lsbuf_json_num(b, SEEDS_NEAR_TIE_RANK);
    lsbuf_printf(b, ", \"near_tie_flips\": %ld, \"flips\": %ld", p->near_tie_flips, p->total_flips);
    /* the histogram the report's table and chart show (seeds_margin_histogram) */
    seeds_margin_bins mb;
    if (seeds_margin_histogram(r, pi, &mb) == 0) {
        lsbuf_printf(b, ", \"bins\": {\"labels\": [");
        for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
            lsbuf_printf(b, "%s", k ? ", " : "");
            lsbuf_json_str(b, SEEDS_MARGIN_LABELS[k]);
        }
        lsbuf_printf(b, "], \"n_flipped\": %ld, \"n_all\": %ld, \"flipped_pct\": [", mb.n_flipped, mb.n_all);
        for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
            lsbuf_printf(b, "%s", k ? ", " : "");
            lsbuf_json_num(b, mb.flipped_pct[k]);
        }
        lsbuf_printf(b, "], \"all_pct\": [");
        for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
            lsbuf_printf(b, "%s", k ? ", " : "");
            lsbuf_json_num(b, mb.all_pct[k]);
        }
        lsbuf_printf(b, "]}");
    }
    lsbuf_printf(b, "}");
}

/* a pair's "divergence": growth per seed and exit from the noise band */
static void seeds_json_pair_divergence(lsbuf *b, const seeds_result *r, const seeds_pair *p) {
    int N = r->n_seeds;
    lsbuf_printf(b, ",\n       \"divergence\": {\"rate_median_per_step\": ");
    lsbuf_json_num(b, p->rate_median);
    lsbuf_printf(b, ", \"band_exit_step\": [");
    for (int s = 0; s < N; s++) lsbuf_printf(b, "%s%ld", s ? ", " : "", p->band_exit[s]);
    lsbuf_printf(b, "], \"growth\": [");
    for (int s = 0; s < N; s++) {
        lsbuf_printf(b, "%s", s ? ", " : "");
        stats_growth_json(b, &p->growth[s]);
    }
    lsbuf_printf(b, "], \"rel_l2\": [");
    for (int s = 0; s < N; s++) {
        lsbuf_printf(b, "%s", s ? ", " : "");
        json_curve(b, p->rel_l2[s], r->total_steps);
    }
    lsbuf_printf(b, "]}");
}

/* one entry of "seeds"."pairs" */
static void seeds_json_pair(lsbuf *b, const seeds_result *r, int pi) {
    const seeds_pair *p = &r->pair[pi];
    lsbuf_printf(b, "%s\n      {\"a\": ", pi ? "," : "");
    lsbuf_json_str(b, r->eng[p->a].label);
    lsbuf_printf(b, ", \"b\": ");
    lsbuf_json_str(b, r->eng[p->b].label);
    lsbuf_printf(b, ", \"floor_pair\": %s, \"gap_beyond_floor\": %s, \"verdict\": ", p->floor_pair ? "true" : "false",
                 p->beyond_floor < 0 ? "null" : p->beyond_floor ? "true" : "false");
    lsbuf_json_str(b, p->floor_pair ? "a noise-floor draw" : p->verdict);
    seeds_json_pair_tests(b, r, p);
    seeds_json_pair_floor_margins(b, r, pi);
    seeds_json_pair_divergence(b, r, p);
    lsbuf_printf(b, "}");
}

void seeds_json(lsbuf *b, const seeds_result *r) {
    int N = r->n_seeds, E = r->epochs;
    lsbuf_printf(b, "\"seeds\": {\"n\": %d, \"first_seed\": %llu, \"first_seed_from_audit\": %s, \"jobs\": %d, \"epochs\": %d, "
                    "\"test_images\": %zu, \"wall_seconds\": ",
                 N, (unsigned long long)r->seed0, r->seed0_from_audit ? "true" : "false", r->jobs, E, r->n_test);
    lsbuf_json_num(b, r->wall_s);
    lsbuf_printf(b, ", \"started_with_audit\": %s, \"seconds_after_audit\": ", r->early ? "true" : "false");
    lsbuf_json_num(b, r->after_audit_s);
    /* the loop's own runs (every seed but an audited first one) */
    lsbuf_printf(b, ", \"loop_runs_checked\": {\"every_step_checksums\": false, \"reference\": false}");
    lsbuf_printf(b, ", \"job_seconds\": ");
    json_num_list(b, r->job_s, N + r->n_draws_extra);
    lsbuf_printf(b, ", \"job_cpu_seconds\": ");
    json_num_list(b, r->job_cpu_s, N + r->n_draws_extra);
    lsbuf_printf(b, ",\n    \"engines\": [");
    for (int i = 0; i < r->n_engines; i++) seeds_json_engine(b, r, i);
    lsbuf_printf(b, "],\n    ");
    seeds_json_floor(b, r);
    lsbuf_printf(b, ",\n    \"pairs\": [");
    for (int pi = 0; pi < r->n_pairs; pi++) seeds_json_pair(b, r, pi);
    lsbuf_printf(b, "]}");
}

void seeds_pair_json(lsbuf *b, const audit_result *r, int pair, const char *data_dir) {
    const audit_pair *p = &r->pair[pair];
    const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
    if (ea->is_ref || eb->is_ref || !ea->pred || !eb->pred || !r->test_labels) {
        lsbuf_printf(b, "null");
        return;
    }
    size_t n = r->n_test;
    int C = r->n_classes, E = r->epochs_done;
    char nb[16];
    lsbuf_printf(b, "{\"mcnemar\": [");
    for (int ep = 0; ep < E; ep++) {
        lsbuf_printf(b, "%s", ep ? ", " : "");
        stats_mcnemar_json(b, &p->mcnemar[ep]);
    }
    lsbuf_printf(b, "], \"classes\": [");
    for (int k = 0; k < C; k++) {
        lsbuf_printf(b, "%s", k ? ", " : "");
        lsbuf_json_str(b, class_name(data_dir, C, k, nb, sizeof nb));
    }
    lsbuf_printf(b, "], \"mcnemar_per_class\": [");
    for (int ep = 0; ep < E && p->mcnemar_class; ep++) {
        lsbuf_printf(b, "%s[", ep ? ", " : "");
        for (int k = 0; k < C; k++) {
            lsbuf_printf(b, "%s", k ? ", " : "");
            stats_mcnemar_json(b, &p->mcnemar_class[(size_t)ep * C + k]);
        }
        lsbuf_printf(b, "]");
    }
    lsbuf_printf(b, "]");
    /* margins of the last epoch */
    double *ma = ls_malloc((n + 1) * sizeof(double)), *mb = ls_malloc((n + 1) * sizeof(double));
    double *scratch = ls_malloc((n + 1) * sizeof(double)), *sorted = ls_malloc((n + 1) * sizeof(double));
    double *fa = ls_malloc((n + 1) * sizeof(double)), *fb = ls_malloc((n + 1) * sizeof(double));
    double *rk = ls_malloc((n + 1) * sizeof(double));
    stats_flip *fl = ls_malloc((n + 1) * sizeof *fl);
    if (ma && mb && scratch && sorted && fa && fb && rk && fl && ea->logits && eb->logits) {
        stats_margins(ma, ea->logits, n, C);
        stats_margins(mb, eb->logits, n, C);
        size_t nf = stats_flips(fl, ea->pred, eb->pred, r->test_labels, ma, mb, n);
        size_t ns = 0;
        for (size_t k = 0; k < n; k++)
            if (!isnan(ma[k])) sorted[ns++] = ma[k];
        qsort(sorted, ns, sizeof *sorted, cmp_double);
        for (size_t k = 0; k < nf; k++) {
            fa[k] = fl[k].margin_a;
            fb[k] = fl[k].margin_b;
        }
        stats_margin_ranks(rk, fa, nf, sorted, ns);
        stats_summary s;
        lsbuf_printf(b, ", \"margins_last_epoch\": {\"flipped_a\": ");
        stats_summarize(&s, fa, nf, scratch);
        stats_summary_json(b, &s);
        lsbuf_printf(b, ", \"flipped_b\": ");
        stats_summarize(&s, fb, nf, scratch);
        stats_summary_json(b, &s);
        lsbuf_printf(b, ", \"all_a\": ");
        stats_summarize(&s, ma, n, scratch);
        stats_summary_json(b, &s);
        lsbuf_printf(b, ", \"all_b\": ");
        stats_summarize(&s, mb, n, scratch);
        stats_summary_json(b, &s);
        lsbuf_printf(b, ", \"flip_rank_a\": ");
        stats_summarize(&s, rk, nf, scratch);
        stats_summary_json(b, &s);
        lsbuf_printf(b, ", \"near_tie_rank\": ");
        lsbuf_json_num(b, SEEDS_NEAR_TIE_RANK);
        lsbuf_printf(b, ", \"near_tie_flips\": %zu, \"flips\": [", stats_count_below(rk, nf, SEEDS_NEAR_TIE_RANK));
        for (size_t k = 0; k < nf; k++) {
            lsbuf_printf(b, "%s{\"image\": %u, \"label\": %d, \"pred_a\": %d, \"pred_b\": %d, \"margin_a\": ", k ? ", " : "",
                         fl[k].index, fl[k].label, fl[k].pred_a, fl[k].pred_b);
            lsbuf_json_num(b, fl[k].margin_a);
            lsbuf_printf(b, ", \"margin_b\": ");
            lsbuf_json_num(b, fl[k].margin_b);
            lsbuf_printf(b, ", \"rank_a\": ");
            lsbuf_json_num(b, rk[k]);
            lsbuf_printf(b, "}");
        }
        lsbuf_printf(b, "]}");
    } else {
        lsbuf_printf(b, ", \"margins_last_epoch\": null");
    }
    free(ma);
    free(mb);
    free(scratch);
    free(sorted);
    free(fa);
    free(fb);
    free(rk);
    free(fl);
    /* growth of the parameter distance over the whole run */
    long T = r->total_steps;
    long *steps = ls_malloc(((size_t)T + 1) * sizeof(long));
    stats_growth g;
    if (steps) {
        for (long s = 0; s < T; s++) steps[s] = s + 1;
        stats_growth_fit(&g, steps, p->param_rel_l2, (size_t)T, 1, -1);
        lsbuf_printf(b, ", \"param_rel_l2_growth\": ");
        stats_growth_json(b, &g);
        free(steps);
    }
    lsbuf_printf(b, "}");
}

/* ---- the margin histogram ---------------------------------------------- */

const char *const SEEDS_MARGIN_LABELS[SEEDS_MARGIN_BINS] = {"< 1e-4",  "1e-4..1e-3", "1e-3..0.01", "0.01..0.1",
                                                            "0.1..0.3", "0.3..1",     "1..3",       ">= 3"};
/* a flip at margin 1e-4 is rounding meeting a near-tie; at 3 it is not */
static const double EDGE[SEEDS_MARGIN_BINS - 1] = {1e-4, 1e-3, 1e-2, 0.1, 0.3, 1, 3};

int seeds_margin_histogram(const seeds_result *S, int pi, seeds_margin_bins *o) {
    memset(o, 0, sizeof *o);
    if (pi < 0 || pi >= S->n_pairs || S->epochs < 1) return -1;
    const seeds_pair *p = &S->pair[pi];
    const seeds_engine *ea = &S->eng[p->a], *eb = &S->eng[p->b];
    size_t n = S->n_test, last = (size_t)S->epochs - 1;
    int any = 0;
    for (int sd = 0; sd < S->n_seeds; sd++) {
        if (!ea->margin[sd] || !ea->pred[sd] || !eb->pred[sd]) continue;
        any = 1;
        const uint8_t *pa = ea->pred[sd] + last * n, *pb = eb->pred[sd] + last * n;
        for (size_t k = 0; k < n; k++) {
            double mg = ea->margin[sd][k];
            if (isnan(mg)) continue;
            int bin = 0;
            while (bin < SEEDS_MARGIN_BINS - 1 && mg >= EDGE[bin]) bin++;
            o->all[bin]++;
            o->n_all++;
            if (pa[k] != pb[k]) {
                o->flipped[bin]++;
                o->n_flipped++;
            }
        }
    }
    for (int k = 0; k < SEEDS_MARGIN_BINS; k++) {
        o->flipped_pct[k] = o->n_flipped ? 100.0 * o->flipped[k] / o->n_flipped : 0;
        o->all_pct[k] = o->n_all ? 100.0 * o->all[k] / o->n_all : 0;
    }
    return any ? 0 : -1;
}
