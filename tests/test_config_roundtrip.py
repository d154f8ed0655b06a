"""Effective configurations reproduce themselves: every preset written as TOML loads back equal, and the
Python schema and the engine's gs_tconfig struct name the same fields."""
from __future__ import annotations

import pytest

from engine.config import SCHEMA, UNITS, Config, list_configs, load_config


@pytest.mark.parametrize("name", list_configs())
def test_every_preset_round_trips_through_toml(tmp_path, name):
    cfg = load_config(name)
    path = tmp_path / f"{name}_effective.toml"
    path.write_text(cfg.to_toml())
    back = load_config(path)
    assert isinstance(back, Config)
    assert back.values == cfg.values
    assert back.to_dict() == cfg.to_dict()
    assert back.to_toml().splitlines()[1:] == cfg.to_toml().splitlines()[1:]    # line 0 names the source


def test_overrides_round_trip_too(tmp_path):
    cfg = load_config("h200", ["l2.size_kib=30720", "dram.policy=fr_fcfs", "sm.scheduler=lrr"])
    path = tmp_path / "o.toml"
    path.write_text(cfg.to_toml())
    back = load_config(path)
    assert back.values == cfg.values
    assert (back["l2.size_kib"], back["dram.policy"], back["sm.scheduler"]) == (30720, "fr_fcfs", "lrr")


def test_the_schema_and_gs_tconfig_name_the_same_fields():
    from engine._ffi import ffi
    c_fields = {name for name, _f in ffi.typeof("gs_tconfig").fields}
    py = set()
    for p in SCHEMA:
        if p.key == "gpu.name":
            continue
        if p.key.startswith("pipes."):
            _, unit, what = p.key.split(".")
            assert unit in UNITS
            py.add(f"pipes_{what}")
            continue
        name = p.key.replace(".", "_")
        py.add(name)
        if p.type == "list[int]":
            py.add(f"{name}_count")
    assert py == c_fields, f"only in Python: {sorted(py - c_fields)}; only in C: {sorted(c_fields - py)}"
