"""VL_PS's and vlps-fixed's paper presets on hand-built layouts (no browser): the fixed
page of Kovacevic et al. as seed 002 describes it, their table-driven regions, and a page
with no CENTER."""

from __future__ import annotations

import pytest

from sitesift.browser.rendering import Box, Rendering
from sitesift.methods.base import get_cleaner
from sitesift.methods.vlps import (
    CENTER,
    FOOTER,
    HEADER,
    LEFT,
    VLPSParams,
    classify,
)
from sitesift.page import Page
from tests.conftest import page

# A page wider than the screen (a 2000 px min-width layout) and 3000 px tall.
WIDE = Rendering(2000.0, 3000.0, (1280, 1024), {}, 0, 0)


@pytest.mark.parametrize(("size", "limits"), [
    # VL_PS: the measured page, 30 % of its 2000 px width.
    ("page", (200, 2840, 600, 1400)),
    # Kovacevic (fixed page, fixed thresholds): 30 % of the 1280 px screen, 384 / 896 px,
    # and the footer band is the last 160 px of the whole page.
    ("width", (200, 2840, 384, 896)),
    # The old strawman: the first screen, everything below 1024 - 160 = 864 px is footer.
    ("viewport", (200, 864, 384, 896)),
])
def test_thresholds_by_page_size(size: str, limits: tuple[float, ...]) -> None:
    r, _ = classify(page("<p>x</p>"), WIDE, VLPSParams(size=size))
    assert (r.h1, r.h2, r.w1, r.w2) == limits


def _box(x: float, y: float, w: float, h: float) -> Box:
    return Box(x, y, w, h, True, "block", None, 16.0, 400)


# A two-cell table layout (menu cell, story cell) and a footer outside the table; two
# elements whose own boxes disagree with their cell's: a wide link row in the menu cell,
# and a story heading drawn (absolutely placed) into the top 200 px.
TABLE_PAGE = """<body><table data-k="t"><tr data-k="tr">
<td data-k="nav"><div data-k="navrow">menu</div></td>
<td data-k="main"><h1 data-k="title">Title</h1><p data-k="text">Story</p></td>
</tr></table><div data-k="foot">Copyright</div></body>"""
BOXES = {
    "t": _box(0, 0, 1280, 2800), "tr": _box(0, 0, 1280, 2800),
    "nav": _box(0, 300, 300, 2400), "navrow": _box(0, 300, 900, 20),
    "main": _box(320, 300, 900, 2400), "title": _box(330, 50, 600, 40),
    "text": _box(330, 400, 600, 2000), "foot": _box(0, 2900, 1280, 50),
}


def _table_layout() -> tuple[Page, Rendering]:
    p = page(TABLE_PAGE)
    boxes = {n.nid: BOXES[str(n.attrs["data-k"])] for n in p.root.iter()
             if n.attrs and "data-k" in n.attrs}
    return p, Rendering(1280.0, 3000.0, (1280, 1024), boxes, len(boxes), len(boxes))


def _regions(units: str) -> dict[str, str]:
    p, r = _table_layout()
    _, found = classify(p, r, VLPSParams(size="width", units=units))
    return {str(n.attrs["data-k"]): found[n.nid] for n in p.root.iter()
            if n.attrs and "data-k" in n.attrs}


def test_every_element_by_its_own_box() -> None:
    # VL_PS (c): the link row is as wide as the story, so CENTER; the heading lies within
    # the top 200 px (50 + 40 <= 200), so HEADER.
    assert _regions("all") == {"t": CENTER, "tr": CENTER, "nav": LEFT, "navrow": CENTER,
                               "main": CENTER, "title": HEADER, "text": CENTER,
                               "foot": FOOTER}


def test_table_driven_regions() -> None:
    # Kovacevic as the seed describes them: the table cells decide for what they hold;
    # the footer outside the table is compared by its own box.
    assert _regions("tables") == {"t": CENTER, "tr": CENTER, "nav": LEFT, "navrow": LEFT,
                                  "main": CENTER, "title": CENTER, "text": CENTER,
                                  "foot": FOOTER}


def _clean_with(method: str, p: Page, r: Rendering, **settings: object) -> str:
    cleaner = get_cleaner(method, **settings)
    params = cleaner.params  # type: ignore[attr-defined]
    cleaner.regions = lambda page: classify(page, r, params)  # type: ignore[attr-defined]
    return cleaner.clean(p).text


def test_table_driven_cleaning() -> None:
    p, r = _table_layout()
    assert _clean_with("vlps-fixed", p, r).split() == ["menu", "Story"]
    assert _clean_with("vlps-fixed", p, r, preset="paper").split() == ["Title", "Story"]


def test_a_page_without_center() -> None:
    # One line in the top 200 px: every element is HEADER. Ours keeps the page whole; the
    # paper returns CENTER's content, here nothing.
    p = page("<p>one short line</p>")
    [para] = [n for n in p.root.iter() if n.tag == "p"]
    r = Rendering(1280.0, 300.0, (1280, 1024), {para.nid: _box(8, 8, 1264, 20)}, 1, 1)
    assert _clean_with("vlps", p, r) == "one short line"
    assert _clean_with("vlps", p, r, preset="paper") == ""
    assert _clean_with("vlps-fixed", p, r, preset="paper") == ""


def test_presets() -> None:
    fixed = get_cleaner("vlps-fixed", preset="paper").get_params()
    assert {k: fixed[k] for k in ("size", "units", "keep_centerless", "preset")} == {
        "size": "width", "units": "tables", "keep_centerless": False, "preset": "paper"}
    plain = get_cleaner("vlps", preset="paper").get_params()
    assert (plain["size"], plain["units"], plain["keep_centerless"]) == ("page", "all", False)
    assert get_cleaner("vlps-fixed", preset="paper", units="all").get_params()["units"] == "all"
    with pytest.raises(ValueError, match="preset"):
        get_cleaner("vlps", preset="kovacevic")
    with pytest.raises(ValueError, match="size"):
        VLPSParams(size="screen")
