"""A fitted Site Style Tree as compact JSON for the report's explorer.

Every distinct element node is listed once (merged nodes are shared by several style nodes,
so the tree is a DAG) and style nodes refer to their element nodes by index; the explorer
builds the rows of a node only when it is expanded, so a tree of thousands of nodes costs
one JSON array, not thousands of HTML rows. Unlike the model file (`serialize.py`), which
keeps only what cleaning needs, this keeps the nodes below noisy and meaningful ones too:
the explorer shows every element node the fit saw.
"""

from __future__ import annotations

from typing import Any

from sitesift.methods.sst import SiteStyleTree
from sitesift.methods.sst.tree import ElementNode, walk

LABEL_CODES = {"noisy": "n", "meaningful": "m", "possible": "p", "empty": "e"}


def explorer_data(model: SiteStyleTree) -> dict[str, Any]:
    """{"pages", "params", "nodes"}: a node is [key, pages, leaf_pages, node_imp, comp_imp,
    label code, styles, locally noisy blocks], a style [count, comp_imp, [node indices]].
    Node 0 is the root."""
    model.check_fitted()
    assert model.tree_ is not None
    order: list[ElementNode] = list(walk(model.tree_))
    index = {id(node): i for i, node in enumerate(order)}
    nodes: list[list[Any]] = []
    for node in order:
        styles = [[s.count, round(s.comp_imp, 4), [index[id(e)] for e in s.elements]]
                  for s in sorted(node.styles.values(), key=lambda s: -s.count)]
        nodes.append([node.key, node.pages, node.leaf_pages, round(node.node_imp, 4),
                      round(node.comp_imp, 4), LABEL_CODES[node.label], styles,
                      sorted(node.local_noise)])
    return {"pages": model.n_pages_, "params": model.get_params(), "nodes": nodes}


def label_counts(data: dict[str, Any]) -> dict[str, int]:
    """How many element nodes carry each label."""
    names = {v: k for k, v in LABEL_CODES.items()}
    counts = dict.fromkeys(LABEL_CODES, 0)
    for node in data["nodes"]:
        counts[names[node[5]]] += 1
    return counts
