/*
 * test_report.c — the explanation rules (explain.c) and the report files
 * (report.c) on constructed audit results: no engine runs, every number is
 * chosen, so each finding the rules must (and must not) produce is known.
 *
 * Rules: a threads-only cpu pair whose first difference is a weight
 * gradient gives the reduction-order finding; a bound ratio of 50 on a
 * Winograd conv gives the approximate-algorithm finding naming the layer,
 * on a TF32 cuda dense layer the reduced-precision one, and with no
 * explaining description a plain "bound-exceeded" that claims no cause; a
 * bitwise-equal pair reads "interchangeable"; a non-deterministic repeat
 * pair names its first tensor; equal forward + different loss gives the
 * exp/log finding; the accuracy rule states the flips, the McNemar bound
 * and what was not measured.  Report: both files written and complete, in
 * the DESIGN §7 order, with SVG, a hostile engine label escaped, no
 * temporary left, and failing writes reported with the path.
 *
 * No tolerances: every assertion is on text or on exact integers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/every_step.h"
#include "audit/explain.h"
#include "audit/headline.h"
#include "audit/seeds.h"
#include "commands/audit_cmd.h"
#include "engines/engine.h"
#include "report/report.h"

/* ---- a constructed audit -------------------------------------------------- */

static const char *const SLOTS[][2] = {
    {"conv1.act", "forward"},          {"relu1.act", "forward"},         {"pool1.act", "forward"},
    {"conv2.act", "forward"},          {"fc1.act", "forward"},           {"fc2.act", "forward"},
    {"loss", "loss"},                  {"fc2.dact", "loss"},             {"fc2.weight.grad", "backward"},
    {"fc1.weight.grad", "backward"},   {"conv2.weight.grad", "backward"}, {"conv2.bias.grad", "backward"},
    {"pool1.dact", "backward"},        {"conv1.weight.grad", "backward"}, {"conv2.weight", "update"},
    {"conv1.dact", "backward"},
};

static model M;

static audit_result *new_result(void) {
    assert_int_equal(model_build(&M, "smallcnn"), 0);
    audit_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->n_slots = (int)LS_ARRAY_LEN(SLOTS);
    for (int s = 0; s < r->n_slots; s++) {
        snprintf(r->slot_name[s], sizeof r->slot_name[s], "%s", SLOTS[s][0]);
        snprintf(r->slot_phase[s], sizeof r->slot_phase[s], "%s", SLOTS[s][1]);
    }
    r->total_steps = 4;
    return r;
}

static int add_engine(audit_result *r, const char *label, const char *spec, const char *describe, int is_ref) {
    int i = r->n_engines++;
    audit_engine *e = &r->eng[i];
    snprintf(e->label, sizeof e->label, "%s", label);
    snprintf(e->spec, sizeof e->spec, "%s", spec);
    e->is_ref = is_ref;
    e->available = 1;
    e->repeat_of = -1;
    e->describe = describe ? strdup(describe) : NULL;
    e->steps_run = is_ref ? 2 : 4;
    return i;
}

/* A pair, every slot compared on 2 steps and bitwise equal, parameters
 * equal at every step: callers then add the differences they test. */
static audit_pair *add_pair(audit_result *r, int a, int b) {
    audit_pair *p = &r->pair[r->n_pairs++];
    p->a = a;
    p->b = b;
    p->param_rel_l2 = malloc(4 * sizeof(double));
    p->param_max_ulp = malloc(4 * sizeof(double));
    p->loss_diff = malloc(4 * sizeof(double));
    for (int k = 0; k < 4; k++) p->param_rel_l2[k] = p->param_max_ulp[k] = p->loss_diff[k] = 0;
    for (int s = 0; s < AUDIT_MAX_SLOTS; s++) {
        p->slot[s].max_bound_ratio = -1;
        p->slot[s].min_frac_equal = 1;
        p->slot[s].n_steps = s < r->n_slots ? 2 : 0;
    }
    return p;
}

/* Make slot `name` of pair p differ from step `step` on. */
static void differ(audit_result *r, audit_pair *p, const char *name, long step, double ulp) {
    int s = audit_slot(r, name);
    assert_true(s >= 0);
    p->slot[s].first_unequal_step = step;
    p->slot[s].max_ulp = ulp;
    p->slot[s].max_rel = ulp * 0x1p-24;
    p->slot[s].worst_step = step;
    p->slot[s].min_frac_equal = 0.5;
    if (!p->first_diff_step || p->first_diff_step > step) p->first_diff_step = step;
    for (long k = step - 1; k < r->total_steps; k++) {
        p->param_rel_l2[k] = 1e-7 * (k + 1);
        p->param_max_ulp[k] = 3;
    }
}

static const explain_finding *find(const explain_list *L, const char *rule, const char *a, const char *b) {
    for (int i = 0; i < L->n; i++) {
        const explain_finding *f = &L->f[i];
        if (strcmp(f->rule, rule) != 0) continue;
        if (a && !((strcmp(f->a, a) == 0 && strcmp(f->b, b) == 0) || (strcmp(f->a, b) == 0 && strcmp(f->b, a) == 0)))
            continue;
        return f;
    }
    return NULL;
}

static void free_result(audit_result *r) {
    audit_result_free(r);
    free(r);
}

#define CPU_DESC(threads, algo, conv2_fwd)                                                                       \
    "{\"engine\":\"cpu\",\"library\":\"oneDNN\",\"version\":\"2.6.3\",\"isa\":\"cpu_isa_avx512_core\","         \
    "\"threads\":" threads ",\"fpmath\":\"fpmath_mode_strict\",\"algo\":\"" algo "\",\"layout\":\"blocked\","     \
    "\"math\":\"vendor\",\"layers\":[{\"layer\":0,\"name\":\"conv1\",\"kind\":\"conv\",\"fwd\":\"jit:avx512_core\"," \
    "\"bwd_data\":null},{\"layer\":3,\"name\":\"conv2\",\"kind\":\"conv\",\"fwd\":\"" conv2_fwd "\","             \
    "\"alg\":{\"fwd\":\"x\"}}]}"

static const char *REF_DESC = "{\"name\": \"reference\", \"mode\": \"exact\", \"prec_bits\": 128, \"threads\": 1, "
                              "\"mpfr\": \"4.2.0\", \"gmp\": \"6.2.1\"}";

/* ---- rules ------------------------------------------------------------- */

/* (a) threads only: first difference a weight gradient at step 1; both
 * bounded <= 1 against the reference. */
static void test_threads_reduction_order(void **st) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int c2 = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int c1 = add_engine(r, "cpu:threads=1", "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    audit_pair *p = add_pair(r, c2, c1);
    differ(r, p, "conv2.weight.grad", 1, 4096);
    differ(r, p, "conv2.act", 2, 100); /* later, in the forward: not the first */
    int s = audit_slot(r, "conv2.weight.grad");
    audit_pair *r2 = add_pair(r, ref, c2), *r1 = add_pair(r, ref, c1);
    r2->slot[s].max_bound_ratio = 0.125;
    r1->slot[s].max_bound_ratio = 0.25;
    differ(r, r2, "conv2.weight.grad", 1, 10);
    differ(r, r1, "conv2.weight.grad", 1, 10);
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = find(&L, "knob", "cpu", "cpu:threads=1");
    assert_non_null(f);
    assert_string_equal(f->tensor, "conv2.weight.grad");
    assert_string_equal(f->layer, "conv2 (backward-weights)");
    assert_int_equal(f->step, 1);
    assert_non_null(strstr(f->title, "only in threads"));
    assert_non_null(strstr(f->cause, "summation order"));
    assert_non_null(strstr(f->cause, "batch reduction"));
    assert_non_null(strstr(f->evidence, "First unequal at step 1 in conv2.weight.grad"));
    assert_non_null(strstr(f->evidence, "0.125"));
    assert_non_null(strstr(f->evidence, "0.25"));
    assert_non_null(strstr(f->evidence, "both <= 1"));
    assert_non_null(strstr(f->fix, "same thread count"));
    /* nothing here exceeds a bound, so no problem finding may appear */
    for (int i = 0; i < L.n; i++) assert_int_not_equal(L.f[i].severity, EXPLAIN_PROBLEM);
    /* the reference pairs are within bound */
    assert_non_null(find(&L, "within-bound", "reference", "cpu"));
    explain_list_free(&L);
    /* the pairs' verdicts: threads alone are "ordering only"; the noise-floor engine (cpu moved 1 ulp) against
     * cpu is the noise floor, and against cpu:threads=1 differs in threads and in its start: not "ordering only" */
    int c3 = add_engine(r, "cpu:perturb=1", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    r->eng[c3].perturb_ulps = 1;
    audit_pair *r3 = add_pair(r, ref, c3);
    r3->slot[s].max_bound_ratio = 0.5;
    differ(r, r3, "conv1.act", 1, 10);
    audit_pair *n3 = add_pair(r, c2, c3), *m3 = add_pair(r, c1, c3);
    differ(r, n3, "conv1.act", 1, 3);
    differ(r, m3, "conv1.act", 1, 3);
    for (int k = 0; k < r->n_slots; k++) /* every tensor the reference compared judged within its bound */
        for (audit_pair **q = (audit_pair *[]){r1, r2, r3, NULL}; *q; q++) {
            (*q)->slot[k].max_bound_ratio = 0.5;
            (*q)->slot[k].n_check_steps = (*q)->slot[k].n_bounded = 1;
        }
    verdict_table v;
    explain_verdicts(&v, r, &M);
    int seen = 0;
    for (int k = 0; k < v.n_pair; k++) {
        const audit_pair *q = &r->pair[v.p[k].pair];
        const char *want = q == p ? "ordering only" : q == n3 ? "noise floor" : q == m3 ? "ordering + noise floor" : NULL;
        if (!want) continue;
        seen++;
        if (strcmp(v.p[k].verdict, want) != 0)
            fail_msg("pair %s vs %s: verdict '%s', want '%s'", r->eng[q->a].label, r->eng[q->b].label, v.p[k].verdict,
                     want);
    }
    assert_int_equal(seen, 3);
    free_result(r);
}

/* (b) ratio 50 on a Winograd conv; (c) ratio 50 on a TF32 dense layer;
 * and ratio 50 where nothing in the description explains it. */
static void test_bound_exceeded_causes(void **st) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int w = add_engine(r, "cpu:algo=winograd", "cpu:algo=winograd",
                       CPU_DESC("2", "winograd", "jit_wino_4x3:avx512_core"), 0);
    int cu = add_engine(r, "cuda:math=tf32", "cuda:math=tf32",
                        "{\"name\":\"cuda\",\"math\":\"tf32\",\"algo_policy\":\"det\",\"expm\":\"vendor\","
                        "\"env_NVIDIA_TF32_OVERRIDE\":null,\"plans\":[{\"batch\":32,\"layers\":[{\"layer\":\"fc1\","
                        "\"library\":\"cublasSgemm\",\"math\":\"TF32_TENSOR_OP_MATH\"}]}]}",
                        0);
    int plain = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_pair *pw = add_pair(r, ref, w), *pc = add_pair(r, ref, cu), *pp = add_pair(r, ref, plain);
    int sc = audit_slot(r, "conv2.act"), sf = audit_slot(r, "fc1.act");
    differ(r, pw, "conv2.act", 1, 1e5);
    pw->slot[sc].max_bound_ratio = 50;
    /* the TF32 engine: every product tensor over the fp32 bound and within
     * the TF32 bound (fc1 forward, K = 1569: TF32 allows ~11.4x the fp32
     * bound), every other tensor within its fp32 rule — the signature */
    differ(r, pc, "fc1.act", 1, 1e5);
    pc->slot[sf].max_bound_ratio = 5;
    pc->slot[sf].n_bounded = pc->slot[sf].n_check_steps = 1;
    differ(r, pp, "conv2.act", 1, 1e5);
    pp->slot[sc].max_bound_ratio = 50;
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);

    const explain_finding *f = find(&L, "approximate-algorithm", "reference", "cpu:algo=winograd");
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_PROBLEM);
    assert_string_equal(f->layer, "conv2 (forward)");
    assert_non_null(strstr(f->title, "conv2"));
    assert_non_null(strstr(f->cause, "jit_wino_4x3"));
    assert_non_null(strstr(f->evidence, "conv2.act 50"));
    assert_non_null(strstr(f->fix, "algo=direct"));

    f = find(&L, "reduced-precision", "reference", "cuda:math=tf32");
    assert_non_null(f);
    assert_string_equal(f->layer, "fc1 (forward)");
    assert_non_null(strstr(f->cause, "by signature"));
    assert_non_null(strstr(f->cause, "TF32"));
    assert_non_null(strstr(f->cause, "description agrees"));
    assert_non_null(strstr(f->fix, "math=fma"));

    /* no transform, no TF32: the rule names no cause it cannot support */
    f = find(&L, "bound-exceeded", "reference", "cpu");
    assert_non_null(f);
    assert_null(strstr(f->cause, "Winograd"));
    assert_null(strstr(f->cause, "Reduced precision"));
    assert_non_null(strstr(f->cause, "does not report"));
    /* the pairs with a problem do not get a within-bound finding */
    assert_null(find(&L, "within-bound", NULL, NULL));
    /* problems come first */
    assert_int_equal(L.f[0].severity, EXPLAIN_PROBLEM);
    explain_list_free(&L);
    free_result(r);
}


/* The sharper tier (issue 24): within every worst-case bound, a failed
 * sign test is a SUSPECT verdict and finding at that tensor; an unbiased
 * excess in one product operation is named as reduced precision in that
 * operation, with the fix in the user's terms; --fail-on suspect's count. */
/* ReLU sign flips, one of three within 1 ULP: the engine table, the
 * finding's title and its cause use one meaning of "near-tie" (within 1
 * ULP), and against the exact reference the rest are the layers before's
 * rounding at that step, not drift (the engines were fed the same
 * operands); between two engines run free they are drift. */
static void test_decision_flips_wording(void **st) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:threads=1", "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    audit_pair *pr = add_pair(r, ref, a), *pf = add_pair(r, a, b);
    int sa = audit_slot(r, "relu1.act"), sd = audit_slot(r, "conv1.dact");
    audit_pair *both[] = {pr, pf};
    for (int k = 0; k < 2; k++) {
        differ(r, both[k], "conv1.dact", 1, 100);
        audit_slot_stats *q = &both[k]->slot[sa];
        q->decisions = 1000, q->flips = 3, q->near_ties = 3, q->sub_ulp = 1;
        q->n_check_steps = 1;
        both[k]->slot[sd].flip_err_share = 0.9;
        both[k]->slot[sd].flip_elems = 3;
    }
    verdict_table v;
    explain_verdicts(&v, r, &M);
    for (int k = 0; k < v.n_eng; k++)
        if (v.e[k].engine == a) {
            assert_int_equal(v.e[k].flips, 3);
            assert_int_equal(v.e[k].sub_ulp, 1); /* what the table prints as near-ties */
        }
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = find(&L, "decision-flips", "reference", "cpu");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "3 relu1 ReLU input(s) changed sign"));
    assert_non_null(strstr(f->title, "the layers before rounded apart"));
    assert_null(strstr(f->title, "drifted"));
    assert_null(strstr(f->cause, "drifted"));
    assert_non_null(strstr(f->cause, "1 of them were near-ties"));
    assert_null(strstr(f->fix, "drifted"));
    f = find(&L, "decision-flips", "cpu", "cpu:threads=1");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "drifted apart"));
    assert_non_null(strstr(f->cause, "weights differ after step 1"));
    explain_list_free(&L);
    free_result(r);
}

/* A repeat whose weights stay bitwise equal but whose evaluation
 * classifies test images differently is not deterministic (zoo attack 6:
 * logits read back wrong in one copy were 'deterministic', exit 0 under
 * --fail-on nondeterminism); two different specs with equal weights that
 * evaluate differently are 'identical weights', not 'bitwise identical'. */
static void test_repeat_evaluation_differs(void **st) {
    audit_result *r = new_result();
    r->epochs_done = 2;
    r->n_test = 512;
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int a2 = add_engine(r, "cpu#2", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:layout=plain", "cpu:layout=plain", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    r->eng[a2].repeat_of = a;
    audit_pair *p = add_pair(r, a, a2), *q = add_pair(r, a, b);
    p->disagree[1] = 57;
    q->disagree[0] = 2;
    verdict_table v;
    explain_verdicts(&v, r, &M);
    assert_int_equal(v.n_pair, 2);
    for (int k = 0; k < v.n_pair; k++) {
        if (v.p[k].pair == 0) {
            assert_string_equal(v.p[k].verdict, "NONDETERMINISTIC");
            assert_int_equal(v.p[k].nondet, 1);
        } else {
            assert_string_equal(v.p[k].verdict, "identical weights");
            assert_int_equal(v.p[k].nondet, 0);
        }
    }
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = find(&L, "nondeterminism", "cpu", "cpu#2");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "classify 57 test image(s) differently (evaluation after epoch 2)"));
    assert_null(find(&L, "deterministic", "cpu", "cpu#2"));
    f = find(&L, "bitwise-equal", "cpu", "cpu:layout=plain");
    assert_non_null(f);
    assert_non_null(strstr(f->evidence, "Their evaluations differ (after epoch 1, 2 test image(s)"));
    explain_list_free(&L);
    free_result(r);
}

static void test_suspect_verdict(void **st) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:x", "cpu:x", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_pair *pa = add_pair(r, ref, a), *pb = add_pair(r, ref, b);
    int sf = audit_slot(r, "fc1.act"), sw = audit_slot(r, "conv2.weight.grad");
    r->batch = 16; /* K of the weight gradient: batch x positions */
    differ(r, pa, "fc1.act", 1, 3);
    audit_slot_stats *ss = &pa->slot[sf];
    ss->max_bound_ratio = 0.001;
    ss->n_bounded = ss->n_check_steps = 1;
    ss->n_sharp = ss->n_aggregate = ss->n_suspect = 1;
    ss->first_suspect_step = 1;
    ss->max_sharp_ratio = 0.004;
    ss->max_bias_score = 2.0; /* the sign test failed: a shift */
    ss->bias_share_pos = 0.9;
    ss->bias_p = 1e-30;
    differ(r, pb, "conv2.weight.grad", 1, 30);
    ss = &pb->slot[sw];
    ss->max_bound_ratio = 0.2;
    ss->n_bounded = ss->n_check_steps = 1;
    ss->n_sharp = ss->n_aggregate = ss->n_suspect = 1;
    ss->first_suspect_step = 1;
    ss->max_sharp_ratio = 1.5; /* over the sharp bound, unbiased */
    ss->n_over_sharp = 3;
    ss->sharp_alarm = 1e-16;
    ss->max_bias_score = 0.2;
    verdict_table v;
    explain_verdicts(&v, r, &M);
    assert_int_equal(v.problems, 0);
    assert_int_equal(v.suspects, 2);
    for (int k = 0; k < v.n_eng; k++) {
        assert_string_equal(v.e[k].verdict, "SUSPECT");
        assert_non_null(strstr(v.e[k].detail, v.e[k].engine == a ? "fc1.act" : "conv2.weight.grad"));
    }
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = find(&L, "suspect", "reference", "cpu");
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_SUSPECT);
    assert_string_equal(f->tensor, "fc1.act");
    assert_non_null(strstr(f->cause, "90.0% of the nonzero errors are positive"));
    f = find(&L, "suspect-reduced-precision", "reference", "cpu:x");
    assert_non_null(f);
    assert_string_equal(f->layer, "conv2 (backward-weights)");
    assert_non_null(strstr(f->title, "conv2 backward-weights"));
    assert_non_null(strstr(f->fix, "torch.backends.cudnn.allow_tf32 = False"));
    assert_non_null(strstr(f->fix, "NVIDIA_TF32_OVERRIDE=0"));
    /* SUSPECT comes before causes and oks, after problems (none here) */
    assert_int_equal(L.f[0].severity, EXPLAIN_SUSPECT);
    explain_list_free(&L);
    free_result(r);
}

/* The TF32 explanation comes from evidence, not from the knob: an engine
 * that says math=tf32 but whose error is beyond even the TF32 bound is a
 * bound-exceeded problem with no TF32 cause; and an engine that says
 * nothing but has the TF32 error pattern is named reduced precision. */
static void test_tf32_by_signature_not_knob(void **st) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int cu = add_engine(r, "cuda:math=tf32", "cuda:math=tf32",
                        "{\"name\":\"cuda\",\"math\":\"tf32\",\"algo_policy\":\"det\",\"expm\":\"vendor\"}", 0);
    int plain = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_pair *pc = add_pair(r, ref, cu), *pp = add_pair(r, ref, plain);
    int sf = audit_slot(r, "fc1.act");
    differ(r, pc, "fc1.act", 1, 1e5);
    pc->slot[sf].max_bound_ratio = 5000; /* K = 1569: TF32 allows ~11.4x, bf16 ~92x */
    pc->slot[sf].n_bounded = pc->slot[sf].n_check_steps = 1;
    differ(r, pp, "fc1.act", 1, 1e5);
    pp->slot[sf].max_bound_ratio = 5;
    pp->slot[sf].n_bounded = pp->slot[sf].n_check_steps = 1;
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    assert_null(find(&L, "reduced-precision", "reference", "cuda:math=tf32"));
    const explain_finding *f = find(&L, "bound-exceeded", "reference", "cuda:math=tf32");
    assert_non_null(f);
    assert_null(strstr(f->cause, "Reduced precision"));
    f = find(&L, "reduced-precision", "reference", "cpu");
    assert_non_null(f);
    assert_non_null(strstr(f->cause, "names no reduced precision"));
    explain_list_free(&L);
    free_result(r);
}

/* One operation over its fp32 bound by a ratio a bf16 operand would give,
 * unbiased, but in a handful of elements (a Winograd tile of conv2's
 * output computed wrongly at one step: 8 of 401,408 elements): localized,
 * a bug, not reduced precision, which rounds every element; the same
 * ratio over most elements is named reduced precision in that one
 * operation. */
static void test_localized_not_precision(void **st) {
    audit_result *r = new_result();
    r->batch = 64;
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:x", "cpu:x", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_pair *pa = add_pair(r, ref, a), *pb = add_pair(r, ref, b);
    size_t numel = 64 * 32 * 14 * 14;
    const char *within[] = {"conv1.act", "fc1.act", "fc2.act", "fc1.weight.grad", "conv2.weight.grad", "pool1.dact"};
    audit_pair *ps[2] = {pa, pb};
    for (int k = 0; k < 2; k++) {
        audit_pair *p = ps[k];
        for (size_t i = 0; i < LS_ARRAY_LEN(within); i++) {
            int s = audit_slot(r, within[i]);
            differ(r, p, within[i], 1, 10);
            p->slot[s].max_bound_ratio = 0.5;
            p->slot[s].n_bounded = p->slot[s].n_check_steps = p->slot[s].n_aggregate = 8;
        }
        int s = audit_slot(r, "conv2.act");
        differ(r, p, "conv2.act", 7, 1e7);
        p->slot[s].max_bound_ratio = 60;
        p->slot[s].n_bounded = p->slot[s].n_check_steps = p->slot[s].n_aggregate = 8;
        p->slot[s].n_over = k == 0 ? 8 : (long)(0.6 * (double)numel * 8);
    }
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = find(&L, "bound-exceeded", "reference", "cpu");
    assert_non_null(f);
    assert_non_null(strstr(f->cause, "localized: 8 element(s) of conv2.act"));
    assert_null(strstr(f->cause, "operands"));
    assert_null(find(&L, "reduced-precision-op", "reference", "cpu"));
    f = find(&L, "reduced-precision-op", "reference", "cpu:x");
    assert_non_null(f);
    assert_non_null(strstr(f->cause, "operands"));
    explain_list_free(&L);
    free_result(r);
}

/* (e) bitwise equal; (d) a non-deterministic repeat; (f) exp/log. */
static void test_equal_repeat_vendor_math(void **st) {
    audit_result *r = new_result();
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:layout=plain", "cpu:layout=plain", NULL, 0);
    add_pair(r, a, b);
    int g1 = add_engine(r, "cuda:algo=fast", "cuda:algo=fast",
                        "{\"name\":\"cuda\",\"math\":\"fma\",\"algo_policy\":\"fast\",\"expm\":\"vendor\"}", 0);
    int g2 = add_engine(r, "cuda:algo=fast#2", "cuda:algo=fast",
                        "{\"name\":\"cuda\",\"math\":\"fma\",\"algo_policy\":\"fast\",\"expm\":\"vendor\"}", 0);
    r->eng[g2].repeat_of = g1;
    audit_pair *pr = add_pair(r, g1, g2);
    differ(r, pr, "conv2.weight.grad", 3, 2);
    int g3 = add_engine(r, "cuda", "cuda", "{\"name\":\"cuda\",\"math\":\"fma\",\"algo_policy\":\"det\","
                                           "\"expm\":\"vendor\"}", 0);
    audit_pair *pv = add_pair(r, a, g3);
    differ(r, pv, "loss", 1, 1);
    differ(r, pv, "fc2.dact", 1, 1);
    differ(r, pv, "conv2.act", 2, 1); /* the forward differs only later */
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);

    const explain_finding *f = find(&L, "bitwise-equal", "cpu", "cpu:layout=plain");
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_OK);
    assert_non_null(strstr(f->title, "interchangeable"));

    f = find(&L, "nondeterminism", "cuda:algo=fast", "cuda:algo=fast#2");
    assert_non_null(f);
    assert_string_equal(f->tensor, "conv2.weight.grad");
    assert_int_equal(f->step, 3);
    assert_non_null(strstr(f->fix, "algo=det"));
    assert_null(find(&L, "knob", "cuda:algo=fast", "cuda:algo=fast#2")); /* a repeat is not a knob pair */

    f = find(&L, "vendor-math", "cpu", "cuda");
    assert_non_null(f);
    assert_string_equal(f->tensor, "loss");
    assert_non_null(strstr(f->fix, "math=portable"));
    assert_non_null(strstr(f->fix, "expm=portable"));
    explain_list_free(&L);
    free_result(r);
}

/* (g) accuracy: 30 flips, a gap of 10 images out of 1000; a perturb=1
 * pair gives the noise floor (12 flips). */
static void test_accuracy_gap(void **st) {
    audit_result *r = new_result();
    r->epochs_done = 1;
    int a = add_engine(r, "cpu", "cpu", NULL, 0);
    int b = add_engine(r, "cuda", "cuda", NULL, 0);
    int c = add_engine(r, "cpu:perturb=1", "cpu", NULL, 0);
    r->eng[c].perturb_ulps = 1;
    int C = M.n_classes;
    for (int i = 0; i < 3; i++) {
        r->eng[i].confusion = calloc((size_t)C * C, sizeof(long));
        r->eng[i].confusion[0] = 1000; /* 1000 test images */
    }
    r->eng[a].test_acc[0] = 0.850;
    r->eng[b].test_acc[0] = 0.840;
    r->eng[c].test_acc[0] = 0.848;
    audit_pair *p = add_pair(r, a, b);
    differ(r, p, "conv1.act", 1, 5);
    p->disagree[0] = 30;
    audit_pair *q = add_pair(r, a, c);
    differ(r, q, "conv2.weight", 1, 1);
    q->disagree[0] = 12;
    add_pair(r, b, c)->disagree[0] = 0; /* equal predictions, however unlikely */
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = find(&L, "accuracy-gap", "cpu", "cuda");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "10 test images"));
    assert_non_null(strstr(f->title, "30 images classified differently"));
    assert_non_null(strstr(f->cause, "sqrt(30) = 5.5"));
    assert_non_null(strstr(f->cause, "within 2 sigma")); /* 10 <= 2 * 5.48 */
    assert_non_null(strstr(f->evidence, "850 of 1000"));
    assert_non_null(strstr(f->evidence, "Noise floor"));
    assert_non_null(strstr(f->evidence, "above that floor")); /* 30 > 12 */
    assert_non_null(strstr(f->fix, "Not measured"));
    assert_non_null(strstr(f->fix, "seed"));
    /* the perturbation pair is read as the noise floor, not as a mystery */
    assert_non_null(find(&L, "noise-floor", "cpu", "cpu:perturb=1"));
    assert_null(find(&L, "divergence", "cpu", "cpu:perturb=1"));
    explain_list_free(&L);
    free_result(r);
}

/* --repeat 2 doubles every engine: the threads finding must appear once
 * (not once per combination of repeats), the repeats are read as
 * determinism checks, and the repeat of a perturbed engine — which may
 * start from another perturbation — is not called non-deterministic. */
static void test_repeats_not_duplicated(void **st) {
    audit_result *r = new_result();
    int a = add_engine(r, "cpu:threads=1", "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    int a2 = add_engine(r, "cpu:threads=1#2", "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b2 = add_engine(r, "cpu#2", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int c = add_engine(r, "cpu:perturb=1", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int c2 = add_engine(r, "cpu:perturb=1#2", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    r->eng[a2].repeat_of = a;
    r->eng[b2].repeat_of = b;
    r->eng[c2].repeat_of = c;
    r->eng[c].perturb_ulps = r->eng[c2].perturb_ulps = 1;
    add_pair(r, a, a2);
    add_pair(r, b, b2);
    differ(r, add_pair(r, c, c2), "conv1.act", 1, 7);
    int xs[2] = {a, a2}, ys[2] = {b, b2};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) differ(r, add_pair(r, xs[i], ys[j]), "conv2.weight.grad", 1, 64);
    differ(r, add_pair(r, b, c), "conv1.act", 1, 3);
    differ(r, add_pair(r, a, c), "conv1.act", 1, 3); /* threads and perturb: no finding of its own */
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    int knob = 0, det = 0, noise = 0;
    for (int i = 0; i < L.n; i++) {
        knob += strcmp(L.f[i].rule, "knob") == 0;
        det += strcmp(L.f[i].rule, "deterministic") == 0;
        noise += strcmp(L.f[i].rule, "noise-floor") == 0;
        assert_string_not_equal(L.f[i].rule, "nondeterminism");
        assert_string_not_equal(L.f[i].rule, "divergence");
    }
    assert_int_equal(knob, 1);
    assert_int_equal(det, 2);
    assert_int_equal(noise, 1);
    assert_non_null(find(&L, "not-measured", "cpu:perturb=1", "cpu:perturb=1#2"));
    explain_list_free(&L);
    free_result(r);
}

static void test_json_reader(void **st) {
    char v[64];
    const char *j = "{\"a\": {\"x\": [1, \"}\"], \"b\": 2}, \"b\" : \"q\\\"z\", \"n\": 3.5e-1, \"t\": true}";
    assert_int_equal(explain_json_get(j, "b", v, sizeof v), 0);
    assert_string_equal(v, "q\"z"); /* the top-level b, not a.b */
    assert_int_equal(explain_json_get(j, "n", v, sizeof v), 0);
    assert_string_equal(v, "3.5e-1");
    assert_int_equal(explain_json_get(j, "t", v, sizeof v), 0);
    assert_string_equal(v, "true");
    assert_int_equal(explain_json_get(j, "a", v, sizeof v), -1); /* not a scalar */
    assert_int_equal(explain_json_get(j, "zz", v, sizeof v), -1);
    assert_int_equal(explain_json_get("{\"a\": \"unterminated", "a", v, sizeof v), -1);
    assert_int_equal(explain_json_get("not json", "a", v, sizeof v), -1);
    char k[200];
    assert_int_equal(explain_layer_kernels(CPU_DESC("1", "winograd", "jit_wino_4x3:avx512_core"), "conv2", k,
                                           sizeof k),
                     1);
    assert_string_equal(k, "fwd jit_wino_4x3:avx512_core");
}

/* ---- report files --------------------------------------------------------- */

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = 0;
    return s;
}

static int count_entries(const char *dir, const char *substr) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, substr)) n++;
    closedir(d);
    return n;
}

static const char *HOSTILE = "<script>alert(\"x\")</script>&'|*";

static audit_result *report_result(audit_cfg *c) {
    audit_result *r = new_result();
    r->epochs_done = 1;
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int h = add_engine(r, HOSTILE, "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    int u = add_engine(r, "cuda", "cuda", NULL, 0);
    r->eng[u].available = 0;
    snprintf(r->eng[u].skip_reason, sizeof r->eng[u].skip_reason, "cuda: unavailable (no <driver>)");
    for (int i = 1; i < 3; i++) {
        r->eng[i].train_s[0] = 1.5;
        r->eng[i].images[0] = 1024;
        r->eng[i].test_acc[0] = 0.5;
        r->eng[i].timing.layer_s[0][0] = 0.01 * i;
        r->eng[i].timing.layer_calls[0][0] = 4;
    }
    audit_pair *p = add_pair(r, a, h);
    differ(r, p, "conv2.weight.grad", 1, 300);
    audit_pair *q = add_pair(r, ref, a);
    differ(r, q, "conv1.act", 1, 2);
    q->param_rel_l2[2] = q->param_rel_l2[3] = NAN; /* the reference ran 2 steps */
    r->total_s = 40, r->checks_s = 12.5, r->compare_s = 3;
    audit_cfg_default(c);
    c->engines = "reference,cpu,cpu:threads=1,cuda";
    c->out = NULL;
    return r;
}

static void make_tmpdir(char *dir, size_t cap) {
    snprintf(dir, cap, "/tmp/ls_test_report_XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void rm_dir(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_report_files(void **st) {
    audit_cfg c;
    audit_result *r = report_result(&c);
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    assert_int_equal(count_entries(dir, ".tmp"), 0); /* no temporary left */

    snprintf(path, sizeof path, "%s/report.html", dir);
    char *h = slurp(path);
    assert_non_null(h);
    assert_true(strncmp(h, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(h, "</html>\n")); /* complete */
    const char *env = strstr(h, "id=\"env\""), *ver = strstr(h, "id=\"verdicts\""), *evd = strstr(h, "id=\"evidence\"");
    assert_true(env && ver && evd && ver < evd && evd < env); /* DESIGN §7: verdicts, evidence, environment last */
    assert_non_null(strstr(h, "<svg"));
    assert_non_null(strstr(h, "Parameters: relative L2 difference per step"));
    /* per layer: relative error (max ULP is ~2e9 near any zero and told layers apart by nothing) */
    assert_non_null(strstr(h, "Relative error per layer and pair"));
    assert_non_null(strstr(h, "<details>")); /* the evidence folded */
    assert_non_null(strstr(h, "class=\"verdict "));
    /* self-contained: nothing fetched from elsewhere */
    assert_null(strstr(h, "src=\""));
    assert_null(strstr(h, "href=\"http"));
    assert_null(strstr(h, "<script"));
    assert_non_null(strstr(h, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"));
    assert_non_null(strstr(h, "no &lt;driver&gt;"));
    assert_non_null(strstr(h, "oneDNN 2.6.3"));
    assert_non_null(strstr(h, "only in threads")); /* a finding made it in */
    free(h);

    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_non_null(md);
    const char *e1 = strstr(md, "## Environment"), *e2 = strstr(md, "## Verdicts"), *e3 = strstr(md, "## Evidence");
    assert_true(e1 && e2 && e3 && e2 < e3 && e3 < e1);
    assert_null(strstr(md, "<script"));
    assert_null(strstr(md, "</script"));
    assert_non_null(strstr(md, "&lt;script>alert(\"x\")&lt;/script>&'\\|\\*")); /* tags, cells, emphasis */
    assert_non_null(strstr(md, "Files beside this report")); /* complete */
    /* the cost line counts the every-step checks apart from the comparison */
    assert_non_null(strstr(md, "Every-step checks: 12.50 s of 40.00 s total (31%"));
    assert_non_null(strstr(md, "Comparison cost: 3.00 s (8%)"));
    free(md);
    rm_dir(dir);
    free_result(r);
}

static audit_engine *ck_on(audit_result *r, int a, long steps, double worst);

static int count_occurrences(const char *s, const char *sub) {
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

/* report.html's chart `title` and the text from its <svg> to </svg>
 * (malloc'd; fails the test when there is no such chart). */
static char *html_chart(const char *dir, const char *title) {
    char path[128];
    snprintf(path, sizeof path, "%s/report.html", dir);
    char *h = slurp(path);
    assert_non_null(h);
    const char *t = strstr(h, title);
    if (!t) fail_msg("report.html: no chart '%s'", title);
    const char *s = t, *e = strstr(t, "</svg>");
    while (s > h && strncmp(s, "<svg", 4) != 0) s--;
    assert_non_null(e);
    char *svg = strndup(s, (size_t)(e - s));
    free(h);
    return svg;
}

/* The every-step checksum chart draws every engine of its table: an
 * engine whose exact check failed at every step (ratio inf, as the table
 * says) was left out of the chart and of its legend, the faulty engine
 * the one missing; now its points sit on an "inf" row above the plot. */
static void test_checksum_chart_draws_inf(void **st) {
    (void)st;
    audit_cfg c;
    audit_result *r = report_result(&c);
    for (int i = 1; i < 3; i++) {
        audit_engine *ae = ck_on(r, i, 4, i == 1 ? 0.3 : INFINITY);
        ae->ck_total = 4;
        ae->ck_step_ratio = malloc(4 * sizeof *ae->ck_step_ratio);
        assert_non_null(ae->ck_step_ratio);
        for (int k = 0; k < 4; k++) ae->ck_step_ratio[k] = i == 1 ? 0.1f * (float)(k + 1) : INFINITY;
    }
    c.checksums = 1;
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    char *svg = html_chart(dir, "worst checksum ratio per step");
    /* both engines drawn and in the legend; the failed one on the inf row */
    if (!strstr(svg, "<polyline data-series=\"s0\"") || !strstr(svg, "<polyline data-series=\"s1\"") ||
        !strstr(svg, "data-legend=\"s1\"") || !strstr(svg, ">inf</text>"))
        fail_msg("chart:\n%s", svg);
    assert_null(strstr(svg, "nan"));
    free(svg);
    /* run.json: those steps' ratios are null (JSON has no inf), as a step
     * not judged is; the steps listed apart tell them from those */
    char path[128];
    snprintf(path, sizeof path, "%s/run.json", dir);
    r->cfg = c;
    r->m = M;
    assert_int_equal(report_write_run_json(r, path), 0);
    char *js = slurp(path);
    assert_non_null(js);
    if (!strstr(js, "\"worst_ratio_per_step\": [null,null,null,null], \"worst_ratio_per_step_inf\": [1,2,3,4]"))
        fail_msg("run.json:\n%s", js);
    assert_int_equal(count_occurrences(js, "worst_ratio_per_step_inf"), 1); /* not for the engine within */
    free(js);
    rm_dir(dir);
    free_result(r);
}

/* A chart thinned to LINE_MAX_POINTS per series keeps each block's
 * extremes: one step over its bound among 700 (stride 3) was dropped
 * whenever it fell between the kept points, so the chart of a run with
 * one bad step showed a clean line while its table said 50. */
static void test_line_chart_keeps_spike(void **st) {
    (void)st;
    audit_cfg c;
    audit_result *r = report_result(&c);
    audit_engine *ae = ck_on(r, 1, 700, 50);
    ae->ck_total = 700;
    ae->ck_step_ratio = malloc(700 * sizeof *ae->ck_step_ratio);
    assert_non_null(ae->ck_step_ratio);
    for (int k = 0; k < 700; k++) ae->ck_step_ratio[k] = k == 1 ? 50.0f : 0.2f;
    c.checksums = 1;
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    char *svg = html_chart(dir, "worst checksum ratio per step");
    /* y from 1e-1 (290) to 1e2 (30): 50 is drawn at y 56.1, 0.2 at 263.9 */
    const char *pts = strstr(svg, "points=\"");
    assert_non_null(pts);
    pts += strlen("points=\"");
    double x, y, ymin = 1e9;
    int n = 0, used;
    while (sscanf(pts, "%lf,%lf %n", &x, &y, &used) == 2) {
        if (y < ymin) ymin = y;
        pts += used;
        n++;
    }
    if (n > 2 * 300 || ymin > 57 || ymin < 55) fail_msg("%d point(s), highest at y %.1f:\n%.2000s", n, ymin, svg);
    free(svg);
    rm_dir(dir);
    free_result(r);
}

/* A tensor NaN in one engine and finite in the other (fault
 * loss_grad_nan_once: every element from step 7 on): compare keeps such
 * elements out of every error figure, so its row read rel. L2 0, max ULP
 * 0 and "0 (rest: +0 vs -0)", a sign-of-zero difference; now the count of
 * NaN/inf-vs-not elements stands there, in report.md and run.json. */
static void test_nonfinite_not_signed_zero(void **st) {
    (void)st;
    audit_cfg c;
    audit_result *r = report_result(&c);
    audit_pair *p = &r->pair[0];
    int s = audit_slot(r, "fc1.act");
    differ(r, p, "fc1.act", 2, 0);
    p->slot[s].max_rel = 0;
    p->slot[s].min_frac_equal = 0;
    p->slot[s].n_nonfinite = 40;
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_non_null(md);
    const char *row = strstr(md, "| fc1.act |");
    assert_non_null(row);
    const char *end = strchr(row, '\n');
    const char *z = strstr(row, "+0 vs -0");
    if (!strstr(row, "0 (40 NaN/inf vs not)") || (z && z < end))
        fail_msg("row: %.*s", (int)(end - row), row);
    free(md);
    snprintf(path, sizeof path, "%s/run.json", dir);
    r->cfg = c;
    r->m = M;
    assert_int_equal(report_write_run_json(r, path), 0);
    char *js = slurp(path);
    assert_non_null(js);
    assert_non_null(strstr(js, "\"tensor\": \"fc1.act\", \"phase\": \"forward\""));
    assert_non_null(strstr(strstr(js, "\"tensor\": \"fc1.act\""), "\"nonfinite_mismatch\": 40"));
    assert_null(strstr(js, "params_rel_l2_end_inf"));
    free(js);
    /* parameters NaN on one side at the end: null in JSON, as "not compared" is, and said apart */
    p->param_rel_l2[3] = INFINITY;
    assert_int_equal(report_write_run_json(r, path), 0);
    js = slurp(path);
    assert_non_null(js);
    if (!strstr(js, "\"params_rel_l2_end\": null, \"params_rel_l2_end_inf\": true")) fail_msg("run.json:\n%s", js);
    free(js);
    rm_dir(dir);
    free_result(r);
}

/* The reference trains only at its own steps: with none in epoch 2 its
 * warm epoch read "0.000" s in report.md (a 0 s epoch), 0 in run.json. */
static void test_warm_epoch_without_steps(void **st) {
    (void)st;
    audit_cfg c;
    audit_result *r = report_result(&c);
    r->epochs_done = 2;
    for (int i = 0; i < 3; i++) {
        r->eng[i].train_s[0] = 1.5, r->eng[i].images[0] = 1024;
        r->eng[i].train_s[1] = i ? 1.25 : 0, r->eng[i].images[1] = i ? 1024 : 0;
    }
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_non_null(md);
    if (!strstr(md, "| reference | 1.500 | – | – |") || !strstr(md, "| cpu | 1.500 | 1.250 | 819 |"))
        fail_msg("report.md:\n%s", strstr(md, "### Time and memory"));
    free(md);
    /* a NaN test loss (NaN logits: fault loss_grad_nan_once) is said in words, not "loss nan" */
    r->eng[1].test_acc[1] = 0.0625, r->eng[1].test_loss[1] = NAN;
    assert_int_equal(report_write(dir, &c, &M, NULL, r), 0);
    md = slurp(path);
    assert_non_null(md);
    if (strstr(md, "loss nan") || !strstr(md, "6.25% (loss not finite)"))
        fail_msg("report.md:\n%s", strstr(md, "### Test accuracy per epoch"));
    free(md);
    rm_dir(dir);
    free_result(r);
}

/* The seed loop's margin table: a pair that classified no test image
 * differently read 0.0% in every bin of its "flipped" row, shares of no
 * image that add up to 0%; now "–" there, and the all-images row as before. */
static void test_margins_no_flips(void **st) {
    (void)st;
    audit_cfg c;
    audit_result *r = report_result(&c);
    r->drift_mode = MODE_FREE;
    static seeds_result S;
    memset(&S, 0, sizeof S);
    static uint8_t pred[4] = {1, 2, 3, 4};
    static double margin[4] = {0.05, 0.2, 0.5, 2};
    S.n_seeds = 1, S.epochs = 1, S.n_test = 4, S.seed0 = 42, S.n_engines = 2, S.n_pairs = 1;
    for (int i = 0; i < 2; i++) {
        snprintf(S.eng[i].label, sizeof S.eng[i].label, "%s", i ? "cpu:threads=1" : "cpu");
        S.eng[i].available = 1;
        S.eng[i].missing_seed = -1;
        S.eng[i].pred[0] = pred;
        S.eng[i].margin[0] = margin;
    }
    S.pair[0].a = 0, S.pair[0].b = 1;
    r->seeds = &S;
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    r->seeds = NULL;
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_non_null(md);
    if (!strstr(md, "| cpu vs cpu:threads=1: flipped | 0 | – | – | – | – | – | – | – | – |") ||
        !strstr(md, "| cpu: all images | 4 | 0.0% | 0.0% | 0.0% | 25.0% | 25.0% | 25.0% | 25.0% | 0.0% |"))
        fail_msg("report.md:\n%s", strstr(md, "### Margins"));
    free(md);
    rm_dir(dir);
    free_result(r);
}

static void test_report_write_failures(void **st) {
    audit_cfg c;
    audit_result *r = report_result(&c);
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);

    /* the "directory" is a file */
    snprintf(path, sizeof path, "%s/plainfile", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(report_write(path, &c, &M, NULL, r), LS_EIO);
    assert_non_null(strstr(ls_errmsg(), path));

    /* the directory does not exist */
    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(report_write(path, &c, &M, NULL, r), LS_EIO);
    assert_non_null(strstr(ls_errmsg(), path));

    /* report.html cannot be renamed into place (a directory holds its name):
     * the error names it and no temporary stays behind */
    snprintf(path, sizeof path, "%s/report.html", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    char sub[160];
    snprintf(sub, sizeof sub, "%s/x", path);
    assert_int_equal(mkdir(sub, 0755), 0); /* non-empty: rename(2) over it fails even as root */
    assert_int_equal(report_write(dir, &c, &M, NULL, r), LS_EIO);
    assert_non_null(strstr(ls_errmsg(), "report.html"));
    assert_int_equal(count_entries(dir, ".tmp"), 0);

    /* an unwritable directory (meaningless as root, who may write anyway) */
    if (geteuid() != 0) {
        char ro[128];
        snprintf(ro, sizeof ro, "%s/ro", dir);
        assert_int_equal(mkdir(ro, 0555), 0);
        assert_int_equal(report_write(ro, &c, &M, NULL, r), LS_EIO);
        assert_non_null(strstr(ls_errmsg(), ro));
    }
    rm_dir(dir);
    free_result(r);
}


/* A partial run says how far it got, everywhere (a user review): a stop
 * before the first drift step is "before drift step 1", never "steps
 * 1..0"; the attribution steps are those that ran; an engine that died is
 * "failed", never "not run", its accuracy is no 0.00% and no McNemar line
 * compares it; a pair compared after no step claims no equality; the
 * "Compared:" sentence names no reference check without a reference. */
static char *console_of(audit_result *r) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    r->cfg.out = f;
    verdict_table vt;
    explain_verdicts(&vt, r, &M);
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    report_print_verdicts(r, &vt, &L);
    report_print_failures(r);
    explain_list_free(&L);
    fclose(f);
    r->cfg.out = NULL;
    return text;
}

/* Every engine listed died (both children of cpu,cpu:threads=1 killed at
 * step 16): the next line advised "or audit without it: --engines " with
 * nothing after it. */
static void test_all_engines_died_next_line(void **st) {
    audit_cfg c;
    audit_result *r = report_result(&c);
    r->cfg = c;
    r->n_engines = 3; /* reference, cpu, cpu:threads=1: the cuda one left out */
    for (int i = 0; i < r->n_engines; i++) {
        r->eng[i].failed = 1;
        r->eng[i].failed_step = 16;
        snprintf(r->eng[i].fail_reason, sizeof r->eng[i].fail_reason, "died at step 16 (signal 9, Killed)");
    }
    r->n_failed = 3;
    verdict_table vt;
    explain_verdicts(&vt, r, &M);
    headline h;
    headline_make(&h, r, &vt);
    if (strstr(h.next, "--engines") || !strstr(h.next, "every engine listed died"))
        fail_msg("next: %s", h.next);
    free_result(r);
}

static void test_partial_run_wording(void **st) {
    audit_cfg c;
    audit_result *r = report_result(&c);
    r->cfg = c;
    r->attribution_steps = 1; /* of 2 planned: the stop came after the first */
    r->interrupted = 2;
    r->interrupted_step = 0;
    /* engine 2 died in the attribution phase: never evaluated, its pairs never compared after a step */
    audit_engine *dead = &r->eng[2];
    dead->failed = 1;
    dead->failed_step = 2;
    dead->failed_in_attr = 1;
    snprintf(dead->fail_reason, sizeof dead->fail_reason, "died at attribution step 2 (signal 9, Killed)");
    dead->test_acc[0] = dead->test_loss[0] = NAN;
    r->n_failed = 1;
    r->abandoned_step = 3; /* (as if another death had abandoned a drift step) */
    for (int pi = 0; pi < r->n_pairs; pi++)
        if (r->pair[pi].a == 2 || r->pair[pi].b == 2) {
            r->pair[pi].first_diff_step = 0;
            for (long k = 0; k < r->total_steps; k++) r->pair[pi].param_rel_l2[k] = NAN;
        }

    verdict_table vt;
    explain_verdicts(&vt, r, &M);
    headline h;
    headline_make(&h, r, &vt);
    if (!strstr(h.line, "VERDICT: incomplete — interrupted before drift step 1 of 4; ") ||
        !strstr(h.line, "failed or were not run"))
        fail_msg("headline: %s", h.line);
    assert_non_null(strstr(h.next, "scripts/gpu-check.sh"));

    char *con = console_of(r);
    if (strstr(con, "steps 1..0") || strstr(con, "(free mode, 4 steps)") || strstr(con, "was not run: died") ||
        !strstr(con, "INTERRUPTED before drift step 1 of 4") || !strstr(con, "covers the 1 attribution step(s) only") ||
        !strstr(con, "on 1 attribution step(s)") || !strstr(con, "0 of 4 steps: interrupted") ||
        !strstr(con, " failed: died at attribution step 2") || !strstr(con, "weights not compared after any step") ||
        !strstr(con, "failed in the attribution phase: no drift step compared") ||
        !strstr(con, "step 3 was abandoned for every engine"))
        fail_msg("console:\n%s", con);
    free(con);

    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_non_null(md);
    if (strstr(md, "steps 1..0") || strstr(md, "| 0.00% (loss") || strstr(md, "McNemar p = 0") ||
        strstr(md, "was not run: died") || strstr(md, "bitwise equal at every step |") ||
        !strstr(md, "INTERRUPTED by signal 2 before drift step 1 of 4") ||
        !strstr(md, "for 0 of 4 steps (interrupted)") || !strstr(md, "on 1 attribution step(s)") ||
        !strstr(md, "– (failed: not evaluated)") || !strstr(md, "not compared (") ||
        !strstr(md, "not compared after any step") || !strstr(md, "Step 3 was abandoned for every engine"))
        fail_msg("report.md: %d%d%d%d%d %d%d%d%d%d%d", !!strstr(md, "steps 1..0"), !!strstr(md, "| 0.00% (loss"),
                 !!strstr(md, "McNemar p = 0"), !!strstr(md, "was not run: died"),
                 !!strstr(md, "bitwise equal at every step |"),
                 !strstr(md, "INTERRUPTED by signal 2 before drift step 1 of 4"),
                 !strstr(md, "for 0 of 4 steps (interrupted)"), !strstr(md, "on 1 attribution step(s)"),
                 !strstr(md, "– (failed: not evaluated)"), !strstr(md, "not compared ("),
                 !strstr(md, "not compared after any step") || !strstr(md, "Step 3 was abandoned for every engine"));
    free(md);
    rm_dir(dir);

    /* no epoch completed: the timing table says "–", never "nan" */
    r->epochs_done = 0;
    make_tmpdir(dir, sizeof dir);
    assert_int_equal(report_write(dir, &c, &M, NULL, r), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    md = slurp(path);
    assert_non_null(md);
    if (strstr(md, "| nan |")) fail_msg("report.md with no epoch:\n%s", strstr(md, "| nan |"));
    free(md);
    rm_dir(dir);
    r->epochs_done = 1;

    /* no reference listed: the sentence claims no reference check; a repeat is counted apart */
    r->eng[0].available = 0;
    r->eng[0].is_ref = 1;
    snprintf(r->eng[0].skip_reason, sizeof r->eng[0].skip_reason, "not listed");
    r->eng[2].repeat_of = 1;
    r->interrupted = 0;
    make_tmpdir(dir, sizeof dir);
    assert_int_equal(report_write(dir, &c, &M, NULL, r), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    md = slurp(path);
    assert_non_null(md);
    if (strstr(md, "every layer checked against an exact (MPFR) reference on") ||
        !strstr(md, "no exact reference listed, so no layer was checked against one") ||
        !strstr(md, "Compared: 1 engine(s) (and 1 repeat(s) of them)"))
        fail_msg("report.md without a reference:\n%s", md);
    free(md);
    rm_dir(dir);
    free_result(r);
}

/* The engine table's header says what the reference computes: "MPFR, no
 * rounding" was printed for reference:mode=fp32cr (every operation rounded
 * to fp32) and reference:tf32=on (operands rounded to TF32) too. */
static void test_reference_described(void **st) {
    static const struct {
        const char *spec, *want;
        int fp32cr;
    } cases[] = {
        {"reference", "engines vs the exact reference (reference: MPFR, no rounding) on", 0},
        {"reference:mode=fp32cr",
         "engines vs the reference (reference:mode=fp32cr: MPFR, each operation's result correctly rounded to fp32) on",
         1},
        {"reference:tf32=on:tf32round=rz",
         "engines vs the reference (reference:tf32=on:tf32round=rz: MPFR, operands rounded to TF32 (rz), no other "
         "rounding) on",
         0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        audit_result *r = new_result();
        r->epochs_done = 1;
        int ref = add_engine(r, cases[c].spec, cases[c].spec, REF_DESC, 1);
        r->eng[ref].ref_fp32cr = cases[c].fp32cr;
        int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
        (void)add_pair(r, ref, a);
        audit_cfg_default(&r->cfg);
        char *con = console_of(r);
        if (!strstr(con, cases[c].want)) fail_msg("%s: want '%s':\n%s", cases[c].spec, cases[c].want, con);
        free(con);
        free_result(r);
    }
}

/* The console's pair table: the verdict column as wide as its widest
 * verdict ("differs (not judged)" ran into the next column). */
static void test_pair_table_aligned(void **st) {
    audit_result *r = new_result();
    r->epochs_done = 1;
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:threads=1", "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    audit_pair *p = add_pair(r, a, b);
    differ(r, p, "conv2.weight.grad", 1, 300);
    audit_cfg_default(&r->cfg);
    r->cfg.engines = "cpu,cpu:threads=1";
    char *con = console_of(r);
    const char *hdr = strstr(con, "  pair "), *row = strstr(con, "differs (not judged)");
    if (!hdr || !row) fail_msg("console:\n%s", con);
    const char *rl = row;
    while (rl > con && rl[-1] != '\n') rl--;
    long col = strstr(hdr, "what differs") - hdr, got = row + strlen("differs (not judged)") + 1 - rl;
    if (col != got) fail_msg("'what differs' at column %ld, the row's text at %ld:\n%s", col, got, con);
    free(con);
    /* the fully compared steps are those the driver compared: make run's 705 steps under --audit-every 1000
     * compare 1 and the partial batches 235, 470 and 705 (the line said "the first, then every 1000") */
    static const long mr[] = {1, 235, 470, 705}, many[] = {1, 2, 4, 8, 12, 16, 20, 24, 28, 32};
    r->cfg.audit_every = 1000;
    r->full_steps = malloc(sizeof many);
    assert_non_null(r->full_steps);
    memcpy(r->full_steps, mr, sizeof mr);
    r->n_full_steps = 4;
    con = console_of(r);
    if (!strstr(con, "every tensor at fully compared steps (steps 1, 235, 470 and 705)"))
        fail_msg("fully compared steps:\n%s", con);
    free(con);
    /* many: runs of consecutive steps joined, the middle left out, the count */
    memcpy(r->full_steps, many, sizeof many);
    r->n_full_steps = 10;
    r->cfg.audit_every = 4;
    con = console_of(r);
    if (!strstr(con, "every tensor at fully compared steps (steps 1-2, 4, 8, 12, ..., 28, 32 (10 in all))"))
        fail_msg("fully compared steps, many:\n%s", con);
    free(con);
    free_result(r);
}

/* A reference listed, but no step judged against it (--attribution-steps
 * 0 and no shadow replay): the headline says that, and what to run, not
 * "tensors no rule could judge" (there were rules; nothing ran them). */
static void test_unchecked_without_reference_steps(void **st) {
    audit_result *r = new_result();
    r->epochs_done = 1;
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    (void)add_pair(r, ref, a);
    audit_cfg_default(&r->cfg);
    r->cfg.engines = "reference,cpu";
    r->cfg.eval = 0;
    r->last_step = 3;
    audit_engine *ae = &r->eng[a];
    assert_int_equal(every_step_init(ae, 3), 0);
    ae->ck_steps = 3; /* every step held its checksums */
    for (int k = 0; k < 3; k++) ae->ck_step_ratio[k] = 0.1f;
    verdict_table v;
    explain_verdicts(&v, r, &M);
    assert_int_equal(v.unchecked, 1);
    assert_int_equal(v.unchecked_noref, 1);
    headline h;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_UNCHECKED);
    if (!strstr(h.line, "no step of 1 engine(s) was judged per element against the reference") ||
        !strstr(h.line, "(this run had no attribution step and no shadow replay)") ||
        strstr(h.line, "no rule could judge") || !strstr(h.next, "--attribution-steps 2"))
        fail_msg("headline: %s\n%s", h.line, h.next);
    /* a shadow replay ran, of another engine (a shadow replays one engine at a time): the line must not
     * say there was none (it did, beside "on 0 attribution step(s) and 1 shadow replay(s)") */
    r->n_shadows = 1;
    headline_make(&h, r, &v);
    if (strstr(h.line, "no shadow replay") ||
        !strstr(h.line, "(this run's 0 attribution step(s) and 1 shadow replay(s) judged other engines)") ||
        !strstr(h.next, "--attribution-steps 2"))
        fail_msg("headline, a shadow of another engine: %s\n%s", h.line, h.next);
    /* the engine is a recording: --attribution-steps cannot reach it (recordings sit out the attribution
     * phase), a plan with more full steps can: the next step says that */
    ae->recorded = 1;
    explain_verdicts(&v, r, &M);
    headline_make(&h, r, &v);
    if (!strstr(h.line, "(a recording sits out the attribution phase, and this run's 1 shadow replay(s) replayed "
                        "other engines)") ||
        strstr(h.next, "--attribution-steps") || !strstr(h.next, "next: record again with a full step per recording"))
        fail_msg("headline, an unchecked recording: %s\n%s", h.line, h.next);
    free_result(r);
    /* no reference listed: that is what the line says, and what to list */
    r = new_result();
    r->epochs_done = 1;
    a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_cfg_default(&r->cfg);
    r->cfg.engines = "cpu";
    r->cfg.eval = 0;
    r->last_step = 3;
    ae = &r->eng[a];
    assert_int_equal(every_step_init(ae, 3), 0);
    ae->ck_steps = 3;
    for (int k = 0; k < 3; k++) ae->ck_step_ratio[k] = 0.1f;
    explain_verdicts(&v, r, &M);
    assert_int_equal(v.unchecked_noref, 1);
    headline_make(&h, r, &v);
    if (!strstr(h.line, "no reference listed") || !strstr(h.next, "reference listed first") ||
        !strstr(h.line, "the every-step checks found nothing"))
        fail_msg("headline without a reference: %s\n%s", h.line, h.next);
    /* --no-checksums: nothing judged any step, and the line must not say the checks found nothing */
    r->cfg.checksums = 0;
    ae->ck_steps = 0;
    explain_verdicts(&v, r, &M);
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_UNCHECKED);
    if (strstr(h.line, "found nothing") || !strstr(h.line, "--no-checksums"))
        fail_msg("headline without a reference or checksums: %s", h.line);
    free_result(r);
}

/* "ok" covers what was checked: drift steps or evaluations that nothing
 * checked (no every-step checksums, or checks that stopped, and no
 * per-element check there) make the verdict "not fully checked", naming
 * the engine, the steps and why; unchecked is never ok. */
static void test_ok_names_unchecked_drift(void **st) {
    audit_result *r = new_result();
    add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_engine *ae = &r->eng[a];
    audit_cfg_default(&r->cfg);
    r->cfg.checksums = 0;
    r->cfg.eval = 0;
    r->last_step = 4;
    assert_int_equal(every_step_init(ae, 4), 0);
    verdict_table v;
    memset(&v, 0, sizeof v);
    headline h;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_UNCHECKED);
    if (!strstr(h.line, "VERDICT: not fully checked — nothing checked cpu's 4 of 4 drift steps (the first: step 1): "
                        "--no-checksums"))
        fail_msg("headline: %s", h.line);
    r->cfg.checksums = 1;
    ae->ck_steps = 4; /* checked every step: the plain ok */
    for (int k = 0; k < 4; k++) ae->ck_step_ratio[k] = 0.1f;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_OK);
    if (!strstr(h.line, "VERDICT: ok — every engine listed ran, every step was checked (no evaluation: --no-eval)"))
        fail_msg("headline: %s", h.line);
    /* cpu:algo=winograd on a CPU without oneDNN's Winograd kernels ran direct (describe()'s algo_requested):
     * it ran, but not what was listed, and the ok line says so on the first screen */
    char *plain_desc = ae->describe;
    ae->describe = strdup("{\"engine\":\"cpu\",\"algo\":\"direct\",\"algo_requested\":\"winograd\"}");
    snprintf(ae->label, sizeof ae->label, "cpu:algo=winograd");
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_OK);
    if (!strstr(h.line, "VERDICT: ok — every engine listed ran (cpu:algo=winograd as direct: no winograd kernel here, "
                        "see the note), every step was checked"))
        fail_msg("fallback: headline: %s", h.line);
    free(ae->describe);
    ae->describe = plain_desc;
    snprintf(ae->label, sizeof ae->label, "cpu");
    /* its checks stopped at step 2 (LS_EUNAVAIL); a shadow replay checked step 4: steps 2-3 unchecked */
    ae->ck_steps = 1, ae->ck_have = 0;
    ae->ck_step_ratio[1] = ae->ck_step_ratio[2] = ae->ck_step_ratio[3] = NAN;
    ae->ck_step_elem[3] = 1;
    snprintf(ae->ck_none, sizeof ae->ck_none, "they stopped answering at step 2");
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_UNCHECKED);
    if (!strstr(h.line, "nothing checked cpu's drift steps 2-3 (2 of 4): they stopped answering at step 2"))
        fail_msg("stopped: headline: %s", h.line);
    ae->ck_step_elem[3] = 0;
    headline_make(&h, r, &v);
    if (!strstr(h.line, "nothing checked cpu's drift steps 2-4 (3 of 4)")) fail_msg("no shadow: headline: %s", h.line);
    /* --fail-on unchecked gates on those steps whatever kind the line took: a SUSPECT elsewhere (another
     * engine's sharper tier) or an engine that did not run outranks "not fully checked" on the line, and
     * the gate exited 0 with steps 2-4 judged by nothing (reference,cpu:fault=ck_lost_step7_act_corrupt_step8,
     * cpu:fault=fc1_out_1ulp --fail-on unchecked: VERDICT SUSPECT, exit 0) */
    assert_true(audit_conditions(r, &v, &h) & AUDIT_FAIL_UNCHECKED);
    v.suspects = 1;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_SUSPECT);
    assert_true(audit_conditions(r, &v, &h) & AUDIT_FAIL_UNCHECKED);
    v.suspects = 0, v.problems = 1;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_PROBLEM);
    assert_true(audit_conditions(r, &v, &h) & AUDIT_FAIL_UNCHECKED);
    v.problems = 0;
    r->interrupted = 1, r->interrupted_step = 4;
    headline_make(&h, r, &v);
    assert_int_equal(h.kind, HEADLINE_INCOMPLETE);
    assert_true(audit_conditions(r, &v, &h) & AUDIT_FAIL_UNCHECKED);
    r->interrupted = 0, r->interrupted_step = 0;
    /* an evaluation its checks did not judge */
    ae->ck_steps = 4, ae->ck_have = 1, ae->ck_none[0] = 0;
    for (int k = 0; k < 4; k++) ae->ck_step_ratio[k] = 0.1f;
    r->cfg.eval = 1, r->epochs_done = 2, ae->ck_eval_epochs = 1;
    headline_make(&h, r, &v);
    if (!strstr(h.line, "nothing checked cpu's 1 of 2 evaluations")) fail_msg("evaluation: headline: %s", h.line);
    ae->ck_eval_epochs = 2;
    /* an isolated drift: every step checked per element against the reference, no checksums needed */
    r->cfg.checksums = 0, r->cfg.eval = 0;
    for (int k = 0; k < 4; k++) ae->ck_step_elem[k] = 1;
    headline_make(&h, r, &v);
    if (!strstr(h.line, "VERDICT: ok — every engine listed ran")) fail_msg("isolated: headline: %s", h.line);
    assert_false(audit_conditions(r, &v, &h) & AUDIT_FAIL_UNCHECKED);
    /* --steps 0: no drift step, no epoch ended, nothing evaluated: "and evaluation was checked" claimed a
     * check of something that did not run */
    r->cfg.eval = 1, r->epochs_done = 0, r->last_step = 0;
    headline_make(&h, r, &v);
    if (strstr(h.line, "and evaluation was checked") || !strstr(h.line, "(no evaluation: no drift step ran)"))
        fail_msg("--steps 0: headline: %s", h.line);
    free_result(r);
}

/* Checks that stop answering at a step's update (LS_EUNAVAIL there): the step's STEP vector was judged,
 * its update never (nor by the next step's continuity, which no vector judges), so the step is not
 * counted as checked.  It was: a cpu engine whose checks answered LS_EUNAVAIL from step 7's update on
 * read 'STOPPED after 7 of 10 drift steps' and 'nothing checked ... drift steps 8-9 (2 of 10)'. */
static void test_ck_stop_at_update_uncounts_step(void **st) {
    static const engine_i none = {0}; /* no checksums entry: LS_EUNAVAIL */
    engine e;
    memset(&e, 0, sizeof e);
    e.iface = &none;
    snprintf(e.spec.spec, sizeof e.spec.spec, "cpu");
    audit_engine *ae = calloc(1, sizeof *ae);
    assert_non_null(ae);
    assert_int_equal(every_step_init(ae, 4), 0);
    ae->ck_steps = 3;
    for (int k = 0; k < 3; k++) ae->ck_step_ratio[k] = 0.1f;
    double vec[4] = {0};
    assert_int_equal(every_step_stage(&e, ae, &M, CK_STAGE_UPDATE, 1, NULL, NULL, NULL, 3, 0, vec), 0);
    assert_int_equal(ae->ck_have, 0);
    assert_int_equal(ae->ck_steps, 2);
    assert_true(isnan(ae->ck_step_ratio[2]));
    assert_false(isnan(ae->ck_step_ratio[1]));
    if (!strstr(ae->ck_none, "they stopped answering at step 3's update")) fail_msg("ck_none: %s", ae->ck_none);
    /* at a STEP stage the steps before it stay counted */
    assert_int_equal(every_step_init(ae, 4), 0);
    ae->ck_steps = 2;
    for (int k = 0; k < 2; k++) ae->ck_step_ratio[k] = 0.1f;
    assert_int_equal(every_step_stage(&e, ae, &M, CK_STAGE_STEP, 1, NULL, NULL, NULL, 3, 0, vec), 0);
    assert_int_equal(ae->ck_steps, 2);
    assert_false(isnan(ae->ck_step_ratio[1]));
    free(ae->ck_step_ratio);
    free(ae->ck_step_sharp);
    free(ae->ck_step_unjudged);
    free(ae->ck_step_elem);
    free(ae->ck_step_op);
    free(ae);
}

/* The first finding is read as where the fault begins: among one engine's
 * PROBLEMs the earliest in the run comes first, whatever the rule order
 * (every-step checksums before the per-element bounds).  cpu: a checksum
 * violation at step 2, a per-element excess at conv2 first over its bound at
 * step 1 (worst at step 2), a state round trip that failed at step 2 (the
 * state read before it, after step 1), an evaluation checksum (after the last
 * step); a second engine's checksum at step 4 keeps its place. */
static void test_earliest_problem_first(void **st) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    int a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    int b = add_engine(r, "cpu:threads=1", "cpu:threads=1", CPU_DESC("1", "direct", "jit:avx512_core"), 0);
    audit_pair *p = add_pair(r, ref, a);
    int sc = audit_slot(r, "conv2.act");
    differ(r, p, "conv2.act", 1, 1e5);
    p->slot[sc].max_bound_ratio = 50;
    p->slot[sc].n_bounded = p->slot[sc].n_check_steps = 2;
    p->slot[sc].n_over = 3;
    p->slot[sc].first_over_step = 1;
    p->slot[sc].worst_ratio_step = 2;
    audit_engine *ea = &r->eng[a], *eb = &r->eng[b];
    ea->ck_steps = ea->ck_viol_checks = 1;
    ea->ck_first_step = 2;
    int fc1 = 0;
    while (fc1 < M.n_layers && strcmp(M.layers[fc1].name, "fc1") != 0) fc1++;
    assert_true(fc1 < M.n_layers);
    ea->ck_first.layer = fc1;
    ea->ck_first.phase = CKP_FORWARD;
    ea->ck_first.ratio = 4;
    snprintf(ea->ck_first.what, sizeof ea->ck_first.what, "fc1 forward, sample 2");
    eb->ck_steps = eb->ck_viol_checks = 1;
    eb->ck_first_step = 4;
    eb->ck_first.layer = fc1;
    eb->ck_first.phase = CKP_FORWARD;
    eb->ck_first.ratio = 2;
    snprintf(eb->ck_first.what, sizeof eb->ck_first.what, "fc1 forward, sample 1");
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    assert_true(L.n >= 3);
    /* the rule order would have cpu's checksum (step 2) first, then cpu:threads=1's, then the bound (which
     * began at step 1: its worst step, 2, alone would tie with the checksum and keep the rule order) */
    assert_int_equal(L.f[0].pair, 0); /* the per-element finding (by its error's signature: reduced precision) */
    assert_string_equal(L.f[0].layer, "conv2 (forward)");
    assert_int_equal(L.f[0].step, 2); /* the step it names stays the worst's */
    assert_string_equal(L.f[1].rule, "checksum");
    assert_string_equal(L.f[1].a, "cpu:threads=1"); /* the other engine's place */
    assert_string_equal(L.f[2].rule, "checksum");
    assert_string_equal(L.f[2].a, "cpu");
    explain_list_free(&L);

    /* the state cpu trained step 2 with was not the one it reported after step 1: before step 2's checksum,
     * after the excess at step 1 */
    ea->rt_checks = 1;
    ea->rt_fail_step = 2;
    snprintf(ea->rt_first, sizeof ea->rt_first, "fc1.weight");
    assert_int_equal(explain_run(&L, r, &M), 0);
    assert_int_equal(L.f[0].pair, 0);
    assert_string_equal(L.f[1].a, "cpu:threads=1");
    assert_string_equal(L.f[2].rule, "state-roundtrip");
    assert_string_equal(L.f[3].rule, "checksum");
    assert_string_equal(L.f[3].a, "cpu");
    explain_list_free(&L);

    /* cpu's checksum violation in the evaluation after epoch 1 (the whole run here: 4 steps, the epoch's
     * length not known; its step is 0): after every step, not before them */
    ea->ck_first_step = 0;
    ea->ck_first_eval_epoch = 1;
    ea->ck_first.phase = CKP_EVAL;
    assert_int_equal(explain_run(&L, r, &M), 0);
    assert_int_equal(L.f[0].pair, 0);
    assert_string_equal(L.f[1].a, "cpu:threads=1");
    assert_string_equal(L.f[2].rule, "state-roundtrip");
    assert_string_equal(L.f[3].rule, "checksum");
    assert_string_equal(L.f[3].a, "cpu");
    assert_non_null(strstr(L.f[3].title, "evaluation after epoch 1"));
    explain_list_free(&L);
    free_result(r);
}

/* A reference and a cpu engine whose every tensor was judged within its
 * bound (0.25) at 2 steps; *a: the cpu engine's index. */
static audit_result *ref_cpu_within(int *a) {
    audit_result *r = new_result();
    int ref = add_engine(r, "reference", "reference", REF_DESC, 1);
    *a = add_engine(r, "cpu", "cpu", CPU_DESC("2", "direct", "jit:avx512_core"), 0);
    audit_pair *p = add_pair(r, ref, *a);
    for (int s = 0; s < r->n_slots; s++) {
        p->slot[s].n_check_steps = p->slot[s].n_bounded = 2;
        p->slot[s].max_bound_ratio = 0.25;
    }
    return r;
}

/* The evaluation against the reference with logits whose propagated bound
 * is +inf (bounds_eval_layer: fp32 may overflow on the way): counted as a
 * tensor judged in part, the engine "unchecked (partly)", an INFO finding
 * fp32-overflow at the evaluation, the eval-vs-reference finding says how
 * many were not judged; all of them: no "within" claimed. */
static void test_eval_unjudged_counted(void **st) {
    (void)st;
    int a;
    audit_result *r = ref_cpu_within(&a);
    r->n_classes = 10;
    audit_engine *ae = &r->eng[a];
    ae->ev_ref_images = 4;
    ae->ev_ref_epoch = 1;
    ae->ev_ref_worst = 0.5;
    ae->ev_ref_unjudged = 7;
    verdict_table v;
    explain_verdicts(&v, r, &M);
    assert_int_equal(v.n_eng, 1);
    assert_string_equal(v.e[0].verdict, "unchecked (partly)");
    assert_int_equal(v.e[0].n_compared, r->n_slots + 1);
    assert_int_equal(v.e[0].n_partial, 1);
    assert_int_equal(v.e[0].n_unjudged, 7);
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = NULL;
    for (int i = 0; i < L.n; i++)
        if (strcmp(L.f[i].rule, "fp32-overflow") == 0 && strcmp(L.f[i].phase, "evaluation") == 0) f = &L.f[i];
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_INFO);
    if (!strstr(f->title, "7 of 40 logit(s)")) fail_msg("title: %s", f->title);
    f = find(&L, "eval-vs-reference", NULL, NULL);
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_OK);
    if (!strstr(f->title, "7 logit(s) not judged")) fail_msg("title: %s", f->title);
    explain_list_free(&L);
    /* every logit not judged: nothing within */
    ae->ev_ref_unjudged = 40;
    ae->ev_ref_worst = 0;
    assert_int_equal(explain_run(&L, r, &M), 0);
    f = find(&L, "eval-vs-reference", NULL, NULL);
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_INFO);
    assert_null(strstr(f->title, "within"));
    explain_list_free(&L);
    /* none: as before (the coverage is the training tensors') */
    ae->ev_ref_unjudged = 0;
    explain_verdicts(&v, r, &M);
    assert_string_equal(v.e[0].verdict, "within bound");
    assert_int_equal(v.e[0].n_compared, r->n_slots);
    free_result(r);
}

/* engine a of r with every-step checks on: `steps` steps checked, 100
 * relations, the worst at `worst` of its tolerance */
static audit_engine *ck_on(audit_result *r, int a, long steps, double worst) {
    r->cfg.checksums = 1;
    audit_engine *ae = &r->eng[a];
    ae->ck_have = 1;
    ae->ck_steps = steps;
    ae->ck_relations = 100;
    ae->ck_worst = worst;
    return ae;
}

/* Every-step checksum relations not judged (fp32 may overflow there:
 * checks/checksums.c, ck_rel_unbound): the engine is judged in part
 * ("unchecked (partly)", one more check compared), an INFO fp32-overflow
 * finding says how many, and the headline is "not fully checked", not ok;
 * none: as before. */
static void test_checksums_unjudged_counted(void **st) {
    (void)st;
    int a;
    audit_result *r = ref_cpu_within(&a);
    audit_engine *ae = ck_on(r, a, 2, 0.2);
    ae->ck_unjudged = 9;
    ae->ck_unjudged_step = 1;
    verdict_table v;
    explain_verdicts(&v, r, &M);
    assert_string_equal(v.e[0].verdict, "unchecked (partly)");
    assert_int_equal(v.e[0].n_compared, r->n_slots + 1);
    assert_int_equal(v.e[0].n_partial, 1);
    assert_int_equal(v.e[0].n_unjudged, 9);
    headline h;
    headline_make(&h, r, &v);
    if (!strstr(h.line, "not fully checked")) fail_msg("headline: %s", h.line);
    explain_list L;
    assert_int_equal(explain_run(&L, r, &M), 0);
    const explain_finding *f = NULL;
    for (int i = 0; i < L.n; i++)
        if (strcmp(L.f[i].rule, "fp32-overflow") == 0 && strstr(L.f[i].title, "every-step checksum")) f = &L.f[i];
    assert_non_null(f);
    assert_int_equal(f->severity, EXPLAIN_INFO);
    if (!strstr(f->title, "9 every-step checksum relation(s)") || !strstr(f->title, "step 1"))
        fail_msg("title: %s", f->title);
    explain_list_free(&L);
    ae->ck_unjudged = 0, ae->ck_unjudged_step = 0;
    explain_verdicts(&v, r, &M);
    assert_string_equal(v.e[0].verdict, "within bound");
    assert_int_equal(v.e[0].n_compared, r->n_slots);
    free_result(r);
}

/* A maximum over nothing is no number: the evaluation of an engine whose
 * every logit was not judged (fault loss_grad_nan_once: NaN weights) read
 * "worst logit ratio 0" on the console, and a checked engine interrupted
 * before drift step 1 "worst ratio 0 ()" in report.md, both as if exact. */
static void test_no_worst_ratio_over_nothing(void **st) {
    (void)st;
    int a;
    audit_result *r = ref_cpu_within(&a);
    r->n_classes = 10;
    audit_engine *ae = &r->eng[a];
    ae->ev_ref_images = 64, ae->ev_ref_epoch = 2, ae->ev_ref_unjudged = 640, ae->ev_ref_worst = 0;
    char *con = console_of(r);
    const char *l = strstr(con, "evaluation vs the reference (epoch 2, 64 images)");
    if (!l || strstr(con, "worst logit ratio 0") || !strstr(l, "no logit judged")) fail_msg("console:\n%s", con);
    free(con);
    ae = ck_on(r, a, 0, 0);
    ae->ck_relations = 0;
    audit_cfg c;
    audit_cfg_default(&c);
    c.engines = "reference,cpu";
    c.checksums = 1;
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    int rc = report_write(dir, &c, &M, NULL, r);
    if (rc) fail_msg("report_write: %s", ls_errmsg());
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_non_null(md);
    if (strstr(md, "worst ratio 0 ()") || !strstr(md, "judged: no relation judged.")) fail_msg("report.md:\n%s", md);
    free(md);
    rm_dir(dir);
    free_result(r);
}

/* The coverage line of the sharper tier says SUSPECT only where some
 * check is over it within the worst case ("0 check(s) over it within the
 * worst case (SUSPECT)" read as if the engine were SUSPECT); none over:
 * "none over it"; over it only beyond the worst case (the worst-case
 * tier's, on the line above): none counted here, and said so. */
static char *sharp_line(audit_result *r) {
    char *con = console_of(r);
    char *l = strstr(con, "sharper tier (1000 relations)");
    if (!l) fail_msg("console:\n%s", con);
    char *e = strchr(l, '\n');
    if (e) *e = 0;
    memmove(con, l, strlen(l) + 1);
    return con;
}

static void test_sharp_line_suspect_only_when_over(void **st) {
    (void)st;
    int a;
    audit_result *r = ref_cpu_within(&a);
    audit_engine *ae = ck_on(r, a, 4, 0.5);
    snprintf(ae->ck_worst_what, sizeof ae->ck_worst_what, "fc2 backward-data");
    ae->ck_n_sharp = 1000;
    ae->ck_sharp_worst = 0.559;
    snprintf(ae->ck_sharp_worst_what, sizeof ae->ck_sharp_worst_what, "fc2 backward-data, sample 77");
    char *l = sharp_line(r);
    if (strstr(l, "SUSPECT") || !strstr(l, "worst ratio 0.559 (fc2 backward-data, sample 77), none over it") ||
        strstr(l, "within the worst case"))
        fail_msg("none over: %s", l);
    free(l);
    ae->ck_sharp_worst = 2.5;
    ae->ck_sus_checks = 3;
    l = sharp_line(r);
    if (!strstr(l, "worst ratio 2.5 (fc2 backward-data, sample 77), 3 check(s) over it within the worst case: SUSPECT"))
        fail_msg("3 over: %s", l);
    free(l);
    ae->ck_sus_checks = 0;
    ae->ck_worst = ae->ck_sharp_worst = 1.04e6;
    ae->ck_viol_checks = 1;
    l = sharp_line(r);
    if (strstr(l, "SUSPECT") || !strstr(l, "none over it within the worst case (those beyond the worst case: the line "
                                           "above)"))
        fail_msg("over beyond the worst case only: %s", l);
    free(l);
    free_result(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_reduction_order), cmocka_unit_test(test_bound_exceeded_causes),
        cmocka_unit_test(test_suspect_verdict), cmocka_unit_test(test_tf32_by_signature_not_knob),
        cmocka_unit_test(test_decision_flips_wording), cmocka_unit_test(test_repeat_evaluation_differs),
        cmocka_unit_test(test_localized_not_precision),
        cmocka_unit_test(test_equal_repeat_vendor_math), cmocka_unit_test(test_accuracy_gap),
        cmocka_unit_test(test_repeats_not_duplicated),    cmocka_unit_test(test_json_reader),
        cmocka_unit_test(test_report_files),
        cmocka_unit_test(test_report_write_failures),
        cmocka_unit_test(test_checksum_chart_draws_inf),
        cmocka_unit_test(test_line_chart_keeps_spike),
        cmocka_unit_test(test_nonfinite_not_signed_zero),
        cmocka_unit_test(test_warm_epoch_without_steps),
        cmocka_unit_test(test_margins_no_flips),
        cmocka_unit_test(test_all_engines_died_next_line),
        cmocka_unit_test(test_partial_run_wording),
        cmocka_unit_test(test_pair_table_aligned),
        cmocka_unit_test(test_reference_described),
        cmocka_unit_test(test_unchecked_without_reference_steps),
        cmocka_unit_test(test_ok_names_unchecked_drift),
        cmocka_unit_test(test_ck_stop_at_update_uncounts_step),
        cmocka_unit_test(test_earliest_problem_first),
        cmocka_unit_test(test_eval_unjudged_counted),
        cmocka_unit_test(test_checksums_unjudged_counted),
        cmocka_unit_test(test_sharp_line_suspect_only_when_over),
        cmocka_unit_test(test_no_worst_ratio_over_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
