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
 *
 * Forgetting costs nothing per cycle: a cell carries the lap of the cycle it was written for (the
 * cycle's bits above the ring's), and a cell of another lap reads as empty, so the ring is never
 * cleared as time moves on. Laps are 8 bits: before the oldest cell that may still hold a value falls
 * GS_CAL_LAP_GUARD rings behind, one pass empties the cells of other laps (a cell of a cycle 256 rings
 * back would otherwise read as current). The values read are those of a ring cleared cycle by cycle.
 */
#ifndef GS_CALENDAR_H
#define GS_CALENDAR_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GS_CAL_SPAN 16384u          /* power of two */
#define GS_CAL_SHIFT 14u            /* log2(GS_CAL_SPAN) */
#define GS_CAL_FULL 256u            /* one cycle of service per cycle */
#define GS_CAL_LAP_GUARD 128u       /* rings (< 255 - 1) a written cell may fall behind before a sweep */

/* one cycle in 32 bits: used (fixed point, 0..256) in bits 0-8, skip (a full cycle's distance to a later
 * cycle that may have room, 0: unknown; at most GS_CAL_SPAN) in bits 9-23, the cycle's lap in bits 24-31 */
typedef uint32_t gs_calcell;
#define GS_CALC_USED(v) ((v) & 0x1ffu)
#define GS_CALC_SKIP(v) (((v) >> 9) & 0x7fffu)

typedef struct gs_cal {
    gs_calcell *cell;               /* per cycle (ring of GS_CAL_SPAN) */
    uint64_t base;                  /* oldest cycle remembered */
    uint64_t first_free;            /* no free capacity in [base, first_free) */
    uint64_t lo, hi;                /* only cycles in [lo, hi) can have cells of their own lap (lo == hi: none) */
} gs_cal;

static inline int gs_cal_init(gs_cal *c) {
    c->cell = calloc(GS_CAL_SPAN, sizeof *c->cell);
    c->base = c->first_free = c->lo = c->hi = 0;
    return c->cell ? 0 : -1;
}
static inline void gs_cal_free(gs_cal *c) { free(c->cell); c->cell = NULL; }
/* the same on GS_CAL_SPAN zeroed cells the caller owns (and gives back itself: no gs_cal_free) */
static inline void gs_cal_init_with(gs_cal *c, gs_calcell *cells) {
    c->cell = cells;
    c->base = c->first_free = c->lo = c->hi = 0;
}

static inline uint32_t gs_cal_lap(uint64_t k) { return (uint32_t)(k >> GS_CAL_SHIFT) & 0xffu; }
/* the cell of cycle k as a value (0 when it holds another lap's) */
static inline uint32_t gs_cal_get(const gs_cal *c, uint64_t k) {
    uint32_t v = c->cell[k & (GS_CAL_SPAN - 1)];
    return (v >> 24) == gs_cal_lap(k) ? v : 0;
}
static inline void gs_cal_put(gs_cal *c, uint64_t k, uint32_t used, uint32_t skip) {
    c->cell[k & (GS_CAL_SPAN - 1)] = gs_cal_lap(k) << 24 | skip << 9 | used;
}
static inline uint32_t gs_cal_used(const gs_cal *c, uint64_t k) { return GS_CALC_USED(gs_cal_get(c, k)); }
static inline uint32_t gs_cal_skip(const gs_cal *c, uint64_t k) { return GS_CALC_SKIP(gs_cal_get(c, k)); }

/* empty the ring's cells of cycles [a, b) (all of them when b - a >= GS_CAL_SPAN) */
static inline void gs_cal_zero(gs_cal *c, uint64_t a, uint64_t b) {
    if (b <= a) return;
    uint64_t n = b - a, i = a & (GS_CAL_SPAN - 1);
    if (n >= GS_CAL_SPAN) memset(c->cell, 0, GS_CAL_SPAN * sizeof *c->cell);
    else if (i + n <= GS_CAL_SPAN) memset(c->cell + i, 0, n * sizeof *c->cell);
    else { memset(c->cell + i, 0, (GS_CAL_SPAN - i) * sizeof *c->cell); memset(c->cell, 0, (i + n - GS_CAL_SPAN) * sizeof *c->cell); }
}

/* A new launch: every cell written since the last reset (all in [lo, hi)) emptied. */
static inline void gs_cal_reset(gs_cal *c) {
    if (c->cell) gs_cal_zero(c, c->lo, c->hi);
    c->base = c->first_free = c->lo = c->hi = 0;
}

/* forget cycles before `to`. Invariant afterwards: base - lo < GS_CAL_LAP_GUARD rings, so a cell written
 * for a cycle >= lo and read for a cycle in [base, base + GS_CAL_SPAN) of another lap is at most
 * GS_CAL_LAP_GUARD + 2 < 256 rings older: its lap differs. */
static inline void gs_cal_advance(gs_cal *c, uint64_t to) {
    if (to <= c->base) return;
    c->base = to;
    if (c->first_free < to) c->first_free = to;
    /* (to <= lo: every written cycle is still ahead, e.g. the first booking after a reset was made for a cycle
     * later than the take that moves the ring now; nothing is old enough to sweep, and to - lo would wrap) */
    if (c->lo == c->hi || to <= c->lo || to - c->lo < (uint64_t)GS_CAL_LAP_GUARD * GS_CAL_SPAN) return;
    if (c->hi <= to) {                  /* every written cycle is forgotten */
        gs_cal_zero(c, c->lo, c->hi);
        c->lo = c->hi = to;
        return;
    }
    /* cycles in [to, hi) stay (hi - to < a ring, and the last advance left base - lo under the guard, so
     * lo is less than GS_CAL_LAP_GUARD + 1 rings before `to`): keep the cells of their own laps */
    for (uint64_t k = to; k < to + GS_CAL_SPAN; k++)
        if ((c->cell[k & (GS_CAL_SPAN - 1)] >> 24) != gs_cal_lap(k)) c->cell[k & (GS_CAL_SPAN - 1)] = 0;
    c->lo = to;
}

/* first_free past full cycles (the end of every take) */
static inline void gs_cal_settle_free(gs_cal *c, uint64_t end) {
    uint32_t v;
    while (c->first_free < end && GS_CALC_USED(v = gs_cal_get(c, c->first_free)) >= GS_CAL_FULL &&
           c->first_free >= c->base) {
        uint32_t d = GS_CALC_SKIP(v);
        c->first_free += d ? d : 1;
    }
}

/* books `cost` units from cycle k on, filling each cycle up to GS_CAL_FULL (not past end); returns the cycle
 * after the last one booked */
static inline uint64_t gs_cal_book(gs_cal *c, uint64_t k, uint64_t end, uint64_t cost) {
    while (cost && k < end) {
        uint32_t vk = gs_cal_get(c, k), uk = GS_CALC_USED(vk);
        uint64_t room = GS_CAL_FULL - uk;
        uint64_t take = cost < room ? cost : room;
        gs_cal_put(c, k, uk + (uint32_t)take, GS_CALC_SKIP(vk));
        cost -= take;
        k++;
    }
    return k;
}

/* the written range [lo, hi) grows to cover the booked cycles [start, k) */
static inline void gs_cal_widen(gs_cal *c, uint64_t start, uint64_t k) {
    if (c->lo == c->hi) { c->lo = start; c->hi = k; }
    else { if (start < c->lo) c->lo = start; if (k > c->hi) c->hi = k; }
}

static inline __attribute__((always_inline)) uint64_t gs_cal_take(gs_cal *c, uint64_t t, uint64_t cost) {
    int moved = 0;
    if (t + 64 > c->base + GS_CAL_SPAN / 2) { gs_cal_advance(c, t + 64 - GS_CAL_SPAN / 2); moved = 1; }
    if (t < c->base) t = c->base;
    uint64_t k = t < c->first_free ? c->first_free : t;
    uint64_t end = c->base + GS_CAL_SPAN;
    /* the usual request: its first candidate cycle has room. What the general path below does then, in short:
     * no skip walk (nothing to jump over), the booking from k on. Its last step (first_free past full cycles)
     * can change something only when the booking started at first_free or the ring moved (base, end): every
     * take ends with that step done, and nothing else writes a cell's use in between. */
    if (k < end && cost) {
        uint32_t v = gs_cal_get(c, k), u = GS_CALC_USED(v);
        if (u < GS_CAL_FULL) {
            uint64_t start = k;
            if (u + cost <= GS_CAL_FULL) {
                gs_cal_put(c, k, u + (uint32_t)cost, GS_CALC_SKIP(v));
                k++;
            } else {
                k = gs_cal_book(c, k, end, cost);
            }
            gs_cal_widen(c, start, k);
            if (moved || start == c->first_free) gs_cal_settle_free(c, end);
            return start;
        }
    }
    /* jump over full cycles with the skip distances, then compress the path (union-find style) */
    uint64_t k0 = k;
    uint32_t v;
    while (k < end && GS_CALC_USED(v = gs_cal_get(c, k)) >= GS_CAL_FULL) {
        uint32_t d = GS_CALC_SKIP(v);
        k += d ? d : 1;
    }
    for (uint64_t j = k0; j < k && j < end;) {
        uint32_t vj = gs_cal_get(c, j), sj = GS_CALC_SKIP(vj);
        uint64_t nj = j + (sj ? sj : 1);
        uint64_t dist = k - j;                     /* <= GS_CAL_SPAN: k <= end */
        gs_cal_put(c, j, GS_CALC_USED(vj), (uint32_t)dist);
        j = nj;
    }
    if (k >= end) return k;                       /* beyond the horizon: no queueing modelled */
    uint64_t start = k;
    k = gs_cal_book(c, k, end, cost);
    /* booked: [start, k); skip distances are written only on full, hence booked, cycles */
    gs_cal_widen(c, start, k);
    gs_cal_settle_free(c, end);
    return start;
}

/* the cell a take at t will look at first (t, or first_free when later) into the host cache; changes nothing */
static inline void gs_cal_prefetch(const gs_cal *c, uint64_t t) {
    uint64_t k = t < c->first_free ? c->first_free : t;
    __builtin_prefetch(&c->cell[k & (GS_CAL_SPAN - 1)], 1, 1);
}

/* cycles of service already booked at or after `now` (a queue-depth figure for recording) */
static inline uint64_t gs_cal_backlog(const gs_cal *c, uint64_t now) {
    uint64_t k = now < c->base ? c->base : now, end = c->base + GS_CAL_SPAN, k0 = k;
    uint32_t v;
    while (k < end && GS_CALC_USED(v = gs_cal_get(c, k)) >= GS_CAL_FULL) {
        uint32_t d = GS_CALC_SKIP(v);
        k += d ? d : 1;
    }
    return k - k0;
}

#endif
