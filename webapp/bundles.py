"""Whole-model workloads in the explorer: gpu-workload/1 bundles, the project's examples and uploaded ones.

A bundle's workload id is `bundle:<name>` for a bundle of the project (workloads/examples/, or any folder in
the app's BUNDLE_DIRS) and `<upload id>:<name>` for an uploaded one (stored as data/workloads/<id>/bundle.<ext>,
exactly the bytes the user sent). Uploads are checked completely before anything is stored (open_bundle with
the tight limits below, then every launch's argument count against its PTX entry): a bad bundle is refused
with an error naming the field or launch, and nothing of it stays on disk.
"""
from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
import threading
import zipfile
from functools import lru_cache
from pathlib import Path, PurePosixPath

from flask import current_app

from engine.workload.bundle import ARCHIVE_SUFFIXES, BundleError, Limits, open_bundle

from .timebounds import deadline

UPLOAD_SUFFIXES = (".zip", ".tar.xz")
BUNDLE_SUFFIXES = (".tar.xz", ".zip")


def default_dirs() -> list[str]:
    """The project's bundles: every folder of workloads/ (examples/, zoo/) in a checkout or an installed wheel."""
    from engine.resources import data_path
    root = data_path("workloads")
    return [str(p) for p in sorted(root.iterdir()) if p.is_dir() and not p.name.startswith(("_", "."))] \
        if root.is_dir() else []


def upload_limits(cfg) -> dict:
    """What an uploaded bundle may be (stated in the page before upload, enforced here)."""
    return {"max_upload_bytes": int(cfg["BUNDLE_MAX_UPLOAD"]), "max_unpacked_bytes": int(cfg["BUNDLE_MAX_UNPACKED"]),
            "max_members": int(cfg["BUNDLE_MAX_MEMBERS"]), "max_manifest_bytes": int(cfg["BUNDLE_MAX_MANIFEST"]),
            "max_launches": int(cfg["BUNDLE_MAX_LAUNCHES"]), "formats": list(UPLOAD_SUFFIXES)}


def _limits(cfg, check=None) -> Limits:
    return Limits(max_members=int(cfg["BUNDLE_MAX_MEMBERS"]), max_bytes=int(cfg["BUNDLE_MAX_UNPACKED"]),
                  max_manifest_bytes=int(cfg["BUNDLE_MAX_MANIFEST"]), check=check)


# ---------------------------------------------------------------------- describing
def summarize(b) -> dict:
    """What the new-run form and the workload page need to know about a bundle before running it."""
    return {"bundle": b.name, "description": b.description, "launches": len(b.launches),
            "labels": [L.label for L in b.launches], "ops": [L.op for L in b.launches],
            "grids": [list(L.grid) for L in b.launches], "kernels": [L.kernel for L in b.launches],
            "hw_cycles": [L.hw_cycles_mean for L in b.launches],
            "opaque": [L.index for L in b.launches if L.opaque],
            "gaps_measured": any(L.gap_ns is not None for L in b.launches),
            "hardware": {k: v for k, v in (b.hardware or {}).items() if k != "launches"},
            "bytes": b.total_buffer_bytes}


def _manifest_only(path: Path) -> dict:
    """A bundle's manifest without unpacking its buffers (listing the zoo must not unpack megabytes)."""
    if path.is_dir():
        return json.loads((path / "manifest.json").read_text())
    if path.name.lower().endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            name = min((n for n in z.namelist() if n.endswith("manifest.json")), key=len)
            return json.loads(z.read(name))
    with tarfile.open(path, "r:*") as t:
        for m in t:
            if m.isfile() and PurePosixPath(m.name).name == "manifest.json" and len(PurePosixPath(m.name).parts) <= 2:
                return json.loads(t.extractfile(m).read())
    raise BundleError(str(path), "no manifest.json in the archive")


class _Shallow:
    """What summarize() reads, from a manifest alone (a project bundle; uploads were checked whole)."""

    def __init__(self, m: dict):
        from engine.workload.bundle import Launch
        self.name, self.description, self.hardware = m["name"], m.get("description", ""), m.get("hardware") or {}
        hw = self.hardware.get("launches") or [{}] * len(m["launches"])
        self.launches = [Launch(index=i, kernel=L["kernel"], ptx=L.get("ptx", ""), grid=tuple(L["grid"]),
                                block=tuple(L["block"]), shared_bytes=L.get("shared_bytes", 0), args=[],
                                name=str(L.get("name") or L["kernel"]), op=L.get("op"), module=L.get("module"),
                                opaque=bool(L.get("opaque")), hw_cycles=_cycles(L, h), gap_ns=h.get("gap_ns"))
                         for i, (L, h) in enumerate(zip(m["launches"], hw))]
        self.total_buffer_bytes = sum(int(b.get("bytes", 0)) for b in m.get("buffers", []))


def _cycles(L: dict, h: dict) -> list:
    """A launch's measured cycles as the full reader gives them (an opaque launch's own measurement when
    the hardware section has none)."""
    c = list(h.get("cycles") or [])
    if not c and L.get("opaque") and isinstance(L.get("measured"), dict) and L["measured"].get("cycles"):
        c = [L["measured"]["cycles"]]
    return c


@lru_cache(maxsize=256)
def _summarize_file(path: str, size: int, mtime_ns: int) -> dict:
    try:
        return summarize(_Shallow(_manifest_only(Path(path))))
    except (KeyError, TypeError, ValueError, IndexError, OSError, tarfile.TarError, zipfile.BadZipFile,
            NotImplementedError):   # (a zip version zipfile does not read)
        with open_bundle(path, cache=False) as b:      # malformed: the full reader names what is wrong
            return summarize(b)


class SummaryIndex:
    """Bundle summaries by (path, size, mtime), kept in DATA_DIR/bundle_index.json: a .tar.xz's manifest comes
    after its buffers, so reading it costs a decompression (seconds for GPT-2) that a restart should not redo."""

    def __init__(self, file: Path):
        self.file, self.lock = Path(file), threading.Lock()
        try:
            self.data = json.loads(self.file.read_text())
        except (OSError, ValueError):
            self.data = {}

    def get(self, path: Path) -> dict:
        st = path.stat()
        key = [st.st_size, st.st_mtime_ns]
        with self.lock:
            hit = self.data.get(str(path))
        if hit and hit["key"] == key:
            return hit["summary"]
        summ = _summarize_file(str(path), *key)
        with self.lock:
            self.data[str(path)] = {"key": key, "summary": summ}
            tmp = self.file.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data))
            tmp.replace(self.file)
        return summ


def _index() -> SummaryIndex:
    ext = current_app.extensions
    if "simtscope-bundles" not in ext:
        ext["simtscope-bundles"] = SummaryIndex(Path(current_app.config["DATA_DIR"]) / "bundle_index.json")
    return ext["simtscope-bundles"]


def init_app(app) -> None:
    # summaries are made on the first listing, not at start: a background pass over the zoo costs seconds of
    # CPU just when a starting server has other work (and most test servers never list bundles)
    app.extensions["simtscope-bundles"] = SummaryIndex(Path(app.config["DATA_DIR"]) / "bundle_index.json")


def project_bundles(dirs: list[str]) -> list[tuple[str, Path]]:
    out = []
    for d in dirs:
        for p in sorted(Path(d).iterdir()) if Path(d).is_dir() else []:
            low = p.name.lower()
            suf = next((s for s in BUNDLE_SUFFIXES if low.endswith(s)), None)
            if suf or (p.is_dir() and (p / "manifest.json").is_file()):
                out.append((p.name[:-len(suf)] if suf else p.name, p))
    return out


def describe(wid: str, path: Path, source: str, extra: dict | None = None) -> dict | None:
    try:
        s = _index().get(path)
    except (BundleError, OSError):
        return None
    return {"id": wid, "name": s["bundle"], "kind": "bundle", "source": source, **s, **(extra or {})}


def list_bundles(cat) -> list[dict]:
    out = []
    for name, p in project_bundles(current_app.config["BUNDLE_DIRS"]):
        d = describe(f"bundle:{name}", p, p.parent.name)         # the folder: examples, zoo
        if d:
            out.append(d)
    for w in cat.list_workloads():
        if w["kind"] == "bundle":
            p = Path(w["folder"]) / w["info"]["file"]
            d = describe(f"{w['id']}:{w['info']['bundle']}", p, "upload",
                         {"upload": w["id"], "upload_name": w["name"]})
            if d:
                out.append(d)
    return out


def find_bundle(cat, wid: str) -> dict | None:
    """The description (describe()) of the bundle with workload id `wid`, or None."""
    return next((w for w in list_bundles(cat) if w["id"] == wid), None)


def bundle_path(cat, wid: str, dirs: list[str]) -> Path | None:
    """The bundle behind a workload id, or None when the id is not a bundle's. KeyError: no such bundle."""
    src, _, name = wid.partition(":")
    if src == "bundle":
        for n, p in project_bundles(dirs):
            if n == name:
                return p
        raise KeyError(f"no bundle {name!r} among the project's bundles")
    if src == "case":
        return None
    w = cat.get_workload(src)
    if w is None or w["kind"] != "bundle":
        return None
    return Path(w["folder"]) / w["info"]["file"]


# ---------------------------------------------------------------------- uploads
class UploadRefused(ValueError):
    """A bundle upload that was refused; the message names the file and the field or launch at fault."""


def check_entries(b, check=None) -> list[str]:
    """Every launch's argument count against its PTX entry (BundleError naming the launch); returns
    warnings for PTX the engine cannot load (those launches will report their error when run). `check(what)`
    is called before each PTX module is loaded (the request's work deadline)."""
    from engine.ptx import load
    from engine.ptx.errors import PTXError
    programs, failed, warnings = {}, {}, []
    for L in b.launches:
        if L.opaque:
            continue
        if L.ptx not in programs and L.ptx not in failed:
            if check is not None:
                check("checking the bundle's PTX")
            try:
                programs[L.ptx] = load(b.ptx_text(L.ptx), L.ptx)
            except PTXError as e:
                failed[L.ptx] = str(e)
                warnings.append(f"launches[{L.index}] ({L.kernel}): {e}")
            except UnicodeDecodeError:
                raise BundleError(f"{b.source}: launches[{L.index}].ptx", f"{L.ptx} is not UTF-8 text") from None
        prog = programs.get(L.ptx)
        if prog is None:
            continue
        k = prog.kernels.get(L.kernel)
        if k is None:
            raise BundleError(f"{b.source}: launches[{L.index}].kernel",
                              f"no entry {L.kernel!r} in {L.ptx} (entries: {', '.join(sorted(prog.kernels))})")
        if len(k.params) != len(L.args):
            raise BundleError(f"{b.source}: launches[{L.index}].args",
                              f"{len(L.args)} argument(s) given, entry {L.kernel} in {L.ptx} takes {len(k.params)}")
    return warnings


def import_bundle(cat, stream, filename: str, cfg) -> tuple[dict, list[str]]:
    """Check an uploaded bundle and store it; returns (catalogue workload, warnings). UploadRefused on bad
    input, with nothing left behind."""
    low = (filename or "").lower()
    if not low.endswith(UPLOAD_SUFFIXES):
        raise UploadRefused(f"{filename or 'upload'}: unknown archive format: upload a bundle as "
                            f"{' or '.join(UPLOAD_SUFFIXES)}")
    ext = next(s for s in UPLOAD_SUFFIXES if low.endswith(s))
    limit = int(cfg["BUNDLE_MAX_UPLOAD"])
    tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=cat.work_dir))
    try:
        dest = tmp / f"bundle{ext}"
        size = 0
        with open(dest, "wb") as f:
            while chunk := stream.read(1 << 20):
                size += len(chunk)
                if size > limit:
                    raise BundleError(filename, f"larger than the upload limit of {limit // 2**20} MiB")
                f.write(chunk)
        work = deadline()                              # REQUEST_WORK_S: 503 past it, nothing stored
        with open_bundle(dest, _limits(cfg, work.check)) as b:
            if len(b.launches) > int(cfg["BUNDLE_MAX_LAUNCHES"]):
                raise BundleError(f"{filename}: launches", f"{len(b.launches)} launches, more than this server's "
                                                           f"limit of {cfg['BUNDLE_MAX_LAUNCHES']}")
            if not b.launches:
                raise BundleError(f"{filename}: launches", "the bundle has no launches")
            warnings = check_entries(b, work.check)
            name = b.name
        wid = cat.new_workload_id()
        folder = cat.work_dir / wid
        tmp.rename(folder)                             # one step: the bundle is there whole, or not at all
        tmp = None
        w = cat.add_workload(name, "bundle", folder, [], {"file": dest.name, "bundle": name,
                                                          "original": Path(filename).name[:200]}, wid=wid)
        return w, warnings
    except BundleError as e:                           # name the user's file, not our temporary copy
        raise UploadRefused(str(e).replace(str(tmp / f"bundle{ext}") if tmp else "\0", filename)) from None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


assert set(UPLOAD_SUFFIXES) <= set(ARCHIVE_SUFFIXES)
