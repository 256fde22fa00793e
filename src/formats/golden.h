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
 * tolerance policies and comparing records (checks/golden_check.h), printing (callers print the strings built here).
 */
#ifndef LS_GOLDEN_H
#define LS_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

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
    GOLDEN_KIND_CK_STEP = 71,     /* per step: the STEP-stage checksum vector, packed (recording.h) */
    GOLDEN_KIND_CK_UPDATE = 72,   /* per step: the UPDATE-stage checksum vector, packed */
    GOLDEN_KIND_CK_EVAL = 73,     /* per evaluation batch (layer = batch index): the EVAL-stage vector */
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
    const golden_record **index; /* the records by (step, layer, kind), then file order: golden_find */
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

/* The exit code for an error code from any golden step: 0 -> GOLDEN_PASS,
 * LS_EMISMATCH -> GOLDEN_REGRESSION, anything else -> GOLDEN_UNUSABLE. */
int golden_verdict(int rc);

#endif
