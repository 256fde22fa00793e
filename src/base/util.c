/*
 * util.c — errors, clocks, atomic file writes, a string buffer for JSON,
 * and the ULP distance.  See util.h.
 */
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static _Thread_local char err_buf[1024];

int ls_err(int code, const char *fmt, ...) {
    /* format into a copy first: callers wrap the previous message,
     * ls_err(rc, "engine %s: %s", name, ls_errmsg()), and vsnprintf's
     * source and destination must not overlap */
    char tmp[sizeof err_buf];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    memcpy(err_buf, tmp, sizeof err_buf);
    return code;
}

int ls_err_prefix(int code, const char *fmt, ...) {
    /* the old message is copied out first: formatting err_buf into itself
     * is undefined behaviour (seen as "step 2: ocess died") */
    char old[sizeof err_buf];
    memcpy(old, err_buf, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err_buf, sizeof err_buf, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof err_buf) snprintf(err_buf + n, sizeof err_buf - (size_t)n, ": %s", old);
    return code;
}

int ls_err_option(int code, const char *opt, const char *path) {
    if (!err_buf[0]) return code;
    char old[sizeof err_buf];
    memcpy(old, err_buf, sizeof old);
    size_t n = strlen(path);
    char out[2 * sizeof err_buf];
    /* "PATH:3: ..." and "PATH: ..." already name it: the option goes in front */
    if (strncmp(old, path, n) == 0 && old[n] == ':') snprintf(out, sizeof out, "%s %s", opt, old);
    else snprintf(out, sizeof out, "%s %s: %s", opt, path, old);
    size_t len = strlen(out);
    if (len >= sizeof err_buf) len = sizeof err_buf - 1; /* cut, as ls_err cuts */
    memcpy(err_buf, out, len);
    err_buf[len] = 0;
    return code;
}

const char *ls_errmsg(void) { return err_buf; }
void ls_err_clear(void) { err_buf[0] = 0; }

double ls_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

size_t ls_peak_rss(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (size_t)ru.ru_maxrss * 1024; /* Linux reports KiB */
}

void *ls_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) ls_err(LS_ENOMEM, "out of memory allocating %zu bytes", n);
    return p;
}

void *ls_calloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) ls_err(LS_ENOMEM, "out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

static const char *node_kind(mode_t m) {
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a regular file";
}

int ls_blank_edges(const char *s) {
    size_t n = strlen(s);
    return n && (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1]));
}

int ls_check_list(const char *opt, const char *what, const char *list) {
    if (!*list) return ls_err(LS_EINVAL, "%s: no %s given", opt, what);
    int pos = 1, blank = 1;
    for (const char *p = list;; p++) {
        if (*p == ',' || !*p) {
            if (blank) return ls_err(LS_EINVAL, "%s: empty %s at position %d in '%s'", opt, what, pos, list);
            if (!*p) return LS_OK;
            pos++;
            blank = 1;
        } else if (*p != ' ' && *p != '\t') {
            blank = 0;
        }
    }
}

int ls_check_output_dir(const char *path) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) return LS_OK; /* the working directory */
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= sizeof dir) return LS_OK; /* open says why */
    memcpy(dir, path, n);
    dir[n] = 0;
    struct stat st;
    if (stat(dir, &st) != 0)
        return ls_err(LS_EIO, "%s: cannot be written: directory %s: %s", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return ls_err(LS_EIO, "%s: cannot be written: %s is not a directory", path, dir);
    return LS_OK;
}

int ls_check_output_path(const char *path) {
    struct stat st;
    /* absent: its directory must exist, so that a typo fails before the work, not after it */
    if (lstat(path, &st) != 0) return errno == ENOENT || errno == ENOTDIR ? ls_check_output_dir(path) : LS_OK;
    if (S_ISREG(st.st_mode)) return LS_OK;
    return ls_err(LS_EIO, "%s: is %s, not a regular file: refusing to replace it (outputs are written to a "
                  "temporary file and renamed into place; give a regular file or a new name)", path,
                  node_kind(st.st_mode));
}

int ls_open_regular(const char *path, size_t *size) {
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer forever */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return ls_err(errno == ENOMEM ? LS_ENOMEM : LS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ls_err(LS_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return ls_err(LS_EIO, "%s: not a regular file (%s)", path, node_kind(st.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (size) *size = (size_t)st.st_size;
    return fd;
}

size_t ls_phys_mem(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0) return 0;
    return (size_t)pages * (size_t)psz;
}

int ls_check_memory(size_t bytes, const char *what) {
    size_t phys = ls_phys_mem();
    if (phys == 0 || bytes <= phys) return LS_OK;
    return ls_err(LS_ENOMEM, "%s needs about %.1f GiB, more than the %.1f GiB of memory of this machine", what,
                  bytes / 1073741824.0, phys / 1073741824.0);
}

int ls_disk_free(const char *path, double *avail, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else if (slash == path) snprintf(dir, cap, "/");
    else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
    struct statvfs v;
    /* no size at all (f_blocks 0): a tmpfs mounted size=0 (unlimited),
     * /proc, some FUSE and network file systems: free space unknown, not 0 */
    if (statvfs(dir, &v) != 0 || v.f_blocks == 0) return -1;
    *avail = (double)v.f_bavail * (double)v.f_frsize;
    return 0;
}

/* ---- signals and temporary files ------------------------------------ */

#define TMP_SLOTS 16
static char tmp_path[TMP_SLOTS][4096];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t cooperative_mode;
static pid_t owner_pid;
/* who sent the first stop, and when (ms, CLOCK_MONOTONIC): 0 when the
 * kernel sent it (Ctrl-C) */
static volatile sig_atomic_t stop_sender;
static volatile long stop_ms;

void ls_tmp_register(const char *path) {
    size_t n = strlen(path);
    if (n >= sizeof tmp_path[0]) return;
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!tmp_used[i]) {
            memcpy(tmp_path[i], path, n + 1);
            tmp_used[i] = 1; /* set last: the handler reads only complete paths */
            return;
        }
}

void ls_tmp_unregister(const char *path) {
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_used[i] && strcmp(tmp_path[i], path) == 0) {
            tmp_used[i] = 0;
            return;
        }
}

static void say(const char *m) {
    ssize_t w = write(2, m, strlen(m));
    (void)w;
}

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Only async-signal-safe calls here: getpid, unlink, signal, raise, write,
 * strlen, clock_gettime. */
static void on_signal(int sig, siginfo_t *si, void *uctx) {
    (void)uctx;
    if (getpid() != owner_pid) { /* a forked child: its parent owns the files */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    int sender = si && si->si_code == SI_USER ? (int)si->si_pid : 0;
    /* said at once: a step (the reference's) can take minutes, and a user
     * who sees nothing presses Ctrl-C again and loses the partial report */
    if (cooperative_mode && !stop_sig) {
        stop_sig = sig;
        stop_sender = sender;
        stop_ms = now_ms();
        say("\nlockstep: stopping at the next step boundary, then writing the partial report "
            "(a second signal stops at once, without it)\n");
        return;
    }
    /* one stop delivered twice: `timeout` sends its signal to the process,
     * then to its process group (kill(pid), kill(0)), and the audit leads
     * that group; taken as a second signal it lost the report in about 1
     * run of 4.  The same signal from the same process within 0.5 s is that
     * one request (a second Ctrl-C comes from the kernel: sender 0) */
    if (cooperative_mode && sig == stop_sig && sender != 0 && sender == stop_sender && now_ms() - stop_ms < 500)
        return;
    if (cooperative_mode)
        say("\nlockstep: second signal: stopped at once; no report (an --out folder is left marked "
            "INCOMPLETE)\n");
    else /* train, record, golden record, eval, export: not resumable; never a silent exit */
        say("\nlockstep: stopped by a signal; its output files were not written (temporary files removed)\n");
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_used[i]) unlink(tmp_path[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void ls_signals_install(int cooperative) {
    owner_pid = getpid();
    cooperative_mode = cooperative;
    stop_sig = 0;
    stop_sender = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESTART: reads and waits in progress go on; the program looks at
     * ls_stop_signal() at its safe points (poll() returns EINTR anyway) */
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* a closed terminal or a dropped ssh session: a stop like the others
     * (it died of the signal, without a word, its temporaries left) */
    sigaction(SIGHUP, &sa, NULL);
}

int ls_stop_signal(void) { return stop_sig; }

int ls_write_file_atomic(const char *path, const void *data, size_t len) {
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) return ls_err(LS_EINVAL, "%s: path too long", path);
    int rc = ls_check_output_path(path);
    if (rc) return rc;
    /* O_EXCL after removing a stale temporary of ours: never write through
     * a symlink or FIFO someone left under the temporary name */
    unlink(tmp);
    ls_tmp_register(tmp); /* before it exists: no moment when a signal would leave it */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        ls_tmp_unregister(tmp);
        return ls_err(LS_EIO, "%s: cannot create: %s", tmp, strerror(e));
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            ls_tmp_unregister(tmp);
            return ls_err(LS_EIO, "%s: write failed: %s", tmp, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    int bad = fsync(fd) != 0, e = errno;
    if (close(fd) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        ls_tmp_unregister(tmp);
        return ls_err(LS_EIO, "%s: cannot flush: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        ls_tmp_unregister(tmp);
        return ls_err(LS_EIO, "%s: cannot rename into place: %s", path, strerror(e));
    }
    ls_tmp_unregister(tmp);
    return LS_OK;
}

/* ---- lsbuf ---------------------------------------------------------- */

void lsbuf_init(lsbuf *b) { memset(b, 0, sizeof *b); }

void lsbuf_free(lsbuf *b) {
    free(b->s);
    memset(b, 0, sizeof *b);
}

static int lsbuf_reserve(lsbuf *b, size_t extra) {
    if (b->failed) return -1;
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void lsbuf_put(lsbuf *b, const char *s, size_t n) {
    if (lsbuf_reserve(b, n) != 0) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void lsbuf_printf(lsbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || lsbuf_reserve(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

size_t ls_utf8_seq_len(const unsigned char *p) {
    unsigned c = p[0];
    size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n <= 1) return n;
    for (size_t k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0; /* also the string's end: a character cut by a truncation */
    unsigned c1 = p[1];
    if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f))
        return 0; /* overlong, a surrogate, or past U+10FFFF */
    return n;
}

void lsbuf_json_str(lsbuf *b, const char *s) {
    lsbuf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p >= 0x80) { /* JSON is UTF-8: a byte that starts no whole character (a string cut mid-character) is U+FFFD */
            size_t n = ls_utf8_seq_len(p);
            if (n) lsbuf_put(b, (const char *)p, n), p += n - 1;
            else lsbuf_put(b, "\\ufffd", 6);
            continue;
        }
        switch (*p) {
        case '"': lsbuf_put(b, "\\\"", 2); break;
        case '\\': lsbuf_put(b, "\\\\", 2); break;
        case '\n': lsbuf_put(b, "\\n", 2); break;
        case '\t': lsbuf_put(b, "\\t", 2); break;
        case '\r': lsbuf_put(b, "\\r", 2); break;
        default:
            if (*p < 0x20) lsbuf_printf(b, "\\u%04x", *p);
            else lsbuf_put(b, (const char *)p, 1);
        }
    }
    lsbuf_put(b, "\"", 1);
}

void lsbuf_json_num(lsbuf *b, double v) {
    if (!isfinite(v)) {
        lsbuf_put(b, "null", 4);
        return;
    }
    char tmp[40];
    /* %.17g round-trips a double; try shorter first for readability */
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    lsbuf_put(b, tmp, strlen(tmp));
}

void lsbuf_json_matrix_long(lsbuf *b, const long *m, int rows, int cols) {
    lsbuf_put(b, "[", 1);
    for (int k = 0; k < rows; k++) {
        lsbuf_printf(b, "%s[", k ? ", " : "");
        for (int j = 0; j < cols; j++) lsbuf_printf(b, "%s%ld", j ? ", " : "", m[(size_t)k * cols + j]);
        lsbuf_put(b, "]", 1);
    }
    lsbuf_put(b, "]", 1);
}

const char *ls_fmt_num(char *buf, size_t cap, double v, const char *nan_text) {
    if (isnan(v)) snprintf(buf, cap, "%s", nan_text);
    else if (isinf(v)) snprintf(buf, cap, "%sinf", v < 0 ? "-" : "");
    else if (v == 0) snprintf(buf, cap, "0");
    else if (fabs(v) < 0.01 || fabs(v) >= 1e5) snprintf(buf, cap, "%.2e", v);
    /* a ratio within half a percent of 1 but not 1 keeps four decimals: 1.0017 over a limit, 0.9996 within a
     * bound, not both "1" */
    else if (fabs(v) >= 0.995 && fabs(v) < 1.005 && fabs(v) != 1) snprintf(buf, cap, "%.4f", v);
    else if (fabs(v) < 100) snprintf(buf, cap, "%.3g", v);
    else snprintf(buf, cap, "%.0f", v);
    return buf;
}

/* ---- ULP distance --------------------------------------------------- */

/* Map a float's bits to an integer line on which adjacent floats differ by
 * one: negative floats are mirrored so that -0 and +0 both land on 0. */
static int64_t float_line(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (u & 0x80000000u) return -(int64_t)(u & 0x7fffffffu);
    return (int64_t)u;
}

uint32_t ls_ulp_dist(float a, float b) {
    if (isnan(a) || isnan(b)) return UINT32_MAX;
    int64_t d = float_line(a) - float_line(b);
    if (d < 0) d = -d;
    return d > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

FILE *ls_fopen_regular(const char *path, int *rc) {
    int fd = ls_open_regular(path, NULL);
    *rc = fd < 0 ? fd : LS_OK;
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        *rc = ls_err(LS_ENOMEM, "%s: fdopen: %s", path, strerror(errno));
    }
    return f;
}

int ls_file_crc32(const char *path, uint32_t *out) {
    int rc;
    FILE *f = ls_fopen_regular(path, &rc); /* a FIFO would block the digest forever */
    if (!f) return rc;
    unsigned char buf[65536];
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) crc = crc32(crc, buf, (uInt)n);
    int bad = ferror(f);
    fclose(f);
    if (bad) return ls_err(LS_EIO, "%s: read error", path);
    *out = (uint32_t)crc;
    return LS_OK;
}

int ls_thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') n++;
    closedir(d);
    return n;
}
