"""Record the ground truth of tests/kernels/isa_cases.py on a real NVIDIA GPU (CuPy loads the PTX).

    python tests/kernels/isa_record_h200.py OUT.npz

Stores, per case NAME: NAME/in/<operand> (inputs), NAME/out (the destination values) and/or NAME/p
(the predicate), plus `_errors` (cases the driver's PTX compiler refused) and `_device`.
Not run by the test suite (it needs a GPU); its output is committed as tests/kernels/isa_h200.npz.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.isa import NP, build_ptx  # noqa: E402
from tests.kernels.isa_cases import CASES, inputs  # noqa: E402


def run_case(cp, case, tmp: Path):
    name, inst, d, ins, pred_out = case
    arrays = inputs(case)
    types = {k: t for k, (t, _) in arrays.items()}
    text = build_ptx(inst, d, types, pred_out)
    path = tmp / f"case{abs(hash(name))}.ptx"   # one file per case: CuPy caches modules by path
    path.write_text(text)
    mod = cp.RawModule(path=str(path))
    fn = mod.get_function("k")
    n = len(next(iter(arrays.values()))[1])
    bufs = [cp.asarray(np.ascontiguousarray(a.astype(NP[t]))) for t, a in arrays.values()]
    args = list(bufs)
    outd = outp = None
    if d:
        outd = cp.zeros(n, NP[d])
        args.append(outd)
    if pred_out:
        outp = cp.zeros(n, np.uint8)
        args.append(outp)
    args.append(np.uint32(n))
    fn(((n + 127) // 128,), (128,), tuple(args))
    cp.cuda.runtime.deviceSynchronize()
    res = {f"{name}/in/{k}": a for k, (t, a) in arrays.items()}
    if d:
        res[f"{name}/out"] = cp.asnumpy(outd)
    if pred_out:
        res[f"{name}/p"] = cp.asnumpy(outp)
    return res


def main(out: str):
    import cupy as cp
    store, errors = {}, []
    with tempfile.TemporaryDirectory() as t:
        for case in CASES:
            print(case[0], file=sys.stderr, flush=True)
            try:
                store.update(run_case(cp, case, Path(t)))
            except Exception as e:   # a form this driver's PTX JIT refuses: record and go on
                errors.append(f"{case[0]}: {type(e).__name__}: {str(e)[:300]}")
    store["_errors"] = np.array(errors, dtype=object).astype(str) if errors else np.array([], dtype="U1")
    store["_device"] = np.array(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    np.savez_compressed(out, **store)
    print(f"{len(CASES) - len(errors)} cases recorded, {len(errors)} refused")
    for e in errors:
        print("  ", e)


if __name__ == "__main__":
    main(sys.argv[1])
