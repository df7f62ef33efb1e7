"""Train the confidence model (`sitesift.confidence`) on held-out predictions, and measure it
with corpora held out.

    OMP_NUM_THREADS=1 python benchmarks/loco.py $C --cache cache --out loco --seeds 1
    OMP_NUM_THREADS=1 python -m sitesift.training.confidence $C --loco loco --cache cache \\
        --table conf-table.npz --report conf-report --out src/sitesift/data/confidence-v1.json.gz

Its pages are a `benchmarks/loco.py` run's: every block's probability from the default
model trained without the page's corpus (and none of its sites), with the site's evidence
from the page's site group as train-default reads it. Each page is cut by the core as the
cleaner cuts it, every rule at its default (`_native.verdicts_for`, as
`benchmarks/cut_loco.py`), at the balanced and precision presets; its real token F1 is that
extraction's against the gold, and its features are what the core read off that cleaning
(`_native.Page.confidence_features`) with the page's type and its site's pages
(`confidence.features`). `--table` keeps them (outside the repository: the data are never
copied into it).

`--report DIR`: per corpus held out, a confidence model trained on the other corpora alone
(its calibration fitted on their own held-out predictions, one corpus out at a time)
scores the held-out corpus's pages at the balanced preset: ECE (10 bins), Spearman with the
real F1, AUROC for F1 < 0.8 (report.md, report.json, a reliability diagram). `--out`:
the model of every page, calibrated on the predictions of every corpus held out in turn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitesift import __version__
from sitesift.bench.calibration import reliability, summary
from sitesift.confidence import FORMAT, FORMAT_VERSION, names
from sitesift.extractor.forest import Forest
from sitesift.sealed import write_document

PRESETS = ("balanced", "precision")
PARAMS: dict[str, Any] = {"max_iter": 100, "learning_rate": 0.05, "max_leaf_nodes": 4,
                          "min_samples_leaf": 40, "l2_regularization": 1.0}
"""The forest's settings: few, small trees (a page pays one walk of each), which carry
best to a corpus held out: 4 leaves beat 3, 8 and 16 on pooled Spearman and AUROC with
each corpus held out in turn (docs/confidence.md)."""


def heldout_probabilities(runs: Sequence[Path]) -> dict[tuple[str, str], np.ndarray]:
    """(corpus, page id) -> its blocks' held-out probabilities, from loco.py runs (one of
    every corpus, or runs of some corpora each, `--only`)."""
    out: dict[tuple[str, str], np.ndarray] = {}
    for run in runs:
        blocks = np.load(run / "blocks.npz")
        p2, bounds = blocks["p2"], blocks["bounds"]
        with open(run / "pages.jsonl", encoding="utf-8") as f:
            order = list(dict.fromkeys((r["corpus"], str(r["id"]))
                                       for r in map(json.loads, f)))
        if len(order) + 1 != len(bounds):
            raise SystemExit(f"{run}: its pages.jsonl and blocks.npz disagree")
        for i, key in enumerate(order):
            out[key] = p2[int(bounds[i]):int(bounds[i + 1])]
    return out


def read_table(datasets: Sequence[Path], runs: Sequence[Path],
               cache: Path) -> dict[str, np.ndarray]:
    """Per page and preset of the loco runs: the features, the real F1, corpus, id, preset."""
    from sitesift import page_type
    from sitesift._native import Cut, verdicts_for
    from sitesift.confidence import features
    from sitesift.datasets import gold_pages
    from sitesift.extractor import model as model_file
    from sitesift.methods.default import CONVENTIONS, read_page
    from sitesift.metrics import token_prf
    from sitesift.training.default.dataset import cached_corpus
    from sitesift.training.default.novelty import heldout_unlike
    from sitesift.training.default.pool import Pool

    conventions = {kind: values[0] for kind, values in CONVENTIONS.items()}
    thresholds = model_file.load(str(model_file.BUNDLED)).thresholds
    cuts = {p: Cut(float(thresholds[p]), float(thresholds["balanced"]), model_file.RELATIVE,
                   conventions) for p in PRESETS}
    held = heldout_probabilities(runs)
    pool = Pool.of([cached_corpus(Path(d), cache, progress=True) for d in datasets])
    unlike = heldout_unlike(pool)
    page_of = {(p["corpus"], str(p["id"])): i for i, p in enumerate(pool.pages)}
    sizes = Counter((p["corpus"], p["group"]) for p in pool.pages)
    out: dict[str, list[Any]] = {"X": [], "f1": [], "corpus": [], "id": [], "preset": [],
                                 "page_type": []}
    for root in datasets:
        corpus = Path(root).name
        for row, page, gold in gold_pages(Path(root)):
            i = page_of.get((corpus, str(row["id"])))
            got = held.get((corpus, str(row["id"])))
            if i is None or got is None:
                continue
            npage = read_page(page)
            prob = got.astype(float).tolist()
            group = sizes[(corpus, pool.pages[i]["group"])]
            kind, kind_score = page_type.classify(npage)
            texts = npage.texts
            for preset in PRESETS:
                kept = verdicts_for(npage, prob, cuts[preset], novel=bool(unlike[i]))
                text = "\n".join(t for t, k in zip(texts, kept, strict=True) if k)
                x = features(npage, group if group > 1 else 0, kind, kind_score)
                out["X"].append(x)
                out["f1"].append(token_prf(text, gold).f1)
                out["corpus"].append(corpus)
                out["id"].append(str(row["id"]))
                out["preset"].append(preset)
                out["page_type"].append(row.get("page_type") or "")
        print(f"{corpus}: {sum(1 for c in out['corpus'] if c == corpus) // 2} pages",
              file=sys.stderr)
    return {k: np.asarray(v, dtype=np.float64 if k in ("X", "f1") else str)
            for k, v in out.items()}


def weights(corpus: np.ndarray) -> np.ndarray:
    """Each corpus weighs the same in all (a corpus of 70 pages as one of 1,400)."""
    counts = Counter(corpus.tolist())
    mean = len(corpus) / len(counts)
    return np.asarray([mean / counts[c] for c in corpus.tolist()])


def fit(X: np.ndarray, y: np.ndarray, w: np.ndarray, seed: int = 0) -> Any:
    from sklearn.ensemble import HistGradientBoostingRegressor

    model = HistGradientBoostingRegressor(random_state=seed, early_stopping=False, **PARAMS)
    return model.fit(X, y, sample_weight=w)


def out_of_corpus(data: dict[str, np.ndarray], rows: np.ndarray, seed: int = 0) -> np.ndarray:
    """The forest's raw prediction of each of `rows` by a forest fitted on the other
    corpora among `rows` alone."""
    pred = np.zeros(len(rows))
    corpora = data["corpus"][rows]
    for name in dict.fromkeys(corpora.tolist()):
        test, train = rows[corpora == name], rows[corpora != name]
        model = fit(data["X"][train], data["f1"][train], weights(data["corpus"][train]), seed)
        pred[corpora == name] = model.predict(data["X"][test])
    return pred


def calibrator(raw: np.ndarray, f1: np.ndarray, w: np.ndarray) -> tuple[list[float], list[float]]:
    """The isotonic map from raw predictions to F1 (its knots), fitted on held-out ones."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    iso.fit(raw, f1, sample_weight=w)
    return [float(v) for v in iso.X_thresholds_], [float(v) for v in iso.y_thresholds_]


def apply(knots: tuple[list[float], list[float]], raw: np.ndarray) -> np.ndarray:
    return np.clip(np.interp(raw, knots[0], knots[1]), 0.0, 1.0)


def heldout(data: dict[str, np.ndarray], seed: int = 0) -> np.ndarray:
    """Per row: the confidence of a model that never saw its corpus, calibrated on the other
    corpora's own held-out predictions (`out_of_corpus` among them)."""
    conf = np.full(len(data["f1"]), np.nan)
    everything = np.arange(len(data["f1"]))
    for name in dict.fromkeys(data["corpus"].tolist()):
        _log(f"confidence held out: {name}")
        test = everything[data["corpus"] == name]
        train = everything[data["corpus"] != name]
        model = fit(data["X"][train], data["f1"][train], weights(data["corpus"][train]), seed)
        knots = calibrator(out_of_corpus(data, train, seed), data["f1"][train],
                           weights(data["corpus"][train]))
        conf[test] = apply(knots, model.predict(data["X"][test]))
    return conf


def report(data: dict[str, np.ndarray], conf: np.ndarray, out: Path, cpu: float) -> str:
    """report.md / report.json / reliability.png of the held-out confidences, balanced preset."""
    out.mkdir(parents=True, exist_ok=True)
    sel = data["preset"] == "balanced"
    figures: dict[str, Any] = {}
    for name in [*dict.fromkeys(data["corpus"][sel].tolist()), "all"]:
        rows = sel & ((data["corpus"] == name) if name != "all" else True)
        figures[name] = summary(conf[rows].tolist(), data["f1"][rows].tolist())
    pooled = reliability(conf[sel].tolist(), data["f1"][sel].tolist())
    lines = [f"Confidence with its corpus held out (balanced preset; {cpu:.0f} s CPU)", "",
             "| corpus held out | pages | mean F1 | F1 < 0.8 | mean confidence | ECE (10 bins) "
             "| Spearman | AUROC F1 < 0.8 |", "|---|---|---|---|---|---|---|---|"]
    for name, f in figures.items():
        cells = [f"{f[k]:.3f}" if f[k] is not None else "-"
                 for k in ("mean_f1", "bad_share", "mean_confidence", "ece", "spearman",
                           "auroc_bad")]
        lines.append(f"| {name} | {f['pages']} | " + " | ".join(cells) + " |")
    lines += ["", "Reliability (all corpora, each held out): bin, pages, mean confidence, "
              "mean F1", ""]
    lines += [f"- [{b['low']:.1f}, {b['high']:.1f}): {b['pages']} pages, "
              f"{b['confidence']:.3f} -> {b['f1']:.3f}" for b in pooled]
    text = "\n".join(lines) + "\n"
    (out / "report.md").write_text(text, "utf-8")
    (out / "report.json").write_text(json.dumps({"corpora": figures, "reliability": pooled},
                                                indent=1), "utf-8")
    try:
        from sitesift.bench.plots import reliability_diagram

        reliability_diagram(conf[sel].tolist(), data["f1"][sel].tolist(),
                            "confidence, corpora held out", out / "reliability.png")
    except ImportError:  # matplotlib absent: the figures stand without the picture
        pass
    return text


def _log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--loco", type=Path, nargs="+", required=True,
                        help="benchmarks/loco.py --out folders (all corpora, or --only runs)")
    parser.add_argument("--cache", type=Path, required=True, help="loco.py's --cache")
    parser.add_argument("--table", type=Path, help="keep the pages' features here (.npz)")
    parser.add_argument("--report", type=Path, help="write the held-out figures here")
    parser.add_argument("--out", type=Path, help="write the model trained on every page here")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.process_time()
    if args.table and args.table.is_file():
        got = np.load(args.table)
        data = {k: got[k] for k in got.files}
        if data["X"].shape[1] != len(names()):
            raise SystemExit(f"{args.table}: features of another sitesift; delete it")
    else:
        data = read_table(args.corpora, args.loco, args.cache)
        if args.table:
            np.savez_compressed(args.table, **data)  # type: ignore[arg-type]
    _log(f"{len(data['f1'])} rows, {len(names())} features")
    if args.report:
        conf = heldout(data, args.seed)
        print(report(data, conf, args.report, time.process_time() - start))
    if args.out:
        everything = np.arange(len(data["f1"]))
        w = weights(data["corpus"])
        model = fit(data["X"], data["f1"], w, args.seed)
        xs, ys = calibrator(out_of_corpus(data, everything, args.seed), data["f1"], w)
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "features": names(),
               "meta": {"sitesift_version": __version__, "params": PARAMS,
                        "pages": int((data["preset"] == "balanced").sum()),
                        "corpora": sorted(set(data["corpus"].tolist())),
                        "target": "token F1 of the default cleaner's extraction"},
               "forest": Forest.from_sklearn(model).to_dict(),
               "calibration": {"x": xs, "y": ys}}
        write_document(doc, args.out)
        _log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
