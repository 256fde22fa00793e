/*
 * test_cli.c — the command line's bad-input paths, run as a user would:
 * build/lockstep with a bad option, value, file or engine must exit 2 with
 * a message that names the problem (and the file, where there is one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_bin[PATH_MAX];

/* Run `lockstep ARGS` (stdout and stderr together); returns the exit status
 * and leaves the output in out. */
static int run(const char *args, char *out, size_t cap) {
    char cmd[PATH_MAX + 512];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1 </dev/null", g_bin, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect(const char *args, int code, const char *needle) {
    char out[8192];
    int rc = run(args, out, sizeof out);
    if (rc != code) fail_msg("lockstep %s: exit %d, expected %d; output:\n%s", args, rc, code, out);
    if (needle && !strstr(out, needle)) fail_msg("lockstep %s: output lacks '%s':\n%s", args, needle, out);
}

static int setup(void **st) {
    /* build/tests/test_cli -> build/lockstep */
    ssize_t n = readlink("/proc/self/exe", g_bin, sizeof g_bin - 32);
    if (n <= 0) return -1;
    g_bin[n] = 0;
    char *slash = strrchr(g_bin, '/');
    if (!slash) return -1;
    strcpy(slash, "/../lockstep");
    return access(g_bin, X_OK) == 0 ? 0 : -1;
}

static void test_usage_errors(void **st) {
    expect("", 2, "usage");
    expect("frobnicate", 2, "unknown command 'frobnicate'");
    expect("train --bogus", 2, "unknown option '--bogus'");
    expect("train --epochs x", 2, "--epochs: expected an integer");
    expect("train --batch 0", 2, "--batch");
    expect("train --lr", 2, "needs a value");
    expect("train stray", 2, "unexpected argument 'stray'");
    expect("train --mode free", 2, "not for this command");
    expect("audit --mode wobble", 2, "unknown mode 'wobble'");
    expect("audit --repeat 3", 2, "--repeat");
    expect("--help", 0, "lockstep audit");
}

static void test_bad_inputs(void **st) {
    expect("train --data /nonexistent/dir --epochs 1", 2, "/nonexistent/dir/train-images-idx3-ubyte");
    char spec[] = "/tmp/ls_cli_specXXXXXX";
    int fd = mkstemp(spec);
    assert_true(fd >= 0);
    const char *text = "input 1 28 28\nconv 8 3\nconv 8 40\ndense 10\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char args[256], needle[256];
    snprintf(args, sizeof args, "train --model %s", spec);
    snprintf(needle, sizeof needle, "%s:3: impossible shape", spec);
    expect(args, 2, needle);
    unlink(spec);
    expect("train --engine cpu:bogus=1 --limit-train 16 --epochs 1", 2, "unknown knob 'bogus'");
    expect("train --engine tpu --limit-train 16 --epochs 1", 2, "unknown engine 'tpu'");
    expect("audit --engines cpu --limit-train 16 --batch 16 --epochs 1 --no-eval --out /proc/no/such/dir", 2,
           "/proc/no/such/dir");
    expect("golden check /nonexistent/x.lsg", 2, "/nonexistent/x.lsg");
    /* without a GPU, cuda is unavailable with its reason; with one it trains */
    char out[8192];
    int rc = run("train --engine cuda --limit-train 256 --limit-test 256 --epochs 1", out, sizeof out);
    if (rc == 2) assert_non_null(strstr(out, "cuda: unavailable ("));
    else assert_int_equal(rc, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
