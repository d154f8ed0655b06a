"""Kernel and CTA start/end events -> `cta` and `kernel` spans.

Each CTA gets a lane on its SM: the lowest lane free at its start, so the CTAs resident on one SM at
the same time never share a lane (the UI draws lanes as sub-rows). Spans still open at the end of the
run (a faulted or interrupted kernel) are closed at the end cycle.
"""
from __future__ import annotations

import numpy as np

from engine.recording import EVENT_DT, EVENT_KINDS

from .layout import CTA_DT, KERNEL_DT
from .runfile import ChunkBuffer

K_START, K_END, C_START, C_END = (EVENT_KINDS.index(k) for k in ("kernel_start", "kernel_end", "cta_start", "cta_end"))
CHUNK_SPANS = 4096


class SpanBuilder:
    def __init__(self, buf: ChunkBuffer):
        self.buf = buf
        self.open_cta: dict[tuple[int, int, int], tuple[int, int]] = {}   # (sm, kernel, cta) -> (start, lane)
        self.lanes: dict[int, set[int]] = {}                                # sm -> lanes in use
        self.open_kernel: dict[int, int] = {}
        self.done: list[tuple] = []
        self.kernels: list[tuple] = []
        self.last = -1
        self.ctas_done = 0

    def append(self, ev: np.ndarray) -> None:
        if ev.dtype != EVENT_DT:
            raise TypeError(f"events chunk has dtype {ev.dtype}, expected {EVENT_DT}")
        if len(ev) and (int(ev["cycle"][0]) < self.last or np.any(ev["cycle"][1:] < ev["cycle"][:-1])):
            raise ValueError(f"events out of cycle order (chunk starts at {int(ev['cycle'][0])} after {self.last})")
        for cyc, kind, sm, cta, kern in zip(ev["cycle"].tolist(), ev["kind"].tolist(), ev["sm"].tolist(),
                                            ev["cta"].tolist(), ev["kernel"].tolist()):
            if kind == C_START:
                used = self.lanes.setdefault(sm, set())
                lane = 0
                while lane in used:
                    lane += 1
                used.add(lane)
                self.open_cta[(sm, kern, cta)] = (cyc, lane)
            elif kind == C_END:
                start, lane = self.open_cta.pop((sm, kern, cta), (cyc, None))
                if lane is not None:
                    self.lanes[sm].discard(lane)
                    self.done.append((start, cyc, cta, kern, sm, lane))
                    self.ctas_done += 1
            elif kind == K_START:
                self.open_kernel[kern] = cyc
            elif kind == K_END:
                self.kernels.append((self.open_kernel.pop(kern, 0), cyc, kern))
            else:
                raise ValueError(f"unknown event kind {kind} at cycle {cyc}")
        if len(ev):
            self.last = int(ev["cycle"][-1])
        if len(self.done) >= CHUNK_SPANS:
            self._flush_ctas()

    def _flush_ctas(self) -> None:
        if not self.done:
            return
        arr = np.array(sorted(self.done), dtype=CTA_DT)
        self.buf.add("cta", 0, 0, int(arr["start"].min()), int(arr["end"].max()), arr)
        self.buf._write(("cta", 0, 0))                # one chunk per batch: its lo/hi bound its own spans
        self.done = []

    def flush(self) -> None:
        """Write completed CTA spans now (a live reader then sees them)."""
        self._flush_ctas()

    def finish(self, end_cycle: int) -> None:
        for (sm, kern, cta), (start, lane) in sorted(self.open_cta.items(), key=lambda kv: kv[1]):
            self.done.append((start, end_cycle, cta, kern, sm, lane))
        self.open_cta.clear()
        for kern, start in self.open_kernel.items():
            self.kernels.append((start, end_cycle, kern))
        self.open_kernel.clear()
        self._flush_ctas()
        if self.kernels:
            arr = np.array(sorted(self.kernels), dtype=KERNEL_DT)
            self.buf.add("kernel", 0, 0, int(arr["start"].min()), int(arr["end"].max()), arr)
