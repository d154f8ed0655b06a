"""The explorer screenshots in docs/screenshots/: the run summary, the compare diff and the resized
layout at 1280x720 and 2560x1440, taken in Debian's Chromium from `simtscope serve` with real runs.

    python scripts/explorer_screenshots.py [OUT_DIR]      (default docs/screenshots)
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.fixtures.servers import ServerProcess, wait_done  # noqa: E402

SIZES = [(1280, 720), (2560, 1440)]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        srv = ServerProcess(Path(tmp) / "data").start()
        try:
            ids = []
            for cfg in ("h200", "a100"):
                r = srv.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": cfg, "level": "full",
                                                "name": f"softmax 4096x128 on {cfg}"})
                ids.append(r.json()["id"])
            for rid in ids:
                assert wait_done(srv.get, rid, timeout=600)["status"] == "done"
            a, b = ids
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
                for w, h in SIZES:
                    page = browser.new_page(viewport={"width": w, "height": h})
                    shots = [("summary", f"run={a}&tab=summary&sm=0&cursor=2500", None),
                             ("diff", f"run={a}&cmp={b}&tab=diff&sm=0&cursor=2500", None),
                             ("resized", f"run={a}&tab=ptx&sm=0&cursor=2500", 0.62)]
                    for name, q, frac in shots:
                        page.evaluate("() => localStorage.clear()") if page.url.startswith("http") else None
                        page.goto(f"{srv.url}/?{q}")
                        page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src"
                                               " && window.__simtscope.timeline.src.groups.ctr"
                                               " && document.querySelector('#minimap canvas')", timeout=120000)
                        if frac:                                   # drag the splitter: details get `frac` of the split
                            sp = page.locator("[data-testid=splitter]").bounding_box()
                            split = page.locator("#split").bounding_box()
                            target = split["y"] + split["height"] * (1 - frac)
                            page.mouse.move(sp["x"] + sp["width"] / 2, sp["y"] + 3)
                            page.mouse.down()
                            page.mouse.move(sp["x"] + sp["width"] / 2, target, steps=8)
                            page.mouse.up()
                            page.click("[data-testid=ptx-hottest]")
                        page.wait_for_timeout(1500)
                        page.screenshot(path=str(out / f"{name}-{w}x{h}.png"))
                        page.evaluate("() => localStorage.clear()")
                    page.close()
                browser.close()
        finally:
            srv.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")
