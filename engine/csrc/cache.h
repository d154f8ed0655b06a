/* cache.h — a sectored, set-associative cache directory with LRU replacement, used for L1, L2 slices
 * and the instruction cache. It stores no data (values live in the functional memory); per sector it
 * keeps valid/dirty bits and the cycle the sector's data arrives, so a hit on a sector still in flight
 * (an MSHR merge) waits for it. */
#ifndef GS_CACHE_H
#define GS_CACHE_H
#include <stdint.h>

typedef struct gs_cache {
    uint32_t sets, assoc, nsect;
    uint64_t *tag;        /* sets * assoc: line number + 1; 0 = invalid */
    uint64_t *lru;        /* last-use stamp */
    uint8_t *valid;       /* sector masks */
    uint8_t *dirty;
    uint8_t *part;        /* sectors holding only some written bytes (not fetched): a read must fill them */
    uint32_t *wmask;      /* sets * assoc * nsect: bytes written of a partial sector (up to 32-byte sectors) */
    uint64_t *ready;      /* sets * assoc * nsect: cycle the sector's data is present */
    uint64_t stamp;
    uint8_t ev_part;      /* partial sectors of the last victim */
} gs_cache;

/* Contract: lines = bytes / line_bytes must be a multiple of assoc; returns 0 or -1 (no memory). */
int gs_cache_init(gs_cache *c, uint64_t bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc);
void gs_cache_free(gs_cache *c);
void gs_cache_clear(gs_cache *c);
/* Contract: index (set * assoc + way) of `line` in `set`, or -1; a hit refreshes its LRU stamp. */
int64_t gs_cache_find(gs_cache *c, uint64_t line, uint64_t set);
/* Contract: installs `line` in `set` in the least recently used way and returns its index; the victim's
 * line number and dirty sector mask are returned (*ev_dirty = 0 when nothing dirty was evicted), and
 * gs_cache_last_part() gives the victim's partially written sectors. */
int64_t gs_cache_alloc(gs_cache *c, uint64_t line, uint64_t set, uint64_t *ev_line, uint8_t *ev_dirty);
static inline uint64_t gs_cache_set(const gs_cache *c, uint64_t line) { return line % c->sets; }
uint8_t gs_cache_last_part(const gs_cache *c);

#endif
