"""Formulas (issue 55, deliverable 7): MathML, KaTeX, MathJax 2 and 3 and Wikipedia's math
elements are LaTeX between `$` in the markdown and the text, never escaped, and a `math`
span in the HTML (native/src/read/math/; the converter's own cases are its Rust tests)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sitesift
from sitesift.datasets import load_page, read_index
from tests.conftest import shared_dataset

STORY = ("The quantity under the square root is called the discriminant, and its sign tells "
         "how many real roots the equation has: two, one or none. The method was known to "
         "Babylonian scribes, who solved such problems with tables of squares.")


def article(formulas: str, head: str = "") -> str:
    """A small page of one article around `formulas`, with a menu and a footer."""
    return (f"<html><head><title>Quadratic equations</title>{head}</head><body>"
            "<nav><a href='/'>Home</a> <a href='/algebra'>Algebra</a> <a href='/about'>About"
            "</a></nav><article><h1>Solving quadratic equations</h1>"
            f"{formulas}<p>{STORY}</p><p>{STORY}</p></article>"
            "<footer>Copyright 2024 Algebra notes. All rights reserved.</footer></body></html>")


MATHML = article(
    "<p>When <math><mi>a</mi><mo>≠</mo><mn>0</mn></math>, the equation "
    "<math><mi>a</mi><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mi>b</mi><mi>x</mi><mo>+</mo>"
    "<mi>c</mi><mo>=</mo><mn>0</mn></math> has two solutions:</p>"
    "<math display='block'><mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo>"
    "<msqrt><msup><mi>b</mi><mn>2</mn></msup><mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi></msqrt>"
    "</mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac></math>")
MATHML_TEX = ["$a\\neq 0$", "$ax^2+bx+c=0$", "$$x=\\frac{-b\\pm\\sqrt{b^2-4ac}}{2a}$$"]

KATEX = article(
    "<p>The roots of <span class='katex'><span class='katex-mathml'><math><semantics><mrow>"
    "<mi>a</mi></mrow><annotation encoding='application/x-tex'>a x^2 + b x + c = 0"
    "</annotation></semantics></math></span><span class='katex-html' aria-hidden='true'>"
    "<span class='base'><span class='mord mathnormal'>a</span><span class='mord'>x2</span>"
    "</span></span></span> are</p><p><span class='katex-display'><span class='katex'>"
    "<span class='katex-mathml'><math display='block'><semantics><mrow><mi>x</mi></mrow>"
    "<annotation encoding='application/x-tex'>x_{1,2} = \\frac{-b \\pm \\sqrt{\\Delta}}{2a}"
    "</annotation></semantics></math></span><span class='katex-html' aria-hidden='true'>"
    "x12=</span></span></span></p>")
KATEX_TEX = ["$a x^2 + b x + c = 0$", "$$x_{1,2} = \\frac{-b \\pm \\sqrt{\\Delta}}{2a}$$"]

MATHJAX2 = article(
    "<p>The roots of <span class='MathJax_Preview'>ax^2+bx+c=0</span><span class='MathJax' "
    "id='MathJax-Element-1-Frame'><nobr><span class='math'><span>a</span><span>x</span>"
    "</span></nobr></span><script type='math/tex' id='MathJax-Element-1'>a x^2 + b x + c = 0"
    "</script> are</p><div class='MathJax_Display'><span class='MathJax'>x = ...</span></div>"
    "<script type='math/tex; mode=display'>x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}</script>",
    head="<script src='https://cdn.example/MathJax.js?config=TeX-AMS_HTML'></script>")
MATHJAX2_TEX = ["$a x^2 + b x + c = 0$", "$$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$"]

MATHJAX3 = article(
    "<p>When <mjx-container class='MathJax' jax='CHTML'><mjx-math class='MJX-TEX' "
    "aria-hidden='true'><mjx-mi class='mjx-i'><mjx-c class='mjx-c1D44E TEX-I'></mjx-c>"
    "</mjx-mi></mjx-math><mjx-assistive-mml unselectable='on' display='inline'><math>"
    "<mi>a</mi><mo>≠</mo><mn>0</mn></math></mjx-assistive-mml></mjx-container>, the roots are"
    "</p><mjx-container class='MathJax' jax='CHTML' display='true'><mjx-math "
    "aria-hidden='true'></mjx-math><mjx-assistive-mml display='block'><math display='block'>"
    "<mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo><msqrt><mi>Δ</mi>"
    "</msqrt></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac></math></mjx-assistive-mml>"
    "</mjx-container>")
MATHJAX3_TEX = ["$a\\neq 0$", "$$x=\\frac{-b\\pm\\sqrt{\\Delta}}{2a}$$"]

WIKIPEDIA = article(
    "<p>A matrix <span class='mwe-math-element'><span class='mwe-math-mathml-inline "
    "mwe-math-mathml-a11y' style='display: none;'><math alttext='{\\displaystyle A}'>"
    "<semantics><mrow><mi>A</mi></mrow><annotation encoding='application/x-tex'>"
    "{\\displaystyle A}</annotation></semantics></math></span><img src='https://wikimedia.org/"
    "api/rest_v1/media/math/render/svg/7daff47f' class='mwe-math-fallback-image-inline' "
    "aria-hidden='true' alt='{\\displaystyle A}'></span> is Hermitian when</p><dl><dd>"
    "<span class='mwe-math-element'><span class='mwe-math-mathml-display mwe-math-mathml-a11y'"
    " style='display: none;'><math display='block'><semantics><mrow><msub><mi>a</mi><mrow>"
    "<mi>i</mi><mi>j</mi></mrow></msub></mrow><annotation encoding='application/x-tex'>"
    "{\\displaystyle a_{ij}={\\overline {a_{ji}}}}</annotation></semantics></math></span>"
    "<img src='https://wikimedia.org/api/rest_v1/media/math/render/svg/1c2b' "
    "class='mwe-math-fallback-image-display' aria-hidden='true' "
    "alt='{\\displaystyle a_{ij}={\\overline {a_{ji}}}}'></span></dd></dl>")
WIKIPEDIA_TEX = ["$A$", "$$a_{ij}={\\overline {a_{ji}}}$$"]


@pytest.mark.parametrize(("html", "formulas"), [
    pytest.param(MATHML, MATHML_TEX, id="mathml"),
    pytest.param(KATEX, KATEX_TEX, id="katex"),
    pytest.param(MATHJAX2, MATHJAX2_TEX, id="mathjax2"),
    pytest.param(MATHJAX3, MATHJAX3_TEX, id="mathjax3"),
    pytest.param(WIKIPEDIA, WIKIPEDIA_TEX, id="wikipedia"),
])
def test_formulas_are_latex_between_dollars_in_the_markdown_and_the_text(
        html: str, formulas: list[str]) -> None:
    result = sitesift.clean(html, images=True)
    markdown, text, page = result.markdown(), result.text, result.html()
    for tex in formulas:
        assert tex in markdown, (tex, markdown)
        assert tex in text, (tex, text)
        # HTML: as pandoc writes math, for MathJax or KaTeX to typeset
        kind, inner = (("display", tex[2:-2]) if tex.startswith("$$") else ("inline", tex[1:-1]))
        assert f'<span class="math {kind}">' in page
        assert inner.replace("<", "&lt;") in page
    # the renderings of the formulas are not there beside them: KaTeX's boxes, MathJax 2's
    # preview and frames, Wikipedia's fallback image
    for left_out in ("x12=", "x = ...", "ax^2+bx+c=0</", "wikimedia.org", "Home"):
        assert left_out not in markdown
    assert "Copyright" not in text
    assert STORY in text


def test_a_formula_is_never_markdown_escaped_but_the_text_around_it_is() -> None:
    html = article("<p>Let <em>*stars*</em> and <math><msub><mi>a</mi><mi>i</mi></msub>"
                   "<mo>*</mo><msub><mi>b</mi><mi>i</mi></msub></math> be [given].</p>")
    markdown = sitesift.clean(html).markdown()
    assert "*\\*stars\\**" in markdown
    assert "$a_i*b_i$ be \\[given\\]." in markdown


def test_a_page_without_formulas_keeps_its_dollars_and_scripts_as_they_were() -> None:
    # a price is no formula; a script that is not math/tex stays out of the text
    html = article("<p>Tickets cost $5 and $10.</p><script>var x = '$y$';</script>")
    result = sitesift.clean(html)
    assert "Tickets cost $5 and $10." in result.text
    assert "$y$" not in result.text


def test_display_formulas_between_paragraphs_are_kept_as_content() -> None:
    # a formula block has few words; the model reads its TeX as the block's words and keeps
    # it with the article's paragraphs around it
    result = sitesift.clean(MATHML)
    display = [b for b in result.blocks if b.text.startswith("$$")]
    assert len(display) == 1 and display[0].label == "content"


def test_the_readability_corpus_s_formula_pages_keep_every_formula() -> None:
    root: Path = shared_dataset("readability")
    rows = {r["id"]: r for r in read_index(root)}
    expected = {"mathjax": 13, "wikipedia-3": 66}  # formulas on each page
    for page_id, n in expected.items():
        markdown = sitesift.clean(load_page(root, rows[page_id])).markdown()
        displayed = len(re.findall(r"\$\$[^$]+\$\$", markdown))
        inline = len(re.findall(r"(?<!\$)\$[^$]+\$(?!\$)", markdown.replace("$$", "\x00")))
        assert displayed + inline == n, (page_id, displayed, inline)


# TeX written as text for a script to typeset (native/src/read/math/text.rs; the scanner's
# own cases are its Rust tests): read only where the page loads or configures MathJax or
# KaTeX's auto-render, with the delimiters that library scans for.
MATHJAX2_SRC = ("<script type='text/javascript' src='https://cdnjs.cloudflare.com/ajax/libs/"
                "mathjax/2.7.7/MathJax.js?config=TeX-AMS-MML_HTMLorMML'></script>")
DOLLAR_CONFIG = ("<script type='text/x-mathjax-config'>MathJax.Hub.Config({tex2jax: {"
                 "inlineMath: [ ['$','$'], ['\\\\(','\\\\)'] ], processEscapes: true, "
                 "ignoreClass: 'tex2jax_ignore|dno'}});</script>" + MATHJAX2_SRC)
TEX_TEXT = ("<p>When \\(a \\neq 0\\), the equation \\(ax^2 + bx + c = 0\\) has the roots"
            "$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$where \\(b^2 - 4ac &gt; 0\\).</p>")


def test_tex_in_the_text_of_a_mathjax_page_is_read_as_formulas() -> None:
    result = sitesift.clean(article(TEX_TEXT, head=MATHJAX2_SRC))
    markdown, text = result.markdown(), result.text
    assert ("When $a \\neq 0$, the equation $ax^2 + bx + c = 0$ has the roots\n\n"
            "$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n"
            "where $b^2 - 4ac \\gt 0$.") in markdown
    assert ("When $a \\neq 0$, the equation $ax^2 + bx + c = 0$ has the roots\n\n"
            "$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n"
            "where $b^2 - 4ac > 0$.") in text
    page = result.html()
    assert '<span class="math inline">\\(a \\neq 0\\)</span>' in page
    assert '<span class="math display">\\[x = \\frac' in page
    assert STORY in text and "Copyright" not in text


def test_dollars_are_math_only_where_the_page_s_configuration_lists_them() -> None:
    body = ("<p>The sequence $a_1, a_2, \\dots$ converges to $\\lim_{n} a_n = L$, and "
            "\\(L\\) is unique.</p><p>The book costs \\$25, or $5 and $10 at the fair; "
            "write $ x$ with care.</p>")
    configured = sitesift.clean(article(body, head=DOLLAR_CONFIG))
    assert ("The sequence $a_1, a_2, \\dots$ converges to $\\lim_{n} a_n = L$, and $L$ is "
            "unique.") in configured.markdown()
    assert ("The book costs $25, or $5 and $10 at the fair; write $ x$ with care."
            in configured.text)
    # MathJax's defaults alone have no `$`: the same page without the configuration
    plain = sitesift.clean(article(body, head=MATHJAX2_SRC))
    assert ("The sequence $a_1, a_2, \\dots$ converges to $\\lim_{n} a_n = L$, and $L$ is "
            "unique.") in plain.text
    assert '<span class="math inline">\\(a_1' not in plain.html()
    assert '<span class="math inline">\\(a_1' in configured.html()
    assert "The book costs \\$25" in plain.text


def test_a_page_that_loads_no_tex_script_keeps_its_text_as_it_was() -> None:
    # prices, and TeX-like text on a page no script typesets: text, escaped in markdown
    body = ("<p>Tickets cost $5 and $10, or $$ for the best seats.</p>"
            "<p>In a regular expression \\(a|b\\) groups, and $x$ is a variable.</p>")
    result = sitesift.clean(article(body))
    assert "Tickets cost $5 and $10, or $$ for the best seats." in result.text
    assert "In a regular expression \\(a|b\\) groups, and $x$ is a variable." in result.text
    assert "\\\\(a|b\\\\)" in result.markdown()
    assert 'class="math' not in result.html()


def test_code_and_ignored_elements_keep_their_tex_as_text() -> None:
    body = ("<p>Write <code>\\(x\\)</code> for \\(x\\).</p>"
            "<pre><code>$$y = \\(z\\)$$ and $w$</code></pre>"
            "<div class='dno'><p>Escaped \\(q\\) here, but <span class='tex2jax_process'>"
            "\\(p\\)</span> is math.</p></div>"
            "<textarea>\\(t\\)</textarea>")
    result = sitesift.clean(article(body, head=DOLLAR_CONFIG))
    markdown, text = result.markdown(), result.text
    assert "Write `\\(x\\)` for $x$." in markdown
    assert "```\n$$y = \\(z\\)$$ and $w$\n```" in markdown
    assert "Escaped \\(q\\) here, but $p$ is math." in text
    assert "$t$" not in text and "$$y" not in text.replace("$$y = \\(z\\)$$", "")


def test_katex_auto_render_reads_its_default_delimiters_and_environments() -> None:
    head = ("<link rel='stylesheet' href='https://cdn.jsdelivr.net/npm/katex@0.16.10/dist/"
            "katex.min.css'><script defer src='https://cdn.jsdelivr.net/npm/katex@0.16.10/dist/"
            "contrib/auto-render.min.js' onload='renderMathInElement(document.body);'></script>")
    body = ("<p>Energy: \\begin{equation} E = mc^2 \\end{equation} with \\(c\\) the speed of "
            "light, and $m$ the mass.</p>")
    text = sitesift.clean(article(body, head=head)).text
    assert ("Energy:\n\n$$\\begin{equation} E = mc^2 \\end{equation}$$\n\nwith $c$ the speed "
            "of light, and $m$ the mass.") in text


def test_a_display_formula_may_run_over_line_breaks_as_wordpress_writes_them() -> None:
    # WordPress turns each newline of a post into <br />, in and around a `$$` block too
    body = ("<p>By induction,<br />\n$$\\sum_{k=1}^n k<br />\n= \\frac{n(n+1)}{2}$$<br />\n"
            "holds for every \\(n\\).</p>")
    markdown = sitesift.clean(article(body, head=MATHJAX2_SRC)).markdown()
    assert ("By induction,\n\n$$\\sum_{k=1}^n k = \\frac{n(n+1)}{2}$$\n\n"
            "holds for every $n$.") in markdown
