/* exec_cmp.c — setp, set, selp, slct for integer and floating types, f16/bf16 and their x2 forms.
 *
 *   setp.cmp{.bop}{.ftz}.type p{|q}, a, b{, {!}c}: p = cmp(a, b) BOP c, q = !cmp(a, b) BOP c; for
 *     f16x2/bf16x2, p and q are the low and the high halves' results (each BOP c);
 *   set.cmp{.bop}{.ftz}.dtype.stype d, a, b{, {!}c}: d = all ones (integer dtype) or 1.0 (float dtype)
 *     when true, else 0; for x2 source types each 16-bit half of d gets its own result;
 *   selp.type d, a, b, c: d = c ? a : b;  slct.dtype.{s32,f32} d, a, b, c: d = c >= 0 ? a : b.
 * Ordered comparisons are false when an operand is NaN, the unordered ones (equ, ltu, ...) true;
 * num/nan test for NaN. .ftz flushes subnormal f32 (and f16) operands before comparing.
 *
 * The common forms (s32/u32/s64/u64/f32 without .ftz, with eq..ge/lo..hs) have handlers
 * specialised per type and comparison; the rest go through one general handler.
 */
#include "exec_alu.h"
#include "fp16.h"

/* ---------------------------------------------------------------------------------------------
 * the general comparison: operands decoded to int64/uint64/double by type
 * --------------------------------------------------------------------------------------------- */
static inline int cmp_int(int op, int64_t a, int64_t b, uint64_t ua, uint64_t ub) {
    switch (op) {
    case GS_CMP_EQ: return ua == ub;
    case GS_CMP_NE: return ua != ub;
    case GS_CMP_LT: return a < b;
    case GS_CMP_LE: return a <= b;
    case GS_CMP_GT: return a > b;
    case GS_CMP_GE: return a >= b;
    case GS_CMP_LO: return ua < ub;
    case GS_CMP_LS: return ua <= ub;
    case GS_CMP_HI: return ua > ub;
    case GS_CMP_HS: return ua >= ub;
    default: return 0;
    }
}
static inline int cmp_flt(int op, double a, double b) {
    int un = a != a || b != b;
    switch (op) {
    case GS_CMP_EQ: return !un && a == b;
    case GS_CMP_NE: return !un && a != b;
    case GS_CMP_LT: return !un && a < b;
    case GS_CMP_LE: return !un && a <= b;
    case GS_CMP_GT: return !un && a > b;
    case GS_CMP_GE: return !un && a >= b;
    case GS_CMP_EQU: return un || a == b;
    case GS_CMP_NEU: return un || a != b;
    case GS_CMP_LTU: return un || a < b;
    case GS_CMP_LEU: return un || a <= b;
    case GS_CMP_GTU: return un || a > b;
    case GS_CMP_GEU: return un || a >= b;
    case GS_CMP_NUM: return !un;
    case GS_CMP_NAN: return un;
    default: return 0;
    }
}

/* a 16-bit float element as a double, flushed if asked */
static inline double half_val(uint32_t v, int bf, int ftz) {
    const gs_fmt *f = bf ? &GS_FMT_BF16 : &GS_FMT_F16;
    if (ftz) v = gs_fmt_ftz(v, f);
    return gs_fmt_decode(v, f);
}

/* compare element `half` (0 or 1; always 0 for scalar types) of a and b under type t */
static inline int compare(int t, int op, int ftz, uint64_t a, uint64_t b, int half) {
    switch (t) {
    case GS_T_F32: {
        float fa = gs_f32(a), fb = gs_f32(b);
        if (ftz) { fa = gs_ftz32(fa); fb = gs_ftz32(fb); }
        return cmp_flt(op, fa, fb);
    }
    case GS_T_F64: return cmp_flt(op, gs_f64(a), gs_f64(b));
    case GS_T_F16: case GS_T_F16X2: case GS_T_BF16: case GS_T_BF16X2: {
        int bf = t == GS_T_BF16 || t == GS_T_BF16X2;
        return cmp_flt(op, half_val((uint32_t)(a >> (16 * half)) & 0xffff, bf, ftz),
                       half_val((uint32_t)(b >> (16 * half)) & 0xffff, bf, ftz));
    }
    default: {
        int bits = gs_type_bits(t);
        uint64_t ua = a & gs_width_mask(bits), ub = b & gs_width_mask(bits);
        if (gs_type_is_signed(t)) return cmp_int(op, gs_sext(ua, bits), gs_sext(ub, bits), ua, ub);
        return cmp_int(op == GS_CMP_LT ? GS_CMP_LO : op == GS_CMP_LE ? GS_CMP_LS
                       : op == GS_CMP_GT ? GS_CMP_HI : op == GS_CMP_GE ? GS_CMP_HS : op,
                       0, 0, ua, ub);
    }
    }
}

static inline uint32_t bop(int sub, uint32_t r, uint32_t cp) {
    switch (sub) {
    case GS_BOOL_AND: return r & cp;
    case GS_BOOL_OR: return r | cp;
    case GS_BOOL_XOR: return r ^ cp;
    default: return r;
    }
}

/* finish setp: combine with c and write p (and q) */
static inline int setp_write(gs_warp *w, const gs_xinst *x, uint32_t m, uint32_t r, uint32_t q) {
    if (x->sub) {
        uint32_t cp = gs_pred(w, x->ops[x->nops - 1]);
        r = bop(x->sub, r, cp);
        q = bop(x->sub, q, cp);
    }
    gs_pred_write(w, x->ops[0], r, m);
    if (x->ir->ndst == 2 && x->ops[1] != 0xffffffffu) gs_pred_write(w, x->ops[1], q, m);
    return GS_X_NEXT;
}

GS_HANDLER(h_setp_gen) {
    (void)c;
    int two = x->ir->ndst == 2, t = x->type, op = x->cmp, ftz = (x->flags & GS_F_FTZ) != 0;
    int x2 = t == GS_T_F16X2 || t == GS_T_BF16X2;
    const uint64_t *pa = gs_src(w, x, two ? 2 : 1), *pb = gs_src(w, x, two ? 3 : 2);
    uint32_t r = 0, q = 0;
    GS_LANES(m, l, {
        r |= (uint32_t)compare(t, op, ftz, pa[l], pb[l], 0) << l;
        if (x2) q |= (uint32_t)compare(t, op, ftz, pa[l], pb[l], 1) << l;
    });
    return setp_write(w, x, m, r, x2 ? q : ~r);
}

/* 32 bytes of 0/1 to a 32-bit mask: per 8 bytes, the multiply gathers bit 0 of each byte into the top
 * byte (no carries: each product term lands on a distinct bit) */
static inline uint32_t pack_bytes(const uint8_t t[GS_WARP]) {
    uint32_t r = 0;
    for (int k = 0; k < GS_WARP / 8; k++) {
        uint64_t v;
        memcpy(&v, t + 8 * k, 8);
        r |= (uint32_t)((v * 0x0102040810204080ull) >> 56) << (8 * k);
    }
    return r;
}

/* specialised setp: one handler per (type, comparison); the full-mask path compares into bytes (a loop
 * GCC vectorises) and packs them, the sparse path sets bits one by one */
#define SETP_SPEC(name, T, RD, EXPR)                                                               \
    GS_HANDLER(name) {                                                                             \
        (void)c;                                                                                   \
        int two = x->ir->ndst == 2;                                                                \
        const uint64_t *pa = gs_src(w, x, two ? 2 : 1), *pb = gs_src(w, x, two ? 3 : 2);           \
        uint32_t r = 0;                                                                            \
        if (m == GS_FULL) {                                                                        \
            uint8_t t[GS_WARP];                                                                    \
            for (int l = 0; l < GS_WARP; l++) { T a = RD(pa[l]), b = RD(pb[l]); t[l] = (EXPR); }  \
            r = pack_bytes(t);                                                                     \
        } else {                                                                                   \
            GS_LANES(m, l, { T a = RD(pa[l]), b = RD(pb[l]); r |= (uint32_t)(EXPR) << l; });       \
        }                                                                                          \
        return setp_write(w, x, m, r, ~r);                                                         \
    }
#define RD_S32(v) ((int32_t)(v))
#define RD_U32(v) ((uint32_t)(v))
#define RD_S64(v) ((int64_t)(v))
#define RD_U64(v) ((uint64_t)(v))
#define SETP_6(pfx, T, RD)                                                                         \
    SETP_SPEC(pfx##_eq, T, RD, a == b) SETP_SPEC(pfx##_ne, T, RD, a != b)                          \
    SETP_SPEC(pfx##_lt, T, RD, a < b) SETP_SPEC(pfx##_le, T, RD, a <= b)                           \
    SETP_SPEC(pfx##_gt, T, RD, a > b) SETP_SPEC(pfx##_ge, T, RD, a >= b)                           \
    static const gs_handler pfx[7] = {NULL, pfx##_eq, pfx##_ne, pfx##_lt, pfx##_le, pfx##_gt, pfx##_ge};
SETP_6(h_setp_s32, int32_t, RD_S32)
SETP_6(h_setp_u32, uint32_t, RD_U32)
SETP_6(h_setp_s64, int64_t, RD_S64)
SETP_6(h_setp_u64, uint64_t, RD_U64)
SETP_6(h_setp_f32, float, gs_f32)   /* C's ordered comparisons are false on NaN, as PTX's; != is not */

/* ---------------------------------------------------------------------------------------------
 * set: a value per lane (per half for x2 sources)
 * --------------------------------------------------------------------------------------------- */
static inline uint64_t true_value(int dt) {
    switch (dt) {
    case GS_T_F32: return 0x3f800000u;
    case GS_T_F16: return 0x3c00u;
    case GS_T_BF16: return 0x3f80u;
    case GS_T_F16X2: return 0x3c00u;       /* per half */
    case GS_T_BF16X2: return 0x3f80u;
    default: return gs_width_mask(gs_type_bits(dt));
    }
}
GS_HANDLER(h_set) {
    (void)c;
    int st = x->type2, dt = x->type, op = x->cmp, ftz = (x->flags & GS_F_FTZ) != 0;
    int x2 = st == GS_T_F16X2 || st == GS_T_BF16X2;
    uint64_t tv = x2 && gs_type_bits(dt) == 32 && !gs_type_is_float(dt) ? 0xffffu : true_value(dt);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    uint32_t cp = x->sub ? gs_pred(w, x->ops[x->nops - 1]) : 0;
    GS_LANES(m, l, {
        uint64_t v = 0;
        for (int h = 0; h < 1 + x2; h++) {
            uint32_t t = (uint32_t)compare(st, op, ftz, pa[l], pb[l], h);
            t = bop(x->sub, t, (cp >> l) & 1) & 1;
            if (t) v |= tv << (16 * h);
        }
        d[l] = v;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * selp, slct
 * --------------------------------------------------------------------------------------------- */
GS_HANDLER(h_selp) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    uint32_t p = gs_pred(w, x->ops[3]);
    GS_LANES(m, l, d[l] = ((p >> l) & 1) ? pa[l] : pb[l]);
    return GS_X_NEXT;
}
GS_HANDLER(h_slct) {
    (void)c;
    int f32 = x->type2 == GS_T_F32, ftz = (x->flags & GS_F_FTZ) != 0;
    uint64_t mask = gs_width_mask(gs_type_bits(x->type));
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_LANES(m, l, {
        int ge;
        if (f32) { float v = gs_f32(pc[l]); if (ftz) v = gs_ftz32(v); ge = v >= 0.0f; }
        else ge = (int32_t)pc[l] >= 0;
        d[l] = (ge ? pa[l] : pb[l]) & mask;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * binder
 * --------------------------------------------------------------------------------------------- */
static int cmp_valid(int t, int op) {
    if (op == GS_CMP_NONE) return 0;
    if (gs_type_is_float(t)) return op <= GS_CMP_GE || op >= GS_CMP_EQU;
    if (t == GS_T_B16 || t == GS_T_B32 || t == GS_T_B64) return op == GS_CMP_EQ || op == GS_CMP_NE;
    if (gs_type_is_signed(t)) return op <= GS_CMP_GE;
    return op <= GS_CMP_HS;   /* unsigned: lt.. and lo.. */
}
static int cmp_type(int t) {
    return (gs_type_bits(t) >= 16 && gs_type_bits(t) <= 64 && !gs_type_is_float(t) && t != GS_T_PRED) ||
           t == GS_T_F32 || t == GS_T_F64 || t == GS_T_F16 || t == GS_T_F16X2 || t == GS_T_BF16 ||
           t == GS_T_BF16X2;
}

gs_handler gs_bind_cmp(const gs_xinst *x) {
    int t = x->type, op = x->cmp;
    uint32_t f = x->flags;
    int ftz_ok = t == GS_T_F32 || t == GS_T_F16 || t == GS_T_F16X2;
    switch (x->op) {
    case GS_OP_SETP: {
        if (!cmp_type(t) || !cmp_valid(t, op) || (f & ~GS_F_FTZ)) return NULL;
        if ((f & GS_F_FTZ) && !ftz_ok) return NULL;
        if ((t == GS_T_F16X2 || t == GS_T_BF16X2) && x->ir->ndst != 2) return NULL;
        if (f || op > GS_CMP_HS) return h_setp_gen;
        int o = op >= GS_CMP_LO ? op - GS_CMP_LO + GS_CMP_LT : op;  /* lo/ls/hi/hs on unsigned */
        switch (t) {
        case GS_T_S32: return h_setp_s32[o];
        case GS_T_U32: case GS_T_B32: return h_setp_u32[o];
        case GS_T_S64: return h_setp_s64[o];
        case GS_T_U64: case GS_T_B64: return h_setp_u64[o];
        case GS_T_F32: return op == GS_CMP_NE ? h_setp_gen : h_setp_f32[o];   /* ne is ordered */
        default: return h_setp_gen;
        }
    }
    case GS_OP_SET: {
        int st = x->type2;
        if (!cmp_type(st) || !cmp_valid(st, op) || (f & ~GS_F_FTZ)) return NULL;
        if ((f & GS_F_FTZ) && !(st == GS_T_F32 || st == GS_T_F16 || st == GS_T_F16X2)) return NULL;
        if (!(t == GS_T_U32 || t == GS_T_S32 || t == GS_T_F32 || t == GS_T_U16 || t == GS_T_S16 ||
              t == GS_T_F16 || t == GS_T_BF16 || t == GS_T_F16X2 || t == GS_T_BF16X2))
            return NULL;
        return h_set;
    }
    case GS_OP_SELP: return t == GS_T_PRED ? NULL : h_selp;
    case GS_OP_SLCT:
        if (x->type2 != GS_T_S32 && x->type2 != GS_T_F32) return NULL;
        if ((f & GS_F_FTZ) && x->type2 != GS_T_F32) return NULL;
        return t == GS_T_PRED ? NULL : h_slct;
    default: return NULL;
    }
}
