"""CST `preset=paper`: the paper's two entropies multiplied, on a hand-computed site."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sitesift.methods.base import get_cleaner
from sitesift.methods.cst import CompressedStructureTree, CSTParams
from sitesift.model_io import load_model, save_model
from sitesift.page import Page

# div.main: style (p, p) on two of its three pages, (p) on one: NodeImp by hand.
H_2_1 = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / math.log(3)

# class is no display attribute: under the paper's key both divs are `div`, told apart by
# position; body's style (div, div) is the same on all three pages (NodeImp 0).
SITE = [
    '<body><div class="nav"><a href="/">home</a></div>'
    '<div class="main"><p>alpha beta</p><p>gamma</p></div></body>',
    '<body><div class="nav"><a href="/">home</a></div>'
    '<div class="main"><p>alpha delta</p><p>epsilon</p></div></body>',
    '<body><div class="nav"><a href="/">home</a></div>'
    '<div class="main"><p>zeta</p></div></body>',
]


def _pages() -> list[Page]:
    return [Page.from_html(h, id=f"p{i}") for i, h in enumerate(SITE)]


def _weights(cst: CompressedStructureTree, index: int) -> list[tuple[str, float]]:
    return [pair for leaf in cst.leaf_weights(_pages()[index]) for pair in leaf.words]


def test_the_preset_sets_the_paper_switches_and_explicit_fields_win() -> None:
    cst = CompressedStructureTree(preset="paper")
    assert (cst.params.weighting, cst.params.style_key) == ("paper", "paper")
    assert CSTParams.from_preset("paper", weighting="ours").weighting == "ours"
    assert get_cleaner("cst", preset="paper").params.preset == "paper"
    with pytest.raises(ValueError, match="preset must be one of default, paper"):
        CSTParams(preset="book")
    with pytest.raises(ValueError, match="weighting must be one of"):
        CSTParams(weighting="sum")


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        # home: in every nav instance (H = 1, content 0); alpha: one occurrence in each
        # of the two instances of the first p (H = 1); beta, gamma: one instance (H = 0),
        # times NodeImp(div.main) = H_2_1.
        (0, [("home", 0.0), ("alpha", 0.0), ("beta", H_2_1), ("gamma", H_2_1)]),
        # zeta: below a style of one page (content 1), its parent still div.main.
        (2, [("home", 0.0), ("zeta", H_2_1)]),
    ],
    ids=["two-paragraph-page", "one-paragraph-page"],
)
def test_paper_weight_is_content_times_the_parents_style_entropy(
        index: int, expected: list[tuple[str, float]]) -> None:
    assert round(H_2_1, 5) == 0.57938
    cst = CompressedStructureTree(preset="paper").fit(_pages())
    got = _weights(cst, index)
    assert [w for w, _ in got] == [w for w, _ in expected]
    assert [v for _, v in got] == pytest.approx([v for _, v in expected], abs=1e-6)
    # ours on the same words: (1 + H_2_1) / 2 for a content-1 word
    ours = dict(_weights(CompressedStructureTree(style_key="paper").fit(_pages()), index))
    assert ours["zeta" if index == 2 else "beta"] == pytest.approx((1 + H_2_1) / 2, abs=1e-6)


def test_paper_key_reads_display_attributes_only() -> None:
    cst = CompressedStructureTree(preset="paper").fit(_pages())
    assert cst.tree_ is not None
    (body,) = cst.tree_.styles[("body",)]
    assert list(body.styles) == [("div", "div")]
    assert body.node_imp == 0.0


def test_paper_structure_is_the_parent_alone_not_attenuated() -> None:
    # div.box has one style everywhere (NodeImp 0): its word weighs 0 under the paper's
    # product, whatever its grandparent div.main (H_2_1) does; ours would take
    # gamma * H_2_1 from two levels up.
    box = '<div class="box"><p>{}</p></div>'
    htmls = [f'<body><div class="main">{box.format("one")}<p>x one</p></div></body>',
             f'<body><div class="main">{box.format("two")}</div></body>',
             f'<body><div class="main">{box.format("three")}<p>x three</p></div></body>']
    pages = [Page.from_html(h, id=f"b{i}") for i, h in enumerate(htmls)]
    cst = CompressedStructureTree(weighting="paper").fit(pages)
    leaves = list(cst.leaf_weights(pages[0]))
    assert [leaf.structure for leaf in leaves] == pytest.approx([0.0, H_2_1], abs=1e-6)
    words = [pair for leaf in leaves for pair in leaf.words]
    assert [w for w, _ in words] == ["one", "x", "one"]
    assert [v for _, v in words] == pytest.approx([0.0, 0.0, H_2_1], abs=1e-6)


def test_paper_mode_saves_and_loads(tmp_path: Path) -> None:
    cst = CompressedStructureTree(preset="paper").fit(_pages())
    path = tmp_path / "cst.json"
    save_model(cst, path)
    loaded = load_model(path)
    assert isinstance(loaded, CompressedStructureTree)
    assert loaded.params == cst.params
    assert _weights(loaded, 2) == _weights(cst, 2)


def test_a_model_saved_before_the_style_key_switch_keeps_our_key() -> None:
    # its tree's element nodes were keyed with class and id: read as the paper's key, the
    # two divs of SITE would be one node and the page's weights would change
    old = CompressedStructureTree(style_key="ours").fit(_pages())
    params = old.get_params()
    del params["style_key"]
    loaded = CompressedStructureTree.from_state(params, old.to_state())
    assert loaded.params.style_key == "ours"
    page = Page.from_html(SITE[0])
    assert loaded.clean(page).to_dict() == old.clean(Page.from_html(SITE[0])).to_dict()
    assert CSTParams().style_key == "paper"
