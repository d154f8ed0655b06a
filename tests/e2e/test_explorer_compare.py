"""Compare as a diff (A and B interleaved per track, a table of differences, both runs in the PTX and
memory tabs) and the PTX view (sorted by stall cycles, the hottest line, numbers visible, branches)."""
from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import fmt_us, open_view
from tests.fixtures.servers import wait_done
from webapp.store import RunReader, runfile


@pytest.fixture(scope="module")
def a100_run(server):
    r = server.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": "a100", "level": "full",
                                       "name": "softmax a100"})
    assert r.status_code == 201, r.text
    run = wait_done(server.get, r.json()["id"], timeout=300)
    assert run["status"] == "done", run
    return run


def path(server, rid):
    return server.data_dir / "runs" / f"{rid}.simtrun"


def line_totals(server, rid):
    """(issued, stall cycles without issue cycles) per PTX line, from the run file's per-PC table."""
    rd = RunReader(path(server, rid))
    p, k = rd.pc_stats(), rd.rec["kernels"][0]
    sel = rd.rec["states"].index("selected") if "states" in rd.rec else 1
    issued, stall = {}, {}
    for pc, iss, st in zip(p["pc"], p["issued"], p["stalls"]):
        ln = k["pc_line"][pc]
        issued[ln] = issued.get(ln, 0) + int(iss)
        stall[ln] = stall.get(ln, 0) + int(st.sum()) - int(st[sel])
    return issued, stall


def test_compare_interleaves_tracks_and_tabulates_the_differences(page, server, softmax_run, a100_run, shot):
    a, b = softmax_run["id"], a100_run["id"]
    sa, sb = runfile.read_meta(path(server, a), "stats"), runfile.read_meta(path(server, b), "stats")
    open_view(page, server, a, cmp=b, tab="diff", sm=0)
    page.wait_for_function("() => window.__simtscope.timeline.cmp && window.__simtscope.timeline.cmp.groups.ctr", timeout=60000)
    labels = page.evaluate("() => window.__simtscope.timeline.layout.rows.filter((r) => r.track).map((r) => r.track.label)")
    # every A track with a B counterpart is directly followed by it, memory counters included
    for name in ("Kernels", "Warps of SM 0", "Warp states (all SMs)", "IPC", "L2 hit rate", "DRAM bandwidth", "L2 queue"):
        i = labels.index(f"A · {name}")
        assert labels[i + 1] == f"B · {name}", (name, labels)
    expect(page.locator("[data-testid=diff]")).to_be_visible()
    row = lambda key: page.locator(f"[data-testid=diff-metrics] tr[data-metric={key}]")   # noqa: E731
    expect(row("cycles").locator("td").nth(0)).to_have_text(f"{sa['gpu_sim_cycle']:,}")
    expect(row("cycles").locator("td").nth(1)).to_have_text(f"{sb['gpu_sim_cycle']:,}")
    d = sb["gpu_sim_cycle"] - sa["gpu_sim_cycle"]
    expect(row("cycles").locator("td").nth(2)).to_have_text(("+" if d > 0 else "−") + f"{abs(d):,}")
    expect(row("us").locator("td").nth(0)).to_have_text(fmt_us(sa["gpu_tot_sim_time_us"]))
    expect(row("us").locator("td").nth(1)).to_have_text(fmt_us(sb["gpu_tot_sim_time_us"]))
    for key in ("ipc", "l1_hit", "l2_hit", "dram_bw", "occupancy"):
        expect(row(key)).to_have_count(1)
    # warp states: A and B cycles per state
    ls = page.locator("[data-testid=diff-stalls] tr[data-state=long_scoreboard] td")
    expect(ls.nth(1)).to_have_text(f"{sa['stall_cycles']['long_scoreboard']:,}")
    expect(ls.nth(2)).to_have_text(f"{sb['stall_cycles']['long_scoreboard']:,}")
    # per PTX line: the line whose stall cycles changed most comes first, with both runs' numbers
    ia, ta = line_totals(server, a)
    ib, tb = line_totals(server, b)
    top = max(set(ta) | set(tb), key=lambda ln: abs(tb.get(ln, 0) - ta.get(ln, 0)))
    first = page.locator("[data-testid=diff-lines] tbody tr").first
    expect(first).to_have_attribute("data-line", str(top))
    cells = first.locator("td")
    expect(cells.nth(4)).to_have_text(f"{ta.get(top, 0):,}")
    expect(cells.nth(5)).to_have_text(f"{tb.get(top, 0):,}")
    shot(page, "diff")
    # PTX tab: B's columns beside A's
    page.click("[data-testid=tab-ptx]")
    expect(page.locator("table.ptx th", has_text="stall cycles B")).to_have_count(1)
    tr = page.locator(f"table.ptx tr[data-line='{top}']")
    expect(tr.locator("td.stall")).to_have_text(f"{ta[top]:,}" if ta.get(top) else "")
    # memory tab: both runs' snapshot at the cursor
    page.click(".tabs button[data-tab=memory]")
    expect(page.locator("[data-pane=memory] .ab-title")).to_have_text([f"A · {softmax_run['name']}", f"B · {a100_run['name']}"])


def test_the_ptx_view_sorts_by_stalls_and_jumps_to_the_hottest_line(page, server, softmax_run, shot):
    issued, stall = line_totals(server, softmax_run["id"])
    hottest = max(stall, key=lambda ln: stall[ln])
    open_view(page, server, softmax_run["id"], tab="ptx")
    # numbers visible without hovering, issue cycles kept apart from stalls
    row = page.locator(f"table.ptx tr[data-line='{hottest}']")
    expect(row.locator("td.stall")).to_have_text(f"{stall[hottest]:,}")
    page.select_option("[data-testid=ptx-sort]", "stalls")
    got = [int(x) for x in page.locator("table.ptx tbody tr").evaluate_all("(rs) => rs.map((r) => r.dataset.line)")]
    want = sorted(issued, key=lambda ln: -stall.get(ln, 0))
    assert [stall.get(ln, 0) for ln in got] == [stall.get(ln, 0) for ln in want], (got[:8], want[:8])
    assert got[0] == hottest
    page.select_option("[data-testid=ptx-sort]", "source")
    page.click("[data-testid=ptx-hottest]")
    expect(row).to_have_class(re.compile("selected"))
    expect(row).to_be_in_viewport()
    expect(page).to_have_url(re.compile(f"line={hottest}(&|$)"))
    # branches say where they go
    bra = page.locator("table.ptx tr", has_text=re.compile(r"\bbra")).first
    expect(bra.locator(".note")).to_contain_text(re.compile("jump to|conditional branch"))
    # a stall colour opens the glossary
    widest = row.locator(".stallbar span").evaluate_all(
        "(ss) => ss.reduce((a, s) => (s.offsetWidth > a.offsetWidth ? s : a)).dataset.gloss")
    row.locator(f".stallbar span[data-gloss={widest}]").click()
    expect(page.locator(".gloss-entry.focus")).to_have_attribute("data-state", widest)
    shot(page, "ptx")
    assert np.isfinite(stall[hottest])
