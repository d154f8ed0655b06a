/* trace_src.c — the trace-driven instruction source (see trace_src.h) and gs_tsim_launch_trace. */
#include <stdio.h>
#include <stdlib.h>
#include "trace_src.h"
#include "trace_read.h"
#include "tsm_tables.h"

#define SHARED_WINDOW (16ull << 20)   /* generic addresses this far above -shmem base_addr are shared */
#define LOCAL_WINDOW (16ull << 20)

struct gs_tsrc {
    gs_trace *t;
    gs_trblock *blocks;               /* one per CTA slot: num_sms * max_ctas (only those in flight) */
    uint32_t max_ctas, nblocks;
    size_t pc_cap;                    /* entries of the workers' pc_issued / pc_stalls */
};

static int src_fault(gs_tsim *ts, const char *msg) {
    ts->fault.kind = GS_FAULT_INVALID;
    snprintf(ts->fault.message, sizeof ts->fault.message, "%s", msg);
    ts->status = GS_FAULTED;
    return -1;
}

/* the per-PC statistics (each simulation thread's) follow the instruction table as new PCs appear */
static int grow_pc_stats(gs_tsim *ts, struct gs_tsrc *src) {
    size_t n = ts->prog->ninsts;
    if (n <= src->pc_cap) return 0;
    size_t c = src->pc_cap ? src->pc_cap : 64;
    while (c < n) c *= 2;
    for (uint32_t k = 0; k < ts->nthreads; k++) {
        gs_worker *wk = &ts->wk[k];
        uint64_t *a = realloc(wk->pc_issued, c * sizeof *a);
        if (!a) return src_fault(ts, "out of memory for per-PC statistics");
        wk->pc_issued = a;
        uint64_t *b = realloc(wk->pc_stalls, c * GS_WS__COUNT * sizeof *b);
        if (!b) return src_fault(ts, "out of memory for per-PC statistics");
        wk->pc_stalls = b;
        memset(a + src->pc_cap, 0, (c - src->pc_cap) * sizeof *a);
        memset(b + src->pc_cap * GS_WS__COUNT, 0, (c - src->pc_cap) * GS_WS__COUNT * sizeof *b);
    }
    src->pc_cap = c;
    return 0;
}

static inline gs_trblock *block_of(struct gs_tsrc *src, gs_tsm *sm, const gs_tcta *tc) {
    return &src->blocks[(size_t)sm->id * src->max_ctas + (size_t)(tc - sm->ctas)];
}

uint64_t gs_tsrc_fetch_addr(const gs_tsim *ts, int idx) {
    const struct gs_tsrc *src = ts->prog->trace;
    return src->t->pcs[idx].pc;
}

int gs_tsrc_cta_begin(gs_tsim *ts, gs_tsm *sm, gs_tcta *tc) {
    struct gs_tsrc *src = ts->prog->trace;
    gs_trblock *b = block_of(src, sm, tc);
    int r = gs_trace_read_block(src->t, b);
    if (r < 0) return src_fault(ts, src->t->err);
    if (r == 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: the trace ends after %llu thread blocks, but the grid has %llu", src->t->name,
                 (unsigned long long)src->t->blocks_read, (unsigned long long)ts->total_ctas);
        return src_fault(ts, msg);
    }
    if (grow_pc_stats(ts, src)) return -1;
    b->arrived = 0;
    b->alive = 0;
    gs_cta *cta = &tc->cta;
    for (uint32_t k = 0; k < cta->nwarps; k++) {
        gs_warp *w = &cta->warps[k];
        const gs_trwarp *tw = &b->warps[k];
        if (tw->n == 0) { w->sp = 0; w->state = GS_W_DONE; continue; }
        w->stack[0].pc = (int32_t)b->recs[tw->first].idx;
        b->alive++;
    }
    return 0;
}

static void release(gs_trblock *b, gs_cta *cta) {
    for (uint32_t k = 0; k < cta->nwarps; k++)
        if (cta->warps[k].state == GS_W_BAR) cta->warps[k].state = GS_W_READY;
    b->arrived = 0;
}

int gs_tsrc_step(gs_tsim *ts, gs_tsm *sm, gs_tw *tw) {
    struct gs_tsrc *src = ts->prog->trace;
    gs_trace *t = src->t;
    gs_warp *w = tw->w;
    gs_trblock *b = block_of(src, sm, tw->cta);
    const gs_trrec *r = tw->tr_next;                /* the warp's cursor lives in its (hot) slot */
    if (!r) {
        const gs_trwarp *wr = &b->warps[w->idx];
        r = &b->recs[wr->first];
        tw->tr_left = wr->n;
    }
    tw->tr_next = r + 1;
    tw->tr_left--;
    const gs_trpc *p = &t->pcs[r->idx];
    uint32_t mask = r->mask;
    gs_func_stats *fs = &sm->wk->fstats;            /* this SM's thread's counters (tsim.c) */
    fs->warp_insts++;
    fs->thread_insts += (uint32_t)__builtin_popcount(mask);
    fs->op_counts[t->prog.x[r->idx].op]++;
    w->insts++;
    sm->wk->ctx.nmext = 0;
    if (r->aoff != UINT64_MAX) {
        uint64_t a0 = gs_trrec_addrs(b, r, w->maddr);
        int space = p->space;
        if (space == GS_SPACE_GENERIC && mask) {      /* generic: by the shared and local windows */
            const gs_trace_header *h = &t->hdr;
            if (h->shmem_base && a0 >= h->shmem_base && a0 - h->shmem_base < SHARED_WINDOW) space = GS_SPACE_SHARED;
            else if (h->local_base && a0 >= h->local_base && a0 - h->local_base < LOCAL_WINDOW) space = GS_SPACE_LOCAL;
            else space = GS_SPACE_GLOBAL;
        } else if (space == GS_SPACE_NONE || space == GS_SPACE_GENERIC) {
            space = GS_SPACE_GLOBAL;
        }
        w->mmask = mask;
        w->msize = p->width ? p->width : 4;
        w->mspace = (uint8_t)space;
        w->mwrite = p->kind == GS_TK_STORE || p->kind == GS_TK_ATOMIC;
        w->matomic = p->kind == GS_TK_ATOMIC;
    } else {
        w->mmask = 0;
    }
    int finished = tw->tr_left == 0;
    if (p->kind == GS_TK_BARRIER && !finished) {
        if (++b->arrived >= b->alive) release(b, &tw->cta->cta);
        else w->state = GS_W_BAR;
    }
    if (finished) {
        w->sp = 0;
        w->state = GS_W_DONE;
        b->alive--;
        if (b->arrived && b->arrived >= b->alive) release(b, &tw->cta->cta);
    } else {
        const gs_trrec *nx = r + 1;                     /* its next record: cached by the prefetch below */
        w->stack[0].pc = (int32_t)nx->idx;
        if (tw->tr_left > 1) __builtin_prefetch(nx + 1);
        if (nx->aoff != UINT64_MAX) __builtin_prefetch(b->addrs + (nx->aoff & ~GS_TR_AFFINE));
    }
    return GS_X_NEXT;
}

int gs_tsim_launch_trace(gs_tsim *ts, gs_device *dev, gs_trace *t, const gs_record_opts *rec, gs_fault *fault) {
    const gs_trace_header *h = &t->hdr;
    gs_launch_desc d;
    memset(&d, 0, sizeof d);
    d.func = 0;
    memcpy(d.grid, h->grid, sizeof d.grid);
    memcpy(d.block, h->block, sizeof d.block);
    struct gs_tsrc *src = t->prog.trace;
    if (!src) {
        src = calloc(1, sizeof *src);
        if (!src) { snprintf(fault->message, sizeof fault->message, "out of memory"); fault->kind = GS_FAULT_INVALID; return GS_FAULTED; }
        src->t = t;
        t->prog.trace = src;
    }
    uint8_t noparams = 0;
    int r = gs_tsim_launch(ts, dev, &t->prog, &d, &noparams, 0, rec, fault);
    if (r == GS_FAULTED) return r;
    /* the scoreboard covers R0..R255 and UR0..UR63, although warps hold no register values (the CTA's
     * register files are one slot: nothing executes, and clearing 320 slots per warp per CTA cost 10 %) */
    uint32_t nslots = GS_TR_RSLOTS + GS_TR_URSLOTS;
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++)
        for (uint32_t w = 0; w < gs_tsim_warp_slots(ts); w++)      /* (the slots its warps can take) */
            if (gs_tsm_scoreboards(ts, &ts->sms[s].tw[w], nslots, ts->npreds + 1)) {
                snprintf(fault->message, sizeof fault->message, "out of memory");
                fault->kind = GS_FAULT_INVALID;
                return GS_FAULTED;
            }
    ts->nslots = nslots;
    size_t nb = (size_t)ts->cfg.gpu_num_sms * ts->cfg.sm_max_ctas;
    if (src->blocks && src->nblocks != nb) {
        for (uint32_t i = 0; i < src->nblocks; i++) gs_trblock_free(&src->blocks[i]);
        free(src->blocks);
        src->blocks = NULL;
    }
    if (!src->blocks) {
        src->blocks = calloc(nb, sizeof *src->blocks);
        src->max_ctas = ts->cfg.sm_max_ctas;
        src->nblocks = (uint32_t)nb;
        if (!src->blocks) { snprintf(fault->message, sizeof fault->message, "out of memory"); fault->kind = GS_FAULT_INVALID; return GS_FAULTED; }
    }
    src->pc_cap = t->prog.ninsts ? t->prog.ninsts : 1;
    return r;
}

void gs_tsrc_free(struct gs_tsrc *src) {
    if (!src) return;
    for (uint32_t i = 0; i < src->nblocks; i++) gs_trblock_free(&src->blocks[i]);
    free(src->blocks);
    free(src);
}
