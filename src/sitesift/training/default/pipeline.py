"""`sitesift train-default`: the default cleaner's model trained on corpora with gold, its
choices one frozen `DefaultTrainConfig` stored in the model's meta."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from sitesift.extractor import model as model_file
from sitesift.extractor.forest import Forest
from sitesift.training.default.dataset import CorpusData
from sitesift.training.default.novelty import reference
from sitesift.training.default.pool import THIN, Pool, balance_corpora, page_folds
from sitesift.training.default.stages import (
    DEFAULT_PARAMS,
    Exported,
    _log,
    cross_validate,
    distil,
    heldout_corpora,
    to_forest,
    train_two_stage,
)
from sitesift.training.default.thresholds import (
    _report,
    choose_thresholds,
    heldout_probabilities,
    page_max,
    page_scores,
)


@dataclass(frozen=True)
class DefaultTrainConfig:
    """The choices of one training of the default cleaner's model (`train_default`), stored
    in the model's meta (`config`). `sitesift train-default` checks them together before any
    corpus is read (`check`), so a bad one costs no minutes of reading."""

    corpora: tuple[str, ...] = ()  # the corpora's names (for `check`)
    folds: int = 0
    """With `folds` > 1, first measure by site-held-out cross-validation: the presets'
    thresholds are chosen on those out-of-fold probabilities."""
    seed: int = 0
    seeds: int = 1
    """Members of the model, trained from seeds `seed`, `seed + 1`, ... (each with its own
    site folds); their probabilities are averaged."""
    thin: float = THIN
    """The importance-sampling floor of block weights in training (`pool.thin`)."""
    params1: Mapping[str, Any] = field(default_factory=dict)
    """Stage 1's tree settings over `stages.DEFAULT_PARAMS`."""
    params2: Mapping[str, Any] = field(default_factory=dict)
    """Stage 2's tree settings over `stages.DEFAULT_PARAMS`."""
    corpus_weight: Mapping[str, float] = field(default_factory=dict)
    """A page of a named corpus weighs this much in training (1 otherwise)."""
    corpus_balance: float = 0.0
    """Weigh corpora by size (`pool.balance_corpora`), times any `corpus_weight`."""
    stage2_members: int = 1
    distil: int = 0
    """With `distil` > 0, the members teach one student of `distil` trees a stage
    (`stages.distil`), and the model is that student alone; with `folds`, each fold's
    student learns from the members' models of that fold, so the members share one draw of
    site folds (`fold_seed`'s)."""
    fold_seed: int | None = None
    """The seed of the site folds' draw (default: each member's own seed; with `distil`,
    `seed`)."""
    by_corpus: bool = False
    """Also measure each corpus with models trained on the other corpora only
    (`heldout_corpora`), at the balanced preset."""

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
        if self.distil and not 10 <= self.distil <= 2000:
            raise ValueError("--distil takes 10 to 2000 trees a stage")
        if self.distil and self.by_corpus:
            raise ValueError("--by-corpus does not distil: use benchmarks/loco.py --distil")

    def to_meta(self) -> dict[str, Any]:
        """The config as plain JSON data, for the model file's meta."""
        return {f.name: (list(value) if isinstance(value := getattr(self, f.name), tuple)
                         else dict(value) if isinstance(value, Mapping) else value)
                for f in fields(self)}


def train_default(corpora: Sequence[CorpusData], out: Any,
                  config: DefaultTrainConfig | None = None, *, heldout: Any = None,
                  combine: Sequence[model_file.ExtractorModel] = ()) -> dict[str, Any]:
    """Train the default cleaner's model on every page of `corpora` as `config` says and
    write it to `out`; return the summary (the model's meta).

    With `config.folds` > 1, the presets' thresholds are chosen on out-of-fold
    probabilities, the per-corpus figures are returned, and `heldout` (if given) receives a
    bundle whose forests score each known site with the fold models trained without it
    (for `sitesift bench`). With `config.seeds` > 1, the thresholds are chosen on the
    members' mean held-out probabilities. `combine` builds such a model from held-out
    bundles already trained on these corpora (one member each, e.g. runs with other
    `--seed`s) without training. With `config.distil`, the members (trained, or those of
    `combine`) teach one student, which is the model (`distilled`)."""
    config = config or DefaultTrainConfig()
    folds, seed, seeds = config.folds, config.seed, config.seeds
    stage2_members = config.stage2_members
    params1, params2 = dict(config.params1), dict(config.params2)
    pool = Pool.of(corpora)
    balance, given = balance_corpora(pool, config.corpus_balance), dict(config.corpus_weight)
    # (in a fixed order: the weights go into the model file's meta)
    pool.corpus_weight = {c: balance.get(c, 1.0) * given.get(c, 1.0)
                          for c in dict.fromkeys([*balance, *given])}
    _log(f"{len(pool.pages)} pages, {len(pool.share)} blocks from "
         f"{', '.join(c.name for c in corpora)}")
    summary: dict[str, Any] = {"pages": len(pool.pages), "blocks": len(pool.share),
                               "corpora": [c.name for c in corpora], "folds": folds,
                               "seed": seed, "seeds": seeds, "thin": config.thin,
                               "stage2_members": stage2_members,
                               "corpus_weight": pool.corpus_weight,
                               "corpus_balance": config.corpus_balance,
                               "params1": {**DEFAULT_PARAMS, **params1},
                               "params2": {**DEFAULT_PARAMS, **params2},
                               "config": config.to_meta()}
    if combine:
        summary = {**_combined_summary(pool, corpora, combine), "config": config.to_meta()}
        members = [m for b in combine for m in b.members]
        if config.distil:
            members = [distilled(pool, members, config)]
        chosen = choose_thresholds(pool, heldout_probabilities(pool, members))
        summary["cross_validation"] = chosen["report"]
        return _save(members, chosen["thresholds"], summary, out, heldout, reference(pool))
    thresholds = {"precision": 0.65, "balanced": 0.5, "recall": 0.35}
    members = []
    p2s, by_corpus_p2 = [], []
    for s in range(seed, seed + max(seeds, 1)):
        fold_models: list[tuple[Any, Any]] = []
        fold_of: dict[str, int] = {}
        if folds > 1:
            fold_seed = config.fold_seed if config.fold_seed is not None else (
                seed if config.distil else s)
            page_fold = page_folds(pool, folds, fold_seed)
            _, p2, fold_models = cross_validate(pool, folds, seed=s, params1=params1,
                                                params2=params2, folds=page_fold,
                                                members=stage2_members,
                                                thin_floor=config.thin)
            p2s.append(p2)
            fold_of = {p["cv"]: int(f) for p, f in zip(pool.pages, page_fold, strict=True)}
        if config.by_corpus:
            by_corpus_p2.append(heldout_corpora(pool, seed=s, params1=params1,
                                                params2=params2, members=stage2_members,
                                                thin_floor=config.thin))
        _log(f"final model on every page (seed {s})")
        stage1, stage2 = train_two_stage(pool, np.arange(len(pool.pages)), seed=s,
                                         params1=params1, params2=params2,
                                         members=stage2_members, thin_floor=config.thin)
        members.append(model_file.Member(
            to_forest(stage1), to_forest(stage2),
            tuple((to_forest(a), to_forest(b)) for a, b in fold_models), fold_of))
    if config.distil:
        members = [distilled(pool, members, config)]
        p2s = [heldout_probabilities(pool, members)] if p2s else []
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
        cut = model_file.page_cut(t, page_max(pool, p2), t, n_blocks=np.diff(pool.bounds))
        summary["heldout_corpora"] = _report(page_scores(pool, p2, cut), t)
    return _save(members, thresholds, summary, out, heldout, reference(pool))


def distilled(pool: Pool, members: Sequence[model_file.Member],
              config: DefaultTrainConfig) -> model_file.Member:
    """One student taught by the members (`stages.distil`): on every page, and for each of
    their site folds (which they must share) on the pages outside it."""
    fold_of = members[0].fold_of
    if any(m.fold_of != fold_of for m in members):
        raise ValueError("the members' site folds differ: train them with one --fold-seed "
                         "to distil them")
    params1 = {**config.params1, "max_iter": config.distil}
    params2 = {**config.params2, "max_iter": config.distil}

    def student(page_ids: np.ndarray, stages: Sequence[tuple[Forest, Forest]]
                ) -> tuple[Forest, Forest]:
        teachers = [(Exported(a), Exported(b)) for a, b in stages]
        s1, s2 = distil(pool, page_ids, teachers, params1=params1, params2=params2,
                        seed=config.seed, thin_floor=config.thin)
        return to_forest(s1), to_forest(s2)

    pages = np.arange(len(pool.pages))
    folds: list[tuple[Forest, Forest]] = []
    if fold_of:
        try:
            page_fold = np.asarray([fold_of[p["cv"]] for p in pool.pages])
        except KeyError as exc:
            raise ValueError(f"site {exc} has no fold in the members") from None
        for f in range(len(members[0].folds)):
            _log(f"student of fold {f + 1}/{len(members[0].folds)}")
            folds.append(student(pages[page_fold != f], [m.folds[f] for m in members]))
    _log("student on every page")
    stage1, stage2 = student(pages, [(m.stage1, m.stage2) for m in members])
    return model_file.Member(stage1, stage2, tuple(folds), dict(fold_of))


def _combined_summary(pool: Pool, corpora: Sequence[CorpusData],
                      bundles: Sequence[model_file.ExtractorModel]) -> dict[str, Any]:
    """The meta of a model combined from held-out bundles: each bundle's own, under
    `members`, and what the thresholds were chosen on."""
    return {"pages": len(pool.pages), "blocks": len(pool.share),
            "corpora": [c.name for c in corpora], "combined": len(bundles),
            "members": [{k: v for k, v in b.meta.items()
                         if k not in ("cross_validation", "heldout")} for b in bundles]}


def _save(members: Sequence[model_file.Member], thresholds: dict[str, float],
          summary: dict[str, Any], out: Any, heldout: Any,
          novelty: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write the model (every member without its folds) and, when asked and the members
    have folds, the held-out bundle; both with the reference of the training pages."""
    thresholds = {k: float(v) for k, v in thresholds.items()}
    bare = [model_file.Member(m.stage1, m.stage2) for m in members]
    model_file.save(model_file.ExtractorModel(bare[0].stage1, bare[0].stage2, thresholds,
                                              summary, more=tuple(bare[1:]),
                                              novelty=novelty), out)
    if heldout is not None and all(m.folds for m in members):
        first = members[0]
        model_file.save(model_file.ExtractorModel(
            first.stage1, first.stage2, thresholds, {**summary, "heldout": True},
            first.folds, first.fold_of, tuple(members[1:]), novelty), heldout)
    return summary
