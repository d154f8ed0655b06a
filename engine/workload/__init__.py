"""Whole workloads: gpu-workload/1 bundles (a model's launches in order), read, written, simulated.

bundle.py opens and checks a bundle (no C engine needed), writer.py writes one, replay.py runs one on
the simulator, capture/ makes one from a torch.compile'd model on a machine with an NVIDIA GPU.
"""
from .bundle import FORMAT, Bundle, BundleError, Limits, open_bundle  # noqa: F401
