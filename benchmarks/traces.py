"""Trace-driven timing speed and memory (docs/traces.md).

    python benchmarks/traces.py [--gib 1.0] [--blocks 4000] [--baseline CHECKOUT] [--reps 3] [--rounds 1]

1. speed: a synthetic Accel-Sim trace of many thread blocks (8 warps each: integer/FP chains, coalesced
   global loads and stores, shared loads, a barrier) runs on the GTX 1080 config; the table gives warp
   instructions per second of the whole run (parse + simulate, one core) beside the reader alone on the
   same file (the baseline measured in the same run) and the 2 M/s goal;
   With --baseline (another checkout of simtscope with its engine built, e.g. main in a worktree), each
   trace also runs there and here in child processes, alternately (--rounds), best of --reps CPU times
   each, and the table adds both rates, their ratio, and whether cycles and statistics are identical;
2. memory: a trace of >= --gib GiB uncompressed (written zstd-compressed to /tmp, streamed) runs in a child
   process whose peak resident memory (ru_maxrss) is printed beside the file's uncompressed size.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zstandard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import trace_gen as tg  # noqa: E402


def block(bid: int, fma: int = 6) -> str:
    """One thread block of 8 warps: 6 rounds of (global load, `fma` dependent FFMAs, shared load, add)."""
    s = f"#BEGIN_TB\n\nthread block = {bid},0,0\n\n"
    base = 0x7f0000000000 + bid * 256 * 4 * 8
    for w in range(8):
        lines = []
        a = base + w * 128
        lines.append(tg.inst_line(0x08, 0xffffffff, "S2R", ("R0",), ()))
        lines.append(tg.inst_line(0x10, 0xffffffff, "XMAD", ("R1",), ("R0", "R255")))
        step = 8 * (fma + 4)
        for k in range(6):
            pc = 0x20 + k * step
            lines.append(f"{pc:04x} ffffffff 1 R4 LDG.E 1 R1 4 1 0x{a + k * 4096:x} 4 \n")
            for j in range(fma):
                lines.append(tg.inst_line(pc + 8 + j * 8, 0xffffffff, "FFMA", (f"R{5 + j % 4}",), ("R4", f"R{5 + j % 4}", "R9")))
            lines.append(f"{pc + 8 * (fma + 1):04x} ffffffff 1 R10 LDS 1 R0 4 1 0x{w * 128:x} 4 \n")
            lines.append(tg.inst_line(pc + 8 * (fma + 2), 0xffffffff, "IADD", ("R1",), ("R1", "R10")))
        end = 0x20 + 6 * step
        lines.append(f"{end:04x} ffffffff 0 STG.E 2 R1 R5 4 1 0x{a + 0x100000:x} 4 \n")
        lines.append(tg.inst_line(end + 8, 0xffffffff, "BAR.SYNC"))
        lines.append(tg.inst_line(end + 16, 0xffffffff, "EXIT"))
        s += f"warp = {w}\ninsts = {len(lines)}\n" + "".join(lines) + "\n"
    return s + "#END_TB\n\n"


def write_trace(d: Path, nblocks: int, compress: bool, fma: int = 6) -> tuple[int, int]:
    """A trace directory of nblocks blocks; returns (uncompressed bytes, warp instructions)."""
    d.mkdir(parents=True, exist_ok=True)
    hdr = tg.header(grid=(nblocks, 1, 1), block=(256, 1, 1), nregs=16)
    name = "kernel-1.traceg" + (".zst" if compress else "")
    total, insts = 0, 0
    with open(d / name, "wb") as f:
        out = zstandard.ZstdCompressor(level=1).stream_writer(f) if compress else f
        out.write(hdr.encode())
        total += len(hdr)
        for b in range(nblocks):
            t = block(b, fma).encode()
            out.write(t)
            total += len(t)
            insts += t.count(b"\n0") + t.count(b"\n1") + t.count(b"\n2") + t.count(b"\n3")
        if compress:
            out.flush(zstandard.FLUSH_FRAME)
    (d / "kernelslist.g").write_text("kernel-1.traceg\n")
    return total, insts


def child_memory(d: str) -> None:
    from engine.traces.run import run_trace
    r = run_trace(d, "gtx1080", ["sim.threads=1"])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{r.warp_insts} {r.sim_cycles} {r.wall_s:.2f} {peak:.1f}")


def child_speed(d: str, reps: int) -> None:
    """In the checkout given as cwd: best CPU time of `reps` runs of trace d, its cycles and a digest of
    its statistics (wall time left out)."""
    import hashlib
    import json
    sys.path.insert(0, os.getcwd())
    from engine.traces.run import run_trace
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        r = run_trace(d, "gtx1080", ["sim.threads=1"])
        best = min(best, time.process_time() - t0)
    stats = [{k: v for k, v in x.stats.items() if k != "wall_s"} for x in r.kernels]
    digest = hashlib.sha1(json.dumps(stats, sort_keys=True, default=str).encode()).hexdigest()[:12]
    print(json.dumps({"cpu": best, "warp_insts": r.warp_insts, "cycles": r.sim_cycles, "stats": digest}))


def compare(d: Path, baseline: str, reps: int, rounds: int) -> tuple[dict, dict]:
    """Best over rounds of the child's best CPU time, here and in the baseline checkout, alternately."""
    import json
    out: dict[str, dict] = {}
    for _ in range(rounds):
        for who, cwd in (("base", baseline), ("here", str(ROOT))):
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child-speed", str(d), "--reps", str(reps)],
                               cwd=cwd, capture_output=True, text=True, check=True)
            j = json.loads(p.stdout.strip().splitlines()[-1])
            if who not in out or j["cpu"] < out[who]["cpu"]:
                out[who] = j
    return out["base"], out["here"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=4000)
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--baseline", help="another simtscope checkout (engine built) to compare speed with")
    ap.add_argument("--reps", type=int, default=3, help="runs of each trace (best CPU time), here and per child")
    ap.add_argument("--rounds", type=int, default=1, help="alternations of baseline and here, with --baseline")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-speed", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child_memory(a.child)
        return
    if a.child_speed:
        child_speed(a.child_speed, a.reps)
        return
    from engine.traces import KernelTrace
    from engine.traces.run import run_trace
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        print(f"{'trace (8 warps per block)':44s} {'warp insts':>10s} {'reader M/s':>10s} {'timing M/s':>10s} {'timing/reader':>13s}")
        for fma in (6, 24):
            d = Path(tmp) / f"speed{fma}"
            size, insts = write_trace(d, a.blocks, compress=False, fma=fma)
            t0 = time.process_time()
            with KernelTrace(d / "kernel-1.traceg") as k:
                nb, ni = k.count()
            t_read = time.process_time() - t0
            t_run = float("inf")
            for _ in range(a.reps):                                  # best of --reps (the load varies)
                t0 = time.process_time()
                r = run_trace(d, "gtx1080", ["sim.threads=1"])      # one core
                t_run = min(t_run, time.process_time() - t0)
            what = f"{a.blocks} blocks, {fma} FFMA per load ({size / 2**20:.0f} MiB)"
            print(f"{what:44s} {r.warp_insts:10,d} {ni / t_read / 1e6:10.2f} {r.warp_insts / t_run / 1e6:10.2f} "
                  f"{t_read / t_run:13.2f}   goal 2 M/s {'met' if r.warp_insts / t_run >= 2e6 else 'NOT met'}")
            if a.baseline:
                b, h = compare(d, a.baseline, a.reps, a.rounds)
                same = b["cycles"] == h["cycles"] and b["stats"] == h["stats"] and b["warp_insts"] == h["warp_insts"]
                print(f"  {'vs baseline (child processes, best CPU)':42s} baseline {b['warp_insts'] / b['cpu'] / 1e6:.2f} M/s, "
                      f"here {h['warp_insts'] / h['cpu'] / 1e6:.2f} M/s: {b['cpu'] / h['cpu']:.2f}x; cycles "
                      f"{h['cycles']:,}, statistics {'identical' if same else 'DIFFER'}")
        size, _ = write_trace(Path(tmp) / "probe", 10, compress=False)
        nbig = int(a.gib * 2**30 / (size / 10)) + 1
        big = Path(tmp) / "big"
        bsize, binsts = write_trace(big, nbig, compress=True)
        comp = (big / "kernel-1.traceg.zst").stat().st_size
        out = subprocess.run([sys.executable, __file__, "--child", str(big)], capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout.split()
        wi, cyc, wall, peak = int(out[0]), int(out[1]), float(out[2]), float(out[3])
        print(f"(CPU seconds of this process; {r.sim_cycles:,} simulated cycles in the last)")
        print(f"\nmemory: trace of {bsize / 2**30:.2f} GiB uncompressed ({comp / 2**20:.0f} MiB .zst), "
              f"{wi:,} warp insts, {cyc:,} cycles in {wall:.1f} s: peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
