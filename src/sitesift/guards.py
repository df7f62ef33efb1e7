"""Per-page time and memory limits, and worker processes that survive pathological pages.

Two layers, because a timer cannot interrupt C code:

- inside a worker, `time_limit` arms an interval timer around one page; Python code that
  runs too long gets `PageTimeout`, and the page becomes an error record;
- outside, `Supervisor` runs tasks in spawned worker processes, each with an address-space
  limit (RLIMIT_AS). A worker announces each unit of work with `Busy`; one that stays silent
  past the unit's budget plus a grace period (stuck in a parser), or dies (a failed
  allocation in C, a segfault), is killed and restarted, and the caller learns which unit
  it was working on, so that unit alone can be recorded as an error and the task retried.

A timer's exception lands wherever the page happens to be: in the middle of an `import` (the
module is dropped from `sys.modules`, but the submodules it had already imported stay, and
the next import of it fails: scipy.ndimage's "name '_ndimage_api' is not defined") or of a
library's own bookkeeping. So a worker whose page (or fit) a time limit interrupted is not
trusted with another: it finishes the unit's record, then stops before the next unit
(`Retire`) and a fresh worker takes the rest of its task; and the job loads what its
methods import lazily before any page's clock starts (`Cleaner.warm`).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import math
import multiprocessing as mp
import os
import pickle
import select
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from sitesift.errors import SitesiftError
from sitesift.memory import address_space
from sitesift.worker_messages import END, Busy, End, Last, Lost, Retire, Then

# BLAS and OpenMP pools would start one thread per core in every worker: the workers are
# the parallelism, and idle pools only inflate the address space the memory limit counts.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class PageTimeout(SitesiftError):
    """A page (or a site's fit) ran past its time limit."""


MAX_SECONDS = 1e6  # the interval timer overflows not far past 1e9 s; 11 days is ample
MAX_MEMORY_MB = 1 << 24  # 16 TiB: beyond it the address-space limit would overflow


@dataclass(frozen=True, slots=True)
class Limits:
    """How long and how large one unit of work may get."""

    page_seconds: float = 10.0  # decode, parse and clean one page
    fit_seconds: float = 300.0  # fit one site's model on its sample
    memory_mb: int = 2048  # address space a worker may add to what it has at start
    grace_seconds: float = 5.0  # then the supervisor kills the worker (C code ignores timers)
    startup_seconds: float = 180.0  # a new worker imports NumPy, SciPy, ... on a busy machine

    def __post_init__(self) -> None:
        for name in ("page_seconds", "fit_seconds", "grace_seconds", "startup_seconds"):
            value = getattr(self, name)
            # nan passes every comparison, inf overflows the timer: both fail every page
            if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
                raise ValueError(f"{name} must be a number of seconds above 0 and at most "
                                 f"{MAX_SECONDS:g}, not {value!r}")
        if not 0 <= self.memory_mb <= MAX_MEMORY_MB:
            raise ValueError(f"memory_mb must be from 0 (no limit) to {MAX_MEMORY_MB}, "
                             f"not {self.memory_mb!r}")


_INTERRUPTED: list[str] = []  # what a time limit interrupted in this process, in order


def interrupted() -> str | None:
    """Why this process's code was interrupted by a time limit (`time_limit`), if it ever
    was: the exception may have landed anywhere, in an import or in a library's state, so a
    worker that answers here is retired rather than trusted with another page."""
    return _INTERRUPTED[-1] if _INTERRUPTED else None


@contextlib.contextmanager
def time_limit(seconds: float, what: str = "page") -> Iterator[None]:
    """Raise PageTimeout in this block after `seconds` (main thread only; elsewhere no-op)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    message = f"{what} exceeded the time limit of {seconds:g} s"
    expired = False

    def expire(signum: int, frame: object) -> None:
        nonlocal expired
        expired = True
        _INTERRUPTED.append(message)  # before the raise: whatever catches it, it is known
        raise PageTimeout(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except PageTimeout:
        raise
    except Exception:
        # The timer's exception can land in code that swallows it (asyncio's callbacks,
        # an event listener of Playwright's): what then ends the block is the timeout.
        if expired:
            raise PageTimeout(message) from None
        raise
    else:
        if expired:
            raise PageTimeout(message)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


MEMORY_POLL_SECONDS = 1.0  # how often a busy worker's memory is looked at (with a limit)


def _ready(conns: list[Connection], timeout: float) -> list[Connection]:
    """The connections with a message (or EOF) to read, waiting up to `timeout` seconds:
    `multiprocessing.connection.wait` (and `Connection.poll`, which calls it) builds a
    selector per call, about a third of the supervisor's CPU at two messages a page."""
    poller = select.poll()
    for conn in conns:
        poller.register(conn.fileno(), select.POLLIN)  # (POLLHUP and POLLERR come anyway)
    ready = {fd for fd, _ in poller.poll(math.ceil(timeout * 1000))}
    return [conn for conn in conns if conn.fileno() in ready]


def limit_memory(memory_mb: int) -> None:
    """Let this process grow by `memory_mb` MiB of address space: past it, allocations fail
    (MemoryError in Python; a crash in C, which the supervisor turns into an error record)."""
    if memory_mb <= 0:
        return
    import resource

    base = address_space()
    if base == 0:
        return
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    limit = base + memory_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
ORPHAN_POLL_SECONDS = 0.5


def parent_identity() -> tuple[int, bool]:
    """What a process started from here passes to `die_with_parent`."""
    return os.getpid(), threading.current_thread() is threading.main_thread()


def die_with_parent(parent: int, from_main_thread: bool) -> None:
    """End this process (a worker) as soon as `parent` dies, however it dies: a SIGKILLed
    crawl must not leave workers that go on writing into its folder under its rerun.
    Nothing in multiprocessing does this (daemon processes are ended by a parent's normal
    exit only; a pool notices dead workers, not a dead parent). On Linux the kernel sends
    SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG): at once, and without a thread.
    But it watches the *thread* that started the process, so where that was not the main
    thread (a library caller's thread may end before its workers), or off Linux, a daemon
    thread polls for a new parent instead. `from_main_thread`: whether the parent started
    this process from its main thread. A parent that died before this ran is seen too."""
    armed = False
    if from_main_thread and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:
        os._exit(1)
    if armed:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="sitesift-orphan-watch", daemon=True).start()


def _at_memory_limit(pid: int) -> bool:
    """Is the process's address space within 5% of its limit? A worker out of memory with a
    large heap often spins (in the allocator and the garbage collector) instead of failing,
    so the time limit stops it, and its error record should say why it was slow."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        with open(f"/proc/{pid}/limits") as fh:
            for line in fh:
                if line.startswith("Max address space"):
                    soft = line.split()[3]
                    return soft != "unlimited" and size >= 0.95 * int(soft)
    except (OSError, ValueError, IndexError):
        pass
    return False


T = TypeVar("T")


def _worker_main(conn: Connection, handler_ref: str, config_blob: bytes, limits: Limits,
                 parent: tuple[int, bool]) -> None:
    die_with_parent(*parent)
    for var in _THREAD_VARS:  # before anything imports NumPy
        os.environ.setdefault(var, "1")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the supervisor's to handle
    module_name, _, name = handler_ref.partition(":")
    module = importlib.import_module(module_name)
    handler = getattr(module, name)
    config = pickle.loads(config_blob)
    if (prepare := getattr(module, "prepare_worker", None)) is not None:
        prepare()  # heavy imports before the limit: it is meant for pages, not libraries
    limit_memory(limits.memory_mb)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            busy: Busy | None = None  # the unit the handler is on
            last: Last | None = None  # held, to go with the task's end
            for message in handler(task, config, limits):
                if last is not None:  # (not the last after all: sent as it is)
                    conn.send(last.message)
                    last = None
                if isinstance(message, Busy | Then):
                    if (why := interrupted()) is not None:  # the last unit was cut short
                        if isinstance(message, Then):  # its outcome still goes
                            conn.send(message.message)
                        conn.send(Retire(busy, why, complete=False))
                        return
                    busy = message if isinstance(message, Busy) else message.busy
                elif isinstance(message, Last):
                    last = message
                    continue
                conn.send(message)
            if (why := interrupted()) is not None:
                if last is not None:
                    conn.send(last.message)
                conn.send(Retire(busy, why, complete=True))
                return
            conn.send(last if last is not None else END)
        except MemoryError:  # the heap is not to be trusted now: a fresh worker takes over
            conn.send(Lost(None, f"out of memory (limit {limits.memory_mb} MiB)"))
            return
        except Exception as exc:  # a bug in the handler: reported, and a fresh worker follows
            conn.send(Lost(None, f"internal error ({type(exc).__name__}): {exc}"))
            return


@dataclass(slots=True)
class _Worker(Generic[T]):
    proc: Any
    conn: Connection
    task: T | None = None
    busy: Busy | None = None
    deadline: float = float("inf")
    started: bool = False  # has answered at least once
    full_since: float | None = None  # when it was first seen at its memory limit
    memory_seen: float = -math.inf  # when its memory was last looked at


class Supervisor(Generic[T]):
    """Run tasks through `handler` ("module:function", called as handler(task, config,
    limits) and yielding messages) in up to `workers` spawned processes. A module-level
    `prepare_worker()` beside the handler runs first, before the memory limit is set.

    `run` yields (task, message) for every message a handler yields, (task, END) when a task
    is done, and (task, Lost) when its worker died or hung, or retired after a time limit
    (`Lost.retired`); the caller may then `retry` a changed task (it runs next). Busy
    messages are consumed here: they set the deadline. A handler may pair an output with
    the next unit's Busy (`Then`) and mark its last message (`Last`): the caller sees the
    output (and END) as if sent apart.
    """

    def __init__(self, handler: str, config: object, workers: int, limits: Limits,
                 keep_workers: bool = False) -> None:
        self.handler = handler
        self.config_blob = pickle.dumps(config)
        self.workers = max(1, workers)
        self.limits = limits
        # keep_workers: idle workers outlive `run`, for callers that run many small batches
        # (a Spark task per partition) and would otherwise pay a worker's start-up each time
        self.keep_workers = keep_workers
        self._pool: list[_Worker[T]] = []
        self._retries: deque[T] = deque()
        self.retired = 0  # workers stopped after a time limit, for the record
        self._ctx = mp.get_context("spawn")  # no inherited threads, locks or BLAS pools

    def close(self) -> None:
        """Stop the workers kept between runs."""
        for worker in self._pool:
            self._stop(worker, kill=worker.task is not None)
        self._pool.clear()

    def retry(self, task: T) -> None:
        self._retries.append(task)

    def _start(self) -> _Worker[T]:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_worker_main, daemon=True,
                                 args=(child, self.handler, self.config_blob, self.limits,
                                       parent_identity()))
        proc.start()
        child.close()  # so that the worker's death reads as EOF here
        return _Worker(proc, parent)

    def _stop(self, worker: _Worker[T], kill: bool) -> None:
        if kill:
            worker.proc.kill()
        else:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        worker.proc.join(timeout=None if kill else 10)
        if worker.proc.is_alive():
            worker.proc.kill()
            worker.proc.join()
        worker.conn.close()

    def _death(self, worker: _Worker[T], killed: bool, full: bool = False,
               early: bool = False) -> str:
        busy = worker.busy
        # a negative unit is no page nor fit (the warm-up, `jobs.model.WARM_UNIT`)
        what = ("between pages" if busy is None else busy.stage if busy.unit < 0
                else f"{busy.stage} of unit {busy.unit}")
        if early:
            return (f"out of memory: {what} kept the worker at its memory limit of "
                    f"{self.limits.memory_mb} MiB for {self.limits.grace_seconds:g} s; stopped")
        if killed and busy is not None:
            return (f"{busy.stage} exceeded the time limit of {busy.seconds:g} s "
                    f"(worker stopped after {busy.seconds + self.limits.grace_seconds:g} s"
                    + (f"; it was at its memory limit of {self.limits.memory_mb} MiB"
                       if full else "") + ")")
        if killed:
            return f"worker did not answer in time ({what}); stopped"
        code = worker.proc.exitcode
        how = signal.Signals(-code).name if code is not None and code < 0 else f"exit {code}"
        return (f"worker died ({how}) during {what}; memory limit "
                f"{self.limits.memory_mb} MiB")

    def run(self, tasks: Iterable[T]) -> Iterator[tuple[T, object]]:
        self._retries.clear()  # a run given up part-way must not hand its retries to the next
        pending = iter(tasks)
        pool = self._pool
        exhausted = False
        try:
            while True:
                for worker in [w for w in pool if w.task is None] + [None] * (
                        self.workers - len(pool)):
                    if self._retries:
                        task = self._retries.popleft()
                    elif not exhausted:
                        nxt = next(pending, None)
                        if nxt is None:
                            exhausted = True
                            break
                        task = nxt
                    else:
                        break
                    if worker is None:
                        worker = self._start()
                        pool.append(worker)
                    worker.task, worker.busy, worker.full_since = task, None, None
                    worker.conn.send(task)
                    budget = (self.limits.page_seconds if worker.started
                              else self.limits.startup_seconds)
                    worker.deadline = time.monotonic() + budget + self.limits.grace_seconds
                active = [w for w in pool if w.task is not None]
                if not active:
                    return
                timeout = max(0.0, min(w.deadline for w in active) - time.monotonic())
                if self.limits.memory_mb > 0:
                    timeout = min(timeout, MEMORY_POLL_SECONDS)
                ready = set(_ready([w.conn for w in active], timeout))
                for worker in active:
                    if worker.conn in ready:
                        yield from self._receive(worker, pool)
                    elif time.monotonic() > worker.deadline:
                        yield from self._lose(worker, pool, killed=True)
                    elif self._stuck_at_memory_limit(worker):
                        yield from self._lose(worker, pool, killed=True, early=True)
        finally:
            for worker in list(pool):
                if worker.task is not None or not self.keep_workers:
                    self._stop(worker, kill=worker.task is not None)
                    pool.remove(worker)

    def _receive(self, worker: _Worker[T], pool: list[_Worker[T]]) -> Iterator[tuple[T, object]]:
        for _ in range(256):  # drain what is there, but let other workers have their turn
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                yield from self._lose(worker, pool, killed=False)
                return
            worker.started, worker.full_since = True, None  # it answers: not stuck
            task = worker.task
            assert task is not None
            now = time.monotonic()
            if isinstance(message, Busy):
                worker.busy = message
                worker.deadline = now + message.seconds + self.limits.grace_seconds
            elif isinstance(message, Lost):  # the handler failed; its worker has quit
                lost = Lost(worker.busy, message.reason)
                self._stop(worker, kill=False)
                pool.remove(worker)
                yield task, lost
                return
            elif isinstance(message, Retire):  # it stops: a time limit cut a unit short
                self._stop(worker, kill=False)
                pool.remove(worker)
                self.retired += 1
                yield task, (END if message.complete
                             else Lost(message.busy, message.reason, retired=True))
                return
            elif isinstance(message, End):
                worker.task = None
                yield task, END
                return
            elif isinstance(message, Last):  # the handler's last output, and the end
                worker.busy, worker.task = None, None
                yield task, message.message
                yield task, END
                return
            else:  # an output: the unit it belongs to is complete
                worker.busy = None
                worker.deadline = now + self.limits.page_seconds + self.limits.grace_seconds
                if isinstance(message, Then):  # and the next one begun
                    worker.busy = message.busy
                    worker.deadline = now + message.busy.seconds + self.limits.grace_seconds
                    message = message.message
                yield task, message
            if not _ready([worker.conn], 0):
                return

    def _stuck_at_memory_limit(self, worker: _Worker[T]) -> bool:
        """Has the worker stayed at its memory limit for the grace period? Such a worker
        seldom recovers: it spins in the allocator until its time limit, which for a page
        is many seconds of nothing (see `_at_memory_limit`). Looked at once per
        MEMORY_POLL_SECONDS a worker, as a lone worker's wait times out: beside a second
        worker, whose every message ends a wait, it would be two reads of /proc a message."""
        if self.limits.memory_mb <= 0:
            return False
        now = time.monotonic()
        if now - worker.memory_seen < min(MEMORY_POLL_SECONDS, self.limits.grace_seconds / 4):
            return False
        worker.memory_seen = now
        if not _at_memory_limit(worker.proc.pid):
            worker.full_since = None
            return False
        if worker.full_since is None:
            worker.full_since = now
        return now - worker.full_since >= self.limits.grace_seconds

    def _lose(self, worker: _Worker[T], pool: list[_Worker[T]],
              killed: bool, early: bool = False) -> Iterator[tuple[T, object]]:
        task = worker.task
        full = killed and _at_memory_limit(worker.proc.pid)
        if killed:
            worker.proc.kill()
        worker.proc.join()
        reason = self._death(worker, killed, full, early)
        busy = worker.busy
        self._stop(worker, kill=True)
        pool.remove(worker)
        assert task is not None
        yield task, Lost(busy, reason)
