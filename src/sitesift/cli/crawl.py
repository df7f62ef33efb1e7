"""`sitesift crawl`: a crawl (WARC, JSONL, folders) cleaned with one model per site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sitesift.cli.common import (
    OK,
    SOME_FAILED,
    UsageError,
    add_limits,
    add_quiet,
    add_workers,
    at_least,
    holding,
    limits,
    megabytes,
    out_folder,
    run_settings,
)
from sitesift.cli.fallback import add_fallback_below, fallback_routes
from sitesift.cli.settings import checked_cleaner, parse_set


def add_parsers(sub: Any, methods: list[str]) -> None:
    p = sub.add_parser("crawl", help="clean a crawl (WARC, JSONL, folders), a model per site")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=".warc[.gz], .jsonl[.gz] of {url, html}, a folder or dataset folder")
    p.add_argument("--out", required=True, help="results, errors, summary; resumable")
    p.add_argument("--method", default="default", choices=methods,
                   help="default: the learned cleaner (what clean runs), fitted per site on "
                        "its --fit-sample to use the site's evidence (docs/crawl.md)")
    p.add_argument("--fallback", default="default", choices=methods,
                   help="cleans, unfitted, sites with fewer than --min-site-pages pages, pages "
                        "without a URL and sites whose fit failed: a page-level method, or "
                        "default (the default), which then cleans each page alone")
    add_fallback_below(p, "the record names the first method and its confidence in "
                          "fallback_from and fallback_from_confidence")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of --method, e.g. preset=precision (the fallback's too "
                        "when it is the same method)")
    p.add_argument("--format", default="jsonl", choices=("jsonl", "parquet"))
    p.add_argument("--group-by", default="domain", choices=("domain", "host"),
                   help="site = registrable domain (public suffix list) or host")
    p.add_argument("--min-site-pages", type=at_least(1), default=5,
                   help="smaller sites are cleaned by the --fallback (default 5)")
    p.add_argument("--fit-sample", type=at_least(1), default=50,
                   help="pages per site the model is fitted on (a seeded sample)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--markdown", action="store_true", help="add markdown to the results")
    p.add_argument("--html", action="store_true", help="add cleaned HTML to the results")
    p.add_argument("--drop-duplicates", action="store_true",
                   help="leave out records whose text is the same as, or nearly the same as, "
                        "an earlier record's (each record names its first copy in dup_of "
                        "either way; docs/crawl.md)")
    p.add_argument("--metadata", action="store_true",
                   help="each record's metadata: what the page declares about itself (title, "
                        "author, date, site name, language, canonical URL, description), as "
                        "clean --metadata reads it")
    p.add_argument("--models", help="model store folder: reuse stored site models, store new")
    p.add_argument("--refit", action="store_true", help="fit even where a model is stored")
    p.add_argument("--lang", metavar="CODES",
                   help="only pages whose main text is in one of these languages (ISO 639-1 codes, "
                        "e.g. de,fr; detected from the text, not the page's declaration): "
                        "the others are counted as skipped (reason `language`)")
    add_workers(p)
    add_limits(p)
    p.add_argument("--max-record-mb", type=megabytes, default=16.0, metavar="MB",
                   help="a larger record is an error record (default %(default)g)")
    p.add_argument("--engine", default="local", choices=("local", "spark"),
                   help="spark: a local Spark with --workers cores (Parquet out)")
    p.add_argument("--keep-work", action="store_true", help="keep OUT/work (spill, parts)")
    add_quiet(p)
    p.set_defaults(func=cmd_crawl)


def crawl_settings(args: argparse.Namespace) -> tuple[Any, Any]:
    """The CrawlConfig and Limits that `sitesift crawl` arguments ask for."""
    from sitesift.language import parse_languages
    from sitesift.sitework import CrawlConfig

    languages = tuple(sorted(parse_languages(args.lang))) if args.lang is not None else ()
    cfg = CrawlConfig(
        method=args.method, params=parse_set(args.set), fallback=args.fallback,
        grouping=args.group_by, min_site_pages=args.min_site_pages, fit_sample=args.fit_sample,
        seed=args.seed, markdown=args.markdown, html=args.html,
        max_record_bytes=int(args.max_record_mb * 1024 * 1024), models=args.models,
        refit=args.refit, drop_duplicates=args.drop_duplicates, languages=languages,
        metadata=args.metadata, fallback_below=args.fallback_below)
    return cfg, limits(args)


def cmd_crawl(args: argparse.Namespace) -> int:
    """Clean a crawl, one model per site; every input record is accounted for."""
    params = parse_set(args.set, command="crawl")
    if args.lang is not None:  # a bad code is refused before any work (exit 2)
        from sitesift.language import parse_languages

        parse_languages(args.lang)
    fallback_routes("crawl", args, params)  # --fallback-below, refused before any work
    # settings refused before any record (the crawl always cleans in worker processes)
    checked_cleaner("crawl", args.method, params, workers=True)
    if args.fallback == args.method:
        checked_cleaner("crawl", args.fallback, params, workers=True)
    out_folder("crawl", args.out)  # a file, or a folder it cannot write in: refused now
    try:
        cfg, limits = crawl_settings(args)
        if args.engine == "spark":
            from sitesift.spark import local_session, run_spark

            with holding(Path(args.out), "crawl"):  # a local --out: the local job's lock
                spark = local_session(args.workers)
                try:
                    summary = run_spark(spark, [str(Path(p).resolve()) for p in args.inputs],
                                        args.out, cfg, limits)
                finally:
                    spark.stop()
        else:
            from sitesift.crawl import run_crawl

            summary = run_crawl(args.inputs, args.out, cfg, run=run_settings(args, limits),
                                fmt=args.format, keep_work=args.keep_work)
    except ValueError as exc:
        raise UsageError(f"sitesift crawl: {exc}") from None
    warned = summary.get("warnings") or {}
    copies = summary.get("duplicates") or {}
    dropped = copies.get("dropped", 0)
    print(f"sitesift crawl: {summary['records_in']} records in = {summary['results']} results "
          + (f"+ {dropped} copies left out " if dropped else "")
          + f"+ {summary['errors']} errors + {summary['skipped']} skipped; {summary['sites']} "
          f"sites -> {args.out}"
          + (f"; copies of earlier records: {copies.get('exact', 0)} exact, "
             f"{copies.get('near', 0)} near (dup_of)" if copies.get("exact") or copies.get("near")
             else "")
          + (f"; warnings: {warned.get('pages', 0)} pages, {warned.get('sites', 0)} site fits "
             f"(see results and sites.jsonl)" if any(warned.values()) else ""),
          file=sys.stderr)
    return OK if summary["balanced"] and not summary["errors"] else SOME_FAILED
