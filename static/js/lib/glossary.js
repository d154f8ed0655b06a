// What every warp state means: Nsight Compute's warp stall reasons (Kernel Profiling Guide, "Warp
// Stall Reasons"), in our words, and what simtscope charges to each. A warp is in exactly one state per
// cycle; stall cycles are charged to the instruction the warp is waiting to issue (as Nsight's source
// view does), issue cycles (`selected`) to the instruction issued.

export const GLOSSARY = {
  selected: {
    title: 'Selected (issued)',
    kind: 'issue',
    text: 'The scheduler picked this warp and it issued an instruction this cycle. Not a stall: one cycle per warp instruction issued.',
  },
  not_selected: {
    title: 'Not selected',
    kind: 'stall',
    text: 'The warp was eligible (ready to issue) but its scheduler issued another warp this cycle. Many not-selected cycles mean there are more ready warps than issue slots: latency is hidden and the issue rate is the limit. A warp waiting for a pipe that takes one instruction every few cycles is not selected in the cycles the pipe takes another warp\'s instruction and throttled in between (as Nsight counts it); simtscope\'s timeline shows those cycles as one run before the throttle.',
  },
  long_scoreboard: {
    title: 'Long scoreboard',
    kind: 'stall',
    text: 'Waiting for a register written by an L1TEX operation: a global or local memory load (or texture/surface access) still in flight. The memory system (L1 misses, L2, DRAM) is the cause; fewer misses, more independent loads per warp, or more resident warps help.',
  },
  short_scoreboard: {
    title: 'Short scoreboard',
    kind: 'stall',
    text: 'Waiting for a register written by an MIO operation that does not go through L1TEX: shared memory loads, special-function math (MUFU: ex2, rcp, sqrt, ...), warp shuffles and votes, special-register reads (S2R: threadIdx, %laneid; 22 cycles on the H200). Shared-memory bank conflicts and long chains of SFU operations raise it.',
  },
  wait: {
    title: 'Wait',
    kind: 'stall',
    text: 'Waiting out a fixed-latency dependency: the result of an ALU or FMA instruction (or a predicate) is not ready yet, or the fixed delay between two dependent instructions; also the gap a warp keeps after its own instruction on a pipe that takes one per few cycles (ptxas writes both as stall counts). Mostly long dependency chains with too few independent instructions between them.',
  },
  math_pipe_throttle: {
    title: 'Math pipe throttle',
    kind: 'stall',
    text: 'The instruction is ready but the execution pipe it needs (FMA, ALU, FP64, tensor, ...) is busy with other warps\' instructions (the SFU\'s MUFU count as MIO throttle). The pipe is the bottleneck: its throughput, not latency, limits the warp.',
  },
  mio_throttle: {
    title: 'MIO throttle',
    kind: 'stall',
    text: 'The instruction is ready but the MIO (memory input/output) instruction queue is full: shared memory, special math, shuffles and other MIO instructions are issued faster than that unit drains them.',
  },
  lg_throttle: {
    title: 'LG throttle',
    kind: 'stall',
    text: 'The instruction is ready but the L1 instruction queue for local and global (LG) memory operations is full: too many memory instructions in a row. Wider (vectorised) accesses mean fewer of them.',
  },
  barrier: {
    title: 'Barrier',
    kind: 'stall',
    text: 'Waiting at a CTA barrier (bar.sync / __syncthreads) for the other warps of its CTA to arrive. Uneven work between warps before the barrier shows up here.',
  },
  membar: {
    title: 'Membar',
    kind: 'stall',
    text: 'Waiting at a memory barrier (membar / fence) until the warp\'s earlier memory operations are visible.',
  },
  branch_resolving: {
    title: 'Branch resolving',
    kind: 'stall',
    text: 'Waiting for a branch target to be computed and the warp\'s program counter to be updated after a branch instruction.',
  },
  no_instruction: {
    title: 'No instruction',
    kind: 'stall',
    text: 'The warp has no instruction to issue: an instruction-cache miss, the fetch after a jump, or a warp just placed on the SM waiting for its first instruction (so it is typical of very short kernels).',
  },
  dispatch_stall: {
    title: 'Dispatch stall',
    kind: 'stall',
    text: 'The warp was picked but the dispatcher could not send the instruction on.',
  },
  drain: {
    title: 'Drain',
    kind: 'stall',
    text: 'The warp has executed EXIT and waits for its stores to leave the SM before its slot is freed (a memory fence, not EXIT, waits for the L2 to accept them). Large when stores queue in the SM, as scattered stores do.',
  },
  sleeping: {
    title: 'Sleeping',
    kind: 'stall',
    text: 'All threads of the warp are asleep (nanosleep) or blocked in a warp-level wait.',
  },
  tex_throttle: {
    title: 'TEX throttle',
    kind: 'stall',
    text: 'The instruction is ready but the L1 instruction queue for texture operations is full.',
  },
  misc: {
    title: 'Misc',
    kind: 'stall',
    text: 'A stall for a reason no other state covers.',
  },
  idle: {
    title: 'Idle (no warp)',
    kind: 'none',
    text: 'No warp is resident in this warp slot. Not a stall and not counted in the stall totals; the share of busy slots is the occupancy.',
  },
  done: {
    title: 'Done',
    kind: 'none',
    text: 'The warp has finished and its slot is not yet reused. Not counted in the stall totals.',
  },
};

export function definition(state) {
  return (GLOSSARY[state] && GLOSSARY[state].text) || '';
}
