"""What readers yield and what sinks write.

A reader turns each input record into exactly one item: a `PageRecord` (an HTML page to
clean), a `Skipped` record (not a page: a request, an image, a redirect; counted by reason)
or a `Failed` one (meant to be a page but unreadable: truncated, too large, a bomb). Cleaning
turns each page into one result or one error record, so that

    records in = results + error records + skipped
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitesift.result import Result

if TYPE_CHECKING:
    from sitesift.jobs.outcome import Outcome
    from sitesift.output import Output

RESULT_FIELDS = ("url", "site", "method", "input", "position", "offset", "title", "text",
                 "markdown", "html", "blocks", "content_blocks", "warnings", "no_main_content")
"""A result record's fields, always all of them (a fixed schema for Parquet): `markdown` and
`html` are null unless asked for; `warnings` is a list of strings, empty unless the page was
doubtful (`Result.warnings`: a page whose text scripts would fill in); `no_main_content` is
null unless the result keeps no content, and then says why (`sitesift.weak.empty_reason`)."""
ERROR_FIELDS = ("url", "site", "input", "position", "offset", "stage", "reason")


@dataclass(frozen=True, slots=True)
class PageRecord:
    """One HTML response (or, from `read_warc` given another filter, one it kept): where it
    came from and its (content-decoded) body."""

    input_index: int  # which input of the job
    position: int  # record number within that input (0-based)
    input: str  # the input's path (for a folder: the page file)
    url: str | None
    content_type: str | None
    body: bytes
    offset: int | None = None  # byte offset of the WARC record, where there is one
    site: str = ""

    @property
    def order(self) -> tuple[int, int]:
        return (self.input_index, self.position)


@dataclass(frozen=True, slots=True)
class Skipped:
    input_index: int
    position: int
    input: str
    reason: str


@dataclass(frozen=True, slots=True)
class Failed:
    input_index: int
    position: int
    input: str
    url: str | None
    offset: int | None
    reason: str


Item = PageRecord | Skipped | Failed


def error_record(where: PageRecord | Failed, site: str, stage: str, reason: str) -> dict[str, Any]:
    return {"url": where.url, "site": site, "input": where.input, "position": where.position,
            "offset": where.offset, "stage": stage, "reason": reason}


def result_record(page: PageRecord, result: Result, *, markdown: bool = False,
                  html: bool = False) -> dict[str, Any]:
    return {
        "url": page.url, "site": page.site, "method": result.method, "input": page.input,
        "position": page.position, "offset": page.offset, "title": result.title,
        "text": result.text, "markdown": result.markdown() if markdown else None,
        "html": result.html() if html else None, "blocks": result.n_blocks,
        "content_blocks": len(result.content), "warnings": result.warnings,
        "no_main_content": result.meta.get("no_main_content"),
    }


def is_result(record: dict[str, Any]) -> bool:
    return "text" in record


def outcome_record(outcome: Outcome, site: str, stage: str, output: Output) -> dict[str, Any]:
    """A page's result record (its renderings as `output` made them), or its error record;
    where it came from is the outcome's source row (none: an unreadable spill)."""
    if outcome.record is not None:  # made where the page was cleaned (`SitePolicy.records`)
        return outcome.record
    row: dict[str, Any] = {"position": None, "input": None, "url": None, "offset": None,
                           "site": site, **outcome.source}
    where = PageRecord(0, row["position"], row["input"], row["url"], None, b"",
                       row["offset"], row["site"])
    if outcome.result is None:
        return error_record(where, site, stage, outcome.error or "no result")
    return result_record(where, outcome.result, markdown="markdown" in output.renderings,
                         html="html" in output.renderings)
