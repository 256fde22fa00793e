/*
 * golden.h — golden files (.lsg): pin a run's tensors with their provenance,
 * read them back fully validated, and judge a new run's tensors against them
 * under a tolerance policy.  The byte layout is golden/FORMAT.md.
 *
 * A file is: magic, version, provenance (ordered key/value strings), a zlib
 * stream of records (step, layer, kind, name, shape, crc32, fp32 values) and
 * a footer with the record count and a crc32 of every byte before it.  The
 * writer streams to "PATH.tmp.PID" and renames only on commit, so nothing
 * half-written is ever found under PATH.  The reader checks everything it
 * can (magic, version, length, footer checksum, provenance bounds, the zlib
 * stream's own check, each record's crc32 and shape, the record count); a
 * truncated or corrupt file is LS_EFORMAT with a message naming the file and
 * the problem — it never reads as valid.
 *
 * Verdicts for `lockstep golden check`: GOLDEN_PASS 0, GOLDEN_REGRESSION 1,
 * GOLDEN_UNUSABLE 2 (any error: missing, truncated, corrupt, wrong version,
 * data not matching the recorded digests, a replay whose shapes differ).
 *
 * Not here: running engines, choosing which tensors to record, computing
 * bounds (compare.h), printing (callers print the strings built here).
 */
#ifndef LS_GOLDEN_H
#define LS_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "checks/compare.h"
#include "base/util.h"

#define GOLDEN_VERSION 1
#define GOLDEN_MAX_NDIM 4
#define GOLDEN_MAX_NAME 47   /* record name bytes ("conv1", "fc2.weight") */
#define GOLDEN_MAX_SHOWN 8   /* mismatches kept per record, in index order */

enum { GOLDEN_PASS = 0, GOLDEN_REGRESSION = 1, GOLDEN_UNUSABLE = 2 };

/* Record kinds: 0..7 are engine.h's tensor_kind values (TENSOR_INPUT ..
 * TENSOR_LOSS), stored as they are; 64 and up are golden-only. */
enum {
    GOLDEN_KIND_PREDICTIONS = 64, /* test-set predicted class per image, as fp32 integers */
    GOLDEN_KIND_LOGITS = 65,      /* test-set logits (n, classes) */
    /* recording-only kinds (a recording: provenance "kind" = "recording";
     * recording.h says what each holds) */
    GOLDEN_KIND_STEP = 66,        /* per step: loss, parameter norm and digest, batch digest */
    GOLDEN_KIND_LABELS = 67,      /* a batch's labels, as fp32 integers */
    GOLDEN_KIND_BATCH_INDEX = 68, /* a batch's training-set indices, as fp32 integers */
    GOLDEN_KIND_EPOCH = 69,       /* per epoch: train seconds, images, test accuracy and loss */
    GOLDEN_KIND_TIMING = 70,      /* per-layer timing of the whole run (engine_timing) */
};
/* "act", "grads", ..., "predictions"; "kind<N>" for an unknown code
 * (written into a caller buffer of at least 16 bytes). */
const char *golden_kind_name(unsigned kind, char buf[16]);

/* ---- provenance: an ordered list of unique key/value strings ----------
 * Keys: 1..255 bytes of [A-Za-z0-9_.-]; values: any text without NUL,
 * < 16 MiB.  Keys the auto policy reads are listed in golden_bits_keys
 * (golden.c); by convention:
 *   lockstep.version lockstep.commit compiler cflags
 *   lib.<name> (lib.onednn, lib.mpfr, lib.zlib, lib.cudnn, lib.cublas, lib.cudart, lib.glibc)
 *   cpu.model cpu.isa threads engine.spec engine.describe engine.algorithms
 *   algo.<layer>.<dir> model.name model.spec model.hash seed batch lr steps
 *   data.<file>.crc32 data.<file>.bytes */
typedef struct {
    size_t n, cap;
    char **key, **val;
} golden_prov;

void golden_prov_init(golden_prov *p);
void golden_prov_free(golden_prov *p);
/* Add, or replace the value of an existing key.  LS_EINVAL for a bad key. */
int golden_prov_set(golden_prov *p, const char *key, const char *val);
/* The value, or NULL when absent. */
const char *golden_prov_get(const golden_prov *p, const char *key);

/* ---- writing ---------------------------------------------------------- */
typedef struct golden_writer golden_writer;

/* Create "path.tmp.PID" and write the header and provenance.  Errors:
 * LS_EINVAL (bad provenance), LS_EIO (cannot create), LS_ELIB (zlib). */
int golden_writer_open(golden_writer **out, const char *path, const golden_prov *prov);
/* Append one record: count = prod(shape[0..ndim-1]) values (ndim 0: one).
 * layer -1 means "the whole network" (params, loss, predictions).  name may
 * be NULL or "" (max GOLDEN_MAX_NAME bytes).  After an error the writer is
 * failed and close() discards the file. */
int golden_writer_add(golden_writer *w, uint32_t step, int32_t layer, unsigned kind, const char *name,
                      int ndim, const size_t *shape, const float *values);
/* commit = 1: finish the stream, write the footer, fsync, rename to path.
 * commit = 0 (or any earlier error): remove the temporary file.  Always
 * frees w; returns the first error met, 0 when committed. */
int golden_writer_close(golden_writer *w, int commit);
/* The temporary file's name ("path.tmp.PID"), e.g. for a signal handler
 * that must remove it when the run is interrupted. */
const char *golden_writer_tmp_path(const golden_writer *w);

/* ---- reading ---------------------------------------------------------- */
typedef struct {
    uint32_t step;
    int32_t layer;
    unsigned kind;
    char name[GOLDEN_MAX_NAME + 1];
    int ndim;
    size_t shape[GOLDEN_MAX_NDIM];
    size_t count;
    uint32_t crc;        /* crc32 of the little-endian value bytes, as stored (verified) */
    const float *values; /* count values, owned by the golden_file */
} golden_record;

typedef struct {
    char path[512];
    uint32_t version;
    golden_prov prov;
    size_t n_records;
    golden_record *records; /* in file order */
    float *values;          /* one buffer behind every record's values */
    size_t file_bytes, raw_bytes;
} golden_file;

/* Read and validate the whole file.  LS_EIO: cannot open/read.  LS_EFORMAT:
 * anything wrong with the bytes (message: "PATH: problem").  LS_ENOMEM. */
int golden_read(golden_file **out, const char *path);
void golden_file_free(golden_file *gf);
const char *golden_provenance_get(const golden_file *gf, const char *key);
/* The first record with this (step, layer, kind), or NULL. */
const golden_record *golden_find(const golden_file *gf, uint32_t step, int32_t layer, unsigned kind);
/* "step 3 layer 2 (conv2) act" — for messages. */
void golden_record_label(const golden_record *r, char *buf, size_t len);

/* ---- policies --------------------------------------------------------- */
typedef enum {
    GOLDEN_POLICY_AUTO,
    GOLDEN_POLICY_EXACT, /* bitwise (NaN = NaN, +0 != -0) */
    GOLDEN_POLICY_ULP,   /* fp32 steps <= ulp */
    GOLDEN_POLICY_BOUND, /* |new - golden| <= bound_scale * bound[i]; tensors without a bound: steps <= ulp */
} golden_policy_kind;

typedef struct {
    golden_policy_kind kind;
    uint32_t ulp;       /* ULP: the tolerance; BOUND: the fallback for tensors without a bound */
    double bound_scale; /* BOUND: 2 — golden and new are each within bound of the exact value */
} golden_policy;

/* "auto", "exact", "ulp:N" (N a decimal count), "bound" or "bound:N" (N:
 * ULP fallback for tensors passed without a bound; default 0 = bitwise).
 * LS_EINVAL with a message otherwise. */
int golden_policy_parse(golden_policy *p, const char *text);
/* "exact", "ulp:4", "bound", "bound:2", "auto" into buf. */
const char *golden_policy_str(const golden_policy *p, char *buf, size_t len);

/* Decide the policy to use.  A policy other than auto is used as asked
 * ("policy exact (asked)").  auto: exact when every bit-relevant key
 * (lib.*, algo.*, cpu.isa, threads, engine.spec, engine.algorithms,
 * engine.math) has the same value in the recorded and the current
 * provenance (absent on both sides counts as equal), else bound, and the
 * reason lists every difference:
 *   "auto -> bound: oneDNN version differs: 2.6.3 vs 3.0; threads differs: 2 vs 1"
 * reason is always written (NUL-terminated, truncated to len). */
void golden_policy_resolve(golden_policy *out, const golden_policy *asked, const golden_prov *recorded,
                           const golden_prov *current, char *reason, size_t len);

/* ---- comparing one record --------------------------------------------- */
typedef struct {
    size_t index;
    float golden, current;
    double ulp; /* compare_ulp_f32(golden, current): inf for a NaN/Inf mismatch */
    double bound; /* the tolerance bound at this index (BOUND policy), else 0 */
} golden_mismatch;

typedef struct {
    int pass;
    size_t n_fail;                           /* elements outside the tolerance */
    size_t n_shown;                          /* first min(n_fail, GOLDEN_MAX_SHOWN) */
    golden_mismatch shown[GOLDEN_MAX_SHOWN]; /* in index order */
    compare_stats stats;                     /* current vs golden (as reference), with the bound if any */
} golden_result;

/* Compare `current` (n values) with rec under a resolved policy (not AUTO).
 * bound: per-element bounds (n values) or NULL; used only by BOUND.
 * Returns 0 (see res->pass) or LS_EINVAL when n differs from rec->count or
 * the policy is AUTO (message names the record). */
int golden_compare_record(golden_result *res, const golden_record *rec, const float *current, size_t n,
                          const golden_policy *pol, const double *bound);

/* "step 3 layer 2 (conv2) act [1234]: golden 0.123456791 (0x3dfcd6ea), new 0.123456784 (0x3dfcd6e9), 1 ULP"
 * appended to b (no newline). */
void golden_mismatch_str(lsbuf *b, const golden_record *rec, const golden_mismatch *m);

/* The exit code for an error code from any golden step: 0 -> GOLDEN_PASS,
 * LS_EMISMATCH -> GOLDEN_REGRESSION, anything else -> GOLDEN_UNUSABLE. */
int golden_verdict(int rc);

#endif
