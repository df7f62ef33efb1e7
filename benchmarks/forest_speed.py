"""CPU time of the default model's forests per page (native core).

    python benchmarks/forest_speed.py [DATASET] [--pages 150] [--repeats 5]

Reads the first pages of a corpus once and builds each member's inputs to both stages (the
block features, and those with the context features of stage 1's output), then times the
forests alone (`Forest.raw` of every member's two stages) over them, best of `--repeats`,
in CPU time: the figure to compare two builds of `native/src/model/forest.rs` by. What a page
costs in all its stages is `native_stages.py`'s.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from sitesift.datasets import load_page, read_index
from sitesift.extractor import model as model_file
from sitesift.extractor.features import page_features
from sitesift.extractor.model import context_features
from sitesift.methods.default import read_page


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", nargs="?", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared/datasets/wcxb")
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    model = model_file.load(model_file.BUNDLED)
    work = []  # per page and member: (stage 1, its input, stage 2, its input)
    pages = blocks = 0
    for row in read_index(args.dataset)[: args.pages]:
        try:
            X, ntok, anc = page_features(read_page(load_page(args.dataset, row)))
        except Exception:  # an unreadable page is not timed
            continue
        pages, blocks = pages + 1, blocks + len(X)
        for member in model.members:
            stage1, stage2 = member.forests(None)
            both = np.hstack([X, context_features(stage1.proba(X), ntok, anc, X)])
            work.append((stage1, X, stage2, both))
    best = float("inf")
    for _ in range(args.repeats):
        start = time.process_time()
        for stage1, X, stage2, both in work:
            stage1.raw(X)
            stage2.raw(both)
        best = min(best, time.process_time() - start)
    print(f"forests: {best / pages * 1e6:.0f} µs per page, {best / blocks * 1e6:.2f} µs per "
          f"block ({pages} pages, {blocks} blocks, best of {args.repeats})")


if __name__ == "__main__":
    main()
