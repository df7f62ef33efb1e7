"""`sitesift mine`: the Site Style Tree paper's mining experiments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sitesift.cli.common import (
    UsageError,
    add_quiet,
)


def add_parsers(sub: Any, methods: list[str]) -> None:
    p = sub.add_parser("mine", help="k-means and naive Bayes on labelled pages, before and "
                                    "after cleaning (the SST paper's experiments)")
    p.add_argument("dataset", nargs="?",
                   help="a labelled dataset folder (index.jsonl with label, split)")
    p.add_argument("--out", required=True,
                   help="folder for clustering.md, classification.md, results.json, plots")
    p.add_argument("--paper", action="store_true",
                   help="the paper's experiment: --cluster-on all, --runs 400, random "
                        "centres, and its three NB configurations only (each can still be "
                        "set by its own flag)")
    p.add_argument("--runs", type=int, help="k-means runs per representation (default 200; "
                                            "--paper: 400)")
    p.add_argument("--configurations", metavar="NAMES",
                   help="comma-separated NB configurations (default all six, "
                        "docs/mining.md; --paper: the paper's three, "
                        "one-university-to-others, confounded-other-universities, "
                        "confounded-rest)")
    p.add_argument("--representations", metavar="NAMES",
                   help="comma-separated: raw and method names, METHOD@PRESET for a preset "
                        "(sst@paper) (default: raw, alltext, template, sst, cst, "
                        "infodiscoverer, ibdf and the page-level methods; --paper: raw, "
                        "alltext, template@paper, sst@paper)")
    p.add_argument("--classes", metavar="NAMES",
                   help="comma-separated page classes (default course,faculty,project,student)")
    p.add_argument("--heldout", default="misc",
                   help="the split tested on in configuration 3 (default misc)")
    p.add_argument("--min-site-pages", type=int, default=5,
                   help="smaller sites get all visible text instead of a site-level model")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (config 1)")
    p.add_argument("--cluster-on", choices=("universities", "all"),
                   help="cluster the universities' pages (default) or all target pages "
                        "(--paper)")
    p.add_argument("--init", choices=("random", "k-means++"),
                   help="k-means initial centres: random pages (the paper's) or k-means++")
    p.add_argument("--cache", help="cleaned-text cache folder (default OUT/cache)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes for cleaning, threads for k-means")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--from-results", action="store_true",
                   help="write the tables and plots again from OUT/results.json, run nothing")
    add_quiet(p)
    p.set_defaults(func=cmd_mine)


def cmd_mine(args: argparse.Namespace) -> int:
    """The SST paper's mining experiments: k-means and naive Bayes per representation."""
    from sitesift.mining import MineSettings, run_mine
    from sitesift.mining.corpus import DEFAULT_CLASSES
    from sitesift.mining.run import rerender

    if args.from_results:
        rerender(Path(args.out), plots=not args.no_plots)
        print(f"sitesift mine: {args.out}: tables and plots written again from results.json",
              file=sys.stderr)
        return 0
    if not args.dataset:
        raise UsageError("sitesift mine: give a dataset folder (or --from-results)")

    def names(value: str | None, default: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(n.strip() for n in value.split(",") if n.strip()) if value else default

    chosen = {"runs": args.runs, "cluster_on": args.cluster_on, "init": args.init,
              "configurations": names(args.configurations, ()) or None,
              "representations": names(args.representations, ()) or None}
    given = {k: v for k, v in chosen.items() if v is not None}
    base = dict(classes=names(args.classes, DEFAULT_CLASSES), heldout=args.heldout,
                min_site_pages=args.min_site_pages, folds=args.folds, workers=args.workers,
                cache_dir=Path(args.cache) if args.cache else None,
                progress=not args.quiet, plots=not args.no_plots)
    settings = (MineSettings.paper(**base, **given) if args.paper
                else MineSettings(**base, **given))
    options = [("--paper", "" if args.paper else None),
               ("--representations", args.representations), ("--classes", args.classes),
               ("--heldout", args.heldout if args.heldout != "misc" else None),
               ("--min-site-pages", args.min_site_pages if args.min_site_pages != 5 else None),
               ("--folds", args.folds if args.folds != 5 else None),
               ("--cluster-on", args.cluster_on), ("--init", args.init),
               ("--configurations", args.configurations),
               ("--workers", args.workers if args.workers != 1 else None)]
    command = " ".join(["sitesift mine", args.dataset, "--out", args.out, "--runs",
                        str(settings.runs),
                        *(f"{k} {v}".rstrip() for k, v in options if v is not None)])
    results = run_mine(Path(args.dataset), Path(args.out), settings, command=command)
    for check in results["checks"].values():
        print(f"sitesift mine: {check['what']}: {check['value']:+.3f} (aim >= "
              f"{check['aim']:+.2f}: {'met' if check['met'] else 'NOT met'})", file=sys.stderr)
    print(f"sitesift mine: {args.out}/clustering.md, classification.md, results.json"
          + ("" if args.no_plots else ", mining-*.png"), file=sys.stderr)
    return 0
