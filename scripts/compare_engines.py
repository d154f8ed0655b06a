"""Bit-identity check of two simtscope checkouts: same outputs, same simulated cycles.

    python scripts/compare_engines.py --ref /path/to/other/checkout [--quick] [--gpt2]

Runs the same work in this checkout and in --ref (each in its own process, importing that checkout's
engine, which must be built), and compares, item by item:
  - the tensor-core test kernels of tests/kernels (every wgmma form and swizzle, every mma.sync form,
    every wmma shape/type/layout, ldmatrix/stmatrix) on random inputs and on inputs full of special
    values (infinities, NaNs, subnormals, signed zeros, values that cancel): SHA-256 of every output;
  - the suite's wmma GEMMs (hgemm_*): outputs in the functional core, and sim_cycles + outputs in the
    timing model (the 512 ones; --quick skips the timing runs);
  - the bundles of workloads/examples and workloads/zoo/mlp_b128_fp16: the bytes of every buffer after
    the whole functional pass, and after a timed pass with every launch's sim_cycles;
  - with --gpt2, the GPT-2 bundle: every buffer after the functional pass, and the first 13 launches
    timed.
Prints one line per item and exits 1 if anything differs. Used to check that a speed-up of the
functional core changed nothing (docs/performance.md).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _h(b) -> str:
    return hashlib.sha256(bytes(b)).hexdigest()[:16]


def _hc(arr, t: str) -> str:
    """_h of tensor-core results of type t with every NaN made canonical (0x7fffffff / 0x7fff): the
    engine returns canonical NaNs since the tile kernel (commit of scripts/compare_engines.py); before,
    a NaN result carried whatever payload the host's operand order gave. Only NaN payloads are
    normalised; every other bit is compared."""
    import numpy as np
    a = np.frombuffer(bytes(arr), np.uint8).copy()
    if t == "f32":
        u = a.view(np.uint32)
        u[(u & 0x7FFFFFFF) > 0x7F800000] = 0x7FFFFFFF
    elif t == "f16":
        u = a.view(np.uint16)
        u[(u & 0x7FFF) > 0x7C00] = 0x7FFF
    return _h(a)


# ------------------------------------------------------------------ the work (runs in either checkout)

def _special(rng, t, shape):
    """Bit patterns of type t full of edge values: infinities, NaNs, subnormals, zeros of both signs,
    large and tiny magnitudes that cancel or overflow the accumulator."""
    import numpy as np
    n = int(np.prod(shape))
    if t in ("f16", "e5m2_16"):
        pool = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00,
                         0x7d01, 0x3c00, 0xbc00, 0x0400, 0x3555, 0x5bff], np.uint16)
    elif t == "bf16":
        pool = np.array([0x0000, 0x8000, 0x0001, 0x807f, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81,
                         0x3f80, 0xbf80, 0x0080, 0x3eab, 0x7000, 0x1000], np.uint16)
    elif t == "tf32":
        pool = np.array([0x00000000, 0x80000000, 0x00002000, 0x7f7fe000, 0xff7fe000, 0x7f800000, 0xff800000,
                         0x7fc00000, 0x7f802000, 0x3f800000, 0xbf800000, 0x00800000, 0x3eaaa000, 0x71000000,
                         0x0f000000, 0x3f801fff], np.uint32)
    else:                                     # 8-bit: every pattern
        pool = np.arange(256, dtype=np.uint8)
    bits = pool[rng.integers(0, len(pool), n)].reshape(shape)
    mix = rng.random(shape) < 0.5             # half ordinary values, so that not everything is NaN
    return bits, mix


def _tensor_items(dev, seed: int) -> dict:
    import numpy as np
    sys.path.insert(0, str(Path.cwd()))
    import importlib
    os.environ.setdefault("SIMTSCOPE_TEST_BACKEND", "sim")
    tt = importlib.import_module("tests.test_tensor")
    from tests.backends import load_kernels
    out = {}
    rng = np.random.default_rng(seed)
    # wgmma: every form, every swizzle pairing, scale-d both ways, random and special inputs
    m = load_kernels(dev, "tensor_wgmma.sm90a")
    for name, (at, bt, dt, N, a_regs, ta, tb, sa, sb) in sorted(tt.WG_FORMS.items()):
        es = tt.ES[at]
        K = 32 // es
        packed = dt == "f16"
        nd = N // 4 if packed else N // 2
        for special in (0, 1):
            for swa, swb, scale_d in [(0, 1, 1), (1, 2, 0), (2, 3, 1), (3, 0, 1), (1, 1, 1)]:
                a, abits = tt._wg_inputs(rng, at, (64, K))
                b, bbits = tt._wg_inputs(rng, bt, (K, N))
                if special:
                    for arr, t in ((abits, at), (bbits, bt)):
                        sp, mix = _special(rng, t, arr.shape)
                        flat = arr.reshape(-1).view({1: np.uint8, 2: np.uint16, 4: np.uint32}[arr.itemsize])
                        flat[mix.reshape(-1)] = sp.reshape(-1)[mix.reshape(-1)].astype(flat.dtype)
                offa, desca = tt.canonical_layout(ta, swa, 64, K, es)
                offb, descb = tt.canonical_layout(tb, swb, N, K, es)
                cregs = rng.integers(0, 2**32, (128, nd), dtype=np.uint64).astype(np.uint32)
                if not special and dt != "s32":      # ordinary accumulators: small finite values
                    cvals = rng.uniform(-1, 1, (128, nd * (2 if packed else 1)))
                    cregs = (cvals.astype(np.float16).view(np.uint32) if packed else
                             cvals.astype(np.float32).view(np.uint32)).reshape(128, nd)
                aregs = tt._wg_a_regs(abits, at) if a_regs else np.zeros((128, 4), np.uint32)
                dbuf = dev.alloc(128 * nd, np.uint32)
                args = [dev.to_device(abits), dev.to_device(bbits), dev.to_device(aregs),
                        dev.to_device(offa.reshape(-1)), dev.to_device(offb.T.reshape(-1)), desca, descb,
                        dev.to_device(np.ascontiguousarray(cregs)), dbuf, scale_d]
                dev.launch(m.kernel(name), 1, 128, args, shared=1024 + 16384 + 32768)
                out[f"wgmma {name} sw{swa}{swb} s{scale_d} sp{special}"] = _hc(dev.from_device(dbuf), dt)
    # mma.sync: every form, 4 problems per launch, random and special inputs
    m = load_kernels(dev, "tensor_mma.sm90")
    for name, (K, at, bt, ct, amap, na, bmap, nb) in sorted(tt.MMA.items()):
        for special in (0, 1):
            A, B, C = [], [], []
            for p in range(4):
                a, abits = tt.mma_inputs(rng, at, (16, K))
                b, bbits = tt.mma_inputs(rng, bt, (K, 8))
                if special:
                    for arr, t in ((abits, at), (bbits, bt)):
                        sp, mix = _special(rng, t, arr.shape)
                        flat = arr.reshape(-1).view({1: np.uint8, 2: np.uint16, 4: np.uint32}[arr.itemsize])
                        flat[mix.reshape(-1)] = sp.reshape(-1)[mix.reshape(-1)].astype(flat.dtype)
                c = (rng.integers(-2**31, 2**31, (16, 8)).astype(np.int32) if ct == "s32" else
                     rng.uniform(-1, 1, (16, 8)).astype(tt.NP_ACC[ct]))
                A.append(tt.pack(abits, at, amap, na))
                B.append(tt.pack(bbits, bt, bmap, nb))
                C.append(tt.pack(c, ct, tt._acc, 4))
            nd = 4 * tt.BITS[ct] // 32
            dbuf = dev.alloc(4 * 32 * nd, np.uint32)
            dev.launch(m.kernel(name), 4, 32, [dev.to_device(np.concatenate(q)) for q in (A, B, C)] + [dbuf])
            out[f"mma {name} sp{special}"] = _hc(dev.from_device(dbuf), ct)
    # ldmatrix / stmatrix
    tile = rng.integers(0, 2**16, (64, 8)).astype(np.uint16)
    rows = rng.integers(0, 64, 32).astype(np.int32)
    o = dev.alloc(32 * 16, np.uint32)
    dev.launch(m.kernel("ldmatrix_all"), 1, 32, [dev.to_device(tile), dev.to_device(rows), o])
    out["ldmatrix_all"] = _h(dev.from_device(o))
    regs = rng.integers(0, 2**32, (32, 4), dtype=np.uint64).astype(np.uint32)
    rows = rng.permutation(64)[:32].astype(np.int32)
    o = dev.alloc(128 * 8, np.uint16)
    dev.launch(m.kernel("stmatrix_all"), 1, 32, [dev.to_device(regs), dev.to_device(rows), o])
    out["stmatrix_all"] = _h(dev.from_device(o))
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 8)).astype(np.float16)
    D, Dh = dev.alloc(128, np.float32), dev.alloc(128, np.float16)
    dev.launch(m.kernel("ldsm_mma_tile"), 1, 32, [dev.to_device(a), dev.to_device(b), D, Dh])
    out["ldsm_mma_tile"] = _h(dev.from_device(D)) + _h(dev.from_device(Dh))
    # wmma: every shape, type, layout; random and special inputs
    km = load_kernels(dev, "tensor_wmma.sm90")
    for shape, it, acc, lay in tt.WMMA:
        M, N, K = tt.SHAPES[shape]
        for special in (0, 1):
            a, abits = tt.inputs(rng, it, (M, K))
            b, bbits = tt.inputs(rng, it, (K, N))
            abits, bbits = abits.copy(), bbits.copy()
            if special:
                for arr in (abits, bbits):
                    sp, mix = _special(rng, it, arr.shape)
                    flat = arr.reshape(-1).view({1: np.uint8, 2: np.uint16, 4: np.uint32}[arr.itemsize])
                    flat[mix.reshape(-1)] = sp.reshape(-1)[mix.reshape(-1)].astype(flat.dtype)
            c = (rng.integers(-2**31, 2**31, (M, N)).astype(np.int32) if acc == "s32" else
                 rng.uniform(-1, 1, (M, N)).astype(tt.NP_ACC[acc]))
            arow, brow = lay[0] == "r", lay[1] == "r"
            crow, drow = bool(rng.integers(2)), bool(rng.integers(2))
            lda, ldb = (K if arow else M) + 8, (N if brow else K) + 8
            ldc, ldd = (N if crow else M) + 4, (N if drow else M) + 8
            bufs = [tt.store(abits, arow, lda, abits.dtype.type(0)), tt.store(bbits, brow, ldb, bbits.dtype.type(0)),
                    tt.store(c, crow, ldc, c.dtype.type(0))]
            dbuf = dev.to_device(tt.store(np.zeros((M, N), c.dtype), drow, ldd, 0))
            dev.launch(km.kernel(f"wmma_{shape}_{it}_{acc}_{lay}"), 1, 32,
                       [dev.to_device(q) for q in bufs] + [dbuf, lda, ldb, ldc, ldd, int(crow), int(drow)])
            out[f"wmma {shape} {it} {acc} {lay} sp{special}"] = _hc(dev.from_device(dbuf), acc)
    return out


def _case_items(quick: bool) -> dict:
    from engine.cases import load_suite
    from engine.device import Device
    from engine.runner import prepare
    from engine.timing import TimingSim
    out = {}
    suite = load_suite()
    for name in sorted(n for n in suite.names() if n.startswith("hgemm")):
        case = suite[name]
        dev = Device()
        kernel, args, _, bufs = prepare(case, dev)
        dev.launch(kernel, case.grid, case.block, args, shared=case.shared)
        out[f"case {name} functional"] = "".join(_h(dev.from_device(bufs[o])) for o in case.outputs)
        if not quick and name.endswith("_512"):
            sim = TimingSim("h200")
            kernel, args, _, bufs = prepare(case, sim.device)
            sim.flush()
            r = sim.launch(kernel, case.grid, case.block, args, shared=case.shared)
            out[f"case {name} timing"] = f"cycles={r.cycles} " + "".join(
                _h(sim.device.from_device(bufs[o])) for o in case.outputs)
    return out


def _bundle_run(path: str, timed: set[int] | None) -> str:
    """Every launch in order (timed ones in the timing model, cold caches); then the bytes of every
    buffer and each timed launch's cycles."""
    from engine.device import Device
    from engine.timing import TimingSim
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import WorkloadRunner
    with open_bundle(path) as b:
        sim = TimingSim("h200") if timed else None
        dev = sim.device if sim else Device()
        r = WorkloadRunner(b, dev)
        cycles = []
        for L, p in zip(b.launches, r.prepared):
            if p.error:
                cycles.append(f"error:{p.error}")
            elif timed and L.index in timed:
                sim.flush()
                res = sim.launch(p.kernel, L.grid, L.block, p.args, shared=L.shared_bytes)
                cycles.append(res.cycles)
            else:
                dev.launch(p.kernel, L.grid, L.block, p.args, shared=L.shared_bytes)
        bufs = hashlib.sha256()
        for bid, buf in sorted(b.buffers.items()):
            bufs.update(bytes(dev.read(r.addr[bid], buf.bytes)) if buf.bytes else b"")
        outs = all(o.passed for o in r.check_outputs())
        return f"outputs_pass={outs} buffers={bufs.hexdigest()[:16]} cycles={sum(c for c in cycles if isinstance(c, int))} " \
               f"per-launch={_h(json.dumps(cycles).encode())}"


def _bundle_items(quick: bool, gpt2: bool) -> dict:
    out = {}
    paths = sorted(str(p) for p in (Path.cwd() / "workloads" / "examples").glob("*.tar.xz"))
    paths.append(str(Path.cwd() / "workloads" / "zoo" / "mlp_b128_fp16.tar.xz"))
    for p in paths:
        name = Path(p).name.split(".")[0]
        out[f"bundle {name} functional"] = _bundle_run(p, None)
        if not quick:
            out[f"bundle {name} timing"] = _bundle_run(p, set(range(10_000)))
    if gpt2:
        p = str(Path.cwd() / "workloads" / "zoo" / "gpt2_small_t256_fp16.tar.xz")
        out["bundle gpt2 functional"] = _bundle_run(p, None)
        out["bundle gpt2 timing 0-12"] = _bundle_run(p, set(range(13)))
    return out


def dump(path: str, quick: bool, gpt2: bool) -> None:
    sys.path.insert(0, str(Path.cwd()))
    from engine.device import Device
    t0 = time.process_time()
    items = {}
    items.update(_tensor_items(Device(), 1234))
    items.update(_case_items(quick))
    items.update(_bundle_items(quick, gpt2))
    items["_cpu_s"] = round(time.process_time() - t0, 1)
    Path(path).write_text(json.dumps(items, indent=1))


# ------------------------------------------------------------------ driver

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", help="the other checkout (built)")
    ap.add_argument("--quick", action="store_true", help="skip the timing runs")
    ap.add_argument("--gpt2", action="store_true", help="also the GPT-2 bundle (minutes)")
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.dump:
        dump(a.dump, a.quick, a.gpt2)
        return 0
    if not a.ref:
        ap.error("--ref is required")
    flags = (["--quick"] if a.quick else []) + (["--gpt2"] if a.gpt2 else [])
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, root in (("this", HERE), ("ref", Path(a.ref).resolve())):
            out = Path(tmp) / f"{label}.json"
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--dump", str(out)] + flags,
                           cwd=root, check=True, env={**os.environ, "PYTHONPATH": str(root)})
            res[label] = json.loads(out.read_text())
    this, ref = res["this"], res["ref"]
    bad = 0
    for k in sorted(set(this) | set(ref)):
        if k.startswith("_"):
            continue
        same = this.get(k) == ref.get(k)
        bad += not same
        if not same or k.startswith(("case", "bundle")):
            print(f"{'same' if same else 'DIFFERENT':9s} {k}: {this.get(k)}" + ("" if same else f"  (ref: {ref.get(k)})"))
    n = len([k for k in this if not k.startswith("_")])
    print(f"{n - bad} of {n} items identical; CPU s: this {this['_cpu_s']}, ref {ref['_cpu_s']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
