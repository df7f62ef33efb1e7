"""A page's own subresources (stylesheets, images, fonts), served to the renderer from a
local store and never from the network.

VL_PS and VIPS lay out what the browser draws, and the seeds' point is a faithful, CSS-aware
rendering; a page laid out without its stylesheets puts a floated menu above the article
and shows a block its CSS hides. So where the input carries its resources, the renderer
(`sitesift.browser.chromium`) answers the page's requests from them:

- **A saved page folder** (`page.html` beside `page_files/`, as browsers save a page, with
  relative links; or any relative layout, `css/site.css`): the page is served under a fixed,
  invalid address whose folder stands for the page file's folder, so a relative link
  resolves to a file there. A link that leaves that folder (`../x.css`, a root-relative
  `/x.css` above it) or names a file that is not there is missing, never read.
- **A WARC holding the stylesheets** (a crawl that kept a page's requisites): the page is
  served under its own URL, and each request is looked up by its absolute URL among the
  WARC's 2xx responses of a stylesheet, image or font type. The WARC is read as the crawl
  reads it (`sitesift.io.warc.read_warc`), so a damaged record costs that record only and
  the styles after it are still served.

Requests for anything else (scripts, frames) stay blocked, as before. The rendering counts
the stylesheets served and missing (`Rendering.styles`), which the cleaners put in their
result's `meta["styles"]`.
"""

from __future__ import annotations

import mimetypes
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import quote, unquote, urlsplit

from sitesift.io.http import mime_type, status_reason
from sitesift.io.records import PageRecord
from sitesift.page import Page

RESOURCES_KEY = "sitesift.resources"
"""Where a page's resources are held: `page.meta[RESOURCES_KEY]`."""
MAX_RESOURCE = 8 * 1024 * 1024
"""Bytes of one resource at most: a larger one is missing (a video saved beside a page)."""
MAX_WARC_STORE = 64 * 1024 * 1024
"""Bytes a WARC's store keeps at most: past it, only stylesheets are kept (the layout's
own rules; images keep their transparent stand-in)."""
LOCAL_ORIGIN = "http://sitesift.invalid/"
# What a WARC may hold for a page: the types that change its layout.
_KEPT_TYPES = ("text/css", "image/", "font/", "application/font", "application/x-font",
               "application/vnd.ms-fontobject")


@dataclass(frozen=True, slots=True)
class Resource:
    content_type: str
    body: bytes


class Resources(Protocol):
    """Where a page's requests are answered from."""

    @property
    def document_url(self) -> str:
        """The address the page is served under: its links resolve against it."""
        ...

    def get(self, url: str) -> Resource | None:
        """The resource at this absolute URL, or None (the request is refused)."""
        ...


def attach(page: Page, resources: Resources) -> Page:
    """Let `page` render with `resources` (the renderer reads them from its meta)."""
    page.meta[RESOURCES_KEY] = resources
    return page


def resources_of(page: Page) -> Resources | None:
    found = page.meta.get(RESOURCES_KEY)
    return found if found is not None and hasattr(found, "get") else None  # type: ignore[return-value]


class FolderResources:
    """A saved page's folder: files under the page file's directory, by relative link."""

    def __init__(self, page_file: str | Path) -> None:
        self._file = Path(page_file)
        self._resolved: Path | None = None

    def _path(self) -> Path:
        # resolved on first use: every page loaded from a file gets one of these, and only
        # a page rendered in a browser reads it (a resolve was ~0.05 ms of every page)
        if self._resolved is None:
            self._resolved = self._file.resolve()
        return self._resolved

    @property
    def root(self) -> Path:
        return self._path().parent

    @property
    def document_url(self) -> str:
        return LOCAL_ORIGIN + quote(self._path().name)

    def get(self, url: str) -> Resource | None:
        if not url.startswith(LOCAL_ORIGIN):
            return None  # an absolute link to another host: not in the folder
        rel = unquote(urlsplit(url).path).lstrip("/")
        target = (self.root / rel).resolve()
        # Only files inside the page's folder: a link may not read the rest of the disk.
        if not target.is_relative_to(self.root) or not target.is_file():
            return None
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        try:  # (this runs in the browser's request handler: a failure must not escape)
            if target.stat().st_size > MAX_RESOURCE:
                return None
            return Resource(kind, target.read_bytes())
        except OSError:
            return None


class WarcStore:
    """The layout resources of one WARC, by target URL (read once, on first lookup)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._items: dict[str, Resource] | None = None

    def get(self, url: str) -> Resource | None:
        if self._items is None:
            # (never raises: a WARC gone or damaged is failed items, passed over, and its
            # pages render without the styles it lost)
            self._items = _read_warc_resources(self.path)
        return self._items.get(_no_fragment(url))

    def for_page(self, url: str) -> PageInWarc:
        return PageInWarc(url, self)


@dataclass(frozen=True, slots=True)
class PageInWarc:
    """One page of a WARC: served under its own URL, its requests looked up in the WARC."""

    document_url: str
    store: WarcStore

    def get(self, url: str) -> Resource | None:
        return self.store.get(url)


_STORES: OrderedDict[str, WarcStore] = OrderedDict()


def warc_store(path: str | Path) -> WarcStore:
    """The (per process, two at most) store of a WARC, so its pages share one reading."""
    key = str(Path(path).resolve())
    store = _STORES.pop(key, None) or WarcStore(key)
    _STORES[key] = store
    while len(_STORES) > 2:
        _STORES.popitem(last=False)
    return store


def _no_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def _kind(url: str | None, content_type: str | None) -> str:
    """A response's type: its Content-Type, else guessed from its URL's file name (none
    from a URL that does not parse: that record is missing, not the store)."""
    if content_type:
        return content_type
    try:
        path = urlsplit(url or "").path
    except ValueError:  # e.g. "https://[broken/x": an unclosed IPv6 bracket
        return ""
    return mimetypes.guess_type(path)[0] or ""


def _kept(content_type: str) -> bool:
    return mime_type(content_type).startswith(_KEPT_TYPES)


class _LayoutResponses:
    """The `ResponseFilter` of a WARC's store: 2xx responses of a type in `_KEPT_TYPES`."""

    def by_header(self, url: str | None, status: int | None,
                  content_type: str | None) -> str | None:
        if not url:
            return "no target URL"
        if (reason := status_reason(status)) is not None:
            return reason
        kind = _kind(url, content_type)
        return None if _kept(kind) else f"content type {mime_type(kind) or 'unknown'}"

    def by_body(self, content_type: str | None, body: bytes) -> str | None:
        return None


def _read_warc_resources(path: str) -> dict[str, Resource]:
    """Every 2xx response of a stylesheet, image or font type, by its target URL (the first
    one of a URL wins; past `MAX_WARC_STORE` bytes, stylesheets only). Records too large
    (`MAX_RESOURCE`), undecodable or unreadable are missing."""
    from sitesift.io.warc import read_warc  # (FastWARC: loaded when a WARC is read, not before)

    items: dict[str, Resource] = {}
    total = 0
    for record in read_warc(path, 0, MAX_RESOURCE, keep=_LayoutResponses()):
        if not isinstance(record, PageRecord) or record.url is None:
            continue  # skipped, or failed: a damaged resource is a missing one
        url, kind = _no_fragment(record.url), mime_type(_kind(record.url, record.content_type))
        if url in items or (total + len(record.body) > MAX_WARC_STORE and "css" not in kind):
            continue
        total += len(record.body)
        items[url] = Resource(kind, record.body)
    return items
