"""The local batch: pages grouped by site, one model fitted per group, every page cleaned.

Every input yields exactly one Outcome: a Result or an error naming the input and the
reason. Errors of sitesift's own kinds become records; anything else (a bug) is recorded
too, with its type, so one bad page never stops the batch and nothing is dropped silently.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.datasets import load_page
from sitesift.errors import SitesiftError
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.page import Page
from sitesift.result import Result


@dataclass(frozen=True, slots=True)
class Source:
    """One input page: a file, or a row of a dataset's index."""

    id: str
    path: str
    row: dict[str, Any] = field(default_factory=dict)
    dataset: str | None = None

    def load(self) -> Page:
        if self.dataset is not None:
            return load_page(Path(self.dataset), self.row)
        page = Page.from_file(self.path, url=self.row.get("url"), site=self.row.get("site"),
                              id=self.id)
        page.meta.update(self.row)
        return page


@dataclass(slots=True)
class Outcome:
    id: str
    group: str
    result: Result | None = None
    error: str | None = None
    ms: float = 0.0
    source: dict[str, Any] = field(default_factory=dict)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SitesiftError):
        return str(exc)
    return f"internal error ({type(exc).__name__}): {exc}"


def clean_group(method: str, params: dict[str, Any], group: str, sources: Sequence[Source],
                model: str | None = None, noise: bool = True) -> list[Outcome]:
    """Load, fit (site-level methods) and clean one site group; with `model` (a model file),
    clean with that fitted model instead of fitting one. `noise=False` keeps only the
    content blocks in the results (faster, for text output)."""
    outcomes: dict[str, Outcome] = {}
    pages: list[tuple[Source, Page]] = []
    for src in sources:
        try:
            pages.append((src, src.load()))
        except Exception as exc:  # recorded, never swallowed: the batch edge
            outcomes[src.id] = Outcome(src.id, group, error=_reason(exc), source=src.row)
    cleaner: Cleaner | None = None
    fit_error: str | None = None
    try:
        if model is not None:
            from sitesift.model_io import load_model

            cleaner = load_model(model)
        else:
            cleaner = get_cleaner(method, **params)
            if cleaner.site_level:
                cleaner.fit([p for _, p in pages])
    except Exception as exc:
        fit_error = f"preparing the {method} model failed: {_reason(exc)}"
    for src, page in pages:
        if fit_error is not None or cleaner is None:
            outcomes[src.id] = Outcome(src.id, group, error=fit_error, source=src.row)
            continue
        start = time.perf_counter()
        try:
            result = cleaner.clean(page, noise=noise)
            outcomes[src.id] = Outcome(src.id, group, result=result,
                                       ms=(time.perf_counter() - start) * 1000, source=src.row)
        except Exception as exc:
            outcomes[src.id] = Outcome(src.id, group, error=_reason(exc), source=src.row)
    return [outcomes[s.id] for s in sources]


def run_groups(groups: dict[str, list[Source]], method: str, params: dict[str, Any] | None = None,
               *, model: str | None = None, workers: int = 1, progress: bool = False,
               noise: bool = True) -> Iterator[Outcome]:
    """Clean every group (in parallel processes when workers > 1), yielding outcomes."""
    params = params or {}
    total = sum(len(v) for v in groups.values())
    bar = _progress(total, progress)
    try:
        if workers <= 1:
            for name, sources in groups.items():
                for outcome in clean_group(method, params, name, sources, model, noise):
                    bar.update(1)
                    yield outcome
            return
        # Largest groups first, so one big site does not finish last on its own.
        order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(clean_group, method, params, name, sources, model, noise): (
                    name, sources)
                for name, sources in order
            }
            for future in as_completed(futures):
                name, sources = futures[future]
                try:
                    outcomes = future.result()
                except Exception as exc:  # a worker died: every page of the group is reported
                    outcomes = [Outcome(s.id, name, error=f"worker failed: {_reason(exc)}",
                                        source=s.row) for s in sources]
                for outcome in outcomes:
                    bar.update(1)
                    yield outcome
    finally:
        bar.close()


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="page", dynamic_ncols=True)
