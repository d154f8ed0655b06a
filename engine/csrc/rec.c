/* rec.c — the recorder component: row buffers per table, per-SM staging, ordered drains (see rec.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "rec.h"

static const size_t ROW_SIZE[GS_REC__COUNT] = {
    sizeof(gs_rec_wstate), sizeof(gs_rec_smc), sizeof(gs_rec_memc), sizeof(gs_rec_event),
    sizeof(gs_rec_msample), sizeof(gs_rec_pcstat)};
static const int STAGE_TABLE[GS_STAGE__COUNT] = {GS_REC_WARP_STATES, GS_REC_EVENTS, GS_REC_MEM_SAMPLES};

int gs_rec_init(gs_rec *r, uint32_t nsm) {
    memset(r, 0, sizeof *r);
    for (int t = 0; t < GS_REC__COUNT; t++) r->bufs[t].row_size = ROW_SIZE[t];
    r->nsm = nsm;
    r->stage = calloc((size_t)nsm * GS_STAGE__COUNT, sizeof *r->stage);
    r->staged = calloc(nsm ? nsm : 1, 1);
    r->direct = calloc(nsm ? nsm : 1, 1);
    if (!r->stage || !r->staged || !r->direct) return -1;
    for (uint32_t s = 0; s < nsm; s++)
        for (int k = 0; k < GS_STAGE__COUNT; k++) r->stage[s * GS_STAGE__COUNT + k].row_size = ROW_SIZE[STAGE_TABLE[k]];
    return 0;
}

static void buf_free(gs_recbuf *b) { free(b->data); b->data = NULL; b->cap = b->rows = 0; }

void gs_rec_free(gs_rec *r) {
    for (int t = 0; t < GS_REC__COUNT; t++) buf_free(&r->bufs[t]);
    for (uint32_t i = 0; r->stage && i < r->nsm * GS_STAGE__COUNT; i++) buf_free(&r->stage[i]);
    free(r->stage);
    free(r->staged);
    free(r->direct);
    r->stage = NULL;
    r->staged = r->direct = NULL;
}

void gs_rec_begin(gs_rec *r, const gs_record_opts *opts) {
    if (opts) r->opts = *opts; else memset(&r->opts, 0, sizeof r->opts);
}

static int reserve(gs_recbuf *b, size_t n) {
    if (b->rows + n <= b->cap) return 0;
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->rows + n) cap *= 2;
    uint8_t *d = realloc(b->data, cap * b->row_size);
    if (!d) return -1;                  /* recording degrades, simulation goes on */
    b->data = d;
    b->cap = cap;
    return 0;
}

static void push(gs_recbuf *b, const void *row) {
    if (reserve(b, 1)) return;
    memcpy(b->data + b->rows * b->row_size, row, b->row_size);
    b->rows++;
}

/* the buffer a row of SM `sm` for table `stage` goes to now */
static inline gs_recbuf *target(gs_rec *r, int stage, uint32_t sm) {
    if (!(r->staging && sm < r->nsm) || r->direct[sm]) return &r->bufs[STAGE_TABLE[stage]];
    r->staged[sm] = 1;
    return &r->stage[sm * GS_STAGE__COUNT + stage];
}

void gs_rec_on_state(gs_rec *r, const gs_rec_wstate *row) { push(target(r, GS_STAGE_STATES, row->sm), row); }

void gs_rec_on_event(gs_rec *r, uint64_t cycle, int kind, int sm, uint32_t cta) {
    if (r->opts.level < 1) return;
    gs_rec_event e = {0};
    e.cycle = cycle;
    e.kind = (uint8_t)kind;
    e.sm = (uint16_t)sm;
    e.cta = cta;
    e.kernel = r->opts.kernel_id;
    push(target(r, GS_STAGE_EVENTS, (uint32_t)sm), &e);
}

void gs_rec_on_memory_sample(gs_rec *r, const gs_rec_msample *row) {
    if (r->opts.level < 2) return;
    push(target(r, GS_STAGE_SAMPLES, row->sm), row);
}

void gs_rec_on_interval(gs_rec *r, const gs_rec_smc *sms, uint32_t nsm, const gs_rec_memc *parts, uint32_t nparts) {
    if (r->opts.level < 1) return;
    for (uint32_t i = 0; i < nsm; i++) push(&r->bufs[GS_REC_SM_COUNTERS], &sms[i]);
    for (uint32_t i = 0; i < nparts; i++) push(&r->bufs[GS_REC_MEM_COUNTERS], &parts[i]);
}

void gs_rec_on_pc_stat(gs_rec *r, const gs_rec_pcstat *row) {
    if (r->opts.level >= 1) push(&r->bufs[GS_REC_PC_STATS], row);
}

void gs_rec_stage_on(gs_rec *r) { r->staging = 1; }
void gs_rec_stage_off(gs_rec *r) { r->staging = 0; }

void gs_rec_stage_flush(gs_rec *r, uint32_t sm) {
    if (sm >= r->nsm || !r->staged[sm]) return;
    r->staged[sm] = 0;
    for (int k = 0; k < GS_STAGE__COUNT; k++) {
        gs_recbuf *s = &r->stage[sm * GS_STAGE__COUNT + k], *b = &r->bufs[STAGE_TABLE[k]];
        if (!s->rows) continue;
        if (!reserve(b, s->rows)) {
            memcpy(b->data + b->rows * b->row_size, s->data, s->rows * s->row_size);
            b->rows += s->rows;
        }
        s->rows = 0;
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

uint32_t gs_rec_pending(const gs_rec *r, int table) {
    if (table < 0 || table >= GS_REC__COUNT) return 0;
    return (uint32_t)(r->bufs[table].rows > 0xffffffffu ? 0xffffffffu : r->bufs[table].rows);
}

uint32_t gs_rec_drain(gs_rec *r, int table, void *out, uint32_t max_rows, uint64_t now, uint64_t mark, int finished) {
    if (table < 0 || table >= GS_REC__COUNT) return 0;
    gs_recbuf *b = &r->bufs[table];
    if (!b->rows) return 0;
    size_t avail = b->rows;
    /* with SMs simulated a quantum apart, events and samples of different SMs arrive out of time
     * order: only rows before the current cycle (which every SM has passed) are final */
    if (table == GS_REC_EVENTS)
        avail = finished ? (sort_rows(b, offsetof(gs_rec_event, cycle)), b->rows)
                         : sort_and_mark(b, offsetof(gs_rec_event, cycle), now);
    if (table == GS_REC_MEM_SAMPLES)
        avail = finished ? (sort_rows(b, offsetof(gs_rec_msample, t_issue)), b->rows)
                         : sort_and_mark(b, offsetof(gs_rec_msample, t_issue), now);
    if (table == GS_REC_WARP_STATES)          /* rows after the last closed interval are not final */
        avail = finished ? (sort_rows(b, offsetof(gs_rec_wstate, cycle)), b->rows)
                         : sort_and_mark(b, offsetof(gs_rec_wstate, cycle), mark);
    size_t n = avail < max_rows ? avail : max_rows;
    memcpy(out, b->data, n * b->row_size);
    memmove(b->data, b->data + n * b->row_size, (b->rows - n) * b->row_size);
    b->rows -= n;
    return (uint32_t)n;
}
