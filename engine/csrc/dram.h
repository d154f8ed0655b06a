/* dram.h — DRAM channels: a data bus per channel (an out-of-order calendar) and, per bank, the row
 * buffer under the configured row policy (dram.policy, a table in dram.c).
 *
 * Contract of gs_dram_access: one sector read or written at channel arrival t; returns the cycle the
 * data is back at the L2 slice (reads) or written (writes), and counts bytes and row hits/misses into
 * the statistics given at init. Channels are chosen by a hash of the address (256-byte granules).
 * With dram.refresh_ns set, each bank refreshes for that long once every dram.refresh_interval_ns, its
 * phase a hash of (channel, bank); a request reaching a refreshing bank waits for the end of the refresh
 * before it takes the bus (the other banks of the channel go on). With dram.queue_ns set, a read waits in
 * the channel's queue max(backlog, queue_ns x u / (1 - u)): the backlog is what the bus calendar made it
 * wait, the second term the wait at the reads' load u (at most 0.9) that one warp-wide load per warp
 * measures on the H200 (memlat, calibration.md 5e/5l); one queue, so the two never add. u is the read bus
 * cost booked on all channels per GS_DRAM_LOAD_WINDOW cycles (averaged over past windows, weight
 * 1/GS_DRAM_LOAD_SPAN each) over what they sustain in a window; writes wait in the controller's write
 * queue and do not count. With dram.write_drain_ns set, a channel queues its writes (read priority) and
 * books them on the bus in one block once they fill that long a stretch of bus time (the controller's
 * write drain); a read that arrives while the block is on the bus waits for its end (calibration.md 5l).
 */
#ifndef GS_DRAM_H
#define GS_DRAM_H
#include <stdint.h>
#include "simtscope.h"
#include "calendar.h"

#define GS_FR_ROWS 8                   /* fr_fcfs: distinct rows per bank whose queued requests are tracked */
#define GS_DRAM_LOAD_WINDOW 1024u      /* dram.queue_ns: cycles of one load window */
#define GS_DRAM_LOAD_SPAN 4u           /* dram.queue_ns: the load is an exponential average, weight 1/SPAN per window */

/* A row policy: how many rows per bank are remembered and looked up (0: no row model, every access
 * pays the same latency; 1: the open row only; more: rows with requests still queued, FR-FCFS). */
typedef struct gs_dram_policy_desc {
    const char *name;                  /* the config value (engine/config.py DRAM_POLICY) */
    uint32_t rows;
} gs_dram_policy_desc;
extern const gs_dram_policy_desc GS_DRAM_POLICIES[GS_DRAM__COUNT];

typedef struct gs_dram_chan {
    gs_cal bus;
    uint64_t *open_row;                /* per bank GS_FR_ROWS rows + 1 (0: none); entry 0 is the open row */
    uint64_t *row_used;                /* per bank and entry: when that row last served a request */
    uint32_t iv_rd, iv_wr;             /* bytes in the current recording interval */
    uint64_t wq_cost;                  /* dram.write_drain_ns: bus cost of the writes queued (fixed point) */
} gs_dram_chan;

typedef struct gs_dram {
    gs_dram_chan *ch;
    uint32_t nch, banks, row_bytes, sector_bytes;
    uint32_t nch_mask, banks_mask;         /* nch - 1, banks - 1 when a power of two (x % n as x & mask), else 0 */
    uint32_t row_shift;                    /* log2(row_bytes) when a power of two, else 0 */
    const gs_dram_policy_desc *policy;
    uint64_t sector_cost, sector_cost_w;   /* fixed-point (1/256) cycles per sector and channel */
    uint64_t latency, row_miss;            /* cycles */
    uint64_t refresh, refresh_period;      /* cycles: a bank is busy `refresh` of every `refresh_period` (0: never) */
    double queue;                          /* cycles: dram.queue_ns (0: no load-dependent latency) */
    uint64_t drain_cost;                   /* fixed point: bus cost of one write drain (0: writes take the bus at once) */
    uint64_t load_win, load_cur, load_prev;   /* current load window; bus cost booked (all channels) in it; the average before it */
    gs_tstats *st;
} gs_dram;

/* Contract: sizes and rates from the config (clock, bandwidth, efficiencies, latencies); 0 or -1. */
int gs_dram_init(gs_dram *d, const gs_tconfig *c, gs_tstats *st);
void gs_dram_free(gs_dram *d);
void gs_dram_reset(gs_dram *d);        /* new launch: bus bookings restart at cycle 0 */
void gs_dram_flush(gs_dram *d);        /* cold GPU: no open rows */
uint32_t gs_dram_channel_of(const gs_dram *d, uint64_t addr);
uint64_t gs_dram_access(gs_dram *d, uint64_t addr, uint64_t t, int write);
/* the channel and bank state an access of `addr` at about t reads, into the host cache (no effect on results) */
void gs_dram_prefetch(const gs_dram *d, uint64_t addr, uint64_t t);

#endif
