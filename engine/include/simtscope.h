/* simtscope.h — the public interface of the simtscope C engine.
 *
 * This header is the single source of truth for the Python binding: engine/build_ffi.py feeds it to
 * cffi's cdef after dropping preprocessor lines, so it holds only declarations cffi understands
 * (plain structs, enums with explicit or implicit values, function prototypes). No macros, no inline.
 *
 * Reading order: the IR (what the PTX front end produces), the device (memory), programs and launches,
 * faults, then the timing simulator. Every exported symbol starts with gs_.
 */
#ifndef SIMTSCOPE_H
#define SIMTSCOPE_H
#include <stdint.h>
#include <stddef.h>

/* ---------------------------------------------------------------------------------------------
 * IR: the compact program produced by engine/ptx (Python) and consumed by gs_program_create.
 * --------------------------------------------------------------------------------------------- */

/* Operations. Type, rounding and the other modifiers live in separate fields of gs_ir_inst;
 * the engine binds each (op, type, modifiers) to a type-specialised handler at load time. */
enum gs_op {
    GS_OP_NOP = 0,
    /* integer and bit ops (also float where the PTX name is shared: add, sub, mul, mad, fma, ...) */
    GS_OP_ADD, GS_OP_SUB, GS_OP_MUL, GS_OP_MAD, GS_OP_MUL24, GS_OP_MAD24, GS_OP_SAD,
    GS_OP_DIV, GS_OP_REM, GS_OP_ABS, GS_OP_NEG, GS_OP_MIN, GS_OP_MAX,
    GS_OP_POPC, GS_OP_CLZ, GS_OP_BFIND, GS_OP_FNS, GS_OP_BREV, GS_OP_BFE, GS_OP_BFI,
    GS_OP_PRMT, GS_OP_LOP3, GS_OP_SHF, GS_OP_SHL, GS_OP_SHR,
    GS_OP_AND, GS_OP_OR, GS_OP_XOR, GS_OP_NOT, GS_OP_CNOT,
    GS_OP_ADDC, GS_OP_SUBC, GS_OP_MADC, GS_OP_DP4A, GS_OP_DP2A,
    /* floating point */
    GS_OP_FMA, GS_OP_RCP, GS_OP_SQRT, GS_OP_RSQRT, GS_OP_EX2, GS_OP_LG2, GS_OP_SIN, GS_OP_COS,
    GS_OP_TANH, GS_OP_TESTP, GS_OP_COPYSIGN,
    /* comparison and selection */
    GS_OP_SETP, GS_OP_SET, GS_OP_SELP, GS_OP_SLCT,
    /* data movement and conversion */
    GS_OP_MOV, GS_OP_CVT, GS_OP_CVTA, GS_OP_CVT_PACK,
    GS_OP_LD, GS_OP_ST, GS_OP_LDU, GS_OP_PREFETCH, GS_OP_ATOM, GS_OP_RED, GS_OP_ISSPACEP,
    GS_OP_CP_ASYNC, GS_OP_CP_ASYNC_COMMIT, GS_OP_CP_ASYNC_WAIT,
    GS_OP_LDMATRIX, GS_OP_STMATRIX, GS_OP_CREATEPOLICY, GS_OP_CACHE_HINT, /* applypriority, discard */
    /* control */
    GS_OP_BRA, GS_OP_CALL, GS_OP_RET, GS_OP_EXIT, GS_OP_TRAP, GS_OP_BRKPT, GS_OP_NANOSLEEP,
    GS_OP_BAR, GS_OP_BAR_WARP, GS_OP_MEMBAR,
    /* warp-level */
    GS_OP_SHFL, GS_OP_VOTE, GS_OP_MATCH, GS_OP_REDUX, GS_OP_ACTIVEMASK, GS_OP_ELECT,
    /* tensor cores */
    GS_OP_WMMA_LOAD, GS_OP_WMMA_STORE, GS_OP_WMMA_MMA, GS_OP_MMA,
    GS_OP_WGMMA_MMA, GS_OP_WGMMA_FENCE, GS_OP_WGMMA_COMMIT, GS_OP_WGMMA_WAIT,
    /* Hopper asynchronous barriers (mbarrier) */
    GS_OP_MBARRIER,
    GS_OP__COUNT
};

/* Value types (the PTX type suffixes). */
enum gs_type {
    GS_T_NONE = 0, GS_T_PRED,
    GS_T_B8, GS_T_B16, GS_T_B32, GS_T_B64, GS_T_B128,
    GS_T_U8, GS_T_U16, GS_T_U32, GS_T_U64,
    GS_T_S8, GS_T_S16, GS_T_S32, GS_T_S64,
    GS_T_F16, GS_T_F16X2, GS_T_BF16, GS_T_BF16X2, GS_T_TF32, GS_T_F32, GS_T_F64,
    GS_T_E4M3, GS_T_E5M2, GS_T_E4M3X2, GS_T_E5M2X2, GS_T_U4, GS_T_S4, GS_T_B1,
    GS_T_U16X2, GS_T_S16X2,    /* packed 16-bit integer SIMD (add, min, max; exec_simd.c) */
    GS_T__COUNT
};

/* Rounding modifiers. */
enum gs_rnd {
    GS_RND_NONE = 0, GS_RND_RN, GS_RND_RZ, GS_RND_RM, GS_RND_RP, GS_RND_RNA, GS_RND_RS,
    GS_RND_RNI, GS_RND_RZI, GS_RND_RMI, GS_RND_RPI
};

/* Modifier flags (gs_ir_inst.flags). */
enum gs_flag {
    GS_F_FTZ = 1 << 0, GS_F_SAT = 1 << 1, GS_F_APPROX = 1 << 2, GS_F_FULL = 1 << 3,
    GS_F_HI = 1 << 4, GS_F_LO = 1 << 5, GS_F_WIDE = 1 << 6,
    GS_F_CC = 1 << 7,          /* .cc: write the carry flag */
    GS_F_UNI = 1 << 8,         /* .uni on bra/call/ret */
    GS_F_RELU = 1 << 9, GS_F_NAN = 1 << 10, GS_F_XORSIGN = 1 << 11, GS_F_ABS = 1 << 12,
    GS_F_CLAMP = 1 << 13,      /* shf.clamp, shfl clamp semantics are in the c operand */
    GS_F_VOLATILE = 1 << 14, GS_F_RELAXED = 1 << 15, GS_F_ACQUIRE = 1 << 16, GS_F_RELEASE = 1 << 17,
    GS_F_ALIGNED = 1 << 18,    /* .aligned (bar, wmma, vote...) */
    GS_F_NC = 1 << 19,         /* ld.global.nc */
    GS_F_TRANS = 1 << 20,      /* ldmatrix/stmatrix .trans */
    GS_F_ARRIVE = 1 << 21,     /* bar.arrive */
    GS_F_RED = 1 << 22,        /* bar.red */
    GS_F_NOINC = 1 << 23,      /* cp.async / mbarrier .noinc */
    GS_F_SHIFT_RIGHT = 1 << 24,/* shf.r (else shf.l) */
    GS_F_SIGNED = 1 << 25,     /* mul24/dp4a signedness helper */
    GS_F_SCALE_D = 1 << 26,    /* wgmma: scale-d operand present */
    GS_F_BULK = 1 << 27,
    GS_F_UNSUPPORTED = 1 << 30 /* front end: parsed, but no handler may claim it */
};

/* Comparison operators of setp/set/slct (gs_ir_inst.cmp). */
enum gs_cmp {
    GS_CMP_NONE = 0, GS_CMP_EQ, GS_CMP_NE, GS_CMP_LT, GS_CMP_LE, GS_CMP_GT, GS_CMP_GE,
    GS_CMP_LO, GS_CMP_LS, GS_CMP_HI, GS_CMP_HS,
    GS_CMP_EQU, GS_CMP_NEU, GS_CMP_LTU, GS_CMP_LEU, GS_CMP_GTU, GS_CMP_GEU, GS_CMP_NUM, GS_CMP_NAN
};

/* Sub-operation selector (gs_ir_inst.sub): boolean combine of setp, atomic op, shuffle mode,
 * vote mode, testp class, wmma fragment, mbarrier operation... meaning depends on op. */
enum gs_sub {
    GS_SUB_NONE = 0,
    /* setp/set combine */
    GS_BOOL_AND = 1, GS_BOOL_OR, GS_BOOL_XOR,
    /* atom/red/redux */
    GS_ATOM_ADD = 8, GS_ATOM_MIN, GS_ATOM_MAX, GS_ATOM_EXCH, GS_ATOM_CAS, GS_ATOM_AND, GS_ATOM_OR,
    GS_ATOM_XOR, GS_ATOM_INC, GS_ATOM_DEC,
    /* shfl */
    GS_SHFL_UP = 24, GS_SHFL_DOWN, GS_SHFL_BFLY, GS_SHFL_IDX,
    /* vote / match */
    GS_VOTE_ALL = 32, GS_VOTE_ANY, GS_VOTE_UNI, GS_VOTE_BALLOT, GS_MATCH_ANY, GS_MATCH_ALL,
    /* testp */
    GS_TESTP_FINITE = 40, GS_TESTP_INFINITE, GS_TESTP_NUMBER, GS_TESTP_NOTANUMBER, GS_TESTP_NORMAL,
    GS_TESTP_SUBNORMAL,
    /* wmma fragments */
    GS_FRAG_A = 48, GS_FRAG_B, GS_FRAG_C, GS_FRAG_D,
    /* cp.async wait */
    GS_WAIT_GROUP = 56, GS_WAIT_ALL,
    /* membar / fence level */
    GS_LEVEL_CTA = 60, GS_LEVEL_GPU, GS_LEVEL_SYS, GS_LEVEL_CLUSTER, GS_LEVEL_PROXY,
    /* mbarrier */
    GS_MBAR_INIT = 72, GS_MBAR_ARRIVE, GS_MBAR_ARRIVE_DROP, GS_MBAR_EXPECT_TX, GS_MBAR_TEST_WAIT,
    GS_MBAR_TRY_WAIT, GS_MBAR_INVAL, GS_MBAR_PENDING_COUNT, GS_MBAR_COMPLETE_TX,
    /* trap: a call of the extern __assertfail (device assert); aux = its parameters' local offset */
    GS_TRAP_ASSERTFAIL = 88
};

/* State spaces. */
enum gs_space {
    GS_SPACE_NONE = 0, GS_SPACE_GENERIC, GS_SPACE_GLOBAL, GS_SPACE_SHARED, GS_SPACE_SHARED_CLUSTER,
    GS_SPACE_LOCAL, GS_SPACE_PARAM, GS_SPACE_CONST, GS_SPACE_TEX
};

/* Operand kinds (gs_ir_opnd.kind). */
enum gs_opnd_kind {
    GS_OK_NONE = 0,
    GS_OK_REG,   /* reg: register index (64-bit slot per lane) */
    GS_OK_PRED,  /* reg: predicate index; flags & GS_OF_NEG: logical not */
    GS_OK_IMM,   /* imm: bits of the value (f32 in the low 32 bits, f64 as its 64 bits) */
    GS_OK_SREG,  /* n: enum gs_sreg */
    GS_OK_MEM,   /* [reg + imm]: reg = base register or -1, imm = byte offset (symbols resolved) */
    GS_OK_VEC,   /* n elements follow this operand in the operand array */
    GS_OK_SINK   /* "_" : value discarded */
};
enum gs_opnd_flag { GS_OF_NEG = 1, GS_OF_HI16 = 2 /* .h1 selector, reserved */ };

/* Special registers (gs_ir_opnd.n when kind == GS_OK_SREG). */
enum gs_sreg {
    GS_SR_TID_X = 0, GS_SR_TID_Y, GS_SR_TID_Z, GS_SR_NTID_X, GS_SR_NTID_Y, GS_SR_NTID_Z,
    GS_SR_CTAID_X, GS_SR_CTAID_Y, GS_SR_CTAID_Z, GS_SR_NCTAID_X, GS_SR_NCTAID_Y, GS_SR_NCTAID_Z,
    GS_SR_LANEID, GS_SR_WARPID, GS_SR_NWARPID, GS_SR_SMID, GS_SR_NSMID, GS_SR_GRIDID,
    GS_SR_LANEMASK_EQ, GS_SR_LANEMASK_LT, GS_SR_LANEMASK_LE, GS_SR_LANEMASK_GT, GS_SR_LANEMASK_GE,
    GS_SR_CLOCK, GS_SR_CLOCK_HI, GS_SR_CLOCK64, GS_SR_GLOBALTIMER, GS_SR_GLOBALTIMER_LO,
    GS_SR_GLOBALTIMER_HI, GS_SR_DYN_SMEM_SIZE, GS_SR_TOTAL_SMEM_SIZE,
    GS_SR_CLUSTER_CTARANK, GS_SR_CLUSTER_NCTARANK, GS_SR_CLUSTERID_X, GS_SR_CLUSTERID_Y,
    GS_SR_CLUSTERID_Z, GS_SR_NCLUSTERID_X, GS_SR_NCLUSTERID_Y, GS_SR_NCLUSTERID_Z,
    GS_SR_CLUSTER_CTAID_X, GS_SR_CLUSTER_CTAID_Y, GS_SR_CLUSTER_CTAID_Z,
    GS_SR_CLUSTER_NCTAID_X, GS_SR_CLUSTER_NCTAID_Y, GS_SR_CLUSTER_NCTAID_Z,
    GS_SR_IS_EXPLICIT_CLUSTER, GS_SR_PM0, GS_SR_ZERO,
    GS_SR__COUNT
};

/* One operand. 16 bytes. */
typedef struct gs_ir_opnd {
    uint8_t kind;      /* enum gs_opnd_kind */
    uint8_t flags;     /* enum gs_opnd_flag */
    uint16_t n;        /* VEC: element count; SREG: enum gs_sreg */
    int32_t reg;       /* REG/PRED: index; MEM: base register or -1 */
    int64_t imm;       /* IMM: value bits; MEM: byte offset */
} gs_ir_opnd;

/* One instruction. 40 bytes.
 * Operand order is PTX's: destinations first, then sources, as written (vectors as GS_OK_VEC).
 * setp with two destinations "p|q" gives two PRED operands. */
typedef struct gs_ir_inst {
    uint16_t op;       /* enum gs_op */
    uint8_t type;      /* enum gs_type: the instruction's (first) type suffix */
    uint8_t type2;     /* second type suffix (cvt source, setp compare is in type, mma A/B type) */
    uint8_t space;     /* enum gs_space */
    uint8_t cmp;       /* enum gs_cmp */
    uint8_t sub;       /* enum gs_sub */
    uint8_t rnd;       /* enum gs_rnd */
    uint32_t flags;    /* enum gs_flag */
    int32_t guard;     /* predicate index guarding the instruction, or -1 */
    uint32_t opnd;     /* index of the first operand in the program's operand array */
    uint8_t nopnd;     /* number of top-level operands (vector elements are not counted) */
    uint8_t ndst;      /* how many of them are destinations (written) */
    uint8_t vec;       /* vector width of ld/st/mov (1, 2, 4, 8) */
    uint8_t guard_neg; /* 1: @!p */
    int32_t target;    /* bra: target PC; call: callee entry PC; else -1 */
    int32_t rpc;       /* bra: reconvergence PC (immediate post-dominator), -1 = function exit */
    uint32_t aux;      /* op-specific: mma/wmma shape and layout code (see engine/ptx/decode.py) */
    uint32_t line;     /* PTX source line (1-based) */
} gs_ir_inst;

/* One kernel (.entry) or device function (.func) inside a program. */
typedef struct gs_ir_func {
    int32_t entry_pc;      /* first instruction */
    int32_t end_pc;        /* one past the last instruction */
    uint32_t param_bytes;  /* size of the kernel parameter buffer */
    uint32_t shared_bytes; /* static shared memory of the function (bytes, whole module layout) */
    uint32_t local_bytes;  /* per-thread local memory (static frames of this entry and its callees) */
    uint32_t nregs;        /* register slots used (max index + 1) */
    uint32_t npreds;       /* predicate slots used */
    uint32_t regs_per_thread; /* estimate of hardware registers per thread (occupancy) */
    uint32_t reqntid[3];   /* .reqntid or 0 */
    uint32_t maxntid[3];   /* .maxntid or 0 */
    uint32_t minnctapersm; /* .minnctapersm or 0 */
    uint32_t is_entry;     /* 1: .entry, 0: .func */
} gs_ir_func;

/* ---------------------------------------------------------------------------------------------
 * Faults. Every error inside a kernel stops it with a report; the engine stays usable.
 * --------------------------------------------------------------------------------------------- */
enum gs_fault_kind {
    GS_FAULT_NONE = 0,
    GS_FAULT_OOB,          /* access outside every allocation / outside shared, local, param, const */
    GS_FAULT_MISALIGNED,   /* address not a multiple of the access size */
    GS_FAULT_DEADLOCK,     /* barrier that can never complete */
    GS_FAULT_TRAP,         /* trap / brkpt executed */
    GS_FAULT_LIMIT,        /* instruction or cycle cap reached */
    GS_FAULT_UNSUPPORTED,  /* instruction form without a handler reached at run time */
    GS_FAULT_INVALID,      /* invalid launch or operation (bad shape, bad descriptor, stack) */
    GS_FAULT_INTERRUPTED   /* stopped on request */
};

typedef struct gs_fault {
    int32_t kind;          /* enum gs_fault_kind */
    int32_t func;          /* function index of the running kernel, -1 if none */
    uint32_t cta[3];       /* CTA index */
    int32_t warp;          /* warp index within the CTA, -1 if not warp-specific */
    int32_t lane;          /* lane, -1 if not lane-specific */
    int32_t pc;            /* instruction index, -1 if none */
    uint32_t line;         /* PTX source line, 0 if unknown */
    uint32_t space;        /* enum gs_space of a faulting access */
    uint64_t addr;         /* faulting address */
    uint64_t cycle;        /* cycle (timing) or warp instructions executed (functional) */
    char message[256];
} gs_fault;

/* ---------------------------------------------------------------------------------------------
 * Device: global memory with tracked allocations.
 * --------------------------------------------------------------------------------------------- */
typedef struct gs_device gs_device;

gs_device *gs_device_create(void);
void gs_device_destroy(gs_device *dev);
/* Contract: returns a device address aligned to 256 bytes, or 0 when the allocation fails.
 * Memory reads as zero until written. Allocations are separated by unmapped guard gaps. */
uint64_t gs_malloc(gs_device *dev, uint64_t bytes);
/* Contract: 0 on success, -1 if addr is not the base of a live allocation. */
int gs_free(gs_device *dev, uint64_t addr);
/* Contract: copy host <-> device; 0 on success, -1 if [addr, addr+n) is not inside one allocation. */
int gs_memcpy_htod(gs_device *dev, uint64_t addr, const void *src, uint64_t n);
int gs_memcpy_dtoh(gs_device *dev, void *dst, uint64_t addr, uint64_t n);
int gs_memset(gs_device *dev, uint64_t addr, int value, uint64_t n);
uint64_t gs_device_allocated_bytes(gs_device *dev);

/* ---------------------------------------------------------------------------------------------
 * Programs: an IR module bound to handlers.
 * --------------------------------------------------------------------------------------------- */
typedef struct gs_program gs_program;

/* Contract: copies the arrays. Returns NULL and fills err (name, line) when an instruction has no
 * handler for its (op, type, modifiers): the load-time refusal of unsupported instructions.
 * const_data is the module's .const bank (initialised), copied. */
gs_program *gs_program_create(const gs_ir_inst *insts, uint32_t ninsts,
                              const gs_ir_opnd *opnds, uint32_t nopnds,
                              const gs_ir_func *funcs, uint32_t nfuncs,
                              const uint8_t *const_data, uint32_t const_bytes,
                              char *err, uint32_t errlen);
void gs_program_destroy(gs_program *prog);

/* Functional-unit pipes (engine/config.py UNITS reads the names from here). */
enum gs_unit {
    GS_U_INT = 0, GS_U_FP32, GS_U_FP16, GS_U_FP64, GS_U_SFU, GS_U_TENSOR, GS_U_LDST, GS_U_BRANCH,
    GS_U_BARRIER, GS_U_MISC, GS_U__COUNT
};

/* SASS-aware timing (engine/sass, docs/sass.md): what ptxas made of one IR instruction. */
typedef struct gs_sass_cost {
    uint16_t issue16;  /* issue slots x16: the SASS instructions it became (0: folded into another one) */
    uint16_t pipe16;   /* how many of them (x16) go to `unit` */
    uint8_t unit;      /* enum gs_unit: the pipe its SASS suggests (used for ALU instructions) */
    uint8_t known;     /* 0: no SASS information: timed as a PTX instruction */
    uint8_t path[GS_U__COUNT];  /* its SASS's longest dependence chain: instructions per pipe (enum gs_unit) */
    uint8_t hi_hops;   /* of them, IMAD.HIs (sm.imad_hi_latency_cycles) */
    uint8_t pred_hops; /* predicate hops from a compare to a guarded reader on it (sm.sass_pred_guard_cycles) */
    uint8_t sreg_hops; /* of them, special-register reads (S2R: sm.sreg_latency_cycles, waited for as short_scoreboard) */
} gs_sass_cost;
/* Contract: attaches SASS costs (n: the program's instruction count) and ptxas's registers per thread for
 * each function (nfuncs: the program's function count; 0 = unknown) to the program, replacing earlier ones.
 * Timing launches use them when timing.sass is auto. Returns 0, or -1 (nothing changed) when a count or a
 * unit is out of range or memory runs out. */
int gs_program_set_sass(gs_program *p, const gs_sass_cost *costs, uint32_t n, const uint32_t *regs, uint32_t nfuncs);
/* Contract: 1 if the engine has a handler for this instruction (used by the front end to report
 * every unsupported instruction at once), else 0. */
int gs_inst_supported(const gs_ir_inst *inst, const gs_ir_opnd *opnds);
/* Contract: validates a whole program's IR once (the engine never trusts its input): operand records,
 * register/predicate/sreg indices, branch targets, operand counts and kinds (memory operands only where
 * an address is read, predicates only where one is read or written, sinks never read), vector widths
 * and function memory sizes. Returns -1 if all is well, else the pc of the first malformed instruction
 * with "line N: reason" in err. gs_program_create calls it and refuses what it refuses; the front end
 * calls it to report the problem at its PTX line. */
int32_t gs_ir_check(const gs_ir_inst *insts, uint32_t ninsts, const gs_ir_opnd *opnds, uint32_t nopnds,
                    const gs_ir_func *funcs, uint32_t nfuncs, char *err, uint32_t errlen);
const char *gs_op_name(int op);
/* how the library was compiled: "plain", "profile-guided" or "profile-instrumented", then the target and
 * optimisation level (engine/build_ffi.py), e.g. "profile-guided, -march=native, -O3" */
const char *gs_build_desc(void);

/* ---------------------------------------------------------------------------------------------
 * Launches and the functional run: execute warps, one instruction at a time.
 * --------------------------------------------------------------------------------------------- */
enum gs_status { GS_DONE = 0, GS_RUNNING = 1, GS_FAULTED = 2 };

typedef struct gs_launch_desc {
    int32_t func;              /* kernel (function index) */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dyn_shared_bytes;
    uint64_t max_warp_insts;   /* cap on executed warp instructions (0: none) */
    uint64_t max_cycles;       /* cap on simulated cycles, timing mode (0: none) */
    uint32_t num_sms;          /* %nsmid and CTA placement (functional: CTAs run one at a time) */
    uint32_t seed;
} gs_launch_desc;

typedef struct gs_func_stats {
    uint64_t warp_insts;       /* executed warp instructions (guard-false ones count too, as on HW) */
    uint64_t thread_insts;     /* executed thread instructions (active lanes) */
    uint64_t ctas_done;
    uint64_t ctas_total;
    uint64_t op_counts[GS_OP__COUNT]; /* warp instructions per op */
} gs_func_stats;

typedef struct gs_func_run gs_func_run;

/* Contract: validates the launch (shape, shared size, parameter size) and returns a run, or NULL
 * with fault filled (kind GS_FAULT_INVALID). The program and device must outlive the run. */
gs_func_run *gs_func_launch(gs_device *dev, gs_program *prog, const gs_launch_desc *desc,
                            const uint8_t *params, uint32_t param_bytes, gs_fault *fault);
/* Contract: executes up to budget warp instructions; returns GS_DONE, GS_RUNNING (budget spent)
 * or GS_FAULTED (fault filled; the run is finished and memory holds what was written so far). */
int gs_func_step(gs_func_run *run, uint64_t budget, gs_fault *fault);
void gs_func_get_stats(gs_func_run *run, gs_func_stats *out);
void gs_func_destroy(gs_func_run *run);

/* ---------------------------------------------------------------------------------------------
 * Timing model: cycle-level simulation of a GPU configuration (see engine/README.md).
 * --------------------------------------------------------------------------------------------- */

/* (enum gs_unit, the functional-unit pipes, is above with gs_sass_cost.) */

/* Warp states: Nsight Compute stall-reason names (engine/recording.py WARP_STATES reads them from here). */
enum gs_wstate_kind {
    GS_WS_IDLE = 0, GS_WS_SELECTED, GS_WS_NOT_SELECTED, GS_WS_LONG_SCOREBOARD, GS_WS_SHORT_SCOREBOARD,
    GS_WS_WAIT, GS_WS_MATH_PIPE_THROTTLE, GS_WS_MIO_THROTTLE, GS_WS_LG_THROTTLE, GS_WS_BARRIER,
    GS_WS_MEMBAR, GS_WS_BRANCH_RESOLVING, GS_WS_NO_INSTRUCTION, GS_WS_DISPATCH_STALL, GS_WS_DRAIN,
    GS_WS_SLEEPING, GS_WS_TEX_THROTTLE, GS_WS_MISC, GS_WS_DONE, GS_WS__COUNT
};

/* Choice-valued settings: the config's string values in this order (engine/config.py reads the names from here). */
enum gs_sched_policy { GS_SCHED_GTO = 0, GS_SCHED_LRR, GS_SCHED_TWO_LEVEL, GS_SCHED__COUNT };
enum gs_icache_model { GS_ICACHE_IDEAL = 0, GS_ICACHE_MODEL, GS_ICACHE__COUNT };
enum gs_l2_hash { GS_L2_HASH_LINEAR = 0, GS_L2_HASH_XOR, GS_L2_HASH_BALANCED, GS_L2_HASH_XOR_LINE, GS_L2_HASH__COUNT };
enum gs_dram_policy { GS_DRAM_FCFS = 0, GS_DRAM_OPEN_ROW, GS_DRAM_FR_FCFS, GS_DRAM__COUNT };
/* timing.sass (engine/sass): auto = SASS issue costs and ptxas's registers; off = the PTX as written and the
 * front end's register estimate; regs = the PTX as written, ptxas's registers (occupancy as the JIT's) */
enum gs_sass_mode { GS_SASS_AUTO = 0, GS_SASS_OFF, GS_SASS_REGS, GS_SASS__COUNT };

/* The flat configuration (engine/config.py fills it; field = TOML key with '.' -> '_'). */
typedef struct gs_tconfig {
    uint32_t gpu_num_sms;
    uint32_t gpu_gpcs;                   /* GPCs: whole TPCs of 2 SMs each, the extra TPCs in the last GPCs */
    double gpu_sm_clock_mhz;
    uint32_t gpu_kernel_launch_cycles, gpu_kernel_end_cycles, gpu_cta_launch_cycles;
    double gpu_cta_dispatch_per_cycle;
    uint32_t gpu_cta_release_cycles, gpu_warp_launch_cycles, gpu_sm_cold_fetch_cycles, gpu_cta_accept_after_start;
    double gpu_cta_dispatch_first_cycles;
    uint32_t sm_subcores, sm_max_warps, sm_max_ctas, sm_max_threads, sm_registers, sm_reg_alloc_unit;
    uint32_t sm_max_regs_per_thread, sm_default_regs_per_thread;
    uint32_t sm_l1_shared_kib, sm_shared_max_kib, sm_shared_alloc_unit_bytes, sm_shared_cta_reserved_bytes;
    uint32_t sm_scheduler, sm_two_level_active;           /* enum gs_sched_policy */
    uint32_t sm_subcore_rotate;    /* 1: the sub-core that picks first (shared LSU/MIO queue slots) rotates every cycle */
    uint32_t sm_icache /* enum gs_icache_model */, sm_icache_kib, sm_icache_line_bytes, sm_icache_assoc, sm_icache_miss_cycles;
    uint32_t sm_inst_bytes, sm_barrier_latency_cycles, sm_barrier_per_warp_cycles, sm_dispatch_latency_cycles;
    uint32_t sm_fetch_insts;             /* 0: no fetch model (tsm.c) */
    uint32_t sm_pred_use_latency_cycles; /* a compare's predicate as a guard or select operand (0: its pipe's latency) */
    uint32_t sm_imad_hi_latency_cycles;  /* SASS chains: an IMAD.HI's latency (0: the fp32 pipe's) */
    uint32_t sm_sass_pred_guard_cycles;  /* SASS chains: a compare's predicate read by a guard (0: the pipe's latency) */
    uint32_t sm_sreg_latency_cycles;     /* SASS chains: an S2R's latency (0: the misc pipe's) */
    uint32_t sm_cp_async_wait;         /* 1: cp.async.wait_group/wait_all wait for the data of the groups they retire */
    uint32_t sm_cp_async_latency_cycles; /* with sm_cp_async_wait: a copy's data reaches its group this much after a load's would */
    uint32_t sm_frag_requests;         /* 1: a wmma.load from global issues as the JIT's requests (tsm.c) */
    uint32_t sm_movm_latency_cycles;   /* wmma.load of transposed 16-bit fragments from global: MOVM after the loads */
    uint32_t sm_wgmma_chain_in_pipe;   /* 1: wgmma on an accumulator of an earlier wgmma waits for the pipe only */
    uint32_t sm_wgmma_issue_cycles;    /* wgmma pipe (with chain_in_pipe, tsm.c wgmma_time): a warp's next issue */
    uint32_t sm_wgmma_latency_cycles;  /*   issue (pipe start) to completion, A in registers, + N x cycles_per_n */
    uint32_t sm_wgmma_smem_a_cycles;   /*   added when A comes from a shared-memory descriptor */
    uint32_t sm_wgmma_queue;           /*   wgmma a sub-core's tensor pipe holds beyond the one it runs */
    uint32_t sm_wgmma_reads_block_loads;   /*   1: its operand reads hold back later global accesses (LSU order) */
    double sm_wgmma_cycles_per_n;      /*   pipe cycles per column of N (with the operands' shared-memory reads) */
    double sm_movm_interval_cycles;    /* cycles between one warp's MOVMs (sm_movm_latency_cycles) */
    uint32_t pipes_latency_cycles[GS_U__COUNT];
    uint32_t pipes_interval_cycles[GS_U__COUNT];
    uint32_t l1_line_bytes, l1_sector_bytes, l1_assoc, l1_hit_latency_cycles, l1_mshrs;
    uint32_t l1_lookups_per_cycle, l1_bytes_per_cycle, l1_write_allocate, l1_cache_global_loads, l1_lsu_queue;
    uint32_t l1_wavefront_latency_cycles;  /* an L1 hit's latency per data wavefront of its request after the first */
    uint32_t l1_carveouts_kib[16];
    uint32_t l1_carveouts_kib_count;
    uint32_t shared_banks, shared_bank_bytes, shared_latency_cycles, shared_atomic_cycles, shared_conflict_latency_cycles;
    uint32_t const_latency_cycles, const_param_latency_cycles, const_miss_latency_cycles, const_param_cold_cycles;
    uint32_t icnt_latency_cycles, icnt_sm_bytes_per_cycle;
    uint32_t l2_size_kib, l2_slices, l2_line_bytes, l2_sector_bytes, l2_assoc, l2_hit_latency_cycles;
    uint32_t l2_bytes_per_cycle, l2_hash /* enum gs_l2_hash */, l2_partitions, l2_far_latency_cycles, l2_interleave_bytes;
    double l2_atomic_packet_cycles;
    uint32_t l2_atomic_latency_cycles;
    double l2_partial_write_cycles;
    uint32_t l2_dram_fetch_bytes;
    uint32_t l2_write_miss_dram, l2_store_ack;
    uint32_t l2_coalesce_reads;          /* N >= 2: up to N reads of a sector waiting at a slice share one lookup */
    uint32_t l2_coalesce_gpc;            /* 1: only reads from SMs of one GPC merge (a coalescer per GPC) */
    uint32_t l2_coalesce_until_lookup;   /* 1: a read merges only until the earlier one's tag lookup, not its answer */
    uint32_t l2_memcpy_addr_bits;        /* read by engine/traces (host-to-device copies) */
    uint32_t dram_channels;
    double dram_bandwidth_gbps, dram_efficiency, dram_write_efficiency, dram_latency_ns;
    uint32_t dram_policy /* enum gs_dram_policy */, dram_banks, dram_row_bytes;
    double dram_row_miss_ns;
    double dram_refresh_ns, dram_refresh_interval_ns;   /* per-bank refresh: busy window and its period (0: none) */
    double dram_queue_ns;          /* reads wait max(backlog, dram_queue_ns x u/(1-u)), u: the reads' recent load (0: off) */
    double dram_write_drain_ns;    /* writes queue per channel and take the bus in drains of this long (0: at once) */
    uint32_t record_interval_cycles, record_mem_sample_period;
    uint32_t sim_quantum_cycles;
    uint32_t sim_threads;          /* simulation threads; 0: the cores available */
    uint32_t timing_sass;          /* enum gs_sass_mode: auto uses a program's SASS costs when it has them */
    uint32_t timing_sass_order;    /* front end only (engine/timing.py): blocks issued in ptxas's SASS order */
    uint32_t timing_sass_unroll;   /* Python side only (engine/sass/unroll.py): loops laid out as ptxas's */
    uint32_t timing_sass_div;      /* with timing_sass = regs: integer div/rem still take their SASS costs */
} gs_tconfig;

/* Statistics of one launch (GPGPU-Sim names where one exists, see engine/timing.py). */
typedef struct gs_tstats {
    uint64_t cycles;               /* gpu_sim_cycle: launch to end, overheads included */
    uint64_t warp_insts;           /* warp instructions issued */
    uint64_t thread_insts;         /* gpu_sim_insn: thread instructions (active lanes) */
    uint64_t ctas;
    uint64_t ctas_done;
    uint64_t issue_cycles;         /* sum over schedulers of cycles with an issue */
    uint64_t warp_cycles;          /* sum over SMs and cycles of resident warps (occupancy) */
    uint64_t sm_active_cycles;     /* sum over SMs of cycles with a resident warp */
    uint64_t state_cycles[GS_WS__COUNT];
    uint64_t l1_requests, l1_sectors, l1_hits, l1_misses, l1_mshr_merges;
    uint64_t l1_store_sectors;
    uint64_t shared_insts, shared_wavefronts, bank_conflicts;
    uint64_t l2_sectors, l2_hits, l2_misses, l2_read_sectors, l2_write_sectors, l2_atomic_ops;
    uint64_t dram_read_bytes, dram_write_bytes, dram_row_hits, dram_row_misses;
    uint64_t dram_refresh_waits;         /* DRAM accesses that waited for their bank's refresh */
    uint64_t dram_write_drains;          /* blocks of queued writes put on a DRAM channel's bus (dram.write_drain_ns) */
    uint64_t l2_coalesced;               /* reads merged with one waiting for the same sector (l2.coalesce_reads) */
    uint64_t icache_misses;
    uint64_t unit_insts[GS_U__COUNT];
    uint64_t op_counts[GS_OP__COUNT];
    uint64_t sass_insts16;         /* issue slots charged x16: SASS warp instructions x16 (16 per warp
                                      instruction when the launch ran without SASS costs) */
    uint32_t ctas_per_sm, warps_per_sm, regs_per_thread, shared_per_cta, carveout_kib, occupancy_limiter;
    uint32_t sass_used;            /* 1: the launch was timed with the program's SASS costs */
    uint32_t sass_regs_used;       /* 1: occupancy used ptxas's registers per thread (timing.sass auto, regs) */
} gs_tstats;

/* The occupancy limiter reported in gs_tstats (engine/timing.py LIMITERS reads the names from here). */
enum gs_occupancy_limiter { GS_LIM_CTAS = 0, GS_LIM_WARPS, GS_LIM_THREADS, GS_LIM_REGISTERS, GS_LIM_SHARED,
                            GS_LIM__COUNT };

/* Recorded rows. engine/recording.py reads these layouts and enums from this header's text (engine/enums.py),
 * so the recorder's Python side needs no compiled extension; run files carry them in their meta. */
enum gs_event_kind { GS_EV_KERNEL_START = 0, GS_EV_KERNEL_END, GS_EV_CTA_START, GS_EV_CTA_END, GS_EV__COUNT };
enum gs_rec_table { GS_REC_WARP_STATES = 0, GS_REC_SM_COUNTERS, GS_REC_MEM_COUNTERS, GS_REC_EVENTS,
                    GS_REC_MEM_SAMPLES, GS_REC_PC_STATS, GS_REC__COUNT };
typedef struct gs_rec_wstate {
    uint64_t cycle; uint32_t cta; uint32_t pc; uint32_t active; uint16_t sm; uint16_t slot; uint8_t state;
    uint8_t pad[7];
} gs_rec_wstate;    /* active: the lanes that execute `pc` (0 when no warp) */
typedef struct gs_rec_smc {
    uint64_t cycle0; uint32_t issued; uint32_t thread_insts; uint32_t state_hist[GS_WS__COUNT];
    uint32_t l1_accesses; uint32_t l1_hits; uint32_t l1_misses; uint32_t shared_accesses; uint32_t bank_conflicts;
    uint16_t sm; uint16_t warps_active; uint16_t mshr_used; uint16_t ldst_queue; uint16_t ctas_active; uint16_t pad;
} gs_rec_smc;
typedef struct gs_rec_memc {
    uint64_t cycle0; uint32_t l2_accesses; uint32_t l2_hits; uint32_t l2_misses; uint32_t dram_read_bytes;
    uint32_t dram_write_bytes; uint16_t part; uint16_t l2_queue; uint16_t dram_queue; uint16_t icnt_queue;
    uint32_t pad;
} gs_rec_memc;
typedef struct gs_rec_event {
    uint64_t cycle; uint32_t cta; uint32_t kernel; uint16_t sm; uint8_t kind; uint8_t pad; uint32_t pad2;
} gs_rec_event;
typedef struct gs_rec_msample {
    uint64_t t_issue; uint64_t t_l1; uint64_t t_icnt; uint64_t t_l2; uint64_t t_dram; uint64_t t_return;
    uint64_t addr; uint32_t pc; uint16_t sm; uint16_t slot; uint16_t size; uint8_t write; uint8_t hit_level;
    uint32_t pad;
} gs_rec_msample;
typedef struct gs_rec_pcstat {
    uint64_t issued; uint64_t stalls[GS_WS__COUNT]; uint32_t pc; uint32_t pad;
} gs_rec_pcstat;

typedef struct gs_record_opts {
    uint32_t level;                /* 0 off, 1 summary, 2 full */
    uint64_t sm_mask[16];          /* SMs whose warp states are recorded (full level); all zero: all */
    uint32_t kernel_id;            /* stamped into events */
} gs_record_opts;

typedef struct gs_tsim gs_tsim;

/* Contract: validates the configuration (returns NULL with err filled) and builds the GPU: SMs, caches,
 * interconnect, DRAM. Cache contents persist across launches (one continuous timeline) until
 * gs_tsim_flush, which empties the caches and DRAM row buffers and restarts the timeline at cycle 0. */
gs_tsim *gs_tsim_create(const gs_tconfig *cfg, char *err, uint32_t errlen);
void gs_tsim_destroy(gs_tsim *ts);
void gs_tsim_flush(gs_tsim *ts);
/* Contract: as gs_func_launch, then places CTAs under the occupancy limits; statistics restart. */
int gs_tsim_launch(gs_tsim *ts, gs_device *dev, gs_program *prog, const gs_launch_desc *desc,
                   const uint8_t *params, uint32_t param_bytes, const gs_record_opts *rec, gs_fault *fault);
/* Contract: simulates until the kernel ends or `cycle_budget` more cycles pass: GS_DONE, GS_RUNNING,
 * GS_FAULTED (fault filled). Results of memory operations are exact (execution-driven). */
int gs_tsim_run(gs_tsim *ts, uint64_t cycle_budget, gs_fault *fault);
void gs_tsim_get_stats(gs_tsim *ts, gs_tstats *out);
uint64_t gs_tsim_cycle(gs_tsim *ts);
uint32_t gs_tsim_threads(gs_tsim *ts);       /* the threads it simulates with (sim.threads resolved) */
uint64_t gs_tsim_split_phases(gs_tsim *ts);  /* SM memory phases that ran split in three (diagnostic: tsim.c mem_after) */
uint64_t gs_tsim_split_refused(gs_tsim *ts); /* ... and those of a split quantum kept whole (more read misses than MSHRs, ...) */
uint64_t gs_pool_stack_bytes(void);          /* the stack size of a simulation thread (pool.h) */
uint64_t gs_pool_stack_peak(void);           /* the deepest stack use of any simulation thread that ended */
/* Contract: sets the launched kernel's cycle and warp-instruction caps (0: none), as desc.max_cycles and
 * desc.max_warp_insts do for gs_tsim_launch (a trace launch has no desc of the caller's). */
void gs_tsim_set_caps(gs_tsim *ts, uint64_t max_cycles, uint64_t max_warp_insts);
/* Contract: copies up to max_rows recorded rows of `table` (oldest first) into out and forgets them. */
uint32_t gs_tsim_drain(gs_tsim *ts, int table, void *out, uint32_t max_rows);
uint32_t gs_tsim_pending(gs_tsim *ts, int table);

/* ---------------------------------------------------------------------------------------------
 * Accel-Sim traces (engine/traces, docs/traces.md): a streaming reader of .traceg kernel traces and a
 * trace-driven launch (no functional execution: masks, registers and addresses come from the trace).
 * --------------------------------------------------------------------------------------------- */
enum gs_trace_kind { GS_TK_ALU = 0, GS_TK_LOAD, GS_TK_STORE, GS_TK_ATOMIC, GS_TK_BARRIER, GS_TK_EXIT,
                     GS_TK_BRANCH, GS_TK_MEMBAR, GS_TK_TENSOR, GS_TK_WARP, GS_TK__COUNT };
enum gs_trace_flag { GS_TRACE_ALLOW_UNKNOWN = 1 };

/* One opcode of a SASS table (engine/traces/opcodes.py), keyed by the name before the first '.'. */
typedef struct gs_trace_opinfo {
    char name[24];
    uint8_t unit;          /* gs_unit */
    uint8_t kind;          /* gs_trace_kind */
    uint8_t space;         /* gs_space of memory kinds (GENERIC: classified by address) */
    uint8_t pad;
} gs_trace_opinfo;

typedef struct gs_trace_header {
    char kernel_name[512];
    char nvbit_version[32];
    uint32_t kernel_id, grid[3], block[3], shmem, nregs, binary_version, tracer_version, lineinfo;
    uint64_t cuda_stream_id, shmem_base, local_base;
    uint32_t seen;         /* bit per key found (engine/traces/reader.py HEADER_KEYS order) */
} gs_trace_header;

/* One decoded warp instruction (for inspection and tests). */
typedef struct gs_trace_inst {
    uint64_t pc;
    uint32_t mask, idx, width;
    uint8_t unit, kind, space, pad;
    uint64_t addrs[32];    /* per lane; 0 for inactive lanes */
} gs_trace_inst;

typedef struct gs_trace gs_trace;

/* Contract: reads the header of the kernel trace on fd (read sequentially; the reader closes nothing).
 * Returns NULL with err = "file:line: what is wrong". */
gs_trace *gs_trace_open(int fd, const char *name, char *err, uint32_t errlen);
/* Contract: the SASS opcode table (sorted by name) for the header's binary version; before any block. */
int gs_trace_set_opcodes(gs_trace *t, const gs_trace_opinfo *ops, uint32_t nops, uint32_t flags);
void gs_trace_close(gs_trace *t);
void gs_trace_get_header(gs_trace *t, gs_trace_header *out);
/* Contract: reads the next thread block: 1, 0 at the end of the trace, -1 on error (gs_trace_error). */
int gs_trace_next_block(gs_trace *t);
const char *gs_trace_error(gs_trace *t);
uint32_t gs_trace_block_warps(gs_trace *t, uint32_t *id3);
uint32_t gs_trace_warp_insts(gs_trace *t, uint32_t warp);
int gs_trace_get_inst(gs_trace *t, uint32_t warp, uint32_t i, gs_trace_inst *out);
uint32_t gs_trace_num_pcs(gs_trace *t);
/* Contract: the PC and SASS text of static instruction idx (text truncated to len); -1 if out of range. */
int gs_trace_pc_info(gs_trace *t, uint32_t idx, uint64_t *pc, char *text, uint32_t len);
/* dynamic instructions with an opcode missing from the table (GS_TRACE_ALLOW_UNKNOWN), their names */
uint64_t gs_trace_unknown(gs_trace *t, char *names, uint32_t len);
uint64_t gs_trace_insts_read(gs_trace *t);
/* Contract: as gs_tsim_launch, with the kernel's shape from the trace header; thread blocks are read
 * from t as CTAs are placed (only those in flight are held). t must outlive the run. */
int gs_tsim_launch_trace(gs_tsim *ts, gs_device *dev, gs_trace *t, const gs_record_opts *rec, gs_fault *fault);
/* The validation suite's splitmix64 generator (gpu-workload/1 `rng` buffers): n elements of `kind` into out,
 * element i from the (i+1)-th output after `seed`; uniform kinds: lo + (hi - lo) * u rounded to the type,
 * integer kinds: z mod ispan + ilo, wrapped to 32 bits. Returns -1 (nothing written) for an unknown kind or
 * ispan 0. engine/workload/bundle.py's numpy version is the reference. */
enum { GS_RNG_F32 = 0, GS_RNG_F16 = 1, GS_RNG_BF16 = 2, GS_RNG_I32 = 3, GS_RNG_U32 = 4 };
int gs_rng_fill(void *out, uint64_t n, int kind, uint64_t seed, double lo, double hi, int64_t ilo, uint64_t ispan);
/* Contract: the L2 holds [addr, addr + bytes) as after a host-to-device copy (GPGPU-Sim's
 * gpgpu_perf_sim_memcpy): every sector valid and clean in its home slice. */
void gs_tsim_fill_l2(gs_tsim *ts, uint64_t addr, uint64_t bytes);

#endif
