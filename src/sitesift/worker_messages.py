"""The messages of a guarded worker's protocol (`sitesift.guards`): what a worker tells its
supervisor (`Busy`, `Then`, `Last`, `Retire`) and what the supervisor tells its caller
(`Lost`, `END`). Kept apart from the supervisor, which imports them (and offers them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Busy:
    """Worker -> supervisor: starting `unit` (e.g. a page's number), for at most `seconds`."""

    unit: int
    stage: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Lost:
    """Supervisor -> caller: the task's worker failed while busy with `busy` (None: between
    units); what it had sent before stays valid. `retired`: it did not fail but stopped
    itself after a time limit interrupted `busy`, whose outcome it had sent (`Retire`)."""

    busy: Busy | None
    reason: str
    retired: bool = False


@dataclass(frozen=True, slots=True)
class Retire:
    """Worker -> supervisor: a time limit interrupted `busy` in this worker (`reason`), so
    it stops, after the unit's outcome and before the next unit: `complete` if its task
    has nothing left, else a fresh worker is to take the rest."""

    busy: Busy | None
    reason: str
    complete: bool


class End:
    """Supervisor -> caller: the task is complete."""


@dataclass(frozen=True, slots=True)
class Then:
    """Worker -> supervisor: an output (the outcome of the unit the worker was busy with)
    and the announcement of the next unit, in one message instead of two: a run of pages
    sends one message a page. A handler yields it only where nothing runs between the two
    (the next unit's work, reading its input included, starts after), so the output can
    wait for the announcement; the supervisor yields the output, then takes the `busy`."""

    message: object
    busy: Busy


@dataclass(frozen=True, slots=True)
class Last:
    """Worker -> supervisor: the handler's last message; the worker sends it with the
    task's end (`End`), one message instead of two (a site of one page sends three)."""

    message: object


END = End()
