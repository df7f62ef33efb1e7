"""Weak set-ups, told to the user instead of giving a quietly poor result.

**Weak fits** (`check_fit`, called by every site-level method's `fit`): a site-level model
learns what repeats across the pages of one site, so it warns (`WeakFitWarning`, and in
the cleaner's `fit_warnings`) when it is fitted

- on fewer pages than its method needs, `Cleaner.min_fit_pages`. Measured with
  `benchmarks/min_fit_pages.py` (mean token F1 of held-out pages against the number of
  fitted pages, sites of big9, dragnet and cleanportaleval): fitted on one page, `sst`,
  `template` and `cst` remove nothing (F1 = that of no cleaning) and `infodiscoverer`
  removes nearly everything (F1 0.16-0.22 against 0.67-0.72 for no cleaning); `sst`,
  `template` and `cst` gain little below 5 pages, `ibdf` below 4, `infodiscoverer` has
  90% of its gain from 2. So: 5, 5, 5, 4 and 2 (the crawl's `min_site_pages` is 5 too).
  `default` needs none: fitted on fewer than two pages it cleans each page alone, by design.
- on pages of more than one site: a page's site is its `site`, else its URL's registrable
  domain (`sitesift.jobs.grouping`); pages with neither are not counted. One site's template is
  another's content, so a model fitted on several sites removes what they share (little)
  and keeps each one's template.
- on a sample that holds a page more than once (five captures of one URL, an archive listed
  twice, mirrors of one page): `Cleaner.fit` fits on the distinct pages only
  (`distinct_pages`: the same words, or all but a few, count once) and warns of the
  repeats. Without that, a page repeated in the sample looks like a template: every word of
  it "recurs on every page", and the site model empties it.

**Emptied pages** (`empty_by_model`): a site model that keeps no content word of a page with
text, because the page looks wholly like the site's template to it, gives way to the
fallback cleaner (`sitesift.jobs.page.clean_source`), and the result says so in a warning
(`EMPTIED`), rather than come out as a silent empty result.

**Scripted pages** (`check_page`, called by every method's `clean`): a page whose text is
put in by JavaScript (a single-page app's shell: an empty `<div id="root">`, a
`<noscript>` asking for JavaScript) cleans to (almost) nothing. When the cleaned text is
near empty (fewer than `NEAR_EMPTY_WORDS` words, not counting lines about JavaScript) and
the page's HTML holds scripts, the result gets a warning in `Result.meta["warnings"]`
(so in its JSON and in a crawl's record) if the page has an empty app root, a
`<noscript>` about JavaScript, or no visible text of its own to speak of. Pages are never
rendered here: the warning says to render the page in a browser first.

**Pages without main content** (`check_page` too): a result that keeps no content word (an
error page with an empty body, a shell that scripts would fill in, a page of which the
method kept nothing) gets the reason in `Result.meta["no_main_content"]`
(`Result.no_main_content`): an empty result says why it is empty, in its JSON and in a
crawl's record, rather than look like a page that was cleaned to nothing by mistake.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

from sitesift.errors import WeakFitWarning
from sitesift.text import TOKEN

if TYPE_CHECKING:
    from sitesift.page import Page
    from sitesift.result import Result


class Fitting(Protocol):
    """What a fit's checks read and set of a cleaner (`methods.base.Cleaner` is one): named
    here so that this module, which the cleaners import, imports none of them."""

    fit_warnings: tuple[str, ...]

    @property
    def name(self) -> str: ...

    @property
    def min_fit_pages(self) -> int: ...

SCRIPTED = "scripted page"
"""How every scripted-page warning starts (for filtering records by it)."""
NO_MAIN_CONTENT = "no_main_content"
"""The key of a result's meta that says why it keeps no content (`empty_reason`)."""
TOO_FEW = "too few pages"
SEVERAL_SITES = "several sites"
REPEATED = "repeated pages"
EMPTIED = "site model kept nothing"
"""How the warning on a page that a site model emptied and the fallback cleaned starts."""
NEAR_DUPLICATE = 0.9
"""Pages whose 5-word shingle sets overlap this much (Jaccard) are one page to a fit: the
same page captured twice with another date or counter. On the shared corpora's site
groups, distinct pages of one site reach 0.83-0.88 (amazon product pages, yahoo and blog
posts: a short text in a long template), and most pages with a twin at 0.9 or above have an
exact copy there (cleaneval's dev-60 and final-60, webkb's mirrored pages)."""
SHINGLE_WIDTH = 5
"""The shingles `distinct_pages` compares pages by: runs of this many words."""
SAMPLE_WORDS = 20_000
"""Words compared of each page: bounds the cost of a huge one (~2 ms a page of 2,600 words,
with the parse ~7 ms); pages alike in this many words are one page."""
NEAR_EMPTY_WORDS = 25
"""Cleaned text of fewer words than this is near empty (a short real page has nav,
headings or a paragraph beyond it; an app shell has "Loading..." or nothing)."""
_SHOWN_SITES = 3

# Where a single-page app mounts: the ids React, Next.js, Nuxt, Gatsby, Vue, Svelte and
# Angular projects start with, and Angular's own markers.
APP_ROOTS = ("#root, #app, #__next, #__nuxt, #___gatsby, #svelte, #app-root, #react-root, "
             "#main-app, #spa-root, app-root, [ng-app], [ng-version], [data-reactroot]")
_ROOT_MAX_WORDS = 3  # an app root holding at most "Loading, please wait" is empty
_NOTICE_MAX_WORDS = 30  # a line about JavaScript this short is a notice, not text
_ANY_SCRIPT = re.compile(r"<(?:no)?script\b", re.I)
_ABOUT_JS = re.compile(r"javascript|\bjs\b|enable\s+scripts?|scripts?\s+(?:are\s+)?disabled",
                       re.I)
_NOT_CODE = {"application/json", "application/ld+json", "text/template", "text/html",
             "text/x-template", "importmap", "speculationrules"}


# -- fits ------------------------------------------------------------------------------------

def site_of(page: Page) -> str | None:
    """The page's site: its `site`, else the registrable domain of its URL; None if
    neither is known."""
    if page.site:
        return str(page.site)
    if page.url:
        from sitesift.jobs.grouping import UNKNOWN, site_key

        key = site_key(page.url)
        return None if key == UNKNOWN else key
    return None


def page_shingles(page: Page) -> bytes:
    """What a page says, as `distinct_pages` compares it: the `SHINGLE_WIDTH`-shingles
    (`sitesift.shingles.bulk_shingle_ids`, as little-endian u64 bytes, the form the core
    gives and takes) of its body's words without scripts and styles,
    case folded (digits are not: pages that differ in numbers alone, a catalogue's items or
    "story 1" and "story 2", are pages of their own; a capture's changed time or counter is a
    few words, which the near-duplicate threshold allows), at most `SAMPLE_WORDS` of them; a
    page without words is its markup's words, so two such pages are alike only when their
    HTML is. Read with a light Lexbor parse (a few ms), not `Page.root`. A method that reads
    pages otherwise gives its own (`Cleaner.sample_shingles`: the default cleaner's come
    from the native core's reading of the page, which its fit and cleaning use again)."""
    from selectolax.lexbor import LexborHTMLParser, SelectolaxError

    from sitesift.shingles import bulk_shingle_ids, normalise_tokens

    try:
        tree = LexborHTMLParser(page.html)
        tree.strip_tags(["script", "style", "noscript", "template"])
        body = tree.body
        words = TOKEN.findall(body.text(separator=" ")) if body is not None else []
    except SelectolaxError:  # out of memory in the parser: compare the markup
        words = []
    ids = bulk_shingle_ids(normalise_tokens((words or TOKEN.findall(page.html))[:SAMPLE_WORDS],
                                            fold_digits=False), SHINGLE_WIDTH)
    return ids.astype("<u8").tobytes()


def sample_shingles(pages: Sequence[Page]) -> list[bytes]:
    """Each page's `page_shingles`."""
    return [page_shingles(p) for p in pages]


def distinct_pages(pages: Sequence[Page],
                   shingles: Callable[[Sequence[Page]], list[bytes]] = sample_shingles
                   ) -> tuple[list[Page], int]:
    """The pages of a fit sample that repeat no earlier one, in order, and how many repeats
    were left out. A page repeats an earlier distinct one when their `shingles` (each
    page's `page_shingles` unless given: sorted shingle ids as little-endian u64 bytes) are
    the same or resemble each other at least `NEAR_DUPLICATE` (Jaccard). The check is the
    core's (`_native.near_duplicates`, `native/src/crawl/minhash.rs`: exact copies by content,
    near ones by MinHash and LSH, each candidate checked exactly): linear in the pages while
    few of them resemble each other (docs/lab/crawl.md, "the repeated-page check")."""
    if len(pages) < 2:
        return list(pages), 0
    from sitesift.native import core

    twins = core().near_duplicates(shingles(pages), NEAR_DUPLICATE)
    kept = [page for i, page in enumerate(pages) if twins[i] == i]
    return kept, len(pages) - len(kept)


def fit_warnings(cleaner: Fitting, pages: Sequence[Page], used: int | None = None,
                 repeats: int = 0) -> list[str]:
    """What is weak about fitting `cleaner` on `pages` (`used`: how many of them the fit
    reads, when it samples; `repeats`: pages left out of the sample as repeats of these);
    empty when nothing is."""
    found = []
    if repeats:
        total = len(pages) + repeats
        found.append(f"{REPEATED}: {repeats} of the {total} pages repeat another page of the "
                     f"sample (the same text, or all but a few words) and count once in the "
                     f"{cleaner.name} fit; a page repeated in a sample looks like template")
    n = len(pages) if used is None else used
    need = cleaner.min_fit_pages
    if n < need:
        found.append(f"{TOO_FEW}: {cleaner.name} fitted on {n} page{'' if n == 1 else 's'}; "
                     f"it needs at least {need} pages of a site to tell its template from "
                     "its content, and removes little or nothing with fewer")
    sites = sorted({s for s in map(site_of, pages) if s is not None})
    if len(sites) > 1:
        shown = ", ".join(sites[:_SHOWN_SITES]) + (", ..." if len(sites) > _SHOWN_SITES else "")
        found.append(f"{SEVERAL_SITES}: {cleaner.name} fitted on pages of {len(sites)} sites "
                     f"({shown}); a site-level model learns one site's template: fit one "
                     "model per site")
    return found


def check_fit(cleaner: Fitting, pages: Sequence[Page], *, used: int | None = None,
              repeats: int = 0, stacklevel: int = 3) -> None:
    """Set `cleaner.fit_warnings` for a fit on `pages` and warn (`WeakFitWarning`) of each;
    `Cleaner.fit` calls it first. `stacklevel` 3 names the caller of `fit`."""
    found = fit_warnings(cleaner, pages, used, repeats)
    cleaner.fit_warnings = tuple(found)
    for message in found:
        warnings.warn(message, WeakFitWarning, stacklevel=stacklevel)


@contextmanager
def quiet_fits() -> Iterator[None]:
    """No `WeakFitWarning` inside: for the batch and the crawl, which fit in worker processes
    (whose warnings nobody sees) and carry `Cleaner.fit_warnings` to their records instead;
    the same in this process, so both paths report alike."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeakFitWarning)
        yield


# -- pages -----------------------------------------------------------------------------------

def add_warning(result: Result, message: str) -> None:
    """Add `message` to `result.meta["warnings"]` (once)."""
    held = result.meta.setdefault("warnings", [])
    if message not in held:
        held.append(message)


def _words(text: str, enough: int | None = None) -> int:
    """Words of `text`, not counting short lines about JavaScript ("please enable ..."); with
    `enough`, counted only until there are that many (every page's check asks whether its
    text is near empty: a long article's lines need not all be read)."""
    total = 0
    for line in text.splitlines():
        words = len(TOKEN.findall(line))
        if words >= _NOTICE_MAX_WORDS or not _ABOUT_JS.search(line):
            total += words
            if enough is not None and total >= enough:
                break
    return total


def _is_code(attributes: dict[str, str | None]) -> bool:
    kind = (attributes.get("type") or "").strip().lower()
    return kind not in _NOT_CODE


def scripted(html: str | Callable[[], str], text: str) -> str | None:
    """The warning for a page whose cleaned `text` is near empty because scripts would fill
    it in, or None (see the module docstring). `html` may be a function giving it, called
    only for a near-empty text (most pages never need the page's HTML as a str)."""
    if _words(text, NEAR_EMPTY_WORDS) >= NEAR_EMPTY_WORDS:
        return None
    html = html if isinstance(html, str) else html()
    if not _ANY_SCRIPT.search(html):
        return None
    from selectolax.lexbor import LexborHTMLParser, SelectolaxError

    try:
        tree = LexborHTMLParser(html)
        scripts = sum(1 for node in tree.css("script") if _is_code(node.attributes))
        notice = any(_ABOUT_JS.search(node.text() or "") for node in tree.css("noscript"))
        tree.strip_tags(["script", "style", "noscript", "template"])
        roots = [node for node in tree.css(APP_ROOTS)
                 if len(TOKEN.findall(node.text() or "")) <= _ROOT_MAX_WORDS]
        body = tree.body
        page_words = _words(body.text(separator="\n")) if body is not None else 0
    except SelectolaxError:  # out of memory in the parser: no verdict on this page
        return None
    signs = []
    if roots:
        node = roots[0]
        attrs = node.attributes
        mark = f' id="{attrs["id"]}"' if attrs.get("id") else next(
            (f" {k}" for k in ("ng-app", "ng-version", "data-reactroot") if k in attrs), "")
        signs.append(f"an empty <{node.tag}{mark}>")
    if notice:
        signs.append("a <noscript> asking for JavaScript")
    if not signs and (not scripts or page_words >= NEAR_EMPTY_WORDS):
        return None
    if scripts:
        signs.append(f"{scripts} script{'' if scripts == 1 else 's'}")
    return (f"{SCRIPTED}: almost no text without JavaScript ({', '.join(signs)}); its text is "
            "likely filled in by scripts: render the page in a browser first")


def _keeps_words(result: Result) -> bool:
    return any(TOKEN.search(b.text) for b in result.content)


def _shows_words(page: Page) -> bool:
    return any(TOKEN.search(text) for text in page.root.texts())


def empty_reason(page: Page, result: Result, scripted_page: bool) -> str | None:
    """Why `result` keeps no content word, or None where it keeps some."""
    if _keeps_words(result):
        return None
    if scripted_page:
        return "its text is filled in by scripts"
    if not _shows_words(page):
        return "the page shows no text"
    return "nothing on the page reads as main content"


def emptied(page: Page, result: Result) -> bool:
    """Does `result` keep no content word of a page that shows some (see "Emptied pages")?"""
    return not _keeps_words(result) and _shows_words(page)


def emptied_warning(model: str, fallback: str) -> str:
    """The warning on a page that the `model` site model emptied and `fallback` cleaned."""
    return (f"{EMPTIED}: the {model} model of this site read the whole page as template and "
            f"kept none of its text; cleaned by {fallback} instead")


def check_page(page: Page, result: Result) -> Result:
    """`result` with a warning added when `page` is a scripted page (see `scripted`) and
    the reason it is empty where it keeps no content (`empty_reason`); every method's
    `clean` passes its result through this."""
    message = scripted(lambda: page.html, result.text)
    if message is not None:
        add_warning(result, message)
    why = empty_reason(page, result, message is not None)
    if why is not None:
        result.meta[NO_MAIN_CONTENT] = why
    return result
