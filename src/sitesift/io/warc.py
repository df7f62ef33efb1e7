"""WARC files in and out.

`read_warc` yields one item per WARC record: HTML responses as pages; requests, metadata,
non-HTML and non-2xx responses as skipped with a reason; oversized and undecodable
responses as failed. It frames the records itself (over `sitesift.io.warcstream`), so
that one bad record costs that record only, where FastWARC gave up on the rest of the
file: a record whose header is malformed or too large, whose Content-Length is missing,
negative, cut short by the end of the data or not followed by the next record, or whose
gzip member is corrupt or cut, starts an unreadable stretch; reading resumes at the next
record found after it (at the next line starting `WARC/`, the next gzip member), and each
stretch is one failed item naming its offset, the reason and where reading resumed. The
records inside a bad record's claimed length are found again (uncompressed files, and gzip
members up to `warcstream.REWIND_LIMIT` bytes). Corrupt zstd or lz4 data ends the file.

Which responses are kept is its `keep` parameter (a `ResponseFilter`): HTML pages
(`PAGES`, the crawl's rule) unless told otherwise. The renderer's resource store
(`sitesift.browser.resources`) keeps stylesheets, images and fonts, so that a damaged WARC
costs its pages' styles no more than their text.

HTTP headers are read as browsers read them (`sitesift.io.http`): bare-LF or CRLF lines,
folded lines, a status line with odd spacing or no code; the HTTP Content-Length is not
used (the WARC record says where the payload ends). An HTTP header over `http.HEAD_LIMIT`
bytes fails its record only.

Each page, and each failed item whose WARC header was read, carries its record's
WARC-Record-ID, WARC-Date and WARC-Payload-Digest as written (`records.WARC_FIELDS`; an
unreadable stretch, those of the record it starts at), for the crawl's records.

Offsets: of the record in an uncompressed file, of its gzip member in a gzip file, in the
decompressed data for zstd and lz4.

`write_warc` writes HTTP responses (and, for tests, other records) as a WARC, one gzip
member per record as crawlers do; tests and benchmarks/make_warc.py build their inputs
with it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO, Protocol

from fastwarc.warc import WarcRecord, WarcRecordType

from sitesift.decode import header_fields
from sitesift.errors import InputError
from sitesift.io.http import (
    HEAD_LIMIT,
    decode_payload,
    is_http_head,
    looks_like_html,
    parse_head,
    plain_payload,
    skip_reason,
)
from sitesift.io.records import Failed, Item, PageRecord, Skipped
from sitesift.io.warcref import Ref
from sitesift.io.warcstream import (
    REWIND_LIMIT,
    Damaged,
    Gzip,
    Plain,
    Source,
    Stream,
    open_source,
)

WARC_HEAD_LIMIT = 64 * 1024
"""A WARC record header larger than this is not one (FastWARC allows 32 KiB)."""
_TYPES = frozenset({"warcinfo", "response", "resource", "request", "metadata", "revisit",
                    "conversion", "continuation"})
_LENGTH = re.compile(r"[0-9]{1,18}")  # more digits: an absurd length, not a number to parse
_PROVENANCE = ("warc-record-id", "warc-date", "warc-payload-digest")  # (`records.WARC_FIELDS`)
Provenance = tuple[str | None, str | None, str | None]
_UNKNOWN: Provenance = (None, None, None)


class ResponseFilter(Protocol):
    """Which HTTP responses of a WARC are records to yield (`PageRecord`s); the others are
    skipped with the reason given. Asked twice, so that a response skipped by its header is
    never read."""

    def by_header(self, url: str | None, status: int | None,
                  content_type: str | None) -> str | None:
        """Why the response is skipped, from its header (None: read its body)."""
        ...

    def by_body(self, content_type: str | None, body: bytes) -> str | None:
        """Why the response is skipped, from its decoded body (None: keep it)."""
        ...


class HtmlPages:
    """The crawl's rule: 2xx HTML responses, and untyped ones whose body looks like HTML."""

    def by_header(self, url: str | None, status: int | None,
                  content_type: str | None) -> str | None:
        return skip_reason(status, content_type)

    def by_body(self, content_type: str | None, body: bytes) -> str | None:
        return None if content_type or looks_like_html(body) else "no content type, and not HTML"


PAGES = HtmlPages()


def read_warc(path: str, input_index: int, max_bytes: int, *,
              keep: ResponseFilter = PAGES, refs: bool = False) -> Iterator[Item]:
    """Every record of the WARC file at `path`, in file order (a local path, or a URL that
    fsspec opens: s3://, hdfs://, ...); the responses `keep` keeps are `PageRecord`s.
    `refs` (the crawl's ingest, with `PAGES`): a page whose payload can be read again as it
    is in the file is one without its body, and with a `Ref` to it (`sitesift.io.warcref`)."""
    return _Reader(path, input_index, max_bytes, keep, refs and keep is PAGES).items()


class _BadRecord(Exception):
    """The record here cannot be framed; look for the next one from `resume` on."""

    def __init__(self, reason: str, resume: int) -> None:
        super().__init__(reason)
        self.reason, self.resume = reason, resume


def _open(path: str) -> BinaryIO:
    if "://" not in path:
        return open(path, "rb")
    import fsspec  # installed with FastWARC's remote support; only URLs need it

    return fsspec.open(path, "rb").open()


class _Reader:
    """One pass over one file: numbers the items, and holds the unreadable stretch being
    passed over until reading resumes (then it is one failed item)."""

    def __init__(self, path: str, index: int, max_bytes: int, keep: ResponseFilter,
                 refs: bool) -> None:
        self.path, self.index, self.max_bytes, self.keep = path, index, max_bytes, keep
        self.refs = refs and "://" not in path
        self.stamp: tuple[str, int, int] | None = None  # for a Ref: the file, size, mtime
        self.count = 0
        self.url: str | None = None  # of the record being read
        self.warc = _UNKNOWN  # its WARC-Record-ID, WARC-Date, WARC-Payload-Digest
        # the unreadable stretch: its offset, and the url, provenance and reason of its start
        self.stretch: tuple[int | None, str | None, Provenance, str] | None = None

    def items(self) -> Iterator[Item]:
        try:
            fh = _open(self.path)
        except (OSError, ValueError, ImportError) as exc:
            yield self._numbered(Failed(self.index, 0, self.path, None, None,
                                        f"cannot open the WARC file: {exc}"))
            return
        with fh:
            try:
                source: Source | None = open_source(fh)
                if self.refs and isinstance(source, (Plain, Gzip)):
                    stat = os.fstat(fh.fileno())
                    self.stamp = (os.path.abspath(self.path), stat.st_size, stat.st_mtime_ns)
            except (OSError, ValueError) as exc:
                self._open(0, f"cannot read the WARC file ({exc})")
                source = None
            while source is not None:
                damaged = yield from self._part(source)
                source = source.after_damage() if damaged else None
        if self.stretch is not None:
            yield self._close("nothing readable after it")

    def _part(self, source: Source) -> Generator[Item, None, bool]:
        """The records of `source` until its end or damage (returns True for damage)."""
        stream = Stream(source)
        resume: int | None = None  # after a bad record: look for the next one from here
        while True:
            start, self.url, self.warc = stream.pos, None, _UNKNOWN
            try:
                if resume is not None:
                    _resync(stream, resume)
                    resume = None
                stream.skip_blank()
                start = stream.pos
                if not stream.peek(1):
                    if source.next_part():
                        continue
                    return False
                source.forget(start)
                item = self._record(stream, source.offset_of(start))
            except _BadRecord as bad:
                self._open(source.offset_of(start), bad.reason)
                resume = bad.resume
                continue
            except (Damaged, OSError) as exc:
                self._open(source.offset_of(start), str(exc))
                return True
            if self.stretch is not None:
                yield self._close(f"reading resumed at offset {source.offset_of(start)}")
            yield self._numbered(item)

    def _numbered(self, item: Item) -> Item:
        self.count += 1
        return replace(item, position=self.count - 1)

    def _open(self, offset: int | None, reason: str) -> None:
        if self.stretch is None:  # a stretch goes on until a record is read again
            self.stretch = (offset, self.url, self.warc, reason)

    def _close(self, end: str) -> Item:
        assert self.stretch is not None
        offset, url, warc, reason = self.stretch
        self.stretch = None
        where = "" if offset is None else f" at offset {offset}"
        return self._numbered(Failed(self.index, 0, self.path, url, offset,
                                     f"{reason}{where}; {end}", *warc))

    def _record(self, stream: Stream, offset: int) -> Item:
        """The record at this position, read to its end and checked to end there."""
        self.url, self.warc = None, _UNKNOWN
        start = stream.pos
        if not stream.peek(5).startswith(b"WARC/"):
            raise _BadRecord("not a WARC record", start + 1)
        head = stream.head(WARC_HEAD_LIMIT)
        if head is None:
            large = len(stream.peek(WARC_HEAD_LIMIT)) >= WARC_HEAD_LIMIT
            raise _BadRecord(f"WARC record header over {WARC_HEAD_LIMIT:,} bytes" if large
                             else "truncated WARC record header", start + 1)
        fields = header_fields(head)
        self.url = _clean_uri(fields.get("warc-target-uri"))
        self.warc = (fields.get(_PROVENANCE[0]) or None, fields.get(_PROVENANCE[1]) or None,
                     fields.get(_PROVENANCE[2]) or None)
        length = _content_length(fields.get("content-length"), start + 1)
        stream.skip(len(head))
        content = stream.pos
        stream.span = True  # a record may go on in the next gzip member
        try:
            item = self._content(stream, fields, length, offset, start)
            stream.skip(content + length - stream.pos)
        finally:
            stream.span = False
        if (got := stream.pos - content) < length:
            raise _BadRecord(f"truncated record: {got:,} of {length:,} bytes", content)
        if stream.peek(4) == b"\r\n\r\n":  # its end: what follows is the next one's business
            stream.skip(4)
            _whole(stream, offset)
            return item
        stream.skip_blank()  # writers that end records otherwise: the next record must follow
        if stream.peek(5) not in (b"", b"WARC/"):
            raise _BadRecord(f"the record does not end where its Content-Length "
                             f"({length:,}) says", content)
        return item

    def _content(self, stream: Stream, fields: dict[str, str], length: int,
                 offset: int, start: int) -> Item:
        """The item for a record's content (of `length` bytes from here; the record starts
        at `start`); reads what it needs of it."""
        kind = (fields.get("warc-type") or "").strip().lower()
        if kind != "response":
            return self._skipped(f"WARC {kind if kind in _TYPES else 'unknown'} record")
        if "application/http" not in (fields.get("content-type") or "").lower():
            return self._skipped("response record without an HTTP message")
        head = b""  # none: an HTTP/0.9 response, all body, as browsers take it
        if is_http_head(stream.peek(min(length, 64))):
            head = stream.head(min(length, HEAD_LIMIT)) or b""
            if not head and length > HEAD_LIMIT:
                return self._failed(offset, f"HTTP header over {HEAD_LIMIT:,} bytes")
            head = head or stream.peek(length)  # a header without a body
        status, http = parse_head(head)
        stream.skip(len(head))
        content_type = http.get("content-type")
        if (reason := self.keep.by_header(self.url, status, content_type)) is not None:
            return self._skipped(reason)
        size = length - len(head)
        if size > self.max_bytes:
            return self._failed(offset, f"HTTP payload of {size:,} bytes exceeds the limit of "
                                        f"{self.max_bytes:,}")
        if (base := self._base(stream, start, content_type, http)) is not None:
            if not base[2]:  # an uncompressed file's payload: not even read
                stream.skip(size)
                return self._page(content_type, b"", offset, Ref(*self._stamp, *base[:2],
                                                                 size, False))
            stream.span = False  # inflated to check it, not kept: to the member's end
            try:  # (the bytes held may go on into the next member: its offset says)
                got = stream.skip(size)
            finally:
                stream.span = True
            if got == size and stream.src.offset_of(stream.pos - 1) == base[0]:
                return self._page(content_type, b"", offset, Ref(*self._stamp, *base[:2],
                                                                 size, True))
            # the payload goes on in the next member: its bytes, read again from its start
            if not stream.rewind(stream.pos - got):
                raise Damaged("the gzip member cannot be read again")
        body = stream.take(size)
        try:
            body = decode_payload(body, http.get("content-encoding"),
                                  http.get("transfer-encoding"), self.max_bytes)
        except InputError as exc:
            return self._failed(offset, str(exc))
        if (reason := self.keep.by_body(content_type, body)) is not None:
            return self._skipped(reason)
        return self._page(content_type, body, offset, None)

    def _page(self, content_type: str | None, body: bytes, offset: int,
              ref: Ref | None) -> PageRecord:
        return PageRecord(self.index, 0, self.path, self.url, content_type, body, offset, "",
                          *self.warc, ref)

    @property
    def _stamp(self) -> tuple[str, int, int]:
        assert self.stamp is not None
        return self.stamp

    def _base(self, stream: Stream, start: int, content_type: str | None,
              http: dict[str, str]) -> tuple[int, int, bool] | None:
        """Where the payload here is to be read again (`warcref.Ref`'s offset, skip and
        gzip), if it is to be referred to rather than spilled: a payload that `PAGES` keeps
        by its header (a Content-Type) and that is as it is in the file (no coding to undo),
        of an uncompressed file, or of a gzip member that the record starts (the payload is
        then referred to if it ends in the member too: it is inflated to its end without
        being kept, and read again as bytes if it goes on in the next member)."""
        if (self.stamp is None or not content_type
                or not plain_payload(http.get("content-encoding"),
                                     http.get("transfer-encoding"))):
            return None
        src = stream.src
        if isinstance(src, Plain):
            return stream.pos, 0, False
        if isinstance(src, Gzip):
            at, member = src.member_at(start)
            if at == start and stream.pos - start <= REWIND_LIMIT:
                return member, stream.pos - start, True
        return None

    def _skipped(self, reason: str) -> Skipped:
        return Skipped(self.index, 0, self.path, reason)

    def _failed(self, offset: int, reason: str) -> Failed:
        return Failed(self.index, 0, self.path, self.url, offset, reason, *self.warc)


def _whole(stream: Stream, offset: int) -> None:
    """Read on to the end of the record's gzip member, if it ends there, so that a member
    found corrupt or cut at its end (the CRC is checked there) fails its record; damage
    further on is the next stretch's."""
    try:
        stream.peek(1)
    except Damaged:
        if stream.src.offset_of(stream.pos) == offset:
            raise


def _resync(stream: Stream, resume: int) -> None:
    """On to the next line starting `WARC/` from `resume` (or from where reading stopped,
    if it cannot go back there); at the end of the data or member, stop there."""
    if stream.pos < resume:
        stream.skip(resume - stream.pos)
    elif stream.pos > resume:
        stream.rewind(resume)
    stream.seek_line(b"WARC/")


def _content_length(value: str | None, resume: int) -> int:
    text = (value or "").strip()
    if _LENGTH.fullmatch(text) is None:
        raise _BadRecord(f"bad Content-Length {text[:40]!r}" if text else
                         "no Content-Length", resume)
    return int(text)


def _clean_uri(uri: str | None) -> str | None:
    return uri.strip().strip("<>") if uri else None  # WARC 1.0 examples wrap it in <>


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """One record to write: by default an HTTP 200 HTML response."""

    url: str
    body: bytes
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()  # more HTTP headers (Content-Encoding, ...)
    record_type: str = "response"  # "request", "metadata", ... for tests of skipping
    digests: bool = False  # WARC-Payload-Digest and WARC-Block-Digest, as crawlers write them


def _http_message(page: HttpResponse) -> bytes:
    if page.record_type == "request":
        return f"GET {page.url} HTTP/1.1\r\nHost: example\r\n\r\n".encode()
    lines = [f"HTTP/1.1 {page.status} {'OK' if page.status == 200 else 'Status'}"]
    if page.content_type is not None:
        lines.append(f"Content-Type: {page.content_type}")
    lines += [f"{k}: {v}" for k, v in page.headers]
    lines.append(f"Content-Length: {len(page.body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + page.body


def warc_record(page: HttpResponse) -> bytes:
    """One WARC record, uncompressed."""
    kind = getattr(WarcRecordType, page.record_type)
    if page.record_type in ("response", "request"):
        content = _http_message(page)
        warc_type = f"application/http; msgtype={page.record_type}"
    else:
        content, warc_type = page.body, page.content_type or "application/octet-stream"
    record = WarcRecord()
    record.init_headers(kind, content_length=len(content))
    record.headers.append("WARC-Target-URI", page.url)
    record.headers.append("Content-Type", warc_type)
    record.set_bytes_content(content)
    out = io.BytesIO()
    if page.digests:  # the payload: the HTTP body (as sent: before any Content-Encoding)
        payload = page.body if page.record_type == "response" else content
        record.write(out, checksum_data=True, payload_digest=hashlib.sha1(payload).digest())
    else:
        record.write(out)
    return out.getvalue()


def write_warc(path: str | Path, pages: Iterable[HttpResponse]) -> int:
    """Write a warcinfo record and then `pages`; `.gz` gzips each record as its own member.
    Returns the number of records written (warcinfo included)."""
    path = Path(path)
    compress = path.name.endswith(".gz")
    info = WarcRecord()
    fields = b"software: sitesift\r\nformat: WARC File Format 1.1\r\n"
    info.init_headers(WarcRecordType.warcinfo, content_length=len(fields))
    info.headers.append("Content-Type", "application/warc-fields")
    info.set_bytes_content(fields)
    buf = io.BytesIO()
    info.write(buf)
    count = 1
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        head = buf.getvalue()
        fh.write(gzip.compress(head, 6, mtime=0) if compress else head)
        for page in pages:
            data = warc_record(page)
            fh.write(gzip.compress(data, 6, mtime=0) if compress else data)
            count += 1
    tmp.replace(path)
    return count
