/* tmem.c — the LSU: timing of memory instructions through the memory components, in the order a
 * request travels: coalescer and shared-memory banks (l1.c), L1 directory and MSHRs, interconnect
 * ports (icnt.h), L2 slices (l2.c) and DRAM channels (dram.c).
 *
 * The functional core has already performed the access and left the per-lane addresses in the warp
 * (w->maddr, mmask, msize, mspace, mwrite, matomic). Here we only compute when it completes:
 *   global/local: lanes -> 32-byte sectors of 128-byte lines (coalescing); one tag lookup per line on
 *     the SM's LSU; per sector an L1 hit (ready when the sector's data is there: a hit on a sector in
 *     flight waits for it, an MSHR merge) or a miss that takes an MSHR entry and travels SM port ->
 *     interconnect -> L2 slice (address hash) -> [DRAM channel] -> back; loads complete when their last
 *     sector is back, stores when the L2 has accepted their data (what a fence waits for); an exited
 *     warp drains only until its stores have left the SM's port (Nsight's drain: ~1 warp-cycle per
 *     instruction on coalesced streaming kernels, far below an L2 round trip);
 *   shared: wavefronts = the largest number of distinct 4-byte words any bank must deliver;
 *   atomics: global ones execute in the slice's atomic unit (one lane operation at a time), shared ones
 *     serialise per address in the shared-memory pipe.
 */
#include <stdlib.h>
#include "timing.h"

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* 1 in record.mem_sample_period sectors of each SM is sampled (full recording) */
static inline int sampled(gs_tsim *ts, gs_tsm *sm) {
    return ts->rec.opts.level >= 2 && !(sm->msample_count++ % ts->cfg.record_mem_sample_period);
}

static void sample(gs_tsim *ts, gs_tsm *sm, uint16_t slot, uint32_t pc, uint64_t addr, uint64_t t0, uint64_t t_l1,
                   uint64_t t_icnt, uint64_t t_l2, uint64_t t_dram, uint64_t t_ret, int write, int level) {
    gs_rec_msample r = {0};
    r.t_issue = t0; r.t_l1 = t_l1; r.t_icnt = t_icnt; r.t_l2 = t_l2; r.t_dram = t_dram; r.t_return = t_ret;
    r.addr = addr; r.pc = pc; r.sm = (uint16_t)sm->id; r.slot = slot;
    r.size = (uint16_t)ts->cfg.l1_sector_bytes; r.write = (uint8_t)write; r.hit_level = (uint8_t)level;
    gs_rec_on_memory_sample(&ts->rec, &r);
}

/* global and local memory through L1. Sectors that go beyond the SM become MISS nodes of the SM's
 * log (pending.h), resolved in the memory phase (gs_tmem_resolve); the completion may be a marker. */
static uint64_t global_access(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, int write,
                              int atomic, int cache_l1, uint64_t *leave) {
    const gs_tconfig *cf = &ts->cfg;
    gs_worker *wk = sm->wk;
    gs_pend *pd = &sm->pend;
    gs_warp *w = tw->w;
    const gs_ctx *cx = &wk->ctx;
    uint32_t lb = cf->l1_line_bytes, sb = cf->l1_sector_bytes;
    int ext = cx->nmext > 0;
    uint32_t size = ext ? cx->mext_size : (w->msize ? w->msize : 4);
    uint32_t nacc = ext ? cx->nmext : (uint32_t)__builtin_popcount(w->mmask);
    uint32_t pc = (uint32_t)(x - ts->prog->x);
    gs_coal co;
    gs_coalesce(&co, w->maddr, w->mmask, ext ? cx->mext : NULL, nacc, size, ts->l1_line_shift, ts->l1_sector_shift, atomic);
    const int l1 = cache_l1 && sm->l1.sets;
    uint64_t l1set[GS_COAL_MAX];                          /* the lines' L1 sets, asked for all at once (host cache) */
    if (l1)
        for (uint32_t i = 0; i < co.nl; i++) {
            l1set[i] = gs_cache_set(&sm->l1, co.lines[i]);
            uint64_t base = l1set[i] * sm->l1.assoc;
            __builtin_prefetch(&sm->l1.way[base], 1, 3);
            __builtin_prefetch(&sm->l1.bits[base], 1, 3);
            const uint64_t *rd = &sm->l1.ready[base * sm->l1.nsect];   /* the set's sector times (a hit reads one) */
            __builtin_prefetch(rd, 1, 3);
            __builtin_prefetch(rd + (size_t)sm->l1.assoc * sm->l1.nsect - 1, 1, 3);
        }
    /* tag lookups: one per line per request. A fragment access (wmma.load/store) is issued as the driver's
     * JIT issues it: the tile's rows in requests of 8 rows x 4 lanes, each lane the widest vector the JIT
     * uses for fragments with a run-time stride (alignment unknown): 32-bit loads, 64-bit stores
     * (validation/sass/hgemm_wmma.sm90.jit.sass: 4 LDG.E per 16x16 f16 fragment, 8 rows x 16 bytes each,
     * B transposed in registers by MOVM; STG.E.64) */
    uint32_t lookups = ext ? gs_fragment_lookups(cx->mfrag_base, cx->mfrag_pitch, cx->mfrag_rows, cx->mfrag_row_bytes,
                                                 4 * (write ? 8 : 4), lb) : co.nl;
    wk->st.l1_requests += lookups;
    /* the LSU is busy for the tag lookups (l1.lookups_per_cycle lines per cycle) or the data array's
     * wavefronts, whichever takes longer (the H200: 1.07 cycles per request of one line or of two lines
     * without a bank conflict, 8 per request of 8 lines at one offset: calibration.md 5k). A fragment's
     * JIT requests read 8 rows at one offset, one wavefront per line: its lookups. */
    uint64_t busy = ((uint64_t)lookups << GS_FIX) / cf->l1_lookups_per_cycle;
    uint64_t wf = (uint64_t)(ext ? lookups : gs_coal_wavefronts(&co, lb, sb)) << GS_FIX;
    uint64_t t_tag = gs_res_take(&sm->lsu, now + 1, busy > wf ? busy : wf);
    /* a hit is there the L1's hit latency after its request starts; a fragment's JIT requests follow one
     * another through the data array (one wavefront per cycle), so its last one starts all but its own
     * wavefronts after the first: a 16x16 f16 fragment at a 1 KiB pitch 24 cycles later */
    uint64_t hit_lat = cf->l1_hit_latency_cycles;
    uint32_t req_wf = (uint32_t)(wf >> GS_FIX);          /* the data wavefronts of one (the last) request */
    if (ext && !write) {
        uint32_t nreq = gs_frag_requests(cx->mfrag_rows, cx->mfrag_row_bytes);
        if (nreq > 1) { hit_lat += lookups - lookups / nreq; req_wf = lookups / nreq; }
    }
    /* l1.wavefront_latency_cycles: its own wavefronts after the first delay the request's data */
    if (!write && req_wf > 1) hit_lat += (uint64_t)(req_wf - 1) * cf->l1_wavefront_latency_cycles;
    uint64_t done = t_tag + hit_lat;                     /* the known part of the completion */
    uint64_t pend = 0;                                   /* the first pending node of the request (a marker), 0: none */
    uint32_t last_p = 0;                                 /* and its last */
    uint32_t first_w = UINT32_MAX, last_w = 0;            /* this store's MISS nodes (LEAVE node below) */
    for (uint32_t i = 0; i < co.nl; i++) {
        uint64_t line = co.lines[i];
        int64_t idx = l1 ? gs_l1_lookup_set(&sm->l1, line, l1set[i], !write && !atomic) : -1;
        for (uint32_t sec = 0; sec < 8; sec++) {
            if (!(co.masks[i] & (1u << sec))) continue;
            uint64_t addr = line * lb + (uint64_t)sec * sb;
            wk->st.l1_sectors++;
            sm->iv_l1_acc++;
            if (write) wk->st.l1_store_sectors++;
            int in_l1 = idx >= 0 && (sm->l1.bits[idx].valid & (1u << sec));
            uint64_t *ready = in_l1 || (idx >= 0 && !write && !atomic) ? &sm->l1.ready[(size_t)idx * sm->l1.nsect + sec] : NULL;
            if (!write && !atomic && in_l1) {
                uint64_t r = *ready;
                wk->st.l1_hits++;
                sm->iv_l1_hits++;
                if (gs_is_pend(r)) {                    /* the sector is in flight from this quantum's miss */
                    gs_pnode *n = gs_pend_node(pd);
                    if (!n) return GS_PEND - 1;
                    n->kind = GS_PN_HIT; n->t = t_tag; n->add = (uint32_t)hit_lat; n->a = r;
                    n->addr = addr; n->now = now; n->slot = tw->slot; n->pc = pc; n->sampled = (uint8_t)sampled(ts, sm);
                    uint64_t hm = gs_pend_marker(pd, n);  /* (n moves when the log grows) */
                    if (!pend) pend = hm;
                    last_p = (uint32_t)(hm - GS_PEND);
                    continue;
                }
                if (r > t_tag) wk->st.l1_mshr_merges++;
                uint64_t t = max64(t_tag + hit_lat, r);
                if (t > done) done = t;
                if (sampled(ts, sm)) sample(ts, sm, tw->slot, pc, addr, now, t_tag, 0, 0, 0, t, 0, 1);
                continue;
            }
            if (!write && !atomic) { wk->st.l1_misses++; sm->iv_l1_miss++; }
            gs_pnode *n = gs_pend_node(pd);
            if (!n) return GS_PEND - 1;
            n->kind = GS_PN_MISS; n->write = (uint8_t)write; n->atomic = (uint8_t)atomic;
            pd->reads += !write;
            n->lane_ops = atomic ? co.lane_ops[i][sec] : 1; n->same_ops = atomic ? co.same_ops[i][sec] : 1;
            n->bytes_w = co.bytes_w[i][sec]; n->req = co.masks[i];
            n->addr = addr; n->now = now; n->t = t_tag; n->slot = tw->slot; n->pc = pc; n->sampled = (uint8_t)sampled(ts, sm);
            uint64_t mk = gs_pend_marker(pd, n);
            if (write) {
                if (first_w == UINT32_MAX) first_w = (uint32_t)(mk - GS_PEND);
                last_w = (uint32_t)(mk - GS_PEND);
            }
            if (!write && idx >= 0 && !atomic) {        /* the sector fills when the data is back */
                sm->l1.bits[idx].valid |= (uint8_t)(1u << sec);
                *ready = mk;
                n->wb = ready;
            } else if (write && in_l1) {
                *ready = gs_pend_max(pd, *ready, 0, t_tag);
                if (gs_is_pend(*ready) && *ready != mk) pd->n[*ready - GS_PEND].wb = ready;
            }
            /* the instruction completes when the data is back (+2) or the L2 accepted the store */
            if (!pend) pend = mk;
            last_p = (uint32_t)(mk - GS_PEND);
        }
    }
    /* the completion: the latest of `done` and the request's MISS (+2 for a read) and HIT nodes, pend .. last_p
     * (one REQ node: what a chain of MAX nodes, one or two per sector, would give) */
    uint64_t r = done;
    if (pend) {
        gs_pnode *q = gs_pend_node(pd);
        if (!q) return GS_PEND - 1;
        q->kind = GS_PN_REQ; q->a = pend - GS_PEND; q->b = last_p; q->t = done;
        r = gs_pend_marker(pd, q);
    }
    *leave = r;
    if (first_w != UINT32_MAX && !cf->l2_store_ack) {    /* with store acks (GPGPU-Sim) the warp waits for them */
        gs_pnode *n = gs_pend_node(pd);
        if (!n) return GS_PEND - 1;
        n->kind = GS_PN_LEAVE; n->a = first_w; n->b = last_w;
        *leave = gs_pend_marker(pd, n);
    }
    return r;
}

/* A read miss's MSHR entry (a ring: the count of misses mod l1.mshrs); its departure waits for the entry */
static inline uint64_t *mshr_take(const gs_tconfig *cf, gs_tsm *sm, uint32_t *next, uint64_t *depart) {
    uint64_t *mshr = &sm->mshr[*next];
    if (++*next == cf->l1_mshrs) *next = 0;
    if (*mshr > *depart) *depart = *mshr;
    return mshr;
}

/* a node other than a miss, from the earlier nodes it names (merges counted in st) */
static inline void resolve_other(gs_pend *pd, gs_pnode *n, gs_tsim *ts, gs_tsm *sm, gs_tstats *st) {
    switch (n->kind) {
    case GS_PN_HIT: {
        uint64_t r = gs_pend_val(pd, n->a);
        if (r > n->t) st->l1_mshr_merges++;
        n->val = max64(n->t + n->add, r);
        if (n->sampled) sample(ts, sm, n->slot, n->pc, n->addr, n->now, n->t, 0, 0, 0, n->val, 0, 1);
        break;
    }
    case GS_PN_REQ: {
        uint64_t v = n->t;
        for (uint64_t j = n->a; j <= n->b; j++) {
            const gs_pnode *o = &pd->n[j];
            uint64_t c = o->kind == GS_PN_MISS ? o->val + (o->write ? 0 : 2) : o->kind == GS_PN_HIT ? o->val : 0;
            if (c > v) v = c;
        }
        n->val = v;
        break;
    }
    case GS_PN_LEAVE: {
        uint64_t v = 0;
        for (uint64_t j = n->a; j <= n->b; j++)
            if (pd->n[j].kind == GS_PN_MISS && pd->n[j].write && pd->n[j].b > v) v = pd->n[j].b;
        n->val = v;
        break;
    }
    default:
        n->val = max64(gs_pend_val(pd, n->a) + n->add, gs_pend_val(pd, n->b));
        break;
    }
}

/* the L2 place of the MISS node RA nodes ahead is computed and its set, port calendar and coalescing entry asked
 * from the host cache while a node runs (they are in no host cache: 96 slices' directories); RB nodes ahead, its
 * set's tags arrived, the line record it will touch (gs_tmem_resolve, gs_tmem_shared) */
enum { RA = 8, RB = 4, RING = 16 };

/* the L2 access a miss makes */
static inline int l2_kind(const gs_pnode *n) { return n->atomic ? GS_L2_ATOMIC : n->write ? GS_L2_WRITE : GS_L2_READ; }

/* miss f's place into pl, and its set and port cell (around cycle t, its arrival) asked for */
static inline void place_ahead(gs_tsim *ts, const gs_tsm *sm, const gs_pnode *f, gs_l2place *pl, uint64_t t) {
    gs_l2_place(&ts->l2, sm->part, f->addr, pl);
    gs_l2_prefetch(&ts->l2, pl, sm->gpc, t, l2_kind(f));
}

/* the first RA nodes' places (their arrival estimated from the lookup: l2_eta later) */
static void place_first(gs_tsim *ts, const gs_tsm *sm, const gs_pend *pd, gs_l2place *ring, uint64_t l2_eta) {
    for (uint32_t j = 0; j < RA && j < pd->count; j++)
        if (pd->n[j].kind == GS_PN_MISS) place_ahead(ts, sm, &pd->n[j], &ring[j % RING], pd->n[j].t + l2_eta);
}

/* The memory phase for one SM: its log's nodes in order (misses through MSHRs, interconnect, L2 and
 * DRAM, as the serial engine issued them). st: where its L1 merges are counted (the thread's). With several
 * threads the phase is split in three (gs_tmem_pre, gs_tmem_shared, gs_tmem_post) so that only the shared
 * part is serial; this is the whole of it in one pass (one thread, light quanta, and full recording, whose
 * memory samples must reach the tables SM by SM). */
void gs_tmem_resolve(gs_tsim *ts, gs_tsm *sm, gs_tstats *st) {
    const gs_tconfig *cf = &ts->cfg;
    gs_pend *pd = &sm->pend;
    uint64_t hit_lat = cf->l1_hit_latency_cycles;
    gs_l2place ring[RING];
    uint64_t l2_eta = hit_lat / 2 + ts->icnt.latency;       /* a miss reaches the L2 about this long after its lookup */
    uint64_t in_eta = l2_eta + cf->l2_hit_latency_cycles + ts->icnt.latency;   /* and an L2 hit is back */
    place_first(ts, sm, pd, ring, l2_eta);
    for (uint32_t k = 0; k < pd->count; k++) {
        gs_pnode *n = &pd->n[k];
        /* a later node's write-back target into the host cache while this one is resolved (scattered
         * over the SM's scoreboards and L1 directory: a host cache miss otherwise) */
        if (k + 4 < pd->count && pd->n[k + 4].wb) __builtin_prefetch(pd->n[k + 4].wb, 1, 1);
        if (k + RA < pd->count && pd->n[k + RA].kind == GS_PN_MISS) {
            gs_pnode *f = &pd->n[k + RA];
            place_ahead(ts, sm, f, &ring[(k + RA) % RING], f->t + l2_eta);
            gs_cal_prefetch(&sm->icnt.out, f->t + hit_lat / 2);    /* the SM's output port, where it will book */
            gs_cal_prefetch(&sm->icnt.in, f->t + in_eta);           /* its input port, where an L2 hit's answer books */
        }
        if (k + RB < pd->count && pd->n[k + RB].kind == GS_PN_MISS)
            gs_l2_prefetch_rec(&ts->l2, &ring[(k + RB) % RING], pd->n[k + RB].addr, pd->n[k + RB].t + l2_eta, l2_kind(&pd->n[k + RB]));
        if (n->kind == GS_PN_MISS) {
            /* an MSHR entry (loads and atomics wait for data; stores only need the port) */
            uint64_t depart = n->t + hit_lat / 2;
            uint64_t *mshr = n->write ? NULL : mshr_take(cf, sm, &sm->mshr_next, &depart);
            uint64_t t_out, t_dram = 0;
            uint64_t t_l2in = gs_icnt_send(&ts->icnt, &sm->icnt, depart, n->write, &t_out);
            uint64_t t_l2 = gs_l2_access_placed(&ts->l2, sm->part, sm->gpc, &ring[k % RING], n->addr, t_l2in,
                                         l2_kind(n),
                                         n->lane_ops, n->same_ops, &t_dram, n->bytes_w, n->req);
            uint64_t t_in = gs_icnt_return(&ts->icnt, &sm->icnt, t_l2, n->write);
            if (mshr) *mshr = t_in;
            n->val = n->write && !cf->l2_store_ack ? t_l2 : t_in;   /* a store: accepted, or acknowledged */
            if (n->write) n->b = t_out + 1;                       /* left the SM's port (LEAVE nodes) */
            if (n->sampled)
                sample(ts, sm, n->slot, n->pc, n->addr, n->now, n->t, t_out, t_l2in, t_dram,
                       n->write ? t_l2 : t_in + 2, n->write, t_dram ? 3 : 2);
        } else {
            resolve_other(pd, n, ts, sm, st);
        }
        if (n->wb && *n->wb == GS_PEND + k) *n->wb = n->val;
    }
}

/* The SM's own part before the shared memory system, on the thread that ran its SM phase (so that it runs
 * beside the other SMs' serial parts): each miss's MSHR entry and its booking of the SM's output port, in
 * issue order as gs_tmem_resolve makes them; a miss's arrival at the L2 is left in its `a`, a store's
 * departure from the port in its `b`. Returns 0 (nothing done: gs_tmem_resolve does it all) when its read
 * misses are more than the MSHRs, so that an entry would be reused within the quantum and wait for an answer
 * the L2 has not given yet. No memory samples here: the split runs without full recording. */
int gs_tmem_pre(gs_tsim *ts, gs_tsm *sm) {
    const gs_tconfig *cf = &ts->cfg;
    gs_pend *pd = &sm->pend;
    if (pd->reads > cf->l1_mshrs) return 0;
    uint64_t hit_lat = cf->l1_hit_latency_cycles;
    sm->mshr_post = sm->mshr_next;                  /* where gs_tmem_post writes their answers */
    for (uint32_t k = 0; k < pd->count; k++) {
        gs_pnode *n = &pd->n[k];
        if (n->kind != GS_PN_MISS) continue;
        uint64_t depart = n->t + hit_lat / 2, t_out;
        if (!n->write) mshr_take(cf, sm, &sm->mshr_next, &depart);
        n->a = gs_icnt_send(&ts->icnt, &sm->icnt, depart, n->write, &t_out);
        if (n->write) n->b = t_out + 1;
    }
    return 1;
}

/* The shared part of an SM's memory phase after gs_tmem_pre (serial, SM by SM): each miss through its L2
 * slice (and DRAM) from its arrival; the L2's answer is left in its `val` for gs_tmem_post. */
void gs_tmem_shared(gs_tsim *ts, gs_tsm *sm) {
    const gs_tconfig *cf = &ts->cfg;
    gs_pend *pd = &sm->pend;
    gs_l2place ring[RING];
    uint64_t l2_eta = cf->l1_hit_latency_cycles / 2 + ts->icnt.latency;
    place_first(ts, sm, pd, ring, l2_eta);
    for (uint32_t k = 0; k < pd->count; k++) {
        gs_pnode *n = &pd->n[k];
        if (k + RA < pd->count && pd->n[k + RA].kind == GS_PN_MISS) {
            gs_pnode *f = &pd->n[k + RA];
            place_ahead(ts, sm, f, &ring[(k + RA) % RING], f->a);
        }
        if (k + RB < pd->count && pd->n[k + RB].kind == GS_PN_MISS)
            gs_l2_prefetch_rec(&ts->l2, &ring[(k + RB) % RING], pd->n[k + RB].addr, pd->n[k + RB].a, l2_kind(&pd->n[k + RB]));
        if (n->kind != GS_PN_MISS) continue;
        uint64_t t_dram = 0;
        n->val = gs_l2_access_placed(&ts->l2, sm->part, sm->gpc, &ring[k % RING], n->addr, n->a,
                                     l2_kind(n),
                                     n->lane_ops, n->same_ops, &t_dram, n->bytes_w, n->req);
    }
}

/* The SM's own part after gs_tmem_shared (any thread, beside the next SMs' shared parts): the answers
 * through its input port, the MSHR entries they free, the other nodes and the write-backs, in issue order. */
void gs_tmem_post(gs_tsim *ts, gs_tsm *sm, gs_tstats *st) {
    const gs_tconfig *cf = &ts->cfg;
    gs_pend *pd = &sm->pend;
    uint32_t next = sm->mshr_post;
    for (uint32_t k = 0; k < pd->count; k++) {
        gs_pnode *n = &pd->n[k];
        if (k + 4 < pd->count && pd->n[k + 4].wb) __builtin_prefetch(pd->n[k + 4].wb, 1, 1);
        if (n->kind == GS_PN_MISS) {
            uint64_t t_l2 = n->val;
            uint64_t t_in = gs_icnt_return(&ts->icnt, &sm->icnt, t_l2, n->write);
            if (!n->write) {
                sm->mshr[next] = t_in;
                if (++next == cf->l1_mshrs) next = 0;
            }
            n->val = n->write && !cf->l2_store_ack ? t_l2 : t_in;
        } else {
            resolve_other(pd, n, ts, sm, st);
        }
        if (n->wb && *n->wb == GS_PEND + k) *n->wb = n->val;
    }
}

static uint64_t tmem_issue(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint8_t *kind,
                           uint64_t *leave) {
    const gs_tconfig *cf = &ts->cfg;
    *leave = GS_NEVER;
    gs_warp *w = tw->w;
    const gs_ctx *cx = &sm->wk->ctx;
    int op = x->op;
    *kind = GS_WS_LONG_SCOREBOARD;
    if (op == GS_OP_CP_ASYNC_COMMIT || op == GS_OP_CP_ASYNC_WAIT || op == GS_OP_PREFETCH || op == GS_OP_MBARRIER) {
        *kind = GS_WS_SHORT_SCOREBOARD;
        return now + cf->const_latency_cycles;
    }
    if (w->mmask == 0) return now + 1;
    int space = w->mspace;
    if (space == GS_SPACE_PARAM || space == GS_SPACE_CONST) {
        /* constant bank: broadcast, divergent addresses serialise */
        uint32_t distinct = 0;
        uint64_t seen[GS_WARP];
        /* the usual case, every lane on one address (a kernel parameter): one distinct address */
        uint64_t a0 = w->maddr[__builtin_ctz(w->mmask)];
        int uniform = 1;
        if (w->mmask == 0xffffffffu) {
            for (int l = 0; l < 32; l++) uniform &= w->maddr[l] == a0;     /* (vectorised) */
        } else {
            for (uint32_t m = w->mmask; m; m &= m - 1) uniform &= w->maddr[__builtin_ctz(m)] == a0;
        }
        if (uniform) distinct = 1;
        else for (uint32_t m = w->mmask; m; m &= m - 1) {
            uint64_t a = w->maddr[__builtin_ctz(m)];
            uint32_t i = 0;
            while (i < distinct && seen[i] != a) i++;
            if (i == distinct) seen[distinct++] = a;
        }
        *kind = GS_WS_SHORT_SCOREBOARD;
        uint64_t lat = space == GS_SPACE_PARAM ? cf->const_param_latency_cycles : cf->const_latency_cycles;
        uint64_t t = now + lat + (distinct - 1);
        if (space == GS_SPACE_PARAM) {       /* the launch's parameter bank reaches this SM's constant cache once */
            if (!sm->param_at) sm->param_at = now + cf->const_param_cold_cycles;
            if (t < sm->param_at) t = sm->param_at;
        }
        return t;
    }
    if (space == GS_SPACE_SHARED || space == GS_SPACE_SHARED_CLUSTER) {
        uint32_t serial = 1;
        uint32_t wf = cx->nmext ? gs_shared_wavefronts_walk(cx->mext, cx->nmext, cx->mext_size, cf->shared_banks, cf->shared_bank_bytes,
                                                            cx->mfrag_walk, cx->mfrag_base, cx->mfrag_pitch)
                                    : gs_shared_wavefronts(w->maddr, w->mmask, w->msize, cf->shared_banks, cf->shared_bank_bytes, w->matomic, &serial);
        sm->wk->st.shared_insts++;
        sm->wk->st.shared_wavefronts += wf;
        uint32_t minwf = cx->nmext ? (cx->nmext * cx->mext_size + 127) / 128
                                        : (uint32_t)((__builtin_popcount(w->mmask) * w->msize + 127) / 128);
        if (wf > (minwf ? minwf : 1)) { sm->wk->st.bank_conflicts += wf - (minwf ? minwf : 1); sm->iv_conflicts += wf - (minwf ? minwf : 1); }
        sm->iv_shared++;
        uint32_t busy = wf + (w->matomic ? (serial - 1) * cf->shared_atomic_cycles : 0);
        uint64_t t = gs_res_take(&sm->l1_data, now + 1, (uint64_t)busy << GS_FIX);
        *kind = GS_WS_SHORT_SCOREBOARD;
        return t + cf->shared_latency_cycles + (uint64_t)(busy - 1) * cf->shared_conflict_latency_cycles;
    }
    int write = w->mwrite && !w->matomic;
    int atomic = w->matomic;
    int cache = 1;
    if (space == GS_SPACE_GLOBAL || space == GS_SPACE_GENERIC)
        cache = cf->l1_cache_global_loads && !(x->flags & GS_F_BULK);
    if (x->op == GS_OP_CP_ASYNC) cache = !(x->flags & GS_F_BULK);
    return global_access(ts, sm, tw, x, now, write, atomic, cache, leave);
}

uint32_t gs_frag_requests(uint32_t rows, uint32_t row_bytes) { return ((rows + 7) / 8) * ((row_bytes + 15) / 16); }

/* request `part`: rows 8 (part / h) .. +8 of the tile, bytes 16 (part % h) .. +16 of each (h requests per row),
 * lane l the word at row + l / 4, byte + 4 (l % 4), as validation/sass/hgemm_wmma.sm90.jit.sass's LDG.E */
uint64_t gs_tmem_frag_part(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint32_t part) {
    gs_warp *w = tw->w;
    uint32_t h = (tw->frag_row_bytes + 15) / 16, r0 = 8 * (part / h), b0 = 16 * (part % h), m = 0;
    for (uint32_t l = 0; l < GS_WARP; l++) {
        uint32_t r = r0 + l / 4, b = b0 + 4 * (l % 4);
        if (r >= tw->frag_rows || b >= tw->frag_row_bytes) continue;
        w->maddr[l] = tw->frag_base + (uint64_t)r * tw->frag_pitch + b;
        m |= 1u << l;
    }
    w->mmask = m;
    w->msize = 4;
    sm->wk->ctx.nmext = 0;                    /* (the functional core has left the whole tile's elements) */
    uint64_t leave;
    return global_access(ts, sm, tw, x, now, 0, 0, ts->cfg.l1_cache_global_loads, &leave);
}

uint64_t gs_tmem_issue(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint8_t *kind,
                       uint64_t *leave) {
    uint64_t t = tmem_issue(ts, sm, tw, x, now, kind, leave);
    if (*leave == GS_NEVER) *leave = t;
    return t;
}

void gs_tmem_flush(gs_tsim *ts) {
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++) {
        gs_cache_clear(&ts->sms[s].l1);
        gs_cache_clear(&ts->sms[s].icache);
    }
    gs_l2_flush(&ts->l2);
    gs_dram_flush(&ts->dram);
}

/* memory partitions: one per DRAM channel, with the L2 slices interleaved onto them */
void gs_tmem_interval_row(gs_tsim *ts, uint32_t p, uint64_t start, uint64_t end, gs_rec_memc *r) {
    const gs_tconfig *c = &ts->cfg;
    gs_dram_chan *d = &ts->dram.ch[p];
    uint32_t acc = 0, hits = 0, miss = 0;
    uint64_t q = 0;
    for (uint32_t s = p; s < c->l2_slices; s += c->dram_channels) {
        gs_l2slice *sl = &ts->l2.sl[s];
        acc += sl->iv_acc; hits += sl->iv_hits; miss += sl->iv_miss;
        uint64_t bl = gs_cal_backlog(&sl->port, end);
        if (bl > q) q = bl;
        sl->iv_acc = sl->iv_hits = sl->iv_miss = 0;
    }
    memset(r, 0, sizeof *r);
    r->cycle0 = start;
    r->part = (uint16_t)p;
    r->l2_accesses = acc;
    r->l2_hits = hits;
    r->l2_misses = miss;
    r->dram_read_bytes = d->iv_rd;
    r->dram_write_bytes = d->iv_wr;
    uint64_t dq = gs_cal_backlog(&d->bus, end);
    r->l2_queue = (uint16_t)(q > 65535 ? 65535 : q);
    r->dram_queue = (uint16_t)(dq > 65535 ? 65535 : dq);
    d->iv_rd = d->iv_wr = 0;
}

/* gs_tsim_fill_l2: a host-to-device copy leaves its data in the L2 (l2.h, gs_l2_fill) */
void gs_tsim_fill_l2(gs_tsim *ts, uint64_t addr, uint64_t bytes) { gs_l2_fill(&ts->l2, addr, bytes, ts->now); }
