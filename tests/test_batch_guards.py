"""Guards and accounting in the local batch: `sitesift clean`, `fit` and `evaluate`.

Every input ends as exactly one result or one error record (or, in `evaluate`, is skipped
with a reason); a page that runs away with time or memory becomes an error record and its
site group is finished without it.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from sitesift.batch import (
    Outcome,
    RunSettings,
    SitePolicy,
    Source,
    clean_group,
    fit_sources,
    run_groups,
)
from sitesift.cli import SAMPLE_SITE, main
from sitesift.datasets import read_index, read_page_bytes
from sitesift.guards import END, Busy, Limits, Lost, PageTimeout, Supervisor, time_limit
from sitesift.inputs import collect_sources
from sitesift.jobs.outcome import Out, SiteDone
from sitesift.jobs.retry import MAX_BLIND_LOSSES, drive
from sitesift.jobs.task import SiteTask
from sitesift.model_io import load_model
from tests.test_crawl import huge_page

ROWS = read_index(SAMPLE_SITE)[:6]
SITE = "harbourgazette.example"
# The limits of `--page-timeout 1`: every test but the last uses them, and so one worker
# (kept between batches) serves them all.
QUICK = Limits(page_seconds=1.0)


def _runaway() -> bytes:
    """Seconds of parsing and hundreds of MB of tree, declared to be a page of the site."""
    return (f'<link rel="canonical" href="https://www.{SITE}/huge">'.encode()
            + huge_page(200_000))


def _folder(root: Path, runaway: bool) -> Path:
    """Six pages of the sample site, an unreadable one, an empty one, and a runaway page of
    the same site."""
    root.mkdir()
    for row in ROWS:
        (root / f"{row['id']}.html").write_bytes(read_page_bytes(SAMPLE_SITE, row))
    (root / "binary.html").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (root / "empty.html").write_bytes(b"")
    if runaway:
        (root / "huge.html").write_bytes(_runaway())
    return root


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _folder(tmp_path_factory.mktemp("in") / "pages", runaway=True)


@pytest.fixture(scope="module")
def light(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same without the runaway page: the commands' accounting, quickly."""
    return _folder(tmp_path_factory.mktemp("in") / "pages", runaway=False)


def _runaway_site(folder: Path, limits: Limits, words: tuple[str, ...]) -> None:
    groups = collect_sources(folder, "site")
    outcomes = {o.id: o for o in run_groups(groups, "sst", RunSettings(limits=limits))}
    assert len(outcomes) == sum(len(v) for v in groups.values()) == 9
    huge = outcomes["huge"]
    assert huge.result is None and any(w in str(huge.error) for w in words), huge.error
    assert outcomes["binary"].error and "binary input" in outcomes["binary"].error
    # the site was fitted and cleaned without the runaway page: as if it had never been there
    good = [s for s in groups[SITE] if s.id != "huge"]
    alone = {o.id: o for o in clean_group("sst", SITE, good)}
    for src in good:
        got, want = outcomes[src.id].result, alone[src.id].result
        assert got is not None and want is not None and got.text == want.text


def test_slow_page_in_a_site_group_becomes_an_error_record(folder: Path) -> None:
    _runaway_site(folder, QUICK, ("time limit",))


def test_guarded_batch_equals_the_in_process_one() -> None:
    groups = collect_sources(SAMPLE_SITE, "site")
    for folds in (1, 3):
        plain = list(run_groups(groups, SitePolicy("sst", folds=folds)))
        guarded = list(run_groups(groups, SitePolicy("sst", folds=folds),
                                  RunSettings(limits=QUICK)))
        assert [o.id for o in guarded] == [o.id for o in plain]  # input order, per group
        assert [o.result.text for o in guarded if o.result] == [
            o.result.text for o in plain if o.result]
        assert len(plain) == 30 and all(o.result for o in plain)


def test_fit_skips_runaway_pages_and_accounts(folder: Path, tmp_path: Path) -> None:
    groups = collect_sources(folder, "none")
    sources = [s for members in groups.values() for s in members]
    report = fit_sources(sources, "sst", tmp_path / "m.sst.json", RunSettings(limits=QUICK))
    assert report.fitted.error is None and report.fitted.pages == 6
    assert sorted(o.id for o in report.errors) == ["binary", "empty", "huge"]
    assert len(sources) == report.fitted.pages + len(report.errors)
    assert load_model(tmp_path / "m.sst.json").name == "sst"


def test_fit_command_reports_its_accounting(light: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fit", str(light), "--out", str(tmp_path / "m.json"), "--page-timeout", "1"]
                ) == 0
    err = capsys.readouterr().err
    assert "8 inputs = 6 pages fitted on + 2 errors" in err
    # each skipped input named once, by its file
    assert "skipped " + str(light / "empty.html") + ": empty input" in err
    assert "skipped " + str(light / "binary.html") + ": binary input" in err


def test_clean_command_accounts_for_every_input(light: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    # exit 1: two inputs gave no result (their records say why)
    assert main(["clean", str(light), "--method", "sst", "--out", str(out), "--workers", "1",
                 "--page-timeout", "1", "--quiet"]) == 1
    assert "8 inputs = 6 pages cleaned + 2 errors" in capsys.readouterr().err
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert sorted(e["id"] for e in errors) == ["binary", "empty"]
    assert len(list(out.glob("*.txt"))) == 6


def _dataset(root: Path) -> Path:
    """A corpus: the six pages, an unreadable one, a row without a page file, and two rows
    without gold (skipped, with that reason)."""
    (root / "pages").mkdir(parents=True)
    (root / "gold").mkdir()
    rows = []
    pages = {r["id"]: read_page_bytes(SAMPLE_SITE, r) for r in ROWS}
    pages |= {"binary": b"\x89PNG\r\n\x1a\n" + bytes(256) * 8,
              "nogold1": pages[ROWS[0]["id"]], "nogold2": pages[ROWS[1]["id"]]}
    for pid, body in pages.items():
        (root / "pages" / f"{pid}.html.gz").write_bytes(gzip.compress(body, 1))
    for pid in [*pages, "missing"]:
        rows.append({"id": pid, "url": f"https://www.{SITE}/{pid}", "site": SITE})
        if not pid.startswith("nogold"):
            (root / "gold" / f"{pid}.txt").write_text("gold text\n")
    (root / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_evaluate_accounts_for_every_index_row(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = _dataset(tmp_path / "corpus")
    out = tmp_path / "out"
    assert main(["evaluate", str(root), "--workers", "1", "--page-timeout", "1", "--out",
                 str(out), "--quiet"]) == 0
    rows = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    for method in ("alltext", "sst"):
        mine = {r["id"]: r for r in rows if r["method"] == method}
        assert sorted(mine) == sorted([r["id"] for r in ROWS] + ["binary", "missing"])
        assert {i for i, r in mine.items() if r["error"]} == {"binary", "missing"}
    err = capsys.readouterr().err
    assert "corpus sst: 10 pages = 6 scored + 2 errors + 2 skipped (2 no gold file)" in err


def test_evaluate_turns_a_runaway_page_into_an_error_row(tmp_path: Path) -> None:
    from sitesift.evaluate import evaluate

    root = _dataset(tmp_path / "corpus")
    (root / "pages" / "huge.html.gz").write_bytes(gzip.compress(_runaway(), 1))
    (root / "gold" / "huge.txt").write_text("gold text\n")
    with open(root / "index.jsonl", "a") as fh:
        fh.write(json.dumps({"id": "huge", "url": f"https://www.{SITE}/huge", "site": SITE})
                 + "\n")
    rows = {r["id"]: r for r in evaluate([root], ["sst"], run=RunSettings(limits=QUICK))}
    assert len(rows) == 9 and "time limit" in str(rows["huge"]["error"])
    assert {i for i, r in rows.items() if r["error"]} == {"binary", "missing", "huge"}


def test_held_pages_keep_no_parser_document() -> None:
    """A site group holds every page for its fit: each is read out of Lexbor at once, so
    its document (~1 MiB of address space) is freed; a group of 7,000 small pages held
    lazily needed 7.2 GB and crashed its worker at the memory limit."""
    from sitesift.jobs.model import held_page as _held
    from sitesift.methods.base import get_cleaner
    from sitesift.page import Page

    html = read_page_bytes(SAMPLE_SITE, ROWS[0]).decode("utf-8", "replace")
    lazy, held = Page.from_html(html), _held(Page.from_html(html), get_cleaner("sst"))
    assert all(node._lnode is None for node in held.root.iter())
    assert held.root.text() == lazy.root.text()


def test_the_default_cleaners_fit_pages_are_not_parsed_in_python() -> None:
    """The default cleaner reads its fit's pages in the native core, once: holding them for
    its fit parses nothing (Lexbor's parse was a second reading of every sample page)."""
    from sitesift.jobs.model import held_page as _held
    from sitesift.methods.base import get_cleaner
    from sitesift.page import Page

    html = read_page_bytes(SAMPLE_SITE, ROWS[0]).decode("utf-8", "replace")
    held = _held(Page.from_html(html), get_cleaner("default"))
    assert held._root is None and held._title is False


# -- the resume logic, with a scripted supervisor -------------------------------------------

class ScriptedSupervisor:
    """Plays `Supervisor.run`: for each task, what its (imagined) worker sends."""

    def __init__(self, script: list[list[object]]) -> None:
        self.script = script
        self.retries: list[SiteTask] = []
        self.ran: list[SiteTask] = []

    def retry(self, task: SiteTask) -> None:
        self.retries.append(task)

    def run(self, tasks: list[SiteTask]) -> Iterator[tuple[SiteTask, object]]:
        queue = list(tasks)
        while queue:
            task = queue.pop(0)
            self.ran.append(task)
            for message in self.script.pop(0):
                yield task, message
                if isinstance(message, Lost):
                    break
            queue[:0] = self.retries
            self.retries = []


def _task(n: int) -> SiteTask:
    return SiteTask("g", [Source(f"p{i}", f"p{i}.html") for i in range(n)], SitePolicy("sst"))


def _out(task: SiteTask, i: int, error: str | None = None) -> Out:
    return Out(i, Outcome(task.pages[i].id, "g", error=error))


def test_a_lost_worker_costs_one_page_and_nothing_is_sent_twice() -> None:
    task = _task(4)
    script: list[list[object]] = [
        [Busy(0, "parse", 1), Busy(1, "parse", 1), _out(task, 0),
         Lost(Busy(1, "clean", 1), "worker died (SIGSEGV)")],
        # the retry: a resend of page 0 is dropped, page 1 is recorded as what killed it
        [_out(task, 0), _out(task, 1, "worker died (SIGSEGV)"), _out(task, 2), _out(task, 3),
         END],
    ]
    supervisor = ScriptedSupervisor(script)
    got = list(drive(cast(Supervisor[SiteTask], supervisor), [task]))
    outs = [m for _, m in got if isinstance(m, Out)]
    assert [o.index for o in outs] == [0, 1, 2, 3]
    assert isinstance(got[-1][1], SiteDone)  # the group is complete
    first, retry = supervisor.ran
    assert first.poison == {} and retry.poison == {1: "worker died (SIGSEGV)"}
    assert retry.done == {0} and retry.tries == 1 and retry.blind_losses == 0


def test_fit_losses_and_repeated_failures_are_bounded() -> None:
    task = _task(3)
    lost_fit = Lost(Busy(-1, "fit", 1), "fit exceeded the time limit of 1 s")
    blind = Lost(None, "worker did not answer in time")
    # the fit's loss blames the fit (progress); then failures that blame nothing, MAX_BLIND_LOSSES
    # in a row, end the group
    script: list[list[object]] = [[lost_fit]]
    script += [[blind] for _ in range(MAX_BLIND_LOSSES)]
    supervisor = ScriptedSupervisor(script)
    got = list(drive(cast(Supervisor[SiteTask], supervisor), [task]))
    outs = [m for _, m in got if isinstance(m, Out)]
    assert sorted(o.index for o in outs) == [0, 1, 2]  # every page, once, as an error
    assert all("without progress" in str(o.outcome.error) for o in outs)
    assert isinstance(got[-1][1], SiteDone) and not supervisor.script
    assert supervisor.ran[1].fit_failed == {0: "fit exceeded the time limit of 1 s"}


def test_the_retry_carries_what_was_learnt() -> None:
    from sitesift.jobs.retry import after_loss as _after_loss

    task = _task(5)
    retry = _after_loss(task, Lost(Busy(3, "parse", 1), "killed"), {0, 1}, {1})
    assert retry is not None
    assert retry.poison == {3: "killed"} and retry.done == {0, 1} and retry.unread == {1}
    retry = _after_loss(retry, Lost(Busy(-2, "fit", 1), "fit stopped"), {0, 1, 2}, {1})
    assert retry is not None and retry.fit_failed == {1: "fit stopped"}
    assert retry.poison == {3: "killed"} and retry.tries == 2


def test_page_out_of_memory_becomes_an_error_record(folder: Path) -> None:
    """Last in the file: its limits need workers of their own."""
    # a long time limit, so that the memory limit decides even on a loaded machine; a worker
    # that spins at its memory limit is stopped by the clock, and its record says so too
    _runaway_site(folder, Limits(memory_mb=200, page_seconds=60.0), ("memory",))


def test_a_large_site_group_fits_within_the_memory_limit() -> None:
    """A site-level fit holds every page of the group, within the worker's memory cap
    (which no longer grows with the group): read out of the parser (`jobs.model.held_page`), 600
    small pages take well under a MiB, though their Lexbor documents would reserve 600."""
    pages = [Source(f"p{i}", "", {"url": f"http://big.example/{i}"},
                    data=f"<nav>menu</nav><p>story number {i}</p>".encode())
             for i in range(600)]
    outcomes = list(run_groups({"big.example": pages}, "sst",
                               RunSettings(limits=Limits(memory_mb=300, page_seconds=60.0))))
    assert len(outcomes) == 600 and all(o.result is not None for o in outcomes), {
        o.error for o in outcomes if o.error}


def test_a_timer_that_is_swallowed_still_ends_the_block_as_a_timeout() -> None:
    def swallowing(seconds: float) -> None:  # library code that catches everything
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                time.sleep(0.01)

    with pytest.raises(PageTimeout), time_limit(0.05):
        swallowing(0.5)
    with pytest.raises(PageTimeout), time_limit(0.05):  # and then fails otherwise
        swallowing(0.5)
        raise ValueError("the request was never answered")
    with time_limit(5):  # a block that ends in time is left alone
        swallowing(0.05)
