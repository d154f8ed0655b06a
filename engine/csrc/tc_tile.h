/* tc_tile.h — the memory footprint of a wmma fragment access (exec_wmma.c) as the timing model's coalescer
 * sees it.
 *
 * A fragment of an R x C matrix gives each lane a run of E = R*C/32 consecutive elements in fragment
 * order (exec_wmma.c): along a row (col_order 0) or down a column (col_order 1). The access's element
 * addresses, in the order the per-element walk produces them (element e of lanes 0..31, then e + 1), go to
 * the coalescer (gs_coalesce), which keeps per line the sectors and bytes touched, lines in order of first
 * touch. The same lines, sectors, bytes and order come from far fewer addresses: the tile as stored
 * (rows of the matrix for a row-major layout, its columns for a column-major one) cut into pieces of pb
 * bytes, each piece once, in the order the walk first touches it. A piece is aligned to its size
 * (a power of two of at most 32 bytes that the base address and the pitch are multiples of) and a line has
 * at least 32 bytes (config.py's l1.line_bytes), so a piece lies in one line: that of each of its elements.
 * The counts of accesses per sector differ (the coalescer uses them only for atomics).
 */
#ifndef GS_TC_TILE_H
#define GS_TC_TILE_H
#include <stdint.h>

typedef struct {
    int rows, cols;            /* the matrix the fragment holds (powers of two) */
    int col_order;             /* 1: runs go down columns, 0: along rows */
    int e;                     /* elements per lane's run */
} tc_runs;

/* matrix coordinates (i, j) of element e of lane l's run */
static inline void tc_run_coord(const tc_runs *f, int l, int e, int *i, int *j) {
    int idx = l * f->e + e;
    if (f->col_order) { *j = idx / f->rows; *i = idx % f->rows; }
    else { *i = idx / f->cols; *j = idx % f->cols; }
}

/* The pieces of the tile at addr (layout col: 1 column-major, stored rows pitch bytes apart; es bytes an
 * element) in the walk's order of first touch: their addresses into out (room for 512), the count
 * returned and their size in *pb. 0 when no piece larger than an element fits the alignment (the caller
 * then records every element). */
uint32_t tc_tile_pieces(const tc_runs *f, int col, uint64_t addr, uint64_t pitch, uint32_t es, uint64_t *out,
                        uint32_t *pb);

#endif
