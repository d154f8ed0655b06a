/* exec_async.c — cp.async (copies complete at issue in the functional core; the timing model delays
 * their visibility with commit/wait groups), createpolicy, mbarrier. (Seed version: none yet.) */
#include "exec.h"

gs_handler gs_bind_async(const gs_xinst *x) {
    (void)x;
    return NULL;
}
