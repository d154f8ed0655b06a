"""The sweep page in Chromium against `simtscope serve` with the real engine: a small sweep started from
the page grows live, its table matches the run store, a chart point opens its run, two picked rows open
the explorer's comparison."""
from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect


def _start(page, server, ready: str, workloads: list[str], name: str, points: int):
    """the page's form: `workloads` picked (once `ready`, a JS condition, holds), L2 at two sizes, started"""
    page.goto(server.url + "/sweeps")
    page.wait_for_function(ready)
    page.select_option("[data-testid=sweep-cases]", workloads)
    page.fill("[data-testid=sweep-sets]", "l2.size_kib=30720,61440")
    page.fill("form.new-sweep input[name=name]", name)
    page.click("[data-testid=start-sweep]")
    expect(page.locator("[data-testid=new-sweep-msg]")).to_contain_text(f"started {name} ({points} points)")


def test_start_a_sweep_from_the_page_watch_it_grow_open_and_compare(page, server, shot):
    # relu_4M: each point runs ~3 s, several of the page's 1 s polls, so the half-done state is seen
    # even on a loaded machine (saxpy_1M's 0.6 s points could both finish between two polls)
    _start(page, server, "() => document.querySelectorAll('[data-testid=sweep-cases] option').length > 10",
           ["relu_4M"], "e2e sweep", 2)
    expect(page.locator("[data-testid=sweep-title]")).to_have_text("e2e sweep", timeout=10000)

    # live: the page shows the sweep running with only part of its points before it is done
    seen = set()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 240:
        status = page.locator("[data-testid=sweep-status]").inner_text()
        prog = page.locator("[data-testid=sweep-progress]").inner_text().split(" points")[0]
        seen.add((status, prog))
        if status == "done":
            break
        time.sleep(0.1)
    assert ("done", "2/2") in seen, seen
    assert ("running", "1/2") in seen, f"never saw a partly done sweep: {seen}"
    shot(page, "done")
    # the chart's legend keys its one line by workload, without uPlot's live readout (the table has the values)
    legend = page.locator("#sweep-chart .u-legend .u-series")
    expect(legend).to_have_count(1)
    expect(legend).to_have_text("relu_4M")
    assert page.locator("#sweep-chart .u-legend .u-value").count() == 0

    sweep_id = parse_qs(urlparse(page.url).query)["sweep"][0]
    sw = server.get(f"/api/sweeps/{sweep_id}")
    rows = page.locator("[data-testid=sweep-points] tbody tr")
    expect(rows).to_have_count(2)
    for i, p in enumerate(sw["points"]):
        run = server.get(f"/api/runs/{p['run_id']}")
        assert run["status"] == "done" and run["cycles"] == p["row"]["sim_cycles"]
        assert run["overrides"] == [f"l2.size_kib={p['values']['l2.size_kib']}"]
        assert rows.nth(i).locator("[data-testid=cycles]").inner_text() == f"{p['row']['sim_cycles']:,}"

    # the chart has both points; clicking the second opens its run in the explorer
    pos = page.evaluate("() => window.__sweeps.chart.positionOf(1)")
    assert pos is not None
    box = page.locator("#sweep-chart .u-over").bounding_box()
    page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
    page.wait_for_url(f"**/?run={sw['points'][1]['run_id']}*", timeout=10000)
    page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src", timeout=60000)

    # back on the sweep: tick two rows, compare them
    page.goto(f"{server.url}/sweeps?sweep={sweep_id}")
    expect(page.locator("[data-testid=sweep-points] tbody tr")).to_have_count(2)
    compare = page.locator("[data-testid=sweep-compare]")
    expect(compare).to_be_disabled()
    page.locator("input[data-pick='0']").check()
    page.locator("input[data-pick='1']").check()
    expect(compare).to_be_enabled()
    compare.click()
    page.wait_for_url("**/?run=*", timeout=10000)
    q = parse_qs(urlparse(page.url).query)
    assert q["run"] == [sw["points"][0]["run_id"]] and q["cmp"] == [sw["points"][1]["run_id"]]


def test_the_page_refuses_a_sweep_too_large_for_it(page, server):
    page.goto(server.url + "/sweeps")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=sweep-cases] option').length > 10")
    page.select_option("[data-testid=sweep-cases]", ["saxpy_1M", "vector_add_1M"])
    page.fill("[data-testid=sweep-sets]", "l2.size_kib=30720,61440,122880\ngpu.num_sms=22,33,66,99,132")
    page.click("[data-testid=start-sweep]")
    expect(page.locator("[data-testid=new-sweep-msg]")).to_contain_text(
        "30 points: the page starts sweeps of up to 24 points; run larger ones with `simtscope sweep`")


def test_a_model_bundle_swept_from_the_page_opens_on_the_workload_page(page, server, shot):
    opt = "[data-testid=sweep-cases] optgroup[data-kind=bundle] option"
    _start(page, server, f"() => document.querySelectorAll('{opt}').length >= 3", ["bundle:example_mlp_b64_fp32"],
           "e2e bundle sweep", 2)
    # (the view shows the new sweep before its status counts: the previous test's sweep is done already)
    expect(page.locator("[data-testid=sweep-title]")).to_have_text("e2e bundle sweep", timeout=10000)
    expect(page.locator("[data-testid=sweep-status]")).to_have_text("done", timeout=240000)
    shot(page, "bundle-done")
    sweep_id = parse_qs(urlparse(page.url).query)["sweep"][0]
    sw = server.get(f"/api/sweeps/{sweep_id}")
    assert [p["workload"] for p in sw["points"]] == ["bundle:example_mlp_b64_fp32"] * 2
    rows = page.locator("[data-testid=sweep-points] tbody tr")
    expect(rows).to_have_count(2)
    for i, p in enumerate(sw["points"]):
        # every launch of the bundle timed: the point's cycles are the sum of its launches' in the run store
        assert p["status"] == "done" and p["row"]["sim_cycles"] > 0
        assert rows.nth(i).locator("[data-testid=cycles]").inner_text() == f"{p['row']['sim_cycles']:,}"
        assert rows.nth(i).locator("td").nth(1).inner_text() == "example_mlp_b64_fp32"
    pos = page.evaluate("() => window.__sweeps.chart.positionOf(0)")
    box = page.locator("#sweep-chart .u-over").bounding_box()
    page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
    page.wait_for_url(f"**/workload?run={sw['points'][0]['run_id']}*", timeout=10000)
