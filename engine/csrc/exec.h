/* exec.h — conveniences for writing handlers (included by the exec_*.c files only).
 *
 * A handler has the signature of gs_handler: (ctx, warp, decoded instruction, lane mask) and returns an
 * enum gs_xres. Register values live in 64-bit slots, zero-extended from their declared width; a handler
 * that writes an N-bit result stores it zero-extended (use the W32/W16 helpers). Operand i's 32 lanes
 * are at w->R + x->o[i] (x->ops[i] past the first GS_MAX_XOPS); predicates are masks in w->P. A register
 * of at most 32 bits may be stored in 32-bit lanes instead, for the handlers that use GS_IN / GS_OUT
 * (below, and regwidth.h).
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

/* ---- 32-bit register storage (regwidth.c) ----
 * A register slot whose every value is at most 32 bits wide may be stored in 32-bit lanes (128 B, two host
 * cache lines, instead of 256 B): regwidth.c decides that per slot when the program is loaded, and only for
 * slots that every instruction touching them reaches through the accessors below (x->n32 bit i: flat
 * operand i is such a narrow register; x->base32: so is the MEM operand's base). Handlers keep computing on
 * 64-bit lanes: GS_IN widens a narrow source into a stack buffer, GS_OUT hands out a stack buffer holding
 * the destination's current values and writes it back, truncated to 32 bits, when the variable leaves its
 * scope (GCC's cleanup attribute: every return is covered). The values are the same as in 64-bit slots:
 * a narrow slot only ever holds values zero-extended from at most 32 bits. Two rules for handlers using
 * GS_OUT: a destination's scope must end before another handler is called that may write the same
 * register, and two destinations that may be the same register must be written in separate scopes (the
 * later scope's initial values are the earlier one's results). */
static inline int gs_n32(const gs_xinst *x, int i) { return i < 32 && ((x->n32 >> i) & 1u); }
/* out of line (regwidth.c): the widening and narrowing copies stay out of every handler's code (host i-cache) */
void gs_widen32_lanes(uint64_t *restrict d, const uint32_t *restrict s);
void gs_narrow32_lanes(uint32_t *restrict d, const uint64_t *restrict s);
static inline const uint64_t *gs_in_(const gs_ctx *c, gs_warp *w, const gs_xinst *x, int i, uint64_t *buf) {
    if (gs_n32(x, i)) { gs_widen32_lanes(buf, (const uint32_t *)(w->R + x->ops[i])); return buf; }
    return gs_src_(c, w, x, i);
}
typedef struct gs_out32 { uint32_t *to; uint64_t buf[GS_WARP]; } gs_out32;
static inline uint64_t *gs_out_(gs_warp *w, const gs_xinst *x, int i, gs_out32 *o) {
    if (!gs_n32(x, i)) { o->to = NULL; return w->R + x->ops[i]; }
    o->to = (uint32_t *)(w->R + x->ops[i]);
    gs_widen32_lanes(o->buf, o->to);
    return o->buf;
}
static inline void gs_out_put(gs_out32 *o) {
    if (!o->to) return;
#ifdef GS_REG32_CHECK
    /* a register in 32-bit lanes must never be given a value wider than 32 bits; the one exception in
     * 64-bit slots: a 32-bit result taken whole from a negative immediate (selp.b32 d, -1, ...) keeps the
     * immediate's sign extension, which no reader of a register of at most 32 bits looks at (sources are
     * read at the instruction's type width, at most the register's under PTX's typing rules) */
    for (int l = 0; l < GS_WARP; l++) {
        uint32_t hi = (uint32_t)(o->buf[l] >> 32);
        if (hi && !(hi == 0xffffffffu && (int32_t)o->buf[l] < 0)) __builtin_trap();
    }
#endif
    gs_narrow32_lanes(o->to, o->buf);
}
/* Fast paths on 32-bit lanes, for handlers whose type is at most 32 bits wide: gs_all32(x, dst, src) says
 * that the destinations in mask dst are registers in 32-bit lanes and the sources in mask src are such
 * registers or constants (read from the program's 32-bit copy of the constants, exact because the handler
 * reads at most 32 bits of them); then gs_dst32 / gs_src32 give their 32-bit lanes. */
static inline int gs_all32(const gs_xinst *x, uint32_t dst, uint32_t src) {
    return (x->n32 & dst) == dst && ((x->n32 | x->k32) & src) == src;
}
static inline uint32_t *gs_dst32(gs_warp *w, const gs_xinst *x, int i) { return (uint32_t *)(w->R + x->ops[i]); }
static inline const uint32_t *gs_src32_(const gs_ctx *c, gs_warp *w, const gs_xinst *x, int i) {
    uint32_t o = x->ops[i];
    return o < c->prog->nconst * GS_WARP ? c->prog->const32 + o : (const uint32_t *)(w->R + o);
}
#define gs_src32(w, x, i) gs_src32_(c, w, x, i)
/* the low 32 bits of source operand i's 32 lanes, into out (from whichever storage it has) */
static inline void gs_low32_(const gs_ctx *c, gs_warp *w, const gs_xinst *x, int i, uint32_t *out) {
    if (i < 32 && gs_all32(x, 0, 1u << i)) { memcpy(out, gs_src32_(c, w, x, i), GS_WARP * sizeof *out); return; }
    const uint64_t *s = gs_src_(c, w, x, i);
    for (int l = 0; l < GS_WARP; l++) out[l] = (uint32_t)s[l];
}
#define gs_low32(w, x, i, out) gs_low32_(c, w, x, i, out)

/* `const uint64_t *name` = source operand i; `uint64_t *name` = destination operand i */
#define GS_IN(name, i) uint64_t name##_b32[GS_WARP]; const uint64_t *name = gs_in_(c, w, x, (i), name##_b32)
#define GS_OUT(name, i) gs_out32 name##_o32 __attribute__((cleanup(gs_out_put))); \
    uint64_t *name = gs_out_(w, x, (i), &name##_o32)
/* the MEM operand's base register, lane l (no base: 0) */
static inline uint64_t gs_base_lane(const gs_warp *w, const gs_xinst *x, int l) {
    if (x->base32) return ((const uint32_t *)(w->R + x->mem_base))[l];
    return w->R[x->mem_base + l];
}

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
