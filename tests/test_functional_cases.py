"""Small validation cases run in the functional core and match their references."""
import pytest

from engine.device import Device
from engine.runner import run_case

SMALL = ["saxpy_1M", "vector_add_1M", "relu_4M", "gelu_tanh_4M", "reduce_smem_4M", "reduce_shfl_4M",
         "sgemm_naive_256", "sgemm_tiled16_256", "sgemm_rb64_512", "sgemm_rb128_512", "hgemm_wmma_simple_512",
         "hgemm_wmma_tiled_512", "im2col_3x3_n1", "softmax_4096x128", "hist_smem_256bins_4M",
         "hist_global_32bins_4M"]


@pytest.mark.parametrize("name", SMALL)
def test_case_passes(suite, name):
    run = run_case(suite[name], Device())
    assert run.fault is None, run.fault
    assert run.passed is True, run.errors
    assert run.launch.warp_insts > 0
