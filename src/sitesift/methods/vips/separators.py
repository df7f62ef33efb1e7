"""VIPS steps 2 and 3: visual separators between the blocks of a region, their weights, and
the content structure built from them (Cai, Yu, Wen & Ma 2003).

Separator detection. The paper starts with one separator spanning the region, then for
every block splits a separator that contains it, shrinks one it crosses, removes one it
covers, and finally drops the separators at the region's borders. For horizontal
separators that is exactly the gaps between the runs of overlapping y-intervals of the
blocks (vertical: x-intervals), which is how it is computed here, in O(n log n). Ours
(`min_gap=None`): blocks that touch (no gap) are split by a separator of zero thickness,
which the distance rule weighs lowest, and overlaps under `TOLERANCE` px are not overlaps.
The paper's separator is a line that "visually crosses no block", so blocks with less than
`min_gap` px between them (the paper preset: 1, one screen pixel) form one run.

Weights (the paper's five rules; the scale is ours, integer 1 .. 10):
1. distance: the wider the gap between the blocks, the heavier: 1 + gap / 8 px, at most 6;
2. an `<hr>` inside the separator: +2;
3. different background colours of the blocks on the two sides: +2;
4. horizontal only: different font size or weight above and below: +1 (+2 when the size
   differs by 4 px or more), and +1 more when the font above is smaller than below (a new
   heading starts a section);
5. horizontal only: the blocks on the two sides are alike (same tag and display attributes,
   both text): -1.

Content structure. The paper merges the blocks beside the lightest separators first, level
by level up to the heaviest. Built top-down instead: a region is cut along all its
heaviest separators of one direction (horizontal first on a tie), and each part is built
again with the separators recomputed inside it, which gives the same hierarchy and handles
separators that only exist inside a part (the columns under a page-wide header). A virtual
block's DoC follows from the heaviest separator inside it: 11 - weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from sitesift.browser.rendering import Box, Rendering
from sitesift.dom import DomNode
from sitesift.methods.vips.blocks import VBlock

TOLERANCE = 1.0  # px of overlap that still counts as touching (rounding, borders)
MAX_WEIGHT = 10
MAX_LEVELS = 200  # levels of the structure built from one pool (Python's stack is ~1000)


@dataclass(slots=True)
class Separator:
    horizontal: bool
    start: float                # y (horizontal) or x (vertical) where the gap begins
    end: float                  # ... and ends
    before: list[VBlock]        # the run of blocks above (left of) the gap
    after: list[VBlock]         # ... and below (right of) it
    index: int = 0              # the gap after run `index` of its direction
    weight: int = 1

    @property
    def gap(self) -> float:
        return max(self.end - self.start, 0.0)


def detect(blocks: list[VBlock], horizontal: bool, min_gap: float | None = None
           ) -> tuple[list[list[VBlock]], list[Separator]]:
    """The runs of blocks with overlapping extents, and the separators between them (none
    at the region's borders). `min_gap`: None, touching blocks are separated (ours); else
    blocks closer than that many px join one run (the paper's visible separators)."""
    join = -TOLERANCE if min_gap is None else min_gap  # a run ends where a gap reaches it
    def lo(b: VBlock) -> float:
        return b.y0 if horizontal else b.x0

    def hi(b: VBlock) -> float:
        return b.y1 if horizontal else b.x1

    runs: list[tuple[float, list[VBlock]]] = []  # (end of the run, its blocks)
    for block in sorted(blocks, key=lambda b: (lo(b), hi(b))):
        if runs and lo(block) < runs[-1][0] + join:
            end, members = runs[-1]
            members.append(block)
            runs[-1] = (max(end, hi(block)), members)
        else:
            runs.append((hi(block), [block]))
    seps: list[Separator] = []
    for i, ((end, before), (_, after)) in enumerate(pairwise(runs)):
        start = min(lo(b) for b in after)
        seps.append(Separator(horizontal, min(end, start), max(end, start), before, after, i))
    return [members for _, members in runs], seps


def weigh(sep: Separator, rendering: Rendering, rulers: list[Box]) -> int:
    """The paper's five rules on one separator (see the module notes for the scale)."""
    near_before = max(sep.before, key=lambda b: b.y1 if sep.horizontal else b.x1)
    near_after = min(sep.after, key=lambda b: b.y0 if sep.horizontal else b.x0)
    weight = 1.0 + min(sep.gap / 8.0, 5.0)
    if any(_inside(ruler, sep) for ruler in rulers):
        weight += 2
    a, b = _look(near_before, rendering), _look(near_after, rendering)
    if a is not None and b is not None:
        if a.background != b.background:
            weight += 2
        if sep.horizontal:
            if a.font_size != b.font_size or a.font_weight != b.font_weight:
                weight += 2 if abs(a.font_size - b.font_size) >= 4 else 1
            if a.font_size < b.font_size:
                weight += 1
            if _alike(near_before, near_after):
                weight -= 1
    return max(1, min(MAX_WEIGHT, round(weight)))


def construct(blocks: list[VBlock], rendering: Rendering, rulers: list[Box],
              depth: int = 0, min_gap: float | None = None) -> VBlock:
    """The content structure over `blocks` (one block: itself); `min_gap` as in `detect`."""
    if len(blocks) == 1:
        return blocks[0]
    if depth >= MAX_LEVELS:  # a guard against staircase layouts, not a rule of the paper
        return VBlock(*_bounds(blocks), min(b.doc for b in blocks), children=_in_order(blocks),
                      rule="nesting limit")
    rows, across = detect(blocks, True, min_gap)
    columns, down = detect(blocks, False, min_gap)
    seps = across + down
    box = _bounds(blocks)
    if not seps:  # blocks overlap every way: one group, as coherent as its weakest member
        return VBlock(*box, min(b.doc for b in blocks), children=_in_order(blocks),
                      rule="overlapping blocks")
    for sep in seps:
        sep.weight = weigh(sep, rendering, rulers)
    heaviest = max(s.weight for s in seps)
    horizontal = any(s.horizontal and s.weight == heaviest for s in seps)
    runs = rows if horizontal else columns
    cuts = {s.index for s in seps if s.horizontal == horizontal and s.weight == heaviest}
    parts: list[list[VBlock]] = [[]]
    for i, run in enumerate(runs):  # runs between two cuts form one part
        parts[-1].extend(run)
        if i in cuts:
            parts.append([])
    children = [construct(part, rendering, rulers, depth + 1, min_gap) for part in parts]
    return VBlock(*box, max(1, 11 - heaviest), children=children, weight=heaviest,
                  rule=f"{'horizontal' if horizontal else 'vertical'} separators of weight "
                       f"{heaviest}")


def _bounds(blocks: list[VBlock]) -> tuple[float, float, float, float]:
    return (min(b.x0 for b in blocks), min(b.y0 for b in blocks),
            max(b.x1 for b in blocks), max(b.y1 for b in blocks))


def _in_order(blocks: list[VBlock]) -> list[VBlock]:
    return sorted(blocks, key=lambda b: (b.y0, b.x0))


def _inside(ruler: Box, sep: Separator) -> bool:
    """An <hr> drawn within the gap (or on its edges)."""
    lo, hi = (ruler.y, ruler.bottom) if sep.horizontal else (ruler.x, ruler.right)
    return sep.start - TOLERANCE <= lo and hi <= sep.end + TOLERANCE


def _look(block: VBlock, rendering: Rendering) -> Box | None:
    """The box whose background and font stand for the block: its first text-holding
    element (a heading's font, not its wrapper's), with the colour it is drawn on."""
    if block.node is None:
        return None
    top = rendering.box(block.node)
    if top is None:
        return None
    for node in block.node.iter():
        if any(isinstance(c, str) and not c.isspace() for c in node.children):
            found = rendering.box(node)
            if found is not None and found.valid:
                return Box(found.x, found.y, found.w, found.h, found.visible, found.display,
                           background(node, rendering), found.font_size, found.font_weight)
    return Box(top.x, top.y, top.w, top.h, top.visible, top.display,
               background(block.node, rendering), top.font_size, top.font_weight)


def _alike(a: VBlock, b: VBlock) -> bool:
    """Same presentation (tag and display attributes) and both plain text blocks."""
    return (a.node is not None and b.node is not None and a.node.key == b.node.key
            and _holds_text(a) and _holds_text(b))


def _holds_text(block: VBlock) -> bool:
    assert block.node is not None
    return block.rule == "rule 4" or block.node.tag == "#text"


def background(node: DomNode | None, rendering: Rendering) -> str | None:
    """The colour a node is drawn on: its own, else its nearest coloured ancestor's."""
    while node is not None:
        box = rendering.box(node)
        if box is not None and box.background is not None:
            return box.background
        node = node.parent
    return None
