"""SASS opcode tables for binary versions 61 (Pascal) to 90 (Hopper): pipe, kind, memory space.

An opcode is looked up by its name before the first '.' (``LDG.E.64`` -> ``LDG``). Each entry says

* the pipe (functional unit) that times it: one of engine/config.py UNITS, so its latency and initiation
  interval come from the configuration's ``pipes.<unit>`` like a PTX instruction's;
* its kind: ``alu``, ``load``, ``store``, ``atomic``, ``barrier``, ``exit``, ``branch``, ``membar``,
  ``tensor`` (HMMA/IMMA/DMMA and the Hopper warpgroup GMMAs), ``warp`` (shuffles and votes through the
  shared-memory pipe);
* for memory kinds, the state space: ``global``, ``shared``, ``local``, ``const`` or ``generic`` (a generic
  access is classified per instruction by its first active address against the header's
  ``-shmem base_addr`` and ``-local mem base_addr``).

Sources (read, not copied): the instruction-set listings of NVIDIA's CUDA Binary Utilities manual for
sm_60 to sm_90, and the per-architecture opcode classes of Accel-Sim's trace-driven front end
(``pascal_opcode.h``, ``volta_opcode.h``, ``turing_opcode.h``, ``ampere_opcode.h``, ``hopper_opcode.h``), whose
classes map onto our pipes as: SP_OP -> fp32, INTP_OP -> int, DP_OP -> fp64, SFU_OP -> sfu, ALU_OP
(moves, conversions, predicate logic, special registers) -> fp32, texture -> misc, control -> branch,
tensor -> tensor. Uniform-datapath opcodes (Turing on) time on the int pipe. See docs/traces.md.
"""
from __future__ import annotations

from ..errors import SimError

KINDS = ["alu", "load", "store", "atomic", "barrier", "exit", "branch", "membar", "tensor", "warp"]
SPACES = {"": 0, "generic": 1, "global": 2, "shared": 3, "local": 5, "const": 7}   # gs_space values

SUPPORTED = (60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)


class TraceFormatError(SimError):
    """A trace that cannot be read: names the file, line and what is wrong."""


def _ops(unit: str, kind: str, names: str, space: str = "") -> dict:
    return {n: (unit, kind, space) for n in names.split()}


# Pascal (sm_60, 61, 62) ---------------------------------------------------------------------------------
PASCAL = {}
PASCAL |= _ops("fp32", "alu", "FADD FADD32I FCHK FCMP FFMA FFMA32I FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD RRO")
PASCAL |= _ops("sfu", "alu", "MUFU")
PASCAL |= _ops("fp16", "alu", "HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2")
PASCAL |= _ops("fp64", "alu", "DADD DFMA DMUL DSETP DMNMX DSET")
PASCAL |= _ops("int", "alu", "BFE BFI BMSK BREV FLO IABS IADD IADD3 IADD32I ICMP IDP IDP4A IMAD IMADSP IMNMX IMUL "
                             "IMUL32I ISCADD ISCADD32I ISET ISETP LEA LOP LOP3 LOP32I POPC SHF SHL SHR SGXT "
                             "VABSDIFF VABSDIFF4 VMNMX XMAD")
PASCAL |= _ops("fp32", "alu", "F2F F2I I2F I2I I2IP FRND MOV MOV32I PRMT SEL PLOP3 PSETP P2R R2P CSET CSETP PSET "
                              "B2R R2B CS2R CSMTEST DEPBAR GETLMEMBASE SETLMEMBASE LEPC NOP PMTRIG S2R SETCTAID "
                              "QSPC CCTL CCTLL CCTLT ERRBAR")
PASCAL |= _ops("ldst", "warp", "SHFL VOTE VOTE_VTG MATCH")
PASCAL |= _ops("misc", "alu", "TEX TLD TLD4 TMML TXD TXQ TEXS TLD4S TLDS")
PASCAL |= _ops("ldst", "load", "LD", "generic") | _ops("ldst", "load", "LDG", "global") \
    | _ops("ldst", "load", "LDS", "shared") | _ops("ldst", "load", "LDL", "local") | _ops("ldst", "load", "LDC", "const")
PASCAL |= _ops("ldst", "store", "ST", "generic") | _ops("ldst", "store", "STG", "global") \
    | _ops("ldst", "store", "STS", "shared") | _ops("ldst", "store", "STL", "local")
PASCAL |= _ops("ldst", "atomic", "ATOM", "generic") | _ops("ldst", "atomic", "ATOMG RED", "global") \
    | _ops("ldst", "atomic", "ATOMS", "shared")
PASCAL |= _ops("ldst", "membar", "MEMBAR")
PASCAL |= _ops("barrier", "barrier", "BAR")
PASCAL |= _ops("branch", "exit", "EXIT")
PASCAL |= _ops("branch", "branch", "BMOV BPT BRA BREAK BRX BSSY BSYNC CALL JMP SSY SYNC JMX KILL NANOSLEEP RET "
                                   "RPCMOV RTT WARPSYNC YIELD CAL JCAL PRET BRK PBK CONT PCNT PEXIT")

# Volta (sm_70, 72): tensor cores, independent thread scheduling ------------------------------------------
VOLTA = dict(PASCAL)
VOLTA |= _ops("tensor", "tensor", "HMMA IMMA BMMA")
VOLTA |= _ops("fp16", "alu", "HMNMX2")
VOLTA |= _ops("fp32", "alu", "FENCE")

# Turing (sm_75): uniform datapath, ldmatrix --------------------------------------------------------------
TURING = dict(VOLTA)
TURING |= _ops("int", "alu", "R2UR S2UR UMOV UIADD3 UIMAD ULOP ULOP3 ULOP32I USHF USHL USHR ULEA UISETP USEL "
                             "UFLO UPOPC UBREV UPRMT UBMSK USGXT UPLOP3 UPSETP UP2UR UR2UP UCLEA VOTEU")
TURING |= _ops("ldst", "load", "LDSM", "shared") | _ops("fp32", "alu", "ULDC")

# Ampere (sm_80, 86, 87) and Ada (sm_89): async copies, fp64 tensor cores, warp reductions -----------------
AMPERE = dict(TURING)
AMPERE |= _ops("ldst", "load", "LDGSTS", "global") | _ops("fp32", "alu", "LDGDEPBAR F2FP I2FP F2IP")
AMPERE |= _ops("tensor", "tensor", "DMMA") | _ops("ldst", "warp", "REDUX")

# Hopper (sm_90): warpgroup MMAs, TMA, distributed shared memory -------------------------------------------
HOPPER = dict(AMPERE)
HOPPER |= _ops("tensor", "tensor", "HGMMA IGMMA QGMMA BGMMA")
HOPPER |= _ops("ldst", "load", "UTMALDG UBLKCP", "global") | _ops("ldst", "store", "UTMASTG", "global") \
    | _ops("ldst", "atomic", "REDG UTMAREDG UBLKRED", "global") | _ops("ldst", "store", "STSM", "shared")
HOPPER |= _ops("fp32", "alu", "SYNCS ACQBULK ELECT WARPGROUP MOVM FMNMX3 UCGABAR_ARV UCGABAR_WAIT")
HOPPER |= _ops("branch", "branch", "ENDCOLLECTIVE")

TABLES = {60: PASCAL, 61: PASCAL, 62: PASCAL, 70: VOLTA, 72: VOLTA, 75: TURING,
          80: AMPERE, 86: AMPERE, 87: AMPERE, 89: AMPERE, 90: HOPPER}


def table(binary_version: int) -> dict[str, tuple[str, str, str]]:
    """The opcode table of a binary version ({name: (unit, kind, space)}); TraceFormatError if none."""
    if binary_version not in TABLES:
        raise TraceFormatError(f"no SASS opcode table for binary version {binary_version} "
                               f"(supported: {', '.join(map(str, SUPPORTED))})")
    return TABLES[binary_version]
