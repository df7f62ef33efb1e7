"""The template method's pagelets as the SST paper defines them (`pagelets="paper"`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesift.errors import ModelError
from sitesift.methods.base import get_cleaner
from sitesift.methods.template import ANY_KIND, TemplateCleaner, TemplateParams, pagelets
from sitesift.model_io import load_model, save_model
from sitesift.page import Page
from sitesift.result import NOISE
from tests.methods.test_template import LAYOUT, _label  # the same small DOM, both rules


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        # No child of ul.nav, div.main or div.foot holds 3 links, and each has a
        # non-pagelet parent (div.wrap's ul.nav holds 3): the link-free div.main is one.
        (3, ["ul.nav", "div.main", "div.foot"]),
        # p.refs holds 2: div.main is split into its two paragraphs.
        (2, ["ul.nav", "p", "p.refs", "div.foot"]),
        # Every link holder is split down to its <a>s; p.refs's loose words are in none.
        (1, ["a", "a", "a", "p", "a", "a", "a", "a", "a", "a"]),
        (5, ["div.wrap"]),   # no child of div.wrap holds 5 links
        (10, ["body"]),      # nor of body: the whole page is one pagelet
    ],
    ids=["k3", "k2", "k1", "k5", "k10"],
)
def test_paper_pagelets_on_a_small_dom(k: int, expected: list[str]) -> None:
    page = Page.from_html(LAYOUT)
    found = pagelets(page.root, k, (ANY_KIND,), "paper")
    assert [_label(n) for n in found] == expected


def test_paper_rule_passes_an_ineligible_element_to_its_children() -> None:
    page = Page.from_html(LAYOUT)
    # <body> is no eligible kind here, so at k = 10 the question goes down to div.wrap.
    found = pagelets(page.root, 10, ("div", "ul", "li", "p"), "paper")
    assert [_label(n) for n in found] == ["div.wrap"]
    # Under the lowest rule a region needs k links: with k = 10 nothing is a pagelet.
    assert pagelets(page.root, 10, ("div", "ul", "li", "p"), "lowest") == []


NAV = ('<ul class="nav"><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
       '<li><a href="/about">About us</a></li></ul>')
COPYRIGHT = '<div class="copy">Copyright Example Corp, all rights reserved</div>'
STORIES = ["alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda mu"]


def _site() -> list[Page]:
    return [Page.from_html(f'<body>{NAV}<div class="main"><p>{text}</p></div>{COPYRIGHT}'
                           '</body>', id=f"p{i}") for i, text in enumerate(STORIES)]


@pytest.mark.parametrize(
    ("rule", "removed"),
    [("paper", ["Home", "News", "About us", "Copyright Example Corp, all rights reserved"]),
     ("lowest", ["Home", "News", "About us"])],   # no link in it: never a pagelet
    ids=["paper", "lowest"],
)
def test_a_recurring_link_free_copyright_is_template_only_under_the_paper_rule(
        rule: str, removed: list[str]) -> None:
    site = _site()
    model = TemplateCleaner(pagelets=rule, eligible=[ANY_KIND]).fit(site)
    result = model.clean(site[1])
    assert [b.text for b in result.blocks if b.label == NOISE] == removed
    assert "epsilon zeta eta theta" in result.text  # unique content is kept


def test_unknown_pagelet_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="pagelets must be one of lowest, paper"):
        TemplateCleaner(pagelets="highest")


def test_paper_preset_sets_every_paper_choice_and_explicit_settings_win() -> None:
    paper = get_cleaner("template", preset="paper").get_params()
    assert {k: paper[k] for k in ("pagelets", "eligible", "k", "min_pages", "algorithm",
                                  "fold_digits", "count", "preset")} == {
        "pagelets": "paper", "eligible": [ANY_KIND], "k": 3, "min_pages": 2,
        "algorithm": "local", "fold_digits": False, "count": "pagelets", "preset": "paper"}
    mixed = TemplateCleaner(preset="paper", k=2, fold_digits=True).params
    assert (mixed.k, mixed.fold_digits, mixed.pagelets) == (2, True, "paper")
    assert TemplateParams.from_preset("default") == TemplateParams()
    with pytest.raises(ValueError, match="preset must be one of default, paper"):
        TemplateCleaner(preset="faithful")


def test_paper_preset_model_saves_and_loads(tmp_path: Path) -> None:
    site = _site()
    model = TemplateCleaner(preset="paper").fit(site)
    loaded = load_model(save_model(model, tmp_path / "paper.template.json.gz"))
    assert loaded.get_params() == model.get_params()
    assert loaded.clean(site[0]).to_dict() == model.clean(site[0]).to_dict()
    assert "Copyright" not in loaded.clean(site[0]).text


def test_a_model_saved_before_the_pagelets_switch_keeps_the_lowest_rule() -> None:
    model = TemplateCleaner(pagelets="lowest").fit(_site())
    params = model.get_params()
    del params["pagelets"], params["preset"]  # as a model file written before issue 33
    loaded = TemplateCleaner.from_state(params, model.to_state())
    assert loaded.params.pagelets == "lowest"
    assert "Copyright" in loaded.clean(_site()[0]).text


PROMO = '<div class="promo">Subscribe to our weekly harbour newsletter today</div>'


def _site_with_a_twice_repeated_box() -> list[Page]:
    """Three pages of one site; only the second holds the promo box, twice (top and bottom)."""
    pages = []
    for i, text in enumerate(STORIES):
        promo = PROMO if i == 1 else ""
        pages.append(Page.from_html(f'<body>{NAV}{promo}<div class="main"><p>{text}</p></div>'
                                    f'{promo}{COPYRIGHT}</body>', id=f"p{i}"))
    return pages


@pytest.mark.parametrize(
    ("settings", "dropped"),
    [({"preset": "paper"}, True),            # the paper counts the group's pagelets: 2
     ({}, True),                             # the default counts pagelets too
     ({"preset": "paper", "count": "pages"}, False),   # one page holds the group: kept
     ({"count": "pages"}, False)],
    ids=["paper", "default", "paper-pages", "pages"],
)
def test_a_pagelet_repeated_within_one_page_is_a_template_when_pagelets_count(
        settings: dict[str, str], dropped: bool) -> None:
    site = _site_with_a_twice_repeated_box()
    model = TemplateCleaner(**settings).fit(site)
    result = model.clean(site[1])
    assert ("weekly harbour newsletter" not in result.text) is dropped
    assert "epsilon zeta eta theta" in result.text  # unique content is kept either way
    noise = [v.reason for v in model.score(site[1]).values()]
    unit = "pages)" if settings.get("count") == "pages" else "pagelets on 3 pages)"
    assert all(reason.endswith(unit) for reason in noise)


def test_a_model_saved_before_the_count_switch_counts_pages() -> None:
    # A file written before issue 52 holds [fingerprint, pages] and no `count`.
    model = TemplateCleaner(count="pages").fit(_site_with_a_twice_repeated_box())
    params = model.get_params()
    del params["count"]
    loaded = TemplateCleaner.from_state(params, model.to_state())
    assert loaded.params.count == "pages"
    assert "weekly harbour newsletter" in loaded.clean(_site_with_a_twice_repeated_box()[1]).text
    # A pagelet count may exceed the pages; a page count may not.
    state = TemplateCleaner(preset="paper").fit(_site()).to_state()
    state["templates"] = [[fp, 9] for fp, _ in state["templates"]]
    paper = TemplateCleaner(preset="paper").get_params()
    assert TemplateCleaner.from_state(paper, state).templates_
    with pytest.raises(ModelError, match="fingerprint, pages"):
        TemplateCleaner.from_state({**paper, "count": "pages"}, state)


def test_unknown_count_is_refused() -> None:
    with pytest.raises(ValueError, match="count must be one of pagelets, pages"):
        TemplateCleaner(count="sites")
