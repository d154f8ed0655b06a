"""Capture a torch.compile'd model's forward pass as a gpu-workload/1 bundle (needs an NVIDIA GPU).

    from engine.workload.capture.torch_capture import capture
    capture(build_fn, "out/resnet18_b1.tar.xz", name="resnet18_b1", synthetic_params=True)

`build_fn()` returns (model, inputs) on the GPU. Inductor is configured so that every kernel is Triton's
(max-autotune with Triton GEMM/conv templates, no cuBLAS/cuDNN, no flash attention, no CUDA graphs, no
static launcher); one warm pass compiles and autotunes, then one pass is recorded launch by launch
(hooks.py): the PTX, grid, block, dynamic shared memory, every argument as buffer + offset or scalar, each
buffer's bytes before its first use (zeros stored as a fill, synthetic parameters as the generator's seed),
the outputs, and a label per launch from Inductor's generated code (the module path, e.g. layer1.0.conv1,
and the aten ops it fuses). A model whose compiled code calls an extern library (cuBLAS, cuDNN, flash
attention) is refused with the op named and the setting that avoids it; with allow_opaque it is captured,
the recorded pass runs under torch.profiler and every kernel that did not go through Triton's launcher is
written as an opaque launch carrying its measured time (opaque.py).
"""
from __future__ import annotations

import gc
import glob
import os
import re
import time
from pathlib import Path

import numpy as np

from ..writer import BundleWriter
from . import hooks
from .labels import call_site_labels, extern_calls, label_launches, module_path
from ..bundle import rng_bytes
from .synthetic import apply_synthetic

PTX_TYPES = {"i1": "u8", "u1": "u8", "i8": "s8", "u8": "u8", "i16": "s16", "u16": "u16", "i32": "s32",
             "u32": "u32", "i64": "s64", "u64": "u64", "fp16": "f16", "bf16": "bf16", "fp32": "f32",
             "f32": "f32", "fp64": "f64"}
TORCH_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int64": "i64",
                "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool"}
TOL = {"f16": 1e-2, "bf16": 3e-2, "f32": 1e-4, "f64": 1e-8}


class CaptureError(RuntimeError):
    """The model cannot be captured as asked: names the op, launch or setting."""


def configure_inductor(cache_dir: str, overrides: dict | None = None) -> dict:
    """Inductor settings that make every kernel a Triton kernel launched through Triton's launcher, then
    `overrides` (`--inductor KEY=VALUE`, e.g. max_autotune_gemm_backends=ATEN with --allow-opaque to keep
    cuBLAS GEMMs as opaque launches). Returns what was applied."""
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
    os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")
    import torch
    import torch._inductor.config as ic
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for fn in ("enable_flash_sdp", "enable_mem_efficient_sdp", "enable_cudnn_sdp"):
        if hasattr(torch.backends.cuda, fn):
            getattr(torch.backends.cuda, fn)(False)
    settings = {"max_autotune": True, "max_autotune_gemm": True, "max_autotune_pointwise": False,
                "max_autotune_gemm_backends": "TRITON", "max_autotune_conv_backends": "TRITON",
                "use_static_cuda_launcher": False, "fx_graph_cache": False, "comment_origin": True,
                "force_disable_caches": True}
    applied = {}
    for k, v in settings.items():
        if hasattr(ic, k):
            setattr(ic, k, v)
            applied[k] = v
    if hasattr(ic, "triton"):
        for k, v in {"cudagraphs": False, "use_static_cuda_launcher": False}.items():
            if hasattr(ic.triton, k):
                setattr(ic.triton, k, v)
                applied[f"triton.{k}"] = v
    for k, v in (overrides or {}).items():
        obj, _, attr = ("triton." + k[7:] if k.startswith("triton.") else k).rpartition(".")
        target = ic.triton if obj == "triton" else ic
        if obj not in ("", "triton") or not hasattr(target, attr):
            raise CaptureError(f"--inductor {k}: torch._inductor.config has no setting {k}")
        setattr(target, attr, v)
        applied[k] = v
    return applied


def parse_inductor(items: list[str] | None) -> dict:
    """`--inductor KEY=VALUE` items -> {key: value}; true/false become booleans, integers integers."""
    out = {}
    for it in items or []:
        k, eq, v = it.partition("=")
        if not eq or not k.strip():
            raise CaptureError(f"--inductor {it!r}: expected KEY=VALUE")
        v = v.strip()
        out[k.strip()] = {"true": True, "false": False}.get(v.lower(), int(v) if v.lstrip("-").isdigit() else v)
    return out


def _storage_bytes(st) -> bytes:
    import torch
    t = torch.empty(0, dtype=torch.uint8, device=st.device)
    t.set_(st, 0, (st.nbytes(),), (1,))
    return t.cpu().numpy().tobytes()


def _entry_param_count(ptx: str, name: str) -> int:
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    return len(re.findall(r"\.param\b", m.group(1))) if m else -1


class Recorder:
    """Turns recorded launches into a BundleWriter's buffers and launches."""

    def __init__(self, writer: BundleWriter, names: dict[int, tuple[str, str]], synthetic: dict[int, dict],
                 labels_fn=None):
        self.w = writer
        self.names = names                     # storage address -> (name, role) for params and inputs
        self.synthetic = synthetic             # storage address -> rng init for synthetic params/inputs
        self.buffers: dict[int, tuple[str, int]] = {}   # storage address -> (id, bytes)
        self.keep: list = []                   # storages kept alive: no address is reused within the pass
        self.kinfo: dict[int, hooks.KernelInfo] = {}
        self.launch_kernels: list[str] = []
        self.labels_fn = labels_fn
        self.stats = {"file_bytes": 0, "zero_buffers": 0, "rng_buffers": 0}

    def _buffer(self, t) -> tuple[str, int]:
        import torch
        if isinstance(t, torch.Tensor):
            st = t.untyped_storage()
            base, nbytes = st.data_ptr(), st.nbytes()
            off = t.data_ptr() - base
        else:                                   # a raw address: find the known buffer holding it
            addr = int(t)
            for base, (bid, nbytes) in self.buffers.items():
                if base <= addr < base + nbytes:
                    return bid, addr - base
            raise CaptureError(f"a pointer argument 0x{addr:x} is not inside any tensor seen so far")
        if base not in self.buffers:
            bid = f"b{len(self.buffers)}"
            torch.cuda.synchronize()
            data = _storage_bytes(st)
            name, role = self.names.get(base, (None, "intermediate"))
            init = self.synthetic.get(base)
            if init is not None and rng_bytes(init, nbytes) == data:
                self.w.buffer(bid, nbytes, rng=init, name=name, role=role)
                self.stats["rng_buffers"] += 1
            elif data.count(0) == len(data):
                self.w.buffer(bid, nbytes, fill="zeros", name=name, role=role)
                self.stats["zero_buffers"] += 1
            else:
                self.w.buffer(bid, data=data, name=name, role=role)
                self.stats["file_bytes"] += nbytes
            self.buffers[base] = (bid, nbytes)
            self.keep.append(st)
        bid, nbytes = self.buffers[base]
        return bid, off

    def on_launch(self, ck, grid, args) -> None:
        if ck is None:
            raise CaptureError("a launch through Triton's launcher came from a kernel that was never loaded "
                               "through CompiledKernel (static launcher still on?)")
        info = self.kinfo.get(id(ck)) or hooks.kernel_info(ck)
        self.kinfo[id(ck)] = info
        if info.num_ctas != 1:
            raise CaptureError(f"{info.name}: thread-block clusters (num_ctas={info.num_ctas}) are not supported")
        if len(args) != len(info.signature):
            raise CaptureError(f"{info.name}: {len(args)} arguments for a signature of {len(info.signature)}")
        entries = []
        for (aname, typ), v in zip(info.signature, args):
            if typ == "constexpr":
                continue
            if typ.startswith("*"):
                if v is None or (isinstance(v, int) and v == 0):
                    entries.append({"value": 0, "type": "u64"})
                else:
                    bid, off = self._buffer(v)
                    entries.append(self.w.ptr(bid, off))
            elif typ in PTX_TYPES:
                val = float(v) if typ.startswith(("fp", "bf", "f")) else int(v)
                entries.append(self.w.value(val, PTX_TYPES[typ]))
            else:
                raise CaptureError(f"{info.name}: argument {aname} has type {typ}, which a bundle cannot carry "
                                   f"(tensor descriptors / TMA are not supported)")
        entries.append(self.w.scratch(info.global_scratch))
        entries.append(self.w.scratch(info.profile_scratch))
        want = _entry_param_count(info.ptx, info.name)
        if want != len(entries):
            raise CaptureError(f"{info.name}: recorded {len(entries)} arguments but its PTX entry has {want} "
                               f"parameters (signature {info.signature})")
        ptx_rel = self.w.ptx(info.name, info.ptx)
        self.w.launch(info.name, ptx_rel, grid, (info.num_warps * 32, 1, 1), info.shared, entries,
                      name=info.name)
        self.launch_kernels.append(info.name)


def _leaves(out):
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        return [t for v in out.values() for t in _leaves(v)]
    if isinstance(out, (list, tuple)):
        return [t for v in out for t in _leaves(v)]
    if hasattr(out, "to_tuple"):
        return _leaves(out.to_tuple())
    return []


def capture(build, dest: str | Path, name: str, description: str = "", synthetic_params: bool = False,
            allow_opaque: bool = False, log=print, labels_only: bool = False, inductor: dict | None = None) -> dict:
    """Compile, warm up, record one forward pass, write the bundle to `dest`; returns a summary dict.
    labels_only: stop after compiling and return {"call_sites": [...]} (relabel.py uses it); inductor:
    settings applied after ours (configure_inductor)."""
    import tempfile
    cache = tempfile.mkdtemp(prefix="simtscope-inductor-")
    applied = configure_inductor(cache, inductor)
    import torch
    import triton
    hooks.install()
    t0 = time.time()
    model, inputs = build()
    inputs = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    synthetic = {}
    if synthetic_params:
        synthetic = apply_synthetic(model, inputs)
    names: dict[int, tuple[str, str]] = {}
    for n, p in list(model.named_parameters()) + list(model.named_buffers()):
        names.setdefault(p.untyped_storage().data_ptr(), (n, "param"))
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            names.setdefault(x.untyped_storage().data_ptr(), (f"input{i}", "input"))

    mods: dict[str, str] = {}

    def backend(gm, example_inputs):
        for node in gm.graph.nodes:
            stack = node.meta.get("nn_module_stack")
            if stack:
                mods[node.name] = module_path(list(stack.values())[-1][0])
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)

    with torch.no_grad():
        eager = model(*inputs)
        compiled = torch.compile(model, backend=backend, fullgraph=True, dynamic=False)
        compiled(*inputs)                                   # compile + autotune + warm up
        torch.cuda.synchronize()
        t_compile = time.time() - t0
        code = _output_code(cache)
        externs = extern_calls(code)
        if externs and not allow_opaque:
            raise CaptureError(f"{name}: the compiled code calls {', '.join(sorted(set(externs)))}, which has no "
                               f"PTX; keep max_autotune_gemm_backends/max_autotune_conv_backends = 'TRITON' and "
                               f"flash/efficient attention off, or rewrite that op")
        sites = call_site_labels(code, mods)
        if labels_only:
            return {"name": name, "call_sites": sites}
        gc.collect()
        torch.cuda.empty_cache()
        zeroed = zero_free_memory()
        w = BundleWriter(name, description=description, source={
            "framework": f"torch {torch.__version__}", "compiler": f"triton {triton.__version__}",
            "device": torch.cuda.get_device_name(), "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "by": "simtscope capture", "inductor": {k: v for k, v in applied.items()}},
            **({"synthetic": True} if synthetic_params else {}))
        rec = Recorder(w, names, synthetic)

        def one_pass():
            with hooks.recording(rec):
                res = compiled(*inputs)
                torch.cuda.synchronize()
            return res
        if allow_opaque:                                    # the GPU's own list of kernels, for the opaque ones
            from .opaque import profile_pass, sm_clock_mhz
            out, trace = profile_pass(one_pass)
            clock = sm_clock_mhz()
        else:
            out, trace, clock = one_pass(), None, (None, "")
    opaque = finish_launches(w, code, sites, mods, trace, clock) if allow_opaque else 0
    if allow_opaque:
        log(f"  {opaque} opaque launch(es) recorded (measured time only)")
    outs = _leaves(out)
    eager_outs = _leaves(eager)
    max_rel = 0.0
    for k, t in enumerate(outs):
        st = t.untyped_storage()
        base = st.data_ptr()
        if base not in rec.buffers:
            log(f"  output {k} was not written by a Triton launch (a view of an input?): not checked")
            continue
        bid, _ = rec.buffers[base]
        dt = TORCH_DTYPES.get(str(t.dtype).replace("torch.", ""))
        if dt is None:
            continue
        data = _storage_bytes(st)
        isz = t.element_size()
        off = (t.data_ptr() - base)
        extent = (sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1) * isz if t.numel() else 0
        w.output(bid, dt, list(t.shape), data[off:off + extent], stride=list(t.stride()), offset=off,
                 tol=TOL.get(dt, 0.0))
        if k < len(eager_outs) and t.is_floating_point():
            e = eager_outs[k].float()
            max_rel = max(max_rel, float((t.float() - e).norm() / max(float(e.norm()), 1e-30)))
    path = w.save(dest)
    summary = {"name": name, "launches": len(w.manifest["launches"]), "buffers": len(w.manifest["buffers"]),
               "modules": len({L["ptx"] for L in w.manifest["launches"]}), "externs": sorted(set(externs)),
               "compiled_vs_eager": max_rel, "compile_s": round(t_compile, 1),
               "total_s": round(time.time() - t0, 1), "zeroed_free_bytes": zeroed, "bundle_bytes": Path(path).stat().st_size
               if Path(path).is_file() else None, "opaque_launches": opaque, **rec.stats}
    log(f"{name}: {summary}")
    return summary


def finish_launches(w: BundleWriter, code: str, sites: list[dict], mods: dict[str, str], trace=None,
                    clock: tuple[float | None, str] = (None, "")) -> int:
    """After the recorded pass: label the Triton launches per call site, store Inductor's code and, when a
    profiler trace of the pass is given (--allow-opaque), insert every kernel that did not go through
    Triton's launcher as an opaque launch in its place. Returns the number of opaque launches. Needs no
    GPU (tests give it a recorded trace)."""
    label_launches(w.manifest["launches"], sites)
    w.files["output_code.py"] = code.encode()               # Inductor's generated code, for people
    if trace is None:
        return 0
    from .labels import extern_sites
    from .opaque import OpaqueError, kernels_from_trace, merge, place_opaque
    triton = [L["kernel"] for L in w.manifest["launches"]]
    try:
        order = merge(triton, kernels_from_trace(trace))
    except OpaqueError as e:
        raise CaptureError(f"--allow-opaque: {e}") from None
    w.manifest["launches"], n = place_opaque(w.manifest["launches"], order, extern_sites(code, mods), clock[0])
    if n:
        w.manifest.setdefault("source", {})["opaque_clock"] = clock[1]
    return n


def zero_free_memory() -> int:
    """Zero every free block the caching allocator holds, so that a buffer allocated during the recorded
    pass starts as zeros (stored as a fill), not as the warm-up pass's leftovers (megabytes of files)."""
    import ctypes
    import torch
    torch.cuda.synchronize()
    cu = ctypes.CDLL("libcuda.so.1")
    total = 0
    for seg in torch.cuda.memory_snapshot():
        addr = int(seg["address"])
        for blk in seg.get("blocks", []):
            size = int(blk["size"])
            start = int(blk.get("address", addr))
            if blk.get("state") == "inactive" and size:
                if cu.cuMemsetD8_v2(ctypes.c_uint64(start), ctypes.c_ubyte(0), ctypes.c_size_t(size)) == 0:
                    total += size
            addr = start + size
    torch.cuda.synchronize()
    return total


def _output_code(cache_dir: str) -> str:
    """Inductor's generated Python for the graph (the file with `def call(`), newest last."""
    files = [f for f in glob.glob(os.path.join(cache_dir, "**", "*.py"), recursive=True)]
    best = []
    for f in files:
        try:
            text = Path(f).read_text()
        except OSError:
            continue
        if "def call(" in text and "async_compile" in text:
            best.append((os.path.getmtime(f), text))
    return "\n".join(t for _, t in sorted(best))
