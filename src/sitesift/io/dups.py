"""Copies and near-copies across a whole crawl: each result record's `dup_of`.

Where a page is cleaned, its record gets a row (`dup_row`: its place in the crawl, its text's
SHA-1 and a min-hash signature of its text's word 5-shingles, its input and URL; the native
core's `dups.rs`), which travels with the record to the work folder (`DUP_ROW`, stored beside
the record in its part, `sitesift.io.parts`). Once every site is cleaned, the crawl passes all
the rows to the core once (`find_copies`) and writes `dup_of` into the records of the copies
(`sitesift.crawl`); Spark groups the rows by digest and by LSH band with shuffles and asks
the same function of each group (`sitesift.spark`), with the same answers.

A record's `dup_of` names the first record in crawl order (inputs in the order given, records
in input order) with the same text (by digest: `exact` true) or, failing that, with a text
whose estimated Jaccard resemblance to it (of lower-cased word 5-shingles, from 120
min-hashes) is at least `THRESHOLD`. Records without text are nobody's copies. Nothing is
dropped unless asked (`crawl --drop-duplicates`).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from sitesift.native import core

THRESHOLD = 0.8
"""The least estimated resemblance of a near copy (`dups.rs`'s `THRESHOLD`, a test holds
them equal)."""


def dup_row(input_index: int, record: dict[str, Any]) -> bytes:
    """The row of a result record (made where the page was cleaned) of the crawl's
    `input_index`-th input."""
    digest = base64.b32decode(record["text_digest"].removeprefix("sha1:"))
    return bytes(core().dup_row(input_index, record["position"] or 0, digest, record["text"],
                                record["input"] or "", record["url"]))


@dataclass(frozen=True, slots=True)
class Copy:
    """A record whose text copies an earlier one's: its row's index in the rows given, its
    (input, position), the original's place in the crawl (input index, position) and the
    copy's `dup_of`."""

    index: int
    key: tuple[str, int]
    original: tuple[int, int]
    dup_of: dict[str, Any]


def find_copies(blob: bytes, threshold: float = THRESHOLD) -> tuple[int, list[Copy]]:
    """How many rows `blob` holds (rows one after another; `dups.rs`), and the copies among
    them."""
    native = core()
    count, found = native.crawl_duplicates(blob, threshold)
    if not found:
        return count, []
    involved = sorted({i for f in found for i in (f.copy, f.original)})
    sources = dict(zip(involved, native.dup_sources(blob, involved), strict=True))
    copies = []
    for f in found:
        original, own = sources[f.original], sources[f.copy]
        copies.append(Copy(f.copy, (own.input, own.position),
                           (original.input_index, original.position),
                           {"input": original.input, "position": original.position,
                            "url": original.url, "similarity": round(f.similarity, 4),
                            "exact": f.exact}))
    return count, copies


def summary(exact: int, near: int, dropped: bool) -> dict[str, Any]:
    """The crawl summary's count of copies: exact and near, and how many were left out."""
    return {"exact": exact, "near": near, "dropped": exact + near if dropped else 0,
            "threshold": THRESHOLD}


__all__ = ["THRESHOLD", "Copy", "dup_row", "find_copies", "summary"]
