"""Turn page bytes into text: pick the encoding as a browser would, then decode.

The decoding is the native core's (`native/src/read/decode.rs`, whose docstring gives the decision
order): a byte-order mark, the HTTP Content-Type, the `<meta>` prescan of the first 8 KiB,
UTF-8, then Firefox's detector (chardetng) with the URL's top-level domain, and windows-1252
last; the labels and decoders are the WHATWG Encoding standard's (encoding_rs). `Decoded.source`
names the step that decided ("bom", "http", "meta", "utf-8", "detected", "fallback") and
`Decoded.encoding` the standard's name of the encoding, lower-cased ("utf-8",
"windows-1252", "shift_jis"). Empty, oversized and binary input raise `InputError`.

Here are also the saved HTTP headers some corpora keep before a page (`split_http_response`)
and the header fields of HTTP and WARC blocks (`header_fields`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sitesift.errors import InputError
from sitesift.native import core
from sitesift.reading import MAX_PAGE_BYTES, gzipped, read_bounded


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str  # the decoded page, BOM stripped, NUL characters removed
    encoding: str  # the Encoding standard's name, lower-cased: "utf-8", "windows-1252", ...
    source: str  # "bom" | "http" | "meta" | "utf-8" | "detected" | "fallback"


def decode_html(data: bytes, content_type: str | None = None, *, url: str | None = None,
                max_bytes: int = MAX_PAGE_BYTES) -> Decoded:
    """Decode page bytes to text (`content_type`: an HTTP Content-Type value; `url`: where
    the page came from, whose top-level domain helps the detector)."""
    try:
        got = core().decode_page(bytes(data), content_type, url, max_bytes, check=False)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    assert got.encoding is not None and got.source is not None  # as decoded bytes have
    return Decoded(got.text, got.encoding, got.source)


def charset_from_content_type(value: str | None) -> str | None:
    """'text/html; charset="ISO-8859-1"' -> "windows-1252"; None when absent or unknown."""
    return core().content_type_charset(value) if value else None


def binary_reason(data: bytes) -> str | None:
    """Why the first bytes of `data` say it is binary, not a page, or None."""
    reason: str | None = core().binary_reason(data)
    return reason


_HTTP_HEAD = re.compile(
    rb"(?:WWW Alert:[^\r\n]*\r?\n)?"  # WebKB's crawler noted redirects it did not follow here
    rb"(?P<status>HTTP/\d(?:\.\d)? +\d{3}[^\r\n]*\r?\n)?"
    # Lines with a colon before any "<": some WebKB headers have crawler noise spliced in
    # ("Date: Mcp: No match.\n96 00:28:41 GMT"); the first field is checked strictly below.
    rb"(?P<fields>(?:[^\r\n:<]*:[^\r\n]*\r?\n(?:[ \t][^\r\n]*\r?\n)*)+)\r?\n"
)
_FIELD = re.compile(
    rb"^([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:([^\r\n]*(?:\r?\n[ \t]+[^\r\n]*)*)", re.MULTILINE
)
_FOLDED = re.compile(rb"\r?\n[ \t]+")
# Without a status line the first field must be a response header, or "Note: x" text would do.
_RESPONSE_FIELDS = frozenset(
    b"mime-version server date content-type content-length last-modified location connection "
    b"expires cache-control pragma set-cookie etag accept-ranges content-encoding".split()
)


def split_http_response(data: bytes) -> tuple[dict[str, str], bytes]:
    """Split a saved HTTP response header (as WebKB has) from the body; ({}, data) if none."""
    m = _HTTP_HEAD.match(data, 0, 64 * 1024)
    if m is None:
        return {}, data
    first = _FIELD.match(m["fields"])
    if m["status"] is None and (first is None or first[1].lower() not in _RESPONSE_FIELDS):
        return {}, data
    return header_fields(m["fields"]), data[m.end() :]


def header_fields(block: bytes) -> dict[str, str]:
    """The fields of an HTTP or WARC header block, as browsers read them: names lowercased,
    the first of repeated names kept, bare-LF or CRLF lines, folded lines unfolded, lines
    that are not fields ignored."""
    headers: dict[str, str] = {}
    for f in _FIELD.finditer(block):
        value = f[2]
        if b"\n" in value:  # unfold continuation lines
            value = _FOLDED.sub(b" ", value)
        headers.setdefault(f[1].lower().decode("ascii"), value.strip().decode("latin-1"))
    return headers


def page_file(path: str | os.PathLike[str], *,
              max_bytes: int = MAX_PAGE_BYTES) -> tuple[bytes, str | None]:
    """A page file's body and the Content-Type its saved HTTP header gives, if any
    (``*.gz`` unpacked); InputError saying why it cannot be read (the caller names it)."""
    data = read_bounded(path, max_bytes, gunzip=gzipped(path))
    headers, body = split_http_response(data)
    return body, headers.get("content-type")


def decode_file(path: str | os.PathLike[str], *, max_bytes: int = MAX_PAGE_BYTES) -> Decoded:
    """Read a page file (`page_file`) and decode it."""
    body, content_type = page_file(path, max_bytes=max_bytes)
    return decode_html(body, content_type, max_bytes=max_bytes)
