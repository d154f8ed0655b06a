"""The web explorer: a Flask app factory with blueprints (REST under /api) and Flask-SocketIO streams.

    app = create_app()                 # or create_app({"DATA_DIR": ..., "TESTING": True})
    socketio.run(app)                  # webapp/serve.py does this for `simtscope serve`

Feature modules: api/ (REST), stream.py (socket events), views.py (the page), jobs/ (worker processes),
store/ (run files and catalogue), frames.py + wire.py (what the socket sends).
"""
from __future__ import annotations

__all__ = ["create_app", "socketio"]


def __getattr__(name: str):
    """Flask and Flask-SocketIO load on first use of the app (PEP 562), not with every webapp module: the
    command line's `run`, the sweep's Dask workers and the job workers import webapp.store, webapp.sweep
    and webapp.jobs without paying ~1.5 s for the web stack."""
    if name in __all__:
        from . import factory
        return getattr(factory, name)
    raise AttributeError(f"module 'webapp' has no attribute {name!r}")
