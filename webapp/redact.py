"""No server path in what the server answers: error messages are written without them (each site names
what the client sent: a workload id, an upload's own file name), and `scrub` is the last check before an
error or a run's failure message leaves the server: an absolute path under one of the server's folders (the
run store, the project and its install, the temporary folder, the home folder, Python's prefix) becomes
its last component, so `/srv/data/uploads/3f/k.ptx:4:2: ...` reads `k.ptx:4:2: ...`. A message that
needed it is logged (the site should be fixed to not format the path)."""
from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)
_TAIL = r"(?:/[^\s'\"`:,;()\[\]{}<>]*)*"       # the rest of the path, up to a separator a message puts after it


def _roots(extra: tuple[str, ...]) -> list[str]:
    here = Path(__file__).resolve().parent
    cands = [*extra, str(here.parent), tempfile.gettempdir(), os.path.expanduser("~"), sys.prefix, sys.base_prefix,
             sys.exec_prefix]
    out = set()
    for c in cands:
        if not c or not os.path.isabs(c):
            continue
        for p in {c.rstrip("/"), os.path.realpath(c).rstrip("/")}:
            if p and p != "/" and len(p) > 1:
                out.add(p)
    return sorted(out, key=len, reverse=True)   # the deepest first: /srv/app/data before /srv/app


@lru_cache(maxsize=8)
def _pattern(extra: tuple[str, ...]) -> re.Pattern:
    return re.compile("(?:" + "|".join(re.escape(r) for r in _roots(extra)) + ")" + _TAIL)


def _last(m: re.Match) -> str:
    name = m.group(0).rstrip("/").rsplit("/", 1)[-1]
    return name or "<server>"


def scrub(text: str, extra=()) -> str:
    """`text` with every absolute path under the server's folders (and those in `extra`) cut to its last
    component."""
    if not isinstance(text, str) or "/" not in text:
        return text
    out = _pattern(tuple(str(e) for e in extra if e))
    new = out.sub(_last, text)
    if new != text:
        log.warning("a server path was cut from a message sent to a client: %s", new[:200])
    return new


def app_folders(app) -> tuple[str, ...]:
    """The folders of this app's configuration (run store, instance folder, bundle folders)."""
    cfg = app.config
    return tuple(str(x) for x in [cfg.get("DATA_DIR"), app.instance_path, *(cfg.get("BUNDLE_DIRS") or [])] if x)
