/* timing.h — the timing model's internal structures (see engine/README.md, "Timing model").
 *
 * The model is timestamp-driven: every issued instruction's results get a ready cycle (fixed pipe
 * latency, or the completion time the memory hierarchy computes for it), and bandwidth-limited
 * resources are FCFS reservations with sub-cycle precision. The cycle loop therefore only visits
 * schedulers that can issue, and jumps over cycles in which nothing can happen.
 */
#ifndef GS_TIMING_H
#define GS_TIMING_H
#include <stdatomic.h>
#include "internal.h"
#include "cache.h"
#include "calendar.h"
#include "l1.h"
#include "icnt.h"
#include "l2.h"
#include "dram.h"
#include "pending.h"
#include "rec.h"
#include "arena.h"

#define GS_NEVER UINT64_MAX
#define GS_FIX 8                       /* resource times in 1/256 cycle */

/* A bandwidth resource. Contract: gs_res_take(r, t, cost) returns the cycle at which a request that
 * arrives at t starts service; the resource is then busy for cost/256 cycles. */
typedef struct gs_res {
    uint64_t next_free;                /* fixed point */
} gs_res;

static inline uint64_t gs_res_take(gs_res *r, uint64_t t, uint64_t cost_fix) {
    uint64_t tf = t << GS_FIX;
    uint64_t start = tf > r->next_free ? tf : r->next_free;
    r->next_free = start + cost_fix;
    return (start + (1u << GS_FIX) - 1) >> GS_FIX;
}
static inline uint64_t gs_res_backlog(const gs_res *r, uint64_t now) {
    uint64_t nf = r->next_free >> GS_FIX;
    return nf > now ? nf - now : 0;
}

/* Per warp-slot timing state. The fields the scheduler and the state accounting read come first (one
 * host cache line), then what every issue reads or writes (the second); the rest is touched by rarer
 * instructions. A warp's state is cold whenever it issues (the other SMs ran in between), so each line
 * it touches is a host cache miss: the array starts a line (tsm_tables.c: the arena) and each slot is whole lines. */
typedef struct gs_tw {
    gs_warp *w;                        /* NULL: free slot */
    uint64_t ready_at;                 /* scoreboard: next instruction may issue from this cycle */
    int32_t next_pc;
    /* blocked and done share a 4-byte word with nothing an issue writes (spare keeps next_unit out of it): the
     * compiler tests the two with one wider load (tsm.c sched_sync, after every issue; GCC made it 32 bits when
     * next_unit and wait_state were in this word), which byte stores just made to the bytes it covers hold up
     * until they retire (no store forwarding for a load that spans several stores) */
    uint8_t blocked;                   /* barrier */
    uint8_t done;                      /* exited, draining until drain_at */
    uint8_t rec_state;                 /* last recorded state (full recording) */
    uint8_t spare;
    uint8_t next_unit;
    uint8_t wait_state;                /* state from the last issue until ready_at */
    uint8_t next_q;                    /* the queue its next instruction enters: GS_Q_MIO, GS_Q_LG or 0 */
    uint8_t nr_state;                  /* next_ready's default state (with nr_base, nr_fetch below) */
    uint16_t slot;
    uint16_t pos;                      /* position in its sub-core's warps (and rdy, unit) */
    uint16_t sub;                      /* its sub-core: slot % sm.subcores */
    uint8_t fetch_left;                /* sm.fetch_insts: instructions left in the warp's fetch buffer */
    uint8_t frag_left;                 /* sm.frag_requests: requests of the warp's wmma.load still to issue */
    uint64_t age;
    uint64_t acc_t;                    /* states accounted up to here */
    /* every issue (the second line) */
    uint64_t fetch_req;                /* its last issue (a fetch may start then) */
    uint64_t *reg_ready;               /* per register slot: cycle the value is ready */
    uint8_t *reg_kind;                 /* wait state charged while waiting for it */
    uint64_t *pred_ready;
    uint64_t *pred_use;                /* sm.pred_use_latency_cycles: ready for a guard / select (0: pred_ready) */
    uint64_t nr_base, nr_fetch;        /* next_ready's inputs (its earliest cycle, the i-fetch), kept to
                                        * recompute it when they or the registers were pending (tsm.c) */
    /* colder */
    struct gs_tcta *cta;
    uint64_t drain_at;                 /* the warp's stores have left the SM: an exited warp frees its slot */
    uint64_t acked_at;                 /* the L2 has accepted the warp's stores (what a fence waits for) */
    uint64_t start;                    /* cycle the warp became resident */
    uint64_t fetch_at;                 /* sm.fetch_insts: its buffer's issue cycle */
    const void *tr_next;               /* trace-driven: the warp's next record (trace_src.c; NULL: not started) */
    uint32_t tr_left;                  /* and how many are left */
    uint8_t wg_head, wg_count;         /* sm.wgmma_chain_in_pipe: committed wgmma groups (ring, oldest first) */
    uint64_t wg_open;                  /*   latest completion of the wgmma issued since the last commit */
    uint64_t wg_group[8];              /*   each committed group's completion cycle */
    uint8_t cp_head, cp_count;         /* sm.cp_async_wait: committed cp.async groups (ring, oldest first) */
    uint64_t cp_open;                  /*   latest data arrival of the cp.async issued since the last commit */
    uint64_t cp_group[8];              /*   each committed group's data-arrival cycle (may be a pending marker) */
    uint8_t frag_next;                 /* sm.frag_requests: the next request of the warp's wmma.load */
    int32_t frag_pc;                   /*   the wmma.load */
    uint32_t frag_rows, frag_row_bytes; /*   its tile as stored: rows of row_bytes, pitch bytes apart from base */
    uint64_t frag_base, frag_pitch;
    uint32_t sb_cap[2];                /* entries reg_ready/reg_kind, pred_ready/pred_use have room for (tsm_tables.c) */
    uint64_t pad_[3];                  /* to whole host cache lines: each slot of the array (on lines: tsm_tables.c) starts one */
} gs_tw;
_Static_assert(sizeof(gs_tw) % 64 == 0, "gs_tw must be whole host cache lines");

typedef struct gs_tcta {
    gs_cta cta;                        /* functional state */
    int used;                          /* 0 free, 1 running, 2 left but its slot not yet released */
    uint64_t release_at;               /* used == 2: when the SM may take another CTA in its place */
    uint32_t nwarps_left;
    uint16_t slots[64];
    uint32_t nslots;
    uint32_t shared_alloc;
} gs_tcta;

/* The SM's memory-instruction queues (Nsight's throttle reasons): shared-memory and other MIO
 * instructions (shuffles) wait for the data port (l1_data), global/local ones for the tag lookups
 * (lsu). A queue holds l1.lsu_queue instructions that have not started service; a warp whose next
 * instruction would enter a full queue waits before issuing it: mio_throttle or lg_throttle. */
enum { GS_Q_NONE = 0, GS_Q_MIO, GS_Q_LG, GS_Q__COUNT };

/* One sub-core's scheduler. Its warps are kept in launch (age) order in `warps`; beside them, per
 * position, what the scheduler reads for every warp each time it looks for one to issue (contiguous,
 * so a scan touches a few cache lines instead of one gs_tw per warp): rdy = the warp's ready_at while it
 * may issue (resident, not done, not at a barrier, has a next instruction), else GS_NEVER; unit = its
 * next instruction's pipe; q = the memory queue it enters (GS_Q_*). tsm.c keeps them in step with the
 * gs_tw (sched_sync). */
#define GS_OWN_UNITS (GS_U_SFU + 1)  /* the arithmetic pipes (gs_unit_is_alu): INT, FP32, FP16, FP64, SFU */
typedef struct gs_subcore {
    uint32_t nwarps;
    int32_t last;                      /* last issued slot (gto greed, lrr position) */
    uint32_t carry16;                  /* SASS timing: x16 part of a slot the last issue ran into this cycle */
    uint64_t next_check;               /* no warp can issue before this cycle */
    uint64_t unit_free[GS_U__COUNT];
    uint64_t wgmma_free;               /* the tensor pipe may start the next wgmma (tsm.c wgmma_time) */
    uint64_t q_free[GS_Q__COUNT];      /* an instruction may enter queue q from this cycle (SM-wide) */
    uint64_t *rdy;                     /* per position (capacity: max_warps / subcores) */
    uint8_t *unit;                     /* per position */
    uint8_t *q;                        /* per position */
    uint64_t *thr;                     /* per position: ready by its scoreboard but its pipe or queue busy until
                                        * this cycle (0: not throttled; the state accounting's throttle interval) */
    uint8_t *thr_state;                /* per position: the throttle's state (math pipe, MIO, LG) */
    uint64_t *own;                     /* per position, GS_OWN_UNITS each: the end of the interval for which
                                        * its warp's own last instruction on that arithmetic pipe holds it. Until
                                        * then the warp is charged `wait` (ptxas's stall count), only after it
                                        * `math_pipe_throttle` (the pipe busy with other warps) */
    uint32_t *nsel;                    /* per position: cycles since its last issue in which it was ready by its
                                        * scoreboard and not found throttled, yet another warp issued (the gaps
                                        * between its throttle intervals): `not_selected`, charged by the state
                                        * accounting inside [ready, thr) before the throttle. Valid while
                                        * thr != 0: the first throttle after an issue starts it afresh */
    uint16_t *warps;                   /* warp slots of this scheduler, in launch order */
} gs_subcore;

typedef struct gs_tsm {
    /* read or written for every SM in every quantum (run_sms, the memory phase), whether it ran or not:
     * kept together in the first cache lines so that an idle SM costs one or two host cache misses */
    uint64_t next_event;
    uint64_t last_issue;               /* the cycle of its last issue; issued_q: in this quantum */
    uint32_t issued_q;                 /* warp instructions issued in this quantum */
    int id;
    _Atomic uint32_t phase_done;       /* the quantum (gs_tsim.quantum) whose SM phase it has finished */
    _Atomic uint32_t claimed;          /* the last quantum a thread took its SM phase (run_sms) */
    /* the quantum's deferred memory work (pending.h) and global atomics */
    gs_pend pend;
    gs_atomq atomq;
    uint32_t part;                     /* L2 partition the SM is attached to */
    uint32_t gpc;                      /* its GPC (gpu.gpcs) */
    gs_tw *tw;                         /* max_warps slots */
    gs_tcta *ctas;                     /* max_ctas slots */
    gs_subcore *sc;
    uint32_t warps_used, ctas_used, threads_used, regs_used, shared_used;
    uint32_t ctas_releasing;           /* CTAs that left and still hold their slot (gpu.cta_release_cycles) */
    uint64_t warm_at;                  /* this launch: its first instruction fetch is in (0: no CTA came yet) */
    uint64_t param_at;                 /* this launch: the parameter bank is in its constant cache (0: not asked) */
    uint64_t accept_at;                /* the dispatcher may send it a CTA from then on (its last CTA has started) */
    uint64_t min_drain;
    uint64_t *done_mask;               /* bit per warp slot: resident and done (draining), for finish_drains */
    uint64_t *resident_mask;           /* bit per warp slot: resident (tw->w set), for gs_tsm_launch_cta's free
                                        * slots without reading every gs_tw on the way (a host cache miss each) */
    /* memory pipeline */
    gs_cache l1;
    gs_res lsu;                        /* tag lookups */
    gs_res l1_data;                    /* data port bytes (shared and L1) */
    gs_icnt_port icnt;                 /* SM <-> L2 ports */
    uint64_t *mshr;                    /* completion cycle per MSHR entry (ring) */
    uint64_t *qring;                   /* per queue (GS_Q_*), the service start of its last l1.lsu_queue instructions */
    uint32_t qpos[GS_Q__COUNT];
    uint32_t mshr_next;                /* the next MSHR entry (wraps at l1.mshrs) */
    uint32_t mshr_post;                /* gs_tmem_pre: the first entry its misses took (gs_tmem_post's) */
    int pre;                           /* gs_tmem_pre ran for this quantum's log */
    gs_cache icache;
    gs_cal fetch;                      /* sm.fetch_insts: the fetch unit, one warp per cycle */
    /* statistics and recording for the current interval */
    uint32_t iv_issued, iv_thread_insts, iv_l1_acc, iv_l1_hits, iv_l1_miss, iv_shared, iv_conflicts;
    uint32_t iv_hist[GS_WS__COUNT];
    uint64_t warp_res_since;           /* accounting of resident warps */
    int record_states;
    uint64_t msample_count;
    struct gs_worker *wk;              /* the thread that simulates this SM */
} __attribute__((aligned(64))) gs_tsm;  /* one SM's first line starts a host cache line (tsim.c allocates so) */

/* One simulation thread's private state: the SMs it runs use its functional context and add to its
 * counters; the totals are sums, the same whichever thread counted what. */
typedef struct gs_worker {
    gs_ctx ctx;
    gs_fault fault;
    gs_func_stats fstats;
    gs_tstats st;
    uint64_t *pc_issued;               /* per pc */
    uint64_t *pc_stalls;               /* per pc * GS_WS__COUNT */
    uint64_t last_free_cycle, ctas_done;
    int status, room, fault_sm;        /* fault_sm: the SM that faulted (the lowest one wins) */
    /* the quantum's sums over the SMs whose memory phase this thread finished (tsim.c mem_account) */
    uint64_t q_issued, q_next, q_last_issue;
    uint32_t q_busy_sms;
    int q_last_sm;                     /* the highest SM that issued (-1: none), and its last issue */
    uint64_t split_phases;             /* memory phases whose last part it ran (gs_tsim_split_phases) */
    uint64_t split_refused;            /* SM phases it ran in a split quantum whose memory phase stayed whole */
} __attribute__((aligned(64))) gs_worker;   /* each thread's on host cache lines of its own (hostmem.h) */

typedef struct gs_wake {               /* gs_tsim.wake */
    uint64_t next;
    uint64_t busy;
} gs_wake;

struct gs_tsim {
    gs_tconfig cfg;
    gs_tsm *sms;
    /* the SMs' tables (warp slots, CTA slots, schedulers, queues, port calendars, scoreboards) on huge pages,
     * for the simulator's life (arena.h) */
    gs_arena arena;
    /* the shared memory system: written by the memory phase while SM threads read the rest of this
     * struct, so it has cache lines of its own */
    _Alignas(64) gs_icnt icnt;
    gs_l2 l2;
    gs_dram dram;
    /* derived config */
    _Alignas(64) uint32_t l1_line_shift, l1_sector_shift;   /* log2 of the sizes */
    /* the launch */
    int launched, finished, status, launched_once;
    uint32_t setup_carve;              /* the launch's set-up on the threads (tsim.c launch_sms): its carveout, */
    int setup_failed;                  /* an SM's scoreboards did not fit in host memory */
    int sass;                          /* this launch uses the program's SASS costs (prog->sass): GS_TS_SASS_ALL for
                                        * every instruction, GS_TS_SASS_DIV for integer div/rem only (0: none) */
    int sass_regs;                     /* its occupancy used ptxas's registers (prog->sass_regs) */
    gs_device *dev;
    gs_program *prog;
    gs_launch_desc desc;
    uint8_t *params;
    uint32_t param_bytes;
    gs_ctx ctx;                        /* the dispatcher's (CTA set-up); SMs use their worker's */
    gs_fault fault;
    gs_func_stats fstats;
    /* threads */
    uint32_t nthreads;
    gs_worker *wk;                     /* nthreads */
    struct gs_pool *pool;
    int light_quanta;                  /* quanta with little work run on the calling thread (a sleeping team: tsim.c) */
    uint64_t q_end;                    /* the quantum being simulated: [now, q_end) */
    uint64_t now, start_cycle, end_cycle;
    uint64_t next_cta, total_ctas;
    double dispatch_next;              /* GPU-wide CTA dispatcher: next launch no earlier than this */
    uint32_t rr;                       /* round-robin position of the dispatcher */
    int room;                          /* some SM may have room for a CTA */
    uint32_t ctas_per_sm, warps_per_cta, threads_per_cta, regs_per_warp, shared_per_cta;
    uint32_t nslots, npreds;           /* per warp */
    uint64_t age;
    uint64_t last_free_cycle;          /* the latest cycle a warp slot was freed or its stores accepted (kernel end) */
    /* the memory phase, pipelined with the SM phase (tsim.c mem_advance): SM `mem_cursor`'s is next, run by
     * whichever thread holds `mem_busy`; it also collects the quantum's last issue and next event */
    _Alignas(64) _Atomic uint32_t mem_cursor;
    atomic_int mem_busy;
    uint32_t quantum;                  /* number of the quantum being simulated (gs_tsm.phase_done) */
    int mem_oom, mem_atomics;          /* an SM's log ran out of memory; some SM queued global atomics */
    int split;                         /* the quantum splits the SMs' own parts off their memory phases (gs_tmem_pre) */
    _Atomic uint32_t next_sm;          /* the next part of a job split over the threads that no thread has taken
                                        * (the flush's and the launch's set-up; a quantum's SMs: gs_tsm.claimed) */
    /* the SMs a quantum visits, in index order: those that hold a warp or have an event to come (the others
     * would only be looked at and passed over, 132 SMs' lines per quantum); mem_cursor indexes it too.
     * act_mark: the next quantum's, marked by the memory phases and the dispatcher (tsim.c active_sms) */
    uint16_t *act;
    uint32_t nact;
    uint64_t *act_mark;
    /* per SM, on a few host lines: its next event and whether it holds warps, as its last memory phase or the
     * dispatcher left them (nothing else changes them). A marked SM whose next event is not in the quantum is
     * left out of act (it would do nothing: a sparse, atomic-bound phase has all 132 SMs holding warps and a
     * few with work), its figures taken from here (sleep_busy, sleep_next) and its mark kept */
    gs_wake *wake;
    uint32_t sleep_busy;
    uint64_t sleep_next;
    uint64_t mem_next;                 /* the earliest next event of the SMs whose memory phase ran */
    uint64_t mem_issued;               /* warp instructions they issued in the quantum */
    uint32_t mem_busy_sms;             /* how many of them hold warps (all_idle) */
    uint64_t last_issue_cycle;
    gs_tstats st;                      /* launch figures and the memory phase's counters (+ workers') */
    /* recording */
    _Alignas(64) gs_rec rec;           /* its options are read by SM threads while the memory phase counts in st */
    uint64_t next_interval;
};

enum { GS_TS_SASS_ALL = 1, GS_TS_SASS_DIV = 2 };
/* An integer division or remainder: no GPU has an integer divider, ptxas expands it into ~20 SASS
 * instructions (conversions, a reciprocal, multiply-adds, compares); docs/sass.md "Integer division". */
static inline int gs_is_int_div(const gs_xinst *x) {
    return (x->op == GS_OP_DIV || x->op == GS_OP_REM) && x->unit == GS_U_INT;   /* (float: sfu/fp64) */
}
/* The SASS costs of instruction pc when the launch uses them (NULL: time it as a PTX instruction). */
static inline const gs_sass_cost *gs_sass_of(const gs_tsim *ts, int pc) {
    if (!ts->sass) return NULL;
    const gs_sass_cost *s = &ts->prog->sass[pc];
    if (ts->sass == GS_TS_SASS_DIV && !gs_is_int_div(&ts->prog->x[pc])) return NULL;
    return s->known ? s : NULL;
}
static inline int gs_unit_is_alu(int u) {
    return u == GS_U_INT || u == GS_U_FP32 || u == GS_U_FP16 || u == GS_U_FP64 || u == GS_U_SFU;
}
/* The pipe of instruction pc: for arithmetic, the one its SASS suggests; memory, tensor, control and
 * barrier instructions keep theirs (their timing has its own model). */
static inline uint8_t gs_unit_of(const gs_tsim *ts, int pc, const gs_xinst *x) {
    const gs_sass_cost *s = gs_sass_of(ts, pc);
    return s && gs_unit_is_alu(x->unit) && gs_unit_is_alu(s->unit) ? s->unit : x->unit;
}

/* tsim_launch.c: the warp slots of an SM the launch's warps can take (its occupancy; ctas_per_sm is set); the
 * last launch let go; a launch error (GS_FAULTED, with msg formatted with a) */
uint32_t gs_tsim_warp_slots(const gs_tsim *ts);
void gs_tsim_free_launch(gs_tsim *ts);
int gs_tsim_launch_fault(gs_fault *f, const char *msg, uint32_t a);

/* tsm.c */
void gs_tsm_cycle(gs_tsim *ts, gs_tsm *sm, uint64_t now);
/* the memory phase (tsim_mem.c): SM s's (its shared part only when gs_tmem_pre ran; -1: out of memory), its last
 * part after that, whatever can run now from the cursor, the quantum's sums, the SMs the quantum visits */
int gs_tsim_mem_sm(gs_tsim *ts, gs_worker *wk, uint32_t s);
void gs_tsim_mem_after(gs_tsim *ts, gs_worker *wk, uint32_t s);
void gs_tsim_mem_advance(gs_tsim *ts, gs_worker *wk);
void gs_tsim_quantum_sums(gs_tsim *ts);
void gs_tsim_active_sms(gs_tsim *ts);
/* the next quantum visits SM s (tsim_mem.c gs_tsim_active_sms); `shared`: other threads may mark at the same time (the
 * memory phases' last parts of a split quantum), else a plain store (a locked one per SM and quantum cost the
 * sparse histograms ~5 % at one thread) */
static inline void gs_tsim_mark_active(gs_tsim *ts, uint32_t s, int shared) {
    if (shared) __atomic_fetch_or(&ts->act_mark[s >> 6], 1ull << (s & 63), __ATOMIC_RELAXED);
    else ts->act_mark[s >> 6] |= 1ull << (s & 63);
}
/* SM s's next event and warps into ts->wake (after its memory phase, a dispatch to it, a launch) */
static inline void gs_tsim_note_wake(gs_tsim *ts, const gs_tsm *sm) {
    ts->wake[sm->id].next = sm->next_event;
    ts->wake[sm->id].busy = sm->warps_used != 0;
}
void gs_tsm_warm(const gs_tsim *ts, const gs_tsm *sm, uint64_t until, uint32_t prev_issued);
void gs_tsm_account(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t until);
void gs_tsm_refresh_next(gs_tsim *ts, gs_tsm *sm);
/* tsm.c's warp steps that tsm_cta.c uses: a warp's next issue cycle and state; its retirement; a state row */
void gs_tsm_next_ready(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t earliest, int default_state);
void gs_tsm_retire_warp(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t now);
void gs_tsm_rec_state(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t cycle, int state, int32_t pc);
/* after the memory phase: replace the markers left in the SM's scoreboards by their times */
void gs_tsm_settle(gs_tsim *ts, gs_tsm *sm);
/* the closed interval's counters of the SM (and resets them) */
void gs_tsm_interval_row(gs_tsim *ts, gs_tsm *sm, uint64_t start, uint64_t end, gs_rec_smc *row);

/* tsm_cta.c: a CTA placed on the SM's lowest free warp slots (-1: no room, or a fault); the warps whose drain
 * ended by `now` freed, and their CTA with its last warp */
int gs_tsm_launch_cta(gs_tsim *ts, gs_tsm *sm, uint64_t linear, uint64_t now);
void gs_tsm_finish_drains(gs_tsim *ts, gs_tsm *sm, uint64_t now);

/* tmem.c: memory instruction timing. Returns the cycle the destination registers are ready (or, for
 * stores, the cycle the data is globally performed: the warp's drain time), possibly a marker
 * (pending.h). *kind: the wait state. */
/* Contract: the completion of memory instruction x issued at `now` (a cycle or a pending marker) and the
 * wait state its results charge; *leave: when its data has left the SM (stores: the port departure of
 * their last sector; otherwise the completion). */
uint64_t gs_tmem_issue(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint8_t *kind,
                       uint64_t *leave);
/* sm.frag_requests: the JIT's requests of a fragment load from global memory (8 rows x 16 bytes of the tile as
 * stored each: gs_fragment_lookups), and the completion of request `part` of the warp's tile (tw->frag_*)
 * issued at `now`, timed as that one request (its 32 lanes' 4-byte words) */
uint32_t gs_frag_requests(uint32_t rows, uint32_t row_bytes);
uint64_t gs_tmem_frag_part(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint32_t part);
void gs_tmem_resolve(gs_tsim *ts, gs_tsm *sm, gs_tstats *st);
/* the same in three parts (tsim.c: several threads): the SM's own before (0: not possible, resolve instead),
 * the shared one (serial, SM by SM), the SM's own after */
int gs_tmem_pre(gs_tsim *ts, gs_tsm *sm);
void gs_tmem_shared(gs_tsim *ts, gs_tsm *sm);
void gs_tmem_post(gs_tsim *ts, gs_tsm *sm, gs_tstats *st);
void gs_tmem_flush(gs_tsim *ts);
/* the closed interval's counters of memory partition p (one per DRAM channel; resets them) */
void gs_tmem_interval_row(gs_tsim *ts, uint32_t p, uint64_t start, uint64_t end, gs_rec_memc *row);

#endif
