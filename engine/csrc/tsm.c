/* tsm.c — one streaming multiprocessor in the timing model (CTA placement and release: tsm_cta.c): sub-core
 * warp schedulers, the timestamp scoreboard, issue into the pipes, and warp-state accounting.
 *
 * Issue at cycle `now` of warp slot s on sub-core k (slot % subcores):
 *   eligible  = not blocked at a barrier, not finished, ready_at <= now (every register and predicate
 *               its next instruction reads or writes is ready), the instruction's pipe on this
 *               sub-core is free (unit_free <= now) and, for a memory instruction, the SM's queue it
 *               enters is not full (q_free <= now: mio_throttle / lg_throttle otherwise, timing.h);
 *   fetch     = with sm.fetch_insts = N, a warp whose buffer is empty fetches its next N instructions
 *               through the SM's fetch unit (one warp per cycle, a calendar) at or after its last issue
 *               and its i-cache line's arrival; they may issue 2 cycles later (decode); 0: no limit;
 *   pick      = the scheduler policy (sched.c) among eligible warps;
 *   execute   = source_step: gs_warp_step (exact results, addresses for the memory model);
 *   latency   = the pipe's latency, or the completion the memory model computes; written registers get
 *               that ready cycle and a wait-state kind (wait / short_scoreboard / long_scoreboard).
 * Warp states are accounted lazily in run-length segments: [last issue+1, ready_at) in the wait state,
 * [ready_at, throttle_until) throttled, then not_selected until the next issue (1 cycle selected).
 */
#include <stdlib.h>
#include "timing.h"
#include "warpsched.h"
#include "trace_src.h"
#include "exec.h"

#define GS_MAX_ISSUE_PER_CYCLE 8           /* SASS timing: folded instructions issued with others in a cycle */

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* the scheduler's copy of what it reads of a warp (gs_subcore in timing.h): after every change of
 * ready_at, next_pc, next_unit, next_q, blocked or done */
static inline void sched_sync(gs_tsm *sm, const gs_tw *tw) {
    gs_subcore *sc = &sm->sc[tw->sub];
    sc->rdy[tw->pos] = tw->w && !tw->done && !tw->blocked && tw->next_pc >= 0 ? tw->ready_at : GS_NEVER;
    sc->unit[tw->pos] = tw->next_unit;
    sc->q[tw->pos] = tw->next_q;
}

/* a warp-state change to the recorder (runs of one state are one row) */
static void rec_state(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t cycle, int state, int32_t pc) {
    if (tw->rec_state == state && state != GS_WS_SELECTED) return;
    tw->rec_state = (uint8_t)state;
    gs_rec_wstate r;
    memset(&r, 0, sizeof r);
    r.cycle = cycle;
    r.sm = (uint16_t)sm->id;
    r.slot = tw->slot;
    r.state = (uint8_t)state;
    r.cta = tw->cta ? tw->cta->cta.linear : 0xffffffffu;
    r.pc = pc >= 0 ? (uint32_t)pc : 0xffffffffu;
    const gs_warp *w = tw->w;       /* the lanes of the reconvergence-stack top, which runs `pc` next */
    r.active = (w && pc >= 0 && w->sp > 0) ? w->stack[w->sp - 1].mask & w->live : 0;
    gs_rec_on_state(&ts->rec, &r);
}

static void add_state(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, int state, uint64_t from, uint64_t to) {
    if (to <= from) return;
    uint64_t d = to - from;
    sm->wk->st.state_cycles[state] += d;
    sm->iv_hist[state] += (uint32_t)d;
    if (tw->next_pc >= 0) sm->wk->pc_stalls[(size_t)tw->next_pc * GS_WS__COUNT + state] += d;
    if (sm->record_states) rec_state(ts, sm, tw, from, state, tw->next_pc);
}

/* Account the warp's states from acc_t up to `until` (exclusive), given what we know at this point. */
void gs_tsm_account(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t until) {
    uint64_t a = tw->acc_t;
    if (until <= a) return;
    if (tw->done) {
        add_state(ts, sm, tw, GS_WS_DRAIN, a, min64(until, tw->drain_at));
        tw->acc_t = until;
        return;
    }
    if (tw->blocked) {
        add_state(ts, sm, tw, tw->wait_state, a, until);
        tw->acc_t = until;
        return;
    }
    uint64_t r = tw->ready_at;
    if (a < r) {
        add_state(ts, sm, tw, tw->wait_state, a, min64(r, until));
        a = min64(r, until);
    }
    gs_subcore *sc = &sm->sc[tw->sub];
    if (a < until && sc->thr[tw->pos] > a) {
        uint64_t e = min64(sc->thr[tw->pos], until);
        uint8_t state = sc->thr_state[tw->pos];
        /* an arithmetic pipe busy with the warp's own last instruction on it first: the warp waits that out as
         * ptxas's stall count says (Nsight's `wait`, alone or among other warps alike: docs/calibration.md 5u);
         * then the other warps' use of it is the throttle (sched.c pipe_throttle). An arithmetic instruction's
         * throttle is always its pipe's (it enters no memory queue). */
        uint8_t unit = sc->unit[tw->pos];
        uint64_t own = gs_unit_is_alu(unit) ? sc->own[(size_t)tw->pos * GS_OWN_UNITS + unit] : 0;
        if (own > a) {
            uint64_t w = min64(own, e);
            add_state(ts, sm, tw, GS_WS_WAIT, a, w);
            a = w;
        }
        /* the cycles of [ready, thr) in which it was ready and another warp issued (sched.c throttle): in one
         * block, before the throttle (on the hardware they alternate with it) */
        uint32_t ns = sc->nsel[tw->pos];
        if (ns && a < e) {
            uint64_t n = min64(ns, e - a);
            add_state(ts, sm, tw, GS_WS_NOT_SELECTED, a, a + n);
            sc->nsel[tw->pos] = ns - (uint32_t)n;
            a += n;
        }
        if (a < e) add_state(ts, sm, tw, state, a, e);
        a = e;
    }
    if (a < until) add_state(ts, sm, tw, GS_WS_NOT_SELECTED, a, until);
    tw->acc_t = until;
}

/* scoreboard: when can instruction x issue, from `r` in `state` on: the last of its registers and
 * predicates to be ready, and the wait state that one was given (values may be markers) */
/* reg_kind's top bit (sm.wgmma_chain_in_pipe): the register's pending value is a wgmma accumulator, which a
 * following wgmma may accumulate into without waiting for it (the tensor pipe keeps their order) */
#define REG_WGMMA_ACC 0x80u

static inline int wg_chain(const gs_tsim *ts) { return ts->cfg.sm_wgmma_chain_in_pipe && !ts->prog->trace; }

/* sm.cp_async_wait: cp.async (not .bulk) copies are tracked per warp in commit groups; wait_group N waits for
 * the data of all but the newest N committed groups, wait_all for all of them and the open one */
static inline int cp_wait(const gs_tsim *ts) { return ts->cfg.sm_cp_async_wait && !ts->prog->trace; }
static inline int is_cp_copy(const gs_xinst *x) { return x->op == GS_OP_CP_ASYNC && !(x->aux & 1u); }  /* aux bit 0: .bulk */
static inline int is_cp_group_op(const gs_xinst *x) { return x->op == GS_OP_CP_ASYNC_COMMIT || x->op == GS_OP_CP_ASYNC_WAIT; }

static void scoreboard(gs_tw *tw, const gs_xinst *x, uint64_t r, int state, int wg_chain, int cp_wait) {
    uint8_t skip = wg_chain && x->op == GS_OP_WGMMA_MMA ? REG_WGMMA_ACC : 0;
    for (uint32_t i = 0; i < x->nrd; i++) {
        uint64_t t = tw->reg_ready[x->rd[i]];
        if (t > r && !(tw->reg_kind[x->rd[i]] & skip)) { r = t; state = tw->reg_kind[x->rd[i]] & ~REG_WGMMA_ACC; }
    }
    for (uint32_t i = 0; i < x->nwr; i++) {
        uint64_t t = tw->reg_ready[x->wr[i]];
        if (t > r && !(tw->reg_kind[x->wr[i]] & skip)) { r = t; state = tw->reg_kind[x->wr[i]] & ~REG_WGMMA_ACC; }
    }
    for (int i = 0; i < 4 && x->prd[i] >= 0; i++) {
        uint64_t t = tw->pred_ready[x->prd[i]];
        if (x->pwr[0] < 0 && tw->pred_use[x->prd[i]] > t) t = tw->pred_use[x->prd[i]];   /* a guard, selp's operand */
        if (t > r) { r = t; state = GS_WS_WAIT; }
    }
    if (wg_chain && x->op == GS_OP_WGMMA_WAIT) {      /* all but the newest N committed groups complete */
        int32_t keep = (int32_t)tw->w->R[x->ops[0]];
        for (int32_t i = 0; i < (int32_t)tw->wg_count - keep; i++) {
            uint64_t t = tw->wg_group[(tw->wg_head + i) % 8];
            if (t > r) { r = t; state = GS_WS_WAIT; }
        }
    }
    if (cp_wait && x->op == GS_OP_CP_ASYNC_WAIT) {
        /* wait_group N: all but the newest N committed groups; wait_all (no operand): every group and the open one */
        int32_t keep = x->nops ? (int32_t)tw->w->R[x->ops[0]] : 0;
        for (int32_t i = 0; i < (int32_t)tw->cp_count - keep; i++) {
            uint64_t t = tw->cp_group[(tw->cp_head + i) % 8];
            if (t > r) { r = t; state = GS_WS_LONG_SCOREBOARD; }
        }
        if (!x->nops && tw->cp_open > r) { r = tw->cp_open; state = GS_WS_LONG_SCOREBOARD; }
    }
    for (int i = 0; i < 2 && x->pwr[i] >= 0; i++) {
        uint64_t t = tw->pred_ready[x->pwr[i]];
        if (t > r) { r = t; state = GS_WS_WAIT; }
    }
    tw->ready_at = r;
    tw->wait_state = (uint8_t)state;
}

/* from `earliest` (default state) and the instruction fetch, then the scoreboard */
static void ready_from(gs_tw *tw, const gs_xinst *x, uint64_t earliest, uint64_t fetch, int state, int wg_chain,
                       int cp_wait) {
    uint64_t r = earliest;
    if (fetch > r) { r = fetch; state = GS_WS_NO_INSTRUCTION; }
    scoreboard(tw, x, r, state, wg_chain, cp_wait);
}

static inline int is_warp_op(const gs_xinst *x) {
    return x->op == GS_OP_SHFL || x->op == GS_OP_MATCH || x->op == GS_OP_REDUX || x->op == GS_OP_VOTE;
}

/* the SM memory queue an instruction enters (timing.h): shared memory and warp operations the MIO
 * queue, global/local/generic accesses the LSU's; constant-bank reads and asynchronous-copy
 * bookkeeping neither */
static inline uint8_t mem_queue(const gs_xinst *x) {
    if (x->unit != GS_U_LDST) return GS_Q_NONE;
    if (is_warp_op(x) || x->space == GS_SPACE_SHARED || x->space == GS_SPACE_SHARED_CLUSTER) return GS_Q_MIO;
    if (x->space == GS_SPACE_GLOBAL || x->space == GS_SPACE_LOCAL || x->space == GS_SPACE_GENERIC) return GS_Q_LG;
    return GS_Q_NONE;
}

/* an instruction entered queue q and starts service at `start`: the queue has room again when the
 * oldest of its last l1.lsu_queue instructions has started */
static void queue_push(gs_tsim *ts, gs_tsm *sm, int q, uint64_t start) {
    uint32_t n = ts->cfg.l1_lsu_queue;
    uint64_t *ring = sm->qring + (size_t)q * n;
    ring[sm->qpos[q]] = start;
    sm->qpos[q] = (sm->qpos[q] + 1) % n;
    uint64_t room = ring[sm->qpos[q]];
    for (uint32_t k = 0; k < ts->cfg.sm_subcores; k++) sm->sc[k].q_free[q] = room;
}

/* 32 lanes of 64-bit values (a register slot, the lane addresses) into the host cache: 4 lines; rw 1 for a write */
static inline void prefetch_lanes(const uint64_t *r, int rw) {
    if (rw) {
        __builtin_prefetch(r, 1, 2); __builtin_prefetch(r + 8, 1, 2); __builtin_prefetch(r + 16, 1, 2); __builtin_prefetch(r + 24, 1, 2);
    } else {
        __builtin_prefetch(r, 0, 2); __builtin_prefetch(r + 8, 0, 2); __builtin_prefetch(r + 16, 0, 2); __builtin_prefetch(r + 24, 0, 2);
    }
}

/* the register slots instruction x reads (the warp's register file is cold whenever it issues again) */
static inline void prefetch_reads(const gs_warp *w, const gs_xinst *x) {
    for (uint32_t i = 0; i < x->nrd; i++) prefetch_lanes(w->R + (size_t)x->rd[i] * GS_WARP, 0);
}

/* when can this warp's next instruction issue, and what is it waiting for */
static void next_ready(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t earliest, int default_state) {
    gs_warp *w = tw->w;
    if (tw->frag_left) {                       /* the next request of its wmma.load (sm.frag_requests) */
        tw->next_pc = tw->frag_pc;
        tw->next_unit = GS_U_LDST;
        tw->next_q = GS_Q_LG;
        tw->ready_at = earliest;
        tw->wait_state = (uint8_t)default_state;
        tw->nr_base = earliest;
        tw->nr_fetch = 0;
        tw->nr_state = (uint8_t)default_state;
        sm->sc[tw->sub].thr[tw->pos] = 0;
        sched_sync(sm, tw);
        return;
    }
    int pc = gs_warp_next_pc(w);
    tw->next_pc = pc;
    if (pc < 0) { sched_sync(sm, tw); return; }
    const gs_xinst *x = &ts->prog->x[pc];
    tw->next_unit = gs_unit_of(ts, pc, x);
    tw->next_q = mem_queue(x);
    uint64_t fetch = 0;
    const gs_tconfig *cf = &ts->cfg;
    /* sm.fetch_insts: the warp's next instructions come in groups through the SM's fetch unit (one
     * warp per cycle) when its buffer is empty; a group is looked up in the i-cache by its first PC */
    int group = cf->sm_fetch_insts && tw->fetch_left == 0;
    if (cf->sm_icache == GS_ICACHE_MODEL && sm->icache.sets && (!cf->sm_fetch_insts || group)) {
        uint64_t addr = ts->prog->trace ? gs_tsrc_fetch_addr(ts, pc) : (uint64_t)pc * cf->sm_inst_bytes;
        uint64_t line = addr / cf->sm_icache_line_bytes;
        uint64_t set = gs_cache_set(&sm->icache, line);
        int64_t idx = gs_cache_find(&sm->icache, line, set);
        uint64_t *ready;
        if (idx < 0) {
            uint64_t evl;
            uint8_t evd;
            idx = gs_cache_alloc(&sm->icache, line, set, &evl, &evd);
            sm->icache.bits[idx].valid = 1;
            ready = &sm->icache.ready[(size_t)idx * sm->icache.nsect];
            *ready = gs_pend_max(&sm->pend, group ? tw->fetch_req : earliest, cf->sm_icache_miss_cycles, 0);
            if (gs_is_pend(*ready)) sm->pend.n[*ready - GS_PEND].wb = ready;
            sm->wk->st.icache_misses++;
        }
        fetch = sm->icache.ready[(size_t)idx * sm->icache.nsect];
    }
    if (group) {       /* fetch at or after the last issue and the line's arrival; decode; issue */
        uint64_t t = max64(tw->fetch_req, fetch);
        int pend = gs_is_pend(t);          /* (a marker is not kept for the group's later instructions) */
        tw->fetch_at = pend ? gs_pend_max(&sm->pend, t, 2, 0) : gs_cal_take(&sm->fetch, t, GS_CAL_FULL) + 2;
        tw->fetch_left = pend ? 1 : (uint8_t)cf->sm_fetch_insts;
    }
    if (cf->sm_fetch_insts) {
        tw->fetch_left--;
        fetch = tw->fetch_at;
    }
    /* the registers this instruction reads and writes: ask the host cache for them now, while other
     * warps issue (a warp's register file is cold by the time it issues again; no effect on results) */
    if (w->R && !ts->prog->trace) {
        prefetch_reads(w, x);
        for (uint32_t i = 0; i < x->nwr; i++) prefetch_lanes(w->R + (size_t)x->wr[i] * GS_WARP, 1);
        if (x->unit == GS_U_LDST) prefetch_lanes(w->maddr, 1);   /* the lane addresses the functional core leaves */
    }
    tw->nr_base = earliest;
    tw->nr_fetch = fetch;
    tw->nr_state = (uint8_t)default_state;
    ready_from(tw, x, earliest, fetch, default_state, wg_chain(ts), cp_wait(ts));
    sm->sc[tw->sub].thr[tw->pos] = 0;
    if (gs_is_pend(tw->ready_at)) gs_pend_fix(&sm->pend, tw->slot, GS_FIX_READY, 0);
    sched_sync(sm, tw);
}

static void retire_warp(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t now);

/* the last of a fragment's nm MOVMs completes this long after its data (they issue sm.movm_interval_cycles
 * apart from one warp, each sm.movm_latency_cycles long) */
static inline uint32_t movm_cycles(const gs_tconfig *cf, uint32_t nm) {
    return cf->sm_movm_latency_cycles + (uint32_t)((nm - 1) * cf->sm_movm_interval_cycles + 0.5);
}

/* the fragment registers of a wmma.load get the completion of its requests so far (the latest: requests
 * complete in any order), plus, after the last one, the MOVMs that transpose it (sm.movm_latency_cycles) */
static void frag_regs(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t part_done, int last) {
    gs_pend *pd = &sm->pend;
    uint64_t v = x->nwr ? gs_pend_max(pd, part_done, 0, tw->reg_ready[x->wr[0]]) : part_done;
    uint32_t nm = last && ts->cfg.sm_movm_latency_cycles ? gs_wmma_load_movms(x) : 0;
    if (nm) v = gs_pend_max(pd, v, movm_cycles(&ts->cfg, nm), 0);
    for (uint32_t i = 0; i < x->nwr; i++) {
        tw->reg_ready[x->wr[i]] = v;
        tw->reg_kind[x->wr[i]] = GS_WS_LONG_SCOREBOARD;
        if (gs_is_pend(v)) gs_pend_fix(pd, tw->slot, GS_FIX_REG, x->wr[i]);
    }
}

/* sm.frag_requests: issue the next request of the warp's wmma.load (one LSU instruction, one issue slot) */
static uint32_t issue_frag_part(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, gs_tw *tw, uint64_t now) {
    const gs_tconfig *cf = &ts->cfg;
    if (tw->acc_t <= now) {
        gs_tsm_account(ts, sm, tw, now);
        add_state(ts, sm, tw, GS_WS_SELECTED, now, now + 1);
        tw->acc_t = now + 1;
    }
    tw->fetch_req = now;
    sm->iv_issued++;
    sm->last_issue = now;
    sm->issued_q++;
    sc->unit_free[GS_U_LDST] = now + cf->pipes_interval_cycles[GS_U_LDST];
    const gs_xinst *x = &ts->prog->x[tw->frag_pc];
    uint64_t lsu0 = sm->lsu.next_free;
    uint64_t d = gs_tmem_frag_part(ts, sm, tw, x, now, tw->frag_next);
    tw->frag_next++;
    tw->frag_left--;
    frag_regs(ts, sm, tw, x, d, !tw->frag_left);
    if (sm->lsu.next_free != lsu0) queue_push(ts, sm, GS_Q_LG, max64(now + 1, (lsu0 + (1u << GS_FIX) - 1) >> GS_FIX));
    next_ready(ts, sm, tw, now + cf->sm_dispatch_latency_cycles, GS_WS_WAIT);
    return 16;
}

/* Work of a tensor-core instruction in units of one mma.sync m16n8k16 with 16-bit inputs (the
 * microbenchmarked instruction): 2*m*n*k flops / 4096, doubled for tf32 inputs (half rate), halved for
 * 8-bit ones. wgmma runs per warp on its 16 rows and at ~1.4x mma.sync's rate (datasheet dense rate
 * over the measured mma.sync rate). Shape codes are engine/ptx/decode.py's SHAPES / WGMMA_K. */
static double tensor_units(const gs_xinst *x) {
    static const uint16_t MNK[][3] = {{0, 0, 0}, {16, 16, 16}, {32, 8, 16}, {8, 32, 16}, {16, 16, 8}, {8, 8, 4},
                                      {16, 8, 8}, {16, 8, 16}, {16, 8, 4}, {8, 8, 16}, {16, 8, 32}, {8, 8, 32},
                                      {8, 8, 128}, {16, 8, 64}, {16, 8, 128}, {16, 8, 256}};
    uint32_t code = x->aux & 0xff;
    double flops;
    if (x->op == GS_OP_WGMMA_MMA) {
        static const uint16_t K[] = {16, 8, 32, 32};
        uint32_t n = ((x->aux >> 24) & 0xff) * 8;
        uint32_t k = code >= 24 && code <= 27 ? K[code - 24] : 16;
        flops = 2.0 * 16 * n * k / 1.4;
    } else if (code < sizeof MNK / sizeof *MNK && MNK[code][0]) {
        flops = 2.0 * MNK[code][0] * MNK[code][1] * MNK[code][2];
    } else {
        flops = 4096.0;
    }
    int t = x->type2 ? x->type2 : x->type;
    double scale = t == GS_T_TF32 ? 2.0 : (t == GS_T_S8 || t == GS_T_U8 || t == GS_T_E4M3 || t == GS_T_E5M2) ? 0.5 : 1.0;
    double u = flops / 4096.0 * scale;
    return u < 0.25 ? 0.25 : u;
}

/* wgmma in the tensor pipe (sm.wgmma_chain_in_pipe; docs/calibration.md, "wgmma on the H200"): each warp's
 * share of a wgmma (16 rows x N) occupies its sub-core's pipe for the longer of N x wgmma_cycles_per_n (the
 * math, whatever the input type: K x element size is 32 bytes in every form) and the warpgroup's operand
 * bytes over the SM's shared-memory bandwidth (l1.bytes_per_cycle): B is N x 32 bytes, A 64 x 32 bytes when
 * it comes from shared memory. (The shared-memory port itself is not taken: its contention with other
 * shared-memory traffic is not modelled.) With wgmma_reads_block_loads the reads are queued in the LSU's order at issue,
 * so global accesses issued after a wgmma wait until its operands are read. A wgmma starts when the pipe is free and completes wgmma_latency_cycles + N x
 * wgmma_cycles_per_n (+ wgmma_smem_a_cycles with A from shared memory) after its start. The pipe accepts
 * wgmma_queue more while it runs one: a warp may issue a wgmma once the pipe's backlog is at most that many
 * of this one's occupancy (unit_free), and issues its next instruction wgmma_issue_cycles later. Returns
 * the completion cycle. */
static uint64_t wgmma_time(const gs_tconfig *cf, gs_tsm *sm, gs_subcore *sc, const gs_xinst *x, uint64_t now) {
    double n = (double)(((x->aux >> 24) & 0xff) * 8);
    int a_smem = gs_top(x, 1)->kind != GS_OK_VEC;
    double occ = n * cf->sm_wgmma_cycles_per_n;
    double port = 32.0 * (n + (a_smem ? 64.0 : 0.0)) / (double)cf->l1_bytes_per_cycle;
    if (port > occ) occ = port;
    if (cf->sm_wgmma_reads_block_loads)   /* the warp's share (a quarter) of the operand reads, in the LSU's order */
        gs_res_take(&sm->lsu, now + 1, (uint64_t)(port / 4.0 * (double)(1u << GS_FIX)));
    uint64_t busy = (uint64_t)(occ + 0.5);
    if (busy < 1) busy = 1;
    uint64_t start = sc->wgmma_free > now ? sc->wgmma_free : now;
    sc->wgmma_free = start + busy;
    uint64_t backlog = (uint64_t)cf->sm_wgmma_queue * busy;
    sc->unit_free[GS_U_TENSOR] = sc->wgmma_free > now + backlog ? sc->wgmma_free - backlog : now + 1;
    return start + cf->sm_wgmma_latency_cycles + (uint64_t)(n * cf->sm_wgmma_cycles_per_n + 0.5) +
           (a_smem ? cf->sm_wgmma_smem_a_cycles : 0);
}

static void release_barrier_waiters(gs_tsim *ts, gs_tsm *sm, gs_tcta *tc, uint64_t now) {
    for (uint32_t i = 0; i < tc->nslots; i++) {
        gs_tw *o = &sm->tw[tc->slots[i]];
        if (!o->w || !o->blocked || o->w->state == GS_W_BAR) continue;
        gs_tsm_account(ts, sm, o, now + 1);        /* barrier state until the release */
        o->blocked = 0;
        o->acc_t = now + 1;
        next_ready(ts, sm, o, now + ts->cfg.sm_barrier_latency_cycles + ts->cfg.sm_barrier_per_warp_cycles * ts->warps_per_cta,
                   GS_WS_BARRIER);
        gs_subcore *sc = &sm->sc[o->sub];
        if (sc->next_check > o->ready_at) sc->next_check = o->ready_at;
        if (o->next_pc < 0) retire_warp(ts, sm, o, now);
    }
}

/* The instruction source: the warp's next instruction at `now` on this SM — executed by the functional
 * core (exact results, and the lane addresses the memory model times), or, in a trace-driven launch
 * (trace_src.c), taken from the trace with nothing executed. Returns the handler result (GS_X_FAULT:
 * the worker's fault is set). */
static inline int source_step(gs_tsim *ts, gs_worker *wk, gs_tsm *sm, gs_tw *tw, uint64_t now) {
    if (ts->prog->trace) return gs_tsrc_step(ts, sm, tw);
    wk->ctx.clock = now;
    wk->ctx.smid = (uint32_t)sm->id;
    wk->ctx.defer_atomics = &sm->atomq;
    return gs_warp_step(&wk->ctx, tw->w);
}

/* The scoreboard entries next_ready will read for the instruction at pc (after this issue, usually the next
 * one): into the host cache while the functional core executes this one (no effect on results) */
static inline void prefetch_scoreboard(const gs_tsim *ts, const gs_tw *tw, int pc) {
    if ((uint32_t)pc >= ts->prog->ninsts || ts->prog->trace) return;
    const gs_xinst *x = &ts->prog->x[pc];
    for (uint32_t i = 0; i < x->nrd; i++) {
        __builtin_prefetch(&tw->reg_ready[x->rd[i]], 0, 3);
        __builtin_prefetch(&tw->reg_kind[x->rd[i]], 0, 3);
    }
    for (uint32_t i = 0; i < x->nwr; i++) __builtin_prefetch(&tw->reg_ready[x->wr[i]], 0, 3);
    for (int i = 0; i < 4 && x->prd[i] >= 0; i++) {
        __builtin_prefetch(&tw->pred_ready[x->prd[i]], 0, 3);
        __builtin_prefetch(&tw->pred_use[x->prd[i]], 0, 3);
    }
}

/* Issue the warp's next instruction; returns the issue slots it takes, x16 (16: one; SASS timing: its
 * SASS instruction count x16, 0 for an instruction ptxas folded into another). */
static uint32_t issue(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, gs_tw *tw, uint64_t now) {
    const gs_tconfig *cf = &ts->cfg;
    gs_worker *wk = sm->wk;
    gs_pend *pd = &sm->pend;
    gs_warp *w = tw->w;
    int pc = tw->next_pc;
    const gs_xinst *x = &ts->prog->x[pc];
    if (tw->acc_t <= now) {                 /* (not when it issues again in this cycle after a folded one) */
        gs_tsm_account(ts, sm, tw, now);
        add_state(ts, sm, tw, GS_WS_SELECTED, now, now + 1);
        tw->acc_t = now + 1;
    }
    if (tw->frag_left) return issue_frag_part(ts, sm, sc, tw, now);
    prefetch_scoreboard(ts, tw, pc + 1);
    wk->pc_issued[pc]++;
    tw->fetch_req = now;
    uint64_t ti0 = wk->fstats.thread_insts;
    int r = source_step(ts, wk, sm, tw, now);
    if (r == GS_X_FAULT) {
        if (wk->status != GS_FAULTED) wk->fault_sm = sm->id;
        wk->status = GS_FAULTED;
        return 16;
    }
    uint32_t active = (uint32_t)(wk->fstats.thread_insts - ti0);
    wk->st.warp_insts++;
    wk->st.unit_insts[x->unit]++;
    sm->iv_issued++;
    sm->iv_thread_insts += active;
    sm->last_issue = now;
    sm->issued_q++;
    int unit = gs_unit_of(ts, pc, x);
    /* SASS timing (docs/sass.md): the SASS instructions take issue16/16 slots, the pipe is busy for those
     * of its class, the result comes after the last of them; a folded instruction (no SASS of its own:
     * arithmetic, a move or an `ld.param`) takes no slot and no pipe, and its result is there at once.
     * Memory, tensor-core, control and barrier instructions keep their own timing whatever their SASS. */
    const gs_sass_cost *sa = gs_sass_of(ts, pc);
    uint32_t issue16 = sa ? sa->issue16 : 16;
    int folded = sa && issue16 == 0 && (gs_unit_is_alu(unit) || unit == GS_U_MISC
                                        || (unit == GS_U_LDST && x->space == GS_SPACE_PARAM));
    uint64_t sass_extra = sa && issue16 > 16 && unit != GS_U_LDST ? (issue16 - 16 + 15) / 16 : 0;
    int sreg_wait = 0;
    if (sa && unit != GS_U_LDST) {      /* a chain of dependent SASS instructions takes each one's latency */
        uint64_t chain = 0;
        for (int u = 0; u < GS_U__COUNT; u++) chain += (uint64_t)sa->path[u] * cf->pipes_latency_cycles[u];
        /* measured hops slower than their pipe (calibration.md 5q): IMAD.HI, a predicate read by a guard */
        if (cf->sm_imad_hi_latency_cycles > cf->pipes_latency_cycles[GS_U_FP32])
            chain += (uint64_t)sa->hi_hops * (cf->sm_imad_hi_latency_cycles - cf->pipes_latency_cycles[GS_U_FP32]);
        if (cf->sm_sass_pred_guard_cycles > cf->pipes_latency_cycles[GS_U_INT])
            chain += (uint64_t)sa->pred_hops * (cf->sm_sass_pred_guard_cycles - cf->pipes_latency_cycles[GS_U_INT]);
        /* a special-register read through the MIO (sreg.cu, calibration.md 5w): its reader waits on the short
         * scoreboard */
        if (sa->sreg_hops && cf->sm_sreg_latency_cycles) {
            if (cf->sm_sreg_latency_cycles > cf->pipes_latency_cycles[GS_U_MISC])
                chain += (uint64_t)sa->sreg_hops * (cf->sm_sreg_latency_cycles - cf->pipes_latency_cycles[GS_U_MISC]);
            sreg_wait = 1;
        }
        if (chain > cf->pipes_latency_cycles[unit] + sass_extra) sass_extra = chain - cf->pipes_latency_cycles[unit];
    }
    wk->st.sass_insts16 += issue16;
    uint64_t interval = cf->pipes_interval_cycles[unit], tensor_extra = 0;
    if (unit == GS_U_TENSOR && (x->op == GS_OP_MMA || x->op == GS_OP_WMMA_MMA || x->op == GS_OP_WGMMA_MMA)) {
        double u = tensor_units(x);
        interval = (uint64_t)(u * cf->pipes_interval_cycles[unit] + 0.5);
        if (interval < 1) interval = 1;
        tensor_extra = interval > cf->pipes_interval_cycles[unit] ? interval - cf->pipes_interval_cycles[unit] : 0;
    } else if (sa && sa->unit == unit && sa->pipe16 > 16) {
        interval = (sa->pipe16 * interval + 8) / 16;
    }
    int wg_pipe = x->op == GS_OP_WGMMA_MMA && wg_chain(ts);
    if (!folded && !wg_pipe) {
        sc->unit_free[unit] = now + interval;
        if (gs_unit_is_alu(unit)) sc->own[(size_t)tw->pos * GS_OWN_UNITS + (size_t)unit] = now + interval;
    }
    /* result latency */
    uint64_t done;
    uint8_t kind = GS_WS_WAIT;
    int warp_op = is_warp_op(x);
    int is_mem = unit == GS_U_LDST && !warp_op;
    uint64_t lsu0 = sm->lsu.next_free, data0 = sm->l1_data.next_free;
    if (warp_op && unit == GS_U_LDST) {               /* MIO: one warp shuffle per cycle per SM */
        uint64_t t = gs_res_take(&sm->l1_data, now + 1, 1u << GS_FIX);
        done = t + cf->pipes_latency_cycles[GS_U_LDST];
        kind = GS_WS_SHORT_SCOREBOARD;
    } else if (is_mem) {
        uint64_t leave;
        const gs_ctx *cx = &wk->ctx;
        uint32_t parts = cf->sm_frag_requests && x->op == GS_OP_WMMA_LOAD && w->mmask && w->mspace == GS_SPACE_GLOBAL
                         && cx->nmext && !ts->prog->trace ? gs_frag_requests(cx->mfrag_rows, cx->mfrag_row_bytes) : 0;
        if (parts > 1) {                               /* the first of the JIT's requests now, the others next */
            tw->frag_pc = pc;
            tw->frag_base = cx->mfrag_base;
            tw->frag_pitch = cx->mfrag_pitch;
            tw->frag_rows = cx->mfrag_rows;
            tw->frag_row_bytes = cx->mfrag_row_bytes;
            tw->frag_next = 1;
            tw->frag_left = (uint8_t)(parts - 1);
            done = gs_tmem_frag_part(ts, sm, tw, x, now, 0);
            leave = done;
            kind = GS_WS_LONG_SCOREBOARD;
        } else {
            done = gs_tmem_issue(ts, sm, tw, x, now, &kind, &leave);
            if (cf->sm_movm_latency_cycles && x->op == GS_OP_WMMA_LOAD && w->mmask && w->mspace != GS_SPACE_SHARED) {
                /* a transposed 16-bit fragment from global: the JIT's MOVMs after its loads (exec_wmma.c) */
                uint32_t nm = gs_wmma_load_movms(x);
                if (nm) done = gs_pend_max(pd, done, movm_cycles(cf, nm), 0);
            }
        }
        if (cp_wait(ts) && is_cp_copy(x) && w->mmask) {      /* the group's data arrives with its last copy */
            uint64_t a = gs_pend_max(pd, done, cf->sm_cp_async_latency_cycles, tw->cp_open);
            if (gs_is_pend(a) && a != tw->cp_open) gs_pend_fix(pd, tw->slot, GS_FIX_CPASYNC, 0);
            tw->cp_open = a;
        }
        if (x->nwr == 0 && x->pwr[0] < 0) {            /* stores, reductions: drain and fences only */
            uint64_t d = gs_pend_max(pd, leave, 0, tw->drain_at);
            if (gs_is_pend(d) && d != tw->drain_at) gs_pend_fix(pd, tw->slot, GS_FIX_DRAIN, 0);
            tw->drain_at = d;
            uint64_t k = gs_pend_max(pd, done, 0, tw->acked_at);
            if (gs_is_pend(k) && k != tw->acked_at) gs_pend_fix(pd, tw->slot, GS_FIX_ACKED, 0);
            tw->acked_at = k;
            done = now + 1;
        }
    } else if (folded) {
        done = now;
    } else if (wg_pipe) {
        done = wgmma_time(cf, sm, sc, x, now);
    } else {
        done = now + cf->pipes_latency_cycles[unit] + tensor_extra + sass_extra;
        if (unit == GS_U_MISC && !sa && cf->sm_sreg_latency_cycles) {  /* a PTX-timed S2R read (program.c is_s2r) */
            done = now + cf->sm_sreg_latency_cycles;
            sreg_wait = 1;
        }
        if (unit == GS_U_SFU || unit == GS_U_LDST || sreg_wait) kind = GS_WS_SHORT_SCOREBOARD;
    }
    if (wg_chain(ts)) {                                /* wgmma groups: completion per commit, retired by waits */
        if (x->op == GS_OP_WGMMA_MMA) {
            kind |= REG_WGMMA_ACC;
            if (done > tw->wg_open) tw->wg_open = done;
        } else if (x->op == GS_OP_WGMMA_COMMIT) {
            /* an empty group is a no-op HGMMA in SASS (m64n8k16, no operands): it completes like one */
            uint64_t t = tw->wg_open ? tw->wg_open
                                     : now + cf->sm_wgmma_latency_cycles + (uint64_t)(8 * cf->sm_wgmma_cycles_per_n + 0.5);
            if (tw->wg_count == 8) { tw->wg_head = (uint8_t)((tw->wg_head + 1) % 8); tw->wg_count--; }
            tw->wg_group[(tw->wg_head + tw->wg_count) % 8] = t > now ? t : now;
            tw->wg_count++;
            tw->wg_open = 0;
        } else if (x->op == GS_OP_WGMMA_WAIT) {
            int32_t keep = (int32_t)w->R[x->ops[0]];
            while ((int32_t)tw->wg_count > keep && tw->wg_count) {
                tw->wg_head = (uint8_t)((tw->wg_head + 1) % 8);
                tw->wg_count--;
            }
        }
    }
    if (cp_wait(ts) && is_cp_group_op(x)) {          /* cp.async groups: commit closes one, waits retire them */
        if (x->op == GS_OP_CP_ASYNC_COMMIT) {
            if (tw->cp_count == 8) {                     /* (more than 8 in flight: the oldest merges into the next) */
                uint64_t o = tw->cp_group[tw->cp_head];
                tw->cp_head = (uint8_t)((tw->cp_head + 1) % 8);
                tw->cp_count--;
                uint64_t *n = &tw->cp_group[tw->cp_head];
                uint64_t v = gs_pend_max(pd, o, 0, *n);
                if (gs_is_pend(v) && v != *n) gs_pend_fix(pd, tw->slot, GS_FIX_CPASYNC, 0);
                *n = v;
            }
            tw->cp_group[(tw->cp_head + tw->cp_count) % 8] = tw->cp_open;
            tw->cp_count++;
            tw->cp_open = 0;
        } else {
            int32_t keep = x->nops ? (int32_t)w->R[x->ops[0]] : 0;
            while ((int32_t)tw->cp_count > keep && tw->cp_count) {
                tw->cp_head = (uint8_t)((tw->cp_head + 1) % 8);
                tw->cp_count--;
            }
            if (!x->nops) tw->cp_open = 0;
        }
    }
    if (sm->lsu.next_free != lsu0) queue_push(ts, sm, GS_Q_LG, max64(now + 1, (lsu0 + (1u << GS_FIX) - 1) >> GS_FIX));
    if (sm->l1_data.next_free != data0) queue_push(ts, sm, GS_Q_MIO, max64(now + 1, (data0 + (1u << GS_FIX) - 1) >> GS_FIX));
    for (uint32_t i = 0; i < x->nwr; i++) {
        tw->reg_ready[x->wr[i]] = done;
        tw->reg_kind[x->wr[i]] = kind;
        if (gs_is_pend(done)) gs_pend_fix(pd, tw->slot, GS_FIX_REG, x->wr[i]);
    }
    for (int i = 0; i < 2 && x->pwr[i] >= 0; i++) {
        tw->pred_ready[x->pwr[i]] = done;
        if (gs_is_pend(done)) gs_pend_fix(pd, tw->slot, GS_FIX_PRED, (uint32_t)x->pwr[i]);
        /* sm.pred_use_latency_cycles: an arithmetic compare's predicate reaches guards and selects later */
        tw->pred_use[x->pwr[i]] = cf->sm_pred_use_latency_cycles && !is_mem && !warp_op && !folded && !gs_is_pend(done)
                                  ? now + cf->sm_pred_use_latency_cycles : 0;
    }
    /* what happens next for this warp */
    uint64_t earliest = folded ? now : now + (wg_pipe ? cf->sm_wgmma_issue_cycles : cf->sm_dispatch_latency_cycles);
    int dflt = GS_WS_WAIT;
    if (unit == GS_U_BRANCH && !folded) { earliest = now + cf->pipes_latency_cycles[GS_U_BRANCH]; dflt = GS_WS_BRANCH_RESOLVING; }
    if (x->op == GS_OP_MEMBAR) { earliest = gs_pend_max(pd, tw->acked_at, 0, earliest); dflt = GS_WS_MEMBAR; }
    if (x->op == GS_OP_BAR) {
        earliest = now + cf->sm_barrier_latency_cycles + cf->sm_barrier_per_warp_cycles * ts->warps_per_cta;
        dflt = GS_WS_BARRIER;
    }
    if (w->state == GS_W_BAR) {
        tw->blocked = 1;
        tw->wait_state = GS_WS_BARRIER;
        tw->ready_at = GS_NEVER;
        tw->next_pc = gs_warp_next_pc(w);
        sched_sync(sm, tw);
    } else {
        next_ready(ts, sm, tw, earliest, dflt);
    }
    if (x->op == GS_OP_BAR || x->op == GS_OP_EXIT || x->op == GS_OP_RET) {
        release_barrier_waiters(ts, sm, tw->cta, now);
    }
    if (w->state == GS_W_DONE || tw->next_pc < 0) retire_warp(ts, sm, tw, now);
    return folded ? 0 : (issue16 ? issue16 : 16);
}

/* the warp has no instruction left: drain its stores, then free the slot (and maybe the CTA) */
static void retire_warp(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t now) {
    if (tw->done) return;
    tw->done = 1;
    tw->blocked = 0;
    tw->ready_at = GS_NEVER;
    if (tw->drain_at < now + 1) tw->drain_at = now + 1;
    tw->acc_t = max64(tw->acc_t, now + 1);
    if (tw->drain_at < sm->min_drain) sm->min_drain = tw->drain_at;
    sm->done_mask[tw->slot >> 6] |= 1ull << (tw->slot & 63);
    sched_sync(sm, tw);
}

/* for tsm_cta.c (the static versions above stay as the issue loop's: their code there is unchanged) */
void gs_tsm_next_ready(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t earliest, int default_state) {
    next_ready(ts, sm, tw, earliest, default_state);
}
void gs_tsm_retire_warp(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t now) { retire_warp(ts, sm, tw, now); }
void gs_tsm_rec_state(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t cycle, int state, int32_t pc) {
    rec_state(ts, sm, tw, cycle, state, pc);
}

void gs_tsm_refresh_next(gs_tsim *ts, gs_tsm *sm) {
    uint64_t n = sm->min_drain;
    for (uint32_t k = 0; k < ts->cfg.sm_subcores; k++)
        if (sm->sc[k].nwarps && sm->sc[k].next_check < n) n = sm->sc[k].next_check;
    sm->next_event = n;
}

/* Before an SM runs its quantum: ask the host cache for the state of the warps that can issue early in it.
 * Every other SM ran since this one's last quantum, so that state is cold, and issuing a warp walks it in a
 * chain of dependent misses (its gs_tw, then its gs_warp and scoreboard, then its predicates and
 * registers). Here the chains of up to GS_WARM_WARPS warps per sub-core run side by side instead: three
 * passes, each prefetching what the previous one's lines point to. Only host-cache hints: no effect on
 * results. prev_issued (the SM's issues in its last quantum, 0 if unknown) caps the warps per sub-core near
 * what it will issue: a quantum of a few issues (wmma warps waiting on their fragments) otherwise walks 32
 * warps' chains for nothing (hgemm_wmma_simple_2048: 1.11-1.15x faster with the cap; the suite unchanged). */
#define GS_WARM_WARPS 8
void gs_tsm_warm(const gs_tsim *ts, const gs_tsm *sm, uint64_t until, uint32_t prev_issued) {
    if (ts->prog->trace) return;
    uint16_t slots[GS_WARM_WARPS * 8];
    uint32_t n = 0, cap = GS_WARM_WARPS;
    if (prev_issued) {
        uint32_t c = prev_issued / ts->cfg.sm_subcores + 2;
        if (c < cap) cap = c;
    }
    for (uint32_t k = 0; k < ts->cfg.sm_subcores && k < 8; k++) {
        const gs_subcore *sc = &sm->sc[k];
        for (uint32_t i = 0, m = 0; i < sc->nwarps && m < cap; i++) {
            if (sc->rdy[i] >= until) continue;
            const gs_tw *tw = &sm->tw[sc->warps[i]];
            __builtin_prefetch(tw, 0, 3);
            __builtin_prefetch((const char *)tw + 64, 1, 3);
            slots[n++] = sc->warps[i];
            m++;
        }
    }
    for (uint32_t i = 0; i < n; i++) {              /* the warp, its scoreboard */
        const gs_tw *tw = &sm->tw[slots[i]];
        __builtin_prefetch(tw->w, 1, 3);
        const gs_xinst *x = &ts->prog->x[tw->next_pc];
        for (uint32_t j = 0; j < x->nrd; j++) __builtin_prefetch(&tw->reg_ready[x->rd[j]], 0, 2);
    }
    for (uint32_t i = 0; i < n; i++) {              /* its guard predicate and operand registers */
        const gs_tw *tw = &sm->tw[slots[i]];
        const gs_warp *w = tw->w;
        const gs_xinst *x = &ts->prog->x[tw->next_pc];
        if (x->guard >= 0) __builtin_prefetch(&w->P[x->guard], 0, 2);
        if (w->R) prefetch_reads(w, x);
    }
}

void gs_tsm_cycle(gs_tsim *ts, gs_tsm *sm, uint64_t now) {
    const gs_tconfig *cf = &ts->cfg;
    if (sm->min_drain <= now) gs_tsm_finish_drains(ts, sm, now);
    /* sm.subcore_rotate: the first sub-core to pick changes every cycle, so a slot that frees in the SM's
     * shared LSU/MIO queues goes to the sub-cores in turn (with a fixed order sub-core 0's warps win them all) */
    uint32_t k0 = cf->sm_subcore_rotate ? (uint32_t)(now % cf->sm_subcores) : 0;
    for (uint32_t j = 0; j < cf->sm_subcores; j++) {
        uint32_t k = j + k0 < cf->sm_subcores ? j + k0 : j + k0 - cf->sm_subcores;
        gs_subcore *sc = &sm->sc[k];
        if (!sc->nwarps || sc->next_check > now) continue;
        uint64_t min_next = GS_NEVER;
        int pick = gs_sched_pick(ts, sm, sc, now, &min_next);
        if (pick >= 0) {
            sm->wk->st.issue_cycles++;
            /* issue slots x16 (SASS timing: instructions of less than a slot share the cycle; one of more
             * keeps the scheduler busy, its fraction carried into the next issue) */
            uint32_t acc = sc->carry16, n = 0;
            for (;;) {
                acc += issue(ts, sm, sc, &sm->tw[pick], now);
                if (sm->wk->status == GS_FAULTED) return;
                sc->last = pick;
                if (acc >= 16 || !ts->sass || ++n >= GS_MAX_ISSUE_PER_CYCLE) break;
                pick = gs_sched_pick(ts, sm, sc, now, &min_next);
                if (pick < 0) break;
            }
            if (acc < 16) acc = 16;                 /* the rest of the cycle goes unused */
            sc->carry16 = acc % 16;
            sc->next_check = now + acc / 16;
        } else {
            sc->next_check = min_next;
        }
    }
    if (sm->min_drain <= now + 1) gs_tsm_finish_drains(ts, sm, now);
    gs_tsm_refresh_next(ts, sm);
}

void gs_tsm_settle(gs_tsim *ts, gs_tsm *sm) {
    gs_pend *pd = &sm->pend;
    for (uint32_t i = 0; i < pd->nfix; i++) {     /* registers, predicates, drains: their times */
        gs_pfix *f = &pd->fix[i];
        gs_tw *tw = &sm->tw[f->slot];
        if (f->kind == GS_FIX_REG) tw->reg_ready[f->idx] = gs_pend_val(pd, tw->reg_ready[f->idx]);
        else if (f->kind == GS_FIX_PRED) tw->pred_ready[f->idx] = gs_pend_val(pd, tw->pred_ready[f->idx]);
        else if (f->kind == GS_FIX_DRAIN && gs_is_pend(tw->drain_at)) {
            tw->drain_at = gs_pend_val(pd, tw->drain_at);
            if (tw->done && tw->drain_at < sm->min_drain) sm->min_drain = tw->drain_at;
        } else if (f->kind == GS_FIX_ACKED && gs_is_pend(tw->acked_at)) {
            tw->acked_at = gs_pend_val(pd, tw->acked_at);
        } else if (f->kind == GS_FIX_CPASYNC) {        /* the warp's cp.async groups (all of them: few) */
            tw->cp_open = gs_pend_val(pd, tw->cp_open);
            for (int g = 0; g < 8; g++) tw->cp_group[g] = gs_pend_val(pd, tw->cp_group[g]);
        }
    }
    for (uint32_t i = 0; i < pd->nfix; i++) {     /* then the scoreboards that waited on them */
        gs_pfix *f = &pd->fix[i];
        gs_tw *tw = &sm->tw[f->slot];
        if (f->kind != GS_FIX_READY || !tw->w || tw->done || tw->blocked || tw->next_pc < 0 || !gs_is_pend(tw->ready_at))
            continue;
        ready_from(tw, &ts->prog->x[tw->next_pc], gs_pend_val(pd, tw->nr_base), gs_pend_val(pd, tw->nr_fetch), tw->nr_state,
                   wg_chain(ts), cp_wait(ts));
        sched_sync(sm, tw);
        gs_subcore *sc = &sm->sc[tw->sub];
        if (sc->next_check > tw->ready_at) sc->next_check = tw->ready_at;
    }
    gs_pend_clear(pd);
    gs_tsm_refresh_next(ts, sm);
}

void gs_tsm_interval_row(gs_tsim *ts, gs_tsm *sm, uint64_t start, uint64_t end, gs_rec_smc *r) {
    const gs_tconfig *c = &ts->cfg;
    memset(r, 0, sizeof *r);
    r->cycle0 = start;
    r->sm = (uint16_t)sm->id;
    r->warps_active = (uint16_t)sm->warps_used;
    r->ctas_active = (uint16_t)sm->ctas_used;
    r->issued = sm->iv_issued;
    r->thread_insts = sm->iv_thread_insts;
    memcpy(r->state_hist, sm->iv_hist, sizeof r->state_hist);
    r->l1_accesses = sm->iv_l1_acc;
    r->l1_hits = sm->iv_l1_hits;
    r->l1_misses = sm->iv_l1_miss;
    r->shared_accesses = sm->iv_shared;
    r->bank_conflicts = sm->iv_conflicts;
    uint32_t used = 0;
    for (uint32_t k = 0; k < c->l1_mshrs; k++) used += sm->mshr[k] > end;
    r->mshr_used = (uint16_t)(used > 65535 ? 65535 : used);
    uint64_t bl = gs_res_backlog(&sm->lsu, end);
    r->ldst_queue = (uint16_t)(bl > 65535 ? 65535 : bl);
    memset(sm->iv_hist, 0, sizeof sm->iv_hist);
    sm->iv_issued = sm->iv_thread_insts = sm->iv_l1_acc = sm->iv_l1_hits = sm->iv_l1_miss = 0;
    sm->iv_shared = sm->iv_conflicts = 0;
}
