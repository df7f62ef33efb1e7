"""The training pool: several corpora's labelled blocks in one set of arrays, the weights of
its blocks and pages, the thinning of light blocks, and the site folds.

Every split keeps a whole site on one side: folds are drawn per site name (`cv_group`, the
same name across corpora), so a cross-validated figure is a figure on unseen sites.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sitesift.training.default.dataset import CorpusData

LABEL_SHARE = 0.5  # a block is content when at least this share of its tokens is gold
THIN = 5.0  # the default importance-sampling floor of block weights in training (`thin`)


@dataclass
class Pool:
    """Several corpora's blocks in one set of arrays; pages are contiguous runs of rows."""

    X: np.ndarray
    share: np.ndarray
    ntok: np.ndarray
    anc: np.ndarray
    page: np.ndarray            # (blocks,) global page index
    pages: list[dict[str, Any]]  # with "corpus"
    texts: list[str]
    # A page of a listed corpus weighs this much in training (1 otherwise): more weight on
    # the one corpus of today's page kinds (wcxb) against the pool's older news pages.
    corpus_weight: dict[str, float] = field(default_factory=dict)
    bounds: np.ndarray = field(init=False)  # (pages + 1,) row offsets

    def __post_init__(self) -> None:
        counts = np.bincount(self.page, minlength=len(self.pages))
        self.bounds = np.concatenate(([0], np.cumsum(counts)))

    @classmethod
    def of(cls, corpora: Sequence[CorpusData]) -> Pool:
        pages: list[dict[str, Any]] = []
        page_idx = []
        for c in corpora:
            page_idx.append(c.page.astype(np.int64) + len(pages))
            pages.extend({**p, "corpus": c.name} for p in c.pages)
        return cls(np.concatenate([c.X for c in corpora]),
                   np.concatenate([c.share for c in corpora]),
                   np.concatenate([c.ntok for c in corpora]),
                   np.concatenate([c.anc for c in corpora]), np.concatenate(page_idx),
                   pages, [t for c in corpora for t in c.texts])

    def rows(self, page_ids: np.ndarray) -> np.ndarray:
        """Row indices of the given pages."""
        return np.concatenate([np.arange(self.bounds[i], self.bounds[i + 1])
                               for i in page_ids]) if len(page_ids) else np.zeros(0, int)

    @property
    def y(self) -> np.ndarray:
        return (self.share >= LABEL_SHARE).astype(np.int8)

    def weights(self) -> np.ndarray:
        """Each page weighs the same in total, spread over its blocks by tokens (the metric
        is a mean over pages of a token measure)."""
        w = self.ntok.astype(np.float64) + 1.0
        page_total = np.bincount(self.page, weights=w, minlength=len(self.pages))
        w = w / page_total[self.page] * 100.0
        if self.corpus_weight:
            factor = np.asarray([self.corpus_weight.get(p["corpus"], 1.0) for p in self.pages])
            w = w * factor[self.page]
        return w


def balance_corpora(pool: Pool, power: float) -> dict[str, float]:
    """Corpus weights under which a corpus of n pages weighs in proportion to n^(1 - power)
    in all: 0 leaves every page equal (a big corpus's conventions rule), 1 makes every
    corpus equal (a small corpus's few pages then weigh a lot each), 0.5 is between. The
    weights keep the pool's total weight; `power` 0 gives no weights at all."""
    if power == 0:
        return {}
    counts = Counter(p["corpus"] for p in pool.pages)
    raw = {c: float(n) ** -power for c, n in counts.items()}
    scale = sum(counts.values()) / sum(raw[c] * n for c, n in counts.items())
    return {c: raw[c] * scale for c in counts}


def thin(rows: np.ndarray, w: np.ndarray, floor: float, seed: int = 0
         ) -> tuple[np.ndarray, np.ndarray]:
    """Importance sampling of training rows: a row lighter than `floor` is kept with
    probability w / floor and then weighs `floor`, so the weighted loss stays unbiased
    while the many one-word blocks of big pages stop dominating the training time."""
    if floor <= 0:
        return rows, w[rows]
    rng = np.random.default_rng(seed)
    wr = w[rows]
    keep_p = np.minimum(wr / floor, 1.0)
    kept = rng.random(len(rows)) < keep_p
    return rows[kept], np.maximum(wr[kept], floor)


def fold_of(name: str, k: int, seed: int = 0) -> int:
    digest = hashlib.blake2b(f"{seed}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % k


def page_folds(pool: Pool, k: int, seed: int = 0) -> np.ndarray:
    return np.asarray([fold_of(p["cv"], k, seed) for p in pool.pages])
