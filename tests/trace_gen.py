"""Synthetic Accel-Sim traces for tests and benchmarks: any tracer version, line numbers, address
compression mode, compression of the kernel file. Instructions are given as dicts; the writer also
returns, for each instruction, the per-lane addresses a reader must decode."""
from __future__ import annotations

import gzip
import lzma
from pathlib import Path

import zstandard


def header(grid=(1, 1, 1), block=(64, 1, 1), version=4, binary=61, lineinfo=0, shmem=0, nregs=16,
           extra: dict | None = None, drop=()) -> str:
    keys = {"kernel name": "_Z4testPf", "kernel id": "1", "grid dim": "(%d,%d,%d)" % grid,
            "block dim": "(%d,%d,%d)" % block, "shmem": str(shmem), "nregs": str(nregs),
            "binary version": str(binary), "cuda stream id": "0", "shmem base_addr": "0x00007f0000000000",
            "local mem base_addr": "0x00007e0000000000", "nvbit version": "1.5.5",
            "accelsim tracer version": str(version), "enable lineinfo": str(lineinfo)}
    keys.update(extra or {})
    lines = [f"-{k} = {v}" for k, v in keys.items() if k not in drop]
    return "\n".join(lines) + "\n\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num " \
                              "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n"


def inst_line(pc, mask, op, dst=(), src=(), width=0, addrs=None, mode=0, line=None, imm=None) -> str:
    """One instruction line; addrs: per active lane (in lane order) for memory instructions."""
    parts = [] if line is None else [str(line)]
    parts += [f"{pc:04x}", f"{mask:08x}", str(len(dst)), *dst, op, str(len(src)), *src, str(width)]
    if width:
        parts.append(str(mode))
        if mode == 0:
            parts += [f"0x{a:x}" for a in addrs]
        elif mode == 1:
            stride = addrs[1] - addrs[0] if len(addrs) > 1 else 0
            assert all(addrs[k] == addrs[0] + k * stride for k in range(len(addrs)))
            parts += [f"0x{addrs[0]:x}", str(stride)]
        else:
            parts.append(f"0x{addrs[0]:x}")
            parts += [str(addrs[k] - addrs[k - 1]) for k in range(1, len(addrs))]
    if imm is not None:
        parts.append(str(imm))
    return " ".join(parts) + " \n"


def vector_kernel(nwarps=2, base=0x7f1000000000, mode=0, version=4, lineinfo=0, scatter=False):
    """Per warp: S2R, IMAD, LDG (addresses), FADD, STG, BAR, EXIT. Returns {warp: [(line, decoded)]}"""
    out = {}
    n = 0
    for w in range(nwarps):
        lst = []
        ld = [base + 4 * (32 * w + l) for l in range(32)]
        if scatter:                                   # non-uniform deltas for mode 2
            ld = [base + 4 * (32 * w + l) + (l * l % 7) * 128 for l in range(32)]
        st = [a + 0x100000 for a in ld]
        spec = [(0x08, 0xffffffff, "S2R", ("R0",), (), 0, None),
                (0x10, 0xffffffff, "IMAD", ("R2",), ("R0", "R255"), 0, None),
                (0x18, 0xffffffff, "LDG.E", ("R4",), ("R2",), 4, ld),
                (0x20, 0xffffffff, "FADD", ("R5",), ("R4", "R4"), 0, None),
                (0x28, 0x0000ffff, "STG.E", (), ("R2", "R5"), 4, st[:16]),
                (0x30, 0xffffffff, "BAR.SYNC", (), (), 0, None),
                (0x38, 0xffffffff, "EXIT", (), (), 0, None)]
        for pc, mask, op, dst, src, width, addrs in spec:
            n += 1
            line = inst_line(pc, mask, op, dst, src, width, addrs, mode if mode != 1 or not scatter else 0,
                             line=n if lineinfo else None, imm=7 if version >= 5 else None)
            lst.append((line, {"pc": pc, "mask": mask, "addrs": addrs}))
        out[w] = lst
    return out


def block_text(bid, warps: dict, counts: dict | None = None) -> str:
    s = f"#BEGIN_TB\n\nthread block = {bid[0]},{bid[1]},{bid[2]}\n\n"
    for w, lst in warps.items():
        s += f"warp = {w}\ninsts = {(counts or {}).get(w, len(lst))}\n"
        s += "".join(line for line, _ in lst) + "\n"
    return s + "#END_TB\n\n"


def write_kernel(path: Path, text: str) -> Path:
    """Write a kernel trace, compressed by its suffix (.xz, .gz, .zst, else plain)."""
    data = text.encode()
    if path.suffix == ".xz":
        data = lzma.compress(data)
    elif path.suffix == ".gz":
        data = gzip.compress(data)
    elif path.suffix == ".zst":
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)
    return path


def write_dir(d: Path, kernels: dict[str, str], copies=()) -> Path:
    """A trace directory: kernelslist.g listing the copies, then the kernel files (name -> text)."""
    d.mkdir(parents=True, exist_ok=True)
    lines = [f"MemcpyHtoD,0x{a:016x},{n}" for a, n in copies]
    for name, text in kernels.items():
        write_kernel(d / name, text)
        lines.append(name[:-len(Path(name).suffix)] if Path(name).suffix in (".xz", ".gz", ".zst") else name)
    (d / "kernelslist.g").write_text("\n".join(lines) + "\n")
    return d
