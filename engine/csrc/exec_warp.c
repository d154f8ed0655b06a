/* exec_warp.c — warp-level operations: shfl.sync, vote.sync, match.sync, redux.sync, activemask,
 * elect.sync (and the pre-Volta shfl/vote without .sync and without a membermask).
 *
 * Who takes part. The functional core executes an instruction for the lanes m that are active on the
 * SIMT stack and whose guard is true; those are the participants. PTX leaves undefined:
 *  - an executing lane that is not in membermask: we stop the kernel with GS_FAULT_INVALID naming the
 *    lane and the mask (what compute-sanitizer's synccheck reports), rather than invent a value;
 *  - a lane in membermask that does not execute the instruction (exited, guarded off, or waiting on
 *    another path): it contributes nothing to vote/match/redux/elect (as an inactive lane, a 0 bit in a
 *    ballot), and shfl reading from it returns whatever its source register holds now (PTX:
 *    "unpredictable"). Hardware would wait for diverged members to arrive; the reconvergence-stack
 *    model runs them later, on their own (a limitation shared by every stack-based simulator).
 * Operands: the membermask is the last operand; a register or an immediate (-1 reads 0xffffffff).
 */
#include "exec.h"

#define NO_SLOT 0xffffffffu

/* Checks that every participating lane names itself in its membermask (operand i). Returns 0, or
 * GS_X_FAULT with the fault filled. */
static int check_members(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m, int i) {
    const uint64_t *mm = gs_src(w, x, i);
    for (uint32_t r = m; r; r &= r - 1) {
        int l = __builtin_ctz(r);
        uint32_t mask = (uint32_t)mm[l];
        if (!((mask >> l) & 1u))
            return gs_fault_set(c, w, x, GS_FAULT_INVALID, l, 0, 0,
                                "%s: lane %d executes it but is not in its membermask 0x%08x "
                                "(undefined in PTX)", gs_op_name(x->op), l, mask);
    }
    return 0;
}

/* the participants: m, after checking membermask operand i when the instruction has one */
static inline int members(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m, int i) {
    return i < x->nops ? check_members(c, w, x, m, i) : 0;
}

/* shfl{.sync}.mode.b32 d{|p}, a, b, c{, membermask}. For each lane (PTX pseudo-code):
 *   maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask, with cval = c[4:0],
 *   segmask = c[12:8]; source j = lane - b (up, valid if j >= maxLane), lane + b (down), lane ^ b
 *   (bfly), minLane | (b & ~segmask) (idx), each of the last three valid if j <= maxLane; b is b[4:0].
 *   An invalid j reads the lane's own value; p tells whether j was valid. */
GS_HANDLER(h_shfl) {
    int two = x->ir->ndst == 2;
    int k = two ? 2 : 1;
    if (members(c, w, x, m, k + 3)) return GS_X_FAULT;
    uint64_t *d = gs_opr(w, x, 0);
    const uint64_t *pa = gs_src(w, x, k), *pb = gs_src(w, x, k + 1), *pc = gs_src(w, x, k + 2);
    uint32_t src[GS_WARP], out[GS_WARP];
    for (int l = 0; l < GS_WARP; l++) src[l] = (uint32_t)pa[l];   /* before d (may alias a) changes */
    uint32_t valid = 0;
    GS_LANES(m, l, {
        int32_t bval = (int32_t)(pb[l] & 31u);
        uint32_t cc = (uint32_t)pc[l];
        int32_t segmask = (int32_t)((cc >> 8) & 31u);
        int32_t maxlane = (l & segmask) | ((int32_t)(cc & 31u) & ~segmask);
        int32_t minlane = l & segmask;
        int32_t j;
        int ok;
        switch (x->sub) {
        case GS_SHFL_UP: j = l - bval; ok = j >= maxlane; break;
        case GS_SHFL_DOWN: j = l + bval; ok = j <= maxlane; break;
        case GS_SHFL_BFLY: j = l ^ bval; ok = j <= maxlane; break;
        default: j = minlane | (bval & ~segmask); ok = j <= maxlane; break;
        }
        out[l] = src[ok ? j : l];
        valid |= (uint32_t)ok << l;
    });
    GS_LANES(m, l, d[l] = out[l]);
    if (two && x->ops[1] != NO_SLOT) gs_pred_write(w, x->ops[1], valid, m);
    return GS_X_NEXT;
}

/* vote{.sync}.mode.pred d, {!}a{, membermask};  vote{.sync}.ballot.b32 d, {!}a{, membermask} */
GS_HANDLER(h_vote) {
    if (members(c, w, x, m, 2)) return GS_X_FAULT;
    uint32_t p = gs_pred(w, x->ops[1]) & m;
    uint32_t r;
    switch (x->sub) {
    case GS_VOTE_BALLOT: {
        uint64_t *d = gs_opr(w, x, 0);
        GS_LANES(m, l, d[l] = p);
        return GS_X_NEXT;
    }
    case GS_VOTE_ALL: r = p == m; break;
    case GS_VOTE_ANY: r = p != 0; break;
    default: r = p == 0 || p == m; break;
    }
    gs_pred_write(w, x->ops[0], r ? GS_FULL : 0, m);
    return GS_X_NEXT;
}

/* match.sync.any.b32/b64 d, a, membermask: d = participants holding the same value as this lane.
 * match.sync.all.b32/b64 d{|p}, a, membermask: d = participants if all hold one value, else 0. */
GS_HANDLER(h_match) {
    int two = x->ir->ndst == 2;
    int k = two ? 2 : 1;
    if (members(c, w, x, m, k + 1)) return GS_X_FAULT;
    uint64_t vm = gs_width_mask(gs_type_bits(x->type));
    const uint64_t *a = gs_src(w, x, k);
    uint64_t *d = gs_opr(w, x, 0);
    uint32_t out[GS_WARP];
    if (x->sub == GS_MATCH_ANY) {
        GS_LANES(m, l, {
            uint64_t v = a[l] & vm;
            uint32_t same = 0;
            for (uint32_t r = m; r; r &= r - 1) {
                int j = __builtin_ctz(r);
                same |= (uint32_t)((a[j] & vm) == v) << j;
            }
            out[l] = same;
        });
        GS_LANES(m, l, d[l] = out[l]);
        return GS_X_NEXT;
    }
    uint64_t v0 = a[__builtin_ctz(m)] & vm;
    int all = 1;
    GS_LANES(m, l, all &= (a[l] & vm) == v0);
    if (x->ops[0] != NO_SLOT) GS_LANES(m, l, d[l] = all ? m : 0);
    if (two && x->ops[1] != NO_SLOT) gs_pred_write(w, x->ops[1], all ? GS_FULL : 0, m);
    return GS_X_NEXT;
}

/* redux.sync.op.type d, a, membermask: add/min/max over u32/s32, and/or/xor over b32; every
 * participant receives the result over all participants (add wraps modulo 2^32). */
GS_HANDLER(h_redux) {
    if (members(c, w, x, m, 2)) return GS_X_FAULT;
    const uint64_t *a = gs_src(w, x, 1);
    uint64_t *d = gs_opr(w, x, 0);
    int first = __builtin_ctz(m);
    uint32_t r = (uint32_t)a[first];
    int sgn = x->type == GS_T_S32;
    for (uint32_t mm = m & (m - 1); mm; mm &= mm - 1) {
        uint32_t v = (uint32_t)a[__builtin_ctz(mm)];
        switch (x->sub) {
        case GS_ATOM_ADD: r += v; break;
        case GS_ATOM_MIN: r = sgn ? ((int32_t)v < (int32_t)r ? v : r) : (v < r ? v : r); break;
        case GS_ATOM_MAX: r = sgn ? ((int32_t)v > (int32_t)r ? v : r) : (v > r ? v : r); break;
        case GS_ATOM_AND: r &= v; break;
        case GS_ATOM_OR: r |= v; break;
        default: r ^= v; break;
        }
    }
    GS_LANES(m, l, d[l] = r);
    return GS_X_NEXT;
}

/* activemask.b32 d: the lanes executing it. Under a guard that is the lanes whose guard holds (as
 * an H200 answers: @p activemask gives the mask of p among the active lanes). */
GS_HANDLER(h_activemask) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    GS_LANES(m, l, d[l] = m);
    return GS_X_NEXT;
}

/* elect.sync d|p, membermask: the leader is the lowest participating lane; d (may be _) gets its
 * lane id in every participant, p is true in the leader only. */
GS_HANDLER(h_elect) {
    if (members(c, w, x, m, 2)) return GS_X_FAULT;
    uint32_t leader = (uint32_t)__builtin_ctz(m);
    if (x->ops[0] != NO_SLOT) {
        uint64_t *d = gs_opr(w, x, 0);
        GS_LANES(m, l, d[l] = leader);
    }
    if (x->ops[1] != NO_SLOT) gs_pred_write(w, x->ops[1], 1u << leader, m);
    return GS_X_NEXT;
}

/* the destination operands must be what the handler writes: a register (or _ where allowed) */
static int dst_kind_ok(const gs_xinst *x, int i, int kind, int sink_ok) {
    const gs_ir_opnd *o = gs_top(x, i);
    return o->kind == kind || (sink_ok && o->kind == GS_OK_SINK);
}

gs_handler gs_bind_warp(const gs_xinst *x) {
    int nd = x->ir->ndst, n = x->ir->nopnd;
    switch (x->op) {
    case GS_OP_SHFL:
        if (gs_type_bits(x->type) != 32 || x->sub < GS_SHFL_UP || x->sub > GS_SHFL_IDX) return NULL;
        if (n != nd + 3 && n != nd + 4) return NULL;
        if (nd == 2 && !dst_kind_ok(x, 1, GS_OK_PRED, 1)) return NULL;
        return dst_kind_ok(x, 0, GS_OK_REG, 0) ? h_shfl : NULL;
    case GS_OP_VOTE:
        if (n != 2 && n != 3) return NULL;
        if (x->sub == GS_VOTE_BALLOT)
            return gs_type_bits(x->type) == 32 && dst_kind_ok(x, 0, GS_OK_REG, 0) ? h_vote : NULL;
        if (x->sub < GS_VOTE_ALL || x->sub > GS_VOTE_UNI || x->type != GS_T_PRED) return NULL;
        return dst_kind_ok(x, 0, GS_OK_PRED, 0) ? h_vote : NULL;
    case GS_OP_MATCH: {
        int bits = gs_type_bits(x->type);
        if ((bits != 32 && bits != 64) || gs_type_is_float(x->type)) return NULL;
        if (x->sub == GS_MATCH_ANY) return nd == 1 && n == 3 && dst_kind_ok(x, 0, GS_OK_REG, 0) ? h_match : NULL;
        if (x->sub != GS_MATCH_ALL || n != nd + 2) return NULL;
        if (nd == 2 && !dst_kind_ok(x, 1, GS_OK_PRED, 1)) return NULL;
        return dst_kind_ok(x, 0, GS_OK_REG, 1) ? h_match : NULL;
    }
    case GS_OP_REDUX:
        if (n != 3) return NULL;
        switch (x->sub) {
        case GS_ATOM_ADD: case GS_ATOM_MIN: case GS_ATOM_MAX:
            return x->type == GS_T_U32 || x->type == GS_T_S32 ? h_redux : NULL;
        case GS_ATOM_AND: case GS_ATOM_OR: case GS_ATOM_XOR:
            return x->type == GS_T_B32 ? h_redux : NULL;
        default: return NULL;
        }
    case GS_OP_ACTIVEMASK: return n == 1 ? h_activemask : NULL;
    case GS_OP_ELECT:
        if (nd != 2 || n != 3) return NULL;
        return dst_kind_ok(x, 0, GS_OK_REG, 1) && dst_kind_ok(x, 1, GS_OK_PRED, 1) ? h_elect : NULL;
    default: return NULL;
    }
}
