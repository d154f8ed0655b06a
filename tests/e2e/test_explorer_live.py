"""A run opened while it is queued or simulating grows live in the main view and ends as a finished run."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from webapp.store import runfile


def test_a_running_run_opens_at_once_and_grows_live(page, server, shot):
    # relu_16M: long enough (~90,000 cycles) that the checks below see it still simulating; relu_4M's ~23,600
    # cycles could finish between them once the engine got faster
    r = server.post("/api/runs", json={"workload": "case:relu_16M", "config": "h200", "record_sms": "0-3",
                                       "name": "live relu"})
    assert r.status_code == 201, r.text
    run_id = r.json()["id"]
    page.goto(f"{server.url}/?run={run_id}")                 # at once: queued or just starting
    page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src", timeout=60000)
    expect(page.locator("[data-testid=view-error]")).to_have_text("")
    # while it simulates: the view follows the growing end (never stuck at 1 cycle) and no a/b in the URL
    page.wait_for_function("""() => { const s = window.__simtscope.state.get(), l = window.__simtscope.live;
        return l.isLive && s.b > 2000 && s.a === 0; }""", timeout=120000)
    seen = page.evaluate("() => window.__simtscope.state.get().b")
    expect(page.locator("[data-testid=live]")).to_contain_text("simulating")
    expect(page.locator("[data-testid=run-title]")).to_contain_text("running")
    expect(page.locator("[data-testid=summary-pending]")).to_contain_text(re.compile(r"Simulating: cycle [1-9][\d,]*, \d+/65536 CTAs"))
    page.wait_for_timeout(400)
    assert not re.search(r"[?&]b=", page.url), page.url
    shot(page, "live-running")
    page.wait_for_function("([b]) => window.__simtscope.state.get().b > b", arg=[seen], timeout=120000)
    # finished: header, summary and the window show the whole run
    expect(page.locator("[data-testid=run-title]")).to_contain_text("done", timeout=180000)
    end = runfile.read_meta(server.data_dir / "runs" / f"{run_id}.simtrun", "end_cycle")
    page.wait_for_function("([e]) => window.__simtscope.state.get().b === e", arg=[end], timeout=30000)
    expect(page.locator("[data-testid=live]")).to_have_text("")
    expect(page.locator("[data-testid=summary] tr[data-metric=cycles] td.num")).to_have_text(f"{end:,}")
    page.wait_for_timeout(400)
    expect(page).to_have_url(re.compile(f"b={end}(&|$)"))
    shot(page, "live-done")
