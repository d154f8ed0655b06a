/* exec_float.c — floating-point arithmetic. (Seed version: f32 forms of the public suite.)
 * Default rounding (.rn) uses the host's round-to-nearest-even; directed modes switch the host rounding
 * mode around the lane loop (this file is compiled with -frounding-math). */
#include <fenv.h>
#include "exec.h"

static inline float ftz32(float v) { return fpclassify(v) == FP_SUBNORMAL ? copysignf(0.0f, v) : v; }

#define F32_BIN(name, expr)                                                            \
    GS_HANDLER(name) {                                                                 \
        (void)c;                                                                       \
        uint64_t *d = gs_opr(w, x, 0);                                                 \
        const uint64_t *pa = gs_opr(w, x, 1), *pb = gs_opr(w, x, 2);                   \
        int ftz = (x->flags & GS_F_FTZ) != 0;                                          \
        GS_LANES(m, l, {                                                               \
            float a = gs_f32(pa[l]), b = gs_f32(pb[l]);                                \
            if (ftz) { a = ftz32(a); b = ftz32(b); }                                   \
            float r = (expr);                                                          \
            if (ftz) r = ftz32(r);                                                     \
            d[l] = gs_bits_f32(r);                                                     \
        });                                                                            \
        return GS_X_NEXT;                                                              \
    }

F32_BIN(h_add_f32, a + b)
F32_BIN(h_sub_f32, a - b)
F32_BIN(h_mul_f32, a * b)
F32_BIN(h_div_f32, a / b)
F32_BIN(h_max_f32, (isnan(a) ? b : isnan(b) ? a : (a > b ? a : (b > a ? b : (signbit(a) ? b : a)))))
F32_BIN(h_min_f32, (isnan(a) ? b : isnan(b) ? a : (a < b ? a : (b < a ? b : (signbit(a) ? a : b)))))
F32_BIN(h_copysign_f32, copysignf(b, a))

GS_HANDLER(h_fma_f32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_opr(w, x, 1), *pb = gs_opr(w, x, 2), *pc = gs_opr(w, x, 3);
    int ftz = (x->flags & GS_F_FTZ) != 0, sat = (x->flags & GS_F_SAT) != 0;
    int mode = x->rnd == GS_RND_RZ ? FE_TOWARDZERO : x->rnd == GS_RND_RM ? FE_DOWNWARD
             : x->rnd == GS_RND_RP ? FE_UPWARD : FE_TONEAREST;
    if (mode != FE_TONEAREST) fesetround(mode);
    GS_LANES(m, l, {
        float a = gs_f32(pa[l]), b = gs_f32(pb[l]), cc = gs_f32(pc[l]);
        if (ftz) { a = ftz32(a); b = ftz32(b); cc = ftz32(cc); }
        float r = fmaf(a, b, cc);
        if (ftz) r = ftz32(r);
        if (sat) r = isnan(r) ? 0.0f : r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
        d[l] = gs_bits_f32(r);
    });
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
    return GS_X_NEXT;
}

#define F32_UN(name, expr)                                                             \
    GS_HANDLER(name) {                                                                 \
        (void)c;                                                                       \
        uint64_t *d = gs_opr(w, x, 0);                                                 \
        const uint64_t *pa = gs_opr(w, x, 1);                                          \
        int ftz = (x->flags & GS_F_FTZ) != 0;                                          \
        GS_LANES(m, l, {                                                               \
            float a = gs_f32(pa[l]);                                                   \
            if (ftz) a = ftz32(a);                                                     \
            float r = (expr);                                                          \
            if (ftz) r = ftz32(r);                                                     \
            d[l] = gs_bits_f32(r);                                                     \
        });                                                                            \
        return GS_X_NEXT;                                                              \
    }

F32_UN(h_neg_f32, -a)
F32_UN(h_abs_f32, fabsf(a))
F32_UN(h_ex2_f32, exp2f(a))
F32_UN(h_lg2_f32, log2f(a))
F32_UN(h_rcp_f32, 1.0f / a)
F32_UN(h_sqrt_f32, sqrtf(a))
F32_UN(h_rsqrt_f32, 1.0f / sqrtf(a))
F32_UN(h_sin_f32, sinf(a))
F32_UN(h_cos_f32, cosf(a))
F32_UN(h_tanh_f32, tanhf(a))

gs_handler gs_bind_float(const gs_xinst *x) {
    if (x->type != GS_T_F32) return NULL;
    switch (x->op) {
    case GS_OP_ADD: return h_add_f32;
    case GS_OP_SUB: return h_sub_f32;
    case GS_OP_MUL: return h_mul_f32;
    case GS_OP_DIV: return h_div_f32;
    case GS_OP_FMA: case GS_OP_MAD: return h_fma_f32;
    case GS_OP_MAX: return h_max_f32;
    case GS_OP_MIN: return h_min_f32;
    case GS_OP_COPYSIGN: return h_copysign_f32;
    case GS_OP_NEG: return h_neg_f32;
    case GS_OP_ABS: return h_abs_f32;
    case GS_OP_EX2: return h_ex2_f32;
    case GS_OP_LG2: return h_lg2_f32;
    case GS_OP_RCP: return h_rcp_f32;
    case GS_OP_SQRT: return h_sqrt_f32;
    case GS_OP_RSQRT: return h_rsqrt_f32;
    case GS_OP_SIN: return h_sin_f32;
    case GS_OP_COS: return h_cos_f32;
    case GS_OP_TANH: return h_tanh_f32;
    default: return NULL;
    }
}
