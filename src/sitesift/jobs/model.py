"""A site task's model: read the pages it is fitted on, fit it (or load it), keep it for
the retries, save it in fit mode. Each step is announced by a `Busy` message, so that a
worker that dies or hangs in it blames the page or the fit it was busy with.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sitesift.errors import reason_of
from sitesift.guards import Busy, time_limit
from sitesift.jobs.outcome import Fitted, Kept, Out, Outcome
from sitesift.jobs.policy import FIT_MAX_BYTES
from sitesift.jobs.source import Source, each
from sitesift.jobs.task import SiteTask
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.page import Page
from sitesift.timing import Stopwatch
from sitesift.weak import quiet_fits

Fit = tuple[float, float]  # a fit's wall and CPU ms per page it was fitted on
NO_FIT: Fit = (0.0, 0.0)


@dataclass(slots=True)
class Run:
    """One try of a site task in a worker (`limits` given) or in this process: its time
    limits, what propagates (in a worker a MemoryError ends the worker, its heap is not to
    be trusted, and the parent records the page it was busy with; in this process it is the
    page's error) and the pages whose outcome this try sent."""

    task: SiteTask
    page_s: float
    fit_s: float
    keep: tuple[type[BaseException], ...]
    sent: set[int] = field(default_factory=set)
    paired: bool = False  # a page's Out goes with the next page's Busy (`guards.Then`)

    def out(self, index: int, outcome: Outcome, unread: bool = False) -> Out:
        self.sent.add(index)
        return Out(index, outcome, unread)

    def error(self, index: int, src: Source, reason: str) -> Out:
        """Page `index`'s error: that of a page that killed a worker, if it did."""
        self.sent.add(index)
        poison = self.task.poison.get(index)
        return Out(index, Outcome(src.id, self.task.site, error=poison or reason,
                                  source=src.row), stage="page" if poison is None else "worker")


def fit_unit(fold: int) -> int:
    return -1 - fold  # Busy units: pages are 0.., a fold's fit (or loading the model) below 0


WARM_UP = "warm-up"  # the stage of loading a cleaner's lazy parts (`site.warm`)
WARM_UNIT = -(1 << 30)  # its unit: no page and no fit, so a loss in it blames neither


def parse_order(task: SiteTask) -> list[int]:
    """The pages a fit reads, those not yet tried first: a retry then meets the next poison
    page before it reads again the pages an earlier try read without harm, so that each
    good page is read at most twice however many poison pages its site holds."""
    todo = [i for i in task.policy.sample(task.site, len(task.pages))
            if i not in task.poison and i not in task.unread]
    return [i for i in todo if i not in task.parsed] + [i for i in todo if i in task.parsed]


def read_fit_pages(run: Run, cleaner: Cleaner) -> Generator[Busy | Out, None, dict[int, Page]]:
    """The readable pages of the fit sample, held for `cleaner`'s fit, in input order (as a
    fit sees them); an Out for each page that cannot be read. A page whose held body is over
    the fit's size limit is not read here: it is cleaned, not fitted on."""
    task = run.task
    order = parse_order(task)
    pages: dict[int, Page] = {}
    untried = [i for i in order if i not in task.parsed]
    for run_of in (untried, order[len(untried):]):  # each run in input order: one pass
        for i, src in each(task.pages, run_of):
            if src.size is not None and src.size > FIT_MAX_BYTES:
                continue
            yield Busy(i, "parse", run.page_s)
            try:
                with time_limit(run.page_s):
                    pages[i] = held_page(src.load(), cleaner)
            except run.keep:
                raise
            except Exception as exc:
                if i not in task.done:
                    yield run.out(i, Outcome(src.id, task.site, error=reason_of(exc),
                                             source=src.row), unread=True)
    return {i: pages[i] for i in sorted(pages)}


def held_page(page: Page, cleaner: Cleaner) -> Page:
    """The page as `cleaner`'s fit will read it. For a method that reads the page's tree
    (`Cleaner.reads_tree`), that tree read out of the parser, which then frees its Lexbor
    document: a site holds every page of its fit, and each document keeps ~1 MiB of
    address space (measured: 7,000 small pages held lazily, 7.2 GB; read out, 0.37 GB).
    The fit reads every node of these pages anyway. Pages too large to fit on stay lazy,
    and so do the pages of a method that reads them otherwise (the default cleaner's
    native core): parsing them here would be a second reading."""
    if cleaner.reads_tree and page.chars <= FIT_MAX_BYTES:
        for _ in page.root.iter():
            pass
    return page


def fold_model(run: Run, fold: int, train: list[Page]
               ) -> Generator[Busy | Kept, None, tuple[Cleaner, Fit] | str]:
    """Fold `fold`'s model (kept by an earlier try, or fitted on `train`), or why not. A
    retry keeps what it fits (`Kept`): a site that loses a worker once may lose more, and
    each later loss then costs a restart, not a fit."""
    task = run.task
    kept = task.kept.get(fold)
    if kept is not None:
        loaded = yield from load_fitted(run, kept.path, fold)
        if isinstance(loaded, str):
            return loaded
        loaded.fit_warnings = kept.warnings  # the fit's, which the model file does not hold
        return loaded, kept.fit
    yield Busy(fit_unit(fold), "fit", run.fit_s)
    watch = Stopwatch()
    try:
        with time_limit(run.fit_s, "fit"), quiet_fits():  # carried to the outcomes
            model = get_cleaner(task.policy.method, **task.policy.params).fit(train)
    except run.keep:
        raise
    except Exception as exc:
        return reason_of(exc)
    fit = (watch.ms / max(len(train), 1), watch.cpu_ms / max(len(train), 1))
    if task.tries and task.scratch is not None:
        yield Busy(fit_unit(fold), "keeping the model", run.fit_s)
        path = _saved(run, model, task.scratch)
        if path is not None:
            yield Kept(fold, path, fit, model.fit_warnings)
    return model, fit


def _saved(run: Run, model: Cleaner, folder: str) -> str | None:
    """The model saved in `folder` for the retries (None where it cannot be: they refit)."""
    from sitesift.model_io import save_model

    try:
        fd, path = tempfile.mkstemp(prefix="fold-", suffix=".json", dir=folder)
        os.close(fd)
        with time_limit(run.fit_s, "keeping the model"):
            save_model(model, path)
    except run.keep:
        raise
    except Exception:  # a method without a saved form, a full disk: the retries refit
        return None
    return path


def load_fitted(run: Run, path: str, fold: int) -> Generator[Busy, None, Cleaner | str]:
    """A fitted model from its file, under the fit's time limit; or why not."""
    yield Busy(fit_unit(fold), "loading the model", run.fit_s)
    try:
        from sitesift.model_io import load_model

        with time_limit(run.fit_s, "loading the model"):
            return load_model(path)
    except run.keep:
        raise
    except Exception as exc:
        return reason_of(exc)


def fit_and_save(run: Run, path: str, cleaner: Cleaner) -> Iterator[Busy | Out | Fitted]:
    """Fit mode: fit `cleaner` (new, unfitted) on every readable page (those over the fit's
    size limit are error records) and write the model to `path`."""
    task = run.task
    if 0 in task.fit_failed:
        yield Fitted(path, 0, 0.0, task.fit_failed[0])
        return
    pages = yield from read_fit_pages(run, cleaner)
    for i, src in each(task.pages, [i for i, p in pages.items() if p.chars > FIT_MAX_BYTES]):
        size = pages.pop(i).chars
        if i not in task.done:
            yield run.error(i, src, f"not fitted on: {size:,} characters, over the limit of "
                                    f"{FIT_MAX_BYTES:,} for a fit")
    yield Busy(fit_unit(0), "fit", run.fit_s)
    yield _fit_and_save(run, path, list(pages.values()), cleaner)


def _fit_and_save(run: Run, path: str, pages: list[Page], cleaner: Cleaner) -> Fitted:
    if not pages:
        return Fitted(path, 0, 0.0, "no readable pages")
    watch = Stopwatch()
    try:
        from sitesift.model_io import save_model

        with time_limit(run.fit_s, "fit"), quiet_fits():  # carried to Fitted
            cleaner.fit(pages)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        save_model(cleaner, path)
    except run.keep:
        raise
    except Exception as exc:
        return Fitted(path, len(pages), watch.ms / 1000, reason_of(exc))
    return Fitted(path, len(pages), watch.ms / 1000, warnings=cleaner.fit_warnings)


def failed(run: Run, why: str, indices: Iterable[int]) -> Iterator[Out]:
    """An error record for each of `indices` whose model could not be had (a page that
    killed a worker is recorded as that)."""
    task = run.task
    for i, src in each(task.pages, indices):
        yield run.error(i, src, f"preparing the {task.policy.method} model failed: {why}")
