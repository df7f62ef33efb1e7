"""VIPS step 1, visual block extraction: the DOM division rules of Cai, Yu, Wen & Ma (2003).

Terms (the paper's, on sitesift's DOM and the rendered boxes):
- *text node*: free text: a `#text` DomNode, or a non-blank text run of an element;
- *inline node*: computed `display: inline` (the tags that style text without a line break:
  b, font, a, span, ...); a *line-break node* is any other element;
- *valid node*: drawn: visible with a non-empty box (`Box.valid`); invalid nodes are ignored;
- *virtual text node*: an inline node whose children are all text or virtual text nodes.

The rules, tried in order, the first that applies deciding (the paper's Table 1 says which
rules each kind of node gets):

 1. not a text node and no valid child: cut (never a block);
 2. one valid child, not a text node: divide;
 3. the root of the block being divided (its only DOM subtree): divide;
 4. all children text or virtual text nodes: keep, DoC 10 if they share font size and weight,
    else 9;
 5. a child is a line-break node: divide;
 6. a child is an `<hr>`: divide;
 7. a child's background colour differs from this node's: divide, and keep that child whole
    this round with DoC 6-8 (by tag and size);
 8. a text or virtual text child, and the node is smaller than `text_size` of the region:
    keep, DoC 5-8 (by tag);
 9. the largest child is smaller than `child_size` of the region: keep, DoC by tag and size;
10. the previous sibling was not divided: keep, DoC by tag and size;
11. divide;
12. keep, DoC by tag and size.

Where the paper is loose, ours: "relative size" is area over the area of the region being
segmented (the page, then the block); "DoC by tag and size" is `tag_size_doc` below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from sitesift.browser.rendering import Box, Rendering
from sitesift.dom import DomNode

RULES = {
    "inline": (1, 2, 3, 4, 5, 6, 8, 9, 11),
    "table": (1, 2, 3, 7, 9, 12),
    "tr": (1, 2, 3, 7, 9, 12),
    "td": (1, 2, 3, 4, 8, 9, 10, 12),
    "p": (1, 2, 3, 4, 5, 6, 8, 9, 11),
    "other": (1, 2, 3, 4, 6, 8, 9, 11),
}
# Tags that hold text rather than arrange other blocks: one step more coherent.
_TEXT_TAGS = frozenset(
    "p h1 h2 h3 h4 h5 h6 li dt dd a span font b strong em i u label caption figcaption "
    "blockquote pre address cite small big".split())


@dataclass(eq=False, slots=True)
class VBlock:
    """A node of the content structure: a visual block (a leaf: one DOM node) or a virtual
    block grouping its children across separators."""

    x0: float
    y0: float
    x1: float
    y1: float
    doc: int                                   # degree of coherence, 1 .. 10
    node: DomNode | None = None                # the DOM subtree of a leaf
    children: list[VBlock] = field(default_factory=list)
    weight: int = 0                            # internal: weight of the separators cut
    rule: str = ""                             # why it is a block (or how it was split)
    final: bool = False                        # cannot be divided further

    @property
    def area(self) -> float:
        return max(self.x1 - self.x0, 0.0) * max(self.y1 - self.y0, 0.0)

    def leaves(self) -> list[VBlock]:
        out: list[VBlock] = []
        stack = [self]
        while stack:
            block = stack.pop()
            if block.children:
                stack.extend(reversed(block.children))
            else:
                out.append(block)
        return out


class _Kid(NamedTuple):
    node: DomNode | None   # None: a text run of the parent
    box: Box | None
    text: bool
    vtext: bool


def tag_size_doc(tag: str, area: float, region: float, low: int, high: int) -> int:
    """DoC for "by tag and size" (ours): smaller blocks and text-holding tags are more
    coherent. Five size steps (share of the region: >= 1/2, 1/4, 1/10, 1/30, less) plus one
    for a text tag, spread over [low, high]."""
    share = area / region if region > 0 else 1.0
    steps = sum(share < cut for cut in (0.5, 0.25, 0.1, 1 / 30)) + (tag in _TEXT_TAGS)
    return max(low, min(high, low + round((high - low) * steps / 5)))


def category(node: DomNode, box: Box | None) -> str:
    tag = node.tag
    if tag in ("table", "tr", "p"):
        return tag
    if tag in ("td", "th"):
        return "td"
    if tag == "#text" or (box is not None and box.display == "inline"):
        return "inline"
    return "other"


class Extractor:
    """One round of block extraction inside one region (the page, or a block)."""

    def __init__(self, rendering: Rendering, region_area: float, text_size: float,
                 child_size: float) -> None:
        self.rendering = rendering
        self.region = max(region_area, 1.0)
        self.text_size = text_size
        self.child_size = child_size
        self.pool: list[VBlock] = []
        self.rulers: list[Box] = []  # boxes of cut <hr>s: separator weighting reads them
        self._vtext: dict[int, bool] = {}

    def run(self, root: DomNode, background: str | None) -> list[VBlock]:
        """Blocks of `root`'s subtree; the root itself is divided (rule 3) when it can be."""
        divided: dict[int, bool] = {}
        # Items: (node, effective background of its parent, is the block's root).
        stack: list[tuple[DomNode, str | None, bool]] = [(root, background, True)]
        while stack:
            node, parent_bg, is_root = stack.pop()
            box = self.rendering.box(node)
            if box is None or not box.valid:
                continue
            bg = box.background or parent_bg
            kids = self._kids(node, box)
            action, doc, rule, whole = self._decide(node, box, kids, bg, is_root, divided)
            divided[node.nid] = action == "divide"
            if action == "cut":
                if node.tag == "hr":
                    self.rulers.append(box)
                continue
            if action == "keep":
                self.pool.append(self._block(node, box, doc, rule))
                continue
            todo: list[tuple[DomNode, str | None, bool]] = []
            for kid in kids:
                if kid.node is None:
                    continue
                if kid.node.nid in whole:
                    assert kid.box is not None
                    doc7 = tag_size_doc(kid.node.tag, kid.box.area, self.region, 6, 8)
                    self.pool.append(self._block(kid.node, kid.box, doc7, "rule 7"))
                    divided[kid.node.nid] = False
                else:
                    todo.append((kid.node, bg, False))
            stack.extend(reversed(todo))
        return self.pool

    def _decide(self, node: DomNode, box: Box, kids: list[_Kid], bg: str | None,
                is_root: bool, divided: dict[int, bool]
                ) -> tuple[str, int, str, frozenset[int]]:
        none: frozenset[int] = frozenset()
        region = self.region
        for rule in RULES[category(node, box)]:
            if rule == 1 and node.tag != "#text" and not kids:
                return "cut", 0, "rule 1", none
            if rule == 2 and len(kids) == 1 and kids[0].node is not None and not kids[0].text:
                return "divide", 0, "rule 2", none
            if rule == 3 and is_root and any(k.node is not None for k in kids):
                return "divide", 0, "rule 3", none
            if rule == 4 and all(k.text or k.vtext for k in kids):
                fonts = {(b.font_size, b.font_weight) for k in kids
                         for b in [k.box or box]}
                return "keep", 10 if len(fonts) <= 1 else 9, "rule 4", none
            if rule == 5 and any(k.node is not None and not k.text and not k.vtext
                                 and k.box is not None and k.box.display != "inline"
                                 for k in kids):
                return "divide", 0, "rule 5", none
            if rule == 6 and any(k.node is not None and k.node.tag == "hr" for k in kids):
                return "divide", 0, "rule 6", none
            if rule == 7:
                whole = frozenset(k.node.nid for k in kids if k.node is not None
                                  and k.box is not None and k.box.background is not None
                                  and k.box.background != bg)
                if whole:
                    return "divide", 0, "rule 7", whole
            if (rule == 8 and any(k.text or k.vtext for k in kids)
                    and box.area / region < self.text_size):
                return "keep", tag_size_doc(node.tag, 0.0, region, 5, 8), "rule 8", none
            if rule == 9 and max((k.box.area for k in kids if k.box is not None),
                                 default=0.0) / region < self.child_size:
                return "keep", tag_size_doc(node.tag, box.area, region, 1, 9), "rule 9", none
            if rule == 10:
                before = self._previous(node)
                if before is not None and divided.get(before.nid) is False:
                    doc = tag_size_doc(node.tag, box.area, region, 1, 9)
                    return "keep", doc, "rule 10", none
            if rule == 11:
                return "divide", 0, "rule 11", none
            if rule == 12:
                return "keep", tag_size_doc(node.tag, box.area, region, 1, 9), "rule 12", none
        return "keep", tag_size_doc(node.tag, box.area, region, 1, 9), "no rule", none

    def _kids(self, node: DomNode, box: Box) -> list[_Kid]:
        """The valid children: elements drawn, and non-blank text runs (drawn with the node)."""
        kids: list[_Kid] = []
        for child in node.children:
            if isinstance(child, str):
                if not child.isspace():
                    kids.append(_Kid(None, box, True, False))
                continue
            cbox = self.rendering.box(child)
            if cbox is None or not cbox.valid:
                continue
            text = child.tag == "#text"
            kids.append(_Kid(child, cbox, text, not text and self._virtual_text(child)))
        return kids

    def _virtual_text(self, node: DomNode) -> bool:
        """An inline node with only text and virtual text children (memoised; no recursion:
        inline elements nest as deep as the DOM)."""
        memo = self._vtext
        stack: list[tuple[DomNode, bool]] = [(node, False)]
        while stack:
            item, done = stack.pop()
            if item.nid in memo:
                continue
            box = self.rendering.box(item)
            if box is None or box.display != "inline":
                memo[item.nid] = False
                continue
            kids = [c for c in item.children if isinstance(c, DomNode) and c.tag != "#text"]
            if not done:
                stack.append((item, True))
                stack.extend((c, False) for c in kids if c.nid not in memo)
                continue
            memo[item.nid] = all(memo[c.nid] for c in kids)
        return memo[node.nid]

    def _previous(self, node: DomNode) -> DomNode | None:
        """The previous drawn element sibling."""
        parent = node.parent
        if parent is None:
            return None
        before = None
        for sib in parent.elements():
            if sib is node:
                return before
            sbox = self.rendering.box(sib)
            if sbox is not None and sbox.valid:
                before = sib
        return None

    @staticmethod
    def _block(node: DomNode, box: Box, doc: int, rule: str) -> VBlock:
        return VBlock(box.x, box.y, box.right, box.bottom, doc, node, rule=rule)
