"""Pages whose main content is not displayed until a script runs (or a reader clicks).

The shared DOM leaves out what the markup hides (`hidden`, `aria-hidden`, `display:none`,
`visibility:hidden`, `<noscript>`), as a browser would before its scripts ran. On modern
pages much of the main content is hidden that way and shown moments later, and people (and
gold texts) count it as the page's content:

- *streamed segments*: React's streaming server rendering sends late parts of the page as
  `<div hidden id="S:n">` at the end of the body, and a script moves each into its
  placeholder `<template id="B:n">`. The segment is moved there and shown.
- *disclosure panels*: the other tabs of a tab set, collapsed accordion and FAQ answers
  (ARIA `role="tabpanel"`, `role="region"` labelled by its button, or the class names such
  widgets use), unless they sit in a menu or a dialog.
- *curtains*: one hidden element holding most of the page's text (a page hidden whole until
  its scripts or a lock-down app have run).
- *script-gated pages*: a page whose visible text is small while `<noscript>` and `hidden`
  parts hold much more (Discourse puts every post in `<noscript>`): all of them are shown.

Hidden menus, dialogs and tooltips stay hidden. The page is read again with the revealed
parts shown; the classifier then judges their blocks like any others.
"""

from __future__ import annotations

import re
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from sitesift.dom import HIDDEN_STYLE, is_hidden
from sitesift.extractor.blocks import PageBlocks, walk
from sitesift.page import Page
from sitesift.text import TOKEN

MAX_VISIBLE_TOKENS = 400  # script-gated pages: only pages with less visible text than this
MIN_HIDDEN_TOKENS = 100   # hidden text worth showing
MIN_GAIN = 2.0            # ... and at least this many times the visible text
CURTAIN_SHARE = 0.5       # a curtain holds at least this share of the page's text

# React's streamed segment and its placeholder share the suffix: S:1f goes to B:1f.
_SEGMENT = re.compile(r"S:([0-9a-zA-Z]+)")
# Class or id words of disclosure widgets, and of the hidden parts that must stay hidden
# even when they look like one (a collapsed navigation bar is Bootstrap's `navbar-collapse`).
_DISCLOSURE = re.compile(r"accordion|collaps|faq|answer|tab-?pane|tab-?panel|tabs?-?content",
                         re.I)
_NOT_CONTENT = re.compile(r"nav|menu|dropdown|drawer|modal|popup|popover|overlay|dialog|cart"
                          r"|login|sign-?in|search|cookie|consent|tooltip|toast|banner", re.I)
# Hidden parts that are the page's chrome, not a curtain over its content.
_CURTAIN_CHROME = re.compile(f"{_NOT_CONTENT.pattern}|footer|sidebar", re.I)
# Ancestors that make a panel part of the page's chrome (a wrapper's class words are not
# trusted here: `skip-nav` marks the main content on some sites, `form1` wraps whole pages).
_CHROME_TAGS = frozenset({"nav", "header", "footer", "aside", "dialog", "menu"})
_CHROME_ROLES = frozenset({"navigation", "dialog", "menu", "menubar", "banner", "contentinfo",
                           "complementary"})
# Markup that may hold a disclosure panel; a page without any of it is not parsed again.
_HINTS = ("tabpanel", "aria-labelledby", "accordion", "collaps", "faq", "answer", "tab-pane",
          "tab-panel", "tab-content", "tabs-content")
_HIDING = ("hidden", "display", "visibility")


def _tokens(text: str) -> int:
    return len(TOKEN.findall(text))


def _attr_words(attrs: dict[str, str | None]) -> str:
    return f"{attrs.get('class') or ''} {attrs.get('id') or ''}"


class _Ancestry:
    """Whether a node has a hidden ancestor, or a chrome one (menu, dialog, ...), memoised
    along each path so a page of many hidden parts costs linear time, not depth x parts."""

    def __init__(self, test: Any) -> None:
        self._test = test
        self._memo: dict[int, bool] = {}  # mem_id -> the node or an ancestor passes

    def above(self, node: Any) -> bool:
        chain, result, parent = [], False, node.parent
        while parent is not None and parent.tag not in ("body", "html"):
            known = self._memo.get(parent.mem_id)
            if known is not None:
                result = known
                break
            if self._test(parent):
                result = self._memo[parent.mem_id] = True
                break
            chain.append(parent.mem_id)
            parent = parent.parent
        for mem_id in chain:
            self._memo[mem_id] = result
        return result


def _hidden_node(node: Any) -> bool:
    return is_hidden(node.attributes or {})


def _chrome_node(node: Any) -> bool:
    return node.tag in _CHROME_TAGS or (node.attributes.get("role") or "").lower() in _CHROME_ROLES


def _is_disclosure(node: Any, chrome: _Ancestry) -> bool:
    attrs = node.attributes
    role = (attrs.get("role") or "").lower()
    words = _attr_words(attrs)
    if node.tag in _CHROME_TAGS or _NOT_CONTENT.search(words):
        return False
    if not (role == "tabpanel" or (role == "region" and attrs.get("aria-labelledby"))
            or _DISCLOSURE.search(words)):
        return False
    return not chrome.above(node)


def _show(node: Any) -> None:
    """Drop the element's own hiding (its hidden descendants stay hidden)."""
    attrs = node.attrs
    if "hidden" in attrs:
        del attrs["hidden"]
    if attrs.get("aria-hidden") == "true":
        del attrs["aria-hidden"]
    style = attrs.get("style")
    if style and HIDDEN_STYLE.search(style):
        attrs["style"] = HIDDEN_STYLE.sub("", style)


def _outermost_hidden(body: Any) -> list[Any]:
    hidden = _Ancestry(_hidden_node)
    return [node for node in body.css("[hidden], [aria-hidden], [style]")
            if _hidden_node(node) and not hidden.above(node)]


def _move_segments(tree: LexborHTMLParser) -> int:
    moved = 0
    for segment in tree.css("[hidden][id^='S:']"):
        match = _SEGMENT.fullmatch(segment.attributes.get("id") or "")
        if match is None:
            continue
        del segment.attrs["hidden"]
        slot = tree.css_first(f"template[id='B:{match.group(1)}']")
        if slot is not None:
            slot.insert_before(segment)  # inserts a copy
            slot.decompose()
            segment.decompose()
        moved += 1
    return moved


def _gate(body: Any, visible_tokens: int) -> int:
    """Shows every `hidden` element and unwraps every `<noscript>` of a page whose visible
    text is small and whose hidden parts hold much more; the number of parts shown."""
    if visible_tokens >= MAX_VISIBLE_TOKENS:
        return 0
    noscripts = list(body.css("noscript"))
    hidden = list(body.css("[hidden]"))
    hidden_tokens = sum(_tokens(n.text(separator=" ")) for n in noscripts + hidden)
    if hidden_tokens < MIN_HIDDEN_TOKENS or hidden_tokens < MIN_GAIN * max(visible_tokens, 1):
        return 0
    for node in hidden:
        del node.attrs["hidden"]
    for node in reversed(noscripts):  # innermost first
        node.unwrap()
    return len(hidden) + len(noscripts)


def _shown_tokens(node: Any) -> int:
    """The tokens a reader would see in the node once shown: not its scripts' (a hidden
    `<div>` often carries nothing but a JSON-LD script)."""
    n = _tokens(node.text(separator=" "))
    for code in node.css("script, style, template"):
        n -= _tokens(code.text(separator=" "))
    return n


def _curtain(body: Any) -> int:
    """Shows a hidden element that holds most of the page's text, leaving out of that
    count the hidden parts of its chrome (menus, a hidden footer), which a page hidden
    whole until its scripts run often hides too."""
    total = _shown_tokens(body)
    candidates = []
    for node in _outermost_hidden(body):
        n = _shown_tokens(node)
        if _CURTAIN_CHROME.search(_attr_words(node.attributes)):
            total -= n
        else:
            candidates.append((n, node))
    if not candidates:
        return 0
    n, node = max(candidates, key=lambda c: c[0])  # the biggest: at most one had half
    if n >= MIN_HIDDEN_TOKENS and n >= CURTAIN_SHARE * total:
        _show(node)
        return 1
    return 0


def reveal(page: Page, visible_tokens: int) -> Page | None:
    """The page read again with its script-gated content shown, or None when nothing that
    is hidden is content by the rules above."""
    html = page.html
    low = html.lower()
    segments = "id=\"s:" in low or "id='s:" in low or "id=s:" in low
    hints = any(h in low for h in _HINTS) and any(h in low for h in _HIDING)
    small = visible_tokens < MAX_VISIBLE_TOKENS
    if not (segments or hints or small):
        return None
    tree = LexborHTMLParser(html)
    body = tree.body
    if body is None:
        return None
    shown = _move_segments(tree) if segments else 0
    if hints:
        seen: set[str] = set()
        chrome = _Ancestry(_chrome_node)
        for node in _outermost_hidden(body):
            if _is_disclosure(node, chrome):
                text = " ".join(node.text(separator=" ").split())
                if text and text not in seen:  # a panel's copy (mobile, print) stays hidden
                    seen.add(text)
                    _show(node)
                    shown += 1
    if small:
        shown += _curtain(body)
        shown += _gate(body, visible_tokens)
    if not shown:
        return None
    try:
        out = Page.from_html(tree.html or "", url=page.url, site=page.site, id=page.id,
                             encoding=page.encoding)
    except Exception:  # the page as it was is still a valid reading
        return None
    out.meta.update(page.meta)
    out.meta["revealed"] = True
    return out


def _visible_tokens(pb: PageBlocks) -> int:
    """The page's tokens, counted only up to MAX_VISIBLE_TOKENS (all `reveal` asks is
    whether the page is under it, and how far under): most pages stop after a few blocks."""
    n = 0
    for text in pb.text:
        n += _tokens(text)
        if n >= MAX_VISIBLE_TOKENS:
            break
    return n


def prepared(page: Page) -> tuple[Page, PageBlocks]:
    """The page as the extractor reads it (revealed where `reveal` applies) and its
    blocks."""
    pb = walk(page.root, page.title, page.url)
    shown = reveal(page, _visible_tokens(pb))
    if shown is not None:
        return shown, walk(shown.root, shown.title, shown.url)
    return page, pb
