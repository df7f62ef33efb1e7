"""Selectors that teach the site: the default cleaner's `keep=CSS` and `drop=CSS`.

A user who sees a page cleaned wrongly names the element once, as a CSS selector (Lexbor's
engine, through selectolax, on the page's own parse: `sitesift.page.Page.root`). On every
page, the elements the selectors match are kept (`keep`) or dropped (`drop`) with everything
under them, whatever the model says. And across a site: when the cleaner is fitted on the
site's pages, each matched element's *style path* (its style key and its parent's and
grandparent's, `sitesift.dom.style_key`, the layout position the site evidence already
counts: `native/src/crawl/site.rs`'s `block_keys`) is learnt, and on every page the cleaner
cleans, an element with a learnt path takes the same decision with everything under it, where
the selector does not match literally (`#related-42` named on one page; the other pages'
related boxes have other ids, the same styled path; digits are folded in style keys).

A path is learnt only where it names the selector's elements on every fitted page it is
seen with them: on such a page, every element of that path is one the selector matched
(`div > p:nth-child(2)` among alike paragraphs names no path: the site cannot tell them
apart by their style), and no path is learnt both to keep and to drop.

Which decision an element takes: the innermost decided element above it (or itself) decides;
a literal match wins over a learnt path above or below it; on one element, `drop` wins over
`keep`. The core's elements are the DomNodes in preorder (`sitesift.dom`: the same visible
tree and node ids); a page whose script-gated content the core shows (`revealed`) is another
tree, and takes no selector (its result says so in `meta["selectors"]`).

Nothing here runs for a cleaner without selectors: its pages cost what they cost before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from sitesift.dom import DomNode, build_dom
from sitesift.errors import InputError, ModelError
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE, Block

NOT_APPLIED = ("not applied: the core read another tree than the page as served (its hidden "
               "content shown)")
NOT_THE_SAME_TREE = ("not applied: the core's tree of this page is not Lexbor's element for "
                     "element (formulas the core reads as one element, a parse they disagree "
                     "on)")


def checked(name: str, value: Any) -> tuple[str, ...]:
    """`keep=` or `drop=`'s value as a tuple of selectors: one CSS selector (a selector list,
    its commas CSS's own) or a list of them, each parsed by Lexbor now; a ValueError names a
    bad one."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(s, str) for s in items):
        raise ValueError(f"default: {name} must be a CSS selector or a list of them, "
                         f"got {value!r}")
    out = []
    for sel in items:
        sel = sel.strip()
        try:
            if not sel:
                raise SelectolaxError("empty")
            _probe().css(sel)
        except SelectolaxError:
            raise ValueError(f"default: {name}={sel!r} is not a CSS selector Lexbor reads"
                             ) from None
        out.append(sel)
    return tuple(out)


_PROBE: list[Any] = []


def _probe() -> Any:
    if not _PROBE:
        _PROBE.append(LexborHTMLParser("<p>").body)
    return _PROBE[0]


@dataclass(frozen=True, slots=True)
class Decision:
    """What decided an element: kept or dropped (`content`), by which selector, literally
    or through a path learnt on the site (`site`)."""

    content: bool
    selector: str
    site: bool = False

    @property
    def label(self) -> str:
        """`keep=CSS`, or `drop=CSS (site)` for a learnt path."""
        kind = "keep" if self.content else "drop"
        return f"{kind}={self.selector}{' (site)' if self.site else ''}"

    def reason(self, score: float) -> str:
        """A decided block's reason: the model's probability, then what decided it."""
        return f"default: p={score:.2f}, {self.label}"


class Tree:
    """A page's visible elements in preorder (`nodes`: the core's blocks' `element`) and
    by node id (`by_nid[i]` is the core's element `i`, node id `i + 1`), and each one's style
    path."""

    __slots__ = ("_paths", "body", "by_mem", "by_nid", "nodes", "parser")

    def tags(self) -> list[str]:
        """Each element's tag, by node id - 1 (as the core's blocks name theirs)."""
        return [n.tag for n in self.by_nid]

    def __init__(self, page: Page) -> None:
        # A parse of its own: the page's shared tree lets go of Lexbor's nodes as it reads
        # them, and the selectors need them (`DomNode._lnode`, read before the children are)
        self.parser = LexborHTMLParser(page.html)
        if self.parser.body is None:
            raise InputError(f"{page.name}: no document body after parsing")
        self.body = self.parser.body
        root = build_dom(self.body)
        # The whole preorder walk: node ids are given as the walk meets the elements
        self.nodes: list[DomNode] = []
        self.by_mem: dict[int, DomNode] = {}
        stack = [c for c in root.children if isinstance(c, DomNode)]
        while stack:
            node = stack.pop()
            self.nodes.append(node)
            if node._lnode is not None:
                self.by_mem[node._lnode.mem_id] = node
            stack.extend(reversed([c for c in node.children if isinstance(c, DomNode)]))
        self.by_nid: list[DomNode] = sorted(self.nodes, key=lambda n: n.nid)
        self._paths: dict[int, str] = {}

    def path(self, node: DomNode) -> str:
        """Its style key, its parent's and grandparent's (`block_keys`' position key)."""
        got = self._paths.get(node.nid)
        if got is None:
            parts: list[str] = []
            at: DomNode | None = node
            for _ in range(3):
                if at is None or at.depth == 0:
                    break
                parts.append(at.key)
                at = at.parent
            got = self._paths[node.nid] = "/".join(parts)
        return got

    def matched(self, selector: str) -> list[DomNode]:
        """The visible elements the selector matches (an element the core does not show,
        or one below the flattening depth, has no node and is left out)."""
        found = (self.by_mem.get(ln.mem_id) for ln in self.body.css(selector))
        return [n for n in found if n is not None]


class Selectors:
    """The cleaner's selectors and the paths they taught it on the site's pages."""

    def __init__(self, keep: Sequence[str], drop: Sequence[str]) -> None:
        self.keep, self.drop = tuple(keep), tuple(drop)
        self.learnt: dict[str, Decision] = {}

    @property
    def active(self) -> bool:
        return bool(self.keep or self.drop)

    def literal(self, tree: Tree) -> dict[int, Decision]:
        """The elements the selectors name on the page, by node id (`drop` over `keep`)."""
        out: dict[int, Decision] = {}
        for content, selectors in ((True, self.keep), (False, self.drop)):
            for sel in selectors:
                for node in tree.matched(sel):
                    out[node.nid] = Decision(content, sel)
        return out

    def learn(self, pages: Iterable[Page]) -> None:
        """The paths the selectors' elements have on a site's pages (the module's rule)."""
        found: dict[str, Decision] = {}
        refused: set[str] = set()
        for page in pages:
            tree = Tree(page)
            named = self.literal(tree)
            paths: dict[str, Decision] = {}
            for nid, d in named.items():
                path = tree.path(tree.by_nid[nid - 1])
                if paths.setdefault(path, d).content != d.content:
                    refused.add(path)
            for node in tree.nodes:  # a path some element of it the selectors missed has
                if (path := tree.path(node)) in paths and node.nid not in named:
                    refused.add(path)
            for path, d in paths.items():
                if found.setdefault(path, Decision(d.content, d.selector, True)
                                    ).content != d.content:
                    refused.add(path)
        self.learnt = {p: d for p, d in found.items() if p not in refused}

    def decisions(self, tree: Tree) -> list[Decision | None]:
        """Each element's decision (None: the model's), by node id - 1 (the core's element
        index, as its verdict bytes are laid out)."""
        literal = self.literal(tree)
        out: list[Decision | None] = [None] * len(tree.nodes)
        for node in tree.nodes:  # (preorder: a parent's decision is made before its children)
            parent = node.parent
            above = out[parent.nid - 1] if parent is not None and parent.nid else None
            own = literal.get(node.nid)
            if own is None and self.learnt and (above is None or above.site):
                own = self.learnt.get(tree.path(node))
            out[node.nid - 1] = own if own is not None else above
        return out

    def to_state(self) -> list[list[Any]]:
        return [[p, d.content, d.selector] for p, d in sorted(self.learnt.items())]

    def load_state(self, state: Any) -> None:
        """The learnt paths of a saved model: a list of [path, content, selector], each a
        str, a bool and a str; anything else is a ModelError (a hand-edited `"false"` must
        not turn a drop into a keep)."""
        if not isinstance(state, list):
            raise ModelError("default state: learnt selector paths must be a list, "
                             f"got {type(state).__name__}")
        learnt: dict[str, Decision] = {}
        for entry in state:
            if not (isinstance(entry, list) and len(entry) == 3
                    and isinstance(entry[0], str) and isinstance(entry[1], bool)
                    and isinstance(entry[2], str)):
                raise ModelError("default state: a learnt selector path must be "
                                 f"[path, true|false, selector], got {entry!r:.120}")
            learnt[entry[0]] = Decision(entry[1], entry[2], True)
        self.learnt = learnt


def same_tree(blocks: Sequence[Block], tags: Sequence[str], kept: bytes) -> bool:
    """Whether Lexbor's tree (`tags`, by element index) is the core's element for element, as
    far as the core's blocks show: as many elements, and each block's element of its tag.
    The core reads some things as other elements (a formula's markup as one `math` element,
    MathJax's boxes skipped): there the numbering parts, and no decision may be placed."""
    return len(tags) == len(kept) and all(
        0 < b.nid <= len(tags) and tags[b.nid - 1] == b.tag for b in blocks)


def _apart(tree: Tree, kept: bytes) -> list[bool]:
    """Whether each element is in a comment kept apart (its verdict byte 3 or 4, its own or
    the nearest ancestor's with one), by element index."""
    own: list[int] = [0] * len(kept)
    for node in tree.nodes:  # preorder: a parent's before its children
        i, parent = node.nid - 1, node.parent
        up = own[parent.nid - 1] if parent is not None and parent.nid else 0
        own[i] = kept[i] or up
    return [v in _APART for v in own]


def select(blocks: list[Block], decided: list[Decision | None], kept: bytes, noise: bool,
           tree: Tree) -> tuple[list[Block], bytes, list[Decision | None] | None]:
    """The core's blocks and verdict bytes (a byte per element: 0 none, the parent's; 1
    noise, 2 content, 3 a comment kept apart, 4 a reply control) with the selectors'
    decisions (`decided`, by element index) set: every decided element's byte, so nothing
    under it renders otherwise, except that `keep` leaves a comment kept apart (3, 4) apart;
    `noise` false, the content blocks only. Where Lexbor's tree and the core's are not the
    same (`same_tree`), nothing is decided (None)."""
    applied = len(decided) == len(kept) and same_tree(blocks, tree.tags(), kept)
    apart = _apart(tree, kept) if applied else []
    out = []
    for b in blocks:
        if applied and (d := decided[b.nid - 1]) is not None \
                and not (d.content and apart[b.nid - 1]):
            b = Block(b.text, b.tag, CONTENT if d.content else NOISE, b.score,
                      d.reason(b.score), b.nid, b.path)
        if noise or b.label == CONTENT:
            out.append(b)
    if not applied:
        return out, kept, None
    marked = bytearray(kept)
    for i, d in enumerate(decided):
        if d is not None and not (d.content and apart[i]):
            marked[i] = 2 if d.content else 1
    return out, bytes(marked), decided


_APART = (3, 4)  # verdict bytes of comments kept apart (`comments=separate`): a keep keeps them so
