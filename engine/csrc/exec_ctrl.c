/* exec_ctrl.c — control flow: branches (divergence), calls, exits, barriers, traps, fences. */
#include "internal.h"

static int h_nop(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    (void)c; (void)w; (void)x; (void)m;
    return GS_X_NEXT;
}

static int h_bra(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    gs_simt *t = &w->stack[w->sp - 1];
    uint32_t a = t->mask;
    if (m == a) { t->pc = x->target; return GS_X_JUMPED; }
    if (w->sp + 2 > GS_MAX_STACK)
        return gs_fault_set(c, w, x, GS_FAULT_INVALID, -1, 0, 0,
                            "reconvergence stack overflow (%d entries)", GS_MAX_STACK);
    int32_t fall = t->pc + 1;
    t->pc = x->rpc;   /* reconvergence entry (never runs if rpc == -1: its lanes exit first) */
    w->stack[w->sp++] = (gs_simt){.pc = fall, .rpc = x->rpc, .mask = a & ~m, .call_depth = w->ncalls};
    w->stack[w->sp++] = (gs_simt){.pc = x->target, .rpc = x->rpc, .mask = m, .call_depth = w->ncalls};
    return GS_X_JUMPED;
}

static int h_exit(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    (void)x;
    gs_simt *t = &w->stack[w->sp - 1];
    uint32_t stay = t->mask & ~m;
    gs_warp_exit_lanes(w, m);
    if (stay) t->pc++;
    gs_cta_thread_exit(c, w->cta, (uint32_t)__builtin_popcount(m));
    return GS_X_JUMPED;
}

static int h_call(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    gs_simt *t = &w->stack[w->sp - 1];
    if (m != t->mask)
        return gs_fault_set(c, w, x, GS_FAULT_UNSUPPORTED, -1, 0, 0, "predicated call on part of a warp");
    if (w->ncalls == GS_MAX_CALL)
        return gs_fault_set(c, w, x, GS_FAULT_INVALID, -1, 0, 0, "call depth exceeds %d", GS_MAX_CALL);
    w->calls[w->ncalls++] = t->pc + 1;
    t->pc = x->target;
    return GS_X_JUMPED;
}

static int h_ret(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    if (w->ncalls == 0) return h_exit(c, w, x, m);   /* ret from the kernel entry */
    gs_simt *t = &w->stack[w->sp - 1];
    t->pc = w->calls[--w->ncalls];
    return GS_X_JUMPED;
}

static int h_trap(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    return gs_fault_set(c, w, x, GS_FAULT_TRAP, __builtin_ctz(m), 0, 0, "%s executed",
                        x->op == GS_OP_TRAP ? "trap" : "brkpt");
}

/* call __assertfail, (message, file, line, function, charSize): CUDA's and Triton's device assert. The
 * front end lays the five parameters out in the caller's local memory at x->aux (8, 8, 4 + 4 padding,
 * 8, 8 bytes); the run stops with a trap fault that quotes the message, file and line of the first
 * lane, as the CUDA runtime prints them. Strings are read from global memory without faulting. */
static void global_cstr(gs_ctx *c, uint64_t addr, char *out, size_t n) {
    size_t i = 0;
    for (gs_alloc *a; i + 1 < n && (a = gs_mem_find(c->dev, addr + i, 1)) != NULL; i++) {
        char ch = (char)a->host[addr + i - a->base];
        if (!ch) break;
        out[i] = ch;
    }
    out[i] = 0;
}
static int h_assertfail(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    int lane = __builtin_ctz(m);
    uint64_t msg = 0, file = 0;
    uint32_t line = 0;
    const uint8_t *p = gs_mem_lane(c, w, x, GS_SPACE_LOCAL, x->aux, 8, lane);
    if (p) memcpy(&msg, p, 8);
    p = p ? gs_mem_lane(c, w, x, GS_SPACE_LOCAL, x->aux + 8, 8, lane) : NULL;
    if (p) memcpy(&file, p, 8);
    p = p ? gs_mem_lane(c, w, x, GS_SPACE_LOCAL, x->aux + 16, 4, lane) : NULL;
    if (!p) return GS_X_FAULT;
    memcpy(&line, p, 4);
    char smsg[160], sfile[160];
    global_cstr(c, msg, smsg, sizeof smsg);
    global_cstr(c, file, sfile, sizeof sfile);
    return gs_fault_set(c, w, x, GS_FAULT_TRAP, lane, 0, 0, "device-side assertion failed: %s (%s:%u)",
                        smsg[0] ? smsg : "?", sfile[0] ? sfile : "?", line);
}

/* bar{.cta}.sync a{, b};  bar.arrive a, b;  bar.red.op.type d, a{, b}, {!}c; */
static uint32_t uniform_u32(gs_warp *w, uint32_t off, uint32_t m) {
    return (uint32_t)w->R[off + (uint32_t)__builtin_ctz(m)];
}

static int h_bar(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m) {
    gs_simt *t = &w->stack[w->sp - 1];
    int red = (x->flags & GS_F_RED) != 0;
    int k = red ? 1 : 0;                       /* bar.red has its destination first */
    int nsrc = x->ir->nopnd - k - (red ? 1 : 0);
    uint32_t id = uniform_u32(w, x->ops[k], m);
    uint32_t expected = nsrc >= 2 ? uniform_u32(w, x->ops[k + 1], m) : 0;
    if (id >= GS_MAX_BARRIERS)
        return gs_fault_set(c, w, x, GS_FAULT_INVALID, -1, 0, 0, "barrier id %u out of range (0..15)", id);
    if (expected && (expected % GS_WARP))
        return gs_fault_set(c, w, x, GS_FAULT_INVALID, -1, 0, 0,
                            "barrier thread count %u is not a multiple of the warp size", expected);
    gs_barrier *b = &w->cta->bars[id];
    if (red) {
        uint32_t p = x->ops[x->nops - 1];
        uint32_t pm = w->P[p & 0x7fffffffu];
        if (p & 0x80000000u) pm = ~pm;
        pm &= m;
        if (b->arrived == 0) {
            b->red_op = x->sub;
            b->red_val = x->sub == GS_ATOM_AND ? 1u : 0u;
        }
        if (x->sub == GS_ATOM_ADD) b->red_val += (uint32_t)__builtin_popcount(pm);
        else if (x->sub == GS_ATOM_AND) b->red_val &= (pm == m);
        else b->red_val |= (pm != 0);
        w->bar_red_kind = x->type == GS_T_PRED ? 2 : 1;
        w->bar_dst = (int32_t)(x->type == GS_T_PRED ? (x->ops[0] & 0x7fffffffu) : x->ops[0]);
    }
    t->pc++;
    w->bar_mask = m;
    gs_cta_barrier_arrive(c, w->cta, w, (int)id, expected, (uint32_t)__builtin_popcount(m),
                          (x->flags & GS_F_ARRIVE) != 0);
    return w->state == GS_W_BAR ? GS_X_BLOCKED : GS_X_JUMPED;
}

gs_handler gs_bind_ctrl(const gs_xinst *x) {
    switch (x->op) {
    case GS_OP_NOP: case GS_OP_MEMBAR: case GS_OP_NANOSLEEP: case GS_OP_BAR_WARP:
    case GS_OP_PREFETCH: case GS_OP_CACHE_HINT: case GS_OP_WGMMA_FENCE:
        return h_nop;
    case GS_OP_BRA: return h_bra;
    case GS_OP_EXIT: return h_exit;
    case GS_OP_CALL: return h_call;
    case GS_OP_RET: return h_ret;
    case GS_OP_TRAP: return x->sub == GS_TRAP_ASSERTFAIL ? h_assertfail : h_trap;
    case GS_OP_BRKPT: return h_trap;
    case GS_OP_BAR:
        if (x->flags & GS_F_RED) {
            if (x->sub == GS_ATOM_ADD && (x->type == GS_T_U32 || x->type == GS_T_B32)) return h_bar;
            if ((x->sub == GS_ATOM_AND || x->sub == GS_ATOM_OR) && x->type == GS_T_PRED) return h_bar;
            return NULL;
        }
        return h_bar;
    default: return NULL;
    }
}
