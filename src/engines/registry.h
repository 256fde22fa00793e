/*
 * registry.h — engines by name: the one place that knows every engine
 * (cpu, cuda, reference, recorded).  Everything else reaches an engine
 * through engine.h's table and wrappers only.
 */
#ifndef LS_REGISTRY_H
#define LS_REGISTRY_H

#include "engines/engine.h"

/* Create an engine from its spec text.  Unknown names or knobs, and engines
 * that cannot run here, fail with a message (LS_EUNAVAIL: "cuda:
 * unavailable (reason)").  The model must outlive the engine. */
int engine_create(engine **out, const char *spec_text, const model *m, const engine_opts *o);

/* The spec names a known engine, with knobs it takes and values they
 * know: what can be checked where the engine does not run (a sweep's
 * plan, submitted from a node that has neither the task's GPU nor its
 * ISA).  A cuda spec's values by its host-side parser, a cpu spec's by
 * names and ranges (whether the node reaches the ISA a value asks for is
 * checked when the engine is made, there); a reference or recording is
 * not looked into. */
int engine_spec_known(const engine_spec *s);

/* Constructors, one per engine (engine_create dispatches on the name). */
int engine_cpu_create(engine *e, const engine_spec *s);
/* The knobs engine_cpu_create takes, and their values (names and ranges:
 * nothing is made or applied), checked as it checks them. */
int engine_cpu_knobs_check(const engine_spec *s);
int engine_cuda_create(engine *e, const engine_spec *s);
int engine_reference_create(engine *e, const engine_spec *s);
/* "recorded:PATH" (the whole rest of the spec is the path, no knobs): a
 * recording played back (engine_recorded.c, recording.h) */
int engine_recorded_create(engine *e, const engine_spec *s);

#endif
