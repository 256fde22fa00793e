/*
 * test_sweep.c — `lockstep sweep` (src/commands/sweep.c) end to end, with
 * build/lockstep as a user runs it:
 *   - resources: --dry-run shows --gres=gpu:1 for cuda, --cpus-per-task=N
 *     for threads=N, one array per (partition, resources), the merge's
 *     afterany dependency on every array;
 *   - bad input: a malformed --on, a reference engine, no folder, --slurm
 *     without sbatch on PATH: exit 2 naming the problem; a different plan in an existing folder is refused
 *     naming the field (batch), and the folder's plan is left as it was;
 *   - a real one-node Slurm (scripts/slurm-local.sh: slurmctld + slurmd +
 *     munged, partitions cpu-a and cpu-b standing in for two machine types):
 *     a plan with a partition Slurm does not have -> exit 2, and the array
 *     submitted before the refusal is cancelled (none runs without a merge);
 *     arrays cancelled by name while pending -> the merged verdict names
 *     each task cancelled (not "never run");
 *     2 machines x 2 engines (cpu, cpu:threads=1) x 2 seeds of tiny runs
 *     submitted as job arrays with a merge job; the first task is cancelled
 *     with scancel while it writes its recording -> no file, temporary or
 *     final, is left for it, --status says cancelled, and the merged verdict
 *     is incomplete naming task 0; the same command again runs that task
 *     only, and its merge job is cancelled while it audits -> report/ is the
 *     old one, whole; the same command once more -> complete, with verdicts
 *     per seed and the significance section per machine type; --wait whose
 *     merge job is cancelled -> exit 1 naming the job, not the earlier
 *     report's "complete"; --wait whose merge refuses a recording -> exit 2;
 *     a folder named with a space, a quote and a '%' -> complete, its logs
 *     in its log/;
 *   - the local backend (--local --jobs 2) on the same plan in another
 *     folder: every recording bitwise the same as Slurm's (sweep_recordings_same:
 *     every tensor and step record, every provenance key but the date and
 *     the measured seconds), and the verdicts file byte for byte the same.
 * The runs are 4 steps of batch 16 (64 images), every step shadowed by the
 * reference (--ref-steps 0 --audit-every 1): one shadow replay per
 * recording of a seed, so every recording is checked, at a quarter of the
 * reference's cost at batch 64 (~2 minutes in all on a loaded 2-core machine).
 *   - the local backend alone on one-step runs (also under ASan): complete,
 *     the significance section, the note that one shadow replay leaves one
 *     of two recordings per seed unchecked, and a second run that runs
 *     nothing and gives the same verdicts.
 * Where slurmd cannot start here, the Slurm case calls skip() with the
 * script's reason.  Under ASan the Slurm case is skipped too: its 17
 * trainings and 4 merges take many minutes there; the normal build runs it.
 * Slurm is stopped in the teardown, whatever happened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands/sweep.h"
#include "formats/data.h"

/* paths: a mkdtemp() folder plus short tails, far below PATH_MAX */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

static char g_bin[PATH_MAX], g_root[PATH_MAX], g_tmp[64];
static int g_slurm_started;

static const char *PLAN = "--on cpu-a=cpu,cpu:threads=1 --on cpu-b=cpu,cpu:threads=1 --seeds 42,43 "
                          "--limit-train 64 --limit-test 100 --batch 16 --epochs 1 --ref-steps 0 --audit-every 1";

/* Run a shell command line; its output into out (may be NULL).  Returns the exit status. */
static int sh(char *out, size_t cap, const char *fmt, ...) {
    char cmd[4096], log[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(log, sizeof log, "%s/cmd.out", g_tmp);
    char full[4300];
    snprintf(full, sizeof full, "( %s ) > %s 2>&1", cmd, log);
    int st = system(full);
    if (out) {
        FILE *f = fopen(log, "r");
        size_t n = f ? fread(out, 1, cap - 1, f) : 0;
        out[n] = 0;
        if (f) fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int read_file(const char *path, char *out, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    fclose(f);
    return 0;
}

/* Any name containing ".tmp." under dir (recursively): a half-written file. */
static int count_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) n += count_tmp(sub);
        else n += strstr(e->d_name, ".tmp.") != NULL;
    }
    closedir(d);
    return n;
}

static int group_setup(void **st) {
    ssize_t n = readlink("/proc/self/exe", g_bin, sizeof g_bin - 32);
    if (n <= 0) return -1;
    g_bin[n] = 0;
    char *slash = strrchr(g_bin, '/');
    *slash = 0;
    snprintf(g_root, sizeof g_root, "%s/../..", g_bin);
    strcat(g_bin, "/../lockstep");
    snprintf(g_tmp, sizeof g_tmp, "/tmp/lockstep-sweep-XXXXXX");
    return mkdtemp(g_tmp) ? 0 : -1;
}

static int group_teardown(void **st) {
    if (g_slurm_started) sh(NULL, 0, "bash %s/scripts/slurm-local.sh stop", g_root);
    sh(NULL, 0, "rm -rf %s", g_tmp);
    return 0;
}

static void test_bad_input(void **st) {
    char out[8192];
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a --seeds 2 --dir %s/bad", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "PARTITION=ENGINE"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=reference --seeds 2 --dir %s/bad", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "the merge runs the reference"));
    /* an unknown engine, knob or cuda value was planned and submitted, and every task failed on its node after
     * the queue's wait ("lockstep record exited with status 2 (its message is in the task's log)"): refused
     * here, naming the partition, the engine and what is wrong, and no --dir is made */
    const char *unknown[][2] = {
        {"cpux", "--on cpu-a: unknown engine 'cpux' (known: cpu, reference, cuda, recorded:PATH)"},
        {"cpu,cpu:thread=1", "--on cpu-a: engine cpu:thread=1: unknown knob 'thread' (known: threads,"},
        {"cpu:perturb=1", "perturb= and draw= are audit's own"},
        {"cuda:math=tf23", "--on cpu-a: engine cuda:math=tf23: unknown value 'tf23' for knob math (known: fma, tf32)"},
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        int rc = sh(out, sizeof out, "%s sweep --local --on cpu-a=%s --seeds 1 --dir %s/unknown", g_bin,
                    unknown[i][0], g_tmp);
        if (rc != 2 || !strstr(out, unknown[i][1]))
            fail_msg("--on cpu-a=%s: exit %d, want 2 and '%s':\n%s", unknown[i][0], rc, unknown[i][1], out);
        char ud[PATH_MAX + 32];
        snprintf(ud, sizeof ud, "%s/unknown", g_tmp);
        assert_int_not_equal(access(ud, F_OK), 0);
    }
    /* an empty entry in a list was skipped (cpu,,cpu:threads=1 swept two engines; 42,,43 two seeds), and the
     * refused command left its --dir behind */
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=cpu,,cpu:threads=1 --seeds 2 --dir %s/empty1",
                        g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "--on cpu-a: empty engine name at position 2 in 'cpu,,cpu:threads=1'"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=cpu --seeds 42,,43 --dir %s/empty2", g_bin,
                        g_tmp), 2);
    assert_non_null(strstr(out, "--seeds: empty seed at position 2 in '42,,43'"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=cpu --seeds 42, --dir %s/empty2", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "--seeds: empty seed at position 2 in '42,'"));
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/empty1", g_tmp);
    assert_int_not_equal(access(dir, F_OK), 0);
    snprintf(dir, sizeof dir, "%s/empty2", g_tmp);
    assert_int_not_equal(access(dir, F_OK), 0);
    /* a second value replaced the first; --local --dry-run printed Slurm's sbatch lines */
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=cpu --seeds 2 --seeds 3 --dir %s/empty3", g_bin,
                        g_tmp), 2);
    assert_non_null(strstr(out, "lockstep sweep: option --seeds given twice"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --slurm --local --on cpu-a=cpu --dir %s/empty3", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "--slurm and --local: give one backend"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --dry-run --on cpu-a=cpu --dir %s/empty3", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "--dry-run goes with --slurm"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/a --merge %s/b", g_bin, g_tmp, g_tmp), 2);
    assert_non_null(strstr(out, "one of --status, --merge and --task at a time"));
    snprintf(dir, sizeof dir, "%s/empty3", g_tmp);
    assert_int_not_equal(access(dir, F_OK), 0);
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=cpu", g_bin), 2);
    assert_non_null(strstr(out, "--dir"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/nothing-here", g_bin, g_tmp), 2);
    /* --slurm without Slurm's clients: "sbatch failed (status 127): " and nothing more, after the folder and
     * its plan were made; now said, and no folder */
    assert_int_equal(sh(out, sizeof out, "PATH=/nonexistent %s sweep --slurm --on cpu-a=cpu --seeds 1 --dir %s/noslurm",
                        g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "lockstep sweep: --slurm: sbatch is not on PATH"));
    snprintf(dir, sizeof dir, "%s/noslurm", g_tmp);
    assert_int_not_equal(access(dir, F_OK), 0);
    /* a folder name with a quote: the job scripts are shell that parses (without Slurm: --dry-run writes them) */
    assert_int_equal(sh(out, sizeof out, "%s sweep --slurm --dry-run --on cpu-a=cpu --seeds 1 --limit-train 64 "
                        "--dir \"%s/it's dry\" && sh -n \"%s/it's dry/slurm/task.sh\" && "
                        "sh -n \"%s/it's dry/slurm/merge.sh\"", g_bin, g_tmp, g_tmp, g_tmp), 0);
    /* resources follow from the engine: a GPU for cuda, the cores of threads=N (no Slurm needed to see it) */
    assert_int_equal(sh(out, sizeof out, "%s sweep --slurm --dry-run --on gpu-x=cuda,cpu:threads=3 --seeds 42,43 "
                        "--limit-train 64 --dir %s/dry", g_bin, g_tmp), 0);
    assert_non_null(strstr(out, "--partition=gpu-x --array=0,1 --cpus-per-task=1 --gres=gpu:1"));
    assert_non_null(strstr(out, "--partition=gpu-x --array=2,3 --cpus-per-task=3 --output="));
    assert_non_null(strstr(out, "--dependency=afterany:DRYRUN1:DRYRUN2"));
    /* a plan, then another plan in the same folder */
    char plan[PATH_MAX], before[4096], after[4096];
    snprintf(plan, sizeof plan, "%s/p1/plan.json", g_tmp);
    sh(NULL, 0, "mkdir -p %s/p1", g_tmp);
    FILE *f = fopen(plan, "w");
    assert_non_null(f);
    /* the plan of `--on cpu-a=cpu --seeds 1 --batch 64` written by hand: the reader takes what the writer writes */
    fprintf(f, "{\n  \"magic\": \"lockstep-sweep-plan\",\n  \"version\": 1,\n  \"model\": \"smallcnn\",\n"
            "  \"data\": \"%s\",\n  \"epochs\": 1,\n  \"batch\": 64,\n  \"lr\": 0.001,\n  \"limit_train\": 128,\n"
            "  \"limit_test\": 100,\n  \"threads\": 0,\n  \"audit_every\": 50,\n  \"ref_steps\": 2,\n  \"seeds\": [42],\n"
            "  \"machines\": [\"cpu-a=cpu\"]\n}\n", DATA_DEFAULT_DIR);
    fclose(f);
    assert_int_equal(read_file(plan, before, sizeof before), 0);
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/p1", g_bin, g_tmp), 0);
    assert_non_null(strstr(out, "missing"));
    assert_int_equal(sh(out, sizeof out, "%s sweep --local --on cpu-a=cpu --seeds 1 --epochs 1 --limit-train 128 "
                        "--limit-test 100 --batch 32 --dir %s/p1", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "field 'batch' differs"));
    assert_int_equal(read_file(plan, after, sizeof after), 0);
    assert_string_equal(before, after);
    /* another version is refused naming the field */
    sh(NULL, 0, "sed -i 's/\"version\": 1/\"version\": 9/' %s", plan);
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/p1", g_bin, g_tmp), 2);
    assert_non_null(strstr(out, "field 'version' is 9"));
    /* a seed twice (two tasks of one recording), a negative seed, one past 2^63 (read as 2^63 - 1) were taken */
    const char *bad_seeds[] = {"42, 42", "42, -5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_seeds / sizeof bad_seeds[0]; i++) {
        sh(NULL, 0, "sed -i -e 's/\"version\": 9/\"version\": 1/' -e 's/\"seeds\": \\[.*\\]/\"seeds\": [%s]/' %s",
           bad_seeds[i], plan);
        int rc = sh(out, sizeof out, "grep -F '\"seeds\": [%s]' %s && %s sweep --status %s/p1", bad_seeds[i], plan,
                    g_bin, g_tmp);
        if (rc != 2 || !strstr(out, "plan.json: line 14: bad value for field 'seeds'"))
            fail_msg("plan.json with seeds [%s]: exit %d, want 2 naming the field:\n%s", bad_seeds[i], rc, out);
    }
}

/* The Slurm job id of the array that holds task id (DIR/slurm/jobs.tsv), or "" */
static void array_of(const char *dir, int id, char *job, size_t cap) {
    char path[PATH_MAX], line[512];
    snprintf(path, sizeof path, "%s/slurm/jobs.tsv", dir);
    job[0] = 0;
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        char kind[16], j[40], part[64], list[256];
        if (sscanf(line, "%15s %39s %63s %255s", kind, j, part, list) == 4 && !strcmp(kind, "array")) {
            char *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (atoi(t) == id) snprintf(job, cap, "%s", j);
        }
    }
    if (f) fclose(f);
}

static void last_merge(const char *dir, char *job, size_t cap) {
    char path[PATH_MAX], line[512];
    snprintf(path, sizeof path, "%s/slurm/jobs.tsv", dir);
    job[0] = 0;
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        char kind[16], j[40];
        if (sscanf(line, "%15s %39s", kind, j) == 2 && !strcmp(kind, "merge")) snprintf(job, cap, "%s", j);
    }
    if (f) fclose(f);
}

/* Wait (at most s seconds) until file exists and, if want, contains it. */
static int wait_for(const char *path, const char *want, int s) {
    static char buf[1 << 16];
    for (int i = 0; i < s * 10; i++) {
        if (read_file(path, buf, sizeof buf) == 0 && (!want || strstr(buf, want))) return 0;
        usleep(100 * 1000);
    }
    return -1;
}

/* Wait until Slurm has no job of ours left (the merge included). */
static int wait_idle(int s) {
    char out[4096];
    for (int i = 0; i < s * 5; i++) {
        if (sh(out, sizeof out, "squeue -h -o %%i") == 0 && out[0] == 0) return 0;
        usleep(200 * 1000);
    }
    return -1;
}

static void test_slurm_end_to_end(void **st) {
    if (UNDER_ASAN) {
        fprintf(stderr, "test_sweep: the Slurm case skipped under ASan (17 trainings and 4 merges take many minutes "
                "there; test_local_small covers the same code, the normal build runs this)\n");
        skip();
        return;
    }
    if (access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0) {
        fprintf(stderr, "test_sweep: no FashionMNIST in %s (dataset-fashion-mnist)\n", DATA_DEFAULT_DIR);
        skip();
        return;
    }
    char out[1 << 15], conf[PATH_MAX];
    double t0;
    int rc = sh(out, sizeof out, "bash %s/scripts/slurm-local.sh start", g_root);
    g_slurm_started = 1;
    if (rc != 0) {
        fprintf(stderr, "test_sweep: skipped: a local Slurm could not start here: %s\n", out);
        skip();
        return;
    }
    char *ex = strstr(out, "SLURM_CONF=");
    assert_non_null(ex);
    snprintf(conf, sizeof conf, "%s", ex + 11);
    conf[strcspn(conf, "\n")] = 0;
    setenv("SLURM_CONF", conf, 1);
    assert_int_equal(wait_idle(60), 0); /* nothing of an earlier run in the way */

    char d1[PATH_MAX], d2[PATH_MAX], path[PATH_MAX], job[40], buf[1 << 15];
    snprintf(d1, sizeof d1, "%s/slurm", g_tmp);
    snprintf(d2, sizeof d2, "%s/local", g_tmp);
    /* 0. an sbatch refused part way (no partition nopart): the array already submitted for cpu-a ran without
     * a merge job, and the error did not say so; now it is cancelled, and the message says which */
    rc = sh(out, sizeof out, "%s sweep --slurm --on cpu-a=cpu:threads=1 --on nopart=cpu:threads=1 --seeds 1 "
            "--limit-train 16 --limit-test 50 --batch 16 --epochs 1 --dir %s/badpart", g_bin, g_tmp);
    if (rc != 2 || !strstr(out, "nopart") || !strstr(out, "; cancelled what this command had submitted (job array "))
        fail_msg("a partition that does not exist: exit %d, want 2, naming it and what was cancelled:\n%s", rc, out);
    assert_int_equal(wait_idle(60), 0);
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/badpart", g_bin, g_tmp), 0);
    if (!strstr(out, "done 0,") || !strstr(out, "cancelled 1,") || !strstr(out, "missing 1"))
        fail_msg("after the refused submission: want nothing done, cpu-a's task cancelled:\n%s", out);
    /* 0b. the sweep's arrays cancelled by name (scancel --name, as one cancels a whole sweep) while pending
     * (an exclusive job holds the node): Slurm keeps one record per array, ArrayTaskId=4294967294; --status and the merge said "missing: never run (... no record of the
     * task)"; now each task is cancelled, with Slurm's words */
    char blocker[64];
    assert_int_equal(sh(blocker, sizeof blocker, "sbatch --parsable --exclusive --partition=cpu-a --job-name=blocker "
                        "--output=/dev/null --wrap 'sleep 300'"), 0);
    blocker[strcspn(blocker, "\n")] = 0;
    rc = sh(out, sizeof out, "%s sweep --slurm --on cpu-a=cpu:threads=1 --on cpu-b=cpu:threads=1 --seeds 2 "
            "--limit-train 16 --limit-test 50 --batch 16 --epochs 1 --dir %s/pending && scancel --name=lockstep-sweep",
            g_bin, g_tmp);
    sh(NULL, 0, "scancel %s", blocker);
    if (rc) fail_msg("submit and scancel: %s", out);
    snprintf(path, sizeof path, "%s/pending/report/verdict.txt", g_tmp);
    assert_int_equal(wait_for(path, NULL, 120), 0);
    assert_int_equal(wait_idle(60), 0);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    if (!strstr(buf, "task 0 (cpu-a, cpu:threads=1, seed 42): cancelled: Slurm: CANCELLED") ||
        !strstr(buf, "task 3 (cpu-b, cpu:threads=1, seed 43): cancelled: Slurm: CANCELLED") || strstr(buf, "never run"))
        fail_msg("arrays cancelled while pending: want each task cancelled in the merged verdict:\n%s", buf);
    /* 1. submit; cancel task 0 while it writes its recording */
    t0 = ls_now();
    assert_int_equal(sh(out, sizeof out, "%s sweep --slurm %s --dir %s", g_bin, PLAN, d1), 0);
    assert_non_null(strstr(out, "8 to run"));
    array_of(d1, 0, job, sizeof job);
    assert_true(job[0]);
    /* while it runs, --status asks Slurm about what the folder does not hold yet */
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s", g_bin, d1), 0);
    assert_true(strstr(out, "pending") != NULL || strstr(out, "running") != NULL);
    assert_non_null(strstr(out, "Slurm: "));
    int found = 0;
    for (int i = 0; i < 600 && !found; i++) {
        snprintf(path, sizeof path, "%s/rec/cpu-a/cpu", d1);
        found = count_tmp(path) > 0;
        if (!found) usleep(50 * 1000);
    }
    assert_true(found); /* the recording was being written when the task was cancelled */
    assert_int_equal(sh(out, sizeof out, "scancel %s_0", job), 0);
    snprintf(path, sizeof path, "%s/report/verdict.txt", d1);
    assert_int_equal(wait_for(path, NULL, 240), 0);
    assert_int_equal(wait_idle(60), 0);
    fprintf(stderr, "test_sweep: Slurm sweep with task 0 cancelled: %.1f s\n", ls_now() - t0);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "incomplete"));
    assert_non_null(strstr(buf, "task 0 (cpu-a, cpu, seed 42): cancelled"));
    assert_int_equal(count_tmp(d1), 0);
    snprintf(path, sizeof path, "%s/rec/cpu-a/cpu/42.lsr", d1);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s", g_bin, d1), 0);
    assert_non_null(strstr(out, "done 7,"));
    assert_non_null(strstr(out, "cancelled 1"));

    /* 2. the same command: task 0 only; its merge cancelled while it audits */
    assert_int_equal(sh(out, sizeof out, "%s sweep --slurm %s --dir %s", g_bin, PLAN, d1), 0);
    assert_non_null(strstr(out, "1 to run"));
    last_merge(d1, job, sizeof job);
    snprintf(path, sizeof path, "%s/log/merge.%s.out", d1, job);
    assert_int_equal(wait_for(path, "seed 42: audit", 240), 0);
    assert_int_equal(sh(out, sizeof out, "scancel %s", job), 0);
    assert_int_equal(wait_idle(60), 0);
    snprintf(path, sizeof path, "%s/report/verdict.txt", d1);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "incomplete")); /* the old report, whole */
    snprintf(path, sizeof path, "%s/rec/cpu-a/cpu/42.lsr", d1);
    assert_int_equal(access(path, R_OK), 0);

    /* 3. once more: nothing to record, the merge finishes it */
    t0 = ls_now();
    rc = sh(out, sizeof out, "%s sweep --slurm --wait %s --dir %s", g_bin, PLAN, d1);
    fprintf(stderr, "test_sweep: Slurm merge only: %.1f s\n", ls_now() - t0);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "0 to run"));
    assert_non_null(strstr(out, "sweep: complete: 8 recordings"));
    snprintf(path, sizeof path, "%s/report/report.md", d1);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "### seed 42"));
    assert_non_null(strstr(buf, "### seed 43"));
    assert_non_null(strstr(buf, "## Machines"));
    assert_non_null(strstr(buf, "### cpu-b"));
    assert_non_null(strstr(buf, "## Significance across 2 seeds"));
    assert_non_null(strstr(buf, "| cpu-a/cpu vs cpu-b/cpu |"));
    assert_int_equal(count_tmp(d1), 0);
    DIR *dd = opendir(d1);
    struct dirent *e;
    while (dd && (e = readdir(dd))) assert_null(strstr(e->d_name, "report.tmp")); /* the cancelled merge's, removed */
    if (dd) closedir(dd);
    /* the merge job's console names the report's final folder, not report.tmp.PID */
    last_merge(d1, job, sizeof job);
    snprintf(path, sizeof path, "%s/log/merge.%s.out", d1, job);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "report: %s/report/seed-43/report.md", d1);
    if (strstr(buf, "report.tmp.") || !strstr(buf, want)) fail_msg("merge log: want '%s', no report.tmp.:\n%s", want, buf);
    /* --wait --fail-on: the merge ran in its job; the waiter gates on its summary.json's "found" */
    snprintf(path, sizeof path, "%s/report/summary.json", d1);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    const char *fl = strstr(buf, "\"found\": [");
    assert_non_null(fl);
    int any = fl[10] != ']';
    rc = sh(out, sizeof out, "%s sweep --slurm --wait --fail-on problem,suspect,unchecked,nondeterminism,incomplete %s "
            "--dir %s", g_bin, PLAN, d1);
    if (rc != any || (strstr(out, "exit 1: --fail-on: a merged seed's audit found") != NULL) != any)
        fail_msg("--wait --fail-on: exit %d, want %d (summary.json: %.80s):\n%s", rc, any, fl, out);
    assert_int_equal(wait_idle(60), 0);

    /* 3b. --wait whose merge job is cancelled: report/ stays the earlier merge's ("complete"), and the waiter
     * printed that verdict as this sweep's and exited 0; now it says the merge job ended without a report */
    char prev[40];
    last_merge(d1, prev, sizeof prev);
    rc = sh(out, sizeof out, "%s sweep --slurm --wait %s --dir %s & w=$!; for i in $(seq 600); do "
            "j=$(awk '$1==\"merge\" {m=$2} END {print m}' %s/slurm/jobs.tsv); [ \"$j\" != %s ] && break; sleep 0.1; "
            "done; scancel \"$j\"; wait $w", g_bin, PLAN, d1, d1, prev);
    if (rc != 1 || !strstr(out, "lockstep sweep: incomplete: merge job ") || !strstr(out, " ended CANCELLED") ||
        strstr(out, "sweep: complete"))
        fail_msg("--wait, merge job cancelled: exit %d, want 1 and 'merge job J ended CANCELLED':\n%s", rc, out);
    assert_int_equal(wait_idle(60), 0);
    snprintf(path, sizeof path, "%s/report/verdict.txt", d1);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "complete: 8 recordings")); /* the earlier report, whole */

    /* 4. the local backend: the same recordings, the same verdicts */
    t0 = ls_now();
    rc = sh(out, sizeof out, "%s sweep --local --jobs 2 %s --dir %s", g_bin, PLAN, d2);
    fprintf(stderr, "test_sweep: local sweep (8 tasks, --jobs 2, and the merge): %.1f s\n", ls_now() - t0);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    const char *recs[] = {"cpu-a/cpu", "cpu-a/cpu:threads=1", "cpu-b/cpu", "cpu-b/cpu:threads=1"};
    for (int m = 0; m < 4; m++)
        for (int s = 42; s <= 43; s++) {
            char a[PATH_MAX], b[PATH_MAX];
            snprintf(a, sizeof a, "%s/rec/%s/%d.lsr", d1, recs[m], s);
            snprintf(b, sizeof b, "%s/rec/%s/%d.lsr", d2, recs[m], s);
            rc = sweep_recordings_same(a, b);
            if (rc) fprintf(stderr, "%s\n", ls_errmsg());
            assert_int_equal(rc, 0);
        }
    char v2[1 << 15];
    snprintf(path, sizeof path, "%s/report/verdicts.txt", d1);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    snprintf(path, sizeof path, "%s/report/verdicts.txt", d2);
    assert_int_equal(read_file(path, v2, sizeof v2), 0);
    assert_true(strlen(buf) > 200);
    assert_string_equal(buf, v2);
    /* the comparison itself can fail: two seeds' recordings differ */
    char a[PATH_MAX], b[PATH_MAX];
    snprintf(a, sizeof a, "%s/rec/cpu-a/cpu/42.lsr", d1);
    snprintf(b, sizeof b, "%s/rec/cpu-a/cpu/43.lsr", d1);
    assert_int_equal(sweep_recordings_same(a, b), LS_EMISMATCH);
    /* 5. --wait --fail-on when a seed's audit finds something: seed 43's
     * cpu-a/cpu recorded without checksum vectors leaves that seed "not
     * fully checked" (unchecked); the merge job finds it, the waiter gates */
    rc = sh(out, sizeof out, "%s record --engine cpu --no-checksums --seed 43 --limit-train 64 --limit-test 100 "
            "--batch 16 --epochs 1 --ref-steps 0 --audit-every 1 --out %s", g_bin, b);
    if (rc) fail_msg("record: %s", out);
    rc = sh(out, sizeof out, "%s sweep --slurm --wait --fail-on unchecked %s --dir %s", g_bin, PLAN, d1);
    if (rc != 1 || !strstr(out, "lockstep sweep: exit 1: --fail-on: a merged seed's audit found unchecked"))
        fail_msg("--wait --fail-on unchecked: exit %d, want 1:\n%s", rc, out);
    assert_int_equal(wait_idle(60), 0);
    /* 6. --wait whose merge job refuses its input (another engine's recording in a slot): exit 2 naming the job
     * and its log, not the earlier report's verdict */
    rc = sh(out, sizeof out, "%s record --engine cpu:threads=2 --seed 43 --limit-train 64 --limit-test 100 --batch 16 "
            "--epochs 1 --ref-steps 0 --audit-every 1 --out '%s/rec/cpu-b/cpu:threads=1/43.lsr'", g_bin, d1);
    if (rc) fail_msg("record: %s", out);
    rc = sh(out, sizeof out, "%s sweep --slurm --wait %s --dir %s", g_bin, PLAN, d1);
    if (rc != 2 || !strstr(out, " ended FAILED (exit code 2:0") || !strstr(out, "the merge refused its input") ||
        strstr(out, "sweep: complete"))
        fail_msg("--wait, merge job refused its input: exit %d, want 2 and 'ended FAILED (exit code 2:0':\n%s", rc, out);
    assert_int_equal(wait_idle(60), 0);
    /* 7. a folder whose name has a space, a quote and a '%': the job scripts quoted it '...' (a syntax error
     * in every task and the merge) and --output took its '%a' for Slurm's pattern (JobLaunchFailure) */
    rc = sh(out, sizeof out, "%s sweep --slurm --wait --on cpu-a=cpu:threads=1 --seeds 1 --limit-train 16 --limit-test 50 "
            "--batch 16 --epochs 1 --ref-steps 0 --audit-every 1 --dir \"%s/odd it's 50%%a\"", g_bin, g_tmp);
    if (rc != 0 || !strstr(out, "sweep: complete: 1 recordings"))
        fail_msg("a folder named \"odd it's 50%%a\": exit %d, want 0 and complete:\n%s", rc, out);
    assert_int_equal(sh(out, sizeof out, "ls \"%s/odd it's 50%%a/log\"", g_tmp), 0);
    if (!strstr(out, "task-0.") || !strstr(out, "merge."))
        fail_msg("want the task's and the merge's logs in the folder's log/:\n%s", out);
    assert_int_equal(wait_idle(60), 0);
}

/* The local backend alone, one step per recording: what runs under ASan
 * too (plan, task wrapper, merge, the statistics over seeds). */
static void test_local_small(void **st) {
    if (access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0) {
        skip();
        return;
    }
    char out[1 << 15], path[PATH_MAX], buf[1 << 15];
    const char *plan = "--on a=cpu:threads=1 --on b=cpu:threads=1 --seeds 42,43 --limit-train 16 --limit-test 50 "
                       "--batch 16 --epochs 1 --ref-steps 0 --audit-every 1";
    int rc = sh(out, sizeof out, "%s sweep --local --jobs 2 %s --dir %s/small", g_bin, plan, g_tmp);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "4 to run"));
    snprintf(path, sizeof path, "%s/small/report/report.md", g_tmp);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "## Significance across 2 seeds"));
    assert_non_null(strstr(buf, "| a/cpu:threads=1 vs b/cpu:threads=1 |"));
    /* one shadow replay for two recordings per seed: said, and one stays unchecked */
    assert_non_null(strstr(buf, "seed 42: 1 shadow replay(s) for 2 recordings, 1 recording(s) not replayed"));
    snprintf(path, sizeof path, "%s/small/report/verdicts.txt", g_tmp);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "seed 42 engine a/cpu:threads=1: within bound"));
    assert_non_null(strstr(buf, "seed 43 pair a/cpu:threads=1 vs b/cpu:threads=1: bitwise identical"));
    /* the same command again: nothing to run, the same verdicts */
    assert_int_equal(sh(out, sizeof out, "%s sweep --local %s --dir %s/small", g_bin, plan, g_tmp), 0);
    assert_non_null(strstr(out, "0 to run"));
    char again[1 << 15];
    assert_int_equal(read_file(path, again, sizeof again), 0);
    assert_string_equal(buf, again);
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/small", g_bin, g_tmp), 0);
    assert_non_null(strstr(out, "done 4,"));
    /* zoo attack 9: the merge counted problems only, so seeds whose own
     * audit was "not fully checked" merged as "complete: ...; 0
     * problem(s)".  Here every seed is (two recordings, one shadow replay:
     * one stays unchecked per element), and so is a seed one of whose
     * recordings was made without checksum vectors (record --no-checksums):
     * the merged verdict names each seed and its verdict. */
    snprintf(path, sizeof path, "%s/small/report/verdict.txt", g_tmp);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    if (!strstr(buf, "; 0 problem(s); not ok: seed 42: not fully checked") || !strstr(buf, "; seed 43: not fully checked"))
        fail_msg("want each seed's 'not fully checked' in the merged verdict:\n%s", buf);
    rc = sh(out, sizeof out, "%s record --engine cpu:threads=1 --no-checksums --seed 43 --limit-train 16 --limit-test 50 "
            "--batch 16 --epochs 1 --ref-steps 0 --audit-every 1 --out '%s/small/rec/a/cpu:threads=1/43.lsr'", g_bin, g_tmp);
    if (rc) fail_msg("record: %s", out);
    sh(out, sizeof out, "%s sweep --merge %s/small", g_bin, g_tmp);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    if (!strstr(buf, "; seed 43: not fully checked") || !strstr(buf, "the every-step checks found nothing where they ran"))
        fail_msg("a recording without vectors: want seed 43's verdict to say the checks ran on part only:\n%s\n%s",
                 buf, out);
    /* zoo attack 9 (S2): another engine's recording in a slot (cpu:threads=2 as rec/a/cpu:threads=1/43.lsr) was
     * audited and reported as the slot's engine; the merge refuses it, naming the file and both engines */
    rc = sh(out, sizeof out, "%s record --engine cpu:threads=2 --seed 43 --limit-train 16 --limit-test 50 --batch 16 "
            "--epochs 1 --ref-steps 0 --audit-every 1 --out '%s/small/rec/a/cpu:threads=1/43.lsr'", g_bin, g_tmp);
    if (rc) fail_msg("record: %s", out);
    rc = sh(out, sizeof out, "%s sweep --merge %s/small", g_bin, g_tmp);
    if (rc != 2 || !strstr(out, "rec/a/cpu:threads=1/43.lsr: recorded engine 'cpu:threads=2' is not this slot's engine "
                                "'cpu:threads=1'"))
        fail_msg("want the merge refused (exit 2) naming the recording and both engines; exit %d:\n%s", rc, out);
}

/* Many tasks that all fail: the local backend returned the number of
 * failed tasks as the command's status, so 128 failures read as "stopped
 * by signal 0" and 256 as exit 0 (8 bits), with the merge skipped: no
 * report, no verdict, a sweep that audited nothing passing.  And a task
 * that failed in its wrapper before its state file (its recording's
 * folder could not be made) was reported "missing: never run".  Here
 * rec/M is a file, so every task fails at once: exit 1, the merged
 * verdict incomplete over all 256, each task failed with the reason. */
static void test_local_many_failed(void **st) {
    if (access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0) {
        skip();
        return;
    }
    static char out[1 << 18]; /* --status: a line per task */
    char path[PATH_MAX], buf[1 << 15];
    assert_int_equal(sh(NULL, 0, "mkdir -p %s/many/rec && touch %s/many/rec/a %s/many/rec/b %s/many/rec/c %s/many/rec/d",
                        g_tmp, g_tmp, g_tmp, g_tmp, g_tmp), 0);
    int rc = sh(out, sizeof out, "%s sweep --local --jobs 8 --on a=cpu:threads=1 --on b=cpu:threads=1 --on c=cpu:threads=1 "
                "--on d=cpu:threads=1 --seeds 64 --limit-train 16 --limit-test 50 --batch 16 --epochs 1 --dir %s/many",
                g_bin, g_tmp);
    snprintf(path, sizeof path, "%s/many/report/verdict.txt", g_tmp);
    if (rc != 1 || read_file(path, buf, sizeof buf) != 0)
        fail_msg("256 failed tasks: exit %d (want 1), a verdict: %s\n%.2000s", rc, access(path, R_OK) ? "none" : "yes",
                 out);
    assert_non_null(strstr(buf, "incomplete: 256 of 256 tasks have no recording"));
    assert_non_null(strstr(buf, "task 0 (a, cpu:threads=1, seed 42): failed: the task wrapper: "));
    assert_int_equal(sh(out, sizeof out, "%s sweep --status %s/many", g_bin, g_tmp), 0);
    if (!strstr(out, "failed 256,") || !strstr(out, "rec/d/cpu:threads=1: cannot create: Not a directory"))
        fail_msg("--status: want every task failed, with the wrapper's reason:\n%s", out + strlen(out) / 2);
}

/* A number after `key` in s (from its first occurrence), or -1. */
static long json_long_after(const char *s, const char *key) {
    const char *k = s ? strstr(s, key) : NULL;
    return k ? strtol(k + strlen(key), NULL, 10) : -1;
}

/* The report's note on shadow replays is each seed's audit's own count,
 * not a copy of the driver's rule (driver.c recording_owes_shadow): the
 * sweep's statement and the audit's run.json must agree.  Two steps,
 * --audit-every 50, three recordings: the driver shadows steps 1 and 2
 * (full steps near the end while a recording is owed one, not the partial
 * batches), two shadow replays, one recording not replayed.  Once the
 * note said 0 and "3 recording(s) per seed are not replayed" while the
 * seed's audit replayed two (a re-derived rule that had drifted). */
static void test_note_counts_the_last_shadow(void **st) {
    if (access(DATA_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0) {
        skip();
        return;
    }
    char out[1 << 15], path[PATH_MAX], buf[1 << 15], want[1024];
    const char *plan = "--on a=cpu:threads=1,cpu:threads=2 --on b=cpu:threads=1 --seeds 1 --limit-train 32 "
                       "--limit-test 16 --batch 16 --epochs 1 --ref-steps 0 --audit-every 50";
    const char *labels[] = {"a/cpu:threads=1", "a/cpu:threads=2", "b/cpu:threads=1"};
    int rc = sh(out, sizeof out, "%s sweep --local --jobs 2 %s --dir %s/note", g_bin, plan, g_tmp);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    snprintf(path, sizeof path, "%s/note/report/seed-42/run.json", g_tmp);
    char *json = malloc(1 << 22);
    assert_non_null(json);
    assert_int_equal(read_file(path, json, 1 << 22), 0);
    /* the audit's own counts: the run's (its line of run.json), and each recording's */
    const char *run_line = strstr(json, "\n  \"attribution_steps\": ");
    if (!run_line) fail_msg("run.json: no run-level attribution_steps line");
    long shadows = json_long_after(run_line, "\"shadow_replays\": "),
         unrep = json_long_after(run_line, "\"recordings_not_replayed\": ");
    int n_zero = 0;
    char names[512] = "";
    for (int t = 0; t < 3; t++) {
        char key[160];
        snprintf(key, sizeof key, "\"label\": \"recorded:rec/%s/42.lsr\"", labels[t]);
        const char *e = strstr(json, key);
        if (!e) fail_msg("run.json: no engine %s", key);
        long own = json_long_after(e, "\"shadow_replays\": ");
        if (own < 0) fail_msg("run.json: engine %s has no shadow_replays", labels[t]);
        if (own == 0)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", n_zero++ ? ", " : "", labels[t]);
    }
    free(json);
    if (unrep != n_zero)
        fail_msg("run.json: recordings_not_replayed %ld, %d recording(s) with shadow_replays 0", unrep, n_zero);
    /* this plan, as the driver runs it (the rule's case the note once missed) */
    if (shadows != 2 || unrep != 1)
        fail_msg("want the seed's audit to shadow twice and leave one recording: %ld, %ld", shadows, unrep);
    /* the sweep's statement: the audit's numbers, and its recordings by name */
    snprintf(want, sizeof want, "seed 42: %ld shadow replay(s) for 3 recordings, %ld recording(s) not replayed by the "
             "reference (%s)", shadows, unrep, names);
    snprintf(path, sizeof path, "%s/note/report/report.md", g_tmp);
    assert_int_equal(read_file(path, buf, sizeof buf), 0);
    const char *note = strstr(buf, "\nNote: shadow replays as each seed's audit ran them");
    if (!note || !strstr(note, want)) fail_msg("want the note to say the audit's own counts, '%s':\n%s", want, buf);
    /* said where the audits' results are merged: after the seed's verdicts */
    const char *sec = strstr(buf, "### seed 42");
    if (!sec || note < sec) fail_msg("want the note after seed 42's verdicts:\n%s", buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_local_small),
        cmocka_unit_test(test_note_counts_the_last_shadow),
        cmocka_unit_test(test_local_many_failed),
        cmocka_unit_test(test_slurm_end_to_end),
    };
    /* SWEEP_TEST_FILTER=test_local_*: the tests whose names match (cmocka's * and ? wildcards) */
    if (getenv("SWEEP_TEST_FILTER")) cmocka_set_test_filter(getenv("SWEEP_TEST_FILTER"));
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
