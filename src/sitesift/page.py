"""A page, parsed once: bytes -> text (the native core decodes and checks it) -> Lexbor tree
-> the shared DomNode tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from sitesift.decode import page_file
from sitesift.dom import DomNode, build_dom
from sitesift.errors import InputError
from sitesift.native import core, without_surrogates
from sitesift.reading import MAX_PAGE_BYTES, text_name


class Page:
    """One page and what is known about it.

    The HTML is checked when the page is made (empty, too big, nested too deep) and parsed
    on first use of `root` or `title`: the default cleaner reads the page in its native
    core (`sitesift.native`) and never needs this tree, the other methods parse it once."""

    __slots__ = ("_html", "_root", "_text", "_title", "cut_title", "encoding", "id", "meta",
                 "site", "url")

    def __init__(self, html: str, url: str | None = None, site: str | None = None,
                 id: str | None = None, encoding: str | None = None,
                 meta: dict[str, object] | None = None, *, cut_title: bool = False) -> None:
        self._html: str | None = html
        self._text: Any = None  # the core's PageText, where the core decoded or checked it
        self.url = url
        self.site = site
        self.id = id
        self.encoding = encoding
        self.meta: dict[str, object] = meta if meta is not None else {}
        self.cut_title = cut_title  # an unclosed <title> was closed: its first line is it
        self._root: DomNode | None = None
        self._title: str | bool | None = False  # False: not known yet

    @classmethod
    def _of(cls, text: Any, url: str | None, site: str | None, id: str | None) -> Page:
        """A page of the core's checked text (`_native.PageText`), its Python str made only
        when asked for (`html`)."""
        page = cls("", url, site, id, text.encoding, cut_title=text.cut_title)
        page._html, page._text = None, text
        return page

    @property
    def html(self) -> str:
        """The page's HTML (as checked: NULs removed, an unclosed title closed)."""
        if self._html is None:
            self._html = self._text.text
        return self._html

    @html.setter
    def html(self, html: str) -> None:  # the text as given, not checked again
        self._html, self._text = html, None

    @property
    def chars(self) -> int:
        """`len(page.html)`, without making the str where the core holds the text."""
        return len(self._html) if self._html is not None else int(self._text.chars)

    @property
    def markup(self) -> Any:
        """The HTML as the core takes it: its own text where it holds it (no copy)."""
        return self._text if self._text is not None else self._html

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.html, self.url, self.site, self.id, self.encoding, self.meta,
                           self.cut_title))

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
        """A page of already decoded HTML (checked now: empty, too long, nested too deep;
        parsed on first use)."""
        try:
            text = core().page_text(html)
        except UnicodeEncodeError:  # lone surrogates, which no UTF-8 text can hold
            return cls.from_html(without_surrogates(html), url=url, site=site, id=id,
                                 encoding=encoding)
        except ValueError as exc:
            raise InputError(f"{id or url or 'page'}: {exc}") from None
        page = cls._of(text, url, site, id)
        page.encoding = encoding
        return page

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
        """Decode (BOM, HTTP header, meta charset, detection) and check, in the core."""
        try:
            text = core().decode_page(data, content_type, url, MAX_PAGE_BYTES)
        except ValueError as exc:
            raise InputError(f"{id or url or 'page'}: {exc}") from None
        return cls._of(text, url, site, id)

    @classmethod
    def from_file(cls, path: str | Path, *, url: str | None = None, site: str | None = None,
                  id: str | None = None) -> Page:
        """Read a page from disk (`.gz` is unpacked, a saved HTTP header read)."""
        path = Path(path)
        try:
            body, content_type = page_file(path)
            text = core().decode_page(body, content_type, url, MAX_PAGE_BYTES)
        except (InputError, ValueError) as exc:
            raise InputError(f"{text_name(path)}: {exc}") from None
        return cls._of(text, url, site, id or path.name)


def _restore(html: str, url: str | None, site: str | None, id: str | None,
             encoding: str | None, meta: dict[str, object], cut_title: bool) -> Page:
    return Page(html, url, site, id, encoding, meta, cut_title=cut_title)
