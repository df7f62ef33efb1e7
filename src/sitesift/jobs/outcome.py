"""What a job yields: one `Outcome` per input, and the messages a site task sends its driver.

Warnings (`sitesift.weak`) travel with the outcomes rather than through `warnings.warn`,
which a worker process would keep to itself: `Outcome.fit_warnings` (the site's fit: too few
pages, several sites), `Outcome.warnings` (the page's own), `Fitted.warnings` and
`SiteDone.warnings`; `WarningTally` counts them for a report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sitesift.result import Result


@dataclass(slots=True)
class Outcome:
    id: str
    group: str
    result: Result | None = None
    error: str | None = None
    ms: float = 0.0  # cleaning, after parsing
    source: dict[str, Any] = field(default_factory=dict)
    fit_ms: float = 0.0  # this page's share of its group's fit time
    cpu_ms: float = 0.0  # CPU time of the cleaning (sitesift.timing)
    fit_cpu_ms: float = 0.0  # CPU time of this page's share of the fit
    # What the fit of the model that cleaned this page warned of (`Cleaner.fit_warnings`:
    # too few pages, several sites), the same for every page of its group (or fold).
    fit_warnings: tuple[str, ...] = ()
    # The page as its job writes it, made in the worker in place of `result`
    # (`SitePolicy.pack`: a crawl record, the body of clean's file, with the page's
    # warnings): it crosses to the parent in a fraction of the time.
    record: dict[str, Any] | None = None

    @property
    def warnings(self) -> list[str]:
        """This page's own warnings (`Result.warnings`: a page scripts would fill in)."""
        if self.result is not None:
            return self.result.warnings
        return list(self.record.get("warnings") or []) if self.record is not None else []


@dataclass(slots=True)
class WarningTally:
    """A batch's warnings, for its report. `add` every outcome: it returns the fit warnings
    first seen with it, as lines to show now (`group: message`, each once per group);
    `pages` counts the pages with warnings of their own, `count` all of them."""

    fits: list[str] = field(default_factory=list)
    pages: int = 0
    seen: set[tuple[str, str]] = field(default_factory=set)

    def add(self, outcome: Outcome) -> list[str]:
        self.pages += bool(outcome.warnings)
        new = []
        for message in outcome.fit_warnings:
            if (outcome.group, message) not in self.seen:
                self.seen.add((outcome.group, message))
                new.append(f"{outcome.group}: {message}")
        self.fits.extend(new)
        return new

    @property
    def count(self) -> int:
        return len(self.fits) + self.pages


@dataclass(frozen=True, slots=True)
class Out:
    """Worker -> parent: the outcome of page `index` of the site."""

    index: int
    outcome: Outcome
    unread: bool = False  # the page could not even be loaded
    stage: str = "page"  # "worker": the page killed or hung a worker, or its site was given up


@dataclass(frozen=True, slots=True)
class Kept:
    """Worker -> parent: fold `fold`'s fitted model, saved at `path` for the retries of its
    site, with what the fit cost each page (wall and CPU ms) and warned of."""

    fold: int
    path: str
    fit: tuple[float, float]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Fitted:
    """Fit mode's last message: the model file written (or why not), from how many pages."""

    path: str
    pages: int
    seconds: float
    error: str | None = None
    warnings: tuple[str, ...] = ()  # the fit's (`Cleaner.fit_warnings`)


@dataclass(frozen=True, slots=True)
class SiteDone:
    """A site's last message: how its pages were cleaned."""

    site: str
    pages: int
    method: str
    # "fitted", "stored", "file", "fallback", "page-level", "failed" (no model: its pages are
    # errors), "fit-only" (fit mode) or "abandoned"
    model: str
    note: str | None = None
    warnings: tuple[str, ...] = ()  # what the site's fit warned of (Cleaner.fit_warnings)
