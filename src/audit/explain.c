/*
 * explain.c — the rules of explain.h over an audit_result.
 *
 * Everything here reads numbers the audit already measured and the
 * engines' descriptions; nothing is re-run.  Two kinds of fact are used:
 *   - settings: the spec knobs, overridden by what describe() reports was
 *     actually used (threads, ISA, algorithm, math mode, ...), so that two
 *     engines can be said to differ "only in threads";
 *   - per-layer kernels: describe()'s per-layer entries, searched for
 *     transform algorithms (Winograd, FFT) and TF32.
 * The JSON reader below is the minimum for describe() texts: objects,
 * arrays, strings, scalars; it never allocates.
 *
 * Not here: I/O beyond explain_print, any threshold but "bound ratio > 1"
 * (the a-priori bound holds for fp32 in ANY order, so > 1 is not rounding).
 */
#include "audit/every_step.h"
#include "audit/explain.h"
#include "audit/reason.h"

#include "base/lowp.h"
#include "checks/bounds.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"

/* ---- a minimal JSON reader ---------------------------------------------- */

static const char *jws(const char *s) {
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
    return s;
}

/* s at '"': the character after the closing quote, or NULL. */
static const char *jskip_string(const char *s) {
    for (s++; *s; s++) {
        if (*s == '\\') {
            if (!s[1]) return NULL;
            s++;
        } else if (*s == '"') {
            return s + 1;
        }
    }
    return NULL;
}

/* The character after the value starting at s, or NULL. */
static const char *jskip_value(const char *s) {
    s = jws(s);
    if (*s == '"') return jskip_string(s);
    if (*s == '{' || *s == '[') {
        int depth = 0;
        while (*s) {
            if (*s == '"') {
                if (!(s = jskip_string(s))) return NULL;
                continue;
            }
            if (*s == '{' || *s == '[') depth++;
            else if ((*s == '}' || *s == ']') && --depth == 0) return s + 1;
            s++;
        }
        return NULL;
    }
    const char *p = s;
    while (*p && *p != ',' && *p != '}' && *p != ']' && !isspace((unsigned char)*p)) p++;
    return p == s ? NULL : p;
}

/* The value of member `key` of the object at s, or NULL. */
static const char *jmember(const char *s, const char *key) {
    if (!s) return NULL;
    s = jws(s);
    if (*s != '{') return NULL;
    s++;
    size_t kl = strlen(key);
    for (;;) {
        s = jws(s);
        if (*s != '"') return NULL;
        const char *k = s + 1, *e = jskip_string(s);
        if (!e) return NULL;
        s = jws(e);
        if (*s != ':') return NULL;
        s = jws(s + 1);
        if ((size_t)(e - 1 - k) == kl && memcmp(k, key, kl) == 0) return s;
        if (!(s = jskip_value(s))) return NULL;
        s = jws(s);
        if (*s != ',') return NULL;
        s++;
    }
}

/* Element i of the array at s, or NULL. */
static const char *jelem(const char *s, int i) {
    if (!s) return NULL;
    s = jws(s);
    if (*s != '[') return NULL;
    s = jws(s + 1);
    if (*s == ']') return NULL;
    for (int k = 0;; k++) {
        if (k == i) return s;
        if (!(s = jskip_value(s))) return NULL;
        s = jws(s);
        if (*s != ',') return NULL;
        s = jws(s + 1);
    }
}

/* A scalar value as text (strings unescaped; \u escapes become '?'). */
static int jscalar(const char *v, char *buf, size_t cap) {
    if (!v || cap == 0) return -1;
    buf[0] = 0;
    if (*v == '{' || *v == '[') return -1;
    size_t n = 0;
    if (*v == '"') {
        for (v++; *v && *v != '"'; v++) {
            char c = *v;
            if (c == '\\') {
                v++;
                c = *v == 'n' ? '\n' : *v == 't' ? '\t' : *v == 'u' ? '?' : *v;
                if (*v == 'u')
                    for (int k = 0; k < 4 && v[1]; k++) v++;
                if (!*v) return -1;
            }
            if (n + 1 < cap) buf[n++] = c;
        }
        if (*v != '"') return -1;
        buf[n] = 0;
        return 0;
    }
    const char *e = jskip_value(v);
    if (!e) return -1;
    for (; v < e && n + 1 < cap; v++) buf[n++] = *v;
    buf[n] = 0;
    return 0;
}

int explain_json_get(const char *json, const char *key, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    return jscalar(jmember(json, key), buf, cap);
}

/* ---- small helpers ------------------------------------------------------- */

static const char *fnum(char *buf, size_t cap, double v) { return ls_fmt_num(buf, cap, v, "nan"); }

/* snprintf appended to a fixed buffer. */
/* A bound ratio above 1 in words: "3.2x the fp32 bound", or for an
 * infinite ratio what it is: an element whose fp32 bound is 0 (every product
 * exactly 0, or an exact operation) that still came out different. */
static const char *ratio_words(char *buf, size_t cap, double q) {
    char b[32];
    if (isinf(q)) snprintf(buf, cap, "beyond any multiple of the fp32 bound (ratio inf: the bound is 0 and the value differs, if only in a zero's sign)");
    else snprintf(buf, cap, "%sx the most fp32 rounding allows", ls_fmt_num(b, sizeof b, q, "nan"));
    return buf;
}

static void cat(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *dst, size_t cap, const char *fmt, ...) {
    size_t n = strlen(dst);
    if (n + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + n, cap - n, fmt, ap);
    va_end(ap);
}

static int is_repeat_pair(const audit_result *r, const audit_pair *p) {
    return r->eng[p->b].repeat_of == p->a || r->eng[p->a].repeat_of == p->b;
}

/* The first slot that differs, by step and then phase order (the slot
 * table is in phase order: forward, loss, backward from the last layer,
 * update); -1 when every compared tensor was bitwise equal. */
static int first_diff_slot(const audit_result *r, const audit_pair *p) {
    int best = -1;
    for (int s = 0; s < r->n_slots; s++) {
        const audit_slot_stats *ss = &p->slot[s];
        if (!ss->n_steps || !ss->first_unequal_step) continue;
        if (best < 0 || ss->first_unequal_step < p->slot[best].first_unequal_step) best = s;
    }
    return best;
}

/* The first epoch (1-based) whose evaluation classified a test image
 * differently in the two engines, 0 if none did. */
static int eval_disagrees(const audit_result *r, const audit_pair *p) {
    for (int ep = 0; ep < r->epochs_done && ep < (int)LS_ARRAY_LEN(p->disagree); ep++)
        if (p->disagree[ep] > 0) return ep + 1;
    return 0;
}

/* Equal at every step and tensor compared, and in every evaluation: equal
 * weights evaluated on the same images must predict the same classes (a
 * difference there is the evaluation's own: zoo attack 6's read-back
 * faults in one repeat copy were 'deterministic' with a 7-point gap). */
static int pair_equal(const audit_result *r, const audit_pair *p) {
    return p->first_diff_step == 0 && first_diff_slot(r, p) < 0 && !eval_disagrees(r, p);
}

/* Equal in training (every step, every compared tensor): two different
 * specs may still evaluate with other kernels, and so differ there within
 * rounding (each engine's evaluation is judged by its own checks). */
static int pair_equal_training(const audit_result *r, const audit_pair *p) {
    return p->first_diff_step == 0 && first_diff_slot(r, p) < 0;
}

static long pair_compared(const audit_result *r, const audit_pair *p, long *n_tensor_cmp) {
    long steps = 0, cmp = 0;
    for (long s = 0; s < r->total_steps; s++) steps += p->param_rel_l2 && !isnan(p->param_rel_l2[s]);
    for (int s = 0; s < r->n_slots; s++) cmp += p->slot[s].n_steps;
    *n_tensor_cmp = cmp;
    return steps;
}

/* Layer index whose name is the prefix of `name` up to the first '.'. */
static int layer_of(const model *m, const char *name) {
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    for (int l = 0; l < m->n_layers; l++)
        if (strlen(m->layers[l].name) == n && strncmp(m->layers[l].name, name, n) == 0) return l;
    return -1;
}

static int ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The layer that computed slot s; *how: 0 forward, 1 backward-data,
 * 2 backward-weights, 3 loss, 4 update.  -1 for the loss value itself. */
static int slot_layer(const audit_result *r, const model *m, int s, int *how) {
    const char *nm = r->slot_name[s];
    int l = layer_of(m, nm);
    *how = 3;
    if (strcmp(nm, "loss") == 0) return -1;
    if (ends_with(nm, ".act")) {
        *how = 0;
        return l;
    }
    if (ends_with(nm, ".dact")) {
        if (l == m->n_layers - 1) {
            *how = 3;
            return l;
        }
        *how = 1;
        return l >= 0 ? l + 1 : -1;
    }
    if (ends_with(nm, ".grad")) {
        *how = 2;
        return l;
    }
    *how = 4;
    return l;
}

const char *explain_slot_origin(const audit_result *r, const model *m, int s, char *buf, size_t cap) {
    int how, l = slot_layer(r, m, s, &how);
    static const char *const HOW[] = {"forward", "backward-data", "backward-weights", "loss: softmax cross-entropy",
                                      "Adam update"};
    if (l < 0) snprintf(buf, cap, "loss (softmax cross-entropy)");
    else snprintf(buf, cap, "%s (%s)", m->layers[l].name, HOW[how]);
    return buf;
}

/* ---- engine facts ------------------------------------------------------ */

#define FACTS_MAX 16
typedef struct {
    char kind[32];
    int n;
    char key[FACTS_MAX][24];
    char val[FACTS_MAX][80];
} facts;

static void facts_set(facts *f, const char *k, const char *v) {
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->key[i], k) == 0) {
            snprintf(f->val[i], sizeof f->val[i], "%s", v);
            return;
        }
    if (f->n >= FACTS_MAX) return;
    snprintf(f->key[f->n], sizeof f->key[f->n], "%s", k);
    snprintf(f->val[f->n], sizeof f->val[f->n], "%s", v);
    f->n++;
}

static const char *facts_get(const facts *f, const char *k) {
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->key[i], k) == 0) return f->val[i];
    return "";
}

/* Settings that change numerics: the spec's knobs, then what describe()
 * says was used under the same knob names (describe wins: "algo=auto" is
 * a request, the per-layer kernels are the answer). */
static void engine_facts(facts *f, const audit_engine *ae) {
    memset(f, 0, sizeof *f);
    engine_spec sp;
    /* a recording speaks for the engine it recorded: its spec is in the
     * description ("recording": {"engine.spec": ...}) */
    char orig[128];
    const char *spec = ae->spec;
    if (strncmp(spec, "recorded:", 9) == 0 &&
        jscalar(jmember(jmember(ae->describe, "recording"), "engine.spec"), orig, sizeof orig) == 0)
        spec = orig;
    if (engine_spec_parse(&sp, spec) == 0) {
        snprintf(f->kind, sizeof f->kind, "%s", strcmp(sp.name, "ref") == 0 ? "reference" : sp.name);
        for (int i = 0; i < sp.n_knobs; i++)
            if (strcmp(sp.key[i], "timing") != 0) facts_set(f, sp.key[i], sp.val[i]);
    }
    if (ae->perturb_ulps) {
        char k[16];
        snprintf(k, sizeof k, "%d", ae->perturb_ulps);
        facts_set(f, "perturb", k);
    }
    const char *d = ae->describe;
    if (!d || d[0] != '{') return;
    /* knob name <- describe key, per kind */
    static const char *const CPU[][2] = {{"threads", "threads"}, {"algo", "algo"},     {"isa", "isa"},
                                         {"math", "math"},       {"layout", "layout"}, {"fpmath", "fpmath"},
                                         {"tf32", "tf32"},       {"dtype", "dtype"}};
    static const char *const CUDA[][2] = {{"math", "math"},           {"algo", "algo_policy"}, {"pool", "pool_mode"},
                                          {"expm", "expm"},           {"conv", "conv_algos"},
                                          {"tf32_override", "env_NVIDIA_TF32_OVERRIDE"}};
    static const char *const REF[][2] = {{"mode", "mode"}, {"prec", "prec_bits"}, {"threads", "threads"}};
    const char *const(*map)[2] = NULL;
    size_t n = 0;
    if (strcmp(f->kind, "cpu") == 0) map = CPU, n = LS_ARRAY_LEN(CPU);
    else if (strcmp(f->kind, "cuda") == 0) map = CUDA, n = LS_ARRAY_LEN(CUDA);
    else if (strcmp(f->kind, "reference") == 0) map = REF, n = LS_ARRAY_LEN(REF);
    char v[80];
    for (size_t i = 0; i < n; i++)
        if (explain_json_get(d, map[i][1], v, sizeof v) == 0 && strcmp(v, "null") != 0) facts_set(f, map[i][0], v);
}

/* Knobs whose values differ, as "threads (2 vs 1), algo (...)"; returns
 * the count and the first differing key in *first. */
static int facts_diff(const facts *x, const facts *y, char *out, size_t cap, const char **first) {
    int n = 0;
    out[0] = 0;
    *first = NULL;
    const facts *fs[2] = {x, y};
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < fs[w]->n; i++) {
            const char *k = fs[w]->key[i];
            if (w == 1 && facts_get(x, k)[0]) continue; /* seen from x */
            const char *a = facts_get(x, k), *b = facts_get(y, k);
            if (strcmp(a, b) == 0) continue;
            cat(out, cap, "%s%s (%s vs %s)", n ? ", " : "", k, a[0] ? a : "default", b[0] ? b : "default");
            if (!*first) *first = k;
            n++;
        }
    return n;
}

/* The describe() entry of a layer: top-level "layers" (cpu) or the first
 * plan's "layers" (cuda), matched on "name" or "layer". */
static const char *describe_layer(const char *d, const char *name) {
    if (!d) return NULL;
    const char *arrs[2] = {jmember(d, "layers"), jmember(jelem(jmember(d, "plans"), 0), "layers")};
    char v[64];
    for (int a = 0; a < 2; a++)
        for (int i = 0;; i++) {
            const char *e = jelem(arrs[a], i);
            if (!e) break;
            if ((explain_json_get(e, "name", v, sizeof v) == 0 || explain_json_get(e, "layer", v, sizeof v) == 0) &&
                strcmp(v, name) == 0)
                return e;
        }
    return NULL;
}

static int has_ci(const char *s, const char *sub) {
    for (; *s; s++) {
        size_t k = 0;
        while (sub[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)sub[k])) k++;
        if (!sub[k]) return 1;
    }
    return 0;
}

/* Transform algorithms (Winograd, FFT) a layer uses per describe(), as
 * "fwd jit_wino_4x3:avx512_core, ..." into out; returns how many. */
static int layer_transforms(const char *d, const char *layer_name, char *out, size_t cap) {
    out[0] = 0;
    const char *e = describe_layer(d, layer_name);
    if (!e) return 0;
    static const char *const DIRS[] = {"fwd", "bwd_data", "bwd_weights", "bwd_filter", "forward", "backward_data",
                                       "backward_filter"};
    int n = 0;
    char v[96];
    for (size_t i = 0; i < LS_ARRAY_LEN(DIRS); i++) {
        const char *m = jmember(e, DIRS[i]);
        if (!m) continue;
        if (*m == '{') { /* cuda: {"algo": ..., "transform": true} */
            char t[16];
            if (explain_json_get(m, "transform", t, sizeof t) == 0 && strcmp(t, "true") == 0 &&
                explain_json_get(m, "algo", v, sizeof v) == 0) {
                cat(out, cap, "%s%s %s", n ? ", " : "", DIRS[i], v);
                n++;
            }
        } else if (jscalar(m, v, sizeof v) == 0 && (has_ci(v, "wino") || has_ci(v, "fft"))) {
            cat(out, cap, "%s%s %s", n ? ", " : "", DIRS[i], v);
            n++;
        }
    }
    return n;
}

int explain_layer_kernels(const char *d, const char *layer_name, char *out, size_t cap) {
    if (cap) out[0] = 0;
    const char *e = describe_layer(d, layer_name);
    if (!e) return 0;
    static const char *const DIRS[] = {"fwd", "bwd_data", "bwd_weights", "bwd_filter"};
    int n = 0;
    char v[96];
    for (size_t i = 0; i < LS_ARRAY_LEN(DIRS); i++) {
        const char *m = jmember(e, DIRS[i]);
        if (!m) continue;
        if (*m == '{') {
            if (explain_json_get(m, "algo", v, sizeof v) != 0) continue;
        } else if (jscalar(m, v, sizeof v) != 0 || strcmp(v, "null") == 0) {
            continue;
        }
        cat(out, cap, "%s%s %s", n ? "; " : "", DIRS[i], v);
        n++;
    }
    if (n == 0 && explain_json_get(e, "library", v, sizeof v) == 0) { /* cuda dense: one library call */
        char mm[48];
        cat(out, cap, "%s", v);
        if (explain_json_get(e, "math", mm, sizeof mm) == 0) cat(out, cap, " (%s)", mm);
        n = 1;
    }
    return n;
}

static int uses_tf32(const facts *f) {
    return strcmp(f->kind, "cuda") == 0 && strcmp(facts_get(f, "math"), "tf32") == 0 &&
           strcmp(facts_get(f, "tf32_override"), "0") != 0;
}

/* ---- the list ------------------------------------------------------------ */

static explain_finding *add(explain_list *l, const char *rule, explain_severity sev) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        explain_finding *f = realloc(l->f, (size_t)cap * sizeof *f);
        if (!f) return NULL;
        l->f = f;
        l->cap = cap;
    }
    explain_finding *f = &l->f[l->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->rule, sizeof f->rule, "%s", rule);
    f->severity = sev;
    f->pair = -1;
    f->ratio = NAN;
    return f;
}

static void set_pair(explain_finding *f, const audit_result *r, int pi) {
    f->pair = pi;
    snprintf(f->a, sizeof f->a, "%s", r->eng[r->pair[pi].a].label);
    snprintf(f->b, sizeof f->b, "%s", r->eng[r->pair[pi].b].label);
}

/* explain_finding.when of the evaluation after epoch `epoch` (1-based):
 * after that epoch's last training step, before the next epoch's first
 * (the driver evaluates between them); the run's last step when the
 * epoch's length is not known (a result not from the driver) or the run
 * stopped inside it (--steps) */
static double eval_when(const audit_result *r, int epoch) {
    size_t n = r->cfg.run.limit_train && r->cfg.run.limit_train < r->ds.train.n ? r->cfg.run.limit_train
                                                                                 : r->ds.train.n;
    long spe = r->cfg.run.batch ? (long)steps_per_epoch(n, r->cfg.run.batch) : 0;
    long last = spe > 0 && epoch > 0 ? (long)epoch * spe : r->total_steps;
    if (last > r->total_steps || last <= 0) last = r->total_steps;
    return (double)last + 0.5;
}

static void set_slot(explain_finding *f, const audit_result *r, const model *m, int s) {
    if (s < 0) return;
    snprintf(f->tensor, sizeof f->tensor, "%s", r->slot_name[s]);
    snprintf(f->phase, sizeof f->phase, "%s", r->slot_phase[s]);
    explain_slot_origin(r, m, s, f->layer, sizeof f->layer);
    int how, l = slot_layer(r, m, s, &how);
    snprintf(f->layer_name, sizeof f->layer_name, "%s", l >= 0 ? m->layers[l].name : "loss");
}

/* The pair (reference, engine e), or -1. */
static int ref_pair_of(const audit_result *r, int e) {
    for (int pi = 0; pi < r->n_pairs; pi++)
        if (r->eng[r->pair[pi].a].is_ref && r->pair[pi].b == e) return pi;
    return -1;
}

/* "vs reference: X ratio a, Y ratio b (both <= 1: ...)" for slot s, or a
 * note that no bound was computed. */
static void bound_evidence(char *ev, size_t cap, const audit_result *r, int s, int ea, int eb) {
    char b1[32];
    int es[2] = {ea, eb}, n = 0, all_le1 = 1;
    for (int k = 0; k < 2; k++) {
        int pi = ref_pair_of(r, es[k]);
        if (pi < 0 || r->pair[pi].slot[s].max_bound_ratio < 0) continue;
        double q = r->pair[pi].slot[s].max_bound_ratio;
        cat(ev, cap, "%s %s bound ratio vs %s %s", n ? ";" : " At this tensor,", r->eng[es[k]].label,
            r->eng[r->pair[pi].a].label, fnum(b1, sizeof b1, q));
        all_le1 &= q <= 1;
        n++;
    }
    if (n == 2 && all_le1)
        cat(ev, cap, " (both <= 1: at this tensor both are consistent with fp32 rounding in some order).");
    else if (n > 0)
        cat(ev, cap, ".");
    else
            cat(ev, cap, " No bound ratio for this tensor (bounds apply at isolated steps and shadow replays with a "
                     "reference engine), so whether each side is consistent with fp32 rounding was not checked here.");
}

/* Both engines' parameter drift from the reference at the last step where
 * both were compared with it: which side is closer to exact arithmetic. */
static void ref_drift_evidence(char *ev, size_t cap, const audit_result *r, int ea, int eb) {
    int pa = ref_pair_of(r, ea), pb = ref_pair_of(r, eb);
    if (pa < 0 || pb < 0 || !r->pair[pa].param_rel_l2 || !r->pair[pb].param_rel_l2) return;
    /* isolated mode (the pairs carry bounds): the update consumed the
     * leader's gradients, so the parameters say nothing about the engines */
    for (int s = 0; s < r->n_slots; s++)
        if (r->pair[pa].slot[s].max_bound_ratio >= 0 || r->pair[pb].slot[s].max_bound_ratio >= 0) return;
    const double *x = r->pair[pa].param_rel_l2, *y = r->pair[pb].param_rel_l2;
    for (long k = r->total_steps - 1; k >= 0; k--) {
        if (isnan(x[k]) || isnan(y[k])) continue;
        char b1[32], b2[32];
        cat(ev, cap, " Parameters after step %ld vs %s (rel. L2): %s %s, %s %s", k + 1,
            r->eng[r->pair[pa].a].label, r->eng[ea].label, fnum(b1, sizeof b1, x[k]), r->eng[eb].label,
            fnum(b2, sizeof b2, y[k]));
        if (x[k] > 0 && y[k] > 0) {
            double q = y[k] / x[k];
            cat(ev, cap, " (%.2gx).", q);
        } else {
            cat(ev, cap, ".");
        }
        return;
    }
}

/* Pair divergence figures: first step, first tensor, its worst ULP. */
static void divergence_evidence(char *ev, size_t cap, const audit_result *r, const model *m, const audit_pair *p,
                                int s) {
    char b1[32], b2[32], org[64];
    if (s >= 0) {
        const audit_slot_stats *ss = &p->slot[s];
        cat(ev, cap,
            "First unequal at step %ld in %s, computed by %s: the first tensor in phase order (forward, loss, "
            "backward, update) to differ at that step. Over the %ld compared steps: normwise rel. L2 error up to "
            "%s, max %s ULP (at step %ld), as few as %.4g%% of elements bitwise equal.",
            ss->first_unequal_step, r->slot_name[s], explain_slot_origin(r, m, s, org, sizeof org), ss->n_steps,
            fnum(b2, sizeof b2, ss->max_rel_l2), fnum(b1, sizeof b1, ss->max_ulp), ss->worst_step,
            100 * ss->min_frac_equal);
    } else if (p->first_diff_step) {
        cat(ev, cap,
            "The parameters first differ after step %ld, a step that was not fully compared, so the first tensor "
            "is unknown (compare every step with --audit-every 1 to find it).",
            p->first_diff_step);
    }
    long last = -1;
    for (long k = r->total_steps - 1; k >= 0 && p->param_rel_l2; k--)
        if (!isnan(p->param_rel_l2[k])) {
            last = k;
            break;
        }
    if (last >= 0)
        cat(ev, cap, " Parameters after step %ld: rel. L2 difference %s, max %s ULP.", last + 1,
            fnum(b1, sizeof b1, p->param_rel_l2[last]), fnum(b2, sizeof b2, p->param_max_ulp[last]));
}

/* ---- rules ---------------------------------------------------------------- */

/* Two engines that differ only in the driver's perturb=K knob. */
static int is_noise_pair(const audit_result *r, const audit_pair *p) {
    const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
    if (ea->is_ref || eb->is_ref || (ea->perturb_ulps == 0) == (eb->perturb_ulps == 0)) return 0;
    facts fa, fb;
    engine_facts(&fa, ea);
    engine_facts(&fb, eb);
    char diff[200];
    const char *k;
    return strcmp(fa.kind, fb.kind) == 0 && facts_diff(&fa, &fb, diff, sizeof diff, &k) == 1 &&
           strcmp(k, "perturb") == 0;
}

static int rule_skipped(explain_list *L, const audit_result *r) {
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (ae->available) continue;
        explain_finding *f = add(L, "not-measured", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->title, sizeof f->title, "%s did not run: nothing about it was measured", ae->label);
        snprintf(f->cause, sizeof f->cause, "%s", ae->skip_reason);
        snprintf(f->evidence, sizeof f->evidence, "The engine reported itself unavailable when it was created.");
        snprintf(f->fix, sizeof f->fix, "Run the audit where %s can run (for cuda: a machine with an NVIDIA GPU "
                                        "and driver).", ae->label);
    }
    return LS_OK;
}

static int rule_determinism(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (!is_repeat_pair(r, p)) continue;
        const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
        long ncmp, nst = pair_compared(r, p, &ncmp);
        if (pair_equal(r, p)) {
            explain_finding *f = add(L, "deterministic", EXPLAIN_OK);
            if (!f) return LS_ENOMEM;
            set_pair(f, r, pi);
            snprintf(f->title, sizeof f->title, "%s is bitwise deterministic run to run", ea->label);
            snprintf(f->cause, sizeof f->cause, "Two runs of the same spec in separate processes gave identical "
                                                "bits.");
            snprintf(f->evidence, sizeof f->evidence,
                     "%s vs %s: parameters bitwise equal after each of %ld steps, and %ld tensor comparisons all "
                     "bitwise equal.",
                     ea->label, eb->label, nst, ncmp);
            snprintf(f->fix, sizeof f->fix, "Nothing to fix. This holds for this machine, thread count and batch "
                                            "size; it was not measured elsewhere.");
            continue;
        }
        int s = first_diff_slot(r, p);
        if (ea->perturb_ulps || eb->perturb_ulps) {
            explain_finding *f = add(L, "not-measured", EXPLAIN_INFO);
            if (!f) return LS_ENOMEM;
            set_pair(f, r, pi);
            snprintf(f->title, sizeof f->title, "%s vs %s: not a determinism check (perturbed starts)", ea->label,
                     eb->label);
            snprintf(f->cause, sizeof f->cause,
                     "Both runs start from initial weights moved by perturb=%d, and the driver may draw each run's "
                     "direction separately, so a difference here says nothing about determinism.",
                     ea->perturb_ulps ? ea->perturb_ulps : eb->perturb_ulps);
            divergence_evidence(f->evidence, sizeof f->evidence, r, m, p, s);
            snprintf(f->fix, sizeof f->fix, "Judge determinism on the unperturbed repeats.");
            continue;
        }
        explain_finding *f = add(L, "nondeterminism", EXPLAIN_PROBLEM);
        if (!f) return LS_ENOMEM;
        set_pair(f, r, pi);
        set_slot(f, r, m, s);
        f->step = s >= 0 ? p->slot[s].first_unequal_step : p->first_diff_step;
        int ev_ep = p->first_diff_step == 0 && s < 0 ? eval_disagrees(r, p) : 0;
        if (ev_ep) {
            snprintf(f->title, sizeof f->title, "%s is NOT bitwise deterministic: two runs with equal weights classify "
                     "%ld test image(s) differently (evaluation after epoch %d)", ea->label, p->disagree[ev_ep - 1],
                     ev_ep);
            snprintf(f->evidence, sizeof f->evidence,
                     "Parameters bitwise equal after every step and every compared tensor equal, yet the evaluation "
                     "after epoch %d predicts %ld of %zu test images differently: the same weights on the same "
                     "images must give the same classes, so the evaluation itself (its forward pass, or the logits "
                     "read back from it) differs between the two runs. The engines' evaluation checks say which.",
                     ev_ep, p->disagree[ev_ep - 1], r->n_test);
            snprintf(f->cause, sizeof f->cause, "Something in the evaluation path is not reproducible run to run.");
            snprintf(f->fix, sizeof f->fix, "Look at the engines' evaluation findings (read-back, evaluation "
                                            "checksums); rerun both with --verbose.");
            continue;
        }
        snprintf(f->title, sizeof f->title, "%s is NOT bitwise deterministic: two runs differ first in %s", ea->label,
                 s >= 0 ? r->slot_name[s] : "the parameters");
        divergence_evidence(f->evidence, sizeof f->evidence, r, m, p, s);
        facts fa;
        engine_facts(&fa, ea);
        /* did the two runs pick different kernels? */
        char ka[200] = "", kb[200] = "";
        int differs = 0;
        for (int l = 0; l < m->n_layers && !differs; l++) {
            const char *la = describe_layer(ea->describe, m->layers[l].name),
                       *lb = describe_layer(eb->describe, m->layers[l].name);
            static const char *const DIRS[] = {"fwd", "bwd_data", "bwd_weights", "bwd_filter"};
            for (size_t d = 0; d < LS_ARRAY_LEN(DIRS) && !differs; d++) {
                const char *ma = jmember(la, DIRS[d]), *mb = jmember(lb, DIRS[d]);
                char va[96] = "", vb[96] = "";
                if (ma && *ma == '{') explain_json_get(ma, "algo", va, sizeof va);
                else if (ma) jscalar(ma, va, sizeof va);
                if (mb && *mb == '{') explain_json_get(mb, "algo", vb, sizeof vb);
                else if (mb) jscalar(mb, vb, sizeof vb);
                if (strcmp(va, vb) != 0) {
                    differs = 1;
                    snprintf(ka, sizeof ka, "%s %s %s", m->layers[l].name, DIRS[d], va);
                    snprintf(kb, sizeof kb, "%s", vb);
                }
            }
        }
        if (differs)
            cat(f->evidence, sizeof f->evidence, " The two runs chose different kernels: %s in one, %s in the other.",
                ka, kb);
        if (strcmp(fa.kind, "cuda") == 0 && strcmp(facts_get(&fa, "algo"), "det") != 0) {
            snprintf(f->cause, sizeof f->cause,
                     "Consistent with non-deterministic GPU algorithms: with algo=%s cuDNN's algorithms are chosen by "
                     "timing (cudnnFind, which can pick differently run to run) and may use atomic additions, whose "
                     "order varies; cuBLAS atomics and non-deterministic max-pool backward are allowed too.",
                     facts_get(&fa, "algo")[0] ? facts_get(&fa, "algo") : "fast");
            snprintf(f->fix, sizeof f->fix, "Use cuda:algo=det (deterministic algorithms chosen by heuristics, no "
                                            "atomics, deterministic max-pool).");
        } else if (strcmp(fa.kind, "cpu") == 0 && atoi(facts_get(&fa, "threads")) > 1) {
            snprintf(f->cause, sizeof f->cause,
                     "Not identified. Candidates: run-to-run variation in how work is split across %s OpenMP threads "
                     "(reductions combined in a different order), or a kernel that is not reproducible.",
                     facts_get(&fa, "threads"));
            snprintf(f->fix, sizeof f->fix, "Try threads=1 for %s; if the runs then match, the thread split is the "
                                            "cause.", ea->label);
        } else {
            snprintf(f->cause, sizeof f->cause,
                     "Not explained by the engine's settings (%s was expected to be deterministic here): a bug, an "
                     "uninitialised value, or a library path that is not reproducible.",
                     ea->label);
            snprintf(f->fix, sizeof f->fix, "Report it with the first tensor named above; bisect by layer with "
                                            "--mode isolated --repeat 2.");
        }
    }
    return LS_OK;
}

/* One finding per (reference pair, layer) with a bound ratio > 1; one
 * "within-bound" finding per reference pair whose ratios are all <= 1. */
/* ---- signatures: which arithmetic explains an error beyond the fp32 bound ----
 * A dot product whose inputs were rounded to a precision with unit roundoff
 * u_in before exact products and fp32 accumulation errs by at most
 * lowp_bound_factor(K, u_in) times the fp32 bound (lowp.h derives it).  So
 * an engine whose every product tensor lies within that scaled bound, and
 * whose every other tensor (exact operations, loss, Adam: fp32 in any such
 * engine) within its own, has the error pattern of that arithmetic. */
typedef struct {
    const char *name;
    double u;
    int bias_rounded; /* bias gradients summed from rounded dy (bf16) or not (TF32: an fp32 sum) */
} lowp_kind;
static const lowp_kind LOWP_KINDS[] = {
    {"TF32 (inputs rounded to nearest, 10-bit mantissa)", 0x1p-11, 0},
    {"TF32 (inputs truncated, 10-bit mantissa)", 0x1p-10, 0},
    {"bf16 (inputs rounded to nearest, 7-bit mantissa)", 0x1p-8, 1},
};

/* K of slot s's dot product (0: not a dot product), and whether it is a
 * bias gradient (a sum). */
static size_t slot_dot_k(const audit_result *r, const model *m, int s, int *is_bias_grad) {
    int how, l = slot_layer(r, m, s, &how);
    *is_bias_grad = 0;
    if (l < 0) return 0;
    const layer *ly = &m->layers[l];
    int conv = ly->kind == LAYER_CONV, dense = ly->kind == LAYER_DENSE;
    if (!conv && !dense) return 0;
    if (how == 0) return conv ? (size_t)ly->in_c * ly->k * ly->k + 1 : (size_t)ly->in_c + 1;
    if (how == 1) return conv ? (size_t)ly->out_c * ly->k * ly->k : (size_t)ly->out_c;
    if (how == 2) {
        *is_bias_grad = ends_with(r->slot_name[s], ".bias.grad");
        size_t k = r->batch * (size_t)ly->out_h * ly->out_w;
        return *is_bias_grad ? (k > 1 ? k - 1 : 1) : k;
    }
    return 0;
}

/* The first LOWP_KINDS entry whose scaled bounds hold every bounded tensor
 * of pair p (-1: none), with the largest scaled ratio. */
static int lowp_signature(const audit_result *r, const model *m, const audit_pair *p, double *worst) {
    for (int k = 0; k < (int)LS_ARRAY_LEN(LOWP_KINDS); k++) {
        double w = 0;
        int ok = 1, n_dot = 0, n_dot_over = 0;
        for (int s = 0; s < r->n_slots && ok; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!ss->n_bounded || ss->max_bound_ratio < 0) continue;
            int bias;
            size_t K = slot_dot_k(r, m, s, &bias);
            double f = K && (!bias || LOWP_KINDS[k].bias_rounded) ? lowp_bound_factor(K, LOWP_KINDS[k].u) : 1.0;
            double q = ss->max_bound_ratio / f;
            if (!(q <= 1)) ok = 0;
            if (K && f > 1) {
                n_dot++;
                n_dot_over += ss->max_bound_ratio > 1;
            }
            if (q > w) w = q;
        }
        /* reduced-precision inputs touch every product: most product
         * tensors must show it (a bug in one layer that happens to stay
         * under the TF32 bound is not a signature) */
        if (ok && n_dot_over > 0 && 2 * n_dot_over >= n_dot) {
            *worst = w;
            return k;
        }
    }
    return -1;
}

/* A twin in the audit (an engine whose spec asks for reduced precision)
 * whose per-tensor bound ratios match pair p's within 1.3x on every product
 * tensor both exceed the fp32 bound on: -1 when none. */
static int matching_twin(const audit_result *r, const model *m, int pi, double *spread) {
    const audit_pair *p = &r->pair[pi];
    for (int qi = 0; qi < r->n_pairs; qi++) {
        const audit_pair *q = &r->pair[qi];
        if (qi == pi || q->a != p->a || q->b == p->b) continue;
        const char *sp = r->eng[q->b].spec;
        if (!strstr(sp, "tf32=on") && !strstr(sp, "dtype=bf16")) continue;
        double worst = 1;
        int n = 0;
        for (int s = 0; s < r->n_slots; s++) {
            int bias;
            if (!slot_dot_k(r, m, s, &bias)) continue;
            double x = p->slot[s].max_bound_ratio, y = q->slot[s].max_bound_ratio;
            if (!(x > 1) || !(y > 1)) continue;
            double f = x > y ? x / y : y / x;
            if (f > worst) worst = f;
            n++;
        }
        if (n > 0 && worst <= 1.3) {
            *spread = worst;
            return q->b;
        }
    }
    return -1;
}

static const char REDUCED_FIX[] =
    "Turn reduced precision off for this operation: PyTorch torch.backends.cuda.matmul.allow_tf32 = False and "
    "torch.backends.cudnn.allow_tf32 = False (convolutions default to TF32 in PyTorch); env NVIDIA_TF32_OVERRIDE=0; "
    "cuDNN math type CUDNN_DEFAULT_MATH, cuBLAS CUBLAS_DEFAULT_MATH (not CUBLAS_TF32_TENSOR_OP_MATH); in lockstep "
    "cuda:math=fma, cpu:tf32=off, dtype=f32.";

/* Elements of the tensor an operation of slot s writes (its output,
 * input gradient or weight gradient); 0 when not a conv/dense product. */
static size_t slot_numel(const audit_result *r, const model *m, int s) {
    int how, l = slot_layer(r, m, s, &how);
    if (l < 0) return 0;
    const layer *ly = &m->layers[l];
    if (ly->kind != LAYER_CONV && ly->kind != LAYER_DENSE) return 0;
    size_t kk = ly->kind == LAYER_CONV ? (size_t)ly->k * ly->k : 1;
    if (how == 0) return r->batch * (size_t)ly->out_c * ly->out_h * ly->out_w;
    if (how == 1) return r->batch * (size_t)ly->in_c * ly->in_h * ly->in_w;
    if (how == 2) return ends_with(r->slot_name[s], ".bias.grad") ? (size_t)ly->out_c : (size_t)ly->out_c * ly->in_c * kk;
    return 0;
}

/* One operation's error over its fp32 bound (ratio q) that TF32 or bf16
 * operands in that operation alone explain: a product tensor (not a bias
 * sum), q within lowp_bound_factor(K, u_in) (lowp.h), no bias in sign (the
 * sign tests ran and passed: round to nearest is unbiased; without them
 * there is no evidence for it), and the excess widespread: reduced
 * precision rounds every element, so at least LOWP_MIN_OVER of the
 * elements exceed their fp32 bound (TF32 measured on SmallCNN: 54-94% of
 * the elements of conv1/conv2/fc2 outputs and fc1/fc2 weight gradients);
 * a few elements far over it (a Winograd tile of 16 values off: 16 of
 * 1.6 million) are a localized fault, not a precision.  The name of
 * the precision into lp ("TF32 (or bf16)", "bf16"); 0 when it does not fit. */
#define LOWP_MIN_OVER 0.01
static int one_op_lowp(const audit_result *r, const model *m, const audit_slot_stats *ss, int s, double q, char *lp,
                       size_t cap) {
    int bias;
    size_t K = slot_dot_k(r, m, s, &bias);
    if (!K || bias || !isfinite(q) || !ss->n_aggregate || ss->max_bias_score >= 1) return 0;
    size_t numel = slot_numel(r, m, s);
    if (numel && ss->n_check_steps > 0 && (double)ss->n_over < LOWP_MIN_OVER * (double)numel * (double)ss->n_check_steps)
        return 0;
    if (q <= lowp_bound_factor(K, 0x1p-11)) snprintf(lp, cap, "TF32 (or bf16)");
    else if (q <= lowp_bound_factor(K, 0x1p-8)) snprintf(lp, cap, "bf16");
    else return 0;
    return 1;
}

/* What to change when a layer runs a transform algorithm: cuda or cpu */
static const char *transform_fix(int cuda) {
    return cuda ? "Keep cuDNN off Winograd/FFT: lockstep cuda:conv=gemm or cuda:algo=det; "
                  "PyTorch torch.backends.cudnn.benchmark = False and "
                  "torch.backends.cudnn.deterministic = True (benchmark mode picks the "
                  "fastest algorithm, Winograd and FFT included)."
                : "Use the direct convolution: lockstep cpu:algo=direct; oneDNN "
                  "dnnl_convolution_direct, not _winograd or _auto.";
}

/* bound exceeded, explained by a transform (Winograd/FFT) algorithm */
static explain_finding *bound_transform(explain_list *L, const audit_engine *eb, const facts *fb, const char *lname,
                                        const char *tr) {
    explain_finding *f = add(L, "approximate-algorithm", EXPLAIN_PROBLEM);
    if (!f) return NULL;
    snprintf(f->cause, sizeof f->cause,
             "Approximate algorithm: %s runs %s with a transform algorithm (%s). Winograd/FFT "
             "convolutions compute the products in a transformed basis whose constants amplify rounding, "
             "so their error is not bounded by the dot-product bound of fp32 arithmetic in any order.",
             eb->label, lname, tr);
    snprintf(f->fix, sizeof f->fix, "%s", transform_fix(strcmp(fb->kind, "cuda") == 0));
    return f;
}

/* bound exceeded, with the error signature of reduced-precision products */
static explain_finding *bound_lowp(explain_list *L, const audit_result *r, const audit_engine *eb, const facts *fb,
                                   int sig, double sig_w, int twin, double twin_spread) {
    char b1[32];
    explain_finding *f;
    /* evidence first: the error pattern; the knob only corroborates */
    f = add(L, "reduced-precision", EXPLAIN_PROBLEM);
    if (!f) return NULL;
    int knob_tf32 = uses_tf32(fb) || strcmp(facts_get(fb, "tf32"), "on") == 0;
    int knob_bf16 = strcmp(facts_get(fb, "dtype"), "bf16") == 0;
    snprintf(f->cause, sizeof f->cause,
             "Reduced precision, by signature: every product tensor of %s lies within the bound of %s "
             "arithmetic (largest ratio to that bound %s), some exceed the fp32 bound, and every exact, "
             "loss and Adam tensor is within its fp32 rule: the error pattern of products whose inputs "
             "were rounded to fewer mantissa bits, accumulated in fp32.",
             eb->label, LOWP_KINDS[sig].name, fnum(b1, sizeof b1, sig_w));
    if (twin >= 0)
        cat(f->cause, sizeof f->cause, " Its per-tensor error matches the twin %s within %.2fx.",
            r->eng[twin].label, twin_spread);
    cat(f->cause, sizeof f->cause, " %s",
        knob_tf32 ? "Its description agrees: TF32 math is on."
        : knob_bf16 ? "Its description agrees: bf16 data."
                    : "Its description names no reduced precision: a path the library does not report.");
    snprintf(f->fix, sizeof f->fix, "%s", strcmp(fb->kind, "cuda") == 0
                                              ? "Turn TF32 off: lockstep cuda:math=fma; PyTorch "
                                                "torch.backends.cuda.matmul.allow_tf32 = False and "
                                                "torch.backends.cudnn.allow_tf32 = False; any CUDA program: "
                                                "NVIDIA_TF32_OVERRIDE=0."
                                              : "Use fp32 throughout (lockstep tf32=off, dtype=f32; PyTorch: no "
                                                "autocast, torch.set_float32_matmul_precision(\"highest\")).");
    return f;
}

static const char *const OP_NAME[] = {"forward", "backward-data", "backward-weights"};

/* bound exceeded with no explanation in the engine's description; an
 * excess that TF32/bf16 operands in this one operation explain
 * (one_op_lowp) is named so, with the fix in the user's terms */
static explain_finding *bound_unexplained(explain_list *L, const audit_result *r, const model *m, int s,
                                          const audit_slot_stats *ss, const audit_engine *eb, layer_kind kind,
                                          int how, const char *lname) {
    explain_finding *f = add(L, "bound-exceeded", EXPLAIN_PROBLEM);
    if (!f) return NULL;
    char lp[24] = "";
    if ((kind == LAYER_CONV || kind == LAYER_DENSE) && how <= 2 &&
        one_op_lowp(r, m, ss, s, ss->max_bound_ratio, lp, sizeof lp)) {
        snprintf(f->rule, sizeof f->rule, "reduced-precision-op");
        snprintf(f->cause, sizeof f->cause,
                 "Not fp32 rounding in any order, but within what %s operands give in this one operation, %s, "
                 "unbiased in sign (the sign tests pass), while the other operations of the layer stay within "
                 "their fp32 bounds: consistent with %s's %s running in reduced precision (as cuDNN/cuBLAS do "
                 "when TF32 is allowed), though %s's description names none.",
                 lp, r->slot_name[s], lname, OP_NAME[how], eb->label);
        snprintf(f->fix, sizeof f->fix, "%s", REDUCED_FIX);
        return f;
    }
    if (kind == LAYER_MAXPOOL && how == 1)
        snprintf(f->cause, sizeof f->cause,
                 "Max-pool backward is exact in fp32, so any difference is routing: consistent with a "
                 "different tie rule (which of equal maxima receives the gradient) in %s than in the "
                 "reference.",
                 eb->label);
    else if (kind == LAYER_CONV || kind == LAYER_DENSE) {
        size_t numel = slot_numel(r, m, s);
        double per_step = ss->n_check_steps > 0 ? (double)ss->n_over / (double)ss->n_check_steps : NAN;
        if (numel && per_step < LOWP_MIN_OVER * (double)numel)
            /* a few elements far over their bound: not a precision, which
             * rounds every element (one_op_lowp) */
            snprintf(f->cause, sizeof f->cause,
                     "Not consistent with fp32 rounding in any order, and localized: %ld element(s) of %s over "
                     "their bound in %ld bounded step(s) of %zu elements each, where a reduced precision or a "
                     "transform algorithm (TF32, bf16, Winograd) moves a large share of them. A bug in part of "
                     "%s's %s in %s: a tile, row, channel or sample computed wrongly.",
                     ss->n_over, r->slot_name[s], ss->n_check_steps, numel, lname, OP_NAME[how], eb->label);
        else
            snprintf(f->cause, sizeof f->cause,
                     "Not consistent with fp32 rounding in any order, and %s's description names neither a "
                     "transform algorithm nor TF32 for %s: a bug, or a reduced-precision or approximate path "
                     "the library does not report.",
                     eb->label, lname);
    }
    else
        snprintf(f->cause, sizeof f->cause,
                 "%s is exact (or a single rounding) in fp32 given the same input, yet %s differs from "
                 "the reference: a bug in this layer of %s.",
                 lname, eb->label, eb->label);
    snprintf(f->fix, sizeof f->fix, "Ablate %s's knobs one at a time on this layer (--mode isolated), "
                                    "and report it with the tensor named here.", eb->label);
    return f;
}

/* "Winograd", "FFT" or "a transform algorithm", from the kernels a layer
 * runs (layer_transforms' list: cuDNN WINOGRAD, oneDNN jit_wino_4x3, FFT) */
static const char *transform_kind(const char *kernels) {
    if (has_ci(kernels, "wino")) return "Winograd";
    if (has_ci(kernels, "fft")) return "FFT";
    return "a transform algorithm";
}

/* the same, from bound_transform's cause ("... with a transform algorithm
 * (<the kernels>). ...") */
static const char *transform_word(const char *cause) {
    const char *a = strstr(cause, "transform algorithm (");
    const char *e = a ? strstr(a, "). ") : NULL;
    if (!a || !e) return "a transform algorithm";
    char seg[400];
    snprintf(seg, sizeof seg, "%.*s", (int)(e - a), a);
    return transform_kind(seg);
}

/* where, when, title and the layer's bound ratios: every bound finding's */
static void bound_finish(explain_finding *f, const audit_result *r, const model *m, int pi, int s, int l,
                         double sig_w) {
    char b1[32], rw[128];
    const audit_pair *p = &r->pair[pi];
    const audit_slot_stats *ss = &p->slot[s];
    const audit_engine *eb = &r->eng[p->b];
    const char *lname = l >= 0 ? m->layers[l].name : "loss";
    double q = ss->max_bound_ratio;
    set_pair(f, r, pi);
    set_slot(f, r, m, s);
    f->step = ss->worst_ratio_step ? ss->worst_ratio_step : ss->worst_step;
    /* where it begins (the order, explain_run): the first step any tensor it names was over its bound
     * (the signature finding names the whole engine); f->step stays the worst's, which the title's ratio is */
    long first = 0;
    for (int t = 0; t < r->n_slots; t++) {
        int how2, l2 = slot_layer(r, m, t, &how2);
        long fo = p->slot[t].first_over_step;
        if ((l2 == l || strcmp(f->rule, "reduced-precision") == 0) && fo > 0 && (!first || fo < first)) first = fo;
    }
    f->when = (double)(first ? first : f->step);
    f->ratio = q;
    char lp[24] = "";
    int how;
    slot_layer(r, m, s, &how);
    if (strcmp(f->rule, "reduced-precision-op") == 0 && how <= 2 && one_op_lowp(r, m, ss, s, q, lp, sizeof lp))
        snprintf(f->title, sizeof f->title, "%s: %s %s: error %s (in %s), consistent with %s operands in that "
                 "operation", eb->label, lname, OP_NAME[how], ratio_words(rw, sizeof rw, q), r->slot_name[s], lp);
    else if (strcmp(f->rule, "reduced-precision") == 0)
        snprintf(f->title, sizeof f->title, "%s: error %s (in %s), with the error signature of %s", eb->label,
                 ratio_words(rw, sizeof rw, q), r->slot_name[s],
                 sig_w >= 0 && strstr(f->cause, "bf16 (") ? "bf16" : "TF32");
    else if (strcmp(f->rule, "approximate-algorithm") == 0)
        snprintf(f->title, sizeof f->title, "%s: %s uses %s, an approximate convolution: its error in %s is %s",
                 eb->label, lname, transform_word(f->cause), r->slot_name[s], ratio_words(rw, sizeof rw, q));
    else
        snprintf(f->title, sizeof f->title, "%s: %s's error in %s is %s", eb->label, lname, r->slot_name[s],
                 ratio_words(rw, sizeof rw, q));
    cat(f->evidence, sizeof f->evidence, "Bound ratio (error / a-priori fp32 bound, any summation order) vs %s:",
        r->eng[p->a].label);
    int listed = 0;
    for (int t = 0; t < r->n_slots; t++) {
        int how2, l2 = slot_layer(r, m, t, &how2);
        const audit_slot_stats *st = &p->slot[t];
        if (l2 != l || !st->n_steps || st->max_bound_ratio < 0) continue;
        char b2[32];
        cat(f->evidence, sizeof f->evidence, "%s %s %s (%s ULP)", listed ? ";" : "", r->slot_name[t],
            fnum(b1, sizeof b1, st->max_bound_ratio), fnum(b2, sizeof b2, st->max_ulp));
        listed++;
    }
    cat(f->evidence, sizeof f->evidence, ". Ratio <= 1 reads consistent with fp32 rounding; > 1 cannot be "
                                         "fp32 rounding in any order.");
    if (isinf(q))
        cat(f->evidence, sizeof f->evidence,
            " An infinite ratio means an element whose bound is 0 (every product in its sum is exactly 0, or "
            "the layer is exact) came out different from the exact value.");
}

/* every bounded tensor of the pair within its fp32 bound */
static int bound_within(explain_list *L, const audit_result *r, const model *m, int pi, int n_bounded, int worst) {
    char b1[32], org[64];
    const audit_pair *p = &r->pair[pi];
    const audit_engine *eb = &r->eng[p->b];
    explain_finding *f = add(L, "within-bound", EXPLAIN_OK);
    if (!f) return LS_ENOMEM;
    set_pair(f, r, pi);
    set_slot(f, r, m, worst);
    long unj = 0;
    for (int s = 0; s < r->n_slots; s++) unj += p->slot[s].n_unjudged > 0 ? p->slot[s].n_unjudged : 0;
    char part[96] = "";
    if (unj) /* bounds_range_unbound: not within, not judged (rule_fp32_overflow) */
        snprintf(part, sizeof part, "; %ld element-check(s) not judged: fp32 may overflow there", unj);
    snprintf(f->title, sizeof f->title, "%s: every bounded tensor is within the fp32 bound (max ratio %s)%s",
             eb->label, fnum(b1, sizeof b1, p->slot[worst].max_bound_ratio), part);
    snprintf(f->cause, sizeof f->cause,
             "Given the same fp32 inputs as the exact reference (isolated mode), each layer's error is within "
             "the worst-case bound of fp32 arithmetic in some summation order.");
    snprintf(f->evidence, sizeof f->evidence,
             "%d tensors bounded; the largest ratio is %s at %s (%s). The bound covers one layer given its "
             "inputs, not error accumulated over steps.",
             n_bounded, fnum(b1, sizeof b1, p->slot[worst].max_bound_ratio), r->slot_name[worst],
             explain_slot_origin(r, m, worst, org, sizeof org));
    snprintf(f->fix, sizeof f->fix, "Nothing to fix: the differences from the reference are fp32 rounding.");
    return LS_OK;
}

/* One engine against its reference: a finding per layer over the bound
 * (one for the whole engine when the error has a reduced-precision
 * signature), or one saying that every bounded tensor is within. */
static int rule_bounds_pair(explain_list *L, const audit_result *r, const model *m, int pi) {
    const audit_pair *p = &r->pair[pi];
    const audit_engine *eb = &r->eng[p->b];
    facts fb;
    engine_facts(&fb, eb);
    int n_bounded = 0, worst = -1;
    int done_layer[MODEL_MAX_LAYERS + 1] = {0};
    int sig_done = 0;
    for (int s = 0; s < r->n_slots; s++) {
        const audit_slot_stats *ss = &p->slot[s];
        if (!ss->n_steps || ss->max_bound_ratio < 0) continue;
        n_bounded++;
        double q = ss->max_bound_ratio;
        if (worst < 0 || !(q <= p->slot[worst].max_bound_ratio)) worst = s;
        if (q <= 1) continue;
        int how, l = slot_layer(r, m, s, &how);
        if (done_layer[l + 1]) continue;
        done_layer[l + 1] = 1;
        explain_finding *f = NULL;
        char tr[300];
        const char *lname = l >= 0 ? m->layers[l].name : "loss";
        layer_kind kind = l >= 0 ? m->layers[l].kind : LAYER_FLATTEN;
        int transform = l >= 0 && layer_transforms(eb->describe, lname, tr, sizeof tr) > 0;
        double sig_w = 0, twin_spread = 0;
        int sig = transform ? -1 : lowp_signature(r, m, p, &sig_w);
        if (sig >= 0 && sig_done) continue; /* one finding names the arithmetic for the whole engine */
        sig_done |= sig >= 0;
        int twin = sig >= 0 ? matching_twin(r, m, pi, &twin_spread) : -1;
        if (transform) f = bound_transform(L, eb, &fb, lname, tr);
        else if (sig >= 0) f = bound_lowp(L, r, eb, &fb, sig, sig_w, twin, twin_spread);
        else f = bound_unexplained(L, r, m, s, ss, eb, kind, how, lname);
        if (!f) return LS_ENOMEM;
        bound_finish(f, r, m, pi, s, l, sig_w);
    }
    if (n_bounded > 0 && worst >= 0 && p->slot[worst].max_bound_ratio <= 1)
        return bound_within(L, r, m, pi, n_bounded, worst);
    return LS_OK;
}

static int rule_bounds(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        /* a repeat's findings would repeat its first run's (determinism is
         * rule_determinism's business) */
        if (!r->eng[p->a].is_ref || r->eng[p->b].repeat_of >= 0) continue;
        int rc = rule_bounds_pair(L, r, m, pi);
        if (rc) return rc;
    }
    return LS_OK;
}

/* The largest failing sharp-tier test of one slot: score (statistic over
 * its limit, >= 1 when failing; 0 when none failed), which test, its
 * probability. */
static double sharp_failure(const audit_slot_stats *ss, const char **test, double *p) {
    double best = 0;
    *test = "";
    *p = 1;
    if (!ss->n_suspect) return 0;
    if (ss->n_over_sharp && ss->max_sharp_ratio > best) {
        best = ss->max_sharp_ratio;
        *test = "sharp bound";
        *p = ss->sharp_alarm;
    }
    if (ss->max_bias_score >= 1 && ss->max_bias_score > best) {
        best = ss->max_bias_score;
        *test = "bias (sign test)";
        *p = ss->bias_p;
    }
    if (ss->max_scale_score >= 1 && ss->max_scale_score > best) {
        best = ss->max_scale_score;
        *test = "scale (mean square)";
        *p = ss->scale_p;
    }
    return best;
}

/* ---- the sharper tier: SUSPECT ---------------------------------------------
 * What reduced precision in ONE operation looks like to the sharper tier:
 * its operands rounded to u_in (TF32: 2^-11) add sum_i a_i b_i (e_ai + e_bi)
 * to the dot product, |e| <= u_in, independent: by Hoeffding within
 * lambda 2 u_in sqrt(sum (a_i b_i)^2) <= lambda 2 u_in S, i.e. a ratio to
 * the fp32 worst case gamma_K S of up to ~2 lambda u_in / (K u) =
 * 2 lambda 2^13 / K, and unbiased in sign (round to nearest).  So an
 * operation whose error fails the scale test or the sharp bound, with no
 * bias, while staying within the fp32 worst case, has the signature of
 * reduced-precision operands in that operation; a bias (sign test) is a
 * systematic shift instead (one ulp up, a scaled constant). */
static void suspect_text(explain_finding *f, const audit_result *r, const model *m, const audit_pair *p, int s,
                         const char *test, double score, double prob) {
    const audit_slot_stats *ss = &p->slot[s];
    const audit_engine *eb = &r->eng[p->b];
    char b1[32], b2[32], b3[32], org[64];
    int bias, how, l = slot_layer(r, m, s, &how);
    size_t K = slot_dot_k(r, m, s, &bias);
    const char *op = how == 0 ? "forward" : how == 1 ? "backward-data" : how == 2 ? "backward-weights" : "";
    int lowp = K && !bias && strcmp(test, "bias (sign test)") != 0 && ss->max_bias_score < 1 && op[0];
    explain_slot_origin(r, m, s, org, sizeof org);
    snprintf(f->rule, sizeof f->rule, "%s", lowp ? "suspect-reduced-precision" : "suspect");
    if (lowp)
        snprintf(f->title, sizeof f->title, "%s: %s %s consistent with reduced precision (TF32/bf16 operands) in %s "
                 "(SUSPECT: %s x%s its limit)", eb->label, l >= 0 ? m->layers[l].name : "", op, r->slot_name[s],
                 test, fnum(b1, sizeof b1, score));
    else
        snprintf(f->title, sizeof f->title, "%s: %s beyond what fp32 rounding does in practice, within the worst case "
                 "(SUSPECT: %s x%s its limit)", eb->label, r->slot_name[s], test, fnum(b1, sizeof b1, score));
    if (lowp)
        snprintf(f->cause, sizeof f->cause,
                 "%s (%s) errs more than independent fp32 roundings do (sharper tier), unbiased in sign and within "
                 "the fp32 worst case: the signature of its operands rounded to fewer mantissa bits (TF32, 10 bits; "
                 "bf16, 7) in this one operation, as cuDNN/cuBLAS do when TF32 is allowed. Consistent with, not "
                 "proven: any unbiased extra error of this size reads the same.",
                 r->slot_name[s], org);
    else if (strcmp(test, "bias (sign test)") == 0)
        snprintf(f->cause, sizeof f->cause,
                 "The errors of %s (%s) are systematic: %.1f%% of the nonzero errors are positive (sign z %s; "
                 "elements equal to the exact value correctly rounded, whose error no engine can change, not "
                 "counted) and the away-from-zero z is %s, where independent roundings give 50%% and |z| below "
                 "%.1f. A shift of every element (one ulp, a scaled constant) stays within the worst case but not "
                 "this.",
                 r->slot_name[s], org, 100 * ss->bias_share_pos, fnum(b1, sizeof b1, ss->bias_sign_z),
                 fnum(b2, sizeof b2, ss->bias_away_z), sqrt(2 * log(4 / BOUNDS_SHARP_ALPHA_TEST)));
    else
        snprintf(f->cause, sizeof f->cause,
                 "The error of %s (%s) is larger than independent mean-zero fp32 roundings produce (Higham & Mary's "
                 "probabilistic bound, or the mean square), though within the proven worst case: a fault or a "
                 "reduced-precision path that the worst case cannot tell from rounding.",
                 r->slot_name[s], org);
    snprintf(f->evidence, sizeof f->evidence,
             "vs %s at step %ld: ratio to the sharp bound %s (factor %s of the worst case; per-element false alarm "
             "%.1e), ratio to the worst-case bound %s; sign test max score %s (z %s, away z %s, p <= %.1e); mean "
             "square %s of limit %s (p <= %.1e); %ld of %ld checks failed. Failing test: %s, p <= %.1e under "
             "independent rounding.",
             r->eng[p->a].label, ss->first_suspect_step, fnum(b1, sizeof b1, ss->max_sharp_ratio),
             fnum(b2, sizeof b2, ss->sharp_factor), ss->sharp_alarm, fnum(b3, sizeof b3, ss->max_bound_ratio),
             fnum(b1, sizeof b1, ss->max_bias_score), fnum(b2, sizeof b2, ss->bias_sign_z),
             fnum(b3, sizeof b3, ss->bias_away_z), ss->bias_p, fnum(b1, sizeof b1, ss->scale_ms),
             fnum(b2, sizeof b2, ss->scale_limit), ss->scale_p, ss->n_suspect, ss->n_sharp, test, prob);
    if (lowp) snprintf(f->fix, sizeof f->fix, "%s", REDUCED_FIX);
    else
        snprintf(f->fix, sizeof f->fix, "Ablate %s's knobs one at a time on this layer (--mode isolated); a "
                 "systematic error is a bug even when it is small.", eb->label);
}

/* One SUSPECT finding per (reference pair, tensor) whose sharper tier
 * failed while every tensor of the layer is within its worst case
 * (a layer over its worst case is rule_bounds' PROBLEM already). */
static int rule_suspect(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (!r->eng[p->a].is_ref || r->eng[p->b].repeat_of >= 0) continue;
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            const char *test;
            double prob, score = sharp_failure(ss, &test, &prob);
            if (score < 1 || !(ss->max_bound_ratio <= 1)) continue;
            int how, l = slot_layer(r, m, s, &how), over = 0;
            for (int t = 0; t < r->n_slots && l >= 0; t++) {
                int how2;
                over |= slot_layer(r, m, t, &how2) == l && p->slot[t].max_bound_ratio > 1;
            }
            if (over) continue;
            explain_finding *f = add(L, "suspect", EXPLAIN_SUSPECT);
            if (!f) return LS_ENOMEM;
            set_pair(f, r, pi);
            set_slot(f, r, m, s);
            f->step = ss->first_suspect_step;
            f->ratio = ss->max_sharp_ratio;
            suspect_text(f, r, m, p, s, test, score, prob);
        }
    }
    return LS_OK;
}

/* Forward equal, loss (or the softmax gradient) differs: the exp/log. */
static int vendor_math_case(const audit_result *r, const audit_pair *p, int s) {
    if (s < 0 || strcmp(r->slot_phase[s], "loss") != 0) return 0;
    long st = p->slot[s].first_unequal_step;
    for (int t = 0; t < r->n_slots; t++)
        if (strcmp(r->slot_phase[t], "forward") == 0 && p->slot[t].n_steps && p->slot[t].first_unequal_step &&
            p->slot[t].first_unequal_step <= st)
            return 0;
    return 1;
}

static const char *math_knob(const facts *f) { return strcmp(f->kind, "cuda") == 0 ? "expm" : "math"; }

/* two engines bitwise equal over the whole run */
static int pair_equal_finding(explain_list *L, const audit_result *r, int pi, int nd, const char *diff, long nst,
                              long ncmp) {
    const audit_pair *p = &r->pair[pi];
    const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
    explain_finding *f = add(L, "bitwise-equal", EXPLAIN_OK);
    if (!f) return LS_ENOMEM;
    set_pair(f, r, pi);
    snprintf(f->title, sizeof f->title, "%s and %s are bitwise equal: interchangeable bit for bit on this run",
             ea->label, eb->label);
    snprintf(f->cause, sizeof f->cause, "%s%s", nd ? "They differ in " : "They differ in no numeric setting.",
             nd ? diff : "");
    if (nd) cat(f->cause, sizeof f->cause, ", which did not change a single bit here.");
    snprintf(f->evidence, sizeof f->evidence,
             "Parameters bitwise equal after each of %ld steps; %ld tensor comparisons, all bitwise equal.",
             nst, ncmp);
    snprintf(f->fix, sizeof f->fix, "Nothing to fix. Measured for this model, batch size and machine only.");
    return LS_OK;
}

/* equal forward, different loss: the exp/log they call */
static explain_finding *pair_vendor_math(explain_list *L, const audit_engine *ea, const audit_engine *eb,
                                         const facts *fa, const facts *fb) {
    explain_finding *f;
    int both_portable = strcmp(facts_get(fa, math_knob(fa)), "portable") == 0 &&
                        strcmp(facts_get(fb, math_knob(fb)), "portable") == 0;
    f = add(L, "vendor-math", both_portable ? EXPLAIN_PROBLEM : EXPLAIN_CAUSE);
    if (!f) return NULL;
    snprintf(f->title, sizeof f->title, "%s vs %s: equal forward, different loss: exp/log", ea->label,
             eb->label);
    if (both_portable)
        snprintf(f->cause, sizeof f->cause,
                 "Unexpected: both engines use the portable exp/log and the same loss code (ops_elem.h) on "
                 "bitwise-equal logits, so the loss should be bitwise equal: a bug.");
    else
        snprintf(f->cause, sizeof f->cause,
                 "Every forward activation, the logits included, was bitwise equal, and the loss and its "
                 "gradient are the same lockstep code in every engine; what differs is the exp/log it calls. "
                 "Consistent with vendor math functions (%s: %s=%s, %s: %s=%s) that round differently.",
                 ea->label, math_knob(fa), facts_get(fa, math_knob(fa))[0] ? facts_get(fa, math_knob(fa)) : "vendor",
                 eb->label, math_knob(fb), facts_get(fb, math_knob(fb))[0] ? facts_get(fb, math_knob(fb)) : "vendor");
    snprintf(f->fix, sizeof f->fix, "Use the portable exp/log on both: math=portable (cpu), expm=portable "
                                    "(cuda).");
    return f;
}

/* The cause and fix of a pair that differs in exactly one knob, per knob:
 * s is the first tensor to differ (-1: none). */
static void knob_cause(explain_finding *f, const audit_result *r, const model *m, int s, const audit_engine *ea,
                       const audit_engine *eb, const facts *fa, const char *knob, const char *va, const char *vb,
                       int grad) {
    if (strcmp(knob, "perturb") == 0) {
        snprintf(f->rule, sizeof f->rule, "noise-floor");
        f->severity = EXPLAIN_INFO;
        snprintf(f->title, sizeof f->title, "Noise floor: %s vs %s (same engine, initial weights moved by "
                                            "%s ULP)", ea->label, eb->label, va[0] ? va : vb);
        snprintf(f->cause, sizeof f->cause,
                 "The same engine started from initial weights that differ by at most a few roundings: how "
                 "far training amplifies a difference no larger than fp32 rounding. Differences between "
                 "engines of this size are indistinguishable from rounding noise.");
        snprintf(f->fix, sizeof f->fix, "Nothing to fix: this is the yardstick for the other pairs.");
    } else if (strcmp(knob, "threads") == 0) {
        snprintf(f->cause, sizeof f->cause,
                 "Different summation order: with threads=%s vs %s the library splits its reductions "
                 "differently across threads and adds the partial sums in another order; fp32 addition is "
                 "not associative, so the last bits differ.%s",
                 va, vb,
                 grad ? " The first tensor to differ is a gradient, a reduction over the whole batch: "
                        "consistent with the batch reduction of the weight gradient being split across "
                        "threads."
                      : "");
        snprintf(f->fix, sizeof f->fix, "Nothing to fix for correctness: an ordering difference, each side within "
                                                "the fp32 bound. For the same bits, use the same thread count on both: "
                                                "lockstep threads=%s; PyTorch torch.set_num_threads(%s) and "
                                                "OMP_NUM_THREADS=%s (oneDNN and MKL read it); also "
                                                "torch.use_deterministic_algorithms(True).", va, va, va);
    } else if (strcmp(knob, "algo") == 0 && strcmp(fa->kind, "cpu") == 0) {
        char tr[300] = "";
        const audit_engine *w = strstr(va, "wino") || strcmp(va, "auto") == 0 ? ea : eb;
        int ho, l = s >= 0 ? slot_layer(r, m, s, &ho) : -1;
        int t = l >= 0 && layer_transforms(w->describe, m->layers[l].name, tr, sizeof tr) > 0;
        snprintf(f->cause, sizeof f->cause, "Different convolution algorithm (algo=%s vs %s).", va, vb);
        if (t)
            cat(f->cause, sizeof f->cause, " Per its description %s runs %s as: %s.", w->label,
                m->layers[l].name, tr);
        cat(f->cause, sizeof f->cause,
            " Winograd computes a convolution from transformed tiles: fewer multiplications, but the "
            "transforms amplify rounding, so it is an approximate algorithm whose error is not covered by the "
            "fp32 dot-product bound (see the bound ratios against the reference, where measured).");
        snprintf(f->fix, sizeof f->fix, "Use the direct convolution on both: lockstep cpu:algo=direct; oneDNN "
                                        "dnnl_convolution_direct instead of dnnl_convolution_winograd or _auto.");
    } else if (strcmp(knob, "math") == 0 && strcmp(fa->kind, "cuda") == 0) {
        snprintf(f->cause, sizeof f->cause,
                 "Different math mode (math=%s vs %s): TF32 rounds the inputs of convolution and dense "
                 "products to a 10-bit mantissa (unit roundoff 2^-11 vs 2^-24): reduced precision.",
                 va, vb);
        snprintf(f->fix, sizeof f->fix, "Turn TF32 off: lockstep cuda:math=fma; PyTorch torch.backends.cuda.matmul.allow_tf32 = False and "
                                                "torch.backends.cudnn.allow_tf32 = False; any CUDA program: "
                                                "NVIDIA_TF32_OVERRIDE=0.");
    } else if (strcmp(knob, "tf32") == 0 || strcmp(knob, "dtype") == 0) {
        snprintf(f->cause, sizeof f->cause,
                 "Reduced precision (%s=%s vs %s): one side rounds the inputs of every convolution and dense "
                 "product to %s before fp32 accumulation; whether each side's error is that arithmetic is "
                 "answered by its signature against the reference.",
                 knob, va, vb, strcmp(knob, "tf32") == 0 ? "TF32 (10-bit mantissa)" : "bf16 (7-bit mantissa)");
        snprintf(f->fix, sizeof f->fix, "Use fp32 on both (tf32=off, dtype=f32).");
    } else if (strcmp(knob, "math") == 0 || strcmp(knob, "expm") == 0) {
        snprintf(f->cause, sizeof f->cause,
                 "Different exp/log in the loss (%s=%s vs %s): vendor and portable functions round "
                 "differently by up to an ULP.",
                 knob, va, vb);
        snprintf(f->fix, sizeof f->fix, "Use %s=portable on both.", knob);
    } else if (strcmp(knob, "algo") == 0) {
        snprintf(f->cause, sizeof f->cause,
                 "Different algorithm policy (algo=%s vs %s): different cuDNN algorithms sum in different "
                 "orders (and 'fast' may pick transform algorithms or atomics).",
                 va, vb);
        snprintf(f->fix, sizeof f->fix, "Use deterministic algorithms on both: lockstep cuda:algo=det; PyTorch "
                                                "torch.backends.cudnn.deterministic = True, "
                                                "torch.backends.cudnn.benchmark = False, "
                                                "torch.use_deterministic_algorithms(True).");
            } else {
        snprintf(f->cause, sizeof f->cause,
                 "Different %s (%s vs %s): the library picks other kernels (vector width, blocking), so "
                 "products are summed in another order.",
                 knob, va, vb);
        snprintf(f->fix, sizeof f->fix, "Use the same %s on both%s.", knob,
                         strcmp(knob, "isa") == 0 ? " (lockstep cpu:isa=...; oneDNN ONEDNN_MAX_CPU_ISA=AVX2, say, "
                                                    "in any program)" : "");
    }
}

/* two engines of the same kind that differ in one knob */
static explain_finding *pair_knob(explain_list *L, const audit_result *r, const model *m, int s,
                                  const audit_engine *ea, const audit_engine *eb, const facts *fa, const facts *fb,
                                  const char *knob) {
    explain_finding *f = add(L, "knob", EXPLAIN_CAUSE);
    if (!f) return NULL;
    snprintf(f->title, sizeof f->title, "%s vs %s differ only in %s", ea->label, eb->label, knob);
    const char *va = facts_get(fa, knob), *vb = facts_get(fb, knob);
    int grad = s >= 0 && ends_with(r->slot_name[s], ".grad");
    knob_cause(f, r, m, s, ea, eb, fa, knob, va, vb, grad);
    return f;
}

/* two engines that differ in more than one way (or in none they report) */
static explain_finding *pair_divergence(explain_list *L, const audit_result *r, int s, const audit_engine *ea,
                                        const audit_engine *eb, const facts *fa, const facts *fb, int same_kind,
                                        int nd, const char *diff) {
    explain_finding *f = add(L, "divergence", EXPLAIN_CAUSE);
    if (!f) return NULL;
    snprintf(f->title, sizeof f->title, "%s vs %s: first differ in %s", ea->label, eb->label,
             s >= 0 ? r->slot_name[s] : "the parameters");
    if (!same_kind)
        snprintf(f->cause, sizeof f->cause,
                 "Different libraries (%s vs %s): different kernels, blockings and summation orders. Which "
                 "side is closer to exact arithmetic is answered by the bound ratios against the reference.",
                 fa->kind, fb->kind);
    else if (nd > 1)
        snprintf(f->cause, sizeof f->cause,
                 "They differ in %d settings (%s): this run cannot attribute the difference to one of them.",
                 nd, diff);
    else
        snprintf(f->cause, sizeof f->cause,
                 "Same kind and no numeric setting differs, yet the bits differ: consistent with "
                 "run-to-run non-determinism (check with --repeat 2).");
    snprintf(f->fix, sizeof f->fix, "%s", nd > 1 ? "Ablate one knob at a time: add engines that differ in "
                                                   "exactly one setting."
                                                 : "Judge each engine against the reference in --mode "
                                                   "isolated; align the settings that differ.");
    return f;
}

static int rule_pairs(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
        if (ea->is_ref || eb->is_ref || ea->repeat_of >= 0 || eb->repeat_of >= 0) continue;
        /* a perturbed engine is a yardstick for its own twin only */
        if ((ea->perturb_ulps || eb->perturb_ulps) && !is_noise_pair(r, p)) continue;
        facts fa, fb;
        engine_facts(&fa, ea);
        engine_facts(&fb, eb);
        char diff[400];
        const char *knob = NULL;
        int same_kind = strcmp(fa.kind, fb.kind) == 0;
        int nd = same_kind ? facts_diff(&fa, &fb, diff, sizeof diff, &knob) : 0;
        long ncmp, nst = pair_compared(r, p, &ncmp);
        if (pair_equal_training(r, p)) {
            if (pair_equal_finding(L, r, pi, nd, diff, nst, ncmp)) return LS_ENOMEM;
            int ev = eval_disagrees(r, p);
            if (ev)
                cat(L->f[L->n - 1].evidence, sizeof L->f[L->n - 1].evidence,
                    " Their evaluations differ (after epoch %d, %ld test image(s) classified differently): each "
                    "engine's evaluation is judged by its own checks.", ev, p->disagree[ev - 1]);
            continue;
        }
        int s = first_diff_slot(r, p);
        explain_finding *f;
        if (vendor_math_case(r, p, s)) f = pair_vendor_math(L, ea, eb, &fa, &fb);
        else if (same_kind && nd == 1) f = pair_knob(L, r, m, s, ea, eb, &fa, &fb, knob);
        else f = pair_divergence(L, r, s, ea, eb, &fa, &fb, same_kind, nd, diff);
        if (!f) return LS_ENOMEM;
        set_pair(f, r, pi);
        set_slot(f, r, m, s);
        f->step = s >= 0 ? p->slot[s].first_unequal_step : p->first_diff_step;
        divergence_evidence(f->evidence, sizeof f->evidence, r, m, p, s);
        if (s >= 0) bound_evidence(f->evidence, sizeof f->evidence, r, s, p->a, p->b);
        ref_drift_evidence(f->evidence, sizeof f->evidence, r, p->a, p->b);
    }
    return LS_OK;
}

/* Free mode with a reference: no bound ratios at all. */
static int rule_unbounded(explain_list *L, const audit_result *r) {
    int have_ref = 0, bounded = 0;
    for (int i = 0; i < r->n_engines; i++) have_ref |= r->eng[i].is_ref && r->eng[i].available;
    for (int pi = 0; pi < r->n_pairs; pi++)
        for (int s = 0; s < r->n_slots; s++) bounded |= r->pair[pi].slot[s].max_bound_ratio >= 0;
    if (bounded) return LS_OK;
    explain_finding *f = add(L, "not-measured", EXPLAIN_INFO);
    if (!f) return LS_ENOMEM;
    if (have_ref) {
        snprintf(f->title, sizeof f->title, "No bound ratios: whether each engine's error is fp32 rounding was not "
                                            "checked");
        snprintf(f->cause, sizeof f->cause, "Bounds apply where the reference consumed exactly an engine's fp32 inputs: "
                                            "isolated steps (the attribution phase) and free-mode shadow replays; "
                                            "this run had neither.");
        snprintf(f->fix, sizeof f->fix, "Run lockstep audit --attribution-steps 2 (the default main job), or "
                                        "--mode isolated, or give --audit-every K for shadow replays.");
    } else {
        snprintf(f->title, sizeof f->title, "No reference engine: errors were not judged against exact arithmetic");
        snprintf(f->cause, sizeof f->cause, "Without the MPFR reference the engines can only be compared with each "
                                            "other: a difference says nothing about which side is right.");
        snprintf(f->fix, sizeof f->fix, "Add reference to --engines, with --attribution-steps 2.");
    }
    snprintf(f->evidence, sizeof f->evidence, "No tensor of any pair carries a bound ratio.");
    return LS_OK;
}

static int rule_accuracy(explain_list *L, const audit_result *r, const model *m) {
    int ep = r->epochs_done - 1;
    if (ep < 0) return LS_OK;
    if (r->drift_mode != MODE_FREE) {
        /* engines reset to the leader's weights at every compared step
         * predict alike by construction: no finding about agreement */
        explain_finding *f = add(L, "not-measured", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->title, sizeof f->title, "Prediction agreement not judged: the engines were synced to the same "
                                            "weights (%s mode)", r->drift_mode == MODE_SYNC ? "sync" : "isolated");
        snprintf(f->cause, sizeof f->cause, "Agreement between engines reset to one state is an artifact.");
        snprintf(f->evidence, sizeof f->evidence, "The drift phase ran in %s mode.",
                 r->drift_mode == MODE_SYNC ? "sync" : "isolated");
        snprintf(f->fix, sizeof f->fix, "Compare accuracy in free mode (the default drift phase).");
        return LS_OK;
    }
    size_t n_test = 0;
    int C = m->n_classes;
    for (int i = 0; i < r->n_engines && !n_test; i++)
        if (r->eng[i].confusion)
            for (int k = 0; k < C * C; k++) n_test += (size_t)r->eng[i].confusion[k];
    if (!n_test) {
        explain_finding *f = add(L, "not-measured", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->title, sizeof f->title, "Test accuracy was not measured (no evaluation)");
        snprintf(f->cause, sizeof f->cause, "The audit ran without evaluation (--no-eval), or no fp32 engine ran.");
        snprintf(f->evidence, sizeof f->evidence, "No engine has a confusion matrix.");
        snprintf(f->fix, sizeof f->fix, "Run without --no-eval to compare accuracy.");
        return LS_OK;
    }
    /* the noise floor: pairs that differ only by perturb=K */
    long d0 = -1, g0 = 0;
    char floor_name[AUDIT_PAIR_NAME_BYTES] = "";
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (!is_noise_pair(r, p) || !r->eng[p->a].confusion || !r->eng[p->b].confusion) continue;
        if (isnan(r->eng[p->a].test_acc[ep]) || isnan(r->eng[p->b].test_acc[ep])) continue; /* one failed */
        long ca = lround(r->eng[p->a].test_acc[ep] * n_test), cb = lround(r->eng[p->b].test_acc[ep] * n_test);
        if (p->disagree[ep] > d0) {
            d0 = p->disagree[ep];
            g0 = labs(ca - cb);
            snprintf(floor_name, sizeof floor_name, "%s vs %s", r->eng[p->a].label, r->eng[p->b].label);
        }
    }
    int n_pairs = 0, n_zero = 0;
    char names[400] = "";
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (r->eng[p->a].is_ref || r->eng[p->b].is_ref || !r->eng[p->a].confusion || !r->eng[p->b].confusion)
            continue;
        if (isnan(r->eng[p->a].test_acc[ep]) || isnan(r->eng[p->b].test_acc[ep])) continue; /* one failed */
        if (r->eng[p->a].repeat_of >= 0 || r->eng[p->b].repeat_of >= 0) continue; /* see rule_determinism */
        if ((r->eng[p->a].perturb_ulps || r->eng[p->b].perturb_ulps) && !is_noise_pair(r, p)) continue;
        n_pairs++;
        if (p->disagree[ep] == 0) {
            n_zero++;
            if (n_zero <= 6)
                cat(names, sizeof names, "%s%s = %s", n_zero > 1 ? "; " : "", r->eng[p->a].label, r->eng[p->b].label);
            continue;
        }
        const audit_engine *ea = &r->eng[p->a], *eb = &r->eng[p->b];
        long d = p->disagree[ep];
        long ca = lround(ea->test_acc[ep] * n_test), cb = lround(eb->test_acc[ep] * n_test);
        long g = labs(ca - cb);
        double sd = sqrt((double)d);
        explain_finding *f = add(L, "accuracy-gap", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        set_pair(f, r, pi);
        snprintf(f->title, sizeof f->title, "%s vs %s: accuracy gap of %ld test images (%.2f points), %ld images "
                                            "classified differently",
                 ea->label, eb->label, g, 100.0 * g / n_test, d);
        snprintf(f->cause, sizeof f->cause,
                 "The gap is the net of the %ld images the two engines classify differently (each flip moves the "
                 "count by at most one, so |gap| <= %ld). If each flip were equally likely to favour either engine, "
                 "the net would scatter with a standard deviation of at most sqrt(%ld) = %.1f images (McNemar's "
                 "argument); the gap is %s 2 sigma. That is a statement about this one run.",
                 d, d, d, sd, (double)g <= 2 * sd ? "within" : "beyond");
        snprintf(f->evidence, sizeof f->evidence,
                 "After epoch %d: %s %.2f%% (%ld of %zu), %s %.2f%% (%ld of %zu); %ld test images classified "
                 "differently.",
                 ep + 1, ea->label, 100 * ea->test_acc[ep], ca, n_test, eb->label, 100 * eb->test_acc[ep], cb, n_test,
                 d);
        if (d0 >= 0 && !is_noise_pair(r, p))
            cat(f->evidence, sizeof f->evidence,
                " Noise floor (%s, the same engine from weights moved by a few ULP): %ld images classified "
                "differently, gap %ld. This pair's %ld flips are %s that floor (one sample of it: one seed).",
                floor_name, d0, g0, d, d <= d0 ? "within" : "above");
        if (is_noise_pair(r, p))
            snprintf(f->fix, sizeof f->fix,
                     "Nothing to fix: this is the noise floor. Not measured: the spread over seeds (other --seed "
                     "values), and whether the flipped images were near ties (logit margins are not recorded).");
        else
            snprintf(f->fix, sizeof f->fix,
                     "Not measured here: the spread of accuracy over seeds (rerun with other --seed values),%s and "
                     "whether the flipped images were near ties (logit margins are not recorded). With one seed a "
                     "gap inside the seed-to-seed spread is noise.",
                     d0 >= 0 ? "" : " the flips a 1-ULP perturbation of one engine causes (add e.g. cpu:perturb=1),");
    }
    if (n_zero > 0) {
        explain_finding *f = add(L, "accuracy-gap", EXPLAIN_OK);
        if (!f) return LS_ENOMEM;
        snprintf(f->title, sizeof f->title, "%s: identical predictions on all %zu test images after epoch %d",
                 n_zero == n_pairs ? "Every fp32 engine pair" : "Some engine pairs", n_test, ep + 1);
        snprintf(f->cause, sizeof f->cause, "The parameter differences did not move any test prediction across a "
                                            "class boundary.");
        snprintf(f->evidence, sizeof f->evidence, "0 images classified differently in %d pair(s): %s%s.", n_zero,
                 names, n_zero > 6 ? "; ..." : "");
        snprintf(f->fix, sizeof f->fix,
                 "Nothing to fix. Not measured: whether longer training or another seed changes this.");
    }
    return LS_OK;
}

/* ---- state round-trip, noise band, coverage ------------------------------ */

/* A relation over its sharper tier (bounds_ck_sharp_tol) and within its
 * worst case, at some step, on the engine's own tensors: SUSPECT. */
static int checksum_suspect(explain_list *L, const audit_result *r, const model *m, const audit_engine *ae) {
    char b1[32], b2[32], where[48];
    /* v: the first relation over the sharp tier in time (where it begins), w: the worst (the evidence) */
    const ck_violation *v = &ae->ck_sus_first, *w = &ae->ck_sus;
    char wwhere[48];
    explain_finding *f = add(L, "checksum-suspect", EXPLAIN_SUSPECT);
    if (!f) return LS_ENOMEM;
    snprintf(f->a, sizeof f->a, "%s", ae->label);
    if (v->layer >= 0 && v->layer < m->n_layers) {
        snprintf(f->layer_name, sizeof f->layer_name, "%s", m->layers[v->layer].name);
        snprintf(f->layer, sizeof f->layer, "%s (%s)", m->layers[v->layer].name, ck_phase_label(v->phase));
    }
    snprintf(f->phase, sizeof f->phase, "%s", ck_phase_coarse(v->phase));
    f->step = ae->ck_sus_first_step;
    f->when = ae->ck_sus_first_eval_epoch ? eval_when(r, ae->ck_sus_first_eval_epoch) : (double)f->step;
    f->ratio = v->ratio;
    if (ae->ck_sus_first_eval_epoch)
        snprintf(where, sizeof where, "the evaluation after epoch %d", ae->ck_sus_first_eval_epoch);
    else snprintf(where, sizeof where, "step %ld", ae->ck_sus_first_step);
    if (ae->ck_sus_eval_epoch) snprintf(wwhere, sizeof wwhere, "the evaluation after epoch %d", ae->ck_sus_eval_epoch);
    else snprintf(wwhere, sizeof wwhere, "step %ld", ae->ck_sus_step);
    if (v->phase == CKP_UPDATE && isinf(v->ratio)) { /* the Adam re-check (checks/checksums.c, judge_adam) */
        snprintf(f->title, sizeof f->title, "%s: the Adam update at %s is not the engines' shared formula bit for bit, "
                 "but within fp32 rounding of it (SUSPECT: %s of the worst case; %s)", ae->label, where,
                 fnum(b2, sizeof b2, ae->ck_sus_first_worst_ratio), v->what);
        snprintf(f->cause, sizeof f->cause,
                 "Every engine applies Adam as ops_adam_elem, word for word, so a clean engine re-done from its own "
                 "p, m, v and gradient matches bit for bit. %s differs, and the element furthest from it is within "
                 "the fp32 bound of the exact update (checks/bounds.c, bounds_adam): a legal evaluation of the same "
                 "update (fused multiply-adds, another order), or a fault no larger than rounding. Not a PROBLEM; "
                 "--fail-on suspect makes it one.", ae->label);
        snprintf(f->evidence, sizeof f->evidence, "%ld step(s) with such an update; the first at %s: %s; the worst, "
                 "at %s: %s.", ae->ck_sus_checks, where, v->what, wwhere, w->what);
        snprintf(f->fix, sizeof f->fix, "If %s is meant to share lockstep's formula (cpu, cuda), look for a compiler's "
                 "contraction (-ffp-contract, nvcc --fmad) or a reordered update in it.", ae->label);
        return 0;
    }
    if (v->sign_test) { /* the sign test over a block's residuals (checks/checksums.c, judge_sign) */
        /* the batch's halves or alternate blocks against each other: the shares lean opposite ways */
        int shares = strstr(v->what, "halves' sign test") || strstr(v->what, "sign test of alternate") ||
                     strstr(v->what, "sign test of eighths");
        /* the conv biases' channel contrasts (judge_bias_pool): shares of the channels lean opposite ways */
        int chans = strstr(v->what, "channels alternating") || strstr(v->what, "halves of the channels");
        snprintf(f->title, sizeof f->title, "%s: every-step checksum residuals one-signed beyond what unbiased fp32 "
                 "rounding does%s at %s, %s (SUSPECT: x%s the sign test's limit; every relation within %s of the worst "
                 "case)", ae->label, shares ? ", by sample share," : chans ? ", by channel share," : "", where,
                 f->layer[0] ? f->layer : "?", fnum(b1, sizeof b1, v->ratio),
                 fnum(b2, sizeof b2, ae->ck_sus_first_worst_ratio));
        if (shares)
            snprintf(f->cause, sizeof f->cause,
                     "On %s's own tensors, %s. Each relation of that block holds within its worst case, but their "
                     "residuals lean one way in one share of the batch's samples (runs of consecutive samples: the "
                     "halves, alternate quarters or eighths, or eighths in another pattern of four against four) "
                     "and the other way in the other, so that the whole "
                     "block's count balances: round-to-nearest errs up as often as down in every share, and the "
                     "sign test of the shares' difference (checks/checksums.c, judge_sign: false alarm <= 1e-12 per "
                     "test nominal under unbiased rounding, variance robust to relations of one channel alike) says "
                     "these do not. Cores set to opposite rounding modes (each core's share of a kernel is a run of "
                     "samples), or a one-sided error no larger than rounding in part of the batch.", ae->label,
                     v->what);
        else if (chans)
            snprintf(f->cause, sizeof f->cause,
                     "On %s's own tensors, %s. Each conv bias-gradient relation holds within its worst case, but "
                     "their residuals lean one way in one share of the output channels (alternate channels, or each "
                     "layer's first half of its channels) and the other way in the other, so that the count over "
                     "all of them balances: round-to-nearest errs up as often as down in every channel, and the "
                     "exact sign test of the contrast (checks/checksums.c, judge_bias_pool: false alarm <= 1e-12 a "
                     "step under unbiased rounding) says these do not. Cores set to opposite rounding modes, each "
                     "reducing a share of the channels, or a one-sided error no larger than rounding in some "
                     "channels.", ae->label, v->what);
        else
            snprintf(f->cause, sizeof f->cause,
                     "On %s's own tensors, %s. Each relation of that block holds within its worst case, but their "
                     "residuals lean one way: round-to-nearest errs up as often as down, and the sign test over the "
                     "block (checks/checksums.c, judge_sign: false alarm <= 1e-12 per block nominal under unbiased "
                     "rounding, variance robust to relations of one channel alike; the conv biases: a step's "
                     "blocks pooled, judge_bias_pool) says these do not. A rounding mode other "
                     "than to nearest (a core or thread rounding upward or toward zero), or a one-sided error no "
                     "larger than rounding.", ae->label, v->what);
        snprintf(f->evidence, sizeof f->evidence,
                 "%ld step(s) or evaluation batch(es) with a check over the sharper tier or the sign test's limit; "
                 "the first at %s (above); the worst, at %s: %s (x%s its limit, %s of the worst case).",
                 ae->ck_sus_checks, where, wwhere, w->what, fnum(b1, sizeof b1, w->ratio),
                 fnum(b2, sizeof b2, ae->ck_sus_worst_ratio));
        snprintf(f->fix, sizeof f->fix, "Audit that step in isolated mode (--attribution-steps covering it, or a "
                 "recording): the per-element sign tests name the tensor whose errors lean; check %s's rounding mode "
                 "(MXCSR, fesetround) on every thread, and ablate its knobs one at a time.", ae->label);
        return LS_OK;
    }
    snprintf(f->title, sizeof f->title, "%s: every-step checksum beyond what fp32 rounding does in practice at %s, %s "
             "(SUSPECT: x%s the sharper tier, %s of the worst case)", ae->label, where, f->layer[0] ? f->layer : "?",
             fnum(b1, sizeof b1, v->ratio), fnum(b2, sizeof b2, ae->ck_sus_first_worst_ratio));
    snprintf(f->cause, sizeof f->cause,
             "On %s's own tensors, %s. The relation holds within the proven worst case but not within the sharper "
             "tier (checks/bounds.c, bounds_ck_sharp_tol: Azuma-Hoeffding over every rounding of the outputs it "
             "sums, false alarm <= %.1e per relation under independent mean-zero rounding): an error larger than "
             "fp32 rounding produces in practice, a fault or a reduced-precision path the worst case cannot see.",
             ae->label, v->what, bounds_ck_sharp_alarm());
    snprintf(f->evidence, sizeof f->evidence,
             "%ld step(s) or evaluation batch(es) with a relation over the sharper tier only; %ld relations judged "
             "on a sharper tier than the worst case; the first at %s (above); the worst, at %s: %s (x%s the sharp "
             "tolerance, %s of the worst case).",
             ae->ck_sus_checks, ae->ck_n_sharp, where, wwhere, w->what, fnum(b1, sizeof b1, w->ratio),
             fnum(b2, sizeof b2, ae->ck_sus_worst_ratio));
    snprintf(f->fix, sizeof f->fix, "Audit that step in isolated mode (--attribution-steps covering it, or a "
                                    "recording) to see which elements of %s err; ablate %s's knobs one at a time.",
             f->layer[0] ? f->layer : "that operation", ae->label);
    return LS_OK;
}

/* Every-step checksums (checks/checksums.h): a relation or re-check that
 * does not hold on an engine's own tensors is a fault of that engine at
 * that step, whatever the other engines did (they may share it). */
static int rule_checksums(explain_list *L, const audit_result *r, const model *m) {
    char b1[32];
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || !ae->ck_viol_checks) continue;
        explain_finding *f = add(L, "checksum", EXPLAIN_PROBLEM);
        if (!f) return LS_ENOMEM;
        const ck_violation *v = &ae->ck_first;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        if (v->layer >= 0 && v->layer < m->n_layers) {
            snprintf(f->layer_name, sizeof f->layer_name, "%s", m->layers[v->layer].name);
            snprintf(f->layer, sizeof f->layer, "%s (%s)", m->layers[v->layer].name, ck_phase_label(v->phase));
        }
        snprintf(f->phase, sizeof f->phase, "%s", ck_phase_coarse(v->phase));
        f->step = ae->ck_first_step > 0 ? ae->ck_first_step : 0;
        f->when = ae->ck_first_eval_epoch ? eval_when(r, ae->ck_first_eval_epoch) : (double)f->step;
        f->ratio = v->ratio;
        char where[48];
        if (ae->ck_first_eval_epoch) snprintf(where, sizeof where, "the evaluation after epoch %d", ae->ck_first_eval_epoch);
        else snprintf(where, sizeof where, "step %ld", ae->ck_first_step);
        /* an exact re-check, a digest (continuity, input): no ratio to speak of.
         * A continuity break happened between the last update and this
         * step (the state was changed in between), not in this step's
         * update: say so, or the title sends one to debug Adam */
        int between = v->between;
        if (isinf(v->ratio))
            snprintf(f->title, sizeof f->title, "%s: every-step exact check failed at %s, %s %s: %s", ae->label, where,
                     f->layer[0] ? m->layers[v->layer].name : "state",
                     between ? "state between the last update and this step" : ck_phase_label(v->phase), v->what);
        else
            snprintf(f->title, sizeof f->title, "%s: every-step checksum violated at %s, %s %s: ratio %s to its bound",
                     ae->label, where, f->layer[0] ? m->layers[v->layer].name : "state", ck_phase_label(v->phase),
                     fnum(b1, sizeof b1, v->ratio));
        snprintf(f->cause, sizeof f->cause,
                 "On %s's own tensors, %s. A relation's tolerance is the sum of the per-element fp32 bounds of "
                 "the outputs it sums (checks/bounds.c, bounds_ck_tol), so no fp32 rounding in any order exceeds it; "
                 "exact re-checks (ReLU, max-pool, dropout, Adam) and continuity (the state a step computes with "
                 "is the state the last update reported) allow no difference at all.",
                 ae->label, v->what);
        snprintf(f->evidence, sizeof f->evidence,
                 "%ld of %ld training step(s) and %ld evaluation batch(es) judged, %ld with a violation; %ld "
                 "relations and re-checks in all; the first violation: %s (ratio %s).",
                 ae->ck_steps, every_step_of_steps(r, ae),
                 ae->ck_eval_batches, ae->ck_viol_checks,
                 ae->ck_relations, v->what, fnum(b1, sizeof b1, v->ratio));
        /* the layer runs a transform algorithm (its describe() says which):
         * that is the why, and the fix is the algorithm, not a bug hunt */
        char tr[160];
        int transform = v->layer >= 0 && v->layer < m->n_layers && m->layers[v->layer].kind == LAYER_CONV &&
                        ae->describe && layer_transforms(ae->describe, m->layers[v->layer].name, tr, sizeof tr) > 0;
        /* ... as its describe() says.  A transform's error comes back at
         * every step the layer runs (a real oneDNN Winograd conv2: 8 of 8
         * steps violated, 31 of 32 relations over at the first), so a layer
         * that claims one while its relations broke at under half of many
         * judged steps has a fault the claim would excuse (zoo attack 11's
         * describe_wino_conv2_act_corrupt_once: 1 of 10) */
        long judged = ae->ck_steps + ae->ck_eval_batches;
        if (transform && judged >= 4 && 2 * ae->ck_viol_checks < judged) {
            cat(f->title, sizeof f->title, "; %s claims %s, yet only %ld of %ld judged stage(s) broke a relation: "
                "a fault, not the transform", m->layers[v->layer].name, transform_kind(tr), ae->ck_viol_checks, judged);
            char gen[sizeof f->cause];
            memcpy(gen, f->cause, sizeof gen);
            f->cause[0] = 0;
            cat(f->cause, sizeof f->cause, "%s's describe() names a transform algorithm (%s), whose error would "
                "break relations at every step it runs; here %ld of %ld judged training steps and evaluation "
                "batches broke one, so the transform does not explain it. ", m->layers[v->layer].name, tr,
                ae->ck_viol_checks, judged);
            cat(f->cause, sizeof f->cause, "%s", gen);
            snprintf(f->fix, sizeof f->fix, "A fault in %s at %s: the operation named computed a value that its own "
                     "inputs do not give (the transform it claims would show at every step).", ae->label, where);
        } else if (transform) {
            cat(f->title, sizeof f->title, "; %s runs %s, an approximate convolution", m->layers[v->layer].name,
                transform_kind(tr));
            /* the why first: the generic text after it may be cut */
            char gen[sizeof f->cause];
            memcpy(gen, f->cause, sizeof gen);
            f->cause[0] = 0;
            cat(f->cause, sizeof f->cause, "%s runs a transform algorithm (%s): its rounding follows the "
                "transform's constants and the layer's scale, not each output's terms, so no fp32 bound holds it "
                "(an element whose every term is 0 comes out nonzero). ", m->layers[v->layer].name, tr);
            cat(f->cause, sizeof f->cause, "%s", gen);
            facts fa;
            engine_facts(&fa, ae); /* a recording: the engine it recorded */
            snprintf(f->fix, sizeof f->fix, "%s", transform_fix(strcmp(fa.kind, "cuda") == 0));
        } else if (strncmp(v->what, "input:", 6) == 0)
            snprintf(f->fix, sizeof f->fix, "A fault in %s at %s: it computed with images other than the batch it "
                                            "was given (its input path: the copy of the batch into the engine, a "
                                            "double buffer, a stream that was not waited for).", ae->label, where);
        else
            snprintf(f->fix, sizeof f->fix, "A fault in %s at %s: the operation named computed a value that its own "
                                            "inputs do not give.", ae->label, where);
    }
    for (int i = 0; i < r->n_engines; i++)
        if (r->eng[i].available && !r->eng[i].is_ref && !r->eng[i].ck_viol_checks && r->eng[i].ck_sus_checks) {
            int rc = checksum_suspect(L, r, m, &r->eng[i]);
            if (rc) return rc;
        }
    return LS_OK;
}

/* The evaluation against the reference: the engine's logits from its
 * own weights vs the exact reference's, bounded by the forward error
 * propagated through the network. */
static int rule_eval_ref(explain_list *L, const audit_result *r) {
    char b1[32];
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || !ae->ev_ref_images) continue;
        int bad = !(ae->ev_ref_worst <= 1);
        /* every logit's bound +inf (fp32 may overflow on the way): nothing was judged, nothing is within */
        int none = !bad && ae->ev_ref_unjudged >= ae->ev_ref_images * r->n_classes;
        explain_finding *f = add(L, "eval-vs-reference", bad ? EXPLAIN_PROBLEM : none ? EXPLAIN_INFO : EXPLAIN_OK);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->phase, sizeof f->phase, "evaluation");
        if (r->m.n_layers > 0) /* the logits' layer (a run without a model, as the report tests build, has none) */
            snprintf(f->layer_name, sizeof f->layer_name, "%s", r->m.layers[r->m.n_layers - 1].name);
        f->step = r->total_steps; /* after the last step: a checksum finding of an evaluation sorts first */
        f->when = eval_when(r, ae->ev_ref_epoch);
        f->ratio = ae->ev_ref_worst;
        char unj[96] = "";
        if (ae->ev_ref_unjudged) /* bounds_eval_layer's +inf: not within, not judged (rule_fp32_overflow) */
            snprintf(unj, sizeof unj, "; %ld logit(s) not judged: fp32 may overflow there", ae->ev_ref_unjudged);
        if (none)
            snprintf(f->title, sizeof f->title, "%s: evaluation after epoch %d not judged against the reference's: "
                     "every logit of its %ld test images is beyond fp32's range on the way (%ld prediction(s) differ)",
                     ae->label, ae->ev_ref_epoch, ae->ev_ref_images, ae->ev_ref_pred_diff);
        else
            snprintf(f->title, sizeof f->title, "%s: evaluation after epoch %d %s the reference's (%ld test images: "
                     "worst logit ratio %s to the propagated bound, %ld prediction(s) differ%s)", ae->label,
                     ae->ev_ref_epoch, bad ? "EXCEEDS the bound against" : "within the bound of", ae->ev_ref_images,
                     fnum(b1, sizeof b1, ae->ev_ref_worst), ae->ev_ref_pred_diff, unj);
        snprintf(f->cause, sizeof f->cause, "%s", bad ? "The logits the engine reports for evaluation are not what "
                 "fp32 rounding of its own weights and inputs allows: its evaluation path computes something else "
                 "(training mode, another kernel, a stale copy)." : none ? "No bound relates its logits to the exact "
                 "ones (fp32-overflow, below): the accuracy it reports is not checked." : "The accuracy it reports "
                 "is trusted to this extent.");
        snprintf(f->evidence, sizeof f->evidence, "%ld of %ld logits over their bound (bounds_eval_layer, the "
                 "forward error propagated from the engine's own layer inputs)%s.", ae->ev_ref_over,
                 ae->ev_ref_images * r->n_classes, ae->ev_ref_unjudged ? "; the logits not judged are not in it" : "");
        if (ae->ev_ref_inner)
            cat(f->evidence, sizeof f->evidence, " %ld layer input(s) inf or NaN where their propagated bound is "
                "finite (the exact value is finite): over it, ratio inf.", ae->ev_ref_inner);
        if (!ae->ev_ref_tie_bad) continue;
        f = add(L, "exact-check", EXPLAIN_PROBLEM);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->phase, sizeof f->phase, "evaluation");
        if (r->m.n_layers > 0) snprintf(f->layer_name, sizeof f->layer_name, "%s", r->m.layers[r->m.n_layers - 1].name);
        snprintf(f->layer, sizeof f->layer, "%s (evaluation)", f->layer_name);
        f->step = r->total_steps;
        f->when = eval_when(r, ae->ev_ref_epoch);
        f->ratio = INFINITY;
        snprintf(f->title, sizeof f->title, "%s: the evaluation after epoch %d that its accuracy was counted from is "
                 "not the one compared with the reference: %ld of %ld test images' logits differ bit for bit between "
                 "two forward passes of the same weights and images (first: image %ld)", ae->label, ae->ev_ref_epoch,
                 ae->ev_ref_tie_bad, ae->ev_ref_images, ae->ev_ref_tie_first);
        snprintf(f->cause, sizeof f->cause, "A deterministic engine computes the same logits from the same weights "
                 "and images. One of the two passes computed something else: a fault in one pass (below the "
                 "evaluation's every-step tolerance, as those checks passed), a stale buffer or a mode the other did "
                 "not have.");
        snprintf(f->evidence, sizeof f->evidence, "exact rule: the logits of the comparison pass (the first %ld test "
                 "images, the evaluation's batches) against those the evaluation read back, bit for bit",
                 ae->ev_ref_images);
        snprintf(f->fix, sizeof f->fix, "A bug in %s's inference path: rerun with the same weights and compare the "
                 "two passes layer by layer.", ae->label);
    }
    return LS_OK;
}

/* Where a round-trip digest (driver.c probe_name: "LAYER.act", "loss", "TENSOR.grad", "TENSOR",
 * "TENSOR.adam_m", "TENSOR.adam_v") is computed: the layer's name and the phase. */
static const char *probe_digest_where(const model *m, const char *name, char *layer, size_t cap) {
    size_t n = strlen(name);
    layer[0] = 0;
    if (n > 4 && strcmp(name + n - 4, ".act") == 0) {
        snprintf(layer, cap, "%.*s", (int)(n - 4), name);
        return "forward";
    }
    if (strcmp(name, "loss") == 0) {
        if (m->n_layers > 0) snprintf(layer, cap, "%s", m->layers[m->n_layers - 1].name);
        return "loss";
    }
    static const char *const sfx[3] = {".grad", ".adam_m", ".adam_v"};
    size_t base = n;
    int grad = 0;
    for (int q = 0; q < 3; q++) {
        size_t ls = strlen(sfx[q]);
        if (n > ls && strcmp(name + n - ls, sfx[q]) == 0) base = n - ls, grad = q == 0;
    }
    for (int t = 0; t < m->n_tensors; t++)
        if (strlen(m->tensors[t].name) == base && strncmp(m->tensors[t].name, name, base) == 0 &&
            m->tensors[t].layer >= 0 && m->tensors[t].layer < m->n_layers)
            snprintf(layer, cap, "%s", m->layers[m->tensors[t].layer].name);
    return grad ? "backward" : "update";
}

/* A round trip's step that the second instance reproduced after something the engine did before it (an
 * evaluation, a partial batch): a PROBLEM at step, named at the layer and phase of the first differing digest
 * (f->layer_name, f->phase); NULL when out of memory. */
static explain_finding *rt_side_effect(explain_list *L, const audit_engine *ae, const model *m, long step) {
    explain_finding *f = add(L, "exact-check", EXPLAIN_PROBLEM);
    if (!f) return NULL;
    char lay[sizeof f->layer_name];
    const char *ph = probe_digest_where(m, ae->rt_first, lay, sizeof lay);
    snprintf(f->a, sizeof f->a, "%s", ae->label);
    snprintf(f->tensor, sizeof f->tensor, "%s", ae->rt_first);
    snprintf(f->layer, sizeof f->layer, "%s (%s)", lay, ph);
    snprintf(f->layer_name, sizeof f->layer_name, "%s", lay);
    snprintf(f->phase, sizeof f->phase, "%s", ph);
    f->step = step;
    f->ratio = INFINITY;
    return f;
}

static int rule_roundtrip(explain_list *L, const audit_result *r, const model *m) {
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (ae->available && !ae->is_ref && ae->rt_eval_step) {
            explain_finding *f = rt_side_effect(L, ae, m, ae->rt_eval_step);
            if (!f) return LS_ENOMEM;
            const char *lay = f->layer_name, *ph = f->phase;
            snprintf(f->title, sizeof f->title,
                     "%s: its step %ld, after an evaluation, computes otherwise than the same step from the same "
                     "state without one (first: %s, %s %s)", ae->label, ae->rt_eval_step, ae->rt_first, lay, ph);
            snprintf(f->cause, sizeof f->cause,
                     "The state round trip's second instance, loaded with the state the engine reported, computes "
                     "step %ld otherwise than the engine; after one inference pass on the batch it reproduces the "
                     "engine's step bit for bit: not the state, but something an evaluation leaves set (a mode, a "
                     "flag, a buffer) that the next training step uses.", ae->rt_eval_step);
            snprintf(f->evidence, sizeof f->evidence,
                     "step digests (each layer's output, the loss, gradients, parameters, m, v): the engine's and "
                     "its second instance's after an inference pass equal bit for bit; its second instance's without "
                     "one part at %s", ae->rt_first);
            snprintf(f->fix, sizeof f->fix, "A bug in %s: what the evaluation (inference mode) sets and the first "
                     "training step after it reads, at %s's %s.", ae->label, lay, ph);
        }
        if (ae->available && !ae->is_ref && ae->rt_prev_step &&
            !(ae->ck_step_op && ae->rt_prev_step <= ae->ck_total && ae->ck_step_op[ae->rt_prev_step - 1])) {
            /* zoo attack 16: reproduced by the second instance after it replayed the step before (where the
             * every-step checks found wrong an operation of that step that reads no state, their finding names it
             * better: the digests name a backward fault at the first gradient in tensor order, not where it
             * began) */
            explain_finding *f = rt_side_effect(L, ae, m, ae->rt_prev_step);
            if (!f) return LS_ENOMEM;
            const char *lay = f->layer_name, *ph = f->phase;
            snprintf(f->title, sizeof f->title,
                     "%s: its step %ld computes otherwise than the same step from the same state unless step %ld ran "
                     "before it (first: %s, %s %s)", ae->label, ae->rt_prev_step, ae->rt_prev_step - 1, ae->rt_first,
                     lay, ph);
            snprintf(f->cause, sizeof f->cause,
                     "The state round trip's second instance, loaded with the state the engine reported, computes "
                     "step %ld otherwise than the engine; after it replays step %ld (from the state reported before "
                     "it, on its batch) and is set back to the reported state, it reproduces the engine's step bit "
                     "for bit: not the state, but something step %ld leaves (a buffer, a mask, an input copy) that "
                     "step %ld reads.", ae->rt_prev_step, ae->rt_prev_step - 1, ae->rt_prev_step - 1,
                     ae->rt_prev_step);
            snprintf(f->evidence, sizeof f->evidence,
                     "step digests (each layer's output, the loss, gradients, parameters, m, v): the engine's and "
                     "its second instance's after the replayed step equal bit for bit; its second instance's without "
                     "it part at %s", ae->rt_first);
            snprintf(f->fix, sizeof f->fix, "A bug in %s: a buffer the step before leaves and the next step reads "
                     "instead of its own, at %s's %s.", ae->label, lay, ph);
        }
        if (ae->available && !ae->is_ref && ae->rt_partial_step) {
            /* zoo attack 13: the step after a partial batch, reproduced by the second instance after one */
            explain_finding *f = rt_side_effect(L, ae, m, ae->rt_partial_step);
            if (!f) return LS_ENOMEM;
            const char *lay = f->layer_name, *ph = f->phase;
            const char *ev = ae->rt_partial_eval ? " and an evaluation" : "";
            snprintf(f->title, sizeof f->title,
                     "%s: its step %ld, after a partial batch%s, computes otherwise than the same step from the "
                     "same state without one (first: %s, %s %s)", ae->label, ae->rt_partial_step, ev, ae->rt_first,
                     lay, ph);
            snprintf(f->cause, sizeof f->cause,
                     "The state round trip's second instance, loaded with the state the engine reported, computes "
                     "step %ld otherwise than the engine; after one training step on a batch of the size of the "
                     "engine's step before (a partial batch)%s, and the reported state set back, it reproduces the "
                     "engine's step bit for bit: not the state, but something the partial batch leaves set (a batch "
                     "size, a row count, a plan) that the next full batch uses.", ae->rt_partial_step, ev);
            snprintf(f->evidence, sizeof f->evidence,
                     "step digests (each layer's output, the loss, gradients, parameters, m, v): the engine's and "
                     "its second instance's after a partial batch equal bit for bit; its second instance's without "
                     "one part at %s", ae->rt_first);
            snprintf(f->fix, sizeof f->fix, "A bug in %s: what a partial batch sets and the first full batch after "
                     "it reads, at %s's %s.", ae->label, lay, ph);
        }
        if (ae->available && !ae->is_ref && ae->rt_input_step && m->n_layers > 0) {
            explain_finding *f = add(L, "exact-check", EXPLAIN_PROBLEM);
            if (!f) return LS_ENOMEM;
            const char *l0 = m->layers[0].name;
            snprintf(f->a, sizeof f->a, "%s", ae->label);
            snprintf(f->layer, sizeof f->layer, "%s (forward)", l0);
            snprintf(f->layer_name, sizeof f->layer_name, "%s", l0);
            snprintf(f->phase, sizeof f->phase, "forward");
            f->step = ae->rt_input_step;
            f->ratio = INFINITY;
            snprintf(f->title, sizeof f->title,
                     "%s: step %ld computed with other images than the batch it was given (%s forward, input; "
                     "read back by the state round trip)", ae->label, ae->rt_input_step, l0);
            snprintf(f->cause, sizeof f->cause,
                     "The state round trip reads back, after training step %ld (the engine's own, and its second "
                     "instance's), the images the engine holds: they are not the batch it was given. A fault keyed "
                     "to that step — an input buffer shared with the evaluation, a copy skipped once — is an input "
                     "fault, not a state mismatch.",
                     ae->rt_input_step);
            snprintf(f->evidence, sizeof f->evidence, "exact rule: engine_get_tensor(INPUT) after the step differs "
                                                      "from the batch given, bit for bit");
            snprintf(f->fix, sizeof f->fix, "A bug in %s's input copy (set_batch): find the path that keeps the "
                                            "buffer's previous images.", ae->label);
        }
        if (ae->available && !ae->is_ref && ae->rt_nondet > 0) {
            /* the check's premise failed, not the engine: two runs of one step from one state differed on
             * the second instance; a legal engine may be nondeterministic (an atomics-based reduction), so this
             * is a fact to state, and those round trips judged nothing (zoo: fc1_fwd_order_alternating) */
            explain_finding *f = add(L, "state-roundtrip", EXPLAIN_INFO);
            if (!f) return LS_ENOMEM;
            snprintf(f->a, sizeof f->a, "%s", ae->label);
            snprintf(f->phase, sizeof f->phase, "state");
            f->step = 0;
            snprintf(f->title, sizeof f->title,
                     "%s is not run-to-run deterministic: its second instance computed one training step twice "
                     "from the same state and got different results (%ld of %ld state round trips inconclusive)",
                     ae->label, ae->rt_nondet, ae->rt_checks);
            snprintf(f->cause, sizeof f->cause,
                     "The state round trip judges the engine's step against a second instance of %s loaded with the "
                     "state the engine reported, run twice; where the two runs differ, the engine's results depend on "
                     "something besides its inputs and state (thread timing, atomics, a counter), and a mismatch "
                     "with the engine would say nothing about the state. Those round trips judged nothing; the "
                     "every-step continuity digests still tie each step's state to the last update.", ae->label);
            snprintf(f->evidence, sizeof f->evidence,
                     "%ld round trip(s), %ld inconclusive (the instance's two runs' step digests differ)", ae->rt_checks,
                     ae->rt_nondet);
            snprintf(f->fix, sizeof f->fix,
                     "Nothing to fix if %s is meant to be nondeterministic; list it twice (or --repeat 2) to measure "
                     "how far two runs part.", ae->label);
        }
        if (!ae->available || ae->is_ref || !ae->rt_fail_step) continue;
        if (ae->ck_step_op && ae->rt_fail_step >= 1 && ae->rt_fail_step <= ae->ck_total &&
            ae->ck_step_op[ae->rt_fail_step - 1]) {
            /* zoo attack 16: the round trip compares the engine's step N with a second instance's step N from the
             * state reported before it; it blames that state only if the engine's step N is what a correct
             * engine computes from some state.  Where step N's own every-step checks found wrong an operation
             * that reads no parameter, m or v (ck_step_op: a ReLU, pool, dropout, the loss, a weight or bias
             * gradient, re-done from the step's own tensors), no state explains it: the mismatch is that
             * operation's, which its own finding names at its layer, phase and step.  (A forward, backward-data
             * or update violation is left to the round trip: a stale weight or moment copy breaks exactly those,
             * and "the state" names its cause.)  A fault that reads a buffer the step before left (relu3's backward with
             * step 1's mask, conv2's bias gradient from step 1's dy, at step 2: relu3_bwd_prev_mask_step2,
             * conv2_db_prev_dy_step2) fires in the engine, which ran step 1, and not in the second instance, which
             * did not, and read "the state it trains with is not the state it reports (the state reported after
             * step 1)", ranked before the step-2 operation that went wrong.  The round trip stays counted; it
             * judged nothing about the state there. */
            explain_finding *f = add(L, "state-roundtrip", EXPLAIN_INFO);
            if (!f) return LS_ENOMEM;
            snprintf(f->a, sizeof f->a, "%s", ae->label);
            snprintf(f->tensor, sizeof f->tensor, "%s", ae->rt_first);
            snprintf(f->phase, sizeof f->phase, "state");
            f->step = ae->rt_fail_step;
            snprintf(f->title, sizeof f->title,
                     "%s: the state round trip at step %ld is inconclusive: step %ld's own every-step checks found "
                     "wrong an operation that reads no parameter, m or v (first differing: %s)", ae->label, ae->rt_fail_step,
                     ae->rt_fail_step, ae->rt_first);
            snprintf(f->cause, sizeof f->cause,
                     "A second instance of %s loaded with the state the engine reported before step %ld computes that "
                     "step otherwise than the engine; but the engine's step %ld broke a relation or exact rule of an "
                     "operation that reads no parameter, m or v (the every-step finding), so it is not what a correct "
                     "engine computes from any state, and the mismatch says nothing about the state.", ae->label, ae->rt_fail_step, ae->rt_fail_step);
            snprintf(f->evidence, sizeof f->evidence,
                     "%ld round-trip check(s); at step %ld the first differing digest is %s, and the every-step checks "
                     "of that step were violated", ae->rt_checks, ae->rt_fail_step, ae->rt_first);
            snprintf(f->fix, sizeof f->fix, "See the every-step finding of step %ld.", ae->rt_fail_step);
            continue;
        }
        explain_finding *f = add(L, "state-roundtrip", EXPLAIN_PROBLEM);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->tensor, sizeof f->tensor, "%s", ae->rt_first);
        snprintf(f->phase, sizeof f->phase, "state");
        /* the finding is the state between two steps: the one reported
         * after step N - 1 (read just before step N, after any evaluation)
         * is not the one step N trained from; phase "state" ranks it after
         * step N - 1's update, before anything step N computes */
        f->step = ae->rt_fail_step - 1;
        f->when = (double)ae->rt_fail_step - 0.25; /* after step N - 1's evaluation (+ 0.5), before step N */
        snprintf(f->title, sizeof f->title, "%s: the state it trains with is not the state it reports (first: %s; "
                                            "the state reported after step %ld, trained with at step %ld)",
                 ae->label, ae->rt_first, ae->rt_fail_step - 1, ae->rt_fail_step);
        snprintf(f->cause, sizeof f->cause,
                 "Training step %ld from the engine's own state and the same step run by a second instance of %s "
                 "loaded with the state the engine reported before it (parameters, Adam m and v, through "
                 "set_tensor) give different results, while two runs of the second instance agree bit for bit: "
                 "something %s computes with — a weight copy in another layout, a cache, a lazily written tensor, "
                 "optimizer state kept elsewhere — is stale or inconsistent.",
                 ae->rt_fail_step, ae->label, ae->label);
        snprintf(f->evidence, sizeof f->evidence,
                 "%ld round-trip check(s), the first mismatch at step %ld; the first tensor whose digest differs "
                 "is %s. Sync and isolated modes cannot see this class: setting the state refreshes the copies.",
                 ae->rt_checks, ae->rt_fail_step, ae->rt_first);
        snprintf(f->fix, sizeof f->fix, "A bug in %s's state handling: find the copy of %s that update() does not "
                                        "refresh.", ae->label, ae->rt_first);
    }
    return LS_OK;
}

/* The noise-floor pair for engine e: (E, E:perturb=K) with E == e's base
 * spec, or -1. */
static int floor_pair_for(const audit_result *r, int e) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (is_noise_pair(r, p) && (p->a == e || p->b == e)) return pi;
    }
    for (int pi = 0; pi < r->n_pairs; pi++)
        if (is_noise_pair(r, &r->pair[pi])) return pi;
    return -1;
}

#define BAND_FACTOR 100.0 /* "orders of magnitude": two */
#define BAND_RUN 3        /* consecutive steps */

/* Distance of pair p over steps against the noise floor's: the first step
 * of BAND_RUN consecutive steps where it exceeds BAND_FACTOR times the
 * floor (0: never; -1: no floor pair), and the largest ratio. */
static long band_exit(const audit_result *r, const audit_pair *p, double *factor) {
    *factor = NAN;
    if (r->eng[p->a].is_ref || r->eng[p->b].is_ref || is_noise_pair(r, p) || is_repeat_pair(r, p)) return -1;
    if (!p->param_rel_l2) return -1;
    int fp = floor_pair_for(r, p->a);
    if (fp < 0) fp = floor_pair_for(r, p->b);
    if (fp < 0) return -1;
    const double *fl = r->pair[fp].param_rel_l2, *x = p->param_rel_l2;
    long run = 0, exit_step = 0;
    double worst = 0;
    for (long k = 0; k < r->total_steps; k++) {
        if (isnan(fl[k]) || isnan(x[k])) continue;
        double q = fl[k] > 0 ? x[k] / fl[k] : (x[k] > 0 ? INFINITY : 0);
        if (q > worst || isnan(q)) worst = q;
        run = q > BAND_FACTOR ? run + 1 : 0;
        if (run == BAND_RUN && !exit_step) exit_step = k + 2 - BAND_RUN;
    }
    *factor = worst;
    return exit_step;
}

static int rule_band(explain_list *L, const audit_result *r) {
    char b1[32];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        double q;
        long st = band_exit(r, p, &q);
        if (st <= 0) continue;
        explain_finding *f = add(L, "noise-band", EXPLAIN_PROBLEM);
        if (!f) return LS_ENOMEM;
        set_pair(f, r, pi);
        f->step = st;
        f->ratio = q;
        snprintf(f->phase, sizeof f->phase, "drift");
        snprintf(f->title, sizeof f->title, "%s and %s separate far faster than the noise floor (from step %ld, up to "
                                            "%sx the floor)", r->eng[p->a].label, r->eng[p->b].label, st,
                 fnum(b1, sizeof b1, q));
        snprintf(f->cause, sizeof f->cause,
                 "Rounding differences between correct engines grow like the 1-ULP perturbation of one engine (the "
                 "noise floor); this pair's parameter distance exceeded %gx the floor's on %d consecutive steps: one "
                 "of the two computes something else, independent of any bound.",
                 BAND_FACTOR, BAND_RUN);
        snprintf(f->evidence, sizeof f->evidence,
                 "Relative L2 distance of the parameters after each step, this pair vs the perturb=K pair; the ratio "
                 "reached %s, first above %g at step %ld.",
                 fnum(b1, sizeof b1, q), BAND_FACTOR, st);
        snprintf(f->fix, sizeof f->fix, "Look at the engines' verdicts against the reference and their state "
                                        "round-trip checks: one of them names the operation.");
    }
    return LS_OK;
}

/* Tensors compared with a reference at a check step without a rule. */
static int rule_unchecked(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (!r->eng[p->a].is_ref || r->eng[p->b].repeat_of >= 0) continue;
        int n = 0, first = -1;
        for (int s = 0; s < r->n_slots; s++)
            if (p->slot[s].n_check_steps > p->slot[s].n_bounded) {
                if (first < 0) first = s;
                n++;
            }
        if (!n) continue;
        explain_finding *f = add(L, "unchecked", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        set_pair(f, r, pi);
        set_slot(f, r, m, first);
        snprintf(f->title, sizeof f->title, "%s: %d tensor(s) compared with %s have no bound: unchecked, not ok",
                 r->eng[p->b].label, n, r->eng[p->a].label);
        snprintf(f->cause, sizeof f->cause, "No bound or exactness rule covers them (bounds.h).");
        snprintf(f->evidence, sizeof f->evidence, "First: %s.", r->slot_name[first]);
        snprintf(f->fix, sizeof f->fix, "Add a rule to bounds.c for this operation.");
    }
    return LS_OK;
}

/* A gradient whose error is mostly carried by a few flipped decisions. */
static int rule_decisions(explain_list *L, const audit_result *r, const model *m) {
    char b1[32], nm[64];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        /* the engines' own differences: not repeats, not the noise floor's copies */
        if (r->eng[p->b].repeat_of >= 0 || r->eng[p->a].repeat_of >= 0) continue;
        if (r->eng[p->a].perturb_ulps || r->eng[p->b].perturb_ulps) continue;
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!(ss->flip_err_share >= 0.5) || !ends_with(r->slot_name[s], ".dact")) continue;
            int l = layer_of(m, r->slot_name[s]);
            if (l < 0 || l + 1 >= m->n_layers) continue;
            const layer *q = &m->layers[l + 1];
            snprintf(nm, sizeof nm, "%s.act", q->name);
            int qs = audit_slot(r, nm);
            if (qs < 0) continue;
            const audit_slot_stats *qs_ = &p->slot[qs];
            explain_finding *f = add(L, "decision-flips", EXPLAIN_CAUSE);
            if (!f) return LS_ENOMEM;
            set_pair(f, r, pi);
            set_slot(f, r, m, s);
            f->ratio = ss->flip_err_share;
            const char *what = q->kind == LAYER_MAXPOOL ? "window(s) chose another maximum"
                                                        : "ReLU input(s) changed sign";
            long drifted = qs_->near_ties - qs_->sub_ulp, unexplained = qs_->flips - qs_->near_ties;
            /* against the exact reference the inputs of a compared step come
             * from the same operands: they differ by the engine's rounding of
             * the layers before at that step, not by drift */
            int vs_ref = r->eng[p->a].is_ref;
            const char *kind_of = qs_->sub_ulp == qs_->flips ? "all near-ties (inputs within 1 ULP)"
                                  : unexplained > 0          ? "not all explained by their inputs"
                                  : qs_->sub_ulp == 0
                                      ? (vs_ref ? "none a near-tie: the layers before rounded the inputs apart"
                                                : "none a near-tie: the inputs had already drifted apart")
                                      : (vs_ref ? "the rest on inputs the layers before rounded apart"
                                                : "mostly on inputs that had already drifted apart");
            char why[176];
            if (vs_ref)
                snprintf(why, sizeof why,
                         "the layers before this one round (at the same step, from the same operands) and the exact "
                         "reference does not; their own lines judge those roundings against their bounds");
            else
                snprintf(why, sizeof why, "the two trajectories had drifted apart (weights differ after step %ld)",
                         p->first_diff_step);
            snprintf(f->title, sizeof f->title, "%s vs %s: %ld %s %s, %s; they carry %s%% of %s's error",
                     r->eng[p->b].label, r->eng[p->a].label, qs_->flips, q->name, what, kind_of,
                     fnum(b1, sizeof b1, 100 * ss->flip_err_share), r->slot_name[s]);
            snprintf(f->cause, sizeof f->cause,
                     "%s is exact, but it routes the gradient by a discrete decision (a ReLU's sign, a max-pool's "
                     "arg-max): where the two engines' inputs differ, %ld %s, and each sends a whole gradient value "
                     "elsewhere. %ld of them were near-ties (the inputs within 1 ULP of the decision: rounding "
                     "decided it); %ld followed inputs that already differed by more than 1 ULP, because %s%s. "
                     "%ld element(s) carry %s%% of the error of %s.",
                     q->name, qs_->flips, what, qs_->sub_ulp, drifted, why,
                     unexplained > 0 ? "; the rest are explained by neither" : "", ss->flip_elems,
                     fnum(b1, sizeof b1, 100 * ss->flip_err_share), r->slot_name[s]);
            snprintf(f->evidence, sizeof f->evidence,
                     "Over the compared steps: %ld decisions compared at %s, %ld flipped; in %ld of them the "
                     "reference's gap was at most 1 fp32 ULP (fp32 cannot even represent the difference), and %ld are "
                     "explained by the two engines' input differences. The flipped elements carry %s%% of the squared "
                     "error of %s.",
                     qs_->decisions, q->name, qs_->flips, qs_->sub_ulp, qs_->near_ties,
                     fnum(b1, sizeof b1, 100 * ss->flip_err_share), r->slot_name[s]);
            snprintf(f->fix, sizeof f->fix, "%s",
                     qs_->sub_ulp == qs_->flips
                         ? "Nothing to fix: near-ties decided by rounding."
                     : unexplained > 0
                         ? "Flips not explained by the inputs: look at the layer before, one step at a time "
                           "(--mode isolated)."
                         : vs_ref ? "Nothing to fix in this layer: it follows its inputs, whose roundings are judged "
                                    "on the lines of the layers before."
                         : "Nothing to fix in this layer: it follows its inputs, which differ because the runs drifted "
                           "apart (see the drift against the noise floor). To see one step's difference without "
                           "drift: --mode sync.");
        }
    }
    return LS_OK;
}

/* Adam elements beyond fp32's range: judged by what fp32 must produce
 * (bounds_adam_range), counted and shown, one finding per tensor (its v
 * slot; the parameter's count is the same elements). */
static int rule_fp32_range(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (ss->n_range <= 0 || !ends_with(r->slot_name[s], ".adam_v")) continue;
            int over = ss->n_over > 0;
            explain_finding *f = add(L, "fp32-range", EXPLAIN_CAUSE);
            if (!f) return LS_ENOMEM;
            set_pair(f, r, pi);
            set_slot(f, r, m, s);
            snprintf(f->title, sizeof f->title,
                     "%s vs %s: %ld %s element(s) beyond fp32's range (Adam's g*g overflowed: v = inf, the "
                     "parameter kept), judged by what fp32 must produce%s",
                     r->eng[p->b].label, r->eng[p->a].label, ss->n_range, r->slot_name[s],
                     over ? "; see the PROBLEM" : "");
            snprintf(f->cause, sizeof f->cause,
                     "Where |g| > 1.8e19, fp32's g*g (ops_adam_elem's order) is +inf, so v' = +inf and the update "
                     "m'/(sqrt(v')/bc + eps) is 0: the parameter keeps its value. The exact reference stays finite "
                     "and moves the parameter; no rounding bound relates the two, so these elements are judged by "
                     "an exactness rule (v' = +inf, p' = ops_adam_elem's p') instead (bounds.c, bounds_adam).");
            snprintf(f->evidence, sizeof f->evidence, "%ld element-check(s) of %s over the compared steps.",
                     ss->n_range, r->slot_name[s]);
            snprintf(f->fix, sizeof f->fix, "%s",
                     "Nothing to fix in the engine if it matched; the gradients are beyond what fp32 Adam can "
                     "square: scale the inputs (--normalize) or the loss down.");
        }
    }
    return LS_OK;
}

/* Elements no bound judged because a legal fp32 evaluation may overflow
 * there (bounds_range_unbound: sum |terms| (1 + gamma_K) >= 2^128 (1 -
 * 2^-25), or a non-finite operand), counted and shown, one finding per
 * pair: unjudged is not ok. */
static int rule_fp32_overflow(explain_list *L, const audit_result *r, const model *m) {
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (!r->eng[p->a].is_ref) continue;
        long n = 0, step = 0;
        int nt = 0, first = -1;
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (ss->n_unjudged <= 0) continue;
            n += ss->n_unjudged;
            nt++;
            if (first < 0 || (ss->first_unjudged_step && ss->first_unjudged_step < step)) {
                first = s;
                step = ss->first_unjudged_step;
            }
        }
        if (!n) continue;
        explain_finding *f = add(L, "fp32-overflow", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        set_pair(f, r, pi);
        set_slot(f, r, m, first);
        snprintf(f->title, sizeof f->title,
                 "%s vs %s: %ld element(s) of %d tensor(s) beyond fp32's range (a legal fp32 evaluation may "
                 "overflow, or an operand is inf or NaN): not judged, not ok (first: %s, step %ld)",
                 r->eng[p->b].label, r->eng[p->a].label, n, nt, r->slot_name[first], step);
        snprintf(f->cause, sizeof f->cause,
                 "There the dot product's or sum's sum of |terms| S times (1 + gamma_K) reaches fp32's overflow "
                 "threshold 2^128 (1 - 2^-25), or an operand is already inf or NaN in fp32: some order of the "
                 "additions may overflow, giving +inf, -inf or NaN whatever the exact result's sign, and no "
                 "finite bound relates fp32 to the exact value (an exactness rule, relu or max-pool, with an inf "
                 "or NaN operand: a select and a masked product differ there, both legal). The bound is infinite "
                 "(no information; bounds.c, "
                 "bounds_range_unbound) and these elements are counted as not judged.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%ld element-check(s) over the checked steps, in %d tensor(s); the tensors' other elements were "
                 "judged as usual.", n, nt);
        snprintf(f->fix, sizeof f->fix, "%s",
                 "Nothing to fix in the engine for these elements; the values are beyond what fp32 can hold: "
                 "scale the inputs (--normalize) or the learning rate down to have them judged.");
    }
    /* the evaluation against the reference: its logits' propagated bounds (bounds_eval_layer) */
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || !ae->ev_ref_images || ae->ev_ref_unjudged <= 0) continue;
        explain_finding *f = add(L, "fp32-overflow", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->phase, sizeof f->phase, "evaluation");
        if (m->n_layers > 0) /* the logits */
            snprintf(f->layer_name, sizeof f->layer_name, "%s", m->layers[m->n_layers - 1].name);
        f->step = r->total_steps;
        f->when = eval_when(r, ae->ev_ref_epoch);
        snprintf(f->title, sizeof f->title,
                 "%s: %ld of %ld logit(s) of the evaluation after epoch %d beyond fp32's range on the way (a legal "
                 "fp32 evaluation may overflow in some layer): not judged against the reference, not ok",
                 ae->label, ae->ev_ref_unjudged, ae->ev_ref_images * r->n_classes, ae->ev_ref_epoch);
        snprintf(f->cause, sizeof f->cause,
                 "The evaluation's bound carries the forward error from layer to layer (bounds_eval_layer); in some "
                 "layer a dot product's sum of |terms| S times (1 + gamma_K) reaches fp32's overflow threshold "
                 "2^128 (1 - 2^-25), or an input is already inf or NaN: an order of the additions may overflow, and "
                 "from there no finite bound relates the logit to the exact one. Its bound is infinite (no "
                 "information; bounds.c, bounds_range_unbound) and the logit is counted as not judged.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%ld of %ld logits (%ld test images) not judged; the other logits were judged as usual (worst ratio "
                 "%.3g, %ld over).", ae->ev_ref_unjudged, ae->ev_ref_images * r->n_classes, ae->ev_ref_images,
                 ae->ev_ref_worst, ae->ev_ref_over);
        snprintf(f->fix, sizeof f->fix, "%s",
                 "Nothing to fix in the engine for these logits; the values are beyond what fp32 can hold: scale the "
                 "inputs (--normalize) or the learning rate down to have them judged.");
    }
    /* the every-step checksums: relations whose outputs may overflow (checks/checksums.c, ck_rel_unbound) */
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || ae->is_ref || !r->cfg.checksums || ae->ck_unjudged <= 0) continue;
        explain_finding *f = add(L, "fp32-overflow", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->phase, sizeof f->phase, "%s", ae->ck_unjudged_step ? "step" : "evaluation");
        f->step = ae->ck_unjudged_step;
        f->when = ae->ck_unjudged_step ? (double)ae->ck_unjudged_step : eval_when(r, ae->ck_unjudged_eval_epoch);
        char where[48];
        if (ae->ck_unjudged_step) snprintf(where, sizeof where, "step %ld", ae->ck_unjudged_step);
        else snprintf(where, sizeof where, "the evaluation after epoch %d", ae->ck_unjudged_eval_epoch);
        snprintf(f->title, sizeof f->title,
                 "%s: %ld every-step checksum relation(s) and re-check(s) beyond fp32's range (a legal fp32 "
                 "evaluation may overflow there): not judged, not ok (first at %s)", ae->label, ae->ck_unjudged, where);
        snprintf(f->cause, sizeof f->cause,
                 "A relation sums fp32 outputs whose largest sum of |terms| S (the vector's fourth field) times (1 + "
                 "gamma_K) reaches fp32's overflow threshold 2^128 (1 - 2^-25), or an operand is already inf or NaN: "
                 "an order of the additions may overflow, and a legal result is +-inf or NaN whatever the exact one, "
                 "so no tolerance relates the sides (an exact re-check with an inf or NaN operand: relu, max-pool, "
                 "dropout or the loss have more than one legal fp32 result there). These are counted as not "
                 "judged (checks/checksums.c, ck_rel_unbound), neither within nor over.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%ld not judged over %ld training step(s) and %ld evaluation batch(es); %ld relations and re-checks "
                 "judged as usual (worst ratio %.3g).", ae->ck_unjudged, ae->ck_steps, ae->ck_eval_batches,
                 ae->ck_relations, ae->ck_worst);
        snprintf(f->fix, sizeof f->fix, "%s",
                 "Nothing to fix in the engine for these; the values are beyond what fp32 can hold: scale the "
                 "inputs (--normalize) or the learning rate down to have them judged.");
    }
    return LS_OK;
}

/* Tensors checked on another kernel than the one that trains. */
static int rule_other_path(explain_list *L, const audit_result *r) {
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        if (!ae->available || !ae->other_path[0]) continue;
        explain_finding *f = add(L, "other-path", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->title, sizeof f->title, "%s: the layers after %s were checked on another path than training's",
                 ae->label, ae->other_path);
        snprintf(f->cause, sizeof f->cause,
                 "When these tensors were set from outside (isolated mode), their values did not follow the rule "
                 "the fused training kernel computes them by, so the next layer ran on the engine's separate "
                 "kernel: that check judged the separate kernel, not the fused one.");
        snprintf(f->evidence, sizeof f->evidence, "The engine's own count (describe(): other_path).");
        snprintf(f->fix, sizeof f->fix, "The earlier layer's output differs from the leader's: see its finding.");
    }
    return LS_OK;
}

/* A knob asked for and not honoured: cpu:algo=winograd where oneDNN has no
 * Winograd kernel for any convolution (a plain layout, a 1-channel input)
 * runs direct; the engine says so (describe()'s "algo_requested"), and so
 * does the audit, so that nobody reads an ok as Winograd's. */
int explain_algo_fallback(const audit_engine *ae, char *req, size_t rcap, char *ran, size_t ncap) {
    return ae->available && ae->describe && explain_json_get(ae->describe, "algo_requested", req, rcap) == 0 &&
           explain_json_get(ae->describe, "algo", ran, ncap) == 0;
}

static int rule_knob_fallback(explain_list *L, const audit_result *r) {
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        char req[32], ran[32];
        if (!explain_algo_fallback(ae, req, sizeof req, ran, sizeof ran)) continue;
        explain_finding *f = add(L, "knob-fallback", EXPLAIN_INFO);
        if (!f) return LS_ENOMEM;
        snprintf(f->a, sizeof f->a, "%s", ae->label);
        snprintf(f->title, sizeof f->title, "%s: algo=%s is unimplemented here for every convolution: it ran %s, so "
                 "nothing in this audit judged %s", ae->label, req, ran, req);
        char dtype[16] = "";
        int bf16 = explain_json_get(ae->describe, "dtype", dtype, sizeof dtype) == 0 && strcmp(dtype, "bf16") == 0;
        if (bf16)
            snprintf(f->cause, sizeof f->cause, "dtype=bf16: the engine builds its bf16 convolutions as %s "
                     "primitives whatever algo= says.", ran);
        else
            snprintf(f->cause, sizeof f->cause, "oneDNN offers no %s kernel for these convolutions in this layout or "
                     "at these shapes (a plain layout, a 1-channel input); the engine built %s primitives instead.",
                     req, ran);
        snprintf(f->evidence, sizeof f->evidence, "The engine's description: algo %s, algo_requested %s, and per "
                 "layer the kernel that ran (Environment, Kernels per layer).", ran, req);
        if (bf16) snprintf(f->fix, sizeof f->fix, "To audit %s, use dtype=f32 (the default).", req);
        else
            snprintf(f->fix, sizeof f->fix, "To audit %s, leave the layout blocked (the default) on a model whose "
                     "convolutions have several input channels.", req);
    }
    return LS_OK;
}

/* ---- verdicts -------------------------------------------------------------- */

/* The engine's checks against its reference: the first reference pair
 * with checked steps; counts, flips and the worst bound ratio over it. */
/* The engine's most significant sharp-tier failure over the pair's slots
 * (none: suspect_slot stays -1). */
static void verdict_suspect(engine_verdict *ev, const audit_pair *p, const audit_result *r) {
    ev->suspect_slot = -1;
    double best = 0;
    for (int s = 0; s < r->n_slots; s++) {
        const audit_slot_stats *ss = &p->slot[s];
        const char *t;
        double pr, sc = sharp_failure(ss, &t, &pr);
        if (sc < 1 || sc <= best) continue;
        best = sc;
        ev->suspect_slot = s;
        ev->suspect_step = ss->first_suspect_step;
        snprintf(ev->suspect_test, sizeof ev->suspect_test, "%s", t);
        ev->suspect_sharp_ratio = ss->max_sharp_ratio;
        ev->suspect_worst_ratio = ss->max_bound_ratio;
        ev->suspect_score = sc;
        ev->suspect_p = pr;
    }
}

static void engine_checks(engine_verdict *ev, const audit_result *r, int i) {
    for (int pi = 0; pi < r->n_pairs && ev->ref < 0; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (p->b != i || !r->eng[p->a].is_ref) continue;
        int any = 0;
        for (int s = 0; s < r->n_slots; s++) any |= p->slot[s].n_check_steps > 0;
        if (!any) continue;
        ev->ref = p->a;
        verdict_suspect(ev, p, r);
        for (int s = 0; s < r->n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            if (!ss->n_check_steps) continue;
            ev->n_compared++;
            if (ss->n_check_steps > ev->check_steps) ev->check_steps = ss->n_check_steps;
            ev->flips += ss->flips;
            ev->near_ties += ss->near_ties;
            ev->sub_ulp += ss->sub_ulp;
            if (ss->n_bounded < ss->n_check_steps) continue;
            /* elements no bound judged (fp32 may overflow there): the
             * tensor is judged only in part, not counted as covered; its
             * other elements' ratios still count toward the verdict */
            if (ss->n_unjudged > 0) {
                ev->n_partial++;
                ev->n_unjudged += ss->n_unjudged;
            } else {
                ev->n_bounded++;
            }
            if (ev->worst_slot < 0 || !(ss->max_bound_ratio <= ev->worst_ratio)) {
                ev->worst_slot = s;
                ev->worst_ratio = ss->max_bound_ratio;
                ev->worst_step = ss->worst_ratio_step;
            }
        }
    }
    /* the evaluation's logits against the reference with some not judged (fp32 may overflow on the way,
     * bounds_eval_layer): one more tensor compared, judged in part, as a training tensor is; only then (a
     * normal run's coverage is the training tensors') */
    const audit_engine *ae = &r->eng[i];
    if (ae->ev_ref_images && ae->ev_ref_unjudged > 0) {
        ev->n_compared++;
        ev->n_partial++;
        ev->n_unjudged += ae->ev_ref_unjudged;
    }
    /* the every-step checksums with relations not judged (fp32 may overflow there, checks/checksums.c's
     * ck_rel_unbound): as above, one more check judged in part, only then */
    if (r->cfg.checksums && ae->ck_unjudged > 0) {
        ev->n_compared++;
        ev->n_partial++;
        ev->n_unjudged += ae->ck_unjudged;
    }
}

/* the engine's verdict in one word and its detail */
static void engine_verdict_words(engine_verdict *ev, const audit_result *r, const model *m, const audit_engine *ae) {
    char b1[32], org[64];
    if (ae->ck_viol_checks) {
        snprintf(ev->verdict, sizeof ev->verdict, "CHECKSUM violated");
        ev->problem = 1;
        char where[32];
        if (ae->ck_first_eval_epoch) snprintf(where, sizeof where, "evaluation, epoch %d", ae->ck_first_eval_epoch);
        else snprintf(where, sizeof where, "step %ld", ae->ck_first_step);
        if (isinf(ae->ck_first.ratio))
            snprintf(ev->detail, sizeof ev->detail, "%s, %s: an exact check failed (%ld judged stage(s) violated)", where,
                     ck_phase_label(ae->ck_first.phase), ae->ck_viol_checks);
        else
            snprintf(ev->detail, sizeof ev->detail, "%s, %s: ratio %s (%ld judged stage(s) violated)", where,
                     ck_phase_label(ae->ck_first.phase), fnum(b1, sizeof b1, ae->ck_first.ratio), ae->ck_viol_checks);
    } else if (ae->ev_ref_tie_bad) {
        snprintf(ev->verdict, sizeof ev->verdict, "EVAL not repeated");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "after epoch %d, %ld of %ld images' logits differ between the "
                 "evaluation and the comparison pass (same weights and images)", ae->ev_ref_epoch, ae->ev_ref_tie_bad,
                 ae->ev_ref_images);
    } else if (ae->ev_ref_images && !(ae->ev_ref_worst <= 1)) {
        snprintf(ev->verdict, sizeof ev->verdict, "EVAL exceeds bound");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "logits vs the reference after epoch %d: ratio %s, %ld of %ld "
                 "images predicted differently", ae->ev_ref_epoch, fnum(b1, sizeof b1, ae->ev_ref_worst),
                 ae->ev_ref_pred_diff, ae->ev_ref_images);
    } else if (ae->rt_input_step) {
        snprintf(ev->verdict, sizeof ev->verdict, "input mismatch");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "step %ld computed with other images than its batch (read back by "
                 "the state round trip)", ae->rt_input_step);
    } else if (ae->rt_prev_step) {
        snprintf(ev->verdict, sizeof ev->verdict, "after-step mismatch");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "its step %ld computes otherwise unless step %ld ran before it (%s)",
                 ae->rt_prev_step, ae->rt_prev_step - 1, ae->rt_first);
    } else if (ae->rt_partial_step) {
        snprintf(ev->verdict, sizeof ev->verdict, "after-partial mismatch");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "its step %ld, after a partial batch, computes otherwise (%s)",
                 ae->rt_partial_step, ae->rt_first);
    } else if (ae->rt_eval_step) {
        snprintf(ev->verdict, sizeof ev->verdict, "after-eval mismatch");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "its step %ld, after an evaluation, computes otherwise (%s)",
                 ae->rt_eval_step, ae->rt_first);
    } else if (ae->rt_fail_step) {
        snprintf(ev->verdict, sizeof ev->verdict, "state mismatch");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "trains with another state than it reports (%s, at step %ld)",
                 ae->rt_first, ae->rt_fail_step);
    } else if (ae->ck_sus_checks && !(ev->ref >= 0 && ev->worst_slot >= 0 && !(ev->worst_ratio <= 1))) {
        /* a checksum SUSPECT outranks "unchecked" (no reference) but not a
         * per-element PROBLEM (EXCEEDS bound, below) */
        snprintf(ev->verdict, sizeof ev->verdict, "SUSPECT");
        ev->suspect = 1;
        char where[32], b2[32];
        /* where it begins (the first relation over the sharp tier), as a PROBLEM's detail names its first */
        if (ae->ck_sus_first_eval_epoch)
            snprintf(where, sizeof where, "evaluation, epoch %d", ae->ck_sus_first_eval_epoch);
        else snprintf(where, sizeof where, "step %ld", ae->ck_sus_first_step);
        if (ae->ck_sus_first.phase == CKP_UPDATE && isinf(ae->ck_sus_first.ratio))
            snprintf(ev->detail, sizeof ev->detail, "Adam update %s not the shared formula, %s of the worst case (%ld "
                     "step(s))", where, fnum(b2, sizeof b2, ae->ck_sus_first_worst_ratio), ae->ck_sus_checks);
        else if (ae->ck_sus_first.sign_test) /* checks/checksums.c, judge_sign */
            snprintf(ev->detail, sizeof ev->detail, "checksum %s, %s: x%s the sign test's limit, %s of the worst "
                     "case (%ld)", where, ae->ck_sus_first.what, fnum(b1, sizeof b1, ae->ck_sus_first.ratio),
                     fnum(b2, sizeof b2, ae->ck_sus_first_worst_ratio), ae->ck_sus_checks);
        else
            snprintf(ev->detail, sizeof ev->detail, "checksum %s, %s: x%s the sharper tier, %s of the worst case (%ld "
                     "check(s))", where, ae->ck_sus_first.what, fnum(b1, sizeof b1, ae->ck_sus_first.ratio),
                     fnum(b2, sizeof b2, ae->ck_sus_first_worst_ratio), ae->ck_sus_checks);
    } else if (ev->ref < 0) {
        snprintf(ev->verdict, sizeof ev->verdict, "unchecked");
        ev->unchecked = 1;
        snprintf(ev->detail, sizeof ev->detail, "no step was checked against a reference");
    } else if (ev->worst_slot >= 0 && !(ev->worst_ratio <= 1)) {
        snprintf(ev->verdict, sizeof ev->verdict, "EXCEEDS bound");
        ev->problem = 1;
        snprintf(ev->detail, sizeof ev->detail, "%s, %s: ratio %s at step %ld", r->slot_name[ev->worst_slot],
                 explain_slot_origin(r, m, ev->worst_slot, org, sizeof org), fnum(b1, sizeof b1, ev->worst_ratio),
                 ev->worst_step);
    } else if (ev->suspect_slot >= 0) {
        snprintf(ev->verdict, sizeof ev->verdict, "SUSPECT");
        ev->suspect = 1;
        char b2[32], b3[32];
        char test[24];
        snprintf(test, sizeof test, "%s", ev->suspect_test);
        snprintf(ev->detail, sizeof ev->detail, "%s, %s: %s failed (x%s its limit, p <= %.1e), sharp ratio %s, "
                 "worst-case ratio %s, step %ld",
                 r->slot_name[ev->suspect_slot], explain_slot_origin(r, m, ev->suspect_slot, org, sizeof org),
                 test, fnum(b1, sizeof b1, ev->suspect_score), ev->suspect_p,
                 fnum(b2, sizeof b2, ev->suspect_sharp_ratio), fnum(b3, sizeof b3, ev->suspect_worst_ratio),
                 ev->suspect_step);
    } else if (ev->n_bounded < ev->n_compared) {
        snprintf(ev->verdict, sizeof ev->verdict, "unchecked (partly)");
        ev->unchecked = 1;
        int norule = ev->n_compared - ev->n_bounded - ev->n_partial;
        if (ev->n_partial && norule)
            snprintf(ev->detail, sizeof ev->detail,
                     "%d of %d tensors have no rule; %d judged in part (%ld element-checks not judged: fp32 may "
                     "overflow there)", norule, ev->n_compared, ev->n_partial, ev->n_unjudged);
        else if (ev->n_partial && r->cfg.checksums && ae->ck_unjudged > 0)
            /* the every-step checksums count as one check judged in part (engine_checks) */
            snprintf(ev->detail, sizeof ev->detail, "%d of %d checks judged in part: %ld not judged (fp32 may overflow "
                     "there; %ld of them every-step relations)", ev->n_partial, ev->n_compared, ev->n_unjudged,
                     ae->ck_unjudged);
        else if (ev->n_partial)
            snprintf(ev->detail, sizeof ev->detail, "%d of %d tensors judged in part: %ld element-check(s) not judged "
                     "(fp32 may overflow there)", ev->n_partial, ev->n_compared, ev->n_unjudged);
        else
            snprintf(ev->detail, sizeof ev->detail, "%d of %d tensors have no rule", norule, ev->n_compared);
    } else {
        snprintf(ev->verdict, sizeof ev->verdict, "within bound");
        if (ev->worst_slot >= 0)
            snprintf(ev->detail, sizeof ev->detail, "largest error %s of the fp32 bound (%s)",
                     fnum(b1, sizeof b1, ev->worst_ratio), r->slot_name[ev->worst_slot]);
    }
}

/* One pair of non-reference engines: its figures and its verdict, which
 * leans on both engines' verdicts (v->e, already filled). */
static void pair_verdict_of(pair_verdict *pv, const verdict_table *v, const audit_result *r, int pi, int ep,
                            size_t n_test) {
    const audit_pair *p = &r->pair[pi];
    pv->pair = pi;
    pv->first_diff_step = p->first_diff_step;
    pv->first_slot = first_diff_slot(r, p);
    pv->end_rel_l2 = NAN;
    for (long k = r->total_steps - 1; k >= 0 && p->param_rel_l2; k--)
        if (!isnan(p->param_rel_l2[k])) {
            pv->end_rel_l2 = p->param_rel_l2[k];
            break;
        }
    pv->flips = -1;
    pv->acc_gap = NAN;
    if (ep >= 0 && n_test && r->drift_mode == MODE_FREE && r->eng[p->a].confusion && r->eng[p->b].confusion &&
        !isnan(r->eng[p->a].test_acc[ep]) && !isnan(r->eng[p->b].test_acc[ep])) { /* both evaluated at ep */
        pv->flips = p->disagree[ep];
        pv->acc_gap = 100 * (r->eng[p->a].test_acc[ep] - r->eng[p->b].test_acc[ep]);
    }
    pv->band_exit_step = band_exit(r, p, &pv->band_factor);
    int eq = pair_equal(r, p);
    const engine_verdict *va = NULL, *vb = NULL;
    for (int k = 0; k < v->n_eng; k++) {
        int e = v->e[k].engine;
        int ia = r->eng[p->a].repeat_of >= 0 ? r->eng[p->a].repeat_of : p->a;
        int ib = r->eng[p->b].repeat_of >= 0 ? r->eng[p->b].repeat_of : p->b;
        if (e == ia) va = &v->e[k];
        if (e == ib) vb = &v->e[k];
    }
    if (is_repeat_pair(r, p)) {
        if (eq) snprintf(pv->verdict, sizeof pv->verdict, "deterministic");
        else {
            snprintf(pv->verdict, sizeof pv->verdict, "NONDETERMINISTIC");
            pv->nondet = 1;
        }
    } else if (pair_equal_training(r, p)) {
        snprintf(pv->verdict, sizeof pv->verdict, eq ? "bitwise identical" : "identical weights");
    } else if (pv->band_exit_step > 0) {
        snprintf(pv->verdict, sizeof pv->verdict, "BEYOND noise floor");
        pv->problem = 1;
    } else if (is_noise_pair(r, p)) {
        snprintf(pv->verdict, sizeof pv->verdict, "noise floor");
    } else if (va && vb && (va->problem || vb->problem)) {
        snprintf(pv->verdict, sizeof pv->verdict, "beyond bound");
    } else if (va && vb && va->ref >= 0 && vb->ref >= 0 && !va->unchecked && !vb->unchecked) {
        /* the two started from other weights (one moved K ulps, the other
         * not, or by another K): not the ordering alone */
        int start = r->eng[p->a].perturb_ulps != r->eng[p->b].perturb_ulps;
        snprintf(pv->verdict, sizeof pv->verdict, start ? "ordering + noise floor" : "ordering only");
    } else {
        snprintf(pv->verdict, sizeof pv->verdict, "differs (not judged)");
    }
}

void explain_verdicts(verdict_table *v, const audit_result *r, const model *m) {
    memset(v, 0, sizeof *v);
    for (int i = 0; i < r->n_engines; i++) {
        const audit_engine *ae = &r->eng[i];
        /* a repeat (an engine listed twice) has no reference pair of its
         * own, but its own checks (every-step checksums, evaluation vs the
         * reference, the state round trip) judge it: a problem or suspect
         * there is the run's, with its own row; otherwise it has none */
        int repeat = ae->repeat_of >= 0;
        if (ae->is_ref || (repeat && !ae->available)) continue;
        engine_verdict *ev = &v->e[v->n_eng];
        ev->engine = i;
        ev->ref = -1;
        ev->worst_slot = -1;
        ev->suspect_slot = -1;
        if (!ae->available) {
            snprintf(ev->verdict, sizeof ev->verdict, "skipped");
            headline_short_reason(ae->skip_reason, ev->detail, sizeof ev->detail); /* whole in run.json's engines[].skipped */
            v->n_eng++;
            continue;
        }
        engine_checks(ev, r, i);
        engine_verdict_words(ev, r, m, ae);
        if (repeat && !ev->problem && !ev->suspect) {
            memset(ev, 0, sizeof *ev); /* the slot is reused */
            continue;
        }
        v->n_eng++;
        v->problems += ev->problem;
        v->unchecked += ev->unchecked;
        v->unchecked_noref += ev->unchecked && ev->ref < 0;
        v->suspects += ev->suspect;
    }
    int ep = r->epochs_done - 1;
    size_t n_test = 0;
    for (int i = 0; i < r->n_engines && !n_test && ep >= 0; i++)
        if (r->eng[i].confusion)
            for (int k = 0; k < m->n_classes * m->n_classes; k++) n_test += (size_t)r->eng[i].confusion[k];
    for (int pi = 0; pi < r->n_pairs; pi++) {
        const audit_pair *p = &r->pair[pi];
        if (r->eng[p->a].is_ref || r->eng[p->b].is_ref) continue;
        pair_verdict *pv = &v->p[v->n_pair++];
        pair_verdict_of(pv, v, r, pi, ep, n_test);
        /* non-determinism is a problem for a tool that pins results; it is
         * also counted apart (--fail-on nondeterminism alone) */
        v->problems += pv->problem || pv->nondet;
        v->nondet += pv->nondet;
    }
}

/* The engine a finding is about, for the order: the engine judged against a reference (pair b), a
 * repeat pair's first run, an engine's own finding (a), or the pair itself ("a\tb") when neither side is
 * a reference. */
static void finding_engine(const explain_finding *f, const audit_result *r, char *key, size_t cap) {
    if (f->pair >= 0 && f->pair < r->n_pairs) {
        const audit_pair *p = &r->pair[f->pair];
        if (r->eng[p->a].is_ref) snprintf(key, cap, "%s", r->eng[p->b].label);
        else if (r->eng[p->b].repeat_of == p->a) snprintf(key, cap, "%s", r->eng[p->a].label);
        else snprintf(key, cap, "%s\t%s", r->eng[p->a].label, r->eng[p->b].label);
    } else snprintf(key, cap, "%s", f->a);
}

static double finding_when(const explain_finding *f) { return f->when > 0 ? f->when : (double)f->step; }

/* Among one engine's PROBLEMs, the earliest in the run first: the first
 * finding is read as where the fault begins, and the rule order alone
 * (every-step checksums before the per-element bounds) put a checksum
 * violation at a later step before the same engine's per-element excess at
 * an earlier one (an attribution step or a shadow replay, where the fault
 * first fired but stayed within the relations).  Each engine's PROBLEMs keep the
 * places they have (the engines' interleaving is the rule order's) and are
 * sorted, stably, by when into them: equal whens (an attribution step and
 * the drift step of the same number, a checksum violation of an evaluation
 * and the evaluation-vs-reference finding) keep the rule order.  A finding
 * with no step (when 0: about the whole run) comes first. */
static void order_problems(explain_list *L, const audit_result *r) {
    int n = 0;
    while (n < L->n && L->f[n].severity == EXPLAIN_PROBLEM) n++;
    unsigned char *done = calloc((size_t)n + 1, 1);
    int *pos = malloc(((size_t)n + 1) * sizeof *pos);
    explain_finding *grp = malloc(((size_t)n + 1) * sizeof *grp);
    if (!done || !pos || !grp) { /* out of memory: the rule order stands */
        free(done);
        free(pos);
        free(grp);
        return;
    }
    char ki[sizeof L->f[0].a * 2 + 2], kj[sizeof ki];
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        finding_engine(&L->f[i], r, ki, sizeof ki);
        int k = 0;
        for (int j = i; j < n; j++) {
            if (done[j]) continue;
            finding_engine(&L->f[j], r, kj, sizeof kj);
            if (strcmp(ki, kj) != 0) continue;
            done[j] = 1;
            pos[k] = j;
            grp[k++] = L->f[j];
        }
        for (int a = 1; a < k; a++) { /* insertion: stable */
            explain_finding t = grp[a];
            int b = a - 1;
            while (b >= 0 && finding_when(&grp[b]) > finding_when(&t)) {
                grp[b + 1] = grp[b];
                b--;
            }
            grp[b + 1] = t;
        }
        for (int a = 0; a < k; a++) L->f[pos[a]] = grp[a];
    }
    free(done);
    free(pos);
    free(grp);
}

int explain_run(explain_list *out, const audit_result *r, const model *m) {
    memset(out, 0, sizeof *out);
    int rc = rule_skipped(out, r);
    if (!rc) rc = rule_determinism(out, r, m);
    if (!rc) rc = rule_checksums(out, r, m);
    if (!rc) rc = rule_eval_ref(out, r);
    if (!rc) rc = rule_roundtrip(out, r, m);
    if (!rc) rc = rule_bounds(out, r, m);
    if (!rc) rc = rule_suspect(out, r, m);
    if (!rc) rc = rule_band(out, r);
    if (!rc) rc = rule_unchecked(out, r, m);
    if (!rc) rc = rule_decisions(out, r, m);
    if (!rc) rc = rule_fp32_range(out, r, m);
    if (!rc) rc = rule_fp32_overflow(out, r, m);
    if (!rc) rc = rule_other_path(out, r);
    if (!rc) rc = rule_knob_fallback(out, r);
    if (!rc) rc = rule_pairs(out, r, m);
    if (!rc) rc = rule_unbounded(out, r);
    if (!rc) rc = rule_accuracy(out, r, m);
    if (rc) {
        explain_list_free(out);
        return ls_err(LS_ENOMEM, "explain: out of memory");
    }
    /* stable sort by severity: insertion order is rule order */
    for (int i = 1; i < out->n; i++) {
        explain_finding t = out->f[i];
        int j = i - 1;
        while (j >= 0 && out->f[j].severity > t.severity) {
            out->f[j + 1] = out->f[j];
            j--;
        }
        out->f[j + 1] = t;
    }
    order_problems(out, r);
    return LS_OK;
}

void explain_list_free(explain_list *l) {
    free(l->f);
    memset(l, 0, sizeof *l);
}

void explain_print(FILE *f, const audit_result *r, const model *m) {
    if (!f) return;
    explain_list L;
    if (explain_run(&L, r, m)) {
        fprintf(f, "\n== findings: %s\n", ls_errmsg());
        return;
    }
    static const char *const SEV[] = {"PROBLEM", "SUSPECT", "cause", "ok", "info"};
    fprintf(f, "\n== findings (why the engines differ)\n");
    for (int i = 0; i < L.n; i++) {
        const explain_finding *x = &L.f[i];
        fprintf(f, "  [%s] %s\n", SEV[x->severity], x->title);
        /* (an every-step check's finding names a layer and no tensor: no leading ", ") */
        if (x->layer[0]) fprintf(f, "      where:    %s%s%s\n", x->tensor, x->tensor[0] ? ", " : "", x->layer);
        fprintf(f, "      cause:    %s\n      evidence: %s\n      fix:      %s\n", x->cause, x->evidence, x->fix);
    }
    explain_list_free(&L);
}
