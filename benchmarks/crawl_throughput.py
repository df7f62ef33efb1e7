"""End-to-end crawl throughput: local job with 1 and 2 workers, Spark with 1 and 2 cores.

    python benchmarks/crawl_throughput.py [--warcs DIR] [--datasets webkb swde-book ...]
                                          [--workers 1 2] [--spark-cores 1 2] [--no-spark]
                                          [--method default] [--fallback default]

Builds the WARCs with benchmarks/make_warc.py where missing (DIR, default
/tmp/sitesift-warc), then runs each configuration in a fresh process, timing the whole job:
reading the WARCs, grouping by site, fitting, cleaning and writing the results (Spark: from
a running session, and separately with the session start). Reported per configuration:
pages, seconds, pages/s, pages/s per core, the speed-up over one core, pages per CPU-second
(all the run's processes: a figure that other load on the machine does not dilute), and
peak memory: the largest resident set of the run's own process and of its workers
(ru_maxrss of waited-for children; for Spark, VmHWM of the living JVM and Python workers).
Targets: issue 10 (`--method sst --fallback alltext`): >= 100 pages/s per core, >= 1.7x
from 1 to 2 cores; issue 27 (`--method default`, the crawl's default): >= 150 pages/s per
core with 2 workers. Numbers from a
machine shared with other work are noisy: the load average before each run is shown.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT = ["webkb", "swde-book", "big9", "dragnet", "cleanportaleval"]


def _descendants() -> tuple[float, float]:
    """Peak RSS (MB, the largest) and CPU seconds (with their waited-for children) of this
    process's living descendants: the JVM and the Python workers of a local Spark."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    mine: set[int] = set()
    frontier = {os.getpid()}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - mine
        mine |= frontier
    peak = cpu = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in mine:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]) / 1024)
        cpu += sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    return peak, cpu


def one(engine: str, cores: int, warcs: list[str], out: str, method: str,
        fallback: str) -> dict[str, Any]:
    """Run one configuration in this process; its figures."""
    from sitesift.sitework import CrawlConfig

    cfg = CrawlConfig(method=method, fallback=fallback)  # the configuration measured
    started = time.perf_counter()
    session_s = 0.0
    living = (0.0, 0.0)
    if engine == "local":
        from sitesift.crawl import run_crawl
        from sitesift.jobs.run import RunSettings

        summary = run_crawl(warcs, out, cfg, run=RunSettings(cores))
    else:
        from sitesift.spark import local_session, run_spark

        spark = local_session(cores)
        session_s = time.perf_counter() - started
        try:
            summary = run_spark(spark, warcs, out, cfg, partitions=cores * 4)
            living = _descendants()  # the JVM and Python workers, before they stop
        finally:
            spark.stop()
    total = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + living[1]
    return {"engine": engine, "cores": cores, "pages": summary["pages"],
            "results": summary["results"], "errors": summary["errors"],
            "balanced": summary["balanced"], "seconds": total - session_s,
            "with_session": total, "cpu": cpu, "peak_mb_self": own.ru_maxrss / 1024,
            "peak_mb_children": max(kids.ru_maxrss / 1024, living[0])}


def run(engine: str, cores: int, warcs: list[str], work: Path, method: str,
        fallback: str) -> dict[str, Any]:
    out = work / f"{engine}-{cores}"
    shutil.rmtree(out, ignore_errors=True)
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, __file__, "--one", engine, str(cores), str(out), method, fallback,
         *warcs],
        capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{engine} x{cores} failed:\n{proc.stderr[-3000:]}")
    row: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    row["load"] = load
    return row


def table(rows: list[dict[str, Any]]) -> str:
    base = {r["engine"]: r["pages"] / r["seconds"] for r in rows if r["cores"] == 1}
    out = ["| engine | cores | pages | s | pages/s | pages/s/core | speed-up | pages per "
           "CPU-s | peak MB (main / largest child) | s incl. session | load before |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        pps = r["pages"] / r["seconds"]
        speed = f"{pps / base[r['engine']]:.2f}x" if r["engine"] in base else ""
        out.append(
            f"| {r['engine']} | {r['cores']} | {r['pages']} | {r['seconds']:.1f} | {pps:.1f} "
            f"| {pps / r['cores']:.1f} | {speed} | {r['pages'] / r['cpu']:.1f} | "
            f"{r['peak_mb_self']:.0f} / {r['peak_mb_children']:.0f} | "
            f"{r['with_session']:.1f} | {r['load']:.1f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--one"]:
        engine, cores, out, method, fallback, *warcs = argv[1:]
        print(json.dumps(one(engine, int(cores), warcs, out, method, fallback)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warcs", type=Path, default=Path("/tmp/sitesift-warc"))
    ap.add_argument("--datasets", nargs="+", default=DEFAULT)
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--spark-cores", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--out", type=Path, help="keep the outputs here (default: a temp dir)")
    ap.add_argument("--method", default="default", help="the crawl's --method (default: default)")
    ap.add_argument("--fallback", default=None,
                    help="the crawl's --fallback (default: the method where it cleans a page "
                         "without a fit, else alltext)")
    args = ap.parse_args(argv)
    missing = [d for d in args.datasets if not (args.warcs / f"{d}.warc.gz").is_file()]
    if missing:
        subprocess.run([sys.executable, str(HERE / "make_warc.py"), "--out", str(args.warcs),
                        "--datasets", *missing], check=True)
    warcs = [str(args.warcs / f"{d}.warc.gz") for d in args.datasets]
    work = args.out or Path(tempfile.mkdtemp(prefix="sitesift-throughput-"))
    rows = []
    plan = [("local", n) for n in args.workers]
    if not args.no_spark:
        plan += [("spark", n) for n in args.spark_cores]
    fallback = args.fallback or (args.method if args.method == "default" else "alltext")
    for engine, cores in plan:
        rows.append(run(engine, cores, warcs, work, args.method, fallback))
        print(f"{engine} x{cores}: {rows[-1]['pages'] / rows[-1]['seconds']:.1f} pages/s",
              file=sys.stderr)
    print(f"datasets: {', '.join(args.datasets)}; --method {args.method} --fallback "
          f"{fallback}; {os.cpu_count()} cores\n")
    print(table(rows))
    if args.out is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
