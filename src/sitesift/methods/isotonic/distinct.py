"""Regularized tree isotonic regression with the seed's regulariser as written: the number
of *distinct* values (Chakrabarti, Kumar & Punera, WWW 2007),

    sum_i w_i |x_i - y_i|  +  c * |{y_1, ..., y_n}|,   y_parent <= y_child on every edge.

`regression.smooth_tree` counts sections (connected runs of one value) instead, which
decomposes over subtrees; two sibling sections at one value cost c twice there and once
here. Counting distinct values is a global choice of a value set V, and is still solved
exactly, by cutting the L1 loss at thresholds:

- |x - y| = integral over t of |[x >= t] - [y >= t]|, and {i : y_i >= t} is closed
  downwards (a parent in it puts its children in it). With values in V = {u_1 < ... < u_k}
  (each among the x_j: the seed's lemma), the set is all nodes for t <= u_1, none above
  u_k, and one closed set U_l = {y >= u_l} for t in (u_{l-1}, u_l].
- So cost(V) = c k + A(u_1) + sum_l F(u_{l-1}, u_l) + B(u_k), where A(u) = sum w (u - x)^+,
  B(u) = sum w (x - u)^+ and F(a, b) = min over closed U of sum_{i in U} w_i (b - max(x_i,
  a))^+ + sum_{i not in U} w_i (min(x_i, b) - a)^+: a tree DP, O(n) per pair.
- Each F is minimised on its own: per unit of threshold a node's cost of being in U only
  grows from one interval to the next higher, so the smallest minimisers are nested and
  together form a monotone labelling. The best V is then a shortest path over the sorted
  candidate values: O(n m^2) at most for m distinct scores (far less: `_shortest_path`
  tries only the candidates no larger one has beaten), against the section DP's O(n m).

Ties: the smallest closed set in each interval (a node stays below when that is as good),
the fewest values, then the smallest last value.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitesift.methods.isotonic.regression import Smoothed, _checked, _sections_from

if TYPE_CHECKING:
    import numpy as np


def smooth_tree_values(parents: Sequence[int] | np.ndarray,
                       scores: Sequence[float] | np.ndarray, c: float,
                       weights: Sequence[float] | np.ndarray | None = None) -> Smoothed:
    """Exact minimiser of sum w |x - y| + c * (distinct values), y_parent <= y_child.
    `Smoothed.cost` is that objective (not the section count's)."""
    import numpy as np
    par, x, w = _checked(parents, scores, c, weights)
    n = x.size
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Smoothed(np.zeros(0), empty, empty, 0.0)
    v = np.unique(x)
    levels = _levels(par)
    below = np.array([float(np.sum(w * np.maximum(u - x, 0.0))) for u in v])  # A
    above = np.array([float(np.sum(w * np.maximum(x - u, 0.0))) for u in v])  # B
    best, prev = _shortest_path(_rows(levels, x, w), v, below, c)
    totals = best + above
    q = int(np.argmin(totals))
    chosen = [q]
    while prev[chosen[-1]] >= 0:
        chosen.append(int(prev[chosen[-1]]))
    chosen.reverse()
    y = np.full(n, v[chosen[0]])
    for lo, hi in itertools.pairwise(chosen):
        inside = _closed_set(par, levels, x, w, v[lo], v[hi])
        y[inside] = v[hi]
    labels = np.searchsorted(v, y)
    section, tops = _sections_from(par, labels)
    cost = float(np.sum(w * np.abs(x - y))) + c * len(np.unique(y))
    return Smoothed(y, section, tops, cost)


def _shortest_path(rows: _Rows, v: np.ndarray, below: np.ndarray, c: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """D(q), the best cost of values up to v[q] with v[q] the largest, and the value below
    v[q] on that path (-1: none). D(q) = c + min(A(v[q]), min over p < q of D(p) +
    F(v[p], v[q])); the first minimum wins (ties keep the smaller value below), and having
    no value below wins a tie with any.

    Not every p is tried. F is Monge: F(a, c) + F(b, d) <= F(a, d) + F(b, c) for a <= b <=
    c <= d (take the union of the two optimal closed sets for (a, c) and their intersection
    for (b, d); a node's cost of being in U, against being out, only grows with the
    threshold). So for p < o the lead of o over p, D(p) + F(v[p], v[q]) - D(o) - F(v[o],
    v[q]), never shrinks as q grows: a p that a larger o has beaten by more than rounding
    is beaten at every later q and is dropped. Those kept are the candidates at or above
    the last minimum that no larger one beats, a few dozen where every p < q would be
    hundreds (a 700-node page: 8.3 s of CPU to 0.8 s). `slack` is far above the rounding
    of these sums and far below any difference that matters, so the minimum and its ties
    are those of the search over every p, to the bit (`tests/methods/test_isotonic_paper.py`
    holds that search and compares)."""
    import numpy as np
    m = v.size
    best = np.empty(m)
    prev = np.full(m, -1, dtype=np.int64)
    slack = 1e-9 * (1.0 + c + float(np.sum(rows.w)) * float(v[-1] - v[0]))
    alive = np.zeros(0, dtype=np.int64)  # the candidates kept, increasing
    for q in range(m):
        best[q] = below[q] + c
        if not q:
            continue
        alive = np.append(alive, q - 1)
        # A column alone is summed pairwise by NumPy, a column among others in order: the
        # full search has q >= 2 columns, so a lone candidate gets a companion (discarded).
        cols = alive if alive.size > 1 or q == 1 else np.asarray([q - 2, q - 1])
        cand = (best[cols] + _interval_costs(rows, v[cols], v[q]) + c)[-alive.size:]
        k = int(np.argmin(cand))
        if cand[k] < best[q]:
            best[q], prev[q] = cand[k], alive[k]
        later = np.minimum.accumulate(cand[::-1])[::-1]  # the best at or above each
        alive = alive[np.append(cand[:-1] <= later[1:] + slack, True)]
    return best, prev


@dataclass(frozen=True, slots=True)
class _Level:
    """The nodes of one depth, ordered by parent so that each parent's children are
    contiguous: `np.add.reduceat` over `starts` then gives each parent in `up` its
    children's sum (far faster than `np.add.at`)."""

    nodes: np.ndarray
    roots: np.ndarray   # positions in `nodes` of the roots (depth 0 only)
    up: np.ndarray      # the distinct parents, in order
    starts: np.ndarray  # first position of each parent's children


def _levels(par: np.ndarray) -> list[_Level]:
    """Nodes grouped by depth, deepest first (parents are numbered before children)."""
    import numpy as np
    depth = np.zeros(par.size, dtype=np.int64)
    for i in range(par.size):
        if par[i] >= 0:
            depth[i] = depth[par[i]] + 1
    out = []
    for d in range(int(depth.max()), -1, -1):
        nodes = np.flatnonzero(depth == d)
        nodes = nodes[np.argsort(par[nodes], kind="stable")]
        ups = par[nodes]
        starts = np.flatnonzero(np.r_[True, ups[1:] != ups[:-1]]) if d else np.zeros(0, int)
        out.append(_Level(nodes, np.flatnonzero(ups < 0), ups[starts], starts))
    return out


def _add_up(target: np.ndarray, level: _Level, values: np.ndarray) -> None:
    """Add each node's row of `values` (rows in `level.nodes` order) to its parent's."""
    import numpy as np
    if level.starts.size:
        target[level.up] += np.add.reduceat(values, level.starts, axis=0)


def _costs(x: np.ndarray, w: np.ndarray, lo: np.ndarray, hi: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """(cost in U, cost outside U) of each node (rows) for each interval (lo_p, hi]
    (columns): the threshold measure on which it disagrees with its own score."""
    import numpy as np
    xs, ws = x[:, None], w[:, None]
    inside = ws * np.maximum(hi - np.maximum(xs, lo[None, :]), 0.0)
    outside = ws * np.maximum(np.minimum(xs, hi) - lo[None, :], 0.0)
    return inside, outside


@dataclass(frozen=True, slots=True)
class _Rows:
    """The nodes stored level by level, deepest first, each parent's children contiguous in
    node order (`_levels`): each level's rows are a slice, so the DP by levels reads them
    without copying; `spans` holds, per level, its rows, its `starts` and its parents' rows
    (none at depth 0, whose rows are the roots)."""

    x: np.ndarray
    w: np.ndarray
    spans: list[tuple[int, int, np.ndarray, np.ndarray]]


def _rows(levels: list[_Level], x: np.ndarray, w: np.ndarray) -> _Rows:
    import numpy as np
    order = np.concatenate([level.nodes for level in levels])
    row = np.empty(order.size, dtype=np.int64)
    row[order] = np.arange(order.size)
    spans, start = [], 0
    for level in levels:
        end = start + level.nodes.size
        spans.append((start, end, level.starts, row[level.up]))
        start = end
    return _Rows(x[order], w[order], spans)


def _interval_costs(rows: _Rows, lo: np.ndarray, hi: float) -> np.ndarray:
    """F(lo_p, hi) for every p at once: the tree DP over closed sets, by levels. (Each
    column's arithmetic is that of every other: the result for a p does not depend on the
    other columns, but for a lone column, which NumPy sums pairwise at the roots.)"""
    import numpy as np
    inside, outside = _costs(rows.x, rows.w, lo, hi)
    whole = inside                          # becomes the cost of the whole subtree in U
    kids = np.zeros_like(inside)            # summed best cost of the children
    total = np.zeros(lo.size)
    for start, end, starts, up in rows.spans:
        best = np.minimum(outside[start:end] + kids[start:end], whole[start:end])
        if starts.size:
            kids[up] += np.add.reduceat(best, starts, axis=0)
            whole[up] += np.add.reduceat(whole[start:end], starts, axis=0)
        else:  # depth 0: the roots
            total += best.sum(axis=0)
    return total


def _closed_set(par: np.ndarray, levels: list[_Level], x: np.ndarray, w: np.ndarray,
                lo: float, hi: float) -> np.ndarray:
    """The smallest minimising closed set of the interval (lo, hi], as a boolean mask."""
    import numpy as np
    inside, outside = (a[:, 0] for a in _costs(x, w, np.asarray([lo]), hi))
    whole = inside
    kids = np.zeros_like(inside)
    for level in levels:
        here = level.nodes
        _add_up(kids, level, np.minimum(outside[here] + kids[here], whole[here]))
        _add_up(whole, level, whole[here])
    take = np.zeros(par.size, dtype=bool)
    for i in range(par.size):  # parents first: a node in U takes its whole subtree
        p = int(par[i])
        take[i] = (p >= 0 and take[p]) or whole[i] < outside[i] + kids[i]
    return take
