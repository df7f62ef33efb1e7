"""The local batch: pages grouped by site, one model fitted per group, every page cleaned.

Every input yields exactly one Outcome: a Result or an error naming the input and the
reason. Errors of sitesift's own kinds become records; anything else (a bug) is recorded
too, with its type, so one bad page never stops the batch and nothing is dropped silently.

Guards (`sitesift.guards`): with `Limits` (the CLI always gives them), or with more than one
worker, each group is a task for guarded worker processes. Every page is parsed and cleaned
under a time limit, every fit under its own, each worker under a memory limit; a page that
kills or hangs its worker becomes an error record, and its group is resumed without it
(`_drive`). Without limits and with one worker a group runs in this process, unguarded: the
library's fast path. Both run the same steps (`_steps`).

A poison page costs only itself, however many a group has: a failure that names the page
(or fit) it happened in is progress, and the group goes on; only failures that make no
progress (`MAX_STALLS` in a row) give the rest of a group up. What a retry costs stays
linear in the group: it reads the pages not yet tried before those known to parse (each
good page is read at most twice, not once per poison page), and after a first failure the
retry keeps its fitted model in a file (`Kept`), so later failures cost a worker's restart,
not another fit.

Warnings (`sitesift.weak`) travel with the outcomes rather than through `warnings.warn`,
which a worker process would keep to itself: `Outcome.fit_warnings` (the group's fit: too few
pages, several sites), `Outcome.warnings` (the page's own) and `Fitted.warnings`;
`WarningTally` counts them for a report.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from selectolax.lexbor import SelectolaxError

from sitesift.datasets import load_page
from sitesift.errors import InputError, SitesiftError
from sitesift.guards import Busy, Limits, Lost, PageTimeout, Supervisor, time_limit
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.output import BLOCKS, Output, finish
from sitesift.page import Page
from sitesift.result import Result
from sitesift.timing import Stopwatch
from sitesift.weak import add_warning, emptied, emptied_warning, quiet_fits

HANDLER = "sitesift.batch:process_group"
# Worker failures in a row that make no progress (blame no new page or fit, and send no new
# outcome) before the rest of a group is given up: such a failure would come again on
# every retry. A failure that blames a page removes that page, so it cannot recur.
MAX_STALLS = 3
# Pages larger than this are cleaned but not fitted on (here and in the crawl): a template is
# learnt from ordinary pages, and one giant page (a 9 MB page costs ~350 MB of tree) could
# cost the whole site its model through the fit's time or memory limit.
FIT_MAX_BYTES = 4 * 1024 * 1024
FALLBACK = "default"
"""The cleaner of a page that a fitted site model emptied (`sitesift.weak.emptied`: it read
the whole page as template): a method that cleans a page alone. The crawl's is its
`fallback` setting, which also cleans its sites too small to fit."""


@dataclass(frozen=True, slots=True)
class Source:
    """One input page: a file, a row of a dataset's index, or bytes held in memory
    (`data`, decoded with `content_type`: a crawl record). An input found unreadable while
    the inputs were listed (a bad index line, an unreadable folder) carries its `error`:
    loading it fails with that, so it gets its error record like any page."""

    id: str
    path: str
    row: dict[str, Any] = field(default_factory=dict)
    dataset: str | None = None
    data: bytes | None = None
    content_type: str | None = None
    error: str | None = None

    def load(self) -> Page:
        if self.error is not None:
            raise InputError(f"{self.id}: {self.error}")
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
    # What the fit of the model that cleaned this page warned of (`Cleaner.fit_warnings`:
    # too few pages, several sites), the same for every page of its group (or fold).
    fit_warnings: tuple[str, ...] = ()

    @property
    def warnings(self) -> list[str]:
        """This page's own warnings (`Result.warnings`: a page scripts would fill in)."""
        return self.result.warnings if self.result is not None else []


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
class Kept:
    """Worker -> parent: fold `fold`'s fitted model, saved at `path` for the retries of its
    group, with what the fit cost each page (wall and CPU ms) and warned of."""

    fold: int
    path: str
    fit: tuple[float, float]
    warnings: tuple[str, ...]


@dataclass(slots=True)
class GroupTask:
    """One site group's work, and what earlier tries learnt: pages that killed or hung a
    worker (`poison`), fits that did (`fit_failed`, by fold), pages whose outcome was sent
    (`done`), pages that could not be read (`unread`, not worth parsing again), pages that
    were read without harm (`parsed`, read last), and the models fitted by an earlier try
    (`kept`, by fold). `scratch` is a folder for kept models, `stalls` the failures in a
    row without progress, `tries` the tries before this one."""

    group: str
    sources: list[Source]
    method: str
    params: dict[str, Any]
    model: str | None = None  # a model file to clean with instead of fitting
    output: Output = BLOCKS  # what each result carries (sitesift.output)
    folds: int = 1
    save: str | None = None  # fit mode: fit on every readable page, write it here, clean none
    fallback: str | None = FALLBACK  # cleans the pages a site model empties (None: nobody)
    done: frozenset[int] = frozenset()
    unread: frozenset[int] = frozenset()
    poison: dict[int, str] = field(default_factory=dict)
    fit_failed: dict[int, str] = field(default_factory=dict)
    parsed: frozenset[int] = frozenset()
    kept: dict[int, Kept] = field(default_factory=dict)
    scratch: str | None = None
    stalls: int = 0
    tries: int = 0


@dataclass(frozen=True, slots=True)
class Out:
    """Worker -> parent: the outcome of page `index` of the group."""

    index: int
    outcome: Outcome
    unread: bool = False  # the page could not even be loaded


@dataclass(frozen=True, slots=True)
class Fitted:
    """Fit mode's last message: the model file written (or why not), from how many pages."""

    path: str
    pages: int
    seconds: float
    error: str | None = None
    warnings: tuple[str, ...] = ()  # the fit's (`Cleaner.fit_warnings`)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SitesiftError):
        return str(exc)
    if isinstance(exc, MemoryError):  # an address-space limit (sitesift.guards) was reached
        return "out of memory: the page needs more than the worker's memory limit"
    if isinstance(exc, SelectolaxError):  # what Lexbor raises when an allocation fails
        return f"the HTML parser failed ({exc}): out of memory?"
    return f"internal error ({type(exc).__name__}): {exc}"


def _error(task: GroupTask, index: int, reason: str) -> Outcome:
    src = task.sources[index]
    return Outcome(src.id, task.group, error=reason, source=src.row)


def _fit_unit(fold: int) -> int:
    return -1 - fold  # Busy units: pages are 0.., a fold's fit (or loading the model) below 0


def _steps(task: GroupTask, limits: Limits | None) -> Iterator[Busy | Out | Fitted | Kept]:
    """The group's work, in a guarded worker (with `limits`) or in this process (without):
    one Out for every page not yet done, announced by Busy messages for the supervisor."""
    page_s, fit_s = (limits.page_seconds, limits.fit_seconds) if limits else (0.0, 0.0)
    # In a worker a MemoryError ends the worker (its heap is not to be trusted); the parent
    # then records the page it was busy with. In this process it is the page's error.
    keep: tuple[type[BaseException], ...] = (MemoryError,) if limits else ()
    n = len(task.sources)
    for i in sorted(task.poison):
        if i not in task.done:
            yield Out(i, _error(task, i, task.poison[i]))
    todo = [i for i in range(n) if i not in task.done and i not in task.poison]
    fallback = (None if task.fallback is None else
                held(lambda: fallback_cleaner(task.fallback or "", task.method, task.params)))
    cleaner: Cleaner | None = None
    try:
        if task.model is None:
            cleaner = get_cleaner(task.method, **task.params)
    except Exception as exc:  # an unknown method or bad parameters: every page says so
        yield from _failed_prep(task, _reason(exc), todo)
        return
    if task.save is None and (cleaner is None or not cleaner.site_level):
        if cleaner is None:  # a fitted model from a file, the same for every page
            if 0 in task.fit_failed:
                yield from _failed_prep(task, task.fit_failed[0], todo)
                return
            loaded = yield from _load_fitted(task.model or "", 0, fit_s, keep)
            if isinstance(loaded, str):
                yield from _failed_prep(task, loaded, todo)
                return
            cleaner = loaded
        for i in todo:  # one page at a time: nothing is held but the page being cleaned
            yield from _clean(task, i, cleaner, None, page_s, keep, fallback=fallback)
        return
    assert cleaner is not None
    if task.save is not None:
        if 0 in task.fit_failed:
            yield Fitted(task.save, 0, 0.0, task.fit_failed[0])
            return
    elif not todo:
        return
    folds = task.folds if task.folds > 1 and task.save is None else 1
    if task.save is None and {i % folds for i in todo} <= task.kept.keys():
        # an earlier try kept the model of every page left: nothing to read all of, or fit
        yield from _clean_kept(task, todo, folds, (page_s, fit_s), keep, fallback)
        return
    # Site-level: every readable page of the group is needed for the fits. They count
    # against the worker's memory limit like anything else (`_held` keeps each small): a
    # limit that grew with the group would be no limit (8,282 pages once made 300 MiB 13 GB).
    pages = yield from _read_all(task, page_s, keep)
    if task.save is not None:
        for i, page in list(pages.items()):
            if len(page.html) > FIT_MAX_BYTES:
                del pages[i]
                if i not in task.done:
                    why = (f"not fitted on: {len(page.html):,} characters, over the limit of "
                           f"{FIT_MAX_BYTES:,} for a fit")
                    yield Out(i, _error(task, i, why))
        yield Busy(_fit_unit(0), "fit", fit_s)
        yield _fit_and_save(task.save, cleaner, list(pages.values()), fit_s, keep)
        return
    for fold in range(folds):  # page i is in fold i % folds, whatever failed before it
        test = [i for i in pages if i % folds == fold and i not in task.done]
        if not test:
            continue
        if fold in task.fit_failed:
            yield from _failed_prep(task, task.fit_failed[fold], test)
            continue
        train = [p for i, p in pages.items()
                 if (folds == 1 or i % folds != fold) and len(p.html) <= FIT_MAX_BYTES]
        got = yield from _fold_model(task, fold, train, fit_s, keep)
        if isinstance(got, str):
            yield from _failed_prep(task, got, test)
            continue
        for i in test:
            yield from _clean(task, i, got[0], pages[i], page_s, keep, got[1], fallback)


def _read_all(task: GroupTask, seconds: float, keep: tuple[type[BaseException], ...]
              ) -> Generator[Busy | Out, None, dict[int, Page]]:
    """Every readable page of the group, held for the fits, in input order (as a fit sees
    them); an Out for each page that cannot be read."""
    pages: dict[int, Page] = {}
    for i in _parse_order(task):
        yield Busy(i, "parse", seconds)
        try:
            with time_limit(seconds):
                pages[i] = _held(task.sources[i].load())
        except keep:
            raise
        except Exception as exc:
            if i not in task.done:
                yield Out(i, _error(task, i, _reason(exc)), unread=True)
    return {i: pages[i] for i in sorted(pages)}


def _failed_prep(task: GroupTask, why: str, indices: Iterable[int]) -> Iterator[Out]:
    for i in indices:
        yield Out(i, _error(task, i, f"preparing the {task.method} model failed: {why}"))


def _parse_order(task: GroupTask) -> list[int]:
    """The pages a fit reads, those not yet tried first: a retry then meets the next poison
    page before it reads again the pages an earlier try read without harm, so that each
    good page is read at most twice however many poison pages its group holds."""
    todo = [i for i in range(len(task.sources)) if i not in task.poison and i not in task.unread]
    return [i for i in todo if i not in task.parsed] + [i for i in todo if i in task.parsed]


Fit = tuple[float, float]  # a fit's wall and CPU ms per page it was fitted on


def _fold_model(task: GroupTask, fold: int, train: list[Page], fit_s: float,
                keep: tuple[type[BaseException], ...]
                ) -> Generator[Busy | Kept, None, tuple[Cleaner, Fit] | str]:
    """Fold `fold`'s model (kept by an earlier try, or fitted on `train`), or why not. A
    retry keeps what it fits (`Kept`): a group that loses a worker once may lose more, and
    each later loss then costs a restart, not a fit."""
    kept = task.kept.get(fold)
    if kept is not None:
        loaded = yield from _load_fitted(kept.path, fold, fit_s, keep)
        if isinstance(loaded, str):
            return loaded
        loaded.fit_warnings = kept.warnings  # the fit's, which the model file does not hold
        return loaded, kept.fit
    yield Busy(_fit_unit(fold), "fit", fit_s)
    watch = Stopwatch()
    try:
        with time_limit(fit_s, "fit"), quiet_fits():  # carried to the outcomes
            model = get_cleaner(task.method, **task.params).fit(train)
    except keep:
        raise
    except Exception as exc:
        return _reason(exc)
    fit = (watch.ms / max(len(train), 1), watch.cpu_ms / max(len(train), 1))
    if task.tries and task.scratch is not None:
        yield Busy(_fit_unit(fold), "keeping the model", fit_s)
        path = _saved(model, task.scratch, fit_s, keep)
        if path is not None:
            yield Kept(fold, path, fit, model.fit_warnings)
    return model, fit


def _saved(model: Cleaner, folder: str, fit_s: float, keep: tuple[type[BaseException], ...]
           ) -> str | None:
    """The model saved in `folder` for the retries (None where it cannot be: they refit)."""
    from sitesift.model_io import save_model

    try:
        fd, path = tempfile.mkstemp(prefix="fold-", suffix=".json", dir=folder)
        os.close(fd)
        with time_limit(fit_s, "keeping the model"):
            save_model(model, path)
    except keep:
        raise
    except Exception:  # a method without a saved form, a full disk: the retries refit
        return None
    return path


def _load_fitted(path: str, fold: int, fit_s: float, keep: tuple[type[BaseException], ...]
                 ) -> Generator[Busy, None, Cleaner | str]:
    """A fitted model from its file, under the fit's time limit; or why not."""
    yield Busy(_fit_unit(fold), "loading the model", fit_s)
    try:
        from sitesift.model_io import load_model

        with time_limit(fit_s, "loading the model"):
            return load_model(path)
    except keep:
        raise
    except Exception as exc:
        return _reason(exc)


def _clean_kept(task: GroupTask, todo: list[int], folds: int,
                seconds: tuple[float, float], keep: tuple[type[BaseException], ...],
                fallback: Callable[[], Cleaner] | None) -> Iterator[Busy | Out | Kept]:
    """The pages left, each read and cleaned alone with its fold's kept model."""
    models: dict[int, tuple[Cleaner, Fit] | str] = {}
    for i in todo:
        fold = i % folds
        if fold in task.fit_failed:
            yield from _failed_prep(task, task.fit_failed[fold], [i])
            continue
        if fold not in models:
            models[fold] = yield from _fold_model(task, fold, [], seconds[1], keep)
        got = models[fold]
        if isinstance(got, str):
            yield from _failed_prep(task, got, [i])
            continue
        yield from _clean(task, i, got[0], None, seconds[0], keep, got[1], fallback)


def _held(page: Page) -> Page:
    """The page with its whole tree read out of the parser, which then frees its Lexbor
    document: a site group holds every page for its fit, and each document keeps ~1 MiB of
    address space (measured: 7,000 small pages held lazily, 7.2 GB; read out, 0.37 GB).
    The fit reads every node of these pages anyway. Pages too large to fit on stay lazy."""
    if len(page.html) <= FIT_MAX_BYTES:
        for _ in page.root.iter():
            pass
    return page


def _fit_and_save(path: str, cleaner: Cleaner, pages: list[Page], fit_s: float,
                  keep: tuple[type[BaseException], ...]) -> Fitted:
    if not pages:
        return Fitted(path, 0, 0.0, "no readable pages")
    watch = Stopwatch()
    try:
        from sitesift.model_io import save_model

        with time_limit(fit_s, "fit"), quiet_fits():  # carried to Fitted
            cleaner.fit(pages)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        save_model(cleaner, path)
    except keep:
        raise
    except Exception as exc:
        return Fitted(path, len(pages), watch.ms / 1000, _reason(exc))
    return Fitted(path, len(pages), watch.ms / 1000, warnings=cleaner.fit_warnings)


def _clean(task: GroupTask, index: int, cleaner: Cleaner, page: Page | None, seconds: float,
           keep: tuple[type[BaseException], ...], fit: tuple[float, float] = (0.0, 0.0),
           fallback: Callable[[], Cleaner] | None = None) -> Iterator[Busy | Out]:
    src = task.sources[index]
    yield Busy(index, "clean" if page is not None else "page", seconds)
    try:
        with time_limit(seconds):
            outcome = clean_source(cleaner, task.group, src, page, task.output,
                                   passthrough=keep, fallback=fallback)
    except PageTimeout as exc:  # the timer went off outside clean_source's own handler
        outcome = Outcome(src.id, task.group, error=str(exc), source=src.row)
    outcome.fit_ms, outcome.fit_cpu_ms = fit  # wall and CPU ms
    outcome.fit_warnings = cleaner.fit_warnings
    yield Out(index, outcome)


def process_group(task: GroupTask, config: object, limits: Limits
                  ) -> Iterator[Busy | Out | Fitted | Kept]:
    """The worker side (a `Supervisor` handler)."""
    return _steps(task, limits)


def prepare_worker() -> None:
    """The crawl's worker preparation (heavy imports before the memory limit is set)."""
    from sitesift.sitework import prepare_worker as prepare

    prepare()


def _after_loss(task: GroupTask, lost: Lost, done: set[int], unread: set[int],
                kept: dict[int, Kept] | None = None) -> GroupTask | None:
    """The task to retry after its worker died or hung (None: give the rest up). A loss
    that blames a page or a fit removes it from the retry, and one that follows new
    outcomes has moved on: both are progress. Only MAX_STALLS losses in a row without
    progress, which would recur on every retry, end the group."""
    busy = lost.busy
    blamed = busy is not None and (busy.unit not in task.poison if busy.unit >= 0
                                   else -1 - busy.unit not in task.fit_failed)
    stalls = 0 if blamed or len(done) > len(task.done) else task.stalls + 1
    if stalls >= MAX_STALLS:
        return None
    retry = replace(task, done=frozenset(done), unread=frozenset(unread),
                    kept={**task.kept, **(kept or {})}, stalls=stalls, tries=task.tries + 1)
    if busy is None:  # between pages: nothing to blame, so just try again
        return retry
    if busy.unit < 0:  # a fit, or loading the model: the pages it was for become errors
        retry.fit_failed = {**task.fit_failed, -1 - busy.unit: lost.reason}
        return retry
    retry.poison = {**task.poison, busy.unit: lost.reason}
    if busy.stage == "parse":  # the pages read before it were harmless: read them last
        order = _parse_order(task)
        if busy.unit in order:
            retry.parsed = task.parsed | frozenset(order[:order.index(busy.unit)])
    return retry


def _drive(supervisor: Supervisor[GroupTask], tasks: Iterable[GroupTask]
           ) -> Iterator[tuple[GroupTask, Out | Fitted | None]]:
    """(task, Out) for every page, (task, Fitted) in fit mode and (task, None) when a group
    is complete, resuming groups whose worker failed. The models that retries keep live in
    a temporary folder, each removed when its group is complete."""
    done: dict[str, set[int]] = {}
    unread: dict[str, set[int]] = {}
    kept: dict[str, dict[int, Kept]] = {}
    scratch: list[str] = []  # made at the first loss
    try:
        for task, message in supervisor.run(tasks):
            seen = done.setdefault(task.group, set(task.done))
            bad = unread.setdefault(task.group, set(task.unread))
            if isinstance(message, Out):
                if message.index not in seen:
                    seen.add(message.index)
                    if message.unread:
                        bad.add(message.index)
                    yield task, message
            elif isinstance(message, Kept):
                kept.setdefault(task.group, {})[message.fold] = message
            elif isinstance(message, Fitted):
                yield task, message
            elif isinstance(message, Lost):
                retry = _after_loss(task, message, seen, bad, kept.get(task.group))
                if retry is not None:
                    if not scratch:
                        scratch.append(tempfile.mkdtemp(prefix="sitesift-kept-"))
                    supervisor.retry(replace(retry, scratch=scratch[0]))
                    continue
                yield from _abandon(task, seen, message.reason)
                _forget(kept.pop(task.group, {}))
            else:  # END
                _forget(kept.pop(task.group, {}))
                yield task, None
    finally:
        for folder in scratch:
            shutil.rmtree(folder, ignore_errors=True)


def _abandon(task: GroupTask, seen: set[int], reason: str
             ) -> Iterator[tuple[GroupTask, Out | Fitted | None]]:
    why = (f"group abandoned after {MAX_STALLS} worker failures in a row without progress; "
           f"the last: {reason}")
    for i in range(len(task.sources)):
        if i not in seen:
            yield task, Out(i, _error(task, i, why))
    if task.save is not None:
        yield task, Fitted(task.save, 0, 0.0, why)
    yield task, None


def _forget(kept: dict[int, Kept]) -> None:
    """Remove a complete group's kept models (a long batch keeps no more than it needs)."""
    for model in kept.values():
        Path(model.path).unlink(missing_ok=True)


def _in_order(task: GroupTask, got: dict[int, Outcome]) -> list[Outcome]:
    """The group's outcomes in input order; a page without one (never expected) is an error,
    so that no input goes missing from the batch."""
    return [got.get(i) or _error(task, i, "internal error: no outcome was produced")
            for i in range(len(task.sources))]


def clean_group(method: str, params: dict[str, Any], group: str, sources: Sequence[Source],
                model: str | None = None, output: Output = BLOCKS, folds: int = 1,
                fallback: str | None = FALLBACK) -> list[Outcome]:
    """Load, fit (site-level methods) and clean one site group in this process; with
    `model` (a model file), clean with that fitted model instead of fitting one.
    `output` says what each result carries (`sitesift.output.Output`: `noise=False` keeps
    only the content blocks, faster, for text output; metadata, renderings, the title).
    With `folds` > 1 every page is cleaned by a model fitted on the other folds of its
    group (page i is in fold i % folds), which measures how a saved site model does on
    pages it never saw. `fallback` cleans a page that a site model emptied (`FALLBACK`;
    None leaves such a page empty: an evaluation of the method alone)."""
    task = GroupTask(group, list(sources), method, params, model, output, folds,
                     fallback=fallback)
    got = {m.index: m.outcome for m in _steps(task, None) if isinstance(m, Out)}
    return _in_order(task, got)


def clean_source(cleaner: Cleaner, group: str, src: Source, page: Page | None = None,
                 output: Output = BLOCKS,
                 passthrough: tuple[type[BaseException], ...] = (),
                 fallback: Callable[[], Cleaner] | None = None) -> Outcome:
    """One input cleaned with a prepared cleaner (loading it unless `page` is given), as one
    Outcome: the per-page step of the batch and the crawl, each page under its own guard.
    Exceptions of the `passthrough` types propagate (a worker whose memory ran out is
    restarted, rather than go on with a heap it cannot trust). The result is finished as
    `output` asks (`sitesift.output.finish`: metadata, renderings, title), timed with the
    cleaning. A page that a site-level `cleaner` empties is cleaned by `fallback` (made on
    first need), and says so (`_refill`)."""
    try:
        if page is None:
            page = src.load()
        watch = Stopwatch()
        result = cleaner.clean(page, noise=output.noise)
        if fallback is not None and cleaner.site_level and emptied(page, result):
            result = _refill(page, result, cleaner, fallback(), output)
        result = finish(result, page, output)
    except passthrough:
        raise
    except Exception as exc:  # recorded, never swallowed: the batch edge
        return Outcome(src.id, group, error=_reason(exc), source=src.row)
    return Outcome(src.id, group, result=result, ms=watch.ms, cpu_ms=watch.cpu_ms,
                   source=src.row)


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


def fallback_cleaner(name: str, method: str, params: dict[str, Any]) -> Cleaner:
    """A new, unfitted `name` cleaner: with `params` when it is `method` itself (`default`
    cleaning a page alone keeps the settings it has on the site), with its defaults
    otherwise (another method's settings are not its own)."""
    return get_cleaner(name, **(params if name == method else {}))


T = TypeVar("T")


def held(make: Callable[[], T]) -> Callable[[], T]:
    """`make`, called on first need only and its value kept: a fallback cleaner loads its
    model when a page needs it, not for every group."""
    kept: list[T] = []

    def get() -> T:
        if not kept:
            kept.append(make())
        return kept[0]
    return get


def run_groups(groups: dict[str, list[Source]], method: str, params: dict[str, Any] | None = None,
               *, model: str | None = None, workers: int = 1, progress: bool = False,
               output: Output = BLOCKS, folds: int = 1, limits: Limits | None = None,
               fallback: str | None = FALLBACK) -> Iterator[Outcome]:
    """Clean every group, yielding each group's outcomes in input order; guarded (see the
    module docstring) with `limits` or `workers` > 1; `folds` and `fallback` as in
    `clean_group`."""
    params = params or {}
    tasks = [GroupTask(name, list(sources), method, params, model, output, folds,
                       fallback=fallback) for name, sources in groups.items()]
    bar = _progress(sum(len(t.sources) for t in tasks), progress)
    try:
        if limits is None and workers <= 1:
            for task in tasks:
                for outcome in clean_group(method, params, task.group, task.sources, model,
                                           output, folds, fallback):
                    bar.update(1)
                    yield outcome
            return
        # Largest groups first, so one big site does not finish last on its own.
        tasks.sort(key=lambda t: -len(t.sources))
        supervisor = _supervisor(max(1, workers), limits or Limits())
        pending: dict[str, dict[int, Outcome]] = {}
        for task, message in _drive(supervisor, tasks):
            got = pending.setdefault(task.group, {})
            if isinstance(message, Out):
                got[message.index] = message.outcome
                bar.update(1)
            elif message is None:
                yield from _in_order(task, pending.pop(task.group))
    finally:
        bar.close()


_POOL: dict[tuple[int, Limits], Supervisor[GroupTask]] = {}


def _supervisor(workers: int, limits: Limits) -> Supervisor[GroupTask]:
    """Guarded workers kept from one batch to the next (one pool, until exit): `evaluate`
    runs a batch per method and corpus, and a spawned worker's start-up (NumPy, SciPy, ...
    imported) costs about a second of CPU. Workers are started only as tasks need them."""
    key = (workers, limits)
    if key not in _POOL:
        close_workers()
        atexit.unregister(close_workers)  # registered once
        atexit.register(close_workers)
        _POOL[key] = Supervisor(HANDLER, None, workers, limits, keep_workers=True)
    return _POOL[key]


def close_workers() -> None:
    """Stop the workers kept between batches (at exit, or to free their memory now)."""
    for supervisor in _POOL.values():
        supervisor.close()
    _POOL.clear()


@dataclass(slots=True)
class FitReport:
    """What `fit_sources` did: the model it wrote (unless `error`) and the unreadable inputs:
    inputs = pages + len(errors)."""

    fitted: Fitted
    errors: list[Outcome]


def fit_sources(sources: Sequence[Source], method: str, params: dict[str, Any], path: str | Path,
                limits: Limits | None = None) -> FitReport:
    """Fit a site-level model on `sources` and save it at `path`; guarded with `limits`."""
    task = GroupTask("fit", list(sources), method, params, save=str(path))
    messages: Iterable[tuple[GroupTask, object]]
    if limits is None:
        messages = ((task, m) for m in _steps(task, None))
    else:
        messages = _drive(_supervisor(1, limits), [task])
    errors: list[Outcome] = []
    fitted = Fitted(str(path), 0, 0.0, "the fit ended without a result")
    for _, message in messages:
        if isinstance(message, Out):
            errors.append(message.outcome)
        elif isinstance(message, Fitted):
            fitted = message
    return FitReport(fitted, errors)


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
