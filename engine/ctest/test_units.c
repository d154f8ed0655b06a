/* test_units.c — C unit tests of self-contained timing components (cache directory, calendar
 * reservations, FCFS resources), in the device-under-test style: drive the component, assert events.
 * Built and run by tests/test_c_units.py (or: cc -O1 -I../csrc -I../include test_units.c ../csrc/cache.c). */
#include <stdio.h>
#include <stdlib.h>
#include "cache.h"
#include "calendar.h"

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
        c.valid[i] = 0xf;
    }
    CHECK(gs_cache_find(&c, 0, 0) >= 0);                   /* touch 0: 1 is now least recent */
    int64_t i = gs_cache_alloc(&c, 9, 0, &ev, &dirty);
    CHECK(ev == 1);                                        /* LRU victim */
    c.dirty[i] = 0x3;
    c.valid[i] = 0xf;
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

int main(void) {
    test_cache_lru();
    test_calendar_out_of_order();
    if (failures) { printf("%d failure(s)\n", failures); return 1; }
    printf("all C unit tests passed\n");
    return 0;
}
