"""Design-space sweeps: the cross product of configuration values over workloads, one Dask task per point.

    spec.py      the sweep: axes (--set lists), points, the content hash that makes a point resumable
    sources.py   workload sources (validation cases; bundles and traces when they land): one small
                 function each to describe a workload and one to run it on a worker
    point.py     what a Dask worker runs for one point: a timing run recorded at summary level into a
                 run file in the worker's scratch folder; its bytes and its results row come back
    index.py     the sweep index beside the run store (data/sweeps.sqlite): sweeps, their points, and
                 which run holds each point (the resume check)
    driver.py    runs a sweep on a LocalCluster (worker processes) or an existing scheduler
    results.py   the results table (CSV, Parquet with pyarrow) and the speed-up plots (PNG, SVG)
    command.py   `simtscope sweep` (its arguments and handler, registered by the top-level CLI)
    views.py     the explorer's sweep page and its JSON API

Layers: it imports the engine and the run store (webapp/store); the server imports it, never the engine.
"""
