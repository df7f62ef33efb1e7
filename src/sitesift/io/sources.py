"""Crawl inputs of every kind, read as one stream of items per input.

- a WARC file (`.warc`, `.warc.gz`, `.warc.zst`, `.warc.lz4`): see `sitesift.io.warc`;
- a JSONL file (`.jsonl`, `.jsonl.gz`) of `{"url": ..., "html": ...}` objects, one per line
  (`html` is text, so read as UTF-8 whatever it declares); blank lines are not records
  (past the line limit in a row, they end the input in an error record);
- a dataset folder (`index.jsonl` + `pages/`, the shared corpora's layout);
- a folder of page files (`.html`, `.htm`, `.html.gz`, ...), each with the URL it declares
  (canonical link or og:url) and, if it starts with one, its saved HTTP header.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sitesift.datasets import BadRow, is_dataset, read_page_bytes, scan_index
from sitesift.decode import split_http_response
from sitesift.errors import InputError
from sitesift.inputs import Unlisted, declared_url, page_files
from sitesift.io.records import Failed, Item, PageRecord
from sitesift.io.warc import is_warc, read_warc
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

KINDS = ("warc", "jsonl", "dataset", "folder")
_UTF8 = "text/html; charset=utf-8"


def input_kind(path: str | Path) -> str:
    """What kind of input `path` is; InputError if it is none that sitesift reads."""
    if "://" in str(path) and is_warc(path):  # a URL: FastWARC opens it through fsspec
        return "warc"
    if not is_text_name(path):  # every record names its input: one it cannot write fails late
        raise InputError(f"{text_name(path)}: the name is not UTF-8, so no record could name "
                         "it; rename the input")
    path = Path(path)
    if path.is_dir():
        return "dataset" if is_dataset(path) else "folder"
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if not path.is_file():  # a FIFO would block the reader, a device never end
        raise InputError(f"{path}: not a regular file")
    if is_warc(path):
        return "warc"
    if path.name.lower().endswith((".jsonl", ".jsonl.gz")):
        return "jsonl"
    raise InputError(f"{path}: not a WARC (.warc[.gz|.zst|.lz4]), JSONL (.jsonl[.gz]) or "
                     "folder input")


def read_input(path: str, input_index: int, max_bytes: int) -> Iterator[Item]:
    """One item per record of the input, in input order."""
    kind = input_kind(path)
    if kind == "warc":
        yield from read_warc(path, input_index, max_bytes)
    elif kind == "jsonl":
        yield from _read_jsonl(path, input_index, max_bytes)
    elif kind == "dataset":
        yield from _read_dataset(path, input_index, max_bytes)
    else:
        yield from _read_folder(path, input_index, max_bytes)


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


def _read_dataset(path: str, index: int, max_bytes: int) -> Iterator[Item]:
    root = Path(path)
    try:
        entries = scan_index(root)
    except InputError as exc:  # the index itself cannot be read
        yield Failed(index, 0, path, None, None, str(exc))
        return
    for position, row in enumerate(entries):
        if isinstance(row, BadRow):
            yield Failed(index, position, path, None, None, f"{row.name}: {row.reason}")
            continue
        url = row.get("url") if isinstance(row.get("url"), str) else None
        try:
            body = read_page_bytes(root, row, max_bytes)
        except InputError as exc:
            yield Failed(index, position, path, url, None, str(exc))
            continue
        yield PageRecord(index, position, path, url, row.get("http_content_type"), body)


def _read_folder(path: str, index: int, max_bytes: int) -> Iterator[Item]:
    for position, entry in enumerate(page_files(Path(path))):
        if isinstance(entry, Unlisted):
            yield Failed(index, position, entry.name, None, None, entry.reason)
            continue
        name = str(entry)
        try:
            data = read_bounded(entry, max_bytes, gunzip=gzipped(entry))
        except InputError as exc:
            yield Failed(index, position, name, None, None, str(exc))
            continue
        headers, body = split_http_response(data)
        yield PageRecord(index, position, name, declared_url(entry), headers.get("content-type"),
                         body)
