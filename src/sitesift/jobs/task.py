"""One site task: a site's pages and policy, and what earlier tries of it learnt."""

from __future__ import annotations

from dataclasses import dataclass, field

from sitesift.jobs.outcome import Kept
from sitesift.jobs.policy import SitePolicy
from sitesift.jobs.source import Pages


@dataclass(slots=True)
class SiteTask:
    """One site's pages and policy, and what earlier tries learnt: pages that killed or hung
    a worker (`poison`), fits that did (`fit_failed`, by fold), pages whose outcome was sent
    (`done`), pages that could not be read (`unread`, not worth parsing again), pages that
    were read without harm (`parsed`, read last), and the models fitted by an earlier try
    (`kept`, by fold). `scratch` is a folder for kept models, `blind_losses` the failures
    in a row that blamed nothing, `tries` the tries before this one."""

    site: str
    pages: Pages
    policy: SitePolicy
    done: frozenset[int] = frozenset()
    unread: frozenset[int] = frozenset()
    poison: dict[int, str] = field(default_factory=dict)
    fit_failed: dict[int, str] = field(default_factory=dict)
    parsed: frozenset[int] = frozenset()
    kept: dict[int, Kept] = field(default_factory=dict)
    scratch: str | None = None
    blind_losses: int = 0
    tries: int = 0
