/* exec_alu.h — helpers shared by the arithmetic handler families (exec_int.c, exec_bits.c,
 * exec_float.c, exec_sfu.c, exec_half.c, exec_cmp.c, exec_cvt.c). Included after exec.h.
 *
 * Conventions of these files:
 *  - a source operand is read from its 64-bit slot and truncated to the instruction's type width (PTX's
 *    relaxed type-checking rule for wider registers); a result is stored zero-extended from its width;
 *  - NaN results are the canonical NaN of the format (f32 0x7fffffff, f64 0x7fffffffffffffff, f16 0x7fff,
 *    bf16 0x7fff), as NVIDIA GPUs produce: payloads of NaN inputs are not propagated;
 *  - the common full-mask, round-to-nearest paths are plain lane loops that GCC vectorises at -O2
 *    (GS_VLANES tells it the destination never overlaps a source at another lane); directed rounding,
 *    .ftz and .sat go to separate handlers chosen at bind time.
 */
#ifndef GS_EXEC_ALU_H
#define GS_EXEC_ALU_H
#include <fenv.h>
#include "exec.h"

/* GS_LANES with an ivdep hint on the full-mask loop: d[l] may be the same slot as a[l] (d == a is
 * legal PTX) but never another lane's, so the loop has no loop-carried dependence. */
#define GS_VLANES(m, l, ...) GS_LANES_HINT(m, l, _Pragma("GCC ivdep"), __VA_ARGS__)

#define GS_NAN32 0x7fffffffu
#define GS_NAN64 0x7fffffffffffffffull
#define GS_NAN16 0x7fffu

/* ---- f32 / f64 bit helpers ---- */
static inline uint32_t gs_u32_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float gs_f32_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* flush an f32 subnormal to a zero of the same sign (the .ftz rule); branch-free for vectorising */
static inline float gs_ftz32(float v) {
    uint32_t u = gs_u32_of(v);
    return gs_f32_of((u & 0x7f800000u) == 0 ? (u & 0x80000000u) : u);
}
static inline double gs_ftz64(double v) {
    uint64_t u; memcpy(&u, &v, 8);
    if ((u & 0x7ff0000000000000ull) == 0) u &= 0x8000000000000000ull;
    memcpy(&v, &u, 8);
    return v;
}
/* result bits of an f32 with NaN made canonical */
static inline uint64_t gs_res32(float r) { return r != r ? GS_NAN32 : gs_u32_of(r); }
static inline uint64_t gs_res64(double r) { return r != r ? GS_NAN64 : gs_bits_f64(r); }
/* .sat: clamp to [0, 1], NaN -> +0 */
static inline float gs_sat32(float r) { return r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f; }
static inline double gs_sat64(double r) { return r > 0.0 ? (r < 1.0 ? r : 1.0) : 0.0; }

/* host rounding mode for a PTX rounding modifier (integer-rounding forms map to their float mode) */
static inline int gs_fe_mode(int rnd) {
    switch (rnd) {
    case GS_RND_RZ: case GS_RND_RZI: return FE_TOWARDZERO;
    case GS_RND_RM: case GS_RND_RMI: return FE_DOWNWARD;
    case GS_RND_RP: case GS_RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

/* ---- integer type slots: handler tables are indexed u16, s16, u32, s32, u64, s64 ---- */
enum { GS_IS_U16 = 0, GS_IS_S16, GS_IS_U32, GS_IS_S32, GS_IS_U64, GS_IS_S64 };
static inline int gs_int_slot(int t) {
    switch (t) {
    case GS_T_U16: case GS_T_B16: return GS_IS_U16;
    case GS_T_S16: return GS_IS_S16;
    case GS_T_U32: case GS_T_B32: return GS_IS_U32;
    case GS_T_S32: return GS_IS_S32;
    case GS_T_U64: case GS_T_B64: return GS_IS_U64;
    case GS_T_S64: return GS_IS_S64;
    default: return -1;
    }
}

static inline int64_t gs_sext(uint64_t v, int bits) {
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* p + c rounded to double with round-to-odd: s = RN(p + c) and its exact error e (TwoSum); if e != 0,
 * s is replaced by its neighbour with an odd last bit on the truncation side. Rounding this 53-bit
 * value once more to any format of at most 51 significand bits (f32, f16, bf16, ...), in any mode,
 * equals rounding the exact p + c (round-to-odd is innocuous when the target has 2 bits fewer), so
 * callers get one correct rounding of an exact sum. Must run in round-to-nearest (TwoSum's
 * requirement). p + c must not overflow the double range (true for sums of f32 products). */
static inline double gs_odd_sum(double p, double c) {
    double s = p + c;
    if (!isfinite(s)) return s;              /* inf/NaN: exact as is (TwoSum would make NaN) */
    double bp = s - c, bc = s - bp;
    double e = (p - bp) + (c - bc);          /* exact: p + c = s + e */
    uint64_t u;
    memcpy(&u, &s, 8);
    if (e != 0) {
        if ((e > 0) != (s > 0)) u -= 1;      /* s was rounded away from zero: step back to truncation */
        u |= 1;
    }
    memcpy(&s, &u, 8);
    return s;
}

/* the rounding of a double (exact or round-to-odd) into f32 with a PTX rounding mode, without touching
 * the host mode: used where an exact intermediate must be rounded once. Subnormal f32 results are
 * produced (gradual underflow); the caller applies .ftz. */
static inline float gs_d2f_rnd(double v, int rnd) {
    float f = (float)v;                      /* round to nearest even (host default mode) */
    if (rnd == GS_RND_RN || rnd == GS_RND_NONE || f != f || (double)f == v) return f;
    int up;                                  /* step f one ulp towards +inf (1) or -inf (0)? */
    switch (rnd) {
    case GS_RND_RZ: if (fabs((double)f) <= fabs(v)) return f; up = f < 0; break;
    case GS_RND_RM: if ((double)f <= v) return f; up = 0; break;
    case GS_RND_RP: if ((double)f >= v) return f; up = 1; break;
    default: return f;
    }
    return nextafterf(f, up ? INFINITY : -INFINITY);
}

#endif
