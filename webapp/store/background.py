"""BackgroundSink: the recorder's sink calls handed to a RunWriter on its own thread.

The engine simulates inside C calls that release the GIL, and most of the writer's work (sorting,
numpy ufuncs, zstd, SQLite) releases it too, so on a machine with a spare core the store's work overlaps
the simulation instead of adding to it. The queue is bounded (the engine waits when the writer is
QUEUE chunks behind), so memory stays bounded; the writer's SQLite connection is used by that thread
only. An error in the writer is raised in the engine's thread at its next call, which stops the run.
"""
from __future__ import annotations

import queue
import threading

QUEUE = 3
_STOP = object()


class BackgroundSink:
    def __init__(self, writer):
        self.w = writer
        self.q: queue.Queue = queue.Queue(maxsize=QUEUE)
        self.error: BaseException | None = None
        self._progress = None
        self.thread = threading.Thread(target=self._loop, name="simtscope-store", daemon=True)
        self.thread.start()

    @property
    def closed(self) -> bool:
        return self.w.closed

    def _loop(self) -> None:
        while True:
            item = self.q.get()
            if item is _STOP:
                return
            if self.error is not None:
                continue                                   # drain: the engine learns of the error
            try:
                p = self._progress
                if p is not None:
                    self._progress = None
                    self.w.progress(*p)
                getattr(self.w, item[0])(*item[1])
            except BaseException as e:                     # noqa: BLE001 - handed to the engine thread
                self.error = e

    def _call(self, name: str, *args) -> None:
        if self.error is not None:
            raise self.error
        self.q.put((name, args))

    def begin(self, meta: dict) -> None:
        self._call("begin", meta)

    def append(self, table: str, chunk) -> None:
        self._call("append", table, chunk)

    def progress(self, cycle, warp_insts, ctas_done, ctas_total) -> None:
        self._progress = (cycle, warp_insts, ctas_done, ctas_total)   # applied by the writer thread

    def end(self, stats: dict, status: str = "done") -> None:
        self._call("end", stats, status)
        self.close()
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        """Wait until everything queued is written."""
        if self.thread.is_alive():
            self.q.put(_STOP)
            self.thread.join()

    def fail(self, message: str, status: str = "failed") -> None:
        self.close()
        self.w.fail(message, status)
