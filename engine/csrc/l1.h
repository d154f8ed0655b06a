/* l1.h — the SM's L1/shared-memory unit: the coalescer (lanes -> sectors of lines), the shared-memory
 * bank model (wavefronts) and the L1 data cache directory with its MSHR ring. Pure functions over
 * addresses and the cache directory: the LSU (tmem.c) strings them together with the interconnect and
 * the L2.
 */
#ifndef GS_L1_H
#define GS_L1_H
#include <stdint.h>
#include "simtscope.h"
#include "cache.h"

#define GS_COAL_MAX (4 * 32)           /* distinct lines one warp request may touch */

/* A coalesced request: distinct lines in first-touch order, per line the sectors touched, lane
 * operations per sector (atomics), the most lanes on one address per sector (atomics), and the bytes
 * written per sector (sectors up to 32 bytes). */
typedef struct gs_coal {
    uint32_t nl;
    uint64_t lines[GS_COAL_MAX];
    uint8_t masks[GS_COAL_MAX];
    uint8_t lane_ops[GS_COAL_MAX][8];
    uint8_t same_ops[GS_COAL_MAX][8];
    uint32_t bytes_w[GS_COAL_MAX][8];
} gs_coal;

/* Contract: the accesses are `n` addresses of `size` bytes: ext[0..n) when ext is not NULL (fragment
 * accesses), else lane_addr[l] for the set bits l of `mask` (n = popcount; all 32 entries are read, those
 * of inactive lanes not used). Line and sector sizes are 1 << line_shift and 1 << sector_shift. `atomic`:
 * count lanes on the same address (lane records). */
void gs_coalesce(gs_coal *o, const uint64_t *lane_addr, uint32_t mask, const uint64_t *ext, uint32_t n,
                 uint32_t size, uint32_t line_shift, uint32_t sector_shift, int atomic);

/* Tag lookups of a fragment access (wmma.load/store) as the driver's JIT issues it: the tile as stored,
 * `rows` rows of `row_bytes` bytes `pitch` bytes apart from `base`, in requests of 8 rows x `seg` bytes
 * (4 lanes per row, each lane one vector of seg/4 bytes; the rows of the mma register layout); per request
 * the distinct lines it touches. */
uint32_t gs_fragment_lookups(uint64_t base, uint64_t pitch, uint32_t rows, uint32_t row_bytes, uint32_t seg,
                             uint32_t line_bytes);

/* Data wavefronts of a coalesced global request: the L1 data array reads one 4-byte word per bank (32 banks
 * across a line) per cycle, so a request takes the most distinct lines any bank must read from (words of
 * one line in one bank are the same word). Lanes on one word and whole coalesced lines cost 1; 32 lanes
 * on 32 lines at one offset cost 32 (benchmarks/hw/sched_fair.cu, calibration.md 5k). Needs sectors of
 * at most 32 bytes (bytes_w); else 1. */
uint32_t gs_coal_wavefronts(const gs_coal *o, uint32_t line_bytes, uint32_t sector_bytes);

/* Shared-memory wavefronts: the most distinct words any bank must deliver (broadcasts are free), at
 * least the 128-byte wavefronts the data needs. Lane records: addr[l] for the set bits of mask, each
 * `size` bytes (all 32 entries are read, those of inactive lanes not used); *serial gets the most lanes on
 * one address (atomics serialise on it). */
uint32_t gs_shared_wavefronts(const uint64_t *addr, uint32_t mask, uint32_t size, uint32_t banks,
                              uint32_t bank_bytes, int atomic, uint32_t *serial);
/* the same for fragment accesses: n element addresses of `size` bytes */
uint32_t gs_shared_wavefronts_ext(const uint64_t *addr, uint32_t n, uint32_t size, uint32_t banks, uint32_t bank_bytes);
/* the same, for addresses that are a fragment walk from `base` (walk: its geometry, nonzero; gs_ctx's
 * mfrag_walk) with rows `pitch` bytes apart: answers kept per walk, pitch and base % (banks * bank_bytes) */
uint32_t gs_shared_wavefronts_walk(const uint64_t *addr, uint32_t n, uint32_t size, uint32_t banks, uint32_t bank_bytes,
                                   uint32_t walk, uint64_t base, uint64_t pitch);

/* The L1 directory for a read: the line's index, allocated on a miss when `alloc` (reads allocate,
 * writes and atomics do not); -1 when absent (or no L1). _set: the line's set already known (an L1 there). */
static inline int64_t gs_l1_lookup_set(gs_cache *l1, uint64_t line, uint64_t set, int alloc) {
    int64_t idx = gs_cache_find(l1, line, set);
    if (idx < 0 && alloc) {
        uint64_t evl;
        uint8_t evd;
        idx = gs_cache_alloc(l1, line, set, &evl, &evd);
    }
    return idx;
}
static inline int64_t gs_l1_lookup(gs_cache *l1, uint64_t line, int alloc) {
    return l1->sets ? gs_l1_lookup_set(l1, line, gs_cache_set(l1, line), alloc) : -1;
}

#endif
