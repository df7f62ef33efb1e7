"""A page, parsed once: bytes -> text -> Lexbor tree -> the shared DomNode tree."""

from __future__ import annotations

import re
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from sitesift.decode import decode_file, decode_html
from sitesift.dom import DomNode, build_dom
from sitesift.errors import InputError
from sitesift.nesting import too_deep
from sitesift.reading import text_name

MAX_CHARS = 32 * 1024 * 1024


# A `<title>` never closed swallows the rest of the document as its text (HTML5's RCDATA
# rule), leaving an empty body; old pages cut or spliced by their crawler have this. Only
# `</title` followed by a space, `/` or `>` closes it (`</titlevalue="true" -->`, a cut
# template comment, does not).
_TITLE_OPEN = re.compile(r"<title\b[^>]*>", re.I)
_TITLE_CLOSE = re.compile(r"</title[\s/>]", re.I)


def _close_title(html: str) -> tuple[str, bool]:
    """Ends an unclosed title before the next tag (whatever ran on in it stays title text,
    not page text); whether it did."""
    start = _TITLE_OPEN.search(html)
    if start is None or _TITLE_CLOSE.search(html, start.end()):
        return html, False
    end = html.find("<", start.end())
    end = len(html) if end < 0 else end
    return f"{html[:end]}</title>{html[end:]}", True


class Page:
    """One page and what is known about it.

    The HTML is checked when the page is made (empty, too big, nested too deep) and parsed
    on first use of `root` or `title`: the default cleaner reads the page in its native
    core (`sitesift.native`) and never needs this tree, the other methods parse it once."""

    __slots__ = ("_root", "_title", "cut_title", "encoding", "html", "id", "meta", "site", "url")

    def __init__(self, html: str, url: str | None = None, site: str | None = None,
                 id: str | None = None, encoding: str | None = None,
                 meta: dict[str, object] | None = None, *, cut_title: bool = False) -> None:
        self.html = html
        self.url = url
        self.site = site
        self.id = id
        self.encoding = encoding
        self.meta: dict[str, object] = meta if meta is not None else {}
        self.cut_title = cut_title  # an unclosed <title> was closed: its first line is it
        self._root: DomNode | None = None
        self._title: str | bool | None = False  # False: not known yet

    @property
    def name(self) -> str:
        """How errors and reports refer to this page."""
        return self.id or self.url or "<page>"

    @property
    def root(self) -> DomNode:
        """The page's tree (the shared DomNode tree over Lexbor's parse)."""
        if self._root is None:
            self._parse()
        assert self._root is not None
        return self._root

    @property
    def title(self) -> str | None:
        if self._title is False:
            self._parse()
        return self._title if isinstance(self._title, str) else None

    def know_title(self, title: str | None) -> None:
        """Record the title as another reading of this HTML found it (the native core),
        so asking for it parses nothing."""
        if self._title is False:
            self._title = title or None

    def _parse(self) -> None:
        try:
            tree = LexborHTMLParser(self.html)
        except SelectolaxError as exc:  # what Lexbor says when an allocation fails
            raise InputError(f"{self.name}: the HTML parser gave up ({exc}): out of "
                             "memory?") from None
        body = tree.body
        if body is None:
            raise InputError(f"{self.name}: no document body after parsing")
        title_node = tree.css_first("title")
        title = title_node.text(strip=True) if title_node is not None else None
        if title and self.cut_title:  # the title proper is its first line
            title = title.split("\n", 1)[0].strip()
        self._root = build_dom(body)
        self._title = title or None

    @classmethod
    def from_html(
        cls,
        html: str,
        *,
        url: str | None = None,
        site: str | None = None,
        id: str | None = None,
        encoding: str | None = None,
    ) -> Page:
        """A page of already decoded HTML (checked now, parsed on first use)."""
        if not html or html.isspace():
            raise InputError(f"{id or url or 'page'}: empty page")
        if len(html) > MAX_CHARS:
            raise InputError(f"{id or url or 'page'}: page of {len(html):,} characters exceeds "
                             f"the limit of {MAX_CHARS:,}")
        if "\x00" in html:
            html = html.replace("\x00", "")
        html, cut_title = _close_title(html)
        refused = too_deep(html)  # shapes the parser takes quadratic time on
        if refused is not None:
            raise InputError(f"{id or url or 'page'}: {refused}")
        return cls(html, url, site, id, encoding, cut_title=cut_title)

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        *,
        url: str | None = None,
        site: str | None = None,
        id: str | None = None,
        content_type: str | None = None,
    ) -> Page:
        """Decode (BOM, HTTP header, meta charset, detection) and parse."""
        try:
            decoded = decode_html(data, content_type)
        except InputError as exc:
            raise InputError(f"{id or url or 'page'}: {exc}") from None
        return cls.from_html(decoded.text, url=url, site=site, id=id, encoding=decoded.encoding)

    @classmethod
    def from_file(cls, path: str | Path, *, url: str | None = None, site: str | None = None,
                  id: str | None = None) -> Page:
        """Read a page from disk (`.gz` is unpacked)."""
        path = Path(path)
        try:
            decoded = decode_file(path)
        except InputError as exc:
            raise InputError(f"{text_name(path)}: {exc}") from None
        return cls.from_html(decoded.text, url=url, site=site, id=id or path.name,
                             encoding=decoded.encoding)
