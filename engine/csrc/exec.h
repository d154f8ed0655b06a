/* exec.h — conveniences for writing handlers (included by the exec_*.c files only).
 *
 * A handler has the signature of gs_handler: (ctx, warp, decoded instruction, lane mask) and returns an
 * enum gs_xres. Register values live in 64-bit slots, zero-extended from their declared width; a handler
 * that writes an N-bit result stores it zero-extended (use the W32/W16 helpers). Operand i's 32 lanes
 * are at w->R + x->o[i] (x->ops[i] past the first GS_MAX_XOPS); predicates are masks in w->P.
 */
#ifndef GS_EXEC_H
#define GS_EXEC_H
#include <math.h>
#include "internal.h"

#define GS_HANDLER(name) static int name(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m)
#define GS_UNUSED_HANDLER_ARGS (void)c; (void)w; (void)x; (void)m

static inline uint64_t *gs_opr(gs_warp *w, const gs_xinst *x, int i) { return w->R + x->ops[i]; }
/* Source operand i for reading. A constant slot (an immediate: the first nconst slots, the same values in every
 * warp, cta.c copies them from the program) is read from the program's copy, which every warp of every SM
 * shares and so stays in the host cache, instead of the warp's own copy, which is cold whenever the warp
 * issues. Same values, fewer host cache misses. (`c` is the handler's context.) */
static inline const uint64_t *gs_src_(const gs_ctx *c, gs_warp *w, const gs_xinst *x, int i) {
    uint32_t o = x->ops[i];
    return o < c->prog->nconst * GS_WARP ? c->prog->const_regs + o : w->R + o;
}
#define gs_src(w, x, i) gs_src_(c, w, x, i)

static inline float gs_f32(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
static inline uint64_t gs_bits_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double gs_f64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t gs_bits_f64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

static inline uint64_t gs_width_mask(int bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }

/* the i-th top-level IR operand (vector elements follow their GS_OK_VEC record); for binders */
static inline const gs_ir_opnd *gs_top(const gs_xinst *x, int i) {
    const gs_ir_opnd *o = x->irops;
    for (int k = 0; k < i; k++) o += 1 + (o->kind == GS_OK_VEC ? o->n : 0);
    return o;
}

/* predicate operand value (handles the !p negation bit set by the loader) */
static inline uint32_t gs_pred(const gs_warp *w, uint32_t o) {
    uint32_t v = w->P[o & 0x7fffffffu];
    return (o & 0x80000000u) ? ~v : v;
}
/* write lanes m of predicate p */
static inline void gs_pred_write(gs_warp *w, uint32_t o, uint32_t v, uint32_t m) {
    uint32_t *p = &w->P[o & 0x7fffffffu];
    *p = (*p & ~m) | (v & m);
}

#endif
