"""What cleaning returns: labelled blocks, and their renderings as text, markdown, HTML, JSON."""

from __future__ import annotations

import html as htmllib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

CONTENT = "content"
NOISE = "noise"
# The metadata `Result.html(metadata=True)` puts in <meta> tags, and the attribute naming each.
_HTML_META = {"author": "name", "date": "name", "description": "name", "sitename": "property"}


@dataclass(slots=True)
class Block:
    """A run of text between block-level boundaries, with the verdict on it."""

    text: str
    tag: str            # the nearest block-level element (p, li, h2, td, ...)
    label: str          # CONTENT or NOISE
    score: float        # the method's content score in [0, 1] for the deciding node
    reason: str         # which node and rule decided
    nid: int            # document-order id of the deciding DomNode
    path: str = ""      # readable address of the block's element


@dataclass(slots=True, repr=False)
class Result:
    """A cleaned page."""

    blocks: list[Block]
    method: str
    id: str | None = None
    url: str | None = None
    site: str | None = None
    title: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # The content with its structure by the structure renderer (the native core's
    # `output/structure/`: lists, tables, code, emphasis), per syntax asked for ("markdown",
    # "html", "text"; `sitesift.output.Output.renderings`). A syntax not here is built
    # from the blocks: `markdown()` knows headings, list items and quotes only.
    structured: dict[str, str] = field(default_factory=dict)
    # The method's verdicts on the page's nodes, for the structure renderer in the process
    # that cleaned the page (`sitesift.output.finish` drops them before a result travels
    # on): a {node id: Verdict} dict, or the native core's (`sitesift.native.Verdicts`).
    # The renderings follow them, not the blocks: a method that relabels its blocks after
    # deciding on nodes turns the relabelling into verdicts (the Site Style Tree's locally
    # noisy blocks, `verdicts.block_runs`), or leaves None here and its text is its blocks'.
    verdicts: Any = field(default=None, repr=False, compare=False)
    # How many blocks the page was read as, where `blocks` holds the content alone (a method
    # asked for no noise blocks, `clean(noise=False)`, may leave them out); None: `blocks`
    # holds every block. A record's block count reads `n_blocks`.
    blocks_read: int | None = field(default=None, repr=False, compare=False)
    # The language of the main text, detected from it (`sitesift.language`, set by
    # `sitesift.output.finish`): an ISO 639-1 code and the detector's score in [0, 1]; None
    # for a page with no text (and before finishing). The page's declared language is in
    # its metadata (`meta["metadata"]["language"]`).
    language: str | None = None
    language_score: float | None = None
    # The page's type, one of WCXB's seven (article, collection, documentation, forum,
    # listing, product, service), and its probability (`sitesift.page_type`); set by the
    # default cleaner from its reading of the page, by `output.finish` for other methods.
    page_type: str | None = None
    page_type_score: float | None = None
    # The predicted token F1 of this page's extraction, in [0, 1], to 4 places
    # (`sitesift.confidence`: from what the default cleaner knew of its own cleaning of the
    # page); None for methods that cannot give one (every method but the default cleaner,
    # which alone has block probabilities to read).
    confidence: float | None = None

    # The page's comments kept apart from its text (`comments=separate`, the default
    # cleaner's; `sitesift.verdicts.add_structure`), in the renderings the text was made
    # in ("text" always, "markdown" and "html" where asked): None unless kept apart, ""
    # for a page without comments. `comments` and `comments_markdown` read them.
    comments_structured: dict[str, str] | None = None

    @property
    def comments(self) -> str | None:
        """The page's comments as text (`comments=separate`): laid out as the text is,
        without the main text; None unless the comments were kept apart."""
        held = self.comments_structured
        return None if held is None else held.get("text", "")

    @property
    def comments_markdown(self) -> str | None:
        """The page's comments as markdown, where kept apart and the markdown made (the
        crawl's `--markdown`, `sitesift.clean`); else None."""
        held = self.comments_structured
        return None if held is None else held.get("markdown")

    @property
    def n_blocks(self) -> int:
        """How many blocks the page was read as, noise included."""
        return len(self.blocks) if self.blocks_read is None else self.blocks_read

    @property
    def content(self) -> list[Block]:
        return [b for b in self.blocks if b.label == CONTENT]

    @property
    def text(self) -> str:
        """Main content: with its structure where rendered (paragraphs apart by a blank
        line, line breaks and code lines kept), else one block per line."""
        held = self.structured.get("text")
        if held is not None:
            return held
        return "\n".join(b.text for b in self.content)

    @property
    def warnings(self) -> list[str]:
        """What is doubtful about this result (`meta["warnings"]`, set by `sitesift.weak`):
        e.g. a page whose text scripts would fill in. Empty when nothing is."""
        held = self.meta.get("warnings")
        return list(held) if isinstance(held, list) else []

    @property
    def no_main_content(self) -> str | None:
        """Why the result keeps no content (`meta["no_main_content"]`, set by
        `sitesift.weak.check_page`: the page shows no text, scripts fill it in, or nothing
        on it reads as main content); None when it keeps some."""
        held = self.meta.get("no_main_content")
        return held if isinstance(held, str) else None

    def markdown(self, front_matter: bool = False) -> str:
        """The main content as markdown; `front_matter`: led by the page's metadata as YAML
        between `---` lines (`front_matter()`)."""
        if front_matter:
            return self.front_matter() + self.markdown()
        held = self.structured.get("markdown")
        if held is not None:
            return held
        lines: list[str] = []
        for b in self.content:
            text = _markdown_text(b.text)
            if len(b.tag) == 2 and b.tag[0] == "h" and b.tag[1].isdigit():
                lines.append("#" * int(b.tag[1]) + " " + text)
            elif b.tag == "li":
                lines.append("- " + text)
            elif b.tag == "blockquote":
                lines.append("> " + text)
            else:
                lines.append(text)
        return "\n\n".join(lines)

    def front_matter(self) -> str:
        """YAML front matter of the metadata (`metadata_fields()`): `---`, one
        `key: "value"` line per known field, `---`, a blank line."""
        lines = ["---"]
        lines += [f"{key}: {_yaml_string(value)}" for key, value in self.metadata_fields().items()]
        return "\n".join([*lines, "---", "", ""])

    def header(self) -> str:
        """The metadata as a header block for plain text (`--metadata --format text`): one
        `key: value` line per known field (`metadata_fields()`, whitespace in a value folded
        to one space), then a blank line; the text follows it."""
        lines = [f"{key}: {' '.join(value.split())}"
                 for key, value in self.metadata_fields().items()]
        return "\n".join([*lines, "", ""]) if lines else ""

    def metadata_fields(self) -> dict[str, str]:
        """The page's metadata (`meta["metadata"]`, else the title and URL known) as the
        renderings show it: title, author, date, sitename, url, language, description, the
        fields that are known."""
        held = self.meta.get("metadata")
        data = held if isinstance(held, dict) else {}
        fields = {
            "title": data.get("title") or self.title,
            "author": data.get("author"),
            "date": data.get("date"),
            "sitename": data.get("sitename"),
            "url": data.get("canonical_url") or self.url,
            "language": data.get("language"),
            "description": data.get("description"),
        }
        return {key: value for key, value in fields.items() if isinstance(value, str) and value}

    def html(self, metadata: bool = False) -> str:
        """The main content as a small, clean HTML document: the structure renderer's
        fragment where made, else headings, paragraphs and list items from the blocks.
        `metadata`: the page's metadata in the head (`<html lang>`, `<meta>` tags for the
        author, date, site name and description, `<link rel=canonical>`)."""
        known = self.metadata_fields() if metadata else {}
        lang = f' lang="{htmllib.escape(known["language"])}"' if "language" in known else ""
        out = ["<!DOCTYPE html>", f'<html{lang}><head><meta charset="utf-8">']
        if self.title:
            out.append(f"<title>{htmllib.escape(self.title)}</title>")
        for key, attr in _HTML_META.items():
            if key in known:
                out.append(f'<meta {attr}="{key if attr == "name" else "og:site_name"}" '
                           f'content="{htmllib.escape(known[key])}">')
        if "url" in known and _is_web_address(known["url"]):
            out.append(f'<link rel="canonical" href="{htmllib.escape(known["url"])}">')
        out.append("</head><body>")
        held = self.structured.get("html")
        if held is not None:
            out += [held, "</body></html>"] if held else ["</body></html>"]
            return "\n".join(out)
        in_list = False
        for b in self.content:
            tag = b.tag if b.tag in {"h1", "h2", "h3", "h4", "h5", "h6", "li", "pre",
                                     "blockquote"} else "p"
            if (tag == "li") != in_list:
                out.append("<ul>" if tag == "li" else "</ul>")
                in_list = tag == "li"
            out.append(f"<{tag}>{htmllib.escape(b.text)}</{tag}>")
        if in_list:
            out.append("</ul>")
        out.append("</body></html>")
        return "\n".join(out)

    def __repr__(self) -> str:
        """Short, for a REPL: the method, the page's id or URL, how many blocks and how
        many of them content, and the first words of the text (`.blocks` holds them all)."""
        words = self.text.split()
        start = " ".join(words[:12]) + (" ..." if len(words) > 12 else "")
        where = f" id={self.id!r}" if self.id else ""
        where += f" url={self.url!r}" if self.url else ""
        return (f"<Result method={self.method!r}{where} blocks={len(self.blocks)} "
                f"content={len(self.content)} words={len(words)} text={start!r}>")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "url": self.url, "site": self.site, "method": self.method,
            "title": self.title, "text": self.text, "comments": self.comments,
            "language": self.language,
            "language_score": self.language_score, "page_type": self.page_type,
            "page_type_score": self.page_type_score, "confidence": self.confidence,
            "meta": self.meta,
            "blocks": [asdict(b) for b in self.blocks],
        }


def _is_web_address(url: str) -> bool:
    """Whether `url` is an absolute http(s) address as a browser reads it: the only kind
    the head of the clean HTML links, by the native renderer's own check
    (`native/src/output/structure/address.rs::base_url`, which a page's base passes)."""
    from sitesift.native import core

    return core().web_address(url) is not None


def _yaml_string(value: str) -> str:
    """A YAML double-quoted scalar: backslash, quote and control characters escaped, so
    any text (a `: `, `#`, a leading `-` or `---`) stays one string value."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029\ufeff":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


# What could start markdown markup inside a line: escapes, code, emphasis, links and
# images, raw HTML and autolinks, entities.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>&]")


def _markdown_text(text: str) -> str:
    """A block's text as markdown text: what could start markup backslash-escaped, so the
    page's text stays text (no raw HTML, link or entity a renderer would act on)."""
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), text)
