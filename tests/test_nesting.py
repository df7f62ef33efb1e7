"""The nesting guard's two scans give the same answers: the native core's
(`native/src/read/nesting.rs`, what `too_deep` runs) and this package's Python one
(`too_deep_python`, the fallback where the core is not built).

Generated tag soups hold every kind of token the scan tells apart (deep nesting, unclosed
and identical formatting elements, `<b id=N><p>x` runs, raw text with tags inside, comments,
`<div/>`, tables and cells, SVG and MathML, names in any case and with the letters Python's
`re.I` and `str.lower()` fold onto ASCII, tags without `>`, non-ASCII text and whitespace,
lone `<`); each soup's figures must agree, and so must `too_deep` on it repeated past the
pre-check's 5,000 tags. Golden pages sit at each limit and one past it.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sitesift.native import core
from sitesift.nesting import (
    MAX_FORMATTING,
    MAX_NESTING,
    MAX_REBUILT,
    _Shape,
    too_deep,
    too_deep_python,
)

# max_examples: a soup is checked in microseconds, its repetition past 5,000 tags in tens
# of milliseconds (the Python scan).
EXAMPLES = int(os.environ.get("SITESIFT_PROPERTY_EXAMPLES", "0"))
PROPS = settings(deadline=None, derandomize=not EXAMPLES,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NAMES = ["div", "p", "span", "b", "i", "u", "s", "font", "big", "small", "strike", "strong",
         "tt", "em", "code", "nobr", "a", "table", "tbody", "tr", "td", "th", "caption", "li",
         "dd", "option", "html", "body", "h1", "pre", "form", "hr", "br", "img", "input",
         "svg", "math", "g", "mi", "foreignObject", "object", "applet", "marquee", "template",
         "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
         "plaintext", "x-y", "a<b"]
# Python's re.I matches ſ, İ, ı and the Kelvin sign to s, i, i and k; str.lower() makes k
# of the Kelvin sign and "i̇" of İ.
FOLDS = {"s": "\u017f", "i": "\u0130", "k": "\u212a", "t": "T"}
name = st.tuples(st.sampled_from(NAMES), st.sampled_from(["", "upper", "title", "fold"])).map(
    lambda t: t[0].upper() if t[1] == "upper" else t[0].title() if t[1] == "title"
    else "".join(FOLDS.get(c, c) for c in t[0]) if t[1] == "fold" else t[0])
ATTRS = ["", " id=1", " id=2", " ID=1 ", "\u3000id=1", ' class="x"', ' title="/>"', " a='", " /",
         "/", " ID=\u03a3", "\u2028", " x=\u017f", ' title="a>b"']
END = [">", ">", ">", "/>", "", " >", "\u00a0>"]
start = st.tuples(name, st.sampled_from(ATTRS), st.sampled_from(END)).map(
    lambda t: f"<{t[0]}{t[1]}{t[2]}")
end = st.tuples(name, st.sampled_from([">", " >", "/", "\u3000", "\x1c>", ""])).map(
    lambda t: f"</{t[0]}{t[1]}")
text = st.text(alphabet="ab é中\u03a3\u3000\xa0\u2028 \n\t\x1c<>/'\"=-!\u017f\u0130",
               max_size=6)
runs = st.one_of(
    st.tuples(st.sampled_from(["b", "i", "font", "nobr", "a"]), st.integers(0, 40)).map(
        lambda t: "".join(f"<{t[0]} id={i}><p>x" for i in range(t[1]))),
    st.tuples(st.sampled_from(["<div>", "<div/>", "<b>", "<td>", "<svg>", "<li>", "</p>"]),
              st.integers(0, 60)).map(lambda t: t[0] * t[1]),
)
# Formatting elements opened, closed, cut off by blocks and cells and rebuilt by text, and
# identical ones past the three the list keeps.
cut_and_rebuilt = st.lists(st.sampled_from(
    ["<b>", "<b id=1>", "<B ID=1 >", "<b\u3000id=1>", "<b id=1\x1f>", "</b>", "<i>", "</i>",
     "<a>", "</a>", "<nobr>", "<p>", "</p>", "<div>", "</div>", "<table>", "<td>", "</table>",
     "x", "\n", "\x1c", "\u3000", "\u200b"]), max_size=30).map("".join)
piece = st.one_of(
    start, start, end, text, runs, cut_and_rebuilt, cut_and_rebuilt,
    st.tuples(start, st.integers(0, 6)).map(lambda t: t[0] * t[1]),
    st.sampled_from(["<!--", "-->", "<!-- <div> -->", "<!--->", "<", "</", "<!", "< p>",
                     "<script><div></script>", "<title><b></TITLE>", "</\u017fcript>",
                     "<textarea><p><b>x</textarea/", "<svg><g/><p></svg>", "<math><mi>",
                     "<table><td><b>x<td><i>y</table>", "<p><b id=1>t<p>t", "<b><b></b><b><b>",
                     "&lt;"]),
)
soup = st.lists(piece, max_size=60).map("".join)


def python_counts(html: str) -> tuple[int, int, int]:
    shape = _Shape()
    shape.scan(html)
    return shape.deepest, shape.most_active, shape.rebuilt


def past_precheck(html: str) -> str:
    """`html` repeated to more than MAX_NESTING `<`, so that both scans run, each copy's
    ids its own (distinct formatting elements, as the limits on them need)."""
    copies = MAX_NESTING // max(html.count("<"), 1) + 1
    return "".join(html.replace(" id=", f" id={k}-") for k in range(copies))


@settings(PROPS, max_examples=EXAMPLES or 1500)
@given(soup)
@example("<p><STRI\u212aE>t<p>t")
@example("<a<b><a<b>x")
@example("<title>" + "<div>" * 3 + "</T\u0130TLE><p><b>x<p>y")
@example("<b><b></b><b><b>")  # the closed <b> still counts among the three identical ones
@example("<p><b><p>\x1c<p>")  # U+001C is whitespace to Python (not to Rust's `trim`)
def test_both_scans_measure_the_same_shape(html: str) -> None:
    assert core().nesting_counts(html) == python_counts(html)
    assert core().too_deep(html) == too_deep_python(html)


@settings(PROPS, max_examples=EXAMPLES or 150)
@given(soup.filter(lambda h: "<" in h))
@example("<b id=1><p>x<b id=2><p>x<i>y")
@example("<div/>")
def test_both_guards_give_the_same_answer(html: str) -> None:
    page = past_precheck(html)
    assert core().too_deep(page) == too_deep_python(page)


def rebuilds(n: int, m: int) -> str:
    """n distinct unclosed `<b id=N><p>t`, then m more paragraphs: n (n - 1) / 2 + m (n - 1)
    formatting elements rebuilt."""
    return "".join(f"<b id={i}><p>t" for i in range(n)) + "<p>t" * m


def open_formatting(n: int, tag: str = "b") -> str:
    """n distinct `<tag id=N>` left open, then a paragraph's text."""
    return "".join(f"<{tag} id={i}>" for i in range(n)) + "<p>x"


AT_REBUILT = rebuilds(626, 87)  # 195,625 + 54,375
OVER_FORMATTING = ("1,001 formatting elements (<b>, <font>, ...) left open at once (limit "
                   "1,000): the HTML parser's work grows with their square")
GOLDEN = [  # (page, its figures, the guard's answer)
    ("<div>" * MAX_NESTING + "<br>", (MAX_NESTING, 0, 0), None),
    ("<div/>" * (MAX_NESTING + 1), (MAX_NESTING + 1, 0, 0),
     "elements nested 5,001 deep (limit 5,000)"),
    (open_formatting(MAX_FORMATTING), (MAX_FORMATTING + 1, MAX_FORMATTING, 0), None),
    (open_formatting(MAX_FORMATTING + 1), (MAX_FORMATTING + 2, MAX_FORMATTING + 1, 0),
     OVER_FORMATTING),
    # "<striKe>" with the Kelvin sign: a <strike> to str.lower(), to the pre-check's re.I too
    (open_formatting(MAX_FORMATTING + 1, "stri\u212ae"),
     (MAX_FORMATTING + 2, MAX_FORMATTING + 1, 0),
     OVER_FORMATTING),
    (AT_REBUILT, (627, 626, MAX_REBUILT), None),
    (AT_REBUILT + "<table><td><div><i>x</div>t", (627, 626, MAX_REBUILT + 1),
     "unclosed formatting elements that the HTML parser would rebuild 250,001 times (limit "
     "250,000)"),
]


@pytest.mark.parametrize(("html", "figures", "answer"), GOLDEN,
                         ids=["nesting-at", "nesting-over", "formatting-at", "formatting-over",
                              "formatting-over-kelvin", "rebuilt-at", "rebuilt-over"])
def test_each_limit_holds_at_its_value_and_refuses_one_more(
        html: str, figures: tuple[int, int, int], answer: str | None) -> None:
    assert python_counts(html) == core().nesting_counts(html) == figures
    assert too_deep_python(html) == core().too_deep(html) == too_deep(html) == answer


def test_a_page_no_rust_string_holds_is_scanned_in_python() -> None:
    html = "\ud800" + "<div/>" * (MAX_NESTING + 1)  # a lone surrogate
    assert too_deep(html) == "elements nested 5,001 deep (limit 5,000)"
