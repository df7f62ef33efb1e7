"""The local batch: pages grouped by site, one model fitted per group, every page cleaned.

Every input yields exactly one Outcome: a Result or an error naming the input and the
reason. Errors of sitesift's own kinds become records; anything else (a bug) is recorded
too, with its type, so one bad page never stops the batch and nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.datasets import load_page
from sitesift.errors import SitesiftError
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.page import Page
from sitesift.result import Result
from sitesift.timing import Stopwatch


@dataclass(frozen=True, slots=True)
class Source:
    """One input page: a file, a row of a dataset's index, or bytes held in memory
    (`data`, decoded with `content_type`: a crawl record)."""

    id: str
    path: str
    row: dict[str, Any] = field(default_factory=dict)
    dataset: str | None = None
    data: bytes | None = None
    content_type: str | None = None

    def load(self) -> Page:
        if self.dataset is not None:
            return load_page(Path(self.dataset), self.row)
        if self.data is not None:
            page = Page.from_bytes(self.data, url=self.row.get("url"), site=self.row.get("site"),
                                   id=self.id, content_type=self.content_type)
            page.meta.update(self.row)
            return page
        page = Page.from_file(self.path, url=self.row.get("url"), site=self.row.get("site"),
                              id=self.id)
        page.meta.update(self.row)
        return page


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


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SitesiftError):
        return str(exc)
    if isinstance(exc, MemoryError):  # an address-space limit (sitesift.guards) was reached
        return "out of memory: the page needs more than the worker's memory limit"
    return f"internal error ({type(exc).__name__}): {exc}"


def clean_group(method: str, params: dict[str, Any], group: str, sources: Sequence[Source],
                model: str | None = None, noise: bool = True, folds: int = 1) -> list[Outcome]:
    """Load, fit (site-level methods) and clean one site group; with `model` (a model file),
    clean with that fitted model instead of fitting one. `noise=False` keeps only the
    content blocks in the results (faster, for text output). With `folds` > 1 every page is
    cleaned by a model fitted on the other folds of its group (page i is in fold i % folds),
    which measures how a saved site model does on pages it never saw."""
    outcomes: dict[str, Outcome] = {}
    pages: list[tuple[Source, Page]] = []
    for src in sources:
        try:
            pages.append((src, src.load()))
        except Exception as exc:  # recorded, never swallowed: the batch edge
            outcomes[src.id] = Outcome(src.id, group, error=_reason(exc), source=src.row)
    n = folds if folds > 1 and model is None else 1
    for fold in range(n):
        test = [sp for i, sp in enumerate(pages) if i % n == fold]
        train = [p for i, (_, p) in enumerate(pages) if n == 1 or i % n != fold]
        cleaner, fit, fit_error = _prepare(method, params, model, train)
        for src, page in test:
            if cleaner is None:
                outcomes[src.id] = Outcome(src.id, group, error=fit_error, source=src.row)
                continue
            watch = Stopwatch()
            try:
                result = cleaner.clean(page, noise=noise)
                outcomes[src.id] = Outcome(src.id, group, result=result, ms=watch.ms,
                                           cpu_ms=watch.cpu_ms, source=src.row,
                                           fit_ms=fit[0], fit_cpu_ms=fit[1])
            except Exception as exc:
                outcomes[src.id] = Outcome(src.id, group, error=_reason(exc), source=src.row)
    return [outcomes[s.id] for s in sources]


def _prepare(method: str, params: dict[str, Any], model: str | None, pages: list[Page]
             ) -> tuple[Cleaner | None, tuple[float, float], str | None]:
    """The cleaner for a group: loaded, or made and (site-level) fitted on `pages`; with the
    fit's wall and CPU ms per page, or the reason it could not be had."""
    try:
        if model is not None:
            from sitesift.model_io import load_model

            return load_model(model), (0.0, 0.0), None
        cleaner = get_cleaner(method, **params)
        fit = (0.0, 0.0)
        if cleaner.site_level:
            watch = Stopwatch()
            cleaner.fit(pages)
            fit = (watch.ms / max(len(pages), 1), watch.cpu_ms / max(len(pages), 1))
        return cleaner, fit, None
    except Exception as exc:
        return None, (0.0, 0.0), f"preparing the {method} model failed: {_reason(exc)}"


def clean_source(cleaner: Cleaner, group: str, src: Source, page: Page | None = None,
                 noise: bool = True, passthrough: tuple[type[BaseException], ...] = ()
                 ) -> Outcome:
    """One input cleaned with a prepared cleaner (loading it unless `page` is given), as one
    Outcome: the crawl's per-page step, which runs each page under its own guard.
    Exceptions of the `passthrough` types propagate (the crawl restarts a worker whose
    memory ran out, rather than go on with a heap it cannot trust)."""
    try:
        if page is None:
            page = src.load()
        watch = Stopwatch()
        result = cleaner.clean(page, noise=noise)
    except passthrough:
        raise
    except Exception as exc:  # recorded, never swallowed: the batch edge
        return Outcome(src.id, group, error=_reason(exc), source=src.row)
    return Outcome(src.id, group, result=result, ms=watch.ms, cpu_ms=watch.cpu_ms,
                   source=src.row)


def run_groups(groups: dict[str, list[Source]], method: str, params: dict[str, Any] | None = None,
               *, model: str | None = None, workers: int = 1, progress: bool = False,
               noise: bool = True, folds: int = 1) -> Iterator[Outcome]:
    """Clean every group (in parallel processes when workers > 1), yielding outcomes;
    `folds` as in `clean_group`."""
    params = params or {}
    total = sum(len(v) for v in groups.values())
    bar = _progress(total, progress)
    try:
        if workers <= 1:
            for name, sources in groups.items():
                for outcome in clean_group(method, params, name, sources, model, noise, folds):
                    bar.update(1)
                    yield outcome
            return
        # Largest groups first, so one big site does not finish last on its own.
        order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(clean_group, method, params, name, sources, model, noise, folds): (
                    name, sources)
                for name, sources in order
            }
            for future in as_completed(futures):
                name, sources = futures[future]
                try:
                    outcomes = future.result()
                except Exception as exc:  # a worker died: every page of the group is reported
                    outcomes = [Outcome(s.id, name, error=f"worker failed: {_reason(exc)}",
                                        source=s.row) for s in sources]
                for outcome in outcomes:
                    bar.update(1)
                    yield outcome
    finally:
        bar.close()


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="page", dynamic_ncols=True)
