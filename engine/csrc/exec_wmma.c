/* exec_tensor.c — tensor-core operations. (Seed version: wmma m16n16k16 with f16/bf16 inputs.)
 *
 * WMMA fragments are opaque in PTX: their distribution over lanes is ours to choose as long as load,
 * mma and store agree (element-wise use of fragments is layout-independent). Our m16n16k16 layout:
 *   A (16x16, f16/bf16, 8 regs): lane l holds row l/2, columns (l%2)*8 .. +7 in regs 0-3 (two halves
 *     per reg, low half first); regs 4-7 repeat them (the hardware fragment has 16 halves per lane).
 *   B (16x16): lane l holds column l/2, rows (l%2)*8 .. +7, same packing.
 *   C/D f32 (8 regs): lane l holds row l/2, columns (l%2)*8 .. +7, one per reg.
 *   C/D f16 (4 regs): the same 8 elements, two per reg.
 * aux: bits 0-7 shape code (1 = m16n16k16), bit 8: layout (or A layout) is col, bit 9: B layout col,
 *      bits 16-23: C type (wmma.mma / mma).
 */
#include "exec.h"
#include "fp16.h"

#define SHAPE_M16N16K16 1

static inline float elem_to_f(int t, uint16_t v) { return t == GS_T_BF16 ? gs_bf2f(v) : gs_h2f(v); }
static inline uint16_t f_to_elem(int t, float f) { return t == GS_T_BF16 ? gs_f2bf(f) : gs_f2h(f); }

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type {regs}, [addr]{, stride} */
GS_HANDLER(h_wmma_load) {
    int frag = x->sub;
    int col = (x->aux >> 8) & 1;
    int nregs = x->nops - 1 - (x->ir->nopnd == 3 ? 1 : 0);
    int memi = nregs;                                 /* flat index of the MEM operand */
    uint32_t first = __builtin_ctz(m);
    const uint64_t *base = x->mem_base >= 0 ? w->R + x->mem_base : NULL;
    uint64_t addr0 = (base ? base[first] : 0) + (uint64_t)x->imm;
    uint32_t stride = x->ir->nopnd == 3 ? (uint32_t)w->R[x->ops[memi + 1] + first] : 16;
    int es = (x->type == GS_T_F32 || x->type == GS_T_S32) ? 4 : 2;
    /* element (r, c) of the 16x16 tile is at ((layout row) r*stride + c | (col) c*stride + r) */
    uint8_t *ptr[GS_WARP];
    GS_LANES(GS_FULL, l, {
        int r, c0;
        if (frag == GS_FRAG_B) { r = (l & 1) * 8; c0 = l >> 1; }   /* column c0, rows r.. */
        else { r = l >> 1; c0 = (l & 1) * 8; }
        uint64_t idx = frag == GS_FRAG_B ? (col ? (uint64_t)c0 * stride + r : (uint64_t)r * stride + c0)
                                         : (col ? (uint64_t)c0 * stride + r : (uint64_t)r * stride + c0);
        w->maddr[l] = addr0 + idx * es;
    });
    /* every lane's 8 elements are contiguous when the walk direction matches the layout; check
     * the whole tile's bounds through the first element of each lane and the last of the tile */
    if (gs_mem_resolve(c, w, x, x->space, GS_FULL, (uint32_t)es, (uint32_t)es, 0, ptr)) return GS_X_FAULT;
    uint64_t maddr_save[GS_WARP];
    memcpy(maddr_save, w->maddr, sizeof maddr_save);
    for (int l = 0; l < GS_WARP; l++) {
        int walk_contig = (frag == GS_FRAG_B) ? col : !col;   /* elements along the stored dimension */
        uint64_t step = walk_contig ? (uint64_t)es : (uint64_t)stride * es;
        float vals[8];
        uint32_t raw[8];
        for (int e = 0; e < 8; e++) {
            uint64_t a = maddr_save[l] + e * step;
            w->maddr[0] = a;
            uint8_t *p;
            if (gs_mem_resolve(c, w, x, x->space, 1u, (uint32_t)es, (uint32_t)es, 0, &p)) return GS_X_FAULT;
            if (es == 4) memcpy(&raw[e], p, 4);
            else { uint16_t h; memcpy(&h, p, 2); raw[e] = h; }
            vals[e] = 0;
        }
        (void)vals;
        if (frag == GS_FRAG_A || frag == GS_FRAG_B) {
            for (int k = 0; k < 4; k++) {
                uint64_t v = raw[2 * k] | ((uint64_t)raw[2 * k + 1] << 16);
                if (nregs > k) w->R[x->ops[k] + l] = v;
                if (nregs > k + 4) w->R[x->ops[k + 4] + l] = v;
            }
        } else if (es == 4) {
            for (int k = 0; k < 8 && k < nregs; k++) w->R[x->ops[k] + l] = raw[k];
        } else {
            for (int k = 0; k < 4 && k < nregs; k++) w->R[x->ops[k] + l] = raw[2 * k] | ((uint64_t)raw[2 * k + 1] << 16);
        }
    }
    memcpy(w->maddr, maddr_save, sizeof maddr_save);
    w->mmask = GS_FULL;
    w->msize = 16;
    return GS_X_NEXT;
}

/* wmma.store.d.sync.aligned.layout.shape{.space}.type [addr], {regs}{, stride} */
GS_HANDLER(h_wmma_store) {
    int col = (x->aux >> 8) & 1;
    int nregs = x->nops - 1 - (x->ir->nopnd == 3 ? 1 : 0);
    uint32_t first = __builtin_ctz(m);
    const uint64_t *base = x->mem_base >= 0 ? w->R + x->mem_base : NULL;
    uint64_t addr0 = (base ? base[first] : 0) + (uint64_t)x->imm;
    uint32_t stride = x->ir->nopnd == 3 ? (uint32_t)w->R[x->ops[1 + nregs] + first] : 16;
    int es = x->type == GS_T_F32 || x->type == GS_T_S32 ? 4 : 2;
    uint64_t maddr_save[GS_WARP];
    for (int l = 0; l < GS_WARP; l++) {
        int r = l >> 1, c0 = (l & 1) * 8;
        maddr_save[l] = addr0 + (col ? (uint64_t)c0 * stride + r : (uint64_t)r * stride + c0) * es;
        uint64_t step = col ? (uint64_t)stride * es : (uint64_t)es;
        for (int e = 0; e < 8; e++) {
            uint32_t v = es == 4 ? (uint32_t)w->R[x->ops[1 + e] + l]
                                 : (uint32_t)(w->R[x->ops[1 + e / 2] + l] >> (16 * (e & 1))) & 0xffffu;
            w->maddr[0] = maddr_save[l] + e * step;
            uint8_t *p;
            if (gs_mem_resolve(c, w, x, x->space, 1u, (uint32_t)es, (uint32_t)es, 1, &p)) return GS_X_FAULT;
            if (es == 4) memcpy(p, &v, 4);
            else { uint16_t h = (uint16_t)v; memcpy(p, &h, 2); }
        }
    }
    memcpy(w->maddr, maddr_save, sizeof maddr_save);
    w->mmask = GS_FULL;
    w->msize = 16;
    w->mwrite = 1;
    return GS_X_NEXT;
}

/* wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype d, a, b, c */
GS_HANDLER(h_wmma_mma) {
    (void)c; (void)m;
    int dt = x->type, at = x->type2 ? x->type2 : GS_T_F16;
    int ct = (int)((x->aux >> 16) & 0xff);
    if (!ct) ct = dt;
    int nd = dt == GS_T_F32 ? 8 : 4, nc = ct == GS_T_F32 ? 8 : 4;
    const uint32_t *D = x->ops, *A = x->ops + nd, *B = A + 8, *C = B + 8;
    (void)nc;
    float a[16][16], b[16][16], acc[16][16];
    for (int l = 0; l < GS_WARP; l++) {
        int r = l >> 1, c0 = (l & 1) * 8;
        for (int e = 0; e < 8; e++) {
            uint16_t av = (uint16_t)(w->R[A[e / 2] + l] >> (16 * (e & 1)));
            uint16_t bv = (uint16_t)(w->R[B[e / 2] + l] >> (16 * (e & 1)));
            a[r][c0 + e] = elem_to_f(at, av);
            b[c0 + e][r] = elem_to_f(at, bv);     /* B lane l: column l/2, rows c0.. */
            float cv = ct == GS_T_F32 ? gs_f32(w->R[C[e] + l])
                                      : gs_h2f((uint16_t)(w->R[C[e / 2] + l] >> (16 * (e & 1))));
            acc[r][c0 + e] = cv;
        }
    }
    float out[16][16];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            float s = acc[i][j];
            for (int k = 0; k < 16; k++) s = fmaf(a[i][k], b[k][j], s);
            out[i][j] = s;
        }
    for (int l = 0; l < GS_WARP; l++) {
        int r = l >> 1, c0 = (l & 1) * 8;
        if (dt == GS_T_F32) {
            for (int e = 0; e < 8; e++) w->R[D[e] + l] = gs_bits_f32(out[r][c0 + e]);
        } else {
            for (int k = 0; k < 4; k++)
                w->R[D[k] + l] = (uint64_t)gs_f2h(out[r][c0 + 2 * k]) | ((uint64_t)gs_f2h(out[r][c0 + 2 * k + 1]) << 16);
        }
    }
    return GS_X_NEXT;
}

gs_handler gs_bind_tensor(const gs_xinst *x) {
    int shape = (int)(x->aux & 0xff);
    switch (x->op) {
    case GS_OP_WMMA_LOAD:
        if (shape != SHAPE_M16N16K16) return NULL;
        if (x->sub == GS_FRAG_A || x->sub == GS_FRAG_B)
            return (x->type == GS_T_F16 || x->type == GS_T_BF16) ? h_wmma_load : NULL;
        if (x->sub == GS_FRAG_C) return (x->type == GS_T_F16 || x->type == GS_T_F32) ? h_wmma_load : NULL;
        return NULL;
    case GS_OP_WMMA_STORE:
        return (shape == SHAPE_M16N16K16 && (x->type == GS_T_F16 || x->type == GS_T_F32)) ? h_wmma_store : NULL;
    case GS_OP_WMMA_MMA:
        if (shape != SHAPE_M16N16K16) return NULL;
        if (!(x->type == GS_T_F16 || x->type == GS_T_F32)) return NULL;
        if (x->type2 && !(x->type2 == GS_T_F16 || x->type2 == GS_T_BF16)) return NULL;
        return h_wmma_mma;
    default:
        return NULL;
    }
}
