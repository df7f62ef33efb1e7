"""Word shingles and min-hash fingerprints (Broder et al. 1997), stable across processes.

A *w-shingle* is a run of w consecutive tokens. The resemblance of two texts is the Jaccard
overlap of their shingle sets; a *min-hash* is the smallest value of one random hash
function over a shingle set, and two texts agree on it with probability equal to their
resemblance. A *fingerprint* joins n min-hashes into one 63-bit number, so texts share it
with probability resemblance**n: equal for identical texts, almost always equal for texts
that differ in a word or two, and almost never equal for unrelated texts. That is the
"shingle" the template method (Bar-Yossef & Rajagopalan) groups pagelets by. A site fit's
repeated-page check (`sitesift.weak.distinct_pages`) compares pages' `bulk_shingle_ids` in
the native core (`_native.near_duplicates`: MinHash and LSH of its own,
`native/src/crawl/minhash.rs`).

Every hash here is derived from BLAKE2b with fixed keys, never from Python's `hash()`
(salted per process), so fingerprints can be saved in a model and compared later.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

_PRIME = (1 << 31) - 1  # min-hash family h(x) = (a x + b) mod p over 31-bit shingle ids
_DIGITS = re.compile(r"\d+")
_SEP = "\x1f"  # joins a shingle's tokens; never part of a `\w+` token


def shingle_ids(tokens: Sequence[str], w: int) -> np.ndarray:
    """The distinct w-shingles of a token sequence as 31-bit ids (sorted, uint64).

    A text shorter than w tokens is one shingle, so a short link list still has a
    fingerprint; no tokens give no shingles."""
    import numpy as np
    if w < 1:
        raise ValueError(f"shingle width must be at least 1, got {w}")
    if not tokens:
        return np.zeros(0, dtype=np.uint64)
    count = max(len(tokens) - w + 1, 1)
    seen = {_SEP.join(tokens[i:i + w]) for i in range(count)}
    ids = [int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=4).digest(),
                          "little") % _PRIME for s in seen]
    return np.unique(np.asarray(ids, dtype=np.uint64))


def _family(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n hash functions (a_i, b_i), 1 <= a_i < p, drawn from a seeded generator."""
    import numpy as np
    rng = np.random.default_rng(seed)
    a = rng.integers(1, _PRIME, size=n, dtype=np.uint64)
    b = rng.integers(0, _PRIME, size=n, dtype=np.uint64)
    return a, b


def minhash(ids: np.ndarray, n: int, seed: int = 0) -> tuple[int, ...]:
    """n min-hashes of a shingle-id set; the empty set gives ()."""
    import numpy as np
    if n < 1:
        raise ValueError(f"number of min-hashes must be at least 1, got {n}")
    if ids.size == 0:
        return ()
    a, b = _family(n, seed)
    # a, x < 2**31, so a*x + b < 2**63: no uint64 overflow before the modulus.
    values = (a[:, None] * ids[None, :] + b[:, None]) % np.uint64(_PRIME)
    return tuple(int(v) for v in values.min(axis=1))


def combine(values: Iterable[int]) -> int:
    """One 63-bit number for a tuple of min-hashes (a JSON-safe, signed-64-bit-safe int)."""
    data = ",".join(str(v) for v in values).encode("ascii")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little") >> 1


def normalise_tokens(tokens: Iterable[str], fold_digits: bool = True) -> list[str]:
    """Lowercased tokens, digit runs folded to '#' so `(c) 2005` ~ `(c) 2006`."""
    if fold_digits:
        return [_DIGITS.sub("#", t.lower()) for t in tokens]
    return [t.lower() for t in tokens]


def fingerprint(tokens: Sequence[str], w: int, n: int, seed: int = 0) -> int | None:
    """The shingle fingerprint of a token sequence: n min-hashes of its w-shingles joined
    into one number; None for no tokens."""
    values = minhash(shingle_ids(tokens, w), n, seed)
    return combine(values) if values else None


def resemblance(sig_a: Sequence[int], sig_b: Sequence[int]) -> float:
    """Estimated Jaccard resemblance: the share of agreeing min-hashes of two signatures."""
    if len(sig_a) != len(sig_b) or not sig_a:
        raise ValueError("signatures must be non-empty and of equal length")
    return sum(x == y for x, y in zip(sig_a, sig_b, strict=True)) / len(sig_a)


def jaccard(ids_a: np.ndarray, ids_b: np.ndarray) -> float:
    """The exact resemblance of two shingle-id sets (`shingle_ids`); 1.0 for two empty ones."""
    import numpy as np
    union = np.union1d(ids_a, ids_b).size
    return np.intersect1d(ids_a, ids_b, assume_unique=True).size / union if union else 1.0


def bulk_shingle_ids(tokens: Sequence[str], w: int) -> np.ndarray:
    """The distinct w-shingles of a token sequence as 31-bit ids (sorted, uint64), like
    `shingle_ids` but computed in bulk: each distinct token is hashed once and a shingle's
    id is a polynomial of its tokens' ids, in NumPy. Several times faster on a whole page
    (a page of 2,000 words: ~1 ms against ~6 ms), for comparing pages within one run; the
    ids differ from `shingle_ids`', which model files store, so the two never mix."""
    import numpy as np
    if w < 1:
        raise ValueError(f"shingle width must be at least 1, got {w}")
    if not tokens:
        return np.zeros(0, dtype=np.uint64)
    vocab: dict[str, int] = {}
    for token in tokens:
        if token not in vocab:
            vocab[token] = int.from_bytes(
                hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")
    ids = np.fromiter((vocab[t] for t in tokens), dtype=np.uint64, count=len(tokens))
    count = max(len(tokens) - w + 1, 1)
    acc = ids[:count].copy()
    for k in range(1, min(w, len(tokens))):  # uint64 arithmetic wraps: a hash, not a value
        acc = acc * np.uint64(0x100000001B3) + ids[k:k + count]
    return np.unique(acc % np.uint64(_PRIME))
