/* regwidth.c — 32-bit register storage: which slots, and the register file layout (see regwidth.h). */
#include <stdlib.h>
#include "regwidth.h"

/* calls f(x, flat index, operand record, is_base) for every register operand of x, in flat order: the
 * same walk as gs_program_create's decoding (vector elements expanded, a MEM operand's base counted as
 * the MEM operand's flat entry) */
#define WALK_REGS(p, x, BODY)                                                                       \
    do {                                                                                            \
        const gs_ir_inst *ir_ = (x)->ir;                                                            \
        uint32_t nf_ = 0;                                                                           \
        for (uint32_t j_ = ir_->opnd, t_ = 0; t_ < ir_->nopnd && j_ < (p)->nopnds; t_++) {          \
            const gs_ir_opnd *o_ = &(p)->opnds[j_];                                                 \
            uint32_t nel_ = o_->kind == GS_OK_VEC ? o_->n : 0;                                      \
            for (uint32_t e_ = 0; e_ <= nel_; e_++) {                                               \
                const gs_ir_opnd *q = &(p)->opnds[j_ + e_];                                         \
                if (q->kind == GS_OK_VEC) continue;                                                 \
                uint32_t fi = nf_++;                                                                \
                if (q->kind == GS_OK_REG || (q->kind == GS_OK_MEM && q->reg >= 0)) {                \
                    int is_base = q->kind == GS_OK_MEM;                                             \
                    uint32_t s = (p)->nconst + (uint32_t)q->reg;                                    \
                    BODY;                                                                           \
                }                                                                                   \
            }                                                                                       \
            j_ += 1 + nel_;                                                                         \
        }                                                                                           \
    } while (0)

int gs_regwidth_layout(gs_program *p, const uint8_t *narrow_ok) {
    uint32_t nslots = p->nconst;
    for (uint32_t i = 0; i < p->ninsts; i++)
        WALK_REGS(p, &p->x[i], { (void)fi; (void)is_base; if (s + 1 > nslots) nslots = s + 1; });
    p->nslots = nslots;
    uint8_t *narrow = malloc(nslots ? nslots : 1);
    uint32_t *off = malloc((nslots ? nslots : 1) * sizeof *off);
    if (!narrow || !off) { free(narrow); free(off); return -1; }
#ifdef GS_REG32_OFF
    memset(narrow, 0, nslots);
#else
    memset(narrow, 1, nslots);
#endif
    uint16_t *why = malloc((nslots ? nslots : 1) * sizeof *why);
    if (!why) { free(narrow); free(off); return -1; }
    for (uint32_t s = 0; s < nslots; s++) why[s] = GS_N32_NARROW;
    /* (1) a slot stays narrow only if every operand naming it allows it */
    for (uint32_t i = 0; i < p->ninsts; i++) {
        const gs_xinst *x = &p->x[i];
        int ok = narrow_ok[i];
        WALK_REGS(p, x, {
            if (q->n == 0 || q->n > 32) { narrow[s] = 0; why[s] = GS_N32_DECLARED; }
            else if (!ok || (!is_base && fi >= 32)) {
                narrow[s] = 0;
                if (why[s] != GS_N32_DECLARED) why[s] = x->op;
            }
        });
    }
    for (uint32_t s = 0; s < p->nconst; s++) why[s] = GS_N32_DECLARED;
    /* (2) layout: constants, then slots in order, two narrow slots to a 64-bit slot's block */
    uint32_t next = p->nconst * GS_WARP, half = 0xffffffffu;
    for (uint32_t s = 0; s < nslots; s++) {
        if (s < p->nconst) { off[s] = s * GS_WARP; continue; }
        if (!narrow[s]) { off[s] = next; next += GS_WARP; continue; }
        if (half != 0xffffffffu) { off[s] = half | GS_SLOT_N32; half = 0xffffffffu; continue; }
        off[s] = next | GS_SLOT_N32;
        half = next + GS_WARP / 2;
        next += GS_WARP;
    }
    /* (3) storage offsets into the decoded instructions */
    for (uint32_t i = 0; i < p->ninsts; i++) {
        gs_xinst *x = &p->x[i];
        uint32_t *flat = &p->flat[x->ir->opnd];
        x->n32 = 0;
        x->base32 = 0;
        WALK_REGS(p, x, {
            uint32_t o = off[s] & ~GS_SLOT_N32;
            if (is_base) { x->mem_base = (int32_t)o; x->base32 = narrow[s]; }
            else if (narrow[s]) x->n32 |= 1u << fi;
            flat[fi] = o;
            if (fi < GS_MAX_XOPS) x->o[fi] = o;
        });
    }
    free(narrow);
    free(p->slot_off);
    free(p->slot_why);
    p->slot_off = off;
    p->slot_why = why;
    return 0;
}

uint32_t gs_program_reg_widths(const gs_program *p, uint16_t *why, uint32_t cap) {
    if (!p || !p->slot_why) return 0;
    for (uint32_t s = 0; s < p->nslots && s < cap; s++) why[s] = p->slot_why[s];
    return p->nslots;
}
