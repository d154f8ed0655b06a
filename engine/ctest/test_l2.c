/* test_l2.c — L2 slices: hits and misses, write-allocate without fetch, dirty write-back, DRAM fetch
 * granularity, near-partition copies, the atomic unit, read coalescing (l2.coalesce_reads, per GPC, until the
 * lookup). Built by tests/test_c_units.py with l2.c,
 * dram.c and cache.c. */
#include <string.h>
#include "check.h"
#include "l2.h"

static gs_tconfig cfg(void) {
    gs_tconfig c;
    memset(&c, 0, sizeof c);
    c.gpu_sm_clock_mhz = 1000.0;
    c.dram_channels = 1; c.dram_bandwidth_gbps = 32.0; c.dram_efficiency = 1.0; c.dram_write_efficiency = 1.0;
    c.dram_latency_ns = 100.0; c.dram_policy = GS_DRAM_FCFS; c.dram_banks = 1; c.dram_row_bytes = 1024;
    c.l2_size_kib = 4; c.l2_slices = 1; c.l2_line_bytes = 128; c.l2_sector_bytes = 32; c.l2_assoc = 4;
    c.l2_hit_latency_cycles = 10; c.l2_bytes_per_cycle = 32; c.l2_hash = GS_L2_HASH_LINEAR; c.l2_partitions = 1;
    c.l2_far_latency_cycles = 40; c.l2_interleave_bytes = 128; c.l2_atomic_packet_cycles = 2.0;
    c.l2_atomic_latency_cycles = 5; c.l2_partial_write_cycles = 1.0; c.l2_dram_fetch_bytes = 32;
    return c;
}

typedef struct { gs_tstats st; gs_dram d; gs_l2 l2; } mem;

static void build(mem *m, const gs_tconfig *c) {
    memset(&m->st, 0, sizeof m->st);
    CHECK(gs_dram_init(&m->d, c, &m->st) == 0);
    CHECK(gs_l2_init(&m->l2, c, &m->d, &m->st) == 0);
}
static void destroy(mem *m) { gs_l2_free(&m->l2); gs_dram_free(&m->d); }

static void test_read_miss_then_hit(void) {
    gs_tconfig c = cfg();
    mem m;
    build(&m, &c);
    uint64_t td = 0;
    /* miss: port at 0, slice latency 10, DRAM 100 */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x1000, 0, GS_L2_READ, 1, 1, &td, 0, 1), 110);
    CHECK_EQ(td, 110);
    /* a hit on the sector still in flight waits for its data */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x1000, 20, GS_L2_READ, 1, 1, NULL, 0, 1), 110);
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x1000, 500, GS_L2_READ, 1, 1, NULL, 0, 1), 510);
    CHECK_EQ(m.st.l2_hits, 2);
    CHECK_EQ(m.st.l2_misses, 1);
    CHECK_EQ(m.st.l2_read_sectors, 3);
    CHECK_EQ(m.st.dram_read_bytes, 32);
    gs_l2_flush(&m.l2);
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x1000, 1000, GS_L2_READ, 1, 1, NULL, 0, 1), 1110);   /* cold again */
    destroy(&m);
}

static void test_write_allocate_and_writeback(void) {
    gs_tconfig c = cfg();
    c.l2_size_kib = 0;                                /* the smallest slice: one set of 4 ways */
    mem m;
    build(&m, &c);
    CHECK_EQ(m.l2.sl[0].c.sets, 1);
    /* a full-sector write "hits" (no fetch) and is accepted after the slice latency */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0, 0, GS_L2_WRITE, 1, 1, NULL, 0xffffffffu, 1), 10);
    CHECK_EQ(m.st.l2_hits, 1);
    CHECK_EQ(m.st.dram_read_bytes + m.st.dram_write_bytes, 0);
    /* reading it back is a hit */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0, 100, GS_L2_READ, 1, 1, NULL, 0, 1), 110);
    /* four more lines evict the dirty one: its sector is written back to DRAM */
    for (uint64_t k = 1; k <= 4; k++) gs_l2_access(&m.l2, 0, k * 128, 200, GS_L2_READ, 1, 1, NULL, 0, 1);
    CHECK_EQ(m.st.dram_write_bytes, 32);
    /* a partial write of a sector never fetched is merged with DRAM data when evicted (a read first) */
    gs_l2_access(&m.l2, 0, 10 * 128, 300, GS_L2_WRITE, 1, 1, NULL, 0xf, 1);
    uint64_t rd = m.st.dram_read_bytes;
    for (uint64_t k = 11; k <= 14; k++) gs_l2_access(&m.l2, 0, k * 128, 400, GS_L2_READ, 1, 1, NULL, 0, 1);
    CHECK_EQ(m.st.dram_write_bytes, 64);
    CHECK_EQ(m.st.dram_read_bytes - rd, 4 * 32 + 32);
    destroy(&m);
}

static void test_fetch_granularity(void) {
    gs_tconfig c = cfg();
    c.l2_dram_fetch_bytes = 64;                       /* DRAM is read in pairs of sectors */
    mem m;
    build(&m, &c);
    gs_l2_access(&m.l2, 0, 0, 0, GS_L2_READ, 1, 1, NULL, 0, 0x1);
    CHECK_EQ(m.st.dram_read_bytes, 64);               /* sector 1 came along */
    gs_l2_access(&m.l2, 0, 32, 300, GS_L2_READ, 1, 1, NULL, 0, 0x2);
    CHECK_EQ(m.st.l2_hits, 1);
    /* sectors the same request asks for are not filled ahead: both count as misses */
    gs_l2_access(&m.l2, 0, 256, 400, GS_L2_READ, 1, 1, NULL, 0, 0x3);
    gs_l2_access(&m.l2, 0, 256 + 32, 400, GS_L2_READ, 1, 1, NULL, 0, 0x3);
    CHECK_EQ(m.st.l2_misses, 3);
    destroy(&m);
}

static void test_near_partition_copy(void) {
    gs_tconfig c = cfg();
    c.l2_slices = 2; c.l2_partitions = 2;
    mem m;
    build(&m, &c);
    /* find a line whose home slice is in partition 1, read it from partition 0 */
    uint64_t line = 0;
    while (gs_l2_slice_of(&m.l2, line) != 1) line++;
    uint64_t a = line * 128;
    uint64_t t1 = gs_l2_access(&m.l2, 0, a, 0, GS_L2_READ, 1, 1, NULL, 0, 1);
    CHECK_EQ(t1, 0 + 20 + 10 + 100 + 20);             /* near miss, half the far latency each way, DRAM */
    /* the second read finds the copy in the near slice: no far trip */
    CHECK_EQ(gs_l2_access(&m.l2, 0, a, 1000, GS_L2_READ, 1, 1, NULL, 0, 1), 1010);
    /* from its own partition it is a plain hit in the home slice */
    CHECK_EQ(gs_l2_access(&m.l2, 1, a, 2000, GS_L2_READ, 1, 1, NULL, 0, 1), 2010);
    destroy(&m);
}

static void test_atomic_unit_serialises(void) {
    gs_tconfig c = cfg();
    mem m;
    build(&m, &c);
    gs_l2_access(&m.l2, 0, 0, 0, GS_L2_READ, 1, 1, NULL, 0, 1);   /* make the sector resident */
    /* 4 lanes on one address: 4 packets of 2 cycles, then the atomic latency */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0, 1000, GS_L2_ATOMIC, 4, 4, NULL, 0, 1), 1010 + 8 + 5);
    CHECK_EQ(m.st.l2_atomic_ops, 4);
    /* the next atomic on the sector waits for the unit */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0, 1000, GS_L2_ATOMIC, 1, 1, NULL, 0, 1), 1018 + 2 + 5);
    destroy(&m);
}

static void test_coalesced_reads(void) {
    gs_tconfig c = cfg();                             /* 32 B/cycle: one sector per slice cycle */
    for (int on = 0; on <= 1; on++) {
        c.l2_coalesce_reads = on ? 16u : 0u;
        mem m;
        build(&m, &c);
        CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 0, GS_L2_READ, 1, 1, NULL, 0, 2), 110);   /* resident from here */
        uint64_t base = m.st.l2_sectors;
        /* 8 SMs read the sector at once: without coalescing they queue at the slice's port (one per cycle);
         * with it the first takes the port and the others get its answer */
        for (uint64_t k = 0; k < 8; k++)
            CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), on ? 1010 : 1010 + k);
        CHECK_EQ(m.st.l2_sectors - base, on ? 1u : 8u);
        CHECK_EQ(m.st.l2_coalesced, on ? 7u : 0u);
        if (on) {
            /* a read arriving while the first is still waiting for its answer merges; one at or after the answer does not */
            CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1009, GS_L2_READ, 1, 1, NULL, 0, 2), 1010);
            CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1010, GS_L2_READ, 1, 1, NULL, 0, 2), 1020);
            /* another sector of the same line takes the port (the next slot, 1011) and goes to DRAM */
            CHECK_EQ(gs_l2_access(&m.l2, 0, 0x60, 1010, GS_L2_READ, 1, 1, NULL, 0, 8), 1011 + 10 + 100);
            /* a write to the sector ends the merging: the next read takes the port again */
            gs_l2_access(&m.l2, 0, 0x40, 1012, GS_L2_WRITE, 1, 1, NULL, 0xffffffffu, 2);
            CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1013, GS_L2_READ, 1, 1, NULL, 0, 2), 1013 + 10);
        }
        destroy(&m);
    }
    /* at most l2.coalesce_reads reads per lookup: with 4, the 5th of 6 simultaneous reads looks the sector up
     * again (the next port slot) and the 6th merges with it */
    c.l2_coalesce_reads = 4;
    mem m;
    build(&m, &c);
    gs_l2_access(&m.l2, 0, 0x40, 0, GS_L2_READ, 1, 1, NULL, 0, 2);
    for (uint64_t k = 0; k < 6; k++)
        CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), k < 4 ? 1010u : 1011u);
    CHECK_EQ(m.st.l2_coalesced, 4u);
    destroy(&m);
    /* 1 merges nothing */
    c.l2_coalesce_reads = 1;
    build(&m, &c);
    gs_l2_access(&m.l2, 0, 0x40, 0, GS_L2_READ, 1, 1, NULL, 0, 2);
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), 1010);
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), 1011);
    CHECK_EQ(m.st.l2_coalesced, 0u);
    destroy(&m);
}

static void test_reset_forgets_coalescing_entries(void) {
    /* a launch's reset empties the read-coalescing table (its fingerprints: an entry is read only through a
     * matching one), so a read right after it looks the sector up itself instead of taking an old answer */
    gs_tconfig c = cfg();
    c.l2_coalesce_reads = 16;
    mem m;
    build(&m, &c);
    gs_l2_access(&m.l2, 0, 0x40, 0, GS_L2_READ, 1, 1, NULL, 0, 2);                      /* resident */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), 1010);  /* an entry until 1010 */
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1001, GS_L2_READ, 1, 1, NULL, 0, 2), 1010);  /* merges */
    CHECK_EQ(m.st.l2_coalesced, 1u);
    gs_l2_reset(&m.l2);
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1002, GS_L2_READ, 1, 1, NULL, 0, 2), 1012);  /* its own lookup */
    CHECK_EQ(m.st.l2_coalesced, 1u);
    CHECK_EQ(gs_l2_access(&m.l2, 0, 0x40, 1003, GS_L2_READ, 1, 1, NULL, 0, 2), 1012);  /* and merges anew */
    CHECK_EQ(m.st.l2_coalesced, 2u);
    destroy(&m);
}

static void test_coalesced_reads_per_gpc(void) {
    /* l2.coalesce_gpc: reads from SMs of one GPC merge; a read from another GPC looks the sector up itself
     * (kloop.cu shdram33: 4 CTAs in 4 GPCs sharing every line merge nothing on the H200) */
    gs_tconfig c = cfg();
    c.l2_coalesce_reads = 4; c.l2_coalesce_gpc = 1; c.gpu_gpcs = 2;
    mem m;
    build(&m, &c);
    gs_l2_access_from(&m.l2, 0, 0, 0x40, 0, GS_L2_READ, 1, 1, NULL, 0, 2);              /* resident */
    CHECK_EQ(gs_l2_access_from(&m.l2, 0, 0, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), 1010);   /* GPC 0 looks up */
    CHECK_EQ(gs_l2_access_from(&m.l2, 0, 1, 0x40, 1000, GS_L2_READ, 1, 1, NULL, 0, 2), 1011);   /* GPC 1 too */
    CHECK_EQ(gs_l2_access_from(&m.l2, 0, 0, 0x40, 1001, GS_L2_READ, 1, 1, NULL, 0, 2), 1010);   /* merges in GPC 0 */
    CHECK_EQ(gs_l2_access_from(&m.l2, 0, 1, 0x40, 1002, GS_L2_READ, 1, 1, NULL, 0, 2), 1011);   /* and in GPC 1 */
    CHECK_EQ(m.st.l2_coalesced, 2u);
    /* a GPC beyond gpu.gpcs is the last one */
    CHECK_EQ(gs_l2_access_from(&m.l2, 0, 7, 0x40, 1003, GS_L2_READ, 1, 1, NULL, 0, 2), 1011);
    /* a write from GPC 0 ends the merging in both tables */
    gs_l2_access_from(&m.l2, 0, 0, 0x40, 1004, GS_L2_WRITE, 1, 1, NULL, 0xffffffffu, 2);
    CHECK_EQ(gs_l2_access_from(&m.l2, 0, 1, 0x40, 1005, GS_L2_READ, 1, 1, NULL, 0, 2), 1005 + 10);
    destroy(&m);
    /* l2.coalesce_until_lookup: a read merges only while the earlier one waits for its tag lookup (the slice's
     * port): three reads queued behind 8 others of other sectors merge while they wait, a read after the
     * lookup takes the port itself */
    c.l2_coalesce_until_lookup = 1; c.gpu_gpcs = 1;
    build(&m, &c);
    for (uint64_t k = 0; k < 8; k++) gs_l2_access_from(&m.l2, 0, 0, 0x1000 + 32 * k, 0, GS_L2_READ, 1, 1, NULL, 0, 1);
    gs_l2_access_from(&m.l2, 0, 0, 0x40, 0, GS_L2_READ, 1, 1, NULL, 0, 2);   /* looked up at 8, DRAM */
    uint64_t r = gs_l2_access_from(&m.l2, 0, 0, 0x40, 5, GS_L2_READ, 1, 1, NULL, 0, 2);
    CHECK_EQ(r, 8 + 10 + 100);                                                /* merged: the same answer */
    CHECK_EQ(m.st.l2_coalesced, 1u);
    gs_l2_access_from(&m.l2, 0, 0, 0x40, 9, GS_L2_READ, 1, 1, NULL, 0, 2);   /* after the lookup: its own */
    CHECK_EQ(m.st.l2_coalesced, 1u);
    destroy(&m);
}

/* a flush zeroes only the sets a line was installed in (setmask.h): every slice's directory ends all zero, as
 * at creation, and the same accesses then give the same answers as on a new L2 */
static int dir_zero(const gs_l2dir *d) {
    const unsigned char *b = (const unsigned char *)d->blk, *r = d->rec;
    for (size_t i = 0; i < gs_l2dir_blk_bytes(d); i++) if (b[i]) return 0;
    for (size_t i = 0; i < gs_l2dir_rec_bytes(d); i++) if (r[i]) return 0;
    return 1;
}
static void test_flush_clears_touched_sets(void) {
    gs_tconfig c = cfg();
    c.l2_size_kib = 256; c.l2_slices = 4; c.l2_hash = GS_L2_HASH_XOR_LINE;
    mem m, fresh;
    build(&m, &c);
    uint64_t first[40], again[40];
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 40; k++) {
            uint64_t a = 0x10000 + (uint64_t)k * 4096 + (uint64_t)(k % 3) * 32;
            uint64_t r = gs_l2_access(&m.l2, 0, a, 100 * (uint64_t)k, k % 4 ? GS_L2_READ : GS_L2_WRITE, 1, 1, NULL, 0, 1);
            if (round == 0) first[k] = r - 100 * (uint64_t)k; else again[k] = r - 100 * (uint64_t)k;
        }
        int touched = 0;
        for (uint32_t i = 0; i < m.l2.nslices; i++) touched += !dir_zero(&m.l2.sl[i].c);
        CHECK(touched > 1);
        gs_l2_flush(&m.l2);
        gs_l2_reset(&m.l2);
        gs_dram_reset(&m.d);
        for (uint32_t i = 0; i < m.l2.nslices; i++) CHECK(dir_zero(&m.l2.sl[i].c));
    }
    for (int k = 0; k < 40; k++) CHECK_EQ(first[k], again[k]);
    build(&fresh, &c);
    for (int k = 0; k < 40; k++) {
        uint64_t a = 0x10000 + (uint64_t)k * 4096 + (uint64_t)(k % 3) * 32;
        CHECK_EQ(gs_l2_access(&fresh.l2, 0, a, 100 * (uint64_t)k, k % 4 ? GS_L2_READ : GS_L2_WRITE, 1, 1, NULL, 0, 1)
                 - 100 * (uint64_t)k, first[k]);
    }
    destroy(&fresh);
    destroy(&m);
}

int main(void) {
    test_read_miss_then_hit();
    test_flush_clears_touched_sets();
    test_write_allocate_and_writeback();
    test_fetch_granularity();
    test_near_partition_copy();
    test_atomic_unit_serialises();
    test_coalesced_reads();
    test_coalesced_reads_per_gpc();
    test_reset_forgets_coalescing_entries();
    return check_summary();
}
