"""Cleaning one page of a job with a prepared cleaner, as one `Outcome`.

Errors of sitesift's own kinds become records; anything else (a bug) is recorded too, with
its type (`sitesift.errors.reason_of`), so one bad page never stops a job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sitesift.errors import reason_of
from sitesift.jobs.outcome import Outcome
from sitesift.jobs.source import Source
from sitesift.methods.base import Cleaner
from sitesift.output import BLOCKS, Output, finish
from sitesift.page import Page
from sitesift.result import Result
from sitesift.timing import Stopwatch
from sitesift.weak import add_warning, emptied, emptied_warning


def clean_source(cleaner: Cleaner, group: str, src: Source, page: Page | None = None,
                 output: Output = BLOCKS,
                 passthrough: tuple[type[BaseException], ...] = (),
                 fallback: Callable[[], Cleaner] | None = None,
                 below: tuple[float, Callable[[], Cleaner]] | None = None) -> Outcome:
    """One input cleaned with a prepared cleaner (loading it unless `page` is given), as one
    Outcome: the per-page step of every job, each page under its own guard. Exceptions of
    the `passthrough` types propagate (a worker whose memory ran out is restarted, rather
    than go on with a heap it cannot trust). The result is finished as `output` asks
    (`sitesift.output.finish`: metadata, renderings, title), timed with the cleaning. A
    page that a site-level `cleaner` empties is cleaned by `fallback` (made on first need),
    and says so (`_refill`); with `below` (X, a fallback), a page whose confidence is under
    X is cleaned by that fallback instead (`routed`)."""
    try:
        if page is None:
            page = src.load()
        watch = Stopwatch()
        result = cleaner.clean(page, noise=output.noise)
        if fallback is not None and cleaner.site_level and emptied(page, result):
            result = _refill(page, result, cleaner, fallback(), output)
        if below is not None:
            result = routed(page, result, cleaner, below, output)
        result = finish(result, page, output)
    except passthrough:
        raise
    except Exception as exc:  # recorded, never swallowed: the job's edge
        return Outcome(src.id, group, error=reason_of(exc), source=src.row)
    return Outcome(src.id, group, result=result, ms=watch.ms, cpu_ms=watch.cpu_ms,
                   source=src.row)


def routed(page: Page, result: Result, cleaner: Cleaner,
           below: tuple[float, Callable[[], Cleaner]], output: Output) -> Result:
    """`--fallback-below X`: the fallback's result where `result`'s confidence is under X
    (and the fallback is another method), recording the first method and its confidence
    in the fallback's `meta["fallback_from"]` (a record's `fallback_from` and
    `fallback_from_confidence`); `result` itself otherwise (no confidence: not routed)."""
    threshold, make = below
    if result.confidence is None or result.confidence >= threshold:
        return result
    other = make()
    if other.name == cleaner.name:
        return result
    routed_result = other.clean(page, noise=output.noise)
    routed_result.meta["fallback_from"] = {"method": result.method,
                                           "confidence": result.confidence}
    return routed_result


def _refill(page: Page, result: Result, model: Cleaner, fallback: Cleaner,
            output: Output) -> Result:
    """The fallback's result on a page that the site model `model` emptied, with a warning
    naming both; the model's own (empty, and saying why) where the fallback keeps nothing
    either."""
    other = fallback.clean(page, noise=output.noise)
    if emptied(page, other):
        return result
    add_warning(other, emptied_warning(model.name, fallback.name))
    return other


T = TypeVar("T")


def held(make: Callable[[], T]) -> Callable[[], T]:
    """`make`, called on first need only and its value kept: a fallback cleaner loads its
    model when a page needs it, not for every site."""
    kept: list[T] = []

    def get() -> T:
        if not kept:
            kept.append(make())
        return kept[0]
    return get
