"""Wall-clock and CPU time of one piece of work.

Benchmarks on a shared machine need both: wall time is what a user waits, CPU time (of the
calling thread) is what other jobs on the machine do not inflate, so it is the figure to
compare methods by when the load is not ours.
"""

from __future__ import annotations

from time import perf_counter, thread_time


class Stopwatch:
    """Started when made; `ms` and `cpu_ms` read the time elapsed since (or since `restart`)."""

    __slots__ = ("_cpu", "_wall")

    def __init__(self) -> None:
        self._wall = perf_counter()
        self._cpu = thread_time()

    def restart(self) -> None:
        self._wall = perf_counter()
        self._cpu = thread_time()

    @property
    def ms(self) -> float:
        return (perf_counter() - self._wall) * 1000

    @property
    def cpu_ms(self) -> float:
        return (thread_time() - self._cpu) * 1000
