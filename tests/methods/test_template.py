"""The template method (Bar-Yossef & Rajagopalan) on hand-built pages and sites."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from sitesift.errors import ModelError
from sitesift.methods.base import get_cleaner
from sitesift.methods.template import PAPER_KINDS, TemplateCleaner, pagelets
from sitesift.model_io import load_model, save_model
from sitesift.page import Page
from sitesift.result import NOISE

# Links per element: ul.nav 3 (one per li), p.refs 2, div.main 2, div.foot 4, div.wrap 9.
LAYOUT = (
    '<body><div class="wrap">'
    '<ul class="nav"><li><a href="/">Home</a></li><li><a href="/n">News</a></li>'
    '<li><a href="/s">Sport</a></li></ul>'
    '<div class="main"><p>plain text</p>'
    '<p class="refs">see <a href="/x">x</a> and <a href="/y">y</a></p></div>'
    '<div class="foot"><a href="/1">a</a><a href="/2">b</a><a href="/3">c</a>'
    '<a href="/4">d</a></div>'
    '</div></body>'
)


def _label(node: Any) -> str:
    cls = (node.attrs or {}).get("class")
    return f"{node.tag}.{cls}" if cls else node.tag


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, ["li", "li", "li", "p.refs", "div.foot"]),  # each li holds one link
        (2, ["ul.nav", "p.refs", "div.foot"]),
        (3, ["ul.nav", "div.foot"]),                    # p.refs and div.main hold only 2
        (4, ["div.foot"]),
        (5, ["div.wrap"]),                              # no pagelet below it any more
        (10, []),
    ],
    ids=["k1", "k2", "k3", "k4", "k5", "k10"],
)
def test_pagelets_depend_on_k(k: int, expected: list[str]) -> None:
    page = Page.from_html(LAYOUT)
    found = pagelets(page.root, k, ("div", "ul", "li", "p"))
    assert [_label(n) for n in found] == expected


def test_only_eligible_kinds_are_pagelets() -> None:
    page = Page.from_html(LAYOUT)
    # The paper's kinds have no <div>: the footer's links are then no pagelet at all.
    assert [_label(n) for n in pagelets(page.root, 3, PAPER_KINDS)] == ["ul.nav"]


NAV = ('<ul class="nav"><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
       '<li><a href="/about">About us</a></li></ul>')
RELATED = ('<ul class="rel"><li><a href="/r1">Related one</a></li>'
           '<li><a href="/r2">Related two</a></li><li><a href="/r3">Related three</a></li></ul>')


def _site_page(i: int, extra: str = "", url: str | None = None, links: str = "") -> Page:
    body = ["alpha beta gamma", "delta epsilon zeta", "eta theta iota", "kappa lambda mu",
            "nu xi omicron"][i]
    return Page.from_html(f'<body>{NAV}<div class="main"><p>{body}</p>{links}</div>{extra}'
                          '</body>', id=f"p{i}", url=url)


@pytest.fixture
def site() -> list[Page]:
    # The nav is on all three pages, the related block on two of them.
    return [_site_page(0, RELATED), _site_page(1, RELATED), _site_page(2)]


@pytest.mark.parametrize(
    ("min_pages", "removed"),
    [(2, ["Home News About us", "Related one Related two Related three"]),
     (3, ["Home News About us"]),
     (4, [])],
    ids=["two-pages", "three-pages", "four-pages"],
)
def test_local_groups_recurring_fingerprints(site: list[Page], min_pages: int,
                                             removed: list[str]) -> None:
    model = TemplateCleaner(min_pages=min_pages).fit(site)
    assert sorted(model.templates_.values()) == [2, 3]  # type: ignore[union-attr]
    result = model.clean(site[0])
    assert [b.text for b in result.blocks if b.label == NOISE] == [
        t for t in ["Home", "News", "About us", "Related one", "Related two", "Related three"]
        if any(t in r for r in removed)]
    assert "alpha beta gamma" in result.text


def test_reason_names_the_shingle_group(site: list[Page]) -> None:
    verdicts = get_cleaner("template").fit(site).score(site[2])
    assert [v.reason for v in verdicts.values()] == [
        "template pagelet (shingle of 3 pagelets on 3 pages)"]


@pytest.mark.parametrize(("fold", "grouped"), [(True, True), (False, False)],
                         ids=["digits-folded", "digits-kept"])
def test_digit_folding_keeps_a_dated_block_together(fold: bool, grouped: bool) -> None:
    pages = [Page.from_html(f'<body><ul><li><a href="/a">Archive {year}</a></li>'
                            '<li><a href="/b">b</a></li><li><a href="/c">c</a></li></ul>'
                            f'<p>{text}</p></body>')
             for text, year in (("first story", 2005), ("second story", 2006))]
    model = TemplateCleaner(fold_digits=fold).fit(pages)
    assert bool(model.templates_) is grouped


def test_duplicate_pages_count_once() -> None:
    a = _site_page(0)
    copy = _site_page(0)
    other = Page.from_html("<body><p>nothing shared</p></body>")
    model = TemplateCleaner().fit([a, copy, other])
    assert model.n_pages_ == 2
    assert model.templates_ == {}


def _linked_site() -> list[Page]:
    # p0 <-> p1 are linked, p2 is linked to no page: the nav recurs on all three.
    return [_site_page(0, url="http://ex.com/p0", links='<a href="/p1">next</a>'),
            _site_page(1, url="http://ex.com/p1"),
            _site_page(2, url="http://ex.com/p2")]


@pytest.mark.parametrize(
    ("page", "nav_removed"),
    [
        (lambda: _linked_site()[0], True),
        (lambda: _linked_site()[2], False),   # owns the nav but is linked to no other owner
        (lambda: _site_page(3, url="http://www.ex.com/p3/", links='<a href="../p1">x</a>'), True),
        (lambda: _site_page(4, url="http://ex.com/p4"), False),
        (lambda: _site_page(4), True),        # no link data at all: the local rule
    ],
    ids=["linked-member", "unlinked-owner", "new-page-linking-in", "new-page-isolated",
         "new-page-without-url"],
)
def test_global_uses_link_connectivity(page: Any, nav_removed: bool) -> None:
    model = TemplateCleaner(algorithm="global").fit(_linked_site())
    assert model.algorithm_ == "global" and model.fallback_ is None
    result = model.clean(page())
    assert ("Home" not in result.text) is nav_removed
    if nav_removed:
        assert result.blocks[0].reason.startswith("template pagelet")


def test_global_without_urls_falls_back_to_local(site: list[Page],
                                                  caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="sitesift.methods.template"):
        model = TemplateCleaner(algorithm="global").fit(site)
    assert model.algorithm_ == "local"
    assert model.fallback_ == "only 0 of 3 pages have a URL"
    assert "using the local algorithm" in caplog.text
    assert "Home" not in model.clean(site[2]).text


@pytest.mark.parametrize("algorithm", ["local", "global"])
def test_save_load_cleans_an_unseen_page_identically(tmp_path: Path, algorithm: str) -> None:
    model = TemplateCleaner(algorithm=algorithm, k=2).fit(_linked_site())
    path = save_model(model, tmp_path / "site.template.json.gz")
    loaded = load_model(path)
    assert isinstance(loaded, TemplateCleaner)
    assert loaded.get_params() == model.get_params()
    unseen = _site_page(3, url="http://ex.com/p3", links='<a href="/p0">back</a>')
    again = _site_page(3, url="http://ex.com/p3", links='<a href="/p0">back</a>')
    assert loaded.clean(unseen).to_dict() == model.clean(again).to_dict()
    assert "Home" not in loaded.clean(unseen).text


def _state() -> tuple[dict[str, Any], dict[str, Any]]:
    model = TemplateCleaner(algorithm="global").fit(_linked_site())
    return model.get_params(), model.to_state()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p, s: p.update(k=0), "k must be a positive integer"),
        (lambda p, s: p.update(colour="red"), "unknown template parameters"),
        (lambda p, s: p.update(algorithm="psychic"), "algorithm must be"),
        (lambda p, s: s.update(n_pages=-1), "n_pages"),
        (lambda p, s: s.update(algorithm="other"), "unknown algorithm"),
        (lambda p, s: s.update(templates={"a": 1}), "'templates' must be a list"),
        (lambda p, s: (p.update(count="pages"), s["templates"].append([1, 99])),
         "bad template entry"),
        (lambda p, s: s["templates"].append([1, 1]), "bad template entry"),
        (lambda p, s: s["templates"].append([-5, 2]), "bad template entry"),
        (lambda p, s: s.update(urls=[1, 2]), "'urls' must be a list of strings"),
        (lambda p, s: s["groups"][0].update(members=[999]), "URL indices"),
        (lambda p, s: s["components"].append([1, 99]), "bad component"),
    ],
    ids=["k-zero", "unknown-param", "bad-algorithm-param", "negative-pages",
         "bad-algorithm-state", "templates-not-list", "count-above-pages", "count-below-two",
         "negative-fingerprint", "urls-not-strings", "member-out-of-range",
         "component-group-missing"],
)
def test_corrupt_state_is_a_model_error(edit: Any, message: str) -> None:
    params, state = _state()
    edit(params, state)
    with pytest.raises(ModelError, match=message):
        TemplateCleaner.from_state(params, state)


def test_corrupt_file_is_a_model_error(tmp_path: Path) -> None:
    path = save_model(TemplateCleaner().fit(_linked_site()), tmp_path / "m.json")
    path.write_text(path.read_text().replace('"n_pages":3', '"n_pages":4'))
    with pytest.raises(ModelError, match="checksum"):
        load_model(path)


def test_unfitted_model_refuses_to_clean() -> None:
    from sitesift.errors import NotFittedError

    with pytest.raises(NotFittedError):
        TemplateCleaner().clean(_site_page(0))


def test_a_model_of_no_pages_saves_loads_and_keeps_everything(tmp_path: Path) -> None:
    loaded = load_model(save_model(TemplateCleaner().fit([]), tmp_path / "empty.json"))
    assert loaded.clean(_site_page(0)).text == "Home\nNews\nAbout us\nalpha beta gamma"
