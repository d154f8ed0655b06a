"""Special registers of every thread (%tid, %ntid, %laneid, %ctaid) for block shapes whose rows do not line up with
warps: the CTA set-up computes a warp's thread ids by counting along the block's rows with carries (cta.c), and
`mov` from %tid copies them (exec_move.c). Checked in the functional core and the timing model against numpy."""
import numpy as np
import pytest

from engine.device import Device
from engine.timing import TimingSim

IDS = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry ids(.param .u64 pout)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %laneid;
  mov.u32 %r8, %ctaid.x;
  mov.u32 %r9, %ctaid.y;
  mov.u32 %r10, %nctaid.x;
  // t = x + nx * (y + ny * z); cta = ctaid.x + nctaid.x * ctaid.y; g = cta * nx * ny * nz + t
  mad.lo.u32 %r11, %r5, %r3, %r2;
  mad.lo.u32 %r11, %r4, %r11, %r1;
  mad.lo.u32 %r12, %r10, %r9, %r8;
  mul.lo.u32 %r13, %r4, %r5;
  mul.lo.u32 %r13, %r13, %r6;
  mad.lo.u32 %r14, %r12, %r13, %r11;
  mul.lo.u32 %r14, %r14, 5;
  mul.wide.u32 %rd2, %r14, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  st.global.u32 [%rd3+4], %r2;
  st.global.u32 [%rd3+8], %r3;
  st.global.u32 [%rd3+12], %r7;
  st.global.u32 [%rd3+16], %r12;
  ret;
}
"""

SHAPES = [(7, 5, 3), (33, 2, 2), (1, 1, 64), (100, 1, 1), (32, 4, 1), (5, 1, 7), (48, 3, 1), (2, 3, 40)]
GRID = (2, 3, 1)


def reference(block):
    bx, by, bz = block
    n = bx * by * bz
    rows = []
    for cta in range(GRID[0] * GRID[1]):
        for t in range(n):
            rows.append((t % bx, (t // bx) % by, t // (bx * by), t % 32, cta))
    return np.array(rows, np.uint32)


@pytest.mark.parametrize("block", SHAPES, ids=lambda b: "x".join(map(str, b)))
@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_thread_ids_match_numpy(block, mode):
    sim = TimingSim("h200", threads=1) if mode == "timing" else None
    dev = sim.device if sim else Device()
    kernel = dev.load_ptx(IDS, "ids.ptx").kernel("ids")
    ref = reference(block)
    out = dev.to_device(np.full(ref.size, 0xFFFFFFFF, np.uint32))
    (sim or dev).launch(kernel, GRID, block, [out])
    got = dev.from_device(out).reshape(-1, 5)
    np.testing.assert_array_equal(got, ref)
