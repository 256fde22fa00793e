/*
 * test_lockstep.c — the audit end to end on a small slice of real
 * FashionMNIST: output structure, run-to-run determinism, isolated-mode
 * bound ratios against the MPFR reference, and free vs sync divergence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "audit/explain.h"
#include "cpu_caps.h"
#include "audit/audit.h"
#include "commands/audit_cmd.h"
#include "formats/safetensors.h"

static int have_data(void) {
    return access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

static void small_cfg(audit_cfg *c, const char *engines, lockstep_mode mode, size_t batch, size_t n_train) {
    audit_cfg_default(c);
    c->engines = engines;
    c->mode = mode;
    c->run.batch = batch;
    c->run.limit_train = n_train;
    c->run.limit_test = 512;
    c->run.epochs = 1;
    c->run.threads = 0;
    c->out = NULL;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = 0;
    if (len) *len = got;
    return s;
}

/* A gzip file's text (steps.jsonl.gz), NUL-terminated. */
static char *slurp_gz(const char *path, size_t *len) {
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *s = malloc(cap + 1);
    int k;
    while (s && (k = gzread(g, s + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)k;
        if (n == cap) s = realloc(s, (cap *= 2) + 1);
    }
    gzclose(g);
    if (s) s[n] = 0;
    if (len) *len = n;
    return s;
}

/* The MPFR reference in isolated mode: every layer of the cpu engine is fed
 * the reference's input rounded to fp32, so its error must lie within the
 * a-priori fp32 bound (gamma_K * sum |w||x|, compare.h) of the exact result
 * — a bound ratio above 1 would mean something other than fp32 rounding in
 * some order (reduced precision, Winograd, a bug).  The same holds for the
 * backward products (data and weight gradients), bounded the same way. */
static void test_isolated_bounds(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "reference,cpu,cpu:threads=1", MODE_ISOLATED, 16, 32);
    c.ref_steps = 2;
    c.eval = 0;
    audit_result r;
    int rc = audit_run(&c, &r);
    if (rc) fail_msg("audit: %s", ls_errmsg());
    const char *cands[] = {"cpu", "cpu:threads=1"};
    for (int k = 0; k < 2; k++) {
        int pi = audit_pair_index(&r, "reference", cands[k]);
        assert_true(pi >= 0);
        const audit_pair *p = &r.pair[pi];
        assert_string_equal(r.eng[p->a].label, "reference"); /* the reference side */
        for (int s = 0; s < r.n_slots; s++) {
            const audit_slot_stats *ss = &p->slot[s];
            int is_fwd = strcmp(r.slot_phase[s], "forward") == 0;
            int is_bwd = strcmp(r.slot_phase[s], "backward") == 0;
            if (!is_fwd && !is_bwd) continue;
            assert_int_equal(ss->n_steps, 2);
            if (ss->max_bound_ratio < 0) fail_msg("%s vs reference: %s has no bound", cands[k], r.slot_name[s]);
            if (!(ss->max_bound_ratio <= 1.0))
                fail_msg("%s vs reference: %s bound ratio %g > 1", cands[k], r.slot_name[s], ss->max_bound_ratio);
        }
        /* ReLU and max-pool are exact in fp32: given the same input the
         * cpu engine must produce the reference's values bit for bit */
        int s = audit_slot(&r, "pool1.act");
        assert_true(s >= 0);
        assert_true(p->slot[s].min_frac_equal == 1.0);
    }
    audit_result_free(&r);
}

/* Isolated mode past --ref-steps: the last step (3) is fully compared but
 * the reference no longer runs, so the leader is cpu.  Fed cpu's inputs,
 * cpu:threads=1's checksums were skipped (as where the reference judges
 * per element) and nothing judged its step 3: "not fully checked -
 * nothing checked cpu:threads=1's drift step 3" on a run where everything
 * ran (smallcnn, any model).  Every drift step of every fp32 engine must
 * be judged by its checksums or per element against the reference. */
static void test_isolated_past_ref_steps_checked(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "reference,cpu,cpu:threads=1", MODE_ISOLATED, 16, 48);
    c.ref_steps = 2;
    c.eval = 0;
    audit_result r;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    assert_int_equal(r.total_steps, 3);
    for (int i = 0; i < r.n_engines; i++) {
        const audit_engine *ae = &r.eng[i];
        if (ae->is_ref) continue;
        assert_non_null(ae->ck_step_ratio);
        assert_int_equal(ae->ck_total, 3);
        for (long k = 0; k < ae->ck_total; k++) {
            int ck = !isnan(ae->ck_step_ratio[k]), el = ae->ck_step_elem && ae->ck_step_elem[k];
            if (!ck && !el) fail_msg("%s: drift step %ld judged by nothing", ae->label, k + 1);
        }
    }
    assert_int_equal(r.problems, 0);
    audit_result_free(&r);
}

/* --repeat 2: the same engine twice is bitwise equal on every tensor. */
static void test_repeat_determinism(void **st) {
    if (!have_data()) skip();
    char dir[] = "/tmp/lockstep-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    audit_cfg c;
    small_cfg(&c, "cpu,cpu:threads=1", MODE_FREE, 64, 256);
    c.repeat = 2;
    c.ref_steps = 0;
    c.audit_every = 2;
    c.out_dir = dir;
    audit_result r;
    int rc = audit_run(&c, &r);
    if (rc) fail_msg("audit: %s", ls_errmsg());
    assert_int_equal(r.n_engines, 4);
    assert_int_equal(r.total_steps, 4);
    const char *pairs[2][2] = {{"cpu", "cpu#2"}, {"cpu:threads=1", "cpu:threads=1#2"}};
    for (int k = 0; k < 2; k++) {
        int pi = audit_pair_index(&r, pairs[k][0], pairs[k][1]);
        assert_true(pi >= 0);
        const audit_pair *p = &r.pair[pi];
        assert_int_equal(p->first_diff_step, 0);
        int compared = 0;
        for (int s = 0; s < r.n_slots; s++) {
            if (!p->slot[s].n_steps) continue;
            compared++;
            if (p->slot[s].min_frac_equal != 1.0) fail_msg("%s: %s not bitwise equal", pairs[k][0], r.slot_name[s]);
        }
        assert_int_equal(compared, r.n_slots);
        for (long s = 0; s < r.total_steps; s++) assert_true(p->param_rel_l2[s] == 0.0);
    }
    /* outputs: both files complete, no temporary left behind */
    char path[256];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/steps.jsonl.gz", dir);
    char *txt = slurp_gz(path, &len);
    assert_non_null(txt);
    long lines = 0;
    for (size_t i = 0; i < len; i++) lines += txt[i] == '\n';
    assert_int_equal(lines, r.jsonl_lines);
    assert_true(strncmp(txt, "{\"step\": 1,", 11) == 0);
    free(txt);
    snprintf(path, sizeof path, "%s/run.json", dir);
    txt = slurp(path, &len);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "\"bitwise_deterministic\": true"));
    assert_non_null(strstr(txt, "\"test_accuracy\""));
    assert_non_null(strstr(txt, "\"forward_s\""));
    assert_true(len > 2 && txt[len - 2] == '}');
    free(txt);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp", dir);
    FILE *pp = popen(cmd, "r");
    int ntmp = -1;
    assert_int_equal(fscanf(pp, "%d", &ntmp), 1);
    pclose(pp);
    assert_int_equal(ntmp, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    audit_result_free(&r);
}

/* free vs sync: with 2 threads and with 1 the cpu engine rounds the weight
 * gradients' batch reductions differently, so the two drift apart.  In free
 * mode the difference accumulates; in sync mode both restart every step
 * from the leader's state, so the difference after each step stays at the
 * one-step level. */
static void test_free_grows_sync_does_not(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    double last_free = 0, first_free = 0, max_sync = 0, first_sync = 0;
    for (int mode = 0; mode < 2; mode++) {
        small_cfg(&c, "cpu,cpu:threads=1", mode ? MODE_SYNC : MODE_FREE, 64, 640);
        c.ref_steps = 0;
        c.audit_every = 1;
        c.eval = 0;
        audit_result r;
        int rc = audit_run(&c, &r);
        if (rc) fail_msg("audit: %s", ls_errmsg());
        assert_int_equal(r.total_steps, 10);
        const audit_pair *p = &r.pair[0];
        for (long s = 0; s < r.total_steps; s++) {
            assert_false(isnan(p->param_rel_l2[s]));
            if (mode) max_sync = fmax(max_sync, p->param_rel_l2[s]);
        }
        if (mode) first_sync = p->param_rel_l2[0];
        else {
            first_free = p->param_rel_l2[0];
            last_free = p->param_rel_l2[r.total_steps - 1];
        }
        audit_result_free(&r);
    }
    print_message("free: step 1 %.3g, step 10 %.3g; sync: step 1 %.3g, max %.3g\n", first_free, last_free, first_sync,
                  max_sync);
    /* step 1 is the same computation in both modes */
    assert_true(first_free == first_sync);
    assert_true(first_free > 0);
    /* growth: ten steps of accumulated drift are well above any one step */
    assert_true(last_free > 4 * max_sync);
    assert_true(last_free > 4 * first_free);
}

static void test_bad_engines(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "cpu,warp", MODE_FREE, 16, 32);
    audit_result r;
    assert_int_not_equal(audit_run(&c, &r), 0);
    assert_non_null(strstr(ls_errmsg(), "warp"));
    small_cfg(&c, "cpu,cpu:bogus=1", MODE_FREE, 16, 32);
    assert_int_not_equal(audit_run(&c, &r), 0);
    assert_non_null(strstr(ls_errmsg(), "bogus"));
    /* listed twice with --repeat 2 is ambiguous; listed twice alone is a
     * repeat of that engine (determinism for one engine) */
    small_cfg(&c, "cpu,cpu", MODE_FREE, 16, 32);
    c.repeat = 2;
    assert_int_not_equal(audit_run(&c, &r), 0);
    assert_non_null(strstr(ls_errmsg(), "twice"));
    small_cfg(&c, "cpu:threads=1,cpu:threads=1", MODE_FREE, 16, 32);
    c.eval = 0;
    c.run.max_steps = 2;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    assert_string_equal(r.eng[1].label, "cpu:threads=1#2");
    assert_int_equal(r.eng[1].repeat_of, 0);
    audit_result_free(&r);
    small_cfg(&c, "cpu,cpu:perturb=0", MODE_FREE, 16, 32);
    assert_int_not_equal(audit_run(&c, &r), 0);
    assert_non_null(strstr(ls_errmsg(), "perturb"));
}


/* The verdict model end to end: an attribution phase (isolated, with the
 * reference) judges every compared tensor of every engine by a bound or an
 * exactness rule — coverage complete, verdict within bound — while an
 * approximate algorithm (Winograd) exceeds the fp32 bound and trips the
 * gate; the state round-trip check runs in the drift phase and passes for
 * correct engines. */
static void test_verdicts_and_gate(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "reference,cpu:threads=1,cpu:threads=1:algo=winograd", MODE_FREE, 16, 64);
    c.attribution_steps = 1;
    c.ref_steps = 0;
    c.audit_every = 2;
    c.eval = 0;
    c.fail_on = AUDIT_FAIL_PROBLEM;
    audit_result r;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    verdict_table v;
    explain_verdicts(&v, &r, &m);
    assert_int_equal(v.n_eng, 2);
    const engine_verdict *ok = &v.e[0], *wino = &v.e[1];
    assert_string_equal(r.eng[ok->engine].label, "cpu:threads=1");
    assert_string_equal(ok->verdict, "within bound");
    assert_true(ok->n_compared > 40 && ok->n_bounded == ok->n_compared); /* every tensor judged */
    assert_true(ok->worst_ratio <= 1.0);
    if (cpu_has_winograd()) {
        /* both checks see it: the every-step checks (the engine's verdict word:
         * its transforms' noise where every term is 0) and the per-element
         * bound at the attribution step */
        assert_string_equal(wino->verdict, "CHECKSUM violated");
        assert_true(wino->problem && wino->worst_ratio > 1.0);
        assert_int_equal(r.gate, 1);
    } else {
        /* no Winograd here: algo=winograd ran direct, judged as direct (no
         * false alarm on the fallback), and the gate stays shut */
        printf("  %s: algo=winograd ran direct, checked as such\n", NO_WINOGRAD_WHY);
        assert_string_equal(wino->verdict, "within bound");
        assert_true(!wino->problem && wino->worst_ratio <= 1.0);
        assert_int_equal(r.gate, 0);
    }
    assert_true(r.eng[1].rt_checks > 0 && r.eng[1].rt_fail_step == 0); /* round trip ran, and passed */
    audit_result_free(&r);
    /* without the gate the same audit exits clean */
    c.fail_on = 0;
    small_cfg(&c, "reference,cpu:threads=1", MODE_FREE, 16, 64);
    c.attribution_steps = 1;
    c.ref_steps = 0;
    c.audit_every = 2;
    c.eval = 0;
    c.fail_on = AUDIT_FAIL_PROBLEM | AUDIT_FAIL_UNCHECKED;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    assert_int_equal(r.gate, 0);
    assert_int_equal(r.problems, 0);
    assert_int_equal(r.unchecked, 0);
    audit_result_free(&r);
}

/* Winograd with no reference: the every-step checks alone make it a
 * PROBLEM at step 1 (its transforms leave noise where every term of a dW
 * element is 0: the zero- and smallest-element relation), and the finding
 * says why (the layer's algorithm, from describe()) and what to change;
 * the direct convolution on the same plan has no violation. */
static void test_checksums_name_transform(void **st) {
    if (!have_data()) skip();
    int first = cpu_has_winograd();
    if (!first) printf("  %s: only the direct half runs\n", NO_WINOGRAD_WHY);
    for (int wino = first; wino >= 0; wino--) {
        audit_cfg c;
        small_cfg(&c, wino ? "cpu:threads=1:algo=winograd" : "cpu:threads=1", MODE_FREE, 16, 32);
        c.eval = 0;
        c.ref_steps = 0;
        c.attribution_steps = 0;
        c.fail_on = AUDIT_FAIL_PROBLEM;
        audit_result r;
        if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
        const audit_engine *ae = &r.eng[0];
        assert_int_equal(ae->ck_viol_checks > 0, wino);
        explain_list el = {0};
        assert_int_equal(explain_run(&el, &r, &r.m), 0);
        int named = 0;
        for (int k = 0; k < el.n; k++)
            if (strcmp(el.f[k].rule, "checksum") == 0 && strstr(el.f[k].title, "step 1") &&
                strstr(el.f[k].title, "runs Winograd, an approximate convolution") &&
                strstr(el.f[k].cause, "transform algorithm (") && strstr(el.f[k].fix, "cpu:algo=direct"))
                named++;
        assert_int_equal(named, wino);
        assert_int_equal(r.gate, wino);
        explain_list_free(&el);
        audit_result_free(&r);
    }
}

/* perturb=1: the same engine from initial weights one ulp away differs from
 * the first step on, and the driver's knob is not passed to the engine. */
static void test_perturb_noise_floor(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "cpu:threads=1,cpu:threads=1:perturb=1", MODE_FREE, 16, 32);
    c.eval = 0;
    c.ref_steps = 0;
    audit_result r;
    int rc = audit_run(&c, &r);
    if (rc) fail_msg("audit: %s", ls_errmsg());
    assert_int_equal(r.eng[1].perturb_ulps, 1);
    assert_string_equal(r.eng[1].spec, "cpu:threads=1");
    assert_string_equal(r.eng[1].label, "cpu:threads=1:perturb=1");
    const audit_pair *p = &r.pair[0];
    assert_int_equal(p->first_diff_step, 1);
    /* one ulp is a relative change of 2^-24..2^-23 per weight, and one step
     * of Adam moves every weight by ~lr: the relative L2 difference after
     * step 1 is of the order of 2^-24, and certainly not zero */
    assert_true(p->param_rel_l2[0] > 1e-9 && p->param_rel_l2[0] < 1e-5);
    audit_result_free(&r);
}

/* cuda is listed as skipped with its reason when it cannot run, and the
 * audit goes on with the rest. */
static void test_cuda_skipped_or_run(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "cpu,cuda", MODE_FREE, 16, 32);
    c.eval = 0;
    c.ref_steps = 0;
    audit_result r;
    int rc = audit_run(&c, &r);
    if (rc) fail_msg("audit: %s", ls_errmsg());
    assert_int_equal(r.n_engines, 2);
    assert_true(r.eng[0].available);
    if (!r.eng[1].available) {
        assert_non_null(strstr(r.eng[1].skip_reason, "cuda: unavailable ("));
        assert_int_equal(r.n_pairs, 0);
    } else {
        assert_int_equal(r.n_pairs, 1);
    }
    assert_int_equal(r.eng[0].steps_run, 2);
    audit_result_free(&r);
}

/* audit --save: every trained engine's final weights, the label in the
 * name when there are several; fuse=on and fuse=off train to the same bits,
 * so the two files hold the same weights, and --init from one of them is
 * those weights bit for bit. */
static void test_audit_save(void **st) {
    if (!have_data()) skip();
    char dir[] = "/tmp/lockstep-save-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char base[128], p1[160], p2[160];
    snprintf(base, sizeof base, "%s/w.safetensors", dir);
    snprintf(p1, sizeof p1, "%s/w.cpu_threads=1.safetensors", dir);
    snprintf(p2, sizeof p2, "%s/w.cpu_threads=1_fuse=off.safetensors", dir);
    audit_cfg c;
    small_cfg(&c, "cpu:threads=1,cpu:threads=1:fuse=off", MODE_FREE, 16, 32);
    c.eval = 0;
    c.run.save_path = base;
    audit_result r;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    audit_result_free(&r);
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    float *a = malloc(m.n_params * sizeof *a), *b = malloc(m.n_params * sizeof *b);
    assert_int_equal(st_init_params(&m, p1, 42, a), 0);
    assert_int_equal(st_init_params(&m, p2, 42, b), 0);
    assert_memory_equal(a, b, m.n_params * sizeof *a);
    float *s0 = malloc(m.n_params * sizeof *s0);
    model_init_params(&m, s0, 42);
    assert_true(memcmp(a, s0, m.n_params * sizeof *a) != 0); /* trained: not the initial weights */
    free(a);
    free(b);
    free(s0);
    unlink(p1);
    unlink(p2);
    rmdir(dir);
}

/* Inputs scaled by 1e20 (--normalize 1,1e-20): some of fc2's weight
 * gradients pass 1.8e19, fp32's g*g overflows, v = inf and the parameter
 * keeps its value, as ops_adam_elem must; the exact reference stays finite
 * and moves it.  That is fp32's range, not a rounding error: the audit
 * judges those elements by what fp32 must produce (bounds_adam_range) and
 * counts them, with no PROBLEM (before: fc2.weight at ~8e5 the bound). */
static void test_adam_overflow_not_a_problem(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "reference,cpu", MODE_ISOLATED, 16, 64);
    assert_int_equal(run_parse_normalize(&c.run, "1,1e-20"), 0);
    c.ref_steps = 2;
    c.eval = 0;
    c.fail_on = AUDIT_FAIL_PROBLEM;
    audit_result r;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    int pi = audit_pair_index(&r, "reference", "cpu"), s = audit_slot(&r, "fc2.weight.adam_v");
    assert_true(pi >= 0 && s >= 0);
    const audit_slot_stats *ss = &r.pair[pi].slot[s];
    printf("      fc2.weight: %ld element-check(s) beyond fp32's range; bound ratio %g; problems %d\n", ss->n_range,
           ss->max_bound_ratio, r.problems);
    assert_int_equal(r.problems, 0);
    assert_int_equal(r.gate, 0);
    assert_true(ss->n_range > 0); /* the case is reached */
    int sp = audit_slot(&r, "fc2.weight");
    assert_true(sp >= 0 && r.pair[pi].slot[sp].n_range == ss->n_range);
    assert_true(r.pair[pi].slot[sp].max_bound_ratio <= 1.0);
    audit_result_free(&r);
}

/* Inputs scaled by 1e30 with lr 10 (--normalize 0,1e-30): at attribution
 * step 2 fc2's exact outputs are ~1e40, beyond fp32's range; every fp32
 * fc2.act is +-inf, and the NaN logits' backward is NaN.  A legal fp32 dot
 * product there may overflow to either sign (bounds_range_unbound): those
 * elements are not judged, counted, and said (the engine is "unchecked
 * (partly)", an INFO finding), with no PROBLEM (before: fc2.act at ratio
 * inf, then fc1.dact, fc2/fc1/conv2 weight gradients, conv2.dact,
 * conv1.dact). */
static void test_dot_overflow_not_a_problem(void **st) {
    if (!have_data()) skip();
    audit_cfg c;
    small_cfg(&c, "reference,cpu", MODE_FREE, 16, 64);
    assert_int_equal(run_parse_normalize(&c.run, "0,1e-30"), 0);
    c.run.adam.lr = 10;
    c.attribution_steps = 2;
    c.eval = 0;
    c.fail_on = AUDIT_FAIL_PROBLEM;
    audit_result r;
    if (audit_run(&c, &r)) fail_msg("audit: %s", ls_errmsg());
    int pi = audit_pair_index(&r, "reference", "cpu"), s = audit_slot(&r, "fc2.act");
    assert_true(pi >= 0 && s >= 0);
    const audit_slot_stats *ss = &r.pair[pi].slot[s];
    long unj = 0;
    for (int k = 0; k < r.n_slots; k++) unj += r.pair[pi].slot[k].n_unjudged;
    printf("      fc2.act: %ld element-check(s) not judged (all tensors: %ld); bound ratio %g; problems %d, "
           "unchecked %d\n", ss->n_unjudged, unj, ss->max_bound_ratio, r.problems, r.unchecked);
    assert_true(ss->n_unjudged > 0); /* the case is reached */
    assert_int_equal(r.problems, 0);
    assert_true(r.unchecked > 0); /* said: not judged is not ok */
    audit_result_free(&r);
}

/* The audit of images x ~2.5e38 (`--normalize -2,1e-38 --lr 1e-9`, 32
 * images, batch 16, 32 test images, 1 attribution step, evaluation) with
 * reference,cpu, into r; returns the cpu engine's index. */
static int overflow_run(audit_result *r) {
    audit_cfg c;
    small_cfg(&c, "reference,cpu", MODE_FREE, 16, 32);
    assert_int_equal(run_parse_normalize(&c.run, "-2,1e-38"), 0);
    c.run.adam.lr = 1e-9;
    c.run.limit_test = 32;
    c.attribution_steps = 1;
    c.eval = 1;
    if (audit_run(&c, r)) fail_msg("audit: %s", ls_errmsg());
    int e = -1;
    for (int i = 0; i < r->n_engines; i++)
        if (!r->eng[i].is_ref) e = i;
    assert_true(e >= 0);
    return e;
}

/* The evaluation against the reference where a legal fp32 evaluation may
 * overflow (images x ~2.5e38: conv1's sums of |w x| reach 2^128): its logits'
 * propagated bounds are +inf (bounds_eval_layer), counted as not judged, none
 * over; run.json and the verdict say so (test_report: the words). */
static void test_eval_overflow_not_judged(void **st) {
    (void)st;
    if (!have_data()) skip();
    audit_result r;
    int e = overflow_run(&r);
    const audit_engine *ae = &r.eng[e];
    printf("      evaluation vs the reference: %ld images, %ld logits not judged, %ld over, worst ratio %g\n",
           ae->ev_ref_images, ae->ev_ref_unjudged, ae->ev_ref_over, ae->ev_ref_worst);
    assert_true(ae->ev_ref_images > 0);
    assert_true(ae->ev_ref_unjudged > 0); /* the case is reached, and counted */
    assert_int_equal(ae->ev_ref_over, 0);
    assert_int_equal(ae->ev_ref_inner, 0); /* the inputs that are inf are where the bound is +inf too */
    assert_true(ae->ev_ref_worst <= 1);
    audit_result_free(&r);
}

/* The same run's every-step checksums (checks/checksums.c, ck_rel_unbound;
 * the exact blocks' and the loss's non-finite operands): conv1's exact
 * outputs pass FLT_MAX, so +-inf is the only correct fp32 result there;
 * the relations whose outputs may overflow are not judged, counted, and
 * none is a violation (before: conv1 forward ratio inf, a false PROBLEM).
 * The verdict counts them as judged in part. */
static void test_checksum_overflow_not_judged(void **st) {
    (void)st;
    if (!have_data()) skip();
    audit_result r;
    int e = overflow_run(&r);
    const audit_engine *ae = &r.eng[e];
    printf("      every-step checksums: %ld steps, %ld relations judged, %ld not judged (first step %ld), %ld violated, "
           "worst %g (%s)\n", ae->ck_steps, ae->ck_relations, ae->ck_unjudged, ae->ck_unjudged_step,
           ae->ck_viol_checks, ae->ck_worst, ae->ck_worst_what);
    assert_true(ae->ck_steps > 0);
    assert_true(ae->ck_unjudged > 0); /* the case is reached, and counted */
    assert_true(ae->ck_unjudged_step >= 1);
    assert_true(ae->ck_relations > 0); /* the rest is judged */
    assert_int_equal(ae->ck_viol_checks, 0);
    assert_true(ae->ck_worst <= 1);
    audit_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isolated_bounds),         cmocka_unit_test(test_repeat_determinism),
        cmocka_unit_test(test_isolated_past_ref_steps_checked),
        cmocka_unit_test(test_free_grows_sync_does_not), cmocka_unit_test(test_bad_engines),
        cmocka_unit_test(test_cuda_skipped_or_run),     cmocka_unit_test(test_perturb_noise_floor),
        cmocka_unit_test(test_verdicts_and_gate),         cmocka_unit_test(test_audit_save),
        cmocka_unit_test(test_checksums_name_transform), cmocka_unit_test(test_adam_overflow_not_a_problem),
        cmocka_unit_test(test_dot_overflow_not_a_problem), cmocka_unit_test(test_eval_overflow_not_judged),
        cmocka_unit_test(test_checksum_overflow_not_judged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
