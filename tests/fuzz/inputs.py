"""Input sources of the fuzz targets: each gives inputs (next() -> (origin, input)), the function a child
runs on one (run), the exceptions that count as a clean refusal (expected), and how to save an input as
a reproducer (dump, suffix)."""
from __future__ import annotations

import json
import random

from . import ptx_gen, targets


class PTXSource:
    """Half grammar-generated kernels, half mutants of the repository's PTX (files up to 24 KB)."""
    suffix = ".ptx"

    def __init__(self, rng: random.Random):
        import engine.device  # noqa: F401  (imported once here, not in every forked child)
        import engine.timing  # noqa: F401
        self.rng = rng
        self.gen = ptx_gen.Gen(rng)
        self.mut = ptx_gen.Mutator(rng, ptx_gen.corpus())

    def next(self):
        if self.rng.random() < 0.5:
            return "grammar", self.gen.kernel()
        name, text = self.mut.next()
        return f"mutant of {name}", text

    @staticmethod
    def run(text):
        return targets.ptx(text, "fuzz.ptx")

    @staticmethod
    def expected():
        from engine import errors
        return (errors.PTXError, errors.SimError)

    @staticmethod
    def dump(x) -> bytes:
        return x.encode("utf-8", "surrogateescape")


VALUES = [0, 1, -1, 32, 1024, 1025, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63, 2**64, -2**63, 1.5, 0.0, None, True,
          "1", b"\x00", [], [1], (1, 1), (1, 2, 3, 4), (0, 1), float("nan"), float("inf")]


class LaunchSource:
    """Device.launch / TimingSim calls with each argument drawn from valid and hostile values."""
    suffix = ".json"

    def __init__(self, rng: random.Random):
        import engine.timing  # noqa: F401
        self.rng = rng

    def next(self):
        r = self.rng
        spec = {"timing": r.random() < 0.4}
        for k in ("grid", "block", "shared", "max_warp_insts", "chunk", "max_cycles", "chunk_cycles", "record_sms",
                  "args"):
            if r.random() < 0.35:
                v = r.choice(VALUES)
                if k == "record_sms":
                    v = r.choice([None, [0], [-1], [131], [132], [2**40], "0", [0.5], [], [0, 0]])
                if k == "args":
                    v = r.choice([None, [], [0, 0], [1 << 64, 1], ["x", 1], [b"12345678", 1], [0, -1], [0, 2**32]])
                spec[k] = v
        if spec.get("args") is None and "args" in spec:
            pass
        return "random", spec

    @staticmethod
    def run(spec):
        return targets.launch_call(spec)

    @staticmethod
    def expected():
        from engine import errors
        return (errors.LaunchError, errors.KernelFault)

    @staticmethod
    def dump(x) -> bytes:
        return json.dumps(x, default=repr).encode()


TARGETS = {"ptx": PTXSource, "launch": LaunchSource}


# ------------------------------------------------------------------ gpu-workload/1 manifests

HOSTILE_JSON = [None, True, 0, -1, 1, 2**31, 2**32, 2**63, 2**64, -2**63, 1e308, -0.0, 1.5, "", "x" * 5000,
                "../../etc/passwd", "/etc/passwd", "b0", "ptx/../manifest.json", "C:\\x", [], [1], [1, 2, 3, 4],
                {}, {"file": "../x"}, {"fill": "zeros"}, {"rng": "uniform", "dtype": "f32", "seed": 1, "lo": 0,
                "hi": 1}, {"rng": "int", "dtype": "i32", "seed": -1, "lo": 5, "hi": 5}, [[[[[[[[[[[]]]]]]]]]]]]


def _pick(rng: random.Random, root, paths: list):
    """One of `paths` (key tuples into `root`) at random: (the path, its parent container, its last key)."""
    p = rng.choice(paths)
    parent = root
    for k in p[:-1]:
        parent = parent[k]
    return p, parent, p[-1]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


class WorkloadSource:
    """Mutants of an example bundle's manifest.json (values swapped for hostile ones, keys deleted or added,
    list elements duplicated, raw text damaged); the bundle's other files are kept. A child opens the
    bundle, reads every buffer's initial bytes and every launch's PTX text."""
    suffix = ".json"

    def __init__(self, rng: random.Random):
        import os
        import tarfile
        import tempfile
        from pathlib import Path
        import engine.workload.bundle  # noqa: F401
        self.rng = rng
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self._tmp = tempfile.TemporaryDirectory(prefix="fuzz-bundle-", dir=shm)
        src = ptx_gen.ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz"
        with tarfile.open(src) as tf:
            tf.extractall(self._tmp.name, filter="data")
        self.base = next(Path(self._tmp.name).iterdir())
        self.manifest = json.loads((self.base / "manifest.json").read_text())
        WorkloadSource._base = self.base

    def next(self):
        import copy
        r = self.rng
        m = copy.deepcopy(self.manifest)
        for _ in range(r.choice([1, 1, 2, 3, 6])):
            paths = [p for p in _paths(m) if p]
            if not paths:
                break
            _, parent, k = _pick(r, m, paths)
            a = r.random()
            if a < 0.6:
                parent[k] = copy.deepcopy(r.choice(HOSTILE_JSON))
            elif a < 0.75:
                if isinstance(parent, dict):
                    del parent[k]
                else:
                    parent.pop(k)
            elif a < 0.85 and isinstance(parent, list):
                parent.extend(copy.deepcopy(parent[k]) for _ in range(r.choice([1, 5, 200])))
            elif isinstance(parent, dict):
                parent[r.choice(["extra", "bytes", "offset", "grid", "file", "value", "type"])] = \
                    copy.deepcopy(r.choice(HOSTILE_JSON))
        text = json.dumps(m)
        if r.random() < 0.1:
            cut = r.randrange(len(text))
            text = text[:cut] + r.choice(["", "\x00", "\udcff", "{" * 3000, "\"", "]"]) + text[cut + 1:]
        return "mutant of example_mlp_b64_fp32", text

    @staticmethod
    def run(text):
        """Opens the bundle folder with this manifest.json (the folder is the parent's extracted copy: reading
        a bundle writes nothing into it, and children run one at a time)."""
        from engine.workload.bundle import open_bundle
        root = WorkloadSource._base
        (root / "manifest.json").write_text(text, errors="surrogateescape")
        with open_bundle(root) as b:
            n = 0
            for bid in b.buffers:
                data = b.buffer_bytes(bid)
                n += len(data or b"")
            for L in b.launches:
                b.ptx_text(L.ptx)
            return f"{len(b.launches)} launches, {n} buffer bytes"

    @staticmethod
    def expected():
        from engine.workload.bundle import BundleError
        return (BundleError,)

    @staticmethod
    def dump(x) -> bytes:
        return x.encode("utf-8", "surrogateescape")


TARGETS["workload"] = WorkloadSource


# ------------------------------------------------------------------ run-file imports


class RunFileSource:
    """Damaged copies of a small recorded run file (SQLite): byte flips, truncation, zeroed pages, rows of
    its tables rewritten with hostile values. A child imports it into a fresh catalogue as the server's
    import does, then reads its meta, its tables and a heat window."""
    suffix = ".simtrun"

    def __init__(self, rng: random.Random):
        import os
        import tempfile
        from pathlib import Path
        from tests.fixtures.synthetic_recording import SyntheticSim
        from webapp.store import RunWriter
        self.rng = rng
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self._tmp = tempfile.TemporaryDirectory(prefix="fuzz-run-", dir=shm)
        RunFileSource.store_dir = Path(self._tmp.name)
        p = Path(self._tmp.name) / "seed.simtrun"
        SyntheticSim(num_sms=2, slots=8, ctas=6, seed=5).run(RunWriter(p, {"name": "seed"}))
        self.seed = p.read_bytes()
        self.sql_seeds = self._sql_mutants(p)
        self.work = Path(self._tmp.name)

    def _sql_mutants(self, p):
        """Copies with table cells replaced through SQLite itself (valid files with hostile contents)."""
        import shutil
        import sqlite3
        out = []
        con = sqlite3.connect(p)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        cols = {t: [r[1] for r in con.execute(f"PRAGMA table_info({t})")] for t in tables}
        con.close()
        for t in tables:
            for c in cols[t]:
                for v in (None, -1, 2**63 - 1, "x" * 3000, b"\xff" * 7, 1e308, "{\"a\": [[[[]]]]}"):
                    q = p.with_name(f"m{len(out)}.simtrun")
                    shutil.copyfile(p, q)
                    con = sqlite3.connect(q)
                    try:
                        con.execute(f"UPDATE {t} SET {c} = ?", (v,))
                        con.commit()
                    except sqlite3.Error:
                        pass
                    con.close()
                    out.append(q.read_bytes())
                    q.unlink()
        return out

    def next(self):
        r = self.rng
        m = r.random()
        if m < 0.25:
            return "sql-mutant", r.choice(self.sql_seeds)
        if m < 0.5:
            return "meta-mutant", self._edit(self._meta_edit)
        if m < 0.7:
            return "chunk-mutant", self._edit(self._chunk_edit)
        b = bytearray(r.choice([self.seed] + self.sql_seeds[:5]))
        m = r.random()
        if m < 0.4:
            for _ in range(r.choice([1, 4, 32])):
                b[r.randrange(len(b))] = r.randrange(256)
        elif m < 0.6:
            b = b[:r.randrange(len(b))]
        elif m < 0.8:
            page = 4096 * r.randrange(max(1, len(b) // 4096))
            b[page:page + 4096] = bytes(min(4096, len(b) - page))
        else:
            b = bytearray(r.randbytes(r.choice([0, 100, 5000])))
        return "bytes", bytes(b)

    def _edit(self, fn) -> bytes:
        """The seed file with one edit made through SQLite (a valid database with hostile contents)."""
        import sqlite3
        q = self.work / "edit.simtrun"
        q.write_bytes(self.seed)
        con = sqlite3.connect(q)
        try:
            fn(con)
            con.commit()
        except sqlite3.Error:
            pass
        con.close()
        return q.read_bytes()

    def _meta_edit(self, con) -> None:
        """A meta value's JSON with values swapped for hostile ones (as the manifest fuzzer does), keys
        deleted or added; or the raw text replaced."""
        import copy
        r = self.rng
        key, text = r.choice(con.execute("SELECT key, value FROM meta").fetchall())
        v = json.loads(text)
        if r.random() < 0.1:
            con.execute("UPDATE meta SET value=? WHERE key=?", (r.choice(["", "{", "NaN", "[" * 5000, "1e999",
                                                                          b"\xff\xfe"]), key))
            return
        box = [v]
        for _ in range(r.choice([1, 1, 2, 4])):
            paths = list(_paths(box))[1:]
            path = r.choice(paths)
            parent = box
            for k in path[:-1]:
                parent = parent[k]
            k = path[-1]
            a = r.random()
            if a < 0.65:
                parent[k] = copy.deepcopy(r.choice(HOSTILE_JSON))
            elif a < 0.85 and (isinstance(parent, dict) or len(parent) > 1):
                del parent[k]
            elif isinstance(parent, dict):
                parent[r.choice(["schema", "record_sms", "num_sms", "kind", "status", "x"])] = \
                    copy.deepcopy(r.choice(HOSTILE_JSON))
        if r.random() < 0.1:
            key = r.choice(["recording", "kind", "workload", "check", "stats", "info", "zz"])
        con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, json.dumps(box[0])))

    def _chunk_edit(self, con) -> None:
        """One chunk row: a column set to a hostile value, or its data re-packed with damaged values."""
        import zstandard
        r = self.rng
        cid, tbl, n, data = r.choice(con.execute("SELECT id, tbl, n, data FROM chunks").fetchall())
        if r.random() < 0.5:
            col = r.choice(["tbl", "level", "key", "lo", "hi", "n", "data", "extra"])
            v = r.choice([None, -1, 0, 1, 7, 2**40, 2**63 - 1, n + 1, n - 1, "ws", "raw:warp_states", "slot",
                          "raw:nope", b"", b"\x00" * 8, zstandard.compress(b"\xff" * 64)])
            con.execute(f"UPDATE chunks SET {col}=? WHERE id=?", (v, cid))
            return
        raw = bytearray(zstandard.ZstdDecompressor().decompress(data, max_output_size=1 << 26))
        for _ in range(r.choice([1, 3, 20])):
            if raw:
                raw[r.randrange(len(raw))] = r.choice([0, 1, 0x7f, 0x80, 0xfe, 0xff])
        con.execute("UPDATE chunks SET data=? WHERE id=?", (zstandard.compress(bytes(raw)), cid))

    @staticmethod
    def run(data: bytes):
        """Import as the server does; an imported run must then answer what the explorer asks of it (meta,
        windows of every track at three resolutions, a snapshot) without an exception."""
        from webapp import frames
        from webapp.store import RunReader
        cat, d = _catalogue()
        src = d / "in.simtrun"
        src.write_bytes(data)
        try:
            run = cat.import_run(src, imported=True)
        except ValueError as e:
            if str(e).startswith("cannot import"):
                return f"refused: {str(e)[:200]}"
            raise
        r = RunReader(cat.run_path(run["id"]))
        try:
            frames.meta_fields(r, run)
            end = max(1, r.end_cycle)
            sms = r.rec.get("record_sms") or [0]
            for a, b, res in ((0, end, max(1, end // 512)), (0, min(end, 300), 1), (end // 3, end, 64)):
                q = frames.parse_window({"run": run["id"], "a": a, "b": max(b, a + 1), "res": res,
                                         "heat_sm": sms[0], "pcs": [0, 1, 2]})
                frames.window_groups(r, q)
            try:
                frames.snapshot_groups(r, end // 2, sms[-1])
            except LookupError:          # no recording at that cycle: the socket answers an error frame
                pass
            return f"imported {run['status']}"
        finally:
            r.close()
            cat.delete_run(run["id"])

    @staticmethod
    def expected():
        from engine import errors
        return (errors.SimError,)

    @staticmethod
    def dump(x) -> bytes:
        return x


TARGETS["runfile"] = RunFileSource

_CAT = []


def _catalogue():
    """One store per child process, reused by its inputs (each imported run is deleted after use), in a
    folder the parent made (in /dev/shm when there is one) and removes at the end."""
    import os
    from webapp.store.catalogue import Catalogue
    if not _CAT or _CAT[0][2] != os.getpid():
        d = RunFileSource.store_dir
        _CAT[:] = [(Catalogue(d / "store"), d, os.getpid())]
    return _CAT[0][0], _CAT[0][1]


# ------------------------------------------------------------------ Accel-Sim traces

TRACE_TOKENS = ["0", "-1", "ffffffff", "fffffffff", "100000000", "18446744073709551616", "99999999999999999999",
                "R255", "R256", "R999999", "UR63", "UR64", "P7", "0x", "0xzz", "(1,1,1)", "(0,0,0)", "(65536,1,1)",
                "(2147483647,65535,65535)", "(1024,2,1)", "(-1,1,1)", "(1,1)", "LDG.E.128", "STS.64", "BAR.SYNC",
                "EXIT", "BRA", "ATOMG.E.ADD", "NOSUCHOP", "", "=", "#BEGIN_TB", "#END_TB", "warp = 99",
                "insts = 100000000", "thread block = 99999,0,0", "1e9", "0x7f2b2d500000", "4", "32", "3", "2", "\x00"]


class TraceSource:
    """Mutants of Accel-Sim trace directories (the fixtures' kernel traces and synthetic ones from
    tests/trace_gen.py): tokens swapped for hostile ones, header values changed, lines deleted, duplicated
    or swapped, the file cut short, bytes flipped, kernelslist.g lines damaged, a kernel file compressed
    (or garbage with a compressed name). A child reads the directory and runs it in the timing model."""
    suffix = ".json"

    def __init__(self, rng: random.Random):
        import lzma
        import os
        import tempfile
        from pathlib import Path
        from tests import trace_gen as tg
        import engine.traces.run  # noqa: F401
        self.rng = rng
        fix = ptx_gen.ROOT / "tests" / "fixtures" / "traces"
        self.seeds = [(fix / "vectoradd-100-32" / "kernel-1.traceg").read_text(),
                      lzma.decompress((fix / "matrixmul-32-32" / "kernel-1.traceg.xz").read_bytes()).decode()]
        for version, mode in ((3, 0), (4, 1), (5, 2)):     # synthetic kernels: every tracer version and address mode
            self.seeds.append(tg.header(block=(64, 1, 1), version=version)
                              + tg.block_text((0, 0, 0), tg.vector_kernel(2, mode=mode, version=version)))
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self._tmp = tempfile.TemporaryDirectory(prefix="fuzz-trace-", dir=shm)
        TraceSource.work = Path(self._tmp.name)

    def next(self):
        r = self.rng
        lines = r.choice(self.seeds).split("\n")
        for _ in range(r.choice([1, 1, 2, 3, 6])):
            i = r.randrange(len(lines))
            m = r.random()
            if m < 0.5:
                toks = lines[i].split(" ")
                toks[r.randrange(len(toks))] = r.choice(TRACE_TOKENS)
                lines[i] = " ".join(toks)
            elif m < 0.6 and lines[i].startswith("-"):
                k = lines[i].split("=")[0]
                lines[i] = f"{k}= {r.choice(TRACE_TOKENS)}"
            elif m < 0.7:
                del lines[i]
            elif m < 0.8:
                lines[i:i] = [lines[i]] * r.choice([1, 2, 50])
            elif m < 0.9:
                j = r.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines = lines[:i]
            if not lines:
                lines = [""]
        text = "\n".join(lines)
        if r.random() < 0.05:
            b = bytearray(text.encode())
            for _ in range(r.choice([1, 8])):
                if b:
                    b[r.randrange(len(b))] = r.randrange(256)
            text = b.decode("utf-8", "surrogateescape")
        kl = ["MemcpyHtoD,0x00007f2b2d500000,400", "kernel-1.traceg"]
        if r.random() < 0.2:
            kl[r.randrange(2)] = r.choice(["MemcpyHtoD,0x7fffffffffffffff,281474976710655", "MemcpyHtoD,0x0,0",
                                           "MemcpyHtoD,zz,1", "MemcpyDtoH,0x0,4", "../kernel-1.traceg", "nope.traceg",
                                           "kernel-1", "MemcpyHtoD,0xffffffffffffffff,1", "kernel-1.traceg.xz",
                                           "MemcpyHtoD,0x00007f2b2d500000,40000000"])
        comp = r.choice(["", "", "", "", ".xz", ".gz", ".zst", ".xz-garbage"])
        return f"trace ({comp or 'plain'})", {"kernel": text, "kernelslist": "\n".join(kl) + "\n", "comp": comp}

    @staticmethod
    def run(x):
        return targets.trace_dir(x, TraceSource.work)

    @staticmethod
    def expected():
        from engine import errors
        return (errors.SimError, errors.PTXError)

    @staticmethod
    def dump(x) -> bytes:
        return json.dumps(x).encode("utf-8", "surrogateescape")


TARGETS["trace"] = TraceSource


# ------------------------------------------------------------------ upload endpoints

UPLOAD_CASE = {"name": "tiny_saxpy", "kernel": "saxpy", "grid": [8], "block": [128],
               "args": [{"kind": "scalar", "dtype": "u32", "value": 1024}, {"kind": "scalar", "dtype": "f32", "value": 2.0},
                        {"kind": "buffer", "dtype": "f32", "count": 1024, "init": "random_uniform", "lo": -1, "hi": 1,
                         "seed": 3},
                        {"kind": "buffer", "dtype": "f32", "count": 1024, "init": "zeros", "output": True}]}
ZIP_NAMES = ["k.ptx", "a/b/k.ptx", "../k.ptx", "/etc/k.ptx", "cases.json", "a/cases.json", "x.cu", "notes.txt",
             "kernelslist.g", "kernel-1.traceg", "t/kernelslist.g", "t/kernel-1.traceg", "dir/", "k.exe", "C:\\k.ptx",
             "a" * 300 + ".ptx", "manifest.json", "b/manifest.json", "b/ptx/k.ptx", "b/data/x.bin"]


class UploadSource:
    """Requests to the server's upload endpoints (Flask test client, one app per child): POST /api/uploads
    with PTX and a launch description (each mutated), with a zip (members named and damaged in hostile
    ways, traces inside), POST /api/bundles with bundle archives (mutated manifest, damaged bytes, hostile
    member names), POST /api/runs/import with damaged run files. A 5xx answer or an exception out of the
    app is a finding; 2xx and 4xx answers are fine."""
    suffix = ".json"

    def __init__(self, rng: random.Random):
        import os
        import tempfile
        from pathlib import Path
        import webapp  # noqa: F401
        self.rng = rng
        self.ptx = PTXSource(rng)
        self.wl = WorkloadSource(rng)
        self.tr = TraceSource(rng)
        self.rf = RunFileSource(rng)
        self.good_ptx = (ptx_gen.ROOT / "validation" / "ptx" / "vector.sm90.ptx").read_text()
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self._tmp = tempfile.TemporaryDirectory(prefix="fuzz-up-", dir=shm)
        UploadSource.work = Path(self._tmp.name)

    def _launch(self) -> str:
        import copy
        r = self.rng
        case = copy.deepcopy(UPLOAD_CASE)
        if r.random() < 0.2:
            case = {"format": "gpu-validation-suite/1", "cases": [dict(case, ptx="k.ptx")]}
        for _ in range(r.choice([0, 1, 1, 2, 4])):
            paths = [p for p in _paths(case) if p]
            if not paths:                    # every key deleted already
                break
            p = r.choice(paths)
            parent = case
            for k in p[:-1]:
                parent = parent[k]
            if r.random() < 0.8:
                parent[p[-1]] = copy.deepcopy(r.choice(HOSTILE_JSON))
            elif isinstance(parent, dict):
                del parent[p[-1]]
        text = json.dumps(case)
        if r.random() < 0.05:
            text = text[:r.randrange(len(text) + 1)]
        return text

    def _zip(self, members: dict) -> bytes:
        import io
        import zipfile
        r = self.rng
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", r.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as z:
            for name, data in members.items():
                z.writestr(name, data)
        b = bytearray(buf.getvalue())
        if r.random() < 0.15:
            for _ in range(r.choice([1, 4, 16])):
                b[r.randrange(len(b))] = r.randrange(256)
        elif r.random() < 0.05:
            b = b[:r.randrange(len(b))]
        return bytes(b)

    def _tar_xz(self, members: dict) -> bytes:
        import io
        import tarfile
        r = self.rng
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:xz", preset=0) as t:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                if r.random() < 0.02:
                    info.type = r.choice([tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE])
                    info.linkname = "../../etc/passwd"
                t.addfile(info, io.BytesIO(data))
        b = bytearray(buf.getvalue())
        if r.random() < 0.2:
            for _ in range(r.choice([1, 4, 16])):
                b[r.randrange(len(b))] = r.randrange(256)
        elif r.random() < 0.05:
            b = b[:r.randrange(len(b))]
        return bytes(b)

    def next(self):
        import base64
        r = self.rng
        m = r.random()
        if m < 0.3:
            ptx = self.good_ptx if r.random() < 0.5 else self.ptx.next()[1]
            req = {"url": "/api/uploads", "files": {"ptx": ["vec.ptx", ptx.encode("utf-8", "surrogateescape")]},
                   "form": {"launch": self._launch(), "name": r.choice(["", "x" * 500, "mine"])}}
            origin = "uploads: ptx + launch"
        elif m < 0.5:
            members = {}
            for _ in range(r.choice([1, 2, 3, 5])):
                name = r.choice(ZIP_NAMES)
                if name.endswith(".ptx"):
                    data = (self.good_ptx if r.random() < 0.5 else self.ptx.next()[1]).encode("utf-8", "surrogateescape")
                elif name.endswith("cases.json"):
                    data = self._launch().encode()
                elif name.endswith("kernel-1.traceg") or name.endswith("kernelslist.g"):
                    t = self.tr.next()[1]
                    data = (t["kernel"] if name.endswith("traceg") else t["kernelslist"]).encode("utf-8", "surrogateescape")
                else:
                    data = r.choice([b"", b"\x00" * 100, b"x" * 5000, b"\xff\xfe"])
                members[name] = data
            if r.random() < 0.05:
                members["bomb.txt"] = b"\x00" * (r.choice([1, 8, 40]) << 20)
            req = {"url": "/api/uploads", "files": {"archive": [r.choice(["w.zip", "w.tar", "w"]), self._zip(members)]},
                   "form": {"launch": self._launch()} if r.random() < 0.3 else {}}
            origin = "uploads: archive"
        elif m < 0.75:
            manifest = self.wl.next()[1].encode("utf-8", "surrogateescape")
            members = {}
            for p in sorted(WorkloadSource._base.rglob("*")):
                if p.is_file() and p.name != "manifest.json":
                    members[f"b/{p.relative_to(WorkloadSource._base)}"] = p.read_bytes()
            members["b/manifest.json"] = manifest
            if r.random() < 0.2:
                members[r.choice(ZIP_NAMES)] = b"\x00" * r.choice([0, 10, 100000])
            if r.random() < 0.5:
                name, blob = r.choice(["b.zip", "b.tar.xz", "b.exe", ""]), self._zip(members)
            else:
                name, blob = r.choice(["b.tar.xz", "b.tar.xz", "b.zip"]), self._tar_xz(members)
            req = {"url": "/api/bundles", "files": {"bundle": [name, blob]}, "form": {}}
            origin = "bundles"
        else:
            req = {"url": "/api/runs/import", "files": {"run": ["r.simtrun", self.rf.next()[1]]},
                   "form": {"name": r.choice(["", "n", "x" * 1000])}}
            origin = "runs/import"
        if r.random() < 0.05:                       # a field the endpoint does not expect, or none at all
            req["files"] = {r.choice(["ptx", "archive", "bundle", "run", "launch", "zzz"]): v
                            for v in list(req["files"].values())[:1]}
        req["files"] = {k: [n, base64.b64encode(d).decode()] for k, (n, d) in req["files"].items()}
        return origin, req

    @staticmethod
    def run(req):
        return targets.upload(req, UploadSource.work)

    @staticmethod
    def expected():
        return ()

    @staticmethod
    def dump(x) -> bytes:
        return json.dumps(x).encode()


TARGETS["upload"] = UploadSource


# ------------------------------------------------------------------ POST /api/runs and /api/sweeps (api_inputs.py)

def _api_targets():
    from . import api_inputs
    TARGETS.update(api_inputs.TARGETS)


_api_targets()
