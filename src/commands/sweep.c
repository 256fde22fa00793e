/*
 * sweep.c — `lockstep sweep`: a plan of (machine, engine, seed) recordings,
 * run as Slurm job arrays or as local processes, and one merge that audits
 * them.  See sweep.h for the folder's layout.
 *
 * Truth: a recording under rec/ is a finished task (record.c writes it
 * under a temporary name and renames it only when complete); nothing else
 * counts as a result.  Slurm (scontrol, while it remembers a job) and the
 * task wrapper's state file only explain why a recording is missing.
 *
 * Every task runs through the same wrapper, `lockstep sweep --task N --dir
 * DIR`, whichever backend started it: it runs `lockstep record` as a child,
 * forwards the signals it gets (scancel and a time limit send SIGTERM),
 * and writes state/N.txt with what happened.  The merge is `lockstep sweep
 * --merge DIR` on both backends.
 *
 * Not here: the audit (commands/audit_cmd.c), the statistics
 * (audit/seeds.c), the recordings' bytes (formats/recording.c).
 */
#include "commands/sweep.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "audit/explain.h"
#include "audit/headline.h"
#include "audit/seeds.h"
#include "base/util.h"
#include "commands/audit_cmd.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "engines/run.h"
#include "formats/golden.h"

/* Paths here are a realpath()'d folder (< PATH_MAX) plus a short tail; one
 * that would not fit fails at open() with its name in the message, so
 * gcc's "may be truncated" warnings on the snprintf()s say nothing new. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define PLAN_MAGIC "lockstep-sweep-plan"
#define PLAN_VERSION 1
#define SWEEP_MAX_SEEDS SEEDS_MAX
#define SWEEP_MAX_TASKS (SWEEP_MAX_MACHINES * SWEEP_MAX_ENGINES * SWEEP_MAX_SEEDS)

/* ---- the plan ------------------------------------------------------------ */

typedef struct {
    int version;
    char model[512], data[1024];
    int epochs, threads;
    long batch, limit_train, limit_test, audit_every, ref_steps;
    double lr;
    int n_seeds;
    long long seed[SWEEP_MAX_SEEDS];
    int n_machines;
    char partition[SWEEP_MAX_MACHINES][64];
    int n_engines[SWEEP_MAX_MACHINES];
    char engine[SWEEP_MAX_MACHINES][SWEEP_MAX_ENGINES][96];
} sweep_plan;

typedef struct {
    int machine, engine, seed; /* indices into the plan */
} sweep_task;

static int plan_n_tasks(const sweep_plan *p) {
    int n = 0;
    for (int m = 0; m < p->n_machines; m++) n += p->n_engines[m] * p->n_seeds;
    return n;
}

static sweep_task plan_task(const sweep_plan *p, int id) {
    sweep_task t = {0, 0, 0};
    for (int m = 0; m < p->n_machines; m++) {
        int k = p->n_engines[m] * p->n_seeds;
        if (id < k) {
            t.machine = m;
            t.engine = id / p->n_seeds;
            t.seed = id % p->n_seeds;
            return t;
        }
        id -= k;
    }
    return t;
}

/* Names that become folder names and shell words: no quoting needed. */
static int plain_word(const char *s, const char *extra) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._-", *s) && !(extra && strchr(extra, *s))) return 0;
    return 1;
}

static int plan_add_on(sweep_plan *p, const char *on) {
    const char *eq = strchr(on, '=');
    if (!eq || eq == on) return ls_err(LS_EINVAL, "--on %s: expected PARTITION=ENGINE[,ENGINE...]", on);
    if (p->n_machines >= SWEEP_MAX_MACHINES) return ls_err(LS_EINVAL, "--on: at most %d machine types", SWEEP_MAX_MACHINES);
    int m = p->n_machines;
    size_t pl = (size_t)(eq - on);
    if (pl >= sizeof p->partition[m]) return ls_err(LS_EINVAL, "--on %s: partition name too long", on);
    memcpy(p->partition[m], on, pl);
    p->partition[m][pl] = 0;
    if (!plain_word(p->partition[m], NULL))
        return ls_err(LS_EINVAL, "--on %s: a partition name is letters, digits, '.', '_' and '-'", on);
    for (int k = 0; k < m; k++)
        if (strcmp(p->partition[k], p->partition[m]) == 0)
            return ls_err(LS_EINVAL, "--on: partition %s given twice (list its engines once)", p->partition[m]);
    char list[1024], opt[64];
    if (strlen(eq + 1) >= sizeof list) return ls_err(LS_EINVAL, "--on %s: engine list too long", p->partition[m]);
    snprintf(list, sizeof list, "%s", eq + 1);
    snprintf(opt, sizeof opt, "--on %s", p->partition[m]);
    int rc = ls_check_list(opt, "engine name", list);
    if (rc) return rc;
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (p->n_engines[m] >= SWEEP_MAX_ENGINES)
            return ls_err(LS_EINVAL, "--on %s: at most %d engines per machine", p->partition[m], SWEEP_MAX_ENGINES);
        engine_spec s;
        if (strlen(t) >= sizeof p->engine[m][0] || !plain_word(t, ":=") || engine_spec_parse(&s, t) != 0)
            return ls_err(LS_EINVAL, "--on %s: engine '%s' is not an engine spec (e.g. cpu, cpu:threads=1, cuda)",
                          p->partition[m], t);
        if (strcmp(s.name, "reference") == 0 || strcmp(s.name, "ref") == 0 || strcmp(s.name, "recorded") == 0)
            return ls_err(LS_EINVAL, "--on %s: engine '%s': a sweep records fp32 engines; the merge runs the reference "
                          "itself", p->partition[m], t);
        /* an unknown engine or knob is refused here, not by every task on its node after the queue's wait */
        if (engine_spec_known(&s) != 0) {
            char why[400];
            snprintf(why, sizeof why, "%s", ls_errmsg());
            return ls_err(LS_EINVAL, "--on %s: %s", p->partition[m], why);
        }
        for (int k = 0; k < p->n_engines[m]; k++)
            if (strcmp(p->engine[m][k], t) == 0)
                return ls_err(LS_EINVAL, "--on %s: engine %s listed twice", p->partition[m], t);
        snprintf(p->engine[m][p->n_engines[m]++], sizeof p->engine[m][0], "%s", t);
    }
    if (!p->n_engines[m]) return ls_err(LS_EINVAL, "--on %s: no engine", on);
    p->n_machines++;
    return 0;
}

static int plan_seeds(sweep_plan *p, const char *s, long long first) {
    char *end;
    /* strtol would skip the blanks: ' 2' and '42, 43' were taken */
    if (strpbrk(s, " \t\n\v\f\r"))
        return ls_err(LS_EINVAL, "--seeds '%s': white space in the value (give 3 or 42,43, without blanks)", s);
    if (!strchr(s, ',')) {
        errno = 0;
        long n = strtol(s, &end, 10);
        if (errno || *end || end == s || n < 1 || n > SWEEP_MAX_SEEDS)
            return ls_err(LS_EINVAL, "--seeds %s: a count in 1..%d, or a list (42,43)", s, SWEEP_MAX_SEEDS);
        p->n_seeds = (int)n;
        for (int i = 0; i < n; i++) p->seed[i] = first + i;
        return 0;
    }
    char buf[1024];
    if (strlen(s) >= sizeof buf) return ls_err(LS_EINVAL, "--seeds: list too long");
    int rc = ls_check_list("--seeds", "seed", s);
    if (rc) return rc;
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        errno = 0;
        long long v = strtoll(t, &end, 10);
        if (errno || *end || end == t || v < 0 || p->n_seeds >= SWEEP_MAX_SEEDS)
            return ls_err(LS_EINVAL, "--seeds %s: '%s' is not a seed (at most %d non-negative integers)", s, t,
                          SWEEP_MAX_SEEDS);
        for (int i = 0; i < p->n_seeds; i++)
            if (p->seed[i] == v) return ls_err(LS_EINVAL, "--seeds %s: seed %lld given twice", s, v);
        p->seed[p->n_seeds++] = v;
    }
    return 0;
}

/* A built-in model name, or a spec file made absolute (tasks run elsewhere). */
static int abs_path(char *out, size_t cap, const char *path, const char *what) {
    char buf[PATH_MAX];
    if (!realpath(path, buf)) return ls_err(LS_EIO, "%s %s: %s", what, path, strerror(errno));
    if (strlen(buf) >= cap || strchr(buf, '"') || strchr(buf, '\\') || strchr(buf, '\''))
        return ls_err(LS_EINVAL, "%s %s: the path is too long or has quotes", what, path);
    snprintf(out, cap, "%s", buf);
    return 0;
}

static int plan_from_cfg(sweep_plan *p, const sweep_cfg *c) {
    memset(p, 0, sizeof *p);
    p->version = PLAN_VERSION;
    int rc;
    if (strcmp(c->run.model, "smallcnn") == 0 || strcmp(c->run.model, "mnist-convnet") == 0)
        snprintf(p->model, sizeof p->model, "%s", c->run.model);
    else if ((rc = abs_path(p->model, sizeof p->model, c->run.model, "--model"))) return rc;
    if ((rc = abs_path(p->data, sizeof p->data, c->run.data_dir, "--data"))) return rc;
    p->epochs = c->run.epochs;
    p->threads = c->run.threads;
    p->batch = (long)c->run.batch;
    p->limit_train = (long)c->run.limit_train;
    p->limit_test = (long)c->run.limit_test;
    p->lr = c->run.adam.lr;
    p->audit_every = c->audit_every;
    p->ref_steps = c->ref_steps;
    if (c->n_on < 1) return ls_err(LS_EINVAL, "which machines? --on PARTITION=ENGINE[,ENGINE...] (repeatable)");
    for (int i = 0; i < c->n_on; i++)
        if ((rc = plan_add_on(p, c->on[i]))) return rc;
    return plan_seeds(p, c->seeds ? c->seeds : "1", (long long)c->run.seed);
}

/* The model against the data, as each task's record would judge it
 * (run_check_classes): a logits layer wider than the data's classes is
 * refused here, before DIR is made, not once per task in the logs. */
static int plan_check_model(const sweep_cfg *c) {
    model *m = ls_malloc(sizeof *m);
    if (!m) return LS_ENOMEM;
    dataset ds;
    memset(&ds, 0, sizeof ds);
    int rc = model_build(m, c->run.model);
    if (rc) rc = ls_err_option(rc, "--model", c->run.model);
    else if (!(rc = dataset_load_shape(&ds, c->run.data_dir, m->n_classes, m->in_h, m->in_w)))
        rc = run_check_classes(&c->run, m, &ds);
    dataset_free(&ds);
    free(m);
    return rc;
}

static void plan_json(lsbuf *b, const sweep_plan *p) {
    lsbuf_printf(b, "{\n  \"magic\": \"%s\",\n  \"version\": %d,\n", PLAN_MAGIC, p->version);
    lsbuf_printf(b, "  \"model\": \"%s\",\n  \"data\": \"%s\",\n", p->model, p->data);
    lsbuf_printf(b, "  \"epochs\": %d,\n  \"batch\": %ld,\n  \"lr\": %.17g,\n", p->epochs, p->batch, p->lr);
    lsbuf_printf(b, "  \"limit_train\": %ld,\n  \"limit_test\": %ld,\n  \"threads\": %d,\n", p->limit_train,
                 p->limit_test, p->threads);
    lsbuf_printf(b, "  \"audit_every\": %ld,\n  \"ref_steps\": %ld,\n  \"seeds\": [", p->audit_every, p->ref_steps);
    for (int i = 0; i < p->n_seeds; i++) lsbuf_printf(b, "%s%lld", i ? ", " : "", p->seed[i]);
    lsbuf_printf(b, "],\n  \"machines\": [");
    for (int m = 0; m < p->n_machines; m++) {
        lsbuf_printf(b, "%s\"%s=", m ? ", " : "", p->partition[m]);
        for (int e = 0; e < p->n_engines[m]; e++) lsbuf_printf(b, "%s%s", e ? "," : "", p->engine[m][e]);
        lsbuf_printf(b, "\"");
    }
    lsbuf_printf(b, "]\n}\n");
}

/* The value text after "key": on one line of plan.json, trailing comma cut. */
static char *plan_value(char *line, char **key) {
    char *q = strchr(line, '"');
    if (!q) return NULL;
    char *qe = strchr(q + 1, '"');
    if (!qe || qe[1] != ':') return NULL;
    *qe = 0;
    *key = q + 1;
    char *v = qe + 2;
    while (*v == ' ') v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\r')) v[--n] = 0;
    if (n && v[n - 1] == ',') v[--n] = 0;
    return v;
}

static int unquote(char *out, size_t cap, const char *v) {
    size_t n = strlen(v);
    if (n < 2 || v[0] != '"' || v[n - 1] != '"' || n - 2 >= cap) return -1;
    memcpy(out, v + 1, n - 2);
    out[n - 2] = 0;
    return strchr(out, '"') || strchr(out, '\\') ? -1 : 0;
}

static int plan_field(sweep_plan *p, const char *key, char *v, int *magic) {
    char *end = NULL, s[1200];
    if (strcmp(key, "magic") == 0) {
        *magic = unquote(s, sizeof s, v) == 0 && strcmp(s, PLAN_MAGIC) == 0;
        return *magic ? 0 : -1;
    }
    if (strcmp(key, "model") == 0) return unquote(p->model, sizeof p->model, v);
    if (strcmp(key, "data") == 0) return unquote(p->data, sizeof p->data, v);
    if (strcmp(key, "lr") == 0) {
        p->lr = strtod(v, &end);
        return *end ? -1 : 0;
    }
    long *lf = strcmp(key, "batch") == 0 ? &p->batch : strcmp(key, "limit_train") == 0 ? &p->limit_train
             : strcmp(key, "limit_test") == 0 ? &p->limit_test : strcmp(key, "audit_every") == 0 ? &p->audit_every
             : strcmp(key, "ref_steps") == 0 ? &p->ref_steps : NULL;
    int *inf = strcmp(key, "version") == 0 ? &p->version : strcmp(key, "epochs") == 0 ? &p->epochs
             : strcmp(key, "threads") == 0 ? &p->threads : NULL;
    if (lf || inf) {
        long x = strtol(v, &end, 10);
        if (*end || end == v) return -1;
        if (lf) *lf = x;
        else *inf = (int)x;
        return 0;
    }
    size_t n = strlen(v);
    if (n < 2 || v[0] != '[' || v[n - 1] != ']') return -1;
    v[n - 1] = 0;
    char *save = NULL;
    if (strcmp(key, "seeds") == 0) {
        /* as --seeds takes them: a seed twice made two tasks of one recording (and its seed audited twice), a
         * negative one or one past 2^63 (taken as 2^63 - 1) is no seed --seeds gives */
        for (char *t = strtok_r(v + 1, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
            if (p->n_seeds >= SWEEP_MAX_SEEDS) return -1;
            errno = 0;
            long long x = strtoll(t, &end, 10);
            if (*end || end == t || errno || x < 0) return -1;
            for (int i = 0; i < p->n_seeds; i++)
                if (p->seed[i] == x) return -1;
            p->seed[p->n_seeds++] = x;
        }
        return p->n_seeds ? 0 : -1;
    }
    if (strcmp(key, "machines") == 0) {
        for (char *t = strtok_r(v + 1, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            size_t k = strlen(t);
            if (k && t[k - 1] == ',') t[--k] = 0;
            if (unquote(s, sizeof s, t) || plan_add_on(p, s)) return -1;
        }
        return p->n_machines ? 0 : -1;
    }
    return -2;
}

/* Read DIR/plan.json.  LS_EFORMAT "PATH: problem" on anything unexpected. */
static int plan_read(sweep_plan *p, const char *path) {
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "r");
    if (!f) return ls_err(LS_EIO, "%s: cannot open: %s", path, strerror(errno));
    char line[8192];
    int rc = 0, magic = 0, ln = 0, closed = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        ln++;
        char *key = NULL, *v;
        if (closed && line[strspn(line, " \t\r\n")]) {
            rc = ls_err(LS_EFORMAT, "%s: line %d: text after the plan's closing }", path, ln);
            break;
        }
        closed |= line[0] == '}';
        if (line[0] == '{' || line[0] == '}' || closed) continue;
        if (!(v = plan_value(line, &key))) {
            rc = ls_err(LS_EFORMAT, "%s: line %d: not a plan field", path, ln);
            break;
        }
        int fr = plan_field(p, key, v, &magic);
        if (fr == -2) rc = ls_err(LS_EFORMAT, "%s: line %d: unknown field '%s'", path, ln, key);
        else if (fr) rc = ls_err(LS_EFORMAT, "%s: line %d: bad value for field '%s'", path, ln, key);
    }
    fclose(f);
    if (rc) return rc;
    if (!magic) return ls_err(LS_EFORMAT, "%s: not a lockstep sweep plan (field 'magic' is not \"%s\")", path, PLAN_MAGIC);
    /* the plan is written whole (renamed into place): an end missing is damage, not a shorter plan */
    if (!closed) return ls_err(LS_EFORMAT, "%s: truncated after line %d (no closing })", path, ln);
    if (p->version != PLAN_VERSION)
        return ls_err(LS_EFORMAT, "%s: field 'version' is %d; this lockstep reads version %d", path, p->version,
                      PLAN_VERSION);
    if (!p->n_seeds || !p->n_machines || !p->data[0] || !p->model[0] || p->epochs < 1 || p->batch < 1)
        return ls_err(LS_EFORMAT, "%s: a field is missing (seeds, machines, data, model, epochs, batch)", path);
    return 0;
}

/* The first field in which two plans differ, or NULL. */
static const char *plan_diff(const sweep_plan *a, const sweep_plan *b) {
    if (strcmp(a->model, b->model)) return "model";
    if (strcmp(a->data, b->data)) return "data";
    if (a->epochs != b->epochs) return "epochs";
    if (a->batch != b->batch) return "batch";
    if (a->lr != b->lr) return "lr";
    if (a->limit_train != b->limit_train) return "limit_train";
    if (a->limit_test != b->limit_test) return "limit_test";
    if (a->threads != b->threads) return "threads";
    if (a->audit_every != b->audit_every) return "audit_every";
    if (a->ref_steps != b->ref_steps) return "ref_steps";
    if (a->n_seeds != b->n_seeds || memcmp(a->seed, b->seed, (size_t)a->n_seeds * sizeof a->seed[0])) return "seeds";
    if (a->n_machines != b->n_machines) return "machines";
    for (int m = 0; m < a->n_machines; m++) {
        if (strcmp(a->partition[m], b->partition[m]) || a->n_engines[m] != b->n_engines[m]) return "machines";
        for (int e = 0; e < a->n_engines[m]; e++)
            if (strcmp(a->engine[m][e], b->engine[m][e])) return "machines";
    }
    return NULL;
}

/* ---- paths and small helpers --------------------------------------------- */

static void task_rec_path(char *out, size_t cap, const sweep_plan *p, int id) {
    sweep_task t = plan_task(p, id);
    snprintf(out, cap, "rec/%s/%s/%lld.lsr", p->partition[t.machine], p->engine[t.machine][t.engine], p->seed[t.seed]);
}

static void task_name(char *out, size_t cap, const sweep_plan *p, int id) {
    sweep_task t = plan_task(p, id);
    snprintf(out, cap, "task %d (%s, %s, seed %lld)", id, p->partition[t.machine], p->engine[t.machine][t.engine],
             p->seed[t.seed]);
}

static int mkdirs(const char *path) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) return ls_err(LS_EIO, "%s: cannot create: %s", buf, strerror(errno));
            *s = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return ls_err(LS_EIO, "%s: cannot create: %s", buf, strerror(errno));
    return 0;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void self_exe(char *out, size_t cap) {
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    out[n > 0 ? n : 0] = 0;
}

static int on_path(const char *prog) {
    const char *path = getenv("PATH");
    char buf[PATH_MAX], dir[PATH_MAX];
    if (!path) return 0;
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(dir, sizeof dir, "%s/%s", d, prog);
        if (access(dir, X_OK) == 0) return 1;
    }
    return 0;
}

/* Run argv (PATH searched), stdout and stderr into out.  Returns the exit
 * status (0..255), 256 + signal, or -1 when it could not run. */
static int run_capture(char *const argv[], char *out, size_t cap) {
    int fds[2];
    out[0] = 0;
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    for (;;) {
        char chunk[4096];
        ssize_t got = read(fds[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        size_t k = (size_t)got < cap - 1 - n ? (size_t)got : cap - 1 - n;
        memcpy(out + n, chunk, k);
        n += k;
    }
    out[n] = 0;
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 256 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* ---- a task's state ------------------------------------------------------ */

typedef enum { TS_MISSING, TS_PENDING, TS_RUNNING, TS_DONE, TS_FAILED, TS_CANCELLED, TS_TIMEOUT, TS_LOST } task_state;
static const char *TS_NAME[] = {"missing", "pending", "running", "done", "failed", "cancelled", "timeout", "lost"};

typedef struct {
    task_state st;
    char reason[300];
    char job[40];     /* Slurm job id (array_task), "local", or "" */
    char node[64];
    double wall_s;    /* the record's wall time in the wrapper (NAN: unknown) */
    double wrap_s;    /* the wrapper's own wall time, start to state file */
} task_status;

/* state/N.txt: key=value lines written by the wrapper (this file's only). */
typedef struct {
    char state[16], reason[300], job[40], node[64];
    long pid;
    double wall_s, wrap_s;
} state_file;

static int state_read(const char *path, state_file *s) {
    memset(s, 0, sizeof *s);
    s->wall_s = s->wrap_s = NAN;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        const char *k = line, *v = eq + 1;
        if (!strcmp(k, "state")) snprintf(s->state, sizeof s->state, "%s", v);
        else if (!strcmp(k, "reason")) snprintf(s->reason, sizeof s->reason, "%s", v);
        else if (!strcmp(k, "job")) snprintf(s->job, sizeof s->job, "%s", v);
        else if (!strcmp(k, "node")) snprintf(s->node, sizeof s->node, "%s", v);
        else if (!strcmp(k, "pid")) s->pid = atol(v);
        else if (!strcmp(k, "wall_s")) s->wall_s = atof(v);
        else if (!strcmp(k, "wrap_s")) s->wrap_s = atof(v);
    }
    fclose(f);
    return s->state[0] ? 0 : -1;
}

static int state_write(const char *dir, int id, const state_file *s) {
    char path[PATH_MAX], body[1024];
    snprintf(path, sizeof path, "%s/state/%d.txt", dir, id);
    int n = snprintf(body, sizeof body, "state=%s\nreason=%s\njob=%s\nnode=%s\npid=%ld\nwall_s=%.3f\nwrap_s=%.3f\n",
                     s->state, s->reason, s->job, s->node, s->pid, s->wall_s, s->wrap_s);
    return ls_write_file_atomic(path, body, (size_t)n);
}

/* ---- what Slurm remembers ------------------------------------------------- */

typedef struct {
    char job[40];      /* the array's job id */
    int is_merge;
    char state[32], reason[128], exitcode[16], node[64];
    int task;          /* -1: a record for a range (pending tasks) */
    char range[256];   /* ArrayTaskId as printed ("0-3%2", "5") */
    int whole;         /* the record of a whole array (range: its tasks from jobs.tsv) */
} slurm_rec;

typedef struct {
    int n;
    slurm_rec r[512];
    int merge_in_flight;
    char merge_job[40];
} slurm_view;

static int in_range(const char *range, int id) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", range);
    char *pct = strchr(buf, '%');
    if (pct) *pct = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int a, b;
        if (sscanf(t, "%d-%d", &a, &b) == 2) {
            if (id >= a && id <= b) return 1;
        } else if (atoi(t) == id) return 1;
    }
    return 0;
}

static void field(const char *line, const char *key, char *out, size_t cap) {
    char pat[48];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    out[0] = 0;
    if (!p && strncmp(line, pat + 1, strlen(pat + 1)) == 0) p = line - 1;
    if (!p) return;
    p += strlen(pat);
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\n' && n + 1 < cap) n++;
    memcpy(out, p, n);
    out[n] = 0;
}

static int is_final(const char *state) {
    return !(strcmp(state, "PENDING") == 0 || strcmp(state, "RUNNING") == 0 || strcmp(state, "CONFIGURING") == 0 ||
             strcmp(state, "COMPLETING") == 0 || strcmp(state, "SUSPENDED") == 0 || strcmp(state, "REQUEUED") == 0 ||
             strcmp(state, "RESIZING") == 0);
}

/* `scontrol -o show job J` for every job in slurm/jobs.tsv (in the order
 * submitted: a later record of a task is the newer). */
static void slurm_query(const char *dir, slurm_view *v) {
    memset(v, 0, sizeof *v);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/slurm/jobs.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f || !on_path("scontrol")) {
        if (f) fclose(f);
        return;
    }
    char line[1024];
    static char out[1 << 18];
    while (fgets(line, sizeof line, f)) {
        char kind[16], job[40], part[64], list[256] = "";
        if (sscanf(line, "%15s %39s %63s %255s", kind, job, part, list) < 2) continue;
        char *argv[] = {"scontrol", "-o", "show", "job", job, NULL};
        if (run_capture(argv, out, sizeof out) != 0) continue; /* forgotten (MinJobAge) or no controller */
        char *save = NULL;
        for (char *l = strtok_r(out, "\n", &save); l && v->n < (int)LS_ARRAY_LEN(v->r); l = strtok_r(NULL, "\n", &save)) {
            slurm_rec *r = &v->r[v->n];
            memset(r, 0, sizeof *r);
            snprintf(r->job, sizeof r->job, "%s", job);
            r->is_merge = strcmp(kind, "merge") == 0;
            field(l, "JobState", r->state, sizeof r->state);
            field(l, "Reason", r->reason, sizeof r->reason);
            field(l, "ExitCode", r->exitcode, sizeof r->exitcode);
            field(l, "NodeList", r->node, sizeof r->node);
            field(l, "ArrayTaskId", r->range, sizeof r->range);
            /* an array cancelled whole while pending is one record with ArrayTaskId=4294967294 (Slurm's
             * NO_VAL - 1), not its range: its tasks are the ones submitted in it (jobs.tsv); read as a
             * task number it matched none, and --status and the merge said "never run, no record" */
            if (!r->is_merge && list[0] && (!r->range[0] || strspn(r->range, "0123456789") == strlen(r->range)) &&
                strtoul(r->range, NULL, 10) > (unsigned long)SWEEP_MAX_TASKS) {
                snprintf(r->range, sizeof r->range, "%s", list);
                r->whole = 1;
            }
            if (!r->state[0]) continue;
            if (r->is_merge) {
                v->merge_in_flight = !is_final(r->state);
                snprintf(v->merge_job, sizeof v->merge_job, "%s", job);
            }
            v->n++;
        }
    }
    fclose(f);
}

/* The newest Slurm record of task id, or NULL. */
static const slurm_rec *slurm_find(const slurm_view *v, int id) {
    for (int i = v->n - 1; i >= 0; i--)
        if (!v->r[i].is_merge && v->r[i].range[0] && in_range(v->r[i].range, id)) {
            /* a task's own record in the same array says more than the whole array's */
            for (int k = v->n - 1; v->r[i].whole && k >= 0; k--)
                if (!v->r[k].whole && !v->r[k].is_merge && !strcmp(v->r[k].job, v->r[i].job) && v->r[k].range[0] &&
                    in_range(v->r[k].range, id))
                    return &v->r[k];
            return &v->r[i];
        }
    return NULL;
}

static void task_status_of(const sweep_plan *p, const char *dir, const slurm_view *v, int id, task_status *ts) {
    char path[PATH_MAX], rec[PATH_MAX];
    memset(ts, 0, sizeof *ts);
    ts->wall_s = ts->wrap_s = NAN;
    state_file sf;
    snprintf(path, sizeof path, "%s/state/%d.txt", dir, id);
    int have_state = state_read(path, &sf) == 0;
    if (have_state) {
        snprintf(ts->job, sizeof ts->job, "%s", sf.job);
        snprintf(ts->node, sizeof ts->node, "%s", sf.node);
        ts->wall_s = sf.wall_s;
        ts->wrap_s = sf.wrap_s;
    }
    task_rec_path(rec, sizeof rec, p, id);
    snprintf(path, sizeof path, "%s/%s", dir, rec);
    if (file_exists(path)) {
        ts->st = TS_DONE;
        return;
    }
    const slurm_rec *r = slurm_find(v, id);
    if (r) {
        snprintf(ts->job, sizeof ts->job, "%s_%d", r->job, id);
        if (r->node[0] && strcmp(r->node, "(null)")) snprintf(ts->node, sizeof ts->node, "%s", r->node);
        if (!strcmp(r->state, "PENDING")) ts->st = TS_PENDING;
        else if (!is_final(r->state)) ts->st = TS_RUNNING;
        else if (!strcmp(r->state, "CANCELLED")) ts->st = TS_CANCELLED;
        else if (!strcmp(r->state, "TIMEOUT") || !strcmp(r->state, "DEADLINE")) ts->st = TS_TIMEOUT;
        else ts->st = TS_FAILED;
        if (ts->st == TS_PENDING || ts->st == TS_RUNNING) snprintf(ts->reason, sizeof ts->reason, "Slurm: %s (%s)", r->state, r->reason);
        else
            snprintf(ts->reason, sizeof ts->reason, "Slurm: %s, reason %s, exit code %s%s%s", r->state, r->reason,
                     r->exitcode, have_state && sf.reason[0] ? "; " : "", have_state ? sf.reason : "");
        return;
    }
    if (!have_state) {
        ts->st = TS_MISSING;
        snprintf(ts->reason, sizeof ts->reason, "never run (no recording, no record of the task)");
        return;
    }
    if (!strcmp(sf.state, "running")) {
        struct utsname u;
        int here = uname(&u) == 0 && strcmp(u.nodename, sf.node) == 0;
        if (here && sf.pid > 0 && kill((pid_t)sf.pid, 0) == 0) {
            ts->st = TS_RUNNING;
            snprintf(ts->reason, sizeof ts->reason, "running here (pid %ld)", sf.pid);
        } else {
            ts->st = TS_LOST;
            snprintf(ts->reason, sizeof ts->reason, "started on %s (job %s) and left no recording and no outcome: killed "
                     "by SIGKILL, out of memory, or the node failed", sf.node, sf.job);
        }
        return;
    }
    ts->st = !strcmp(sf.state, "cancelled") ? TS_CANCELLED : !strcmp(sf.state, "done") ? TS_LOST : TS_FAILED;
    snprintf(ts->reason, sizeof ts->reason, "%s", ts->st == TS_LOST ? "reported done but its recording is gone" : sf.reason);
}

/* ---- one task: the wrapper around `lockstep record` ---------------------- */

static volatile sig_atomic_t g_child_pid, g_task_signal;

/* scancel and a time limit send SIGTERM to every process of the job; a
 * signal sent to the wrapper alone is passed on, so the recording always
 * sees it (record.c removes its temporary file and dies of it). */
static void task_on_signal(int sig) {
    g_task_signal = sig;
    if (g_child_pid > 0) kill((pid_t)g_child_pid, sig);
}

/* argv of `lockstep record` for task id (strings in store). */
static int task_argv(const sweep_plan *p, int id, const char *exe, const char *out, char store[][1100], char **argv) {
    sweep_task t = plan_task(p, id);
    int n = 0;
#define ARG(...) snprintf(store[n], 1100, __VA_ARGS__), argv[n] = store[n], n++
    ARG("%s", exe);
    ARG("record");
    ARG("--engine"); ARG("%s", p->engine[t.machine][t.engine]);
    ARG("--seed"); ARG("%lld", p->seed[t.seed]);
    ARG("--model"); ARG("%s", p->model);
    ARG("--data"); ARG("%s", p->data);
    ARG("--epochs"); ARG("%d", p->epochs);
    ARG("--batch"); ARG("%ld", p->batch);
    ARG("--lr"); ARG("%.17g", p->lr);
    if (p->limit_train) { ARG("--limit-train"); ARG("%ld", p->limit_train); }
    if (p->limit_test) { ARG("--limit-test"); ARG("%ld", p->limit_test); }
    /* an engine that says threads=K keeps its K (spec_with_threads): record
     * refuses --threads N beside a spec with another K, so it is not passed */
    engine_spec es;
    int own_threads = engine_spec_parse(&es, p->engine[t.machine][t.engine]) == 0 &&
                      engine_spec_get(&es, "threads", NULL) != NULL;
    if (p->threads && !own_threads) { ARG("--threads"); ARG("%d", p->threads); }
    ARG("--audit-every"); ARG("%ld", p->audit_every);
    ARG("--ref-steps"); ARG("%ld", p->ref_steps);
    ARG("--out"); ARG("%s", out);
#undef ARG
    argv[n] = NULL;
    return n;
}

static int task_run(const sweep_plan *p, const char *dir, int id, FILE *log) {
    if (id < 0 || id >= plan_n_tasks(p)) return ls_err(LS_EINVAL, "--task %d: the plan has tasks 0..%d", id, plan_n_tasks(p) - 1);
    char rec[PATH_MAX], out[PATH_MAX], exe[PATH_MAX], sdir[PATH_MAX], name[200];
    task_rec_path(rec, sizeof rec, p, id);
    task_name(name, sizeof name, p, id);
    snprintf(out, sizeof out, "%s/%s", dir, rec);
    int rc;
    snprintf(sdir, sizeof sdir, "%s/state", dir);
    if ((rc = mkdirs(sdir))) return rc;
    self_exe(exe, sizeof exe);
    char store[40][1100], *argv[41];
    task_argv(p, id, exe, out, store, argv);
    state_file sf;
    memset(&sf, 0, sizeof sf);
    struct utsname u;
    snprintf(sf.node, sizeof sf.node, "%s", uname(&u) == 0 ? u.nodename : "?");
    const char *aj = getenv("SLURM_ARRAY_JOB_ID");
    if (aj) snprintf(sf.job, sizeof sf.job, "%s_%d", aj, id);
    else snprintf(sf.job, sizeof sf.job, "local");
    snprintf(sf.state, sizeof sf.state, "running");
    sf.pid = (long)getpid();
    sf.wall_s = sf.wrap_s = NAN;
    double t0 = ls_now();
    if ((rc = state_write(dir, id, &sf))) return rc;
    /* the recording's folder after the state file: a task that fails here
     * ran and failed (its state says why), it was not "never run" */
    *strrchr(rec, '/') = 0;
    snprintf(sdir, sizeof sdir, "%s/%s", dir, rec);
    if ((rc = mkdirs(sdir))) {
        char why[256];
        snprintf(why, sizeof why, "%s", ls_errmsg());
        snprintf(sf.state, sizeof sf.state, "failed");
        snprintf(sf.reason, sizeof sf.reason, "the task wrapper: %s", why);
        sf.wrap_s = ls_now() - t0;
        state_write(dir, id, &sf);
        return ls_err(rc, "%s", why);
    }
    if (log) fprintf(log, "sweep: %s on %s (job %s): %s\n", name, sf.node, sf.job, out);
    fflush(NULL);
    /* the handlers are in place before the child exists: no window in
     * which a SIGTERM would kill the wrapper and leave the child alone */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = task_on_signal;
    sigemptyset(&sa.sa_mask);
    int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &sa, NULL);
    double t1 = ls_now();
    pid_t pid = fork();
    if (pid < 0) return ls_err(LS_EIO, "fork: %s", strerror(errno));
    if (pid == 0) {
        for (int i = 0; i < 3; i++) signal(sigs[i], SIG_DFL);
        /* tasks share a node's cores with other tasks: OpenMP threads that
         * spin while idle steal them (the wait policy changes no value) */
        setenv("OMP_WAIT_POLICY", "passive", 0);
        execv(exe, argv);
        _exit(127);
    }
    g_child_pid = pid;
    if (g_task_signal) kill(pid, g_task_signal);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    g_child_pid = 0;
    sf.wall_s = ls_now() - t1;
    int status;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && file_exists(out)) {
        snprintf(sf.state, sizeof sf.state, "done");
        status = 0;
    } else if (WIFSIGNALED(st) || g_task_signal) {
        int sig = WIFSIGNALED(st) ? WTERMSIG(st) : g_task_signal;
        int stop = sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
        snprintf(sf.state, sizeof sf.state, "%s", stop ? "cancelled" : "failed");
        snprintf(sf.reason, sizeof sf.reason, "lockstep record killed by signal %d (%s)%s", sig, strsignal(sig),
                 sig == SIGTERM ? ": scancel, a time limit or preemption" : "");
        status = 128 + sig;
    } else {
        snprintf(sf.state, sizeof sf.state, "failed");
        snprintf(sf.reason, sizeof sf.reason, "lockstep record exited with status %d (its message is in the task's log)",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        status = 2;
    }
    sf.wrap_s = ls_now() - t0;
    if ((rc = state_write(dir, id, &sf))) return rc;
    if (log) fprintf(log, "sweep: %s %s%s%s (%.2f s)\n", name, sf.state, sf.reason[0] ? ": " : "", sf.reason, sf.wall_s);
    return status;
}

/* ---- status --------------------------------------------------------------- */

static void statuses(const sweep_plan *p, const char *dir, slurm_view *v, task_status *ts) {
    slurm_query(dir, v);
    for (int id = 0; id < plan_n_tasks(p); id++) task_status_of(p, dir, v, id, &ts[id]);
}

static int status_print(const sweep_plan *p, const char *dir, FILE *f) {
    int n = plan_n_tasks(p);
    task_status *ts = ls_calloc((size_t)n, sizeof *ts);
    slurm_view *v = ls_malloc(sizeof *v);
    if (!ts || !v) {
        free(ts);
        free(v);
        return LS_ENOMEM;
    }
    statuses(p, dir, v, ts);
    int count[8] = {0};
    fprintf(f, "sweep %s: %d tasks (%d machine types, %d seeds)\n", dir, n, p->n_machines, p->n_seeds);
    fprintf(f, "%-5s %-10s %-20s %-6s %-10s %-14s %-10s %s\n", "task", "machine", "engine", "seed", "state", "job",
            "node", "reason / seconds");
    for (int id = 0; id < n; id++) {
        sweep_task t = plan_task(p, id);
        count[ts[id].st]++;
        char extra[400];
        if (ts[id].st == TS_DONE) snprintf(extra, sizeof extra, "%.1f s", ts[id].wall_s);
        else snprintf(extra, sizeof extra, "%s", ts[id].reason);
        fprintf(f, "%-5d %-10s %-20s %-6lld %-10s %-14s %-10s %s\n", id, p->partition[t.machine],
                p->engine[t.machine][t.engine], p->seed[t.seed], TS_NAME[ts[id].st], ts[id].job[0] ? ts[id].job : "-",
                ts[id].node[0] ? ts[id].node : "-", extra);
    }
    fprintf(f, "done %d, running %d, pending %d, failed %d, cancelled %d, timeout %d, lost %d, missing %d", count[TS_DONE],
            count[TS_RUNNING], count[TS_PENDING], count[TS_FAILED], count[TS_CANCELLED], count[TS_TIMEOUT], count[TS_LOST],
            count[TS_MISSING]);
    if (v->merge_job[0]) fprintf(f, "; merge job %s %s", v->merge_job, v->merge_in_flight ? "in flight" : "finished");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report/verdict.txt", dir);
    FILE *vf = fopen(path, "r");
    char line[512] = "";
    if (vf) {
        if (!fgets(line, sizeof line, vf)) line[0] = 0;
        fclose(vf);
        line[strcspn(line, "\n")] = 0;
    }
    fprintf(f, "\nreport: %s\n", line[0] ? line : "none yet");
    free(ts);
    free(v);
    return 0;
}

/* ---- submission ----------------------------------------------------------- */

/* What a task asks the scheduler for: a GPU for cuda engines, as many
 * cores as the engine runs threads (2 when the spec does not say). */
static void engine_resources(const sweep_plan *p, const char *eng, int *cpus, int *gpus) {
    char spec[256];
    spec_with_threads(spec, sizeof spec, eng, p->threads);
    engine_spec s;
    *cpus = 2;
    *gpus = 0;
    if (engine_spec_parse(&s, spec) != 0) return;
    *gpus = strcmp(s.name, "cuda") == 0;
    const char *t = engine_spec_get(&s, "threads", NULL);
    *cpus = t && atoi(t) > 0 ? atoi(t) : *gpus ? 1 : 2;
}

static int append_line(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int append_line(const char *path, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return ls_err(LS_EIO, "%s: cannot open: %s", path, strerror(errno));
    ssize_t w = write(fd, line, (size_t)n);
    int bad = w != n || fsync(fd) != 0;
    close(fd);
    return bad ? ls_err(LS_EIO, "%s: write failed", path) : 0;
}

/* s as one shell word in single quotes ('\'' for a quote inside): the
 * folder and the binary are the user's paths, spaces and quotes allowed. */
static void sh_quote(char *out, size_t cap, const char *s) {
    size_t n = 0;
    if (cap < 3) {
        if (cap) out[0] = 0;
        return;
    }
    out[n++] = '\'';
    for (; *s && n + 6 < cap; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else out[n++] = *s;
    }
    out[n++] = '\'';
    out[n] = 0;
}

/* path for sbatch --output, where % starts a pattern (%j, %a, ...): a '%'
 * of the folder's own name doubled ("%%", Slurm's literal '%'). */
static void slurm_escape(char *out, size_t cap, const char *s) {
    size_t n = 0;
    for (; *s && n + 3 < cap; s++) {
        if (*s == '%') out[n++] = '%';
        out[n++] = *s;
    }
    if (cap) out[n < cap ? n : cap - 1] = 0;
}

static int write_script(const char *path, const char *body) {
    int rc = ls_write_file_atomic(path, body, strlen(body));
    if (!rc && chmod(path, 0755) != 0) rc = ls_err(LS_EIO, "%s: chmod: %s", path, strerror(errno));
    return rc;
}

/* sbatch ARGS...; the job id into job. */
static int sbatch(char **argv, char *job, size_t cap, FILE *dry) {
    char out[4096];
    if (dry) {
        /* --dry-run: what would be submitted, and a stand-in job id */
        static int n_dry;
        fprintf(dry, "sweep: would run:");
        for (int i = 0; argv[i]; i++) fprintf(dry, " %s", argv[i]);
        fprintf(dry, "\n");
        snprintf(job, cap, "DRYRUN%d", ++n_dry);
        return 0;
    }
    int st = run_capture(argv, out, sizeof out);
    size_t ol = strlen(out);
    while (ol && isspace((unsigned char)out[ol - 1])) out[--ol] = 0;
    if (st != 0) return ls_err(LS_EIO, "sbatch failed (status %d): %s", st, out);
    size_t n = strspn(out, "0123456789");
    if (!n || n >= cap) return ls_err(LS_EIO, "sbatch: no job id in its answer '%s'", out);
    memcpy(job, out, n);
    job[n] = 0;
    return 0;
}

static int in_flight(task_state s) { return s == TS_PENDING || s == TS_RUNNING; }

/* A submission that failed part way (an sbatch refused: a partition that
 * does not exist, say): the arrays this call had
 * already submitted are cancelled, so that none runs without a merge job
 * and the error is the whole outcome.  They stay in jobs.tsv: --status
 * says cancelled, and the same command again submits them.  Returns rc,
 * its message extended with what was cancelled. */
static int unsubmit(int rc, char mine[][40], int n_mine) {
    if (!n_mine) return rc;
    char why[1024], ids[512] = "", out[2048];
    snprintf(why, sizeof why, "%s", ls_errmsg());
    char *argv[SWEEP_MAX_MACHINES * SWEEP_MAX_ENGINES + 2];
    int k = 0;
    argv[k++] = "scancel";
    for (int i = 0; i < n_mine; i++) {
        argv[k++] = mine[i];
        snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", i ? ", " : "", mine[i]);
    }
    argv[k] = NULL;
    int st = run_capture(argv, out, sizeof out);
    out[strcspn(out, "\n")] = 0;
    if (st == 0)
        return ls_err(rc, "%s; cancelled what this command had submitted (job array%s %s), so that nothing runs without "
                      "a merge job: fix the cause and submit the same command again", why, n_mine > 1 ? "s" : "", ids);
    return ls_err(rc, "%s; the job array%s %s submitted before it could not be cancelled (scancel: %s): they run without "
                  "a merge job; scancel them, or fix the cause and submit the same command again", why,
                  n_mine > 1 ? "s" : "", ids, st < 0 ? "could not run" : out);
}

static int slurm_submit(const sweep_plan *p, const char *dir, const task_status *ts, const slurm_view *v,
                        const sweep_cfg *c, char *merge_job, size_t mcap, int *n_new) {
    char exe[PATH_MAX], path[PATH_MAX], body[4 * PATH_MAX + 256], jobs[PATH_MAX];
    int rc, n = plan_n_tasks(p);
    self_exe(exe, sizeof exe);
    snprintf(jobs, sizeof jobs, "%s/slurm/jobs.tsv", dir);
    snprintf(path, sizeof path, "%s/slurm/task.sh", dir);
    /* quoted: a quote in the folder's name made a script that every task and the merge failed to parse; and
     * a '%' in it was a pattern in --output (the logs went to another folder) */
    char q_exe[2 * PATH_MAX], q_dir[2 * PATH_MAX], e_dir[2 * PATH_MAX];
    slurm_escape(e_dir, sizeof e_dir, dir);
    sh_quote(q_exe, sizeof q_exe, exe);
    sh_quote(q_dir, sizeof q_dir, dir);
    if (strchr(dir, '\n') || strchr(exe, '\n'))
        return ls_err(LS_EINVAL, "%s: a folder name with a line break cannot go into a job script", dir);
    snprintf(body, sizeof body, "#!/bin/sh\n# lockstep sweep: one task of this folder's plan.json (the array index is "
             "the task)\nexec %s sweep --task \"$SLURM_ARRAY_TASK_ID\" --dir %s\n", q_exe, q_dir);
    if ((rc = write_script(path, body))) return rc;
    snprintf(path, sizeof path, "%s/slurm/merge.sh", dir);
    snprintf(body, sizeof body, "#!/bin/sh\n# lockstep sweep: audit this folder's recordings into its report/\n"
             "exec %s sweep --merge %s\n", q_exe, q_dir);
    if ((rc = write_script(path, body))) return rc;
    char dep[2048] = "afterany";
    size_t dl = strlen(dep);
    /* arrays still in flight from an earlier submission: the merge waits for them too */
    for (int i = 0; i < v->n; i++)
        if (!v->r[i].is_merge && !is_final(v->r[i].state) && !strstr(dep, v->r[i].job))
            dl += (size_t)snprintf(dep + dl, sizeof dep - dl, ":%s", v->r[i].job);
    *n_new = 0;
    int done_group[SWEEP_MAX_TASKS] = {0}, n_mine = 0;
    char mine[SWEEP_MAX_MACHINES * SWEEP_MAX_ENGINES][40]; /* the arrays this call submitted */
    for (int id = 0; id < n; id++) {
        if (ts[id].st == TS_DONE || in_flight(ts[id].st) || done_group[id]) continue;
        sweep_task t = plan_task(p, id);
        int cpus, gpus;
        engine_resources(p, p->engine[t.machine][t.engine], &cpus, &gpus);
        char list[2048] = "";
        size_t ll = 0;
        for (int k = id; k < n; k++) {
            sweep_task u = plan_task(p, k);
            int c2, g2;
            engine_resources(p, p->engine[u.machine][u.engine], &c2, &g2);
            if (u.machine != t.machine || c2 != cpus || g2 != gpus || ts[k].st == TS_DONE || in_flight(ts[k].st)) continue;
            done_group[k] = 1;
            ll += (size_t)snprintf(list + ll, sizeof list - ll, "%s%d", ll ? "," : "", k);
            (*n_new)++;
        }
        char a_part[96], a_arr[2100], a_cpu[48], a_out[2 * PATH_MAX + 32], a_time[96], a_script[PATH_MAX], job[40];
        snprintf(a_part, sizeof a_part, "--partition=%s", p->partition[t.machine]);
        snprintf(a_arr, sizeof a_arr, "--array=%s", list);
        snprintf(a_cpu, sizeof a_cpu, "--cpus-per-task=%d", cpus);
        snprintf(a_out, sizeof a_out, "--output=%s/log/task-%%a.%%A.out", e_dir);
        snprintf(a_time, sizeof a_time, "--time=%s", c->time_limit ? c->time_limit : "");
        snprintf(a_script, sizeof a_script, "%s/slurm/task.sh", dir);
        char *argv[16];
        int k = 0;
        argv[k++] = "sbatch";
        argv[k++] = "--parsable";
        argv[k++] = "--job-name=lockstep-sweep";
        argv[k++] = a_part;
        argv[k++] = a_arr;
        argv[k++] = a_cpu;
        if (gpus) argv[k++] = "--gres=gpu:1";
        if (c->time_limit) argv[k++] = a_time;
        argv[k++] = a_out;
        argv[k++] = a_script;
        argv[k] = NULL;
        if ((rc = sbatch(argv, job, sizeof job, c->dry_run ? c->out : NULL))) return unsubmit(rc, mine, n_mine);
        if (!c->dry_run && n_mine < (int)LS_ARRAY_LEN(mine)) snprintf(mine[n_mine++], sizeof mine[0], "%s", job);
        if (!c->dry_run && (rc = append_line(jobs, "array %s %s %s\n", job, p->partition[t.machine], list)))
            return unsubmit(rc, mine, n_mine);
        if (c->out) fprintf(c->out, "sweep: %s job array %s on %s: tasks %s (%d cpus%s each)\n",
                            c->dry_run ? "would submit" : "submitted", job,
                            p->partition[t.machine], list, cpus, gpus ? ", 1 gpu" : "");
        dl += (size_t)snprintf(dep + dl, sizeof dep - dl, ":%s", job);
    }
    if (!*n_new && v->merge_in_flight) {
        snprintf(merge_job, mcap, "%s", v->merge_job);
        if (c->out) fprintf(c->out, "sweep: nothing to submit; merge job %s is in flight\n", merge_job);
        return 0;
    }
    char a_part[96], a_dep[2100], a_out[2 * PATH_MAX + 32], a_script[PATH_MAX];
    snprintf(a_part, sizeof a_part, "--partition=%s", p->partition[0]);
    snprintf(a_dep, sizeof a_dep, "--dependency=%s", dep);
    snprintf(a_out, sizeof a_out, "--output=%s/log/merge.%%j.out", e_dir);
    snprintf(a_script, sizeof a_script, "%s/slurm/merge.sh", dir);
    char *argv[] = {"sbatch", "--parsable", "--job-name=lockstep-sweep-merge", a_part, "--cpus-per-task=1",
                    a_out, strchr(dep, ':') ? a_dep : a_script, a_script, NULL};
    if (!strchr(dep, ':')) argv[7] = NULL;
    if ((rc = sbatch(argv, merge_job, mcap, c->dry_run ? c->out : NULL))) return unsubmit(rc, mine, n_mine);
    if (c->dry_run) {
        merge_job[0] = 0; /* nothing to wait for */
        return 0;
    }
    if ((rc = append_line(jobs, "merge %s\n", merge_job))) return rc;
    if (c->out) fprintf(c->out, "sweep: merge job %s (%s)\n", merge_job, strchr(dep, ':') ? dep : "no dependency");
    return 0;
}

/* Wait until Slurm reports the merge job finished (or forgets it). */
static int slurm_wait(const char *job) {
    char out[8192], state[32];
    for (;;) {
        if (ls_stop_signal()) return 128 + ls_stop_signal();
        char *argv[] = {"scontrol", "-o", "show", "job", (char *)job, NULL};
        if (run_capture(argv, out, sizeof out) != 0) return 0;
        field(out, "JobState", state, sizeof state);
        if (!state[0] || is_final(state)) return 0;
        usleep(300 * 1000);
    }
}

/* ---- the local backend ----------------------------------------------------- */

static pid_t local_start(const char *dir, int id, const char *exe) {
    char log[PATH_MAX], ids[16];
    snprintf(log, sizeof log, "%s/log/task-%d.local.out", dir, id);
    snprintf(ids, sizeof ids, "%d", id);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        char *argv[] = {(char *)exe, "sweep", "--task", ids, "--dir", (char *)dir, NULL};
        execv(exe, argv);
        _exit(127);
    }
    return pid;
}

/* Run the missing tasks J at a time, each through the task wrapper.  A
 * first SIGINT/SIGTERM stops starting tasks and passes SIGTERM to the
 * running ones (their recordings are removed, their state says why).
 * Returns 0 when every task was started and ended (the merge says which
 * failed), 128 + N when stopped by signal N, or an error.  It returned the
 * number of failed tasks once: 128 of them read as "stopped by a signal"
 * and skipped the merge, 256 exited 0 with no report at all. */
static int local_run(const sweep_plan *p, const char *dir, const task_status *ts, int jobs, FILE *out) {
    char exe[PATH_MAX];
    self_exe(exe, sizeof exe);
    int n = plan_n_tasks(p), next = 0, running = 0, forwarded = 0;
    pid_t pid[64] = {0};
    int pid_task[64];
    if (jobs > 64) jobs = 64;
    for (;;) {
        while (!ls_stop_signal() && running < jobs && next < n) {
            int id = next++;
            if (ts[id].st == TS_DONE) continue;
            int slot = 0;
            while (pid[slot]) slot++;
            if ((pid[slot] = local_start(dir, id, exe)) < 0) return ls_err(LS_EIO, "fork: %s", strerror(errno));
            pid_task[slot] = id;
            running++;
        }
        if (!running) break;
        int st;
        /* the handlers restart waits (SA_RESTART): look at the stop flag
         * between short waits instead */
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w == 0) {
            if (ls_stop_signal() && !forwarded) {
                for (int s = 0; s < 64; s++)
                    if (pid[s] > 0) kill(pid[s], SIGTERM);
                forwarded = 1;
            }
            usleep(50 * 1000);
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) break;
        for (int s = 0; s < 64; s++)
            if (pid[s] == w) {
                pid[s] = 0;
                running--;
                int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
                if (out) {
                    char name[200];
                    task_name(name, sizeof name, p, pid_task[s]);
                    fprintf(out, "sweep: %s %s\n", name, ok ? "done" : "did not finish (see --status)");
                }
            }
    }
    if (ls_stop_signal()) return 128 + ls_stop_signal();
    return 0;
}

/* ---- the merge --------------------------------------------------------------- */

static const char *PROV_KEYS[] = {"host.os", "host.cpu", "cpu.isa", "threads", "gpu.name", "gpu.driver", "lib.onednn",
                                  "lib.cudnn", "lib.cublas", "lib.cudart", "lib.glibc", "lockstep.commit"};

/* Whether recorded engine spec `got` is the task's engine `want` as the
 * task ran it (its knobs, and threads=N from the plan's --threads where
 * the spec has no threads knob of its own); 0 when it is, else an error
 * naming the recording.  A recording put in another engine's slot (a
 * cpu:threads=2 run as rec/M/cpu:threads=1/S.lsr) would otherwise be
 * audited and reported as the slot's engine (zoo attack 9). */
static int recorded_engine_matches(const sweep_plan *p, const char *rec, const char *want, const char *got) {
    engine_spec w, g;
    if (!got) return ls_err(LS_EFORMAT, "%s: provenance has no engine.spec: which engine it recorded is unknown", rec);
    int ok = engine_spec_parse(&w, want) == 0 && engine_spec_parse(&g, got) == 0 && strcmp(w.name, g.name) == 0;
    for (int k = 0; ok && k < w.n_knobs; k++) ok = strcmp(engine_spec_get(&g, w.key[k], ""), w.val[k]) == 0;
    for (int k = 0; ok && k < g.n_knobs; k++) {
        if (engine_spec_get(&w, g.key[k], NULL)) continue;
        char th[16];
        snprintf(th, sizeof th, "%d", p->threads);
        ok = strcmp(g.key[k], "threads") == 0 && p->threads && strcmp(g.val[k], th) == 0;
    }
    return ok ? 0
              : ls_err(LS_EMISMATCH, "%s: recorded engine '%s' is not this slot's engine '%s' (a recording in "
                       "another engine's place): record it again (delete it and submit the plan)", rec, got, want);
}

/* Per machine: what its recordings say they ran on, and whether they
 * agree (a partition that mixes CPU models or drivers is not one machine
 * type, and its seeds are not comparable). */
static int merge_machines(lsbuf *md, const sweep_plan *p, const task_status *ts) {
    int rc = 0;
    lsbuf_printf(md, "\n## Machines (from each recording's provenance)\n\n");
    int id0 = 0;
    for (int m = 0; m < p->n_machines; m++) {
        int nt = p->n_engines[m] * p->n_seeds;
        lsbuf_printf(md, "### %s\n\n| key | value | recordings |\n|---|---|---|\n", p->partition[m]);
        char nodes[512] = "";
        for (int k = 0; k < nt; k++) {
            const char *nd = ts[id0 + k].node;
            if (nd[0] && !strstr(nodes, nd) && strlen(nodes) + strlen(nd) + 3 < sizeof nodes)
                snprintf(nodes + strlen(nodes), sizeof nodes - strlen(nodes), "%s%s", nodes[0] ? ", " : "", nd);
        }
        lsbuf_printf(md, "| nodes (task wrapper) | %s | %d |\n", nodes[0] ? nodes : "?", nt);
        enum { NK = LS_ARRAY_LEN(PROV_KEYS), NV = 4 };
        char vals[NK][NV][256];
        int nv[NK] = {0}, cnt[NK][NV] = {{0}};
        /* each recording read once (they are tens of MB): every key from it */
        for (int k = 0; k < nt; k++) {
            char rec[PATH_MAX];
            task_rec_path(rec, sizeof rec, p, id0 + k);
            golden_file *gf = NULL;
            if (golden_read(&gf, rec) != 0) continue;
            sweep_task tk = plan_task(p, id0 + k);
            if (!rc) rc = recorded_engine_matches(p, rec, p->engine[tk.machine][tk.engine],
                                                  golden_provenance_get(gf, "engine.spec"));
            for (size_t q = 0; q < NK; q++) {
                const char *v = golden_provenance_get(gf, PROV_KEYS[q]);
                if (!v) continue;
                int j = 0;
                while (j < nv[q] && strcmp(vals[q][j], v)) j++;
                if (j == nv[q] && nv[q] < NV) snprintf(vals[q][nv[q]++], 256, "%.255s", v);
                if (j < NV) cnt[q][j]++;
            }
            golden_file_free(gf);
        }
        for (size_t q = 0; q < NK; q++)
            for (int j = 0; j < nv[q]; j++)
                /* threads are the engine's, not the machine's: they may differ */
                lsbuf_printf(md, "| %s | %s | %d%s |\n", PROV_KEYS[q], vals[q][j], cnt[q][j],
                             nv[q] > 1 && strcmp(PROV_KEYS[q], "threads") ? " **(differs within the partition)**" : "");
        lsbuf_printf(md, "\n");
        id0 += nt;
    }
    return rc;
}

/* machine/engine of recorded label "recorded:rec/M/E/S.lsr"; the label itself otherwise */
static void short_label(char *out, size_t cap, const char *label) {
    if (strncmp(label, "recorded:rec/", 13) == 0) {
        snprintf(out, cap, "%s", label + 13);
        char *sl = strrchr(out, '/');
        if (sl) *sl = 0;
    } else snprintf(out, cap, "%s", label);
}

static void merge_seed_verdicts(lsbuf *md, lsbuf *vt, const audit_result *r, long long seed, int *problems,
                                lsbuf *not_ok, unsigned *found) {
    verdict_table v;
    explain_verdicts(&v, r, &r->m);
    /* the seed's own verdict: a SUSPECT, an incomplete or a not fully
     * checked audit (a recording without vectors, one judged at a rounding
     * it only claims) is not a problem count of 0 */
    headline h;
    headline_make(&h, r, &v);
    /* what `audit --fail-on` would gate on for this seed (audit_cmd.c) */
    *found |= audit_conditions(r, &v, &h);
    if (h.kind != HEADLINE_OK && h.kind != HEADLINE_PROBLEM) {
        lsbuf_printf(vt, "seed %lld %s\n", seed, h.line);
        lsbuf_printf(not_ok, "%sseed %lld: %s", not_ok->s && not_ok->s[0] ? "; " : "", seed, h.line + 9);
    }
    char a[160], b[160];
    lsbuf_printf(md, "\n### seed %lld\n\n| engine / pair | verdict | detail |\n|---|---|---|\n", seed);
    for (int i = 0; i < v.n_eng; i++) {
        short_label(a, sizeof a, r->eng[v.e[i].engine].label);
        lsbuf_printf(md, "| %s | %s | %s |\n", a, v.e[i].verdict, v.e[i].detail);
        lsbuf_printf(vt, "seed %lld engine %s: %s (%s)\n", seed, a, v.e[i].verdict, v.e[i].detail);
    }
    for (int i = 0; i < v.n_pair; i++) {
        const audit_pair *pp = &r->pair[v.p[i].pair];
        short_label(a, sizeof a, r->eng[pp->a].label);
        short_label(b, sizeof b, r->eng[pp->b].label);
        char gap[64] = "";
        if (!isnan(v.p[i].acc_gap)) snprintf(gap, sizeof gap, "accuracy gap %+.2f points, %ld flips", v.p[i].acc_gap, v.p[i].flips);
        lsbuf_printf(md, "| %s vs %s | %s | first difference at step %ld; %s |\n", a, b, v.p[i].verdict,
                     v.p[i].first_diff_step, gap);
        lsbuf_printf(vt, "seed %lld pair %s vs %s: %s (first difference at step %ld; %s)\n", seed, a, b, v.p[i].verdict,
                     v.p[i].first_diff_step, gap);
    }
    for (int i = 0; i < r->n_engines; i++)
        if (r->eng[i].failed) {
            lsbuf_printf(vt, "seed %lld engine %s: FAILED %s\n", seed, r->eng[i].label, r->eng[i].fail_reason);
            (*problems)++;
            *found |= AUDIT_FAIL_PROBLEM; /* counted as a problem in the merged verdict: gated as one */
        }
    *problems += v.problems;
}

/* Across seeds, grouped by machine: pairs within one machine type, the
 * same engine on two machine types, and the rest. */
static void merge_significance(lsbuf *md, const seeds_result *R, const sweep_plan *p) {
    int last = R->epochs - 1;
    static const char *GROUP[] = {"within one machine type", "the same engine on two machine types",
                                  "other engines across machine types"};
    lsbuf_printf(md, "\n## Significance across %d seeds (last epoch; paired over seeds, exact McNemar per seed)\n",
                 R->n_seeds);
    for (int g = 0; g < 3; g++) {
        lsbuf_printf(md, "\n### %s\n\n| pair | mean gap (points) | 95%% interval | McNemar p per seed | verdict |\n"
                     "|---|---|---|---|---|\n", GROUP[g]);
        for (int i = 0; i < R->n_pairs; i++) {
            const seeds_pair *sp = &R->pair[i];
            const char *la = R->eng[sp->a].label, *lb = R->eng[sp->b].label;
            const char *sa = strchr(la, '/'), *sb = strchr(lb, '/');
            int same_m = sa && sb && sa - la == sb - lb && strncmp(la, lb, (size_t)(sa - la)) == 0;
            int same_e = sa && sb && strcmp(sa, sb) == 0;
            if ((same_m ? 0 : same_e ? 1 : 2) != g) continue;
            const stats_paired *pd = &sp->paired[last];
            lsbuf_printf(md, "| %s vs %s | %+.2f | [%+.2f, %+.2f] | ", la, lb, 100 * pd->mean, 100 * pd->lo, 100 * pd->hi);
            for (int s = 0; s < R->n_seeds; s++)
                lsbuf_printf(md, "%s%lld: %.3g (%ld/%ld)", s ? ", " : "", p->seed[s], sp->mcnemar[s][last].p,
                             sp->mcnemar[s][last].b, sp->mcnemar[s][last].c);
            lsbuf_printf(md, " | %s |\n", sp->verdict);
        }
    }
}

/* rm -r of a folder this merge made (report.tmp.PID, report.old.PID). */
static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(sub);
        else unlink(sub);
    }
    closedir(d);
    rmdir(path);
}

static int write_text(const char *dir, const char *name, const lsbuf *b) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (b->failed) return LS_ENOMEM;
    return ls_write_file_atomic(path, b->s ? b->s : "", b->len);
}

/* Audit each seed's recordings (the reference shadow-replays them) and
 * collect the verdicts; then the significance over seeds. */
static int merge_audits(const sweep_plan *p, const char *dir, const char *tmp, lsbuf *md, lsbuf *vt, lsbuf *js,
                        int *problems, lsbuf *not_ok, unsigned *found, FILE *out) {
    int n_eng = 0;
    char labels[AUDIT_MAX_ENGINES][256];
    for (int m = 0; m < p->n_machines; m++)
        for (int e = 0; e < p->n_engines[m] && n_eng < AUDIT_MAX_ENGINES; e++)
            snprintf(labels[n_eng++], 256, "%s/%s", p->partition[m], p->engine[m][e]);
    audit_result **runs = ls_calloc((size_t)p->n_seeds, sizeof *runs);
    int (*map)[AUDIT_MAX_ENGINES] = ls_calloc((size_t)p->n_seeds, sizeof *map);
    uint64_t seeds[SWEEP_MAX_SEEDS];
    int rc = runs && map ? 0 : LS_ENOMEM;
    lsbuf_printf(md, "\n## Verdicts per seed (reference + every recording of the seed, free mode, shadow replays)\n");
    /* the reference shadows one recording per shadow step, in turn: with
     * fewer shadow steps than recordings some stay unchecked.  How many is
     * each seed's audit's own count (audit_result recordings_unreplayed,
     * eng[i].shadows: run.json's recordings_not_replayed and the engines'
     * shadow_replays), said after the audits ran, not re-derived here from
     * the driver's rule (driver.c recording_owes_shadow) */
    lsbuf unrep;
    lsbuf_init(&unrep);
    int any_unrep = 0;
    for (int s = 0; s < p->n_seeds && !rc; s++) {
        seeds[s] = (uint64_t)p->seed[s];
        char list[2048] = "reference", odir[PATH_MAX], shown[PATH_MAX + 32];
        size_t ll = strlen(list);
        for (int t = 0; t < n_eng; t++)
            ll += (size_t)snprintf(list + ll, sizeof list - ll, ",recorded:rec/%s/%lld.lsr", labels[t], p->seed[s]);
        snprintf(odir, sizeof odir, "%s/seed-%lld", tmp, p->seed[s]);
        /* the console names the folder the set is renamed to (merge_here),
         * not report.tmp.PID, which is gone when the command ends */
        snprintf(shown, sizeof shown, "%s/report/seed-%lld", dir, p->seed[s]);
        audit_cfg a;
        audit_cfg_default(&a);
        a.run.model = p->model;
        a.run.data_dir = p->data;
        a.run.epochs = p->epochs;
        a.run.batch = (size_t)p->batch;
        a.run.adam.lr = p->lr;
        a.run.limit_train = (size_t)p->limit_train;
        a.run.limit_test = (size_t)p->limit_test;
        a.run.threads = p->threads;
        a.run.seed = seeds[s];
        a.run.progress = 0;
        a.engines = list;
        a.mode = MODE_FREE;
        a.out_dir = odir;
        a.out = out;
        if (out) fprintf(out, "sweep merge: seed %lld: audit %s\n", p->seed[s], list);
        if (!(runs[s] = ls_malloc(sizeof *runs[s]))) {
            rc = LS_ENOMEM;
            break;
        }
        if ((rc = audit_run_shown(&a, runs[s], shown))) {
            free(runs[s]);
            runs[s] = NULL;
            /* the audit names the recordings relative to the sweep's folder */
            rc = ls_err_prefix(rc, "merge of %s, seed %lld", dir, p->seed[s]);
            break;
        }
        for (int t = 0; t < n_eng; t++) {
            char want[300];
            snprintf(want, sizeof want, "recorded:rec/%s/%lld.lsr", labels[t], p->seed[s]);
            map[s][t] = -1;
            for (int i = 0; i < runs[s]->n_engines; i++)
                if (strcmp(runs[s]->eng[i].label, want) == 0 && !runs[s]->eng[i].failed) map[s][t] = i;
        }
        merge_seed_verdicts(md, vt, runs[s], p->seed[s], problems, not_ok, found);
        const audit_result *rs = runs[s];
        lsbuf_printf(&unrep, "%sseed %lld: %ld shadow replay(s) for %d recordings, %d recording(s) not replayed by the "
                     "reference", s ? "; " : "", p->seed[s], rs->n_shadows, n_eng, rs->recordings_unreplayed);
        int named = 0; /* the parenthesis closes what it opened (a failed recording is not named) */
        for (int t = 0; t < n_eng; t++)
            if (rs->recordings_unreplayed && map[s][t] >= 0 && !rs->eng[map[s][t]].shadows)
                lsbuf_printf(&unrep, "%s%s", named++ ? ", " : " (", labels[t]);
        lsbuf_printf(&unrep, "%s", named ? ")" : "");
        any_unrep |= rs->recordings_unreplayed > 0;
        if (out)
            fprintf(out, "sweep merge: seed %lld: %ld shadow replay(s); %d of %d recordings not replayed by the "
                    "reference\n", p->seed[s], rs->n_shadows, rs->recordings_unreplayed, n_eng);
    }
    if (!rc && any_unrep)
        lsbuf_printf(md, "\nNote: shadow replays as each seed's audit ran them (after step %ld: every %ld-th step, and "
                     "full steps near the end while a recording is owed one; its run.json: shadow_replays, "
                     "recordings_not_replayed): %s. A recording not replayed is unchecked per element (lower "
                     "--audit-every or train longer).\n", p->ref_steps, p->audit_every, unrep.s ? unrep.s : "");
    if (!rc && unrep.failed) rc = LS_ENOMEM;
    lsbuf_free(&unrep);
    seeds_result *R = rc ? NULL : ls_calloc(1, sizeof *R);
    if (!rc && !R) rc = LS_ENOMEM;
    if (!rc && !(rc = seeds_from_audits(R, (const audit_result *const *)runs, p->n_seeds, seeds, labels, n_eng, map))) {
        merge_significance(md, R, p);
        char *txt = NULL;
        size_t tl = 0;
        FILE *mf = open_memstream(&txt, &tl);
        if (mf) {
            seeds_print(mf, R);
            fclose(mf);
            lsbuf_printf(md, "\n### The seed table\n\n```\n%s```\n", txt ? txt : "");
            free(txt);
        }
        seeds_json(js, R);
        seeds_result_free(R);
    }
    free(R);
    for (int s = 0; runs && s < p->n_seeds; s++)
        if (runs[s]) {
            audit_result_free(runs[s]);
            free(runs[s]);
        }
    free(runs);
    free(map);
    return rc;
}

/* Stale report.tmp.PID folders of merges that died (scancel, SIGKILL). */
static void remove_stale_tmp(void) {
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid;
        if (sscanf(e->d_name, "report.tmp.%ld", &pid) == 1 || sscanf(e->d_name, "report.old.%ld", &pid) == 1)
            if (pid != (long)getpid() && kill((pid_t)pid, 0) != 0) remove_tree(e->d_name);
    }
    if (d) closedir(d);
}

/* The --fail-on conditions (AUDIT_FAIL_* bits) as audit's words, into b:
 * a JSON list, or (json 0) the words with commas. */
static void conditions_words(lsbuf *b, unsigned bits, int json) {
    static const struct { unsigned bit; const char *word; } W[] = {
        {AUDIT_FAIL_PROBLEM, "problem"},     {AUDIT_FAIL_SUSPECT, "suspect"},
        {AUDIT_FAIL_UNCHECKED, "unchecked"}, {AUDIT_FAIL_NONDET, "nondeterminism"},
        {AUDIT_FAIL_INCOMPLETE, "incomplete"},
    };
    int k = 0;
    const char *q = json ? "\"" : "";
    lsbuf_printf(b, "%s", json ? "[" : "");
    for (size_t i = 0; i < LS_ARRAY_LEN(W); i++)
        if (bits & W[i].bit) lsbuf_printf(b, "%s%s%s%s", k++ ? ", " : "", q, W[i].word, q);
    lsbuf_printf(b, "%s", json ? "]" : "");
}

/* The gate of --fail-on over a merge's conditions: 1 (and a line on
 * stderr naming what was found) when one named is found, else 0. */
static int merge_gate(unsigned found, unsigned fail_on) {
    unsigned hit = found & fail_on;
    if (!hit) return 0;
    lsbuf b;
    lsbuf_init(&b);
    conditions_words(&b, hit, 0);
    fprintf(stderr, "lockstep sweep: exit 1: --fail-on: a merged seed's audit found %s (report/verdicts.txt)\n",
            b.s ? b.s : "");
    lsbuf_free(&b);
    return 1;
}

/* `sweep --merge DIR`, in DIR (the caller chdir()s): the report set in
 * report.tmp.PID, renamed to report/ when complete.  Returns 0 complete,
 * 1 incomplete or a condition of fail_on (AUDIT_FAIL_* bits) found in a
 * seed's audit, or an error. */
static int merge_here(const sweep_plan *p, const char *dir, unsigned fail_on, FILE *out) {
    int n = plan_n_tasks(p), rc = 0, missing = 0, problems = 0;
    unsigned found = 0;
    task_status *ts = ls_calloc((size_t)n, sizeof *ts);
    slurm_view *v = ls_malloc(sizeof *v);
    if (!ts || !v) {
        free(ts);
        free(v);
        return LS_ENOMEM;
    }
    statuses(p, ".", v, ts);
    remove_stale_tmp();
    char tmp[64];
    snprintf(tmp, sizeof tmp, "report.tmp.%ld", (long)getpid());
    if ((rc = mkdirs(tmp))) goto done;
    lsbuf md, vt, js, why, not_ok;
    lsbuf_init(&md);
    lsbuf_init(&not_ok);
    lsbuf_init(&vt);
    lsbuf_init(&js);
    lsbuf_init(&why);
    lsbuf_printf(&md, "# lockstep sweep %s\n\nmodel %s, data %s, %d epoch(s), batch %ld, lr %g, limit-train %ld, "
                 "limit-test %ld; %d machine types x engines x %d seeds = %d recordings\n",
                 dir, p->model, p->data, p->epochs, p->batch, p->lr, p->limit_train, p->limit_test, p->n_machines,
                 p->n_seeds, n);
    lsbuf_printf(&md, "\n## Tasks\n\n| task | machine | engine | seed | state | node | seconds / reason |\n"
                 "|---|---|---|---|---|---|---|\n");
    for (int id = 0; id < n; id++) {
        sweep_task t = plan_task(p, id);
        lsbuf_printf(&md, "| %d | %s | %s | %lld | %s | %s | ", id, p->partition[t.machine], p->engine[t.machine][t.engine],
                     p->seed[t.seed], TS_NAME[ts[id].st], ts[id].node[0] ? ts[id].node : "-");
        if (ts[id].st == TS_DONE) lsbuf_printf(&md, "%.2f |\n", ts[id].wall_s);
        else {
            char name[200];
            task_name(name, sizeof name, p, id);
            lsbuf_printf(&md, "%s |\n", ts[id].reason);
            lsbuf_printf(&why, "%s%s: %s: %s", missing ? "; " : "", name, TS_NAME[ts[id].st], ts[id].reason);
            missing++;
        }
    }
    if (!missing) {
        rc = merge_machines(&md, p, ts);
        if (!rc) rc = merge_audits(p, dir, tmp, &md, &vt, &js, &problems, &not_ok, &found, out);
    }
    if (!rc) {
        char verdict[4096];
        if (missing)
            snprintf(verdict, sizeof verdict, "incomplete: %d of %d tasks have no recording, nothing was audited (%s); "
                     "submit the same plan again to run them", missing, n, why.s ? why.s : "");
        else
            snprintf(verdict, sizeof verdict, "complete: %d recordings audited over %d seeds; %d problem(s)%s%s", n,
                     p->n_seeds, problems, not_ok.s && not_ok.s[0] ? "; not ok: " : "", not_ok.s ? not_ok.s : "");
        lsbuf_printf(&md, "\n## Verdict\n\n%s\n", verdict);
        lsbuf vline;
        lsbuf_init(&vline);
        lsbuf_printf(&vline, "%s\n", verdict);
        lsbuf sj;
        lsbuf_init(&sj);
        lsbuf_printf(&sj, "{\"magic\": \"lockstep-sweep-report\", \"version\": 1, \"complete\": %s, \"verdict\": ",
                     missing ? "false" : "true");
        lsbuf_json_str(&sj, verdict);
        /* what `--fail-on` can gate on, found in any seed's audit: --wait
         * reads it (the merge ran in a Slurm job, without the option) */
        lsbuf_printf(&sj, ", \"found\": ");
        conditions_words(&sj, found, 1);
        /* which Slurm job wrote this report: --wait checks that it is the merge it waited for */
        lsbuf_printf(&sj, ", \"merge_job\": ");
        lsbuf_json_str(&sj, getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "");
        lsbuf_printf(&sj, ", \"tasks\": [");
        for (int id = 0; id < n; id++) {
            char rec[PATH_MAX];
            task_rec_path(rec, sizeof rec, p, id);
            lsbuf_printf(&sj, "%s{\"task\": %d, \"recording\": \"%s\", \"state\": \"%s\", \"node\": ", id ? ", " : "", id, rec,
                         TS_NAME[ts[id].st]);
            lsbuf_json_str(&sj, ts[id].node);
            lsbuf_printf(&sj, ", \"reason\": ");
            lsbuf_json_str(&sj, ts[id].reason);
            lsbuf_printf(&sj, ", \"record_s\": ");
            lsbuf_json_num(&sj, ts[id].wall_s);
            lsbuf_printf(&sj, ", \"wrapper_s\": ");
            lsbuf_json_num(&sj, ts[id].wrap_s);
            lsbuf_printf(&sj, "}");
        }
        lsbuf_printf(&sj, "]%s%s}\n", js.len ? ", " : "", js.len ? js.s : "");
        if (!(rc = write_text(tmp, "report.md", &md)) && !(rc = write_text(tmp, "verdicts.txt", &vt)) &&
            !(rc = write_text(tmp, "summary.json", &sj)))
            rc = write_text(tmp, "verdict.txt", &vline);
        lsbuf_free(&vline);
        lsbuf_free(&sj);
        if (!rc) {
            /* the old report out of the way, the new one in, the old one gone:
             * report/ is always a whole report set, never a mix */
            char old[64];
            snprintf(old, sizeof old, "report.old.%ld", (long)getpid());
            int had = rename("report", old) == 0;
            if (rename(tmp, "report") != 0) {
                rc = ls_err(LS_EIO, "%s/report: cannot rename into place: %s", dir, strerror(errno));
                if (had) rename(old, "report");
            } else if (had) remove_tree(old);
        }
        if (!rc && out) fprintf(out, "sweep merge: %s\nsweep merge: report in %s/report/ (report.md, summary.json, "
                                "verdicts.txt, seed-S/)\n", verdict, dir);
    }
    lsbuf_free(&md);
    lsbuf_free(&vt);
    lsbuf_free(&js);
    lsbuf_free(&why);
    lsbuf_free(&not_ok);
    if (rc) remove_tree(tmp);
    else rc = missing ? 1 : merge_gate(found, fail_on);
done:
    free(ts);
    free(v);
    return rc;
}

/* ---- two backends, one result ---------------------------------------------- */

int sweep_recordings_same(const char *a, const char *b) {
    golden_file *ga = NULL, *gb = NULL;
    int rc = golden_read(&ga, a);
    if (!rc) rc = golden_read(&gb, b);
    if (rc) goto done;
    for (size_t i = 0; i < ga->prov.n && !rc; i++) {
        const char *k = ga->prov.key[i];
        if (!strcmp(k, "date")) continue; /* when, not what */
        const char *vb = golden_provenance_get(gb, k);
        if (!vb || strcmp(vb, ga->prov.val[i]))
            rc = ls_err(LS_EMISMATCH, "%s vs %s: provenance %s differs ('%.80s' vs '%.80s')", a, b, k, ga->prov.val[i],
                        vb ? vb : "(absent)");
    }
    if (!rc && ga->prov.n != gb->prov.n) rc = ls_err(LS_EMISMATCH, "%s vs %s: provenance key counts differ", a, b);
    if (!rc && ga->n_records != gb->n_records)
        rc = ls_err(LS_EMISMATCH, "%s vs %s: %zu vs %zu records", a, b, ga->n_records, gb->n_records);
    for (size_t i = 0; i < ga->n_records && !rc; i++) {
        const golden_record *x = &ga->records[i], *y = &gb->records[i];
        char lab[128];
        golden_record_label(x, lab, sizeof lab);
        if (x->step != y->step || x->layer != y->layer || x->kind != y->kind || x->count != y->count ||
            strcmp(x->name, y->name)) {
            rc = ls_err(LS_EMISMATCH, "%s vs %s: record %zu is %s in one, another in the other", a, b, i, lab);
            break;
        }
        if (x->kind == GOLDEN_KIND_TIMING) continue; /* seconds and peak memory: measured, not computed */
        for (size_t k = 0; k < x->count; k++) {
            if (x->kind == GOLDEN_KIND_EPOCH && k == 1) continue; /* the epoch's training seconds */
            if (memcmp(&x->values[k], &y->values[k], sizeof(float))) {
                rc = ls_err(LS_EMISMATCH, "%s vs %s: %s differs at element %zu (%.9g vs %.9g)", a, b, lab, k,
                            (double)x->values[k], (double)y->values[k]);
                break;
            }
        }
    }
done:
    if (ga) golden_file_free(ga);
    if (gb) golden_file_free(gb);
    return rc;
}

/* ---- the command ------------------------------------------------------------- */

void sweep_cfg_default(sweep_cfg *c) {
    memset(c, 0, sizeof *c);
    run_cfg_default(&c->run);
    c->backend = SWEEP_AUTO;
    c->jobs = 1;
    c->task = -1;
    c->audit_every = 50;
    c->ref_steps = 2;
    c->out = stdout;
}

static int want_long(const char *opt, const char *s, long lo, long hi, long *out) {
    if (ls_blank_edges(s)) {
        fprintf(stderr, "lockstep sweep: %s: '%s': white space around the number (give it without blanks)\n", opt, s);
        return -1;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "lockstep sweep: %s: expected an integer in %ld..%ld, got '%s'\n", opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int sweep_split_args(sweep_cfg *c, int argc, char **argv, char **rest, int *n_rest) {
    int n = 0, seen[11] = {0}, n_action = 0;
    long v;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        const char *val = has ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "--on") || !strcmp(a, "--seeds") || !strcmp(a, "--dir") || !strcmp(a, "--jobs") ||
                    !strcmp(a, "--status") || !strcmp(a, "--merge") || !strcmp(a, "--task") ||
                    !strcmp(a, "--audit-every") || !strcmp(a, "--ref-steps") || !strcmp(a, "--time") ||
                    !strcmp(a, "--fail-on");
        if (takes && !has) {
            fprintf(stderr, "lockstep sweep: option %s needs a value\n", a);
            return 2;
        }
        if (takes && !*val) {
            fprintf(stderr, "lockstep sweep: option %s: empty value\n", a);
            return 2;
        }
        /* a second value silently replaced the first (--seeds 3 --seeds 42,43); --on is
         * repeatable, and --status/--merge/--task are one action */
        static const char *const once[] = {"--seeds", "--dir", "--time", "--jobs", "--audit-every", "--ref-steps",
                                           "--slurm", "--local", "--wait", "--dry-run", "--fail-on"};
        static const char *const action[] = {"--status", "--merge", "--task"};
        for (size_t k = 0; k < LS_ARRAY_LEN(once); k++)
            if (!strcmp(a, once[k]) && seen[k]++) {
                fprintf(stderr, "lockstep sweep: option %s given twice (give each option once)\n", a);
                return 2;
            }
        for (size_t k = 0; k < LS_ARRAY_LEN(action); k++)
            if (!strcmp(a, action[k]) && n_action++) {
                fprintf(stderr, "lockstep sweep: %s: one of --status, --merge and --task at a time\n", a);
                return 2;
            }
        if (!strcmp(a, "--on")) {
            if (c->n_on >= SWEEP_MAX_MACHINES) {
                fprintf(stderr, "lockstep sweep: --on: at most %d machine types\n", SWEEP_MAX_MACHINES);
                return 2;
            }
            c->on[c->n_on++] = val;
        } else if (!strcmp(a, "--seeds")) c->seeds = val;
        else if (!strcmp(a, "--dir")) c->dir = val;
        else if (!strcmp(a, "--time")) c->time_limit = val;
        else if (!strcmp(a, "--status") || !strcmp(a, "--merge")) {
            c->action = a[2] == 's' ? SWEEP_STATUS : SWEEP_MERGE;
            c->dir = val;
        } else if (!strcmp(a, "--task")) {
            if (want_long(a, val, 0, SWEEP_MAX_TASKS - 1, &v)) return 2;
            c->action = SWEEP_TASK;
            c->task = (int)v;
        } else if (!strcmp(a, "--jobs")) {
            if (want_long(a, val, 1, 64, &v)) return 2;
            c->jobs = (int)v;
        } else if (!strcmp(a, "--audit-every") || !strcmp(a, "--ref-steps")) {
            if (want_long(a, val, 0, LONG_MAX, &v)) return 2;
            if (a[2] == 'a') c->audit_every = v;
            else c->ref_steps = v;
        } else if (!strcmp(a, "--fail-on")) {
            if (audit_fail_on_parse(val, &c->fail_on)) {
                fprintf(stderr, "lockstep sweep: %s\n", ls_errmsg());
                return 2;
            }
            c->fail_on_set = 1;
        } else if (!strcmp(a, "--slurm")) c->backend = SWEEP_SLURM;
        else if (!strcmp(a, "--local")) c->backend = SWEEP_LOCAL;
        else if (!strcmp(a, "--wait")) c->wait = 1;
        else if (!strcmp(a, "--dry-run")) c->dry_run = 1;
        else if (!strncmp(a, "--engine", 8) || !strncmp(a, "--json", 6) || !strncmp(a, "--save", 6) ||
                 !strncmp(a, "--init", 6) || !strncmp(a, "--order", 7) || !strncmp(a, "--steps", 7) ||
                 !strncmp(a, "--ref-", 6)) {
            fprintf(stderr, "lockstep sweep: option %s is not for this command (engines come from --on PARTITION=ENGINE,...; "
                    "see lockstep --help)\n", a);
            return 2;
        } else {
            rest[n++] = argv[i];
            continue;
        }
        if (takes) i++;
    }
    /* the last of --slurm/--local won, and --local --dry-run printed Slurm's sbatch lines */
    if (seen[6] && seen[7]) {
        fprintf(stderr, "lockstep sweep: --slurm and --local: give one backend\n");
        return 2;
    }
    /* --fail-on gates a merge this command runs or waits for */
    if (seen[10] && (c->action == SWEEP_STATUS || c->action == SWEEP_TASK || c->dry_run || (seen[6] && !seen[8]))) {
        fprintf(stderr, "lockstep sweep: --fail-on gates the merge this command runs (--merge DIR, --local) or waits "
                "for (--slurm --wait); %s\n", c->action == SWEEP_STATUS ? "--status prints the verdict only"
                : c->action == SWEEP_TASK ? "--task records, it merges nothing" : "add --wait, or run sweep --merge DIR "
                "--fail-on ... after the merge job");
        return 2;
    }
    if (seen[7] && seen[9]) {
        fprintf(stderr, "lockstep sweep: --dry-run goes with --slurm (it prints the sbatch commands); --local runs "
                "the tasks here\n");
        return 2;
    }
    rest[n] = NULL;
    *n_rest = n;
    return -1;
}

/* Take DIR/.lock: one submission (or local run) of a folder at a time. */
static int lock_dir(const char *dir, int *fd) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.lock", dir);
    *fd = open(path, O_RDWR | O_CREAT, 0644);
    if (*fd < 0) return ls_err(LS_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0)
        return ls_err(LS_EINVAL, "%s: another lockstep sweep is submitting or running this folder", dir);
    return 0;
}

/* The plan of the command line against the folder's: written when new,
 * refused naming the field when different. */
static int plan_settle(const sweep_cfg *c, sweep_plan *p) {
    int rc = plan_from_cfg(p, c);
    if (rc) return rc;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plan.json", c->dir);
    if (file_exists(path)) {
        sweep_plan *old = ls_malloc(sizeof *old);
        if (!old) return LS_ENOMEM;
        rc = plan_read(old, path);
        const char *d = rc ? NULL : plan_diff(old, p);
        free(old);
        if (rc) return rc;
        if (d) return ls_err(LS_EINVAL, "%s holds another plan: field '%s' differs (use another --dir, or the same options)",
                             path, d);
        return 0;
    }
    lsbuf b;
    lsbuf_init(&b);
    plan_json(&b, p);
    rc = b.failed ? LS_ENOMEM : ls_write_file_atomic(path, b.s, b.len);
    lsbuf_free(&b);
    return rc;
}

/* --slurm --wait: whether report/ is the one merge job `job` wrote (its
 * summary.json's "merge_job").  A merge job that was cancelled, timed out
 * or failed leaves report/ as an earlier merge left it, and the waiter
 * printed that report's verdict as this sweep's ('complete', exit 0, after
 * scancel of the merge).  Returns 0 when it is; else, with Slurm's word on
 * the job, 2 when the merge exited 2 (bad input: its log says which) and 1
 * (incomplete: nothing was audited by it) otherwise. */
static int waited_report_is(const char *dir, const char *job) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report/summary.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *mj = root ? json_object_get(root, "merge_job") : NULL;
    int same = json_is_string(mj) && strcmp(json_string_value(mj), job) == 0;
    json_decref(root);
    if (same) return 0;
    static char out[8192];
    char state[32] = "", exitcode[16] = "", reason[128] = "";
    char *argv[] = {"scontrol", "-o", "show", "job", (char *)job, NULL};
    if (run_capture(argv, out, sizeof out) == 0) {
        field(out, "JobState", state, sizeof state);
        field(out, "ExitCode", exitcode, sizeof exitcode);
        field(out, "Reason", reason, sizeof reason);
    }
    int why = reason[0] && strcmp(reason, "None"), refused = strncmp(exitcode, "2:", 2) == 0;
    fprintf(stderr, "lockstep sweep: %smerge job %s ended %s%s%s%s%s%s without writing report/ (%s %s/log/merge.%s.out); "
            "report/ is %s, not this sweep's verdict%s\n", refused ? "" : "incomplete: ", job,
            state[0] ? state : "(Slurm no longer knows it)", exitcode[0] ? " (exit code " : "", exitcode,
            why ? ", reason " : "", why ? reason : "", exitcode[0] ? ")" : "",
            refused ? "the merge refused its input, its message is in" : "see", dir, job,
            access(path, F_OK) == 0 ? "an earlier merge's" : "absent", refused ? "" : "; submit the same command again");
    return refused ? 2 : 1;
}

/* --slurm --wait --fail-on: the merge ran in its Slurm job, which gates on
 * nothing; its report/summary.json says what it found ("found", audit's
 * words).  Returns 0, 1 (gated), or an error. */
static int waited_gate(const char *dir, unsigned fail_on) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report/summary.json", dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    json_t *found = root ? json_object_get(root, "found") : NULL;
    if (!json_is_array(found)) {
        json_decref(root);
        return ls_err(LS_EFORMAT, "%s: no \"found\" list (%s): a merge by an older lockstep? run sweep --merge %s "
                      "--fail-on ... here", path, root ? "not in the file" : err.text, dir);
    }
    unsigned bits = 0, one;
    size_t i;
    json_t *w;
    json_array_foreach(found, i, w) {
        if (json_is_string(w) && audit_fail_on_parse(json_string_value(w), &one) == 0) bits |= one;
    }
    json_decref(root);
    return merge_gate(bits, fail_on);
}

static int submit(const sweep_cfg *c, const char *dir, sweep_plan *p) {
    int lockfd = -1, rc;
    char sub[PATH_MAX];
    const char *subs[] = {"rec", "state", "log", "slurm"};
    for (size_t i = 0; i < LS_ARRAY_LEN(subs); i++) {
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        if ((rc = mkdirs(sub))) return rc;
    }
    if ((rc = lock_dir(dir, &lockfd))) {
        if (lockfd >= 0) close(lockfd);
        return rc;
    }
    int n = plan_n_tasks(p);
    task_status *ts = ls_calloc((size_t)n, sizeof *ts);
    slurm_view *v = ls_malloc(sizeof *v);
    rc = ts && v ? 0 : LS_ENOMEM;
    int slurm = c->backend == SWEEP_SLURM || (c->backend == SWEEP_AUTO && on_path("sbatch")) || c->dry_run;
    if (!rc) statuses(p, dir, v, ts);
    int todo = 0;
    for (int id = 0; !rc && id < n; id++) todo += ts[id].st != TS_DONE;
    if (!rc && c->out) fprintf(c->out, "sweep %s: %d tasks, %d done, %d to run (%s)\n", dir, n, n - todo, todo,
                               slurm ? "Slurm" : "local");
    if (!rc && slurm) {
        char merge_job[40] = "";
        int n_new = 0;
        /* no signal between an sbatch and its line in jobs.tsv: a job
         * submitted is always a job the folder knows */
        sigset_t block, prev;
        sigemptyset(&block);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGHUP);
        sigprocmask(SIG_BLOCK, &block, &prev);
        rc = slurm_submit(p, dir, ts, v, c, merge_job, sizeof merge_job, &n_new);
        sigprocmask(SIG_SETMASK, &prev, NULL);
        if (!rc && c->wait && merge_job[0]) {
            close(lockfd);
            lockfd = -1;
            rc = slurm_wait(merge_job);
            if (!rc) rc = waited_report_is(dir, merge_job);
            if (!rc) {
                char path[PATH_MAX], line[4096] = "";
                snprintf(path, sizeof path, "%s/report/verdict.txt", dir);
                FILE *f = fopen(path, "r");
                if (!f || !fgets(line, sizeof line, f)) rc = ls_err(LS_EIO, "%s: the merge job %s wrote no verdict (see %s/log/merge.%s.out)",
                                                         path, merge_job, dir, merge_job);
                if (f) fclose(f);
                if (!rc && c->out) fprintf(c->out, "sweep: %s", line);
                if (!rc) rc = strncmp(line, "complete", 8) ? 1 : 0;
                if (!rc && c->fail_on) rc = waited_gate(dir, c->fail_on);
            }
        }
    } else if (!rc) {
        rc = local_run(p, dir, ts, c->jobs, c->out);
        if (rc == 0) {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
            if (chdir(dir) != 0) rc = ls_err(LS_EIO, "%s: cannot enter: %s", dir, strerror(errno));
            else {
                rc = merge_here(p, dir, c->fail_on, c->out);
                if (cwd[0] && chdir(cwd) != 0) rc = rc ? rc : ls_err(LS_EIO, "cannot return to %s", cwd);
            }
        }
    }
    free(ts);
    free(v);
    if (lockfd >= 0) close(lockfd);
    return rc;
}

int sweep_main(sweep_cfg *c) {
    if (!c->dir) {
        fprintf(stderr, "lockstep sweep: which folder? --dir DIR (or --status DIR, --merge DIR)\n");
        return 2;
    }
    /* the folder's option first: "/missing: No such file or directory" and
     * "FILE/plan.json: cannot open: Not a directory" left the user to work
     * out which word of the command line was wrong */
    const char *opt = c->action == SWEEP_STATUS ? "--status" : c->action == SWEEP_MERGE ? "--merge" : "--dir";
    struct stat sb;
    char path[PATH_MAX];
    if (stat(c->dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "lockstep sweep: %s %s: not a directory%s\n", opt, c->dir,
                c->action == SWEEP_SUBMIT ? "" : " (a sweep's folder, made by lockstep sweep ... --dir DIR)");
        return 2;
    }
    if (c->action != SWEEP_SUBMIT) {
        if (stat(c->dir, &sb) != 0) {
            fprintf(stderr, "lockstep sweep: %s %s: no such sweep directory\n", opt, c->dir);
            return 2;
        }
        snprintf(path, sizeof path, "%s/plan.json", c->dir);
        if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
            fprintf(stderr, "lockstep sweep: %s %s: its plan.json is not a regular file\n", opt, c->dir);
            return 2;
        }
        if (!file_exists(path)) {
            fprintf(stderr, "lockstep sweep: %s %s: not a sweep directory (no plan.json; a sweep's folder is made by "
                    "lockstep sweep ... --dir DIR)\n", opt, c->dir);
            return 2;
        }
    }
    /* sweep_split_args refused --slurm --fail-on without --wait; Slurm found
     * on PATH is the same case, refused before the folder is made */
    if (c->action == SWEEP_SUBMIT && c->fail_on_set && !c->wait && c->backend == SWEEP_AUTO && on_path("sbatch")) {
        fprintf(stderr, "lockstep sweep: --fail-on gates the merge this command runs or waits for: sbatch is on PATH, "
                "so the merge runs in a Slurm job; add --wait (or --local to run it here)\n");
        return 2;
    }
    /* --slurm where Slurm's clients are not installed: said before the folder is made (the sbatch that could
     * not run said "sbatch failed (status 127): " and nothing else, after the plan was written) */
    if (c->action == SWEEP_SUBMIT && c->backend == SWEEP_SLURM && !c->dry_run && !on_path("sbatch")) {
        fprintf(stderr, "lockstep sweep: --slurm: sbatch is not on PATH (Slurm's client commands are not installed "
                "here, or PATH does not reach them); --local runs the tasks on this machine\n");
        return 2;
    }
    char dir[PATH_MAX];
    sweep_plan *p = ls_malloc(sizeof *p);
    if (!p) return 2;
    int rc;
    /* a bad --on or --seeds is refused before DIR is created: an empty
     * folder left behind by a typo would look like a sweep */
    if (c->action == SWEEP_SUBMIT && ((rc = plan_from_cfg(p, c)) || (rc = plan_check_model(c)) || mkdirs(c->dir))) {
        fprintf(stderr, "lockstep sweep: %s\n", ls_errmsg());
        free(p);
        return 2;
    }
    if (!realpath(c->dir, dir)) {
        fprintf(stderr, "lockstep sweep: %s %s: %s\n", opt, c->dir, strerror(errno));
        free(p);
        return 2;
    }
    snprintf(path, sizeof path, "%s/plan.json", dir);
    if (c->action == SWEEP_SUBMIT) {
        c->dir = dir;
        rc = plan_settle(c, p);
        ls_signals_install(1); /* Ctrl-C: stop starting tasks, let the running ones clean up */
        if (!rc) rc = submit(c, dir, p);
    } else {
        rc = plan_read(p, path);
        if (!rc && c->action == SWEEP_STATUS) rc = status_print(p, dir, c->out);
        else if (!rc && c->action == SWEEP_TASK) rc = task_run(p, dir, c->task, c->out);
        else if (!rc) {
            /* scancel of the merge: die at once; report.tmp.PID is left for the next merge to remove,
             * report/ is untouched */
            ls_signals_install(0);
            if (chdir(dir) != 0) rc = ls_err(LS_EIO, "%s: cannot enter: %s", dir, strerror(errno));
            else rc = merge_here(p, dir, c->fail_on, c->out);
        }
    }
    free(p);
    if (rc < 0) {
        fprintf(stderr, "lockstep sweep: %s\n", ls_errmsg());
        return 2;
    }
    return rc;
}
