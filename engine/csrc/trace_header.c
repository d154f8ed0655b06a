/* trace_header.c — the header of an Accel-Sim kernel trace (trace_header.h): `-key = value` lines
 * (kernel name and id, grid and block dimensions, shared memory, registers, binary and tracer versions,
 * base addresses, `-enable lineinfo`), each value checked, into t->hdr.
 */
#include <stdio.h>
#include "trace_header.h"
#include "trace_lex.h"

enum { H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_STREAM, H_SHBASE, H_LOBASE, H_NVBIT,
       H_TRACER, H_LINEINFO, H__COUNT };
static const char *const HKEYS[H__COUNT] = {"kernel name", "kernel id", "grid dim", "block dim", "shmem",
    "nregs", "binary version", "cuda stream id", "shmem base_addr", "local mem base_addr", "nvbit version",
    "accelsim tracer version", "enable lineinfo"};

static int parse_dim3(gs_trace *t, const char *v, size_t n, uint32_t d[3], const char *what) {
    char tmp[96];
    if (n >= sizeof tmp) return gs_tr_fail(t, "bad %s '%.*s'", what, 40, v);
    memcpy(tmp, v, n);
    tmp[n] = 0;
    long long a, b, c;
    char tail;
    if (sscanf(tmp, " ( %lld , %lld , %lld ) %c", &a, &b, &c, &tail) != 3 || a < 1 || b < 1 || c < 1 ||
        a > 0x7fffffffLL || b > 65535 || c > 65535)
        return gs_tr_fail(t, "bad %s '%s' (expected (x,y,z) of positive sizes)", what, tmp);
    d[0] = (uint32_t)a; d[1] = (uint32_t)b; d[2] = (uint32_t)c;
    return 0;
}

static int header_value(gs_trace *t, int key, const char *v, size_t n) {
    gs_trace_header *h = &t->hdr;
    gs_trcur c = {v, v + n};
    int64_t x;
    uint64_t u;
    switch (key) {
    case H_NAME:
        if (n >= sizeof h->kernel_name) n = sizeof h->kernel_name - 1;
        memcpy(h->kernel_name, v, n);
        h->kernel_name[n] = 0;
        return 0;
    case H_NVBIT:
        if (n >= sizeof h->nvbit_version) n = sizeof h->nvbit_version - 1;
        memcpy(h->nvbit_version, v, n);
        h->nvbit_version[n] = 0;
        return 0;
    case H_GRID: return parse_dim3(t, v, n, h->grid, "-grid dim");
    case H_BLOCK: return parse_dim3(t, v, n, h->block, "-block dim");
    case H_SHBASE: if (gs_tr_get_hex(t, &c, &u, 16, "-shmem base_addr")) return -1; h->shmem_base = u; break;
    case H_LOBASE: if (gs_tr_get_hex(t, &c, &u, 16, "-local mem base_addr")) return -1; h->local_base = u; break;
    case H_STREAM: if (gs_tr_get_dec(t, &c, &x, 0, INT64_MAX, "-cuda stream id")) return -1; h->cuda_stream_id = (uint64_t)x; break;
    default: {
        static const int64_t HI[H__COUNT] = {[H_ID] = 0xffffffffLL, [H_SHMEM] = 1 << 30, [H_NREGS] = 255,
                                             [H_BINARY] = 1000, [H_TRACER] = 1000, [H_LINEINFO] = 1};
        if (gs_tr_get_dec(t, &c, &x, 0, HI[key], HKEYS[key])) return -1;
        uint32_t *f[H__COUNT] = {[H_ID] = &h->kernel_id, [H_SHMEM] = &h->shmem, [H_NREGS] = &h->nregs,
                                 [H_BINARY] = &h->binary_version, [H_TRACER] = &h->tracer_version,
                                 [H_LINEINFO] = &h->lineinfo};
        *f[key] = (uint32_t)x;
        if (key == H_TRACER && (x < 3 || x > 5))
            return gs_tr_fail(t, "unsupported accelsim tracer version %u (supported: 3, 4, 5)", (unsigned)x);
    }
    }
    const char *s;
    size_t k;
    if (gs_tr_token(&c, &s, &k)) return gs_tr_fail(t, "unexpected '%.*s' after the value of -%s", (int)(k > 40 ? 40 : k), s, HKEYS[key]);
    return 0;
}

int gs_tr_parse_header(gs_trace *t) {
    const char *s;
    size_t n;
    int r;
    while ((r = gs_tr_next_line(t, &s, &n)) == 1) {
        gs_trcur c = {s, s + n};
        gs_tr_skip_ws(&c);
        if (c.p == c.e) continue;
        if (*c.p == '#') {
            if (gs_tr_starts(c.p, (size_t)(c.e - c.p), "#BEGIN_TB")) { t->in_tb = 1; break; }
            continue;                                  /* the "#traces format" comment */
        }
        if (*c.p != '-') return gs_tr_fail(t, "expected a header line '-key = value' or #BEGIN_TB, found '%.*s'", (int)(n > 60 ? 60 : n), s);
        size_t vn = 0;
        const char *v = gs_tr_after_eq(c.p, (size_t)(c.e - c.p), &vn);
        if (!v) return gs_tr_fail(t, "header line without '=': '%.*s'", (int)(n > 60 ? 60 : n), s);
        const char *k0 = c.p + 1, *k1 = memchr(c.p, '=', (size_t)(c.e - c.p));
        while (k1 > k0 && (k1[-1] == ' ' || k1[-1] == '\t')) k1--;
        int key = -1;
        for (int i = 0; i < H__COUNT; i++)
            if ((size_t)(k1 - k0) == strlen(HKEYS[i]) && memcmp(k0, HKEYS[i], (size_t)(k1 - k0)) == 0) key = i;
        if (key < 0) continue;                          /* keys of later tracers: ignored */
        if (header_value(t, key, v, vn)) return -1;
        t->hdr.seen |= 1u << key;
    }
    if (r < 0) return -1;
    const int need[] = {H_GRID, H_BLOCK, H_BINARY, H_TRACER};
    for (unsigned i = 0; i < sizeof need / sizeof *need; i++)
        if (!(t->hdr.seen & (1u << need[i]))) return gs_tr_fail(t, "header has no '-%s' line", HKEYS[need[i]]);
    uint32_t v = t->hdr.tracer_version;
    if (v < 3 || v > 5) return gs_tr_fail(t, "unsupported accelsim tracer version %u (supported: 3, 4, 5)", v);
    if (!(t->hdr.seen & (1u << H_NREGS))) t->hdr.nregs = 32;
    return 0;
}
