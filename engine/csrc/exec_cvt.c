/* exec_cvt.c — cvt between all integer and floating types, and cvt.pack.
 *
 *   int -> int: truncation or extension; .sat clamps to the destination range. A signed destination
 *     narrower than its register is sign-extended to the register's width (PTX's rule for cvt).
 *   float -> int: .rni/.rzi/.rmi/.rpi (required), saturating to the destination range, NaN -> 0;
 *     .ftz flushes a subnormal f32 source first (so cvt.rpi.ftz of a tiny positive value gives 0).
 *   int -> float: .rn/.rz/.rm/.rp (required), one rounding even for 64-bit integers (host conversion in
 *     the requested mode for f32/f64; a round-to-odd double for f16/bf16, see int_to_odd).
 *   float -> float: exact widening; narrowing in the requested mode (f64 -> f32 by the host, others by
 *     gs_fmt_round from the exact double); same type with .rni/.rzi/.rmi/.rpi rounds to an integral
 *     value; .ftz, .sat ([0, 1], NaN -> 0), .relu (negative -> +0, NaN -> canonical NaN) and
 *     .satfinite (overflow and infinities -> largest finite of that sign) as PTX defines;
 *     tf32 (.rna/.rn/.rz) is an f32 pattern with the low 13 significand bits zero.
 *   x2 packing: cvt.rn.{f16x2,bf16x2}.f32 d, a, b and cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b put
 *     a's conversion in the upper half of d; e4m3x2/e5m2x2 <-> f16x2 convert both halves.
 *   cvt.pack.sat.{u16,s16}.s32 d, a, b: clamp a and b, d = a:b; cvt.pack.sat.{u8,s8,u4,s4}.s32.b32
 *     d, a, b, c: d = c << 2n | a << n | b (n the width).
 */
#include "exec_alu.h"
#include "fp16.h"

#define SATFINITE(x) (((x)->aux & 1u) != 0)   /* decode.py: cvt .satfinite */

static const gs_fmt *fmt_of(int t) {
    switch (t) {
    case GS_T_F16: case GS_T_F16X2: return &GS_FMT_F16;
    case GS_T_BF16: case GS_T_BF16X2: return &GS_FMT_BF16;
    case GS_T_TF32: return &GS_FMT_TF32;
    case GS_T_F32: return &GS_FMT_F32;
    case GS_T_E4M3: case GS_T_E4M3X2: return &GS_FMT_E4M3;
    case GS_T_E5M2: case GS_T_E5M2X2: return &GS_FMT_E5M2;
    default: return NULL;
    }
}

/* exact value of a float source (f32 .ftz flushes) */
static inline double src_val(int t, uint64_t v, int ftz) {
    if (t == GS_T_F64) return gs_f64(v);
    if (t == GS_T_F32) { float f = gs_f32(v); return ftz ? gs_ftz32(f) : f; }
    return gs_fmt_decode((uint32_t)v, fmt_of(t));
}

/* register width of destination operand 0 (bits), for sign extension of narrow signed results */
static inline int dst_reg_bits(const gs_xinst *x) {
    const gs_ir_opnd *o = gs_top(x, 0);
    return (o->kind == GS_OK_REG && o->n >= 8 && o->n <= 64) ? o->n : gs_type_bits(x->type);
}
static inline uint64_t int_result(int64_t v, int db, int ds, int rb) {
    uint64_t r = (uint64_t)v & gs_width_mask(db);
    if (ds && rb > db) r = (uint64_t)gs_sext(r, db);
    return r & gs_width_mask(rb > db ? rb : db);
}

/* ---------------------------------------------------------------------------------------------
 * int -> int
 * --------------------------------------------------------------------------------------------- */
GS_HANDLER(h_cvt_s64_s32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_VLANES(m, l, d[l] = (uint64_t)(int64_t)(int32_t)a[l]); return GS_X_NEXT; }
GS_HANDLER(h_cvt_lo32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_VLANES(m, l, d[l] = (uint32_t)a[l]); return GS_X_NEXT; }

GS_HANDLER(h_cvt_ii) {
    (void)c;
    int db = gs_type_bits(x->type), sb = gs_type_bits(x->type2), rb = dst_reg_bits(x);
    int ds = gs_type_is_signed(x->type), ss = gs_type_is_signed(x->type2);
    int sat = (x->flags & GS_F_SAT) != 0;
    int64_t lo = ds ? (db >= 64 ? INT64_MIN : -(1ll << (db - 1))) : 0;
    uint64_t hi = ds ? (uint64_t)(db >= 64 ? INT64_MAX : (1ll << (db - 1)) - 1) : gs_width_mask(db);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint64_t v = a[l] & gs_width_mask(sb);
        int64_t r;
        if (ss) {
            int64_t s = gs_sext(v, sb);
            if (sat) s = s < lo ? lo : (s >= 0 && (uint64_t)s > hi) ? (int64_t)hi : s;
            r = s;
        } else {
            if (sat && v > hi) v = hi;
            r = (int64_t)v;
        }
        d[l] = int_result(r, db, ds, rb);
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * float -> int. NaN gives 0, except (measured on an H200) from f64 and into 64-bit integers, where it
 * gives the pattern 1 << (width - 1).
 * --------------------------------------------------------------------------------------------- */
static inline double round_int(double v, int rnd) {
    switch (rnd) {
    case GS_RND_RZI: return trunc(v);
    case GS_RND_RMI: return floor(v);
    case GS_RND_RPI: return ceil(v);
    default: return nearbyint(v);       /* rni: ties to even (host mode is round-to-nearest) */
    }
}

GS_HANDLER(h_cvt_rzi_s32_f32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, { float f = gs_f32(a[l]);
        d[l] = (uint32_t)(f != f ? 0 : f >= 2147483648.0f ? INT32_MAX : f <= -2147483648.0f ? INT32_MIN
                                                                       : (int32_t)f); });
    return GS_X_NEXT; }

GS_HANDLER(h_cvt_fi) {
    (void)c;
    int db = gs_type_bits(x->type), ds = gs_type_is_signed(x->type), rb = dst_reg_bits(x);
    int ftz = (x->flags & GS_F_FTZ) != 0, st = x->type2, rnd = x->rnd;
    /* destination range as doubles: exact powers of two, compared before converting */
    double lo = ds ? -ldexp(1.0, db - 1) : 0.0, hi_ex = ds ? ldexp(1.0, db - 1) : ldexp(1.0, db);
    int64_t min_i = ds ? (db >= 64 ? INT64_MIN : -(1ll << (db - 1))) : 0;
    uint64_t max_u = ds ? (uint64_t)(db >= 64 ? INT64_MAX : (1ll << (db - 1)) - 1) : gs_width_mask(db);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, {
        double v = round_int(src_val(st, a[l], ftz), rnd);
        int64_t r;
        if (v != v) r = (st == GS_T_F64 || db == 64) ? (int64_t)(1ull << (db - 1)) : 0;
        else if (v >= hi_ex) r = (int64_t)max_u;
        else if (v <= lo) r = min_i;
        else r = ds ? (int64_t)v : (int64_t)(uint64_t)v;
        d[l] = int_result(r, db, ds, rb);
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * int -> float
 * --------------------------------------------------------------------------------------------- */
/* a 64-bit integer magnitude as a double rounded to odd: exact when it has at most 53 significant
 * bits, else truncated with the last kept bit set if anything nonzero was dropped. Rounding that once
 * to f16/bf16 (<= 11 bits) equals rounding the integer itself. */
static inline double int_to_odd(uint64_t u) {
    if (u >> 53 == 0) return (double)u;
    int n = 64 - __builtin_clzll(u), sh = n - 53;
    uint64_t kept = u >> sh, sticky = (u & ((1ull << sh) - 1)) != 0;
    return ldexp((double)(kept | sticky), sh);
}

GS_HANDLER(h_cvt_rn_f32_s32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_VLANES(m, l, d[l] = gs_u32_of((float)(int32_t)a[l])); return GS_X_NEXT; }

GS_HANDLER(h_cvt_if) {
    (void)c;
    int dt = x->type, sb = gs_type_bits(x->type2), ss = gs_type_is_signed(x->type2);
    int sat = (x->flags & GS_F_SAT) != 0, ftz = (x->flags & GS_F_FTZ) != 0, rnd = x->rnd;
    int mode = gs_fe_mode(rnd);
    const gs_fmt *f = fmt_of(dt);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint64_t v = a[l] & gs_width_mask(sb);
        int neg = ss && (int64_t)gs_sext(v, sb) < 0;
        uint64_t mag = neg ? (uint64_t)0 - (uint64_t)gs_sext(v, sb) : v;
        uint64_t r;
        if (dt == GS_T_F32 || dt == GS_T_F64) {
            fesetround(mode);                 /* one host conversion, correctly rounded in mode */
            float f32 = 0; double f64 = 0;
            if (dt == GS_T_F32) f32 = ss ? (float)gs_sext(v, sb) : (float)v;
            else f64 = ss ? (double)gs_sext(v, sb) : (double)v;
            fesetround(FE_TONEAREST);
            if (dt == GS_T_F32) {
                if (sat) f32 = gs_sat32(f32);
                if (ftz) f32 = gs_ftz32(f32);
                r = gs_u32_of(f32);
            } else {
                r = gs_bits_f64(sat ? gs_sat64(f64) : f64);
            }
        } else {
            double o = int_to_odd(mag);
            if (neg) o = -o;
            if (sat) o = gs_sat64(o);
            r = gs_fmt_round(o, f, rnd, 0);
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * float -> float (one value)
 * --------------------------------------------------------------------------------------------- */
typedef struct ffmode {
    int st, dt, rnd, ftz, sat, relu, satfinite, integral;
} ffmode;

/* NaN conversions as an H200 does them (tests/kernels/isa_h200.npz): f64 -> narrower, f32 -> f64 and
 * f16 -> f64 keep the payload, quieted, as x86 does (the host conversion); bf16 -> f32 is a shift; other
 * sources give the canonical NaN of the destination, cvt.ftz.f64.f32 the widened canonical f32 NaN. */
static uint64_t nan_ff(const ffmode *mo, uint64_t raw) {
    int dt = mo->dt, st = mo->st;
    if (st == GS_T_F64) {
        if (dt == GS_T_F64) return raw | 0x0008000000000000ull;
        uint32_t u = gs_u32_of((float)gs_f64(raw));       /* host: quiet, payload kept */
        if (dt == GS_T_F32) return u;
        if (dt == GS_T_F16) return ((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu);
        if (dt == GS_T_BF16) return (u >> 16) | 0x40u;
    }
    if (st == GS_T_BF16 && dt == GS_T_F32) return raw << 16;
    if (st == GS_T_F16 && dt == GS_T_F64)
        return ((raw & 0x8000u) << 48) | 0x7ff8000000000000ull | ((raw & 0x3ffu) << 42);
    if (dt == GS_T_F64 && st == GS_T_F32)
        return mo->ftz ? 0x7fffffffe0000000ull : gs_bits_f64((double)gs_f32(raw));
    if (dt == GS_T_F64) return GS_NAN64;
    if (dt == GS_T_TF32) return 0x7fffe000u;
    return fmt_of(dt)->nan;
}

/* cvt.rna{.satfinite}.tf32.f32, bit for bit as the hardware does it: round half away on the bit
 * pattern (NaN payloads included); .satfinite then steps an all-ones exponent down one tf32 ulp */
static inline uint32_t tf32_rna(uint32_t u, int satfinite) {
    uint32_t r = (u + 0x1000u) & 0xffffe000u;
    if (satfinite && (r & 0x7f800000u) == 0x7f800000u) r -= 0x2000u;
    return r;
}

static uint64_t cvt_ff(const ffmode *mo, double v, uint64_t raw) {
    int dt = mo->dt;
    if (mo->integral) v = round_int(v, mo->rnd);
    if (v != v) {
        if (mo->sat) v = 0;
        else return nan_ff(mo, raw);
    }
    if (mo->sat) v = gs_sat64(v);
    if (mo->relu && (v < 0 || (v == 0 && signbit(v)))) v = 0;
    int rnd = mo->integral || mo->rnd == GS_RND_NONE ? GS_RND_RN : mo->rnd;
    if (dt == GS_T_F64) return gs_bits_f64(v);
    if (dt == GS_T_F32) {
        float r;
        if (mo->st == GS_T_F64) {
            if (mo->satfinite && isinf(v)) v = copysign(3.4028234663852886e38, v);
            r = gs_d2f_rnd(v, rnd);
            if (mo->satfinite && isinf(r)) r = copysignf(3.40282347e38f, r);
        } else {
            r = (float)v;                     /* exact: source is f32 or narrower */
        }
        if (mo->ftz) r = gs_ftz32(r);
        return gs_u32_of(r);
    }
    uint32_t b = gs_fmt_round(v, fmt_of(dt), rnd, mo->satfinite || dt == GS_T_E4M3 || dt == GS_T_E5M2 ||
                                                  dt == GS_T_E4M3X2 || dt == GS_T_E5M2X2);
    if (mo->ftz && (dt == GS_T_F16 || dt == GS_T_F16X2)) b = gs_fmt_ftz(b, fmt_of(dt));
    return b;
}

static ffmode ff_mode(const gs_xinst *x, int st) {
    ffmode mo = {st, x->type, x->rnd, (x->flags & GS_F_FTZ) != 0, (x->flags & GS_F_SAT) != 0,
                 (x->flags & GS_F_RELU) != 0, SATFINITE(x),
                 x->rnd >= GS_RND_RNI && x->rnd <= GS_RND_RPI};
    return mo;
}

GS_HANDLER(h_cvt_f64_f32) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_VLANES(m, l, d[l] = gs_bits_f64((double)gs_f32(a[l]))); return GS_X_NEXT; }   /* NaN: host = hw */
GS_HANDLER(h_cvt_rn_f32_f64) { (void)c; uint64_t *d = gs_opr(w, x, 0); const uint64_t *a = gs_src(w, x, 1);
    GS_VLANES(m, l, d[l] = gs_u32_of((float)gs_f64(a[l]))); return GS_X_NEXT; }   /* NaN: host = hw */

GS_HANDLER(h_cvt_tf32_rna) {
    (void)c;
    int sf = SATFINITE(x), relu = (x->flags & GS_F_RELU) != 0;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint32_t u = (uint32_t)a[l];
        if (relu && (u >> 31) && !((u & 0x7fffffffu) > 0x7f800000u)) u = 0;
        d[l] = tf32_rna(u, sf);
    });
    return GS_X_NEXT;
}

GS_HANDLER(h_cvt_ff) {
    (void)c;
    ffmode mo = ff_mode(x, x->type2);
    int sftz = mo.ftz && x->type2 == GS_T_F32;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = cvt_ff(&mo, src_val(x->type2, a[l], sftz), a[l]));
    return GS_X_NEXT;
}

/* cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b: a -> upper half, b -> lower */
GS_HANDLER(h_cvt_pack_f32) {
    (void)c;
    ffmode mo = ff_mode(x, GS_T_F32);
    int hb = gs_type_bits(x->type) / 2;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_LANES(m, l, d[l] = (cvt_ff(&mo, src_val(GS_T_F32, pa[l], 0), pa[l]) << hb) |
                          cvt_ff(&mo, src_val(GS_T_F32, pb[l], 0), pb[l]));
    return GS_X_NEXT;
}

/* The common f16 forms without modifiers, the same results as cvt_ff by other means (checked against
 * gs_fmt_round, F16C and gs_f2h/gs_f2bf alike, on every f32 pattern from 0x33000000 to 0x48000000, i.e.
 * every positive value from below the f16 subnormals to past its overflow, and on 1 in 13 of all 2^32
 * patterns; test_isa_cvt covers the H200's measured results): f32 -> f16 round to nearest even is
 * gs_f2h (NaN: 0x7fff), f16 -> f32 is gs_h2f except that a NaN becomes the canonical 0x7fffffff (as
 * nan_ff gives). On a CPU with F16C, a full warp goes 8 lanes at a time through the host's conversion
 * instructions (vcvtps2ph with round to nearest, vcvtph2ps: both exact IEEE conversions) with the NaN
 * lanes replaced. */
static inline uint64_t f2h_rn(uint64_t a) { return gs_f2h(gs_f32(a)); }
static inline uint64_t h2f_canon(uint64_t a) {
    uint16_t h = (uint16_t)a;
    return ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) ? 0x7fffffffu : gs_u32_of(gs_h2f(h));
}
static inline uint64_t f2bf_rn(uint64_t a) { return gs_f2bf(gs_f32(a)); }

#if defined(__x86_64__)
#include <immintrin.h>
#define F16C_FN __attribute__((target("avx2,f16c")))
/* the low 32 bits of 8 consecutive 64-bit slots, in order */
F16C_FN static inline __m256i lo8(const uint64_t *p) {
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)p), idx);
    __m256i hi = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(p + 4)), idx);
    return _mm256_permute2x128_si256(lo, hi, 0x20);
}
F16C_FN static inline void st8z(uint64_t *p, __m256i v) {      /* 8 x 32 bits, zero-extended to slots */
    _mm256_storeu_si256((__m256i *)p, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
    _mm256_storeu_si256((__m256i *)(p + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
}
/* 8 f32 -> 8 f16 (round to nearest even; NaN -> 0x7fff) in the low halves of 32-bit lanes */
F16C_FN static inline __m256i f2h8(__m256i u) {
    __m256 f = _mm256_castsi256_ps(u);
    __m256i h = _mm256_cvtepu16_epi32(_mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    return _mm256_blendv_epi8(h, _mm256_set1_epi32(0x7fff), nan);
}
F16C_FN static void pack_f16x2_full(uint64_t *d, const uint64_t *pa, const uint64_t *pb) {
    for (int l = 0; l < GS_WARP; l += 8) {
        __m256i ha = f2h8(lo8(pa + l)), hb = f2h8(lo8(pb + l));
        st8z(d + l, _mm256_or_si256(_mm256_slli_epi32(ha, 16), hb));
    }
}
F16C_FN static void f32_f16_full(uint64_t *d, const uint64_t *pa) {
    for (int l = 0; l < GS_WARP; l += 8) {
        __m256i h = _mm256_and_si256(lo8(pa + l), _mm256_set1_epi32(0xffff));
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(h, _mm256_set1_epi32(0x7fff)), _mm256_set1_epi32(0x7c00));
        __m256i f = _mm256_castps_si256(_mm256_cvtph_ps(_mm256_castsi256_si128(
            _mm256_permute4x64_epi64(_mm256_packus_epi32(h, h), 0x08))));
        st8z(d + l, _mm256_blendv_epi8(f, _mm256_set1_epi32(0x7fffffff), nan));
    }
}
static int have_f16c(void) {
    static int v = -1;
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    }
    return v;
}
#else
#define F16C_FN
static void pack_f16x2_full(uint64_t *d, const uint64_t *pa, const uint64_t *pb) { (void)d; (void)pa; (void)pb; }
static void f32_f16_full(uint64_t *d, const uint64_t *pa) { (void)d; (void)pa; }
static int have_f16c(void) { return 0; }
#endif

/* cvt.rn.f16x2.f32 d, a, b */
GS_HANDLER(h_cvt_rn_f16x2_f32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_LANES(m, l, d[l] = (f2h_rn(pa[l]) << 16) | f2h_rn(pb[l]));
    return GS_X_NEXT;
}
F16C_FN GS_HANDLER(h_cvt_rn_f16x2_f32_hw) {
    if (m == GS_FULL) {
        pack_f16x2_full(gs_opr(w, x, 0), gs_opr(w, x, 1), gs_opr(w, x, 2));
        return GS_X_NEXT;
    }
    return h_cvt_rn_f16x2_f32(c, w, x, m);
}
/* cvt.rn.bf16x2.f32 d, a, b */
GS_HANDLER(h_cvt_rn_bf16x2_f32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2);
    GS_LANES(m, l, d[l] = (f2bf_rn(pa[l]) << 16) | f2bf_rn(pb[l]));
    return GS_X_NEXT;
}
/* cvt.rn.f16.f32 d, a */
GS_HANDLER(h_cvt_rn_f16_f32) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = f2h_rn(a[l]));
    return GS_X_NEXT;
}
/* cvt.f32.f16 d, a */
GS_HANDLER(h_cvt_f32_f16) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *a = gs_src(w, x, 1);
    GS_LANES(m, l, d[l] = h2f_canon(a[l]));
    return GS_X_NEXT;
}
F16C_FN GS_HANDLER(h_cvt_f32_f16_hw) {
    if (m == GS_FULL) {
        f32_f16_full(gs_opr(w, x, 0), gs_opr(w, x, 1));
        return GS_X_NEXT;
    }
    return h_cvt_f32_f16(c, w, x, m);
}

/* x2 -> x2: e4m3x2/e5m2x2 <-> f16x2 (and bf16x2), element by element */
GS_HANDLER(h_cvt_x2) {
    (void)c;
    int st = x->type2, sh = gs_type_bits(st) / 2, dh = gs_type_bits(x->type) / 2;
    ffmode mo = ff_mode(x, st);
    const gs_fmt *sf = fmt_of(st);
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    GS_LANES(m, l, {
        uint64_t r = 0;
        for (int i = 0; i < 2; i++) {
            uint32_t e = (uint32_t)(pa[l] >> (i * sh)) & (uint32_t)gs_width_mask(sh);
            r |= cvt_ff(&mo, gs_fmt_decode(e, sf), e) << (i * dh);
        }
        d[l] = r;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * cvt.pack.sat
 * --------------------------------------------------------------------------------------------- */
GS_HANDLER(h_cvt_pack_sat) {
    (void)c;
    int n = gs_type_bits(x->type), s = gs_type_is_signed(x->type), three = x->nops > 3;
    int64_t lo = s ? -(1ll << (n - 1)) : 0, hi = s ? (1ll << (n - 1)) - 1 : (1ll << n) - 1;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1), *pb = gs_src(w, x, 2), *pc = three ? gs_src(w, x, 3) : pa;
    GS_LANES(m, l, {
        int64_t a = (int32_t)pa[l], b = (int32_t)pb[l];
        a = a < lo ? lo : a > hi ? hi : a;
        b = b < lo ? lo : b > hi ? hi : b;
        uint64_t r = (((uint64_t)a & gs_width_mask(n)) << n) | ((uint64_t)b & gs_width_mask(n));
        if (three) r |= (uint64_t)(uint32_t)pc[l] << (2 * n);
        d[l] = (uint32_t)r;
    });
    return GS_X_NEXT;
}

/* ---------------------------------------------------------------------------------------------
 * binder
 * --------------------------------------------------------------------------------------------- */
static int is_int(int t) {
    return t == GS_T_U8 || t == GS_T_U16 || t == GS_T_U32 || t == GS_T_U64 || t == GS_T_S8 ||
           t == GS_T_S16 || t == GS_T_S32 || t == GS_T_S64 || t == GS_T_B8 || t == GS_T_B16 ||
           t == GS_T_B32 || t == GS_T_B64;
}
static int is_flt(int t) {
    return t == GS_T_F16 || t == GS_T_BF16 || t == GS_T_TF32 || t == GS_T_F32 || t == GS_T_F64;
}
static int is_x2(int t) {
    return t == GS_T_F16X2 || t == GS_T_BF16X2 || t == GS_T_E4M3X2 || t == GS_T_E5M2X2;
}

static gs_handler bind_pack(const gs_xinst *x) {
    int t = x->type;
    if (x->type2 != GS_T_S32 || !(x->flags & GS_F_SAT)) return NULL;
    if (t == GS_T_U16 || t == GS_T_S16) return x->ir->nopnd == 3 ? h_cvt_pack_sat : NULL;
    if (t == GS_T_U8 || t == GS_T_S8 || t == GS_T_U4 || t == GS_T_S4)
        return x->ir->nopnd == 4 ? h_cvt_pack_sat : NULL;
    return NULL;
}

gs_handler gs_bind_cvt(const gs_xinst *x) {
    if (x->op == GS_OP_CVT_PACK) return bind_pack(x);
    if (x->op != GS_OP_CVT) return NULL;
    int dt = x->type, st = x->type2, rnd = x->rnd;
    uint32_t f = x->flags;
    int frnd = rnd == GS_RND_RN || rnd == GS_RND_RZ || rnd == GS_RND_RM || rnd == GS_RND_RP;
    int irnd = rnd >= GS_RND_RNI && rnd <= GS_RND_RPI;
    if (f & ~(GS_F_FTZ | GS_F_SAT | GS_F_RELU)) return NULL;
    if (is_int(dt) && is_int(st)) {
        if (rnd != GS_RND_NONE || (f & ~GS_F_SAT)) return NULL;
        if (!(f & GS_F_SAT)) {
            if (dt == GS_T_S64 && st == GS_T_S32) return h_cvt_s64_s32;
            int db = gs_type_bits(dt), sb = gs_type_bits(st), ss = gs_type_is_signed(st);
            if ((db == 32 && (sb >= 32 || !ss)) || (db == 64 && sb == 32 && !ss)) return h_cvt_lo32;
        }
        return h_cvt_ii;
    }
    if (is_int(dt) && is_flt(st)) {
        if (!irnd || (f & ~GS_F_FTZ) || st == GS_T_TF32) return NULL;
        if ((f & GS_F_FTZ) && st != GS_T_F32) return NULL;
        if (dt == GS_T_S32 && st == GS_T_F32 && rnd == GS_RND_RZI && !f) return h_cvt_rzi_s32_f32;
        return h_cvt_fi;
    }
    if (is_flt(dt) && is_int(st)) {
        if (!frnd || (f & GS_F_RELU) || dt == GS_T_TF32) return NULL;
        if ((f & GS_F_FTZ) && dt != GS_T_F32) return NULL;
        if (dt == GS_T_F32 && st == GS_T_S32 && rnd == GS_RND_RN && !f) return h_cvt_rn_f32_s32;
        return h_cvt_if;
    }
    if (is_flt(dt) && is_flt(st)) {
        int widen = gs_type_bits(dt) > gs_type_bits(st) ||
                    (dt == GS_T_F32 && (st == GS_T_BF16 || st == GS_T_TF32));
        if (dt == st) {
            if (!(irnd || rnd == GS_RND_NONE)) return NULL;
        } else if (widen) {
            if (rnd != GS_RND_NONE && !irnd) return NULL;
        } else if (!frnd && !(dt == GS_T_TF32 && rnd == GS_RND_RNA) &&
                   !(rnd == GS_RND_NONE && (dt == GS_T_F16 || dt == GS_T_BF16) &&
                     (st == GS_T_F16 || st == GS_T_BF16))) {
            /* narrowing needs a rounding, except between f16 and bf16: ptxas accepts cvt.f16.bf16 and
             * cvt.bf16.f16 without one and emits the same code as for .rn (identical cubins), so
             * cvt_ff's default RN is that form's meaning */
            return NULL;
        }
        if (st == GS_T_TF32 && dt != GS_T_TF32 && dt != GS_T_F32) return NULL;
        if (dt == GS_T_TF32 && st == GS_T_F32 && rnd == GS_RND_RNA && !(f & ~GS_F_RELU)) return h_cvt_tf32_rna;
        if (!f && !SATFINITE(x)) {
            if (dt == GS_T_F64 && st == GS_T_F32 && rnd == GS_RND_NONE) return h_cvt_f64_f32;
            if (dt == GS_T_F32 && st == GS_T_F64 && rnd == GS_RND_RN) return h_cvt_rn_f32_f64;
            if (dt == GS_T_F16 && st == GS_T_F32 && rnd == GS_RND_RN) return h_cvt_rn_f16_f32;
            if (dt == GS_T_F32 && st == GS_T_F16 && rnd == GS_RND_NONE)
                return have_f16c() ? h_cvt_f32_f16_hw : h_cvt_f32_f16;
        }
        return h_cvt_ff;
    }
    if (is_x2(dt) && st == GS_T_F32) {
        int fp8 = dt == GS_T_E4M3X2 || dt == GS_T_E5M2X2;
        if (x->ir->nopnd != 3 || !(rnd == GS_RND_RN || (rnd == GS_RND_RZ && !fp8))) return NULL;
        if (f & ~GS_F_RELU) return NULL;
        if ((dt == GS_T_E4M3X2 || dt == GS_T_E5M2X2) && !SATFINITE(x)) return NULL;
        if (rnd == GS_RND_RN && !f && !SATFINITE(x)) {
            if (dt == GS_T_F16X2) return have_f16c() ? h_cvt_rn_f16x2_f32_hw : h_cvt_rn_f16x2_f32;
            if (dt == GS_T_BF16X2) return h_cvt_rn_bf16x2_f32;
        }
        return h_cvt_pack_f32;
    }
    if (is_x2(dt) && is_x2(st) && dt != st) {
        int dfp8 = dt == GS_T_E4M3X2 || dt == GS_T_E5M2X2, sfp8 = st == GS_T_E4M3X2 || st == GS_T_E5M2X2;
        if (rnd != GS_RND_RN || (f & ~GS_F_RELU) || dfp8 == sfp8) return NULL;
        if (dfp8 && (st != GS_T_F16X2 || !SATFINITE(x))) return NULL;
        if (sfp8 && dt != GS_T_F16X2) return NULL;
        return h_cvt_x2;
    }
    return NULL;
}
