"""A light, read-only DOM that every method shares.

The Lexbor tree (selectolax) is walked once per page into `DomNode`s: the tag, the
presentation *style key* (tag plus normalised display attributes), the children in
document order (text runs as plain `str`), a document-order id and the parent. Invisible
parts (scripts, styles, comments, `hidden` elements) never enter it, so no method has to
remember to skip them, and nothing below recurses in Python, so absurd nesting cannot
overflow the stack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# Subtrees that are never displayed as page text.
SKIPPED_TAGS = frozenset(
    {
        "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
        "iframe", "object", "embed", "svg", "math", "canvas", "audio", "video", "source",
        "track", "map", "param", "datalist", "dialog",
    }
)
# Elements that start a new block of text when rendered (everything else is inline).
BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
        "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "frame",
        "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend",
        "li", "listing", "main", "menu", "nav", "ol", "option", "p", "pre", "section", "summary",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "br", "select", "textarea",
        "button", "label",
    }
)
# The paper's "display attributes" (bgcolor, width, ...) plus their modern heirs.
STYLE_ATTRS = (
    "class", "id", "role", "align", "valign", "width", "height", "bgcolor", "background",
    "border", "cellpadding", "cellspacing", "color", "face", "size", "style",
)
# Beyond this depth the tree is flattened: deeper elements add their text to the ancestor.
MAX_DEPTH = 256

_DIGITS = re.compile(r"\d+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


class DomNode:
    """One element of a page, with its children in document order."""

    __slots__ = ("_features", "_key", "_leaf", "attrs", "children", "nid", "parent", "tag")

    def __init__(self, tag: str, attrs: dict[str, str | None] | None, nid: int,
                 parent: DomNode | None) -> None:
        self.tag = tag
        self.attrs = attrs  # as the parser gave them; None when the element has none
        self.nid = nid
        self.parent = parent
        self.children: list[DomNode | str] = []
        self._key: str | None = None
        self._leaf: bool | None = None
        self._features: Any = None

    @property
    def key(self) -> str:
        """The style key (computed on first use: cleaning visits few nodes)."""
        key = self._key
        if key is None:
            key = self._key = style_key(self.tag, self.attrs) if self.attrs else self.tag
        return key

    @property
    def src(self) -> str | None:
        if self.tag != "img" or not self.attrs:
            return None
        return self.attrs.get("src") or self.attrs.get("data-src")

    @property
    def href(self) -> str | None:
        return self.attrs.get("href") if self.tag == "a" and self.attrs else None

    def elements(self) -> Iterator[DomNode]:
        for child in self.children:
            if isinstance(child, DomNode):
                yield child

    def iter(self) -> Iterator[DomNode]:
        """This node and every element below it, in document order (no recursion)."""
        stack: list[DomNode] = [self]
        while stack:
            node = stack.pop()
            yield node
            kids = [c for c in node.children if isinstance(c, DomNode)]
            stack.extend(reversed(kids))

    def texts(self) -> Iterator[str]:
        """Every text run below this node, in document order."""
        stack: list[DomNode | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                yield item
            else:
                stack.extend(reversed(item.children))

    def text(self) -> str:
        return " ".join(t.strip() for t in self.texts() if not t.isspace())

    def __repr__(self) -> str:
        return f"DomNode({self.key!r}, nid={self.nid}, children={len(self.children)})"


_STYLE_ORDER = {name: i for i, name in enumerate(STYLE_ATTRS)}


def style_key(tag: str, attrs: dict[str, str | None]) -> str:
    """Tag plus display attributes, digits folded so `post-123` and `post-456` look alike."""
    parts = [tag]
    for name in sorted(attrs.keys() & _STYLE_ORDER.keys(), key=_STYLE_ORDER.__getitem__):
        value = attrs[name]
        if not value:
            continue
        if name == "class":
            value = " ".join(sorted(set(value.split())))
        value = _DIGITS.sub("#", value.strip())[:80]
        if value:
            parts.append(f"{name}={value}")
    return "|".join(parts)


def _hidden(attrs: dict[str, str | None]) -> bool:
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return True
    style = attrs.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


def build_dom(lexbor_root: Any) -> DomNode:
    """Walk a Lexbor element (normally `<body>`) into a DomNode tree under a virtual root.

    Lexbor's own pre-order traversal is the fastest way through the tree from Python; each
    node finds its DomNode parent by the Lexbor parent's identity, so a node whose parent was
    skipped (inside a script, a comment, a hidden element) is skipped with it.
    """
    root = DomNode("#root", None, 0, None)
    counter = 1
    with_text: list[DomNode] = []
    top = lexbor_root.parent
    owner: dict[int, tuple[DomNode, int]] = {top.mem_id if top is not None else -1: (root, 1)}
    get = owner.get
    for lnode in lexbor_root.traverse(include_text=True):
        parent_l = lnode.parent
        found = get(parent_l.mem_id) if parent_l is not None else None
        if found is None:
            continue
        parent, depth = found
        tag = lnode.tag
        if tag == "-text":
            text = lnode.text_content
            if text:
                parent.children.append(text)
                if not text.isspace():
                    with_text.append(parent)
            continue
        if not tag or tag[0] in "-_!" or tag in SKIPPED_TAGS:  # comments, doctype, hidden kinds
            continue
        attrs = lnode.attributes
        if attrs and _hidden(attrs):
            continue
        if depth > MAX_DEPTH:
            owner[lnode.mem_id] = found  # flatten: keep the text, drop the structure
            continue
        node = DomNode(tag, attrs or None, counter, parent)
        counter += 1
        parent.children.append(node)
        owner[lnode.mem_id] = (node, depth + 1)
    _wrap_mixed_text(with_text, counter)
    return root


def _wrap_mixed_text(parents: list[DomNode], counter: int) -> None:
    """Text runs beside elements become `#text` nodes, so a style sequence can name them
    (the paper's style trees show TEXT among a node's children)."""
    done: set[int] = set()
    for node in parents:
        if node.nid in done or not any(isinstance(c, DomNode) for c in node.children):
            continue
        done.add(node.nid)
        for i, child in enumerate(node.children):
            if isinstance(child, str) and not child.isspace():
                text = DomNode("#text", None, counter, node)
                text.children.append(child)
                node.children[i] = text
                counter += 1


def is_leaf(node: DomNode, virtual: bool = True) -> bool:
    """An actual leaf has no element children; a virtual leaf has only actual leaves below.

    The SST paper's second enhancement: parents of actual leaf tags act as leaves, so a
    paragraph with a link inside is one unit rather than a scatter of fragments.
    """
    if node._leaf is not None and virtual:
        return node._leaf
    leaf = True
    for child in node.children:
        if isinstance(child, DomNode):
            if not virtual:
                leaf = False
                break
            if any(isinstance(c, DomNode) for c in child.children):
                leaf = False
                break
    if virtual:
        node._leaf = leaf
    return leaf
