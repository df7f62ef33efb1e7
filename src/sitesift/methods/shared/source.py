"""Source-level helpers for the methods that read the HTML text instead of the DOM tree.

CETR works on source lines and the block-distribution method on a stream of tags; both
need the same compiled tag pattern, the same idea of invisible markup and, when their
decisions are mapped back onto the page's DOM text, one alignment of source text to DOM
text runs (`align_runs`).
"""

from __future__ import annotations

import html as htmllib
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from sitesift.dom import BLOCK_TAGS, DomNode

# A tag: `<name ...>`, `</name>`, `<!...>` or `<?...>`; a lone `<` in text is not a tag.
TAG = re.compile(r"<[a-zA-Z/!?][^>]*>")
# Comments and the contents of script and style never count as text (CETR's first step).
# An unclosed script or style runs to the end of the document, as in a browser.
INVISIBLE = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I)
_TAG_WITH_NEWLINE = re.compile(r"<[a-zA-Z/!?][^>\n]*\n[^>]*>")
# Where a minified line is re-broken: before a block-level opening tag and after its end
# tag (br and hr are separators inside running text, not blocks of their own).
_REBREAK_TAGS = "|".join(sorted(BLOCK_TAGS - {"br", "hr", "html", "body"}, key=len,
                                reverse=True))
_BLOCK_OPEN = re.compile(rf"(?=<(?:{_REBREAK_TAGS})\b)", re.I)
_BLOCK_CLOSE = re.compile(rf"(</(?:{_REBREAK_TAGS})\s*>)", re.I)


def normalise_text(text: str) -> str:
    """Whitespace folded exactly as the shared renderer (`verdicts.render_blocks`) does."""
    return " ".join(text.split())


def visible_chars(text: str) -> str:
    """Source text as it reads on the page, without any whitespace: the alignment key."""
    if "&" in text:
        text = htmllib.unescape(text)
    return "".join(text.split())


def strip_invisible(html: str) -> str:
    """Comments, scripts and styles removed; tags spread over lines joined onto one."""
    html = INVISIBLE.sub(" ", html)
    html = html.replace("\r\n", "\n").replace("\r", "\n")
    return _TAG_WITH_NEWLINE.sub(lambda m: m.group().replace("\n", " "), html)


def rebreak(line: str) -> list[str]:
    """Split one source line at block-level tags (how minified pages get lines back)."""
    return _BLOCK_CLOSE.sub("\\1\n", _BLOCK_OPEN.sub("\n", line)).split("\n")


@dataclass(slots=True)
class Line:
    """One non-empty source line and what CETR counts on it."""

    source: str
    text_chars: int  # non-tag characters (the line stripped of surrounding whitespace)
    tags: int        # tags that start on the line
    visible: str     # the text as shown, no whitespace: for mapping back to the DOM

    @property
    def ratio(self) -> float:
        """The tag ratio; a line without tags counts as one tag (CETR)."""
        return self.text_chars / max(self.tags, 1)


def source_lines(html: str, *, rebreak_over: int | None) -> list[Line]:
    """Non-empty lines after CETR's clean-up. Lines longer than `rebreak_over` characters
    are split at block-level tags (None: never; 0: every line)."""
    out: list[Line] = []
    for raw in strip_invisible(html).split("\n"):
        pieces = [raw] if rebreak_over is None or len(raw) <= rebreak_over else rebreak(raw)
        for piece in pieces:
            piece = piece.strip()
            if not piece:
                continue
            text, tags = TAG.subn("", piece)
            text = text.strip()
            out.append(Line(piece, len(text), tags, visible_chars(text) if text else ""))
    return out


def iter_runs(root: DomNode) -> Iterator[tuple[DomNode, str]]:
    """(nearest block-level element, text run) for every text run, in document order."""
    stack: list[tuple[DomNode | str, DomNode]] = [(root, root)]
    while stack:
        item, owner = stack.pop()
        if isinstance(item, str):
            yield owner, item
            continue
        if item.tag in BLOCK_TAGS:
            owner = item
        stack.extend((child, owner) for child in reversed(item.children))


# Text found by the DOM but not at the expected place in the source is searched for
# again this far ahead, then (only if long enough not to match by chance) anywhere after.
_WINDOW = 4000
_UNIQUE_CHARS = 24


def align_runs(root: DomNode, visible: list[str]) -> list[tuple[DomNode, int, int]]:
    """Place every DOM text run in the concatenated source text.

    `visible` holds each source unit's text without whitespace (CETR's lines); the answer
    lists (block element owning the run, unit index, characters of the run in that unit).
    Runs are matched in document order with a moving cursor, since the DOM's text is the
    source's text in the same order less what the parser hid (hidden elements, noscript):
    a run is looked for just after the previous one, then further on if long enough to be
    unambiguous; a run found nowhere is charged to the unit at the cursor (a neighbour).
    """
    joined = "".join(visible)
    starts: list[int] = []
    pos = 0
    for text in visible:
        starts.append(pos)
        pos += len(text)
    out: list[tuple[DomNode, int, int]] = []
    if not starts:
        return out
    cursor = 0
    for owner, run in iter_runs(root):
        key = "".join(run.split())
        if not key:
            continue
        at = joined.find(key, cursor, cursor + _WINDOW + len(key))
        if at < 0 and len(key) >= _UNIQUE_CHARS:
            at = joined.find(key, cursor)
        if at < 0:
            out.append((owner, max(bisect_right(starts, cursor) - 1, 0), len(key)))
            continue
        end = at + len(key)
        # A run may span several units (a paragraph broken over source lines).
        unit = bisect_right(starts, at) - 1
        while unit < len(starts) and starts[unit] < end:
            share = min(end, starts[unit] + len(visible[unit])) - max(at, starts[unit])
            if share > 0:
                out.append((owner, unit, share))
            unit += 1
        cursor = end
    return out
