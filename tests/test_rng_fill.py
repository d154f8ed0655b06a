"""gpu-workload/1 `rng` buffers: the engine's C generator (gs_rng_fill, engine/csrc/rng.c) gives exactly the bytes of
the numpy definition (engine/workload/bundle.py _rng_fill_numpy), for every dtype it takes, any seed, length and range,
including rounding to f16 infinities and subnormals and 32-bit wrapping of integers."""
import numpy as np
import pytest

from engine._ffi import ffi, lib
from engine.workload import bundle as B

SIZES = [1, 7, 8, 9, 15, 1000, B.RNG_CHUNK + 3]
SEEDS = [0, 5, 3971265612, 2**63 + 12345, 2**64 - 1]
UNIFORM = [(-1.0, 1.0), (-0.001953125, 0.001953125), (-1e-6, 1e-6), (-1e6, 1e6), (0.0, 70000.0), (3.0, 3.0),
           (-3.5e38, 3.5e38)]
INTS = [(0, 100), (-7, 1000), (-2**31, 2**31), (0, 2**40), (2**40, 2**41 + 3), (-2**62, 2**62)]


def numpy_bytes(init: dict, nbytes: int) -> bytes:
    out = bytearray(nbytes)
    B._rng_fill_numpy(init, init["dtype"], nbytes // np.dtype(B.DTYPES[init["dtype"]]).itemsize, out)
    return bytes(out)


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("lo,hi", UNIFORM)
def test_uniform_floats_match_the_numpy_definition(dt, lo, hi):
    isz = np.dtype(B.DTYPES[dt]).itemsize
    for seed in SEEDS:
        for n in SIZES:
            init = {"rng": "uniform", "dtype": dt, "lo": lo, "hi": hi, "seed": seed}
            nbytes = n * isz + (1 if n % 2 else 0)          # and a zero tail when not a whole element
            assert B.rng_bytes(init, nbytes) == numpy_bytes(init, nbytes), (seed, n)


def test_f16_ranges_reach_infinities_and_subnormals():
    wide = np.frombuffer(B.rng_bytes({"rng": "uniform", "dtype": "f16", "lo": -1e6, "hi": 1e6, "seed": 3}, 20000), np.float16)
    tiny = np.frombuffer(B.rng_bytes({"rng": "uniform", "dtype": "f16", "lo": -1e-6, "hi": 1e-6, "seed": 3}, 20000), np.float16)
    assert np.isinf(wide).any() and np.isfinite(wide).any()
    assert ((tiny != 0) & (np.abs(tiny) < np.finfo(np.float16).tiny)).any()


@pytest.mark.parametrize("dt", ["i32", "u32"])
@pytest.mark.parametrize("lo,hi", INTS)
def test_integers_match_the_numpy_definition(dt, lo, hi):
    for seed in SEEDS:
        for n in SIZES:
            init = {"rng": "int", "dtype": dt, "lo": lo, "hi": hi, "seed": seed}
            assert B.rng_bytes(init, n * 4) == numpy_bytes(init, n * 4), (seed, n)


def test_the_c_generator_is_the_one_used():
    init = {"rng": "uniform", "dtype": "f16", "lo": -1.0, "hi": 1.0, "seed": 11}
    out = bytearray(2 * 1000)
    assert B._rng_fill_c(init, "f16", 1000, out)
    assert bytes(out) == numpy_bytes(init, 2000)


def test_forms_the_c_generator_does_not_take_fall_back_to_numpy():
    out = bytearray(16)
    assert not B._rng_fill_c({"rng": "int", "dtype": "f32", "lo": 0, "hi": 9, "seed": 1}, "f32", 4, out)
    assert not B._rng_fill_c({"rng": "int", "dtype": "i32", "lo": 5, "hi": 5, "seed": 1}, "i32", 4, out)
    assert not B._rng_fill_c({"rng": "int", "dtype": "i32", "lo": 0, "hi": 2**65, "seed": 1}, "i32", 4, out)
    assert bytes(out) == bytes(16)
    init = {"rng": "int", "dtype": "f32", "lo": 0, "hi": 9, "seed": 1}
    assert np.array_equal(np.frombuffer(B.rng_bytes(init, 16), np.float32), np.frombuffer(numpy_bytes(init, 16), np.float32))


def test_bad_kinds_and_empty_ranges_are_refused_by_the_c_generator():
    buf = bytearray(64)
    assert lib.gs_rng_fill(ffi.from_buffer(buf), 4, 99, 1, 0.0, 1.0, 0, 0) == -1
    assert lib.gs_rng_fill(ffi.from_buffer(buf), 4, lib.GS_RNG_I32, 1, 0.0, 0.0, 0, 0) == -1
    assert bytes(buf) == bytes(64)
