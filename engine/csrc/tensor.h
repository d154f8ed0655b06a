/* tensor.h — helpers shared by the tensor-core handlers (exec_wmma.c, exec_mma.c, exec_wgmma.c,
 * exec_ldmatrix.c): element formats, the PTX register-fragment layouts of mma/wgmma, and rounding of
 * accumulators.
 *
 * Numerics of every matrix product here: each product of two inputs is exact in double (f16, bf16,
 * tf32, fp8 and 8-bit integers have at most 11 significant bits, so a product has at most 22), and the
 * K products of one instruction plus the accumulator are summed in double, then rounded once to the
 * accumulator type (f32: round to nearest even; f16: through f32, see acc_store). For K <= 32 terms
 * of bounded range the double sum is exact in practice, so one instruction's result is the correctly
 * rounded value of the exact sum: order-independent and deterministic. Hardware tensor cores add with
 * less care (truncated alignment), so they may differ from us in the last bits of f32.
 * Integer products (s8/u8) are summed exactly in int64 and wrap to s32 (or clamp with .satfinite).
 */
#ifndef GS_TENSOR_H
#define GS_TENSOR_H
#include "exec.h"
#include "fp16.h"

/* bits of one element type inside a 32-bit register */
static inline int tc_bits(int t) {
    switch (t) {
    case GS_T_F16: case GS_T_BF16: return 16;
    case GS_T_E4M3: case GS_T_E5M2: case GS_T_S8: case GS_T_U8: return 8;
    default: return 32;   /* tf32, f32, s32 */
    }
}

/* fp8 E4M3 (bias 7, no infinities, S.1111.111 is NaN) and E5M2 (IEEE-like, bias 15) to double */
static inline double tc_e4m3(uint32_t v) {
    int s = (v >> 7) & 1, e = (v >> 3) & 15, mnt = v & 7;
    if (e == 15 && mnt == 7) return NAN;
    double r = e ? ldexp(1.0 + mnt / 8.0, e - 7) : ldexp(mnt / 8.0, -6);
    return s ? -r : r;
}
static inline double tc_e5m2(uint32_t v) { return gs_h2f((uint16_t)(v << 8)); }

/* one input or accumulator element, given its raw bits, as a double. tf32 reads an f32 pattern and
 * ignores its low 13 mantissa bits (the hardware reads only 19 bits). */
static inline double tc_value(int t, uint32_t v) {
    switch (t) {
    case GS_T_F16: return gs_h2d((uint16_t)v);
    case GS_T_BF16: return gs_bf2f((uint16_t)v);
    case GS_T_TF32: return gs_f32(v & 0xffffe000u);
    case GS_T_E4M3: return tc_e4m3(v & 0xffu);
    case GS_T_E5M2: return tc_e5m2(v & 0xffu);
    case GS_T_S8: return (int8_t)v;
    case GS_T_U8: return (uint8_t)v;
    case GS_T_S32: return (int32_t)v;
    default: return gs_f32(v);   /* f32 */
    }
}

/* element e (0-based, low bits first) of the P elements packed into a 32-bit register */
static inline uint32_t tc_unpack(uint64_t reg, int bits, int e) {
    return bits == 32 ? (uint32_t)reg : (uint32_t)(reg >> (bits * e)) & ((1u << bits) - 1u);
}

/* accumulator element from its value: f32 rounds to nearest even, f16 through f32 (the f32 -> f16
 * step may round twice at exact ties; hardware f16 accumulation is coarser than that anyway), s32
 * wraps modulo 2^32 or clamps with satfinite. A NaN result is the canonical NaN of its type
 * (0x7fffffff, 0x7fff), as for the engine's other f32/f16 arithmetic: which NaN payload the host's
 * double arithmetic would carry depends on the order the compiler gives the operands. */
static inline uint32_t tc_f32_bits(double v) {
    return v != v ? 0x7fffffffu : (uint32_t)gs_bits_f32((float)v);
}
static inline uint32_t tc_acc_bits(int t, double v, int satfinite) {
    if (t == GS_T_F16) return gs_f2h((float)v);
    if (t == GS_T_S32) {
        if (satfinite) return (uint32_t)(int32_t)(v > 2147483647.0 ? 2147483647.0 : v < -2147483648.0 ? -2147483648.0 : v);
        return (uint32_t)(int64_t)v;
    }
    return tc_f32_bits(v);
}

/* ---- the mma/wgmma register fragments (PTX "Matrix fragments for mma.m16n8kK"), per warp of 16
 * rows. g = lane >> 2 (group), t = lane & 3 (thread in group), P = 32 / element bits. */

/* A (16 x K, row-major use): register j, element e -> (row, col) */
static inline void tc_a_coord(int lane, int j, int e, int P, int *row, int *col) {
    int g = lane >> 2, t = lane & 3;
    *row = g + 8 * (j & 1);
    *col = t * P + e + 4 * P * (j >> 1);
}

/* B (K x 8 per n-block): register j, element e -> (k, n) */
static inline void tc_b_coord(int lane, int j, int e, int P, int *k, int *n) {
    int g = lane >> 2, t = lane & 3;
    *k = t * P + e + 4 * P * j;
    *n = g;
}

/* accumulator (16 x N): register i -> (row, col) of its first element; f32/s32 hold one element per
 * register (4 per 8-column block), f16 two (2 registers per block), the second at col + 1 */
static inline void tc_acc_coord(int lane, int i, int packed, int *row, int *col) {
    int g = lane >> 2, t = lane & 3;
    if (packed) { *row = g + 8 * (i & 1); *col = 8 * (i >> 1) + 2 * t; }
    else { *row = g + 8 * ((i >> 1) & 1); *col = 8 * (i >> 2) + 2 * t + (i & 1); }
}

#endif
