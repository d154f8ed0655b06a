"""Instruction cases run on a real GPU (H200) to record ground truth: tests/kernels/isa_h200.npz.

Each case is one PTX instruction (the tests/isa.py harness builds the kernel around it) with input
kinds; `inputs(case)` makes the same inputs on any machine (a fixed seed per case name). The recorder,
tests/kernels/isa_record_h200.py, runs every case with CuPy on the GPU and stores inputs and outputs;
tests/test_isa_hw.py runs the same cases in the simulator and compares. Regenerate on a machine with an
NVIDIA GPU: `python tests/kernels/isa_record_h200.py OUT.npz`.
"""
from __future__ import annotations

import zlib

import numpy as np

N = 512

F32_EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, np.inf, -np.inf, np.nan, 1e-45, -1e-45,
                     1.1754942e-38, 1.17549435e-38, -1.17549435e-38, 3.4028235e38, -3.4028235e38, 0.1,
                     65504.0, 65520.0, 2.0 ** 126, 2.0 ** 127 * 1.5, 1e30, 3.0, 7.0, -0.75, 8388609.0],
                    np.float32)
F64_EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, np.inf, -np.inf, np.nan, 5e-324, -5e-324,
                     2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 0.1,
                     1e-310, 3.0, 2.0 ** 1022, 2.0 ** 1023 * 1.5, 4503599627370497.0, -0.75, 1e300],
                    np.float64)
H16_EDGE = np.array([0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100, 0x7c00, 0xfc00, 0x7e00,
                     0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3555, 0x1400, 0x4248, 0x7fff, 0xfc01],
                    np.uint16)
BF16_EDGE = np.array([0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x7f80, 0xff80, 0x7fc0,
                      0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3daa, 0x4049, 0x7fff, 0x0f00, 0x7000],
                     np.uint16)
I_EDGE = [0, 1, -1, 2, -2, 3, 7, 31, 32, 33, 63, 64, 100, 255, 256, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
          -0x80000000, 0x80000000, 0xffffffff, 0x7fffffffffffffff, -0x8000000000000000, 12345, -12345]

INT_BITS = {"u16": 16, "s16": 16, "b16": 16, "u32": 32, "s32": 32, "b32": 32, "u64": 64, "s64": 64,
            "b64": 64, "u8": 8, "s8": 8}


def _rng(name: str, k: int) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{name}/{k}".encode()))


def _pairs(edge: np.ndarray, k: int, n_ops: int) -> np.ndarray:
    """Edge values arranged so that every pair of edges meets in two-operand cases."""
    e = len(edge)
    idx = np.arange(e * e)
    sel = (idx // e) if k == 0 else (idx % e) if k == 1 else (idx * 7 % e)
    return edge[sel]


def gen(kind: str, name: str, k: int, n_ops: int, n: int = N) -> np.ndarray:
    """Inputs of one operand. kind: a PTX type, optionally ':special' (shift, pos, small, unit...)."""
    t, _, spec = kind.partition(":")
    r = _rng(name, k)
    if t in INT_BITS:
        bits = INT_BITS[t]
        mask = (1 << bits) - 1
        if spec == "shift":
            vals = r.integers(0, 80, n)
        elif spec == "small":
            vals = r.integers(-40, 40, n)
        elif spec == "pos":
            vals = r.integers(0, 300, n)
        elif spec == "byte":
            vals = r.integers(0, 256, n)
        else:
            edge = np.array([v & mask for v in I_EDGE], dtype=np.uint64)
            pe = _pairs(edge, k, n_ops)[: n // 2]
            rnd = r.integers(0, 2 ** 63, n - len(pe), dtype=np.uint64) * np.uint64(2) + r.integers(0, 2, n - len(pe), dtype=np.uint64)
            small = r.integers(-300, 300, len(rnd) // 4).astype(np.int64).astype(np.uint64)
            rnd[: len(small)] = small
            vals = np.concatenate([pe, rnd]) & np.uint64(mask)
            return _as_int(vals.astype(np.uint64), t)
        return _as_int(np.asarray(vals, np.int64).astype(np.uint64) & np.uint64(mask), t)
    if t == "f32":
        if spec == "unit":
            return r.uniform(-4, 4, n).astype(np.float32)
        if spec == "trig":
            v = r.uniform(-np.pi, np.pi, n)
            v[: n // 4] = r.uniform(-2000, 2000, n // 4)
            return v.astype(np.float32)
        pe = _pairs(F32_EDGE, k, n_ops)[: n // 2]
        m = n - len(pe)
        rnd = (r.standard_normal(m) * np.exp2(r.integers(-20, 20, m))).astype(np.float32)
        bits = r.integers(0, 2 ** 32, m // 8, dtype=np.uint64).astype(np.uint32).view(np.float32)
        rnd[: len(bits)] = bits
        den = (r.integers(1, 2 ** 23, m // 8).astype(np.uint32)).view(np.float32)
        rnd[len(bits): len(bits) + len(den)] = den
        return np.concatenate([pe, rnd]).astype(np.float32)
    if t == "f64":
        pe = _pairs(F64_EDGE, k, n_ops)[: n // 2]
        m = n - len(pe)
        rnd = r.standard_normal(m) * np.exp2(r.integers(-60, 60, m))
        bits = r.integers(0, 2 ** 63, m // 8, dtype=np.uint64).view(np.float64)
        rnd[: len(bits)] = bits
        return np.concatenate([pe, rnd])
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        edge = H16_EDGE if t.startswith("f16") else BF16_EDGE
        pe = _pairs(edge, k, n_ops)[: n // 2]
        m = n - len(pe)
        if t.startswith("f16"):
            rnd = (r.standard_normal(m) * np.exp2(r.integers(-8, 8, m))).astype(np.float16).view(np.uint16)
        else:
            f = (r.standard_normal(m) * np.exp2(r.integers(-30, 30, m))).astype(np.float32)
            rnd = (f.view(np.uint32) >> 16).astype(np.uint16)
        rnd[: m // 8] = r.integers(0, 2 ** 16, m // 8).astype(np.uint16)
        lo = np.concatenate([pe, rnd]).astype(np.uint16)
        if t.endswith("x2"):
            hi = np.roll(lo, 37)
            return (lo.astype(np.uint32) | (hi.astype(np.uint32) << 16))
        return lo
    if t == "pred":
        return r.integers(0, 2, n).astype(np.uint8)
    raise ValueError(kind)


def _as_int(v: np.ndarray, t: str) -> np.ndarray:
    dt = {"u16": np.uint16, "s16": np.int16, "b16": np.uint16, "u32": np.uint32, "s32": np.int32,
          "b32": np.uint32, "u64": np.uint64, "s64": np.int64, "b64": np.uint64, "u8": np.uint8,
          "s8": np.int8}[t]
    return v.astype(np.uint64).astype({16: np.uint16, 32: np.uint32, 64: np.uint64, 8: np.uint8}[INT_BITS[t]]).view(dt)


def _harness_type(kind: str) -> str:
    return kind.partition(":")[0]


def inputs(case) -> dict:
    name, inst, d, ins = case[:4]
    return {k: (_harness_type(kind), gen(kind, name, i, len(ins))) for i, (k, kind) in enumerate(ins.items())}


I3 = ("u16", "s16", "u32", "s32", "u64", "s64")


def _cases():
    c = []

    def add(name, inst, d, **ins):
        c.append((name, inst, d, ins, False))

    def addp(name, inst, **ins):
        c.append((name, inst, None, ins, True))

    for t in I3:
        add(f"div.{t}", f"div.{t} %d, %a, %b", t, a=t, b=t)
        add(f"rem.{t}", f"rem.{t} %d, %a, %b", t, a=t, b=t)
        add(f"mul.hi.{t}", f"mul.hi.{t} %d, %a, %b", t, a=t, b=t)
        add(f"mad.hi.{t}", f"mad.hi.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        add(f"sad.{t}", f"sad.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        add(f"min.{t}", f"min.{t} %d, %a, %b", t, a=t, b=t)
    for t in ("s16", "s32", "s64"):
        add(f"abs.{t}", f"abs.{t} %d, %a", t, a=t)
    add("add.sat.s32", "add.sat.s32 %d, %a, %b", "s32", a="s32", b="s32")
    add("sub.sat.s32", "sub.sat.s32 %d, %a, %b", "s32", a="s32", b="s32")
    add("mad.hi.sat.s32", "mad.hi.sat.s32 %d, %a, %b, %c", "s32", a="s32", b="s32", c="s32")
    add("max.relu.s32", "max.relu.s32 %d, %a, %b", "s32", a="s32", b="s32")
    add("min.relu.s32", "min.relu.s32 %d, %a, %b", "s32", a="s32", b="s32")
    add("mul.wide.s16", "mul.wide.s16 %d, %a, %b", "s32", a="s16", b="s16")
    add("mad.wide.s32", "mad.wide.s32 %d, %a, %b, %c", "s64", a="s32", b="s32", c="s64")
    for t in ("u32", "s32"):
        add(f"mul24.hi.{t}", f"mul24.hi.{t} %d, %a, %b", t, a=t, b=t)
        add(f"mad24.lo.{t}", f"mad24.lo.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
    add("mad24.hi.sat.s32", "mad24.hi.sat.s32 %d, %a, %b, %c", "s32", a="s32", b="s32", c="s32")
    # carry chains (two instructions)
    add("addc.u32", "add.cc.u32 %d, %a, %b;\n  addc.u32 %d, %d, %c", "u32", a="u32", b="u32", c="u32")
    add("subc.u32", "sub.cc.u32 %d, %a, %b;\n  subc.cc.u32 %d, %d, %c;\n  addc.u32 %d, %d, 0", "u32",
        a="u32", b="u32", c="u32")
    add("add.cc.subc.u32", "add.cc.u32 %d, %a, %b;\n  subc.u32 %d, %c, 0", "u32", a="u32", b="u32", c="u32")
    add("madc.hi.u64", "mad.lo.cc.u64 %d, %a, %b, %c;\n  madc.hi.u64 %d, %a, %b, 0", "u64", a="u64", b="u64", c="u64")
    add("madc.hi.cc.s32", "mad.lo.cc.s32 %d, %a, %b, %c;\n  madc.hi.cc.s32 %d, %a, %b, %c;\n  addc.s32 %d, %d, 0",
        "s32", a="s32", b="s32", c="s32")
    # bit ops
    for t in ("b32", "b64"):
        add(f"popc.{t}", f"popc.{t} %d, %a", "u32", a=t)
        add(f"clz.{t}", f"clz.{t} %d, %a", "u32", a=t)
        add(f"brev.{t}", f"brev.{t} %d, %a", t, a=t)
    for t in ("u32", "s32", "u64", "s64"):
        add(f"bfind.{t}", f"bfind.{t} %d, %a", "u32", a=t)
        add(f"bfind.shiftamt.{t}", f"bfind.shiftamt.{t} %d, %a", "u32", a=t)
        add(f"bfe.{t}", f"bfe.{t} %d, %a, %b, %c", t, a=t, b="u32:pos", c="u32:pos")
    add("bfi.b32", "bfi.b32 %d, %a, %b, %c, %e", "b32", a="b32", b="b32", c="u32:pos", e="u32:pos")
    add("bfi.b64", "bfi.b64 %d, %a, %b, %c, %e", "b64", a="b64", b="b64", c="u32:pos", e="u32:pos")
    add("fns.b32", "fns.b32 %d, %a, %b, %c", "b32", a="b32", b="u32:pos", c="s32:small")
    add("prmt.b32", "prmt.b32 %d, %a, %b, %c", "b32", a="b32", b="b32", c="b32")
    for mode in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        add(f"prmt.b32.{mode}", f"prmt.b32.{mode} %d, %a, %b, %c", "b32", a="b32", b="b32", c="u32:shift")
    add("lop3.b32", "lop3.b32 %d, %a, %b, %c, 0x96;\n  lop3.b32 %d, %d, %a, %c, 0x1e", "b32", a="b32", b="b32", c="b32")
    for mode in ("l.wrap", "r.wrap", "l.clamp", "r.clamp"):
        add(f"shf.{mode}.b32", f"shf.{mode}.b32 %d, %a, %b, %c", "b32", a="b32", b="b32", c="u32:shift")
    for t in ("b16", "b32", "b64"):
        add(f"shl.{t}", f"shl.{t} %d, %a, %b", t, a=t, b="u32:shift")
    for t in ("u16", "s16", "u32", "s32", "u64", "s64"):
        add(f"shr.{t}", f"shr.{t} %d, %a, %b", t, a=t, b="u32:shift")
    add("cnot.b32", "cnot.b32 %d, %a", "b32", a="b32")
    add("dp4a.s32.u32", "dp4a.s32.u32 %d, %a, %b, %c", "s32", a="s32", b="u32", c="s32")
    add("dp4a.u32.u32", "dp4a.u32.u32 %d, %a, %b, %c", "u32", a="u32", b="u32", c="u32")
    add("dp2a.lo.s32.s32", "dp2a.lo.s32.s32 %d, %a, %b, %c", "s32", a="s32", b="s32", c="s32")
    add("dp2a.hi.u32.s32", "dp2a.hi.u32.s32 %d, %a, %b, %c", "s32", a="u32", b="s32", c="s32")

    # f32
    for op in ("add", "sub", "mul"):
        for mod in ("rn", "rz", "rm", "rp", "rn.ftz", "rn.sat", "rz.ftz.sat"):
            add(f"{op}.{mod}.f32", f"{op}.{mod}.f32 %d, %a, %b", "f32", a="f32", b="f32")
    for mod in ("rn", "rz", "rm", "rp", "rn.ftz", "rn.sat", "rp.ftz"):
        add(f"fma.{mod}.f32", f"fma.{mod}.f32 %d, %a, %b, %c", "f32", a="f32", b="f32", c="f32")
        if "sat" not in mod:
            add(f"div.{mod}.f32", f"div.{mod}.f32 %d, %a, %b", "f32", a="f32", b="f32")
    for op in ("add", "mul", "fma", "div"):
        for mod in ("rn", "rz", "rm", "rp"):
            if op == "fma":
                add(f"fma.{mod}.f64", f"fma.{mod}.f64 %d, %a, %b, %c", "f64", a="f64", b="f64", c="f64")
            else:
                add(f"{op}.{mod}.f64", f"{op}.{mod}.f64 %d, %a, %b", "f64", a="f64", b="f64")
    add("div.approx.f32", "div.approx.f32 %d, %a, %b", "f32", a="f32", b="f32")
    add("div.full.f32", "div.full.f32 %d, %a, %b", "f32", a="f32", b="f32")
    add("div.approx.ftz.f32", "div.approx.ftz.f32 %d, %a, %b", "f32", a="f32", b="f32")
    for mod in ("", ".ftz", ".NaN", ".xorsign.abs", ".ftz.NaN.xorsign.abs"):
        add(f"min{mod}.f32", f"min{mod}.f32 %d, %a, %b", "f32", a="f32", b="f32")
        add(f"max{mod}.f32", f"max{mod}.f32 %d, %a, %b", "f32", a="f32", b="f32")
    add("min.f64", "min.f64 %d, %a, %b", "f64", a="f64", b="f64")
    add("max.f64", "max.f64 %d, %a, %b", "f64", a="f64", b="f64")
    for op in ("abs", "neg"):
        add(f"{op}.f32", f"{op}.f32 %d, %a", "f32", a="f32")
        add(f"{op}.ftz.f32", f"{op}.ftz.f32 %d, %a", "f32", a="f32")
        add(f"{op}.f64", f"{op}.f64 %d, %a", "f64", a="f64")
        add(f"{op}.f16", f"{op}.f16 %d, %a", "f16", a="f16")
        add(f"{op}.bf16", f"{op}.bf16 %d, %a", "bf16", a="bf16")
    add("copysign.f32", "copysign.f32 %d, %a, %b", "f32", a="f32", b="f32")
    add("add.f32.nan", "add.f32 %d, %a, %b", "f32", a="f32", b="f32")
    for cls in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
        addp(f"testp.{cls}.f32", f"testp.{cls}.f32 %p, %a", a="f32")
    # special functions
    for fn in ("rcp.approx", "rcp.approx.ftz", "sqrt.approx", "sqrt.approx.ftz", "rsqrt.approx",
               "rsqrt.approx.ftz", "ex2.approx", "ex2.approx.ftz", "lg2.approx", "lg2.approx.ftz",
               "tanh.approx"):
        add(f"{fn}.f32", f"{fn}.f32 %d, %a", "f32", a="f32")
        add(f"{fn}.f32.unit", f"{fn}.f32 %d, %a", "f32", a="f32:unit")
    for fn in ("sin.approx", "cos.approx", "sin.approx.ftz"):
        add(f"{fn}.f32", f"{fn}.f32 %d, %a", "f32", a="f32:trig")
    for mod in ("rn", "rz", "rm", "rp", "rn.ftz"):
        add(f"rcp.{mod}.f32", f"rcp.{mod}.f32 %d, %a", "f32", a="f32")
        add(f"sqrt.{mod}.f32", f"sqrt.{mod}.f32 %d, %a", "f32", a="f32")
    add("rcp.rn.f64", "rcp.rn.f64 %d, %a", "f64", a="f64")
    add("sqrt.rz.f64", "sqrt.rz.f64 %d, %a", "f64", a="f64")
    add("rcp.approx.ftz.f64", "rcp.approx.ftz.f64 %d, %a", "f64", a="f64")
    add("rsqrt.approx.f64", "rsqrt.approx.f64 %d, %a", "f64", a="f64")
    for t in ("f16", "f16x2"):
        add(f"ex2.approx.{t}", f"ex2.approx.{t} %d, %a", t, a=t)
        add(f"tanh.approx.{t}", f"tanh.approx.{t} %d, %a", t, a=t)
    for t in ("bf16", "bf16x2"):
        add(f"ex2.approx.ftz.{t}", f"ex2.approx.ftz.{t} %d, %a", t, a=t)
        add(f"tanh.approx.{t}", f"tanh.approx.{t} %d, %a", t, a=t)
    # half arithmetic
    for t in ("f16", "f16x2", "bf16", "bf16x2"):
        for op in ("add", "sub", "mul"):
            add(f"{op}.rn.{t}", f"{op}.rn.{t} %d, %a, %b", t, a=t, b=t)
        add(f"fma.rn.{t}", f"fma.rn.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        add(f"fma.rn.relu.{t}", f"fma.rn.relu.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        for mod in ("", ".NaN", ".xorsign.abs"):
            add(f"min{mod}.{t}", f"min{mod}.{t} %d, %a, %b", t, a=t, b=t)
            add(f"max{mod}.{t}", f"max{mod}.{t} %d, %a, %b", t, a=t, b=t)
    for t in ("f16", "f16x2"):
        add(f"add.rn.ftz.sat.{t}", f"add.rn.ftz.sat.{t} %d, %a, %b", t, a=t, b=t)
        add(f"fma.rn.ftz.{t}", f"fma.rn.ftz.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        add(f"fma.rn.sat.{t}", f"fma.rn.sat.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        add(f"min.ftz.{t}", f"min.ftz.{t} %d, %a, %b", t, a=t, b=t)
    # comparisons
    for cmp in ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
        addp(f"setp.{cmp}.f32", f"setp.{cmp}.f32 %p, %a, %b", a="f32", b="f32")
        addp(f"setp.{cmp}.f16", f"setp.{cmp}.f16 %p, %a, %b", a="f16", b="f16")
    addp("setp.lt.ftz.f32", "setp.lt.ftz.f32 %p, %a, %b", a="f32", b="f32")
    addp("setp.ne.f64", "setp.ne.f64 %p, %a, %b", a="f64", b="f64")
    addp("setp.lt.bf16", "setp.lt.bf16 %p, %a, %b", a="bf16", b="bf16")
    addp("setp.gt.f16x2.hi", "setp.gt.f16x2 %q|%p, %a, %b", a="f16x2", b="f16x2")
    addp("setp.gt.f16x2.lo", "setp.gt.f16x2 %p|%q, %a, %b", a="f16x2", b="f16x2")
    addp("setp.le.and.s32", "setp.le.and.s32 %p|%q, %a, %b, %g;\n  xor.pred %p, %p, %q", a="s32", b="s32", g="pred")
    for t in ("s16", "u16", "s64", "u64"):
        addp(f"setp.lt.{t}", f"setp.lt.{t} %p, %a, %b", a=t, b=t)
    addp("setp.hi.u32", "setp.hi.u32 %p, %a, %b", a="u32", b="u32")
    add("set.lt.u32.f32", "set.lt.u32.f32 %d, %a, %b", "u32", a="f32", b="f32")
    add("set.gtu.f32.f32", "set.gtu.f32.f32 %d, %a, %b", "f32", a="f32", b="f32")
    add("set.eq.or.s32.s32", "set.eq.or.s32.s32 %d, %a, %b, %g", "s32", a="s32", b="s32", g="pred")
    add("set.lt.f16x2.f16x2", "set.lt.f16x2.f16x2 %d, %a, %b", "f16x2", a="f16x2", b="f16x2")
    add("set.lt.u32.f16x2", "set.lt.u32.f16x2 %d, %a, %b", "u32", a="f16x2", b="f16x2")
    add("slct.s32.f32", "slct.s32.f32 %d, %a, %b, %c", "s32", a="s32", b="s32", c="f32")
    add("slct.ftz.u32.f32", "slct.ftz.u32.f32 %d, %a, %b, %c", "u32", a="u32", b="u32", c="f32")
    add("slct.f32.s32", "slct.f32.s32 %d, %a, %b, %c", "f32", a="f32", b="f32", c="s32")
    # conversions
    for dt in ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"):
        for r in ("rni", "rzi", "rmi", "rpi"):
            add(f"cvt.{r}.{dt}.f32", f"cvt.{r}.{dt}.f32 %d, %a", dt, a="f32")
        add(f"cvt.rni.{dt}.f64", f"cvt.rni.{dt}.f64 %d, %a", dt, a="f64")
        add(f"cvt.rzi.{dt}.f16", f"cvt.rzi.{dt}.f16 %d, %a", dt, a="f16")
    add("cvt.rpi.ftz.s32.f32", "cvt.rpi.ftz.s32.f32 %d, %a", "s32", a="f32")
    for st in ("s32", "u32", "s64", "u64", "s16"):
        for r in ("rn", "rz", "rm", "rp"):
            add(f"cvt.{r}.f32.{st}", f"cvt.{r}.f32.{st} %d, %a", "f32", a=st)
            add(f"cvt.{r}.f16.{st}", f"cvt.{r}.f16.{st} %d, %a", "f16", a=st)
        add(f"cvt.rn.f64.{st}", f"cvt.rn.f64.{st} %d, %a", "f64", a=st)
        add(f"cvt.rz.bf16.{st}", f"cvt.rz.bf16.{st} %d, %a", "bf16", a=st)
    for (dt, st) in (("s8", "s32"), ("u8", "s32"), ("s16", "u32"), ("u16", "s64"), ("s32", "u64"),
                     ("u32", "s64"), ("u64", "s64"), ("s64", "u64"), ("u32", "s16"), ("u16", "s8")):
        add(f"cvt.sat.{dt}.{st}", f"cvt.sat.{dt}.{st} %d, %a", dt, a=st)
        add(f"cvt.{dt}.{st}", f"cvt.{dt}.{st} %d, %a", dt, a=st)
    for r in ("rn", "rz", "rm", "rp"):
        add(f"cvt.{r}.f16.f32", f"cvt.{r}.f16.f32 %d, %a", "f16", a="f32")
        add(f"cvt.{r}.bf16.f32", f"cvt.{r}.bf16.f32 %d, %a", "bf16", a="f32")
        add(f"cvt.{r}.f32.f64", f"cvt.{r}.f32.f64 %d, %a", "f32", a="f64")
        add(f"cvt.{r}.f16.f64", f"cvt.{r}.f16.f64 %d, %a", "f16", a="f64")
        add(f"cvt.{r}.bf16.f64", f"cvt.{r}.bf16.f64 %d, %a", "bf16", a="f64")
    for r in ("rni", "rzi", "rmi", "rpi"):
        add(f"cvt.{r}.f32.f32", f"cvt.{r}.f32.f32 %d, %a", "f32", a="f32")
        add(f"cvt.{r}.f64.f64", f"cvt.{r}.f64.f64 %d, %a", "f64", a="f64")
        add(f"cvt.{r}.f16.f16", f"cvt.{r}.f16.f16 %d, %a", "f16", a="f16")
    add("cvt.f32.f16", "cvt.f32.f16 %d, %a", "f32", a="f16")
    add("cvt.f32.bf16", "cvt.f32.bf16 %d, %a", "f32", a="bf16")
    add("cvt.f64.f32", "cvt.f64.f32 %d, %a", "f64", a="f32")
    add("cvt.ftz.f64.f32", "cvt.ftz.f64.f32 %d, %a", "f64", a="f32")
    add("cvt.f64.f16", "cvt.f64.f16 %d, %a", "f64", a="f16")
    add("cvt.sat.f32.f32", "cvt.sat.f32.f32 %d, %a", "f32", a="f32")
    add("cvt.ftz.sat.f32.f32", "cvt.ftz.sat.f32.f32 %d, %a", "f32", a="f32")
    add("cvt.rn.ftz.f32.f64", "cvt.rn.ftz.f32.f64 %d, %a", "f32", a="f64")
    add("cvt.rn.sat.f16.f32", "cvt.rn.sat.f16.f32 %d, %a", "f16", a="f32")
    add("cvt.rn.relu.f16.f32", "cvt.rn.relu.f16.f32 %d, %a", "f16", a="f32")
    add("cvt.rn.satfinite.f16.f32", "cvt.rn.satfinite.f16.f32 %d, %a", "f16", a="f32")
    add("cvt.rn.relu.satfinite.bf16.f32", "cvt.rn.relu.satfinite.bf16.f32 %d, %a", "bf16", a="f32")
    add("cvt.rna.tf32.f32", "cvt.rna.tf32.f32 %d, %a", "b32", a="f32")
    add("cvt.rna.satfinite.tf32.f32", "cvt.rna.satfinite.tf32.f32 %d, %a", "b32", a="f32")
    add("cvt.rn.f16x2.f32", "cvt.rn.f16x2.f32 %d, %a, %b", "f16x2", a="f32", b="f32")
    add("cvt.rz.relu.bf16x2.f32", "cvt.rz.relu.bf16x2.f32 %d, %a, %b", "bf16x2", a="f32", b="f32")
    add("cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b", "b16", a="f32", b="f32")
    add("cvt.rn.satfinite.e5m2x2.f32", "cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b", "b16", a="f32", b="f32")
    add("cvt.rn.satfinite.relu.e4m3x2.f32", "cvt.rn.satfinite.relu.e4m3x2.f32 %d, %a, %b", "b16", a="f32", b="f32")
    add("cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.e4m3x2 %d, %a", "f16x2", a="b16")
    add("cvt.rn.f16x2.e5m2x2", "cvt.rn.f16x2.e5m2x2 %d, %a", "f16x2", a="b16")
    add("cvt.rn.satfinite.e4m3x2.f16x2", "cvt.rn.satfinite.e4m3x2.f16x2 %d, %a", "b16", a="f16x2")
    add("cvt.pack.sat.s16.s32", "cvt.pack.sat.s16.s32 %d, %a, %b", "b32", a="s32", b="s32")
    add("cvt.pack.sat.u8.s32.b32", "cvt.pack.sat.u8.s32.b32 %d, %a, %b, %c", "b32", a="s32:small", b="s32", c="b32")
    add("cvt.pack.sat.s4.s32.b32", "cvt.pack.sat.s4.s32.b32 %d, %a, %b, %c", "b32", a="s32:small", b="s32:small", c="b32")
    return c


CASES = _cases()
