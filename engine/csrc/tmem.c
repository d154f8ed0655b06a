/* tmem.c — timing of memory instructions: the LSU pipeline, coalescer, shared-memory banks, L1, the
 * interconnect, L2 slices (with the atomic units) and DRAM channels.
 *
 * The functional core has already performed the access and left the per-lane addresses in the warp
 * (w->maddr, mmask, msize, mspace, mwrite, matomic). Here we only compute when it completes:
 *   global/local: lanes -> 32-byte sectors of 128-byte lines (coalescing); one tag lookup per line on
 *     the SM's LSU; per sector an L1 hit (ready when the sector's data is there: a hit on a sector in
 *     flight waits for it, an MSHR merge) or a miss that takes an MSHR entry and travels SM port ->
 *     interconnect -> L2 slice (address hash) -> [DRAM channel] -> back; loads complete when their last
 *     sector is back, stores when the L2 has accepted their data (the warp's drain time);
 *   shared: wavefronts = the largest number of distinct 4-byte words any bank must deliver;
 *   atomics: global ones execute in the slice's atomic unit (one lane operation at a time), shared ones
 *     serialise per address in the shared-memory pipe.
 */
#include <stdlib.h>
#include "timing.h"

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static inline uint32_t mix(uint64_t x) {
    x ^= x >> 17; x *= 0xed5ad4bbu; x ^= x >> 11; x *= 0xac4c1b51u; x ^= x >> 15;
    return (uint32_t)x;
}

/* the slice owning a line: granules of l2.interleave_bytes go to slices by a hash (or in order) */
static inline uint32_t slice_of(gs_tsim *ts, uint64_t line) {
    uint64_t g = (line << ts->l2_line_shift) / ts->cfg.l2_interleave_bytes;
    if (ts->cfg.l2_hash == 0) return (uint32_t)(g % ts->cfg.l2_slices);
    return mix(g) % ts->cfg.l2_slices;
}

static inline uint32_t channel_of(gs_tsim *ts, uint64_t addr) {
    return mix((addr >> 8) * 0x9E3779B97F4A7C15ull >> 7) % ts->cfg.dram_channels;
}

/* Row buffer of the bank `addr` maps to, for a request arriving at t and served from `start`: 1 on a
 * row miss. open_row: a hit only on the bank's open row (arrival order). fr_fcfs (first-ready FCFS)
 * also serves a request with an earlier request to the same row that was still queued when it arrived
 * (served at or after t): the scheduler groups them, so it is a hit without reopening that row. */
static int row_miss(gs_tsim *ts, gs_dram *d, uint64_t addr, uint64_t t, uint64_t start) {
    uint64_t row = addr / ts->cfg.dram_row_bytes;
    size_t bank = (size_t)(mix(row) % ts->cfg.dram_banks) * GS_FR_ROWS;
    uint64_t *rows = d->open_row + bank, *used = d->row_used + bank;
    uint32_t k = 0;
    if (ts->cfg.dram_policy == 2)
        while (k < GS_FR_ROWS && rows[k] != row + 1) k++;
    if (k < GS_FR_ROWS && rows[k] == row + 1 && (k == 0 || used[k] >= t)) {
        if (start > used[k]) used[k] = start;
        ts->st.dram_row_hits++;
        return 0;
    }
    /* a row miss: the row opens (entry 0); the others shift down, the oldest is forgotten */
    uint32_t last = k < GS_FR_ROWS ? k : GS_FR_ROWS - 1;
    for (uint32_t j = last; j > 0; j--) { rows[j] = rows[j - 1]; used[j] = used[j - 1]; }
    rows[0] = row + 1;
    used[0] = start;
    ts->st.dram_row_misses++;
    return 1;
}

/* DRAM read or write of one sector arriving at the channel at t; returns when the data is back at
 * the slice (reads) or written (writes). */
static uint64_t dram_access(gs_tsim *ts, uint64_t addr, uint64_t t, int write) {
    gs_dram *d = &ts->dram[channel_of(ts, addr)];
    uint64_t start = gs_cal_take(&d->bus, t, write ? ts->dram_sector_cost_w : ts->dram_sector_cost);
    uint64_t lat = ts->dram_latency;
    if (ts->cfg.dram_policy >= 1 && row_miss(ts, d, addr, t, start)) lat += ts->dram_row_miss;
    if (write) { ts->st.dram_write_bytes += ts->cfg.l2_sector_bytes; d->iv_wr += ts->cfg.l2_sector_bytes; }
    else { ts->st.dram_read_bytes += ts->cfg.l2_sector_bytes; d->iv_rd += ts->cfg.l2_sector_bytes; }
    return start + lat;
}

/* One sector in one slice at cycle t. kind: 0 read, 1 write, 2 atomic (nops lane operations, at most
 * `same` on one address). `home`: the slice owns the address (a miss goes to DRAM); otherwise it is a
 * near-partition copy and a miss returns 0 so that the caller forwards the access to the home slice.
 * `req`: the sectors of this line the same request asks for (a read miss does not fill them ahead).
 * Returns the cycle the slice has the answer (data for reads/atomics, acceptance for writes). */
static uint64_t slice_access(gs_tsim *ts, uint32_t s, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                             uint32_t same, uint64_t *t_dram, int home, uint64_t *t_in, uint32_t wmask, uint32_t req) {
    const gs_tconfig *cf = &ts->cfg;
    uint64_t line = addr >> ts->l2_line_shift;
    gs_l2slice *sl = &ts->l2[s];
    uint32_t full = cf->l2_sector_bytes >= 32 ? 0xffffffffu : ((1u << cf->l2_sector_bytes) - 1u);
    int partial = kind == 1 && (wmask & full) != full;
    uint64_t tin = gs_cal_take(&sl->port, t, partial ? ts->l2_partial_cost : ts->l2_sector_cost);
    if (t_in) *t_in = tin;
    uint64_t set = (line / cf->l2_slices) % sl->c.sets;
    uint32_t sec = (uint32_t)((addr & (cf->l2_line_bytes - 1)) >> ts->l2_sector_shift);
    uint8_t bit = (uint8_t)(1u << sec);
    int64_t idx = gs_cache_find(&sl->c, line, set);
    ts->st.l2_sectors++;
    sl->iv_acc++;
    if (kind == 1) ts->st.l2_write_sectors++;
    else if (kind == 0) ts->st.l2_read_sectors++;
    int hit = idx >= 0 && (sl->c.valid[idx] & bit) && (kind == 1 || !(sl->c.part[idx] & bit));
    uint64_t ready;
    if (hit || kind == 1) {
        /* a write "hits": write-allocate without fetch (byte masks), as ncu counts it */
        ts->st.l2_hits++;
        sl->iv_hits++;
    } else {
        ts->st.l2_misses++;
        sl->iv_miss++;
    }
    if (idx < 0) {
        if (!home && kind != 1) return 0;           /* near copy absent: go to the home slice */
        uint64_t evl;
        uint8_t evd;
        idx = gs_cache_alloc(&sl->c, line, set, &evl, &evd);
        uint8_t evp = gs_cache_last_part(&sl->c);
        for (uint32_t k = 0; k < sl->c.nsect; k++) {  /* write back dirty sectors of the victim; */
            uint64_t va = evl * cf->l2_line_bytes + k * cf->l2_sector_bytes;
            if (evp & (1u << k)) dram_access(ts, va, tin, 0);   /* a partial one is merged first (ECC) */
            if (evd & (1u << k)) dram_access(ts, va, tin, 1);
        }
    }
    uint64_t *sr = &sl->c.ready[(size_t)idx * sl->c.nsect + sec];
    if (kind == 1) {
        /* a sector only partly written and never fetched keeps a byte mask; once every byte has been
         * written it is complete (no merge with DRAM data needed on eviction) */
        uint32_t *wm = &sl->c.wmask[(size_t)idx * sl->c.nsect + sec];
        if (!(sl->c.valid[idx] & bit)) { *wm = 0; if (partial) sl->c.part[idx] |= bit; }
        if (sl->c.part[idx] & bit) {
            *wm |= wmask;
            if ((*wm & full) == full) sl->c.part[idx] &= (uint8_t)~bit;
        }
        sl->c.valid[idx] |= bit;
        if (home) sl->c.dirty[idx] |= bit;
        if (*sr < tin) *sr = tin;
        return tin + cf->l2_hit_latency_cycles;
    }
    if (hit) {
        ready = tin + cf->l2_hit_latency_cycles;
        if (*sr > ready) ready = *sr;
    } else {
        if (!home) return 0;
        ready = dram_access(ts, addr, tin + cf->l2_hit_latency_cycles, 0);
        if (t_dram) *t_dram = ready;
        sl->c.valid[idx] |= bit;
        sl->c.part[idx] &= (uint8_t)~bit;          /* filled: merged with the bytes written before */
        *sr = ready;
        /* DRAM is read in blocks of l2.dram_fetch_bytes: the block's other missing sectors fill too,
         * except those this same request asks for (looked up with it, they count as misses too) */
        uint32_t per = cf->l2_dram_fetch_bytes >> ts->l2_sector_shift;
        for (uint32_t k = sec / per * per; per > 1 && k < (sec / per + 1) * per; k++) {
            if (k == sec || (sl->c.valid[idx] & (1u << k)) || (req & (1u << k))) continue;
            uint64_t t = dram_access(ts, (addr & ~(uint64_t)(cf->l2_line_bytes - 1)) + ((uint64_t)k << ts->l2_sector_shift),
                                     tin + cf->l2_hit_latency_cycles, 0);
            sl->c.valid[idx] |= (uint8_t)(1u << k);
            sl->c.ready[(size_t)idx * sl->c.nsect + k] = t;
        }
    }
    if (kind == 2) {
        /* the slice's atomic unit: the lanes of one request on this sector travel as packets of
         * distinct addresses, so a sector needs as many packets as its most repeated address */
        sl->c.dirty[idx] |= bit;
        ts->st.l2_atomic_ops += nops;
        uint64_t cost = ts->l2_atomic_cost * (same ? same : 1);
        uint64_t start = gs_cal_take(&sl->atomic, ready, cost);
        uint64_t busy = (cost + 255) >> GS_FIX;
        ready = start + busy + cf->l2_atomic_latency_cycles;
        *sr = start + busy;                         /* later operations on this sector see its result */
    }
    return ready;
}

/* One sector at the L2 from an SM of partition `part`, arriving at t (see slice_access). With several
 * partitions, an address owned by a far partition is looked up in a copy in the near one first. */
static uint64_t l2_access(gs_tsim *ts, uint32_t part, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                          uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req) {
    const gs_tconfig *cf = &ts->cfg;
    uint64_t line = addr >> ts->l2_line_shift;
    uint32_t home = slice_of(ts, line);
    uint32_t sps = cf->l2_slices / cf->l2_partitions;
    if (cf->l2_partitions == 1 || home / sps == part)
        return slice_access(ts, home, addr, t, kind, nops, same, t_dram, 1, NULL, wmask, req);
    uint32_t near = part * sps + home % sps;
    uint64_t half = cf->l2_far_latency_cycles / 2, tin = 0;
    if (kind == 0) {
        uint64_t r = slice_access(ts, near, addr, t, 0, 0, 0, NULL, 0, &tin, 0, 0);
        if (r) return r;
        r = slice_access(ts, home, addr, tin + half, 0, 0, 0, t_dram, 1, NULL, 0, req) + half;
        /* keep a copy in the near partition */
        gs_l2slice *sl = &ts->l2[near];
        uint64_t set = (line / cf->l2_slices) % sl->c.sets, evl;
        uint8_t evd;
        int64_t idx = gs_cache_find(&sl->c, line, set);
        if (idx < 0) idx = gs_cache_alloc(&sl->c, line, set, &evl, &evd);
        uint32_t sec = (uint32_t)((addr & (cf->l2_line_bytes - 1)) >> ts->l2_sector_shift);
        sl->c.valid[idx] |= (uint8_t)(1u << sec);
        sl->c.ready[(size_t)idx * sl->c.nsect + sec] = r;
        return r;
    }
    /* writes update the near copy and go on to the home slice; atomics execute at home */
    if (kind == 1) slice_access(ts, near, addr, t, 1, 0, 0, NULL, 0, &tin, wmask, 0);
    else tin = t;
    uint64_t r = slice_access(ts, home, addr, tin + half, kind, nops, same, t_dram, 1, NULL, wmask, req);
    return kind == 1 ? r : r + half;
}

/* shared-memory wavefronts: the most distinct words any bank must deliver (broadcasts are free).
 * Words are bucketed by bank, so the common conflict-free access costs one pass over the lanes. */
static uint32_t shared_wavefronts_ext(gs_tsim *ts) {
    /* fragment accesses: every element address; the hardware reads them in 128-byte wavefronts */
    const gs_ctx *cx = &ts->ctx;
    uint32_t banks = ts->cfg.shared_banks, bb = ts->cfg.shared_bank_bytes;
    uint16_t count[128] = {0};
    uint64_t last[128];
    uint32_t worst = 1;
    for (uint32_t q = 0; q < cx->nmext; q++) {
        uint64_t word = cx->mext[q] / bb;
        uint32_t b = (uint32_t)(word & (banks - 1));
        if (count[b] && last[b] == word) continue;
        last[b] = word;
        if (++count[b] > worst) worst = count[b];
    }
    uint32_t minwf = (cx->nmext * cx->mext_size + 127) / 128;
    return worst > minwf ? worst : (minwf ? minwf : 1);
}

static uint32_t shared_wavefronts(gs_tsim *ts, gs_warp *w, int atomic, uint32_t *serial) {
    uint32_t banks = ts->cfg.shared_banks, bb = ts->cfg.shared_bank_bytes;
    if (ts->ctx.nmext) { *serial = 1; return shared_wavefronts_ext(ts); }
    uint32_t words = w->msize > bb ? w->msize / bb : 1;
    if (words == 1 && banks == 32 && bb == 4 && !atomic) {   /* common case: one word per lane, no conflict */
        uint32_t touched = 0;
        uint64_t first[32];
        int conflict = 0;
        for (uint32_t m = w->mmask; m; m &= m - 1) {
            uint64_t word = w->maddr[__builtin_ctz(m)] >> 2;
            uint32_t b = (uint32_t)(word & 31);
            if (!(touched & (1u << b))) { touched |= 1u << b; first[b] = word; }
            else if (first[b] != word) { conflict = 1; break; }
        }
        if (!conflict) { *serial = 1; return 1; }
    }
    if (words > 8) words = 8;
    enum { CAP = 32 };                               /* distinct words remembered per bank */
    uint64_t bucket[128][CAP];
    uint16_t count[128];
    memset(count, 0, banks * sizeof *count);
    uint32_t worst = 1;
    for (uint32_t m = w->mmask; m; m &= m - 1) {
        uint64_t a = w->maddr[__builtin_ctz(m)] / bb;
        for (uint32_t k = 0; k < words; k++) {
            uint64_t word = a + k;
            uint32_t b = (uint32_t)(word & (banks - 1));
            uint32_t c = count[b], seen = c < CAP ? c : CAP, i = 0;
            while (i < seen && bucket[b][i] != word) i++;
            if (i < seen) continue;                    /* same word: broadcast */
            if (c < CAP) bucket[b][c] = word;          /* beyond CAP, words count as distinct */
            count[b] = (uint16_t)(c + 1);
            if (c + 1 > worst) worst = c + 1;
        }
    }
    uint32_t same_max = 1;
    if (atomic) {                                      /* same-address lanes serialise */
        for (uint32_t m = w->mmask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint32_t n = 0;
            for (uint32_t m2 = w->mmask; m2; m2 &= m2 - 1)
                if (w->maddr[__builtin_ctz(m2)] == w->maddr[l]) n++;
            if (n > same_max) same_max = n;
        }
    }
    *serial = same_max;
    uint32_t minwf = (uint32_t)((__builtin_popcount(w->mmask) * w->msize + 127) / 128);
    return worst > minwf ? worst : (minwf ? minwf : 1);
}

static void sample(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t addr, uint64_t t0,
                   uint64_t t_l1, uint64_t t_icnt, uint64_t t_l2, uint64_t t_dram, uint64_t t_ret, int write,
                   int level) {
    if (ts->rec.level < 2 || (ts->msample_count++ % ts->cfg.record_mem_sample_period)) return;
    gs_rec_msample *r = gs_rec_push(ts, GS_REC_MEM_SAMPLES);
    if (!r) return;
    r->t_issue = t0; r->t_l1 = t_l1; r->t_icnt = t_icnt; r->t_l2 = t_l2; r->t_dram = t_dram; r->t_return = t_ret;
    r->addr = addr; r->pc = (uint32_t)(x - ts->prog->x); r->sm = (uint16_t)sm->id; r->slot = tw->slot;
    r->size = (uint16_t)ts->cfg.l1_sector_bytes; r->write = (uint8_t)write; r->hit_level = (uint8_t)level;
}

/* global and local memory through L1 */
static uint64_t global_access(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, int write,
                              int atomic, int cache_l1) {
    const gs_tconfig *cf = &ts->cfg;
    gs_warp *w = tw->w;
    uint32_t lb = cf->l1_line_bytes, sb = cf->l1_sector_bytes;
    /* coalesce: distinct lines with their sector masks */
    uint64_t lines[4 * GS_WARP];
    uint8_t masks[4 * GS_WARP];
    uint8_t lane_ops[4 * GS_WARP][8];
    uint8_t same_ops[4 * GS_WARP][8];
    uint32_t bytes_w[4 * GS_WARP][8];            /* byte mask written per sector (sectors <= 32 B) */
    uint32_t nl = 0;
    uint32_t size = w->msize ? w->msize : 4;
    const gs_ctx *cx = &ts->ctx;
    int ext = cx->nmext > 0;
    uint32_t nacc = ext ? cx->nmext : (uint32_t)__builtin_popcount(w->mmask);
    const uint32_t ls = ts->l1_line_shift, ss = ts->l1_sector_shift;   /* sizes are powers of two */
    uint32_t mm = w->mmask;
    if (ext) size = cx->mext_size;
    for (uint32_t q = 0; q < nacc; q++) {
        int l = 0;
        uint64_t a;
        if (ext) a = cx->mext[q];
        else { l = __builtin_ctz(mm); mm &= mm - 1; a = w->maddr[l]; }
        uint64_t end = a + size;
        for (uint64_t s = a >> ss << ss; s < end; s += sb) {
            uint64_t line = s >> ls;
            uint32_t sec = (uint32_t)((s & (lb - 1)) >> ss);
            uint32_t i = 0;
            while (i < nl && lines[i] != line) i++;
            if (i == nl) {
                if (nl == 4 * GS_WARP) break;
                lines[nl] = line; masks[nl] = 0; memset(lane_ops[nl], 0, 8); memset(same_ops[nl], 0, 8); memset(bytes_w[nl], 0, sizeof bytes_w[nl]); nl++;
            }
            masks[i] |= (uint8_t)(1u << sec);
            if (lane_ops[i][sec] < 255) lane_ops[i][sec]++;
            {
                uint64_t lo = a > s ? a - s : 0, hi = end < s + sb ? end - s : sb;
                if (hi > lo && sb <= 32)
                    bytes_w[i][sec] |= (uint32_t)((hi - lo >= 32 ? 0xffffffffull : ((1ull << (hi - lo)) - 1)) << lo);
            }
            if (atomic && !ext) {                       /* lanes on this very address serialise */
                uint32_t same = 0;
                for (uint32_t m2 = w->mmask; m2; m2 &= m2 - 1)
                    same += w->maddr[__builtin_ctz(m2)] == a;
                if (same > same_ops[i][sec]) same_ops[i][sec] = (uint8_t)(same > 255 ? 255 : same);
            }
        }
    }
    /* tag lookups: one per line per request. A fragment access (wmma.load/store) becomes one request
     * per run of contiguous elements of a lane, up to the vector width the code generator can use.
     * c->mext holds the element addresses as [element][lane]; runs are taken from lane 0's layout. */
    uint32_t lookups = nl;
    if (ext) {
        /* widest vector access the driver's JIT uses for fragments with a run-time stride (alignment
         * unknown): 32-bit loads, 64-bit stores (validation/sass/hgemm_wmma.sm90.jit.sass: LDG.E, STG.E.64) */
        uint32_t vmax = write ? 8 : 4;
        lookups = 0;
        uint32_t ne = nacc / GS_WARP;
        for (uint32_t e0 = 0; e0 < ne;) {
            uint32_t e1 = e0 + 1;
            while (e1 < ne && (e1 - e0 + 1) * size <= vmax && cx->mext[e1 * GS_WARP] == cx->mext[(e1 - 1) * GS_WARP] + size)
                e1++;
            uint64_t seen[2 * GS_WARP];
            uint32_t ns = 0;
            for (uint32_t l = 0; l < GS_WARP; l++) {
                uint64_t a0 = cx->mext[e0 * GS_WARP + l], a1 = a0 + (e1 - e0) * size - 1;
                for (uint64_t line = a0 / lb; line <= a1 / lb; line++) {
                    uint32_t k = 0;
                    while (k < ns && seen[k] != line) k++;
                    if (k == ns && ns < 2 * GS_WARP) seen[ns++] = line;
                }
            }
            lookups += ns;
            e0 = e1;
        }
    }
    ts->st.l1_requests += lookups;
    uint64_t t_tag = gs_res_take(&sm->lsu, now + 1, ((uint64_t)lookups << GS_FIX) / cf->l1_lookups_per_cycle);
    uint64_t done = t_tag + cf->l1_hit_latency_cycles;
    uint64_t hit_lat = cf->l1_hit_latency_cycles;
    for (uint32_t i = 0; i < nl; i++) {
        uint64_t line = lines[i];
        int64_t idx = -1;
        uint64_t set = 0;
        if (cache_l1 && sm->l1.sets) {
            set = gs_cache_set(&sm->l1, line);
            idx = gs_cache_find(&sm->l1, line, set);
            if (idx < 0 && !write && !atomic) {
                uint64_t evl;
                uint8_t evd;
                idx = gs_cache_alloc(&sm->l1, line, set, &evl, &evd);
            }
        }
        for (uint32_t sec = 0; sec < 8; sec++) {
            if (!(masks[i] & (1u << sec))) continue;
            uint64_t addr = line * lb + (uint64_t)sec * sb;
            ts->st.l1_sectors++;
            sm->iv_l1_acc++;
            if (write) ts->st.l1_store_sectors++;
            int in_l1 = idx >= 0 && (sm->l1.valid[idx] & (1u << sec));
            if (!write && !atomic && in_l1) {
                uint64_t r = sm->l1.ready[(size_t)idx * sm->l1.nsect + sec];
                if (r > t_tag) ts->st.l1_mshr_merges++;
                ts->st.l1_hits++;
                sm->iv_l1_hits++;
                uint64_t t = max64(t_tag + hit_lat, r);
                if (t > done) done = t;
                sample(ts, sm, tw, x, addr, now, t_tag, 0, 0, 0, t, 0, 1);
                continue;
            }
            if (!write && !atomic) { ts->st.l1_misses++; sm->iv_l1_miss++; }
            /* an MSHR entry (loads and atomics wait for data; stores only need the port) */
            uint64_t depart = t_tag + hit_lat / 2;
            if (!write) {
                uint64_t *e = &sm->mshr[sm->mshr_next++ % cf->l1_mshrs];
                if (*e > depart) depart = *e;
            }
            uint64_t t_out = gs_cal_take(&sm->icnt_out, depart, write ? ts->icnt_sector_cost : ts->icnt_sector_cost / 4);
            uint64_t t_l2in = t_out + cf->icnt_latency_cycles;
            uint64_t t_dram = 0;
            uint64_t t_l2 = l2_access(ts, sm->part, addr, t_l2in, atomic ? 2 : write, atomic ? lane_ops[i][sec] : 1,
                                      atomic ? same_ops[i][sec] : 1, &t_dram, bytes_w[i][sec], masks[i]);
            uint64_t t_back = t_l2 + cf->icnt_latency_cycles;
            uint64_t t_in = write ? t_back : gs_cal_take(&sm->icnt_in, t_back, ts->icnt_sector_cost);
            if (!write) {
                sm->mshr[(sm->mshr_next - 1) % cf->l1_mshrs] = t_in;
                if (idx >= 0 && !atomic) {
                    sm->l1.valid[idx] |= (uint8_t)(1u << sec);
                    sm->l1.ready[(size_t)idx * sm->l1.nsect + sec] = t_in;
                }
            } else if (in_l1) {
                sm->l1.ready[(size_t)idx * sm->l1.nsect + sec] = max64(sm->l1.ready[(size_t)idx * sm->l1.nsect + sec], t_tag);
            }
            uint64_t t_done = write ? t_l2 : t_in + 2;
            if (t_done > done) done = t_done;
            sample(ts, sm, tw, x, addr, now, t_tag, t_out, t_l2in, t_dram, t_done, write, t_dram ? 3 : 2);
        }
    }
    return done;
}

uint64_t gs_tmem_issue(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, const gs_xinst *x, uint64_t now, uint8_t *kind) {
    const gs_tconfig *cf = &ts->cfg;
    gs_warp *w = tw->w;
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
        for (uint32_t m = w->mmask; m; m &= m - 1) {
            uint64_t a = w->maddr[__builtin_ctz(m)];
            uint32_t i = 0;
            while (i < distinct && seen[i] != a) i++;
            if (i == distinct) seen[distinct++] = a;
        }
        *kind = GS_WS_SHORT_SCOREBOARD;
        uint64_t lat = space == GS_SPACE_PARAM ? cf->const_param_latency_cycles : cf->const_latency_cycles;
        return now + lat + (distinct - 1);
    }
    if (space == GS_SPACE_SHARED || space == GS_SPACE_SHARED_CLUSTER) {
        uint32_t serial = 1;
        uint32_t wf = shared_wavefronts(ts, w, w->matomic, &serial);
        ts->st.shared_insts++;
        ts->st.shared_wavefronts += wf;
        uint32_t minwf = ts->ctx.nmext ? (ts->ctx.nmext * ts->ctx.mext_size + 127) / 128
                                        : (uint32_t)((__builtin_popcount(w->mmask) * w->msize + 127) / 128);
        if (wf > (minwf ? minwf : 1)) { ts->st.bank_conflicts += wf - (minwf ? minwf : 1); sm->iv_conflicts += wf - (minwf ? minwf : 1); }
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
    uint64_t t = global_access(ts, sm, tw, x, now, write, atomic, cache);
    return t;
}

void gs_tmem_flush(gs_tsim *ts) {
    for (uint32_t s = 0; s < ts->cfg.gpu_num_sms; s++) {
        gs_cache_clear(&ts->sms[s].l1);
        gs_cache_clear(&ts->sms[s].icache);
    }
    for (uint32_t i = 0; i < ts->cfg.l2_slices; i++) gs_cache_clear(&ts->l2[i].c);
    for (uint32_t i = 0; i < ts->cfg.dram_channels; i++) {
        memset(ts->dram[i].open_row, 0, ts->cfg.dram_banks * GS_FR_ROWS * sizeof(uint64_t));
        memset(ts->dram[i].row_used, 0, ts->cfg.dram_banks * GS_FR_ROWS * sizeof(uint64_t));
    }
}

/* gs_tsim_fill_l2 (a host-to-device copy leaves its data in the L2, as GPGPU-Sim's
 * gpgpu_perf_sim_memcpy does): every sector of the range valid and clean in its home slice. */
void gs_tsim_fill_l2(gs_tsim *ts, uint64_t addr, uint64_t bytes) {
    const gs_tconfig *cf = &ts->cfg;
    uint64_t sb = cf->l2_sector_bytes;
    for (uint64_t a = addr / sb * sb; a < addr + bytes; a += sb) {
        uint64_t line = a >> ts->l2_line_shift;
        gs_l2slice *sl = &ts->l2[slice_of(ts, line)];
        uint64_t set = (line / cf->l2_slices) % sl->c.sets, evl;
        uint8_t evd;
        int64_t idx = gs_cache_find(&sl->c, line, set);
        if (idx < 0) idx = gs_cache_alloc(&sl->c, line, set, &evl, &evd);
        uint32_t sec = (uint32_t)((a & (cf->l2_line_bytes - 1)) >> ts->l2_sector_shift);
        sl->c.valid[idx] |= (uint8_t)(1u << sec);
        sl->c.part[idx] &= (uint8_t)~(1u << sec);
        sl->c.ready[(size_t)idx * sl->c.nsect + sec] = ts->now;
    }
}
