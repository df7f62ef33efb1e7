"""Golden tests of the core's structure renderer (native/src/output/structure/): small HTML /
markdown pairs, one per behaviour, through `sitesift._native.render_html`; its HTML and
text; the verdicts of real cleaners rendered with it; and the output settings around it
(`sitesift.output`: links, images, title=keep) through the API and the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesift._native import Rendering, render_html
from sitesift.extractor import model as model_file
from sitesift.methods.base import get_cleaner
from sitesift.text import tokens
from tests.conftest import page
from tests.methods.test_default import news_page


def md(html: str, kept: dict[int, bool] | None = None, links: bool = False,
       images: bool = False, fmt: str = "markdown") -> str:
    return render_html(html, kept or {}, Rendering([fmt], links, images))[0]


def test_nested_list() -> None:
    html = "<ul><li>a<ul><li>a1</li><li>a2<ul><li>deep</li></ul></li></ul></li><li>b</li></ul>"
    assert md(html) == "- a\n  - a1\n  - a2\n    - deep\n- b"


def test_ordered_list_with_start() -> None:
    html = "<ol start=7><li>seven</li><li>eight<ol><li>sub</li></ol></li></ol>"
    assert md(html) == "7. seven\n8. eight\n   1. sub"


def test_table_with_header() -> None:
    html = ("<table><thead><tr><th>Name</th><th>Pipe</th></tr></thead>"
            "<tbody><tr><td>a</td><td>x | y</td></tr></tbody></table>")
    assert md(html) == "| Name | Pipe |\n| --- | --- |\n| a | x \\| y |"


def test_table_with_colspan_keeps_its_columns() -> None:
    html = ("<table><tr><th colspan=2>Both</th></tr><tr><td>a</td><td>b</td></tr>"
            "<tr><td>c</td><td>d</td></tr></table>")
    assert md(html) == "| Both |  |\n| --- | --- |\n| a | b |\n| c | d |"


def test_layout_table_degrades_to_its_blocks() -> None:
    html = "<table><tr><td><h2>Title</h2><p>Body text.</p></td><td>side</td></tr></table>"
    assert md(html) == "## Title\n\nBody text.\n\nside"


def test_code_with_comments_and_blank_lines_keeps_lines() -> None:
    html = ('<pre><code class="language-js">// add two numbers\nfunction add(a, b) {\n\n'
            "  return a + b; // *sum*\n}\n</code></pre>")
    assert md(html) == ("```js\n// add two numbers\nfunction add(a, b) {\n\n"
                        "  return a + b; // *sum*\n}\n```")


def test_inline_code_in_paragraph() -> None:
    assert md("<p>Call <code>f(x)</code> or <code>a`b</code>.</p>") == "Call `f(x)` or ``a`b``."


def test_link_with_markup_inside() -> None:
    html = "<p>See <a href='/docs'>the <b>new</b> docs</a>.</p>"
    assert md(html, links=True) == "See [the **new** docs](/docs)."
    assert md(html) == "See the **new** docs."


def test_heading_levels() -> None:
    assert md("<h1>One</h1><h3>Three</h3><h6>Six</h6>") == "# One\n\n### Three\n\n###### Six"


def test_escaped_characters() -> None:
    html = "<p># no</p><p>1. no</p><p>a *b* [c] &lt;div&gt; snake_case</p>"
    assert md(html) == "\\# no\n\n1\\. no\n\na \\*b\\* \\[c\\] \\<div> snake_case"


def test_noise_subtree_left_out() -> None:
    # nids: body 1, div 2, p 3; below div: h2 4, p 5, ul 6; below ul: li 7, li 8
    html = "<div><h2>Title</h2><p>keep</p><ul><li>menu</li><li>back</li></ul></div><p>end</p>"
    assert md(html, {6: False}) == "## Title\n\nkeep\n\nend"
    assert md(html, {2: False, 8: True}) == "- back\n\nend"
    assert md(html, {0: False, 5: True}) == "keep"


def verdicts_of(name: str, html: str) -> dict[int, bool]:
    return {nid: v.label == "content"
            for nid, v in get_cleaner(name).score(page(html)).items()}


def test_alltext_verdicts_render_the_whole_page() -> None:
    html = news_page(1)
    out = md(html, verdicts_of("alltext", html))
    assert out.startswith("Daily Planet\n\n- Home\n- World\n- Sport\n- About us\n\n"
                          "# Budget delayed again 1")
    assert "### Comments" in out and out.endswith("Privacy Terms")


def test_default_verdicts_render_what_clean_keeps() -> None:
    """The default cleaner's verdicts on the page's DomNodes name the core's elements:
    the markdown has the words of the content blocks `clean` gives, in order."""
    if not model_file.BUNDLED.is_file():
        pytest.skip("the bundled model is not built (sitesift train-default)")
    html = news_page(3)
    out = md(html, verdicts_of("default", html), links=True)
    kept = get_cleaner("default").clean(page(html), noise=False).blocks
    assert kept
    assert out.startswith("# Budget delayed again 3\n\n")
    assert tokens(out) == tokens(" ".join(b.text for b in kept))


def test_every_method_s_markdown_comes_from_the_one_renderer(tmp_path: Path) -> None:
    """A method written in Python (its verdicts on sitesift.dom's nodes) gets the same
    structured markdown as the default cleaner: the verdicts go over by position, whatever
    order the method read the tree in."""
    import sitesift
    from sitesift.cli import main

    html = ("<html><body><nav><a href='/'>Home</a></nav><article><h1>Steps</h1>"
            "<ol start='3'><li>one</li><li>two</li></ol>"
            "<pre><code class='language-py'>x = 1\n\ny = 2</code></pre></article></body></html>")
    md = sitesift.clean(html, method="alltext").markdown()
    assert "3. one\n4. two" in md
    assert "```py\nx = 1\n\ny = 2\n```" in md
    page = tmp_path / "p.html"
    page.write_text(html)
    out = tmp_path / "out"
    assert main(["clean", str(page), str(page), "--method", "alltext", "--format", "markdown",
                 "-o", str(out), "-q"]) == 0
    written = sorted(out.glob("*.md"))
    assert written and "```py\nx = 1\n\ny = 2\n```" in written[0].read_text()


STRUCTURED = ("<html><head><title>Install notes | Example Docs</title>"
              "<meta property='og:site_name' content='Example Docs'></head><body>"
              "<nav><a href='/'>Home</a> <a href='/docs'>Docs</a></nav><article>"
              "<p>First set up the tool. It needs <code>cargo</code> &amp; a shell.</p>"
              "<ol><li>Fetch it</li><li>Build it<ul><li>release</li></ul></li></ol>"
              "<table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-q</td><td>quiet</td></tr>"
              "<tr><td>-o</td><td>out &lt;dir&gt;</td></tr></table>"
              "<pre><code class='language-sh'>make\n\n# then\nmake install</code></pre>"
              "<p>See <a href='guide.html'>the guide</a><br>or "
              "<img src='img/x.png' alt='the diagram'>.</p></article></body></html>")


def test_html_fragment_is_valid_html_of_the_same_structure() -> None:
    """An HTML5 parser reads the fragment back as written (nesting and escaping are
    valid), with the lists, rows and code block the markdown has."""
    from selectolax.lexbor import LexborHTMLParser

    import sitesift

    r = sitesift.clean(STRUCTURED, method="alltext", url="https://ex.org/docs/install",
                       links=True, images=True)
    fragment = r.structured["html"]
    assert LexborHTMLParser(fragment).body.inner_html == fragment
    tree = LexborHTMLParser(fragment)
    assert tree.css_first("ol > li").text() == "Fetch it"
    assert len(tree.css("ol li ul li")) == 1 and len(tree.css("tr")) == 3
    assert tree.css_first("pre code").attributes["class"] == "language-sh"
    assert tree.css_first("pre code").text() == "make\n\n# then\nmake install"
    assert "out &lt;dir&gt;" in fragment and "<code>cargo</code> &amp; a shell" in fragment
    assert r.html().startswith("<!DOCTYPE html>") and fragment in r.html()


def test_links_and_images_resolve_against_the_page_url_and_base() -> None:
    import sitesift

    r = sitesift.clean(STRUCTURED, method="alltext", url="https://ex.org/docs/install",
                       links=True, images=True)
    assert "[the guide](https://ex.org/docs/guide.html)" in r.markdown()
    assert "![the diagram](https://ex.org/docs/img/x.png)" in r.markdown()
    based = STRUCTURED.replace("<head>", "<head><base href='https://cdn.ex.net/v2/'>")
    r = sitesift.clean(based, method="alltext", url="https://ex.org/docs/install",
                       links=True)
    assert "[the guide](https://cdn.ex.net/v2/guide.html)" in r.markdown()
    assert "![" not in r.markdown()  # images only when asked
    plain = sitesift.clean(STRUCTURED, method="alltext")
    assert "See the guide\\\nor ." in plain.markdown()  # no links, no images


def test_text_keeps_paragraphs_line_breaks_and_code_lines() -> None:
    import sitesift

    text = sitesift.clean(STRUCTURED, method="alltext", images=True).text
    assert "First set up the tool. It needs cargo & a shell.\n\n1. Fetch it\n2. Build it\n" \
           "   - release\n\nFlag | Meaning\n-q | quiet\n-o | out <dir>\n\n" \
           "make\n\n# then\nmake install\n\nSee the guide\nor the diagram." in text


def _words_without_markers(text: str) -> list[str]:
    import re

    return tokens(re.sub(r"(?m)^\s*(?:\d+\.|-) ", "", text))


@pytest.mark.parametrize("method", ["alltext", "default"])
def test_structured_text_has_the_words_of_the_content_blocks(method: str) -> None:
    """The two renderings of one set of verdicts, the blocks (what is scored against gold
    text) and the structured text, hold the same words in the same order."""
    import sitesift

    if method == "default" and not model_file.BUNDLED.is_file():
        pytest.skip("the bundled model is not built (sitesift train-default)")
    edges = ("<p><strong>Huge expectations<br></strong>Ride on</p><p><b>Apps</b><b><br></b>"
             "<span>Facilitate</span></p><ul>Benefits: <li>one</li><h3>More</h3><li>two</li>"
             "<ul>A quoted line.</ul></ul>")
    for html in (news_page(1), news_page(4), STRUCTURED, edges):
        r = sitesift.clean(html, method=method)
        blocks = " ".join(b.text for b in r.content)
        assert r.content and _words_without_markers(r.text) == tokens(blocks)


def test_title_keep_leads_with_the_declared_title_once() -> None:
    import sitesift

    kept = sitesift.clean(news_page(2), title="keep")
    assert kept.text.startswith("Budget delayed again 2\n\n")  # the kept headline, once
    assert kept.text.count("Budget delayed again") == 1
    lost = sitesift.clean(STRUCTURED, method="alltext", title="keep")
    assert lost.text.startswith("Install notes\n\nHome Docs")  # without the site's name
    assert lost.markdown().startswith("# Install notes\n\n")
    assert lost.structured["html"].startswith("<h1>Install notes</h1>\n")
    assert lost.blocks[0].text == "Install notes" and lost.blocks[0].reason == "title=keep"
    with pytest.raises(sitesift.SettingsError, match="title='top'"):
        sitesift.clean(STRUCTURED, title="top")


def test_command_line_formats_and_output_settings(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from sitesift.cli import main

    page = tmp_path / "p.html"
    page.write_text(STRUCTURED)
    assert main(["clean", str(page), "--method", "alltext", "--format", "html", "--links",
                 "--set", "title=keep"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and "<h1>Install notes</h1>" in out
    assert "<a href=\"guide.html\">the guide</a>" in out  # no URL: as written
    assert main(["clean", str(page), "--method", "alltext", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert "make\n\n# then\nmake install" in record["text"] and record["blocks"]
    assert main(["clean", str(page), "--format", "text", "--links"]) == 2
    assert "--links is for --format markdown or html" in capsys.readouterr().err
    assert main(["clean", str(page), "--set", "title=top"]) == 2
    assert "title='top'" in capsys.readouterr().err
