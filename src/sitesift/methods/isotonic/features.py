"""The scored tree of a page and the features of its nodes (the seed's cues, DOM-only).

**Scored nodes.** Every element with visible text that is block-level, holds a block-level
element, or is a text run beside elements (`#text`) inside such a node. Inline elements
without blocks below them (links, emphasis inside a paragraph) are part of their scored
ancestor's unit: a paragraph with links is one node, a navigation bar's `<a>` run is its
`<div>`. The scored tree links each scored node to its nearest scored ancestor; its root
is `<body>`. Text outside scored nodes does not exist (the body is one).

**Features** (per node, from its whole subtree; `FEATURES` names the columns). The seed's
cues, with the DOM standing in for the screen:

- placement on screen: where the node's text starts and ends in the page's text (document
  order is top to bottom in most layouts), its share of the page, its depth;
- background colour: a `bgcolor` / `background` attribute or an inline `background` style
  on the node or on an ancestor below `<body>`;
- average sentence size: tokens per sentence, sentences cut at text runs and at `.!?`;
- fraction of text outside anchors, and link density (links per token);
- aspect ratio: lines (block-level runs of text) and tokens per line: a menu bar is one
  long line of short entries, a sidebar many short lines, an article few long ones.

plus cues that cost nothing more: the tag and the landmark ancestors (`nav`, `header`,
`footer`, `aside`, `article`, `main`, `form`), template and content words in class and id
names, images, form controls, list items, digits, capitalised words, stop words,
punctuation, separators, copyright marks, overlap with the page title, and the node's
place among its siblings. With a rendering (`sitesift.browser.chromium`), `RENDER_FEATURES` add the
node's actual box on the page.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitesift.dom import BLOCK_TAGS, DomNode
from sitesift.page import Page
from sitesift.text import stop_words

if TYPE_CHECKING:
    import numpy as np

    from sitesift.browser.rendering import Box, Rendering

_TOKEN = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
_COMMA = re.compile(r"[,;:]")
_SEPARATOR = re.compile(r"[|•»›·«‹/]")
_COPYRIGHT = re.compile(r"©|\bcopyright\b|all rights reserved|&copy;", re.I)
# Class / id words of template regions and of content regions (the vocabulary readability
# and boilerplate tools key on).
_TEMPLATE_NAME = re.compile(
    r"nav|menu|foot|header|masthead|sidebar|side-bar|widget|comment|share|social|sponsor|"
    r"promo|advert|(?:^|[-_ ])ads?(?:$|[-_ ])|banner|related|breadcrumb|copyright|login|"
    r"signup|subscribe|newsletter|cookie|popup|modal|toolbar|skip|pagination|pager|rss|"
    r"twitter|facebook|tag-?cloud|most-?(?:popular|read)|trending|recommend", re.I)
_CONTENT_NAME = re.compile(
    r"article|content|post|story|entry|text|body|main|blog|news|hentry|permalink|prose|"
    r"headline|byline", re.I)
_BG_STYLE = re.compile(r"background", re.I)

_TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("tag_text", frozenset({"#text"})),
    ("tag_p", frozenset({"p", "blockquote", "pre"})),
    ("tag_heading", frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})),
    ("tag_list", frozenset({"ul", "ol", "dl", "menu", "dir"})),
    ("tag_item", frozenset({"li", "dt", "dd"})),
    ("tag_div", frozenset({"div", "section", "center"})),
    ("tag_table", frozenset({"table", "tbody", "thead", "tfoot", "tr", "caption"})),
    ("tag_cell", frozenset({"td", "th"})),
    ("tag_form", frozenset({"form", "select", "option", "button", "label", "textarea",
                            "fieldset", "legend"})),
    ("tag_landmark_out", frozenset({"nav", "header", "footer", "aside"})),
    ("tag_landmark_in", frozenset({"article", "main", "figure", "figcaption"})),
    ("tag_inline", frozenset({"a", "span", "font", "b", "strong", "i", "em", "small"})),
    ("tag_body", frozenset({"body"})),
)
_CONTEXT = (("in_nav", "nav"), ("in_header", "header"), ("in_footer", "footer"),
            ("in_aside", "aside"), ("in_article", "article"), ("in_main", "main"),
            ("in_form", "form"), ("in_table", "table"), ("in_list", "ul"),
            ("in_heading", "h1"))
_CONTEXT_TAGS = {"ol": "ul", "dl": "ul", "menu": "ul", "h2": "h1", "h3": "h1", "h4": "h1",
                 "h5": "h1", "h6": "h1"}
_CONTROLS = frozenset({"input", "select", "button", "textarea", "option"})
_LINE_TAGS = BLOCK_TAGS - {"br", "hr"}

FEATURES: tuple[str, ...] = (
    "log_tokens", "page_share", "start", "end", "middle", "depth", "rel_depth",
    "anchor_share", "log_links", "link_density", "log_sentence", "log_lines",
    "log_tokens_per_line", "log_images", "image_density", "log_elements", "text_density",
    "item_share", "log_controls", "digit_share", "capital_share", "stop_share",
    "comma_rate", "stop_punct_rate", "separator_rate", "copyright", "title_overlap",
    "bg_self", "bg_inherited", "name_template", "name_content", "anc_template",
    "anc_content", "log_children", "is_leaf", "log_siblings", "same_tag_siblings",
    "sibling_position", "has_heading",
    *(name for name, _ in _TAG_GROUPS), *(name for name, _ in _CONTEXT),
)
RENDER_FEATURES: tuple[str, ...] = (
    "box_x", "box_y", "box_w", "box_h", "box_log_aspect", "box_area", "box_first_screen",
    "box_font", "box_bold", "box_bg", "box_missing",
)


@dataclass(slots=True)
class NodeTable:
    """The scored tree of one page: nodes in pre-order, parents (-1 for the root), token
    counts, the page's tokens (document order; node i spans tokens[start[i]:end[i]]) and the
    feature matrix (one row per node, columns `names`)."""

    nodes: list[DomNode]
    parents: np.ndarray
    tokens: np.ndarray
    start: np.ndarray
    end: np.ndarray
    page_tokens: list[str]
    X: np.ndarray
    names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.nodes)


class _Walk:
    """Per-element counts of one page, gathered in one document-order walk."""

    def __init__(self) -> None:
        self.nodes: list[DomNode] = []
        self.parent: list[int] = []
        self.start: list[int] = []
        self.end: list[int] = []
        self.anchor: list[int] = []     # tokens inside <a> (own runs)
        self.sent: list[int] = []       # sentences (own runs)
        self.digit: list[int] = []
        self.capital: list[int] = []
        self.stop: list[int] = []
        self.comma: list[int] = []
        self.period: list[int] = []
        self.sep: list[int] = []
        self.copy: list[int] = []
        self.title: list[int] = []
        self.in_anchor: list[bool] = []
        self.tokens: list[str] = []


def _walk(root: DomNode, title_words: frozenset[str]) -> _Walk:
    """Pre-order elements with their own text counts; token offsets in document order."""
    stop = stop_words()
    w = _Walk()
    # Items: a DomNode to enter with its parent index, or an int: the index of a node to leave.
    stack: list[tuple[DomNode | str | int, int]] = [(root, -1)]
    while stack:
        item, parent = stack.pop()
        if isinstance(item, int):
            w.end[item] = len(w.tokens)
            continue
        if isinstance(item, str):
            words = _TOKEN.findall(item)
            if not words:
                continue
            i = parent
            low = [t.lower() for t in words]
            w.tokens.extend(low)
            if w.in_anchor[i]:
                w.anchor[i] += len(words)
            w.sent[i] += 1 + len(_SENTENCE_END.findall(item.rstrip()[:-1]))
            w.digit[i] += sum(t.isdigit() for t in words)
            w.capital[i] += sum(t[0].isupper() for t in words)
            w.stop[i] += sum(t in stop for t in low)
            w.comma[i] += len(_COMMA.findall(item))
            w.period[i] += len(_SENTENCE_END.findall(item))
            w.sep[i] += len(_SEPARATOR.findall(item))
            if _COPYRIGHT.search(item):
                w.copy[i] += 1
            if title_words:
                w.title[i] += sum(t in title_words for t in low)
            continue
        node = item
        i = len(w.nodes)
        w.nodes.append(node)
        w.parent.append(parent)
        w.start.append(len(w.tokens))
        w.end.append(0)
        for lst in (w.anchor, w.sent, w.digit, w.capital, w.stop, w.comma, w.period, w.sep,
                    w.copy, w.title):
            lst.append(0)
        w.in_anchor.append(node.tag == "a" or (parent >= 0 and w.in_anchor[parent]))
        stack.append((i, -1))
        for child in reversed(node.children):
            stack.append((child, i))
    return w


def _name(node: DomNode) -> str:
    attrs = node.attrs
    if not attrs:
        return ""
    return f"{attrs.get('class') or ''} {attrs.get('id') or ''} {attrs.get('role') or ''}"


def _has_bg(node: DomNode) -> bool:
    attrs = node.attrs
    if not attrs:
        return False
    if attrs.get("bgcolor") or attrs.get("background"):
        return True
    style = attrs.get("style")
    return bool(style and _BG_STYLE.search(style))


def node_table(page: Page, rendering: Rendering | None = None, every: bool = False
               ) -> NodeTable:
    """The scored tree of `page` with its feature matrix (`FEATURES`, plus
    `RENDER_FEATURES` when a rendering is given). `every`: every element with visible text
    is a scored node (the seed classifies "each internal DOM node"), inline ones and no
    text runs included, instead of the block-level units of the module docstring."""
    import numpy as np
    body = next(page.root.elements(), None)
    title_words = frozenset(t.lower() for t in _TOKEN.findall(page.title or ""))
    names = FEATURES + (RENDER_FEATURES if rendering is not None else ())
    if body is None:
        return _empty(names)
    w = _walk(body, title_words)
    n = len(w.nodes)
    par = np.asarray(w.parent, dtype=np.int64)
    start = np.asarray(w.start, dtype=np.int64)
    end = np.asarray(w.end, dtype=np.int64)
    tok = end - start
    # Subtree sums, children (later in pre-order) before parents.
    sums = {name: np.asarray(getattr(w, name), dtype=np.float64)
            for name in ("anchor", "sent", "digit", "capital", "stop", "comma", "period", "sep",
                         "copy", "title")}
    links = np.zeros(n)
    images = np.zeros(n)
    controls = np.zeros(n)
    items = np.zeros(n)
    lines = np.zeros(n)
    headings = np.zeros(n)
    elements = np.zeros(n)
    block_below = np.zeros(n, dtype=bool)
    tags = [node.tag for node in w.nodes]
    for i in range(n):
        tag = tags[i]
        node = w.nodes[i]
        if tag == "a" and node.attrs and node.attrs.get("href") is not None:
            links[i] = 1
        elif tag == "img":
            images[i] = 1
        elif tag in _CONTROLS:
            controls[i] = 1
        elif tag == "li":
            items[i] = 1
        if tag in _LINE_TAGS and tok[i] > 0:
            lines[i] = 1
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            headings[i] = 1
    stacked = np.vstack([sums[k] for k in sums] + [links, images, controls, items, lines,
                                                   headings])
    for i in range(n - 1, 0, -1):
        p = par[i]
        stacked[:, p] += stacked[:, i]
        elements[p] += elements[i] + 1
        if tags[i] in BLOCK_TAGS or block_below[i]:
            block_below[p] = block_below[p] or tok[i] > 0
    (anchor, sent, digit, capital, stop, comma, period, sep, copy, title, links, images,
     controls, items, lines, headings) = stacked
    # Scored nodes and their scored parents (pre-order keeps parents first).
    scored_idx: list[int] = []
    new_of = np.full(n, -1, dtype=np.int64)
    up = np.full(n, -1, dtype=np.int64)  # nearest scored ancestor-or-self
    sparent: list[int] = []
    for i in range(n):
        p = int(par[i])
        anc = int(up[p]) if p >= 0 else -1
        tag = tags[i]
        ok = tok[i] > 0 and (
            (tag != "#text") if every else (
                i == 0 or tag in BLOCK_TAGS or block_below[i]
                or (tag == "#text" and p >= 0 and (tags[p] in BLOCK_TAGS or block_below[p]))))
        if ok:
            new_of[i] = len(scored_idx)
            scored_idx.append(i)
            sparent.append(int(new_of[anc]) if anc >= 0 else -1)
            up[i] = i
        else:
            up[i] = anc
    if not scored_idx:
        return _empty(names)
    idx = np.asarray(scored_idx, dtype=np.int64)
    sp = np.asarray(sparent, dtype=np.int64)
    m = idx.size
    T = tok[idx].astype(np.float64)
    page_total = max(float(tok[0]), 1.0)
    depth = np.asarray([w.nodes[i].depth for i in idx], dtype=np.float64)
    # Scored children / siblings.
    n_children = np.bincount(sp[sp >= 0], minlength=m).astype(np.float64)
    sib_count = np.where(sp >= 0, n_children[np.maximum(sp, 0)] - 1, 0.0)
    same_tag = np.zeros(m)
    position = np.zeros(m)
    kids: dict[int, list[int]] = {}
    for j in range(1, m):
        kids.setdefault(int(sp[j]), []).append(j)
    for group in kids.values():
        counts: dict[str, int] = {}
        for j in group:
            counts[tags[idx[j]]] = counts.get(tags[idx[j]], 0) + 1
        last = max(len(group) - 1, 1)
        for r, j in enumerate(group):
            same_tag[j] = (counts[tags[idx[j]]] - 1) / max(len(group) - 1, 1)
            position[j] = r / last
    # Ancestor context, top-down over all elements.
    ctx = np.zeros((len(_CONTEXT), n), dtype=bool)
    anc_t = np.zeros(n, dtype=bool)
    anc_c = np.zeros(n, dtype=bool)
    own_t = np.zeros(n, dtype=bool)
    own_c = np.zeros(n, dtype=bool)
    bg_self = np.zeros(n, dtype=bool)
    bg_anc = np.zeros(n, dtype=bool)
    ctx_index = {tag: k for k, (_, tag) in enumerate(_CONTEXT)}
    for i in range(n):
        node = w.nodes[i]
        name = _name(node)
        if name:
            own_t[i] = bool(_TEMPLATE_NAME.search(name))
            own_c[i] = bool(_CONTENT_NAME.search(name))
        bg_self[i] = i > 0 and _has_bg(node)
        p = int(par[i])
        if p >= 0:
            ctx[:, i] = ctx[:, p]
            anc_t[i] = anc_t[p] or own_t[p]
            anc_c[i] = anc_c[p] or own_c[p]
            bg_anc[i] = bg_anc[p] or bg_self[p]
        k = ctx_index.get(_CONTEXT_TAGS.get(tags[i], tags[i]))
        if k is not None:
            ctx[k, i] = True
    max_depth = max(float(depth.max() - depth.min()), 1.0)
    safe = np.maximum(T, 1.0)
    cols: dict[str, np.ndarray] = {
        "log_tokens": np.log1p(T),
        "page_share": T / page_total,
        "start": start[idx] / page_total,
        "end": end[idx] / page_total,
        "middle": (start[idx] + end[idx]) / (2 * page_total),
        "depth": np.log1p(depth),
        "rel_depth": (depth - depth.min()) / max_depth,
        "anchor_share": anchor[idx] / safe,
        "log_links": np.log1p(links[idx]),
        "link_density": links[idx] / safe,
        "log_sentence": np.log1p(T / np.maximum(sent[idx], 1.0)),
        "log_lines": np.log1p(lines[idx]),
        "log_tokens_per_line": np.log1p(T / np.maximum(lines[idx], 1.0)),
        "log_images": np.log1p(images[idx]),
        "image_density": images[idx] / safe,
        "log_elements": np.log1p(elements[idx]),
        "text_density": np.log1p(T / (elements[idx] + 1.0)),
        "item_share": items[idx] / np.maximum(lines[idx], 1.0),
        "log_controls": np.log1p(controls[idx]),
        "digit_share": digit[idx] / safe,
        "capital_share": capital[idx] / safe,
        "stop_share": stop[idx] / safe,
        "comma_rate": comma[idx] / safe,
        "stop_punct_rate": period[idx] / safe,
        "separator_rate": sep[idx] / safe,
        "copyright": (copy[idx] > 0).astype(np.float64),
        "title_overlap": np.minimum(title[idx] / max(len(title_words), 1), 1.0),
        "bg_self": bg_self[idx].astype(np.float64),
        "bg_inherited": bg_anc[idx].astype(np.float64),
        "name_template": own_t[idx].astype(np.float64),
        "name_content": own_c[idx].astype(np.float64),
        "anc_template": anc_t[idx].astype(np.float64),
        "anc_content": anc_c[idx].astype(np.float64),
        "log_children": np.log1p(n_children),
        "is_leaf": (n_children == 0).astype(np.float64),
        "log_siblings": np.log1p(sib_count),
        "same_tag_siblings": same_tag,
        "sibling_position": position,
        "has_heading": (headings[idx] > 0).astype(np.float64),
    }
    scored_tags = [tags[i] for i in idx]
    for name, kinds in _TAG_GROUPS:
        cols[name] = np.fromiter((t in kinds for t in scored_tags), dtype=np.float64, count=m)
    for k, (name, _) in enumerate(_CONTEXT):
        cols[name] = ctx[k, idx].astype(np.float64)
    if rendering is not None:
        cols.update(_render_columns([w.nodes[i] for i in idx], rendering))
    X = np.column_stack([cols[name] for name in names])
    return NodeTable([w.nodes[i] for i in idx], sp, tok[idx], start[idx], end[idx], w.tokens,
                     X, names)


def _render_columns(nodes: list[DomNode], rendering: Rendering) -> dict[str, np.ndarray]:
    import numpy as np
    m = len(nodes)
    out = {name: np.zeros(m) for name in RENDER_FEATURES}
    width = max(rendering.width, 1.0)
    height = max(rendering.height, 1.0)
    screen = float(rendering.viewport[1])
    body_bg = _bg_of(rendering.boxes.get(nodes[0].nid)) if nodes else None
    for j, node in enumerate(nodes):
        box: Box | None = rendering.boxes.get(node.nid)
        if box is None or not box.valid:
            out["box_missing"][j] = 1.0
            continue
        out["box_x"][j] = box.x / width
        out["box_y"][j] = box.y / height
        out["box_w"][j] = box.w / width
        out["box_h"][j] = box.h / height
        out["box_log_aspect"][j] = math.log((box.w + 1.0) / (box.h + 1.0))
        out["box_area"][j] = box.area / (width * height)
        out["box_first_screen"][j] = float(box.y < screen)
        out["box_font"][j] = box.font_size / 16.0
        out["box_bold"][j] = float(box.font_weight >= 600)
        out["box_bg"][j] = float(box.background is not None and box.background != body_bg)
    return out


def _bg_of(box: Box | None) -> str | None:
    return box.background if box is not None else None


def _empty(names: tuple[str, ...]) -> NodeTable:
    import numpy as np
    z = np.zeros(0, dtype=np.int64)
    return NodeTable([], z, z, z, z, [], np.zeros((0, len(names))), names)
