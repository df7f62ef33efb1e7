"""One input page, for every job: `Source`, and a site's pages as a job reads them.

A page comes from a file, a row of a dataset's index, or bytes held in memory (a URL
fetched, stdin, a crawl record). A site's pages (`Pages`) are a list of sources, or the
crawl's spill (`SpillPages`: its frames in each input's spill file), read in order without
holding the site in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.browser.resources import FolderResources, attach, warc_store
from sitesift.datasets import load_page
from sitesift.errors import InputError
from sitesift.io.listing import is_warc
from sitesift.io.records import PageRecord, warc_fields
from sitesift.page import Page


@dataclass(frozen=True, slots=True)
class Source:
    """One input page: a file, a row of a dataset's index, or bytes held in memory
    (`data`, decoded with `content_type`: a crawl record). An input found unreadable while
    the inputs were listed (a bad index line, an unreadable folder) carries its `error`:
    loading it fails with that, so it gets its error record like any page."""

    id: str
    path: str
    row: dict[str, Any] = field(default_factory=dict)
    dataset: str | None = None
    data: bytes | None = None
    content_type: str | None = None
    error: str | None = None

    def load(self) -> Page:
        if self.error is not None:
            raise InputError(f"{self.id}: {self.error}")
        if self.dataset is not None:
            return load_page(Path(self.dataset), self.row)
        if self.data is not None:
            page = Page.from_bytes(self.data, url=self.row.get("url"), site=self.row.get("site"),
                                   id=self.id, content_type=self.content_type)
            page.meta.update(self.row)
            if page.url and is_warc(self.path):  # a crawl record: its WARC may hold its CSS
                attach(page, warc_store(self.path).for_page(page.url))
            return page
        page = Page.from_file(self.path, url=self.row.get("url"), site=self.row.get("site"),
                              id=self.id)
        page.meta.update(self.row)
        # A page file's folder may hold what it links (a saved page's `page_files/`): the
        # renderer reads from it lazily, so methods that do not render pay nothing.
        return attach(page, FolderResources(self.path))

    @property
    def size(self) -> int | None:
        """Bytes of the page where they are known without reading it (a held body)."""
        return None if self.data is None else len(self.data)


def error_source(name: str, reason: str, dataset: str | None = None) -> Source:
    """The input that could not even be listed as a page (a bad index line, an unreadable
    folder, a file name that is not text): cleaning it gives its error record."""
    return Source(name, "", {"id": name}, dataset, error=reason)


HELD = "held by the site's fit: its page is cleaned from there, not read again"
"""Why a held page's source cannot load (`record_source(held=True)`)."""


def record_source(rec: PageRecord, *, held: bool = False) -> Source:
    """A crawl record as a source; its row keeps where the record came from, its WARC
    headers included (for the crawl's result and error records). A `held` record's page is
    held by its caller (a site's fit sample being cleaned; the spill left its body unread):
    its source names the record but refuses to load, rather than load an empty page."""
    return Source(f"{rec.input_index}:{rec.position}", rec.input,
                  {"url": rec.url, "site": rec.site, "input": rec.input,
                   "input_index": rec.input_index,
                   "position": rec.position, "offset": rec.offset, **warc_fields(rec)},
                  data=None if held else rec.body, content_type=rec.content_type,
                  error=HELD if held else None)


# Per input that has some of a site's pages: its spill file, and (offset, length) of each
# of the site's frames in it (`sitesift.io.spill`).
SpillParts = tuple[tuple[str, tuple[tuple[int, int], ...]], ...]


@dataclass(frozen=True, slots=True)
class SpillPages:
    """A crawl site's pages in spill files (`sitesift.io.spill`), `count` of them."""

    parts: SpillParts
    count: int

    def __len__(self) -> int:
        return self.count

    def read(self, wanted: set[int] | None, held: AbstractSet[int] = frozenset()
             ) -> Iterator[tuple[int, Source]]:
        from sitesift.io.spill import read_spill

        left = None if wanted is None else set(wanted)
        if left is not None and not left:
            return
        # a page not wanted is not read from its input either, nor one held
        unread = held if left is None else (frozenset(range(self.count)) - left) | held
        for seq, rec in enumerate(read_spill(self.parts, unread)):
            if left is not None:
                if seq not in left:
                    continue
                left.discard(seq)
            yield seq, record_source(rec, held=seq in held)
            if left is not None and not left:
                return


Pages = Sequence[Source] | SpillPages
"""A site's pages: sources in memory (page files are read when needed), or spill files."""


def each(pages: Pages, indices: Iterable[int] | None = None,
         held: AbstractSet[int] = frozenset()) -> Iterator[tuple[int, Source]]:
    """(index, source) for `indices` (every page when None), in ascending order: spill files
    are read front to back, once. In a spill, pages `held` by the caller (cleaned from the
    fit's reading) are not read from their input again: their sources name them but cannot
    load (`record_source`); a listed source is only read when it is loaded anyway."""
    if isinstance(pages, SpillPages):
        yield from pages.read(None if indices is None else set(indices), held)
        return
    for i in (range(len(pages)) if indices is None else sorted(set(indices))):
        yield i, pages[i]
