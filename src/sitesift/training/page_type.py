"""Train the page-type model (`sitesift.page_type`) and measure it with the sites held out.

    OMP_NUM_THREADS=1 python -m sitesift.training.page_type $D/wcxb $D/big9 $D/dragnet \\
        $D/l3s-gn1 $D/chaos $D/readability $D/swde-book --cache pt-features.npz \\
        --report --out src/sitesift/data/page-type-v1.json.gz

Labels: a corpus whose index rows carry `page_type` (wcxb) gives each page its own; the
others are articles unless their index labels them otherwise (`LABELS`: swde-book's `book`
pages are products). Corpora whose pages are neither articles nor labelled with one of
the types (cleaneval's mixed pages, webkb's 1997 university pages) are not passed.

Every page's evidence is the core's (`_native.Page.page_type_features`, the features the
cleaner reads); `--cache` keeps them across runs (outside the repository: the data are
never copied into it). The other corpora weigh `OTHER_SITE_PAGES` pages a site at most,
so a shop of 300 pages of one template teaches no more than a few of them.

`--report`: the wcxb pages scored by models that never saw their site (GroupKFold by site,
the other corpora always in training): accuracy, per type, the confusion matrix and
macro-F1. docs/page-type.md has the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitesift import __version__
from sitesift.datasets import load_page, read_index
from sitesift.errors import SitesiftError
from sitesift.extractor.forest import Forest
from sitesift.page_type import FORMAT, FORMAT_VERSION, names
from sitesift.sealed import write_document

LABELS = {"book": "product"}
"""Index labels of other corpora that name a page type (swde-book's book pages)."""
OTHER_SITE_PAGES = 3.0
"""The most a site of a corpus without page types weighs, in pages."""
PARAMS: dict[str, Any] = {"max_iter": 60, "learning_rate": 0.15, "max_leaf_nodes": 8,
                          "min_samples_leaf": 8, "l2_regularization": 1.0}
"""The forests' settings: shallow trees, few of them (one per type and iteration)."""
FOLDS = 5


def page_label(row: dict[str, Any]) -> str | None:
    """The page's type as its index gives it: its `page_type`, a `LABELS` label, or None
    (an article, unless the corpus has page types: `corpus_labels`)."""
    kind = row.get("page_type")
    if isinstance(kind, str) and kind:
        return kind
    label = row.get("label")
    return LABELS.get(label) if isinstance(label, str) else None


def read_corpus(root: Path) -> tuple[list[list[float]], list[str], list[str], list[str]]:
    """Each readable page's evidence, type, site and id; a page that cannot be read is
    named on stderr and passed over."""
    from sitesift.methods.default import read_page

    rows = read_index(root)
    typed = any(isinstance(r.get("page_type"), str) for r in rows)
    X, y, sites, ids = [], [], [], []
    for row in rows:
        label = page_label(row)
        if typed and label is None:
            continue
        try:
            page = load_page(root, row)
            x = read_page(page).page_type_features
        except SitesiftError as exc:
            print(f"skip {root.name}/{row['id']}: {exc}", file=sys.stderr)
            continue
        X.append(list(x))
        y.append(label or "article")
        sites.append(f"{root.name}/{row.get('site') or row.get('host') or row['id']}")
        ids.append(f"{root.name}/{row['id']}")
    return X, y, sites, ids


def read_corpora(roots: Sequence[Path], cache: Path | None) -> dict[str, np.ndarray]:
    """The evidence of every page of `roots` (from `cache` when it holds these corpora
    read with these features)."""
    feature_names, _ = names()
    key = np.asarray([str(r.resolve()) for r in roots] + feature_names)
    if cache is not None and cache.is_file():
        held = np.load(cache, allow_pickle=False)
        if held["key"].tolist() == key.tolist():
            return {k: held[k] for k in ("X", "y", "site", "id")}
    X: list[list[float]] = []
    y: list[str] = []
    sites: list[str] = []
    ids: list[str] = []
    for root in roots:
        t = time.process_time()
        a, b, c, d = read_corpus(root)
        X += a
        y += b
        sites += c
        ids += d
        print(f"read {root.name}: {len(a)} pages, {time.process_time() - t:.1f} s CPU",
              file=sys.stderr)
    out = {"X": np.asarray(X, dtype=np.float64), "y": np.asarray(y), "site": np.asarray(sites),
           "id": np.asarray(ids)}
    if cache is not None:
        np.savez_compressed(cache, key=key, X=out["X"], y=out["y"], site=out["site"],
                            id=out["id"])
    return out


def weights(ids: np.ndarray, sites: np.ndarray) -> np.ndarray:
    """1 for a typed corpus's page (wcxb's); a page of another corpus weighs 1, or
    `OTHER_SITE_PAGES` over its site's pages where the site has more."""
    per_site = Counter(sites.tolist())
    w = np.ones(len(ids))
    for i, (page, site) in enumerate(zip(ids, sites, strict=True)):
        if not page.startswith("wcxb/"):
            w[i] = min(1.0, OTHER_SITE_PAGES / per_site[site])
    return w


def fit(X: np.ndarray, y: np.ndarray, w: np.ndarray, seed: int = 0) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(random_state=seed, early_stopping=False, **PARAMS)
    return model.fit(X, y, sample_weight=w)


def export(model: Any) -> list[dict[str, Any]]:
    """The fitted classifier as one forest per type (`Forest.from_sklearn(klass=k)`), in
    the order of `names()`' types."""
    _, types = names()
    classes = [str(c) for c in model.classes_]
    if classes != types:
        raise ValueError(f"trained on types {classes}, not the seven {types}")
    return [Forest.from_sklearn(model, klass=k).to_dict() for k in range(len(types))]


def heldout(data: dict[str, np.ndarray], seed: int = 0) -> dict[str, str]:
    """Each wcxb page's type by a model that never saw its site: GroupKFold over wcxb's
    sites, the other corpora in every training."""
    from sklearn.model_selection import GroupKFold

    X, y, sites, ids = data["X"], data["y"], data["site"], data["id"]
    w = weights(ids, sites)
    typed = np.char.startswith(ids.astype(str), "wcxb/")
    inside = np.flatnonzero(typed)
    out: dict[str, str] = {}
    for _, test in GroupKFold(n_splits=FOLDS).split(inside, groups=sites[inside]):
        keep = np.ones(len(ids), dtype=bool)
        keep[inside[test]] = False
        model = fit(X[keep], y[keep], w[keep], seed)
        for i, p in zip(inside[test], model.predict(X[inside[test]]), strict=True):
            out[str(ids[i])] = str(p)
    return out


def table(truth: dict[str, str], predicted: dict[str, str], types: list[str]) -> str:
    """Markdown: accuracy per type and overall, macro-F1, and the confusion matrix (rows:
    the index's type, columns: the prediction)."""
    pages = [k for k in truth if k in predicted]
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for k in pages:
        confusion[truth[k]][predicted[k]] += 1
    lines = ["| type | pages | accuracy (recall) | precision | F1 |", "|---|---|---|---|---|"]
    f1s = []
    for t in types:
        n = sum(confusion[t].values())
        hit = confusion[t][t]
        said = sum(confusion[r][t] for r in types)
        recall = hit / n if n else 0.0
        precision = hit / said if said else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        f1s.append(f1)
        lines.append(f"| {t} | {n} | {recall:.3f} | {precision:.3f} | {f1:.3f} |")
    right = sum(confusion[t][t] for t in types)
    lines.append(f"| all | {len(pages)} | {right / max(len(pages), 1):.3f} | | "
                 f"macro {np.mean(f1s):.3f} |")
    lines += ["", "| index \\ predicted | " + " | ".join(types) + " |",
              "|---|" + "---|" * len(types)]
    lines += [f"| {t} | " + " | ".join(str(confusion[t][p]) for p in types) + " |"
              for t in types]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, help="write the model trained on every page here")
    parser.add_argument("--cache", type=Path, help="keep the pages' evidence here (.npz)")
    parser.add_argument("--report", action="store_true",
                        help="score wcxb with its sites held out (GroupKFold by site)")
    parser.add_argument("--predictions", type=Path,
                        help="write the held-out types as JSON lines {id, type, predicted}")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    data = read_corpora(args.corpora, args.cache)
    _, types = names()
    print(f"{len(data['y'])} pages: {dict(Counter(data['y'].tolist()))}", file=sys.stderr)
    if args.report or args.predictions:
        t = time.process_time()
        predicted = heldout(data, args.seed)
        truth = {str(i): str(c) for i, c in zip(data["id"], data["y"], strict=True)
                 if str(i) in predicted}
        print(f"wcxb, sites held out ({FOLDS} folds by site; "
              f"{time.process_time() - t:.0f} s CPU):\n")
        print(table(truth, predicted, types))
        if args.predictions:
            import json

            with args.predictions.open("w") as f:
                for k, p in predicted.items():
                    f.write(json.dumps({"id": k, "type": truth[k], "predicted": p}) + "\n")
    if args.out:
        model = fit(data["X"], data["y"], weights(data["id"], data["site"]), args.seed)
        typed = np.char.startswith(data["id"].astype(str), "wcxb/")
        if typed.any():  # as rs-trafilatura's classifier is scored on wcxb: in sample
            right = model.predict(data["X"][typed]) == data["y"][typed]
            print(f"wcxb in sample (the model written, on pages it trained on): "
                  f"{right.mean():.3f} of {int(typed.sum())}", file=sys.stderr)
        feature_names, _ = names()
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "features": feature_names,
               "types": types, "meta": {"sitesift_version": __version__, "params": PARAMS,
                                        "pages": len(data["y"]),
                                        "corpora": [r.name for r in args.corpora]},
               "forests": export(model)}
        write_document(doc, args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
