"""The run view's layout and the run summary in Chromium: the details pane is on screen at every window
size and resizes with the splitter; the summary shows the run file's statistics; every state colour and
legend entry leads to the glossary; a failed run gets its own page; overrides are checked at submit."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from engine.recording import WARP_STATES
from tests.e2e.conftest import fmt_us, open_view, wait_settled
from tests.fixtures.servers import wait_done
from webapp.store import RunReader, runfile

ROOT = Path(__file__).resolve().parents[2]


def stats_of(server, run_id):
    return runfile.read_meta(server.data_dir / "runs" / f"{run_id}.simtrun", "stats")


def box(page, sel):
    return page.locator(sel).bounding_box()


@pytest.mark.parametrize("size", [(1280, 720), (2560, 1440)])
def test_the_details_pane_fits_the_window_and_the_splitter_resizes_it(page, server, softmax_run, shot, size):
    w, h = size
    page.set_viewport_size({"width": w, "height": h})
    open_view(page, server, softmax_run["id"], tab="summary")
    details, top = box(page, "[data-testid=details]"), box(page, "[data-testid=pane-top]")
    # both panes inside the window, the details using the full width, and the page itself never scrolls
    assert details["y"] + details["height"] <= h + 1 and details["height"] >= 60, details
    assert top["y"] + top["height"] <= details["y"] + 1
    assert details["width"] >= w - 2 * 12 - 2, details
    assert page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight + 1")
    expect(page.locator("[data-testid=summary]")).to_be_visible()
    shot(page, f"layout-{w}x{h}")
    # drag the splitter up by 150 px: the details grow by as much, the timeline's tracks area shrinks
    sp = box(page, "[data-testid=splitter]")
    tracks_h = page.evaluate("() => document.querySelector('.tracks-scroll').clientHeight")
    page.mouse.move(sp["x"] + sp["width"] / 2, sp["y"] + 3)
    page.mouse.down()
    page.mouse.move(sp["x"] + sp["width"] / 2, sp["y"] + 3 - 150, steps=5)
    page.mouse.up()
    d2 = box(page, "[data-testid=details]")
    assert abs(d2["height"] - (details["height"] + 150)) <= 2, (details, d2)
    assert d2["y"] + d2["height"] <= h + 1
    tracks_h2 = page.evaluate("() => document.querySelector('.tracks-scroll').clientHeight")
    assert abs(tracks_h2 - (tracks_h - 150)) <= 2, (tracks_h, tracks_h2)
    shot(page, f"resized-{w}x{h}")
    # the split survives a reload
    page.reload()
    page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src", timeout=60000)
    d3 = box(page, "[data-testid=details]")
    assert abs(d3["height"] - d2["height"]) <= 3, (d2, d3)
    page.evaluate("() => localStorage.clear()")


def test_the_summary_shows_the_run_files_statistics(page, server, softmax_run, shot):
    st = stats_of(server, softmax_run["id"])
    open_view(page, server, softmax_run["id"], tab="summary")
    summary = page.locator("[data-testid=summary]")
    expect(summary).to_be_visible()
    cell = lambda key: summary.locator(f"tr[data-metric={key}] td.num")   # noqa: E731
    expect(cell("cycles")).to_have_text(f"{st['gpu_sim_cycle']:,}")
    expect(cell("us")).to_have_text(fmt_us(st["gpu_tot_sim_time_us"]))
    ipc = float(format(st["warp_ipc"], ".4g"))
    expect(cell("ipc")).to_have_text(f"{ipc:g}")
    expect(cell("occupancy")).to_have_text(f"{100 * st['gpu_occupancy']:.1f}%")
    expect(cell("limiter")).to_have_text(st["occupancy_limiter"])
    expect(cell("l1_hit")).to_have_text(f"{100 * st['L1D_hit_rate']:.1f}%")
    expect(cell("l2_hit")).to_have_text(f"{100 * st['L2_hit_rate']:.1f}%")
    gbps = (st["dram_read_bytes"] + st["dram_write_bytes"]) / st["gpu_tot_sim_time_us"] / 1e3
    expect(cell("dram_bw")).to_contain_text(f"{gbps / 1e3:.1f}k GB/s" if gbps >= 1e3 else f"{gbps:.4g} GB/s")
    # stall totals: every non-zero state with its warp-cycles and share, largest first
    sc = {k: v for k, v in st["stall_cycles"].items() if v > 0 and k not in ("idle", "done")}
    tot = sum(sc.values())
    rows = page.locator("[data-testid=stall-table] tbody tr")
    expect(rows).to_have_count(len(sc))
    order = sorted(sc, key=lambda k: -sc[k])
    expect(rows.locator("td:nth-child(1)")).to_have_text(order)
    first = rows.nth(0)
    expect(first.locator("td:nth-child(2)")).to_have_text(f"{sc[order[0]]:,}")
    expect(first.locator("td:nth-child(3)")).to_have_text(f"{100 * sc[order[0]] / tot:.1f}%")
    # the same case as the H200 ran it (validation/h200_results.json, read here from the file itself): measured
    # cycles and DRAM bytes beside the simulated ones, and the gap named an error (the run simulates the H200)
    hw = json.loads((ROOT / "validation" / "h200_results.json").read_text())["cases"]["softmax_4096x128"]["ncu"]
    card = page.locator("[data-testid=measured-card]")
    expect(card.locator("h4")).to_contain_text("Measured on H200")
    cyc = card.locator("tbody tr").nth(0).locator("td")
    expect(cyc).to_have_text([f"{st['gpu_sim_cycle']:,}", f"{hw['gpc__cycles_elapsed.max']:,}",
                              signed(st["gpu_sim_cycle"], hw["gpc__cycles_elapsed.max"])])
    expect(card.locator("thead th").nth(3)).to_have_text("error")
    expect(card.locator("[data-testid=measured-why]")).to_have_count(0)
    # beside each stall reason's warp-cycles per issued instruction, the H200's for the same case (ncu's names)
    expect(page.locator("[data-testid=stall-hw-head]")).to_have_text("H200 per issue")
    hw_stall = lambda k: hw[f"smsp__average_warps_issue_stalled_{k}_per_issue_active.ratio"]   # noqa: E731
    expect(rows.locator("td:nth-child(5)")).to_have_text([f"{float(f'{hw_stall(k):.3g}'):g}" for k in order])
    shot(page, "summary")


def signed(sim: float, hw: float) -> str:
    e = 100 * (sim - hw) / hw
    return f"{'+' if e >= 0 else '−'}{abs(e):.1f}%"


def test_a_run_of_another_gpu_shows_the_measurement_as_a_difference(page, server, softmax_run, shot):
    """The same case simulated on the A100 preset: the H200's measurement is still shown, but the gap is a
    difference between GPUs, and the card says so."""
    r = server.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": "a100", "level": "summary",
                                       "name": "softmax a100"})
    assert r.status_code == 201, r.text
    run = wait_done(server.get, r.json()["id"], timeout=300)
    assert run["status"] == "done", run
    open_view(page, server, run["id"], tab="summary")
    card = page.locator("[data-testid=measured-card]")
    expect(card.locator("thead th").nth(3)).to_have_text("difference")
    expect(card.locator("[data-testid=measured-why]")).to_have_text(
        "Not the model's error: simulated NVIDIA A100 SXM4 40GB, measured on NVIDIA H200.")
    shot(page, "summary-a100")
    # the run list: the H200 run's gap as an error, the A100 run's as a difference "vs H200", with the reason
    hw = json.loads((ROOT / "validation" / "h200_results.json").read_text())["cases"]["softmax_4096x128"]["ncu"]
    page.goto(server.url + "/")
    h200 = page.locator(f"tr[data-run='{softmax_run['id']}'] [data-testid=vs-measured]")
    expect(h200).to_have_text(signed(softmax_run["cycles"], hw["gpc__cycles_elapsed.max"]))
    a100 = page.locator(f"tr[data-run='{run['id']}'] [data-testid=vs-measured]")
    expect(a100).to_have_text(f"{signed(run['cycles'], hw['gpc__cycles_elapsed.max'])} vs H200")
    expect(a100.locator("span").first).to_have_attribute(
        "title", "difference against NVIDIA H200; not the model's error: simulated NVIDIA A100 SXM4 40GB, measured on NVIDIA H200")


def test_every_stall_colour_and_legend_entry_opens_its_glossary_entry(page, server, softmax_run, shot):
    open_view(page, server, softmax_run["id"], tab="summary")
    # from a stall colour in the summary
    page.locator("[data-testid=stall-table] tr[data-state=long_scoreboard] a.swatch").click()
    entry = page.locator("#gloss-long_scoreboard")
    expect(entry).to_be_visible()
    expect(entry).to_have_class(re.compile("focus"))
    expect(entry).to_contain_text("global or local memory load")
    expect(page).to_have_url(re.compile("gloss=long_scoreboard"))
    # from every legend entry: each state has an entry with words, not just a name
    legend = page.locator("[data-testid=legend] [data-gloss]")
    expect(legend).to_have_count(len(WARP_STATES))
    for s in ("short_scoreboard", "math_pipe_throttle", "drain", "idle"):
        page.locator(f"[data-testid=legend] [data-gloss={s}]").click()
        e = page.locator(f"#gloss-{s}")
        expect(e).to_have_class(re.compile("focus"))
        assert len(e.locator("dd").inner_text()) > 40
    expect(page.locator("#gloss-drain")).to_contain_text("leave the SM")
    shot(page, "glossary")
    for s in WARP_STATES:
        assert len(page.locator(f"#gloss-{s} dd").inner_text()) > 40, s


def test_the_legend_hides_and_shows_a_state_in_the_heatmap(page, server, softmax_run):
    rd = RunReader(server.data_dir / "runs" / f"{softmax_run['id']}.simtrun")
    a = rd.end_cycle // 3
    open_view(page, server, softmax_run["id"], a=a, b=a + 100, sm=0, cursor=a)
    wait_settled(page, "tl.src.groups.heat && tl.src.groups.heat.step === 1")
    truth = rd.heat(0, a, a + 100, 0)["state"]
    ls = WARP_STATES.index("long_scoreboard")
    hits = [(s, c) for s in range(truth.shape[0]) for c in range(1, 99) if truth[s, c] == ls]
    assert hits, "no long_scoreboard cell in the window"
    slot, dc = hits[0]

    def px() -> tuple:
        """The cell's colour once the canvas shows the current data, view and legend (a frame, not a delay:
        a legend click restyles synchronously, so the next settled frame is drawn with it)."""
        wait_settled(page)
        return tuple(page.evaluate("""([c, slot]) => { const tl = window.__simtscope.timeline, r = tl.trackRect('heat');
            const x = tl.view().toPx(c), y = r.y + slot * tl.heat.rowH() + tl.heat.rowH() / 2, d = devicePixelRatio || 1;
            return Array.from(tl.main.getContext('2d').getImageData(Math.floor(x * d), Math.floor(y * d), 1, 1).data).slice(0, 3); }""",
                                   [a + dc + 0.5, slot]))
    item = page.locator("[data-testid=legend] .legend-item[data-state=long_scoreboard]")
    assert px() == (0xd5, 0x5e, 0x00)
    page.locator("[data-testid=legend] [data-toggle=long_scoreboard]").click()
    expect(item).to_have_class(re.compile("off"))
    assert px() == (255, 255, 255)
    page.locator("[data-testid=legend] [data-toggle=long_scoreboard]").click()
    expect(item).not_to_have_class(re.compile("off"))
    assert px() == (0xd5, 0x5e, 0x00)


def test_a_failed_run_shows_its_error_on_its_own_page(page, server, shot):
    # a run that fails in the worker (the SM cannot hold one CTA of this launch: a failure after submission)
    r = server.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": "h200",
                                       "overrides": ["sm.max_threads=128"], "name": "doomed"})
    if r.status_code == 400:            # the configuration check already refused it: nothing ran
        pytest.skip(f"refused at submit: {r.json()['error']}")
    assert r.status_code == 201, r.text
    from tests.fixtures.servers import wait_done
    run = wait_done(server.get, r.json()["id"], timeout=120)
    assert run["status"] in ("failed", "faulted") and run["message"], run
    page.goto(f"{server.url}/?run={run['id']}")
    expect(page.locator("[data-testid=run-failed]")).to_be_visible()
    expect(page.locator("[data-testid=failed-title]")).to_have_text(f"Run doomed {run['status']}")
    expect(page.locator("[data-testid=failed-message]")).to_have_text(run["message"])
    expect(page.locator("[data-testid=pane-top]")).to_be_hidden()            # no blank timeline
    expect(page.locator("[data-testid=view-error]")).to_have_text("")
    shot(page, "failed")


def test_overrides_are_checked_when_the_run_is_submitted(page, server):
    page.goto(server.url + "/")
    page.select_option("[data-testid=workload]", "case:softmax_4096x128")
    page.select_option("[data-testid=config]", "h200")
    page.fill("form.new-run input[name=overrides]", "sm.warp_scheduler=lrr")
    page.click("[data-testid=start-run]")
    msg = page.locator("[data-testid=new-run-msg]")
    expect(msg).to_have_text("config h200: override 'sm.warp_scheduler=lrr': unknown key 'sm.warp_scheduler'; did you mean sm.scheduler?")
    expect(msg).to_have_class("form-msg error")
    page.fill("form.new-run input[name=overrides]", "sm.scheduler=fastest")
    page.click("[data-testid=start-run]")
    expect(msg).to_have_text("config h200: override: sm.scheduler = 'fastest' is not one of gto, lrr, two_level")
    runs = server.get("/api/runs")
    assert not any("fastest" in " ".join(r["overrides"]) or "warp_scheduler" in " ".join(r["overrides"]) for r in runs)
