/* exec_half.c — f16, bf16, f16x2 and bf16x2 arithmetic: add, sub, mul, fma/mad (.rn, .ftz, .sat,
 * .relu), min/max (.ftz, .NaN, .xorsign.abs), neg, abs. The x2 forms apply the operation to the low
 * and the high 16-bit halves independently.
 *
 * Exactness: operands are decoded exactly to double. a*b is exact in double (11+11 or 8+8 significand
 * bits, exponents far inside double's range). Sums use gs_odd_sum (round-to-odd), so the final
 * gs_fmt_round to 16 bits is the one correct rounding of the exact result in every mode: no double
 * rounding. (For f16 a + b is even exact in double; bf16 sums may span ~260 bits, hence round-to-odd.)
 * NaN results are the canonical 0x7fff. .ftz (f16 only) flushes subnormal inputs and results.
 */
#include "exec_alu.h"
#include "fp16.h"

enum { H_ADD, H_SUB, H_MUL, H_FMA, H_MIN, H_MAX, H_NEG, H_ABS };

typedef struct hmode {
    const gs_fmt *fmt;
    int op, rnd, ftz, sat, relu, nan, xorsign;
} hmode;

static inline double hdec(uint32_t v, const hmode *h) {
    if (h->ftz) v = gs_fmt_ftz(v, h->fmt);
    return gs_fmt_decode(v, h->fmt);
}

static inline double hmin(double a, double b, int is_max) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return (signbit(a) != 0) == is_max ? b : a;
    return (a < b) != is_max ? a : b;
}

/* one 16-bit element */
static uint32_t helem(const hmode *h, uint32_t ua, uint32_t ub, uint32_t uc) {
    const gs_fmt *f = h->fmt;
    if (h->op == H_NEG || h->op == H_ABS) {
        /* a NaN operand gives the canonical NaN (measured on an H200) */
        if ((ua & 0x7fffu) > (f == &GS_FMT_BF16 ? 0x7f80u : 0x7c00u)) return f->nan;
        if (h->ftz) ua = gs_fmt_ftz(ua, f);
        return h->op == H_NEG ? ua ^ 0x8000u : ua & 0x7fffu;
    }
    double a = hdec(ua, h), b = hdec(ub, h), r;
    switch (h->op) {
    case H_ADD: r = gs_odd_sum(a, b); break;
    case H_SUB: r = gs_odd_sum(a, -b); break;
    case H_MUL: r = a * b; break;
    case H_FMA: r = gs_odd_sum(a * b, hdec(uc, h)); break;
    default: {
        int is_max = h->op == H_MAX;
        uint32_t sign = (ua ^ ub) & 0x8000u;
        if (h->xorsign) { a = fabs(a); b = fabs(b); }
        r = hmin(a, b, is_max);
        if (r != r || (h->nan && (a != a || b != b))) return f->nan;
        uint32_t bits = gs_fmt_round(r, f, GS_RND_RN, 0);   /* exact: r is an input */
        return h->xorsign ? (bits & 0x7fffu) | sign : bits;
    }
    }
    if (r != r) return h->sat ? 0 : f->nan;                  /* .sat turns NaN into +0 */
    if (h->sat) r = gs_sat64(r);
    uint32_t bits = gs_fmt_round(r, f, h->rnd, 0);
    if (h->ftz) bits = gs_fmt_ftz(bits, f);
    if (h->relu && (bits & 0x8000u)) bits = 0;      /* negative (incl. -0) -> +0; NaN handled above */
    return bits;
}

GS_HANDLER(h_half) {
    (void)c;
    int two = x->type == GS_T_F16X2 || x->type == GS_T_BF16X2;
    hmode h = {(x->type == GS_T_BF16 || x->type == GS_T_BF16X2) ? &GS_FMT_BF16 : &GS_FMT_F16, 0,
               x->rnd == GS_RND_NONE ? GS_RND_RN : x->rnd, (x->flags & GS_F_FTZ) != 0,
               (x->flags & GS_F_SAT) != 0, (x->flags & GS_F_RELU) != 0, (x->flags & GS_F_NAN) != 0,
               (x->flags & GS_F_XORSIGN) != 0};
    switch (x->op) {
    case GS_OP_ADD: h.op = H_ADD; break;
    case GS_OP_SUB: h.op = H_SUB; break;
    case GS_OP_MUL: h.op = H_MUL; break;
    case GS_OP_FMA: case GS_OP_MAD: h.op = H_FMA; break;
    case GS_OP_MIN: h.op = H_MIN; break;
    case GS_OP_MAX: h.op = H_MAX; break;
    case GS_OP_NEG: h.op = H_NEG; break;
    default: h.op = H_ABS; break;
    }
    int nsrc = x->nops - 1;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, 1);
    const uint64_t *pb = nsrc > 1 ? gs_src(w, x, 2) : pa, *pc = nsrc > 2 ? gs_src(w, x, 3) : pa;
    GS_LANES(m, l, {
        uint32_t a = (uint32_t)pa[l], b = (uint32_t)pb[l], cc = (uint32_t)pc[l];
        uint32_t r = helem(&h, a & 0xffff, b & 0xffff, cc & 0xffff);
        if (two) r |= helem(&h, a >> 16, b >> 16, cc >> 16) << 16;
        d[l] = r;
    });
    return GS_X_NEXT;
}

gs_handler gs_bind_half(const gs_xinst *x) {
    int t = x->type;
    int bf = t == GS_T_BF16 || t == GS_T_BF16X2;
    if (t != GS_T_F16 && t != GS_T_F16X2 && !bf) return NULL;
    uint32_t f = x->flags;
    int rnd = x->rnd;
    if (bf && (f & GS_F_FTZ)) return NULL;                       /* bf16 has no .ftz forms */
    switch (x->op) {
    case GS_OP_ADD: case GS_OP_SUB: case GS_OP_MUL:
        if (rnd != GS_RND_NONE && rnd != GS_RND_RN) return NULL;
        if (f & ~(GS_F_FTZ | GS_F_SAT)) return NULL;
        return h_half;
    case GS_OP_FMA: case GS_OP_MAD:
        if (rnd != GS_RND_RN && !(x->op == GS_OP_MAD && rnd == GS_RND_NONE)) return NULL;
        if (f & ~(GS_F_FTZ | GS_F_SAT | GS_F_RELU)) return NULL;
        if ((f & GS_F_SAT) && (f & GS_F_RELU)) return NULL;
        return h_half;
    case GS_OP_MIN: case GS_OP_MAX:
        if (rnd != GS_RND_NONE || (f & ~(GS_F_FTZ | GS_F_NAN | GS_F_XORSIGN | GS_F_ABS))) return NULL;
        if (((f & GS_F_XORSIGN) != 0) != ((f & GS_F_ABS) != 0)) return NULL;
        return h_half;
    case GS_OP_NEG: case GS_OP_ABS:
        if (rnd != GS_RND_NONE || (f & ~GS_F_FTZ)) return NULL;
        return h_half;
    default: return NULL;
    }
}
