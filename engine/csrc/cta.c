/* cta.c — a CTA's state: its warps and their register files, shared and local memory, barriers.
 *
 * Barrier semantics (sm_70+): a warp arriving at bar.sync/barrier.sync counts its active threads; the
 * barrier completes when the count reaches the expected number (operand b, or every thread of the CTA
 * that has not exited). Threads that exit stop being expected, so "if (tid >= n) return;
 * __syncthreads();" works as on hardware. A warp that arrives diverged leaves its other lanes behind on
 * the reconvergence stack; if they are expected, nothing can complete the barrier and the scheduler
 * reports a deadlock (gs_cta_check_deadlock) naming the barrier and the missing threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "hostmem.h"
#include "livein.h"

/* Per-lane tid.x/y/z of the warp whose lane 0 is thread `first`: the values of t % bx, t / bx % by and
 * t / (bx * by) for t = first + lane, without the three divisions per lane that were most of a CTA's
 * set-up. When the warp lies within one row of the block (every 1-D block of whole warps) x counts up and
 * y, z stay; otherwise x steps and carries into y and z. */
static void warp_tids(gs_warp *w, uint32_t first, const uint32_t block[3]) {
    uint32_t bx = block[0], by = block[1];
    uint32_t x = first % bx, y = (first / bx) % by, z = first / (bx * by);
    uint32_t *tx = w->tid, *ty = w->tid + GS_WARP, *tz = w->tid + 2 * GS_WARP;
    if (bx - x >= GS_WARP) {
        for (uint32_t l = 0; l < GS_WARP; l++) { tx[l] = x + l; ty[l] = y; tz[l] = z; }
        return;
    }
    for (int l = 0; l < GS_WARP; l++) {
        tx[l] = x;
        ty[l] = y;
        tz[l] = z;
        if (++x == bx) {
            x = 0;
            if (++y == by) { y = 0; z++; }
        }
    }
}

/* The slots of w's register file (nslots) that the function's threads may read before writing them, zeroed
 * (livein.h): what a file, fresh or left by the previous CTA, must look like for results to be those of a
 * cleared one; nothing reads the other slots before writing them */
static void clear_live_in(gs_warp *w, const gs_program *p, int32_t func, uint32_t nslots) {
    if (!p->clr_runs) {
        memset(w->R + (size_t)p->nconst * GS_WARP, 0, (size_t)(nslots - p->nconst) * GS_WARP * sizeof *w->R);
        return;
    }
    for (uint32_t k = p->clr_first[func]; k < p->clr_first[func + 1]; k++) {
        const gs_slot_run *r = &p->clr_runs[k];
        if (r->first >= nslots) break;
        uint32_t n = r->n < nslots - r->first ? r->n : nslots - r->first;
        memset(w->R + (size_t)r->first * GS_WARP, 0, (size_t)n * GS_WARP * sizeof *w->R);
    }
}

int gs_cta_init(gs_cta *cta, gs_ctx *c, const uint32_t id[3], gs_fault *fault) {
    const gs_launch_desc *d = c->ld;
    const gs_ir_func *f = &c->prog->funcs[d->func];
    uint32_t nthreads = d->block[0] * d->block[1] * d->block[2];
    uint32_t nwarps = (nthreads + GS_WARP - 1) / GS_WARP;
    uint32_t shared = f->shared_bytes + d->dyn_shared_bytes;
    uint32_t nslots = c->nregs_total;
    size_t regbytes = (size_t)nslots * GS_WARP * sizeof(uint64_t);
    size_t cbytes = (size_t)c->prog->nconst * GS_WARP * sizeof(uint64_t);
    bool reuse = cta->warps && cta->nwarps == nwarps && cta->shared_bytes == shared &&
                 cta->local_bytes == f->local_bytes;
    if (!reuse) {
        gs_cta_free(cta);
        memset(cta, 0, sizeof *cta);
        /* warps and register slots (32 x 8 bytes) start host cache lines: a slot is 4 lines, not 5 */
        cta->warps = aligned_alloc(GS_HOST_LINE, nwarps * sizeof *cta->warps);
        if (cta->warps) memset(cta->warps, 0, nwarps * sizeof *cta->warps);
        cta->bar_wait = calloc(nwarps, sizeof *cta->bar_wait);
        cta->shared = gs_line_calloc(shared ? shared : 1, 1);
        uint64_t *R = aligned_alloc(GS_HOST_LINE, regbytes * nwarps > 0 ? regbytes * nwarps : GS_HOST_LINE);
        uint32_t *P = calloc((size_t)nwarps * (c->npreds + 1), sizeof *P);
        uint8_t *L = calloc((size_t)nwarps * GS_WARP * (f->local_bytes ? f->local_bytes : 1), 1);
        if (!cta->warps || !cta->bar_wait || !cta->shared || !R || !P || !L) {
            free(R); free(P); free(L);
            gs_cta_free(cta);
            fault->kind = GS_FAULT_INVALID;
            snprintf(fault->message, sizeof fault->message, "out of host memory for a CTA");
            return -1;
        }
        cta->nwarps = nwarps;
        cta->shared_bytes = shared;
        cta->local_bytes = f->local_bytes;
        for (uint32_t i = 0; i < nwarps; i++) {
            gs_warp *w = &cta->warps[i];
            w->R = R + (size_t)i * nslots * GS_WARP;
            w->P = P + (size_t)i * (c->npreds + 1);
            w->local = L + (size_t)i * GS_WARP * (f->local_bytes ? f->local_bytes : 1);
            memcpy(w->R, c->prog->const_regs, cbytes);
        }
    } else {
        memset(cta->shared, 0, shared ? shared : 1);
        memset(cta->bar_wait, 0, nwarps * sizeof *cta->bar_wait);
        memset(cta->warps[0].local, 0, (size_t)nwarps * GS_WARP * (f->local_bytes ? f->local_bytes : 1));
        memset(cta->warps[0].P, 0, (size_t)nwarps * (c->npreds + 1) * sizeof(uint32_t));
    }
    memcpy(cta->id, id, sizeof cta->id);
    cta->linear = id[0] + d->grid[0] * (id[1] + d->grid[1] * id[2]);
    cta->nthreads = nthreads;
    cta->live_threads = nthreads;
    cta->warps_done = 0;
    cta->sm = -1;
    memset(cta->bars, 0, sizeof cta->bars);
    cta->bars_armed = 0;
    for (uint32_t i = 0; i < nwarps; i++) {
        gs_warp *w = &cta->warps[i];
        clear_live_in(w, c->prog, d->func, nslots);   /* (a fresh file's other slots are never read either) */
        w->cta = cta;
        w->idx = (int32_t)i;
        uint32_t first = i * GS_WARP;
        uint32_t n = nthreads - first < GS_WARP ? nthreads - first : GS_WARP;
        w->live = n == GS_WARP ? GS_FULL : ((1u << n) - 1u);
        w->exited = 0;
        w->sp = 1;
        w->stack[0] = (gs_simt){.pc = f->entry_pc, .rpc = -1, .mask = w->live, .call_depth = 0};
        w->ncalls = 0;
        w->state = GS_W_READY;
        w->bar_id = -1;
        w->bar_red_kind = 0;
        w->insts = 0;
        w->tid_base = first;
        w->cp_groups_pending = 0;
        w->wg_pending = 0;
        warp_tids(w, first, d->block);
    }
    return 0;
}

void gs_cta_free(gs_cta *cta) {
    if (!cta->warps) return;
    free(cta->warps[0].R);
    free(cta->warps[0].P);
    free(cta->warps[0].local);
    free(cta->warps);
    free(cta->bar_wait);
    free(cta->shared);
    cta->warps = NULL;
    cta->bar_wait = NULL;
    cta->shared = NULL;
}

static void release(gs_cta *cta, int bar) {
    gs_barrier *b = &cta->bars[bar];
    for (uint32_t i = 0; i < cta->nwarps; i++) {
        if (cta->bar_wait[i] != (uint32_t)bar + 1) continue;
        gs_warp *w = &cta->warps[i];
        cta->bar_wait[i] = 0;
        if (w->state == GS_W_BAR) w->state = GS_W_READY;
        if (w->bar_red_kind == 1) {
            for (int l = 0; l < GS_WARP; l++) w->R[w->bar_dst + l] = b->red_val;
        } else if (w->bar_red_kind == 2) {
            w->P[w->bar_dst] = b->red_val ? GS_FULL : 0;
        }
        w->bar_red_kind = 0;
        w->bar_id = -1;
    }
    b->arrived = 0;
    b->expected = 0;
    b->red_op = 0;
    b->red_val = 0;
    cta->bars_armed &= ~(1u << bar);
}

static void check_release(gs_cta *cta, int bar) {
    gs_barrier *b = &cta->bars[bar];
    if (b->arrived == 0) return;
    uint32_t need = b->expected ? b->expected : cta->live_threads;
    if (b->arrived >= need) release(cta, bar);
}

int gs_cta_barrier_arrive(gs_ctx *c, gs_cta *cta, gs_warp *w, int bar, uint32_t expected,
                          uint32_t count, int arrive_only) {
    (void)c;
    gs_barrier *b = &cta->bars[bar];
    if (b->arrived == 0) b->expected = expected;
    b->arrived += count;
    if (b->arrived) cta->bars_armed |= 1u << bar;
    if (!arrive_only) {
        w->state = GS_W_BAR;
        w->bar_id = bar;
        cta->bar_wait[w->idx] = (uint32_t)bar + 1;
    }
    check_release(cta, bar);
    return 0;
}

void gs_cta_thread_exit(gs_ctx *c, gs_cta *cta, uint32_t n) {
    (void)c;
    cta->live_threads -= n;
    /* only a barrier some thread arrived at can complete (check_release skips the others), in id order;
     * a release clears only its own bit, so the snapshot stays exact */
    for (uint32_t armed = cta->bars_armed; armed; armed &= armed - 1) check_release(cta, __builtin_ctz(armed));
}

int gs_cta_check_deadlock(gs_ctx *c, gs_cta *cta) {
    /* Called when no warp of the CTA can run and some have not finished. */
    int bar = -1;
    uint32_t waiting = 0;
    for (uint32_t i = 0; i < cta->nwarps; i++)
        if (cta->bar_wait[i]) { bar = (int)cta->bar_wait[i] - 1; waiting++; }
    gs_warp *culprit = NULL;
    uint32_t missing = 0;
    int culprit_line = 0;
    for (uint32_t i = 0; i < cta->nwarps && !culprit; i++) {
        gs_warp *w = &cta->warps[i];
        if (w->state == GS_W_DONE) continue;
        /* lanes of a waiting warp that sit on the stack below the running entry never arrived; so
         * did live lanes missing from its arrival mask (they may already have been popped back into
         * a reconvergence entry when the arriving path's pc reached its rpc) */
        uint32_t top = w->sp ? w->stack[w->sp - 1].mask : 0;
        if (w->state == GS_W_BAR && (w->live & ~w->bar_mask)) {
            culprit = w;
            missing = w->live & ~w->bar_mask;
            int pc = w->sp ? w->stack[w->sp - 1].pc : -1;
            culprit_line = (pc >= 0 && (uint32_t)pc < c->prog->ninsts) ? (int)c->prog->x[pc].line : 0;
            break;
        }
        for (int e = w->sp - 2; e >= 0; e--) {
            uint32_t lost = w->stack[e].mask & ~top;
            if (lost) {
                culprit = w;
                missing = lost;
                int pc = w->stack[e].pc;
                culprit_line = (pc >= 0 && (uint32_t)pc < c->prog->ninsts) ? (int)c->prog->x[pc].line : 0;
                break;
            }
        }
    }
    gs_barrier *b = bar >= 0 ? &cta->bars[bar] : NULL;
    uint32_t need = b ? (b->expected ? b->expected : cta->live_threads) : 0;
    const gs_xinst *x = NULL;
    gs_warp *w0 = NULL;
    for (uint32_t i = 0; i < cta->nwarps; i++)
        if (cta->bar_wait[i]) { w0 = &cta->warps[i]; break; }
    if (w0 && w0->sp) {
        int pc = w0->stack[w0->sp - 1].pc - 1;   /* the barrier instruction it passed */
        if (pc >= 0 && (uint32_t)pc < c->prog->ninsts) x = &c->prog->x[pc];
    }
    if (culprit)
        return gs_fault_set(c, culprit, x, GS_FAULT_DEADLOCK, __builtin_ctz(missing), 0, 0,
                            "barrier deadlock: barrier %d has %u of %u threads; %u warp(s) wait; "
                            "warp %d lanes 0x%08x diverged and never reach it (they wait at line %d)",
                            bar, b ? b->arrived : 0, need, waiting, culprit->idx, missing, culprit_line);
    return gs_fault_set(c, w0, x, GS_FAULT_DEADLOCK, -1, 0, 0,
                        "barrier deadlock: barrier %d has %u of %u threads; %u warp(s) wait and no "
                        "other thread can arrive", bar, b ? b->arrived : 0, need, waiting);
}
