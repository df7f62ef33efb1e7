"""Compressed structure tree feature weighting on hand-built sites, weights by hand."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sitesift.errors import ModelError
from sitesift.methods.base import get_cleaner
from sitesift.methods.cst import CompressedStructureTree
from sitesift.methods.cst.tree import CSTNode, content_weights
from sitesift.model_io import load_model, save_model
from sitesift.page import Page

# NodeImp of a node whose 3 tag nodes use one style twice and another once.
H_2_1 = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / math.log(3)
# A word of content weight 1 under a parent of NodeImp H_2_1 weighs (1 + H_2_1) / 2.
W = (1 + H_2_1) / 2

NAV = '<div class="nav"><a href="/">home</a><a href="/n">news</a></div>'
SITE = [
    f'<body>{NAV}<div class="main"><p>alpha beta</p><p>gamma</p></div></body>',
    f'<body>{NAV}<div class="main"><p>alpha delta</p><p>epsilon</p></div></body>',
    f'<body>{NAV}<div class="main"><p>zeta</p></div></body>',
]


def _pages(htmls: list[str]) -> list[Page]:
    return [Page.from_html(h, id=f"p{i}") for i, h in enumerate(htmls)]


@pytest.fixture
def model() -> CompressedStructureTree:
    # our style key (class and id told apart), whose tree these tests read node by node;
    # the paper's key, the default, is pinned in test_cst_paper.py
    cst = get_cleaner("cst", style_key="ours")
    assert isinstance(cst, CompressedStructureTree)
    return cst.fit(_pages(SITE))


def _child(node: CSTNode, *keys: str) -> list[CSTNode]:
    return node.styles[tuple(keys)]


def test_tree_and_style_entropy(model: CompressedStructureTree) -> None:
    assert model.tree_ is not None
    (body,) = _child(model.tree_, "body")
    assert (body.pages, body.node_imp) == (3, 0.0)  # one style on all three pages
    nav, main = _child(body, "div|class=nav", "div|class=main")
    assert (nav.pages, nav.node_imp) == (3, 0.0)
    # div.main: style (p, p) on two pages, (p) on one
    assert main.pages == 3
    assert main.node_imp == pytest.approx(H_2_1, abs=1e-6)
    assert round(H_2_1, 6) == 0.57938
    # The single-page style (p) is not kept: below it every weight is 1 anyway.
    assert list(main.styles) == [("p", "p")]
    first, second = main.styles[("p", "p")]
    # 'alpha' once in each of the 2 instances: H = 1, weight 0; the rest occur once: 1.
    assert first.words == {"alpha": 0.0}
    assert second.words == {}
    home, news = _child(nav, "a", "a")
    assert home.words == {"home": 0.0} and news.words == {"news": 0.0}


@pytest.mark.parametrize(
    ("instances", "expected"),
    [
        ([Counter(a=1, b=1), Counter(a=1, c=2)], {"a": 0.0}),
        ([Counter(a=2), Counter(a=1), Counter()], {"a": 1 - H_2_1}),
        ([Counter(a=1, b=1)], {}),
        ([Counter(a=3), Counter(a=3)], {"a": 0.0}),
    ],
    ids=["shared-word", "two-to-one-of-three", "single-instance", "same-count"],
)
def test_content_weights(instances: list[Counter[str]], expected: dict[str, float]) -> None:
    got = content_weights(instances)
    assert got.keys() == expected.keys()
    for word, weight in expected.items():
        assert got[word] == pytest.approx(weight, abs=1e-6)


@pytest.mark.parametrize(
    ("page_index", "expected"),
    [
        (0, [("home", 0.0), ("news", 0.0), ("alpha", 0.0), ("beta", W), ("gamma", W)]),
        (2, [("home", 0.0), ("news", 0.0), ("zeta", W)]),  # zeta: a style of one page
    ],
    ids=["two-paragraph-page", "one-paragraph-page"],
)
def test_word_weights_by_hand(model: CompressedStructureTree, page_index: int,
                              expected: list[tuple[str, float]]) -> None:
    page = _pages(SITE)[page_index]  # a new Page object: nids differ from the fitted ones
    got = [pair for leaf in model.leaf_weights(page) for pair in leaf.words]
    assert [w for w, _ in got] == [w for w, _ in expected]
    assert [v for _, v in got] == pytest.approx([v for _, v in expected], abs=1e-6)


@pytest.mark.parametrize(("gamma", "expected"), [(0.5, 0.5 * H_2_1), (1.0, H_2_1),
                                                 (0.0, 0.0)],
                         ids=["half", "none", "parent-only"])
def test_structure_is_attenuated_by_distance(gamma: float, expected: float) -> None:
    # div.box has one style everywhere (NodeImp 0); its parent div.main varies (H_2_1).
    box = '<div class="box"><p>{}</p></div>'
    htmls = [f'<body><div class="main">{box.format("one")}<p>x one</p></div></body>',
             f'<body><div class="main">{box.format("two")}</div></body>',
             f'<body><div class="main">{box.format("three")}<p>x three</p></div></body>']
    cst = CompressedStructureTree(gamma=gamma).fit(_pages(htmls))
    leaves = list(cst.leaf_weights(_pages(htmls)[0]))
    assert [leaf.node.text() for leaf in leaves] == ["one", "x one"]
    assert leaves[0].structure == pytest.approx(expected, abs=1e-6)  # two levels up
    assert leaves[1].structure == pytest.approx(H_2_1, abs=1e-6)      # its parent


@pytest.mark.parametrize(
    ("threshold", "text"),
    [(0.3, "alpha beta\ngamma"), (0.5, "gamma"), (0.0, "home\nnews\nalpha beta\ngamma")],
    ids=["both-paragraphs", "second-paragraph", "everything"],
)
def test_clean_thresholds_the_mean_block_weight(threshold: float, text: str) -> None:
    # Mean weights: nav links 0, "alpha beta" (0 + W) / 2 = 0.39, "gamma" W = 0.79.
    cst = CompressedStructureTree(threshold=threshold).fit(_pages(SITE))
    result = cst.clean(_pages(SITE)[0])
    assert result.text == text
    assert result.blocks[2].reason == f"CST block weight {W / 2:.2f} (structure {H_2_1:.2f})"


def test_feature_vectors_shape_and_values(model: CompressedStructureTree) -> None:
    from scipy.sparse import csr_matrix

    matrix, words = model.feature_vectors(_pages(SITE))
    assert isinstance(matrix, csr_matrix)
    assert words == ["alpha", "beta", "delta", "epsilon", "gamma", "home", "news", "zeta"]
    assert matrix.shape == (3, 8)
    dense = matrix.toarray()
    h = W
    expected = [[0, h, 0, 0, h, 0, 0, 0],
                [0, 0, h, h, 0, 0, 0, 0],
                [0, 0, 0, 0, 0, 0, 0, h]]
    assert dense == pytest.approx(np.asarray(expected), abs=1e-6)
    assert matrix.nnz == 5  # zero weights are not stored


def test_feature_vectors_with_a_fixed_vocabulary_line_up(model: CompressedStructureTree
                                                         ) -> None:
    from sklearn.feature_extraction.text import TfidfTransformer

    matrix, words = model.feature_vectors(_pages(SITE[:1]), vocabulary=["zeta", "beta", "new"])
    assert words == ["zeta", "beta", "new"]
    assert matrix.toarray() == pytest.approx(np.asarray([[0.0, W, 0.0]]), abs=1e-6)
    assert TfidfTransformer().fit_transform(matrix).shape == (1, 3)  # scikit-learn takes it


def test_repeated_word_in_a_page_adds_its_weights() -> None:
    htmls = [f'<body><div class="m"><p>{t}</p>{extra}</div></body>'
             for t, extra in (("big big cat", "<p>x</p>"), ("dog", "<p>y</p>"), ("eel", ""))]
    cst = CompressedStructureTree().fit(_pages(htmls))
    matrix, words = cst.feature_vectors(_pages(htmls[:1]))
    assert matrix[0, words.index("big")] == pytest.approx(2 * W, abs=1e-6)


def test_save_load_weights_an_unseen_page_identically(tmp_path: Path,
                                                      model: CompressedStructureTree) -> None:
    path = save_model(model, tmp_path / "site.cst.json")
    loaded = load_model(path)
    assert isinstance(loaded, CompressedStructureTree)
    unseen = ('<body><div class="nav"><a href="/">home</a><a href="/n">news</a></div>'
              '<div class="main"><p>alpha omega</p><p>psi</p></div><div>brand new</div></body>')
    a, b = Page.from_html(unseen), Page.from_html(unseen)
    assert loaded.clean(a).to_dict() == model.clean(b).to_dict()
    va, wa = loaded.feature_vectors([Page.from_html(unseen)])
    vb, wb = model.feature_vectors([Page.from_html(unseen)])
    assert wa == wb and (va != vb).nnz == 0
    assert "brand new" in loaded.clean(Page.from_html(unseen)).text  # never seen: kept


def _state(model: CompressedStructureTree) -> tuple[dict[str, Any], dict[str, Any]]:
    return model.get_params(), model.to_state()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p, s: p.update(gamma=2), "gamma must be in"),
        (lambda p, s: p.update(depth=3), "unknown cst parameters"),
        (lambda p, s: s.update(n_pages="3"), "n_pages"),
        (lambda p, s: s.update(nodes=[]), "non-empty list"),
        (lambda p, s: s["nodes"][1].update(node_imp=1.5), "node_imp"),
        (lambda p, s: s["nodes"][1].update(key=""), "'key'"),
        (lambda p, s: s["nodes"][1].update(pages=-1), "'pages'"),
        (lambda p, s: s["nodes"][2].update(words={"a": "x"}), "'words'"),
        (lambda p, s: s["nodes"][1].update(styles=[[0]]), "bad child reference"),
        (lambda p, s: s["nodes"][0].update(styles=[[1], [1]]), "bad child reference"),
        (lambda p, s: s["nodes"][0].update(styles="body"), "'styles' must be a list"),
        (lambda p, s: s["nodes"][0].pop("styles"), "not part of the tree"),
    ],
    ids=["gamma-range", "unknown-param", "pages-not-int", "no-nodes", "imp-range", "empty-key",
         "negative-pages", "weights-not-numbers", "cycle", "shared-child", "styles-not-list",
         "orphans"],
)
def test_corrupt_state_is_a_model_error(model: CompressedStructureTree, edit: Any,
                                        message: str) -> None:
    params, state = _state(model)
    edit(params, state)
    with pytest.raises(ModelError, match=message):
        CompressedStructureTree.from_state(params, state)


def test_one_layout_everywhere_still_weighs_by_content() -> None:
    # Every NodeImp is 0: structure halves the weights but never zeroes a page's vector.
    htmls = ['<body><div class="m"><p>same words</p><p>story one</p></div></body>',
             '<body><div class="m"><p>same words</p><p>tale two</p></div></body>']
    cst = CompressedStructureTree().fit(_pages(htmls))
    matrix, words = cst.feature_vectors(_pages(htmls))
    row = dict(zip(words, matrix.toarray()[0], strict=True))
    assert row == {"same": 0.0, "words": 0.0, "story": 0.5, "one": 0.5, "tale": 0.0,
                   "two": 0.0}


def test_a_style_no_fitted_page_had_counts_as_new(model: CompressedStructureTree) -> None:
    # body always had (nav, main); this page adds an aside: body is a node of its own here.
    html = f'<body>{NAV}<aside>fresh words</aside></body>'
    leaves = list(model.leaf_weights(Page.from_html(html)))
    assert [(leaf.node.text(), leaf.structure) for leaf in leaves] == [
        ("home", 1.0), ("news", 1.0), ("fresh words", 1.0)]
    assert [w for leaf in leaves for _, w in leaf.words] == [1.0, 1.0, 1.0, 1.0]


def test_a_model_of_no_pages_saves_loads_and_keeps_everything(tmp_path: Path) -> None:
    empty = CompressedStructureTree().fit([])
    loaded = load_model(save_model(empty, tmp_path / "empty.json"))
    assert loaded.clean(Page.from_html("<body><p>all kept</p></body>")).text == "all kept"
