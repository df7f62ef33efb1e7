"""URL normal form and the hyperlink graph among a site's pages."""

from __future__ import annotations

import pytest

from sitesift.links import SiteGraph, normalise_url, page_links
from sitesift.page import Page


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://www.Example.com/news/", "example.com/news"),
        ("https://example.com/news#top", "example.com/news"),
        ("http://example.com:80/a?b=1", "example.com/a?b=1"),
        ("http://example.com:8080/a", "example.com:8080/a"),
        ("https://web.archive.org/web/20051230052639/http://arstechnica.com/news/",
         "arstechnica.com/news"),
        ("https://web-beta.archive.org/web/20051230id_/http://www.arstechnica.com/",
         "arstechnica.com"),
        ("http://web.archive.org/web/2005/arstechnica.com/x", "arstechnica.com/x"),
        ("mailto:someone@example.com", None),
        ("ftp://example.com/file", None),
        ("http:///nohost", None),
    ],
    ids=["www-case-slash", "fragment", "default-port", "other-port", "wayback",
         "wayback-www-id", "wayback-no-scheme", "mailto", "ftp", "no-host"],
)
def test_normalise_url(url: str, expected: str | None) -> None:
    assert normalise_url(url) == expected


def test_page_links_resolve_against_the_page_url() -> None:
    page = Page.from_html('<body><a href="b.html">b</a><a href="/c/">c</a><a href="#x">x</a>'
                          '<a href="http://other.org/d">d</a><a href="a.html">self</a></body>',
                          url="http://example.com/dir/a.html")
    own, targets = page_links(page)
    assert own == "example.com/dir/a.html"
    assert targets == {"example.com/dir/b.html", "example.com/c", "other.org/d"}


def test_page_links_without_url_keep_absolute_hrefs_only() -> None:
    page = Page.from_html('<body><a href="b.html">b</a><a href="http://ex.com/c">c</a></body>')
    assert page_links(page) == (None, {"ex.com/c"})


def test_graph_edges_and_components() -> None:
    urls: list[str | None] = ["s/a", "s/b", "s/c", "s/d", None]
    targets = [{"s/b"}, set(), {"s/d", "elsewhere/x"}, set(), {"s/a"}]
    graph = SiteGraph(urls, targets)
    assert graph.edges == 3  # a-b, c-d, (no url)-a
    assert graph.components([0, 1, 2, 3]) == [[0, 1], [2, 3]]
    assert graph.components([0, 2]) == [[0], [2]]  # induced: b and d are not there
    assert graph.components([0, 1, 4]) == [[0, 1, 4]]


@pytest.mark.parametrize(
    ("urls", "targets", "reason"),
    [([None, None, "s/a"], [set(), set(), set()], "only 1 of 3 pages have a URL"),
     (["s/a", "s/b"], [set(), {"s/x"}], "no page of the 2 links to another")],
    ids=["missing-urls", "no-links"],
)
def test_why_the_graph_is_empty(urls: list[str | None], targets: list[set[str]],
                                reason: str) -> None:
    graph = SiteGraph(urls, targets)
    assert graph.edges == 0
    assert reason in graph.why_empty()
