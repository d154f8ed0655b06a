"""A harness for instruction-level tests: run one PTX instruction over many threads on given inputs.

    out = run_inst(dev, "add.s32 %d, %a, %b", d="s32", a=("s32", xs), b=("s32", ys))

builds a kernel where thread i loads a[i], b[i], ... (registers %a, %b, %c, %e typed as given), executes
the instruction text (which names its operands %d, %a, %b, %c, %e, and predicates %p, %q), and stores
%d[i] (and, if asked, predicate %p as 0/1 into an extra output). Returns numpy arrays. Register
declarations use the PTX type given; 16-bit and 8-bit inputs are loaded with ld of that width.
"""
from __future__ import annotations

import numpy as np

NP = {"b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16, "s16": np.int16,
      "f16": np.float16, "bf16": np.uint16, "b32": np.uint32, "u32": np.uint32, "s32": np.int32,
      "f32": np.float32, "f16x2": np.uint32, "bf16x2": np.uint32, "b64": np.uint64, "u64": np.uint64,
      "s64": np.int64, "f64": np.float64, "pred": np.uint8}
# 8-bit values live in 16-bit registers; bf16 values in .b16/.b32 registers (PTX has no .bf16 registers)
REG = {"b8": "b16", "u8": "b16", "s8": "b16", "bf16": "b16", "bf16x2": "b32"}
LDT = {"f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32", "pred": "u8"}


def _ld_type(t):
    return LDT.get(t, t)


def build_ptx(inst: str, d: str | None, ins: dict[str, str], pred_out: bool = False, extra: str = "") -> str:
    names = list(ins)
    params = ",\n".join(f"  .param .u64 p_{n}" for n in names + (["d"] if d else []) + (["p"] if pred_out else []))
    lines = [".version 8.5", ".target sm_90", ".address_size 64", "", f".visible .entry k(\n{params},\n  .param .u32 n)", "{"]
    lines += ["  .reg .pred %p, %q, %pin;", "  .reg .b32 %gtid, %n, %pv;", "  .reg .b64 %off, %addr, %ptr;"]
    for n, t in ins.items():
        if t == "pred":
            lines.append(f"  .reg .u16 %{n}_raw;")
            continue
        lines.append(f"  .reg .{REG.get(t, t)} %{n};")
    if d:
        lines.append(f"  .reg .{REG.get(d, d)} %d;")
    lines += ["  mov.u32 %gtid, %tid.x;", "  mov.u32 %pv, %ctaid.x;", "  mov.u32 %n, %ntid.x;",
              "  mad.lo.u32 %gtid, %pv, %n, %gtid;", "  ld.param.u32 %n, [n];", "  setp.ge.u32 %p, %gtid, %n;",
              "  @%p bra DONE;"]
    for n, t in ins.items():
        size = max(1, int(np.dtype(NP[t]).itemsize))
        lines += [f"  ld.param.u64 %ptr, [p_{n}];", f"  mul.wide.u32 %off, %gtid, {size};",
                  "  add.u64 %addr, %ptr, %off;"]
        if t == "pred":
            lines += [f"  ld.global.u8 %{n}_raw, [%addr];", f"  setp.ne.u16 %{n}, %{n}_raw, 0;"]
        else:
            lt = _ld_type(t)
            if t in ("b8", "u8", "s8"):
                lt = {"b8": "u8", "u8": "u8", "s8": "s8"}[t]
            lines.append(f"  ld.global.{lt} %{n}, [%addr];")
    if extra:
        lines.append(extra)
    lines.append(f"  {inst};")
    if d:
        size = int(np.dtype(NP[d]).itemsize)
        st = _ld_type(d) if d not in ("b8", "u8", "s8") else "u8"
        lines += ["  ld.param.u64 %ptr, [p_d];", f"  mul.wide.u32 %off, %gtid, {size};", "  add.u64 %addr, %ptr, %off;",
                  f"  st.global.{st} [%addr], %d;"]
    if pred_out:
        lines += ["  ld.param.u64 %ptr, [p_p];", "  cvt.u64.u32 %off, %gtid;", "  add.u64 %addr, %ptr, %off;",
                  "  selp.u32 %pv, 1, 0, %p;", "  st.global.u8 [%addr], %pv;"]
    lines += ["DONE:", "  ret;", "}"]
    # the predicate inputs are declared as .pred registers named like the input
    decl = "".join(f"  .reg .pred %{n};\n" for n, t in ins.items() if t == "pred")
    text = "\n".join(lines)
    return text.replace("{\n", "{\n" + decl, 1)


def run_inst(dev, inst: str, d: str | None = None, pred_out: bool = False, block: int = 128,
             extra: str = "", **inputs):
    """inputs: name=(ptx type, values). Returns out array (and predicate array if pred_out)."""
    ins = {k: v[0] for k, v in inputs.items()}
    n = None
    arrays = {}
    for k, (t, vals) in inputs.items():
        a = np.asarray(vals)
        if t in ("bf16",) and a.dtype != np.uint16:
            raise TypeError("pass bf16 inputs as uint16 bit patterns")
        a = a.astype(NP[t]) if a.dtype != NP[t] else a
        arrays[k] = a
        n = a.size if n is None else n
        assert a.size == n, "all inputs need the same length"
    text = build_ptx(inst, d, ins, pred_out, extra)
    mod = dev.load_ptx(text, filename=f"<isa {inst}>")
    bufs = [dev.to_device(arrays[k]) for k in ins]
    args = list(bufs)
    outd = outp = None
    if d:
        outd = dev.to_device(np.zeros(n, NP[d]))
        args.append(outd)
    if pred_out:
        outp = dev.to_device(np.zeros(n, np.uint8))
        args.append(outp)
    args.append(n)
    grid = (n + block - 1) // block
    dev.launch(mod.kernel("k"), grid, block, args)
    res = []
    if d:
        res.append(dev.from_device(outd))
    if pred_out:
        res.append(dev.from_device(outp).astype(bool))
    return res[0] if len(res) == 1 else tuple(res)
