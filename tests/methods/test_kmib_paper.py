"""k-MIB's paper preset: anchor precision on and the TOC blocks the survey says k-MIB
returns beside article blocks, on a hand-built page."""

from __future__ import annotations

import pytest

from sitesift.dom import DomNode
from sitesift.methods.base import get_cleaner
from sitesift.methods.kmib import KMaxInformativeBlocks, KMIBParams, coverage_tree
from tests.conftest import page

STORY = "".join(f"<p>{c * 4 + ' '}{(c * 4 + ' ') * 14}</p>" for c in "abc")  # 3 x 60 chars
# A menu whose anchors name nothing of their targets (API 0), a story, and a list of story
# links named after their URLs (API 1): a TOC.
PAGE = (
    '<body><div id="nav"><a href="/index.php">Home</a> <a href="/info.php">About</a></div>'
    f'<div id="story">{STORY}</div>'
    '<ul id="toc"><li><a href="/obama-visits-cairo">Obama visits Cairo</a></li>'
    '<li><a href="/rain-in-spain">Rain in Spain</a></li></ul></body>'
)
TOC = ["Obama visits Cairo", "Rain in Spain"]


def _by_id(root: DomNode) -> dict[str, DomNode]:
    return {str(n.attrs["id"]): n for n in root.iter() if n.attrs and "id" in n.attrs}


def test_anchor_precision_gives_the_toc_its_information() -> None:
    p = page(PAGE)
    nodes = _by_id(p.root)
    info = coverage_tree(p.root, beta=1.0)
    nav, story, toc = (info[nodes[k].nid] for k in ("nav", "story", "toc"))
    # nav: ALEN 4 + 5 = 9, every API 0: CII 0. toc: ALEN 16 + 11 = 27, both API 1: CII 27.
    assert (nav.alen, nav.toc, nav.cii) == (9, 0.0, 0.0)
    assert (story.clen, story.cii) == (180, 180.0)
    assert (toc.alen, toc.toc, toc.cii) == (27, 27.0, 27.0)
    # body: CII (0, 180, 27), SII = H(180/207, 27/207) / ln 2 = 0.5586 < 0.6: it splits
    body = info[nodes["story"].parent.nid]  # type: ignore[union-attr]
    assert body.sii == pytest.approx(0.55863, abs=1e-5)
    # with beta 0 the TOC holds no information at all
    assert coverage_tree(p.root, beta=0.0)[nodes["toc"].nid].cii == 0.0


def test_default_returns_the_article_block_only() -> None:
    result = get_cleaner("kmib").clean(page(PAGE))
    assert not any(t in result.text for t in TOC) and "aaaa" in result.text


def test_paper_returns_the_article_and_the_toc_block() -> None:
    result = get_cleaner("kmib", preset="paper").clean(page(PAGE))
    lines = result.text.split("\n")
    assert lines[-2:] == TOC and len(lines) == 5 and "Home" not in result.text
    toc = next(b for b in result.blocks if b.text == TOC[0])
    assert toc.reason == "k-MIB: TOC block #2 (CII 27, SII 0.98)"  # H(16/27, 11/27) / ln 2 = 0.975
    # the floor of 20 % of the page's CII (ours) drops the TOC (27 / 207 = 13 %)
    floor = get_cleaner("kmib", preset="paper", min_share=0.2).clean(page(PAGE))
    assert not any(t in floor.text for t in TOC)


# Inside an article: condensation cuts the share bar (API 0) but, in the paper mode, spares
# the related-story list whose anchors name their targets.
INSIDE = (
    f"<body><div id='story'>{STORY}"
    "<div class='share'><a href=/f>Facebook</a> <a href=/t>Tweet</a></div>"
    "<ul><li><a href='/obama-visits-cairo'>Obama visits Cairo</a></li>"
    "<li><a href='/rain-in-spain'>Rain in Spain</a></li></ul></div></body>"
)


@pytest.mark.parametrize(("settings", "toc_kept"), [
    ({}, False), ({"preset": "paper"}, True), ({"toc_precision": 0.5}, True),
    ({"preset": "paper", "toc_precision": None}, False),
], ids=["default", "paper", "switch-alone", "paper-without-toc"])
def test_condensation_spares_toc_blocks(settings: dict[str, object], toc_kept: bool) -> None:
    result = get_cleaner("kmib", k=1, **settings).clean(page(INSIDE))
    assert "Facebook" not in result.text and "aaaa" in result.text
    assert all(t in result.text for t in TOC) == toc_kept


def test_paper_preset_values_and_explicit_settings_win() -> None:
    paper = get_cleaner("kmib", preset="paper").get_params()
    assert {k: paper[k] for k in ("beta", "toc_precision", "min_share", "preset")} == {
        "beta": 1.0, "toc_precision": 0.5, "min_share": 0.0, "preset": "paper"}
    assert KMaxInformativeBlocks(preset="paper", beta=0.5).params.beta == 0.5
    assert KMIBParams.from_preset("default") == KMIBParams()
    with pytest.raises(ValueError, match="preset must be one of default, paper"):
        KMaxInformativeBlocks(preset="wisdom")
    with pytest.raises(ValueError, match="toc_precision"):
        KMIBParams(toc_precision=1.5)
