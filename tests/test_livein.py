"""A CTA start clears only the register slots that can be read before they are written (engine/csrc/livein.h); a
thread must still read 0 from a register it never wrote, even when the CTA slot it runs in is reused and the
previous CTA wrote that register. Two ways to read one: (a) on a path of the thread's own that skips the write,
(b) from another lane, with shfl, where that lane left before writing it. Odd and even CTAs take opposite
sides, so any slot left uncleared shows the previous CTA's value. Functional core (one CTA slot reused for every
CTA) and timing model (2 SMs with one CTA slot each). The reference is the same CTAs launched one at a time, each
in a fresh register file, whatever slots the register allocator shares; that it reads the zeros intended is
checked too."""
import numpy as np
import pytest

from engine.device import Device
from engine.timing import TimingSim

PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry livein(.param .u64 pout, .param .u32 pbase)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r14, [pbase];
  mov.u32 %r1, %ctaid.x;
  add.u32 %r1, %r1, %r14;
  mov.u32 %r6, %laneid;
  mov.u32 %r7, %tid.x;
  mov.u32 %r8, %ntid.x;
  mad.lo.u32 %r9, %r1, %r8, %r7;
  mul.wide.u32 %rd2, %r9, 12;
  add.s64 %rd3, %rd1, %rd2;
  // (a) r2 is written in even CTAs only: odd ones store the zero they never wrote
  and.b32 %r10, %r1, 1;
  setp.ne.u32 %p1, %r10, 0;
  @%p1 bra SKIP;
  add.u32 %r2, %r9, 1000;
SKIP:
  st.global.u32 [%rd3], %r2;
  // (b) even CTAs keep lanes 0-15, odd ones lanes 16-31; those write r3 and read it from lane ^ 16, which left
  shr.u32 %r12, %r6, 4;
  setp.ne.u32 %p2, %r12, %r10;
  @%p2 exit;
  add.u32 %r3, %r9, 500;
  xor.b32 %r11, %r6, 16;
  activemask.b32 %r5;
  shfl.sync.idx.b32 %r4, %r3, %r11, 31, %r5;
  st.global.u32 [%rd3+4], %r4;
  // every register stays live to the end, so r3 has a slot of its own that the lanes which left never wrote
  add.u32 %r13, %r1, %r6;
  add.u32 %r13, %r13, %r7;
  add.u32 %r13, %r13, %r8;
  add.u32 %r13, %r13, %r10;
  add.u32 %r13, %r13, %r12;
  sub.u32 %r13, %r13, %r14;
  add.u32 %r13, %r13, %r14;
  add.u32 %r13, %r13, %r2;
  add.u32 %r13, %r13, %r11;
  add.u32 %r13, %r13, %r5;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3+8], %r13;
  ret;
}
"""

GRID, BLOCK = 8, 64


def launch(runner, dev, kernel, grid, base, out):
    runner.launch(kernel, (grid, 1, 1), (BLOCK, 1, 1), [out, np.uint32(base)])


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_registers_read_before_written_are_zero_in_reused_ctas(mode):
    sim = TimingSim("h200", ["gpu.num_sms=2", "sm.max_ctas=1"], threads=1) if mode == "timing" else None
    dev = sim.device if sim else Device()
    runner = sim or dev
    kernel = dev.load_ptx(PTX, "livein.ptx").kernel("livein")
    n = GRID * BLOCK * 3
    ref = dev.to_device(np.full(n, 0xFFFFFFFF, np.uint32))
    for cta in range(GRID):                        # one CTA per launch: a fresh register file each
        launch(runner, dev, kernel, 1, cta, ref)
    want = dev.from_device(ref).reshape(GRID, BLOCK, 3)
    assert (want[1::2, :, 0] == 0).all() and (want[0::2, :, 0] != 0).all()       # (a) as intended
    stay = np.array([[((t % 32) >> 4) == (c & 1) for t in range(BLOCK)] for c in range(GRID)])
    assert (want[:, :, 1][stay] == 0).all() and (want[:, :, 1][~stay] == 0xFFFFFFFF).all()   # (b) as intended
    for _ in range(2):                             # every CTA slot reused; a second launch reuses the first's
        out = dev.to_device(np.full(n, 0xFFFFFFFF, np.uint32))
        launch(runner, dev, kernel, GRID, 0, out)
        np.testing.assert_array_equal(dev.from_device(out).reshape(GRID, BLOCK, 3), want)
