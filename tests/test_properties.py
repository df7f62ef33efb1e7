"""Property-based checks: tag soup never breaks parsing or cleaning, and no text is invented."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitesift.errors import SitesiftError
from sitesift.methods.base import get_cleaner
from sitesift.page import Page

TAGS = ["div", "p", "span", "a", "b", "table", "tr", "td", "ul", "li", "script", "h1", "br",
        "img", "nav", "font", "section"]
piece = st.one_of(
    st.sampled_from(TAGS).map(lambda t: f"<{t}>"),
    st.sampled_from(TAGS).map(lambda t: f"</{t}>"),
    st.sampled_from(['<div class="nav">', '<p id="x1">', '<a href="/y">', "<!-- c -->",
                     "<div hidden>", "&amp;", "&nbsp;", "<"]),
    st.text(alphabet="abc xyz\u00e9\u4e2d", min_size=1, max_size=8),
)
soup = st.lists(piece, min_size=1, max_size=60).map("".join)


def _squeezed(text: str) -> str:
    return "".join(text.split())


@settings(max_examples=150, deadline=None)
@given(soup, soup)
def test_cleaning_tag_soup_invents_nothing(a: str, b: str) -> None:
    try:
        pages = [Page.from_html(a, id="a"), Page.from_html(b, id="b")]
    except SitesiftError:
        return  # empty input: a documented, clear error
    sst = get_cleaner("sst").fit(pages + pages)
    for page in pages:
        visible = _squeezed(get_cleaner("alltext").clean(page).text)
        # every block is a contiguous piece of the page's visible text (spacing aside: a
        # verdict boundary inside an inline run splits it into two blocks)
        for block in sst.clean(page).blocks:
            assert _squeezed(block.text) in visible
        assert sst.clean(page).text == sst.clean(page).text  # deterministic


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_give_a_page_or_an_input_error(data: bytes) -> None:
    try:
        page = Page.from_bytes(data)
    except SitesiftError:
        return
    text = get_cleaner("alltext").clean(page).text
    text.encode("utf-8")
    assert "\x00" not in text
