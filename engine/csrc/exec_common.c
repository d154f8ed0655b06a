/* exec_common.c — helpers shared by the handlers: faults, type properties, special registers. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "internal.h"

int gs_fault_set(gs_ctx *c, gs_warp *w, const gs_xinst *x, int kind, int lane, uint64_t addr,
                 int space, const char *fmt, ...) {
    gs_fault *f = c->fault;
    if (c->faulted) return GS_X_FAULT;   /* keep the first fault */
    c->faulted = true;
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->func = c->func;
    f->warp = w ? w->idx : -1;
    f->lane = lane;
    if (w && w->cta) memcpy(f->cta, w->cta->id, sizeof f->cta);
    f->pc = x ? (int32_t)(x - c->prog->x) : -1;
    f->line = x ? x->line : 0;
    f->space = (uint32_t)space;
    f->addr = addr;
    f->cycle = c->clock;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return GS_X_FAULT;
}

static const char *const TYPE_NAMES[GS_T__COUNT] = {
    "none", "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
    "s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64",
    "e4m3", "e5m2", "e4m3x2", "e5m2x2", "u4", "s4", "b1", "u16x2", "s16x2"};
static const uint8_t TYPE_BITS[GS_T__COUNT] = {
    0, 1, 8, 16, 32, 64, 128, 8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 16, 32, 32, 32, 64,
    8, 8, 16, 16, 4, 4, 1, 32, 32};

const char *gs_type_name(int t) { return (t >= 0 && t < GS_T__COUNT) ? TYPE_NAMES[t] : "?"; }
int gs_type_bits(int t) { return (t >= 0 && t < GS_T__COUNT) ? TYPE_BITS[t] : 0; }
int gs_type_is_float(int t) {
    return t == GS_T_F16 || t == GS_T_F16X2 || t == GS_T_BF16 || t == GS_T_BF16X2 || t == GS_T_TF32 ||
           t == GS_T_F32 || t == GS_T_F64 || t == GS_T_E4M3 || t == GS_T_E5M2;
}
int gs_type_is_signed(int t) {
    return t == GS_T_S8 || t == GS_T_S16 || t == GS_T_S32 || t == GS_T_S64 || t == GS_T_S4;
}

const char *gs_space_name(int s) {
    static const char *const n[] = {"none", "generic", "global", "shared", "shared::cluster",
                                    "local", "param", "const", "tex"};
    return (s >= 0 && s <= GS_SPACE_TEX) ? n[s] : "?";
}

/* Special register sr of lane l. Only %tid and the lane id / lane masks depend on the lane: h_mov_sreg
 * (exec_move.c) reads every other register once per warp, so a new lane-dependent one must be listed there. */
uint64_t gs_sreg_read(gs_ctx *c, gs_warp *w, int sr, int l) {
    const gs_launch_desc *d = c->ld;
    gs_cta *cta = w->cta;
    switch (sr) {
    case GS_SR_TID_X: return w->tid[l];
    case GS_SR_TID_Y: return w->tid[GS_WARP + l];
    case GS_SR_TID_Z: return w->tid[2 * GS_WARP + l];
    case GS_SR_NTID_X: return d->block[0];
    case GS_SR_NTID_Y: return d->block[1];
    case GS_SR_NTID_Z: return d->block[2];
    case GS_SR_CTAID_X: return cta->id[0];
    case GS_SR_CTAID_Y: return cta->id[1];
    case GS_SR_CTAID_Z: return cta->id[2];
    case GS_SR_NCTAID_X: return d->grid[0];
    case GS_SR_NCTAID_Y: return d->grid[1];
    case GS_SR_NCTAID_Z: return d->grid[2];
    case GS_SR_LANEID: return (uint64_t)l;
    case GS_SR_WARPID: return (uint64_t)w->idx;
    case GS_SR_NWARPID: return 64;
    case GS_SR_SMID: return (uint64_t)(cta->sm >= 0 ? cta->sm : 0);
    case GS_SR_NSMID: return d->num_sms ? d->num_sms : 1;
    case GS_SR_GRIDID: return 1;
    case GS_SR_LANEMASK_EQ: return 1u << l;
    case GS_SR_LANEMASK_LT: return (1u << l) - 1u;
    case GS_SR_LANEMASK_LE: return (uint32_t)((2ull << l) - 1u);
    case GS_SR_LANEMASK_GT: return (uint32_t)~((2ull << l) - 1u);
    case GS_SR_LANEMASK_GE: return (uint32_t)~((1u << l) - 1u);
    case GS_SR_CLOCK: return (uint32_t)c->clock;
    case GS_SR_CLOCK_HI: return (uint32_t)(c->clock >> 32);
    case GS_SR_CLOCK64: return c->clock;
    case GS_SR_GLOBALTIMER:
    case GS_SR_GLOBALTIMER_LO:
    case GS_SR_GLOBALTIMER_HI: {
        /* simulated nanoseconds: one cycle at ~1.98 GHz is ~0.5 ns; keep it monotonic and exact */
        uint64_t ns = c->clock / 2;
        return sr == GS_SR_GLOBALTIMER ? ns : sr == GS_SR_GLOBALTIMER_LO ? (uint32_t)ns : ns >> 32;
    }
    case GS_SR_DYN_SMEM_SIZE: return d->dyn_shared_bytes;
    case GS_SR_TOTAL_SMEM_SIZE: return cta->shared_bytes;
    case GS_SR_CLUSTER_CTARANK: return 0;
    case GS_SR_CLUSTER_NCTARANK: return 1;
    case GS_SR_CLUSTERID_X: return cta->id[0];
    case GS_SR_CLUSTERID_Y: return cta->id[1];
    case GS_SR_CLUSTERID_Z: return cta->id[2];
    case GS_SR_NCLUSTERID_X: return d->grid[0];
    case GS_SR_NCLUSTERID_Y: return d->grid[1];
    case GS_SR_NCLUSTERID_Z: return d->grid[2];
    case GS_SR_CLUSTER_CTAID_X: case GS_SR_CLUSTER_CTAID_Y: case GS_SR_CLUSTER_CTAID_Z: return 0;
    case GS_SR_CLUSTER_NCTAID_X: case GS_SR_CLUSTER_NCTAID_Y: case GS_SR_CLUSTER_NCTAID_Z: return 1;
    case GS_SR_IS_EXPLICIT_CLUSTER: return 0;
    default: return 0;
    }
}
