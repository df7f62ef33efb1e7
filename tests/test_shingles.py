"""Word shingles and min-hash fingerprints on hand-checked cases."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesift.datasets import load_page
from sitesift.shingles import (
    _PRIME,
    _family,
    bulk_shingle_ids,
    combine,
    fingerprint,
    jaccard,
    minhash,
    normalise_tokens,
    resemblance,
    shingle_ids,
)
from sitesift.weak import NEAR_DUPLICATE
from tests.conftest import shared_dataset


@pytest.mark.parametrize(
    ("tokens", "w", "expected"),
    [
        (["a", "b", "c", "d"], 2, 3),       # ab bc cd
        (["a", "b", "a", "b"], 2, 2),       # ab ba ab: a set, so 2
        (["a", "b", "c", "d"], 4, 1),
        (["a", "b"], 5, 1),                 # shorter than w: the whole text is one shingle
        (["a", "b", "c", "d"], 1, 4),
        ([], 3, 0),
    ],
    ids=["w2", "repeats-once", "w-equals-length", "short-text", "w1", "empty"],
)
def test_shingle_counts(tokens: list[str], w: int, expected: int) -> None:
    ids = shingle_ids(tokens, w)
    assert ids.size == expected
    assert np.all(ids < _PRIME)


def test_minhash_is_the_minimum_of_each_hash_function() -> None:
    ids = np.asarray([5, 17, 123456], dtype=np.uint64)
    a, b = _family(3, seed=7)
    expected = tuple(min((int(ai) * x + int(bi)) % _PRIME for x in (5, 17, 123456))
                     for ai, bi in zip(a, b, strict=True))
    assert minhash(ids, 3, seed=7) == expected


def test_minhash_of_a_superset_is_never_larger() -> None:
    small = shingle_ids("the quick brown fox".split(), 2)
    large = shingle_ids("the quick brown fox jumps over".split(), 2)
    assert all(x <= y for x, y in zip(minhash(large, 8), minhash(small, 8), strict=True))


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("home news sport weather contact", "home news sport weather contact", True),
        ("home news sport weather contact", "contact weather sport news home", False),
        ("home news sport weather contact", "alpha beta gamma delta epsilon", False),
    ],
    ids=["identical", "reordered", "unrelated"],
)
def test_fingerprint_groups_identical_texts_only(a: str, b: str, same: bool) -> None:
    fa, fb = fingerprint(a.split(), 2, 4), fingerprint(b.split(), 2, 4)
    assert (fa == fb) is same


def test_fingerprint_of_nothing_is_none_and_values_fit_63_bits() -> None:
    assert fingerprint([], 3, 4) is None
    fp = fingerprint("a b c".split(), 2, 4)
    assert fp is not None and 0 <= fp < 1 << 63
    assert combine([1, 2, 3]) == combine((1, 2, 3))


def test_resemblance_estimate_tracks_jaccard() -> None:
    # Shingles 0..99 and 50..149: Jaccard 50/150 = 1/3.
    a = np.arange(0, 100, dtype=np.uint64)
    b = np.arange(50, 150, dtype=np.uint64)
    est = resemblance(minhash(a, 400, seed=1), minhash(b, 400, seed=1))
    assert est == pytest.approx(1 / 3, abs=0.08)


@pytest.mark.parametrize(
    ("sig_a", "sig_b", "expected"),
    [((1, 2, 3, 4), (1, 2, 0, 4), 0.75), ((1, 2), (3, 4), 0.0), ((9,), (9,), 1.0)],
    ids=["three-of-four", "none", "one-of-one"],
)
def test_resemblance_is_the_share_of_agreeing_minhashes(
        sig_a: tuple[int, ...], sig_b: tuple[int, ...], expected: float) -> None:
    assert resemblance(sig_a, sig_b) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: shingle_ids(["a"], 0), "width"),
        (lambda: minhash(np.asarray([1], dtype=np.uint64), 0), "min-hashes"),
        (lambda: resemblance((1, 2), (1,)), "equal length"),
    ],
    ids=["zero-width", "zero-hashes", "unequal-signatures"],
)
def test_bad_arguments(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("fold", "expected"),
    [(True, ["copyright", "#", "acme"]), (False, ["copyright", "2005", "acme"])],
    ids=["folded", "kept"],
)
def test_normalise_tokens(fold: bool, expected: list[str]) -> None:
    assert normalise_tokens(["Copyright", "2005", "ACME"], fold) == expected


# -- the native shingles (native/src/crawl/shingles.rs) hold to these -----------------------------

# Characters this Python's Unicode database knows (a newer one in the core's tables, such as
# Unicode 15's Kaktovik numerals, is a word character there and not here).
_CHARS = st.characters(blacklist_categories=("Cs", "Cn"))
_WORDS = st.lists(st.text(alphabet=_CHARS, min_size=1, max_size=6), max_size=40)


@settings(max_examples=300, deadline=None)
@given(tokens=_WORDS, w=st.integers(1, 7))
def test_the_native_shingle_ids_are_bulk_shingle_ids(tokens: list[str], w: int) -> None:
    """One idea, two languages: the core's ids (the default cleaner's repeated-page check)
    equal `bulk_shingle_ids`' (every other method's) for any tokens and width."""
    from sitesift.native import core

    native = np.frombuffer(core().shingle_ids(tokens, w), dtype=np.uint64)
    assert np.array_equal(native, bulk_shingle_ids(tokens, w))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=_CHARS, max_size=200))
def test_a_native_pages_shingles_are_its_words_shingles(text: str) -> None:
    """The core's page shingles are those of its blocks' `\\w+` words, lower-cased as
    `str.lower` does (the Python reading's `normalise_tokens`), whatever the script."""
    from html import escape

    from sitesift.native import core
    from sitesift.text import TOKEN

    page = core().read(f"<p>{escape(text)}</p>", None, False, True)
    words = normalise_tokens(TOKEN.findall(" ".join(page.texts)), fold_digits=False)
    html = "<p>x</p>"  # the markup's words count only where the blocks have none
    expected = bulk_shingle_ids(words or normalise_tokens(TOKEN.findall(html), fold_digits=False),
                                5)
    assert np.array_equal(np.frombuffer(page.shingles(5, 20_000, html), dtype=np.uint64),
                          expected)


# -- the repeated-page check (native/src/crawl/minhash.rs) keeps the pages the Python one kept ----

def python_near_duplicates(id_sets: Sequence[np.ndarray], threshold: float) -> list[int]:
    """The repeated-page check as it was in Python before the core's (issue 53), kept here
    as the reference the core's answers are held to: exact copies by a dictionary, then
    MinHash (8 bands x 4 rows of `minhash`, seed 0) and LSH, each candidate checked exactly,
    the lowest-index one at `threshold` or above winning."""
    bands, rows = 8, 4
    twins = list(range(len(id_sets)))
    exact: dict[bytes, int] = {}
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, own in enumerate(id_sets):
        first = exact.setdefault(own.tobytes(), i)
        if first != i or own.size == 0:
            twins[i] = first
            continue
        sig = minhash(own, bands * rows)
        keys = [(band, combine(sig[band * rows:(band + 1) * rows])) for band in range(bands)]
        candidates = sorted({j for key in keys for j in buckets.get(key, ())})
        twin = next((j for j in candidates if jaccard(id_sets[j], own) >= threshold), i)
        twins[i] = twin
        if twin == i:
            for key in keys:
                buckets.setdefault(key, []).append(i)
    return twins


def site_samples(root: Path, sites: Sequence[str] | None = None, limit: int | None = None
                 ) -> Iterator[tuple[str, list[bytes]]]:
    """Each site group of a dataset with two pages or more (the index's `site`, as `sitesift
    clean DIR` groups it; those named in `sites`, their first `limit` pages), and its pages'
    shingles as the default cleaner's fit compares them (of the pages the core can read:
    one of webkb's has no body)."""
    from sitesift import get_cleaner
    from sitesift.errors import InputError
    from sitesift.inputs import collect_sources

    cleaner = get_cleaner("default")
    for site, sources in collect_sources(root, "site").items():
        if len(sources) < 2 or (sites is not None and site not in sites):
            continue
        raw = []
        for source in sources[:limit]:
            with contextlib.suppress(InputError):
                raw += cleaner.sample_shingles([load_page(root, source.row)])
        if len(raw) > 1:
            yield site, raw


def test_the_native_check_finds_what_the_python_one_found_on_shared_sites() -> None:
    """On sites of shared corpora with repeated pages (webkb's mirrored pages: the first
    300 of two of its largest sites; big9, chaos and cleaneval), the core gives every page
    the twin the Python check gave it. (All the shared corpora's 696 site groups, 11,256
    pages: the same, docs/lab/crawl.md.)"""
    from sitesift.native import core

    twinned = checked = 0
    for name, sites, limit in (("webkb", ("washington.edu", "wisc.edu"), 300),
                               ("big9", None, None), ("chaos", None, None),
                               ("cleaneval", None, None)):
        for site, raw in site_samples(shared_dataset(name), sites, limit):
            expected = python_near_duplicates([np.frombuffer(r, dtype="<u8") for r in raw],
                                              NEAR_DUPLICATE)
            assert core().near_duplicates(raw, NEAR_DUPLICATE) == expected, (name, site)
            twinned += sum(t != i for i, t in enumerate(expected))
            checked += len(raw)
    assert checked > 1000 and twinned > 25, (checked, twinned)
