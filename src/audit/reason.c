/*
 * reason.c — the short reason (audit/reason.h).
 */
#include "audit/reason.h"

#include <stdio.h>
#include <string.h>

/* s[0..n) without a trailing cut word: the end moved back to a space. */
static size_t word_end(const char *s, size_t n) {
    size_t len = strlen(s);
    if (len <= n) return len;
    size_t e = n;
    while (e > 0 && s[e] != ' ') e--;
    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == ',' || s[e - 1] == ';' || s[e - 1] == '(')) e--;
    return e ? e : n;
}

void headline_short_reason(const char *full, char *buf, size_t cap) {
    if (!cap) return;
    const char *s = full ? full : "";
    /* "cuda: unavailable (X; hint)": the hint is the plain words */
    const char *open = strstr(s, "unavailable (");
    const char *hint = strrchr(s, ';');
    char tmp[1024];
    if (hint && open && hint > open) {
        snprintf(tmp, sizeof tmp, "%s", hint + 1 + (hint[1] == ' '));
    } else if (open) {
        snprintf(tmp, sizeof tmp, "%s", open + strlen("unavailable ("));
    } else {
        snprintf(tmp, sizeof tmp, "%s", s);
    }
    size_t len = strlen(tmp);
    if (len && tmp[len - 1] == ')' && !strchr(tmp, '(')) tmp[--len] = 0;
    size_t room = cap - 1;
    if (len <= room) {
        snprintf(buf, cap, "%s", tmp);
        return;
    }
    /* "..." is 3 characters: the cut text plus it fits in room */
    size_t e = word_end(tmp, room > 3 ? room - 3 : 0);
    snprintf(buf, cap, "%.*s...", (int)e, tmp);
}

