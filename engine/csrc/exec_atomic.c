/* exec_atomic.c — atom and red on global, shared and generic addresses. Lanes are applied one at a
 * time in lane order, so contention is serialised deterministically (the result each lane sees is the
 * value before its own update, as on hardware for some order of the lanes). */
#include "exec.h"
#include "fp16.h"

static uint64_t apply(const gs_xinst *x, uint64_t old, uint64_t b, uint64_t cc, int bits) {
    uint64_t mask = gs_width_mask(bits);
    int t = x->type;
    switch (x->sub) {
    case GS_ATOM_ADD:
        if (t == GS_T_F32) return gs_bits_f32(gs_f32(old) + gs_f32(b));
        if (t == GS_T_F64) return gs_bits_f64(gs_f64(old) + gs_f64(b));
        if (t == GS_T_F16) return gs_f2h(gs_h2f((uint16_t)old) + gs_h2f((uint16_t)b));
        if (t == GS_T_BF16) return gs_f2bf(gs_bf2f((uint16_t)old) + gs_bf2f((uint16_t)b));
        if (t == GS_T_F16X2) {
            uint16_t lo = gs_f2h(gs_h2f((uint16_t)old) + gs_h2f((uint16_t)b));
            uint16_t hi = gs_f2h(gs_h2f((uint16_t)(old >> 16)) + gs_h2f((uint16_t)(b >> 16)));
            return (uint32_t)lo | ((uint32_t)hi << 16);
        }
        if (t == GS_T_BF16X2) {
            uint16_t lo = gs_f2bf(gs_bf2f((uint16_t)old) + gs_bf2f((uint16_t)b));
            uint16_t hi = gs_f2bf(gs_bf2f((uint16_t)(old >> 16)) + gs_bf2f((uint16_t)(b >> 16)));
            return (uint32_t)lo | ((uint32_t)hi << 16);
        }
        return (old + b) & mask;
    case GS_ATOM_MIN: case GS_ATOM_MAX: {
        int mx = x->sub == GS_ATOM_MAX;
        if (t == GS_T_F32) { float a = gs_f32(old), v = gs_f32(b);
            if (isnan(a)) return b;
            if (isnan(v)) return old;
            return (mx ? v > a : v < a) ? b : old; }
        if (t == GS_T_F64) { double a = gs_f64(old), v = gs_f64(b);
            if (isnan(a)) return b;
            if (isnan(v)) return old;
            return (mx ? v > a : v < a) ? b : old; }
        if (gs_type_is_signed(t)) {
            int64_t a = bits == 64 ? (int64_t)old : (int64_t)(int32_t)old;
            int64_t v = bits == 64 ? (int64_t)b : (int64_t)(int32_t)b;
            return ((mx ? v > a : v < a) ? b : old) & mask;
        }
        return ((mx ? (b & mask) > old : (b & mask) < old) ? b : old) & mask;
    }
    case GS_ATOM_EXCH: return b & mask;
    case GS_ATOM_CAS: return old == (b & mask) ? (cc & mask) : old;
    case GS_ATOM_AND: return old & b & mask;
    case GS_ATOM_OR: return (old | b) & mask;
    case GS_ATOM_XOR: return (old ^ b) & mask;
    case GS_ATOM_INC: return (old >= (b & mask)) ? 0 : (old + 1) & mask;
    case GS_ATOM_DEC: return (old == 0 || old > (b & mask)) ? (b & mask) : old - 1;
    default: return old;
    }
}

/* atom: ops = d, [a], b{, c};  red: ops = [a], b */
GS_HANDLER(h_atom) {
    int isred = x->op == GS_OP_RED;
    int k = isred ? 0 : 1;
    int bits = gs_type_bits(x->type);
    int bytes = bits / 8;
    uint8_t *ptr[GS_WARP];
    const uint64_t *base = x->mem_base >= 0 ? w->R + x->mem_base : NULL;
    GS_LANES(m, l, w->maddr[l] = (base ? base[l] : 0) + (uint64_t)x->imm);
    if (gs_mem_resolve(c, w, x, x->space, m, (uint32_t)bytes, (uint32_t)bytes, 1, ptr)) return GS_X_FAULT;
    w->matomic = 1;
    const uint64_t *pb = gs_opr(w, x, k + 1);
    const uint64_t *pc = x->sub == GS_ATOM_CAS ? gs_opr(w, x, k + 2) : pb;
    uint64_t *d = isred ? NULL : gs_opr(w, x, 0);
    uint64_t mask = gs_width_mask(bits);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t old = 0;
        memcpy(&old, ptr[l], (size_t)bytes);
        uint64_t nv = apply(x, old & mask, pb[l], pc[l], bits);
        memcpy(ptr[l], &nv, (size_t)bytes);
        if (d) d[l] = old & mask;
    }
    return GS_X_NEXT;
}

gs_handler gs_bind_atomic(const gs_xinst *x) {
    if (x->op != GS_OP_ATOM && x->op != GS_OP_RED) return NULL;
    int bits = gs_type_bits(x->type);
    if (bits != 16 && bits != 32 && bits != 64) return NULL;
    if (x->vec > 1) return NULL;
    if (!(x->space == GS_SPACE_GLOBAL || x->space == GS_SPACE_SHARED || x->space == GS_SPACE_GENERIC ||
          x->space == GS_SPACE_SHARED_CLUSTER))
        return NULL;
    int t = x->type;
    switch (x->sub) {
    case GS_ATOM_ADD:
        return (bits >= 32 || t == GS_T_F16 || t == GS_T_BF16) ? h_atom : NULL;
    case GS_ATOM_MIN: case GS_ATOM_MAX:
        return bits >= 32 ? h_atom : NULL;
    case GS_ATOM_INC: case GS_ATOM_DEC:
        return t == GS_T_U32 ? h_atom : NULL;
    case GS_ATOM_EXCH: case GS_ATOM_CAS: case GS_ATOM_AND: case GS_ATOM_OR: case GS_ATOM_XOR:
        return gs_type_is_float(t) ? NULL : h_atom;
    default:
        return NULL;
    }
}
