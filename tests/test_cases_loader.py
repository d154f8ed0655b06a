"""The cases.json loader reproduces the suite's generator and references exactly."""
import json

import numpy as np
import pytest

from engine.cases import Case, compare, load_suite, make_buffer, splitmix64


def test_splitmix64_matches_the_published_check_values():
    z = splitmix64(1234567, 3)
    assert [int(v) for v in z] == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_random_uniform_is_24_bit_exact_and_in_range():
    a = make_buffer({"dtype": "f32", "count": 10000, "init": "random_uniform", "lo": -1.0, "hi": 1.0, "seed": 7})
    assert a.dtype == np.float32 and a.min() >= -1.0 and a.max() < 1.0
    z = splitmix64(7, 10000)
    u = (z >> np.uint64(40)).astype(np.float64) / 2**24
    assert np.array_equal(a, (-1.0 + 2.0 * u).astype(np.float32))


def test_f16_and_int_inits():
    h = make_buffer({"dtype": "f16", "count": 100, "init": "random_uniform", "lo": 0.0, "hi": 1.0, "seed": 3})
    assert h.dtype == np.float16
    i = make_buffer({"dtype": "i32", "count": 1000, "init": "random_int", "lo": -5, "hi": 5, "seed": 9})
    assert i.min() >= -5 and i.max() < 5
    assert np.array_equal(make_buffer({"dtype": "u32", "count": 4, "init": "iota"}), [0, 1, 2, 3])


def test_unknown_reference_is_unchecked_not_failed(tmp_path):
    case = Case({"name": "x", "check": "no_such_reference", "args": [], "params": {}, "tol": 0}, tmp_path)
    assert case.check({}, {}) == (None, {})


def test_compare_rules():
    assert compare(np.array([1, 2], np.int32), np.array([1.0, 2.0]), 1e-3) == (True, 0.0)
    assert compare(np.array([1, 3], np.int32), np.array([1, 2]), 1e-3)[0] is False
    ok, err = compare(np.array([1.0, np.nan], np.float32), np.array([1.0, 2.0]), 1.0)
    assert not ok and err == float("inf")


def test_load_suite_rejects_other_formats(tmp_path):
    p = tmp_path / "cases.json"
    p.write_text(json.dumps({"format": "something-else", "cases": []}))
    with pytest.raises(ValueError, match="not a gpu-validation-suite"):
        load_suite(p)


def test_paths_are_relative_to_the_cases_folder(suite):
    c = suite["saxpy_1M"]
    assert c.ptx_path == suite.path.parent.resolve() / "ptx" / "vector.sm90.ptx"
