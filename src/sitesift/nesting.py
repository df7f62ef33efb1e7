"""The shape of the tree an HTML5 parser would build, measured before parsing.

Lexbor's time grows with the square of some shapes, so a page is refused (`too_deep`) when

- its elements would nest more than `MAX_NESTING` deep: block elements scan the stack of
  open elements for a `<p>` to close (20 s at 100,000 levels, and the methods' tree walks
  after it);
- more than `MAX_FORMATTING` formatting elements (`<b>`, `<font>`, ...) would be active at
  once: each new one is compared with all of them (the "Noah's Ark" clause), so 50,000
  `<b id=N>` took 33 s;
- the parser would rebuild more than `MAX_REBUILT` formatting elements: an open `<b>` that a
  closing block cuts off is cloned again before the next text ("reconstruct the active
  formatting elements"), once for every block after it, so distinct unclosed `<b id=N><p>x`
  grow the tree with the square of their number.

The scan reads the page as the HTML5 tokenizer and tree builder do in the ways that decide
these figures, in one linear pass of a regular expression and counters: the text of
scripts, styles, textareas, titles, iframes and the like and of comments holds no elements;
`<div/>` opens a div (only void and SVG/MathML elements close themselves); `<p>` and the
block elements close an open `<p>` and what is open inside it; `<a>` and `<nobr>` close the
one open; identical formatting elements are active three at a time at most; table cells,
captions, objects and templates start a new list of them. Elements with implied end tags
(`<li>`, `<tr>`, `<option>`, ...) are not counted: old pages leave them open by the
thousand and the parser closes them itself. A table cell is counted, and the next cell or
row of its table closes it with all that is open inside it (an old page's unclosed
`<font>` in every cell nests nothing).

The native core runs the same scan in Rust (`native/src/read/nesting.rs`: about 0.4 ms for a
page of more than 5,000 tags, where this module's takes about 12; docs/lab/native.md). This
module's scan is the fallback where the core is not built, and tests/test_nesting.py holds
the two to the same answers.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable

from sitesift.native import NativeMissing, core

MAX_NESTING = 5000
MAX_FORMATTING = 1000
MAX_REBUILT = 250_000

# The start of a comment or a tag; a tag ends at the next ">" (found with str.find, not by
# the pattern: a pattern scanning on for its ">" from every "<p" of `<p "<p "<p ...` with no
# ">" after them takes quadratic time: 28 s for 80 kB).
_TOKEN = re.compile(r"<(?:(!--)|(/?)([a-zA-Z][^\s/>]*))")
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes".split())
_VOID = frozenset("area base basefont bgsound br col embed frame hr img image input keygen link "
                  "meta param source track wbr".split())
# Closed by the parser, not counted (see the module docstring); `html`, `head` and `body`
# are there once, whatever the page says.
_UNCOUNTED = frozenset("li tr dt dd option optgroup tbody thead tfoot colgroup caption "
                       "rb rp rt rtc html head body".split())
_FORMATTING = frozenset("b big code em font i s small strike strong tt u".split())
_ONE_OPEN = frozenset(("a", "nobr"))  # a new one closes the one open (adoption agency)
_CLOSES_P = frozenset("address article aside blockquote center details dialog dir div dl "
                      "fieldset figcaption figure footer header hgroup main menu nav ol p "
                      "search section summary ul h1 h2 h3 h4 h5 h6 pre listing form table hr "
                      "li dd dt".split())
_MARKERS = frozenset("td th caption applet object marquee template".split())
_CELLS = frozenset(("td", "th"))
_ENDS_CELLS = frozenset("tr tbody thead tfoot table".split())
_FOREIGN = frozenset(("svg", "math"))
_REBUILT = "#rebuilt"  # the frame of the elements one reconstruction cloned
_ARK = 3  # identical active formatting elements kept (the Noah's Ark clause)
_FORMATTING_START = re.compile(rf"<(?:{'|'.join(sorted(_FORMATTING | (_ONE_OPEN - {'a'})))})[\s/>]",
                               re.I)


def _may_pass_limits(html: str) -> bool:
    """Whether the scan is needed at all: a page of n tags, f of them formatting start
    tags, nests at most n deep, has at most f + 1 formatting elements active (one `<a>`)
    and rebuilds at most that many before each of its n + 1 runs of text. Counting both
    is a C-speed pass (0.14 ms a page on the shared corpora, against 0.8 ms for the scan)
    and leaves 97% of their pages unscanned."""
    tags = html.count("<")
    if tags > MAX_NESTING:
        return True
    formatting = len(_FORMATTING_START.findall(html)) + 1
    return formatting > MAX_FORMATTING or formatting * (tags + 1) > MAX_REBUILT


def too_deep(html: str) -> str | None:
    """Why the parser should not be given `html` (see the module docstring), or None."""
    native = _native_too_deep()
    if native is not None:
        try:
            return native(html)
        except UnicodeEncodeError:  # lone surrogates, which no Rust string holds
            pass
    return too_deep_python(html)


@functools.cache
def _native_too_deep() -> Callable[[str], str | None] | None:
    """The native core's scan, or None where the core is not built (asked once: a failed
    import costs more than the scan)."""
    try:
        scan: Callable[[str], str | None] = core().too_deep
    except NativeMissing:
        return None
    return scan


def too_deep_python(html: str) -> str | None:
    """`too_deep` in Python: the fallback, and what the tests hold the native scan to."""
    if not _may_pass_limits(html):
        return None
    shape = _Shape()
    shape.scan(html)
    if shape.deepest > MAX_NESTING:
        return f"elements nested {shape.deepest:,} deep (limit {MAX_NESTING:,})"
    if shape.most_active > MAX_FORMATTING:
        return (f"{shape.most_active:,} formatting elements (<b>, <font>, ...) left open at "
                f"once (limit {MAX_FORMATTING:,}): the HTML parser's work grows with their "
                "square")
    if shape.rebuilt > MAX_REBUILT:
        return (f"unclosed formatting elements that the HTML parser would rebuild "
                f"{shape.rebuilt:,} times (limit {MAX_REBUILT:,})")
    return None


class _Active:
    """One list of active formatting elements (up to its marker): entries by number, in
    order, with the identical ones and those of each tag findable at once."""

    __slots__ = ("by_key", "by_tag", "detached", "entries", "kind", "saved")

    def __init__(self, kind: str, saved: int = 0) -> None:
        self.kind = kind  # the marker's element ("" for the document's own list)
        self.saved = saved  # the list below's count of elements cut off, back at the end
        self.entries: dict[int, tuple[str, str]] = {}
        self.by_key: dict[tuple[str, str], deque[int]] = {}
        self.by_tag: dict[str, list[int]] = {}

    def add(self, n: int, tag: str, attrs: str) -> None:
        key = (tag, attrs)
        same = self.by_key.setdefault(key, deque())
        while same and same[0] not in self.entries:
            same.popleft()
        if len(same) >= _ARK:  # the earliest identical one leaves the list
            del self.entries[same.popleft()]
        same.append(n)
        self.entries[n] = key
        self.by_tag.setdefault(tag, []).append(n)

    def remove_last(self, tag: str) -> bool:
        """Take the last active element of `tag` out of the list; whether there was one."""
        held = self.by_tag.get(tag)
        while held:
            n = held.pop()
            if n in self.entries:
                del self.entries[n]
                return True
        return False


class _Shape:
    """The counters of one scan (see `too_deep`)."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, int, int]] = []  # (tag, levels, formatting elements)
        self.open: dict[str, int] = {}
        self.depth = self.deepest = self.rebuilt = self.most_active = 0
        self.detached = 0  # active formatting elements cut off, to rebuild before next text
        self.lists = [_Active("")]
        self.foreign = 0
        self.serial = 0  # numbers the active formatting elements
        self.tables: list[int] = []  # where in `frames` each open table is
        self.cells: list[int] = []  # where in `frames` each open cell is

    def scan(self, html: str) -> None:
        after = 0  # where the last token ended
        for match in _TOKEN.finditer(html):
            start = match.start()
            if start < after:  # inside the token before
                continue
            if self.detached and start > after and not html[after:start].isspace():
                self.rebuild()  # text: what was cut off is cloned around it
            if match.group(1):  # a comment: nothing in it until "-->", or to the end
                end = html.find("-->", match.end())
                if end < 0:
                    return
                after = end + 3
                continue
            end = html.find(">", match.end())
            if end < 0:  # no tag ends after here: the rest is text
                break
            after = end + 1
            tag = match.group(3).lower()
            if match.group(2):
                self.end_tag(tag)
                continue
            attrs = html[match.end():end]
            closed = attrs.endswith("/") and not _open_quote(attrs)
            if tag in _RAW_TEXT and not self.foreign:  # text up to its end tag
                close = re.compile(rf"</{tag}[\s/>]", re.I).search(html, after)
                if close is None:
                    return
                after = close.end()
                continue
            if tag == "plaintext" and not self.foreign:
                return
            self.start_tag(tag, attrs.strip().lower(), closed)
        if self.detached and not html[after:].isspace() and after < len(html):
            self.rebuild()  # the text at the end

    def start_tag(self, tag: str, attrs: str, closed: bool) -> None:
        if self.foreign:  # SVG and MathML: `/>` closes, nothing is reformatted
            if not closed:
                self.push(tag)
                self.foreign += tag in _FOREIGN
            return
        if tag in _CLOSES_P and self.open.get("p"):
            self.pop_until("p")
        if tag in _CELLS or tag in _ENDS_CELLS:
            self.close_cell()
        if tag in _MARKERS:
            self.marker(tag)
        if tag in _CELLS:
            self.cells.append(len(self.frames))
            self.push(tag)
            return
        if tag == "table":
            self.tables.append(len(self.frames))
        if tag in _UNCOUNTED:
            return
        if tag not in _CLOSES_P:
            self.rebuild()
        if tag in _VOID:
            return
        if tag in _ONE_OPEN and self.lists[-1].remove_last(tag):
            if self.open.get(tag):
                self.pop_until(tag)
            self.detached = max(self.detached - 1, 0)  # gone, not cut off
        if tag in _FORMATTING or tag in _ONE_OPEN:
            active = self.lists[-1]
            self.serial += 1
            active.add(self.serial, tag, attrs)
            self.most_active = max(self.most_active, len(active.entries))
            self.push(tag, formatting=1)
            return
        self.push(tag)
        if tag in _FOREIGN and not closed:
            self.foreign = 1
        elif tag in _FOREIGN:
            self.pop_until(tag)

    def end_tag(self, tag: str) -> None:
        if self.foreign:
            if self.open.get(tag):
                self.pop_until(tag)
                self.foreign = sum(self.open.get(t, 0) for t in _FOREIGN)
            return
        if tag in _FORMATTING or tag in _ONE_OPEN:
            listed = self.lists[-1].remove_last(tag)
            if self.open.get(tag):
                self.pop_until(tag)
                if listed:  # it left the list: not cut off, gone
                    self.detached = max(self.detached - 1, 0)
            elif listed:
                self.detached = max(self.detached - 1, 0)
            return
        if tag in _CELLS or tag in _ENDS_CELLS:
            self.close_cell()
            self.end_cells()
        elif tag in _MARKERS and self.lists[-1].kind == tag:
            self.end_list()
        if self.open.get(tag):
            self.pop_until(tag)

    def close_cell(self) -> None:
        """Close the open cell of the innermost table, and all that is open inside it."""
        if self.cells and (not self.tables or self.cells[-1] > self.tables[-1]):
            self.pop_to(self.cells[-1])

    def marker(self, tag: str) -> None:
        if tag in _CELLS:
            self.end_cells()
        self.lists.append(_Active(tag, self.detached))
        self.detached = 0

    def end_cells(self) -> None:
        while self.lists[-1].kind in _CELLS:
            self.end_list()

    def end_list(self) -> None:
        if len(self.lists) > 1:
            self.detached = self.lists.pop().saved

    def push(self, tag: str, levels: int = 1, formatting: int = 0) -> None:
        self.frames.append((tag, levels, formatting))
        self.open[tag] = self.open.get(tag, 0) + 1
        self.depth += levels
        self.deepest = max(self.deepest, self.depth)

    def pop_until(self, tag: str) -> None:
        """Close the open elements down to the last `tag`; the formatting elements among
        them are cut off (still active, to be rebuilt)."""
        while self.frames:
            name, levels, formatting = self.frames.pop()
            self._popped(name, levels, formatting)
            if name == tag:
                break
        self._after_pops()

    def pop_to(self, size: int) -> None:
        """Close the open elements down to `size` of them (as `pop_until`)."""
        while len(self.frames) > size:
            self._popped(*self.frames.pop())
        self._after_pops()

    def _popped(self, name: str, levels: int, formatting: int) -> None:
        self.open[name] -= 1
        self.depth -= levels
        self.detached += formatting

    def _after_pops(self) -> None:
        self.detached = min(self.detached, len(self.lists[-1].entries))
        for held in (self.cells, self.tables):
            while held and held[-1] >= len(self.frames):
                held.pop()

    def rebuild(self) -> None:
        """Clone the cut-off active formatting elements where the next content goes."""
        if self.detached:
            self.rebuilt += self.detached
            self.push(_REBUILT, self.detached, self.detached)
            self.detached = 0


def _open_quote(attrs: str) -> bool:
    """Does the tag's text end inside a quoted attribute value?"""
    return attrs.count('"') % 2 == 1 or attrs.count("'") % 2 == 1
