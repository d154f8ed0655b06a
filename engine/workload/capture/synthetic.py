"""Synthetic parameters: fill a model's parameters and inputs from the suite's seeded generator, so a
bundle stores seeds instead of megabytes (a dense model's timing does not depend on the values).

Ranges keep activations finite in fp16: weights +-2^-k with 2^k about sqrt(fan-in), 1-D scales (norm
weights, running variances) in [0.5, 1.5), other 1-D tensors (biases, running means) in +-2^-5.
Integer inputs (token ids) are left as they are and stored as files.
"""
from __future__ import annotations

import math
import zlib

import numpy as np

from ..bundle import rng_bytes

_DTYPES = {"torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float32": "f32"}


def init_for(name: str, shape: tuple, dtype: str, seed: int) -> dict:
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:]))
        k = max(0, round(math.log2(max(1.0, math.sqrt(fan_in)))))
        lo, hi = -(2.0 ** -k), 2.0 ** -k
    elif name.endswith(("running_var", "weight")) and len(shape) == 1:
        lo, hi = 0.5, 1.5
    else:
        lo, hi = -(2.0 ** -5), 2.0 ** -5
    return {"rng": "uniform", "dtype": dtype, "lo": lo, "hi": hi, "seed": seed}


def apply_synthetic(model, inputs) -> dict[int, dict]:
    """Overwrite floating parameters, buffers and inputs in place; returns storage address -> rng init for
    each one whose storage it fills exactly (others still get values but are stored as files)."""
    import torch
    out: dict[int, dict] = {}
    named = list(model.named_parameters()) + list(model.named_buffers()) + \
        [(f"input{i}", x) for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
    seen = set()
    with torch.no_grad():
        for name, t in named:
            dt = _DTYPES.get(str(t.dtype))
            st = t.untyped_storage()
            if dt is None or st.data_ptr() in seen:
                continue
            seen.add(st.data_ptr())
            seed = zlib.crc32(name.encode()) + 1000
            nbytes = t.numel() * t.element_size()
            whole = t.storage_offset() == 0 and st.nbytes() == nbytes
            init = init_for(name, tuple(t.shape), dt, seed)
            src = torch.frombuffer(bytearray(rng_bytes(init, nbytes)), dtype=torch.uint8).to(t.device)
            if whole:                            # the storage in memory order, whatever the layout
                raw = torch.empty(0, dtype=torch.uint8, device=t.device)
                raw.set_(st, 0, (nbytes,), (1,))
                raw.copy_(src)
                out[st.data_ptr()] = init
            else:
                flat = torch.empty(t.numel(), dtype=t.dtype, device=t.device)
                flat.view(torch.uint8).copy_(src)
                t.copy_(flat.view(t.shape))
    return out
