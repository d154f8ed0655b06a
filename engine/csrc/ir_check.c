/* ir_check.c — the engine never trusts the IR it is given: gs_ir_check validates a whole program once,
 * before anything is bound or run, so that a front-end bug (or hostile IR) is refused with a message
 * instead of becoming an out-of-bounds access in a handler's hot loop.
 *
 * What is checked (handlers read operands as register-slot offsets, predicate indices or sreg ids
 * without looking at their kind, so every kind must be what the handler reads):
 *   structure   operand records inside the array, vector elements inside it and not nested, register,
 *               predicate and special-register indices inside their function, branch/call targets
 *               inside the program, the op known, functions' instruction ranges and memory sizes sane;
 *   arity       the operand counts of the plain ALU instructions (their handlers read a fixed number);
 *   kinds       destinations are registers, predicates, sinks or vectors of them; a sink is never read;
 *               a memory operand only where the op reads an address (and there it is required); a
 *               special register only as mov's source; predicates exactly where a predicate is read;
 *   vectors     only on ops that take them; ld/st/atom/red: as many elements as the .vN width says,
 *               registers (or sinks) as destinations and registers or immediates as sources.
 * The complex families (mma, wmma, wgmma, ldmatrix, cp.async, mbarrier, warp ops) check their operand
 * shapes in their binders as well; here they get the structural and kind rules that apply to all.
 */
#include <stdarg.h>
#include <stdio.h>
#include "ir_check.h"

#define KB(k) (1u << (k))
#define K_REG KB(GS_OK_REG)
#define K_PRED KB(GS_OK_PRED)
#define K_IMM KB(GS_OK_IMM)
#define K_SREG KB(GS_OK_SREG)
#define K_MEM KB(GS_OK_MEM)
#define K_VEC KB(GS_OK_VEC)
#define K_SINK KB(GS_OK_SINK)

/* generous sanity bounds on function memory sizes (the front end enforces tighter, documented ones) */
#define MAX_PARAM_BYTES (64u << 10)
#define MAX_LOCAL_BYTES (16u << 20)
#define MAX_SHARED_BYTES (1u << 30)

static const char *const KIND_NAMES[] = {"none", "register", "predicate", "immediate", "special register",
                                         "memory address", "vector", "sink '_'"};

static const char *kind_name(int k) {
    return k >= 0 && k < (int)(sizeof KIND_NAMES / sizeof *KIND_NAMES) ? KIND_NAMES[k] : "unknown operand";
}

static int fail(char *err, uint32_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* plain ALU ops: [min, max] top-level operands (their handlers read a fixed number) */
typedef struct { uint8_t lo, hi; } arity;
static const arity ARITY[GS_OP__COUNT] = {
    [GS_OP_ADD] = {3, 3}, [GS_OP_SUB] = {3, 3}, [GS_OP_MUL] = {3, 3}, [GS_OP_MAD] = {4, 4},
    [GS_OP_MUL24] = {3, 3}, [GS_OP_MAD24] = {4, 4}, [GS_OP_SAD] = {4, 4}, [GS_OP_DIV] = {3, 3},
    [GS_OP_REM] = {3, 3}, [GS_OP_ABS] = {2, 2}, [GS_OP_NEG] = {2, 2}, [GS_OP_MIN] = {3, 4},
    [GS_OP_MAX] = {3, 4}, [GS_OP_POPC] = {2, 2}, [GS_OP_CLZ] = {2, 2}, [GS_OP_BFIND] = {2, 2},
    [GS_OP_FNS] = {4, 4}, [GS_OP_BREV] = {2, 2}, [GS_OP_BFE] = {4, 4}, [GS_OP_BFI] = {5, 5},
    [GS_OP_PRMT] = {4, 4}, [GS_OP_LOP3] = {5, 5}, [GS_OP_SHF] = {4, 4}, [GS_OP_SHL] = {3, 3},
    [GS_OP_SHR] = {3, 3}, [GS_OP_AND] = {3, 3}, [GS_OP_OR] = {3, 3}, [GS_OP_XOR] = {3, 3},
    [GS_OP_NOT] = {2, 2}, [GS_OP_CNOT] = {2, 2}, [GS_OP_ADDC] = {3, 3}, [GS_OP_SUBC] = {3, 3},
    [GS_OP_MADC] = {4, 4}, [GS_OP_DP4A] = {4, 4}, [GS_OP_DP2A] = {4, 4}, [GS_OP_FMA] = {4, 4},
    [GS_OP_RCP] = {2, 2}, [GS_OP_SQRT] = {2, 2}, [GS_OP_RSQRT] = {2, 2}, [GS_OP_EX2] = {2, 2},
    [GS_OP_LG2] = {2, 2}, [GS_OP_SIN] = {2, 2}, [GS_OP_COS] = {2, 2}, [GS_OP_TANH] = {2, 2},
    [GS_OP_TESTP] = {2, 2}, [GS_OP_COPYSIGN] = {3, 3}, [GS_OP_SETP] = {3, 4}, [GS_OP_SET] = {3, 4},
    [GS_OP_SELP] = {4, 4}, [GS_OP_SLCT] = {4, 4}, [GS_OP_MOV] = {2, 2}, [GS_OP_CVT] = {2, 3},
    [GS_OP_CVTA] = {2, 2}, [GS_OP_ISSPACEP] = {2, 2}, [GS_OP_LD] = {2, 3}, [GS_OP_LDU] = {2, 3},
    [GS_OP_ST] = {2, 3}, [GS_OP_ATOM] = {3, 5}, [GS_OP_RED] = {2, 4},
};

/* ops that read an address operand, and the top-level position where it must be (-1: the binder
 * checks the position: several memory operands or a position that depends on the form) */
static int mem_position(int op) {
    switch (op) {
    case GS_OP_LD: case GS_OP_LDU: case GS_OP_ATOM: return 1;
    case GS_OP_ST: case GS_OP_RED: return 0;
    case GS_OP_PREFETCH: case GS_OP_CACHE_HINT: case GS_OP_CP_ASYNC: case GS_OP_LDMATRIX:
    case GS_OP_STMATRIX: case GS_OP_WMMA_LOAD: case GS_OP_WMMA_STORE: case GS_OP_MBARRIER:
        return -1;
    default: return -2;   /* no memory operand at all */
    }
}

static int takes_vectors(int op) {
    switch (op) {
    case GS_OP_LD: case GS_OP_LDU: case GS_OP_ST: case GS_OP_ATOM: case GS_OP_RED: case GS_OP_MOV:
    case GS_OP_MMA: case GS_OP_WMMA_LOAD: case GS_OP_WMMA_STORE: case GS_OP_WMMA_MMA:
    case GS_OP_WGMMA_MMA: case GS_OP_LDMATRIX: case GS_OP_STMATRIX:
        return 1;
    default: return 0;
    }
}

/* 1 if top-level operand i (of n, nd destinations) of ir must be a predicate, 0 if it must not be one,
 * -1 if either is fine (the binder tells the forms apart) */
static int wants_pred(const gs_ir_inst *ir, int i, int n) {
    int nd = ir->ndst, last = i == n - 1, combine = ir->sub != GS_SUB_NONE && n - nd == 3;
    switch (ir->op) {
    case GS_OP_SETP: return i < nd ? 1 : (combine && last);
    case GS_OP_SET: return i >= nd && combine && last;
    case GS_OP_SELP: return i == 3;
    case GS_OP_TESTP: case GS_OP_ISSPACEP: return i == 0;
    case GS_OP_AND: case GS_OP_OR: case GS_OP_XOR: case GS_OP_NOT: case GS_OP_CNOT: case GS_OP_MOV:
        return ir->type == GS_T_PRED;
    case GS_OP_BAR:
        if (!(ir->flags & GS_F_RED)) return 0;
        return i == 0 ? ir->type == GS_T_PRED : last;
    case GS_OP_VOTE: return i == 1 ? 1 : (i == 0 ? -1 : 0);
    case GS_OP_SHFL: case GS_OP_MATCH: case GS_OP_ELECT: return i == 1 && nd == 2;
    case GS_OP_MBARRIER: return i == 0 ? -1 : 0;
    case GS_OP_CP_ASYNC: return last ? -1 : 0;
    case GS_OP_WGMMA_MMA: return i == 3 ? -1 : 0;
    default: return 0;
    }
}

/* may top-level destination i be the sink '_'? Only where the handler tests for it (a sink has no slot) */
static int sink_dst_ok(const gs_ir_inst *ir, int i) {
    switch (ir->op) {
    case GS_OP_LD: case GS_OP_LDU: case GS_OP_ATOM: case GS_OP_MBARRIER: return 1;
    case GS_OP_SETP: return i == 1;
    case GS_OP_ELECT: return 1;                                     /* d and p (exec_warp.c h_elect) */
    case GS_OP_SHFL: return i == 1;                                 /* p of d|p; d is always written */
    case GS_OP_MATCH: return ir->sub == GS_MATCH_ALL || i == 1;    /* match.all d|p: either; .any: d */
    default: return 0;                                              /* vote's d is always written */
    }
}

/* what to say after "cannot write to the sink": where this instruction does take one, if anywhere */
static const char *sink_hint(const gs_ir_inst *ir) {
    switch (ir->op) {
    case GS_OP_SHFL: return " (only the predicate p of d|p may be '_')";
    case GS_OP_SETP: return " (only the second predicate q of p|q may be '_')";
    case GS_OP_MATCH: return " (match.any writes its d; only match.all's d|p may hold '_')";
    default: return "";
    }
}

/* may an element of a destination vector be '_'? (ld/atom skip it, mov's unpack skips it) */
static int sink_element_ok(int op) {
    return op == GS_OP_LD || op == GS_OP_LDU || op == GS_OP_ATOM || op == GS_OP_MOV;
}

static int check_element(const gs_ir_inst *ir, int top, int e, const gs_ir_opnd *q, int is_dst, char *err,
                         uint32_t errlen) {
    int sink = is_dst && sink_element_ok(ir->op);
    uint32_t ok = is_dst ? (K_REG | (sink ? K_SINK : 0)) : (K_REG | K_IMM);
    if (!(KB(q->kind) & ok))
        return fail(err, errlen, "line %u: %s: element %d of vector operand %d is a %s; a vector %s of %s "
                    "holds registers%s", ir->line, gs_op_name(ir->op), e + 1, top + 1, kind_name(q->kind),
                    is_dst ? "destination" : "source", gs_op_name(ir->op),
                    is_dst ? (sink ? " or '_'" : "") : " or immediates");
    return 0;
}

int gs_ir_check_inst(const gs_ir_inst *ir, const gs_ir_opnd *opnds, uint32_t nopnds, const gs_ir_func *fn,
                     uint32_t ninsts, char *err, uint32_t errlen) {
    uint32_t line = ir->line;
    if (ir->op >= GS_OP__COUNT) return fail(err, errlen, "line %u: unknown op %u", line, ir->op);
    const char *name = gs_op_name(ir->op);
    if (ir->guard >= 0 && (uint32_t)ir->guard >= fn->npreds)
        return fail(err, errlen, "line %u: %s: guard predicate %d out of range", line, name, ir->guard);
    if ((ir->op == GS_OP_BRA || ir->op == GS_OP_CALL) && (ir->target < 0 || (uint32_t)ir->target >= ninsts))
        return fail(err, errlen, "line %u: %s: target %d outside the program", line, name, ir->target);
    if (ir->ndst > ir->nopnd)
        return fail(err, errlen, "line %u: %s: %u destinations but %u operands", line, name, ir->ndst, ir->nopnd);
    int n = ir->nopnd;
    arity a = ARITY[ir->op];
    int nw = n - (ir->ndst > 1 ? ir->ndst - 1 : 0);   /* as written: a destination pair p|q counts once */
    if (a.hi && (nw < a.lo || nw > a.hi)) {
        if (a.lo == a.hi) return fail(err, errlen, "line %u: %s takes %d operands, %d given", line, name, a.lo, nw);
        return fail(err, errlen, "line %u: %s takes %d to %d operands, %d given", line, name, a.lo, a.hi, nw);
    }
    int mpos = mem_position(ir->op), nmem = 0, vec = ir->vec > 1 ? ir->vec : 1;
    uint32_t j = ir->opnd;
    for (int i = 0; i < n; i++) {
        if (j >= nopnds) return fail(err, errlen, "line %u: %s: operand %d outside the operand array", line, name, i + 1);
        const gs_ir_opnd *o = &opnds[j];
        int is_dst = i < ir->ndst;
        uint32_t nel = o->kind == GS_OK_VEC ? o->n : 0;
        if (o->kind == GS_OK_VEC) {
            if (!takes_vectors(ir->op))
                return fail(err, errlen, "line %u: %s does not take a vector operand {...} (operand %d)", line,
                            name, i + 1);
            if (nel == 0 || (uint64_t)j + nel >= nopnds)
                return fail(err, errlen, "line %u: %s: vector operand %d has %u elements", line, name, i + 1, nel);
            int data = ir->op == GS_OP_LD || ir->op == GS_OP_LDU || ir->op == GS_OP_ST || ir->op == GS_OP_ATOM ||
                       ir->op == GS_OP_RED;
            if (data && (int)nel != vec)
                return fail(err, errlen, "line %u: %s%s needs %d register%s in {...}, operand %d has %u", line, name,
                            vec > 1 ? (vec == 2 ? ".v2" : vec == 4 ? ".v4" : ".v8") : "", vec, vec > 1 ? "s" : "",
                            i + 1, nel);
            for (uint32_t e = 1; e <= nel; e++) {
                const gs_ir_opnd *q = &opnds[j + e];
                if (q->kind == GS_OK_VEC)
                    return fail(err, errlen, "line %u: %s: nested vector operand", line, name);
                if (check_element(ir, i, (int)e - 1, q, is_dst, err, errlen)) return -1;
            }
        } else if (vec > 1 && (ir->op == GS_OP_LD || ir->op == GS_OP_LDU || ir->op == GS_OP_ST) &&
                   i == (ir->op == GS_OP_ST ? 1 : 0)) {
            return fail(err, errlen, "line %u: %s.v%d needs a vector of %d registers {...} as operand %d, "
                        "not a %s", line, name, vec, vec, i + 1, kind_name(o->kind));
        }
        /* kinds of the operand and of each vector element */
        for (uint32_t e = 0; e <= nel; e++) {
            const gs_ir_opnd *q = &opnds[j + e];
            int k = q->kind;
            if ((k == GS_OK_REG || (k == GS_OK_MEM && q->reg >= 0)) && (q->reg < 0 || (uint32_t)q->reg >= fn->nregs))
                return fail(err, errlen, "line %u: %s: register index %d out of range (function has %u)", line,
                            name, q->reg, fn->nregs);
            if (k == GS_OK_PRED && (q->reg < 0 || (uint32_t)q->reg >= fn->npreds))
                return fail(err, errlen, "line %u: %s: predicate index %d out of range (function has %u)", line,
                            name, q->reg, fn->npreds);
            if (k == GS_OK_SREG && q->n >= GS_SR__COUNT)
                return fail(err, errlen, "line %u: %s: special register %u unknown", line, name, q->n);
            if (k == GS_OK_NONE || k > GS_OK_SINK)
                return fail(err, errlen, "line %u: %s: operand %d has no valid kind (%d)", line, name, i + 1, k);
        }
        if (is_dst && !(KB(o->kind) & (K_REG | K_PRED | K_SINK | K_VEC)))
            return fail(err, errlen, "line %u: %s: operand %d is written, but it is a %s", line, name, i + 1,
                        kind_name(o->kind));
        if (is_dst && o->kind == GS_OK_SINK && !sink_dst_ok(ir, i))
            return fail(err, errlen, "line %u: %s cannot write to the sink '_' (operand %d): give it a register%s",
                        line, name, i + 1, sink_hint(ir));
        if (!is_dst && o->kind == GS_OK_SINK)
            return fail(err, errlen, "line %u: %s: the sink '_' cannot be read (operand %d)", line, name, i + 1);
        if (o->kind == GS_OK_MEM) {
            nmem++;
            if (mpos == -2)
                return fail(err, errlen, "line %u: %s does not access memory: operand %d cannot be an address "
                            "[...]", line, name, i + 1);
            if (mpos >= 0 && i != mpos)
                return fail(err, errlen, "line %u: %s: operand %d cannot be an address [...] (the address is "
                            "operand %d)", line, name, i + 1, mpos + 1);
        } else if (mpos >= 0 && i == mpos) {
            return fail(err, errlen, "line %u: %s needs an address [...] as operand %d, not a %s", line, name,
                        i + 1, kind_name(o->kind));
        }
        if (o->kind == GS_OK_SREG && ir->op != GS_OP_MOV)
            return fail(err, errlen, "line %u: %s cannot read special registers (operand %d): copy it with mov "
                        "first", line, name, i + 1);
        int wp = wants_pred(ir, i, n);
        if (wp == 1 && !(KB(o->kind) & (K_PRED | (is_dst ? K_SINK : 0) |
                                         ((ir->type == GS_T_PRED && !is_dst) ? K_IMM : 0))))
            return fail(err, errlen, "line %u: %s: operand %d must be a predicate, not a %s", line, name, i + 1,
                        kind_name(o->kind));
        if (wp == 0 && o->kind == GS_OK_PRED)
            return fail(err, errlen, "line %u: %s: operand %d is a predicate where a value is read or written",
                        line, name, i + 1);
        j += 1 + nel;
    }
    if (mpos >= 0 && nmem != 1)
        return fail(err, errlen, "line %u: %s needs exactly one address [...], %d given", line, name, nmem);
    (void)ninsts;
    return 0;
}

int32_t gs_ir_check(const gs_ir_inst *insts, uint32_t ninsts, const gs_ir_opnd *opnds, uint32_t nopnds,
                    const gs_ir_func *funcs, uint32_t nfuncs, char *err, uint32_t errlen) {
    if (err && errlen) err[0] = 0;
    for (uint32_t f = 0; f < nfuncs; f++) {
        const gs_ir_func *fn = &funcs[f];
        if (fn->entry_pc < 0 || fn->end_pc < fn->entry_pc || (uint32_t)fn->end_pc > ninsts) {
            fail(err, errlen, "function %u: bad instruction range [%d, %d)", f, fn->entry_pc, fn->end_pc);
            return fn->entry_pc >= 0 && (uint32_t)fn->entry_pc < ninsts ? fn->entry_pc : 0;
        }
        if (fn->param_bytes > MAX_PARAM_BYTES || fn->local_bytes > MAX_LOCAL_BYTES ||
            fn->shared_bytes > MAX_SHARED_BYTES) {
            fail(err, errlen, "function %u: memory sizes out of range (param %u, local %u, shared %u bytes)", f,
                 fn->param_bytes, fn->local_bytes, fn->shared_bytes);
            return fn->entry_pc < fn->end_pc ? fn->entry_pc : 0;
        }
        for (int32_t pc = fn->entry_pc; pc < fn->end_pc; pc++)
            if (gs_ir_check_inst(&insts[pc], opnds, nopnds, fn, ninsts, err, errlen)) return pc;
    }
    return -1;
}
