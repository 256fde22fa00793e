/*
 * cpu_pool.h — the cpu engine's own 2x2/stride-2 max-pool, forward and
 * backward, with the ReLU before it folded in.
 *
 * Why: ReLU and max-pool move data and do no arithmetic, and on a 2-core
 * machine with ~15 GB/s of memory bandwidth oneDNN's separate primitives
 * spent ~7 ms of a ~21 ms SmallCNN step reading and writing the 28x28
 * activations nine times.  Folded, the pair reads the convolution's output
 * once forward and writes its gradient once backward.
 *
 * Bits: every result is bit-for-bit what oneDNN 2.6 computes with
 * separate eltwise_relu (alpha 0) and pooling_max primitives, on every ISA
 * (measured with jit:avx512_core, jit:avx2, jit:sse41 and ref:any; the
 * cpu engine's tests compare the fused and separate paths bit for bit):
 *   relu(x)        = x > 0 ? x : +0          (NaN -> +0, -0 -> +0)
 *   relu'(x, g)    = x <= 0 ? g * 0 : g      (NaN passes g; the zero keeps g's sign)
 *   maxpool        = start from -FLT_MAX with index 0, take a value only
 *                    when it is greater: the first maximum wins, NaN never
 *   maxpool'       = +0 everywhere, +0 + g at the arg-max (so -0 -> +0:
 *                    oneDNN adds into a zeroed buffer)
 * Nothing here rounds: max, select, adding +0 and multiplying by 0 or 1
 * are exact.
 *
 * Layout: nCHW{blk}c with blk 1 (plain NCHW), 8 or 16; channels padded to
 * a whole block are processed like the rest (oneDNN keeps them zero, and
 * zero stays zero through both passes).  An odd last row or column is
 * never read (floor mode) and gets a +0 gradient.
 *
 * The arg-max index is ours, one byte per output element: bits 0-1 the
 * window position (row-major), bit 2 whether the ReLU's input there was
 * > 0 or NaN (so the backward pass needs neither the input nor the ReLU's
 * output).  oneDNN's workspace format is its own business and not used.
 */
#ifndef LS_CPU_POOL_H
#define LS_CPU_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t n, cb, blk; /* batch, channel blocks, channels per block */
    size_t h, w;       /* input rows and columns */
    size_t oh, ow;     /* output: h / 2, w / 2 */
} cpu_pool_geom;

#define CPU_POOL_POS_MASK 3u
#define CPU_POOL_RELU_PASS 4u /* relu'(x, g) passes g at this arg-max */

/* out (n, cb, oh, ow, blk), idx same shape; in (n, cb, h, w, blk).
 * relu != 0: pool relu(in), and record the ReLU's pass bit from in.
 * relu == 0: pool in as it is (the bit is left clear). */
void cpu_pool_fwd(float *out, uint8_t *idx, const float *in, int relu, const cpu_pool_geom *g);

/* din (n, cb, h, w, blk) = max-pool backward of dout through idx; with
 * relu != 0, also ReLU backward at the same time (idx must come from a
 * relu != 0 forward of the ReLU input the caller means). */
void cpu_pool_bwd(float *din, const float *dout, const uint8_t *idx, int relu, const cpu_pool_geom *g);

/* The instruction set the vector paths use here: "avx512f", "avx2" or
 * "scalar" (for describe(); the bits do not depend on it). */
const char *cpu_pool_isa(void);

/* Tests: run the "avx512f", "avx2" or "scalar" path from now on.  -1 when
 * this CPU (or build) has no such path. */
int cpu_pool_force_isa(const char *name);

#endif
