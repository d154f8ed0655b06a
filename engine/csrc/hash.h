/* hash.h — the address hash shared by the memory components (L2 slice and DRAM channel/bank
 * selection): a 64-to-32-bit integer mix with good avalanche, so strided streams spread evenly. */
#ifndef GS_HASH_H
#define GS_HASH_H
#include <stdint.h>

static inline uint32_t gs_mix(uint64_t x) {
    x ^= x >> 17; x *= 0xed5ad4bbu; x ^= x >> 11; x *= 0xac4c1b51u; x ^= x >> 15;
    return (uint32_t)x;
}

#endif
