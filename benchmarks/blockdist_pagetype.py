"""The block-distribution page-type decision as a classifier, and its speed against the DOM.

News article pages (big9, l3s-gn1, dragnet) are the positives; the negatives are WebKB's
university pages, WCXB's pages whose page_type is not `article`, and portal front pages
(a URL whose path is the site root or an index file, without a query) found in any corpus.
For each page: the deviation of its block distribution (sitesift.methods.blockdist). The
report gives accuracy, balanced accuracy and the confusion table at the method's defaults
(deviation threshold and minimum number of blocks), the threshold sweep, a two-fold
cross-validated rule (fit on one half of every class, tested on the other) so the defaults
are not judged on the pages that set them, and, for comparison with the paper's trained
classifiers, cross-validated depth-2/3/4 decision trees over distribution features. With
--write-tree it trains the tree that `news_decision="tree"` ships (on every corpus but the
held-out ones) and writes it as JSON.

With --speed it also times, on a sample of the same pages, the one streaming Block-List
pass against building the DOM (Lexbor parse, then the full shared DomNode tree), as the
paper compared its Block-List with DOM-tree construction.

    python benchmarks/blockdist_pagetype.py ../shared/datasets [--limit N] [--speed 100]
        [--write-tree src/sitesift/data/blockdist-news-tree.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitesift.datasets import read_index, read_page_bytes
from sitesift.decode import decode_html
from sitesift.errors import SitesiftError
from sitesift.methods.blockdist import (
    BLOCK_TAGS,
    PAPER_BLOCK_TAGS,
    BlockDistParams,
    build_block_list,
    deviation,
    distribution,
)
from sitesift.methods.blockdist_news import FEATURES, features, fit_tree, trees_json
from sitesift.page import Page

NEWS = ("big9", "l3s-gn1", "dragnet")
FRONT_CORPORA = ("big9", "l3s-gn1", "dragnet", "cleaneval", "chaos", "cleanportaleval",
                 "readability", "wcxb")
_INDEX_PATHS = {"", "/index.html", "/index.htm", "/index.php", "/index.asp", "/default.asp",
                "/default.aspx", "/home", "/home.html"}


@dataclass
class Item:
    corpus: str
    id: str
    news: bool
    kind: str  # how the page got its class
    html: str = ""
    deviation: float = 0.0
    blocks: int = 0  # non-empty blocks of the distribution
    features: tuple[float, ...] = ()  # blockdist_news.FEATURES, our block tags
    paper_features: tuple[float, ...] = ()  # the same with the paper's block tags


def is_front_page(url: str | None) -> bool:
    if not url:
        return False
    parts = urlsplit(url)
    return not parts.query and parts.path.rstrip("/").lower() in _INDEX_PATHS


def collect(root: Path, limit: int | None, seed: int) -> list[Item]:
    items: list[Item] = []
    for corpus in sorted(set(NEWS) | set(FRONT_CORPORA) | {"webkb"}):
        if not (root / corpus / "index.jsonl").is_file():
            print(f"skipping {corpus}: not found", file=sys.stderr)
            continue
        for row in read_index(root / corpus):
            front = is_front_page(row.get("url"))
            if front and corpus != "webkb":
                items.append(Item(corpus, row["id"], False, "portal front page"))
            elif corpus in NEWS:
                items.append(Item(corpus, row["id"], True, "news article"))
            elif corpus == "webkb":
                items.append(Item(corpus, row["id"], False, f"webkb {row.get('label')}"))
            elif corpus == "wcxb" and row.get("page_type") not in (None, "article"):
                items.append(Item(corpus, row["id"], False, f"wcxb {row['page_type']}"))
    if limit:  # at most `limit` pages per (corpus, class), seeded
        rng = random.Random(seed)
        groups: dict[tuple[str, bool], list[Item]] = {}
        for item in items:
            groups.setdefault((item.corpus, item.news), []).append(item)
        items = [i for g in groups.values() for i in
                 (rng.sample(g, limit) if len(g) > limit else g)]
    rows = {c: {r["id"]: r for r in read_index(root / c)} for c in {i.corpus for i in items}}
    for item in items:
        row = rows[item.corpus][item.id]
        try:
            data = read_page_bytes(root / item.corpus, row)
            item.html = decode_html(data, row.get("http_content_type")).text
        except SitesiftError:
            item.html = ""
    return [i for i in items if i.html.strip()]


def called_news(item: Item, threshold: float, min_blocks: int) -> bool:
    """The method's decision (BlockDistribution.decide) from the stored figures."""
    return item.deviation >= threshold and item.blocks >= min_blocks


def confusion(items: list[Item], threshold: float,
              min_blocks: int) -> tuple[int, int, int, int]:
    """(true news, news called non-news, non-news called news, true non-news)."""
    called = [called_news(i, threshold, min_blocks) for i in items]
    tp = sum(1 for i, c in zip(items, called, strict=True) if i.news and c)
    fn = sum(1 for i, c in zip(items, called, strict=True) if i.news and not c)
    fp = sum(1 for i, c in zip(items, called, strict=True) if not i.news and c)
    return tp, fn, fp, len(items) - tp - fn - fp


def scores(items: list[Item], threshold: float, min_blocks: int) -> tuple[float, float]:
    tp, fn, fp, tn = confusion(items, threshold, min_blocks)
    acc = (tp + tn) / max(len(items), 1)
    bal = (tp / max(tp + fn, 1) + tn / max(tn + fp, 1)) / 2
    return acc, bal


_THRESHOLDS = (250, 500, 750, 1000, 1250, 1500, 2000, 3000, 5000)


def best_rule(items: list[Item]) -> tuple[float, int]:
    """The (threshold, min_blocks) of highest balanced accuracy (the classes differ a lot
    in size, so plain accuracy would reward calling everything non-news)."""
    grid = [(t, b) for t in _THRESHOLDS for b in range(1, 13)]
    return max(grid, key=lambda tb: scores(items, *tb)[1])


def report(items: list[Item], params: BlockDistParams, seed: int) -> None:
    default = (params.min_deviation, params.min_blocks)
    tp, fn, fp, tn = confusion(items, *default)
    acc, bal = scores(items, *default)
    print(f"pages: {sum(i.news for i in items)} news, {sum(not i.news for i in items)} other")
    print(f"\ndefaults (deviation >= {default[0]:.0f}, >= {default[1]} blocks): "
          f"accuracy {acc:.3f}, balanced accuracy {bal:.3f}\n")
    print("| truth \\ decision | news | not news |\n|---|---|---|")
    print(f"| news article | {tp} | {fn} |\n| not news | {fp} | {tn} |")
    # WebKB's 1997 pages mostly lack layout blocks, which makes them easy: the figures
    # without them show how the decision fares against modern non-article pages.
    modern = [i for i in items if i.corpus != "webkb"]
    acc, bal = scores(modern, *default)
    tp, fn, fp, tn = confusion(modern, *default)
    print(f"\nwithout WebKB ({len(modern)} pages): accuracy {acc:.3f}, balanced accuracy "
          f"{bal:.3f}; news called news {tp}/{tp + fn}, other called other {tn}/{tn + fp}")
    print("\n| kind | pages | called news | median deviation | median blocks |")
    print("|---|---|---|---|---|")
    kinds: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        kinds.setdefault((item.corpus, item.kind if not item.kind.startswith("webkb")
                          else "webkb page"), []).append(item)
    for (corpus, kind), group in sorted(kinds.items()):
        called = sum(1 for i in group if called_news(i, *default))
        med = statistics.median(i.deviation for i in group)
        blocks = statistics.median(i.blocks for i in group)
        print(f"| {corpus}: {kind} | {len(group)} | {called} ({called / len(group):.0%}) "
              f"| {med:.0f} | {blocks:.0f} |")
    print("\n| deviation threshold | accuracy / balanced, any number of blocks "
          f"| accuracy / balanced, >= {default[1]} blocks |\n|---|---|---|")
    for t in _THRESHOLDS:
        a1, b1 = scores(items, t, 0)
        a2, b2 = scores(items, t, default[1])
        print(f"| {t} | {a1:.3f} / {b1:.3f} | {a2:.3f} / {b2:.3f} |")
    rng = random.Random(seed)
    halves: list[list[Item]] = [[], []]
    for cls in (True, False):
        group = [i for i in items if i.news is cls]
        rng.shuffle(group)
        halves[0] += group[: len(group) // 2]
        halves[1] += group[len(group) // 2:]
    print("\n| fit on | threshold, min blocks | tested on | accuracy | balanced accuracy |")
    print("|---|---|---|---|---|")
    for k in (0, 1):
        rule = best_rule(halves[k])
        a, b = scores(halves[1 - k], *rule)
        print(f"| half {k + 1} | {rule[0]:.0f}, {rule[1]} | half {2 - k} | {a:.3f} | {b:.3f} |")
    tree_figures(items, seed)


def tree_figures(items: list[Item], seed: int) -> None:
    """What a trained classifier on distribution features reaches (the paper used Weka's
    naive Bayes, KNN and ADTree): a depth-2 decision tree, 5-fold cross-validated."""
    import numpy as np
    from sklearn.model_selection import cross_val_predict
    from sklearn.tree import DecisionTreeClassifier

    x = np.array([i.features for i in items])
    y = np.array([i.news for i in items])
    for depth in (2, 3, 4):
        tree = DecisionTreeClassifier(max_depth=depth, class_weight="balanced",
                                      random_state=seed)
        pred = cross_val_predict(tree, x, y, cv=5)
        acc = float((pred == y).mean())
        bal = float((pred[y].mean() + (~pred[~y]).mean()) / 2)
        print(f"\ndepth-{depth} decision tree over ({', '.join(FEATURES)}), 5-fold: "
              f"accuracy {acc:.3f}, balanced {bal:.3f}")


def measure(item: Item) -> None:
    """The distribution's figures with our block tags, and the features with the paper's."""
    for tags in (PAPER_BLOCK_TAGS, BLOCK_TAGS):  # ours last: its deviation is reported
        blocks = build_block_list(item.html, tags)
        dist = distribution(blocks)
        item.deviation = deviation(dist)
        item.blocks = len(dist)
        item.features = features(dist, item.deviation, sum(b.anchor_chars for b in blocks))
        if tags is PAPER_BLOCK_TAGS:
            item.paper_features = item.features


def write_tree(items: list[Item], path: Path, exclude: set[str], depth: int,
               seed: int) -> None:
    """Train the shipped news trees (one per block-tag set) on every page outside
    `exclude` (the corpora the method's F1 is reported on); report them on those."""
    train = [i for i in items if i.corpus not in exclude]
    held = [i for i in items if i.corpus in exclude]
    about = (f"depth-{depth} class-balanced CART trees; trained by "
             f"benchmarks/blockdist_pagetype.py on {sum(i.news for i in train)} news and "
             f"{sum(not i.news for i in train)} other pages of "
             f"{', '.join(sorted({i.corpus for i in train}))} (seed {seed})")
    trees = {}
    for tags, pick in (("modern", lambda i: i.features), ("paper", lambda i: i.paper_features)):
        tree = fit_tree([pick(i) for i in train], [i.news for i in train], depth, seed)
        trees[tags] = tree
        tp = sum(1 for i in held if i.news and tree.predict(pick(i)))
        tn = sum(1 for i in held if not i.news and not tree.predict(pick(i)))
        news = sum(i.news for i in held)
        print(f"\n{tags} tags: on the held-out {', '.join(sorted(exclude))}: "
              f"news called news {tp}/{news}, other called other {tn}/{len(held) - news}")
    path.write_text(json.dumps(trees_json(trees, about), indent=1) + "\n", encoding="utf-8")
    print(f"trees written to {path}")


def speed(items: list[Item], sample: int, seed: int) -> None:
    """Median ms per page: the Block-List pass against parsing plus the full DOM tree,
    on up to `sample` pages of each corpus."""
    rng = random.Random(seed)
    by_corpus: dict[str, list[Item]] = {}
    for item in items:
        by_corpus.setdefault(item.corpus, []).append(item)
    print(f"\nspeed, median ms per page (up to {sample} pages of each corpus):\n")
    print("| corpus | pages | Block-List pass + distribution | Lexbor parse "
          "| Lexbor parse + full DomNode tree |\n|---|---|---|---|---|")
    every: list[list[float]] = [[], [], []]
    for corpus, group in sorted(by_corpus.items()):
        chosen = rng.sample(group, min(sample, len(group)))
        times: list[list[float]] = [[], [], []]
        for item in chosen:
            try:
                start = time.perf_counter()
                blocks = build_block_list(item.html)
                deviation(distribution(blocks))
                stream = time.perf_counter()
                page = Page.from_html(item.html)
                parsed = time.perf_counter()
                sum(1 for _ in page.root.iter())  # read every node into the shared tree
                built = time.perf_counter()
            except SitesiftError:
                continue
            for k, ms in enumerate((stream - start, parsed - stream, built - stream)):
                times[k].append(ms * 1000)
                every[k].append(ms * 1000)
        if times[0]:
            print(f"| {corpus} | {len(times[0])} | "
                  + " | ".join(f"{statistics.median(t):.2f}" for t in times) + " |")
    if every[0]:
        print(f"| all | {len(every[0])} | "
              + " | ".join(f"{statistics.median(t):.2f}" for t in every) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", type=Path)
    parser.add_argument("--limit", type=int, help="at most N pages per corpus and class")
    parser.add_argument("--speed", type=int, default=0,
                        help="time up to N sampled pages of each corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write-tree", type=Path,
                        help="train the news tree (news_decision=tree) and write it here")
    parser.add_argument("--tree-depth", type=int, default=3)
    parser.add_argument("--hold-out", default="l3s-gn1,cleanportaleval",
                        help="corpora the written tree is not trained on")
    args = parser.parse_args()
    items = collect(args.datasets, args.limit, args.seed)
    for item in items:
        measure(item)
    report(items, BlockDistParams(), args.seed)
    if args.write_tree:
        write_tree(items, args.write_tree, set(args.hold_out.split(",")), args.tree_depth,
                   args.seed)
    if args.speed:
        speed(items, args.speed, args.seed)


if __name__ == "__main__":
    main()
