"""PTX inputs for fuzzing: a grammar-based generator (kernels of random declarations and instructions with
operands of every kind, right and wrong) and a mutator of real PTX (token swaps, vector and type suffix
changes, huge numbers, deep nesting, deleted/duplicated lines, byte flips). Both are driven by a
random.Random, so a seed reproduces a run exactly."""
from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TYPES = ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f16x2",
         "bf16", "f32", "f64", "pred", "b128", "tf32"]
OPS = {
    # opcode template -> number of operands
    "add.{t}": 3, "sub.{t}": 3, "mul.lo.{t}": 3, "mul.wide.{t}": 3, "mad.lo.{t}": 4, "div.{t}": 3, "rem.{t}": 3,
    "abs.{t}": 2, "neg.{t}": 2, "min.{t}": 3, "max.{t}": 3, "and.{t}": 3, "or.{t}": 3, "xor.{t}": 3, "not.{t}": 2,
    "shl.{t}": 3, "shr.{t}": 3, "popc.{t}": 2, "clz.{t}": 2, "brev.{t}": 2, "bfe.{t}": 4, "bfi.{t}": 5,
    "prmt.b32": 4, "lop3.b32": 5, "fma.rn.{t}": 4, "rcp.rn.{t}": 2, "sqrt.rn.{t}": 2, "rsqrt.approx.{t}": 2,
    "ex2.approx.{t}": 2, "sin.approx.{t}": 2, "setp.lt.{t}": 3, "setp.eq.and.{t}": 4, "set.gt.u32.{t}": 3,
    "selp.{t}": 4, "slct.{t}.s32": 4, "mov.{t}": 2, "cvt.rn.{t}.f32": 2, "cvt.{t}.s32": 2, "cvta.to.global.u64": 2,
    "ld.global.{t}": 2, "ld.global.v2.{t}": 2, "ld.global.v4.{t}": 2, "ld.global.v8.{t}": 2, "ld.param.{t}": 2,
    "ld.shared.{t}": 2, "ld.local.{t}": 2, "ld.const.{t}": 2, "st.global.{t}": 2, "st.global.v2.{t}": 2,
    "st.global.v4.{t}": 2, "st.shared.{t}": 2, "st.local.{t}": 2, "atom.global.add.{t}": 3,
    "atom.global.cas.{t}": 4, "red.global.add.{t}": 2, "shfl.sync.bfly.b32": 5, "vote.sync.ballot.b32": 3,
    "bar.sync": 1, "bar.red.popc.u32": 3, "activemask.b32": 1, "testp.finite.{t}": 2, "copysign.{t}": 3,
    "mul24.lo.{t}": 3, "sad.{t}": 4, "dp4a.u32.u32": 4, "bfind.{t}": 2, "isspacep.global": 2,
    "membar.gl": 0, "ret": 0, "exit": 0, "trap": 0, "nanosleep.u32": 1, "redux.sync.add.u32": 3,
    "match.any.sync.b32": 3, "ldmatrix.sync.aligned.m8n8.x4.shared.b16": 2, "cp.async.ca.shared.global": 3,
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32": 4, "wgmma.fence.sync.aligned": 0,
}
SREGS = ["%tid.x", "%ntid.y", "%ctaid.x", "%laneid", "%clock64", "%smid", "%dynamic_smem_size"]
NUMBERS = ["0", "1", "-1", "31", "0x7fffffff", "0xffffffff", "0xffffffffffffffff", "18446744073709551616",
           "4294967296", "1.5", "-0.0", "1e38", "1e39", "1e308", "1e309", "0f7F800000", "0d7FF0000000000000",
           "0f3F800000", "077", "08", "0b101", "1" * 30, "1" * 5000]


class Gen:
    def __init__(self, rng: random.Random):
        self.r = rng

    def choice(self, xs):
        return xs[self.r.randrange(len(xs))]

    def number(self) -> str:
        return self.choice(NUMBERS) if self.r.random() < 0.7 else str(self.r.randrange(-2**70, 2**70))

    def operand(self, regs: dict, depth: int = 0) -> str:
        r = self.r.random()
        if r < 0.45:
            kind = self.choice(list(regs))
            return f"{kind}{self.r.randrange(max(1, regs[kind] + 2))}"
        if r < 0.6:
            return self.number()
        if r < 0.7:
            base = self.choice(["%rd1", "%rd2", "p", "s", "c", "g", "l", "%r1", "%p1", "", "nosuch"])
            off = self.choice(["", "+4", "+0x7fffffffffffffff", "-8", "+" + self.number().lstrip("-")])
            return f"[{base}{off}]" if base else f"[{self.number().lstrip('-')}]"
        if r < 0.8 and depth < 3:
            n = self.choice([1, 2, 3, 4, 8, 9])
            return "{" + ", ".join(self.operand(regs, depth + 1) for _ in range(n)) + "}"
        if r < 0.85:
            return self.choice(SREGS)
        if r < 0.9:
            return self.choice(["_", "!%p1", "%p1|%p2", "%r1|%p1", "L1", "nosuch", "s", "g+8"])
        return self.choice(["p", "c", "g", "s", "l"])

    def instruction(self, regs: dict) -> str:
        op, n = self.choice(list(OPS.items()))
        op = op.replace("{t}", self.choice(TYPES))
        if self.r.random() < 0.1:
            n += self.choice([-1, 1, 2])
        guard = self.choice(["", "", "", "@%p1 ", "@!%p2 ", "@%r1 "])
        ops = ", ".join(self.operand(regs) for _ in range(max(0, n)))
        return f"\t{guard}{op} {ops};"

    def declaration(self, regs: dict) -> str:
        r = self.r.random()
        if r < 0.6:
            kind, typ = self.choice([("%r", "b32"), ("%rd", "b64"), ("%f", "f32"), ("%p", "pred"),
                                     ("%h", "f16"), ("%fd", "f64")])
            n = self.choice(["2", "4", "8", "33", "1000"]) if self.r.random() < 0.95 else self.number()
            if n.isdigit() and len(n) < 5:
                regs[kind] = max(regs.get(kind, 0), int(n))
            return f"\t.reg .{typ} {kind}<{n}>;"
        space = self.choice(["shared", "local", "const", "param"])
        size = self.choice(["16", "256", "4096", "65536", "4294967296", "0", ""]) if self.r.random() < 0.9 \
            else self.number().lstrip("-")
        align = self.choice(["", ".align 4 ", ".align 16 ", ".align 3 ", ".align 1073741824 "])
        name = {"shared": "s", "local": "l", "const": "c", "param": "q"}[space]
        return f"\t.{space} {align}.{self.choice(TYPES)} {name}[{size}];"

    def kernel(self) -> str:
        regs = {"%r": 8, "%rd": 4, "%f": 8, "%p": 3}
        lines = [".version 8.0", ".target sm_90", ".address_size 64"]
        if self.r.random() < 0.5:
            lines.append(f".global .align 8 .{self.choice(TYPES)} g[{self.choice(['8', '64', '1'])}]"
                         + (f" = {{{', '.join(self.number() for _ in range(self.r.randrange(1, 4)))}}}"
                            if self.r.random() < 0.3 else "") + ";")
        if self.r.random() < 0.3:
            lines.append(f".const .align 4 .b8 c[{self.choice(['16', '64'])}];")
        params = ", ".join(f".param .{self.choice(['u64', 'u32', 'f32', 'b8'])} "
                           f"{'p' if i == 0 else 'p%d' % i}" for i in range(self.r.randrange(1, 4)))
        lines.append(f".visible .entry k({params})")
        lines.append("{")
        lines += ["\t.reg .b32 %r<8>;", "\t.reg .b64 %rd<4>;", "\t.reg .f32 %f<8>;", "\t.reg .pred %p<3>;"]
        lines.append("\tld.param.u64 %rd1, [p];")
        for _ in range(self.r.randrange(0, 3)):
            lines.append(self.declaration(regs))
        body = [self.instruction(regs) for _ in range(self.r.randrange(1, 12))]
        if self.r.random() < 0.3:
            body.insert(self.r.randrange(len(body) + 1), "L1:")
            body.append("\t@%p1 bra L1;")
        lines += body
        lines += ["\tret;", "}"]
        return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ mutation of real PTX


def corpus(max_bytes: int = 24_000) -> list[tuple[str, str]]:
    """(name, text) of the repository's PTX files small enough to run many times."""
    out = []
    for p in sorted(ROOT.glob("tests/**/*.ptx")) + sorted(ROOT.glob("validation/**/*.ptx")):
        if "reliability" in p.parts:
            continue
        if p.stat().st_size <= max_bytes:
            out.append((str(p.relative_to(ROOT)), p.read_text(errors="replace")))
    return out


REPLACEMENTS = ["[p]", "[%rd1]", "{%r1}", "{%r1, %r2}", "{%f1, %f2, %f3, %f4}", "%p1", "!%p1", "_", "%tid.x",
                "1e309", "1e308", "18446744073709551624", "0xffffffffffffffff", "-1", "[c_coef+20]",
                "{" * 50 + "%r1" + "}" * 50, "%r<100000000>", "%r99999", "L_nowhere", "[%rd1+0xFFFFFFFFFFFFFFFF]"]
SUFFIXES = [".v2", ".v4", ".v8", ".f32", ".u64", ".b8", ".pred", ".s16", ".f16x2", ".wide", ".cc", ".sat", ""]


class Mutator:
    def __init__(self, rng: random.Random, seeds: list[tuple[str, str]]):
        self.r = rng
        self.seeds = seeds

    def mutate(self, text: str) -> str:
        r = self.r
        lines = text.split("\n")
        for _ in range(r.choice([1, 1, 1, 2, 3, 5])):
            if not lines:
                break
            i = r.randrange(len(lines))
            line = lines[i]
            m = r.random()
            if m < 0.35 and ("," in line or " " in line.strip()):
                toks = line.replace(",", " , ").split()
                cand = [k for k, t in enumerate(toks) if t not in (",",) and k > 0]
                if cand:
                    k = r.choice(cand)
                    tail = ";" if toks[k].endswith(";") else ""
                    toks[k] = r.choice(REPLACEMENTS) + tail
                    lines[i] = "\t" + " ".join(toks).replace(" , ", ", ")
            elif m < 0.5:
                parts = line.split(None, 1)
                if parts and "." in parts[0]:
                    segs = parts[0].split(".")
                    j = r.randrange(1, len(segs)) if len(segs) > 1 else 0
                    segs[j] = r.choice(SUFFIXES).lstrip(".") or segs[j]
                    lines[i] = line.replace(parts[0], ".".join(s for s in segs if s), 1)
            elif m < 0.6:
                del lines[i]
            elif m < 0.68:
                lines.insert(i, line)
            elif m < 0.74:
                j = r.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            elif m < 0.82:
                import re
                nums = list(re.finditer(r"(?<![%\w])\d+", line))
                if nums:
                    n = r.choice(nums)
                    lines[i] = line[:n.start()] + r.choice(["0", "4294967296", "2147483648", "65537", "1" * 25,
                                                             "100000000", "18446744073709551616", "7"]) + line[n.end():]
            elif m < 0.9:
                other = r.choice(self.seeds)[1].split("\n")
                lines.insert(i, r.choice(other))
            else:
                b = bytearray(line.encode())
                if b:
                    b[r.randrange(len(b))] = r.randrange(32, 127)
                lines[i] = b.decode("latin-1")
        return "\n".join(lines)

    def next(self) -> tuple[str, str]:
        name, text = self.r.choice(self.seeds)
        return name, self.mutate(text)
