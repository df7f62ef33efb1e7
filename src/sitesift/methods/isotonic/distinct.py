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
  candidate values: O(n m^2) for m distinct scores, against the section DP's O(n m).

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
    m = v.size
    levels = _levels(par)
    below = np.array([float(np.sum(w * np.maximum(u - x, 0.0))) for u in v])  # A
    above = np.array([float(np.sum(w * np.maximum(x - u, 0.0))) for u in v])  # B
    best = np.empty(m)   # D(q): the best cost of values up to v[q], v[q] the largest
    prev = np.full(m, -1, dtype=np.int64)
    for q in range(m):
        best[q] = below[q] + c
        if q:
            cand = best[:q] + _interval_costs(levels, x, w, v[:q], v[q]) + c
            p = int(np.argmin(cand))  # first minimum: ties keep the smaller value below
            if cand[p] < best[q]:
                best[q], prev[q] = cand[p], p
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


def _interval_costs(levels: list[_Level], x: np.ndarray, w: np.ndarray, lo: np.ndarray,
                    hi: float) -> np.ndarray:
    """F(lo_p, hi) for every p at once: the tree DP over closed sets, by levels."""
    import numpy as np
    inside, outside = _costs(x, w, lo, hi)
    whole = inside                          # becomes the cost of the whole subtree in U
    kids = np.zeros_like(inside)            # summed best cost of the children
    total = np.zeros(lo.size)
    for level in levels:
        here = level.nodes
        best = np.minimum(outside[here] + kids[here], whole[here])
        _add_up(kids, level, best)
        _add_up(whole, level, whole[here])
        total += best[level.roots].sum(axis=0)
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
