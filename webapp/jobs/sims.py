"""Simulator factories for the worker: `factory(job) -> object with run_case(case, sink=, progress=)`.

The default is the timing engine. Tests and UI development may name another factory in the app config
(SIM_FACTORY), e.g. the SYNTHETIC recorder in tests/fixtures."""
from __future__ import annotations


def timing_sim(job: dict):
    from engine.config import load_config
    from engine.timing import TimingSim
    cfg = load_config(job["config"], job.get("overrides") or [])
    kw = {"record": job["level"], "record_sms": job.get("record_sms")}
    if job.get("interval"):
        kw["interval"] = int(job["interval"])
    return TimingSim(cfg, **kw)


def timing_configs() -> list[str]:
    try:
        from engine.config import list_configs
    except ImportError:
        return []
    return list(list_configs())
