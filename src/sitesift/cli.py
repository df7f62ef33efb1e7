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
SHARED_DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
# Default page time limits: a rendered page takes 1-3 s of browser time, more on a busy box.
PAGE_SECONDS = 10.0
BROWSER_PAGE_SECONDS = 60.0


def _params(pairs: Iterable[str], flag: str = "--set") -> dict[str, Any]:
    """`--set threshold=0.4` pairs; values are read as JSON where they parse."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"sitesift: {flag} wants key=value, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _safe_name(page_id: str) -> str:
    return page_id.replace(os.sep, "__").replace("/", "__") or "_"


def _add_limits(p: argparse.ArgumentParser) -> None:
    """The guards' settings (sitesift.guards.Limits), the same for every batch command."""
    p.add_argument("--page-timeout", type=float, default=None, metavar="SECONDS",
                   help=f"per page (decode, parse, clean; default {PAGE_SECONDS:g}, or "
                        f"{BROWSER_PAGE_SECONDS:g} for methods that render in a browser); "
                        "past it the page is an error record")
    p.add_argument("--fit-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="per site model fit")
    p.add_argument("--memory-mb", type=int, default=2048,
                   help="address space a worker may add; past it, the page it was on is an "
                        "error record (0: no limit)")


def _renders(args: argparse.Namespace) -> bool:
    """Whether a method the command runs renders pages in a browser (seconds per page)."""
    from sitesift.methods.base import get_class

    names = getattr(args, "method", None) or []  # argparse checked them against the registry
    names = [names] if isinstance(names, str) else names
    return any(get_class(name).needs_browser for name in names)


def _limits(args: argparse.Namespace) -> Any:
    from sitesift.guards import Limits

    seconds = args.page_timeout
    if seconds is None:
        seconds = BROWSER_PAGE_SECONDS if _renders(args) else PAGE_SECONDS
    try:
        return Limits(page_seconds=seconds, fit_seconds=args.fit_timeout,
                      memory_mb=args.memory_mb)
    except ValueError as exc:
        raise SystemExit(f"sitesift {args.command}: {exc}") from None


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
                          noise=args.format == "json", limits=_limits(args))
    ok, failed = write_outcomes(outcomes, Path(args.out), args.format)
    inputs = sum(len(members) for members in groups.values())
    print(f"sitesift clean: {inputs} inputs = {ok} pages cleaned + {failed} errors (see "
          f"{args.out}/errors.jsonl), {len(groups)} site groups, "
          + (f"model {args.model}" if args.model else f"method {args.method}"), file=sys.stderr)
    return 0 if inputs == ok + failed else 1


def cmd_fit(args: argparse.Namespace) -> int:
    from sitesift.batch import fit_sources

    groups = collect_sources(Path(args.path), "none")
    sources = [s for members in groups.values() for s in members]
    report = fit_sources(sources, args.method, _params(args.set), args.out, _limits(args))
    for outcome in report.errors:
        print(f"sitesift fit: skipped {outcome.id}: {outcome.error}", file=sys.stderr)
    fitted = report.fitted
    print(f"sitesift fit: {len(sources)} inputs = {fitted.pages} pages fitted on + "
          f"{len(report.errors)} errors", file=sys.stderr)
    if fitted.error is not None:
        print(f"sitesift fit: no model: {fitted.error}", file=sys.stderr)
        return 2
    print(f"sitesift fit: {args.method} model from {fitted.pages} pages in "
          f"{fitted.seconds:.2f} s -> {args.out}", file=sys.stderr)
    return 0 if len(sources) == fitted.pages + len(report.errors) else 1


def _add_method_set(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="[METHOD.]KEY=VALUE",
                   help="a method parameter, for one method (default.preset=precision) or "
                        "every method given (preset=precision)")


def _method_params(pairs: Iterable[str], methods: list[str], command: str
                   ) -> dict[str, dict[str, Any]]:
    """Each method's parameters from `--set` pairs: `sst.threshold=0.4` for one method,
    `threshold=0.4` for every method given."""
    params: dict[str, dict[str, Any]] = {m: {} for m in methods}
    for key, value in _params(pairs).items():
        method, dot, name = key.partition(".")
        if dot and method not in params:
            raise SystemExit(f"sitesift {command}: --set {key}: {method} is not one of the "
                             "methods given")
        for m in [method] if dot else methods:
            params[m][name if dot else key] = value
    return params


def cmd_evaluate(args: argparse.Namespace) -> int:
    from sitesift.evaluate import evaluate, summary_table

    methods = list(dict.fromkeys(args.method or ["alltext", "sst"]))
    params = _method_params(args.set, methods, "evaluate")
    rows = evaluate([Path(d) for d in args.datasets], methods, grouping=args.group_by,
                    min_group_pages=args.min_site_pages, workers=args.workers, params=params,
                    progress=not args.quiet, folds=args.folds, limits=_limits(args))
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
    """Per corpus and method: index rows = scored + errors + skipped (by reason)."""
    from sitesift.datasets import read_index
    from sitesift.evaluate import skipped_pages

    balanced = True
    for dataset in args.datasets:
        root = Path(dataset)
        total = len(read_index(root))
        skipped = skipped_pages(root, args.group_by, args.min_site_pages)
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
    """A comma-separated list: `all`, `none`, or names."""
    if value == "all":
        return list(known)
    if value == "none":
        return []
    names = [n.strip() for n in value.split(",") if n.strip()]
    if what == "method" and (unknown := [n for n in names if n not in known]):
        raise SystemExit(f"sitesift bench: unknown method(s) {', '.join(unknown)}; "
                         f"known: {', '.join(known)}")
    return names


def cmd_bench(args: argparse.Namespace) -> int:
    """sitesift's methods and the peers on the same pages: summary.md, pages.jsonl, plots."""
    from sitesift.bench.peers import PEERS
    from sitesift.bench.report import load_run, method_order, overview, write_report
    from sitesift.bench.runner import run_bench
    from sitesift.datasets import is_dataset

    out = Path(args.out)
    if args.from_pages:
        rows, info = load_run(out)
        write_report(rows, info, out, info.get("command"), plots=not args.no_plots)
        print(overview(rows, method_order(rows, info)))
        return 0
    if not args.datasets:
        raise SystemExit("sitesift bench: give dataset folders (or --from-pages)")
    for d in args.datasets:
        if not is_dataset(Path(d)):
            raise SystemExit(f"sitesift bench: {d} is not a dataset (index.jsonl + pages/)")
    methods = _names(args.methods, method_names(), "method")
    peers = _names(args.peers, list(PEERS), "peer")
    params = _method_params(args.set, methods, "bench")
    command = " ".join(["sitesift bench", *args.datasets, "--methods", args.methods, "--peers",
                        args.peers, *(f"--set {s}" for s in args.set), "--group-by",
                        args.group_by, "--workers", str(args.workers)]
                       + (["--min-site-pages", str(args.min_site_pages)]
                          if args.min_site_pages > 1 else [])
                       + (["--limit", str(args.limit)] if args.limit else [])
                       + ["--out", args.out])
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "pages.jsonl", "w", encoding="utf-8") as fh:
        def write_row(row: dict[str, Any]) -> None:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()

        run = run_bench([Path(d) for d in args.datasets], methods, peers,
                        grouping=args.group_by, min_group_pages=args.min_site_pages,
                        workers=args.workers, limit=args.limit, progress=not args.quiet,
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

    datasets = Path(args.datasets)
    if not datasets.is_dir():
        raise SystemExit(f"sitesift gate: no corpora at {datasets}")
    if args.reslice:
        gate.write_slice(gate.choose_slice(datasets))
        print(f"sitesift gate: wrote {gate.SLICE_FILE}; now pin floors with --write",
              file=sys.stderr)
        if not args.write:
            return 0
    if args.write:
        known = gate.Floors.load().floors if gate.FLOORS_FILE.is_file() else {}
        methods = list(dict.fromkeys([*known, *(args.method or [])]))
        try:
            floors, result = gate.rewrite_floors(methods, datasets, args.allow_lower)
        except ValueError as exc:
            raise SystemExit(f"sitesift gate: {exc}") from None
        print(result.table(floors))
        print(f"sitesift gate: wrote {gate.FLOORS_FILE}: review the change", file=sys.stderr)
        return 0
    floors = gate.Floors.load()
    try:
        result = gate.run_gate(datasets, floors, methods=args.method)
    except gate.SliceChanged as exc:
        print(f"sitesift gate: {exc}", file=sys.stderr)
        return 1
    print(result.table(floors))
    for failure in result.failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return 1 if result.failures else 0


def crawl_settings(args: argparse.Namespace) -> tuple[Any, Any]:
    """The CrawlConfig and Limits that `sitesift crawl` arguments ask for."""
    from sitesift.sitework import CrawlConfig

    cfg = CrawlConfig(
        method=args.method, params=_params(args.set), fallback=args.fallback,
        grouping=args.group_by, min_site_pages=args.min_site_pages, fit_sample=args.fit_sample,
        seed=args.seed, markdown=args.markdown, html=args.html,
        max_record_bytes=int(args.max_record_mb * 1024 * 1024), models=args.models,
        refit=args.refit)
    return cfg, _limits(args)


def cmd_crawl(args: argparse.Namespace) -> int:
    """Clean a crawl, one model per site; every input record is accounted for."""
    try:
        cfg, limits = crawl_settings(args)
        if args.engine == "spark":
            from sitesift.spark import local_session, run_spark

            spark = local_session(args.workers)
            try:
                summary = run_spark(spark, [str(Path(p).resolve()) for p in args.inputs],
                                    args.out, cfg, limits)
            finally:
                spark.stop()
        else:
            from sitesift.crawl import run_crawl

            summary = run_crawl(args.inputs, args.out, cfg, limits, fmt=args.format,
                                workers=args.workers, progress=not args.quiet,
                                keep_work=args.keep_work)
    except ValueError as exc:
        raise SystemExit(f"sitesift crawl: {exc}") from None
    print(f"sitesift crawl: {summary['records_in']} records in = {summary['results']} results "
          f"+ {summary['errors']} errors + {summary['skipped']} skipped; {summary['sites']} "
          f"sites -> {args.out}", file=sys.stderr)
    return 0 if summary["balanced"] else 1


def cmd_report(args: argparse.Namespace) -> int:
    """The visual report: pages as rendered with their noise shaded, text, F1, style trees."""
    from sitesift.report import build_report

    methods = list(dict.fromkeys(args.method or ["sst"]))
    params = _method_params(args.set, methods, "report")
    command = " ".join(["sitesift report", args.path, *(f"--method {m}" for m in methods),
                        *(f"--set {s}" for s in args.set), "--group-by", args.group_by,
                        *(f"--site {s}" for s in args.site), "--views", str(args.views),
                        "--out", args.out])
    report = build_report(Path(args.path), methods, Path(args.out), grouping=args.group_by,
                          sites=args.site, views=args.views, params=params,
                          progress=not args.quiet, command=command)
    print(f"sitesift report: {report.pages} pages, {report.sites} site groups, "
          f"{report.views} page views, {report.trees} style trees, {report.errors} errors "
          f"-> {report.out}", file=sys.stderr)
    print(f"open {report.index.resolve().as_uri()}")
    return 0


def cmd_mine(args: argparse.Namespace) -> int:
    """The SST paper's mining experiments: k-means and naive Bayes per representation."""
    from sitesift.mining import MineSettings, run_mine
    from sitesift.mining.corpus import DEFAULT_CLASSES
    from sitesift.mining.represent import DEFAULT
    from sitesift.mining.run import rerender

    if args.from_results:
        rerender(Path(args.out), plots=not args.no_plots)
        print(f"sitesift mine: {args.out}: tables and plots written again from results.json",
              file=sys.stderr)
        return 0
    if not args.dataset:
        raise SystemExit("sitesift mine: give a dataset folder (or --from-results)")

    def names(value: str | None, default: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(n.strip() for n in value.split(",") if n.strip()) if value else default

    options = [("--representations", args.representations), ("--classes", args.classes),
               ("--heldout", args.heldout if args.heldout != "misc" else None),
               ("--min-site-pages", args.min_site_pages if args.min_site_pages != 5 else None),
               ("--folds", args.folds if args.folds != 5 else None),
               ("--cluster-on", args.cluster_on if args.cluster_on != "universities" else None),
               ("--init", args.init if args.init != "random" else None),
               ("--workers", args.workers if args.workers != 1 else None)]
    command = " ".join(["sitesift mine", args.dataset, "--out", args.out, "--runs",
                        str(args.runs), *(f"{k} {v}" for k, v in options if v is not None)])
    settings = MineSettings(
        runs=args.runs, classes=names(args.classes, DEFAULT_CLASSES),
        representations=names(args.representations, DEFAULT), heldout=args.heldout,
        min_site_pages=args.min_site_pages, folds=args.folds, cluster_on=args.cluster_on,
        init=args.init,
        workers=args.workers, cache_dir=Path(args.cache) if args.cache else None,
        progress=not args.quiet, plots=not args.no_plots)
    results = run_mine(Path(args.dataset), Path(args.out), settings, command=command)
    for check in results["checks"].values():
        print(f"sitesift mine: {check['what']}: {check['value']:+.3f} (aim >= "
              f"{check['aim']:+.2f}: {'met' if check['met'] else 'NOT met'})", file=sys.stderr)
    print(f"sitesift mine: {args.out}/clustering.md, classification.md, results.json"
          + ("" if args.no_plots else ", mining-*.png"), file=sys.stderr)
    return 0


def cmd_train_template(args: argparse.Namespace) -> int:
    """Rebuild the page-level template model (`--method isotonic`) from site-level labels."""
    from dataclasses import replace

    from sitesift.pagetemplate.labels import LabelParams
    from sitesift.pagetemplate.train import TrainParams, build

    corpora = tuple(c.strip() for c in args.corpora.split(",") if c.strip())
    params = TrainParams(corpora=corpora, pages_per_group=args.pages_per_group,
                         seed=args.seed, render=args.render,
                         labels=replace(LabelParams(), gold_content=args.gold_content))
    start = time.process_time()
    path, model = build(Path(args.datasets), Path(args.out), params,
                        progress=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    info = model.training
    print(f"sitesift train-template: {sum(info['pages'].values())} pages of {info['sites']} "
          f"sites, {info['nodes_template']} template and {info['nodes_content']} content "
          f"nodes, {time.process_time() - start:.0f} s CPU -> {path}", file=sys.stderr)
    return 0


def _unwritable(path: Path) -> str | None:
    """Why a file cannot be written at `path` (its folder is made if missing), or None."""
    if path.is_dir():
        return "is a folder"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make its folder: {exc.strerror or exc}"
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "not writable"
    return None


def cmd_train_default(args: argparse.Namespace) -> int:
    """Train the default cleaner's model on corpora with gold; with --folds, measure it on
    held-out sites first and write a held-out bundle for `sitesift bench`."""
    from sitesift.errors import ModelError
    from sitesift.extractor import model as extractor_model
    from sitesift.extractor.dataset import cached_corpus
    from sitesift.extractor.train import train_default

    weights = _params(args.corpus_weight, "--corpus-weight")
    names = {Path(d).name for d in args.datasets}
    for name, value in weights.items():
        if (not isinstance(value, int | float) or isinstance(value, bool) or not value > 0
                or name not in names):
            raise SystemExit(f"sitesift train-default: --corpus-weight {name}={value!r}: a "
                             "positive weight for one of the corpora given")
    if not 0.0 <= args.corpus_balance <= 1.0:
        raise SystemExit("sitesift train-default: --corpus-balance takes 0 to 1")
    if not 1 <= args.stage2_members <= 20:
        raise SystemExit("sitesift train-default: --stage2-members takes 1 to 20")
    if args.by_corpus and len(names) < 2:
        raise SystemExit("sitesift train-default: --by-corpus needs two corpora or more")
    if not 1 <= args.seeds <= 10:
        raise SystemExit("sitesift train-default: --seeds takes 1 to 10")
    try:
        combine = [extractor_model.load(path) for path in args.combine]
    except ModelError as exc:
        raise SystemExit(f"sitesift train-default: --combine {exc}") from None
    if any(not m.folds for b in combine for m in b.members):
        raise SystemExit("sitesift train-default: --combine takes held-out bundles "
                         "(train-default --folds K --heldout BUNDLE)")
    # Training takes many minutes: an output that cannot be written fails now, not then.
    for flag, path in (("--out", args.out), ("--heldout", args.heldout),
                       ("--report", args.report)):
        if path and (problem := _unwritable(Path(path))):
            raise SystemExit(f"sitesift train-default: {flag} {path}: {problem}")
    cache = Path(args.cache) if args.cache else None
    corpora = [cached_corpus(Path(d), cache, rebuild=args.rebuild, workers=args.workers,
                             progress=not args.quiet) for d in args.datasets]
    start = time.process_time()
    try:
        summary = train_default(corpora, args.out, folds=args.folds, heldout=args.heldout,
                                seed=args.seed, seeds=args.seeds, corpus_weight=weights,
                                corpus_balance=args.corpus_balance,
                                stage2_members=args.stage2_members,
                                by_corpus=args.by_corpus, combine=combine)
    except ValueError as exc:  # a combined bundle that never saw these corpora's sites
        raise SystemExit(f"sitesift train-default: {exc}") from None
    if args.report:
        Path(args.report).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    measured = [(f"held-out sites, {preset}", row)
                for preset, row in summary.get("cross_validation", {}).items()]
    if "heldout_corpora" in summary:
        measured.append(("held-out corpora, balanced", summary["heldout_corpora"]))
    for title, row in measured:
        figures = ", ".join(f"{k.split('/', 1)[1]} {v:.3f}" for k, v in row.items()
                            if k.startswith("f1/") and "/" not in k[3:])
        print(f"{title} (p >= {row['threshold']}): {figures}")
    print(f"sitesift train-default: {summary['pages']} pages, {summary['blocks']} blocks, "
          f"{time.process_time() - start:.0f} s CPU -> {args.out}"
          + (f", held-out bundle {args.heldout}" if args.heldout else ""), file=sys.stderr)
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
    # Beside the tree: all text (the floor) and the default cleaner (what `clean` runs).
    rows = evaluate([SAMPLE_SITE], ["alltext", "sst", "default"])
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
    p.add_argument("--method", default="default", choices=methods,
                   help="default: the learned cleaner, site-aware (README, Methods)")
    p.add_argument("--group-by", default="site", choices=GROUPINGS)
    p.add_argument("--format", default="text", choices=sorted(FORMATS))
    p.add_argument("--out", required=True)
    p.add_argument("--model", help="a fitted model file to clean with, instead of fitting")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a method parameter, e.g. threshold=0.3")
    _add_limits(p)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_clean)

    p = sub.add_parser("fit", help="fit a site-level model on pages of one site")
    p.add_argument("path")
    p.add_argument("--method", default="sst", choices=methods)
    p.add_argument("--out", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    _add_limits(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("evaluate", help="token P/R/F1 of methods against gold text")
    p.add_argument("datasets", nargs="+")
    p.add_argument("--method", action="append", choices=methods)
    p.add_argument("--group-by", default="site", choices=GROUPINGS)
    p.add_argument("--min-site-pages", type=int, default=1)
    p.add_argument("--folds", type=int, default=1,
                   help="clean each page with a site model fitted on the other folds of its "
                        "site (pages the model never saw); 1 = fit on all pages")
    _add_method_set(p)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out")
    _add_limits(p)
    p.add_argument("--quiet", action="store_true")
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
    _add_method_set(p)
    p.add_argument("--workers", type=int, default=1,
                   help="processes for sitesift's methods (peers run in this one)")
    p.add_argument("--limit", type=int, help="only the first N pages with gold per corpus")
    p.add_argument("--out", required=True)
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--from-pages", action="store_true",
                   help="render summary.md and plots again from OUT/pages.jsonl, run nothing")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("gate", help="the CI gate: F1 floors on a fixed slice of the corpora")
    p.add_argument("--datasets", default=str(SHARED_DATASETS),
                   help="the shared corpora (default ../shared/datasets beside the checkout)")
    p.add_argument("--method", action="append", choices=methods,
                   help="check (or with --write: pin) this method too")
    p.add_argument("--write", action="store_true", help="measure and rewrite the floors")
    p.add_argument("--allow-lower", action="store_true", help="let --write lower a floor")
    p.add_argument("--reslice", action="store_true",
                   help="choose the slice again by its rule (changes its hash)")
    p.set_defaults(func=cmd_gate)

    p = sub.add_parser("crawl", help="clean a crawl (WARC, JSONL, folders), a model per site")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=".warc[.gz], .jsonl[.gz] of {url, html}, a folder or dataset folder")
    p.add_argument("--out", required=True, help="results, errors, summary; resumable")
    p.add_argument("--method", default="default", choices=methods,
                   help="default: the learned cleaner (what clean runs), fitted per site on "
                        "its --fit-sample to use the site's evidence (README, Crawls)")
    p.add_argument("--fallback", default="default", choices=methods,
                   help="cleans, unfitted, sites with fewer than --min-site-pages pages, pages "
                        "without a URL and sites whose fit failed: a page-level method, or "
                        "default (the default), which then cleans each page alone")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of --method, e.g. preset=precision (the fallback's too "
                        "when it is the same method)")
    p.add_argument("--format", default="jsonl", choices=("jsonl", "parquet"))
    p.add_argument("--group-by", default="domain", choices=("domain", "host"),
                   help="site = registrable domain (public suffix list) or host")
    p.add_argument("--min-site-pages", type=int, default=5,
                   help="smaller sites are cleaned by the --fallback (default 5)")
    p.add_argument("--fit-sample", type=int, default=50,
                   help="pages per site the model is fitted on (a seeded sample)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--markdown", action="store_true", help="add markdown to the results")
    p.add_argument("--html", action="store_true", help="add cleaned HTML to the results")
    p.add_argument("--models", help="model store folder: reuse stored site models, store new")
    p.add_argument("--refit", action="store_true", help="fit even where a model is stored")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    _add_limits(p)
    p.add_argument("--max-record-mb", type=float, default=16.0)
    p.add_argument("--engine", default="local", choices=("local", "spark"),
                   help="spark: a local Spark with --workers cores (Parquet out)")
    p.add_argument("--keep-work", action="store_true", help="keep OUT/work (spill, parts)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_crawl)

    p = sub.add_parser("report", help="an HTML report: pages as rendered with the noise "
                                      "shaded, cleaned text, F1, Site Style Tree explorer")
    p.add_argument("path", metavar="PAGES|DATASET",
                   help="a dataset folder, a folder of pages, or a list file")
    p.add_argument("--method", action="append", choices=methods,
                   help="a method to show (repeat to compare; default sst)")
    p.add_argument("--out", required=True, help="folder for index.html, pages/, sst/")
    p.add_argument("--group-by", default="site", choices=GROUPINGS)
    p.add_argument("--site", action="append", default=[], metavar="GROUP",
                   help="only this site group (repeatable)")
    p.add_argument("--views", type=int, default=30, metavar="N",
                   help="page views for the first N pages of each site (0: all); the "
                        "summary covers every page")
    _add_method_set(p)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("mine", help="k-means and naive Bayes on labelled pages, before and "
                                    "after cleaning (the SST paper's experiments)")
    p.add_argument("dataset", nargs="?",
                   help="a labelled dataset folder (index.jsonl with label, split)")
    p.add_argument("--out", required=True,
                   help="folder for clustering.md, classification.md, results.json, plots")
    p.add_argument("--runs", type=int, default=200, help="k-means runs per representation")
    p.add_argument("--representations", metavar="NAMES",
                   help="comma-separated: raw and method names (default: raw, alltext, "
                        "template, sst, cst, infodiscoverer, ibdf and the page-level methods)")
    p.add_argument("--classes", metavar="NAMES",
                   help="comma-separated page classes (default course,faculty,project,student)")
    p.add_argument("--heldout", default="misc",
                   help="the split tested on in configuration 3 (default misc)")
    p.add_argument("--min-site-pages", type=int, default=5,
                   help="smaller sites get all visible text instead of a site-level model")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (config 1)")
    p.add_argument("--cluster-on", default="universities", choices=("universities", "all"),
                   help="cluster the universities' pages (default) or all target pages")
    p.add_argument("--init", default="random", choices=("random", "k-means++"),
                   help="k-means initial centres: random pages (the paper's) or k-means++")
    p.add_argument("--cache", help="cleaned-text cache folder (default OUT/cache)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes for cleaning, threads for k-means")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--from-results", action="store_true",
                   help="write the tables and plots again from OUT/results.json, run nothing")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_mine)

    p = sub.add_parser("train-template",
                       help="rebuild the page-level template model (--method isotonic) "
                            "from site-level labels on site-grouped corpora")
    p.add_argument("--datasets", default=str(SHARED_DATASETS),
                   help="folder of the corpora (default ../shared/datasets)")
    p.add_argument("--corpora", default="big9,dragnet,cleanportaleval,swde-book",
                   help="comma-separated site-grouped corpora to train on")
    p.add_argument("--out", default=str(Path(__file__).parent / "data" / "pagetemplate.json"),
                   help="model file (default: the one shipped inside the package)")
    p.add_argument("--pages-per-group", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gold-content", type=float, default=None, metavar="SHARE",
                   help="keep a content label only where this share of the node is in the "
                        "gold text (uses hand-made gold; off by default)")
    p.add_argument("--render", action="store_true",
                   help="add rendered boxes to the features (needs Chromium)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_train_template)

    p = sub.add_parser("train-default",
                       help="train the default cleaner's model on corpora with gold text")
    p.add_argument("datasets", nargs="+", help="dataset folders (index.jsonl + pages/ + gold/)")
    p.add_argument("--out", required=True, help="model file to write (.json or .json.gz)")
    p.add_argument("--folds", type=int, default=0,
                   help="first measure by K-fold cross-validation over sites (every page "
                        "scored by models trained without its site); sets the presets")
    p.add_argument("--heldout", help="with --folds: also write a held-out bundle (each "
                   "known site scored by the fold models trained without it), for "
                   "SITESIFT_DEFAULT_MODEL=BUNDLE sitesift bench ... --methods default")
    p.add_argument("--by-corpus", action="store_true",
                   help="also measure each corpus with models trained on the other corpora "
                        "only (gold of other people and rules: a corpus never seen)")
    p.add_argument("--cache", help="folder for the labelled blocks of each corpus (reused "
                   "while the corpus folder and its files are unchanged)")
    p.add_argument("--corpus-weight", action="append", default=[], metavar="NAME=W",
                   help="a page of corpus NAME weighs W in training (default 1; repeatable)")
    p.add_argument("--corpus-balance", type=float, default=0.0, metavar="POWER",
                   help="weigh a corpus of n pages as n^(1-POWER) in all: 0 (default) every "
                        "page alike, 1 every corpus alike, 0.5 between")
    p.add_argument("--rebuild", action="store_true", help="rebuild cached corpora")
    p.add_argument("--report", help="write the training summary (JSON) here")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="a model of N members trained from seeds SEED, SEED+1, ... (their "
                        "probabilities averaged: less training-draw noise; N times the "
                        "training time; two members clean in 1.2-1.4x one's time; the "
                        "shipped model has two)")
    p.add_argument("--combine", nargs="+", default=[], metavar="BUNDLE",
                   help="instead of training, make one model of the members of these "
                        "held-out bundles (e.g. runs with other --seed on the same "
                        "corpora), its presets chosen on their mean held-out probabilities")
    p.add_argument("--stage2-members", type=int, default=3, metavar="N",
                   help="average N stage-2 forests fitted on different samples of the "
                        "training blocks (default 3; 1 is one forest, faster and noisier)")
    p.add_argument("--workers", type=int, default=1, help="processes building the corpora")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_train_default)

    p = sub.add_parser("demo", help="fit, clean and score the bundled sample site")
    p.add_argument("--out", default="sitesift-demo")
    p.set_defaults(func=cmd_demo)
    return parser


def _check_native(args: argparse.Namespace) -> None:
    """A command that runs the default cleaner (its core is native) is refused before any
    work where the core is not built, with what to do about it."""
    names: list[str] = []
    for key in ("method", "fallback"):
        value = getattr(args, key, None) or []
        names += [value] if isinstance(value, str) else list(value)
    if "default" in names or args.command in ("train-default", "demo"):
        from sitesift.native import core

        core()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _check_native(args)
        return int(args.func(args))
    except SitesiftError as exc:
        print(f"sitesift: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"sitesift: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
