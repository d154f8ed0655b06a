/* exec_sfu.c — special functions: rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh in f32 and f64
 * (.approx and IEEE-rounded forms, .ftz), and the f16/bf16/f16x2/bf16x2 .approx forms of ex2 and tanh.
 *
 * IEEE forms (rcp.rn, sqrt.rz, ...) are exact: host division and square root in the requested mode.
 * .approx forms are computed in double and rounded once to the format, so they are as accurate as or
 * more accurate than the hardware's documented bounds (the special-function unit's own tables are not
 * public, so results may differ from hardware in the last bits, never by more than those bounds):
 *   rcp.approx.f32 1 ulp; sqrt.approx.f32 rel 2^-23; rsqrt.approx.f32 rel 2^-22.9; ex2.approx.f32 2 ulp;
 *   lg2.approx.f32 abs 2^-22.6; sin/cos.approx.f32 abs 2^-20.9 in [-pi, pi]; tanh.approx.f32 rel 2^-11;
 *   ex2.approx.f16 rel 2^-9.9; tanh.approx.f16 abs 2^-10.987; bf16 forms rel 2^-7 / abs 2^-8.
 * Two hardware behaviours are reproduced because they are visible far above those bounds:
 *   - sin/cos scale their argument by 1/(2 pi) in f32 (rounding towards zero) before the unit reduces
 *     it, so large arguments carry that f32 rounding error as the hardware's do;
 *   - rcp.approx.ftz.f64 works on the high 32 bits of the operand (sign, exponent, 20 significand
 *     bits) and returns a result whose low 32 bits are zero.
 */
#include "exec_alu.h"
#include "fp16.h"

enum { S_RCP, S_SQRT, S_RSQRT, S_EX2, S_LG2, S_SIN, S_COS, S_TANH };

static int sfu_kind(int op) {
    switch (op) {
    case GS_OP_RCP: return S_RCP;
    case GS_OP_SQRT: return S_SQRT;
    case GS_OP_RSQRT: return S_RSQRT;
    case GS_OP_EX2: return S_EX2;
    case GS_OP_LG2: return S_LG2;
    case GS_OP_SIN: return S_SIN;
    case GS_OP_COS: return S_COS;
    case GS_OP_TANH: return S_TANH;
    default: return -1;
    }
}

/* sin/cos of the unit: argument in turns, t = RZ_f32(a * 1/(2 pi)) (the f32 product is exact in double,
 * so gs_d2f_rnd rounds it once, towards zero); the reduction t - rint(t) is exact */
static inline double turns_f32(float a) {
    float t = gs_d2f_rnd((double)a * (double)0.15915494309189535f, GS_RND_RZ);
    return (double)t - nearbyint((double)t);
}

/* the approximate function in double precision, for an f32 argument */
static inline double approx_f64(int k, double a) {
    switch (k) {
    case S_RCP: return 1.0 / a;
    case S_SQRT: return sqrt(a);
    case S_RSQRT: return 1.0 / sqrt(a);
    case S_EX2: return exp2(a);
    case S_LG2: return log2(a);
    case S_TANH: return tanh(a);
    default: return 0;
    }
}

/* rcp.approx / sqrt.approx / rsqrt.approx / ex2 / lg2 / sin / cos / tanh .approx{.ftz}.f32 */
GS_HANDLER(h_sfu_approx_f32) {
    (void)c;
    int k = sfu_kind(x->op), ftz = (x->flags & GS_F_FTZ) != 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_LANES(m, l, {
        float a = gs_f32(pa[l]);
        if (ftz) a = gs_ftz32(a);
        float r;
        if (k == S_SIN || k == S_COS) {
            double t = isinf(a) ? NAN : turns_f32(a) * 6.283185307179586476925286766559;
            r = (float)(k == S_SIN ? sin(t) : cos(t));
        } else if (k == S_RCP) {
            r = 1.0f / a;                     /* correctly rounded: within the 1 ulp bound */
        } else {
            r = (float)approx_f64(k, (double)a);
        }
        if (ftz) r = gs_ftz32(r);
        d[l] = gs_res32(r);
    });
    return GS_X_NEXT;
}

/* 2^x of the bits of an f32 argument, computed in double without branches, so that GCC vectorises the
 * lane loop: |x| clamped to 200 (on the bits: integer compares), x = k + f with k an integer and
 * |f| <= 1/2, 2^f = e^(f ln 2) by its Taylor series to degree 10 (relative error below 1e-11, far under
 * the half ulp that rounding to f32 adds), 2^k put in the exponent field; a NaN argument gives the
 * canonical NaN. Within 1 ulp of exact; PTX documents 2 ulp for ex2.approx.f32. */
__attribute__((always_inline)) static inline uint64_t exp2_bits(uint32_t u) {
    /* 1/n! for n = 10..0 as literals (under -frounding-math 1.0/n would be divided at run time) */
    static const double C[11] = {2.755731922398589e-07, 2.7557319223985893e-06, 2.48015873015873e-05,
                                 0.0001984126984126984, 0.001388888888888889, 0.008333333333333333,
                                 0.041666666666666664, 0.16666666666666666, 0.5, 1.0, 1.0};
    /* selects in integer arithmetic: a branch here would keep the (possibly trapping, under
     * -ftrapping-math) float conversion from being if-converted, and the loop from vectorising */
    uint32_t au = u & 0x7fffffffu;
    uint32_t big = (0x43480000u - au) >> 31, isnan_ = (0x7f800000u - au) >> 31;   /* |x| > 200, NaN */
    uint32_t cu = u ^ ((u ^ ((u & 0x80000000u) | 0x43480000u)) & (0u - big));
    double xc = (double)gs_f32_of(cu);
    double k = nearbyint(xc), y = (xc - k) * 0.69314718055994530942;
    double p = ((((C[0] * y + C[1]) * y + C[2]) * y + C[3]) * y + C[4]) * y + C[5];
    p = ((((p * y + C[6]) * y + C[7]) * y + C[8]) * y + C[9]) * y + C[10];
    uint64_t sb = (uint64_t)(uint32_t)((int32_t)k + 1023) << 52;
    double s;
    memcpy(&s, &sb, 8);
    uint32_t r = gs_u32_of((float)(p * s));
    return r ^ ((r ^ GS_NAN32) & (0u - isnan_));
}

/* ex2.approx{.ftz}.f32, the common special function (softmax) */
GS_HANDLER(h_ex2_approx_f32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_VLANES(m, l, d[l] = exp2_bits((uint32_t)pa[l]));
    return GS_X_NEXT;
}
GS_HANDLER(h_ex2_approx_ftz_f32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_VLANES(m, l, {
        uint32_t u = (uint32_t)pa[l];
        u &= ~(0x7fffffffu & (0u - (((u & 0x7f800000u) - 1u) >> 31)));   /* flush the argument */
        uint32_t r = (uint32_t)exp2_bits(u);
        d[l] = r & ~(0x7fffffffu & (0u - (((r & 0x7f800000u) - 1u) >> 31)));   /* and the result */
    });
    return GS_X_NEXT;
}

/* rcp.rnd / sqrt.rnd {.ftz}.f32 and .f64: IEEE results in the requested mode */
GS_HANDLER(h_sfu_ieee_f32) {
    (void)c;
    int k = sfu_kind(x->op), ftz = (x->flags & GS_F_FTZ) != 0, mode = gs_fe_mode(x->rnd);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    if (mode != FE_TONEAREST) fesetround(mode);
    GS_LANES(m, l, {
        float a = gs_f32(pa[l]);
        if (ftz) a = gs_ftz32(a);
        float r = k == S_RCP ? 1.0f / a : sqrtf(a);
        if (ftz) r = gs_ftz32(r);
        d[l] = gs_res32(r);
    });
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
    return GS_X_NEXT;
}
GS_HANDLER(h_sfu_ieee_f64) {
    (void)c;
    int k = sfu_kind(x->op), mode = gs_fe_mode(x->rnd);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    if (mode != FE_TONEAREST) fesetround(mode);
    GS_LANES(m, l, {
        double a = gs_f64(pa[l]);
        d[l] = gs_bits_f64(k == S_RCP ? 1.0 / a : sqrt(a));     /* f64 NaNs as the host's */
    });
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
    return GS_X_NEXT;
}

/* rcp.approx.ftz.f64 and rsqrt.approx{.ftz}.f64: the unit reads the high word of the operand
 * (for .ftz) and returns a high word only; rsqrt.approx.f64 without .ftz is computed in full. */
GS_HANDLER(h_sfu_approx_f64) {
    (void)c;
    int k = sfu_kind(x->op), ftz = (x->flags & GS_F_FTZ) != 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint64_t u = pa[l];
        if (ftz) u &= 0xffffffff00000000ull;
        double a = gs_f64(u);
        if (ftz) a = gs_ftz64(a);
        double r = k == S_RCP ? 1.0 / a : 1.0 / sqrt(a);
        if (ftz) r = gs_ftz64(r);
        uint64_t b = ftz ? gs_res64(r) & 0xffffffff00000000ull : gs_bits_f64(r);
        d[l] = b;
    });
    return GS_X_NEXT;
}

/* ex2.approx.{f16,f16x2}, ex2.approx.ftz.{bf16,bf16x2}, tanh.approx.{f16,f16x2,bf16,bf16x2} */
GS_HANDLER(h_sfu_half) {
    (void)c;
    int k = sfu_kind(x->op);
    int bf = x->type == GS_T_BF16 || x->type == GS_T_BF16X2;
    int two = x->type == GS_T_F16X2 || x->type == GS_T_BF16X2;
    int fz = bf && k == S_EX2;                /* ex2.approx.ftz.bf16: the only flushing half form */
    const gs_fmt *f = bf ? &GS_FMT_BF16 : &GS_FMT_F16;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint32_t a = (uint32_t)pa[l], r = 0;
        for (int i = 0; i < 1 + two; i++) {
            uint32_t e = (a >> (16 * i)) & 0xffff;
            if (fz) e = gs_fmt_ftz(e, f);
            double v = approx_f64(k, gs_fmt_decode(e, f));
            uint32_t o = v != v ? f->nan : gs_fmt_round(v, f, GS_RND_RN, 0);
            if (fz) o = gs_fmt_ftz(o, f);
            r |= o << (16 * i);
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

gs_handler gs_bind_sfu(const gs_xinst *x) {
    int k = sfu_kind(x->op), t = x->type, rnd = x->rnd;
    uint32_t f = x->flags, approx = f & GS_F_APPROX, ftz = f & GS_F_FTZ;
    int ieee_rnd = rnd == GS_RND_RN || rnd == GS_RND_RZ || rnd == GS_RND_RM || rnd == GS_RND_RP;
    if (k < 0 || (f & ~(GS_F_APPROX | GS_F_FTZ))) return NULL;
    if (t == GS_T_F32) {
        if (approx && k == S_EX2 && rnd == GS_RND_NONE) return ftz ? h_ex2_approx_ftz_f32 : h_ex2_approx_f32;
        if (approx) return rnd == GS_RND_NONE ? h_sfu_approx_f32 : NULL;
        if ((k == S_RCP || k == S_SQRT) && ieee_rnd) return h_sfu_ieee_f32;
        return NULL;
    }
    if (t == GS_T_F64) {
        if (approx) {
            if (rnd != GS_RND_NONE) return NULL;
            if (k == S_RCP) return ftz ? h_sfu_approx_f64 : NULL;     /* only rcp.approx.ftz.f64 */
            if (k == S_RSQRT) return h_sfu_approx_f64;
            return NULL;
        }
        if ((k == S_RCP || k == S_SQRT) && ieee_rnd && !ftz) return h_sfu_ieee_f64;
        return NULL;
    }
    if (t == GS_T_F16 || t == GS_T_F16X2 || t == GS_T_BF16 || t == GS_T_BF16X2) {
        int bf = t == GS_T_BF16 || t == GS_T_BF16X2;
        if (!approx || rnd != GS_RND_NONE) return NULL;
        if (k == S_EX2) return (bf ? ftz != 0 : ftz == 0) ? h_sfu_half : NULL;
        if (k == S_TANH) return ftz ? NULL : h_sfu_half;
        return NULL;
    }
    return NULL;
}
