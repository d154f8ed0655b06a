/* test_units.c — C unit tests of self-contained timing components (cache directory, calendar
 * reservations, FCFS resources), in the device-under-test style: drive the component, assert events.
 * Built and run by tests/test_c_units.py (or: cc -O1 -I../csrc -I../include test_units.c ../csrc/cache.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "calendar.h"
#include "hash.h"

static int failures = 0;
#define CHECK(cond) do { if (!(cond)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

static void test_cache_lru(void) {
    gs_cache c;
    CHECK(gs_cache_init(&c, 4 * 128, 128, 32, 4) == 0);   /* one set, 4 ways */
    CHECK(c.sets == 1 && c.assoc == 4 && c.nsect == 4);
    uint64_t ev;
    uint8_t dirty;
    for (uint64_t line = 0; line < 4; line++) {
        CHECK(gs_cache_find(&c, line, 0) < 0);             /* cold misses */
        int64_t i = gs_cache_alloc(&c, line, 0, &ev, &dirty);
        CHECK(i >= 0 && dirty == 0);
        c.bits[i].valid = 0xf;
    }
    CHECK(gs_cache_find(&c, 0, 0) >= 0);                   /* touch 0: 1 is now least recent */
    int64_t i = gs_cache_alloc(&c, 9, 0, &ev, &dirty);
    CHECK(ev == 1);                                        /* LRU victim */
    c.bits[i].dirty = 0x3;
    c.bits[i].valid = 0xf;
    for (uint64_t line = 20; line < 23; line++) gs_cache_alloc(&c, line, 0, &ev, &dirty);
    gs_cache_find(&c, 20, 0); gs_cache_find(&c, 21, 0); gs_cache_find(&c, 22, 0);
    gs_cache_alloc(&c, 30, 0, &ev, &dirty);
    CHECK(ev == 9 && dirty == 0x3);                        /* dirty sectors of the victim reported */
    gs_cache_clear(&c);
    CHECK(gs_cache_find(&c, 30, 0) < 0);
    gs_cache_free(&c);
}

static void test_calendar_out_of_order(void) {
    gs_cal cal;
    CHECK(gs_cal_init(&cal) == 0);
    /* a request for the future does not delay an earlier one (the reason calendars exist) */
    CHECK(gs_cal_take(&cal, 1000, 256) == 1000);
    CHECK(gs_cal_take(&cal, 10, 256) == 10);
    /* capacity: two half-cycle requests share a cycle, a third goes to the next */
    CHECK(gs_cal_take(&cal, 50, 128) == 50);
    CHECK(gs_cal_take(&cal, 50, 128) == 50);
    CHECK(gs_cal_take(&cal, 50, 128) == 51);
    /* saturation: n one-cycle requests at the same time take n consecutive cycles */
    for (int k = 0; k < 100; k++) CHECK(gs_cal_take(&cal, 2000, 256) == 2000u + (unsigned)k);
    CHECK(gs_cal_backlog(&cal, 2000) == 100);
    /* far beyond the span: old history is forgotten, no crash, still monotone */
    CHECK(gs_cal_take(&cal, 10000000, 256) == 10000000);
    CHECK(gs_cal_take(&cal, 10, 256) >= cal.base);
    gs_cal_free(&cal);
}

/* The calendar never clears a forgotten cycle (a cell of another lap reads as empty); a reference that
 * clears every forgotten cycle (its former behaviour) must give the same answers and cell values on dense,
 * sparse and out-of-order requests, and on jumps of whole rings (256 of them: the same lap again). */
typedef struct { uint16_t used, skip; } ref_cell;
typedef struct { ref_cell c[GS_CAL_SPAN]; uint64_t base, first_free; } ref_cal;
static void ref_advance(ref_cal *r, uint64_t to) {
    if (to <= r->base) return;
    for (uint64_t k = r->base; k < to && k < r->base + GS_CAL_SPAN; k++) r->c[k & (GS_CAL_SPAN - 1)] = (ref_cell){0, 0};
    r->base = to;
    if (r->first_free < to) r->first_free = to;
}
static uint64_t ref_take(ref_cal *r, uint64_t t, uint64_t cost) {
    if (t + 64 > r->base + GS_CAL_SPAN / 2) ref_advance(r, t + 64 - GS_CAL_SPAN / 2);
    if (t < r->base) t = r->base;
    uint64_t k = t < r->first_free ? r->first_free : t, end = r->base + GS_CAL_SPAN, k0 = k;
    while (k < end && r->c[k & (GS_CAL_SPAN - 1)].used >= GS_CAL_FULL) {
        uint16_t d = r->c[k & (GS_CAL_SPAN - 1)].skip;
        k += d ? d : 1;
    }
    for (uint64_t j = k0; j < k && j < end;) {
        uint16_t *sj = &r->c[j & (GS_CAL_SPAN - 1)].skip;
        uint64_t nj = j + (*sj ? *sj : 1), dist = k - j;
        *sj = (uint16_t)(dist > 0xffff ? 0xffff : dist);
        j = nj;
    }
    if (k >= end) return k;
    uint64_t start = k;
    while (cost && k < end) {
        uint16_t *u = &r->c[k & (GS_CAL_SPAN - 1)].used;
        uint64_t room = GS_CAL_FULL - *u, take = cost < room ? cost : room;
        *u = (uint16_t)(*u + take);
        cost -= take;
        k++;
    }
    while (r->first_free < end && r->c[r->first_free & (GS_CAL_SPAN - 1)].used >= GS_CAL_FULL && r->first_free >= r->base) {
        uint16_t d = r->c[r->first_free & (GS_CAL_SPAN - 1)].skip;
        r->first_free += d ? d : 1;
    }
    return start;
}
static uint64_t ref_backlog(const ref_cal *r, uint64_t now) {
    uint64_t k = now < r->base ? r->base : now, end = r->base + GS_CAL_SPAN, k0 = k;
    while (k < end && r->c[k & (GS_CAL_SPAN - 1)].used >= GS_CAL_FULL) {
        uint16_t d = r->c[k & (GS_CAL_SPAN - 1)].skip;
        k += d ? d : 1;
    }
    return k - k0;
}
/* the cells of the remembered cycles [base, base + GS_CAL_SPAN) as values, against the reference's ring */
static int cells_differ(const gs_cal *cal, const ref_cal *ref) {
    for (uint64_t k = cal->base; k < cal->base + GS_CAL_SPAN; k++)
        if (gs_cal_used(cal, k) != ref->c[k & (GS_CAL_SPAN - 1)].used || gs_cal_skip(cal, k) != ref->c[k & (GS_CAL_SPAN - 1)].skip)
            return 1;
    return cal->base != ref->base;
}

static void test_calendar_matches_full_clearing(void) {
    static ref_cal ref;
    gs_cal cal;
    CHECK(gs_cal_init(&cal) == 0);
    uint64_t x = 88172645463325252ull, t = 0;
    int bad = 0;
    for (int phase = 0; phase < 2; phase++) {          /* the second phase after a reset */
        memset(&ref, 0, sizeof ref);
        for (int i = 0; i < 200000 && !bad; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;       /* xorshift64 */
            switch (x % 16) {                              /* dense, bursts, out of order, long gaps */
            case 0: t += 1; break;
            case 3: if (x % 64 == 3) t += (uint64_t)GS_CAL_SPAN * (1 + (x >> 8) % 300); break;   /* whole rings */
            case 1: t += (x >> 8) % 40000; break;
            case 2: t = t > 500 ? t - (x >> 8) % 500 : t; break;
            default: t += (x >> 8) % 4; break;
            }
            uint64_t cost = 1 + (x >> 24) % 600;
            uint64_t a = gs_cal_take(&cal, t, cost), b = ref_take(&ref, t, cost);
            if (a != b) { printf("calendar: take(%llu, %llu) = %llu, reference %llu\n", (unsigned long long)t,
                                 (unsigned long long)cost, (unsigned long long)a, (unsigned long long)b); bad = 1; }
            if (i % 97 == 0 && gs_cal_backlog(&cal, t) != ref_backlog(&ref, t)) bad = 1;
            if (i % 4999 == 0 && cells_differ(&cal, &ref)) { printf("calendar: cells differ at step %d\n", i); bad = 1; }
        }
        if (!bad) bad = cells_differ(&cal, &ref);          /* and the same cells */
        gs_cal_reset(&cal);
        for (uint32_t k = 0; k < GS_CAL_SPAN && !bad; k++) bad = cal.cell[k] != 0;   /* a reset empties the ring */
        t = 0;
    }
    CHECK(!bad);
    gs_cal_free(&cal);
}

/* the divisors the fastmod tests try: edge ones (slice counts, set counts, powers of two and their
 * neighbours, the largest), then random ones of every magnitude from the xorshift state *x */
static const uint32_t FASTMOD_DS[] = {1, 2, 3, 7, 96, 132, 255, 256, 416, 1000, 4095, 65537, 0x7fffffffu,
                                      0x80000000u, 0xfffffffeu, 0xffffffffu};
enum { FASTMOD_NDS = sizeof FASTMOD_DS / sizeof FASTMOD_DS[0] + 2000 };
static uint32_t fastmod_divisor(size_t i, uint64_t *x) {
    *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
    uint32_t d = i < sizeof FASTMOD_DS / sizeof FASTMOD_DS[0] ? FASTMOD_DS[i] : (uint32_t)(*x >> 32 >> (*x & 31));
    return d ? d : 1;
}

/* gs_fastmod (the L2's slice and set index without a division) against the % operator: edge divisors
 * and numerators, then random ones; a single wrong remainder would move lines between slices or sets */
static void test_fastmod_matches_remainder(void) {
    uint64_t x = 0x9e3779b97f4a7c15ull, wrong = 0, tried = 0;
    for (size_t i = 0; i < FASTMOD_NDS; i++) {
        uint32_t d = fastmod_divisor(i, &x);
        uint64_t m = gs_fastmod_m(d);
        uint32_t edge[] = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, 0xffffffffu, 0xfffffffeu, 0x80000000u};
        for (size_t k = 0; k < sizeof edge / sizeof edge[0] + 500; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint32_t a = k < sizeof edge / sizeof edge[0] ? edge[k] : (uint32_t)x;
            tried++;
            if (gs_fastmod(a, m, d) != a % d) {
                if (!wrong) printf("gs_fastmod(%u, %u) = %u, %% gives %u\n", a, d, gs_fastmod(a, m, d), a % d);
                wrong++;
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(tried > 1000000);
}

/* the 64-bit form (a cache's set of a line number) against the division, at the edges of 64-bit dividends too */
static void test_fastmod64_matches_remainder(void) {
    uint64_t x = 0x2545f4914f6cdd1dull, wrong = 0, tried = 0;
    for (size_t i = 0; i < FASTMOD_NDS; i++) {
        uint32_t d = fastmod_divisor(i, &x);
        uint64_t m[2];
        gs_fastmod64_m(d, m);
        uint64_t edge[] = {0, 1, d - 1ull, d, d + 1ull, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX / d * d,
                           UINT64_MAX / d * d - 1, 1ull << 63, (1ull << 32) * d, 0x7f0000001000ull >> 7};
        for (size_t k = 0; k < sizeof edge / sizeof edge[0] + 500; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint64_t a = k < sizeof edge / sizeof edge[0] ? edge[k] : x >> (x & 63);
            tried++;
            if (gs_fastmod64(a, m, d) != a % d) {
                if (!wrong) printf("gs_fastmod64(%llu, %u) = %llu, %% gives %llu\n", (unsigned long long)a, d,
                                   (unsigned long long)gs_fastmod64(a, m, d), (unsigned long long)(a % d));
                wrong++;
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(tried > 1000000);
}

/* a clear zeroes only the sets a line was installed in (setmask.h): the directory must end all zero, as a
 * fresh one, whatever was touched, and a clear with nothing installed since changes nothing */
static int all_zero(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) if (b[i]) return 0;
    return 1;
}
static void test_cache_clear_touched_sets(void) {
    gs_cache c;
    CHECK(gs_cache_init(&c, 300 * 4 * 128, 128, 32, 4) == 0);   /* 300 sets: the mask's last word part-used */
    size_t n = (size_t)c.sets * c.assoc;
    uint64_t ev;
    uint8_t dirty;
    for (int round = 0; round < 3; round++) {
        for (uint64_t line = round; line < 5000; line += 7 + round) {     /* sets 0..299, some left untouched */
            uint64_t set = gs_cache_set(&c, line);
            int64_t i = gs_cache_alloc(&c, line, set, &ev, &dirty);
            c.bits[i].valid = 0xf;
            c.bits[i].dirty = 0x1;
            c.ready[(size_t)i * c.nsect + 2] = 1000 + line;
        }
        CHECK(!all_zero(c.way, n * sizeof *c.way));
        gs_cache_clear(&c);
        CHECK(all_zero(c.way, n * sizeof *c.way));
        CHECK(all_zero(c.bits, n * sizeof *c.bits));
        CHECK(all_zero(c.ready, n * c.nsect * sizeof *c.ready));
        CHECK(all_zero(c.used.bits, c.used.words * sizeof *c.used.bits));
        CHECK(c.stamp == 0);
        CHECK(gs_cache_find(&c, 7, gs_cache_set(&c, 7)) < 0);
    }
    uint64_t set = gs_cache_set(&c, 299);
    gs_cache_alloc(&c, 299, set, &ev, &dirty);                            /* the last set alone */
    CHECK(c.used.bits[set >> 6] == 1ull << (set & 63));
    gs_cache_clear(&c);
    CHECK(all_zero(c.way, n * sizeof *c.way));
    gs_cache_free(&c);
}

/* a resize keeps the arrays when they have room, and the directory is empty and shaped as a fresh one: the
 * same look-ups and victims as a directory made at that size */
static void test_cache_resize(void) {
    gs_cache c, fresh;
    uint64_t ev, ev2;
    uint8_t d, d2;
    CHECK(gs_cache_init(&c, 64 * 4 * 128, 128, 32, 4) == 0);          /* 64 sets */
    gs_cache_way *way = c.way;
    for (uint64_t line = 0; line < 300; line++) {
        int64_t i = gs_cache_alloc(&c, line, gs_cache_set(&c, line), &ev, &d);
        c.bits[i].valid = 0xf; c.bits[i].dirty = 1; c.ready[i * c.nsect] = 7;
    }
    CHECK(gs_cache_resize(&c, 10 * 4 * 128, 128, 32, 4) == 0);        /* smaller: kept, 10 sets */
    CHECK(c.way == way && c.sets == 10 && c.cap_sets == 64);
    CHECK(gs_cache_init(&fresh, 10 * 4 * 128, 128, 32, 4) == 0);
    for (size_t i = 0; i < (size_t)64 * 4; i++)
        CHECK(c.way[i].tag == 0 && c.bits[i].valid == 0 && c.bits[i].dirty == 0 && c.ready[i * c.nsect] == 0);
    for (uint64_t line = 1000; line < 1200; line += 3) {
        uint64_t s = gs_cache_set(&c, line);
        CHECK(s == gs_cache_set(&fresh, line));
        CHECK(gs_cache_find(&c, line, s) == gs_cache_find(&fresh, line, s));
        int64_t a = gs_cache_alloc(&c, line, s, &ev, &d), b = gs_cache_alloc(&fresh, line, s, &ev2, &d2);
        CHECK(a == b && ev == ev2 && d == d2);
    }
    CHECK(gs_cache_resize(&c, 64 * 4 * 128, 128, 32, 4) == 0);        /* back up to its room: still kept */
    CHECK(c.way == way && c.sets == 64);
    for (size_t i = 0; i < (size_t)64 * 4; i++) CHECK(c.way[i].tag == 0);
    CHECK(gs_cache_resize(&c, 128 * 4 * 128, 128, 32, 4) == 0);       /* larger than its room: made anew */
    CHECK(c.sets == 128 && c.cap_sets == 128);
    for (size_t i = 0; i < (size_t)128 * 4; i++) CHECK(c.way[i].tag == 0);
    gs_cache_free(&c);
    gs_cache_free(&fresh);
}

int main(void) {
    test_fastmod_matches_remainder();
    test_fastmod64_matches_remainder();
    test_cache_lru();
    test_cache_clear_touched_sets();
    test_cache_resize();
    test_calendar_out_of_order();
    test_calendar_matches_full_clearing();
    if (failures) { printf("%d failure(s)\n", failures); return 1; }
    printf("all C unit tests passed\n");
    return 0;
}
