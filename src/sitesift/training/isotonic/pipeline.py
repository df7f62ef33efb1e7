"""Training the templateness classifier on site-grouped corpora, and measuring it cross-site.

`collect` reads every site group of the training corpora (big9 by site and year: its
templates changed over the years; the others by site), labels the scored nodes of all its
pages by site-level recurrence (`labels.site_labels`) and keeps a seeded sample of at most
`pages_per_group` labelled pages per group, so a shop of 300 pages of one template does not
outweigh a hundred news sites. `fit` trains the bucketed logistic regressions on the
labelled nodes. `out_of_fold` gives every page the scores of a model that never saw its
site (whole sites, or whole corpora, held out), for the cross-site figures.

Nothing here needs the network or a browser (unless `render=True`); the same corpora, the
same parameters and the same seed give the same model file.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sitesift.datasets import load_page, read_gold, read_index
from sitesift.errors import SitesiftError
from sitesift.jobs.grouping import group_rows
from sitesift.methods.isotonic.features import NodeTable, node_table
from sitesift.methods.isotonic.model import DEFAULT_EDGES, TemplateModel
from sitesift.training.isotonic.labels import (
    CONTENT,
    TEMPLATE,
    UNLABELLED,
    LabelParams,
    gold_labels,
    site_labels,
)

log = logging.getLogger(__name__)

TRAIN_CORPORA = ("big9", "dragnet", "cleanportaleval", "swde-book")
"""The site-grouped shared corpora (datasets README): the training set."""
GROUPING = {"big9": "site,year"}
"""Site groups per corpus for labelling (default: site)."""
FULL_GOLD = frozenset({"big9", "dragnet", "cleanportaleval", "cleaneval", "chaos", "l3s-gn1",
                       "readability", "wcxb"})
"""Corpora whose gold is the full main text (swde-book's is attribute values only)."""


@dataclass(frozen=True, slots=True)
class TrainParams:
    """Everything that decides the shipped model (stored in its file)."""

    corpora: tuple[str, ...] = TRAIN_CORPORA
    min_site_pages: int = 5
    """Groups with fewer pages are not labelled: recurrence needs pages to recur on."""
    pages_per_group: int = 30
    """Labelled pages kept per group (seeded sample)."""
    seed: int = 0
    C: float = 1.0
    """Inverse L2 strength of the logistic regressions (scikit-learn's default)."""
    edges: tuple[int, ...] = DEFAULT_EDGES
    labels: LabelParams = field(default_factory=LabelParams)
    render: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["corpora"], out["edges"] = list(self.corpora), list(self.edges)
        return out


@dataclass(slots=True)
class PageData:
    """What training and evaluation keep of one labelled page."""

    corpus: str
    site: str        # the unit held out together: corpus:site
    group: str
    id: str
    X: np.ndarray
    tokens: np.ndarray
    parents: np.ndarray
    start: np.ndarray
    end: np.ndarray
    labels: np.ndarray           # site-level: TEMPLATE / CONTENT / UNLABELLED
    gold_labels: np.ndarray | None
    page_tokens: list[str]
    gold: str | None


def _group_pages(root: Path, corpus: str, group: str, rows: list[dict[str, Any]],
                 p: TrainParams) -> tuple[list[PageData], int]:
    tables: list[NodeTable] = []
    kept_rows: list[dict[str, Any]] = []
    golds: list[str | None] = []
    failed = 0
    for row in rows:
        try:
            tables.append(node_table(load_page(root, row)))
        except SitesiftError as exc:
            failed += 1
            log.warning("%s/%s: skipped: %s", corpus, row["id"], exc)
            continue
        kept_rows.append(row)
        golds.append(read_gold(root, row["id"]) if corpus in FULL_GOLD else None)
    labels = site_labels(tables, p.labels, golds)
    usable = [k for k, lab in enumerate(labels) if (lab != UNLABELLED).any()]
    chosen = sorted(random.Random(f"{p.seed}:{corpus}:{group}").sample(
        usable, min(len(usable), p.pages_per_group)))
    out = []
    for k in chosen:
        t, row, gold = tables[k], kept_rows[k], golds[k]
        if p.render:  # only the kept pages are rendered; the scored tree is the same
            from sitesift.browser.chromium import render

            try:
                page = load_page(root, row)
                t = node_table(page, render(page))
            except SitesiftError as exc:
                log.warning("%s/%s: not rendered, left out: %s", corpus, row["id"], exc)
                continue
        out.append(PageData(
            corpus, f"{corpus}:{row.get('site') or group}", group, row["id"],
            t.X.astype(np.float32), t.tokens, t.parents, t.start, t.end, labels[k],
            gold_labels(t, gold) if gold is not None else None, t.page_tokens, gold))
    return out, failed


def collect(datasets: Path, p: TrainParams | None = None,
            progress: Callable[[str], None] | None = None) -> list[PageData]:
    """Labelled pages of every site group with enough pages in the training corpora."""
    p = p or TrainParams()
    out: list[PageData] = []
    for corpus in p.corpora:
        root = Path(datasets) / corpus
        if not (root / "index.jsonl").is_file():
            raise SitesiftError(f"train-template: no corpus {corpus!r} at {root}")
        groups = group_rows(read_index(root), GROUPING.get(corpus, "site"))
        for name in sorted(groups):
            rows = groups[name]
            if len(rows) < p.min_site_pages:
                continue
            pages, failed = _group_pages(root, corpus, name, rows, p)
            out.extend(pages)
            if progress is not None:
                progress(f"{corpus}/{name}: {len(rows)} pages, {failed} unreadable, "
                         f"{len(pages)} kept")
    return out


def rows_of(pages: Iterable[PageData]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, tokens) of the labelled nodes."""
    xs, ys, ts = [], [], []
    for pg in pages:
        sel = pg.labels != UNLABELLED
        xs.append(pg.X[sel].astype(np.float64))
        ys.append(pg.labels[sel])
        ts.append(pg.tokens[sel])
    if not xs:
        raise SitesiftError("train-template: no labelled nodes to train on")
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ts)


def fit(pages: Sequence[PageData], p: TrainParams, names: Sequence[str]) -> TemplateModel:
    X, y, tokens = rows_of(pages)
    counts = Counter(pg.corpus for pg in pages)
    training = {
        "params": p.to_dict(),
        "pages": dict(sorted(counts.items())),
        "sites": len({pg.site for pg in pages}),
        "groups": len({(pg.corpus, pg.group) for pg in pages}),
        "nodes_template": int((y == TEMPLATE).sum()),
        "nodes_content": int((y == CONTENT).sum()),
    }
    return TemplateModel.fit(X, y, tokens, names, p.edges, p.C, training=training)


def out_of_fold(pages: Sequence[PageData], p: TrainParams, names: Sequence[str],
                scheme: str = "sites", folds: int = 5) -> list[np.ndarray]:
    """Raw templateness of every page's nodes from a model trained without its site
    (`scheme="sites"`: GroupKFold over sites) or without its corpus (`"corpus"`)."""
    units = [pg.site if scheme == "sites" else pg.corpus for pg in pages]
    if scheme == "corpus":
        names_of = sorted(set(units))
        fold_of = {u: names_of.index(u) for u in names_of}
        n_folds = len(names_of)
    elif scheme == "sites":
        from sklearn.model_selection import GroupKFold

        fold_of = {}
        ids = np.arange(len(units))
        for k, (_, test) in enumerate(GroupKFold(n_splits=folds).split(ids, groups=units)):
            for i in test:
                fold_of[units[i]] = k
        n_folds = folds
    else:
        raise ValueError(f"unknown scheme {scheme!r}: use 'sites' or 'corpus'")
    out: list[np.ndarray] = [np.zeros(0)] * len(pages)
    for k in range(n_folds):
        train = [pg for pg, u in zip(pages, units, strict=True) if fold_of[u] != k]
        model = fit(train, p, names)
        for i, (pg, u) in enumerate(zip(pages, units, strict=True)):
            if fold_of[u] == k:
                out[i] = model.predict(pg.X.astype(np.float64), pg.tokens)
    return out


def build(datasets: Path, out: Path, p: TrainParams | None = None,
          progress: Callable[[str], None] | None = None) -> tuple[Path, TemplateModel]:
    """Collect, train on every labelled page, and write the model file `out` (a sitesift
    model of method `isotonic`, with the cleaner's default settings)."""
    from sitesift.methods.isotonic import IsotonicCleaner, IsotonicParams, expected_features
    from sitesift.model_io import save_model

    p = p or TrainParams()
    pages = collect(datasets, p, progress)
    model = fit(pages, p, expected_features(p.render))
    cleaner = IsotonicCleaner(IsotonicParams(render=p.render), model=model)
    return save_model(cleaner, out), model
