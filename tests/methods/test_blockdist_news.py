"""The block-distribution news classifier: its features, its tree, the shipped file."""

from __future__ import annotations

import json

import pytest

from sitesift.methods.blockdist_news import (
    FEATURES,
    NewsTree,
    features,
    fit_tree,
    shipped_tree,
    trees_json,
)


def test_features_of_a_hand_computed_distribution() -> None:
    # D = (10, 500, 20), deviation 970, 30 anchor characters on the page.
    x = features([10, 500, 20], 970.0, 30)
    assert x == (970.0, 3.0, 500.0, 500 / 530, 480.0, 30 / 560)
    assert features([], 0.0, 0) == (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert len(x) == len(FEATURES)


# Node 0 splits on blocks <= 5; node 2 on deviation <= 1000. Leaves: 1 no, 3 no, 4 news.
TREE = NewsTree((1, -2, 0, -2, -2), (5.0, -2.0, 1000.0, -2.0, -2.0), (1, -1, 3, -1, -1),
                (2, -1, 4, -1, -1), (False, False, False, False, True))


@pytest.mark.parametrize(("x", "news"), [
    ((5000.0, 3.0, 0, 0, 0, 0), False),  # few blocks: left at the root
    ((900.0, 20.0, 0, 0, 0, 0), False),  # many blocks, small deviation
    ((1000.0, 20.0, 0, 0, 0, 0), False),  # a threshold goes left (x <= t)
    ((1001.0, 20.0, 0, 0, 0, 0), True),
])
def test_tree_walks_left_on_at_most_the_threshold(x: tuple[float, ...], news: bool) -> None:
    assert TREE.predict(x) is news


def test_tree_json_round_trip() -> None:
    data = json.loads(json.dumps(trees_json({"modern": TREE}, "toy")))
    assert data["features"] == list(FEATURES)
    assert NewsTree.from_json(data["trees"]["modern"]) == TREE


def test_shipped_trees_load_for_both_tag_sets() -> None:
    for tags in ("modern", "paper"):
        tree = shipped_tree(tags)
        assert tree.feature[0] >= 0 and len(tree.news) == len(tree.feature)


def test_fit_tree_finds_a_separating_split() -> None:
    pytest.importorskip("sklearn")
    x = [(float(d), 10.0, 0.0, 0.0, 0.0, 0.0) for d in (100, 200, 300, 2000, 3000, 4000)]
    y = [False, False, False, True, True, True]
    tree = fit_tree(x, y, depth=1, seed=0)
    assert tree.feature[0] == 0 and 300 < tree.threshold[0] < 2000
    assert [tree.predict(v) for v in x] == y
