"""ContentExtractor's paper preset: a block is content only on one page (IBDF = 1), pinned
on a hand-computed site of 11 pages."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sitesift.methods.base import get_cleaner
from sitesift.methods.ibdf import PAPER_TAGS, IBDFCleaner, IBDFParams, ibdf
from sitesift.model_io import load_model, save_model
from tests.conftest import page

NAV = "<ul><li>home</li><li>news</li><li>weather</li><li>sport</li></ul>"
RELATED = "<p>related lorem ipsum dolor</p>"
# 11 pages: the menu on all 11, a related box on pages 0 and 1, a paragraph of its own on
# each (words no other page has).
SITE = [f"<body>{NAV}<p>{c * 3} {c * 2}x</p>{RELATED if i < 2 else ''}</body>"
        for i, c in enumerate("abcdefghijk")]


def test_ibdf_on_the_hand_site() -> None:
    # IBDF = log(N / |S|) / log N with N = 11: menu |S| = 11 -> 0, related |S| = 2 ->
    # log 5.5 / log 11 = 0.7109, own paragraph |S| = 1 -> 1.
    assert ibdf(11, 11) == 0.0
    assert ibdf(2, 11) == pytest.approx(0.71093, abs=1e-5)
    assert ibdf(2, 11) == pytest.approx(math.log(5.5) / math.log(11))
    assert ibdf(1, 11) == 1.0
    # content iff |S| <= N^0.3 at the default threshold 0.7: 2 pages of 11 pass, of 10 not
    assert ibdf(2, 10) < 0.7 <= ibdf(2, 11)


def _fit(**settings: object) -> IBDFCleaner:
    return IBDFCleaner(**settings).fit([page(h, f"p{i}") for i, h in enumerate(SITE)])


def test_default_keeps_a_block_on_two_of_eleven_pages() -> None:
    result = _fit().clean(page(SITE[0]))
    assert result.text == "aaa aax\nrelated lorem ipsum dolor"
    related = next(b for b in result.blocks if b.text.startswith("related"))
    assert "IBDF 0.711 (on 2 of 11 pages) >= 0.7" in related.reason


def test_paper_keeps_only_blocks_unique_to_one_page() -> None:
    model = _fit(preset="paper")
    result = model.clean(page(SITE[0]))
    assert result.text == "aaa aax"
    related = next(b for b in result.blocks if b.text.startswith("related"))
    assert related.label == "noise" and "IBDF 0.711 (on 2 of 11 pages) < 1" in related.reason
    menu = next(b for b in result.blocks if b.text.startswith("home"))
    assert menu.label == "noise" and "IBDF 0.000 (on 11 of 11 pages)" in menu.reason
    own = next(b for b in result.blocks if b.text == "aaa aax")
    assert "IBDF 1.000 (on 1 of 11 pages) >= 1" in own.reason
    # a page outside the fit with the related box: on 3 of 12 pages, redundant
    unseen = model.clean(page(f"<body>{NAV}<p>zzz zzx</p>{RELATED}</body>"))
    assert unseen.text == "zzz zzx"


def test_paper_preset_sets_every_paper_choice_and_explicit_settings_win(
        tmp_path: Path) -> None:
    paper = get_cleaner("ibdf", preset="paper").get_params()
    assert {k: paper[k] for k in ("tags", "threshold", "stop_words", "stemmer", "images",
                                  "links", "preset")} == {
        "tags": PAPER_TAGS, "threshold": 1.0, "stop_words": False, "stemmer": None,
        "images": True, "links": False, "preset": "paper"}
    mixed = IBDFCleaner(preset="paper", threshold=0.7).params
    assert (mixed.threshold, mixed.tags, mixed.preset) == (0.7, PAPER_TAGS, "paper")
    assert IBDFParams.from_preset("default") == IBDFParams()
    with pytest.raises(ValueError, match="preset must be one of default, paper"):
        IBDFCleaner(preset="faithful")
    model = _fit(preset="paper")
    loaded = load_model(save_model(model, tmp_path / "site.ibdf.json"))
    assert loaded.get_params() == model.get_params()
    assert loaded.clean(page(SITE[1])).text == "bbb bbx"


LINKED = ('<body><p>Elections <a href="/vote/2024">results</a> tonight '
          '<img src="/img/ballot-7.png"></p></body>')


@pytest.mark.parametrize(
    ("settings", "vector"),
    [({"preset": "paper"}, {"elections", "results", "tonight", "img:/img/ballot-#.png"}),
     ({}, {"elections", "results", "tonight", "img:/img/ballot-#.png"}),
     ({"preset": "paper", "stemmer": "english", "links": True},
      {"elect", "result", "tonight", "img:/img/ballot-#.png", "a:/vote/#"}),
     ({"images": False, "links": True, "stemmer": "english"},
      {"elect", "result", "tonight", "a:/vote/#"})],
    ids=["paper", "default", "paper-with-ours", "links-no-images"],
)
def test_paper_vectors_hold_the_words_as_written_and_images_but_no_link_targets(
        settings: dict[str, object], vector: set[str]) -> None:
    model = _fit(**settings)
    leaves = [leaf for leaf, *_ in model.judge(page(LINKED))[1]]
    assert [set(model._vector(leaf)) for leaf in leaves] == [vector]


def test_a_model_saved_before_the_feature_switches_keeps_its_vectors() -> None:
    # A file written before issue 52 has no `stemmer` nor `images`; its `links` switched
    # image sources and link targets together, and its terms were stemmed.
    for links in (True, False):
        model = _fit(links=links, images=links, stemmer="english")
        params = model.get_params()
        del params["stemmer"], params["images"]
        loaded = IBDFCleaner.from_state(params, model.to_state())
        assert (loaded.params.stemmer, loaded.params.images) == ("english", links)
        assert loaded.clean(page(SITE[1])).to_dict() == model.clean(page(SITE[1])).to_dict()
