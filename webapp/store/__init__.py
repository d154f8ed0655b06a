"""The run store: one portable SQLite file per run (writer.py, reader.py) and a catalogue (catalogue.py).
layout.py describes what a run file holds; lod.py the level-of-detail arithmetic."""
from .reader import RunReader  # noqa: F401
from .writer import RunWriter  # noqa: F401
