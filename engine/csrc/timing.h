/* timing.h — the timing model's internal structures (see engine/README.md, "Timing model").
 *
 * The model is timestamp-driven: every issued instruction's results get a ready cycle (fixed pipe
 * latency, or the completion time the memory hierarchy computes for it), and bandwidth-limited
 * resources are FCFS reservations with sub-cycle precision. The cycle loop therefore only visits
 * schedulers that can issue, and jumps over cycles in which nothing can happen.
 */
#ifndef GS_TIMING_H
#define GS_TIMING_H
#include "internal.h"
#include "cache.h"
#include "calendar.h"

#define GS_NEVER UINT64_MAX
#define GS_FIX 8                       /* resource times in 1/256 cycle */
#define GS_FR_ROWS 8                   /* fr_fcfs: distinct rows per bank whose queued requests are tracked */

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

/* Per warp-slot timing state. The fields the scheduler reads for every warp every time it looks for
 * one to issue come first (one cache line). */
typedef struct gs_tw {
    gs_warp *w;                        /* NULL: free slot */
    uint64_t ready_at;                 /* scoreboard: next instruction may issue from this cycle */
    uint64_t throttle_until;           /* eligible by scoreboard but pipe busy until */
    int32_t next_pc;
    uint8_t next_unit;
    uint8_t blocked;                   /* barrier */
    uint8_t done;                      /* exited, draining until drain_at */
    uint8_t wait_state;                /* state from the last issue until ready_at */
    uint8_t throttle_state;
    uint8_t rec_state;                 /* last recorded state (full recording) */
    uint16_t slot;
    uint64_t age;
    /* colder */
    struct gs_tcta *cta;
    uint64_t *reg_ready;               /* per register slot: cycle the value is ready */
    uint8_t *reg_kind;                 /* wait state charged while waiting for it */
    uint64_t *pred_ready;
    uint64_t acc_t;                    /* states accounted up to here */
    uint64_t drain_at;                 /* outstanding stores complete */
    uint64_t start;                    /* cycle the warp became resident */
} gs_tw;

typedef struct gs_tcta {
    gs_cta cta;                        /* functional state */
    int used;
    uint32_t nwarps_left;
    uint16_t slots[64];
    uint32_t nslots;
    uint32_t shared_alloc;
} gs_tcta;

typedef struct gs_subcore {
    uint16_t warps[256];               /* warp slots of this scheduler */
    uint32_t nwarps;
    uint64_t unit_free[GS_U__COUNT];
    uint64_t next_check;               /* no warp can issue before this cycle */
    int32_t last;                      /* last issued slot (gto greed, lrr position) */
} gs_subcore;

typedef struct gs_tsm {
    int id;
    uint32_t part;                     /* L2 partition the SM is attached to */
    gs_tw *tw;                         /* max_warps slots */
    gs_tcta *ctas;                     /* max_ctas slots */
    gs_subcore *sc;
    uint32_t warps_used, ctas_used, threads_used, regs_used, shared_used;
    uint64_t next_event;
    uint64_t min_drain;
    /* memory pipeline */
    gs_cache l1;
    gs_res lsu;                        /* tag lookups */
    gs_res l1_data;                    /* data port bytes (shared and L1) */
    gs_cal icnt_out, icnt_in;          /* SM <-> L2 ports */
    uint64_t *mshr;                    /* completion cycle per MSHR entry (ring) */
    uint32_t mshr_next;
    gs_cache icache;
    /* statistics and recording for the current interval */
    uint32_t iv_issued, iv_thread_insts, iv_l1_acc, iv_l1_hits, iv_l1_miss, iv_shared, iv_conflicts;
    uint32_t iv_hist[GS_WS__COUNT];
    uint64_t warp_res_since;           /* accounting of resident warps */
    int record_states;
} gs_tsm;

typedef struct gs_l2slice {
    gs_cache c;
    gs_cal port;                       /* sectors in/out of the slice */
    gs_cal atomic;                     /* the slice's atomic unit */
    uint32_t iv_acc, iv_hits, iv_miss, iv_rd, iv_wr;
} gs_l2slice;

typedef struct gs_dram {
    gs_cal bus;
    uint64_t *open_row;                /* per bank GS_FR_ROWS rows + 1 (0: none); entry 0 is the open row */
    uint64_t *row_used;                /* per bank and entry: when that row last served a request */
    uint32_t iv_rd, iv_wr;
} gs_dram;

/* a growable array of recorded rows */
typedef struct gs_recbuf {
    uint8_t *data;
    size_t rows, cap, row_size, head;
} gs_recbuf;

struct gs_tsim {
    gs_tconfig cfg;
    gs_tsm *sms;
    gs_l2slice *l2;
    gs_dram *dram;
    /* derived config */
    uint64_t dram_sector_cost;         /* fixed-point cycles per 32 bytes per channel (reads) */
    uint64_t dram_sector_cost_w;       /* (writes) */
    uint64_t l2_atomic_cost;           /* fixed-point cycles per atomic packet */
    uint64_t l2_partial_cost;          /* fixed-point slice cycles of a write covering part of a sector */
    uint32_t l1_line_shift, l1_sector_shift, l2_line_shift, l2_sector_shift;   /* log2 of the sizes */
    uint64_t dram_latency, dram_row_miss;
    uint64_t icnt_sector_cost, l2_sector_cost, l1_sector_cost;
    uint32_t l1_lines_max;
    /* the launch */
    int launched, finished, status, launched_once;
    gs_device *dev;
    gs_program *prog;
    gs_launch_desc desc;
    uint8_t *params;
    uint32_t param_bytes;
    gs_ctx ctx;
    gs_fault fault;
    gs_func_stats fstats;
    uint64_t now, start_cycle, end_cycle;
    uint64_t next_cta, total_ctas, ctas_done;
    double dispatch_next;              /* GPU-wide CTA dispatcher: next launch no earlier than this */
    uint32_t rr;                       /* round-robin position of the dispatcher */
    int room;                          /* some SM may have room for a CTA */
    uint32_t ctas_per_sm, warps_per_cta, threads_per_cta, regs_per_warp, shared_per_cta;
    uint32_t nslots, npreds;           /* per warp */
    uint64_t age;
    uint64_t last_issue_cycle;
    uint64_t last_free_cycle;          /* the latest cycle a warp slot was freed (kernel end) */
    gs_tstats st;
    uint64_t *pc_issued;               /* per pc */
    uint64_t *pc_stalls;               /* per pc * GS_WS__COUNT */
    /* recording */
    gs_record_opts rec;
    uint64_t next_interval;
    gs_recbuf bufs[GS_REC__COUNT];
    uint64_t msample_count;
};

/* tsm.c */
void gs_tsm_cycle(gs_tsim *ts, gs_tsm *sm, uint64_t now);
void gs_tsm_account(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t until);
void gs_tsm_refresh_next(gs_tsim *ts, gs_tsm *sm);
int gs_tsm_launch_cta(gs_tsim *ts, gs_tsm *sm, uint64_t linear, uint64_t now);

/* tmem.c: memory instruction timing. Returns the cycle the destination registers are ready (or, for
 * stores, the cycle the data is globally performed: the warp's drain time). *kind: the wait state. */
uint64_t gs_tmem_issue(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint8_t *kind);
void gs_tmem_flush(gs_tsim *ts);

/* rec.c */
void gs_rec_init(gs_tsim *ts);
void gs_rec_free(gs_tsim *ts);
void *gs_rec_push(gs_tsim *ts, int table);
void gs_rec_state(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t cycle, int state, int32_t pc);
void gs_rec_interval(gs_tsim *ts, uint64_t boundary);
void gs_rec_emit_event(gs_tsim *ts, uint64_t cycle, int kind, int sm, uint32_t cta);

#endif
