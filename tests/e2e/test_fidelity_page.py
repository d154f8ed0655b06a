"""The fidelity page in Chromium: its summary, tables and scatter show what GET /api/fidelity answers, and
the softmax case's row holds the run's own gap to the H200's measurement (read back from the results file);
the scatter exports as a standalone SVG and a PNG at 2x; a point opens its run."""
from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]


def test_the_fidelity_page_draws_the_preset_against_the_hardware(page, server, softmax_run, tmp_path, shot):
    d = server.get("/api/fidelity")
    page.goto(server.url + "/")
    page.click("[data-testid=nav-fidelity]")
    expect(page.locator("[data-testid=fd-cases-summary]")).to_contain_text(
        f"validation cases: {d['summary']['cases']['compared']} of 39 simulated")
    # the softmax row: this run's cycles, the H200's, and the gap between them
    hw = json.loads((ROOT / "validation" / "h200_results.json").read_text())["cases"]["softmax_4096x128"]["ncu"]
    sim, meas = softmax_run["stats"]["gpu_sim_cycle"], hw["gpc__cycles_elapsed.max"]
    e = 100 * (sim - meas) / meas
    row = page.locator("[data-testid=fd-cases] tr[data-workload='case:softmax_4096x128'] td")
    expect(row).to_have_text(["softmax_4096x128", f"{sim:,}", f"{meas:,}", f"{'+' if e >= 0 else '−'}{abs(e):.1f}%"])
    # one point per row with a run, each a link to it; rows without one can be simulated from the page
    done = [r for r in d["cases"] + d["bundles"] if r["run"]]
    expect(page.locator("[data-testid=fd-point]")).to_have_count(len(done))
    missing = sum(1 for r in d["cases"] if not r["run"] and not r["live"])
    expect(page.locator("[data-testid=fd-simulate-cases]")).to_have_text(f"simulate the {missing} without a run")
    # the suite's stall mix, as the API gives it
    stalls = page.locator("[data-testid=fd-stalls] tbody tr")
    expect(stalls).to_have_count(len(d["stalls"]))
    expect(stalls.locator("td:nth-child(1)")).to_have_text([x["reason"] for x in d["stalls"]])
    shot(page, "fidelity")
    # the scatter as a figure: a standalone SVG (no links, styles as attributes, the key with each set's error)
    with page.expect_download() as dl:
        page.click("[data-testid=fd-export-svg]")
    assert dl.value.suggested_filename == "simtscope-fidelity-h200.svg"
    svg = tmp_path / "f.svg"
    dl.value.save_as(svg)
    import xml.etree.ElementTree as ET
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and root.get("width") == "460" and root.get("class") == "fd-scatter"
    assert not root.findall(f".//{ns}a") and not root.findall(f".//{ns}title")
    cases = [r for r in d["cases"] if r["run"]]
    assert len(root.findall(f".//{ns}circle")) == len(cases) + 1          # the points and the key's mark
    assert all(c.get("fill") == "#0072b2" for c in root.findall(f".//{ns}circle"))
    text = "".join(root.itertext())
    assert f"validation cases ({len(cases)}): mean |error| {100 * d['summary']['cases']['mae']:.1f}%" in text
    with page.expect_download() as dl:
        page.click("[data-testid=fd-export-png]")
    png = (tmp_path / "f.png")
    dl.value.save_as(png)
    import struct
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (920, 840)
    page.locator("[data-testid=fd-point]").first.click()
    page.wait_for_url("**/?run=*")
