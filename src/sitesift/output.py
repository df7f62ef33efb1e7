"""What a cleaned page's result carries beyond its labelled blocks, and the one step that
adds it (`finish`): the page's metadata, its title above the content (`title="keep"`), the
content with its structure as markdown, HTML or text (`sitesift.verdicts.add_structure`),
and the language of its text (`sitesift.language`).

One `Output` travels from the command line or the API through the batch and the crawl to
every page, so each cleaned page is finished the same way wherever it was cleaned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitesift.errors import SettingsError
from sitesift.language import detect_language
from sitesift.result import CONTENT, Block, Result

if TYPE_CHECKING:
    from sitesift.jobs.outcome import Outcome
    from sitesift.page import Page

RENDERINGS = ("markdown", "html", "text")
"""The structure renderer's syntaxes (`native/src/output/structure/`)."""
TITLE_MODES = ("model", "keep")
"""`model`: the headline is in the content where the method kept it; `keep`: the page's
title leads the content whether or not the method kept the headline."""

# Where a kept headline counts as the title: among the first content blocks.
_HEAD_BLOCKS = 3
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
# The share of the shorter one's words a heading and the title must have in common.
_SHARED_WORDS = 0.6


@dataclass(frozen=True, slots=True)
class Output:
    """What each result carries besides its content blocks."""

    renderings: tuple[str, ...] = ()  # structured renderings to make (RENDERINGS)
    links: bool = False   # links kept as links in markdown and HTML
    images: bool = False  # images kept (markdown, HTML; text: their alt text)
    title: str = "model"  # TITLE_MODES
    metadata: bool = False  # the page's metadata in Result.meta["metadata"]
    noise: bool = True    # the noise blocks too, with every block's node address
    # the page's type where the method did not give it (`sitesift.page_type`: one more
    # read of the page by the core for a method other than the default)
    page_type: bool = True

    def __post_init__(self) -> None:
        unknown = [r for r in self.renderings if r not in RENDERINGS]
        if unknown:
            raise SettingsError(f"unknown rendering {unknown[0]!r}: use one of "
                                f"{', '.join(RENDERINGS)}")
        if self.title not in TITLE_MODES:
            raise SettingsError(f"title={self.title!r}: use one of {', '.join(TITLE_MODES)}")

    @property
    def made(self) -> tuple[str, ...]:
        """The renderings `finish` makes: those asked for, and the text in every case."""
        return self.renderings if "text" in self.renderings else ("text", *self.renderings)

    @property
    def needs_title(self) -> bool:
        return self.title == "keep"


BLOCKS = Output()
"""The labelled blocks, noise included, and the text: no other rendering, no metadata."""

SCORED = Output(noise=False, page_type=False)
"""What `evaluate` and `bench` score: the text alone, as `clean --format text` writes it
with its default flags (`finish` renders the text whatever the output); no page type for a
method that does not give it, so a method's timing is its own."""


def finish(result: Result, page: Page, output: Output) -> Result:
    """Add to `result` what `output` asks for, and its text as `clean` writes it: the one
    finishing step of every path (`clean`, the crawl, `evaluate`, `bench`, `report`,
    `sitesift.clean`), so a figure is the score of the text a user receives. The method's
    node verdicts, which only the renderer reads, are dropped (a result travels on
    without them)."""
    meta = None
    if output.metadata:
        from sitesift.metadata import extract_metadata

        meta = extract_metadata(page.html, page.url).to_dict()
        result.meta["metadata"] = meta
    from sitesift.verdicts import add_structure

    # the text is always rendered, asked for or not: `result.text` is then the text that
    # `clean` writes, whatever reads it (evaluate, bench, report, the crawl's record)
    add_structure(result, page, output)
    if output.page_type and result.page_type is None:
        from sitesift.page_type import classify_page

        result.page_type, result.page_type_score = classify_page(page)
    if output.needs_title:
        from sitesift.metadata import extract_title

        title = meta["title"] if meta is not None else extract_title(page.html, page.url)
        keep_title(result, title or page.title)
    # the language of the text as written (the title kept above it included), from the
    # first characters of it: the core's whatlang (`sitesift.language`)
    result.language, result.language_score = detect_language(result.text)
    result.verdicts = None
    return result


def render_result(result: Result, fmt: str, metadata: bool = False) -> str:
    """The result in `fmt` (`clean --format`); `metadata`: with the page's metadata
    (`--metadata`): YAML front matter before the markdown, a header block before the text,
    `<meta>` tags in the HTML's head (JSON: `meta.metadata`, always there when it was
    read)."""
    if fmt == "json":
        import json

        return json.dumps(result.to_dict(), ensure_ascii=False, indent=1)
    if fmt == "markdown":
        return str(result.markdown(front_matter=metadata))
    if fmt == "html":
        return str(result.html(metadata=metadata))
    return str(result.header() + result.text if metadata else result.text)


def file_record(outcome: Outcome, site: str, *, fmt: str, metadata: bool = False
                ) -> dict[str, Any]:
    """A cleaned page as `clean -o DIR` writes it, made where the page was cleaned
    (`SitePolicy.pack`): the body of its file (`render_result`) and its warnings. A body
    crosses from a worker in a fraction of the time its Result and blocks take."""
    result = outcome.result
    if result is None:
        raise ValueError(f"{outcome.id}: no result to write")  # (a job packs results only)
    return {"body": render_result(result, fmt, metadata), "warnings": result.warnings,
            "language": result.language}


def keep_title(result: Result, title: str | None) -> Result:
    """Put `title` at the top of the content (a level-1 heading in every rendering)
    unless one of the first content blocks already is it: the headline the method kept."""
    title = _SPACE.sub(" ", title or "").strip()
    if not title or _leads_with(result, title):
        return result
    result.blocks.insert(0, Block(title, "h1", CONTENT, 1.0, "title=keep", 0, ""))
    if result.structured:
        from sitesift.native import core

        for fmt, body in result.structured.items():
            head = core().title_heading(title, fmt)
            gap = "\n" if fmt == "html" else "\n\n"
            result.structured[fmt] = head + gap + body if body else head
    return result


def _leads_with(result: Result, title: str) -> bool:
    """One of the first content blocks is the title: the same text, or a heading sharing
    most of its words (a headline with a kicker, or the title with the site's name)."""
    folded = title.casefold()
    words = set(_WORD.findall(folded))
    for block in result.content[:_HEAD_BLOCKS]:
        text = block.text.casefold()
        if text == folded:
            return True
        if len(block.tag) == 2 and block.tag[0] == "h" and block.tag[1].isdigit():
            heading = set(_WORD.findall(text))
            fewer = min(len(words), len(heading))
            if fewer and len(words & heading) >= _SHARED_WORDS * fewer:
                return True
    return False


__all__ = ["BLOCKS", "RENDERINGS", "SCORED", "TITLE_MODES", "Output", "file_record", "finish",
           "keep_title", "render_result"]
