"""Markup in anything a user or a bundle can name is shown as text, never run: a bundle whose description,
launch names, ops, modules, measured device and tool, and a run whose name, are HTML that would run script if a
page inserted it unescaped. Every page that shows them (the run list, the workload page with its table, chart,
timeline tooltip and not-an-error note, a launch's per-cycle view with its summary and measured card) is
opened, and the script must not have run."""
from __future__ import annotations

import numpy as np
from playwright.sync_api import expect

from tests.e2e.conftest import upload_bundle
from tests.fixtures.servers import wait_done

# each payload bumps window.__xss if it ever becomes markup
IMG = '<img src=x onerror="window.__xss=(window.__xss||0)+1">'
SVG = '<svg onload="window.__xss=(window.__xss||0)+1"></svg>'


def hostile_bundle(path):
    from engine.workload.writer import BundleWriter
    from tests.test_workload import SAXPY_PTX
    n, a = 4096, 0.5
    x, y = np.linspace(-1, 1, n, dtype=np.float32), np.ones(n, np.float32)
    w = BundleWriter("saxpy_hostile", description=f"desc {IMG}")
    w.buffer("x", data=x.tobytes(), role="input")
    w.buffer("y", data=y.tobytes(), role="output")
    p = w.ptx("saxpy", SAXPY_PTX)
    for i in range(2):
        w.launch("saxpy", p, grid=(n // 256,), block=(256,), shared_bytes=0,
                 args=[w.value(n, "s32"), w.value(a, "f32"), w.ptr("x"), w.ptr("y")],
                 name=f"step{i} {IMG}", op=f"op {SVG}", module=f"mod{i}.{IMG}")
    w.output("y", "f32", (n,), (y + 2 * a * x).astype(np.float32).tobytes(), tol=1e-6)
    w.hardware({"device": f"GPU {IMG}", "tool": f"tool {SVG}"}, [{"cycles": [5000]}, {"cycles": [4900]}])
    return w.save(path)


def no_script_ran(page):
    page.wait_for_timeout(300)                       # (an image's onerror fires after its failed load)
    assert page.evaluate("() => window.__xss") is None


def test_markup_in_names_is_text_on_every_page(page, server, tmp_path, shot):
    wid = upload_bundle(server, hostile_bundle(tmp_path / "saxpy_hostile.zip"))
    r = server.post("/api/runs", json={"workload": wid, "config": "h200", "launches": "0", "name": f"run {IMG}"})
    assert r.status_code == 201, r.text
    run = wait_done(server.get, r.json()["id"], timeout=300)
    assert run["status"] == "done", run
    # the run list (and the new-run form's workload list, which names the bundle and its device)
    page.goto(server.url + "/")
    expect(page.locator(f"text=run {IMG}").first).to_be_visible()
    no_script_ran(page)
    # the workload page: title, facts, the not-an-error note naming the device, table, chart legend
    page.goto(f"{server.url}/workload?run={run['id']}")
    page.wait_for_function("() => window.__simtscopeWorkload.timeline.spans.length > 0")
    expect(page.locator("[data-testid=wl-title]")).to_have_text(f"run {IMG}")
    expect(page.locator("[data-testid=wl-not-error]")).to_contain_text(f"measured on GPU {IMG}")
    expect(page.locator("[data-testid=layer-table]")).to_contain_text(f"op {SVG}")
    expect(page.locator(".wl-chart-legend")).to_contain_text(f"GPU {IMG} measured")
    # the timeline's tooltip (the launch's label, its module path, and the device)
    span = page.evaluate("""() => { const t = window.__simtscopeWorkload.timeline, s = t.spans.find((s) => !s.gap);
        const b = t.canvas.getBoundingClientRect(); return {x: b.left + (s.xa + s.xb) / 2, y: b.top + s.y + s.h / 2}; }""")
    page.mouse.move(span["x"], span["y"])
    expect(page.locator("#wl-timeline .tooltip")).to_contain_text(f"#0 mod0.{IMG}")
    expect(page.locator("#wl-timeline .tooltip")).to_contain_text(f"vs GPU {IMG} 5,000")
    no_script_ran(page)
    shot(page, "hostile-workload")
    # the launch's per-cycle view: its title, the summary and the measured card (device, tool)
    page.goto(f"{server.url}/?run={run['id']}-L0&tab=summary")
    card = page.locator("[data-testid=measured-card]")
    expect(card.locator("h4")).to_contain_text(f"Measured on GPU {IMG}")
    expect(card.locator("h4")).to_contain_text(f"tool {SVG}")
    no_script_ran(page)
    shot(page, "hostile-summary")


def test_markup_in_uploaded_ptx_and_in_an_upload_error_is_text(page, server, tmp_path, shot):
    """An uploaded PTX whose comments hold markup, named with markup: its PTX source view shows the comment as
    text. An upload the server refuses because of a kernel name with markup: the form's message shows it as
    text."""
    import json
    from tests.e2e.conftest import open_view
    from tests.test_server_uploads import CASE, PTX
    at = PTX.index("ret;", PTX.index(".entry saxpy"))          # a comment before the saxpy kernel's ret
    ptx = PTX[:at] + f"// {IMG}\n\t" + PTX[at:]
    up = server.post("/api/uploads", files={"ptx": ("vec.ptx", ptx.encode())},
                     data={"launch": json.dumps(CASE), "name": f"mine {SVG}"})
    assert up.status_code == 201, up.text
    wid = up.json()["workloads"][0]["id"]
    r = server.post("/api/runs", json={"workload": wid, "config": "h200", "name": f"ptx {SVG}"})
    run = wait_done(server.get, r.json()["id"], timeout=300)
    assert run["status"] == "done", run
    open_view(page, server, run["id"], tab="ptx")
    expect(page.locator("[data-testid=run-title]")).to_contain_text(f"ptx {SVG}")
    expect(page.get_by_text(f"// {IMG}")).to_be_visible()
    no_script_ran(page)
    shot(page, "hostile-ptx")
    # the refusal of an upload names the kernel it did not find, as text
    page.goto(server.url + "/")
    (tmp_path / "v.ptx").write_text(PTX)
    page.set_input_files("[data-testid=upload-file]", str(tmp_path / "v.ptx"))
    page.fill("[data-testid=upload-launch]", json.dumps({**CASE, "kernel": f"k{IMG}"}))
    page.click("[data-testid=upload-submit]")
    expect(page.locator("[data-testid=upload-msg]")).to_contain_text(f"no kernel 'k{IMG}'")
    no_script_ran(page)
