/* hugemem.h — zeroed blocks for large tables read at random addresses (the L2 directories, the
 * read-coalescing table, the calendars' rings), on transparent huge pages where the host offers them.
 *
 * Why: the memory phase touches a few bytes of ~50 MiB of such tables per sector, at addresses a hash
 * picks; with 4 KiB pages nearly every one of those accesses misses the host's TLB too (a page walk
 * before the cache miss, and a software prefetch stalls on it). 2 MiB pages cover the tables with a few
 * dozen TLB entries. Only speed depends on it: the contents are the same zeroed memory either way.
 *
 * gs_huge_zalloc(bytes, &blk): blk->p points to `bytes` zeroed bytes, aligned to 64 (to 2 MiB when the
 * block is at least that large), or is NULL (no memory). gs_huge_free(&blk) gives it back.
 * gs_huge_populate(p, n): the pages of [p, p + n) backed now rather than at their first use in a launch.
 */
#ifndef GS_HUGEMEM_H
#define GS_HUGEMEM_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define GS_HUGE_PAGE ((size_t)2 << 20)

typedef struct gs_huge {
    void *p;                           /* the block */
    void *map;                         /* what to give back: an mmap of `len` bytes, or a calloc (len 0) */
    size_t len;
} gs_huge;

static inline void gs_huge_zalloc(size_t bytes, gs_huge *b) {
    b->p = b->map = NULL;
    b->len = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= GS_HUGE_PAGE) {
        /* anonymous memory is zero; map a huge page more so that the block can start on a 2 MiB boundary */
        size_t len = (bytes + 2 * GS_HUGE_PAGE - 1) & ~(GS_HUGE_PAGE - 1);
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            uintptr_t a = ((uintptr_t)m + GS_HUGE_PAGE - 1) & ~(uintptr_t)(GS_HUGE_PAGE - 1);
            madvise((void *)a, (bytes + GS_HUGE_PAGE - 1) & ~(GS_HUGE_PAGE - 1), MADV_HUGEPAGE);  /* (a hint) */
            b->p = (void *)a; b->map = m; b->len = len;
            return;
        }
    }
#endif
    /* small, or no mmap: 64-byte aligned from calloc */
    void *m = calloc(bytes + 64, 1);
    if (!m) return;
    b->map = m;
    b->p = (void *)(((uintptr_t)m + 63) & ~(uintptr_t)63);
}

static inline void gs_huge_populate(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (madvise(p, n, MADV_POPULATE_WRITE) == 0) return;
#endif
    for (size_t i = 0; i < n; i += 4096) ((volatile char *)p)[i] = 0;
}

static inline void gs_huge_free(gs_huge *b) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (b->map && b->len) munmap(b->map, b->len);
    else
#endif
        free(b->map);
    b->p = b->map = NULL;
    b->len = 0;
}

#endif
