"""On a GPU machine that has only torch, triton and numpy, `python -m simtscope capture` (and run) must start:
the command line imports neither Flask nor the compiled engine until a command needs them."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('flask', 'flask_socketio') or name == 'engine._engine':
            raise ImportError(f'blocked {name}', name=name)
sys.meta_path.insert(0, Block())
sys.argv = ['simtscope'] + sys.argv[1:]
from simtscope.cli import main
sys.exit(main())
"""


def _run(*args):
    return subprocess.run([sys.executable, "-c", BLOCK, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_capture_help_without_flask_or_engine():
    p = _run("capture", "--help")
    assert p.returncode == 0, p.stderr
    assert "--synthetic-params" in p.stdout


def test_sweep_says_why_it_is_unavailable():
    p = _run("sweep")
    assert p.returncode == 2 and "sweeps need the explorer's dependencies (flask" in p.stderr


def _blas_threads_after_import(env_value):
    """OPENBLAS_NUM_THREADS as numpy saw it when `simtscope.cli` was imported first, in a fresh interpreter"""
    import os
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    code = "import simtscope.cli, os, sys; assert 'numpy' in sys.modules; print(os.environ['OPENBLAS_NUM_THREADS'])"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_command_line_runs_blas_on_one_thread_unless_told():
    # spinning OpenBLAS threads would compete with the simulation's --threads; a caller's own setting wins
    assert _blas_threads_after_import(None) == "1"
    assert _blas_threads_after_import("3") == "3"
