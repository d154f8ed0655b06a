/* test_l1.c — the L1/shared unit: coalescer, shared-memory bank conflicts, fragment tag lookups, the
 * L1 directory lookup; and the interconnect ports. Built by tests/test_c_units.py with l1.c, icnt.c
 * and cache.c. */
#include <string.h>
#include "check.h"
#include "l1.h"
#include "icnt.h"

static void test_coalesce(void) {
    static gs_coal co;
    uint64_t a[32];
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 4 * l;          /* unit stride: one line, 4 sectors */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(co.nl, 1);
    CHECK_EQ(co.lines[0], 0x1000 >> 7);
    CHECK_EQ(co.masks[0], 0xf);
    CHECK_EQ(co.lane_ops[0][0], 8);
    CHECK_EQ(co.bytes_w[0][0], 0xffffffffu);
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 128 * l;        /* line stride: 32 lines, 1 sector each */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(co.nl, 32);
    CHECK_EQ(co.masks[31], 0x1);
    CHECK_EQ(co.bytes_w[31][0], 0xf);                              /* 4 of the sector's 32 bytes */
    gs_coalesce(&co, a, 0x5u, NULL, 2, 4, 7, 5, 0);                /* lanes 0 and 2 only */
    CHECK_EQ(co.nl, 2);
    CHECK_EQ(co.lines[1], (0x1000 + 256) >> 7);
    for (int l = 0; l < 32; l++) a[l] = 0x2000 + 4 * (l % 4);      /* atomics: 8 lanes on each of 4 words */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 1);
    CHECK_EQ(co.nl, 1);
    CHECK_EQ(co.lane_ops[0][0], 32);
    CHECK_EQ(co.same_ops[0][0], 8);
    uint64_t e[3] = {0x100, 0x17c, 0x180};                         /* element list: crosses a line */
    gs_coalesce(&co, NULL, 0, e, 3, 8, 7, 5, 0);
    CHECK_EQ(co.nl, 2);                                            /* 0x17c..0x183 spans lines 2 and 3 */
    CHECK_EQ(co.masks[0], 0x9);
}

static void test_shared_banks(void) {
    uint64_t a[32];
    uint32_t serial = 0;
    for (int l = 0; l < 32; l++) a[l] = 4 * l;                     /* one word per bank */
    CHECK_EQ(gs_shared_wavefronts(a, 0xffffffffu, 4, 32, 4, 0, &serial), 1);
    CHECK_EQ(serial, 1);
    for (int l = 0; l < 32; l++) a[l] = 8 * l;                     /* stride 2 words: 2-way conflict */
    CHECK_EQ(gs_shared_wavefronts(a, 0xffffffffu, 4, 32, 4, 0, &serial), 2);
    for (int l = 0; l < 32; l++) a[l] = 128 * l;                   /* all in bank 0: 32-way */
    CHECK_EQ(gs_shared_wavefronts(a, 0xffffffffu, 4, 32, 4, 0, &serial), 32);
    for (int l = 0; l < 32; l++) a[l] = 64;                        /* one word: a broadcast */
    CHECK_EQ(gs_shared_wavefronts(a, 0xffffffffu, 4, 32, 4, 0, &serial), 1);
    CHECK_EQ(gs_shared_wavefronts(a, 0xffffffffu, 4, 32, 4, 1, &serial), 1);   /* atomics serialise */
    CHECK_EQ(serial, 32);
    for (int l = 0; l < 32; l++) a[l] = 16 * l;                    /* 16-byte lanes: 512 bytes, 4 wavefronts */
    CHECK_EQ(gs_shared_wavefronts(a, 0xffffffffu, 16, 32, 4, 0, &serial), 4);
    uint64_t e[64];
    for (int q = 0; q < 64; q++) e[q] = 4 * q;                     /* 64 words, 2 per bank */
    CHECK_EQ(gs_shared_wavefronts_ext(e, 64, 4, 32, 4), 2);
}

/* data wavefronts of a global request: the most lines any 4-byte bank must read from (sched_fair.cu's shapes) */
static void test_coal_wavefronts(void) {
    static gs_coal co;
    uint64_t a[32];
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 4 * l;          /* one line */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(gs_coal_wavefronts(&co, 128, 32), 1);
    for (int l = 0; l < 32; l++) a[l] = 0x1004 + 4 * l;          /* 4 bytes off: two lines, no bank twice */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(co.nl, 2);
    CHECK_EQ(gs_coal_wavefronts(&co, 128, 32), 1);
    for (int l = 0; l < 32; l++) a[l] = 0x1000;                  /* broadcast */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(gs_coal_wavefronts(&co, 128, 32), 1);
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 128 * (l / 4) + 4 * (l % 4);   /* 8 lines x 16 bytes at one offset */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(co.nl, 8);
    CHECK_EQ(gs_coal_wavefronts(&co, 128, 32), 8);
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 128 * l;        /* 32 lines, one bank */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(gs_coal_wavefronts(&co, 128, 32), 32);
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 132 * l;        /* 32 lines, every lane its own bank */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 0);
    CHECK_EQ(co.nl, 32);
    CHECK_EQ(gs_coal_wavefronts(&co, 128, 32), 1);
    for (int l = 0; l < 32; l++) a[l] = 0x1000 + 4 * l;          /* 64-byte sectors: no byte masks, 1 */
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 8, 6, 0);
    CHECK_EQ(gs_coal_wavefronts(&co, 256, 64), 1);
}

/* random requests: the most lines any bank reads from, counted plainly (words in use from the byte masks) */
static void test_coal_wavefronts_match_count(void) {
    static gs_coal co;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int bad = 0;
    for (int round = 0; round < 4000 && !bad; round++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        memset(&co, 0, sizeof co);
        co.nl = 1 + (uint32_t)(x % (round % 2 ? 4 : 40));
        for (uint32_t i = 0; i < co.nl; i++)
            for (int sec = 0; sec < 4; sec++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                uint32_t k = (uint32_t)(x >> 40) % 4;   /* none, one word, a run of bytes, anything */
                co.bytes_w[i][sec] = k == 0 ? 0 : k == 1 ? 0xfu << (4 * ((x >> 8) % 8))
                                   : k == 2 ? (uint32_t)(((1ull << (1 + (x >> 16) % 32)) - 1) << ((x >> 24) % 4)) : (uint32_t)x;
            }
        uint32_t count[32] = {0}, want = 1;
        for (uint32_t i = 0; i < co.nl; i++)
            for (int b = 0; b < 32; b++) {                 /* bank b: word b of the line (sector b / 8) */
                if (!((co.bytes_w[i][b / 8] >> (4 * (b % 8))) & 0xfu)) continue;
                if (++count[b] > want) want = count[b];
            }
        uint32_t got = gs_coal_wavefronts(&co, 128, 32);
        bad = got != want;
        if (bad) printf("wavefronts: round %d (%u lines) gives %u, counted %u\n", round, co.nl, got, want);
    }
    CHECK(!bad);
}

/* shared-memory atomics: the most active lanes on one address, against a plain count over random warps */
static void test_shared_atomic_serial_matches_count(void) {
    uint64_t a[32], x = 0x2545F4914F6CDD1Dull;
    int bad = 0;
    for (int round = 0; round < 3000 && !bad; round++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t mask = round % 3 ? (uint32_t)(x >> 16) : 0xffffffffu, bins = 1 + (uint32_t)(x % 64), serial = 0;
        for (int l = 0; l < 32; l++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            a[l] = 4 * ((x >> 20) % bins);
        }
        uint32_t want = 1;
        for (int l = 0; l < 32; l++) {
            if (!((mask >> l) & 1)) continue;
            uint32_t n = 0;
            for (int k = 0; k < 32; k++) n += ((mask >> k) & 1) && a[k] == a[l];
            if (n > want) want = n;
        }
        gs_shared_wavefronts(a, mask, 4, 32, 4, 1, &serial);
        bad = mask && serial != want;
        if (bad) printf("shared atomics: round %d gives %u lanes on one address, counted %u\n", round, serial, want);
    }
    CHECK(!bad);
}

static void test_fragment_lookups(void) {
    /* a 16x16 f16 tile, rows 1 KiB apart (K = 512): 4 loads of 8 rows x 16 bytes, every row its own line */
    CHECK_EQ(gs_fragment_lookups(0x10000, 1024, 16, 32, 16, 128), 32);
    /* the same tile stored densely (pitch 32 bytes): 8 rows x 32 bytes = 2 lines per request */
    CHECK_EQ(gs_fragment_lookups(0x10000, 32, 16, 32, 16, 128), 8);
    /* a 16x16 f32 accumulator stored with 8-byte lanes (32 bytes per row and request): 4 requests x 8 lines */
    CHECK_EQ(gs_fragment_lookups(0x10000, 4096, 16, 64, 32, 128), 32);
    /* a row segment across a line boundary counts both lines */
    CHECK_EQ(gs_fragment_lookups(0x10000 + 120, 4096, 8, 16, 16, 128), 16);
}

/* element lists with many lines (a fragment access finds its lines through a small hash table) and
 * full-warp atomics give what a plain first-touch scan gives: lines in order, their sector masks and
 * lane counts, the cap of GS_COAL_MAX lines */
static void test_coalesce_matches_scan(void) {
    static gs_coal co;
    static uint64_t e[1024], lines[1024];
    static uint8_t masks[1024], ops[1024][8];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 40; round++) {
        uint32_t n = round < 20 ? 256 : 1024, size = round % 2 ? 2 : 4;
        for (uint32_t q = 0; q < n; q++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint32_t l = q % 32, el = q / 32;            /* wmma-like rows, then scattered lines */
            e[q] = round % 3 ? 0x10000 + (uint64_t)(l / 2) * 1024 + (uint64_t)(l % 2) * 16 + el * size
                             : 0x10000 + ((x >> 20) % 4096) * size;
        }
        uint32_t nl = 0;
        memset(masks, 0, sizeof masks);
        memset(ops, 0, sizeof ops);
        for (uint32_t q = 0; q < n; q++)
            for (uint64_t s0 = e[q] >> 5 << 5; s0 < e[q] + size; s0 += 32) {
                uint32_t i = 0;
                while (i < nl && lines[i] != s0 >> 7) i++;
                if (i == nl) { if (nl == GS_COAL_MAX) break; lines[nl++] = s0 >> 7; }
                masks[i] |= (uint8_t)(1u << ((s0 & 127) >> 5));
                ops[i][(s0 & 127) >> 5]++;
            }
        gs_coalesce(&co, NULL, 0, e, n, size, 7, 5, 0);
        CHECK_EQ(co.nl, nl);
        int same = 1;
        for (uint32_t i = 0; i < nl && i < co.nl; i++)
            same &= co.lines[i] == lines[i] && co.masks[i] == masks[i] && !memcmp(co.lane_ops[i], ops[i], 8);
        CHECK(same);
    }
    uint64_t a[32];                                      /* atomics: the full-warp count and the lane loop agree */
    for (int l = 0; l < 32; l++) a[l] = 0x4000 + 4 * ((l * 7) % 5);
    gs_coalesce(&co, a, 0xffffffffu, NULL, 32, 4, 7, 5, 1);
    CHECK_EQ(co.same_ops[0][0], 7);                      /* words 0 and 2 have 7 lanes each, 1, 3, 4 six */
    gs_coalesce(&co, a, 0x7fffffffu, NULL, 31, 4, 7, 5, 1);
    CHECK_EQ(co.same_ops[0][0], 7);                      /* without lane 31 word 2 has 6, word 0 still 7 */
    gs_coalesce(&co, a, 0x0000ffffu, NULL, 16, 4, 7, 5, 1);
    CHECK_EQ(co.same_ops[0][0], 4);                      /* lanes 0-15: word 0 has lanes 0, 5, 10, 15 */
}

/* a warp's lane accesses (the coalescer's one-sector shortcut, and lanes across sectors and lines) give what
 * a plain per-sector scan gives: lines in first-touch order, sector masks, lane counts and bytes written */
static void test_coalesce_lanes_match_scan(void) {
    static gs_coal co;
    uint64_t a[32], lines[GS_COAL_MAX], x = 0x2545F4914F6CDD1Dull;
    uint8_t masks[GS_COAL_MAX], ops[GS_COAL_MAX][8];
    uint32_t bw[GS_COAL_MAX][8];
    static const uint32_t sizes[] = {1, 2, 4, 8, 16, 32};
    int bad = 0;
    for (int round = 0; round < 3000 && !bad; round++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t size = sizes[x % 6], mask = round % 4 > 1 ? (uint32_t)(x >> 16)      /* full, one lane off, any */
                                               : round % 4 ? ~(1u << (x >> 40) % 32) : 0xffffffffu;
        uint32_t kind = (uint32_t)(x >> 8) % 11;
        uint64_t start = ((x >> 24) % 64) * size, step = 128 * (1 + (x >> 32) % 4);   /* (affine kinds 4-7) */
        for (int l = 0; l < 32; l++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint64_t base = 0x7f0000001000ull;
            if (kind == 0) a[l] = base + (uint64_t)l * size;                          /* contiguous */
            else if (kind == 1) a[l] = base + ((x >> 20) % 64) * size;                 /* gathered, aligned */
            else if (kind == 2) a[l] = base + (x >> 20) % 8192;                        /* any byte: straddles */
            else if (kind == 3) a[l] = base + (uint64_t)l * 4096 + (x >> 40) % 3 * size;  /* a line per lane */
            else if (kind == 4) a[l] = base + start + (uint64_t)l * size;              /* contiguous from anywhere */
            else if (kind == 5) a[l] = base + 65536 + start - (uint64_t)l * step;      /* a line per lane, downwards */
            else if (kind == 6) a[l] = base + start + (uint64_t)l * step;              /* a line per lane, upwards */
            else if (kind == 7) a[l] = base + start + (uint64_t)l * (round % 2 ? 64 : 2 * size);  /* strided in lines */
            else if (kind == 8) a[l] = base + start;                                   /* one address */
            else if (kind == 9) a[l] = base + start + (uint64_t)(l % 16) * size + (l / 16) * step * 7;  /* two rows */
            else a[l] = base + start + (uint64_t)(l / 8) * (round % 2 ? size : 96);   /* 4 groups on one address */
        }
        uint32_t nl = 0;
        memset(masks, 0, sizeof masks); memset(ops, 0, sizeof ops); memset(bw, 0, sizeof bw);
        for (uint32_t m = mask; m; m &= m - 1) {
            uint64_t p = a[__builtin_ctz(m)], end = p + size;
            for (uint64_t s0 = p >> 5 << 5; s0 < end; s0 += 32) {
                uint32_t i = 0, sec = (uint32_t)((s0 & 127) >> 5);
                while (i < nl && lines[i] != s0 >> 7) i++;
                if (i == nl) { if (nl == GS_COAL_MAX) break; lines[nl++] = s0 >> 7; }
                masks[i] |= (uint8_t)(1u << sec);
                ops[i][sec]++;
                uint64_t lo = p > s0 ? p - s0 : 0, hi = end < s0 + 32 ? end - s0 : 32;
                bw[i][sec] |= (uint32_t)((hi - lo >= 32 ? 0xffffffffull : ((1ull << (hi - lo)) - 1)) << lo);
            }
        }
        for (int atomic = 0; atomic < 2 && !bad; atomic++) {   /* (atomics: their own path, same answer) */
            gs_coalesce(&co, a, mask, NULL, (uint32_t)__builtin_popcount(mask), size, 7, 5, atomic);
            bad = co.nl != nl;
            for (uint32_t i = 0; i < nl && !bad; i++)
                bad = co.lines[i] != lines[i] || co.masks[i] != masks[i] || memcmp(co.lane_ops[i], ops[i], 8) ||
                      memcmp(co.bytes_w[i], bw[i], sizeof bw[i]);
            if (bad) printf("coalesce: round %d (size %u, kind %u, atomic %d) differs from the scan\n", round, size,
                            kind, atomic);
        }
    }
    CHECK(!bad);
}

/* atomics: per sector, the most active lanes on one address (what the L2's atomic unit serialises), against a
 * plain count over random warps on few addresses */
static void test_coalesce_atomics_match_count(void) {
    static gs_coal co;
    uint64_t a[32], x = 0x9E3779B97F4A7C15ull;
    int bad = 0;
    for (int round = 0; round < 3000 && !bad; round++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t mask = round % 3 ? (uint32_t)(x >> 16) : 0xffffffffu, bins = 1 + (uint32_t)(x % 96);
        uint32_t size = round % 2 ? 8 : 4;                 /* 32- and 64-bit atomics */
        for (int l = 0; l < 32; l++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            a[l] = 0x10000 + size * ((x >> 20) % bins);
        }
        gs_coalesce(&co, a, mask, NULL, (uint32_t)__builtin_popcount(mask), size, 7, 5, 1);
        for (int l = 0; l < 32 && !bad; l++) {
            if (!((mask >> l) & 1)) continue;
            uint32_t want = 0, i = 0, sec = (uint32_t)((a[l] & 127) >> 5);
            for (int k = 0; k < 32; k++) {                 /* the most lanes on one address of lane l's sector */
                if (!((mask >> k) & 1) || a[k] >> 5 != a[l] >> 5) continue;
                uint32_t n = 0;
                for (int j = 0; j < 32; j++) n += ((mask >> j) & 1) && a[j] == a[k];
                if (n > want) want = n;
            }
            while (i < co.nl && co.lines[i] != a[l] >> 7) i++;
            bad = i == co.nl || co.same_ops[i][sec] != want;
            if (bad) printf("atomics: round %d, lane %d: %u lanes on one address, counted %u\n", round, l,
                            i == co.nl ? 0 : co.same_ops[i][sec], want);
        }
    }
    CHECK(!bad);
}

static void test_l1_lookup(void) {
    gs_cache c;
    CHECK(gs_cache_init(&c, 2 * 128, 128, 32, 2) == 0);
    CHECK(gs_l1_lookup(&c, 5, 0) < 0);                             /* writes do not allocate */
    int64_t i = gs_l1_lookup(&c, 5, 1);
    CHECK(i >= 0);
    CHECK_EQ(gs_l1_lookup(&c, 5, 0), i);
    gs_cache_free(&c);
    gs_cache none;
    memset(&none, 0, sizeof none);
    CHECK(gs_l1_lookup(&none, 5, 1) < 0);                          /* no L1 (all shared memory) */
}

static void test_icnt(void) {
    gs_tconfig c;
    memset(&c, 0, sizeof c);
    c.icnt_latency_cycles = 100;
    c.icnt_sm_bytes_per_cycle = 32;
    c.l1_sector_bytes = 32;
    gs_icnt n;
    gs_icnt_init(&n, &c);
    gs_icnt_port p;
    CHECK(gs_icnt_port_init(&p) == 0);
    uint64_t out;
    /* a write carries a sector (one cycle of the port); read requests are a quarter of that */
    CHECK_EQ(gs_icnt_send(&n, &p, 10, 1, &out), 110);
    CHECK_EQ(out, 10);
    CHECK_EQ(gs_icnt_send(&n, &p, 10, 1, &out), 111);
    for (int k = 0; k < 4; k++) CHECK_EQ(gs_icnt_send(&n, &p, 20, 0, NULL), 120);
    CHECK_EQ(gs_icnt_send(&n, &p, 20, 0, NULL), 121);
    /* answers: writes only travel back; read data books the input port */
    CHECK_EQ(gs_icnt_return(&n, &p, 500, 1), 600);
    CHECK_EQ(gs_icnt_return(&n, &p, 500, 0), 600);
    CHECK_EQ(gs_icnt_return(&n, &p, 500, 0), 601);
    gs_icnt_port_reset(&p);
    CHECK_EQ(gs_icnt_return(&n, &p, 500, 0), 600);
    gs_icnt_port_free(&p);
}

int main(void) {
    test_coalesce();
    test_coalesce_matches_scan();
    test_coalesce_lanes_match_scan();
    test_coalesce_atomics_match_count();
    test_shared_banks();
    test_shared_atomic_serial_matches_count();
    test_fragment_lookups();
    test_coal_wavefronts();
    test_coal_wavefronts_match_count();
    test_l1_lookup();
    test_icnt();
    return check_summary();
}
