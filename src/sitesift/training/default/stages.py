"""Training the extractor and measuring it on sites it never saw.

Two stages of gradient-boosted trees (scikit-learn's HistGradientBoostingClassifier, then
exported to `forest.Forest`): stage 1 classifies each block from its own features; stage 2
sees those features plus the stage-1 probabilities around the block (`context`). Stage 2 is
trained on *out-of-fold* stage-1 probabilities (what stage 1 says about pages it did not
learn from), the only probabilities it will ever see at run time.

Every split keeps a whole site on one side: folds are drawn per site name (`cv_group`, the
same name across corpora), so a cross-validated figure is a figure on unseen sites.
`cross_validate` gives every block its probability from models trained without its site
(with the stage-2 training data made by an inner split of the training sites alone).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitesift.extractor.context import context_features
from sitesift.extractor.forest import Forest
from sitesift.training.default.pool import THIN, Pool, page_folds, thin

DEFAULT_PARAMS: dict[str, Any] = {
    "max_iter": 150, "learning_rate": 0.12, "max_leaf_nodes": 31, "min_samples_leaf": 20,
    "l2_regularization": 1.0, "max_bins": 255,
}


def fit_trees(X: np.ndarray, y: np.ndarray, w: np.ndarray,
              params: dict[str, Any] | None = None, seed: int = 0) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(**{**DEFAULT_PARAMS, **(params or {})},
                                           early_stopping=False, random_state=seed)
    # scikit-learn cannot bin a column without a single value (a feature no training page
    # has, e.g. `<details>` ancestors in old corpora); a constant there is never split on.
    empty = np.isnan(X).all(axis=0)
    if empty.any():
        X = X.copy()
        X[:, empty] = 0.0
    model.fit(X, y, sample_weight=w)
    return model


def stage2_matrix(pool: Pool, rows_pages: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """Stage-2 features of the given pages' blocks: own features plus context of `p1`
    (probabilities indexed like the pool's rows)."""
    parts = []
    for i in rows_pages:
        lo, hi = pool.bounds[i], pool.bounds[i + 1]
        ctx = context_features(p1[lo:hi], pool.ntok[lo:hi], pool.anc[lo:hi], pool.X[lo:hi])
        parts.append(np.hstack([pool.X[lo:hi], ctx]))
    return np.vstack(parts).astype(np.float32)


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def oof_stage1(pool: Pool, page_ids: np.ndarray, folds: np.ndarray, k: int,
               params: dict[str, Any] | None, p1: np.ndarray, thin_floor: float = THIN,
               target: np.ndarray | None = None) -> None:
    """Fill `p1` for the rows of `page_ids` with stage-1 probabilities from models trained
    on the other folds of `page_ids` (`folds` gives each page's fold), fitted as `fit_rows`
    fits (to the labels, or to `target`)."""
    w = pool.weights()
    for f in range(k):
        test = page_ids[folds[page_ids] == f]
        train = page_ids[folds[page_ids] != f]
        if len(test) == 0 or len(train) == 0:
            continue
        tr, te = pool.rows(train), pool.rows(test)
        tr, wt = thin(tr, w, thin_floor, f)
        model = fit_rows(pool, pool.X[tr], tr, wt, params, target)
        p1[te] = model.predict_proba(pool.X[te])[:, 1]


def fit_rows(pool: Pool, X: np.ndarray, rows: np.ndarray, w: np.ndarray,
             params: dict[str, Any] | None, target: np.ndarray | None) -> Any:
    """Trees on `X` (the features of the pool's `rows`), fitted to those rows' labels, or
    with `target` (probabilities indexed like the pool's rows) to those (`fit_soft`)."""
    if target is None:
        return fit_trees(X, pool.y[rows], w, params)
    return fit_soft(X, target[rows], w, params)


@dataclass(frozen=True)
class Averaged:
    """Stage-2 models fitted on different thinning draws of the same training rows, their
    raw scores averaged. One training run moves a page type's mean F1 by a few hundredths
    (which blocks the thinning keeps); the average of a few draws moves less. Exported as
    one `Forest.mean`, so a model file still holds one stage-2 forest."""

    members: tuple[Any, ...]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        raw = np.mean([m.decision_function(X) for m in self.members], axis=0)
        p = 1.0 / (1.0 + np.exp(-raw))
        return np.column_stack([1.0 - p, p])


def to_forest(model: Any) -> Forest:
    """The plain-array forest of a fitted stage (one model or an `Averaged` group)."""
    if isinstance(model, Averaged):
        return Forest.mean([Forest.from_sklearn(m) for m in model.members])
    return Forest.from_sklearn(model)


def train_two_stage(pool: Pool, page_ids: np.ndarray, *, inner_k: int = 3, seed: int = 0,
                    params1: dict[str, Any] | None = None,
                    params2: dict[str, Any] | None = None,
                    members: int = 1, thin_floor: float = THIN,
                    targets: tuple[np.ndarray, np.ndarray] | None = None
                    ) -> tuple[Any, Any]:
    """Stage 1 on the pages, stage 2 on their inner out-of-fold stage-1 probabilities
    (with `members` > 1, an `Averaged` stage 2: the first member on stage 1's draw of
    rows, the others on draws of their own). Fitted to the blocks' labels, or with
    `targets` to the two stages' probabilities (indexed like the pool's rows: `distil`)."""
    w = pool.weights()
    t1, t2 = targets if targets is not None else (None, None)
    rows = pool.rows(page_ids)
    inner = page_folds(pool, inner_k, seed + 1)
    p1 = np.full(len(pool.share), np.nan)
    oof_stage1(pool, page_ids, inner, inner_k, params1, p1, thin_floor, target=t1)
    kept, wk = thin(rows, w, thin_floor, seed)
    stage1 = fit_rows(pool, pool.X[kept], kept, wk, params1, t1)
    unscored = rows[np.isnan(p1[rows])]
    if len(unscored):
        # Too few sites for every inner fold to have training pages: those blocks get
        # stage 1's in-sample probabilities (optimistic, but stage 2 needs a context).
        _log(f"{len(unscored)} blocks without an out-of-fold stage-1 probability "
             "(too few sites); stage 2 sees in-sample ones there")
        p1[unscored] = stage1.predict_proba(pool.X[unscored])[:, 1]
    X2 = stage2_matrix(pool, page_ids, p1)
    position = np.full(len(pool.share), -1)
    position[rows] = np.arange(len(rows))
    fitted = []
    for member in range(max(members, 1)):
        if member:
            kept, wk = thin(rows, w, thin_floor, seed + 1000 * member)
        fitted.append(fit_rows(pool, X2[position[kept]], kept, wk, params2, t2))
    return stage1, fitted[0] if len(fitted) == 1 else Averaged(tuple(fitted))


def fit_soft(X: np.ndarray, target: np.ndarray, w: np.ndarray,
             params: dict[str, Any] | None = None) -> Any:
    """Trees fitted to soft labels in [0, 1]: the log loss against a target t is that of a
    positive copy of the row weighing w * t plus a negative copy weighing w * (1 - t), so a
    classifier learns the probabilities themselves rather than their rounding."""
    n = len(target)
    y = np.concatenate([np.ones(n, np.int8), np.zeros(n, np.int8)])
    weight = np.concatenate([w * target, w * (1.0 - target)])
    keep = weight > 0
    return fit_trees(np.vstack([X, X])[keep], y[keep], weight[keep], params)


@dataclass(frozen=True)
class Exported:
    """A stage read back from a model file (a `Forest`), scored as a fitted one is: the
    members of saved bundles can then teach (`distil`)."""

    forest: Forest

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = self.forest.proba(X)
        return np.column_stack([1.0 - p, p])


def distil(pool: Pool, page_ids: np.ndarray, teachers: Sequence[tuple[Any, Any]], *,
           inner_k: int = 3, params1: dict[str, Any] | None = None,
           params2: dict[str, Any] | None = None, seed: int = 0,
           thin_floor: float = THIN) -> tuple[Any, Any]:
    """One two-stage model (a student) that learns what several (the teachers, e.g. the
    members of several seeds) say about the pages they were trained on, in a fraction of
    their trees: its stage 1 learns the teachers' mean stage-1 probability of each block,
    its stage 2 their mean final probability, trained as `train_two_stage` trains (stage 2
    on the student's own out-of-fold stage-1 probabilities, the only kind it meets at run
    time)."""
    rows = pool.rows(page_ids)
    t1 = np.full(len(pool.share), np.nan)
    t2 = np.full(len(pool.share), np.nan)
    p1 = np.full(len(pool.share), np.nan)
    t1[rows], t2[rows] = 0.0, 0.0
    for stage1, stage2 in teachers:
        p1[rows] = stage1.predict_proba(pool.X[rows])[:, 1]
        t1[rows] += p1[rows]
        t2[rows] += stage2.predict_proba(stage2_matrix(pool, page_ids, p1))[:, 1]
    t1[rows] /= len(teachers)
    t2[rows] /= len(teachers)
    return train_two_stage(pool, page_ids, inner_k=inner_k, seed=seed, params1=params1,
                           params2=params2, thin_floor=thin_floor, targets=(t1, t2))


def cross_validate(pool: Pool, k: int = 5, *, seed: int = 0, inner_k: int = 3,
                   params1: dict[str, Any] | None = None,
                   params2: dict[str, Any] | None = None,
                   folds: np.ndarray | None = None, members: int = 1,
                   thin_floor: float = THIN
                   ) -> tuple[np.ndarray, np.ndarray, list[tuple[Any, Any]]]:
    """Stage-1 and stage-2 probabilities of every block from models trained without its
    site (or, with `folds`, without its fold: e.g. one fold per corpus), and each fold's
    pair of models."""
    if folds is None:
        folds = page_folds(pool, k, seed)
    k = int(folds.max()) + 1
    all_pages = np.arange(len(pool.pages))
    p1 = np.full(len(pool.share), np.nan)
    p2 = np.full(len(pool.share), np.nan)
    models = []
    for f in range(k):
        test = all_pages[folds == f]
        train = all_pages[folds != f]
        _log(f"fold {f + 1}/{k}: {len(train)} training pages, {len(test)} test pages")
        stage1, stage2 = train_two_stage(pool, train, inner_k=inner_k, seed=seed,
                                         params1=params1, params2=params2, members=members,
                                         thin_floor=thin_floor)
        models.append((stage1, stage2))
        _score(pool, test, stage1, stage2, p1, p2)
    return p1, p2, models


def _score(pool: Pool, test: np.ndarray, stage1: Any, stage2: Any, p1: np.ndarray,
           p2: np.ndarray) -> None:
    """Fill `p1` and `p2` for the rows of the `test` pages with the two stages' scores."""
    if len(test) == 0:
        return
    te = pool.rows(test)
    p1[te] = stage1.predict_proba(pool.X[te])[:, 1]
    p2[te] = stage2.predict_proba(stage2_matrix(pool, test, p1))[:, 1]


def without_corpus(pool: Pool, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The pages of corpus `name` and the pages a model may learn from to be measured on
    it: the other corpora's, less any site that corpus shares with them."""
    corpus = np.asarray([p["corpus"] for p in pool.pages])
    site = np.asarray([p["cv"] for p in pool.pages])
    test = np.flatnonzero(corpus == name)
    return test, np.flatnonzero((corpus != name) & ~np.isin(site, site[test]))


def heldout_corpora(pool: Pool, *, seed: int = 0, params1: dict[str, Any] | None = None,
                    params2: dict[str, Any] | None = None, members: int = 1,
                    thin_floor: float = THIN, only: list[str] | None = None) -> np.ndarray:
    """Stage-2 probabilities of every block from models trained on the *other* corpora
    alone (`without_corpus`): a corpus's figure is then one for gold written by other
    people, to other rules (what a corpus the model never saw looks like). `only`: those
    corpora alone are held out (the others' blocks stay NaN)."""
    p1 = np.full(len(pool.share), np.nan)
    p2 = np.full(len(pool.share), np.nan)
    for name in only or dict.fromkeys(p["corpus"] for p in pool.pages):
        test, train = without_corpus(pool, name)
        _log(f"held-out corpus {name}: {len(train)} training pages of the other corpora, "
             f"{len(test)} test pages")
        if len(train) == 0:
            continue
        stage1, stage2 = train_two_stage(pool, train, seed=seed, params1=params1,
                                         params2=params2, members=members,
                                         thin_floor=thin_floor)
        _score(pool, test, stage1, stage2, p1, p2)
    return p2
