"""Page segmentations for retrieval, and block retrieval and expansion on toy documents."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from sitesift.segment import (
    VIPSPS,
    BlockSearch,
    BM25Index,
    CombPS,
    DomPS,
    FixedPS,
    RetrievalParams,
    combine,
    query_terms,
    ranks,
    reciprocal_rank,
    select_terms,
    terms,
    windows,
)
from tests.conftest import needs_browser, page

needs_bm25s = pytest.mark.skipif(
    importlib.util.find_spec("bm25s") is None,
    reason="block retrieval needs bm25s: pip install 'sitesift[render]'")


PAGE = ("<body><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul>"
        "<h1>Harbour seals return</h1><p>" + "seal " * 250 + "</p><p>Short note.</p>"
        "<div>Copyright</div></body>")


@pytest.mark.parametrize(("window", "step", "expected"), [
    (2, None, ["a b", "c d", "e"]),
    (2, 1, ["a b", "b c", "c d", "d e"]),
    (10, None, ["a b c d e"]),
], ids=["disjoint", "overlapping", "short-text"])
def test_windows(window: int, step: int | None, expected: list[str]) -> None:
    assert windows("a b c d e", window, step) == expected
    assert windows("", window, step) == []


def test_fixed_and_dom_segmentations() -> None:
    p = page(PAGE)
    fixed = FixedPS(window=100).segments(p)
    assert [len(w.split()) for w in fixed] == [100, 100, 58]  # 258 words of visible text
    dom = DomPS().segments(p)
    assert dom == ["Home", "News", "Harbour seals return", ("seal " * 250).strip(),
                   "Short note.", "Copyright"]


def test_combined_segmentation_bounds_block_length() -> None:
    blocks = ["one two three", "x " * 450]
    assert [len(b.split()) for b in combine(blocks, 200)] == [3, 200, 200, 50]


@needs_bm25s
def test_terms_drop_stop_words_and_stem() -> None:
    assert terms("The Harbour seals are returning to the harbours") == [
        "harbour", "seal", "return", "harbour"]


def test_ranks_and_reciprocal_rank() -> None:
    assert ranks([3.0, 1.0, 3.0, 0.0]).tolist() == [1.5, 3.0, 1.5, 4.0]  # ties share their mean
    assert reciprocal_rank([3.0, 1.0, 3.0, 0.0], 1) == pytest.approx(1 / 3)
    assert reciprocal_rank([3.0, 1.0, 3.0, 0.0], 3) == 0.0       # no score: not retrieved


# Three toy pages. Page 0 is about seals, but in one block among menu noise; page 1 is a
# long page mentioning seals once among unrelated text; page 2 is unrelated.
PAGES = [
    ["home news sport weather contact", "grey seals pup on the beach every winter",
     "home news sport weather contact"],
    ["stock markets " * 30 + "one seal", "bond yields rose " * 20],
    ["recipes for bread and cakes", "bake the bread for an hour"],
]


def _search(**params: float) -> BlockSearch:
    return BlockSearch([" ".join(b) for b in PAGES], PAGES,
                       RetrievalParams(**params))  # type: ignore[arg-type]


@needs_bm25s
def test_bm25_ranks_pages_and_blocks() -> None:
    s = _search()
    q = query_terms("grey seal pups")
    by_page = s.page_scores(q)
    assert by_page[0] > by_page[1] > by_page[2] == 0.0
    best = s.best_blocks(q)
    assert best[0] > best[1] > 0 and best[2] == 0.0
    combined = s.block_retrieval(q)
    assert int(combined.argmax()) == 0 and combined[2] == 0.0


@needs_bm25s
def test_sparse_scores_equal_bm25s_own() -> None:
    # One sparse product per query gives what bm25s scores term by term.
    import bm25s
    import numpy as np

    docs = [terms(" ".join(b)) for b in PAGES] + [[]]
    index = BM25Index(docs, 1.2, 0.75)
    own = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    own.index([d or [""] for d in docs], show_progress=False)
    query = {"seal": 1.0, "bread": 0.5, "home": 2.0, "unknown": 1.0}
    expected = sum(w * own.get_scores([t]) for t, w in query.items() if t in own.vocab_dict)
    assert np.allclose(index.scores(query), expected)
    assert index.scores({"unknown": 1.0}).tolist() == [0.0] * 4


@needs_bm25s
def test_block_retrieval_favours_the_focused_block() -> None:
    # With only block evidence (alpha 0), the page whose best block is about the query
    # ranks first even where the whole-page score would not decide it.
    s = _search(alpha=0.0)
    q = query_terms("seal")
    assert reciprocal_rank(s.block_retrieval(q), 0) == 1.0


@needs_bm25s
def test_expansion_from_top_blocks() -> None:
    blocks = [["seal pup colony beach"], ["seal pup colony rocks"], ["seal pup colony ice"],
              ["bread cake oven"], ["market bond yield"]]
    s = BlockSearch([b[0] for b in blocks], blocks, RetrievalParams(feedback=3, terms=2))
    expanded = s.expand(query_terms("seal"), level="block")
    # "pup" and "colony" are in all three feedback blocks, the beach, rocks and ice in one.
    assert expanded == {"seal": 1.0, "coloni": 0.5, "pup": 0.5}  # stemmed terms
    assert s.expand(query_terms("zebra")) == {"zebra": 1.0}  # nothing retrieved: unchanged


def test_term_selection_value() -> None:
    # r * w1 with R = 2 feedback units in N = 10: a term in both feedback units and in no
    # other unit beats one found in every unit.
    df = Counter({"rare": 2, "common": 10})
    assert select_terms([{"rare", "common"}, {"rare", "common"}], df, 10, set(), 5) == ["rare"]


@needs_browser
def test_vips_and_combined_segmentations() -> None:
    p = page("<!DOCTYPE html><html><body style='margin:0'>"
             "<div style='height:100px;background:#036'><a href='/'>Home</a></div>"
             "<div><h1>Harbour seals return</h1><p>" + "seal " * 250 + "</p></div></body>"
             "</html>")
    vips = VIPSPS().segments(p)
    assert "Home" in vips and "Harbour seals return" in vips
    assert max(len(b.split()) for b in vips) == 250
    comb = CombPS(window=100).segments(p)
    assert max(len(b.split()) for b in comb) == 100
    assert sum(len(b.split()) for b in comb) == sum(len(b.split()) for b in vips)
