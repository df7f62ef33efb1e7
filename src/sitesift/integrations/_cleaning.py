"""What the pipeline integrations share: a cleaner made once from settings checked up
front, and one page's main text from HTML as a pipeline holds it (str or bytes, a URL
or none)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitesift.decode import binary_reason
from sitesift.errors import InputError, SitesiftError
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.output import Output, finish
from sitesift.page import Page

# A small article page: every page-level method finds something to keep on it, so a
# cleaner that fails on it fails on its settings (or its model file), not on the page.
_PROBE = (
    "<html><head><title>Probe</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/news/'>News</a></nav>"
    "<article><h1>A probe page</h1>"
    "<p>This page checks that the cleaner's settings work before any real page is read. "
    "It has a heading, a navigation bar and two paragraphs of ordinary prose.</p>"
    "<p>The second paragraph is here so that methods which compare blocks have more than "
    "one block of text to compare with each other.</p></article>"
    "<footer>Copyright</footer></body></html>"
)


def build_cleaner(method: str | None = None, params: Mapping[str, Any] | None = None,
                  site_model: str | None = None) -> Cleaner:
    """A cleaner that cleans pages one at a time, its settings checked now: an unknown
    method (UnknownMethodError), an unknown or bad setting (ValueError), a method that must
    be fitted on pages of a site first (ValueError: fit it and pass `site_model`), a model
    file that cannot be read (ModelError). `site_model` is a model file written by
    `sitesift fit --out` or `sitesift.model_io.save_model`; it carries its own method and settings.
    `method` None is `default`, or the method of `site_model`."""
    params = dict(params or {})
    if site_model is not None:
        if params:
            raise ValueError(f"settings {sorted(params)} given with site_model={site_model!r}:"
                             " a model file carries its own settings")
        from sitesift.model_io import load_model

        cleaner = load_model(site_model)
        if method is not None and method != cleaner.name:
            raise ValueError(f"method={method!r} given, but {site_model} is a "
                             f"{cleaner.name!r} model")
    else:
        name = method or "default"
        known = get_cleaner(name).get_params()  # (an unknown name raises here)
        if unknown := sorted(set(params) - set(known)):
            raise ValueError(f"{name}: no setting named {', '.join(map(repr, unknown))}; its "
                             f"settings: {', '.join(sorted(known)) or 'none'}")
        try:
            cleaner = get_cleaner(name, **params)
        except SitesiftError:
            raise
        except TypeError as exc:  # a value of the wrong type, found by the constructor
            raise ValueError(f"{name}: bad setting in {params}: {exc}") from None
        if not cleaner.fitted:
            raise ValueError(f"{name} is a site-level method: it must be fitted on pages of "
                             "one site first (`sitesift fit PAGES --method "
                             f"{name} --out site.json`), then pass site_model='site.json'")
    if not type(cleaner).needs_browser:  # (a browser method would start Chromium here)
        try:
            cleaner.clean(Page.from_html(_PROBE, url="https://probe.example/a"), noise=False)
        except SitesiftError:
            raise
        except Exception as exc:
            raise ValueError(f"{cleaner.name}: these settings fail on a test page "
                             f"({type(exc).__name__}: {exc}); settings: "
                             f"{cleaner.get_params()}") from None
    return cleaner


def make_page(html: str | bytes | bytearray | memoryview, url: str | None = None) -> Page:
    """A Page from a pipeline's HTML: bytes are decoded as files are (BOM, meta charset,
    detection); text that is plainly binary junk (control characters, an image's or an
    archive's signature) is refused like such bytes."""
    if isinstance(html, bytes | bytearray | memoryview):
        return Page.from_bytes(bytes(html), url=url)
    if not isinstance(html, str):
        raise InputError(f"{url or 'page'}: HTML must be str or bytes, not "
                         f"{type(html).__name__}")
    if (reason := binary_reason(html[:4096].encode("latin-1", "replace"))) is not None:
        raise InputError(f"{url or 'page'}: {reason}")
    return Page.from_html(html, url=url)


_TEXT = Output(renderings=("text",), noise=False)


def clean_text(cleaner: Cleaner, html: str | bytes | bytearray | memoryview,
               url: str | None = None) -> str:
    """The page's main text with its structure (paragraphs apart by a blank line, line
    breaks and code lines kept: `Result.text`, as the command line's text); a page sitesift
    cannot read raises InputError naming it."""
    return clean_fields(cleaner, html, url)[0]


FIELDS = ("language", "language_score", "page_type", "page_type_score", "confidence")
"""What a pipeline's document or row gets beside its text, named as in a crawl record
(docs/crawl.md): the text's language (DataTrove's and FineWeb's names), the page type and
the confidence (None for a method that cannot give one)."""


COMMENTS = "comments"
"""The field of a page's comments kept apart from its text (`comments=separate`), as
trafilatura's and rs-trafilatura's `comments`: there only where the cleaner keeps them apart
(`fields_of`)."""


def fields_of(cleaner: Cleaner) -> tuple[str, ...]:
    """The fields a cleaner's documents and rows get: `FIELDS`, and `comments` where the
    cleaner keeps comments apart from the text."""
    apart = getattr(getattr(cleaner, "params", None), "comments", None) == "separate"
    return (*FIELDS, COMMENTS) if apart else FIELDS


def clean_fields(cleaner: Cleaner, html: str | bytes | bytearray | memoryview,
                 url: str | None = None) -> tuple[str, dict[str, Any]]:
    """`clean_text`'s text, and the page's `fields_of(cleaner)` as its result holds them
    (`comments`: None for a page without comments)."""
    page = make_page(html, url)
    result = finish(cleaner.clean(page, noise=False), page, _TEXT)
    fields = {"language": result.language, "language_score": result.language_score,
              "page_type": result.page_type, "page_type_score": result.page_type_score,
              "confidence": result.confidence}
    if COMMENTS in fields_of(cleaner):
        fields[COMMENTS] = result.comments
    return result.text, fields


def describe(exc: BaseException) -> str:
    """An error as one line for a record: sitesift's own errors already name the page."""
    text = str(exc).replace("\n", " ").strip()
    if isinstance(exc, SitesiftError):
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
