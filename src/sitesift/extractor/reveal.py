"""Pages whose main content is not displayed until a script runs.

Some sites ship the content for crawlers and script-less browsers inside `<noscript>`
(Discourse forums put every post there) or in elements marked `hidden` that a script
reveals (React's streamed server rendering). The shared DOM leaves both out, as a browser
with scripts would until the script has run, so such a page shows little more than its
header. When a page's visible text is that small and such hidden parts hold much more, the
page is read again with them shown: `<noscript>` unwrapped and `hidden` dropped, as a
browser without scripts (noscript) or after its scripts ran (hidden) would display it.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from sitesift.extractor.blocks import PageBlocks, walk
from sitesift.page import Page
from sitesift.text import TOKEN

MAX_VISIBLE_TOKENS = 400  # pages with more visible text are read as they are
MIN_HIDDEN_TOKENS = 100   # hidden text worth showing
MIN_GAIN = 2.0            # ... and at least this many times the visible text


def _tokens(text: str) -> int:
    return len(TOKEN.findall(text))


def reveal(page: Page, visible_tokens: int) -> Page | None:
    """The page read again with its script-gated content shown, or None when the page's
    visible text is not small or nothing substantial is hidden."""
    if visible_tokens >= MAX_VISIBLE_TOKENS:
        return None
    low = page.html.lower()
    if "<noscript" not in low and "hidden" not in low:
        return None
    tree = LexborHTMLParser(page.html)
    body = tree.body
    if body is None:
        return None
    noscripts = [n for n in body.css("noscript")]
    hidden = [n for n in body.css("[hidden]")]
    hidden_tokens = sum(_tokens(n.text(separator=" ")) for n in noscripts + hidden)
    if hidden_tokens < MIN_HIDDEN_TOKENS or hidden_tokens < MIN_GAIN * max(visible_tokens, 1):
        return None
    for node in hidden:
        attrs = node.attrs
        if "hidden" in attrs:
            del attrs["hidden"]
    for node in reversed(noscripts):  # innermost first
        node.unwrap()
    html = tree.html or ""
    try:
        shown = Page.from_html(html, url=page.url, site=page.site, id=page.id,
                               encoding=page.encoding)
    except Exception:  # the page as it was is still a valid reading
        return None
    shown.meta.update(page.meta)
    shown.meta["revealed"] = True
    return shown


def prepared(page: Page) -> tuple[Page, PageBlocks]:
    """The page as the extractor reads it (revealed where `reveal` applies) and its
    blocks."""
    pb = walk(page.root, page.title, page.url)
    chars = sum(len(t) for t in pb.text)
    if chars < MAX_VISIBLE_TOKENS * 10:  # cheap bound first: ~6 characters a token
        shown = reveal(page, sum(_tokens(t) for t in pb.text))
        if shown is not None:
            return shown, walk(shown.root, shown.title, shown.url)
    return page, pb
