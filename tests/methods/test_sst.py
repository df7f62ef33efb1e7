"""The Site Style Tree on a hand-built three-page site, with importances computed by hand."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from sitesift.methods.base import get_cleaner
from sitesift.methods.sst import SiteStyleTree
from sitesift.methods.sst.importance import leaf_importance, node_importance
from sitesift.methods.sst.tree import MEANINGFUL, NOISY, POSSIBLE, ElementNode
from sitesift.output import Output, finish
from tests.conftest import page

TOY = [
    '<body><div class="nav">home news</div>'
    '<div class="main"><p>alpha</p><p>beta</p></div></body>',
    '<body><div class="nav">home news</div>'
    '<div class="main"><p>gamma</p><p>delta</p></div></body>',
    '<body><div class="nav">home news</div>'
    '<div class="main"><p>epsilon</p></div><div class="ad">buy now</div></body>',
]


@pytest.fixture
def toy() -> SiteStyleTree:
    # the paper's algorithm exactly: without our alignment extension
    sst = get_cleaner("sst", threshold=0.3, align_unmatched=None)
    assert isinstance(sst, SiteStyleTree)
    return sst.fit([page(h, f"p{i}") for i, h in enumerate(TOY)])


def _body(sst: SiteStyleTree) -> ElementNode:
    assert sst.tree_ is not None
    (style,) = sst.tree_.styles.values()
    return style.elements[0]


def test_tree_shape_and_merging(toy: SiteStyleTree) -> None:
    body = _body(toy)
    assert body.pages == 3
    counts = sorted(s.count for s in body.styles.values())
    assert counts == [1, 2]
    # The nav of page 3 (new style node) was merged with the nav of pages 1-2: same tag,
    # attributes and contents. The two different main contents were not merged.
    navs = {id(s.elements[0]) for s in body.styles.values()}
    mains = {id(s.elements[1]) for s in body.styles.values()}
    assert len(navs) == 1 and len(mains) == 2


def test_importances_match_hand_computation(toy: SiteStyleTree) -> None:
    assert toy.tree_ is not None
    body = _body(toy)
    # NodeImp(body) = -(2/3 log_3 2/3 + 1/3 log_3 1/3)
    expected_node = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / math.log(3)
    assert body.node_imp == pytest.approx(expected_node)
    assert expected_node == pytest.approx(0.579380, abs=1e-6)
    s1 = next(s for s in body.styles.values() if s.count == 2)
    s2 = next(s for s in body.styles.values() if s.count == 1)
    nav, main1 = s1.elements
    assert nav.comp_imp == pytest.approx(0.0)   # same words on every page: H = 1
    assert main1.comp_imp == pytest.approx(1.0)  # every word on one page only: H = 0
    assert s1.comp_imp == pytest.approx(0.5)
    assert s2.comp_imp == pytest.approx(2 / 3)
    # CompImp(body) = (1 - 0.9^2) NodeImp + 0.9^2 (2/3 * 0.5 + 1/3 * 2/3)
    expected_body = 0.19 * expected_node + 0.81 * (2 / 3 * 0.5 + 1 / 3 * 2 / 3)
    assert body.comp_imp == pytest.approx(expected_body)
    assert body.comp_imp == pytest.approx(0.560082, abs=1e-6)
    # the virtual root has one style: NodeImp 0, CompImp = 0.9 * CompImp(body)
    assert toy.tree_.node_imp == pytest.approx(0.0)
    assert toy.tree_.comp_imp == pytest.approx(0.9 * expected_body)


def test_marks(toy: SiteStyleTree) -> None:
    body = _body(toy)
    s1 = next(s for s in body.styles.values() if s.count == 2)
    s2 = next(s for s in body.styles.values() if s.count == 1)
    assert s1.elements[0].label == NOISY
    assert s1.elements[1].label == MEANINGFUL
    assert s2.elements[2].label == MEANINGFUL  # the ad: seen on one page only, kept
    assert body.label == POSSIBLE


def test_leaf_entropy_formula() -> None:
    leaf = [Counter({"copyright": 1, "2001": 1}), Counter({"copyright": 1, "2002": 1}),
            Counter({"copyright": 1, "2003": 1})]
    assert leaf_importance(leaf) == pytest.approx(1 - (1 + 0 + 0 + 0) / 4)
    skewed = [Counter({"x": 2}), Counter({"x": 1})]
    h = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert leaf_importance(skewed) == pytest.approx(1 - h)
    assert leaf_importance([Counter({"x": 5})]) == 1.0  # m = 1
    assert leaf_importance([Counter(), Counter()]) is None  # no features: empty


def test_node_importance_single_page_and_single_style() -> None:
    assert node_importance([1], 1) == 1.0
    assert node_importance([5], 5) == 0.0
    assert node_importance([1, 1, 1, 1], 4) == pytest.approx(1.0)


def test_clean_new_page_of_the_site(toy: SiteStyleTree) -> None:
    new = page('<body><div class="nav">home news</div>'
               '<div class="main"><p>zeta</p><p>eta</p></div></body>')
    result = toy.clean(new)
    assert result.text.split() == ["zeta", "eta"]
    removed = [b for b in result.blocks if b.label == "noise"]
    assert [b.text for b in removed] == ["home news"]
    assert "noisy" in removed[0].reason


def test_unseen_layout_is_kept() -> None:
    toy = get_cleaner("sst").fit([page(h) for h in TOY])  # with our alignment (default)
    new = page('<body><div class="nav">home news</div><div class="main"><p>zeta</p></div>'
               '<div class="brand-new">never seen before</div></body>')
    assert toy.clean(new).text.split() == ["zeta", "never", "seen", "before"]
    other = page("<body><section><h1>Other</h1><p>layout entirely</p></section></body>")
    assert toy.clean(other).text.split() == ["Other", "layout", "entirely"]


def test_paper_rule_without_alignment_keeps_unmatched_node_whole() -> None:
    sst = get_cleaner("sst", align_unmatched=None).fit([page(h) for h in TOY])
    new = page('<body><div class="nav">home news</div><div class="main"><p>zeta</p></div>'
               '<div class="brand-new">x</div></body>')
    assert sst.clean(new).text.split() == ["home", "news", "zeta", "x"]


def test_locally_noisy_block_removed_inside_meaningful_node() -> None:
    pages = [
        page(f'<body><div class="story"><p>{words}</p><p>Share this story</p></div></body>')
        for words in ("one two", "three four", "five six", "seven eight")
    ]
    sst = get_cleaner("sst").fit(pages)
    result = sst.clean(pages[0])
    assert result.text == "one two"
    assert any(b.reason.startswith("SST locally noisy") for b in result.blocks)
    # the structure renderer, which reads node verdicts, leaves the block out too
    finished = finish(sst.clean(pages[1]), pages[1], Output(renderings=("markdown",)))
    assert finished.structured["markdown"] == "three four"


def test_sampling_is_seeded() -> None:
    pages = [page(f"<body><p>page {i} {'x' * (i % 3)}</p><div>{i}</div></body>") for i in range(30)]
    a = get_cleaner("sst", sample_size=10, seed=1).fit(pages).to_state()
    b = get_cleaner("sst", sample_size=10, seed=1).fit(pages).to_state()
    assert a == b and a["n_pages"] == 10


def test_unfitted_raises() -> None:
    from sitesift.errors import NotFittedError

    with pytest.raises(NotFittedError):
        get_cleaner("sst").clean(page("<p>x</p>"))


@pytest.mark.parametrize("bad", [{"threshold": 1.5}, {"gamma": -0.1}, {"sample_size": 0},
                                 {"gamma": "x"}, {"merge_similarity": True}])
def test_bad_parameters_rejected(bad: dict[str, object]) -> None:
    # refused with a message naming the setting (a string or a bool is no number here)
    with pytest.raises(ValueError, match=f"sst: {next(iter(bad))}"):
        get_cleaner("sst", **bad)


def test_alignment_extension_pools_a_shifted_sequence_at_fit_time() -> None:
    # page 3 has an extra banner first: its body sequence is new, but the aligned nav and
    # main are the same element nodes as on pages 1-2, so the nav is evidence-backed noise
    pages = [page(h) for h in TOY[:2]] + [page(
        '<body><div class="banner">sale</div><div class="nav">home news</div>'
        '<div class="main"><p>omega</p></div></body>')]
    sst = get_cleaner("sst", threshold=0.3).fit(pages)
    body = _body(sst)
    navs = {id(s.elements[-2 if len(s.elements) == 3 else 0]) for s in body.styles.values()}
    mains = {id(s.elements[-1]) for s in body.styles.values()}
    assert len(navs) == 1 and len(mains) == 1
    assert sst.clean(pages[2]).text.split() == ["sale", "omega"]


def test_page_specific_body_classes_do_not_hide_the_template() -> None:
    # CMSs put the section in <body class>: a page of a section the fit never saw still
    # maps onto the site's tree
    sections = ["news", "sport", "arts", "news"]
    pages = [page(f'<body class="section-{s}"><div class="nav">home news</div>'
                  f'<div class="main"><p>story {w}</p></div></body>')
             for s, w in zip(sections, ["alpha beta", "gamma delta", "eps zeta", "eta theta"],
                             strict=True)]
    sst = get_cleaner("sst").fit(pages[:3])
    new = page('<body class="section-weather"><div class="nav">home news</div>'
               '<div class="main"><p>rain tomorrow</p></div></body>')
    assert sst.clean(new).text.split() == ["rain", "tomorrow"]
