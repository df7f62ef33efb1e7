"""Where the default cleaner's time goes, stage by stage, in the native core (issue 27).

    python benchmarks/native_stages.py DATASET... [--limit N] [--site] [--set KIND=RULE]
        [--model FILE ...]

Times each stage of cleaning every page (parse, tree, blocks, reveal, page_type, site, features,
novelty, forests, render; `native/src/clean/pipeline.rs: stage_times`) with the shipped model and
prints, per corpus and over all pages, the median and mean microseconds of each stage and its
share of the total, so the next bottleneck is visible. Wall-clock time inside the core, one
page at a time on one thread (the page's decoding, and Python's share of a call, are not in
it). `--site` fits each site group's evidence first and times the site stage too. The page is
cut as the default cleaner cuts it (`DefaultCleaner.native_cut`) and the rules after the model
run as it runs them, every setting at its default (`--set notices=auto` and the like turn one
off, their work being in the render stage; `--set preset=precision` cuts at that preset).
`--model` (repeatable) times other model files: each page is cleaned by every model in turn
(which goes first rotates from page to page), so a busy machine slows them alike, and the
last table gives each model's per-page total over the first's (median, and the ratio of sums).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

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
                    help="a default-cleaner setting, as `sitesift clean --set` takes it")
    ap.add_argument("--model", action="append", type=Path, metavar="FILE",
                    help="a model file to time (repeatable; default: the bundled model)")
    args = ap.parse_args()
    sets = dict(s.split("=", 1) for s in args.set)
    paths = args.model or [model_file.BUNDLED]
    # (every file loaded, and a bad one refused, before any page is timed; each model cuts
    # as a cleaner with these settings and that model does)
    n = core()
    models = [model_file.load_scorer(p) for p in paths]
    cleaners = [n.Cleaner(m.native, _cut(p, sets)) for m, p in zip(models, paths, strict=True)]
    names = [p.name if len(paths) == 1 else f"{p.name} #{i + 1}" for i, p in enumerate(paths)]
    everything: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in names}
    for root in args.datasets:
        per: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in names}
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
                # (in turn, the first model first on one page and last on the next: the
                # model timed second finds the page's memory warm)
                order = list(range(len(models)))
                order = order[done % len(order):] + order[:done % len(order)]
                timed: dict[int, list[tuple[str, int]]] = {}
                try:
                    for i in order:
                        timed[i] = n.stage_times(
                            page.markup, cleaners[i], url=page.url,
                            evidence=evidence.native if evidence else None)
                except ValueError:
                    continue
                for i, name in enumerate(names):
                    times = timed[i]
                    total = 0.0
                    for stage, ns in times:
                        per[name][stage].append(ns / 1000)
                        everything[name][stage].append(ns / 1000)
                        total += ns / 1000
                    per[name]["total"].append(total)
                    everything[name]["total"].append(total)
                done += 1
        for name in names:
            _table(f"{root.name}, {name}" if len(names) > 1 else root.name, per[name])
    for name in names:
        _table(f"all, {name}" if len(names) > 1 else "all", everything[name])
    if len(names) > 1:
        _ratios(names, everything)


def _cut(path: Path, sets: dict[str, str]) -> Any:
    """The cut of the default cleaner with settings `sets` and the model at `path`."""
    cleaner = get_cleaner("default", **{**sets, "model": str(path)})
    assert isinstance(cleaner, DefaultCleaner)
    return cleaner.native_cut()


def _ratios(names: list[str], everything: dict[str, dict[str, list[float]]]) -> None:
    """Each model's per-page total time over the first model's, on the same pages."""
    first = everything[names[0]]["total"]
    print(f"\nper-page total over {names[0]}'s")
    print("| model | median ratio | ratio of sums |")
    print("|---|---|---|")
    for name in names[1:]:
        totals = everything[name]["total"]
        ratios = [b / a for a, b in zip(first, totals, strict=True) if a > 0]
        print(f"| {name} | {statistics.median(ratios):.3f} | {sum(totals) / sum(first):.3f} |")


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
