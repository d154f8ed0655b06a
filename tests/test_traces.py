"""Accel-Sim trace reader, opcode tables and trace-driven timing (engine/traces, csrc/trace_*.c)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.traces import KernelTrace, TraceFormatError, read_kernelslist
from engine.traces import opcodes
from engine.traces.run import run_trace
from tests import trace_gen as tg

FIX = Path(__file__).resolve().parent / "fixtures" / "traces"
ROOT = Path(__file__).resolve().parent.parent


def kernel(tmp_path, text, name="k.traceg"):
    return tg.write_kernel(tmp_path / name, text)


def read_all(path, **kw):
    with KernelTrace(path, **kw) as k:
        return k.header, list(k.blocks())


# ---- real traces ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,insts,threads", [("vectoradd-100-32", 344, 10516), ("matrixmul-32-32", 4416, 139264)])
def test_real_traces_count(name, insts, threads):
    cmds = read_kernelslist(FIX / name)
    assert [c.kind for c in cmds].count("kernel") == 1
    with KernelTrace(cmds[-1].path) as k:
        assert k.header["binary_version"] == 61 and k.header["tracer_version"] == 4
        assert k.count() == (1, insts)                 # stats.csv: total_insts


def test_vectoradd_decoded():
    cmds = read_kernelslist(FIX / "vectoradd-100-32")
    assert [(c.addr, c.nbytes) for c in cmds if c.kind == "memcpy"] == [
        (0x7f2b2d500000, 400), (0x7f2b2d500200, 400), (0x7f2b2d500400, 400)]
    hdr, blocks = read_all(cmds[-1].path)
    assert hdr["grid"] == (1, 1, 1) and hdr["block"] == (1024, 1, 1) and hdr["nregs"] == 8
    assert hdr["shmem_base"] == 0x7f2b5a000000 and hdr["local_base"] == 0x7f2b58000000
    (bid, warps), = blocks
    assert bid == (0, 0, 0) and len(warps) == 32
    ldg = warps[0][14]
    assert ldg["pc"] == 0x98 and ldg["kind"] == "load" and ldg["space"] == opcodes.SPACES["global"]
    assert ldg["addrs"][:3] == [0x7f2b2d500000, 0x7f2b2d500004, 0x7f2b2d500008]   # mode 1, stride 4
    assert warps[0][8]["mask"] == 0 and warps[0][8]["kind"] == "exit"              # predicated-off EXIT


def test_trace_run_real_vectoradd():
    r = run_trace(FIX / "vectoradd-100-32", "gtx1080")
    assert r.warp_insts == 344
    assert r.kernels[0].stats["gpu_sim_insn"] == 10516       # Accel-Sim's gpu_sim_insn for this trace
    assert r.kernels[0].stats["timing_mode"] == "trace"        # timed as the trace's own SASS (docs/sass.md)
    assert r.sim_cycles > 300


def test_trace_run_real_matrixmul_xz_barriers():
    r = run_trace(FIX / "matrixmul-32-32", "gtx1080")
    assert r.warp_insts == 4416
    st = r.kernels[0].stats
    assert st["stall_cycles"]["barrier"] > 0 and st.get("shared_insts", 1) > 0


@pytest.mark.parametrize("name,accelsim", [("vectoradd-100-32", 1282), ("matrixmul-32-32", 6118)])
def test_trace_cycles_within_20_percent_of_accelsim(name, accelsim):
    """Accel-Sim's own cycles for these traces (../shared/traces/README.md: its log, and its run with the
    configuration rebuilt from the log); configs/gtx1080.toml is built from that log, not fitted."""
    r = run_trace(FIX / name, "gtx1080")
    assert abs(r.sim_cycles - accelsim) / accelsim < 0.20, r.sim_cycles


def test_trace_memory_traffic_as_accelsim():
    """vectoradd in Accel-Sim's log: 14 L2 accesses, all misses (8 line reads of a and b, 4 line writes of
    c, 2 code lines); 56 sectors read from DRAM (2 of the lines code, not modelled through DRAM here) and
    13 written (c: 400 bytes). The copied inputs miss because GPGPU-Sim fills the L2 at the copy's
    address kept to 32 bits (l2.memcpy_addr_bits); the stores go on to DRAM and fetch their lines
    (l2.write_miss_dram)."""
    st = run_trace(FIX / "vectoradd-100-32", "gtx1080").kernels[0].stats
    assert st["L2_total_hits"] == 0 and st["L2_total_misses"] == 39          # 26 read + 13 written sectors
    assert st["dram_read_bytes"] == (56 - 2 * 4) * 32 and st["dram_write_bytes"] == 13 * 32
    # with 64-bit copies (real hardware: nvprof shows l2_tex_read_hit_rate 100 %) everything hits
    st = run_trace(FIX / "vectoradd-100-32", "gtx1080", ["l2.memcpy_addr_bits=64"]).kernels[0].stats
    assert st["L2_total_misses"] == 0 and st["dram_read_bytes"] == 0 and st["dram_write_bytes"] == 0


def test_memcpy_ranges():
    from engine.traces.run import memcpy_ranges
    assert memcpy_ranges(0x7f2b2d500000, 400, 64) == [(0x7f2b2d500000, 400)]
    assert memcpy_ranges(0x7f2b2d500000, 400, 32) == [(0x2d500000, 400)]
    assert memcpy_ranges(0x1_ffff_ff00, 0x300, 32) == [(0xffffff00, 0x100), (0, 0x200)]   # wraps at 4 GiB
    # a copy larger than 4 GiB wraps onto itself: at most two ranges, its last 4 GiB (no loop per wrap)
    assert memcpy_ranges(0x100, 1 << 48, 32) == [(0x100, (1 << 32) - 0x100), (0, 0x100)]


def test_fetch_unit_groups(tmp_path):
    """sm.fetch_insts = 2: a warp fetches 2 instructions when its buffer is empty (at its last issue) and
    issues them from 2 cycles later. One warp of 40 independent MOVs and an EXIT: instruction 2g issues at
    cycle 3g + 2, so the last (g = 20) at 62 instead of 40. Eight warps share one fetch unit (one warp per
    cycle): 8 x 21 fetches take at least 168 cycles, more than the 2 schedulers' 8 x 41 / 2 issues."""
    def cycles(nwarps, fetch):
        lst = [(tg.inst_line(8 * (k + 1), 0xffffffff, "MOV", (f"R{k % 8}",), ()), None) for k in range(40)]
        lst.append((tg.inst_line(8 * 41, 0xffffffff, "EXIT"), None))
        text = tg.header(block=(32 * nwarps, 1, 1)) + tg.block_text((0, 0, 0), {w: lst for w in range(nwarps)})
        d = tg.write_dir(tmp_path / f"f{nwarps}{fetch}", {"kernel-1.traceg": text})
        return run_trace(d, "gtx1080", [f"sm.fetch_insts={fetch}", "sm.icache=ideal"]).sim_cycles
    assert cycles(1, 0) == 41 and cycles(1, 2) == 63
    assert cycles(8, 0) < 168 <= cycles(8, 2)


# ---- synthetic traces: versions, line numbers, compression modes, file compression ----------------------
@pytest.mark.parametrize("version", [3, 4, 5])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("lineinfo", [0, 1])
def test_versions_modes(tmp_path, version, mode, lineinfo):
    warps = tg.vector_kernel(nwarps=2, mode=mode, version=version, lineinfo=lineinfo, scatter=(mode == 2))
    text = tg.header(block=(64, 1, 1), version=version, lineinfo=lineinfo) + tg.block_text((0, 0, 0), warps)
    _, blocks = read_all(kernel(tmp_path, text))
    (bid, got), = blocks
    for w, lst in warps.items():
        assert [g["pc"] for g in got[w]] == [d["pc"] for _, d in lst]
        for g, (_, d) in zip(got[w], lst):
            assert g["mask"] == d["mask"]
            if d["addrs"]:
                lanes = [l for l in range(32) if d["mask"] >> l & 1]
                assert [g["addrs"][l] for l in lanes] == d["addrs"]


@pytest.mark.parametrize("suffix", ["", ".xz", ".gz", ".zst"])
def test_compressed_kernel_files(tmp_path, suffix):
    warps = tg.vector_kernel(nwarps=2)
    text = tg.header(grid=(3, 1, 1)) + "".join(tg.block_text((b, 0, 0), warps) for b in range(3))
    d = tg.write_dir(tmp_path / "t", {"kernel-1.traceg" + suffix: text}, copies=[(0x7f1000000000, 256)])
    cmds = read_kernelslist(d)
    assert cmds[0].kind == "memcpy" and cmds[1].path.name == "kernel-1.traceg" + suffix
    with KernelTrace(cmds[1].path) as k:
        assert k.count() == (3, 3 * 14)
    r = run_trace(d, "gtx1080")
    assert r.warp_insts == 3 * 14 and r.sim_cycles > 0


def test_header_variants(tmp_path):
    warps = tg.vector_kernel(nwarps=1)
    body = tg.block_text((0, 0, 0), warps)
    # keys of later tracers are ignored; nregs and bases may be absent
    text = tg.header(block=(32, 1, 1), extra={"cluster dim": "(1,1,1)", "some new key": "x"},
                     drop=("nregs", "shmem base_addr", "local mem base_addr", "kernel id", "nvbit version"))
    hdr, blocks = read_all(kernel(tmp_path, text + body))
    assert hdr["nregs"] == 32 and hdr["shmem_base"] == 0 and len(blocks) == 1


def test_generic_loads_classified_by_window(tmp_path):
    sh, lo = 0x7f0000000000, 0x7e0000000000
    lines = [tg.inst_line(8, 1, "LD.E", ("R1",), ("R2",), 4, [sh + 64]),
             tg.inst_line(16, 1, "LD.E", ("R1",), ("R2",), 4, [lo + 64]),
             tg.inst_line(24, 1, "ST.E", (), ("R2", "R1"), 4, [0x7f1000000000]),
             tg.inst_line(32, 0xffffffff, "EXIT")]
    text = tg.header(block=(32, 1, 1)) + tg.block_text((0, 0, 0), {0: [(l, None) for l in lines]})
    d = tg.write_dir(tmp_path / "g", {"kernel-1.traceg": text})
    r = run_trace(d, "gtx1080")
    st = r.kernels[0].stats
    assert st["shared_insts"] == 1                     # the first LD hit the shared window
    assert st["L1D_total_requests"] == 2                      # local load + global store go through the L1/LSU


# ---- opcode tables ---------------------------------------------------------------------------------------
def test_opcode_tables():
    assert opcodes.table(61)["XMAD"][0] == "int" and "HMMA" not in opcodes.table(61)
    assert opcodes.table(70)["HMMA"] == ("tensor", "tensor", "")
    assert opcodes.table(90)["HGMMA"][0] == "tensor" and opcodes.table(80)["LDGSTS"][2] == "global"
    assert opcodes.table(75)["LDSM"] == ("ldst", "load", "shared")
    with pytest.raises(TraceFormatError, match="no SASS opcode table for binary version 65"):
        opcodes.table(65)


def test_hmma_runs_on_tensor_pipe(tmp_path):
    lines = [tg.inst_line(16 * (i + 1), 0xffffffff, "HMMA.1688.F32", ("R4",), ("R8", "R10"), 0) for i in range(4)]
    lines.append(tg.inst_line(0x100, 0xffffffff, "EXIT"))
    text = tg.header(block=(32, 1, 1), binary=80) + tg.block_text((0, 0, 0), {0: [(l, None) for l in lines]})
    r = run_trace(tg.write_dir(tmp_path / "h", {"kernel-1.traceg": text}), "h200")
    assert r.kernels[0].stats["unit_insts"]["tensor"] == 4


def test_unknown_opcode_error_and_flag(tmp_path):
    lines = [tg.inst_line(8, 0xffffffff, "FOO.BAR", ("R1",), ()), tg.inst_line(16, 0xffffffff, "EXIT")]
    text = tg.header(block=(32, 1, 1)) + tg.block_text((0, 0, 0), {0: [(l, None) for l in lines]})
    d = tg.write_dir(tmp_path / "u", {"kernel-1.traceg": text})
    with pytest.raises(TraceFormatError, match=r"kernel-1.traceg:\d+: unknown opcode 'FOO.BAR' for binary version 61"):
        read_all(d / "kernel-1.traceg")
    r = run_trace(d, "gtx1080", allow_unknown=True)
    assert r.warp_insts == 2 and r.unknown_insts == 1 and r.unknown_opcodes == ["FOO"]


# ---- hostile traces --------------------------------------------------------------------------------------
def _one(tmp_path, body, **hk):
    return kernel(tmp_path, tg.header(block=(32, 1, 1), **hk) + body)


GOOD = "0008 ffffffff 1 R1 MOV 0 0 \n0010 ffffffff 0 EXIT 0 0 \n"


@pytest.mark.parametrize("body,msg", [
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n" + GOOD, r":\d+: the file ends inside the thread block .*truncated"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n" + GOOD + "#END_TB\n", r"warp 0 .* has 2 instructions, but its 'insts =' line says 3"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + GOOD + "#END_TB\n", r":22: warp 0 has more instructions than its 'insts = 1'"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 99999999999999999999\n", r"bad insts '99999999999999999999'"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4294967295\n", r"insts = 4294967295 out of range"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n00g8 ffffffff 0 EXIT 0 0\n#END_TB\n", r":21: bad hex in PC: '00g8'"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 fffffffff 0 EXIT 0 0\n#END_TB\n", r"bad active mask"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 ffffffff 1 R1 LDG.E 0 4 0 0x10\n#END_TB\n", r"missing address"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 ffffffff 1 R1 LDG.E 0 4 3 0x10\n#END_TB\n", r"address compression mode = 3 out of range"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 ffffffff 2 R1 MOV 0 0\n#END_TB\n", r"bad register 'MOV'"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 ffffffff 0 EXIT 0 0 17\n#END_TB\n", r"unexpected '17' at the end"),
    ("#BEGIN_TB\nthread block = 5,0,0\n", r"bad thread block '5,0,0' \(grid is \(1,1,1\)\)"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 3\n", r"warp = 3 out of range \[0, 0\]"),
    ("#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n", r"has no 'warp = 0'"),
    ("hello\n", r"expected a header line '-key = value' or #BEGIN_TB"),
    ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0008 ffffffff 0 EXIT 0 0\n0008 ffffffff 0 MOV 0 0\n#END_TB\n",
     r"PC 0x8 is 'MOV' here but was 'EXIT' earlier"),
])
def test_hostile(tmp_path, body, msg):
    with pytest.raises(TraceFormatError, match=msg):
        read_all(_one(tmp_path, body))


def test_repeated_pc_lines(tmp_path):
    """Later lines of a PC already seen (a loop) are read through a fast path that matches the bytes of
    the PC's first line after the mask; every other form of the line still decodes as the first did."""
    lines = ["0008 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4 \n",
             "0008 0000000f 1 R4 LDG.E 1 R2 4 1 0x2000 -4 \n",                 # same bytes: fast path
             "0008   00000003  1 R4  LDG.E 1 R2 4 2 0x3000 +8\n",               # other spacing, a '+'
             "0008 00000003 1 R4 LDG.E 1 R2 4 0 0x000000000000000000004000 0x4008\n",  # leading zeros
             "0010 ffffffff 0 EXIT 0 0 \n"]
    body = f"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = {len(lines)}\n" + "".join(lines) + "#END_TB\n"
    _, blocks = read_all(_one(tmp_path, body))
    (_, warps), = blocks
    got = [(i["pc"], i["mask"], [i["addrs"][l] for l in range(32) if i["mask"] >> l & 1] if i.get("addrs") else None)
           for i in warps[0]]
    assert got[:4] == [(8, 0xffffffff, [0x1000 + 4 * k for k in range(32)]), (8, 0xf, [0x2000, 0x1ffc, 0x1ff8, 0x1ff4]),
                       (8, 3, [0x3000, 0x3008]), (8, 3, [0x4000, 0x4008])]
    # a later line of a known PC whose width token only starts like the first line's ('4' vs '41') is no
    # match: it is read in full (width 41, then a bad mode; not mode 1 without its stride), and its
    # address list is checked
    for tail, msg in [("41 0x10", r":2\d: bad address compression mode '0x10' \(not a decimal number\)"), ("4 0 0xq0", r":2\d: bad hex in address: 'q0'"),
                      ("4 0 0x10 0x20", r"unexpected '0x20' at the end")]:
        b = ("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0008 00000001 1 R4 LDG.E 1 R2 4 0 0x10\n"
             f"0008 00000001 1 R4 LDG.E 1 R2 {tail}\n#END_TB\n")
        with pytest.raises(TraceFormatError, match=msg):
            read_all(_one(tmp_path, b))


@pytest.mark.parametrize("hk,msg", [
    ({"version": 2}, r":12: unsupported accelsim tracer version 2 \(supported: 3, 4, 5\)"),
    ({"version": 6}, r"unsupported accelsim tracer version 6"),
    ({"drop": ("accelsim tracer version",)}, r"header has no '-accelsim tracer version' line"),
    ({"drop": ("grid dim",)}, r"header has no '-grid dim' line"),
    ({"extra": {"grid dim": "(0,1,1)"}}, r":3: bad -grid dim '\(0,1,1\)'"),
    ({"extra": {"shmem base_addr": "0xZZ"}}, r"bad hex in -shmem base_addr"),
    ({"binary": 52}, r"no SASS opcode table for binary version 52"),
])
def test_hostile_headers(tmp_path, hk, msg):
    with pytest.raises(TraceFormatError, match=msg):
        read_all(_one(tmp_path, "", **hk))


def test_corrupt_and_short_grid(tmp_path):
    p = tmp_path / "k.traceg.xz"
    p.write_bytes(b"\xfd7zXZ\x00garbage" * 10)
    with pytest.raises(TraceFormatError, match="corrupt compressed data"):
        KernelTrace(p)
    warps = tg.vector_kernel(nwarps=1)
    text = tg.header(grid=(2, 1, 1), block=(32, 1, 1)) + tg.block_text((0, 0, 0), warps)
    d = tg.write_dir(tmp_path / "s", {"kernel-1.traceg": text})
    with pytest.raises(Exception, match="the trace ends after 1 thread blocks, but the grid has 2"):
        run_trace(d, "gtx1080")


@pytest.mark.parametrize("lines,msg", [
    ("MemcpyHtoD,0x10\nkernel-1.traceg\n", r"kernelslist.g:1: bad copy line"),
    ("MemcpyHtoD,zz,5\nkernel-1.traceg\n", r"kernelslist.g:1: bad copy line .*hex"),
    ("kernel-9.traceg\n", r"kernelslist.g:1: kernel file 'kernel-9.traceg' not found"),
    ("../etc/passwd\n", r"must be a plain name"),
    ("MemcpyHtoD,0x10,4\n", r"lists no kernel trace"),
])
def test_kernelslist_errors(tmp_path, lines, msg):
    (tmp_path / "kernelslist.g").write_text(lines)
    with pytest.raises(TraceFormatError, match=msg):
        read_kernelslist(tmp_path)


def test_cli_run_trace_json(tmp_path):
    out = tmp_path / "out.json"
    r = subprocess.run([sys.executable, "-m", "simtscope", "run", "--trace", str(FIX / "vectoradd-100-32"),
                        "--config", "gtx1080", "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    j = json.loads(out.read_text())
    assert j["warp_insts"] == 344 and j["sim_cycles"] > 0 and j["wall_s"] > 0
    bad = subprocess.run([sys.executable, "-m", "simtscope", "run", "--trace", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "no kernelslist.g" in bad.stderr


def test_recorded_trace_run_names_its_workload_and_config_in_the_store(tmp_path):
    """A trace run recorded outside the explorer (no run info, as from Python or a script) lists as
    trace:<directory> on its config, not '?', whether imported or adopted at start-up."""
    from webapp.store import RunReader
    from webapp.store.catalogue import Catalogue
    from webapp.store.writer import RunWriter
    path = tmp_path / "va.simtrun"
    r = run_trace(FIX / "vectoradd-100-32", "gtx1080", sink=RunWriter(path), record="summary")
    assert r.warp_insts == 344
    rec = RunReader(path).rec
    assert rec["workload"] == {"name": "trace:vectoradd-100-32", "trace": "vectoradd-100-32",
                               "kernel": "_Z6vecAddIfEvPT_S1_S1_i"}
    assert rec["config_name"] == "gtx1080"
    cat = Catalogue(tmp_path / "store")
    run = cat.import_run(path)
    assert (run["workload"], run["config"], run["status"]) == ("trace:vectoradd-100-32", "gtx1080", "done")
    assert run["warp_insts"] == 344 and run["stats"]["gpu_sim_insn"] == 10516 and run["cycles"] >= r.sim_cycles
    assert run["name"] == "trace:vectoradd-100-32"
    (cat.runs_dir / "adopted.simtrun").write_bytes(path.read_bytes())      # a file left in the store
    cat.recover()
    adopted = cat.get_run("adopted")
    assert (adopted["workload"], adopted["config"]) == ("trace:vectoradd-100-32", "gtx1080")
    # an explorer run's own info still wins over the recording
    p2 = tmp_path / "named.simtrun"
    run_trace(FIX / "vectoradd-100-32", "gtx1080", sink=RunWriter(p2, {"name": "mine", "workload": "u1:@trace",
                                                                   "config": "gtx1080"}), record="summary")
    named = cat.import_run(p2)
    assert (named["name"], named["workload"], named["config"]) == ("mine", "u1:@trace", "gtx1080")
