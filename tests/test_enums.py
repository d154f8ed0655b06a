"""Enums and recorded-row layouts are defined once, in engine/include/simtscope.h: engine/enums.py reads them
from the header's text and must agree with the compiled extension (cffi's view) exactly; the recorder and the
run store work without the extension."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import enums, recording

ROOT = Path(__file__).resolve().parent.parent


def _ffi_dtype(ffi, cname: str) -> np.dtype:
    names, formats, offsets = [], [], []
    for fname, f in ffi.typeof(cname).fields:
        t = f.type
        base, shape = (t.item, (t.length,)) if t.kind == "array" else (t, ())
        code = {"uint8_t": "u1", "uint16_t": "<u2", "uint32_t": "<u4", "uint64_t": "<u8", "int32_t": "<i4",
                "int64_t": "<i8", "double": "<f8"}[base.cname]
        names.append(fname)
        formats.append((code, shape) if shape else code)
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(cname)})


def test_every_enum_of_the_header_reads_as_the_compiler_sees_it():
    from engine._ffi import ffi
    found = re.findall(r"\benum\s+(\w+)\s*\{", enums.header_text())
    assert len(found) >= 20 and "gs_wstate_kind" in found and "gs_dram_policy" in found
    for ctype in found:
        want = {name: value for value, name in ffi.typeof(f"enum {ctype}").elements.items()}
        assert enums.enum_values(ctype) == want, ctype


def test_row_layouts_match_the_compiled_structs():
    from engine._ffi import ffi
    for table, cname in recording._C_ROWS.items():
        assert recording.TABLES[table] == _ffi_dtype(ffi, cname), table
        assert recording.TABLES[table].itemsize == ffi.sizeof(cname)


def test_python_names_come_from_the_header():
    from engine import config, timing
    from engine._ffi import lib
    assert recording.WARP_STATES[lib.GS_WS_LONG_SCOREBOARD] == "long_scoreboard"
    assert recording.NSTATES == lib.GS_WS__COUNT
    assert recording.TABLE_ORDER[lib.GS_REC_PC_STATS] == "pc_stats"
    assert recording.EVENT_KINDS[lib.GS_EV_CTA_END] == "cta_end"
    assert config.DRAM_POLICY[lib.GS_DRAM_FR_FCFS] == "fr_fcfs"
    assert config.SCHEDULERS[lib.GS_SCHED_TWO_LEVEL] == "two_level"
    assert timing.LIMITERS[lib.GS_LIM_REGISTERS] == "registers"
    assert config.UNITS[lib.GS_U_TENSOR] == "tensor"
    assert set(recording.STATE_DOC) == set(recording.WARP_STATES)


@pytest.mark.parametrize("text,error", [
    ("enum gs_x { GS_X_A = 1, GS_X_B };", "not dense from 0"),
    ("enum gs_x { GS_X_A = 0, GS_Y_B };", "not every name starts with GS_X_"),
])
def test_malformed_enums_are_refused_by_name(monkeypatch, text, error):
    monkeypatch.setattr(enums, "header_text", lambda: text)
    enums.enum_values.cache_clear()
    try:
        with pytest.raises(ValueError, match=error):
            enums.names("gs_x", "GS_X_")
    finally:
        enums.enum_values.cache_clear()


def test_the_schema_round_trips_through_json():
    import json
    sch = json.loads(json.dumps(recording.schema()))
    for t, dt in recording.TABLES.items():
        assert recording.dtype_from_json(sch["tables"][t]) == dt
    assert sch["warp_states"] == recording.WARP_STATES and sch["event_kinds"] == recording.EVENT_KINDS


def test_the_store_reads_a_run_file_without_the_compiled_engine(tmp_path):
    """engine._engine and engine._ffi made unimportable: the recorder's module and the store still work."""
    code = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name in ("engine._engine", "engine._ffi"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
from engine import recording
from webapp.store import RunReader
r = RunReader({str(ROOT / "tests/fixtures/runs/sgemm_tiled16_256.run2.simtrun")!r})
assert int(r.pc_stats()["issued"].sum()) == r.meta["stats"]["warp_insts"]
print(r.heat(3, 0, r.end_cycle, 8)["state"].shape, recording.NSTATES, "engine._ffi" in sys.modules)
"""
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[-2:] == ["19", "False"], p.stdout
