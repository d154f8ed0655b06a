/* livein.c — the register slots a CTA start must clear, per entry function (livein.h says why and how). */
#include <stdlib.h>
#include "internal.h"
#include "livein.h"

/* Instructions whose handlers read only the executing lanes' own source registers and write their own
 * destination slots whole (exec.h: values zero-extended to 64 bits) for exactly the lanes they run on, at
 * the time they run. Every other op's register operands are cleared at every CTA start. */
static int lane_local(int op) {
    switch (op) {
    case GS_OP_NOP: case GS_OP_ADD: case GS_OP_SUB: case GS_OP_MUL: case GS_OP_MAD: case GS_OP_MUL24:
    case GS_OP_MAD24: case GS_OP_SAD: case GS_OP_DIV: case GS_OP_REM: case GS_OP_ABS: case GS_OP_NEG:
    case GS_OP_MIN: case GS_OP_MAX: case GS_OP_POPC: case GS_OP_CLZ: case GS_OP_BFIND: case GS_OP_FNS:
    case GS_OP_BREV: case GS_OP_BFE: case GS_OP_BFI: case GS_OP_PRMT: case GS_OP_LOP3: case GS_OP_SHF:
    case GS_OP_SHL: case GS_OP_SHR: case GS_OP_AND: case GS_OP_OR: case GS_OP_XOR: case GS_OP_NOT:
    case GS_OP_CNOT: case GS_OP_DP4A: case GS_OP_DP2A: case GS_OP_FMA: case GS_OP_RCP: case GS_OP_SQRT:
    case GS_OP_RSQRT: case GS_OP_EX2: case GS_OP_LG2: case GS_OP_SIN: case GS_OP_COS: case GS_OP_TANH:
    case GS_OP_TESTP: case GS_OP_COPYSIGN: case GS_OP_SETP: case GS_OP_SET: case GS_OP_SELP:
    case GS_OP_SLCT: case GS_OP_MOV: case GS_OP_CVT: case GS_OP_CVTA: case GS_OP_CVT_PACK: case GS_OP_LD:
    case GS_OP_ST: case GS_OP_LDU: case GS_OP_ISSPACEP: case GS_OP_PREFETCH: case GS_OP_BRA: case GS_OP_EXIT:
    case GS_OP_RET: case GS_OP_MEMBAR: case GS_OP_BAR_WARP: case GS_OP_CACHE_HINT:
        return 1;
    default:
        return 0;
    }
}

#define BIT(s, r) ((s)[(r) >> 6] |= 1ull << ((r) & 63))

/* calls fn(set, reg, is_dst) for each register instruction i names (vector elements, memory bases) */
typedef void (*reg_visit)(uint64_t *set, uint32_t reg, int dst);
static void each_reg(const gs_program *p, uint32_t i, uint64_t *set, reg_visit fn) {
    const gs_ir_inst *ir = &p->ir[i];
    for (uint32_t j = ir->opnd, top = 0; top < ir->nopnd && j < p->nopnds; top++) {
        uint32_t nel = p->opnds[j].kind == GS_OK_VEC ? p->opnds[j].n : 0;
        for (uint32_t e = 0; e <= nel && j + e < p->nopnds; e++) {
            const gs_ir_opnd *q = &p->opnds[j + e];
            if (q->kind == GS_OK_REG) fn(set, (uint32_t)q->reg, top < ir->ndst);
            else if (q->kind == GS_OK_MEM && q->reg >= 0) fn(set, (uint32_t)q->reg, 0);
        }
        j += 1 + nel;
    }
}
static void add_any(uint64_t *set, uint32_t r, int dst) { (void)dst; BIT(set, r); }
static void add_src(uint64_t *set, uint32_t r, int dst) { if (!dst) BIT(set, r); }
static void add_dst(uint64_t *set, uint32_t r, int dst) { if (dst) BIT(set, r); }
static void max_reg(uint64_t *set, uint32_t r, int dst) { (void)dst; if (r + 1 > *set) *set = r + 1; }

/* the function's slots to clear as a bit set over its registers (nw words); 1: every slot (calls) */
static int analyse(const gs_program *p, const gs_ir_func *f, uint32_t nw, uint64_t *clr, uint64_t *live,
                   uint64_t *tmp) {
    uint32_t a = (uint32_t)f->entry_pc, b = (uint32_t)f->end_pc, n = b - a;
    for (uint32_t i = a; i < b; i++) {
        const gs_ir_inst *ir = &p->ir[i];
        if (ir->op == GS_OP_CALL) return 1;
        if (ir->op == GS_OP_BRA && (ir->target < (int32_t)a || ir->target >= (int32_t)b)) return 1;
        if (!lane_local(ir->op)) each_reg(p, i, clr, add_any);       /* (b) */
    }
    /* (a): live-in sets per instruction, backward until nothing changes */
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = b; i-- > a;) {
            const gs_ir_inst *ir = &p->ir[i];
            uint64_t *in = live + (size_t)(i - a) * nw;
            for (uint32_t k = 0; k < nw; k++) tmp[k] = i + 1 < b ? in[nw + k] : 0;      /* fall through */
            if (ir->op == GS_OP_BRA) {
                const uint64_t *t = live + (size_t)(ir->target - (int32_t)a) * nw;
                for (uint32_t k = 0; k < nw; k++) tmp[k] |= t[k];
            }
            if (lane_local(ir->op)) {
                uint64_t *use = tmp + nw, *def = tmp + 2 * nw;
                memset(use, 0, 2 * nw * sizeof *use);
                each_reg(p, i, use, add_src);
                if (ir->guard < 0) each_reg(p, i, def, add_dst);
                for (uint32_t k = 0; k < nw; k++) tmp[k] = (tmp[k] & ~def[k]) | use[k];
            }
            if (memcmp(in, tmp, nw * sizeof *in)) { memcpy(in, tmp, nw * sizeof *in); changed = 1; }
        }
    }
    if (n) for (uint32_t k = 0; k < nw; k++) clr[k] |= live[k];
    return 0;
}

/* appends run {first, n} to *runs; -1: out of memory */
static int push_run(gs_slot_run **runs, uint32_t *nruns, uint32_t *cap, uint32_t first, uint32_t n) {
    if (*nruns == *cap) {
        uint32_t c = *cap ? 2 * *cap : 16;
        gs_slot_run *g = realloc(*runs, c * sizeof *g);
        if (!g) return -1;
        *runs = g;
        *cap = c;
    }
    (*runs)[(*nruns)++] = (gs_slot_run){.first = first, .n = n};
    return 0;
}

int gs_livein_compute(gs_program *p) {
    uint32_t nf = p->nfuncs, nruns = 0, cap = 0;
    gs_slot_run *runs = NULL;
    uint32_t *first = calloc(nf + 1, sizeof *first);
    if (!first) return -1;
    for (uint32_t fi = 0; fi < nf; fi++) {
        const gs_ir_func *f = &p->funcs[fi];
        first[fi] = nruns;
        int all = !f->is_entry || f->entry_pc < 0 || f->end_pc < f->entry_pc || f->end_pc > (int32_t)p->ninsts;
        uint64_t regs = 0;                               /* the registers the function names: 0 .. regs - 1 */
        for (int32_t i = f->entry_pc; !all && i < f->end_pc; i++) each_reg(p, (uint32_t)i, &regs, max_reg);
        uint32_t nw = regs ? (uint32_t)(regs + 63) / 64 : 1;
        size_t ninst = all ? 1 : (size_t)(f->end_pc - f->entry_pc) + 1;
        uint64_t *clr = calloc(nw, sizeof *clr), *tmp = calloc(3 * (size_t)nw, sizeof *tmp);
        uint64_t *live = calloc(ninst * nw, sizeof *live);
        int bad = !clr || !tmp || !live;
        if (!bad && !all) all = analyse(p, f, nw, clr, live, tmp);
        if (!bad && all) bad = push_run(&runs, &nruns, &cap, p->nconst, UINT32_MAX - p->nconst);
        for (uint32_t s = 0; !bad && !all && s < regs;) {     /* runs of set bits */
            if (!(clr[s >> 6] >> (s & 63) & 1)) { s++; continue; }
            uint32_t e = s;
            while (e < regs && (clr[e >> 6] >> (e & 63) & 1)) e++;
            bad = push_run(&runs, &nruns, &cap, p->nconst + s, e - s);
            s = e;
        }
        free(clr); free(tmp); free(live);
        if (bad) { free(runs); free(first); return -1; }
    }
    first[nf] = nruns;
    p->clr_runs = runs;
    p->clr_first = first;
    return 0;
}
