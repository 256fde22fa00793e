/*
 * test_train.c — `lockstep train` and `lockstep eval` as a PyTorch user
 * drives them (issue 23): full-precision per-step losses, resuming from a
 * saved optimizer state bit for bit, --normalize, evaluation of saved
 * weights, state dicts, and the README's PyTorch script (skipped, with the
 * reason, where `import torch` fails).  Runs build/lockstep on tiny slices.
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
#include <sys/wait.h>
#include <unistd.h>

#include "base/adam_orders.h"
#include "checks/bounds.h"
#include "formats/safetensors.h"
#include "model/model.h"
#include "model/tensor.h"
#include "base/util.h"

#define DATA "/usr/share/datasets/fashion-mnist"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

static char g_bin[PATH_MAX], g_root[PATH_MAX], g_dir[] = "/tmp/ls_train_testXXXXXX";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have_data(void) {
    if (access(DATA "/train-images-idx3-ubyte.gz", R_OK) == 0) return 1;
    print_message("      skipped: no FashionMNIST in " DATA "\n");
    return 0;
}

/* The doubles of json[key] (an array) into out; returns the count. */
static size_t json_doubles(const char *path, const char *key, double *out, size_t cap) {
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) fail_msg("%s: %s", path, err.text);
    json_t *a = json_object_get(j, key);
    if (!json_is_array(a)) fail_msg("%s: no array \"%s\"", path, key);
    size_t n = json_array_size(a);
    for (size_t i = 0; i < n && i < cap; i++) out[i] = json_number_value(json_array_get(a, i));
    json_decref(j);
    return n;
}

static double json_num_at(const char *path, const char *arr, size_t i, const char *key);

/* train --json: every step's loss, the cpu engine's as its float (what
 * --steps prints, in round-trip digits), the reference's as its double
 * (not the float it rounds to). */
static void test_json_losses(void **st) {
    if (!have_data()) skip();
    char js[PATH_MAX + 32], out[PATH_MAX + 32];
    snprintf(js, sizeof js, "%s/cpu.json", g_dir);
    snprintf(out, sizeof out, "%s/cpu.txt", g_dir);
    assert_int_equal(sh("%s train --engine cpu:threads=1 --steps 5 --limit-train 64 --batch 16 --json %s > %s", g_bin,
                        js, out), 0);
    double l[16];
    assert_int_equal(json_doubles(js, "step_losses", l, 16), 5);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[512];
    int k = 0;
    while (fgets(line, sizeof line, f)) {
        long s;
        char num[64];
        if (sscanf(line, "  step %ld loss %63s", &s, num) != 2) continue;
        assert_true(k < 5);
        /* the printed digits and the JSON's read back as the same float */
        assert_true(strtof(num, NULL) == (float)l[k]);
        k++;
    }
    fclose(f);
    assert_int_equal(k, 5);
    snprintf(js, sizeof js, "%s/ref.json", g_dir);
    assert_int_equal(sh("%s train --engine reference --steps 1 --limit-train 32 --batch 8 --json %s > /dev/null", g_bin,
                        js), 0);
    assert_int_equal(json_doubles(js, "step_losses", l, 16), 1);
    assert_true(json_num_at(js, NULL, 0, "step_losses_first_step") == 1);
    /* a double, not a float: the chance that the exact loss is a float is 2^-29 */
    assert_true((double)(float)l[0] != l[0]);
}

/* Run `lockstep ARGS` in g_dir, stdout and stderr into g_dir/out.txt;
 * returns the exit status. */
static int ls(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ls(const char *fmt, ...) {
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return sh("cd %s && timeout 300 %s %s > out.txt 2>&1", g_dir, g_bin, args);
}

static void out_has(const char *needle) {
    if (sh("grep -qF -- '%s' %s/out.txt", needle, g_dir) != 0) {
        sh("cat %s/out.txt", g_dir);
        fail_msg("output lacks '%s'", needle);
    }
}

#define SMALL "--engine cpu:threads=1 --limit-train 100 --batch 16 --epochs 2 --limit-test 100"

/* A run saved with its Adam state at step k and resumed with --init is the
 * uninterrupted run bit for bit: inside an epoch (k = 9, 7 steps per epoch)
 * and at an epoch's end (k = 7), and with dropout (mnist-convnet: masks
 * keyed by the global step). */
static void test_resume_bitwise(void **st) {
    if (!have_data()) skip();
    assert_int_equal(ls("train " SMALL " --save whole.st"), 0);
    const long ks[] = {9, 7};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ls("train " SMALL " --steps %ld --save k.st --save-optimizer", ks[i]), 0);
        assert_int_equal(ls("train " SMALL " --init k.st --save rest.st"), 0);
        out_has("resuming after step");
        assert_int_equal(sh("cmp -s %s/whole.st %s/rest.st", g_dir, g_dir), 0);
    }
    assert_int_equal(ls("train " SMALL " --model mnist-convnet --save whole.st"), 0);
    assert_int_equal(ls("train " SMALL " --model mnist-convnet --steps 3 --save k.st --save-optimizer"), 0);
    assert_int_equal(ls("train " SMALL " --model mnist-convnet --init k.st --steps 10 --save a.st --save-optimizer"), 0);
    assert_int_equal(ls("train " SMALL " --model mnist-convnet --init a.st --save rest.st"), 0);
    assert_int_equal(sh("cmp -s %s/whole.st %s/rest.st", g_dir, g_dir), 0);
    /* without the Adam state the same weights are another run: the check can fail */
    assert_int_equal(ls("train " SMALL " --steps 9 --save k.st"), 0);
    assert_int_equal(ls("train " SMALL " --init k.st --steps 5 --save rest.st"), 0);
    assert_int_equal(ls("train " SMALL " --steps 5 --save whole.st"), 0);
    assert_int_not_equal(sh("cmp -s %s/whole.st %s/rest.st", g_dir, g_dir), 0);
}

/* A resume that would continue another run is refused before any step. */
static void test_resume_refused(void **st) {
    if (!have_data()) skip();
    assert_int_equal(ls("train " SMALL " --steps 4 --save k.st --save-optimizer"), 0);
    assert_int_equal(ls("train " SMALL " --init k.st --lr 2e-3"), 2);
    out_has("k.st: its Adam state was made with lr 0.001");
    /* SMALL with batch 32 instead of 16 (an option is given once) */
    assert_int_equal(ls("train --engine cpu:threads=1 --limit-train 100 --batch 32 --epochs 2 --limit-test 100 "
                        "--init k.st"), 2);
    out_has("saved at step 4 of a run with batch 16 on 100 training images");
    assert_int_equal(ls("train " SMALL " --init k.st --steps 3"), 2);
    out_has("already 4 steps trained, but this run ends at step 3");
    assert_int_equal(sh("grep -q '^  step ' %s/out.txt", g_dir), 1);
}

/* A one-epoch order file with --epochs 3 fails before the first step. */
static void test_order_checked_first(void **st) {
    if (!have_data()) skip();
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/one.txt", g_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 100; i++) fprintf(f, "%d ", 99 - i);
    fprintf(f, "\n");
    fclose(f);
    assert_int_equal(ls("train --engine cpu:threads=1 --limit-train 100 --batch 16 --limit-test 100 --order one.txt"), 2);
    out_has("one.txt: the batch order has 1 epoch(s); this run needs 3 (21 steps of 7 per epoch; --epochs N sets how many)");
    assert_int_equal(sh("grep -q '^epoch 1' %s/out.txt", g_dir), 1);
    assert_int_equal(ls("train --engine cpu:threads=1 --limit-train 100 --batch 16 --limit-test 100 --order one.txt "
                        "--epochs 1"), 0);
    out_has("batch order: one.txt");
    out_has("weights: seeded draw (seed)");
}

/* The first n floats of tensor `name` of a safetensors file. */
static void st_floats(const char *file, const char *name, float *out, size_t n) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", g_dir, file);
    st_file f;
    assert_int_equal(st_read(&f, path), 0);
    const st_tensor *t = st_find(&f, name);
    if (!t) fail_msg("%s: no tensor %s", path, name);
    assert_int_equal(t->dtype, ST_F32);
    assert_true(t->numel >= n);
    memcpy(out, t->data, n * sizeof *out);
    st_free(&f);
}

/* --normalize: every input is torchvision's fp32 (x/255 - mean) / std of
 * the plain input, one rounding per operation; goldens carry it and replay
 * it; a recording made with it is refused by an audit without it. */
static void test_normalize(void **st) {
    if (!have_data()) skip();
    const char *o = "--engine cpu:threads=1 --step 1 --batch 16 --limit-train 64";
    assert_int_equal(ls("export %s --out plain.st", o), 0);
    assert_int_equal(ls("export %s --normalize 0.2860,0.3530 --out norm.st", o), 0);
    enum { N = 16 * 784 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    st_floats("plain.st", "step1/input", a, N);
    st_floats("norm.st", "step1/input", b, N);
    const float mean = (float)0.2860, std = (float)0.3530;
    size_t nonzero = 0;
    for (size_t i = 0; i < N; i++) {
        volatile float d = a[i] - mean; /* two roundings, as sub_ then div_ */
        float want = d / std;
        if (memcmp(&want, &b[i], sizeof want) != 0) fail_msg("input %zu: %.9g, want %.9g", i, b[i], want);
        nonzero += a[i] != 0;
    }
    assert_true(nonzero > N / 4);
    free(a);
    free(b);
    assert_int_equal(ls("golden record --out g.lsg --engine cpu:threads=1 --steps 1 --normalize 0.2860,0.3530"), 0);
    assert_int_equal(ls("golden check g.lsg"), 0);
    assert_int_equal(ls("export g.lsg --step 1 --out gx.st"), 0);
    a = malloc(4 * 784 * sizeof *a);
    b = malloc(4 * 784 * sizeof *b);
    st_floats("gx.st", "step1/input", a, 4 * 784);
    assert_int_equal(ls("export --engine cpu:threads=1 --step 1 --batch 4 --limit-train 512 --normalize 0.2860,0.3530 "
                        "--out lx.st"), 0);
    st_floats("lx.st", "step1/input", b, 4 * 784);
    assert_memory_equal(a, b, 4 * 784 * sizeof *a);
    free(a);
    free(b);
    assert_int_equal(ls("record --engine cpu:threads=1 --out r.lsr --limit-train 64 --batch 16 --epochs 1 "
                        "--limit-test 64 --normalize 0.2860,0.3530"), 0);
    assert_int_equal(ls("audit --engines cpu:threads=1,recorded:r.lsr --limit-train 64 --batch 16 --epochs 1 "
                        "--limit-test 64"), 2);
    out_has("recorded with --normalize 0.286000013,0.352999985, this run has --normalize none");
    assert_int_equal(ls("audit --engines cpu:threads=1 --limit-train 64 --batch 32 --epochs 1 --limit-test 64 "
                        "--normalize 0.2860,0.3530 --out aud"), 0);
    assert_int_equal(sh("grep -q '\"normalize\": \"0.286000013,0.352999985\"' %s/aud/run.json", g_dir), 0);
    assert_int_equal(ls("train --normalize 0.1,0 --steps 1"), 2);
    out_has("--normalize: expected MEAN,STD (two finite numbers, STD not 0");
}

/* The number json[key] of a JSON file's top level, or of its first array element under `arr`. */
static double json_num_at(const char *path, const char *arr, size_t i, const char *key) {
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) fail_msg("%s: %s", path, err.text);
    json_t *o = arr ? json_array_get(json_object_get(j, arr), i) : j;
    json_t *v = o ? json_object_get(o, key) : NULL;
    if (!json_is_number(v)) fail_msg("%s: no number %s[%zu].%s", path, arr ? arr : "", i, key);
    double d = json_number_value(v);
    json_decref(j);
    return d;
}

/* eval of train's --save'd weights: the same loss and accuracy train's own
 * last evaluation printed (same engine, same batches); several engines:
 * the logits within the forward bound, the reference's logits F64 in --out. */
static void test_eval(void **st) {
    if (!have_data()) skip();
    assert_int_equal(ls("train --engine cpu:threads=1 --epochs 1 --limit-train 1024 --batch 128 --limit-test 500 "
                        "--save w.st --json t.json"), 0);
    assert_int_equal(ls("eval --init w.st --engine cpu:threads=1 --limit-test 500 --batch 128 --json e.json --out e.npy"), 0);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/t.json", g_dir);
    double ta = json_num_at(p, "epochs", 0, "test_accuracy"), tl = json_num_at(p, "epochs", 0, "test_loss");
    snprintf(p, sizeof p, "%s/e.json", g_dir);
    assert_true(ta == json_num_at(p, "engines", 0, "accuracy"));
    assert_true(tl == json_num_at(p, "engines", 0, "test_loss"));
    assert_int_equal(sh("head -c 80 %s/e.npy | grep -q \"'descr': '<f4', 'fortran_order': False, 'shape': (500, 10)\"",
                        g_dir), 0);
    assert_int_equal(sh("test $(stat -c %%s %s/e.npy) -eq $((128 + 500 * 10 * 4))", g_dir), 0);
    assert_int_equal(sh("test $(stat -c %%s %s/e.predictions.npy) -eq $((128 + 500 * 8))", g_dir), 0);
    assert_int_equal(ls("eval --init w.st --engines cpu:threads=1,reference --limit-test 40 --batch 20 --json e2.json "
                        "--out e2.st"), 0);
    out_has("cpu:threads=1 vs reference: predictions differ on");
    out_has("0 of 400 over the forward error bound");
    snprintf(p, sizeof p, "%s/e2.st", g_dir);
    st_file f;
    assert_int_equal(st_read(&f, p), 0);
    const st_tensor *t = st_find(&f, "reference/logits");
    assert_non_null(t);
    assert_int_equal(t->dtype, ST_F64);
    assert_int_equal(t->numel, 400);
    assert_non_null(st_find(&f, "cpu:threads=1/predictions"));
    assert_non_null(st_find(&f, "labels"));
    st_free(&f);
    /* the same engine twice: bitwise identical logits, said as such (it read "max |diff| 0 (0 of max |logit|),
     * 0 of 400 over the forward error bound (max |diff| / bound 0): consistent with fp32 rounding") */
    assert_int_equal(ls("eval --init w.st --engines cpu:threads=1,cpu:threads=1 --limit-test 40 --batch 20"), 0);
    out_has("  logits: bitwise identical (all 400)");
    /* bad input, before any engine runs */
    assert_int_equal(ls("eval --engine cpu"), 2);
    out_has("eval: --init W.safetensors is required");
    assert_int_equal(ls("eval --init w.st --steps 3"), 2);
    out_has("option --steps is not for this command");
    assert_int_equal(ls("eval --init w.st --engines cpu,cpu:threads=1 --limit-test 10 --out x.npy"), 2);
    out_has("x.npy: .npy holds one engine");
    assert_int_equal(sh("grep -q '^engine ' %s/out.txt", g_dir), 1); /* refused before any engine ran */
    assert_int_equal(sh("test -e %s/x.npy", g_dir), 1);
}

/* export --state-dict: exactly the weights, under their names, F32 unless
 * --f64 asks for a reference's full values; the same bits as train --save. */
static void test_state_dict(void **st) {
    if (!have_data()) skip();
    const char *o = "--engine cpu:threads=1 --batch 16 --limit-train 64";
    assert_int_equal(ls("export %s --state-dict --step 3 --out sd.st", o), 0);
    assert_int_equal(ls("train %s --steps 3 --save tr.st", o), 0);
    char p[PATH_MAX + 32];
    float *a = malloc(105866 * sizeof *a), *b = malloc(105866 * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    snprintf(p, sizeof p, "%s/sd.st", g_dir);
    st_file f;
    assert_int_equal(st_read(&f, p), 0);
    assert_int_equal(f.n, 8); /* conv1..fc2, weight and bias: nothing else */
    st_free(&f);
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    assert_int_equal(st_load_params(&m, p, a), 0);
    snprintf(p, sizeof p, "%s/tr.st", g_dir);
    assert_int_equal(st_load_params(&m, p, b), 0);
    assert_memory_equal(a, b, m.n_params * sizeof *a);
    /* export resumes from a --save-optimizer file as train does */
    assert_int_equal(ls("train %s --steps 2 --save k2.st --save-optimizer", o), 0);
    assert_int_equal(ls("export %s --init k2.st --state-dict --step 3 --out sd2.st", o), 0);
    snprintf(p, sizeof p, "%s/sd2.st", g_dir);
    assert_int_equal(st_load_params(&m, p, a), 0);
    assert_memory_equal(a, b, m.n_params * sizeof *a);
    assert_int_equal(ls("export %s --init k2.st --step 2 --out x.st", o), 2);
    out_has("k2.st resumes after step 2: --step must be at least 3");
    free(a);
    free(b);
    assert_int_equal(ls("export --engine reference --batch 8 --limit-train 16 --state-dict --f64 --step 1 --out r64.st"), 0);
    snprintf(p, sizeof p, "%s/r64.st", g_dir);
    assert_int_equal(st_read(&f, p), 0);
    assert_int_equal(f.n, 8);
    for (size_t i = 0; i < f.n; i++) assert_int_equal(f.t[i].dtype, ST_F64);
    st_free(&f);
    /* --init takes F32 only, and says so */
    assert_int_equal(ls("train --init r64.st --steps 1"), 2);
    out_has("lockstep starts from fp32 weights (F32)");
    assert_int_equal(ls("export %s --state-dict --f64 --step 1 --out x.st", o), 2);
    out_has("--f64: engine cpu:threads=1 keeps fp32 values only");
    assert_int_equal(ls("export %s --f64 --step 1 --out x.st", o), 2);
    out_has("--f64 goes with --state-dict");
    assert_int_equal(sh("test -e %s/x.st", g_dir), 1);
}

/* a python3 that can import torch and numpy, or NULL */
static const char *find_torch(void) {
    static const char *cands[] = {"python3", "/usr/bin/python3"};
    for (size_t i = 0; i < LS_ARRAY_LEN(cands); i++)
        if (sh("%s -c 'import torch, numpy' >/dev/null 2>&1", cands[i]) == 0) return cands[i];
    return NULL;
}

/* The README's "Matching PyTorch" section as a script (scripts/torch_step1.py):
 * the batch bitwise, the reference's step 1 against PyTorch float64 to
 * 1e-12 normwise (both evaluate the same mathematics in double or better:
 * measured 1e-16 plain, 2.4e-14 with --normalize), the cpu loss the same
 * float as PyTorch fp32's, Adam state mapped both ways, eval's predictions
 * PyTorch's image for image; then step 1 again with torchvision's
 * Normalize((0.2860,), (0.3530,)). */
static void test_torch_step1(void **st) {
    if (UNDER_ASAN) {
        print_message("      skipped under ASan: the normal build's suite runs it; the lockstep commands it calls "
                      "are exercised under ASan by this file's other tests, and PyTorch would add about a minute\n");
        skip();
    }
    const char *py = find_torch();
    if (!py) {
        print_message("      skipped: `import torch` fails in python3 (apt-get install python3-torch to run it)\n");
        skip();
    }
    if (!have_data()) skip();
    assert_int_equal(sh("%s %s/scripts/torch_step1.py --lockstep %s --dir %s/t1 --tol 1e-12", py, g_root, g_bin, g_dir), 0);
    assert_int_equal(sh("%s %s/scripts/torch_step1.py --lockstep %s --dir %s/t2 --tol 1e-12 --normalize 0.2860,0.3530 --step1-only", py,
                        g_root, g_bin, g_dir), 0);
}

/* scripts/torch_NAME.py run by the python3 that imports torch, its file
 * opened; NULL (the caller skips) where none does */
static FILE *torch_written(const char *name) {
    const char *py = find_torch();
    if (!py) {
        print_message("      skipped: `import torch` fails in python3 (apt-get install python3-torch to run it)\n");
        return NULL;
    }
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s.bin", g_dir, name);
    assert_int_equal(sh("%s %s/scripts/torch_%s.py %s", py, g_root, name, path), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    return f;
}

/* PyTorch's own Adam, as the installed build runs it (scripts/
 * torch_adam_orders.py: torch.optim.Adam with foreach=False and True, and,
 * where the build is 1.x, PyTorch 2.x's single-tensor Adam written with the
 * build's ops), is a named legal order (base/adam_orders.h) on every
 * element of every step, with lockstep's own scalars (adam_make_scalars,
 * adam_order_scalars): an engine that runs PyTorch's Adam is recognised bit
 * for bit by the every-step Adam re-check, not left a SUSPECT.  Measured on
 * Debian's python3-torch 1.13.1 (CPU capability AVX2): variants 0 and 1 are
 * torch1-cpu and no other order, variant 2 torch-cpu-fma and no other;
 * before torch1-cpu was named, 0 and 1 matched no order (their m is
 * fma-alt's, their v torch-cpu-fma's). */
static void test_torch_adam_orders(void **st) {
    FILE *f = torch_written("adam_orders");
    if (!f) skip();
    static const char *what[3] = {"torch.optim.Adam(foreach=False)", "torch.optim.Adam(foreach=True)",
                                  "PyTorch 2.x's single-tensor Adam in this build's ops"};
    unsigned both[3] = {ADAM_ORDER_ALL, ADAM_ORDER_ALL, ADAM_ORDER_ALL};
    size_t elems[3] = {0};
    int32_t hd[4];
    double hp[4];
    while (fread(hd, sizeof *hd, 4, f) == 4) {
        assert_int_equal(fread(hp, sizeof *hp, 4, f), 4);
        int var = hd[0], t = hd[2];
        size_t n = (size_t)hd[1];
        assert_true(var >= 0 && var < 3 && hd[1] > 0 && hd[1] < (1 << 24) && t >= 1);
        float *a = malloc(7 * n * sizeof *a);
        assert_non_null(a);
        assert_int_equal(fread(a, sizeof *a, 7 * n, f), 7 * n);
        adam_cfg cfg = {hp[0], hp[1], hp[2], hp[3]};
        adam_scalars s = adam_make_scalars(&cfg, t);
        float osc[ADAM_ORDER_NSC] = {s.beta1, s.one_minus_beta1, s.beta2, s.one_minus_beta2, s.step_size, s.bc2_sqrt,
                                     s.eps};
        adam_order_scalars(cfg.lr, cfg.beta1, cfg.beta2, t, osc + 7);
        const float *p0 = a, *m0 = a + n, *v0 = a + 2 * n, *g = a + 3 * n, *p = a + 4 * n, *m = a + 5 * n,
                    *v = a + 6 * n;
        for (size_t i = 0; i < n; i++) both[var] &= adam_orders_match(p0[i], m0[i], v0[i], g[i], osc, p[i], m[i], v[i]);
        elems[var] += n;
        free(a);
    }
    fclose(f);
    for (int k = 0; k < 3; k++) {
        if (!elems[k]) continue; /* variant 2 is not written by a 2.x build */
        char names[600] = "";
        for (int o = 0; o < ADAM_ORDER_COUNT; o++)
            if (both[k] >> o & 1u)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? "; " : "",
                         adam_order_name(o));
        print_message("      %s, %zu element-steps: %s\n", what[k], elems[k], *names ? names : "NO named order");
        assert_true(both[k] != 0);
    }
    assert_true(elems[0] > 0 && elems[1] > 0);
}

/* PyTorch's fp32 softmax cross-entropy, as the installed build computes it
 * (scripts/torch_xent.py: F.cross_entropy forward and backward on 28
 * batches of 256 x 10 logits, scales 1e-3..60, offsets -50 and +80, near
 * one-hot rows), is within lockstep's loss bounds (bounds_loss: the value
 * and every logit gradient) against the exact values (long double: its
 * 64-bit significand's error is ~2^-40 of fp32's bound): an engine whose
 * loss is PyTorch's is not blamed.  Measured on 1.13.1: the gradients'
 * worst 0.81 of their bound (p_j ~ 1e-31 rows), the loss's 0.01. */
static void test_torch_xent(void **st) {
    FILE *f = torch_written("xent");
    if (!f) skip();
    int32_t hd[4];
    int batches = 0;
    double worst_dz = 0, worst_loss = 0;
    size_t elems = 0;
    while (fread(hd, sizeof *hd, 4, f) == 4) {
        size_t n = (size_t)hd[2], C = (size_t)hd[3];
        assert_true(hd[2] > 0 && hd[2] <= 4096 && hd[3] > 1 && hd[3] <= 1000);
        float *z = malloc(n * C * sizeof *z), *dz = malloc(n * C * sizeof *dz), loss = 0;
        int32_t *y = malloc(n * sizeof *y);
        double *bdz = malloc(n * C * sizeof *bdz), bl = 0;
        assert_true(z && dz && y && bdz);
        assert_int_equal(fread(z, sizeof *z, n * C, f), n * C);
        assert_int_equal(fread(y, sizeof *y, n, f), n);
        assert_int_equal(fread(&loss, sizeof loss, 1, f), 1);
        assert_int_equal(fread(dz, sizeof *dz, n * C, f), n * C);
        assert_int_equal(bounds_loss(z, y, n, (int)C, &bl, bdz), 0);
        long double L = 0;
        for (size_t i = 0; i < n; i++) {
            long double mx = z[i * C];
            for (size_t j = 1; j < C; j++) mx = z[i * C + j] > mx ? z[i * C + j] : mx;
            long double s = 0;
            for (size_t j = 0; j < C; j++) s += expl((long double)z[i * C + j] - mx);
            long double lse = mx + logl(s);
            L += lse - z[i * C + (size_t)y[i]];
            for (size_t j = 0; j < C; j++) {
                long double want = (expl((long double)z[i * C + j] - lse) - ((int32_t)j == y[i])) / (long double)n;
                double err = (double)fabsl((long double)dz[i * C + j] - want);
                if (err > bdz[i * C + j])
                    fail_msg("regime %d batch %d, element (%zu, %zu): PyTorch's dz %.9g is %.3g from the exact, over its "
                             "bound %.3g", hd[0], hd[1], i, j, dz[i * C + j], err, bdz[i * C + j]);
                if (bdz[i * C + j] > 0 && err / bdz[i * C + j] > worst_dz) worst_dz = err / bdz[i * C + j];
            }
        }
        double el = (double)fabsl((long double)loss - L / (long double)n);
        if (el > bl) fail_msg("regime %d batch %d: PyTorch's loss %.9g is %.3g from the exact, over its bound %.3g", hd[0],
                              hd[1], loss, el, bl);
        worst_loss = el / bl > worst_loss ? el / bl : worst_loss;
        elems += n * C, batches++;
        free(z), free(dz), free(y), free(bdz);
    }
    fclose(f);
    print_message("      %d batches, %zu logit gradients: worst %.3g of their bound, the loss %.3g of its\n", batches,
                  elems, worst_dz, worst_loss);
    assert_int_equal(batches, 28);
}

static int setup(void **st) {
    ssize_t n = readlink("/proc/self/exe", g_bin, sizeof g_bin - 32);
    if (n <= 0) return -1;
    g_bin[n] = 0;
    char *slash = strrchr(g_bin, '/');
    if (!slash) return -1;
    strcpy(slash, "/../lockstep");
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", g_bin);
    if (!realpath(tmp, g_bin)) return -1;
    snprintf(g_root, sizeof g_root, "%s", g_bin);
    for (int i = 0; i < 2; i++) *strrchr(g_root, '/') = 0; /* <root>/build/lockstep -> <root> */
    if (!mkdtemp(g_dir)) return -1;
    return access(g_bin, X_OK) == 0 ? 0 : -1;
}

static int teardown(void **st) {
    sh("rm -rf '%s'", g_dir);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_losses),
        cmocka_unit_test(test_resume_bitwise),
        cmocka_unit_test(test_resume_refused),
        cmocka_unit_test(test_order_checked_first),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_state_dict),
        cmocka_unit_test(test_torch_step1),
        cmocka_unit_test(test_torch_adam_orders),
        cmocka_unit_test(test_torch_xent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
