"""One walk of a page's DOM into text blocks, with what the features measure.

A *block* is the own text of a block-level element (`p`, `div`, `li`, `td`, `h2`, ...): the
text of its inline descendants, not of nested block elements, which are blocks of their own.
That is exactly the unit a verdict on the element decides in `sitesift.extract`'s renderer
(a verdict holds for the subtree until a deeper one overrides it, and every block element
with text gets one), so the classifier's unit and the output's unit are the same.

The walk is iterative (no recursion) and touches every node once; class, id, role and
itemprop values are matched against keyword groups through a memo, because pages and sites
repeat the same attribute values many times.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from sitesift.dom import BLOCK_TAGS, DomNode

# Elements that start a block of their own; `br` and `hr` only break a block's lines.
_BREAKS = frozenset({"br", "hr"})
OWNER_TAGS = BLOCK_TAGS - _BREAKS

# Keyword groups over class, id, role and itemprop values (lowercased): the words authors
# and CMSs use for a part's purpose. Matching is by regular expression over the whole value,
# so compounds without separators (`sidebar`, `mainnav`) are found too.
ATTR_GROUPS: tuple[tuple[str, str], ...] = (
    ("nav", r"nav|menu|breadcrumb|crumb|paginat|pager|paging|toolbar|skip-?link|jump-?to"),
    ("header", r"header|masthead|branding|logo|topbar|top-bar"),
    ("footer", r"footer|copyright|colophon|legal|bottom"),
    ("sidebar", r"sidebar|side-bar|aside|widget|rail|sidebox|secondary|right-?col|left-?col"),
    ("comment", r"comment|disqus|respond|discussion|discuss|replies|reply"),
    ("share", r"share|social|sharing|facebook|twitter|linkedin|pinterest|whatsapp|addthis"
              r"|print|email|follow"),
    ("related", r"related|recommend|more-?stor|more-?articl|more-?from|popular|trending"
                r"|most-?read|recirc|outbrain|taboola|also|you-?may|suggest|teaser|promo"),
    ("ad", r"(^|[^a-z])ads?([^a-z]|$)|advert|sponsor|adsense|adslot|adunit|dfp|doubleclick"
           r"|banner"),
    ("content", r"content|article|post|entry|story|body|text|main|prose|markdown|rich|detail"
                r"|blog"),
    ("meta", r"byline|author|date|time|dateline|publish|posted|meta|info|tag|categor|label"
             r"|keyword"),
    ("caption", r"caption|credit|figure|photo|image|img|gallery|media|thumb|video"),
    ("hidden", r"hidden|visually-?hidden|sr-only|screen-?reader|offscreen|invisible|collapse"
               r"|dropdown|tooltip"),
    ("popup", r"cookie|consent|gdpr|newsletter|subscri|signup|sign-up|login|log-in|register"
              r"|modal|popup|overlay|dialog|paywall"),
    ("title", r"title|headline|heading|(^|[^a-z])hed([^a-z]|$)"),
    ("product", r"product|price|sku|buy|cart|shop|offer|spec|review|rating"),
    ("forum", r"message|thread|topic|answer|question|forum|bbcode|quote|signature"),
    ("card", r"card|tile|grid|item|list|feed|stream|result|collection"),
    ("search", r"search|query|filter|sort|facet"),
    ("code", r"code|highlight|syntax|example|snippet"),
    ("lead", r"lead|intro|summary|abstract|standfirst|dek|subtitle|excerpt|description"),
)
ATTR_FLAG = {name: 1 << i for i, (name, _) in enumerate(ATTR_GROUPS)}
_ATTR_RES = tuple((1 << i, re.compile(rx)) for i, (_, rx) in enumerate(ATTR_GROUPS))
_ROLE_FLAGS = {
    "navigation": "nav", "menu": "nav", "menubar": "nav", "tablist": "nav", "banner": "header",
    "contentinfo": "footer", "complementary": "sidebar", "main": "content",
    "article": "content", "search": "search", "dialog": "popup", "alertdialog": "popup",
    "heading": "title",
}
_ITEMPROP_FLAGS = {
    "articlebody": "content", "text": "content", "reviewbody": "content",
    "description": "lead", "headline": "title", "name": "title", "author": "meta",
    "datepublished": "meta", "datemodified": "meta", "comment": "comment",
    "price": "product", "offers": "product",
}

# Tag groups: the element's own kind (HTML5 sectioning, lists, tables, forms, ...).
TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("t_nav", frozenset({"nav", "menu"})),
    ("t_header", frozenset({"header"})),
    ("t_footer", frozenset({"footer"})),
    ("t_aside", frozenset({"aside"})),
    ("t_article", frozenset({"article"})),
    ("t_main", frozenset({"main"})),
    ("t_section", frozenset({"section"})),
    ("t_form", frozenset({"form", "fieldset", "select", "textarea", "button", "label",
                          "option", "input"})),
    ("t_table", frozenset({"table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption"})),
    ("t_list", frozenset({"ul", "ol", "li", "dir"})),
    ("t_dl", frozenset({"dl", "dt", "dd"})),
    ("t_figure", frozenset({"figure", "figcaption"})),
    ("t_quote", frozenset({"blockquote", "q"})),
    ("t_pre", frozenset({"pre", "code", "kbd", "samp"})),
    ("t_heading", frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "hgroup"})),
    ("t_p", frozenset({"p"})),
    ("t_link", frozenset({"a"})),
    ("t_address", frozenset({"address", "time"})),
    ("t_details", frozenset({"details", "summary", "dialog"})),
    ("t_center", frozenset({"center", "font", "marquee"})),
)
TAG_FLAG = {name: 1 << i for i, (name, _) in enumerate(TAG_GROUPS)}
_TAG_BITS: dict[str, int] = {}
for _i, (_, _tags) in enumerate(TAG_GROUPS):
    for _t in _tags:
        _TAG_BITS[_t] = _TAG_BITS.get(_t, 0) | (1 << _i)
N_ATTR, N_TAG = len(ATTR_GROUPS), len(TAG_GROUPS)
_NONE = (-1,) * (N_ATTR + N_TAG)  # depth of the nearest ancestor with each flag: none yet


@functools.lru_cache(maxsize=1 << 15)
def _words_flags(value: str) -> int:
    bits = 0
    for bit, rx in _ATTR_RES:
        if rx.search(value):
            bits |= bit
    return bits


def attr_flags(attrs: dict[str, str | None] | None) -> int:
    """Keyword-group bits of an element's class, id, role and itemprop."""
    if not attrs:
        return 0
    bits = 0
    cls, ident = attrs.get("class"), attrs.get("id")
    if cls or ident:
        bits = _words_flags(f"{cls or ''} {ident or ''}".lower())
    role = attrs.get("role")
    if role and (name := _ROLE_FLAGS.get(role.strip().lower())):
        bits |= ATTR_FLAG[name]
    prop = attrs.get("itemprop")
    if prop:
        for word in prop.lower().split():
            if name := _ITEMPROP_FLAGS.get(word):
                bits |= ATTR_FLAG[name]
    return bits


@dataclass(slots=True)
class PageBlocks:
    """The blocks of one page and the element arrays behind them.

    Elements are in document (pre)order; `parent[i]` is the index of element i's parent
    (-1 for `<body>`). Blocks are in the order their text starts in the document."""

    # elements
    nodes: list[DomNode]
    parent: list[int]
    depth: list[int]
    flags: list[int]        # own keyword-group bits (ATTR_GROUPS)
    tag_flags: list[int]    # own tag-group bits (TAG_GROUPS)
    kinds: list[str]        # tag and class: records of one list look alike
    # blocks
    elem: list[int]         # the block's element
    text: list[str]         # its own text, whitespace folded ("\n" where a line breaks)
    link_chars: list[int]   # non-space characters of that text inside links
    n_links: list[int]      # <a> elements in it
    n_images: list[int]     # <img> elements in it (inline)
    n_inputs: list[int]     # form controls in it
    n_lines: list[int]      # lines (renderer blocks) the text is split into
    nearest: list[tuple[int, ...]]  # depth of the nearest ancestor-or-self with each flag
    title: str
    url: str | None = None
    # `extractor.site.block_keys` of these blocks, kept once made: a site's fit and the
    # cleaning of its pages ask for the same page's keys
    site_keys: tuple[list[str], list[str], list[str]] | None = field(
        default=None, repr=False, compare=False)


def walk(root: DomNode, title: str | None = None, url: str | None = None) -> PageBlocks:
    """Every element and every block of the page below `root` (the `#root` or `<body>`)."""
    nodes: list[DomNode] = []
    parent: list[int] = []
    depth: list[int] = []
    flags: list[int] = []
    tag_flags: list[int] = []
    kinds: list[str] = []
    owner_of: list[int] = []    # per element: the element owning its inline text
    in_link: list[bool] = []
    nearest_of: list[tuple[int, ...]] = []
    block_of: dict[int, int] = {}  # owner element -> block index
    b_elem: list[int] = []
    b_parts: list[list[str]] = []
    b_link: list[int] = []
    b_links: list[int] = []
    b_images: list[int] = []
    b_inputs: list[int] = []

    def block(owner: int) -> int:
        b = block_of.get(owner)
        if b is None:
            b = block_of[owner] = len(b_elem)
            b_elem.append(owner)
            b_parts.append([])
            b_link.append(0)
            b_links.append(0)
            b_images.append(0)
            b_inputs.append(0)
        return b

    start = root.children[0] if root.tag == "#root" and root.children else root
    if not isinstance(start, DomNode):
        start = root
    stack: list[tuple[DomNode | str, int]] = [(start, -1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, up = pop()
        if item.__class__ is str:
            text = item
            owner = owner_of[up]
            b = block_of.get(owner)
            if b is None:
                if text.isspace():
                    continue
                b = block(owner)
            b_parts[b].append(text)
            if in_link[up]:
                b_link[b] += len("".join(text.split()))
            continue
        node: DomNode = item  # type: ignore[assignment]
        tag = node.tag
        i = len(nodes)
        nodes.append(node)
        parent.append(up)
        d = depth[up] + 1 if up >= 0 else 0
        depth.append(d)
        own = attr_flags(node.attrs)
        tbits = _TAG_BITS.get(tag, 0)
        flags.append(own)
        tag_flags.append(tbits)
        attrs = node.attrs
        kinds.append(f"{tag}.{attrs.get('class') or ''}" if attrs else tag)
        link = tag == "a" or (up >= 0 and in_link[up])
        in_link.append(link)
        near = nearest_of[up] if up >= 0 else _NONE
        if own or tbits:
            near = list(near)  # type: ignore[assignment]
            bits, k = own | (tbits << N_ATTR), 0
            while bits:
                if bits & 1:
                    near[k] = d  # type: ignore[index]
                bits >>= 1
                k += 1
            near = tuple(near)
        nearest_of.append(near)
        if tag in OWNER_TAGS:
            owner_of.append(i)
            if up >= 0:  # the parent's own text breaks around this block
                b = block_of.get(owner_of[up])
                if b is not None:
                    b_parts[b].append("\n")
        else:
            owner = owner_of[up] if up >= 0 else i
            owner_of.append(owner)
            if tag in _BREAKS or tag == "img" or tag in _INPUTS or tag == "a":
                b = block(owner)
                if tag in _BREAKS:
                    b_parts[b].append("\n")
                elif tag == "img":
                    b_images[b] += 1
                elif tag == "a":
                    b_links[b] += 1
                else:
                    b_inputs[b] += 1
        kids = node.children
        for k in range(len(kids) - 1, -1, -1):
            push((kids[k], i))

    texts: list[str] = []
    n_lines: list[int] = []
    keep: list[int] = []
    for b, parts in enumerate(b_parts):
        lines = [" ".join(x.split()) for x in "".join(parts).split("\n")]
        lines = [x for x in lines if x]
        if lines:
            keep.append(b)
            texts.append("\n".join(lines))
            n_lines.append(len(lines))
    return PageBlocks(
        nodes, parent, depth, flags, tag_flags, kinds,
        [b_elem[b] for b in keep], texts, [b_link[b] for b in keep],
        [b_links[b] for b in keep], [b_images[b] for b in keep], [b_inputs[b] for b in keep],
        n_lines, [nearest_of[b_elem[b]] for b in keep], title or "", url)


_INPUTS = frozenset({"input", "select", "textarea", "button"})
