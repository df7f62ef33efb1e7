"""`sitesift bench` and the CI evaluation gate: sitesift's methods beside the peers.

peers.py (one adapter per peer), py312.py + rs_worker.py (rs-trafilatura under CPython 3.12),
runner.py (run and score), report.py (summary.md), plots.py (PNG), gate.py (the CI gate).
"""
