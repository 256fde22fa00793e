/*
 * data.h — IDX image/label sets (MNIST, FashionMNIST), gzip or plain.
 *
 * Files are read through zlib's gz* interface, which reads plain files
 * unchanged, and fully validated: magic 0x00000803 (images, u8, 3 dims) and
 * 0x00000801 (labels, u8, 1 dim), big-endian dimensions, exact byte count
 * (a short or over-long file is an error), equal image and label counts,
 * every label below the class count.  Images stay bytes; conversion to fp32
 * happens per batch as x / 255.0f, one value everywhere.
 *
 * Not here: augmentation, normalisation (the write-ups use none).
 */
#ifndef LS_DATA_H
#define LS_DATA_H

#include <stddef.h>
#include <stdint.h>

#define DATA_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"

typedef struct {
    size_t n;
    int rows, cols;
    uint8_t *images; /* n * rows * cols (read-only when mapped) */
    uint8_t *labels; /* n */
    void *images_map, *labels_map; /* the cache's mapped copies they lie in (data.c), or NULL: malloc'd */
    size_t images_map_len, labels_map_len;
    char images_path[512], labels_path[512];
    uint32_t images_crc, labels_crc; /* crc32 of the decompressed files */
    int normalize;                   /* --normalize: data_make_batch yields (x/255 - mean) / std */
    float norm_mean, norm_std;
} idx_set;

typedef struct {
    idx_set train, test;
    char dir[512];
} dataset;

/* Load one images/labels pair.  Errors name the file and the problem. */
int idx_load(idx_set *s, const char *images_path, const char *labels_path, int n_classes);
/* The same, refusing images that are not rows x cols before allocating
 * anything for them (rows 0: any shape). */
int idx_load_shape(idx_set *s, const char *images_path, const char *labels_path, int n_classes, int rows, int cols);
void idx_free(idx_set *s);
/* Which reader read the last file this process loaded successfully:
 * libdeflate (a well-formed single-member gzip file), zlib (any other gzip
 * file: several members, junk after the last), plain, or the cache (the
 * checked decompressed copy of a well-formed gzip file of at least 1 MiB,
 * mapped: $LOCKSTEP_CACHE, else $XDG_CACHE_HOME/lockstep, else
 * ~/.cache/lockstep; LOCKSTEP_CACHE=off for none); for tests. */
enum { IDX_READER_NONE = 0, IDX_READER_LIBDEFLATE, IDX_READER_ZLIB, IDX_READER_PLAIN, IDX_READER_CACHE };
int idx_last_reader(void);

/* Load DIR/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] (the .gz is
 * tried first, then the plain name). */
int dataset_load(dataset *d, const char *dir, int n_classes);
/* The same, for a model whose input is rows x cols (0: any). */
int dataset_load_shape(dataset *d, const char *dir, int n_classes, int rows, int cols);
/* --normalize MEAN,STD on both sets: torchvision's Normalize after
 * ToTensor, in fp32 as torchvision computes it: x = float32(b) / 255, then
 * (x - mean) / std, mean and std rounded to fp32, each operation rounded
 * once (sub_ then div_). */
void dataset_set_normalize(dataset *d, float mean, float std);
void dataset_free(dataset *d);
/* The data's classes as its labels say (IDX has no class count): one more
 * than the largest label of the training and the test files, all of them
 * (whatever --limit-train reads); 0 for no labels. */
int dataset_n_classes(const dataset *d);

/* Convert samples idx[0..n-1] of `s` to fp32 (x / 255.0f) into x, labels
 * into y.  idx NULL means samples first..first+n-1. */
void data_make_batch(const idx_set *s, const uint32_t *idx, size_t first, size_t n,
                     float *x, int32_t *y);

#endif
