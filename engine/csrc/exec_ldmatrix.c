/* exec_ldmatrix.c — ldmatrix and stmatrix: warp-collective moves of 8x8 b16 matrices between shared
 * memory and registers, in the layout mma expects.
 *
 *   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 {r0[, r1[, r2, r3]]}, [p]
 *   stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 [p], {r0[, r1[, r2, r3]]}
 * Matrix i (of 1, 2 or 4) has its 8 rows at the addresses held by lanes 8i .. 8i+7 (row r from lane
 * 8i + r); a row is 16 contiguous bytes (8 b16 elements), 16-byte aligned. In register i, lane l holds
 * the elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix i, the first in the low half; with .trans
 * it holds (2(l%4), l/4) and (2(l%4)+1, l/4) instead. Without a state space the address is generic.
 * Like mma, these are .aligned (all 32 lanes must execute them): the addresses come from the lanes
 * named above whether or not they execute, ldmatrix writes the executing lanes, stmatrix stores the
 * registers of every lane.
 * aux (decode.py): bits 0-7 shape (16 = m8n8), bits 10-11: 0 x1, 1 x2, 2 x4.
 */
#include "addr.h"

#define SHAPE_M8N8 16

/* the 8 row pointers of each matrix (rows[i][r]), resolved from the address lanes */
static int resolve_rows(gs_ctx *c, gs_warp *w, const gs_xinst *x, int nmat, int write, uint8_t *rows[4][8]) {
    uint32_t lanes = nmat == 4 ? GS_FULL : (1u << (8 * nmat)) - 1u;
    gs_lane_addrs(w, x, lanes);
    uint8_t *ptr[GS_WARP];
    int space = x->space ? x->space : GS_SPACE_GENERIC;
    if (gs_mem_resolve(c, w, x, space, lanes, 16, 16, write, ptr)) return GS_X_FAULT;
    for (int i = 0; i < nmat; i++)
        for (int r = 0; r < 8; r++) rows[i][r] = ptr[8 * i + r];
    return 0;
}

static inline void coord(int l, int trans, int e, int *r, int *col) {
    int a = l >> 2, b = 2 * (l & 3) + e;
    *r = trans ? b : a;
    *col = trans ? a : b;
}

GS_HANDLER(h_ldmatrix) {
    int nmat = 1 << ((x->aux >> 10) & 3);
    int trans = (x->flags & GS_F_TRANS) != 0;
    uint8_t *rows[4][8];
    if (resolve_rows(c, w, x, nmat, 0, rows)) return GS_X_FAULT;
    uint32_t out[4][GS_WARP];
    for (int i = 0; i < nmat; i++)
        for (int l = 0; l < GS_WARP; l++) {
            uint32_t v = 0;
            for (int e = 0; e < 2; e++) {
                int r, col;
                coord(l, trans, e, &r, &col);
                uint16_t h;
                memcpy(&h, rows[i][r] + 2 * col, 2);
                v |= (uint32_t)h << (16 * e);
            }
            out[i][l] = v;
        }
    for (int i = 0; i < nmat; i++) {
        uint64_t *d = gs_opr(w, x, i);
        GS_LANES(m, l, d[l] = out[i][l]);
    }
    return GS_X_NEXT;
}

GS_HANDLER(h_stmatrix) {
    int nmat = 1 << ((x->aux >> 10) & 3);
    int trans = (x->flags & GS_F_TRANS) != 0;
    uint8_t *rows[4][8];
    if (resolve_rows(c, w, x, nmat, 1, rows)) return GS_X_FAULT;
    for (int i = 0; i < nmat; i++) {
        const uint64_t *s = gs_opr(w, x, 1 + i);
        for (int l = 0; l < GS_WARP; l++)
            for (int e = 0; e < 2; e++) {
                int r, col;
                coord(l, trans, e, &r, &col);
                uint16_t h = (uint16_t)(s[l] >> (16 * e));
                memcpy(rows[i][r] + 2 * col, &h, 2);
            }
    }
    return GS_X_NEXT;
}

gs_handler gs_bind_ldmatrix(const gs_xinst *x) {
    if (x->op != GS_OP_LDMATRIX && x->op != GS_OP_STMATRIX) return NULL;
    if ((x->aux & 0xff) != SHAPE_M8N8 || x->type != GS_T_B16) return NULL;
    int xs = (int)((x->aux >> 10) & 3);
    if (xs > 2) return NULL;
    if (x->space && x->space != GS_SPACE_SHARED) return NULL;
    int ld = x->op == GS_OP_LDMATRIX;
    const gs_ir_opnd *regs = gs_top(x, ld ? 0 : 1), *mem = gs_top(x, ld ? 1 : 0);
    int n = regs->kind == GS_OK_VEC ? regs->n : 1;
    if (mem->kind != GS_OK_MEM || n != (1 << xs)) return NULL;
    return ld ? h_ldmatrix : h_stmatrix;
}
