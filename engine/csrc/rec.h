/* rec.h — the recorder as a component: the timing model reports through four hooks and never sees
 * the row buffers; the recorder knows nothing of SMs or warps beyond the rows it is given.
 *
 *   on_state(row)            a warp-state change (full level, SMs the model chose to record)
 *   on_event(cycle, kind...) kernel start/end (GS_EV_*), CTA launch/finish
 *   on_memory_sample(row)    one sampled memory request with its times along the hierarchy (full)
 *   on_interval(rows...)     the closed interval's per-SM and per-partition counters (summary)
 *   on_pc_stat(row)          per-PC issue and stall totals at the end (summary)
 *
 * Levels: 0 off (nothing), 1 summary, 2 full. Staging: while SMs run on several threads, rows of SM s
 * go to its own staging buffer (gs_rec_stage_on), appended to the tables in SM order at the end of
 * the quantum (gs_rec_stage_flush), so the tables are the same for any thread count.
 *
 * Warp-state rows are written when a warp's states are accounted (at its issue, or at the latest at
 * the next interval boundary), so they can lag by up to one interval; gs_rec_drain sorts them and
 * only releases rows older than the last closed interval, so every table reaches Python in cycle order.
 */
#ifndef GS_REC_H
#define GS_REC_H
#include <stddef.h>
#include <stdint.h>
#include "simtscope.h"

/* event kinds: enum gs_event_kind (GS_EV_*) in simtscope.h, where the recorded rows and their enums are defined */

/* a growable array of recorded rows */
typedef struct gs_recbuf {
    uint8_t *data;
    size_t rows, cap, row_size, head;
} gs_recbuf;

enum { GS_STAGE_STATES, GS_STAGE_EVENTS, GS_STAGE_SAMPLES, GS_STAGE__COUNT };

typedef struct gs_rec {
    gs_record_opts opts;
    gs_recbuf *stage;                  /* nsm * GS_STAGE__COUNT */
    uint8_t *staged;                   /* per SM: some row is staged (the flush looks at nothing else) */
    uint8_t *direct;                   /* per SM: its memory phase runs, its rows go to the tables even while
                                        * other SMs stage theirs (tsim.c pipelines the two phases) */
    uint32_t nsm;
    int staging;
    /* the tables, written by the memory phase while SM threads read the fields above: own cache lines */
    _Alignas(64) gs_recbuf bufs[GS_REC__COUNT];
} gs_rec;

int gs_rec_init(gs_rec *r, uint32_t nsm);
void gs_rec_free(gs_rec *r);
void gs_rec_begin(gs_rec *r, const gs_record_opts *opts);   /* a launch: its options */

void gs_rec_on_state(gs_rec *r, const gs_rec_wstate *row);
void gs_rec_on_event(gs_rec *r, uint64_t cycle, int kind, int sm, uint32_t cta);
void gs_rec_on_memory_sample(gs_rec *r, const gs_rec_msample *row);
void gs_rec_on_interval(gs_rec *r, const gs_rec_smc *sms, uint32_t nsm, const gs_rec_memc *parts, uint32_t nparts);
void gs_rec_on_pc_stat(gs_rec *r, const gs_rec_pcstat *row);

void gs_rec_stage_on(gs_rec *r);
void gs_rec_stage_flush(gs_rec *r, uint32_t sm);   /* appends SM sm's staged rows to the tables */
void gs_rec_stage_off(gs_rec *r);
static inline void gs_rec_direct(gs_rec *r, uint32_t sm, int on) { if (sm < r->nsm) r->direct[sm] = (uint8_t)on; }

uint32_t gs_rec_pending(const gs_rec *r, int table);
/* Moves up to max_rows final rows of `table` to out. `now`: every SM has passed this cycle; `mark`:
 * the start of the current (open) interval; `finished`: the run ended, every row is final. */
uint32_t gs_rec_drain(gs_rec *r, int table, void *out, uint32_t max_rows, uint64_t now, uint64_t mark, int finished);

#endif
