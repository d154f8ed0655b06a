/* test_dram.c — DRAM channels: bus bandwidth, latency, and the row policies of the table in dram.c.
 * Built by tests/test_c_units.py with dram.c. */
#include <string.h>
#include "check.h"
#include "dram.h"

/* one channel, one bank (every row shares it), 1 GHz: 32-byte sectors at 32 B/cycle cost 1 cycle */
static gs_tconfig cfg(uint32_t policy) {
    gs_tconfig c;
    memset(&c, 0, sizeof c);
    c.gpu_sm_clock_mhz = 1000.0;
    c.dram_channels = 1;
    c.dram_bandwidth_gbps = 32.0;
    c.dram_efficiency = 1.0;
    c.dram_write_efficiency = 0.5;
    c.dram_latency_ns = 100.0;
    c.dram_row_miss_ns = 20.0;
    c.dram_policy = policy;
    c.dram_banks = 1;
    c.dram_row_bytes = 1024;
    c.l2_sector_bytes = 32;
    return c;
}

static void test_policy_table(void) {
    CHECK(strcmp(GS_DRAM_POLICIES[GS_DRAM_FCFS].name, "fcfs") == 0 && GS_DRAM_POLICIES[GS_DRAM_FCFS].rows == 0);
    CHECK(strcmp(GS_DRAM_POLICIES[GS_DRAM_OPEN_ROW].name, "open_row") == 0 && GS_DRAM_POLICIES[GS_DRAM_OPEN_ROW].rows == 1);
    CHECK(strcmp(GS_DRAM_POLICIES[GS_DRAM_FR_FCFS].name, "fr_fcfs") == 0 && GS_DRAM_POLICIES[GS_DRAM_FR_FCFS].rows == GS_FR_ROWS);
}

static void test_fcfs_bandwidth_and_latency(void) {
    gs_tconfig c = cfg(GS_DRAM_FCFS);
    gs_tstats st;
    memset(&st, 0, sizeof st);
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    CHECK_EQ(d.sector_cost, 256);                    /* one cycle per sector */
    CHECK_EQ(d.sector_cost_w, 512);                  /* writes at half efficiency */
    CHECK_EQ(d.latency, 100);
    /* back-to-back reads queue on the bus one cycle apart; no row model: no row penalty */
    CHECK_EQ(gs_dram_access(&d, 0, 10, 0), 110);
    CHECK_EQ(gs_dram_access(&d, 1 << 20, 10, 0), 111);
    CHECK_EQ(gs_dram_access(&d, 2 << 20, 10, 1), 112);  /* a write takes two bus cycles */
    CHECK_EQ(gs_dram_access(&d, 0, 10, 0), 114);
    CHECK_EQ(st.dram_read_bytes, 96);
    CHECK_EQ(st.dram_write_bytes, 32);
    CHECK_EQ(st.dram_row_hits + st.dram_row_misses, 0);
    gs_dram_free(&d);
}

static void test_open_row(void) {
    gs_tconfig c = cfg(GS_DRAM_OPEN_ROW);
    gs_tstats st;
    memset(&st, 0, sizeof st);
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    CHECK_EQ(gs_dram_access(&d, 0, 0, 0), 120);      /* cold: the row opens (+20) */
    CHECK_EQ(gs_dram_access(&d, 64, 1000, 0), 1100); /* same row: a hit */
    CHECK_EQ(gs_dram_access(&d, 4096, 2000, 0), 2120);  /* another row of the bank: a miss */
    CHECK_EQ(gs_dram_access(&d, 0, 3000, 0), 3120);  /* and the first row is closed again */
    CHECK_EQ(st.dram_row_hits, 1);
    CHECK_EQ(st.dram_row_misses, 3);
    gs_dram_flush(&d);                               /* cold GPU: no open row */
    CHECK_EQ(gs_dram_access(&d, 0, 4000, 0), 4120);
    gs_dram_free(&d);
}

/* A (row 0), B (row 4), A' (row 0) arriving while A is still queued: FR-FCFS groups A' with A (a hit);
 * open_row sees row 4 open and reopens row 0 (a miss) */
static void interleaved(uint32_t policy, uint64_t *hits, uint64_t *misses) {
    gs_tconfig c = cfg(policy);
    gs_tstats st;
    memset(&st, 0, sizeof st);
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    for (int k = 0; k < 50; k++) gs_dram_access(&d, 1 << 20, 0, 0);   /* a backlog of 50 cycles */
    memset(&st, 0, sizeof st);
    gs_dram_access(&d, 0, 5, 0);
    gs_dram_access(&d, 4096, 6, 0);
    gs_dram_access(&d, 32, 7, 0);
    *hits = st.dram_row_hits;
    *misses = st.dram_row_misses;
    gs_dram_free(&d);
}

static void test_fr_fcfs_groups_queued_rows(void) {
    uint64_t h, m;
    interleaved(GS_DRAM_OPEN_ROW, &h, &m);
    CHECK_EQ(h, 0);
    CHECK_EQ(m, 3);
    interleaved(GS_DRAM_FR_FCFS, &h, &m);
    CHECK_EQ(h, 1);
    CHECK_EQ(m, 2);
}

static void test_channels_spread(void) {
    gs_tconfig c = cfg(GS_DRAM_FCFS);
    c.dram_channels = 8;
    gs_tstats st;
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    uint32_t count[8] = {0};
    for (uint64_t a = 0; a < 8192 * 256; a += 256) count[gs_dram_channel_of(&d, a)]++;
    for (int i = 0; i < 8; i++) CHECK(count[i] > 900 && count[i] < 1150);   /* 1024 each, give or take */
    gs_dram_free(&d);
}

/* Per-bank refresh: 1 GHz, busy 100 of every 1000 cycles. Over a sweep of arrival times (each on a
 * fresh channel, so the bus never queues) a tenth of the requests wait, each until the refresh ends:
 * waits of 1..100 cycles, 50.5 on average. Without refresh nobody waits. */
static void refresh_sweep(double refresh_ns, double interval_ns, uint64_t *waits, uint64_t *extra, uint64_t *maxw) {
    gs_tconfig c = cfg(GS_DRAM_FCFS);
    c.dram_refresh_ns = refresh_ns;
    c.dram_refresh_interval_ns = interval_ns;
    gs_tstats st;
    memset(&st, 0, sizeof st);
    *extra = *maxw = 0;
    for (uint64_t t = 0; t < 4000; t++) {
        gs_dram d;
        CHECK(gs_dram_init(&d, &c, &st) == 0);
        uint64_t w = gs_dram_access(&d, 4096, t, 0) - t - 100;   /* minus the 100-cycle latency */
        *extra += w;
        if (w > *maxw) *maxw = w;
        gs_dram_free(&d);
    }
    *waits = st.dram_refresh_waits;
}

static void test_refresh_waits(void) {
    uint64_t waits, extra, maxw;
    refresh_sweep(100.0, 1000.0, &waits, &extra, &maxw);
    CHECK_EQ(waits, 400);              /* 4000 arrival cycles = 4 periods, 100 busy cycles in each */
    CHECK_EQ(maxw, 100);               /* arriving as the refresh starts */
    CHECK_EQ(extra, 4 * 5050);         /* waits 100, 99, ..., 1 in each period */
    refresh_sweep(0.0, 1000.0, &waits, &extra, &maxw);
    CHECK_EQ(waits, 0);
    CHECK_EQ(extra, 0);
}

/* Load-dependent latency (dram.queue_ns = 100 ns = 100 cycles at 1 GHz): 512 one-cycle reads booked in the
 * first 1,024-cycle window load the channel to 0.5; the next window's reads see the average 0.5 / 4 = 0.125
 * and wait 100 x 0.125 / 0.875 = 14 cycles more; writes never wait; after 4 idle windows the load is 0. */
static void test_queue_latency(void) {
    gs_tconfig c = cfg(GS_DRAM_FCFS);
    c.dram_queue_ns = 100.0;
    gs_tstats st;
    memset(&st, 0, sizeof st);
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    CHECK_EQ(gs_dram_access(&d, 0, 0, 0), 100);                 /* an idle DRAM: no extra */
    for (uint64_t t = 1; t < 512; t++) gs_dram_access(&d, 0, t, 0);
    CHECK_EQ(gs_dram_access(&d, 0, 1024, 0), 1024 + 100 + 14);
    CHECK_EQ(gs_dram_access(&d, 0, 1100, 1), 1100 + 100);       /* a write: no extra */
    CHECK_EQ(gs_dram_access(&d, 0, 10 * 1024, 0), 10 * 1024 + 100);
    gs_dram_free(&d);
    c.dram_queue_ns = 0.0;                                      /* off: the same sequence waits nowhere */
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    for (uint64_t t = 0; t < 512; t++) gs_dram_access(&d, 0, t, 0);
    CHECK_EQ(gs_dram_access(&d, 0, 1024, 0), 1124);
    gs_dram_free(&d);
}

/* The load counts reads only: 256 two-cycle writes fill half of the first window, and a read of the next
 * window waits nothing more. One queue: a read that finds a bus backlog longer than the expected wait
 * waits only the backlog (not both); one that finds a shorter backlog waits the expected wait in all. */
static void test_queue_reads_only_and_one_queue(void) {
    gs_tconfig c = cfg(GS_DRAM_FCFS);
    c.dram_queue_ns = 100.0;
    gs_tstats st;
    memset(&st, 0, sizeof st);
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    for (uint64_t t = 0; t < 256; t++) gs_dram_access(&d, 0, 2 * t, 1);
    CHECK_EQ(gs_dram_access(&d, 0, 1024, 0), 1024 + 100);      /* writes do not load the reads' queue */
    gs_dram_free(&d);
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    for (uint64_t t = 0; t < 512; t++) gs_dram_access(&d, 0, t, 0);    /* window 0 at load 0.5 */
    /* window 1: u = 0.125, expected wait 14. 40 reads at once: the k-th finds a backlog of k cycles */
    uint64_t first = gs_dram_access(&d, 0, 1024, 0);
    CHECK_EQ(first, 1024 + 100 + 14);                            /* no backlog: the expected wait */
    for (uint64_t k = 1; k < 40; k++) {
        uint64_t r = gs_dram_access(&d, 0, 1024, 0);
        CHECK_EQ(r, 1024 + 100 + (k > 14 ? k : 14));            /* max(backlog k, 14), never k + 14 */
    }
    gs_dram_free(&d);
}

/* Write drains (dram.write_drain_ns = 100 ns = 100 cycles at 1 GHz; a write costs 2 bus cycles): writes
 * queue without taking the bus, so a read among the first 49 does not wait; the 50th fills 100 cycles
 * and books them as one block from its arrival (cycle 49); a read arriving inside the block waits for
 * its end. Off, every write takes the bus at once. */
static void test_write_drain(void) {
    gs_tconfig c = cfg(GS_DRAM_FCFS);
    c.dram_write_drain_ns = 100.0;
    gs_tstats st;
    memset(&st, 0, sizeof st);
    gs_dram d;
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    for (uint64_t t = 0; t < 49; t++) gs_dram_access(&d, 0, t, 1);
    CHECK_EQ(gs_dram_access(&d, 0, 48, 0), 48 + 100);           /* queued writes hold no bus time */
    CHECK_EQ(st.dram_write_drains, 0);
    gs_dram_access(&d, 0, 49, 1);                               /* the drain: cycles 49..148 */
    CHECK_EQ(st.dram_write_drains, 1);
    CHECK_EQ(gs_dram_access(&d, 0, 60, 0), 149 + 100);          /* waits for the end of the drain */
    CHECK_EQ(gs_dram_access(&d, 0, 200, 0), 200 + 100);         /* after it: no wait */
    CHECK_EQ(st.dram_write_bytes, 50 * 32);                     /* every write is counted when it arrives */
    gs_dram_free(&d);
    c.dram_write_drain_ns = 0.0;
    memset(&st, 0, sizeof st);
    CHECK(gs_dram_init(&d, &c, &st) == 0);
    for (uint64_t t = 0; t < 49; t++) gs_dram_access(&d, 0, t, 1);
    CHECK_EQ(gs_dram_access(&d, 0, 48, 0), 98 + 100);           /* off: behind 49 two-cycle writes */
    CHECK_EQ(st.dram_write_drains, 0);
    gs_dram_free(&d);
}

int main(void) {
    test_policy_table();
    test_fcfs_bandwidth_and_latency();
    test_open_row();
    test_fr_fcfs_groups_queued_rows();
    test_channels_spread();
    test_refresh_waits();
    test_queue_latency();
    test_queue_reads_only_and_one_queue();
    test_write_drain();
    return check_summary();
}
