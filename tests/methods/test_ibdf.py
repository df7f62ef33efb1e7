"""ContentExtractor (IBDFCleaner): GetBlocks, block similarity and IBDF by hand, storage
saved, model files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from sitesift.errors import ModelError
from sitesift.methods.ibdf import DEFAULT_TAGS, IBDFCleaner, cosine, ibdf
from sitesift.methods.shared.blocks import parse_levels, partition
from sitesift.model_io import load_model, save_model
from tests.conftest import page
from tests.methods.test_infodiscoverer import shape

NAV = "<ul><li>home</li><li>news</li><li>weather</li><li>sport</li></ul>"
TOY = [
    f"<body>{NAV}<p>alpha beta</p><p>gamma delta</p></body>",
    f"<body>{NAV}<p>epsilon zeta</p><p>theta iota</p></body>",
    f"<body>{NAV}<p>kappa lambda</p><p>omicron sigma</p></body>",
]
UNSEEN = f"<body>{NAV}<p>upsilon chi</p><p>psi omega</p></body>"


# -- GetBlocks --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("html", "expected"),
    [
        pytest.param(
            "<body><table><tr><td><p>a</p><p>b</p></td><td>x</td></tr></table><p>c</p></body>",
            ("#root", "a b x c",
             ("table", "a b x",
              ("tr", "a b x", ("td", "a b", ("p", "a"), ("p", "b")), ("td", "x"))),
             ("run", "c", ("p", "c"))),
            id="table-rows-cells-paragraphs",
        ),
        pytest.param(
            "<body><div>x<hr>y<hr>z</div></body>",
            ("#root", "x y z", ("run", "x"), ("hr", ""), ("run", "y"), ("hr", ""),
             ("run", "z")),
            id="rules-separate-runs",
        ),
        pytest.param(
            "<body><nav><ul><li>home</li></ul></nav><div><p>p1</p><p>p2</p></div></body>",
            ("#root", "home p1 p2",
             ("run", "home", ("ul", "home", ("li", "home"))),
             ("p", "p1"), ("p", "p2")),
            id="no-table-paragraphs-then-lists",
        ),
    ],
)
def test_getblocks(html: str, expected: tuple[Any, ...]) -> None:
    assert shape(partition(page(html).root, parse_levels(DEFAULT_TAGS))) == expected


# -- formulas ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("pages", "n", "expected"),
    [
        pytest.param(1, 10, 1.0, id="one-page-of-ten"),
        pytest.param(10, 10, 0.0, id="every-page"),
        pytest.param(2, 10, math.log(5) / math.log(10), id="two-of-ten"),   # 0.69897
        pytest.param(4, 16, 0.5, id="sqrt-n-pages"),
        pytest.param(3, 1, 1.0, id="single-page-site"),
    ],
)
def test_ibdf_by_hand(pages: int, n: int, expected: float) -> None:
    assert ibdf(pages, n) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param({"a", "b", "c"}, {"a", "b"}, 2 / math.sqrt(6), id="subset"),  # 0.8165
        pytest.param({"a", "b"}, {"a", "b"}, 1.0, id="same"),
        pytest.param({"a"}, {"b"}, 0.0, id="disjoint"),
        pytest.param(set(), {"a"}, 0.0, id="empty"),
    ],
)
def test_block_similarity_by_hand(a: set[str], b: set[str], expected: float) -> None:
    assert cosine(a, b) == pytest.approx(expected)


HAND = {"n_pages": 3, "features": ["a", "b", "c", "d"], "blocks": [[0, 1, 2], [0, 1], [3]],
        "block_pages": [[0], [1, 2], [2]], "pages": ["p0", "p1", "p2"]}


@pytest.mark.parametrize(
    ("similarity", "vector", "pages"),
    [
        # cosine 1 with block 0 (page 0) and 2/sqrt(6) = 0.816 with block 1 (pages 1, 2)
        pytest.param(0.8, {"a", "b", "c"}, 3, id="alike-two-blocks"),
        pytest.param(0.9, {"a", "b", "c"}, 1, id="alike-one-block"),
        pytest.param(0.8, {"d"}, 1, id="single-feature"),
        # an unknown feature still counts in the norm: cos({a, x}, {a, b}) = 1/2
        pytest.param(0.8, {"a", "x"}, 0, id="unknown-feature-in-norm"),
        # at 0.5 block 1 is alike (pages 1, 2), block 0 not: 1/sqrt(6) = 0.408
        pytest.param(0.5, {"a", "x"}, 2, id="unknown-feature-low-threshold"),
    ],
)
def test_pages_with_a_similar_block(similarity: float, vector: set[str], pages: int) -> None:
    model = IBDFCleaner.from_state({**IBDFCleaner().get_params(),
                                         "similarity": similarity}, HAND)
    assert model.page_counts([frozenset(vector)]).tolist() == [pages]


# -- the cleaner ------------------------------------------------------------------------------

@pytest.fixture
def fitted() -> IBDFCleaner:
    return IBDFCleaner().fit([page(h, f"p{i}") for i, h in enumerate(TOY)])


def test_toy_site_cleaning_and_storage(fitted: IBDFCleaner) -> None:
    result = fitted.clean(page(TOY[0]))
    assert result.text == "alpha beta\ngamma delta"
    nav = [b for b in result.blocks if b.text == "home"]
    assert nav and nav[0].label == "noise" and "on 3 of 3 pages" in nav[0].reason
    # text: home news weather sport (4 + 4 + 7 + 5) + alpha beta (10) + gamma delta (11)
    storage = result.meta["storage"]
    assert storage["text_bytes"] == 41 and storage["kept_bytes"] == 21
    assert storage["html_bytes"] == len(TOY[0])
    assert storage["kept_of_text"] == pytest.approx(21 / 41)
    assert storage["kept_of_html"] == pytest.approx(21 / len(TOY[0]))


def test_unseen_page_counts_as_one_more_page(fitted: IBDFCleaner) -> None:
    result = fitted.clean(page(UNSEEN))
    assert result.text == "upsilon chi\npsi omega"
    nav = next(b for b in result.blocks if b.text == "home")
    assert "on 4 of 4 pages" in nav.reason


# -- model files ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["site.ibdf.json", "site.ibdf.json.gz"])
def test_round_trip_cleans_unseen_page_alike(fitted: IBDFCleaner, tmp_path: Path,
                                             name: str) -> None:
    loaded = load_model(save_model(fitted, tmp_path / name))
    assert isinstance(loaded, IBDFCleaner)
    assert loaded.get_params() == fitted.get_params()
    assert loaded.to_state() == fitted.to_state()
    assert loaded.clean(page(UNSEEN)).to_dict() == fitted.clean(page(UNSEEN)).to_dict()
    assert loaded.clean(page(TOY[1])).text == "epsilon zeta\ntheta iota"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        pytest.param("n_pages", -2, "n_pages", id="negative-pages"),
        pytest.param("features", ["a", "a", "b", "c"], "duplicates", id="duplicate-features"),
        pytest.param("blocks", [[0, 9], [0, 1], [3]], "block 0 has bad feature", id="index-range"),
        pytest.param("blocks", [[1, 0], [0, 1], [3]], "block 0 has bad feature", id="unsorted"),
        pytest.param("blocks", [[], [0, 1], [3]], "block 0 has bad feature", id="empty-block"),
        pytest.param("block_pages", [[0], [1, 2]], "2 items, expected 3", id="pages-short"),
        pytest.param("block_pages", [[0], [1, 3], [2]], "block 1 has bad page", id="page-range"),
        pytest.param("pages", ["p0"], "1 items, expected 3", id="fingerprints-short"),
        pytest.param("blocks", None, "blocks", id="no-blocks"),
    ],
)
def test_corrupt_state_is_a_model_error(key: str, value: Any, message: str) -> None:
    state = {**HAND, key: value}
    if value is None:
        del state[key]
    with pytest.raises(ModelError, match=message):
        IBDFCleaner.from_state(IBDFCleaner().get_params(), state)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param({"similarity": 1.5}, "similarity", id="similarity-out-of-range"),
        pytest.param({"tags": ["table", ""]}, "levels", id="empty-level"),
        pytest.param({"k": 3}, "unknown ibdf parameters", id="unknown-param"),
    ],
)
def test_bad_params_are_a_model_error(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelError, match=message):
        IBDFCleaner.from_state({**IBDFCleaner().get_params(), **params}, HAND)


def test_fit_on_no_pages_keeps_everything() -> None:
    model = IBDFCleaner().fit([])
    assert model.clean(page(TOY[0])).text == "home\nnews\nweather\nsport\nalpha beta\ngamma delta"
