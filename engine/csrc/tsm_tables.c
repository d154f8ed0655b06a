/* tsm_tables.c — an SM's tables in the simulator's huge-page arena (tsm_tables.h, arena.h). */
#include "timing.h"
#include "tsm_tables.h"

/* the scoreboards every warp slot gets when the simulator is made (a launch with more grows them, once) */
#define GS_SB_SLOTS 128
#define GS_SB_PREDS 32

/* a zeroed table of n entries of `size` bytes from the simulator's arena (whole host cache lines); NULL: no memory */
static void *tbl(gs_tsim *ts, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) return NULL;
    return gs_arena_zalloc(&ts->arena, n && size ? n * size : 1);
}

int gs_tsm_scoreboards(gs_tsim *ts, gs_tw *tw, size_t n, size_t np) {
    gs_arena *a = &ts->arena;
    if (!tw->reg_ready || tw->sb_cap[0] < n) {
        gs_arena_free(a, tw->reg_ready, (size_t)tw->sb_cap[0] * sizeof *tw->reg_ready);
        gs_arena_free(a, tw->reg_kind, (size_t)tw->sb_cap[0] * sizeof *tw->reg_kind);
        tw->reg_ready = gs_arena_zalloc(a, n * sizeof *tw->reg_ready);
        tw->reg_kind = gs_arena_zalloc(a, n * sizeof *tw->reg_kind);
        tw->sb_cap[0] = (uint32_t)n;
        if (!tw->reg_ready || !tw->reg_kind) { tw->sb_cap[0] = 0; return -1; }
    }
    if (!tw->pred_ready || tw->sb_cap[1] < np) {
        gs_arena_free(a, tw->pred_ready, (size_t)tw->sb_cap[1] * sizeof *tw->pred_ready);
        gs_arena_free(a, tw->pred_use, (size_t)tw->sb_cap[1] * sizeof *tw->pred_use);
        tw->pred_ready = gs_arena_zalloc(a, np * sizeof *tw->pred_ready);
        tw->pred_use = gs_arena_zalloc(a, np * sizeof *tw->pred_use);
        tw->sb_cap[1] = (uint32_t)np;
        if (!tw->pred_ready || !tw->pred_use) { tw->sb_cap[1] = 0; return -1; }
    }
    return 0;
}

int gs_tsm_tables(gs_tsim *ts, gs_tsm *sm) {
    const gs_tconfig *c = &ts->cfg;
    int bad;
    sm->tw = tbl(ts, c->sm_max_warps, sizeof *sm->tw);
    sm->ctas = tbl(ts, c->sm_max_ctas, sizeof *sm->ctas);
    sm->sc = tbl(ts, c->sm_subcores, sizeof *sm->sc);
    sm->mshr = tbl(ts, c->l1_mshrs, sizeof *sm->mshr);
    sm->qring = tbl(ts, (size_t)GS_Q__COUNT * c->l1_lsu_queue, sizeof *sm->qring);
    sm->done_mask = tbl(ts, (c->sm_max_warps + 63) / 64, sizeof *sm->done_mask);
    sm->resident_mask = tbl(ts, (c->sm_max_warps + 63) / 64, sizeof *sm->resident_mask);
    gs_calcell *out = tbl(ts, GS_CAL_SPAN, sizeof *out), *in = tbl(ts, GS_CAL_SPAN, sizeof *in);
    bad = !sm->tw || !sm->ctas || !sm->sc || !sm->mshr || !sm->qring || !sm->done_mask || !sm->resident_mask ||
          !out || !in;
    if (!bad) { gs_cal_init_with(&sm->icnt.out, out); gs_cal_init_with(&sm->icnt.in, in); }
    uint32_t per = c->sm_max_warps / c->sm_subcores;      /* each sub-core's warp capacity */
    for (uint32_t k = 0; k < c->sm_subcores && !bad; k++) {
        gs_subcore *sc = &sm->sc[k];
        sc->rdy = tbl(ts, per, sizeof *sc->rdy);
        sc->unit = tbl(ts, per, sizeof *sc->unit);
        sc->q = tbl(ts, per, sizeof *sc->q);
        sc->thr = tbl(ts, per, sizeof *sc->thr);
        sc->thr_state = tbl(ts, per, sizeof *sc->thr_state);
        sc->own = tbl(ts, (size_t)per * GS_OWN_UNITS, sizeof *sc->own);
        sc->nsel = tbl(ts, per, sizeof *sc->nsel);
        sc->warps = tbl(ts, per, sizeof *sc->warps);
        bad = !sc->rdy || !sc->unit || !sc->q || !sc->thr || !sc->thr_state || !sc->own || !sc->nsel || !sc->warps;
    }
    if (!bad && c->sm_icache == GS_ICACHE_MODEL)
        bad = gs_cache_init(&sm->icache, (uint64_t)c->sm_icache_kib * 1024, c->sm_icache_line_bytes,
                            c->sm_icache_line_bytes, c->sm_icache_assoc) != 0;
    if (!bad && c->sm_fetch_insts) {
        gs_calcell *f = tbl(ts, GS_CAL_SPAN, sizeof *f);
        bad = !f;
        if (f) gs_cal_init_with(&sm->fetch, f);
    }
    for (uint32_t w = 0; w < c->sm_max_warps && !bad; w++) bad = gs_tsm_scoreboards(ts, &sm->tw[w], GS_SB_SLOTS, GS_SB_PREDS);
    return bad ? -1 : 0;
}
