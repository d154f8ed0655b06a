"""Limits the front end enforces, so that hostile PTX gets a clear error instead of exhausting memory or
overflowing a fixed-width field of the IR. Each is far above what nvcc or Triton emit (the largest in the
repository's 73 PTX files is in brackets) and at or above what CUDA itself allows where CUDA has a limit.
"""
from __future__ import annotations

# registers: `.reg .b32 %r<N>` declares N names one by one [1,693 in one declaration]
MAX_REG_RANGE = 1 << 16            # names in one %r<N> declaration
MAX_REGS_PER_FUNCTION = 1 << 18    # virtual registers (and predicates) of one function

# memory declarations, in bytes
MAX_CONST_BYTES = 64 << 10         # the .const bank: CUDA's constant memory is 64 KiB [5,120]
MAX_SHARED_BYTES = 16 << 20        # static shared memory of one kernel (H200: 227 KiB per block)
MAX_LOCAL_BYTES = 512 << 10        # local memory per thread: CUDA's limit is 512 KiB
MAX_PARAM_BYTES = 32764            # kernel parameters: CUDA 12.1+ allows 32,764 bytes
MAX_GLOBAL_BYTES = 1 << 30         # one .global variable (the simulator holds it in host memory)
MAX_ALIGN = 1 << 16                # .align values (powers of two) [128]
