/* exec_wgmma.c — Hopper's warpgroup MMA: wgmma.mma_async, wgmma.commit_group, wgmma.wait_group
 * (wgmma.fence is a no-op bound in exec_ctrl.c).
 *
 *   wgmma.mma_async.sync.aligned.m64nNk16.{f32,f16}.{f16,bf16}.{f16,bf16}
 *         d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
 *         d, {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b        (A in registers)
 *   wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32       d, a-desc|{a0..a3}, b-desc, scale-d, ±1, ±1
 *   wgmma.mma_async.sync.aligned.m64nNk32.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}   (same operands)
 *   wgmma.mma_async.sync.aligned.m64nNk32.s32.{s8,u8}.{s8,u8}{.satfinite}  d, a-desc|{a0..a3}, b-desc, scale-d
 * D (64 x N) = A (64 x K) * B (K x N) + (scale-d ? D : 0), A and B negated by imm-scale -1.
 *
 * Design: one warp at a time. A warpgroup is 4 consecutive warps of the CTA (warp w of the CTA has
 * rank w % 4 in its group), and the PTX layout of D gives the warp of rank r exactly rows
 * 16r .. 16r+15 of the 64-row tile (and of A in registers, the same rows of A). Those rows of D depend
 * only on the same rows of A and on all of B. So each warp, when it executes the instruction, computes
 * its own 16 x N slice: it reads its 16 rows of A (its registers, or the A descriptor at rows
 * 16r..16r+15) and all of B through the B descriptor, and writes its own accumulator registers. No
 * warp needs another's registers, no cross-warp rendezvous is needed, and the four slices together
 * are the warpgroup's result. The operation "completes" at issue: wgmma.commit_group / wait_group only
 * keep the pending-group count for the timing model; reading shared memory at issue is one legal
 * execution, since PTX forbids changing the operands until the wait.
 *
 * Shared-memory matrix descriptor (64 bits): start address >> 4 in bits 0-13, leading-dimension byte
 * offset (LBO) >> 4 in bits 16-29, stride-dimension byte offset (SBO) >> 4 in bits 32-45, base offset
 * in bits 49-51, swizzle in bits 62-63 (0 none, 1 128B, 2 64B, 3 32B). A is read as 64 x K and B as
 * N x K (both "MN x K"). With W the swizzle width in bytes (16 for none), es the element size, an
 * element (mn, k) is at
 *   K-major (imm-trans 0):  start + (mn % 8)*W + (mn / 8)*SBO + (k*es) % W + ((k*es) / W)*LBO
 *   MN-major, no swizzle:   start + (mn*es) % 16 + ((mn*es) / 16)*SBO + (k % 8)*16 + (k / 8)*LBO
 *   MN-major, swizzled:     start + (mn*es) % W + ((mn*es) / W)*LBO + (k % 8)*W + (k / 8)*SBO
 * (the core matrices and swizzle atoms of PTX's canonical layouts, as CUTLASS's GmmaDescriptor
 * describes them), and a swizzled address then has its 16-byte chunk bits 4.. XORed with bits 7..:
 * addr ^ (((addr >> 7) & (W/16 - 1)) << 4). The swizzle is taken on the absolute shared address, which
 * is what the base offset encodes for atoms not aligned to their repeat; the field is not read.
 * Transposes exist for 16-bit inputs only (PTX).
 * aux (decode.py): bits 0-7 shape code (24 k16, 25 k8, 26 k32), bits 16-23 B type, bits 24-31 N/8.
 */
#include <stdlib.h>
#include "tensor.h"

enum { WG_K16 = 24, WG_K8 = 25, WG_K32 = 26 };

typedef struct {
    uint64_t start, lbo, sbo;
    uint32_t w;             /* swizzle width in bytes; 16: none */
} gdesc;

static gdesc desc_of(uint64_t d) {
    static const uint32_t widths[4] = {16, 128, 64, 32};
    gdesc g = {(d & 0x3fffu) << 4, ((d >> 16) & 0x3fffu) << 4, ((d >> 32) & 0x3fffu) << 4,
               widths[(d >> 62) & 3u]};
    return g;
}

static uint64_t elem_addr(const gdesc *g, int mn, int k, int es, int mn_major) {
    uint64_t a, kb = (uint64_t)k * es, mb = (uint64_t)mn * es, W = g->w;
    if (!mn_major) a = g->start + (uint64_t)(mn % 8) * W + (uint64_t)(mn / 8) * g->sbo + kb % W + (kb / W) * g->lbo;
    else if (W == 16) a = g->start + mb % 16 + (mb / 16) * g->sbo + (uint64_t)(k % 8) * 16 + (uint64_t)(k / 8) * g->lbo;
    else a = g->start + mb % W + (mb / W) * g->lbo + (uint64_t)(k % 8) * W + (uint64_t)(k / 8) * g->sbo;
    return a ^ (((a >> 7) & (W / 16 - 1)) << 4);
}

/* reads rows [row0, row0+rows) x K of the matrix behind descriptor d into out[r][k] (as doubles) */
static int read_desc(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint64_t d, int row0, int rows, int K,
                     int t, int mn_major, double *out) {
    gdesc g = desc_of(d);
    int es = tc_bits(t) / 8;
    uint32_t lim = w->cta->shared_bytes;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < K; k++) {
            uint64_t a = elem_addr(&g, row0 + r, k, es, mn_major);
            if (a + (uint64_t)es > lim)
                return gs_fault_set(c, w, x, GS_FAULT_OOB, -1, a, GS_SPACE_SHARED,
                                    "wgmma: descriptor 0x%016llx reads shared address 0x%llx (element %d, %d) "
                                    "outside the %u bytes of shared memory", (unsigned long long)d,
                                    (unsigned long long)a, row0 + r, k, lim);
            uint32_t v = 0;
            memcpy(&v, w->cta->shared + a, (size_t)es);
            out[r * K + k] = tc_value(t, v);
        }
    return 0;
}

typedef struct {
    int n, k, dt, at, bt;
    int a_regs;             /* 1: A in registers */
    int nd;                 /* D registers */
} wg_form;

static wg_form form_of(const gs_xinst *x) {
    wg_form f;
    int code = (int)(x->aux & 0xff);
    f.k = code == WG_K16 ? 16 : code == WG_K8 ? 8 : code == WG_K32 ? 32 : 0;
    f.n = (int)((x->aux >> 24) & 0xff) * 8;
    f.dt = x->type;
    f.at = x->type2;
    f.bt = (int)((x->aux >> 16) & 0xff);
    f.a_regs = gs_top(x, 1)->kind == GS_OK_VEC;
    f.nd = f.dt == GS_T_F16 ? f.n / 4 : f.n / 2;
    return f;
}

/* the immediate operand at flat index i (lane 0 of its constant slot). The front end may hand an
 * integer immediate of a float-typed instruction over as f32 bits (-1 as 0xbf800000), so the sign is
 * read from bit 31 and non-zero means "set", which both encodings agree on. */
static inline uint64_t imm_at(const gs_warp *w, const gs_xinst *x, int i) { return w->R[x->ops[i]]; }
static inline int imm_negative(const gs_warp *w, const gs_xinst *x, int i) { return (int)((imm_at(w, x, i) >> 31) & 1u); }

GS_HANDLER(h_wgmma) {
    wg_form f = form_of(x);
    int rank = w->idx % 4, first = __builtin_ctz(m);
    int nt = x->ir->nopnd;
    const uint32_t *D = x->ops;
    int ai = f.nd, na = f.a_regs ? 4 : 1;           /* flat index of A, registers it spans */
    int bi = ai + na, si = bi + 1;                  /* B descriptor, scale-d */
    int scale_d = gs_top(x, 3)->kind == GS_OK_PRED ? (int)((gs_pred(w, x->ops[si]) >> first) & 1u)
                                                   : imm_at(w, x, si) != 0;
    int sixteen = f.at == GS_T_F16 || f.at == GS_T_BF16;
    int has_scales = nt >= 6;
    double sa = has_scales && imm_negative(w, x, si + 1) ? -1.0 : 1.0;
    double sb = has_scales && imm_negative(w, x, si + 2) ? -1.0 : 1.0;
    int trans_a = sixteen && !f.a_regs && nt == 8 && imm_at(w, x, si + 3) != 0;
    int trans_b = sixteen && (nt == 8 || (nt == 7 && f.a_regs)) && imm_at(w, x, x->nops - 1) != 0;
    double a[16 * 32];
    double *b = malloc(sizeof(double) * (size_t)f.n * (size_t)f.k);
    double *acc = malloc(sizeof(double) * 16 * (size_t)f.n);
    int res = GS_X_NEXT;
    if (!b || !acc) {
        res = gs_fault_set(c, w, x, GS_FAULT_INVALID, -1, 0, 0, "wgmma: out of host memory");
        goto done;
    }
    if (f.a_regs) {
        int bits = tc_bits(f.at), p = 32 / bits;
        for (int l = 0; l < GS_WARP; l++)
            for (int j = 0; j < 4; j++)
                for (int e = 0; e < p; e++) {
                    int r, col;
                    tc_a_coord(l, j, e, p, &r, &col);
                    a[r * f.k + col] = tc_value(f.at, tc_unpack(w->R[D[ai + j] + l], bits, e));
                }
    } else if (read_desc(c, w, x, w->R[x->ops[ai] + first], 16 * rank, 16, f.k, f.at, trans_a, a)) {
        res = GS_X_FAULT;
        goto done;
    }
    if (read_desc(c, w, x, w->R[x->ops[bi] + first], 0, f.n, f.k, f.bt, trans_b, b)) {
        res = GS_X_FAULT;
        goto done;
    }
    int packed = f.dt == GS_T_F16;
    for (int l = 0; l < GS_WARP; l++)
        for (int i = 0; i < f.nd; i++) {
            int r, col;
            tc_acc_coord(l, i, packed, &r, &col);
            uint64_t v = w->R[D[i] + l];
            if (packed) {
                acc[r * f.n + col] = scale_d ? tc_value(GS_T_F16, v & 0xffffu) : 0.0;
                acc[r * f.n + col + 1] = scale_d ? tc_value(GS_T_F16, (v >> 16) & 0xffffu) : 0.0;
            } else {
                acc[r * f.n + col] = scale_d ? tc_value(f.dt, (uint32_t)v) : 0.0;
            }
        }
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < f.n; n++) {
            const double *ar = a + r * f.k, *bn = b + (size_t)n * (size_t)f.k;
            if (f.dt == GS_T_S32) {                         /* exact integer sum */
                int64_t s = (int64_t)acc[r * f.n + n];
                for (int k = 0; k < f.k; k++) s += (int64_t)ar[k] * (int64_t)bn[k];
                acc[r * f.n + n] = (double)s;
            } else {
                double s = acc[r * f.n + n];
                for (int k = 0; k < f.k; k++) s += (sa * ar[k]) * (sb * bn[k]);
                acc[r * f.n + n] = s;
            }
        }
    int sat = (x->flags & GS_F_SAT) != 0;
    GS_LANES(m, l, {
        for (int i = 0; i < f.nd; i++) {
            int r, col;
            tc_acc_coord(l, i, packed, &r, &col);
            const double *v = acc + r * f.n + col;
            w->R[D[i] + l] = packed ? (uint64_t)tc_acc_bits(GS_T_F16, v[0], 0) |
                                          ((uint64_t)tc_acc_bits(GS_T_F16, v[1], 0) << 16)
                                    : tc_acc_bits(f.dt, v[0], sat);
        }
    });
done:
    free(b);
    free(acc);
    return res;
}

GS_HANDLER(h_wg_commit) {
    (void)c; (void)x; (void)m;
    w->wg_pending++;
    return GS_X_NEXT;
}

GS_HANDLER(h_wg_wait) {
    (void)c; (void)m;
    int32_t n = (int32_t)w->R[x->ops[0]];
    if (w->wg_pending > n) w->wg_pending = n;
    return GS_X_NEXT;
}

/* operand count PTX gives each form: d, a, b, scale-d, then the immediates */
static int wg_nopnd(const wg_form *f) {
    if (f->at == GS_T_S8 || f->at == GS_T_U8) return 4;
    if (f->at == GS_T_F16 || f->at == GS_T_BF16) return f->a_regs ? 7 : 8;
    return 6;
}

static int wg_types_ok(const wg_form *f) {
    switch (f->k) {
    case 16:
        if (!((f->at == GS_T_F16 || f->at == GS_T_BF16) && f->bt == f->at)) return 0;
        return f->dt == GS_T_F32 || (f->dt == GS_T_F16 && f->at == GS_T_F16);
    case 8:
        return f->at == GS_T_TF32 && f->bt == GS_T_TF32 && f->dt == GS_T_F32;
    case 32:
        if ((f->at == GS_T_E4M3 || f->at == GS_T_E5M2) && (f->bt == GS_T_E4M3 || f->bt == GS_T_E5M2))
            return f->dt == GS_T_F32 || f->dt == GS_T_F16;
        return (f->at == GS_T_S8 || f->at == GS_T_U8) && (f->bt == GS_T_S8 || f->bt == GS_T_U8) &&
               f->dt == GS_T_S32;
    default:
        return 0;
    }
}

gs_handler gs_bind_wgmma(const gs_xinst *x) {
    switch (x->op) {
    case GS_OP_WGMMA_COMMIT: return x->ir->nopnd == 0 ? h_wg_commit : NULL;
    case GS_OP_WGMMA_WAIT: return x->ir->nopnd == 1 && gs_top(x, 0)->kind == GS_OK_IMM ? h_wg_wait : NULL;
    case GS_OP_WGMMA_MMA: break;
    default: return NULL;
    }
    if (x->ir->nopnd < 4) return NULL;
    wg_form f = form_of(x);
    if (!f.k || f.n < 8 || f.n > 256 || !wg_types_ok(&f)) return NULL;
    if (x->ir->nopnd != wg_nopnd(&f)) return NULL;
    const gs_ir_opnd *d = gs_top(x, 0), *a = gs_top(x, 1), *b = gs_top(x, 2), *s = gs_top(x, 3);
    if (d->kind != GS_OK_VEC || d->n != f.nd) return NULL;
    if (f.a_regs ? a->n != 4 : a->kind != GS_OK_REG) return NULL;
    if (b->kind != GS_OK_REG || !(s->kind == GS_OK_PRED || s->kind == GS_OK_IMM)) return NULL;
    for (int i = 4; i < x->ir->nopnd; i++)
        if (gs_top(x, i)->kind != GS_OK_IMM) return NULL;
    return h_wgmma;
}
