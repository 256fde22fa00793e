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
 * Nothing half-written is ever left under `path`. */
int ls_write_file_atomic(const char *path, const void *data, size_t len);

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

#define LS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
