/* exec_async.c — asynchronous copies and their completion: cp.async (+ commit/wait groups),
 * cp.async.bulk (non-tensor), cp.async.mbarrier.arrive, createpolicy, mbarrier.
 *
 * In the functional core an asynchronous copy completes when it is issued: the bytes are in the
 * destination before the next instruction, commit/wait instructions only keep the group counters the
 * timing model uses, and a copy that signals an mbarrier (complete_tx) does so at issue. That is one
 * legal execution of the PTX memory model (a wait may always find its copies done).
 *
 * mbarrier objects are 8 bytes of shared memory whose contents PTX leaves opaque. Ours (little end):
 *   bits  0-20  pending arrivals of the current phase
 *   bits 21-41  expected arrivals per phase (the init count, lowered by arrive_drop)
 *   bits 42-62  transaction count (signed, 21 bits: PTX bounds it to +-(2^20 - 1))
 *   bit  63     parity of the current phase
 * A phase completes when the pending arrivals and the transaction count are both zero: the parity
 * flips and the pending count is reloaded from the expected count. The `state` an arrive returns is
 * the object as it was before that warp's arrival (so it names the phase arrived on); test_wait/try_wait
 * with a state, or with .parity and a phase parity, are true once that phase has completed, i.e.
 * when the current parity differs. try_wait never blocks here; the loop around it spins.
 *
 * Operand layouts (flat, vector elements expanded):
 *   cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}
 *   cp.async.bulk.dst.src{.mbarrier::complete_tx::bytes | .bulk_group} [dst], [src], size{, [mbar]}
 *   cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]
 *   mbarrier.init [a], count; .inval [a]; .expect_tx / .complete_tx [a], tx;
 *   .arrive{_drop}{.expect_tx} state, [a]{, count | tx}; .test_wait/.try_wait{.parity} p, [a], s{, hint};
 *   .pending_count count, state
 * aux (engine/ptx/decode.py CP_ASYNC_AUX): bit 0 bulk, bit 1 mbarrier::complete_tx, bit 2 the
 * cp.async.mbarrier.arrive form, bit 3 noinc, bit 4 L2::cache_hint, bits 8-11 the source space.
 * mbarrier aux: bit 0 .parity, bit 1 .expect_tx after arrive.
 */
#include "addr.h"

#define NO_SLOT 0xffffffffu
#define AUX_BULK 1u
#define AUX_COMPLETE_TX 2u
#define AUX_MBAR_ARRIVE 4u
#define AUX_NOINC 8u
#define AUX_CACHE_HINT 16u
#define MBAR_PARITY 1u
#define MBAR_EXPECT_TX 2u

/* address of the MEM operand at flat index i (its base register, if any, plus its offset) */
static inline uint64_t mem_addr(const gs_warp *w, const gs_xinst *x, int top, int flat, int l) {
    return gs_opnd_addr(w, gs_top(x, top), x->ops[flat], l);
}

/* ------------------------------------------------------------------ mbarrier object */
typedef struct { uint32_t pending, expected; int32_t tx; uint32_t parity; } mbar;

static mbar mbar_unpack(uint64_t v) {
    mbar b;
    b.pending = (uint32_t)(v & 0x1fffffu);
    b.expected = (uint32_t)((v >> 21) & 0x1fffffu);
    uint32_t t = (uint32_t)((v >> 42) & 0x1fffffu);
    b.tx = (int32_t)(t << 11) >> 11;                        /* sign-extend 21 bits */
    b.parity = (uint32_t)(v >> 63);
    return b;
}

static uint64_t mbar_pack(mbar b) {
    return (uint64_t)(b.pending & 0x1fffffu) | ((uint64_t)(b.expected & 0x1fffffu) << 21) |
           ((uint64_t)((uint32_t)b.tx & 0x1fffffu) << 42) | ((uint64_t)b.parity << 63);
}

static void mbar_try_complete(mbar *b) {
    if (b->pending == 0 && b->tx == 0) {
        b->parity ^= 1u;
        b->pending = b->expected;
    }
}

/* one thread's arrive-on with `count`; returns the state before it */
static uint64_t mbar_arrive(uint8_t *p, uint32_t count, int drop, int32_t expect_tx) {
    uint64_t v;
    memcpy(&v, p, 8);
    mbar b = mbar_unpack(v);
    b.tx += expect_tx;
    if (drop) b.expected = b.expected >= count ? b.expected - count : 0;
    b.pending = b.pending >= count ? b.pending - count : 0;
    mbar_try_complete(&b);
    uint64_t nv = mbar_pack(b);
    memcpy(p, &nv, 8);
    return v;
}

static void mbar_tx(uint8_t *p, int32_t delta) {
    uint64_t v;
    memcpy(&v, p, 8);
    mbar b = mbar_unpack(v);
    b.tx += delta;
    if (delta < 0) mbar_try_complete(&b);
    v = mbar_pack(b);
    memcpy(p, &v, 8);
}

/* resolve the mbarrier operand (MEM at flat index i) of lanes m into ptr */
static int mbar_resolve(gs_ctx *c, gs_warp *w, const gs_xinst *x, uint32_t m, int top, int flat,
                        uint8_t **ptr) {
    GS_LANES(m, l, w->maddr[l] = mem_addr(w, x, top, flat, l));
    int space = x->space ? x->space : GS_SPACE_GENERIC;
    return gs_mem_resolve(c, w, x, space, m, 8, 8, 1, ptr);
}

GS_HANDLER(h_mbarrier) {
    uint8_t *ptr[GS_WARP];
    int sub = x->sub;
    if (sub == GS_MBAR_PENDING_COUNT) {                   /* count, state: no memory access */
        if (x->ops[0] == NO_SLOT) return GS_X_NEXT;      /* count to the sink '_' */
        uint64_t *d = gs_opr(w, x, 0);
        const uint64_t *s = gs_opr(w, x, 1);
        GS_LANES(m, l, d[l] = mbar_unpack(s[l]).pending);
        return GS_X_NEXT;
    }
    int has_dst = x->ir->ndst == 1;                       /* state / predicate destination */
    int mi = has_dst ? 1 : 0;                             /* flat index of the MEM operand */
    if (mbar_resolve(c, w, x, m, mi, mi, ptr)) return GS_X_FAULT;
    w->matomic = 1;
    const uint64_t *arg = mi + 1 < x->nops ? gs_opr(w, x, mi + 1) : NULL;
    switch (sub) {
    case GS_MBAR_INIT:
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint32_t n = (uint32_t)arg[l];
            if (n == 0 || n > 0xfffffu)
                return gs_fault_set(c, w, x, GS_FAULT_INVALID, l, w->maddr[l], GS_SPACE_SHARED,
                                    "mbarrier.init: count %u is outside [1, 2^20 - 1]", n);
            mbar b = {n, n, 0, 0};
            uint64_t v = mbar_pack(b);
            memcpy(ptr[l], &v, 8);
        }
        return GS_X_NEXT;
    case GS_MBAR_INVAL:
        GS_LANES(m, l, memset(ptr[l], 0, 8));
        return GS_X_NEXT;
    case GS_MBAR_EXPECT_TX: case GS_MBAR_COMPLETE_TX:
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            int32_t t = (int32_t)(uint32_t)arg[l];
            mbar_tx(ptr[l], sub == GS_MBAR_EXPECT_TX ? t : -t);
        }
        return GS_X_NEXT;
    case GS_MBAR_ARRIVE: case GS_MBAR_ARRIVE_DROP: {
        /* The lanes of a warp that name one mbarrier arrive together, as one update of the summed
         * count (and transaction bytes): every such lane gets the same state, the object before the
         * warp's arrival (as seen on an H200: pending_count of the states is per warp). */
        int etx = (x->aux & MBAR_EXPECT_TX) != 0;
        uint64_t *d = has_dst && x->ops[0] != NO_SLOT ? gs_opr(w, x, 0) : NULL;
        for (uint32_t todo = m; todo;) {
            uint8_t *p = ptr[__builtin_ctz(todo)];
            uint32_t group = 0, count = 0;
            int32_t tx = 0;
            for (uint32_t mm = todo; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                if (ptr[l] != p) continue;
                group |= 1u << l;
                count += (!etx && arg) ? (uint32_t)arg[l] : 1u;
                tx += etx ? (int32_t)(uint32_t)arg[l] : 0;
            }
            uint64_t st = mbar_arrive(p, count, sub == GS_MBAR_ARRIVE_DROP, tx);
            if (d) GS_LANES(group, l, d[l] = st);
            todo &= ~group;
        }
        return GS_X_NEXT;
    }
    default: {                                            /* test_wait / try_wait */
        uint32_t done = 0;
        int parity = (x->aux & MBAR_PARITY) != 0;
        GS_LANES(m, l, {
            uint64_t v;
            memcpy(&v, ptr[l], 8);
            uint32_t waited = parity ? (uint32_t)(arg[l] & 1u) : (uint32_t)(arg[l] >> 63);
            done |= (uint32_t)(mbar_unpack(v).parity != waited) << l;
        });
        gs_pred_write(w, x->ops[0], done, m);
        return GS_X_NEXT;
    }
    }
}

/* ------------------------------------------------------------------ cp.async */

/* cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}:
 * copies src-size bytes (default cp-size) and fills the rest of cp-size with zeros; with a true
 * ignore-src predicate nothing is read and cp-size zeros are written. */
GS_HANDLER(h_cp_async) {
    uint8_t *dp[GS_WARP], *sp[GS_WARP];
    uint32_t cp = (uint32_t)gs_opr(w, x, 2)[__builtin_ctz(m)];
    int nargs = x->nops - ((x->aux & AUX_CACHE_HINT) ? 1 : 0);
    const gs_ir_opnd *extra = nargs > 3 ? gs_top(x, 3) : NULL;
    uint32_t ignore = 0;
    const uint64_t *ssz = NULL;
    if (extra && extra->kind == GS_OK_PRED) ignore = gs_pred(w, x->ops[3]);
    else if (extra) ssz = gs_opr(w, x, 3);
    uint32_t nread[GS_WARP];
    uint32_t full = 0, part = 0;                          /* lanes reading cp-size / fewer bytes */
    GS_LANES(m, l, {
        uint32_t n = (ignore >> l) & 1u ? 0 : ssz ? (uint32_t)ssz[l] : cp;
        if (n > cp)
            return gs_fault_set(c, w, x, GS_FAULT_INVALID, l, 0, GS_SPACE_GLOBAL,
                                "cp.async: src-size %u exceeds cp-size %u", n, cp);
        nread[l] = n;
        if (n == cp) full |= 1u << l;
        else if (n) part |= 1u << l;
    });
    /* the destination first, so that the access left for the timing model is the global read */
    GS_LANES(m, l, w->maddr[l] = mem_addr(w, x, 0, 0, l));
    if (gs_mem_resolve(c, w, x, x->space ? x->space : GS_SPACE_SHARED, m, cp, cp, 1, dp)) return GS_X_FAULT;
    int src_space = (int)((x->aux >> 8) & 0xfu);
    if (!src_space) src_space = GS_SPACE_GLOBAL;
    GS_LANES(m, l, w->maddr[l] = mem_addr(w, x, 1, 1, l));
    if (full && gs_mem_resolve(c, w, x, src_space, full, cp, cp, 0, sp)) return GS_X_FAULT;
    for (uint32_t mm = part; mm; mm &= mm - 1) {          /* a partial source: only its bytes */
        int l = __builtin_ctz(mm);
        uint64_t a = w->maddr[l];
        if (a % cp)
            return gs_fault_set(c, w, x, GS_FAULT_MISALIGNED, l, a, src_space,
                                "misaligned cp.async source 0x%llx (cp-size %u)", (unsigned long long)a, cp);
        gs_alloc *al = src_space == GS_SPACE_GLOBAL ? gs_mem_find(c->dev, a, nread[l]) : NULL;
        if (!al)
            return gs_fault_set(c, w, x, GS_FAULT_OOB, l, a, src_space,
                                "out-of-bounds cp.async source: %u bytes at 0x%llx", nread[l],
                                (unsigned long long)a);
        sp[l] = al->host + (a - al->base);
    }
    w->mmask = full | part;                               /* the read, as the timing model sees it */
    w->msize = (uint8_t)cp;
    w->mspace = (uint8_t)src_space;
    w->mwrite = 0;
    GS_LANES(m, l, {
        uint32_t n = nread[l];
        if (n) memmove(dp[l], sp[l], n);
        if (n < cp) memset(dp[l] + n, 0, cp - n);
    });
    return GS_X_NEXT;
}

/* cp.async.bulk [dst], [src], size{, [mbar]}: one copy per executing thread (PTX issues it per
 * thread; code elects one). size is a multiple of 16, both addresses 16-byte aligned. With
 * .mbarrier::complete_tx::bytes the mbarrier's transaction count drops by size at completion. */
GS_HANDLER(h_cp_bulk) {
    const uint64_t *szr = gs_opr(w, x, 2);
    int src_space = (int)((x->aux >> 8) & 0xfu);
    int dst_space = x->space ? x->space : GS_SPACE_SHARED;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t size = (uint32_t)szr[l];
        uint64_t da = mem_addr(w, x, 0, 0, l), sa = mem_addr(w, x, 1, 1, l);
        if (size % 16 || da % 16 || sa % 16)
            return gs_fault_set(c, w, x, GS_FAULT_MISALIGNED, l, size % 16 ? size : (da % 16 ? da : sa),
                                dst_space, "cp.async.bulk: size %u and addresses 0x%llx, 0x%llx must be "
                                "multiples of 16", size, (unsigned long long)da, (unsigned long long)sa);
        uint8_t *bar[GS_WARP];
        if ((x->aux & AUX_COMPLETE_TX) && mbar_resolve(c, w, x, 1u << l, 3, 3, bar)) return GS_X_FAULT;
        if (size) {
            /* each range as one access of one lane (the whole size, 16-byte aligned), the global one
             * last so that it is the access the timing model sees */
            uint8_t *s[GS_WARP], *d[GS_WARP];
            int ss = src_space ? src_space : GS_SPACE_GLOBAL, src_last = ss == GS_SPACE_GLOBAL;
            for (int k = 0; k < 2; k++) {
                int is_src = (k == 1) == src_last;
                w->maddr[l] = is_src ? sa : da;
                if (gs_mem_resolve(c, w, x, is_src ? ss : dst_space, 1u << l, size, 16, !is_src, is_src ? s : d))
                    return GS_X_FAULT;
            }
            memmove(d[l], s[l], size);
        }
        if (x->aux & AUX_COMPLETE_TX) mbar_tx(bar[l], -(int32_t)size);
    }
    return GS_X_NEXT;
}

/* cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]: the arrive-on that fires when the thread's
 * earlier cp.async copies complete (already true here). Without .noinc the pending count is first
 * raised by one, a net-zero change; with .noinc it is a plain arrival. */
GS_HANDLER(h_cp_mbar_arrive) {
    if (!(x->aux & AUX_NOINC)) return GS_X_NEXT;
    uint8_t *ptr[GS_WARP];
    if (mbar_resolve(c, w, x, m, 0, 0, ptr)) return GS_X_FAULT;
    w->matomic = 1;
    for (uint32_t mm = m; mm; mm &= mm - 1) mbar_arrive(ptr[__builtin_ctz(mm)], 1, 0, 0);
    return GS_X_NEXT;
}

/* cp.async.commit_group / wait_group N / wait_all (and the .bulk forms): group bookkeeping only */
GS_HANDLER(h_cp_commit) {
    (void)c; (void)x; (void)m;
    w->cp_groups_pending++;
    return GS_X_NEXT;
}

GS_HANDLER(h_cp_wait) {
    (void)c; (void)m;
    uint32_t n = x->nops ? (uint32_t)w->R[x->ops[0]] : 0;
    if (w->cp_groups_pending > n) w->cp_groups_pending = n;
    return GS_X_NEXT;
}

/* createpolicy.fractional/.range ... .b64 policy, ...: an opaque 64-bit policy. Ours records the
 * form (bit 62 range) and, for fractional, the fraction's f32 bits; nothing reads it back. */
GS_HANDLER(h_createpolicy) {
    (void)c;
    uint64_t *d = gs_opr(w, x, 0);
    int range = x->nops >= 3 && gs_top(x, 1)->kind == GS_OK_MEM;
    const uint64_t *f = !range && x->nops >= 2 ? gs_opr(w, x, 1) : NULL;
    GS_LANES(m, l, d[l] = (1ull << 63) | (range ? 1ull << 62 : 0) |
                          (f ? (f[l] & 0xffffffffu) : (range ? 0 : 0x3f800000u)));
    return GS_X_NEXT;
}

gs_handler gs_bind_async(const gs_xinst *x) {
    int n = x->ir->nopnd;
    switch (x->op) {
    case GS_OP_CP_ASYNC: {
        if (x->aux & AUX_MBAR_ARRIVE) return n == 1 && gs_top(x, 0)->kind == GS_OK_MEM ? h_cp_mbar_arrive : NULL;
        if (n < 3 || gs_top(x, 0)->kind != GS_OK_MEM || gs_top(x, 1)->kind != GS_OK_MEM) return NULL;
        if (x->aux & AUX_BULK) {
            int want = (x->aux & AUX_COMPLETE_TX) ? 4 : 3;
            if (x->aux & AUX_CACHE_HINT) want++;
            if (n != want) return NULL;
            if ((x->aux & AUX_COMPLETE_TX) && gs_top(x, 3)->kind != GS_OK_MEM) return NULL;
            return h_cp_bulk;
        }
        if (!(x->space == GS_SPACE_SHARED || x->space == GS_SPACE_SHARED_CLUSTER)) return NULL;
        const gs_ir_opnd *sz = gs_top(x, 2);
        if (sz->kind != GS_OK_IMM || !(sz->imm == 4 || sz->imm == 8 || sz->imm == 16)) return NULL;
        if ((x->flags & GS_F_BULK) && sz->imm != 16) return NULL;   /* .cg copies 16 bytes only */
        int max = 4 + ((x->aux & AUX_CACHE_HINT) ? 1 : 0);
        return n <= max ? h_cp_async : NULL;
    }
    case GS_OP_CP_ASYNC_COMMIT: return n == 0 ? h_cp_commit : NULL;
    case GS_OP_CP_ASYNC_WAIT: return n <= 1 ? h_cp_wait : NULL;
    case GS_OP_CREATEPOLICY: return x->type == GS_T_B64 && n >= 1 ? h_createpolicy : NULL;
    case GS_OP_MBARRIER:
        switch (x->sub) {
        case GS_MBAR_INIT: return n == 2 ? h_mbarrier : NULL;
        case GS_MBAR_INVAL: return n == 1 ? h_mbarrier : NULL;
        case GS_MBAR_EXPECT_TX: case GS_MBAR_COMPLETE_TX: return n == 2 ? h_mbarrier : NULL;
        case GS_MBAR_ARRIVE: case GS_MBAR_ARRIVE_DROP:
            if (x->aux & MBAR_EXPECT_TX) return n == 3 ? h_mbarrier : NULL;
            return (n == 2 || n == 3) && gs_top(x, 1)->kind == GS_OK_MEM ? h_mbarrier : NULL;
        case GS_MBAR_TEST_WAIT: case GS_MBAR_TRY_WAIT:
            return (n == 3 || n == 4) && gs_top(x, 0)->kind == GS_OK_PRED ? h_mbarrier : NULL;
        case GS_MBAR_PENDING_COUNT: return n == 2 ? h_mbarrier : NULL;
        default: return NULL;
        }
    default:
        return NULL;
    }
}
