/* test_tc_tile.c — a wmma tile's pieces (tc_tile.c) coalesce exactly like its elements: for every fragment
 * geometry, layout, element size, base alignment and stride (padded, odd, overlapping rows, large), the
 * coalescer (l1.c) gives the same lines in the same order with the same sectors and bytes from the pieces
 * as from every element address in the per-element walk's order, for lines of 32 bytes (sectors of 8 to
 * 32) and of 128 (sectors of 32). Also: fp16.h's gs_h2d equals the reference conversion
 * for all 65536 patterns.
 * Built and run by tests/test_c_units.py. */
#include <string.h>
#include "check.h"
#include "tc_tile.h"
#include "l1.h"
#include "fp16.h"

static gs_coal a, b;

static int same_coal(const gs_coal *x, const gs_coal *y) {
    if (x->nl != y->nl) return 0;
    for (uint32_t i = 0; i < x->nl; i++) {
        if (x->lines[i] != y->lines[i] || x->masks[i] != y->masks[i]) return 0;
        if (memcmp(x->bytes_w[i], y->bytes_w[i], sizeof x->bytes_w[i])) return 0;
    }
    return 1;
}

static void check_tile(const tc_runs *f, int col, uint64_t addr, uint64_t stride, uint32_t es, int *compressed) {
    static uint64_t elems[1024], pieces[512];
    uint32_t n = 0;
    for (int e = 0; e < f->e; e++)
        for (int l = 0; l < 32; l++) {
            int i, j;
            tc_run_coord(f, l, e, &i, &j);
            elems[n++] = addr + (col ? (uint64_t)j * stride + (uint64_t)i : (uint64_t)i * stride + (uint64_t)j) * es;
        }
    uint32_t pb = 0, np = tc_tile_pieces(f, col, addr, stride * es, es, pieces, &pb);
    if (!np) return;
    (*compressed)++;
    CHECK(pb > es && pb <= 32 && (pb & (pb - 1)) == 0 && np <= n);
    for (uint32_t q = 0; q < np; q++) CHECK(pieces[q] % pb == 0);
    for (uint32_t ls = 5; ls <= 7; ls++)
        for (uint32_t ss = ls - 2; ss <= 5; ss++) {       /* at most 8 sectors a line (config.py) */
            gs_coalesce(&a, NULL, 0, elems, n, es, ls, ss, 0);
            gs_coalesce(&b, NULL, 0, pieces, np, pb, ls, ss, 0);
            if (!same_coal(&a, &b)) {
                printf("FAIL rows %d cols %d col_order %d col %d es %u addr %llx stride %llu line %u sector %u\n",
                       f->rows, f->cols, f->col_order, col, es, (unsigned long long)addr, (unsigned long long)stride,
                       1u << ls, 1u << ss);
                failures++;
            }
        }
}

static void test_pieces_coalesce_like_elements(void) {
    /* (rows, cols) of A, B and C/D of m16n16k16, m32n8k16, m8n32k16, m16n16k8; B's runs go down columns */
    static const int geo[][3] = {{16, 16, 0}, {16, 16, 1}, {32, 16, 0}, {16, 8, 1}, {32, 8, 0}, {8, 16, 0},
                                 {16, 32, 1}, {8, 32, 0}, {16, 8, 0}, {8, 16, 1}};
    static const uint32_t sizes[] = {1, 2, 4};
    int compressed = 0, tiles = 0;
    for (unsigned g = 0; g < sizeof geo / sizeof *geo; g++)
        for (unsigned s = 0; s < 3; s++)
            for (int col = 0; col < 2; col++) {
                tc_runs f = {geo[g][0], geo[g][1], geo[g][2], geo[g][0] * geo[g][1] / 32};
                uint32_t es = sizes[s];
                uint64_t minor = (uint64_t)(col ? f.rows : f.cols);
                const uint64_t strides[] = {minor, minor + 1, minor + 4, minor + 8, minor + 16, 2 * minor,
                                            minor / 2, 1, 1000, 1024, 4096 + 8};
                const uint64_t offs[] = {0, 1, 2, 4, 8, 16, 24, 96, 100};
                for (unsigned k = 0; k < sizeof strides / sizeof *strides; k++)
                    for (unsigned o = 0; o < sizeof offs / sizeof *offs; o++) {
                        if (offs[o] % es) continue;
                        check_tile(&f, col, 0x10000000ull + 0x40000 * g + offs[o], strides[k], es, &compressed);
                        tiles++;
                    }
            }
    CHECK(compressed > tiles / 3);           /* the aligned cases do compress */
}

static void test_f16_to_double(void) {
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        double x = gs_h2d((uint16_t)h), y = (double)gs_h2f((uint16_t)h);
        if (memcmp(&x, &y, 8)) bad++;
    }
    CHECK_EQ(bad, 0);
}

int main(void) {
    test_pieces_coalesce_like_elements();
    test_f16_to_double();
    return check_summary();
}
