/* exec_wmma.c — wmma.load / wmma.mma / wmma.store (the CUDA nvcuda::wmma API).
 *
 * Shapes and types: m16n16k16, m32n8k16, m8n32k16 with f16 or bf16 inputs (f16 takes f16 or f32
 * accumulators, bf16 f32), or s8/u8 inputs with s32 accumulators; m16n16k8 with tf32 inputs and f32
 * accumulators. Layouts row/col for A, B, C and D; an optional stride in elements; global, shared or
 * generic addresses.
 *
 * WMMA fragments are opaque in PTX (only their register counts are fixed), so the distribution of
 * elements over lanes is ours, as long as load, mma and store agree: element-wise code on fragments
 * works with any layout, code that assumes one does not port between GPUs either. Ours: a fragment
 * of an R x C matrix holds E = R*C/32 distinct elements per lane, a run of E consecutive elements in
 * fragment order starting at element l*E for lane l: A (M x K) in row-major order, B (K x N) in
 * column-major order (a run along k of one column), C/D (M x N) in row-major order. The PTX register
 * count may hold more element slots than E (f16 A of m16n16k16: 8 registers of 2 halves = 16 slots
 * for 8 elements); slot s then holds distinct element s % E, so the extra slots repeat the first E.
 * Slots fill registers low half first.
 *
 * Memory: element (i, j) of a stored matrix is at p + (i*stride + j)*size (.row) or
 * p + (j*stride + i)*size (.col); the default stride is the leading dimension (columns for .row,
 * rows for .col). The address and stride come from the first executing lane (PTX requires them to be
 * uniform). All 32 lanes' fragments are loaded, computed and stored (.aligned: every lane must take
 * part); registers are written for the executing lanes. A tile that lies in one global allocation or in
 * shared memory is translated once and read or written a run at a time (the whole-tile path below);
 * anything else goes element by element, which reports a fault at the first bad element as always.
 * Numerics: tensor.h. aux (decode.py): bits 0-7 shape, bit 8 layout of load/store (or A layout of
 * mma), bit 9 B layout of mma, bits 16-23 C type of mma; mma's x->type is D's type, x->type2 A's
 * (0 for f16 inputs).
 */
#include "addr.h"
#include "tensor.h"
#include "tc_mac.h"
#include "tc_tile.h"

enum { SHAPE_M16N16K16 = 1, SHAPE_M32N8K16 = 2, SHAPE_M8N32K16 = 3, SHAPE_M16N16K8 = 4 };

typedef struct {
    int rows, cols;        /* the matrix the fragment holds */
    int col_order;         /* 1: runs go down columns (B), 0: along rows */
    int e;                 /* distinct elements per lane */
    int bits, p;           /* element bits, elements per register */
    int rshift, cshift;    /* log2 of rows, cols (every shape's sides are powers of two) */
} frag;

static int mnk(int shape, int *m, int *n, int *k) {
    switch (shape) {
    case SHAPE_M16N16K16: *m = 16; *n = 16; *k = 16; return 1;
    case SHAPE_M32N8K16: *m = 32; *n = 8; *k = 16; return 1;
    case SHAPE_M8N32K16: *m = 8; *n = 32; *k = 16; return 1;
    case SHAPE_M16N16K8: *m = 16; *n = 16; *k = 8; return 1;
    default: return 0;
    }
}

/* the fragment of kind GS_FRAG_A/B/C/D with element type t; 0 if the shape is unknown */
static int frag_of(int shape, int kind, int t, frag *f) {
    int m, n, k;
    if (!mnk(shape, &m, &n, &k)) return 0;
    f->rows = kind == GS_FRAG_A ? m : kind == GS_FRAG_B ? k : m;
    f->cols = kind == GS_FRAG_A ? k : n;
    f->col_order = kind == GS_FRAG_B;
    f->e = f->rows * f->cols / GS_WARP;
    f->bits = tc_bits(t);
    f->p = 32 / f->bits;
    f->rshift = __builtin_ctz((unsigned)f->rows);
    f->cshift = __builtin_ctz((unsigned)f->cols);
    return 1;
}

/* matrix coordinates of distinct element e of lane l */
static inline void frag_coord(const frag *f, int l, int e, int *i, int *j) {
    int idx = l * f->e + e;
    if (f->col_order) { *j = idx >> f->rshift; *i = idx & (f->rows - 1); }
    else { *i = idx >> f->cshift; *j = idx & (f->cols - 1); }
}

/* does a fragment of nregs registers fit f (a whole number of copies of the E elements)? */
static int regs_fit(const frag *f, int nregs) {
    int slots = nregs * f->p;
    return nregs > 0 && slots >= f->e && slots % f->e == 0;
}

/* stride and base address of a load/store (MEM operand at top-level index memi) */
static void mem_args(const gs_warp *w, const gs_xinst *x, uint32_t m, int memi, int strides_at,
                     const frag *f, int col, uint64_t *addr, uint64_t *stride) {
    int first = __builtin_ctz(m);
    *addr = gs_opnd_addr(w, gs_top(x, memi), x->mem_base >= 0 ? (uint32_t)x->mem_base : 0xffffffffu, first);
    if (strides_at >= 0) *stride = (uint32_t)w->R[x->ops[strides_at] + first];
    else *stride = (uint64_t)(col ? f->rows : f->cols);
}

/* remember every element address of this step of a fragment access for the timing model */
static inline void record_tile(gs_ctx *c, const frag *f, int col, uint64_t addr, uint64_t stride, uint64_t es) {
    c->mfrag_base = addr;
    c->mfrag_pitch = stride * es;
    c->mfrag_rows = (uint32_t)(col ? f->cols : f->rows);
    c->mfrag_row_bytes = (uint32_t)((col ? f->rows : f->cols) * es);
    c->mfrag_walk = 0;
}

static inline void record_elements(gs_ctx *c, const gs_warp *w, uint32_t es) {
    c->mext_size = es;
    for (int l = 0; l < GS_WARP && c->nmext < sizeof c->mext / sizeof *c->mext; l++) c->mext[c->nmext++] = w->maddr[l];
}

/* the per-element path: each element of every lane translated and read on its own */
static int load_elements(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m, const frag *fp, int nregs,
                         int col, uint64_t addr, uint64_t stride, uint64_t es) {
    const frag f = *fp;
    uint32_t vals[GS_WARP][16];
    uint64_t first[GS_WARP];
    uint8_t *ptr[GS_WARP];
    for (int e = 0; e < f.e; e++) {
        for (int l = 0; l < GS_WARP; l++) {
            int i, j;
            frag_coord(&f, l, e, &i, &j);
            w->maddr[l] = addr + (col ? (uint64_t)j * stride + (uint64_t)i : (uint64_t)i * stride + (uint64_t)j) * es;
        }
        if (e == 0) memcpy(first, w->maddr, sizeof first);
        record_elements(c, w, (uint32_t)es);
        if (gs_mem_resolve(c, w, x, x->space ? x->space : GS_SPACE_GENERIC, GS_FULL, (uint32_t)es, (uint32_t)es, 0, ptr)) return GS_X_FAULT;
        if (es == 2) {                            /* (a constant size: no library call per lane) */
            for (int l = 0; l < GS_WARP; l++) { uint16_t v; memcpy(&v, ptr[l], 2); vals[l][e] = v; }
        } else if (es == 4) {
            for (int l = 0; l < GS_WARP; l++) { uint32_t v; memcpy(&v, ptr[l], 4); vals[l][e] = v; }
        } else {
            for (int l = 0; l < GS_WARP; l++) vals[l][e] = *ptr[l];
        }
    }
    GS_LANES(m, l, {
        for (int r = 0, s = 0; r < nregs; r++) {  /* s = (r * p + q) % e */
            uint64_t v = 0;
            for (int q = 0; q < f.p; q++) {
                v |= (uint64_t)vals[l][s] << (f.bits * q);
                if (++s == f.e) s = 0;
            }
            w->R[x->ops[r] + l] = v;
        }
    });
    memcpy(w->maddr, first, sizeof first);        /* the lanes' first elements; every element is in c->mext */
    w->msize = (uint8_t)(f.e * es);
    return GS_X_NEXT;
}

/* The driver JIT loads a 16-bit A or B fragment from global (or generic) memory as stored, one 32-bit LDG per
 * lane and pair of elements (8 rows x 16 bytes per request). That is the mma's register layout for A row-major
 * and B column-major; for A column-major and B row-major each 8x8 matrix of it is then transposed in registers
 * by one MOVM.16.MT88 (ptxas -arch=sm_90 on all four layouts: 4 MOVM per 16x16 fragment for each transposed
 * operand, none otherwise; validation/sass/hgemm_wmma.sm90.jit.sass's K loop: 8 LDG.E, 4 MOVM, 2 HMMA). From
 * shared memory the JIT uses LDSM.16.MT88, a transposing load (no MOVM). */
uint32_t gs_wmma_load_movms(const gs_xinst *x) {
    if (x->op != GS_OP_WMMA_LOAD || (x->sub != GS_FRAG_A && x->sub != GS_FRAG_B)) return 0;
    if (x->space != GS_SPACE_GLOBAL && x->space != GS_SPACE_GENERIC && x->space != 0) return 0;
    frag f = {0};
    if (!frag_of((int)(x->aux & 0xff), x->sub, x->type, &f) || f.bits != 16) return 0;
    int col = (x->aux >> 8) & 1;
    int transposed = x->sub == GS_FRAG_A ? col : !col;
    return transposed ? (uint32_t)(f.rows * f.cols / 64) : 0;
}

/* the per-element path: each element of every lane translated and written on its own */
static int store_elements(gs_ctx *c, gs_warp *w, const gs_xinst *x, const frag *fp, int col, uint64_t addr,
                          uint64_t stride, uint64_t es) {
    const frag f = *fp;
    uint64_t first[GS_WARP];
    uint8_t *ptr[GS_WARP];
    for (int e = 0; e < f.e; e++) {
        for (int l = 0; l < GS_WARP; l++) {
            int i, j;
            frag_coord(&f, l, e, &i, &j);
            w->maddr[l] = addr + (col ? (uint64_t)j * stride + (uint64_t)i : (uint64_t)i * stride + (uint64_t)j) * es;
        }
        if (e == 0) memcpy(first, w->maddr, sizeof first);
        record_elements(c, w, (uint32_t)es);
        if (gs_mem_resolve(c, w, x, x->space ? x->space : GS_SPACE_GENERIC, GS_FULL, (uint32_t)es, (uint32_t)es, 1, ptr)) return GS_X_FAULT;
        int r = e / f.p, q = e % f.p;
        const uint64_t *src = w->R + x->ops[1 + r];
        if (es == 2) {                            /* (a constant size: no library call per lane) */
            for (int l = 0; l < GS_WARP; l++) { uint16_t v = (uint16_t)tc_unpack(src[l], 16, q); memcpy(ptr[l], &v, 2); }
        } else if (es == 4) {
            for (int l = 0; l < GS_WARP; l++) { uint32_t v = (uint32_t)src[l]; memcpy(ptr[l], &v, 4); }
        } else {
            for (int l = 0; l < GS_WARP; l++) *ptr[l] = (uint8_t)tc_unpack(src[l], f.bits, q);
        }
    }
    memcpy(w->maddr, first, sizeof first);
    w->msize = (uint8_t)(f.e * es);
    return GS_X_NEXT;
}

/* ---- whole-tile fast path ---------------------------------------------------------------------------
 * Element e of lane l's run is `off[l] + e*step` elements from the tile's base: a run lies along one row
 * (or column) of the matrix, so its elements are 1 apart in memory when the layout stores that row
 * contiguously and `stride` apart otherwise. When the whole tile is aligned and lies in one global
 * allocation or in the CTA's shared memory, one translation serves every element (what gs_mem_resolve
 * would find for each of them), and a run is read or written as a few words; anything else (a fault, a
 * generic address outside global memory, ...) takes the per-element path below, which reports faults in
 * the same order as ever. The results, the records for the timing model and the warp's memory record
 * are the same either way. */
typedef struct {
    uint64_t off[GS_WARP];     /* lane l's first element, in elements from the base */
    uint64_t step;             /* elements between consecutive elements of a run */
    uint64_t span;             /* the farthest element, in elements from the base (the base is the nearest) */
    uint32_t srows, srow_bytes;/* the tile as stored: srows rows of srow_bytes bytes, stride elements apart */
} tile;

static void tile_of(const frag *f, int col, uint64_t stride, uint64_t es, tile *t) {
    /* lane l's first element is idx = l*E of the fragment order (frag_coord): the run's line (row i, or
     * column j of B) idx >> shift and its place in it idx & (line - 1). Stored along that line (the layout
     * matches the order) it is line*stride + place elements from the base, else place*stride + line; the
     * two cases as two loops the compiler vectorises. */
    const uint32_t shift = (uint32_t)(f->col_order ? f->rshift : f->cshift);
    const uint32_t pmask = (uint32_t)(f->col_order ? f->rows : f->cols) - 1, E = (uint32_t)f->e;
    if (f->col_order == col)
        for (uint32_t l = 0; l < GS_WARP; l++) t->off[l] = (uint64_t)((l * E) >> shift) * stride + ((l * E) & pmask);
    else
        for (uint32_t l = 0; l < GS_WARP; l++) t->off[l] = (uint64_t)((l * E) & pmask) * stride + ((l * E) >> shift);
    t->step = f->col_order == col ? 1 : stride;
    t->srows = (uint32_t)(col ? f->cols : f->rows);
    t->srow_bytes = (uint32_t)((col ? f->rows : f->cols) * es);
    t->span = (uint64_t)(t->srows - 1) * stride + (t->srow_bytes / es - 1);
}

/* the host address of device address 0 for the tile at addr (NULL: take the per-element path), with the
 * warp's memory record set as gs_mem_resolve leaves it for each element */
static uint8_t *tile_host(gs_ctx *c, gs_warp *w, int space, uint64_t addr, const tile *t, uint64_t es, int write) {
    if (addr & (es - 1)) return NULL;
    uint64_t span = t->span * es;
    if (t->span >> 40 || addr > UINT64_MAX - span - es) return NULL;
    uint64_t hi = addr + span;                 /* the last element's address */
    int sp = space == GS_SPACE_GENERIC && addr >= GS_GLOBAL_BASE ? GS_SPACE_GLOBAL : space;
    uint8_t *base;
    if (sp == GS_SPACE_GLOBAL) {
        gs_alloc *h = c->hot;
        if (!h || addr < h->base || hi + es > h->base + h->size) h = gs_mem_find(c->dev, addr, span + es);
        if (!h) return NULL;
        c->hot = h;
        base = h->host - h->base;
    } else if (sp == GS_SPACE_SHARED && hi < w->cta->shared_bytes && es <= w->cta->shared_bytes - hi) {
        base = w->cta->shared;
    } else {
        return NULL;
    }
    w->mmask = GS_FULL;
    w->msize = (uint8_t)es;
    w->mwrite = (uint8_t)write;
    w->matomic = 0;
    w->mspace = (uint8_t)sp;
    return base;
}

/* c->mext for the tile at addr: for global memory its pieces (tc_tile.h) where the alignment allows, for
 * shared memory (the bank model takes every address) and otherwise every element in the per-element
 * walk's order, as the per-element path records them */
static void record_tile_elements(gs_ctx *c, const frag *f, int col, uint64_t addr, uint64_t stride, uint32_t es,
                                 const tile *t, int shared) {
    if (!shared) {
        tc_runs r = {f->rows, f->cols, f->col_order, f->e};
        uint32_t pb, n = tc_tile_pieces(&r, col, addr, stride * es, es, c->mext, &pb);
        if (n) {
            c->nmext = n;
            c->mext_size = pb;
            return;
        }
    }
    uint64_t la[GS_WARP], stepb = t->step * es;   /* lane l's element e at la[l] + e * stepb */
    for (int l = 0; l < GS_WARP; l++) la[l] = addr + t->off[l] * es;
    uint64_t *o = c->mext;
    for (int e = 0; e < f->e; e++, o += GS_WARP) {
        for (int l = 0; l < GS_WARP; l++) o[l] = la[l];
        for (int l = 0; l < GS_WARP; l++) la[l] += stepb;
    }
    c->nmext = (uint32_t)f->e * GS_WARP;
    c->mext_size = es;
    /* the walk from addr is fixed by the shape, the layout, the element size and the stride (mfrag_pitch) */
    c->mfrag_walk = 1u | (uint32_t)f->rows << 1 | (uint32_t)f->cols << 7 | (uint32_t)f->col_order << 13 |
                    (uint32_t)col << 14 | es << 15;
}

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type {regs}, [p]{, stride} */
GS_HANDLER(h_wmma_load) {
    frag f = {0};
    frag_of((int)(x->aux & 0xff), x->sub, x->type, &f);
    int col = (x->aux >> 8) & 1;
    int nregs = gs_top(x, 0)->kind == GS_OK_VEC ? gs_top(x, 0)->n : 1;
    uint64_t addr, stride;
    mem_args(w, x, m, 1, x->ir->nopnd == 3 ? nregs + 1 : -1, &f, col, &addr, &stride);
    uint64_t es = (uint64_t)f.bits / 8;
    record_tile(c, &f, col, addr, stride, es);
    tile t;
    tile_of(&f, col, stride, es, &t);
    uint8_t *base = tile_host(c, w, x->space ? x->space : GS_SPACE_GENERIC, addr, &t, es, 0);
    if (!base || nregs > 16) return load_elements(c, w, x, m, &f, nregs, col, addr, stride, es);
    record_tile_elements(c, &f, col, addr, stride, (uint32_t)es, &t, w->mspace == GS_SPACE_SHARED);
    /* register r holds slots r*p .. r*p+p-1: (E is a multiple of p) word r % (E/p) of the run's bytes */
    const uint64_t stepb = t.step * es;
    const int nw = (int)((uint64_t)f.e * es / 4);
    const uint32_t *regs = x->ops;
    uint32_t v[16][GS_WARP];                   /* word k of lane l's run */
    for (int l = 0; l < GS_WARP; l++) {
        const uint8_t *p = base + addr + t.off[l] * es;
        if (stepb == es)
            for (int k = 0; k < nw; k++) memcpy(&v[k][l], p + 4 * k, 4);
        else if (es == 2)
            for (int k = 0; k < nw; k++) {
                uint16_t lo, hi;
                memcpy(&lo, p + (uint64_t)(2 * k) * stepb, 2);
                memcpy(&hi, p + (uint64_t)(2 * k + 1) * stepb, 2);
                v[k][l] = lo | (uint32_t)hi << 16;
            }
        else if (es == 4)
            for (int k = 0; k < nw; k++) memcpy(&v[k][l], p + (uint64_t)k * stepb, 4);
        else
            for (int k = 0; k < nw; k++)
                v[k][l] = p[(uint64_t)(4 * k) * stepb] | (uint32_t)p[(uint64_t)(4 * k + 1) * stepb] << 8 |
                          (uint32_t)p[(uint64_t)(4 * k + 2) * stepb] << 16 | (uint32_t)p[(uint64_t)(4 * k + 3) * stepb] << 24;
    }
    for (int r = 0, k = 0; r < nregs; r++, k = k + 1 == nw ? 0 : k + 1) {
        uint64_t *dst = w->R + regs[r];
        const uint32_t *src = v[k];
        GS_LANES(m, l, dst[l] = src[l]);
    }
    for (int l = 0; l < GS_WARP; l++) w->maddr[l] = addr + t.off[l] * es;   /* the lanes' first elements */
    w->msize = (uint8_t)(f.e * es);
    return GS_X_NEXT;
}

/* wmma.store.d.sync.aligned.layout.shape{.space}.type [p], {regs}{, stride} */
GS_HANDLER(h_wmma_store) {
    frag f = {0};
    frag_of((int)(x->aux & 0xff), GS_FRAG_D, x->type, &f);
    int col = (x->aux >> 8) & 1;
    int nregs = gs_top(x, 1)->kind == GS_OK_VEC ? gs_top(x, 1)->n : 1;
    uint64_t addr, stride;
    mem_args(w, x, m, 0, x->ir->nopnd == 3 ? nregs + 1 : -1, &f, col, &addr, &stride);
    uint64_t es = (uint64_t)f.bits / 8;
    record_tile(c, &f, col, addr, stride, es);
    tile t;
    tile_of(&f, col, stride, es, &t);
    /* stored rows that overlap (a stride below the row) make the order of the writes matter: per element */
    uint8_t *base = t.srows == 1 || stride * es >= t.srow_bytes
                    ? tile_host(c, w, x->space ? x->space : GS_SPACE_GENERIC, addr, &t, es, 1) : NULL;
    if (!base) return store_elements(c, w, x, &f, col, addr, stride, es);
    record_tile_elements(c, &f, col, addr, stride, (uint32_t)es, &t, w->mspace == GS_SPACE_SHARED);
    const uint64_t stepb = t.step * es;
    const int P = f.p;
    const uint32_t *regs = x->ops + 1;
    for (int l = 0; l < GS_WARP; l++) {         /* every lane's registers (.aligned), register r = elements r*p.. */
        uint8_t *p = base + addr + t.off[l] * es;
        if (stepb == es) {
            for (int r = 0; r < nregs; r++) { uint32_t v = (uint32_t)w->R[regs[r] + l]; memcpy(p + 4 * r, &v, 4); }
        } else if (es == 2) {
            for (int r = 0; r < nregs; r++) {
                uint32_t v = (uint32_t)w->R[regs[r] + l];
                uint16_t lo = (uint16_t)v, hi = (uint16_t)(v >> 16);
                memcpy(p + (uint64_t)(2 * r) * stepb, &lo, 2);
                memcpy(p + (uint64_t)(2 * r + 1) * stepb, &hi, 2);
            }
        } else if (es == 4) {
            for (int r = 0; r < nregs; r++) { uint32_t v = (uint32_t)w->R[regs[r] + l]; memcpy(p + (uint64_t)r * stepb, &v, 4); }
        } else {
            for (int r = 0; r < nregs; r++)
                for (int q = 0; q < P; q++) p[(uint64_t)(r * P + q) * stepb] = (uint8_t)(w->R[regs[r] + l] >> (8 * q));
        }
        w->maddr[l] = addr + t.off[l] * es;
    }
    w->msize = (uint8_t)(f.e * es);
    return GS_X_NEXT;
}

/* the distinct elements of every lane of a fragment held in registers regs[], as doubles: for A and C/D in
 * fragment order (lane l's run of E elements at l*E: the matrix row-major), for B (K x N, runs down its
 * columns) transposed to row-major, out[k*n + j], the layout tc_mac_f64 takes. Register r of a lane holds
 * elements r*p .. r*p+p-1 of its run (slots past the first E repeat them and are not read).
 * f16 and f32 go in two steps: every lane's values of one register, converted in a loop the compiler
 * vectorises (an f16 that is not a normal number is redone by gs_h2f), then put in place. */
static void frag_values(const gs_warp *w, const uint32_t *regs, const frag *f, int t, double *out, int n) {
    const int E = f->e, P = f->p, bits = f->bits, nw = E / P;
    ptrdiff_t pos[GS_WARP], d = 1;                /* lane l's element e goes to out[pos[l] + e*d] */
    for (int l = 0; l < GS_WARP; l++) {
        int idx = l * E;
        pos[l] = f->col_order ? (ptrdiff_t)(idx & (f->rows - 1)) * n + (idx >> f->rshift) : idx;
    }
    if (f->col_order) d = n;
    if (t == GS_T_F16) {
        for (int r = 0; r < nw; r++) {
            const uint64_t *src = w->R + regs[r];
            uint64_t lo[GS_WARP], hi[GS_WARP];
            uint32_t odd = 0;
            for (int l = 0; l < GS_WARP; l++) {  /* gs_h2d's normal case, both halves */
                uint64_t v = src[l], a = v & 0xffffu, b = (v >> 16) & 0xffffu;
                lo[l] = ((a & 0x8000u) << 48) | (((a & 0x7fffu) << 42) + ((uint64_t)(1023 - 15) << 52));
                hi[l] = ((b & 0x8000u) << 48) | (((b & 0x7fffu) << 42) + ((uint64_t)(1023 - 15) << 52));
                /* not normal: an exponent field of all ones (adding 1 to it carries into the half's top
                 * bit) or of zeros (so is its complement's); both halves at once */
                uint32_t e = (uint32_t)v & 0x7c007c00u;
                odd |= ((e + 0x04000400u) | ((e ^ 0x7c007c00u) + 0x04000400u)) & 0x80008000u;
            }
            if (odd)
                for (int l = 0; l < GS_WARP; l++) {
                    double x = gs_h2d((uint16_t)src[l]), y = gs_h2d((uint16_t)(src[l] >> 16));
                    memcpy(&lo[l], &x, 8);
                    memcpy(&hi[l], &y, 8);
                }
            for (int l = 0; l < GS_WARP; l++) {
                memcpy(out + pos[l] + 2 * r * d, &lo[l], 8);
                memcpy(out + pos[l] + (2 * r + 1) * d, &hi[l], 8);
            }
        }
    } else if (t == GS_T_F32) {
        for (int r = 0; r < nw; r++) {
            const uint64_t *src = w->R + regs[r];
            double v[GS_WARP];
            for (int l = 0; l < GS_WARP; l++) v[l] = gs_f32((uint32_t)src[l]);
            for (int l = 0; l < GS_WARP; l++) out[pos[l] + r * d] = v[l];
        }
    } else {
        for (int l = 0; l < GS_WARP; l++)
            for (int r = 0; r < nw; r++)
                for (int q = 0; q < P; q++)
                    out[pos[l] + (r * P + q) * d] = tc_value(t, tc_unpack(w->R[regs[r] + l], bits, q));
    }
}

/* wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype{.satfinite} d, a, b, c.
 * The layouts were applied by the loads, so the product ignores them. Each element of D is
 * ((c + a[i][0]*b[0][j]) + a[i][1]*b[1][j]) + ... in double (tc_mac.h), rounded once. */
GS_HANDLER(h_wmma_mma) {
    (void)c;
    int shape = (int)(x->aux & 0xff), M = 0, N = 0, K = 0;
    mnk(shape, &M, &N, &K);
    int dt = x->type, at = x->type2 ? x->type2 : GS_T_F16;
    int ct = (int)((x->aux >> 16) & 0xff);
    if (!ct) ct = dt;
    frag fa = {0}, fb = {0}, fc = {0}, fd = {0};
    frag_of(shape, GS_FRAG_A, at, &fa);
    frag_of(shape, GS_FRAG_B, at, &fb);
    frag_of(shape, GS_FRAG_C, ct, &fc);
    frag_of(shape, GS_FRAG_D, dt, &fd);
    const uint32_t *D = x->ops, *A = D + gs_top(x, 0)->n, *B = A + gs_top(x, 1)->n, *C = B + gs_top(x, 2)->n;
    /* every shape has M*K, K*N <= 512 and M*N = 256 */
    double a[512], bt[512], acc[256];
    frag_values(w, A, &fa, at, a, 0);             /* a[i*K + k] */
    frag_values(w, B, &fb, at, bt, N);            /* bt[k*N + j] */
    frag_values(w, C, &fc, ct, acc, 0);           /* acc[i*N + j] */
    if (dt == GS_T_S32) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int64_t s = (int64_t)acc[i * N + j];
                for (int k = 0; k < K; k++) s += (int64_t)a[i * K + k] * (int64_t)bt[k * N + j];
                acc[i * N + j] = (double)s;
            }
    } else {
        tc_mac_f64(acc, a, bt, M, N, K);
    }
    int sat = (x->flags & GS_F_SAT) != 0;
    int nd = gs_top(x, 0)->n;                     /* nd * p = E: register r holds elements r*p .. r*p+p-1 */
    if (dt == GS_T_F32) {
        for (int r = 0; r < nd; r++) {             /* D in fragment order, like C: lane l's run at l*E */
            uint64_t *dst = w->R + D[r];
            const double *col = acc + r;
            GS_LANES(m, l, dst[l] = tc_f32_bits(col[l * fd.e]));
        }
    } else {
        GS_LANES(m, l, {
            const double *row = acc + l * fd.e;
            for (int r = 0; r < nd; r++) {
                uint64_t v = 0;
                for (int q = 0; q < fd.p; q++) v |= (uint64_t)tc_acc_bits(dt, row[r * fd.p + q], sat) << (fd.bits * q);
                w->R[D[r] + l] = v;
            }
        });
    }
    return GS_X_NEXT;
}

/* ------------------------------------------------------------------ binding */

static int input_type_ok(int shape, int t) {
    if (shape == SHAPE_M16N16K8) return t == GS_T_TF32;
    return t == GS_T_F16 || t == GS_T_BF16 || t == GS_T_S8 || t == GS_T_U8;
}

static int acc_type_ok(int in, int t) {
    if (in == GS_T_F16) return t == GS_T_F16 || t == GS_T_F32;
    if (in == GS_T_S8 || in == GS_T_U8) return t == GS_T_S32;
    return t == GS_T_F32;                     /* bf16, tf32 */
}

static int vec_len(const gs_ir_opnd *o) { return o->kind == GS_OK_VEC ? o->n : 0; }

gs_handler gs_bind_wmma(const gs_xinst *x) {
    int shape = (int)(x->aux & 0xff), M, N, K;
    frag f = {0};
    switch (x->op) {
    case GS_OP_WMMA_LOAD: {
        if (!mnk(shape, &M, &N, &K) || x->ir->nopnd < 2 || x->ir->nopnd > 3) return NULL;
        if (x->sub == GS_FRAG_A || x->sub == GS_FRAG_B) {
            if (!input_type_ok(shape, x->type)) return NULL;
        } else if (x->sub == GS_FRAG_C) {
            if (!(x->type == GS_T_F16 || x->type == GS_T_F32 || x->type == GS_T_S32)) return NULL;
        } else {
            return NULL;
        }
        frag_of(shape, x->sub, x->type, &f);
        if (gs_top(x, 1)->kind != GS_OK_MEM || !regs_fit(&f, vec_len(gs_top(x, 0)))) return NULL;
        return h_wmma_load;
    }
    case GS_OP_WMMA_STORE:
        if (!mnk(shape, &M, &N, &K) || x->sub != GS_FRAG_D || x->ir->nopnd < 2 || x->ir->nopnd > 3) return NULL;
        if (!(x->type == GS_T_F16 || x->type == GS_T_F32 || x->type == GS_T_S32)) return NULL;
        frag_of(shape, GS_FRAG_D, x->type, &f);
        if (gs_top(x, 0)->kind != GS_OK_MEM || vec_len(gs_top(x, 1)) * f.p != f.e) return NULL;
        return h_wmma_store;
    case GS_OP_WMMA_MMA: {
        if (!mnk(shape, &M, &N, &K) || x->ir->nopnd != 4) return NULL;
        int at = x->type2 ? x->type2 : GS_T_F16, ct = (int)((x->aux >> 16) & 0xff);
        if (!ct) ct = x->type;
        if (!input_type_ok(shape, at) || !acc_type_ok(at, x->type) || !acc_type_ok(at, ct)) return NULL;
        int kinds[4] = {GS_FRAG_D, GS_FRAG_A, GS_FRAG_B, GS_FRAG_C}, types[4] = {x->type, at, at, ct};
        for (int i = 0; i < 4; i++) {
            frag_of(shape, kinds[i], types[i], &f);
            int n = vec_len(gs_top(x, i));
            if (i == 0 || i == 3 ? n * f.p != f.e : !regs_fit(&f, n)) return NULL;
        }
        return h_wmma_mma;
    }
    default:
        return NULL;
    }
}
