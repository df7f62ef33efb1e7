"""WISDOM k-MIB on small hand-built trees, with the indices computed by hand."""

from __future__ import annotations

import math

import pytest

from sitesift.dom import DomNode
from sitesift.methods.base import get_cleaner
from sitesift.methods.kmib import (
    anchor_precision,
    coverage_tree,
    mine_blocks,
    structure_index,
)
from tests.conftest import page


@pytest.mark.parametrize(("text", "href", "expected"), [
    ("Obama visits Cairo", "/2009/06/obama-visits-cairo.html", 1.0),
    ("Home", "/index.php", 0.0),
    ("World news", "http://example.com/world/", 0.5),  # the host does not count
    ("", "/x", 0.0),
    ("Story", None, 0.0),
], ids=["story-link", "menu-link", "half", "no-text", "no-href"])
def test_anchor_precision(text: str, href: str | None, expected: float) -> None:
    assert anchor_precision(text, href) == expected


@pytest.mark.parametrize(("values", "expected"), [
    ([10, 10], 1.0),
    ([5, 5, 5, 5], 1.0),
    # -(3/4 ln 3/4 + 1/4 ln 1/4) / ln 2
    ([30, 10], -(0.75 * math.log(0.75) + 0.25 * math.log(0.25)) / math.log(2)),
    ([42], 0.0),
    ([42, 0, 0], 0.0),  # children without information do not count
    ([], 0.0),
], ids=["even-pair", "even-four", "skewed", "one-child", "zeros", "none"])
def test_structure_index(values: list[float], expected: float) -> None:
    assert structure_index(values) == pytest.approx(expected)


# A hand-built page: a menu of links, a story of three equal paragraphs, a footer.
TREE = (
    '<body><div id="nav"><a href="/">Home</a> <a href="/world/">World news</a></div>'
    '<div id="main"><p>aaaa aaaa</p><p>bbbb bbbb</p><p>cccc cccc</p></div>'
    '<div id="foot">(c) Paper</div></body>'
)


def _by_id(root: DomNode) -> dict[str, DomNode]:
    return {str(n.attrs["id"]): n for n in root.iter() if n.attrs and "id" in n.attrs}


def test_coverage_tree_by_hand() -> None:
    p = page(TREE)
    info = coverage_tree(p.root, beta=0.5)
    nodes = _by_id(p.root)
    nav, main, foot = (info[nodes[k].nid] for k in ("nav", "main", "foot"))
    # nav: ALEN = len("Home") + len("Worldnews") = 13, CLEN 0;
    # CII = 0.5 * (4 * 0 + 9 * 1/2) = 2.25 (API of "World news" -> /world/ is 1/2).
    assert (nav.clen, nav.alen, nav.cii) == (0, 13, 2.25)
    assert nav.link_share == 1.0
    # main: three paragraphs of 8 visible characters: CII 24, SII 1 (an even spread).
    assert (main.clen, main.alen, main.cii) == (24, 0, 24.0)
    assert main.sii == pytest.approx(1.0)
    assert (foot.clen, foot.cii) == (8, 8.0)
    body = info[p.root.elements().__next__().nid]
    assert body.cii == pytest.approx(2.25 + 24 + 8)
    assert body.sii == pytest.approx(structure_index([2.25, 24, 8]))
    assert body.sii == pytest.approx(0.698834, abs=1e-6)


@pytest.mark.parametrize(("k", "threshold", "min_share", "expected"), [
    (1, 0.8, 0.0, ["main"]),              # body's SII 0.699 < 0.8: split; main first
    (3, 0.8, 0.0, ["main", "foot", "nav"]),  # then the footer, then the menu (a unit:
                                             # no block-level children)
    (3, 0.8, 0.1, ["main", "foot"]),       # the menu holds 2.25 / 34.25 < 10 %
    (3, 0.5, 0.0, ["body"]),               # body's SII 0.699 >= 0.5: one block
], ids=["k1", "k3", "min-share", "loose-threshold"])
def test_greedy_top_down_mining(k: int, threshold: float, min_share: float,
                                expected: list[str]) -> None:
    p = page(TREE)
    info = coverage_tree(p.root, beta=0.5)
    found = mine_blocks(p.root, info, k, threshold, min_share)
    assert [str(n.attrs["id"]) if n.attrs else n.tag for n in found] == expected


def test_clean_keeps_informative_blocks_only() -> None:
    result = get_cleaner("kmib", k=1, sii_threshold=0.8, beta=0.5).clean(page(TREE))
    assert result.text.split("\n") == ["aaaa aaaa", "bbbb bbbb", "cccc cccc"]
    noise = {b.text: b.reason for b in result.blocks if b.label == "noise"}
    assert noise["(c) Paper"] == "k-MIB: outside every informative block"


def test_without_anchor_weight_the_menu_holds_no_information() -> None:
    # beta = 0: body's children hold CII (0, 24, 8), SII = H(3/4, 1/4) / ln 2 = 0.811 >= 0.8,
    # so body is one block and condensation cuts the menu (all links) out of it.
    result = get_cleaner("kmib", k=1, sii_threshold=0.8, beta=0.0).clean(page(TREE))
    assert result.text.split("\n") == ["aaaa aaaa", "bbbb bbbb", "cccc cccc", "(c) Paper"]
    menu = next(b for b in result.blocks if b.text == "Home World news")
    assert menu.reason == "k-MIB condensation: link block inside block #1"


# One long paragraph makes its container's SII low, so k-MIB descends to the paragraph;
# expansion brings back its sister paragraphs, not the link list; condensation cuts the
# share bar out of the story.
STORY = (
    "<body><div id='story'>"
    "<p>" + "long text " * 40 + "<span class='share'><a href=/f>Facebook</a></span></p>"
    "<p>second paragraph</p><p>third one</p>"
    "<ul><li><a href='/a'>Related story one</a></li><li><a href='/b'>Two</a></li></ul>"
    "</div><div id='side'>side text here</div></body>"
)


@pytest.mark.parametrize(("expand", "condense", "kept", "dropped"), [
    (True, True, ["long text", "second paragraph", "third one"], ["Related", "side"]),
    (False, True, ["long text"], ["second paragraph", "Related"]),
], ids=["expanded", "not-expanded"])
def test_expansion(expand: bool, condense: bool, kept: list[str],
                   dropped: list[str]) -> None:
    result = get_cleaner("kmib", k=1, expand=expand, condense=condense).clean(page(STORY))
    for text in kept:
        assert text in result.text
    for text in dropped:
        assert text not in result.text


def test_condensation_cuts_link_blocks() -> None:
    html = ("<body><div id='story'><p>" + "words and more words " * 10 + "</p>"
            "<p>" + "other words here now " * 10 + "</p>"
            "<div class='share'><a href=/f>Share on Facebook</a> <a href=/t>Tweet</a></div>"
            "</div></body>")
    kept = get_cleaner("kmib", k=1, condense=True).clean(page(html))
    assert "Facebook" not in kept.text and "other words" in kept.text
    assert any(b.reason.startswith("k-MIB condensation") for b in kept.blocks)
    assert "Facebook" in get_cleaner("kmib", k=1, condense=False).clean(page(html)).text


@pytest.mark.parametrize("html", [
    "<html><script>var x = 1;</script></html>",
    "<p>" + "word " * 20000 + "</p>",
    "<div>" * 1000 + "deep" + "</div>" * 1000,
    "plain text, no markup",
    "<div><a href=/>only</a> <a href=/b>links</a></div>",
], ids=["no-text", "giant-line", "deep", "plain", "only-links"])
def test_odd_pages_clean_without_errors(html: str) -> None:
    result = get_cleaner("kmib").clean(page(html))
    assert "var x" not in result.text
