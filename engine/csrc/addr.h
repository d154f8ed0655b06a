/* addr.h — addresses of [reg + imm] operands for the handlers of exec_atomic.c, exec_async.c,
 * exec_ldmatrix.c and exec_wmma.c.
 *
 * PTX computes an address in the width of its base register: [%r + 256] with a 32-bit %r wraps modulo
 * 2^32 (nvcc emits negative 32-bit bases with positive offsets for shared memory), while a 64-bit base
 * wraps modulo 2^64. The IR keeps the base register's declared width in the MEM operand's n field.
 */
#ifndef GS_ADDR_H
#define GS_ADDR_H
#include "exec.h"

/* the address of lane l for MEM operand o (top-level IR record) whose base register is at register
 * offset slot (0xffffffff when the operand has no base register) */
static inline uint64_t gs_opnd_addr(const gs_warp *w, const gs_ir_opnd *o, uint32_t slot, int l) {
    if (o->reg < 0 || slot == 0xffffffffu) return (uint64_t)o->imm;
    uint64_t a = w->R[slot + l] + (uint64_t)o->imm;
    return o->n == 32 ? (uint32_t)a : a;
}

/* the instruction's MEM operand (the last one if several): its IR record */
static inline const gs_ir_opnd *gs_mem_opnd(const gs_xinst *x) {
    const gs_ir_opnd *found = NULL, *o = x->irops;
    for (int i = 0; i < x->ir->nopnd; i++) {
        if (o->kind == GS_OK_MEM) found = o;
        o += 1 + (o->kind == GS_OK_VEC ? o->n : 0);
    }
    return found;
}

/* w->maddr[l] for lanes m from the instruction's (last) MEM operand */
static inline void gs_lane_addrs(gs_warp *w, const gs_xinst *x, uint32_t m) {
    const gs_ir_opnd *o = gs_mem_opnd(x);
    uint32_t slot = x->mem_base >= 0 ? (uint32_t)x->mem_base : 0xffffffffu;
    GS_LANES(m, l, w->maddr[l] = gs_opnd_addr(w, o, slot, l));
}

#endif
