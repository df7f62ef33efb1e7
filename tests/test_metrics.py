"""The metrics: token P/R/F1, ROUGE-L, 4-gram shingles, snippets."""

from __future__ import annotations

import random

import pytest

from sitesift.metrics import (
    lcs_length,
    rouge_l,
    shingle_prf,
    shingles,
    snippet_rates,
    snippet_share,
    token_prf,
)


def test_multiset_counting() -> None:
    prf = token_prf("the cat the cat the", "The cat sat, the end")
    # output: the x3, cat x2 (5); gold: the x2, cat, sat, end (5); matches: the x2 + cat = 3
    assert prf.precision == pytest.approx(3 / 5)
    assert prf.recall == pytest.approx(3 / 5)
    assert prf.f1 == pytest.approx(3 / 5)


@pytest.mark.parametrize(
    ("out", "gold", "expected"),
    [("", "", 1.0), ("", "gold words", 0.0), ("words", "", 0.0), ("a b", "c d", 0.0),
     ("Ünïcode wörds", "ünïcode WÖRDS", 1.0)],
    ids=["both-empty", "empty-output", "empty-gold", "disjoint", "unicode-case"],
)
def test_edges(out: str, gold: str, expected: float) -> None:
    assert token_prf(out, gold).f1 == expected


def _lcs_brute(a: list[str], b: list[str]) -> int:
    """The textbook dynamic programme: the reference for the bit-parallel version."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1],
                                                                     table[i + 1][j])
    return table[-1][-1]


@pytest.mark.parametrize("seed", range(8), ids=[f"seed{s}" for s in range(8)])
def test_lcs_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 25))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 25))]
        assert lcs_length(a, b) == _lcs_brute(a, b), (a, b)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("", "", 0), ("a b c", "", 0), ("a b c", "a b c", 3), ("a b c d", "b d", 2),
     ("x y z", "z y x", 1), ("a a a a", "a a", 2)],
    ids=["empty", "one-empty", "equal", "subsequence", "reversed", "repeats"],
)
def test_lcs_cases(a: str, b: str, expected: int) -> None:
    assert lcs_length(a.split(), b.split()) == expected
    assert lcs_length(b.split(), a.split()) == expected


def test_lcs_handles_long_pages() -> None:
    """10,000 tokens against a copy with every tenth token changed: exact and fast enough
    that a Python double loop (10^8 steps) could not have produced it in a test."""
    rng = random.Random(0)
    a = [str(rng.randrange(3000)) for _ in range(10_000)]
    b = [t if i % 10 else "X" for i, t in enumerate(a)]
    assert lcs_length(a, b) == 9_000


def test_rouge_l_is_order_aware_and_case_sensitive() -> None:
    gold = "The cat sat on the mat"
    assert rouge_l(gold, gold).f1 == 1.0
    shuffled = rouge_l("mat the on sat cat The", gold)
    assert token_prf("mat the on sat cat The", gold).f1 == 1.0  # same bag of tokens
    assert shuffled.f1 < 0.5                                   # but not the same order
    lower = rouge_l("the cat sat on the mat", gold)
    assert lower.precision == pytest.approx(5 / 6) and lower.recall == pytest.approx(5 / 6)


def test_rouge_l_precision_and_recall() -> None:
    prf = rouge_l("menu The cat sat footer", "The cat sat on the mat")
    assert prf.precision == pytest.approx(3 / 5)
    assert prf.recall == pytest.approx(3 / 6)
    assert prf.f1 == pytest.approx(2 * (3 / 5) * (3 / 6) / (3 / 5 + 3 / 6))


def test_shingles_are_sets_of_four_token_runs() -> None:
    assert shingles("a b c d e") == {("a", "b", "c", "d"), ("b", "c", "d", "e")}
    assert shingles("A, b!") == {("a", "b")}  # shorter than 4 tokens: one shingle
    assert shingles("  ") == set()
    assert shingles("a b c d a b c d") == {("a", "b", "c", "d"), ("b", "c", "d", "a"),
                                           ("c", "d", "a", "b"), ("d", "a", "b", "c")}


def test_shingle_prf_counts_shared_shingles() -> None:
    gold = "one two three four five six"          # 3 shingles
    out = "one two three four five nav links"     # 4 shingles, 2 shared
    prf = shingle_prf(out, gold)
    assert prf.precision == pytest.approx(2 / 4)
    assert prf.recall == pytest.approx(2 / 3)
    assert shingle_prf("", gold).f1 == 0.0 and shingle_prf("", "").f1 == 1.0


@pytest.mark.parametrize(
    ("output", "snippets", "expected"),
    [("The  Quick\nbrown fox jumps", ["quick brown fox"], 1.0),
     ("quick brown", ["quick brown fox"], 0.0),
     ("Home | Login | Order", ["Home", "Login", "Subscribe", "Order Now"], 0.5),
     ("ÉTÉ à Paris", ["été À PARIS"], 1.0),
     ("anything", [], None),
     ("anything", ["  "], None)],
    ids=["whitespace-and-case", "partial-is-not-found", "share", "unicode-casefold",
         "no-snippets", "blank-snippets"],
)
def test_snippet_share(output: str, snippets: list[str], expected: float | None) -> None:
    assert snippet_share(output, snippets) == expected


def test_snippet_rates_with_and_without() -> None:
    found, kept = snippet_rates("Article body text. Cookie settings",
                                ["article body text"], ["Cookie settings", "Newsletter"])
    assert found == 1.0 and kept == 0.5
