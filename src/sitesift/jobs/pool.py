"""The one pool of guarded worker processes every job runs its site tasks in.

Workers are kept from one run to the next (one pool per worker count and limits, until
exit): `evaluate` runs a batch per method and corpus, a Spark executor a task per
partition, and a spawned worker's start-up (NumPy, SciPy, ... imported) costs about a
second of CPU. Workers are started only as tasks need them.
"""

from __future__ import annotations

import atexit
from collections.abc import Iterator
from contextlib import contextmanager

from sitesift.guards import Limits, Supervisor
from sitesift.jobs.task import SiteTask

HANDLER = "sitesift.jobs.site:process_site"
_POOL: dict[tuple[int, Limits], Supervisor[SiteTask]] = {}
_LENT: set[int] = set()  # the kept pools a run is using now


@contextmanager
def borrowed(workers: int, limits: Limits) -> Iterator[Supervisor[SiteTask]]:
    """The kept pool for a run; a pool of its own (closed after it) while the kept one is
    in use, by a run left unfinished (a generator not read to its end) or nested in this
    one: two runs never share workers."""
    kept = pool(workers, limits)
    if id(kept) in _LENT:
        own: Supervisor[SiteTask] = Supervisor(HANDLER, None, max(1, workers), limits)
        try:
            yield own
        finally:
            own.close()
        return
    _LENT.add(id(kept))
    try:
        yield kept
    finally:
        _LENT.discard(id(kept))


def pool(workers: int, limits: Limits) -> Supervisor[SiteTask]:
    """The kept workers for `workers` and `limits` (another pool in use is closed first)."""
    key = (max(1, workers), limits)
    if key not in _POOL:
        close_workers()
        atexit.unregister(close_workers)  # registered once
        atexit.register(close_workers)
        _POOL[key] = Supervisor(HANDLER, None, key[0], limits, keep_workers=True)
    return _POOL[key]


def close_workers() -> None:
    """Stop the kept workers (at exit, or to free their memory now)."""
    for supervisor in _POOL.values():
        supervisor.close()
    _POOL.clear()


def prepare_worker() -> None:
    """Import what cleaning loads lazily, so the worker's memory limit counts pages only:
    the default cleaner's module (the crawl's method and every job's fallback), which
    cleans and fits without NumPy (a site fit's repeated-page check is the core's).
    The other methods' modules (the old prepare imported them all: 0.12-0.15 s of CPU a
    worker, which a default crawl never uses) are imported by the first task that names
    one, under the limit: 1.9 MiB of address space for all of them together; the libraries
    a method names (`Cleaner.imports`: NumPy's 79 MiB for all but the default cleaner, 0.1 s
    of CPU a worker that a default crawl no longer pays) when the worker warms it, outside
    the limit (`memory.outside_limit`)."""
    from sitesift.methods.base import get_class

    get_class("default")
