/* fp16.h — IEEE half (binary16) and bfloat16 conversions, bit-exact, with rounding control.
 * Rounding modes: GS_RND_RN (nearest even, default), RZ, RM, RP. Subnormal halves are kept. */
#ifndef GS_FP16_H
#define GS_FP16_H
#include <stdint.h>
#include <string.h>
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
    if (exp == 0xff) return man ? (uint16_t)(sign | 0x7e00u) : (uint16_t)(sign | 0x7c00u);
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
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) return (uint16_t)((u >> 16) | 0x40u);
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

#endif
