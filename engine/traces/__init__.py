"""Accel-Sim SASS traces as a workload (docs/traces.md): reader, opcode tables, trace-driven runs."""
from .opcodes import TraceFormatError  # noqa: F401
from .reader import Command, KernelTrace, read_kernelslist  # noqa: F401
