/* trace_read.c — streaming reader of Accel-Sim kernel traces (.traceg), tracer versions 3, 4 and 5:
 * opening and closing a trace, its thread blocks, and the public interface's view of the last block read.
 *
 * A trace is a header of `-key = value` lines, then thread blocks:
 *   #BEGIN_TB / thread block = x,y,z / (warp = N / insts = M / M instruction lines)* / #END_TB
 * The reader's other modules: trace_lex.c (errors, lines, tokens, numbers), trace_header.c (the header),
 * trace_inst.c (an instruction line), trace_pcs.c (the per-PC table of static instructions).
 *
 * The reader pulls fixed-size chunks from a file descriptor (plain file, or a pipe a decompressor
 * writes), so only one buffer, the per-PC table and the blocks its caller holds are in memory. Every
 * error names file, line and what is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include "trace_header.h"
#include "trace_inst.h"
#include "trace_lex.h"
#include "trace_pcs.h"

int gs_tr_grow_slow(void **p, size_t *cap, size_t need, size_t elem) {
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int close_warp(gs_trace *t, gs_trblock *b, int64_t w) {
    if (w < 0) return 0;
    gs_trwarp *tw = &b->warps[w];
    if (tw->n != tw->expected)
        return gs_tr_fail(t, "warp %lld of thread block (%u,%u,%u) has %u instructions, but its 'insts =' line says %u",
                          (long long)w, b->id[0], b->id[1], b->id[2], tw->n, tw->expected);
    return 0;
}

int gs_trace_read_block(gs_trace *t, gs_trblock *b) {
    if (t->failed) return -1;
    const gs_trace_header *h = &t->hdr;
    uint32_t nthreads = h->block[0] * h->block[1] * h->block[2];
    uint32_t nwarps = (nthreads + 31) / 32;
    const char *s;
    size_t n;
    int r;
    if (!t->in_tb) {
        for (;;) {
            r = gs_tr_next_line(t, &s, &n);
            if (r <= 0) return r;
            gs_trcur c = {s, s + n};
            gs_tr_skip_ws(&c);
            if (c.p == c.e) continue;
            if (gs_tr_starts(c.p, (size_t)(c.e - c.p), "#BEGIN_TB")) break;
            return gs_tr_fail(t, "expected #BEGIN_TB, found '%.*s'", (int)(n > 60 ? 60 : n), s);
        }
    }
    t->in_tb = 0;
    size_t cw = b->cap_warps;
    if (gs_tr_grow((void **)&b->warps, &cw, nwarps, sizeof *b->warps)) return gs_tr_fail(t, "out of memory");
    b->cap_warps = (uint32_t)cw;
    memset(b->warps, 0, nwarps * sizeof *b->warps);
    b->nwarps = nwarps;
    b->nrecs = b->naddrs = 0;
    b->id[0] = b->id[1] = b->id[2] = 0;
    int have_id = 0;
    int64_t w = -1;
    uint64_t start_line = t->line;
    for (;;) {
        r = gs_tr_next_line(t, &s, &n);
        if (r < 0) return -1;
        if (r == 0) {
            t->line++;
            return gs_tr_fail(t, "the file ends inside the thread block that begins on line %llu (truncated?)",
                              (unsigned long long)start_line);
        }
        gs_trcur c = {s, s + n};
        gs_tr_skip_ws(&c);
        size_t len = (size_t)(c.e - c.p);
        if (len == 0) continue;
        if (*c.p == '#') {
            if (gs_tr_starts(c.p, len, "#END_TB")) break;
            if (gs_tr_starts(c.p, len, "#BEGIN_TB")) return gs_tr_fail(t, "#BEGIN_TB inside the thread block that begins on line %llu", (unsigned long long)start_line);
            continue;
        }
        if (gs_tr_starts(c.p, len, "thread block")) {
            size_t vn;
            const char *v = gs_tr_after_eq(c.p, len, &vn);
            char tmp[96];
            long long x, y, z;
            char tail;
            if (!v || vn >= sizeof tmp) return gs_tr_fail(t, "bad thread block line '%.*s'", (int)(n > 60 ? 60 : n), s);
            memcpy(tmp, v, vn);
            tmp[vn] = 0;
            if (sscanf(tmp, "%lld , %lld , %lld %c", &x, &y, &z, &tail) != 3 || x < 0 || y < 0 || z < 0 ||
                (uint64_t)x >= h->grid[0] || (uint64_t)y >= h->grid[1] || (uint64_t)z >= h->grid[2])
                return gs_tr_fail(t, "bad thread block '%s' (grid is (%u,%u,%u))", tmp, h->grid[0], h->grid[1], h->grid[2]);
            b->id[0] = (uint32_t)x; b->id[1] = (uint32_t)y; b->id[2] = (uint32_t)z;
            have_id = 1;
            continue;
        }
        if (gs_tr_starts(c.p, len, "warp") && (len == 4 || c.p[4] == ' ' || c.p[4] == '=')) {
            if (!have_id) return gs_tr_fail(t, "'warp =' before the 'thread block =' line");
            if (close_warp(t, b, w)) return -1;
            size_t vn;
            const char *v = gs_tr_after_eq(c.p, len, &vn);
            gs_trcur cv = {v, v ? v + vn : NULL};
            int64_t x;
            if (!v) return gs_tr_fail(t, "bad warp line '%.*s'", (int)(n > 60 ? 60 : n), s);
            if (gs_tr_get_dec(t, &cv, &x, 0, nwarps - 1, "warp")) return -1;
            if (b->warps[x].seen) return gs_tr_fail(t, "warp %lld appears twice in thread block (%u,%u,%u)", (long long)x, b->id[0], b->id[1], b->id[2]);
            b->warps[x].seen = 1;
            b->warps[x].first = b->nrecs;
            b->warps[x].expected = UINT32_MAX;
            w = x;
            continue;
        }
        if (gs_tr_starts(c.p, len, "insts")) {
            if (w < 0) return gs_tr_fail(t, "'insts =' before a 'warp =' line");
            size_t vn;
            const char *v = gs_tr_after_eq(c.p, len, &vn);
            gs_trcur cv = {v, v ? v + vn : NULL};
            int64_t x;
            if (!v) return gs_tr_fail(t, "bad insts line '%.*s'", (int)(n > 60 ? 60 : n), s);
            if (gs_tr_get_dec(t, &cv, &x, 0, 0xfffffffeLL, "insts")) return -1;
            b->warps[w].expected = (uint32_t)x;
            continue;
        }
        if (w < 0 || b->warps[w].expected == UINT32_MAX)
            return gs_tr_fail(t, "instruction line before the 'warp =' and 'insts =' lines");
        if (b->warps[w].n >= b->warps[w].expected)
            return gs_tr_fail(t, "warp %lld has more instructions than its 'insts = %u' line says", (long long)w, b->warps[w].expected);
        if (gs_tr_parse_inst(t, b, c.p, len)) return -1;
        b->warps[w].n++;
    }
    if (close_warp(t, b, w)) return -1;
    for (uint32_t k = 0; k < nwarps; k++)
        if (!b->warps[k].seen)
            return gs_tr_fail(t, "thread block (%u,%u,%u) has no 'warp = %u' (a block of %u threads has %u warps)",
                              b->id[0], b->id[1], b->id[2], k, nthreads, nwarps);
    t->blocks_read++;
    return 1;
}

void gs_trblock_free(gs_trblock *b) {
    free(b->warps);
    free(b->recs);
    free(b->addrs);
    memset(b, 0, sizeof *b);
}

/* ---- public interface ---- */
gs_trace *gs_trace_open(int fd, const char *name, char *err, uint32_t errlen) {
    gs_trace *t = calloc(1, sizeof *t);
    if (!t) { snprintf(err, errlen, "%s: out of memory", name); return NULL; }
    t->fd = fd;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->cap = GS_TR_BUF_BYTES;
    t->buf = malloc(t->cap);
    if (!t->buf) { gs_trace_close(t); snprintf(err, errlen, "%s: out of memory", name); return NULL; }
    if (gs_tr_parse_header(t)) {
        snprintf(err, errlen, "%s", t->err);
        gs_trace_close(t);
        return NULL;
    }
    t->pc_shift = t->hdr.binary_version >= 70 ? 4 : 3;   /* 16-byte instructions from Volta, 8 before */
    const gs_trace_header *h = &t->hdr;
    t->func.entry_pc = 0;
    t->func.end_pc = 0;
    t->func.shared_bytes = h->shmem;
    t->func.nregs = 1;                                  /* no register values: trace_src.c sizes the scoreboard */
    t->func.npreds = GS_TR_PREDS;
    t->func.regs_per_thread = h->nregs ? h->nregs : 1;
    t->func.is_entry = 1;
    t->prog.funcs = &t->func;
    t->prog.nfuncs = 1;
    t->prog.const_regs = (uint64_t *)t->buf;           /* nconst = 0: never read */
    return t;
}

void gs_trace_close(gs_trace *t) {
    if (!t) return;
    gs_tsrc_free(t->prog.trace);
    gs_tr_pcs_free(t);
    free(t->buf);
    gs_trblock_free(&t->scratch);
    free(t);
}

void gs_trace_get_header(gs_trace *t, gs_trace_header *out) { *out = t->hdr; }
const char *gs_trace_error(gs_trace *t) { return t->err; }
int gs_trace_next_block(gs_trace *t) { return gs_trace_read_block(t, &t->scratch); }
uint64_t gs_trace_insts_read(gs_trace *t) { return t->insts_read; }

uint32_t gs_trace_block_warps(gs_trace *t, uint32_t *id3) {
    if (id3) memcpy(id3, t->scratch.id, sizeof t->scratch.id);
    return t->scratch.nwarps;
}

uint32_t gs_trace_warp_insts(gs_trace *t, uint32_t warp) {
    return warp < t->scratch.nwarps ? t->scratch.warps[warp].n : 0;
}

int gs_trace_get_inst(gs_trace *t, uint32_t warp, uint32_t i, gs_trace_inst *out) {
    const gs_trblock *b = &t->scratch;
    if (warp >= b->nwarps || i >= b->warps[warp].n) return -1;
    const gs_trrec *r = &b->recs[b->warps[warp].first + i];
    const gs_trpc *p = &t->pcs[r->idx];
    memset(out, 0, sizeof *out);
    out->pc = p->pc;
    out->mask = r->mask;
    out->idx = r->idx;
    out->unit = t->prog.x[r->idx].unit;
    out->kind = p->kind;
    out->space = p->space;
    if (r->aoff != UINT64_MAX) {
        out->width = p->width;
        gs_trrec_addrs(b, r, out->addrs);
    }
    return 0;
}

