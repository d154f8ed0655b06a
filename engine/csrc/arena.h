/* arena.h — host memory on huge pages for the timing model's small per-SM tables, for the simulator's life.
 *
 * Why: each quantum every SM's warp slots, schedulers, queues and port calendars are touched once, a few
 * lines of each, and with 4 KiB pages each of those lines is also a host TLB miss (~132 SMs' worth of small
 * allocations spread over thousands of pages). In 2 MiB pages (transparent huge pages, asked for with
 * madvise: hugemem.h) they share a few dozen TLB entries. Only speed depends on it.
 *
 * Why an arena and not a block per launch: on this kind of host the first touch of a huge page costs about
 * 3x that of the same memory in 4 KiB pages (the hypervisor backs it then; measured 5-7 ms per MiB against
 * 2), so a block allocated per launch paid it on every launch (commit 49e37d2). The arena's chunks are
 * mapped and touched once, when they are made (gs_arena_reserve at the simulator's creation, or the first
 * launch that needs more), and live as long as the simulator; a table given back goes on a free list of
 * its size class and is handed out again, zeroed, without returning memory to the system.
 *
 * Blocks are 64-byte aligned (whole host cache lines: no two tables share one, hostmem.h says why) and
 * come in power-of-two size classes from 64 bytes. Thread-safe (the launch's set-up runs SM by SM on the
 * simulation threads); allocation is rare (creation, launches), never per cycle.
 *
 * Contract: gs_arena_init(a) makes an empty arena. gs_arena_zalloc(a, n) returns n zeroed bytes (NULL: out
 * of memory); gs_arena_cap(n) is the usable size of such a block; gs_arena_free(a, p, n) gives back a block
 * of gs_arena_zalloc(a, n) (p may be NULL). gs_arena_reserve(a, n) makes sure n more bytes can be handed out
 * without mapping (and touches them now). gs_arena_destroy(a) unmaps everything. */
#ifndef GS_ARENA_H
#define GS_ARENA_H
#include <pthread.h>
#include <stddef.h>
#include "hugemem.h"

#define GS_ARENA_CLASSES 40          /* 64 B << k, k < 40 */
#define GS_ARENA_CHUNK ((size_t)8 << 20)

typedef struct gs_arena {
    pthread_mutex_t lock;
    gs_huge *chunks;                 /* every chunk mapped, given back at destroy */
    uint32_t nchunks, capchunks;
    char *cur, *end;                 /* what is left of the newest chunk */
    void *free_[GS_ARENA_CLASSES];   /* blocks given back, per class (a block's first word: the next) */
    size_t mapped;                   /* bytes of the chunks */
} gs_arena;

void gs_arena_init(gs_arena *a);
void gs_arena_destroy(gs_arena *a);
size_t gs_arena_cap(size_t bytes);
void *gs_arena_zalloc(gs_arena *a, size_t bytes);
void gs_arena_free(gs_arena *a, void *p, size_t bytes);
int gs_arena_reserve(gs_arena *a, size_t bytes);

#endif
