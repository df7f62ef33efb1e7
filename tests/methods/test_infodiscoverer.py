"""InfoDiscoverer: the partition, every formula by hand, the threshold search, model files."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sitesift.errors import ModelError
from sitesift.methods.infodiscoverer import DEFAULT_LEVELS, InfoDiscoverer
from sitesift.methods.shared.blocks import RUN, Block, Keywords, parse_levels, partition
from sitesift.methods.shared.entropy import (
    block_entropy,
    entropy_stats,
    entropy_with_page,
    fd_matrix,
    feature_entropy,
    greedy_threshold,
    threshold_steps,
)
from sitesift.model_io import load_model, save_model
from tests.conftest import page

NAV = '<div class="nav"><a href="/">home</a> <a href="/news">news</a> weather sport</div>'
TOY = [
    f"<body>{NAV}<div class='main'><p>alpha beta</p><p>gamma delta</p></div></body>",
    f"<body>{NAV}<div class='main'><p>epsilon zeta</p><p>theta iota</p></div></body>",
    f"<body>{NAV}<div class='main'><p>kappa lambda</p><p>omicron sigma</p></div></body>",
]
UNSEEN = f"<body>{NAV}<div class='main'><p>upsilon chi</p><p>psi omega</p></div></body>"


def shape(block: Block) -> tuple[Any, ...]:
    """(tag or 'run', text, children...) of a block tree, for comparing partitions."""
    text = " ".join(n.text() for n in block.nodes)
    return (block.tag or "run", text, *(shape(c) for c in block.children))


# -- partition --------------------------------------------------------------------------------

PARTITIONS = [
    pytest.param(
        "<body><table><tr><td>a</td><td>b</td></tr></table><p>c</p></body>",
        ("#root", "a b c",
         ("table", "a b", ("tr", "a b", ("td", "a"), ("td", "b"))),
         ("run", "c", ("p", "c"))),
        id="table-then-paragraph",
    ),
    pytest.param(
        "<body><table><tr><td>a</td><td><table><tr><td>n</td></tr></table></td></tr></table>"
        "</body>",
        ("#root", "a n",
         ("table", "a n",
          ("run", "a", ("td", "a")),                       # the cell beside the nested table
          ("table", "n", ("tr", "n", ("td", "n"))))),
        id="nested-table",
    ),
    pytest.param(
        "<body><header><ul><li>home</li><li>news</li></ul></header>"
        "<article><h1>T</h1><p>x</p></article><footer>c</footer></body>",
        ("#root", "home news T x c",
         ("header", "home news", ("ul", "home news", ("li", "home"), ("li", "news"))),
         ("article", "T x", ("run", "T"), ("p", "x")),
         ("footer", "c")),
        id="no-table-containers",
    ),
    pytest.param("<body>just text</body>", ("#root", "just text"), id="one-leaf"),
]


@pytest.mark.parametrize(("html", "expected"), PARTITIONS)
def test_partition(html: str, expected: tuple[Any, ...]) -> None:
    assert shape(partition(page(html).root, parse_levels(DEFAULT_LEVELS))) == expected


def test_runs_hold_sibling_subtrees_across_depths() -> None:
    # a run ends where the cut element begins, whatever its depth
    html = "<body><div><p>a</p><section><p>b</p><table><tr><td>t</td></tr></table>" \
           "<p>c</p></section></div><p>d</p></body>"
    tree = partition(page(html).root, parse_levels(["table"]))
    runs = [[n.text() for n in b.nodes] for b in tree.children if b.tag == RUN]
    assert runs == [["a", "b"], ["c", "d"]]


def test_keywords_are_stemmed_without_stop_words_or_numbers() -> None:
    assert Keywords()("The runners were running in 2009 and 3rd") == ["runner", "run", "3rd"]


# -- formulas ---------------------------------------------------------------------------------

# term frequencies of four features over three pages
PAGES = [Counter(a=1, b=2, c=1, d=2), Counter(a=1, c=1, d=1), Counter(a=1, d=1)]
ENTROPY = {
    "a": 1.0,                                                       # even over all pages
    "b": 0.0,                                                       # one page only
    "c": math.log(2) / math.log(3),                                 # 0.6309: half and half
    "d": -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)) / math.log(3),  # 0.9464
}


def _entropies(pages: list[Counter[str]], binary: bool = False) -> dict[str, float]:
    vocab, matrix = fd_matrix(pages, binary)
    sums, xlogx = entropy_stats(matrix)
    return dict(zip(vocab, feature_entropy(sums, xlogx, len(pages)).tolist(), strict=True))


def test_fd_matrix_holds_term_frequencies() -> None:
    vocab, matrix = fd_matrix(PAGES)
    assert matrix.shape == (4, 3)
    assert matrix.toarray()[vocab.index("d")].tolist() == [2.0, 1.0, 1.0]
    _, binary = fd_matrix(PAGES, binary=True)
    assert binary.toarray()[vocab.index("d")].tolist() == [1.0, 1.0, 1.0]


def test_feature_entropy_by_hand() -> None:
    got = _entropies(PAGES)
    assert got == pytest.approx(ENTROPY)
    assert got["d"] == pytest.approx(0.946395, abs=1e-6)
    # presence only: d is on every page
    assert _entropies(PAGES, binary=True)["d"] == pytest.approx(1.0)


def test_feature_entropy_of_one_page_is_zero() -> None:
    assert _entropies([Counter(a=3, b=1)]) == {"a": 0.0, "b": 0.0}


def test_folding_a_page_in_equals_refitting_with_it() -> None:
    new = Counter(a=2, b=1, e=4)
    vocab, matrix = fd_matrix(PAGES)
    sums, xlogx = entropy_stats(matrix)
    weights = np.array([float(new[t]) for t in vocab])
    folded = dict(zip(vocab, entropy_with_page(sums, xlogx, 3, weights).tolist(), strict=True))
    refit = _entropies([*PAGES, new])
    assert folded == pytest.approx({t: refit[t] for t in vocab})
    assert refit["e"] == 0.0  # a feature of the new page alone: the default for unseen ones


@pytest.mark.parametrize(
    ("terms", "expected"),
    [
        pytest.param(["a", "b"], 0.5, id="mean-of-two"),
        pytest.param(["a", "b", "c"], (1 + 0 + math.log(2) / math.log(3)) / 3, id="mean-of-three"),
        pytest.param(["a", "unseen"], 0.5, id="unseen-counts-zero"),
        pytest.param([], None, id="no-features"),
    ],
)
def test_block_entropy_by_hand(terms: list[str], expected: float | None) -> None:
    assert block_entropy(terms, ENTROPY) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("step", "expected"),
    [(0.1, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]), (0.25, [0.25, 0.5, 0.75, 1.0]),
     (1.0, [1.0])],
)
def test_threshold_steps(step: float, expected: list[float]) -> None:
    assert threshold_steps(step) == expected


STEPS = [0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize(
    ("counts", "plateau", "expected"),
    [
        # 100 -> 104 grows by 4 % < 5 %: the informative blocks are in at 0.5
        pytest.param([40, 100, 104, 130], 0.05, 0.5, id="plateau-after-rise"),
        # no step before the last adds less than 5 %: everything is informative
        pytest.param([10, 20, 40, 80], 0.05, 1.0, id="never-flat"),
        # nothing informative yet at 0.25: an empty start is not a plateau
        pytest.param([0, 0, 50, 51], 0.05, 0.75, id="empty-start-skipped"),
        # 40 -> 41 is 2.5 %: flat under 5 %, not under 2 %
        pytest.param([40, 41, 80, 81], 0.05, 0.25, id="early-plateau-5"),
        pytest.param([40, 41, 80, 81], 0.02, 0.75, id="early-plateau-2"),
        # the paper preset's plateau 0: the first step that adds no feature at all
        pytest.param([40, 41, 41, 60], 0.0, 0.5, id="paper-stops-where-nothing-is-added"),
        pytest.param([40, 41, 41, 60], 0.04, 0.25, id="ours-stops-under-4-percent"),
        pytest.param([0, 10, 10, 60], 0.0, 0.5, id="paper-skips-an-empty-start"),
        pytest.param([10, 20, 40, 80], 0.0, 1.0, id="paper-never-flat"),
    ],
)
def test_greedy_threshold_by_hand(counts: list[int], plateau: float, expected: float) -> None:
    assert greedy_threshold(STEPS, counts, plateau) == expected


# -- the cleaner ------------------------------------------------------------------------------

@pytest.fixture
def fitted() -> InfoDiscoverer:
    return InfoDiscoverer().fit([page(h, f"p{i}") for i, h in enumerate(TOY)])


def test_toy_site_curve_threshold_and_entropies(fitted: InfoDiscoverer) -> None:
    # nav words are on every page (H = 1); main words on one page each (H = 0). Blocks
    # with H = 0 are informative from 0.1 on: 12 features; the nav's 4 join at 1.0.
    assert fitted.curve_ == [12] * 9 + [16]
    assert fitted.threshold_ == 0.1
    first = page(TOY[0], "p0")
    entropy = fitted.page_entropy(first, fitted._tree(first))
    assert entropy["home"] == pytest.approx(1.0)
    assert entropy["alpha"] == 0.0


def test_toy_site_cleaning(fitted: InfoDiscoverer) -> None:
    result = fitted.clean(page(TOY[1]))
    assert result.text == "epsilon zeta\ntheta iota"
    nav = [b for b in result.blocks if "home" in b.text]
    assert nav and nav[0].label == "noise" and "redundant" in nav[0].reason


def test_unseen_page_is_folded_in(fitted: InfoDiscoverer) -> None:
    new = page(UNSEEN)
    entropy = fitted.page_entropy(new, fitted._tree(new))
    # 'home' now has tf 1 on four pages: still even, H = 1 with log base 4
    assert entropy["home"] == pytest.approx(1.0)
    assert entropy["upsilon"] == 0.0
    assert fitted.clean(new).text == "upsilon chi\npsi omega"


def test_page_without_keywords_is_kept(fitted: InfoDiscoverer) -> None:
    assert fitted.clean(page("<body><p>2009 - 2010</p></body>")).text == "2009 - 2010"


def test_fixed_threshold_overrides_the_search() -> None:
    model = InfoDiscoverer(threshold=1.0).fit([page(h) for h in TOY])
    assert model.threshold_ == 1.0
    assert "home" in model.clean(page(TOY[0])).text


# -- model files ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["site.id.json", "site.id.json.gz"])
def test_round_trip_cleans_unseen_page_alike(fitted: InfoDiscoverer, tmp_path: Path,
                                             name: str) -> None:
    loaded = load_model(save_model(fitted, tmp_path / name))
    assert isinstance(loaded, InfoDiscoverer)
    assert loaded.get_params() == fitted.get_params()
    assert loaded.to_state() == fitted.to_state()
    new = page(UNSEEN)
    assert loaded.clean(new).to_dict() == fitted.clean(page(UNSEEN)).to_dict()
    assert loaded.clean(page(TOY[2])).text == "kappa lambda\nomicron sigma"


VALID = {"n_pages": 3, "threshold": 0.5, "curve": [1, 2], "features": ["a", "b"],
         "sums": [3.0, 2.0], "xlogx": [0.0, 1.386294], "pages": ["0123456789abcdef"]}


def test_valid_state_loads() -> None:
    model = InfoDiscoverer.from_state(InfoDiscoverer().get_params(), VALID)
    assert model.to_state() == VALID


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        pytest.param("n_pages", -1, "n_pages", id="negative-pages"),
        pytest.param("n_pages", "3", "n_pages", id="pages-not-int"),
        pytest.param("features", None, "features", id="no-features"),
        pytest.param("features", ["a", "a"], "duplicates", id="duplicate-features"),
        pytest.param("sums", [1.0], "1 items, expected 2", id="short-sums"),
        pytest.param("sums", [1.0, -2.0], "positive", id="negative-sum"),
        pytest.param("xlogx", "oops", "must be a list", id="xlogx-not-list"),
        pytest.param("threshold", 1.5, "threshold", id="threshold-out-of-range"),
        pytest.param("pages", [1, 2], "not str", id="fingerprints-not-str"),
        pytest.param("curve", [True], "not int", id="curve-bool"),
    ],
)
def test_corrupt_state_is_a_model_error(key: str, value: Any, message: str) -> None:
    state = {**VALID, key: value}
    if value is None:
        del state[key]
    with pytest.raises(ModelError, match=message):
        InfoDiscoverer.from_state(InfoDiscoverer().get_params(), state)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param({"plateau": 2.0}, "plateau", id="plateau-out-of-range"),
        pytest.param({"weighting": "idf"}, "weighting", id="unknown-weighting"),
        pytest.param({"nope": 1}, "unknown infodiscoverer parameters", id="unknown-param"),
        pytest.param({"levels": []}, "levels", id="no-levels"),
    ],
)
def test_bad_params_are_a_model_error(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelError, match=message):
        InfoDiscoverer.from_state({**InfoDiscoverer().get_params(), **params}, VALID)


def test_fit_on_no_pages_keeps_everything() -> None:
    model = InfoDiscoverer().fit([])
    assert model.threshold_ == 1.0
    assert "home" in model.clean(page(TOY[0])).text
