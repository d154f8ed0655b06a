/* tsim_mem.c — the memory phase's orchestration (tsim.c runs the quanta): SM by SM in index order, pipelined with
 * the SM phases on the threads (gs_tsim_mem_advance), an SM's phase whole (gs_tmem_resolve) or in three parts
 * (gs_tmem_pre on its thread, gs_tmem_shared here, gs_tmem_post in gs_tsim_mem_after), the quantum's per-thread sums
 * and the SMs the next quantum visits. */
#include <stdatomic.h>
#include "timing.h"

/* what the end of the quantum needs from SM s once its memory phase is over, in the thread's sums (tsim_run
 * adds them up: the memory phases' last parts may run on any thread, in any order) */
static void mem_account(gs_tsim *ts, gs_worker *wk, uint32_t s) {
    gs_tsm *sm = &ts->sms[s];
    if (sm->issued_q && (int)s > wk->q_last_sm) { wk->q_last_sm = (int)s; wk->q_last_issue = sm->last_issue; }
    wk->q_issued += sm->issued_q;
    wk->q_busy_sms += sm->warps_used != 0;
    if (sm->next_event < wk->q_next) wk->q_next = sm->next_event;
    if (sm->warps_used || sm->next_event != GS_NEVER) gs_tsim_mark_active(ts, s, ts->split);   /* the next quantum visits it */
    gs_tsim_note_wake(ts, sm);
}

/* The memory phase of SM s (its SM phase of this quantum is over; every lower SM's memory phase has run):
 * its logged requests through the interconnect, L2 and DRAM in issue order, their times settled back
 * into its scoreboards, its staged recorder rows appended to the tables. Its global atomics wait for the
 * end of the quantum (a plain load of an SM still running must not see them). Returns -1 (nothing done)
 * if its log ran out of host memory. */
int gs_tsim_mem_sm(gs_tsim *ts, gs_worker *wk, uint32_t s) {
    gs_tsm *sm = &ts->sms[s];
    if (sm->atomq.used) ts->mem_atomics = 1;
    if (sm->pend.count || sm->pend.nfix) {
        if (sm->pend.oom || sm->atomq.oom) { ts->mem_oom = 1; return -1; }
        if (sm->pre) {                                /* its own parts run before and after (gs_tsim_mem_after) */
            gs_tmem_shared(ts, sm);
        } else {
            gs_rec_direct(&ts->rec, s, 1);            /* its memory samples: after the rows it staged before */
            gs_tmem_resolve(ts, sm, &wk->st);
            gs_tsm_settle(ts, sm);
            gs_rec_direct(&ts->rec, s, 0);
        }
    }
    gs_rec_stage_flush(&ts->rec, s);
    if (!sm->pre) mem_account(ts, wk, s);
    return 0;
}

/* the rest of SM s's memory phase once its shared part has run (gs_tmem_pre ran for it), on any thread: only
 * its own state and the thread's counters are written, so it runs beside the next SMs' memory phases */
void gs_tsim_mem_after(gs_tsim *ts, gs_worker *wk, uint32_t s) {
    gs_tsm *sm = &ts->sms[s];
    gs_tmem_post(ts, sm, &wk->st);
    gs_tsm_settle(ts, sm);
    sm->pre = 0;
    wk->split_phases++;
    mem_account(ts, wk, s);
}

/* the threads' sums of the quantum (mem_account): its issues, the SMs holding warps, the next event, the last
 * issue of the highest SM that issued (as SM-ordered memory phases would leave it) */
void gs_tsim_quantum_sums(gs_tsim *ts) {
    int last = -1;
    ts->mem_issued = 0;
    ts->mem_busy_sms = ts->sleep_busy;                 /* (the SMs left out of the quantum: gs_tsim_active_sms) */
    if (ts->sleep_next < ts->mem_next) ts->mem_next = ts->sleep_next;
    for (uint32_t k = 0; k < ts->nthreads; k++) {
        const gs_worker *wk = &ts->wk[k];
        ts->mem_issued += wk->q_issued;
        ts->mem_busy_sms += wk->q_busy_sms;
        if (wk->q_next < ts->mem_next) ts->mem_next = wk->q_next;
        if (wk->q_last_sm > last) { last = wk->q_last_sm; ts->last_issue_cycle = wk->q_last_issue; }
    }
}

/* The quantum's SMs (ts->act) from the marks, which start over for the next one. An SM not marked has no warp and
 * nothing scheduled: its SM phase would do nothing (next_event >= E) and its memory phase nothing either (no
 * request logged, no warp, no next event), so leaving it out changes no result; only the dispatcher gives it
 * work again, and marks it. A marked SM whose next event is at or after the quantum's end (ts->wake: the SM's
 * own line is not read) is left out too: its SM phase would return at once and its memory phase only count it
 * (warps held, next event: sleep_busy, sleep_next, which gs_tsim_quantum_sums adds) and mark it again, as here.
 * (Its issued_q, stale, is read by no result: sm_phase zeroes it before it counts, gs_tsm_warm only prefetches.) */
void gs_tsim_active_sms(gs_tsim *ts) {
    uint32_t n = 0, words = (ts->cfg.gpu_num_sms + 63) / 64, busy = 0;
    uint64_t E = ts->q_end, next = GS_NEVER;
    for (uint32_t i = 0; i < words; i++) {
        uint64_t keep = 0;
        for (uint64_t m = ts->act_mark[i]; m; m &= m - 1) {
            uint32_t b = (uint32_t)__builtin_ctzll(m), s = i * 64 + b;
            const gs_wake *w = &ts->wake[s];
            if (w->next < E) { ts->act[n++] = (uint16_t)s; continue; }
            if (w->busy || w->next != GS_NEVER) keep |= 1ull << b;
            busy += (uint32_t)w->busy;
            if (w->next < next) next = w->next;
        }
        ts->act_mark[i] = keep;
    }
    ts->nact = n;
    ts->sleep_busy = busy;
    ts->sleep_next = next;
}

/* Runs the memory phases that can run now: SM by SM in index order from the cursor, while their SM
 * phase is over, by whichever thread gets there first (one at a time), so that the serial part of a
 * quantum overlaps the other SMs' simulation. The order of the calls is the serial engine's whatever
 * the threads; the end of the quantum runs what is left (tsim_run). An SM whose own parts are split off
 * (gs_tmem_pre ran) gives the cursor back after its shared part: this thread then runs its own last part
 * (gs_tsim_mem_after) while another may take the next SM's shared part. */
void gs_tsim_mem_advance(gs_tsim *ts, gs_worker *wk) {
    uint32_t n = ts->nact, q = ts->quantum;
    const uint16_t *act = ts->act;
    for (;;) {
        uint32_t m = atomic_load(&ts->mem_cursor);
        if (m >= n || atomic_load(&ts->sms[act[m]].phase_done) != q) return;
        if (atomic_exchange(&ts->mem_busy, 1)) return;    /* another thread is at it; it looks again after */
        if (ts->mem_oom) { atomic_store(&ts->mem_busy, 0); return; }   /* the cursor stays: the end reports it */
        m = atomic_load_explicit(&ts->mem_cursor, memory_order_relaxed);
        int after = -1;
        while (m < n && atomic_load_explicit(&ts->sms[act[m]].phase_done, memory_order_acquire) == q) {
            if (gs_tsim_mem_sm(ts, wk, act[m])) break;         /* out of memory (mem_oom) */
            if (ts->sms[act[m++]].pre) { after = act[m - 1]; break; }
        }
        atomic_store(&ts->mem_cursor, m);
        atomic_store(&ts->mem_busy, 0);
        if (after >= 0) gs_tsim_mem_after(ts, wk, (uint32_t)after);
        /* an SM that finished while this thread held the lock found it busy: look again */
    }
}

