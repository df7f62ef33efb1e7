"""Start-up cost, whole processes side by side: sitesift against trafilatura.

    python benchmarks/startup.py [--runs 10] [--page PAGE] [--json OUT.json]

Each case runs our command and the peer's in turn (A B A B ..., one warm-up run of each
first, not counted), every run a new process, so a machine whose speed drifts slows both
alike. For every run: wall seconds (from start to exit) and CPU seconds (user + system of
the finished child, from the operating system's accounting: `getrusage(RUSAGE_CHILDREN)`
before and after). Reported: min and median of each, the ratio of the medians, and the
median of the run-by-run ratios (ours / peer's, the figure to quote on a shared machine).

Cases:
  help         `sitesift --help`                  vs `trafilatura --help`
  clean        `sitesift clean PAGE` (the text on stdout; where this sitesift has no
               stdout output, `sitesift clean PAGE --out DIR`, a new DIR each run)
                                                  vs `trafilatura < PAGE` (its CLI reads one
               document from stdin; `-i` takes a list of URLs, not a page)
  import       `python -c "import sitesift"`      vs `python -c "import trafilatura"`
  lib-clean    `python -c "sitesift.clean(page bytes)"` vs `... trafilatura.extract(...)`
  python       `python -c pass`: the interpreter's own start, for scale (no peer)

PAGE defaults to the first page of the bundled sample site (12 kB). The commands come from
the directory of this Python (a venv's bin/) or else from PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "src" / "sitesift" / "data" / "sample_site" / "pages" / "hg-001.html"


@dataclass
class Command:
    label: str
    argv: list[str]
    stdin: Path | None = None
    fresh_out: bool = False  # append `--out <a new empty folder>` to argv on every run


@dataclass
class Case:
    name: str
    ours: Command
    peer: Command | None
    runs: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


def tool(name: str) -> str:
    """The console script `name` beside this Python (its venv), else on PATH."""
    here = Path(sys.executable).parent / name
    if here.is_file():
        return str(here)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found beside {sys.executable} nor on PATH")
    return found


def run_once(cmd: Command, scratch: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of `cmd` as a new process; a failed run stops the
    benchmark (a fast failure is not a fast start)."""
    argv = list(cmd.argv)
    if cmd.fresh_out:
        argv += ["--out", tempfile.mkdtemp(dir=scratch)]
    stdin = cmd.stdin.open("rb") if cmd.stdin is not None else subprocess.DEVNULL
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        if cmd.stdin is not None:
            stdin.close()  # type: ignore[union-attr]
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: "
                         f"{proc.stderr.decode(errors='replace')[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def sitesift_clean(sitesift: str, page: Path, scratch: Path) -> Command:
    """`sitesift clean PAGE` where it writes the text to stdout, else with `--out DIR`."""
    probe = subprocess.run([sitesift, "clean", str(page)], stdin=subprocess.DEVNULL,
                           capture_output=True, check=False)
    if probe.returncode == 0 and probe.stdout.strip():
        return Command(f"sitesift clean {page.name}", [sitesift, "clean", str(page)])
    return Command(f"sitesift clean {page.name} --out DIR",
                   [sitesift, "clean", str(page)], fresh_out=True)


def cases(page: Path, scratch: Path) -> list[Case]:
    sitesift, trafilatura, py = tool("sitesift"), tool("trafilatura"), sys.executable
    lib_ours = ("import sitesift, sys; "
                "sys.stdout.write(sitesift.clean(open(sys.argv[1], 'rb').read()).text)")
    lib_peer = ("import trafilatura, sys; "
                "sys.stdout.write(trafilatura.extract(open(sys.argv[1], 'rb').read()) or '')")
    return [
        Case("help", Command("sitesift --help", [sitesift, "--help"]),
             Command("trafilatura --help", [trafilatura, "--help"])),
        Case("clean", sitesift_clean(sitesift, page, scratch),
             Command(f"trafilatura < {page.name}", [trafilatura], stdin=page)),
        Case("import", Command("python -c 'import sitesift'", [py, "-c", "import sitesift"]),
             Command("python -c 'import trafilatura'", [py, "-c", "import trafilatura"])),
        Case("lib-clean", Command("python -c 'sitesift.clean(bytes)'",
                                  [py, "-c", lib_ours, str(page)]),
             Command("python -c 'trafilatura.extract(bytes)'",
                     [py, "-c", lib_peer, str(page)])),
        Case("python", Command("python -c pass", [py, "-c", "pass"]), None),
    ]


def measure(case: Case, runs: int, scratch: Path) -> None:
    commands = [("ours", case.ours)] + ([("peer", case.peer)] if case.peer else [])
    for _, cmd in commands:  # warm-up: caches, bytecode, the page in memory
        run_once(cmd, scratch)
    case.runs = {side: [] for side, _ in commands}
    for _ in range(runs):
        for side, cmd in commands:
            case.runs[side].append(run_once(cmd, scratch))


def summary(case: Case) -> dict[str, Any]:
    out: dict[str, Any] = {"case": case.name}
    for side, cmd in (("ours", case.ours), ("peer", case.peer)):
        if cmd is None:
            continue
        walls = [w for w, _ in case.runs[side]]
        cpus = [c for _, c in case.runs[side]]
        out[side] = {"command": cmd.label, "wall_min": min(walls),
                     "wall_median": statistics.median(walls), "cpu_min": min(cpus),
                     "cpu_median": statistics.median(cpus), "runs": len(walls)}
    if case.peer is not None:
        pairs = list(zip(case.runs["ours"], case.runs["peer"], strict=True))
        out["ratio"] = {
            "wall_of_medians": out["ours"]["wall_median"] / out["peer"]["wall_median"],
            "cpu_of_medians": out["ours"]["cpu_median"] / out["peer"]["cpu_median"],
            "wall_pairwise_median": statistics.median(a[0] / b[0] for a, b in pairs),
            "cpu_pairwise_median": statistics.median(a[1] / b[1] for a, b in pairs
                                                     if b[1] > 0),
        }
    return out


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| case | command | wall min | wall median | CPU min | CPU median | "
             "ours/peer wall (pairwise) | ours/peer CPU (pairwise) |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for side in ("ours", "peer"):
            if side not in row:
                continue
            s = row[side]
            ratio = row.get("ratio")
            wall_r = cpu_r = ""
            if ratio is not None and side == "ours":
                wall_r = f"{ratio['wall_of_medians']:.2f}x ({ratio['wall_pairwise_median']:.2f}x)"
                cpu_r = f"{ratio['cpu_of_medians']:.2f}x ({ratio['cpu_pairwise_median']:.2f}x)"
            lines.append(f"| {row['case'] if side == 'ours' else ''} | `{s['command']}` | "
                         f"{s['wall_min']:.3f} s | {s['wall_median']:.3f} s | "
                         f"{s['cpu_min']:.3f} s | {s['cpu_median']:.3f} s | {wall_r} | {cpu_r} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="counted runs of each command")
    ap.add_argument("--page", type=Path, default=PAGE, help="the page the clean cases read")
    ap.add_argument("--cases", nargs="+", default=None,
                    help="only these cases (help clean import lib-clean python)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# start-up, {args.runs} runs each after one warm-up; {os.cpu_count()} CPUs, load "
          f"average {load:.2f}; page {args.page} ({args.page.stat().st_size:,} bytes)",
          flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sitesift-startup-") as tmp:
        scratch = Path(tmp)
        for case in cases(args.page, scratch):
            if args.cases and case.name not in args.cases:
                continue
            measure(case, args.runs, scratch)
            rows.append(summary(case))
            print(f"  {case.name}: done", file=sys.stderr, flush=True)
    print(table(rows))
    if args.json is not None:
        args.json.write_text(json.dumps({"runs": args.runs, "load": load, "page": str(args.page),
                                         "cases": rows}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
