"""The Site Style Tree: style nodes and element nodes, built top-down from a site's pages.

Yi, Liu & Li (KDD 2003), section 3: an *element node* is (tag, display attributes, child
style nodes); a *style node* is a sequence of element nodes plus the number of pages that
use that sequence under its parent. Building merges each page's DOM into the tree from the
root: where the page's child sequence is a known style node its count goes up and the walk
goes on below, otherwise a new style node is created.

Enhancements of the paper's section 3.4 that live here:
- virtual leaves: parents of actual leaf tags are leaves (`dom.is_leaf`);
- element-node merging: a new element node is merged at once with an element node of the
  same tag and attributes in another style node of the same parent when their
  *characteristic features* (features in at least `cf_min_share` of the node's pages)
  overlap by at least `merge_similarity` (Jaccard), so pages whose layouts differ a little
  still pool their evidence below the differing point.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator
from difflib import SequenceMatcher

from sitesift.dom import DomNode, is_leaf
from sitesift.text import node_features

NOISY = "noisy"
MEANINGFUL = "meaningful"
POSSIBLE = "possible"  # neither: the mapping has to look at the children
EMPTY = "empty"        # no features at all: nothing to keep or remove
# How many instances of an element node feed its characteristic features, and how many
# same-key siblings a new element node is compared with (both bound the fit time on large
# sites: without them merging is quadratic in the number of pages).
# None lifts the bound (the paper's rule: every instance, every same-key element node).
CF_INSTANCES = 16
MERGE_CANDIDATES = 8
# The paper's "display attributes" of a tag (its example: bgcolor, width, height): the
# presentational attributes of HTML 4, without class, id, role or inline style.
PAPER_DISPLAY_ATTRS = (
    "align", "valign", "width", "height", "bgcolor", "background", "border", "cellpadding",
    "cellspacing", "color", "face", "size",
)
KeyFn = Callable[[DomNode], str]


def our_key(node: DomNode) -> str:
    """Our style key (`dom.style_key`): class, id, role and style too, digits folded,
    `<body>`/`<html>` as their tag alone."""
    return node.key


def paper_key(node: DomNode) -> str:
    """The paper's element node identity: the tag and its display attributes, values as
    written (no folding), on every tag (`<body bgcolor=white>` in the paper's figure)."""
    if not node.attrs:
        return node.tag
    return _paper_key(node.tag, tuple(node.attrs.items()))


@functools.lru_cache(maxsize=1 << 16)
def _paper_key(tag: str, items: tuple[tuple[str, str | None], ...]) -> str:
    attrs = dict(items)
    parts = [tag] + [f"{name}={attrs[name]}" for name in PAPER_DISPLAY_ATTRS
                     if attrs.get(name)]
    return "|".join(parts)


STYLE_KEYS: dict[str, KeyFn] = {"ours": our_key, "paper": paper_key}


class StyleNode:
    """One presentation style under an element node: a sequence of element nodes."""

    __slots__ = ("comp_imp", "count", "elements")

    def __init__(self, elements: list[ElementNode], count: int = 0) -> None:
        self.elements = elements
        self.count = count
        self.comp_imp = 0.0

    @property
    def signature(self) -> tuple[str, ...]:
        return tuple(e.key for e in self.elements)


class ElementNode:
    """One element of the site's pages, identified by its place in the tree."""

    __slots__ = (
        "_by_key", "_cf", "_cf_n", "_last_page", "comp_imp", "instances", "key", "label",
        "leaf_counts", "leaf_pages", "local_noise", "node_imp", "pages", "styles",
    )

    def __init__(self, key: str) -> None:
        self.key = key
        self.styles: dict[tuple[str, ...], StyleNode] = {}
        self.pages = 0                 # m: pages that contain this element node
        self.leaf_pages = 0            # pages in which it is a (virtual) leaf
        self.leaf_counts: list[Counter[str]] = []  # features of each leaf instance
        self.instances: list[DomNode] = []         # page nodes mapped here (fit time only)
        self.node_imp = 1.0
        self.comp_imp = 1.0
        self.label = POSSIBLE
        self.local_noise: frozenset[str] = frozenset()
        self._last_page = -1
        self._cf: frozenset[str] = frozenset()
        self._cf_n = -1
        self._by_key: dict[str, list[ElementNode]] = {}  # distinct children by key

    @property
    def tag(self) -> str:
        return self.key.split("|", 1)[0]

    def children(self) -> Iterator[ElementNode]:
        """Distinct child element nodes over all style nodes (merged nodes once)."""
        seen: set[int] = set()
        for style in self.styles.values():
            for child in style.elements:
                if id(child) not in seen:
                    seen.add(id(child))
                    yield child

    def characteristic_features(self, min_share: float, limit: int | None = CF_INSTANCES
                                ) -> frozenset[str]:
        """CF(E): features occurring in at least `min_share` of the node's instances (of its
        first `limit` instances; None: all, as the paper's document frequency)."""
        sample = self.instances if limit is None else self.instances[:limit]
        if len(sample) != self._cf_n:
            df: Counter[str] = Counter()
            for inst in sample:
                df.update(node_features(inst).keys())
            need = min_share * len(sample)
            self._cf = frozenset(f for f, n in df.items() if n >= need)
            self._cf_n = len(sample)
        return self._cf


def style_children(node: DomNode, virtual_leaves: bool = True) -> list[DomNode] | None:
    """The element children that form a node's style, or None for a (virtual) leaf."""
    if is_leaf(node, virtual_leaves):
        return None
    return [c for c in node.children if isinstance(c, DomNode)]


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a and not b:
        return 1.0
    union = len(a | b)
    return len(a & b) / union if union else 0.0


class TreeBuilder:
    """Merges page DOM trees into one Site Style Tree."""

    def __init__(self, *, merge: bool, merge_similarity: float, cf_min_share: float,
                 virtual_leaves: bool, align_min: float | None = None,
                 key: KeyFn = our_key, cf_instances: int | None = CF_INSTANCES,
                 merge_candidates: int | None = MERGE_CANDIDATES) -> None:
        self.root = ElementNode("#root")
        self.key = key
        self.cf_instances = cf_instances
        self.merge_candidates = merge_candidates
        self.merge = merge
        self.merge_similarity = merge_similarity
        self.cf_min_share = cf_min_share
        self.virtual_leaves = virtual_leaves
        self.align_min = align_min
        self.n_pages = 0

    def add_page(self, root: DomNode) -> None:
        page_idx = self.n_pages
        self.n_pages += 1
        stack: list[tuple[ElementNode, DomNode]] = [(self.root, root)]
        while stack:
            element, node = stack.pop()
            if element._last_page == page_idx:
                continue  # a page never counts twice for one element node
            element._last_page = page_idx
            element.pages += 1
            element.instances.append(node)
            kids = style_children(node, self.virtual_leaves)
            if kids is None:
                element.leaf_pages += 1
                element.leaf_counts.append(node_features(node))
                continue
            signature = tuple(self.key(k) for k in kids)
            style = element.styles.get(signature)
            if style is None:
                style = self._new_style(element, kids)
                element.styles[signature] = style
            style.count += 1
            stack.extend(zip(style.elements, kids, strict=True))

    def _new_style(self, parent: ElementNode, kids: list[DomNode]) -> StyleNode:
        elements: list[ElementNode] = []
        used: set[int] = set()
        index = parent._by_key
        aligned: dict[int, ElementNode] = {}
        # Merge candidates per key, chosen once per new style node: the element nodes made
        # for this style's own children join the index but are `used`, so they never count,
        # and choosing per child would cost quadratic time on a run of thousands of
        # same-key siblings (a page of 100,000 <nobr>s took minutes).
        pools: dict[str, list[ElementNode]] = {}
        if self.align_min is not None and parent.styles:
            # Our extension, the fit-time twin of the mapping's alignment: a child that the
            # closest known style node pairs with an element node (same key, same place in
            # the sequence) is that element node, as it would be in an identical sequence.
            aligned = {id(kid): element
                       for element, kid in align(parent, kids, self.align_min, self.key)}
        for kid in kids:
            key = self.key(kid)
            match = aligned.get(id(kid))
            if match is not None and id(match) in used:
                match = None
            same_key = None
            if self.merge and match is None:
                same_key = pools.get(key)
                if same_key is None:
                    same_key = pools[key] = _candidates(index.get(key) or [],
                                                        self.merge_candidates)
            if same_key:
                match = self._merge_candidate(same_key, kid, used)
            if match is None:
                match = ElementNode(key)
                index.setdefault(key, []).append(match)
            used.add(id(match))
            elements.append(match)
        return StyleNode(elements)

    def _merge_candidate(self, same_key: list[ElementNode], kid: DomNode, used: set[int]
                         ) -> ElementNode | None:
        """The same-key sibling whose characteristic features overlap the new node's most."""
        best: ElementNode | None = None
        best_sim = self.merge_similarity
        feats = frozenset(node_features(kid))
        for cand in same_key:
            if id(cand) in used:
                continue
            sim = jaccard(cand.characteristic_features(self.cf_min_share, self.cf_instances),
                          feats)
            if sim >= best_sim:
                best, best_sim = cand, sim
        return best


def _candidates(same_key: list[ElementNode], limit: int | None) -> list[ElementNode]:
    """The element nodes a new node of their key may merge with: all of them, or when there
    are more than 2 * `limit`, the `limit` most established and the `limit` newest."""
    if limit is None or len(same_key) <= 2 * limit:
        return list(same_key)
    top = sorted(same_key, key=lambda e: -e.pages)[:limit]
    return top + [e for e in same_key[-limit:] if e not in top]


def walk(root: ElementNode) -> Iterator[ElementNode]:
    """Every distinct element node, parents before children (the tree is a DAG after merging)."""
    seen = {id(root)}
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for child in node.children():
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)


def align(element: ElementNode, kids: list[DomNode], min_ratio: float, key: KeyFn = our_key,
          limit: int = 16) -> list[tuple[ElementNode, DomNode]]:
    """Pair page children with the element nodes of the most similar known style node (among
    the `limit` most used ones: rare styles are one-off pages, and the search stays cheap)."""
    keys = [key(k) for k in kids]
    best: list[tuple[ElementNode, DomNode]] = []
    best_ratio = min_ratio
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(keys)
    styles = element.styles.items()
    if len(element.styles) > limit:
        styles = sorted(styles, key=lambda kv: -kv[1].count)[:limit]  # type: ignore[assignment]
    for signature, style in styles:
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
