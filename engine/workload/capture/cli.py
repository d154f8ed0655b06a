"""`simtscope capture`: a model's forward pass as a gpu-workload/1 bundle (run on a GPU machine).

    simtscope capture --model workloads/zoo/models.py:resnet18_b1_224_fp16 --synthetic-params \
        --out workloads/zoo/resnet18_b1_224_fp16.tar.xz [--measure] [--allow-opaque] [--inductor KEY=VALUE]

--model is `module:function` or `path/to/file.py:function`; the function returns (model, inputs).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from ...resources import missing_module


def load_builder(spec: str):
    mod, _, fn = spec.rpartition(":")
    if not mod or not fn:
        raise SystemExit(f"--model {spec!r}: expected module:function or file.py:function")
    if mod.endswith(".py"):
        if not Path(mod).is_file():
            raise SystemExit(f"--model {spec!r}: no file {mod}")
        s = importlib.util.spec_from_file_location(Path(mod).stem, mod)
        m = importlib.util.module_from_spec(s)
        sys.modules[s.name] = m
        s.loader.exec_module(m)                 # (an error inside the model's own code keeps its traceback)
    else:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name is None or not (mod == e.name or mod.startswith(e.name + ".")):
                raise                           # the module exists and one of its own imports is missing
            raise SystemExit(f"--model {spec!r}: no module named {e.name!r} "
                             "(a file needs its path: file.py:function)") from None
    if not hasattr(m, fn):
        raise SystemExit(f"--model {spec!r}: {mod} has no {fn}")
    return getattr(m, fn)


def cmd_capture(a) -> int:
    if missing_module("torch"):
        print("simtscope capture: error: capturing runs the model with PyTorch on a CUDA GPU, and torch is not "
              "installed here", file=sys.stderr)
        return 2
    from .torch_capture import CaptureError, capture, parse_inductor
    name = a.name or a.model.rpartition(":")[2]
    out = a.out or f"{name}.tar.xz"
    try:
        inductor = parse_inductor(a.inductor)
        build = load_builder(a.model)
        capture(build, out, name, description=a.description or "", synthetic_params=a.synthetic_params,
                allow_opaque=a.allow_opaque, inductor=inductor)
    except CaptureError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.measure:
        from .measure import main as measure_main
        return measure_main([out])
    return 0


def add_parser(sub) -> None:
    c = sub.add_parser("capture", help="capture a torch.compile'd model as a workload bundle (needs a GPU)")
    c.add_argument("--model", required=True, help="module:function or file.py:function returning (model, inputs)")
    c.add_argument("--name", help="bundle name (default: the function's name)")
    c.add_argument("--out", help="bundle path: folder, .tar.xz or .zip (default NAME.tar.xz)")
    c.add_argument("--description")
    c.add_argument("--synthetic-params", action="store_true",
                   help="parameters and inputs from the seeded generator (the bundle stores seeds)")
    c.add_argument("--allow-opaque", action="store_true",
                   help="capture extern library calls (cuBLAS, cuDNN, flash attention, aten fallbacks) as opaque "
                        "launches carrying only their measured time (the recorded pass runs under torch.profiler)")
    c.add_argument("--inductor", action="append", metavar="KEY=VALUE",
                   help="a torch._inductor.config setting applied after capture's own (repeatable), e.g. "
                        "max_autotune_gemm_backends=ATEN with --allow-opaque: GEMMs stay cuBLAS, as opaque launches")
    c.add_argument("--measure", action="store_true", help="then measure per-launch CUDA-event time and ncu cycles")
    c.set_defaults(fn=cmd_capture)
