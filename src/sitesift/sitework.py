"""Cleaning one site of a crawl, the step shared by the local job and the Spark job.

`process_site` runs in a guarded worker process (`sitesift.guards.Supervisor`): it gets the
site's model (from the model store, or fitted on a reproducible sample of its pages, or the
fallback, unfitted, for sites with too few pages), then cleans every page under a time
limit, yielding one record per page. By default both are the `default` cleaner, as in
`sitesift clean`: fitted on a site's sample it uses the site's evidence, unfitted it cleans
each page alone. `drive` runs site tasks through a supervisor and, when a page kills or
hangs a worker, records that page as an error and resumes the site after it, so each page
of each site gets exactly one record. What the site's fit warned of (`sitesift.weak`: too few
pages, several sites) is in its SiteDone; a page's own warnings are in its record.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sitesift.batch import FIT_MAX_BYTES, Source, clean_source, fallback_cleaner, held
from sitesift.errors import ModelError, SitesiftError
from sitesift.guards import Busy, Limits, Lost, PageTimeout, Supervisor, time_limit
from sitesift.io.models import ModelStore
from sitesift.io.records import PageRecord, error_record, result_record
from sitesift.io.sites import GROUPINGS, UNKNOWN
from sitesift.io.spill import read_spill
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.output import Output
from sitesift.page import Page
from sitesift.weak import quiet_fits

FIT_UNIT = -1
# Worker deaths in a row outside any page, with no record arriving between them, before a
# site is given up: such a death would come again on every retry. One that follows progress
# starts the count again, so a long site is not given up for deaths spread over it.
MAX_BLIND_LOSSES = 3


@dataclass(frozen=True, slots=True)
class CrawlConfig:
    """What a crawl computes (the same for the local and the Spark job)."""

    method: str = "default"
    params: dict[str, Any] = field(default_factory=dict)
    # Cleans, unfitted, the sites too small to fit (and pages without a URL, and sites whose
    # fit failed): a page-level method, or one like `default` that cleans a page alone.
    fallback: str = "default"
    grouping: str = "domain"  # or "host"
    min_site_pages: int = 5  # fewer pages: the fallback cleans them
    fit_sample: int = 50  # pages a site's model is fitted on, drawn reproducibly
    seed: int = 0
    markdown: bool = False
    html: bool = False
    max_record_bytes: int = 16 * 1024 * 1024
    models: str | None = None  # a model store folder, reused across crawls
    refit: bool = False  # fit even where the store has a model

    def check(self) -> None:
        """Fail early, in the parent, on a configuration no worker could run."""
        if self.grouping not in GROUPINGS:
            raise ValueError(f"unknown grouping {self.grouping!r}; use {', '.join(GROUPINGS)}")
        get_cleaner(self.method, **self.params)
        fallback = self.fallback_cleaner()
        if fallback.site_level and not fallback.fitted:
            raise ValueError(f"the fallback {self.fallback!r} must clean a page without a fit:"
                             " a page-level method, or default")
        if self.min_site_pages < 1 or self.fit_sample < self.min_site_pages:
            raise ValueError("need 1 <= min_site_pages <= fit_sample")

    def fallback_cleaner(self) -> Cleaner:
        """A new (unfitted) fallback cleaner: with the crawl's `params` when it is the crawl's
        own method (`default` on a site too small to fit is `default` page by page, with the
        same settings), with its defaults otherwise."""
        return fallback_cleaner(self.fallback, self.method, self.params)

    def output(self) -> Output:
        """What each page's record carries: its text with its structure (paragraphs, line
        breaks, code lines), and markdown and HTML where asked."""
        return Output(renderings=("text",) + ("markdown",) * self.markdown
                      + ("html",) * self.html)

    def identity(self) -> dict[str, Any]:
        """The settings that decide a crawl's output: a resumed job must keep them."""
        return {"method": self.method, "params": self.params, "fallback": self.fallback,
                "grouping": self.grouping, "min_site_pages": self.min_site_pages,
                "fit_sample": self.fit_sample, "seed": self.seed, "markdown": self.markdown,
                "html": self.html, "max_record_bytes": self.max_record_bytes}


@dataclass(slots=True)
class SiteTask:
    """One site's pages (spill files, or the records themselves) and what earlier tries
    learnt: pages that killed a worker, a fit that did, how far records were sent."""

    site: str
    pages: int
    spill: list[str] = field(default_factory=list)
    inline: list[PageRecord] | None = None
    poison: dict[int, str] = field(default_factory=dict)
    fit_failed: str | None = None
    start: int = 0
    blind_losses: int = 0

    def records(self) -> Iterator[PageRecord]:
        if self.inline is not None:
            return iter(self.inline)
        return read_spill(Path(p) for p in self.spill)


@dataclass(frozen=True, slots=True)
class Out:
    """Worker -> parent: the record of page `seq` of the site."""

    seq: int
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SiteDone:
    site: str
    pages: int
    method: str
    model: str  # "fitted", "stored", "fallback", "page-level" or "abandoned"
    note: str | None = None
    warnings: tuple[str, ...] = ()  # what the site's fit warned of (Cleaner.fit_warnings)


def prepare_worker() -> None:
    """Import what cleaning loads lazily, so the worker's memory limit counts pages only."""
    import numpy  # noqa: F401 - imported for its side effect

    from sitesift.methods.base import _load_builtin_methods

    _load_builtin_methods()


def sample_pages(site: str, pages: int, k: int, seed: int) -> list[int]:
    """The page numbers a site's model is fitted on: the same for the same site and seed
    on every machine (a string seed is hashed with SHA-512, not Python's salted hash)."""
    if pages <= k:
        return list(range(pages))
    return sorted(random.Random(f"{seed}:{site}").sample(range(pages), k))


def _why(exc: BaseException) -> str:
    if isinstance(exc, SitesiftError):
        return str(exc)
    return f"internal error ({type(exc).__name__}): {exc}"


def _source(rec: PageRecord) -> Source:
    return Source(f"{rec.input_index}:{rec.position}", rec.input,
                  {"url": rec.url, "site": rec.site}, data=rec.body,
                  content_type=rec.content_type)


def _prepare(task: SiteTask, cfg: CrawlConfig, limits: Limits, cache: dict[int, Page],
             failed: dict[int, str]) -> Iterator[Busy | tuple[Cleaner, str, str | None]]:
    """Yields Busy messages, then (cleaner, how it was had, note) as its last item."""
    cleaner = get_cleaner(cfg.method, **cfg.params)
    if not cleaner.site_level:
        yield cleaner, "page-level", None
        return
    why_not = (
        "pages without a URL are cleaned one by one" if task.site == UNKNOWN
        else f"{task.pages} pages, fewer than {cfg.min_site_pages}"
        if task.pages < cfg.min_site_pages else task.fit_failed)
    if why_not:
        yield cfg.fallback_cleaner(), "fallback", why_not
        return
    store = ModelStore(cfg.models) if cfg.models else None
    note = None
    if store is not None and not cfg.refit:
        try:
            if (stored := store.load(task.site, cfg.method, cfg.params)) is not None:
                yield stored, "stored", None
                return
        except ModelError as exc:
            note = f"stored model unusable, refitted: {exc}"
    wanted = [s for s in sample_pages(task.site, task.pages, cfg.fit_sample, cfg.seed)
              if s not in task.poison]
    todo, pages = set(wanted), []
    for seq, rec in enumerate(task.records()):
        if not todo:
            break
        if seq not in todo:
            continue
        todo.discard(seq)
        if len(rec.body) > FIT_MAX_BYTES:
            continue
        yield Busy(seq, "parse", limits.page_seconds)
        try:
            with time_limit(limits.page_seconds):
                cache[seq] = page = _source(rec).load()
            pages.append(page)
        except MemoryError:  # the worker quits; the page is recorded and the site retried
            raise
        except Exception as exc:  # the page's own error record says why, in its turn
            failed[seq] = _why(exc)
    if len(pages) < cfg.min_site_pages:
        yield cfg.fallback_cleaner(), "fallback", f"{len(pages)} readable sample pages"
        return
    yield Busy(FIT_UNIT, "fit", limits.fit_seconds)
    try:
        with time_limit(limits.fit_seconds, "fit"), quiet_fits():  # carried to SiteDone
            cleaner.fit(pages)
    except MemoryError:
        raise
    except Exception as exc:
        yield cfg.fallback_cleaner(), "fallback", f"fit failed: {_why(exc)}"
        return
    if store is not None:
        try:
            store.save(task.site, cleaner)
        except OSError as exc:
            note = f"model not stored: {exc}"
    yield cleaner, "fitted", note


def process_site(task: SiteTask, cfg: CrawlConfig, limits: Limits
                 ) -> Iterator[Busy | Out | SiteDone]:
    """The worker side: see the module docstring."""
    cache: dict[int, Page] = {}
    failed: dict[int, str] = {}
    prepared: tuple[Cleaner, str, str | None] | None = None
    for message in _prepare(task, cfg, limits, cache, failed):
        if isinstance(message, Busy):
            yield message
        else:
            prepared = message
    assert prepared is not None
    cleaner, how, note = prepared
    # A site's model that empties a page gives way to the fallback (`clean_source`).
    fallback = held(cfg.fallback_cleaner) if how in ("fitted", "stored") else None
    for seq, rec in enumerate(task.records()):
        if seq < task.start:
            continue
        if seq in task.poison:
            yield Out(seq, error_record(rec, task.site, "worker", task.poison[seq]))
            continue
        if seq in failed:
            yield Out(seq, error_record(rec, task.site, "page", failed[seq]))
            continue
        yield Busy(seq, "clean", limits.page_seconds)
        src = _source(rec)
        try:
            with time_limit(limits.page_seconds):
                outcome = clean_source(cleaner, task.site, src, cache.pop(seq, None),
                                       cfg.output(), passthrough=(MemoryError,),
                                       fallback=fallback)
        except PageTimeout as exc:  # the timer went off outside clean_source's own handler
            yield Out(seq, error_record(rec, task.site, "page", str(exc)))
            continue
        if outcome.result is not None:
            yield Out(seq, result_record(rec, outcome.result, markdown=cfg.markdown,
                                         html=cfg.html))
        else:
            yield Out(seq, error_record(rec, task.site, "page", outcome.error or "no result"))
    yield SiteDone(task.site, task.pages, cleaner.name, how, note, cleaner.fit_warnings)


def _after_loss(task: SiteTask, lost: Lost, next_seq: int) -> SiteTask | None:
    """The task to retry after its worker died (None: give the rest of the site up)."""
    busy = lost.busy
    if busy is None:
        blind = 1 if next_seq > task.start else task.blind_losses + 1
        if blind >= MAX_BLIND_LOSSES:
            return None
        return replace(task, start=next_seq, blind_losses=blind)
    if busy.stage == "fit":
        return replace(task, start=next_seq, fit_failed=f"fit stopped: {lost.reason}")
    poison = {**task.poison, busy.unit: lost.reason}
    return replace(task, start=next_seq, poison=poison)


def _abandon(task: SiteTask, next_seq: int, reason: str) -> Iterator[dict[str, Any]]:
    """Error records for the pages of a site given up on, from what can still be read."""
    why = f"site abandoned after repeated worker failures: {reason}"
    seq = -1
    try:
        for seq, rec in enumerate(task.records()):
            if seq >= next_seq:
                yield error_record(rec, task.site, "worker", why)
    except SitesiftError:
        pass
    for _ in range(max(seq + 1, next_seq), task.pages):  # unreadable: still one record each
        yield {"url": None, "site": task.site, "input": None, "position": None,
               "offset": None, "stage": "worker", "reason": why}


def drive(supervisor: Supervisor[SiteTask], tasks: Iterable[SiteTask],
          on_lost: Callable[[SiteTask, Lost], None] | None = None
          ) -> Iterator[tuple[SiteTask, dict[str, Any] | SiteDone]]:
    """Yield (task, record) for every page of every task, then (task, SiteDone) per site."""
    next_seq: dict[str, int] = {}
    finished: set[str] = set()
    for task, message in supervisor.run(tasks):
        if task.site in finished:
            continue
        if isinstance(message, Out):
            next_seq[task.site] = message.seq + 1
            yield task, message.record
        elif isinstance(message, SiteDone):
            finished.add(task.site)
            yield task, message
        elif isinstance(message, Lost):
            if on_lost is not None:
                on_lost(task, message)
            start = next_seq.get(task.site, task.start)
            retry = _after_loss(task, message, start)
            if retry is not None:
                supervisor.retry(retry)
                continue
            finished.add(task.site)
            for record in _abandon(task, start, message.reason):
                yield task, record
            yield task, SiteDone(task.site, task.pages, "", "abandoned", message.reason)
