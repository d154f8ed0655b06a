/* exec_int.c — integer and bit operations. (Seed version: the public suite's forms.) */
#include "exec.h"

/* binary op over 32- or 64-bit lanes; T is the C type of the PTX type, U its unsigned twin */
#define BIN(name, T, U, expr)                                                         \
    GS_HANDLER(name) {                                                                \
        (void)c;                                                                      \
        uint64_t *d = gs_opr(w, x, 0);                                                \
        const uint64_t *pa = gs_opr(w, x, 1), *pb = gs_opr(w, x, 2);                  \
        GS_LANES(m, l, { T a = (T)pa[l]; T b = (T)pb[l]; d[l] = (uint64_t)(U)(expr); }); \
        return GS_X_NEXT;                                                             \
    }

BIN(h_add32, uint32_t, uint32_t, a + b)
BIN(h_add64, uint64_t, uint64_t, a + b)
BIN(h_sub32, uint32_t, uint32_t, a - b)
BIN(h_sub64, uint64_t, uint64_t, a - b)
BIN(h_mul32, uint32_t, uint32_t, a * b)
BIN(h_mul64, uint64_t, uint64_t, a * b)
BIN(h_and32, uint32_t, uint32_t, a & b)
BIN(h_and64, uint64_t, uint64_t, a & b)
BIN(h_or32, uint32_t, uint32_t, a | b)
BIN(h_or64, uint64_t, uint64_t, a | b)
BIN(h_xor32, uint32_t, uint32_t, a ^ b)
BIN(h_xor64, uint64_t, uint64_t, a ^ b)
BIN(h_shl32, uint32_t, uint32_t, b > 31 ? 0 : a << b)
BIN(h_shl64, uint64_t, uint64_t, (uint32_t)b > 63 ? 0 : a << (uint32_t)b)
BIN(h_shr_u32, uint32_t, uint32_t, b > 31 ? 0 : a >> b)
BIN(h_shr_u64, uint64_t, uint64_t, (uint32_t)b > 63 ? 0 : a >> (uint32_t)b)
BIN(h_shr_s32, int32_t, uint32_t, (uint32_t)b > 31 ? (a >> 31) : (a >> b))
BIN(h_shr_s64, int64_t, uint64_t, (uint32_t)b > 63 ? (a >> 63) : (a >> (uint32_t)b))
BIN(h_mulhi_s32, int32_t, uint32_t, (int32_t)(((int64_t)a * (int64_t)b) >> 32))
BIN(h_mulhi_u32, uint32_t, uint32_t, (uint32_t)(((uint64_t)a * (uint64_t)b) >> 32))
BIN(h_mulwide_s32, int32_t, uint64_t, (int64_t)a * (int64_t)b)
BIN(h_mulwide_u32, uint32_t, uint64_t, (uint64_t)a * (uint64_t)b)
BIN(h_div_u32, uint32_t, uint32_t, b ? a / b : 0xffffffffu)
BIN(h_div_s32, int32_t, uint32_t, b ? ((a == INT32_MIN && b == -1) ? a : a / b) : -1)
BIN(h_rem_u32, uint32_t, uint32_t, b ? a % b : a)
BIN(h_rem_s32, int32_t, uint32_t, b ? ((a == INT32_MIN && b == -1) ? 0 : a % b) : a)
BIN(h_min_s32, int32_t, uint32_t, a < b ? a : b)
BIN(h_max_s32, int32_t, uint32_t, a > b ? a : b)
BIN(h_min_u32, uint32_t, uint32_t, a < b ? a : b)
BIN(h_max_u32, uint32_t, uint32_t, a > b ? a : b)

GS_HANDLER(h_mad_lo32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_opr(w, x, 1), *pb = gs_opr(w, x, 2), *pc = gs_opr(w, x, 3);
    GS_LANES(m, l, d[l] = (uint32_t)((uint32_t)pa[l] * (uint32_t)pb[l] + (uint32_t)pc[l]));
    return GS_X_NEXT;
}

GS_HANDLER(h_not32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_opr(w, x, 1);
    GS_LANES(m, l, d[l] = (uint32_t)~pa[l]);
    return GS_X_NEXT;
}

/* predicate logic: and/or/xor/not on .pred */
GS_HANDLER(h_pred_logic) {
    (void)c;
    uint32_t a = gs_pred(w, x->ops[1]);
    uint32_t b = x->nops > 2 ? gs_pred(w, x->ops[2]) : 0;
    uint32_t r;
    switch (x->op) {
    case GS_OP_AND: r = a & b; break;
    case GS_OP_OR: r = a | b; break;
    case GS_OP_XOR: r = a ^ b; break;
    default: r = ~a; break;
    }
    gs_pred_write(w, x->ops[0], r, m);
    return GS_X_NEXT;
}

gs_handler gs_bind_int(const gs_xinst *x) {
    int t = x->type;
    if (t == GS_T_PRED) {
        if (x->op == GS_OP_AND || x->op == GS_OP_OR || x->op == GS_OP_XOR || x->op == GS_OP_NOT)
            return h_pred_logic;
        return NULL;
    }
    if (gs_type_is_float(t)) return NULL;
    int bits = gs_type_bits(t), s = gs_type_is_signed(t);
    int is32 = bits == 32, is64 = bits == 64;
    switch (x->op) {
    case GS_OP_ADD: if (x->flags & (GS_F_CC | GS_F_SAT)) return NULL; return is32 ? h_add32 : is64 ? h_add64 : NULL;
    case GS_OP_SUB: if (x->flags & (GS_F_CC | GS_F_SAT)) return NULL; return is32 ? h_sub32 : is64 ? h_sub64 : NULL;
    case GS_OP_MUL:
        if (x->flags & GS_F_WIDE) return is32 ? (s ? h_mulwide_s32 : h_mulwide_u32) : NULL;
        if (x->flags & GS_F_HI) return is32 ? (s ? h_mulhi_s32 : h_mulhi_u32) : NULL;
        return is32 ? h_mul32 : is64 ? h_mul64 : NULL;
    case GS_OP_MAD:
        if (x->flags & (GS_F_HI | GS_F_WIDE | GS_F_CC | GS_F_SAT)) return NULL;
        return is32 ? h_mad_lo32 : NULL;
    case GS_OP_AND: return is32 ? h_and32 : is64 ? h_and64 : NULL;
    case GS_OP_OR: return is32 ? h_or32 : is64 ? h_or64 : NULL;
    case GS_OP_XOR: return is32 ? h_xor32 : is64 ? h_xor64 : NULL;
    case GS_OP_NOT: return is32 ? h_not32 : NULL;
    case GS_OP_SHL: return is32 ? h_shl32 : is64 ? h_shl64 : NULL;
    case GS_OP_SHR:
        if (is32) return s ? h_shr_s32 : h_shr_u32;
        if (is64) return s ? h_shr_s64 : h_shr_u64;
        return NULL;
    case GS_OP_DIV: return is32 ? (s ? h_div_s32 : h_div_u32) : NULL;
    case GS_OP_REM: return is32 ? (s ? h_rem_s32 : h_rem_u32) : NULL;
    case GS_OP_MIN: return is32 ? (s ? h_min_s32 : h_min_u32) : NULL;
    case GS_OP_MAX: return is32 ? (s ? h_max_s32 : h_max_u32) : NULL;
    default: return NULL;
    }
}
