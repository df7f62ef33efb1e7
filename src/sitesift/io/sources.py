"""Crawl inputs of every kind, read as one stream of items per input.

- a WARC file (`.warc`, `.warc.gz`, `.warc.zst`, `.warc.lz4`): see `sitesift.io.warc`;
- a JSONL file (`.jsonl`, `.jsonl.gz`) of `{"url": ..., "html": ...}` objects, one per line
  (`html` is text, so read as UTF-8 whatever it declares); blank lines are not records;
- a dataset folder (`index.jsonl` + `pages/`, the shared corpora's layout);
- a folder of page files (`.html`, `.htm`, `.html.gz`, ...), each with the URL it declares
  (canonical link or og:url) and, if it starts with one, its saved HTTP header.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

from sitesift.datasets import is_dataset, read_index, read_page_bytes
from sitesift.decode import split_http_response
from sitesift.errors import InputError
from sitesift.inputs import PAGE_SUFFIXES, declared_url
from sitesift.io.records import Failed, Item, PageRecord
from sitesift.io.warc import is_warc, read_warc

KINDS = ("warc", "jsonl", "dataset", "folder")
_UTF8 = "text/html; charset=utf-8"


def input_kind(path: str | Path) -> str:
    """What kind of input `path` is; InputError if it is none that sitesift reads."""
    if "://" in str(path) and is_warc(path):  # a URL: FastWARC opens it through fsspec
        return "warc"
    path = Path(path)
    if path.is_dir():
        return "dataset" if is_dataset(path) else "folder"
    if not path.is_file():
        raise InputError(f"{path}: no such file or folder")
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


def _read_jsonl(path: str, index: int, max_bytes: int) -> Iterator[Item]:
    opener = gzip.open if path.lower().endswith(".gz") else open
    position = -1
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                position += 1
                yield _jsonl_item(line, lineno, path, index, position, max_bytes)
    except (OSError, EOFError, zlib.error) as exc:  # a cut or corrupt .gz: the rest is lost
        yield Failed(index, position + 1, path, None, None,
                     f"unreadable after record {position}: {exc}")


def _jsonl_item(line: str, lineno: int, path: str, index: int, position: int,
                max_bytes: int) -> Item:
    try:
        row = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:  # RecursionError: nested too deep
        return Failed(index, position, path, None, None, f"line {lineno}: bad JSON: {exc}")
    url = row.get("url") if isinstance(row, dict) else None
    url = url if isinstance(url, str) else None
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
    for position, row in enumerate(read_index(root)):
        url = row.get("url") if isinstance(row.get("url"), str) else None
        try:
            body = read_page_bytes(root, row)
        except InputError as exc:
            yield Failed(index, position, path, url, None, str(exc))
            continue
        if len(body) > max_bytes:
            yield Failed(index, position, path, url, None,
                         f"{row['id']}: page of {len(body):,} bytes exceeds the limit of "
                         f"{max_bytes:,}")
            continue
        yield PageRecord(index, position, path, url, row.get("http_content_type"), body)


def _read_folder(path: str, index: int, max_bytes: int) -> Iterator[Item]:
    files = sorted(p for p in Path(path).rglob("*")
                   if p.is_file() and p.name.lower().endswith(PAGE_SUFFIXES))
    for position, file in enumerate(files):
        name = str(file)
        try:
            data = _read_bounded(file, max_bytes)
        except InputError as exc:
            yield Failed(index, position, name, None, None, str(exc))
            continue
        headers, body = split_http_response(data)
        yield PageRecord(index, position, name, declared_url(file), headers.get("content-type"),
                         body)


def _read_bounded(file: Path, max_bytes: int) -> bytes:
    try:
        if file.name.lower().endswith(".gz"):
            with gzip.open(file, "rb") as fh:
                data = fh.read(max_bytes + 1)  # a small .gz may inflate enormously
        else:
            if file.stat().st_size > max_bytes:
                raise InputError(f"page file of {file.stat().st_size:,} bytes exceeds the "
                                 f"limit of {max_bytes:,}")
            data = file.read_bytes()
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"cannot read {file}: {exc}") from None
    if len(data) > max_bytes:
        raise InputError(f"page file inflates past the limit of {max_bytes:,} bytes")
    return data
