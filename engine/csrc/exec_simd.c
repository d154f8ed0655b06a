/* exec_simd.c — packed 16-bit integer SIMD (PTX ISA 8.0, sm_90): add.{u16x2,s16x2},
 * min/max.{u16x2,s16x2} and min/max.relu.s16x2. The 32-bit operand holds two 16-bit elements (bits
 * 15..0 and 31..16) that are processed independently.
 *
 * Semantics (PTX ISA, "Integer Arithmetic Instructions: add/min/max"):
 *  - add wraps modulo 2^16 in each half (no carry from the low half into the high one; there is no
 *    .sat form for the x2 types, ptxas refuses add.sat.s16x2);
 *  - min/max compare each half as unsigned (.u16x2) or two's-complement signed (.s16x2);
 *  - .relu (s16x2 only) clamps a negative result half to 0.
 * ptxas 13.0 refuses sub, mul, neg and abs on the x2 types and three-source min/max, and so does the
 * binder. Every handler is one branch-free expression over the 32-bit word in a GS_VLANES loop.
 */
#include "exec_alu.h"

/* add in both halves at once: add the low 15 bits of each half (no carry crosses bit 15 or 31),
 * then put each half's top bit back as the XOR of the operands' top bits and the carry into it */
static inline uint32_t add16x2(uint32_t a, uint32_t b) {
    return ((a & 0x7fff7fffu) + (b & 0x7fff7fffu)) ^ ((a ^ b) & 0x80008000u);
}
static inline uint32_t lo16(uint32_t v) { return v & 0xffffu; }
static inline uint32_t hi16(uint32_t v) { return v >> 16; }
static inline int32_t slo16(uint32_t v) { return (int16_t)(uint16_t)v; }
static inline int32_t shi16(uint32_t v) { return (int16_t)(uint16_t)(v >> 16); }
static inline uint32_t pack16(int32_t lo, int32_t hi) {
    return ((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16);
}
static inline int32_t smin(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t smax(int32_t a, int32_t b) { return a > b ? a : b; }
static inline uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t umax(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline int32_t relu(int32_t v) { return v < 0 ? 0 : v; }

#define SIMD_BIN(fn, EXPR)                                                                         \
    GS_HANDLER(fn) {                                                                               \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        GS_VLANES(m, l, { uint32_t a = (uint32_t)pa[l], b = (uint32_t)pb[l]; d[l] = (EXPR); });     \
        return GS_X_NEXT;                                                                          \
    }

SIMD_BIN(h_add_16x2, add16x2(a, b))
SIMD_BIN(h_min_u16x2, umin(lo16(a), lo16(b)) | umin(hi16(a), hi16(b)) << 16)
SIMD_BIN(h_max_u16x2, umax(lo16(a), lo16(b)) | umax(hi16(a), hi16(b)) << 16)
SIMD_BIN(h_min_s16x2, pack16(smin(slo16(a), slo16(b)), smin(shi16(a), shi16(b))))
SIMD_BIN(h_max_s16x2, pack16(smax(slo16(a), slo16(b)), smax(shi16(a), shi16(b))))
SIMD_BIN(h_min_relu_s16x2, pack16(relu(smin(slo16(a), slo16(b))), relu(smin(shi16(a), shi16(b)))))
SIMD_BIN(h_max_relu_s16x2, pack16(relu(smax(slo16(a), slo16(b))), relu(smax(shi16(a), shi16(b)))))

gs_handler gs_bind_simd(const gs_xinst *x) {
    int t = x->type;
    if (t != GS_T_U16X2 && t != GS_T_S16X2) return NULL;
    uint32_t f = x->flags;
    int s = t == GS_T_S16X2;
    if (x->rnd != GS_RND_NONE || x->ir->nopnd != 3) return NULL;     /* d, a, b only */
    switch (x->op) {
    case GS_OP_ADD:
        return f ? NULL : h_add_16x2;
    case GS_OP_MIN: case GS_OP_MAX: {
        int mx = x->op == GS_OP_MAX;
        if (f == GS_F_RELU && s) return mx ? h_max_relu_s16x2 : h_min_relu_s16x2;
        if (f) return NULL;
        return s ? (mx ? h_max_s16x2 : h_min_s16x2) : (mx ? h_max_u16x2 : h_min_u16x2);
    }
    default: return NULL;
    }
}
