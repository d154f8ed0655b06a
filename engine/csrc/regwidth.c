/* regwidth.c — 32-bit register storage: which registers, and the register file layout (see regwidth.h). */
#include <stdlib.h>
#include "regwidth.h"
#include "exec.h"

/* runs BODY for every register operand of x, in flat order (the same walk as gs_program_create's
 * decoding: vector elements expanded, a MEM operand's base counted as the MEM operand's flat entry),
 * with q its record, fi its flat index, s its slot, is_base (a MEM base), is_dst (a destination) and
 * wide (its register is of the 64-bit class: declared wider than 32 bits, or of unknown width) */
#define WALK_REGS(p, x, ...)                                                                        \
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
                    int is_base = q->kind == GS_OK_MEM, is_dst = !is_base && t_ < ir_->ndst;        \
                    int wide = q->n == 0 || q->n > 32;                                              \
                    uint32_t s = (p)->nconst + (uint32_t)q->reg;                                    \
                    (void)fi; (void)is_base; (void)is_dst; (void)wide;                              \
                    __VA_ARGS__;                                                                         \
                }                                                                                   \
            }                                                                                       \
            j_ += 1 + nel_;                                                                         \
        }                                                                                           \
    } while (0)

/* a slot's operands: of registers of at most 32 bits, of wider ones, of unknown width (n = 0: operands the
 * SASS loop unroller makes name existing registers without a width, engine/sass/unroll.py) */
enum { USES_32 = 1, USES_64 = 2, USES_UNKNOWN = 4 };

int gs_regwidth_layout(gs_program *p, const uint8_t *narrow_ok) {
    uint32_t nslots = p->nconst;
    for (uint32_t i = 0; i < p->ninsts; i++)
        WALK_REGS(p, &p->x[i], { if (s + 1 > nslots) nslots = s + 1; });
    size_t n1 = nslots ? nslots : 1;
    uint8_t *uses = calloc(n1, 1), *narrow = malloc(n1);
    uint32_t *off32 = malloc(n1 * sizeof *off32), *off64 = malloc(n1 * sizeof *off64);
    uint32_t *end = malloc(n1 * sizeof *end), *clr = calloc(n1, sizeof *clr);
    uint16_t *why = malloc(n1 * sizeof *why);
    uint32_t *sbo = malloc((p->nopnds ? p->nopnds : 1) * sizeof *sbo);
    uint32_t *k32 = malloc((p->nconst ? p->nconst : 1) * GS_WARP * sizeof *k32);
    if (!uses || !narrow || !off32 || !off64 || !end || !clr || !why || !sbo || !k32) {
        free(uses); free(narrow); free(off32); free(off64); free(end); free(clr); free(why); free(sbo); free(k32);
        return -1;
    }
    for (uint32_t k = 0; k < p->nconst * GS_WARP; k++) k32[k] = (uint32_t)p->const_regs[k];
#ifdef GS_REG32_OFF
    memset(narrow, 0, n1);
#else
    memset(narrow, 1, n1);
#endif
    for (uint32_t s = 0; s < nslots; s++) why[s] = s < p->nconst ? GS_N32_DECLARED : GS_N32_NARROW;
    /* (1) which classes use each slot; the 32-bit class stays narrow only if every operand allows it */
    for (uint32_t i = 0; i < p->ninsts; i++) {
        const gs_xinst *x = &p->x[i];
        int ok = narrow_ok[i];
        WALK_REGS(p, x, {
            uses[s] |= q->n == 0 ? USES_UNKNOWN : wide ? USES_64 : USES_32;
            if (!wide && (!ok || (!is_base && fi >= 32))) { narrow[s] = 0; why[s] = x->op; }
        });
    }
    /* (2) layout: constants, then per slot one 32 x 64-bit block, shared by its two classes, or for a slot
     * of 32-bit registers only in 32-bit lanes, half a block (two such slots share one) */
    uint32_t next = p->nconst * GS_WARP, half = 0xffffffffu;
    for (uint32_t s = 0; s < nslots; s++) {
        off32[s] = off64[s] = s * GS_WARP;
        if (s >= p->nconst && (uses[s] & USES_UNKNOWN)) {
            /* a register of unknown width may be one of the others: one 64-bit storage for the slot */
            if (uses[s] & USES_32) why[s] = GS_N32_UNKNOWN;
            else why[s] = GS_N32_DECLARED;
            off32[s] = off64[s] = next;
            next += GS_WARP;
        } else if (s >= p->nconst) {
            if (!(uses[s] & USES_32)) why[s] = GS_N32_DECLARED;
            if (uses[s] & USES_64) {
                /* both classes overlay one block: their registers are never live at once */
                off64[s] = next;
                off32[s] = next | (narrow[s] ? GS_SLOT_N32 : 0);
                next += GS_WARP;
            } else if (uses[s] & USES_32) {
                if (!narrow[s]) { off32[s] = next; next += GS_WARP; }
                else if (half != 0xffffffffu) { off32[s] = half | GS_SLOT_N32; half = 0xffffffffu; }
                else { off32[s] = next | GS_SLOT_N32; half = next + GS_WARP / 2; next += GS_WARP; }
            }
        }
        end[s] = next;
        /* what clearing the slot clears: its block, or its half block (32-bit registers only, narrow) */
        if (s >= p->nconst && (uses[s] & (USES_UNKNOWN | USES_64))) clr[s] = off64[s] << 6 | GS_WARP;
        else if (s >= p->nconst && (uses[s] & USES_32))
            clr[s] = (off32[s] & ~GS_SLOT_N32) << 6 | ((off32[s] & GS_SLOT_N32) ? GS_WARP / 2 : GS_WARP);
    }
    /* (3) storage offsets into the decoded instructions and beside their scoreboard lists (x->rd, x->wr) */
    for (uint32_t i = 0; i < p->ninsts; i++) {
        gs_xinst *x = &p->x[i];
        uint32_t *flat = &p->flat[x->ir->opnd];
        uint32_t *so = sbo + (x->rd - p->sb);
        uint32_t *wo = sbo + (x->wr - p->sb);
        uint32_t nrd = 0, nwr = 0;
        x->n32 = 0;
        x->base32 = 0;
        x->k32 = 0;
        uint32_t nf = 0;                          /* constants: the flat operands of kind IMM */
        for (uint32_t j = x->ir->opnd, t = 0; t < x->ir->nopnd && j < p->nopnds; t++) {
            uint32_t nel = p->opnds[j].kind == GS_OK_VEC ? p->opnds[j].n : 0;
            for (uint32_t e = 0; e <= nel; e++) {
                if (p->opnds[j + e].kind == GS_OK_VEC) continue;
                if (p->opnds[j + e].kind == GS_OK_IMM && nf < 32) x->k32 |= 1u << nf;
                nf++;
            }
            j += 1 + nel;
        }
        WALK_REGS(p, x, {
            uint32_t tagged = wide ? off64[s] : off32[s], o = tagged & ~GS_SLOT_N32;
            int n32 = (tagged & GS_SLOT_N32) != 0;
            if (is_base) { x->mem_base = (int32_t)o; x->base32 = (uint8_t)n32; }
            else if (n32) x->n32 |= 1u << fi;
            flat[fi] = o;
            if (fi < GS_MAX_XOPS) x->o[fi] = o;
            if (is_dst) { if (nwr < x->nwr) wo[x->nwr - 1 - nwr++] = tagged; }
            else if (nrd < x->nrd) so[nrd++] = tagged;
        });
    }
    free(uses); free(narrow); free(off32); free(off64);
    free(p->store_end); free(p->slot_why); free(p->sb_off);
    p->nslots = nslots;
    p->store_end = end;
    free(p->slot_clr);
    p->slot_clr = clr;
    p->slot_why = why;
    p->sb_off = sbo;
    free(p->const32);
    p->const32 = k32;
    return 0;
}

void gs_widen32_lanes(uint64_t *restrict d, const uint32_t *restrict s) {
    for (int l = 0; l < GS_WARP; l++) d[l] = s[l];
}
void gs_narrow32_lanes(uint32_t *restrict d, const uint64_t *restrict s) {
    for (int l = 0; l < GS_WARP; l++) d[l] = (uint32_t)s[l];
}

uint32_t gs_regwidth_store(const gs_program *p, uint32_t nslots) {
    if (!p->store_end || nslots == 0 || p->nslots == 0) return nslots;
    return p->store_end[(nslots < p->nslots ? nslots : p->nslots) - 1] / GS_WARP;
}

uint32_t gs_program_reg_widths(const gs_program *p, uint16_t *why, uint32_t cap) {
    if (!p || !p->slot_why) return 0;
    for (uint32_t s = 0; s < p->nslots && s < cap; s++) why[s] = p->slot_why[s];
    return p->nslots;
}
