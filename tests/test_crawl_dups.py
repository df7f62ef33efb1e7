"""Copies across a crawl (issue 55): each record's `dup_of` names the first record, in crawl
order, with the same or nearly the same text; `--drop-duplicates` leaves the copies out. And
the crawl's `--metadata`."""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from sitesift import _native
from sitesift.crawl import run_crawl
from sitesift.io import dups
from sitesift.io.records import DUP_OF_FIELDS, METADATA_FIELDS, RESULT_FIELDS
from sitesift.io.warc import HttpResponse, write_warc
from sitesift.jobs.run import RunSettings
from sitesift.sitework import CrawlConfig
from tests.test_crawl import BODIES, HOST, lines, pages

CFG = CrawlConfig(fit_sample=10)
MIRROR = "mirror.example"


def twice(folder: Path) -> list[str]:
    """Two inputs: a WARC of a site's 12 pages and, second, a WARC holding each of them again
    at another site's URL, in reverse order (so crawl order, not input order, decides which
    is the copy)."""
    first, second = folder / "a.warc.gz", folder / "b.warc.gz"
    originals = pages(HOST, 12)
    write_warc(first, originals)
    write_warc(second, [HttpResponse(f"http://{MIRROR}/copy/{k}.html", p.body)
                        for k, p in reversed(list(enumerate(originals)))])
    return [str(first), str(second)]


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("dups")
    inputs = twice(root)
    summary = run_crawl(inputs, root / "out", CFG, run=RunSettings(2))
    return inputs, root / "out", summary


def test_every_copy_names_its_original_and_no_original_is_named_a_copy(
        crawled: tuple[list[str], Path, dict[str, Any]]) -> None:
    inputs, out, summary = crawled
    records = lines(out / "results.jsonl")
    assert len(records) == 24 and all(set(r) == set(RESULT_FIELDS) for r in records)
    by_url = {r["url"]: r for r in records}
    for k in range(12):
        original = by_url[f"http://{HOST}/{k}.html"]
        copy = by_url[f"http://{MIRROR}/copy/{k}.html"]
        assert original["dup_of"] is None
        dup_of = copy["dup_of"]
        assert isinstance(dup_of, dict) and set(dup_of) == set(DUP_OF_FIELDS)
        assert (dup_of["input"], dup_of["position"], dup_of["url"]) == (
            inputs[0], original["position"], original["url"])
        # the same text by digest, or nearly the same (the mirror's model read it otherwise)
        assert dup_of["exact"] == (copy["text_digest"] == original["text_digest"])
        assert dup_of["similarity"] == 1.0 if dup_of["exact"] else dup_of["similarity"] >= 0.8
    exact = sum(r["dup_of"]["exact"] for r in records if r["dup_of"])
    assert summary["duplicates"] == {"exact": exact, "near": 12 - exact, "dropped": 0,
                                     "threshold": dups.THRESHOLD}
    assert summary["balanced"] and summary["results"] == 24


def test_drop_duplicates_leaves_the_copies_out_and_counts_them(
        crawled: tuple[list[str], Path, dict[str, Any]], tmp_path: Path) -> None:
    inputs, _out, kept = crawled
    cfg = CrawlConfig(fit_sample=10, drop_duplicates=True)
    summary = run_crawl(inputs, tmp_path / "out", cfg, run=RunSettings(1), fmt="parquet")
    import pyarrow.parquet as pq

    records = pq.read_table(tmp_path / "out" / "results.parquet").to_pylist()
    assert sorted(r["url"] for r in records) == sorted(f"http://{HOST}/{k}.html"
                                                       for k in range(12))
    assert all(r["dup_of"] is None for r in records)
    assert summary["duplicates"] == {**kept["duplicates"], "dropped": 12}
    assert summary["results"] == 12 and summary["balanced"]
    # a rerun that does not drop them is another job: refused, naming the option
    with pytest.raises(Exception, match="--drop-duplicates"):
        run_crawl(inputs, tmp_path / "out", CFG, run=RunSettings(1), fmt="parquet")


def test_pages_without_copies_have_none_and_empty_texts_are_nobodys_copies(
        tmp_path: Path) -> None:
    warc = tmp_path / "in.warc.gz"
    empty = b"<html><head><title>t</title></head><body></body></html>"
    write_warc(warc, [*pages("one.example", 3), *pages("two.example", 3, 3),
                      HttpResponse("http://e.example/1", empty),
                      HttpResponse("http://e.example/2", empty)])
    summary = run_crawl([str(warc)], tmp_path / "out", CFG, run=RunSettings(1))
    records = lines(tmp_path / "out" / "results.jsonl")
    assert len(records) == 8 and all(r["dup_of"] is None for r in records)
    assert summary["duplicates"]["exact"] == summary["duplicates"]["near"] == 0


def row(position: int, text: str, url: str = "u") -> bytes:
    digest = hashlib.sha1(text.encode()).digest()
    return bytes(_native.dup_row(0, position, digest, text, "in", url))


def test_crawl_metadata_gives_each_record_what_clean_metadata_reads(tmp_path: Path) -> None:
    """`crawl --metadata` (issue 55, deliverable 6): each record's `metadata` holds the fields
    `clean --metadata` gives; without the option it is null."""
    from sitesift.api import clean
    from sitesift.metadata import Metadata

    assert tuple(f.name for f in fields(Metadata)) == METADATA_FIELDS
    warc = tmp_path / "in.warc.gz"
    write_warc(warc, pages("one.example", 6))
    summary = run_crawl([str(warc)], tmp_path / "out", replace(CFG, metadata=True),
                        run=RunSettings(1))
    assert summary["balanced"]
    records = lines(tmp_path / "out" / "results.jsonl")
    assert len(records) == 6
    for record in records:
        k = int(record["url"].rsplit("/", 1)[1].split(".")[0])
        expected = clean(BODIES[k], url=record["url"], metadata=True).meta["metadata"]
        assert record["metadata"] == expected
        assert record["metadata"]["title"] and record["metadata"]["date"]
    run_crawl([str(warc)], tmp_path / "plain", CFG, run=RunSettings(1))
    assert all(r["metadata"] is None for r in lines(tmp_path / "plain" / "results.jsonl"))


def test_the_threshold_is_the_cores() -> None:
    assert dups.THRESHOLD == _native.DUP_THRESHOLD


def test_a_near_copy_is_found_by_its_words_not_its_spacing_or_case() -> None:
    words = " ".join(BODIES[0].decode("utf-8", "replace").split()[:600])
    changed = words.upper().replace(" ", "\n  ", 40)
    count, copies = dups.find_copies(row(0, words) + row(1, "unrelated words " * 30)
                                     + row(2, changed))
    assert count == 3
    assert [(c.index, c.original, c.dup_of["exact"]) for c in copies] == [(2, (0, 0), False)]
    assert copies[0].dup_of["similarity"] == 1.0  # the same words: every min-hash equal


def test_bad_rows_are_refused_with_a_reason() -> None:
    good = row(0, "some text")
    with pytest.raises(ValueError, match="cut short"):
        dups.find_copies(good[:-3])
    with pytest.raises(ValueError, match="threshold"):
        dups.find_copies(good, threshold=1.5)
    with pytest.raises(ValueError, match="20 bytes"):
        _native.dup_row(0, 0, b"short", "text", "in", None)
    assert dups.find_copies(good + good)[0] == 2
    assert json.dumps(dups.summary(1, 2, False))  # plain numbers
