/*
 * util.h — errors, clocks and small helpers shared by every module.
 *
 * Errors: functions below main() return 0 or a negative LS_E* code and never
 * exit().  The human-readable reason is kept in a thread-local buffer set by
 * ls_err() and read by ls_errmsg(), so that a caller several frames up can
 * print "file: problem" without every signature carrying a char buffer.
 * Not here: logging policy (the CLI decides what goes to stdout/stderr).
 */
#ifndef LS_UTIL_H
#define LS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
    LS_OK = 0,
    LS_EINVAL = -1,    /* bad argument or bad user input */
    LS_EIO = -2,       /* file missing, unreadable, short write */
    LS_EFORMAT = -3,   /* file present but malformed */
    LS_ENOMEM = -4,
    LS_ELIB = -5,      /* a library call (oneDNN, MPFR, CUDA, zlib) failed */
    LS_EUNAVAIL = -6,  /* an engine cannot run here (no device, ...) */
    LS_EMISMATCH = -7, /* a comparison failed (golden check) */
};

/* Set the thread's error message (printf-style); returns `code` so that
 * `return ls_err(LS_EIO, "%s: cannot open", path);` reads naturally. */
int ls_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepend "context: " to the current message (the context printf-style):
 * `return ls_err_prefix(rc, "engine %s", name);`.  Use this, never
 * ls_err(rc, "...: %s", ls_errmsg()), which formats the buffer into itself. */
int ls_err_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Name the option a file or name came from in the current message:
 * "PATH: problem" becomes "OPT PATH: problem", any other message
 * "OPT PATH: message" (`--init w.safetensors: tensor conv1.weight has
 * shape ...`).  An empty message stays empty.  Returns code. */
int ls_err_option(int code, const char *opt, const char *path);
/* The last message set on this thread ("" if none). */
const char *ls_errmsg(void);
void ls_err_clear(void);

/* Monotonic wall clock in seconds. */
double ls_now(void);

/* Peak resident set size of this process in bytes (from getrusage). */
size_t ls_peak_rss(void);

/* malloc that records an error message on failure. */
void *ls_malloc(size_t n);
void *ls_calloc(size_t n, size_t size);

/* Write `len` bytes to `path` atomically: to "path.tmp.PID", fsync, rename.
 * Nothing half-written is ever left under `path`; the temporary is removed
 * on every error and (ls_tmp_register) when SIGINT/SIGTERM kill us.  A
 * `path` that exists and is not a regular file is refused (see
 * ls_check_output_path). */
int ls_write_file_atomic(const char *path, const void *data, size_t len);

/* 0 if `path` does not exist or is a regular file; else LS_EIO with
 * "PATH: is a FIFO (...)": a rename over a symlink, FIFO or device would
 * replace that node (as root, --json /dev/null would replace /dev/null), so
 * every output of the tool is refused there rather than written through. */
int ls_check_output_path(const char *path);

/* 0 if the directory `path` would be created in exists; else LS_EIO with
 * "PATH: cannot be written: directory D: No such file or directory" (run
 * before the work whose result goes there, not after it). */
int ls_check_output_dir(const char *path);

/* open(path, O_RDONLY) for an input that must be a regular file: a FIFO or
 * device is refused before anything blocks on it (the open is non-blocking,
 * then checked with fstat).  Returns the descriptor (blocking again), or a
 * negative LS_E* code with "PATH: cannot open: ..." or "PATH: not a regular
 * file (a FIFO)".  `size` (may be NULL) gets the file's size. */
int ls_open_regular(const char *path, size_t *size);
/* The same as a FILE (mode "rb"); NULL with *rc the error. */
FILE *ls_fopen_regular(const char *path, int *rc);

/* 0 if every entry of the comma-separated `list` holds something other
 * than blanks; else LS_EINVAL with "OPT: empty WHAT at position K in
 * 'LIST'" (or "OPT: no WHAT given" for an empty list).  strtok skips empty
 * entries, so `--engines cpu,,cpu` ran as `cpu,cpu` and a typo went
 * unseen: every list the user types is checked with this first. */
int ls_check_list(const char *opt, const char *what, const char *list);

/* 1 when s begins or ends with white space.  strtol and strtod skip leading
 * blanks, so `--epochs ' 5'` ran 5 epochs and `cpu:threads= 2` two threads:
 * a quoting slip read as something else.  Every number the user types
 * (option values, engine knobs) is refused so, naming the option. */
int ls_blank_edges(const char *s);

/* Physical memory of this machine in bytes (0 if unknown). */
size_t ls_phys_mem(void);
/* LS_ENOMEM with "WHAT needs about X GiB, more than the Y GiB of memory of
 * this machine" when `bytes` exceeds physical memory, else 0: a run that
 * cannot fit is refused up front, not half-way by the kernel. */
int ls_check_memory(size_t bytes, const char *what);
/* The bytes free to this user (statvfs: f_bavail blocks) on the file
 * system a new file at path would go to, and that directory's name (dir,
 * cap bytes); -1 when it cannot say (no such directory: the writer says;
 * a file system that reports no size, f_blocks 0: an unlimited tmpfs). */
int ls_disk_free(const char *path, double *avail, char *dir, size_t cap);

/* ---- signals and temporary files --------------------------------------
 * ls_signals_install() sets handlers for SIGINT, SIGTERM and SIGHUP.  cooperative:
 * the first signal only records itself (ls_stop_signal()) and the program
 * stops at its next safe point; a second one, or any when not cooperative,
 * removes every registered temporary file and dies of the signal (so the
 * shell sees 130/143/129).  The first signal sent again by the same
 * process within 0.5 s is not a second one (`timeout` signals the process,
 * then its group).  Only the installing process acts on the registry:
 * a forked engine child never removes its parent's files. */
void ls_signals_install(int cooperative);
int ls_stop_signal(void); /* 0, or the signal received */
/* A temporary file to remove if a signal kills the process (copied; at
 * most 16 at a time, paths under 4096 bytes; extra ones are not tracked). */
void ls_tmp_register(const char *path);
void ls_tmp_unregister(const char *path);

/* A growable string buffer used to build JSON and reports. */
typedef struct {
    char *s;
    size_t len, cap;
    int failed; /* set when an allocation failed; s stays valid */
} lsbuf;
void lsbuf_init(lsbuf *b);
void lsbuf_free(lsbuf *b);
void lsbuf_printf(lsbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lsbuf_put(lsbuf *b, const char *s, size_t n);
/* Append s as a JSON string literal, quotes and escapes included. */
/* Length of the UTF-8 character at p (1 for ASCII), or 0 where p starts
 * none: a stray continuation byte, an overlong or surrogate form, or a
 * character cut short by a truncation (its tail is missing). */
size_t ls_utf8_seq_len(const unsigned char *p);
/* s as a JSON string; bytes that start no whole UTF-8 character are written as \ufffd. */
void lsbuf_json_str(lsbuf *b, const char *s);
/* Append a double as JSON: shortest round-trip text, or null for NaN/Inf. */
void lsbuf_json_num(lsbuf *b, double v);

/* Append a rows x cols matrix of longs as a JSON array of arrays. */
void lsbuf_json_matrix_long(lsbuf *b, const long *m, int rows, int cols);

/* A number for people: "0", "inf", 3 significant digits in [0.01, 100),
 * an integer in [100, 1e5), else %.2e.  NaN prints as `nan_text`. */
const char *ls_fmt_num(char *buf, size_t cap, double v, const char *nan_text);

/* ULP distance between two floats (0 when bitwise equal; +0 and -0 are 0
 * apart; NaN anywhere gives UINT32_MAX). */
uint32_t ls_ulp_dist(float a, float b);

/* crc32 (zlib's) of a whole file: provenance of --init/--order files. */
int ls_file_crc32(const char *path, uint32_t *out);

/* Threads of this process (from /proc/self/task), or 0 if unknown: a fork
 * from a process already running a thread pool would hang its children. */
int ls_thread_count(void);

#define LS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
