"""Input sources of the fuzz targets: each gives inputs (next() -> (origin, input)), the function a child
runs on one (run), the exceptions that count as a clean refusal (expected), and how to save an input as
a reproducer (dump, suffix)."""
from __future__ import annotations

import json
import random

from . import ptx_gen, targets


class PTXSource:
    """Half grammar-generated kernels, half mutants of the repository's PTX (files up to 40 KB)."""
    suffix = ".ptx"

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.gen = ptx_gen.Gen(rng)
        self.mut = ptx_gen.Mutator(rng, ptx_gen.corpus())

    def next(self):
        if self.rng.random() < 0.5:
            return "grammar", self.gen.kernel()
        name, text = self.mut.next()
        return f"mutant of {name}", text

    @staticmethod
    def run(text):
        return targets.ptx(text, "fuzz.ptx")

    @staticmethod
    def expected():
        from engine import errors
        return (errors.PTXError, errors.SimError)

    @staticmethod
    def dump(x) -> bytes:
        return x.encode("utf-8", "surrogateescape")


VALUES = [0, 1, -1, 32, 1024, 1025, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63, 2**64, -2**63, 1.5, 0.0, None, True,
          "1", b"\x00", [], [1], (1, 1), (1, 2, 3, 4), (0, 1), float("nan"), float("inf")]


class LaunchSource:
    """Device.launch / TimingSim calls with each argument drawn from valid and hostile values."""
    suffix = ".json"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def next(self):
        r = self.rng
        spec = {"timing": r.random() < 0.4}
        for k in ("grid", "block", "shared", "max_warp_insts", "chunk", "max_cycles", "chunk_cycles", "record_sms",
                  "args"):
            if r.random() < 0.35:
                v = r.choice(VALUES)
                if k == "record_sms":
                    v = r.choice([None, [0], [-1], [131], [132], [2**40], "0", [0.5], []])
                if k == "args":
                    v = r.choice([None, [], [0, 0], [1 << 64, 1], ["x", 1], [b"12345678", 1], [0, -1], [0, 2**32]])
                spec[k] = v
        if spec.get("args") is None and "args" in spec:
            pass
        return "random", spec

    @staticmethod
    def run(spec):
        return targets.launch_call(spec)

    @staticmethod
    def expected():
        from engine import errors
        return (errors.LaunchError, errors.KernelFault)

    @staticmethod
    def dump(x) -> bytes:
        return json.dumps(x, default=repr).encode()


TARGETS = {"ptx": PTXSource, "launch": LaunchSource}
