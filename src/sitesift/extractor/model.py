"""The extractor's model file: two forests, the preset thresholds, and what made them.

One JSON object (optionally gzipped): a format tag and version, the feature and context
names the forests were trained on (a model of another feature set is refused), the stage-1
and stage-2 forests (a stage 2 averaged over several fits is stored as one `Forest.mean`),
the decision thresholds of the presets, free-form training notes, all sealed by a SHA-256
of the file's bytes (`model_io.seal`), so a damaged or altered file is reported, never
used. Files of versions 1 and 2 carry a SHA-256 of the body's canonical JSON instead, and
are still read.

A *held-out bundle* (made for measurement by `sitesift train-default --folds K`) carries, in
addition, one pair of forests per fold and the fold of every site seen in training: a page
of a known site is then scored by the forests trained without that site.

A model of several *members* (`train-default --seeds N`: the same training run from other
seeds, so other site folds, thinning draws and trees) scores a block by the mean of the
members' probabilities, each member running its own two stages. One training draw moves
pages that sit near the cut one way or the other; the mean of a few draws moves less.
Such a file has the further members under `more` (`format_version` 2 or 3; every file
sitesift writes now is version 3).

A model may carry the reference of its training pages (`novelty`, `extractor.novelty`): it
tells a page unlike all of them, where rules trust the page's layout over the model's doubt
(`unseen=keep`). A file without one finds no page unlike its own.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sitesift import __version__
from sitesift.errors import ModelError
from sitesift.extractor import novelty as novelty_file
from sitesift.extractor.context import context_features, context_names
from sitesift.extractor.features import feature_names
from sitesift.extractor.forest import Forest, raw_forest
from sitesift.sealed import Kind, check_writer, read_document, sealed_head, write_document

if TYPE_CHECKING:
    import numpy as np

FORMAT = "sitesift-extractor"
FORMAT_VERSION = 3  # sealed, of one member or several; 1 and 2 are read too
PRESETS = ("precision", "balanced", "recall")
RELATIVE = 0.5  # a page's cut: see `page_cut`
MIN_PAGE_MAX = 0.05
"""A page whose surest block is below this keeps nothing (`page_cut`): the model is sure it
holds no main content, and what the relative cut would keep is navigation. Measured on the
8 corpora's 5,008 pages: one page is below it (wcxb 4278, 0.009, F1 0 either way), the next
lowest at 0.167. The native core's `pipeline::MIN_PAGE_MAX` is the same number (tested)."""
SMALL_PAGE_BLOCKS = 40
"""On a page of at most this many blocks, the unsure page's factor (`page_cut`) is squared:
a page of a few blocks (a fixture, a bare article) has no template around its text for a
lower cut to let in. Leave-one-corpus-out: readability 0.9315 -> 0.9461 (its Lorem-ipsum
fixtures, whose surest block is at 0.26-0.71), wcxb +0.0001, every other corpus unchanged;
with sites held out no page changes. Without the bound, dragnet's near-empty pages of
73-400 blocks kept their navigation (docs/lab/loco.md). The native core's
`pipeline::SMALL_PAGE_BLOCKS` is the same number (tested)."""
MAX_BYTES = 256 * 1024 * 1024
BUNDLED = Path(__file__).resolve().parents[1] / "data" / "default-v1.json.gz"


def page_cut(threshold: float, page_max: Any, balanced: float,
             relative: float = RELATIVE, n_blocks: Any = None) -> Any:
    """The probability a block needs on a page whose surest block has `page_max` (a
    number, or an array of pages): `threshold`, scaled down by one factor on a page where
    even the surest block is under `balanced / relative` (an unusual layout, where the
    model is unsure of everything), so such a page keeps its relatively likely blocks
    rather than nothing. At the balanced threshold the cut is min(balanced, relative x
    page_max); every preset's cut scales alike, so the presets still nest on every page.
    On a page of at most `SMALL_PAGE_BLOCKS` blocks (`n_blocks`, a number or an array;
    None: large) the factor is squared. A page whose surest block is under `MIN_PAGE_MAX`
    keeps nothing. `relative` 0 turns all of it off."""
    import numpy as np
    if relative <= 0:
        return threshold
    surest = np.asarray(page_max)
    factor = np.minimum(1.0, relative * surest / balanced)
    if n_blocks is not None:
        factor = np.where(np.asarray(n_blocks) <= SMALL_PAGE_BLOCKS, factor * factor, factor)
    cut = np.where(surest < MIN_PAGE_MAX, np.inf, threshold * factor)
    return cut if cut.ndim else float(cut)


@dataclass(frozen=True)
class Member:
    """One two-stage pipeline: its forests, and in a held-out bundle its fold forests and
    the fold of every site it saw in training."""

    stage1: Forest
    stage2: Forest
    folds: tuple[tuple[Forest, Forest], ...] = ()
    fold_of: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n_features = len(feature_names())
        if self.stage1.n_features != n_features:
            raise ModelError(f"stage 1 takes {self.stage1.n_features} features, this "
                             f"sitesift makes {n_features}")
        if self.stage2.n_features != n_features + len(context_names()):
            raise ModelError("stage 2 does not take this sitesift's features and context")
        for pair in self.folds:
            if (pair[0].n_features, pair[1].n_features) != (self.stage1.n_features,
                                                            self.stage2.n_features):
                raise ModelError("a fold's forests take other features than the model's")
        if any(not 0 <= f < len(self.folds) for f in self.fold_of.values()):
            raise ModelError("a site's fold is out of range")

    def forests(self, cv_name: str | None) -> tuple[Forest, Forest]:
        """The forests for a page of this site: those trained without it when the bundle
        holds folds and knows the site, else the pipeline trained on everything."""
        if self.folds and cv_name is not None and cv_name in self.fold_of:
            return self.folds[self.fold_of[cv_name]]
        return self.stage1, self.stage2

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"stage1": self.stage1.to_dict(),
                                "stage2": self.stage2.to_dict()}
        if self.folds:
            body["folds"] = [[a.to_dict(), b.to_dict()] for a, b in self.folds]
            body["fold_of"] = dict(sorted(self.fold_of.items()))
        return body

    @classmethod
    def from_dict(cls, doc: Any) -> Member:
        if not isinstance(doc, dict):
            raise ModelError("a member must be an object")
        folds_raw = doc.get("folds", [])
        fold_of = doc.get("fold_of", {})
        if not isinstance(folds_raw, list) or not isinstance(fold_of, dict):
            raise ModelError("'folds' must be a list and 'fold_of' an object")
        folds = []
        for pair in folds_raw:
            if not isinstance(pair, list) or len(pair) != 2:
                raise ModelError("each fold must be a pair of forests")
            folds.append((Forest.from_dict(pair[0]), Forest.from_dict(pair[1])))
        if not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                   for k, v in fold_of.items()):
            raise ModelError("'fold_of' must map site names to fold numbers")
        return cls(Forest.from_dict(doc.get("stage1")), Forest.from_dict(doc.get("stage2")),
                   tuple(folds), dict(fold_of))


def block_probability(members: Sequence[Member], cv_name: str | None, X: np.ndarray,
                      ntok: np.ndarray, anc: Any) -> np.ndarray:
    """Each block's content probability from a page's block features `X` (with its blocks'
    token counts and ancestry, for the context features): every member runs its two stages
    (with its forests for a page of site `cv_name`, `Member.forests`) and their stage-2
    probabilities are averaged. The one rule for cleaning and for training's held-out
    scoring, so the presets are chosen on what the cleaner computes."""
    import numpy as np
    p = np.zeros(len(X))
    for member in members:
        stage1, stage2 = member.forests(cv_name)
        ctx = context_features(stage1.proba(X), ntok, anc, X)
        p += stage2.proba(np.hstack([X, ctx]))
    return p / max(len(members), 1)


@dataclass(frozen=True)
class ExtractorModel:
    """The first member's forests (and folds) in its own fields, further members in
    `more`; `members` gives them all."""

    stage1: Forest
    stage2: Forest
    thresholds: dict[str, float]
    meta: dict[str, Any] = field(default_factory=dict)
    folds: tuple[tuple[Forest, Forest], ...] = ()
    fold_of: dict[str, int] = field(default_factory=dict)
    more: tuple[Member, ...] = ()
    novelty: dict[str, Any] | None = None
    """The reference of the training pages (`extractor.novelty.build`), or None."""

    def __post_init__(self) -> None:
        _ = self.members  # built, and the first member's forests checked, now
        check_thresholds(self.thresholds)

    @functools.cached_property
    def members(self) -> tuple[Member, ...]:
        return (Member(self.stage1, self.stage2, self.folds, self.fold_of), *self.more)

    def forests(self, cv_name: str | None) -> tuple[Forest, Forest]:
        """The first member's forests for a page of this site (`Member.forests`)."""
        return self.members[0].forests(cv_name)

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "features": list(feature_names()), "context": list(context_names()),
            "thresholds": self.thresholds, "meta": self.meta,
            **self.members[0].to_dict(),
        }
        if self.more:
            body["more"] = [m.to_dict() for m in self.more]
        if self.novelty is not None:
            body["novelty"] = self.novelty
        return body


def _digest(body: dict[str, Any]) -> str:
    """The checksum of a version 1 or 2 file: the canonical JSON of its body, hashed."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _body(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in ("format", "format_version", "sha256")}


def _legacy_digest(doc: dict[str, Any]) -> str:
    return _digest(_body(doc))


EXTRACTOR_MODEL = Kind(FORMAT, "an extractor model", FORMAT_VERSION,
                       {1: _legacy_digest, 2: _legacy_digest})


def save(model: ExtractorModel, path: str | Path) -> Path:
    """Write the model sealed (gzipped when the name ends in `.gz`), atomically."""
    body = model.to_dict()
    body["meta"] = {**body["meta"], "sitesift_version": __version__}  # the writer
    return write_document({"format": FORMAT, "format_version": FORMAT_VERSION, **body}, path)


def load(path: str | Path) -> ExtractorModel:
    """Read and check a model file; every problem is a ModelError naming the file."""
    return _read(path, _load_cached)


T = TypeVar("T")


def _read(path: str | Path, cached: Callable[[str, int, int], T]) -> T:
    """A model file read through a memo keyed by its path, modification time and size (a
    rewritten file is read again); a problem is a ModelError naming the file."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc}") from None
    try:
        return cached(str(path), stat.st_mtime_ns, stat.st_size)
    except ModelError as exc:
        raise ModelError(f"{path}: {exc}") from None


@functools.lru_cache(maxsize=4)
def _load_cached(path: str, mtime_ns: int, size: int) -> ExtractorModel:
    model = from_document(read_document(Path(path), MAX_BYTES, EXTRACTOR_MODEL))
    check_writer(model.meta.get("sitesift_version"), path)
    return model


def _checked_body(doc: dict[str, Any]
                  ) -> tuple[dict[str, Any], dict[str, float], dict[str, Any], list[Any]]:
    """A model document's body, its thresholds, meta and further members, after the
    checks every reading makes once `read_document` has checked the format, version and
    checksum: feature names, thresholds, meta, members."""
    body = _body(doc)
    if (body.get("features") != list(feature_names())
            or body.get("context") != list(context_names())):
        raise ModelError("the model was trained on another feature set; retrain it with "
                         "`sitesift train-default`")
    thresholds = body.get("thresholds")
    if not isinstance(thresholds, dict):
        raise ModelError("'thresholds' must be an object")
    thresholds = {k: float(v) if isinstance(v, int | float) and not isinstance(v, bool)
                  else v for k, v in thresholds.items()}
    check_thresholds(thresholds)
    meta = body.get("meta", {})
    if not isinstance(meta, dict):
        raise ModelError("'meta' must be an object")
    more = body.get("more", [])
    if not isinstance(more, list) or (more and doc["format_version"] < 2):
        raise ModelError("'more' must be a list of members (format version 2 or later)")
    return body, thresholds, meta, more


def check_thresholds(thresholds: dict[str, Any]) -> None:
    if set(thresholds) != set(PRESETS) or not all(
            isinstance(v, float) and 0.0 < v < 1.0 for v in thresholds.values()):
        raise ModelError(f"thresholds must give each of {', '.join(PRESETS)} in (0, 1)")
    if not (thresholds["precision"] >= thresholds["balanced"] >= thresholds["recall"]):
        raise ModelError("thresholds must order precision >= balanced >= recall")


def from_document(doc: dict[str, Any]) -> ExtractorModel:
    """A model from its parsed JSON document (its format, version and checksum checked by
    `read_document`), checked field by field."""
    body, thresholds, meta, more = _checked_body(doc)
    first = Member.from_dict(body)
    novelty = body.get("novelty")
    if novelty is not None:
        novelty_file.native(novelty)  # checked now, as the cleaner will read it
    return ExtractorModel(first.stage1, first.stage2, thresholds, meta, first.folds,
                          first.fold_of, tuple(Member.from_dict(m) for m in more), novelty)


@dataclass(frozen=True)
class Scorer:
    """What cleaning needs of a model file: the presets' thresholds and every member's
    forests in the native core (no NumPy arrays: a cleaning process never builds them)."""

    thresholds: dict[str, float]
    native: Any
    meta: dict[str, Any] = field(default_factory=dict)


def load_scorer(path: str | Path) -> Scorer:
    """Read and check a model file for cleaning (the checks of `load`; the forests'
    arrays checked by the native core as it takes them); every problem is a ModelError
    naming the file."""
    return _read(path, _scorer_cached)


@functools.lru_cache(maxsize=4)
def _scorer_cached(path: str, mtime_ns: int, size: int) -> Scorer:
    from sitesift.native import core

    body, thresholds, meta, more = _checked_body(read_document(Path(path), MAX_BYTES,
                                                               EXTRACTOR_MODEL))
    check_writer(meta.get("sitesift_version"), path)
    members = []
    for m in [body, *more]:
        if not isinstance(m, dict):
            raise ModelError("a member must be an object")
        folds = m.get("folds", [])
        if not isinstance(folds, list) or not all(isinstance(p, list) and len(p) == 2
                                                  for p in folds):
            raise ModelError("each fold must be a pair of forests")
        fold_of = m.get("fold_of", {})
        if not isinstance(fold_of, dict) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in fold_of.values()):
            raise ModelError("'fold_of' must map site names to fold numbers")
        members.append({"stage1": raw_forest(m.get("stage1")),
                        "stage2": raw_forest(m.get("stage2")),
                        "folds": [(raw_forest(a), raw_forest(b)) for a, b in folds],
                        "fold_of": fold_of})
    novelty = body.get("novelty")
    reference = novelty_file.native(novelty) if novelty is not None else None
    try:
        native = core().Model(members, reference)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ModelError(f"bad forest: {exc}") from None
    return Scorer(thresholds, native, meta)


def check_head(path: str | Path) -> dict[str, float]:
    """The checks of a model file by a process whose workers will clean with it (and
    `load_scorer` it, every check made again): its thresholds. A sealed file of this
    version is checked by its seal, over all its bytes, and its head (feature set,
    thresholds, writer), not parsed whole; any other file is read as `load_scorer` reads
    it. So a missing, damaged, truncated, altered, foreign or old file is refused here
    as `load_scorer` refuses it; what passes here and fails there is only a file whose
    seal was made again over a bad body (never one sitesift writes), which the workers
    refuse. Every problem is a ModelError naming the file."""
    return _read(path, _head_cached)


_HEAD_KEYS = ("features", "context", "thresholds", "meta")  # the order `to_dict` writes


@functools.lru_cache(maxsize=4)
def _head_cached(path: str, mtime_ns: int, size: int) -> dict[str, float]:
    head = sealed_head(Path(path), MAX_BYTES, EXTRACTOR_MODEL, _HEAD_KEYS)
    if head is None:
        return _scorer_cached(path, mtime_ns, size).thresholds
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, **head}
    _, thresholds, meta, _ = _checked_body(doc)
    check_writer(meta.get("sitesift_version"), path)
    return thresholds
