"""End-to-end fixtures: Debian's Chromium through pytest-playwright, and `simtscope serve` as a real
process with the real timing engine on a temporary run store. Never `playwright install`."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.fixtures.servers import ServerProcess, wait_done

CHROMIUM = os.environ.get("SIMTSCOPE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(os.environ.get("SIMTSCOPE_SHOTS", "")) if os.environ.get("SIMTSCOPE_SHOTS") else None


def pytest_configure(config):
    # pytest-playwright's own session fixture `base_url` triggers this pytest deprecation (not our code)
    config.addinivalue_line("filterwarnings", "ignore:Session-scoped fixtures defined as instance methods:DeprecationWarning")
    config.addinivalue_line("filterwarnings", "ignore::pytest.PytestRemovedIn10Warning")


def pytest_collection_modifyitems(config, items):
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        skip = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} (scripts/setup.sh --test installs it)")
        for it in items:
            if "e2e" in str(it.fspath):
                it.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}, "accept_downloads": True}


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    s = ServerProcess(tmp_path_factory.mktemp("e2e") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="session")
def softmax_run(server):
    """A real timing run with full recording, shared by the view tests."""
    r = server.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": "h200", "level": "full",
                                       "name": "softmax e2e"})
    assert r.status_code == 201, r.text
    run = wait_done(server.get, r.json()["id"], timeout=300)
    assert run["status"] == "done", run
    return run


@pytest.fixture
def shot(request, tmp_path):
    """shot(page, name): a full-page screenshot, kept in SIMTSCOPE_SHOTS if set (for looking at them)."""
    def take(page, name: str):
        folder = SHOTS or tmp_path
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{request.node.name}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path
    return take


def fmt_us(us: float) -> str:
    """A time as the explorer writes it (static/js/lib/run-metrics.js fmtUs). JavaScript's toPrecision keeps trailing
    zeros (3.740 µs), where Python's `.4g` drops them; values below 10^4 of their unit, as JavaScript writes those
    without an exponent."""
    def to_precision(v: float, p: int) -> str:
        e = int(f"{v:.{p - 1}e}".split("e")[1])
        return f"{v:.{max(0, p - 1 - e)}f}"
    if us >= 1000:
        return f"{to_precision(us / 1000, 4)} ms"
    if us >= 1:
        return f"{to_precision(us, 4)} µs"
    return f"{to_precision(us * 1000, 3)} ns"


def wait_settled(page, condition: str = "true", arg=None, timeout: float = 60000) -> None:
    """Wait until the timeline's canvas shows its latest data for the current view with no window being
    fetched (Timeline.settled()), and `condition` (a JS expression over tl = the timeline, a = arg) holds.
    What a test then reads in one evaluate is one consistent frame: no sleeping for a frame to be drawn."""
    page.wait_for_function(f"(a) => {{ const tl = window.__simtscope && window.__simtscope.timeline;"
                           f" return !!(tl && tl.src && tl.settled() && ({condition})); }}", arg=arg, timeout=timeout)


def upload_bundle(server, path) -> str:
    """Upload a bundle archive through the API; its workload id."""
    with open(path, "rb") as f:
        up = server.post("/api/bundles", files={"bundle": (Path(path).name, f)})
    assert up.status_code == 201, up.text
    return up.json()["workloads"][0]["id"]


def open_view(page, server, run_id: str, **params) -> None:
    """Open a run's view with URL state and wait until the window data is drawn. If it is not within the time
    limit, the failure says what the page had (its timeline source, its console, a screenshot) instead of only
    Playwright's timeout: a once-seen timeout under load (session 15) left nothing to go on."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    q = "&".join(f"{k}={v}" for k, v in {"run": run_id, **params}.items())
    logs: list[str] = []
    page.on("console", lambda m: logs.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: logs.append(f"pageerror: {e}"))
    page.goto(f"{server.url}/?{q}")
    try:
        page.wait_for_function("() => window.__simtscope && window.__simtscope.timeline.src"
                               " && window.__simtscope.timeline.src.groups.ctr !== undefined", timeout=60000)
    except PlaywrightTimeout:
        had = page.evaluate("() => { const s = window.__simtscope; if (!s) return 'no window.__simtscope';"
                            " const src = s.timeline && s.timeline.src;"
                            " return JSON.stringify({src: !!src, groups: src && src.groups ? Object.keys(src.groups) : null,"
                            " state: s.state ? s.state.get() : null}); }")
        shot = server.data_dir.parent / f"open_view-timeout-{run_id}.png"
        page.screenshot(path=str(shot), full_page=True)
        raise AssertionError(f"the view of run {run_id} showed no window data within 60 s; the page had {had}; "
                             f"its last console lines: {logs[-20:]}; screenshot: {shot}") from None


def pytest_addoption(parser):
    parser.addoption("--repeat", type=int, default=1,
                     help="run each selected e2e test N times (to show a once-flaky test is stable under load)")


def pytest_generate_tests(metafunc):
    n = metafunc.config.getoption("--repeat", 1)
    if n > 1:
        metafunc.fixturenames.append("repeat_index")
        metafunc.parametrize("repeat_index", range(n), ids=lambda i: f"r{i}")
