/* exec_move.c — mov in all its forms: register, immediate, special register, predicate, vector pack
 * ({a,b} -> d) and unpack (d -> {a,b}). */
#include "exec.h"

GS_HANDLER(h_mov) {
    (void)c;
    uint64_t mask = gs_width_mask(gs_type_bits(x->type));
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = a[l] & mask);
    return GS_X_NEXT;
}

/* Every kernel reads %tid and %ctaid/%ntid first thing, so this is one of the most issued handlers of a
 * short-CTA kernel: tid.x/y/z are copied from the warp's per-lane table, the registers that are the same
 * on every lane (all but the lane ids and lane masks) are read once; the rest per lane. */
GS_HANDLER(h_mov_sreg) {
    uint64_t mask = gs_width_mask(gs_type_bits(x->type));
    uint64_t *d = gs_opr(w, x, 0);
    int sr = (int)x->ops[1];
    switch (sr) {
    case GS_SR_TID_X: case GS_SR_TID_Y: case GS_SR_TID_Z: {
        const uint32_t *t = &w->tid[(sr - GS_SR_TID_X) * GS_WARP];
        GS_LANES(m, l, d[l] = t[l] & mask);
        break;
    }
    case GS_SR_LANEID: case GS_SR_LANEMASK_EQ: case GS_SR_LANEMASK_LT: case GS_SR_LANEMASK_LE:
    case GS_SR_LANEMASK_GT: case GS_SR_LANEMASK_GE:
        GS_LANES(m, l, d[l] = gs_sreg_read(c, w, sr, l) & mask);
        break;
    default: {
        uint64_t v = gs_sreg_read(c, w, sr, 0) & mask;
        GS_LANES(m, l, d[l] = v);
    }
    }
    return GS_X_NEXT;
}

GS_HANDLER(h_mov_pred) {
    (void)c;
    gs_pred_write(w, x->ops[0], gs_pred(w, x->ops[1]), m);
    return GS_X_NEXT;
}

/* mov.pred p, imm: all lanes true for a nonzero immediate (Triton writes mov.pred %p, -1) */
GS_HANDLER(h_mov_pred_imm) {
    (void)c;
    gs_pred_write(w, x->ops[0], w->R[x->ops[1]] ? GS_FULL : 0, m);
    return GS_X_NEXT;
}

/* mov.b32/b64 d, {e0, e1, ...}: element i occupies bits [i*eb, (i+1)*eb) */
GS_HANDLER(h_mov_pack) {
    (void)c;
    int n = x->nops - 1;
    int eb = gs_type_bits(x->type) / n;
    uint64_t em = gs_width_mask(eb);
    uint64_t *d = gs_opr(w, x, 0);
    GS_LANES(m, l, {
        uint64_t v = 0;
        for (int i = 0; i < n; i++) v |= (w->R[x->ops[1 + i] + l] & em) << (i * eb);
        d[l] = v;
    });
    return GS_X_NEXT;
}

/* mov.b32/b64 {e0, e1, ...}, s  (sink elements "_" are skipped) */
GS_HANDLER(h_mov_unpack) {
    (void)c;
    int n = x->nops - 1;
    int eb = gs_type_bits(x->type) / n;
    uint64_t em = gs_width_mask(eb);
    const uint64_t *s = gs_src(w, x, n);
    uint64_t tmp[GS_WARP];
    GS_LANES(m, l, tmp[l] = s[l]);   /* the source may also be one of the destinations */
    for (int i = 0; i < n; i++) {
        if (x->ops[i] == 0xffffffffu) continue;
        uint64_t *d = gs_opr(w, x, i);
        GS_LANES(m, l, d[l] = (tmp[l] >> (i * eb)) & em);
    }
    return GS_X_NEXT;
}

gs_handler gs_bind_move(const gs_xinst *x) {
    if (x->op != GS_OP_MOV) return NULL;
    if (x->ir->nopnd != 2) return NULL;
    const gs_ir_opnd *d = gs_top(x, 0), *s = gs_top(x, 1);
    if (x->type == GS_T_PRED) {
        if (d->kind != GS_OK_PRED) return NULL;
        return s->kind == GS_OK_PRED ? h_mov_pred : s->kind == GS_OK_IMM ? h_mov_pred_imm : NULL;
    }
    if (d->kind == GS_OK_VEC) return (d->n >= 2 && gs_type_bits(x->type) % d->n == 0) ? h_mov_unpack : NULL;
    if (d->kind != GS_OK_REG) return NULL;
    if (s->kind == GS_OK_SREG) return h_mov_sreg;
    if (s->kind == GS_OK_VEC) return (s->n >= 2 && gs_type_bits(x->type) % s->n == 0) ? h_mov_pack : NULL;
    if (s->kind == GS_OK_REG || s->kind == GS_OK_IMM) return h_mov;
    return NULL;
}
