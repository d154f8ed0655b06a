"""Device-side asserts (Triton's tl.device_assert, CUDA's assert) call the runtime's __assertfail, which
has no body in the module: the call runs only when the assertion failed, and stops the kernel as trap."""
import numpy as np
import pytest

from engine import errors

PTX = """
.version 8.4
.target sm_90
.address_size 64
.extern .func __assertfail
(
	.param .b64 __assertfail_param_0,
	.param .b64 __assertfail_param_1,
	.param .b32 __assertfail_param_2,
	.param .b64 __assertfail_param_3,
	.param .b64 __assertfail_param_4
)
.noreturn;
.global .align 1 .b8 assertMessage_0[6] = {105, 100, 120, 32, 60, 0};
.visible .entry gather(
	.param .u64 p_out, .param .u64 p_idx, .param .u32 p_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p_out];
	ld.param.u64 %rd2, [p_idx];
	ld.param.u32 %r1, [p_n];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r3, [%rd4];
	setp.lt.u32 %p1, %r3, %r1;
	@%p1 bra $L_ok;
	{ // callseq 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 [param0], assertMessage_0;
	.param .b64 param1;
	st.param.b64 [param1], assertMessage_0;
	.param .b32 param2;
	st.param.b32 [param2], 7;
	.param .b64 param3;
	st.param.b64 [param3], assertMessage_0;
	.param .b64 param4;
	st.param.b64 [param4], 1;
	call.uni __assertfail, (param0, param1, param2, param3, param4);
	} // callseq 0
	trap;
$L_ok:
	add.s64 %rd5, %rd1, %rd3;
	st.global.u32 [%rd5], %r3;
	ret;
}
"""


def test_assert_that_holds_runs(dev):
    k = dev.load_ptx(PTX).kernel("gather")
    idx = dev.to_device(np.arange(32, dtype=np.uint32))
    out = dev.to_device(np.zeros(32, np.uint32))
    dev.launch(k, 1, 32, [out, idx, 32])
    assert dev.from_device(out).tolist() == list(range(32))


def test_assert_that_fails_stops_the_kernel_with_a_trap_fault(dev):
    k = dev.load_ptx(PTX, filename="gather.ptx").kernel("gather")
    idx = dev.to_device(np.array([0] * 31 + [40], np.uint32))
    out = dev.to_device(np.zeros(32, np.uint32))
    with pytest.raises(errors.TrapFault, match=r"lane 31.*gather.ptx:\d+"):
        dev.launch(k, 1, 32, [out, idx, 32])
