"""The model's side of three H200 microbenchmarks: runs the PTX of ncu_launch.cu, wgmma.cu and lat.cu (built here
with nvcc -ptx) in simtscope's timing model and prints the figures the hardware run prints, beside the
hardware's where a result file exists. Run from the repository root with the project's Python:

    python benchmarks/hw/sim_hw.py launch [--hw RESULTS.jsonl] [--only REGEX]   # cycles per launch configuration
    python benchmarks/hw/sim_hw.py wgmma [--only REGEX] [--set sm.wgmma_chain_in_pipe=1]   # cycles per group vs the H200
                                                                       # (the switch: the measured wgmma pipe, calibration.md 5g)
    python benchmarks/hw/sim_hw.py chase [--sizes 16,32,64]            # lat.cu's L2 curve (.cg), MiB
    python benchmarks/hw/sim_hw.py kloop [--hw results/h200_kloop.out] [--only REGEX]   # cp.async k-tile loops
    python benchmarks/hw/sim_hw.py alu [--only REGEX]                  # alu.cu's latency and throughput per op
    python benchmarks/hw/sim_hw.py divmix [--hw results/h200_divmix.out] [--only REGEX]   # divmix.cu's, the same way

launch: the simulated kernel's cycles (launch + CTAs + drain, what the model compares with
gpc__cycles_elapsed.max) for every configuration of ncu_launch.cu's result file, beside the H200's
median (docs/calibration.md 5f). chase: lat.cu's latency curve with ld.global.cg (every SM reads the
S-byte buffer with l2_touch, then one thread chases a random cycle with one node per 128-byte line:
cycles per hop as the hardware printed them; all hits at 32 MiB on the H200, ~56 % hits at 64 MiB;
docs/calibration.md 5h). kloop: kloop.cu's cycles per k-tile (median over CTAs) of cp.async + wait_group
loops and the ld.global + st.shared loop beside the H200's (docs/calibration.md 5i). alu: alu.cu's lat_k (one warp,
a dependent chain: cycles per op) and thr_k (one CTA of 1024 threads, 8 chains each: thread-ops per clock per SM;
on the H200 one such CTA per SM, so one SM is simulated) beside h200_microbench.json's medians. divmix: divmix.cu's
ops the same way (1024 and 512 threads), beside its RESULT lines when the H200's output file exists. wgmma: the same in-kernel clock64 figures as wgmma.cu (one CTA, one SM), and D
of warpgroup 0 against the host's exact product (the benchmark's self-check, here on the model).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

HW = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HW.parent.parent))
from engine.timing import TimingSim  # noqa: E402


def ptx_of(src: str, arch: str) -> str:
    out = pathlib.Path(tempfile.gettempdir()) / f"simhw_{pathlib.Path(src).stem}_{arch}.ptx"
    if not out.exists() or out.stat().st_mtime < (HW / src).stat().st_mtime:
        subprocess.run(["nvcc", "-ptx", "-std=c++17", f"-arch={arch}", "-o", str(out), str(HW / src)], check=True)
    return out.read_text()


def one_entry(ptx: str, name: str) -> str:
    """The module header and declarations plus the one .entry `name` (smaller modules load faster)."""
    starts = [m.start() for m in re.finditer(r"^\.visible \.entry ", ptx, re.M)]
    head = ptx[:starts[0]]
    for i, s in enumerate(starts):
        if ptx.startswith(f".visible .entry {name}(", s):
            return head + ptx[s:starts[i + 1] if i + 1 < len(starts) else len(ptx)]
    raise KeyError(name)


# ------------------------------------------------------------------------------------------ launch
# Without a result file, a representative subset of ncu_launch.cu's configurations:
# (case, grid, block, dynamic shared bytes, parameter bytes, spin cycles)
LAUNCH_DEFAULT = [
    ("empty", 1, 256, 0, 0, 0), ("empty", 132, 256, 0, 0, 0), ("empty", 1056, 256, 0, 0, 0),
    ("empty", 8448, 256, 0, 0, 0), ("block", 8448, 1024, 0, 0, 0), ("rate_smem200k_b32", 2112, 32, 204800, 0, 0),
    ("tiny_store_cta", 1, 256, 0, 8, 0), ("tiny_store_thread", 1056, 256, 0, 8, 0), ("spin", 1, 32, 0, 16, 2000),
]
# params_read with more than 4 bytes indexes the block: its SASS is one LDC with a register index
# (c[0x0][R0+0x210]), but nvcc's PTX copies the whole block into local memory first, so the model would
# time a different program; those configurations are listed as skipped.
SKIP = {"params_read": lambda pb: pb > 4}


def launch_kernel(case: str, pbytes: int) -> str:
    if case in ("empty", "block", "rate_b32", "rate_b1024"):
        return "_Z7empty_kv"
    if case in ("smem", "rate_smem200k_b32"):
        return "_Z12empty_smem_kv"
    if case == "params_unused":
        return f"_Z14param_unused_kILi{pbytes}EEv4BlobIXT_EE"
    if case == "params_read":
        return f"_Z12param_read_kILi{pbytes}EEv4BlobIXT_EEPj"
    return {"tiny_store_cta": "_Z11store_cta_kPj", "tiny_store_thread": "_Z14store_thread_kPj",
            "tiny_load_store": "_Z12load_store_kPKjPj", "spin": "_Z6spin_kxPy"}[case]


def hw_launch(path: str | None) -> list:
    """[(case, grid, block, smem, param bytes, spin, hw metrics or None)] from ncu_launch.jsonl (RESULT
    lines, in the order they were measured); without a file, LAUNCH_DEFAULT with no hardware figures."""
    if not path:
        return [(*c, None) for c in LAUNCH_DEFAULT]
    out = []
    for ln in pathlib.Path(path).read_text().splitlines():
        if ln.startswith("RESULT "):
            e = json.loads(ln[7:])["extra"]
            out.append((e["case"], e["grid"], e["block"], e["smem"], e["param_bytes"], e["spin"], e["metrics"]))
    return out


def launch_args(case, pbytes, spin, buf, buf2):
    blob = bytes(range(256)) * (pbytes // 256) + bytes(pbytes % 256) if pbytes > 8 else 0   # word i holds i
    if case == "params_unused":
        return (blob,)
    if case == "params_read":
        return (blob, buf)
    if case == "tiny_load_store":
        return (buf2, buf)
    if case == "spin":
        return (spin, buf)
    return (buf,) if case.startswith("tiny") else ()


def launch(args) -> None:
    ptx = ptx_of("ncu_launch.cu", "sm_90")
    rows = hw_launch(args.hw)
    if args.only:
        rows = [r for r in rows if re.search(args.only, f"{r[0]}_g{r[1]}_b{r[2]}_s{r[3]}_p{r[4]}_c{r[5]}")]
    sim = TimingSim("h200", overrides=args.set)
    buf = sim.device.alloc((8448 * 256,), np.uint32)
    buf2 = sim.device.to_device(np.zeros(16, np.uint32))
    kernels: dict = {}
    print(f"{'case':18s} {'grid':>6s} {'block':>5s} {'smem':>6s} {'param':>5s} {'spin':>5s} {'model':>8s} "
          f"{'H200':>8s} {'error':>7s} {'H200-spin':>9s}")
    errs = []
    for case, g, b, s, pb, spin, m in rows:
        head = f"{case:18s} {g:6d} {b:5d} {s:6d} {pb:5d} {spin:5d}"
        if case in SKIP and SKIP[case](pb):
            print(f"{head} {'skipped':>8s} {m['gpc__cycles_elapsed.max'] if m else '':>8}")
            continue
        name = launch_kernel(case, pb)
        if name not in kernels:
            kernels[name] = sim.device.load_ptx(one_entry(ptx, name)).kernel(name)
        k = kernels[name]
        sim.flush()           # ncu --cache-control all: every profiled launch starts with empty caches
        cyc = sim.launch(k, g, b, launch_args(case, pb, spin, buf, buf2), shared=s).cycles
        h = m["gpc__cycles_elapsed.max"] if m else None
        err = ""
        if h:
            errs.append((cyc - h) / h)
            err = f"{100 * errs[-1]:+6.1f}%"
        over = f"{h - spin:9.0f}" if h and spin else ""
        print(f"{head} {cyc:8d} {h or '':>8} {err:>7s} {over}", flush=True)
    if errs:
        print(f"{len(errs)} configurations: mean error {100 * sum(errs) / len(errs):+.1f}%, "
              f"mean |error| {100 * sum(abs(e) for e in errs) / len(errs):.1f}%")


# ------------------------------------------------------------------------------------------- wgmma
DT = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 3, "s8": 4}
ENCODE = {0: {-2: 0xC000, -1: 0xBC00, 0: 0, 1: 0x3C00, 2: 0x4000},
          1: {-2: 0xC000, -1: 0xBF80, 0: 0, 1: 0x3F80, 2: 0x4000},
          3: {-2: 0xC0, -1: 0xB8, 0: 0, 1: 0x38, 2: 0x40}}
ESIZE = {0: 2, 1: 2, 2: 4, 3: 1, 4: 1}
K_BOFF = 8192


def aval(m, k):
    return ((m * 3 + k * 5 + (m * k) % 3) % 5) - 2


def bval(n, k):
    return ((n * 7 + k * 3 + (n * k) % 2) % 5) - 2


def encode(dt, v):
    if dt == 2:
        return struct.unpack("<I", struct.pack("<f", float(v)))[0]
    if dt == 4:
        return v & 0xff
    return ENCODE[dt][v]


def offs(sw, mn, kb):
    if not sw:
        return (mn % 8) * 16 + (mn // 8) * 256 + (kb % 16) + (kb // 16) * 128
    o = (mn % 8) * 128 + (mn // 8) * 1024 + kb
    return o ^ (((o >> 7) & 7) << 4)


def image(dt, n, sw):
    """wgmma.cu's image(): A (64 rows) at 0, B (n rows) at K_BOFF, K-major, in the form's element type"""
    img = bytearray(K_BOFF + 256 * 128)
    es, rowb = ESIZE[dt], (128 if sw else 32)
    for rows, base, val in ((64, 0, aval), (n, K_BOFF, bval)):
        for r in range(rows):
            for kb in range(0, rowb, es):
                img[base + offs(sw, r, kb):base + offs(sw, r, kb) + es] = encode(dt, val(r, kb // es)).to_bytes(es, "little")
    return bytes(img)


def hw_wgmma(path: str) -> list[dict]:
    """the RESULT lines of wgmma.cu (benchmarks/hw/results/h200_wgmma.out) that time wgmma groups"""
    out = []
    for ln in pathlib.Path(path).read_text().splitlines():
        if ln.startswith("RESULT "):
            r = json.loads(ln[7:])
            if r["kernel"] == "wg_kernel":
                out.append(r)
    return out


def case_of(r: dict) -> dict:
    """kernel template arguments and launch parameters of one hardware RESULT"""
    e, name = r["extra"], r["name"]
    group = name.split("_")[0]
    form = name.split("_")[1].upper() + f"_N{e['n']}"
    wgs, u = e["warpgroups"], e["wgmma_per_group"]
    maxt = (256 if e["n"] == 256 else 512) if group == "multi" else (256 if wgs == 2 else 128)
    return dict(name=name, group=group, form=form, n=e["n"], k=e["k"], nacc=e["accumulators"], u=u,
                wait=e["wait_group"], maxt=maxt, sw=e["swizzle128"], wgs=wgs, mma_wgs=e["mma_warpgroups"],
                nload=e["loads_per_thread_per_group"], dram=name.endswith("_dram"), dt=DT[e["a_type"]],
                acc16=e["acc_type"] == "f16", hw=e["cycles_per_group_slowest_wg"], check_ok=e["check_ok"])


def mangle(form, nacc, u, wait, maxt):
    return f"_Z9wg_kernelI{len(form)}{form}Li{nacc}ELi{u}ELi{wait}ELi{maxt}EEv6Params"


def sim_case(sim, ptx, c, iters):
    """cycles per group of the slowest warpgroup (wgmma.cu's cycles_per_group_slowest_wg: the model's warp
    scheduler does not share the tensor pipe fairly between warpgroups as the H200 does, so warpgroup 0's own
    figure, which the RESULT's value is, would show the arbitration rather than the throughput), cycles
    from the first clock64 of a group to the end of its commit (issue), and the D check (None: not checked)"""
    dev = sim.device
    name = mangle(c["form"], c["nacc"], c["u"], c["wait"], c["maxt"])
    k = dev.load_ptx(one_entry(ptx, name)).kernel(name)
    img = image(c["dt"], c["n"], c["sw"])
    d_img = dev.to_device(np.frombuffer(img, np.uint8))
    gbytes = 64 << 20
    d_g = dev.alloc((gbytes // 4,), np.uint32)
    d_cyc, d_icyc, d_sink = (dev.alloc((16,), np.uint64) for _ in range(3))
    d_out = dev.alloc((128 * 128,), np.float32)
    p = struct.pack("<QiiiiiiQQQQQQ", d_img.addr, len(img), c["sw"], iters, c["mma_wgs"], c["nload"], 0, d_g.addr,
                    (gbytes if c["dram"] else 16 << 20) // 16 - 1, d_cyc.addr, d_icyc.addr, d_sink.addr, d_out.addr)
    sim.flush()
    if c["nload"] and not c["dram"]:      # L2-resident loads: a first launch brings the lines into L2
        sim.launch(k, 1, 128 * c["wgs"], (p,), shared=120 * 1024)
    sim.launch(k, 1, 128 * c["wgs"], (p,), shared=120 * 1024)
    per_group = float(dev.from_device(d_cyc)[:c["wgs"]].max()) / (iters * 4)
    issue = float(dev.from_device(d_icyc)[0]) / ((iters + 1) * 4)
    if not c["mma_wgs"] or not c["u"] or c["acc16"]:
        return per_group, issue, None
    n, slices = c["n"], (4 if c["sw"] else 1)
    steps = (iters + 1) * 4 * c["u"]
    d = dev.from_device(d_out)[:128 * n // 2].reshape(128, n // 2)
    ok = True
    for tid in range(0, 128, 5):
        r, lane = tid // 32, tid % 32
        g, t = lane // 4, lane % 4
        for i in range(0, n // 2, 3):
            j, e = i // 4, i % 4
            row, col = 16 * r + g + (8 if e >= 2 else 0), 8 * j + 2 * t + (e & 1)
            ref = sum(aval(row, kk) * bval(col, kk) for kk in range(c["k"] * slices)) * (steps // slices)
            ok &= bool(d[tid, i] == ref)
    return per_group, issue, ok


def wgmma(args) -> None:
    ptx = ptx_of("wgmma.cu", "sm_90a")
    sim = TimingSim("h200", overrides=args.set)
    cases = [case_of(r) for r in hw_wgmma(args.hw or str(HW / "results" / "h200_wgmma.out"))]
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["name"])]
    print(f"{'case (wgmma.cu RESULT name)':60s} {'H200':>8s} {'model':>8s} {'error':>7s} {'issue':>7s} {'D ok':>4s}")
    errs = {}
    for c in cases:
        got, issue, ok = sim_case(sim, ptx, c, args.iters)
        err = 100 * (got - c["hw"]) / c["hw"]
        errs.setdefault(c["group"], []).append(abs(err))
        print(f"{c['name']:60s} {c['hw']:8.1f} {got:8.1f} {err:+6.1f}% {issue:7.1f} "
              f"{'-' if ok is None else 'yes' if ok else 'NO':>4s}", flush=True)
    print("mean |error| by group: " + ", ".join(f"{g} {sum(v) / len(v):.1f}% ({len(v)})" for g, v in errs.items()))
    allv = [x for v in errs.values() for x in v]
    print(f"all {len(allv)} cases: mean |error| {sum(allv) / len(allv):.1f}%, max {max(allv):.1f}%")


# ------------------------------------------------------------------------------------------- chase
HW_CHASE_CG = {16: 281.6, 32: 281.6, 64: 459.5, 128: 568.1}   # results/h200_microbench_summary.txt (ld.cg)


def chase(args) -> None:
    ptx = ptx_of("lat.cu", "sm_90")
    sim = TimingSim("h200", overrides=args.set)
    dev = sim.device
    touch = dev.load_ptx(one_entry(ptx, "_Z8l2_touchPK5uint4mPy")).kernel("_Z8l2_touchPK5uint4mPy")
    ch = dev.load_ptx(one_entry(ptx, "_Z5chaseILi1EEvmPKcmiiPy")).kernel("_Z5chaseILi1EEvmPKcmiiPy")
    out = dev.malloc(64)
    rng = np.random.default_rng(1)
    warm, hops = 1024, 4096
    print(f"{'MiB':>5s} {'model':>8s} {'H200':>8s}   cycles per dependent ld.global.cg, after l2_touch")
    for mib in (int(x) for x in args.sizes.split(",")):
        size = mib << 20
        buf = dev.malloc(size)
        m = min(size // 32, 1 << 18)           # lat.cu's make_chain(S, 32, 2^18): one node per segment
        seg = size // 32 // m
        order = (rng.permutation(m) * seg + rng.integers(0, seg, m)) * 32
        img = np.zeros(size // 8, np.uint64)
        img[order // 8] = np.uint64(buf) + np.roll(order, -1).astype(np.uint64)
        dev.write(buf, img)
        sim.flush()
        sim.launch(touch, sim.config["gpu.num_sms"] * 4, 512, (buf, size // 16, out + 64 - 8))
        sim.launch(ch, 1, 32, (int(buf + order[0]), buf, 0, warm, hops, out))
        cyc = np.frombuffer(dev.read(out, 8), np.uint64)[0] / hops
        print(f"{mib:5d} {cyc:8.1f} {HW_CHASE_CG.get(mib, ''):>8}", flush=True)
        dev.free(buf)


# ------------------------------------------------------------------------------------------- kloop
KLOOP_DEFAULT = [dict(kind=k, stages=s, cp=cp, threads=t, ctas=c, mode=m, iters=32, hw=None)
                 for m in ("l2", "dram") for k, s in (("cp", 1), ("cp", 2), ("cp", 3), ("ldg", 1))
                 for cp in (1, 4) for t in (128, 256) for c in (1, 132)] + \
                [dict(kind=k, stages=s, cp=4, threads=256, ctas=132, mode=m, iters=32, hw=None)
                 for m in ("hot4k", "hot16k", "hot64k", "hot1m") for k, s in (("cp", 3), ("ldg", 1))]


def l2_counts(st: dict) -> str:
    """The model's L2 read counts of a launch, as ncu's lts__t_sectors_srcunit_tex_op_read(_lookup_hit) name them."""
    return (f"L2 read lookups {st.get('L2_read_sectors', 0):8d}  hits {st.get('L2_total_hits', 0):8d}  "
            f"merged {st.get('L2_coalesced_reads', 0):8d}")


def kloop(args) -> None:
    ptx = ptx_of("kloop.cu", "sm_90")
    sim = TimingSim("h200", overrides=args.set)
    dev = sim.device
    hw = args.hw or str(HW / "results" / "h200_kloop.out")
    cases = KLOOP_DEFAULT
    if pathlib.Path(hw).exists():
        cases = []
        for line in pathlib.Path(hw).read_text().splitlines():
            if line.startswith("RESULT "):
                r = json.loads(line[7:])
                cases.append(dict(r, hw=r["cyc_per_tile_median"]))
    for c in cases:
        c.setdefault("name", f"{c['kind']}_s{c['stages']}_cp{c['cp']}_t{c['threads']}_c{c['ctas']}_{c['mode']}")
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["name"])]
    names = {("cp", 1): "_Z8kloop_cpILi1EEvPK4int4iiyiPyPi", ("cp", 2): "_Z8kloop_cpILi2EEvPK4int4iiyiPyPi",
             ("cp", 3): "_Z8kloop_cpILi3EEvPK4int4iiyiPyPi", ("ldg", 1): "_Z9kloop_ldgPK4int4iiyiPyPi"}
    kern = {}
    print(f"{'case (kloop.cu RESULT)':32s} {'H200':>8s} {'model':>8s} {'error':>7s}   cycles per k-tile, median over CTAs")
    errs = []
    cyc, sink = dev.malloc(8 * 1024), dev.malloc(64)
    for c in cases:
        key = (c["kind"], c["stages"])
        if key not in kern:
            kern[key] = dev.load_ptx(one_entry(ptx, names[key])).kernel(names[key])
        k, T, ctas, cp, iters = kern[key], c["threads"], c["ctas"], c["cp"], c["iters"]
        # shdram[G]: every CTA of a group (CTA b in group b % G) reads the group's fresh tiles, L2 flushed
        shared_cold = c["mode"].startswith("shdram")
        skew = int(c["mode"][8:]) if shared_cold and c["mode"][6:8] == "sk" else 0   # shdramskD: CTA b starts b x D late
        groups = int(c["mode"][6:] or 1) if shared_cold and not skew else 1
        dram = c["mode"] == "dram" or shared_cold
        hot = groups | skew << 16 if shared_cold else int(c["mode"].startswith("hot"))
        wrap = 0 if dram else int(c["mode"][3:-1]) * (65536 if c["mode"].endswith("m") else 64) if hot else 2048
        nbytes = (groups * iters * cp * T * 16 if shared_cold else wrap * 16 if hot
                  else ctas * (iters * cp * T if dram else wrap) * 16)
        src = dev.malloc(nbytes)
        smem = (4 if c["kind"] == "ldg" else c["stages"] * cp) * T * 16
        argv = (src, cp, iters, wrap, hot, cyc, sink)
        sim.flush()
        if not dram:
            sim.launch(k, ctas, T, argv, shared=smem)      # the lines into L2, as the benchmark's first launch
        st = sim.launch(k, ctas, T, argv, shared=smem).stats
        v = np.sort(np.frombuffer(dev.read(cyc, 8 * ctas), np.uint64).astype(float))
        got = v[ctas // 2] / iters
        dev.free(src)
        name = c["name"]
        if c["hw"]:
            err = 100 * (got - c["hw"]) / c["hw"]
            errs.append(abs(err))
            print(f"{name:32s} {c['hw']:8.1f} {got:8.1f} {err:+6.1f}%   {l2_counts(st)}", flush=True)
        else:
            print(f"{name:32s} {'':8s} {got:8.1f}          {l2_counts(st)}", flush=True)
    if errs:
        print(f"all {len(errs)} cases: mean |error| {sum(errs) / len(errs):.1f}%, max {max(errs):.1f}%")


# --------------------------------------------------------------------------------------------- alu
ALU_OPS = {   # alu.cu's bench() calls: name -> (x0, a, b, lat_iters, thr_iters)
    "IADD3": (1, 3, 5, 256, 64), "IMAD": (1, 3, 5, 256, 64), "LOP3": (1, 3, 5, 256, 64),
    "IDIV_U32": (12345, 0x7fffffff, 0, 64, 16), "C_IDIV_S32": (12345, 0x7fffffff, 0, 64, 16),
}


def alu(args) -> None:
    ptx = ptx_of("alu.cu", "sm_90")
    sim = TimingSim("h200", overrides=args.set)
    dev = sim.device
    mb = json.loads((HW / "results" / "h200_microbench.json").read_text())
    hw = {(r["group"], r["name"]): r["value"] for r in mb["results"]}
    out, res = dev.malloc(8 * 4096), dev.malloc(4 * 1024 * 1024)
    print(f"{'op':12s} {'lat H200':>9s} {'model':>7s} {'thr H200':>9s} {'model':>7s}   cycles / thread-ops per clk per SM")
    for name, (x0, a, b, lat_iters, thr_iters) in ALU_OPS.items():
        if args.only and not re.search(args.only, name):
            continue
        tname = f"{len(name)}{name}"
        lk = f"_Z5lat_kI{tname}EvNT_1TES2_S2_iPyPj"
        tk = f"_Z5thr_kI{tname}EvNT_1TES2_S2_iPyPj"
        k = dev.load_ptx(one_entry(ptx, lk)).kernel(lk)
        sim.launch(k, 1, 32, (x0, a, b, lat_iters, out, res))
        lat = float(np.frombuffer(dev.read(out, 8), np.uint64)[0]) / (lat_iters * 32)
        k = dev.load_ptx(one_entry(ptx, tk)).kernel(tk)
        sim.launch(k, 1, 1024, (x0, a, b, thr_iters, out, res))
        thr = 1024.0 * 8 * 8 * thr_iters / float(np.frombuffer(dev.read(out, 8), np.uint64)[0])
        hl, ht = hw.get(("alu_latency", name)), hw.get(("alu_throughput", name))
        hls = f"{hl:9.1f}" if hl is not None else f"{'':9s}"
        hts = f"{ht:9.2f}" if ht is not None else f"{'':9s}"
        print(f"{name:12s} {hls} {lat:7.1f} {hts} {thr:7.2f}", flush=True)


DIVMIX_OPS = {   # divmix.cu's bench() calls: name -> (kernel template argument(s), x0, a, b, lat_iters, thr_iters)
    "C_IDIV_S32": ("10C_IDIV_S32", "S0_", 12345, 0x7fffffff, 0, 32, 8),
    "IDIV_INV": ("8IDIV_INV", "S0_", 12345, 0x5a5a5a5a, 7919, 64, 16),
    "CVT_PAIR": ("8CVT_PAIR", "S0_", 1000, 5, 3, 64, 16),
    "MUFU_RCP": ("8MUFU_RCP", "S0_", 0x3f800000, 0, 0, 64, 16),
    "IMAD_HI": ("7IMAD_HI", "S0_", 0x12345678, 0x9abcdef1, 0, 128, 64),
    "LOP3_ONLY": ("9LOP3_ONLY", "S0_", 1, 3, 5, 128, 64),
    "IMAD_ONLY": ("13MIX_IMAD_IADD", "S0_", 1, 3, 5, 128, 64),
    "MIX_IMAD_LOP3": ("13MIX_IMAD_IADD", "9LOP3_ONLY", 1, 3, 5, 128, 64),
    "PRED_GUARD": ("10PRED_GUARD", "S0_", 1, 0x40000000, 3, 128, 64),
    "IM2COL": ("6IM2COL", "S0_", 123456, 200704, 224, 16, 4),
}


def divmix(args) -> None:
    ptx = ptx_of("divmix.cu", "sm_90")
    sim = TimingSim("h200", overrides=args.set)
    dev = sim.device
    hw = {}
    path = pathlib.Path(args.hw or HW / "results" / "h200_divmix.out")
    if path.exists():
        for ln in path.read_text().splitlines():
            if ln.startswith("RESULT "):
                r = json.loads(ln[7:])
                hw[(r["name"], r["threads"])] = (r["latency_cycles"], r["thread_ops_per_clk_per_sm"])
    out, res = dev.malloc(16 * 4096), dev.malloc(4 * 1024 * 1024)
    print(f"{'op':14s} {'threads':>7s} {'lat H200':>9s} {'model':>7s} {'thr H200':>9s} {'model':>7s}   "
          "cycles / thread-ops per clk per SM")
    for threads in (1024, 512):
        for name, (t1, t2, x0, a, b, lat_iters, thr_iters) in DIVMIX_OPS.items():
            if args.only and not re.search(args.only, name):
                continue
            lk = f"_Z5lat_kI{t1}EvjjjiPyPj"
            tk = f"_Z5thr_kI{t1}{t2}EvjjjiPyPj"
            k = dev.load_ptx(one_entry(ptx, lk)).kernel(lk)
            sim.launch(k, 1, 32, (x0, a, b, lat_iters, out, res))
            lat = float(np.frombuffer(dev.read(out, 8), np.uint64)[0]) / (lat_iters * 8)
            k = dev.load_ptx(one_entry(ptx, tk)).kernel(tk)
            sim.launch(k, 1, threads, (x0, a, b, thr_iters, out, res))
            thr = threads * 8.0 * 8 * thr_iters / float(np.frombuffer(dev.read(out, 8), np.uint64)[0])
            hl, ht = hw.get((name, threads), (None, None))
            hls = f"{hl:9.1f}" if hl is not None else f"{'':9s}"
            hts = f"{ht:9.2f}" if ht is not None else f"{'':9s}"
            print(f"{name:14s} {threads:7d} {hls} {lat:7.1f} {hts} {thr:7.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["launch", "wgmma", "chase", "kloop", "alu", "divmix"])
    ap.add_argument("--hw", help="launch: ncu_launch.jsonl (every configuration it holds is run); wgmma: wgmma.cu's "
                    "output (default benchmarks/hw/results/h200_wgmma.out); divmix: divmix.cu's output "
                    "(default benchmarks/hw/results/h200_divmix.out)")
    ap.add_argument("--only", help="a regular expression the configuration (launch) or RESULT (wgmma) names must match")
    ap.add_argument("--iters", type=int, default=4, help="wgmma: timed iterations (x 4 groups)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a timing-config override")
    ap.add_argument("--sizes", default="16,32,64", help="chase: buffer sizes in MiB")
    a = ap.parse_args()
    {"launch": launch, "wgmma": wgmma, "chase": chase, "kloop": kloop, "alu": alu, "divmix": divmix}[a.what](a)


if __name__ == "__main__":
    main()
