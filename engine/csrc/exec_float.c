/* exec_float.c — f32 and f64 arithmetic: add, sub, mul, fma/mad, div (.rn/.rz/.rm/.rp, .full,
 * .approx), min/max (.NaN, .xorsign.abs), abs, neg, copysign, testp. Special functions (rcp, sqrt, ex2,
 * ...) are in exec_sfu.c, f16/bf16 arithmetic in exec_half.c.
 *
 * Exactness. add/sub/mul/div/fma are IEEE operations of the host with the same rounding (this file is
 * compiled with -frounding-math; directed modes set the host rounding mode around the lane loop), so
 * they are bit-exact. fma needs a fused multiply-add: with the host's FMA unit (checked at bind time)
 * it is one instruction; otherwise fma_f32_exact computes it exactly in double (see there), and f64 uses
 * the C library's fma, which is correctly rounded in every mode.
 *
 * Handler variants per operation, chosen at bind time: _rn (no modifiers: the hot path), _ftz (.ftz,
 * round to nearest), _gen (anything else: rounding mode, .sat, .ftz read from the instruction).
 * f32 NaN results are canonical (0x7fffffff); f64 NaNs follow the double unit, which (as measured on
 * an H200, tests/kernels/isa_h200.npz) behaves like x86: a NaN operand propagates quieted, an invalid
 * operation gives 0xfff8000000000000 -- exactly the host's results, so f64 values are stored as they
 * come. .ftz flushes subnormal inputs and results to signed zeros, a result being tested after rounding.
 */
#include "exec_alu.h"

/* fma in f32 without an FMA unit: a*b is exact in double (24+24 bits); rounding its round-to-odd sum
 * with c (gs_odd_sum, exact in every mode) to 24 bits equals rounding the exact a*b+c. */
static inline float fma_f32_exact(float a, float b, float c) {
    return (float)gs_odd_sum((double)a * (double)b, (double)c);
}

/* ---------------------------------------------------------------------------------------------
 * generators
 * --------------------------------------------------------------------------------------------- */
#define F32_BIN(name, EXPR)                                                                        \
    GS_HANDLER(name##_rn) {                                                                        \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        GS_VLANES(m, l, { float a = gs_f32(pa[l]), b = gs_f32(pb[l]); d[l] = gs_res32(EXPR); });   \
        return GS_X_NEXT;                                                                          \
    }                                                                                              \
    GS_HANDLER(name##_ftz) {                                                                       \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        GS_VLANES(m, l, { float a = gs_ftz32(gs_f32(pa[l])), b = gs_ftz32(gs_f32(pb[l]));          \
                          d[l] = gs_res32(gs_ftz32(EXPR)); });                                     \
        return GS_X_NEXT;                                                                          \
    }                                                                                              \
    __attribute__((unused)) GS_HANDLER(name##_gen) {                                               \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        int ftz = (x->flags & GS_F_FTZ) != 0, sat = (x->flags & GS_F_SAT) != 0;                    \
        int mode = gs_fe_mode(x->rnd);                                                             \
        if (mode != FE_TONEAREST) fesetround(mode);                                                \
        GS_LANES(m, l, {                                                                           \
            float a = gs_f32(pa[l]), b = gs_f32(pb[l]);                                            \
            if (ftz) { a = gs_ftz32(a); b = gs_ftz32(b); }                                         \
            float r = (EXPR);                                                                      \
            if (ftz) r = gs_ftz32(r);                                                              \
            if (sat) r = gs_sat32(r);                                                              \
            d[l] = gs_res32(r);                                                                    \
        });                                                                                        \
        if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);                                        \
        return GS_X_NEXT;                                                                          \
    }

#define F64_BIN(name, EXPR)                                                                        \
    GS_HANDLER(name##_rn) {                                                                        \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        GS_VLANES(m, l, { double a = gs_f64(pa[l]), b = gs_f64(pb[l]); d[l] = gs_bits_f64(EXPR); });  \
        return GS_X_NEXT;                                                                          \
    }                                                                                              \
    __attribute__((unused)) GS_HANDLER(name##_gen) {                                               \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);                               \
        int sat = (x->flags & GS_F_SAT) != 0, mode = gs_fe_mode(x->rnd);                           \
        if (mode != FE_TONEAREST) fesetround(mode);                                                \
        GS_LANES(m, l, {                                                                           \
            double a = gs_f64(pa[l]), b = gs_f64(pb[l]);                                           \
            double r = (EXPR);                                                                     \
            if (sat) r = gs_sat64(r);                                                              \
            d[l] = gs_bits_f64(r);                                                                    \
        });                                                                                        \
        if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);                                        \
        return GS_X_NEXT;                                                                          \
    }

F32_BIN(h_add_f32, a + b)
F32_BIN(h_sub_f32, a - b)
F32_BIN(h_mul_f32, a * b)
F32_BIN(h_div_f32, a / b)
F64_BIN(h_add_f64, a + b)
F64_BIN(h_sub_f64, a - b)
F64_BIN(h_mul_f64, a * b)
F64_BIN(h_div_f64, a / b)

/* div.approx.f32: a * (1/b) with the reciprocal of the special-function unit, which is flushed to zero
 * for 2^126 < |b| < 2^128, so the quotient is 0 there (NaN for infinite a), as PTX documents. Without
 * .ftz, subnormal operands are scaled by the hardware and give ordinary quotients; here the product is
 * formed in double and rounded once, within the documented 2 ulp (measured: within 2 ulp of an H200). */
GS_HANDLER(h_div_approx_f32) {
    (void)c;
    int ftz = (x->flags & GS_F_FTZ) != 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_LANES(m, l, {
        float a = gs_f32(pa[l]), b = gs_f32(pb[l]);
        if (ftz) { a = gs_ftz32(a); b = gs_ftz32(b); }
        double rb = fabsf(b) > 0x1p126f ? copysign(0.0, b) : 1.0 / (double)b;
        float r = (float)((double)a * rb);
        if (ftz) r = gs_ftz32(r);
        d[l] = gs_res32(r);
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * fma / mad
 * --------------------------------------------------------------------------------------------- */
#define FMA_LOOP(T, RD, FMA, FTZ, SAT, RES)                                                        \
    uint64_t *d = gs_opr(w, x, 0);                                                                 \
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);            \
    GS_VLANES(m, l, {                                                                              \
        T a = FTZ(RD(pa[l])), b = FTZ(RD(pb[l])), cc = FTZ(RD(pc[l]));                             \
        d[l] = RES(SAT(FTZ(FMA(a, b, cc))));                                                       \
    })
#define ID(v) (v)

GS_HANDLER(h_fma_f32_rn) { (void)c; FMA_LOOP(float, gs_f32, fma_f32_exact, ID, ID, gs_res32); return GS_X_NEXT; }
GS_HANDLER(h_fma_f32_ftz) { (void)c; FMA_LOOP(float, gs_f32, fma_f32_exact, gs_ftz32, ID, gs_res32); return GS_X_NEXT; }
/* The host-FMA forms (chosen at bind time when the CPU has FMA). GCC does not vectorise fmaf under
 * -frounding-math, so the full-mask f32 path is written with AVX2 intrinsics: 8 lanes per step, the
 * low words of the 64-bit slots gathered into one vector, NaN made canonical, .ftz as bit masks. */
#if defined(__x86_64__)
#include <immintrin.h>
#define AVX2_FMA __attribute__((target("avx2,fma")))
AVX2_FMA static inline __m256i ld8(const uint64_t *p) {
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)p), idx);
    __m256i hi = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(p + 4)), idx);
    return _mm256_permute2x128_si256(lo, hi, 0x20);
}
AVX2_FMA static inline void st8(uint64_t *p, __m256i v) {
    _mm256_storeu_si256((__m256i *)p, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
    _mm256_storeu_si256((__m256i *)(p + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
}
AVX2_FMA static inline __m256i ftz8(__m256i v) {
    __m256i z = _mm256_cmpeq_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7f800000)), _mm256_setzero_si256());
    return _mm256_blendv_epi8(v, _mm256_and_si256(v, _mm256_set1_epi32((int)0x80000000u)), z);
}
AVX2_FMA static inline void fma32_full(uint64_t *d, const uint64_t *pa, const uint64_t *pb,
                                       const uint64_t *pc, int ftz) {
    for (int l = 0; l < GS_WARP; l += 8) {
        __m256i a = ld8(pa + l), b = ld8(pb + l), c = ld8(pc + l);
        if (ftz) { a = ftz8(a); b = ftz8(b); c = ftz8(c); }
        __m256 r = _mm256_fmadd_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _mm256_castsi256_ps(c));
        __m256i ri = _mm256_castps_si256(r);
        if (ftz) ri = ftz8(ri);
        __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
        st8(d + l, _mm256_blendv_epi8(ri, _mm256_set1_epi32(0x7fffffff), _mm256_castps_si256(nan)));
    }
}
#define FMA_HW AVX2_FMA
#define FMA32_FULL(ftz) if (m == GS_FULL) { fma32_full(gs_opr(w, x, 0), gs_src(w, x, 1), gs_src(w, x, 2), \
                                                      gs_src(w, x, 3), ftz); return GS_X_NEXT; }
#else
#define FMA_HW
#define FMA32_FULL(ftz)
#endif
FMA_HW
GS_HANDLER(h_fma_f32_rn_hw) {
    (void)c; FMA32_FULL(0) FMA_LOOP(float, gs_f32, fmaf, ID, ID, gs_res32); return GS_X_NEXT;
}
FMA_HW
GS_HANDLER(h_fma_f32_ftz_hw) {
    (void)c; FMA32_FULL(1) FMA_LOOP(float, gs_f32, fmaf, gs_ftz32, ID, gs_res32); return GS_X_NEXT;
}
FMA_HW
GS_HANDLER(h_fma_f64_rn_hw) { (void)c; FMA_LOOP(double, gs_f64, fma, ID, ID, gs_bits_f64); return GS_X_NEXT; }
GS_HANDLER(h_fma_f64_rn) { (void)c; FMA_LOOP(double, gs_f64, fma, ID, ID, gs_bits_f64); return GS_X_NEXT; }

/* any rounding mode, .ftz, .sat (f32) — the C library's fmaf/fma honour the host rounding mode */
GS_HANDLER(h_fma_f32_gen) {
    (void)c;
    int ftz = (x->flags & GS_F_FTZ) != 0, sat = (x->flags & GS_F_SAT) != 0, mode = gs_fe_mode(x->rnd);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    if (mode != FE_TONEAREST) fesetround(mode);
    GS_LANES(m, l, {
        float a = gs_f32(pa[l]), b = gs_f32(pb[l]), cc = gs_f32(pc[l]);
        if (ftz) { a = gs_ftz32(a); b = gs_ftz32(b); cc = gs_ftz32(cc); }
        float r = fmaf(a, b, cc);
        if (ftz) r = gs_ftz32(r);
        if (sat) r = gs_sat32(r);
        d[l] = gs_res32(r);
    });
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
    return GS_X_NEXT;
}
GS_HANDLER(h_fma_f64_gen) {
    (void)c;
    int mode = gs_fe_mode(x->rnd);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = gs_src(w, x, 3);
    if (mode != FE_TONEAREST) fesetround(mode);
    GS_LANES(m, l, d[l] = gs_bits_f64(fma(gs_f64(pa[l]), gs_f64(pb[l]), gs_f64(pc[l]))));
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * min / max: a NaN operand is ignored (both NaN: canonical NaN); -0 < +0. .NaN: any NaN operand gives
 * the canonical NaN. .xorsign.abs: min/max of |a| and |b| with the sign a.sign ^ b.sign.
 * --------------------------------------------------------------------------------------------- */
static inline float min32(float a, float b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline float max32(float a, float b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}
/* f64: both operands NaN give a, quieted (as measured); the host's a + a does exactly that */
static inline double min64(double a, double b) {
    if (a != a) return b != b ? a + a : b;
    if (b != b) return a;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline double max64(double a, double b) {
    if (a != a) return b != b ? a + a : b;
    if (b != b) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}
F32_BIN(h_min_f32, min32(a, b))
F32_BIN(h_max_f32, max32(a, b))
F64_BIN(h_min_f64, min64(a, b))
F64_BIN(h_max_f64, max64(a, b))

GS_HANDLER(h_minmax_f32_gen) {
    (void)c;
    int ftz = (x->flags & GS_F_FTZ) != 0, nan = (x->flags & GS_F_NAN) != 0;
    int xs = (x->flags & GS_F_XORSIGN) != 0, is_max = x->op == GS_OP_MAX;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_LANES(m, l, {
        float a = gs_f32(pa[l]), b = gs_f32(pb[l]);
        if (ftz) { a = gs_ftz32(a); b = gs_ftz32(b); }
        uint32_t sign = (gs_u32_of(a) ^ gs_u32_of(b)) & 0x80000000u;
        if (xs) { a = fabsf(a); b = fabsf(b); }
        float r = is_max ? max32(a, b) : min32(a, b);
        if (nan && (a != a || b != b)) r = NAN;
        uint64_t u = gs_res32(r);
        if (xs && u != GS_NAN32) u |= sign;
        d[l] = u;
    });
    return GS_X_NEXT;
}
GS_HANDLER(h_minmax_f64_gen) {
    (void)c;
    int nan = (x->flags & GS_F_NAN) != 0, xs = (x->flags & GS_F_XORSIGN) != 0, is_max = x->op == GS_OP_MAX;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_LANES(m, l, {
        double a = gs_f64(pa[l]), b = gs_f64(pb[l]);
        uint64_t sign = (pa[l] ^ pb[l]) & 0x8000000000000000ull;
        if (xs) { a = fabs(a); b = fabs(b); }
        double r = is_max ? max64(a, b) : min64(a, b);
        if (nan && (a != a || b != b)) r = NAN;
        uint64_t u = gs_bits_f64(r);
        if (xs && r == r) u |= sign;
        d[l] = u;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * abs, neg, copysign: sign-bit operations; .ftz flushes the input. NaN operands as measured on an H200:
 * f32 abs/neg give the canonical NaN, f64 abs/neg return the NaN quieted with its sign unchanged,
 * copysign moves bits. copysign d, a, b: b's magnitude with a's sign.
 * --------------------------------------------------------------------------------------------- */
#define SIGN_OP(name, EXPR)                                                                        \
    GS_HANDLER(name) {                                                                             \
        (void)c;                                                                                   \
        uint64_t *d = gs_opr(w, x, 0);                                                             \
        const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, x->nops > 2 ? 2 : 1);             \
        GS_VLANES(m, l, { uint64_t a = pa[l], b = pb[l]; (void)b; d[l] = (EXPR); });               \
        return GS_X_NEXT;                                                                          \
    }
#define FTZB(a) ((((a) & 0x7f800000u) == 0) ? ((a) & 0x80000000u) : (a))
#define NAN32(a) (((a) & 0x7fffffffu) > 0x7f800000u)
#define NAN64(a) (((a) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
#define QUIET64(a) ((a) | 0x0008000000000000ull)
SIGN_OP(h_abs_f32, NAN32((uint32_t)a) ? GS_NAN32 : (uint32_t)a & 0x7fffffffu)
SIGN_OP(h_neg_f32, NAN32((uint32_t)a) ? GS_NAN32 : (uint32_t)a ^ 0x80000000u)
SIGN_OP(h_abs_f32_ftz, NAN32((uint32_t)a) ? GS_NAN32 : FTZB((uint32_t)a) & 0x7fffffffu)
SIGN_OP(h_neg_f32_ftz, NAN32((uint32_t)a) ? GS_NAN32 : FTZB((uint32_t)a) ^ 0x80000000u)
SIGN_OP(h_abs_f64, NAN64(a) ? QUIET64(a) : a & 0x7fffffffffffffffull)
SIGN_OP(h_neg_f64, NAN64(a) ? QUIET64(a) : a ^ 0x8000000000000000ull)
SIGN_OP(h_copysign_f32, ((uint32_t)a & 0x80000000u) | ((uint32_t)b & 0x7fffffffu))
SIGN_OP(h_copysign_f64, (a & 0x8000000000000000ull) | (b & 0x7fffffffffffffffull))

/* ---------------------------------------------------------------------------------------------
 * testp.class.{f32,f64} p, a. The hardware reports zero as .normal (measured on an H200); .subnormal
 * excludes zero.
 * --------------------------------------------------------------------------------------------- */
GS_HANDLER(h_testp) {
    (void)c;
    int is64 = x->type == GS_T_F64, cls = x->sub;
    const uint64_t *pa = gs_src(w, x, 1);
    uint32_t r = 0;
    GS_LANES(m, l, {
        int k = is64 ? fpclassify(gs_f64(pa[l])) : fpclassify(gs_f32(pa[l]));
        int v;
        switch (cls) {
        case GS_TESTP_FINITE: v = k != FP_INFINITE && k != FP_NAN; break;
        case GS_TESTP_INFINITE: v = k == FP_INFINITE; break;
        case GS_TESTP_NUMBER: v = k != FP_NAN; break;
        case GS_TESTP_NOTANUMBER: v = k == FP_NAN; break;
        case GS_TESTP_NORMAL: v = k == FP_NORMAL || k == FP_ZERO; break;   /* zero counts (measured) */
        default: v = k == FP_SUBNORMAL; break;
        }
        r |= (uint32_t)v << l;
    });
    gs_pred_write(w, x->ops[0], r, m);
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * binder
 * --------------------------------------------------------------------------------------------- */
static int have_fma(void) {
#if defined(__x86_64__)
    static int v = -1;
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
    }
    return v;
#else
    return 0;
#endif
}

/* plain (rn), ftz-only, or general variant of a binary f32 op */
static gs_handler pick32(const gs_xinst *x, gs_handler rn, gs_handler ftz, gs_handler gen) {
    int plain_rnd = x->rnd == GS_RND_NONE || x->rnd == GS_RND_RN;
    if (!plain_rnd || (x->flags & GS_F_SAT)) return gen;
    return (x->flags & GS_F_FTZ) ? ftz : rn;
}

static gs_handler bind_f32(const gs_xinst *x) {
    uint32_t f = x->flags;
    int rnd = x->rnd, ftz = (f & GS_F_FTZ) != 0;
    int irnd = rnd == GS_RND_NONE || rnd == GS_RND_RN || rnd == GS_RND_RZ || rnd == GS_RND_RM ||
               rnd == GS_RND_RP;
    if (!irnd) return NULL;
    switch (x->op) {
    case GS_OP_ADD: return pick32(x, h_add_f32_rn, h_add_f32_ftz, h_add_f32_gen);
    case GS_OP_SUB: return pick32(x, h_sub_f32_rn, h_sub_f32_ftz, h_sub_f32_gen);
    case GS_OP_MUL: return pick32(x, h_mul_f32_rn, h_mul_f32_ftz, h_mul_f32_gen);
    case GS_OP_FMA: case GS_OP_MAD:
        if (f & (GS_F_HI | GS_F_LO | GS_F_WIDE | GS_F_CC)) return NULL;
        if (rnd == GS_RND_NONE) return NULL;             /* fma/mad.f32 need a rounding (as ptxas) */
        if (rnd == GS_RND_RN && !(f & GS_F_SAT))
            return ftz ? (have_fma() ? h_fma_f32_ftz_hw : h_fma_f32_ftz)
                       : (have_fma() ? h_fma_f32_rn_hw : h_fma_f32_rn);
        return h_fma_f32_gen;
    case GS_OP_DIV:
        if (f & GS_F_SAT) return NULL;
        if (f & GS_F_APPROX) return rnd == GS_RND_NONE ? h_div_approx_f32 : NULL;
        if (f & GS_F_FULL) return rnd == GS_RND_NONE ? (ftz ? h_div_f32_ftz : h_div_f32_rn) : NULL;
        if (rnd == GS_RND_NONE) return NULL;                          /* div.f32 needs a rounding */
        return pick32(x, h_div_f32_rn, h_div_f32_ftz, h_div_f32_gen);
    case GS_OP_MIN: case GS_OP_MAX:
        if (rnd != GS_RND_NONE || (f & (GS_F_SAT | GS_F_RELU))) return NULL;
        if (f & (GS_F_NAN | GS_F_XORSIGN)) {
            if ((f & GS_F_XORSIGN) && !(f & GS_F_ABS)) return NULL;
            return h_minmax_f32_gen;
        }
        if (x->op == GS_OP_MIN) return ftz ? h_min_f32_ftz : h_min_f32_rn;
        return ftz ? h_max_f32_ftz : h_max_f32_rn;
    case GS_OP_ABS: return rnd ? NULL : ftz ? h_abs_f32_ftz : h_abs_f32;
    case GS_OP_NEG: return rnd ? NULL : ftz ? h_neg_f32_ftz : h_neg_f32;
    case GS_OP_COPYSIGN: return h_copysign_f32;
    case GS_OP_TESTP: return x->sub >= GS_TESTP_FINITE && x->sub <= GS_TESTP_SUBNORMAL ? h_testp : NULL;
    default: return NULL;
    }
}

static gs_handler bind_f64(const gs_xinst *x) {
    uint32_t f = x->flags;
    int rnd = x->rnd, plain = rnd == GS_RND_NONE || rnd == GS_RND_RN;
    int irnd = rnd == GS_RND_NONE || rnd == GS_RND_RN || rnd == GS_RND_RZ || rnd == GS_RND_RM ||
               rnd == GS_RND_RP;
    if (!irnd || (f & GS_F_FTZ) || (f & GS_F_SAT)) return NULL;
    switch (x->op) {
    case GS_OP_ADD: return plain ? h_add_f64_rn : h_add_f64_gen;
    case GS_OP_SUB: return plain ? h_sub_f64_rn : h_sub_f64_gen;
    case GS_OP_MUL: return plain ? h_mul_f64_rn : h_mul_f64_gen;
    case GS_OP_FMA: case GS_OP_MAD:
        if (rnd == GS_RND_NONE || (f & (GS_F_HI | GS_F_LO | GS_F_WIDE | GS_F_CC))) return NULL;
        return rnd == GS_RND_RN ? (have_fma() ? h_fma_f64_rn_hw : h_fma_f64_rn) : h_fma_f64_gen;
    case GS_OP_DIV:
        if (rnd == GS_RND_NONE || (f & (GS_F_APPROX | GS_F_FULL))) return NULL;
        return rnd == GS_RND_RN ? h_div_f64_rn : h_div_f64_gen;
    case GS_OP_MIN: case GS_OP_MAX:
        if (rnd != GS_RND_NONE || (f & GS_F_RELU)) return NULL;
        if (f & (GS_F_NAN | GS_F_XORSIGN)) {
            if ((f & GS_F_XORSIGN) && !(f & GS_F_ABS)) return NULL;
            return h_minmax_f64_gen;
        }
        return x->op == GS_OP_MIN ? h_min_f64_rn : h_max_f64_rn;
    case GS_OP_ABS: return rnd ? NULL : h_abs_f64;
    case GS_OP_NEG: return rnd ? NULL : h_neg_f64;
    case GS_OP_COPYSIGN: return h_copysign_f64;
    case GS_OP_TESTP: return x->sub >= GS_TESTP_FINITE && x->sub <= GS_TESTP_SUBNORMAL ? h_testp : NULL;
    default: return NULL;
    }
}

gs_handler gs_bind_float(const gs_xinst *x) {
    if (x->type == GS_T_F32) return bind_f32(x);
    if (x->type == GS_T_F64) return bind_f64(x);
    return NULL;
}
