"""WARC files in and out, through FastWARC (gzip, zstd and lz4 members detected by itself).

`read_warc` yields one item per WARC record: HTML responses as pages; requests, metadata,
non-HTML and non-2xx responses as skipped with a reason; truncated, oversized and
undecodable responses as failed. FastWARC hands out a cut-off record as if it were whole,
so each payload's length is checked against its header. If the file itself becomes
unreadable, the rest of it is one failed item, so nothing vanishes without a record.

`write_warc` writes HTTP responses (and, for tests, other records) as a WARC, one gzip
member per record as crawlers do; tests and benchmarks/make_warc.py build their inputs
with it.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from fastwarc.warc import ArchiveIterator, WarcRecord, WarcRecordType

from sitesift.errors import InputError
from sitesift.io.http import decode_payload, looks_like_html, skip_reason
from sitesift.io.records import Failed, Item, PageRecord, Skipped

WARC_SUFFIXES = (".warc", ".warc.gz", ".warc.zst", ".warc.lz4")
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*(\d+)")


def is_warc(path: str | Path) -> bool:
    return str(path).lower().endswith(WARC_SUFFIXES)


def read_warc(path: str, input_index: int, max_bytes: int) -> Iterator[Item]:
    """Every record of the WARC file at `path`, in file order."""
    position, offset = -1, 0
    item: Item | None = None
    opened: BinaryIO | None = None
    try:  # a local file, or a URL (s3://, hdfs://, ...) that FastWARC opens through fsspec
        if "://" not in path:
            opened = open(path, "rb")  # noqa: SIM115 - closed in the finally below
        records = iter(ArchiveIterator(opened or path, parse_http=True, auto_decode="none"))
    except (OSError, ValueError) as exc:
        yield Failed(input_index, 0, path, None, None, f"cannot open the WARC file: {exc}")
        return
    try:
        while True:
            try:
                record = next(records, None)
            except (OSError, ValueError) as exc:
                yield Failed(input_index, position + 1, path, None, offset,
                             f"unreadable WARC data after record {position} (offset {offset}): "
                             f"{exc}")
                return
            if record is None:
                break
            position += 1
            offset = record.stream_pos
            try:
                item = _item(record, input_index, position, path, max_bytes)
            except (InputError, OSError, ValueError) as exc:  # this record only
                url = _clean_uri(record.headers.get("WARC-Target-URI"))
                item = Failed(input_index, position, path, url, offset, str(exc))
            yield item
    finally:
        if opened is not None:
            opened.close()
    if isinstance(item, Failed):  # a cut-off last record is already accounted for
        return
    if opened is not None and (lost := _lost_tail(path, offset, position >= 0)) is not None:
        yield Failed(input_index, position + 1, path, None, offset, lost)


def _lost_tail(path: str, offset: int, any_record: bool) -> str | None:
    """FastWARC ends quietly when a file stops inside a record's header: look whether bytes
    follow the last record it gave (from `offset`, where that record starts)."""
    name = path.lower()
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            if not any_record:  # not even one record, yet there are bytes
                rest = bool(fh.read(1 << 16).strip())
            elif name.endswith(".gz"):
                rest = _after_first_member(fh)
            elif name.endswith(".warc"):
                rest = _after_plain_record(fh)
            else:
                return None  # zstd, lz4: not checked
    except (OSError, zlib.error):
        rest = True
    if not rest:
        return None
    return (f"unreadable data after the last record (offset {offset}): a truncated or "
            "corrupt record")


def _after_first_member(fh: BinaryIO) -> bool:
    """Is there data after the gzip member starting here? (A member cut by the end of the
    file is the last record's own; its payload was checked when it was read.)"""
    inflater = zlib.decompressobj(31)
    pending = b""
    while not inflater.eof:
        if not pending and not (pending := fh.read(1 << 16)):
            return False
        inflater.decompress(pending, 1 << 20)  # output is not needed: bounded, dropped
        pending = inflater.unconsumed_tail
    return bool(inflater.unused_data.strip() or fh.read(1 << 16).strip())


def _after_plain_record(fh: BinaryIO) -> bool:
    """Is there data after the uncompressed record starting here?"""
    head = fh.read(64 * 1024)
    end = head.find(b"\r\n\r\n")
    length = _CONTENT_LENGTH.search(head, 0, max(end, 0))
    if end < 0 or length is None:
        return True
    fh.seek(fh.tell() - len(head) + end + 4 + int(length[1]))
    return bool(fh.read(1 << 16).strip())


def _clean_uri(uri: str | None) -> str | None:
    return uri.strip().strip("<>") if uri else None  # WARC 1.0 examples wrap it in <>


def _consumed(record: WarcRecord) -> None:
    """Read past a record not kept, making sure it was all there."""
    got = record.consume()
    if got < record.content_length:
        raise InputError(f"truncated record: {got:,} of {record.content_length:,} bytes")


def _item(record: WarcRecord, input_index: int, position: int, path: str,
          max_bytes: int) -> Item:
    if not (record.headers.get("Content-Length") or "").strip().isdigit():
        raise InputError("truncated or malformed WARC record header (no Content-Length)")
    kind = record.record_type
    if kind != WarcRecordType.response:
        _consumed(record)
        return Skipped(input_index, position, path, f"WARC {kind} record")
    if not record.is_http:
        if "application/http" in (record.headers.get("Content-Type") or "").lower():
            raise InputError("truncated or malformed HTTP response header")
        _consumed(record)
        return Skipped(input_index, position, path, "response record without an HTTP message")
    url = _clean_uri(record.headers.get("WARC-Target-URI"))
    http = record.http_headers
    content_type = http.get("Content-Type")
    if (reason := skip_reason(http.status_code, content_type)) is not None:
        _consumed(record)
        return Skipped(input_index, position, path, reason)
    length = record.content_length
    if length > max_bytes:
        raise InputError(f"HTTP payload of {length:,} bytes exceeds the limit of {max_bytes:,}")
    body = record.reader.read()
    if len(body) < length:
        raise InputError(f"truncated record: {len(body):,} of {length:,} payload bytes")
    body = decode_payload(body, http.get("Content-Encoding"), http.get("Transfer-Encoding"),
                          max_bytes)
    if not content_type and not looks_like_html(body):
        return Skipped(input_index, position, path, "no content type, and not HTML")
    return PageRecord(input_index, position, path, url, content_type, body, record.stream_pos)


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """One record to write: by default an HTTP 200 HTML response."""

    url: str
    body: bytes
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()  # more HTTP headers (Content-Encoding, ...)
    record_type: str = "response"  # "request", "metadata", ... for tests of skipping


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
