"""Running site tasks: in this process (the library's fast path) or in the guarded pool.

`RunSettings` is how a run is carried out, passed down whole by every command: worker
processes, their limits, and a progress bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sitesift.guards import Limits, Lost
from sitesift.jobs.outcome import Fitted, Out, SiteDone
from sitesift.jobs.pool import borrowed
from sitesift.jobs.retry import Event, drive
from sitesift.jobs.site import steps
from sitesift.jobs.task import SiteTask


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How a run is carried out. With `limits`, or with more than one worker, each site is
    a task for guarded worker processes (`sitesift.guards`): every page parsed and cleaned
    under a time limit, every fit under its own, each worker under a memory limit, a page
    that kills or hangs its worker an error record. Without limits and with one worker a
    site runs in this process, unguarded."""

    workers: int = 1
    limits: Limits | None = None
    progress: bool = False  # a progress bar on stderr

    @property
    def guarded(self) -> bool:
        return self.limits is not None or self.workers > 1


LOCAL = RunSettings()  # in this process, unguarded, quiet: the library's default


def run_sites(tasks: Iterable[SiteTask], settings: RunSettings,
              on_lost: Callable[[SiteTask, Lost], None] | None = None) -> Iterator[Event]:
    """(task, Out) for every page, (task, Fitted) in fit mode, (task, SiteDone) per site."""
    if not settings.guarded:
        for task in tasks:
            for message in steps(task, None):
                if isinstance(message, Out | Fitted | SiteDone):
                    yield task, message
        return
    with borrowed(settings.workers, settings.limits or Limits()) as supervisor:
        yield from drive(supervisor, tasks, on_lost)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress_bar(total: int, enabled: bool, unit: str = "page", desc: str | None = None
                 ) -> Any:
    """A tqdm bar on stderr, or one that shows nothing (tqdm not even imported: 0.04 s of
    a quiet crawl's CPU); either is a context manager."""
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, dynamic_ncols=True)
