"""Finding the pages a command was given: a dataset folder, a folder of pages, or a list file.

A dataset folder (with `index.jsonl` and `pages/`) brings ids, URLs and sites from its
index; a plain folder or a list of paths brings files, whose site is taken from the URL
the page declares (canonical link or og:url) where it has one.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from urllib.parse import urlsplit

from sitesift.batch import Source
from sitesift.datasets import group_key, is_dataset, read_index
from sitesift.errors import InputError

PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz", ".shtml", ".php", ".asp")
_DECLARED = re.compile(
    rb"""<link[^>]+rel=["']?canonical["']?[^>]*href=["']?([^"'\s>]+)|"""
    rb"""<meta[^>]+property=["']?og:url["']?[^>]*content=["']?([^"'\s>]+)""",
    re.I,
)


def page_id(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".html", ".htm", ".xhtml", ".shtml"):
        name = name.removesuffix(suffix)
    return name or path.name


def declared_url(path: Path, limit: int = 65536) -> str | None:
    """The URL a page declares for itself, from its first bytes (None if unreadable)."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                head = fh.read(limit)
        else:
            with open(path, "rb") as fh:
                head = fh.read(limit)
    except (OSError, EOFError):
        return None
    match = _DECLARED.search(head)
    if not match:
        return None
    return (match.group(1) or match.group(2)).decode("ascii", "replace")


def host_of(url: str | None) -> str | None:
    if not url:
        return None
    host = urlsplit(url).hostname
    return host.removeprefix("www.") if host else None


def _is_page(path: Path) -> bool:
    """A single page (by its name, or markup at its start), not a list of page paths."""
    if path.name.lower().endswith(PAGE_SUFFIXES):
        return True
    with open(path, "rb") as fh:
        head = fh.read(1024).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<")


def collect_sources(path: Path, grouping: str) -> dict[str, list[Source]]:
    """Sources grouped into sites as `--group-by` asks. Files that declare no URL are taken
    for one site (`unknown`): the user put them together; index rows without a site are
    each alone (`datasets.group_key`), as a corpus names the sites it knows."""
    if is_dataset(path):
        groups: dict[str, list[Source]] = {}
        for row in read_index(path):
            groups.setdefault(group_key(row, grouping), []).append(
                Source(row["id"], "", row, str(path)))
        return groups
    if path.is_dir():
        files = sorted(p for p in path.rglob("*")
                       if p.is_file() and p.name.lower().endswith(PAGE_SUFFIXES))
    elif path.is_file() and _is_page(path):
        files = [path]
    elif path.is_file():  # a list of page paths, one per line
        base = path.parent
        try:
            listing = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{path}: neither a page (.html, .htm, ...; or starting with '<') "
                             "nor a UTF-8 list of page paths") from None
        files = [(base / line.strip()) for line in listing.splitlines()
                 if line.strip() and not line.startswith("#")]
    else:
        raise FileNotFoundError(f"{path}: no such file or folder")
    groups = {}
    seen: set[str] = set()
    for file in files:
        pid = page_id(file)
        if pid in seen:  # two files with one stem: keep both, named apart
            pid = str(file.relative_to(path) if path.is_dir() else file)
        seen.add(pid)
        url = declared_url(file) if grouping != "none" else None
        row = {"id": pid, "url": url, "site": host_of(url) or "unknown", "path": str(file)}
        groups.setdefault(group_key(row, grouping), []).append(Source(pid, str(file), row))
    return groups
