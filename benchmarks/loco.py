"""Leave-one-corpus-out: the default cleaner's yardstick for corpora it never saw (issue 30).

    OMP_NUM_THREADS=1 python benchmarks/loco.py DATASET... --cache cache --out loco \\
        [--seeds 1] [--seed 0] [--stage2-members 3] [--corpus-balance 0]
        [--model src/sitesift/data/default-v1.json.gz | --thresholds JSON]
        [--peers bench-out/pages.jsonl]
    python benchmarks/loco.py DATASET... --cache cache --out loco --combine loco-s0 loco-s1
    OMP_NUM_THREADS=1 python benchmarks/loco.py DATASET... --cache cache --out loco \\
        --seeds 3 --distil 150 [--only readability wcxb]

For each corpus, the two stages are trained as the shipped model is (same recipe and
settings) on the other corpora alone and on none of that corpus's sites
(`sitesift.training.default.stages.heldout_corpora`), with `--seeds` members averaged, and its
pages are scored at `--model`'s balanced and precision presets as the cleaner cuts them
(train-default's own scoring, the per-page cut included). Writes to `--out`:
- `pages.jsonl`: one row per page and preset: corpus, id, page type, P, R, F1;
- `blocks.npz`: every block's held-out probability (`p2`), its page (`page`) and the
  page bounds, for error analysis (`texts.json` holds the block texts);
- `summary.md`: mean F1 (P, R) per corpus and wcxb page type at each preset, beside the
  best peer per corpus where `--peers` gives a `sitesift bench` run's `pages.jsonl`
  (the same pages: mean F1, and precision for trafilatura-precision).

`--distil N` also trains, for each corpus held out, one two-stage student of N trees a stage
on what the `--seeds` members (its teachers) say about the training pages
(`stages.distil`), and writes the student's run to `--out` and the teachers' to
`--out`/teacher, each readable by cut_loco.py. `--only` holds out those corpora alone
(the others still train), with or without `--distil`; its runs hold their pages alone (give
cut_loco.py those corpora): two runs of halves side by side on two cores make one run.

`--combine` trains nothing: it averages the block probabilities of runs made one seed each
(`--seed 0`, `--seed 1`, run side by side on two cores), as `--seeds 2` would, and scores
them again. The runs must be of the same pages and cache.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from sitesift.extractor import model as model_file
from sitesift.training.default.dataset import cached_corpus
from sitesift.training.default.pool import Pool, balance_corpora
from sitesift.training.default.stages import (
    _log,
    distil,
    heldout_corpora,
    stage2_matrix,
    train_two_stage,
    without_corpus,
)
from sitesift.training.default.thresholds import page_max, page_scores

PRESETS = ("balanced", "precision")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--cache", help="train-default's cache folder (reused)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stage2-members", type=int, default=3)
    parser.add_argument("--corpus-balance", type=float, default=0.0)
    parser.add_argument("--model", default=str(model_file.BUNDLED),
                        help="the model whose preset thresholds cut the probabilities")
    parser.add_argument("--thresholds", help="the presets' thresholds as JSON, in place of "
                        "--model's (for features the shipped model was not trained on)")
    parser.add_argument("--peers", help="a `sitesift bench --out` run's pages.jsonl")
    parser.add_argument("--distil", type=int, default=0, metavar="TREES",
                        help="also train a student of TREES trees a stage on the members")
    parser.add_argument("--only", nargs="+", metavar="CORPUS", help="hold out these alone")
    parser.add_argument("--combine", nargs="+", metavar="RUN",
                        help="average these runs' block probabilities instead of training")
    args = parser.parse_args()
    if args.seeds < 1 or args.stage2_members < 1:
        parser.error("--seeds and --stage2-members are at least 1")
    runs = [Path(r) / "blocks.npz" for r in args.combine or []]
    if missing := [str(r) for r in runs if not r.is_file()]:
        parser.error(f"--combine: no loco.py run at {', '.join(missing)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache) if args.cache else None
    start = time.process_time()
    pool = Pool.of([cached_corpus(Path(d), cache, progress=True) for d in args.datasets])
    pool.corpus_weight = balance_corpora(pool, args.corpus_balance)
    if args.distil:
        student, teacher, pages = distilled(pool, args.seed, args.seeds, args.stage2_members,
                                            args.distil, args.only)
        source = (f"a student of {args.distil} trees a stage taught by {args.seeds} seed(s) "
                  f"from {args.seed}, stage 2 of {args.stage2_members} forests")
        write(pool, teacher, pages, out / "teacher", args, source.split(" taught by ")[1],
              start)
        write(pool, student, pages, out, args, source, start)
        return
    if runs:
        p2 = combined(runs, pool)
        source = f"the mean of {len(runs)} runs ({', '.join(args.combine)})"
    else:
        p2 = np.mean([heldout_corpora(pool, seed=s, members=args.stage2_members,
                                      only=args.only)
                      for s in range(args.seed, args.seed + args.seeds)], axis=0)
        source = (f"{args.seeds} seed(s) from {args.seed}, stage 2 of {args.stage2_members} "
                  f"forests, corpus balance {args.corpus_balance}")
    pages = np.arange(len(pool.pages))
    if args.only and not runs:
        pages = np.asarray([i for i, p in enumerate(pool.pages) if p["corpus"] in args.only])
    write(pool, p2, pages, out, args, source, start)


def write(pool: Pool, p2: np.ndarray, pages: np.ndarray, out: Path, args: argparse.Namespace,
          source: str, start: float) -> None:
    """The run's files for `pages` (pages.jsonl, blocks.npz, texts.json, summary.md)."""
    out.mkdir(parents=True, exist_ok=True)
    if len(pages) < len(pool.pages):
        pool, p2 = subpool(pool, pages), p2[pool.rows(pages)]
    thresholds = (json.loads(args.thresholds) if args.thresholds
                  else model_file.load(args.model).thresholds)
    rows: list[dict[str, Any]] = []
    for preset in PRESETS:
        t = float(thresholds[preset])
        cut = model_file.page_cut(t, page_max(pool, p2), float(thresholds["balanced"]),
                                  n_blocks=np.diff(pool.bounds))
        rows += [{**r, "preset": preset} for r in page_scores(pool, p2, cut)]
    with open(out / "pages.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    np.savez_compressed(out / "blocks.npz", p2=p2, page=pool.page, bounds=pool.bounds)
    (out / "texts.json").write_text(json.dumps(pool.texts, ensure_ascii=False), "utf-8")
    peers = best_peers(Path(args.peers), {(r["corpus"], r["id"]) for r in rows}) \
        if args.peers else {}
    cpu = time.process_time() - start
    summary = table(rows, peers, source, cpu)
    (out / "summary.md").write_text(summary, "utf-8")
    print(summary)



def subpool(pool: Pool, pages: np.ndarray) -> Pool:
    """The pool of `pages` alone (their rows in order)."""
    rows = pool.rows(pages)
    renumber = np.full(len(pool.pages), -1)
    renumber[pages] = np.arange(len(pages))
    return Pool(pool.X[rows], pool.share[rows], pool.ntok[rows], pool.anc[rows],
                renumber[pool.page[rows]], [pool.pages[i] for i in pages],
                [pool.texts[j] for j in rows])


def distilled(pool: Pool, seed: int, seeds: int, stage2_members: int, trees: int,
              only: list[str] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per corpus held out (`only`'s, or all): the student's and the teachers' (mean)
    block probabilities, and the pages they cover."""
    student = np.full(len(pool.share), np.nan)
    teacher = np.full(len(pool.share), np.nan)
    names = only or list(dict.fromkeys(p["corpus"] for p in pool.pages))
    covered = []
    params = {"max_iter": trees}
    for name in names:
        test, train = without_corpus(pool, name)
        if len(test) == 0 or len(train) == 0:
            raise SystemExit(f"loco.py --distil: nothing to hold out or train for {name}")
        covered.append(test)
        teachers = []
        te = pool.rows(test)
        p1 = np.full(len(pool.share), np.nan)
        p2 = np.zeros(len(te))
        for s in range(seed, seed + seeds):
            _log(f"held-out corpus {name}: teacher seed {s}")
            model = train_two_stage(pool, train, seed=s, members=stage2_members)
            teachers.append(model)
            p1[te] = model[0].predict_proba(pool.X[te])[:, 1]
            p2 += model[1].predict_proba(stage2_matrix(pool, test, p1))[:, 1]
        teacher[te] = p2 / seeds
        _log(f"held-out corpus {name}: student of {trees} trees a stage")
        s1, s2 = distil(pool, train, teachers, params1=params, params2=params, seed=seed)
        p1[te] = s1.predict_proba(pool.X[te])[:, 1]
        student[te] = s2.predict_proba(stage2_matrix(pool, test, p1))[:, 1]
    pages = np.sort(np.concatenate(covered))
    return student, teacher, pages


def combined(runs: list[Path], pool: Pool) -> np.ndarray:
    """The mean of the runs' block probabilities, each checked to be of the pool's blocks
    (same pages, same bounds), as `--seeds` averages its members."""
    probs = []
    for run in runs:
        got = np.load(run)
        if not (np.array_equal(got["page"], pool.page)
                and np.array_equal(got["bounds"], pool.bounds)):
            raise SystemExit(f"loco.py --combine: {run} holds other pages or blocks than the "
                             "datasets and cache given")
        probs.append(got["p2"])
    return np.mean(probs, axis=0)


def best_peers(path: Path, pages: set[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """Per corpus: the peer of best mean F1 on these pages, and trafilatura-precision's
    mean precision (the precision preset's mark)."""
    scores: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(list))
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            corpus, page_id, method = r.get("corpus"), str(r.get("id")), r.get("method")
            if (corpus, page_id) not in pages or method is None or r.get("kind") == "ours":
                continue
            f1 = r.get("f1") if r.get("error") in (None, "") else 0.0
            scores[(corpus, method)]["f1"].append(float(f1 or 0.0))
            scores[(corpus, method)]["precision"].append(float(r.get("precision") or 0.0))
    best: dict[str, dict[str, Any]] = {}
    for (corpus, method), got in scores.items():
        mean = float(np.mean(got["f1"]))
        if mean > best.get(corpus, {}).get("f1", -1.0):
            best[corpus] = {**best.get(corpus, {}), "method": method, "f1": mean}
        if method == "trafilatura-precision":
            best.setdefault(corpus, {})["tp_precision"] = float(np.mean(got["precision"]))
    return best


def table(rows: list[dict[str, Any]], peers: dict[str, dict[str, Any]],
          source: str, cpu: float) -> str:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["preset"], r["corpus"])].append(r)
        if r.get("page_type"):
            groups[(r["preset"], f"{r['corpus']}/{r['page_type']}")].append(r)
    names = sorted({name for _, name in groups}, key=lambda n: (n.split("/")[0], "/" in n, n))

    def mean(preset: str, name: str, metric: str) -> float:
        return float(np.mean([r[metric] for r in groups[(preset, name)]]))

    lines = [f"Leave-one-corpus-out, {source}; {cpu:.0f} s CPU", "",
             "| corpus | pages | balanced F1 (P / R) | best peer | precision preset P "
             "| trafilatura-precision P |", "|---|---|---|---|---|---|"]
    for name in names:
        n = len(groups[("balanced", name)])
        peer = peers.get(name, {})
        best = f"{peer['f1']:.3f} {peer['method']}" if "f1" in peer else ""
        tp = f"{peer['tp_precision']:.3f}" if "tp_precision" in peer else ""
        lines.append(
            f"| {name} | {n} | {mean('balanced', name, 'f1'):.3f} "
            f"({mean('balanced', name, 'precision'):.3f} / {mean('balanced', name, 'recall'):.3f})"
            f" | {best} | {mean('precision', name, 'precision'):.3f} | {tp} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
