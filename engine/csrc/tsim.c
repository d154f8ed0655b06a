/* tsim.c — the timing simulator: building the GPU from the config, launching a kernel (occupancy and
 * CTA placement), and the cycle loop.
 *
 * Tick order within one cycle (engine/README.md keeps the same list):
 *   1. interval boundaries passed since the last cycle are closed (recording: counters, warp states);
 *   2. SMs in index order: finished warps drained and freed (a CTA that completes frees its slot and
 *      asks the dispatcher for the next CTA), due CTA launches, then each sub-core's scheduler issues
 *      at most one instruction (which runs in the functional core and is timed by the pipes/memory);
 *   3. the clock advances to the next cycle in which some SM can act (skipping idle cycles).
 * All shared resources are FCFS reservations, so the order of SMs within a cycle only breaks ties.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "timing.h"

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static int check_config(const gs_tconfig *c, char *err, uint32_t n) {
#define NEED(cond, ...) do { if (!(cond)) { snprintf(err, n, __VA_ARGS__); return -1; } } while (0)
    NEED(c->gpu_num_sms >= 1 && c->gpu_num_sms <= 1024, "gpu.num_sms = %u is out of range", c->gpu_num_sms);
    NEED(c->sm_subcores >= 1 && c->sm_max_warps % c->sm_subcores == 0, "sm.max_warps must be a multiple of sm.subcores");
    NEED(c->sm_max_warps <= 1024 && c->sm_max_ctas <= 256, "sm.max_warps or sm.max_ctas too large");
    NEED(c->l1_line_bytes && c->l1_sector_bytes && c->l1_line_bytes % c->l1_sector_bytes == 0 &&
         c->l1_line_bytes / c->l1_sector_bytes <= 8, "bad l1 line/sector sizes");
    NEED(c->l2_line_bytes && c->l2_sector_bytes && c->l2_line_bytes % c->l2_sector_bytes == 0 &&
         c->l2_line_bytes / c->l2_sector_bytes <= 8, "bad l2 line/sector sizes");
    NEED(c->l2_slices >= 1 && c->l2_assoc >= 1 && c->l1_assoc >= 1, "l2.slices, l2.assoc, l1.assoc must be >= 1");
    NEED(c->l2_partitions >= 1 && c->l2_slices % c->l2_partitions == 0, "l2.slices must be a multiple of l2.partitions");
    NEED(!(c->l1_line_bytes & (c->l1_line_bytes - 1)) && !(c->l1_sector_bytes & (c->l1_sector_bytes - 1)) &&
         !(c->l2_line_bytes & (c->l2_line_bytes - 1)) && !(c->l2_sector_bytes & (c->l2_sector_bytes - 1)),
         "line and sector sizes must be powers of two");
    NEED(c->l2_atomic_packet_cycles > 0 && c->dram_write_efficiency > 0, "atomic and write rates must be > 0");
    NEED(c->l2_interleave_bytes >= c->l2_line_bytes, "l2.interleave_bytes must be at least a line");
    NEED(c->dram_channels >= 1 && c->dram_banks >= 1 && c->dram_row_bytes >= 1, "dram sizes must be >= 1");
    NEED(c->l1_mshrs >= 1 && c->l1_lookups_per_cycle >= 1 && c->l1_bytes_per_cycle >= 1, "l1 rates must be >= 1");
    NEED(c->shared_banks >= 1 && c->shared_banks <= 128 && c->shared_bank_bytes >= 1, "bad shared banks");
    NEED(c->gpu_sm_clock_mhz > 0 && c->dram_bandwidth_gbps > 0 && c->dram_efficiency > 0, "clocks and bandwidth must be > 0");
    NEED(c->gpu_cta_dispatch_per_cycle > 0, "gpu.cta_dispatch_per_cycle must be > 0");
    NEED(c->record_interval_cycles >= 1 && c->record_mem_sample_period >= 1, "record periods must be >= 1");
    NEED(c->sim_quantum_cycles >= 1, "sim.quantum_cycles must be >= 1");
    NEED(c->l1_carveouts_kib_count >= 1 && c->l1_carveouts_kib_count <= 16, "l1.carveouts_kib needs 1..16 values");
    for (int u = 0; u < GS_U__COUNT; u++)
        NEED(c->pipes_latency_cycles[u] >= 1 && c->pipes_interval_cycles[u] >= 1, "pipe %d: latency and interval must be >= 1", u);
    return 0;
#undef NEED
}

gs_tsim *gs_tsim_create(const gs_tconfig *cfg, char *err, uint32_t errlen) {
    if (check_config(cfg, err, errlen)) return NULL;
    gs_tsim *ts = calloc(1, sizeof *ts);
    if (!ts) { snprintf(err, errlen, "out of memory"); return NULL; }
    ts->cfg = *cfg;
    const gs_tconfig *c = &ts->cfg;
    ts->sms = calloc(c->gpu_num_sms, sizeof *ts->sms);
    ts->l2 = calloc(c->l2_slices, sizeof *ts->l2);
    ts->dram = calloc(c->dram_channels, sizeof *ts->dram);
    int bad = !ts->sms || !ts->l2 || !ts->dram;
    for (uint32_t s = 0; s < c->gpu_num_sms && !bad; s++) {
        gs_tsm *sm = &ts->sms[s];
        sm->id = (int)s;
        sm->tw = calloc(c->sm_max_warps, sizeof *sm->tw);
        sm->ctas = calloc(c->sm_max_ctas, sizeof *sm->ctas);
        sm->sc = calloc(c->sm_subcores, sizeof *sm->sc);
        sm->mshr = calloc(c->l1_mshrs, sizeof *sm->mshr);
        bad = !sm->tw || !sm->ctas || !sm->sc || !sm->mshr || gs_cal_init(&sm->icnt_in) || gs_cal_init(&sm->icnt_out);
        if (!bad && c->sm_icache == 1)
            bad = gs_cache_init(&sm->icache, (uint64_t)c->sm_icache_kib * 1024, c->sm_icache_line_bytes,
                                c->sm_icache_line_bytes, c->sm_icache_assoc) != 0;
    }
    uint64_t l2_lines_per_slice = (uint64_t)c->l2_size_kib * 1024 / c->l2_line_bytes / c->l2_slices;
    for (uint32_t i = 0; i < c->l2_slices && !bad; i++)
        bad = gs_cache_init(&ts->l2[i].c, l2_lines_per_slice * c->l2_line_bytes, c->l2_line_bytes,
                            c->l2_sector_bytes, c->l2_assoc) != 0 || gs_cal_init(&ts->l2[i].port) ||
              gs_cal_init(&ts->l2[i].atomic);
    for (uint32_t i = 0; i < c->dram_channels && !bad; i++) {
        size_t rows = (size_t)c->dram_banks * GS_FR_ROWS;
        bad = !(ts->dram[i].open_row = calloc(rows, sizeof(uint64_t))) ||
              !(ts->dram[i].row_used = calloc(rows, sizeof(uint64_t))) || gs_cal_init(&ts->dram[i].bus);
    }
    if (bad) {
        snprintf(err, errlen, "out of memory building the GPU");
        gs_tsim_destroy(ts);
        return NULL;
    }
    /* derived rates (fixed point, 1/256 cycle) */
    double clk = c->gpu_sm_clock_mhz * 1e6;
    double dram_bpc = c->dram_bandwidth_gbps * 1e9 * c->dram_efficiency / clk / c->dram_channels;
    ts->dram_sector_cost = (uint64_t)llround(c->l2_sector_bytes / dram_bpc * 256.0);
    if (ts->dram_sector_cost == 0) ts->dram_sector_cost = 1;
    ts->dram_sector_cost_w = (uint64_t)llround(ts->dram_sector_cost * c->dram_efficiency / c->dram_write_efficiency);
    ts->l2_atomic_cost = (uint64_t)llround(256.0 * c->l2_atomic_packet_cycles);
    ts->l2_partial_cost = (uint64_t)llround(256.0 * c->l2_partial_write_cycles);
    ts->l1_line_shift = (uint32_t)__builtin_ctz(c->l1_line_bytes);
    ts->l1_sector_shift = (uint32_t)__builtin_ctz(c->l1_sector_bytes);
    ts->l2_line_shift = (uint32_t)__builtin_ctz(c->l2_line_bytes);
    ts->l2_sector_shift = (uint32_t)__builtin_ctz(c->l2_sector_bytes);
    if (ts->l2_partial_cost < ts->l2_sector_cost) ts->l2_partial_cost = ts->l2_sector_cost;
    if (ts->l2_atomic_cost == 0) ts->l2_atomic_cost = 1;
    for (uint32_t s = 0; s < c->gpu_num_sms; s++)
        ts->sms[s].part = (uint32_t)((uint64_t)s * c->l2_partitions / c->gpu_num_sms);
    ts->dram_latency = (uint64_t)llround(c->dram_latency_ns * 1e-9 * clk);
    ts->dram_row_miss = (uint64_t)llround(c->dram_row_miss_ns * 1e-9 * clk);
    ts->icnt_sector_cost = (uint64_t)c->l1_sector_bytes * 256 / c->icnt_sm_bytes_per_cycle;
    ts->l2_sector_cost = (uint64_t)c->l2_sector_bytes * 256 / c->l2_bytes_per_cycle;
    if (!ts->icnt_sector_cost) ts->icnt_sector_cost = 1;
    if (!ts->l2_sector_cost) ts->l2_sector_cost = 1;
    gs_rec_init(ts);
    return ts;
}

static void free_launch(gs_tsim *ts) {
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        if (!sm->tw) continue;
        for (uint32_t w = 0; w < ts->cfg.sm_max_warps; w++) {
            free(sm->tw[w].reg_ready);
            free(sm->tw[w].reg_kind);
            free(sm->tw[w].pred_ready);
            sm->tw[w].reg_ready = NULL; sm->tw[w].reg_kind = NULL; sm->tw[w].pred_ready = NULL;
            sm->tw[w].w = NULL;
        }
        if (sm->ctas)
            for (uint32_t k = 0; k < ts->cfg.sm_max_ctas; k++) { gs_cta_free(&sm->ctas[k].cta); sm->ctas[k].used = 0; }
    }
    free(ts->params); ts->params = NULL;
    free(ts->pc_issued); ts->pc_issued = NULL;
    free(ts->pc_stalls); ts->pc_stalls = NULL;
    ts->launched = 0;
}

void gs_tsim_destroy(gs_tsim *ts) {
    if (!ts) return;
    free_launch(ts);
    for (uint32_t s = 0; ts->sms && s < ts->cfg.gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        free(sm->tw); free(sm->ctas); free(sm->sc); free(sm->mshr);
        gs_cal_free(&sm->icnt_in); gs_cal_free(&sm->icnt_out);
        gs_cache_free(&sm->l1);
        gs_cache_free(&sm->icache);
    }
    for (uint32_t i = 0; ts->l2 && i < ts->cfg.l2_slices; i++) {
        gs_cache_free(&ts->l2[i].c); gs_cal_free(&ts->l2[i].port); gs_cal_free(&ts->l2[i].atomic);
    }
    for (uint32_t i = 0; ts->dram && i < ts->cfg.dram_channels; i++) { free(ts->dram[i].open_row); free(ts->dram[i].row_used); gs_cal_free(&ts->dram[i].bus); }
    free(ts->sms); free(ts->l2); free(ts->dram);
    gs_rec_free(ts);
    free(ts);
}

void gs_tsim_flush(gs_tsim *ts) {
    gs_tmem_flush(ts);
    /* a cold GPU between launches also restarts the timeline at cycle 0, so that the next launch is
     * simulated exactly as by a new simulator (quantum and interval boundaries are absolute cycles) */
    if (ts->status != GS_RUNNING) {
        ts->launched_once = 0;
        ts->finished = 0;
        ts->end_cycle = 0;
    }
}

static int launch_fault(gs_fault *f, const char *msg, uint32_t a) {
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

int gs_tsim_launch(gs_tsim *ts, gs_device *dev, gs_program *prog, const gs_launch_desc *desc,
                   const uint8_t *params, uint32_t param_bytes, const gs_record_opts *rec, gs_fault *fault) {
    if (gs_launch_validate(prog, desc, param_bytes, fault)) return GS_FAULTED;
    free_launch(ts);
    const gs_tconfig *c = &ts->cfg;
    ts->dev = dev;
    ts->prog = prog;
    ts->desc = *desc;
    ts->desc.num_sms = c->gpu_num_sms;
    ts->params = malloc(param_bytes ? param_bytes : 1);
    if (!ts->params) return launch_fault(fault, "out of memory", 0);
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
    uint32_t rpt = f->regs_per_thread ? f->regs_per_thread : c->sm_default_regs_per_thread;
    if (rpt > c->sm_max_regs_per_thread) rpt = c->sm_max_regs_per_thread;
    uint32_t per_warp = rpt * 32;
    ts->regs_per_warp = (per_warp + c->sm_reg_alloc_unit - 1) / c->sm_reg_alloc_unit * c->sm_reg_alloc_unit;
    uint32_t sh = f->shared_bytes + desc->dyn_shared_bytes + c->sm_shared_cta_reserved_bytes;
    ts->shared_per_cta = (sh + c->sm_shared_alloc_unit_bytes - 1) / c->sm_shared_alloc_unit_bytes * c->sm_shared_alloc_unit_bytes;
    if (ts->warps_per_cta > c->sm_max_warps || ts->threads_per_cta > c->sm_max_threads)
        return launch_fault(fault, "a CTA of %u threads does not fit on an SM", ts->threads_per_cta);
    if (ts->regs_per_warp * ts->warps_per_cta > c->sm_registers)
        return launch_fault(fault, "a CTA needs more registers than an SM has (%u per thread)", rpt);
    if (ts->shared_per_cta > c->sm_shared_max_kib * 1024u)
        return launch_fault(fault, "a CTA needs %u bytes of shared memory, more than the SM's carveout", ts->shared_per_cta);
    uint32_t carve = 0, limiter = 0;
    ts->ctas_per_sm = occupancy(ts, f, &carve, &limiter);
    if (ts->ctas_per_sm == 0) return launch_fault(fault, "no CTA fits on an SM (limit: %u)", limiter);
    /* per-slot scoreboards and the L1 for this carveout */
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        for (uint32_t w = 0; w < c->sm_max_warps; w++) {
            gs_tw *tw = &sm->tw[w];
            tw->reg_ready = calloc(ts->nslots ? ts->nslots : 1, sizeof *tw->reg_ready);
            tw->reg_kind = calloc(ts->nslots ? ts->nslots : 1, 1);
            tw->pred_ready = calloc(ts->npreds + 1, sizeof *tw->pred_ready);
            if (!tw->reg_ready || !tw->reg_kind || !tw->pred_ready) return launch_fault(fault, "out of memory", 0);
            tw->w = NULL;
        }
        memset(sm->sc, 0, c->sm_subcores * sizeof *sm->sc);
        for (uint32_t k = 0; k < c->sm_subcores; k++) sm->sc[k].last = -1;
        sm->warps_used = sm->ctas_used = sm->threads_used = sm->regs_used = sm->shared_used = 0;
        sm->min_drain = GS_NEVER;
        sm->next_event = GS_NEVER;
        uint64_t l1_bytes = (uint64_t)(c->sm_l1_shared_kib - carve) * 1024;
        uint32_t lines = (uint32_t)(l1_bytes / c->l1_line_bytes);
        if (lines < c->l1_assoc) l1_bytes = 0;
        if (sm->l1.sets == 0 || (uint64_t)sm->l1.sets * sm->l1.assoc * c->l1_line_bytes != l1_bytes) {
            gs_cache_free(&sm->l1);
            if (l1_bytes) gs_cache_init(&sm->l1, l1_bytes / c->l1_line_bytes / c->l1_assoc * c->l1_assoc * c->l1_line_bytes,
                                        c->l1_line_bytes, c->l1_sector_bytes, c->l1_assoc);
        } else {
            gs_cache_clear(&sm->l1);
        }
        memset(sm->mshr, 0, c->l1_mshrs * sizeof *sm->mshr);
        sm->lsu.next_free = sm->l1_data.next_free = 0;
        gs_cal_reset(&sm->icnt_in);
        gs_cal_reset(&sm->icnt_out);
        memset(sm->iv_hist, 0, sizeof sm->iv_hist);
        sm->iv_issued = sm->iv_thread_insts = sm->iv_l1_acc = sm->iv_l1_hits = sm->iv_l1_miss = 0;
        sm->iv_shared = sm->iv_conflicts = 0;
    }
    for (uint32_t i = 0; i < c->l2_slices; i++) { gs_cal_reset(&ts->l2[i].port); gs_cal_reset(&ts->l2[i].atomic); }
    for (uint32_t i = 0; i < c->dram_channels; i++) gs_cal_reset(&ts->dram[i].bus);
    ts->pc_issued = calloc(prog->ninsts ? prog->ninsts : 1, sizeof *ts->pc_issued);
    ts->pc_stalls = calloc((size_t)(prog->ninsts ? prog->ninsts : 1) * GS_WS__COUNT, sizeof *ts->pc_stalls);
    if (!ts->pc_issued || !ts->pc_stalls) return launch_fault(fault, "out of memory", 0);
    memset(&ts->st, 0, sizeof ts->st);
    ts->st.ctas_per_sm = ts->ctas_per_sm;
    ts->st.warps_per_sm = ts->ctas_per_sm * ts->warps_per_cta;
    ts->st.regs_per_thread = rpt;
    ts->st.shared_per_cta = ts->shared_per_cta;
    ts->st.carveout_kib = carve;
    ts->st.occupancy_limiter = limiter;
    (void)LIMITERS;
    if (rec) ts->rec = *rec; else memset(&ts->rec, 0, sizeof ts->rec);
    int any_mask = 0;
    for (int i = 0; i < 16; i++) any_mask |= ts->rec.sm_mask[i] != 0;
    for (uint32_t s = 0; s < c->gpu_num_sms; s++)
        ts->sms[s].record_states = ts->rec.level >= 2 &&
            (!any_mask || ((ts->rec.sm_mask[s / 64] >> (s % 64)) & 1));
    /* place the first wave: CTA k goes to SM k mod n, at the dispatcher's rate */
    /* one continuous timeline across launches: cache contents carry the cycles their data arrived */
    ts->now = ts->finished || ts->launched_once ? ts->end_cycle : 0;
    ts->start_cycle = ts->now;
    ts->launched_once = 1;
    ts->finished = 0;
    ts->next_cta = 0;
    ts->ctas_done = 0;
    ts->total_ctas = (uint64_t)desc->grid[0] * desc->grid[1] * desc->grid[2];
    ts->st.ctas = ts->total_ctas;
    ts->dispatch_next = (double)(ts->now + c->gpu_kernel_launch_cycles);
    ts->age = 0;
    ts->next_interval = ts->now + c->record_interval_cycles;
    ts->status = GS_RUNNING;
    ts->launched = 1;
    gs_rec_emit_event(ts, ts->now, 0, 0, 0);
    ts->rr = 0;
    ts->room = 1;
    ts->last_free_cycle = ts->now;
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) gs_tsm_refresh_next(ts, &ts->sms[s]);
    return GS_RUNNING;
}

static void finish(gs_tsim *ts) {
    const gs_tconfig *c = &ts->cfg;
    uint64_t end = ts->now;
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        for (uint32_t w = 0; w < c->sm_max_warps; w++)
            if (sm->tw[w].w) { gs_tsm_account(ts, sm, &sm->tw[w], end); ts->st.warp_cycles += end - sm->tw[w].start; }
    }
    ts->end_cycle = end + c->gpu_kernel_end_cycles;
    ts->st.cycles = ts->end_cycle - ts->start_cycle;
    ts->st.thread_insts = ts->fstats.thread_insts;
    memcpy(ts->st.op_counts, ts->fstats.op_counts, sizeof ts->st.op_counts);
    gs_rec_interval(ts, GS_NEVER);           /* the last partial interval */
    gs_rec_emit_event(ts, ts->end_cycle, 1, 0, 0);
    if (ts->rec.level >= 1) {
        for (uint32_t pc = 0; pc < ts->prog->ninsts; pc++) {
            uint64_t any = ts->pc_issued[pc];
            for (int k = 0; k < GS_WS__COUNT && !any; k++) any = ts->pc_stalls[(size_t)pc * GS_WS__COUNT + k];
            if (!any) continue;
            gs_rec_pcstat *r = gs_rec_push(ts, GS_REC_PC_STATS);
            if (!r) break;
            r->pc = pc;
            r->issued = ts->pc_issued[pc];
            memcpy(r->stalls, &ts->pc_stalls[(size_t)pc * GS_WS__COUNT], sizeof r->stalls);
        }
    }
    ts->finished = 1;
    ts->status = GS_DONE;
}

/* The GPU-wide CTA dispatcher: at most gpu.cta_dispatch_per_cycle CTAs per cycle, each to the next
 * SM in round-robin order that has room (so the first wave spreads CTA k to SM k mod n, as the
 * hardware's breadth-first distribution does). Places every CTA whose dispatch slot falls before
 * `end` (launched no earlier than `start`); returns the next slot it wants, or GS_NEVER. */
static uint64_t dispatch(gs_tsim *ts, uint64_t start, uint64_t end) {
    const gs_tconfig *c = &ts->cfg;
    while (ts->next_cta < ts->total_ctas && ts->room) {
        uint64_t slot = (uint64_t)ts->dispatch_next;
        if (slot >= end) return slot;
        uint32_t n = c->gpu_num_sms, k = 0;
        gs_tsm *sm = NULL;
        for (; k < n; k++) {
            gs_tsm *cand = &ts->sms[(ts->rr + k) % n];
            if (cand->ctas_used < ts->ctas_per_sm) { sm = cand; break; }
        }
        if (!sm) { ts->room = 0; return GS_NEVER; }
        uint64_t when = slot > start ? slot : start;
        ts->rr = (uint32_t)((sm->id + 1) % n);
        if (gs_tsm_launch_cta(ts, sm, ts->next_cta, when)) return GS_NEVER;
        ts->next_cta++;
        double t = ts->dispatch_next + 1.0 / c->gpu_cta_dispatch_per_cycle;
        ts->dispatch_next = t < (double)start ? (double)start : t;
        gs_tsm_refresh_next(ts, sm);
    }
    return GS_NEVER;
}

static int all_idle(gs_tsim *ts) {
    if (ts->next_cta < ts->total_ctas) return 0;
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++)
        if (ts->sms[s].warps_used) return 0;
    return 1;
}

static int deadlock(gs_tsim *ts, gs_fault *out) {
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        for (uint32_t k = 0; k < ts->cfg.sm_max_ctas; k++)
            if (sm->ctas[k].used) {
                gs_cta_check_deadlock(&ts->ctx, &sm->ctas[k].cta);
                ts->status = GS_FAULTED;
                *out = ts->fault;
                return GS_FAULTED;
            }
    }
    gs_fault_set(&ts->ctx, NULL, NULL, GS_FAULT_DEADLOCK, -1, 0, 0, "no warp can make progress");
    ts->status = GS_FAULTED;
    *out = ts->fault;
    return GS_FAULTED;
}

int gs_tsim_run(gs_tsim *ts, uint64_t budget, gs_fault *out) {
    if (!ts->launched) return launch_fault(out, "no kernel launched", 0);
    if (ts->status != GS_RUNNING) {
        if (ts->status == GS_FAULTED) *out = ts->fault;
        return ts->status;
    }
    const gs_tconfig *c = &ts->cfg;
    uint64_t stop = ts->now + budget;
    uint64_t q = c->sim_quantum_cycles ? c->sim_quantum_cycles : 1;
    while (ts->now < stop) {
        /* one quantum [T, E): the dispatcher places CTAs, then each SM runs its cycles in [T, E) in
         * turn (locality of the host's caches); shared resources take out-of-order bookings */
        uint64_t T = ts->now, E = T + q;
        if (ts->rec.level >= 1 && T >= ts->next_interval) gs_rec_interval(ts, T);
        uint64_t next = dispatch(ts, T, E);
        if (ts->status == GS_FAULTED) { *out = ts->fault; return GS_FAULTED; }
        for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
            gs_tsm *sm = &ts->sms[s];
            while (sm->next_event < E) {
                uint64_t now = sm->next_event < T ? T : sm->next_event;
                gs_tsm_cycle(ts, sm, now);
                if (ts->status == GS_FAULTED) { *out = ts->fault; return GS_FAULTED; }
                if (sm->next_event <= now) sm->next_event = now + 1;
            }
            if (sm->next_event < next) next = sm->next_event;
        }
        if (ts->desc.max_cycles && E - ts->start_cycle > ts->desc.max_cycles) {
            gs_fault_set(&ts->ctx, NULL, NULL, GS_FAULT_LIMIT, -1, 0, 0, "cycle cap reached: %llu cycles (max_cycles)",
                         (unsigned long long)ts->desc.max_cycles);
            ts->status = GS_FAULTED;
            *out = ts->fault;
            return GS_FAULTED;
        }
        if (ts->desc.max_warp_insts && ts->st.warp_insts > ts->desc.max_warp_insts) {
            gs_fault_set(&ts->ctx, NULL, NULL, GS_FAULT_LIMIT, -1, 0, 0,
                         "instruction cap reached: %llu warp instructions (max_warp_insts)",
                         (unsigned long long)ts->desc.max_warp_insts);
            ts->status = GS_FAULTED;
            *out = ts->fault;
            return GS_FAULTED;
        }
        if (all_idle(ts)) {
            ts->now = max64(ts->last_free_cycle, ts->last_issue_cycle + 1);
            if (ts->now < T) ts->now = T;
            finish(ts);
            return GS_DONE;
        }
        if (ts->room && ts->next_cta < ts->total_ctas && next > E) next = E;
        if (next == GS_NEVER) return deadlock(ts, out);
        ts->now = next > E ? next : E;
    }
    return GS_RUNNING;
}

void gs_tsim_get_stats(gs_tsim *ts, gs_tstats *out) {
    *out = ts->st;
    out->ctas_done = ts->ctas_done;
    if (!ts->finished) {
        out->cycles = ts->now - ts->start_cycle;
        out->thread_insts = ts->fstats.thread_insts;
    }
}

uint64_t gs_tsim_cycle(gs_tsim *ts) { return ts->now; }
