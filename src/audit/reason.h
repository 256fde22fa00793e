/*
 * audit/reason.h — an engine's reason for not running, shortened for the
 * first screen (the whole reason stays in run.json).
 */
#ifndef LS_REASON_H
#define LS_REASON_H

#include <stddef.h>

/* The reason an engine did not run, in at most cap-1 (<= 100) characters,
 * cut at a word, never mid-word: the plain-words hint when the full reason
 * has one ("...; no NVIDIA driver is loaded ..."), else its start. */
void headline_short_reason(const char *full, char *buf, size_t cap);

#endif
