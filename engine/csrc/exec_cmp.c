/* exec_cmp.c — setp, set, selp, slct. (Seed version.) */
#include "exec.h"

static inline int cmp_s64(int op, int64_t a, int64_t b) {
    switch (op) {
    case GS_CMP_EQ: return a == b; case GS_CMP_NE: return a != b;
    case GS_CMP_LT: return a < b; case GS_CMP_LE: return a <= b;
    case GS_CMP_GT: return a > b; case GS_CMP_GE: return a >= b;
    default: return 0;
    }
}
static inline int cmp_u64(int op, uint64_t a, uint64_t b) {
    switch (op) {
    case GS_CMP_EQ: return a == b; case GS_CMP_NE: return a != b;
    case GS_CMP_LT: case GS_CMP_LO: return a < b; case GS_CMP_LE: case GS_CMP_LS: return a <= b;
    case GS_CMP_GT: case GS_CMP_HI: return a > b; case GS_CMP_GE: case GS_CMP_HS: return a >= b;
    default: return 0;
    }
}
static inline int cmp_f64(int op, double a, double b) {
    int un = isnan(a) || isnan(b);
    switch (op) {
    case GS_CMP_EQ: return !un && a == b; case GS_CMP_NE: return !un && a != b;
    case GS_CMP_LT: return !un && a < b; case GS_CMP_LE: return !un && a <= b;
    case GS_CMP_GT: return !un && a > b; case GS_CMP_GE: return !un && a >= b;
    case GS_CMP_EQU: return un || a == b; case GS_CMP_NEU: return un || a != b;
    case GS_CMP_LTU: return un || a < b; case GS_CMP_LEU: return un || a <= b;
    case GS_CMP_GTU: return un || a > b; case GS_CMP_GEU: return un || a >= b;
    case GS_CMP_NUM: return !un; case GS_CMP_NAN: return un;
    default: return 0;
    }
}

static inline int compare(const gs_xinst *x, uint64_t a, uint64_t b) {
    switch (x->type) {
    case GS_T_S32: return cmp_s64(x->cmp, (int32_t)a, (int32_t)b);
    case GS_T_S64: return cmp_s64(x->cmp, (int64_t)a, (int64_t)b);
    case GS_T_S16: return cmp_s64(x->cmp, (int16_t)a, (int16_t)b);
    case GS_T_F32: return cmp_f64(x->cmp, gs_f32(a), gs_f32(b));
    case GS_T_F64: return cmp_f64(x->cmp, gs_f64(a), gs_f64(b));
    default: return cmp_u64(x->cmp, a, b);
    }
}

/* setp.cmp.type p{|q}, a, b{, {!}c with .bop} */
GS_HANDLER(h_setp) {
    (void)c;
    int two = x->ir->ndst == 2;
    const uint64_t *pa = gs_opr(w, x, two ? 2 : 1), *pb = gs_opr(w, x, two ? 3 : 2);
    uint32_t r = 0;
    GS_LANES(m, l, r |= (uint32_t)compare(x, pa[l], pb[l]) << l);
    uint32_t q = ~r;
    if (x->sub) {
        uint32_t cp = gs_pred(w, x->ops[x->nops - 1]);
        if (x->sub == GS_BOOL_AND) { r &= cp; q &= cp; }
        else if (x->sub == GS_BOOL_OR) { r |= cp; q |= cp; }
        else { r ^= cp; q ^= cp; }
    }
    gs_pred_write(w, x->ops[0], r, m);
    if (two) gs_pred_write(w, x->ops[1], q, m);
    return GS_X_NEXT;
}

/* selp.type d, a, b, c:  d = c ? a : b */
GS_HANDLER(h_selp) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_opr(w, x, 1), *pb = gs_opr(w, x, 2);
    uint32_t p = gs_pred(w, x->ops[3]);
    GS_LANES(m, l, d[l] = ((p >> l) & 1) ? pa[l] : pb[l]);
    return GS_X_NEXT;
}

gs_handler gs_bind_cmp(const gs_xinst *x) {
    switch (x->op) {
    case GS_OP_SETP:
        if (x->type == GS_T_F16 || x->type == GS_T_F16X2 || x->type == GS_T_BF16 || x->type == GS_T_BF16X2) return NULL;
        if (x->flags & GS_F_FTZ && x->type != GS_T_F32) return NULL;
        return h_setp;
    case GS_OP_SELP: return h_selp;
    default: return NULL;
    }
}
