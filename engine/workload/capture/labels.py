"""Labels for captured launches, from Inductor's generated code and Dynamo's module stacks.

Inductor writes, before each kernel call in its generated `call()`, a comment such as
`# Topologically Sorted Source Nodes: [batch_norm, x, conv2d_1], Original ATen: [aten.relu, aten.convolution]`.
The source nodes are Dynamo graph nodes, whose `nn_module_stack` gives the module path (`layer1.0.conv1`).
Pure text processing: tested without torch.
"""
from __future__ import annotations

import re

_SRC_RE = re.compile(r"#\s*Topologically Sorted Source Nodes:\s*\[(?P<nodes>[^\]]*)\],\s*Original ATen:\s*"
                     r"\[(?P<aten>[^\]]*)\]")
_RUN_RE = re.compile(r"^\s*(?P<k>triton_\w+)\.run\(")
_EXTERN_RE = re.compile(r"\b(extern_kernels\.\w+|torch\.ops\.aten\.(?:_scaled_dot_product_\w+|_flash_\w+|"
                        r"_efficient_\w+|mm|bmm|addmm|convolution)\b(?:\.default)?)\s*\(")


def module_path(fqn: str) -> str:
    """Dynamo's `L['self'].layer1[0]._modules['conv1']` (and similar spellings) -> `layer1.0.conv1`."""
    s = re.sub(r"^L\[['\"](?:self|fn|mod|model)['\"]\]", "", fqn.strip())
    s = re.sub(r"^(?:L|G)\[['\"](\w+)['\"]\]", r"\1", s)
    s = re.sub(r"\._modules\[['\"]([^'\"]+)['\"]\]", r".\1", s)
    s = re.sub(r"\[['\"]([^'\"]+)['\"]\]", r".\1", s)
    s = re.sub(r"\[(\d+)\]", r".\1", s)
    s = re.sub(r"^self\.", "", s)
    return s.strip(".")


def call_site_labels(code: str, modules: dict[str, str]) -> list[dict]:
    """One entry per kernel call in the generated `call()`, in call order: {"kernel", "module", "op",
    "nodes"}. A kernel that Inductor reuses (the same conv shape in four blocks, one attention kernel in
    twelve layers) has one entry per call, each with its own source nodes. module is the path of the last
    source node that has one (the op the kernel is built around comes last: a template's epilogue is
    fused after it, a reduction's inputs before it)."""
    out: list[dict] = []
    pending = None
    for line in code.splitlines():
        m = _SRC_RE.search(line)
        if m:
            pending = m
            continue
        r = _RUN_RE.match(line)
        if r:
            nodes = [n.strip() for n in pending.group("nodes").split(",") if n.strip()] if pending else []
            aten = [a.strip().removeprefix("aten.") for a in pending.group("aten").split(",") if a.strip()] \
                if pending else []
            paths = [modules[n] for n in nodes if modules.get(n)]
            out.append({"kernel": r.group("k"), "module": paths[-1] if paths else None,
                        "op": "+".join(dict.fromkeys(aten)) or None, "nodes": nodes})
            pending = None
    return out


def label_launches(launches: list[dict], sites: list[dict]) -> int:
    """Give each launch (manifest dicts, in order) the label of its call site: the k-th launch of a kernel
    takes the k-th call of that kernel. Returns how many launches were labelled."""
    by_kernel: dict[str, list[dict]] = {}
    for site in sites:
        by_kernel.setdefault(site["kernel"], []).append(site)
    seen: dict[str, int] = {}
    n = 0
    for L in launches:
        k = seen.get(L["kernel"], 0)
        seen[L["kernel"]] = k + 1
        calls = by_kernel.get(L["kernel"], [])
        if k >= len(calls):
            continue
        lab = calls[k]
        for key, dst in (("module", "module"), ("op", "op"), ("nodes", "source_nodes")):
            if lab.get(key):
                L[dst] = lab[key]
            else:
                L.pop(dst, None)
        n += 1
    return n


def extern_calls(code: str) -> list[str]:
    """Calls in the generated code that run a library kernel (no PTX): extern_kernels.mm, flash attention."""
    body = code.split("def call(", 1)[1] if "def call(" in code else code
    return [m.group(1) for m in _EXTERN_RE.finditer(body)]


_CALL_RE = re.compile(r"^\s*(?:[\w, ]+=\s*)?(?P<c>extern_kernels\.\w+|torch\.ops\.\w+\.\w+(?:\.\w+)?|aten\.\w+(?:\.\w+)?)\(")


def extern_sites(code: str, modules: dict[str, str]) -> list[dict]:
    """Every call in the generated `call()` that runs a kernel without PTX (extern_kernels.mm, an aten
    fallback), in call order: {"call", "after" (how many Triton kernel calls come before it), "module",
    "op", "nodes"}. opaque.place_opaque labels the profiler's non-Triton kernels with these."""
    body = code.split("def call(", 1)[1] if "def call(" in code else code
    out: list[dict] = []
    pending, n_triton = None, 0
    for line in body.splitlines():
        m = _SRC_RE.search(line)
        if m:
            pending = m
            continue
        if _RUN_RE.match(line):
            n_triton += 1
            pending = None
            continue
        c = _CALL_RE.match(line)
        if c:
            nodes = [n.strip() for n in pending.group("nodes").split(",") if n.strip()] if pending else []
            aten = [a.strip().removeprefix("aten.") for a in pending.group("aten").split(",") if a.strip()] \
                if pending else []
            paths = [modules[n] for n in nodes if modules.get(n)]
            out.append({"call": c.group("c"), "after": n_triton, "module": paths[-1] if paths else None,
                        "op": "+".join(dict.fromkeys(aten)) or None, "nodes": nodes})
            pending = None
    return out
