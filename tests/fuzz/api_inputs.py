"""Fuzz sources of the two JSON endpoints that start simulations: POST /api/runs (a run of a validation
case, an uploaded case or a whole-model bundle) and POST /api/sweeps (a sweep of validation cases).

Each input is one request: a body (a mutated valid spec, or raw text that is not JSON, not UTF-8, nested
deeper than the parser goes, or huge) and a content type. A child posts it to an app built once per child
(the real configuration lister and config check, so hostile overrides and --set values reach
engine.config) whose job manager and sweep launcher only record what they are asked to start: what is
fuzzed is the request's validation, not the simulation. The oracle: a 5xx, an exception out of the app,
a 4xx without a JSON {"error": message}, or a 2xx that is not the documented answer is a finding.
"""
from __future__ import annotations

import copy
import json
import random

from .inputs import HOSTILE_JSON, _paths, _pick

CASES = ["saxpy_1M", "vector_add_1M", "relu_4M", "sgemm_tiled16_256", "softmax_4096x128", "reduce_smem_4M"]
WORKLOADS = [f"case:{c}" for c in CASES] + ["bundle:example_mlp_b64_fp32", "case:", "case:nope", ":", "x:y",
                                            "case:../../etc/passwd", "bundle:", "bundle:nope", "zzzz:saxpy_1M",
                                            "case:saxpy_1M:extra", "case:*", "\x00", "case:" + "a" * 5000]
OVERRIDES = ["l2.size_kib=30720", "gpu.num_sms=66", "gpu.num_sms=0", "gpu.num_sms=-1", "gpu.num_sms=1e9",
             "gpu.num_sms=99999999999999999999999", "gpu.num_sms=" + "9" * 190, "gpu.num_sms=nan", "gpu.num_sms=inf",
             "gpu.num_sms=1.5", "gpu.num_sms=", "gpu.num_sms= ", "gpu.num_sms==1", "gpu.num_sms=0x10",
             "l2.size_kib=nan", "l2.size_kib=1", "l2.size_kib=-0", "l2.size_kib=1e308", "gpu.sm_clock_mhz=inf",
             "gpu.sm_clock_mhz=1e-300", "gpu.sm_clock_mhz=-1", "sim.threads=100000", "sim.threads=0",
             "nosuch.key=1", "gpu=1", "gpu.num_sms.x=1", "__class__.x=1", "a.b=\x00", "gpu.num_sms=\u00b2",
             "gpu.num_sms=\ud800", "gpu.num_sms=1,2", "dram.channels=0", "l1.lsu_queue=-5", "gpu.name=x",
             "l2.size_kib=30720\nx", "=1", "", " ", "gpu.num_sms=True", "gpu.num_sms=[1]", "gpu.num_sms={}"]
SETS = ["l2.size_kib=30720,61440", "gpu.num_sms=66,132", "gpu.num_sms=" + ",".join(str(i) for i in range(1, 200)),
        "gpu.num_sms=1,1", "gpu.num_sms=,", "gpu.num_sms=", "gpu.num_sms=-1,0", "gpu.num_sms=1e400",
        "nosuch.key=1,2", "gpu.num_sms", "l2.size_kib=1,2,3", "sim.threads=1,2", "gpu.sm_clock_mhz=nan,inf",
        "gpu.num_sms=" + "9" * 4000, "gpu.num_sms=\ud800", "gpu.num_sms=1\x00", "=", ",", " ", "",
        "l1.lsu_queue=1,2", "dram.channels=1,2", "gpu.num_sms=2,3,4,5,6,7,8,9,10,11"]
LEVELS = ["off", "summary", "full", "FULL", "", "none", 0, None]
NUMBERS = [0, 1, -1, 15, 16, 256, 1 << 20, (1 << 20) + 1, 2**31, 2**63, 2**64, 10**400, -10**400, 1e308, -0.0,
           1.5, 16.0, float("inf"), float("-inf"), float("nan"), True, False]
STRINGS = ["", " ", "all", "none", "0-3,8", "0-4095", "0-4096", "4095-0", "0-" + "9" * 400, "-1", "0,,1", "a-b",
           "\x00", "\ud800", "\udcff", "x" * 100_000, "0-3" * 2000, "0-1," * 5000, "\u202e", "💥" * 50]
HOSTILE = HOSTILE_JSON + NUMBERS + STRINGS + [[0] * 100_000, ["x"] * 5000, [[0]] * 100, {"a": {"b": {"c": [1]}}}]
CONTENT_TYPES = ["application/json"] * 8 + ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                            "application/json; charset=latin-1", "application/json; charset=utf-16",
                                            "application/xml", "", "application/vnd.api+json", "*/*"]


def _bodies():
    runs = [{"workload": f"case:{c}", "config": "h200", "level": "summary", "interval": 256} for c in CASES]
    runs += [{"workload": "case:saxpy_1M", "config": "h200", "overrides": ["l2.size_kib=30720", "gpu.num_sms=66"],
              "level": "full", "record_sms": "0-3,8", "interval": 1024, "name": "mine"},
             {"workload": "case:relu_4M", "config": "a100", "overrides": "gpu.num_sms=66, l2.size_kib=30720",
              "record_sms": [0, 1, 2], "name": "x"},
             {"workload": "bundle:example_mlp_b64_fp32", "config": "h200", "level": "summary", "launches": "0,1-2",
              "record_sms": "all", "name": "mlp"},
             {"workload": "bundle:example_mlp_b64_fp32", "level": "off", "launches": "none"},
             {"workload": "bundle:example_mlp_b64_fp32", "launches": [0, 2]}]
    sweeps = [{"cases": ["saxpy_1M"], "sets": ["l2.size_kib=30720,61440"], "config": "h200", "workers": 1},
              {"cases": ["saxpy_1M", "relu_4M"], "sets": ["gpu.num_sms=66,132", "l2.size_kib=30720,61440"],
               "config": "a100", "workers": 1, "name": "two"},
              {"cases": ["sgemm_tiled16_256"], "sets": [], "config": "h200"},
              {"cases": ["softmax_*"], "sets": ["gpu.num_sms=66,132"], "workers": 1}]
    return runs, sweeps


def _mutate(rng: random.Random, body: dict, kind: str) -> dict:
    """Values swapped for hostile ones (strings, numbers, lists, nesting), keys deleted or added, list
    elements replaced by hostile overrides / --set values, lists grown."""
    box = [copy.deepcopy(body)]
    for _ in range(rng.choice([0, 1, 1, 2, 3, 5])):
        paths = list(_paths(box))[1:]
        if not paths:
            break
        p, parent, k = _pick(rng, box, paths)
        a = rng.random()
        key = p[1] if len(p) > 1 else None
        if a < 0.45:
            if key in ("overrides", "sets") and rng.random() < 0.6:
                v = rng.choice(OVERRIDES if key == "overrides" else SETS)
                if isinstance(parent[k], list) or rng.random() < 0.5:
                    v = [v]
            elif key in ("workload", "cases") and rng.random() < 0.5:
                v = rng.choice(WORKLOADS) if key == "workload" else [rng.choice(CASES + ["nope", "*", "", ","])]
            elif key == "level" and rng.random() < 0.5:
                v = rng.choice(LEVELS)
            else:
                v = rng.choice(HOSTILE)
            parent[k] = copy.deepcopy(v)
        elif a < 0.6 and (isinstance(parent, dict) or len(parent) > 1):
            del parent[k]
        elif a < 0.75 and isinstance(parent, list):
            parent.extend(copy.deepcopy(parent[k]) for _ in range(rng.choice([1, 10, 300])))
        elif a < 0.9 and isinstance(parent, list):
            parent.append(rng.choice(OVERRIDES if kind == "runs" else SETS))
        else:
            d = box[0] if isinstance(box[0], dict) else None
            if d is not None:
                extra = ["config", "overrides", "level", "record_sms", "interval", "name", "launches", "workload",
                         "cases", "sets", "workers", "only", "data", "parent_pid", "scheduler", "zz"]
                d[rng.choice(extra)] = copy.deepcopy(rng.choice(HOSTILE + OVERRIDES[:3] + SETS[:3]))
    return box[0]


class ApiSource:
    """POST /api/runs or /api/sweeps with a mutated JSON spec or a hostile raw body."""
    suffix = ".json"
    url = ""
    kind = ""

    def __init__(self, rng: random.Random):
        import webapp  # noqa: F401
        import webapp.sweep.driver  # noqa: F401
        self.rng = rng
        runs, sweeps = _bodies()
        self.seeds = runs if self.kind == "runs" else sweeps

    def next(self):
        r = self.rng
        ct = r.choice(CONTENT_TYPES)
        m = r.random()
        if m < 0.8:
            body = _mutate(r, r.choice(self.seeds), self.kind)
            text = json.dumps(body, allow_nan=True)
            origin = "mutated spec"
            if r.random() < 0.08:
                cut = r.randrange(len(text) + 1)
                text = text[:cut] + r.choice(["", "\x00", "}", "\"", "[" * 3000, "\\ud800", "\\u0000", ",]"]) + text[cut:]
                origin = "damaged spec"
            data = text.encode("utf-8", "surrogatepass")
        else:
            origin = "raw body"
            data = r.choice([
                b"", b"null", b"[]", b"{}", b"1", b"\"x\"", b"true", b"[" * 100_000 + b"]" * 100_000,
                b"{\"a\":" * 50_000 + b"1" + b"}" * 50_000, b"{" * 3000, b"\xff\xfe{\x00}\x00", b"\xef\xbb\xbf{}",
                b"{\"workload\": \"case:saxpy_1M\"," + b"\"x\": 1," * 200_000 + b"\"y\": 2}",
                b"[" + b"1," * 1_000_000 + b"1]", b"{\"cases\": [\"saxpy_1M\"], \"sets\": [" + b"\"a.b=1\"," * 100_000
                + b"\"a.b=1\"]}", b"workload=case:saxpy_1M&config=h200", b"NaN", b"{\"workload\": NaN}",
                b"{\"workload\": \"case:saxpy_1M\", \"workload\": 5}", b"\x00" * 1000, r.randbytes(200),
                b"{\"interval\": 1" + b"0" * 5000 + b"}", b"{\"workers\": 1e999}", b"{\"record_sms\": -0}"])
        return origin, {"url": self.url, "data": data.decode("latin-1"), "content_type": ct}

    @staticmethod
    def run(req):
        from . import targets
        return targets.post_json(req)

    @staticmethod
    def expected():
        return ()

    @staticmethod
    def dump(x) -> bytes:
        return json.dumps(x).encode()


class RunsApiSource(ApiSource):
    url, kind = "/api/runs", "runs"


class SweepsApiSource(ApiSource):
    url, kind = "/api/sweeps", "sweeps"



TARGETS = {"runs-api": RunsApiSource, "sweeps-api": SweepsApiSource}
