"""The block-distribution news decision as a trained classifier (`news_decision="tree"`).

Qiu et al. decide whether a page holds news with classifiers trained on its block
distribution (Weka's naive Bayes, KNN and ADTree; ADTree best, 98.3 % accuracy on their
Dataset1). The extracted text of the paper does not name its features, so ours are the
distribution's figures below, and the classifier is a small CART decision tree
(scikit-learn, class-balanced), standing in for the ADTree. It is trained once by
`python benchmarks/blockdist_pagetype.py DATASETS --write-tree PATH` and shipped as
plain JSON (sitesift/data/blockdist-news-tree.json), so cleaning needs no scikit-learn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

SHIPPED = "data/blockdist-news-tree.json"
# The features, in the order the tree reads them.
FEATURES = ("deviation", "blocks", "longest", "longest_share", "gap", "link_share")


def features(dist: list[int], dev: float, anchor_chars: int) -> tuple[float, ...]:
    """(deviation, number of blocks, longest block, its share of all content, its lead
    over the second longest, the page's share of anchor text) of a block distribution."""
    total = sum(dist)
    ranked = [*sorted(dist, reverse=True), 0, 0]
    return (dev, float(len(dist)), float(ranked[0]), ranked[0] / (total or 1),
            float(ranked[0] - ranked[1]), anchor_chars / ((anchor_chars + total) or 1))


@dataclass(frozen=True, slots=True)
class NewsTree:
    """A binary decision tree: node i is a leaf when feature[i] < 0 (its verdict in
    news[i]), else x[feature[i]] <= threshold[i] goes to left[i], otherwise to right[i]."""

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    news: tuple[bool, ...]

    def predict(self, x: tuple[float, ...]) -> bool:
        node = 0
        while self.feature[node] >= 0:
            go_left = x[self.feature[node]] <= self.threshold[node]
            node = self.left[node] if go_left else self.right[node]
        return self.news[node]

    def to_json(self) -> dict[str, Any]:
        return {"feature": list(self.feature), "threshold": list(self.threshold),
                "left": list(self.left), "right": list(self.right), "news": list(self.news)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NewsTree:
        return cls(tuple(data["feature"]), tuple(data["threshold"]), tuple(data["left"]),
                   tuple(data["right"]), tuple(bool(v) for v in data["news"]))


def trees_json(trees: dict[str, NewsTree], about: str) -> dict[str, Any]:
    """The shipped file: one tree per `block_tags` value (the distribution, hence its
    figures, depends on which tags open blocks)."""
    return {"about": about, "features": list(FEATURES),
            "trees": {tags: tree.to_json() for tags, tree in trees.items()}}


def fit_tree(x: list[tuple[float, ...]], y: list[bool], depth: int, seed: int) -> NewsTree:
    """A class-balanced CART tree of at most `depth` levels (scikit-learn, at training
    time only): the classes differ a lot in size."""
    from sklearn.tree import DecisionTreeClassifier

    model = DecisionTreeClassifier(max_depth=depth, class_weight="balanced",
                                   random_state=seed).fit(x, y)
    t = model.tree_
    news_column = list(model.classes_).index(True)
    return NewsTree(tuple(int(f) for f in t.feature), tuple(float(v) for v in t.threshold),
                    tuple(int(v) for v in t.children_left),
                    tuple(int(v) for v in t.children_right),
                    tuple(bool(v[0].argmax() == news_column) for v in t.value))


@cache
def shipped_tree(block_tags: str) -> NewsTree:
    """The shipped tree for distributions built with `block_tags` ("modern" or "paper")."""
    data = json.loads(resources.files("sitesift").joinpath(SHIPPED).read_text("utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise ValueError("blockdist: the shipped news tree was trained on other features")
    return NewsTree.from_json(data["trees"][block_tags])
