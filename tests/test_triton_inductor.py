"""Inductor-like Triton 3.9 kernels (tests/fixtures/ptx/triton/gen_inductor.py, compiled for sm_80 and sm_90
without a GPU) run in the functional core and match numpy: a channels-last conv (Inductor's conv template;
its sm_90 PTX does its index arithmetic with add.s16x2), a bf16 addmm + relu, bf16 layernorm and softmax,
fp16 pointwise with bf16/int8 casts, a masked argmax; the TMA kernel is refused by name."""
import json
from math import erf
from pathlib import Path

import numpy as np
import pytest

from engine.errors import TrapFault
from engine.ptx import UnsupportedInstruction

TRITON = Path(__file__).resolve().parent / "fixtures" / "ptx" / "triton"
META = json.loads((TRITON / "ind_meta.json").read_text())
CCS = ["sm80", "sm90"]


def launch(dev, name, grid, args):
    m = META[name]
    mod = dev.load_ptx(TRITON / name)
    dev.launch(mod.kernel(m["kernel"]), grid, m["block"], list(args) + [0, 0], shared=m["shared"])  # + scratch ptrs


def to_bf16(x):
    """float32 -> bf16 bit patterns, round to nearest even (NaN -> 0x7fff)"""
    f = np.asarray(x, np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    return np.where(np.isnan(f), 0x7FFF, (u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("cc", CCS)
def test_conv_template_channels_last(dev, rng, cc):
    name = f"ind_conv.{cc}.ptx"
    if cc == "sm90":
        assert "add.s16x2" in (TRITON / name).read_text()      # what this test exists for
    B, C, H, W, OC, OH, OW = 2, 32, 28, 28, 32, 14, 14           # gen_inductor.CONV: 3x3, stride 2, pad 1
    x = rng.standard_normal((B, H, W, C)).astype(np.float16)
    w = (rng.standard_normal((C, 3, 3, OC)) * 0.2).astype(np.float16)
    y = dev.to_device(np.zeros((B * OH * OW, OC), np.float16))
    launch(dev, name, ((B * OH * OW + 31) // 32, (OC + 31) // 32), [dev.to_device(x), dev.to_device(w), y])
    xp = np.pad(x.astype(np.float32), ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = np.zeros((B, OH, OW, OC), np.float32)
    for i in range(3):
        for j in range(3):
            ref += np.einsum("nhwc,co->nhwo", xp[:, i:i + 2 * OH:2, j:j + 2 * OW:2, :], w[:, i, j, :].astype(np.float32))
    ref = np.maximum(ref, 0).reshape(-1, OC)
    got = dev.from_device(y).astype(np.float32)
    assert np.allclose(got, ref, rtol=2e-3, atol=2e-3), np.abs(got - ref).max()   # fp16 output rounding


@pytest.mark.parametrize("cc", CCS)
def test_bf16_addmm_relu(dev, rng, cc):
    M, N, K = 96, 80, 72                                         # not multiples of the 64x64x32 tile: masks
    a = to_bf16(rng.standard_normal((M, K)))
    b = to_bf16(rng.standard_normal((K, N)))
    bias = to_bf16(rng.standard_normal(N))
    c = dev.to_device(np.zeros((M, N), np.uint16))
    launch(dev, f"ind_gemm_bf16.{cc}.ptx", (2, 2), [dev.to_device(a), dev.to_device(b), dev.to_device(bias), c,
                                                     M, N, K])
    ref = np.maximum(from_bf16(a).astype(np.float64) @ from_bf16(b) + from_bf16(bias), 0)
    got = from_bf16(dev.from_device(c))
    # one bf16 rounding of an fp32 sum: within 2^-8 relative, plus the fp32 summation order
    assert np.allclose(got, ref, rtol=2 ** -8, atol=1e-3), np.abs(got - ref).max()
    assert np.array_equal(dev.from_device(c), to_bf16(got))      # results are bf16 values


@pytest.mark.parametrize("cc", CCS)
def test_bf16_layernorm(dev, rng, cc):
    rows, n, eps = 4, 700, 1e-5
    x = to_bf16(rng.standard_normal((rows, n)) * 3 + 1)
    w, b = to_bf16(rng.standard_normal(n)), to_bf16(rng.standard_normal(n))
    y = dev.to_device(np.zeros((rows, n), np.uint16))
    launch(dev, f"ind_layernorm_bf16.{cc}.ptx", rows,
           [dev.to_device(x), dev.to_device(w), dev.to_device(b), y, n, eps])
    xf = from_bf16(x).astype(np.float64)
    d = xf - xf.mean(1, keepdims=True)
    ref = d / np.sqrt((d * d).mean(1, keepdims=True) + eps) * from_bf16(w) + from_bf16(b)
    got = from_bf16(dev.from_device(y))
    assert np.allclose(got, ref, rtol=2 ** -7, atol=2e-2), np.abs(got - ref).max()


@pytest.mark.parametrize("cc", CCS)
def test_bf16_softmax(dev, rng, cc):
    rows, n = 3, 300
    x = to_bf16(rng.standard_normal((rows, n)) * 4)
    y = dev.to_device(np.zeros((rows, n), np.uint16))
    launch(dev, f"ind_softmax_bf16.{cc}.ptx", rows, [dev.to_device(x), y, n])
    e = np.exp(from_bf16(x).astype(np.float64) - from_bf16(x).max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    got = from_bf16(dev.from_device(y))
    assert np.allclose(got, ref, rtol=2 ** -7, atol=1e-6), np.abs(got - ref).max()
    assert np.allclose(got.sum(1), 1, atol=2e-2)


@pytest.mark.parametrize("cc", CCS)
def test_fp16_pointwise_with_casts(dev, rng, cc):
    n = 3000
    x = (rng.standard_normal(n) * 4).astype(np.float16)
    x[:6] = [0, -0.0, 65504, -65504, 7.99, -8.01]                 # x*2 overflows fp16; int8 clamps
    y, z, q = (dev.to_device(np.zeros(n, t)) for t in (np.float16, np.uint16, np.int8))
    launch(dev, f"ind_pointwise_f16.{cc}.ptx", (n + 1023) // 1024, [dev.to_device(x), y, z, q, n])
    xf = x.astype(np.float64)
    gelu = 0.5 * xf * (1 + np.array([erf(v / np.sqrt(2)) for v in xf]))
    with np.errstate(over="ignore"):                            # exp(65504): the sigmoid is 0 there
        ref_y = gelu + 1 / (1 + np.exp(-xf)) * from_bf16(to_bf16(x.astype(np.float32)))
        ref_y = ref_y.astype(np.float16).astype(np.float64)      # the fp16 store (65504 * 2 -> inf)
    got_y = dev.from_device(y).astype(np.float64)
    assert np.isinf(got_y[2]) and np.allclose(got_y, ref_y, rtol=2e-3, atol=2e-3)
    with np.errstate(over="ignore"):
        x2 = (x * np.float16(2)).astype(np.float32)              # fp16 multiply, then the bf16 cast
    assert np.array_equal(dev.from_device(z), to_bf16(x2))        # exact: one rounding each
    ref_q = np.trunc(np.clip(xf * 16, -128, 127)).astype(np.int8)   # float -> int8 truncates
    assert np.array_equal(dev.from_device(q), ref_q)


@pytest.mark.parametrize("cc", CCS)
def test_masked_argmax_with_where(dev, rng, cc):
    rows, n = 5, 400
    x = rng.standard_normal((rows, n)).astype(np.float16)
    x[1, 10] = np.nan                                            # NaN never wins (where(x != x, -inf, x))
    x[2, :] = 0
    x[2, 17] = x[2, 300] = 1                                     # ties: the first index
    idx = dev.to_device(np.full(rows, -1, np.int64))
    val = dev.to_device(np.zeros(rows, np.float16))
    launch(dev, f"ind_argmax_where.{cc}.ptx", rows, [dev.to_device(x), idx, val, n])
    xm = np.where(np.isnan(x), -np.inf, x)
    assert dev.from_device(idx).tolist() == np.argmax(xm, 1).tolist()
    assert np.array_equal(dev.from_device(val), xm.max(1).astype(np.float16))


@pytest.mark.parametrize("cc", CCS)
def test_embedding_with_bounds_assert(dev, rng, cc):
    """Inductor's indexing bounds check calls the extern __assertfail: in bounds the lookup runs; one index
    out of bounds stops the launch with the assertion's message, file and line, as CUDA prints them."""
    table = rng.standard_normal((100, 64)).astype(np.float16)
    idx = rng.integers(0, 100, 12).astype(np.int64)
    out = dev.to_device(np.zeros((12, 64), np.float16))
    tab = dev.to_device(table)
    launch(dev, f"ind_embedding.{cc}.ptx", 12, [dev.to_device(idx), tab, out])
    assert np.array_equal(dev.from_device(out), table[idx])
    idx[7] = 100
    with pytest.raises(TrapFault) as e:
        launch(dev, f"ind_embedding.{cc}.ptx", 12, [dev.to_device(idx), tab, out])
    line = next(i for i, t in enumerate(Path(TRITON / "gen_inductor.py").read_text().splitlines(), 1)
                if t.strip().startswith("tl.device_assert("))
    assert "device-side assertion failed: index out of bounds: 0 <= tmp0 < V (" in str(e.value)
    assert f"gen_inductor.py:{line})" in str(e.value)


def test_tma_kernel_is_refused_naming_the_tensor_copies(dev):
    with pytest.raises(UnsupportedInstruction) as e:
        dev.load_ptx(TRITON / "ind_tma_copy.sm90.ptx")
    ops = {op for op, _, _ in e.value.instructions}
    assert {"cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes",
            "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"} <= ops
    assert "unsupported instruction '" in str(e.value)


def test_every_inductor_fixture_but_tma_loads(dev):
    names = sorted(p.name for p in TRITON.glob("ind_*.ptx"))
    assert set(names) == set(META) and len(names) == 16
    for name in names:
        if name != "ind_tma_copy.sm90.ptx":
            assert dev.load_ptx(TRITON / name).kernel(META[name]["kernel"])
