/* trace_read.h — streaming reader of Accel-Sim kernel traces (.traceg): header, thread blocks, and the
 * static instructions (one per distinct PC) the timing model runs them as. See docs/traces.md.
 *
 * The reader's state and block types, shared by its modules: trace_read.c (open, close, thread blocks),
 * trace_lex.c (errors, lines, tokens, numbers), trace_header.c (the header), trace_inst.c (an
 * instruction line), trace_pcs.c (the per-PC table), and by trace_src.c, which runs the blocks.
 *
 * Memory: the reader holds one buffer of input, the per-PC table of the kernel, and whatever thread
 * blocks its caller asks it to fill (the trace source keeps one per CTA slot in flight).
 */
#ifndef GS_TRACE_READ_H
#define GS_TRACE_READ_H
#include "internal.h"

#define GS_TR_RSLOTS 256          /* R0..R255 (R255 is RZ: never a dependence) */
#define GS_TR_URSLOTS 64          /* UR0..UR63 follow them */
#define GS_TR_PREDS 16            /* P0..P7, UP0..UP7 */

/* one dynamic warp instruction of a block */
typedef struct gs_trrec {
    uint32_t idx;                 /* static instruction (program index) */
    uint32_t mask;                /* active lanes */
    uint64_t aoff;                /* memory instructions: first address in the block's address array, one per
                                   * active lane; with GS_TR_AFFINE, two words there: base and stride (the
                                   * k-th active lane's address is base + k * stride). Else UINT64_MAX */
} gs_trrec;
#define GS_TR_AFFINE (1ull << 62)

typedef struct gs_trwarp {
    uint64_t first;               /* first record */
    uint32_t n, pos;              /* records, next to issue */
    uint32_t expected;            /* `insts =` */
    uint32_t seen;                /* warp line seen */
} gs_trwarp;

typedef struct gs_trblock {
    uint32_t id[3];
    uint32_t nwarps;
    gs_trwarp *warps;
    uint32_t cap_warps;
    gs_trrec *recs;
    size_t nrecs, cap_recs;
    uint64_t *addrs;
    size_t naddrs, cap_addrs;
    uint32_t arrived, alive;      /* trace-mode barrier: warps waiting, warps not finished */
} gs_trblock;

/* static facts of one PC */
typedef struct gs_trpc {
    uint64_t pc;
    char *text;                   /* "OPCODE.MODS Rd, Ra, Rb" */
    uint8_t kind, space, width, unknown;
    /* the bytes of its first line from after the active mask to the end of the width token: a later line
     * of this PC that has them too is the same static instruction (trace_inst.c's fast path) */
    uint16_t tail_len, tail_width;
    char *tail;
} gs_trpc;

struct gs_trace {
    int fd;
    char name[512];
    char *buf;
    size_t cap, lo, hi;
    int eof, in_tb;               /* in_tb: #BEGIN_TB already consumed by the header parser */
    uint64_t line;
    gs_trace_header hdr;
    gs_trace_opinfo *ops;
    uint32_t nops;
    uint32_t flags;
    /* the kernel as a program: grows as new PCs appear */
    gs_program prog;
    gs_ir_func func;
    gs_trpc *pcs;
    uint32_t cap_x;
    int32_t *pcmap;               /* (pc >> pc_shift) -> index + 1 */
    size_t pcmap_len;
    uint32_t pc_shift;
    uint64_t unknown_insts;
    char unknown_names[256];
    uint64_t blocks_read, insts_read;
    gs_trblock scratch;           /* gs_trace_next_block's block */
    int failed;
    char err[600];
};

/* the per-lane addresses of record r (its active lanes' entries of out[32]); returns the first active
 * lane's address (0 without active lanes) */
static inline uint64_t gs_trrec_addrs(const gs_trblock *b, const gs_trrec *r, uint64_t *out) {
    uint64_t off = r->aoff & ~GS_TR_AFFINE;
    const uint64_t *a = b->addrs + off;
    uint32_t m = r->mask;
    if (!m) return 0;
    if (r->aoff & GS_TR_AFFINE) {
        uint64_t base = a[0], stride = a[1], x = base;
        for (; m; m &= m - 1, x += stride) out[__builtin_ctz(m)] = x;
        return base;
    }
    uint32_t k = 0;
    for (; m; m &= m - 1) out[__builtin_ctz(m)] = a[k++];
    return a[0];
}

/* Contract: *p (an array of *cap elements of elem bytes) holds at least need; 0, or -1 out of memory
 * (*p as it was). Capacities start at 64 and double. */
int gs_tr_grow_slow(void **p, size_t *cap, size_t need, size_t elem);
static inline int gs_tr_grow(void **p, size_t *cap, size_t need, size_t elem) {
    return need <= *cap ? 0 : gs_tr_grow_slow(p, cap, need, elem);
}

/* Contract: parses the next thread block into b (its storage is reused); 1: a block, 0: end of the
 * trace, -1: error (t->err names file, line and what is wrong). */
int gs_trace_read_block(gs_trace *t, gs_trblock *b);
void gs_trblock_free(gs_trblock *b);
/* trace_src.c: the trace-driven source a launch attached to the trace's program */
void gs_tsrc_free(struct gs_tsrc *src);

#endif
