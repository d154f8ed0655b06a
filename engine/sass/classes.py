"""SASS opcodes (Hopper, sm_90a) -> instruction classes -> the timing model's pipes.

A class says what kind of work an instruction is; `UNIT_OF` says which of the model's pipes
(`enum gs_unit`, configs' [pipes.*]) runs it. Sources: the CUDA C++ Programming Guide's throughput table
for compute capability 9.0 (type conversions other than between 8/16- and 32-bit integers run at 16 results
per clock per SM, the rate of the special-function unit, hence `conv` -> sfu) and NVIDIA's instruction-set
reference (docs/sass.md); integer multiply-adds (IMAD, IMUL, IDP) and VIADD run on the FP32 pipe's FMA-heavy
half, the other integer instructions on the ALU (Nsight Compute's pipe_alu / pipe_fma counters: on im2col_3x3_n1
the H200 counts 55.9 ALU and 54.9 FMA warp instructions per warp, its SASS has 56 ALU-class and 49 IMAD + 6 VIADD). Uniform-datapath instructions (U*, S2UR, R2UR) take an issue slot but none of
the vector pipes. A special-register read (S2R: threadIdx, %laneid, %smid, ...) is its own class: the misc pipe, but a
variable latency through the MIO (sreg.cu on the H200: 22 cycles, waited for as short_scoreboard; calibration.md 5w),
where CS2R (clocks, a zeroed register pair) is fixed-latency.
"""
from __future__ import annotations

CLASSES = ("int", "imad", "imad_hi", "fp32", "fp16", "fp64", "sfu", "conv", "tensor", "mem", "ctrl", "barrier", "uniform", "sreg",
           "misc")

_TABLE = {
    "int": """IADD IADD3 IADD32I ISCADD ISCADD32I LEA LOP LOP3 LOP32I SHF SHL SHR IABS
              IMNMX VIMNMX VIMNMX3 VIADDMNMX VIMNMX VABSDIFF VABSDIFF4 ISETP ICMP SEL FLO POPC BREV BMSK
              SGXT PRMT BFE BFI MOV MOV32I PLOP3 PSETP P2R R2P VOTE VOTEU I2FP F2IP F2FP""",
    "imad": "IMAD IMADSP IMUL IMUL32I IDP IDP4A VIADD",
    "fp32": "FADD FADD32I FMUL FMUL32I FFMA FFMA32I FMNMX FSETP FSET FSEL FCHK FSWZADD FCMP",
    "fp16": "HADD2 HADD2_32I HMUL2 HMUL2_32I HFMA2 HFMA2_32I HMNMX2 HSETP2 HSET2",
    "fp64": "DADD DMUL DFMA DSETP DMNMX DSET",
    "sfu": "MUFU",
    "conv": "I2F I2I F2I F2F FRND",
    "tensor": "HMMA IMMA DMMA BMMA HGMMA IGMMA QGMMA BGMMA",
    "mem": """LD LDG LDS LDL LDC LDSM STSM ST STG STS STL ATOM ATOMG ATOMS RED REDG REDUX LDGSTS LDGDEPBAR
              SHFL MATCH CCTL CCTLL ERRBAR FENCE SUATOM SULD SUST SURED TLD TLD4 TEX TXQ QSPC SYNCS
              UBLKCP UBLKRED UBLKPF UTMALDG UTMASTG UTMAPF UTMACCTL UTMACMDFLUSH""",
    "ctrl": "BRA BRX BRXU JMP JMX JMXU CALL RET EXIT BSSY BSYNC WARPSYNC BREAK KILL BPT YIELD NANOSLEEP ELECT ACQBULK",
    "barrier": "BAR MEMBAR DEPBAR ARRIVES",
    "sreg": "S2R",
    "misc": "NOP CS2R LEPC PMTRIG B2R R2B SETCTAID SETLMEMBASE GETLMEMBASE",
}
CLASS_OF = {op: cls for cls, ops in _TABLE.items() for op in ops.split()}

# class -> the model's pipe (None: no vector pipe, an issue slot only)
UNIT_OF = {"int": "int", "imad": "fp32", "imad_hi": "fp32", "fp32": "fp32", "fp16": "fp16", "fp64": "fp64", "sfu": "sfu", "conv": "sfu",
           "tensor": "tensor", "mem": "ldst", "ctrl": "branch", "barrier": "barrier", "uniform": None,
           "sreg": "misc", "misc": "misc"}
# pipe time per instruction, in the pipe's own intervals: integer multiply-adds run on the FMA-heavy half
# of the FP32 pipe only (GH100: FMAheavy handles IMAD, IDP and FP32, FMAlite FP32 only), so at half its rate
# (the CUDA guide's 64 vs 128 results per clock per SM at compute capability 9.0)
# IMAD.HI (the high half of a 32 x 32-bit product) and IMAD.WIDE (the whole 64-bit product: every mul.wide of
# address arithmetic) take the FMA-heavy pipe 4 cycles per warp instruction: half IMAD's rate (divmix.cu on the
# H200: IMAD_HI 31.9 thread-ops/clk/SM, the pipe 99 % busy at 0.26 warp instructions per clock per sub-core;
# IMAD_WIDE 31.5, 98 % busy at 0.245; calibration.md 5q)
WEIGHT = {"imad": 2.0, "imad_hi": 4.0}


def sass_class(opcode: str, mods: str = "") -> str:
    """The class of a SASS mnemonic (base name; `mods` its modifiers, ".HI.U32"). Unknown uniform-datapath
    opcodes (U*) are `uniform`, any other unknown one `misc`."""
    if opcode == "IMAD" and (mods.startswith(".HI") or mods.startswith(".WIDE")):
        return "imad_hi"
    cls = CLASS_OF.get(opcode)
    if cls is not None:
        return cls
    if opcode.startswith("U") or opcode in ("S2UR", "R2UR"):
        return "uniform"
    return "misc"
