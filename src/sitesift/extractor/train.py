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

import hashlib
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sitesift.extractor import model as model_file
from sitesift.extractor.context import context_features
from sitesift.extractor.dataset import CorpusData
from sitesift.extractor.forest import Forest

DEFAULT_PARAMS: dict[str, Any] = {
    "max_iter": 150, "learning_rate": 0.12, "max_leaf_nodes": 31, "min_samples_leaf": 20,
    "l2_regularization": 1.0, "max_bins": 255,
}
LABEL_SHARE = 0.5  # a block is content when at least this share of its tokens is gold
THIN = 5.0  # importance-sampling floor of block weights in training (see `thin`)


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
               params: dict[str, Any] | None, p1: np.ndarray) -> None:
    """Fill `p1` for the rows of `page_ids` with stage-1 probabilities from models trained
    on the other folds of `page_ids` (`folds` gives each page's fold)."""
    y, w = pool.y, pool.weights()
    for f in range(k):
        test = page_ids[folds[page_ids] == f]
        train = page_ids[folds[page_ids] != f]
        if len(test) == 0 or len(train) == 0:
            continue
        tr, te = pool.rows(train), pool.rows(test)
        tr, wt = thin(tr, w, THIN, f)
        model = fit_trees(pool.X[tr], y[tr], wt, params)
        p1[te] = model.predict_proba(pool.X[te])[:, 1]


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
                    members: int = 1) -> tuple[Any, Any]:
    """Stage 1 on the pages, stage 2 on their inner out-of-fold stage-1 probabilities
    (with `members` > 1, an `Averaged` stage 2: the first member on stage 1's draw of
    rows, the others on draws of their own)."""
    y, w = pool.y, pool.weights()
    rows = pool.rows(page_ids)
    inner = page_folds(pool, inner_k, seed + 1)
    p1 = np.full(len(pool.share), np.nan)
    oof_stage1(pool, page_ids, inner, inner_k, params1, p1)
    kept, wk = thin(rows, w, THIN, seed)
    stage1 = fit_trees(pool.X[kept], y[kept], wk, params1)
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
            kept, wk = thin(rows, w, THIN, seed + 1000 * member)
        fitted.append(fit_trees(X2[position[kept]], y[kept], wk, params2))
    return stage1, fitted[0] if len(fitted) == 1 else Averaged(tuple(fitted))


def cross_validate(pool: Pool, k: int = 5, *, seed: int = 0, inner_k: int = 3,
                   params1: dict[str, Any] | None = None,
                   params2: dict[str, Any] | None = None,
                   folds: np.ndarray | None = None, members: int = 1
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
                                         params1=params1, params2=params2, members=members)
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
                    params2: dict[str, Any] | None = None, members: int = 1) -> np.ndarray:
    """Stage-2 probabilities of every block from models trained on the *other* corpora
    alone (`without_corpus`): a corpus's figure is then one for gold written by other
    people, to other rules (what a corpus the model never saw looks like)."""
    p1 = np.full(len(pool.share), np.nan)
    p2 = np.full(len(pool.share), np.nan)
    for name in dict.fromkeys(p["corpus"] for p in pool.pages):
        test, train = without_corpus(pool, name)
        _log(f"held-out corpus {name}: {len(train)} training pages of the other corpora, "
             f"{len(test)} test pages")
        if len(train) == 0:
            continue
        stage1, stage2 = train_two_stage(pool, train, seed=seed, params1=params1,
                                         params2=params2, members=members)
        _score(pool, test, stage1, stage2, p1, p2)
    return p2


def page_scores(pool: Pool, prob: np.ndarray, threshold: float | np.ndarray = 0.5,
                page_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Exact token P/R/F1 of every page's kept blocks (p >= threshold, a number or one cut
    per page of the pool) against its gold."""
    from sitesift.metrics import token_prf

    cuts = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (len(pool.pages),))
    out = []
    ids = range(len(pool.pages)) if page_ids is None else page_ids
    for i in ids:
        lo, hi = int(pool.bounds[i]), int(pool.bounds[i + 1])
        keep = [pool.texts[j] for j in range(lo, hi) if prob[j] >= cuts[i]]
        info = pool.pages[i]
        prf = token_prf("\n".join(keep), info["gold"])
        out.append({"corpus": info["corpus"], "id": info["id"],
                    "page_type": info.get("page_type"), "precision": prf.precision,
                    "recall": prf.recall, "f1": prf.f1})
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Mean F1 per corpus, and per wcxb page type (`wcxb/<type>`)."""
    return _means(rows, "f1", digits=None)


THRESHOLD_GRID = tuple(round(0.1 + 0.025 * i, 3) for i in range(33))  # 0.1 .. 0.9
BETAS = {"precision": 0.5, "balanced": 1.0, "recall": 2.0}


def page_max(pool: Pool, prob: np.ndarray) -> np.ndarray:
    """Each page's highest block probability (0 for a page without blocks)."""
    out = np.zeros(len(pool.pages))
    filled = np.diff(pool.bounds) > 0
    if filled.any():
        out[filled] = np.maximum.reduceat(prob, pool.bounds[:-1][filled].astype(np.int64))
    return out


def _group(row: dict[str, Any]) -> str:
    # a corpus whose pages carry a page type (wcxb) counts each type as a group of its own
    return f"{row['corpus']}/{row['page_type']}" if row.get("page_type") else row["corpus"]


def macro_f_beta(rows: list[dict[str, Any]], beta: float) -> float:
    """Each page's F-beta, averaged per group and the groups averaged alike."""
    per: dict[str, list[float]] = {}
    b2 = beta * beta
    for r in rows:
        p, rc = r["precision"], r["recall"]
        f = (1 + b2) * p * rc / (b2 * p + rc) if p + rc > 0 else 0.0
        per.setdefault(_group(r), []).append(f)
    return float(np.mean([np.mean(v) for v in per.values()]))


def choose_thresholds(pool: Pool, prob: np.ndarray, grid: Sequence[float] = THRESHOLD_GRID,
                      relative: float = model_file.RELATIVE) -> dict[str, Any]:
    """Per preset, the threshold of best F-beta (beta 0.5 / 1 / 2 for precision /
    balanced / recall), with each page cut as the cleaner cuts it (`model.page_cut`).

    Groups weigh the same whatever their size: a corpus, or each page type of a corpus
    whose pages carry one (wcxb's seven), since the cleaner must do well on every kind of
    page, not only on the most common one. Balanced is chosen first (the other presets'
    cuts scale with it on unsure pages). Returns the thresholds and the per-corpus (and
    per-type) mean F1, P and R at each."""
    top = page_max(pool, prob)
    balanced_rows = {t: page_scores(pool, prob, model_file.page_cut(t, top, t, relative))
                     for t in grid}
    balanced = max(grid, key=lambda t: macro_f_beta(balanced_rows[t], 1.0))
    table = {t: page_scores(pool, prob, model_file.page_cut(t, top, balanced, relative))
             for t in grid if t != balanced}
    table[balanced] = balanced_rows[balanced]
    chosen = {preset: max(grid, key=lambda t, b=beta: macro_f_beta(table[t], b))  # type: ignore[misc]
              for preset, beta in BETAS.items() if preset != "balanced"}
    # Presets must keep their order even where the curves are flat.
    chosen = {"precision": max(chosen["precision"], balanced), "balanced": balanced,
              "recall": min(chosen["recall"], balanced)}
    report = {preset: _report(table[t], t) for preset, t in chosen.items()}
    return {"thresholds": chosen, "report": report}


def _report(rows: list[dict[str, Any]], threshold: float) -> dict[str, float]:
    """The threshold and the mean F1, P and R per corpus (and page type) of its rows."""
    return {"threshold": threshold, **{f"{metric}/{name}": value
                                       for metric in ("f1", "precision", "recall")
                                       for name, value in _means(rows, metric).items()}}


def _means(rows: list[dict[str, Any]], metric: str, digits: int | None = 4
           ) -> dict[str, float]:
    """Mean of `metric` per corpus and per page type (`corpus/type`)."""
    groups: dict[str, list[float]] = {}
    for r in rows:
        groups.setdefault(r["corpus"], []).append(r[metric])
        if r.get("page_type"):
            groups.setdefault(_group(r), []).append(r[metric])
    means = {k: float(np.mean(v)) for k, v in sorted(groups.items())}
    return means if digits is None else {k: round(v, digits) for k, v in means.items()}


def heldout_probabilities(pool: Pool, members: Sequence[model_file.Member]) -> np.ndarray:
    """Every block's probability as the cleaner gives it with a held-out bundle of these
    members: each member's forests trained without the page's site, the members' stage-2
    probabilities averaged. Every site of the pool must be in each member's folds."""
    for k, member in enumerate(members):
        unseen = {p["cv"] for p in pool.pages} - set(member.fold_of)
        if unseen:
            raise ValueError(f"held-out member {k + 1} was not trained on these pages' "
                             f"sites: {', '.join(sorted(unseen)[:5])}")
    out = np.zeros(len(pool.share))
    for i, info in enumerate(pool.pages):
        lo, hi = int(pool.bounds[i]), int(pool.bounds[i + 1])
        if hi > lo:
            out[lo:hi] = model_file.block_probability(
                members, info["cv"], pool.X[lo:hi].astype(np.float64), pool.ntok[lo:hi],
                pool.anc[lo:hi])
    return out


@dataclass(frozen=True)
class TrainSettings:
    """`sitesift train-default`'s choices about the training itself, checked together
    before any corpus is read (`check`), so a bad one costs no minutes of reading."""

    corpora: tuple[str, ...]                 # the corpora's names
    corpus_weight: dict[str, float] = field(default_factory=dict)
    corpus_balance: float = 0.0
    stage2_members: int = 3
    by_corpus: bool = False
    seeds: int = 1

    def check(self) -> None:
        """ValueError naming the flag and what it takes."""
        for name, value in self.corpus_weight.items():
            if (not isinstance(value, int | float) or isinstance(value, bool)
                    or not value > 0 or name not in self.corpora):
                raise ValueError(f"--corpus-weight {name}={value!r}: a positive weight for one "
                                 "of the corpora given")
        if not 0.0 <= self.corpus_balance <= 1.0:
            raise ValueError("--corpus-balance takes 0 to 1")
        if not 1 <= self.stage2_members <= 20:
            raise ValueError("--stage2-members takes 1 to 20")
        if self.by_corpus and len(set(self.corpora)) < 2:
            raise ValueError("--by-corpus needs two corpora or more")
        if not 1 <= self.seeds <= 10:
            raise ValueError("--seeds takes 1 to 10")


def train_default(corpora: Sequence[CorpusData], out: Any, *, folds: int = 0,
                  heldout: Any = None, seed: int = 0, seeds: int = 1,
                  thin_floor: float | None = None,
                  params1: dict[str, Any] | None = None,
                  params2: dict[str, Any] | None = None,
                  corpus_weight: dict[str, float] | None = None, corpus_balance: float = 0.0,
                  stage2_members: int = 1, by_corpus: bool = False,
                  combine: Sequence[model_file.ExtractorModel] = ()) -> dict[str, Any]:
    """Train the default cleaner's model on every page of `corpora` and write it to `out`.

    With `folds` > 1, first measure it by site-held-out cross-validation: the presets'
    thresholds are chosen on those out-of-fold probabilities, the per-corpus figures are
    returned, and `heldout` (if given) receives a bundle whose forests score each known
    site with the fold models trained without it (for `sitesift bench`). With `seeds` > 1,
    the model has that many members, trained from seeds `seed`, `seed + 1`, ... (each with
    its own site folds), and the thresholds are chosen on the members' mean held-out
    probabilities. `combine` builds such a model from held-out bundles already trained on
    these corpora (one member each, e.g. runs with other `--seed`s) without training. With
    `by_corpus`, also measure each corpus with models trained on the other corpora only
    (`heldout_corpora`), at the balanced preset. `corpus_balance` weighs corpora by size
    (`balance_corpora`), times any `corpus_weight` given."""
    global THIN
    if thin_floor is not None:
        THIN = thin_floor
    pool = Pool.of(corpora)
    balance, given = balance_corpora(pool, corpus_balance), corpus_weight or {}
    # (in a fixed order: the weights go into the model file's meta)
    pool.corpus_weight = {c: balance.get(c, 1.0) * given.get(c, 1.0)
                          for c in dict.fromkeys([*balance, *given])}
    _log(f"{len(pool.pages)} pages, {len(pool.share)} blocks from "
         f"{', '.join(c.name for c in corpora)}")
    summary: dict[str, Any] = {"pages": len(pool.pages), "blocks": len(pool.share),
                               "corpora": [c.name for c in corpora], "folds": folds,
                               "seed": seed, "seeds": seeds, "thin": THIN,
                               "stage2_members": stage2_members,
                               "corpus_weight": pool.corpus_weight,
                               "corpus_balance": corpus_balance,
                               "params1": {**DEFAULT_PARAMS, **(params1 or {})},
                               "params2": {**DEFAULT_PARAMS, **(params2 or {})}}
    if combine:
        summary = _combined_summary(pool, corpora, combine)
        members = [m for b in combine for m in b.members]
        chosen = choose_thresholds(pool, heldout_probabilities(pool, members))
        summary["cross_validation"] = chosen["report"]
        return _save(members, chosen["thresholds"], summary, out, heldout)
    thresholds = {"precision": 0.65, "balanced": 0.5, "recall": 0.35}
    members = []
    p2s, by_corpus_p2 = [], []
    for s in range(seed, seed + max(seeds, 1)):
        fold_models: list[tuple[Any, Any]] = []
        fold_of: dict[str, int] = {}
        if folds > 1:
            page_fold = page_folds(pool, folds, s)
            _, p2, fold_models = cross_validate(pool, folds, seed=s, params1=params1,
                                                params2=params2, folds=page_fold,
                                                members=stage2_members)
            p2s.append(p2)
            fold_of = {p["cv"]: int(f) for p, f in zip(pool.pages, page_fold, strict=True)}
        if by_corpus:
            by_corpus_p2.append(heldout_corpora(pool, seed=s, params1=params1,
                                                params2=params2, members=stage2_members))
        _log(f"final model on every page (seed {s})")
        stage1, stage2 = train_two_stage(pool, np.arange(len(pool.pages)), seed=s,
                                         params1=params1, params2=params2,
                                         members=stage2_members)
        members.append(model_file.Member(
            to_forest(stage1), to_forest(stage2),
            tuple((to_forest(a), to_forest(b)) for a, b in fold_models), fold_of))
    if p2s:
        # one member: its own out-of-fold probabilities; several: their mean, as the
        # cleaner gives it (the exported forests, each member's own two stages)
        chosen = choose_thresholds(pool, p2s[0] if len(members) == 1
                                   else heldout_probabilities(pool, members))
        thresholds = chosen["thresholds"]
        summary["cross_validation"] = chosen["report"]
    if by_corpus_p2:
        p2 = np.mean(by_corpus_p2, axis=0)
        t = thresholds["balanced"]
        cut = model_file.page_cut(t, page_max(pool, p2), t)
        summary["heldout_corpora"] = _report(page_scores(pool, p2, cut), t)
    return _save(members, thresholds, summary, out, heldout)


def _combined_summary(pool: Pool, corpora: Sequence[CorpusData],
                      bundles: Sequence[model_file.ExtractorModel]) -> dict[str, Any]:
    """The meta of a model combined from held-out bundles: each bundle's own, under
    `members`, and what the thresholds were chosen on."""
    return {"pages": len(pool.pages), "blocks": len(pool.share),
            "corpora": [c.name for c in corpora], "combined": len(bundles),
            "members": [{k: v for k, v in b.meta.items()
                         if k not in ("cross_validation", "heldout")} for b in bundles]}


def _save(members: Sequence[model_file.Member], thresholds: dict[str, float],
          summary: dict[str, Any], out: Any, heldout: Any) -> dict[str, Any]:
    """Write the model (every member without its folds) and, when asked and the members
    have folds, the held-out bundle."""
    thresholds = {k: float(v) for k, v in thresholds.items()}
    bare = [model_file.Member(m.stage1, m.stage2) for m in members]
    model_file.save(model_file.ExtractorModel(bare[0].stage1, bare[0].stage2, thresholds,
                                              summary, more=tuple(bare[1:])), out)
    if heldout is not None and all(m.folds for m in members):
        first = members[0]
        model_file.save(model_file.ExtractorModel(
            first.stage1, first.stage2, thresholds, {**summary, "heldout": True},
            first.folds, first.fold_of, tuple(members[1:])), heldout)
    return summary
