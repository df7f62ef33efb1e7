"""The confidence of every default-cleaner result: the predicted token F1 of the page's
extraction, in [0, 1], from what the cleaner already knows of it (issue 55).

The core hands over page-level figures it reads off its own cleaning of the page
(`native/src/clean/confidence.rs`: the blocks' probabilities and their margins to the page's cut,
how much is near the cut, the expected precision and recall the probabilities imply, which
rules decided blocks against the model, whether the page is unlike the training pages);
this module adds the page's type and probability (`sitesift.page_type`) and the site's
evidence (how many fitted pages, 0 for a lone page). A gradient-boosted forest predicts the
F1 from them and an isotonic map, fitted on held-out predictions, calibrates it. Both live
in one sealed JSON file (never pickle: `sitesift.sealed`), the forest evaluated by the
core's forest evaluator (`forest.rs`), as the cleaner's and the page type's forests are.
`training/confidence.py` trains it on leave-one-corpus-out predictions; docs/confidence.md
has its figures.

Methods other than the default cleaner have no block probabilities to read: their
results' confidence is None.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitesift.errors import ModelError
from sitesift.sealed import Kind, check_writer, file_reader, read_document

FORMAT = "sitesift-confidence"
FORMAT_VERSION = 1
MAX_BYTES = 16 * 1024 * 1024
CONFIDENCE_MODEL = Kind(FORMAT, "a sitesift confidence model", FORMAT_VERSION, {})
DEFAULT_MODEL = Path(__file__).with_name("data") / "confidence-v1.json.gz"
ENV = "SITESIFT_CONFIDENCE_MODEL"
"""A confidence model file to use instead of the bundled one."""
BAD_F1 = 0.8
"""A page under this token F1 is a bad extraction (the AUROC `sitesift bench` reports)."""


def names() -> list[str]:
    """The confidence model's features: the core's figures, then the site's evidence and
    the page's type (one column per type) and its probability."""
    from sitesift.native import core

    return [*core().confidence_names(), "log_evidence_pages",
            *(f"type_{t}" for t in _types()), "type_score"]


@functools.cache
def _types() -> tuple[str, ...]:
    from sitesift import page_type

    return tuple(page_type.names()[1])


def features(npage: Any, evidence_pages: int, kind: str | None,
             kind_score: float | None) -> list[float] | None:
    """The model's features of a page the core cleaned (`_native.Page`), None where it has
    not cleaned it."""
    figures = npage.confidence_features
    if not figures:
        return None
    return [*figures, math.log1p(max(0, evidence_pages)),
            *(1.0 if t == kind else 0.0 for t in _types()), float(kind_score or 0.0)]


@dataclass(frozen=True)
class ConfidenceModel:
    """A loaded confidence model: the forest (`_native.Forest`) and its calibration, an
    increasing piecewise-linear map from the forest's raw output to the F1 (`xs` -> `ys`)."""

    forest: Any
    n_features: int
    xs: tuple[float, ...]
    ys: tuple[float, ...]

    def raw(self, x: list[float]) -> float:
        out = self.forest.raw(struct.pack(f"{len(x)}d", *x), 1)
        return float(struct.unpack("d", out)[0])

    def calibrate(self, raw: float) -> float:
        xs, ys = self.xs, self.ys
        if raw <= xs[0]:
            return ys[0]
        if raw >= xs[-1]:
            return ys[-1]
        i = bisect.bisect_right(xs, raw)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y0 if x1 == x0 else y0 + (y1 - y0) * (raw - x0) / (x1 - x0)

    def predict(self, x: list[float]) -> float:
        """The calibrated predicted F1 of a page of these features, in [0, 1]."""
        if len(x) != self.n_features:
            raise ValueError(f"expected {self.n_features} confidence features, got {len(x)}")
        return min(1.0, max(0.0, self.calibrate(self.raw(x))))


def model_path() -> Path:
    return Path(os.environ.get(ENV) or DEFAULT_MODEL)


_IN_USE: dict[str, ConfidenceModel] = {}


def scorer() -> ConfidenceModel:
    """The confidence model in use, read once per process and model path
    (`$SITESIFT_CONFIDENCE_MODEL`, else the bundled file)."""
    name = os.environ.get(ENV) or ""
    held = _IN_USE.get(name)
    if held is None:
        held = _IN_USE[name] = load(model_path())
    return held


def estimate(npage: Any, evidence_pages: int, kind: str | None,
             kind_score: float | None) -> float | None:
    """The page's confidence (predicted token F1, to 4 places) after the core cleaned it;
    None where it has not."""
    x = features(npage, evidence_pages, kind, kind_score)
    if x is None:
        return None
    return round(scorer().predict(x), 4)


def _load(path: Path) -> ConfidenceModel:
    from sitesift.extractor.forest import raw_forest
    from sitesift.native import core

    doc = read_document(path, MAX_BYTES, CONFIDENCE_MODEL)
    want = names()
    if doc.get("features") != want:
        raise ModelError("its features are not this sitesift's confidence features "
                         "(retrain it: python -m sitesift.training.confidence)")
    meta = doc.get("meta")
    check_writer(meta.get("sitesift_version") if isinstance(meta, dict) else None, path)
    try:
        forest = core().Forest(raw_forest(doc.get("forest")))
    except (TypeError, ValueError, OverflowError) as exc:
        raise ModelError(f"bad forest: {exc}") from None
    except ModelError as exc:
        raise ModelError(f"bad forest: {exc}") from None
    try:  # a forest of other features than the file names fails here, not on a page
        forest.raw(struct.pack(f"{len(want)}d", *([0.0] * len(want))), 1)
    except ValueError as exc:
        raise ModelError(f"bad forest: {exc}") from None
    cal = doc.get("calibration")
    xs, ys = (cal.get("x"), cal.get("y")) if isinstance(cal, dict) else (None, None)
    if not (isinstance(xs, list) and isinstance(ys, list) and 2 <= len(xs) == len(ys)
            and all(_number(v) for v in [*xs, *ys])
            and all(a <= b for a, b in itertools.pairwise(xs))
            and all(0.0 <= v <= 1.0 for v in ys)):
        raise ModelError("'calibration' must be {'x': [...], 'y': [...]}: as many numbers, "
                         "x increasing, y in [0, 1], at least two")
    return ConfidenceModel(forest, len(want), tuple(map(float, xs)), tuple(map(float, ys)))


load = file_reader("confidence model", _load)
"""A confidence model file, checked (its seal, format, version, features, the forest's
arrays by the core, the calibration): a `ConfidenceModel`; every problem is a ModelError
naming the file."""


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


__all__ = ["BAD_F1", "CONFIDENCE_MODEL", "DEFAULT_MODEL", "ENV", "FORMAT", "FORMAT_VERSION",
           "ConfidenceModel", "estimate", "features", "load", "model_path", "names", "scorer"]
