/* trace_header.h — the header of an Accel-Sim kernel trace: its `-key = value` lines into t->hdr. */
#ifndef GS_TRACE_HEADER_H
#define GS_TRACE_HEADER_H
#include "trace_read.h"

/* Contract: reads the header lines up to the first #BEGIN_TB (consumed: t->in_tb set) or the end of the
 * input into t->hdr; keys it does not know (later tracers') are skipped. Requires grid dim, block dim,
 * binary version and a tracer version of 3, 4 or 5; nregs defaults to 32. 0, or -1 with t->err set. */
int gs_tr_parse_header(gs_trace *t);

#endif
