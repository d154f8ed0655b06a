/* lod.h — the run store's C module: level-of-detail arithmetic for recorded warp states.
 *
 * It belongs to the run store (webapp/store), not to the simulator: the store compiles it as its own cffi
 * extension, webapp.store._lod (webapp/store/build_lod.py), so the store never reaches into the engine's
 * extension and the engine's public header (engine/include/simtscope.h) holds only the simulator's API.
 * Plain C11, no Python; the cdef is this header minus preprocessor lines.
 */
#ifndef SIMTSCOPE_STORE_LOD_H
#define SIMTSCOPE_STORE_LOD_H
#include <stddef.h>
#include <stdint.h>

/* Contract: adds the cycles of runs [start[i], end[i]) of key[i] in state[i], clipped to nb buckets of
 * 2^shift cycles from `lo`, into out (int64, bucket-major: nb x nkeys x nstates, zeroed by the caller).
 * Returns 0, or -1 (having added only the runs before it) at a key or state out of range. */
int gs_lod_durations(const int64_t *key, const int64_t *start, const int64_t *end, const int64_t *state,
                     size_t n, int64_t lo, uint32_t nb, uint32_t shift, uint32_t nkeys, uint32_t nstates,
                     int64_t *out);

/* Contract: for histograms h (int64, nb x nkeys x nstates, entry s counting cycles in state ids[s]), writes
 * dom[b * nkeys + k] = ids of the largest entry (ties: the first); then, if `fold`, sums bucket pairs in
 * place, leaving the next coarser level (nb / 2 buckets, an odd last bucket dropped) at the start of h. */
void gs_lod_dominant_fold(int64_t *h, uint32_t nb, uint32_t nkeys, uint32_t nstates, const uint8_t *ids,
                          uint8_t *dom, int fold);

#endif
