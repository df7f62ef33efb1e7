"""How the Site Style Tree's lost constants were chosen: sweeps on the site-grouped corpora.

    python benchmarks/sst_params.py [--out DIR] [--workers 2]

The seed's text lost three numbers: the noise threshold, the merging constants, and the
sample size (and the default of the local-noise threshold). Part 1 varies one parameter at a
time around the defaults and reports mean token F1 on big9 (grouped by site and year), the
dragnet sites with at least 5 pages, and cleanportaleval. Part 2 fixes the sample size: for
the largest sites of webkb and swde-book it fits trees on growing seeded samples and
measures how much the cleaned text of pages outside every sample still changes against a
tree fitted on all pages (token F1 between the two outputs): once that is flat, more pages
buy nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from sitesift.datasets import load_page, read_index
from sitesift.errors import InputError
from sitesift.evaluate import evaluate
from sitesift.jobs.grouping import Grouping, group_rows
from sitesift.jobs.run import RunSettings
from sitesift.methods.base import get_cleaner
from sitesift.metrics import token_prf

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
CORPORA = [("big9", "site,year", 1), ("dragnet", "site", 5), ("cleanportaleval", "site", 1)]
SWEEPS: dict[str, list[Any]] = {
    "threshold": [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
    "merge_similarity": [0.3, 0.4, 0.5, 0.6, 0.8],
    "cf_min_share": [0.3, 0.5, 0.7, 0.9],
    "local_threshold": [0.3, 0.4, 0.5, 0.6, 0.7],
    "merge": [False],
    "local_noise": [False],
    "align_unmatched": [None, 0.3, 0.7],
    "gamma": [0.5, 0.8, 0.95],
}


def f1_of(params: dict[str, Any], workers: int) -> dict[str, float]:
    out = {}
    for name, grouping, min_pages in CORPORA:
        rows = evaluate([SHARED / name], ["sst"], grouping=Grouping(grouping, min_pages),
                        run=RunSettings(workers), params={"sst": params})
        out[name] = statistics.fmean(r["f1"] for r in rows)
    return out


def sweep(workers: int) -> list[dict[str, Any]]:
    results = [{"param": "(defaults)", "value": "", **f1_of({}, workers)}]
    print(json.dumps(results[-1]), flush=True)
    for param, values in SWEEPS.items():
        for value in values:
            results.append({"param": param, "value": value, **f1_of({param: value}, workers)})
            print(json.dumps(results[-1]), flush=True)
    return results


def sample_size_curve(sizes: list[int]) -> list[dict[str, Any]]:
    rows_out = []
    for corpus in ("webkb", "swde-book"):
        root = SHARED / corpus
        groups = group_rows(read_index(root), "site")
        site, members = max(groups.items(), key=lambda kv: len(kv[1]))
        pages = []
        for row in members:
            try:
                pages.append(load_page(root, row))
            except InputError:
                continue
        held_out, pool = pages[:50], pages[50:]
        full = get_cleaner("sst", sample_size=len(pool)).fit(pool)
        reference = [full.clean(p, noise=False).text for p in held_out]
        for size in sizes:
            if size > len(pool):
                continue
            model = get_cleaner("sst", sample_size=size, seed=0).fit(pool)
            agree = [token_prf(model.clean(p, noise=False).text, ref).f1
                     for p, ref in zip(held_out, reference, strict=True)]
            rows_out.append({"corpus": corpus, "site": site, "pool": len(pool), "sample": size,
                             "agreement_f1": statistics.fmean(agree)})
            print(json.dumps(rows_out[-1]), flush=True)
    return rows_out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("bench-out/sst-params"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-sweep", action="store_true")
    args = ap.parse_args()
    if not all((SHARED / c / "index.jsonl").is_file() for c, _, _ in CORPORA):
        print(f"skipped: corpora not found under {SHARED}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    lines = ["# SST parameter sweeps", ""]
    if not args.skip_sweep:
        results = sweep(args.workers)
        lines += ["| parameter | value | big9 | dragnet (>=5) | cleanportaleval | mean |",
                  "|---|---|---|---|---|---|"]
        for r in results:
            mean = statistics.fmean(r[c] for c, _, _ in CORPORA)
            lines.append(f"| {r['param']} | {r['value']} | {r['big9']:.3f} | {r['dragnet']:.3f} "
                         f"| {r['cleanportaleval']:.3f} | {mean:.3f} |")
    curve = sample_size_curve([10, 25, 50, 100, 200, 400, 800])
    lines += ["", "| corpus | site | pool | sample | agreement F1 with a tree of the whole pool |",
              "|---|---|---|---|---|"]
    lines += [f"| {r['corpus']} | {r['site']} | {r['pool']} | {r['sample']} "
              f"| {r['agreement_f1']:.3f} |" for r in curve]
    (args.out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
