"""The simplified Site Style Tree as plain JSON data, and back, with validation.

Only the simplified tree is stored (paper section 3.3): descendants of noisy and of
meaningful element nodes are dropped, since the mapping never looks below them. Element
nodes are listed once each (merged nodes are shared by several style nodes) and style
nodes refer to them by index; a style node's signature is the keys of its elements.
"""

from __future__ import annotations

from typing import Any

from sitesift.errors import ModelError
from sitesift.methods.sst.tree import EMPTY, MEANINGFUL, NOISY, POSSIBLE, ElementNode, StyleNode

LABELS = frozenset({NOISY, MEANINGFUL, POSSIBLE, EMPTY})
MAX_NODES = 2_000_000


def tree_to_state(root: ElementNode) -> dict[str, Any]:
    index: dict[int, int] = {}
    order: list[ElementNode] = []
    stack = [root]
    while stack:  # ids in visiting order; children of decided nodes are not stored
        node = stack.pop()
        if id(node) in index:
            continue
        index[id(node)] = len(order)
        order.append(node)
        if node.label == POSSIBLE:
            stack.extend(reversed(list(node.children())))
    nodes = []
    for node in order:
        item: dict[str, Any] = {
            "key": node.key, "pages": node.pages, "leaf_pages": node.leaf_pages,
            "node_imp": round(node.node_imp, 6), "comp_imp": round(node.comp_imp, 6),
            "label": node.label,
        }
        if node.label == POSSIBLE:
            item["styles"] = [
                {"count": s.count, "comp_imp": round(s.comp_imp, 6),
                 "elements": [index[id(e)] for e in s.elements]}
                for s in node.styles.values()
            ]
        if node.local_noise:
            item["local_noise"] = sorted(node.local_noise)
        nodes.append(item)
    return {"root": 0, "nodes": nodes}


def tree_from_state(state: dict[str, Any]) -> ElementNode:
    raw = state.get("nodes")
    if not isinstance(raw, list) or not raw:
        raise ModelError("sst state: 'nodes' must be a non-empty list")
    if len(raw) > MAX_NODES:
        raise ModelError(f"sst state: {len(raw):,} nodes exceeds the limit of {MAX_NODES:,}")
    nodes = [_element(i, item) for i, item in enumerate(raw)]
    for i, item in enumerate(raw):
        styles = item.get("styles", [])
        if not isinstance(styles, list):
            raise ModelError(f"sst state: node {i}: 'styles' must be a list")
        for style in styles:
            nodes[i].styles.update([_style(i, style, nodes)])
    if state.get("root") != 0:
        raise ModelError("sst state: 'root' must be 0")
    return nodes[0]


def _element(i: int, item: Any) -> ElementNode:
    if not isinstance(item, dict):
        raise ModelError(f"sst state: node {i} is not an object")
    key, label = item.get("key"), item.get("label")
    if not isinstance(key, str) or not key:
        raise ModelError(f"sst state: node {i}: 'key' must be a non-empty string")
    if label not in LABELS:
        raise ModelError(f"sst state: node {i}: unknown label {label!r}")
    node = ElementNode(key)
    node.label = label
    for name in ("pages", "leaf_pages"):
        value = item.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ModelError(f"sst state: node {i}: '{name}' must be a non-negative integer")
        setattr(node, name, value)
    for name in ("node_imp", "comp_imp"):
        value = item.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not (
                -1e-9 <= value <= 1 + 1e-9):
            raise ModelError(f"sst state: node {i}: '{name}' must be a number in [0, 1]")
        setattr(node, name, float(value))
    lines = item.get("local_noise", [])
    if not isinstance(lines, list) or not all(isinstance(s, str) for s in lines):
        raise ModelError(f"sst state: node {i}: 'local_noise' must be a list of strings")
    node.local_noise = frozenset(lines)
    return node


def _style(i: int, style: Any, nodes: list[ElementNode]
           ) -> tuple[tuple[str, ...], StyleNode]:
    if not isinstance(style, dict):
        raise ModelError(f"sst state: node {i}: a style node is not an object")
    count, refs = style.get("count"), style.get("elements")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ModelError(f"sst state: node {i}: style 'count' must be a non-negative integer")
    if not isinstance(refs, list) or not refs:
        raise ModelError(f"sst state: node {i}: style 'elements' must be a non-empty list")
    elements = []
    for ref in refs:
        if not isinstance(ref, int) or isinstance(ref, bool) or not 0 < ref < len(nodes):
            raise ModelError(f"sst state: node {i}: style refers to missing node {ref!r}")
        elements.append(nodes[ref])
    node = StyleNode(elements, count)
    imp = style.get("comp_imp", 0.0)
    node.comp_imp = float(imp) if isinstance(imp, (int, float)) else 0.0
    return node.signature, node
