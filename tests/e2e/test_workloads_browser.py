"""A whole-model workload in Chromium against `simtscope serve` with the real timing engine: started from the
new-run form with a launch selection, its launch timeline (spans, labels, order) and layer table (rows,
sorting) checked against the server's launch table, a launch clicked open in the per-cycle view, two runs
compared (speed-up per launch), and a bad bundle upload refused in the page."""
from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import upload_bundle
from tests.fixtures.servers import wait_done

MLP = "bundle:example_mlp_b64_fp32"
CNN = "bundle:example_cnn_b4_32x32_fp16"


@pytest.fixture(scope="module")
def cnn_runs(server):
    """The CNN example twice: on the H200 (launches 0 and 2 in full) and with half the L2 and a quarter of
    the DRAM bandwidth (summary only)."""
    a = server.post("/api/runs", json={"workload": CNN, "config": "h200", "launches": "0,2", "name": "cnn h200"})
    b = server.post("/api/runs", json={"workload": CNN, "config": "h200", "launches": "none", "name": "cnn slow mem",
                                       "overrides": ["l2.size_kib=30720", "dram.bandwidth_gbps=1200"]})
    assert a.status_code == 201 and b.status_code == 201, (a.text, b.text)
    ra = wait_done(server.get, a.json()["id"], timeout=300)
    rb = wait_done(server.get, b.json()["id"], timeout=300)
    assert ra["status"] == "done" and rb["status"] == "done", (ra, rb)
    return ra, rb


def table_rows(page) -> list[dict]:
    return page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid=layer-table] tbody tr[data-index]'))
        .map((tr) => ({index: Number(tr.dataset.index), cells: Array.from(tr.cells).map((c) => c.textContent.trim())}))""")


def header_index(page, text: str) -> int:
    heads = page.evaluate("() => Array.from(document.querySelectorAll('[data-testid=layer-table] thead th'))"
                          ".map((th) => th.textContent.replace(/[▲▼]/g, '').trim())")
    return heads.index(text)


def test_start_a_workload_run_from_the_form(page, server, shot):
    page.goto(server.url + "/")
    page.select_option("[data-testid=workload]", "case:softmax_4096x128")
    expect(page.locator("[data-testid=launches]")).to_be_hidden()          # a single kernel has no launches
    page.select_option("[data-testid=workload]", MLP)
    page.select_option("[data-testid=config]", "h200")
    expect(page.locator("[data-testid=launches]")).to_be_visible()
    page.fill("[data-testid=launches]", "1")
    page.fill("form.new-run input[name=name]", "mlp from the form")
    page.click("[data-testid=start-run]")
    expect(page.locator("[data-testid=new-run-msg]")).to_contain_text("started mlp from the form")
    row = page.locator("tr", has_text="mlp from the form")
    expect(row.locator("[data-testid=status]")).to_have_text("done", timeout=300000)
    shot(page, "run-list")
    row.locator("[data-testid=open-workload]").click()
    expect(page.locator("[data-testid=wl-title]")).to_have_text("mlp from the form")
    rows = table_rows(page)
    assert [r["index"] for r in rows] == [0, 1, 2]
    opens = [r["cells"][-1] for r in rows]
    assert opens == ["summary only", "per-cycle view", "summary only"]


def test_workload_page_draws_the_launches_and_the_table(page, server, cnn_runs, shot):
    a, _b = cnn_runs
    data = server.get(f"/api/workload-runs/{a['id']}")["workload"]["launches"]
    page.goto(f"{server.url}/workload?run={a['id']}")
    expect(page.locator("[data-testid=wl-status]")).to_have_text("done")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    shot(page, "workload")
    # the timeline: one simulated span per launch, in launch order, end to end, widths in proportion to cycles;
    # then the H200 lane with the bundle's measured cycles
    spans = page.evaluate("""() => window.__simtscopeWorkload.timeline.spans.map((s) => ({lane: s.lane.kind,
        index: s.row.index, start: s.start, len: s.len, xa: s.xa, xb: s.xb}))""")
    sim = [s for s in spans if s["lane"] == "sim"]
    hw = [s for s in spans if s["lane"] == "hw"]
    assert [s["index"] for s in sim] == [r["index"] for r in data] == list(range(6))
    assert [s["len"] for s in sim] == [r["sim_cycles"] for r in data]
    assert [s["len"] for s in hw] == [r["hw_cycles"] for r in data]
    starts = [0]
    for r in data[:-1]:
        starts.append(starts[-1] + r["sim_cycles"])
    assert [s["start"] for s in sim] == starts                # the examples carry no measured gaps: end to end
    expect(page.locator("#wl-axis-note")).to_contain_text("gaps not measured: launches end to end")
    px_per_cycle = (sim[-1]["xb"] - sim[0]["xa"]) / sum(r["sim_cycles"] for r in data)
    for s in sim:
        assert s["xb"] - s["xa"] == pytest.approx(s["len"] * px_per_cycle, abs=0.01)
    # the table: a row per launch with its label, cycles, H200 cycles and error as the server has them
    rows = table_rows(page)
    assert [r["index"] for r in rows] == list(range(6))
    i_cyc, i_hw, i_err = header_index(page, "sim cycles"), header_index(page, "H200 cycles"), header_index(page, "error")
    i_bound = header_index(page, "bound by")
    for r, d in zip(rows, data):
        assert r["cells"][i_cyc] == f"{d['sim_cycles']:,}"
        assert r["cells"][i_hw] == f"{int(d['hw_cycles'] + 0.5):,}"
        e = 100 * d["err"]
        assert r["cells"][i_err] == f"{'+' if e >= 0 else '−'}{abs(e):.1f}%"
        assert r["cells"][i_bound] == d["bound"]
    expect(page.locator("[data-testid=layer-table] tbody tr[data-index='0']")).to_contain_text("tem convolution")
    # sorting: by simulated cycles, largest first; again: smallest first
    page.click("[data-testid=layer-table] th[data-key=sim_cycles]")
    by_time = sorted(data, key=lambda r: (-r["sim_cycles"], r["index"]))
    assert [r["index"] for r in table_rows(page)] == [r["index"] for r in by_time]
    page.click("[data-testid=layer-table] th[data-key=sim_cycles]")
    assert [r["index"] for r in table_rows(page)] == [r["index"] for r in reversed(by_time)]
    assert "sort=sim_cycles" in page.url and "dir=asc" in page.url
    page.click("[data-testid=layer-table] th[data-key=err]")
    assert [r["index"] for r in table_rows(page)] == [r["index"] for r in sorted(data, key=lambda r: (-r["err"], r["index"]))]
    shot(page, "sorted-by-error")
    # the run simulates the H200 the bundle was measured on, unchanged: the gap is the model's error
    expect(page.locator("[data-testid=wl-gap]")).to_contain_text("error ")
    expect(page.locator("[data-testid=wl-not-error]")).to_have_count(0)


def test_a_changed_gpu_is_compared_as_a_difference(page, server, cnn_runs, shot):
    """Run B halves the L2 and quarters the DRAM bandwidth: its gap to the H200's measurement is a what-if,
    so the page calls it a difference and says why, in the facts, the table and the chart's title."""
    _a, b = cnn_runs
    wl = server.get(f"/api/workload-runs/{b['id']}")["workload"]
    assert wl["measured"] == {"device": "NVIDIA H200", "sim_gpu": "NVIDIA H200", "comparable": False,
                              "why": "l2.size_kib=30720, dram.bandwidth_gbps=1200 change the simulated NVIDIA H200"}
    page.goto(f"{server.url}/workload?run={b['id']}")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    expect(page.locator("[data-testid=wl-not-error]")).to_have_text(
        "Not the model's error: l2.size_kib=30720, dram.bandwidth_gbps=1200 change the simulated NVIDIA H200.")
    expect(page.locator("[data-testid=wl-gap]")).to_contain_text("difference ")
    i_gap = header_index(page, "difference")
    rows = table_rows(page)
    assert [r["cells"][i_gap] for r in rows] == \
        [f"{'+' if d['err'] >= 0 else '−'}{abs(100 * d['err']):.1f}%" for d in wl["launches"]]
    expect(page.locator("#wl-chart-title")).to_have_text("Time per launch: simulated vs H200")
    shot(page, "what-if")


def test_the_launch_timeline_zooms_and_pans(page, server, cnn_runs, shot):
    """The wheel zooms around the pointer (the cycle under it stays put), dragging pans by the distance dragged
    and opens nothing, the whole-run button shows every launch again."""
    a, _b = cnn_runs
    page.goto(f"{server.url}/workload?run={a['id']}")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    tl = "window.__simtscopeWorkload.timeline"
    total = page.evaluate(f"() => {tl}.total")
    expect(page.locator("[data-testid=wl-whole]")).to_be_hidden()
    box = page.locator("#wl-timeline canvas").bounding_box()
    x0, plot_w = page.evaluate(f"() => [{tl}.x0, {tl}.plotW]")
    px = box["x"] + x0 + 0.4 * plot_w
    page.mouse.move(px, box["y"] + 40)
    under = 0.4 * total
    for _ in range(4):
        page.mouse.wheel(0, -250)
    page.wait_for_function(f"() => !{tl}.view.full")
    v = page.evaluate(f"() => {tl}.view")
    assert v["b"] - v["a"] < 0.5 * total
    # the cycle under the pointer stays under it (within a pixel of the whole view: the pointer sits on whole pixels)
    assert v["a"] + 0.4 * (v["b"] - v["a"]) == pytest.approx(under, abs=total / plot_w)
    expect(page.locator("[data-testid=wl-whole]")).to_be_visible()
    per_px = (v["b"] - v["a"]) / plot_w
    # a drag of 100 px to the left shows 100 px worth of later cycles, and opens no launch
    page.mouse.move(px, box["y"] + 40)
    page.mouse.down()
    page.mouse.move(px - 100, box["y"] + 40, steps=5)
    page.mouse.up()
    w = page.evaluate(f"() => {tl}.view")
    assert w["a"] - v["a"] == pytest.approx(100 * per_px, rel=0.02) and w["b"] - w["a"] == pytest.approx(v["b"] - v["a"])
    assert "/workload?" in page.url
    # every span drawn lies (at least partly) in the view, at the zoomed scale
    spans = page.evaluate(f"() => {tl}.spans.filter((s) => !s.gap).map((s) => [s.xa, s.xb, s.len])")
    assert spans and all(xb >= x0 and xa <= x0 + plot_w for xa, xb, _ in spans)
    for xa, xb, n in spans:
        assert xb - xa == pytest.approx(n / per_px, rel=1e-6)
    shot(page, "timeline-zoomed")
    page.click("[data-testid=wl-whole]")
    assert page.evaluate(f"() => {tl}.view") == {"a": 0, "b": total, "full": True}
    expect(page.locator("[data-testid=wl-whole]")).to_be_hidden()


def test_clicking_a_launch_opens_its_per_cycle_view(page, server, cnn_runs, shot):
    a, _b = cnn_runs
    page.goto(f"{server.url}/workload?run={a['id']}")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    # a launch without a recorded timeline says so
    page.locator("[data-testid=layer-table] tbody tr[data-index='1'] td").first.click()
    expect(page.locator("#wl-notes")).to_contain_text("launch 1 was simulated for its summary only")
    # launch 2's span on the timeline opens the single-kernel explorer on its child run
    span = page.evaluate("""() => { const s = window.__simtscopeWorkload.timeline.spans.find((s) => s.lane.kind === 'sim' && s.row.index === 2);
        const b = window.__simtscopeWorkload.timeline.canvas.getBoundingClientRect();
        return {x: b.left + (s.xa + s.xb) / 2, y: b.top + s.y + s.h / 2}; }""")
    page.mouse.click(span["x"], span["y"])
    page.wait_for_url(f"**/?run={a['id']}-L2**")
    page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src"
                           " && window.__simtscope.timeline.src.groups.heat", timeout=60000)
    meta = page.evaluate("() => window.__simtscope.timeline.src.meta")
    assert meta["kernels"][0]["name"].startswith("triton_tem_fused__native_batch_norm")
    assert meta["workload"]["launch"] == 2 and meta["run"]["parent"] == a["id"]
    expect(page.locator("[data-testid=run-title]")).to_contain_text("launch 2")
    shot(page, "launch-2-per-cycle")
    page.click("[data-testid=back-workload]")
    expect(page.locator("[data-testid=wl-title]")).to_have_text("cnn h200")


def test_compare_two_workload_runs(page, server, cnn_runs, shot):
    a, b = cnn_runs
    cmp = server.get(f"/api/workload-runs/compare?a={a['id']}&b={b['id']}")
    page.goto(f"{server.url}/workload?run={a['id']}")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    page.select_option("[data-testid=wl-compare]", b["id"])
    expect(page.locator("[data-testid=wl-speedup]")).to_contain_text(f"{cmp['total']['speedup']:.3f}×")
    assert f"cmp={b['id']}" in page.url
    i_sp = header_index(page, "speed-up")
    rows = table_rows(page)
    assert [r["cells"][i_sp] for r in rows] == [f"{c['speedup']:.3f}×" for c in cmp["launches"]]
    lanes = page.evaluate("() => [...new Set(window.__simtscopeWorkload.timeline.spans.map((s) => s.lane.name))]")
    assert lanes == ["simulated · h200", "H200 measured", "B · h200 l2.size_kib=30720 dram.bandwidth_gbps=1200"]
    page.click("[data-testid=layer-table] th[data-key=speedup]")
    assert [r["index"] for r in table_rows(page)] == \
        [c["index"] for c in sorted(cmp["launches"], key=lambda c: (-c["speedup"], c["index"]))]
    shot(page, "compare")


def test_a_bad_bundle_upload_is_refused_in_the_page(page, server, tmp_path, shot):
    from tests.test_workload import saxpy_bundle
    folder = saxpy_bundle().save(tmp_path / "saxpy_twice")
    m = json.loads((folder / "manifest.json").read_text())
    m["launches"][0]["args"][2]["offset"] = 99999
    (folder / "manifest.json").write_text(json.dumps(m))
    bad = tmp_path / "bad.tar.xz"
    with tarfile.open(bad, "w:xz") as t:
        t.add(folder, arcname="saxpy_twice")
    page.goto(server.url + "/")
    lim = server.get("/api/bundles/limits")
    expect(page.locator("[data-testid=bundle-limits]")).to_contain_text(
        f"limits: {lim['max_upload_bytes'] / 2**20:g} MiB per archive, {lim['max_unpacked_bytes'] / 2**20:g} MiB unpacked")
    page.set_input_files("[data-testid=bundle-file]", str(bad))
    page.click("[data-testid=bundle-submit]")
    expect(page.locator("[data-testid=bundle-msg]")).to_have_text(
        "bad.tar.xz: launches[0].args[2].offset: offset 99999 is outside buffer x (16384 bytes)")
    good = tmp_path / "good.zip"
    saxpy_bundle().save(good)
    page.set_input_files("[data-testid=bundle-file]", str(good))
    page.click("[data-testid=bundle-submit]")
    expect(page.locator("[data-testid=bundle-msg]")).to_contain_text("uploaded saxpy_twice: 2 launches")
    # the form reloads its list after the upload (asynchronously): wait for the new option
    expect(page.locator("[data-testid=workload] option").filter(has_text="saxpy_twice (uploaded) · 2 launches")) \
        .to_have_count(1)
    shot(page, "upload")


def test_a_zoo_model_by_layer(page, server, shot):
    """LeNet-5 from the zoo (labels from the capture's module paths, several launches per layer): the layer
    view sums each layer's launches, and its rows sort by their summed cycles."""
    r = server.post("/api/runs", json={"workload": "bundle:lenet5_b64_fp32", "config": "h200", "launches": "0,3",
                                       "name": "lenet"})
    assert r.status_code == 201, r.text
    run = wait_done(server.get, r.json()["id"], timeout=600)
    assert run["status"] == "done", run
    data = server.get(f"/api/workload-runs/{run['id']}")["workload"]["launches"]
    page.goto(f"{server.url}/workload?run={run['id']}")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    assert len(table_rows(page)) == len(data) == 9
    page.check("[data-testid=group-layer]")
    assert "group=layer" in page.url
    labels = list(dict.fromkeys(r["label"] for r in data))
    rows = table_rows(page)
    i_label, i_cyc, i_hw = header_index(page, "layer / op"), header_index(page, "sim cycles"), header_index(page, "H200 cycles")
    assert [r["cells"][i_label].split(" ")[0] for r in rows] == labels
    for r, lab in zip(rows, labels):
        ms = [d for d in data if d["label"] == lab]
        assert r["cells"][i_cyc] == f"{sum(d['sim_cycles'] for d in ms):,}"
        assert r["cells"][i_hw] == f"{int(sum(d['hw_cycles'] for d in ms) + 0.5):,}"
        if len(ms) > 1:
            assert f"{len(ms)} launches" in r["cells"][i_label]
    page.click("[data-testid=layer-table] th[data-key=sim_cycles]")
    tot = {lab: sum(d["sim_cycles"] for d in data if d["label"] == lab) for lab in labels}
    assert [r["cells"][i_label].split(" ")[0] for r in table_rows(page)] == sorted(labels, key=lambda k: -tot[k])
    shot(page, "lenet-layers")


def opaque_gap_bundle(path: Path) -> Path:
    """Four saxpy launches with an opaque (extern, no PTX) GEMM in the middle, and measured idle gaps before
    launches 1 and 4 (hardware gap_ns, as capture/measure.py writes them)."""
    import numpy as np
    from engine.workload.writer import BundleWriter
    from tests.test_workload import SAXPY_PTX
    n, a = 4096, 0.5
    x, y = np.linspace(-1, 1, n, dtype=np.float32), np.ones(n, np.float32)
    w = BundleWriter("saxpy_opaque_gaps", description="saxpy x4 around an extern GEMM, with measured gaps")
    w.buffer("x", data=x.tobytes(), role="input")
    w.buffer("y", data=y.tobytes(), role="output")
    p = w.ptx("saxpy", SAXPY_PTX)
    args = [w.value(n, "s32"), w.value(a, "f32"), w.ptr("x"), w.ptr("y")]
    for i in range(4):
        if i == 2:
            w.launch("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_cublas", None, grid=(66,), block=(384,),
                     shared_bytes=0, args=[], name="sm90_xmma_gemm_f16f16_cublas", op="mm", module="fc1", opaque=True,
                     measured={"ns": 3030.3, "cycles": 6000, "clock_mhz": 1980.0, "tool": "test"})
        w.launch("saxpy", p, grid=(n // 256,), block=(256,), shared_bytes=0, args=args, name=f"step{i}", op="saxpy")
    w.output("y", "f32", (n,), (y + 4 * a * x).astype(np.float32).tobytes(), tol=1e-6)
    w.hardware({"device": "NVIDIA H200", "gaps_tool": "test"},
               [{"cycles": [4000], "gap_ns": 0.0}, {"cycles": [4100], "gap_ns": 1500.0}, {"opaque": True},
                {"cycles": [4000]}, {"cycles": [3900], "gap_ns": 800.0}])
    return w.save(path)


def test_opaque_launches_and_measured_gaps_on_the_workload_page(page, server, tmp_path, shot):
    wid = upload_bundle(server, opaque_gap_bundle(tmp_path / "saxpy_opaque_gaps.zip"))
    r = server.post("/api/runs", json={"workload": wid, "config": "h200", "name": "opaque and gaps"})
    assert r.status_code == 201, r.text
    run = wait_done(server.get, r.json()["id"], timeout=300)
    assert run["status"] == "done" and not run["message"], run
    wl = server.get(f"/api/workload-runs/{run['id']}")["workload"]
    data, clock = wl["launches"], wl["clock_mhz"]
    assert [d.get("opaque", False) for d in data] == [False, False, True, False, False] and clock == 1980
    assert wl["summary"]["opaque_cycles"] == 6000 and wl["summary"]["gaps_ns"] == 2300
    page.goto(f"{server.url}/workload?run={run['id']}")
    expect(page.locator("[data-testid=wl-status]")).to_have_text("done")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    # the head counts the opaque launch's measured time in the totals
    expect(page.locator("[data-testid=wl-opaque]")).to_have_text(
        "1 opaque launch (no PTX, not simulated): 6,000 measured cycles counted in the totals")
    expect(page.locator("#wl-axis-note")).to_contain_text("idle gaps between them as measured on the GPU")
    expect(page.locator("#wl-axis-note")).to_contain_text("hatched: opaque launches")
    spans = page.evaluate("""() => window.__simtscopeWorkload.timeline.spans.map((s) => ({lane: s.lane.kind,
        index: s.row.index, start: s.start, len: s.len, xa: s.xa, xb: s.xb, gap: !!s.gap, opaque: !!s.opaque}))""")
    for lane, key in (("sim", "sim_cycles"), ("hw", "hw_cycles")):
        ss = [s for s in spans if s["lane"] == lane]
        # each lane: gap before 1 and 4 (ns at the run's clock), the launches in order; the opaque GEMM hatched
        # with its measured cycles in the simulated lane too
        assert [(s["index"], s["gap"]) for s in ss] == [(0, False), (1, True), (1, False), (2, False), (3, False),
                                                         (4, True), (4, False)]
        want, c = [], 0.0
        for d in data:
            g = (d.get("gap_ns") or 0) * clock / 1000
            if g:
                want.append((c, g))
                c += g
            v = d[key] or d["hw_cycles"]
            want.append((c, v))
            c += v
        assert [(s["start"], s["len"]) for s in ss] == [pytest.approx(w) for w in want]
        assert [s["opaque"] for s in ss if not s["gap"]] == [False, False, lane == "sim", False, False]
    gap = next(s for s in spans if s["gap"] and s["index"] == 1)
    assert gap["xb"] - gap["xa"] > 20                      # visible at this width
    # the table marks the opaque launch: no simulated cycles, its measured time, a note, no timeline
    rows = table_rows(page)
    i_cyc, i_hw = header_index(page, "sim cycles"), header_index(page, "H200 cycles")
    assert [r["cells"][i_cyc] for r in rows] == [f"{d['sim_cycles']:,}" if d["sim_cycles"] else "opaque" for d in data]
    assert rows[2]["cells"][i_hw] == "6,000" and rows[2]["cells"][-1] == "not simulated"
    expect(page.locator("[data-testid=layer-table] tr.err-row")).to_have_text(
        "opaque launch (no PTX: sm90_xmma_gemm_f16f16_cublas): not simulated, its measured time counts in the totals; "
        "measured 3.03 µs = 6,000 cycles at 1980 MHz")
    # hovering the gap says what it is
    tl = page.evaluate("() => { const b = window.__simtscopeWorkload.timeline.canvas.getBoundingClientRect(); return [b.left, b.top]; }")
    g = next(s for s in page.evaluate("() => window.__simtscopeWorkload.timeline.spans.map((s) => ({gap: !!s.gap, "
                                      "index: s.row.index, xa: s.xa, xb: s.xb, y: s.y, h: s.h}))") if s["gap"] and s["index"] == 1)
    page.mouse.move(tl[0] + (g["xa"] + g["xb"]) / 2, tl[1] + g["y"] + g["h"] / 2)
    expect(page.locator("#wl-timeline .tooltip")).to_contain_text("idle gap before launch #1")
    expect(page.locator("#wl-timeline .tooltip")).to_contain_text("1.50 µs = 2,970 cycles at 1980 MHz")
    shot(page, "opaque-and-gaps")
    # compared with the same bundle on slower DRAM: the opaque launch keeps its measured time on both sides
    r = server.post("/api/runs", json={"workload": wid, "config": "h200", "name": "opaque slow dram", "launches": "none",
                                       "overrides": ["dram.bandwidth_gbps=1200"]})
    assert r.status_code == 201, r.text
    assert wait_done(server.get, r.json()["id"], timeout=300)["status"] == "done"
    page.reload()
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    page.select_option("[data-testid=wl-compare]", r.json()["id"])
    expect(page.locator("[data-testid=wl-speedup]")).to_be_visible()
    i_sp = header_index(page, "speed-up")
    assert table_rows(page)[2]["cells"][i_sp] == "opaque"
    b = page.evaluate("""() => window.__simtscopeWorkload.timeline.spans.filter((s) => s.lane.key === 'b_cycles' && !s.gap)
        .map((s) => ({index: s.row.index, len: s.len, opaque: !!s.opaque}))""")
    assert [(x["index"], x["opaque"]) for x in b] == [(0, False), (1, False), (2, True), (3, False), (4, False)]
    assert b[2]["len"] == 6000
    shot(page, "opaque-compare")
