"""Cleaning a page by mapping it onto the simplified Site Style Tree (paper section 3.3).

Walking the SST and the page together from the root: a page node mapped to a noisy
element node is deleted with its subtree, one mapped to a meaningful node is kept whole
(less its locally noisy blocks), and at a node that is neither the walk goes on through the
style node that matches the page's child sequence. Where no style node matches, the paper
keeps the page node's whole content; with `align_unmatched` (our extension) the children are
first aligned to the most similar known style node by their keys (longest common
subsequence), so one extra banner does not make the tree blind to the rest of the page.
Children that align to nothing stay: a layout never seen is never dropped.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from sitesift.dom import DomNode
from sitesift.extract import Verdict
from sitesift.methods.sst.tree import EMPTY, MEANINGFUL, NOISY, ElementNode, style_children
from sitesift.result import CONTENT, NOISE


def map_page(
    root: ElementNode, page_root: DomNode, *, virtual_leaves: bool, align_min: float | None
) -> tuple[dict[int, Verdict], dict[int, frozenset[str]]]:
    """Verdicts per page node id, and the locally noisy blocks of each kept meaningful node."""
    verdicts: dict[int, Verdict] = {}
    local: dict[int, frozenset[str]] = {}
    stack: list[tuple[ElementNode, DomNode]] = [(root, page_root)]
    while stack:
        element, node = stack.pop()
        label = element.label
        if label == NOISY:
            verdicts[node.nid] = Verdict(NOISE, element.comp_imp,
                                         f"SST noisy node (CompImp {element.comp_imp:.2f})", True)
            continue
        if label in (MEANINGFUL, EMPTY):
            verdicts[node.nid] = Verdict(CONTENT, element.comp_imp,
                                         f"SST {label} node (CompImp {element.comp_imp:.2f})", True)
            if element.local_noise:
                local[node.nid] = element.local_noise
            continue
        kids = style_children(node, virtual_leaves)
        if kids is None:
            verdicts[node.nid] = Verdict(CONTENT, 1.0, "SST: leaf where the site has structure",
                                         True)
            continue
        style = element.styles.get(tuple(k.key for k in kids))
        if style is not None:
            stack.extend(zip(style.elements, kids, strict=True))
            continue
        pairs = align(element, kids, align_min) if align_min is not None else []
        matched = {id(k) for _, k in pairs}
        for kid in kids:
            if id(kid) not in matched:
                verdicts[kid.nid] = Verdict(CONTENT, 1.0, "SST: layout not seen in the site", True)
        stack.extend(pairs)
    return verdicts, local


def align(element: ElementNode, kids: list[DomNode], min_ratio: float
          ) -> list[tuple[ElementNode, DomNode]]:
    """Pair page children with the element nodes of the most similar known style node."""
    keys = [k.key for k in kids]
    best: list[tuple[ElementNode, DomNode]] = []
    best_ratio = min_ratio
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(keys)
    for signature, style in element.styles.items():
        matcher.set_seq1(list(signature))
        if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio < best_ratio:
            continue
        pairs = [
            (style.elements[block.a + i], kids[block.b + i])
            for block in matcher.get_matching_blocks()
            for i in range(block.size)
        ]
        if ratio > best_ratio or not best:
            best, best_ratio = pairs, ratio
    return best
