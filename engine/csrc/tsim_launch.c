/* tsim_launch.c — launching a kernel on the timing simulator: the launch checked, its occupancy (CTAs per SM
 * under each limit and the carveout the driver would pick), each SM's set-up on the simulation threads
 * (scoreboards for the warp slots the occupancy allows, the L1 for the carveout, the queues), and the state
 * the cycle loop (tsim.c) starts from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timing.h"
#include "pool.h"
#include "hostmem.h"
#include "tsm_tables.h"

/* the last launch's CTAs, parameters and per-thread tables let go (warp scoreboards kept: launch_sm) */
void gs_tsim_free_launch(gs_tsim *ts) {
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        if (!sm->tw) continue;
        for (uint32_t w = 0; w < ts->cfg.sm_max_warps; w++) sm->tw[w].w = NULL;   /* (scoreboards kept: launch_sm) */
        if (sm->resident_mask) memset(sm->resident_mask, 0, (ts->cfg.sm_max_warps + 63) / 64 * sizeof *sm->resident_mask);
        if (sm->ctas)
            for (uint32_t k = 0; k < ts->cfg.sm_max_ctas; k++) { gs_cta_free(&sm->ctas[k].cta); sm->ctas[k].used = 0; }
    }
    free(ts->params); ts->params = NULL;
    for (uint32_t k = 0; ts->wk && k < ts->nthreads; k++) {
        free(ts->wk[k].pc_issued); ts->wk[k].pc_issued = NULL;
        free(ts->wk[k].pc_stalls); ts->wk[k].pc_stalls = NULL;
    }
    ts->launched = 0;
}

int gs_tsim_launch_fault(gs_fault *f, const char *msg, uint32_t a) {
    memset(f, 0, sizeof *f);
    f->kind = GS_FAULT_INVALID;
    f->func = -1; f->warp = -1; f->lane = -1; f->pc = -1;
    snprintf(f->message, sizeof f->message, msg, a);
    return GS_FAULTED;
}

/* occupancy: CTAs per SM under each limit, and the shared-memory carveout the driver would pick */
static const char *const LIMITERS[] = {"ctas", "warps", "threads", "registers", "shared"};

static uint32_t occupancy(gs_tsim *ts, const gs_ir_func *f, uint32_t *carve_kib, uint32_t *limiter) {
    const gs_tconfig *c = &ts->cfg;
    uint32_t lim[5];
    lim[0] = c->sm_max_ctas;
    lim[1] = c->sm_max_warps / ts->warps_per_cta;
    lim[2] = c->sm_max_threads / ts->threads_per_cta;
    lim[3] = ts->regs_per_warp ? c->sm_registers / (ts->regs_per_warp * ts->warps_per_cta) : c->sm_max_ctas;
    uint32_t best = 0, chosen = c->l1_carveouts_kib[c->l1_carveouts_kib_count - 1];
    uint32_t base = lim[0];
    for (int i = 1; i < 4; i++) if (lim[i] < base) base = lim[i];
    /* the smallest carveout that does not lower the occupancy */
    uint32_t maxcarve = c->l1_carveouts_kib[c->l1_carveouts_kib_count - 1];
    if (maxcarve > c->sm_shared_max_kib) maxcarve = c->sm_shared_max_kib;
    uint32_t at_max = ts->shared_per_cta ? maxcarve * 1024 / ts->shared_per_cta : base;
    uint32_t target = base < at_max ? base : at_max;
    for (uint32_t i = 0; i < c->l1_carveouts_kib_count; i++) {
        uint32_t kib = c->l1_carveouts_kib[i];
        if (kib > c->sm_shared_max_kib) break;
        uint32_t by_shared = ts->shared_per_cta ? kib * 1024 / ts->shared_per_cta : base;
        uint32_t occ = base < by_shared ? base : by_shared;
        if (occ >= target) { chosen = kib; best = occ; break; }
    }
    lim[4] = ts->shared_per_cta ? chosen * 1024 / ts->shared_per_cta : c->sm_max_ctas;
    uint32_t li = 0;
    for (int i = 1; i < 5; i++) if (lim[i] < lim[li]) li = (uint32_t)i;
    *limiter = li;
    *carve_kib = chosen;
    (void)f; (void)best;
    return lim[li];
}

/* the warp slots of an SM this launch can use: its occupancy's warps (ctas_per_sm is set) */
uint32_t gs_tsim_warp_slots(const gs_tsim *ts) {
    uint64_t n = (uint64_t)ts->ctas_per_sm * ts->warps_per_cta;
    return n < ts->cfg.sm_max_warps ? (uint32_t)n : ts->cfg.sm_max_warps;
}

/* SM sm's part of a launch's setup (carveout `carve`); -1: out of memory */
static int launch_sm(gs_tsim *ts, gs_tsm *sm, uint32_t carve) {
    const gs_tconfig *c = &ts->cfg;
    /* a CTA's warps take the lowest free slots (tsm.c, free_slot), so with at most ctas_per_sm CTAs resident
     * no warp ever sits above the first gs_tsim_warp_slots slots: only those need scoreboards this large */
    uint32_t used = gs_tsim_warp_slots(ts);
    for (uint32_t w = 0; w < c->sm_max_warps; w++) {
        gs_tw *tw = &sm->tw[w];
        if (w < used && gs_tsm_scoreboards(ts, tw, ts->nslots ? ts->nslots : 1, ts->npreds + 1)) return -1;
        tw->w = NULL;
    }
    for (uint32_t k = 0; k < c->sm_subcores; k++) {
        gs_subcore *sc = &sm->sc[k];
        sc->nwarps = 0;
        sc->last = -1;
        sc->next_check = 0;
        sc->carry16 = 0;
        memset(sc->unit_free, 0, sizeof sc->unit_free);
        sc->wgmma_free = 0;
        memset(sc->q_free, 0, sizeof sc->q_free);
    }
    sm->warps_used = sm->ctas_used = sm->threads_used = sm->regs_used = sm->shared_used = 0;
    sm->ctas_releasing = 0;
    sm->warm_at = sm->param_at = sm->accept_at = 0;
    sm->min_drain = GS_NEVER;
    sm->next_event = GS_NEVER;
    memset(sm->done_mask, 0, (c->sm_max_warps + 63) / 64 * sizeof *sm->done_mask);
    memset(sm->resident_mask, 0, (c->sm_max_warps + 63) / 64 * sizeof *sm->resident_mask);   /* (tw->w = NULL above) */
    uint64_t l1_bytes = (uint64_t)(c->sm_l1_shared_kib - carve) * 1024;
    uint32_t lines = (uint32_t)(l1_bytes / c->l1_line_bytes);
    if (lines < c->l1_assoc) l1_bytes = 0;
    /* the L1 for this carveout, empty (its arrays kept from an earlier, larger one: gs_cache_resize) */
    if (!l1_bytes) gs_cache_free(&sm->l1);
    else if (gs_cache_resize(&sm->l1, l1_bytes / c->l1_line_bytes / c->l1_assoc * c->l1_assoc * c->l1_line_bytes,
                             c->l1_line_bytes, c->l1_sector_bytes, c->l1_assoc)) return -1;
    memset(sm->mshr, 0, c->l1_mshrs * sizeof *sm->mshr);
    sm->pre = 0;
    memset(sm->qring, 0, (size_t)GS_Q__COUNT * c->l1_lsu_queue * sizeof *sm->qring);
    memset(sm->qpos, 0, sizeof sm->qpos);
    sm->lsu.next_free = sm->l1_data.next_free = 0;
    gs_icnt_port_reset(&sm->icnt);
    if (c->sm_fetch_insts) gs_cal_reset(&sm->fetch);
    memset(sm->iv_hist, 0, sizeof sm->iv_hist);
    sm->iv_issued = sm->iv_thread_insts = sm->iv_l1_acc = sm->iv_l1_hits = sm->iv_l1_miss = 0;
    sm->iv_shared = sm->iv_conflicts = 0;
    return 0;
}

/* one thread's share of the launch's setup: the next part no thread has taken yet, until none is left: the L2's
 * calendars slice by slice and its coalescing table (gs_l2_reset_part), the DRAM channels' calendars, then the SMs
 * (the L2's and DRAM's were on the calling thread alone: ~0.4 ms of a resnet18_b1 launch's set-up at two threads) */
static void launch_sms(void *arg, uint32_t k) {
    gs_tsim *ts = arg;
    uint32_t nl = ts->l2.nslices + 1;
    (void)k;
    for (;;) {
        uint32_t u = atomic_fetch_add(&ts->next_sm, 1);
        if (u < nl) gs_l2_reset_part(&ts->l2, u);
        else if (u == nl) gs_dram_reset(&ts->dram);
        else if (u - nl - 1 < ts->cfg.gpu_num_sms) {
            if (launch_sm(ts, &ts->sms[u - nl - 1], ts->setup_carve)) ts->setup_failed = 1;
        } else return;
    }
}

int gs_tsim_launch(gs_tsim *ts, gs_device *dev, gs_program *prog, const gs_launch_desc *desc,
                   const uint8_t *params, uint32_t param_bytes, const gs_record_opts *rec, gs_fault *fault) {
    if (gs_launch_validate(prog, desc, param_bytes, fault)) return GS_FAULTED;
    gs_tsim_free_launch(ts);
    const gs_tconfig *c = &ts->cfg;
    ts->dev = dev;
    ts->prog = prog;
    ts->desc = *desc;
    ts->desc.num_sms = c->gpu_num_sms;
    ts->params = malloc(param_bytes ? param_bytes : 1);
    if (!ts->params) return gs_tsim_launch_fault(fault, "out of memory", 0);
    memcpy(ts->params, params, param_bytes);
    ts->param_bytes = param_bytes;
    memset(&ts->fstats, 0, sizeof ts->fstats);
    memset(&ts->fault, 0, sizeof ts->fault);
    gs_ctx_setup(&ts->ctx, dev, prog, &ts->desc, ts->params, param_bytes, &ts->fault, &ts->fstats);
    const gs_ir_func *f = &prog->funcs[desc->func];
    ts->nslots = ts->ctx.nregs_total;
    ts->npreds = ts->ctx.npreds;
    ts->threads_per_cta = desc->block[0] * desc->block[1] * desc->block[2];
    ts->warps_per_cta = (ts->threads_per_cta + 31) / 32;
    ts->sass = prog->sass == NULL ? 0
               : c->timing_sass == GS_SASS_AUTO ? GS_TS_SASS_ALL
               : c->timing_sass == GS_SASS_REGS && c->timing_sass_div ? GS_TS_SASS_DIV : 0;
    uint32_t rpt = f->regs_per_thread ? f->regs_per_thread : c->sm_default_regs_per_thread;
    int sass_regs = (ts->sass || (c->timing_sass == GS_SASS_REGS && prog->sass_regs)) && prog->sass_regs[desc->func];
    ts->sass_regs = sass_regs;
    if (sass_regs) rpt = prog->sass_regs[desc->func];   /* ptxas's count */
    if (rpt > c->sm_max_regs_per_thread) rpt = c->sm_max_regs_per_thread;
    uint32_t per_warp = rpt * 32;
    ts->regs_per_warp = (per_warp + c->sm_reg_alloc_unit - 1) / c->sm_reg_alloc_unit * c->sm_reg_alloc_unit;
    uint32_t sh = f->shared_bytes + desc->dyn_shared_bytes + c->sm_shared_cta_reserved_bytes;
    ts->shared_per_cta = (sh + c->sm_shared_alloc_unit_bytes - 1) / c->sm_shared_alloc_unit_bytes * c->sm_shared_alloc_unit_bytes;
    if (ts->warps_per_cta > c->sm_max_warps || ts->threads_per_cta > c->sm_max_threads)
        return gs_tsim_launch_fault(fault, "a CTA of %u threads does not fit on an SM", ts->threads_per_cta);
    if (ts->regs_per_warp * ts->warps_per_cta > c->sm_registers)
        return gs_tsim_launch_fault(fault, "a CTA needs more registers than an SM has (%u per thread)", rpt);
    if (ts->shared_per_cta > c->sm_shared_max_kib * 1024u)
        return gs_tsim_launch_fault(fault, "a CTA needs %u bytes of shared memory, more than the SM's carveout", ts->shared_per_cta);
    uint32_t carve = 0, limiter = 0;
    ts->ctas_per_sm = occupancy(ts, f, &carve, &limiter);
    if (ts->ctas_per_sm == 0) return gs_tsim_launch_fault(fault, "no CTA fits on an SM (limit: %u)", limiter);
    /* the L2's and DRAM's bookings restarted; per-slot scoreboards, the L1 for this carveout, the queues: SM by SM
     * (launch_sm); all on the threads */
    atomic_store(&ts->next_sm, 0);
    ts->setup_carve = carve;
    ts->setup_failed = 0;
    gs_pool_run(ts->pool, launch_sms, ts);
    if (ts->setup_failed) return gs_tsim_launch_fault(fault, "out of memory", 0);
    for (uint32_t k = 0; k < ts->nthreads; k++) {
        gs_worker *wk = &ts->wk[k];
        wk->pc_issued = gs_line_calloc(prog->ninsts ? prog->ninsts : 1, sizeof *wk->pc_issued);
        wk->pc_stalls = gs_line_calloc((size_t)(prog->ninsts ? prog->ninsts : 1) * GS_WS__COUNT, sizeof *wk->pc_stalls);
        if (!wk->pc_issued || !wk->pc_stalls) return gs_tsim_launch_fault(fault, "out of memory", 0);
        memset(&wk->st, 0, sizeof wk->st);
        memset(&wk->fstats, 0, sizeof wk->fstats);
        memset(&wk->fault, 0, sizeof wk->fault);
        wk->ctx = ts->ctx;                             /* a private functional context per thread */
        wk->ctx.fault = &wk->fault;
        wk->ctx.stats = &wk->fstats;
        wk->ctx.hot = NULL;
        wk->last_free_cycle = wk->ctas_done = 0;
        wk->status = GS_RUNNING;
        wk->room = 0;
    }
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
        gs_pend_clear(&ts->sms[s].pend);
        ts->sms[s].atomq.used = 0;
        ts->sms[s].msample_count = 0;
    }
    memset(&ts->st, 0, sizeof ts->st);
    ts->st.ctas_per_sm = ts->ctas_per_sm;
    ts->st.warps_per_sm = ts->ctas_per_sm * ts->warps_per_cta;
    ts->st.regs_per_thread = rpt;
    ts->st.sass_used = ts->sass == GS_TS_SASS_ALL;
    ts->st.sass_regs_used = (uint32_t)ts->sass_regs;
    ts->st.shared_per_cta = ts->shared_per_cta;
    ts->st.carveout_kib = carve;
    ts->st.occupancy_limiter = limiter;
    (void)LIMITERS;
    gs_rec_begin(&ts->rec, rec);
    const gs_record_opts *ro = &ts->rec.opts;
    int any_mask = 0;
    for (int i = 0; i < 16; i++) any_mask |= ro->sm_mask[i] != 0;
    for (uint32_t s = 0; s < c->gpu_num_sms; s++)
        ts->sms[s].record_states = ro->level >= 2 && (!any_mask || ((ro->sm_mask[s / 64] >> (s % 64)) & 1));
    /* place the first wave: CTA k goes to SM k mod n, at the dispatcher's rate */
    /* one continuous timeline across launches: cache contents carry the cycles their data arrived */
    ts->now = ts->finished || ts->launched_once ? ts->end_cycle : 0;
    ts->start_cycle = ts->now;
    ts->launched_once = 1;
    ts->finished = 0;
    ts->next_cta = 0;
    ts->total_ctas = (uint64_t)desc->grid[0] * desc->grid[1] * desc->grid[2];
    ts->st.ctas = ts->total_ctas;
    ts->dispatch_next = (double)(ts->now + c->gpu_kernel_launch_cycles);
    ts->age = 0;
    ts->next_interval = ts->now + c->record_interval_cycles;
    ts->status = GS_RUNNING;
    ts->launched = 1;
    gs_rec_on_event(&ts->rec, ts->now, GS_EV_KERNEL_START, 0, 0);
    ts->rr = 0;
    ts->room = 1;
    ts->last_free_cycle = ts->now;
    memset(ts->act_mark, 0, (c->gpu_num_sms + 63) / 64 * sizeof *ts->act_mark);
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
        gs_tsm_refresh_next(ts, &ts->sms[s]);
        gs_tsim_note_wake(ts, &ts->sms[s]);
        if (ts->sms[s].warps_used || ts->sms[s].next_event != GS_NEVER) gs_tsim_mark_active(ts, s, 0);  /* (none: every SM is empty) */
    }
    return GS_RUNNING;
}
