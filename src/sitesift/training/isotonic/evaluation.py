"""Cross-site figures of the templateness classifier, with and without smoothing.

- node-level template detection: precision / recall / F of the TEMPLATE class, pooled
  over the nodes of every held-out page that have a label (site-level labels of the
  held-out site, or labels derived from its gold text);
- token F1 of the kept text against the gold text, computed from the scored tree's token
  spans (each token takes the label of the deepest scored node around it): the quick
  version of `sitesift evaluate` used to compare settings.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitesift.methods.isotonic.regression import smooth_tree
from sitesift.metrics import token_prf
from sitesift.training.isotonic.labels import TEMPLATE, UNLABELLED
from sitesift.training.isotonic.pipeline import PageData


@dataclass(frozen=True, slots=True)
class PRF:
    precision: float
    recall: float
    f1: float
    support: int

    @classmethod
    def of(cls, tp: int, fp: int, fn: int, support: int) -> PRF:
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        return cls(p, r, 2 * p * r / (p + r) if p + r else 0.0, support)


def weights_for(pg: PageData, weighting: str) -> np.ndarray | None:
    if weighting == "log-tokens":
        return 1.0 + np.log(np.maximum(pg.tokens, 1))
    if weighting == "tokens":
        return pg.tokens.astype(np.float64)
    return None


def smoothed(pages: Sequence[PageData], scores: Sequence[np.ndarray], c: float | None,
             weighting: str = "none") -> list[np.ndarray]:
    """Scores after smoothing with section cost c (None: the raw scores)."""
    if c is None:
        return list(scores)
    return [smooth_tree(pg.parents, x, c, weights_for(pg, weighting)).values if x.size else x
            for pg, x in zip(pages, scores, strict=True)]


def node_prf(pages: Sequence[PageData], scores: Sequence[np.ndarray], threshold: float = 0.5,
             truth: str = "site") -> PRF:
    """Template-class P/R/F over labelled nodes; truth 'site' or 'gold'."""
    tp = fp = fn = support = 0
    for pg, s in zip(pages, scores, strict=True):
        labels = pg.labels if truth == "site" else pg.gold_labels
        if labels is None:
            continue
        sel = labels != UNLABELLED
        pred = s[sel] >= threshold
        true = labels[sel] == TEMPLATE
        tp += int((pred & true).sum())
        fp += int((pred & ~true).sum())
        fn += int((~pred & true).sum())
        support += int(sel.sum())
    return PRF.of(tp, fp, fn, support)


def kept_tokens(pg: PageData, s: np.ndarray, threshold: float = 0.5) -> list[str]:
    """Tokens of the page outside template nodes (the deepest scored node decides)."""
    keep = np.ones(len(pg.page_tokens), dtype=bool)
    for j in range(len(s)):  # pre-order: deeper nodes paint over their ancestors
        keep[pg.start[j]:pg.end[j]] = s[j] < threshold
    return [t for t, k in zip(pg.page_tokens, keep.tolist(), strict=True) if k]


def token_f1(pages: Sequence[PageData], scores: Sequence[np.ndarray], threshold: float = 0.5
             ) -> dict[str, float]:
    """Mean token F1 of the kept text per corpus (pages with full gold text only)."""
    per: dict[str, list[float]] = {}
    for pg, s in zip(pages, scores, strict=True):
        if pg.gold is None:
            continue
        text = " ".join(kept_tokens(pg, s, threshold))
        per.setdefault(pg.corpus, []).append(token_prf(text, pg.gold).f1)
    return {k: statistics.fmean(v) for k, v in sorted(per.items())}


def label_counts(pages: Sequence[PageData]) -> Counter[str]:
    out: Counter[str] = Counter()
    for pg in pages:
        out["template"] += int((pg.labels == TEMPLATE).sum())
        out["content"] += int((pg.labels == 0).sum())
        out["unlabelled"] += int((pg.labels == UNLABELLED).sum())
    return out
