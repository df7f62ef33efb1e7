"""Token precision / recall / F1."""

from __future__ import annotations

import pytest

from sitesift.metrics import token_prf


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
