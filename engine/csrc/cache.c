/* cache.c — sectored set-associative directory (see cache.h). */
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "hostmem.h"

int gs_cache_init(gs_cache *c, uint64_t bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc) {
    memset(c, 0, sizeof *c);
    uint64_t lines = bytes / line_bytes;
    if (lines < assoc) lines = assoc;
    c->assoc = assoc;
    c->sets = (uint32_t)(lines / assoc);
    if (c->sets == 0) c->sets = 1;
    c->nsect = line_bytes / sector_bytes;
    size_t n = (size_t)c->sets * assoc;
    c->tag = gs_line_calloc(n, sizeof *c->tag);
    c->lru = gs_line_calloc(n, sizeof *c->lru);
    c->valid = gs_line_calloc(n, 1);
    c->dirty = gs_line_calloc(n, 1);
    c->part = gs_line_calloc(n, 1);
    c->ready = gs_line_calloc(n * c->nsect, sizeof *c->ready);
    c->wmask = gs_line_calloc(n * c->nsect, sizeof *c->wmask);
    if (!c->tag || !c->lru || !c->valid || !c->dirty || !c->part || !c->ready || !c->wmask) {
        gs_cache_free(c);
        return -1;
    }
    return 0;
}

void gs_cache_free(gs_cache *c) {
    free(c->tag); free(c->lru); free(c->valid); free(c->dirty); free(c->part); free(c->ready); free(c->wmask);
    memset(c, 0, sizeof *c);
}

void gs_cache_clear(gs_cache *c) {
    size_t n = (size_t)c->sets * c->assoc;
    if (!c->tag) return;
    memset(c->tag, 0, n * sizeof *c->tag);
    memset(c->lru, 0, n * sizeof *c->lru);
    memset(c->valid, 0, n);
    memset(c->dirty, 0, n);
    memset(c->part, 0, n);
    memset(c->ready, 0, n * c->nsect * sizeof *c->ready);
    memset(c->wmask, 0, n * c->nsect * sizeof *c->wmask);
    c->stamp = 0;
}

int64_t gs_cache_find(gs_cache *c, uint64_t line, uint64_t set) {
    uint64_t base = set * c->assoc, key = line + 1;
    for (uint32_t w = 0; w < c->assoc; w++) {
        if (c->tag[base + w] == key) {
            c->lru[base + w] = ++c->stamp;
            return (int64_t)(base + w);
        }
    }
    return -1;
}

int64_t gs_cache_alloc(gs_cache *c, uint64_t line, uint64_t set, uint64_t *ev_line, uint8_t *ev_dirty) {
    uint64_t base = set * c->assoc, best = base;
    for (uint32_t w = 0; w < c->assoc; w++) {
        uint64_t i = base + w;
        if (c->tag[i] == 0) { best = i; break; }
        if (c->lru[i] < c->lru[best]) best = i;
    }
    *ev_dirty = c->tag[best] ? (uint8_t)(c->dirty[best] & c->valid[best]) : 0;
    *ev_line = c->tag[best] ? c->tag[best] - 1 : 0;
    c->ev_part = c->tag[best] ? (uint8_t)(c->part[best] & *ev_dirty) : 0;
    c->tag[best] = line + 1;
    c->lru[best] = ++c->stamp;
    c->valid[best] = 0;
    c->dirty[best] = 0;
    c->part[best] = 0;
    return (int64_t)best;
}

uint8_t gs_cache_last_part(const gs_cache *c) { return c->ev_part; }
