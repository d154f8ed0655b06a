/* internal.h — types shared by the engine's C modules (not part of the public interface).
 *
 * Data layout (see engine/README.md):
 *  - a warp's registers are one array of 64-bit slots, lane-minor: R[slot * 32 + lane]. The first
 *    nconst slots of every warp hold the program's immediates broadcast to all lanes, so every source
 *    operand is a register read (no immediate/register branch in handlers; exec.h's gs_src reads those
 *    slots from the program's copy, prog->const_regs, which stays in the host cache);
 *  - predicates are one 32-bit lane mask per predicate register: P[p];
 *  - instructions are decoded once into gs_xinst: handler pointer, operand slots resolved to offsets.
 */
#ifndef GS_INTERNAL_H
#define GS_INTERNAL_H
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include "simtscope.h"

#define GS_WARP 32
#define GS_FULL 0xffffffffu
#define GS_MAX_STACK 64       /* SIMT reconvergence stack depth */
#define GS_MAX_CALL 32        /* call depth */
#define GS_MAX_BARRIERS 16

/* Generic address windows (generic addressing: cvta, ld/st without a state space). */
#define GS_SHARED_WINDOW 0x01000000ull
#define GS_LOCAL_WINDOW  0x02000000ull
#define GS_CONST_WINDOW  0x03000000ull
#define GS_PARAM_WINDOW  0x04000000ull
#define GS_WINDOW_SIZE   0x01000000ull
#define GS_GLOBAL_BASE   0x100000000ull  /* first device allocation (4 GiB, above 32-bit range) */

typedef struct gs_warp gs_warp;
typedef struct gs_cta gs_cta;
typedef struct gs_ctx gs_ctx;
typedef struct gs_xinst gs_xinst;

/* Handler result: what the warp does next. */
enum gs_xres {
    GS_X_NEXT = 0,    /* pc + 1 */
    GS_X_JUMPED,      /* the handler moved the pc / stack itself */
    GS_X_BLOCKED,     /* warp now waits (barrier); pc already advanced */
    GS_X_FAULT        /* ctx->fault filled */
};

typedef int (*gs_handler)(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m);


#define GS_MAX_XOPS 8   /* resolved operand slots kept inline; larger lists go to ops */
struct gs_xinst {
    gs_handler fn;
    const gs_ir_inst *ir;     /* the original record */
    uint32_t o[GS_MAX_XOPS];  /* resolved operands: register offset (slot*32), pred index, sreg id */
    const uint32_t *ops;      /* all resolved operands in flat order (vector elements expanded) */
    const gs_ir_opnd *irops;  /* the operand records (top-level, as in the IR) */
    uint16_t nops;            /* flat operand count */
    uint16_t op;
    uint8_t type, type2, space, sub, rnd, cmp, vec, unit;
    uint32_t flags;
    int32_t guard;            /* predicate index or -1 */
    uint8_t guard_neg;
    int32_t target, rpc;
    uint32_t aux;
    int64_t imm;              /* memory offset of the MEM operand, if any */
    int32_t mem_base;         /* register offset of the MEM base, or -1 */
    uint8_t mem32;            /* the base register is 32-bit: the address arithmetic wraps at 2^32 */
    /* timing: registers written and read (slot numbers; constants excluded), predicates */
    uint8_t ndst, nsrc;
    int32_t dst_slot[4], src_slot[6];
    int32_t dst_pred, src_pred;
    const uint32_t *rd, *wr;  /* all register slots read / written (vector elements, address bases) */
    uint16_t nrd, nwr;
    int16_t prd[4], pwr[2];   /* predicates read (guard included) / written, -1 = none */
    uint32_t line;
};

struct gs_program {
    gs_xinst *x;
    uint32_t ninsts;
    gs_ir_inst *ir;
    gs_ir_opnd *opnds;
    uint32_t nopnds;
    uint32_t *flat;           /* storage for gs_xinst.ops */
    uint32_t *sb;             /* storage for gs_xinst.rd / wr */
    gs_ir_func *funcs;
    uint32_t nfuncs;
    uint32_t nconst;          /* constant slots at the start of every register file */
    uint64_t *const_regs;     /* nconst * 32 values */
    uint32_t max_func_regs;   /* slots needed by .func bodies (numbered after entries) */
    uint32_t max_func_preds;
    uint8_t *const_bank;
    uint32_t const_bytes;
    struct gs_tsrc *trace;    /* trace-driven kernel (trace_src.c): warps take their instructions from it */
    gs_sass_cost *sass;       /* per instruction, or NULL (gs_program_set_sass) */
    uint32_t *sass_regs;      /* per function: ptxas's registers per thread, 0 = unknown */
    /* per function f, the register slots a CTA start clears (livein.h): runs clr_first[f] .. clr_first[f + 1] - 1
     * of clr_runs; NULL: every slot */
    struct gs_slot_run *clr_runs;
    uint32_t *clr_first;
};

/* One global-memory allocation, backed by an anonymous mapping (pages materialise on first touch). */
typedef struct gs_alloc {
    uint64_t base, size;
    uint8_t *host;
} gs_alloc;

struct gs_device {
    gs_alloc *allocs;          /* sorted by base */
    uint32_t nallocs, cap;
    uint64_t next_base;
    uint64_t allocated;
};

/* SIMT stack entry: execute from pc with mask until pc reaches rpc. */
typedef struct gs_simt {
    int32_t pc, rpc;
    uint32_t mask;
    int32_t call_depth;        /* call depth when pushed (reconvergence inside one frame) */
} gs_simt;

enum gs_wstate { GS_W_READY = 0, GS_W_BAR, GS_W_DONE };

/* Field order: what every step reads or writes first, with the reconvergence stack (its first entry in
 * the same host cache line), the lane addresses on lines of their own; cta.c allocates warps on host
 * cache lines (a warp's state is cold whenever it issues: other SMs ran in between). */
struct gs_warp {
    uint64_t *R;               /* (nconst + nregs) * 32 */
    uint32_t *P;               /* npreds masks */
    gs_cta *cta;
    int32_t sp;                /* entries in stack */
    uint32_t live;             /* lanes that exist and have not exited */
    int32_t state;             /* enum gs_wstate */
    /* last memory access (for the timing model): per-lane addresses of the active lanes (maddr) */
    uint32_t mmask;
    uint8_t msize, mspace, mwrite, matomic;
    uint32_t carry;            /* carry flag (CC.CF) per lane as a mask (add.cc, addc, subc, madc) */
    gs_simt stack[GS_MAX_STACK];
    int32_t calls[GS_MAX_CALL];/* return pcs */
    int32_t ncalls;
    uint32_t exited;
    int32_t bar_id;            /* barrier waited on */
    uint32_t bar_mask;         /* lanes of this warp that arrived at it (deadlock reports) */
    int32_t bar_dst;           /* bar.red destination: register offset or predicate index */
    int32_t bar_red_kind;      /* 0: none, 1: popc into a register, 2: and/or into a predicate */
    int32_t idx;               /* warp index in CTA */
    uint8_t *local;            /* 32 * local_bytes, lane-major */
    uint64_t insts;            /* warp instructions executed */
    uint32_t cp_groups_pending; /* cp.async groups committed and not waited (done at issue here) */
    int32_t wg_pending;        /* wgmma groups */
    uint32_t tid_base;         /* linear thread index of lane 0 */
    _Alignas(64) uint64_t maddr[GS_WARP];
    uint32_t tid[3 * GS_WARP]; /* per-lane tid.x, tid.y, tid.z */
};

typedef struct gs_barrier {
    uint32_t arrived;          /* threads arrived */
    uint32_t expected;         /* 0: all live threads of the CTA */
    int32_t red_op;            /* bar.red: GS_ATOM_ADD (popc), GS_ATOM_AND, GS_ATOM_OR; 0 none */
    uint32_t red_val;          /* popc: count; and/or: 0 or 1 */
} gs_barrier;

struct gs_cta {
    uint32_t id[3];
    uint32_t linear;           /* linear CTA index */
    gs_warp *warps;
    uint32_t nwarps;
    uint32_t nthreads;
    uint32_t live_threads;
    uint32_t warps_done;
    uint8_t *shared;
    uint32_t shared_bytes;
    uint32_t local_bytes;
    gs_barrier bars[GS_MAX_BARRIERS];
    uint32_t bars_armed;       /* bit b: bars[b].arrived != 0 (gs_cta_thread_exit looks at those only) */
    uint32_t *bar_wait;        /* per warp: barrier id + 1 when waiting, 0 else */
    int32_t sm;                /* SM it runs on */
    uint64_t mbar_phase;       /* unused placeholder for mbarrier bookkeeping */
};

/* Global atomics whose memory update is applied later, in a fixed order (the timing model's memory
 * phase: SMs simulated on several threads must not race on global memory). Entries are packed:
 * gs_atomq_head, then per lane of `mask` the host pointer and the operands (n values, then cas). */
typedef struct gs_atomq {
    uint8_t *data;
    size_t used, cap;
    int oom;                   /* an entry could not be queued (out of host memory) */
} gs_atomq;
typedef struct gs_atomq_head {
    gs_warp *w;
    const gs_xinst *x;
    uint32_t mask;
    uint32_t bytes;            /* the whole entry */
} gs_atomq_head;
/* Applies the queued atomics in order (their old values go to the destination registers) and empties
 * the queue. */
void gs_atomq_apply(gs_atomq *q);

/* Everything a handler may need besides the warp. */
struct gs_ctx {
    gs_device *dev;
    gs_program *prog;
    const gs_launch_desc *ld;
    const uint8_t *params;
    uint32_t param_bytes;
    int32_t func;
    uint32_t nregs_total;      /* slots per lane in a warp register file (with constants) */
    uint32_t npreds;
    uint64_t clock;            /* %clock source: cycle (timing) or executed warp instructions */
    uint32_t smid;
    gs_fault *fault;
    bool faulted;
    gs_func_stats *stats;      /* may be NULL */
    gs_alloc *hot;             /* last global allocation hit (fast path) */
    gs_atomq *defer_atomics;   /* non-NULL: global-memory lanes of atom/red are queued here (gs_atomq_apply) */
    /* Accesses whose footprint is not one contiguous range per lane (wmma fragments): every element
     * address (or, from global memory, the tile's aligned pieces: tc_tile.h), for the timing model's
     * coalescer and bank model (nmext = 0: use the lanes' records). */
    uint64_t mext[1024];
    uint32_t nmext;
    uint32_t mext_size;
    /* the same access as the tile it reads or writes: mfrag_rows rows of mfrag_row_bytes bytes, mfrag_pitch
     * bytes apart from mfrag_base (the rows as stored: columns for a column-major fragment) */
    uint64_t mfrag_base, mfrag_pitch;
    uint32_t mfrag_rows, mfrag_row_bytes;
    /* nonzero: mext holds every element of the tile in the fragment walk's order, from mfrag_base with
     * mfrag_pitch, and this is the walk's geometry (exec_wmma.c): the addresses relative to the base follow
     * from the two (the bank model keeps its answers by them) */
    uint32_t mfrag_walk;
};

/* ---- lane loops: full-mask path the compiler vectorises, sparse path over set bits ---- */
#define GS_LANES(m, l, ...) GS_LANES_HINT(m, l, , __VA_ARGS__)
/* the same with `hint` (e.g. a _Pragma) placed before the full-mask loop */
#define GS_LANES_HINT(m, l, hint, ...)                                             \
    do {                                                                           \
        if ((m) == GS_FULL) {                                                      \
            hint                                                                   \
            for (int l = 0; l < GS_WARP; l++) { __VA_ARGS__; }                     \
        } else {                                                                   \
            for (uint32_t _mm = (m); _mm; _mm &= _mm - 1) {                        \
                int l = __builtin_ctz(_mm);                                        \
                __VA_ARGS__;                                                       \
            }                                                                      \
        }                                                                          \
    } while (0)

#define GS_REG(w, off) ((w)->R + (off))

/* ---- shared helpers (exec_common.c) ---- */
int gs_fault_set(gs_ctx *c, gs_warp *w, const gs_xinst *x, int kind, int lane, uint64_t addr,
                 int space, const char *fmt, ...);
const char *gs_type_name(int t);
const char *gs_space_name(int s);
int gs_type_bits(int t);
int gs_type_is_float(int t);
int gs_type_is_signed(int t);
uint64_t gs_sreg_read(gs_ctx *c, gs_warp *w, int sreg, int lane);

/* memory (mem.c): translate an address for one lane to a host pointer, or NULL after a fault */
uint8_t *gs_mem_lane(gs_ctx *c, gs_warp *w, const gs_xinst *x, int space, uint64_t addr,
                     uint32_t size, int lane);
gs_alloc *gs_mem_find(gs_device *dev, uint64_t addr, uint64_t size);
/* Translate the addresses already in w->maddr (lanes m, `size` bytes each, `size` a power of two
 * for the alignment check, or pass align) into host pointers; records the access for the timing
 * model (w->mmask, msize, mspace, mwrite). Returns 0, or GS_X_FAULT with the fault filled. */
/* exec_wmma.c: the MOVM.16.MT88 the JIT adds to a wmma.load (a transposed 16-bit A or B fragment from
 * global/generic memory: one per 8x8 matrix), 0 for every other instruction */
uint32_t gs_wmma_load_movms(const gs_xinst *x);
int gs_mem_resolve(gs_ctx *c, gs_warp *w, const gs_xinst *x, int space, uint32_t m, uint32_t size,
                   uint32_t align, int write, uint8_t **ptr);

/* warp control (warp.c) */
void gs_warp_exit_lanes(gs_warp *w, uint32_t m);
int gs_warp_step(gs_ctx *c, gs_warp *w);
int gs_warp_next_pc_slow(const gs_warp *w);
/* the pc the warp runs next (popping finished reconvergence entries), or -1 when it has none */
static inline int gs_warp_next_pc(const gs_warp *w) {
    if (w->sp > 0) {
        const gs_simt *t = &w->stack[w->sp - 1];
        if (t->mask != 0 && t->pc != t->rpc) return t->pc;
    }
    return gs_warp_next_pc_slow(w);
}

/* launches (func_run.c), shared with the timing model */
int gs_launch_validate(gs_program *prog, const gs_launch_desc *d, uint32_t param_bytes, gs_fault *f);
void gs_ctx_setup(gs_ctx *c, gs_device *dev, gs_program *prog, const gs_launch_desc *d,
                  const uint8_t *params, uint32_t param_bytes, gs_fault *fault, gs_func_stats *stats);

/* CTA (cta.c) */
int gs_cta_init(gs_cta *cta, gs_ctx *c, const uint32_t id[3], gs_fault *fault);
void gs_cta_free(gs_cta *cta);
int gs_cta_barrier_arrive(gs_ctx *c, gs_cta *cta, gs_warp *w, int bar, uint32_t expected,
                          uint32_t count, int arrive_only);
void gs_cta_thread_exit(gs_ctx *c, gs_cta *cta, uint32_t nthreads);
int gs_cta_check_deadlock(gs_ctx *c, gs_cta *cta);

/* handler binding: each exec_*.c file offers a binder; returns NULL if it does not handle x.
 * Binders may read the IR fields copied into x (op, type, type2, space, sub, rnd, cmp, vec, flags,
 * aux, guard) and x->irops / x->ir->nopnd, x->ir->ndst; not the resolved operands (o, ops), which
 * gs_inst_supported does not compute. */
gs_handler gs_bind_int(const gs_xinst *x);
gs_handler gs_bind_bits(const gs_xinst *x);
gs_handler gs_bind_half(const gs_xinst *x);
gs_handler gs_bind_simd(const gs_xinst *x);
gs_handler gs_bind_sfu(const gs_xinst *x);
gs_handler gs_bind_float(const gs_xinst *x);
gs_handler gs_bind_cmp(const gs_xinst *x);
gs_handler gs_bind_cvt(const gs_xinst *x);
gs_handler gs_bind_move(const gs_xinst *x);
gs_handler gs_bind_mem(const gs_xinst *x);
gs_handler gs_bind_ctrl(const gs_xinst *x);
gs_handler gs_bind_warp(const gs_xinst *x);
gs_handler gs_bind_atomic(const gs_xinst *x);
gs_handler gs_bind_wmma(const gs_xinst *x);
gs_handler gs_bind_mma(const gs_xinst *x);
gs_handler gs_bind_ldmatrix(const gs_xinst *x);
gs_handler gs_bind_wgmma(const gs_xinst *x);
gs_handler gs_bind_async(const gs_xinst *x);

#endif
