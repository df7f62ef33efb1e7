"""One site's work, the step of every job: get the site's model, clean each page.

`steps` runs in a guarded worker process (`process_site`, a `sitesift.guards.Supervisor`
handler: every page parsed and cleaned under a time limit, every fit under its own, the
worker under a memory limit) or in this process (no limits: the library's fast path). How
the model is had is the task's `SitePolicy`: a model file; a fit on every readable page
(per fold) or on a reproducible sample; a model store; the fallback, unfitted, for a site
it cannot fit. Each page not yet done gets one `Out`; the last message is a `SiteDone`
(fit mode's is a `Fitted`). What earlier tries learnt (`SiteTask`: pages that killed or hung
a worker, fits that did, models kept) is what `sitesift.jobs.retry` carries to the next.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator

from sitesift.errors import ModelError, reason_of
from sitesift.guards import Busy, Last, Limits, PageTimeout, Then, time_limit
from sitesift.jobs.model import (
    NO_FIT,
    WARM_UNIT,
    WARM_UP,
    Fit,
    Run,
    failed,
    fit_and_save,
    fit_unit,
    fold_model,
    load_fitted,
    read_fit_pages,
)
from sitesift.jobs.outcome import Fitted, Kept, Out, Outcome, SiteDone
from sitesift.jobs.page import clean_source, held
from sitesift.jobs.policy import FIT_MAX_BYTES
from sitesift.jobs.pool import prepare_worker  # noqa: F401 - run beside the handler
from sitesift.jobs.source import Source, each
from sitesift.jobs.task import SiteTask
from sitesift.memory import outside_limit
from sitesift.methods.base import Cleaner, get_cleaner, warm_bytes
from sitesift.output import Output
from sitesift.page import Page

Message = Busy | Then | Out | Fitted | Kept | SiteDone


def process_site(task: SiteTask, config: object, limits: Limits
                 ) -> Iterator[Message | Last]:
    """The worker side (a `Supervisor` handler): a site's SiteDone, its last message, goes
    with the task's end."""
    for message in steps(task, limits, paired=True):
        yield Last(message) if isinstance(message, SiteDone) else message


def steps(task: SiteTask, limits: Limits | None, paired: bool = False) -> Iterator[Message]:
    """The site's work, in a guarded worker (with `limits`) or in this process (without).
    `paired`: a page's Out and the next page's Busy as one `Then` (for a worker's pipe)."""
    run = Run(task, *((limits.page_seconds, limits.fit_seconds) if limits else (0.0, 0.0)),
              (MemoryError,) if limits else (), paired=paired and limits is not None)
    policy = task.policy
    todo = [i for i in range(len(task.pages)) if i not in task.done]
    try:  # (fit mode fits the method even beside a model file)
        cleaner = (get_cleaner(policy.method, **policy.params)
                   if policy.model is None or policy.save is not None else None)
    except Exception as exc:  # an unknown method or bad parameters: every page says so
        yield from failed(run, reason_of(exc), todo)
        yield SiteDone(task.site, len(task.pages), policy.method, "failed", reason_of(exc))
        return
    if policy.save is not None and cleaner is not None:
        yield from _poisoned(run, todo)
        yield from fit_and_save(run, policy.save, cleaner)
        return
    if cleaner is None or not cleaner.site_level:  # the same model for every page
        yield from _unfitted(run, todo, cleaner)
        return
    yield from _site_level(run, todo, cleaner)


def _poisoned(run: Run, todo: list[int]) -> Iterator[Out]:
    for i, src in each(run.task.pages, [i for i in todo if i in run.task.poison]):
        yield run.error(i, src, "killed a worker")  # worded by its poison entry


def _unfitted(run: Run, todo: list[int], cleaner: Cleaner | None) -> Iterator[Message]:
    """A page-level method, or a fitted model from a file: one page at a time, nothing held
    but the page being cleaned."""
    task, how = run.task, "page-level"
    if cleaner is None:
        how = "file"
        if 0 in task.fit_failed:
            loaded: Cleaner | str = task.fit_failed[0]
        else:
            loaded = yield from load_fitted(run, task.policy.model or "", 0)
        if isinstance(loaded, str):
            yield from failed(run, loaded, todo)
            yield SiteDone(task.site, len(task.pages), task.policy.method, "failed", loaded)
            return
        cleaner = loaded
    yield from _clean(run, todo, cleaner, fallback=_fallback(run))
    yield SiteDone(task.site, len(task.pages), cleaner.name, how, None, cleaner.fit_warnings)


def _fallback(run: Run) -> Callable[[], Cleaner] | None:
    policy = run.task.policy
    return None if policy.fallback is None else held(policy.fallback_cleaner)


def _below(run: Run) -> tuple[float, Callable[[], Cleaner]] | None:
    """(X, the fallback) where pages under confidence X go to the fallback, else None."""
    policy = run.task.policy
    if policy.fallback_below is None or policy.fallback is None:
        return None
    return policy.fallback_below, held(policy.fallback_cleaner)


def _no_fit(run: Run) -> str | None:
    """Why the policy's fallback cleans this site unfitted (None: it is fitted)."""
    task, policy = run.task, run.task.policy
    if not policy.fallback_sites:
        return None
    if policy.never_fit is not None and task.site == policy.never_fit:
        return "pages without a URL are cleaned one by one"
    if len(task.pages) < policy.min_site_pages:
        return f"{len(task.pages)} pages, fewer than {policy.min_site_pages}"
    if 0 in task.fit_failed:
        return f"fit stopped: {task.fit_failed[0]}"
    return None


def _by_fallback(run: Run, todo: list[int], why: str) -> Iterator[Message]:
    cleaner = run.task.policy.fallback_cleaner()
    yield from _clean(run, todo, cleaner)
    yield SiteDone(run.task.site, len(run.task.pages), cleaner.name, "fallback", why,
                   cleaner.fit_warnings)


def _site_level(run: Run, todo: list[int], cleaner: Cleaner) -> Iterator[Message]:
    task, policy = run.task, run.task.policy
    if not todo:  # a retry after the last page: nothing to fit for
        yield SiteDone(task.site, len(task.pages), policy.method, "fitted")
        return
    if (why := _no_fit(run)) is not None:
        yield from _by_fallback(run, todo, why)
        return
    folds = policy.folds
    live = [i for i in todo if i not in task.poison]
    if live and {i % folds for i in live} <= task.kept.keys():
        # an earlier try kept the model of every page left: nothing to read all of, or fit
        yield from _clean_kept(run, todo, folds)
        return
    note = None
    if policy.store is not None and folds == 1 and not policy.refit:
        from sitesift.io.models import ModelStore

        yield Busy(fit_unit(0), "loading the model", run.fit_s)
        try:
            stored = ModelStore(policy.store).load(task.site, policy.method, policy.params)
        except ModelError as exc:
            stored, note = None, f"stored model unusable, refitted: {exc}"
        if stored is not None:
            yield from _clean(run, todo, stored, fallback=_fallback(run))
            yield SiteDone(task.site, len(task.pages), stored.name, "stored", None,
                           stored.fit_warnings)
            return
    yield from warm(run, cleaner)  # its `imports`: a fit's are under a clock too
    pages = yield from read_fit_pages(run, cleaner)
    fit_on = {i: p for i, p in pages.items() if p.chars <= FIT_MAX_BYTES}
    if policy.fallback_sites and len(fit_on) < policy.min_site_pages:
        yield from _by_fallback(run, todo, f"{len(fit_on)} readable sample pages")
        return
    model: Cleaner = cleaner
    for fold in range(folds):  # page i is in fold i % folds, whatever failed before it
        test = [i for i in todo if i % folds == fold and i not in run.sent]
        if not test:
            continue
        if fold in task.fit_failed:
            yield from failed(run, task.fit_failed[fold], test)
            continue
        train = [p for i, p in fit_on.items() if folds == 1 or i % folds != fold]
        got = yield from fold_model(run, fold, train)
        if isinstance(got, str):
            if policy.fallback_sites:
                yield from _by_fallback(run, test, f"fit failed: {got}")
                return
            yield from failed(run, got, test)
            continue
        model = got[0]
        if policy.store is not None and folds == 1 and fold not in task.kept:
            note = _store(policy.store, task.site, model) or note
        yield from _clean(run, test, model, pages, got[1], _fallback(run))
    yield SiteDone(task.site, len(task.pages), model.name, "fitted", note, model.fit_warnings)


def _store(folder: str, site: str, model: Cleaner) -> str | None:
    """Save a site's model in the store; why not, if it cannot be."""
    from sitesift.io.models import ModelStore

    try:
        ModelStore(folder).save(site, model)
    except OSError as exc:
        return f"model not stored: {exc}"
    return None


def _clean_kept(run: Run, todo: list[int], folds: int) -> Iterator[Message]:
    """The pages left, each read and cleaned alone with its fold's kept model."""
    task = run.task
    models: dict[int, tuple[Cleaner, Fit] | str] = {}
    last: Cleaner | None = None
    for i in todo:
        fold = i % folds
        if i in task.poison or fold in task.fit_failed:
            yield from failed(run, task.fit_failed.get(fold, ""), [i])
            continue
        if fold not in models:
            models[fold] = yield from fold_model(run, fold, [])
        got = models[fold]
        if isinstance(got, str):
            yield from failed(run, got, [i])
            continue
        last = got[0]
        yield from _clean(run, [i], got[0], {}, got[1], _fallback(run))
    name = last.name if last is not None else task.policy.method
    yield SiteDone(task.site, len(task.pages), name, "fitted", None,
                   last.fit_warnings if last is not None else ())


_WARMED: set[tuple[type[Cleaner], bool, Output]] = set()  # in this worker process


def warm(run: Run, cleaner: Cleaner) -> Iterator[Busy]:
    """Before a guarded worker's first page with a kind of cleaner, outside any page's
    clock: `Cleaner.warm` (the modules it names), then, for a cleaner that can clean, a
    bundled page through the job's own step (decoding, its model file and lazy imports,
    the finishing step's).
    A time limit that lands in an import leaves a half-imported module that fails every
    later page of the worker; this takes the imports out of the pages' time. Announced as
    a unit that blames nothing (`WARM_UNIT`), under the fit's time limit."""
    fitted = not cleaner.site_level or cleaner.fitted
    key = (type(cleaner), fitted, run.task.policy.output)
    if run.page_s <= 0 or key in _WARMED:  # in this process, unguarded: no clock
        return
    yield Busy(WARM_UNIT, WARM_UP, run.fit_s)
    with outside_limit(grow=True):  # libraries, not pages
        cleaner.warm()
    if fitted:
        clean_source(cleaner, "", Source("warm-up", "", data=warm_bytes()), None,
                     run.task.policy.output, passthrough=run.keep)
    _WARMED.add(key)


def _clean(run: Run, indices: Iterable[int], cleaner: Cleaner, cache: dict[int, Page] | None = None,
           fit: Fit = NO_FIT, fallback: Callable[[], Cleaner] | None = None
           ) -> Iterator[Busy | Then | Out]:
    """Clean `indices` in order (those this try has not sent yet), each under its own guard:
    a page held from the fit is cleaned as it is, any other read first. Paired (a worker's
    messages), the next page's Busy goes with a page's outcome (`Then`), before the next
    page is read: nothing runs between the two."""
    task, cache = run.task, cache if cache is not None else {}
    yield from warm(run, cleaner)
    order = sorted({i for i in indices if i not in run.sent})
    following = dict(itertools.pairwise(order))
    announced = None  # the page whose Busy went with the last outcome
    for i, src in each(task.pages, order, held=frozenset(cache)):  # held: not read again
        if i in task.poison:
            yield run.error(i, src, "killed a worker")  # worded by its poison entry
            continue
        page = cache.pop(i, None)
        if announced != i:
            yield Busy(i, "clean" if page is not None else "page", run.page_s)
        try:
            with time_limit(run.page_s):
                outcome = clean_source(cleaner, task.site, src, page, task.policy.output,
                                       passthrough=run.keep, fallback=fallback,
                                       below=_below(run))
        except PageTimeout as exc:  # the timer went off outside clean_source's own handler
            outcome = Outcome(src.id, task.site, error=str(exc), source=src.row)
        outcome.fit_ms, outcome.fit_cpu_ms = fit  # wall and CPU ms
        outcome.fit_warnings = cleaner.fit_warnings
        if task.policy.pack is not None and outcome.result is not None:
            outcome.record = task.policy.pack(outcome, task.site)
            outcome.result = None
        out, announced = run.out(i, outcome), following.get(i)
        if announced is None or announced in task.poison or not run.paired:
            announced = None  # (no page follows, a poison page's error does, or no worker)
            yield out
        else:
            yield Then(out, Busy(announced, "clean" if announced in cache else "page",
                                 run.page_s))
