"""HTTP responses as crawled: their header read as leniently as browsers read it, whether
it is an HTML page, and its body with transfer and content codings removed, never inflated
past a byte limit (a gzip bomb is an error)."""

from __future__ import annotations

import re
import zlib

from sitesift.decode import header_fields
from sitesift.errors import InputError

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_SNIFF = re.compile(rb"^(?:\xef\xbb\xbf)?\s*(?:<!doctype\s+html|<html|<head|<body|<!--)", re.I)
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]+)[^\r\n]*\r?\n")
_BLANK_LINE = re.compile(rb"\n\r?\n")  # the empty line that ends a header: CRLF or bare LF
# "HTTP/1.0 200 OK", "HTTP/1.1  200", "HTTP/1.1\t200\tOK", " HTTP/2 200": the code is what counts
_STATUS_LINE = re.compile(rb"[ \t]*HTTP/[0-9.]*[ \t]+(\d{3})(?![0-9])", re.I)
_HTTP_START = re.compile(rb"[ \t\r\n]*HTTP/", re.I)
_LEADING_LINES = re.compile(rb"[\r\n]*")  # browsers skip blank lines before a status line

HEAD_LIMIT = 1 << 20
"""An HTTP header larger than this is refused (browsers stop at 256 KiB or less)."""


def head_end(data: bytes) -> int | None:
    """Where the header block at the start of `data` ends, just past its empty line."""
    start = lead.end() if (lead := _LEADING_LINES.match(data)) else 0
    m = _BLANK_LINE.search(data, start)
    return None if m is None else m.end()


def is_http_head(data: bytes) -> bool:
    """Does `data` start with an HTTP status line (blank lines before it allowed)?"""
    return _HTTP_START.match(data) is not None


def parse_head(head: bytes) -> tuple[int | None, dict[str, str]]:
    """The status code (None when the status line has none: browsers take 200) and the
    fields of an HTTP response header."""
    head = head.lstrip(b"\r\n")
    line, _, fields = head.partition(b"\n")
    status = _STATUS_LINE.match(line)
    return (int(status[1]) if status else None), header_fields(fields)


def mime_type(content_type: str | None) -> str:
    """'Text/HTML; charset=utf-8' -> 'text/html'; '' when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def looks_like_html(body: bytes) -> bool:
    """For responses without a Content-Type: markup at the start, as browsers sniff."""
    return _SNIFF.match(body[:1024]) is not None


def status_reason(status: int | None) -> str | None:
    """Why a response's status makes it no content (None: a 2xx, or no code, which browsers
    take as 200)."""
    return None if status is None or 200 <= status < 300 else f"HTTP status {status}"


def skip_reason(status: int | None, content_type: str | None) -> str | None:
    """Why a response is not a page to clean (None: it is one, or may be once sniffed)."""
    if (reason := status_reason(status)) is not None:
        return reason
    mime = mime_type(content_type)
    if mime and mime not in HTML_TYPES:
        return f"content type {mime}"
    return None


def _inflate(data: bytes, wbits: int, name: str, limit: int) -> bytes:
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise InputError(f"bad {name} content coding: {exc}") from None
    if len(out) > limit:
        raise InputError(f"{name} content coding inflates past the limit of {limit:,} bytes "
                         "(a decompression bomb?)")
    return out


def _brotli(data: bytes, limit: int) -> bytes:
    try:
        import brotli  # installed with FastWARC
    except ImportError:
        raise InputError("br content coding, but the brotli module is not installed") from None
    try:
        out = brotli.Decompressor().process(data, output_buffer_limit=limit + 1)
    except brotli.error as exc:
        raise InputError(f"bad br content coding: {exc}") from None
    if len(out) > limit:
        raise InputError(f"br content coding inflates past the limit of {limit:,} bytes "
                         "(a decompression bomb?)")
    return bytes(out)


def _dechunk(data: bytes) -> bytes:
    out, pos = bytearray(), 0
    while (m := _CHUNK_SIZE.match(data, pos)) is not None:
        size = int(m[1], 16)
        if size == 0:
            return bytes(out)
        out += data[m.end() : m.end() + size]
        pos = m.end() + size
        pos += 2 if data[pos : pos + 2] == b"\r\n" else 1 if data[pos : pos + 1] == b"\n" else 0
    if pos == 0:
        raise InputError("malformed chunked transfer coding")
    return bytes(out)  # cut short: keep what arrived, as browsers do


def plain_payload(content_encoding: str | None, transfer_encoding: str | None) -> bool:
    """Does `decode_payload` give the body itself, whatever it is (no coding to undo)?"""
    if transfer_encoding and "chunked" in transfer_encoding.lower():
        return False
    return all(c.strip().lower() in ("identity", "none")
               for c in (content_encoding or "").split(",") if c.strip())


def decode_payload(body: bytes, content_encoding: str | None, transfer_encoding: str | None,
                   limit: int) -> bytes:
    """The body with its transfer and content codings undone."""
    if transfer_encoding and "chunked" in transfer_encoding.lower():
        body = _dechunk(body)
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):  # applied in the order listed, so undone backwards
        if coding in ("identity", "none"):
            continue
        if looks_like_html(body):  # labelled compressed but sent plain: common, harmless
            return body
        if coding in ("gzip", "x-gzip"):
            body = _inflate(body, 16 + zlib.MAX_WBITS, coding, limit)
        elif coding == "deflate":  # zlib-wrapped per the RFC; raw deflate in practice too
            wbits = zlib.MAX_WBITS if body[:1] == b"\x78" else -zlib.MAX_WBITS
            body = _inflate(body, wbits, coding, limit)
        elif coding == "br":
            body = _brotli(body, limit)
        else:
            raise InputError(f"unsupported content coding {coding!r}")
    return body
