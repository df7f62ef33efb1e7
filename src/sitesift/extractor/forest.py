"""Gradient-boosted trees as plain arrays: exported from scikit-learn, evaluated natively.

A fitted `HistGradientBoostingClassifier` (binary) is the sum of its trees' leaf values plus
a baseline, through the logistic function. Its trees are copied into flat arrays (every
tree's nodes one after another): split feature, threshold, which side a missing value
takes, children (global indices) and leaf values, so a model is plain JSON data and runs
without scikit-learn and without unpickling anything. `Forest.from_dict` checks every
array (lengths, types, index ranges, children after their parent so every path ends), so a
damaged or hostile model file is refused rather than evaluated.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitesift.errors import ModelError

if TYPE_CHECKING:
    import numpy as np

_BIG = sys.float_info.max  # float64's largest finite value


@dataclass(frozen=True)
class Forest:
    """Trees in flat arrays; `roots[t]` is tree t's first node."""

    n_features: int
    baseline: float
    roots: np.ndarray        # (trees,) int64
    feature: np.ndarray      # (nodes,) int64; -1 on leaves
    threshold: np.ndarray    # (nodes,) float64: go left when x <= threshold
    missing_left: np.ndarray  # (nodes,) bool: where NaN goes
    left: np.ndarray         # (nodes,) int64; a leaf points to itself
    right: np.ndarray        # (nodes,) int64
    value: np.ndarray        # (nodes,) float64: leaf values (0 on inner nodes)
    depth: int               # longest root-to-leaf path

    @classmethod
    def from_sklearn(cls, model: Any, klass: int | None = None) -> Forest:
        """From a fitted binary HistGradientBoostingClassifier (numeric features only); of
        a multiclass one, the trees of class number `klass` (its raw score: the softmax
        over every class's forest is the probability, `sitesift.page_type`)."""
        import numpy as np
        predictors = model._predictors
        if klass is None and any(len(p) != 1 for p in predictors):
            raise ValueError("only binary classifiers export (one tree per iteration)")
        k = klass or 0
        roots, feats, thrs, miss, lefts, rights, values = [], [], [], [], [], [], []
        offset = 0
        for trees in predictors:
            pred = trees[k]
            nodes = pred.nodes
            if np.any(nodes["is_categorical"]):
                raise ValueError("categorical splits do not export")
            leaf = nodes["is_leaf"].astype(bool)
            idx = np.arange(len(nodes))
            roots.append(offset)
            feats.append(np.where(leaf, -1, nodes["feature_idx"]).astype(np.int64))
            # A split of missing values from the rest has threshold +inf (every number goes
            # left); the largest float does the same and stays valid JSON.
            thr = np.where(leaf, 0.0, nodes["num_threshold"]).astype(np.float64)
            thrs.append(np.clip(thr, -_BIG, _BIG))
            miss.append(nodes["missing_go_to_left"].astype(bool) & ~leaf)
            lefts.append(np.where(leaf, idx, nodes["left"]).astype(np.int64) + offset)
            rights.append(np.where(leaf, idx, nodes["right"]).astype(np.int64) + offset)
            values.append(np.where(leaf, nodes["value"], 0.0).astype(np.float64))
            offset += len(nodes)
        baseline = float(np.asarray(model._baseline_prediction).ravel()[k])
        return cls._checked(int(model.n_features_in_), baseline, np.asarray(roots),
                            np.concatenate(feats), np.concatenate(thrs), np.concatenate(miss),
                            np.concatenate(lefts), np.concatenate(rights),
                            np.concatenate(values))

    @classmethod
    def _checked(cls, n_features: int, baseline: float, roots: np.ndarray, feature: np.ndarray,
                 threshold: np.ndarray, missing_left: np.ndarray, left: np.ndarray,
                 right: np.ndarray, value: np.ndarray) -> Forest:
        import numpy as np
        n = len(feature)
        if n == 0 or len(roots) == 0:
            raise ModelError("a forest needs trees")
        if not all(len(a) == n for a in (threshold, missing_left, left, right, value)):
            raise ModelError("forest arrays differ in length")
        if not (0 < n_features < 100_000) or not math.isfinite(baseline):
            raise ModelError("bad feature count or baseline")
        if not (np.all(np.isfinite(threshold)) and np.all(np.isfinite(value))):
            raise ModelError("non-finite threshold or leaf value")
        starts = np.sort(roots)
        if starts[0] != 0 or np.any(np.diff(starts) <= 0) or starts[-1] >= n:
            raise ModelError("tree roots out of order or out of range")
        ends = np.append(starts[1:], n)
        tree_end = np.repeat(ends, ends - starts)  # per node: the end of its tree
        idx = np.arange(n)
        leaf = feature < 0
        if np.any(feature >= n_features) or np.any(feature < -1):
            raise ModelError("split feature out of range")
        if np.any(leaf & ((left != idx) | (right != idx))):
            raise ModelError("a leaf must point to itself")
        inner = ~leaf
        for child in (left, right):  # children after their parent, inside its tree
            if np.any(inner & ((child <= idx) | (child >= tree_end))):
                raise ModelError("a child index points outside its tree or backwards")
        depth = _depth(left, right, leaf, roots)
        return cls(n_features, baseline, roots.astype(np.int64), feature.astype(np.int64),
                   threshold.astype(np.float64), missing_left.astype(bool),
                   left.astype(np.int64), right.astype(np.int64), value.astype(np.float64),
                   depth)

    @classmethod
    def mean(cls, forests: Sequence[Forest]) -> Forest:
        """One forest whose score is the mean of the given forests' scores (their trees
        side by side, leaf values and baselines divided by their number): an average of
        models trained on different samples, evaluated in one walk."""
        import numpy as np
        if not forests:
            raise ValueError("no forests to average")
        if len({f.n_features for f in forests}) != 1:
            raise ValueError("the forests take different numbers of features")
        n = len(forests)
        offsets = np.cumsum([0] + [len(f.feature) for f in forests[:-1]])
        return cls._checked(
            forests[0].n_features, sum(f.baseline for f in forests) / n,
            np.concatenate([f.roots + o for f, o in zip(forests, offsets, strict=True)]),
            np.concatenate([f.feature for f in forests]),
            np.concatenate([f.threshold for f in forests]),
            np.concatenate([f.missing_left for f in forests]),
            np.concatenate([f.left + o for f, o in zip(forests, offsets, strict=True)]),
            np.concatenate([f.right + o for f, o in zip(forests, offsets, strict=True)]),
            np.concatenate([f.value for f in forests]) / n)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_features": self.n_features, "baseline": self.baseline,
            "roots": self.roots.tolist(), "feature": self.feature.tolist(),
            "threshold": self.threshold.tolist(),
            "missing_left": self.missing_left.astype(int).tolist(),
            "left": self.left.tolist(), "right": self.right.tolist(),
            "value": self.value.tolist(),
        }

    @classmethod
    def from_dict(cls, doc: Any) -> Forest:
        import numpy as np
        if not isinstance(doc, dict):
            raise ModelError("a forest must be an object")
        try:
            arrays = {}
            for key, kind in (("roots", np.int64), ("feature", np.int64),
                              ("threshold", np.float64), ("missing_left", np.int64),
                              ("left", np.int64), ("right", np.int64), ("value", np.float64)):
                raw = doc[key]
                # exact types (JSON gives int and float only; a bool is not a number here),
                # compared as a set: a model holds hundreds of thousands of numbers
                types = set(map(type, raw)) if isinstance(raw, list) else set()
                if not isinstance(raw, list) or not types <= {int, float}:
                    raise ModelError(f"forest field {key!r} must be a list of numbers")
                if kind is np.int64 and float in types:
                    raise ModelError(f"forest field {key!r} must hold integers")
                try:
                    arrays[key] = np.asarray(raw, dtype=kind)
                except OverflowError:
                    raise ModelError(f"forest field {key!r} holds a number out of range"
                                     ) from None
            n_features, baseline = doc["n_features"], doc["baseline"]
        except KeyError as exc:
            raise ModelError(f"forest field {exc} missing") from None
        if not isinstance(n_features, int) or not isinstance(baseline, int | float):
            raise ModelError("bad n_features or baseline")
        if np.any((arrays["missing_left"] != 0) & (arrays["missing_left"] != 1)):
            raise ModelError("missing_left must be 0 or 1")
        return cls._checked(n_features, float(baseline), arrays["roots"], arrays["feature"],
                            arrays["threshold"], arrays["missing_left"].astype(bool),
                            arrays["left"], arrays["right"], arrays["value"])

    def native_args(self) -> dict[str, Any]:
        """The forest as the native core takes it (`_native.Forest`, `_native.Model`): its
        arrays by name."""
        return {"n_features": self.n_features, "baseline": self.baseline,
                "roots": self.roots.tolist(), "feature": self.feature.tolist(),
                "threshold": self.threshold.tolist(),
                "missing_left": self.missing_left.astype(int).tolist(),
                "left": self.left.tolist(), "right": self.right.tolist(),
                "value": self.value.tolist()}

    @functools.cached_property
    def _native(self) -> Any:
        from sitesift.native import core

        return core().Forest(self.native_args())

    def raw(self, X: np.ndarray) -> np.ndarray:
        """Sum of leaf values plus baseline per row of X (rows x n_features), evaluated by
        the native core, the one evaluation the cleaner and the training's scoring share."""
        import numpy as np
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"expected (rows, {self.n_features}) features, got {X.shape}")
        X = np.ascontiguousarray(X, dtype=np.float64)
        out = self._native.raw(X.tobytes(), X.shape[0])
        return np.frombuffer(out, dtype=np.float64).copy()

    def proba(self, X: np.ndarray) -> np.ndarray:
        import numpy as np
        return 1.0 / (1.0 + np.exp(-self.raw(X)))


def _depth(left: np.ndarray, right: np.ndarray, leaf: np.ndarray, roots: np.ndarray) -> int:
    """Longest root-to-leaf path (children come after parents, so one forward pass)."""
    import numpy as np
    depth = np.zeros(len(left), dtype=np.int64)
    for i in range(len(left)):  # forward: a parent's depth is final before its children
        if not leaf[i]:
            depth[left[i]] = depth[i] + 1
            depth[right[i]] = depth[i] + 1
    return int(depth.max())


_FOREST_LISTS = ("roots", "feature", "threshold", "missing_left", "left", "right", "value")


def raw_forest(doc: Any) -> dict[str, Any]:
    """A forest's JSON arrays as the native core takes them, by name (it checks their
    values)."""
    if not isinstance(doc, dict):
        raise ModelError("a forest must be an object")
    try:
        arrays = [doc[k] for k in _FOREST_LISTS]
        n_features, baseline = doc["n_features"], doc["baseline"]
    except KeyError as exc:
        raise ModelError(f"forest field {exc} missing") from None
    if not all(isinstance(a, list) for a in arrays):
        raise ModelError("forest fields must be lists of numbers")
    if (not isinstance(n_features, int) or isinstance(n_features, bool)
            or not isinstance(baseline, int | float) or isinstance(baseline, bool)):
        raise ModelError("bad n_features or baseline")
    return {"n_features": n_features, "baseline": float(baseline),
            **dict(zip(_FOREST_LISTS, arrays, strict=True))}
