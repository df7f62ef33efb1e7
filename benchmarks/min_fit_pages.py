"""How many pages of a site each site-level method needs: `Cleaner.min_fit_pages`.

    python benchmarks/min_fit_pages.py [--methods sst,template,...] [--workers 2]

For every site of the site-grouped corpora with at least `--min-site` pages (big9 by site,
dragnet, cleanportaleval), a fixed seeded set of `--test` pages is held out; the method is
fitted on seeded samples of k of the other pages, k = 1, 2, 3, ..., and cleans the held-out
pages. The table gives the mean token F1 per k over all sites (and `alltext`, no cleaning at
all, as the floor), and how much of the gain from k = 1 to the largest k each k has reached.
A fit on fewer pages than a method's `min_fit_pages` warns (`WeakFitWarning`): the figures
here say where a method's output stops being mostly the fit's accident.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from sitesift.datasets import load_page, read_gold, read_index
from sitesift.errors import InputError
from sitesift.jobs.grouping import group_rows
from sitesift.methods.base import get_cleaner
from sitesift.metrics import token_prf

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
CORPORA = ("big9", "dragnet", "cleanportaleval")
METHODS = ("sst", "template", "cst", "ibdf", "infodiscoverer")
KS = (1, 2, 3, 4, 5, 6, 8, 12, 20)


def _site(job: tuple[str, list[dict[str, Any]], list[str], int, int]) -> dict[str, Any]:
    import warnings

    name, rows, methods, n_test, seed = job
    root = SHARED / name
    pages, golds = [], []
    for row in rows:
        gold = read_gold(root, row["id"])
        if gold is None:
            continue
        try:
            pages.append(load_page(root, row))
        except InputError:
            continue
        golds.append(gold)
    order = list(range(len(pages)))
    random.Random(f"{seed}:{rows[0].get('site')}").shuffle(order)
    test, pool = order[:n_test], order[n_test:]
    out: dict[str, Any] = {"alltext": statistics.fmean(
        token_prf(get_cleaner("alltext").clean(pages[i]).text, golds[i]).f1 for i in test)}
    for method in methods:
        for k in KS:
            if k > len(pool):
                break
            train = [pages[i] for i in pool[:k]]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = get_cleaner(method).fit(train)
            out[f"{method}:{k}"] = statistics.fmean(
                token_prf(model.clean(pages[i]).text, golds[i]).f1 for i in test)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--min-site", type=int, default=15, help="sites with this many pages")
    ap.add_argument("--test", type=int, default=5, help="held-out pages per site")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    methods = args.methods.split(",")
    jobs = []
    for name in CORPORA:
        for rows in group_rows(read_index(SHARED / name), "site").values():
            if len(rows) >= args.min_site:
                jobs.append((name, rows, methods, args.test, args.seed))
    with ProcessPoolExecutor(args.workers) as pool:
        sites = list(pool.map(_site, jobs))
    print(f"{len(sites)} sites with >= {args.min_site} pages; {args.test} held-out pages each")
    print(f"alltext (no cleaning): {statistics.fmean(s['alltext'] for s in sites):.3f}")
    print("method          " + "".join(f"{k:>7}" for k in KS))
    for method in methods:
        means = []
        for k in KS:
            got = [s[f"{method}:{k}"] for s in sites if f"{method}:{k}" in s]
            means.append(statistics.fmean(got) if len(got) == len(sites) else None)
        print(f"{method:<16}" + "".join(f"{m:7.3f}" if m is not None else "      -"
                                        for m in means))
        known = [m for m in means if m is not None]
        if len(known) > 1 and known[-1] != known[0]:
            share = [(m - known[0]) / (known[-1] - known[0]) for m in known]
            print(f"{'  gain reached':<16}" + "".join(f"{s:7.0%}" for s in share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
