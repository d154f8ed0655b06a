/* test_arena.c — the simulator's huge-page arena (arena.h): blocks are zeroed, on whole host cache lines, do not
 * overlap, come back zeroed from their size class's free list, and reserved room is handed out without a new
 * chunk. Built and run by tests/test_c_units.py. */
#include <stdint.h>
#include <string.h>
#include "arena.h"
#include "check.h"

static int all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) if (p[i]) return 0;
    return 1;
}

static void test_blocks(void) {
    gs_arena a;
    gs_arena_init(&a);
    static const size_t sizes[] = {1, 63, 64, 65, 200, 4096, 65536, 100000};
    unsigned char *p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = gs_arena_zalloc(&a, sizes[i]);
        CHECK(p[i] != NULL);
        CHECK_EQ((uintptr_t)p[i] % 64, 0);
        CHECK(gs_arena_cap(sizes[i]) >= sizes[i] && gs_arena_cap(sizes[i]) < 2 * sizes[i] + 64);
        CHECK(all_zero(p[i], gs_arena_cap(sizes[i])));
        memset(p[i], 0xa5, gs_arena_cap(sizes[i]));
    }
    for (int i = 0; i < 8; i++)                          /* no overlaps: each still holds only its own bytes */
        for (int j = 0; j < 8; j++)
            if (i != j) CHECK(p[i] + gs_arena_cap(sizes[i]) <= p[j] || p[j] + gs_arena_cap(sizes[j]) <= p[i]);
    CHECK_EQ(a.nchunks, 1);
    /* a block given back comes back, zeroed, for a request of its class */
    gs_arena_free(&a, p[5], sizes[5]);
    unsigned char *q = gs_arena_zalloc(&a, 4000);
    CHECK(q == p[5]);
    CHECK(all_zero(q, 4096));
    gs_arena_free(&a, NULL, 10);
    /* reserved room: the next blocks need no new chunk; a block larger than a chunk gets one of its own */
    CHECK(gs_arena_reserve(&a, (size_t)6 << 20) == 0);
    uint32_t n = a.nchunks;
    for (int i = 0; i < 6; i++) CHECK(gs_arena_zalloc(&a, (size_t)1 << 20) != NULL);
    CHECK_EQ(a.nchunks, n);
    unsigned char *big = gs_arena_zalloc(&a, (size_t)20 << 20);
    CHECK(big != NULL && all_zero(big, (size_t)20 << 20));
    CHECK_EQ(a.nchunks, n + 1);
    gs_arena_destroy(&a);
}

int main(void) {
    test_blocks();
    return check_summary();
}
