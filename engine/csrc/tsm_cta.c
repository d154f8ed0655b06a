/* tsm_cta.c — a CTA's life on an SM in the timing model: its warps placed on the lowest free warp slots
 * (gs_tsm_launch_cta), and, once a warp's stores have drained, its slot freed and, with its last warp, the
 * CTA (gs_tsm_finish_drains). The per-cycle issue loop that runs the warps in between is tsm.c's. */
#include <string.h>
#include "timing.h"
#include "trace_src.h"

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void free_cta(gs_tsim *ts, gs_tsm *sm, gs_tcta *tc, uint64_t now) {
    gs_rec_on_event(&ts->rec, now, GS_EV_CTA_END, sm->id, tc->cta.linear);
    tc->used = 2;                                   /* its slot comes back gpu.cta_release_cycles later */
    tc->release_at = now + ts->cfg.gpu_cta_release_cycles;
    sm->ctas_releasing++;
    sm->threads_used -= tc->cta.nthreads;
    sm->shared_used -= tc->shared_alloc;
    sm->regs_used -= ts->regs_per_warp * tc->nslots;
    sm->wk->ctas_done++;
    sm->wk->room = 1;                               /* the dispatcher may place a CTA again */
}

/* the resident warps whose drain ended by `now`: accounted, their slots freed (and their CTA once the last
 * one goes) */
void gs_tsm_finish_drains(gs_tsim *ts, gs_tsm *sm, uint64_t now) {
    uint64_t nd = GS_NEVER;
    /* the resident, done warps in slot order (done_mask) */
    for (uint32_t word = 0; word < (ts->cfg.sm_max_warps + 63) / 64; word++)
    for (uint64_t bits = sm->done_mask[word]; bits; bits &= bits - 1) {
        uint32_t s = word * 64 + (uint32_t)__builtin_ctzll(bits);
        gs_tw *tw = &sm->tw[s];
        if (tw->drain_at > now) { if (tw->drain_at < nd) nd = tw->drain_at; continue; }
        gs_tsm_account(ts, sm, tw, tw->drain_at);
        /* the kernel ends when its stores are accepted by the L2, not when they left the SM */
        uint64_t end = gs_is_pend(tw->acked_at) ? tw->drain_at : max64(tw->drain_at, tw->acked_at);
        if (end > sm->wk->last_free_cycle) sm->wk->last_free_cycle = end;
        if (sm->record_states) gs_tsm_rec_state(ts, sm, tw, tw->drain_at, GS_WS_IDLE, -1);
        sm->wk->st.warp_cycles += tw->drain_at - tw->start;
        gs_tcta *tc = tw->cta;
        tw->w = NULL;
        sm->done_mask[word] &= ~(1ull << (s & 63));
        sm->resident_mask[word] &= ~(1ull << (s & 63));
        tw->cta = NULL;
        sm->warps_used--;
        gs_subcore *sc = &sm->sc[tw->sub];
        uint32_t i = tw->pos, n = sc->nwarps - i - 1;    /* keep launch (age) order */
        memmove(&sc->warps[i], &sc->warps[i + 1], n * sizeof *sc->warps);
        memmove(&sc->rdy[i], &sc->rdy[i + 1], n * sizeof *sc->rdy);
        memmove(&sc->unit[i], &sc->unit[i + 1], n * sizeof *sc->unit);
        memmove(&sc->q[i], &sc->q[i + 1], n * sizeof *sc->q);
        memmove(&sc->thr[i], &sc->thr[i + 1], n * sizeof *sc->thr);
        memmove(&sc->thr_state[i], &sc->thr_state[i + 1], n * sizeof *sc->thr_state);
        memmove(&sc->own[i * GS_OWN_UNITS], &sc->own[(i + 1) * GS_OWN_UNITS], n * GS_OWN_UNITS * sizeof *sc->own);
        memmove(&sc->nsel[i], &sc->nsel[i + 1], n * sizeof *sc->nsel);
        sc->nwarps--;
        for (; i < sc->nwarps; i++) sm->tw[sc->warps[i]].pos = (uint16_t)i;
        if (sc->last == (int32_t)s) sc->last = -1;
        if (--tc->nwarps_left == 0) free_cta(ts, sm, tc, tw->drain_at > now ? tw->drain_at : now);
    }
    sm->min_drain = nd;
}

/* the first warp slot from s on with no resident warp (resident_mask), or max when none */
static uint32_t free_slot(const gs_tsm *sm, uint32_t s, uint32_t max) {
    for (uint32_t word = s >> 6; word < (max + 63) / 64; word++) {
        uint64_t bits = ~sm->resident_mask[word];
        if (word == s >> 6) bits &= ~0ull << (s & 63);
        if (bits) {
            uint32_t f = word * 64 + (uint32_t)__builtin_ctzll(bits);
            return f < max ? f : max;
        }
    }
    return max;
}

int gs_tsm_launch_cta(gs_tsim *ts, gs_tsm *sm, uint64_t linear, uint64_t now) {
    const gs_launch_desc *d = &ts->desc;
    gs_tcta *tc = NULL;
    for (uint32_t i = 0; i < ts->cfg.sm_max_ctas; i++)
        if (!sm->ctas[i].used) { tc = &sm->ctas[i]; break; }
    if (!tc) return -1;
    uint32_t id[3] = {(uint32_t)(linear % d->grid[0]), (uint32_t)((linear / d->grid[0]) % d->grid[1]),
                      (uint32_t)(linear / ((uint64_t)d->grid[0] * d->grid[1]))};
    if (gs_cta_init(&tc->cta, &ts->ctx, id, &ts->fault)) { ts->status = GS_FAULTED; return -1; }
    tc->cta.sm = sm->id;
    if (ts->prog->trace && gs_tsrc_cta_begin(ts, sm, tc)) return -1;   /* trace-driven: its next thread block */
    tc->used = 1;
    tc->nslots = 0;
    tc->nwarps_left = tc->cta.nwarps;
    tc->shared_alloc = ts->shared_per_cta;
    sm->ctas_used++;
    sm->threads_used += tc->cta.nthreads;
    sm->shared_used += ts->shared_per_cta;
    sm->regs_used += ts->regs_per_warp * tc->cta.nwarps;
    gs_rec_on_event(&ts->rec, now, GS_EV_CTA_START, sm->id, tc->cta.linear);
    /* warps start gpu.cta_launch_cycles after the CTA's dispatch, gpu.warp_launch_cycles apart, and not
     * before the launch's first instruction fetch on this SM has come in (gpu.sm_cold_fetch_cycles) */
    uint64_t first = now + ts->cfg.gpu_cta_launch_cycles;
    if (!sm->warm_at)
        sm->warm_at = first + (ts->cfg.sm_icache == GS_ICACHE_IDEAL ? ts->cfg.gpu_sm_cold_fetch_cycles : 0);
    if (first < sm->warm_at) first = sm->warm_at;
    if (ts->cfg.gpu_cta_accept_after_start) sm->accept_at = first;
    uint32_t s = 0, slots = gs_tsim_warp_slots(ts);   /* (only those have this launch's scoreboards) */
    for (uint32_t k = 0; k < tc->cta.nwarps; k++) {
        s = free_slot(sm, s, slots);
        if (s == slots) return -1;                      /* occupancy computation guarantees room */
        gs_tw *tw = &sm->tw[s];
        tw->w = &tc->cta.warps[k];
        sm->resident_mask[s >> 6] |= 1ull << (s & 63);
        tw->cta = tc;
        tw->slot = (uint16_t)s;
        memset(tw->reg_ready, 0, ts->nslots * sizeof *tw->reg_ready);
        memset(tw->reg_kind, 0, ts->nslots);
        memset(tw->pred_ready, 0, (ts->npreds + 1) * sizeof *tw->pred_ready);
        memset(tw->pred_use, 0, (ts->npreds + 1) * sizeof *tw->pred_use);
        tw->acc_t = now;
        tw->start = now;
        tw->drain_at = 0;
        tw->acked_at = 0;
        tw->done = 0;
        tw->blocked = 0;
        tw->wg_head = tw->wg_count = 0;
        tw->wg_open = 0;
        tw->cp_head = tw->cp_count = 0;
        tw->cp_open = 0;
        tw->age = ts->age++;
        tw->rec_state = 255;
        tw->fetch_left = 0;
        tw->frag_left = 0;
        tw->fetch_req = now;
        tw->tr_next = NULL;
        gs_subcore *sc = &sm->sc[s % ts->cfg.sm_subcores];
        tw->sub = (uint16_t)(s % ts->cfg.sm_subcores);
        tw->pos = (uint16_t)sc->nwarps;
        memset(&sc->own[(size_t)tw->pos * GS_OWN_UNITS], 0, GS_OWN_UNITS * sizeof *sc->own);
        sc->nsel[tw->pos] = 0;
        sc->warps[sc->nwarps++] = (uint16_t)s;
        /* until its first instruction can issue a new warp has none fetched: Nsight's no_instruction
         * ("typical for very short kernels"), not dispatch_stall (an issue held back by the dispatcher) */
        gs_tsm_next_ready(ts, sm, tw, first + (uint64_t)k * ts->cfg.gpu_warp_launch_cycles, GS_WS_NO_INSTRUCTION);
        tc->slots[tc->nslots++] = (uint16_t)s;
        if (sc->next_check > tw->ready_at) sc->next_check = tw->ready_at;
        sm->warps_used++;
        if (tw->next_pc < 0) gs_tsm_retire_warp(ts, sm, tw, now);
    }
    return 0;
}
