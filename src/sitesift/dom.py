"""A light, read-only DOM that every method shares.

The Lexbor tree (selectolax) is read into `DomNode`s: the tag, the presentation *style
key* (tag plus normalised display attributes), the children in document order (text runs
as plain `str`), an id and the parent. Invisible parts (scripts, styles, comments, `hidden`
elements) never enter it, so no method has to remember to skip them, and nothing below
recurses in Python, so absurd nesting cannot overflow the stack.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

# Subtrees that are never displayed as page text.
SKIPPED_TAGS = frozenset(
    {
        "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
        "iframe", "embed", "svg", "math", "canvas", "audio", "video", "source",
        "track", "map", "param", "datalist", "dialog",
    }
)
# An `<object>` shows its nested (fallback) content when the browser cannot show what it
# embeds: a plugin's content (Flash, Java, ActiveX `classid`), which no current browser
# runs. The content of its `type` (or failing that, of its `data` address) that a browser
# shows itself (an image, a page, a PDF) is shown instead, and the nested content is not.
OBJECT_SHOWS_ITSELF = re.compile(
    r"^(image/|text/|application/pdf)|\.(png|jpe?g|gif|webp|avif|bmp|svg|html?|pdf)([?#]|$)", re.I)
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
_MAYBE_HIDDEN = frozenset({"hidden", "aria-hidden", "style"})
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


class DomNode:
    """One element of a page, with its children in document order.

    Children are read from the Lexbor tree the first time they are asked for, so cleaning
    never pays for subtrees it deletes unseen (a noisy sidebar, a footer).
    """

    __slots__ = ("_children", "_doc", "_features", "_key", "_leaf", "_lnode", "attrs", "depth",
                 "nid", "parent", "tag")

    def __init__(self, tag: str, attrs: dict[str, str | None] | None, nid: int,
                 parent: DomNode | None, lnode: Any = None, doc: _Doc | None = None) -> None:
        self.tag = tag
        self.attrs = attrs  # as the parser gave them; None when the element has none
        self.nid = nid      # unique within the page (creation order)
        self.parent = parent
        self.depth: int = parent.depth + 1 if parent is not None else 0
        self._lnode = lnode
        self._doc = doc
        self._children: list[DomNode | str] | None = None if lnode is not None else []
        self._key: str | None = None
        self._leaf: bool | None = None
        self._features: Any = None

    @property
    def children(self) -> list[DomNode | str]:
        kids = self._children
        if kids is None:
            assert self._doc is not None
            kids = self._children = self._doc.expand(self)
            self._lnode = None
        return kids

    def has_elements(self) -> bool:
        """Whether any child is an element; asks the parser without reading the children, so
        a leaf test on the parent leaves this subtree unread for the fast text path."""
        if self._children is None and self._lnode is not None and self.depth < MAX_DEPTH:
            child = self._lnode.child
            while child is not None:
                if child.tag != "-text" and _visible(child, child.tag):
                    return True
                child = child.next
            return False
        return any(isinstance(c, DomNode) for c in self.children)

    @property
    def unread(self) -> bool:
        """True while the children have not been read from the parser."""
        return self._children is None

    def text_blocks(self, tag: str) -> list[tuple[str, str]]:
        """(block tag, text) of the subtree, read straight from the parser without making
        DomNodes: the renderer's fast path for subtrees no method looks inside. Same rules
        as `children` (invisible parts skipped) and as the renderer (blocks split at
        block-level elements)."""
        assert self._lnode is not None
        return _lexbor_blocks(self._lnode, tag)

    @property
    def key(self) -> str:
        """The style key (computed on first use: cleaning visits few nodes)."""
        key = self._key
        if key is None:
            key = self._key = (_cached_style_key(self.tag, tuple(self.attrs.items()))
                               if self.attrs else self.tag)
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
_PAGE_ROOTS = frozenset({"body", "html"})


def style_key(tag: str, attrs: dict[str, str | None]) -> str:
    """Tag plus display attributes, digits folded so `post-123` and `post-456` look alike.

    `<body>` and `<html>` are their tag alone: CMSs put the page's own type, section and id
    in their classes (`single category-sport postid-9`), and a key that changes with every
    section would make the whole page look like a layout the site never had."""
    if tag in _PAGE_ROOTS:
        return tag
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


@functools.lru_cache(maxsize=1 << 16)
def _cached_style_key(tag: str, items: tuple[tuple[str, str | None], ...]) -> str:
    # Pages of one site repeat the same containers with the same attributes: a bounded
    # memo saves the folding and sorting on every page after the first.
    return style_key(tag, dict(items))


def is_hidden(attrs: dict[str, str | None]) -> bool:
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return True
    style = attrs.get("style")
    return bool(style and HIDDEN_STYLE.search(style))


class _Doc:
    """Per-page state of the lazy tree: the id counter and how to read children."""

    __slots__ = ("next_nid",)

    def __init__(self) -> None:
        self.next_nid = 1

    def expand(self, node: DomNode) -> list[DomNode | str]:
        lnode = node._lnode
        if node.depth >= MAX_DEPTH:  # flatten: keep the text, drop the structure
            return _flat_text(lnode)
        kids: list[DomNode | str] = []
        elements = texts = False
        child = lnode.child
        while child is not None:
            tag = child.tag
            if tag == "-text":
                text = child.text_content
                if text:
                    kids.append(text)
                    texts = texts or not text.isspace()
            elif _visible(child, tag):
                kids.append(DomNode(tag, child.attributes or None, self.next_nid, node, child,
                                    self))
                self.next_nid += 1
                elements = True
            child = child.next
        if elements and texts:
            # Text runs beside elements become `#text` nodes, so a style sequence can name
            # them (the paper's style trees show TEXT among a node's children).
            for i, item in enumerate(kids):
                if isinstance(item, str) and not item.isspace():
                    wrapped = DomNode("#text", None, self.next_nid, node)
                    wrapped.children.append(item)
                    kids[i] = wrapped
                    self.next_nid += 1
        return kids


def object_shows_fallback(attrs: dict[str, str | None]) -> bool:
    """Whether an `<object>` with these attributes displays its nested content."""
    if attrs.get("classid"):
        return True
    embedded = (attrs.get("type") or attrs.get("data") or "").strip()
    return not OBJECT_SHOWS_ITSELF.search(embedded)


def _visible(lnode: Any, tag: str | None) -> bool:
    if not tag or tag[0] in "-_!" or tag in SKIPPED_TAGS:  # comments, doctype, invisible kinds
        return False
    attrs = lnode.attributes
    if tag == "object" and not object_shows_fallback(attrs or {}):
        return False
    return not (attrs and _MAYBE_HIDDEN & attrs.keys() and is_hidden(attrs))


def _push_children(stack: list[Any], lnode: Any) -> None:
    """Push a Lexbor node's children so that popping visits them in document order (the
    explicit-stack walks below: no recursion, however deep the page nests)."""
    child = lnode.last_child
    while child is not None:
        stack.append(child)
        child = child.prev


def _lexbor_blocks(lnode: Any, tag: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    parts: list[str] = []

    def flush() -> None:
        text = " ".join("".join(parts).split())
        parts.clear()
        if text:
            out.append((tag, text))

    # Items: Lexbor nodes to visit, or a str: the block tag to restore on leaving a block.
    stack: list[Any] = []
    _push_children(stack, lnode)
    while stack:
        item = stack.pop()
        if item.__class__ is str:
            if parts:
                flush()
            tag = item
            continue
        name = item.tag
        if name == "-text":
            text = item.text_content
            if text and (parts or not text.isspace()):
                parts.append(text)
            continue
        if not _visible(item, name):
            continue
        if name in BLOCK_TAGS:
            if parts:
                flush()
            stack.append(tag)
            tag = name
        _push_children(stack, item)
    if parts:
        flush()
    return out


def _flat_text(lnode: Any) -> list[DomNode | str]:
    """The text below a node at MAX_DEPTH, in order: what shows of it, as `expand` would
    read it level by level (hidden parts, skipped tags and self-showing objects left out)."""
    out: list[DomNode | str] = []
    stack: list[Any] = []
    _push_children(stack, lnode)
    while stack:
        item = stack.pop()
        tag = item.tag
        if tag == "-text":
            text = item.text_content
            if text:
                out.append(text)
        elif _visible(item, tag):
            _push_children(stack, item)
    return out


def build_dom(lexbor_body: Any) -> DomNode:
    """The DomNode tree of a page: a virtual root above the Lexbor `<body>` element."""
    doc = _Doc()
    root = DomNode("#root", None, 0, None)
    attrs = lexbor_body.attributes
    body = DomNode(lexbor_body.tag, attrs or None, doc.next_nid, root, lexbor_body, doc)
    doc.next_nid += 1
    root.children.append(body)
    return root


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
            if child.has_elements():
                leaf = False
                break
    if virtual:
        node._leaf = leaf
    return leaf
