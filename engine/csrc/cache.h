/* cache.h — a sectored, set-associative cache directory with LRU replacement, used for the L1 and the
 * instruction cache (the L2 slices keep their own, l2dir.h). It stores no data (values live in the
 * functional memory); per sector it keeps valid/dirty bits and the cycle the sector's data arrives, so a
 * hit on a sector still in flight (an MSHR merge) waits for it. */
#ifndef GS_CACHE_H
#define GS_CACHE_H
#include <stdint.h>
#include "hash.h"
#include "setmask.h"

/* A way's tag and LRU stamp side by side (a 4-way set is one host cache line), its valid and dirty sector
 * masks side by side in a second array: a look-up touches two lines of directory, not five. */
typedef struct gs_cache_way {
    uint64_t tag;         /* line number + 1; 0 = invalid */
    uint64_t lru;         /* last-use stamp */
} gs_cache_way;
typedef struct gs_cache_bits {
    uint8_t valid;        /* sector masks */
    uint8_t dirty;
} gs_cache_bits;

typedef struct gs_cache {
    uint32_t sets, assoc, nsect;
    uint32_t cap_sets;    /* the sets the arrays have room for (gs_cache_resize keeps them when it can) */
    uint64_t sets_m[2];   /* gs_fastmod64_m(sets): a line's set without a division */
    gs_cache_way *way;    /* sets * assoc */
    gs_cache_bits *bits;  /* sets * assoc */
    uint64_t *ready;      /* sets * assoc * nsect: cycle the sector's data is present */
    uint64_t stamp;
    gs_setmask used;      /* sets installed in since the last clear (setmask.h) */
} gs_cache;

/* Contract: lines = bytes / line_bytes must be a multiple of assoc; returns 0 or -1 (no memory). */
int gs_cache_init(gs_cache *c, uint64_t bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc);
void gs_cache_free(gs_cache *c);
/* Contract: the directory empty and shaped for `bytes` (as gs_cache_init); the arrays are kept when they have
 * room for it, so an L1 whose size changes with each launch's carveout is not allocated and first-touched again
 * on every launch. Returns 0 or -1 (no memory: the directory is then freed). */
int gs_cache_resize(gs_cache *c, uint64_t bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc);
void gs_cache_clear(gs_cache *c);
/* Contract: index (set * assoc + way) of `line` in `set`, or -1; a hit refreshes its LRU stamp. */
int64_t gs_cache_find(gs_cache *c, uint64_t line, uint64_t set);
/* Contract: installs `line` in `set` in the least recently used way and returns its index; the victim's
 * line number and dirty sector mask are returned (*ev_dirty = 0 when nothing dirty was evicted). */
int64_t gs_cache_alloc(gs_cache *c, uint64_t line, uint64_t set, uint64_t *ev_line, uint8_t *ev_dirty);
static inline uint64_t gs_cache_set(const gs_cache *c, uint64_t line) { return gs_fastmod64(line, c->sets_m, c->sets); }

#endif
