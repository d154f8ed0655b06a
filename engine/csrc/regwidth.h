/* regwidth.h — which registers are stored in 32-bit lanes, and where every register lives in w->R.
 *
 * Why: the timing model's speed on one host thread is bound by host memory latency. Between two issues of a
 * warp every other SM runs, so the warp's registers are cold: each operand costs its 256 B (four host
 * cache lines) of 64-bit lanes. Most PTX registers are 32-bit (the suite declares 3,512 of 32 bits, 644 of
 * 64), so keeping those in 32-bit lanes halves the lines an operand costs.
 *
 * Rule (decided when the program is loaded, so it holds by construction). The allocator (engine/ptx/regalloc.py)
 * lets registers with disjoint lifetimes share a slot, 32-bit and 64-bit ones alike, and the timing model
 * numbers registers by slot (scoreboard, x->rd / x->wr, dst_slot, src_slot: that numbering and so every
 * timing result is unchanged here). Storage widths are chosen per slot and width class instead: a slot's
 * registers declared at most 32 bits wide (operand n in 1..32) form one class, its wider ones (or of unknown
 * width, n = 0) another. Giving the classes different lane widths is exact because a register is always
 * named with its own declared width and two registers of one slot are never live at once (the allocator's
 * guarantee), so no value passes from one to the other through the slot. A slot named by any operand of
 * unknown width (n = 0: the SASS loop unroller's guard instructions, engine/sass/unroll.py) keeps 64-bit
 * lanes for all its registers. A slot's 32-bit class is stored in 32-bit lanes iff every operand naming a
 * register of it belongs to an instruction whose handler reads and writes registers through exec.h's
 * width-aware accessors (GS_IN, GS_OUT, gs_base_lane, gs_all32's fast paths: the binders' families say
 * which, gs_n32_<family>) and is among the instruction's first 32 flat operands (x->n32 is 32 bits). The
 * engine keeps a register's value within its declared width (one exception, exec.h's GS_REG32_CHECK note:
 * sign-extended immediates, whose upper half no reader looks at), so it fits in 32 bits and reading it back
 * widened gives every reader the value it reads now (builds with -DGS_REG32_CHECK trap otherwise). A
 * handler outside the converted families never sees a register in 32-bit lanes. No fixpoint is needed:
 * each operand's width is its own (x->n32), so one instruction's operands do not constrain each other.
 *
 * Layout: the constant slots first (unchanged), then the slots in slot order: a slot with registers wider
 * than 32 bits keeps its 32 x 64-bit block, which its 32-bit registers overlay (in 32-bit lanes, the block's
 * first two lines, when narrow; the two classes are never live at once, as above); a slot of 32-bit
 * registers only, when narrow, takes half a block (two such slots share one). Offsets stay in uint64 units
 * (a narrow register starts at a multiple of 16) and never exceed the slot's old one (slot * 32), so the
 * register file never grows: gs_regwidth_store gives a launch's size (gs_ctx.nstore; cta.c allocates and
 * clears that). Register prefetches (tsm.c) take each listed register's storage from gs_program.sb_off,
 * which lies beside x->rd / x->wr (a slot's registers may have different storage).
 *
 * Why not split the slots themselves by width (the allocator keeping 32-bit and 64-bit registers apart):
 * measured, it changes timing results (3 of benchmarks/identity.py's 21 launches), because the scoreboard
 * works per slot and a different sharing of slots moves false dependences.
 */
#ifndef GS_REGWIDTH_H
#define GS_REGWIDTH_H
#include "internal.h"

#define GS_SLOT_N32 0x80000000u   /* in gs_program.sb_off: the register has 32-bit lanes */

/* Contract: called once by gs_program_create after every instruction is decoded and bound, with
 * narrow_ok[i] != 0 iff instruction i's handler uses the width-aware accessors for all its registers.
 * Fills p->nslots, p->sb_off, p->store_end, p->slot_why and every instruction's n32 / base32, and
 * rewrites register offsets in x->o, x->ops and x->mem_base. Returns 0, or -1 when out of host memory
 * (the program is unusable then). */
int gs_regwidth_layout(gs_program *p, const uint8_t *narrow_ok);

/* Contract: the storage (32 x 64-bit blocks) a register file needs for slots [0, nslots) (constants
 * included); nslots itself for a program without a layout (trace-driven kernels). */
uint32_t gs_regwidth_store(const gs_program *p, uint32_t nslots);

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
int gs_n32_wmma(gs_handler h);

#endif
