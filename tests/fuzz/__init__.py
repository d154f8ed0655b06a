"""Fuzzing of simtscope's front ends (see tests/fuzz/README.md and docs/reliability.md)."""
