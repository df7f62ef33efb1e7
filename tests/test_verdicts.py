"""Rendering verdicts into blocks, and the renderings of a Result."""

from __future__ import annotations

from sitesift.result import CONTENT, NOISE, Result
from sitesift.verdicts import KEEP, Verdict, render_blocks
from tests.conftest import page

HTML = """<body><h1>Title <small>here</small></h1>
<p>First <b>bold</b>word and <a href="/x">a link</a>.</p>
<ul><li>one</li><li>two</li></ul>
<div hidden>hidden text</div><div style="display: none">also hidden</div>
<script>var x = "script text";</script><!-- a comment -->
<table><tr><td>cell a</td><td>cell b</td></tr></table>line<br>break</body>"""


def test_blocks_follow_block_elements_and_keep_inline_text_together() -> None:
    blocks = render_blocks(page(HTML).root, {})
    assert [(b.tag, b.text) for b in blocks] == [
        ("h1", "Title here"),
        ("p", "First boldword and a link."),
        ("li", "one"),
        ("li", "two"),
        ("td", "cell a"),
        ("td", "cell b"),
        ("body", "line"),
        ("body", "break"),
    ]
    assert all(b.label == CONTENT for b in blocks)


def _node(root: object, tag: str) -> int:
    return next(n.nid for n in root.iter() if n.tag == tag)  # type: ignore[attr-defined]


def test_verdict_covers_subtree_and_deeper_verdict_overrides() -> None:
    p = page("<body><div><p>keep me</p><div><p>drop me</p><p>but keep this</p></div></div></body>")
    divs = [n for n in p.root.iter() if n.tag == "div"]
    keep_p = [n for n in p.root.iter() if n.tag == "p"][2]
    verdicts = {
        divs[1].nid: Verdict(NOISE, 0.1, "inner div is noise"),
        keep_p.nid: Verdict(CONTENT, 0.9, "rescued"),
    }
    blocks = render_blocks(p.root, verdicts, KEEP)
    assert [(b.text, b.label, b.reason) for b in blocks] == [
        ("keep me", CONTENT, KEEP.reason),
        ("drop me", NOISE, "inner div is noise"),
        ("but keep this", CONTENT, "rescued"),
    ]
    assert blocks[1].path == "body/div/div"
    without_noise = render_blocks(p.root, verdicts, KEEP, noise=False)
    assert [b.text for b in without_noise] == ["keep me", "but keep this"]


def test_final_verdict_fast_path_reads_same_text() -> None:
    p1, p2 = page(HTML), page(HTML)
    body1 = next(n for n in p1.root.iter() if n.tag == "body")
    body2 = next(iter(p2.root.elements()))
    slow = render_blocks(p1.root, {body1.nid: Verdict(CONTENT, 1, "r")})
    fast = render_blocks(p2.root, {body2.nid: Verdict(CONTENT, 1, "r", final=True)})
    assert body2.unread
    assert [(b.tag, b.text) for b in fast] == [(b.tag, b.text) for b in slow]


def test_result_renderings() -> None:
    blocks = render_blocks(page(HTML).root, {})
    result = Result(blocks, "alltext", id="x", title="T")
    assert result.text.splitlines()[0] == "Title here"
    md = result.markdown()
    assert md.startswith("# Title here") and "- one" in md
    html = result.html()
    assert "<h1>Title here</h1>" in html and "<ul>" in html and "<title>T</title>" in html
    data = result.to_dict()
    assert data["text"] == result.text and len(data["blocks"]) == len(blocks)


def test_an_object_shows_its_fallback_only_where_a_browser_would() -> None:
    # No browser runs Flash or ActiveX today, so their objects show what they nest (here a
    # video's caption); an image, page or PDF shows itself instead of its nested content.
    html = ('<body><object data="http://tv.example/id/4"><param name="movie" value="v.swf">'
            '<p>This video is unavailable.</p><p>Caption of the video</p></object>'
            '<object data="/chart.svg"><p>chart fallback</p></object>'
            '<object type="application/pdf" data="/doc"><p>pdf fallback</p></object>'
            '<object classid="clsid:D27CDB6E" data="movie.png"><p>activex fallback</p>'
            '</object></body>')
    texts = [b.text for b in render_blocks(page(html).root, {})]
    assert texts == ["This video is unavailable.", "Caption of the video", "activex fallback"]



def test_node_verdicts_reach_the_renderer_on_the_nodes_the_method_judged() -> None:
    """The structure renderer reads its own parse of the page; the verdicts go over by
    preorder position, checked against the method's tree: a tree that differs is refused
    (so `add_structure` keeps the block-built text) rather than rendered with verdicts on
    other nodes."""
    from sitesift.output import BLOCKS
    from sitesift.verdicts import add_structure, block_runs, render_verdicts

    p = page(HTML)
    nodes = {n.tag: n for n in p.root.iter()}
    verdicts = {nodes["ul"].nid: Verdict(NOISE, 0.0, "list"),
                nodes["table"].nid: Verdict(NOISE, 0.0, "table")}
    (text,) = render_verdicts(p, verdicts, BLOCKS, ["text"])
    assert "one" not in text and "cell a" not in text and "First bold" in text
    blocks = render_blocks(p.root, verdicts)
    assert [b.text for b in blocks if b.label == CONTENT] == [
        "Title here", "First boldword and a link.", "line", "break"]

    other = page("<body><p>First</p><div>a different tree</div></body>")
    result = Result(render_blocks(other.root, {}), "m", verdicts={})
    other.html = HTML  # the method judged another tree than the renderer reads
    add_structure(result, other, BLOCKS)
    assert result.structured == {}
    assert result.text == "First\na different tree"
    # the runs of a node: what a verdict on their nodes relabels
    runs = block_runs(nodes["p"], {})
    assert [(t, [n.tag for n in held]) for t, held in runs] == [
        ("First boldword and a link.", ["#text", "b", "#text", "a", "#text"])]
