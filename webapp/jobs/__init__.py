"""Simulations in worker processes: manager.py (queue, processes, post-mortem) and worker.py (the child)."""
