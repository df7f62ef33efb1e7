"""The one listing of a command's inputs: what kind each input is, and the pages a folder, a
dataset folder or a list file yields, with one rule for each question, for every command.

- kinds: a WARC file (`.warc`, `.warc.gz`, `.warc.zst`, `.warc.lz4`), a JSONL file
  (`.jsonl`, `.jsonl.gz`), a dataset folder (`index.jsonl` + `pages/`), a folder of page
  files, a page file (by its suffix, or markup at its start) or a list file (one page path a
  line). The crawl reads the first four (`CRAWL_KINDS`; its records are kept by input and
  position, for resume), `clean`, `fit`, `evaluate` and `bench` the last four
  (`CLEAN_KINDS`; their pages are named by id, for one output file each).
- which files a folder yields: those named as pages (`PAGE_SUFFIXES`), under every
  subfolder (links to folders not followed), in path order; a subfolder that cannot be
  listed and a file whose name is not UTF-8 are listed too, as entries with their error.
- ids: a dataset row's `id`; a page file's name without its page suffixes (`page_id`), or,
  for a second file of the same name, its path under the folder.
- URLs: a dataset row's `url`; a page file's declared URL (canonical link or og:url).
- what is not listed: files of a folder not named as pages, blank lines of an index or a
  list, `#` comment lines of a list. A bad index line is an entry with its error.

`sitesift.inputs` turns entries into `Source`s (clean and the others),
`sitesift.io.sources` into crawl records (with positions).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.datasets import BadRow, is_dataset, scan_index
from sitesift.errors import InputError
from sitesift.reading import gzipped, is_text_name, read_bounded, read_head, reason, text_name

KINDS = ("warc", "jsonl", "dataset", "folder", "page", "list")
CRAWL_KINDS = ("warc", "jsonl", "dataset", "folder")
CLEAN_KINDS = ("dataset", "folder", "page", "list")
WARC_SUFFIXES = (".warc", ".warc.gz", ".warc.zst", ".warc.lz4")
PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz", ".shtml", ".php", ".asp")
_DECLARED = re.compile(
    rb"""<link[^>]+rel=["']?canonical["']?[^>]*href=["']?([^"'\s>]+)|"""
    rb"""<meta[^>]+property=["']?og:url["']?[^>]*content=["']?([^"'\s>]+)""",
    re.I,
)
_LEADING = b"\xef\xbb\xbf \t\r\n"  # a BOM and blanks before a page's first '<'
MAX_LIST_BYTES = 64 * 1024 * 1024  # a list of page paths: a million long paths
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")  # what no text list of paths holds


def input_kind(path: str | Path) -> str:
    """What kind of input `path` is, by its name or what it is, without reading it: a file
    that is no WARC, JSONL or page by its name is a `list` (read as a page if it starts
    with markup, `listed_files`). InputError if it is not there or not a regular file."""
    if "://" in str(path) and is_warc(path):  # a URL: FastWARC opens it through fsspec
        return "warc"
    path = Path(path)
    if path.is_dir():
        return "dataset" if is_dataset(path) else "folder"
    if not path.exists():
        raise InputError(f"{text_name(path)}: no such file or folder")
    if not path.is_file():  # a FIFO would block the reader, a device never end
        raise InputError(f"{text_name(path)}: not a regular file")
    name = path.name.lower()
    if is_warc(path):
        return "warc"
    if name.endswith((".jsonl", ".jsonl.gz")):
        return "jsonl"
    return "page" if name.endswith(PAGE_SUFFIXES) else "list"


def is_warc(path: str | Path) -> bool:
    return str(path).lower().endswith(WARC_SUFFIXES)


def page_id(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".html", ".htm", ".xhtml", ".shtml"):
        name = name.removesuffix(suffix)
    return name or path.name


@dataclass(frozen=True, slots=True)
class Unlisted:
    """What a folder holds that cannot be read as a page, said rather than passed over: a
    subfolder whose files cannot be listed, or a file whose name is not UTF-8 (it could
    not be named in any output)."""

    path: Path
    reason: str

    @property
    def name(self) -> str:
        return text_name(self.path)


def page_files(folder: Path) -> list[Path | Unlisted]:
    """The page files under `folder` (by suffix; links to folders are not followed), with
    an `Unlisted` for each subfolder that cannot be listed and each name that is not text,
    in path order. Anything named as a page is listed, whatever it is: a FIFO or a broken
    link then fails as that page, it is not skipped without a word."""
    found: list[Path | Unlisted] = []

    def unlisted(exc: OSError) -> None:
        found.append(Unlisted(Path(exc.filename or folder), f"folder not read: {reason(exc)}"))

    for top, _, names in os.walk(folder, onerror=unlisted):
        for name in names:
            if not name.lower().endswith(PAGE_SUFFIXES):
                continue
            found.append(_named(Path(top, name)))
    return sorted(found, key=lambda entry: entry if isinstance(entry, Path) else entry.path)


def _named(path: Path) -> Path | Unlisted:
    """The page file, or an `Unlisted` if its name is not text."""
    if is_text_name(path):
        return path
    return Unlisted(path, "file name is not UTF-8 (cannot be named in the output)")


def declared_url(path: Path, limit: int = 65536) -> str | None:
    """The URL a page declares for itself, from its first bytes (None if unreadable)."""
    try:
        head = read_head(path, limit, gunzip=gzipped(path))
    except InputError:
        return None
    return declared_in(head)


def declared_in(head: bytes) -> str | None:
    """The URL a page's first bytes declare for it (canonical link or og:url), or None: what
    a page file's URL is (`declared_url`), and a page's from `sitesift.clean` or stdin."""
    match = _DECLARED.search(head)
    if not match:
        return None
    return (match.group(1) or match.group(2)).decode("ascii", "replace")


def listed_files(path: Path) -> list[Path | Unlisted]:
    """A single page (by its name, or markup at its start), or the pages a list file names,
    one path per line (relative to the list's folder; `#` starts a comment)."""
    if path.name.lower().endswith(PAGE_SUFFIXES):
        return [_named(path)]
    try:
        if read_head(path, 1024, gunzip=False).lstrip(_LEADING).startswith(b"<"):
            return [_named(path)]
        listing = read_bounded(path, MAX_LIST_BYTES, gunzip=False).decode("utf-8")
        if _CONTROL.search(listing):  # UTF-8, but binary: no list of paths holds a NUL
            raise UnicodeError
    except InputError as exc:
        raise InputError(f"{text_name(path)}: {exc}") from None
    except UnicodeError:
        raise InputError(f"{text_name(path)}: neither a page (.html, .htm, ...; or starting "
                         "with '<') nor a UTF-8 list of page paths") from None
    return [path.parent / line.strip() for line in listing.splitlines()
            if line.strip() and not line.startswith("#")]


@dataclass(frozen=True, slots=True)
class Listed:
    """One page an input yields: its `id`, and where its bytes are (a page `file`, or the
    `row` of a dataset's index), with the URL it has; or, with `error`, an entry that could
    not be listed as a page (a bad index line, an unreadable subfolder, a name that is not
    text), which every command reports as that page's error."""

    id: str
    file: Path | None = None
    url: str | None = None
    row: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def list_pages(path: Path) -> Iterator[Listed]:
    """The pages of a dataset folder, a folder, a page file or a list file, in input order.
    A dataset's index is read before this returns (InputError if it cannot be); a folder's
    pages are listed as they are asked for, each file's URL read from its head then."""
    if is_dataset(path):
        return _dataset_pages(scan_index(path))
    files = page_files(path) if path.is_dir() else listed_files(path)
    return _file_pages(files, path if path.is_dir() else None)


def _dataset_pages(entries: list[dict[str, Any] | BadRow]) -> Iterator[Listed]:
    for row in entries:
        if isinstance(row, BadRow):
            yield Listed(row.name, error=row.reason)
            continue
        url = row.get("url")
        yield Listed(row["id"], url=url if isinstance(url, str) else None, row=row)


def _file_pages(files: list[Path | Unlisted], folder: Path | None) -> Iterator[Listed]:
    seen: set[str] = set()
    for entry in files:
        if isinstance(entry, Unlisted):
            yield Listed(entry.name, error=entry.reason)
            continue
        pid = page_id(entry)
        if pid in seen:  # two files with one stem: keep both, named apart
            pid = str(entry.relative_to(folder) if folder is not None else entry)
        seen.add(pid)
        yield Listed(pid, entry, declared_url(entry))
