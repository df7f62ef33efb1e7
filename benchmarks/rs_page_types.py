"""What rs-trafilatura's page types are worth on a corpus whose index names each page's type.

    python benchmarks/rs_page_types.py DATASET [--limit N]

rs-trafilatura classifies a page into one of seven types (article, forum, product,
collection, listing, documentation, service) with an XGBoost model its crate's README says
was trained on 1,497 pages of those seven types, WCXB's dev split, which the shared wcxb
corpus is (1,476 of them, those with gold text), and then extracts with that type's
profile. This runs it four ways on every page: as it ships (its classifier), typed by its
URL heuristics alone (no learnt model), as an article whatever the page, and told the
index's own page type. It prints each way's mean token F1 per page type and how often its
classifier agrees with the index. The figures are in docs/lab/loco.md ("What rs-trafilatura's
lead on wcxb is made of").
"""
from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from sitesift.bench.py312 import Worker
from sitesift.datasets import gold_pages
from sitesift.metrics import token_prf

WAYS = {"classifier": None, "url": "url", "article": "article"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages")
    args = parser.parse_args()
    root = Path(args.dataset)
    if not root.is_dir():
        raise SystemExit(f"rs_page_types: no dataset at {root}")
    worker = Worker.start()
    f1: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    agree: dict[str, list[bool]] = defaultdict(list)
    try:
        for n, (row, page, gold) in enumerate(gold_pages(root)):
            if args.limit and n >= args.limit:
                break
            kind = row.get("page_type")
            if not kind:
                continue
            for way, asked in {**WAYS, "index's type": kind}.items():
                try:
                    text, used = worker.typed(page.html, page.url, asked)
                except RuntimeError as exc:  # one page's error costs that page only
                    print(f"{row['id']} ({way}): {exc}")
                    text, used = "", None
                f1[way][kind].append(token_prf(text, gold).f1)
                if way == "classifier":
                    agree[kind].append(used == kind)
    finally:
        worker.close()
    ways = list(f1)
    print(f"rs-trafilatura {worker.version} on {root.name}, mean token F1 per page type\n")
    print("| page type | pages | classifier agrees | " + " | ".join(ways) + " |")
    print("|---|---|---|" + "---|" * len(ways))
    for kind in sorted(agree):
        cells = " | ".join(f"{np.mean(f1[w][kind]):.3f}" for w in ways)
        print(f"| {kind} | {len(agree[kind])} | {np.mean(agree[kind]):.3f} | {cells} |")
    every = [a for k in agree for a in agree[k]]
    means = " | ".join(f"{np.mean([v for k in f1[w] for v in f1[w][k]]):.4f}" for w in ways)
    print(f"| all | {len(every)} | {np.mean(every):.3f} | {means} |")


if __name__ == "__main__":
    main()
