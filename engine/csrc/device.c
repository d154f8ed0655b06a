/* device.c — the simulated device's global memory: tracked allocations backed by anonymous mappings.
 *
 * Each allocation is one mmap(MAP_NORESERVE) region, so memory is sparse and paged by the host OS:
 * untouched pages cost nothing and read as zero. Allocations are placed in a device address space that
 * starts at GS_GLOBAL_BASE, 256-byte aligned, with a guard gap after each, so an access that runs off
 * the end of a buffer falls outside every allocation and faults instead of touching a neighbour.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include "internal.h"

#define GS_ALLOC_ALIGN 256ull
#define GS_GUARD_GAP (1ull << 20)

gs_device *gs_device_create(void) {
    gs_device *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->next_base = GS_GLOBAL_BASE;
    return d;
}

void gs_device_destroy(gs_device *d) {
    if (!d) return;
    for (uint32_t i = 0; i < d->nallocs; i++) munmap(d->allocs[i].host, d->allocs[i].size);
    free(d->allocs);
    free(d);
}

/* where the allocation after one of `bytes` at `base` may start: past its guard gap, 64 KiB aligned */
static uint64_t after(uint64_t base, uint64_t bytes) {
    uint64_t size = (bytes + GS_ALLOC_ALIGN - 1) & ~(GS_ALLOC_ALIGN - 1);
    return (base + size + GS_GUARD_GAP + 0xffff) & ~0xffffull;
}

uint64_t gs_malloc(gs_device *d, uint64_t bytes) {
    if (bytes == 0) bytes = 1;
    uint64_t size = (bytes + GS_ALLOC_ALIGN - 1) & ~(GS_ALLOC_ALIGN - 1);
    void *host = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED) return 0;
    if (d->nallocs == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 16;
        gs_alloc *na = realloc(d->allocs, cap * sizeof *na);
        if (!na) { munmap(host, size); return 0; }
        d->allocs = na;
        d->cap = cap;
    }
    uint64_t base = d->next_base;
    d->next_base = after(base, bytes);
    /* a new base lies past every live allocation, so appending keeps the array sorted */
    d->allocs[d->nallocs++] = (gs_alloc){.base = base, .size = bytes, .host = host};
    d->allocated += bytes;
    return base;
}

gs_alloc *gs_mem_find(gs_device *d, uint64_t addr, uint64_t size) {
    uint32_t lo = 0, hi = d->nallocs;
    while (lo < hi) {                      /* last allocation with base <= addr */
        uint32_t mid = (lo + hi) / 2;
        if (d->allocs[mid].base <= addr) lo = mid + 1; else hi = mid;
    }
    if (lo == 0) return NULL;
    gs_alloc *a = &d->allocs[lo - 1];
    if (addr - a->base >= a->size || size > a->size - (addr - a->base)) return NULL;
    return a;
}

int gs_free(gs_device *d, uint64_t addr) {
    for (uint32_t i = 0; i < d->nallocs; i++) {
        if (d->allocs[i].base == addr) {
            uint64_t mapped = (d->allocs[i].size + GS_ALLOC_ALIGN - 1) & ~(GS_ALLOC_ALIGN - 1);
            munmap(d->allocs[i].host, mapped);
            d->allocated -= d->allocs[i].size;
            memmove(&d->allocs[i], &d->allocs[i + 1], (d->nallocs - i - 1) * sizeof *d->allocs);
            d->nallocs--;
            /* the next allocation goes right after the last live one (with its guard gap): a device
             * whose buffers are all freed hands out the addresses of a fresh one, so a simulation's
             * addresses (and with them L2 slices, DRAM channels and rows) do not depend on history */
            d->next_base = d->nallocs ? after(d->allocs[d->nallocs - 1].base, d->allocs[d->nallocs - 1].size)
                                      : GS_GLOBAL_BASE;
            return 0;
        }
    }
    return -1;
}

int gs_memcpy_htod(gs_device *d, uint64_t addr, const void *src, uint64_t n) {
    gs_alloc *a = gs_mem_find(d, addr, n ? n : 1);
    if (!a) return -1;
    memcpy(a->host + (addr - a->base), src, n);
    return 0;
}

int gs_memcpy_dtoh(gs_device *d, void *dst, uint64_t addr, uint64_t n) {
    gs_alloc *a = gs_mem_find(d, addr, n ? n : 1);
    if (!a) return -1;
    memcpy(dst, a->host + (addr - a->base), n);
    return 0;
}

int gs_memset(gs_device *d, uint64_t addr, int value, uint64_t n) {
    gs_alloc *a = gs_mem_find(d, addr, n ? n : 1);
    if (!a) return -1;
    memset(a->host + (addr - a->base), value, n);
    return 0;
}

uint64_t gs_device_allocated_bytes(gs_device *d) { return d->allocated; }
