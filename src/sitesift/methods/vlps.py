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

Choices the paper leaves open, ours in every mode: each element's region is its verdict (a
deeper element's verdict overrides its ancestor's, so a navigation bar at the top of a
page-wide wrapper is HEADER while the wrapper is CENTER); text beside elements belongs to
its element, and text directly in BODY to CENTER. Elements the renderer drew nowhere
(CSS-hidden: a zero box at the origin) fall in HEADER, i.e. out: the paper's arithmetic
on IE's zero offsets gives the same (TOP + HEIGHT = 0 <= H1). The rendering width (1280
px) is ours: the paper used IE's window and gives no size.

Ours, a switch (`keep_centerless`, off in `preset=paper`): a page on which no element
reaches CENTER (a page shorter than H1 plus the footer band, a one-liner) is kept whole
rather than emptied.

`vlps-fixed` is the method the paper improves on (Kovacevic et al., AIMSA 2002, the
paper's [3]), as the seed describes it; the paper itself is not among the seeds, and its
own threshold values are not reproduced here. The seed names three differences, each a
field: (b) "a fixed page size and fixed thresholds" (`size="width"`: the page is laid out
at the fixed width of the virtual screen, `width` px, over its whole height, and the
thresholds are fixed pixel values on that screen: H1 = 200 px from the top, the footer
band the last 160 px of the whole page, W1 = 0.3 x 1280 = 384 px and W2 = 0.7 x 1280 = 896
px, whatever the page's own width); (c) "strongly relies on TABLE" (`units="tables"`: an
element inside a table takes the region of its innermost table cell, row or table, so the
table layout decides, and elements outside tables are compared by their own box); (a) a
layout engine without frames, layers or CSS (not reproduced: our renderer applies the
inline and embedded styles it has; see `sitesift.browser`). Before issue 33 `vlps-fixed`
read the fixed page as the first screen (`size="viewport"`, 1280 x 1024: everything below
it was footer), kept as a switch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitesift.browser.chromium import RenderOptions, render
from sitesift.browser.rendering import Box, Rendering
from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.methods.shared.presets import check_preset
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE
from sitesift.verdicts import Verdict

HEADER, FOOTER, LEFT, RIGHT, CENTER = "HEADER", "FOOTER", "LM", "RM", "CENTER"
SIZES = ("page", "width", "viewport")
UNITS = ("all", "tables")
# Table parts in the order a table-driven layout nests them: an element takes the region of
# the innermost one around it.
_TABLE_PARTS = frozenset({"table", "tbody", "thead", "tfoot", "tr", "td", "th"})
# What each preset changes from the field defaults, per method (the fields' docstrings say
# why); `vlps-fixed` is the fixed-width page in both of its presets.
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"keep_centerless": False},
}
FIXED_PRESETS: dict[str, dict[str, Any]] = {
    "default": {"size": "width"},
    "paper": {"size": "width", "units": "tables", "keep_centerless": False},
}


@dataclass(frozen=True, slots=True)
class VLPSParams:
    """Options of VL_PS, with where each default comes from."""

    header: float = 200.0
    """H1: px from the top of the page (VL_PS's experiment)."""
    footer: float = 160.0
    """H2: px from the bottom of the page (VL_PS's experiment: "H2 = 160", which can only be
    a distance from the bottom, since H1 = 200 is measured from the top)."""
    left: float = 0.3
    """W1: share of the page width from the left (VL_PS's experiment)."""
    right: float = 0.3
    """W2: share of the page width from the right (VL_PS's experiment)."""
    size: str = "page"
    """The page the thresholds are taken on. 'page' (VL_PS, step b): the measured page,
    width and height. 'width' (`vlps-fixed`, Kovacevic et al. as seed 002 describes them:
    "a fixed page size and fixed thresholds"): the fixed screen width `width` (so W1, W2
    are fixed px) and the page's whole laid-out height. 'viewport' (before issue 33's
    `vlps-fixed`, a strawman): `width` x `height`, everything below the first screen is
    footer."""
    units: str = "all"
    """Which boxes decide. 'all' (VL_PS, its difference (c)): every element by its own box.
    'tables' (Kovacevic et al. as the seed describes them, "strongly relying on TABLE"): an
    element inside a table takes the region of its innermost table part (TD/TH, TR, ...,
    TABLE); elements outside tables are compared by their own box."""
    keep_centerless: bool = True
    """Ours: a page on which no element reaches CENTER is kept whole rather than emptied.
    Paper (`preset=paper`): False, the result is CENTER's content, here nothing."""
    width: int = 1280
    """Viewport width for rendering (sitesift.browser.chromium's default; neither paper
    gives one): the fixed screen width of `size="width"`."""
    height: int = 1024
    """Viewport height: the fixed page of `size="viewport"`."""
    timeout: float = 30.0
    """Seconds to load, and to measure, one page."""
    preset: str = "default"
    """'default' (the values above; `vlps-fixed`: `size="width"`) or 'paper' (PRESETS,
    FIXED_PRESETS): `--set preset=paper`; the preset gives the starting values, and any
    field also set explicitly wins."""
    page_styles: bool = True
    """Lay the page out with its own stylesheets where its input carries them (a saved
    page's folder, its WARC; `sitesift.browser.resources`), as the paper's browser did;
    False: every stylesheet blocked, the unstyled layout. The result's `meta["styles"]`
    says which the page had."""

    def __post_init__(self) -> None:
        check_preset("vlps", PRESETS, self.preset)
        if self.header < 0 or self.footer < 0:
            raise ValueError("vlps: header and footer must be >= 0 px")
        if not (0 <= self.left <= 1 and 0 <= self.right <= 1):
            raise ValueError("vlps: left and right are shares of the width, in [0, 1]")
        if self.size not in SIZES:
            raise ValueError(f"vlps: size must be one of {', '.join(SIZES)}, got {self.size!r}")
        if self.units not in UNITS:
            raise ValueError(f"vlps: units must be one of {', '.join(UNITS)}, "
                             f"got {self.units!r}")

    @property
    def render_options(self) -> RenderOptions:
        return RenderOptions(width=self.width, height=self.height, timeout=self.timeout,
                             page_styles=self.page_styles)

    def page_size(self, rendering: Rendering) -> tuple[float, float]:
        """The width and height the thresholds are taken on (`size`)."""
        if self.size == "viewport":
            return float(rendering.viewport[0]), float(rendering.viewport[1])
        if self.size == "width":
            return float(self.width), rendering.height
        return rendering.width, rendering.height


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


def classify(page: Page, rendering: Rendering, params: VLPSParams
             ) -> tuple[Regions, dict[int, str]]:
    """The page's thresholds and the region of every element that has a box (step c)."""
    regions = Regions.for_page(*params.page_size(rendering), params)
    found: dict[int, str] = {}
    # Pre-order, so a table part's region is known before its descendants ask for it.
    deciding: dict[int, str] = {}  # nid -> region of the innermost table part around it
    for node in page.root.iter():
        if node.tag in ("#root", "body", "#text"):
            continue  # BODY is excluded; text goes with its element
        parent = node.parent
        inherited = deciding.get(parent.nid) if parent is not None else None
        box = rendering.box(node)
        if params.units == "tables" and node.tag in _TABLE_PARTS and box is not None:
            inherited = regions.region(box)
        if inherited is not None:
            deciding[node.nid] = inherited
        if params.units == "tables" and inherited is not None:
            found[node.nid] = inherited
        elif box is not None:
            found[node.nid] = regions.region(box)
    return regions, found


class _VisualLayout(ParamsCleaner[VLPSParams]):
    params_type = VLPSParams
    needs_browser = True

    def default_params(self) -> VLPSParams:
        return VLPSParams(**self.presets["default"])

    def regions(self, page: Page) -> tuple[Regions, dict[int, str]]:
        """The page's thresholds and the region of every element that has a box."""
        return classify(page, render(page, self.params.render_options), self.params)

    def score(self, page: Page) -> NodeScores:
        regions, found = self.regions(page)
        label = "VL_PS" if self.params.size == "page" else "VL_PS-fixed"
        limits = (f"H1 {regions.h1:.0f}, H2 {regions.h2:.0f}, W1 {regions.w1:.0f}, "
                  f"W2 {regions.w2:.0f} px")
        if CENTER not in found.values():
            if self.params.keep_centerless:
                return {page.root.nid: Verdict(CONTENT, 1.0, f"{label}: no element in "
                                                             f"CENTER ({limits}): page kept "
                                                             "whole")}
            return {page.root.nid: Verdict(NOISE, 0.0, f"{label}: no element in CENTER "
                                                       f"({limits}): nothing kept")}
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
    presets = PRESETS


@register
class FixedLayoutCleaner(_VisualLayout):
    """The fixed-size forerunner (Kovacevic et al. 2002, as seed 002 describes it): fixed
    px thresholds on a page of fixed width, over its whole height."""

    name = "vlps-fixed"
    presets = FIXED_PRESETS
