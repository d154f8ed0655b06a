"""Accel-Sim trace directories: kernelslist.g and per-kernel .traceg files (plain, .xz, .gz, .zst).

The C reader (engine/csrc/trace_read.c and the trace_*.c modules it names) parses a kernel trace from
a file descriptor as the simulation asks for thread blocks. A plain file is read directly; a compressed
one through a pipe fed by a thread that decompresses it with the standard library's lzma or gzip, or
zstandard, so memory stays bounded whatever the trace's size.
"""
from __future__ import annotations

import gzip
import lzma
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import zstandard

from .._ffi import ffi, lib
from . import opcodes
from .opcodes import TraceFormatError

SUFFIXES = (".xz", ".gz", ".zst")
CHUNK = 1 << 20


@dataclass(frozen=True)
class Command:
    """One line of kernelslist.g: a host-to-device copy or a kernel launch."""
    kind: str                  # "memcpy" | "kernel"
    line: int
    addr: int = 0
    nbytes: int = 0
    path: Path | None = None


def read_kernelslist(directory: str | Path) -> list[Command]:
    """The commands of a trace directory in order. Kernel files may be compressed (NAME.xz etc.)."""
    d = Path(directory)
    kl = d / "kernelslist.g"
    if not d.is_dir():
        raise TraceFormatError(f"{d}: not a directory")
    if not kl.is_file():
        raise TraceFormatError(f"{d}: no kernelslist.g (not an Accel-Sim trace directory)")
    cmds = []
    for i, raw in enumerate(kl.read_text(errors="replace").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("Memcpy"):
            parts = [p.strip() for p in line.split(",")]
            if parts[0] == "MemcpyDtoH":
                continue
            if parts[0] != "MemcpyHtoD" or len(parts) != 3:
                raise TraceFormatError(f"{kl}:{i}: bad copy line '{line[:80]}' (expected MemcpyHtoD,0xADDR,BYTES)")
            try:
                addr, n = int(parts[1], 16), int(parts[2], 10)
            except ValueError:
                raise TraceFormatError(f"{kl}:{i}: bad copy line '{line[:80]}' (address in hex, size in decimal)") from None
            if addr < 0 or n < 0 or addr >= 1 << 64 or n >= 1 << 48:
                raise TraceFormatError(f"{kl}:{i}: copy out of range in '{line[:80]}'")
            cmds.append(Command("memcpy", i, addr=addr, nbytes=n))
            continue
        if "/" in line or "\\" in line or line.startswith("."):
            raise TraceFormatError(f"{kl}:{i}: kernel file '{line[:80]}' must be a plain name inside the directory")
        p = d / line
        if not p.is_file():
            alt = [d / (line + s) for s in SUFFIXES if (d / (line + s)).is_file()]
            if not alt:
                raise TraceFormatError(f"{kl}:{i}: kernel file '{line}' not found in {d}")
            p = alt[0]
        cmds.append(Command("kernel", i, path=p))
    if not any(c.kind == "kernel" for c in cmds):
        raise TraceFormatError(f"{kl}: lists no kernel trace")
    return cmds


def _decompressor(path: Path):
    name = path.name
    if name.endswith(".xz"):
        return lzma.open(path, "rb")
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".zst"):
        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    return None


class _Feeder:
    """Decompresses `path` into the write end of a pipe on a thread; the read end goes to the C reader."""

    def __init__(self, src):
        self.src = src
        self.error: Exception | None = None
        self.rfd, self.wfd = os.pipe()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            with self.src:
                while True:
                    b = self.src.read(CHUNK)
                    if not b:
                        break
                    view = memoryview(b)
                    while view:
                        n = os.write(self.wfd, view)
                        view = view[n:]
        except (BrokenPipeError, OSError, ValueError) as e:   # reader closed early, or corrupt data
            if not isinstance(e, BrokenPipeError):
                self.error = e
        except (lzma.LZMAError, EOFError, zstandard.ZstdError) as e:
            self.error = e
        finally:
            os.close(self.wfd)

    def close(self):
        os.close(self.rfd)                  # unblocks a writer (BrokenPipeError) before joining it
        self.thread.join()


class KernelTrace:
    """One kernel's trace, open for streaming. `header` holds its -key = value lines."""

    def __init__(self, path: str | Path, allow_unknown: bool = False):
        self.path = Path(path)
        self._feeder = None
        self._fd = -1
        src = _decompressor(self.path)
        try:
            if src is None:
                self._fd = os.open(self.path, os.O_RDONLY)
            else:
                self._feeder = _Feeder(src)
                self._fd = self._feeder.rfd
        except OSError as e:
            raise TraceFormatError(f"{self.path}: cannot open: {e.strerror}") from None
        err = ffi.new("char[700]")
        p = lib.gs_trace_open(self._fd, str(self.path).encode(), err, 700)
        if p == ffi.NULL:
            msg = self._stream_error() or ffi.string(err).decode(errors="replace")
            self.close()
            raise TraceFormatError(msg)
        self._ptr = p
        h = ffi.new("gs_trace_header *")
        lib.gs_trace_get_header(p, h)
        self.header = {
            "kernel_name": ffi.string(h.kernel_name).decode(errors="replace"), "kernel_id": h.kernel_id,
            "grid": tuple(h.grid), "block": tuple(h.block), "shmem": h.shmem, "nregs": h.nregs,
            "binary_version": h.binary_version, "tracer_version": h.tracer_version, "lineinfo": h.lineinfo,
            "cuda_stream_id": h.cuda_stream_id, "shmem_base": h.shmem_base, "local_base": h.local_base,
            "nvbit_version": ffi.string(h.nvbit_version).decode(errors="replace").strip()}
        try:
            tab = opcodes.table(h.binary_version)
        except TraceFormatError as e:
            self.close()
            raise TraceFormatError(f"{self.path}: {e}") from None
        names = sorted(tab)
        ops = ffi.new("gs_trace_opinfo[]", len(names))
        from ..config import UNITS
        for i, n in enumerate(names):
            unit, kind, space = tab[n]
            ops[i].name = n.encode()
            ops[i].unit = UNITS.index(unit)
            ops[i].kind = opcodes.KINDS.index(kind)
            ops[i].space = opcodes.SPACES[space]
        lib.gs_trace_set_opcodes(p, ops, len(names), lib.GS_TRACE_ALLOW_UNKNOWN if allow_unknown else 0)

    @property
    def name(self) -> str:
        return self.header["kernel_name"]

    def _stream_error(self) -> str | None:
        if self._feeder is None:
            return None
        e = self._feeder.error
        return f"{self.path}: corrupt compressed data: {e}" if e else None

    def error(self) -> str:
        """The reader's last error (file:line: what), or the decompressor's."""
        return self._stream_error() or ffi.string(lib.gs_trace_error(self._ptr)).decode(errors="replace")

    def blocks(self):
        """Iterate thread blocks: yields (block id, [per-warp list of instruction dicts])."""
        while True:
            r = lib.gs_trace_next_block(self._ptr)
            if r < 0:
                raise TraceFormatError(self.error())
            if r == 0:
                return
            idp = ffi.new("uint32_t[3]")
            nw = lib.gs_trace_block_warps(self._ptr, idp)
            inst = ffi.new("gs_trace_inst *")
            warps = []
            for w in range(nw):
                lst = []
                for i in range(lib.gs_trace_warp_insts(self._ptr, w)):
                    lib.gs_trace_get_inst(self._ptr, w, i, inst)
                    lst.append({"pc": inst.pc, "mask": inst.mask, "idx": inst.idx, "unit": inst.unit,
                                "kind": opcodes.KINDS[inst.kind], "space": inst.space, "width": inst.width,
                                "addrs": [inst.addrs[k] for k in range(32)] if inst.width else []})
                warps.append(lst)
            yield tuple(idp), warps

    def count(self) -> tuple[int, int]:
        """Read the remaining blocks: (thread blocks, warp instructions)."""
        nb = 0
        while True:
            r = lib.gs_trace_next_block(self._ptr)
            if r < 0:
                raise TraceFormatError(self.error())
            if r == 0:
                return nb, int(lib.gs_trace_insts_read(self._ptr))
            nb += 1

    def pc_table(self) -> list[tuple[int, str]]:
        """(PC, SASS text) of each static instruction seen so far, in program-index order."""
        out = []
        pc = ffi.new("uint64_t *")
        buf = ffi.new("char[256]")
        for i in range(lib.gs_trace_num_pcs(self._ptr)):
            lib.gs_trace_pc_info(self._ptr, i, pc, buf, 256)
            out.append((int(pc[0]), ffi.string(buf).decode(errors="replace")))
        return out

    def unknown(self) -> tuple[int, list[str]]:
        buf = ffi.new("char[256]")
        n = lib.gs_trace_unknown(self._ptr, buf, 256)
        names = ffi.string(buf).decode()
        return int(n), names.split() if names else []

    def close(self):
        p = getattr(self, "_ptr", None)
        if p is not None:
            lib.gs_trace_close(p)
            self._ptr = None
        if self._feeder is not None:
            self._feeder.close()
            self._feeder = None
        elif self._fd >= 0:
            os.close(self._fd)
        self._fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
