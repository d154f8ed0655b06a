/* arena.c — the simulator's huge-page arena (arena.h). */
#include <stdlib.h>
#include <string.h>
#include "arena.h"

static unsigned size_class(size_t bytes) {
    unsigned k = 0;
    while (k + 1 < GS_ARENA_CLASSES && ((size_t)64 << k) < bytes) k++;
    return k;
}

size_t gs_arena_cap(size_t bytes) { return (size_t)64 << size_class(bytes); }

void gs_arena_init(gs_arena *a) {
    memset(a, 0, sizeof *a);
    pthread_mutex_init(&a->lock, NULL);
}

void gs_arena_destroy(gs_arena *a) {
    for (uint32_t i = 0; i < a->nchunks; i++) gs_huge_free(&a->chunks[i]);
    free(a->chunks);
    pthread_mutex_destroy(&a->lock);
    memset(a, 0, sizeof *a);
}

/* a new chunk of at least `bytes` (lock held); what was left of the last one is lost. -1: out of memory */
static int grow(gs_arena *a, size_t bytes) {
    if (a->nchunks == a->capchunks) {
        uint32_t c = a->capchunks ? 2 * a->capchunks : 8;
        gs_huge *g = realloc(a->chunks, c * sizeof *g);
        if (!g) return -1;
        a->chunks = g;
        a->capchunks = c;
    }
    size_t n = bytes > GS_ARENA_CHUNK ? (bytes + GS_HUGE_PAGE - 1) & ~(GS_HUGE_PAGE - 1) : GS_ARENA_CHUNK;
    gs_huge *h = &a->chunks[a->nchunks];
    gs_huge_zalloc(n, h);
    if (!h->p) return -1;
    gs_huge_populate(h->p, n);
    a->nchunks++;
    a->cur = h->p;
    a->end = (char *)h->p + n;
    a->mapped += n;
    return 0;
}

int gs_arena_reserve(gs_arena *a, size_t bytes) {
    pthread_mutex_lock(&a->lock);
    int r = (size_t)(a->end - a->cur) >= bytes ? 0 : grow(a, bytes);
    pthread_mutex_unlock(&a->lock);
    return r;
}

void *gs_arena_zalloc(gs_arena *a, size_t bytes) {
    unsigned k = size_class(bytes);
    size_t cap = (size_t)64 << k;
    void *p = NULL;
    pthread_mutex_lock(&a->lock);
    if (a->free_[k]) {
        p = a->free_[k];
        memcpy(&a->free_[k], p, sizeof(void *));
    } else if ((size_t)(a->end - a->cur) >= cap || grow(a, cap) == 0) {
        p = a->cur;                                     /* (fresh: still zero) */
        a->cur += cap;
        pthread_mutex_unlock(&a->lock);
        return p;
    }
    pthread_mutex_unlock(&a->lock);
    if (p) memset(p, 0, cap);                           /* a block given back: clear it */
    return p;
}

void gs_arena_free(gs_arena *a, void *p, size_t bytes) {
    if (!p) return;
    unsigned k = size_class(bytes);
    pthread_mutex_lock(&a->lock);
    memcpy(p, &a->free_[k], sizeof(void *));
    a->free_[k] = p;
    pthread_mutex_unlock(&a->lock);
}
