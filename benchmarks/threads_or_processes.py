"""Workers as processes or as threads of one process: the same pages, the same work, CPU and
memory of each (issue 53, deliverable 2).

    python benchmarks/threads_or_processes.py DATASET... [--workers 2] [--rounds 3]
                                              [--out FILE.json]

Every page call of the core runs without the GIL (`native/src/py/mod.rs: detached`), so the
default cleaner's pages could be cleaned on threads of one process: one interpreter and one
model in memory, nothing pickled between processes. This measures that against worker
processes (spawned, as the crawl's are) on the same work: each site group of the datasets
(grouped by site, as `clean DIR` groups them) is one task: its pages read from their files,
the default cleaner fitted on them (two pages or more) and each page cleaned and finished as
`clean --format json` writes it (`sitesift.output.finish`, `render_result`); a task returns
its JSON bodies. `--workers` threads (a `ThreadPoolExecutor` in one process) against as
many processes (a `ProcessPoolExecutor`, spawn), the two alternated `--rounds` times, each
run in a fresh interpreter measured from outside (wall seconds; CPU seconds of the whole
process tree, `RUSAGE_CHILDREN` of a wrapper; the peak resident set of its largest process).
Both must write the same bodies (a digest of them is compared).

What it leaves out on purpose: the crawl's guards. A worker process can be killed when a
page outlives its time limit or its memory cap; a thread inside a native call cannot be
stopped, and one process has one memory limit for all its pages (docs/crawl.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

_WRAPPER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": proc.returncode, "wall": wall, "cpu": r.ru_utime + r.ru_stime,
                  "peak_mb": r.ru_maxrss / 1024, "out": proc.stdout.strip()[-200:],
                  "err": proc.stderr[-2000:]}))
"""
MODES = ("threads", "processes")


def site_groups(roots: list[str]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(dataset folder, index rows) of each site group, as `clean DIR` groups them."""
    from sitesift.evaluate import dataset_groups
    from sitesift.jobs.grouping import Grouping

    groups = []
    for root in roots:
        for members in dataset_groups(Path(root), Grouping(by="site")).values():
            groups.append((root, [m.row for m in members]))
    return groups


def clean_group(task: tuple[str, list[dict[str, Any]]]) -> list[str]:
    """One site group cleaned as `clean --format json` writes it: its pages' bodies."""
    from sitesift.datasets import load_page
    from sitesift.methods.base import get_cleaner
    from sitesift.output import Output, finish, render_result

    root, rows = task
    pages = [load_page(Path(root), row) for row in rows]
    cleaner = get_cleaner("default")
    if len(pages) > 1:
        cleaner.fit(pages)
    output = Output()
    return [render_result(finish(cleaner.clean(page), page, output), "json") for page in pages]


def run(mode: str, roots: list[str], workers: int) -> None:
    """The work in this process: threads, or a pool of spawned processes. Prints the pages
    and a digest of every body in group order."""
    from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
    from multiprocessing import get_context

    groups = site_groups(roots)
    pool: Executor = (ThreadPoolExecutor(workers) if mode == "threads"
                      else ProcessPoolExecutor(workers, mp_context=get_context("spawn")))
    digest, pages = hashlib.blake2b(digest_size=8), 0
    with pool:
        for bodies in pool.map(clean_group, groups):
            for body in bodies:
                digest.update(body.encode("utf-8"))
            pages += len(bodies)
    print(json.dumps({"pages": pages, "digest": digest.hexdigest()}))


def measure(mode: str, roots: list[str], workers: int) -> dict[str, Any]:
    argv = [sys.executable, __file__, *roots, "--workers", str(workers), "--run", mode]
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True,
                          text=True, check=True)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if got["rc"] != 0:
        raise SystemExit(f"{mode} failed:\n{got['err']}")
    inner = json.loads(got["out"].splitlines()[-1])
    pages = inner["pages"]
    return {"mode": mode, "pages": pages, "digest": inner["digest"],
            "wall_s": round(got["wall"], 2), "cpu_s": round(got["cpu"], 2),
            "cpu_ms_per_page": round(1000 * got["cpu"] / max(pages, 1), 2),
            "peak_mb": round(got["peak_mb"]), "load": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--run", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if args.run:
        run(args.run, args.datasets, args.workers)
        return 0
    rows = []
    for r in range(args.rounds):
        for mode in (MODES if r % 2 == 0 else MODES[::-1]):  # alternated: the load hits both
            rows.append(measure(mode, args.datasets, args.workers))
            print(json.dumps(rows[-1]), flush=True)
    digests = {row["digest"] for row in rows}
    print(f"\n{args.workers} workers, {rows[0]['pages']} pages, {args.rounds} rounds; "
          f"outputs {'identical' if len(digests) == 1 else 'DIFFER: ' + str(digests)}\n")
    print("| workers as | wall s (median) | CPU ms a page (median, runs) "
          "| peak MB (largest process) |")
    print("|---|---|---|---|")
    for mode in MODES:
        mine = [row for row in rows if row["mode"] == mode]
        print(f"| {mode} | {statistics.median(r['wall_s'] for r in mine):.2f} | "
              f"{statistics.median(r['cpu_ms_per_page'] for r in mine):.2f} "
              f"({', '.join(str(r['cpu_ms_per_page']) for r in mine)}) | "
              f"{max(r['peak_mb'] for r in mine)} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
