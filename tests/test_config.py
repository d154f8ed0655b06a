"""GPU configurations: presets load, and bad files or overrides are refused with a message naming the
key, the value and where it came from."""
from __future__ import annotations

import pytest

from engine.config import ConfigError, list_configs, load_config


def test_presets_load_and_overrides_apply():
    assert {"h200", "a100", "v100"} <= set(list_configs())
    c = load_config("h200", ["l2.size_kib=30720", "dram.policy=fr_fcfs"])
    assert c["l2.size_kib"] == 30720 and c["dram.policy"] == "fr_fcfs"
    assert load_config("h200")["l2.dram_fetch_bytes"] == 64
    assert load_config("v100")["dram.policy"] == "fr_fcfs"


@pytest.mark.parametrize("override, msg", [
    ("l2.size_kb=100", "unknown key 'l2.size_kb'"),
    ("l2.size_kib", "expected key=value"),
    ("l2.size_kib=-1", "l2.size_kib = -1 KiB is outside"),
    ("l2.size_kib=big", "l2.size_kib must be an integer"),
    ("dram.policy=lifo", "dram.policy = 'lifo' is not one of fcfs, open_row, fr_fcfs"),
    ("l2.dram_fetch_bytes=48", "l2.dram_fetch_bytes must be a power-of-two multiple of l2.sector_bytes"),
    ("l2.dram_fetch_bytes=256", "l2.dram_fetch_bytes must be a power-of-two multiple of l2.sector_bytes"),
    ("dram.refresh_ns=253", "dram.refresh_interval_ns must exceed dram.refresh_ns"),
])
def test_bad_overrides_are_refused_by_name(override, msg):
    with pytest.raises(ConfigError, match=msg):
        load_config("h200", [override])


def test_a_config_file_with_an_unknown_key_or_bad_toml_is_refused(tmp_path):
    p = tmp_path / "mine.toml"
    p.write_text('[gpu]\nname = "mine"\nnum_smz = 4\n')
    with pytest.raises(ConfigError, match=r"mine.toml: unknown key 'gpu.num_smz'"):
        load_config(p)
    p.write_text("[gpu\n")
    with pytest.raises(ConfigError, match=r"mine.toml: "):
        load_config(p)
    with pytest.raises(ConfigError, match=r"no configuration 'h300' \(presets: "):
        load_config("h300")
