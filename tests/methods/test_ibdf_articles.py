"""ContentExtractor across sites: the same agency article on two newspapers' sites is found
once their own templates are removed."""

from __future__ import annotations

from sitesift.methods.ibdf import IBDFCleaner, cosine
from sitesift.methods.ibdf_articles import same_articles, unique_articles
from sitesift.page import Page
from tests.conftest import page

WIRE = "<p>storm floods coastal towns overnight</p><p>rescuers evacuate thousands</p>"


def _site(name: str, menu: str, stories: list[str]) -> list[Page]:
    nav = "<ul>" + "".join(f"<li>{w}</li>" for w in menu.split()) + "</ul>"
    return [page(f"<body>{nav}{s}<p>{name} copyright reserved</p></body>", f"{name}{i}")
            for i, s in enumerate(stories)]


SITES = {
    "daily": _site("daily", "home politics sport weather", [
        WIRE, "<p>council approves budget plan</p>", "<p>local team wins final</p>"]),
    "herald": _site("herald", "front opinion business arts travel", [
        "<p>museum opens new wing</p>", "<p>markets rally after report</p>", WIRE]),
}


def _fitted() -> dict[str, tuple[IBDFCleaner, list[Page]]]:
    return {site: (IBDFCleaner().fit(pages), pages) for site, pages in SITES.items()}


def test_copies_differ_only_in_their_non_content_blocks() -> None:
    sites = _fitted()
    (daily, d_pages), (herald, h_pages) = sites["daily"], sites["herald"]
    # content vectors: the wire story alone on both sites (menus and footers are redundant)
    assert daily.content_vector(d_pages[0]) == herald.content_vector(h_pages[2])
    # the whole pages are less alike than the threshold: their templates differ
    whole = [frozenset(p.root.text().split()) for p in (d_pages[0], h_pages[2])]
    assert cosine(*whole) < 0.8


def test_same_article_across_sites_and_unique_articles() -> None:
    sites = _fitted()
    assert same_articles(sites) == [["daily0", "herald2"]]
    assert unique_articles(sites) == ["daily0", "daily1", "daily2", "herald0", "herald1"]
    assert same_articles(sites, similarity=1.0) == [["daily0", "herald2"]]


def test_pages_of_one_site_are_not_copies() -> None:
    pages = _site("daily", "home politics sport weather", [WIRE, WIRE, "<p>other news</p>"])
    assert same_articles({"daily": (IBDFCleaner().fit(pages), pages)}) == []
