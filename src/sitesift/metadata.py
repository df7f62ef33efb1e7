"""A page's metadata from its own declarations: title, author, date, site name, language,
canonical URL and description.

    from sitesift.metadata import extract_metadata
    meta = extract_metadata(html, url="https://example.org/post")
    meta.title, meta.author, meta.date, meta.to_dict()

Read, in order of trust: JSON-LD (`<script type="application/ld+json">`, `@graph` arrays,
nested author objects and lists), microdata (`itemprop`), Open Graph / Twitter / Dublin Core
/ Highwire (`citation_*`) and standard `<meta>` tags, `<html lang>`, `<link rel=canonical>`,
then `<title>` (the site name suffix " | Site" stripped) and the first `<h1>` as fallbacks.
The publication date is the one the page declares (JSON-LD `datePublished`,
`article:published_time`, microdata `datePublished`), else htmldate's (`original_date=True`;
its extensive search of `<time>` and the page's text, or with `fast_dates` its fast mode).
Nothing here raises on a page: a field that cannot be read is None.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import date as Date
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

MAX_FIELD = 1000        # longer declared values are not a title or a name
MAX_AUTHOR = 120
MIN_YEAR = 1990         # dates before the web are a template's placeholder, not the page's

_ARTICLE_TYPES = {
    "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
    "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "techarticle",
    "scholarlyarticle", "socialmediaposting", "liveblogposting", "discussionforumposting",
    "report", "review", "recipe", "howto", "qapage", "question", "medicalwebpage",
    "creativework", "product", "event", "course", "videoobject", "podcastepisode",
}
_PAGE_TYPES = {"webpage", "itempage", "aboutpage", "faqpage", "collectionpage",
               "profilepage", "searchresultspage", "contactpage", "checkoutpage"}
_SITE_TYPES = {"website"}
_ORG_TYPES = {"organization", "newsmediaorganization", "corporation", "localbusiness",
              "educationalorganization", "governmentorganization", "onlinestore", "ngo"}

_SPACE = re.compile(r"\s+")
_SEPARATORS = (" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " « ", " » ", ": ", " / ")
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_AUTHOR_PREFIX = re.compile(
    r"^(?:(?:(?:written|posted|published|reviewed|article)\s+)?by[\s:]+|authors?[\s:]+)", re.I)
# a byline's name ends where its date, role or separator starts
_BYLINE_END = re.compile(r"\s*(?:[|•·\n]|\b(?:on|last|updated|published|posted)\b|\d).*$",
                         re.I | re.S)
_BYLINES = ('[rel="author"], [class*="author" i], [class*="byline" i], [id*="author" i], '
            '[data-testid*="author" i]')
MAX_BYLINE_WORDS = 5
_BYLINE_MARK = re.compile(r"(?:author|byline)(?!iz)", re.I)   # not "authorization"
_NAME_CHARS = re.compile(r"^[^\W\d_][\w .'’,&-]*$")
# words of a form label, a button or a heading, not of a name
_NOT_NAME_WORDS = frozenset(
    "author authors name by about written posts post view more read follow sign in login "
    "log insights topic reviews review from the all comment comments reply jan feb mar apr "
    "may jun jul aug sep sept oct nov dec january february march april june july august "
    "september october november december".split())
_NOT_A_NAME = re.compile(r"^(?:https?://|www\.|@)|[<>{}]|\.(?:com|org|net)\b", re.I)


@dataclass(slots=True)
class Metadata:
    """What the page says about itself; each field is None where it says nothing usable."""

    title: str | None = None
    author: str | None = None
    date: str | None = None            # ISO yyyy-mm-dd, the publication date preferred
    sitename: str | None = None
    language: str | None = None        # as declared (BCP 47, e.g. "en-US")
    canonical_url: str | None = None
    description: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)


def extract_metadata(html: str, url: str | None = None, *, fast_dates: bool = False
                     ) -> Metadata:
    """The metadata `html` declares about itself (`url`: where it came from, to resolve a
    relative canonical link and as htmldate's hint). Never raises for any page: an
    unreadable declaration is skipped, a field without one is None.

    A page that declares no publication date is searched by htmldate (original date
    preferred); with `fast_dates` in htmldate's fast mode only (`extensive_search=False`,
    about a third of the time, and fewer dates found: 0.814 against 0.846 on wcxb)."""
    meta = Metadata()
    p = _read(html, url)
    if p is None:
        return meta
    meta.sitename = _guarded(_sitename, p)
    meta.title = _guarded(lambda p: _title(p, meta.sitename), p)
    meta.author = _guarded(_author, p)
    meta.language = _guarded(_language, p)
    meta.canonical_url = _guarded(_canonical, p)
    meta.description = _guarded(_description, p)
    meta.date = _guarded(lambda p: _declared_date(p) or _htmldate(html, url, fast_dates), p)
    return meta


def extract_title(html: str, url: str | None = None) -> str | None:
    """The page's title as `extract_metadata` reads it (the headline it declares, without
    the site's name), without reading the other fields."""
    p = _read(html, url)
    if p is None:
        return None
    return _guarded(lambda p: _title(p, _guarded(_sitename, p)), p)


def _read(html: str, url: str | None) -> _Page | None:
    """The page's tree and declarations (None: no tree to read); a declaration that
    cannot be read is left out."""
    try:
        tree = LexborHTMLParser(html)
    except Exception:
        return None
    try:
        tags = _meta_tags(tree)
    except Exception:
        tags = {}
    try:
        items = _json_ld(tree)
    except Exception:
        items = []
    return _Page(tree, tags, items, url, _pick(items, _ARTICLE_TYPES),
                 _pick(items, _PAGE_TYPES))


def _guarded(read: Callable[[_Page], str | None], p: _Page) -> str | None:
    """One field; a declaration that breaks the reading costs that field only."""
    try:
        return read(p)
    except Exception:
        return None


# -- reading the declarations ------------------------------------------------------------


def _clean(value: Any, limit: int = MAX_FIELD) -> str | None:
    if not isinstance(value, str):
        return None
    text = _SPACE.sub(" ", value).strip()
    if "&" in text:
        import html as htmllib

        text = htmllib.unescape(text)
    return text if text and len(text) <= limit else None


def _meta_tags(tree: LexborHTMLParser) -> dict[str, str]:
    """`<meta>` name/property/itemprop/http-equiv (lower case) -> the first non-empty content."""
    out: dict[str, str] = {}
    for node in tree.css("meta"):
        attrs = node.attributes
        content = _clean(attrs.get("content"))
        if content is None:
            continue
        for key in ("property", "name", "itemprop", "http-equiv"):
            name = attrs.get(key)
            if name:
                out.setdefault(name.strip().lower(), content)
    return out


def _first(tags: dict[str, str], *names: str) -> str | None:
    for name in names:
        if tags.get(name):
            return tags[name]
    return None


def _json_ld(tree: LexborHTMLParser) -> list[dict[str, Any]]:
    """Every JSON-LD object of the page, `@graph` members and nested lists flattened (a
    script that is not JSON is skipped)."""
    items: list[dict[str, Any]] = []
    for node in tree.css('script[type="application/ld+json"]'):
        raw = node.text(deep=True) or ""
        try:
            data = json.loads(raw)
        except ValueError:
            try:  # a common slip: control characters (raw newlines) inside strings
                data = json.loads(raw, strict=False)
            except ValueError:
                continue
        items.extend(_objects(data, 0))
    return items


def _objects(data: Any, depth: int) -> Iterator[dict[str, Any]]:
    if depth > 4:
        return
    if isinstance(data, list):
        for item in data:
            yield from _objects(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        if "@graph" in data:
            yield from _objects(data["@graph"], depth + 1)
        main = data.get("mainEntity")
        if isinstance(main, dict | list):
            yield from _objects(main, depth + 1)


def _types(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {k.lower().rsplit("/", 1)[-1] for k in kinds if isinstance(k, str)}


def _name(value: Any, depth: int = 0) -> str | None:
    """A person's or organisation's name: a string, an object's name (or given + family
    names), or a list of those joined by ", "."""
    if depth > 3:
        return None
    if isinstance(value, str):
        return _person(value)
    if isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, dict | list):
            return _name(name, depth + 1)
        if not name and (value.get("givenName") or value.get("familyName")):
            name = f"{value.get('givenName') or ''} {value.get('familyName') or ''}"
        if not name and "@value" in value:
            name = value["@value"]
        return _person(name)
    if isinstance(value, list):
        names: list[str] = []
        for v in value:
            n = _name(v, depth + 1)
            if n and n not in names:
                names.append(n)
        return _person(", ".join(names)) if names else None
    return None


def _person(value: Any) -> str | None:
    """A name as a byline gives it: "By " dropped; a URL, handle or markup is not one."""
    text = _clean(value, MAX_AUTHOR)
    if text is None:
        return None
    text = _AUTHOR_PREFIX.sub("", text).strip(" ,;|")
    if not text or _NOT_A_NAME.search(text) or not any(c.isalpha() for c in text):
        return None
    return text


def _text_value(value: Any) -> str | None:
    """A JSON-LD text value: a string, the first of a list, or an object's @value/name."""
    if isinstance(value, list):
        for v in value:
            got = _text_value(v)
            if got:
                return got
        return None
    if isinstance(value, dict):
        return _clean(value.get("@value") or value.get("name"))
    return _clean(value)


def _pick(items: list[dict[str, Any]], kinds: set[str]) -> dict[str, Any] | None:
    for item in items:
        if _types(item) & kinds:
            return item
    return None


@dataclass(slots=True)
class _Page:
    """What the fields are read from, gathered once."""

    tree: LexborHTMLParser
    tags: dict[str, str]
    items: list[dict[str, Any]]
    url: str | None
    article: dict[str, Any] | None = None   # the JSON-LD object about the page's content
    page: dict[str, Any] | None = None      # its WebPage object

    @property
    def main(self) -> dict[str, Any]:
        return self.article or self.page or {}


def _sitename(p: _Page) -> str | None:
    site = _pick(p.items, _SITE_TYPES)
    publisher = p.main.get("publisher") or (p.page or {}).get("publisher")
    org = _pick(p.items, _ORG_TYPES)
    return (_first(p.tags, "og:site_name", "application-name", "apple-mobile-web-app-title")
            or (_text_value(site.get("name")) if site else None)
            or (_name(publisher) if isinstance(publisher, dict) else None)
            or (_text_value(org.get("name")) if org else None))


def _title(p: _Page, sitename: str | None) -> str | None:
    h1 = _first_h1(p.tree)
    title = (_text_value(p.main.get("headline"))
             or (_text_value(p.article.get("name")) if p.article else None)
             or _first(p.tags, "og:title", "twitter:title", "citation_title", "dc.title",
                       "dcterms.title", "headline", "title")
             or _title_tag(p.tree))
    if title:
        title = _strip_site(title, sitename, h1)
    return title or h1


def _author(p: _Page) -> str | None:
    weak = None  # an organisation (often the site) named as author: kept if nothing better
    for item in (p.article, p.page):
        if item and (got := _name(item.get("author")) or _name(item.get("creator"))):
            if not _organisation(item.get("author"), got, p):
                return got
            weak = weak or got
    if weak:
        return _person_author(p) or weak
    return _person_author(p)


def _organisation(value: Any, name: str, p: _Page) -> bool:
    items = value if isinstance(value, list) else [value]
    if all(isinstance(v, dict) and _types(v) & _ORG_TYPES for v in items):
        return True
    site = p.tags.get("og:site_name")
    return site is not None and _fold(site) == _fold(name)


def _person_author(p: _Page) -> str | None:
    for name in ("author", "article:author", "citation_author", "dc.creator",
                 "dcterms.creator", "parsely-author", "sailthru.author", "byl"):
        if got := _person(p.tags.get(name)):
            return got
    if p.tags.get("twitter:label1", "").lower() in {"written by", "author", "by"} and (
            got := _person(p.tags.get("twitter:data1"))):
        return got
    return _microdata_author(p.tree) or _byline(p.tree)


def _language(p: _Page) -> str | None:
    root = p.tree.root
    lang = (_clean(root.attributes.get("lang") if root is not None else None)
            or _first(p.tags, "content-language", "og:locale", "dc.language", "language")
            or _text_value(p.main.get("inLanguage")))
    return lang.replace("_", "-") if lang else None


def _canonical(p: _Page) -> str | None:
    canonical = None
    for node in p.tree.css("link[rel]"):
        rels = (node.attributes.get("rel") or "").lower().split()
        if "canonical" in rels and (href := _clean(node.attributes.get("href"))):
            canonical = href
            break
    canonical = canonical or _first(p.tags, "og:url", "twitter:url") or p.url
    if not canonical:
        return None
    try:
        canonical = urljoin(p.url or "", canonical)
    except ValueError:
        return None
    return canonical if urlsplit(canonical).scheme in {"http", "https"} else None


def _description(p: _Page) -> str | None:
    return (_first(p.tags, "og:description", "description", "twitter:description",
                   "dc.description", "dcterms.description")
            or _text_value(p.main.get("description")))


def _title_tag(tree: LexborHTMLParser) -> str | None:
    head = tree.head
    node = head.css_first("title") if head is not None else None
    node = node or tree.css_first("title")
    return _clean(node.text(deep=True)) if node is not None else None


def _first_h1(tree: LexborHTMLParser) -> str | None:
    node = tree.css_first("h1")
    return _clean(node.text(deep=True, separator=" ")) if node is not None else None


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _strip_site(title: str, sitename: str | None, h1: str | None) -> str:
    """The title without the site's name before or after a separator ("Post | Site")."""
    folded = _fold(title)
    names = {_fold(sitename)} if sitename else set()
    for sep in _SEPARATORS:
        if sep not in title:
            continue
        head, _, tail = title.rpartition(sep)
        if names and _fold(tail) in names and head.strip():
            return head.strip()
        first, _, rest = title.partition(sep)
        if names and _fold(first) in names and rest.strip():
            return rest.strip()
        # no site name known: the part the headline repeats is the title
        if h1 and _fold(h1) != folded:
            for part in (head, first, rest, tail):
                if part.strip() and _fold(part) == _fold(h1):
                    return part.strip()
    return title


def _microdata_author(tree: LexborHTMLParser) -> str | None:
    node = tree.css_first('[itemprop="author"]')
    if node is None:
        node = tree.css_first('[rel="author"]')
        return _person(node.text(deep=True, separator=" ")) if node is not None else None
    named = node.css_first('[itemprop="name"]')
    if named is not None:
        value = named.attributes.get("content") or named.text(deep=True, separator=" ")
        return _person(value)
    return _person(node.attributes.get("content") or node.text(deep=True, separator=" "))


def _byline(tree: LexborHTMLParser) -> str | None:
    """The name in the page's first byline element (class or id "author"/"byline",
    rel="author"): "By Jane Doe | May 3" gives "Jane Doe"; a box of more words (an author's
    biography) is not a byline."""
    for node in tree.css(_BYLINES)[:20]:
        if node.tag in {"body", "html", "meta", "link", "script", "style", "img", "input",
                        "label", "button", "form", "textarea", "select"}:
            continue
        attrs = node.attributes
        marks = " ".join(attrs.get(k) or "" for k in ("class", "id", "data-testid"))
        if attrs.get("rel") != "author" and not _BYLINE_MARK.search(marks):
            continue
        text = node.text(deep=True, separator=" ")
        if not text or len(text) > 200:
            continue
        text = _AUTHOR_PREFIX.sub("", _SPACE.sub(" ", text).strip())
        name = _person(_BYLINE_END.sub("", text))
        if (name and len(name.split()) <= MAX_BYLINE_WORDS and _NAME_CHARS.match(name)
                and not {w.casefold().strip(".,") for w in name.split()} & _NOT_NAME_WORDS):
            return name
    return None


# -- the date ------------------------------------------------------------------------------


def _iso(value: Any) -> str | None:
    """yyyy-mm-dd of a declared date-time ("2024-03-05T10:00:00Z", "2024-3-5"), if valid."""
    if not isinstance(value, str):
        return None
    m = _ISO_DATE.search(value)
    if m is None:
        return None
    try:
        day = Date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None
    if day.year < MIN_YEAR or day > Date.today().replace(year=Date.today().year + 1):
        return None
    return day.isoformat()


def _declared_date(p: _Page) -> str | None:
    """The publication date the page declares in JSON-LD, meta tags or microdata."""
    items, tags, tree = p.items, p.tags, p.tree
    for kinds in (_ARTICLE_TYPES, _PAGE_TYPES):
        for item in items:
            if _types(item) & kinds:
                for key in ("datePublished", "dateCreated", "uploadDate"):
                    if got := _iso(_text_value(item.get(key))):
                        return got
    for name in ("article:published_time", "og:article:published_time", "datepublished",
                 "citation_publication_date", "citation_date", "dc.date.issued",
                 "dcterms.issued", "dc.date", "dcterms.date", "pubdate", "publish-date",
                 "publish_date", "date", "sailthru.date", "parsely-pub-date"):
        if got := _iso(tags.get(name)):
            return got
    for node in tree.css('[itemprop="datePublished"]'):
        attrs = node.attributes
        if got := _iso(attrs.get("content") or attrs.get("datetime")):
            return got
    return None


def _htmldate(html: str, url: str | None, fast: bool) -> str | None:
    """htmldate's publication date (imported here: it pulls in lxml and dateparser, which
    `import sitesift` must not); `fast`: its fast mode, no search of the page's text."""
    try:
        from htmldate import find_date
    except ImportError:
        return None
    try:
        found = find_date(html, extensive_search=not fast, original_date=True, url=url)
    except Exception:
        return None
    return _iso(found) if found else None
