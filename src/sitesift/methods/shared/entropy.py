"""InfoDiscoverer's information measures: the feature-document matrix, feature entropy,
block entropy and the greedy choice of the entropy threshold (Lin & Ho, KDD 2002).

A feature's weights over the n pages of a cluster, normalised to sum 1, are a distribution;
its entropy with log base n lies in [0, 1]: 0 for a feature of one page, 1 for a feature
spread evenly over every page (a template word). Per feature we keep S = sum_j w_j and
T = sum_j w_j ln w_j, which give H = (ln S - T / S) / ln n and let a page outside the
cluster be folded in exactly: S' = S + v, T' = T + v ln v over n + 1 pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


def fd_matrix(pages: Sequence[Counter[str]], binary: bool = False) -> tuple[list[str], Any]:
    """The feature-document matrix (features x pages, scipy.sparse CSR) and its row names.

    Entries are term frequencies (the paper's TF), or 1 for presence when `binary`."""
    import numpy as np
    from scipy.sparse import csr_matrix

    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for j, counts in enumerate(pages):
        for term, tf in counts.items():
            rows.append(vocab.setdefault(term, len(vocab)))
            cols.append(j)
            vals.append(1.0 if binary else float(tf))
    matrix = csr_matrix((vals, (rows, cols)), shape=(len(vocab), len(pages)), dtype=np.float64)
    return list(vocab), matrix


def entropy_stats(matrix: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per feature row: S = sum of weights, T = sum of w ln w."""
    import numpy as np
    sums = np.asarray(matrix.sum(axis=1)).ravel()
    xlogx = matrix.copy()
    xlogx.data = xlogx.data * np.log(xlogx.data)
    return sums, np.asarray(xlogx.sum(axis=1)).ravel()


def feature_entropy(sums: np.ndarray, xlogx: np.ndarray, n: int) -> np.ndarray:
    """H(F) = -sum_j p_j log_n p_j with p_j = w_j / S; all 0 when n < 2 (nothing to compare)."""
    import numpy as np
    if n < 2:
        return np.zeros_like(sums, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = (np.log(sums) - xlogx / sums) / np.log(n)
    return np.clip(np.nan_to_num(h), 0.0, 1.0)


def entropy_with_page(sums: np.ndarray, xlogx: np.ndarray, n: int,
                      weights: np.ndarray) -> np.ndarray:
    """Feature entropy over the n cluster pages plus one more page with `weights`."""
    import numpy as np
    safe = np.where(weights > 0, weights, 1.0)
    return feature_entropy(sums + weights, xlogx + weights * np.log(safe), n + 1)


def block_entropy(terms: Iterable[str], entropy: Mapping[str, float]) -> float | None:
    """H(CB) = the mean entropy of the block's distinct features (None: no features).

    Features the model never saw occur on this page only: entropy 0."""
    values = [entropy.get(t, 0.0) for t in terms]
    return sum(values) / len(values) if values else None


def threshold_steps(step: float) -> list[float]:
    """Candidate thresholds step, 2 step, ..., 1."""
    n = max(1, round(1.0 / step))
    return [round(min(1.0, (i + 1) * step), 6) for i in range(n)]


def greedy_threshold(steps: Sequence[float], counts: Sequence[int], plateau: float) -> float:
    """The paper's dynamic threshold: raise H0 step by step while the informative blocks
    keep gaining features; stop at the first step after which the count grows by less than
    `plateau` times itself (the informative blocks are in; what follows is the template,
    whose words recur everywhere), or not at all: `plateau` 0 stops at the first step
    that adds no feature. `counts[i]` is the number of distinct features in the blocks
    classified informative at `steps[i]`."""
    for i in range(len(steps) - 1):
        gain = counts[i + 1] - counts[i]
        if counts[i] > 0 and (gain < plateau * counts[i] or gain <= 0):
            return steps[i]
    return steps[-1] if steps else 1.0
