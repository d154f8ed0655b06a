/* sched.c — warp schedulers: greedy-then-oldest (gto), loose round robin (lrr), two-level.
 *
 * Eligibility is shared by all policies (see tsm.c); they differ only in the order of preference:
 *   gto: keep issuing from the last warp while it is eligible, else the oldest eligible warp;
 *   lrr: the first eligible warp after the last one issued, in slot order;
 *   two_level: only the `sm.two_level_active` oldest warps that are not waiting on a long-latency
 *     (memory) result compete, in round-robin order; the others wait in the pending set.
 */
#include "warpsched.h"

/* a warp ready by its scoreboard waits for its pipe or memory queue until `until`: the state accounting
 * charges `state` up to then (kept beside rdy in the sub-core, not in the warp's cold gs_tw). The cycles since it
 * was ready, or since its last throttle ended, in which it was not found throttled were cycles another warp won
 * (the scheduler looks at every sub-core every cycle while a warp of it is ready): `not_selected`, as Nsight
 * charges a warp that waits for a pipe in the cycles the pipe takes an instruction from another warp (docs/
 * calibration.md 5v) */
static inline void throttle(gs_subcore *sc, uint32_t pos, uint64_t until, uint8_t state, uint64_t now) {
    uint64_t t = sc->thr[pos];
    if (until > t) {
        /* thr is 0 from the warp's last issue (next_ready) to its first throttle, and then >= rdy: the first
         * throttle starts the count afresh (no reset needed at the issue), a later one adds the gap since the
         * previous ended */
        if (t == 0) sc->nsel[pos] = sc->rdy[pos] < now ? (uint32_t)(now - sc->rdy[pos]) : 0;
        else if (t < now) sc->nsel[pos] += (uint32_t)(now - t);
        sc->thr[pos] = until;
        sc->thr_state[pos] = state;
    }
}

/* the state of a warp held by a pipe that other warps keep busy: the memory pipe's and the SFU's (MUFU goes through
 * the MIO queue: on the H200 eight warps of MUFU on one sub-core are mio_throttle, docs/calibration.md 5u) are
 * mio_throttle, the other pipes' math_pipe_throttle (the part its own last instruction holds it for is charged
 * `wait` by the state accounting, tsm.c) */
static inline uint8_t pipe_throttle(int unit) {
    return unit == GS_U_LDST || unit == GS_U_SFU ? GS_WS_MIO_THROTTLE : GS_WS_MATH_PIPE_THROTTLE;
}

static inline int eligible(gs_tsim *ts, gs_subcore *sc, gs_tw *tw, uint64_t now, uint64_t *next) {
    if (!tw->w || tw->done || tw->blocked || tw->next_pc < 0) return 0;
    if (tw->ready_at > now) {
        if (tw->ready_at < *next) *next = tw->ready_at;
        return 0;
    }
    uint64_t uf = sc->unit_free[tw->next_unit];
    if (uf > now) {
        if (uf < *next) *next = uf;
        throttle(sc, tw->pos, uf, pipe_throttle(tw->next_unit), now);
        return 0;
    }
    uint64_t qf = sc->q_free[tw->next_q];          /* the memory queue it would enter is full */
    if (qf > now) {
        if (qf < *next) *next = qf;
        throttle(sc, tw->pos, qf, tw->next_q == GS_Q_LG ? GS_WS_LG_THROTTLE : GS_WS_MIO_THROTTLE, now);
        return 0;
    }
    (void)ts;
    return 1;
}

/* eligibility of the warp at position i of the sub-core's list, from the sub-core's own arrays (the
 * same test as eligible(), without touching the warp's gs_tw) */
static inline int eligible_at(gs_subcore *sc, uint32_t i, uint64_t now, uint64_t *next) {
    uint64_t r = sc->rdy[i];           /* GS_NEVER when the warp cannot issue at all: never lowers *next */
    if (r > now) {
        if (r < *next) *next = r;
        return 0;
    }
    uint8_t unit = sc->unit[i];
    uint64_t uf = sc->unit_free[unit];
    if (uf > now) {
        if (uf < *next) *next = uf;
        throttle(sc, i, uf, pipe_throttle(unit), now);
        return 0;
    }
    uint8_t q = sc->q[i];
    uint64_t qf = sc->q_free[q];       /* the memory queue it would enter is full (q_free[GS_Q_NONE] = 0) */
    if (qf > now) {
        if (qf < *next) *next = qf;
        throttle(sc, i, qf, q == GS_Q_LG ? GS_WS_LG_THROTTLE : GS_WS_MIO_THROTTLE, now);
        return 0;
    }
    return 1;
}

static int pick_gto(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, uint64_t now, uint64_t *next) {
    if (sc->last >= 0 && eligible_at(sc, sm->tw[sc->last].pos, now, next)) return sc->last;
    /* sc->warps is kept in launch order (tsm.c), so the first eligible warp is the oldest */
    for (uint32_t i = 0; i < sc->nwarps; i++)
        if (eligible_at(sc, i, now, next)) return sc->warps[i];
    (void)ts;
    return -1;
}

static int pick_lrr(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, uint64_t now, uint64_t *next) {
    /* slot order, starting after the last issued slot */
    int best = -1, first = -1;
    for (uint32_t i = 0; i < sc->nwarps; i++) {
        if (!eligible_at(sc, i, now, next)) continue;
        int s = sc->warps[i];
        if (s > sc->last && (best < 0 || s < best)) best = s;
        if (first < 0 || s < first) first = s;
    }
    (void)ts;
    return best >= 0 ? best : first;
}

static int pick_two_level(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, uint64_t now, uint64_t *next) {
    /* the active set: the oldest `two_level_active` warps not waiting on memory */
    uint32_t k = ts->cfg.sm_two_level_active, n = 0;
    int active[256];
    uint64_t ages[256];
    for (uint32_t i = 0; i < sc->nwarps; i++) {
        int s = sc->warps[i];
        gs_tw *tw = &sm->tw[s];
        if (!tw->w || tw->done) continue;
        if (tw->ready_at > now && tw->wait_state == GS_WS_LONG_SCOREBOARD) {
            if (tw->ready_at < *next) *next = tw->ready_at;
            continue;
        }
        /* insertion by age, keep k */
        uint32_t j = n < k ? n++ : k;
        while (j > 0 && ages[j - 1] > tw->age) { if (j < k) { active[j] = active[j - 1]; ages[j] = ages[j - 1]; } j--; }
        if (j < k) { active[j] = s; ages[j] = tw->age; }
    }
    int best = -1, first = -1;
    for (uint32_t i = 0; i < n; i++) {
        int s = active[i];
        if (!eligible(ts, sc, &sm->tw[s], now, next)) continue;
        if (s > sc->last && (best < 0 || s < best)) best = s;
        if (first < 0 || s < first) first = s;
    }
    return best >= 0 ? best : first;
}

typedef int (*pick_fn)(gs_tsim *, gs_tsm *, gs_subcore *, uint64_t, uint64_t *);
static const pick_fn POLICIES[GS_SCHED__COUNT] = {
    [GS_SCHED_GTO] = pick_gto, [GS_SCHED_LRR] = pick_lrr, [GS_SCHED_TWO_LEVEL] = pick_two_level};

int gs_sched_pick(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, uint64_t now, uint64_t *min_next) {
    *min_next = GS_NEVER;
    return POLICIES[ts->cfg.sm_scheduler](ts, sm, sc, now, min_next);   /* checked at create */
}
