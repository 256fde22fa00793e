/*
 * main.c — the lockstep command line.  Parses options, calls the job, maps
 * errors to exit codes: 0 success, 1 a check failed (golden regression),
 * 2 bad usage or unusable input (and any other error, with its message).
 * This is the only file that calls exit() (through returning from main).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engines/engine.h"
#include "commands/eval.h"
#include "commands/export.h"
#include "formats/golden.h"
#include "commands/golden_cli.h"
#include "audit/audit.h"
#include "commands/audit_cmd.h"
#include "audit/seeds.h"
#include "model/model.h"
#include "engines/remote.h"
#include "engines/recorded.h"
#include "commands/record.h"
#include "commands/sweep.h"
#include "commands/train.h"
#include "base/util.h"

#ifndef LS_VERSION
#define LS_VERSION "0.1.0"
#endif

static void usage(FILE *f) {
    fprintf(f,
            "lockstep %s — train one seeded CNN on several numeric paths and audit how they differ\n"
            "\n"
            "usage:\n"
            "  lockstep train [options]      train one engine, print per-epoch results\n"
            "  lockstep audit [options]      train several engines in lockstep and compare them\n"
            "  lockstep model [--model M]    print a model's layers and parameter count\n"
            "  lockstep golden record --out FILE [options]   pin one engine's first steps in a golden file\n"
            "  lockstep record --engine SPEC --out FILE [options]  record one engine's whole run, to audit\n"
            "                                it elsewhere as the engine recorded:FILE\n"
            "  lockstep sweep --on PARTITION=ENGINE[,ENGINE...] [--on ...] --seeds 42,43|N --dir DIR\n"
            "                 [--slurm [--wait] [--time T] [--dry-run] | --local [--jobs J]]\n"
            "                 [record's run options]\n"
            "                                record every (machine, engine, seed) as Slurm job arrays (or local\n"
            "                                processes), then audit the recordings per seed with the reference\n"
            "                                and judge the gaps over seeds, per machine (DIR/report/); the same\n"
            "                                command again runs only what is missing or failed (README: cluster)\n"
            "  lockstep sweep --status DIR | --merge DIR   each task's state / audit what is there\n"
            "                 --fail-on LIST (with --merge, --local or --slurm --wait): exit 1 when a seed's\n"
            "                                audit finds what LIST names, as audit's --fail-on (default none);\n"
            "                                an incomplete sweep exits 1 always\n"
            "  lockstep golden check FILE [--engine E] [--policy P] [--data DIR] [--verbose]\n"
            "                                replay a golden file and compare (exit 0 pass, 1 regression,\n"
            "                                2 unusable input)\n"
            "  lockstep export FILE.lsg|FILE.lsr --step S --out OUT.safetensors\n"
            "  lockstep export --engine SPEC --step S --out OUT.safetensors [train options]\n"
            "                                one step's tensors (input, labels, act, dact, grad, params, Adam\n"
            "                                m/v) as safetensors, named stepS/conv2/act, stepS/conv2.weight/grad,\n"
            "                                ...: from a golden file or a recording (its full steps), or replayed\n"
            "                                live (a reference engine's as float64; S at most --epochs (default 3)\n"
            "                                x steps per epoch)\n"
            "  lockstep export --engine SPEC --state-dict [--f64] --step S --out W.safetensors [train options]\n"
            "                                exactly a PyTorch state_dict of the weights after step S (F32;\n"
            "                                a reference's full values as F64 with --f64)\n"
            "  lockstep eval --init W.safetensors [--engines E1,E2] [--out F.safetensors|F.npy] [--json F]\n"
            "                                [--model M --data DIR --limit-test N --batch N --normalize M,S]\n"
            "                                test loss, accuracy, per-class accuracy, confusion matrix of given\n"
            "                                weights (any engine, the reference included; --engine E for one);\n"
            "                                with several engines the predictions that differ and the logits\n"
            "                                against the forward error bound; --out's name chooses the format:\n"
            "                                .safetensors (or .st) every engine's logits and predictions, .npy\n"
            "                                one engine's logits (predictions in F.predictions.npy)\n"
            "  lockstep --help | --version\n"
            "\n"
            "options (train):\n"
            "  --engine SPEC       engine and knobs, e.g. cpu, cpu:threads=1:algo=winograd,\n"
            "                      reference, reference:mode=fp32cr:prec=256, cuda:math=tf32 (default cpu)\n"
            "  --model M           smallcnn (default), mnist-convnet, or a spec file (see README)\n"
            "  --data DIR          IDX directory with {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]\n"
            "                      (default %s)\n"
            "  --epochs N          epochs (default 3)\n"
            "  --batch N           batch size (default 256)\n"
            "  --lr X              Adam learning rate (default 1e-3; betas 0.9/0.999, eps 1e-8)\n"
            "  --seed N            seed of every random stream (default 42)\n"
            "  --threads N         threads for cpu/reference engines (adds threads=N to a spec without one)\n"
            "  --limit-train N     use only the first N training images\n"
            "  --limit-test N      evaluate on only the first N test images\n"
            "  --steps N           stop after N training steps, print each step's loss and time\n"
            "                      (and skip the test-set evaluation: a probe, e.g. of the reference)\n"
            "  --ref-mode MODE     shorthand for reference:mode=MODE (exact or fp32cr)\n"
            "  --ref-prec P        shorthand for reference:prec=P (bits, 24..65536, default 128)\n"
            "  --json FILE         also write the results as one JSON document\n"
            "  --init FILE         start from these weights (safetensors, F32, PyTorch names: conv1.weight, ...\n"
            "                      or nn.Sequential's 0.weight, ...; see README) instead of the seeded draw\n"
            "                      (train, audit, golden record, record, export; eval: the weights it\n"
            "                      evaluates, required)\n"
            "  --order FILE        batch order: .npy int64 (epochs, n) or text, one epoch per line, each a\n"
            "                      permutation of 0..n-1 (train, audit, golden record, record, export;\n"
            "                      default: Philox shuffle)\n"
            "  --save FILE         write the final weights as safetensors (train; audit: each trained\n"
            "                      engine, its label in the name when there are several)\n"
            "  --save-optimizer    with --save: the Adam moments and step count too (train --init FILE\n"
            "                      then resumes after that step, bit for bit)\n"
            "  --normalize M,S     torchvision's Normalize((M,), (S,)) after ToTensor, in fp32:\n"
            "                      (float32(x)/255 - M) / S (train, export, eval, audit, record, golden record)\n"
            "\n"
            "options (audit; the train options above apply too, except --engine/--json):\n"
            "  --engines LIST      comma-separated engine specs (default reference,cpu,cpu:threads=1,cuda);\n"
            "                      an engine that cannot run here (cuda without a GPU) is listed as skipped\n"
            "  --mode M            free (default), sync or isolated\n"
            "  --ref-steps N       reference engines run steps 1..N (default 2)\n"
            "  --audit-every K     full comparison and a reference shadow step every K steps (default 50)\n"
            "  --repeat R          1 (default) or 2: every engine twice, run-to-run determinism per tensor\n"
            "  --no-eval           skip the test-set evaluation after each epoch (--eval: do it, the default)\n"
            "  --attribution-steps K  first K steps in isolated mode with the reference (every operation\n"
            "                      judged by its bound), then every engine restarts from the initial\n"
            "                      state for the drift phase in --mode (default 2 when a reference is\n"
            "                      listed; 0: no attribution phase, reported as less coverage)\n"
            "  --no-roundtrip      skip the state round-trip check of each fp32 engine at compared steps\n"
            "  --no-checksums      skip the every-step checksums (reported as such; for measuring their cost)\n"
            "  --complete-every K  every relation of the every-step checks at ~1 drift step in K (drawn from the\n"
            "                      seed; step 1, the last step and partial batches always), the conv\n"
            "                      layers' plain relations only at the others: cheaper, and faults at\n"
            "                      one step or in one element may pass there (README, \"Light steps\";\n"
            "                      default 1: all)\n"
            "  --no-share          a repeat (an engine listed twice) computes its own checksum vector at every\n"
            "                      step (default: it hashes the vector's operands, and is judged on its first\n"
            "                      listing's vector wherever the two hashes agree; its own from the first\n"
            "                      step they do not)\n"
            "  --fail-on LIST      exit 1 when the audit finds a problem, an unchecked engine,\n"
            "                      nondeterminism, a listed engine that did not run or\n"
            "                      (sharper tier) a suspect engine\n"
            "                      (LIST: problem,unchecked,nondeterminism,incomplete,suspect)\n"
            "  --verbose           print every table and finding, not only the verdicts\n"
            "  --out DIR           write DIR/steps.jsonl.gz, DIR/run.json, DIR/report.md, DIR/report.html\n"
            "  --engine-timeout S  an engine call with no reply in S seconds (a hung or stopped engine\n"
            "                      process) kills that engine, which is then reported failed (default 600;\n"
            "                      0: wait forever)\n"
            "  recorded:FILE in the list: a recording (lockstep record) as an engine, free mode only; the\n"
            "  audit adopts its plan (--audit-every, --ref-steps) and refuses one made with another model,\n"
            "  seed, batch, epochs, limits, optimizer or data\n"
            "  --seeds N           then repeat the drift phase (free, no reference, evaluated) for seeds\n"
            "                      S..S+N-1: accuracy spread, paired gaps with a verdict, McNemar per\n"
            "                      seed, the noise floor drawn once per seed (run.json's \"seeds\" with --out)\n"
            "  --jobs J            audits of the seed loop run J at a time (default 1)\n"
            "  --floor-draws K     K more noise-floor draws at seed S (default 0)\n"
            "  an engine in the list may carry perturb=K (e.g. cpu:perturb=1): the same engine from\n"
            "  initial weights moved K ulps each, the noise floor other differences are judged against;\n"
            "  draw=D (e.g. cpu:perturb=1:draw=3) picks another random direction for the same seed\n"
            "\n"
            "options (golden record; the train options apply, --json, --epochs and --save excepted):\n"
            "  --out FILE          the golden file to write (required)\n"
            "  --steps S           training steps to pin (default 1); defaults differ from train:\n"
            "                      batch 4, limit-train 512, limit-test 256 (smallcnn: ~1.7 MB)\n"
            "options (record; the train options apply, --json and --save excepted):\n"
            "  --out FILE          the recording to write (required; written atomically)\n"
            "  --audit-every K     the audit plan: every tensor recorded at steps 1..N, every K-th and\n"
            "  --ref-steps N       the last (defaults 50 and 2, the audit's)\n"
            "  --no-checksums      store no every-step checksum vectors (default: the engine's own, at\n"
            "                      every step and evaluation batch, when it has the operation)\n"
            "options (golden check):\n"
            "  --engine SPEC       replay with this engine (default: the file's engine.spec)\n"
            "  --policy P          auto (default: exact when libraries, ISA, threads and algorithms\n"
            "                      match the file's, else bound), exact, ulp:N, bound, bound:N\n"
            "  --data DIR          the IDX directory (default: the file's; crc32s must match)\n"
            "  --verbose           also print the per-tensor table (after the verdict and the first\n"
            "                      mismatches)\n"
            "\n"
            "exit status: 0 ok, 1 a check failed (golden regression, audit/sweep --fail-on, an incomplete sweep),\n"
            "2 bad usage or unusable input, any other error (a full disk, a failed engine), or an engine\n"
            "process died during an audit (the report marks it failed); 130/143 an audit stopped by\n"
            "SIGINT/SIGTERM (its partial report is written, marked interrupted)\n",
            LS_VERSION, DATA_DEFAULT_DIR);
}

/* ls_check_output_path (dir_only: ls_check_output_dir), then the proof
 * that the output's folder takes a new file: a folder that exists but
 * cannot be written (no permission, a read-only mount) failed only when
 * the output was written, after the whole run (`train --json`, `record
 * --out`, `audit --save`), naming PATH.tmp.PID.  The probe is that
 * temporary name, the one the writer will use, made and removed at once.
 * Returns 0, or an error with ls_errmsg() set (the path first). */
static int check_output(const char *path, int dir_only) {
    if (dir_only ? ls_check_output_dir(path) : ls_check_output_path(path)) return LS_EIO;
    char probe[PATH_MAX + 32];
    if (snprintf(probe, sizeof probe, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof probe) return 0;
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST) return 0; /* not ours to remove; the writer says what it finds */
        int e = errno;
        const char *slash = strrchr(path, '/');
        int n = !slash ? 1 : slash == path ? 1 : (int)(slash - path);
        return ls_err(LS_EIO, "%s: cannot be written: directory %.*s: %s", path, n, slash ? path : ".", strerror(e));
    }
    close(fd);
    unlink(probe);
    return 0;
}

/* A value with white space around it: "lockstep CMD: OPT: 'S': ..." and 1
 * (strtol/strtod would skip the leading blanks and take ' 5' as 5). */
static int blank_number(const char *cmd, const char *opt, const char *s) {
    if (!ls_blank_edges(s)) return 0;
    fprintf(stderr, "lockstep %s: %s: '%s': white space around the number (give it without blanks)\n", cmd, opt, s);
    return 1;
}

/* A number option's value; "lockstep CMD: OPT: expected ..." when it is not one in range. */
/* The syntax of each engine spec in a comma-separated list (an empty knob,
 * a knob that is not KEY=VALUE, too long), at parse time: refused before the
 * data is read.  Names and knobs an engine does not know are its own to
 * refuse, when it is created.  Returns 0, or 2 with the message printed. */
static int specs_syntax(const char *cmd, const char *list) {
    char buf[1024];
    if (strlen(list) >= sizeof buf) return 0; /* too long for here: the audit's own checks say so */
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        size_t n = strlen(t);
        while (n && t[n - 1] == ' ') t[--n] = 0;
        engine_spec sp;
        if (*t && engine_spec_parse(&sp, t)) {
            fprintf(stderr, "lockstep %s: %s\n", cmd, ls_errmsg());
            return 2;
        }
    }
    return 0;
}

static int parse_long(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out) {
    if (blank_number(cmd, opt, s)) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "lockstep %s: %s: expected an integer in %ld..%ld, got '%s'\n", cmd, opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out) {
    if (blank_number(cmd, opt, s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !(v >= lo && v <= hi)) {
        fprintf(stderr, "lockstep %s: %s: expected a number in [%g, %g], got '%s'\n", cmd, opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

enum {
    OPT_ENGINE = 1000, OPT_MODEL, OPT_DATA, OPT_EPOCHS, OPT_BATCH, OPT_LR, OPT_SEED, OPT_THREADS,
    OPT_LIMIT_TRAIN, OPT_LIMIT_TEST, OPT_STEPS, OPT_JSON, OPT_REF_MODE, OPT_REF_PREC, OPT_HELP,
    OPT_INIT, OPT_ORDER, OPT_SAVE, OPT_SAVE_OPT, OPT_NORMALIZE,
    OPT_ENGINES, OPT_MODE, OPT_REF_STEPS, OPT_AUDIT_EVERY, OPT_REPEAT, OPT_OUT, OPT_NO_EVAL,
    OPT_ATTR_STEPS, OPT_COMPLETE_EVERY, OPT_NO_ROUNDTRIP, OPT_NO_CHECKSUMS, OPT_NO_SHARE, OPT_EVAL, OPT_VERBOSE, OPT_FAIL_ON,
    OPT_SEEDS, OPT_JOBS, OPT_FLOOR_DRAWS, OPT_ENGINE_TIMEOUT,
};

static const struct option TRAIN_OPTS[] = {
    {"engine", required_argument, 0, OPT_ENGINE},       {"model", required_argument, 0, OPT_MODEL},
    {"data", required_argument, 0, OPT_DATA},           {"epochs", required_argument, 0, OPT_EPOCHS},
    {"batch", required_argument, 0, OPT_BATCH},         {"lr", required_argument, 0, OPT_LR},
    {"seed", required_argument, 0, OPT_SEED},           {"threads", required_argument, 0, OPT_THREADS},
    {"limit-train", required_argument, 0, OPT_LIMIT_TRAIN}, {"limit-test", required_argument, 0, OPT_LIMIT_TEST},
    {"steps", required_argument, 0, OPT_STEPS},         {"json", required_argument, 0, OPT_JSON},
    {"ref-mode", required_argument, 0, OPT_REF_MODE},   {"ref-prec", required_argument, 0, OPT_REF_PREC},
    {"help", no_argument, 0, OPT_HELP},                 {"engines", required_argument, 0, OPT_ENGINES},
    {"mode", required_argument, 0, OPT_MODE},           {"ref-steps", required_argument, 0, OPT_REF_STEPS},
    {"audit-every", required_argument, 0, OPT_AUDIT_EVERY}, {"repeat", required_argument, 0, OPT_REPEAT},
    {"out", required_argument, 0, OPT_OUT},             {"no-eval", no_argument, 0, OPT_NO_EVAL},
    {"init", required_argument, 0, OPT_INIT},           {"order", required_argument, 0, OPT_ORDER},
    {"save", required_argument, 0, OPT_SAVE},           {"save-optimizer", no_argument, 0, OPT_SAVE_OPT},
    {"attribution-steps", required_argument, 0, OPT_ATTR_STEPS}, {"complete-every", required_argument, 0, OPT_COMPLETE_EVERY}, {"no-roundtrip", no_argument, 0, OPT_NO_ROUNDTRIP},
    {"no-checksums", no_argument, 0, OPT_NO_CHECKSUMS}, {"no-share", no_argument, 0, OPT_NO_SHARE},
    {"eval", no_argument, 0, OPT_EVAL},
    {"verbose", no_argument, 0, OPT_VERBOSE},           {"fail-on", required_argument, 0, OPT_FAIL_ON},
    {"seeds", required_argument, 0, OPT_SEEDS},         {"jobs", required_argument, 0, OPT_JOBS},
    {"floor-draws", required_argument, 0, OPT_FLOOR_DRAWS},
    {"engine-timeout", required_argument, 0, OPT_ENGINE_TIMEOUT},
    {"normalize", required_argument, 0, OPT_NORMALIZE},
    {0, 0, 0, 0},
};

/* Append printf-style to buf (cap bytes, *n used); -1 when it does not
 * fit (nothing is cut silently: the caller refuses the input). */
static int append(char *buf, size_t cap, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
    if (*n >= cap) return -1;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *n) return -1;
    *n += (size_t)k;
    return 0;
}

/* A hand-parsed option seen before (*seen counts them): refused, as
 * parse_opts refuses its own — `export --step 1 --step 2` exported step 2,
 * `record --out a --out b` wrote b, without a word.  1 when refused. */
static int given_twice(const char *cmd, const char *opt, int *seen) {
    if (!(*seen)++) return 0;
    fprintf(stderr, "lockstep %s: option %s given twice (give each option once)\n", cmd, opt);
    return 1;
}

/* An option's value that is empty (`--out ''`, `--json "$UNSET"`):
 * refused, 1, before it becomes a path "" that fails after the whole run
 * (`record --out ''` trained, then could not write) or a message about
 * "/train-images-idx3-ubyte". */
static int empty_value(const char *cmd, const char *opt, const char *val) {
    if (!val || *val) return 0;
    fprintf(stderr, "lockstep %s: option %s: empty value\n", cmd, opt);
    return 1;
}

/* Parse the options of `train` (audit == NULL) or `audit`.  Returns -1 to
 * go on, else the exit status. */
/* --init and --order: their type before anything else runs (a FIFO would
 * block the run forever; a directory would read as "read error"). */
/* --data that is there but not a directory: "empty/train-images-idx3-ubyte:
 * cannot open: Not a directory" left the user to work out that --data was
 * the problem.  A directory that is not there is left to the loader, which
 * names each file it tried.  1 when refused. */
static int data_not_a_dir(const char *cmd, const char *dir) {
    struct stat sb;
    if (!dir || stat(dir, &sb) != 0 || S_ISDIR(sb.st_mode)) return 0;
    fprintf(stderr, "lockstep %s: --data %s: not a directory (--data names the folder of the IDX files "
            "{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz])\n", cmd, dir);
    return 1;
}

static int check_input_files(const char *cmd, const run_cfg *c) {
    if (data_not_a_dir(cmd, c->data_dir)) return 2;
    const char *inputs[2] = {c->init_path, c->order_path};
    for (int i = 0; i < 2; i++) {
        if (!inputs[i]) continue;
        int fd = ls_open_regular(inputs[i], NULL);
        if (fd < 0) {
            ls_err_option(fd, i ? "--order" : "--init", inputs[i]);
            fprintf(stderr, "lockstep %s: %s\n", cmd, ls_errmsg());
            return 2;
        }
        close(fd);
    }
    return 0;
}

/* The options a command takes by itself, outside TRAIN_OPTS (main.c's
 * cmd_* and sweep_split_args take them out before parse_opts sees the
 * rest): offered by no_abbreviations, so `export --st` names --step too. */
static const char *const *own_options(const char *cmd) {
    static const char *const golden_record[] = {"out", NULL};
    static const char *const record[] = {"out", "no-checksums", "audit-every", "ref-steps", NULL};
    static const char *const export_[] = {"step", "out", "state-dict", "f64", NULL};
    static const char *const eval[] = {"engines", "out", NULL};
    static const char *const sweep[] = {"on", "seeds", "dir", "jobs", "status", "merge", "task", "audit-every",
                                        "ref-steps", "time", "slurm", "local", "wait", "dry-run", "fail-on", NULL};
    static const char *const none[] = {NULL};
    return !strcmp(cmd, "golden record") ? golden_record : !strcmp(cmd, "record") ? record
         : !strcmp(cmd, "export") ? export_ : !strcmp(cmd, "eval") ? eval : !strcmp(cmd, "sweep") ? sweep : none;
}

/* TRAIN_OPTS' options a command refuses by itself (its cmd_* says "not for
 * this command"): never offered as what a prefix meant. */
static int refused_option(const char *cmd, const char *name) {
    static const char *const golden_record[] = {"json", "epochs", "save", "save-optimizer", NULL};
    static const char *const record[] = {"json", "save", "save-optimizer", NULL};
    static const char *const export_[] = {"json", "save", "save-optimizer", "steps", NULL};
    static const char *const eval[] = {"save", "save-optimizer", "steps", "epochs", "order", "limit-train", NULL};
    static const char *const none[] = {NULL};
    const char *const *r = !strcmp(cmd, "golden record") ? golden_record : !strcmp(cmd, "record") ? record
                         : !strcmp(cmd, "export") ? export_ : !strcmp(cmd, "eval") ? eval : none;
    for (int i = 0; r[i]; i++)
        if (!strcmp(r[i], name)) return 1;
    return 0;
}

/* getopt_long takes any unique prefix of a long option (`--lim 64` was
 * --limit-train until --limit-test came; `--ste 3` is --steps): a script
 * written that way breaks, or changes meaning, when an option is added.
 * Every long option must be spelled out: a prefix of known ones is
 * refused with them named (1), an unknown word is left to getopt's own
 * "unknown option".  Values are skipped as getopt takes them (the next
 * word after an option that needs one, whatever it looks like). */
static int no_abbreviations(const char *cmd, int argc, char **argv, const audit_cfg *au) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) break;
        if (strncmp(a, "--", 2) != 0 || !a[2]) continue;
        const char *name = a + 2;
        size_t len = strcspn(name, "=");
        if (!len) continue; /* "--=x": getopt's unknown option */
        const struct option *exact = NULL;
        for (const struct option *o = TRAIN_OPTS; o->name && !exact; o++)
            if (strlen(o->name) == len && !strncmp(o->name, name, len)) exact = o;
        if (exact) {
            if (exact->has_arg == required_argument && !name[len]) i++;
            continue;
        }
        char cands[512] = "";
        const char *last = NULL;
        size_t n = 0;
        int k = 0, any = 0;
        const char *const *own = own_options(cmd);
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0;; j++) {
                const char *cand = pass ? own[j] : TRAIN_OPTS[j].name;
                if (!cand) break;
                if (strncmp(cand, name, len) != 0) continue;
                any = 1;
                if (!pass) {
                    /* only what this command takes (parse_opts' own rule) */
                    int o = TRAIN_OPTS[j].val, audit_only = o >= OPT_ENGINES, train_only = o == OPT_ENGINE || o == OPT_JSON;
                    int is_own = 0;
                    for (int q = 0; own[q]; q++) is_own |= !strcmp(own[q], cand);
                    if (is_own || (audit_only && !au) || (train_only && au) || refused_option(cmd, cand)) continue;
                }
                if (last && append(cands, sizeof cands, &n, "%s--%s", k > 1 ? ", " : "", last)) break;
                last = cand;
                k++;
            }
        if (!any) continue;
        if (!k) {
            /* only options of other commands start so: unknown here, whole or not */
            fprintf(stderr, "lockstep %s: unknown option '--%.*s' (see lockstep --help)\n", cmd, (int)len, name);
            return 1;
        }
        if (k > 1) append(cands, sizeof cands, &n, " or ");
        append(cands, sizeof cands, &n, "--%s", last);
        fprintf(stderr, "lockstep %s: unknown option '--%.*s' (options are not abbreviated); did you mean %s?\n", cmd,
                (int)len, name, cands);
        return 1;
    }
    return 0;
}

/* The threads=K knob of an engine spec, 0 when it has none (or does not
 * parse: that is reported where the engine is made). */
static long spec_threads_knob(const char *spec) {
    engine_spec s;
    if (engine_spec_parse(&s, spec) != 0) return 0;
    const char *t = engine_spec_get(&s, "threads", NULL);
    return t ? strtol(t, NULL, 10) : 0;
}

/* --threads N beside a spec that says threads=K: spec_with_threads keeps
 * the spec's K, so `train --engine cpu:threads=1 --threads 4` ran on one
 * thread without a word.  One engine (train, record, golden record,
 * export, eval --engine): which was meant cannot be known, refused (2).
 * A list (audit, eval --engines, sweep): --threads is for the engines that
 * do not say (audit's default list holds cpu:threads=1 on purpose), and
 * each that says otherwise is named on stderr. */
static int threads_conflict(const char *cmd, const char *opt, const char *list, int threads, int is_list) {
    if (threads <= 0 || !list) return 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long k = spec_threads_knob(t);
        if (!k || k == threads) continue;
        if (!is_list) {
            fprintf(stderr, "lockstep %s: --threads %d and %s %s disagree (%d threads or %ld?): give the thread "
                    "count once\n", cmd, threads, opt, t, threads, k);
            return 1;
        }
        fprintf(stderr, "lockstep %s: note: --threads %d is for the engines without a threads= knob; %s keeps its "
                "threads=%ld\n", cmd, threads, t, k);
    }
    return 0;
}

/* 1 when an engine spec names the reference engine, by its name or by the
 * alias `ref` that registry.c takes as well: the name before the first
 * ':', never a prefix of the text (`ref:prec=64` is a reference; the knobs
 * of --ref-mode/--ref-prec went to `reference...` only). */
static int spec_is_reference(const char *spec) {
    size_t len = strcspn(spec, ":");
    return (len == 9 && !strncmp(spec, "reference", 9)) || (len == 3 && !strncmp(spec, "ref", 3));
}

/* --ref-mode/--ref-prec as given (NULL/0: not given), kept for cmd_audit:
 * its notes are said after its re-exec, once, as threads_conflict's are. */
static const char *g_ref_mode;
static long g_ref_prec;

/* --ref-mode M / --ref-prec P beside a reference spec that says mode=/prec=
 * itself: the shorthand adds only the knobs a spec lacks, so `--engines
 * reference:prec=256,cpu --ref-prec 128` ran at 256 bits without a word.
 * The rule of --threads (threads_conflict): one engine (train, record,
 * golden record, export), which was meant cannot be known, refused (1);
 * a list (audit), the option is for the reference engines that do not
 * say, and each that says otherwise is named on stderr.  The same value
 * twice is no conflict. */
static int ref_conflict(const char *cmd, const char *opt, const char *list, const char *mode, long prec, int is_list) {
    if ((!mode && !prec) || !list) return 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        engine_spec s;
        if (!spec_is_reference(t) || engine_spec_parse(&s, t) != 0) continue;
        const char *own[2] = {engine_spec_get(&s, "mode", NULL), engine_spec_get(&s, "prec", NULL)};
        char given[2][64] = {"", ""};
        if (mode) snprintf(given[0], sizeof given[0], "%s", mode);
        if (prec) snprintf(given[1], sizeof given[1], "%ld", prec);
        static const char *const knob[2] = {"mode", "prec"}, *const what[2] = {"mode", "precision"};
        for (int i = 0; i < 2; i++) {
            if (!given[i][0] || !own[i] || (i ? strtol(own[i], NULL, 10) == prec : !strcmp(own[i], mode))) continue;
            if (!is_list) {
                fprintf(stderr, "lockstep %s: --ref-%s %s and %s %s disagree (%s=%s or %s=%s?): give the %s once\n",
                        cmd, knob[i], given[i], opt, t, knob[i], given[i], knob[i], own[i], what[i]);
                return 1;
            }
            fprintf(stderr, "lockstep %s: note: --ref-%s %s is for the reference engines without a %s= knob; %s keeps "
                    "its %s=%s\n", cmd, knob[i], given[i], knob[i], t, knob[i], own[i]);
        }
    }
    return 0;
}

/* --ref-mode M / --ref-prec P: the knobs mode=M / prec=P added to every
 * reference engine of *specs (one spec, or a comma list, opt names which)
 * that does not say them itself (ref_conflict speaks of those); *specs
 * then points to the new text (a static buffer: one call per process).
 * A list without a reference engine is refused, naming it: the option
 * would change nothing.  Returns 0 or 2 (the message printed). */
static int ref_knobs_apply(const char *cmd, const char *opt, const char **specs, const char *mode, long prec) {
    static char outl[1024];
    char tmp[1024];
    size_t n = 0;
    int refs = 0;
    if (strlen(*specs) >= sizeof tmp) {
        fprintf(stderr, "lockstep %s: %s: engine list longer than %zu characters\n", cmd, opt, sizeof tmp - 1);
        return 2;
    }
    snprintf(tmp, sizeof tmp, "%s", *specs);
    outl[0] = 0;
    char *save = NULL;
    for (char *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int bad = append(outl, sizeof outl, &n, "%s%s", n ? "," : "", t);
        if (!bad && spec_is_reference(t)) {
            refs++;
            /* knobs are ':'-separated: ":prec=" is that knob, not "tf32prec=" */
            if (mode && !strstr(t, ":mode=")) bad |= append(outl, sizeof outl, &n, ":mode=%s", mode);
            if (prec && !strstr(t, ":prec=")) bad |= append(outl, sizeof outl, &n, ":prec=%ld", prec);
        }
        if (bad) {
            fprintf(stderr, "lockstep %s: --ref-mode/--ref-prec: the engine list they make is longer than %zu "
                    "characters\n", cmd, sizeof outl - 1);
            return 2;
        }
    }
    if (!refs) {
        fprintf(stderr, "lockstep %s: --ref-mode/--ref-prec apply to reference engines only, and %s %s names none "
                "(reference or ref, with knobs)\n", cmd, opt, *specs);
        return 2;
    }
    *specs = outl;
    return 0;
}

/* The options every run command shares, into c (and au for audit).  list:
 * the engine list a command took by itself (eval's --engines), or NULL;
 * --ref-mode/--ref-prec add their knobs to the reference engines of the
 * list the command runs (audit's --engines, *list when set, else
 * --engine).  Returns -1 to go on, or the exit status (0: --help). */
static int parse_opts(int argc, char **argv, const char *cmd, run_cfg *c, audit_cfg *au, const char **list) {
    const char *ref_mode = NULL;
    long ref_prec = 0, v;
    int o, li = 0;
    unsigned char seen[256] = {0}; /* options given so far, by code - OPT_ENGINE */
    if (no_abbreviations(cmd, argc, argv, au)) return 2;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":", TRAIN_OPTS, &li)) != -1) {
        char name[40];
        snprintf(name, sizeof name, "--%s", o >= OPT_ENGINE && o != ':' && o != '?' ? TRAIN_OPTS[li].name : "");
        /* `--epochs 2 --epochs 1` silently ran 1 epoch: a second value is
         * refused, never a quiet override */
        if (o >= OPT_ENGINE && o - OPT_ENGINE < (int)sizeof seen && seen[o - OPT_ENGINE]++) {
            fprintf(stderr, "lockstep %s: option %s given twice (give each option once)\n", cmd, name);
            return 2;
        }
        if (o >= OPT_ENGINE && empty_value(cmd, name, optarg)) return 2;
        int audit_only = o >= OPT_ENGINES, train_only = o == OPT_ENGINE || o == OPT_JSON;
        if ((audit_only && !au) || (train_only && au)) {
            fprintf(stderr, "lockstep %s: option %s is not for this command (see lockstep --help)\n", cmd, name);
            return 2;
        }
        switch (o) {
        case OPT_ENGINE:
            if (specs_syntax(cmd, optarg)) return 2;
            c->engine = optarg;
            break;
        case OPT_MODEL: c->model = optarg; break;
        case OPT_DATA: c->data_dir = optarg; break;
        case OPT_EPOCHS: if (parse_long(cmd, name, optarg, 1, RUN_MAX_EPOCHS, &v)) return 2; c->epochs = (int)v; break;
        case OPT_BATCH: if (parse_long(cmd, name, optarg, 1, 65536, &v)) return 2; c->batch = (size_t)v; break;
        case OPT_LR: if (parse_double(cmd, name, optarg, 0, 10, &c->adam.lr)) return 2; break;
        case OPT_SEED: if (parse_long(cmd, name, optarg, 0, LONG_MAX, &v)) return 2; c->seed = (uint64_t)v; break;
        case OPT_THREADS: if (parse_long(cmd, name, optarg, 1, 256, &v)) return 2; c->threads = (int)v; break;
        case OPT_LIMIT_TRAIN: if (parse_long(cmd, name, optarg, 1, LONG_MAX, &v)) return 2; c->limit_train = (size_t)v; break;
        case OPT_LIMIT_TEST: if (parse_long(cmd, name, optarg, 1, LONG_MAX, &v)) return 2; c->limit_test = (size_t)v; break;
        case OPT_STEPS: if (parse_long(cmd, name, optarg, 0, LONG_MAX, &v)) return 2; c->max_steps = v; c->print_steps = !au; break;
        case OPT_JSON: c->json_path = optarg; break;
        case OPT_REF_MODE: ref_mode = optarg; break;
        /* the reference's own range (engine_reference.c): 24..2^20 let 100000 through to the engine, which
         * refused it only after the data was read */
        case OPT_REF_PREC: if (parse_long(cmd, name, optarg, 24, 1 << 16, &v)) return 2; ref_prec = v; break;
        case OPT_HELP: usage(stdout); return 0;
        case OPT_ENGINES:
            if (ls_check_list(name, "engine name", optarg)) {
                fprintf(stderr, "lockstep %s: %s\n", cmd, ls_errmsg());
                return 2;
            }
            if (specs_syntax(cmd, optarg)) return 2;
            au->engines = optarg;
            break;
        case OPT_MODE: if (lockstep_mode_parse(optarg, &au->mode)) { fprintf(stderr, "lockstep audit: --mode: %s\n", ls_errmsg()); return 2; } break;
        case OPT_REF_STEPS: if (parse_long(cmd, name, optarg, 0, LONG_MAX, &v)) return 2; au->ref_steps = v; au->ref_steps_set = 1; break;
        case OPT_AUDIT_EVERY: if (parse_long(cmd, name, optarg, 0, LONG_MAX, &v)) return 2; au->audit_every = v; au->audit_every_set = 1; break;
        case OPT_REPEAT: if (parse_long(cmd, name, optarg, 1, 2, &v)) return 2; au->repeat = (int)v; break;
        case OPT_OUT: au->out_dir = optarg; break;
        case OPT_NO_EVAL: au->eval = 0; break;
        case OPT_EVAL: au->eval = 1; break;
        case OPT_ENGINE_TIMEOUT: {
            double t;
            if (parse_double(cmd, name, optarg, 0, 1e7, &t)) return 2;
            remote_set_timeout(t);
            break;
        }
        case OPT_INIT: c->init_path = optarg; break;
        case OPT_ORDER: c->order_path = optarg; break;
        case OPT_SAVE: c->save_path = optarg; break;
        case OPT_SAVE_OPT: c->save_optimizer = 1; break;
        case OPT_NORMALIZE:
            if (run_parse_normalize(c, optarg)) {
                fprintf(stderr, "lockstep %s: %s\n", cmd, ls_errmsg());
                return 2;
            }
            break;
        case OPT_ATTR_STEPS: if (parse_long(cmd, name, optarg, 0, 1000000, &v)) return 2; au->attribution_steps = v; break;
        case OPT_COMPLETE_EVERY: if (parse_long(cmd, name, optarg, 1, 1000000, &v)) return 2; au->complete_every = v; break;
        case OPT_NO_ROUNDTRIP: au->roundtrip = 0; break;
        case OPT_NO_CHECKSUMS: au->checksums = 0; break;
        case OPT_NO_SHARE: au->ck_no_share = 1; break;
        case OPT_VERBOSE: au->verbose = 1; break;
        case OPT_FAIL_ON:
            if (audit_fail_on_parse(optarg, &au->fail_on)) {
                fprintf(stderr, "lockstep audit: %s\n", ls_errmsg());
                return 2;
            }
            break;
        case OPT_SEEDS:
            if (parse_long(cmd, name, optarg, 1, SEEDS_MAX, &v)) {
                /* sweep's --seeds takes a list; audit's is a count */
                if (strchr(optarg, ','))
                    fprintf(stderr, "lockstep %s: --seeds N is a count here (seeds S..S+N-1 from --seed S); a list of "
                            "seeds is sweep's --seeds\n", cmd);
                return 2;
            }
            au->seeds = (int)v;
            break;
        case OPT_JOBS: if (parse_long(cmd, name, optarg, 1, 64, &v)) return 2; au->jobs = (int)v; break;
        case OPT_FLOOR_DRAWS: if (parse_long(cmd, name, optarg, 0, SEEDS_MAX, &v)) return 2; au->floor_draws = (int)v; break;
        case ':': fprintf(stderr, "lockstep %s: option %s needs a value\n", cmd, argv[optind - 1]); return 2;
        default: fprintf(stderr, "lockstep %s: unknown option '%s' (see lockstep --help)\n", cmd, argv[optind - 1]); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "lockstep %s: unexpected argument '%s'\n", cmd, argv[optind]);
        return 2;
    }
    if (check_input_files(cmd, c)) return 2;
    if (c->save_optimizer && !c->save_path) {
        fprintf(stderr, "lockstep %s: --save-optimizer needs --save FILE.safetensors\n", cmd);
        return 2;
    }
    g_ref_mode = ref_mode;
    g_ref_prec = ref_prec;
    /* the engines the command runs: a list (audit, eval --engines) or one */
    const char **run_list = au ? &au->engines : list && *list ? list : NULL;
    if ((ref_mode || ref_prec) && ref_knobs_apply(cmd, run_list ? "--engines" : "--engine",
                                                  run_list ? run_list : &c->engine, ref_mode, ref_prec))
        return 2;
    /* sweep's engines are its --on lists (sweep.c); audit's and eval's
     * lists are noted by cmd_audit (after its re-exec) and cmd_eval */
    if (!run_list && ref_conflict(cmd, "--engine", c->engine, ref_mode, ref_prec, 0)) return 2;
    if (!run_list && strcmp(cmd, "sweep") != 0 && threads_conflict(cmd, "--engine", c->engine, c->threads, 0))
        return 2;
    return -1;
}

static int cmd_train(int argc, char **argv) {
    run_cfg c;
    run_cfg_default(&c);
    c.progress = isatty(2);
    int st = parse_opts(argc, argv, "train", &c, NULL, NULL);
    if (st >= 0) return st;
    /* refuse a --json that cannot be written before training, not after */
    if (c.json_path && check_output(c.json_path, 0)) {
        fprintf(stderr, "lockstep train: --json %s\n", ls_errmsg());
        return 2;
    }
    if (c.save_path && check_output(c.save_path, 0)) {
        fprintf(stderr, "lockstep train: --save %s\n", ls_errmsg());
        return 2;
    }
    ls_signals_install(0); /* SIGINT/SIGTERM: remove the temporary files and die */
    int rc = train_run(&c);
    if (rc) {
        fprintf(stderr, "lockstep train: %s\n", ls_errmsg());
        return 2;
    }
    return 0;
}

/* Engines of the list that run OpenMP with more than one thread. */
static int multithreaded_engines(const audit_cfg *a) {
    char list[1024], spec[256];
    snprintf(list, sizeof list, "%s", a->engines);
    int n = 0, perturbed = 0, first_mt = -1;
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        engine_spec s;
        spec_with_threads(spec, sizeof spec, t, a->run.threads);
        if (engine_spec_parse(&s, spec) != 0) continue;
        int is_ref = strcmp(s.name, "reference") == 0 || strcmp(s.name, "ref") == 0;
        perturbed |= engine_spec_get(&s, "perturb", NULL) != NULL;
        int mt = (strcmp(s.name, "cpu") == 0 || is_ref) && atoi(engine_spec_get(&s, "threads", "2")) > 1;
        if (first_mt < 0 && !is_ref) first_mt = mt;
        n += mt * a->repeat;
        /* the every-step checks of a cpu engine run in all engine
         * processes at once (driver.c step_checksums), each on its share
         * of the cores (engine_opts.ck_threads): a 2-thread engine's idle
         * worker spinning meanwhile takes a core from another engine's
         * checks, so each counts as multi-threaded then (measured, 2 cpu
         * engines, 1 epoch: 51 s with spinning idle threads, 33 s with
         * sleeping ones; this round 22.2 s vs 18.9 s) */
        if (a->checksums && !is_ref && !mt && strcmp(s.name, "cpu") == 0) n += a->repeat;
        /* the state round trip's second instance of a multi-threaded
         * engine (driver.c roundtrip()) is one more: idle between the
         * checks, its workers spinning under "active" take the cores from
         * the engine's training for the rest of the run, and the engine's
         * from the clone's steps (measured below, tests/EVIDENCE.md) */
        if (a->roundtrip && !is_ref && mt) n += a->repeat;
    }
    /* the seed loop adds "<first engine>:perturb=1" when none is perturbed */
    if (a->seeds > 0 && !perturbed && first_mt > 0) n++;
    return n;
}

/* The seed loop after the main audit (its engines' processes are gone, and
 * the audit started no thread here, so forking is safe): the table on
 * stdout and, with --out, run.json's "seeds". */

static int cmd_audit(int argc, char **argv, char **full_argv) {
    audit_cfg a;
    audit_cfg_default(&a);
    /* a plain `lockstep audit` with a reference listed attributes: its first
     * steps judged per element in isolation (no reference: no such phase) */
    a.attribution_steps = 2;
    a.run.progress = isatty(2);
    int st = parse_opts(argc, argv, "audit", &a.run, &a, NULL);
    if (st >= 0) return st;
    /* --save is written after the whole audit (one file per engine, beside
     * this name): a directory that is not there fails now, not after the run */
    if (a.run.save_path && check_output(a.run.save_path, 1)) {
        fprintf(stderr, "lockstep audit: --save %s\n", ls_errmsg());
        return 2;
    }
    /* The engines take turns layer by layer, each in its own process.
     * OpenMP's worker threads spin for a while after each parallel region;
     * with two or more multi-threaded engines, the idle one's spinning
     * threads steal the cores from the one whose turn it is (measured: a
     * 2-thread epoch 3x slower with three engines), so they must sleep at
     * once (passive).  With at most one, spinning costs nobody and waking
     * sleeping threads would cost that engine ~25% (measured), so they
     * spin (active).  The policy is read when libgomp starts: set it and
     * start again.  A policy the user set wins. */
    if (!getenv("OMP_WAIT_POLICY")) {
        /* a seed loop with --jobs J > 1 runs J audits at once: their
         * multi-threaded engines compete like two in one audit */
        int mt = multithreaded_engines(&a) * (a.seeds > 0 && a.jobs > 1 ? a.jobs : 1);
        setenv("OMP_WAIT_POLICY", mt >= 2 ? "passive" : "active", 1);
        execv("/proc/self/exe", full_argv);
        /* exec failed: carry on with the default policy */
    }
    threads_conflict("audit", "--engines", a.engines, a.run.threads, 1);
    ref_conflict("audit", "--engines", a.engines, g_ref_mode, g_ref_prec, 1);
    /* the first SIGINT/SIGTERM stops the audit at the next step boundary
     * with a partial report; a second one kills it (temporary files removed) */
    ls_signals_install(1);
    /* with a seed loop, the audit's result becomes its first seed; it is
     * megabytes: on the heap */
    audit_result *res = ls_malloc(sizeof *res);
    if (!res) {
        fprintf(stderr, "lockstep audit: out of memory\n");
        return 2;
    }
    int rc = audit_run(&a, res);
    if (rc) {
        free(res);
        fprintf(stderr, "lockstep audit: %s\n", ls_errmsg());
        if (ls_stop_signal()) return 128 + ls_stop_signal();
        return 2;
    }
    int status = res->gate ? 1 : 0;
    for (int i = 0; i < res->n_engines; i++)
        if (res->eng[i].failed) {
            fprintf(stderr, "lockstep audit: engine %s %s; the report marks it failed\n", res->eng[i].label,
                    res->eng[i].fail_reason);
            status = 2;
        }
    if (res->interrupted && res->interrupted_step == 0 && !res->interrupted_seeds) {
        fprintf(stderr, "lockstep audit: interrupted by signal %d (%s) before drift step 1 (after %ld attribution "
                "step(s)); the partial report is marked interrupted\n", res->interrupted, strsignal(res->interrupted),
                res->attribution_steps);
        status = 128 + res->interrupted;
    } else if (res->interrupted) {
        fprintf(stderr, "lockstep audit: interrupted by signal %d (%s) after step %ld; the partial report is marked "
                "interrupted\n", res->interrupted, strsignal(res->interrupted), res->interrupted_step);
        status = 128 + res->interrupted;
    }
    audit_result_free(res);
    free(res);
    return status;
}

static int cmd_model(int argc, char **argv) {
    const char *name = "smallcnn";
    int seen = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--model") == 0 && i + 1 >= argc) {
            fprintf(stderr, "lockstep model: option --model needs a value\n");
            return 2;
        } else if (strcmp(argv[i], "--model") == 0) {
            if (given_twice("model", "--model", &seen) || empty_value("model", "--model", argv[i + 1])) return 2;
            name = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout); /* as every other command: `model --help` said "unknown argument" */
            return 0;
        } else {
            fprintf(stderr, "lockstep model: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    model m;
    if (model_build(&m, name)) {
        ls_err_option(2, "--model", name);
        fprintf(stderr, "lockstep model: %s\n", ls_errmsg());
        return 2;
    }
    model_print(&m, stdout);
    printf("spec: %s\n", m.spec);
    return 0;
}

/* `golden record`: the train options plus --out; --json/--epochs do not apply. */
static int cmd_golden_record(int argc, char **argv) {
    golden_record_cfg g;
    golden_record_cfg_default(&g);
    g.out = stdout;
    char **av = calloc((size_t)argc + 1, sizeof *av);
    if (!av) return 2;
    int ac = 0, seen_out = 0;
    for (int i = 0; i < argc; i++) {
        int out = (strcmp(argv[i], "--out") == 0 && i + 1 < argc) || strncmp(argv[i], "--out=", 6) == 0;
        if (out && (given_twice("golden record", "--out", &seen_out) ||
                    empty_value("golden record", "--out", argv[i][5] == '=' ? argv[i] + 6 : argv[i + 1]))) {
            free(av);
            return 2;
        }
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) g.out_path = argv[++i];
        else if (strncmp(argv[i], "--out=", 6) == 0) g.out_path = argv[i] + 6;
        else if (strncmp(argv[i], "--json", 6) == 0 || strncmp(argv[i], "--epochs", 8) == 0 ||
                 strncmp(argv[i], "--save", 6) == 0) {
            fprintf(stderr, "lockstep golden record: option %s is not for this command (see lockstep --help)\n", argv[i]);
            free(av);
            return 2;
        } else av[ac++] = argv[i];
    }
    int st = parse_opts(ac, av, "golden record", &g.run, NULL, NULL);
    free(av);
    if (st >= 0) return st;
    ls_signals_install(0); /* SIGINT/SIGTERM: remove OUT.tmp.PID and die */
    if (g.run.max_steps >= 0) g.steps = g.run.max_steps;
    if (!g.out_path) {
        fprintf(stderr, "lockstep golden record: --out FILE is required\n");
        return 2;
    }
    if (check_output(g.out_path, 0)) {
        fprintf(stderr, "lockstep golden record: --out %s\n", ls_errmsg());
        return 2;
    }
    if (golden_record_run(&g)) {
        fprintf(stderr, "lockstep golden record: %s\n", ls_errmsg());
        return 2;
    }
    return 0;
}

/* `record`: the train options plus --out, --audit-every, --ref-steps and --no-checksums. */
static int cmd_record(int argc, char **argv) {
    recording_cfg g;
    recording_cfg_default(&g);
    g.out = stdout;
    g.run.progress = isatty(2);
    char **av = calloc((size_t)argc + 1, sizeof *av);
    if (!av) return 2;
    int ac = 0, seen[4] = {0};
    long v;
    static const char *const own[4] = {"--out", "--no-checksums", "--audit-every", "--ref-steps"};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        for (int k = 0; k < 4; k++)
            if (strcmp(a, own[k]) == 0 && (has || k == 1) &&
                (given_twice("record", a, &seen[k]) || (k != 1 && empty_value("record", a, argv[i + 1])))) {
                free(av);
                return 2;
            }
        if (strcmp(a, "--out") == 0 && has) g.out_path = argv[++i];
        else if (strcmp(a, "--no-checksums") == 0) g.no_checksums = 1;
        else if ((strcmp(a, "--audit-every") == 0 || strcmp(a, "--ref-steps") == 0) && has) {
            if (parse_long("record", a, argv[++i], 0, LONG_MAX, &v)) {
                free(av);
                return 2;
            }
            if (a[2] == 'a') g.audit_every = v;
            else g.ref_steps = v;
        } else if (strncmp(a, "--json", 6) == 0 || strncmp(a, "--save", 6) == 0) {
            fprintf(stderr, "lockstep record: option %s is not for this command (see lockstep --help)\n", a);
            free(av);
            return 2;
        } else av[ac++] = argv[i];
    }
    int st = parse_opts(ac, av, "record", &g.run, NULL, NULL);
    free(av);
    if (st >= 0) return st;
    g.run.print_steps = 0;
    if (!g.out_path) {
        fprintf(stderr, "lockstep record: --out FILE is required\n");
        return 2;
    }
    if (check_output(g.out_path, 0)) {
        fprintf(stderr, "lockstep record: --out %s\n", ls_errmsg());
        return 2;
    }
    if (recording_record_run(&g)) {
        fprintf(stderr, "lockstep record: %s\n", ls_errmsg());
        return 2;
    }
    return 0;
}

/* `sweep`: its own options out (commands/sweep.c), the run options through parse_opts. */
static int cmd_sweep(int argc, char **argv) {
    sweep_cfg s;
    sweep_cfg_default(&s);
    char **av = calloc((size_t)argc + 1, sizeof *av);
    int ac = 0;
    if (!av) return 2;
    int st = sweep_split_args(&s, argc, argv, av, &ac);
    if (st < 0) st = parse_opts(ac, av, "sweep", &s.run, NULL, NULL);
    free(av);
    return st >= 0 ? st : sweep_main(&s);
}

/* golden check writes no file, but a Ctrl-C during a replay (the
 * reference's takes seconds to minutes) ended it without a word, exit 130
 * after "data ...: the 4 files match": a CI log's tail read as if the check
 * had hung up.  Said now, then the signal's own death (130/143). */
static void golden_check_on_signal(int sig) {
    static const char msg[] = "\nlockstep golden check: stopped by a signal before its verdict: nothing was "
                              "checked to the end (it writes no file)\n";
    ssize_t w = write(2, msg, sizeof msg - 1); /* async-signal-safe, as signal and raise */
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A run option of train/record (`--batch`, `--seed`, ...; TRAIN_OPTS,
 * given whole): golden check takes the run from the file. */
static int golden_check_run_option(const char *name) {
    static const char *const own[] = {"engine", "data", "verbose", "help", "policy"};
    for (size_t i = 0; i < LS_ARRAY_LEN(own); i++)
        if (strcmp(name, own[i]) == 0) return 0;
    for (int j = 0; TRAIN_OPTS[j].name; j++)
        if (strcmp(name, TRAIN_OPTS[j].name) == 0) return 1;
    return 0;
}

/* The golden check option that `name` abbreviates (`--pol`), or NULL. */
static const char *golden_check_prefix(const char *name) {
    static const char *const own[] = {"engine", "policy", "data", "verbose"};
    size_t n = strlen(name);
    if (!n) return NULL;
    for (size_t i = 0; i < LS_ARRAY_LEN(own); i++)
        if (strncmp(own[i], name, n) == 0 && own[i][n]) return own[i];
    return NULL;
}

static int cmd_golden_check(int argc, char **argv) {
    golden_check_cfg g;
    golden_check_cfg_default(&g);
    int seen[3] = {0}, seen_verbose = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k = strcmp(a, "--engine") == 0 ? 0 : strcmp(a, "--policy") == 0 ? 1 : strcmp(a, "--data") == 0 ? 2 : -1;
        const char **dst = k == 0 ? &g.engine : k == 1 ? &g.policy : k == 2 ? &g.data_dir : NULL;
        if (dst) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lockstep golden check: option %s needs a value\n", a);
                return 2;
            }
            if (given_twice("golden check", a, &seen[k]) || empty_value("golden check", a, argv[i + 1])) return 2;
            *dst = argv[++i];
        } else if (strcmp(a, "--verbose") == 0) {
            if (given_twice("golden check", a, &seen_verbose)) return 2;
            g.verbose = 1;
        } else if (strcmp(a, "--help") == 0) {
            usage(stdout); /* `golden check --help` said "unexpected argument" */
            return 0;
        } else if (a[0] == '-' && a[1] == '-' && golden_check_run_option(a + 2)) {
            /* `golden check g.lsg --batch 8` said only "unexpected argument":
             * the run is the file's, and golden check says so */
            fprintf(stderr, "lockstep golden check: %s cannot be given: golden check replays the run the golden file "
                    "records (its model, seed, batch, steps, image limits, --init/--order/--normalize and engine "
                    "knobs); its options are --engine, --policy, --data and --verbose (see lockstep --help)\n", a);
            return 2;
        } else if (a[0] == '-' && a[1] == '-' && golden_check_prefix(a + 2)) {
            fprintf(stderr, "lockstep golden check: unknown option '%s' (options are not abbreviated); did you mean "
                    "--%s?\n", a, golden_check_prefix(a + 2));
            return 2;
        } else if (a[0] == '-' || g.path) {
            fprintf(stderr, "lockstep golden check: unexpected argument '%s' (see lockstep --help)\n", a);
            return 2;
        } else {
            g.path = a;
        }
    }
    if (!g.path) {
        fprintf(stderr, "lockstep golden check: which golden file? (lockstep golden check FILE)\n");
        return 2;
    }
    if (data_not_a_dir("golden check", g.data_dir)) return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = golden_check_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a closed terminal: said, as the other commands' stops (it died silently) */
    return golden_check_run(&g);
}

/* `export SOURCE --step S --out F` or `export --engine SPEC --step S --out F
 * [train options]` (a live replay). */
static int cmd_export(int argc, char **argv) {
    export_cfg x;
    export_cfg_default(&x);
    x.out = stdout;
    x.run.progress = isatty(2);
    char **av = calloc((size_t)argc + 1, sizeof *av);
    if (!av) return 2;
    int ac = 0, st = -1, seen[4] = {0};
    long v;
    static const char *const own[4] = {"--step", "--out", "--state-dict", "--f64"};
    av[ac++] = argv[0];
    for (int i = 1; i < argc && st < 0; i++) {
        const char *a = argv[i];
        for (int k = 0; k < 4; k++)
            if (strcmp(a, own[k]) == 0 && given_twice("export", a, &seen[k])) st = 2;
        /* --step is taken here before getopt sees it: getopt_long would
         * read it as an abbreviation of --steps */
        if (st >= 0) {
            break;
        } else if ((strcmp(a, "--step") == 0 || strcmp(a, "--out") == 0) && i + 1 >= argc) {
            fprintf(stderr, "lockstep export: option %s needs a value\n", a);
            st = 2;
        } else if (strcmp(a, "--step") == 0) {
            if (parse_long("export", "--step", argv[++i], 0, LONG_MAX, &v)) st = 2;
            x.step = v;
        } else if (strcmp(a, "--state-dict") == 0) {
            x.state_dict = 1;
        } else if (strcmp(a, "--f64") == 0) {
            x.f64 = 1;
        } else if (strcmp(a, "--out") == 0) {
            x.out_path = argv[++i];
            if (empty_value("export", a, x.out_path)) st = 2;
        } else if (strncmp(a, "--json", 6) == 0 || strncmp(a, "--save", 6) == 0 || strncmp(a, "--steps", 7) == 0) {
            fprintf(stderr, "lockstep export: option %s is not for this command (see lockstep --help)\n", a);
            st = 2;
        } else if (a[0] != '-' && i == 1) {
            x.source = a;
        } else {
            av[ac++] = argv[i];
        }
    }
    if (st < 0 && x.source && ac > 1) {
        fprintf(stderr, "lockstep export: %s: a file source takes only --step and --out (train options are for a "
                "live replay, without a file)\n", av[1]);
        st = 2;
    }
    if (st < 0) st = parse_opts(ac, av, "export", &x.run, NULL, NULL);
    free(av);
    if (st >= 0) return st;
    if (!x.out_path) {
        fprintf(stderr, "lockstep export: --out FILE.safetensors is required\n");
        return 2;
    }
    /* a live replay to a far step can run long: refuse an unwritable --out now, and say so if stopped */
    if (check_output(x.out_path, 0)) {
        fprintf(stderr, "lockstep export: --out %s\n", ls_errmsg());
        return 2;
    }
    ls_signals_install(0);
    if (export_run(&x)) {
        fprintf(stderr, "lockstep export: %s\n", ls_errmsg());
        return 2;
    }
    return 0;
}

static int takes_next_word(const char *word);

/* 1 when argv (from an option on) gives --engines as an option, not as
 * another option's value. */
static int eval_has_engines(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--")) return 0;
        if (!strcmp(argv[i], "--engines")) return 1;
        if (takes_next_word(argv[i])) i++;
    }
    return 0;
}

/* `eval --init W [--engines LIST] [--out F] [--json F] [train options]` */
static int cmd_eval(int argc, char **argv) {
    eval_cfg x;
    eval_cfg_default(&x);
    x.out = stdout;
    char **av = calloc((size_t)argc + 1, sizeof *av);
    if (!av) return 2;
    int ac = 0, st = -1, seen[2] = {0};
    av[ac++] = argv[0];
    for (int i = 1; i < argc && st < 0; i++) {
        const char *a = argv[i];
        int k = strcmp(a, "--engines") == 0 ? 0 : strcmp(a, "--out") == 0 ? 1 : -1;
        if (k >= 0 && i + 1 < argc && (given_twice("eval", a, &seen[k]) || empty_value("eval", a, argv[i + 1]))) st = 2;
        else if ((strcmp(a, "--engines") == 0 || strcmp(a, "--out") == 0) && i + 1 >= argc) {
            fprintf(stderr, "lockstep eval: option %s needs a value\n", a);
            st = 2;
        } else if (strcmp(a, "--engines") == 0) {
            x.engines = argv[++i];
            if (ls_check_list(a, "engine name", x.engines)) {
                fprintf(stderr, "lockstep eval: %s\n", ls_errmsg());
                st = 2;
            } else if (specs_syntax("eval", x.engines)) {
                st = 2;
            }
        } else if (strcmp(a, "--out") == 0) {
            x.out_path = argv[++i];
        } else if (strcmp(a, "--engine") == 0 && (seen[0] || eval_has_engines(argc - i, argv + i))) {
            /* --engines took over without a word: which was meant? */
            fprintf(stderr, "lockstep eval: --engine and --engines both given: give one (--engine E, or --engines "
                    "E1,E2,...)\n");
            st = 2;
        } else if (strncmp(a, "--save", 6) == 0 || strncmp(a, "--steps", 7) == 0 || strncmp(a, "--epochs", 8) == 0 ||
                   strncmp(a, "--order", 7) == 0 || strncmp(a, "--limit-train", 13) == 0) {
            fprintf(stderr, "lockstep eval: option %s is not for this command: eval trains nothing (see lockstep "
                    "--help)\n", a);
            st = 2;
        } else {
            av[ac++] = argv[i];
        }
    }
    if (st < 0) st = parse_opts(ac, av, "eval", &x.run, NULL, &x.engines);
    free(av);
    if (st >= 0) return st;
    threads_conflict("eval", "--engines", x.engines, x.run.threads, 1);
    ref_conflict("eval", "--engines", x.engines, g_ref_mode, g_ref_prec, 1);
    x.json_path = x.run.json_path;
    /* the --out name chooses the format: refuse one that names neither
     * before the data is read (eval_setup checks again, for other callers) */
    eval_out_format fmt;
    if (x.out_path && eval_out_format_of(x.out_path, &fmt)) {
        fprintf(stderr, "lockstep eval: %s\n", ls_errmsg());
        return 2;
    }
    if (x.out_path && fmt == EVAL_OUT_NPY && x.engines && strchr(x.engines, ',')) {
        fprintf(stderr, "lockstep eval: --out %s: .npy holds one engine's logits; give FILE.safetensors for "
                "--engines %s\n", x.out_path, x.engines);
        return 2;
    }
    const char *outs[2] = {x.json_path, x.out_path};
    for (int i = 0; i < 2; i++)
        if (outs[i] && check_output(outs[i], 0)) {
            fprintf(stderr, "lockstep eval: %s %s\n", i ? "--out" : "--json", ls_errmsg());
            return 2;
        }
    ls_signals_install(0);
    if (eval_cmd_run(&x)) {
        fprintf(stderr, "lockstep eval: %s\n", ls_errmsg());
        return 2;
    }
    return 0;
}

static int cmd_golden(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "record") == 0) return cmd_golden_record(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "check") == 0) return cmd_golden_check(argc - 1, argv + 1);
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "lockstep golden: want 'record' or 'check' (see lockstep --help)\n");
    return 2;
}

static int dispatch(int argc, char **argv);

/* A verdict that never reached its reader must not look like success:
 * `golden check g.lsg > /dev/full` printed PASS into nothing and exited 0. */
static int finish_stdout(int status) {
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad) return status;
    fprintf(stderr, "lockstep: error writing standard output: %s\n", e ? strerror(e) : "a write failed");
    return status ? status : 2;
}

/* "--opt=value" as the two words "--opt" "value", for every command:
 * getopt took the = form, but the options each command parses by itself
 * (record's and export's --out, export's --step, eval's --engines, golden
 * check's --policy) did not ("option --out is not for this command").
 * Words after "--" and words that are not a long option stay as they are.
 * The strings are new (n_alloc of them, *store); NULL when out of memory. */
/* 1 when word is a long option, spelled "--name" without a value, that
 * takes the next word as its value (getopt's required_argument options and
 * those the commands parse by themselves): that next word is a value, left
 * whole (`--json --run=1.json`, and audit's re-exec of an already split
 * `--out --x=y`). */
static int takes_next_word(const char *word) {
    static const char *const own[] = {"step", "policy", "on", "dir", "status", "merge", "task", "time", NULL};
    if (word[0] != '-' || word[1] != '-' || !word[2] || strchr(word, '=')) return 0;
    for (const struct option *o = TRAIN_OPTS; o->name; o++)
        if (!strcmp(o->name, word + 2)) return o->has_arg == required_argument;
    for (int i = 0; own[i]; i++)
        if (!strcmp(own[i], word + 2)) return 1;
    return 0;
}

static char **split_long_values(int argc, char **argv, int *out_argc, char ***store, int *n_alloc) {
    char **av = calloc(2 * (size_t)argc + 1, sizeof *av);
    char **names = calloc((size_t)argc + 1, sizeof *names);
    if (!av || !names) {
        free(av);
        free(names);
        return NULL;
    }
    int n = 0, k = 0, done = 0, want = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int value = want; /* the option before asks for this word: a value, whole */
        want = !value && !done && takes_next_word(a);
        if (!value && !strcmp(a, "--")) done = 1;
        const char *eq = !done && !value && a[0] == '-' && a[1] == '-' && a[2] && a[2] != '=' ? strchr(a, '=') : NULL;
        if (!eq) {
            av[n++] = argv[i];
            continue;
        }
        names[k] = strndup(a, (size_t)(eq - a));
        if (!names[k]) {
            for (int j = 0; j < k; j++) free(names[j]);
            free(names);
            free(av);
            return NULL;
        }
        av[n++] = names[k++];
        av[n++] = (char *)eq + 1;
    }
    *out_argc = n;
    *store = names;
    *n_alloc = k;
    return av;
}

int main(int argc, char **argv) {
    /* Tensors of a few to a few tens of MB are allocated and freed at every
     * compared step; glibc's default maps each anew (page faults, pages
     * zeroed by the kernel).  Keep them in the heap: below 32 MB from the
     * heap, and the heap's top kept. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    /* A write past a file size limit (ulimit -f) or into a closed pipe
     * (`audit ... | head`) killed the run without a word, its temporaries
     * left and its report lost.  Ignored, the write fails with EFBIG or
     * EPIPE, which every writer reports: the file and the reason, or
     * "error writing standard output" (finish_stdout). */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int ac, n_alloc;
    char **store;
    char **av = split_long_values(argc, argv, &ac, &store, &n_alloc);
    if (!av) {
        fprintf(stderr, "lockstep: out of memory\n");
        return 2;
    }
    int status = finish_stdout(dispatch(ac, av));
    for (int i = 0; i < n_alloc; i++) free(store[i]);
    free(store);
    free(av);
    return status;
}

static int dispatch(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("lockstep %s\n", LS_VERSION);
        return 0;
    }
    if (strcmp(cmd, "train") == 0) return cmd_train(argc - 1, argv + 1);
    if (strcmp(cmd, "audit") == 0) return cmd_audit(argc - 1, argv + 1, argv);
    if (strcmp(cmd, "model") == 0) return cmd_model(argc - 1, argv + 1);
    if (strcmp(cmd, "golden") == 0) return cmd_golden(argc - 1, argv + 1);
    if (strcmp(cmd, "record") == 0) return cmd_record(argc - 1, argv + 1);
    if (strcmp(cmd, "export") == 0) return cmd_export(argc - 1, argv + 1);
    if (strcmp(cmd, "eval") == 0) return cmd_eval(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0) return cmd_sweep(argc - 1, argv + 1);
    fprintf(stderr, "lockstep: unknown command '%s' (see lockstep --help)\n", cmd);
    return 2;
}
