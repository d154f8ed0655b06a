/* exec_mma.c — mma.sync.aligned.m16n8kK.row.col: the warp-level matrix multiply whose register
 * fragments PTX specifies exactly (so code mixing ldmatrix, mma and register math works).
 *
 *   mma.sync.aligned.m16n8k8.row.col.dtype.{f16,bf16}.{f16,bf16}.ctype   d, a, b, c   (d/c: f16 or f32)
 *   mma.sync.aligned.m16n8k16.row.col.dtype.{f16,bf16}...ctype          d, a, b, c
 *   mma.sync.aligned.m16n8k4/k8.row.col.f32.tf32.tf32.f32                d, a, b, c
 *   mma.sync.aligned.m16n8k16/k32.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32
 *   mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32
 * (bf16 takes only f32 accumulators.) The fragment layouts are in tensor.h (tc_a_coord, tc_b_coord,
 * tc_acc_coord); numerics are described there too.
 *
 * mma is .aligned: PTX requires all 32 lanes to execute it. The product is computed from every lane's
 * registers (as the hardware reads them) and written to the executing lanes.
 * aux (decode.py): bits 0-7 shape, 16-23 C type, 24-31 B type; x->type = D type, x->type2 = A type.
 */
#include "tensor.h"

#define SHAPE_M16N8K8 6
#define SHAPE_M16N8K16 7
#define SHAPE_M16N8K4 8
#define SHAPE_M16N8K32 10

typedef struct {
    int k, at, bt, ct, dt;
    int na, nb, nc, nd;        /* registers per fragment */
} mma_form;

static int mma_k(int shape) {
    switch (shape) {
    case SHAPE_M16N8K4: return 4;
    case SHAPE_M16N8K8: return 8;
    case SHAPE_M16N8K16: return 16;
    case SHAPE_M16N8K32: return 32;
    default: return 0;
    }
}

static mma_form form_of(const gs_xinst *x) {
    mma_form f;
    f.k = mma_k((int)(x->aux & 0xff));
    f.dt = x->type;
    f.at = x->type2;
    f.bt = (int)((x->aux >> 24) & 0xff);
    f.ct = (int)((x->aux >> 16) & 0xff);
    int pa = 32 / tc_bits(f.at), pb = 32 / tc_bits(f.bt ? f.bt : f.at);
    f.na = f.k / (2 * pa);
    f.nb = f.k / (4 * pb);
    f.nc = f.ct == GS_T_F16 ? 2 : 4;
    f.nd = f.dt == GS_T_F16 ? 2 : 4;
    return f;
}

GS_HANDLER(h_mma) {
    (void)c;
    mma_form f = form_of(x);
    int bt = f.bt ? f.bt : f.at;
    int abits = tc_bits(f.at), bbits = tc_bits(bt), pa = 32 / abits, pb = 32 / bbits;
    const uint32_t *D = x->ops, *A = D + f.nd, *B = A + f.na, *C = B + f.nb;
    double a[16][32], b[32][8], acc[16][8];
    for (int l = 0; l < GS_WARP; l++) {
        int r, cc;
        for (int j = 0; j < f.na; j++)
            for (int e = 0; e < pa; e++) {
                tc_a_coord(l, j, e, pa, &r, &cc);
                a[r][cc] = tc_value(f.at, tc_unpack(w->R[A[j] + l], abits, e));
            }
        for (int j = 0; j < f.nb; j++)
            for (int e = 0; e < pb; e++) {
                tc_b_coord(l, j, e, pb, &r, &cc);
                b[r][cc] = tc_value(bt, tc_unpack(w->R[B[j] + l], bbits, e));
            }
        int cp = f.ct == GS_T_F16;
        for (int i = 0; i < f.nc; i++) {
            tc_acc_coord(l, i, cp, &r, &cc);
            uint64_t v = w->R[C[i] + l];
            if (cp) { acc[r][cc] = tc_value(GS_T_F16, v & 0xffffu); acc[r][cc + 1] = tc_value(GS_T_F16, (v >> 16) & 0xffffu); }
            else acc[r][cc] = tc_value(f.ct, (uint32_t)v);
        }
    }
    int isint = f.dt == GS_T_S32;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            if (isint) {                        /* exact: |sum| < 2^31 * 2 + 32 * 2^16 */
                int64_t s = (int64_t)acc[i][j];
                for (int kk = 0; kk < f.k; kk++) s += (int64_t)a[i][kk] * (int64_t)b[kk][j];
                acc[i][j] = (double)s;
            } else {
                double s = acc[i][j];
                for (int kk = 0; kk < f.k; kk++) s += a[i][kk] * b[kk][j];
                acc[i][j] = s;
            }
        }
    int sat = (x->flags & GS_F_SAT) != 0, dp = f.dt == GS_T_F16;
    GS_LANES(m, l, {
        int r, cc;
        for (int i = 0; i < f.nd; i++) {
            tc_acc_coord(l, i, dp, &r, &cc);
            if (dp) w->R[D[i] + l] = tc_acc_bits(GS_T_F16, acc[r][cc], 0) |
                                     ((uint64_t)tc_acc_bits(GS_T_F16, acc[r][cc + 1], 0) << 16);
            else w->R[D[i] + l] = tc_acc_bits(f.dt, acc[r][cc], sat);
        }
    });
    return GS_X_NEXT;
}

/* registers in top-level operand i (a vector's length, or 1) */
static int top_len(const gs_xinst *x, int i) {
    const gs_ir_opnd *o = gs_top(x, i);
    return o->kind == GS_OK_VEC ? o->n : 1;
}

static int valid_types(const mma_form *f) {
    int at = f->at, bt = f->bt ? f->bt : f->at;
    int f16ish = at == GS_T_F16 || at == GS_T_BF16;
    int acc_f = (f->dt == GS_T_F32 || f->dt == GS_T_F16) && f->ct == f->dt;   /* ptxas: no mixing */
    if (f16ish) {
        if (bt != at || (f->k != 8 && f->k != 16)) return 0;
        if (at == GS_T_BF16) return f->dt == GS_T_F32 && f->ct == GS_T_F32;
        return acc_f;
    }
    if (at == GS_T_TF32) return bt == at && (f->k == 4 || f->k == 8) && f->dt == GS_T_F32 && f->ct == GS_T_F32;
    if (at == GS_T_S8 || at == GS_T_U8)
        return (bt == GS_T_S8 || bt == GS_T_U8) && (f->k == 16 || f->k == 32) && f->dt == GS_T_S32 &&
               f->ct == GS_T_S32;
    if (at == GS_T_E4M3 || at == GS_T_E5M2)
        return (bt == GS_T_E4M3 || bt == GS_T_E5M2) && f->k == 32 && f->dt == GS_T_F32 && f->ct == GS_T_F32;
    return 0;
}

gs_handler gs_bind_mma(const gs_xinst *x) {
    if (x->op != GS_OP_MMA || x->ir->nopnd != 4) return NULL;
    mma_form f = form_of(x);
    if (!f.k || !f.at || !valid_types(&f)) return NULL;
    if ((x->aux & (1u << 12)) && ((x->aux >> 8) & 3u) != 2u) return NULL;   /* only .row.col */
    if (top_len(x, 0) != f.nd || top_len(x, 1) != f.na || top_len(x, 2) != f.nb || top_len(x, 3) != f.nc)
        return NULL;
    return h_mma;
}
