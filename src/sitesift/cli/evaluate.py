"""`sitesift evaluate`, `bench` and `gate`: scores against gold text, the peers beside
sitesift on the same pages, and the CI gate of F1 floors."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from sitesift.cli.common import (
    GROUPINGS,
    OK,
    SOME_FAILED,
    UsageError,
    add_limits,
    add_quiet,
    add_workers,
    at_least,
    datasets_folder,
    grouping,
    holding,
    limits,
    run_settings,
)
from sitesift.cli.settings import add_method_set, checked_cleaner, method_params


def add_parsers(sub: Any, methods: list[str]) -> None:
    p = sub.add_parser("evaluate", help="token P/R/F1 of methods against gold text")
    p.add_argument("datasets", nargs="+")
    p.add_argument("--method", action="append", choices=methods)
    p.add_argument("--group-by", default="site", choices=GROUPINGS)
    p.add_argument("--min-site-pages", type=at_least(1), default=1)
    p.add_argument("--folds", type=at_least(1), default=1,
                   help="clean each page with a site model fitted on the other folds of its "
                        "site (pages the model never saw); 1 = fit on all pages")
    add_method_set(p)
    add_workers(p)
    p.add_argument("--out")
    add_limits(p)
    add_quiet(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("bench", help="sitesift's methods beside peer extractors, same pages")
    p.add_argument("datasets", nargs="*", help="dataset folders (index.jsonl + pages/ + gold/)")
    p.add_argument("--methods", default="all",
                   help="comma-separated sitesift methods, or all / none (default all)")
    p.add_argument("--peers", default="all",
                   help="comma-separated peers, or all / none (default all): "
                        "trafilatura, trafilatura-precision, resiliparse, readability-lxml, "
                        "justext, boilerpy3, goose3, html-text, rs-trafilatura")
    p.add_argument("--group-by", default="auto", choices=("auto", *GROUPINGS),
                   help="site groups for site-level methods; auto: site,year where the "
                        "corpus has years, else site")
    p.add_argument("--min-site-pages", type=int, default=1,
                   help="leave out pages of smaller site groups (for every method)")
    add_method_set(p)
    p.add_argument("--workers", type=int, default=1,
                   help="processes for sitesift's methods (peers run in this one)")
    p.add_argument("--limit", type=int, help="only the first N pages with gold per corpus")
    p.add_argument("--out", required=True)
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--from-pages", action="store_true",
                   help="render summary.md and plots again from OUT/pages.jsonl, run nothing")
    add_quiet(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("gate", help="the CI gate: F1 floors on a fixed slice of the corpora")
    p.add_argument("--datasets", default=None,
                   help="the shared corpora's folder (default: $SITESIFT_DATASETS)")
    p.add_argument("--gate-dir", default=None,
                   help="the folder of slice.json and floors.json (benchmarks/gate in a "
                        "checkout; default: $SITESIFT_GATE_DIR)")
    p.add_argument("--method", action="append", choices=methods,
                   help="check (or with --write: pin) this method too")
    p.add_argument("--write", action="store_true", help="measure and rewrite the floors")
    p.add_argument("--allow-lower", action="store_true", help="let --write lower a floor")
    p.add_argument("--reslice", action="store_true",
                   help="choose the slice again by its rule (changes its hash)")
    p.set_defaults(func=cmd_gate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    methods = list(dict.fromkeys(args.method or ["alltext", "sst"]))
    params = method_params(args.set, methods, "evaluate")
    for method in methods:  # a bad setting is refused before any page is read
        checked_cleaner("evaluate", method, params[method])
    with holding(Path(args.out) if args.out else None, "evaluate"):
        return _evaluate(args, methods, params)


def _evaluate(args: argparse.Namespace, methods: list[str],
              params: dict[str, dict[str, Any]]) -> int:
    from sitesift.evaluate import evaluate, summary_table

    rows = evaluate([Path(d) for d in args.datasets], methods, grouping=grouping(args),
                    run=run_settings(args, limits(args)), folds=args.folds, params=params)
    table = summary_table(rows)
    print(table)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.md").write_text(table + "\n", encoding="utf-8")
        with open(out / "pages.jsonl", "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    return 0 if _evaluate_accounts(rows, args, methods) else 1


def _evaluate_accounts(rows: list[dict[str, Any]], args: argparse.Namespace,
                       methods: list[str]) -> bool:
    """Per corpus and method: index rows = scored + errors + skipped (by reason). False if
    that does not add up, or an index had bad lines (named, skipped: exit status 1)."""
    from sitesift.evaluate import index_rows, skipped_pages

    balanced = True
    for dataset in args.datasets:
        root = Path(dataset)
        rows_in, bad = index_rows(root)
        for line in bad:  # each named with its reason: it is skipped, not lost silently
            print(f"sitesift evaluate: {root.name}: skipped {line.name}: {line.reason}",
                  file=sys.stderr)
        balanced &= not bad
        total = len(rows_in) + len(bad)
        skipped = skipped_pages(root, grouping(args))
        why = ", ".join(f"{n} {reason}" for reason, n in skipped.items() if n) or "none"
        for method in methods:
            sel = [r for r in rows if r["corpus"] == root.name and r["method"] == method]
            errors = sum(1 for r in sel if r["error"])
            ok = total == len(sel) + sum(skipped.values())
            balanced &= ok
            print(f"sitesift evaluate: {root.name} {method}: {total} pages = "
                  f"{len(sel) - errors} scored + {errors} errors + {sum(skipped.values())} "
                  f"skipped ({why})" + ("" if ok else " -- DOES NOT ADD UP"), file=sys.stderr)
    return balanced


def _names(value: str, known: list[str], what: str) -> list[str]:
    """A comma-separated list of --methods or --peers: `all`, `none`, or known names (a
    name it does not know, or no name at all, is a usage error before any work)."""
    if value == "all":
        return list(known)
    if value == "none":
        return []
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    if not names:
        raise UsageError(f"sitesift bench: --{what}s {value!r} names no {what}; give names, "
                         "all or none")
    if unknown := [n for n in names if n not in known]:
        raise UsageError(f"sitesift bench: --{what}s: unknown {what}(s) {', '.join(unknown)}; "
                         f"known: {', '.join(known)} (or all, none)")
    return names


def cmd_bench(args: argparse.Namespace) -> int:
    """sitesift's methods and the peers on the same pages: summary.md, pages.jsonl, plots."""
    from sitesift.bench.peers import PEERS
    from sitesift.bench.report import load_run, method_order, overview, write_report
    from sitesift.datasets import is_dataset

    out = Path(args.out)
    if args.from_pages:
        with holding(out, "bench"):
            rows, info = load_run(out)
            write_report(rows, info, out, info.get("command"), plots=not args.no_plots)
        print(overview(rows, method_order(rows, info)))
        return 0
    if not args.datasets:
        raise UsageError("sitesift bench: give dataset folders (or --from-pages)")
    for d in args.datasets:
        if not is_dataset(Path(d)):
            raise UsageError(f"sitesift bench: {d} is not a dataset (index.jsonl + pages/)")
    from sitesift.methods.base import method_names

    methods = _names(args.methods, method_names(), "method")
    peers = _names(args.peers, list(PEERS), "peer")
    params = method_params(args.set, methods, "bench")
    for method in methods:  # a bad setting is refused before any page is read
        checked_cleaner("bench", method, params[method])
    command = " ".join(["sitesift bench", *args.datasets, "--methods", args.methods, "--peers",
                        args.peers, *(f"--set {s}" for s in args.set), "--group-by",
                        args.group_by, "--workers", str(args.workers)]
                       + (["--min-site-pages", str(args.min_site_pages)]
                          if args.min_site_pages > 1 else [])
                       + (["--limit", str(args.limit)] if args.limit else [])
                       + ["--out", args.out])
    with holding(out, "bench"):  # no other run writes into --out meanwhile
        return _bench(args, out, command, methods, peers, params)


def _bench(args: argparse.Namespace, out: Path, command: str, methods: list[str],
           peers: list[str], params: dict[str, dict[str, Any]]) -> int:
    from sitesift.bench.report import method_order, overview, write_report
    from sitesift.bench.runner import run_bench

    with open(out / "pages.jsonl", "w", encoding="utf-8") as fh:
        def write_row(row: dict[str, Any]) -> None:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()

        run = run_bench([Path(d) for d in args.datasets], methods, peers,
                        grouping=grouping(args), run=run_settings(args), limit=args.limit,
                        on_row=write_row, params=params)
    for name, reason in run.skipped.items():
        print(f"sitesift bench: skipped {name}: {reason}", file=sys.stderr)
    write_report(run.rows, run.info(), out, command, plots=not args.no_plots)
    print(overview(run.rows, method_order(run.rows, run.info())))
    print(f"sitesift bench: {len(run.rows)} rows in {run.meta['seconds']} s -> "
          f"{out / 'summary.md'}, {out / 'pages.jsonl'}", file=sys.stderr)
    return 0


def cmd_gate(args: argparse.Namespace) -> int:
    """Check sitesift's methods against the F1 floors on the CI slice, or rewrite them."""
    from sitesift.bench import gate

    datasets = datasets_folder("gate", args.datasets)
    folder = args.gate_dir or os.environ.get("SITESIFT_GATE_DIR")
    if not folder:
        raise UsageError("sitesift gate: give --gate-dir DIR (slice.json and floors.json: "
                         "benchmarks/gate in a checkout) or set SITESIFT_GATE_DIR")
    gate_dir = Path(folder)
    slice_file, floors_file = gate_dir / gate.SLICE_NAME, gate_dir / gate.FLOORS_NAME
    if args.reslice:
        gate.write_slice(gate.choose_slice(datasets), slice_file)
        print(f"sitesift gate: wrote {slice_file}; now pin floors with --write",
              file=sys.stderr)
        if not args.write:
            return OK
    if not slice_file.is_file():
        raise UsageError(f"sitesift gate: no {slice_file} (--reslice makes one)")
    pages = gate.load_slice(slice_file)
    if args.write:
        known = gate.Floors.load(floors_file).floors if floors_file.is_file() else {}
        methods = list(dict.fromkeys([*known, *(args.method or [])]))
        try:
            floors, result = gate.rewrite_floors(methods, datasets, pages, floors_file,
                                                 args.allow_lower)
        except ValueError as exc:
            raise UsageError(f"sitesift gate: {exc}") from None
        print(result.table(floors))
        print(f"sitesift gate: wrote {floors_file}: review the change", file=sys.stderr)
        return OK
    if not floors_file.is_file():
        raise UsageError(f"sitesift gate: no {floors_file} (--write pins the floors)")
    floors = gate.Floors.load(floors_file)
    try:
        result = gate.run_gate(datasets, floors, pages, methods=args.method)
    except gate.SliceChanged as exc:
        print(f"sitesift gate: {exc}", file=sys.stderr)
        return SOME_FAILED
    print(result.table(floors))
    for failure in result.failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return SOME_FAILED if result.failures else OK
