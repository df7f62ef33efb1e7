"""Push the adversarial set (benchmarks/adversarial.py) through every batch path and every
non-browser cleaner, and print the table of issue 12.

    python benchmarks/adversarial_run.py SET --out RUN [--workers 2] [--page-timeout 10]
        [--command-timeout 5400] [--methods all] [--chaos ../shared/datasets/chaos]
        [--no-spark] [--pytest]

Batch paths, each a `sitesift` command run as a subprocess (logs in RUN/logs/):

- `sitesift clean SET/pages --method M` for every method M that needs no browser;
- `sitesift evaluate SET/dataset --method M ...` (every such method in one command);
- `sitesift fit SET/pages/<category> --method sst` for every page category;
- `sitesift crawl` (local) on every WARC, JSONL and the page folder at once;
- `sitesift crawl --engine spark` on the same inputs (unless --no-spark);
- with --chaos, the real messy pages of that corpus through clean, evaluate and both crawls.

Every command gets the per-page guards (`--page-timeout`, default memory limit) and an
outer time limit (`--command-timeout`). Counted per category, summed over paths and methods:

- inputs tried: pages given to a command (for a crawl: records read from its inputs);
- crashes: a command that ended with a traceback or an exit code other than 0 or 1 (1: some
  inputs gave error records), an error record
  of an unexpected kind ("internal error"), an input with no record or with two;
- hangs: inputs left without a record because a command ran past the outer time limit;
- error records, results, skipped (a crawl's non-page records, counted by reason);
- guard stops: error records written by a time or memory guard.

With --pytest, the html5lib, hypothesis and model-fuzz tests run too, and their example
counts (hypothesis statistics) join the table.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
GUARD = re.compile(r"time limit|memory|worker died|did not answer|abandoned after|"
                   r"parser gave up")
COLUMNS = ("inputs", "crashes", "hangs", "errors", "results", "skipped", "guard")


@dataclass(slots=True)
class Command:
    name: str
    argv: list[str]
    rc: int | None = None
    seconds: float = 0.0
    cpu: float = 0.0
    timed_out: bool = False
    traceback: bool = False
    stderr_tail: str = ""


@dataclass(slots=True)
class Tally:
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, **kw: int) -> None:
        self.counts.update(kw)


class Report:
    """Counts by (category, path)."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.notes: list[str] = []

    def add(self, category: str, path: str, **counts: int) -> None:
        self.cells[(category, path)].update(counts)

    def by(self, index: int) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = defaultdict(Counter)
        for key, counts in self.cells.items():
            out[key[index]].update(counts)
        return dict(out)


REUSE = [False]  # --reuse: a command whose logs/<name>.json exists is not run again


def run(cmd: Command, logs: Path, timeout: float) -> Command:
    """Run one sitesift command with an outer time limit; its output goes to logs/, and
    what became of it (exit code, times) to logs/<name>.json."""
    logs.mkdir(parents=True, exist_ok=True)
    done = logs / f"{cmd.name}.json"
    if REUSE[0] and done.is_file():
        saved = json.loads(done.read_text("utf-8"))
        if saved["argv"] == cmd.argv:
            for key in ("rc", "seconds", "cpu", "timed_out", "traceback", "stderr_tail"):
                setattr(cmd, key, saved[key])
            print(f"[reused] {' '.join(cmd.argv)}: rc={cmd.rc}", flush=True)
            return cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    print(f"[{time.strftime('%H:%M:%S')}] {' '.join(cmd.argv)}", flush=True)
    with open(logs / f"{cmd.name}.out", "w") as out, open(logs / f"{cmd.name}.err", "w") as err:
        argv = list(cmd.argv)
        beside = Path(sys.executable).with_name("sitesift")  # the `sitesift` of this venv
        if argv[0] == "sitesift" and beside.is_file():
            argv[0] = str(beside)
        proc = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True)
        try:
            cmd.rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            cmd.timed_out = True
            import os
            import signal

            os.killpg(proc.pid, signal.SIGKILL)  # the command and its workers: its own group
            cmd.rc = proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd.seconds = time.perf_counter() - start
    cmd.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = (logs / f"{cmd.name}.err").read_text("utf-8", "replace")
    cmd.traceback = "Traceback (most recent call last)" in text
    cmd.stderr_tail = text[-2000:]
    done.write_text(json.dumps({key: getattr(cmd, key) for key in (
        "argv", "rc", "seconds", "cpu", "timed_out", "traceback", "stderr_tail")}) + "\n")
    print(f"    rc={cmd.rc} {cmd.seconds:.0f} s wall, {cmd.cpu:.0f} s CPU"
          + (" TIMED OUT" if cmd.timed_out else "") + (" TRACEBACK" if cmd.traceback else ""),
          flush=True)
    return cmd


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _crashed(cmd: Command, expected: tuple[int, ...] = (0, 1)) -> bool:
    # exit 1: some inputs gave error records (the commands' documented status since issue 28)
    return cmd.traceback or (not cmd.timed_out and cmd.rc not in expected)


def _tally_records(report: Report, path: str, cmd: Command, inputs: dict[str, int],
                   outcomes: dict[str, list[tuple[str, str | None]]],
                   skipped: dict[str, int] | None = None) -> None:
    """Per category: `inputs` expected, `outcomes` (key, error or None) seen."""
    for category, n in inputs.items():
        seen = outcomes.get(category, [])
        keys = Counter(k for k, _ in seen)
        dupes = sum(c - 1 for c in keys.values() if c > 1)
        errors = [e for _, e in seen if e is not None]
        internal = sum(1 for e in errors if "internal error" in e)
        skip = (skipped or {}).get(category, 0)
        missing = max(0, n - len(keys) - skip)
        report.add(category, path, inputs=n, errors=len(errors), results=len(seen) - len(errors),
                   skipped=skip, guard=sum(1 for e in errors if GUARD.search(e)),
                   crashes=internal + dupes + (0 if cmd.timed_out else missing),
                   hangs=missing if cmd.timed_out else 0)
    if _crashed(cmd):  # the command itself failed (a traceback, an exit code)
        report.add("(a whole command)", path, crashes=1)


# -- the set's layout ------------------------------------------------------------------------

def category_of(where: str, root: Path) -> str:
    """The category of a page id (`cat--name`), a page file or a crawl input."""
    if "--" in Path(where).name and not where.endswith((".gz", ".jsonl", ".warc")):
        return Path(where).name.split("--", 1)[0]
    try:
        parts = Path(where).resolve().relative_to(root.resolve()).parts
    except ValueError:
        return "chaos"
    if parts[0] == "pages":
        return parts[1]
    if parts[0] == "warc":
        return "truncated-warc" if parts[1] == "truncated" else parts[1].split(".warc")[0]
    name = parts[1].split(".jsonl")[0]
    return "bad-jsonl" if name.startswith("bad-jsonl") else name


def page_counts(root: Path) -> dict[str, int]:
    return {d.name: sum(1 for _ in d.glob("*.html")) for d in sorted((root / "pages").iterdir())
            if d.is_dir()}


def crawl_inputs(root: Path) -> list[str]:
    warcs = [*sorted((root / "warc").glob("*.warc*")),
             *sorted((root / "warc" / "truncated").glob("*"))]
    return [str(p.resolve()) for p in [*warcs, *sorted((root / "jsonl").glob("*.jsonl*")),
                                       root / "pages"]]


# -- the paths --------------------------------------------------------------------------------

def do_clean(report: Report, root: Path, out: Path, methods: list[str], common: list[str],
             timeout: float, source: Path, label: str) -> list[Command]:
    cmds = []
    for method in methods:
        target = out / f"clean-{label}-{method}"
        cmd = run(Command(f"clean-{label}-{method}", [
            "sitesift", "clean", str(source), "--method", method, "--out", str(target),
            "--quiet", *common]), out / "logs", timeout)
        cmds.append(cmd)
        outcomes: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        for err in _lines(target / "errors.jsonl"):
            outcomes[category_of(str(err["id"]), root) if label == "set" else "chaos"].append(
                (str(err["id"]), str(err["reason"])))
        for file in target.glob("*.txt"):
            pid = file.name.removesuffix(".txt")
            outcomes[category_of(pid, root) if label == "set" else "chaos"].append((pid, None))
        inputs = page_counts(root) if label == "set" else {"chaos": _index_rows(source)}
        _tally_records(report, f"clean {method}" if label == "set" else "clean", cmd, inputs,
                       outcomes)
    return cmds


def _index_rows(dataset: Path) -> int:
    return sum(1 for line in (dataset / "index.jsonl").read_text("utf-8").splitlines()
               if line.strip())


def do_evaluate(report: Report, root: Path, out: Path, methods: list[str], common: list[str],
                timeout: float, dataset: Path, label: str) -> Command:
    target = out / f"evaluate-{label}"
    argv = ["sitesift", "evaluate", str(dataset), "--out", str(target), "--quiet", *common]
    for method in methods:
        argv += ["--method", method]
    cmd = run(Command(f"evaluate-{label}", argv), out / "logs", timeout)
    rows = _lines(target / "pages.jsonl")
    for method in methods:
        outcomes: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        for row in rows:
            if row["method"] == method:
                cat = category_of(row["id"], root) if label == "set" else "chaos"
                outcomes[cat].append((row["id"], row["error"]))
        inputs = page_counts(root) if label == "set" else {"chaos": _index_rows(dataset)}
        _tally_records(report, "evaluate", cmd, inputs, outcomes)
    return cmd


def do_fit(report: Report, root: Path, out: Path, common: list[str], timeout: float
           ) -> list[Command]:
    cmds = []
    pattern = re.compile(r"(\d+) inputs = (\d+) pages fitted on \+ (\d+) errors")
    for category, n in page_counts(root).items():
        cmd = run(Command(f"fit-{category}", [
            "sitesift", "fit", str(root / "pages" / category), "--method", "sst", "--out",
            str(out / "fit" / f"{category}.sst.json"), *common]), out / "logs", timeout)
        cmds.append(cmd)
        log = out / "logs" / f"fit-{category}.err"
        text = log.read_text("utf-8", "replace") if log.is_file() else cmd.stderr_tail
        m = pattern.search(text)
        skipped = re.findall(r"sitesift fit: skipped \S+: (.*)", text)
        fitted, errors = (int(m[2]), int(m[3])) if m else (0, 0)
        guard = sum(1 for s in skipped if GUARD.search(s))
        failed = re.search(r"sitesift fit: no model: (.*)", text)
        if failed:  # no model: the pages it was to be fitted on end in that error
            guard += fitted if GUARD.search(failed[1]) else 0
            fitted, errors = 0, errors + fitted
        report.add(category, "fit sst", inputs=n, results=fitted, errors=errors, guard=guard,
                   crashes=n - fitted - errors if not cmd.timed_out else 0,
                   hangs=n - fitted - errors if cmd.timed_out else 0)
        if (_crashed(cmd, (0, 1, 2)) or m is None or int(m[1]) != n
                or (failed and "internal error" in failed[1])):
            report.add("(a whole command)", "fit sst", crashes=1)
    return cmds


def _crawl_reports(local: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text("utf-8"))
            for p in sorted((local / "work" / "ingest").glob("[0-9]*.json"))]


def do_crawl(report: Report, root: Path, out: Path, inputs: list[str], common: list[str],
             timeout: float, engine: str, label: str,
             reference: list[dict[str, Any]] | None) -> Command:
    target = out / f"crawl-{engine}-{label}"
    argv = ["sitesift", "crawl", *inputs, "--out", str(target), "--quiet", *common]
    argv += ["--engine", "spark"] if engine == "spark" else ["--keep-work"]
    cmd = run(Command(f"crawl-{engine}-{label}", argv), out / "logs", timeout)
    if engine == "spark":
        import pyarrow.parquet as pq

        def table(kind: str) -> list[dict[str, Any]]:
            folder = target / kind
            return pq.read_table(folder).to_pylist() if folder.is_dir() else []

        results, errors = table("results"), table("errors")
    else:
        results, errors = _lines(target / "results.jsonl"), _lines(target / "errors.jsonl")
    ingest = reference if reference is not None else _crawl_reports(target)
    records: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for rep in ingest:
        if label == "set" and Path(rep["input"]).resolve() == (root / "pages").resolve():
            continue  # the page folder: counted per category from its files below
        cat = category_of(rep["input"], root) if label == "set" else "chaos"
        records[cat] += rep["records_in"]
        skipped[cat] += sum(rep["skipped"].values())
    if label == "set" and str((root / "pages").resolve()) in inputs:
        records.update(page_counts(root))
    outcomes: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for rec in results:
        cat = category_of(str(rec["input"]), root) if label == "set" else "chaos"
        outcomes[cat].append((f"{rec['input']}#{rec['position']}", None))
    for rec in errors:
        cat = category_of(str(rec["input"]), root) if label == "set" else "chaos"
        outcomes[cat].append((f"{rec['input']}#{rec['position']}", str(rec["reason"])))
    _tally_records(report, f"crawl {engine}", cmd, dict(records), outcomes, dict(skipped))
    summary = target / "summary.json"
    if summary.is_file():
        s = json.loads(summary.read_text("utf-8"))
        report.notes.append(f"crawl {engine} ({label}): {s['records_in']} records in = "
                            f"{s['results']} results + {s['errors']} errors + {s['skipped']} "
                            f"skipped; balanced: {s['balanced']}")
    return cmd


def do_pytest(report: Report, out: Path, timeout: float) -> Command:
    tests = ["tests/test_html5lib_corpus.py", "tests/test_properties.py",
             "tests/test_hostile_properties.py", "tests/test_model_fuzz.py",
             "tests/test_decode.py::test_html5lib_encoding_agreement"]
    cmd = run(Command("pytest", [sys.executable, "-m", "pytest", *tests, "-q", "-s",
                                 "-p", "no:cacheprovider", "--hypothesis-show-statistics"]),
              out / "logs", timeout)
    text = (out / "logs" / "pytest.out").read_text("utf-8", "replace")
    failed = re.search(r"(\d+) failed", text)
    # hypothesis statistics: a "tests/...::name[param]:" line, then its phases, e.g.
    # "- 30 passing, 0 failing, and 2 invalid test cases"
    for test, block in re.findall(r"^(tests/\S+::\S+):\n(.*?)(?=^tests/|^=|\Z)", text,
                                  re.S | re.M):
        passing = sum(int(n) for n in re.findall(r"(\d+) passing", block))
        failing = sum(int(n) for n in re.findall(r"(\d+) failing", block))
        name = test.split("::")[1].split("[")[0]
        report.add(f"hypothesis: {name}", "pytest", inputs=passing + failing, crashes=failing,
                   results=passing)
    if m := re.search(r"html5lib encoding agreement: (\d+)/(\d+)", text):
        report.notes.append(f"html5lib encoding agreement: {m[1]}/{m[2]} = "
                            f"{int(m[1]) / int(m[2]):.3f} (tests/test_decode.py)")
    report.notes.append(f"pytest {' '.join(tests)}: rc={cmd.rc}, "
                        f"{failed[1] if failed else 0} failed")
    return cmd


# -- the table --------------------------------------------------------------------------------

def table(rows: dict[str, Counter[str]], first: str) -> str:
    head = f"| {first} | inputs tried | crashes | hangs | error records | results | skipped " \
           "| guard stops |"
    lines = [head, "|" + "---|" * 8]
    total: Counter[str] = Counter()
    for name, c in rows.items():
        total.update(c)
        lines.append(f"| {name} | " + " | ".join(f"{c[k]:,}" for k in COLUMNS) + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[k]:,}**" for k in COLUMNS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", type=Path, help="a folder written by benchmarks/adversarial.py")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--page-timeout", type=float, default=10.0)
    ap.add_argument("--command-timeout", type=float, default=5400.0)
    ap.add_argument("--methods", default="all", help="comma-separated, or all (no browser)")
    ap.add_argument("--chaos", type=Path, help="a real messy corpus, e.g. "
                                               "../shared/datasets/chaos")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--pytest", action="store_true")
    ap.add_argument("--only", default="clean,evaluate,fit,crawl,spark",
                    help="which paths (comma-separated)")
    ap.add_argument("--evaluate-methods", help="comma-separated methods for evaluate "
                    "(default: those of --methods)")
    ap.add_argument("--reuse", action="store_true",
                    help="count a command already run into --out (same arguments) again "
                         "instead of running it: a run resumed after an interruption")
    args = ap.parse_args(argv)
    REUSE[0] = args.reuse
    from sitesift.methods.base import get_cleaner, method_names

    methods = ([m for m in method_names() if not get_cleaner(m).needs_browser]
               if args.methods == "all" else args.methods.split(","))
    root, out = args.set.resolve(), args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    common = ["--workers", str(args.workers), "--page-timeout", str(args.page_timeout)]
    only = set(args.only.split(","))
    report = Report()
    commands: list[Command] = []
    inputs = crawl_inputs(root)
    t = args.command_timeout
    if "clean" in only:
        commands += do_clean(report, root, out, methods, common, t, root / "pages", "set")
    eval_methods = args.evaluate_methods.split(",") if args.evaluate_methods else methods
    if "evaluate" in only:
        commands.append(do_evaluate(report, root, out, eval_methods, common, t,
                                    root / "dataset", "set"))
    if "fit" in only:
        commands += do_fit(report, root, out, common[2:], t)
    local_ingest = None
    if "crawl" in only:
        commands.append(do_crawl(report, root, out, inputs, common, t, "local", "set", None))
        local_ingest = _crawl_reports(out / "crawl-local-set")
    if "spark" in only and not args.no_spark:
        spark_inputs = [p for p in inputs if not p.endswith("pages")] + [str(root / "pages")]
        commands.append(do_crawl(report, root, out, spark_inputs, common, t, "spark", "set",
                                 local_ingest))
    if args.chaos:
        chaos = args.chaos.resolve()
        commands += do_clean(report, root, out, methods, common, t, chaos, "chaos")
        commands.append(do_evaluate(report, root, out, eval_methods, common, t, chaos,
                                    "chaos"))
        commands.append(do_crawl(report, root, out, [str(chaos)], common, t, "local", "chaos",
                                 None))
        if not args.no_spark:
            commands.append(do_crawl(report, root, out, [str(chaos)], common, t, "spark",
                                     "chaos", _crawl_reports(out / "crawl-local-chaos")))
    if args.pytest:
        commands.append(do_pytest(report, out, t))
    by_category = report.by(0)
    by_path = report.by(1)
    command = " ".join(["python benchmarks/adversarial_run.py", str(args.set), "--out",
                        str(args.out), *common, "--command-timeout", str(t)]
                       + (["--methods", args.methods] if args.methods != "all" else [])
                       + (["--evaluate-methods", args.evaluate_methods]
                          if args.evaluate_methods else [])
                       + (["--chaos", str(args.chaos)] if args.chaos else [])
                       + (["--no-spark"] if args.no_spark else [])
                       + (["--pytest"] if args.pytest else []))
    text = "\n\n".join([
        f"Command: `{command}`",
        "Per input category (summed over every batch path and method):",
        table(by_category, "input category"),
        "Per batch path (summed over categories; clean once per method):",
        table(by_path, "batch path"),
        "Commands:\n\n" + "\n".join(
            f"- `{' '.join(c.argv[:4])} ...` rc={c.rc} {c.seconds:.0f} s wall, {c.cpu:.0f} s "
            f"CPU" + (" TIMED OUT" if c.timed_out else "") + (" TRACEBACK" if c.traceback
                                                             else "") for c in commands),
        "Notes:\n\n" + "\n".join(f"- {n}" for n in report.notes),
    ])
    (out / "table.md").write_text(text + "\n", "utf-8")
    (out / "cells.json").write_text(json.dumps(
        {f"{c}|{p}": dict(v) for (c, p), v in sorted(report.cells.items())}, indent=1))
    print(text)
    bad = sum(c["crashes"] + c["hangs"] for c in by_category.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
