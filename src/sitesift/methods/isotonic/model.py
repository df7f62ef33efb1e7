"""The templateness classifier: one logistic regression per node-size bucket.

The seed learns "separate classifiers for nodes of different sizes": a two-word menu entry
and a 2,000-word article body are told apart by different cues. Buckets are ranges of a
node's token count; each holds a standardisation (mean, scale) and a logistic regression
(coefficients, intercept) fitted by scikit-learn. Prediction is plain NumPy, so cleaning
never imports scikit-learn, and the state is JSON numbers, checked on load (names, shapes,
finite values) so a damaged or foreign model is refused with a reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sitesift.errors import ModelError

if TYPE_CHECKING:
    import numpy as np

MODEL_VERSION = 1
CLIP = 5.0
"""Standardised features are clipped to +-CLIP: a page unlike the training pages (a node
that is half of a tiny page, 20 standard deviations out) must not extrapolate the linear
score without bound."""
MAX_VALUE = 1e9
"""Largest magnitude of a stored number: a trained model's are below 100; bigger ones could
only overflow the scores to NaN."""
MAX_BUCKETS = 64
DEFAULT_EDGES = (4, 16, 64, 256)
"""Upper token counts of the size buckets (1-4, 5-16, 17-64, 65-256, more): powers of 4,
so each bucket spans a similar range of log size."""


@dataclass(slots=True)
class Linear:
    """One bucket: standardise, then a logistic regression."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    n_template: int = 0
    n_content: int = 0

    def standardise(self, X: np.ndarray) -> np.ndarray:
        import numpy as np
        return np.clip((X - self.mean) / self.scale, -CLIP, CLIP)

    def proba(self, X: np.ndarray) -> np.ndarray:
        import numpy as np
        z = self.standardise(X) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


@dataclass(slots=True)
class TemplateModel:
    """Bucketed logistic regressions over named features."""

    features: tuple[str, ...]
    edges: tuple[int, ...]
    buckets: list[Linear]
    training: dict[str, Any] = field(default_factory=dict)

    def bucket_of(self, tokens: np.ndarray) -> np.ndarray:
        import numpy as np
        return np.searchsorted(np.asarray(self.edges), tokens, side="left")

    def predict(self, X: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        """Templateness (probability of the template class) of each row."""
        import numpy as np
        if X.ndim != 2 or X.shape[1] != len(self.features):
            raise ValueError(f"expected {len(self.features)} feature columns, got {X.shape}")
        out = np.zeros(X.shape[0])
        which = self.bucket_of(tokens)
        for b, lin in enumerate(self.buckets):
            rows = which == b
            if rows.any():
                out[rows] = lin.proba(X[rows])
        return out

    @classmethod
    def fit(cls, X: np.ndarray, y: np.ndarray, tokens: np.ndarray, features: Sequence[str],
            edges: Sequence[int] = DEFAULT_EDGES, C: float = 1.0,
            sample_weight: np.ndarray | None = None, balanced: bool = True,
            training: dict[str, Any] | None = None) -> TemplateModel:
        """Fit one regression per bucket (labels 1 = template, 0 = content). A bucket with
        too few of either class borrows the regression fitted on every row."""
        import numpy as np
        from sklearn.linear_model import LogisticRegression

        def one(rows: np.ndarray) -> Linear:
            Xb, yb = X[rows], y[rows]
            wb = None if sample_weight is None else sample_weight[rows]
            mean = Xb.mean(axis=0)
            scale = Xb.std(axis=0)
            scale[scale < 1e-9] = 1.0
            # Newton steps to a tight tolerance reach the (unique, L2-regularised) optimum,
            # so a rebuild gives the same coefficients whatever the BLAS threads; lbfgs at
            # its default tolerance stopped up to 10 % short of it on coefficients.
            reg = LogisticRegression(C=C, class_weight="balanced" if balanced else None,
                                     solver="newton-cholesky", tol=1e-8, max_iter=200)
            reg.fit(np.clip((Xb - mean) / scale, -CLIP, CLIP), yb, sample_weight=wb)
            return Linear(mean, scale, reg.coef_[0].astype(np.float64),
                          float(reg.intercept_[0]), int((yb == 1).sum()), int((yb == 0).sum()))

        if X.shape[0] != y.shape[0] or X.shape[1] != len(features):
            raise ValueError("X, y and the feature names do not agree")
        if set(np.unique(y).tolist()) - {0, 1} or len(np.unique(y)) < 2:
            raise ValueError("labels must be 0 (content) and 1 (template), both present")
        everything = one(np.ones(len(y), dtype=bool))
        which = np.searchsorted(np.asarray(edges), tokens, side="left")
        buckets = []
        for b in range(len(edges) + 1):
            rows = which == b
            if min((y[rows] == 1).sum(), (y[rows] == 0).sum()) >= 20:
                buckets.append(one(rows))
            else:
                buckets.append(everything)
        return cls(tuple(features), tuple(int(e) for e in edges), buckets, dict(training or {}))

    def to_state(self) -> dict[str, Any]:
        return {
            "model_version": MODEL_VERSION,
            "features": list(self.features),
            "edges": list(self.edges),
            "buckets": [{
                "mean": _floats(b.mean), "scale": _floats(b.scale), "coef": _floats(b.coef),
                "intercept": float(b.intercept), "n_template": b.n_template,
                "n_content": b.n_content,
            } for b in self.buckets],
            "training": self.training,
        }

    @classmethod
    def from_state(cls, state: Any, expected: Sequence[str] | None = None) -> TemplateModel:
        """The model from `to_state()` output, validated; `expected` = the feature names this
        sitesift computes (a model naming others was made by another version)."""
        if not isinstance(state, dict):
            raise ModelError("template model state must be an object")
        version = state.get("model_version")
        if version != MODEL_VERSION:
            raise ModelError(f"template model version {version!r}; this sitesift reads "
                             f"version {MODEL_VERSION}")
        features = state.get("features")
        if (not isinstance(features, list) or not features
                or not all(isinstance(f, str) for f in features)
                or len(set(features)) != len(features)):
            raise ModelError("template model: 'features' must be a list of distinct names")
        if expected is not None and tuple(features) != tuple(expected):
            missing = sorted(set(expected) - set(features))
            extra = sorted(set(features) - set(expected))
            raise ModelError("template model: its features do not match this sitesift's "
                             f"(missing {missing[:5]}, unknown {extra[:5]}, or reordered)")
        edges = state.get("edges")
        if (not isinstance(edges, list) or len(edges) > MAX_BUCKETS
                or not all(_is_int(e) and 0 < e < 2**31 for e in edges)
                or edges != sorted(set(edges))):
            raise ModelError("template model: 'edges' must be increasing positive integers "
                             f"(at most {MAX_BUCKETS})")
        buckets = state.get("buckets")
        if not isinstance(buckets, list) or len(buckets) != len(edges) + 1:
            raise ModelError(f"template model: want {len(edges) + 1} buckets for "
                             f"{len(edges)} edges")
        dim = len(features)
        parsed = []
        for k, b in enumerate(buckets):
            if not isinstance(b, dict):
                raise ModelError(f"template model: bucket {k} is not an object")
            arrays = {}
            for name in ("mean", "scale", "coef"):
                arrays[name] = _vector(b.get(name), dim, f"bucket {k} {name}")
            if (arrays["scale"] <= 0).any():
                raise ModelError(f"template model: bucket {k} scale must be positive")
            intercept = b.get("intercept")
            if not isinstance(intercept, (int, float)) or isinstance(intercept, bool) \
                    or not abs(intercept) <= MAX_VALUE:
                raise ModelError(f"template model: bucket {k} intercept must be a number "
                                 f"within +-{MAX_VALUE:g}")
            counts = [b.get("n_template", 0), b.get("n_content", 0)]
            if not all(_is_int(c) and c >= 0 for c in counts):
                raise ModelError(f"template model: bucket {k} counts must be integers >= 0")
            parsed.append(Linear(arrays["mean"], arrays["scale"], arrays["coef"],
                                 float(intercept), counts[0], counts[1]))
        training = state.get("training", {})
        if not isinstance(training, dict):
            raise ModelError("template model: 'training' must be an object")
        return cls(tuple(features), tuple(edges), parsed, training)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _floats(arr: np.ndarray) -> list[float]:
    return [float(v) for v in arr]  # JSON keeps every bit: the loaded model is the trained one


def _vector(value: Any, dim: int, what: str) -> np.ndarray:
    import numpy as np
    if not isinstance(value, list) or len(value) != dim:
        raise ModelError(f"template model: {what} must be a list of {dim} numbers")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise ModelError(f"template model: {what} must hold numbers only")
    if not all(abs(v) <= MAX_VALUE for v in value):  # also refuses NaN and infinities
        raise ModelError(f"template model: {what} must be finite, within +-{MAX_VALUE:g}")
    return np.asarray(value, dtype=np.float64)
