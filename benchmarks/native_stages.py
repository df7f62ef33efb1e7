"""Where the default cleaner's time goes, stage by stage, in the native core (issue 27).

    python benchmarks/native_stages.py DATASET... [--limit N] [--site] [--set KIND=RULE]

Times each stage of cleaning every page (parse, tree, blocks, reveal, site, features,
novelty, forests, render; `native/src/pipeline.rs: stage_times`) with the shipped model and prints,
per corpus and over all pages, the median and mean microseconds of each stage and its share
of the total, so the next bottleneck is visible. Wall-clock time inside the core, one page
at a time on one thread (the page's decoding, and Python's share of a call, are not in it).
`--site` fits each site group's evidence first and times the site stage too. The rules after
the model run as the cleaner runs them, every convention switch at its default (`--set
notices=auto` and the like turn one off; their work is in the render stage).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from sitesift.bench.runner import corpus_grouping
from sitesift.datasets import load_page
from sitesift.evaluate import dataset_groups
from sitesift.extractor import model as model_file
from sitesift.extractor.site import SiteEvidence
from sitesift.jobs.grouping import Grouping
from sitesift.methods.base import get_cleaner
from sitesift.methods.default import DefaultCleaner, read_page
from sitesift.native import core


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="+", type=Path)
    ap.add_argument("--limit", type=int, default=None, help="pages per corpus")
    ap.add_argument("--site", action="store_true", help="with each site group's evidence")
    ap.add_argument("--set", action="append", default=[], metavar="KIND=RULE",
                    help="a convention switch, as `sitesift clean --set` takes it")
    args = ap.parse_args()
    cleaner = get_cleaner("default", **dict(s.split("=", 1) for s in args.set))
    assert isinstance(cleaner, DefaultCleaner)
    model = model_file.load_scorer(model_file.BUNDLED)
    cut = {"threshold": model.thresholds["balanced"], "balanced": model.thresholds["balanced"],
           "relative": model_file.RELATIVE, "conventions": cleaner.conventions()}
    n = core()
    everything: dict[str, list[float]] = defaultdict(list)
    for root in args.datasets:
        per: dict[str, list[float]] = defaultdict(list)
        groups = dataset_groups(root, Grouping(corpus_grouping(root, "auto")))
        done = 0
        for members in groups.values():
            pages = []
            for s in members:
                try:
                    pages.append(load_page(root, s.row))
                except Exception:  # unreadable pages are not timed
                    continue
            evidence = (SiteEvidence.fit(read_page(p) for p in pages)
                        if args.site and len(pages) > 1 else None)
            for page in pages:
                if args.limit is not None and done >= args.limit:
                    break
                try:
                    times = n.stage_times(page.html, model.native, url=page.url,
                                          evidence=evidence.native if evidence else None, **cut)
                except ValueError:
                    continue
                total = 0.0
                for stage, ns in times:
                    per[stage].append(ns / 1000)
                    everything[stage].append(ns / 1000)
                    total += ns / 1000
                per["total"].append(total)
                everything["total"].append(total)
                done += 1
        _table(root.name, per)
    _table("all", everything)


def _table(name: str, per: dict[str, list[float]]) -> None:
    if not per:
        return
    total = sum(per["total"])
    print(f"\n{name}: {len(per['total'])} pages")
    print("| stage | median µs | mean µs | share |")
    print("|---|---|---|---|")
    for stage, values in per.items():
        share = sum(values) / total if total else 0.0
        print(f"| {stage} | {statistics.median(values):.0f} | {statistics.fmean(values):.0f} "
              f"| {share:.1%} |")


if __name__ == "__main__":
    main()
