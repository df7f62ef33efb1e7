"""Isotonic smoothing `preset=paper`: the seed's regulariser (distinct values), its loss,
raw scores and every DOM node, pinned on hand-computed trees."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sitesift.methods.base import get_cleaner
from sitesift.methods.isotonic import IsotonicCleaner, IsotonicParams
from sitesift.methods.isotonic.distinct import (
    _add_up,
    _costs,
    _levels,
    _rows,
    _shortest_path,
    smooth_tree_values,
)
from sitesift.methods.isotonic.features import node_table
from sitesift.methods.isotonic.regression import _checked, is_monotone, objective, smooth_tree
from sitesift.page import Page

# 0 -> 1, 2; 1 -> 3, 4: a low root over two high subtrees.
PARENTS = [-1, 0, 0, 1, 1]
X = [0.0, 0.8, 0.8, 0.8, 0.8]


def _brute(parents: list[int], x: np.ndarray, c: float, w: np.ndarray) -> float:
    """The seed's objective minimised by enumerating every labelling from the x (its lemma)."""
    best = float("inf")
    for ys in itertools.product(np.unique(x), repeat=len(x)):
        y = np.asarray(ys)
        if is_monotone(parents, y):
            best = min(best, float(np.sum(w * np.abs(x - y))) + c * len(set(ys)))
    return best


def test_five_nodes_by_hand_values_against_sections() -> None:
    # c = 0.5. Root 0 and every other node 0.8: loss 0, 2 values (cost 1.0) but 3
    # sections (cost 1.5). Everything at 0.8: loss 0.8, one value and one section (1.3).
    # Everything at 0: loss 3.2 + 0.5 = 3.7.
    values = smooth_tree_values(PARENTS, X, 0.5)
    assert values.values.tolist() == X
    assert values.cost == pytest.approx(1.0)
    assert (values.n_values, values.n_sections) == (2, 3)
    sections = smooth_tree(PARENTS, X, 0.5)
    assert sections.values.tolist() == [0.8] * 5
    assert sections.cost == pytest.approx(1.3)
    # Past c = 0.8 one value wins in both: 0.8 + c against 2c.
    assert smooth_tree_values(PARENTS, X, 0.9).values.tolist() == [0.8] * 5


def test_a_child_below_its_parent_is_pooled_with_it() -> None:
    # Node 1 (0.2) under the root (0.6): the two share one value in [0.2, 0.6] at loss 0.4,
    # the 0.9 leaves keep theirs: 0.4 + 2 * 0.1.
    x = np.asarray([0.6, 0.2, 0.9, 0.9, 0.9])
    out = smooth_tree_values(PARENTS, x, 0.1)
    assert out.cost == pytest.approx(0.6)
    assert out.values[0] == out.values[1] and out.values[0] in (0.2, 0.6)
    assert out.values[2:].tolist() == [0.9, 0.9, 0.9]


def test_exact_on_random_small_trees() -> None:
    rng = np.random.default_rng(7)
    for _ in range(60):
        n = int(rng.integers(1, 6))
        parents = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
        x = np.round(rng.random(n), 1) if rng.random() < 0.5 else rng.random(n)
        w = rng.random(n) + 0.1 if rng.random() < 0.5 else np.ones(n)
        c = float(rng.choice([0.0, 0.05, 0.2, 0.5, 2.0]))
        out = smooth_tree_values(parents, x, c, w)
        assert is_monotone(parents, out.values)
        assert out.cost == pytest.approx(_brute(parents, x, c, w), abs=1e-9)
        # never worse than the section DP's labelling on the seed's objective
        sec = smooth_tree(parents, x, c, w).values
        assert out.cost <= objective(parents, x, sec, 0.0, w) + c * len(set(sec)) + 1e-9


def test_a_forest_and_an_empty_tree() -> None:
    out = smooth_tree_values([-1, -1, 0], [0.9, 0.1, 0.95], 0.01)
    assert out.values.tolist() == [0.9, 0.1, 0.95]
    assert smooth_tree_values([], [], 1.0).values.size == 0


def test_the_preset_sets_the_paper_switches_and_explicit_fields_win() -> None:
    p = IsotonicCleaner(preset="paper").params
    assert (p.regularizer, p.weighting, p.grid, p.nodes) == ("values", "none", None, "all")
    assert IsotonicParams.from_preset("paper", nodes="blocks").nodes == "blocks"
    assert get_cleaner("isotonic", preset="paper").params.preset == "paper"


@pytest.mark.parametrize(("field", "value", "message"), [
    ("preset", "book", "preset must be one of default, paper"),
    ("regularizer", "levels", "regularizer must be one of"),
    ("nodes", "leaves", "nodes must be one of"),
    ("grid", 0.0, "grid must be"),
])
def test_bad_paper_switches_are_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IsotonicParams(**{field: value})


def test_every_element_with_text_is_scored_in_the_paper_tree() -> None:
    page = Page.from_html('<body><div><p>one <a href="/">two</a> <b>three</b></p>'
                          "<span></span></div></body>")
    assert [n.tag for n in node_table(page).nodes] == ["body", "div", "p", "#text"]
    assert [n.tag for n in node_table(page, every=True).nodes] == ["body", "div", "p", "a",
                                                                   "b"]


def test_paper_mode_smooths_the_raw_scores() -> None:
    page = Page.from_html("<body><ul><li><a href='/'>Home</a></li><li><a href='/n'>News</a>"
                          "</li></ul><p>The council approved the new budget on Tuesday after "
                          "a long debate. Members said the plan would fund repairs.</p>"
                          "<p>Copyright 2024. All rights reserved.</p></body>")
    table, x, y = IsotonicCleaner(preset="paper").templateness(page)
    assert y is not None
    assert set(y.tolist()) <= set(x.tolist())  # the lemma: no grid in between
    assert is_monotone(table.parents, y)


def _search_every_value(parents: list[int], scores: np.ndarray, c: float,
                        weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The shortest path as it was before issue 52: every value below v[q] tried, the
    closure DP on gathered rows. D(q) and the value below each."""
    par, x, w = _checked(parents, scores, c, weights)
    v = np.unique(x)
    levels = _levels(par)
    below = np.array([float(np.sum(w * np.maximum(u - x, 0.0))) for u in v])
    best, prev = np.empty(v.size), np.full(v.size, -1, dtype=np.int64)
    for q in range(v.size):
        best[q] = below[q] + c
        if q:
            inside, outside = _costs(x, w, v[:q], v[q])
            whole, kids, total = inside, np.zeros_like(inside), np.zeros(q)
            for level in levels:
                here = level.nodes
                low = np.minimum(outside[here] + kids[here], whole[here])
                _add_up(kids, level, low)
                _add_up(whole, level, whole[here])
                total += low[level.roots].sum(axis=0)
            cand = best[:q] + total + c
            p = int(np.argmin(cand))
            if cand[p] < best[q]:
                best[q], prev[q] = cand[p], p
    return best, prev


def test_the_pruned_search_finds_what_the_search_over_every_value_finds_to_the_bit() -> None:
    """`_shortest_path` tries only the values below that no larger one has beaten (F is
    Monge): the same D(q) and the same value below, bit for bit, ties included (rounded
    scores make many), on trees deep and wide, forests, weights or none."""
    rng = np.random.default_rng(52)
    for trial in range(24):
        n = int(rng.integers(2, 260))
        deep = trial % 3 == 0
        parents = [-1] + [int(rng.integers(max(0, i - 3) if deep else 0, i))
                          if rng.random() > 0.02 else -1 for i in range(1, n)]
        x = rng.random(n)
        if trial % 2:
            x = np.round(x, 1 + trial % 3)
        w = None if trial % 4 < 2 else rng.random(n) * 5
        c = float(rng.choice([0.0, 0.05, 0.5, 2.0]))
        want_best, want_prev = _search_every_value(parents, x, c, w)
        par, xs, ws = _checked(parents, x, c, w)
        v = np.unique(xs)
        below = np.array([float(np.sum(ws * np.maximum(u - xs, 0.0))) for u in v])
        best, prev = _shortest_path(_rows(_levels(par), xs, ws), v, below, c)
        assert np.array_equal(best, want_best), trial
        assert np.array_equal(prev, want_prev), trial
