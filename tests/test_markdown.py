"""Golden tests of the core's markdown renderer (native/src/markdown.rs): small HTML /
markdown pairs, one per behaviour, through `sitesift._native.markdown_of`, and the
verdicts of real cleaners rendered with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesift._native import markdown_of
from sitesift.extractor import model as model_file
from sitesift.methods.base import get_cleaner
from sitesift.text import tokens
from tests.conftest import page
from tests.methods.test_default import news_page


def md(html: str, kept: dict[int, bool] | None = None, links: bool = False,
       images: bool = False) -> str:
    return markdown_of(html, kept or {}, links, images)


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
