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
#include "tensor.h"
#include "tc_mac.h"

enum { WG_K16 = 24, WG_K8 = 25, WG_K32 = 26 };

typedef struct {
    uint64_t start, lbo, sbo;
    uint32_t w;             /* swizzle width in bytes; 16: none */
    uint32_t lw;            /* log2 of w */
} gdesc;

static gdesc desc_of(uint64_t d) {
    static const uint32_t lws[4] = {4, 7, 6, 5};
    uint32_t lw = lws[(d >> 62) & 3u];
    gdesc g = {(d & 0x3fffu) << 4, ((d >> 16) & 0x3fffu) << 4, ((d >> 32) & 0x3fffu) << 4, 1u << lw, lw};
    return g;
}

static inline uint64_t swizzle(const gdesc *g, uint64_t a) { return a ^ (((a >> 7) & (g->w / 16 - 1)) << 4); }

static inline uint64_t elem_addr(const gdesc *g, int mn, int k, int es, int mn_major) {
    uint64_t a, kb = (uint64_t)k * es, mb = (uint64_t)mn * es, W = g->w, lw = g->lw;
    if (!mn_major) a = g->start + ((uint64_t)(mn & 7) << lw) + (uint64_t)(mn >> 3) * g->sbo + (kb & (W - 1)) + (kb >> lw) * g->lbo;
    else if (W == 16) a = g->start + (mb & 15) + (mb >> 4) * g->sbo + (uint64_t)(k & 7) * 16 + (uint64_t)(k >> 3) * g->lbo;
    else a = g->start + (mb & (W - 1)) + (mb >> lw) * g->lbo + ((uint64_t)(k & 7) << lw) + (uint64_t)(k >> 3) * g->sbo;
    return swizzle(g, a);
}

/* The element at (mn, k) is read at out[mn * sr + k * sk] (row-major A: sr = K, sk = 1; B transposed to
 * K x N: sr = 1, sk = N), times `scale` (an exact sign change, applied as the multiply it always was).
 * Numbers are converted by tc_value, and by the host's F16C instructions for f16 where the CPU has them
 * (the same exact conversion, eight at a time). */

/* Column n of the f32/s32 accumulator tile is kept at col_perm(n, 1): within each block of 8 columns the
 * even ones first, then the odd ones (n = 8j + 2t + p at 8j + 4p + t), so that the 4 lanes t of one
 * group hold 4 adjacent doubles of one register (acc_read / acc_write move them 4 at a time). B's
 * columns are stored in the same order; the product does not care how columns are ordered. */
static inline int col_perm(int n, int perm) {
    return perm ? (n & ~7) | ((n & 1) << 2) | ((n >> 1) & 3) : n;
}

/* reference reader: element by element, with the exact message for the first element outside shared
 * memory. Used when a 16-byte run of the fast reader below does not lie whole inside shared memory. */
static int read_desc_elems(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint64_t d, int row0, int rows, int K,
                           int t, int mn_major, int perm, double scale, double *out, int sr, int sk) {
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
            out[col_perm(r, perm) * sr + k * sk] = scale * tc_value(t, v);
        }
    return 0;
}

#if defined(__x86_64__)
#include <immintrin.h>
/* eight f16 at p to doubles: exactly gs_h2f (signalling NaNs come out quiet with their payload) */
__attribute__((target("avx,f16c"))) static void h8_f16c(const uint8_t *p, double *v) {
    __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
    _mm256_storeu_pd(v, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(v + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
}
#else
static void h8_f16c(const uint8_t *p, double *v) { (void)p; (void)v; }
#endif

/* the 16 bytes at p as 16/es elements of type t */
static inline int chunk_values(const uint8_t *p, int t, int f16c, double *v) {
    switch (t) {
    case GS_T_F16:
        if (f16c) h8_f16c(p, v);
        else for (int j = 0; j < 8; j++) { uint16_t h; memcpy(&h, p + 2 * j, 2); v[j] = gs_h2f(h); }
        return 8;
    case GS_T_BF16:
        for (int j = 0; j < 8; j++) { uint16_t h; memcpy(&h, p + 2 * j, 2); v[j] = gs_bf2f(h); }
        return 8;
    case GS_T_TF32:
        for (int j = 0; j < 4; j++) { uint32_t u; memcpy(&u, p + 4 * j, 4); v[j] = tc_value(t, u); }
        return 4;
    default:                                    /* 8-bit: fp8, s8, u8 */
        for (int j = 0; j < 16; j++) v[j] = tc_value(t, p[j]);
        return 16;
    }
}

/* Reads rows [row0, row0+rows) x K of the matrix behind descriptor d. Every layout above keeps 16
 * aligned bytes of the contiguous dimension (k when K-major, mn when MN-major) together, swizzle
 * included (the swizzle moves whole 16-byte chunks), so the address is computed and bounds-checked
 * once per 16-byte run. */
static int read_desc(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint64_t d, int row0, int rows, int K,
                     int t, int mn_major, int perm, double scale, double *out, int sr, int sk) {
    gdesc g = desc_of(d);
    int es = tc_bits(t) / 8, per = 16 / es, f16c = t == GS_T_F16 && gs_host_f16c();
    uint64_t lim = w->cta->shared_bytes;
    const uint8_t *sh = w->cta->shared;
    double v[4][32];
    if (!mn_major) {
        /* a row's K elements are two 16-byte runs (K * es = 32 bytes in every form) */
        uint64_t off[2];
        for (int h = 0; h < 2; h++) off[h] = ((uint64_t)(16 * h) & (g.w - 1)) + ((uint64_t)(16 * h) >> g.lw) * g.lbo;
        /* rows in fours: r0 + q * dr, q < 4, whose elements of one k are 4 adjacent doubles of B^T
         * (col_perm puts rows 8j + p + 2q at 8j + 4p + q) */
        int dr = perm ? 2 : 1;
        for (int gi = 0; gi < rows / 4; gi++) {
            int r0 = perm ? 8 * (gi >> 1) + (gi & 1) : 4 * gi;
            for (int q = 0; q < 4; q++) {
                int mn = row0 + r0 + q * dr;
                uint64_t base = g.start + ((uint64_t)(mn & 7) << g.lw) + (uint64_t)(mn >> 3) * g.sbo;
                for (int h = 0; h < 2; h++) {
                    uint64_t a = swizzle(&g, base + off[h]);
                    if (a + 16 > lim) goto slow;
                    chunk_values(sh + a, t, f16c, v[q] + h * per);
                }
            }
            if (scale != 1.0)                   /* (1.0 * x is x for every value read here) */
                for (int q = 0; q < 4; q++)
                    for (int k = 0; k < K; k++) v[q][k] *= scale;
            if (sr == 1) {                      /* B, transposed: element (n, k) at out[k * sk + col_perm(n)] */
                double *o = out + 4 * gi;
                for (int k = 0; k < K; k++)
                    for (int q = 0; q < 4; q++) o[k * sk + q] = v[q][k];
            } else {                            /* A, row-major */
                for (int q = 0; q < 4; q++) memcpy(out + (r0 + q) * sr, v[q], sizeof(double) * (size_t)K);
            }
        }
    } else {
        for (int k = 0; k < K; k++)
            for (int r0 = 0; r0 < rows; r0 += per) {
                uint64_t a = elem_addr(&g, row0 + r0, k, es, 1);
                if (a + 16 > lim) goto slow;
                chunk_values(sh + a, t, f16c, v[0]);
                double *o = out + k * sk;
                int n = rows - r0 < per ? rows - r0 : per;
                for (int j = 0; j < n; j++) o[col_perm(r0 + j, perm) * sr] = scale * v[0][j];
            }
    }
    return 0;
slow:
    return read_desc_elems(c, w, x, d, row0, rows, K, t, mn_major, perm, scale, out, sr, sk);
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

/* The accumulator fragment (tc_acc_coord) of one warp, g = l/4, t = l%4: for f32/s32, register
 * i = 4j + 2h + p of lane l holds element (g + 8h, 8j + 2t + p), kept in acc at column 8j + 4p + t
 * (col_perm); for packed f16, register i = 2j + h holds the pair (g + 8h, 8j + 2t .. 8j + 2t + 1). Either
 * way the lanes 4g .. 4g+3 of one register hold a run of adjacent doubles of one row of acc (4 or 8),
 * so a register moves in 8 runs. */
static inline double *acc_run(double *acc, int N, int i, int g, int packed) {
    if (packed) return acc + (size_t)(g + 8 * (i & 1)) * N + 8 * (i >> 1);
    return acc + (size_t)(g + 8 * ((i >> 1) & 1)) * N + 8 * (i >> 2) + 4 * (i & 1);
}

/* four lanes' f32 slots (low 32 bits of each 64-bit slot) to doubles and back (round to nearest, as a
 * (float) cast), four at a time with GCC's generic vectors */
typedef uint64_t v4u64 __attribute__((vector_size(32), aligned(8)));
typedef uint32_t v4u32 __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32), aligned(8)));
static inline void f32x4_to_f64(const uint64_t *R, double *o) {
    v4u32 lo = __builtin_convertvector(*(const v4u64 *)R, v4u32);
    *(v4d *)o = __builtin_convertvector((v4f)lo, v4d);
}
static inline void f64x4_to_f32(const double *o, uint64_t *R) {
    v4u32 u = (v4u32)__builtin_convertvector(*(const v4d *)o, v4f);
    v4u32 nan = (v4u32)((u & 0x7fffffffu) > 0x7f800000u);  /* NaN: canonical, as tc_f32_bits */
    u = (u & ~nan) | (0x7fffffffu & nan);
    *(v4u64 *)R = __builtin_convertvector(u, v4u64);
}

static void acc_read(const gs_warp *w, const uint32_t *D, int nd, int N, int dt, double *acc) {
    int packed = dt == GS_T_F16;
    for (int i = 0; i < nd; i++)
        for (int g = 0; g < 8; g++) {
            const uint64_t *R = w->R + D[i] + 4 * g;
            double *o = acc_run(acc, N, i, g, packed);
            if (packed)
                for (int t = 0; t < 4; t++) {
                    o[2 * t] = gs_h2f((uint16_t)R[t]);
                    o[2 * t + 1] = gs_h2f((uint16_t)(R[t] >> 16));
                }
            else if (dt == GS_T_S32)
                for (int t = 0; t < 4; t++) o[t] = (int32_t)R[t];
            else
                f32x4_to_f64(R, o);
        }
}

static void acc_write(gs_warp *w, const uint32_t *D, int nd, int N, int dt, int sat, uint32_t m,
                      double *acc) {
    int packed = dt == GS_T_F16;
    for (int i = 0; i < nd; i++)
        for (int g = 0; g < 8; g++) {
            uint32_t gm = (m >> (4 * g)) & 15u;
            if (!gm) continue;
            uint64_t *R = w->R + D[i] + 4 * g;
            const double *o = acc_run(acc, N, i, g, packed);
            if (gm == 15u && !packed && dt != GS_T_S32) {
                f64x4_to_f32(o, R);
                continue;
            }
            for (int t = 0; t < 4; t++) {
                if (!(gm >> t & 1u)) continue;
                if (packed) R[t] = (uint64_t)gs_f2h((float)o[2 * t]) | ((uint64_t)gs_f2h((float)o[2 * t + 1]) << 16);
                else R[t] = tc_acc_bits(dt, o[t], sat);
            }
        }
}

/* per thread, the operand tiles of one warp's 16 x N slice (64 KiB of B at N = 256, K = 32) */
typedef struct {
    double a[16 * 32], b[32 * 256], acc[16 * 256];
} wg_tiles;
static _Thread_local wg_tiles tiles;
__attribute__((noinline)) static wg_tiles *my_tiles(void) { return &tiles; }

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
    wg_tiles *T = my_tiles();
    double *a = T->a, *b = T->b, *acc = T->acc;     /* a: 16 x K, b: K x N (transposed), acc: 16 x N */
    if (f.a_regs) {
        int bits = tc_bits(f.at), p = 32 / bits;
        for (int l = 0; l < GS_WARP; l++)
            for (int j = 0; j < 4; j++)
                for (int e = 0; e < p; e++) {
                    int r, col;
                    tc_a_coord(l, j, e, p, &r, &col);
                    a[r * f.k + col] = sa * tc_value(f.at, tc_unpack(w->R[D[ai + j] + l], bits, e));
                }
    } else if (read_desc(c, w, x, w->R[x->ops[ai] + first], 16 * rank, 16, f.k, f.at, trans_a, 0, sa, a, f.k, 1)) {
        return GS_X_FAULT;
    }
    if (read_desc(c, w, x, w->R[x->ops[bi] + first], 0, f.n, f.k, f.bt, trans_b, f.dt != GS_T_F16, sb, b, 1, f.n))
        return GS_X_FAULT;
    if (!scale_d) memset(acc, 0, sizeof(double) * 16 * (size_t)f.n);
    else acc_read(w, D, f.nd, f.n, f.dt, acc);
    /* s8/u8: products below 2^16 and sums below 2^53 are exact integers in double, so this is the
     * exact integer sum the s32 rounding (wrap or satfinite) needs */
    tc_mac_f64(acc, a, b, 16, f.n, f.k);
    acc_write(w, D, f.nd, f.n, f.dt, (x->flags & GS_F_SAT) != 0, m, acc);
    return GS_X_NEXT;
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
