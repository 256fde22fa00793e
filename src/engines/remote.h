/*
 * remote.h — an engine that runs in its own child process.
 *
 * Some engine knobs are process-global: oneDNN's maximum ISA can be set
 * only before its first primitive is created, OpenMP's thread count is per
 * process, and CUDA must not be initialised before a fork.  So the lockstep
 * driver runs every engine variant in a child process of its own, created
 * by fork() before the parent touches oneDNN, MPFR threads or CUDA, and
 * reaches it through this proxy, which implements the engine table:
 *
 *   parent (driver)                      child (one engine variant)
 *   engine_forward_layer(proxy, l) --->  socketpair: {op, layer, ...}
 *                                        engine_forward_layer(real, l)
 *                                  <---  {rc, seconds in the call, message}
 *   tensors, the batch, describe()  <->  one MAP_SHARED region per child
 *
 * The child times each real call itself (the proxy sets timed_inside), so
 * layer timings exclude the round trip; remote_fetch_stats() copies the
 * child's timing table and peak RSS to the parent.  A child that dies is
 * reported ("engine X: child process died (signal 11, Segmentation fault)")
 * and never hangs or kills the parent: every read is checked and EOF is an
 * error, writes use MSG_NOSIGNAL (no SIGPIPE), and a call with no reply
 * within the timeout (remote_set_timeout) kills the child.
 *
 * Not here: scheduling (the driver calls engines one at a time, so timings
 * do not compete for the two cores; only the every-step checksums, which
 * are not timed as the engine's, run in all children at once).
 */
#ifndef LS_REMOTE_H
#define LS_REMOTE_H

#include "engines/engine.h"

/* Fork a child that creates engine `spec` and serves it.  On failure the
 * child's message is returned (e.g. "cuda: unavailable (...)", LS_EUNAVAIL)
 * and no engine is left behind. */
int remote_engine_create(engine **out, const char *spec, const model *m, const engine_opts *o);

/* The checksums call (engine_checksums) in two halves, so that several
 * children compute their vectors at once: send returns 1 when the request
 * went to a child, 0 for an engine that is not a remote proxy (call
 * engine_checksums), < 0 on error; recv waits for that child's vector
 * (ck_layout_make(m, batch).total doubles).  Nothing else may be called on
 * the engine in between. */
int remote_checksums_send(engine *e, int stage);
int remote_checksums_recv(engine *e, double *out);

/* Copy the child's timing table and peak RSS (bytes) into the proxy. */
int remote_fetch_stats(engine *e, size_t *peak_rss);

/* NULL while the child serves; once a call found it gone, why ("signal 9,
 * Killed", "exit status 1", "no reply within 600 s ...; killed it").  Also
 * NULL for an engine that is not a remote proxy. */
const char *remote_engine_dead(const engine *e);

/* The child's process id (for tests that kill it), or -1. */
long remote_engine_pid(const engine *e);

/* A call with no reply within `seconds` (a stopped or hung child) kills
 * the child and fails with a message; 0 means wait forever.  Process-wide,
 * default REMOTE_DEFAULT_TIMEOUT_S; set before the run. */
#define REMOTE_DEFAULT_TIMEOUT_S 600.0
void remote_set_timeout(double seconds);

#endif
