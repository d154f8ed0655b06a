"""Whole-model workloads in the explorer: gpu-workload/1 bundles, the project's examples and uploaded ones.

A bundle's workload id is `bundle:<name>` for a bundle of the project (workloads/examples/, or any folder in
the app's BUNDLE_DIRS) and `<upload id>:<name>` for an uploaded one (stored as data/workloads/<id>/bundle.<ext>,
exactly the bytes the user sent). Uploads are checked completely before anything is stored (open_bundle with
the tight limits below, then every launch's argument count against its PTX entry): a bad bundle is refused
with an error naming the field or launch, and nothing of it stays on disk.
"""
from __future__ import annotations

import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from flask import current_app

from engine.workload.bundle import ARCHIVE_SUFFIXES, BundleError, Limits, open_bundle

UPLOAD_SUFFIXES = (".zip", ".tar.xz")
BUNDLE_SUFFIXES = (".tar.xz", ".zip")


def default_dirs() -> list[str]:
    """The project's example bundles (workloads/examples/ in a checkout, or inside an installed wheel)."""
    from engine.resources import data_path
    p = data_path("workloads") / "examples"
    return [str(p)] if p.is_dir() else []


def upload_limits(cfg) -> dict:
    """What an uploaded bundle may be (stated in the page before upload, enforced here)."""
    return {"max_upload_bytes": int(cfg["BUNDLE_MAX_UPLOAD"]), "max_unpacked_bytes": int(cfg["BUNDLE_MAX_UNPACKED"]),
            "max_members": int(cfg["BUNDLE_MAX_MEMBERS"]), "max_manifest_bytes": int(cfg["BUNDLE_MAX_MANIFEST"]),
            "max_launches": int(cfg["BUNDLE_MAX_LAUNCHES"]), "formats": list(UPLOAD_SUFFIXES)}


def _limits(cfg) -> Limits:
    return Limits(max_members=int(cfg["BUNDLE_MAX_MEMBERS"]), max_bytes=int(cfg["BUNDLE_MAX_UNPACKED"]),
                  max_manifest_bytes=int(cfg["BUNDLE_MAX_MANIFEST"]))


# ---------------------------------------------------------------------- describing
def summarize(b) -> dict:
    """What the new-run form and the workload page need to know about a bundle before running it."""
    return {"bundle": b.name, "description": b.description, "launches": len(b.launches),
            "labels": [L.label for L in b.launches], "ops": [L.op for L in b.launches],
            "grids": [list(L.grid) for L in b.launches], "kernels": [L.kernel for L in b.launches],
            "hw_cycles": [L.hw_cycles_mean for L in b.launches],
            "hardware": {k: v for k, v in (b.hardware or {}).items() if k != "launches"},
            "bytes": b.total_buffer_bytes}


@lru_cache(maxsize=64)
def _summary_of(path: str, mtime: float) -> dict:
    with open_bundle(path) as b:
        return summarize(b)


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
        s = _summary_of(str(path), path.stat().st_mtime)
    except (BundleError, OSError):
        return None
    return {"id": wid, "name": s["bundle"], "kind": "bundle", "source": source, **s, **(extra or {})}


def list_bundles(cat) -> list[dict]:
    out = []
    for name, p in project_bundles(current_app.config["BUNDLE_DIRS"]):
        d = describe(f"bundle:{name}", p, "example")
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


def check_entries(b) -> list[str]:
    """Every launch's argument count against its PTX entry (BundleError naming the launch); returns
    warnings for PTX the engine cannot load (those launches will report their error when run)."""
    from engine.ptx import load
    from engine.ptx.errors import PTXError
    programs, failed, warnings = {}, {}, []
    for L in b.launches:
        if L.opaque:
            continue
        if L.ptx not in programs and L.ptx not in failed:
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
        with open_bundle(dest, _limits(cfg)) as b:
            if len(b.launches) > int(cfg["BUNDLE_MAX_LAUNCHES"]):
                raise BundleError(f"{filename}: launches", f"{len(b.launches)} launches, more than this server's "
                                                           f"limit of {cfg['BUNDLE_MAX_LAUNCHES']}")
            if not b.launches:
                raise BundleError(f"{filename}: launches", "the bundle has no launches")
            warnings = check_entries(b)
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
