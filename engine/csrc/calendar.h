/* calendar.h — a bandwidth resource that accepts reservations in any time order.
 *
 * gs_res (timing.h) serves requests first-come-first-served in the order they are *made*; that is
 * right when requests are made in time order (an SM's own pipes). Shared memory-system resources
 * receive requests out of time order: a request made now may arrive at an L2 slice after one made
 * later (an L2 hit from one SM vs a far-partition miss from another). A calendar keeps per-cycle
 * capacity instead: a request arriving at t takes the first capacity free at or after t, so an
 * earlier arrival is never queued behind a later one.
 *
 * Contract: gs_cal_take(c, t, cost) returns the first cycle >= t with free capacity and consumes
 * `cost` (1/256 cycle units) from there on. The calendar covers GS_CAL_SPAN cycles; history older
 * than half of that is forgotten (requests that far back are served at the oldest remembered cycle).
 */
#ifndef GS_CALENDAR_H
#define GS_CALENDAR_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GS_CAL_SPAN 16384u          /* power of two */
#define GS_CAL_FULL 256u            /* one cycle of service per cycle */

/* one cycle: the two are read together, so they share a cache line */
typedef struct gs_calcell {
    uint16_t used;                  /* fixed point */
    uint16_t skip;                  /* full cycle: distance to a later cycle that may have room (0: unknown) */
} gs_calcell;

typedef struct gs_cal {
    gs_calcell *cell;               /* per cycle (ring of GS_CAL_SPAN) */
    uint64_t base;                  /* oldest cycle remembered */
    uint64_t first_free;            /* no free capacity in [base, first_free) */
    uint64_t lo, hi;                /* only cycles in [lo, hi) can have non-zero cells (lo == hi: none) */
} gs_cal;

static inline int gs_cal_init(gs_cal *c) {
    c->cell = calloc(GS_CAL_SPAN, sizeof *c->cell);
    c->base = c->first_free = c->lo = c->hi = 0;
    return c->cell ? 0 : -1;
}
static inline void gs_cal_free(gs_cal *c) { free(c->cell); c->cell = NULL; }

/* zero the cells of cycles [a, b), b - a <= GS_CAL_SPAN: one or two runs of the ring */
static inline void gs_cal_zero(gs_cal *c, uint64_t a, uint64_t b) {
    if (b <= a) return;
    uint64_t i = a & (GS_CAL_SPAN - 1), n = b - a, first = GS_CAL_SPAN - i < n ? GS_CAL_SPAN - i : n;
    if (n <= 16) {                  /* the usual case (a calendar advanced a few cycles): no library call */
        for (uint64_t k = 0; k < n; k++) c->cell[(a + k) & (GS_CAL_SPAN - 1)] = (gs_calcell){0, 0};
        return;
    }
    memset(c->cell + i, 0, first * sizeof *c->cell);
    if (n > first) memset(c->cell, 0, (n - first) * sizeof *c->cell);
}

/* Forgetting clears only the cycles that were booked ([lo, hi)): a calendar used now and then would
 * otherwise clear half its ring on every use after a long gap. */
static inline void gs_cal_reset(gs_cal *c) {
    if (c->cell) gs_cal_zero(c, c->lo, c->hi);
    c->base = c->first_free = c->lo = c->hi = 0;
}

/* forget cycles before `to` */
static inline void gs_cal_advance(gs_cal *c, uint64_t to) {
    if (to <= c->base) return;
    gs_cal_zero(c, c->lo, to < c->hi ? to : c->hi);
    c->base = to;
    if (c->lo < to) c->lo = to;
    if (c->hi < c->lo) c->hi = c->lo;
    if (c->first_free < to) c->first_free = to;
}

static inline uint64_t gs_cal_take(gs_cal *c, uint64_t t, uint64_t cost) {
    if (t + 64 > c->base + GS_CAL_SPAN / 2) gs_cal_advance(c, t + 64 - GS_CAL_SPAN / 2);
    if (t < c->base) t = c->base;
    uint64_t k = t < c->first_free ? c->first_free : t;
    uint64_t end = c->base + GS_CAL_SPAN;
    /* jump over full cycles with the skip distances, then compress the path (union-find style) */
    uint64_t k0 = k;
    while (k < end && c->cell[k & (GS_CAL_SPAN - 1)].used >= GS_CAL_FULL) {
        uint16_t d = c->cell[k & (GS_CAL_SPAN - 1)].skip;
        k += d ? d : 1;
    }
    for (uint64_t j = k0; j < k && j < end;) {
        uint16_t *sj = &c->cell[j & (GS_CAL_SPAN - 1)].skip;
        uint64_t nj = j + (*sj ? *sj : 1);
        uint64_t dist = k - j;
        *sj = (uint16_t)(dist > 0xffff ? 0xffff : dist);
        j = nj;
    }
    if (k >= end) return k;                       /* beyond the horizon: no queueing modelled */
    uint64_t start = k;
    while (cost && k < end) {
        uint16_t *u = &c->cell[k & (GS_CAL_SPAN - 1)].used;
        uint64_t room = GS_CAL_FULL - *u;
        uint64_t take = cost < room ? cost : room;
        *u = (uint16_t)(*u + take);
        cost -= take;
        k++;
    }
    /* booked: [start, k); skip distances are written only on full, hence booked, cycles */
    if (c->lo == c->hi) { c->lo = start; c->hi = k; }
    else { if (start < c->lo) c->lo = start; if (k > c->hi) c->hi = k; }
    while (c->first_free < end && c->cell[c->first_free & (GS_CAL_SPAN - 1)].used >= GS_CAL_FULL &&
           c->first_free >= c->base) {
        uint16_t d = c->cell[c->first_free & (GS_CAL_SPAN - 1)].skip;
        c->first_free += d ? d : 1;
    }
    return start;
}

/* cycles of service already booked at or after `now` (a queue-depth figure for recording) */
static inline uint64_t gs_cal_backlog(const gs_cal *c, uint64_t now) {
    uint64_t k = now < c->base ? c->base : now, end = c->base + GS_CAL_SPAN, k0 = k;
    while (k < end && c->cell[k & (GS_CAL_SPAN - 1)].used >= GS_CAL_FULL) {
        uint16_t d = c->cell[k & (GS_CAL_SPAN - 1)].skip;
        k += d ? d : 1;
    }
    return k - k0;
}

#endif
