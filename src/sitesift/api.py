"""The one-call Python API: `clean` a page, `fit_site` on pages of a site, save and load.

    import sitesift
    result = sitesift.clean(html)               # str, bytes or a Page; the default method
    result.text, result.markdown(), result.to_dict()

Every error raised on purpose is a `sitesift.errors.SitesiftError`: InputError for input
that is not a page, UnknownMethodError, UnknownSettingError / SettingsError for a method or
setting that does not exist or a bad value, NotFittedError for a site-level method asked to
clean one page without a fit, ModelError for a model file that cannot be used.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitesift.errors import InputError, NotFittedError, SettingsError
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.output import RENDERINGS, Output, finish
from sitesift.page import Page
from sitesift.result import Result

CACHED_CLEANERS = 16
"""How many (method, settings) cleaners `clean` keeps made, the least recently used going."""


def clean(html: str | bytes | bytearray | memoryview | Page, *, url: str | None = None,
          method: str = "default", metadata: bool = False, links: bool = False,
          images: bool = False, title: str = "model", model: Cleaner | None = None,
          **params: Any) -> Result:
    """Clean one page: its main text (`.text`), markdown (`.markdown()`), HTML (`.html()`),
    labelled blocks (`.blocks`) and a JSON-ready dict (`.to_dict()`). The text, markdown
    and HTML keep the content's structure: headings, paragraphs, lists, tables, code with
    its line breaks, quotes, emphasis.

    `html` is decoded HTML (`str`), raw bytes (decoded by their byte-order mark, the page's
    `<meta charset>`, else detection) or a `Page`. `url` is kept in the result (for a `Page`,
    it replaces the page's own) and is what relative links resolve against. `method` and
    `params` are as in `get_cleaner(method, **params)`, e.g. `clean(html,
    preset="precision")`; the cleaner is made once per method and settings and reused by
    later calls (its model read once).

    `links=True` keeps links as links in the markdown and HTML, `images=True` keeps images
    (in the text: their alt text). `title="keep"` puts the page's title (the headline it
    declares) at the top of the content whether or not the method kept the headline.

    A method that learns from many pages of a site (sst, cst, template, ibdf,
    infodiscoverer) cannot clean a lone page: that is a NotFittedError saying to fit it with
    `fit_site`, then pass the fitted `model` (from `fit_site` or `load_model`; it replaces
    `method` and `params`). The default method cleans a lone page as it is. Whatever cleans
    it, the result is finished as `sitesift clean` finishes it (`sitesift.output.finish`):
    its text is the text the command writes.

    `metadata=True` also reads the page's own declarations (JSON-LD, Open Graph and meta
    tags, `<html lang>`, canonical link; htmldate for the date) into
    `result.meta["metadata"]`: title, author, date, sitename, language, canonical_url,
    description (`sitesift.metadata`); `result.markdown(front_matter=True)` shows them.
    """
    output = Output(RENDERINGS, links=links, images=images, title=title, metadata=metadata)
    if model is not None and params:
        raise SettingsError(f"{', '.join(sorted(params))}: a fitted model keeps the settings "
                            "it was fitted with; give them to fit_site")
    cleaner = _cleaner(method, params) if model is None else model
    if not cleaner.fitted:
        raise NotFittedError(
            f"{cleaner.name} learns from many pages of one site and cannot clean a lone page: "
            f"fit it first, model = sitesift.fit_site(pages, method={cleaner.name!r}), then "
            "sitesift.clean(page, model=model); or use a page-level method (the default "
            "cleans one page)")
    page = as_page(html, url=url)
    return finish(cleaner.clean(page), page, output)


def as_page(html: str | bytes | bytearray | memoryview | Page, *,
            url: str | None = None) -> Page:
    """A Page of decoded HTML, of raw bytes (decoded), or the Page given (with `url` when
    one is given). Without a `url`, the page's is the one it declares (canonical link or
    og:url), as `sitesift clean page.html` takes it (`io.listing.declared_in`). An address
    or a file's name where the HTML should be, or anything else, is an InputError."""
    if isinstance(html, Page):
        url = url or html.url or _declared(html.html)
        if url is None or url == html.url:
            return html
        return Page(html.html, url, html.site, html.id, html.encoding, dict(html.meta),
                    cut_title=html.cut_title)
    if isinstance(html, str | bytes | bytearray | memoryview):
        data = html if isinstance(html, str) else bytes(html)
        _not_an_address(data)
        url = url or _declared(data)
        return (Page.from_html(data, url=url) if isinstance(data, str)
                else Page.from_bytes(data, url=url))
    raise InputError(f"a page is HTML as str or bytes, or a sitesift.Page; got "
                     f"{type(html).__name__}")


_HEAD = 65536  # where a page's declared URL is looked for, as for a page file
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+", re.I)


def _declared(html: str | bytes) -> str | None:
    from sitesift.io.listing import declared_in

    head = html[:_HEAD]
    return declared_in(head if isinstance(head, bytes) else head.encode("utf-8", "replace"))


def _not_an_address(html: str | bytes) -> None:
    """An InputError for a URL or a file's name given where the page's HTML goes (its text
    would come back as the page's), saying how to get the page."""
    if len(html) > 4096:
        return
    text = (html if isinstance(html, str) else html.decode("latin-1")).strip()
    if "<" in text or "\n" in text or not text:
        return
    if _ADDRESS.fullmatch(text):
        raise InputError(
            f"{text!r} is an address, not a page's HTML: fetch the page first, e.g. from "
            "sitesift.io.fetch import fetch; got = fetch(url); sitesift.clean("
            "sitesift.Page.from_bytes(got.data, url=got.url, content_type=got.content_type)) "
            "(`sitesift clean URL` fetches it)")
    try:
        named = Path(text).is_file()
    except (OSError, ValueError):  # too long a name, a NUL: not a file's name
        named = False
    if named:
        raise InputError(f"{text!r} is a file's name, not a page's HTML: "
                         "sitesift.clean(sitesift.Page.from_file(path)) reads the file")


def _cleaner(method: str, params: dict[str, Any]) -> Cleaner:
    """The cleaner for these settings: the one made before where the settings can be a
    cache key, a new one otherwise (a list value, say)."""
    key = tuple(sorted(params.items()))
    try:
        hash(key)
    except TypeError:
        return get_cleaner(method, **params)
    return _cached_cleaner(method, key)


@functools.lru_cache(maxsize=CACHED_CLEANERS)
def _cached_cleaner(method: str, key: tuple[tuple[str, Any], ...]) -> Cleaner:
    return get_cleaner(method, **dict(key))


def fit_site(pages: Sequence[Page], method: str = "sst", **params: Any) -> Cleaner:
    """A site-level cleaner fitted on pages of one site; `model.clean(page)` then cleans
    any page of the site, and `save_model(model, path)` keeps it."""
    return get_cleaner(method, **params).fit(pages)


def save_model(cleaner: Cleaner, path: str | Path) -> Path:
    """Write a fitted cleaner to `path` as checked JSON (`.gz` compresses); see
    `sitesift.model_io`."""
    from sitesift.model_io import save_model as _save

    return _save(cleaner, path)


def load_model(path: str | Path) -> Cleaner:
    """Read a cleaner written by `save_model`; a missing, damaged or altered file is a
    ModelError naming it."""
    from sitesift.model_io import load_model as _load

    return _load(path)
