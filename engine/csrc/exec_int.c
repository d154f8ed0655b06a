/* exec_int.c — integer arithmetic: add, sub (.sat, .cc), addc/subc/madc (carry in), mul and mad
 * (.lo/.hi/.wide, .sat, .cc), mul24/mad24, sad, div, rem, abs, neg, min/max (.relu), dp4a, dp2a.
 * Bit operations (popc, shifts, prmt, ...) are in exec_bits.c.
 *
 * Handlers are generated per integer type (u16, s16, u32, s32, u64, s64) from one expression; in an
 * expression T is the PTX type, U its unsigned twin, A the unsigned type arithmetic wraps in (no C
 * integer promotion to int, no signed overflow), W the double-width type of T's signedness, BITS the
 * width. The binder picks the handler from a table indexed by gs_int_slot().
 *
 * Numerical hazards, as on hardware:
 *  - add/sub/mul wrap; add.sat.s32 clamps to [INT32_MIN, INT32_MAX];
 *  - div/rem by zero (PTX: unspecified) give all ones, quotient and remainder, signed or not, as an
 *    H200 does (tests/kernels/isa_h200.npz); INT_MIN / -1 wraps to INT_MIN with remainder 0;
 *  - the carry flag (CC.CF, one bit per lane in gs_warp.carry) is written by .cc forms. Subtraction is
 *    done as the hardware does it, a + ~b + carry-in (carry-in 1 for sub.cc, CF for subc), and CF is
 *    that sum's carry-out, i.e. NOT borrow: sub.cc/subc chains compute multi-word differences, and
 *    mixed chains (add.cc then subc) give the hardware's results (measured), not PTX's prose.
 */
#include "exec_alu.h"

/* ---------------------------------------------------------------------------------------------
 * per-type generation
 * --------------------------------------------------------------------------------------------- */
#define INT_TYPES(GEN, name, ...)                                                                  \
    GEN(name##_u16, uint16_t, uint16_t, uint32_t, uint32_t, 16 + 0, __VA_ARGS__)                   \
    GEN(name##_s16, int16_t, uint16_t, uint32_t, int32_t, 16 + 256, __VA_ARGS__)                   \
    GEN(name##_u32, uint32_t, uint32_t, uint32_t, uint64_t, 32 + 0, __VA_ARGS__)                   \
    GEN(name##_s32, int32_t, uint32_t, uint32_t, int64_t, 32 + 256, __VA_ARGS__)                   \
    GEN(name##_u64, uint64_t, uint64_t, uint64_t, unsigned __int128, 64 + 0, __VA_ARGS__)          \
    GEN(name##_s64, int64_t, uint64_t, uint64_t, __int128, 64 + 256, __VA_ARGS__)                  \
    static const gs_handler name[6] = {name##_u16, name##_s16, name##_u32, name##_s32, name##_u64,   \
                                       name##_s64};

/* names an expression may use: TT the type, UT unsigned twin, AT arithmetic type, WT double width,
 * NB the width, SG 1 if signed (the generator's B_ argument is width + 256 * signed) */
#define TYPES_(T_, U_, A_, W_, B_)                                                                 \
    typedef T_ TT; typedef U_ UT; typedef A_ AT; typedef W_ WT; enum { NB = (B_) & 255, SG = (B_) >> 8 }; \
    (void)c; (void)sizeof(TT); (void)sizeof(UT); (void)sizeof(AT); (void)sizeof(WT);
#define GEN_UN(fn, T_, U_, A_, W_, B_, EXPR)                                                         \
    GS_HANDLER(fn) {                                                                               \
        TYPES_(T_, U_, A_, W_, B_)                                                                 \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1);                                                      \
        GS_VLANES(m, l, { TT a = (TT)pa[l]; d[l] = (uint64_t)(UT)(EXPR); });                          \
        return GS_X_NEXT;                                                                          \
    }
#define GEN_BIN(fn, T_, U_, A_, W_, B_, EXPR)                                                        \
    GS_HANDLER(fn) {                                                                               \
        TYPES_(T_, U_, A_, W_, B_)                                                                 \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        GS_VLANES(m, l, { TT a = (TT)pa[l]; TT b = (TT)pb[l]; d[l] = (uint64_t)(UT)(EXPR); });          \
        return GS_X_NEXT;                                                                          \
    }
#define GEN_TER(fn, T_, U_, A_, W_, B_, EXPR)                                                        \
    GS_HANDLER(fn) {                                                                               \
        TYPES_(T_, U_, A_, W_, B_)                                                                 \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);        \
        GS_VLANES(m, l, { TT a = (TT)pa[l]; TT b = (TT)pb[l]; TT cc = (TT)pc[l];                         \
                          d[l] = (uint64_t)(UT)(EXPR); });                                          \
        return GS_X_NEXT;                                                                          \
    }
/* the "wide" forms: 2*BITS-bit result (16 and 32-bit types only); c is double width in mad.wide */
#define GEN_WIDE(fn, T_, U_, A_, W_, B_, EXPR)                                                       \
    GS_HANDLER(fn) {                                                                               \
        TYPES_(T_, U_, A_, W_, B_)                                                                 \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        const uint64_t *pc = x->nops > 3 ? gs_src(w, x, 3) : pa;                                   \
        GS_VLANES(m, l, { TT a = (TT)pa[l]; TT b = (TT)pb[l]; WT cc = (WT)pc[l]; (void)cc;               \
                          d[l] = gs_width_mask(2 * NB) & (uint64_t)(EXPR); });                   \
        return GS_X_NEXT;                                                                          \
    }

/* high half of the double-width product */
#define MULHI ((TT)(((WT)a * (WT)b) >> NB))
/* division on magnitudes with the sign applied after (INT_MIN / -1 wraps); by zero: all ones */
#define ISNEG(v) (SG && ((UT)(v) >> (NB - 1)))
#define SDIV(a, b)                                                                                 \
    ((b) == 0 ? (AT)~(AT)0 : ISNEG(a) != ISNEG(b) ? (AT)0 - (AT)udiv_mag(a, b) : (AT)udiv_mag(a, b))
#define SREM(a, b) ((b) == 0 ? (AT)~(AT)0 : ISNEG(a) ? (AT)0 - (AT)urem_mag(a, b) : (AT)urem_mag(a, b))
#define MAG(v) (ISNEG(v) ? (UT)((UT)0 - (UT)(v)) : (UT)(v))
#define udiv_mag(a, b) (MAG(b) ? (UT)(MAG(a) / MAG(b)) : (UT)~(UT)0)
#define urem_mag(a, b) (MAG(b) ? (UT)(MAG(a) % MAG(b)) : (UT)~(UT)0)

INT_TYPES(GEN_BIN, h_add, (AT)a + (AT)b)
INT_TYPES(GEN_BIN, h_sub, (AT)a - (AT)b)
INT_TYPES(GEN_BIN, h_mul_lo, (AT)a * (AT)b)
INT_TYPES(GEN_BIN, h_mul_hi, MULHI)
INT_TYPES(GEN_TER, h_mad_lo, (AT)a * (AT)b + (AT)cc)
INT_TYPES(GEN_TER, h_mad_hi, (AT)MULHI + (AT)cc)
INT_TYPES(GEN_BIN, h_div, SDIV(a, b))
INT_TYPES(GEN_BIN, h_rem, SREM(a, b))
INT_TYPES(GEN_BIN, h_min, a < b ? a : b)
INT_TYPES(GEN_BIN, h_max, a > b ? a : b)
INT_TYPES(GEN_TER, h_sad, (AT)cc + (a < b ? (AT)b - (AT)a : (AT)a - (AT)b))
INT_TYPES(GEN_UN, h_abs, ISNEG(a) ? (AT)0 - (AT)a : (AT)a)
INT_TYPES(GEN_UN, h_neg, (AT)0 - (AT)a)
INT_TYPES(GEN_WIDE, h_mul_wide, (WT)a * (WT)b)
INT_TYPES(GEN_WIDE, h_mad_wide, (WT)a * (WT)b + cc)

/* saturating forms (s32 only) and .relu */
GS_HANDLER(h_add_sat_s32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_VLANES(m, l, {
        int64_t r = (int64_t)(int32_t)pa[l] + (int32_t)pb[l];
        r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
        d[l] = (uint32_t)r;
    });
    return GS_X_NEXT;
}
GS_HANDLER(h_sub_sat_s32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_VLANES(m, l, {
        int64_t r = (int64_t)(int32_t)pa[l] - (int32_t)pb[l];
        r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
        d[l] = (uint32_t)r;
    });
    return GS_X_NEXT;
}
/* mad.hi.sat.s32: high half of the product plus c, clamped */
GS_HANDLER(h_mad_hi_sat_s32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_VLANES(m, l, {
        int64_t hi = ((int64_t)(int32_t)pa[l] * (int32_t)pb[l]) >> 32;
        int64_t r = hi + (int32_t)pc[l];
        r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
        d[l] = (uint32_t)r;
    });
    return GS_X_NEXT;
}
GS_HANDLER(h_min_relu_s32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_VLANES(m, l, { int32_t a = (int32_t)pa[l], b = (int32_t)pb[l], r = a < b ? a : b;
                      d[l] = (uint32_t)(r < 0 ? 0 : r); });
    return GS_X_NEXT;
}
GS_HANDLER(h_max_relu_s32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_VLANES(m, l, { int32_t a = (int32_t)pa[l], b = (int32_t)pb[l], r = a > b ? a : b;
                      d[l] = (uint32_t)(r < 0 ? 0 : r); });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * carry chain: add.cc, addc{.cc}, sub.cc, subc{.cc}, mad{c}.lo/.hi{.cc} on 32- and 64-bit types.
 * One handler per width reads the carry-in and writes the carry-out as x->op and x->flags say
 * (these forms are rare: multi-word arithmetic), so the lane loop keeps a few branches.
 * --------------------------------------------------------------------------------------------- */
#define GEN_CARRY(fn, U, W, BITS)                                                                  \
    GS_HANDLER(fn) {                                                                               \
        (void)c;                                                                                   \
        int op = x->op, cc_out = (x->flags & GS_F_CC) != 0;                                        \
        int is_sub = op == GS_OP_SUB || op == GS_OP_SUBC;                                          \
        int cin = op == GS_OP_ADDC || op == GS_OP_SUBC || op == GS_OP_MADC;                        \
        int mad = op == GS_OP_MAD || op == GS_OP_MADC, hi = (x->flags & GS_F_HI) != 0;             \
        int sgn = gs_type_is_signed(x->type);                                                      \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        const uint64_t *pc = mad ? gs_src(w, x, 3) : pb;                                           \
        uint32_t cf = w->carry, out = 0;                                                           \
        GS_LANES(m, l, {                                                                           \
            U a = (U)pa[l], b = (U)pb[l], k = cin ? (U)((cf >> l) & 1) : 0, r;                     \
            unsigned co;                                                                           \
            if (mad) {                                                                             \
                W p = sgn ? (W)((__int128)(BITS == 32 ? (int64_t)(int32_t)a : (int64_t)a) *        \
                                 (BITS == 32 ? (int64_t)(int32_t)b : (int64_t)b))                  \
                          : (W)a * (W)b;                                                           \
                a = hi ? (U)(p >> BITS) : (U)p;                                                    \
                b = (U)pc[l];                                                                      \
            }                                                                                      \
            if (is_sub) { b = (U)~b; k = cin ? k : 1; }   /* a - b = a + ~b + 1; subc: + CF */     \
            W s = (W)a + b + k;                                                                    \
            r = (U)s;                                                                              \
            co = (unsigned)(s >> BITS) & 1;                                                        \
            d[l] = r;                                                                              \
            out |= (uint32_t)co << l;                                                              \
        });                                                                                        \
        if (cc_out) w->carry = (w->carry & ~m) | (out & m);                                        \
        return GS_X_NEXT;                                                                          \
    }
GEN_CARRY(h_carry32, uint32_t, uint64_t, 32)
GEN_CARRY(h_carry64, uint64_t, unsigned __int128, 64)

/* ---------------------------------------------------------------------------------------------
 * mul24 / mad24 (.lo, .hi, mad24.hi.sat.s32): the 48-bit product of the low 24 bits (sign-extended
 * for .s32); .lo keeps bits 31..0, .hi bits 47..16.
 * --------------------------------------------------------------------------------------------- */
static inline int64_t p24(uint64_t a, uint64_t b, int s) {
    if (s) return gs_sext(a & 0xffffff, 24) * gs_sext(b & 0xffffff, 24);
    return (int64_t)((a & 0xffffff) * (b & 0xffffff));
}
GS_HANDLER(h_mul24) {
    (void)c;
    int s = gs_type_is_signed(x->type), hi = (x->flags & GS_F_HI) != 0;
    int mad = x->op == GS_OP_MAD24, sat = (x->flags & GS_F_SAT) != 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = mad ? gs_src(w, x, 3) : pa;
    GS_LANES(m, l, {
        int64_t p = p24(pa[l], pb[l], s);
        uint32_t r = hi ? (uint32_t)((uint64_t)p >> 16) : (uint32_t)p;
        if (mad) {
            if (sat) {
                int64_t t = (int64_t)(int32_t)r + (int32_t)pc[l];
                t = t > INT32_MAX ? INT32_MAX : t < INT32_MIN ? INT32_MIN : t;
                r = (uint32_t)t;
            } else r += (uint32_t)pc[l];
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * dp4a.atype.btype d, a, b, c: c + sum of the four byte products; dp2a.{lo,hi}: c + the two products
 * of a's 16-bit halves with b's bytes 0,1 (.lo) or 2,3 (.hi). Signedness per operand (type, type2).
 * --------------------------------------------------------------------------------------------- */
static inline int32_t lane_byte(uint32_t v, int i, int s) {
    uint32_t b = (v >> (8 * i)) & 0xff;
    return s ? (int32_t)(int8_t)b : (int32_t)b;
}
static inline int32_t lane_half(uint32_t v, int i, int s) {
    uint32_t h = (v >> (16 * i)) & 0xffff;
    return s ? (int32_t)(int16_t)h : (int32_t)h;
}
GS_HANDLER(h_dp4a) {
    (void)c;
    int sa = gs_type_is_signed(x->type), sb = gs_type_is_signed(x->type2);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_VLANES(m, l, {
        uint32_t a = (uint32_t)pa[l], b = (uint32_t)pb[l], r = (uint32_t)pc[l];
        for (int i = 0; i < 4; i++) r += (uint32_t)(lane_byte(a, i, sa) * lane_byte(b, i, sb));
        d[l] = r;
    });
    return GS_X_NEXT;
}
GS_HANDLER(h_dp2a) {
    (void)c;
    int sa = gs_type_is_signed(x->type), sb = gs_type_is_signed(x->type2);
    int base = (x->flags & GS_F_HI) ? 2 : 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_LANES(m, l, {
        uint32_t a = (uint32_t)pa[l], b = (uint32_t)pb[l], r = (uint32_t)pc[l];
        for (int i = 0; i < 2; i++) r += (uint32_t)(lane_half(a, i, sa) * lane_byte(b, base + i, sb));
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * binder
 * --------------------------------------------------------------------------------------------- */
gs_handler gs_bind_int(const gs_xinst *x) {
    int t = x->type, k = gs_int_slot(t);
    uint32_t f = x->flags;
    int s32 = t == GS_T_S32, bits = gs_type_bits(t), sgn = gs_type_is_signed(t);
    int is_b = t == GS_T_B16 || t == GS_T_B32 || t == GS_T_B64;
    if (k < 0) return NULL;
    switch (x->op) {
    case GS_OP_ADD: case GS_OP_SUB:
        if (is_b) return NULL;
        if (f & GS_F_CC) return (f & GS_F_SAT) || bits < 32 ? NULL : bits == 32 ? h_carry32 : h_carry64;
        if (f & GS_F_SAT) return s32 ? (x->op == GS_OP_ADD ? h_add_sat_s32 : h_sub_sat_s32) : NULL;
        return x->op == GS_OP_ADD ? h_add[k] : h_sub[k];
    case GS_OP_ADDC: case GS_OP_SUBC:
        if (is_b || bits < 32 || (f & GS_F_SAT)) return NULL;
        return bits == 32 ? h_carry32 : h_carry64;
    case GS_OP_MADC:
        if (is_b || bits < 32 || (f & (GS_F_SAT | GS_F_WIDE))) return NULL;
        return bits == 32 ? h_carry32 : h_carry64;
    case GS_OP_MUL:
        if (is_b || (f & GS_F_SAT)) return NULL;
        if (f & GS_F_WIDE) return bits == 64 ? NULL : h_mul_wide[k];
        return (f & GS_F_HI) ? h_mul_hi[k] : h_mul_lo[k];
    case GS_OP_MAD:
        if (is_b) return NULL;
        if (f & GS_F_CC) return (f & (GS_F_SAT | GS_F_WIDE)) || bits < 32 ? NULL
                                : bits == 32 ? h_carry32 : h_carry64;
        if (f & GS_F_SAT) return (s32 && (f & GS_F_HI)) ? h_mad_hi_sat_s32 : NULL;
        if (f & GS_F_WIDE) return bits == 64 ? NULL : h_mad_wide[k];
        return (f & GS_F_HI) ? h_mad_hi[k] : h_mad_lo[k];
    case GS_OP_MUL24: case GS_OP_MAD24:
        if (t != GS_T_U32 && t != GS_T_S32) return NULL;
        if ((f & GS_F_SAT) && !(x->op == GS_OP_MAD24 && s32 && (f & GS_F_HI))) return NULL;
        return h_mul24;
    case GS_OP_SAD: return is_b ? NULL : h_sad[k];
    case GS_OP_DIV: return is_b ? NULL : h_div[k];
    case GS_OP_REM: return is_b ? NULL : h_rem[k];
    case GS_OP_ABS: return sgn ? h_abs[k] : NULL;
    case GS_OP_NEG: return sgn ? h_neg[k] : NULL;
    case GS_OP_MIN: case GS_OP_MAX:
        if (is_b || x->ir->nopnd != 3) return NULL;       /* no three-source integer min/max */
        if (f & GS_F_RELU) return s32 ? (x->op == GS_OP_MIN ? h_min_relu_s32 : h_max_relu_s32) : NULL;
        return x->op == GS_OP_MIN ? h_min[k] : h_max[k];
    case GS_OP_DP4A:
        return (bits == 32 && !is_b && (x->type2 == GS_T_U32 || x->type2 == GS_T_S32)) ? h_dp4a : NULL;
    case GS_OP_DP2A:
        return (bits == 32 && !is_b && (x->type2 == GS_T_U32 || x->type2 == GS_T_S32)) ? h_dp2a : NULL;
    default: return NULL;
    }
}
