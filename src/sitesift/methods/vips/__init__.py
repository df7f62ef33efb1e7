"""VIPS, vision-based page segmentation (Cai, Yu, Wen & Ma, 2003), and cleaning with it: `vips`.

VIPS turns a rendered page into a content structure tree by repeating three steps:

1. visual block extraction: the DOM is divided by the paper's rules into visual blocks,
   each with a degree of coherence (DoC, 1 .. 10) (`vips.blocks`);
2. separator detection: the horizontal and vertical gaps between the blocks, weighted by
   the paper's five rules (`vips.separators`);
3. content structure construction: blocks are grouped across separators, lightest inside,
   heaviest between; a group's DoC follows from the heaviest separator inside it.

Then every leaf block whose DoC is below the permitted degree of coherence (PDoC) is
segmented again by the same three steps inside its own region, until every leaf meets the
PDoC or cannot be divided (the granularity check). Only leaves are refined: a virtual block
already has its parts. The round starting on a block divides its root (rule 3); a block
whose root cannot be divided is final.

Cleaning (ours; the paper segments, it does not clean): the main content is the node of
the content structure with the largest `text - links` score, where a leaf scores its
characters outside links minus its characters inside links and a node the sum over its
leaves. That node covers the article's paragraphs (positive) while leaving out menus and
link lists (negative) unless they sit inside it; within it, leaves whose link share
exceeds `max_link_share` are dropped as well. Everything else is noise.

`preset="paper"` (`--set preset=paper`, PRESETS): VIPS's segmentation, which is the paper's
in every mode, with nothing of ours after it but the choice of the part kept, which no
paper gives (seed 002: VIPS "divides the page finely but does not process the noise
further"; seed 001 ranks its blocks against a query): no leaf of that part is dropped for
its links, and blocks that touch are not separated, since a separator is a visible line
(`min_gap=1`). Choices the paper leaves open are named in the fields: the PDoC (each
application sets its own), the thresholds of rules 8 and 9 and the separator weight
scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitesift.browser.chromium import RenderOptions, render
from sitesift.browser.rendering import Rendering
from sitesift.dom import DomNode
from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.methods.kmib import Info, coverage_tree
from sitesift.methods.shared.presets import check_preset
from sitesift.methods.vips.blocks import Extractor, VBlock
from sitesift.methods.vips.separators import background, construct
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE
from sitesift.verdicts import Verdict

# What each preset changes from the field defaults (the fields' docstrings say why).
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"max_link_share": 1.0, "min_gap": 1.0},
}

@dataclass(frozen=True, slots=True)
class VIPSParams:
    """Options of VIPS, with where each default comes from."""

    pdoc: int = 8
    """Permitted degree of coherence: leaves below it are segmented again (the paper's
    parameter, 1 .. 10; 11 would refine to the text level). Cleaning, mean token F1 at
    PDoC 3 / 5 / 8 / 10 on seeded samples: big9 0.875 / 0.885 / 0.894 / 0.894, l3s-gn1
    0.875 / 0.899 / 0.922 / 0.923, cleanportaleval 0.836 / 0.835 / 0.841 / 0.840."""
    text_size: float = 0.1
    """Rule 8: a node with text children smaller than this share of the region stays whole
    (ours; the paper says "a threshold")."""
    child_size: float = 0.05
    """Rule 9: a node whose largest child is smaller than this share of the region stays
    whole (ours; the paper says "a threshold")."""
    max_rounds: int = 12
    """Refinement rounds at most: a guard, never reached on the shared corpora."""
    max_link_share: float = 0.5
    """Cleaning: a leaf of the main content with a larger share of link text is noise
    (ours). Paper preset: 1.0, no leaf is dropped (the paper segments, it does not clean)."""
    min_gap: float | None = None
    """Separators: None (ours), blocks that touch are split by a separator of zero
    thickness; a number: blocks closer than that many px are one run, no separator between
    them. The paper's separator detection splits a separator at each block it contains,
    which leaves zero-thickness separators between touching blocks, but its separators are
    lines that "visually cross no block" in the pool, and a line of no thickness is not
    seen. Paper preset: 1, one screen pixel (measured in docs/paper-modes.md)."""
    width: int = 1280
    height: int = 1024
    timeout: float = 30.0
    preset: str = "default"
    """'default' (the values above) or 'paper' (PRESETS): `--set preset=paper`; the preset
    gives the starting values, and any field also set explicitly wins."""
    page_styles: bool = True
    """Lay the page out with its own stylesheets where its input carries them (a saved
    page's folder, its WARC; `sitesift.browser.resources`), as the paper's browser did;
    False: every stylesheet blocked, the unstyled layout. The result's `meta["styles"]`
    says which the page had."""

    def __post_init__(self) -> None:
        check_preset("vips", PRESETS, self.preset)
        if self.min_gap is not None and self.min_gap < 0:
            raise ValueError("vips: min_gap must be >= 0 px or null")
        if not 1 <= self.pdoc <= 11:
            raise ValueError("vips: pdoc must be in 1 .. 11")
        for name in ("text_size", "child_size", "max_link_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"vips: {name} must be in [0, 1]")
        if self.max_rounds < 1:
            raise ValueError("vips: max_rounds must be at least 1")

    @property
    def render_options(self) -> RenderOptions:
        return RenderOptions(width=self.width, height=self.height, timeout=self.timeout,
                             page_styles=self.page_styles)


def segment(page: Page, rendering: Rendering, params: VIPSParams | None = None) -> VBlock:
    """The content structure tree of a rendered page."""
    p = params or VIPSParams()
    body = next(page.root.elements(), None)
    whole = VBlock(0.0, 0.0, rendering.width, rendering.height, 1, body, rule="the page")
    if body is None:
        whole.final = True
        return whole
    _refine(whole, rendering, p)
    for _ in range(p.max_rounds - 1):
        todo = [leaf for leaf in whole.leaves() if leaf.doc < p.pdoc and not leaf.final]
        if not todo:
            break
        for leaf in todo:
            _refine(leaf, rendering, p)
    return whole


def _refine(block: VBlock, rendering: Rendering, p: VIPSParams) -> None:
    """One VIPS round inside a leaf block: extract, detect separators, construct; the leaf
    becomes the root of what was found (or final, when its root cannot be divided)."""
    node = block.node
    if node is None:
        block.final = True
        return
    extractor = Extractor(rendering, block.area, p.text_size, p.child_size)
    blocks = extractor.run(node, background(node.parent, rendering))
    if not blocks or (len(blocks) == 1 and blocks[0].node is node):
        block.final = True
        return
    sub = construct(blocks, rendering, extractor.rulers, min_gap=p.min_gap)
    block.children = sub.children if sub.children else [sub]
    block.doc, block.weight = sub.doc, sub.weight
    block.rule = sub.rule


def main_content(tree: VBlock, info: dict[int, Info]) -> tuple[VBlock, dict[int, float]]:
    """The node with the largest `text - links` score (ties: the deepest), and every
    node's score (by id())."""
    scores: dict[int, float] = {}
    best, best_score = tree, float("-inf")
    # Post-order without recursion: (block, children done, depth).
    stack: list[tuple[VBlock, bool, int]] = [(tree, False, 0)]
    depth_of: dict[int, int] = {}
    while stack:
        block, done, depth = stack.pop()
        if not done:
            stack.append((block, True, depth))
            stack.extend((c, False, depth + 1) for c in block.children)
            continue
        if block.children:
            score = sum(scores[id(c)] for c in block.children)
        else:
            got = info.get(block.node.nid) if block.node is not None else None
            score = float(got.clen - got.alen) if got is not None else 0.0
        scores[id(block)] = score
        depth_of[id(block)] = depth
        if score > best_score or (score == best_score and depth > depth_of[id(best)]):
            best, best_score = block, score
    return best, scores


@register
class VIPSCleaner(ParamsCleaner[VIPSParams]):
    """VIPS content structure; the blocks of the main content are kept."""

    name = "vips"
    params_type = VIPSParams
    presets = PRESETS
    needs_browser = True

    def tree(self, page: Page) -> VBlock:
        return segment(page, render(page, self.params.render_options), self.params)

    def score(self, page: Page) -> NodeScores:
        tree = self.tree(page)
        info = coverage_tree(page.root, 0.0)
        main, _ = main_content(tree, info)
        verdicts: NodeScores = {page.root.nid: Verdict(NOISE, 0.0, "VIPS: outside the main "
                                                                  "content")}
        limit = self.params.max_link_share
        kept = {id(b) for b in main.leaves()}
        for leaf in tree.leaves():
            node = leaf.node
            if node is None:
                continue
            if id(leaf) not in kept:
                verdicts[node.nid] = Verdict(NOISE, 0.0, f"VIPS: block outside the main content "
                                                         f"({leaf.rule}, DoC {leaf.doc})", True)
                continue
            got = info.get(node.nid)
            if got is not None and got.link_share > limit:
                verdicts[node.nid] = Verdict(NOISE, 0.0, f"VIPS: link block in the main content "
                                                         f"(link share {got.link_share:.2f})",
                                             True)
            else:
                verdicts[node.nid] = Verdict(CONTENT, 1.0, f"VIPS: main-content block "
                                                           f"({leaf.rule}, DoC {leaf.doc})")
        return verdicts


def leaf_nodes(tree: VBlock) -> list[DomNode]:
    """The DOM roots of the leaf blocks, in reading order of the tree."""
    return [leaf.node for leaf in tree.leaves() if leaf.node is not None]
