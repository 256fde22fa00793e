/*
 * order.h — the batch order of a run: lockstep's Philox shuffle, or a list
 * of training indices per epoch read from a file (`--order FILE`), so that a
 * PyTorch DataLoader's order can be replayed.
 *
 * Files: a NumPy .npy array of little-endian int64 (or int32), C order,
 * shape (epochs, n) or (n,) for one epoch; or a text file with one epoch per
 * line, indices separated by spaces or commas ('#' starts a comment, blank
 * lines are skipped).  Each epoch must be a permutation of 0..n-1, n being
 * the number of training images the run uses (--limit-train N takes the
 * first N): what a shuffling DataLoader over those images yields.  A wrong
 * count, an index out of range or a repeated index is an error naming the
 * file, the epoch and the index — almost always a sign the order belongs to
 * another data set, slice or indexing base, which would otherwise audit a
 * run nobody made.  A run that needs more epochs than the file holds is an
 * error too; extra epochs are ignored.
 *
 * Not here: making batches from indices (data.h).
 */
#ifndef LS_ORDER_H
#define LS_ORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char path[512];
    size_t epochs, n;
    uint32_t *idx; /* epochs x n */
} batch_order;

/* Parse a .npy image (pure, over a buffer): an integer array of 1 or 2
 * dimensions into rows x cols int64 values (malloc'd in *vals).  LS_EFORMAT
 * with "name: problem" for anything else. */
int npy_parse_i64(const void *buf, size_t len, const char *name, int64_t **vals, size_t *rows, size_t *cols);

/* Parse the text form (pure): every line with a number is one row; rows
 * may differ in length here (the check is order_check's). */
int order_parse_text(const char *text, size_t len, const char *name, int64_t **vals, size_t *rows, size_t *cols);

/* Load and validate a file for a run on n_train images (.npy by its magic,
 * else text). */
int order_load(batch_order *o, const char *path, size_t n_train);
void order_free(batch_order *o);

/* The permutation of one epoch into perm[0..n-1]: from the file when path
 * is not NULL (loaded into *o on first use), else rng_shuffle(seed, epoch).
 * Errors: the file's (see order_load), or an epoch the file lacks. */
int order_fill(batch_order *o, const char *path, uint32_t *perm, size_t n, uint64_t seed, int epoch);

#endif
