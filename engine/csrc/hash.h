/* hash.h — the address hash shared by the memory components (L2 slice and DRAM channel/bank
 * selection): a 64-to-32-bit integer mix with good avalanche, so strided streams spread evenly. */
#ifndef GS_HASH_H
#define GS_HASH_H
#include <stdint.h>

static inline uint32_t gs_mix(uint64_t x) {
    x ^= x >> 17; x *= 0xed5ad4bbu; x ^= x >> 11; x *= 0xac4c1b51u; x ^= x >> 15;
    return (uint32_t)x;
}

/* a % d for a 32-bit a and a divisor d fixed in advance, without a division: m = gs_fastmod_m(d), then
 * gs_fastmod(a, m, d) (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact
 * for every 32-bit a and d >= 1) */
static inline uint64_t gs_fastmod_m(uint32_t d) { return UINT64_MAX / d + 1; }
static inline uint32_t gs_fastmod(uint32_t a, uint64_t m, uint32_t d) {
    return (uint32_t)(((__uint128_t)(m * a) * d) >> 64);
}

/* the same for a 64-bit a (the paper's fastmod_u64): m = gs_fastmod64_m(d), a 128-bit constant kept as two
 * words; exact for every 64-bit a and d >= 1. Four multiplications instead of a 64-bit division. */
static inline void gs_fastmod64_m(uint32_t d, uint64_t m[2]) {
    __uint128_t M = ~(__uint128_t)0 / d + 1;
    m[0] = (uint64_t)M;
    m[1] = (uint64_t)(M >> 64);
}
static inline uint64_t gs_fastmod64(uint64_t a, const uint64_t m[2], uint32_t d) {
    __uint128_t low = ((((__uint128_t)m[1]) << 64) | m[0]) * a;           /* (mod 2^128) */
    __uint128_t bottom = ((__uint128_t)(uint64_t)low * d) >> 64, top = (__uint128_t)(uint64_t)(low >> 64) * d;
    return (uint64_t)((bottom + top) >> 64);
}

#endif
