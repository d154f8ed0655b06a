"""scripts/build_pgo.py's skip rule: a profile-guided build is redone exactly when the engine's sources change."""
import importlib.util
import os
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "build_pgo.py"


def load(tmp: Path):
    spec = importlib.util.spec_from_file_location("build_pgo_under_test", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.ROOT, mod.STAMP = tmp, tmp / "build" / "pgo-stamp"
    return mod


def fake_tree(tmp: Path) -> None:
    (tmp / "engine" / "csrc").mkdir(parents=True)
    (tmp / "engine" / "include").mkdir()
    (tmp / "build").mkdir()
    (tmp / "engine" / "csrc" / "a.c").write_text("int a;\n")
    (tmp / "engine" / "include" / "simtscope.h").write_text("/* h */\n")
    (tmp / "engine" / "build_ffi.py").write_text("# flags\n")
    (tmp / "engine" / "_engine.abi3.so").write_bytes(b"\x7fELF")


def test_skip_only_for_the_same_sources_and_an_engine_not_rebuilt_since(tmp_path):
    fake_tree(tmp_path)
    m = load(tmp_path)
    d = m.sources_digest()
    assert not m.up_to_date(d)                                     # never built with a profile
    m.STAMP.write_text(d + "\n")
    so = tmp_path / "engine" / "_engine.abi3.so"
    os.utime(so, (m.STAMP.stat().st_mtime - 10,) * 2)
    assert m.up_to_date(d)
    (tmp_path / "engine" / "csrc" / "a.c").write_text("int a, b;\n")  # a source changed
    assert m.sources_digest() != d and not m.up_to_date(m.sources_digest())
    (tmp_path / "engine" / "build_ffi.py").write_text("# other flags\n")
    assert m.sources_digest() != d
    os.utime(so, (m.STAMP.stat().st_mtime + 10,) * 2)             # a plain build after the profiled one
    assert not m.up_to_date(d)


BUILD_FFI = Path(__file__).resolve().parent.parent / "engine" / "build_ffi.py"


def build_desc_with(monkeypatch, profile: str, portable: bool) -> str:
    """BUILD_DESC as engine/build_ffi.py computes it in an environment with these settings"""
    monkeypatch.setenv("SIMTSCOPE_PGO_PROFILE", profile)
    if portable:
        monkeypatch.setenv("SIMTSCOPE_PORTABLE", "1")
    else:
        monkeypatch.delenv("SIMTSCOPE_PORTABLE", raising=False)
    spec = importlib.util.spec_from_file_location("build_ffi_under_test", BUILD_FFI)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.BUILD_DESC


def test_the_build_description_says_how_the_engine_was_compiled(monkeypatch):
    assert build_desc_with(monkeypatch, "", False) == "plain, -march=native, -O3"
    assert build_desc_with(monkeypatch, "use:/tmp/p", False) == "profile-guided, -march=native, -O3"
    assert build_desc_with(monkeypatch, "gen:/tmp/p", True) == "profile-instrumented, portable x86-64, -O3"
    # the loaded library carries one of them (compiled in by the -DGS_BUILD_DESC that build_ffi.py passes)
    from engine.timing import engine_build
    kind, target, opt = engine_build().split(", ")
    assert kind in ("plain", "profile-guided") and target in ("-march=native", "portable x86-64") and opt == "-O3"
