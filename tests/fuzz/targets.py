"""What each fuzz case runs, inside the sandbox's child process. Every target takes one input (text or
bytes) and either returns a short summary or raises; the sandbox classifies the outcome."""
from __future__ import annotations

import numpy as np

# caps that keep a legitimately long kernel from looking like a hang
MAX_WARP_INSTS = 200_000
MAX_CYCLES = 50_000


def _args(dev, kernel):
    out = []
    for p in kernel.params:
        if p.size == 8:
            out.append(dev.malloc(4096))
        elif p.size > 8:
            out.append(bytes(p.size))
        else:
            out.append(0)
    return out


_SIM = []


def _sim():
    """One Device and one timing model per child process, reused by its inputs (creating an H200 model
    takes ~0.5 s); 8 SMs instead of 132, since a fuzz kernel runs 1 CTA in the timing model."""
    if not _SIM:
        from engine.device import Device
        from engine.timing import TimingSim
        dev = Device()
        _SIM.append((dev, TimingSim("h200", overrides=["gpu.num_sms=8"], device=dev)))
    return _SIM[0]


def ptx(text: str, filename: str = "fuzz.ptx", timing: bool = True) -> str:
    """Load PTX, then launch every kernel in the functional core (1 and 2 CTAs of 64 and 1024 threads)
    and in the timing model (1 CTA of 64 threads). Kernel faults are fine; they are caught per launch."""
    from engine import errors
    dev, sim = _sim()
    mod = dev.load_ptx(text, filename)
    done = []
    for name in mod.kernels[:4]:
        k = mod.kernel(name)
        args = _args(dev, k)
        for grid, block in ((1, 64), (2, 1024)):
            try:
                dev.launch(k, grid, block, args, max_warp_insts=MAX_WARP_INSTS)
                done.append(f"{name}:{grid}x{block}:ok")
            except errors.KernelFault as e:
                done.append(f"{name}:{grid}x{block}:{type(e).__name__}")
            except errors.LaunchError as e:
                done.append(f"{name}:{grid}x{block}:LaunchError")
        if timing:
            try:
                sim.launch(k, 1, 64, args, max_cycles=MAX_CYCLES, max_warp_insts=MAX_WARP_INSTS)
                done.append(f"{name}:timing:ok")
            except (errors.KernelFault, errors.LaunchError) as e:
                done.append(f"{name}:timing:{type(e).__name__}")
    return " ".join(done)


def ptx_bytes(data: bytes) -> str:
    """The same from raw bytes (as an upload would arrive): not UTF-8 is a PTXSyntaxError."""
    return ptx(data, "fuzz.ptx")


_LAUNCH = {}
SIM_CACHE = 4                   # timing models kept per child process (one per record_sms value)


def launch_call(spec: dict) -> str:
    """A Device.launch / TimingSim call with fuzzed arguments on a small valid kernel. One device, module,
    buffer and timing model per child process (per record_sms value), reused by its inputs; the
    arguments are checked before any of them is touched, which is what is fuzzed."""
    from engine.timing import TimingSim
    if not _LAUNCH:
        from engine.device import Device
        dev = Device()
        _LAUNCH.update(dev=dev, k=dev.load_ptx(_LAUNCH_PTX, "launch.ptx").kernel("k"), buf=dev.malloc(1 << 16))
    dev, k = _LAUNCH["dev"], _LAUNCH["k"]
    args = spec.get("args", [_LAUNCH["buf"], 16])
    spec = dict(spec)
    for cap, most in (("max_warp_insts", 1_000_000), ("max_cycles", 5_000)):
        v = spec.get(cap)       # a valid cap above `most` (or none) lets a 2^31-CTA grid run for hours: not a hang
        if type(v) is int and (v > most or v == 0):
            spec[cap] = most
    if spec.get("timing"):
        rs = spec.get("record_sms")
        key = ("sim", repr(rs))
        if key not in _LAUNCH:
            # one simulation thread, and at most SIM_CACHE models kept: a TimingSim starts sim.threads threads
            # (0 = one per core), each reserving a stack and a malloc arena; on a 16-core host one H200 model
            # holds ~1.2 GiB of address space (RSS ~60 MB), so a few cached ones exhausted the child's 3 GiB
            # RLIMIT_AS ("out of memory building the GPU", the device pass of 1 December). Results are
            # identical for any thread count.
            sims = [k for k in _LAUNCH if isinstance(k, tuple)]
            for old in sims[:max(0, len(sims) - SIM_CACHE + 1)]:
                del _LAUNCH[old]
            _LAUNCH[key] = TimingSim("h200", device=dev, record_sms=rs, threads=1)
        _LAUNCH[key].launch(k, spec.get("grid", 1), spec.get("block", 32), args, shared=spec.get("shared", 0),
                            max_cycles=spec.get("max_cycles", 5_000), max_warp_insts=spec.get("max_warp_insts", 0),
                            chunk_cycles=spec.get("chunk_cycles", 4096))
    else:
        dev.launch(k, spec.get("grid", 1), spec.get("block", 32), args, shared=spec.get("shared", 0),
                   max_warp_insts=spec.get("max_warp_insts", 100_000), chunk=spec.get("chunk", 5_000_000))
    return "ok"


_LAUNCH_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
DONE:
    ret;
}
"""


def run_file(data: bytes) -> str:
    """Import a run file (webapp.store) from bytes: anything but a clean StoreError-like refusal is a finding."""
    import tempfile
    from pathlib import Path
    from webapp.store import RunReader
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "run.simtrun"
        p.write_bytes(data)
        r = RunReader(p)
        try:
            meta = r.meta
            return f"ok {sorted(meta)[:5]}"
        finally:
            close = getattr(r, "close", None)
            if close:
                close()


_ = np


_TRACE = []


def trace_dir(x: dict, work) -> str:
    """Write a trace directory (kernelslist.g and kernel-1.traceg, maybe compressed) and run it as
    engine.traces.run_trace does, on one small timing model per child (4 SMs) with capped cycles."""
    import gzip
    import lzma
    import shutil
    import zstandard
    from engine.timing import TimingSim
    from engine.traces.run import run_trace
    if not _TRACE:
        _TRACE.append(TimingSim("gtx1080", overrides=["gpu.num_sms=4"]))
    d = work / "t"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    (d / "kernelslist.g").write_text(x["kernelslist"])
    data = x["kernel"].encode("utf-8", "surrogateescape")
    comp = x["comp"]
    name = "kernel-1.traceg" + comp.removesuffix("-garbage")
    if comp == ".xz":
        data = lzma.compress(data, preset=0)
    elif comp == ".gz":
        data = gzip.compress(data, 1)
    elif comp == ".zst":
        data = zstandard.compress(data)
    elif comp.endswith("-garbage"):
        data = data[:200]
    (d / name).write_bytes(data)
    res = run_trace(d, sim=_TRACE[0], max_cycles=MAX_CYCLES, max_warp_insts=MAX_WARP_INSTS)
    return f"{len(res.kernels)} kernels, {res.warp_insts} warp insts"


_APP = []


def upload(req: dict, work) -> str:
    """POST one request to a test app (synthetic simulator; one app and data folder per child process).
    Returns the status code; a 5xx or an exception out of the app is a finding."""
    import base64
    import io
    import os
    import tempfile
    if not _APP or _APP[0][1] != os.getpid():
        from tests.fixtures.servers import synthetic_app
        d = tempfile.mkdtemp(prefix="app-", dir=work)
        app = synthetic_app(d, MAX_WORKERS=1)
        _APP[:] = [(app.test_client(), os.getpid())]
    client = _APP[0][0]
    data = {k: (io.BytesIO(base64.b64decode(v)), n) for k, (n, v) in req["files"].items()}
    data.update(req.get("form") or {})
    r = client.post(req["url"], data=data, content_type="multipart/form-data")
    if r.status_code >= 500:
        raise RuntimeError(f"{req['url']} answered {r.status_code}: {r.get_data(as_text=True)[:300]}")
    return f"{r.status_code}"


_API = []


class _FakeDrivers:
    """The sweep launcher of the fuzzed app: records what it would start (no driver process)."""

    def __init__(self):
        self.started = []

    def running(self, sweep_id):
        return False

    def live(self):
        return []

    def start(self, sweep_id, body, data_dir):
        self.started.append(sweep_id)

    def exit_code(self, sweep_id):
        return None


MAX_ERROR_CHARS = 1000      # an error message that echoes more of the request than this is a finding


def post_json(req: dict) -> str:
    """POST a JSON spec to /api/runs or /api/sweeps of an app built once per child process (the real
    configuration lister and check; the job manager and the sweep launcher only record what they would
    start). A 5xx, an exception out of the app, a 4xx without a short JSON {"error": message}, or a 2xx
    other than the documented answer is a finding; an accepted run or sweep is removed again."""
    import os
    import tempfile
    if not _API or _API[0][0] != os.getpid():
        from engine.resources import data_path
        from webapp import create_app
        d = tempfile.mkdtemp(prefix="api-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
        app = create_app({"TESTING": True, "DATA_DIR": d, "MAX_WORKERS": 2,
                          "BUNDLE_DIRS": [str(data_path("workloads") / "examples")]})
        svc = app.extensions["simtscope"]
        submitted = []
        svc.jobs.submit = submitted.append
        app.extensions["simtscope-sweep-drivers"] = _FakeDrivers()
        _API[:] = [(os.getpid(), app, app.test_client(), svc)]
    _, app, client, svc = _API[0]
    r = client.post(req["url"], data=req["data"].encode("latin-1"), content_type=req["content_type"] or None)
    body = r.get_json(silent=True)
    text = r.get_data(as_text=True)[:300]
    if r.status_code >= 500:
        raise RuntimeError(f"{req['url']} answered {r.status_code}: {text}")
    if 400 <= r.status_code < 500:
        if not isinstance(body, dict) or not isinstance(body.get("error"), str) or not body["error"]:
            raise AssertionError(f"{req['url']} answered {r.status_code} without a JSON error: {text}")
        if len(body["error"]) > MAX_ERROR_CHARS:
            raise AssertionError(f"{req['url']} answered {r.status_code} with an error of {len(body['error'])} "
                                 f"characters: {body['error'][:200]}...")
        return f"{r.status_code} {body['error'][:60]}"
    if req["url"] == "/api/runs":
        if r.status_code != 201 or not isinstance(body, dict) or body.get("status") != "queued":
            raise AssertionError(f"/api/runs answered {r.status_code}: {text}")
        svc.cat.delete_run(body["id"])
        return f"201 {body['kind']}"
    if r.status_code != 202 or not isinstance(body, dict) or not 1 <= body.get("points", 0) <= 24:
        raise AssertionError(f"/api/sweeps answered {r.status_code}: {text}")
    from webapp.sweep.views import _index
    with app.app_context():
        _index().finish(body["id"], "done")
    return f"202 {body['points']} points"
