"""Compare one case of tests/kernels/isa_cases.py run in the simulator with its H200 record
(tests/kernels/isa_h200.npz): bit for bit, or within the documented bound for .approx instructions."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.isa import run_inst
from tests.kernels.isa_cases import CASE, approx_bound
from tests.kernels.isa_ref import bits_of, halves, ulp_diff

RECORD = Path(__file__).with_name("isa_h200.npz")


def load_record():
    return np.load(RECORD)


def _values(bits: np.ndarray, d: str):
    """float64 values and (bits, width) for ulp distances of a destination type"""
    if d in ("f16x2", "bf16x2"):
        h = halves(bits)
        return _values(h if d == "bf16x2" else h.view(np.float16), d[:-2])
    if d == "bf16":
        b = bits.astype(np.uint16)
        return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64), b, 16
    b = bits_of(bits)
    return bits.astype(np.float64), b, bits.dtype.itemsize * 8


def _describe(name, ins, idx, sim, hw):
    rows = []
    for i in idx[:6]:
        args = ", ".join(f"{k}={v[i]!r}" for k, v in ins.items())
        rows.append(f"  {args}: sim {sim[i]!r} hw {hw[i]!r}")
    return f"{name}: {len(idx)} of {len(sim)} differ from the H200\n" + "\n".join(rows)


def check(dev, rec, name: str):
    _, inst, d, ins, pred_out = CASE[name]
    arrays = {k: (kind.partition(":")[0], rec[f"{name}/in/{k}"]) for k, kind in ins.items()}
    sim = run_inst(dev, inst, d=d, pred_out=pred_out, **arrays)
    hw = rec[f"{name}/p"].astype(bool) if pred_out else rec[f"{name}/out"]
    inputs = {k: a for k, (_, a) in arrays.items()}
    bound = approx_bound(name)
    if bound is None:
        sb, hb = (sim, hw) if pred_out else (bits_of(sim), bits_of(hw))
        bad = np.nonzero(sb != hb)[0]
        assert len(bad) == 0, _describe(name, inputs, bad, sim, hw)
        return
    sv, sbits, width = _values(sim, d)
    hv, hbits, _ = _values(hw, d)
    ok = np.isnan(sv) == np.isnan(hv)
    fin = np.isfinite(hv) & np.isfinite(sv)
    ok &= np.where(np.isinf(hv) | np.isinf(sv), sv == hv, True)
    kind, b = bound
    with np.errstate(invalid="ignore"):
        err = np.abs(sv - hv)
    if kind == "ulp":
        within = ulp_diff(sbits, hbits, width) <= b
    elif kind == "rel":
        within = err <= b * np.abs(hv)
    elif kind == "abs":
        within = err <= b
    else:
        within = err <= b * (1 + np.abs(hv))
    ok &= np.where(fin, within, True)
    bad = np.nonzero(~ok)[0]
    assert len(bad) == 0, _describe(name, inputs, bad, sim, hw) + f"\n  bound {bound}"
