"""gpu-workload/1 bundles: open a folder, .zip or .tar.xz, check every field, give typed records.

    with open_bundle("model.tar.xz") as b:
        for i, launch in enumerate(b.launches): ...
        data = b.buffer_bytes("b0")          # the buffer's contents before first use (bytes)

The format is defined in docs/workloads.md (and ../shared/workloads/FORMAT.md). Everything is checked
when the bundle is opened, before anything is simulated: a malformed manifest, a missing or short file, an
argument that names an unknown buffer or points outside it, an unknown `format` raise BundleError naming
the field (e.g. `launches[3].args[2].offset`). Archives are unpacked into a private temporary folder with
limits on member count and size; links, absolute paths and `..` are refused. This module needs only the
standard library and numpy (capture uses it on a GPU machine without the C engine).
"""
from __future__ import annotations

import json
import lzma
import re
import shutil
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from . import unpacked

FORMAT = "gpu-workload/1"
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
SCALAR_TYPES = {"u8", "s8", "b8", "u16", "s16", "b16", "f16", "bf16", "u32", "s32", "b32", "f32", "u64", "s64",
                "b64", "f64"}
DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "bf16": np.uint16, "i8": np.int8,
          "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
          "i64": np.int64, "u64": np.uint64, "bool": np.bool_}
RNG_DTYPES = {"f32", "f16", "bf16", "i32", "u32"}
# the values an int rng may draw (lo .. hi - 1) for each integer dtype: outside them the values would wrap
INT_RNG_RANGE = {"i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1)}
INT_RNG_RANGE_FLOAT = (-2**62, 2**62)        # int values into a float dtype: the generator's int64 arithmetic
MAX_DIM = (2**31 - 1, 65535, 65535)
ARCHIVE_SUFFIXES = (".zip", ".tar.xz", ".txz", ".tar.gz", ".tgz", ".tar")


class BundleError(ValueError):
    """A bundle that cannot be read: names the bundle and the field, launch or file at fault."""

    def __init__(self, where: str, message: str):
        self.where = where
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Limits:
    """Bounds on what an archive may unpack to (uploads use tighter ones). `check(what)`, when given, is
    called before each member is unpacked and may raise to stop (the server's per-request work deadline)."""
    max_members: int = 100_000
    max_bytes: int = 8 << 30
    max_manifest_bytes: int = 64 << 20
    check: Callable[[str], None] | None = None

    def tick(self) -> None:
        if self.check is not None:
            self.check("unpacking the bundle")


@dataclass
class Buffer:
    id: str
    bytes: int
    init: dict | None
    name: str | None = None
    role: str | None = None


@dataclass
class Arg:
    kind: str                      # buffer | value | scratch
    buffer: str | None = None
    offset: int = 0
    value: int | float | None = None
    type: str | None = None
    scratch_bytes_per_cta: int = 0


@dataclass
class Launch:
    index: int
    kernel: str
    ptx: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    args: list[Arg]
    name: str
    op: str | None = None
    module: str | None = None
    opaque: bool = False           # recorded without PTX (an extern library call): measured time only
    hw_cycles: list[float] = field(default_factory=list)
    hw: dict = field(default_factory=dict)
    measured: dict = field(default_factory=dict)   # an opaque launch's own measurement: ns, cycles, clock_mhz
    gap_ns: float | None = None    # idle time on the GPU before this launch, as measured (None: not measured)
    start_ns: float | None = None  # this launch's start after the first launch's start, as measured

    @property
    def label(self) -> str:
        return self.module or self.name or self.kernel

    @property
    def ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def hw_cycles_mean(self) -> float | None:
        return float(np.mean(self.hw_cycles)) if self.hw_cycles else None


@dataclass
class Output:
    buffer: str
    offset: int
    dtype: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    expect: str
    tol: float

    @property
    def extent_bytes(self) -> int:
        """Bytes from the first to one past the last element of the strided view."""
        isz = np.dtype(DTYPES[self.dtype]).itemsize
        if any(s == 0 for s in self.shape):
            return 0
        return (sum((n - 1) * s for n, s in zip(self.shape, self.stride)) + 1) * isz


class Bundle:
    """An opened bundle. Use as a context manager (an archive's temporary folder is removed on close)."""

    def __init__(self, root: Path, manifest: dict, source: Path, tmp: tempfile.TemporaryDirectory | None = None):
        self.root, self.manifest, self.source, self._tmp = root, manifest, source, tmp
        self.name: str = ""
        desc = manifest.get("description", "")
        self.description: str = desc if isinstance(desc, str) else ""
        self.predicted: bool = manifest.get("predicted", False) is True
        self.buffers: dict[str, Buffer] = {}
        self.launches: list[Launch] = []
        self.outputs: list[Output] = []
        self.hardware: dict = manifest.get("hardware") or {}
        _check(self)

    # ------------------------------------------------------------------ files
    def path(self, rel: str) -> Path:
        return self.root / rel

    def ptx_text(self, rel: str) -> str:
        return self.path(rel).read_text()

    def buffer_bytes(self, bid: str) -> bytes | None:
        """A buffer's contents before first use; None for an uninitialised buffer."""
        b = self.buffers[bid]
        init = b.init
        if init is None:
            return None
        if "file" in init:
            return self.path(init["file"]).read_bytes()
        try:
            if init.get("fill") == "zeros":
                return bytes(b.bytes)
            return rng_bytes(init, b.bytes)
        except MemoryError:
            raise BundleError(f"buffers[{bid}]", f"{b.bytes} bytes of {'zeros' if init.get('fill') == 'zeros' else 'rng data'} "
                                                 "cannot be allocated here (out of host memory)") from None

    def expect_bytes(self, out: Output) -> bytes:
        return self.path(out.expect).read_bytes()

    @property
    def gaps_measured(self) -> bool:
        """Whether the bundle's measurements include the idle gaps between launches (hardware gap_ns)."""
        return any(L.gap_ns is not None for L in self.launches)

    @property
    def total_buffer_bytes(self) -> int:
        return sum(b.bytes for b in self.buffers.values())

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> "Bundle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------- generator (validation suite's)
RNG_CHUNK = 1 << 15        # elements generated at a time: the temporaries (~1 MiB) stay in the host cache, 3-4x faster than
                           # 1 << 22 (326 MiB of BERT buffers: 5 -> ~1.3 s); the bytes are the same for any chunk


def rng_bytes(init: dict, nbytes: int) -> bytes:
    """The suite's splitmix64 generator (validation/README.md) filling exactly `nbytes` of `init['dtype']`:
    element i (of dtype's size) from the (i+1)-th output, then a zero tail when `nbytes` is not a multiple of
    the element size. The dtypes are FORMAT.md's (RNG_DTYPES: f32 f16 bf16 i32 u32); any other is a
    ValueError naming it (the size used to be assumed 4 bytes for all but f16/bf16, so an i64 buffer came out
    twice its size and a u8 one a quarter filled; the manifest check refuses them before this is reached).
    Generated in chunks into one preallocated buffer, so a large buffer needs twice its size in memory (the buffer and its bytes), not
    the ~6x that whole-array uint64/float64 temporaries took (a 2 GiB f32 buffer asked for 4 GiB at once)."""
    dt = init["dtype"]
    if dt not in RNG_DTYPES:
        raise ValueError(f"rng dtype {dt!r} is not one of {sorted(RNG_DTYPES)} (gpu-workload/1)")
    isz = np.dtype(DTYPES[dt]).itemsize
    n = nbytes // isz
    out = bytearray(nbytes)                # zero tail (nbytes not a multiple of the element size)
    if not _rng_fill_c(init, dt, n, out):
        _rng_fill_numpy(init, dt, n, out)
    return bytes(out)


# the engine's C generator (gs_rng_fill, engine/csrc/rng.c: ~10x faster) for the forms it knows; the numpy one
# below is the definition, the C one is checked against it (tests/test_rng_fill.py)
_RNG_C_KINDS = {("uniform", "f32"): "GS_RNG_F32", ("uniform", "f16"): "GS_RNG_F16", ("uniform", "bf16"): "GS_RNG_BF16",
                ("int", "i32"): "GS_RNG_I32", ("int", "u32"): "GS_RNG_U32"}   # (the header's enum names its values)


def _rng_fill_c(init: dict, dt: str, n: int, out: bytearray) -> bool:
    name = _RNG_C_KINDS.get(("uniform" if init["rng"] == "uniform" else "int", dt))
    if name is None or n == 0:
        return n == 0
    from engine._ffi import ffi, lib
    kind = getattr(lib, name)
    seed = int(init["seed"]) & (2**64 - 1)
    if init["rng"] == "uniform":
        lo, hi, ilo, span = float(init["lo"]), float(init["hi"]), 0, 0
    else:
        ilo, span = int(init["lo"]), int(init["hi"]) - int(init["lo"])
        if not (0 < span < 2**64 and -2**63 <= ilo < 2**63):
            return False                   # (the numpy path says what is wrong)
        lo = hi = 0.0
    return lib.gs_rng_fill(ffi.from_buffer(out), n, kind, seed, lo, hi, ilo, span) == 0


def _rng_fill_numpy(init: dict, dt: str, n: int, out: bytearray) -> None:
    from engine.cases import _GOLDEN       # the generator's increment: chunk k starts k outputs in
    isz = np.dtype(DTYPES[dt]).itemsize
    seed = int(init["seed"])
    for k in range(0, n, RNG_CHUNK):       # element k + i is the (k + i + 1)-th output from `seed`
        c = min(RNG_CHUNK, n - k)
        chunk = _rng_elements(init, dt, (seed + k * _GOLDEN) & (2**64 - 1), c).tobytes()
        assert len(chunk) == c * isz
        out[k * isz:(k + c) * isz] = chunk


def _rng_elements(init: dict, dt: str, seed: int, count: int) -> np.ndarray:
    from engine.cases import splitmix64  # the one definition of the generator
    z = splitmix64(seed, count)
    if init["rng"] == "uniform":
        u = (z >> np.uint64(40)).astype(np.float64) * 2.0**-24
        v = (float(init["lo"]) + (float(init["hi"]) - float(init["lo"])) * u).astype(np.float32)
        if dt == "f32":
            return v
        if dt == "f16":
            return v.astype(np.float16)
        if dt == "bf16":
            return f32_to_bf16_bits(v)
        raise ValueError(f"uniform needs a float dtype, not {dt}")
    lo, hi = int(init["lo"]), int(init["hi"])   # int: lo + z mod (hi - lo), hi exclusive
    return ((z % np.uint64(hi - lo)).astype(np.int64) + lo).astype(DTYPES[dt])


def f32_to_bf16_bits(v: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, round to nearest even (NaN stays NaN)."""
    u = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(v, np.float32))
    r[nan] = 0x7FC0
    return r


def bf16_bits_to_f32(b: np.ndarray) -> np.ndarray:
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


# ---------------------------------------------------------------------- opening
def open_bundle(path: str | Path, limits: Limits = Limits(), cache: bool = True) -> Bundle:
    """Open a bundle folder (holding manifest.json) or archive; raises BundleError on anything malformed.
    An archive is unpacked once into the disk cache of unpacked archives (unpacked.py) and read from there on
    later opens, unless `cache` is false, the cache is off, or limits.check is set (an upload's check, with its
    deadline: unpacked each time, into a temporary folder removed on close)."""
    src = Path(path)
    if not src.exists():
        raise BundleError(str(src), "no such file or folder")
    if src.is_dir():
        return _from_folder(src, src, None, limits)
    low = src.name.lower()
    if not low.endswith(ARCHIVE_SUFFIXES):
        raise BundleError(str(src), f"not a bundle: expected a folder with manifest.json or one of "
                                    f"{', '.join(ARCHIVE_SUFFIXES)}")
    if cache and limits.check is None and unpacked.enabled():
        try:
            key = unpacked.key_of(src, limits.max_members, limits.max_bytes)
            dest = unpacked.lookup(key) or unpacked.store(key, lambda d: _unpack(src, d, limits))
        except OSError:
            pass                                    # the cache cannot be used here: unpack into a temporary folder
        else:
            return _from_folder(_archive_root(src, dest), src, None, limits)
    tmp = tempfile.TemporaryDirectory(prefix="simtscope-bundle-")
    try:
        dest = Path(tmp.name)
        _unpack(src, dest, limits)
        return _from_folder(_archive_root(src, dest), src, tmp, limits)
    except BaseException:
        tmp.cleanup()
        raise


def _unpack(src: Path, dest: Path, limits: Limits) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    if src.name.lower().endswith(".zip"):
        _unzip(src, dest, limits)
    else:
        _untar(src, dest, limits)


def _archive_root(src: Path, dest: Path) -> Path:
    """the folder of an unpacked archive that holds manifest.json: its top, or its one folder"""
    if (dest / "manifest.json").is_file():
        return dest
    tops = list(dest.iterdir())
    if len(tops) == 1 and tops[0].is_dir() and (tops[0] / "manifest.json").is_file():
        return tops[0]
    raise BundleError(str(src), "the archive must hold one folder with manifest.json at its root")


def _from_folder(root: Path, src: Path, tmp, limits: Limits) -> Bundle:
    mpath = root / "manifest.json"
    if not mpath.is_file():
        raise BundleError(str(src), "no manifest.json in the bundle's folder")
    if mpath.stat().st_size > limits.max_manifest_bytes:
        raise BundleError(f"{src}:manifest.json", f"larger than {limits.max_manifest_bytes} bytes")
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise BundleError(f"{src}:manifest.json", f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise BundleError(f"{src}:manifest.json", f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") \
            from None
    except RecursionError:
        raise BundleError(f"{src}:manifest.json", "nested too deeply") from None
    if not isinstance(manifest, dict):
        raise BundleError(f"{src}:manifest.json", "the manifest must be a JSON object")
    fmt = manifest.get("format")
    if fmt != FORMAT:
        raise BundleError(f"{src}:manifest.json", f"format {fmt!r} is not {FORMAT!r}")
    return Bundle(root, manifest, src, tmp)


def _safe_member(name: str, where: str) -> PurePosixPath:
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or name.startswith(("/", "\\")) or "\\" in name or ":" in name:
        raise BundleError(where, f"archive member {name!r} has an absolute or parent path")
    return p


def _unzip(src: Path, dest: Path, limits: Limits) -> None:
    try:
        zf = zipfile.ZipFile(src)
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, ValueError, EOFError, NotImplementedError) as e:
        raise BundleError(str(src), f"not a readable zip archive ({e})") from None   # (NotImplementedError:
                                                                                   # "zip file version 17.3")
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            raise BundleError(str(src), f"{len(infos)} members, more than the limit of {limits.max_members}")
        total = sum(i.file_size for i in infos)
        if total > limits.max_bytes:
            raise BundleError(str(src), f"unpacks to {total} bytes, more than the limit of {limits.max_bytes}")
        for info in infos:
            limits.tick()
            rel = _safe_member(info.filename, str(src))
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise BundleError(str(src), f"archive member {info.filename!r} is a link")
            target = dest.joinpath(*rel.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written = 0
            try:
                with zf.open(info) as fin, open(target, "wb") as fout:
                    while chunk := fin.read(1 << 20):
                        written += len(chunk)
                        if written > info.file_size:     # a member that lies about its size
                            raise BundleError(str(src), f"member {info.filename!r} is larger than it says")
                        fout.write(chunk)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError) as e:
                raise BundleError(str(src), f"member {info.filename!r} cannot be read ({e})") from None


def _untar(src: Path, dest: Path, limits: Limits) -> None:
    try:
        tf = tarfile.open(src, "r:*")
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        # (tarfile's own message lists every compression it tried, one line each: the first line says it)
        why = str(e).splitlines()[0].rstrip(":") if str(e) else type(e).__name__
        raise BundleError(str(src), f"not a readable tar archive ({why}; a bundle is a .tar.xz, a .zip or a "
                                    "folder)") from None
    with tf:
        n, total = 0, 0
        try:
            for m in tf:
                limits.tick()
                n += 1
                if n > limits.max_members:
                    raise BundleError(str(src), f"more than the limit of {limits.max_members} members")
                rel = _safe_member(m.name, str(src))
                if m.isdir():
                    dest.joinpath(*rel.parts).mkdir(parents=True, exist_ok=True)
                    continue
                if not m.isfile():
                    raise BundleError(str(src), f"archive member {m.name!r} is not a plain file or folder")
                total += m.size
                if total > limits.max_bytes:
                    raise BundleError(str(src), f"unpacks to more than the limit of {limits.max_bytes} bytes")
                target = dest.joinpath(*rel.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                fin = tf.extractfile(m)
                with open(target, "wb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)
                if target.stat().st_size != m.size:
                    raise BundleError(str(src), f"member {m.name!r} is truncated")
        except (tarfile.TarError, EOFError, OSError, ValueError, lzma.LZMAError, zlib.error) as e:
            if isinstance(e, BundleError):
                raise
            raise BundleError(str(src), f"archive is truncated or corrupt ({type(e).__name__}: {e})") from None


# ---------------------------------------------------------------------- checking
def _int(v, where: str, lo: int = 0, hi: int = 2**63 - 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BundleError(where, f"expected an integer, got {type(v).__name__} {v!r}"[:200])
    if not lo <= v <= hi:
        raise BundleError(where, f"{v} is outside {lo}..{hi}")
    return v


def _str(v, where: str) -> str:
    if not isinstance(v, str) or not v:
        raise BundleError(where, f"expected a non-empty string, got {v!r}"[:200])
    return v


def _obj(v, where: str) -> dict:
    if not isinstance(v, dict):
        raise BundleError(where, f"expected an object, got {type(v).__name__}")
    return v


def _list(v, where: str) -> list:
    if not isinstance(v, list):
        raise BundleError(where, f"expected a list, got {type(v).__name__}")
    return v


def _number(v, where: str, positive: bool = False) -> float:
    """A finite number >= 0 (> 0 when positive)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or not -1 < v < 1e18 or v < 0 \
            or (positive and v == 0):
        raise BundleError(where, f"expected a finite number {'> 0' if positive else '>= 0'}, got {v!r}"[:200])
    return float(v)


def _label(v) -> str | None:
    """An optional label for people: a string (shortened to 200 characters) or None."""
    return v[:200] if isinstance(v, str) and v else None


def _dim3(v, where: str) -> tuple[int, int, int]:
    v = _list(v, where)
    if not 1 <= len(v) <= 3:
        raise BundleError(where, f"expected 1 to 3 integers, got {len(v)}")
    t = [_int(x, f"{where}[{i}]", 1, MAX_DIM[i]) for i, x in enumerate(v)]
    return tuple(t + [1] * (3 - len(t)))


def _file(b: Bundle, rel, where: str) -> Path:
    rel = _str(rel, where)
    if len(rel) > 1024 or "\0" in rel:
        raise BundleError(where, f"path {rel[:80]!r}... is not a file name (at most 1024 characters, no NUL)")
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts:
        raise BundleError(where, f"path {rel!r} leaves the bundle")
    full = b.root.joinpath(*p.parts)
    try:
        ok = full.is_file()
    except OSError as e:
        raise BundleError(where, f"path {rel[:80]!r} cannot be looked up ({e.strerror})") from None
    if not ok:
        raise BundleError(where, f"file {rel!r} is missing from the bundle")
    return full


def _check(b: Bundle) -> None:
    m, src = b.manifest, str(b.source)
    name = m.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 200:
        raise BundleError(f"{src}: name", f"{name!r} is not a name of [A-Za-z0-9_.-]+ (at most 200)"[:300])
    b.name = name
    for i, raw in enumerate(_list(m.get("buffers"), f"{src}: buffers")):
        w = f"{src}: buffers[{i}]"
        raw = _obj(raw, w)
        bid = _str(raw.get("id"), f"{w}.id")
        if not ID_RE.match(bid):
            raise BundleError(f"{w}.id", f"{bid!r} is not an id of [A-Za-z0-9_.-]{{1,64}}")
        if bid in b.buffers:
            raise BundleError(f"{w}.id", f"duplicate buffer id {bid!r}")
        nbytes = _int(raw.get("bytes"), f"{w}.bytes", 0, 1 << 40)
        init = raw.get("init")
        if init is not None:
            init = _obj(init, f"{w}.init")
            if "file" in init:
                f = _file(b, init["file"], f"{w}.init.file")
                size = f.stat().st_size
                if size != nbytes:
                    raise BundleError(f"{w}.init.file", f"{init['file']} holds {size} bytes, the buffer has {nbytes}")
            elif "fill" in init:
                if not isinstance(init["fill"], str) or init["fill"] != "zeros":
                    raise BundleError(f"{w}.init.fill", f"unknown fill {init['fill']!r} (zeros)")
            elif "rng" in init:
                if not isinstance(init["rng"], str) or init["rng"] not in ("uniform", "int"):
                    raise BundleError(f"{w}.init.rng", f"unknown generator {init['rng']!r} (uniform, int)")
                if not isinstance(init.get("dtype"), str) or init.get("dtype") not in RNG_DTYPES:
                    raise BundleError(f"{w}.init.dtype", f"{init.get('dtype')!r} is not one of {sorted(RNG_DTYPES)}")
                if init["rng"] == "uniform" and init["dtype"] not in ("f32", "f16", "bf16"):
                    raise BundleError(f"{w}.init.dtype", "uniform needs f32, f16 or bf16")
                _int(init.get("seed"), f"{w}.init.seed", 0, 2**64 - 1)
                for k in ("lo", "hi"):
                    v = init.get(k)
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or abs(v) > 1e300:
                        raise BundleError(f"{w}.init.{k}", f"expected a finite number, got {v!r}")
                if init["rng"] == "int" and not (isinstance(init["lo"], int) and isinstance(init["hi"], int)
                                                 and init["hi"] > init["lo"]):
                    raise BundleError(f"{w}.init", "int needs integers lo < hi")
                if init["rng"] == "int":
                    least, most = INT_RNG_RANGE.get(init["dtype"], INT_RNG_RANGE_FLOAT)
                    if init["lo"] < least or init["hi"] - 1 > most:      # hi is exclusive
                        raise BundleError(f"{w}.init", f"int values lo .. hi - 1 = {init['lo']} .. {init['hi'] - 1} do "
                                                       f"not fit {init['dtype']} ({least} .. {most})")
            else:
                raise BundleError(f"{w}.init", "expected one of file, fill, rng")
        b.buffers[bid] = Buffer(bid, nbytes, init, _label(raw.get("name")), _label(raw.get("role")))

    hw_launches = []
    if b.hardware:
        _obj(b.hardware, f"{src}: hardware")
        hw_launches = _list(b.hardware.get("launches", []), f"{src}: hardware.launches")
    launches = _list(m.get("launches"), f"{src}: launches")
    if hw_launches and len(hw_launches) != len(launches):
        raise BundleError(f"{src}: hardware.launches", f"{len(hw_launches)} entries for {len(launches)} launches")
    for i, raw in enumerate(launches):
        w = f"{src}: launches[{i}]"
        raw = _obj(raw, w)
        kernel = _str(raw.get("kernel"), f"{w}.kernel")
        opaque = bool(raw.get("opaque", False))
        ptx = raw.get("ptx")
        if not opaque:
            _file(b, ptx, f"{w}.ptx")
        args = []
        for j, a in enumerate(_list(raw.get("args", []), f"{w}.args")):
            aw = f"{w}.args[{j}]"
            a = _obj(a, aw)
            if "buffer" in a:
                bid = a["buffer"]
                if not isinstance(bid, str) or bid not in b.buffers:
                    raise BundleError(f"{aw}.buffer", f"no buffer with id {bid!r}")
                off = _int(a.get("offset", 0), f"{aw}.offset", 0, 1 << 40)
                if off > b.buffers[bid].bytes:
                    raise BundleError(f"{aw}.offset", f"offset {off} is outside buffer {bid} "
                                                      f"({b.buffers[bid].bytes} bytes)")
                args.append(Arg("buffer", buffer=bid, offset=off))
            elif "value" in a:
                t = a.get("type")
                if not isinstance(t, str) or t not in SCALAR_TYPES:
                    raise BundleError(f"{aw}.type", f"{t!r} is not a PTX scalar type ({', '.join(sorted(SCALAR_TYPES))})")
                v = a["value"]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise BundleError(f"{aw}.value", f"expected a number, got {v!r}"[:200])
                if t[0] in "usb" and not isinstance(v, int):
                    raise BundleError(f"{aw}.value", f"{v!r} is not an integer for type {t}")
                args.append(Arg("value", value=v, type=t))
            elif "scratch_bytes_per_cta" in a:
                args.append(Arg("scratch", scratch_bytes_per_cta=_int(a["scratch_bytes_per_cta"],
                                                                      f"{aw}.scratch_bytes_per_cta", 0, 1 << 30)))
            else:
                raise BundleError(aw, "expected one of buffer, value, scratch_bytes_per_cta")
        hw = _obj(hw_launches[i], f"{src}: hardware.launches[{i}]") if hw_launches else {}
        cycles = hw.get("cycles") or []
        if not isinstance(cycles, list) or any(isinstance(c, bool) or not isinstance(c, (int, float)) or c <= 0
                                               for c in cycles):
            raise BundleError(f"{src}: hardware.launches[{i}].cycles", "expected a list of positive numbers")
        gap = {k: _number(hw[k], f"{src}: hardware.launches[{i}].{k}") for k in ("gap_ns", "start_ns")
               if hw.get(k) is not None}
        measured = {}
        if raw.get("measured") is not None:
            if not opaque:
                raise BundleError(f"{w}.measured", "only an opaque launch carries its own measurement")
            mraw = _obj(raw["measured"], f"{w}.measured")
            measured = {k: _number(mraw[k], f"{w}.measured.{k}", positive=True) for k in ("ns", "cycles", "clock_mhz")
                        if mraw.get(k) is not None}
            if isinstance(mraw.get("tool"), str):
                measured["tool"] = mraw["tool"][:300]
        if opaque and not cycles and measured.get("cycles"):
            cycles = [measured["cycles"]]           # its own measurement stands in for hardware.launches[i]
        b.launches.append(Launch(
            index=i, kernel=kernel, ptx=ptx if not opaque else (ptx or ""),
            grid=_dim3(raw.get("grid"), f"{w}.grid"), block=_dim3(raw.get("block"), f"{w}.block"),
            shared_bytes=_int(raw.get("shared_bytes", 0), f"{w}.shared_bytes", 0, 1 << 24),
            args=args, name=_label(raw.get("name")) or kernel, op=_label(raw.get("op")), module=_label(raw.get("module")),
            opaque=opaque, hw_cycles=[float(c) for c in cycles], hw=hw, measured=measured,
            gap_ns=gap.get("gap_ns"), start_ns=gap.get("start_ns")))
        threads = b.launches[-1].block[0] * b.launches[-1].block[1] * b.launches[-1].block[2]
        if threads > 1024:
            raise BundleError(f"{w}.block", f"{threads} threads per block, more than 1024")

    for i, raw in enumerate(_list(m.get("outputs", []), f"{src}: outputs")):
        w = f"{src}: outputs[{i}]"
        raw = _obj(raw, w)
        bid = raw.get("buffer")
        if not isinstance(bid, str) or bid not in b.buffers:
            raise BundleError(f"{w}.buffer", f"no buffer with id {bid!r}"[:300])
        dt = raw.get("dtype")
        if not isinstance(dt, str) or dt not in DTYPES:
            raise BundleError(f"{w}.dtype", f"{dt!r} is not one of {', '.join(DTYPES)}")
        shape = tuple(_int(x, f"{w}.shape", 0, 1 << 40) for x in _list(raw.get("shape"), f"{w}.shape"))
        stride = raw.get("stride")
        if stride is None:
            stride = tuple(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
        else:
            stride = tuple(_int(x, f"{w}.stride", 0, 1 << 40) for x in _list(stride, f"{w}.stride"))
        if len(stride) != len(shape):
            raise BundleError(f"{w}.stride", f"{len(stride)} strides for {len(shape)} dimensions")
        tol = raw.get("tol", 0)
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 <= tol < 1e30:
            raise BundleError(f"{w}.tol", f"expected a number >= 0, got {tol!r}")
        out = Output(bid, _int(raw.get("offset", 0), f"{w}.offset", 0, 1 << 40), dt, shape, stride,
                     str(raw.get("expect")), float(tol))
        if out.offset + out.extent_bytes > b.buffers[bid].bytes:
            raise BundleError(w, f"the view ends at byte {out.offset + out.extent_bytes}, past buffer {bid} "
                                 f"({b.buffers[bid].bytes} bytes)")
        f = _file(b, raw.get("expect"), f"{w}.expect")
        if f.stat().st_size != out.extent_bytes:
            raise BundleError(f"{w}.expect", f"{out.expect} holds {f.stat().st_size} bytes, the view needs "
                                             f"{out.extent_bytes}")
        b.outputs.append(out)
