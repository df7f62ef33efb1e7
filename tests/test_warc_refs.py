"""The crawl's ingest refers to a WARC page's payload where it is in the input
(`sitesift.io.warcref`) instead of spilling its bytes: the same items, bodies and errors as
reading the bytes, for good and hostile files; bytes where a reference cannot be made."""

from __future__ import annotations

import gzip
import os
from dataclasses import replace
from pathlib import Path

import pytest

from sitesift.errors import InputError
from sitesift.io.records import Item, PageRecord
from sitesift.io.spill import SpillWriter, read_spill
from sitesift.io.warc import HttpResponse, read_warc, warc_record, write_warc
from sitesift.io.warcref import RefReader
from tests.test_warc import (
    GOOD,
    HOSTILE_PAGES,
    HOSTILE_RECORDS,
    LIMIT,
    _hostile,
    damaged_member,
    html,
    kinds,
    write_hostile_warc,
)


def refs_read(path: Path, limit: int = LIMIT) -> list[Item]:
    return list(read_warc(str(path), 0, limit, refs=True))


def resolved(items: list[Item]) -> list[Item]:
    """The items with each reference read back into its page's body."""
    reader = RefReader()
    try:
        return [replace(i, body=reader.read(i.ref, i.input), ref=None)
                if isinstance(i, PageRecord) and i.ref is not None else i for i in items]
    finally:
        reader.close()


def refs(items: list[Item]) -> str:
    """Per page: R(eference) or B(ytes)."""
    return "".join("B" if i.ref is None else "R" for i in items if isinstance(i, PageRecord))


def same_as_bytes(path: Path) -> list[Item]:
    """Read `path` with references; check that they give what reading the bytes gives."""
    items = refs_read(path)
    assert resolved(items) == list(read_warc(str(path), 0, LIMIT))
    assert all(i.body == b"" for i in items if isinstance(i, PageRecord) and i.ref is not None)
    return items


@pytest.mark.parametrize("name", ["a.warc", "a.warc.gz"], ids=["plain", "gzip"])
@pytest.mark.parametrize("case", sorted(HOSTILE_PAGES) + sorted(HOSTILE_RECORDS))
def test_references_give_the_items_reading_the_bytes_gives(tmp_path: Path, name: str,
                                                           case: str) -> None:
    bad = HOSTILE_PAGES[case] if case in HOSTILE_PAGES else HOSTILE_RECORDS[case][0]
    _hostile(tmp_path / name, bad)
    items = same_as_bytes(tmp_path / name)
    assert refs(items)[:GOOD] == "R" * GOOD and refs(items)[-GOOD:] == "R" * GOOD
    offsets = {i.ref.offset for i in items if isinstance(i, PageRecord) and i.ref is not None}
    assert len(offsets) == refs(items).count("R")  # each page its own place in the file
    assert all(i.ref.gzip == name.endswith(".gz") for i in items
               if isinstance(i, PageRecord) and i.ref is not None)


@pytest.mark.parametrize("name", ["cut.warc", "cut.warc.gz"], ids=["plain", "gzip"])
def test_a_file_cut_anywhere_reads_the_same(tmp_path: Path, name: str) -> None:
    """The last record truncated (a gzip member cut, at its end or inside): it is the same
    one failed item, and every page before it a reference."""
    write_warc(tmp_path / ("full" + name[3:]),
               [HttpResponse(f"http://a.example/{i}", html(i, 20)) for i in range(3)])
    data = (tmp_path / ("full" + name[3:])).read_bytes()
    for cut in [*range(1, len(data), 97), len(data) - 1, len(data) - 4, len(data) - 9]:
        (tmp_path / name).write_bytes(data[:cut])
        items = same_as_bytes(tmp_path / name)
        assert set(refs(items)) <= {"R"}, cut


@pytest.mark.parametrize("damage", ["flipped-bytes", "cut-member", "not-gzip-bytes",
                                    "flipped-crc"])
def test_a_corrupt_member_in_the_middle_loses_nothing_after_it(tmp_path: Path,
                                                              damage: str) -> None:
    path = tmp_path / "a.warc.gz"
    bodies, _, _ = damaged_member(path, damage)
    items = same_as_bytes(path)
    assert kinds(items) == "P" * GOOD + "F" + "P" * GOOD
    assert refs(items) == "R" * 2 * GOOD
    assert [i.body for i in resolved(items) if isinstance(i, PageRecord)] == bodies


def test_a_whole_file_gzip_stream_falls_back_to_bytes(tmp_path: Path) -> None:
    write_warc(tmp_path / "a.warc",
               [HttpResponse(f"http://a.example/{i}", html(i)) for i in range(4)])
    (tmp_path / "one.warc.gz").write_bytes(gzip.compress((tmp_path / "a.warc").read_bytes()))
    items = same_as_bytes(tmp_path / "one.warc.gz")
    assert kinds(items) == "SPPPP" and refs(items) == "BBBB"
    assert refs(same_as_bytes(tmp_path / "a.warc")) == "RRRR"  # the plain file: references


def test_coded_payloads_and_untyped_pages_are_spilled_as_bytes(tmp_path: Path) -> None:
    """A payload to decode (chunked, content-coded), or one kept by looking at it (no
    Content-Type), is read in the ingest, as its errors are found there."""
    body = html(1)
    chunked = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
    write_warc(tmp_path / "a.warc.gz", [
        HttpResponse("http://a.example/0", html(0)),
        HttpResponse("http://a.example/1", chunked, headers=(("Transfer-Encoding", "chunked"),)),
        HttpResponse("http://a.example/2", gzip.compress(html(2)),
                     headers=(("Content-Encoding", "gzip"),)),
        HttpResponse("http://a.example/3", html(3), content_type=None),
        HttpResponse("http://a.example/4", html(4), headers=(("Content-Encoding", "identity"),)),
        HttpResponse("http://a.example/5", b"\x1f\x8b not gzip",
                     headers=(("Content-Encoding", "gzip"),)),
    ])
    items = same_as_bytes(tmp_path / "a.warc.gz")
    assert kinds(items) == "SPPPPPF" and refs(items) == "RBBBR"


def test_records_sharing_or_spanning_members_are_bytes(tmp_path: Path) -> None:
    """A record after the first of its member, or whose payload goes on in the next
    member (read again from its member's start), is spilled as bytes."""
    records = [warc_record(HttpResponse(f"http://a.example/{i}", html(i))) for i in range(5)]
    half = len(records[3]) // 2
    (tmp_path / "a.warc.gz").write_bytes(gzip.compress(records[0] + records[1])
                                         + gzip.compress(records[2])
                                         + gzip.compress(records[3][:half])
                                         + gzip.compress(records[3][half:])
                                         + gzip.compress(records[4]))
    assert refs(same_as_bytes(tmp_path / "a.warc.gz")) == "RBRBR"


def test_the_spill_holds_references_and_reads_them_back(tmp_path: Path) -> None:
    path = tmp_path / "hostile.warc.gz"
    write_hostile_warc(path)
    pages = [i for i in refs_read(path) if isinstance(i, PageRecord)]
    assert set(refs(pages)) == {"R"}
    writer = SpillWriter(tmp_path / "in.spill")
    for page in pages:
        writer.add(page, "a.example")
    writer.close()
    assert (tmp_path / "in.spill").stat().st_size < 4000  # 13 pages' places, not their bytes
    frames = [(tmp_path / "in.spill", writer.frames["a.example"])]
    want = [replace(p, site="a.example") for p in resolved(list(pages))]
    assert list(read_spill(frames)) == want

    os.utime(path, ns=(1, 1))  # the input changed after its ingest: not read as it is now
    with pytest.raises(InputError, match=r"hostile\.warc\.gz: cannot read the record at "
                                         r"offset \d+ again \(it changed since it was read"):
        list(read_spill(frames))
    path.unlink()
    with pytest.raises(InputError, match=r"hostile\.warc\.gz: cannot read the record at"):
        list(read_spill(frames))


def test_a_crawl_of_references_gives_what_a_crawl_of_bytes_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sitesift.crawl import run_crawl
    from sitesift.io import sources
    from sitesift.jobs.run import RunSettings
    from sitesift.sitework import CrawlConfig

    write_hostile_warc(tmp_path / "hostile.warc.gz")
    write_warc(tmp_path / "plain.warc",
               [HttpResponse(f"http://b{i % 2}.example/{i}", html(i, 10)) for i in range(6)])
    inputs = [str(tmp_path / "hostile.warc.gz"), str(tmp_path / "plain.warc")]
    outs = {}
    real = sources.read_warc
    for mode in (True, False):
        if not mode:  # the ingest as it was: every page's bytes spilled
            monkeypatch.setattr(sources, "read_warc",
                                lambda p, i, m, refs=False: real(p, i, m))
        out = tmp_path / f"out-{mode}"
        summary = run_crawl(inputs, out, CrawlConfig(fit_sample=10), run=RunSettings(1))
        assert summary["balanced"]
        outs[mode] = [(out / f).read_bytes() for f in ("results.jsonl", "errors.jsonl",
                                                      "sites.jsonl")]
    assert outs[True] == outs[False]


def test_a_crawl_resumed_after_its_input_changed_is_refused(tmp_path: Path) -> None:
    """The work folder's references hold for the input as it was: job.json's fingerprint
    (size, mtime) refuses a rerun over a changed input before any work."""
    from sitesift.crawl import run_crawl
    from sitesift.jobs.run import RunSettings
    from sitesift.sitework import CrawlConfig

    path = tmp_path / "a.warc.gz"
    write_warc(path, [HttpResponse(f"http://a.example/{i}", html(i)) for i in range(3)])
    cfg, run = CrawlConfig(fit_sample=10), RunSettings(1)
    run_crawl([str(path)], tmp_path / "out", cfg, run=run, keep_work=True)
    os.utime(path, ns=(1, 1))
    with pytest.raises(InputError, match="inputs changed since"):
        run_crawl([str(path)], tmp_path / "out", cfg, run=run, keep_work=True)


def test_a_site_step_reads_each_record_from_its_input_once(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Reading a site's spill for some of its pages inflates only those pages' WARC records
    (not every record of the site's frames), and a page the caller holds (the fit's
    reading of it, being cleaned) is not read again: its source names it and refuses to
    load rather than give an empty page."""
    from sitesift.jobs.source import HELD, SpillPages, each

    records = [warc_record(HttpResponse(f"http://a.example/{i}", html(i))) for i in range(6)]
    (tmp_path / "a.warc.gz").write_bytes(b"".join(gzip.compress(r) for r in records))
    pages = [i for i in refs_read(tmp_path / "a.warc.gz") if isinstance(i, PageRecord)]
    assert refs(pages) == "RRRRRR"
    writer = SpillWriter(tmp_path / "in.spill")
    for page in pages:
        writer.add(page, "a.example")
    writer.close()
    site = SpillPages(((str(tmp_path / "in.spill"), tuple(writer.frames["a.example"])),), 6)
    read_at: list[int] = []
    real = RefReader.read

    def counted(self: RefReader, ref: object, source: str) -> bytes:
        read_at.append(ref.offset)  # type: ignore[attr-defined]
        return real(self, ref, source)  # type: ignore[arg-type]

    monkeypatch.setattr(RefReader, "read", counted)
    wanted = {i: src for i, src in each(site, [1, 3, 4], held={3})}
    assert sorted(wanted) == [1, 3, 4]
    assert read_at == [pages[1].offset, pages[4].offset]  # 0, 2, 5 unwanted; 3 held
    assert wanted[1].load().url == "http://a.example/1"
    assert wanted[3].row["url"] == "http://a.example/3" and wanted[3].data is None
    with pytest.raises(InputError, match="held by the site's fit"):
        wanted[3].load()
    assert HELD in str(wanted[3].error)
    read_at.clear()
    assert [src.load().url for _, src in each(site)] == [f"http://a.example/{i}"
                                                         for i in range(6)]
    assert len(read_at) == 6
