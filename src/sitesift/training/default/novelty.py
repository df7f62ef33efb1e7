"""The reference of a model's training pages (`extractor.novelty`), made from the training
pool, and which pages leave-one-corpus-out scores are unlike their model's training pages."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from sitesift.extractor import novelty as novelty_file
from sitesift.training.default.pool import Pool
from sitesift.training.default.stages import _log, without_corpus


def reference(pool: Pool) -> dict[str, Any]:
    """The model file's reference of the pool's pages, by site."""
    _log("novelty reference of the training pages")
    desc = novelty_file.descriptors(pool.X, pool.ntok, pool.bounds)
    return novelty_file.build(desc, [str(p["cv"]) for p in pool.pages])


def heldout_unlike(pool: Pool) -> np.ndarray:
    """Per page of the pool: whether it is unlike the training pages of the model
    `stages.heldout_corpora` scores it with (the other corpora, none of its corpus's
    sites): what the cleaner would find with such a model."""
    desc = novelty_file.descriptors(pool.X, pool.ntok, pool.bounds)
    out = np.zeros(len(pool.pages), dtype=bool)
    for name in dict.fromkeys(p["corpus"] for p in pool.pages):
        test, train = without_corpus(pool, name)
        if len(train) == 0 or len(test) == 0:
            continue
        doc = novelty_file.build(desc[train], [str(pool.pages[i]["cv"]) for i in train])
        out[test] = novelty_file.unlike(doc, desc[test])
    return out


def main(argv: list[str] | None = None) -> None:
    """Give a model trained before models carried a reference the reference of the corpora
    it was trained on, without training it again:

        python -m sitesift.training.default.novelty MODEL DATASET... --cache cache [--out OUT]
    """
    import argparse
    from pathlib import Path

    from sitesift.extractor import model as model_file
    from sitesift.training.default.dataset import cached_corpus

    parser = argparse.ArgumentParser(description=(main.__doc__ or "").split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("datasets", nargs="+", help="the corpora the model was trained on")
    parser.add_argument("--cache", help="train-default's cache folder (reused)")
    parser.add_argument("--out", help="where to write it (default: over MODEL)")
    args = parser.parse_args(argv)
    model = model_file.load(args.model)
    cache = Path(args.cache) if args.cache else None
    pool = Pool.of([cached_corpus(Path(d), cache, progress=True) for d in args.datasets])
    trained_on = model.meta.get("corpora")
    if trained_on and sorted(trained_on) != sorted({p["corpus"] for p in pool.pages}):
        parser.error(f"the model was trained on {', '.join(trained_on)}")
    model_file.save(replace(model, novelty=reference(pool)), args.out or args.model)


if __name__ == "__main__":
    main()
