"""`clean`, `fit` and `evaluate`'s side of the job engine (`sitesift.jobs`): site groups of
sources in, one Outcome per input out, each group's in input order.

Every input yields exactly one Outcome: a Result or an error naming the input and the
reason. How each group gets its model is a `SitePolicy` (fit on every readable page of the
group, or clean with a model file; `folds` > 1 cleans each page with a model fitted on the
other folds of its group; the fallback cleans the pages a site model empties); how the run
is carried out (guarded workers, limits, progress) is a `RunSettings`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sitesift.jobs.outcome import Fitted, Out, Outcome, SiteDone, WarningTally
from sitesift.jobs.policy import FALLBACK, SitePolicy
from sitesift.jobs.run import LOCAL, RunSettings, progress_bar, run_sites
from sitesift.jobs.source import Source
from sitesift.jobs.task import SiteTask

__all__ = ["FALLBACK", "FitReport", "Outcome", "RunSettings", "SitePolicy", "Source",
           "WarningTally", "clean_group", "fit_sources", "run_groups"]


def _policy(policy: SitePolicy | str) -> SitePolicy:
    return SitePolicy(policy) if isinstance(policy, str) else policy


def clean_group(policy: SitePolicy | str, group: str, sources: Sequence[Source]
                ) -> list[Outcome]:
    """Load, fit (site-level methods) and clean one site group in this process, as
    `policy` says (a method name: its defaults)."""
    return list(run_groups({group: sources}, policy))


def run_groups(groups: Mapping[str, Sequence[Source]], policy: SitePolicy | str,
               run: RunSettings = LOCAL) -> Iterator[Outcome]:
    """Clean every group, yielding each group's outcomes in input order; guarded with
    `run.limits` or `run.workers` > 1 (`sitesift.jobs.run.RunSettings`)."""
    policy = _policy(policy)
    tasks = [SiteTask(name, list(sources), policy) for name, sources in groups.items()]
    if run.guarded:  # largest groups first, so one big site does not finish last on its own
        tasks.sort(key=lambda t: -len(t.pages))
    bar = progress_bar(sum(len(t.pages) for t in tasks), run.progress)
    pending: dict[str, dict[int, Outcome]] = {}
    try:
        for task, message in run_sites(tasks, run):
            if isinstance(message, Out):
                pending.setdefault(task.site, {})[message.index] = message.outcome
                bar.update(1)
            elif isinstance(message, SiteDone):
                yield from _in_order(task, pending.pop(task.site, {}))
    finally:
        bar.close()


def _in_order(task: SiteTask, got: dict[int, Outcome]) -> list[Outcome]:
    """The group's outcomes in input order; a page without one (never expected) is an error,
    so that no input goes missing from the batch."""
    sources = task.pages
    assert isinstance(sources, list)
    return [got.get(i) or Outcome(src.id, task.site, error="internal error: no outcome was "
                                  "produced", source=src.row) for i, src in enumerate(sources)]


@dataclass(slots=True)
class FitReport:
    """What `fit_sources` did: the model it wrote (unless `error`) and the unreadable inputs:
    inputs = pages + len(errors)."""

    fitted: Fitted
    errors: list[Outcome]


def fit_sources(sources: Sequence[Source], policy: SitePolicy | str, path: str | Path,
                run: RunSettings = LOCAL) -> FitReport:
    """Fit a site-level model on `sources` and save it at `path` (fit mode of the engine)."""
    from dataclasses import replace

    task = SiteTask("fit", list(sources), replace(_policy(policy), save=str(path)))
    errors: list[Outcome] = []
    fitted = Fitted(str(path), 0, 0.0, "the fit ended without a result")
    for _, message in run_sites([task], replace(run, workers=1)):
        if isinstance(message, Out):
            errors.append(message.outcome)
        elif isinstance(message, Fitted):
            fitted = message
    return FitReport(fitted, errors)
