/* trace_inst.c — one instruction line of an Accel-Sim trace (trace_inst.h):
 *   [line_num] PC mask ndst dst... opcode nsrc src... width [mode addresses] [imm (version 5)]
 * with line_num present when the header says `-enable lineinfo = 1`; addresses (width > 0) in mode 0
 * (one hex address per active lane), 1 (hex base, decimal stride) or 2 (hex base, then a decimal delta
 * from the previous active lane's address for each further active lane).
 *
 * Most lines repeat a PC seen before, and most of those repeat its first line's bytes from the mask to
 * the width: those skip the register and opcode parsing (the tail kept in gs_trpc).
 */
#include <stdlib.h>
#include "trace_inst.h"
#include "trace_lex.h"
#include "trace_pcs.h"

/* register token -> slot (R: 0..255, UR: 256..), predicate (P/UP) -> -2 - index, RZ/URZ/PT -> -1 */
static int reg_slot(gs_trace *t, const char *s, size_t n, int *slot) {
    int ur = 0, pred = 0;
    const char *p = s;
    if (n >= 2 && p[0] == 'U' && p[1] == 'R') { ur = 1; p += 2; }
    else if (n >= 2 && p[0] == 'U' && p[1] == 'P') { pred = 2; p += 2; }
    else if (n >= 1 && p[0] == 'R') p += 1;
    else if (n >= 1 && p[0] == 'P') { pred = 1; p += 1; }
    else return gs_tr_fail(t, "bad register '%.*s'", (int)(n > 20 ? 20 : n), s);
    size_t k = (size_t)(s + n - p);
    if (k == 1 && *p == 'Z' && !pred) { *slot = -1; return 0; }
    if (k == 1 && *p == 'T' && pred) { *slot = -1; return 0; }
    if (k == 0 || k > 3) return gs_tr_fail(t, "bad register '%.*s'", (int)(n > 20 ? 20 : n), s);
    int v = 0;
    for (size_t i = 0; i < k; i++) {
        if (p[i] < '0' || p[i] > '9') return gs_tr_fail(t, "bad register '%.*s'", (int)(n > 20 ? 20 : n), s);
        v = v * 10 + (p[i] - '0');
    }
    if (pred) {
        if (v > 7) return gs_tr_fail(t, "bad predicate register '%.*s'", (int)n, s);
        *slot = -2 - (v + (pred == 2 ? 8 : 0));
        return 0;
    }
    if (ur) {
        if (v >= GS_TR_URSLOTS) return gs_tr_fail(t, "bad uniform register '%.*s'", (int)n, s);
        *slot = (v == 63) ? -1 : GS_TR_RSLOTS + v;      /* URZ */
        return 0;
    }
    if (v > 255) return gs_tr_fail(t, "bad register '%.*s'", (int)n, s);
    *slot = v == 255 ? -1 : v;
    return 0;
}

int gs_tr_parse_inst(gs_trace *t, gs_trblock *b, const char *s, size_t n) {
    gs_trcur c = {s, s + n};
    int64_t v;
    uint64_t pc, mask;
    gs_trparsed q;                                   /* (dst/src beyond ndst/nsrc are never read) */
    q.op = NULL;
    q.opn = 0;
    q.ndst = q.nsrc = q.width = 0;
    if (t->hdr.lineinfo && gs_tr_fast_dec(t, &c, &v, 0, INT64_MAX, "line number")) return -1;
    if (gs_tr_fast_hex(t, &c, &pc, 16, "PC")) return -1;
    gs_tr_skip_ws(&c);
    if (c.e - c.p >= 8 && memcmp(c.p, "ffffffff", 8) == 0 && gs_tr_is_delim(&c, c.p + 8)) {
        mask = 0xffffffffu;                          /* the common full mask */
        c.p += 8;
    } else if (gs_tr_fast_hex(t, &c, &mask, 8, "active mask")) return -1;
    const char *tk;
    size_t tn;
    uint32_t idx = 0;
    uint64_t key = pc >> t->pc_shift;
    int32_t known = pc < GS_TR_MAX_PC && key < t->pcmap_len ? t->pcmap[key] : 0;
    const gs_trpc *kp = known > 0 ? &t->pcs[known - 1] : NULL;
    const char *tail = c.p;                          /* after the mask: registers, opcode and width */
    if (kp && kp->pc == pc && kp->tail && (size_t)(c.e - c.p) >= kp->tail_len &&
        memcmp(c.p, kp->tail, kp->tail_len) == 0 && gs_tr_is_delim(&c, c.p + kp->tail_len)) {
        /* the same bytes as this PC's first line: the same registers, opcode and width */
        c.p += kp->tail_len;
        q.width = kp->tail_width;
        idx = (uint32_t)known - 1;
    } else if (kp && kp->pc == pc) {
        /* a PC seen before: its registers were checked then; count the tokens and check the opcode */
        if (gs_tr_get_dec(t, &c, &v, 0, 8, "destination count")) return -1;
        for (int64_t k = 0; k < v; k++)
            if (!gs_tr_token(&c, &tk, &tn)) return gs_tr_fail(t, "missing destination register %lld of %lld", (long long)k + 1, (long long)v);
        if (!gs_tr_token(&c, &q.op, &q.opn)) return gs_tr_fail(t, "missing opcode");
        if (gs_tr_check_pc(t, (uint32_t)known - 1, pc, &q)) return -1;
        if (gs_tr_get_dec(t, &c, &v, 0, 8, "source count")) return -1;
        for (int64_t j = 0; j < v; j++)
            if (!gs_tr_token(&c, &tk, &tn)) return gs_tr_fail(t, "missing source register %lld of %lld", (long long)j + 1, (long long)v);
        if (gs_tr_get_dec(t, &c, &v, 0, 1024, "memory width")) return -1;
        q.width = (uint32_t)v;
        idx = (uint32_t)known - 1;
    } else {
        if (gs_tr_get_dec(t, &c, &v, 0, 8, "destination count")) return -1;
        q.ndst = (uint32_t)v;
        for (uint32_t k = 0; k < q.ndst; k++) {
            if (!gs_tr_token(&c, &tk, &tn)) return gs_tr_fail(t, "missing destination register %u of %u", k + 1, q.ndst);
            if (reg_slot(t, tk, tn, &q.dst[k])) return -1;
        }
        if (!gs_tr_token(&c, &q.op, &q.opn)) return gs_tr_fail(t, "missing opcode");
        if (q.op[0] < 'A' || q.op[0] > 'Z') return gs_tr_fail(t, "bad opcode '%.*s'", (int)(q.opn > 40 ? 40 : q.opn), q.op);
        if (gs_tr_get_dec(t, &c, &v, 0, 8, "source count")) return -1;
        q.nsrc = (uint32_t)v;
        for (uint32_t k = 0; k < q.nsrc; k++) {
            if (!gs_tr_token(&c, &tk, &tn)) return gs_tr_fail(t, "missing source register %u of %u", k + 1, q.nsrc);
            if (reg_slot(t, tk, tn, &q.src[k])) return -1;
        }
        if (gs_tr_get_dec(t, &c, &v, 0, 1024, "memory width")) return -1;
        q.width = (uint32_t)v;
        if (gs_tr_lookup_pc(t, pc, &q, &idx)) return -1;
    }
    gs_trpc *ip = &t->pcs[idx];
    if (!ip->tail && c.p - tail < 65536) {            /* this PC's first line: keep its tail */
        size_t len = (size_t)(c.p - tail);
        ip->tail = malloc(len + 1);
        if (!ip->tail) return gs_tr_fail(t, "out of memory");
        memcpy(ip->tail, tail, len);
        ip->tail[len] = 0;
        ip->tail_len = (uint16_t)len;
        ip->tail_width = (uint16_t)q.width;
    }
    if (gs_tr_grow((void **)&b->recs, &b->cap_recs, b->nrecs + 1, sizeof *b->recs)) return gs_tr_fail(t, "out of memory");
    gs_trrec *r = &b->recs[b->nrecs];
    r->idx = idx;
    r->mask = (uint32_t)mask;
    r->aoff = UINT64_MAX;
    if (q.width) {
        uint32_t m = (uint32_t)mask, na = (uint32_t)__builtin_popcount(m);
        int64_t mode;
        if (gs_tr_fast_dec(t, &c, &mode, 0, 2, "address compression mode")) return -1;
        uint32_t words = mode == 1 ? 2 : na;      /* mode 1 stays base + stride (expanded at issue) */
        if (gs_tr_grow((void **)&b->addrs, &b->cap_addrs, b->naddrs + words, sizeof *b->addrs)) return gs_tr_fail(t, "out of memory");
        uint64_t *a = b->addrs + b->naddrs;
        if (mode == 0) {
            for (uint32_t k = 0; k < na; k++)
                if (gs_tr_fast_hex(t, &c, &a[k], 16, "address")) return -1;
        } else if (mode == 1) {
            int64_t stride;
            if (gs_tr_fast_hex(t, &c, &a[0], 16, "base address")) return -1;
            if (gs_tr_fast_dec(t, &c, &stride, INT32_MIN, INT32_MAX, "stride")) return -1;
            a[1] = (uint64_t)stride;
        } else {
            uint64_t base;
            if (gs_tr_fast_hex(t, &c, &base, 16, "base address")) return -1;
            if (na) a[0] = base;
            for (uint32_t k = 1; k < na; k++) {
                int64_t d;
                if (gs_tr_fast_dec(t, &c, &d, INT64_MIN + 1, INT64_MAX, "address delta")) return -1;
                a[k] = a[k - 1] + (uint64_t)d;
            }
        }
        r->aoff = b->naddrs | (mode == 1 ? GS_TR_AFFINE : 0);
        b->naddrs += words;
    }
    if (t->hdr.tracer_version >= 5 && gs_tr_token(&c, &tk, &tn)) {
        /* the immediate operand (tracer 5): timing does not need its value, but it must be a number */
        gs_trcur ci = {tk, tk + tn};
        uint64_t imm;
        int64_t dv;
        if (tn > 2 && tk[0] == '0' && (tk[1] == 'x' || tk[1] == 'X')) { if (gs_tr_get_hex(t, &ci, &imm, 16, "immediate")) return -1; }
        else if (gs_tr_get_dec(t, &ci, &dv, INT64_MIN + 1, INT64_MAX, "immediate")) return -1;
    }
    if (gs_tr_token(&c, &tk, &tn)) return gs_tr_fail(t, "unexpected '%.*s' at the end of the instruction line", (int)(tn > 40 ? 40 : tn), tk);
    b->nrecs++;
    t->insts_read++;
    if (t->pcs[idx].unknown) t->unknown_insts++;
    return 0;
}
