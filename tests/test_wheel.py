"""The built wheel works outside the checkout: packages, the engine, configs/, validation/ and the explorer's
assets all come with it (issue 12: they did not).

The wheel is built once per session (pip wheel, the C engine compiled as a user's install compiles it) and
installed into a fresh virtual environment with its dependencies from the package index; the commands then run
from an empty folder, so nothing of the checkout can be found by accident. The dependencies are installed while
the wheel compiles (the index's network time hides the compiler's), then `pip check` confirms the wheel's own
requirements are met.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIP = ["-m", "pip", "--disable-pip-version-check", "-q"]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return env


def _check(cmd, cwd, timeout=900) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))} exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(venv bin folder, an empty working folder outside the checkout, the wheel)."""
    base = tmp_path_factory.mktemp("wheel")
    venv, dist, work = base / "venv", base / "dist", base / "work"
    work.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    fetch = subprocess.Popen([str(py), *PIP, "install", *deps], env=_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        _check([sys.executable, *PIP, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)],
               cwd=base)
    finally:
        out, _ = fetch.communicate(timeout=900)
    assert fetch.returncode == 0, f"installing the dependencies failed:\n{out[-3000:]}"
    (wheel,) = dist.glob("simtscope-*.whl")
    _check([str(py), *PIP, "install", "--no-deps", str(wheel)], cwd=base)
    _check([str(py), *PIP, "check"], cwd=base)
    return venv / "bin", work, wheel


def test_the_wheel_carries_every_package_and_data_folder(installed):
    from engine.resources import DATA_DIRS
    names = set(zipfile.ZipFile(installed[2]).namelist())
    for pkg in ("engine/ptx", "webapp/api", "webapp/store", "webapp/jobs", "simtscope"):
        assert f"{pkg}/__init__.py" in names, f"{pkg} missing from the wheel"
    for d in DATA_DIRS:
        if (ROOT / d).is_dir():     # every file of the checkout's folder (build outputs aside) is in the wheel
            want = {f"engine/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / d).rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts}
            assert want and want <= names, f"{d}/ incomplete in the wheel: {sorted(want - names)[:5]}"
    # and every page template and static asset of the explorer (a page's base template or a module it imports
    # missing from the wheel would only show as a broken page)
    for d in ("templates", "static"):
        want = {f"webapp/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / d).rglob("*") if p.is_file()}
        assert want and want <= names, f"{d}/ incomplete in the wheel: {sorted(want - names)[:5]}"


def test_the_wheel_states_its_license_as_spdx_and_carries_the_file(installed):
    """pyproject's license is the SPDX string with license-files (PEP 639; the table form is deprecated by
    setuptools, to be removed 2027-02-18): the metadata says License-Expression, not the old License."""
    z = zipfile.ZipFile(installed[2])
    (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
    head = z.read(meta).decode().split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in head and "License-File: LICENSE" in head, head
    assert not [h for h in head if h.startswith("License:")], head
    lic = meta.replace("METADATA", "licenses/LICENSE")
    assert z.read(lic) == (ROOT / "LICENSE").read_bytes()


def test_run_and_validate_from_another_folder(installed):
    bin_, work, _ = installed
    r = _check([str(bin_ / "simtscope"), "run", "--case", "saxpy_1M"], cwd=work, timeout=300)
    assert "outputs     PASS" in r.stdout, r.stdout
    v = _check([str(bin_ / "simtscope"), "validate", "--functional", "--only", "saxpy_1M"], cwd=work, timeout=300)
    assert "1/1 passed, 0 failed" in v.stdout, v.stdout
    # the installed package answers, not the checkout
    where = _check([str(bin_ / "python"), "-c", "import engine.resources as r; print(r.data_path('configs'))"],
                   cwd=work).stdout.strip()
    assert "site-packages" in where and not where.startswith(str(ROOT)), where


def test_serve_from_another_folder(installed):
    bin_, work, _ = installed
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(work / "serve.log", "w+")
    proc = subprocess.Popen([str(bin_ / "simtscope"), "serve", "--port", str(port), "--no-demo"], cwd=work,
                            env=_env(), stdout=log, stderr=subprocess.STDOUT)
    try:
        t0, page = time.monotonic(), None
        while time.monotonic() - t0 < 120 and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    page = r.read().decode()
                break
            except OSError:
                time.sleep(0.3)
        log.seek(0)
        assert page is not None, f"the explorer did not answer (exit {proc.poll()}):\n{log.read()[-3000:]}"
        assert "<html" in page and "simtscope" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/js/main.js", timeout=5) as r:
            assert r.status == 200 and len(r.read()) > 100
        import json
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/configs", timeout=5) as r:
            assert {"h200", "a100"} <= {c["name"] for c in json.load(r)}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/workloads", timeout=5) as r:
            ids = {w["id"] for w in json.load(r)}
            assert "case:saxpy_1M" in ids and "bundle:example_mlp_b64_fp32" in ids     # cases and example bundles
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/workload", timeout=5) as r:
            assert "workload-main.js" in r.read().decode()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/fidelity", timeout=5) as r:
            assert "fidelity-main.js" in r.read().decode()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/fidelity", timeout=30) as r:
            fd = json.load(r)                          # the H200 measurements come with the wheel
            assert fd["summary"]["cases"]["of"] == 39 and fd["summary"]["bundles"]["of"] >= 3
        assert (work / "instance").is_dir()          # the run store is made in the folder it was started from
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
