/* livein.h — which register slots a CTA's warps must find cleared when they start.
 *
 * A warp's register file starts as zeros: a thread that reads a register it never wrote reads 0, and
 * results depend on that. Clearing the whole file at every CTA start was 5.6 % of a wmma GEMM's host
 * instructions, though most slots are written before anything reads them. gs_livein_compute finds, per
 * entry function, the slots that can be read before they are written, and cta.c clears only those, in a
 * fresh register file too (its other slots hold whatever the heap left: nothing reads them first).
 * A slot is in the set when
 *   (a) some thread may read it before writing it on some path from the entry: live at the entry, by a
 *       backward dataflow over the function's instructions, in which only instructions that read and
 *       write nothing but their own lane's registers (GS_LANE_LOCAL below) read or write; a guarded one
 *       reads its sources and writes nothing (its guard may be false); branches go to their target and,
 *       conservatively, also fall through;
 *   (b) or any other instruction names it, as a source or a destination: shuffles, votes, matches and
 *       reductions, wmma/mma/wgmma fragments, ldmatrix, barriers with a reduction, atomics (whose
 *       destination the memory phase writes later), cp.async, mbarrier, the waits whose count the timing
 *       model reads from lane 0, ... read other lanes' registers, or registers at other times, or are
 *       simply not examined here: their slots are always cleared.
 * A function that calls another (arguments and callee registers live across the call) gets every slot.
 * The values a thread reads are then those of a cleared file, so results stay byte-identical.
 *
 * Contract: gs_livein_compute(p) fills p->clr_runs / p->clr_first (runs of absolute slot numbers, sorted,
 * per function f: runs clr_first[f] .. clr_first[f + 1] - 1; a run's n may reach past the register file:
 * clamp it) and returns 0, or -1 when out of host memory (nothing filled: the caller clears everything). */
#ifndef GS_LIVEIN_H
#define GS_LIVEIN_H
#include <stdint.h>

typedef struct gs_slot_run {
    uint32_t first, n;            /* slots first .. first + n - 1 */
} gs_slot_run;

struct gs_program;
int gs_livein_compute(struct gs_program *p);

#endif
