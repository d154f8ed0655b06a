/* mem.c — address translation for one lane: state spaces, generic windows, bounds and alignment.
 *
 * Contract of gs_mem_lane: returns a host pointer to `size` bytes for the access of `lane`, or NULL
 * after filling the fault (out of bounds, misaligned). `size` is the whole access (a v4.f32 load is 16
 * bytes) and must be a power of two for the alignment check, as PTX requires.
 */
#include "internal.h"

static int classify_generic(uint64_t addr, uint64_t *off) {
    if (addr >= GS_SHARED_WINDOW && addr < GS_SHARED_WINDOW + GS_WINDOW_SIZE) {
        *off = addr - GS_SHARED_WINDOW; return GS_SPACE_SHARED;
    }
    if (addr >= GS_LOCAL_WINDOW && addr < GS_LOCAL_WINDOW + GS_WINDOW_SIZE) {
        *off = addr - GS_LOCAL_WINDOW; return GS_SPACE_LOCAL;
    }
    if (addr >= GS_CONST_WINDOW && addr < GS_CONST_WINDOW + GS_WINDOW_SIZE) {
        *off = addr - GS_CONST_WINDOW; return GS_SPACE_CONST;
    }
    if (addr >= GS_PARAM_WINDOW && addr < GS_PARAM_WINDOW + GS_WINDOW_SIZE) {
        *off = addr - GS_PARAM_WINDOW; return GS_SPACE_PARAM;
    }
    *off = addr;
    return GS_SPACE_GLOBAL;
}

static uint8_t *oob(gs_ctx *c, gs_warp *w, const gs_xinst *x, int lane, uint64_t addr, int space,
                    uint32_t size, uint64_t limit) {
    if (limit)
        gs_fault_set(c, w, x, GS_FAULT_OOB, lane, addr, space,
                     "out-of-bounds %s access of %u bytes at 0x%llx (%s size %llu)",
                     gs_space_name(space), size, (unsigned long long)addr, gs_space_name(space),
                     (unsigned long long)limit);
    else
        gs_fault_set(c, w, x, GS_FAULT_OOB, lane, addr, space,
                     "out-of-bounds %s access of %u bytes at 0x%llx (no allocation there)",
                     gs_space_name(space), size, (unsigned long long)addr);
    return NULL;
}

uint8_t *gs_mem_lane(gs_ctx *c, gs_warp *w, const gs_xinst *x, int space, uint64_t addr,
                     uint32_t size, int lane) {
    if (addr & (uint64_t)(size - 1)) {
        gs_fault_set(c, w, x, GS_FAULT_MISALIGNED, lane, addr, space,
                     "misaligned %s access: address 0x%llx is not a multiple of %u",
                     gs_space_name(space), (unsigned long long)addr, size);
        return NULL;
    }
    uint64_t off = addr;
    if (space == GS_SPACE_GENERIC) space = classify_generic(addr, &off);
    switch (space) {
    case GS_SPACE_GLOBAL: {
        gs_alloc *a = gs_mem_find(c->dev, off, size);
        if (!a) return oob(c, w, x, lane, addr, GS_SPACE_GLOBAL, size, 0);
        return a->host + (off - a->base);
    }
    case GS_SPACE_SHARED:
    case GS_SPACE_SHARED_CLUSTER: {
        uint32_t lim = w->cta->shared_bytes;
        if (off >= lim || size > lim - off) return oob(c, w, x, lane, addr, GS_SPACE_SHARED, size, lim);
        return w->cta->shared + off;
    }
    case GS_SPACE_LOCAL: {
        uint32_t lim = w->cta->local_bytes;
        if (off >= lim || size > lim - off) return oob(c, w, x, lane, addr, GS_SPACE_LOCAL, size, lim);
        return w->local + (uint64_t)lane * lim + off;
    }
    case GS_SPACE_PARAM: {
        uint32_t lim = c->param_bytes;
        if (off >= lim || size > lim - off) return oob(c, w, x, lane, addr, GS_SPACE_PARAM, size, lim);
        return (uint8_t *)c->params + off;
    }
    case GS_SPACE_CONST: {
        uint32_t lim = c->prog->const_bytes;
        if (off >= lim || size > lim - off) return oob(c, w, x, lane, addr, GS_SPACE_CONST, size, lim);
        return c->prog->const_bank + off;
    }
    default:
        gs_fault_set(c, w, x, GS_FAULT_UNSUPPORTED, lane, addr, space, "unsupported state space %s",
                     gs_space_name(space));
        return NULL;
    }
}

int gs_mem_resolve(gs_ctx *c, gs_warp *w, const gs_xinst *x, int space, uint32_t m, uint32_t size,
                   uint32_t align, int write, uint8_t **ptr) {
    const uint64_t *a = w->maddr;
    w->mmask = m;
    w->msize = (uint8_t)(size > 255 ? 255 : size);
    w->mwrite = (uint8_t)write;
    w->matomic = 0;
    uint64_t lo = ~0ull, hi = 0, ormask = 0;
    GS_LANES(m, l, { uint64_t v = a[l]; lo = v < lo ? v : lo; hi = v > hi ? v : hi; ormask |= v; });
    int sp = space;
    if (sp == GS_SPACE_GENERIC && lo >= GS_GLOBAL_BASE) sp = GS_SPACE_GLOBAL;
    w->mspace = (uint8_t)sp;
    if (!(ormask & (uint64_t)(align - 1))) {
        if (sp == GS_SPACE_GLOBAL) {               /* fast path: one allocation holds every lane */
            gs_alloc *h = c->hot;
            if (!h || lo < h->base || hi + size > h->base + h->size) h = gs_mem_find(c->dev, lo, hi - lo + size);
            if (h) {
                c->hot = h;
                uint8_t *base = h->host - h->base;
                GS_LANES(m, l, ptr[l] = base + a[l]);
                return 0;
            }
        } else if (sp == GS_SPACE_SHARED && hi < w->cta->shared_bytes &&
                   size <= w->cta->shared_bytes - hi) {
            uint8_t *base = w->cta->shared;
            GS_LANES(m, l, ptr[l] = base + a[l]);
            return 0;
        } else if (sp == GS_SPACE_PARAM && hi < c->param_bytes && size <= c->param_bytes - hi) {
            uint8_t *base = (uint8_t *)c->params;      /* kernel parameters: read-only, usually uniform */
            GS_LANES(m, l, ptr[l] = base + a[l]);
            return 0;
        } else if (sp == GS_SPACE_CONST && hi < c->prog->const_bytes && size <= c->prog->const_bytes - hi && !write) {
            uint8_t *base = c->prog->const_bank;
            GS_LANES(m, l, ptr[l] = base + a[l]);
            return 0;
        }
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) {     /* slow path: lane by lane, exact fault report */
        int l = __builtin_ctz(mm);
        if (a[l] & (uint64_t)(align - 1)) {
            return gs_fault_set(c, w, x, GS_FAULT_MISALIGNED, l, a[l], sp,
                                "misaligned %s access: address 0x%llx is not a multiple of %u",
                                gs_space_name(sp), (unsigned long long)a[l], align);
        }
        ptr[l] = gs_mem_lane(c, w, x, space, a[l], size, l);
        if (!ptr[l]) return GS_X_FAULT;
    }
    return 0;
}
