"""`sitesift train-template` and `train-default`: training the shipped models."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sitesift.cli.common import UsageError, add_quiet, datasets_folder, unwritable
from sitesift.cli.settings import parse_set


def add_parsers(sub: Any, methods: list[str]) -> None:
    p = sub.add_parser("train-template",
                       help="rebuild the page-level template model (--method isotonic) "
                            "from site-level labels on site-grouped corpora")
    p.add_argument("--datasets", default=None,
                   help="folder of the corpora (default: $SITESIFT_DATASETS)")
    p.add_argument("--corpora", default="big9,dragnet,cleanportaleval,swde-book",
                   help="comma-separated site-grouped corpora to train on")
    shipped = Path(__file__).resolve().parents[1] / "data" / "pagetemplate.json"
    p.add_argument("--out", default=str(shipped),
                   help="model file (default: the one shipped inside the package)")
    p.add_argument("--pages-per-group", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gold-content", type=float, default=None, metavar="SHARE",
                   help="keep a content label only where this share of the node is in the "
                        "gold text (uses hand-made gold; off by default)")
    p.add_argument("--render", action="store_true",
                   help="add rendered boxes to the features (needs Chromium)")
    add_quiet(p)
    p.set_defaults(func=cmd_train_template)

    p = sub.add_parser("train-default",
                       help="train the default cleaner's model on corpora with gold text")
    p.add_argument("datasets", nargs="+", help="dataset folders (index.jsonl + pages/ + gold/)")
    p.add_argument("--out", required=True, help="model file to write (.json or .json.gz)")
    p.add_argument("--folds", type=int, default=0,
                   help="first measure by K-fold cross-validation over sites (every page "
                        "scored by models trained without its site); sets the presets")
    p.add_argument("--heldout", help="with --folds: also write a held-out bundle (each "
                   "known site scored by the fold models trained without it), for "
                   "SITESIFT_DEFAULT_MODEL=BUNDLE sitesift bench ... --methods default")
    p.add_argument("--by-corpus", action="store_true",
                   help="also measure each corpus with models trained on the other corpora "
                        "only (gold of other people and rules: a corpus never seen)")
    p.add_argument("--cache", help="folder for the labelled blocks of each corpus (reused "
                   "while the corpus folder and its files are unchanged)")
    p.add_argument("--corpus-weight", action="append", default=[], metavar="NAME=W",
                   help="a page of corpus NAME weighs W in training (default 1; repeatable)")
    p.add_argument("--corpus-balance", type=float, default=0.0, metavar="POWER",
                   help="weigh a corpus of n pages as n^(1-POWER) in all: 0 (default) every "
                        "page alike, 1 every corpus alike, 0.5 between")
    p.add_argument("--rebuild", action="store_true", help="rebuild cached corpora")
    p.add_argument("--report", help="write the training summary (JSON) here")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="a model of N members trained from seeds SEED, SEED+1, ... (their "
                        "probabilities averaged: less training-draw noise; N times the "
                        "training time; the shipped model has three, trained one seed a run "
                        "and joined by --combine: docs/model-card.md)")
    p.add_argument("--combine", nargs="+", default=[], metavar="BUNDLE",
                   help="instead of training, make one model of the members of these "
                        "held-out bundles (e.g. runs with other --seed on the same "
                        "corpora), its presets chosen on their mean held-out probabilities")
    p.add_argument("--stage2-members", type=int, default=3, metavar="N",
                   help="average N stage-2 forests fitted on different samples of the "
                        "training blocks (default 3; 1 is one forest, faster and noisier)")
    p.add_argument("--distil", type=int, default=0, metavar="TREES",
                   help="the members teach one student of TREES trees a stage, which is "
                        "the model (fewer trees: faster cleaning); with --combine, the "
                        "bundles' members teach it")
    p.add_argument("--fold-seed", type=int, default=None, metavar="S",
                   help="draw the site folds from seed S for every member (bundles to be "
                        "distilled together must share them; default: each member's seed)")
    p.add_argument("--workers", type=int, default=1, help="processes building the corpora")
    add_quiet(p)
    p.set_defaults(func=cmd_train_default)


def cmd_train_template(args: argparse.Namespace) -> int:
    """Rebuild the page-level template model (`--method isotonic`) from site-level labels."""
    from dataclasses import replace

    from sitesift.training.isotonic.labels import LabelParams
    from sitesift.training.isotonic.pipeline import TrainParams, build

    corpora = tuple(c.strip() for c in args.corpora.split(",") if c.strip())
    params = TrainParams(corpora=corpora, pages_per_group=args.pages_per_group,
                         seed=args.seed, render=args.render,
                         labels=replace(LabelParams(), gold_content=args.gold_content))
    start = time.process_time()
    path, model = build(datasets_folder("train-template", args.datasets), Path(args.out), params,
                        progress=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    info = model.training
    print(f"sitesift train-template: {sum(info['pages'].values())} pages of {info['sites']} "
          f"sites, {info['nodes_template']} template and {info['nodes_content']} content "
          f"nodes, {time.process_time() - start:.0f} s CPU -> {path}", file=sys.stderr)
    return 0


def cmd_train_default(args: argparse.Namespace) -> int:
    """Train the default cleaner's model on corpora with gold; with --folds, measure it on
    held-out sites first and write a held-out bundle for `sitesift bench`."""
    from sitesift.errors import ModelError
    from sitesift.extractor import model as extractor_model
    from sitesift.training.default.dataset import cached_corpus
    from sitesift.training.default.pipeline import DefaultTrainConfig, train_default

    config = DefaultTrainConfig(
        corpora=tuple(Path(d).name for d in args.datasets), folds=args.folds,
        seed=args.seed, seeds=args.seeds,
        corpus_weight=parse_set(args.corpus_weight, "--corpus-weight", "train-default"),
        corpus_balance=args.corpus_balance, stage2_members=args.stage2_members,
        distil=args.distil, fold_seed=args.fold_seed, by_corpus=args.by_corpus)
    try:
        config.check()
    except ValueError as exc:
        raise UsageError(f"sitesift train-default: {exc}") from None
    try:
        combine = [extractor_model.load(path) for path in args.combine]
    except ModelError as exc:
        raise UsageError(f"sitesift train-default: --combine {exc}") from None
    if any(not m.folds for b in combine for m in b.members):
        raise UsageError("sitesift train-default: --combine takes held-out bundles "
                         "(train-default --folds K --heldout BUNDLE)")
    # Training takes many minutes: an output that cannot be written fails now, not then.
    for flag, path in (("--out", args.out), ("--heldout", args.heldout),
                       ("--report", args.report)):
        if path and (problem := unwritable(Path(path))):
            raise UsageError(f"sitesift train-default: {flag} {path}: {problem}")
    cache = Path(args.cache) if args.cache else None
    corpora = [cached_corpus(Path(d), cache, rebuild=args.rebuild, workers=args.workers,
                             progress=not args.quiet) for d in args.datasets]
    start = time.process_time()
    try:
        summary = train_default(corpora, args.out, config, heldout=args.heldout,
                                combine=combine)
    except ValueError as exc:  # a combined bundle that never saw these corpora's sites
        raise UsageError(f"sitesift train-default: {exc}") from None
    if args.report:
        Path(args.report).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    measured = [(f"held-out sites, {preset}", row)
                for preset, row in summary.get("cross_validation", {}).items()]
    if "heldout_corpora" in summary:
        measured.append(("held-out corpora, balanced", summary["heldout_corpora"]))
    for title, row in measured:
        figures = ", ".join(f"{k.split('/', 1)[1]} {v:.3f}" for k, v in row.items()
                            if k.startswith("f1/") and "/" not in k[3:])
        print(f"{title} (p >= {row['threshold']}): {figures}")
    print(f"sitesift train-default: {summary['pages']} pages, {summary['blocks']} blocks, "
          f"{time.process_time() - start:.0f} s CPU -> {args.out}"
          + (f", held-out bundle {args.heldout}" if args.heldout else ""), file=sys.stderr)
    return 0
