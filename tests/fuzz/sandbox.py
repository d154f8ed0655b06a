"""Run one fuzz case in a forked child under an address-space limit and a wall-clock limit, so that a
crash (a signal), a hang or a memory blow-up is observed instead of taking the caller down.

The child is forked (not spawned) so it inherits the imported engine: a case costs a fork, not an
interpreter start. It reports through a pipe as one JSON object {status, type, message}:
  ok        the target finished (it may have returned a summary in `message`)
  rejected  the target raised one of the project's errors (PTXError, SimError, or one the target lists)
  escaped   any other exception: a finding (MemoryError, OverflowError, RecursionError, ValueError, ...)
and the parent adds
  crash     the child died of a signal (SIGSEGV, SIGABRT, ...) or exited without reporting
  hang      the child passed the time limit and was killed
"""
from __future__ import annotations

import faulthandler
import json
import os
import resource
import select
import signal
import time
import traceback
from dataclasses import dataclass

MEM_LIMIT = 3 << 30       # the address-space limit of issue 13
TIME_LIMIT = 20.0         # seconds per case


@dataclass
class Outcome:
    status: str
    type: str = ""
    message: str = ""
    seconds: float = 0.0

    @property
    def finding(self) -> bool:
        return self.status in ("escaped", "crash", "hang")


def expected_errors() -> tuple:
    from engine import errors
    return (errors.PTXError, errors.SimError)


def run_case(target, arg, time_limit: float = TIME_LIMIT, mem_limit: int = MEM_LIMIT,
             expected: tuple | None = None) -> Outcome:
    """target(arg) in a forked child; returns its Outcome. `expected`: exception classes that count as a
    clean refusal (default: the engine's PTXError and SimError)."""
    expected = expected or expected_errors()
    rfd, wfd = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:                                    # child
        os.close(rfd)
        code = 0
        try:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            faulthandler.disable()                  # a crash is the finding, not a traceback on stderr
            try:
                res = target(arg)
                out = {"status": "ok", "message": str(res)[:2000] if res is not None else ""}
            except expected as e:
                out = {"status": "rejected", "type": type(e).__name__, "message": str(e)[:2000]}
            except BaseException as e:              # noqa: BLE001 - everything else is a finding
                out = {"status": "escaped", "type": type(e).__name__,
                       "message": (str(e)[:500] + "\n" + traceback.format_exc()[-3000:])}
            os.write(wfd, json.dumps(out).encode())
        except BaseException:                       # noqa: BLE001
            code = 3
        finally:
            os._exit(code)
    os.close(wfd)
    chunks, deadline = [], t0 + time_limit
    status = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(rfd)
            return Outcome("hang", "", f"no answer within {time_limit:g} s", time.monotonic() - t0)
        r, _, _ = select.select([rfd], [], [], min(left, 0.5))
        if r:
            data = os.read(rfd, 1 << 16)
            if not data:
                break
            chunks.append(data)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    dt = time.monotonic() - t0
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return Outcome("crash", signal.Signals(sig).name, f"killed by {signal.Signals(sig).name}", dt)
    try:
        d = json.loads(b"".join(chunks).decode())
    except ValueError:
        return Outcome("crash", "exit", f"exited with status {os.WEXITSTATUS(status)} without a report", dt)
    return Outcome(d["status"], d.get("type", ""), d.get("message", ""), dt)


def run_batch(target, items: list, time_limit: float = TIME_LIMIT, mem_limit: int = MEM_LIMIT,
              expected: tuple | None = None) -> list[Outcome]:
    """target(item) for each item in ONE forked child (a fork per batch, not per case), each item with its
    own time limit; the child reports one JSON line per item. If the child dies or hangs, the item in
    flight gets that outcome and the rest go to a fresh child. Returns one Outcome per item, in order."""
    expected = expected or expected_errors()
    results: list[Outcome] = []
    while len(results) < len(items):
        start = len(results)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:                                # child
            os.close(rfd)
            try:
                resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
                faulthandler.disable()
                for item in items[start:]:
                    t0 = time.monotonic()
                    try:
                        res = target(item)
                        out = {"status": "ok", "message": str(res)[:500] if res is not None else ""}
                    except expected as e:
                        out = {"status": "rejected", "type": type(e).__name__, "message": str(e)[:500]}
                    except BaseException as e:      # noqa: BLE001 - everything else is a finding
                        out = {"status": "escaped", "type": type(e).__name__,
                               "message": str(e)[:500] + "\n" + traceback.format_exc()[-3000:]}
                    out["seconds"] = time.monotonic() - t0
                    os.write(wfd, (json.dumps(out) + "\n").encode())
            finally:
                os._exit(0)
        os.close(wfd)
        buf = b""
        deadline = time.monotonic() + time_limit
        t_item = time.monotonic()
        dead = None
        while len(results) < len(items):
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                dead = Outcome("hang", "", f"no answer within {time_limit:g} s", time.monotonic() - t_item)
                break
            r, _, _ = select.select([rfd], [], [], min(left, 0.5))
            if not r:
                continue
            data = os.read(rfd, 1 << 16)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                d = json.loads(line.decode())
                results.append(Outcome(d["status"], d.get("type", ""), d.get("message", ""), d.get("seconds", 0.0)))
                deadline = time.monotonic() + time_limit
                t_item = time.monotonic()
        os.close(rfd)
        _, status = os.waitpid(pid, 0)
        if len(results) >= len(items):
            break
        if dead is None:
            if os.WIFSIGNALED(status):
                name = signal.Signals(os.WTERMSIG(status)).name
                dead = Outcome("crash", name, f"killed by {name}", time.monotonic() - t_item)
            else:
                dead = Outcome("crash", "exit", f"exited with status {os.WEXITSTATUS(status)} mid-case",
                               time.monotonic() - t_item)
        results.append(dead)
    return results
