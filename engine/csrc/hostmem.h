/* hostmem.h — allocations on host cache lines of their own.
 *
 * The parallel engine runs neighbouring SMs on different threads (SM s on thread s mod n). Their arrays,
 * allocated one after another, would share a host cache line at each boundary (malloc packs them), and
 * two cores writing the two ends of one line pass it back and forth. gs_line_calloc rounds an array up
 * to whole 64-byte lines and aligns it, so no two arrays share one. Large arrays (GS_HOST_LAZY bytes and
 * more) come from calloc as before: their fresh pages are zeroed by the kernel only when first touched
 * (a table most of which a small kernel never visits), and one shared line at each end of so much memory
 * does not matter. Free with free(). */
#ifndef GS_HOSTMEM_H
#define GS_HOSTMEM_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GS_HOST_LINE 64
#define GS_HOST_LAZY (64u * 1024)

/* zeroed n * size bytes rounded up to whole lines, starting a line (below GS_HOST_LAZY); NULL: out of memory */
static inline void *gs_line_calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size - GS_HOST_LINE) return NULL;
    size_t b = (n * size + GS_HOST_LINE - 1) & ~(size_t)(GS_HOST_LINE - 1);
    if (!b) b = GS_HOST_LINE;
    if (b >= GS_HOST_LAZY) return calloc(1, b);
    void *p = aligned_alloc(GS_HOST_LINE, b);
    if (p) memset(p, 0, b);
    return p;
}

#endif
