"""Measuring the extractor's probabilities page by page, and choosing each preset's
threshold on held-out probabilities (`choose_thresholds`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sitesift.extractor import model as model_file
from sitesift.training.default.pool import Pool


def page_scores(pool: Pool, prob: np.ndarray, threshold: float | np.ndarray = 0.5,
                page_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Exact token P/R/F1 of every page's kept blocks (p >= threshold, a number or one cut
    per page of the pool) against its gold."""
    from sitesift.metrics import token_prf

    cuts = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (len(pool.pages),))
    out = []
    ids = range(len(pool.pages)) if page_ids is None else page_ids
    for i in ids:
        lo, hi = int(pool.bounds[i]), int(pool.bounds[i + 1])
        keep = [pool.texts[j] for j in range(lo, hi) if prob[j] >= cuts[i]]
        info = pool.pages[i]
        prf = token_prf("\n".join(keep), info["gold"])
        out.append({"corpus": info["corpus"], "id": info["id"],
                    "page_type": info.get("page_type"), "precision": prf.precision,
                    "recall": prf.recall, "f1": prf.f1})
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Mean F1 per corpus, and per wcxb page type (`wcxb/<type>`)."""
    return _means(rows, "f1", digits=None)


THRESHOLD_GRID = tuple(round(0.1 + 0.025 * i, 3) for i in range(33))  # 0.1 .. 0.9
BETAS = {"precision": 0.5, "balanced": 1.0, "recall": 2.0}


def page_max(pool: Pool, prob: np.ndarray) -> np.ndarray:
    """Each page's highest block probability (0 for a page without blocks)."""
    out = np.zeros(len(pool.pages))
    filled = np.diff(pool.bounds) > 0
    if filled.any():
        out[filled] = np.maximum.reduceat(prob, pool.bounds[:-1][filled].astype(np.int64))
    return out


def _group(row: dict[str, Any]) -> str:
    # a corpus whose pages carry a page type (wcxb) counts each type as a group of its own
    return f"{row['corpus']}/{row['page_type']}" if row.get("page_type") else row["corpus"]


def macro_f_beta(rows: list[dict[str, Any]], beta: float) -> float:
    """Each page's F-beta, averaged per group and the groups averaged alike."""
    per: dict[str, list[float]] = {}
    b2 = beta * beta
    for r in rows:
        p, rc = r["precision"], r["recall"]
        f = (1 + b2) * p * rc / (b2 * p + rc) if p + rc > 0 else 0.0
        per.setdefault(_group(r), []).append(f)
    return float(np.mean([np.mean(v) for v in per.values()]))


def choose_thresholds(pool: Pool, prob: np.ndarray, grid: Sequence[float] = THRESHOLD_GRID,
                      relative: float = model_file.RELATIVE) -> dict[str, Any]:
    """Per preset, the threshold of best F-beta (beta 0.5 / 1 / 2 for precision /
    balanced / recall), with each page cut as the cleaner cuts it (`model.page_cut`).

    Groups weigh the same whatever their size: a corpus, or each page type of a corpus
    whose pages carry one (wcxb's seven), since the cleaner must do well on every kind of
    page, not only on the most common one. Balanced is chosen first (the other presets'
    cuts scale with it on unsure pages). Returns the thresholds and the per-corpus (and
    per-type) mean F1, P and R at each."""
    top, sizes = page_max(pool, prob), np.diff(pool.bounds)
    balanced_rows = {t: page_scores(pool, prob, model_file.page_cut(t, top, t, relative,
                                                                    sizes))
                     for t in grid}
    balanced = max(grid, key=lambda t: macro_f_beta(balanced_rows[t], 1.0))
    table = {t: page_scores(pool, prob, model_file.page_cut(t, top, balanced, relative,
                                                            sizes))
             for t in grid if t != balanced}
    table[balanced] = balanced_rows[balanced]
    chosen = {preset: max(grid, key=lambda t, b=beta: macro_f_beta(table[t], b))  # type: ignore[misc]
              for preset, beta in BETAS.items() if preset != "balanced"}
    # Presets must keep their order even where the curves are flat.
    chosen = {"precision": max(chosen["precision"], balanced), "balanced": balanced,
              "recall": min(chosen["recall"], balanced)}
    report = {preset: _report(table[t], t) for preset, t in chosen.items()}
    return {"thresholds": chosen, "report": report}


def _report(rows: list[dict[str, Any]], threshold: float) -> dict[str, float]:
    """The threshold and the mean F1, P and R per corpus (and page type) of its rows."""
    return {"threshold": threshold, **{f"{metric}/{name}": value
                                       for metric in ("f1", "precision", "recall")
                                       for name, value in _means(rows, metric).items()}}


def _means(rows: list[dict[str, Any]], metric: str, digits: int | None = 4
           ) -> dict[str, float]:
    """Mean of `metric` per corpus and per page type (`corpus/type`)."""
    groups: dict[str, list[float]] = {}
    for r in rows:
        groups.setdefault(r["corpus"], []).append(r[metric])
        if r.get("page_type"):
            groups.setdefault(_group(r), []).append(r[metric])
    means = {k: float(np.mean(v)) for k, v in sorted(groups.items())}
    return means if digits is None else {k: round(v, digits) for k, v in means.items()}


def heldout_probabilities(pool: Pool, members: Sequence[model_file.Member]) -> np.ndarray:
    """Every block's probability as the cleaner gives it with a held-out bundle of these
    members: each member's forests trained without the page's site, the members' stage-2
    probabilities averaged. Every site of the pool must be in each member's folds."""
    for k, member in enumerate(members):
        unseen = {p["cv"] for p in pool.pages} - set(member.fold_of)
        if unseen:
            raise ValueError(f"held-out member {k + 1} was not trained on these pages' "
                             f"sites: {', '.join(sorted(unseen)[:5])}")
    out = np.zeros(len(pool.share))
    for i, info in enumerate(pool.pages):
        lo, hi = int(pool.bounds[i]), int(pool.bounds[i + 1])
        if hi > lo:
            out[lo:hi] = model_file.block_probability(
                members, info["cv"], pool.X[lo:hi].astype(np.float64), pool.ntok[lo:hi],
                pool.anc[lo:hi])
    return out
