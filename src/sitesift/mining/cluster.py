"""k-means clustering of pages, scored as in the Site Style Tree paper.

Every run is one k-means with k = number of classes from randomly chosen initial seeds
(the paper: "selects initial cluster seeds randomly ... a large number of experiments"),
over TF-IDF vectors. A run's F-score is the mean over classes of the class's F-score
against the cluster it is assigned to, under the one-to-one assignment of classes to
clusters that maximises that mean (Hungarian method, `scipy.optimize.linear_sum_assignment`).

Pages left without words (a page that cannot be parsed, or that a cleaner emptied) are not
clustered but still count in their class: they lower its recall. Clustering them would be
worse than wrong: a zero vector drawn as an initial centre is nearer to every unit-length
TF-IDF vector (distance 1) than unrelated pages are to each other (up to sqrt 2), so that
one centre captures nearly all pages and the run collapses into one cluster.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

F_LEVELS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
"""Fixed F levels of the table: the share of runs reaching each."""


def f_matrix(truth: Sequence[int], pred: Sequence[int], n_classes: int, n_clusters: int
             ) -> np.ndarray:
    """F[c, k] = 2 |c ∩ k| / (|c| + |k|): the F-score of cluster k taken as class c.
    A page predicted -1 is in no cluster but still counts in its class's size |c|."""
    t, p = np.asarray(truth, dtype=int), np.asarray(pred, dtype=int)
    table = np.zeros((n_classes, n_clusters))
    placed = p >= 0
    np.add.at(table, (t[placed], p[placed]), 1)
    class_sizes = np.bincount(t, minlength=n_classes)[:, None]
    sizes = class_sizes + table.sum(axis=0, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(sizes > 0, 2 * table / np.maximum(sizes, 1), 0.0)
    return f


def hungarian_f(truth: Sequence[int], pred: Sequence[int], n_classes: int,
                n_clusters: int | None = None) -> float:
    """Mean class F-score under the best one-to-one class-to-cluster assignment; a class
    left without a cluster (fewer clusters than classes) scores 0, a page predicted -1
    (not clustered) counts against its class's recall."""
    from scipy.optimize import linear_sum_assignment

    if len(truth) != len(pred):
        raise ValueError("truth and pred differ in length")
    if n_clusters is None:
        n_clusters = max(int(max(pred, default=0)) + 1, n_classes)
    f = f_matrix(truth, pred, n_classes, n_clusters)
    rows, cols = linear_sum_assignment(f, maximize=True)
    return float(f[rows, cols].sum() / n_classes)


def tfidf(counts: csr_matrix, min_df: int = 2) -> csr_matrix:
    """TF-IDF rows (l2-normalised) over the words found on at least `min_df` pages."""
    from sklearn.feature_extraction.text import TfidfTransformer

    df = np.asarray((counts > 0).sum(axis=0)).ravel()
    kept = counts[:, np.flatnonzero(df >= min_df)]
    if kept.shape[1] == 0:  # every page empty (a cleaner that kept nothing): no vectors
        return kept
    result: csr_matrix = TfidfTransformer().fit_transform(kept)
    return result


INITS = ("random", "k-means++")


class Runs(NamedTuple):
    scores: list[float]        # F of each run against the classes
    degenerate: int            # runs that found fewer distinct clusters than k
    site_scores: list[float]   # F of each run against the sites (when given)


def kmeans_runs(vectors: csr_matrix, truth: Sequence[int], n_classes: int, runs: int,
                first_seed: int = 0, init: str = "random",
                sites: Sequence[int] | None = None) -> Runs:
    """F-scores of `runs` seeded k-means runs (seed = first_seed + run), and how many runs
    found fewer distinct clusters than k (scikit-learn warns; such runs score as found).
    `init="random"` draws the initial centres from the pages (the paper's protocol);
    `"k-means++"` spreads them out (scikit-learn's default), as a robustness check.
    With `sites` (a site index per page), each run is also scored against the sites: the
    paper's point is that noise makes pages cluster by site rather than by class."""
    if init not in INITS:
        raise ValueError(f"init must be one of {', '.join(INITS)}, got {init!r}")
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    scores: list[float] = []
    site_scores: list[float] = []
    n_sites = max(sites, default=-1) + 1 if sites is not None else 0
    degenerate = 0
    filled = np.flatnonzero(np.diff(vectors.tocsr().indptr) > 0)  # pages with words
    pred = np.full(len(truth), -1)
    if len(filled) < n_classes:
        # too few pages with words for k clusters: those there are form one cluster
        pred[filled] = 0
        one = hungarian_f(truth, pred.tolist(), n_classes, n_classes)
        site_one = [hungarian_f(sites, pred.tolist(), n_sites, n_classes)] if sites else []
        return Runs([one] * runs, runs, site_one * runs)
    rows = vectors[filled]
    for run in range(runs):
        model = KMeans(n_clusters=n_classes, init=init, n_init=1, max_iter=300,
                       random_state=first_seed + run)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            pred[filled] = model.fit_predict(rows)
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            degenerate += 1
        scores.append(hungarian_f(truth, pred.tolist(), n_classes, n_classes))
        if sites is not None:
            site_scores.append(hungarian_f(sites, pred.tolist(), n_sites, n_classes))
    return Runs(scores, degenerate, site_scores)


def summarise(scores: Sequence[float], levels: Sequence[float] = F_LEVELS) -> dict[str, Any]:
    """Mean, median, spread and the share of runs at or above each fixed level."""
    if not scores:
        raise ValueError("no clustering runs to summarise")
    return {
        "runs": len(scores),
        "mean_f": statistics.fmean(scores),
        "median_f": statistics.median(scores),
        "std_f": statistics.pstdev(scores),
        "min_f": min(scores),
        "max_f": max(scores),
        "share_at_least": {f"{level:.1f}": sum(s >= level for s in scores) / len(scores)
                           for level in levels},
    }
