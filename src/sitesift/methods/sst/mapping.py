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

from sitesift.dom import DomNode
from sitesift.methods.sst.tree import (
    EMPTY,
    MEANINGFUL,
    NOISY,
    ElementNode,
    KeyFn,
    align,
    our_key,
    style_children,
)
from sitesift.result import CONTENT, NOISE
from sitesift.verdicts import Verdict


def map_page(
    root: ElementNode, page_root: DomNode, *, virtual_leaves: bool, align_min: float | None,
    key: KeyFn = our_key,
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
        style = element.styles.get(tuple(key(k) for k in kids))
        if style is not None:
            stack.extend(zip(style.elements, kids, strict=True))
            continue
        pairs = align(element, kids, align_min, key) if align_min is not None else []
        matched = {id(k) for _, k in pairs}
        for kid in kids:
            if id(kid) not in matched:
                verdicts[kid.nid] = Verdict(CONTENT, 1.0, "SST: layout not seen in the site", True)
        stack.extend(pairs)
    return verdicts, local
