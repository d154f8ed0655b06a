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

N = 512          # inputs per case: a 16 x 16 grid of edge values, then random values

# Edge values: the first 16 of each list meet each other in every pairing (the first half of an
# operand's inputs is a 16 x 16 grid), the rest are spread over the random second half.
F32_EDGE = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38,
                     1.17549435e-38, 3.4028235e38, 0.5, 2.0 ** 126 * 1.5,
                     -1.17549435e-38, -3.4028235e38, 0.1, 65504.0, 65520.0, 2.0 ** 127 * 1.5, 1e30, 3.0, 7.0,
                     -0.75, 8388609.0, 2.5, 2.0 ** -126 * 0.75, 0.99999994, 16777217.0], np.float32)
F32_NANS = np.array([0xffc00000, 0x7f800001, 0x7fa00000, 0xff812345], np.uint32)
F64_EDGE = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 5e-324, -5e-324,
                     2.2250738585072014e-308, 1e-310, 1.7976931348623157e308, 0.5, 2.0 ** 1023 * 1.5,
                     -1.7976931348623157e308, 0.1, 3.0, 2.0 ** 1022, 4503599627370497.0, -0.75, 1e300, 2.5,
                     2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 4294967296.0, 2147483648.5, 1e-300], np.float64)
F64_NANS = np.array([0xfff8000000000000, 0x7ff0000000000001, 0x7ff4000000000000, 0xfff0000012345678],
                    np.uint64)
H16_EDGE = np.array([0x0000, 0x8000, 0x3c00, 0xbc00, 0x3e00, 0xc100, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001,
                     0x03ff, 0x0400, 0x7bff, 0x3800, 0x7fff,
                     0xfbff, 0x3555, 0x1400, 0x4248, 0xfc01, 0x7d00, 0x4100, 0x3bff, 0x0200], np.uint16)
BF16_EDGE = np.array([0x0000, 0x8000, 0x3f80, 0xbf80, 0x3fc0, 0xc020, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8001,
                      0x007f, 0x0080, 0x7f7f, 0x3f00, 0x7fff,
                      0xff7f, 0x3daa, 0x4049, 0x0f00, 0x7000, 0x7f81, 0x4020, 0x3f7f], np.uint16)
I_EDGE = [0, 1, -1, 2, -2, 31, 32, 63, 64, 0x7fff, 0x8000, 0xffff, 0x7fffffff, -0x80000000,
          0x7fffffffffffffff, -0x8000000000000000,
          3, 7, 33, 100, 255, 256, 0x80000000, 0xffffffff, 12345, -12345, -0x7fffffff, 0x100000000]

INT_BITS = {"u16": 16, "s16": 16, "b16": 16, "u32": 32, "s32": 32, "b32": 32, "u64": 64, "s64": 64,
            "b64": 64, "u8": 8, "s8": 8}


def _rng(name: str, k: int) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{name}/{k}".encode()))


def _grid(edge: np.ndarray, k: int, n_ops: int) -> np.ndarray:
    """First half: operand 0 and 1 run over all 16 x 16 pairs of the first edges; a third operand
    cycles; a single operand runs over all edges."""
    idx = np.arange(N // 2)
    if n_ops == 1:
        return edge[idx % len(edge)]
    e16 = edge[:16]
    sel = (idx // 16) if k == 0 else (idx % 16) if k == 1 else ((idx * 7 + 3) % 16)
    return e16[sel]


def _sprinkle(rnd: np.ndarray, extra: np.ndarray, r: np.random.Generator) -> np.ndarray:
    pos = r.choice(len(rnd), size=min(len(extra), len(rnd)), replace=False)
    rnd[pos] = extra[: len(pos)]
    return rnd


def gen(kind: str, name: str, k: int, n_ops: int, n: int = N) -> np.ndarray:
    """Inputs of one operand. kind: a PTX type, optionally ':special' (shift, pos, small, unit...)."""
    t, _, spec = kind.partition(":")
    r = _rng(name, k)
    m = n - n // 2
    if t in INT_BITS:
        bits = INT_BITS[t]
        mask = np.uint64((1 << bits) - 1)
        if spec == "shift":
            vals = r.integers(0, 80, n)
        elif spec == "small":
            vals = r.integers(-40, 40, n)
        elif spec == "pos":
            vals = r.integers(0, 300, n)
        else:
            edge = np.array([v & ((1 << 64) - 1) for v in I_EDGE], dtype=np.uint64) & mask
            rnd = r.integers(0, 2 ** 63, m, dtype=np.uint64) * np.uint64(2) + r.integers(0, 2, m, dtype=np.uint64)
            rnd[: m // 4] = r.integers(-300, 300, m // 4).astype(np.int64).astype(np.uint64)
            rnd = _sprinkle(rnd, edge[16:], r)
            return _as_int(np.concatenate([_grid(edge, k, n_ops), rnd]) & mask, t)
        return _as_int(np.asarray(vals, np.int64).astype(np.uint64) & mask, t)
    if t == "f32":
        if spec == "unit":
            return r.uniform(-4, 4, n).astype(np.float32)
        if spec == "trig":
            v = r.uniform(-np.pi, np.pi, n)
            v[: n // 4] = r.uniform(-2000, 2000, n // 4)
            return v.astype(np.float32)
        rnd = (r.standard_normal(m) * np.exp2(r.integers(-20, 20, m))).astype(np.float32)
        rnd[: m // 8] = r.integers(0, 2 ** 32, m // 8, dtype=np.uint64).astype(np.uint32).view(np.float32)
        rnd[m // 8: m // 4] = r.integers(1, 2 ** 23, m // 8).astype(np.uint32).view(np.float32)
        rnd = _sprinkle(rnd, np.concatenate([F32_EDGE[16:], F32_NANS.view(np.float32)]), r)
        return np.concatenate([_grid(F32_EDGE, k, n_ops), rnd]).astype(np.float32)
    if t == "f64":
        rnd = r.standard_normal(m) * np.exp2(r.integers(-60, 60, m))
        rnd[: m // 8] = r.integers(0, 2 ** 64, m // 8, dtype=np.uint64).view(np.float64)
        rnd = _sprinkle(rnd, np.concatenate([F64_EDGE[16:], F64_NANS.view(np.float64)]), r)
        return np.concatenate([_grid(F64_EDGE, k, n_ops), rnd])
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        edge = H16_EDGE if t.startswith("f16") else BF16_EDGE
        if t.startswith("f16"):
            rnd = (r.standard_normal(m) * np.exp2(r.integers(-8, 8, m))).astype(np.float16).view(np.uint16)
        else:
            f = (r.standard_normal(m) * np.exp2(r.integers(-30, 30, m))).astype(np.float32)
            rnd = (f.view(np.uint32) >> 16).astype(np.uint16)
        rnd[: m // 8] = r.integers(0, 2 ** 16, m // 8).astype(np.uint16)
        rnd = _sprinkle(rnd, edge[16:], r)
        lo = np.concatenate([_grid(edge, k, n_ops), rnd]).astype(np.uint16)
        if t.endswith("x2"):
            hi = np.roll(lo, 37)
            return (lo.astype(np.uint32) | (hi.astype(np.uint32) << 16))
        return lo.view(np.float16) if t == "f16" else lo      # the harness takes f16 as float16
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
    # more integer forms: 16-bit promotion pitfalls, wide forms, 64-bit carry
    for t in ("u16", "s16", "s64"):
        add(f"mul.lo.{t}", f"mul.lo.{t} %d, %a, %b", t, a=t, b=t)
        add(f"mad.lo.{t}", f"mad.lo.{t} %d, %a, %b, %c", t, a=t, b=t, c=t)
        add(f"add.{t}", f"add.{t} %d, %a, %b", t, a=t, b=t)
        add(f"sub.{t}", f"sub.{t} %d, %a, %b", t, a=t, b=t)
        add(f"max.{t}", f"max.{t} %d, %a, %b", t, a=t, b=t)
    add("neg.s32", "neg.s32 %d, %a", "s32", a="s32")
    add("mul.wide.u32", "mul.wide.u32 %d, %a, %b", "u64", a="u32", b="u32")
    add("mad.wide.u16", "mad.wide.u16 %d, %a, %b, %c", "u32", a="u16", b="u16", c="u32")
    add("addc.cc.u64", "add.cc.u64 %d, %a, %b;\n  addc.cc.u64 %d, %d, %c;\n  addc.u64 %d, %d, %d", "u64",
        a="u64", b="u64", c="u64")
    add("subc.s64", "sub.cc.s64 %d, %a, %b;\n  subc.s64 %d, %d, %c", "s64", a="s64", b="s64", c="s64")
    add("not.b64", "not.b64 %d, %a", "b64", a="b64")
    add("cnot.b16", "cnot.b16 %d, %a", "b16", a="b16")
    add("xor.b16", "xor.b16 %d, %a, %b", "b16", a="b16", b="b16")
    add("copysign.f64", "copysign.f64 %d, %a, %b", "f64", a="f64", b="f64")
    add("sub.rn.f64", "sub.rn.f64 %d, %a, %b", "f64", a="f64", b="f64")
    add("max.NaN.f32.b", "max.NaN.f32 %d, %a, %b", "f32", a="f32", b="f32")
    for cls in ("normal", "subnormal", "notanumber"):
        addp(f"testp.{cls}.f64", f"testp.{cls}.f64 %p, %a", a="f64")
    for cmp in ("equ", "ne", "num", "gt"):
        addp(f"setp.{cmp}.f64", f"setp.{cmp}.f64 %p, %a, %b", a="f64", b="f64")
        addp(f"setp.{cmp}.bf16", f"setp.{cmp}.bf16 %p, %a, %b", a="bf16", b="bf16")
    addp("setp.ne.s16", "setp.ne.s16 %p, %a, %b", a="s16", b="s16")
    addp("setp.ge.ftz.f16", "setp.ge.ftz.f16 %p, %a, %b", a="f16", b="f16")
    add("sin.approx.f32.full", "sin.approx.f32 %d, %a", "f32", a="f32")
    add("cos.approx.ftz.f32.full", "cos.approx.ftz.f32 %d, %a", "f32", a="f32")
    add("cvt.rn.tf32.f32", "cvt.rn.tf32.f32 %d, %a", "b32", a="f32")
    add("cvt.rz.relu.tf32.f32", "cvt.rz.relu.tf32.f32 %d, %a", "b32", a="f32")
    add("cvt.rn.satfinite.e5m2x2.f16x2", "cvt.rn.satfinite.e5m2x2.f16x2 %d, %a", "b16", a="f16x2")
    add("cvt.rn.relu.f16x2.e4m3x2", "cvt.rn.relu.f16x2.e4m3x2 %d, %a", "f16x2", a="b16")
    add("cvt.rzi.s32.bf16", "cvt.rzi.s32.bf16 %d, %a", "s32", a="bf16")
    add("cvt.f32.f16.b", "cvt.f32.f16 %d, %a", "f32", a="f16")
    add("cvt.rn.f16.u64", "cvt.rn.f16.u64 %d, %a", "f16", a="u64")
    add("cvt.rp.f32.u64", "cvt.rp.f32.u64 %d, %a", "f32", a="u64")
    add("cvt.rz.f64.s64", "cvt.rz.f64.s64 %d, %a", "f64", a="s64")
    add("cvt.u16.u64", "cvt.u16.u64 %d, %a", "u16", a="u64")
    add("cvt.s16.s8", "cvt.s16.s8 %d, %a", "s16", a="s8")
    add("cvt.u64.s16", "cvt.u64.s16 %d, %a", "u64", a="s16")
    add("cvt.sat.u8.s16", "cvt.sat.u8.s16 %d, %a", "u8", a="s16")
    add("cvt.rni.sat.f32.f32", "cvt.rni.sat.f32.f32 %d, %a", "f32", a="f32")
    add("cvt.rn.f16.f32.unit", "cvt.rn.f16.f32 %d, %a", "f16", a="f32:unit")
    add("slct.f32.f32", "slct.f32.f32 %d, %a, %b, %c", "f32", a="f32", b="f32", c="f32")
    add("mul.rn.ftz.sat.f32", "mul.rn.ftz.sat.f32 %d, %a, %b", "f32", a="f32", b="f32")
    add("fma.rm.ftz.sat.f32", "fma.rm.ftz.sat.f32 %d, %a, %b, %c", "f32", a="f32", b="f32", c="f32")
    add("mad.rn.f32", "mad.rn.f32 %d, %a, %b, %c", "f32", a="f32", b="f32", c="f32")
    add("mul.rn.sat.f16", "mul.rn.sat.f16 %d, %a, %b", "f16", a="f16", b="f16")
    add("sub.rn.ftz.f16x2", "sub.rn.ftz.f16x2 %d, %a, %b", "f16x2", a="f16x2", b="f16x2")
    add("max.ftz.NaN.xorsign.abs.f16x2", "max.ftz.NaN.xorsign.abs.f16x2 %d, %a, %b", "f16x2", a="f16x2", b="f16x2")
    add("min.NaN.xorsign.abs.bf16x2", "min.NaN.xorsign.abs.bf16x2 %d, %a, %b", "bf16x2", a="bf16x2", b="bf16x2")
    add("neg.ftz.f16", "neg.ftz.f16 %d, %a", "f16", a="f16")
    add("abs.f16x2", "abs.f16x2 %d, %a", "f16x2", a="f16x2")
    add("neg.bf16x2", "neg.bf16x2 %d, %a", "bf16x2", a="bf16x2")
    return c


CASES = _cases()


# ---------------------------------------------------------------------------------------------------
# families (which test file checks a case) and the tolerances of approximate instructions
# ---------------------------------------------------------------------------------------------------
def family(name: str) -> str:
    if name.startswith("cvt"):
        return "cvt"
    if name.startswith(("setp", "set.", "slct")):
        return "cmp"
    if "f16" in name or "bf16" in name:
        return "half"
    if "f32" in name or "f64" in name:
        return "float"
    return "int"


# (kind, bound): "ulp" n ulps; "rel" relative; "abs" absolute; "lg2" absolute 2^-22 scaled by 1+|hw|.
# The documented PTX bounds are against the exact function; the simulator computes (nearly) exact
# values, so it is checked against the hardware with the same bound.
APPROX = [("div.full", ("ulp", 2)), ("div.approx", ("ulp", 2)), ("rcp.approx.ftz.f64", ("rel", 2.0 ** -19)),
          ("rsqrt.approx.f64", ("rel", 2.0 ** -50)), ("rcp.approx", ("ulp", 2)), ("sqrt.approx", ("ulp", 2)),
          ("rsqrt.approx", ("ulp", 2)), ("lg2.approx", ("lg2", 2.0 ** -22)),
          ("tanh.approx.f32", ("rel", 2.0 ** -10.9)), ("sin.approx", ("abs", 2.0 ** -20.9)),
          ("cos.approx", ("abs", 2.0 ** -20.9)), ("ex2.approx.f32", ("ulp", 2)),
          ("ex2.approx.ftz.f32", ("ulp", 2)), ("ex2.approx", ("ulp", 1)), ("tanh.approx", ("ulp", 1))]


def approx_bound(name: str):
    for prefix, bound in APPROX:
        if name.startswith(prefix):
            return bound
    return None


CASE = {c[0]: c for c in CASES}


def names(fam: str) -> list[str]:
    return [c[0] for c in CASES if family(c[0]) == fam]
