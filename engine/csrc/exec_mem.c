/* exec_mem.c — ld, ldu, st (scalar and v2/v4/v8), cvta, isspacep.
 * Cache qualifiers (.ca/.cg/.cs/.lu/.cv/.nc, eviction priorities, L2 hints) are parsed by the front end
 * and have no effect on values; the timing model reads them from the instruction. */
#include "exec.h"

static inline int type_bytes(int t) {
    int b = gs_type_bits(t);
    return b < 8 ? 1 : b / 8;
}

/* flat index of the MEM operand: after the destinations for loads, first for stores */
static inline void compute_addrs(gs_warp *w, const gs_xinst *x, uint32_t m) {
    const uint64_t *b = x->mem_base >= 0 ? w->R + x->mem_base : NULL;
    uint64_t imm = (uint64_t)x->imm;
    if (b && x->mem32) GS_LANES(m, l, w->maddr[l] = (uint32_t)(b[l] + imm));   /* 32-bit address arithmetic */
    else if (b) GS_LANES(m, l, w->maddr[l] = b[l] + imm);
    else GS_LANES(m, l, w->maddr[l] = imm);
}

/* Fast paths for the most common accesses: 4-byte elements (scalar or vector) in shared memory or in
 * one global allocation, every lane aligned and in bounds. They fill the same access record as
 * gs_mem_resolve and fall back to the general handler for anything else (which reports faults). */
static inline uint8_t *fast_base(gs_ctx *c, gs_warp *w, int space, uint32_t m, uint32_t bytes) {
    uint64_t lo = ~0ull, hi = 0, orv = 0;
    const uint64_t *a = w->maddr;
    GS_LANES(m, l, { uint64_t v = a[l]; lo = v < lo ? v : lo; hi = v > hi ? v : hi; orv |= v; });
    if (orv & (bytes - 1)) return NULL;
    if (space == GS_SPACE_SHARED) {
        if (hi >= w->cta->shared_bytes || bytes > w->cta->shared_bytes - hi) return NULL;
        return w->cta->shared;
    }
    if (lo < GS_GLOBAL_BASE) return NULL;                  /* generic into a window, or a bad pointer */
    gs_alloc *h = c->hot;
    if (!h || lo < h->base || hi + bytes > h->base + h->size) {
        h = gs_mem_find(c->dev, lo, hi - lo + bytes);
        if (!h) return NULL;
        c->hot = h;
    }
    return h->host - h->base;
}

static inline void record(gs_warp *w, uint32_t m, uint32_t bytes, int space, int write) {
    w->mmask = m;
    w->msize = (uint8_t)bytes;
    w->mspace = (uint8_t)(space == GS_SPACE_GENERIC ? GS_SPACE_GLOBAL : space);
    w->mwrite = (uint8_t)write;
    w->matomic = 0;
}

static inline uint64_t load_elem(const uint8_t *p, int bytes, int sign) {
    switch (bytes) {
    case 1: { uint8_t v = *p; return sign ? (uint64_t)(int64_t)(int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return sign ? (uint64_t)(int64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return sign ? (uint64_t)(int64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void store_elem(uint8_t *p, int bytes, uint64_t v) {
    switch (bytes) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t t = (uint16_t)v; memcpy(p, &t, 2); break; }
    case 4: { uint32_t t = (uint32_t)v; memcpy(p, &t, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Destination width (bits) of element i, from the register's declared width (operand n). */
static inline uint64_t dst_mask(const gs_xinst *x) {
    const gs_ir_opnd *d = x->irops;
    if (d->kind == GS_OK_VEC) d++;
    int bits = d->n ? d->n : 64;
    return gs_width_mask(bits);
}

GS_HANDLER(h_ld) {
    int n = x->vec ? x->vec : 1;
    int es = type_bytes(x->type);
    int sign = gs_type_is_signed(x->type);
    uint8_t *ptr[GS_WARP];
    compute_addrs(w, x, m);
    if (gs_mem_resolve(c, w, x, x->space, m, (uint32_t)(es * n), (uint32_t)(es * n), 0, ptr)) return GS_X_FAULT;
    uint64_t dm = dst_mask(x);
    if (n == 1 && x->ops[0] == 0xffffffffu) return GS_X_NEXT;   /* ld to the sink '_': access, no write */
    if (es == 4 && !sign && n == 1) {     /* the common case */
        uint64_t *d = gs_opr(w, x, 0);
        GS_LANES(m, l, { uint32_t v; memcpy(&v, ptr[l], 4); d[l] = v; });
        return GS_X_NEXT;
    }
    for (int e = 0; e < n; e++) {
        if (x->ops[e] == 0xffffffffu) continue;
        uint64_t *d = gs_opr(w, x, e);
        GS_LANES(m, l, d[l] = load_elem(ptr[l] + e * es, es, sign) & dm);
    }
    return GS_X_NEXT;
}

GS_HANDLER(h_st) {
    int n = x->vec ? x->vec : 1;
    int es = type_bytes(x->type);
    uint8_t *ptr[GS_WARP];
    compute_addrs(w, x, m);
    if (gs_mem_resolve(c, w, x, x->space, m, (uint32_t)(es * n), (uint32_t)(es * n), 1, ptr)) return GS_X_FAULT;
    for (int e = 0; e < n; e++) {
        const uint64_t *s = gs_src(w, x, 1 + e);
        GS_LANES(m, l, store_elem(ptr[l] + e * es, es, s[l]));
    }
    return GS_X_NEXT;
}

static uint64_t window_of(int space) {
    switch (space) {
    case GS_SPACE_SHARED: case GS_SPACE_SHARED_CLUSTER: return GS_SHARED_WINDOW;
    case GS_SPACE_LOCAL: return GS_LOCAL_WINDOW;
    case GS_SPACE_CONST: return GS_CONST_WINDOW;
    case GS_SPACE_PARAM: return GS_PARAM_WINDOW;
    default: return 0;
    }
}

/* cvta.space d, a (to generic: add the window base); cvta.to.space d, a (GS_F_LO marks ".to") */
GS_HANDLER(h_cvta) {
    (void)c;
    uint64_t base = window_of(x->space);
    uint64_t mask = gs_width_mask(gs_type_bits(x->type));
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    if (x->flags & GS_F_LO) GS_LANES(m, l, d[l] = (a[l] - base) & mask);
    else GS_LANES(m, l, d[l] = (a[l] + base) & mask);
    return GS_X_NEXT;
}

GS_HANDLER(h_isspacep) {
    (void)c;
    const uint64_t *a = gs_src(w, x, 1);
    uint64_t base = window_of(x->space);
    uint32_t r = 0;
    GS_LANES(m, l, {
        uint64_t v = a[l];
        int in = base ? (v >= base && v < base + GS_WINDOW_SIZE) : (v >= GS_GLOBAL_BASE);
        r |= (uint32_t)in << l;
    });
    gs_pred_write(w, x->ops[0], r, m);
    return GS_X_NEXT;
}

GS_HANDLER(h_ld_fast32) {
    int n = x->vec ? x->vec : 1;
    compute_addrs(w, x, m);
    uint8_t *base = fast_base(c, w, x->space, m, (uint32_t)(4 * n));
    if (!base) return h_ld(c, w, x, m);
    record(w, m, (uint32_t)(4 * n), x->space, 0);
    const uint64_t *a = w->maddr;
    for (int e = 0; e < n; e++) {
        if (x->ops[e] == 0xffffffffu) continue;
        uint64_t *d = gs_opr(w, x, e);
        GS_LANES(m, l, { uint32_t v; memcpy(&v, base + a[l] + 4 * e, 4); d[l] = v; });
    }
    return GS_X_NEXT;
}

GS_HANDLER(h_st_fast32) {
    int n = x->vec ? x->vec : 1;
    compute_addrs(w, x, m);
    uint8_t *base = fast_base(c, w, x->space, m, (uint32_t)(4 * n));
    if (!base) return h_st(c, w, x, m);
    record(w, m, (uint32_t)(4 * n), x->space, 1);
    const uint64_t *a = w->maddr;
    for (int e = 0; e < n; e++) {
        const uint64_t *s = gs_src(w, x, 1 + e);
        GS_LANES(m, l, { uint32_t v = (uint32_t)s[l]; memcpy(base + a[l] + 4 * e, &v, 4); });
    }
    return GS_X_NEXT;
}

gs_handler gs_bind_mem(const gs_xinst *x) {
    switch (x->op) {
    case GS_OP_LD: case GS_OP_LDU: case GS_OP_ST: {
        int bits = gs_type_bits(x->type);
        if (bits < 8 || bits > 64) return NULL;
        if (!(x->vec == 0 || x->vec == 1 || x->vec == 2 || x->vec == 4 || x->vec == 8)) return NULL;
        if (x->space == GS_SPACE_TEX || x->space == GS_SPACE_NONE) return NULL;
        if (x->op == GS_OP_ST && (x->space == GS_SPACE_CONST || x->space == GS_SPACE_PARAM)) return NULL;
        int fast = bits == 32 && !gs_type_is_signed(x->type) && (x->space == GS_SPACE_SHARED ||
                   x->space == GS_SPACE_GLOBAL || x->space == GS_SPACE_GENERIC);
        if (x->type == GS_T_S32) fast = bits == 32 && (x->space == GS_SPACE_SHARED || x->space == GS_SPACE_GLOBAL ||
                                                      x->space == GS_SPACE_GENERIC);
        if (fast) return x->op == GS_OP_ST ? h_st_fast32 : h_ld_fast32;
        return x->op == GS_OP_ST ? h_st : h_ld;
    }
    case GS_OP_CVTA:
        return (x->type == GS_T_U32 || x->type == GS_T_U64 || x->type == GS_T_B64 || x->type == GS_T_B32) ? h_cvta : NULL;
    case GS_OP_ISSPACEP:
        return h_isspacep;
    default:
        return NULL;
    }
}
