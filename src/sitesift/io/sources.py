"""Crawl inputs of every kind, read as one stream of items per input.

- a WARC file (`.warc`, `.warc.gz`, `.warc.zst`, `.warc.lz4`): see `sitesift.io.warc`;
- a JSONL file (`.jsonl`, `.jsonl.gz`) of `{"url": ..., "html": ...}` objects, one per line
  (`html` is text, so read as UTF-8 whatever it declares); blank lines are not records
  (past the line limit in a row, they end the input in an error record);
- a dataset folder (`index.jsonl` + `pages/`, the shared corpora's layout);
- a folder of page files (`.html`, `.htm`, `.html.gz`, ...), each with the URL it declares
  (canonical link or og:url) and, if it starts with one, its saved HTTP header.

Dataset folders and folders are listed by `sitesift.io.listing`, as for `clean`: the same
pages, in the same order, with the same URLs (and ids, by position).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sitesift.decode import split_http_response
from sitesift.errors import InputError
from sitesift.io import listing
from sitesift.io.listing import CRAWL_KINDS
from sitesift.io.records import Failed, Item, PageRecord
from sitesift.io.warc import read_warc
from sitesift.reading import (
    READ_ERRORS,
    bounded_lines,
    check_text,
    gzipped,
    is_text_name,
    json_line,
    open_lines,
    read_bounded,
    reason,
    text_name,
)

_UTF8 = "text/html; charset=utf-8"


def input_kind(path: str | Path) -> str:
    """What kind of crawl input `path` is (`listing.CRAWL_KINDS`); InputError if it is none
    that the crawl reads."""
    if "://" not in str(path) and not is_text_name(path):
        # every record names its input: one it cannot write fails late
        raise InputError(f"{text_name(path)}: the name is not UTF-8, so no record could name "
                         "it; rename the input")
    kind = listing.input_kind(path)
    if kind not in CRAWL_KINDS:
        raise InputError(f"{path}: not a WARC (.warc[.gz|.zst|.lz4]), JSONL (.jsonl[.gz]) or "
                         "folder input")
    return kind


def read_input(path: str, input_index: int, max_bytes: int, *, refs: bool = False
               ) -> Iterator[Item]:
    """One item per record of the input, in input order; `refs`: a WARC's pages may be
    references to their payloads (`sitesift.io.warcref`)."""
    kind = input_kind(path)
    if kind == "warc":
        yield from read_warc(path, input_index, max_bytes, refs=refs)
    elif kind == "jsonl":
        yield from _read_jsonl(path, input_index, max_bytes)
    else:
        yield from _read_listed(path, input_index, max_bytes)


def _line_limit(max_bytes: int) -> int:
    """The longest JSONL line read: a page of `max_bytes` with room for its JSON escaping
    (`\\u00e9` is 6 bytes for 2), so that no line holds more than this in memory."""
    return 4 * max_bytes + 65536


def _read_jsonl(path: str, index: int, max_bytes: int) -> Iterator[Item]:
    position = -1
    try:
        with open_lines(path, gunzip=gzipped(path)) as fh:
            for lineno, line in bounded_lines(fh, _line_limit(max_bytes)):
                position += 1
                yield _jsonl_item(line, lineno, path, index, position, max_bytes)
    except InputError as exc:  # the file: not there, not regular; too many blank lines in a row
        yield Failed(index, position + 1, path, None, None, str(exc))
    except READ_ERRORS as exc:  # a cut or corrupt .gz: the rest is lost
        yield Failed(index, position + 1, path, None, None,
                     f"unreadable after record {position}: {reason(exc)}")


def _jsonl_item(line: bytes | None, lineno: int, path: str, index: int, position: int,
                max_bytes: int) -> Item:
    if line is None:
        return Failed(index, position, path, None, None,
                      f"line {lineno}: longer than the limit of {_line_limit(max_bytes):,} "
                      "bytes for a line; not read")
    try:
        row = json_line(line)
    except InputError as exc:
        return Failed(index, position, path, None, None, f"line {lineno}: {exc}")
    url = row.get("url") if isinstance(row, dict) else None
    url = url if isinstance(url, str) else None
    try:
        check_text(url, "'url'")
    except InputError as exc:
        return Failed(index, position, path, None, None, f"line {lineno}: {exc}")
    html = row.get("html") if isinstance(row, dict) else None
    if not isinstance(html, str):
        return Failed(index, position, path, url, None, f"line {lineno}: needs a string 'html'")
    body = html.encode("utf-8", "replace")  # lone surrogates from JSON escapes become '?'
    if len(body) > max_bytes:
        return Failed(index, position, path, url, None,
                      f"line {lineno}: page of {len(body):,} bytes exceeds the limit of "
                      f"{max_bytes:,}")
    # The text is decoded already: whatever charset the page declares, its bytes are UTF-8 now.
    return PageRecord(index, position, path, url, _UTF8, body)


def _read_listed(path: str, index: int, max_bytes: int) -> Iterator[Item]:
    """A dataset folder's or a folder's pages (`listing.list_pages`), one item each, at the
    position the listing gives it. A record names the dataset folder, or the page file."""
    # here, not with the module: the datasets module brings the DOM and the page resources,
    # which a crawl's ingest process of WARCs never needs (~30 ms of its start)
    from sitesift.datasets import is_dataset, read_page_bytes

    root = Path(path)
    try:
        entries = listing.list_pages(root)
    except InputError as exc:  # a dataset's index itself cannot be read
        yield Failed(index, 0, path, None, None, str(exc))
        return
    dataset = is_dataset(root)
    for position, entry in enumerate(entries):
        where = path if dataset else str(entry.file) if entry.file else entry.id
        if entry.error is not None:
            why = f"{entry.id}: {entry.error}" if dataset else entry.error
            yield Failed(index, position, where, None, None, why)
            continue
        try:
            if entry.file is None:
                body, ctype = read_page_bytes(root, entry.row, max_bytes), entry.row.get(
                    "http_content_type")
            else:
                headers, body = split_http_response(
                    read_bounded(entry.file, max_bytes, gunzip=gzipped(entry.file)))
                ctype = headers.get("content-type")
        except InputError as exc:
            yield Failed(index, position, where, entry.url, None, str(exc))
            continue
        yield PageRecord(index, position, where, entry.url, ctype, body)
