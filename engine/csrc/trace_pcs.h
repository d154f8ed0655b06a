/* trace_pcs.h — the trace's per-PC table: one static instruction for each distinct PC, made from the
 * first instruction line that has it (the program's gs_xinst in t->prog.x, the trace facts in t->pcs),
 * its kind, unit and state space looked up in the SASS opcode table (gs_trace_set_opcodes), and the
 * dense map from a PC to its instruction.
 */
#ifndef GS_TRACE_PCS_H
#define GS_TRACE_PCS_H
#include "trace_read.h"

/* PCs index a dense map (pc >> pc_shift -> instruction): past 256 MiB of code (far beyond any kernel's SASS)
 * a PC is refused, which bounds the map to 128 MiB (a PC of 0xffffffff made a 2 GiB map and took minutes) */
#define GS_TR_MAX_PC (1ull << 28)

/* what an instruction line says about its static instruction (dst/src beyond ndst/nsrc are never read) */
typedef struct {
    const char *op; size_t opn;   /* the opcode with its modifiers, "OPCODE.MODS" */
    int dst[8], src[8];           /* register slots (trace_inst.c reg_slot) */
    uint32_t ndst, nsrc, width;
} gs_trparsed;

/* Contract: the program index of pc into *idx: a PC seen before must have the opcode it had then; a new
 * one becomes the next static instruction, made from q. 0, or -1 with t->err set (an opcode not in the
 * table without GS_TRACE_ALLOW_UNKNOWN, a PC beyond GS_TR_MAX_PC, out of memory). */
int gs_tr_lookup_pc(gs_trace *t, uint64_t pc, const gs_trparsed *q, uint32_t *idx);
/* Contract: 0 if static instruction idx has PC pc and opcode q->op (the modifiers included), else -1 with
 * an error naming both opcodes. */
int gs_tr_check_pc(gs_trace *t, uint32_t idx, uint64_t pc, const gs_trparsed *q);
/* the table's memory (gs_trace_close) */
void gs_tr_pcs_free(gs_trace *t);

#endif
