"""Frame time in Chromium while scrubbing: the explorer's per-frame work and the browser's frame interval.

    python benchmarks/browser_frames.py [--case softmax_4096x128] [--moves 300] [--keys 200]

Starts `simtscope serve` (real timing engine) on a temporary run store, simulates the case with full
recording, opens it in Debian's Chromium (headless, software rendering) at 1400x1000, then
  1. drags the cursor across the ruler in --moves steps (one pointer move per animation frame), and
  2. presses the arrow key --keys times (Shift: 10 cycles),
each step moving the cursor, redrawing the overlay and the ruler and, when the snapshot for the new
cycle arrives, the inspector. Reports per animation frame the time our scheduled jobs took (input,
canvas, overlay, DOM phases: frameStats in render/scheduler.js) and the interval between consecutive
requestAnimationFrame callbacks (what the user sees). Goal: at most 16 ms.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fixtures.servers import ServerProcess, wait_done  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
RAF = """() => { const gen = (window.__rafGen || 0) + 1; window.__rafGen = gen; const times = window.__rafTimes = [];
    const loop = (t) => { if (window.__rafGen !== gen) return; times.push(t); requestAnimationFrame(loop); };
    requestAnimationFrame(loop); }"""


def stats(xs) -> str:
    xs = np.asarray(xs, float)
    return f"p50 {np.percentile(xs, 50):5.1f}  p95 {np.percentile(xs, 95):5.1f}  max {xs.max():5.1f} ms  (n={len(xs)})"


def main() -> int:
    from playwright.sync_api import sync_playwright
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", default="softmax_4096x128")
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--keys", type=int, default=200)
    a = ap.parse_args()
    srv = ServerProcess(Path(tempfile.mkdtemp()) / "data").start()
    try:
        run = srv.post("/api/runs", json={"workload": f"case:{a.case}", "config": "h200", "level": "full"}).json()
        run = wait_done(srv.get, run["id"], timeout=600)
        end = run["cycles"]
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = b.new_page(viewport={"width": 1400, "height": 1000})
            a0, b0 = end // 3, end // 3 + 4000
            page.goto(f"{srv.url}/?run={run['id']}&a={a0}&b={b0}&sm=1&cursor={a0}")
            page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src "
                                   "&& window.__simtscope.timeline.src.groups.heat", timeout=60000)
            page.wait_for_timeout(1000)
            box = page.locator("[data-testid=ruler]").bounding_box()
            results = {}
            for phase in ("drag", "keys"):
                page.evaluate("() => { window.__simtscope.frameStats.samples.length = 0; }")
                page.evaluate(RAF)
                if phase == "drag":
                    x0, x1 = box["x"] + 180, box["x"] + box["width"] - 20
                    y = box["y"] + box["height"] / 2
                    page.mouse.move(x0, y)
                    page.mouse.down()
                    for i in range(a.moves):
                        page.mouse.move(x0 + (x1 - x0) * i / a.moves, y)
                        page.evaluate("() => new Promise(requestAnimationFrame)")
                    page.mouse.up()
                else:
                    for i in range(a.keys):
                        page.keyboard.press("Shift+ArrowLeft" if i % 2 else "ArrowRight")
                        page.evaluate("() => new Promise(requestAnimationFrame)")
                page.wait_for_timeout(300)
                work = page.evaluate("() => window.__simtscope.frameStats.samples.slice()")
                raf = page.evaluate("() => window.__rafTimes.slice()")
                page.evaluate("() => { window.__rafGen += 1; }")
                results[phase] = (work, np.diff(raf))
            snaps = page.evaluate("() => window.__simtscope.channel.stats")
            by_key = page.evaluate("() => window.__simtscope.frameStats.byKey")
            b.close()
        print(f"{a.case}: {end:,} cycles; window {b0 - a0:,} cycles; Chromium headless, software rendering")
        for phase, (work, gaps) in results.items():
            print(f"{phase:5s} our work per frame:        {stats(work)}")
            print(f"{phase:5s} rAF interval (frame time): {stats(gaps)}")
        for key, xs in sorted(by_key.items()):
            print(f"  job {key:18s} {stats(xs)}")
        print(f"frames received over the socket: {snaps['frames']} ({snaps['bytes'] / 2**20:.1f} MiB)")
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
