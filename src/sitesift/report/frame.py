"""The framed page: a saved page's own HTML with a method's verdicts written onto its elements.

The report shows each page as the browser renders it, inside `<iframe sandbox srcdoc>`. The
page is parsed again with the parser `sitesift.page` uses (Lexbor), and that tree is walked
beside the page's DomNode tree with the rules of `sitesift.dom` (which children are read,
which text runs become `#text` nodes), so every DomNode id (`nid`) that a verdict names finds
its element. Marked elements get `data-ss` (the mark's index in the report's list),
`data-ss-l` (content / noise) and a `title` (the fallback tooltip); a marked `#text` run is
wrapped in a `<span>`. The report's stylesheet then shades noise and outlines content.

The page's own stylesheets, where its input carries them (a saved page's folder, its WARC:
`sitesift.browser.resources`), are copied into the frame as `<style>` elements in the
places of their `<link>`s (their `@import`s and `url()`s neutralised as below), so the
frame shows the layout the browser methods measured; a stylesheet not there is left out.

Nothing the frame holds can reach the network or run: scripts, `<link>`, `<base>`,
`<noscript>` and `http-equiv` metas are removed, inline event handlers dropped, every
resource address (src, srcset, href of non-links, poster, background, object data, form
actions, CSS `url()` and `@import`) that is not a `data:` URI is moved into a `data-ss-*`
attribute or blanked, links point at `#` (their target kept in `data-ss-href`), and a
Content-Security-Policy meta (`default-src 'none'`) comes first in `<head>`: whatever slipped
through would be refused by the browser, not fetched.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

from sitesift.browser.resources import Resources, resources_of
from sitesift.dom import MAX_DEPTH, DomNode, _visible
from sitesift.page import Page

FRAME_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
             "media-src data:; form-action 'none'; base-uri 'none'")
# How marks look inside the frame. `!important` because the page's own rules come first;
# noise is shaded with an inset shadow, which tints the element's own background instead of
# replacing it, so a dark menu stays recognisable.
FRAME_STYLE = """
[data-ss-l="noise"]{box-shadow:inset 0 0 0 100vmax rgba(220,38,38,.24)!important;
 outline:1px dashed rgba(185,28,28,.9)!important;outline-offset:-1px!important}
[data-ss-l="noise"] img,img[data-ss-l="noise"]{opacity:.4!important}
[data-ss-l="content"]{outline:2px solid rgba(22,163,74,.95)!important;outline-offset:-2px!important}
[data-ss-l="noise"] [data-ss-l="content"]{
 box-shadow:inset 0 0 0 100vmax rgba(255,255,255,.8)!important}
[data-ss-hover]{outline:3px solid #2563eb!important;outline-offset:-3px!important}
[data-ss-focus]{outline:3px solid #f59e0b!important;outline-offset:-3px!important}
noscript{display:none!important}
"""

_REMOVE = ("script", "link", "base", "noscript", "meta[http-equiv]", "portal")
# Attributes that make the browser fetch (or navigate to) an address.
_URL_ATTRS = frozenset({
    "src", "srcset", "href", "xlink:href", "poster", "background", "data", "action",
    "formaction", "ping", "longdesc", "lowsrc", "dynsrc", "manifest", "codebase", "archive",
    "profile", "icon", "imagesrcset", "srcdoc",
})
_LINK_TAGS = frozenset({"a", "area"})
# Frames and plug-ins load even `data:` documents (which the policy would refuse, noisily).
_NO_DATA_TAGS = frozenset({"iframe", "frame", "object", "embed", "applet"})
_CSS_URL = re.compile(r"""url\(\s*(?!['"]?\s*data:)(?:"[^"]*"|'[^']*'|[^)]*)\)""", re.I)
_CSS_IMPORT = re.compile(r"@import\s[^;]*;?", re.I)
_CSS_IMAGE_SET = re.compile(r"(?:-webkit-)?image-set\([^)]*\)", re.I)


@dataclass(frozen=True, slots=True)
class Mark:
    """What the report says about one marked element of the page."""

    label: str    # content / noise
    score: float  # the method's content score in [0, 1]
    reason: str   # the rule that decided
    path: str     # the element's readable address (body/div#main/p)
    nid: int      # its DomNode id
    via: str      # "node": a verdict on the node; "block": a text block relabelled after

    def title(self) -> str:
        how = "" if self.via == "node" else " (text block)"
        return f"{self.label} {self.score:.2f}{how} · {self.path}\n{self.reason}"


class AlignedPage:
    """A fresh Lexbor tree of a page and, for each of its DomNodes, the Lexbor node."""

    def __init__(self, page: Page) -> None:
        self.tree = LexborHTMLParser(page.html)
        self.resources = resources_of(page)
        self.lexbor: dict[int, Any] = {}
        self.unaligned = 0  # subtrees where the two trees disagree (never seen; counted)
        self._by_mem: dict[int, Any] = {}
        body = self.tree.body
        if body is None or not page.root.children:
            return
        top = page.root.children[0]
        assert isinstance(top, DomNode)
        self.lexbor[page.root.nid] = body  # a verdict on the virtual root is one on <body>
        self.lexbor[top.nid] = body
        stack: list[tuple[DomNode, Any]] = [(top, body)]
        while stack:
            node, lnode = stack.pop()
            if node.depth >= MAX_DEPTH:  # flattened by sitesift.dom: no DomNodes below
                continue
            kids = node.children
            items = list(_lexbor_children(lnode))
            if len(kids) != len(items):
                self.unaligned += 1
                continue
            for kid, item in zip(kids, items, strict=True):
                if isinstance(kid, str):
                    continue
                if kid.tag == "#text":
                    self.lexbor[kid.nid] = item
                elif item.tag != kid.tag:
                    self.unaligned += 1
                else:
                    self.lexbor[kid.nid] = item
                    stack.append((kid, item))

    def annotate(self, marks: Sequence[Mark], targets: Sequence[tuple[int, int]]) -> int:
        """Write marks onto elements: `targets` are (mark index, nid) pairs, the last pair
        naming an element wins. Returns how many targets found no element."""
        missing = 0
        last: dict[int, int] = {}
        for index, nid in targets:
            node = self.lexbor.get(nid)
            if node is None:
                missing += 1
                continue
            # one write per element (<body> is both the virtual root and itself)
            last.pop(node.mem_id, None)
            last[node.mem_id] = index
            self._by_mem[node.mem_id] = node
        for mem, index in last.items():
            lnode, mark = self._by_mem[mem], marks[index]
            if lnode.tag == "-text":  # a #text run beside elements: wrap it in a span
                span = LexborHTMLParser(
                    f"<span>{htmllib.escape(lnode.text_content or '')}</span>").css_first("span")
                assert span is not None
                _set_mark(span, index, mark)
                lnode.insert_before(span)  # inserts a copy, marked already
                lnode.decompose()
                continue
            _set_mark(lnode, index, mark)
        return missing

    def document(self) -> str:
        """The annotated page, neutralised, as one HTML string for `srcdoc`."""
        if self.resources is not None:
            inline_stylesheets(self.tree, self.resources)
        neutralise(self.tree)
        head = self.tree.head
        if head is not None:
            csp = LexborHTMLParser(
                f'<meta http-equiv="Content-Security-Policy" content="{FRAME_CSP}">'
            ).css_first("meta")
            style = LexborHTMLParser(f"<style>{FRAME_STYLE}</style>").css_first("style")
            assert csp is not None and style is not None
            if head.child is not None:
                head.child.insert_before(csp)
            else:
                head.insert_child(csp)
            head.insert_child(style)
        root = self.tree.css_first("html")
        if root is not None:
            root.attrs["data-ss-doc"] = "1"  # the report's script knows its frame has loaded
        return self.tree.html or ""


def _set_mark(lnode: Any, index: int, mark: Mark) -> None:
    attrs = lnode.attrs
    own = attrs.get("title") if "data-ss" not in attrs else attrs.get("data-ss-t0")
    if own:
        attrs["data-ss-t0"] = own  # the page's own tooltip, restored by the report script
    attrs["data-ss"] = str(index)
    attrs["data-ss-l"] = mark.label
    attrs["title"] = mark.title()


def _lexbor_children(lnode: Any) -> Iterator[Any]:
    """The Lexbor children that `sitesift.dom` turns into children: non-empty text runs and
    visible elements, in order."""
    child = lnode.child
    while child is not None:
        tag = child.tag
        if tag == "-text":
            if child.text_content:
                yield child
        elif _visible(child, tag):
            yield child
        child = child.next


def inline_stylesheets(tree: LexborHTMLParser, resources: Resources) -> int:
    """Put each linked stylesheet found in `resources` in place of its `<link>` as a
    `<style>` (its `media` kept); how many were. The frame may fetch nothing, so this is
    how it gets the page's own styles."""
    done = 0
    for link in tree.css("link[href]"):
        rel = (link.attributes.get("rel") or "").lower().split()
        if "stylesheet" not in rel or "alternate" in rel:
            continue
        found = resources.get(urljoin(resources.document_url, link.attributes["href"] or ""))
        if found is None:
            continue
        css = found.body.decode("utf-8", "replace").replace("</", "<\\/")
        media = htmllib.escape(link.attributes.get("media") or "all")
        style = LexborHTMLParser(f'<style media="{media}">{css}</style>').css_first("style")
        if style is not None:
            link.insert_before(style)
            done += 1
    return done


def neutralise(tree: LexborHTMLParser) -> None:
    """Make the document inert: nothing it holds may run or fetch (see the module docstring)."""
    for selector in _REMOVE:
        for node in tree.css(selector):
            node.decompose()
    for node in tree.css("style"):
        text = node.text()
        clean = neutralise_css(text)
        if clean != text and node.child is not None:
            node.child.replace_with(clean)
    root = tree.root
    if root is None:
        return
    for node in root.traverse():
        attrs = node.attributes
        if not attrs:
            continue
        tag = node.tag or ""
        for name, value in attrs.items():
            low = name.lower()
            if low.startswith("on"):
                del node.attrs[name]
            elif low == "style" and value:
                clean = neutralise_css(value)
                if clean != value:
                    node.attrs[name] = clean
            elif low in _URL_ATTRS and value is not None:
                _neutralise_url(node, tag, name, value.strip())


def _neutralise_url(node: Any, tag: str, name: str, value: str) -> None:
    if tag in _LINK_TAGS and name.lower() == "href":
        if not value.startswith("#"):
            node.attrs["data-ss-href"] = value
            node.attrs[name] = "#"
        return
    if value.startswith("#") and name.lower() in ("href", "xlink:href"):
        return  # a fragment inside the document (SVG <use>): nothing to fetch
    if value.lower().startswith("data:") and tag not in _NO_DATA_TAGS:
        return
    node.attrs["data-ss-" + name.replace(":", "-").lower()] = value
    del node.attrs[name]


def neutralise_css(css: str) -> str:
    """CSS with `@import` rules dropped and every non-`data:` `url()` made `none`."""
    css = _CSS_IMPORT.sub("", css)
    css = _CSS_IMAGE_SET.sub("none", css)
    return _CSS_URL.sub("none", css)
