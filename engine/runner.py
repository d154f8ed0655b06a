"""Running a validation case (or any PTX launch) on the simulator: buffers in, launch, buffers out, check."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import errors
from .cases import Case
from .device import Device, DeviceBuffer, LaunchResult

_MODULE_CACHE: dict[tuple[int, str], object] = {}


@dataclass
class CaseRun:
    name: str
    passed: bool | None
    errors: dict
    launch: LaunchResult | None
    wall_s: float
    outputs: dict = field(default_factory=dict)
    fault: str | None = None
    timing: object = None          # TimingResult when run in timing mode

    def as_json(self) -> dict:
        d = {"name": self.name, "passed": self.passed, "warp_insts": self.launch.warp_insts if self.launch else 0,
             "wall_s": round(self.wall_s, 6), "errors": self.errors}
        if self.fault:
            d["fault"] = self.fault
        return d


def prepare(case: Case, dev: Device):
    """Load the module, create and fill the buffers; returns (kernel, args, inputs, buffers)."""
    mod = dev.load_ptx(case.ptx_path)
    kernel = mod.kernel(case.kernel)
    inputs = case.inputs()
    args, bufs = [], {}
    for a in case.args:
        if a["kind"] == "buffer":
            b = dev.to_device(inputs[a["name"]])
            bufs[a["name"]] = b
            args.append(b)
        else:
            args.append(a["value"])
    return kernel, args, inputs, bufs


def run_case(case: Case, dev: Device | None = None, max_warp_insts: int = 0, keep_outputs: bool = False,
             launcher=None) -> CaseRun:
    """Run one case in the functional core (or with `launcher(kernel, case, args)` in its place)."""
    dev = dev or Device()
    t0 = time.perf_counter()
    kernel, args, inputs, bufs = prepare(case, dev)
    res, timing = None, None
    try:
        try:
            if launcher is None:
                res = dev.launch(kernel, case.grid, case.block, args, shared=case.shared,
                                 max_warp_insts=max_warp_insts)
            else:
                res, timing = launcher(kernel, case, args)
        except errors.KernelFault as e:
            return CaseRun(case.name, False, {}, None, time.perf_counter() - t0, fault=str(e))
        outs = {name: dev.from_device(bufs[name]) for name in case.outputs}
        passed, errs = case.check(inputs, outs)
        return CaseRun(case.name, passed, errs, res, time.perf_counter() - t0,
                       outputs=outs if keep_outputs else {}, timing=timing)
    finally:                    # freed on every path: the next case on this device sees fresh addresses
        for b in bufs.values():
            dev.free(b)


def save_outputs(run: CaseRun, directory: Path) -> None:
    d = Path(directory) / run.name
    d.mkdir(parents=True, exist_ok=True)
    for name, arr in run.outputs.items():
        np.save(d / f"{name}.npy", arr)
