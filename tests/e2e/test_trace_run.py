"""A trace-driven run (an Accel-Sim trace recorded with full detail) opens in the explorer like a PTX run:
timeline, and the source tab showing the kernel's SASS with PCs."""
from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from engine.traces.run import run_trace
from tests.e2e.conftest import open_view
from webapp.store import RunReader
from webapp.store.writer import RunWriter

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "traces"


def test_trace_run_opens_in_the_explorer(page, server, tmp_path, shot):
    path = tmp_path / "matrixmul.simtrun"
    w = RunWriter(path)
    r = run_trace(FIX / "matrixmul-32-32", "gtx1080", sink=w, record="full")
    assert r.warp_insts == 4416
    rd = RunReader(path)
    kern = rd.rec["kernels"][0]
    assert kern["filename"] == "kernel-1.traceg.xz" and len(kern["pc_text"]) == 138
    with open(path, "rb") as f:
        resp = server.post("/api/runs/import", files={"run": f}, data={"name": "matrixmul trace"})
    assert resp.status_code == 201, resp.text
    run_id = resp.json()["id"]
    # the run list names the trace and its config (the recording's, as the run file holds no run info)
    page.goto(server.url + "/")
    row = page.locator("tr", has_text="matrixmul trace")
    expect(row).to_contain_text("trace:matrixmul-32-32")
    expect(row).to_contain_text("gtx1080")
    expect(row).to_contain_text("4,416")                 # its warp instructions, from the file's stats
    expect(row).not_to_contain_text("?")
    shot(page, "trace-run-list")
    open_view(page, server, run_id, sm=0, tab="ptx")
    # the source view lists the SASS by PC; the shared store of the inner loop is there with its PC
    sts = [i for i, t in enumerate(kern["pc_text"]) if t.startswith("STS")]
    line = kern["pc_line"][sts[0]]
    row = page.locator(f"table.ptx tr[data-line='{line}']")
    expect(row).to_contain_text("STS")
    expect(row).to_contain_text("/*0248*/")
    expect(page.locator("table.ptx")).to_contain_text("LDG.E")
    shot(page, "trace-run")


def test_upload_a_zipped_trace_directory_and_run_it(page, server, tmp_path, shot):
    import zipfile
    z = tmp_path / "vectoradd-trace.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted((FIX / "vectoradd-100-32").iterdir()):
            zf.write(p, "vectoradd-100-32-trace/" + p.name)
    page.goto(server.url + "/")
    # the calibrated preset by default (the form fills once the workload list has loaded: slow under load)
    expect(page.locator("[data-testid=config]")).to_have_value("h200", timeout=60000)
    page.set_input_files("[data-testid=upload-file]", str(z))
    page.fill("form:has([data-testid=upload-file]) input[name=name]", "vectoradd trace")
    page.click("[data-testid=upload-submit]")
    expect(page.locator("[data-testid=upload-msg]")).to_have_text("uploaded: vectoradd trace")
    opt = page.locator("[data-testid=workload] option", has_text="vectoradd trace")
    expect(opt).to_have_count(1, timeout=30000)          # the form reloads its list after the upload
    page.select_option("[data-testid=workload]", label=opt.inner_text())
    # a Pascal trace (binary version 61) starts on the GTX 1080 preset
    expect(page.locator("[data-testid=config]")).to_have_value("gtx1080")
    page.fill("form:has([data-testid=start-run]) input[name=name]", "vectoradd trace run")
    page.click("[data-testid=start-run]")
    row = page.locator("tr", has_text="vectoradd trace run")
    expect(row.locator("[data-testid=status]")).to_have_text("done", timeout=120000)
    bad = tmp_path / "bad-trace.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("kernelslist.g", "kernel-1.traceg\n")
        zf.writestr("kernel-1.traceg", "-accelsim tracer version = 2\n")
    page.set_input_files("[data-testid=upload-file]", str(bad))
    page.click("[data-testid=upload-submit]")
    expect(page.locator("[data-testid=upload-msg]")).to_have_text(
        "kernel-1.traceg:1: unsupported accelsim tracer version 2 (supported: 3, 4, 5)")
    expect(page.locator("[data-testid=upload-msg]")).to_have_class("form-msg error")
    shot(page, "trace-upload")
