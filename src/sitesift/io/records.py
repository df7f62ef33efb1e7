"""What readers yield and what sinks write.

A reader turns each input record into exactly one item: a `PageRecord` (an HTML page to
clean), a `Skipped` record (not a page: a request, an image, a redirect; counted by reason)
or a `Failed` one (meant to be a page but unreadable: truncated, too large, a bomb). Cleaning
turns each page into one result or one error record, so that

    records in = results + error records + skipped
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitesift.result import Result

if TYPE_CHECKING:
    from sitesift.io.warcref import Ref
    from sitesift.jobs.outcome import Outcome
    from sitesift.output import Output

WARC_FIELDS = ("warc_record_id", "warc_date", "warc_payload_digest")
"""Where a page came from in its WARC, beside its url (WARC-Target-URI), input and offset:
the record's WARC-Record-ID, WARC-Date and WARC-Payload-Digest headers as written (their
value, without the spaces around it); null where the record has no such header, and for
inputs that are not WARC (JSONL, folders of pages). Issue 55's names (DataTrove's WARC
reader and FineWeb call the first two `id` and `date`)."""
RESULT_FIELDS = ("url", "site", "method", "input", "position", "offset", *WARC_FIELDS,
                 "title", "text", "text_digest", "dup_of", "language", "language_score",
                 "page_type", "page_type_score", "confidence", "fallback_from",
                 "fallback_from_confidence", "metadata", "markdown", "html", "comments",
                 "comments_markdown", "blocks", "content_blocks", "warnings",
                 "no_main_content")
"""A result record's fields, always all of them (a fixed schema for Parquet): `markdown` and
`html` are null unless asked for; `warnings` is a list of strings, empty unless the page was
doubtful (`Result.warnings`: a page whose text scripts would fill in); `no_main_content` is
null unless the result keeps no content, and then says why (`sitesift.weak.empty_reason`);
`text_digest` is `text_digest(text)`; `dup_of` is null unless the crawl found the text a copy
of an earlier record's (`DUP_OF_FIELDS`, `sitesift.io.dups`); `language` and `language_score`
are the language detected from the text (`Result.language`: ISO 639-1, a score in [0, 1]),
null where it has no text; `page_type` is one of WCXB's seven types and `page_type_score`
its probability (`sitesift.page_type`); `comments` is the page's comments as text, kept
apart from `text` (`Result.comments`), null unless `--set comments=separate`, and
`comments_markdown` them as markdown, null unless also `--markdown`; `confidence` is the
predicted token F1 of the page's extraction in [0, 1] (`Result.confidence`), null for methods
that cannot give one; a page that `--fallback-below` sent to another method (`method`,
`confidence`: the fallback's) names the first method in `fallback_from` and its confidence in
`fallback_from_confidence`, both null on every other record."""
METADATA_FIELDS = ("title", "author", "date", "sitename", "language", "canonical_url",
                   "description")
"""A record's `metadata` (`crawl --metadata`; null without): what the page declares about
itself, `sitesift.metadata.Metadata`'s fields (a test holds them equal; named here so that a
worker need not import the metadata reader to write a record)."""
DUP_OF_FIELDS = ("input", "position", "url", "similarity", "exact")
"""A `dup_of`'s fields: the first record, in crawl order, whose text the record's copies
(its input, position and url), the estimated resemblance of their texts (1 for the same
text) and whether the text is the same, byte for byte."""
DUP_ROW = "_dup_row"
"""The key of a crawl result record's row for the crawl-wide copy check (`sitesift.io.dups`)
while the record travels from its worker to the work folder; never written in a record."""
ERROR_FIELDS = ("url", "site", "input", "position", "offset", *WARC_FIELDS, "stage", "reason")


def text_digest(text: str) -> str:
    """The digest of a record's text: `sha1:` and the base-32 SHA-1 of its UTF-8 bytes, the
    form of a WARC's WARC-Payload-Digest and of the WARC-Block-Digest of the text records of
    Common Crawl's WET files, so that exact copies are found by it (the text, byte for
    byte: the same words with other spacing are another text)."""
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()
    return "sha1:" + base64.b32encode(digest).decode("ascii")


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
    # The record's WARC-Record-ID, WARC-Date and WARC-Payload-Digest (`WARC_FIELDS`)
    warc_record_id: str | None = None
    warc_date: str | None = None
    warc_payload_digest: str | None = None
    # Where the body is in the input, when it is left there (`body` is then empty): the
    # crawl's ingest refers to a WARC's payloads (`sitesift.io.warcref`)
    ref: Ref | None = None

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
    # What is known of the record that could not be read (`PageRecord`'s, where its WARC
    # header was read)
    warc_record_id: str | None = None
    warc_date: str | None = None
    warc_payload_digest: str | None = None


Item = PageRecord | Skipped | Failed


def warc_fields(where: PageRecord | Failed) -> dict[str, str | None]:
    """The record's `WARC_FIELDS`, for its result or error record."""
    return {"warc_record_id": where.warc_record_id, "warc_date": where.warc_date,
            "warc_payload_digest": where.warc_payload_digest}


def error_record(where: PageRecord | Failed, site: str, stage: str, reason: str) -> dict[str, Any]:
    return {"url": where.url, "site": site, "input": where.input, "position": where.position,
            "offset": where.offset, **warc_fields(where), "stage": stage, "reason": reason}


def result_record(page: PageRecord, result: Result, *, markdown: bool = False,
                  html: bool = False) -> dict[str, Any]:
    return {
        "url": page.url, "site": page.site, "method": result.method, "input": page.input,
        "position": page.position, "offset": page.offset, **warc_fields(page),
        "title": result.title, "text": result.text, "text_digest": text_digest(result.text),
        "dup_of": None,
        "language": result.language, "language_score": result.language_score,
        "page_type": result.page_type, "page_type_score": result.page_type_score,
        "confidence": result.confidence, **fallback_fields(result),
        "metadata": result.meta.get("metadata"),
        "markdown": result.markdown() if markdown else None,
        "html": result.html() if html else None, "comments": result.comments,
        "comments_markdown": result.comments_markdown if markdown else None,
        "blocks": result.n_blocks,
        "content_blocks": len(result.content), "warnings": result.warnings,
        "no_main_content": result.meta.get("no_main_content"),
    }


def fallback_fields(result: Result) -> dict[str, Any]:
    """`fallback_from` and `fallback_from_confidence` of a result record: the method that
    first cleaned the page and its confidence where `--fallback-below` sent the page to the
    fallback (`jobs.page.routed`), else null."""
    held = result.meta.get("fallback_from")
    if not isinstance(held, dict):
        return {"fallback_from": None, "fallback_from_confidence": None}
    return {"fallback_from": held.get("method"), "fallback_from_confidence": held.get("confidence")}


def is_result(record: dict[str, Any]) -> bool:
    return "text" in record


def outcome_record(outcome: Outcome, site: str, stage: str, output: Output) -> dict[str, Any]:
    """A page's result record (its renderings as `output` made them) with its row for the
    crawl's copy check (`DUP_ROW`), or its error record; where it came from is the outcome's
    source row (none: an unreadable spill)."""
    if outcome.record is not None:  # made where the page was cleaned (`SitePolicy.pack`)
        return outcome.record
    row: dict[str, Any] = {"position": None, "input": None, "url": None, "offset": None,
                           "site": site, **dict.fromkeys(WARC_FIELDS), **outcome.source}
    where = PageRecord(row.get("input_index", 0), row["position"], row["input"], row["url"],
                       None, b"", row["offset"], row["site"], *(row[f] for f in WARC_FIELDS))
    if outcome.result is None:
        return error_record(where, site, stage, outcome.error or "no result")
    record = result_record(where, outcome.result, markdown="markdown" in output.renderings,
                           html="html" in output.renderings)
    from sitesift.io.dups import dup_row

    record[DUP_ROW] = dup_row(where.input_index, record)
    return record
