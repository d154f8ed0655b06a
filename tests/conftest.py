"""Shared fixtures. Test kernels live in tests/kernels/ as CUDA source with the PTX nvcc made from it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = Path(__file__).resolve().parent / "kernels"


@pytest.fixture
def dev():
    from engine.device import Device
    return Device()


@pytest.fixture(scope="session")
def suite():
    from engine.cases import load_suite
    return load_suite()


def ptx_path(name: str) -> Path:
    return KERNELS / name


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
