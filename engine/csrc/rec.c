/* rec.c — the recorder: growable row buffers per table, filled during the run and drained by Python.
 *
 * Levels: 0 off (nothing), 1 summary (interval counters, events, per-PC statistics), 2 full (also
 * warp-state changes of the chosen SMs and 1-in-N memory request samples). Warp-state rows are written
 * when a warp's states are accounted (at its issue, or at the latest at the next interval boundary),
 * so they can lag by up to one interval; gs_tsim_drain sorts them and only releases rows older than
 * the last closed interval, so every table reaches Python in cycle order.
 */
#include <stddef.h>
#include <stdlib.h>
#include "timing.h"

static const size_t ROW_SIZE[GS_REC__COUNT] = {
    sizeof(gs_rec_wstate), sizeof(gs_rec_smc), sizeof(gs_rec_memc), sizeof(gs_rec_event),
    sizeof(gs_rec_msample), sizeof(gs_rec_pcstat)};

void gs_rec_init(gs_tsim *ts) {
    for (int t = 0; t < GS_REC__COUNT; t++) {
        ts->bufs[t].row_size = ROW_SIZE[t];
        ts->bufs[t].rows = 0;
        ts->bufs[t].head = 0;
    }
}

void gs_rec_free(gs_tsim *ts) {
    for (int t = 0; t < GS_REC__COUNT; t++) {
        free(ts->bufs[t].data);
        ts->bufs[t].data = NULL;
        ts->bufs[t].cap = ts->bufs[t].rows = 0;
    }
}

void *gs_rec_push(gs_tsim *ts, int table) {
    gs_recbuf *b = &ts->bufs[table];
    if (b->rows == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        uint8_t *d = realloc(b->data, cap * b->row_size);
        if (!d) return NULL;            /* recording degrades, simulation goes on */
        b->data = d;
        b->cap = cap;
    }
    void *r = b->data + b->rows * b->row_size;
    memset(r, 0, b->row_size);
    b->rows++;
    return r;
}

void gs_rec_state(gs_tsim *ts, gs_tsm *sm, gs_tw *tw, uint64_t cycle, int state, int32_t pc) {
    if (tw->rec_state == state && state != GS_WS_SELECTED) return;
    tw->rec_state = (uint8_t)state;
    gs_rec_wstate *r = gs_rec_push(ts, GS_REC_WARP_STATES);
    if (!r) return;
    r->cycle = cycle;
    r->sm = (uint16_t)sm->id;
    r->slot = tw->slot;
    r->state = (uint8_t)state;
    r->cta = tw->cta ? tw->cta->cta.linear : 0xffffffffu;
    r->pc = pc >= 0 ? (uint32_t)pc : 0xffffffffu;
    const gs_warp *w = tw->w;       /* the lanes of the reconvergence-stack top, which runs `pc` next */
    r->active = (w && pc >= 0 && w->sp > 0) ? w->stack[w->sp - 1].mask & w->live : 0;
}

void gs_rec_emit_event(gs_tsim *ts, uint64_t cycle, int kind, int sm, uint32_t cta) {
    if (ts->rec.level < 1) return;
    gs_rec_event *r = gs_rec_push(ts, GS_REC_EVENTS);
    if (!r) return;
    r->cycle = cycle;
    r->kind = (uint8_t)kind;
    r->sm = (uint16_t)sm;
    r->cta = cta;
    r->kernel = ts->rec.kernel_id;
}

static void close_interval(gs_tsim *ts, uint64_t start, uint64_t end) {
    const gs_tconfig *c = &ts->cfg;
    for (uint32_t s = 0; s < c->gpu_num_sms; s++) {
        gs_tsm *sm = &ts->sms[s];
        for (uint32_t w = 0; w < c->sm_max_warps; w++)
            if (sm->tw[w].w) gs_tsm_account(ts, sm, &sm->tw[w], end);
        gs_rec_smc *r = gs_rec_push(ts, GS_REC_SM_COUNTERS);
        if (r) {
            r->cycle0 = start;
            r->sm = (uint16_t)s;
            r->warps_active = (uint16_t)sm->warps_used;
            r->ctas_active = (uint16_t)sm->ctas_used;
            r->issued = sm->iv_issued;
            r->thread_insts = sm->iv_thread_insts;
            memcpy(r->state_hist, sm->iv_hist, sizeof r->state_hist);
            r->l1_accesses = sm->iv_l1_acc;
            r->l1_hits = sm->iv_l1_hits;
            r->l1_misses = sm->iv_l1_miss;
            r->shared_accesses = sm->iv_shared;
            r->bank_conflicts = sm->iv_conflicts;
            uint32_t used = 0;
            for (uint32_t k = 0; k < c->l1_mshrs; k++) used += sm->mshr[k] > end;
            r->mshr_used = (uint16_t)(used > 65535 ? 65535 : used);
            uint64_t bl = gs_res_backlog(&sm->lsu, end);
            r->ldst_queue = (uint16_t)(bl > 65535 ? 65535 : bl);
        }
        memset(sm->iv_hist, 0, sizeof sm->iv_hist);
        sm->iv_issued = sm->iv_thread_insts = sm->iv_l1_acc = sm->iv_l1_hits = sm->iv_l1_miss = 0;
        sm->iv_shared = sm->iv_conflicts = 0;
    }
    /* memory partitions: one per DRAM channel, with the L2 slices interleaved onto them */
    for (uint32_t p = 0; p < c->dram_channels; p++) {
        gs_rec_memc *r = gs_rec_push(ts, GS_REC_MEM_COUNTERS);
        gs_dram *d = &ts->dram[p];
        uint32_t acc = 0, hits = 0, miss = 0;
        uint64_t q = 0;
        for (uint32_t s = p; s < c->l2_slices; s += c->dram_channels) {
            gs_l2slice *sl = &ts->l2[s];
            acc += sl->iv_acc; hits += sl->iv_hits; miss += sl->iv_miss;
            uint64_t bl = gs_cal_backlog(&sl->port, end);
            if (bl > q) q = bl;
            sl->iv_acc = sl->iv_hits = sl->iv_miss = 0;
        }
        if (r) {
            r->cycle0 = start;
            r->part = (uint16_t)p;
            r->l2_accesses = acc;
            r->l2_hits = hits;
            r->l2_misses = miss;
            r->dram_read_bytes = d->iv_rd;
            r->dram_write_bytes = d->iv_wr;
            uint64_t dq = gs_cal_backlog(&d->bus, end);
            r->l2_queue = (uint16_t)(q > 65535 ? 65535 : q);
            r->dram_queue = (uint16_t)(dq > 65535 ? 65535 : dq);
        }
        d->iv_rd = d->iv_wr = 0;
    }
}

void gs_rec_interval(gs_tsim *ts, uint64_t now) {
    if (ts->rec.level < 1) return;
    uint64_t iv = ts->cfg.record_interval_cycles;
    if (now == GS_NEVER) {                     /* the run ended: close the partial interval */
        uint64_t start = ts->next_interval - iv;
        close_interval(ts, start, ts->now > start ? ts->now : start);
        ts->next_interval = GS_NEVER;
        return;
    }
    while (ts->next_interval <= now) {
        close_interval(ts, ts->next_interval - iv, ts->next_interval);
        ts->next_interval += iv;
    }
}

static inline uint64_t row_key(const gs_recbuf *b, size_t i, size_t tfield) {
    uint64_t t;
    memcpy(&t, b->data + i * b->row_size + tfield, 8);
    return t;
}

/* Stable sort of the rows by their 64-bit time field: nothing to do when already in order (the usual
 * case between two drains), else an LSD radix sort over the bits the time range needs (16-bit digits),
 * linear in the rows instead of qsort's n log n comparisons. */
static void sort_rows(gs_recbuf *b, size_t tfield) {
    size_t n = b->rows;
    if (n < 2) return;
    uint64_t lo = row_key(b, 0, tfield), hi = lo, prev = lo;
    int sorted = 1;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = row_key(b, i, tfield);
        if (k < prev) sorted = 0;
        prev = k;
        if (k < lo) lo = k;
        if (k > hi) hi = k;
    }
    if (sorted) return;
    uint8_t *tmp = malloc(n * b->row_size);
    size_t *count = malloc(65537 * sizeof *count);
    if (!tmp || !count) { free(tmp); free(count); return; }
    uint64_t range = hi - lo;
    uint8_t *src = b->data, *dst = tmp;
    for (int shift = 0; shift < 64 && (shift == 0 || (range >> shift)); shift += 16) {
        memset(count, 0, 65537 * sizeof *count);
        for (size_t i = 0; i < n; i++) {
            uint64_t k;
            memcpy(&k, src + i * b->row_size + tfield, 8);
            count[((k - lo) >> shift & 0xffff) + 1]++;
        }
        for (size_t d = 0; d < 65536; d++) count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++) {
            uint64_t k;
            memcpy(&k, src + i * b->row_size + tfield, 8);
            memcpy(dst + count[(k - lo) >> shift & 0xffff]++ * b->row_size, src + i * b->row_size, b->row_size);
        }
        uint8_t *t = src; src = dst; dst = t;
    }
    if (src != b->data) memcpy(b->data, src, n * b->row_size);
    free(tmp);
    free(count);
}

/* rows of a time-ordered table that are final: everything before `mark` (rows are sorted first) */
static size_t sort_and_mark(gs_recbuf *b, size_t tfield, uint64_t mark) {
    sort_rows(b, tfield);
    size_t lo = 0, hi = b->rows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint64_t t;
        memcpy(&t, b->data + mid * b->row_size + tfield, 8);
        if (t < mark) lo = mid + 1; else hi = mid;
    }
    return lo;
}

uint32_t gs_tsim_pending(gs_tsim *ts, int table) {
    if (table < 0 || table >= GS_REC__COUNT) return 0;
    return (uint32_t)(ts->bufs[table].rows > 0xffffffffu ? 0xffffffffu : ts->bufs[table].rows);
}

uint32_t gs_tsim_drain(gs_tsim *ts, int table, void *out, uint32_t max_rows) {
    if (table < 0 || table >= GS_REC__COUNT) return 0;
    gs_recbuf *b = &ts->bufs[table];
    if (!b->rows) return 0;
    size_t avail = b->rows;
    /* with SMs simulated a quantum apart, events and samples of different SMs arrive out of time
     * order: only rows before the current cycle (which every SM has passed) are final */
    if (!ts->finished && table == GS_REC_EVENTS)
        avail = sort_and_mark(b, offsetof(gs_rec_event, cycle), ts->now);
    else if (ts->finished && table == GS_REC_EVENTS)
        sort_rows(b, offsetof(gs_rec_event, cycle));
    if (table == GS_REC_MEM_SAMPLES)
        avail = ts->finished ? (sort_rows(b, offsetof(gs_rec_msample, t_issue)), b->rows)
                             : sort_and_mark(b, offsetof(gs_rec_msample, t_issue), ts->now);
    if (table == GS_REC_WARP_STATES) {
        /* stable order: sort, then hold back rows not yet final (after the last closed interval) */
        sort_rows(b, offsetof(gs_rec_wstate, cycle));
        if (!ts->finished) {
            uint64_t mark = ts->next_interval == GS_NEVER ? GS_NEVER : ts->next_interval - ts->cfg.record_interval_cycles;
            size_t lo = 0, hi = b->rows;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (((gs_rec_wstate *)(b->data + mid * b->row_size))->cycle < mark) lo = mid + 1; else hi = mid;
            }
            avail = lo;
        }
    }
    size_t n = avail < max_rows ? avail : max_rows;
    memcpy(out, b->data, n * b->row_size);
    memmove(b->data, b->data + n * b->row_size, (b->rows - n) * b->row_size);
    b->rows -= n;
    return (uint32_t)n;
}
