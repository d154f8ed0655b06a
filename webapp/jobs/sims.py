"""Simulator factories for the worker: `factory(job) -> object with run_case(case, sink=, progress=)`.

The default is the timing engine. Tests and UI development may name another factory in the app config
(SIM_FACTORY), e.g. the SYNTHETIC recorder in tests/fixtures."""
from __future__ import annotations


def timing_sim(job: dict):
    from engine.timing import TimingSim
    overrides = list(job.get("overrides") or [])
    if job.get("interval") and not any(o.startswith("record.interval_cycles=") for o in overrides):
        overrides.append(f"record.interval_cycles={int(job['interval'])}")
    return TimingSim(job["config"], overrides=overrides, record=job["level"], record_sms=job.get("record_sms"))


def check_timing(config: str, overrides: list[str]) -> None:
    """Raise ValueError (engine.config.ConfigError) naming the override and the valid values if the
    configuration the run asks for cannot be built; called when the run is submitted."""
    from engine.config import load_config
    load_config(config, list(overrides))


timing_sim.check = check_timing                # a factory may carry `check(config, overrides)`


def timing_configs() -> list[str]:
    from engine.config import list_configs
    return list(list_configs())
