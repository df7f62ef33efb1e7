"""VL_PS and its fixed-size forerunner: thresholds, region rules, and small rendered pages."""

from __future__ import annotations

import pytest

from sitesift.browser.rendering import Box
from sitesift.methods.base import get_cleaner
from sitesift.methods.vlps import (
    CENTER,
    FOOTER,
    HEADER,
    LEFT,
    RIGHT,
    Regions,
    VisualLayoutCleaner,
    VLPSParams,
)
from tests.conftest import needs_browser, page


def _box(x: float, y: float, w: float, h: float) -> Box:
    return Box(x, y, w, h, True, "block", None, 16.0, 400)


def test_thresholds_follow_the_page_size() -> None:
    # The paper's experiment: H1 = 200 px, H2 = 160 px from the bottom, W1, W2 at 30 %.
    r = Regions.for_page(1000, 3000, VLPSParams())
    assert (r.h1, r.h2, r.w1, r.w2) == (200, 2840, 300, 700)


@pytest.mark.parametrize(("box", "region"), [
    (_box(0, 0, 1000, 200), HEADER),        # bottom exactly at H1
    (_box(0, 0, 1000, 201), CENTER),        # one pixel lower: not within the header
    (_box(0, 2840, 1000, 160), FOOTER),     # top exactly at H2
    (_box(0, 300, 300, 2000), LEFT),        # right edge exactly at W1
    (_box(700, 300, 300, 2000), RIGHT),     # left edge exactly at W2
    (_box(0, 0, 250, 100), HEADER),         # top-left: the header rule comes first
    (_box(0, 2900, 100, 50), FOOTER),       # bottom-left: footer before left
    (_box(250, 300, 500, 500), CENTER),
], ids=["header-edge", "below-header", "footer-edge", "left-edge", "right-edge",
        "header-first", "footer-before-left", "center"])
def test_region_rules(box: Box, region: str) -> None:
    assert Regions.for_page(1000, 3000, VLPSParams()).region(box) == region


def test_params_are_checked() -> None:
    with pytest.raises(ValueError, match="shares"):
        VLPSParams(left=1.5)
    assert get_cleaner("vlps-fixed").params.size == "width"
    assert get_cleaner("vlps").params.size == "page"


# A 100 px header, a 200 px left column, a right column, the story, and a footer, on a page
# 1600 px tall: every region of the paper on one page.
LAYOUT = """<!DOCTYPE html><html><head><style>
body { margin: 0; } h1, p { margin: 0; }
#head { height: 100px; }
#left { position: absolute; left: 0; top: 100px; width: 200px; height: 800px; }
#right { position: absolute; left: 1000px; top: 100px; width: 280px; height: 800px; }
#main { margin: 0 300px 0 220px; padding-top: 120px; height: 1280px; }
#foot { height: 100px; }
</style></head><body>
<div id="head"><a href="/">Site name</a> <a href="/login">Log in</a></div>
<div id="left"><ul><li><a href="/a">Menu one</a><li><a href="/b">Menu two</a></ul></div>
<div id="right"><p>Advertisement text</p></div>
<div id="main"><h1>The story title</h1><p>The story text, long enough to matter.</p>
<p id="late" style="margin-top: 1000px">A late paragraph far down the page.</p></div>
<div id="foot">Copyright notice</div>
</body></html>"""


@needs_browser
def test_regions_of_a_rendered_page() -> None:
    p = page(LAYOUT)
    regions, found = VisualLayoutCleaner().regions(p)
    assert (regions.h1, regions.h2, regions.w1, regions.w2) == (200, 1440, 384, 896)
    by_id = {str(n.attrs["id"]): found[n.nid] for n in p.root.iter()
             if n.attrs and "id" in n.attrs}
    assert by_id == {"head": HEADER, "left": LEFT, "right": RIGHT, "main": CENTER,
                     "late": CENTER, "foot": FOOTER}
    text = get_cleaner("vlps").clean(p).text
    assert text.splitlines() == ["The story title", "The story text, long enough to matter.",
                                 "A late paragraph far down the page."]


@needs_browser
def test_fixed_width_page_keeps_what_lies_below_the_screen() -> None:
    # Kovacevic et al.'s fixed page is the fixed screen width over the whole page height:
    # at the renderer's width this page gets VL_PS's regions, the late paragraph included.
    p = page(LAYOUT)
    text = get_cleaner("vlps-fixed").clean(p).text
    assert "A late paragraph" in text and "The story title" in text
    assert "Copyright" not in text


@needs_browser
def test_viewport_page_cuts_what_lies_below_the_screen() -> None:
    # The old reading (size=viewport, 1280 x 1024): the late paragraph (y ~ 1260) lies
    # below H2 = 1024 - 160 = 864 and is taken for a footer.
    text = get_cleaner("vlps-fixed", size="viewport").clean(page(LAYOUT)).text
    assert "A late paragraph" not in text
    assert "The story title" in text


@needs_browser
@pytest.mark.parametrize("method", ["vlps", "vlps-fixed"])
def test_a_page_without_a_center_is_kept_whole(method: str) -> None:
    # One line at the top of the page: every element is HEADER, and an empty result would
    # help no one.
    assert get_cleaner(method).clean(page("<p>one short line</p>")).text == "one short line"
