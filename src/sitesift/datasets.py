"""Reading corpora in the shared layout: `pages/<id>.html[.gz]`, `gold/<id>.txt`, `index.jsonl`.

Rows of `index.jsonl` carry `id` and usually `url`, `site`, `year`; WebKB rows carry
`body_offset` (the saved HTTP response header comes first) and `http_content_type`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesift.errors import InputError, SitesiftError
from sitesift.reading import (
    MAX_PAGE_BYTES,
    LinesCut,
    bounded_lines,
    check_text,
    gzipped,
    json_line,
    open_lines,
    read_bounded,
    reason,
    text_name,
)

if TYPE_CHECKING:
    from sitesift.page import Page

MAX_INDEX_LINE = 1 << 20  # an index row is a few hundred bytes


def is_dataset(path: Path) -> bool:
    return (path / "index.jsonl").is_file() and (path / "pages").is_dir()


@dataclass(frozen=True, slots=True)
class BadRow:
    """A line of `index.jsonl` that is no usable row, and why: one bad line costs only
    itself, never the corpus."""

    line: int
    reason: str

    @property
    def name(self) -> str:
        """How error records name it (a bad line has no id to trust)."""
        return f"index.jsonl:{self.line}"


def scan_index(root: Path) -> list[dict[str, Any] | BadRow]:
    """Every line of the index in order (blank lines skipped): a row, or a `BadRow` for bad
    JSON, a line over 1 MiB, a row without a string `id`, an id naming a file outside the
    dataset, or a string that is not text (a lone surrogate escape); a run of blank lines
    past 1 MiB is a last `BadRow` (the rest is not read). InputError only if the index
    itself cannot be read."""
    entries: list[dict[str, Any] | BadRow] = []
    try:
        with open_lines(root / "index.jsonl", gunzip=False) as fh:
            for n, line in _until_cut(bounded_lines(fh, MAX_INDEX_LINE), entries):
                if line is None:
                    entries.append(BadRow(n, f"line longer than the limit of "
                                             f"{MAX_INDEX_LINE:,} bytes"))
                else:
                    entries.append(_index_row(root, n, line))
    except InputError as exc:
        raise InputError(f"{root / 'index.jsonl'}: {exc}") from None
    except OSError as exc:
        raise InputError(f"{root / 'index.jsonl'}: cannot read: {reason(exc)}") from None
    return entries


def _until_cut(lines: Iterator[tuple[int, bytes | None]], entries: list[Any]
               ) -> Iterator[tuple[int, bytes | None]]:
    """The index's lines until reading them is cut off (a run of blank lines past the
    limit): that ends the index in a `BadRow`, after the rows before it, which stay."""
    try:
        yield from lines
    except LinesCut as exc:
        entries.append(BadRow(exc.line, exc.why))


def _index_row(root: Path, n: int, line: bytes) -> dict[str, Any] | BadRow:
    try:
        row = json_line(line)
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise InputError("a row needs a string 'id'")
        check_text(row, "the row")
        dataset_file(root, "pages", row["id"], ".html")
    except InputError as exc:
        return BadRow(n, str(exc))
    return row


def read_index(root: Path) -> list[dict[str, Any]]:
    """The rows of the index; InputError at its first bad line (for the tools that need a
    corpus whole: `scan_index` gives the others every line)."""
    rows = []
    for entry in scan_index(root):
        if isinstance(entry, BadRow):
            raise InputError(f"{root / 'index.jsonl'}:{entry.line}: {entry.reason}")
        rows.append(entry)
    return rows


def dataset_file(root: Path, folder: str, page_id: str, suffix: str) -> Path:
    """`root/folder/<id><suffix>`, if the folder it is in stays inside `root/folder` once
    resolved: an id of `../../x`, an absolute path or a link to a folder out of the dataset
    is refused (InputError). The file itself may be a link: slices of a corpus link their
    pages in, and whoever can place a link in the dataset can place the page as well."""
    base = root / folder
    path = base / f"{page_id}{suffix}"
    try:
        # (an id without a separator names a file right in `base`: inside, once `base`
        # resolves; two resolves a file (four for a page, by `page_path`) were ~0.1 ms)
        inside = path.parent == base or path.parent.resolve().is_relative_to(base.resolve())
        if inside:
            _resolved(str(base))
    except (OSError, ValueError, RuntimeError):  # a NUL in the id, a link loop
        inside = False
    if not inside:
        raise InputError(f"id {text_name(page_id)!r} names a file outside {base}")
    return path


@functools.lru_cache(maxsize=64)
def _resolved(base: str) -> Path:
    """`base` resolved, once a process (a dataset's folders do not move under a job)."""
    return Path(base).resolve()


def page_path(root: Path, page_id: str) -> Path:
    for suffix in (".html.gz", ".html", ".htm"):
        path = dataset_file(root, "pages", page_id, suffix)
        if path.is_file():
            return path
    raise InputError(f"{page_id}: no page file in {root / 'pages'}")


def read_page_bytes(root: Path, row: dict[str, Any], max_bytes: int = MAX_PAGE_BYTES) -> bytes:
    """The page file of an index row (gunzipped), never more than `max_bytes` of it held."""
    path = page_path(root, row["id"])
    try:
        data = read_bounded(path, max_bytes, gunzip=gzipped(path))
    except InputError as exc:
        raise InputError(f"{row['id']}: {path}: {exc}") from None
    offset = row.get("body_offset")
    if isinstance(offset, int) and 0 < offset <= len(data):
        data = data[offset:]
    return data


def load_page(root: Path, row: dict[str, Any]) -> Page:
    # imported here: listing a dataset (a crawl's ingest of one) needs no DOM or resources
    from sitesift.browser.resources import FolderResources, attach
    from sitesift.page import Page

    data = read_page_bytes(root, row)
    page = Page.from_bytes(data, url=row.get("url"), site=row.get("site"), id=row["id"],
                           content_type=row.get("http_content_type"))
    page.meta.update(row)
    # A dataset may keep a page's saved resources beside it (`pages/<id>_files/`).
    return attach(page, FolderResources(page_path(root, row["id"])))


def read_gold(root: Path, page_id: str) -> str | None:
    try:
        path = dataset_file(root, "gold", page_id, ".txt")
    except InputError:
        return None
    if not path.is_file():
        return None
    return read_bounded(path, MAX_PAGE_BYTES, gunzip=False).decode("utf-8", "replace")


def gold_pages(root: Path) -> Iterator[tuple[dict[str, Any], Page, str]]:
    """Each index row with gold, its page loaded, and its gold text, for benchmarks that
    score what they can read: a page that cannot be read is named on stderr and passed
    over."""
    for row in read_index(root):
        gold = read_gold(root, row["id"])
        if gold is None:
            continue
        try:
            page = load_page(root, row)
        except SitesiftError as exc:
            print(f"skip {root.name}/{row['id']}: {exc}", file=sys.stderr)
            continue
        yield row, page, gold
