"""The cut and the conventions on held-out probabilities: a `benchmarks/loco.py` run's
block probabilities cut by the core as the cleaner cuts them, with its conventions (each
at the cleaner's default unless `--set` says otherwise).

    python benchmarks/cut_loco.py DATASET... --loco loco --out cut-records \\
        [--set records=auto ...] [--model MODEL | --thresholds JSON] [--cache cache]

A rule that works after the model (a convention, the cut) is judged under
leave-one-corpus-out without training again: `loco.py` wrote every block's held-out
probability (`blocks.npz`, in the order of train-default's cache, which the core reads
again here block for block). Writes `pages.jsonl` (per page and preset, as loco.py) and
prints the mean F1 per corpus (and wcxb page type) beside loco.py's own figures, so the
plain cut must agree with them.

With `--cache` (train-default's, as loco.py was given), each page is also told whether it is
unlike the training pages of the model that scored it (the other corpora's:
`training.default.novelty.heldout_unlike`), as the cleaner tells it from its model's
reference; without, no page is (rules such as `unseen=keep` then never act).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from sitesift._native import Cut, verdicts_for
from sitesift.datasets import gold_pages
from sitesift.extractor import model as model_file
from sitesift.methods.default import CONVENTIONS, read_page
from sitesift.metrics import token_prf
from sitesift.training.default.dataset import cached_corpus
from sitesift.training.default.novelty import heldout_unlike
from sitesift.training.default.pool import Pool

PRESETS = ("balanced", "precision")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--loco", required=True, help="a loco.py --out folder")
    parser.add_argument("--out", required=True)
    parser.add_argument("--set", action="append", default=[], metavar="KIND=RULE")
    parser.add_argument("--model", default=str(model_file.BUNDLED),
                        help="the model whose preset thresholds cut the probabilities")
    parser.add_argument("--thresholds", help="the presets' thresholds as JSON, in place of "
                        "--model's (as loco.py was given them)")
    parser.add_argument("--cache", help="train-default's cache folder: pages unlike their "
                        "model's training pages are told so")
    args = parser.parse_args()
    # the cleaner's own conventions, each `--set` over them (`--set KIND=auto` turns one off)
    conventions = {kind: values[0] for kind, values in CONVENTIONS.items()}
    conventions.update(s.split("=", 1) for s in args.set)
    thresholds = (json.loads(args.thresholds) if args.thresholds
                  else model_file.load(args.model).thresholds)
    cuts = {preset: Cut(float(thresholds[preset]), float(thresholds["balanced"]),
                        model_file.RELATIVE, conventions) for preset in PRESETS}
    loco = Path(args.loco)
    blocks = np.load(loco / "blocks.npz")
    p2, bounds = blocks["p2"], blocks["bounds"]
    with open(loco / "pages.jsonl", encoding="utf-8") as f:
        base = [json.loads(line) for line in f]
    order = list(dict.fromkeys((r["corpus"], r["id"]) for r in base))
    page_of = {key: i for i, key in enumerate(order)}
    roots = {Path(d).name: Path(d) for d in args.datasets}
    unlike = heldout_unlike_pages(args.datasets, Path(args.cache)) if args.cache else {}
    rows: list[dict[str, Any]] = []
    for corpus, root in roots.items():
        for row, page, gold in gold_pages(root):
            i = page_of.get((corpus, row["id"]))
            if i is None:
                continue
            npage = read_page(page)
            prob = p2[int(bounds[i]):int(bounds[i + 1])].astype(float).tolist()
            texts = npage.texts
            for preset in PRESETS:
                kept = verdicts_for(npage, prob, cuts[preset],
                                    novel=unlike.get((corpus, row["id"]), False))
                prf = token_prf("\n".join(t for t, k in zip(texts, kept, strict=True) if k), gold)
                rows.append({"corpus": corpus, "id": row["id"],
                             "page_type": row.get("page_type"), "preset": preset,
                             "precision": prf.precision, "recall": prf.recall, "f1": prf.f1})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "pages.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(compare(base, rows))


def heldout_unlike_pages(datasets: list[str], cache: Path) -> dict[tuple[str, str], bool]:
    """(corpus, page id) -> unlike the training pages of its leave-one-corpus-out model."""
    pool = Pool.of([cached_corpus(Path(d), cache, progress=True) for d in datasets])
    flags = heldout_unlike(pool)
    return {(p["corpus"], str(p["id"])): bool(f) for p, f in zip(pool.pages, flags, strict=True)}


def compare(base: list[dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    """Mean F1 per corpus and wcxb page type at the balanced preset: loco.py's, this run's."""
    def means(rs: list[dict[str, Any]]) -> dict[str, float]:
        per: dict[str, list[float]] = defaultdict(list)
        for r in rs:
            if r["preset"] != "balanced":
                continue
            per[r["corpus"]].append(r["f1"])
            if r.get("page_type"):
                per[f"{r['corpus']}:{r['page_type']}"].append(r["f1"])
        return {k: float(np.mean(v)) for k, v in per.items()}
    a, b = means(base), means(rows)
    lines = [f"{'group':28} {'loco':>7} {'here':>7} {'diff':>7}"]
    for k in sorted(b):
        lines.append(f"{k:28} {a.get(k, float('nan')):7.4f} {b[k]:7.4f} "
                     f"{b[k] - a.get(k, float('nan')):+7.4f}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
