"""Crawl inputs: WARC reading and writing, payload decoding, sites, JSONL and folders, spill."""

from __future__ import annotations

import gzip
import itertools
import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from sitesift.errors import InputError
from sitesift.io.http import decode_payload
from sitesift.io.records import Failed, Item, PageRecord, Skipped
from sitesift.io.sources import input_kind, read_input
from sitesift.io.spill import SpillWriter, read_spill
from sitesift.io.warc import HttpResponse, read_warc, warc_record, write_warc
from sitesift.jobs.grouping import UNKNOWN, site_key

LIMIT = 1 << 20


def html(i: int, words: int = 40) -> bytes:
    return (b"<html><head><title>t</title></head><body>"
            + b"<p>paragraph %d of the page with words</p>" % i * words + b"</body></html>")


def read(path: Path, limit: int = LIMIT) -> list[Item]:
    return list(read_warc(str(path), 0, limit))


def kinds(items: list[Item]) -> str:
    return "".join(type(i).__name__[0] for i in items)  # P(age), S(kipped), F(ailed)


@pytest.mark.parametrize("name", ["a.warc", "a.warc.gz"], ids=["plain", "gzip"])
def test_written_warc_reads_back_page_for_page(tmp_path: Path, name: str) -> None:
    pages = [HttpResponse(f"http://www.site{i % 2}.example/p{i}", html(i)) for i in range(5)]
    assert write_warc(tmp_path / name, pages) == 6
    items = read(tmp_path / name)
    assert kinds(items) == "SPPPPP"  # warcinfo first
    got = [i for i in items if isinstance(i, PageRecord)]
    assert [(p.url, p.body, p.position) for p in got] == [
        (p.url, p.body, n) for n, p in enumerate(pages, 1)]
    assert len({p.offset for p in got}) == 5  # each record found at its own offset


@pytest.mark.parametrize(("response", "reason"), [
    (HttpResponse("http://a.example/q", b"", record_type="request"), "WARC request record"),
    (HttpResponse("http://a.example/m", b"k: v\r\n", "application/warc-fields",
                  record_type="metadata"), "WARC metadata record"),
    (HttpResponse("http://a.example/i.png", b"\x89PNG\r\n", "image/png"), "content type image/png"),
    (HttpResponse("http://a.example/x", b"{}", "application/json"),
     "content type application/json"),
    (HttpResponse("http://a.example/gone", html(1), status=404), "HTTP status 404"),
    (HttpResponse("http://a.example/moved", b"", None, status=301), "HTTP status 301"),
    (HttpResponse("http://a.example/blob", b"\x00\x01binary", None),
     "no content type, and not HTML"),
], ids=["request", "metadata", "image", "json", "404", "redirect", "untyped-binary"])
def test_non_pages_are_skipped_with_a_reason(tmp_path: Path, response: HttpResponse,
                                             reason: str) -> None:
    write_warc(tmp_path / "a.warc.gz", [response, HttpResponse("http://a.example/", html(0))])
    items = read(tmp_path / "a.warc.gz")
    assert kinds(items) == "SSP"
    assert isinstance(items[1], Skipped) and items[1].reason == reason


def test_untyped_html_and_xhtml_are_pages(tmp_path: Path) -> None:
    write_warc(tmp_path / "a.warc", [
        HttpResponse("http://a.example/1", b"  <!DOCTYPE html><html><body>x</body></html>", None),
        HttpResponse("http://a.example/2", html(2), "application/xhtml+xml"),
    ])
    assert kinds(read(tmp_path / "a.warc")) == "SPP"


def _members(records: list[bytes], gz: bool) -> list[int]:
    """Where each record ends in the file write_warc makes of them."""
    ends, pos = [], 0
    for data in records:
        pos += len(gzip.compress(data, 6, mtime=0) if gz else data)
        ends.append(pos)
    return ends


def _gzip_member_ends(data: bytes) -> list[int]:
    """Where each gzip member of `data` ends."""
    ends: list[int] = []
    while not ends or ends[-1] < len(data):
        inflater = zlib.decompressobj(31)
        inflater.decompress(data[ends[-1] if ends else 0:])
        ends.append(len(data) - len(inflater.unused_data))
    return ends


@pytest.mark.parametrize("name", ["cut.warc", "cut.warc.gz"], ids=["plain", "gzip"])
def test_truncated_file_loses_no_record_at_any_cut(tmp_path: Path, name: str) -> None:
    """Cut anywhere: every record that ends before the cut is read whole, the one the cut
    falls in is either whole (only its trailer was lost) or one Failed item, and that is all."""
    pages = [HttpResponse(f"http://a.example/{i}", html(i, 20)) for i in range(3)]
    full = tmp_path / ("full" + name[3:])
    write_warc(full, pages)
    data = full.read_bytes()
    info = data[: len(data) - sum(
        len(gzip.compress(warc_record(p), 6, mtime=0) if name.endswith(".gz") else warc_record(p))
        for p in pages)]
    ends = [len(info)] + [len(info) + e for e in _members([warc_record(p) for p in pages],
                                                           name.endswith(".gz"))]
    if name.endswith(".gz"):  # record ids differ from write to write: sizes from the file
        ends = _gzip_member_ends(data)
    for cut in range(1, len(data), 5):
        (tmp_path / name).write_bytes(data[:cut])
        items = read(tmp_path / name)
        whole = sum(1 for end in ends if end <= cut)
        assert all(not isinstance(i, Failed) for i in items[:whole]), cut
        assert whole <= len(items) <= whole + 1, (cut, kinds(items))
        assert all(not isinstance(i, Failed) for i in items[:-1]), (cut, kinds(items))
        bodies = [i.body for i in items if isinstance(i, PageRecord)]
        assert bodies == [p.body for p in pages][: len(bodies)], cut


def test_gzip_bomb_in_a_record_is_an_error_and_reading_goes_on(tmp_path: Path) -> None:
    bomb = gzip.compress(b"\0" * (50 * LIMIT), 9)  # 50 MiB of zeros in ~50 KB
    write_warc(tmp_path / "bomb.warc.gz", [
        HttpResponse("http://a.example/bomb", bomb, headers=(("Content-Encoding", "gzip"),)),
        HttpResponse("http://a.example/after", html(1)),
    ])
    items = read(tmp_path / "bomb.warc.gz")
    assert kinds(items) == "SFP"
    assert isinstance(items[1], Failed) and "decompression bomb" in items[1].reason
    assert items[1].url == "http://a.example/bomb"


def test_oversized_record_is_an_error_without_being_read(tmp_path: Path) -> None:
    write_warc(tmp_path / "big.warc.gz", [
        HttpResponse("http://a.example/big", b"<p>" + b"x" * (3 * LIMIT)),
        HttpResponse("http://a.example/after", html(1)),
    ])
    items = read(tmp_path / "big.warc.gz")
    assert kinds(items) == "SFP"
    assert isinstance(items[1], Failed) and "exceeds the limit" in items[1].reason


def test_garbage_is_one_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "junk.warc").write_bytes(b"this is not a WARC file\r\n\r\n" * 20)
    items = read(tmp_path / "junk.warc")
    assert kinds(items) == "F"


def _deflate_raw(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize(("body", "encoding", "transfer"), [
    (gzip.compress(html(1)), "gzip", None),
    (zlib.compress(html(1)), "deflate", None),
    (_deflate_raw(html(1)), "deflate", None),
    (html(1), "gzip", None),  # labelled compressed, sent plain
    (b"%x\r\n%s\r\n0\r\n\r\n" % (len(html(1)), html(1)), None, "chunked"),
    (html(1), "identity", None),
], ids=["gzip", "deflate-zlib", "deflate-raw", "mislabelled", "chunked", "identity"])
def test_payload_codings_are_undone(body: bytes, encoding: str | None,
                                    transfer: str | None) -> None:
    assert decode_payload(body, encoding, transfer, LIMIT) == html(1)


def test_brotli_bomb_and_unknown_coding_are_input_errors() -> None:
    brotli = pytest.importorskip("brotli")
    with pytest.raises(InputError, match="decompression bomb"):
        decode_payload(brotli.compress(b"\0" * (8 * LIMIT)), "br", None, LIMIT)
    with pytest.raises(InputError, match="unsupported content coding"):
        decode_payload(b"\x01\x02", "compress", None, LIMIT)


@pytest.mark.parametrize(("url", "domain", "host"), [
    ("http://news.bbc.co.uk/a", "bbc.co.uk", "news.bbc.co.uk"),
    ("https://WWW.Example.COM./x", "example.com", "example.com"),
    ("http://someone.blogspot.com/p", "someone.blogspot.com", "someone.blogspot.com"),
    ("http://192.168.1.7:8080/", "192.168.1.7", "192.168.1.7"),
    ("http://localhost/x", "localhost", "localhost"),
    (None, UNKNOWN, UNKNOWN),
    ("http://[broken/", UNKNOWN, UNKNOWN),
], ids=["ccSLD", "www-case-dot", "private-suffix", "ip", "localhost", "none", "malformed"])
def test_site_keys(url: str | None, domain: str, host: str) -> None:
    assert site_key(url, "domain") == domain
    assert site_key(url, "host") == host


def test_jsonl_input_yields_one_item_per_non_blank_line(tmp_path: Path) -> None:
    lines = [json.dumps({"url": "http://a.example/1", "html": "<p>caf\u00e9</p>"}), "",
             "{not json", json.dumps({"url": "http://a.example/2"}),
             json.dumps({"url": "http://a.example/3", "html": "<p>three</p>"})]
    path = tmp_path / "pages.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = list(read_input(str(path), 3, LIMIT))
    assert kinds(items) == "PFFP"
    assert [i.position for i in items] == [0, 1, 2, 3]
    first = items[0]
    assert isinstance(first, PageRecord) and first.body == "<p>caf\u00e9</p>".encode()
    assert isinstance(items[2], Failed) and "needs a string 'html'" in items[2].reason


def test_folder_input_reads_pages_and_their_declared_urls(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_bytes(
        b'<html><head><link rel="canonical" href="http://x.example/a"></head><body>a</body>')
    (tmp_path / "b.html.gz").write_bytes(gzip.compress(b"<html><body>b</body></html>"))
    (tmp_path / "notes.txt").write_text("not a page")
    assert input_kind(tmp_path) == "folder"
    items = list(read_input(str(tmp_path), 0, LIMIT))
    assert kinds(items) == "PP"
    assert [i.url for i in items if isinstance(i, PageRecord)] == ["http://x.example/a", None]


def test_unknown_input_kind_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("a,b")
    with pytest.raises(InputError, match="not a WARC"):
        input_kind(tmp_path / "x.csv")
    with pytest.raises(InputError, match="no such file"):
        input_kind(tmp_path / "missing.warc")


@pytest.mark.parametrize(("budget", "words"), [(2000, 5), (64 << 20, 20_000)],
                         ids=["many-small-flushes", "one-flush-over-4-MiB"])
def test_spill_keeps_each_sites_pages_in_order(tmp_path: Path, budget: int, words: int) -> None:
    path = tmp_path / "in.spill"
    writer = SpillWriter(path, budget=budget)
    pages = [PageRecord(0, n, "in.warc", f"http://s{n % 3}.example/{n}", "text/html",
                        html(n, words), n * 10, f"s{n % 3}.example") for n in range(30)]
    for page in pages:
        writer.add(page)
    assert writer.close() == {f"s{k}.example": 10 for k in range(3)}
    assert [p.name for p in tmp_path.iterdir()] == ["in.spill"]  # one file for every site
    frames = [f for site in writer.frames.values() for f in site]
    assert (len(frames) == 3) == (budget > 1 << 20)  # a frame per site per flush
    assert sum(length for _, length in frames) == path.stat().st_size
    for k in range(3):
        site = f"s{k}.example"
        assert list(read_spill([(path, writer.frames[site])])) == [
            p for p in pages if p.site == site]



def _lz4_frame(data: bytes) -> bytes:
    import io

    from fastwarc.stream_io import Lz4Writer

    raw = io.BytesIO()
    writer = Lz4Writer(raw)
    writer.write(data)
    writer.close()
    return raw.getvalue()


def test_spill_frames_tile_the_file_and_bad_ones_are_an_input_error(tmp_path: Path) -> None:
    """A site's index names LZ4 frames of its own pages, and the frames of all the sites are
    the file, end to end; a frame cut, misplaced or holding a cut record is an InputError
    naming the file and the frame (not pages of another site, a panic or a hang)."""
    path = tmp_path / "in.spill"
    writer = SpillWriter(path, budget=3000)
    pages = [PageRecord(0, n, "in.warc", f"http://s{n % 4}.example/{n}", "text/html",
                        html(n, 5 + n), n, f"s{n % 4}.example") for n in range(40)]
    for page in pages:
        writer.add(page)
    writer.close()
    data = path.read_bytes()
    frames = sorted((offset, length, site) for site, held in writer.frames.items()
                    for offset, length in held)
    assert len(frames) > 8 and frames[0][0] == 0
    assert all(a + n == b for (a, n, _), (b, _, _) in itertools.pairwise(frames))
    assert frames[-1][0] + frames[-1][1] == len(data)
    for offset, length, site in frames:
        assert data[offset : offset + 4] == b"\x04\x22\x4d\x18"  # an LZ4 frame starts there
        got = list(read_spill([(path, [(offset, length)])]))
        assert got and {p.site for p in got} == {site}
        assert all(p == pages[p.position] for p in got)
    offset, length, _ = frames[3]
    for bad in ((offset, length - 1), (offset + 1, length), (offset, length + 1),
                (len(data) - 5, 10)):
        with pytest.raises(InputError, match=r"in\.spill: unreadable spill file \(the frame at"):
            list(read_spill([(path, [bad])]))
    meta = json.dumps([0, 1, "in.warc", "http://s.example/", "text/html", 0, "s"]).encode()
    record = struct.pack("<II", len(meta), 100) + meta + b"<p>cut short"
    for frame in (record, struct.pack("<II", 5, 0) + b"{bad}", b"\x01\x00"):
        (tmp_path / "bad.spill").write_bytes(_lz4_frame(frame))
        size = (tmp_path / "bad.spill").stat().st_size
        with pytest.raises(InputError, match=r"bad\.spill: unreadable spill file"):
            list(read_spill([(tmp_path / "bad.spill", [(0, size)])]))
    path.write_bytes(data[: offset + length // 2])  # the file cut inside the frame
    with pytest.raises(InputError, match="truncated"):
        list(read_spill([(path, [(offset, length)])]))

# -- provenance: each record's WARC headers, as written ------------------------------------

def warc_heads(path: Path) -> list[dict[str, str]]:
    """The WARC header of each record of a `.warc.gz` (one gzip member each), read apart
    from sitesift's reader: what the crawlers wrote. A member cut short gives what it has."""
    data, heads = path.read_bytes(), []
    while data:
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        text = member.decompress(data)
        data = member.unused_data
        head = text.split(b"\r\n\r\n", 1)[0].decode("utf-8").split("\r\n")
        heads.append(dict(line.split(": ", 1) for line in head[1:] if ": " in line))
    return heads


def sha1_b32(data: bytes) -> str:
    import base64
    import hashlib

    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def test_pages_carry_their_warc_record_id_date_and_payload_digest(tmp_path: Path) -> None:
    """Each page has its record's WARC-Record-ID and WARC-Date as written, and its
    WARC-Payload-Digest where the record has one (crawlers write it; not every WARC has)."""
    pages = [HttpResponse(f"http://a.example/p{i}", html(i), digests=i % 2 == 1)
             for i in range(4)]
    write_warc(tmp_path / "a.warc.gz", pages)
    heads = warc_heads(tmp_path / "a.warc.gz")[1:]  # (after the warcinfo record)
    got = [i for i in read(tmp_path / "a.warc.gz") if isinstance(i, PageRecord)]
    assert len(got) == len(heads) == 4
    for page, head, written in zip(got, heads, pages, strict=True):
        assert page.warc_record_id == head["WARC-Record-ID"]
        assert page.warc_record_id.startswith("<urn:uuid:")  # type: ignore[union-attr]
        assert page.warc_date == head["WARC-Date"]
        assert page.warc_payload_digest == head.get("WARC-Payload-Digest")
        assert page.warc_payload_digest == (sha1_b32(written.body) if written.digests else None)


def test_a_record_that_cannot_be_read_keeps_what_its_header_said(tmp_path: Path) -> None:
    """A failed record whose WARC header was read (too large, cut off) has its record id
    and date; bytes that are no record have none."""
    path = tmp_path / "a.warc.gz"
    write_warc(path, [HttpResponse("http://a.example/big", html(0, 2000), digests=True)])
    cut = gzip.compress(warc_record(HttpResponse("http://a.example/cut", html(1))))
    with open(path, "ab") as fh:
        fh.write(gzip.compress(b"no WARC record here\r\n" * 4))
        fh.write(gzip.compress(warc_record(HttpResponse("http://a.example/ok", html(2)))))
        fh.write(cut[:-12])  # within its content: its header whole
    heads = warc_heads(path)
    items = read(path, limit=10_000)
    assert kinds(items) == "SFFPF"
    big, junk, _, short = items[1:]
    assert isinstance(big, Failed) and "exceeds the limit" in big.reason
    assert (big.warc_record_id, big.warc_date, big.warc_payload_digest) == (
        heads[1]["WARC-Record-ID"], heads[1]["WARC-Date"], heads[1]["WARC-Payload-Digest"])
    assert isinstance(junk, Failed) and junk.warc_record_id is junk.warc_date is None
    assert isinstance(short, Failed) and short.url == "http://a.example/cut"
    assert (short.warc_record_id, short.warc_date, short.warc_payload_digest) == (
        heads[4]["WARC-Record-ID"], heads[4]["WARC-Date"], None)


def test_inputs_that_are_not_warc_have_no_warc_provenance(tmp_path: Path) -> None:
    (tmp_path / "pages.jsonl").write_text(
        json.dumps({"url": "http://a.example/1", "html": "<p>one</p>"}) + "\n{bad\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "a.html").write_bytes(b"<html><body>a</body>")
    items = [*read_input(str(tmp_path / "pages.jsonl"), 0, LIMIT),
             *read_input(str(tmp_path / "folder"), 1, LIMIT)]
    assert kinds(items) == "PFP"
    assert all(i.warc_record_id is i.warc_date is i.warc_payload_digest is None  # type: ignore[union-attr]
               for i in items)


def test_the_spill_keeps_a_pages_provenance(tmp_path: Path) -> None:
    """Its WARC headers go through the spill with the page; a page spilled without them (the
    meta of layout 2) reads back with none."""
    import io

    from fastwarc.stream_io import Lz4Writer

    page = PageRecord(0, 3, "in.warc", "http://s.example/", "text/html", html(0), 40,
                      "s.example", "<urn:uuid:1>", "2024-01-02T03:04:05Z", "sha1:ABC")
    writer = SpillWriter(tmp_path / "in.spill")
    writer.add(page)
    writer.close()
    assert list(read_spill([(tmp_path / "in.spill", writer.frames["s.example"])])) == [page]
    meta = json.dumps([0, 3, "in.warc", "http://s.example/", "text/html", 40,
                       "s.example"]).encode()
    raw = io.BytesIO()
    lz4 = Lz4Writer(raw)
    lz4.write(struct.pack("<II", len(meta), len(page.body)) + meta + page.body)
    lz4.close()
    (tmp_path / "old.spill").write_bytes(raw.getvalue())
    (old,) = read_spill([(tmp_path / "old.spill", [(0, len(raw.getvalue()))])])
    assert old.warc_record_id is old.warc_date is old.warc_payload_digest is None
    assert old.body == page.body and old.offset == 40


# -- hostile WARCs: one bad record costs that record only -----------------------------------
# Each file is GOOD pages, a bad record (or bad bytes), GOOD more pages: in a plain file, or
# one gzip member each. Every good page must come through once, the bad stretch must be
# one failed item naming its offset and where reading resumed, and nothing else.

GOOD = 4
BAD_URL = "http://a.example/bad"


def _response(http: bytes) -> bytes:
    """A WARC response record holding the HTTP message `http` byte for byte."""
    head = warc_record(HttpResponse(BAD_URL, b"")).split(b"\r\n\r\n", 1)[0]
    return _set_length(head, len(http)) + b"\r\n\r\n" + http + b"\r\n\r\n"


def _set_length(record: bytes, value: int | bytes) -> bytes:
    """The WARC record with its Content-Length replaced (by a lie, or garbage)."""
    text = b"%d" % value if isinstance(value, int) else value
    return re.sub(rb"Content-Length: \d+", b"Content-Length: " + text, record, count=1)


def _hostile(path: Path, bad: bytes) -> tuple[list[bytes], int]:
    """Write GOOD pages, `bad`, GOOD pages to `path`; the good bodies and `bad`'s offset."""
    good = [HttpResponse(f"http://a.example/{i}", html(i, 10)) for i in range(2 * GOOD)]
    records = [warc_record(p) for p in good]
    records.insert(GOOD, bad)
    if path.name.endswith(".gz"):
        records = [gzip.compress(r, 6, mtime=0) for r in records]
    path.write_bytes(b"".join(records))
    return [p.body for p in good], sum(len(r) for r in records[:GOOD])


HTML99 = html(99, 10)
GOOD_RECORD = warc_record(HttpResponse(BAD_URL, HTML99))
HOSTILE_PAGES = {  # bad-looking responses that browsers read: the page comes through
    "bare-lf": _response(b"HTTP/1.0 200 OK\nServer: old\nContent-Type: text/html\n\n" + HTML99),
    "bare-lf-untyped": _response(b"HTTP/1.0 200 OK\nServer: NCSA/1.3\n\n" + HTML99),
    "folded-header": _response(b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\tc\r\n"
                               b"Content-Type:\r\n text/html\r\n\r\n" + HTML99),
    "odd-status-line": _response(b"HTTP/1.1  200\tOK\r\nContent-Type: text/html\r\n\r\n" + HTML99),
    "status-without-code": _response(b"HTTP/1.1 OK\nContent-Type: text/html\n\n" + HTML99),
    "no-status-line": _response(HTML99),  # HTTP/0.9: all body
    "http-length-negative": _response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                                      b"Content-Length: -3\r\n\r\n" + HTML99),
    "http-length-absurd": _response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                                    b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n" + HTML99),
    "http-length-short": _response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                                   b"Content-Length: 5\r\n\r\n" + HTML99),
}
HOSTILE_RECORDS = {  # records that cannot be read: one failed item, and reading goes on
    "http-header-3-MiB": (_response(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * (3 << 20)
                                    + b"\r\nContent-Type: text/html\r\n\r\n" + HTML99),
                          "HTTP header over"),
    "warc-header-300-KiB": (GOOD_RECORD.replace(b"\r\n", b"\r\nX-Big: " + b"b" * 300_000
                                                + b"\r\n", 1), "WARC record header over"),
    "length-negative": (_set_length(GOOD_RECORD, b"-5"), "bad Content-Length '-5'"),
    "length-not-a-number": (_set_length(GOOD_RECORD, b"12x"), "bad Content-Length"),
    "length-absurd": (_set_length(GOOD_RECORD, b"9" * 30), "bad Content-Length"),
    "length-past-the-end": (_set_length(GOOD_RECORD, 999_999_999), "truncated record"),
    "length-too-long": (_set_length(GOOD_RECORD, len(GOOD_RECORD) + 300), "does not end"),
    "length-too-short": (_set_length(GOOD_RECORD, 100), "does not end"),
    "junk-between-records": (b"junk, not a record\r\n" * 50, "not a WARC record"),
}
FORMATS = pytest.mark.parametrize("name", ["a.warc", "a.warc.gz"], ids=["plain", "gzip"])


def _positions_are_dense(items: list[Item]) -> bool:
    return [getattr(i, "position", None) for i in items] == list(range(len(items)))


@FORMATS
@pytest.mark.parametrize("case", sorted(HOSTILE_PAGES))
def test_http_headers_are_read_as_browsers_read_them(tmp_path: Path, name: str,
                                                     case: str) -> None:
    bodies, _ = _hostile(tmp_path / name, HOSTILE_PAGES[case])
    items = read(tmp_path / name)
    assert kinds(items) == "P" * (2 * GOOD + 1)
    bodies.insert(GOOD, HTML99)
    assert [i.body for i in items if isinstance(i, PageRecord)] == bodies
    assert isinstance(items[GOOD], PageRecord) and items[GOOD].url == BAD_URL


@FORMATS
@pytest.mark.parametrize("case", sorted(HOSTILE_RECORDS))
def test_one_bad_record_costs_that_record_only(tmp_path: Path, name: str, case: str) -> None:
    bad, words = HOSTILE_RECORDS[case]
    bodies, offset = _hostile(tmp_path / name, bad)
    items = read(tmp_path / name)
    assert kinds(items) == "P" * GOOD + "F" + "P" * GOOD, [getattr(i, "reason", "") for i in items]
    assert [i.body for i in items if isinstance(i, PageRecord)] == bodies
    failed = items[GOOD]
    assert isinstance(failed, Failed) and failed.offset == offset
    assert words in failed.reason and failed.url in (BAD_URL, None)
    if "resumed" in failed.reason:  # a stretch: says where it starts and reading went on
        assert f"at offset {offset}; reading resumed at offset {items[GOOD + 1].offset}" \
            in failed.reason
    assert _positions_are_dense(items)


def _member_starts(data: bytes) -> list[int]:
    return [0, *_gzip_member_ends(data)[:-1]]


def damaged_member(path: Path, damage: str) -> tuple[list[bytes], int, bytes]:
    """A gzip WARC of GOOD pages, a member damaged as `damage` says, GOOD pages; the good
    bodies, the damaged member's offset and bytes."""
    bodies, offset = _hostile(path, GOOD_RECORD)
    data = path.read_bytes()
    member = data[offset : _member_starts(data)[GOOD + 1]]
    mid = len(member) // 2
    broken = {"flipped-bytes": member[:mid] + bytes(b ^ 0x5A for b in member[mid : mid + 8])
                               + member[mid + 8 :],
              "cut-member": member[:mid],
              "not-gzip-bytes": b"\0garbage between members" * 20,
              "flipped-crc": member[:-8] + bytes(b ^ 0xFF for b in member[-8:-4])
                             + member[-4:]}[damage]
    path.write_bytes(data[:offset] + broken + data[offset + len(member) :])
    return bodies, offset, broken


@pytest.mark.parametrize("damage", ["flipped-bytes", "cut-member", "not-gzip-bytes"])
def test_damaged_gzip_member_resumes_at_the_next_member(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "a.warc.gz"
    bodies, offset, broken = damaged_member(path, damage)
    items = read(path)
    assert kinds(items) == "P" * GOOD + "F" + "P" * GOOD
    assert [i.body for i in items if isinstance(i, PageRecord)] == bodies
    failed = items[GOOD]
    assert isinstance(failed, Failed) and failed.offset == offset
    assert "gzip member" in failed.reason
    assert f"resumed at offset {offset + len(broken)}" in failed.reason


def test_records_inside_a_lying_length_are_found_again_in_one_gzip_member(
        tmp_path: Path) -> None:
    """A whole file gzipped as one member (not one per record): the member is inflated
    again to look inside the bad record's claimed length."""
    path = tmp_path / "one.warc"
    bodies, _ = _hostile(path, _set_length(GOOD_RECORD, len(GOOD_RECORD) * 3))
    (tmp_path / "one.warc.gz").write_bytes(gzip.compress(path.read_bytes()))
    items = read(tmp_path / "one.warc.gz")
    assert kinds(items) == "P" * GOOD + "F" + "P" * GOOD
    assert [i.body for i in items if isinstance(i, PageRecord)] == bodies


def _zstd_warc(path: Path, records: list[bytes]) -> None:
    from fastwarc.stream_io import ZstdWriter

    with open(path, "wb") as fh:
        for record in records:  # one frame a record, as .warc.zst writers do
            writer = ZstdWriter(fh)
            writer.write(record)
            writer.close()  # ends the frame; the file stays open


def test_zstd_bad_record_resyncs_and_corrupt_data_ends_the_file(tmp_path: Path) -> None:
    good = [warc_record(HttpResponse(f"http://a.example/{i}", html(i, 10))) for i in range(8)]
    _zstd_warc(tmp_path / "a.warc.zst", [*good[:4], _set_length(GOOD_RECORD, b"-1"), *good[4:]])
    assert kinds(read(tmp_path / "a.warc.zst")) == "PPPPFPPPP"
    _zstd_warc(tmp_path / "b.warc.zst", good)
    data = bytearray((tmp_path / "b.warc.zst").read_bytes())
    data[len(data) // 2 : len(data) // 2 + 16] = bytes(16)  # a frame's data zeroed
    (tmp_path / "b.warc.zst").write_bytes(bytes(data))
    items = read(tmp_path / "b.warc.zst")
    assert kinds(items).rstrip("F") == kinds(items)[:-1] and kinds(items).endswith("F")
    assert isinstance(items[-1], Failed) and "nothing readable after it" in items[-1].reason


def test_a_panic_or_read_error_in_the_reader_is_a_failed_item(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sitesift.io.warcstream as warcstream

    class PanicException(BaseException):  # what PyO3 raises for a Rust panic
        pass

    class Panicking:
        def __init__(self, fh: object) -> None:
            self.calls = 0

        def read(self, n: int) -> bytes:
            self.calls += 1
            if self.calls > 1:
                raise PanicException("called `Option::unwrap()` on a `None` value")
            return GOOD_RECORD

    monkeypatch.setattr(warcstream, "ZstdReader", Panicking)
    _zstd_warc(tmp_path / "a.warc.zst", [GOOD_RECORD])
    items = read(tmp_path / "a.warc.zst")
    assert kinds(items) == "PF" and "unwrap" in items[1].reason  # type: ignore[union-attr]
    (tmp_path / "dir.warc").mkdir()
    items = read(tmp_path / "dir.warc")
    assert kinds(items) == "F" and "cannot open" in items[0].reason  # type: ignore[union-attr]


def write_hostile_warc(path: Path) -> int:
    """A gzip WARC of 12 good pages of one site, a bare-LF page and four bad records (one a
    junk stretch) between them; its number of records (17: 13 pages, 4 errors)."""
    good = [HttpResponse(f"http://a.example/{i}", html(i, 10)) for i in range(12)]
    bad = [HOSTILE_RECORDS[c][0] for c in ("length-negative", "http-header-3-MiB",
                                           "length-too-long", "junk-between-records")]
    records = [warc_record(p) for p in good[:3]] + [HOSTILE_PAGES["bare-lf"]]
    for k, record in enumerate(bad):
        records += [record, *(warc_record(p) for p in good[3 + 2 * k : 5 + 2 * k])]
    records += [warc_record(p) for p in good[11:]]
    path.write_bytes(b"".join(gzip.compress(r, 6, mtime=0) for r in records))
    return len(records)


def test_crawl_counts_every_record_of_a_hostile_warc_once(tmp_path: Path) -> None:
    """`sitesift crawl`: records_in is the records of the file (a bad stretch is one), every
    good page has its result, every bad record its error."""
    from sitesift.crawl import run_crawl
    from sitesift.jobs.run import RunSettings
    from sitesift.sitework import CrawlConfig

    count = write_hostile_warc(tmp_path / "hostile.warc.gz")
    summary = run_crawl([str(tmp_path / "hostile.warc.gz")], tmp_path / "out",
                        CrawlConfig(fit_sample=10), run=RunSettings(1))
    assert summary["records_in"] == count == 17
    assert (summary["results"], summary["errors"], summary["skipped"]) == (13, 4, 0)
    assert summary["balanced"]
