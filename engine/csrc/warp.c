/* warp.c — executing one warp instruction: the SIMT reconvergence stack and the step function.
 *
 * The stack holds (pc, rpc, mask) entries; the top one runs. A divergent branch turns the current
 * entry into the reconvergence entry (pc = rpc, full mask) and pushes the not-taken and the taken path,
 * each with rpc = the branch's immediate post-dominator (computed by the front end). An entry is popped
 * when its pc reaches its rpc or when all its lanes have exited. rpc = -1 means "no reconvergence before
 * the kernel exits": such paths run until their lanes exit.
 *
 * Contract of gs_warp_step: executes exactly one instruction of a READY warp (guard-false instructions
 * included, as the hardware issues them) and returns the handler result (enum gs_xres). The caller
 * (functional scheduler or timing model) decides when to call it.
 */
#include "internal.h"

void gs_warp_exit_lanes(gs_warp *w, uint32_t m) {
    w->exited |= m;
    w->live &= ~m;
    for (int i = 0; i < w->sp; i++) w->stack[i].mask &= ~m;
}

/* Pop finished entries; returns the pc to run next, or -1 when the warp has nothing left. */
int gs_warp_next_pc_slow(const gs_warp *cw) {
    gs_warp *w = (gs_warp *)cw;
    while (w->sp > 0) {
        gs_simt *t = &w->stack[w->sp - 1];
        if (t->mask != 0 && t->pc != t->rpc) return t->pc;
        w->sp--;
    }
    return -1;
}

int gs_warp_step(gs_ctx *c, gs_warp *w) {
    int pc = gs_warp_next_pc(w);
    if (pc < 0) {
        w->state = GS_W_DONE;
        return GS_X_JUMPED;
    }
    gs_simt *t = &w->stack[w->sp - 1];
    if ((uint32_t)pc >= c->prog->ninsts) {
        return gs_fault_set(c, w, NULL, GS_FAULT_INVALID, -1, 0, 0,
                            "pc %d ran past the end of the program", pc);
    }
    const gs_xinst *x = &c->prog->x[pc];
    uint32_t m = t->mask;
    if (x->guard >= 0) {
        uint32_t g = w->P[x->guard];
        m &= x->guard_neg ? ~g : g;
    }
    w->insts++;
    if (c->stats) {
        c->stats->warp_insts++;
        c->stats->thread_insts += (uint64_t)__builtin_popcount(m);
        c->stats->op_counts[x->op]++;
    }
    if (m == 0) {   /* guard false on every lane: issued, no effect */
        t->pc++;
        return GS_X_NEXT;
    }
    c->nmext = 0;
    int r = x->fn(c, w, x, m);
    if (r == GS_X_NEXT) w->stack[w->sp - 1].pc++;
    if (gs_warp_next_pc(w) < 0) w->state = GS_W_DONE;
    return r;
}
