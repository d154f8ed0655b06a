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
    c->cap_sets = c->sets;
    gs_fastmod64_m(c->sets, c->sets_m);
    size_t n = (size_t)c->sets * assoc;
    c->way = gs_line_calloc(n, sizeof *c->way);
    c->bits = gs_line_calloc(n, sizeof *c->bits);
    c->ready = gs_line_calloc(n * c->nsect, sizeof *c->ready);
    if (!c->way || !c->bits || !c->ready || gs_setmask_init(&c->used, c->sets)) {
        gs_cache_free(c);
        return -1;
    }
    return 0;
}

void gs_cache_free(gs_cache *c) {
    free(c->way); free(c->bits); free(c->ready);
    gs_setmask_free(&c->used);
    memset(c, 0, sizeof *c);
}

int gs_cache_resize(gs_cache *c, uint64_t bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc) {
    uint64_t lines = bytes / line_bytes;
    uint64_t sets = (lines < assoc ? assoc : lines) / assoc;
    if (c->way && c->assoc == assoc && c->nsect == line_bytes / sector_bytes && sets <= c->cap_sets) {
        gs_cache_clear(c);                   /* (the sets used under the old shape: every entry is zero after) */
        c->sets = (uint32_t)(sets ? sets : 1);
        gs_fastmod64_m(c->sets, c->sets_m);
        return 0;
    }
    gs_cache_free(c);
    return gs_cache_init(c, bytes, line_bytes, sector_bytes, assoc);
}

static void clear_set(void *ctx, uint64_t set) {
    gs_cache *c = ctx;
    size_t base = (size_t)set * c->assoc;
    memset(c->way + base, 0, c->assoc * sizeof *c->way);
    memset(c->bits + base, 0, c->assoc * sizeof *c->bits);
    memset(c->ready + base * c->nsect, 0, (size_t)c->assoc * c->nsect * sizeof *c->ready);
}

/* only the sets a line was installed in since the last clear are not all zero */
void gs_cache_clear(gs_cache *c) {
    if (!c->way) return;
    gs_setmask_drain(&c->used, clear_set, c);
    c->stamp = 0;
}

int64_t gs_cache_find(gs_cache *c, uint64_t line, uint64_t set) {
    uint64_t base = set * c->assoc, key = line + 1;
    gs_cache_way *wy = c->way + base;
    for (uint32_t w = 0; w < c->assoc; w++) {
        if (wy[w].tag == key) {
            wy[w].lru = ++c->stamp;
            return (int64_t)(base + w);
        }
    }
    return -1;
}

int64_t gs_cache_alloc(gs_cache *c, uint64_t line, uint64_t set, uint64_t *ev_line, uint8_t *ev_dirty) {
    uint64_t base = set * c->assoc, best = base;
    for (uint32_t w = 0; w < c->assoc; w++) {
        uint64_t i = base + w;
        if (c->way[i].tag == 0) { best = i; break; }
        if (c->way[i].lru < c->way[best].lru) best = i;
    }
    gs_setmask_mark(&c->used, set);
    gs_cache_way *v = &c->way[best];
    gs_cache_bits *b = &c->bits[best];
    *ev_dirty = v->tag ? (uint8_t)(b->dirty & b->valid) : 0;
    *ev_line = v->tag ? v->tag - 1 : 0;
    v->tag = line + 1;
    v->lru = ++c->stamp;
    b->valid = 0;
    b->dirty = 0;
    return (int64_t)best;
}
