"""`sitesift report`: the visual report of what each method removed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sitesift.cli.common import GROUPINGS, add_quiet
from sitesift.cli.settings import add_method_set, method_params


def add_parsers(sub: Any, methods: list[str]) -> None:
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
    add_method_set(p)
    add_quiet(p)
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """The visual report: pages as rendered with their noise shaded, text, F1, style trees."""
    from sitesift.jobs.grouping import Grouping
    from sitesift.jobs.run import RunSettings
    from sitesift.report import Scope, build_report

    methods = list(dict.fromkeys(args.method or ["sst"]))
    params = method_params(args.set, methods, "report")
    command = " ".join(["sitesift report", args.path, *(f"--method {m}" for m in methods),
                        *(f"--set {s}" for s in args.set), "--group-by", args.group_by,
                        *(f"--site {s}" for s in args.site), "--views", str(args.views),
                        "--out", args.out])
    scope = Scope(Grouping(args.group_by), tuple(args.site), args.views)
    report = build_report(Path(args.path), methods, Path(args.out), scope=scope, params=params,
                          run=RunSettings(progress=not args.quiet), command=command)
    print(f"sitesift report: {report.pages} pages, {report.sites} site groups, "
          f"{report.views} page views, {report.trees} style trees, {report.errors} errors "
          f"-> {report.out}", file=sys.stderr)
    print(f"open {report.index.resolve().as_uri()}")
    return 0
