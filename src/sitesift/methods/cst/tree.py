"""The compressed structure tree of `cst`: built with the Site Style Tree's builder, kept
compact, saved as plain JSON and validated on load.

Each `CSTNode` keeps what weighting a page needs: its style key, |TAGs| (pages), NodeImp,
its child element nodes under each presentation style, and the content weights 1 - H(f)
of the words its leaf instances share. Styles used by a single page keep only a hash of
their signature: every node below them has m = 1, so NodeImp = 1 and every word weighs 1,
and nothing more needs storing; the hash tells such a style (whose parent keeps its
fitted NodeImp) from one no fitted page had (whose parent counts as a node of its own).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, TypeGuard

from sitesift.dom import DomNode
from sitesift.errors import ModelError
from sitesift.methods.sst.importance import feature_entropies, node_importance
from sitesift.methods.sst.tree import ElementNode, KeyFn, TreeBuilder, our_key

MAX_NODES = 2_000_000


class CSTNode:
    """An element node of the compressed structure tree, as the fitted model keeps it."""

    __slots__ = ("key", "node_imp", "once", "pages", "styles", "words")

    def __init__(self, key: str, pages: int, node_imp: float) -> None:
        self.key = key
        self.pages = pages            # m = |E.TAGs|
        self.node_imp = node_imp      # entropy of E.STYLEs, base m (1 when m = 1)
        self.styles: dict[tuple[str, ...], list[CSTNode]] = {}  # E.STYLEs -> E.CHILDs
        self.once: set[int] = set()  # signature hashes of the styles of a single page
        self.words: dict[str, float] = {}  # 1 - H(f) of words below 1 (the rest weigh 1)


def signature_hash(signature: tuple[str, ...]) -> int:
    """A stable 63-bit hash of a presentation style (style keys never contain \\x1f)."""
    data = "\x1f".join(signature).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little") >> 1


def content_weights(instances: list[Counter[str]]) -> dict[str, float]:
    """1 - H(f) for each word found in at least two of a leaf's instances.

    H(f) = -sum_j p_j log_n p_j over the n instances, p_j = share of f's occurrences in
    instance j; a word of a single instance has H = 0 and weight 1, so it is left out."""
    import numpy as np
    n = len(instances)
    if n < 2:
        return {}
    index: dict[str, int] = {}
    idx: list[int] = []
    vals: list[int] = []
    for counter in instances:
        for word, count in counter.items():
            idx.append(index.setdefault(word, len(index)))
            vals.append(count)
    if not index:
        return {}
    h = feature_entropies(np.asarray(idx), np.asarray(vals, float), n)
    words = list(index)
    return {words[i]: round(max(0.0, 1.0 - float(h[i])), 6)
            for i in np.flatnonzero(h > 1e-9)}


def _words_only(features: Counter[str]) -> Counter[str]:
    # node_features also counts `img:` and `a:` targets; word features are `\w+` tokens.
    return Counter({f: n for f, n in features.items() if ":" not in f})


def _compress(element: ElementNode) -> CSTNode:
    shares = [s.count for s in element.styles.values()]
    if element.leaf_pages and shares:
        shares.append(element.leaf_pages)  # leaf on some pages: one more presentation style
    imp = node_importance(shares or [element.pages], element.pages)
    node = CSTNode(element.key, element.pages, round(min(imp, 1.0), 6) if imp > 0 else 0.0)
    node.words = content_weights([_words_only(c) for c in element.leaf_counts])
    return node


def build_cst(roots: list[DomNode], virtual_leaves: bool, key: KeyFn = our_key) -> CSTNode:
    """Merge the pages' DOM trees top-down into one compressed structure tree, element
    nodes told apart by `key`."""
    builder = TreeBuilder(merge=False, merge_similarity=1.0, cf_min_share=1.0,
                          virtual_leaves=virtual_leaves, key=key)
    for root in roots:
        builder.add_page(root)
    top = _compress(builder.root)
    stack = [(builder.root, top)]
    while stack:
        element, node = stack.pop()
        for signature, style in element.styles.items():
            if style.count < 2:
                node.once.add(signature_hash(signature))  # nothing below it to keep
                continue
            kids = [_compress(child) for child in style.elements]
            node.styles[signature] = kids
            stack.extend(zip(style.elements, kids, strict=True))
    return top


def tree_to_state(root: CSTNode) -> dict[str, Any]:
    """Nodes in depth-first order; a node lists its styles as indices of its children."""
    order: list[CSTNode] = []
    index: dict[int, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        index[id(node)] = len(order)
        order.append(node)
        for kids in reversed(list(node.styles.values())):
            stack.extend(reversed(kids))
    nodes = []
    for node in order:
        item: dict[str, Any] = {"key": node.key, "pages": node.pages, "node_imp": node.node_imp}
        if node.styles:
            item["styles"] = [[index[id(k)] for k in kids] for kids in node.styles.values()]
        if node.once:
            item["once"] = sorted(node.once)
        if node.words:
            item["words"] = dict(sorted(node.words.items()))
        nodes.append(item)
    return {"nodes": nodes}


def tree_from_state(state: dict[str, Any]) -> CSTNode:
    raw = state.get("nodes")
    if not isinstance(raw, list) or not raw:
        raise ModelError("cst state: 'nodes' must be a non-empty list")
    if len(raw) > MAX_NODES:
        raise ModelError(f"cst state: {len(raw):,} nodes exceeds the limit of {MAX_NODES:,}")
    nodes = [_node(i, item) for i, item in enumerate(raw)]
    used = [False] * len(nodes)
    for i, item in enumerate(raw):
        styles = item.get("styles", [])
        if not isinstance(styles, list):
            raise ModelError(f"cst state: node {i}: 'styles' must be a list")
        for refs in styles:
            if not isinstance(refs, list) or not refs:
                raise ModelError(f"cst state: node {i}: a style must be a non-empty list")
            kids = []
            for ref in refs:  # children come after their parent, each exactly once: a tree
                if (not isinstance(ref, int) or isinstance(ref, bool)
                        or not i < ref < len(nodes) or used[ref]):
                    raise ModelError(f"cst state: node {i}: bad child reference {ref!r}")
                used[ref] = True
                kids.append(nodes[ref])
            signature = tuple(k.key for k in kids)
            if signature in nodes[i].styles:
                raise ModelError(f"cst state: node {i}: a presentation style is listed twice")
            nodes[i].styles[signature] = kids
    if not all(used[1:]):
        raise ModelError(f"cst state: node {used.index(False, 1)} is not part of the tree")
    return nodes[0]


def _node(i: int, item: Any) -> CSTNode:
    if not isinstance(item, dict):
        raise ModelError(f"cst state: node {i} is not an object")
    key, pages, imp = item.get("key"), item.get("pages"), item.get("node_imp")
    if not isinstance(key, str) or not key:
        raise ModelError(f"cst state: node {i}: 'key' must be a non-empty string")
    if not isinstance(pages, int) or isinstance(pages, bool) or pages < 0:
        raise ModelError(f"cst state: node {i}: 'pages' must be a non-negative integer")
    if not _unit(imp):
        raise ModelError(f"cst state: node {i}: 'node_imp' must be a number in [0, 1]")
    node = CSTNode(key, pages, float(imp))
    words = item.get("words", {})
    if not isinstance(words, dict) or not all(
            isinstance(w, str) and _unit(v) for w, v in words.items()):
        raise ModelError(f"cst state: node {i}: 'words' must map words to numbers in [0, 1]")
    node.words = {w: float(v) for w, v in words.items()}
    once = item.get("once", [])
    if not isinstance(once, list) or not all(
            isinstance(h, int) and not isinstance(h, bool) and 0 <= h < 1 << 63 for h in once):
        raise ModelError(f"cst state: node {i}: 'once' must list 63-bit style hashes")
    node.once = set(once)
    return node


def _unit(value: Any) -> TypeGuard[float]:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and 0.0 <= value <= 1.0)
