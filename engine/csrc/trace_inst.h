/* trace_inst.h — one instruction line of a trace's thread block into the block's records. */
#ifndef GS_TRACE_INST_H
#define GS_TRACE_INST_H
#include "trace_read.h"

/* Contract: parses instruction line s[0..n) (leading blanks skipped) into a new record of b (and its
 * addresses into b->addrs), its PC's static instruction found or made in the per-PC table; counts
 * t->insts_read and t->unknown_insts. 0, or -1 with t->err set. The caller keeps the warp's count. */
int gs_tr_parse_inst(gs_trace *t, gs_trblock *b, const char *s, size_t n);

#endif
