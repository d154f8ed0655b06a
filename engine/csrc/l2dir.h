/* l2dir.h — an L2 slice's directory: cache.h's sectored set-associative directory with LRU replacement
 * (the same answers, way for way and stamp for stamp), laid out for the host cache.
 *
 * An L2 access touches one set and one line of it. With cache.h's separate arrays that is seven host cache
 * lines (tags, stamps, valid, dirty, partial, byte masks, ready times) scattered over ~330 KiB per slice and
 * 96 slices; here a set's tags and LRU stamps lie side by side (one block of 2 x assoc words) and each line's
 * sector state is one record (valid, dirty and partial masks, the byte masks and ready times of its
 * sectors: 64 bytes for 4 sectors), so an access touches the set block and one record.
 *
 * Contracts as cache.h: gs_l2dir_find returns the line's index (set * assoc + way) or -1 and refreshes its
 * stamp; gs_l2dir_alloc installs the line in the first empty way, else the least recently used, returns
 * its index and the victim (line, dirty sectors; gs_l2dir's ev_part its partially written dirty sectors).
 */
#ifndef GS_L2DIR_H
#define GS_L2DIR_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "setmask.h"

typedef struct gs_l2dir {
    uint32_t sets, assoc, nsect;
    uint32_t stride;                   /* bytes per line record (a power of two, at least 16) */
    uint32_t roff;                     /* offset of the ready times in a record */
    uint64_t *blk;                     /* per set: tag[assoc] (line number + 1; 0 = invalid), then lru[assoc] */
    uint8_t *rec;                      /* sets * assoc records, starting a host cache line */
    uint64_t stamp;
    gs_setmask used;                   /* sets installed in since the last clear (setmask.h; l2.c owns it) */
    uint8_t ev_part;                   /* partial sectors of the last victim */
} gs_l2dir;

/* record of line i: valid (byte 0), dirty (1), partial (2) sector masks; byte masks (u32 per sector) at 4;
 * ready times (u64 per sector) at roff */
static inline uint8_t *gs_l2dir_rec(const gs_l2dir *d, int64_t i) { return d->rec + (size_t)i * d->stride; }
#define GS_L2D_VALID(d, i) (gs_l2dir_rec(d, i)[0])
#define GS_L2D_DIRTY(d, i) (gs_l2dir_rec(d, i)[1])
#define GS_L2D_PART(d, i) (gs_l2dir_rec(d, i)[2])
static inline uint32_t *gs_l2dir_wmask(const gs_l2dir *d, int64_t i) { return (uint32_t *)(void *)(gs_l2dir_rec(d, i) + 4); }
static inline uint64_t *gs_l2dir_ready(const gs_l2dir *d, int64_t i) { return (uint64_t *)(void *)(gs_l2dir_rec(d, i) + d->roff); }

/* the geometry (sets, assoc, sectors, record layout) of a directory of `bytes` (as gs_cache_init: lines =
 * bytes / line_bytes, at least assoc); blocks not yet attached */
static inline void gs_l2dir_shape(gs_l2dir *d, uint64_t bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc) {
    memset(d, 0, sizeof *d);
    uint64_t lines = bytes / line_bytes;
    if (lines < assoc) lines = assoc;
    d->assoc = assoc;
    d->sets = (uint32_t)(lines / assoc);
    if (d->sets == 0) d->sets = 1;
    d->nsect = line_bytes / sector_bytes;
    d->roff = (4 + 4 * d->nsect + 7) & ~7u;
    uint32_t need = d->roff + 8 * d->nsect;
    d->stride = 16;
    while (d->stride < need) d->stride *= 2;
}
/* bytes of the set blocks and of the line records (multiples of 64: blocks laid end to end stay aligned) */
static inline size_t gs_l2dir_blk_bytes(const gs_l2dir *d) { return ((size_t)d->sets * d->assoc * 16 + 63) & ~(size_t)63; }
static inline size_t gs_l2dir_rec_bytes(const gs_l2dir *d) { return ((size_t)d->sets * d->assoc * d->stride + 63) & ~(size_t)63; }

/* a shaped directory on zeroed memory owned by the caller (rec 64-byte aligned): l2.c lays all slices'
 * blocks and records out in one huge-page block (hugemem.h) and gives it back itself */
static inline void gs_l2dir_attach(gs_l2dir *d, uint64_t *blk, uint8_t *rec) { d->blk = blk; d->rec = rec; }

static inline void gs_l2dir_clear_set(void *ctx, uint64_t set) {
    gs_l2dir *d = ctx;
    memset(d->blk + (size_t)set * 2 * d->assoc, 0, 2 * (size_t)d->assoc * sizeof *d->blk);
    memset(d->rec + (size_t)set * d->assoc * d->stride, 0, (size_t)d->assoc * d->stride);
}

/* only the sets a line was installed in since the last clear are not all zero */
static inline void gs_l2dir_clear(gs_l2dir *d) {
    if (!d->blk) return;
    gs_setmask_drain(&d->used, gs_l2dir_clear_set, d);
    d->stamp = 0;
}

static inline uint64_t *gs_l2dir_set(const gs_l2dir *d, uint64_t set) { return d->blk + (size_t)set * 2 * d->assoc; }

static inline int64_t gs_l2dir_find(gs_l2dir *d, uint64_t line, uint64_t set) {
    uint64_t *tag = gs_l2dir_set(d, set), key = line + 1;
    uint32_t a = d->assoc;
    for (uint32_t w = 0; w < a; w++) {
        if (tag[w] == key) {
            tag[a + w] = ++d->stamp;
            return (int64_t)(set * a + w);
        }
    }
    return -1;
}

/* the line record an access of `line` will touch, as far as the set shows now (a hit's way, else the way
 * gs_l2dir_alloc would take), into the host cache; changes nothing. Returns whether the line is there. */
static inline int gs_l2dir_prefetch_rec(const gs_l2dir *d, uint64_t line, uint64_t set) {
    const uint64_t *tag = gs_l2dir_set(d, set), *lru = tag + d->assoc;
    uint64_t key = line + 1;
    uint32_t best = 0;
    for (uint32_t w = 0; w < d->assoc; w++)
        if (tag[w] == key) {
            __builtin_prefetch(gs_l2dir_rec(d, (int64_t)(set * d->assoc + w)), 1, 1);
            return 1;
        }
    for (uint32_t w = 0; w < d->assoc; w++) {
        if (tag[w] == 0) { best = w; break; }
        if (lru[w] < lru[best]) best = w;
    }
    __builtin_prefetch(gs_l2dir_rec(d, (int64_t)(set * d->assoc + best)), 1, 1);
    return 0;
}

static inline int64_t gs_l2dir_alloc(gs_l2dir *d, uint64_t line, uint64_t set, uint64_t *ev_line, uint8_t *ev_dirty) {
    uint64_t *tag = gs_l2dir_set(d, set), *lru = tag + d->assoc;
    uint32_t best = 0;
    for (uint32_t w = 0; w < d->assoc; w++) {
        if (tag[w] == 0) { best = w; break; }
        if (lru[w] < lru[best]) best = w;
    }
    int64_t i = (int64_t)(set * d->assoc + best);
    uint8_t *r = gs_l2dir_rec(d, i);
    gs_setmask_mark(&d->used, set);
    *ev_dirty = tag[best] ? (uint8_t)(r[1] & r[0]) : 0;
    *ev_line = tag[best] ? tag[best] - 1 : 0;
    d->ev_part = tag[best] ? (uint8_t)(r[2] & *ev_dirty) : 0;
    tag[best] = line + 1;
    lru[best] = ++d->stamp;
    r[0] = r[1] = r[2] = 0;
    return i;
}

#endif
