/*
 * engine_reference.h — what the reference engine offers beyond engine.h.
 *
 * The engine itself is created through engine_create("reference:...")
 * (engine_reference_create is declared in engine.h).  Here: direct access to
 * the exact mode's MPFR values, for the tests (P vs 2P agreement beyond
 * double, high-precision finite differences) and tools that need more than
 * the double read-out.
 *
 * Not here: anything an fp32 engine could offer.
 */
#ifndef LS_ENGINE_REFERENCE_H
#define LS_ENGINE_REFERENCE_H

#include <stddef.h>

#include <mpfr.h>

#include "engines/engine.h"

/* The MPFR storage of tensor t of a reference engine in exact mode: *n
 * elements (for the current batch), writable in place (values keep the
 * engine's precision; use mpfr_set, not mpfr_set_prec).  NULL when e is
 * not a reference engine in exact mode. */
__mpfr_struct *engine_reference_mpfr(engine *e, tensor_id t, size_t *n);

/* The engine's precision in bits (exact mode), 0 otherwise. */
long engine_reference_prec(engine *e);

#endif
