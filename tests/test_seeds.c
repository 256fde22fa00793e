/*
 * test_seeds.c — the seed loop end to end on a small slice of real
 * FashionMNIST: two identical engines must come out indistinguishable,
 * the numbers that come back through the children's pipes must equal a
 * direct audit of the same seed, and a failing audit must surface as an
 * error naming the seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/seeds.h"
#include "commands/audit_cmd.h"

static int have_data(void) { return access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) == 0; }

static void small_cfg(audit_cfg *c, const char *engines) {
    audit_cfg_default(c);
    c->engines = engines;
    c->run.batch = 64;
    c->run.limit_train = 512; /* 8 steps: enough to leave chance level */
    c->run.limit_test = 256;
    c->run.epochs = 1;
    c->run.threads = 0;
    c->out = NULL;
}

/* seeds_print's text (free it) */
static char *printed(const seeds_result *r) {
    char *txt = NULL;
    size_t tn = 0;
    FILE *mf = open_memstream(&txt, &tn);
    assert_non_null(mf);
    seeds_print(mf, r);
    fclose(mf);
    return txt;
}

/* cpu:threads=1 and cpu:threads=1:algo=direct are the same engine (direct
 * is the default algorithm), spelled twice so the audit accepts both: the
 * same kernels on the same inputs give the same bits, so every paired gap
 * is exactly 0 and the pair must be indistinguishable with no flips and
 * McNemar p = 1.  A reference engine in the list is left out of the loop,
 * and the noise floor (the first engine moved 1 ulp) is added. */
static void test_identical_indistinguishable(void **st) {
    (void)st;
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "reference,cpu:threads=1,cpu:threads=1:algo=direct");
    seeds_cfg sc = {2, 2, 1};
    seeds_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    int rc = seeds_run(&c, &sc, NULL, NULL, r);
    if (rc) fail_msg("seeds_run: %s", ls_errmsg());
    assert_int_equal(r->n_seeds, 2);
    assert_int_equal(r->n_engines, 3); /* the two, and the added floor copy */
    assert_string_equal(r->eng[2].label, "cpu:threads=1:perturb=1");
    assert_true(r->eng[2].perturbed);
    assert_string_equal(r->floor_engine, "cpu:threads=1");
    assert_int_equal(r->n_test, 256);
    /* 2 seeds x 1 floor pair, plus the extra draw */
    assert_int_equal(r->n_draws, 3);
    int pi = -1;
    for (int i = 0; i < r->n_pairs; i++)
        if (r->pair[i].a == 0 && r->pair[i].b == 1) pi = i;
    assert_true(pi >= 0);
    const seeds_pair *p = &r->pair[pi];
    assert_false(p->floor_pair);
    assert_int_equal(p->paired[0].indistinguishable, 1);
    assert_true(p->paired[0].mean == 0 && p->paired[0].sd == 0);
    assert_non_null(strstr(p->verdict, "indistinguishable"));
    assert_int_equal(p->beyond_floor, 0); /* a zero gap is never beyond the floor */
    for (int s = 0; s < 2; s++) {
        assert_int_equal(p->flips[s][0], 0);
        assert_int_equal(p->mcnemar[s][0].b + p->mcnemar[s][0].c, 0);
        assert_true(p->mcnemar[s][0].p == 1);
        assert_true(r->eng[0].acc[s][0] == r->eng[1].acc[s][0]);
        /* bitwise equal parameters at every step: rel L2 exactly 0 */
        for (long t = 0; t < r->total_steps; t++) assert_true(p->rel_l2[s][t] == 0);
        assert_int_equal(p->flips_within, 2);
    }
    /* the two seeds trained different networks: different accuracies
     * (8 steps from different initial weights agree to the last of 256
     * images only by accident) */
    assert_true(r->eng[0].acc[0][0] != r->eng[0].acc[1][0]);
    /* the floor pair (the same spec, one perturbed) is flagged, not given
     * a verdict; the other spelling is compared as a separate engine */
    for (int i = 0; i < r->n_pairs; i++) assert_int_equal(r->pair[i].floor_pair, r->pair[i].a == 0 && r->pair[i].b == 2);
    /* a 1-ulp move changes the parameters: the floor's band is above 0 */
    assert_true(r->band_hi[r->total_steps - 1] > 0);

    /* the same seed run directly: the numbers that came through the pipe
     * must be the same bits */
    audit_cfg d;
    small_cfg(&d, "cpu:threads=1");
    d.run.seed = c.run.seed + 1;
    d.ref_steps = 0;
    d.audit_every = 0;
    audit_result ar;
    rc = audit_run(&d, &ar);
    if (rc) fail_msg("audit_run: %s", ls_errmsg());
    assert_true(ar.eng[0].test_acc[0] == r->eng[0].acc[1][0]);
    assert_memory_equal(ar.eng[0].pred_epoch, r->eng[0].pred[1], 256);
    double *m = malloc(256 * sizeof *m);
    stats_margins(m, ar.eng[0].logits, 256, 10);
    for (int k = 0; k < 256; k++) assert_true(m[k] == r->eng[0].margin[1][k] || (isnan(m[k]) && isnan(r->eng[0].margin[1][k])));
    free(m);
    audit_result_free(&ar);

    lsbuf b;
    lsbuf_init(&b);
    seeds_json(&b, r);
    assert_false(b.failed);
    assert_non_null(strstr(b.s, "\"seeds\": {\"n\": 2"));
    assert_non_null(strstr(b.s, "\"noise_floor\""));
    /* the loop's own runs are not checked at every step: said, not implied */
    assert_non_null(strstr(b.s, "\"loop_runs_checked\": {\"every_step_checksums\": false, \"reference\": false}"));
    lsbuf_free(&b);
    char *txt = printed(r);
    assert_non_null(strstr(txt, "their steps are unchecked"));
    free(txt);
    seeds_result_free(r);
    free(r);
}

/* A child whose audit fails: the error comes back with the seed named,
 * and nothing is left to free. */
static void test_failure_reported(void **st) {
    (void)st;
    audit_cfg c;
    small_cfg(&c, "cpu:threads=1");
    c.run.data_dir = "/nonexistent/lockstep-data";
    seeds_cfg sc = {2, 1, 0};
    seeds_result *r = calloc(1, sizeof *r);
    int rc = seeds_run(&c, &sc, NULL, NULL, r);
    assert_true(rc < 0);
    assert_non_null(strstr(ls_errmsg(), "seed 42"));
    assert_non_null(strstr(ls_errmsg(), "/nonexistent/lockstep-data"));
    assert_int_equal(r->n_engines, 0);
    free(r);
    /* bad arguments before any fork */
    sc.n_seeds = 0;
    assert_int_equal(seeds_run(&c, &sc, NULL, NULL, r = calloc(1, sizeof *r)), LS_EINVAL);
    free(r);
    small_cfg(&c, "reference");
    sc.n_seeds = 1;
    r = calloc(1, sizeof *r);
    assert_int_equal(seeds_run(&c, &sc, NULL, NULL, r), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "no engine"));
    free(r);
}


/* The audit's own per-epoch McNemar and seeds_pair_json: b and c recounted
 * here from the kept predictions and labels (exact integers), the per-class
 * counts summing to the overall ones, the last epoch's kept predictions
 * equal to the last row of every epoch's, and draw=D moving the initial
 * weights in another direction than draw 0. */
static void test_audit_pair_stats(void **st) {
    (void)st;
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "cpu:threads=1,cpu:threads=1:perturb=1");
    c.run.epochs = 2;
    c.run.limit_train = 256;
    audit_result r;
    int rc = audit_run(&c, &r);
    if (rc) fail_msg("audit_run: %s", ls_errmsg());
    assert_int_equal(r.n_test, 256);
    assert_int_equal(r.n_classes, 10);
    assert_int_equal(r.n_pairs, 1);
    const audit_pair *p = &r.pair[0];
    const audit_engine *a = &r.eng[p->a], *b = &r.eng[p->b];
    assert_non_null(a->logits);
    assert_memory_equal(a->pred, a->pred_epoch + 256, 256);
    for (int ep = 0; ep < 2; ep++) {
        long nb = 0, nc = 0, cb = 0, cc = 0, d = 0;
        for (int k = 0; k < 256; k++) {
            uint8_t pa = a->pred_epoch[ep * 256 + k], pb = b->pred_epoch[ep * 256 + k], y = r.test_labels[k];
            nb += pa == y && pb != y;
            nc += pa != y && pb == y;
            d += pa != pb;
        }
        for (int k = 0; k < 10; k++) {
            cb += p->mcnemar_class[ep * 10 + k].b;
            cc += p->mcnemar_class[ep * 10 + k].c;
        }
        assert_int_equal(p->mcnemar[ep].b, nb);
        assert_int_equal(p->mcnemar[ep].c, nc);
        assert_int_equal(cb, nb);
        assert_int_equal(cc, nc);
        assert_int_equal(p->disagree[ep], d);
        assert_true(p->mcnemar[ep].p == stats_mcnemar_p(nb, nc));
    }
    lsbuf js;
    lsbuf_init(&js);
    seeds_pair_json(&js, &r, 0, DATA_DEFAULT_DIR);
    char want[64];
    snprintf(want, sizeof want, "{\"mcnemar\": [{\"b\": %ld, \"c\": %ld", p->mcnemar[0].b, p->mcnemar[0].c);
    assert_non_null(strstr(js.s, want));
    assert_non_null(strstr(js.s, "\"Shirt\""));
    assert_non_null(strstr(js.s, "\"margins_last_epoch\": {\"flipped_a\""));
    assert_non_null(strstr(js.s, "\"param_rel_l2_growth\""));
    lsbuf_free(&js);
    double d0 = p->param_rel_l2[0];
    audit_result_free(&r);

    /* another direction: the distance after step 1 changes */
    small_cfg(&c, "cpu:threads=1,cpu:threads=1:perturb=1:draw=5");
    c.run.epochs = 2;
    c.run.limit_train = 256; /* the same first batch as above */
    c.run.max_steps = 1;
    c.eval = 0;
    rc = audit_run(&c, &r);
    if (rc) fail_msg("audit_run: %s", ls_errmsg());
    assert_true(r.pair[0].param_rel_l2[0] > 0 && r.pair[0].param_rel_l2[0] != d0);
    assert_int_equal(r.eng[1].perturb_draw, 5);
    assert_string_equal(r.eng[1].spec, "cpu:threads=1");
    audit_result_free(&r);
    small_cfg(&c, "cpu:threads=1,cpu:threads=1:draw=5");
    assert_int_equal(audit_run(&c, &r), LS_EINVAL);
    assert_non_null(strstr(ls_errmsg(), "draw=D goes with perturb=K"));
}

/* The main audit taken as seed s0: its numbers are used as they are (the
 * same bits), the loop runs only the other seeds, and a prior that cannot
 * stand for seed s0 (a sync-mode audit) is ignored. */
static void test_prior_is_seed0(void **st) {
    (void)st;
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "cpu:threads=1,cpu:threads=1:perturb=1");
    c.ref_steps = 0;
    c.audit_every = 0;
    audit_result *pr = calloc(1, sizeof *pr);
    int rc = audit_run(&c, pr);
    if (rc) fail_msg("audit_run: %s", ls_errmsg());
    seeds_cfg sc = {2, 1, 0};
    seeds_result *r = calloc(1, sizeof *r);
    rc = seeds_run(&c, &sc, pr, NULL, r);
    if (rc) fail_msg("seeds_run: %s", ls_errmsg());
    assert_int_equal(r->seed0_from_audit, 1);
    assert_true(isnan(r->job_cpu_s[0]) && r->job_cpu_s[1] > 0);
    assert_true(r->eng[0].acc[0][0] == pr->eng[0].test_acc[0]);
    assert_true(r->eng[1].acc[0][0] == pr->eng[1].test_acc[0]);
    assert_memory_equal(r->eng[1].pred[0], pr->eng[1].pred_epoch, 256);
    assert_int_equal(r->n_pairs, 1);
    assert_true(r->pair[0].floor_pair);
    assert_int_equal(r->pair[0].flips[0][0], pr->pair[0].disagree[0]);
    for (long t = 0; t < r->total_steps; t++)
        assert_true(r->pair[0].rel_l2[0][t] == pr->pair[0].param_rel_l2[t]);
    assert_int_equal(r->n_draws, 2);
    seeds_result_free(r);
    /* an audit in sync mode did not train the engines freely: not used */
    c.mode = MODE_SYNC;
    sc.n_seeds = 1;
    rc = seeds_run(&c, &sc, pr, NULL, r);
    if (rc) fail_msg("seeds_run: %s", ls_errmsg());
    assert_int_equal(r->seed0_from_audit, 0);
    assert_true(r->job_cpu_s[0] > 0);
    seeds_result_free(r);
    free(r);
    audit_result_free(pr);
    free(pr);
}

/* The loop started with the main audit (audit_run, seeds_start): seed s0
 * is the audit's own run, the other seed's numbers are those of the same
 * loop run after the audit (the same bits: one thread, the same seed and
 * draw), and an engine the audit could not run (cuda without a GPU) is
 * dropped from the early audits' results as the loop leaves it out of its
 * own.  With a GPU the list stays whole. */
static void test_started_with_audit(void **st) {
    (void)st;
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "cpu:threads=1,cuda,cpu:threads=1:perturb=1");
    c.ref_steps = 0;
    c.audit_every = 0;
    c.seeds = 2;
    c.jobs = 2;
    FILE *con = tmpfile();
    assert_non_null(con);
    c.out = con;
    audit_result *pr = calloc(1, sizeof *pr);
    assert_non_null(pr);
    int rc = audit_run(&c, pr);
    if (rc) fail_msg("audit_run: %s", ls_errmsg());
    /* the verdict screen says how the loop ran, and that the timings were
     * taken with it alongside */
    char text[65536];
    rewind(con);
    size_t got = fread(text, 1, sizeof text - 1, con);
    text[got] = 0;
    fclose(con);
    c.out = NULL;
    assert_non_null(strstr(text, "started with the audit above at idle priority, done"));
    assert_non_null(strstr(text, "measured with the seed loop's audits alongside at idle priority"));
    seeds_result *e = pr->seeds;
    assert_non_null(e);
    assert_int_equal(e->early, 1);
    assert_int_equal(e->seed0_from_audit, 1);
    assert_true(e->after_audit_s >= 0 && e->after_audit_s <= e->wall_s);
    int cuda_ran = pr->eng[1].available;
    assert_int_equal(e->n_engines, cuda_ran ? 3 : 2);
    assert_string_equal(e->eng[0].label, "cpu:threads=1");
    assert_string_equal(e->eng[e->n_engines - 1].label, "cpu:threads=1:perturb=1");
    /* the same loop after the audit, not started early */
    seeds_cfg sc = {2, 2, 0};
    seeds_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    rc = seeds_run(&c, &sc, pr, NULL, r);
    if (rc) fail_msg("seeds_run: %s", ls_errmsg());
    assert_int_equal(r->early, 0);
    assert_int_equal(r->n_engines, e->n_engines);
    for (int i = 0; i < r->n_engines; i++) {
        assert_string_equal(r->eng[i].label, e->eng[i].label);
        assert_int_equal(r->eng[i].available, e->eng[i].available);
        if (!r->eng[i].available) continue;
        for (int s = 0; s < 2; s++) assert_true(r->eng[i].acc[s][0] == e->eng[i].acc[s][0]);
        assert_memory_equal(r->eng[i].pred[1], e->eng[i].pred[1], r->n_test);
    }
    assert_int_equal(r->n_pairs, e->n_pairs);
    for (int pi = 0; pi < r->n_pairs; pi++) {
        assert_int_equal(r->pair[pi].a, e->pair[pi].a);
        assert_int_equal(r->pair[pi].b, e->pair[pi].b);
        for (long t = 0; t < r->total_steps; t++) {
            double x = r->pair[pi].rel_l2[1][t], y = e->pair[pi].rel_l2[1][t];
            assert_true(x == y || (isnan(x) && isnan(y)));
        }
    }
    seeds_result_free(r);
    free(r);
    audit_result_free(pr);
    free(pr);
}

/* An engine that gave no result in one seed's audit (it died part-way) is
 * left out of the spread and the pairs, and the table says so (it was
 * dropped without a word). */
static void test_left_out_engine_said(void **st) {
    (void)st;
    seeds_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->n_seeds = 3, r->epochs = 1, r->seed0 = 42, r->jobs = 2, r->n_engines = 2;
    for (int j = 0; j < 3; j++) r->job_cpu_s[j] = 1.0;
    snprintf(r->eng[0].label, sizeof r->eng[0].label, "cpu");
    r->eng[0].available = 1, r->eng[0].missing_seed = -1;
    for (int s = 0; s < 3; s++) r->eng[0].acc[s][0] = 0.86;
    stats_spread_of(&r->eng[0].spread[0], (double[]){0.86, 0.86, 0.86}, 3);
    snprintf(r->eng[1].label, sizeof r->eng[1].label, "cpu:threads=1");
    r->eng[1].available = 0, r->eng[1].missing_seed = 1;
    char *txt = printed(r);
    print_message("%s", txt);
    if (!strstr(txt, "cpu:threads=1") || !strstr(txt, "left out: seed 43's audit gave no result for it"))
        fail_msg("the engine left out is not said:\n%s", txt);
    free(txt);
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_indistinguishable),
        cmocka_unit_test(test_failure_reported),
        cmocka_unit_test(test_audit_pair_stats),
        cmocka_unit_test(test_prior_is_seed0),
        cmocka_unit_test(test_started_with_audit),
        cmocka_unit_test(test_left_out_engine_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
