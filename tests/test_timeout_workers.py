"""A page that runs out of time costs only itself (issue 52): no page after it fails because
the time limit interrupted something its worker keeps.

A time limit's exception lands wherever the page is. In an `import` it leaves the package's
submodules behind and the next import of it fails (SciPy's "name '_ndimage_api' is not
defined" after one page ran out of time during SciPy's first import: 29 error records more).
`slowpkg`, written here, does the same: its first import takes 30 s, and once interrupted
every later import fails with a NameError. The worker that ran out of time is retired
(`sitesift.guards.Retire`), and what the methods import lazily is imported before any
page's clock starts (`Cleaner.warm`).

The pages and methods are defined here and registered inside the workers, which import
this module to unpickle the sources (as in `test_hostile_batch`).
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sitesift.batch import RunSettings, SitePolicy, Source, run_groups
from sitesift.cli import SAMPLE_SITE
from sitesift.guards import Busy, Limits, Lost
from sitesift.inputs import collect_sources
from sitesift.jobs.pool import close_workers
from sitesift.jobs.retry import after_loss
from sitesift.jobs.task import SiteTask
from sitesift.methods.alltext import AllText
from sitesift.methods.base import get_class, method_names, register
from sitesift.page import Page
from sitesift.result import Result

SITE = "harbourgazette.example"
LIMITS = Limits(page_seconds=0.5, grace_seconds=5.0)

PACKAGE = {
    "__init__.py": '''
import os
import time

from ._wrap import *  # binds slowpkg._api as a side effect, as SciPy's helpers do

_flag = os.environ.get("SLOWPKG_FLAG", "")
if _flag and os.path.exists(_flag):  # slow the first time only (a cold disk, a busy machine)
    os.unlink(_flag)
    time.sleep(30)
del _api  # as scipy.ndimage deletes the name its helper bound: fails on a second import
''',
    "_wrap.py": "from . import _api\n\nVALUE = _api.VALUE\n",
    "_api.py": 'VALUE = "imported"\n',
}
SLOW = "import time\n\ntime.sleep(2)  # every time: a library that takes seconds to import\n"


@pytest.fixture
def slow_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`slowpkg` (slow on its first import only: the flag file) and `slowmod` (2 s on every
    import) on the path of fresh workers (a spawned worker takes this process's path)."""
    root = tmp_path / "lib"
    (root / "slowpkg").mkdir(parents=True)
    for name, text in PACKAGE.items():
        (root / "slowpkg" / name).write_text(text)
    (root / "slowmod.py").write_text(SLOW)
    flag = tmp_path / "first-import"
    flag.touch()
    monkeypatch.setenv("SLOWPKG_FLAG", str(flag))
    monkeypatch.syspath_prepend(str(root))
    close_workers()  # none that imported another test's copy
    yield flag
    close_workers()


@dataclass(frozen=True, slots=True)
class Importing(Source):
    """A page of the sample site whose loading imports `slowpkg`, as a lazy import in
    decoding or parsing would: the page that meets its first import runs out of time in
    it, whatever the method."""

    def load(self) -> Page:
        import slowpkg  # type: ignore[import-not-found]

        page = Source.load(self)  # (a slots dataclass: no zero-argument super)
        page.meta["slowpkg"] = slowpkg.VALUE
        return page


@dataclass(frozen=True, slots=True)
class Here(Source):
    """A good page of the sample site; it brings this module (and so the test methods) into
    the worker that unpickles it."""


class ImportsWhenCleaning(AllText):
    """alltext, whose cleaning imports `slowmod` (2 s) on first use."""

    name = "test-imports-when-cleaning"

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        import slowmod  # type: ignore[import-not-found]  # noqa: F401

        return super().clean(page, noise=noise)


class DeclaresItsImports(AllText):
    """alltext, which names `slowmod` (2 s) among its imports and never cleans a page that
    imports it: `Cleaner.warm` imports it."""

    name = "test-declares-its-imports"
    imports = ("slowmod",)

    def warm(self) -> None:  # only what it declares: no clean of the bundled page
        import importlib

        for name in self.imports:
            importlib.import_module(name)

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        if "slowmod" not in sys.modules:
            raise AssertionError("cleaned before its imports were warmed")
        return super().clean(page, noise=noise)


if multiprocessing.parent_process() is not None:  # a worker: never the test session's registry
    register(ImportsWhenCleaning)
    register(DeclaresItsImports)


def _pages(cls: type[Source] = Source, n: int = 8) -> list[Source]:
    sources = next(iter(collect_sources(SAMPLE_SITE, "site").values()))[:n]
    return [cls(s.id, s.path, s.row, s.dataset) for s in sources]


def _run(method: str, sources: list[Source]) -> dict[str, Any]:
    outcomes = {o.id: o for o in run_groups({SITE: sources}, method,
                                            RunSettings(limits=LIMITS))}
    assert len(outcomes) == len(sources)
    return outcomes


BROWSER = {name for name in method_names() if get_class(name).needs_browser}


@pytest.mark.parametrize("method", [m for m in method_names() if m not in BROWSER])
def test_a_page_out_of_time_in_an_import_costs_only_itself(method: str,
                                                           slow_imports: Path) -> None:
    """The first page runs out of time in `slowpkg`'s first import; each later page imports
    it too, which in the same worker would fail with a NameError (an internal error) on
    every page. Every method: site-level ones meet it while reading the fit's pages."""
    sources = _pages(Importing)
    outcomes = _run(method, sources)
    first = outcomes[sources[0].id]
    assert "exceeded the time limit of 0.5 s" in str(first.error), first.error
    for src in sources[1:]:
        got = outcomes[src.id]
        assert "internal error" not in str(got.error), got.error
        assert got.result is not None, got.error
    assert not slow_imports.exists()  # the first import did run (and was interrupted)


@pytest.mark.parametrize("method", ["test-imports-when-cleaning", "test-declares-its-imports"])
def test_imports_a_method_makes_are_made_before_the_pages_clock(method: str,
                                                                slow_imports: Path) -> None:
    """A method whose first clean imports a module that takes 2 s (found by the warm-up's
    clean of a bundled page), and one that names it in `imports`: under a limit of 0.5 s
    a page, every page is cleaned."""
    sources = _pages(Here, 4)
    outcomes = _run(method, sources)
    assert all(o.result is not None for o in outcomes.values()), [
        o.error for o in outcomes.values()]


def test_a_retired_worker_blames_nothing_and_keeps_the_fit_as_it_was() -> None:
    """After a retirement the task goes on as its worker would have: the page cut short
    while cleaned was recorded (not poisoned, still fitted on), one cut short while read for
    the fit stays out of it, a fit cut short is a failed fit; none counts as blind."""
    task = SiteTask(SITE, _pages(Source, 6), SitePolicy("sst"))
    cleaned = after_loss(task, Lost(Busy(2, "page", 0.5), "page exceeded", retired=True),
                         {0, 1, 2}, set())
    assert cleaned is not None
    assert (cleaned.poison, cleaned.unread, cleaned.blind_losses) == ({}, frozenset(), 0)
    assert cleaned.done == {0, 1, 2}
    read = after_loss(task, Lost(Busy(3, "parse", 0.5), "page exceeded", retired=True),
                      {3}, {3})
    assert read is not None and read.unread == {3} and not read.poison
    again = after_loss(task, Lost(Busy(4, "parse", 0.5), "page exceeded", retired=True),
                       set(), set())  # read once more for the fit (it was cleaned before)
    assert again is not None and again.unread == {4} and again.blind_losses == 0
    fit = after_loss(task, Lost(Busy(-1, "fit", 300), "fit exceeded", retired=True),
                     set(), set())
    assert fit is not None and fit.fit_failed == {0: "fit exceeded"}

