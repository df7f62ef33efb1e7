"""Driving site tasks through guarded workers, and retrying a site whose worker died.

A poison page costs only itself, however many a site has: a failure that names the page
(or fit) it happened in removes it from the retry, so it cannot recur, and the site goes
on. A failure that blames nothing is a blind loss; `MAX_BLIND_LOSSES` of them in a row
(outcomes sent since the last try start a new row) give the rest of the site up, with an
error record for each page left. What a retry costs stays linear in the site: it reads the
pages not yet tried before those known to parse (`model.parse_order`), and after a first
failure it keeps its fitted model in a file (`Kept`), so later failures cost a worker's
restart, not another fit. The kept models live in a temporary folder, each removed when its
site is complete.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from sitesift.errors import SitesiftError
from sitesift.guards import END, Busy, Lost, Supervisor
from sitesift.jobs.model import WARM_UP, parse_order
from sitesift.jobs.outcome import Fitted, Kept, Out, Outcome, SiteDone
from sitesift.jobs.source import each
from sitesift.jobs.task import SiteTask

# Worker failures in a row that blame no page or fit, with no outcome sent between them,
# before the rest of a site is given up: such a failure would come again on every retry.
MAX_BLIND_LOSSES = 3

Event = tuple[SiteTask, Out | Fitted | SiteDone]


def after_loss(task: SiteTask, lost: Lost, done: set[int], unread: set[int],
               kept: dict[int, Kept] | None = None) -> SiteTask | None:
    """The task to retry after its worker died or hung (None: give the rest up). A loss
    that blames a page or a fit removes it from the retry: progress. One that blames
    nothing is blind; MAX_BLIND_LOSSES in a row end the site, a row being broken by a
    blamed loss or by outcomes sent since the last try. A worker retired after a time
    limit (`Lost.retired`) failed at nothing: it recorded the unit cut short (a page's
    error; a fit's failure, which the retry keeps as a worker's death is kept) before it
    stopped, and the rest goes on in a fresh worker."""
    busy = lost.busy
    if lost.retired and busy is not None and busy.unit >= 0:
        return _after_retire(task, busy, done, unread, kept)
    blamed = busy is not None and busy.stage != WARM_UP and (
        busy.unit not in task.poison if busy.unit >= 0
        else -1 - busy.unit not in task.fit_failed)
    moved = len(done) > len(task.done)
    blind = 0 if blamed or lost.retired else 1 if moved else task.blind_losses + 1
    if blind >= MAX_BLIND_LOSSES:
        return None
    retry = replace(task, done=frozenset(done), unread=frozenset(unread),
                    kept={**task.kept, **(kept or {})}, blind_losses=blind,
                    tries=task.tries + 1)
    if busy is None or not blamed:  # nothing (new) to blame, so just try again
        return retry
    if busy.unit < 0:  # a fit, or loading the model: the pages it was for become errors
        retry.fit_failed = {**task.fit_failed, -1 - busy.unit: lost.reason}
        return retry
    retry.poison = {**task.poison, busy.unit: lost.reason}
    if busy.stage == "parse":  # the pages read before it were harmless: read them last
        order = parse_order(task)
        if busy.unit in order:
            retry.parsed = task.parsed | frozenset(order[:order.index(busy.unit)])
    return retry


def _after_retire(task: SiteTask, busy: Busy, done: set[int], unread: set[int],
                  kept: dict[int, Kept] | None) -> SiteTask:
    """The retry after a worker retired because a time limit cut page `busy.unit` short.
    Its worker recorded the page (an error record; one read for the fit left out of it), so
    nothing is blamed and the rest goes on as that worker would have: a page cut short while
    read for the fit stays out of the fit (`unread`), one cut short while cleaned stays in
    it (the model is the one an uninterrupted run fits)."""
    if busy.stage == "parse":
        unread = unread | {busy.unit}
        order = parse_order(task)  # the pages read before it were harmless: read them last
        if busy.unit in order:
            task = replace(task, parsed=task.parsed | frozenset(order[:order.index(busy.unit)]))
    return replace(task, done=frozenset(done), unread=frozenset(unread),
                   kept={**task.kept, **(kept or {})}, blind_losses=0, tries=task.tries + 1)


def drive(supervisor: Supervisor[SiteTask], tasks: Iterable[SiteTask],
          on_lost: Callable[[SiteTask, Lost], None] | None = None) -> Iterator[Event]:
    """(task, Out) for every page of every task, (task, Fitted) in fit mode and then
    (task, SiteDone) once per site, resuming sites whose worker failed."""
    done: dict[str, set[int]] = {}
    unread: dict[str, set[int]] = {}
    kept: dict[str, dict[int, Kept]] = {}
    last: dict[str, SiteDone] = {}
    scratch: list[str] = []  # made at the first loss
    try:
        for task, message in supervisor.run(tasks):
            seen = done.setdefault(task.site, set(task.done))
            bad = unread.setdefault(task.site, set(task.unread))
            if isinstance(message, Out):
                if message.index not in seen:
                    seen.add(message.index)
                    if message.unread:
                        bad.add(message.index)
                    yield task, message
            elif isinstance(message, Kept):
                kept.setdefault(task.site, {})[message.fold] = message
            elif isinstance(message, Fitted):
                yield task, message
            elif isinstance(message, SiteDone):
                last[task.site] = message
            elif isinstance(message, Lost):
                if on_lost is not None:
                    on_lost(task, message)
                retry = after_loss(task, message, seen, bad, kept.get(task.site))
                if retry is not None:
                    if not scratch:
                        scratch.append(tempfile.mkdtemp(prefix="sitesift-kept-"))
                    supervisor.retry(replace(retry, scratch=scratch[0]))
                    continue
                yield from abandon(task, seen, message.reason)
                _forget(kept.pop(task.site, {}))
                last.pop(task.site, None)
            elif message is END:
                _forget(kept.pop(task.site, {}))
                finished = last.pop(task.site, None)
                yield task, finished or SiteDone(task.site, len(task.pages),
                                                 task.policy.method, "fit-only")
    finally:
        for folder in scratch:
            shutil.rmtree(folder, ignore_errors=True)


def abandon(task: SiteTask, seen: set[int], reason: str) -> Iterator[Event]:
    """An error for each page of a site given up on (from what can still be read of it),
    then its Fitted (in fit mode) and SiteDone."""
    why = (f"abandoned after {MAX_BLIND_LOSSES} worker failures in a row without progress; "
           f"the last: {reason}")
    left = [i for i in range(len(task.pages)) if i not in seen]
    try:
        for i, src in each(task.pages, left):
            seen.add(i)
            yield task, Out(i, Outcome(src.id, task.site, error=why, source=src.row),
                            stage="worker")
    except SitesiftError:  # unreadable spill files: still one record each
        pass
    for i in left:
        if i not in seen:
            yield task, Out(i, Outcome(f"{task.site}:{i}", task.site, error=why), stage="worker")
    if task.policy.save is not None:
        yield task, Fitted(task.policy.save, 0, 0.0, why)
    yield task, SiteDone(task.site, len(task.pages), "", "abandoned", reason)


def _forget(kept: dict[int, Kept]) -> None:
    """Remove a complete site's kept models (a long run keeps no more than it needs)."""
    for model in kept.values():
        Path(model.path).unlink(missing_ok=True)
