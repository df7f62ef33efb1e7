"""Regularized tree isotonic regression: the DP against brute force, and its guarantees."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesift.methods.isotonic.regression import is_monotone, objective, sections, smooth_tree


def brute_force(parents: list[int], x: list[float], c: float,
                w: list[float] | None = None, increasing: bool = True) -> float:
    """The optimum by trying every monotone labelling with values from the scores
    (depth-first in node order, each node only values allowed by its parent's)."""
    n = len(x)
    w = w or [1.0] * n
    values = sorted(set(x))
    ys = [0.0] * n
    best = float("inf")

    def go(i: int, cost: float) -> None:
        nonlocal best
        if cost >= best:
            return
        if i == n:
            best = cost
            return
        p = parents[i]
        for v in values:
            if p >= 0 and (v < ys[p] if increasing else v > ys[p]):
                continue
            ys[i] = v
            go(i + 1, cost + w[i] * abs(x[i] - v) + (c if p < 0 or v != ys[p] else 0.0))

    go(0, 0.0)
    return best


@st.composite
def trees(draw: st.DrawFn, max_nodes: int = 6) -> tuple[list[int], list[float], list[float]]:
    """A random forest in parent-before-child order, with scores (often tied) and weights."""
    n = draw(st.integers(1, max_nodes))
    parents = [-1]
    for i in range(1, n):
        parents.append(draw(st.integers(-1, i - 1)) if draw(st.booleans()) else
                       draw(st.integers(0, i - 1)))
    values = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]),
                       st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 3)))
    x = draw(st.lists(values, min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    return parents, x, w


costs = st.sampled_from([0.0, 0.05, 0.3, 1.0, 10.0])


@settings(max_examples=300, deadline=None)
@given(trees(), costs, st.booleans())
def test_dp_equals_brute_force(tree: tuple[list[int], list[float], list[float]], c: float,
                               increasing: bool) -> None:
    parents, x, w = tree
    out = smooth_tree(parents, x, c, w, increasing=increasing)
    assert out.cost == pytest.approx(brute_force(parents, x, c, w, increasing), abs=1e-9)
    # the reported cost is the cost of the returned labelling
    assert objective(parents, x, out.values, c, w) == pytest.approx(out.cost, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(trees(max_nodes=40), costs, st.booleans())
def test_output_is_monotone_and_from_the_scores(
        tree: tuple[list[int], list[float], list[float]], c: float, increasing: bool) -> None:
    parents, x, _ = tree
    out = smooth_tree(parents, x, c, increasing=increasing)
    assert is_monotone(parents, out.values, increasing)
    assert set(out.values.tolist()) <= set(x)  # the lemma: every y is some x
    section, tops = sections(parents, out.values)
    assert np.array_equal(section, out.section) and np.array_equal(tops, out.tops)
    assert out.n_values <= out.n_sections


@settings(max_examples=100, deadline=None)
@given(trees(max_nodes=30))
def test_more_section_cost_never_more_sections(
        tree: tuple[list[int], list[float], list[float]]) -> None:
    parents, x, _ = tree
    counts = [smooth_tree(parents, x, c).n_sections for c in (0.0, 0.1, 0.5, 2.0, 100.0)]
    assert counts == sorted(counts, reverse=True)
    roots = sum(p < 0 for p in parents)
    assert counts[-1] == roots  # at a huge c every tree is one section


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 2)), min_size=1,
                max_size=6), costs)
def test_on_a_path_sections_are_distinct_values(x: list[float], c: float) -> None:
    """On a chain equal values are contiguous: the seed's "number of distinct y" exactly."""
    parents = [-1, *range(len(x) - 1)]
    out = smooth_tree(parents, x, c)
    assert out.n_sections == out.n_values
    values = sorted(set(x))
    best = float("inf")

    def go(ys: list[float]) -> None:  # every non-decreasing chain of score values
        nonlocal best
        if len(ys) == len(x):
            cost = sum(abs(a - b) for a, b in zip(x, ys, strict=True)) + c * len(set(ys))
            best = min(best, cost)
            return
        for v in values:
            if not ys or v >= ys[-1]:
                go([*ys, v])

    go([])
    assert out.cost == pytest.approx(best, abs=1e-9)


def test_zero_cost_is_plain_isotonic_regression_and_keeps_monotone_input() -> None:
    parents = [-1, 0, 0, 1, 1]
    x = [0.1, 0.4, 0.3, 0.9, 0.5]  # already monotone: nothing to change at c = 0
    out = smooth_tree(parents, x, 0.0)
    assert out.values.tolist() == x
    assert out.n_sections == 5


def test_a_misclassified_node_is_corrected() -> None:
    # A menu (node 1) of five template links, one of which the classifier doubted.
    parents = [-1, 0, 1, 1, 1, 1, 1, 0]
    x = [0.1, 0.9, 0.95, 0.9, 0.2, 0.92, 0.88, 0.05]
    out = smooth_tree(parents, x, 0.5)
    assert out.values[4] >= 0.88            # the doubted link joins its menu
    assert out.values[7] == pytest.approx(0.05) and out.values[0] == pytest.approx(0.05)
    assert out.n_sections == 2              # the page and its menu


@pytest.mark.parametrize(("parents", "scores", "c", "weights", "message"), [
    ([0], [0.5], 1.0, None, "parents\\[0\\]"),
    ([-1, 1], [0.5, 0.5], 1.0, None, "parents\\[1\\]"),
    ([-1, 0], [0.5], 1.0, None, "1 scores for 2 nodes"),
    ([-1], [float("nan")], 1.0, None, "finite"),
    ([-1], [0.5], -1.0, None, "section cost"),
    ([-1], [0.5], 1.0, [-1.0], "weights"),
], ids=["root-not-minus-one", "parent-after-child", "length", "nan", "negative-c",
        "negative-weight"])
def test_bad_input_is_refused(parents: list[int], scores: list[float], c: float,
                              weights: list[float] | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        smooth_tree(parents, scores, c, weights)


def test_empty_tree() -> None:
    out = smooth_tree([], [], 1.0)
    assert out.values.size == 0 and out.n_sections == 0 and out.cost == 0.0


def test_three_thousand_nodes_in_well_under_a_second() -> None:
    import time

    rng = np.random.default_rng(0)
    parents = [-1] + [int(rng.integers(max(0, i - 20), i)) for i in range(1, 3000)]
    x = rng.random(3000)
    start = time.process_time()
    out = smooth_tree(parents, x, 0.5)
    assert time.process_time() - start < 2.0  # measured ~0.2 s CPU; slack for loaded CI
    assert is_monotone(parents, out.values)
