"""sitesift's page type beside rs-trafilatura's on the same pages, with wcxb's sites held out.

    python -m sitesift.training.page_type $D/wcxb ... --predictions heldout.jsonl
    python benchmarks/page_types.py $D/wcxb --predictions heldout.jsonl

`--predictions` holds each wcxb page's type by a model that never saw its site (the
training's `--predictions`: GroupKFold by site). rs-trafilatura (run under CPython 3.12,
`sitesift.bench.py312`) types the same pages two ways: by its classifier as it ships (an
XGBoost model its README says was trained on WCXB's dev split, these very pages: not held
out) and by its URL heuristics alone (nothing learnt). Prints each one's table: accuracy
per type, macro-F1, the confusion matrix. The figures: docs/page-type.md.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from sitesift.bench.py312 import Worker
from sitesift.datasets import load_page, read_index
from sitesift.page_type import names
from sitesift.training.page_type import table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--predictions", type=Path, required=True)
    args = parser.parse_args()
    ours = {}
    for line in args.predictions.read_text().splitlines():
        row = json.loads(line)
        ours[row["id"].split("/", 1)[1]] = row["predicted"]
    _, types = names()
    truth: dict[str, str] = {}
    theirs: dict[str, dict[str, str]] = {"classifier": {}, "url": {}}
    worker = Worker.start()
    try:
        for row in read_index(args.dataset):
            if row["id"] not in ours or not row.get("page_type"):
                continue
            page = load_page(args.dataset, row)
            truth[row["id"]] = row["page_type"]
            for way, asked in (("classifier", None), ("url", "url")):
                try:
                    _, kind = worker.typed(page.html, page.url, asked)
                except RuntimeError as exc:  # one page's error costs that page only
                    print(f"{row['id']} ({way}): {exc}")
                    kind = None
                theirs[way][row["id"]] = kind or "none"
    finally:
        worker.close()
    print(f"## sitesift, {args.dataset.name}'s sites held out\n\n{table(truth, ours, types)}\n")
    print(f"## rs-trafilatura {worker.version}, its classifier (trained on these pages)\n\n"
          f"{table(truth, theirs['classifier'], types)}\n")
    print(f"## rs-trafilatura {worker.version}, its URL heuristics alone\n\n"
          f"{table(truth, theirs['url'], types)}")


if __name__ == "__main__":
    main()
