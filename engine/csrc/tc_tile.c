/* tc_tile.c — a wmma tile's pieces in order of first touch (see tc_tile.h). The order depends only on the
 * fragment's shape, the layout, the element and piece sizes: it is computed once per such geometry and
 * kept in a small per-thread cache. */
#include "tc_tile.h"

typedef struct {
    uint32_t key, n;
    uint16_t id[512];          /* piece k of stored row r: r * (pieces per row) + k */
} plan;

static const plan *plan_of(const tc_runs *f, int col, uint32_t es, uint32_t pb, uint32_t per_row) {
    static __thread plan cache[8];         /* a kernel uses a few geometries: A, B, C, D */
    static __thread uint32_t next;
    uint32_t key = 1u | (uint32_t)f->rows << 1 | (uint32_t)f->cols << 7 | (uint32_t)f->col_order << 13 |
                   (uint32_t)col << 14 | es << 15 | pb << 19;
    for (int k = 0; k < 8; k++)
        if (cache[k].key == key) return &cache[k];
    plan *p = &cache[next++ & 7];
    uint8_t seen[512] = {0};
    p->n = 0;
    for (int e = 0; e < f->e; e++)
        for (int l = 0; l < 32; l++) {
            int i, j;
            tc_run_coord(f, l, e, &i, &j);
            uint32_t r = (uint32_t)(col ? j : i), b = (uint32_t)(col ? i : j) * es;
            uint32_t id = r * per_row + b / pb;
            if (!seen[id]) { seen[id] = 1; p->id[p->n++] = (uint16_t)id; }
        }
    p->key = key;
    return p;
}

uint32_t tc_tile_pieces(const tc_runs *f, int col, uint64_t addr, uint64_t pitch, uint32_t es, uint64_t *out,
                        uint32_t *pb) {
    uint32_t srows = (uint32_t)(col ? f->cols : f->rows), row_bytes = (uint32_t)(col ? f->rows : f->cols) * es;
    if (srows * row_bytes > 1024 || (row_bytes & (row_bytes - 1))) return 0;   /* (no fragment is larger) */
    uint32_t b = row_bytes < 32 ? row_bytes : 32;
    while (b > es && ((addr & (b - 1)) || (srows > 1 && (pitch & (b - 1))))) b >>= 1;
    if (b <= es) return 0;
    uint32_t per_row = row_bytes / b;
    const plan *p = plan_of(f, col, es, b, per_row);
    for (uint32_t q = 0; q < p->n; q++)
        out[q] = addr + (uint64_t)(p->id[q] / per_row) * pitch + (uint64_t)(p->id[q] % per_row) * b;
    *pb = b;
    return p->n;
}
