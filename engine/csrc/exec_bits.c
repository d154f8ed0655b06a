/* exec_bits.c — bit operations: and/or/xor/not/cnot (incl. .pred), shl, shr, shf, popc, clz, bfind
 * (.shiftamt), fns, brev, bfe, bfi, prmt (all modes), lop3.
 *
 * Shift amounts are unsigned 32-bit values; amounts >= the width give 0 (shl, shr.u/.b) or the
 * replicated sign bit (shr.s), as PTX defines (not C's undefined behaviour).
 */
#include "exec_alu.h"

/* ---- and/or/xor/not/cnot on b16/b32/b64 (the 64-bit slot op masked to the width) ---- */
#define GEN_LOGIC(fn, MASK, EXPR)                                                                  \
    GS_HANDLER(fn) {                                                                               \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, x->nops > 2 ? 2 : 1);             \
        const uint64_t MK = (MASK);                                                                \
        GS_VLANES(m, l, { uint64_t a = pa[l], b = pb[l]; (void)b; d[l] = (EXPR) & MK; });          \
        return GS_X_NEXT;                                                                          \
    }
#define GEN_LOGIC3(name, EXPR)                                                                     \
    GEN_LOGIC(name##16, 0xffffull, EXPR) GEN_LOGIC(name##32, 0xffffffffull, EXPR)                  \
    GEN_LOGIC(name##64, ~0ull, EXPR)                                                               \
    static const gs_handler name[3] = {name##16, name##32, name##64};
GEN_LOGIC3(h_and, a & b)
GEN_LOGIC3(h_or, a | b)
GEN_LOGIC3(h_xor, a ^ b)
GEN_LOGIC3(h_not, ~a)
GEN_LOGIC3(h_cnot, (uint64_t)((a & MK) == 0))
#undef GEN_LOGIC3

/* predicate logic: and/or/xor/not/cnot on .pred (cnot and not are the same on one bit) */
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

/* ---- shifts ---- */
#define GEN_SHIFT(fn, T, U, BITS, EXPR)                                                            \
    GS_HANDLER(fn) {                                                                               \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        GS_VLANES(m, l, { T a = (T)pa[l]; uint32_t n = (uint32_t)pb[l]; d[l] = (uint64_t)(U)(EXPR); }); \
        return GS_X_NEXT;                                                                          \
    }
GEN_SHIFT(h_shl16, uint16_t, uint16_t, 16, n > 15 ? 0 : (uint32_t)a << n)
GEN_SHIFT(h_shl32, uint32_t, uint32_t, 32, n > 31 ? 0 : a << n)
GEN_SHIFT(h_shl64, uint64_t, uint64_t, 64, n > 63 ? 0 : a << n)
GEN_SHIFT(h_shr_u16, uint16_t, uint16_t, 16, n > 15 ? 0 : a >> n)
GEN_SHIFT(h_shr_u32, uint32_t, uint32_t, 32, n > 31 ? 0 : a >> n)
GEN_SHIFT(h_shr_u64, uint64_t, uint64_t, 64, n > 63 ? 0 : a >> n)
GEN_SHIFT(h_shr_s16, int16_t, uint16_t, 16, a >> (n > 15 ? 15 : n))
GEN_SHIFT(h_shr_s32, int32_t, uint32_t, 32, a >> (n > 31 ? 31 : n))
GEN_SHIFT(h_shr_s64, int64_t, uint64_t, 64, a >> (n > 63 ? 63 : n))

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: shift the 64-bit value b:a (b high) by c; .l keeps the high
 * word, .r the low word; .wrap uses c mod 32, .clamp min(c, 32). */
GS_HANDLER(h_shf) {
    (void)c;
    int right = (x->flags & GS_F_SHIFT_RIGHT) != 0, clamp = (x->flags & GS_F_CLAMP) != 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_LANES(m, l, {
        uint64_t v = ((uint64_t)(uint32_t)pb[l] << 32) | (uint32_t)pa[l];
        uint32_t n = (uint32_t)pc[l];
        n = clamp ? (n > 32 ? 32 : n) : (n & 31);
        d[l] = right ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
    });
    return GS_X_NEXT;
}

/* ---- popc, clz, brev (b32/b64; popc and clz give u32) ---- */
GS_HANDLER(h_popc32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = (uint32_t)__builtin_popcount((uint32_t)a[l])); return GS_X_NEXT; }
GS_HANDLER(h_popc64) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = (uint32_t)__builtin_popcountll(a[l])); return GS_X_NEXT; }
GS_HANDLER(h_clz32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, { uint32_t v = (uint32_t)a[l]; d[l] = v ? (uint32_t)__builtin_clz(v) : 32u; });
    return GS_X_NEXT; }
GS_HANDLER(h_clz64) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, { uint64_t v = a[l]; d[l] = v ? (uint32_t)__builtin_clzll(v) : 64u; });
    return GS_X_NEXT; }
static inline uint32_t rev32(uint32_t v) {
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(v);
}
GS_HANDLER(h_brev32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = rev32((uint32_t)a[l])); return GS_X_NEXT; }
GS_HANDLER(h_brev64) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = ((uint64_t)rev32((uint32_t)a[l]) << 32) | rev32((uint32_t)(a[l] >> 32)));
    return GS_X_NEXT; }

/* bfind.{u32,s32,u64,s64}{.shiftamt}: bit position of the most significant non-sign bit, or
 * 0xffffffff when there is none (0 for unsigned, 0 and -1 for signed); .shiftamt gives the left shift
 * that moves that bit to the top instead. */
GS_HANDLER(h_bfind) {
    (void)c;
    int bits = gs_type_bits(x->type), s = gs_type_is_signed(x->type), amt = x->aux == 1;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint64_t v = pa[l] & gs_width_mask(bits);
        if (s && ((v >> (bits - 1)) & 1)) v = ~v & gs_width_mask(bits);
        uint32_t r = 0xffffffffu;
        if (v) {
            uint32_t pos = 63u - (uint32_t)__builtin_clzll(v);
            r = amt ? (uint32_t)(bits - 1) - pos : pos;
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* fns.b32 d, mask, base, offset: position of the offset-th set bit of mask counting from base
 * (upwards for offset > 0, downwards for offset < 0; offset 0 tests bit base), else 0xffffffff. */
GS_HANDLER(h_fns) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pm = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *po = gs_src(w, x, 3);
    GS_LANES(m, l, {
        uint32_t mask = (uint32_t)pm[l], base = (uint32_t)pb[l];
        int32_t off = (int32_t)po[l];
        uint32_t r = 0xffffffffu;
        if (off == 0) {
            if (base < 32 && ((mask >> base) & 1)) r = base;
        } else {
            int inc = off > 0 ? 1 : -1;
            int64_t count = (off > 0 ? (int64_t)off : -(int64_t)off) - 1;
            for (int64_t pos = base; pos >= 0 && pos < 32; pos += inc) {
                if ((mask >> pos) & 1) {
                    if (count == 0) { r = (uint32_t)pos; break; }
                    count--;
                }
            }
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* bfe.type d, a, pos, len: extract len bits at pos, zero- or sign-extended; bits past the msb read as
 * the sign (signed) or 0 (unsigned); len 0 gives 0. pos and len are taken mod 256 for 32-bit types
 * (the hardware's 8-bit fields, as PTX says) but whole for 64-bit types, which the hardware does with
 * shifts (measured on an H200). */
GS_HANDLER(h_bfe) {
    (void)c;
    int bits = gs_type_bits(x->type), s = gs_type_is_signed(x->type), msb = bits - 1;
    uint32_t fm = bits == 32 ? 0xffu : 0xffffffffu;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_LANES(m, l, {
        uint64_t a = pa[l] & gs_width_mask(bits);
        uint32_t pos = (uint32_t)pb[l] & fm, len = (uint32_t)pc[l] & fm;
        uint64_t r = 0;
        if (len) {
            uint64_t end = (uint64_t)pos + len - 1;
            uint32_t top = end > (uint64_t)msb ? (uint32_t)msb : (uint32_t)end;
            uint64_t sbit = s ? (a >> top) & 1 : 0;
            uint64_t field = pos > (uint32_t)msb ? 0 : (a >> pos);
            uint32_t got = pos > (uint32_t)msb ? 0 : (uint32_t)msb - pos + 1;   /* bits available */
            if (got > len) got = len;
            r = field & gs_width_mask((int)got);
            if (sbit && got < (uint32_t)bits) r |= ~gs_width_mask((int)got);
        }
        d[l] = r & gs_width_mask(bits);
    });
    return GS_X_NEXT;
}

/* bfi.type f, a, b, pos, len: b with len bits of a inserted at pos (bits past the msb dropped); pos
 * and len as in bfe (mod 256 for b32, whole for b64) */
GS_HANDLER(h_bfi) {
    (void)c;
    int bits = gs_type_bits(x->type), msb = bits - 1;
    uint32_t fm = bits == 32 ? 0xffu : 0xffffffffu;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3),
                   *pd = gs_opr(w, x, 4);
    GS_LANES(m, l, {
        uint64_t a = pa[l], b = pb[l] & gs_width_mask(bits);
        uint32_t pos = (uint32_t)pc[l] & fm, len = (uint32_t)pd[l] & fm;
        if (len && pos <= (uint32_t)msb) {
            uint32_t n = (uint32_t)msb - pos + 1;
            if (n > len) n = len;
            uint64_t fm = gs_width_mask((int)n) << pos;
            b = (b & ~fm) | ((a << pos) & fm);
        }
        d[l] = b;
    });
    return GS_X_NEXT;
}

/* prmt.b32{.mode} d, a, b, c: bytes of d picked from the 8 bytes of b:a (a is bytes 0-3). Default
 * mode: selector nibble i of c picks byte c[2:0] for d's byte i, bit 3 replicates its sign bit.
 * Other modes index a fixed table by c[1:0] (rows: d.b0..d.b3). */
static const uint8_t PRMT_MODES[7][4][4] = {
    {{0}},
    /* f4e */ {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
    /* b4e */ {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
    /* rc8 */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
    /* ecl */ {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
    /* ecr */ {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
    /* rc16 */ {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
};
GS_HANDLER(h_prmt) {
    (void)c;
    uint32_t mode = x->aux;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    GS_LANES(m, l, {
        uint64_t v = ((uint64_t)(uint32_t)pb[l] << 32) | (uint32_t)pa[l];
        uint32_t sel = (uint32_t)pc[l], r = 0;
        for (int i = 0; i < 4; i++) {
            uint32_t byte;
            if (mode == 0) {
                uint32_t s = (sel >> (4 * i)) & 0xf;
                byte = (uint32_t)(v >> (8 * (s & 7))) & 0xff;
                if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
            } else {
                byte = (uint32_t)(v >> (8 * PRMT_MODES[mode][sel & 3][i])) & 0xff;
            }
            r |= byte << (8 * i);
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* lop3.b32 d, a, b, c, lut: bit i of d is lut[(a_i << 2) | (b_i << 1) | c_i] */
GS_HANDLER(h_lop3) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3),
                   *pl = gs_opr(w, x, 4);
    GS_LANES(m, l, {
        uint32_t a = (uint32_t)pa[l], b = (uint32_t)pb[l], cc = (uint32_t)pc[l], lut = (uint32_t)pl[l];
        uint32_t r = 0;
        for (int i = 0; i < 8; i++)
            if ((lut >> i) & 1) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? cc : ~cc);
        d[l] = r;
    });
    return GS_X_NEXT;
}

static int width_slot(int t) {
    int b = gs_type_bits(t);
    return b == 16 ? 0 : b == 32 ? 1 : b == 64 ? 2 : -1;
}

gs_handler gs_bind_bits(const gs_xinst *x) {
    int t = x->type, bits = gs_type_bits(t), s = gs_type_is_signed(t), k = width_slot(t);
    if (t == GS_T_PRED) {
        switch (x->op) {
        case GS_OP_AND: case GS_OP_OR: case GS_OP_XOR: case GS_OP_NOT: case GS_OP_CNOT:
            return h_pred_logic;
        default: return NULL;
        }
    }
    if (gs_type_is_float(t) || k < 0) return NULL;
    int is_b = t == GS_T_B16 || t == GS_T_B32 || t == GS_T_B64;
    switch (x->op) {   /* the type sets ptxas accepts (checked with ptxas -arch=sm_90) */
    case GS_OP_AND: return is_b ? h_and[k] : NULL;
    case GS_OP_OR: return is_b ? h_or[k] : NULL;
    case GS_OP_XOR: return is_b ? h_xor[k] : NULL;
    case GS_OP_NOT: return is_b ? h_not[k] : NULL;
    case GS_OP_CNOT: return is_b ? h_cnot[k] : NULL;
    case GS_OP_SHL: return !is_b ? NULL : bits == 16 ? h_shl16 : bits == 32 ? h_shl32 : h_shl64;
    case GS_OP_SHR:
        if (s) return bits == 16 ? h_shr_s16 : bits == 32 ? h_shr_s32 : h_shr_s64;
        return bits == 16 ? h_shr_u16 : bits == 32 ? h_shr_u32 : h_shr_u64;
    case GS_OP_SHF: return t == GS_T_B32 ? h_shf : NULL;
    case GS_OP_POPC: return !is_b ? NULL : bits == 32 ? h_popc32 : bits == 64 ? h_popc64 : NULL;
    case GS_OP_CLZ: return !is_b ? NULL : bits == 32 ? h_clz32 : bits == 64 ? h_clz64 : NULL;
    case GS_OP_BREV: return !is_b ? NULL : bits == 32 ? h_brev32 : bits == 64 ? h_brev64 : NULL;
    case GS_OP_BFIND: return (!is_b && bits >= 32) ? h_bfind : NULL;
    case GS_OP_FNS: return t == GS_T_B32 ? h_fns : NULL;
    case GS_OP_BFE: return (!is_b && bits >= 32) ? h_bfe : NULL;
    case GS_OP_BFI: return (is_b && bits >= 32) ? h_bfi : NULL;
    case GS_OP_PRMT: return (t == GS_T_B32 && x->aux <= 6) ? h_prmt : NULL;
    case GS_OP_LOP3: return t == GS_T_B32 ? h_lop3 : NULL;
    default: return NULL;
    }
}
