/* l2.c — L2 slices, partitions and their atomic units (see l2.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "l2.h"
#include "hash.h"

int gs_l2_init(gs_l2 *l2, const gs_tconfig *c, gs_dram *dram, gs_tstats *st) {
    memset(l2, 0, sizeof *l2);
    l2->nslices = c->l2_slices;
    l2->partitions = c->l2_partitions;
    l2->line_bytes = c->l2_line_bytes;
    l2->sector_bytes = c->l2_sector_bytes;
    l2->interleave_bytes = c->l2_interleave_bytes;
    l2->hash = c->l2_hash;
    l2->fetch_bytes = c->l2_dram_fetch_bytes;
    l2->write_miss_dram = c->l2_write_miss_dram;
    l2->line_shift = (uint32_t)__builtin_ctz(c->l2_line_bytes);
    l2->sector_shift = (uint32_t)__builtin_ctz(c->l2_sector_bytes);
    l2->hit_latency = c->l2_hit_latency_cycles;
    l2->far_latency = c->l2_far_latency_cycles;
    l2->atomic_latency = c->l2_atomic_latency_cycles;
    l2->sector_cost = (uint64_t)c->l2_sector_bytes * 256 / c->l2_bytes_per_cycle;
    if (!l2->sector_cost) l2->sector_cost = 1;
    l2->atomic_cost = (uint64_t)llround(256.0 * c->l2_atomic_packet_cycles);
    if (l2->atomic_cost == 0) l2->atomic_cost = 1;
    l2->partial_cost = (uint64_t)llround(256.0 * c->l2_partial_write_cycles);
    if (l2->partial_cost < l2->sector_cost) l2->partial_cost = l2->sector_cost;
    l2->dram = dram;
    l2->st = st;
    l2->sl = calloc(l2->nslices, sizeof *l2->sl);
    if (!l2->sl) return -1;
    uint64_t lines = (uint64_t)c->l2_size_kib * 1024 / c->l2_line_bytes / c->l2_slices;
    /* the slices' directories in one block on huge pages (hugemem.h): set blocks, then line records */
    gs_l2dir shape;
    gs_l2dir_shape(&shape, lines * c->l2_line_bytes, c->l2_line_bytes, c->l2_sector_bytes, c->l2_assoc);
    size_t bb = gs_l2dir_blk_bytes(&shape), rb = gs_l2dir_rec_bytes(&shape);
    gs_huge_zalloc((bb + rb) * l2->nslices, &l2->dir_mem);
    if (!l2->dir_mem.p) return -1;
    /* backed now: a flush clears only the sets used since the last one (setmask.h), so the pages would
     * otherwise be first touched inside the first launch that reaches them */
    gs_huge_populate(l2->dir_mem.p, (bb + rb) * l2->nslices);
    for (uint32_t i = 0; i < l2->nslices; i++) {
        uint8_t *base = l2->dir_mem.p;
        l2->sl[i].c = shape;
        gs_l2dir_attach(&l2->sl[i].c, (uint64_t *)(void *)(base + bb * i), base + bb * l2->nslices + rb * i);
        if (gs_setmask_init(&l2->sl[i].c.used, shape.sets)) return -1;
        if (gs_cal_init(&l2->sl[i].port) || gs_cal_init(&l2->sl[i].atomic)) return -1;
    }
    uint32_t ilv = l2->interleave_bytes;
    l2->ilv_shift = ilv && !(ilv & (ilv - 1)) ? (uint32_t)__builtin_ctz(ilv) : 0;
    l2->sets = l2->sl[0].c.sets;
    l2->slices_m = gs_fastmod_m(l2->nslices);
    l2->sets_m = gs_fastmod_m(l2->sets);
    l2->part_of = calloc(l2->nslices, sizeof *l2->part_of);
    l2->in_part = calloc(l2->nslices, sizeof *l2->in_part);
    if (!l2->part_of || !l2->in_part) return -1;
    uint32_t sps = l2->nslices / l2->partitions;
    for (uint32_t i = 0; i < l2->nslices; i++) { l2->part_of[i] = i / sps; l2->in_part[i] = i % sps; }
    l2->coalesce = c->l2_coalesce_reads;
    l2->rc_gpc = c->l2_coalesce_gpc;
    l2->rc_until_lookup = c->l2_coalesce_until_lookup;
    l2->gpcs = c->gpu_gpcs ? c->gpu_gpcs : 1;
    if (c->l2_coalesce_reads > 1) {
        l2->rc_count = l2->rc_gpc ? (size_t)l2->gpcs * GS_L2_RC_GPC_ENTRIES : (size_t)l2->nslices * GS_L2_RC_ENTRIES;
        gs_huge_zalloc(l2->rc_count * sizeof *l2->rc, &l2->rc_mem);
        l2->rc = l2->rc_mem.p;
        if (l2->rc) gs_huge_populate(l2->rc, l2->rc_count * sizeof *l2->rc);   /* (as the directories: not in a launch) */
        l2->rcfp = calloc(l2->rc_count, 1);
        if (!l2->rc || !l2->rcfp) return -1;
    }
    return 0;
}

void gs_l2_free(gs_l2 *l2) {
    for (uint32_t i = 0; l2->sl && i < l2->nslices; i++) {
        gs_cal_free(&l2->sl[i].port); gs_cal_free(&l2->sl[i].atomic);
        gs_setmask_free(&l2->sl[i].c.used);
    }
    free(l2->sl);
    gs_huge_free(&l2->dir_mem);
    gs_huge_free(&l2->rc_mem);
    free(l2->rcfp);
    l2->rc = NULL;
    l2->rcfp = NULL;
    free(l2->part_of);
    free(l2->in_part);
    l2->sl = NULL;
    l2->part_of = l2->in_part = NULL;
}

void gs_l2_reset(gs_l2 *l2) {
    for (uint32_t u = 0; u <= l2->nslices; u++) gs_l2_reset_part(l2, u);
}

void gs_l2_reset_part(gs_l2 *l2, uint32_t u) {
    if (u < l2->nslices) { gs_cal_reset(&l2->sl[u].port); gs_cal_reset(&l2->sl[u].atomic); return; }
    /* the coalescing entries: emptying their fingerprints is enough, an entry is read only when its fingerprint
     * matches and written whole when installed (zeroing the entries too, several MiB, was most of a launch's
     * L2 reset and first-touched huge pages inside the run) */
    if (l2->rc) memset(l2->rcfp, 0, l2->rc_count);
}

void gs_l2_flush(gs_l2 *l2) {
    for (uint32_t i = 0; i < l2->nslices; i++) gs_l2_flush_slice(l2, i);
}

void gs_l2_flush_slice(gs_l2 *l2, uint32_t i) { gs_l2dir_clear(&l2->sl[i].c); }

/* the slice owning a line: granules of l2.interleave_bytes go to slices in order (linear), by a hash
 * (xor, xor_line), or (balanced) each run of `nslices` granules to every slice once, in an order
 * rotated by a hash of the run's number */
uint32_t gs_l2_slice_of(const gs_l2 *l2, uint64_t line) {
    uint64_t g = l2->ilv_shift ? (line << l2->line_shift) >> l2->ilv_shift : (line << l2->line_shift) / l2->interleave_bytes;
    if (l2->hash == GS_L2_HASH_LINEAR) return (uint32_t)(g % l2->nslices);
    if (l2->hash == GS_L2_HASH_BALANCED)
        return (uint32_t)((g % l2->nslices + gs_mix(g / l2->nslices)) % l2->nslices);
    return gs_fastmod(gs_mix(g), l2->slices_m, l2->nslices);
}

/* The set of a line in its slice. linear, xor: the line number above the slice count (GPGPU-Sim's
 * indexing), which puts the lines of one granule in one set: a slice's sets fill in clumps of
 * interleave/line lines and overflow long before the slice is full. xor_line: a hash of the line, so
 * lines fill the sets independently. balanced: a slice holds one granule of each run of `nslices`, so
 * the run's number and the line's place in its granule enumerate the slice's lines densely and any
 * contiguous range spreads evenly. (The H200 keeps a 32 MiB buffer read by every SM whole:
 * docs/calibration.md 5h.) */
static uint64_t set_of(const gs_l2 *l2, const gs_l2dir *c, uint64_t line) {
    if (l2->hash == GS_L2_HASH_XOR_LINE) return gs_fastmod(gs_mix(line ^ 0x5bd1e995u), l2->sets_m, l2->sets);
    if (l2->hash == GS_L2_HASH_BALANCED) {
        uint64_t g = (line << l2->line_shift) / l2->interleave_bytes;
        uint64_t lpg = l2->interleave_bytes > l2->line_bytes ? l2->interleave_bytes / l2->line_bytes : 1;
        return ((g / l2->nslices) * lpg + line % lpg) % c->sets;
    }
    return (line / l2->nslices) % c->sets;
}

/* A victim's dirty sectors go to DRAM at t; a partially written one is merged with its DRAM data
 * first (ECC granularity), so it costs a read too. */
static void write_back(gs_l2 *l2, uint64_t evl, uint8_t evd, uint8_t evp, uint32_t nsect, uint64_t t) {
    for (uint32_t k = 0; k < nsect; k++) {
        uint64_t va = evl * l2->line_bytes + k * l2->sector_bytes;
        if (evp & (1u << k)) gs_dram_access(l2->dram, va, t, 0);
        if (evd & (1u << k)) gs_dram_access(l2->dram, va, t, 1);
    }
}

/* One sector in slice s at cycle t (see l2.h). `home`: the slice owns the address (a miss goes to
 * DRAM); otherwise it is a near-partition copy and a miss returns 0 so that the caller forwards the
 * access to the home slice. *t_in (may be NULL) gets the cycle the slice's port accepted it. */
static uint64_t slice_access(gs_l2 *l2, uint32_t s, uint64_t set, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                             uint32_t same, uint64_t *t_dram, int home, uint64_t *t_in, uint32_t wmask, uint32_t req) {
    uint64_t line = addr >> l2->line_shift;
    gs_l2slice *sl = &l2->sl[s];
    gs_tstats *st = l2->st;
    uint32_t full = l2->sector_bytes >= 32 ? 0xffffffffu : ((1u << l2->sector_bytes) - 1u);
    int partial = kind == GS_L2_WRITE && (wmask & full) != full;
    uint64_t tin = gs_cal_take(&sl->port, t, partial ? l2->partial_cost : l2->sector_cost);
    if (t_in) *t_in = tin;
    uint32_t sec = (uint32_t)((addr & (l2->line_bytes - 1)) >> l2->sector_shift);
    uint8_t bit = (uint8_t)(1u << sec);
    /* the set's sector masks and LRU stamps are read right after the tag scan: ask the host cache for them
     * with it, so the misses overlap instead of following each other (no effect on results) */
    uint64_t *blk = gs_l2dir_set(&sl->c, set);
    __builtin_prefetch(blk + sl->c.assoc, 1, 1); __builtin_prefetch(blk + 2 * sl->c.assoc - 1, 1, 1);
    __builtin_prefetch(blk + sl->c.assoc - 1, 0, 1);
    int64_t idx = gs_l2dir_find(&sl->c, line, set);
    st->l2_sectors++;
    sl->iv_acc++;
    if (kind == GS_L2_WRITE) st->l2_write_sectors++;
    else if (kind == GS_L2_READ) st->l2_read_sectors++;
    int hit = idx >= 0 && (GS_L2D_VALID(&sl->c, idx) & bit) && (kind == GS_L2_WRITE || !(GS_L2D_PART(&sl->c, idx) & bit));
    int wmiss = kind == GS_L2_WRITE && l2->write_miss_dram && home && !hit;
    uint64_t ready;
    if (hit || (kind == GS_L2_WRITE && !wmiss)) {
        /* a write "hits": write-allocate without fetch (byte masks), as ncu counts it */
        st->l2_hits++;
        sl->iv_hits++;
    } else {
        st->l2_misses++;
        sl->iv_miss++;
    }
    if (idx < 0) {
        if (!home && kind != GS_L2_WRITE) return 0;        /* near copy absent: go to the home slice */
        uint64_t evl;
        uint8_t evd;
        idx = gs_l2dir_alloc(&sl->c, line, set, &evl, &evd);
        if (evd) write_back(l2, evl, evd, sl->c.ev_part, sl->c.nsect, tin);
    }
    uint64_t *sr = &gs_l2dir_ready(&sl->c, idx)[sec];
    if (kind == GS_L2_WRITE) {
        /* a sector only partly written and never fetched keeps a byte mask; once every byte has been
         * written it is complete (no merge with DRAM data needed on eviction) */
        uint32_t *wm = &gs_l2dir_wmask(&sl->c, idx)[sec];
        if (!(GS_L2D_VALID(&sl->c, idx) & bit)) { *wm = 0; if (partial) GS_L2D_PART(&sl->c, idx) |= bit; }
        if (GS_L2D_PART(&sl->c, idx) & bit) {
            *wm |= wmask;
            if ((*wm & full) == full) GS_L2D_PART(&sl->c, idx) &= (uint8_t)~bit;
        }
        GS_L2D_VALID(&sl->c, idx) |= bit;
        if (home) GS_L2D_DIRTY(&sl->c, idx) |= bit;
        if (*sr < tin) *sr = tin;
        if (wmiss) {       /* l2.write_miss_dram: on to DRAM; the request's first sector in the block reads the
                            * block (GPGPU-Sim's line fill), whose sectors this request does not write become valid */
            uint64_t fb = l2->fetch_bytes, base = addr & ~(fb - 1);
            uint32_t k0 = (uint32_t)((base & (l2->line_bytes - 1)) >> l2->sector_shift), per = (uint32_t)(fb >> l2->sector_shift);
            uint32_t blk = (per >= 32 ? 0xffffffffu : ((1u << per) - 1u)) << k0;
            uint64_t w = gs_dram_access(l2->dram, addr, tin + l2->hit_latency, 1);
            if (!(req & blk & ((1u << sec) - 1u)))
                for (uint32_t k = k0; k < k0 + per; k++) {
                    uint64_t tk = gs_dram_access(l2->dram, (addr & ~(uint64_t)(l2->line_bytes - 1)) + ((uint64_t)k << l2->sector_shift),
                                                 tin + l2->hit_latency, 0);
                    if (k == sec || (req & (1u << k)) || (GS_L2D_VALID(&sl->c, idx) & (1u << k))) continue;
                    GS_L2D_VALID(&sl->c, idx) |= (uint8_t)(1u << k);
                    gs_l2dir_ready(&sl->c, idx)[k] = tk;
                }
            if (t_dram) *t_dram = w;
            return w;
        }
        return tin + l2->hit_latency;
    }
    if (hit) {
        ready = tin + l2->hit_latency;
        if (*sr > ready) ready = *sr;
    } else {
        if (!home) return 0;
        ready = gs_dram_access(l2->dram, addr, tin + l2->hit_latency, 0);
        if (t_dram) *t_dram = ready;
        GS_L2D_VALID(&sl->c, idx) |= bit;
        GS_L2D_PART(&sl->c, idx) &= (uint8_t)~bit;          /* filled: merged with the bytes written before */
        *sr = ready;
        /* DRAM is read in blocks of l2.dram_fetch_bytes: the block's other missing sectors fill too,
         * except those this same request asks for (looked up with it, they count as misses too) */
        uint32_t per = l2->fetch_bytes >> l2->sector_shift;
        for (uint32_t k = sec / per * per; per > 1 && k < (sec / per + 1) * per; k++) {
            if (k == sec || (GS_L2D_VALID(&sl->c, idx) & (1u << k)) || (req & (1u << k))) continue;
            uint64_t tk = gs_dram_access(l2->dram, (addr & ~(uint64_t)(l2->line_bytes - 1)) + ((uint64_t)k << l2->sector_shift),
                                         tin + l2->hit_latency, 0);
            GS_L2D_VALID(&sl->c, idx) |= (uint8_t)(1u << k);
            gs_l2dir_ready(&sl->c, idx)[k] = tk;
        }
    }
    if (kind == GS_L2_ATOMIC) {
        /* the slice's atomic unit: the lanes of one request on this sector travel as packets of
         * distinct addresses, so a sector needs as many packets as its most repeated address */
        GS_L2D_DIRTY(&sl->c, idx) |= bit;
        st->l2_atomic_ops += nops;
        uint64_t cost = l2->atomic_cost * (same ? same : 1);
        uint64_t start = gs_cal_take(&sl->atomic, ready, cost);
        uint64_t busy = (cost + 255) >> 8;
        ready = start + busy + l2->atomic_latency;
        *sr = start + busy;                         /* later operations on this sector see its result */
    }
    return ready;
}

/* The slice a request from partition `part` reaches first: the line's home slice when it is in that
 * partition (or there is one partition), else the home's counterpart in `part` (the near copy's slice). */
static inline uint32_t first_slice(const gs_l2 *l2, uint32_t part, uint32_t home) {
    if (l2->partitions == 1 || l2->part_of[home] == part) return home;
    return part * (l2->nslices / l2->partitions) + l2->in_part[home];
}

/* *t_look (may be NULL): when the slice the request reaches first took it in (its tag lookup). `set`: the
 * line's set (the same in every slice: set_of depends on the line only) */
static uint64_t access_slices(gs_l2 *l2, uint32_t part, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                              uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req, uint64_t line, uint32_t home,
                              uint64_t set, uint64_t *t_look) {
    uint32_t near = first_slice(l2, part, home);
    if (near == home)
        return slice_access(l2, home, set, addr, t, kind, nops, same, t_dram, 1, t_look, wmask, req);
    uint64_t half = l2->far_latency / 2, tin = 0;
    if (kind == GS_L2_READ) {
        uint64_t r = slice_access(l2, near, set, addr, t, GS_L2_READ, 0, 0, NULL, 0, &tin, 0, 0);
        if (t_look) *t_look = tin;
        if (r) return r;
        r = slice_access(l2, home, set, addr, tin + half, GS_L2_READ, 0, 0, t_dram, 1, NULL, 0, req) + half;
        /* keep a copy in the near partition */
        gs_l2slice *sl = &l2->sl[near];
        uint64_t evl;
        uint8_t evd;
        int64_t idx = gs_l2dir_find(&sl->c, line, set);
        if (idx < 0) {
            /* the near slice is also the home of other lines: a dirty victim is written back */
            idx = gs_l2dir_alloc(&sl->c, line, set, &evl, &evd);
            if (evd) write_back(l2, evl, evd, sl->c.ev_part, sl->c.nsect, tin);
        }
        uint32_t sec = (uint32_t)((addr & (l2->line_bytes - 1)) >> l2->sector_shift);
        GS_L2D_VALID(&sl->c, idx) |= (uint8_t)(1u << sec);
        gs_l2dir_ready(&sl->c, idx)[sec] = r;
        return r;
    }
    /* writes update the near copy and go on to the home slice; atomics execute at home */
    if (kind == GS_L2_WRITE) slice_access(l2, near, set, addr, t, GS_L2_WRITE, 0, 0, NULL, 0, &tin, wmask, 0);
    else tin = t;
    uint64_t r = slice_access(l2, home, set, addr, tin + half, kind, nops, same, t_dram, 1, NULL, wmask, req);
    return kind == GS_L2_WRITE ? r : r + half;
}

/* l2.coalesce_reads: the index in rc of a sector's entry in the table its reads merge in: the GPC's
 * (l2.coalesce_gpc; the GPCs' entries of one slot lie side by side, so a write clears them in one or two host
 * cache lines), else that of the slice a request from partition `part` reaches first (its home slice, or the
 * near copy's slice for a far-homed line). h = gs_mix(key). */
static inline size_t rc_index(const gs_l2 *l2, uint32_t part, uint32_t gpc, uint32_t home, uint32_t h) {
    if (l2->rc_gpc) return (size_t)(h % GS_L2_RC_GPC_ENTRIES) * l2->gpcs + gpc;
    uint32_t s = first_slice(l2, part, home);
    return (size_t)s * GS_L2_RC_ENTRIES + (h % GS_L2_RC_ENTRIES);
}

/* the byte of rcfp for a key with hash h: never 0 (0 marks an empty entry). Entry i's key can equal `key`
 * only when rcfp[i] == rc_fp(h); otherwise rc[i] is not read. */
static inline uint8_t rc_fp(uint32_t h) { uint8_t f = (uint8_t)(h >> 24); return f ? f : 1; }

void gs_l2_place(const gs_l2 *l2, uint32_t part, uint64_t addr, gs_l2place *pl) {
    uint64_t line = addr >> l2->line_shift;
    pl->home = gs_l2_slice_of(l2, line);
    pl->near = first_slice(l2, part, pl->home);
    pl->set = set_of(l2, &l2->sl[0].c, line);     /* (every slice has the same sets) */
    pl->h = l2->rc ? gs_mix((addr >> l2->sector_shift) + 1) : 0;
}

/* a set's tags and LRU stamps into the host cache (the scan reads the tags; a hit writes a stamp, a miss
 * scans them): the first and last word of each half of its block */
static inline void prefetch_set(const gs_l2dir *c, uint64_t set) {
    const uint64_t *blk = gs_l2dir_set(c, set);
    uint32_t a = c->assoc;
    __builtin_prefetch(blk, 1, 1);
    __builtin_prefetch(blk + a - 1, 1, 1);
    __builtin_prefetch(blk + a, 1, 1);
    __builtin_prefetch(blk + 2 * a - 1, 1, 1);
}

void gs_l2_prefetch(const gs_l2 *l2, const gs_l2place *pl, uint32_t gpc, uint64_t t, int kind) {
    const gs_l2slice *sl = &l2->sl[pl->near];
    if (kind != GS_L2_ATOMIC || pl->home == pl->near) {   /* (an atomic goes to its home slice only) */
        prefetch_set(&sl->c, pl->set);
        if (sl->port.cell) gs_cal_prefetch(&sl->port, t);
    }
    if (pl->home != pl->near) {
        const gs_l2slice *hs = &l2->sl[pl->home];
        prefetch_set(&hs->c, pl->set);                   /* a near copy that misses goes on there */
        /* a write or an atomic takes the home slice's port too, half the far latency later */
        if (kind != GS_L2_READ && hs->port.cell) gs_cal_prefetch(&hs->port, t + l2->far_latency / 2);
    }
    if (l2->rc) {
        if (gpc >= l2->gpcs) gpc = l2->gpcs - 1;
        size_t i = l2->rc_gpc ? (size_t)(pl->h % GS_L2_RC_GPC_ENTRIES) * l2->gpcs + gpc
                              : (size_t)pl->near * GS_L2_RC_ENTRIES + (pl->h % GS_L2_RC_ENTRIES);
        __builtin_prefetch(&l2->rcfp[i], 1, 1);
        __builtin_prefetch(&l2->rc[i], 1, 1);
    }
}

void gs_l2_prefetch_rec(const gs_l2 *l2, const gs_l2place *pl, uint64_t addr, uint64_t t, int kind) {
    uint64_t line = addr >> l2->line_shift;
    /* the slices access_slices visits: an atomic only the home one; a read the near one, then the home one if the
     * near copy is absent; a write both */
    uint32_t first = kind == GS_L2_ATOMIC ? pl->home : pl->near;
    int in = gs_l2dir_prefetch_rec(&l2->sl[first].c, line, pl->set);
    if (pl->home != first && (!in || kind == GS_L2_WRITE)) in = gs_l2dir_prefetch_rec(&l2->sl[pl->home].c, line, pl->set);
    if (!in) gs_dram_prefetch(l2->dram, addr, t + l2->hit_latency);   /* absent: most likely a DRAM access follows */
}

uint64_t gs_l2_access_placed(gs_l2 *l2, uint32_t part, uint32_t gpc, const gs_l2place *pl, uint64_t addr, uint64_t t,
                             int kind, uint32_t nops, uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req) {
    uint64_t line = addr >> l2->line_shift;
    uint32_t home = pl->home;
    if (!l2->rc) return access_slices(l2, part, addr, t, kind, nops, same, t_dram, wmask, req, line, home, pl->set, NULL);
    uint64_t key = (addr >> l2->sector_shift) + 1;
    uint32_t h = pl->h;
    uint8_t fp = rc_fp(h);
    if (gpc >= l2->gpcs) gpc = l2->gpcs - 1;
    if (kind != GS_L2_READ) {
        /* a write or atomic ends the merging of reads of its sector (in every table, this one included) */
        if (l2->rc_gpc) {
            size_t row = rc_index(l2, part, 0, home, h);        /* GPC 0's entry; the others follow it */
            for (uint32_t g = 0; g < l2->gpcs; g++)
                if (l2->rcfp[row + g] == fp && l2->rc[row + g].key == key) { l2->rc[row + g].key = 0; l2->rcfp[row + g] = 0; }
        } else
            for (uint32_t p = 0; p < l2->partitions; p++) {
                size_t o = rc_index(l2, p, 0, home, h);
                if (l2->rcfp[o] == fp && l2->rc[o].key == key) { l2->rc[o].key = 0; l2->rcfp[o] = 0; }
            }
        return access_slices(l2, part, addr, t, kind, nops, same, t_dram, wmask, req, line, home, pl->set, NULL);
    }
    size_t i = rc_index(l2, part, gpc, home, h);
    gs_l2rc *e = &l2->rc[i];
    if (l2->rcfp[i] == fp && e->key == key && e->arr <= t && t < e->until && e->reads < l2->coalesce) {
        e->reads++;
        l2->st->l2_coalesced++;
        return e->done;
    }
    uint64_t look = 0;
    uint64_t r = access_slices(l2, part, addr, t, kind, nops, same, t_dram, wmask, req, line, home, pl->set, &look);
    e->key = key; e->arr = t; e->done = r; e->reads = 1;
    e->until = l2->rc_until_lookup ? look : r;
    l2->rcfp[i] = fp;
    return r;
}

uint64_t gs_l2_access_from(gs_l2 *l2, uint32_t part, uint32_t gpc, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                           uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req) {
    gs_l2place pl;
    gs_l2_place(l2, part, addr, &pl);
    return gs_l2_access_placed(l2, part, gpc, &pl, addr, t, kind, nops, same, t_dram, wmask, req);
}

void gs_l2_fill(gs_l2 *l2, uint64_t addr, uint64_t bytes, uint64_t now) {
    uint64_t sb = l2->sector_bytes;
    if (bytes > UINT64_MAX - addr) bytes = UINT64_MAX - addr;   /* a copy ends at the top of the address space */
    /* a copy larger than a few L2 capacities evicts its own beginning (LRU, in address order): only its
     * last 4 capacities are filled, so a huge copy costs what a copy of 4 capacities does (a 2^48-byte
     * copy in a trace's kernelslist.g looped for hours) */
    uint64_t cap = (uint64_t)l2->nslices * l2->sl[0].c.sets * l2->sl[0].c.assoc * l2->line_bytes;
    if (bytes > 4 * cap) { addr += bytes - 4 * cap; bytes = 4 * cap; }
    uint64_t first = addr / sb * sb, n = (addr + bytes - first + sb - 1) / sb;   /* sectors, counted: no wrap */
    for (uint64_t k = 0, a = first; k < n; k++, a += sb) {
        uint64_t line = a >> l2->line_shift;
        gs_l2slice *sl = &l2->sl[gs_l2_slice_of(l2, line)];
        uint64_t set = set_of(l2, &sl->c, line), evl;
        uint8_t evd;
        int64_t idx = gs_l2dir_find(&sl->c, line, set);
        if (idx < 0) idx = gs_l2dir_alloc(&sl->c, line, set, &evl, &evd);
        uint32_t sec = (uint32_t)((a & (l2->line_bytes - 1)) >> l2->sector_shift);
        GS_L2D_VALID(&sl->c, idx) |= (uint8_t)(1u << sec);
        GS_L2D_PART(&sl->c, idx) &= (uint8_t)~(1u << sec);
        gs_l2dir_ready(&sl->c, idx)[sec] = now;
    }
}
