/* fp16.h — IEEE half (binary16) and bfloat16 conversions, bit-exact, with rounding control.
 * Rounding modes: GS_RND_RN (nearest even, default), RZ, RM, RP. Subnormal halves are kept. A NaN
 * converts to the canonical NaN 0x7fff, as cvt.rn.{f16,bf16}.f32 does on an H200. */
#ifndef GS_FP16_H
#define GS_FP16_H
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "simtscope.h"

static inline float gs_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;
    if (exp == 0) {
        if (man == 0) u = sign;
        else {                              /* subnormal: normalise */
            int e = -1;
            do { man <<= 1; e++; } while (!(man & 0x400u));
            u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) u = sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0);
    else u = sign | ((exp + 127 - 15) << 23) | (man << 13);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* an f16 as a double: (double)gs_h2f(h), with the usual case (a normal number) done in integers, the
 * exponent rebiased from 15 to 1023 and the 10 mantissa bits moved to the top of the double's 52 */
static inline double gs_h2d(uint16_t h) {
    if ((uint32_t)(h & 0x7c00u) - 0x400u < 0x7800u) {
        uint64_t b = ((uint64_t)(h & 0x8000u) << 48) | (((uint64_t)(h & 0x7fffu) << 42) + ((uint64_t)(1023 - 15) << 52));
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    return gs_h2f(h);
}

/* round the magnitude `mag` (an integer with `drop` low bits to discard) by mode; sign for RM/RP */
static inline uint32_t gs_round_bits(uint32_t mag, int drop, int rnd, int neg) {
    if (drop <= 0) return mag << (-drop);
    if (drop >= 32) { uint32_t any = mag != 0; mag = 0;
        if ((rnd == GS_RND_RP && !neg && any) || (rnd == GS_RND_RM && neg && any)) return 1;
        return 0; }
    uint32_t q = mag >> drop, rem = mag & ((1u << drop) - 1), half = 1u << (drop - 1);
    switch (rnd) {
    case GS_RND_RZ: return q;
    case GS_RND_RM: return (neg && rem) ? q + 1 : q;
    case GS_RND_RP: return (!neg && rem) ? q + 1 : q;
    case GS_RND_RNA: return rem >= half ? q + 1 : q;
    default: return (rem > half || (rem == half && (q & 1))) ? q + 1 : q;
    }
}

static inline uint16_t gs_f2h_rnd(float f, int rnd) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    int neg = sign != 0;
    uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
    if (exp == 0xff) return man ? (uint16_t)0x7fffu : (uint16_t)(sign | 0x7c00u);   /* NaN: canonical, as cvt */
    int e = (int)exp - 127 + 15;
    uint32_t overflow_val = ((rnd == GS_RND_RZ) || (rnd == GS_RND_RM && !neg) || (rnd == GS_RND_RP && neg))
                            ? 0x7bffu : 0x7c00u;
    if (exp == 0 && man == 0) return sign;
    uint32_t full = (exp ? (man | 0x800000u) : man);   /* 24-bit significand (f32 subnormals too) */
    if (e >= 31) return (uint16_t)(sign | overflow_val);
    if (e <= 0) {                                        /* half subnormal: value = full * 2^(exp-150) */
        int drop = 13 + 1 - e + (exp == 0 ? -1 : 0);
        uint32_t r = gs_round_bits(full, drop, rnd, neg);
        return (uint16_t)(sign | r);                     /* r may carry into the exponent: still right */
    }
    uint32_t r = gs_round_bits(full, 13, rnd, neg);      /* 11-bit significand incl. hidden bit */
    if (r >= 0x800u) { r >>= 1; e++; }
    if (e >= 31) return (uint16_t)(sign | overflow_val);
    return (uint16_t)(sign | ((uint32_t)e << 10) | (r & 0x3ffu));
}
static inline uint16_t gs_f2h(float f) { return gs_f2h_rnd(f, GS_RND_RN); }

static inline float gs_bf2f(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t gs_f2bf_rnd(float f, int rnd) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) return (uint16_t)0x7fffu;  /* NaN: canonical */
    int neg = (u >> 31) != 0;
    uint32_t mag = u & 0x7fffffffu;
    uint32_t r = gs_round_bits(mag, 16, rnd, neg);
    if (r >= 0x7f80u && mag < 0x7f800000u) {             /* overflow to inf or max finite */
        int to_inf = !(rnd == GS_RND_RZ || (rnd == GS_RND_RM && !neg) || (rnd == GS_RND_RP && neg));
        r = to_inf ? 0x7f80u : 0x7f7fu;
    }
    return (uint16_t)((neg ? 0x8000u : 0) | r);
}
static inline uint16_t gs_f2bf(float f) { return gs_f2bf_rnd(f, GS_RND_RN); }

/* ---------------------------------------------------------------------------------------------
 * Generic small binary formats (f32, tf32, f16, bf16, e4m3, e5m2): exact decoding to double and one
 * correct rounding from double, in any PTX rounding mode. Used by the arithmetic and conversion
 * handlers; a double that is the exact result (or its round-to-odd value, see exec_float.c) rounds
 * exactly once here, so there is no double rounding.
 * --------------------------------------------------------------------------------------------- */
typedef struct gs_fmt {
    uint8_t mbits;      /* explicit significand bits */
    uint8_t ebits;      /* exponent bits */
    uint8_t has_inf;    /* 0: e4m3 (top exponent holds finite values, all-ones significand is NaN) */
    uint8_t width;      /* bits of the encoding (tf32: 32, stored as an f32 pattern) */
    uint32_t nan;       /* canonical NaN bits */
} gs_fmt;

static const gs_fmt GS_FMT_F32 = {23, 8, 1, 32, 0x7fffffffu};
static const gs_fmt GS_FMT_TF32 = {10, 8, 1, 32, 0x7fffffffu};
static const gs_fmt GS_FMT_F16 = {10, 5, 1, 16, 0x7fffu};
static const gs_fmt GS_FMT_BF16 = {7, 8, 1, 16, 0x7fffu};
static const gs_fmt GS_FMT_E4M3 = {3, 4, 0, 8, 0x7fu};
static const gs_fmt GS_FMT_E5M2 = {2, 5, 1, 8, 0x7fu};

/* value of an encoding (tf32 is read as the f32 pattern it is stored in) */
static inline double gs_fmt_decode(uint32_t bits, const gs_fmt *f) {
    int mb = f->width == 32 ? 23 : f->mbits, eb = f->ebits, bias = (1 << (eb - 1)) - 1;
    uint32_t sign = (bits >> (mb + eb)) & 1, e = (bits >> mb) & ((1u << eb) - 1);
    uint32_t man = bits & ((1u << mb) - 1);
    double v;
    if (e == (1u << eb) - 1 && (f->has_inf || man == (1u << mb) - 1)) {
        v = (f->has_inf && man == 0) ? INFINITY : NAN;
    } else if (e == 0) {
        v = ldexp((double)man, 1 - bias - mb);
    } else {
        v = ldexp((double)(man | (1u << mb)), (int)e - bias - mb);
    }
    return sign ? -v : v;
}

/* largest finite magnitude of a format */
static inline double gs_fmt_max(const gs_fmt *f) {
    int bias = (1 << (f->ebits - 1)) - 1, emax = (1 << f->ebits) - 2 - bias;
    if (!f->has_inf) return ldexp((double)((2u << f->mbits) - 2), emax + 1 - f->mbits);  /* e4m3: 448 */
    return ldexp((double)((2u << f->mbits) - 1), emax - f->mbits);
}

/* Round v to format f with mode rnd (RN, RZ, RM, RP, RNA; NONE means RN). satfinite: overflow and
 * infinities give the largest finite value of that sign (NaN stays NaN). Subnormal results are
 * produced; the caller flushes them for .ftz. Returns the encoding (tf32: an f32 pattern). */
static inline uint32_t gs_fmt_round(double v, const gs_fmt *f, int rnd, int satfinite) {
    int mb = f->mbits, eb = f->ebits, bias = (1 << (eb - 1)) - 1, emin = 1 - bias;
    int smb = f->width == 32 ? 23 : mb;          /* significand bits of the stored encoding */
    uint32_t sign = signbit(v) ? 1u : 0u, sbit = sign << (smb + eb);
    if (v != v) return f->nan;
    double a = fabs(v), maxf = gs_fmt_max(f);
    int to_inf = rnd == GS_RND_RN || rnd == GS_RND_NONE || rnd == GS_RND_RNA ||
                 (rnd == GS_RND_RP && !sign) || (rnd == GS_RND_RM && sign);
    uint32_t inf_bits = f->has_inf ? (((1u << eb) - 1) << smb) : f->nan;
    uint32_t max_bits;
    {   /* encoding of maxf */
        int emax_field = f->has_inf ? (1 << eb) - 2 : (1 << eb) - 1;
        uint32_t mmax = f->has_inf ? (1u << mb) - 1 : (1u << mb) - 2;
        max_bits = ((uint32_t)emax_field << smb) | (mmax << (smb - mb));
    }
    if (isinf(a)) return sbit | (satfinite ? max_bits : inf_bits);
    if (a == 0) return sbit;
    int e;
    frexp(a, &e);                                /* a = m * 2^e, m in [0.5, 1) */
    int E = e - 1 < emin ? emin : e - 1;         /* exponent of the quantum's binade */
    double q = ldexp(a, mb - E);                 /* a in units of the quantum: exact (power of 2) */
    double n = floor(q), frac = q - n;           /* exact: q < 2^(mb+1) */
    int up;
    switch (rnd) {
    case GS_RND_RZ: up = 0; break;
    case GS_RND_RM: up = sign && frac > 0; break;
    case GS_RND_RP: up = !sign && frac > 0; break;
    case GS_RND_RNA: up = frac >= 0.5; break;
    default: up = frac > 0.5 || (frac == 0.5 && fmod(n, 2.0) != 0); break;
    }
    double r = ldexp(n + up, E - mb);            /* the rounded magnitude, exact in double */
    if (r > maxf) return sbit | ((to_inf && !satfinite) ? inf_bits : max_bits);
    if (r == 0) return sbit;
    frexp(r, &e);
    uint32_t bits;
    if (e - 1 < emin) {                          /* subnormal: exponent field 0 */
        bits = (uint32_t)ldexp(r, mb - emin) << (smb - mb);
    } else {
        uint32_t man = (uint32_t)(ldexp(r, mb - (e - 1)) - ldexp(1.0, mb));
        bits = ((uint32_t)(e - 1 + bias) << smb) | (man << (smb - mb));
    }
    return sbit | bits;
}

/* flush a subnormal encoding of format f (not e4m3/e5m2) to a zero of its sign */
static inline uint32_t gs_fmt_ftz(uint32_t bits, const gs_fmt *f) {
    int smb = f->width == 32 ? 23 : f->mbits;
    uint32_t emask = ((1u << f->ebits) - 1) << smb;
    return (bits & emask) ? bits : (bits & (1u << (smb + f->ebits)));
}

/* whether the host CPU has AVX and F16C (their exact f16 <-> f32 conversions: exec_wgmma.c, rng.c); asked once per
 * file that uses it (the same value from any thread: a benign first-use race) */
static inline int gs_host_f16c(void) {
#if defined(__x86_64__)
    static int v = -1;
    int r = __atomic_load_n(&v, __ATOMIC_RELAXED);
    if (r < 0) {
        __builtin_cpu_init();
        r = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
        __atomic_store_n(&v, r, __ATOMIC_RELAXED);
    }
    return r;
#else
    return 0;
#endif
}

#endif
