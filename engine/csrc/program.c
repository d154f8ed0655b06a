/* program.c — turns the IR into decoded instructions bound to handlers (done once per module).
 *
 * Steps: (1) collect every immediate into constant register slots (deduplicated), (2) flatten each
 * instruction's operands (vector elements expanded) into resolved offsets, (3) ask each family's
 * binder for a handler, refusing the whole program with the first instruction nobody handles,
 * (4) record static facts the timing model needs (registers read and written, functional unit).
 */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "livein.h"

#define GS_NO_SLOT 0xffffffffu

static const char *const OP_NAMES[GS_OP__COUNT] = {
    "nop", "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
    "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "prmt", "lop3", "shf", "shl", "shr",
    "and", "or", "xor", "not", "cnot", "addc", "subc", "madc", "dp4a", "dp2a",
    "fma", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "testp", "copysign",
    "setp", "set", "selp", "slct",
    "mov", "cvt", "cvta", "cvt.pack",
    "ld", "st", "ldu", "prefetch", "atom", "red", "isspacep",
    "cp.async", "cp.async.commit_group", "cp.async.wait", "ldmatrix", "stmatrix", "createpolicy",
    "cache-hint",
    "bra", "call", "ret", "exit", "trap", "brkpt", "nanosleep", "bar", "bar.warp.sync", "membar",
    "shfl", "vote", "match", "redux", "activemask", "elect",
    "wmma.load", "wmma.store", "wmma.mma", "mma", "wgmma.mma_async", "wgmma.fence",
    "wgmma.commit_group", "wgmma.wait_group", "mbarrier"};

const char *gs_op_name(int op) { return (op >= 0 && op < GS_OP__COUNT) ? OP_NAMES[op] : "?"; }

#ifndef GS_BUILD_DESC
#define GS_BUILD_DESC "unknown"          /* (built by something other than engine/build_ffi.py) */
#endif
const char *gs_build_desc(void) { return GS_BUILD_DESC; }

static gs_handler bind(const gs_xinst *x) {
    static gs_handler (*const binders[])(const gs_xinst *) = {
        gs_bind_ctrl, gs_bind_move, gs_bind_int, gs_bind_bits, gs_bind_float, gs_bind_half,
        gs_bind_simd, gs_bind_sfu, gs_bind_cmp, gs_bind_cvt, gs_bind_mem, gs_bind_atomic, gs_bind_warp,
        gs_bind_wmma, gs_bind_mma, gs_bind_ldmatrix, gs_bind_wgmma, gs_bind_async};
    if (x->flags & GS_F_UNSUPPORTED) return NULL;
    for (size_t i = 0; i < sizeof binders / sizeof *binders; i++) {
        gs_handler h = binders[i](x);
        if (h) return h;
    }
    return NULL;
}

/* the special registers sm_90's ptxas reads with S2R, a variable-latency read through the MIO (sreg.cu, calibration.md
 * 5w): not %ctaid (S2UR, the uniform datapath), the sizes (%ntid, %nctaid: constant-bank LDCs) or the clocks (CS2R) */
static int is_s2r(const gs_ir_opnd *o) {
    if (o->kind != GS_OK_SREG) return 0;
    switch (o->n) {
    case GS_SR_TID_X: case GS_SR_TID_Y: case GS_SR_TID_Z: case GS_SR_LANEID: case GS_SR_WARPID: case GS_SR_SMID:
    case GS_SR_LANEMASK_EQ: case GS_SR_LANEMASK_LT: case GS_SR_LANEMASK_LE: case GS_SR_LANEMASK_GT:
    case GS_SR_LANEMASK_GE:
        return 1;
    default:
        return 0;
    }
}

static int unit_of(const gs_xinst *x) {
    int t = x->type;
    switch (x->op) {
    case GS_OP_LD: case GS_OP_ST: case GS_OP_LDU: case GS_OP_ATOM: case GS_OP_RED:
    case GS_OP_CP_ASYNC: case GS_OP_LDMATRIX: case GS_OP_STMATRIX: case GS_OP_WMMA_LOAD:
    case GS_OP_WMMA_STORE: case GS_OP_SHFL: case GS_OP_MATCH: case GS_OP_REDUX: case GS_OP_PREFETCH:
    case GS_OP_MBARRIER:
        return GS_U_LDST;
    case GS_OP_WMMA_MMA: case GS_OP_MMA: case GS_OP_WGMMA_MMA:
        return GS_U_TENSOR;
    case GS_OP_BRA: case GS_OP_CALL: case GS_OP_RET: case GS_OP_EXIT:
        return GS_U_BRANCH;
    case GS_OP_BAR: case GS_OP_BAR_WARP: case GS_OP_MEMBAR:
        return GS_U_BARRIER;
    case GS_OP_RCP: case GS_OP_SQRT: case GS_OP_RSQRT: case GS_OP_EX2: case GS_OP_LG2:
    case GS_OP_SIN: case GS_OP_COS: case GS_OP_TANH:
        return t == GS_T_F64 ? GS_U_FP64 : GS_U_SFU;
    case GS_OP_DIV: case GS_OP_REM:
        if (t == GS_T_F64) return GS_U_FP64;
        return gs_type_is_float(t) ? GS_U_SFU : GS_U_INT;
    case GS_OP_CVT:
        if (t == GS_T_F64 || x->type2 == GS_T_F64) return GS_U_FP64;
        return GS_U_INT;
    case GS_OP_MOV:                     /* a special register ptxas reads with S2R (sm.sreg_latency_cycles); */
        if (x->ir->nopnd == 2 && x->irops[0].kind == GS_OK_REG && is_s2r(&x->irops[1])) return GS_U_MISC;
        /* fall through */                /* any other move by its type */
    default:
        if (t == GS_T_F64) return GS_U_FP64;
        if (t == GS_T_F16 || t == GS_T_F16X2 || t == GS_T_BF16 || t == GS_T_BF16X2) return GS_U_FP16;
        if (t == GS_T_F32) return GS_U_FP32;
        return GS_U_INT;
    }
}

gs_program *gs_program_create(const gs_ir_inst *insts, uint32_t ninsts, const gs_ir_opnd *opnds,
                              uint32_t nopnds, const gs_ir_func *funcs, uint32_t nfuncs,
                              const uint8_t *const_data, uint32_t const_bytes, char *err,
                              uint32_t errlen) {
    gs_program *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->ninsts = ninsts;
    p->nopnds = nopnds;
    p->nfuncs = nfuncs;
    p->ir = malloc((ninsts ? ninsts : 1) * sizeof *p->ir);
    p->opnds = malloc((nopnds ? nopnds : 1) * sizeof *p->opnds);
    p->funcs = malloc((nfuncs ? nfuncs : 1) * sizeof *p->funcs);
    p->x = calloc(ninsts ? ninsts : 1, sizeof *p->x);
    p->flat = malloc((nopnds ? nopnds : 1) * sizeof *p->flat);
    p->sb = malloc((nopnds ? nopnds : 1) * sizeof *p->sb);
    p->const_bank = malloc(const_bytes ? const_bytes : 1);
    uint64_t *cvals = malloc((nopnds ? nopnds : 1) * sizeof *cvals);
    if (!p->ir || !p->opnds || !p->funcs || !p->x || !p->flat || !p->sb || !p->const_bank || !cvals) {
        snprintf(err, errlen, "out of memory");
        free(cvals);
        gs_program_destroy(p);
        return NULL;
    }
    memcpy(p->ir, insts, ninsts * sizeof *insts);
    memcpy(p->opnds, opnds, nopnds * sizeof *opnds);
    memcpy(p->funcs, funcs, nfuncs * sizeof *funcs);
    if (const_bytes) memcpy(p->const_bank, const_data, const_bytes);
    p->const_bytes = const_bytes;

    /* (1) immediates -> constant slots; registers are shifted past them */
    uint32_t *cslot = malloc((nopnds ? nopnds : 1) * sizeof *cslot);
    uint32_t nconst = 0;
    for (uint32_t i = 0; i < nopnds; i++) {
        cslot[i] = GS_NO_SLOT;
        if (opnds[i].kind != GS_OK_IMM) continue;
        uint64_t v = (uint64_t)opnds[i].imm;
        uint32_t k = 0;
        while (k < nconst && cvals[k] != v) k++;   /* modules have few distinct immediates */
        if (k == nconst) cvals[nconst++] = v;
        cslot[i] = k;
    }
    p->nconst = nconst;
    p->const_regs = malloc((nconst ? nconst : 1) * GS_WARP * sizeof(uint64_t));
    for (uint32_t k = 0; k < nconst; k++)
        for (int l = 0; l < GS_WARP; l++) p->const_regs[k * GS_WARP + l] = cvals[k];
    free(cvals);

    for (uint32_t f = 0; f < nfuncs; f++) {
        if (!funcs[f].is_entry) {
            if (funcs[f].nregs > p->max_func_regs) p->max_func_regs = funcs[f].nregs;
            if (funcs[f].npreds > p->max_func_preds) p->max_func_preds = funcs[f].npreds;
        }
    }

    /* the engine trusts register indices and operand kinds in its hot loop: check them once (ir_check.c) */
    if (gs_ir_check(insts, ninsts, opnds, nopnds, funcs, nfuncs, err, errlen) >= 0) {
        free(cslot);
        gs_program_destroy(p);
        return NULL;
    }

    /* (2)+(3) decode and bind */
    for (uint32_t i = 0; i < ninsts; i++) {
        const gs_ir_inst *ir = &p->ir[i];
        gs_xinst *x = &p->x[i];
        x->ir = ir;
        x->op = ir->op; x->type = ir->type; x->type2 = ir->type2; x->space = ir->space;
        x->sub = ir->sub; x->rnd = ir->rnd; x->cmp = ir->cmp; x->vec = ir->vec; x->flags = ir->flags;
        x->guard = ir->guard; x->guard_neg = ir->guard_neg; x->target = ir->target; x->rpc = ir->rpc;
        x->aux = ir->aux; x->line = ir->line; x->mem_base = -1; x->dst_pred = -1; x->src_pred = -1;
        x->irops = &p->opnds[ir->opnd];
        uint32_t *flat = &p->flat[ir->opnd];
        uint32_t nf = 0;
        /* scoreboard lists share one region: reads grow up from the start, writes down from the end */
        uint32_t span = 0;
        for (uint32_t j = ir->opnd, t = 0; t < ir->nopnd && j < nopnds; t++) {
            uint32_t nel = p->opnds[j].kind == GS_OK_VEC ? p->opnds[j].n : 0;
            span += 1 + nel;
            j += 1 + nel;
        }
        uint32_t *sb = &p->sb[ir->opnd];
        uint32_t nrd = 0, nwr = 0, nprd = 0, npwr = 0;
        for (int k = 0; k < 4; k++) x->prd[k] = -1;
        x->pwr[0] = x->pwr[1] = -1;
        if (ir->guard >= 0) x->prd[nprd++] = (int16_t)ir->guard;
        int top = 0;
        for (uint32_t j = ir->opnd; top < ir->nopnd && j < nopnds; top++) {
            const gs_ir_opnd *o = &p->opnds[j];
            uint32_t nel = o->kind == GS_OK_VEC ? o->n : 0;
            for (uint32_t e = 0; e <= nel; e++) {
                const gs_ir_opnd *q = &p->opnds[j + e];
                if (q->kind == GS_OK_VEC) continue;
                uint32_t v = GS_NO_SLOT;
                int is_dst = top < ir->ndst;
                switch (q->kind) {
                case GS_OK_REG: v = (nconst + (uint32_t)q->reg) * GS_WARP;
                    if (is_dst) { if (x->ndst < 4) x->dst_slot[x->ndst++] = (int32_t)(nconst + q->reg);
                                  if (nrd + nwr < span) sb[span - 1 - nwr++] = nconst + (uint32_t)q->reg; }
                    else { if (x->nsrc < 6) x->src_slot[x->nsrc++] = (int32_t)(nconst + q->reg);
                           if (nrd + nwr < span) sb[nrd++] = nconst + (uint32_t)q->reg; }
                    break;
                case GS_OK_IMM: v = cslot[j + e] * GS_WARP; break;
                case GS_OK_PRED: v = (uint32_t)q->reg | ((q->flags & GS_OF_NEG) ? 0x80000000u : 0);
                    if (is_dst) { x->dst_pred = q->reg; if (npwr < 2) x->pwr[npwr++] = (int16_t)q->reg; }
                    else { x->src_pred = q->reg; if (nprd < 4) x->prd[nprd++] = (int16_t)q->reg; }
                    break;
                case GS_OK_SREG: v = q->n; break;
                case GS_OK_MEM:
                    v = q->reg >= 0 ? (nconst + (uint32_t)q->reg) * GS_WARP : GS_NO_SLOT;
                    x->mem_base = (int32_t)v == -1 ? -1 : (int32_t)v;
                    x->mem32 = q->reg >= 0 && q->n > 0 && q->n <= 32;
                    x->imm = q->imm;
                    if (q->reg >= 0 && x->nsrc < 6) x->src_slot[x->nsrc++] = (int32_t)(nconst + q->reg);
                    if (q->reg >= 0 && nrd + nwr < span) sb[nrd++] = nconst + (uint32_t)q->reg;
                    break;
                default: v = GS_NO_SLOT; break;
                }
                flat[nf] = v;
                if (nf < GS_MAX_XOPS) x->o[nf] = v;
                nf++;
            }
            j += 1 + nel;
        }
        x->ops = flat;
        x->nops = (uint16_t)nf;
        x->rd = sb;
        x->nrd = (uint16_t)nrd;
        x->wr = sb + span - nwr;
        x->nwr = (uint16_t)nwr;
        x->unit = (uint8_t)unit_of(x);
        x->fn = bind(x);
        if (!x->fn) {
            snprintf(err, errlen, "line %u: unsupported instruction: %s%s%s (op %s, type %s%s%s)",
                     ir->line, gs_op_name(ir->op), ir->type ? "." : "", gs_type_name(ir->type),
                     gs_op_name(ir->op), gs_type_name(ir->type), ir->type2 ? ", " : "",
                     ir->type2 ? gs_type_name(ir->type2) : "");
            free(cslot);
            gs_program_destroy(p);
            return NULL;
        }
    }
    free(cslot);
    gs_livein_compute(p);                        /* (out of memory: clr_runs stays NULL, CTAs clear every slot) */
    return p;
}

int gs_inst_supported(const gs_ir_inst *ir, const gs_ir_opnd *opnds) {
    (void)opnds;
    gs_xinst x;
    memset(&x, 0, sizeof x);
    x.ir = ir; x.op = ir->op; x.type = ir->type; x.type2 = ir->type2; x.space = ir->space;
    x.sub = ir->sub; x.rnd = ir->rnd; x.cmp = ir->cmp; x.vec = ir->vec; x.flags = ir->flags;
    x.aux = ir->aux; x.guard = ir->guard; x.irops = opnds;
    return bind(&x) != NULL;
}

void gs_program_destroy(gs_program *p) {
    if (!p) return;
    free(p->x); free(p->ir); free(p->opnds); free(p->funcs); free(p->flat); free(p->sb);
    free(p->const_regs); free(p->const_bank);
    free(p->sass); free(p->sass_regs);
    free(p->clr_runs); free(p->clr_first);
    free(p);
}

int gs_program_set_sass(gs_program *p, const gs_sass_cost *costs, uint32_t n, const uint32_t *regs, uint32_t nfuncs) {
    if (!p || !costs || !regs || n != p->ninsts || nfuncs != p->nfuncs) return -1;
    for (uint32_t i = 0; i < n; i++)
        if (costs[i].unit >= GS_U__COUNT) return -1;
    gs_sass_cost *c = malloc((n ? n : 1) * sizeof *c);
    uint32_t *r = malloc((nfuncs ? nfuncs : 1) * sizeof *r);
    if (!c || !r) { free(c); free(r); return -1; }
    memcpy(c, costs, n * sizeof *c);
    memcpy(r, regs, nfuncs * sizeof *r);
    free(p->sass); free(p->sass_regs);
    p->sass = c;
    p->sass_regs = r;
    return 0;
}
