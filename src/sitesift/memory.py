"""This process's address space and its soft limit (`RLIMIT_AS`), which a guarded worker
holds its pages to (`sitesift.guards.limit_memory`).

Some work is not a page's and must not meet the limit: a library's import in a worker
(NumPy reserves ~80 MiB of address space for OpenBLAS, which fails under a 200 MiB cap), or
a browser starting (Chromium and Node reserve far more virtual memory than they use; its
processes inherit the limit at start only). `outside_limit` runs such a block with the
limit lifted to the hard one, then puts it back: as it was, or grown by the address space
the block added (an import's, which the limit, meant for pages, then does not count).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


def address_space() -> int:
    """This process's current virtual size in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@contextmanager
def outside_limit(*, grow: bool = False) -> Iterator[None]:
    """Run a block beyond this process's soft address-space limit; after it the limit is
    as it was, or with `grow` higher by the address space the block added (never above
    the hard limit). Where there is no limit below the hard one, or no `resource` module,
    the block just runs."""
    try:
        import resource
    except ImportError:  # not POSIX: no limit
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == hard:
        yield
        return
    before = address_space()
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    try:
        yield
    finally:
        limit = soft + max(address_space() - before, 0) if grow else soft
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
