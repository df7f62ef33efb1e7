"""CPU time of the default model's forests and context features per page (native core).

    python benchmarks/forest_speed.py [DATASET] [--pages 150] [--repeats 5]

Reads the first pages of a corpus once (blocks and features), then times
`extractor.model.block_probability` (both stages of every member, the context between
them) over them, best of `--repeats`, in CPU time: the figure to compare two builds of
`native/src/forest.rs` by.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from sitesift.datasets import load_page, read_index
from sitesift.extractor import model as model_file
from sitesift.extractor.features import page_features
from sitesift.methods.default import read_page


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", nargs="?", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared/datasets/wcxb")
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    pages = []
    for row in read_index(args.dataset)[: args.pages]:
        try:
            pages.append(page_features(read_page(load_page(args.dataset, row))))
        except Exception:  # an unreadable page is not timed
            continue
    model = model_file.load(model_file.BUNDLED)
    best = float("inf")
    for _ in range(args.repeats):
        start = time.process_time()
        for X, ntok, anc in pages:
            model_file.block_probability(model.members, None, X, ntok, anc)
        best = min(best, time.process_time() - start)
    blocks = sum(len(X) for X, _, _ in pages)
    print(f"forests + context: {best / len(pages) * 1e6:.0f} µs per page, "
          f"{best / blocks * 1e6:.1f} µs per block ({len(pages)} pages, {blocks} blocks, "
          f"best of {args.repeats})")


if __name__ == "__main__":
    main()
