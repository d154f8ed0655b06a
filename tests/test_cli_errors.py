"""Mistyped command lines get one line that names what is wrong (exit status 2), never a traceback: an unknown
case, a --only pattern that matches nothing, a cases file that cannot be read, a bad configuration or override,
and timing options on a run that has no timing model."""
from pathlib import Path

import pytest

from engine.cases import SuiteError, UnknownCase, load_suite
from simtscope.cli import main


def _fails(capsys, argv, *expected):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def test_an_unknown_case_is_named(capsys):
    line = _fails(capsys, ["run", "--case", "saxpy_1m", "--timing"], "simtscope run: error: no case named 'saxpy_1m'")
    assert "cases.json" in line


def test_a_bad_override_or_configuration_is_named(capsys):
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--set", "l2.size_kib=-1"],
           "simtscope run: error:", "l2.size_kib = -1 KiB is outside [64,")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--set", "l2.sise_kib=1"], "unknown key 'l2.sise_kib'")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--set", "l2.size_kib"], "expected key=value")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--config", "h300"], "no configuration 'h300'", "h200")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--threads", "5000"], "sim.threads = 5000", "[0, 1024]")
    _fails(capsys, ["validate", "--only", "saxpy_1M", "--config", "h300"], "simtscope validate: error:",
           "no configuration 'h300'")


def test_a_cases_file_that_cannot_be_read_is_named(capsys, tmp_path):
    missing = tmp_path / "none.json"
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--cases", str(missing)],
           f"cases file {missing}: cannot read it (No such file or directory)")
    broken = tmp_path / "cases.json"
    broken.write_text('{"format": "gpu-validation-suite/1", "cases": [')
    _fails(capsys, ["validate", "--functional", "--cases", str(broken)], f"cases file {broken}: not JSON")
    other = tmp_path / "other.json"
    other.write_text('{"format": "gpu-workload/1"}')
    _fails(capsys, ["validate", "--cases", str(other)],
           f"{other}: not a gpu-validation-suite file (format 'gpu-workload/1')")
    nolist = tmp_path / "nolist.json"
    nolist.write_text('{"format": "gpu-validation-suite/1", "cases": {}}')
    _fails(capsys, ["validate", "--functional", "--cases", str(nolist)], 'its "cases" is not a list')


def test_only_patterns_that_match_nothing_fail_instead_of_passing_zero_cases(capsys):
    _fails(capsys, ["validate", "--only", "saxpy_1M,sgemm_tiled_256"],
           "simtscope validate: error: --only 'sgemm_tiled_256': no case of", "matches")
    _fails(capsys, ["validate", "--functional", "--only", "nothing*"], "--only 'nothing*': no case of")


def test_timing_options_on_a_functional_run_are_refused(capsys):
    _fails(capsys, ["run", "--case", "saxpy_1M", "--set", "l2.size_kib=30720"],
           "simtscope run: error: --set configures the timing model", "add --timing")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--threads", "0", "--config", "h200"],
           "--config and --threads configure the timing model")


def test_suite_select_matches_names_and_wildcards_in_suite_order():
    suite = load_suite()
    names = [c.name for c in suite.select("sgemm_tiled16_512,saxpy_1M")]
    assert names == [n for n in suite.names() if n in ("sgemm_tiled16_512", "saxpy_1M")]   # the suite's order
    tiled = [n for n in suite.names() if n.startswith("sgemm_tiled16_")]
    assert [c.name for c in suite.select(" sgemm_tiled16_* ")] == tiled
    assert [c.name for c in suite.select(None)] == suite.names() == [c.name for c in suite.select(" , ")]
    with pytest.raises(SuiteError, match=r"--only 'saxpy.1M': no case of my suite matches"):
        suite.select("saxpy.1M", label="my suite")       # '.' is a character, not a regular expression
    with pytest.raises(KeyError):                        # a lookup's error is still a KeyError
        suite["nope"]
    with pytest.raises(UnknownCase, match=r"^no case named 'nope' in "):
        suite["nope"]


@pytest.mark.parametrize("argv, message", [
    (["serve", "--port", "99999"], "argument --port: expected a whole number from 1 to 65535, got '99999'"),
    (["serve", "--port", "0"], "argument --port: expected a whole number from 1 to 65535, got '0'"),
    (["validate", "--jobs", "0"], "argument --jobs: expected a whole number >= 1, got '0'"),
    (["run", "--case", "saxpy_1M", "--timing", "--max-cycles", "-1"],
     "argument --max-cycles: expected a whole number >= 0"),
    (["run", "--case", "saxpy_1M", "--timing", "--max-insts", "1e6"],
     "argument --max-insts: expected a whole number >= 0, got '1e6'"),
    (["run", "--ptx", "k.ptx", "--shared", "-4"], "argument --shared: expected a whole number >= 0, got '-4'"),
    (["run", "--case", "saxpy_1M", "--timing", "--threads", "two"],
     "expected a whole number >= 0 (0: the cores available), got 'two'"),
])
def test_numbers_out_of_range_are_refused_by_the_parser(capsys, argv, message):
    # (a port of 99999 used to start the explorer on a port it could not bind, and wait; a negative --jobs ran one job)
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_launch_the_engine_refuses_is_one_line(capsys):
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--max-insts", str(2 ** 70)],
           "simtscope run: error: max_warp_insts = 1180591620717411303424 is out of range")


def test_a_run_store_folder_that_cannot_be_made_is_named(capsys, tmp_path):
    afile = tmp_path / "store"
    afile.write_text("not a folder")
    _fails(capsys, ["serve", "--data", str(afile)],
           f"simtscope serve: --data {afile}: cannot keep the run store there (it is a file, not a folder)")
    _fails(capsys, ["serve", "--data", str(afile / "runs")],
           f"--data {afile / 'runs'}: cannot keep the run store there")
    assert afile.read_text() == "not a folder"


def test_a_port_in_use_is_named_before_any_demo_run_is_queued(capsys, tmp_path):
    import socket
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        _fails(capsys, ["serve", "--port", str(port), "--data", str(tmp_path)],
               f"simtscope serve: cannot listen on 127.0.0.1:{port}: Address already in use")
    assert list(tmp_path.iterdir()) == []          # no run store made, no demo run queued


@pytest.mark.parametrize("arg, message", [
    ("f32=abc", "bad --arg 'f32=abc': expected TYPE=NUMBER"),
    ("f32[10]=const", "bad --arg 'f32[10]=const': expected TYPE=NUMBER"),          # (an IndexError escaped before)
    ("f32[10]=uniform:0", "bad --arg 'f32[10]=uniform:0': expected TYPE=NUMBER"),
    ("f32[10]=weird", "unknown buffer init 'weird' (zeros, iota,"),
])
def test_kernel_arguments_that_do_not_parse_are_named(capsys, arg, message):
    with pytest.raises(SystemExit) as e:
        main(["run", "--ptx", "k.ptx", "--kernel", "k", "--grid", "1", "--block", "32", "--arg", arg])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_kernel_the_module_does_not_have_is_named_without_quotes(capsys):
    ptx = str(Path(__file__).resolve().parent.parent / "validation" / "ptx" / "elementwise.sm90.ptx")
    line = _fails(capsys, ["run", "--ptx", ptx, "--kernel", "nope", "--grid", "1", "--block", "32"],
                  "simtscope run: error: no kernel 'nope' in ", "(kernels: gelu_fast, gelu_tanh, relu)")
    assert not line.endswith('"')


def test_result_files_that_cannot_be_written_are_refused_before_the_run(capsys, tmp_path):
    # (the path used to fail in json.dump / savefig after the whole run, losing its results)
    _fails(capsys, ["run", "--case", "saxpy_1M", "--timing", "--json", str(tmp_path / "no" / "r.json")],
           f"simtscope run: error: --json {tmp_path / 'no' / 'r.json'}: no folder {tmp_path / 'no'}")
    _fails(capsys, ["validate", "--only", "saxpy_1M", "--json", str(tmp_path)], f"--json {tmp_path}: it is a folder")
    _fails(capsys, ["validate", "--only", "saxpy_1M", "--plot", str(tmp_path / "no" / "p.png")],
           "simtscope validate: error: --plot", "no folder")
    _fails(capsys, ["validate", "--only", "saxpy_1M", "--hw", str(tmp_path / "hw.json")],
           f"--hw {tmp_path / 'hw.json'}: no such file")
    assert list(tmp_path.iterdir()) == []


def test_results_folders_that_are_files_are_refused_before_the_run(capsys, tmp_path):
    afile = tmp_path / "results"
    afile.write_text("a file")
    _fails(capsys, ["validate", "--functional", "--only", "saxpy_1M", "--save-outputs", str(afile)],
           f"simtscope validate: error: --save-outputs {afile}: it is a file, not a folder")
    _fails(capsys, ["sweep", "--only", "saxpy_1M", "--set", "l2.size_kib=30720", "--out", str(afile / "sub")],
           f"simtscope sweep: error: --out {afile / 'sub'}: {afile} is a file, not a folder")
    assert afile.read_text() == "a file"


def test_a_bundle_that_is_not_an_archive_is_one_line(tmp_path):
    from engine.workload.bundle import BundleError, open_bundle
    bad = tmp_path / "model.tar.xz"
    bad.write_bytes(b"garbage, not an archive")
    with pytest.raises(BundleError) as e:
        open_bundle(bad)
    msg = str(e.value)
    assert "\n" not in msg          # (tarfile's message listed each compression it tried on a line of its own)
    assert msg == f"{bad}: not a readable tar archive (file could not be opened successfully; a bundle is a .tar.xz, " \
                  "a .zip or a folder)"


def test_two_things_to_run_or_launches_without_a_bundle_are_refused(capsys, tmp_path):
    _fails(capsys, ["run", "--case", "saxpy_1M", "--workload", str(tmp_path)],
           "simtscope run: error: --workload and --case each name what to run: give one of them")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--launches", "0"],
           "simtscope run: error: --launches picks launches of a --workload bundle")


def test_options_of_another_source_are_refused(capsys, tmp_path):
    """--kernel, --grid, --block, --shared and --arg describe a --ptx launch; --cases goes with --case and
    --allow-unknown-opcodes with --trace. Given with another source they used to be ignored without a word."""
    _fails(capsys, ["run", "--case", "saxpy_1M", "--kernel", "saxpy"],
           "simtscope run: error: --kernel goes with --ptx, not with --case")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--grid", "1,1,1", "--arg", "i32=4"],
           "simtscope run: error: --grid and --arg go with --ptx, not with --case")
    _fails(capsys, ["run", "--workload", str(tmp_path), "--shared", "128"],
           "simtscope run: error: --shared goes with --ptx, not with --workload")
    _fails(capsys, ["run", "--ptx", "k.ptx", "--cases", "c.json"],
           "simtscope run: error: --cases goes with --case, not with --ptx")
    _fails(capsys, ["run", "--case", "saxpy_1M", "--allow-unknown-opcodes"],
           "simtscope run: error: --allow-unknown-opcodes goes with --trace, not with --case")
    _fails(capsys, ["run", "--kernel", "saxpy"], "simtscope run: error: --kernel goes with --ptx: add --ptx")
