"""Writing gpu-workload/1 bundles (capture uses this on a GPU machine; tests use it to make bundles).

    w = BundleWriter("model_b1", description="...")
    w.buffer("b0", data=x.tobytes(), name="input", role="input")
    ptx = w.ptx("triton_poi_fused_relu_0", ptx_text)
    w.launch("triton_poi_fused_relu_0", ptx, grid=(4, 1, 1), block=(128, 1, 1), shared_bytes=0,
             args=[w.ptr("b0"), w.ptr("b1"), w.value(1024, "u32"), w.scratch(0), w.scratch(0)])
    w.output("b1", dtype="f16", shape=(1024,), expect=y.tobytes(), tol=1e-3)
    w.save("out/model_b1.tar.xz")          # or a folder path, or .zip

Standard library only (plus hashlib), so that it runs wherever torch runs.
"""
from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import zipfile
from pathlib import Path

from .bundle import FORMAT, NAME_RE


class BundleWriter:
    def __init__(self, name: str, description: str = "", source: dict | None = None, **extra):
        if not NAME_RE.match(name):
            raise ValueError(f"bundle name {name!r} must be of [A-Za-z0-9_.-]+")
        self.manifest: dict = {"format": FORMAT, "name": name}
        if description:
            self.manifest["description"] = description
        if source:
            self.manifest["source"] = source
        self.manifest.update(extra)
        self.manifest.update(buffers=[], launches=[], outputs=[])
        self.files: dict[str, bytes] = {}
        self._ptx_by_hash: dict[str, str] = {}
        self._ids: set[str] = set()

    # ------------------------------------------------------------------ buffers
    def buffer(self, bid: str, nbytes: int | None = None, data: bytes | None = None, fill: str | None = None,
               rng: dict | None = None, name: str | None = None, role: str | None = None) -> str:
        if bid in self._ids:
            raise ValueError(f"buffer {bid!r} added twice")
        if sum(x is not None for x in (data, fill, rng)) > 1:
            raise ValueError("a buffer has one init: data, fill or rng")
        if nbytes is None:
            if data is None:
                raise ValueError(f"buffer {bid}: give nbytes or data")
            nbytes = len(data)
        entry: dict = {"id": bid, "bytes": int(nbytes)}
        if data is not None:
            if len(data) != nbytes:
                raise ValueError(f"buffer {bid}: {len(data)} bytes of data for {nbytes} bytes")
            rel = f"buffers/{bid}.bin"
            self.files[rel] = bytes(data)
            entry["init"] = {"file": rel}
        elif fill is not None:
            entry["init"] = {"fill": fill}
        elif rng is not None:
            entry["init"] = dict(rng)
        if name:
            entry["name"] = name
        if role:
            entry["role"] = role
        self.manifest["buffers"].append(entry)
        self._ids.add(bid)
        return bid

    # ------------------------------------------------------------------ kernels and launches
    def ptx(self, kernel: str, text: str) -> str:
        """Store a module's PTX once (by content); returns its path in the bundle."""
        h = hashlib.sha1(text.encode()).hexdigest()[:8]
        if h not in self._ptx_by_hash:
            stem = re.sub(r"[^A-Za-z0-9_.-]", "_", kernel)[:120]
            rel = f"ptx/{stem}_{h}.ptx"
            self.files[rel] = text.encode()
            self._ptx_by_hash[h] = rel
        return self._ptx_by_hash[h]

    @staticmethod
    def ptr(bid: str, offset: int = 0) -> dict:
        return {"buffer": bid, "offset": int(offset)}

    @staticmethod
    def value(v, typ: str) -> dict:
        return {"value": v, "type": typ}

    @staticmethod
    def scratch(bytes_per_cta: int = 0) -> dict:
        return {"scratch_bytes_per_cta": int(bytes_per_cta)}

    def launch(self, kernel: str, ptx: str | None, grid, block, shared_bytes: int, args: list[dict],
               name: str | None = None, op: str | None = None, **extra) -> int:
        d = {"kernel": kernel, "ptx": ptx, "grid": _dim3(grid), "block": _dim3(block),
             "shared_bytes": int(shared_bytes), "args": list(args)}
        if ptx is None:
            del d["ptx"]
        if name:
            d["name"] = name
        if op:
            d["op"] = op
        d.update({k: v for k, v in extra.items() if v is not None})
        self.manifest["launches"].append(d)
        return len(self.manifest["launches"]) - 1

    def output(self, bid: str, dtype: str, shape, expect: bytes, stride=None, offset: int = 0, tol: float = 0.0):
        shape = [int(s) for s in shape]
        if stride is None:
            stride, acc = [], 1
            for s in reversed(shape):
                stride.insert(0, acc)
                acc *= s
        rel = f"expect/{bid}_{offset}.bin" if offset else f"expect/{bid}.bin"
        self.files[rel] = bytes(expect)
        self.manifest["outputs"].append({"buffer": bid, "offset": int(offset), "dtype": dtype, "shape": shape,
                                         "stride": [int(s) for s in stride], "expect": rel, "tol": float(tol)})

    def hardware(self, info: dict, launches: list[dict]) -> None:
        self.manifest["hardware"] = {**info, "launches": launches}

    # ------------------------------------------------------------------ output
    def manifest_bytes(self) -> bytes:
        return (json.dumps(self.manifest, indent=1) + "\n").encode()

    def save(self, dest: str | Path) -> Path:
        """A folder, or one .tar.xz / .zip whose single top-level folder is the bundle's name."""
        dest = Path(dest)
        files = {"manifest.json": self.manifest_bytes(), **self.files}
        top = self.manifest["name"]
        name = dest.name.lower()
        dest.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith((".tar.xz", ".txz")):
            with tarfile.open(dest, "w:xz", preset=9) as tf:
                for rel in sorted(files):
                    data = files[rel]
                    ti = tarfile.TarInfo(f"{top}/{rel}")
                    ti.size, ti.mode, ti.mtime = len(data), 0o644, 0
                    tf.addfile(ti, io.BytesIO(data))
        elif name.endswith(".zip"):
            with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
                for rel in sorted(files):
                    zf.writestr(f"{top}/{rel}", files[rel])
        else:
            for rel, data in files.items():
                p = dest / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
        return dest


def _dim3(v) -> list[int]:
    t = [int(v)] if isinstance(v, int) else [int(x) for x in v]
    return t + [1] * (3 - len(t))
