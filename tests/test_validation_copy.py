"""The project's validation/ is a byte-identical copy of ../shared/validation (when that exists)."""
import filecmp
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "validation"


def _files(base: Path):
    return sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file())


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/validation is not present on this machine")
def test_validation_is_a_byte_identical_copy():
    ours = ROOT / "validation"
    assert _files(ours) == _files(SHARED)
    for rel in _files(SHARED):
        assert filecmp.cmp(ours / rel, SHARED / rel, shallow=False), f"{rel} differs from ../shared/validation"


def test_suite_has_the_public_cases():
    from engine.cases import load_suite
    s = load_suite()
    assert len(s.cases) == 39
    assert all(c.ptx_path.is_file() for c in s.cases)
