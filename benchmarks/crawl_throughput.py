"""End to end on modern pages: crawl, clean DIR and the bench on the same pages, one run.

    python benchmarks/crawl_throughput.py [--per-corpus 200] [--seed 0]
                                          [--datasets dragnet big9 wcxb l3s-gn1 chaos]
                                          [--workers 2 1] [--spark] [--no-bench]
                                          [--peers resiliparse] [--method default]
                                          [--fallback default] [--copies 4]
                                          [--rounds 5] [--keep DIR] [--out FILE.json]

The yardstick of issue 53. Its input is a fixed, seeded sample of modern pages from the
shared corpora (../shared/datasets): per corpus, whole sites in a seeded order until
`--per-corpus` pages (the last site cut short), so the crawl meets sites as it would on
the full corpus. The sample is written as slices of the corpora (index.jsonl of the chosen
rows, their pages and gold linked in) and, by benchmarks/make_warc.py, as one WARC per
corpus. Then, each in a fresh process and on those same pages:

- `sitesift crawl WARCS --method default --workers N` for each `--workers` (2, then 1);
- `sitesift crawl ... --engine spark --workers 2` with `--spark` (it needs Java; its wall
  seconds include the session's start);
- with `--copies K`, each crawl again on the sample K times over (copy n's hosts renamed
  `copyN-host`: K times the sites and pages of the same mix), and per crawl its fixed CPU
  (start, session, model loads) and its marginal CPU a page, from the two runs: what a job
  costs on a crawl of any size. A Spark session's start is some 20 CPU-s, which a sample of
  1,000 pages reads as 20 ms a page; on a real crawl the marginal figure is the one to set
  beside the local job's;
- `sitesift clean SLICES -o OUT --workers 1` (the slices are dataset folders: site groups
  from their index, as the bench has them);
- `sitesift bench SLICES --methods default --peers resiliparse --workers 1`: the per-page
  median and mean CPU ms of each method from its pages.jsonl (sitesift's: parse, clean and
  the page's share of its site's fit); the peer where installed;
- with `--rounds R`, R - 1 more rounds of the crawl with 2 workers, `clean DIR` and the bench
  of `default` alone, in turn backwards and forwards (bench, clean, crawl; then crawl, clean,
  bench; ...), each ratio taken within its round, and their medians. This machine's speed
  moves by a quarter to a half within a minute (one run's bench read 5.7 ms a page against
  8.4 in the next), so a crawl and a bench a minute apart can read 1.0x or 1.7x for the same
  code; a ratio to judge is the median of rounds.

For the commands: wall seconds and the CPU seconds of the whole process tree (user +
system of every descendant: `getrusage(RUSAGE_CHILDREN)` in a small wrapper process, a
child subreaper that also waits for descendants their parent left, not counting itself),
CPU ms per page, pages/s per core (pages per
CPU-second: a figure that other load on the machine does not dilute) and the peak
resident set of the largest descendant. Each row's ratio is its CPU per page over the
bench's mean for `default`. Issue 53's targets: crawl `--method default`, 2 workers,
>= 150 pages/s per core; the crawl's and `clean DIR`'s CPU per page <= 1.25x the bench's
mean for `default`; Spark within 1.3x of the local job's pages/s per core.

Prints one markdown table (and the load average before each row); `--out` writes the rows
and the run's settings as JSON. The old mix of whole corpora (80 % WebKB's small 1997
pages, which flatters every path; the figures of docs/spark.md) is
`--datasets webkb swde-book big9 dragnet cleanportaleval --per-corpus 0 --no-bench`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[0].parent / "shared" / "datasets"
DEFAULT = ["dragnet", "big9", "wcxb", "l3s-gn1", "chaos"]
PER_CORPUS = 200
TARGET_PPS = 150.0  # crawl, 2 workers: pages/s per core
TARGET_RATIO = 1.25  # crawl and clean DIR: CPU per page over the bench's mean for default

# Run in a fresh interpreter: runs argv, prints the CPU and peak RSS of its descendants.
# A child subreaper (Linux): descendants orphaned by their parent (a Spark JVM left to exit
# on its own) are reparented to the wrapper and waited for too, for up to 60 s.
_WRAPPER = """
import ctypes, json, os, resource, subprocess, sys, time
try:
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except (AttributeError, OSError):
    pass
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - t
deadline, orphans = time.monotonic() + 60, 0
while time.monotonic() < deadline:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid:
        orphans += 1
    else:
        time.sleep(0.05)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": rc, "wall": wall, "cpu": r.ru_utime + r.ru_stime,
                  "peak_mb": r.ru_maxrss / 1024, "orphans": orphans}))
"""


def sitesift_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("sitesift")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "sitesift"]


def _has_gold(root: Path, page_id: str) -> bool:
    return (root / "gold" / f"{page_id}.txt").is_file()


def site_of(row: dict[str, Any]) -> str:
    return str(row.get("site") or row.get("host") or row["id"])


def sample_rows(root: Path, per_corpus: int, seed: int) -> list[dict[str, Any]]:
    """Whole sites of `root` (pages with gold, index order kept within a site) in a seeded
    order until `per_corpus` pages (0: every page of the corpus)."""
    rows = [json.loads(line) for line in (root / "index.jsonl").read_text().splitlines()
            if line.strip()]
    if per_corpus <= 0:
        return rows  # the whole corpus, pages without gold too (the bench leaves those out)
    rows = [r for r in rows if _has_gold(root, r["id"])]
    sites: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        sites[site_of(r)].append(r)
    order = sorted(sites)
    random.Random(f"{seed}:{root.name}").shuffle(order)
    chosen: list[dict[str, Any]] = []
    for site in order:
        chosen += sites[site][:per_corpus - len(chosen)]
        if len(chosen) >= per_corpus:
            break
    return chosen


def write_slice(src: Path, dst: Path, rows: list[dict[str, Any]]) -> None:
    """A dataset folder of `rows`: their index lines, page and gold files linked in."""
    for sub in ("pages", "gold"):
        (dst / sub).mkdir(parents=True, exist_ok=True)
    ids = {r["id"] for r in rows}
    for sub in ("pages", "gold"):
        for f in (src / sub).iterdir():
            stems = {f.name[:i] for i, c in enumerate(f.name) if c == "."}
            if stems & ids and not (dst / sub / f.name).exists():
                (dst / sub / f.name).symlink_to(f.resolve())
    (dst / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def build_input(work: Path, shared: Path, names: list[str], per_corpus: int,
                seed: int) -> tuple[list[Path], list[Path], dict[str, int]]:
    """The slices and their WARCs under `work`; pages per corpus."""
    slices, counts = [], {}
    for name in names:
        src = shared / name
        if not (src / "index.jsonl").is_file():
            raise SystemExit(f"crawl_throughput: corpus {name!r} not found at {src}")
        rows = sample_rows(src, per_corpus, seed)
        write_slice(src, work / "slices" / name, rows)
        slices.append(work / "slices" / name)
        counts[name] = len(rows)
    warc_dir = work / "warcs"
    subprocess.run([sys.executable, str(HERE / "make_warc.py"), "--shared",
                    str(work / "slices"), "--out", str(warc_dir), "--datasets", *names],
                   check=True, stdout=subprocess.DEVNULL)
    return slices, [warc_dir / f"{n}.warc.gz" for n in names], counts


def copy_warcs(warcs: list[Path], out: Path, copies: int) -> list[Path]:
    """`warcs` `copies` times over in one WARC each under `out`: copy n > 0 of a page at
    http://host/path is at http://copyN-host/path, so each copy is other sites."""
    from urllib.parse import urlsplit, urlunsplit

    from fastwarc.warc import ArchiveIterator, WarcRecordType

    from sitesift.io.warc import HttpResponse, write_warc
    out.mkdir(parents=True, exist_ok=True)
    for warc in warcs:
        with open(warc, "rb") as f:
            pages = [(str(r.headers.get("WARC-Target-URI")), r.reader.read(),
                      r.http_headers.get("Content-Type") if r.http_headers else None)
                     for r in ArchiveIterator(f, record_types=WarcRecordType.response,
                                              parse_http=True)]

        def renamed(n: int, url: str) -> str:
            parts = urlsplit(url)
            return urlunsplit(parts._replace(netloc=f"copy{n}-{parts.netloc}")) if n else url
        write_warc(out / warc.name, (HttpResponse(renamed(n, url), body, content_type=kind)
                                     for n in range(copies) for url, body, kind in pages))
    return [out / w.name for w in warcs]


def scaling(rows: list[dict[str, Any]]) -> str:
    """Fixed CPU and marginal CPU a page of each crawl, from its runs on the sample and on
    its copies (rows `label` and `label (xK)`)."""
    out = ["| path | fixed CPU s | marginal CPU ms/page | marginal pages/s per core |",
           "|---|---|---|---|"]
    by = {r["path"]: r for r in rows}
    for r in rows:
        big = next((b for p, b in by.items() if p.startswith(r["path"] + " (x")), None)
        if big is None or big["pages"] <= r["pages"]:
            continue
        marginal = (big["cpu_s"] - r["cpu_s"]) / (big["pages"] - r["pages"])
        out.append(f"| {r['path']} | {r['cpu_s'] - marginal * r['pages']:.1f} | "
                   f"{1000 * marginal:.1f} | {1 / marginal:.1f} |" if marginal > 0 else
                   f"| {r['path']} | | (no more CPU for more pages: noise) | |")
    return "\n".join(out)


def measure(label: str, argv: list[str], pages: int) -> dict[str, Any]:
    """Run `argv` in a wrapper; its figures over `pages`."""
    load = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise SystemExit(f"{label} failed:\n{proc.stderr[-3000:]}")
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if got["rc"] not in (0, 1):  # 1: some pages gave an error record, counted below
        raise SystemExit(f"{label}: exit {got['rc']}:\n{proc.stderr[-3000:]}")
    return {"path": label, "command": " ".join(argv), "pages": pages,
            "seconds": round(got["wall"], 2), "cpu_s": round(got["cpu"], 2),
            "cpu_ms_per_page": round(1000 * got["cpu"] / max(pages, 1), 2),
            "pages_per_core_s": round(pages / got["cpu"], 1) if got["cpu"] else None,
            "peak_mb": round(got["peak_mb"]), "load": round(load, 2), "exit": got["rc"],
            "orphans_reaped": got["orphans"]}


def _round(k: int, order: str, crawl: dict[str, Any], clean: dict[str, Any],
           bench_ms: float | None) -> dict[str, Any]:
    """One round's figures: the crawl's and clean's CPU ms a page over the bench's mean."""
    if not bench_ms:
        raise SystemExit(f"round {k}: the bench gave no CPU time for default")
    return {"round": k, "order": order, "crawl_ms": crawl["cpu_ms_per_page"],
            "clean_ms": clean["cpu_ms_per_page"], "bench_ms": bench_ms,
            "crawl_ratio": crawl["cpu_ms_per_page"] / bench_ms,
            "clean_ratio": clean["cpu_ms_per_page"] / bench_ms}


def crawl_pages(out: Path) -> int:
    summary = json.loads((out / "summary.json").read_text())
    return int(summary.get("results", summary.get("pages", 0)))


def bench_rows(out: Path, cmd: list[str], pages: int) -> list[dict[str, Any]]:
    """Per method of a bench run: median and mean CPU ms per page from pages.jsonl."""
    cpu: dict[str, list[float]] = defaultdict(list)
    for line in (out / "pages.jsonl").read_text().splitlines():
        row = json.loads(line)
        if "cpu_ms" in row and "method" in row:
            cpu[row["method"]].append(float(row["cpu_ms"]))
    return [{"path": f"bench {m} (per-page median / mean)", "command": " ".join(cmd),
             "pages": len(v), "cpu_ms_per_page": round(statistics.fmean(v), 2),
             "cpu_ms_median": round(statistics.median(v), 2),
             "pages_per_core_s": round(1000 / statistics.fmean(v), 1)}
            for m, v in cpu.items() if v]


def default_mean(per_method: list[dict[str, Any]]) -> float | None:
    """The bench's mean CPU ms a page for `default` (`bench_rows`), None without it."""
    return next((r["cpu_ms_per_page"] for r in per_method
                 if r["path"].startswith("bench default ")), None)


def rounds_table(rounds: list[dict[str, Any]]) -> str:
    """Each round's crawl, clean and bench of `default`, its ratios within the round, and
    the medians over the rounds."""
    out = ["| round | order | crawl x2 ms/page | pages/s per core | clean ms/page | "
           "bench mean ms | crawl x bench | clean x bench |", "|---|---|---|---|---|---|---|---|"]
    for r in rounds:
        out.append(f"| {r['round']} | {r['order']} | {r['crawl_ms']:.1f} | "
                   f"{1000 / r['crawl_ms']:.1f} | {r['clean_ms']:.1f} | {r['bench_ms']:.1f} | "
                   f"{r['crawl_ratio']:.2f}x | {r['clean_ratio']:.2f}x |")
    med = {k: statistics.median(r[k] for r in rounds)
           for k in ("crawl_ms", "clean_ms", "bench_ms", "crawl_ratio", "clean_ratio")}
    out.append(f"| median of {len(rounds)} | | {med['crawl_ms']:.1f} | "
               f"{1000 / med['crawl_ms']:.1f} | {med['clean_ms']:.1f} | {med['bench_ms']:.1f} | "
               f"{med['crawl_ratio']:.2f}x | {med['clean_ratio']:.2f}x |")
    return "\n".join(out)


def table(rows: list[dict[str, Any]], ref: float | None) -> str:
    out = ["| path | pages | wall s | CPU ms/page | pages/s per core | x bench mean (default) "
           "| peak MB | load before |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cpu = (f"{r['cpu_ms_median']:.1f} / {r['cpu_ms_per_page']:.1f}"
               if "cpu_ms_median" in r else f"{r['cpu_ms_per_page']:.1f}")
        ratio = f"{r['cpu_ms_per_page'] / ref:.2f}x" if ref else ""
        out.append(f"| {r['path']} | {r['pages']} | {r.get('seconds', '')} | {cpu} | "
                   f"{r['pages_per_core_s']} | {ratio} | {r.get('peak_mb', '')} | "
                   f"{r.get('load', '')} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DEFAULT)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--per-corpus", type=int, default=PER_CORPUS,
                    help=f"pages per corpus, whole sites in a seeded order; 0: all "
                         f"(default {PER_CORPUS})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", nargs="*", type=int, default=[2, 1],
                    help="local crawls, one per worker count (default: 2 1)")
    ap.add_argument("--spark", action="store_true",
                    help="also crawl with --engine spark --workers 2 (needs Java)")
    ap.add_argument("--copies", type=int, default=0, metavar="K",
                    help="also crawl the sample K times over (other hosts): fixed and "
                         "marginal CPU of each crawl")
    ap.add_argument("--no-clean", action="store_true", help="skip clean DIR")
    ap.add_argument("--no-bench", action="store_true", help="skip sitesift bench")
    ap.add_argument("--peers", default="resiliparse",
                    help="the bench's peers beside default (default: resiliparse; none)")
    ap.add_argument("--method", default="default", help="the crawl's --method")
    ap.add_argument("--fallback", default=None,
                    help="the crawl's --fallback (default: the method where it is default, "
                         "else alltext)")
    ap.add_argument("--rounds", type=int, default=1, metavar="R",
                    help="R - 1 more rounds of crawl (2 workers), clean DIR and the bench "
                         "of default, in alternating order; the median of each round's "
                         "ratios (default 1: none)")
    ap.add_argument("--keep", type=Path, help="build and keep everything here "
                                              "(default: a temp dir, removed)")
    ap.add_argument("--out", type=Path, help="write the rows and settings as JSON here")
    args = ap.parse_args(argv)
    if args.copies < 0 or args.copies == 1:
        ap.error("--copies takes 2 or more (0: off)")
    if args.rounds < 1:
        ap.error("--rounds takes 1 or more")
    if args.rounds > 1 and (args.no_clean or args.no_bench or 2 not in args.workers):
        ap.error("--rounds measures the crawl with 2 workers, clean DIR and the bench: "
                 "not with --no-clean, --no-bench or without --workers 2")
    work = args.keep or Path(tempfile.mkdtemp(prefix="sitesift-throughput-"))
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    fallback = args.fallback or (args.method if args.method == "default" else "alltext")
    try:
        start = time.perf_counter()
        slices, warcs, counts = build_input(work, args.shared, args.datasets,
                                            args.per_corpus, args.seed)
        pages = sum(counts.values())
        print(f"input: {pages} pages ({', '.join(f'{k} {v}' for k, v in counts.items())}), "
              f"built in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        ss = sitesift_cmd()
        rows: list[dict[str, Any]] = []
        # (label, workers, engine, inputs, output folder under `work`)
        runs = [(f"crawl --workers {n}", n, "local", warcs, f"crawl-local-{n}")
                for n in args.workers]
        if args.spark:
            runs.append(("crawl --engine spark --workers 2", 2, "spark", warcs,
                         "crawl-spark-2"))
        if args.copies > 1:
            many = copy_warcs(warcs, work / f"warcs-x{args.copies}", args.copies)
            runs += [(f"{label} (x{args.copies})", n, engine, many, f"{folder}-x{args.copies}")
                     for label, n, engine, _, folder in runs]
        def crawl(label: str, n: int, engine: str, inputs: list[Path],
                  out: Path) -> dict[str, Any]:
            cmd = [*ss, "crawl", *map(str, inputs), "--out", str(out), "--method", args.method,
                   "--fallback", fallback, "--workers", str(n), "-q"]
            if engine == "spark":
                cmd += ["--engine", "spark"]
            row = measure(label, cmd, pages)
            row["pages"] = crawl_pages(out)  # the results the job wrote
            row["cpu_ms_per_page"] = round(1000 * row["cpu_s"] / max(row["pages"], 1), 2)
            row["pages_per_core_s"] = round(row["pages"] / row["cpu_s"], 1)
            print(f"{label}: {row['cpu_ms_per_page']} CPU ms/page", file=sys.stderr)
            return row

        def clean(out: Path) -> dict[str, Any]:
            cmd = [*ss, "clean", *map(str, slices), "-o", str(out) + "/", "--workers", "1",
                   "-q"]
            row = measure("clean DIR -o OUT --workers 1", cmd, pages)
            print(f"clean: {row['cpu_ms_per_page']} CPU ms/page", file=sys.stderr)
            return row

        def bench(out: Path, peers: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
            cmd = [*ss, "bench", *map(str, slices), "--methods", "default", "--peers",
                   peers, "--workers", "1", "--out", str(out), "--no-plots", "-q"]
            whole = measure("bench, whole run (incl. peers)", cmd, pages)
            return whole, bench_rows(out, cmd, pages)

        for label, n, engine, inputs, folder in runs:
            rows.append(crawl(label, n, engine, inputs, work / folder))
        if not args.no_clean:
            rows.append(clean(work / "clean"))
        ref = None
        if not args.no_bench:
            whole, per_method = bench(work / "bench", args.peers)
            rows += [*per_method, whole]
            ref = default_mean(per_method)
        rounds: list[dict[str, Any]] = []
        if args.rounds > 1:
            first = {r["path"]: r for r in rows}
            rounds.append(_round(1, "crawl, clean, bench", first["crawl --workers 2"],
                                 first["clean DIR -o OUT --workers 1"], ref))
        for k in range(2, args.rounds + 1):
            steps = ["crawl", "clean", "bench"]
            if k % 2 == 0:  # backwards, then forwards: a drift of the machine's speed
                steps.reverse()  # weighs on each side of a ratio in turn
            got: dict[str, Any] = {}
            for step in steps:
                if step == "crawl":
                    got[step] = crawl("crawl --workers 2", 2, "local", warcs,
                                      work / f"crawl-local-2-r{k}")
                elif step == "clean":
                    got[step] = clean(work / f"clean-r{k}")
                else:
                    got[step] = default_mean(bench(work / f"bench-r{k}", "none")[1])
            rounds.append(_round(k, ", ".join(steps), got["crawl"], got["clean"],
                                 got["bench"]))
        print(f"datasets: {', '.join(f'{k} {v}' for k, v in counts.items())} "
              f"(--per-corpus {args.per_corpus} --seed {args.seed}); --method {args.method} "
              f"--fallback {fallback}; {os.cpu_count()} cores\n")
        print(table(rows, ref))
        if rounds:
            print(f"\nRounds, each ratio within its round:\n\n{rounds_table(rounds)}")
        if args.copies > 1:
            print(f"\nCost of a crawl of any size, from the sample and its {args.copies} "
                  f"copies:\n\n{scaling(rows)}")
        if ref:
            crawl2 = next((r for r in rows if r["path"] == "crawl --workers 2"), None)
            if crawl2:
                print(f"\ntargets (issue 53): crawl 2 workers >= {TARGET_PPS:.0f} pages/s per "
                      f"core: {crawl2['pages_per_core_s']}; crawl and clean DIR CPU/page <= "
                      f"{TARGET_RATIO}x the bench's mean ({ref:.1f} ms)")
        if args.out:
            args.out.write_text(json.dumps(
                {"datasets": counts, "per_corpus": args.per_corpus, "seed": args.seed,
                 "method": args.method, "fallback": fallback, "copies": args.copies,
                 "cpus": os.cpu_count(),
                 "date": time.strftime("%Y-%m-%d"), "bench_mean_ms": ref, "rows": rows,
                 "rounds": rounds},
                indent=1) + "\n")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
