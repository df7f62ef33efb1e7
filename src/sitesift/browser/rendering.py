"""What a rendering is: where each DomNode of a page was drawn, and how the browser's list
of drawn nodes is aligned to sitesift's DomNodes (the driver: `chromium`).

The page script returns one entry per DomNode in document order, each with a signature
(tag, id, class). Equal signature lists are zipped; where the two parsers disagree, the
lists are aligned by longest matching runs (difflib), so one odd element costs its own box,
not every box after it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from sitesift.dom import DomNode


@dataclass(frozen=True, slots=True)
class Box:
    """Where one DomNode was drawn: absolute CSS px (page origin), and how it looks."""

    x: float
    y: float
    w: float
    h: float
    visible: bool           # CSS: displayed, visibility visible, opacity above 0
    display: str            # computed `display` (a #text node: its parent's)
    background: str | None  # computed background colour; None when transparent
    font_size: float        # px
    font_weight: int        # 100 .. 900

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def area(self) -> float:
        return max(self.w, 0.0) * max(self.h, 0.0)

    @property
    def valid(self) -> bool:
        """Seen in the browser: visible with a non-empty box (VIPS's "valid node")."""
        return self.visible and self.w > 0 and self.h > 0


@dataclass(frozen=True, slots=True)
class Styles:
    """Which of the page's own styles the rendering had: its linked stylesheets served from
    the page's resources (`sitesift.browser.resources`) or missing (no resources, or not
    among them), and its inline `<style>` elements (always applied)."""

    served: int = 0
    missing: int = 0
    inline: int = 0

    @property
    def kind(self) -> str:
        """"none": none of the page's styles applied (no linked stylesheet was there, no
        `<style>` element: the browser's defaults, the unstyled layout); "page": every
        stylesheet the page links was there (or it links none) and some style applied;
        "partial": some applied, some linked stylesheets were missing."""
        if not self.served and not self.inline:
            return "none"
        return "partial" if self.missing else "page"

    def meta(self) -> dict[str, object]:
        """What a result's `meta["styles"]` says."""
        return {"styles": self.kind, "stylesheets": self.served,
                "stylesheets_missing": self.missing, "inline_styles": self.inline}


@dataclass(slots=True)
class Rendering:
    """One rendered page: the boxes of its DomNodes (by nid) and the page's full size."""

    width: float
    height: float
    viewport: tuple[int, int]
    boxes: dict[int, Box]
    nodes: int                 # DomNodes of the page (the #root excluded)
    matched: int               # of which the browser's walk matched this many
    blocked: list[str] = field(default_factory=list)   # requests aborted
    network: list[str] = field(default_factory=list)   # responses not served by us: none
    ms: float = 0.0            # wall time to render and measure
    browser_cpu_ms: float = 0.0  # CPU time of the browser's processes meanwhile (Linux)
    styles: Styles = field(default_factory=Styles)

    def box(self, node: DomNode) -> Box | None:
        return self.boxes.get(node.nid)


def signature(node: DomNode) -> str:
    """What the page script reports for a node: tag, id and class."""
    if node.tag == "#text":
        return "#text#."
    attrs = node.attrs or {}
    return f"{node.tag}#{attrs.get('id') or ''}.{attrs.get('class') or ''}"


def align(nodes: Sequence[DomNode], entries: Sequence[Sequence[Any]]) -> dict[int, Box]:
    """Boxes by nid: entries zipped to nodes when the signatures agree throughout, else
    matched by the longest common runs of signatures (unmatched nodes get no box)."""
    ours = [signature(n) for n in nodes]
    theirs = [str(e[0]) for e in entries]
    if ours == theirs:
        pairs: Iterator[tuple[int, int]] = zip(range(len(ours)), range(len(ours)), strict=True)
    else:
        matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
        pairs = ((a + k, b + k) for a, b, size in matcher.get_matching_blocks()
                 for k in range(size))
    boxes: dict[int, Box] = {}
    for i, j in pairs:
        e = entries[j]
        boxes[nodes[i].nid] = Box(float(e[1]), float(e[2]), float(e[3]), float(e[4]),
                                  bool(e[5]), str(e[6]), e[7], float(e[8]), int(e[9]))
    return boxes
