"""The crawl's side of the job engine (`sitesift.jobs`), shared by the local job and Spark.

`CrawlConfig` is what a crawl computes; as a `SitePolicy` it has each site's model fitted
on a reproducible sample of its pages (or taken from the model store), and lets the
fallback, unfitted, clean the sites too small to fit (and pages without a URL, and sites
whose fit failed). By default both are the `default` cleaner, as in `sitesift clean`.
`crawl_records` runs site tasks through the engine's guarded workers and turns each page's
outcome into one result or error record; what the site's fit warned of (`sitesift.weak`: too
few pages, several sites) is in its SiteDone, a page's own warnings in its record.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sitesift.guards import Lost
from sitesift.io.records import PageRecord, outcome_record
from sitesift.jobs.grouping import UNKNOWN, URL_GROUPINGS
from sitesift.jobs.outcome import Out, SiteDone
from sitesift.jobs.policy import SitePolicy, check_fallback_below, fallback_cleaner
from sitesift.jobs.run import RunSettings, run_sites
from sitesift.jobs.source import Pages, SpillPages, SpillParts, record_source
from sitesift.jobs.task import SiteTask
from sitesift.language import parse_languages
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.output import Output


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
    drop_duplicates: bool = False  # leave out records whose text copies an earlier one's
    metadata: bool = False  # each record's `metadata`: what the page declares (`clean --metadata`)
    # `--lang de,fr`: only results whose text is in one of these languages (ISO 639-1,
    # `sitesift.language`) are written; the others are counted as skipped (`language`)
    languages: tuple[str, ...] = ()
    # `--fallback-below X`: pages whose confidence is under X are cleaned by the fallback
    fallback_below: float | None = None

    def check(self) -> None:
        """Fail early, in the parent, on a configuration no worker could run."""
        if self.grouping not in URL_GROUPINGS:
            raise ValueError(f"unknown grouping {self.grouping!r}; "
                             f"use {', '.join(URL_GROUPINGS)}")
        get_cleaner(self.method, **self.params)
        fallback = self.fallback_cleaner()
        if fallback.site_level and not fallback.fitted:
            raise ValueError(f"the fallback {self.fallback!r} must clean a page without a fit:"
                             " a page-level method, or default")
        if self.min_site_pages < 1 or self.fit_sample < self.min_site_pages:
            raise ValueError("need 1 <= min_site_pages <= fit_sample")
        if self.languages:
            parse_languages(self.languages)  # (a SettingsError, a ValueError, naming it)
        if self.fallback_below is not None:
            check_fallback_below(self.fallback_below, self.method, self.fallback)

    def fallback_cleaner(self) -> Cleaner:
        """A new (unfitted) fallback cleaner: with the crawl's `params` when it is the crawl's
        own method (`default` on a site too small to fit is `default` page by page, with the
        same settings), with its defaults otherwise."""
        return fallback_cleaner(self.fallback, self.method, self.params)

    def output(self) -> Output:
        """What each page's record carries: its text with its structure (paragraphs, line
        breaks, code lines), and markdown and HTML where asked; no noise blocks (a record
        counts them, `Result.n_blocks`, and holds none); the page's metadata where asked."""
        return Output(renderings=("text",) + ("markdown",) * self.markdown
                      + ("html",) * self.html, noise=False, metadata=self.metadata)

    def identity(self) -> dict[str, Any]:
        """The settings that decide a crawl's output: a resumed job must keep them (the
        languages and the dropping of copies only where asked, so a crawl begun before
        `--lang` or `--drop-duplicates` resumes without)."""
        held = {"method": self.method, "params": self.params, "fallback": self.fallback,
                "grouping": self.grouping, "min_site_pages": self.min_site_pages,
                "fit_sample": self.fit_sample, "seed": self.seed, "markdown": self.markdown,
                "html": self.html, "max_record_bytes": self.max_record_bytes}
        if self.languages:
            held["languages"] = ",".join(sorted(self.languages))
        if self.drop_duplicates:
            held["drop_duplicates"] = True
        if self.metadata:
            held["metadata"] = True
        if self.fallback_below is not None:
            held["fallback_below"] = self.fallback_below
        return held

    def written(self, record: dict[str, Any]) -> bool:
        """Whether a page's record is written: an error record always, a result where no
        `languages` were given or its text is in one of them (a page with no text has no
        language, and is in none)."""
        return (not self.languages or "text" not in record
                or record.get("language") in self.languages)

    def policy(self) -> SitePolicy:
        """The engine's policy for each site of the crawl."""
        return SitePolicy(self.method, self.params, output=self.output(),
                          fallback=self.fallback, fallback_sites=True,
                          min_site_pages=self.min_site_pages, fit_sample=self.fit_sample,
                          seed=self.seed, never_fit=UNKNOWN, store=self.models,
                          refit=self.refit, fallback_below=self.fallback_below,
                          pack=partial(outcome_record, stage="page", output=self.output()))


def spill_task(site: str, pages: int, spill: SpillParts, cfg: CrawlConfig) -> SiteTask:
    """A site of the local crawl: its pages in spill files (per input that has some, the
    file and the site's frames in it)."""
    return SiteTask(site, SpillPages(spill, pages), cfg.policy())


def inline_task(site: str, records: list[PageRecord], cfg: CrawlConfig) -> SiteTask:
    """A site of the Spark job: its records, held."""
    pages: Pages = [record_source(rec) for rec in records]
    return SiteTask(site, pages, cfg.policy())


def crawl_records(tasks: Iterable[SiteTask], cfg: CrawlConfig, run: RunSettings,
                  on_lost: Callable[[SiteTask, Lost], None] | None = None
                  ) -> Generator[tuple[SiteTask, dict[str, Any] | SiteDone], None, None]:
    """(task, record) for every page of every task, then (task, SiteDone) per site."""
    output = cfg.output()
    for task, message in run_sites(tasks, run, on_lost):
        if isinstance(message, Out):
            yield task, outcome_record(message.outcome, task.site, message.stage, output)
        elif isinstance(message, SiteDone):
            yield task, message

