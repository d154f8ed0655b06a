"""Checking and storing uploaded workloads: PTX (or CUDA compiled with nvcc, or a zip of both) plus a launch
description in the cases.json format. Everything is checked before anything is stored; every problem is
an UploadError whose message names the file and what is wrong.

Checks: file sizes; text, not binary; archive members (no absolute paths, no `..`, no links, at most
MAX_MEMBERS, at most the unpacked limit, no extreme compression ratios: zip bombs); launch JSON shape
and geometry (CUDA's limits, a cap on CTAs and buffer sizes); the PTX parses and the engine supports every
instruction; the case's kernel exists and takes as many parameters as the case gives.
"""
from __future__ import annotations

import contextlib
import io
import json
import lzma
import re
import shutil
import subprocess
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from engine.cases import NP_DTYPES

from .timebounds import deadline

MAX_MEMBERS = 64
MAX_RATIO = 200                 # uncompressed / compressed above this in an archive member: refused
TEXT_EXT = {".ptx", ".cu", ".json", ".txt", ".md", ".h", ".cuh"}
BLOCK_LIMITS = (1024, 1024, 64)
GRID_LIMITS = (2**31 - 1, 65535, 65535)
MAX_BUFFER_BYTES = 1 << 30
MAX_SMEM = 227 * 1024
NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,80}$")


class UploadError(ValueError):
    pass


def _text(name: str, data: bytes, limit: int) -> str:
    if len(data) > limit:
        raise UploadError(f"{name}: {len(data)} bytes is over the {limit // 2**20} MiB limit per file")
    if b"\0" in data[:65536]:
        raise UploadError(f"{name}: binary data, not a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UploadError(f"{name}: not UTF-8 text (byte {e.start})") from None


def safe_member(name: str) -> str:
    p = PurePosixPath(name.replace("\\", "/"))
    if p.is_absolute() or re.match(r"^[A-Za-z]:", name) or any(part in ("..", "") for part in p.parts):
        raise UploadError(f"archive member {name!r}: paths must be relative and stay inside the archive")
    if len(name) > 1024 or any(len(part.encode()) > 200 for part in p.parts):      # the file system's limits
        raise UploadError(f"archive member {name[:60]!r}...: names are at most 200 bytes a part, 1024 in all")
    return str(p)


@contextlib.contextmanager
def _member_errors(name: str):
    """Reading a damaged member (bad CRC, a broken deflate stream, cut short, encrypted, an unsupported
    compression method) raises one of several exceptions: each is an UploadError naming the member."""
    try:
        yield
    except UploadError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, lzma.LZMAError,
            ValueError) as e:
        raise UploadError(f"archive member {name!r} cannot be unpacked: {e}") from None


def open_zip(data: bytes) -> zipfile.ZipFile:
    """An uploaded zip opened for reading; a damaged one is an UploadError. (A member name flagged UTF-8 that
    is not is a UnicodeDecodeError; a central directory asking for a zip version Python does not read, e.g.
    "zip file version 17.3", is a NotImplementedError.)"""
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except NotImplementedError as e:
        raise UploadError(f"the archive is a zip this server cannot read ({e})") from None
    except (zipfile.BadZipFile, UnicodeDecodeError, ValueError, EOFError, OSError):
        raise UploadError("the archive is not a valid zip file") from None


def unpack_zip(data: bytes, max_file: int, max_total: int) -> dict[str, bytes]:
    """Members of a zip as {relative path: bytes}, refusing traversal, links, bombs and other file types."""
    zf = open_zip(data)
    infos = [i for i in zf.infolist() if not i.is_dir()]
    if len(infos) > MAX_MEMBERS:
        raise UploadError(f"the archive holds {len(infos)} files; at most {MAX_MEMBERS} are accepted")
    out, total = {}, 0
    for info in infos:
        deadline().check("unpacking the archive")
        name = safe_member(info.filename)
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise UploadError(f"archive member {name!r} is a symbolic link; links are not accepted")
        if PurePosixPath(name).suffix.lower() not in TEXT_EXT:
            raise UploadError(f"archive member {name!r}: only {', '.join(sorted(TEXT_EXT))} files are accepted")
        if info.file_size > max_file or (info.compress_size and info.file_size / info.compress_size > MAX_RATIO):
            raise UploadError(f"archive member {name!r} unpacks to {info.file_size} bytes "
                              f"(limit {max_file} bytes, compression ratio limit {MAX_RATIO}): refused as a zip bomb")
        with _member_errors(name), zf.open(info) as f:     # never trust the header: stop reading at the limit
            blob = f.read(max_file + 1)
        if len(blob) > max_file:
            raise UploadError(f"archive member {name!r} is larger than its header says: refused as a zip bomb")
        total += len(blob)
        if total > max_total:
            raise UploadError(f"the archive unpacks to more than {max_total // 2**20} MiB: refused")
        out[name] = blob
    return out


def _dims(case: str, key: str, v, limits) -> list[int]:
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list) or not 1 <= len(v) <= 3 or \
            any(not isinstance(x, int) or isinstance(x, bool) for x in v):
        raise UploadError(f"case {case!r}: '{key}' must be 1 to 3 integers, got {v!r}")
    v = v + [1] * (3 - len(v))
    for x, lim, axis in zip(v, limits, "xyz"):
        if not 1 <= x <= lim:
            raise UploadError(f"case {case!r}: {key}.{axis} = {x} is outside 1..{lim}")
    return v


def check_case(c: dict, max_ctas: int) -> dict:
    """A case of the launch description, checked; returns it with grid/block normalised to 3 values."""
    if not isinstance(c, dict):
        raise UploadError("each case must be a JSON object")
    name = c.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise UploadError(f"case name {name!r}: use 1-80 letters, digits, _ . + -")
    for key in ("kernel", "ptx"):
        if not isinstance(c.get(key), str) or not c[key]:
            raise UploadError(f"case {name!r}: '{key}' must be a non-empty string")
    grid = _dims(name, "grid", c.get("grid"), GRID_LIMITS)
    block = _dims(name, "block", c.get("block"), BLOCK_LIMITS)
    threads = block[0] * block[1] * block[2]
    if threads > 1024:
        raise UploadError(f"case {name!r}: a block of {threads} threads is over CUDA's 1024")
    ctas = grid[0] * grid[1] * grid[2]
    if ctas > max_ctas:
        raise UploadError(f"case {name!r}: {ctas} CTAs is over this server's limit of {max_ctas}")
    smem = c.get("dynamic_smem_bytes", 0)
    if not isinstance(smem, int) or not 0 <= smem <= MAX_SMEM:
        raise UploadError(f"case {name!r}: dynamic_smem_bytes must be 0..{MAX_SMEM}")
    args = c.get("args")
    if not isinstance(args, list) or len(args) > 64:
        raise UploadError(f"case {name!r}: 'args' must be a list of at most 64 arguments")
    total = 0
    for i, a in enumerate(args):
        if not isinstance(a, dict) or a.get("kind") not in ("buffer", "scalar"):
            raise UploadError(f"case {name!r}: argument {i} needs kind 'buffer' or 'scalar'")
        a.setdefault("name", f"arg{i}")
        if not isinstance(a.get("dtype"), str) or a["dtype"] not in NP_DTYPES or NP_DTYPES[a["dtype"]] is None:
            raise UploadError(f"case {name!r}: argument {a['name']!r} has unknown dtype {a.get('dtype')!r}")
        if a["kind"] == "scalar":
            if not isinstance(a.get("value"), (int, float)) or isinstance(a.get("value"), bool):
                raise UploadError(f"case {name!r}: scalar {a['name']!r} needs a numeric 'value'")
            continue
        n = a.get("count")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise UploadError(f"case {name!r}: buffer {a['name']!r} needs a positive integer 'count'")
        total += n * NP_DTYPES[a["dtype"]]().itemsize
        if a.get("init", "zeros") not in ("zeros", "const", "iota", "random_uniform", "random_int"):
            raise UploadError(f"case {name!r}: buffer {a['name']!r} has unknown init {a.get('init')!r}")
    if total > MAX_BUFFER_BYTES:
        raise UploadError(f"case {name!r}: buffers total {total} bytes, over the {MAX_BUFFER_BYTES >> 20} MiB limit")
    return {**c, "grid": grid, "block": block}


def parse_launch(text: str, default_ptx: str | None, max_ctas: int) -> list[dict]:
    """The launch description: a cases.json (format gpu-validation-suite/1), a list of cases, or one case."""
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise UploadError(f"launch description: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    cases = d.get("cases") if isinstance(d, dict) and "cases" in d else (d if isinstance(d, list) else [d])
    if not isinstance(cases, list) or not cases:
        raise UploadError("launch description: no cases")
    if len(cases) > 32:
        raise UploadError(f"launch description: {len(cases)} cases; at most 32 per upload")
    out = []
    for c in cases:
        if isinstance(c, dict) and default_ptx and not c.get("ptx"):
            c = {**c, "ptx": default_ptx}
        out.append(check_case(c, max_ctas))
    names = [c["name"] for c in out]
    if len(set(names)) != len(names):
        raise UploadError("launch description: case names must be unique")
    return out


def find_nvcc() -> str | None:
    """nvcc on PATH, or the one PyPI's nvidia-cuda-nvcc installs into site-packages/nvidia/cu*/bin."""
    exe = shutil.which("nvcc")
    if exe:
        return exe
    import site
    for sp in site.getsitepackages():
        for cand in sorted(Path(sp).glob("nvidia/cu*/bin/nvcc"), reverse=True):
            return str(cand)
    return None


def compile_cu(name: str, source: str, timeout: int = 180) -> str:
    nvcc = find_nvcc()
    if nvcc is None:
        raise UploadError(f"{name}: nvcc is not available on this server; upload the PTX "
                          "(nvcc -ptx -arch=sm_90 -O3) or install nvidia-cuda-nvcc")
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "kernel.cu"
        src.write_text(source)
        try:
            r = subprocess.run([nvcc, "-ptx", "-arch=sm_90", "-O3", str(src), "-o", str(Path(d) / "kernel.ptx")],
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise UploadError(f"{name}: nvcc took longer than {timeout} s") from None
        if r.returncode != 0:
            msg = r.stderr.replace(str(src), name).strip()
            raise UploadError(f"{name}: nvcc failed:\n{msg[:2000]}")
        return (Path(d) / "kernel.ptx").read_text()


def check_ptx(cases: list[dict], files: dict[str, str]) -> None:
    """Every case's PTX parses, its kernel exists, and the argument count matches the kernel's."""
    from engine.ptx import load
    from engine.ptx.errors import PTXError
    programs = {}
    for c in cases:
        deadline().check("checking the PTX")
        fname = c["ptx"]
        if fname not in files:
            raise UploadError(f"case {c['name']!r}: PTX file {fname!r} is not in the upload "
                              f"(files: {', '.join(sorted(files)) or 'none'})")
        if fname not in programs:
            try:
                programs[fname] = load(files[fname], fname)
            except PTXError as e:
                msg = str(e)
                raise UploadError(msg if msg.startswith(fname) else f"{fname}: {msg}") from None
        prog = programs[fname]
        k = prog.kernels.get(c["kernel"])
        if k is None:
            raise UploadError(f"case {c['name']!r}: no kernel {c['kernel']!r} in {fname} "
                              f"(kernels: {', '.join(sorted(prog.kernels)) or 'none'})")
        if len(k.params) != len(c["args"]):
            raise UploadError(f"case {c['name']!r}: kernel {c['kernel']} takes {len(k.params)} parameters, "
                              f"the case gives {len(c['args'])}")


def store(folder: Path, cases: list[dict], files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        p = folder / safe_member(name)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (folder / "cases.json").write_text(json.dumps({"format": "gpu-validation-suite/1", "paths_relative_to": ".",
                                                   "cases": cases}, indent=1))


# ---- Accel-Sim trace directories (a .zip holding kernelslist.g) -------------------------------------------
TRACE_FILES = re.compile(r"^(kernelslist\.g|stats\.csv|[\w.+-]+\.traceg(\.xz|\.gz|\.zst)?|[\w.+-]+\.(json|txt|log))$")
TRACE_RATIO = 1000              # trace text compresses far better than code: a looser zip-bomb guard


def is_trace_zip(data: bytes) -> bool:
    try:
        return any(PurePosixPath(n).name == "kernelslist.g" for n in zipfile.ZipFile(io.BytesIO(data)).namelist())
    except (zipfile.BadZipFile, UnicodeDecodeError, ValueError, EOFError, OSError, NotImplementedError):
        return False            # (not a trace: unpack_zip then says what is wrong with it)


def store_trace(data: bytes, folder: Path, max_total: int) -> tuple[str, dict]:
    """Unpack a zipped trace directory into folder and check it (kernelslist.g, every kernel's header and
    opcode table); returns (first kernel's name, info: kernel files, first kernel's name, grid, block). UploadError names the member and problem;
    on any error nothing is left behind."""
    from engine.traces import KernelTrace, TraceFormatError, read_kernelslist
    zf = open_zip(data)
    infos = [i for i in zf.infolist() if not i.is_dir()]
    if len(infos) > MAX_MEMBERS:
        raise UploadError(f"the archive holds {len(infos)} files; at most {MAX_MEMBERS} are accepted")
    lists = [safe_member(i.filename) for i in infos if PurePosixPath(i.filename).name == "kernelslist.g"]
    if len(lists) != 1:
        raise UploadError(f"the archive holds {len(lists)} kernelslist.g files; a trace upload needs exactly one")
    top = str(PurePosixPath(lists[0]).parent)
    folder.mkdir(parents=True)
    total = 0
    try:
        for info in infos:
            deadline().check("unpacking the trace")
            name = safe_member(info.filename)
            inside = top == "." or PurePosixPath(name).is_relative_to(top)
            rel = PurePosixPath(name).relative_to(top) if top != "." and inside else PurePosixPath(name)
            if not inside or len(rel.parts) != 1 or not TRACE_FILES.match(rel.name):
                raise UploadError(f"archive member {name!r}: a trace upload holds kernelslist.g and kernel-N.traceg "
                                  f"files (.xz, .gz or .zst) in one folder")
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise UploadError(f"archive member {name!r} is a symbolic link; links are not accepted")
            if info.compress_size and info.file_size / info.compress_size > TRACE_RATIO:
                raise UploadError(f"archive member {name!r}: compression ratio over {TRACE_RATIO}: refused as a zip bomb")
            total += info.file_size
            if total > max_total:
                raise UploadError(f"the archive unpacks to more than {max_total // 2**20} MiB: refused")
            with _member_errors(name), zf.open(info) as src, open(folder / rel.name, "wb") as dst:
                left = info.file_size + 1                 # never trust the header: stop at its size
                while left > 0 and (chunk := src.read(min(1 << 20, left))):
                    dst.write(chunk)
                    left -= len(chunk)
                if left <= 0:
                    raise UploadError(f"archive member {name!r} is larger than its header says: refused as a zip bomb")
        cmds = read_kernelslist(folder)
        kernels = [c.path for c in cmds if c.kind == "kernel"]
        heads = []
        for p in kernels:
            with KernelTrace(p) as k:
                heads.append(k.header)
        h = heads[0]
        return h["kernel_name"], {"files": [p.name for p in kernels], "kernel": h["kernel_name"],
                                  "grid": list(h["grid"]), "block": list(h["block"]), "kernels": len(heads),
                                  "binary_version": h["binary_version"]}
    except TraceFormatError as e:
        shutil.rmtree(folder, ignore_errors=True)
        raise UploadError(str(e).replace(str(folder) + "/", "").replace(str(folder), "the archive")) from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
