/* l2.h — the L2: sectored set-associative slices (address-hashed), each with an input port and an
 * atomic unit, grouped into partitions; a miss goes to DRAM (dram.h).
 *
 * Contract of gs_l2_access: one sector from an SM attached to partition `part` arrives at t. kind:
 * GS_L2_READ, GS_L2_WRITE (wmask: bytes written of the sector) or GS_L2_ATOMIC (nops lane operations,
 * at most `same` on one address). req: the sectors of this line the same request asks for (a read miss
 * does not fill them ahead). Returns the cycle the slice has the answer (data for reads and atomics,
 * acceptance for writes); *t_dram (may be NULL) gets the DRAM return of a miss. With several partitions
 * an address owned by a far partition is looked up in a copy in the near one first. With
 * l2.coalesce_reads = N a read of a sector that an earlier read is still waiting for at the slice it
 * reaches first (arrived no later, answer not yet out) gets that read's answer without taking a slice,
 * up to N reads per lookup. With l2.coalesce_gpc only reads from SMs of one GPC merge (gs_l2_access_from's
 * `gpc`; one table per GPC), and with l2.coalesce_until_lookup only until the earlier read's tag lookup.
 */
#ifndef GS_L2_H
#define GS_L2_H
#include <stdint.h>
#include "simtscope.h"
#include "l2dir.h"
#include "hugemem.h"
#include "calendar.h"
#include "dram.h"

enum { GS_L2_READ = 0, GS_L2_WRITE = 1, GS_L2_ATOMIC = 2 };

typedef struct gs_l2slice {
    gs_l2dir c;                        /* the directory (l2dir.h) */
    gs_cal port;                       /* sectors in/out of the slice */
    gs_cal atomic;                     /* the slice's atomic unit */
    uint32_t iv_acc, iv_hits, iv_miss; /* current recording interval */
} gs_l2slice;

/* l2.coalesce_reads: per slice, the latest read of each of a few sectors (direct-mapped by sector; a
 * newer read of another sector in the same entry replaces it), for merging a read of a sector with
 * one that is still waiting for its answer */
enum { GS_L2_RC_ENTRIES = 1024, GS_L2_RC_GPC_ENTRIES = 16384 };
typedef struct gs_l2rc {
    uint64_t key;                      /* sector number + 1; 0: empty */
    uint64_t arr, until, done;         /* the read's arrival at the L2, the end of its merge window, its answer */
    uint32_t reads;                    /* reads answered by it so far (itself and those merged) */
} gs_l2rc;

typedef struct gs_l2 {
    gs_l2slice *sl;
    gs_l2rc *rc;                       /* nslices * GS_L2_RC_ENTRIES (GS_L2_RC_GPC_ENTRIES * gpcs with
                                        * l2.coalesce_gpc), NULL without l2.coalesce_reads */
    uint8_t *rcfp;                     /* per entry of rc, a byte of its key's hash (0: empty), so that a lookup
                                        * that cannot match (most) does not touch the 40-byte entry: 128 KiB
                                        * that stay in the host's cache instead of 5 MiB that do not */
    uint32_t coalesce;                 /* l2.coalesce_reads: reads one lookup may answer (0, 1: no merging) */
    size_t rc_count;                   /* entries of rc */
    uint32_t rc_gpc, rc_until_lookup, gpcs;  /* l2.coalesce_gpc, l2.coalesce_until_lookup, gpu.gpcs */
    uint32_t nslices, partitions, line_bytes, sector_bytes, interleave_bytes, hash, fetch_bytes;
    uint32_t write_miss_dram;          /* l2.write_miss_dram */
    uint32_t line_shift, sector_shift;
    /* derived, for the hot path: interleave_bytes as a shift (0: not a power of two), gs_fastmod
     * multipliers for the slice count and the sets per slice, each slice's partition and its place in it */
    uint32_t ilv_shift, sets;
    uint64_t slices_m, sets_m;
    uint32_t *part_of, *in_part;
    uint64_t hit_latency, far_latency, atomic_latency;
    uint64_t sector_cost, partial_cost, atomic_cost;   /* fixed point, 1/256 cycle */
    gs_dram *dram;
    gs_tstats *st;
    gs_huge dir_mem, rc_mem;           /* the slices' directories; rc (hugemem.h) */
} gs_l2;

int gs_l2_init(gs_l2 *l2, const gs_tconfig *c, gs_dram *dram, gs_tstats *st);
void gs_l2_free(gs_l2 *l2);
void gs_l2_reset(gs_l2 *l2);           /* new launch: port and atomic-unit bookings restart */
/* part u of it: u < nslices slice u's calendars, u == nslices the read-coalescing table (the parts are
 * independent: any thread) */
void gs_l2_reset_part(gs_l2 *l2, uint32_t u);
void gs_l2_flush(gs_l2 *l2);           /* cold GPU: empty slices */
void gs_l2_flush_slice(gs_l2 *l2, uint32_t i);   /* slice i of it (the slices are independent: any thread) */
uint32_t gs_l2_slice_of(const gs_l2 *l2, uint64_t line);
/* Contract: every sector of [addr, addr + bytes) valid and clean in its home slice, data present at
 * `now` (a host-to-device copy leaves its data in the L2, as GPGPU-Sim's gpgpu_perf_sim_memcpy does). */
void gs_l2_fill(gs_l2 *l2, uint64_t addr, uint64_t bytes, uint64_t now);
uint64_t gs_l2_access_from(gs_l2 *l2, uint32_t part, uint32_t gpc, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                           uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req);
/* The same in two steps, so that a caller with several requests can ask the host cache for a later one's
 * L2 state while it runs earlier ones (no effect on any result): gs_l2_place computes where `addr` lives
 * (slices, set, hash) for a request from partition `part`; gs_l2_prefetch prefetches that set's tags, the
 * first slice's port calendar around cycle t and the read-coalescing entry; gs_l2_access_placed is
 * gs_l2_access_from with the place computed. */
typedef struct gs_l2place {
    uint32_t home, near;               /* the home slice; the slice the request reaches first */
    uint32_t h;                        /* the read-coalescing hash of the sector (0 without l2.coalesce_reads) */
    uint64_t set;
} gs_l2place;
void gs_l2_place(const gs_l2 *l2, uint32_t part, uint64_t addr, gs_l2place *pl);
/* the sets, port calendars and coalescing entry an access of `kind` (GS_L2_READ, ...) arriving at cycle t will
 * touch, asked from the host cache (no effect on results) */
void gs_l2_prefetch(const gs_l2 *l2, const gs_l2place *pl, uint32_t gpc, uint64_t t, int kind);
/* later, once the set's tags are in the host cache: the line records an access of `kind` (GS_L2_READ, ...) will
 * touch (l2dir.h) and, when the line is absent, the DRAM state its miss will read at about t + the hit latency */
void gs_l2_prefetch_rec(const gs_l2 *l2, const gs_l2place *pl, uint64_t addr, uint64_t t, int kind);
uint64_t gs_l2_access_placed(gs_l2 *l2, uint32_t part, uint32_t gpc, const gs_l2place *pl, uint64_t addr, uint64_t t,
                             int kind, uint32_t nops, uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req);
/* the same from GPC 0 */
static inline uint64_t gs_l2_access(gs_l2 *l2, uint32_t part, uint64_t addr, uint64_t t, int kind, uint32_t nops,
                                    uint32_t same, uint64_t *t_dram, uint32_t wmask, uint32_t req) {
    return gs_l2_access_from(l2, part, 0, addr, t, kind, nops, same, t_dram, wmask, req);
}

#endif
