"""Finding the pages a command was given: a dataset folder, a folder of pages, or a list file.

A dataset folder (with `index.jsonl` and `pages/`) brings ids, URLs and sites from its
index; a plain folder or a list of paths brings files, whose site is taken from the URL
the page declares (canonical link or og:url) where it has one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sitesift.datasets import BadRow, is_dataset, scan_index
from sitesift.errors import InputError
from sitesift.jobs.grouping import group_key, host_of
from sitesift.jobs.source import Source, error_source
from sitesift.reading import gzipped, is_text_name, read_bounded, read_head, reason, text_name

PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz", ".shtml", ".php", ".asp")
_DECLARED = re.compile(
    rb"""<link[^>]+rel=["']?canonical["']?[^>]*href=["']?([^"'\s>]+)|"""
    rb"""<meta[^>]+property=["']?og:url["']?[^>]*content=["']?([^"'\s>]+)""",
    re.I,
)
_LEADING = b"\xef\xbb\xbf \t\r\n"  # a BOM and blanks before a page's first '<'
MAX_LIST_BYTES = 64 * 1024 * 1024  # a list of page paths: a million long paths


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
    match = _DECLARED.search(head)
    if not match:
        return None
    return (match.group(1) or match.group(2)).decode("ascii", "replace")


def _listed(path: Path) -> list[Path | Unlisted]:
    """A single page (by its name, or markup at its start), or the pages a list file names,
    one path per line (relative to the list's folder; `#` starts a comment)."""
    if path.name.lower().endswith(PAGE_SUFFIXES):
        return [_named(path)]
    try:
        if read_head(path, 1024, gunzip=False).lstrip(_LEADING).startswith(b"<"):
            return [_named(path)]
        listing = read_bounded(path, MAX_LIST_BYTES, gunzip=False).decode("utf-8")
    except InputError as exc:
        raise InputError(f"{text_name(path)}: {exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{text_name(path)}: neither a page (.html, .htm, ...; or starting "
                         "with '<') nor a UTF-8 list of page paths") from None
    return [path.parent / line.strip() for line in listing.splitlines()
            if line.strip() and not line.startswith("#")]


def collect_sources(path: Path, grouping: str) -> dict[str, list[Source]]:
    """Sources grouped into sites as `--group-by` asks. Files that declare no URL are taken
    for one site (`unknown`): the user put them together; index rows without a site are
    each alone (`datasets.group_key`), as a corpus names the sites it knows. What cannot be
    read as a page (`BadRow`, `Unlisted`) is a source that fails with its reason."""
    groups: dict[str, list[Source]] = {}
    if is_dataset(path):
        for row in scan_index(path):
            source = (error_source(row.name, row.reason, str(path))
                      if isinstance(row, BadRow) else Source(row["id"], "", row, str(path)))
            groups.setdefault(group_key(source.row, grouping), []).append(source)
        return groups
    entries = page_files(path) if path.is_dir() else _listed(path)
    seen: set[str] = set()
    for entry in entries:
        if isinstance(entry, Unlisted):
            groups.setdefault(group_key({"id": entry.name, "site": "unknown"}, grouping),
                              []).append(error_source(entry.name, entry.reason))
            continue
        pid = page_id(entry)
        if pid in seen:  # two files with one stem: keep both, named apart
            pid = str(entry.relative_to(path) if path.is_dir() else entry)
        seen.add(pid)
        url = declared_url(entry) if grouping != "none" else None
        row = {"id": pid, "url": url, "site": host_of(url) or "unknown", "path": str(entry)}
        groups.setdefault(group_key(row, grouping), []).append(Source(pid, str(entry), row))
    return groups
