"""The explorer in Chromium against `simtscope serve` with the real timing engine: a run started from the
UI, the heatmap's pixels against the run store, scrubbing with keys against snapshots, a PTX line's issues,
exports, uploads."""
from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np
from playwright.sync_api import expect

from engine.recording import STATE_INDEX, WARP_STATES
from tests.e2e.conftest import open_view, wait_settled
from webapp.store import RunReader

ROOT = Path(__file__).resolve().parents[2]


def reader(server, run_id) -> RunReader:
    return RunReader(server.data_dir / "runs" / f"{run_id}.simtrun")


def hex_rgb(h: str) -> tuple[int, int, int]:
    v = int(h[1:], 16)
    return (v >> 16) & 255, (v >> 8) & 255, v & 255


def test_start_a_run_from_the_ui_and_follow_it_to_the_end(page, server, shot):
    page.goto(server.url + "/")
    page.select_option("[data-testid=workload]", "case:softmax_4096x128")
    page.select_option("[data-testid=config]", "h200")
    page.fill("form.new-run input[name=record_sms]", "0-7")
    page.fill("form.new-run input[name=name]", "from the UI")
    page.click("[data-testid=start-run]")
    expect(page.locator("[data-testid=new-run-msg]")).to_contain_text("started from the UI")
    row = page.locator("tr", has_text="from the UI")
    expect(row.locator("progress")).to_be_visible(timeout=30000)           # progress while it simulates
    shot(page, "running")
    expect(row.locator("[data-testid=status]")).to_have_text("done", timeout=300000)
    run_id = row.get_attribute("data-run")
    row.locator("a[data-open]").click()
    page.wait_for_function("() => window.__simtscope.timeline.src && window.__simtscope.timeline.src.groups.heat",
                           timeout=60000)
    expect(page.locator("[data-testid=run-title]")).to_contain_text("from the UI")
    expect(page.locator("[data-testid=inspector-title]")).to_contain_text("SM 0")
    shot(page, "opened")
    assert reader(server, run_id).status == "done"


def test_heatmap_pixels_of_a_100_cycle_window_match_the_run_store(page, server, softmax_run, shot):
    rd = reader(server, softmax_run["id"])
    sm = 1

    def busy_states(c):
        st = rd.heat(sm, c, c + 100, 0)["state"]
        return len(set(np.unique(st).tolist()) - {STATE_INDEX["idle"], 255})
    # the window (of nine through the run) where SM 1's warps are in the most states: a sample that sees one
    # state only would prove little, and which window has several depends on the timing model
    a = max((rd.end_cycle * k // 12 for k in range(2, 11)), key=busy_states)
    assert busy_states(a) >= 2, "no 100-cycle window of SM 1 with warps in several states"
    open_view(page, server, softmax_run["id"], a=a, b=a + 100, sm=sm, cursor=a)
    # the canvas drawn with the step-1 window (not after a guessed delay), then every number read at once
    wait_settled(page, "tl.src.groups.heat && tl.src.groups.heat.step === 1 && tl.src.groups.heat.cycle0 <= a", a)
    colours = page.evaluate("() => window.__simtscope.stateColours")
    truth = rd.heat(sm, a, a + 100, 0)["state"]                          # (slots, 100) from the run store
    rng = np.random.default_rng(5)
    cells = [(float(u), int(dc)) for u, dc in zip(rng.random(24), rng.integers(1, 99, 24))]
    frame = page.evaluate("""([a, cells]) => { const tl = window.__simtscope.timeline, r = tl.trackRect('heat');
        const ctx = tl.main.getContext('2d'), d = devicePixelRatio || 1, rows = tl.heat.rows(), rh = tl.heat.rowH();
        return {settled: tl.settled(), slots: rows, all: tl.heat.slots(), wa: tl.src.loaded.a, wb: tl.src.loaded.b,
          px: cells.map(([u, dc]) => { const slot = Math.floor(u * rows), x = tl.view().toPx(a + dc + 0.5), y = r.y + slot * rh + rh / 2;
            return [slot, Array.from(ctx.getImageData(Math.floor(x * d), Math.floor(y * d), 1, 1).data)]; })}; }""",
                          [a, cells])
    assert frame["settled"]
    # the track has a row per slot that held a warp in the loaded window, not one per slot of the SM
    held = rd.heat(sm, frame["wa"], min(frame["wb"], rd.end_cycle), 0)["state"]
    busy = np.flatnonzero(((held != STATE_INDEX["idle"]) & (held != 255)).any(axis=1))
    assert busy.max() + 1 <= frame["slots"] < frame["all"], (frame["slots"], frame["all"], busy.max())
    checked = set()
    for (_u, dc), (slot, (r, g, b, alpha)) in zip(cells, frame["px"]):
        state = WARP_STATES[truth[slot, dc]]
        assert alpha == 255 and (r, g, b) == hex_rgb(colours[state]), (slot, a + dc, state, (r, g, b))
        checked.add(state)
    assert len(checked) >= 2, checked                                     # the sample saw several states
    shot(page, "heatmap-100-cycles")


def test_scrubbing_with_the_keys_steps_the_cursor_and_the_inspector_follows(page, server, softmax_run, shot):
    rd = reader(server, softmax_run["id"])
    c0 = rd.end_cycle // 2
    open_view(page, server, softmax_run["id"], a=c0 - 2000, b=c0 + 2000, sm=0, cursor=c0, tab="warps")
    page.locator("[data-testid=ruler]").hover()
    steps = [("ArrowRight", 1), ("Shift+ArrowRight", 10), ("Control+ArrowRight", 100), ("ArrowLeft", -1),
             ("Shift+ArrowLeft", -10)]
    cur = c0
    from webapp.store.snapshot import warps_at
    for key, delta in steps:
        page.keyboard.press(key)
        cur += delta
        assert page.evaluate("() => window.__simtscope.state.get().cursor") == cur
        expect(page.locator("[data-testid=inspector-title]")).to_have_text(f"cycle {cur:,} · SM 0")
        w = warps_at(rd, 0, cur)
        expect(page.locator("table.warps td .state")).to_have_text([WARP_STATES[s] for s in w["state"].tolist()])
        texts = page.locator("table.warps tbody tr").all_inner_texts()
        resident = np.flatnonzero(~np.isin(w["state"], [STATE_INDEX["idle"]]))
        for slot in resident[w["pc"][resident] != 0xFFFFFFFF][:8]:
            assert str(int(w["pc"][slot])) in texts[slot]
            m = int(w["active"][slot])
            assert f"0x{m:08x} {bin(m).count('1')}/32" in texts[slot]
        for slot in resident[w["pc"][resident] == 0xFFFFFFFF][:4]:   # draining: no next instruction
            assert "—" in texts[slot] and "4294967295" not in texts[slot]
    expect(page).to_have_url(re.compile(f"cursor={cur}(&|$)"))
    shot(page, "inspector")


def test_clicking_a_ptx_line_highlights_its_issues(page, server, softmax_run, shot):
    rd = reader(server, softmax_run["id"])
    a = rd.end_cycle // 3
    sm = 0
    open_view(page, server, softmax_run["id"], a=a, b=a + 400, sm=sm, cursor=a, tab="ptx")
    kern = rd.rec["kernels"][0]
    # the line whose instructions issued most often on this SM in this window (from the run store)
    k, s, e, st, pc, _ = rd.warp_runs(sm, a, a + 400)
    sel = st == STATE_INDEX["selected"]
    lines = np.array(kern["pc_line"])[pc[sel]]
    line = int(np.bincount(lines).argmax())
    row = page.locator(f"table.ptx tr[data-line='{line}']")
    expect(row).to_have_class("hot")
    row.evaluate("(tr) => tr.scrollIntoView({block: 'center'})")     # never under the table's sticky head
    row.click()
    expect(row).to_have_class("hot selected")
    # the window fetched for this line's PCs has arrived and is drawn (not an earlier one without them)
    wait_settled(page, "tl.src.groups.issues && tl.src.groups.issues.n > 0 && JSON.parse(tl.src.loaded.key)[1].length > 0")
    got = page.evaluate("""() => { const tl = window.__simtscope.timeline, src = tl.src, g = src.groups.issues;
        return {a: g.cycle0, slot: Array.from(g.cols.slot), cycle: Array.from(g.cols.cycle, Number),
                wa: src.loaded.a, wb: src.loaded.b, pcs: JSON.parse(src.loaded.key)[1], settled: tl.settled()}; }""")
    assert got["settled"]                                     # one evaluate: the frame and its window
    pcs = [p for p, ln in enumerate(kern["pc_line"]) if ln == line]
    assert got["pcs"] == pcs
    wa, wb = got["wa"], got["wb"]
    k, s, e, st, pc, _ = rd.warp_runs(sm, wa, wb)
    hit = (st == STATE_INDEX["selected"]) & np.isin(pc, pcs)
    want = {(int(kk), int(c)) for kk, ss, ee in zip(k[hit], s[hit], e[hit]) for c in range(max(ss, wa), min(ee, wb))}
    have = {(sl, got["a"] + c) for sl, c in zip(got["slot"], got["cycle"])}
    assert have == want and len(want) > 0, (len(have), len(want), sorted(have - want)[:5], sorted(want - have)[:5], wa, wb, line, pcs)
    expect(page).to_have_url(re.compile(f"line={line}(&|$)"))           # the view state is in the URL
    shot(page, "ptx-line")


def test_export_png_at_2x_and_4x_and_svg(page, server, softmax_run, tmp_path, shot):
    open_view(page, server, softmax_run["id"], sm=0)
    width = page.evaluate("() => window.__simtscope.timeline.width")
    for testid, scale in (("export-png2", 2), ("export-png4", 4)):
        if not page.locator(f"[data-testid={testid}]").is_visible():
            page.click("[data-testid=export-menu] summary")
        with page.expect_download() as dl:
            page.click(f"[data-testid={testid}]")
        path = tmp_path / dl.value.suggested_filename
        dl.value.save_as(path)
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and path.name.endswith(f"@{scale}x.png")
        w, h = struct.unpack(">II", data[16:24])
        assert w == width * scale and h > 300 * scale
    if not page.locator("[data-testid=export-svg]").is_visible():
        page.click("[data-testid=export-menu] summary")
    with page.expect_download() as dl:
        page.click("[data-testid=export-svg]")
    svg = tmp_path / dl.value.suggested_filename
    dl.value.save_as(svg)
    import xml.etree.ElementTree as ET
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg") and int(float(root.get("width"))) == width
    text = svg.read_text()
    assert text.count("<rect") > 500 and "long_scoreboard" in text and "softmax e2e" in text
    span = page.evaluate("() => { const s = window.__simtscope.state.get(); return s.b - s.a; }")
    assert f"cycles shown · {span / 1980:.3g} µs" in text            # the span also in µs at the H200's clock
    if not page.locator("[data-testid=export-csv]").is_visible():
        page.click("[data-testid=export-menu] summary")
    with page.expect_download() as dl:
        page.click("[data-testid=export-csv]")
    csv = tmp_path / "c.csv"
    dl.value.save_as(csv)
    assert csv.read_text().startswith("cycle_start,cycle_end,cycles,warp_insts,ipc")
    shot(page, "exported")


def test_upload_a_good_and_a_malformed_workload(page, server, tmp_path, shot):
    page.goto(server.url + "/")
    ptx = tmp_path / "vec.ptx"
    ptx.write_text((ROOT / "validation" / "ptx" / "vector.sm90.ptx").read_text())
    case = {"name": "e2e_saxpy", "kernel": "saxpy", "grid": [16], "block": [128],
            "args": [{"kind": "scalar", "dtype": "u32", "value": 2048}, {"kind": "scalar", "dtype": "f32", "value": 3},
                     {"kind": "buffer", "dtype": "f32", "count": 2048, "init": "iota"},
                     {"kind": "buffer", "dtype": "f32", "count": 2048, "init": "zeros", "output": True}]}
    page.set_input_files("[data-testid=upload-file]", str(ptx))
    page.fill("[data-testid=upload-launch]", json.dumps(case))
    page.click("[data-testid=upload-submit]")
    expect(page.locator("[data-testid=upload-msg]")).to_have_text("uploaded: e2e_saxpy")
    expect(page.locator("[data-testid=workload] option", has_text="e2e_saxpy")).to_have_count(1)
    junk = tmp_path / "junk.ptx"
    junk.write_bytes(bytes(range(256)) * 64)
    page.set_input_files("[data-testid=upload-file]", str(junk))
    page.click("[data-testid=upload-submit]")
    expect(page.locator("[data-testid=upload-msg]")).to_have_text("junk.ptx: binary data, not a text file")
    expect(page.locator("[data-testid=upload-msg]")).to_have_class("form-msg error")
    page.set_input_files("[data-testid=upload-file]", str(ptx))
    page.fill("[data-testid=upload-launch]", json.dumps({**case, "block": [4096]}))
    page.click("[data-testid=upload-submit]")
    expect(page.locator("[data-testid=upload-msg]")).to_contain_text("block.x = 4096 is outside 1..1024")
    shot(page, "upload-error")
    # nothing else broke: the forms and the run list still work
    page.select_option("[data-testid=workload]", label=page.locator("[data-testid=workload] option",
                                                                         has_text="e2e_saxpy").inner_text())
    page.click("[data-testid=start-run]")
    expect(page.locator("tr", has_text="e2e_saxpy").locator("[data-testid=status]")).to_have_text("done",
                                                                                                timeout=120000)
