/* func_run.c — the functional run: CTAs one after another, warps of a CTA round-robin, each warp run
 * until it blocks, finishes or spends its quantum. It drives the same gs_warp_step the timing model
 * drives; only the order of steps differs. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"

#define GS_QUANTUM 256

struct gs_func_run {
    gs_device *dev;
    gs_program *prog;
    gs_launch_desc desc;
    uint8_t *params;
    gs_ctx ctx;
    gs_cta cta;
    bool cta_live;
    uint64_t next_cta, total_ctas;
    gs_func_stats stats;
    gs_fault fault;
    int status;
};

static int launch_error(gs_fault *f, const char *fmt, uint32_t a, uint32_t b) {
    memset(f, 0, sizeof *f);
    f->kind = GS_FAULT_INVALID;
    f->func = -1; f->warp = -1; f->lane = -1; f->pc = -1;
    snprintf(f->message, sizeof f->message, fmt, a, b);
    return -1;
}

/* shared by the functional and the timing launch */
int gs_launch_validate(gs_program *prog, const gs_launch_desc *d, uint32_t param_bytes, gs_fault *f) {
    if (d->func < 0 || (uint32_t)d->func >= prog->nfuncs || !prog->funcs[d->func].is_entry)
        return launch_error(f, "function %u is not a kernel entry (of %u functions)", (uint32_t)d->func,
                            prog->nfuncs);
    const gs_ir_func *fn = &prog->funcs[d->func];
    for (int i = 0; i < 3; i++) {
        if (d->grid[i] == 0 || d->block[i] == 0)
            return launch_error(f, "grid and block dimensions must be positive (dimension %u is %u)",
                                (uint32_t)i, d->grid[i] == 0 ? d->grid[i] : d->block[i]);
    }
    uint64_t nthreads = (uint64_t)d->block[0] * d->block[1] * d->block[2];
    if (nthreads > 1024) return launch_error(f, "block of %u threads exceeds the limit of %u",
                                             (uint32_t)(nthreads > 0xffffffffu ? 0xffffffffu : nthreads), 1024);
    if (d->block[2] > 64) return launch_error(f, "block.z = %u exceeds the limit of %u", d->block[2], 64);
    if (d->grid[1] > 65535 || d->grid[2] > 65535)
        return launch_error(f, "grid.y/z = %u exceeds the limit of %u",
                            d->grid[1] > d->grid[2] ? d->grid[1] : d->grid[2], 65535);
    if (d->grid[0] > 0x7fffffffu) return launch_error(f, "grid.x = %u exceeds the limit of %u", d->grid[0], 0x7fffffffu);
    for (int i = 0; i < 3; i++) {
        if (fn->reqntid[i] && fn->reqntid[i] != d->block[i])
            return launch_error(f, "block does not match .reqntid (dimension size %u, required %u)",
                                d->block[i], fn->reqntid[i]);
    }
    uint64_t maxn = (uint64_t)(fn->maxntid[0] ? fn->maxntid[0] : 1) * (fn->maxntid[1] ? fn->maxntid[1] : 1) *
                    (fn->maxntid[2] ? fn->maxntid[2] : 1);
    if (fn->maxntid[0] && nthreads > maxn)
        return launch_error(f, "block of %u threads exceeds .maxntid (%u threads)", (uint32_t)nthreads, (uint32_t)maxn);
    uint64_t shared = (uint64_t)fn->shared_bytes + d->dyn_shared_bytes;
    if (shared > 227u * 1024u)
        return launch_error(f, "shared memory of %u bytes exceeds the limit of %u", (uint32_t)shared, 227u * 1024u);
    if (param_bytes < fn->param_bytes)
        return launch_error(f, "kernel needs %u bytes of parameters, %u given", fn->param_bytes, param_bytes);
    return 0;
}

void gs_ctx_setup(gs_ctx *c, gs_device *dev, gs_program *prog, const gs_launch_desc *d,
                  const uint8_t *params, uint32_t param_bytes, gs_fault *fault, gs_func_stats *stats) {
    memset(c, 0, sizeof *c);
    c->dev = dev;
    c->prog = prog;
    c->ld = d;
    c->params = params;
    c->param_bytes = param_bytes;
    c->func = d->func;
    const gs_ir_func *fn = &prog->funcs[d->func];
    uint32_t nregs = fn->nregs > prog->max_func_regs ? fn->nregs : prog->max_func_regs;
    uint32_t npreds = fn->npreds > prog->max_func_preds ? fn->npreds : prog->max_func_preds;
    c->nregs_total = prog->nconst + nregs;
    c->npreds = npreds;
    c->fault = fault;
    c->stats = stats;
}

gs_func_run *gs_func_launch(gs_device *dev, gs_program *prog, const gs_launch_desc *desc,
                            const uint8_t *params, uint32_t param_bytes, gs_fault *fault) {
    if (gs_launch_validate(prog, desc, param_bytes, fault)) return NULL;
    gs_func_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->dev = dev;
    r->prog = prog;
    r->desc = *desc;
    r->params = malloc(param_bytes ? param_bytes : 1);
    if (!r->params) { free(r); return NULL; }
    memcpy(r->params, params, param_bytes);
    gs_ctx_setup(&r->ctx, dev, prog, &r->desc, r->params, param_bytes, &r->fault, &r->stats);
    r->total_ctas = (uint64_t)desc->grid[0] * desc->grid[1] * desc->grid[2];
    r->stats.ctas_total = r->total_ctas;
    r->status = GS_RUNNING;
    return r;
}

static int finish_fault(gs_func_run *r, gs_fault *out) {
    r->status = GS_FAULTED;
    *out = r->fault;
    return GS_FAULTED;
}

int gs_func_step(gs_func_run *r, uint64_t budget, gs_fault *out) {
    if (r->status != GS_RUNNING) {
        if (r->status == GS_FAULTED) *out = r->fault;
        return r->status;
    }
    gs_ctx *c = &r->ctx;
    uint64_t start = r->stats.warp_insts;
    while (r->stats.warp_insts - start < budget) {
        if (!r->cta_live) {
            if (r->next_cta == r->total_ctas) { r->status = GS_DONE; return GS_DONE; }
            uint64_t n = r->next_cta++;
            uint32_t id[3] = {(uint32_t)(n % r->desc.grid[0]),
                              (uint32_t)((n / r->desc.grid[0]) % r->desc.grid[1]),
                              (uint32_t)(n / ((uint64_t)r->desc.grid[0] * r->desc.grid[1]))};
            if (gs_cta_init(&r->cta, c, id, &r->fault)) return finish_fault(r, out);
            r->cta.sm = (int32_t)(n % (r->desc.num_sms ? r->desc.num_sms : 1));
            r->cta_live = true;
        }
        gs_cta *cta = &r->cta;
        bool progress = false, all_done = true;
        for (uint32_t i = 0; i < cta->nwarps; i++) {
            gs_warp *w = &cta->warps[i];
            for (int q = 0; q < GS_QUANTUM && w->state == GS_W_READY; q++) {
                c->clock = r->stats.warp_insts;
                int res = gs_warp_step(c, w);
                progress = true;
                if (res == GS_X_FAULT) return finish_fault(r, out);
            }
            if (w->state != GS_W_DONE) all_done = false;
        }
        if (r->desc.max_warp_insts && r->stats.warp_insts > r->desc.max_warp_insts) {
            gs_fault_set(c, NULL, NULL, GS_FAULT_LIMIT, -1, 0, 0,
                         "instruction cap reached: %llu warp instructions (max_warp_insts)",
                         (unsigned long long)r->desc.max_warp_insts);
            memcpy(r->fault.cta, cta->id, sizeof r->fault.cta);
            return finish_fault(r, out);
        }
        if (all_done) {
            r->cta_live = false;
            r->stats.ctas_done++;
        } else if (!progress) {
            gs_cta_check_deadlock(c, cta);
            return finish_fault(r, out);
        }
    }
    return GS_RUNNING;
}

void gs_func_get_stats(gs_func_run *r, gs_func_stats *out) { *out = r->stats; }

void gs_func_destroy(gs_func_run *r) {
    if (!r) return;
    gs_cta_free(&r->cta);
    free(r->params);
    free(r);
}
