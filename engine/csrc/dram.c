/* dram.c — DRAM channels and row-buffer policies (see dram.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dram.h"
#include "hash.h"

const gs_dram_policy_desc GS_DRAM_POLICIES[GS_DRAM__COUNT] = {
    [GS_DRAM_FCFS] = {"fcfs", 0},
    [GS_DRAM_OPEN_ROW] = {"open_row", 1},
    [GS_DRAM_FR_FCFS] = {"fr_fcfs", GS_FR_ROWS},
};

int gs_dram_init(gs_dram *d, const gs_tconfig *c, gs_tstats *st) {
    memset(d, 0, sizeof *d);
    d->nch = c->dram_channels;
    d->banks = c->dram_banks;
    d->row_bytes = c->dram_row_bytes;
    d->sector_bytes = c->l2_sector_bytes;
    d->nch_mask = d->nch > 1 && !(d->nch & (d->nch - 1)) ? d->nch - 1 : 0;
    d->row_shift = d->row_bytes > 1 && !(d->row_bytes & (d->row_bytes - 1)) ? (uint32_t)__builtin_ctz(d->row_bytes) : 0;
    d->banks_mask = d->banks > 1 && !(d->banks & (d->banks - 1)) ? d->banks - 1 : 0;
    d->policy = &GS_DRAM_POLICIES[c->dram_policy < GS_DRAM__COUNT ? c->dram_policy : GS_DRAM_OPEN_ROW];
    d->st = st;
    double clk = c->gpu_sm_clock_mhz * 1e6;
    double bpc = c->dram_bandwidth_gbps * 1e9 * c->dram_efficiency / clk / c->dram_channels;
    d->sector_cost = (uint64_t)llround(c->l2_sector_bytes / bpc * 256.0);
    if (d->sector_cost == 0) d->sector_cost = 1;
    d->sector_cost_w = (uint64_t)llround(d->sector_cost * c->dram_efficiency / c->dram_write_efficiency);
    d->latency = (uint64_t)llround(c->dram_latency_ns * 1e-9 * clk);
    d->row_miss = (uint64_t)llround(c->dram_row_miss_ns * 1e-9 * clk);
    d->queue = c->dram_queue_ns * 1e-9 * clk;
    d->drain_cost = (uint64_t)llround(c->dram_write_drain_ns * 1e-9 * clk * 256.0);
    if (c->dram_refresh_ns > 0 && c->dram_refresh_interval_ns > c->dram_refresh_ns) {
        d->refresh = (uint64_t)llround(c->dram_refresh_ns * 1e-9 * clk);
        d->refresh_period = (uint64_t)llround(c->dram_refresh_interval_ns * 1e-9 * clk);
    }
    d->ch = calloc(d->nch, sizeof *d->ch);
    if (!d->ch) return -1;
    for (uint32_t i = 0; i < d->nch; i++) {
        size_t rows = (size_t)d->banks * GS_FR_ROWS;
        if (!(d->ch[i].open_row = calloc(rows, sizeof(uint64_t))) ||
            !(d->ch[i].row_used = calloc(rows, sizeof(uint64_t))) || gs_cal_init(&d->ch[i].bus))
            return -1;
    }
    return 0;
}

void gs_dram_free(gs_dram *d) {
    for (uint32_t i = 0; d->ch && i < d->nch; i++) {
        free(d->ch[i].open_row); free(d->ch[i].row_used); gs_cal_free(&d->ch[i].bus);
    }
    free(d->ch);
    d->ch = NULL;
}

void gs_dram_reset(gs_dram *d) {
    for (uint32_t i = 0; i < d->nch; i++) { gs_cal_reset(&d->ch[i].bus); d->ch[i].wq_cost = 0; }
    d->load_win = d->load_cur = d->load_prev = 0;
}

void gs_dram_flush(gs_dram *d) {
    for (uint32_t i = 0; i < d->nch; i++) {
        memset(d->ch[i].open_row, 0, (size_t)d->banks * GS_FR_ROWS * sizeof(uint64_t));
        memset(d->ch[i].row_used, 0, (size_t)d->banks * GS_FR_ROWS * sizeof(uint64_t));
    }
}

uint32_t gs_dram_channel_of(const gs_dram *d, uint64_t addr) {
    uint32_t h = gs_mix((addr >> 8) * 0x9E3779B97F4A7C15ull >> 7);
    return d->nch_mask ? h & d->nch_mask : h % d->nch;
}

/* the entries row_miss reads */
static inline size_t bank_of(const gs_dram *d, uint64_t row) {
    uint32_t hr = gs_mix(row);
    return (size_t)(d->banks_mask ? hr & d->banks_mask : hr % d->banks) * GS_FR_ROWS;
}

void gs_dram_prefetch(const gs_dram *d, uint64_t addr, uint64_t t) {
    const gs_dram_chan *ch = &d->ch[gs_dram_channel_of(d, addr)];
    gs_cal_prefetch(&ch->bus, t);
    if (!d->policy->rows) return;
    uint64_t row = d->row_shift ? addr >> d->row_shift : addr / d->row_bytes;
    size_t bank = bank_of(d, row);
    __builtin_prefetch(ch->open_row + bank, 1, 1);
    __builtin_prefetch(ch->row_used + bank, 1, 1);
}

/* Row buffer of the bank `addr` maps to, for a request arriving at t and served from `start`: 1 on a
 * row miss. open_row: a hit only on the bank's open row (arrival order). fr_fcfs (first-ready FCFS)
 * also serves a request with an earlier request to the same row that was still queued when it arrived
 * (served at or after t): the scheduler groups them, so it is a hit without reopening that row. */
static int row_miss(gs_dram *d, gs_dram_chan *ch, uint64_t addr, uint64_t t, uint64_t start) {
    uint64_t row = d->row_shift ? addr >> d->row_shift : addr / d->row_bytes;
    size_t bank = bank_of(d, row);
    uint64_t *rows = ch->open_row + bank, *used = ch->row_used + bank;
    uint32_t lim = d->policy->rows, k = 0;
    while (k < lim && rows[k] != row + 1) k++;
    if (k < lim && (k == 0 || used[k] >= t)) {
        if (start > used[k]) used[k] = start;
        d->st->dram_row_hits++;
        return 0;
    }
    /* a row miss: the row opens (entry 0); the others shift down, the oldest is forgotten */
    uint32_t last = k < lim ? k : lim - 1;
    for (uint32_t j = last; j > 0; j--) { rows[j] = rows[j - 1]; used[j] = used[j - 1]; }
    rows[0] = row + 1;
    used[0] = start;
    d->st->dram_row_misses++;
    return 1;
}

/* The first cycle at or after t at which the bank of `addr` in channel `c` is not refreshing. */
static uint64_t refresh_ready(const gs_dram *d, uint32_t c, uint64_t addr, uint64_t t) {
    if (!d->refresh_period) return t;
    uint64_t bank = gs_mix(addr / d->row_bytes) % d->banks;
    uint64_t phase = gs_mix(((uint64_t)c << 20 | bank) * 0x9E3779B97F4A7C15ull) % d->refresh_period;
    uint64_t into = (t + d->refresh_period - phase) % d->refresh_period;   /* cycles since its last refresh began */
    return into < d->refresh ? t + (d->refresh - into) : t;
}

uint64_t gs_dram_access(gs_dram *d, uint64_t addr, uint64_t t, int write) {
    uint32_t c = gs_dram_channel_of(d, addr);
    gs_dram_chan *ch = &d->ch[c];
    uint64_t ready = refresh_ready(d, c, addr, t);
    if (ready > t) d->st->dram_refresh_waits++;
    uint64_t start;
    if (write && d->drain_cost) {
        /* queued; once the queue holds a drain's worth of bus time, it goes on the bus in one block */
        ch->wq_cost += d->sector_cost_w;
        if (ch->wq_cost >= d->drain_cost) {
            gs_cal_take(&ch->bus, ready, ch->wq_cost);
            ch->wq_cost = 0;
            d->st->dram_write_drains++;
        }
        start = ready;
    } else {
        start = gs_cal_take(&ch->bus, ready, write ? d->sector_cost_w : d->sector_cost);
    }
    uint64_t lat = d->latency;
    if (d->queue > 0) {
        /* the reads' load: read bus cost booked per window, averaged over past windows (writes wait in the
         * controller's write queue, behind reads, and are not counted) */
        uint64_t w = t / GS_DRAM_LOAD_WINDOW;
        if (w > d->load_win) {     /* a new window: the finished one (and any empty ones) enter the average */
            for (uint64_t k = d->load_win; k < w && k < d->load_win + GS_DRAM_LOAD_SPAN; k++)
                d->load_prev = d->load_prev - d->load_prev / GS_DRAM_LOAD_SPAN +
                               (k == d->load_win ? d->load_cur : 0) / GS_DRAM_LOAD_SPAN;
            if (w >= d->load_win + GS_DRAM_LOAD_SPAN) d->load_prev = 0;
            d->load_cur = 0;
            d->load_win = w;
        }
        if (!write) {
            d->load_cur += d->sector_cost;
            double u = (double)d->load_prev / (256.0 * GS_DRAM_LOAD_WINDOW * d->nch);
            if (u > 0.9) u = 0.9;
            /* one queue: the wait a read finds is the larger of the bus backlog it found (start - ready,
             * already in `start`) and the expected wait at that load */
            uint64_t q = (uint64_t)llround(d->queue * u / (1.0 - u)), found = start - ready;
            if (q > found) lat += q - found;
        }
    }
    if (d->policy->rows && row_miss(d, ch, addr, t, start)) lat += d->row_miss;
    if (write) { d->st->dram_write_bytes += d->sector_bytes; ch->iv_wr += d->sector_bytes; }
    else { d->st->dram_read_bytes += d->sector_bytes; ch->iv_rd += d->sector_bytes; }
    return start + lat;
}
