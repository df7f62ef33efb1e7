"""Regularized isotonic regression on a tree (Chakrabarti, Kumar & Punera, WWW 2007).

Given raw scores x_1..x_n on the nodes of a tree (a DOM tree: "templateness" from a node
classifier), find smoothed scores y minimising

    sum_i w_i |x_i - y_i|  +  c * (number of sections)

subject to monotonicity along every edge: y_parent <= y_child (`increasing=True`, the
seed's "i -> j => y_i <= y_j": a node is template only if all its children are, so its
templateness is at most theirs), or y_parent >= y_child.

A *section* is a maximal connected set of nodes sharing one value (a parent and a child
with equal y are in the same section): the seed's "create as few sections as possible".
Its regulariser as written is the "number of distinct y_i", which charges two separated
regions at one value once, where this charges them twice; on a path the two counts
coincide. That one is solved exactly in `distinct` (`regularizer="values"`, O(n m^2));
counting sections is what makes the problem decompose over subtrees and be solved
exactly here by dynamic programming in O(n m), the order of the seed's O(n^2 log n):

- Lemma (the seed's): under an L1 loss some optimal solution takes every y_i from the
  x_j, so only the m <= n distinct scores v_1 < ... < v_m are candidate values.
- C_i(k), the best cost of i's subtree when y_i = v_k (i's own section not yet charged):
      C_i(k) = w_i |x_i - v_k| + sum over children j of min( C_j(k), c + min_{k' > k} C_j(k') )
  (a child keeps its parent's value and section, or opens a new section at a larger
  value; reopening at the same value would only add c). The answer for a root r is
  c + min_k C_r(k); a forest sums its roots.
- Suffix minima make each node O(m), so the whole DP is O(n m) <= O(n^2) after an
  O(n log n) sort: within the seed's O(n^2 log n). Memory: one int32 choice row per node
  (n x m) for the traceback, and running sums only along the current path. (Leaves have a
  closed form and can be done together in array operations; measured, that bought
  nothing: the O(n m) arithmetic, not Python, is the cost.)

Ties are broken deterministically: the smallest optimal value at a root, and a child keeps
its parent's value when that is as good as opening a section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Smoothed:
    """The optimum of one regularized tree isotonic regression."""

    values: np.ndarray   # y_i (float64), each equal to one of the input scores
    section: np.ndarray  # section id of each node (int), numbered in node order of their tops
    tops: np.ndarray     # the top node of each section
    cost: float          # sum w |x - y| + c * sections

    @property
    def n_sections(self) -> int:
        return len(self.tops)

    @property
    def n_values(self) -> int:
        """Distinct smoothed values (at most the number of sections)."""
        import numpy as np
        return len(np.unique(self.values))


def check_tree(parents: Sequence[int] | np.ndarray) -> np.ndarray:
    """The parent array as int64, checked: parents[i] = -1 (a root) or 0 <= parents[i] < i,
    i.e. nodes are numbered so that a parent comes before its children (pre-order does)."""
    import numpy as np
    arr = np.asarray(parents)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError("parents must be a 1-d sequence of integers")
    arr = arr.astype(np.int64, copy=False)
    idx = np.arange(arr.size)
    bad = (arr != -1) & ((arr < 0) | (arr >= idx))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"parents[{i}] = {int(arr[i])}: a parent must be -1 (root) or a node "
                         "numbered before its child")
    return arr


def _checked(parents: Sequence[int] | np.ndarray, scores: Sequence[float] | np.ndarray,
             c: float, weights: Sequence[float] | np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import numpy as np
    par = check_tree(parents)
    x = np.asarray(scores, dtype=np.float64)
    if x.shape != par.shape:
        raise ValueError(f"{x.size} scores for {par.size} nodes")
    if not np.isfinite(x).all():
        raise ValueError("scores must be finite")
    if not (np.isfinite(c) and c >= 0):
        raise ValueError(f"the section cost c must be finite and >= 0, got {c!r}")
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != x.shape or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite, >= 0 and one per node")
    return par, x, w


def smooth_tree(parents: Sequence[int] | np.ndarray, scores: Sequence[float] | np.ndarray,
                c: float, weights: Sequence[float] | np.ndarray | None = None,
                increasing: bool = True) -> Smoothed:
    """Exact regularized isotonic regression of `scores` on the tree `parents` (see the
    module docstring); `increasing=False` asks for y_parent >= y_child instead."""
    par, x, w = _checked(parents, scores, c, weights)
    if not increasing:  # y_parent >= y_child on x is y_parent <= y_child on -x
        out = _solve(par, -x, float(c), w)
        return Smoothed(-out.values, out.section, out.tops, out.cost)
    return _solve(par, x, float(c), w)


def _solve(par: np.ndarray, x: np.ndarray, c: float, w: np.ndarray) -> Smoothed:
    import numpy as np
    n = x.size
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Smoothed(np.zeros(0), empty, empty, 0.0)
    v = np.unique(x)  # the lemma: the candidate values
    m = v.size
    idx = np.arange(m)
    choice = np.empty((n, m), dtype=np.int32)  # [j, k]: j's value index when its parent's is k
    acc: dict[int, np.ndarray] = {}            # children's summed costs, alive along the path
    total = 0.0
    root_pick: dict[int, int] = {}
    for i in range(n - 1, -1, -1):  # children (larger numbers) before their parent
        row = w[i] * np.abs(v - x[i])
        below = acc.pop(i, None)
        if below is not None:
            row += below
        p = int(par[i])
        if p < 0:
            k = int(np.argmin(row))  # first minimum: the smallest optimal value
            root_pick[i] = k
            total += c + float(row[k])
            continue
        # best[k] = min over k' > k of row[k'] and where (smallest such k'); +inf at the end.
        rev = row[::-1]
        run = np.minimum.accumulate(rev)
        last = np.maximum.accumulate(np.where(rev <= run, idx, 0))  # latest rev index at the min
        best = np.empty(m)
        best[:-1] = run[::-1][1:]
        best[-1] = np.inf
        where = np.empty(m, dtype=np.int64)
        where[:-1] = (m - 1 - last)[::-1][1:]
        where[-1] = -1
        opened = best + c
        stay = row <= opened  # ties keep the parent's value: fewer sections
        choice[i] = np.where(stay, idx, where)
        contrib = np.where(stay, row, opened)
        if p in acc:
            acc[p] += contrib
        else:
            acc[p] = contrib
    k_of = np.empty(n, dtype=np.int64)
    for i in range(n):  # parents before children: read the choices top-down
        p = int(par[i])
        k_of[i] = root_pick[i] if p < 0 else choice[i, k_of[p]]
    values = v[k_of]
    section, tops = _sections_from(par, k_of)
    return Smoothed(values, section, tops, total)


def _sections_from(par: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np
    n = labels.size
    section = np.empty(n, dtype=np.int64)
    tops: list[int] = []
    for i in range(n):
        p = int(par[i])
        if p < 0 or labels[i] != labels[p]:
            section[i] = len(tops)
            tops.append(i)
        else:
            section[i] = section[p]
    return section, np.asarray(tops, dtype=np.int64)


def sections(parents: Sequence[int] | np.ndarray, values: Sequence[float] | np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """(section id per node, top node per section) of any labelling: maximal connected sets
    of nodes with equal values."""
    import numpy as np
    par = check_tree(parents)
    vals = np.asarray(values, dtype=np.float64)
    if vals.shape != par.shape:
        raise ValueError(f"{vals.size} values for {par.size} nodes")
    return _sections_from(par, vals)


def objective(parents: Sequence[int] | np.ndarray, scores: Sequence[float] | np.ndarray,
              values: Sequence[float] | np.ndarray, c: float,
              weights: Sequence[float] | np.ndarray | None = None) -> float:
    """sum w |x - y| + c * sections of a labelling `values` (monotonicity not checked)."""
    import numpy as np
    par, x, w = _checked(parents, scores, c, weights)
    y = np.asarray(values, dtype=np.float64)
    _, tops = sections(par, y)
    return float(np.sum(w * np.abs(x - y))) + c * len(tops)


def is_monotone(parents: Sequence[int] | np.ndarray, values: Sequence[float] | np.ndarray,
                increasing: bool = True) -> bool:
    """Whether y_parent <= y_child on every edge (>= with `increasing=False`)."""
    import numpy as np
    par = check_tree(parents)
    y = np.asarray(values, dtype=np.float64)
    child = np.flatnonzero(par >= 0)
    up, down = y[par[child]], y[child]
    return bool(np.all(up <= down) if increasing else np.all(up >= down))
