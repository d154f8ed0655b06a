"""Operand resolution for Lowering (a mixin): register, predicate and special-register names to slots,
immediates to the bit pattern the instruction reads, symbols and [base+offset] addresses to absolute
offsets or global relocations, and the memory space an ld/st/atom/red actually reaches."""
from __future__ import annotations

import struct

import numpy as np

from .._ffi import E
from .decode import OP
from .ir import FLOAT_T, OK, SP, SREGS, T, _Pending, f16_bits, f32_bits


class OperandsMixin:
    """Lowering's operand methods; they use its state (self._cur, self.opnds, self.relocs, the symbols)."""

    def _describe(self, p: _Pending, name: str):
        v = self._lookup(p, name)
        if v is None or v[0] != "reg" or len(v) < 4 or v[3] is None:
            return None
        return v[3], v[2]

    def _lookup(self, p: _Pending, name: str):
        if p.scope is not None:
            return p.scope.lookup(name)
        return self._cur[1]["scope"].lookup(name)

    def _imm_value(self, d, o, is_src_float_type: int | None):
        """An immediate's 64-bit pattern, converted to the float type the instruction reads."""
        t = is_src_float_type
        if o.kind == "fimm":
            bits = o.value
            if o.bits == 32 and t == T["f64"]:
                bits = struct.unpack("<q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", bits))[0]))[0]
            elif o.bits == 64 and t == T["f32"]:
                bits = struct.unpack("<I", struct.pack("<f", struct.unpack("<d", struct.pack("<Q", bits))[0]))[0]
            elif o.bits == 32 and t in (T["f16"], T["bf16"]):
                f32 = struct.unpack("<f", struct.pack("<I", bits))[0]
                bits = int(np.array(f32, np.float16).view(np.uint16)) if t == T["f16"] else (bits >> 16)
            return _s64(bits)
        if o.kind == "fdec" or (o.kind == "imm" and t in FLOAT_T and d.op not in (OP["mov"],)):
            v = float(o.value)
            if t == T["f64"]:
                return struct.unpack("<q", struct.pack("<d", v))[0]
            if t in (T["f16"],):
                return f16_bits(v)
            if t in (T["f32"], T["tf32"], None) or t in FLOAT_T:
                return f32_bits(v)
        return _s64(int(o.value))

    def _src_type(self, d):
        if d.op == OP["cvt"]:
            return d.type2
        if d.op in (OP["set"],):
            return d.type2
        if d.op in (OP["shl"], OP["shr"], OP["bfe"], OP["bfi"], OP["prmt"], OP["shf"], OP["lop3"]):
            return None
        return d.type

    def _operand(self, p: _Pending, d, o, is_dst: bool):
        f, info, reg_base, pred_base = self._cur
        add = self.opnds.append
        if o.kind == "reg":
            name = o.name
            v = self._lookup(p, name)
            if v is not None:
                k = v[0]
                if k == "reg":
                    add((OK["reg"], 0, v[2], reg_base + v[1], 0))
                    return
                if k == "pred":
                    add((OK["pred"], 0, 1, pred_base + v[1], 0))
                    return
                if k == "kparam":
                    add((OK["imm"], 0, 0, -1, v[1]))
                    return
                if k in ("local", "local_abs"):
                    add((OK["imm"], 0, 0, -1, self._local_off(f, v)))
                    return
                if k == "shared":
                    add((OK["imm"], 0, 0, -1, info["shared_off"][v[1]]))
                    return
                if k == "const":
                    add((OK["imm"], 0, 0, -1, v[1]))
                    return
                if k == "callparam":
                    self.err(p.line, p.col, f".param variable '{name}' is not bound to a call")
                if k == "label":
                    self.err(p.line, p.col, f"label '{name}' used as an operand")
            if name in SREGS:
                if is_dst:
                    self.err(p.line, p.col, f"special register {name} cannot be written")
                add((OK["sreg"], 0, E.sreg[SREGS[name]], -1, 0))
                return
            sym = self._symbol_address(p, name, 0)
            if sym is not None:
                return
            self.err(p.line, p.col, f"undeclared name '{name}'")
        if o.kind == "not":
            v = self._lookup(p, o.name)
            if v is None or v[0] != "pred":
                self.err(p.line, p.col, f"'!{o.name}': not a predicate")
            add((OK["pred"], E.of["neg"], 1, pred_base + v[1], 0))
            return
        if o.kind in ("imm", "fimm", "fdec"):
            if is_dst:
                self.err(p.line, p.col, "an immediate cannot be a destination")
            try:
                add((OK["imm"], 0, 0, -1, self._imm_value(d, o, self._src_type(d))))
            except ValueError as e:
                self.err(p.line, p.col, f"immediate {e}")
            return
        if o.kind == "sink":
            add((OK["sink"], 0, 0, -1, 0))
            return
        if o.kind == "symoff":
            if self._symbol_address(p, o.name, o.value) is None:
                self.err(p.line, p.col, f"undeclared name '{o.name}'")
            return
        if o.kind == "vec":
            add((OK["vec"], 0, len(o.elems), -1, 0))
            for e in o.elems:
                if e.kind == "vec":
                    self.err(p.line, p.col, "nested vector operand")
                self._operand(p, d, e, is_dst)
            return
        if o.kind == "mem":
            self._mem_operand(p, d, o)
            return
        if o.kind == "args":
            self.err(p.line, p.col, "unexpected parenthesised operand list")
        self.err(p.line, p.col, f"unsupported operand {o.kind}")

    def _symbol_address(self, p, name, addend):
        """Address of a named variable as an immediate (mov r, sym / sym+off); None if unknown."""
        f, info, _, _ = self._cur
        add = self._add_address
        v = self._lookup(p, name)
        if v is not None:
            k = v[0]
            if k == "shared":
                add((OK["imm"], 0, 0, -1, info["shared_off"][v[1]] + addend))
                return True
            if k in ("local", "local_abs"):
                add((OK["imm"], 0, 0, -1, self._local_off(f, v) + addend))
                return True
            if k == "const":
                add((OK["imm"], 0, 0, -1, v[1] + addend))
                return True
            if k == "kparam":
                add((OK["imm"], 0, 0, -1, v[1] + addend))
                return True
        if name in self.global_syms:
            self.relocs.append((len(self.opnds), name, addend))
            add((OK["imm"], 0, 0, -1, 0))
            return True
        if name in self.const_syms:
            add((OK["imm"], 0, 0, -1, self.const_syms[name] + addend))
            return True
        if name in info["shared_off"]:
            add((OK["imm"], 0, 0, -1, info["shared_off"][name] + addend))
            return True
        return None

    def _add_address(self, row):
        """Append an address operand; its offset wraps to 64 bits as the hardware's address adder does
        ([%rd1+0xffffffffffffffff] is %rd1 - 1; a symbol offset past 2^63 faults at run time)."""
        self.opnds.append(row[:4] + (_s64(row[4]),))

    def _local_off(self, f, v):
        """Absolute local-memory offset of a ("local", frame offset, type) or ("local_abs", offset) entry."""
        return v[1] if v[0] == "local_abs" else self.frame_base[f.name] + v[1]

    def _mem_operand(self, p, d, o):
        """[reg+off] or [sym+off]: base register (or -1) and absolute offset; records the symbol's space."""
        f, info, reg_base, _ = self._cur
        add = self._add_address
        off = int(o.value or 0)
        if o.name is None:
            add((OK["mem"], 0, 0, -1, off))
            return
        v = self._lookup(p, o.name)
        if v is not None:
            k = v[0]
            if k == "reg":
                add((OK["mem"], 0, v[2], reg_base + v[1], off))
                return
            if k == "kparam":
                add((OK["mem"], 0, 0, -1, v[1] + off))
                self._mem_space = SP["param"]
                return
            if k in ("local", "local_abs"):
                add((OK["mem"], 0, 0, -1, self._local_off(f, v) + off))
                self._mem_space = SP["local"]
                return
            if k == "shared":
                add((OK["mem"], 0, 0, -1, info["shared_off"][v[1]] + off))
                self._mem_space = SP["shared"]
                return
            if k == "const":
                add((OK["mem"], 0, 0, -1, v[1] + off))
                self._mem_space = SP["const"]
                return
            if k == "callparam":
                self.err(p.line, p.col, f".param variable '{o.name}' is not bound to a call")
            if k == "pred":
                self.err(p.line, p.col, f"predicate '{o.name}' used as an address")
        if o.name in self.global_syms:
            self.relocs.append((len(self.opnds), o.name, off))
            add((OK["mem"], 0, 0, -1, 0))
            self._mem_space = SP["global"]
            return
        if o.name in self.const_syms:
            add((OK["mem"], 0, 0, -1, self.const_syms[o.name] + off))
            self._mem_space = SP["const"]
            return
        if o.name in info["shared_off"]:
            add((OK["mem"], 0, 0, -1, info["shared_off"][o.name] + off))
            self._mem_space = SP["shared"]
            return
        self.err(p.line, p.col, f"undeclared name '{o.name}' in address")

    def _fix_space(self, p, d, first):
        """ld.param/st.param of a .func parameter or call-site param go to local memory."""
        ms = getattr(self, "_mem_space", None)
        self._mem_space = None
        if d.space == SP["param"] and ms == SP["local"]:
            d.space = SP["local"]
        if d.space == 0:
            d.space = SP["generic"]
        return d


def _s64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v
