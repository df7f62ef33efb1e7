"""The command line. Argument parsing lives here only; the core never sees argparse."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sitesift.batch import Outcome, clean_group, run_groups
from sitesift.datasets import GROUPINGS
from sitesift.errors import SitesiftError
from sitesift.inputs import collect_sources
from sitesift.methods.base import get_cleaner, method_names

FORMATS = {"text": ".txt", "markdown": ".md", "json": ".json"}
SAMPLE_SITE = Path(__file__).parent / "data" / "sample_site"


def _params(pairs: Iterable[str]) -> dict[str, Any]:
    """`--set threshold=0.4` pairs; values are read as JSON where they parse."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"sitesift: --set wants key=value, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _safe_name(page_id: str) -> str:
    return page_id.replace(os.sep, "__").replace("/", "__") or "_"


def write_outcomes(outcomes: Iterable[Outcome], out: Path, fmt: str) -> tuple[int, int]:
    """One file per page, and errors.jsonl with one record per failed input."""
    out.mkdir(parents=True, exist_ok=True)
    ok = failed = 0
    with open(out / "errors.jsonl", "w", encoding="utf-8") as errors:
        for outcome in outcomes:
            if outcome.result is None:
                failed += 1
                record = {"id": outcome.id, "group": outcome.group, "reason": outcome.error}
                if outcome.source.get("path"):
                    record["path"] = outcome.source["path"]
                errors.write(json.dumps(record, ensure_ascii=False) + "\n")
                continue
            ok += 1
            result = outcome.result
            if fmt == "json":
                body = json.dumps(result.to_dict(), ensure_ascii=False, indent=1)
            elif fmt == "markdown":
                body = result.markdown()
            else:
                body = result.text
            (out / (_safe_name(outcome.id) + FORMATS[fmt])).write_text(body + "\n", "utf-8")
    return ok, failed


def cmd_clean(args: argparse.Namespace) -> int:
    groups = collect_sources(Path(args.path), args.group_by)
    outcomes = run_groups(groups, args.method, _params(args.set), model=args.model,
                          workers=args.workers, progress=not args.quiet,
                          noise=args.format == "json")
    ok, failed = write_outcomes(outcomes, Path(args.out), args.format)
    print(f"sitesift clean: {ok} pages cleaned, {failed} errors (see {args.out}/errors.jsonl), "
          f"{len(groups)} site groups, method {args.method}", file=sys.stderr)
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    from sitesift.model_io import save_model

    groups = collect_sources(Path(args.path), "none")
    sources = [s for members in groups.values() for s in members]
    pages, errors = [], 0
    for src in sources:
        try:
            pages.append(src.load())
        except SitesiftError as exc:
            errors += 1
            print(f"sitesift fit: skipped {src.id}: {exc}", file=sys.stderr)
    if not pages:
        print("sitesift fit: no readable pages", file=sys.stderr)
        return 2
    start = time.perf_counter()
    cleaner = get_cleaner(args.method, **_params(args.set)).fit(pages)
    seconds = time.perf_counter() - start
    save_model(cleaner, args.out)
    print(f"sitesift fit: {args.method} model from {len(pages)} pages ({errors} unreadable) in "
          f"{seconds:.2f} s -> {args.out}", file=sys.stderr)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from sitesift.evaluate import evaluate, summary_table

    methods = args.method or ["alltext", "sst"]
    rows = evaluate([Path(d) for d in args.datasets], methods, grouping=args.group_by,
                    min_group_pages=args.min_site_pages, workers=args.workers,
                    progress=not args.quiet)
    table = summary_table(rows)
    print(table)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.md").write_text(table + "\n", encoding="utf-8")
        with open(out / "pages.jsonl", "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Fit a Site Style Tree on the bundled sample site, clean every page, score and save."""
    from sitesift.evaluate import evaluate, summary_table
    from sitesift.model_io import save_model

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    groups = collect_sources(SAMPLE_SITE, "site")
    sources = [s for members in groups.values() for s in members]
    pages = [s.load() for s in sources]
    start = time.perf_counter()
    model = get_cleaner("sst").fit(pages)
    fit_s = time.perf_counter() - start
    model_path = save_model(model, out / "sample_site.sst.json")
    outcomes = clean_group("sst", {}, "sample", sources, str(model_path))
    ok, failed = write_outcomes(outcomes, out / "pages", "text")
    rows = evaluate([SAMPLE_SITE], ["alltext", "sst"])
    table = summary_table(rows)
    (out / "summary.md").write_text(table + "\n", encoding="utf-8")
    print(f"fitted a Site Style Tree on {len(pages)} pages in {fit_s:.2f} s -> {model_path}")
    print(f"cleaned {ok} pages ({failed} errors) -> {out / 'pages'}")
    print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sitesift", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    methods = method_names()

    p = sub.add_parser("clean", help="clean pages (a dataset folder, a folder, or a list file)")
    p.add_argument("path")
    p.add_argument("--method", default="sst", choices=methods)
    p.add_argument("--group-by", default="site", choices=GROUPINGS)
    p.add_argument("--format", default="text", choices=sorted(FORMATS))
    p.add_argument("--out", required=True)
    p.add_argument("--model", help="a fitted model file to clean with, instead of fitting")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a method parameter, e.g. threshold=0.3")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_clean)

    p = sub.add_parser("fit", help="fit a site-level model on pages of one site")
    p.add_argument("path")
    p.add_argument("--method", default="sst", choices=methods)
    p.add_argument("--out", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("evaluate", help="token P/R/F1 of methods against gold text")
    p.add_argument("datasets", nargs="+")
    p.add_argument("--method", action="append", choices=methods)
    p.add_argument("--group-by", default="site", choices=GROUPINGS)
    p.add_argument("--min-site-pages", type=int, default=1)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("demo", help="fit, clean and score the bundled sample site")
    p.add_argument("--out", default="sitesift-demo")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except SitesiftError as exc:
        print(f"sitesift: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"sitesift: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
