"""The model's side of wmmastep.cu (helper wmma, calibration.md 5r): runs its PTX (nvcc -ptx here) in simtscope's
timing model with the same launches and prints the figures the H200 run prints, beside the H200's where a result
file exists. Run from the repository root with the project's Python:

    python benchmarks/hw/sim_wmmastep.py [--hw benchmarks/hw/results/h200_wmmastep.txt] [--only REGEX] [--set K=V]
    python benchmarks/hw/sim_wmmastep.py --l1wave [--hw benchmarks/hw/results/h200_l1wave.txt]   # l1wave.cu
    python benchmarks/hw/sim_wmmastep.py --l1sector [--hw benchmarks/hw/results/h200_l1sector.txt]   # l1sector.cu

simple: cycles per k step of hgemm_wmma_simple's loop, one CTA of W warps; "same": every step re-reads step 0's
fragments (L1 hits after the first step); "warm": A and B L2-resident, the L1 empty (the launch again after a
first one). movm, movm_tp: printed from the H200 only (the PTX
front end has no movmatrix; the model times MOVM inside wmma.load, sm.movm_latency_cycles). ldsm: cycles per op
of a dependent ldmatrix chain (one IADD3 in it); ldsm_tp: cycles per ldmatrix.x4 per SM; tiled: cycles per K
iteration of hgemm_wmma_tiled (BK = 32), A and B L2-resident.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

import numpy as np

HW = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HW.parent.parent))
sys.path.insert(0, str(HW))
from sim_hw import one_entry, ptx_of  # noqa: E402
from engine.timing import TimingSim  # noqa: E402

K_SIMPLE = {"row": "_Z12simple_timedIN6nvcuda4wmma9row_majorEEviiiiPK6__halfS5_PfPy",
            "col": "_Z12simple_timedIN6nvcuda4wmma9col_majorEEviiiiPK6__halfS5_PfPy"}
K_LDSM = {(x, t): f"_Z10ldsm_chainILi{x}ELb{t}EEviPjPy" for x in (1, 2, 4) for t in (0, 1)}


def hw_results(path: str) -> dict:
    """mean over reps of each configuration's figure, keyed like the model's rows"""
    acc: dict = {}
    p = pathlib.Path(path)
    if not p.exists():
        return {}
    for line in p.read_text().splitlines():
        if not line.startswith("RESULT "):
            continue
        r = json.loads(line[7:])
        b = r["bench"]
        if b == "simple":
            key, v = f"simple_{r['b']}_w{r['warps']}_{r['state']}", r["cyc_per_step"]
        elif b == "movm":
            key, v = "movm", r["cyc_per_op"]
        elif b == "movm_tp":
            key, v = f"movm_tp_w{r['warps']}", r["cyc_per_movm_per_sm"]
        elif b == "ldsm":
            key, v = f"ldsm_x{r['x']}{'_t' if r['trans'] else ''}", r["cyc_per_op"]
        elif b == "ldsm_tp2":       # ("ldsm_tp" of the first run is void: ptxas hoisted its LDSMs)
            key, v = f"ldsm_tp_w{r['warps']}", r["cyc_per_ldsm_x4_per_sm"]
        elif b == "l1wave":
            key, v = f"l1wave_{r['pattern']}_c{r['chains']}", r["cyc_per_load"]
        elif b == "l1sector":
            key, v = f"l1sector_{r['mode']}", r["cyc_per_load"]
        elif b == "tiled":
            key, v = f"tiled_{r['grid']}", r["cyc_per_iter"]
        else:
            continue
        acc.setdefault(key, []).append(v)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hw", default=str(HW / "results" / "h200_wmmastep.txt"))
    ap.add_argument("--only", default="")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--l1wave", action="store_true", help="l1wave.cu's latency per L1-hit load against its wavefronts")
    ap.add_argument("--l1sector", action="store_true", help="l1sector.cu's L2-hit latency: new lines against sectors")
    a = ap.parse_args()
    if a.l1wave:
        return l1wave(a)
    if a.l1sector:
        return l1sector(a)
    ptx = ptx_of("wmmastep.cu", "sm_90")
    hw = hw_results(a.hw)
    sim = TimingSim("h200", overrides=a.set)
    dev = sim.device
    kern: dict = {}

    def k(name):
        if name not in kern:
            kern[name] = dev.load_ptx(one_entry(ptx, name)).kernel(name)
        return kern[name]

    M = N = K = 512
    rng = np.random.default_rng(1)
    A = dev.malloc(M * K * 2); B = dev.malloc(K * N * 2); C = dev.malloc(M * N * 4)
    dev.write(A, rng.uniform(-1, 1, M * K).astype(np.float16).tobytes())
    dev.write(B, rng.uniform(-1, 1, K * N).astype(np.float16).tobytes())
    cyc = dev.malloc(4096 * 8); out = dev.malloc(4096 * 4)

    def mean_cyc(n):
        return float(np.frombuffer(dev.read(cyc, 8 * n), np.uint64).astype(float).mean())

    rows = []
    for bl in ("row", "col"):
        for W in (1, 2, 4, 8):
            for state in ("warm", "same"):
                rows.append((f"simple_{bl}_w{W}_{state}", "simple", (bl, W, state)))
    # movm / movm_tp: the PTX front end has no movmatrix (the model times MOVM only inside wmma.load,
    # sm.movm_latency_cycles); their H200 figures are printed for reference
    for name in ("movm", *(f"movm_tp_w{W}" for W in (1, 4, 8, 16, 32))):
        if name in hw and (not a.only or re.search(a.only, name)):
            print(f"{name:24s} {hw[name]:9.2f} {'(no PTX movmatrix in the model)':>s}")
    for x in (1, 2, 4):
        for t in (0, 1):
            rows.append((f"ldsm_x{x}{'_t' if t else ''}", "ldsm", (x, t)))
    for W in (1, 2, 4, 8, 16, 32):
        rows.append((f"ldsm_tp_w{W}", "ldsm_tp", W))
    for g in (1, 8):
        rows.append((f"tiled_{g}x{g}", "tiled", g))
    print(f"{'wmmastep.cu case':24s} {'H200':>9s} {'model':>9s} {'error':>7s}")
    errs = []
    for name, kind, p in rows:
        if a.only and not re.search(a.only, name):
            continue
        sim.flush()
        if kind == "simple":
            bl, W, state = p
            kstep = 0 if state == "same" else 16
            argv = (M, N, K, kstep, A, B, C, cyc)
            # warm: a first launch puts A and B in the L2 (a launch starts with empty L1s, as on the H200)
            if state == "warm":
                sim.launch(k(K_SIMPLE[bl]), 1, 32 * W, argv)
            sim.launch(k(K_SIMPLE[bl]), 1, 32 * W, argv)
            v = mean_cyc(W)
            got = v / (K // 16)
        elif kind == "ldsm":
            n = 256
            sim.launch(k(K_LDSM[p]), 1, 32, (n, out, cyc))
            got = mean_cyc(1) / (n * 16)
        elif kind == "ldsm_tp":
            n = 256
            sim.launch(k("_Z7ldsm_tpiPjPy"), 1, 32 * p, (n, out, cyc))
            got = mean_cyc(1) / (n * 8 * p)
        else:
            g = p
            argv = (M, N, K, A, B, C, cyc)
            sim.launch(k("_Z11tiled_timediiiPK6__halfS1_PfPy"), (g, g, 1), 128, argv)
            sim.launch(k("_Z11tiled_timediiiPK6__halfS1_PfPy"), (g, g, 1), 128, argv)
            got = mean_cyc(g * g * 4) / (K // 32)
        h = hw.get(name)
        if h:
            err = 100 * (got - h) / h
            errs.append(abs(err))
            print(f"{name:24s} {h:9.1f} {got:9.1f} {err:+6.1f}%", flush=True)
        else:
            print(f"{name:24s} {'':9s} {got:9.1f}", flush=True)
    if errs:
        print(f"all {len(errs)} cases: mean |error| {sum(errs) / len(errs):.1f}%, max {max(errs):.1f}%")


L1WAVE = [("vec", 0, 4), ("rows16", 16, 0), ("rows1040", 1040, 0), ("rows32", 32, 0), ("rows64", 64, 0),
          ("rows128", 128, 0), ("rows1024", 1024, 0), ("lanes32", 0, 1024)]


def l1wave(a) -> None:
    """l1wave.cu: one warp's dependent L1-hit loads, cycles per load, per pattern (lines, wavefronts per request)"""
    hwf = a.hw if a.hw != str(HW / "results" / "h200_wmmastep.txt") else str(HW / "results" / "h200_l1wave.txt")
    hw = hw_results(hwf)
    ptx = ptx_of("l1wave.cu", "sm_90")
    sim = TimingSim("h200", overrides=a.set)
    dev = sim.device
    name = "_Z5chasePjiiiiS_Py"
    k = dev.load_ptx(one_entry(ptx, name)).kernel(name)
    buf = dev.malloc(16 << 20)
    dev.write(buf, bytes(16 << 20))
    out, cyc = dev.malloc(1024 * 4), dev.malloc(64 * 8)
    n = 64
    print(f"{'l1wave.cu case':24s} {'H200':>9s} {'model':>9s} {'error':>7s}   cycles per dependent load")
    for pat, rs, ls in L1WAVE:
        for two in (0, 1):
            key = f"l1wave_{pat}_c{two + 1}"
            if a.only and not re.search(a.only, key):
                continue
            sim.flush()
            sim.launch(k, 1, 32, (buf, rs, ls, n, two, out, cyc))
            got = float(np.frombuffer(dev.read(cyc, 8), np.uint64)[0]) / (n * 8)
            h = hw.get(key)
            print(f"{key:24s} {h or 0:9.2f} {got:9.2f} {100 * (got - h) / h if h else 0:+6.1f}%", flush=True)


def l1sector(a) -> None:
    """l1sector.cu: one warp's dependent fragment-like loads from the L2, cycles per load, per mode"""
    hwf = a.hw if a.hw != str(HW / "results" / "h200_wmmastep.txt") else str(HW / "results" / "h200_l1sector.txt")
    hw = hw_results(hwf)
    ptx = ptx_of("l1sector.cu", "sm_90")
    sim = TimingSim("h200", overrides=a.set)
    dev = sim.device
    name = "_Z4sectPjiiiS_Py"
    k = dev.load_ptx(one_entry(ptx, name)).kernel(name)
    buf = dev.malloc(64 << 20)
    dev.write(buf, bytes(64 << 20))
    out, cyc = dev.malloc(1024 * 4), dev.malloc(64 * 8)
    n = 256
    print(f"{'l1sector.cu case':24s} {'H200':>9s} {'model':>9s} {'error':>7s}   cycles per dependent load")
    for mode, step in (("newline", 128), ("sector", 32), ("half", 16), ("same", 0)):
        key = f"l1sector_{mode}"
        if a.only and not re.search(a.only, key):
            continue
        sim.flush()
        argv = (buf, n * step + 1024, step, n, out, cyc)
        sim.launch(k, 1, 32, argv)
        sim.launch(k, 1, 32, argv)
        got = float(np.frombuffer(dev.read(cyc, 8), np.uint64)[0]) / n
        h = hw.get(key)
        print(f"{key:24s} {h or 0:9.2f} {got:9.2f} {100 * (got - h) / h if h else 0:+6.1f}%", flush=True)


if __name__ == "__main__":
    main()
