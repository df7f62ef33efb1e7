"""The block-distribution method on small pages: Block-List, distribution, decision."""

from __future__ import annotations

import pytest

from sitesift.methods import blockdist
from sitesift.methods.base import get_cleaner
from sitesift.methods.blockdist import (
    PAPER_BLOCK_TAGS,
    PAPER_CHOICES,
    BlockDistParams,
    BlockDistribution,
    build_block_list,
    deviation,
    distribution,
    main_block,
)
from sitesift.methods.blockdist_news import FEATURES, NewsTree
from tests.conftest import page


def _blocks(html: str) -> list[tuple[str, str]]:
    return [(b.tag, b.text) for b in build_block_list(html) if b.text]


@pytest.mark.parametrize(("html", "expected"), [
    # The paper's example: text belongs to the block on top of the stack.
    ("<DIV> hello <TABLE> 123 </TABLE> world </DIV>",
     [("div", "hello world"), ("table", "123")]),
    # Formatting tags are neglected: their text stays in the enclosing block.
    ("<div>a <font color=red>b</font> <span>c</span> <p>d<br>e</p></div>",
     [("div", "a b c d e")]),
    # Style, script, comments and hidden elements are jumped over with their contents.
    ("<div>x <script>var s = '<div>y</div>';</script><style>p {}</style><!-- <div>z -->"
     " w<span hidden><div>secret</div></span></div>",
     [("div", "x w")]),
    # A raw-text element ends at its own end tag only, whatever it contains.
    ("<div>a<noscript><style>p {}</style><div>ns</div></noscript>b<TITLE>t</title>c</div>",
     [("div", "abc")]),
    # A textarea's contents are shown as typed: its "tags" are text.
    ("<div>a<textarea>x <b>y</b></textarea>b</div>", [("div", "a x <b>y</b> b")]),
    # Implied end tags: the second cell closes the first.
    ("<table><tr><td>a<td>b<tr><td>c</table>",
     [("td", "a"), ("td", "b"), ("td", "c")]),
    # A stray end tag is ignored; an unclosed block ends with the document.
    ("<div>a</section>b<div>c", [("div", "ab"), ("div", "c")]),
    # Entities are decoded and spacing folded as the shared renderer does.
    ("<div>fish &amp;\n\n chips&nbsp;now</div>", [("div", "fish & chips now")]),
    # Text outside every block tag belongs to the document entry.
    ("just text <b>here</b>", [("#document", "just text here")]),
    # As in the DOM: a plugin's object shows its nested content, an image's does not.
    ("<div>a <object data=movie.swf><param name=q value=1>caption</object>"
     "<object type='image/png' data=x><div>no</div></object>"
     ' <object classid="clsid:1" data="p.png">b</object></div>',
     [("div", "a caption b")]),
], ids=["paper-example", "neglected", "jumped", "raw-text", "textarea", "implied-td",
        "stray-end", "entities", "no-blocks", "object-fallback"])
def test_block_list(html: str, expected: list[tuple[str, str]]) -> None:
    assert _blocks(html) == expected


def test_block_parents_follow_the_stack() -> None:
    blocks = build_block_list("<div>a<table><tr><td>b</td></tr></table></div><div>c</div>")
    assert [(b.tag, b.parent) for b in blocks] == [
        ("#document", -1), ("div", 0), ("table", 1), ("tr", 2), ("td", 3), ("div", 0)]


def test_anchor_text_is_kept_but_not_counted() -> None:
    (_doc, div) = build_block_list('<div>abc <a href="/x">de <b>f</b></a></div>')
    assert div.text == "abc de f"
    assert (div.chars, div.anchor_chars) == (3, 3)
    assert div.link_share == 0.5


@pytest.mark.parametrize(("dist", "expected"), [
    ([10, 500, 20], 970.0),  # steps 490 -480: max 490 - min -480
    ([5, 5, 5, 5], 0.0),  # flat: every step 0 (padded with zeros it was 10)
    ([50, 60, 40, 55], 35.0),  # steps 10 -20 15: 15 - (-20)
    ([100, 300, 600], 100.0),  # steps 200 300: growth alone deviates by its change
    ([300], 0.0),  # one block: no step
    ([], 0.0),
], ids=["news-like", "flat", "uneven", "rising", "single", "empty"])
def test_deviation_is_definition_4(dist: list[int], expected: float) -> None:
    """Dev(D) = max(n_{i+1} - n_i) - min(n_{i+1} - n_i), i = 1..k-1, no padding."""
    assert deviation(dist) == expected


def test_distribution_and_main_block() -> None:
    html = ("<div><a href=/>menu one</a> <a href=/2>menu two</a></div>"
            "<div>short</div><div>" + "long story " * 30 + "</div><div>tail</div>")
    blocks = build_block_list(html)
    assert distribution(blocks) == [5, 270, 4]  # the menu has no content, only links
    assert main_block(blocks) is not None
    assert blocks[main_block(blocks) or 0].text.startswith("long story")
    assert main_block(build_block_list("<div><a href=/>x</a></div>")) is None


NEWS = ('<body><div id="nav"><a href="/">Home</a> <a href="/w">World</a></div>'
        '<div id="masthead">The Daily, Monday edition</div>'
        '<div id="story"><h1>Bridge opens</h1>'
        + "<p>The new bridge opened on Monday after three years of work. </p>" * 20
        + '<div class="share"><a href="/f">Share on Facebook</a> <a href="/t">Tweet</a></div>'
        '<div class="caption">The bridge at dawn.</div></div>'
        '<div id="foot">Copyright 2009 The Daily</div></body>')
PORTAL = ("<body>" + "".join(f'<div class="item"><a href="/s{i}">Story {i}</a> a short '
                             f"teaser of story {i}</div>" for i in range(30)) + "</body>")


def test_news_page_gives_its_main_block() -> None:
    result = get_cleaner("blockdist", nested=False, min_blocks=1).clean(page(NEWS))
    assert result.meta["news"] is True
    assert result.text.startswith("Bridge opens\nThe new bridge")
    assert [b.tag for b in result.content][:2] == ["h1", "p"]
    assert "Home" not in result.text and "Copyright" not in result.text
    assert "Monday edition" not in result.text
    assert "dawn" not in result.text  # the paper's rule: the one main block only
    reasons = {b.reason for b in result.blocks}
    assert "BD: main-content block (longest content)" in reasons
    assert "BD: block outside the main-content block" in reasons


def test_nested_text_blocks_join_and_link_blocks_stay_out() -> None:
    result = get_cleaner("blockdist", nested=True, min_blocks=1).clean(page(NEWS))
    assert "The bridge at dawn." in result.text
    assert "Facebook" not in result.text


@pytest.mark.parametrize(("non_news", "kept"), [
    ("keep", True), ("drop", False), ("extract", None),
], ids=["keep", "drop", "extract"])
def test_page_without_news(non_news: str, kept: bool | None) -> None:
    result = get_cleaner("blockdist", non_news=non_news).clean(page(PORTAL))
    assert result.meta["news"] is False
    if kept is None:
        assert result.text == "Story 10 a short teaser of story 10"  # first longest
    else:
        assert ("teaser of story 29" in result.text) is kept
        assert all(b.reason.startswith("BD: no news content") for b in result.blocks)


@pytest.mark.parametrize(("min_deviation", "min_blocks", "news"), [
    (1000, 4, True),     # D = (22, 971, 16, 21): steps 949 -955 5, deviation 1904
    (10_000, 4, False),  # the deviation is too small
    (1000, 5, False),    # too few blocks for a story inside a site template
], ids=["news", "small-deviation", "few-blocks"])
def test_decision_thresholds(min_deviation: float, min_blocks: int, news: bool) -> None:
    blocks = build_block_list(NEWS)
    # masthead, story, caption, footer (the menu has links only)
    assert distribution(blocks) == [22, 971, 16, 21]
    cleaner = BlockDistribution(min_deviation=min_deviation, min_blocks=min_blocks)
    assert cleaner.decide(blocks)[0] is news


def test_noise_false_returns_content_blocks_only() -> None:
    result = get_cleaner("blockdist").clean(page(NEWS), noise=False)
    assert result.blocks and all(b.label == "content" for b in result.blocks)


@pytest.mark.parametrize("html", [
    "<html><script>var x = 1;</script></html>",
    "<p>" + "word " * 20000 + "</p>",
    "<div>" * 3000 + "deep" + "</div>" * 3000,
    "<div><script>never closed",
    "plain text, no markup",
], ids=["no-text", "giant-line", "deep", "unclosed-script", "plain"])
def test_odd_pages_clean_without_errors(html: str) -> None:
    result = get_cleaner("blockdist").clean(page(html))
    assert "var x" not in result.text and "never closed" not in result.text


def test_paper_block_tags_only_open_table_tr_td_div() -> None:
    html = "<section>a<div>b</div><article>c</article></section>"
    assert _blocks(html) == [("section", "a"), ("div", "b"), ("article", "c")]
    paper = [(b.tag, b.text) for b in build_block_list(html, PAPER_BLOCK_TAGS) if b.text]
    assert paper == [("#document", "a c"), ("div", "b")]


def test_paper_preset_sets_every_paper_choice() -> None:
    cleaner = get_cleaner("blockdist", preset="paper")
    assert isinstance(cleaner, BlockDistribution)
    p = cleaner.params
    assert (p.preset, p.block_tags, p.min_blocks, p.non_news, p.nested) == (
        "paper", "paper", 0, "drop", False)
    assert {k: getattr(p, k) for k in PAPER_CHOICES} == PAPER_CHOICES
    # A setting given beside the preset still wins; the default preset changes nothing.
    assert BlockDistribution(preset="paper", nested=True).params.nested is True
    assert BlockDistribution(preset="default").params == BlockDistParams()
    with pytest.raises(ValueError, match="preset"):
        BlockDistParams(preset="faithful")


def test_paper_preset_on_news_and_portal() -> None:
    # (the threshold decision here: the trained tree's verdicts on toy pages are its own)
    paper = get_cleaner("blockdist", preset="paper", news_decision="threshold")
    news = paper.clean(page(NEWS))
    assert news.meta["news"] is True
    assert news.text.startswith("Bridge opens") and "dawn" not in news.text
    portal = paper.clean(page(PORTAL))
    assert portal.meta["news"] is False and portal.text == ""  # no news: nothing extracted


def test_tree_decision_reads_the_distribution_figures(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A one-split tree: news when the longest block leads the second by over 500 chars.
    gap = FEATURES.index("gap")
    tree = NewsTree((gap, -2, -2), (500.0, -2.0, -2.0), (1, -1, -1), (2, -1, -1),
                    (False, False, True))
    seen: list[str] = []
    monkeypatch.setattr(blockdist, "shipped_tree", lambda tags: seen.append(tags) or tree)
    cleaner = BlockDistribution(news_decision="tree", min_deviation=1e9, block_tags="modern")
    assert cleaner.decide(build_block_list(NEWS))[0] is True  # gap 971 - 22 = 949
    assert cleaner.decide(build_block_list(PORTAL))[0] is False
    assert seen == ["modern", "modern"]
    assert "the trained tree" in cleaner.clean(page(PORTAL)).blocks[0].reason
