/* warpsched.h — warp scheduler policies of a sub-core. One entry point; the policy comes from the config
 * (sm.scheduler: gto, lrr, two_level) through a table in sched.c.
 * (Not named sched.h: engine/csrc is on the include path and would shadow the system <sched.h>.)
 *
 * Contract of gs_sched_pick: returns the warp slot to issue at `now`, or -1; when none is eligible,
 * *min_next receives the earliest cycle one could become eligible (GS_NEVER if only an external event
 * such as a barrier release can change that). Marks pipe-throttled warps for state accounting. */
#ifndef GS_SCHED_H
#define GS_SCHED_H
#include "timing.h"

int gs_sched_pick(gs_tsim *ts, gs_tsm *sm, gs_subcore *sc, uint64_t now, uint64_t *min_next);

#endif
