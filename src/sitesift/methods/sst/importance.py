"""Node importance, composite importance and the noisy / meaningful marks (paper section 3.2-3.3).

For an element node E found in m pages with child style nodes S_1..S_l used with
probabilities p_i:

- node importance      NodeImp(E) = -sum_i p_i log_m p_i            (1 when m = 1)
- composite importance CompImp(E) = (1 - g^l) NodeImp(E) + g^l sum_i p_i CompImp(S_i),
                       CompImp(S)  = mean of CompImp over the element nodes of S,
                       with the attenuating factor g (paper: 0.9);
- for a leaf           CompImp(E) = 1 - (1/N) sum_i H(a_i),  H(a_i) = -sum_j p_ij log_m p_ij
                       over the N features a_i (words, image sources, link targets) of E,
                       p_ij the share of a_i's occurrences that fall in page j (1 when m = 1).

An element node is *noisy* when it and all its descendants have CompImp below the
threshold t, *meaningful* when it is not noisy and has no noisy descendant. Element nodes
with no features in any page are *empty*: they neither count as evidence nor get removed.
An element node that is a leaf in some pages and internal in others gets its leaf
instances as one more (pseudo) style node, scored with the leaf formula.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import TYPE_CHECKING

from sitesift.dom import DomNode
from sitesift.methods.sst.tree import EMPTY, MEANINGFUL, NOISY, POSSIBLE, ElementNode, walk
from sitesift.text import normalise_line

if TYPE_CHECKING:
    import numpy as np


def leaf_importance(counts: list[Counter[str]]) -> float | None:
    """1 - mean feature entropy over the leaf's instances; None when it has no features."""
    import numpy as np
    index: dict[str, int] = {}
    idx: list[int] = []
    vals: list[int] = []
    for counter in counts:
        for feature, n in counter.items():
            idx.append(index.setdefault(feature, len(index)))
            vals.append(n)
    if not index:
        return None
    m = len(counts)
    if m <= 1:
        return 1.0
    return 1.0 - float(feature_entropies(np.asarray(idx), np.asarray(vals, float), m).mean())


def feature_entropies(idx: np.ndarray, vals: np.ndarray, m: int) -> np.ndarray:
    """H(a) = -sum_j p_j log_m p_j for each feature, from (feature index, count) pairs."""
    import numpy as np
    totals = np.bincount(idx, weights=vals)
    p = vals / totals[idx]
    return -np.bincount(idx, weights=p * np.log(p)) / math.log(m)


def node_importance(shares: list[int], m: int) -> float:
    if m <= 1:
        return 1.0
    total = sum(shares)
    log_m = math.log(m)
    return -sum((c / total) * math.log(c / total) / log_m for c in shares if c)


def score_tree(root: ElementNode, gamma: float, threshold: float) -> None:
    """Fill node_imp, comp_imp and label of every element node, children first."""
    mark_noise(root, compute_importance(root, gamma), threshold)


def compute_importance(root: ElementNode, gamma: float) -> list[ElementNode]:
    """Fill node_imp and comp_imp (children first); nodes without features in any page get
    the EMPTY label. Returns every element node, parents before children."""
    order = list(walk(root))
    for node in reversed(order):
        shares = [s.count for s in node.styles.values()]
        parts: list[tuple[int, float]] = []
        empty = True
        for style in node.styles.values():
            live = [e.comp_imp for e in style.elements if e.label != EMPTY]
            style.comp_imp = sum(live) / len(live) if live else 0.0
            empty = empty and not live
            parts.append((style.count, style.comp_imp))
        if node.leaf_pages:
            leaf = leaf_importance(node.leaf_counts)
            if leaf is not None:
                empty = False
                shares.append(node.leaf_pages)
                parts.append((node.leaf_pages, leaf))
        visits = sum(shares) or 1
        node.node_imp = node_importance(shares, node.pages)
        if not node.styles and parts:
            node.comp_imp = parts[0][1]  # a pure leaf: the paper's leaf formula
        else:
            weight = gamma ** len(shares)
            node.comp_imp = (1 - weight) * node.node_imp + weight * sum(
                c / visits * imp for c, imp in parts)
        node.label = EMPTY if empty else POSSIBLE
    return order


def mark_noise(root: ElementNode, order: list[ElementNode], threshold: float) -> None:
    """The noisy / meaningful marks at `threshold`, from importances already computed."""
    noisy: dict[int, bool] = {}
    noisy_below: dict[int, bool] = {}
    for node in reversed(order):
        empty = node.label == EMPTY
        kids = [k for k in node.children() if k.label != EMPTY]
        below = any(noisy[id(k)] or noisy_below[id(k)] for k in kids)
        is_noisy = not empty and node.comp_imp < threshold and all(noisy[id(k)] for k in kids)
        noisy[id(node)] = is_noisy
        noisy_below[id(node)] = below
        if empty:
            continue
        node.label = NOISY if is_noisy else POSSIBLE if below else MEANINGFUL


def otsu_threshold(order: list[ElementNode]) -> float | None:
    """The threshold that best separates the site's repeated from its unique content: Otsu's
    threshold over the composite importances of the non-empty element nodes, each node
    counted once per page it occurs in (`pages`), so the histogram is that of the element
    instances the site's pages hold. Candidates are the midpoints between neighbouring
    distinct values; the one with the largest between-class variance w0 w1 (mu0 - mu1)^2
    wins (the lowest on a tie). None when the importances take fewer than two values."""
    weights: dict[float, int] = {}
    for node in order:
        if node.label != EMPTY and node.pages:
            value = round(node.comp_imp, 9)
            weights[value] = weights.get(value, 0) + node.pages
    values = sorted(weights)
    if len(values) < 2:
        return None
    total = sum(weights.values())
    total_sum = sum(v * w for v, w in weights.items())
    best, best_var = None, -1.0
    w0 = 0
    sum0 = 0.0
    for low, high in itertools.pairwise(values):
        w0 += weights[low]
        sum0 += low * weights[low]
        w1 = total - w0
        mu0, mu1 = sum0 / w0, (total_sum - sum0) / w1
        var = w0 * w1 * (mu0 - mu1) ** 2
        if var > best_var + 1e-12:
            best, best_var = (low + high) / 2, var
    return best


def mark_local_noise(root: ElementNode, threshold: float) -> None:
    """Enhancement 3: inside maximal meaningful nodes, text blocks whose entropy across the
    node's pages is high (1 - H below `threshold`) are locally noisy ("Share this", "Posted
    in", a repeated disclaimer). Blocks are the unit because word-level deletion would cut
    stop words out of sentences; the blocks are stored normalised (case, spacing)."""
    import numpy as np
    for node in maximal(root, MEANINGFUL):
        m = len(node.instances)
        if m < 2:
            continue
        counts = [Counter(normalise_line(t) for t in instance_lines(inst))
                  for inst in node.instances]
        index: dict[str, int] = {}
        idx: list[int] = []
        vals: list[int] = []
        for counter in counts:
            for line, n in counter.items():
                idx.append(index.setdefault(line, len(index)))
                vals.append(n)
        if not index:
            continue
        h = feature_entropies(np.asarray(idx), np.asarray(vals, float), m)
        lines = list(index)
        node.local_noise = frozenset(lines[i] for i in np.flatnonzero(1.0 - h < threshold))


def maximal(root: ElementNode, label: str) -> list[ElementNode]:
    """Element nodes with `label` whose path from the root has no decided node above them."""
    found: list[ElementNode] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.label == label:
            found.append(node)
        elif node.label == POSSIBLE:
            stack.extend(node.children())
    return found


def instance_lines(node: DomNode) -> list[str]:
    """Text blocks of a page node, for local-noise statistics."""
    from sitesift.verdicts import render_blocks

    return [b.text for b in render_blocks(node, {}, with_paths=False)]
