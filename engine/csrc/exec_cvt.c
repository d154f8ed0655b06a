/* exec_cvt.c — cvt between integer and floating types. (Seed version.) */
#include <fenv.h>
#include "exec.h"
#include "fp16.h"

static inline int64_t sext(uint64_t v, int bits) {
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static inline double src_float(int t, uint64_t v) {
    switch (t) {
    case GS_T_F16: return gs_h2f((uint16_t)v);
    case GS_T_BF16: return gs_bf2f((uint16_t)v);
    case GS_T_F32: return gs_f32(v);
    default: return gs_f64(v);
    }
}

/* int -> int, with optional .sat clamping to the destination range */
GS_HANDLER(h_cvt_ii) {
    (void)c;
    int db = gs_type_bits(x->type), sb = gs_type_bits(x->type2);
    int ds = gs_type_is_signed(x->type), ss = gs_type_is_signed(x->type2);
    int sat = (x->flags & GS_F_SAT) != 0;
    uint64_t dm = gs_width_mask(db);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_opr(w, x, 1);
    GS_LANES(m, l, {
        uint64_t v = a[l] & gs_width_mask(sb);
        uint64_t r;
        if (ss) {
            int64_t s = sext(v, sb);
            if (sat) {
                int64_t lo = ds ? (db >= 64 ? INT64_MIN : -(1ll << (db - 1))) : 0;
                int64_t hi = ds ? (db >= 64 ? INT64_MAX : (1ll << (db - 1)) - 1)
                                : (db >= 64 ? INT64_MAX : (int64_t)((1ull << db) - 1));
                s = s < lo ? lo : s > hi ? hi : s;
            }
            r = (uint64_t)s;
        } else {
            if (sat) {
                uint64_t hi = ds ? (uint64_t)((db >= 64 ? INT64_MAX : (1ll << (db - 1)) - 1)) : dm;
                v = v > hi ? hi : v;
            }
            r = v;
        }
        d[l] = r & dm;
    });
    return GS_X_NEXT;
}

static inline uint64_t store_float(int t, double v, int rnd) {
    switch (t) {
    case GS_T_F16: return gs_f2h_rnd((float)v, rnd);
    case GS_T_BF16: return gs_f2bf_rnd((float)v, rnd);
    case GS_T_F32: return gs_bits_f32((float)v);
    default: return gs_bits_f64(v);
    }
}

/* int -> float and float -> float (directed rounding through the host rounding mode) */
GS_HANDLER(h_cvt_xf) {
    (void)c;
    int sb = gs_type_bits(x->type2), sfl = gs_type_is_float(x->type2), ss = gs_type_is_signed(x->type2);
    int sat = (x->flags & GS_F_SAT) != 0;
    int rnd = x->rnd;
    int mode = rnd == GS_RND_RZ ? FE_TOWARDZERO : rnd == GS_RND_RM ? FE_DOWNWARD
             : rnd == GS_RND_RP ? FE_UPWARD : FE_TONEAREST;
    int rint_mode = rnd == GS_RND_RNI || rnd == GS_RND_RZI || rnd == GS_RND_RMI || rnd == GS_RND_RPI;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_opr(w, x, 1);
    if (mode != FE_TONEAREST) fesetround(mode);
    GS_LANES(m, l, {
        double v;
        if (sfl) v = src_float(x->type2, a[l]);
        else v = ss ? (double)sext(a[l], sb) : (double)(a[l] & gs_width_mask(sb));
        if (!sfl && sb == 64 && x->type != GS_T_F64) {   /* avoid double rounding for 64-bit ints */
            float f = ss ? (float)(int64_t)a[l] : (float)a[l];
            v = f;
        }
        if (rint_mode) {
            v = rnd == GS_RND_RZI ? trunc(v) : rnd == GS_RND_RMI ? floor(v) : rnd == GS_RND_RPI ? ceil(v)
                                                                           : nearbyint(v);
        }
        if (sat) v = isnan(v) ? 0.0 : v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
        d[l] = store_float(x->type, v, rnd == GS_RND_NONE ? GS_RND_RN : rnd);
    });
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
    return GS_X_NEXT;
}

/* float -> int: round as asked (default rzi... PTX requires a mode), NaN -> 0, saturating */
GS_HANDLER(h_cvt_fi) {
    (void)c;
    int db = gs_type_bits(x->type), ds = gs_type_is_signed(x->type);
    uint64_t dm = gs_width_mask(db);
    int rnd = x->rnd;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_opr(w, x, 1);
    GS_LANES(m, l, {
        double v = src_float(x->type2, a[l]);
        v = rnd == GS_RND_RZI ? trunc(v) : rnd == GS_RND_RMI ? floor(v) : rnd == GS_RND_RPI ? ceil(v)
                                                                       : nearbyint(v);
        uint64_t r;
        if (isnan(v)) r = 0;
        else if (ds) {
            double lo = db >= 64 ? -9223372036854775808.0 : -(double)(1ll << (db - 1));
            double hi = db >= 64 ? 9223372036854775807.0 : (double)((1ll << (db - 1)) - 1);
            int64_t s = v <= lo ? (int64_t)lo : v >= hi ? (db >= 64 ? INT64_MAX : (int64_t)hi) : (int64_t)v;
            r = (uint64_t)s;
        } else {
            double hi = db >= 64 ? 18446744073709551615.0 : (double)dm;
            r = v <= 0 ? 0 : v >= hi ? dm : (uint64_t)v;
        }
        d[l] = r & dm;
    });
    return GS_X_NEXT;
}

gs_handler gs_bind_cvt(const gs_xinst *x) {
    if (x->op != GS_OP_CVT) return NULL;
    int df = gs_type_is_float(x->type), sf = gs_type_is_float(x->type2);
    int db = gs_type_bits(x->type), sb = gs_type_bits(x->type2);
    if (db < 8 || sb < 8 || db > 64 || sb > 64) return NULL;
    if (x->type == GS_T_F16X2 || x->type == GS_T_BF16X2 || x->type2 == GS_T_F16X2 || x->type2 == GS_T_BF16X2) return NULL;
    if (x->type == GS_T_TF32 || x->type2 == GS_T_TF32) return NULL;
    if (!df && !sf) return h_cvt_ii;
    if (df) return h_cvt_xf;
    return h_cvt_fi;
}
