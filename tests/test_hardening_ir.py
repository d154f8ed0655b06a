"""Issue 13: operands are checked against what their handlers read and write, in the front end (an error
naming the PTX line) and again in the engine when a program is created (ir_check.c), so that IR a
front-end bug might produce is refused instead of becoming an out-of-bounds access."""
from __future__ import annotations

import numpy as np
import pytest

from engine import errors
from engine._ffi import E
from engine.device import Device, Module
from engine.ptx import load

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .pred %p<3>; .reg .f32 %f<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  BODY
  ret;
}
"""

# instruction -> substrings of the error (all on line 8, the BODY line)
REFUSED = {
    "neg.f32 %f1, [p];": "neg does not access memory: operand 2 cannot be an address",
    "cvt.f32.s32 %f1, [p];": "cvt does not access memory",
    "add.s32 [p], %r1, %r2;": "add: operand 1 is written, but it is a memory address",
    "add.s32 %r1, %p1, 1;": "add: operand 2 is a predicate where a value is read",
    "add.s32 %p1, %r1, 1;": "add: operand 1 is a predicate where a value is read or written",
    "setp.eq.s32 %r1, %r2, 1;": "setp: operand 1 must be a predicate, not a register",
    "setp.eq.and.s32 %p1, %r1, %r2, %r3;": "setp: operand 4 must be a predicate, not a register",
    "selp.b32 %r1, %r2, %r3, %r1;": "selp: operand 4 must be a predicate",
    "and.pred %p1, %r1, %p2;": "and: operand 2 must be a predicate, not a register",
    "mov.u32 %p1, %r1;": "mov: operand 1 is a predicate",
    "vote.sync.ballot.b32 %r1, %r2, 0xffffffff;": "vote: operand 2 must be a predicate",
    "shfl.sync.idx.b32 %r1|%r2, %r1, 0, 31, -1;": "shfl: operand 2 must be a predicate",
    "add.s32 %r1, _, 1;": "the sink '_' cannot be read",
    "add.s32 _, %r1, 1;": "add cannot write to the sink '_' (operand 1)",
    "cvt.rn.f32.s32 _, %r1;": "cvt cannot write to the sink '_'",
    "add.u32 %r1, %tid.x, 1;": "add cannot read special registers (operand 2)",
    "add.s32 %r1, {%r2, %r3}, 1;": "add does not take a vector operand",
    "ld.global.v4.f32 {%f1, %f2}, [%rd1];": "ld.v4 needs 4 registers in {...}, operand 1 has 2",
    "ld.global.v2.f32 %f1, [%rd1];": "ld.v2 needs a vector of 2 registers",
    "ld.global.f32 {%f1, %f2}, [%rd1];": "ld needs 1 register in {...}, operand 1 has 2",
    "st.global.v2.f32 [%rd1], {%f1, _};": "element 2 of vector operand 2 is a sink",
    "st.global.v4.f32 [%rd1], {%f1, %f2, %f1};": "st.v4 needs 4 registers",
    "ld.global.f32 %f1, %rd1;": "ld needs an address [...] as operand 2, not a register",
    "st.global.f32 %rd1, %f1;": "st needs an address [...] as operand 1",
    "bar.sync [p];": "bar does not access memory",
    # a warp operation whose handler always writes d: a sink there is named, not "unsupported instruction"
    "shfl.sync.bfly.b32 _, %r1, 1, 31, -1;":
        "shfl cannot write to the sink '_' (operand 1): give it a register (only the predicate p of d|p may be '_')",
    "shfl.sync.idx.b32 _|%p1, %r1, 0, 31, -1;": "shfl cannot write to the sink '_' (operand 1)",
    "vote.sync.ballot.b32 _, %p1, -1;": "vote cannot write to the sink '_' (operand 1): give it a register",
    "vote.sync.any.pred _, %p1, -1;": "vote cannot write to the sink '_' (operand 1): give it a register",
    "match.any.sync.b32 _, %r1, -1;": "match cannot write to the sink '_' (operand 1): give it a register "
                                      "(match.any writes its d; only match.all's d|p may hold '_')",
    "setp.eq.s32 _|%p1, %r1, 1;": "setp cannot write to the sink '_' (operand 1): give it a register "
                                  "(only the second predicate q of p|q may be '_')",
}


@pytest.mark.parametrize("inst", sorted(REFUSED))
def test_front_end_refuses_operands_the_handler_cannot_read(inst):
    with pytest.raises(errors.PTXSemanticError) as ei:
        load(HEAD.replace("BODY", inst), "t.ptx")
    msg = str(ei.value)
    assert msg.startswith("t.ptx:8:3: "), msg
    assert REFUSED[inst] in msg and f"`{inst}`" in msg, msg


@pytest.mark.parametrize("inst", ["mov.b64 %rd2, {%r1, %r2};", "mov.b64 {%r1, _}, %rd1;",
                                  "st.global.v2.f32 [%rd1], {%f1, 0f3F800000};", "setp.lt.or.s32 %p1|%p2, %r1, 3, !%p1;",
                                  "selp.b32 %r1, 1, %r2, %p1;",
                                  "ld.global.v2.f32 {%f1, _}, [%rd1];", "setp.lt.s32 %p1|_, %r1, 2;", "mov.pred %p1, 1;", "mov.u32 %r1, %tid.x;",
                                  "shfl.sync.bfly.b32 %r1|_, %r2, 1, 31, -1;", "match.all.sync.b32 _|%p1, %r1, -1;",
                                  "match.all.sync.b32 %r1|_, %r2, -1;", "elect.sync _|%p1, -1;"])
def test_front_end_accepts_the_legitimate_forms(inst):
    load(HEAD.replace("BODY", inst), "t.ptx")


# ------------------------------------------------------------------ the engine's own check (gs_ir_check)

GOOD = HEAD.replace("BODY", """ld.global.v2.f32 {%f1, %f2}, [%rd1];
  add.f32 %f1, %f1, %f2;
  setp.lt.f32 %p1, %f1, 0f00000000;
  @%p1 bra L1;
  st.global.f32 [%rd1], %f1;
L1:
  ret;""")


def _kinds(prog, pc):
    i = int(prog.insts[pc]["opnd"])
    return prog.opnds[i:i + int(prog.insts[pc]["nopnd"])]


def _pc(prog, text):
    return next(i for i, t in enumerate(prog.pc_text) if t.startswith(text))


def _corrupt(what):
    prog = load(GOOD, "good.ptx", schedule=False)
    ld, add, st = _pc(prog, "ld.global.v2"), _pc(prog, "add.f32"), _pc(prog, "st.global")
    ins, ops = prog.insts, prog.opnds
    if what == "register out of range":
        ops[int(ins[add]["opnd"]) + 1]["reg"] = 10_000
    elif what == "memory operand in add":
        o = ops[int(ins[add]["opnd"]) + 2]
        o["kind"], o["reg"] = E.ok["mem"], -1
    elif what == "vector width":
        ins[ld]["vec"] = 4
    elif what == "predicate out of range":
        ins[add]["guard"] = 99
    elif what == "operand count past the array":
        ins[st]["opnd"] = len(ops)
    elif what == "branch target":
        bra = next(i for i in range(len(ins)) if int(ins[i]["op"]) == int(E.op["bra"]))
        ins[bra]["target"] = 10_000
    elif what == "local size":
        prog.funcs[0]["local_bytes"] = 1 << 30
    elif what == "sink read":
        o = ops[int(ins[add]["opnd"]) + 1]
        o["kind"], o["reg"] = E.ok["sink"], -1
    elif what == "unknown kind":
        ops[int(ins[add]["opnd"])]["kind"] = 42
    return prog


@pytest.mark.parametrize("what,message", [
    ("register out of range", "register index 10000 out of range"),
    ("memory operand in add", "add does not access memory"),
    ("vector width", "ld.v4 needs 4 registers in {...}, operand 1 has 2"),
    ("predicate out of range", "guard predicate 99 out of range"),
    ("operand count past the array", "outside the operand array"),
    ("branch target", "target 10000 outside the program"),
    ("local size", "memory sizes out of range"),
    ("sink read", "the sink '_' cannot be read"),
    ("unknown kind", "has no valid kind (42)"),
])
def test_engine_refuses_malformed_ir(what, message):
    """IR corrupted after the front end (as a lowering bug would) is refused by gs_program_create."""
    prog = _corrupt(what)
    with pytest.raises(errors.SimError) as ei:
        Module(Device(), prog)
    assert str(ei.value).startswith("good.ptx: ") and message in str(ei.value), str(ei.value)


def test_uncorrupted_program_runs():
    dev = Device()
    prog = load(GOOD, "good.ptx", schedule=False)
    m = Module(dev, prog)
    buf = dev.to_device(np.array([1.5, 2.0], np.float32))
    dev.launch(m.kernel("k"), 1, 1, [buf])
    assert dev.from_device(buf).tolist() == [3.5, 2.0]
