"""InfoDiscoverer's paper preset: a three-page site of tables with its feature entropies,
block entropies and greedy threshold worked out by hand (Lin & Ho, as seed 001 has it)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sitesift.methods.infodiscoverer import (
    PAPER_LEVELS,
    InfoDiscoverer,
    InfoDiscovererParams,
    _block_entropies,
)
from sitesift.methods.shared.blocks import Keywords
from sitesift.model_io import load_model, save_model
from tests.conftest import page
from tests.methods.paper_presets import check_preset_contract


def _site_page(nav: str, main: str) -> str:
    return (f"<body><table><tr><td>{nav}</td></tr></table>"
            f"<table><tr><td>{main}</td></tr></table></body>")


# Porter stems: home, news -> new, sport, apples -> appl, pear, plum, kiwi.
SITE = [
    _site_page("home news", "apples apples pear"),
    _site_page("home news", "apples plum"),
    _site_page("home sport", "kiwi"),
]
LN3 = math.log(3)
# H(F) = -sum_j p_j log_3 p_j over the term frequencies on the three pages
FEATURES = {
    "home": 1.0,                                             # 1, 1, 1: even
    "new": math.log(2) / LN3,                                # 1, 1, 0: 0.6309
    "appl": -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / LN3,  # 2, 1, 0: 0.5794
    "sport": 0.0, "pear": 0.0, "plum": 0.0, "kiwi": 0.0,    # one page each
}
# H(CB) = the mean of the block's feature entropies: (nav, main, whole page) per page
BLOCKS = [
    ((1 + FEATURES["new"]) / 2, FEATURES["appl"] / 2,
     (1 + FEATURES["new"] + FEATURES["appl"]) / 4),          # 0.8155, 0.2897, 0.5526
    ((1 + FEATURES["new"]) / 2, FEATURES["appl"] / 2,
     (1 + FEATURES["new"] + FEATURES["appl"]) / 4),
    (0.5, 0.0, 1 / 3),
]


@pytest.fixture
def paper() -> InfoDiscoverer:
    return InfoDiscoverer(preset="paper").fit([page(h, f"p{i}") for i, h in enumerate(SITE)])


def test_paper_feature_entropy_by_hand(paper: InfoDiscoverer) -> None:
    assert FEATURES["appl"] == pytest.approx(0.579380, abs=1e-6)
    assert FEATURES["new"] == pytest.approx(0.630930, abs=1e-6)
    got: dict[str, float] = {}
    for i, html in enumerate(SITE):
        doc = page(html, f"p{i}")
        got.update(paper.page_entropy(doc, paper._tree(doc)))
    assert got == pytest.approx(FEATURES)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_paper_block_entropy_by_hand(paper: InfoDiscoverer, index: int) -> None:
    doc = page(SITE[index], f"p{index}")
    tree = paper._tree(doc)
    ent = _block_entropies(tree, paper.page_entropy(doc, tree))
    nav, main = tree.children  # <TABLE> alone: the two tables, nothing finer
    assert (ent[id(nav)], ent[id(main)], ent[id(tree)]) == pytest.approx(BLOCKS[index])
    assert nav.tag == main.tag == "table" and not nav.children and not main.children


def test_paper_threshold_curve_by_hand(paper: InfoDiscoverer) -> None:
    # H0 0.1, 0.2: page 3's body (1/3) is redundant with its kiwi table (0) below: {kiwi}.
    # 0.3, 0.4: the pages 1 and 2 apple tables (0.29) join: appl, pear, plum.
    # 0.5-0.8: page 3 whole (1/3, nothing below above 0.5): home, sport.
    # 0.9, 1.0: pages 1 and 2 whole (0.55, nothing below above 0.82): new.
    assert paper.curve_ == [1, 1, 4, 4, 6, 6, 6, 6, 7, 7]
    # The paper's search stops at the first step that adds no feature.
    assert paper.threshold_ == 0.1
    assert paper.clean(page(SITE[2])).text == "kiwi"


def test_paper_preset_sets_every_paper_choice() -> None:
    check_preset_contract(
        "infodiscoverer", InfoDiscovererParams,
        {"levels": PAPER_LEVELS, "stemmer": "porter", "plateau": 0.0, "weighting": "tf"},
        {"plateau": 0.04}, {"stemmer": "lancaster"})


def test_paper_model_file_keeps_the_preset(paper: InfoDiscoverer, tmp_path: Path) -> None:
    loaded = load_model(save_model(paper, tmp_path / "site.infodiscoverer.json"))
    assert loaded.get_params() == paper.get_params()
    assert loaded.clean(page(SITE[0])).to_dict() == paper.clean(page(SITE[0])).to_dict()


def test_porter_stems_unlike_porter2() -> None:
    words = "news generously fairly"
    assert Keywords(stemmer="porter")(words) == ["new", "gener", "fairli"]
    assert Keywords()(words) == ["news", "generous", "fair"]
