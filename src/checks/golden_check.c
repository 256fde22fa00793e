/*
 * golden_check.c — golden tolerance policies and the comparison of one
 * record (checks/golden_check.h).
 */
#include "checks/golden_check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- policies ------------------------------------------------------------ */

/* Parse a whole decimal uint32 ("0".."4294967295"), nothing else. */
static int parse_u32(const char *s, uint32_t *out) {
    if (!*s) return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX) return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int golden_policy_parse(golden_policy *p, const char *text) {
    memset(p, 0, sizeof *p);
    p->bound_scale = 2.0;
    if (!text) text = "";
    if (strcmp(text, "auto") == 0) {
        p->kind = GOLDEN_POLICY_AUTO;
        return 0;
    }
    if (strcmp(text, "exact") == 0) {
        p->kind = GOLDEN_POLICY_EXACT;
        return 0;
    }
    if (strncmp(text, "ulp:", 4) == 0 && parse_u32(text + 4, &p->ulp) == 0) {
        p->kind = GOLDEN_POLICY_ULP;
        return 0;
    }
    if (strcmp(text, "bound") == 0) {
        p->kind = GOLDEN_POLICY_BOUND;
        return 0;
    }
    if (strncmp(text, "bound:", 6) == 0 && parse_u32(text + 6, &p->ulp) == 0) {
        p->kind = GOLDEN_POLICY_BOUND;
        return 0;
    }
    return ls_err(LS_EINVAL, "--policy \"%s\": want auto, exact, ulp:N, bound or bound:N (N a whole number of ULPs)",
                  text);
}

const char *golden_policy_str(const golden_policy *p, char *buf, size_t len) {
    switch (p->kind) {
    case GOLDEN_POLICY_AUTO: snprintf(buf, len, "auto"); break;
    case GOLDEN_POLICY_EXACT: snprintf(buf, len, "exact"); break;
    case GOLDEN_POLICY_ULP: snprintf(buf, len, "ulp:%u", (unsigned)p->ulp); break;
    case GOLDEN_POLICY_BOUND:
        if (p->ulp)
            snprintf(buf, len, "bound:%u", (unsigned)p->ulp);
        else
            snprintf(buf, len, "bound");
        break;
    }
    return buf;
}

/* Keys whose values change the bits an engine produces, with their labels. */
static const struct {
    const char *key, *label;
} bits_keys[] = {
    {"lib.onednn", "oneDNN version"}, {"lib.mpfr", "MPFR version"},
    {"lib.gmp", "GMP version"},       {"lib.zlib", "zlib version"},
    {"lib.cudnn", "cuDNN version"},   {"lib.cublas", "cuBLAS version"},
    {"lib.cudart", "CUDA runtime version"}, {"lib.glibc", "glibc version"},
    {"cpu.isa", "ISA"},               {"threads", "threads"},
    {"engine.spec", "engine spec"},   {"engine.algorithms", "algorithms"},
    {"engine.math", "math mode"},
};

static int is_bits_key(const char *key) {
    if (strncmp(key, "lib.", 4) == 0 || strncmp(key, "algo.", 5) == 0) return 1;
    for (size_t i = 0; i < LS_ARRAY_LEN(bits_keys); i++)
        if (strcmp(key, bits_keys[i].key) == 0) return 1;
    return 0;
}

static const char *key_label(const char *key) {
    for (size_t i = 0; i < LS_ARRAY_LEN(bits_keys); i++)
        if (strcmp(key, bits_keys[i].key) == 0) return bits_keys[i].label;
    return key;
}

/* one "label differs: a vs b" clause; long values are cut to 60 bytes,
 * from a little before where they first differ: two 300-byte algorithm
 * lists that differ at conv2 read "conv1.fwd=...;conv1.bwd_weigh... vs
 * conv1.fwd=...;conv1.bwd_weigh...", the same text twice */
static void diff_clause(lsbuf *b, const char *key, const char *was, const char *now) {
    size_t skip = 0;
    if (was && now && (strlen(was) > 60 || strlen(now) > 60)) {
        size_t p = 0;
        while (was[p] && was[p] == now[p]) p++;
        skip = p > 20 ? p - 20 : 0;
    }
    const char *a = was ? was + skip : "(absent)", *c = now ? now + skip : "(absent)";
    const char *lead = skip ? "..." : "";
    lsbuf_printf(b, "%s%s differs: %s%.60s%s vs %s%.60s%s", b->len ? "; " : "", key_label(key), lead, a,
                 strlen(a) > 60 ? "..." : "", lead, c, strlen(c) > 60 ? "..." : "");
}

void golden_policy_resolve(golden_policy *out, const golden_policy *asked, const golden_prov *recorded,
                           const golden_prov *current, char *reason, size_t len) {
    char pb[32];
    *out = *asked;
    if (asked->kind != GOLDEN_POLICY_AUTO) {
        snprintf(reason, len, "policy %s (asked)", golden_policy_str(asked, pb, sizeof pb));
        return;
    }
    lsbuf d;
    lsbuf_init(&d);
    for (size_t i = 0; i < recorded->n; i++) {
        const char *k = recorded->key[i];
        if (!is_bits_key(k)) continue;
        const char *now = golden_prov_get(current, k);
        if (!now || strcmp(now, recorded->val[i]) != 0) diff_clause(&d, k, recorded->val[i], now);
    }
    for (size_t i = 0; i < current->n; i++) {
        const char *k = current->key[i];
        if (is_bits_key(k) && !golden_prov_get(recorded, k)) diff_clause(&d, k, NULL, current->val[i]);
    }
    if (d.len == 0) {
        out->kind = GOLDEN_POLICY_EXACT;
        snprintf(reason, len, "auto → exact: library versions, ISA, threads, algorithms and engine spec all match");
    } else {
        out->kind = GOLDEN_POLICY_BOUND;
        snprintf(reason, len, "auto → bound: %s", d.failed ? "(out of memory listing differences)" : d.s);
    }
    lsbuf_free(&d);
}

/* ---- comparing ------------------------------------------------------------ */

static int same_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y || (isnan(a) && isnan(b));
}

int golden_compare_record(golden_result *res, const golden_record *rec, const float *current, size_t n,
                          const golden_policy *pol, const double *bound) {
    char lab[128];
    memset(res, 0, sizeof *res);
    if (pol->kind == GOLDEN_POLICY_AUTO)
        return ls_err(LS_EINVAL, "golden_compare_record: resolve the auto policy first (golden_policy_resolve)");
    if (n != rec->count) {
        golden_record_label(rec, lab, sizeof lab);
        return ls_err(LS_EINVAL, "%s: the replay gave %zu values, the golden file has %zu", lab, n, rec->count);
    }
    const double *b = pol->kind == GOLDEN_POLICY_BOUND ? bound : NULL;
    compare_f32(&res->stats, rec->values, current, n, b);
    for (size_t i = 0; i < n; i++) {
        float g = rec->values[i], c = current[i];
        int ok;
        if (same_bits(g, c)) {
            ok = 1;
        } else if (pol->kind == GOLDEN_POLICY_EXACT) {
            ok = 0;
        } else if (b) {
            /* |c - g| in double is exact-enough: one rounding at 2^-53 */
            ok = isfinite(g) && isfinite(c) && fabs((double)c - (double)g) <= pol->bound_scale * b[i];
        } else {
            ok = compare_ulp_f32(g, c) <= (double)pol->ulp;
        }
        if (ok) continue;
        if (res->n_shown < GOLDEN_MAX_SHOWN) {
            golden_mismatch *m = &res->shown[res->n_shown++];
            m->index = i;
            m->golden = g;
            m->current = c;
            m->ulp = compare_ulp_f32(g, c);
            m->bound = b ? pol->bound_scale * b[i] : 0.0;
            m->bounded = b != NULL;
            m->by_ulp = !b && pol->kind != GOLDEN_POLICY_EXACT;
        }
        res->n_fail++;
    }
    res->pass = res->n_fail == 0;
    return 0;
}

static unsigned f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (unsigned)u;
}

void golden_mismatch_str(lsbuf *b, const golden_record *rec, const golden_mismatch *m) {
    char lab[128];
    golden_record_label(rec, lab, sizeof lab);
    lsbuf_printf(b, "%s ", lab);
    /* parameters, their gradients and Adam's state are (out, in, ...);
     * everything else the golden file holds is (n, ...) */
    int is_param = rec->kind == TENSOR_PARAMS || rec->kind == TENSOR_GRADS || rec->kind == TENSOR_ADAM_M ||
                   rec->kind == TENSOR_ADAM_V;
    compare_coords_str(b, m->index, rec->ndim, rec->shape, compare_dim_names(rec->ndim, is_param));
    lsbuf_printf(b, ": ");
    double d = fabs((double)m->current - m->golden);
    int finite = isfinite(m->golden) && isfinite(m->current);
    if (finite && m->golden == 0 && m->current == 0) {
        /* only the sign of zero differs (exact policy): no ULP, no |diff| */
        lsbuf_printf(b, "golden %g (0x%08x), new %g (0x%08x), +0 vs -0", (double)m->golden,
                     f32_bits(m->golden), (double)m->current, f32_bits(m->current));
    } else if (finite && !m->by_ulp && (m->golden == 0 || m->current == 0 || signbit(m->golden) != signbit(m->current))) {
        lsbuf_printf(b, "golden %.9g (0x%08x), new %.9g (0x%08x), ", (double)m->golden, f32_bits(m->golden),
                     (double)m->current, f32_bits(m->current));
        if (m->bounded) lsbuf_printf(b, "across zero (no ULP count)"); /* |diff| follows with the tolerance */
        else lsbuf_printf(b, "|diff| %.3g, across zero (no ULP count)", d);
    } else {
        compare_pair_str(b, "golden", (double)m->golden, 1, "new", m->current);
    }
    if (m->bounded && finite) {
        if (m->bound > 0)
            lsbuf_printf(b, " (|diff| %.3g > tolerance %.3g)", d, m->bound);
        else
            lsbuf_printf(b, " (|diff| %.3g > tolerance 0: fp32 gives this value exactly)", d);
    }
}
