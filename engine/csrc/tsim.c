/* tsim.c — the timing simulator: building the GPU from the config, and the cycle loop (launching a kernel,
 * its occupancy and each SM's set-up: tsim_launch.c).
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "timing.h"
#include "pool.h"
#include "hostmem.h"
#include "tsm_tables.h"

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
    NEED(c->l1_lsu_queue >= 1, "l1.lsu_queue = %u must be >= 1", c->l1_lsu_queue);
    NEED(c->shared_banks >= 1 && c->shared_banks <= 128 && c->shared_bank_bytes >= 1, "bad shared banks");
    NEED(c->gpu_sm_clock_mhz > 0 && c->dram_bandwidth_gbps > 0 && c->dram_efficiency > 0, "clocks and bandwidth must be > 0");
    NEED(c->gpu_cta_dispatch_per_cycle > 0, "gpu.cta_dispatch_per_cycle must be > 0");
    NEED(c->record_interval_cycles >= 1 && c->record_mem_sample_period >= 1, "record periods must be >= 1");
    NEED(c->sim_quantum_cycles >= 1, "sim.quantum_cycles must be >= 1");
    /* the memory phase's exactness: nothing an SM sends beyond itself may come back within a quantum */
    uint64_t lookahead = 1 + c->l1_hit_latency_cycles / 2 + c->icnt_latency_cycles + c->l2_hit_latency_cycles;
    NEED(c->sim_quantum_cycles <= lookahead,
         "sim.quantum_cycles = %u is longer than the memory system's round trip (%llu cycles: 1 + l1.hit_latency_cycles / 2 "
         "+ icnt.latency_cycles + l2.hit_latency_cycles)", c->sim_quantum_cycles, (unsigned long long)lookahead);
    NEED(c->sm_scheduler < GS_SCHED__COUNT, "sm.scheduler = %u is not a scheduler", c->sm_scheduler);
    NEED(c->sm_icache < GS_ICACHE__COUNT, "sm.icache = %u is not an i-cache model", c->sm_icache);
    NEED(c->l2_hash < GS_L2_HASH__COUNT, "l2.hash = %u is not a hash", c->l2_hash);
    NEED(c->dram_policy < GS_DRAM__COUNT, "dram.policy = %u is not a row policy", c->dram_policy);
    NEED(c->l1_carveouts_kib_count >= 1 && c->l1_carveouts_kib_count <= 16, "l1.carveouts_kib needs 1..16 values");
    for (int u = 0; u < GS_U__COUNT; u++)
        NEED(c->pipes_latency_cycles[u] >= 1 && c->pipes_interval_cycles[u] >= 1, "pipe %d: latency and interval must be >= 1", u);
    return 0;
#undef NEED
}

/* gpu.gpcs: SM k (in the order the first wave's CTAs reach the SMs) belongs to the GPC whose block of
 * consecutive SMs holds it; a GPC holds whole TPCs of 2 SMs (single SMs when there are more GPCs than TPCs),
 * the TPCs left over go one each to the last GPCs, and an odd SM to the last one (the H200: 132 SMs in
 * GPCs of 16 x 6 then 18 x 2, cta_starts.cu; calibration.md 5s) */
static void assign_gpcs(gs_tsim *ts, const gs_tconfig *c) {
    uint32_t g = c->gpu_gpcs ? c->gpu_gpcs : 1, n = c->gpu_num_sms;
    if (g > n) g = n;
    uint32_t unit = n / 2 >= g ? 2 : 1;                 /* more GPCs than TPCs: whole SMs */
    uint32_t units = n / unit, per = units / g, extra = units % g, s = 0;
    for (uint32_t k = 0; k < g; k++) {
        uint32_t size = unit * (per + (k >= g - extra));
        if (k == g - 1) size = n - s;                    /* the last GPC takes what is left */
        for (uint32_t j = 0; j < size && s < n; j++) ts->sms[s++].gpc = k;
    }
}

gs_tsim *gs_tsim_create(const gs_tconfig *cfg, char *err, uint32_t errlen) {
    if (check_config(cfg, err, errlen)) return NULL;
    gs_tsim *ts = aligned_alloc(64, (sizeof *ts + 63) / 64 * 64);   /* its cache-line-aligned parts */
    if (!ts) { snprintf(err, errlen, "out of memory"); return NULL; }
    memset(ts, 0, sizeof *ts);
    gs_arena_init(&ts->arena);
    ts->cfg = *cfg;
    const gs_tconfig *c = &ts->cfg;
    ts->sms = aligned_alloc(64, c->gpu_num_sms * sizeof *ts->sms);   /* sizeof is a multiple of 64 */
    if (ts->sms) memset(ts->sms, 0, c->gpu_num_sms * sizeof *ts->sms);
    uint32_t nt = c->sim_threads;
    if (nt == 0) {                                      /* the cores this process may run on */
        cpu_set_t cs;
        nt = sched_getaffinity(0, sizeof cs, &cs) == 0 ? (uint32_t)CPU_COUNT(&cs) : 1;
    }
    if (nt > c->gpu_num_sms) nt = c->gpu_num_sms;
    if (nt < 1) nt = 1;
    ts->nthreads = nt;
    ts->wk = gs_line_calloc(nt, sizeof *ts->wk);
    ts->act = calloc(c->gpu_num_sms, sizeof *ts->act);
    ts->act_mark = calloc((c->gpu_num_sms + 63) / 64, sizeof *ts->act_mark);
    ts->wake = calloc(c->gpu_num_sms, sizeof *ts->wake);
    int bad = !ts->sms || !ts->wk || !ts->act || !ts->act_mark || !ts->wake || gs_dram_init(&ts->dram, c, &ts->st) ||
              gs_l2_init(&ts->l2, c, &ts->dram, &ts->st) || gs_rec_init(&ts->rec, c->gpu_num_sms) ||
              !(ts->pool = gs_pool_create(nt));
    gs_icnt_init(&ts->icnt, c);
    ts->light_quanta = ts->pool && !gs_pool_spins(ts->pool);
    for (uint32_t s = 0; s < c->gpu_num_sms && !bad; s++) {
        gs_tsm *sm = &ts->sms[s];
        sm->id = (int)s;
        sm->wk = ts->wk ? &ts->wk[s % nt] : NULL;     /* (run_one sets the thread that runs it) */
        bad = gs_tsm_tables(ts, sm);
    }
    if (bad) {
        snprintf(err, errlen, "out of memory building the GPU");
        gs_tsim_destroy(ts);
        return NULL;
    }
    ts->l1_line_shift = (uint32_t)__builtin_ctz(c->l1_line_bytes);
    ts->l1_sector_shift = (uint32_t)__builtin_ctz(c->l1_sector_bytes);
    for (uint32_t s = 0; s < c->gpu_num_sms; s++)
        ts->sms[s].part = (uint32_t)((uint64_t)s * c->l2_partitions / c->gpu_num_sms);
    assign_gpcs(ts, c);
    return ts;
}

void gs_tsim_destroy(gs_tsim *ts) {
    if (!ts) return;
    gs_tsim_free_launch(ts);
    for (uint32_t s = 0; ts->sms && s < ts->cfg.gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        /* (the tables, calendars and scoreboards are the arena's) */
        gs_pend_free(&sm->pend);
        free(sm->atomq.data);
        gs_cache_free(&sm->l1);
        gs_cache_free(&sm->icache);
    }
    gs_l2_free(&ts->l2);
    gs_dram_free(&ts->dram);
    free(ts->sms);
    free(ts->act);
    free(ts->act_mark);
    free(ts->wake);
    gs_rec_free(&ts->rec);
    gs_pool_destroy(ts->pool);
    free(ts->wk);
    gs_arena_destroy(&ts->arena);
    free(ts);
}

/* gs_tmem_flush's clears, split over the threads: the L2 slices' first (the largest: a launch leaves MiBs of
 * directory to clear, one slice a unit so that every thread takes a share), the DRAM rows, then the SMs' L1 and
 * i-cache, each taken from a shared counter (which thread clears what changes nothing) */
static void flush_part(void *arg, uint32_t k) {
    gs_tsim *ts = arg;
    uint32_t ns = ts->l2.nslices;
    (void)k;
    for (;;) {
        uint32_t u = atomic_fetch_add(&ts->next_sm, 1);
        if (u < ns) gs_l2_flush_slice(&ts->l2, u);
        else if (u == ns) gs_dram_flush(&ts->dram);
        else if (u - ns - 1 < ts->cfg.gpu_num_sms) {
            gs_cache_clear(&ts->sms[u - ns - 1].l1);
            gs_cache_clear(&ts->sms[u - ns - 1].icache);
        } else return;
    }
}

void gs_tsim_flush(gs_tsim *ts) {
    if (ts->nthreads == 1) gs_tmem_flush(ts);
    else {
        atomic_store(&ts->next_sm, 0);
        gs_pool_run(ts->pool, flush_part, ts);
    }
    /* a cold GPU between launches also restarts the timeline at cycle 0, so that the next launch is
     * simulated exactly as by a new simulator (quantum and interval boundaries are absolute cycles) */
    if (ts->status != GS_RUNNING) {
        ts->launched_once = 0;
        ts->finished = 0;
        ts->end_cycle = 0;
    }
}

/* Recording intervals: close those that ended at or before `now` (GS_NEVER: the run ended, close
 * the partial one). Every warp is accounted up to the boundary first, so the SM rows are complete. */
static void close_interval(gs_tsim *ts, uint64_t start, uint64_t end) {
    const gs_tconfig *c = &ts->cfg;
    gs_rec_smc *sms = malloc((size_t)c->gpu_num_sms * sizeof *sms);
    gs_rec_memc *parts = malloc((size_t)c->dram_channels * sizeof *parts);
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        for (uint32_t w = 0; w < c->sm_max_warps; w++)
            if (sm->tw[w].w) gs_tsm_account(ts, sm, &sm->tw[w], end);
        gs_rec_smc row;
        gs_tsm_interval_row(ts, sm, start, end, sms ? &sms[s] : &row);
    }
    for (uint32_t p = 0; p < c->dram_channels; p++) {
        gs_rec_memc row;
        gs_tmem_interval_row(ts, p, start, end, parts ? &parts[p] : &row);
    }
    if (sms && parts) gs_rec_on_interval(&ts->rec, sms, c->gpu_num_sms, parts, c->dram_channels);
    free(sms);
    free(parts);
}

static void close_intervals(gs_tsim *ts, uint64_t now) {
    if (ts->rec.opts.level < 1) return;
    uint64_t iv = ts->cfg.record_interval_cycles;
    if (now == GS_NEVER) {
        uint64_t start = ts->next_interval - iv;
        close_interval(ts, start, ts->now > start ? ts->now : start);
        ts->next_interval = GS_NEVER;
        return;
    }
    while (ts->next_interval <= now) {
        close_interval(ts, ts->next_interval - iv, ts->next_interval);
        ts->next_interval += iv;
    }
}

/* the statistics: the launch's and memory phase's, plus every thread's counters */
static void totals(gs_tsim *ts, gs_tstats *out) {
    *out = ts->st;
    uint64_t *o = (uint64_t *)out;
    const size_t n = offsetof(gs_tstats, ctas_per_sm) / sizeof(uint64_t);   /* the 64-bit counters */
    out->ctas_done = 0;
    for (uint32_t k = 0; k < ts->nthreads; k++) {
        const gs_worker *wk = &ts->wk[k];
        const uint64_t *w = (const uint64_t *)&wk->st;
        for (size_t i = 0; i < n; i++) o[i] += w[i];
        out->thread_insts += wk->fstats.thread_insts;
        for (int op = 0; op < GS_OP__COUNT; op++) out->op_counts[op] += wk->fstats.op_counts[op];
        out->ctas_done += wk->ctas_done;
    }
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
    close_intervals(ts, GS_NEVER);           /* the last partial interval */
    gs_rec_on_event(&ts->rec, ts->end_cycle, GS_EV_KERNEL_END, 0, 0);
    if (ts->rec.opts.level >= 1) {
        for (uint32_t pc = 0; pc < ts->prog->ninsts; pc++) {
            gs_rec_pcstat r;
            memset(&r, 0, sizeof r);
            r.pc = pc;
            for (uint32_t k = 0; k < ts->nthreads; k++) {
                r.issued += ts->wk[k].pc_issued[pc];
                for (int j = 0; j < GS_WS__COUNT; j++) r.stalls[j] += ts->wk[k].pc_stalls[(size_t)pc * GS_WS__COUNT + j];
            }
            uint64_t any = r.issued;
            for (int j = 0; j < GS_WS__COUNT && !any; j++) any = r.stalls[j];
            if (any) gs_rec_on_pc_stat(&ts->rec, &r);
        }
    }
    ts->finished = 1;
    ts->status = GS_DONE;
}

/* CTAs that left `sm` by cycle t give their slots back (gpu.cta_release_cycles after their last warp);
 * *next: the earliest release still to come */
static void reclaim(gs_tsim *ts, gs_tsm *sm, uint64_t t, uint64_t *next) {
    for (uint32_t i = 0; i < ts->cfg.sm_max_ctas && sm->ctas_releasing; i++) {
        gs_tcta *tc = &sm->ctas[i];
        if (tc->used != 2) continue;
        if (tc->release_at <= t) {
            tc->used = 0;
            sm->ctas_used--;
            sm->ctas_releasing--;
        } else if (tc->release_at < *next) *next = tc->release_at;
    }
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
        uint64_t when = slot > start ? slot : start;
        uint32_t n = c->gpu_num_sms, k = 0;
        uint64_t wait = GS_NEVER;
        gs_tsm *sm = NULL;
        for (; k < n; k++) {
            gs_tsm *cand = &ts->sms[(ts->rr + k) % n];
            if (cand->ctas_releasing) reclaim(ts, cand, when, &wait);
            if (cand->ctas_used < ts->ctas_per_sm) {
                /* the next SM in order with room takes the CTA once its previous CTA has started (the
                 * dispatcher waits for it rather than skipping it, so the CTAs stay spread evenly) */
                if (cand->accept_at <= when) sm = cand;
                else wait = cand->accept_at;
                break;
            }
        }
        if (!sm) {
            if (wait == GS_NEVER) { ts->room = 0; return GS_NEVER; }
            if (wait >= end) return wait;              /* a slot comes back later: wait for it */
            ts->dispatch_next = (double)wait;
            continue;
        }
        ts->rr = (uint32_t)((sm->id + 1) % n);
        int first = !sm->warm_at;                      /* the launch's first CTA on this SM */
        if (gs_tsm_launch_cta(ts, sm, ts->next_cta, when)) return GS_NEVER;
        ts->next_cta++;
        gs_tsim_mark_active(ts, (uint32_t)sm->id, 0);
        double t = ts->dispatch_next + (first && c->gpu_cta_dispatch_first_cycles > 0 ? c->gpu_cta_dispatch_first_cycles
                                                                                    : 1.0 / c->gpu_cta_dispatch_per_cycle);
        ts->dispatch_next = t < (double)start ? (double)start : t;
        gs_tsm_refresh_next(ts, sm);
        gs_tsim_note_wake(ts, sm);
    }
    return GS_NEVER;
}

/* no CTA left to place and no warp on any SM (every SM's memory phase of the quantum counted its warps, so
 * the SMs' lines, last written by the threads that ran them, are not read again here) */
static int all_idle(gs_tsim *ts) {
    return ts->next_cta >= ts->total_ctas && ts->mem_busy_sms == 0;
}

static int deadlock(gs_tsim *ts, gs_fault *out) {
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        for (uint32_t k = 0; k < ts->cfg.sm_max_ctas; k++)
            if (sm->ctas[k].used == 1) {
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

static int fail(gs_tsim *ts, gs_fault *out) {
    ts->status = GS_FAULTED;
    *out = ts->fault;
    return GS_FAULTED;
}

/* SM s through its cycles of the quantum [now, q_end) with thread state wk; `next`: the SM this thread
 * probably runs next (prefetched). Returns 1 if it had nothing to do in the quantum, -1 if it faulted (its
 * memory phase never runs: the cursor stops there), else 0. */
static int sm_phase(gs_tsim *ts, uint32_t s, gs_worker *wk, uint32_t next) {
    uint64_t T = ts->now, E = ts->q_end;
    gs_tsm *sm = &ts->sms[s];
    uint32_t prev = sm->issued_q;                     /* what it issued in its last quantum (0: idle or none yet) */
    sm->issued_q = 0;
    if (sm->next_event >= E) {                        /* nothing to do in this quantum */
        atomic_store_explicit(&sm->phase_done, ts->quantum, memory_order_release);
        return 1;
    }
    sm->wk = wk;
    /* the next busy SM's schedulers into the host cache (an idle one's would be loaded for nothing:
     * reading their array pointers stalls on host cache misses) */
    if (next < ts->cfg.gpu_num_sms && ts->sms[next].next_event < E) {
        const gs_tsm *nx = &ts->sms[next];
        for (uint32_t j = 0; j < ts->cfg.sm_subcores; j++) {
            __builtin_prefetch(&nx->sc[j], 0, 2);
            __builtin_prefetch((const char *)&nx->sc[j] + 64, 0, 2);
            __builtin_prefetch(nx->sc[j].rdy, 0, 2);
            __builtin_prefetch(nx->sc[j].unit, 0, 2);
            __builtin_prefetch(nx->sc[j].warps, 0, 2);
        }
    }
    gs_tsm_warm(ts, sm, T + 8, prev);
    while (sm->next_event < E) {
        uint64_t now = sm->next_event < T ? T : sm->next_event;
        gs_tsm_cycle(ts, sm, now);
        if (wk->status == GS_FAULTED) return -1;
        if (sm->next_event <= now) sm->next_event = now + 1;
    }
    /* its own part of the memory phase before the shared one, here on its thread (gs_tsim_mem_sm) */
    int may = ts->split && sm->pend.count && !sm->pend.oom && !sm->atomq.oom;
    sm->pre = may ? gs_tmem_pre(ts, sm) : 0;
    if (may && !sm->pre) wk->split_refused++;     /* (gs_tsim_split_refused) */
    atomic_store_explicit(&sm->phase_done, ts->quantum, memory_order_release);
    return 0;
}

/* sm_phase of the quantum's j-th SM on a team thread, then whatever memory phases can run (gs_tsim_mem_advance) */
static int run_one(gs_tsim *ts, uint32_t j, gs_worker *wk, uint32_t next) {
    int r = sm_phase(ts, ts->act[j], wk, next);
    if (r < 0) return -1;
    if (r == 0 || atomic_load_explicit(&ts->mem_cursor, memory_order_relaxed) == j) gs_tsim_mem_advance(ts, wk);
    return 0;
}

/* whether this thread takes the quantum's j-th SM (no thread has: its `claimed` was an earlier quantum's) */
static inline int claim(gs_tsim *ts, uint32_t s) {
    _Atomic uint32_t *c = &ts->sms[s].claimed;
    uint32_t q = ts->quantum;
    return atomic_load_explicit(c, memory_order_relaxed) != q &&
           atomic_exchange_explicit(c, q, memory_order_relaxed) != q;
}

/* the index in act after j of the next SM thread k owns (SM s is thread s % nthreads's), or n */
static inline uint32_t next_own(const gs_tsim *ts, uint32_t j, uint32_t k, uint32_t n) {
    while (++j < n && ts->act[j] % ts->nthreads != k) {}
    return j;
}

/* One thread's share of a quantum. First its own SMs (s % threads == k), in index order, then whatever SM no
 * thread has taken yet, in index order, until none is left: a thread that finishes early takes the others' next
 * SMs, so the threads end the quantum together, and the memory phases, which run in SM order, keep up with them.
 * An SM stays on one thread from quantum to quantum while the load is even, so its warps, scoreboards and L1 stay
 * in that core's caches (every SM from a shared counter, as before, moved most SMs between the cores every
 * quantum: resnet18_b1's SM and memory phases took ~11 % more time in all at two threads than at one). run_all,
 * on one thread, uses the same thread state (s % threads). Which thread runs an SM, and so whose state (counters,
 * functional context) it uses, changes nothing but the speed: the totals are sums. A thread stops at its first
 * fault (the lowest faulting SM is reported: every lower SM is run by some thread, its owner's run going up in
 * order). */
static void run_sms(void *arg, uint32_t k) {
    gs_tsim *ts = arg;
    gs_worker *wk = &ts->wk[k];
    uint32_t n = ts->nact, none = ts->cfg.gpu_num_sms;
    for (uint32_t j = next_own(ts, UINT32_MAX, k, n); j < n;) {
        uint32_t nx = next_own(ts, j, k, n);
        if (claim(ts, ts->act[j]) && run_one(ts, j, wk, nx < n ? ts->act[nx] : none)) return;
        j = nx;
    }
    for (uint32_t j = 0; j < n; j++)
        if (claim(ts, ts->act[j]) && run_one(ts, j, wk, none)) return;
}

/* the whole quantum on the calling thread: each SM's phase, then its memory phase, in index order, with no
 * other thread to hand the memory phase to (no cursor taken and given back per SM: a quantum of a sparse
 * phase visits 132 SMs for a few dozen instructions). As on the threads, a faulted SM's thread state stops
 * its later SMs, and the cursor stops at the first SM whose memory phase cannot run. */
static void run_all(gs_tsim *ts) {
    uint32_t n = ts->nact, m = atomic_load_explicit(&ts->mem_cursor, memory_order_relaxed);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t s = ts->act[j];
        gs_worker *wk = &ts->wk[s % ts->nthreads];
        if (wk->status == GS_FAULTED) continue;
        if (sm_phase(ts, s, wk, j + 1 < n ? ts->act[j + 1] : ts->cfg.gpu_num_sms) >= 0 && m == j && !ts->mem_oom &&
            !gs_tsim_mem_sm(ts, wk, s))
            m = j + 1;
    }
    atomic_store_explicit(&ts->mem_cursor, m, memory_order_relaxed);
}

/* Below GS_PAR_MIN_ISSUED + GS_PAR_PER_SM x (the SMs it visits) warp instructions in the last quantum, the
 * next one runs on the calling thread alone ("light") when the team sleeps between quanta (it outnumbers the cores
 * it may run on: gs_pool_spins), or when it visits at most GS_PAR_FEW_SMS SMs: waking the team, or making all of
 * it take part, costs more than such a quantum's work (the cost grows with the SMs visited, the work with the
 * instructions: a quantum that visits the 8 SMs of an 8-CTA launch goes to the team from 48). A spinning team (the
 * usual case, since session 9) runs every other quantum since session 13: it takes one within a few hundred host
 * cycles, and a quantum on the calling thread alone moves the other threads' SMs (warps, scoreboards, L1) to its
 * core and back. Measured in session 13 (docs/scaling.md): resnet18_b1 at two threads 1.80-1.91 s with every such
 * quantum light, 1.76-1.85 s without; the global-atomic histograms at 16 threads on the device host lost up to 30 %
 * with no light quanta at all (their quanta visit 1.8 SMs on average), which GS_PAR_FEW_SMS keeps. Only speed
 * depends on it. */
#define GS_PAR_MIN_ISSUED 32
#define GS_PAR_PER_SM 2
#define GS_PAR_FEW_SMS 2

int gs_tsim_run(gs_tsim *ts, uint64_t budget, gs_fault *out) {
    if (!ts->launched) return gs_tsim_launch_fault(out, "no kernel launched", 0);
    if (ts->status != GS_RUNNING) {
        if (ts->status == GS_FAULTED) *out = ts->fault;
        return ts->status;
    }
    const gs_tconfig *c = &ts->cfg;
    uint64_t stop = ts->now + budget;
    uint64_t q = c->sim_quantum_cycles ? c->sim_quantum_cycles : 1;
    while (ts->now < stop) {
        /* one quantum [T, E): the dispatcher places CTAs; then every SM runs its cycles in [T, E) (on
         * the threads); then the memory phase, SM by SM in index order: its deferred requests through
         * the interconnect, L2 and DRAM and its global atomics, as the serial engine made them */
        uint64_t T = ts->now, E = T + q;
        if (ts->rec.opts.level >= 1 && T >= ts->next_interval) close_intervals(ts, T);
        uint64_t next = dispatch(ts, T, E);
        if (ts->status == GS_FAULTED) { *out = ts->fault; return GS_FAULTED; }
        ts->q_end = E;
        ts->quantum++;
        atomic_store(&ts->mem_cursor, 0);
        ts->mem_next = next;
        ts->mem_atomics = 0;
        gs_tsim_active_sms(ts);
        int light = ts->nthreads > 1 && (ts->light_quanta || ts->nact <= GS_PAR_FEW_SMS) &&
                    ts->mem_issued < GS_PAR_MIN_ISSUED + GS_PAR_PER_SM * (uint64_t)ts->nact;
        ts->split = !light && ts->nthreads > 1 && ts->rec.opts.level < 2;
        for (uint32_t k = 0; k < ts->nthreads; k++) {
            gs_worker *wk = &ts->wk[k];
            wk->q_issued = wk->q_busy_sms = 0;
            wk->q_next = GS_NEVER;
            wk->q_last_sm = -1;
        }
        gs_rec_stage_on(&ts->rec);
        if (light || ts->nthreads == 1) run_all(ts);     /* (one thread: no shared counter to take SMs from) */
        else gs_pool_run(ts->pool, run_sms, ts);
        int faulted = -1;
        for (uint32_t k = 0; k < ts->nthreads; k++) {
            gs_worker *wk = &ts->wk[k];
            if (wk->status == GS_FAULTED && (faulted < 0 || wk->fault_sm < ts->wk[faulted].fault_sm)) faulted = (int)k;
            if (wk->room) { ts->room = 1; wk->room = 0; }
            if (wk->last_free_cycle > ts->last_free_cycle) ts->last_free_cycle = wk->last_free_cycle;
        }
        /* the memory phases the threads left (all of them if an SM faulted: the cursor stopped before it,
         * every lower SM has finished, so what ran is the same for any thread count) */
        uint32_t m = atomic_load(&ts->mem_cursor);
        uint32_t upto = faulted >= 0 ? (uint32_t)ts->wk[faulted].fault_sm : c->gpu_num_sms;
        while (m < ts->nact && ts->act[m] < upto && !ts->mem_oom && !gs_tsim_mem_sm(ts, &ts->wk[0], ts->act[m])) {
            if (ts->sms[ts->act[m]].pre) gs_tsim_mem_after(ts, &ts->wk[0], ts->act[m]);
            m++;
        }
        gs_tsim_quantum_sums(ts);
        gs_rec_stage_off(&ts->rec);
        if (faulted >= 0) {                             /* the lowest SM's fault, whatever the threads */
            ts->fault = ts->wk[faulted].fault;
            return fail(ts, out);
        }
        if (ts->mem_atomics || ts->mem_oom)             /* global atomics, SM by SM (up to one out of memory) */
            for (uint32_t s = 0; s <= (ts->mem_oom ? ts->act[m] : c->gpu_num_sms - 1); s++)
                if (ts->sms[s].atomq.used) gs_atomq_apply(&ts->sms[s].atomq);
        if (ts->mem_oom) {
            gs_fault_set(&ts->ctx, NULL, NULL, GS_FAULT_INVALID, -1, 0, 0, "out of host memory for the memory phase");
            return fail(ts, out);
        }
        next = ts->mem_next;
        if (ts->desc.max_cycles && E - ts->start_cycle > ts->desc.max_cycles) {
            gs_fault_set(&ts->ctx, NULL, NULL, GS_FAULT_LIMIT, -1, 0, 0, "cycle cap reached: %llu cycles (max_cycles)",
                         (unsigned long long)ts->desc.max_cycles);
            return fail(ts, out);
        }
        uint64_t warp_insts = ts->st.warp_insts;
        for (uint32_t k = 0; k < ts->nthreads; k++) warp_insts += ts->wk[k].st.warp_insts;
        if (ts->desc.max_warp_insts && warp_insts > ts->desc.max_warp_insts) {
            gs_fault_set(&ts->ctx, NULL, NULL, GS_FAULT_LIMIT, -1, 0, 0,
                         "instruction cap reached: %llu warp instructions (max_warp_insts)",
                         (unsigned long long)ts->desc.max_warp_insts);
            return fail(ts, out);
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
    totals(ts, out);
    if (!ts->finished) out->cycles = ts->now - ts->start_cycle;
}

uint64_t gs_tsim_cycle(gs_tsim *ts) { return ts->now; }
void gs_tsim_set_caps(gs_tsim *ts, uint64_t max_cycles, uint64_t max_warp_insts) {
    ts->desc.max_cycles = max_cycles;
    ts->desc.max_warp_insts = max_warp_insts;
}
uint32_t gs_tsim_threads(gs_tsim *ts) { return ts->nthreads; }
uint64_t gs_tsim_split_phases(gs_tsim *ts) {
    uint64_t n = 0;
    for (uint32_t k = 0; k < ts->nthreads; k++) n += ts->wk[k].split_phases;
    return n;
}
uint64_t gs_tsim_split_refused(gs_tsim *ts) {
    uint64_t n = 0;
    for (uint32_t k = 0; k < ts->nthreads; k++) n += ts->wk[k].split_refused;
    return n;
}

uint32_t gs_tsim_pending(gs_tsim *ts, int table) { return gs_rec_pending(&ts->rec, table); }

uint32_t gs_tsim_drain(gs_tsim *ts, int table, void *out, uint32_t max_rows) {
    uint64_t mark = ts->next_interval == GS_NEVER ? GS_NEVER : ts->next_interval - ts->cfg.record_interval_cycles;
    return gs_rec_drain(&ts->rec, table, out, max_rows, ts->now, mark, ts->finished);
}
