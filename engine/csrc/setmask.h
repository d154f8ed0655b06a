/* setmask.h — which sets of a cache directory have had a line installed since the directory was last
 * cleared, one bit per set. A clear then zeroes those sets only: a launch that touches a few thousand of
 * the L2's sets no longer clears all of its 37 MiB, a clear of a clean directory costs a scan of the mask,
 * and the state after the clear is the same, since a set nothing was installed in is still all zero. */
#ifndef GS_SETMASK_H
#define GS_SETMASK_H
#include <stdint.h>
#include <stdlib.h>
#include "hostmem.h"

typedef struct gs_setmask {
    uint64_t *bits;
    uint32_t words;
} gs_setmask;

/* 0, or -1 (no memory). Whole host cache lines (hostmem.h): the SMs' L1 masks are small and written on every
 * miss by whichever thread runs the SM, so two of them must not share a line. */
static inline int gs_setmask_init(gs_setmask *m, uint64_t sets) {
    m->words = (uint32_t)((sets + 63) / 64);
    m->bits = gs_line_calloc(m->words ? m->words : 1, sizeof *m->bits);
    return m->bits ? 0 : -1;
}

static inline void gs_setmask_free(gs_setmask *m) {
    free(m->bits);
    m->bits = NULL;
    m->words = 0;
}

static inline void gs_setmask_mark(gs_setmask *m, uint64_t set) { m->bits[set >> 6] |= 1ull << (set & 63); }

/* clear_set(ctx, set) for every marked set, in increasing order; the mask is empty after */
static inline void gs_setmask_drain(gs_setmask *m, void (*clear_set)(void *ctx, uint64_t set), void *ctx) {
    for (uint32_t i = 0; i < m->words; i++) {
        uint64_t b = m->bits[i];
        if (!b) continue;
        m->bits[i] = 0;
        while (b) {
            clear_set(ctx, (uint64_t)i * 64 + (uint64_t)__builtin_ctzll(b));
            b &= b - 1;
        }
    }
}

#endif
