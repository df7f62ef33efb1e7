"""VIPS on hand-made blocks and small rendered pages: separators, weights, DoC, the tree."""

from __future__ import annotations

import pytest

from sitesift.browser.chromium import render
from sitesift.browser.rendering import Box, Rendering
from sitesift.methods.base import get_cleaner
from sitesift.methods.vips import VIPSParams, main_content, segment
from sitesift.methods.vips.blocks import Extractor, VBlock, tag_size_doc
from sitesift.methods.vips.separators import construct, detect, weigh
from sitesift.page import Page
from tests.conftest import needs_browser, page


def _block(x0: float, y0: float, x1: float, y1: float, doc: int = 10) -> VBlock:
    return VBlock(x0, y0, x1, y1, doc)


def _rendering(boxes: dict[int, Box]) -> Rendering:
    return Rendering(1000.0, 1000.0, (1000, 1000), boxes, len(boxes), len(boxes))


def test_separators_are_the_gaps_between_runs() -> None:
    top, mid, low = _block(0, 0, 500, 100), _block(0, 110, 500, 200), _block(0, 200, 500, 300)
    rows, seps = detect([low, top, mid], horizontal=True)
    assert [len(r) for r in rows] == [1, 1, 1]
    # A 10 px gap, and a separator of no thickness where two blocks touch; none at the
    # borders of the region (the paper's step 3).
    assert [(s.start, s.end) for s in seps] == [(100, 110), (200, 200)]
    assert seps[0].before == [top] and seps[0].after == [mid]
    cols, vertical = detect([top, mid, low], horizontal=False)
    assert vertical == [] and len(cols) == 1  # every block spans the same columns


def test_overlapping_blocks_form_one_run() -> None:
    left, right = _block(0, 0, 300, 500), _block(250, 0, 600, 500)
    runs, seps = detect([left, right], horizontal=False)
    assert seps == [] and len(runs) == 1


@pytest.mark.parametrize(("gap", "weight"), [(0, 1), (16, 3), (100, 6)])
def test_distance_rule(gap: float, weight: int) -> None:
    _, [sep] = detect([_block(0, 0, 100, 100), _block(0, 100 + gap, 100, 200 + gap)], True)
    assert weigh(sep, _rendering({}), []) == weight


def test_hr_inside_a_separator_weighs_more() -> None:
    _, [sep] = detect([_block(0, 0, 100, 100), _block(0, 116, 100, 200)], True)
    ruler = Box(0, 107, 100, 2, True, "block", None, 16, 400)
    assert weigh(sep, _rendering({}), [ruler]) == weigh(sep, _rendering({}), []) + 2


def _styled(html: str, styles: dict[str, tuple[str | None, float, int]]
            ) -> tuple[Page, Rendering]:
    """A page whose elements marked `data-k` get boxes of the given (background, font) in
    a stack of 100 px rows separated by 16 px."""
    p = page(html)
    boxes: dict[int, Box] = {}
    y = 0.0
    for node in p.root.iter():
        key = str(node.attrs["data-k"]) if node.attrs and "data-k" in node.attrs else None
        if key in styles:
            bg, size, weight = styles[key]
            boxes[node.nid] = Box(0, y, 500, 100, True, "block", bg, size, weight)
            y += 116
    return p, _rendering(boxes)


def _blocks_of(p: Page, r: Rendering, rule: str = "rule 4") -> list[VBlock]:
    return [VBlock(b.x, b.y, b.right, b.bottom, 10, n, rule=rule)
            for n in p.root.iter() if (b := r.box(n)) is not None]


@pytest.mark.parametrize(("styles", "weight"), [
    ({"a": ("#fff", 16, 400), "b": ("#fff", 16, 400)}, 3 - 1),   # alike text: -1
    ({"a": ("#fff", 16, 400), "b": ("#000", 16, 400)}, 3 + 2 - 1),  # backgrounds differ
    ({"a": ("#fff", 24, 700), "b": ("#fff", 16, 400)}, 3 + 2 - 1),  # fonts differ by 8 px
    ({"a": ("#fff", 16, 400), "b": ("#fff", 24, 700)}, 3 + 2 + 1 - 1),  # smaller above
], ids=["alike", "background", "font", "heading-below"])
def test_weight_rules_on_two_sides(styles: dict[str, tuple[str | None, float, int]],
                                   weight: int) -> None:
    p, r = _styled('<p data-k="a">one</p><p data-k="b">two</p>', styles)
    blocks = _blocks_of(p, r)
    _, [sep] = detect(blocks, True)
    assert weigh(sep, r, []) == weight


def test_content_structure_and_doc() -> None:
    head, foot = _block(0, 0, 1000, 100, 9), _block(0, 820, 1000, 900, 10)
    left, main = _block(0, 120, 200, 800, 10), _block(220, 120, 1000, 800, 8)
    tree = construct([foot, main, head, left], _rendering({}), [])
    # Both 20 px horizontal gaps weigh 1 + 20 / 8 -> 4: header, the columns, the footer;
    # the columns split again at their 20 px vertical gap. DoC = 11 - weight.
    assert [c.x0 for c in tree.children] == [0, 0, 0]
    assert tree.children[0] is head and tree.children[2] is foot
    columns = tree.children[1]
    assert columns.children == [left, main]
    assert (tree.weight, tree.doc, columns.weight, columns.doc) == (4, 7, 4, 7)
    assert sorted(b.doc for b in tree.leaves()) == [8, 9, 10, 10]


@pytest.mark.parametrize(("tag", "share", "low", "high", "doc"), [
    ("div", 0.6, 1, 9, 1), ("div", 0.2, 1, 9, 4), ("div", 0.01, 1, 9, 7),
    ("p", 0.01, 1, 9, 9), ("td", 0.3, 6, 8, 6),
])
def test_doc_by_tag_and_size(tag: str, share: float, low: int, high: int, doc: int) -> None:
    assert tag_size_doc(tag, share * 1000, 1000, low, high) == doc


# --- rendered pages -----------------------------------------------------------------------

RULES = """<!DOCTYPE html><html><head><style>body { margin: 0; font-size: 16px; }
.nav { background: #ccc; }</style></head><body>
<div id="wrap">
  <table><tr><td class="nav" id="nav"><a href="/">Home</a> | <a href="/news">News</a></td>
  <td id="side">Side text</td></tr></table>
  <p id="plain">Plain text in one font, nothing else.</p>
  <p id="mixed">Text with <b style="font-size: 24px">a big bold part</b> inside.</p>
  <hr>
  <div id="after"><img src="x.png" width="10" height="10"></div>
</div></body></html>"""


@needs_browser
def test_extraction_rules_on_a_rendered_page() -> None:
    p = page(RULES)
    r = render(p)
    body = next(p.root.elements())
    extractor = Extractor(r, r.width * r.height, text_size=0.0, child_size=0.0)
    blocks = extractor.run(body, None)
    by_id = {str(b.node.attrs["id"]): b for b in blocks
             if b.node is not None and b.node.attrs and "id" in b.node.attrs}
    # body (rule 3: the root) -> the wrapper, divided at its <hr> child (rule 6); table
    # and tbody have one child each (rule 2); in the row, the cell with another background
    # is kept whole (rule 7, DoC 6-8), its neighbour is all text (rule 4); the plain
    # paragraph is all text of one font (rule 4: DoC 10), the mixed one has two fonts
    # (rule 4: DoC 9); the image-only div is cut (rule 2, then rule 1 on the image), the
    # <hr> too, but remembered for the separators.
    assert by_id["nav"].rule == "rule 7" and 6 <= by_id["nav"].doc <= 8
    assert (by_id["side"].rule, by_id["side"].doc) == ("rule 4", 10)
    assert (by_id["plain"].rule, by_id["plain"].doc) == ("rule 4", 10)
    assert (by_id["mixed"].rule, by_id["mixed"].doc) == ("rule 4", 9)
    assert "after" not in by_id
    assert len(extractor.rulers) == 1


ARTICLE = """<!DOCTYPE html><html><head><style>body { margin: 0; }
#top { height: 80px; background: #224; color: white; }
#menu { float: left; width: 200px; } #story { margin-left: 240px; width: 700px; }
#foot { clear: both; margin-top: 40px; border-top: 1px solid #999; }</style></head><body>
<div id="top"><a href="/">Daily Paper</a> <a href="/sport">Sport</a></div>
<div id="menu"><ul><li><a href="/a">World</a></li><li><a href="/b">Politics</a></li>
<li><a href="/c">Business</a></li><li><a href="/d">Science</a></li></ul></div>
<div id="story"><h1>Rivers rise after a week of rain</h1>
<p>Rivers across the region rose to their highest level in a decade on Tuesday after a
week of heavy rain, and several towns were told to prepare for floods.</p>
<p>Forecasters expect the rain to ease by the weekend, though water levels may keep
rising for days as it drains from the hills.</p>
<p>Related: <a href="/e">Storm season</a></p></div>
<div id="foot"><a href="/about">About us</a> <a href="/terms">Terms</a></div>
</body></html>"""


@needs_browser
def test_segmentation_and_cleaning_of_an_article() -> None:
    p = page(ARTICLE)
    tree = segment(p, render(p), VIPSParams())
    leaves = tree.leaves()
    assert all(leaf.doc >= 8 or leaf.final for leaf in leaves)  # the granularity check
    from sitesift.methods.kmib import coverage_tree

    main, _ = main_content(tree, coverage_tree(p.root, 0.0))
    assert main.node is not None or main.children
    text = get_cleaner("vips").clean(p).text
    assert "Rivers rise after a week of rain" in text
    assert "Forecasters expect the rain" in text
    for noise in ("Daily Paper", "Politics", "About us"):
        assert noise not in text
