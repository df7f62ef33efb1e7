"""VL_PS: noise removal by visual layout (Jing & Zuo, seed 002), and its fixed-size forerunner.

The paper's algorithm, on a page rendered by headless Chromium (`sitesift.browser.chromium`):

a. render the page and read its actual size from the DOM;
b. derive the region thresholds from that size: H1 (top), H2 (bottom), W1 (left), W2
   (right); the paper's experiment sets H1 = 200 px, H2 = 160 px (from the bottom), and
   W1, W2 at 30 % of the page width;
c. compare every element except BODY, by its absolute box (LEFT, TOP, WIDTH, HEIGHT), with
   the thresholds: TOP + HEIGHT <= H1: HEADER; TOP >= H2: FOOTER; LEFT + WIDTH <= W1: LM;
   LEFT >= W2: RM (tested in this order, the paper's);
d. every element not assigned elsewhere is CENTER; CENTER's content is the result.

Ours: a page on which no element reaches CENTER (a page shorter than H1 plus the footer
band, a one-liner) is kept whole rather than emptied.

Each element's region is its verdict (a deeper element's verdict overrides its ancestor's,
so a navigation bar at the top of a page-wide wrapper is HEADER while the wrapper is
CENTER); text beside elements belongs to its element, as in the paper, and text directly
in BODY to CENTER. Elements the renderer drew nowhere (CSS-hidden: a zero box at the
origin) fall in HEADER, i.e. out, which is where a reader would leave them.

`vlps-fixed` is the method the paper improves on (Kovacevic et al., AIMSA 2002, the
paper's [3]): the same rules with "a fixed page size and fixed thresholds" (the paper's
criticism (b)). We read "fixed page" as the screen, i.e. the renderer's viewport (1280 x
1024 px), and keep the thresholds' values, so the two methods differ only in that:
H1 = 200, H2 = 1024 - 160 = 864, W1 = 384, W2 = 896 px on every page. Kovacevic et al.'s
own threshold values and their table-driven layout engine are not in the seed and are not
reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sitesift.browser.chromium import RenderOptions, render
from sitesift.browser.rendering import Box
from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE
from sitesift.verdicts import Verdict

HEADER, FOOTER, LEFT, RIGHT, CENTER = "HEADER", "FOOTER", "LM", "RM", "CENTER"


@dataclass(frozen=True, slots=True)
class VLPSParams:
    """Options of VL_PS, with where each default comes from."""

    header: float = 200.0
    """H1: px from the top of the page (the paper's experiment)."""
    footer: float = 160.0
    """H2: px from the bottom of the page (the paper's experiment)."""
    left: float = 0.3
    """W1: share of the page width from the left (the paper's experiment)."""
    right: float = 0.3
    """W2: share of the page width from the right (the paper's experiment)."""
    fixed: bool = False
    """True: thresholds against the viewport, not the measured page (`vlps-fixed`)."""
    width: int = 1280
    """Viewport width for rendering (sitesift.browser.chromium's default)."""
    height: int = 1024
    """Viewport height: the fixed page of `vlps-fixed`."""
    timeout: float = 30.0
    """Seconds to load, and to measure, one page."""
    page_styles: bool = True
    """Lay the page out with its own stylesheets where its input carries them (a saved
    page's folder, its WARC; `sitesift.browser.resources`), as the paper's browser did;
    False: every stylesheet blocked, the unstyled layout. The result's `meta["styles"]`
    says which the page had."""

    def __post_init__(self) -> None:
        if self.header < 0 or self.footer < 0:
            raise ValueError("vlps: header and footer must be >= 0 px")
        if not (0 <= self.left <= 1 and 0 <= self.right <= 1):
            raise ValueError("vlps: left and right are shares of the width, in [0, 1]")

    @property
    def render_options(self) -> RenderOptions:
        return RenderOptions(width=self.width, height=self.height, timeout=self.timeout,
                             page_styles=self.page_styles)


@dataclass(frozen=True, slots=True)
class Regions:
    """Absolute thresholds for one page: H1, H2 (y) and W1, W2 (x), in CSS px."""

    h1: float
    h2: float
    w1: float
    w2: float

    @classmethod
    def for_page(cls, width: float, height: float, params: VLPSParams) -> Regions:
        return cls(params.header, height - params.footer, width * params.left,
                   width * (1.0 - params.right))

    def region(self, box: Box) -> str:
        """The paper's step c, in its order."""
        if box.y + box.h <= self.h1:
            return HEADER
        if box.y >= self.h2:
            return FOOTER
        if box.x + box.w <= self.w1:
            return LEFT
        if box.x >= self.w2:
            return RIGHT
        return CENTER


class _VisualLayout(ParamsCleaner[VLPSParams]):
    params_type = VLPSParams
    fixed: ClassVar[bool] = False
    needs_browser = True

    def default_params(self) -> VLPSParams:
        return VLPSParams(fixed=self.fixed)

    def regions(self, page: Page) -> tuple[Regions, dict[int, str]]:
        """The page's thresholds and the region of every element that has a box."""
        p = self.params
        rendering = render(page, p.render_options)
        if p.fixed:
            size = (float(rendering.viewport[0]), float(rendering.viewport[1]))
        else:
            size = (rendering.width, rendering.height)
        regions = Regions.for_page(*size, p)
        found: dict[int, str] = {}
        for node in page.root.iter():
            if node.tag in ("#root", "body", "#text"):
                continue  # BODY is excluded; text goes with its element
            box = rendering.box(node)
            if box is not None:
                found[node.nid] = regions.region(box)
        return regions, found

    def score(self, page: Page) -> NodeScores:
        regions, found = self.regions(page)
        label = "VL_PS-fixed" if self.params.fixed else "VL_PS"
        limits = (f"H1 {regions.h1:.0f}, H2 {regions.h2:.0f}, W1 {regions.w1:.0f}, "
                  f"W2 {regions.w2:.0f} px")
        if CENTER not in found.values():  # ours: an empty result would help no one
            return {page.root.nid: Verdict(CONTENT, 1.0, f"{label}: no element in CENTER "
                                                         f"({limits}): page kept whole")}
        verdicts = {
            region: Verdict(CONTENT, 1.0, f"{label}: CENTER ({limits})") if region == CENTER
            else Verdict(NOISE, 0.0, f"{label}: {region} ({limits})")
            for region in (HEADER, FOOTER, LEFT, RIGHT, CENTER)
        }
        return {nid: verdicts[region] for nid, region in found.items()}


@register
class VisualLayoutCleaner(_VisualLayout):
    """VL_PS: regions from the measured page size; CENTER is the content."""

    name = "vlps"


@register
class FixedLayoutCleaner(_VisualLayout):
    """The fixed-size variant (Kovacevic et al. 2002): regions of a viewport-sized page."""

    name = "vlps-fixed"
    fixed = True
