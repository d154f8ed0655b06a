"""Warps pinned and their history, ranges with totals, collapsing tracks, Shift+wheel, the ? overlay,
upload limits, the new-run form's defaults: each checked against the run store or the server."""
from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import expect

from engine.recording import WARP_STATES
from tests.e2e.conftest import open_view, wait_settled
from webapp.store import RunReader


def reader(server, rid):
    return RunReader(server.data_dir / "runs" / f"{rid}.simtrun")


def test_clicking_a_warp_pins_it_and_lists_its_history(page, server, softmax_run, shot):
    rd = reader(server, softmax_run["id"])
    c = rd.end_cycle // 3
    open_view(page, server, softmax_run["id"], a=c - 500, b=c + 500, sm=0, cursor=c, tab="warps")
    wait_settled(page, "tl.src.groups.heat")        # rows are final once the window is drawn: click a row
    slot = 5
    x, y = page.evaluate("""([c, slot]) => { const tl = window.__simtscope.timeline, r = tl.trackRect('heat'),
        b = tl.main.getBoundingClientRect();
        return [b.left + tl.view().toPx(c) + 0.5, b.top + r.y + slot * tl.heat.rowH() + tl.heat.rowH() / 2]; }""", [c, slot])
    page.mouse.click(x, y)
    assert page.evaluate("() => window.__simtscope.state.get().pin") == slot
    expect(page.locator("table.warps tr.pinned")).to_have_attribute("data-slot", str(slot))
    expect(page).to_have_url(re.compile(f"pin={slot}(&|$)"))
    # its history: the state runs of that slot around the cursor, as the run store has them
    cur = page.evaluate("() => window.__simtscope.state.get().cursor")
    k, s, e, st, pc, _ = rd.warp_runs(0, max(0, cur - 8192), cur + 8192)
    mine = k == slot
    s, e, st, pc = s[mine], e[mine], st[mine], pc[mine]
    now = int(np.flatnonzero((s <= cur) & (cur < e))[0])
    row = page.locator("[data-testid=history] tr.now")
    expect(row).to_have_count(1)
    cells = row.locator("td")
    expect(cells.nth(0)).to_have_text(f"{int(s[now]):,}")
    expect(cells.nth(2)).to_have_text(f"{int(e[now] - s[now]):,}")
    expect(cells.nth(3)).to_have_text(WARP_STATES[int(st[now])])
    if pc[now] != 0xFFFFFFFF:
        expect(cells.nth(4)).to_have_text(str(rd.rec["kernels"][0]["pc_line"][int(pc[now])]))
    shot(page, "pinned")
    page.keyboard.press("Escape")
    expect(page.locator("table.warps tr.pinned")).to_have_count(0)


def test_shift_drag_selects_a_range_with_totals(page, server, softmax_run, shot):
    rd = reader(server, softmax_run["id"])
    open_view(page, server, softmax_run["id"], a=0, b=rd.end_cycle, sm=0, cursor=0)
    box = page.locator("[data-testid=tracks]").bounding_box()
    tl = "window.__simtscope.timeline"
    x0 = box["x"] + page.evaluate(f"() => {tl}.view().toPx({rd.end_cycle // 4})")
    x1 = box["x"] + page.evaluate(f"() => {tl}.view().toPx({rd.end_cycle // 2})")
    y = box["y"] + 60
    page.keyboard.down("Shift")
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move(x1, y, steps=6)
    page.mouse.up()
    page.keyboard.up("Shift")
    s = page.evaluate("() => window.__simtscope.state.get()")
    assert s["tab"] == "range" and 0 < s["ra"] < s["rb"], s
    assert s["a"] == 0                                   # a range, not a pan
    expect(page.locator("[data-testid=range]")).to_be_visible()
    # the SM's warp states over the range, exact: from the run store's warp runs
    _k, st0, en, stt, _pc, _ = rd.warp_runs(0, s["ra"], s["rb"])
    d = np.minimum(en, s["rb"]) - np.maximum(st0, s["ra"])
    per = np.bincount(stt, weights=d, minlength=len(WARP_STATES)).astype(int)
    ls = WARP_STATES.index("long_scoreboard")
    expect(page.locator("[data-testid=range-sm] tr[data-state=long_scoreboard] td").nth(1)).to_have_text(f"{per[ls]:,}")
    shot(page, "range")


def test_tracks_collapse_and_shift_wheel_scrolls_them(page, server, softmax_run):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_view(page, server, softmax_run["id"], sm=0)
    tl = "window.__simtscope.timeline"
    h0 = page.evaluate(f"() => {tl}.layout.height")
    r = page.evaluate(f"() => {tl}.trackRect('heat')")
    box = page.locator("[data-testid=tracks]").bounding_box()
    page.mouse.click(box["x"] + 40, box["y"] + r["y"] + 5)          # the track's name
    h1 = page.evaluate(f"() => {tl}.layout.height")
    assert h0 - h1 == r["h"] - 16, (h0, h1, r)
    page.mouse.click(box["x"] + 40, box["y"] + r["y"] + 5)
    assert page.evaluate(f"() => {tl}.layout.height") == h0
    # Shift+wheel over the tracks scrolls them vertically (and does not zoom)
    s0 = page.evaluate("() => window.__simtscope.state.get()")
    page.mouse.move(box["x"] + 600, box["y"] + 100)
    page.keyboard.down("Shift")
    page.mouse.wheel(0, 300)
    page.keyboard.up("Shift")
    page.wait_for_function("() => document.querySelector('.tracks-scroll').scrollTop > 100")
    s1 = page.evaluate("() => window.__simtscope.state.get()")
    assert (s0["a"], s0["b"]) == (s1["a"], s1["b"])


def test_the_help_overlay_and_the_forms_say_what_they_need(page, server):
    page.goto(server.url + "/")
    expect(page.locator("[data-testid=help-overlay]")).to_be_hidden()
    page.keyboard.press("?")
    ov = page.locator("[data-testid=help-overlay]")
    expect(ov).to_be_visible()
    for words in ("Shift + wheel", "Shift + drag", "click a track's name", "pin"):
        expect(ov).to_contain_text(words)
    page.keyboard.press("Escape")
    expect(ov).to_be_hidden()
    lim = server.get("/api/limits")
    expect(page.locator("[data-testid=upload-limits]")).to_contain_text(
        f"each file up to {lim['file_bytes'] // 2**20} MiB, one upload up to {lim['request_bytes'] // 2**20} MiB")
    expect(page.locator("[data-testid=import-limits]")).to_contain_text(f"up to {lim['request_bytes'] // 2**20} MiB")
    # the new-run form starts from the last run started here
    page.select_option("[data-testid=workload]", "case:saxpy_1M")
    page.select_option("[data-testid=config]", "a100")
    page.fill("form.new-run input[name=overrides]", "sm.scheduler=lrr")
    page.fill("form.new-run input[name=record_sms]", "0-3")
    page.click("[data-testid=start-run]")
    expect(page.locator("[data-testid=new-run-msg]")).to_contain_text("started")
    page.reload()
    expect(page.locator("[data-testid=workload]")).to_have_value("case:saxpy_1M")
    expect(page.locator("[data-testid=config]")).to_have_value("a100")
    expect(page.locator("form.new-run input[name=overrides]")).to_have_value("sm.scheduler=lrr")
    expect(page.locator("form.new-run input[name=record_sms]")).to_have_value("0-3")
