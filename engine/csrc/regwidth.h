/* regwidth.h — which register slots are stored in 32-bit lanes, and where every slot lives in w->R.
 *
 * Why: the timing model's speed on one host thread is bound by host memory latency. Between two issues of a
 * warp every other SM runs, so the warp's registers are cold: each operand costs its 256 B (four host
 * cache lines) of 64-bit lanes. Most PTX registers are 32-bit (the suite declares 3,512 of 32 bits, 644 of
 * 64), so keeping those in 32-bit lanes halves the lines an operand costs.
 *
 * Rule (decided per slot when the program is loaded, so it holds by construction): a slot is narrow iff
 * every operand naming it, in every instruction of the program, (a) names a register declared at most 32
 * bits wide (the operand's n; 0, unknown, counts as wide) and (b) belongs to an instruction whose handler
 * reads and writes its registers through exec.h's width-aware accessors (GS_IN, GS_OUT, gs_base_lane):
 * the binders' families say which handlers do (gs_n32_<family>). A slot shared by several PTX registers
 * (engine/ptx/regalloc.py) is narrow only if all of them are. Since the engine keeps every register
 * zero-extended from its declared width, a narrow slot's values fit in 32 bits and reading one back
 * widened gives the 64-bit slot's value exactly. A handler outside the converted families never sees a
 * narrow register, because (b) forces every slot it touches wide. No fixpoint is needed: each operand's
 * width is its own (x->n32), so one instruction's operands do not constrain each other.
 *
 * Layout: the constant slots first (unchanged), then the register slots in slot order, a wide slot taking
 * a whole 32 x 64-bit block and two narrow slots sharing one (offsets stay in uint64 units, a narrow slot
 * starting at a multiple of 16). A slot's offset never exceeds its old one (slot * 32), so the register
 * file's size (nregs_total slots) and its clearing are unchanged. The timing model keeps numbering
 * registers by slot (scoreboard, x->rd / x->wr, dst_slot, src_slot); only storage offsets (x->o, x->ops,
 * x->mem_base) change, and gs_program.slot_off maps a slot to its storage (register prefetches).
 */
#ifndef GS_REGWIDTH_H
#define GS_REGWIDTH_H
#include "internal.h"

#define GS_SLOT_N32 0x80000000u   /* in gs_program.slot_off: the slot has 32-bit lanes */

/* Contract: called once by gs_program_create after every instruction is decoded and bound, with
 * narrow_ok[i] != 0 iff instruction i's handler uses the width-aware accessors for all its registers.
 * Fills p->nslots, p->slot_off and every instruction's n32 / base32, and rewrites register offsets in
 * x->o, x->ops and x->mem_base. Returns 0, or -1 when out of host memory (nothing is narrowed then). */
int gs_regwidth_layout(gs_program *p, const uint8_t *narrow_ok);

/* Contract: the storage of slot s of warp register file R: its 64-bit lanes, or NULL if the slot is narrow
 * (then *n32 is its 32-bit lanes). For callers outside the handlers (prefetching, dumps). */
static inline uint64_t *gs_slot_lanes(const gs_program *p, uint64_t *R, uint32_t s, uint32_t **n32) {
    uint32_t o = p->slot_off ? p->slot_off[s] : s * GS_WARP;
    if (o & GS_SLOT_N32) { *n32 = (uint32_t *)(R + (o & ~GS_SLOT_N32)); return NULL; }
    *n32 = NULL;
    return R + o;
}

/* families whose handlers all use the accessors: 1 if h is such a handler (one per exec_*.c file that
 * has converted handlers) */
int gs_n32_int(gs_handler h);
int gs_n32_float(gs_handler h);
int gs_n32_move(gs_handler h);
int gs_n32_mem(gs_handler h);
int gs_n32_cmp(gs_handler h);
int gs_n32_bits(gs_handler h);
int gs_n32_cvt(gs_handler h);
int gs_n32_warp(gs_handler h);
int gs_n32_sfu(gs_handler h);

#endif
