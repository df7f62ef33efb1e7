"""Save the default cleaner's model as `train-default --by-corpus` trains it to measure one
corpus: learned from the other corpora only, and from none of the held-out corpus's sites.

    python benchmarks/without_corpus.py NAME DATASET... --cache cache --out model.json.gz
        [--model src/sitesift/data/default-v1.json.gz] [--corpus-balance 0.5]

The thresholds are those of `--model` (by default the shipped model's, which `--by-corpus`
also scores with), so `sitesift evaluate` with the saved model gives that corpus's
held-out-corpus figure and can try the cleaner's options on it, e.g.

    SITESIFT_DEFAULT_MODEL=model.json.gz sitesift evaluate DATASET --method default \\
        --set comments=drop --workers 1
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sitesift.extractor import model as model_file
from sitesift.training.default.dataset import cached_corpus
from sitesift.training.default.pool import Pool, balance_corpora
from sitesift.training.default.stages import to_forest, train_two_stage, without_corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", help="the corpus to leave out (a dataset folder's name)")
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--cache", help="train-default's cache folder (reused)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", default=str(model_file.BUNDLED),
                        help="the model whose thresholds the saved model takes")
    parser.add_argument("--corpus-balance", type=float, default=0.0)
    parser.add_argument("--stage2-members", type=int, default=3)
    args = parser.parse_args()
    cache = Path(args.cache) if args.cache else None
    pool = Pool.of([cached_corpus(Path(d), cache) for d in args.datasets])
    if args.name not in {p["corpus"] for p in pool.pages}:
        parser.error(f"{args.name} is not one of the datasets given")
    pool.corpus_weight = balance_corpora(pool, args.corpus_balance)
    test, train = without_corpus(pool, args.name)
    stage1, stage2 = train_two_stage(pool, train, members=args.stage2_members)
    meta = {"left_out": args.name, "pages": len(train), "test_pages": len(test),
            "corpus_balance": args.corpus_balance, "stage2_members": args.stage2_members}
    thresholds = model_file.load(args.model).thresholds
    model_file.save(model_file.ExtractorModel(to_forest(stage1), to_forest(stage2),
                                              dict(thresholds), meta), args.out)
    print(f"{args.out}: learned from {len(train)} pages, none of {args.name}'s "
          f"{len(test)} pages or its sites")


if __name__ == "__main__":
    main()
