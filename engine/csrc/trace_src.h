/* trace_src.h — trace-driven instruction source for the timing model's SMs (docs/traces.md).
 *
 * In a trace-driven launch (gs_tsim_launch_trace) the program is the trace's table of static SASS
 * instructions (one per PC) and each CTA takes the next thread block of the trace when it is placed.
 * The SM's issue path then calls gs_tsrc_step instead of the functional core: it pops the warp's next
 * traced instruction and leaves what the timing model reads after a functional step: the active mask
 * and addresses of a memory access (w->mmask, maddr, msize, mspace, mwrite, matomic), the next PC on
 * the warp's stack, barrier and exit state. Nothing is executed.
 */
#ifndef GS_TRACE_SRC_H
#define GS_TRACE_SRC_H
#include "timing.h"

/* Contract: fills CTA tc (just initialised by gs_cta_init) with the trace's next thread block;
 * 0, or -1 with ts->fault set (end of trace, parse error). */
int gs_tsrc_cta_begin(gs_tsim *ts, gs_tsm *sm, gs_tcta *tc);
/* Contract: one traced instruction of warp tw (its next_pc); returns GS_X_NEXT. */
int gs_tsrc_step(gs_tsim *ts, gs_tsm *sm, gs_tw *tw);

/* Contract: the traced PC (byte address) of program index idx, for instruction fetch. */
uint64_t gs_tsrc_fetch_addr(const gs_tsim *ts, int idx);

#endif
