/* exec_warp.c — warp-level operations: shfl.sync, vote.sync, activemask. (Seed version.) */
#include "exec.h"

/* shfl.sync.mode.b32 d{|p}, a, b, c, membermask */
GS_HANDLER(h_shfl) {
    (void)c;
    int two = x->ir->ndst == 2;
    int k = two ? 2 : 1;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_opr(w, x, k), *pb = gs_opr(w, x, k + 1), *pc = gs_opr(w, x, k + 2);
    uint64_t src[GS_WARP];
    memcpy(src, pa, sizeof src);
    uint32_t valid = 0;
    uint64_t out[GS_WARP];
    GS_LANES(m, l, {
        uint32_t b = (uint32_t)pb[l], cc = (uint32_t)pc[l];
        uint32_t clamp = cc & 0x1f, segmask = (cc >> 8) & 0x1f;
        uint32_t maxlane = ((uint32_t)l & segmask) | (clamp & ~segmask);
        uint32_t minlane = (uint32_t)l & segmask;
        int32_t j;
        int ok;
        switch (x->sub) {
        case GS_SHFL_UP: j = l - (int32_t)b; ok = j >= (int32_t)maxlane; break;
        case GS_SHFL_DOWN: j = l + (int32_t)b; ok = j <= (int32_t)maxlane; break;
        case GS_SHFL_BFLY: j = l ^ (int32_t)b; ok = j <= (int32_t)maxlane; break;
        default: j = (int32_t)minlane | ((int32_t)b & ~(int32_t)segmask); ok = j <= (int32_t)maxlane; break;
        }
        if (!ok) j = l;
        out[l] = (uint32_t)src[j & 31];
        valid |= (uint32_t)ok << l;
    });
    GS_LANES(m, l, d[l] = out[l]);
    if (two) gs_pred_write(w, x->ops[1], valid, m);
    return GS_X_NEXT;
}

/* vote.sync.mode.pred d, {!}a, membermask;  vote.sync.ballot.b32 d, {!}a, membermask */
GS_HANDLER(h_vote) {
    (void)c;
    uint32_t p = gs_pred(w, x->ops[1]) & m;
    switch (x->sub) {
    case GS_VOTE_BALLOT: {
        uint64_t *d = gs_opr(w, x, 0);
        GS_LANES(m, l, d[l] = p);
        return GS_X_NEXT;
    }
    case GS_VOTE_ALL: gs_pred_write(w, x->ops[0], p == m ? GS_FULL : 0, m); return GS_X_NEXT;
    case GS_VOTE_ANY: gs_pred_write(w, x->ops[0], p ? GS_FULL : 0, m); return GS_X_NEXT;
    default: gs_pred_write(w, x->ops[0], (p == 0 || p == m) ? GS_FULL : 0, m); return GS_X_NEXT;
    }
}

GS_HANDLER(h_activemask) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    GS_LANES(m, l, d[l] = m);
    return GS_X_NEXT;
}

gs_handler gs_bind_warp(const gs_xinst *x) {
    switch (x->op) {
    case GS_OP_SHFL: return gs_type_bits(x->type) == 32 ? h_shfl : NULL;
    case GS_OP_VOTE: return h_vote;
    case GS_OP_ACTIVEMASK: return h_activemask;
    default: return NULL;
    }
}
