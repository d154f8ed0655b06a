"""Recording Triton launches as they happen (on a machine with an NVIDIA GPU, torch and triton).

Every launch of a Triton kernel goes through the CUDA backend's launcher object
(`triton.backends.nvidia.driver.CudaLauncher.__call__(gridX, gridY, gridZ, stream, function, *rest)`,
where `rest` is (packed metadata, launch metadata, enter hook, exit hook, *kernel arguments in signature
order)). `install()` wraps it once, and wraps `CompiledKernel._init_handles` to learn which compiled kernel
(its PTX, name, shared memory, warps, signature) a CUfunction handle belongs to. While a `Recorder` is
active, each launch is handed to it *before* it runs (so buffers can be read as they were before first
use); otherwise launches pass through untouched (warm-up and autotuning are not recorded).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

_state = threading.local()
_registry: dict[int, object] = {}          # CUfunction handle -> CompiledKernel
_installed = False


@dataclass
class KernelInfo:
    name: str
    ptx: str
    shared: int
    num_warps: int
    num_ctas: int
    signature: list[tuple[str, str]]       # (argument name, triton type) in order, constexprs included
    global_scratch: int
    profile_scratch: int


def kernel_info(ck) -> KernelInfo:
    md = ck.metadata
    src = ck.src
    sig = src.signature if hasattr(src, "signature") else {}
    names = list(getattr(getattr(src, "fn", None), "arg_names", []) or [])
    items = []
    for i, (k, v) in enumerate(sig.items()):
        name = k if isinstance(k, str) else (names[k] if isinstance(k, int) and k < len(names) else str(k))
        items.append((name, str(v)))
    return KernelInfo(name=ck.name, ptx=ck.asm["ptx"], shared=int(md.shared), num_warps=int(md.num_warps),
                      num_ctas=int(getattr(md, "num_ctas", 1)),
                      signature=items, global_scratch=int(getattr(md, "global_scratch_size", 0) or 0),
                      profile_scratch=int(getattr(md, "profile_scratch_size", 0) or 0))


def install() -> None:
    """Wrap Triton's CUDA launcher and kernel loading (idempotent). Call before torch.compile runs."""
    global _installed
    if _installed:
        return
    from triton.backends.nvidia import driver as nvdriver
    from triton.compiler import compiler as tcompiler

    orig_init_handles = tcompiler.CompiledKernel._init_handles

    def _init_handles(self):
        orig_init_handles(self)
        fn = getattr(self, "function", None)
        if fn is not None:
            _registry[int(fn)] = self
    tcompiler.CompiledKernel._init_handles = _init_handles

    orig_call = nvdriver.CudaLauncher.__call__

    def __call__(self, gridX, gridY, gridZ, stream, function, *rest):
        rec = getattr(_state, "recorder", None)
        if rec is not None and not getattr(_state, "inside", False):
            ck = _registry.get(int(function))
            _state.inside = True
            try:
                rec.on_launch(ck, (int(gridX), int(gridY), int(gridZ)), rest[4:])
            finally:
                _state.inside = False
        return orig_call(self, gridX, gridY, gridZ, stream, function, *rest)
    nvdriver.CudaLauncher.__call__ = __call__
    _installed = True


class recording:
    """Context manager: launches on this thread go to `recorder.on_launch(compiled_kernel, grid, args)`."""

    def __init__(self, recorder):
        self.recorder = recorder

    def __enter__(self):
        install()
        _state.recorder = self.recorder
        return self.recorder

    def __exit__(self, *exc):
        _state.recorder = None
