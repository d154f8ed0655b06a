"""Real Triton 3.9 PTX (tests/fixtures/ptx/triton, made by gen_triton.py with triton.compile for a
GPUTarget, no GPU needed) runs in the functional core and matches numpy."""
from pathlib import Path

import numpy as np
import pytest

from engine.device import Device
from engine.ptx.lower import lower
from engine.ptx.syntax import parse

TRITON = Path(__file__).resolve().parent / "fixtures" / "ptx" / "triton"


@pytest.mark.parametrize("target", ["sm75", "sm90"])
def test_vector_add(target, rng):
    dev = Device()
    m = dev.load_ptx(TRITON / f"add.{target}.ptx")
    k = m.kernel("add_kernel")
    assert len(k.params) == 6                    # x, y, out, n + Triton's two hidden scratch pointers
    n = 5000                                     # not a multiple of BLOCK=1024: masked tail
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    bx, by, bo = dev.to_device(x), dev.to_device(y), dev.to_device(np.zeros(n + 64, np.float32))
    dev.launch(k, (n + 1023) // 1024, 128, [bx, by, bo, n, 0, 0])
    out = dev.from_device(bo)
    assert np.array_equal(out[:n], x + y) and not out[n:].any()


def test_layernorm(rng):
    dev = Device()
    m = dev.load_ptx(TRITON / "layernorm.sm90.ptx")
    rows, n, eps = 6, 300, 1e-5
    x = rng.standard_normal((rows, n)).astype(np.float16)
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    bx, by = dev.to_device(x), dev.to_device(np.zeros((rows, n), np.float16))
    dev.launch(m.kernel("layernorm_kernel"), rows, 128,
               [bx, by, dev.to_device(w), dev.to_device(b), n, n, eps, 0, 0], shared=1024)   # extern global_smem
    xf = x.astype(np.float32)
    mean = xf.mean(1, keepdims=True)
    ref = (xf - mean) / np.sqrt(((xf - mean) ** 2).mean(1, keepdims=True) + eps) * w + b
    got = dev.from_device(by).astype(np.float32)
    assert np.allclose(got, ref, rtol=2e-3, atol=2e-3)


def test_inline_asm_blocks_reuse_local_names():
    """Triton's inline-asm `{ .reg .b32 t; .reg .pred p; ... }` blocks declare the same names many times;
    each block gets its own registers."""
    text = (TRITON / "inline_asm.sm90.ptx").read_text()
    assert text.count("{ .reg .b32 t; .reg .pred p;") >= 4
    prog = lower(parse(text), text, regalloc=False)
    k = prog.kernels["inline_asm_kernel"]
    blocks = text.count("{ .reg .b32 t;")
    declared = sum(int(x) for x in __import__("re").findall(r"\.reg \.b32 \t%r<(\d+)>", text))
    assert k.nregs >= declared + blocks - 2


def test_big_triton_module_loads(tmp_path):
    """Many kernels in one module (a 50k-line file is built from the attention kernel)."""
    src = (TRITON / "attention.sm90.ptx").read_text()
    head, _, rest = src.partition(".visible .entry")
    body = ".visible .entry" + rest.split("\t.file")[0]
    copies = [body.replace("attention_kernel", f"attention_{i}") for i in range(28)]
    text = head + "".join(copies)
    assert len(text.splitlines()) > 40_000
    prog = lower(parse(text), text)
    assert len(prog.kernels) == 28
