"""Does VIPS's `min_gap` change what a preset keeps? Each page is rendered once and segmented
with `min_gap=None` (zero-thickness separators between touching blocks) and `min_gap=1`
(the paper's visible separators), under one preset; the report counts the pages whose leaf
blocks (box and DoC) or kept text differ, and the mean token F1 of both.

    python benchmarks/vips_min_gap.py /work/shared/datasets/cleanportaleval \
        /work/shared/datasets/big9 [--limit 40] [--preset paper]

The pages are the first `--limit` with gold in index order, as `sitesift bench --limit`
takes them. Needs Chromium (the renderer).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sitesift.bench.runner import first_ids
from sitesift.browser.chromium import render
from sitesift.datasets import load_page, read_gold, read_index
from sitesift.methods.base import get_cleaner
from sitesift.methods.vips import VIPSCleaner, segment
from sitesift.metrics import token_prf
from sitesift.page import Page
from sitesift.verdicts import KEEP, render_blocks

GAPS = {"none": None, "one pixel": 1.0}


def _run(page: Page, preset: str) -> dict[str, tuple[list[tuple[int, ...]], str]]:
    """For each gap: the leaf blocks (rounded box, DoC) and the kept text, one rendering."""
    out = {}
    rendering = None
    for name, gap in GAPS.items():
        cleaner = get_cleaner("vips", preset=preset, min_gap=gap)
        assert isinstance(cleaner, VIPSCleaner)
        if rendering is None:
            rendering = render(page, cleaner.params.render_options)
        tree = segment(page, rendering, cleaner.params)
        leaves = [(round(b.x0), round(b.y0), round(b.x1), round(b.y1), b.doc)
                  for b in tree.leaves()]
        cleaner.tree = lambda _page, t=tree: t  # type: ignore[method-assign]
        blocks = render_blocks(page.root, cleaner.score(page), KEEP, noise=False,
                               with_paths=False)
        out[name] = (leaves, "\n".join(b.text for b in blocks))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="+", type=Path)
    ap.add_argument("--limit", type=int, default=40)
    ap.add_argument("--preset", default="paper")
    args = ap.parse_args()
    for root in args.datasets:
        ids = first_ids(root, args.limit)
        rows = [r for r in read_index(root) if r["id"] in ids]
        segs = texts = 0
        f1 = {name: 0.0 for name in GAPS}
        for row in rows:
            page = load_page(root, row)
            gold = read_gold(root, row["id"]) or ""
            got = _run(page, args.preset)
            (leaves_a, text_a), (leaves_b, text_b) = got.values()
            segs += leaves_a != leaves_b
            texts += text_a != text_b
            for name, (_, text) in got.items():
                f1[name] += token_prf(text, gold).f1
        n = max(len(rows), 1)
        scores = ", ".join(f"{name} {total / n:.4f}" for name, total in f1.items())
        print(f"{root.name} (preset={args.preset}, {len(rows)} pages): leaf blocks differ on "
              f"{segs}, kept text on {texts}; mean token F1 {scores}")


if __name__ == "__main__":
    main()
