"""The SST's paper preset (issue 33) and its per-site threshold ("auto"), on toy sites."""

from __future__ import annotations

import pytest

from sitesift.dom import DomNode
from sitesift.methods.base import get_cleaner
from sitesift.methods.sst import SiteStyleTree
from sitesift.methods.sst.importance import otsu_threshold
from sitesift.methods.sst.tree import EMPTY, ElementNode, paper_key
from tests.conftest import page
from tests.methods.test_sst import TOY


def _node(comp_imp: float, pages: int, label: str = "possible") -> ElementNode:
    node = ElementNode("div")
    node.comp_imp, node.pages, node.label = comp_imp, pages, label
    return node


def test_otsu_threshold_hand_computed() -> None:
    # importances 0 (x3 pages), 0.5 (x3), 1 (x4); empty nodes do not count.
    # Split after 0:   w0 3, mu0 0,   w1 7, mu1 (1.5 + 4) / 7     -> 3*7*(5.5/7)^2   = 12.96
    # Split after 0.5: w0 6, mu0 .25, w1 4, mu1 1                 -> 6*4*(0.75)^2    = 13.5
    nodes = [_node(0.0, 3), _node(0.5, 3), _node(1.0, 1), _node(1.0, 3),
             _node(0.2, 9, EMPTY)]
    assert otsu_threshold(nodes) == pytest.approx(0.75)
    assert otsu_threshold([_node(0.3, 2), _node(0.3, 5)]) is None  # one value: no split


def test_auto_threshold_on_the_toy_site() -> None:
    # The toy site's non-empty element nodes (CompImp, pages): nav (0, 3), root (0.504, 3),
    # body (0.560, 3), the mains and the ad (1, 2 + 1 + 1). Between-class variances:
    # after 0: 3*10*(0.719)^2 = 15.52; after 0.504: 6*7*(0.560)^2 = 13.15; after 0.560:
    # 9*4*(0.645)^2 = 14.99. So t = (0 + 0.504) / 2.
    sst = get_cleaner("sst", threshold="auto", align_unmatched=None)
    assert isinstance(sst, SiteStyleTree)
    sst.fit([page(h, f"p{i}") for i, h in enumerate(TOY)])
    assert sst.tree_ is not None
    assert sst.threshold_ == pytest.approx(0.9 * 0.560082 / 2, abs=1e-5)
    new = page('<body><div class="nav">home news</div>'
               '<div class="main"><p>zeta</p><p>eta</p></div></body>')
    assert sst.clean(new).text.split() == ["zeta", "eta"]
    state = sst.to_state()
    again = SiteStyleTree.from_state(sst.get_params(), state)
    assert again.threshold_ == pytest.approx(sst.threshold_)


def test_auto_threshold_follows_the_site() -> None:
    # 8 pages; a sidebar shows one of 4 words, each on 2 pages: H = log_8 2 = 1/3 for each,
    # so CompImp(side) = 2/3, above the fixed 0.6, and the sidebar stays. The main text is
    # unique (CompImp 1); body (one style) = 0.9 * (2/3 + 1) / 2 = 0.75, root = 0.675.
    # Otsu over (2/3, 0.675, 0.75, 1; 8 pages each): after 2/3: 8*24*(0.142)^2 = 3.85;
    # after 0.675: 16*16*(0.204)^2 = 10.7; after 0.75: 24*8*(0.303)^2 = 17.6, so
    # t = (0.75 + 1) / 2 = 0.875 and the sidebar goes with the template.
    pages = [
        f'<body><div class="side">{"abcd"[i % 4]}side</div>'
        f'<div class="main"><p>story{i} words{i}</p></div></body>'
        for i in range(8)
    ]
    fixed = get_cleaner("sst", align_unmatched=None).fit([page(h) for h in pages])
    auto = get_cleaner("sst", align_unmatched=None, threshold="auto").fit(
        [page(h) for h in pages])
    assert isinstance(auto, SiteStyleTree)
    assert auto.threshold_ == pytest.approx(0.875)
    new = page('<body><div class="side">aside</div>'
               '<div class="main"><p>fresh text</p></div></body>')
    assert fixed.clean(new).text.split() == ["aside", "fresh", "text"]
    assert auto.clean(new).text.split() == ["fresh", "text"]


def test_paper_key_is_tag_and_display_attributes() -> None:
    body = DomNode("body", {"class": "single postid-9", "bgcolor": "white"}, 0, None)
    cell = DomNode("td", {"width": "120", "id": "c7", "style": "color:red"}, 1, body)
    bare = DomNode("p", None, 2, body)
    assert paper_key(body) == "body|bgcolor=white"  # body keeps its attributes
    assert paper_key(cell) == "td|width=120"          # no id/style, no digit folding
    assert paper_key(bare) == "p"
    assert body.key == "body"  # ours: the bare tag


def test_paper_preset_sets_the_paper_rules_and_explicit_values_win() -> None:
    paper = get_cleaner("sst", preset="paper")
    assert isinstance(paper, SiteStyleTree)
    p = paper.params
    assert (p.align_unmatched, p.style_key, p.cf_instances, p.merge_candidates) == (
        None, "paper", None, None)
    assert p.threshold == 0.6
    mixed = get_cleaner("sst", preset="paper", align_unmatched=0.5, threshold="auto")
    assert isinstance(mixed, SiteStyleTree)
    assert mixed.params.align_unmatched == 0.5 and mixed.params.style_key == "paper"
    assert mixed.params.threshold == "auto"
    default = get_cleaner("sst")
    assert isinstance(default, SiteStyleTree)
    assert default.params.style_key == "ours" and default.params.cf_instances == 16


def test_paper_preset_cleans_a_table_site() -> None:
    pages = [
        '<body bgcolor="white"><table width="100%"><tr><td bgcolor="red">home news</td>'
        f'<td width="600">story {i} text{i}</td></tr></table></body>'
        for i in range(5)
    ]
    sst = get_cleaner("sst", preset="paper").fit([page(h) for h in pages])
    new = page('<body bgcolor="white"><table width="100%"><tr><td bgcolor="red">home news'
               '</td><td width="600">fresh story</td></tr></table></body>')
    assert sst.clean(new).text.split() == ["fresh", "story"]


@pytest.mark.parametrize("bad", [{"threshold": "high"}, {"preset": "exact"},
                                 {"style_key": "css"}, {"cf_instances": 0}])
def test_bad_paper_settings_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        get_cleaner("sst", **bad)


def test_featureless_nodes_are_left_out_of_compimp_in_the_paper_preset_too() -> None:
    # docs/paper-modes.md: an element node without any feature on any page is empty, out
    # of its style node's mean CompImp, neither noisy nor meaningful, and kept (ours, the
    # paper's leaf formula has no value for it), in every mode.
    site = [f'<body><div class="nav">home news</div><div class="main"><p>{w}</p></div>'
            '<div class="gap"><span></span></div></body>' for w in ("alpha", "beta", "gamma")]
    sst = get_cleaner("sst", preset="paper")
    assert isinstance(sst, SiteStyleTree)
    sst.fit([page(h, f"p{i}") for i, h in enumerate(site)])
    assert sst.tree_ is not None
    (top,) = sst.tree_.styles.values()
    body = top.elements[0]
    (style,) = body.styles.values()
    nav, main, gap = style.elements
    assert gap.label == EMPTY and nav.label != EMPTY and main.label != EMPTY
    assert style.comp_imp == (nav.comp_imp + main.comp_imp) / 2  # gap not in the mean
    verdicts = sst.score(page(site[0]))
    assert any("SST empty node" in v.reason for v in verdicts.values())
