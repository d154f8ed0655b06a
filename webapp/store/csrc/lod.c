/* lod.c — level-of-detail arithmetic for recorded warp states (used by the run store, webapp/store/lod.py).
 *
 * A warp-state run is [start, end) cycles of one key (a warp slot or an SM) in one state. The run store
 * summarises runs into per-bucket histograms (cycles per state per bucket of 2^shift cycles); numpy did
 * this with scattered float sums over a dense array, which dominated the cost of full recording. Here it
 * is one pass over the runs with exact integer sums.
 */
#include "lod.h"

int gs_lod_durations(const int64_t *key, const int64_t *start, const int64_t *end, const int64_t *state,
                     size_t n, int64_t lo, uint32_t nb, uint32_t shift, uint32_t nkeys, uint32_t nstates,
                     int64_t *out) {
    if (shift > 40) return -1;
    const int64_t width = (int64_t)1 << shift;
    const int64_t hi = lo + (int64_t)nb * width;
    const size_t stride = (size_t)nkeys * nstates;        /* one bucket: nkeys x nstates cells */
    for (size_t i = 0; i < n; i++) {
        int64_t s = start[i] < lo ? lo : start[i], e = end[i] > hi ? hi : end[i];
        if (e <= s) continue;
        if (key[i] < 0 || (uint64_t)key[i] >= nkeys || state[i] < 0 || (uint64_t)state[i] >= nstates) return -1;
        int64_t *cell = out + (size_t)key[i] * nstates + (size_t)state[i];
        int64_t b0 = (s - lo) >> shift, b1 = (e - 1 - lo) >> shift;
        if (b0 == b1) {
            cell[(size_t)b0 * stride] += e - s;
            continue;
        }
        cell[(size_t)b0 * stride] += lo + (b0 + 1) * width - s;
        for (int64_t b = b0 + 1; b < b1; b++) cell[(size_t)b * stride] += width;
        cell[(size_t)b1 * stride] += e - (lo + b1 * width);
    }
    return 0;
}

void gs_lod_dominant_fold(int64_t *h, uint32_t nb, uint32_t nkeys, uint32_t nstates, const uint8_t *ids,
                          uint8_t *dom, int fold) {
    const size_t cells = (size_t)nb * nkeys;
    for (size_t c = 0; c < cells; c++) {                  /* the most cycles; ties to the first entry */
        const int64_t *v = h + c * nstates;
        uint32_t best = 0;
        for (uint32_t s = 1; s < nstates; s++)
            if (v[s] > v[best]) best = s;
        dom[c] = ids[best];
    }
    if (!fold) return;
    const size_t row = (size_t)nkeys * nstates;           /* one bucket */
    for (uint32_t b = 0; b + 1 < nb; b += 2) {
        int64_t *dst = h + (size_t)(b / 2) * row;
        const int64_t *x = h + (size_t)b * row, *y = x + row;
        for (size_t i = 0; i < row; i++) dst[i] = x[i] + y[i];
    }
}
