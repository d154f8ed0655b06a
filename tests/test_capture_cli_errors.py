"""`simtscope capture`'s mistakes in its own arguments get one line (the model's own code keeps its traceback)."""
import importlib.util

import pytest

from engine.workload.capture.cli import load_builder
from simtscope.cli import main


def test_a_model_file_or_module_that_does_not_exist_is_named(tmp_path):
    with pytest.raises(SystemExit, match=r"--model '.*none\.py:build': no file .*none\.py$"):
        load_builder(f"{tmp_path / 'none.py'}:build")
    with pytest.raises(SystemExit, match=r"--model 'no_such_models:build': no module named 'no_such_models'"):
        load_builder("no_such_models:build")
    with pytest.raises(SystemExit, match=r"--model 'json:build': json has no build"):
        load_builder("json:build")
    with pytest.raises(SystemExit, match=r"expected module:function"):
        load_builder("build")


def test_a_missing_import_inside_the_model_keeps_its_own_error(tmp_path):
    f = tmp_path / "mymodel.py"
    f.write_text("import no_such_dependency_xyz\ndef build():\n    pass\n")
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        load_builder(f"{f}:build")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed here")
def test_capture_without_torch_says_so(capsys):
    assert main(["capture", "--model", "json:loads"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("simtscope capture: error: capturing runs the model with PyTorch on a CUDA GPU, "
                           "and torch is not installed here")
