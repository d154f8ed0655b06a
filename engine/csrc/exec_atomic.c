/* exec_atomic.c — atom and red on global, shared (::cta, ::cluster: this CTA's) and generic addresses.
 *
 * Forms (PTX ISA 8.x):
 *   atom{.sem}{.scope}{.space}.op{.L2::cache_hint}.type d, [a], b{, c}{, cache-policy}
 *   red{.sem}{.scope}{.space}.op{.L2::cache_hint}.type [a], b{, cache-policy}
 *   scalar: and/or/xor .b32/.b64; exch .b32/.b64; cas .b16/.b32/.b64; add .u32/.s32/.u64/.f32/.f64;
 *   inc/dec .u32; min/max .u32/.s32/.u64/.s64; add.noftz .f16/.bf16/.f16x2/.bf16x2;
 *   vector (global): add.v2/.v4.f32; add/min/max.noftz .v2/.v4/.v8 .f16/.bf16, .v2/.v4 .f16x2/.bf16x2.
 * Memory-order and scope qualifiers are parsed by the front end and change no value here; the
 * cache-policy operand is accepted and ignored.
 *
 * Contention: lanes are applied one at a time in lane order, and the functional core runs one warp at
 * a time, so any number of threads on one address are serialised deterministically; every lane gets
 * the value before its own update, as on hardware for some order of the lanes. The timing model
 * (SMs on several threads) queues the global lanes instead (ctx->defer_atomics) and applies them at
 * the end of its quantum in SM order, then issue order: their results are read only after that, since
 * a global atomic's latency is longer than a quantum (tsim.c).
 *
 * Numerics: atom/red .add.f32 on global memory rounds to nearest even and flushes subnormal inputs
 * and results to sign-preserving zero (PTX: "atom.add.f32 ... flushes subnormal inputs and results");
 * on shared memory an H200 keeps subnormals (IEEE add), and so do we; .f64 keeps them everywhere. f16/bf16 adds are computed in f32 and rounded once to the 16-bit format: the exact sum
 * of two f16 (11-bit) or bf16 (8-bit significand) values rounded to f32 (24 bits) and then to the
 * narrow format equals the directly rounded sum, since 24 >= 2*11 + 2 (double rounding is innocuous).
 */
#include <stdlib.h>
#include "addr.h"
#include "fp16.h"

static inline float ftz32(float f) {
    return (fpclassify(f) == FP_SUBNORMAL) ? copysignf(0.0f, f) : f;
}

/* min/max of two 16-bit floats (f16 or bf16) as PTX min/max: a NaN input yields the other input,
 * -0 orders below +0; both NaN gives the canonical NaN */
static uint16_t minmax16(int bf, uint16_t a, uint16_t b, int mx) {
    float fa = bf ? gs_bf2f(a) : gs_h2f(a), fb = bf ? gs_bf2f(b) : gs_h2f(b);
    if (isnan(fa) && isnan(fb)) return bf ? 0x7fffu : 0x7fffu;
    if (isnan(fa)) return b;
    if (isnan(fb)) return a;
    if (fa == fb) {                       /* signed zeros */
        int na = (a >> 15) & 1, nb = (b >> 15) & 1;
        return (mx ? (na && !nb) : (!na && nb)) ? b : a;
    }
    return (mx ? fb > fa : fb < fa) ? b : a;
}

static uint16_t add16(int bf, uint16_t a, uint16_t b) {
    return bf ? gs_f2bf(gs_bf2f(a) + gs_bf2f(b)) : gs_f2h(gs_h2f(a) + gs_h2f(b));
}

static uint16_t op16(int sub, int bf, uint16_t a, uint16_t b) {
    return sub == GS_ATOM_ADD ? add16(bf, a, b) : minmax16(bf, a, b, sub == GS_ATOM_MAX);
}

/* the new memory value for one element: old (bits wide, zero-extended), operand b, cas operand cc;
 * ftz: flush f32 subnormals (global memory) */
static uint64_t apply(int sub, int t, uint64_t old, uint64_t b, uint64_t cc, int bits, int ftz) {
    uint64_t mask = gs_width_mask(bits);
    b &= mask;
    switch (sub) {
    case GS_ATOM_ADD:
        if (t == GS_T_F32 && ftz) return gs_bits_f32(ftz32(ftz32(gs_f32(old)) + ftz32(gs_f32(b))));
        if (t == GS_T_F32) return gs_bits_f32(gs_f32(old) + gs_f32(b));
        if (t == GS_T_F64) return gs_bits_f64(gs_f64(old) + gs_f64(b));
        break;
    case GS_ATOM_MIN: case GS_ATOM_MAX: {
        int mx = sub == GS_ATOM_MAX;
        if (t == GS_T_F16 || t == GS_T_BF16 || t == GS_T_F16X2 || t == GS_T_BF16X2) break;
        if (gs_type_is_signed(t)) {
            int64_t a = bits == 64 ? (int64_t)old : (int64_t)(int32_t)old;
            int64_t v = bits == 64 ? (int64_t)b : (int64_t)(int32_t)b;
            return (mx ? v > a : v < a) ? b : old;
        }
        return (mx ? b > old : b < old) ? b : old;
    }
    case GS_ATOM_EXCH: return b;
    case GS_ATOM_CAS: return old == b ? (cc & mask) : old;
    case GS_ATOM_AND: return old & b;
    case GS_ATOM_OR: return old | b;
    case GS_ATOM_XOR: return old ^ b;
    case GS_ATOM_INC: return old >= b ? 0 : old + 1;
    case GS_ATOM_DEC: return (old == 0 || old > b) ? b : old - 1;
    default: return old;
    }
    /* 16-bit floats and their pairs: add (all), min/max (.noftz forms) */
    int bf = t == GS_T_BF16 || t == GS_T_BF16X2;
    if (t == GS_T_F16 || t == GS_T_BF16) return op16(sub, bf, (uint16_t)old, (uint16_t)b);
    if (t == GS_T_F16X2 || t == GS_T_BF16X2)
        return (uint64_t)op16(sub, bf, (uint16_t)old, (uint16_t)b) |
               ((uint64_t)op16(sub, bf, (uint16_t)(old >> 16), (uint16_t)(b >> 16)) << 16);
    return (old + b) & mask;                                  /* integer add wraps */
}

/* does the access of a lane (address addr in state space `space`) go to shared memory? */
static inline int is_shared(int space, uint64_t addr) {
    if (space == GS_SPACE_SHARED || space == GS_SPACE_SHARED_CLUSTER) return 1;
    return space == GS_SPACE_GENERIC && addr >= GS_SHARED_WINDOW && addr < GS_SHARED_WINDOW + GS_WINDOW_SIZE;
}

/* one element of one lane: the memory update, the old value to the destination register */
static inline void atom_lane(gs_warp *w, const gs_xinst *x, int l, int e, uint8_t *p, uint64_t b, uint64_t cc, int ftz) {
    int bits = gs_type_bits(x->type), bytes = bits / 8;
    uint64_t old = 0;
    memcpy(&old, p, (size_t)bytes);                           /* little endian: low bytes */
    old &= gs_width_mask(bits);
    uint64_t nv = apply(x->sub, x->type, old, b, cc, bits, ftz);
    memcpy(p, &nv, (size_t)bytes);
    if (x->op != GS_OP_RED && x->ops[e] != 0xffffffffu) gs_opr(w, x, e)[l] = old;
}

/* queue the global lanes of `m` (see gs_atomq in internal.h); returns the lanes left to do now */
static uint32_t defer(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m, uint8_t **ptr, int n, int bi,
                      const uint64_t *pc) {
    uint32_t g = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (!is_shared(x->space, w->maddr[l])) g |= 1u << l;
    }
    if (!g) return m;
    gs_atomq *q = c->defer_atomics;
    size_t per = sizeof(uint8_t *) + (size_t)(n + 1) * sizeof(uint64_t);
    size_t need = sizeof(gs_atomq_head) + (size_t)__builtin_popcount(g) * per;
    if (q->used + need > q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 65536;
        while (cap < q->used + need) cap *= 2;
        uint8_t *d = realloc(q->data, cap);
        if (!d) { q->oom = 1; return m; }                     /* applied now instead */
        q->data = d;
        q->cap = cap;
    }
    uint8_t *o = q->data + q->used;
    gs_atomq_head h = {w, x, g, (uint32_t)need};
    memcpy(o, &h, sizeof h);
    o += sizeof h;
    for (uint32_t mm = g; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        memcpy(o, &ptr[l], sizeof ptr[l]);
        o += sizeof ptr[l];
        for (int e = 0; e < n; e++) { uint64_t v = gs_opr(w, x, bi + e)[l]; memcpy(o, &v, 8); o += 8; }
        uint64_t cc = pc ? pc[l] : 0;
        memcpy(o, &cc, 8);
        o += 8;
    }
    q->used += need;
    return m & ~g;
}

void gs_atomq_apply(gs_atomq *q) {
    for (size_t off = 0; off < q->used;) {
        gs_atomq_head h;
        memcpy(&h, q->data + off, sizeof h);
        const uint8_t *o = q->data + off + sizeof h;
        int n = h.x->vec > 1 ? h.x->vec : 1, bytes = gs_type_bits(h.x->type) / 8;
        for (uint32_t mm = h.mask; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint8_t *p;
            memcpy(&p, o, sizeof p);
            o += sizeof p;
            uint64_t cc;
            memcpy(&cc, o + (size_t)n * 8, 8);
            for (int e = 0; e < n; e++) {
                uint64_t b;
                memcpy(&b, o + (size_t)e * 8, 8);
                atom_lane(h.w, h.x, l, e, p + (size_t)e * (size_t)bytes, b, cc, 1);
            }
            o += (size_t)(n + 1) * 8;
        }
        off += h.bytes;
    }
    q->used = 0;
}

/* atom: ops = d[vec], [a], b[vec]{, c}{, policy};  red: ops = [a], b[vec]{, policy} */
GS_HANDLER(h_atom) {
    int isred = x->op == GS_OP_RED;
    int n = x->vec > 1 ? x->vec : 1;
    int dst = isred ? 0 : n;                                  /* flat index of the MEM operand */
    int bytes = gs_type_bits(x->type) / 8;
    uint8_t *ptr[GS_WARP];
    gs_lane_addrs(w, x, m);
    uint32_t size = (uint32_t)(bytes * n);
    if (gs_mem_resolve(c, w, x, x->space, m, size, size, 1, ptr)) return GS_X_FAULT;
    w->matomic = 1;
    int bi = dst + 1;                                         /* first b operand */
    const uint64_t *pc = x->sub == GS_ATOM_CAS ? gs_opr(w, x, bi + 1) : NULL;
    uint32_t now = c->defer_atomics ? defer(c, w, x, m, ptr, n, bi, pc) : m;
    for (uint32_t mm = now; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int ftz = !is_shared(x->space, w->maddr[l]);
        for (int e = 0; e < n; e++)
            atom_lane(w, x, l, e, ptr[l] + (size_t)e * (size_t)bytes, gs_opr(w, x, bi + e)[l], pc ? pc[l] : 0, ftz);
    }
    return GS_X_NEXT;
}

static int global_or_generic(int space) { return space == GS_SPACE_GLOBAL || space == GS_SPACE_GENERIC; }

/* which (op, type, vector) combinations PTX defines */
static int valid_form(const gs_xinst *x) {
    int t = x->type, bits = gs_type_bits(t), sub = x->sub;
    int f16ish = t == GS_T_F16 || t == GS_T_BF16 || t == GS_T_F16X2 || t == GS_T_BF16X2;
    if (x->vec > 1) {
        if (!global_or_generic(x->space)) return 0;
        if (t == GS_T_F32) return sub == GS_ATOM_ADD && (x->vec == 2 || x->vec == 4);
        if (t == GS_T_F16 || t == GS_T_BF16)
            return (sub == GS_ATOM_ADD || sub == GS_ATOM_MIN || sub == GS_ATOM_MAX) && x->vec <= 8;
        if (t == GS_T_F16X2 || t == GS_T_BF16X2)
            return (sub == GS_ATOM_ADD || sub == GS_ATOM_MIN || sub == GS_ATOM_MAX) && x->vec <= 4;
        return 0;
    }
    switch (sub) {
    case GS_ATOM_ADD:
        return t == GS_T_U32 || t == GS_T_S32 || t == GS_T_U64 || t == GS_T_S64 || t == GS_T_F32 ||
               t == GS_T_F64 || f16ish;
    case GS_ATOM_MIN: case GS_ATOM_MAX:
        return t == GS_T_U32 || t == GS_T_S32 || t == GS_T_U64 || t == GS_T_S64;
    case GS_ATOM_INC: case GS_ATOM_DEC:
        return t == GS_T_U32;
    case GS_ATOM_CAS:
        if (bits == 16) return t == GS_T_B16;
        /* fall through */
    case GS_ATOM_EXCH: case GS_ATOM_AND: case GS_ATOM_OR: case GS_ATOM_XOR:
        return (bits == 32 || bits == 64) && !gs_type_is_float(t);
    default:
        return 0;
    }
}

gs_handler gs_bind_atomic(const gs_xinst *x) {
    if (x->op != GS_OP_ATOM && x->op != GS_OP_RED) return NULL;
    if (!(x->space == GS_SPACE_GLOBAL || x->space == GS_SPACE_SHARED || x->space == GS_SPACE_GENERIC ||
          x->space == GS_SPACE_SHARED_CLUSTER))
        return NULL;
    if (x->op == GS_OP_RED && x->sub == GS_ATOM_CAS) return NULL;   /* red has no cas/exch */
    if (x->op == GS_OP_RED && x->sub == GS_ATOM_EXCH) return NULL;
    return valid_form(x) ? h_atom : NULL;
}
