/*
 * remote.c — the engine proxy that forwards every call to a child process.
 * See remote.h for why.  The child ends with _exit(): it is a separate
 * process serving one engine, not a function returning to a caller.
 */
#include "engines/remote.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "engines/checksums.h"
#include "engines/registry.h"

enum {
    OP_DESCRIBE = 1, OP_SET_BATCH, OP_FORWARD, OP_LOSS, OP_BACKWARD, OP_UPDATE,
    OP_GET, OP_GET_F64, OP_SET, OP_SYNC, OP_STATS, OP_QUIT, OP_CHECKSUMS,
};

typedef struct {
    int op;
    int layer;
    int training;
    int kind;
    size_t n;
    uint64_t step;
    adam_scalars adam;
} rcmd;

typedef struct {
    int rc;
    float loss;
    size_t len;       /* bytes written to the shared region (describe) */
    size_t peak_rss;
    char msg[512];
} rreply;

typedef struct {
    pid_t pid;
    int fd;
    void *shm;        /* shared region: tensor area, then x, then labels */
    size_t shm_len;
    size_t tensor_bytes, x_off, y_off;
    int dead;
    int ck_pending;   /* a checksums request sent, its reply not read (remote_checksums_send) */
    int ck_stage;     /* its stage and flags */
    char why[160];    /* when dead: "signal 9, Killed", "exit status 3", ... */
} rctx;

static const engine_i REMOTE_IFACE;

/* seconds one call may take before the child is declared hung (0: no limit) */
static double g_timeout_s = REMOTE_DEFAULT_TIMEOUT_S;

void remote_set_timeout(double seconds) { g_timeout_s = seconds > 0 ? seconds : 0; }

/* send() with MSG_NOSIGNAL: writing to the socket of a child that died
 * must be an error (EPIPE), not a SIGPIPE that kills the whole audit. */
static int write_all(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n) {
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The largest tensor of the model at max_batch, in floats. */
static size_t max_tensor_floats(const model *m, size_t B) {
    size_t mx = m->n_params;
    size_t in = B * (size_t)m->in_c * m->in_h * m->in_w;
    if (in > mx) mx = in;
    for (int l = 0; l < m->n_layers; l++) {
        size_t s = B * layer_out_size(&m->layers[l]);
        if (s > mx) mx = s;
    }
    return mx;
}

/* ---- the child ------------------------------------------------------- */

static void serve(int fd, rctx *c, const char *spec, const model *m, const engine_opts *o) {
    engine *e = NULL;
    rreply rep;
    memset(&rep, 0, sizeof rep);
    rep.rc = engine_create(&e, spec, m, o);
    if (rep.rc) snprintf(rep.msg, sizeof rep.msg, "%s", ls_errmsg());
    if (write_all(fd, &rep, sizeof rep) || rep.rc) return;
    char *shm = c->shm;
    rcmd cmd;
    while (read_all(fd, &cmd, sizeof cmd) == 0) {
        memset(&rep, 0, sizeof rep);
        tensor_id t = {(tensor_kind)cmd.kind, cmd.layer};
        ls_err_clear();
        switch (cmd.op) {
        case OP_DESCRIBE: {
            char *d = engine_describe(e);
            size_t n = d ? strlen(d) : 0;
            if (n >= c->tensor_bytes) n = c->tensor_bytes - 1;
            if (d) memcpy(shm, d, n);
            shm[n] = 0;
            rep.len = n;
            free(d);
            break;
        }
        case OP_SET_BATCH:
            rep.rc = engine_set_batch(e, (const float *)(shm + c->x_off), (const int32_t *)(shm + c->y_off), cmd.n,
                                      cmd.step);
            break;
        case OP_FORWARD: rep.rc = engine_forward_layer(e, cmd.layer, cmd.training); break;
        case OP_LOSS: rep.rc = engine_loss(e, &rep.loss); break;
        case OP_BACKWARD: rep.rc = engine_backward_layer(e, cmd.layer); break;
        case OP_UPDATE: {
            /* the parent made the scalars; apply them as they are */
            double t0 = ls_now();
            rep.rc = e->iface->update(e, &cmd.adam);
            double dt = ls_now() - t0;
            e->timing.update_s += dt;
            if (!e->samples) e->samples = calloc(1, sizeof *e->samples);
            if (e->samples) timing_add(&e->samples->update, dt);
            e->last_adam = cmd.adam;
            break;
        }
        case OP_GET: rep.rc = engine_get_tensor(e, t, (float *)shm); break;
        case OP_GET_F64: rep.rc = engine_get_tensor_f64(e, t, (double *)shm); break;
        case OP_SET: rep.rc = engine_set_tensor(e, t, (const float *)shm); break;
        case OP_SYNC: rep.rc = engine_synchronize(e); break;
        case OP_CHECKSUMS: rep.rc = engine_checksums(e, cmd.layer, (double *)shm); break;
        case OP_STATS:
            /* the sums, then the samples (zeros when none were kept);
             * the tensor area holds both (at least 1 MiB) */
            memcpy(shm, &e->timing, sizeof e->timing);
            if (e->samples) memcpy(shm + sizeof e->timing, e->samples, sizeof *e->samples);
            else memset(shm + sizeof e->timing, 0, sizeof *e->samples);
            rep.peak_rss = ls_peak_rss();
            break;
        case OP_QUIT:
            engine_free(e);
            rep.rc = 0;
            write_all(fd, &rep, sizeof rep);
            return;
        default: rep.rc = ls_err(LS_EINVAL, "remote: unknown op %d", cmd.op);
        }
        if (rep.rc) snprintf(rep.msg, sizeof rep.msg, "%s", ls_errmsg());
        if (write_all(fd, &rep, sizeof rep)) break;
    }
    engine_free(e);
}

/* ---- the proxy ------------------------------------------------------- */

/* Wait until the child's reply can be read, at most g_timeout_s.  Returns
 * 0 when readable (or at EOF), 1 on timeout. */
static int wait_reply(rctx *c) {
    double t0 = ls_now();
    for (;;) {
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int ms = 1000;
        if (g_timeout_s > 0) {
            double left = g_timeout_s - (ls_now() - t0);
            if (left <= 0) return 1;
            if (left < 1) ms = (int)(left * 1000) + 1;
        }
        int r = poll(&pf, 1, ms);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return 0; /* let read() report it */
    }
}

/* The child is gone or useless: reap it (killing it if it still runs)
 * and say why in c->why. */
static void reap(rctx *c, const char *fallback) {
    int st = 0;
    pid_t r = 0;
    c->dead = 1;
    /* a child that closed its socket is usually exiting: give it a moment */
    for (int i = 0; i < 100 && (r = waitpid(c->pid, &st, WNOHANG)) == 0; i++) usleep(10000);
    if (r == c->pid) {
        if (WIFSIGNALED(st)) snprintf(c->why, sizeof c->why, "signal %d, %s", WTERMSIG(st), strsignal(WTERMSIG(st)));
        else if (WIFEXITED(st)) snprintf(c->why, sizeof c->why, "exit status %d", WEXITSTATUS(st));
        else snprintf(c->why, sizeof c->why, "%s", fallback);
        return;
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    snprintf(c->why, sizeof c->why, "%s; killed it", fallback);
}

/* A call is a request and its reply; call_send and call_recv split it so
 * that the driver can have several children work at once (the checksums:
 * remote_checksums_send). */
static int call_send(engine *e, rcmd *cmd) {
    rctx *c = e->ctx;
    if (c->dead) return ls_err(LS_ELIB, "engine %s: its process is gone (%s)", e->spec.spec, c->why);
    if (write_all(c->fd, cmd, sizeof *cmd)) {
        reap(c, "its connection is closed");
        return ls_err(LS_ELIB, "engine %s: child process died (%s)", e->spec.spec, c->why);
    }
    return LS_OK;
}

static int call_recv(engine *e, rreply *rep) {
    rctx *c = e->ctx;
    if (wait_reply(c)) {
        /* a stopped (SIGSTOP) or hung child would block us forever */
        int st = 0, stopped = waitpid(c->pid, &st, WNOHANG | WUNTRACED) == c->pid && WIFSTOPPED(st);
        char fb[128];
        snprintf(fb, sizeof fb, "no reply within %g s%s", g_timeout_s,
                 stopped ? " (the child process is stopped)" : "");
        kill(c->pid, SIGKILL);
        waitpid(c->pid, NULL, 0);
        c->dead = 1;
        snprintf(c->why, sizeof c->why, "%s; killed it", fb);
        return ls_err(LS_ELIB, "engine %s: %s (--engine-timeout)", e->spec.spec, c->why);
    }
    if (read_all(c->fd, rep, sizeof *rep)) {
        reap(c, "closed its connection");
        return ls_err(LS_ELIB, "engine %s: child process died (%s)", e->spec.spec, c->why);
    }
    if (rep->rc) return ls_err(rep->rc, "%s", rep->msg);
    return LS_OK;
}

static int call(engine *e, rcmd *cmd, rreply *rep) {
    int rc = call_send(e, cmd);
    return rc ? rc : call_recv(e, rep);
}

const char *remote_engine_dead(const engine *e) {
    const rctx *c = e && e->iface == &REMOTE_IFACE ? e->ctx : NULL;
    return c && c->dead ? c->why : NULL;
}

long remote_engine_pid(const engine *e) {
    const rctx *c = e && e->iface == &REMOTE_IFACE ? e->ctx : NULL;
    return c ? (long)c->pid : -1;
}

static int simple(engine *e, int op, int layer, int training, int kind) {
    rcmd cmd = {.op = op, .layer = layer, .training = training, .kind = kind};
    rreply rep;
    return call(e, &cmd, &rep);
}

static char *r_describe(engine *e) {
    rctx *c = e->ctx;
    rcmd cmd = {.op = OP_DESCRIBE};
    rreply rep;
    if (call(e, &cmd, &rep)) return NULL;
    char *s = malloc(rep.len + 1);
    if (!s) return NULL;
    memcpy(s, c->shm, rep.len);
    s[rep.len] = 0;
    return s;
}

static int r_set_batch(engine *e, const float *x, const int32_t *y, size_t n, uint64_t step) {
    rctx *c = e->ctx;
    const model *m = e->m;
    memcpy((char *)c->shm + c->x_off, x, n * (size_t)m->in_c * m->in_h * m->in_w * sizeof *x);
    memcpy((char *)c->shm + c->y_off, y, n * sizeof *y);
    rcmd cmd = {.op = OP_SET_BATCH, .n = n, .step = step};
    rreply rep;
    return call(e, &cmd, &rep);
}

static int r_forward(engine *e, int l, int training) { return simple(e, OP_FORWARD, l, training, 0); }
static int r_backward(engine *e, int l) { return simple(e, OP_BACKWARD, l, 0, 0); }
static int r_sync(engine *e) { return simple(e, OP_SYNC, 0, 0, 0); }

static int r_loss(engine *e, float *loss) {
    rcmd cmd = {.op = OP_LOSS};
    rreply rep;
    int rc = call(e, &cmd, &rep);
    if (!rc) *loss = rep.loss;
    return rc;
}

static int r_update(engine *e, const adam_scalars *a) {
    rcmd cmd = {.op = OP_UPDATE, .adam = *a};
    rreply rep;
    return call(e, &cmd, &rep);
}

static int r_get(engine *e, tensor_id t, float *out) {
    rctx *c = e->ctx;
    int rc = simple(e, OP_GET, t.layer, 0, t.kind);
    if (!rc) memcpy(out, c->shm, tensor_numel(e->m, t, e->batch) * sizeof *out);
    return rc;
}

static int r_get_f64(engine *e, tensor_id t, double *out) {
    rctx *c = e->ctx;
    int rc = simple(e, OP_GET_F64, t.layer, 0, t.kind);
    if (!rc) memcpy(out, c->shm, tensor_numel(e->m, t, e->batch) * sizeof *out);
    return rc;
}

static int r_set(engine *e, tensor_id t, const float *in) {
    rctx *c = e->ctx;
    memcpy(c->shm, in, tensor_numel(e->m, t, e->batch) * sizeof *in);
    return simple(e, OP_SET, t.layer, 0, t.kind);
}

/* Only the small vector crosses: the child computes it next to its tensors. */
static int r_checksums(engine *e, int stage, double *out) {
    int rc = remote_checksums_send(e, stage);
    return rc < 0 ? rc : remote_checksums_recv(e, out);
}

int remote_checksums_send(engine *e, int stage) {
    if (!e || e->iface != &REMOTE_IFACE) return 0;
    rctx *c = e->ctx;
    if (c->ck_pending) return ls_err(LS_EINVAL, "engine %s: checksums already requested", e->spec.spec);
    rcmd cmd = {.op = OP_CHECKSUMS, .layer = stage};
    int rc = call_send(e, &cmd);
    if (rc) return rc;
    c->ck_pending = 1;
    c->ck_stage = stage;
    return 1;
}

int remote_checksums_recv(engine *e, double *out) {
    rctx *c = e->ctx;
    if (!c->ck_pending) return ls_err(LS_EINVAL, "engine %s: no checksums requested", e->spec.spec);
    c->ck_pending = 0;
    rreply rep;
    int rc = call_recv(e, &rep);
    if (rc) return rc;
    ck_layout L;
    ck_layout_make(&L, e->m, e->batch);
    const double *v = c->shm;
    if (c->ck_stage & CK_STAGE_HASH_ONLY) memcpy(out, v, CK_HDR * sizeof *out); /* the rest is not computed */
    else memcpy(out, v, L.total * sizeof *out);
    if (c->ck_stage & (CK_STAGE_HASH | CK_STAGE_HASH_ONLY)) out[L.total] = v[L.total];
    return LS_OK;
}

static void r_free(engine *e) {
    rctx *c = e->ctx;
    if (!c) return;
    if (!c->dead) {
        rcmd cmd = {.op = OP_QUIT};
        rreply rep;
        if (write_all(c->fd, &cmd, sizeof cmd) == 0) read_all(c->fd, &rep, sizeof rep);
    }
    close(c->fd);
    if (!c->dead) waitpid(c->pid, NULL, 0);
    munmap(c->shm, c->shm_len);
    free(c);
    e->ctx = NULL;
}

static const engine_i REMOTE_IFACE = {
    /* .name           = */ "remote",
    /* .describe       = */ r_describe,
    /* .set_batch      = */ r_set_batch,
    /* .forward_layer  = */ r_forward,
    /* .loss           = */ r_loss,
    /* .backward_layer = */ r_backward,
    /* .update         = */ r_update,
    /* .get_tensor     = */ r_get,
    /* .set_tensor     = */ r_set,
    /* .get_tensor_f64 = */ r_get_f64,
    /* .synchronize    = */ r_sync,
    /* .free           = */ r_free,
    /* .checksums      = */ r_checksums,
    /* .ck_fused       = */ NULL,
    /* .ck_view        = */ NULL,
};


int remote_engine_create(engine **out, const char *spec, const model *m, const engine_opts *o) {
    *out = NULL;
    /* A child forked from a process whose OpenMP (or any) thread pool is
     * running inherits the pool's bookkeeping but not its threads, and its
     * first parallel region waits for them forever.  Refuse instead of
     * hanging: engines must be created before the parent starts threads. */
    int nt = ls_thread_count();
    if (nt > 1)
        return ls_err(LS_EINVAL, "engine %s: cannot fork an engine process from a process already running %d threads "
                      "(create the engines before anything starts a thread pool)", spec, nt);
    engine *e = ls_calloc(1, sizeof *e);
    rctx *c = ls_calloc(1, sizeof *c);
    int sv[2] = {-1, -1}, rc;
    if (!e || !c) {
        free(e);
        free(c);
        return LS_ENOMEM;
    }
    if ((rc = engine_spec_parse(&e->spec, spec))) goto fail;
    e->m = m;
    e->max_batch = o->max_batch;
    e->seed = o->seed;
    e->timed_inside = 1;
    size_t floats = max_tensor_floats(m, o->max_batch);
    c->tensor_bytes = floats * sizeof(double);
    if (c->tensor_bytes < 1 << 20) c->tensor_bytes = 1 << 20; /* describe() text, timing samples */
    _Static_assert(sizeof(engine_timing) + sizeof(engine_timing_samples) <= 1 << 20,
                   "timing and its samples must fit the 1 MiB minimum of the tensor area");
    ck_layout ckl;
    ck_layout_make(&ckl, m, o->max_batch);
    /* + 1: the operand hash (CK_STAGE_HASH) */
    if (c->tensor_bytes < (ckl.total + 1) * sizeof(double)) c->tensor_bytes = (ckl.total + 1) * sizeof(double);
    c->x_off = c->tensor_bytes;
    c->y_off = c->x_off + o->max_batch * (size_t)m->in_c * m->in_h * m->in_w * sizeof(float);
    c->shm_len = c->y_off + o->max_batch * sizeof(int32_t);
    c->shm = mmap(NULL, c->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (c->shm == MAP_FAILED) {
        c->shm = NULL;
        rc = ls_err(LS_ENOMEM, "engine %s: cannot map %zu bytes of shared memory: %s", spec, c->shm_len, strerror(errno));
        goto fail;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        rc = ls_err(LS_EIO, "engine %s: socketpair: %s", spec, strerror(errno));
        goto fail;
    }
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        rc = ls_err(LS_EIO, "engine %s: fork: %s", spec, strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        close(sv[0]);
        /* the parent decides when we stop: a SIGINT or SIGTERM sent to the
         * whole process group (Ctrl-C, `timeout`, Slurm's scancel, container
         * runtimes) is the user stopping the audit, not this engine failing,
         * so it must not kill us before the parent reaches a step boundary;
         * the parent ends us with OP_QUIT, or SIGKILL, and if it dies first
         * the kernel kills us (PDEATHSIG) */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN); /* a hangup: the shell sends it to every job's group */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0); /* the parent died before prctl */
        serve(sv[1], c, spec, m, o);
        _exit(0);
    }
    close(sv[1]);
    sv[1] = -1;
    c->pid = pid;
    c->fd = sv[0];
    e->ctx = c;
    e->iface = &REMOTE_IFACE;
    rreply rep;
    if (wait_reply(c) || read_all(c->fd, &rep, sizeof rep)) {
        reap(c, "no reply");
        rc = ls_err(LS_ELIB, "engine %s: child process failed while creating the engine (%s)", spec, c->why);
        goto fail_child;
    }
    if (rep.rc) {
        rc = ls_err(rep.rc, "%s", rep.msg);
        c->dead = 1;
        waitpid(pid, NULL, 0);
        goto fail_child;
    }
    *out = e;
    return LS_OK;
fail_child:
    close(c->fd);
    munmap(c->shm, c->shm_len);
    free(c);
    free(e);
    return rc;
fail:
    if (sv[0] >= 0) close(sv[0]);
    if (sv[1] >= 0) close(sv[1]);
    if (c->shm) munmap(c->shm, c->shm_len);
    free(c);
    free(e);
    return rc;
}

int remote_fetch_stats(engine *e, size_t *peak_rss) {
    rctx *c = e->ctx;
    rcmd cmd = {.op = OP_STATS};
    rreply rep;
    int rc = call(e, &cmd, &rep);
    if (rc) return rc;
    memcpy(&e->timing, c->shm, sizeof e->timing);
    if (!e->samples) e->samples = malloc(sizeof *e->samples);
    if (e->samples) memcpy(e->samples, (const char *)c->shm + sizeof e->timing, sizeof *e->samples);
    if (peak_rss) *peak_rss = rep.peak_rss;
    return LS_OK;
}
