"""Hostile inputs to the local batch (`sitesift clean`): pages that kill or hang their worker
inside a site group, and page ids that make bad file names.

A poison page costs only itself: it becomes an error record and its group goes on with the
rest, however many there are; a group is given up only after worker failures that make no
progress. Every input gets its own output file, named from its id (escaped, long ids
shortened with a hash), and `manifest.jsonl` maps each id to its file.

The poison pages are built here: a `Source` whose loading kills its worker (SIGKILL) or
hangs it where the page's timer cannot reach (SIGALRM blocked, as in C code), and a test
method, registered only inside the workers (which import this module to unpickle the
sources), whose cleaning kills the worker on pages marked `kill` after a normal fit.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from sitesift.batch import RunSettings, SitePolicy, Source, clean_group, run_groups
from sitesift.cli import SAMPLE_SITE, main
from sitesift.cli.common import output_name
from sitesift.guards import END, Busy, Limits, Lost, Supervisor
from sitesift.inputs import collect_sources
from sitesift.jobs.model import parse_order as _parse_order
from sitesift.jobs.outcome import Out, SiteDone
from sitesift.jobs.retry import MAX_BLIND_LOSSES, drive
from sitesift.jobs.retry import after_loss as _after_loss
from sitesift.jobs.task import SiteTask
from sitesift.methods.base import register
from sitesift.methods.sst import SiteStyleTree
from sitesift.page import Page
from sitesift.result import Result
from tests.test_batch_guards import ScriptedSupervisor

SITE = "harbourgazette.example"
QUICK = Limits(page_seconds=1.0)  # the limits of test_batch_guards: its worker serves here too


@dataclass(frozen=True, slots=True)
class Killer(Source):
    """A page whose loading kills its worker, as a crash in the parser would."""

    def load(self) -> Page:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class Stuck(Source):
    """A page that runs past its time limit where the timer cannot stop it (in C code):
    only the supervisor, page_seconds + grace later, can."""

    def load(self) -> Page:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
        raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class Logged(Source):
    """A good page of the sample site; it brings this module (and so the test method) into
    the worker that unpickles it."""


class KillOnClean(SiteStyleTree):
    """sst, but cleaning a page marked `kill` kills the worker; every fit is logged to the
    file its pages name in `fit_log`, so that a test can count the fits."""

    name = "test-kill-on-clean"

    def fit(self, pages: Sequence[Page]) -> SiteStyleTree:
        log = next((p.meta["fit_log"] for p in pages if "fit_log" in p.meta), None)
        if log:
            with open(log, "a") as fh:
                fh.write(f"{len(pages)}\n")
        return super().fit(pages)

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        if page.meta.get("kill"):
            os.kill(os.getpid(), signal.SIGKILL)
        return super().clean(page, noise=noise)


if multiprocessing.parent_process() is not None:  # a worker: never the test session's registry
    register(KillOnClean)


def _good(n: int = 30, cls: type[Source] = Source, **row: Any) -> list[Source]:
    sources = next(iter(collect_sources(SAMPLE_SITE, "site").values()))[:n]
    return [cls(s.id, s.path, {**s.row, **row}, s.dataset) for s in sources]


def _mixed(good: list[Source], bad: list[Source]) -> list[Source]:
    """Bad pages spread among the good ones, the first before any good page is read."""
    out = list(good)
    for k, page in enumerate(bad):
        out.insert(min(k * 3, len(out)), page)
    return out


def _same_as_alone(outcomes: dict[str, Any], good: list[Source], method: str = "sst") -> None:
    """Every good page has the result it has in a group without the bad pages."""
    alone = {o.id: o for o in clean_group(method, SITE, good)}
    for src in good:
        got, want = outcomes[src.id].result, alone[src.id].result
        assert got is not None and want is not None, outcomes[src.id].error
        assert got.text == want.text


# -- item 5: poison pages in a site group -------------------------------------------------

def test_more_poison_pages_than_the_old_loss_limit_cost_only_themselves() -> None:
    """30 good pages and 9 that kill their worker while being read: 30 results (the old
    batch gave up the group after 8 worker failures: 0 results)."""
    good = _good()
    bad = [Killer(f"kill{k}", "") for k in range(9)]
    outcomes = {o.id: o for o in run_groups({SITE: _mixed(good, bad)}, "sst",
                                            RunSettings(limits=QUICK))}
    assert len(outcomes) == 39
    for src in bad:
        assert "worker died (SIGKILL)" in str(outcomes[src.id].error), outcomes[src.id].error
    _same_as_alone(outcomes, good)


def test_pages_stuck_past_the_page_timeout_cost_only_themselves() -> None:
    good = _good(8)
    bad = [Stuck(f"stuck{k}", "") for k in range(3)]
    limits = Limits(page_seconds=0.3, grace_seconds=0.3)
    outcomes = {o.id: o for o in run_groups({SITE: _mixed(good, bad)}, "sst",
                                            RunSettings(limits=limits))}
    assert len(outcomes) == 11
    for src in bad:
        assert "exceeded the time limit of 0.3 s" in str(outcomes[src.id].error)
    _same_as_alone(outcomes, good)


def test_pages_that_kill_the_cleaning_cost_no_refit_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages that kill their worker after the fit, while being cleaned: each costs a worker,
    not a fit: the retry after the first keeps its model for the next ones."""
    import tempfile

    # a temp folder of the test's own: another sitesift run on the machine (a CI clone
    # testing beside this one) keeps its models in the shared one
    own = tmp_path / "tmp"
    own.mkdir()
    monkeypatch.setenv("TMPDIR", str(own))
    monkeypatch.setattr(tempfile, "tempdir", str(own))
    log = tmp_path / "fits.log"
    good = _good(12, Logged, fit_log=str(log))
    bad = [Logged(f"kill{k}", s.path, {**s.row, "kill": True}, s.dataset)
           for k, s in enumerate(_good(6, fit_log=str(log)))]
    sources = good + bad  # the killers are read and fitted on like any page
    outcomes = {o.id: o for o in run_groups({SITE: sources}, "test-kill-on-clean",
                                            RunSettings(limits=QUICK))}
    assert len(outcomes) == 18
    assert all("worker died (SIGKILL)" in str(outcomes[s.id].error) for s in bad)
    assert all(outcomes[s.id].result is not None for s in good)
    fits = log.read_text().split()
    # the first fit (on all 18), one refit without the first killer (its model kept); none
    # for the other five
    assert fits == ["18", "17"], fits
    assert not list(own.glob("sitesift-kept-*"))  # removed


def test_the_parse_order_puts_pages_known_to_parse_last() -> None:
    """A retry reads the pages not yet tried first, so that a group with many poison pages
    reads each good page at most twice, not once per poison page."""
    task = SiteTask("g", [Source(f"p{i}", "") for i in range(7)], SitePolicy("sst"))
    assert _parse_order(task) == list(range(7))
    retry = _after_loss(task, Lost(Busy(3, "parse", 1), "killed"), set(), set())
    assert retry is not None and retry.parsed == {0, 1, 2} and retry.poison.keys() == {3}
    assert _parse_order(retry) == [4, 5, 6, 0, 1, 2]
    again = _after_loss(retry, Lost(Busy(5, "parse", 1), "killed"), set(), set())
    assert again is not None and again.parsed == {0, 1, 2, 4}
    assert _parse_order(again) == [6, 0, 1, 2, 4]


def _script_run(task: SiteTask, script: list[list[object]]) -> list[tuple[SiteTask, object]]:
    supervisor = ScriptedSupervisor(script)
    return list(drive(cast(Supervisor[SiteTask], supervisor), [task]))


def test_losses_that_blame_a_page_never_abandon_the_group() -> None:
    """Twenty pages, every one of which kills its worker, then a good one: all twenty are
    error records, the good page is cleaned."""
    task = SiteTask("g", [Source(f"p{i}", "") for i in range(21)], SitePolicy("sst"))
    script: list[list[object]] = [[Lost(Busy(i, "parse", 1), "killed")] for i in range(20)]
    script.append([*(Out(i, _error_out(task, i)) for i in range(20)),
                   Out(20, _ok_out(task, 20)), END])
    got = _script_run(task, script)
    outs = {m.index: m.outcome for _, m in got if isinstance(m, Out)}
    assert sorted(outs) == list(range(21)) and outs[20].error is None
    assert isinstance(got[-1][1], SiteDone)


def test_losses_without_progress_end_the_group_with_a_record_each() -> None:
    task = SiteTask("g", [Source(f"p{i}", "") for i in range(3)], SitePolicy("sst"))
    blind = Lost(None, "worker did not answer in time")
    got = _script_run(task, [[blind] for _ in range(MAX_BLIND_LOSSES)])
    outs = [m for _, m in got if isinstance(m, Out)]
    assert sorted(o.index for o in outs) == [0, 1, 2]
    assert all("without progress" in str(o.outcome.error) for o in outs)


def _error_out(task: SiteTask, i: int) -> Any:
    from sitesift.batch import Outcome

    return Outcome(task.pages[i].id, task.site, error="killed")


def _ok_out(task: SiteTask, i: int) -> Any:
    from sitesift.batch import Outcome

    return Outcome(task.pages[i].id, task.site, result=Result(blocks=[], method="sst"))


def _killers_in(monkeypatch: pytest.MonkeyPatch, bad: int) -> None:
    """`clean`'s inputs become the sample site with `bad` killer pages among them."""
    import sitesift.cli.clean as clean

    monkeypatch.setattr(clean, "_sources", lambda command, inputs, grouping: (
        {SITE: _mixed(_good(), [Killer(f"kill{k}", "") for k in range(bad)])}, []))


def test_clean_command_cleans_the_good_pages_and_exits_1(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _killers_in(monkeypatch, 9)
    out = tmp_path / "out"
    assert main(["clean", str(SAMPLE_SITE), "--method", "sst", "--out", str(out),
                 "--workers", "1", "--page-timeout", "1", "--quiet"]) == 1
    assert "39 inputs = 30 pages cleaned + 9 errors" in capsys.readouterr().err
    assert len(list(out.glob("*.txt"))) == 30


def test_clean_command_exits_1_when_a_group_is_abandoned(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sitesift.jobs.retry as retry

    _killers_in(monkeypatch, 1)
    monkeypatch.setattr(retry, "after_loss", lambda *args: None)  # give up at once
    assert main(["clean", str(SAMPLE_SITE), "--method", "sst", "--out", str(tmp_path / "o"),
                 "--workers", "1", "--page-timeout", "1", "--quiet"]) == 1
    assert "31 inputs = 0 pages cleaned + 31 errors" in capsys.readouterr().err


# -- item 7: output file names --------------------------------------------------------------

HOSTILE_IDS = ["sub/dir", "sub__dir", "sub%2Fdir", "a" * 200 + "/" + "b" * 200,
               "a" * 200 + "/" + "b" * 199 + "c", "é" * 100 + "/" + "ü" * 100, "..", ".",
               "x\\y", "tab\there", "~2", "plain"]


def test_output_names_are_distinct_bounded_and_readable() -> None:
    names = {pid: output_name(pid, ".txt") for pid in HOSTILE_IDS}
    assert len(set(names.values())) == len(names)  # distinct ids, distinct names
    for pid, name in names.items():
        assert len(name.encode("utf-8")) <= 255 and "/" not in name and "\0" not in name
        assert name not in (".txt", "..txt") or pid in (".", "..")
    assert names["plain"] == "plain.txt"  # ordinary ids keep their names
    assert names["sub/dir"] == "sub%2Fdir.txt"
    from urllib.parse import unquote

    for pid in ("sub/dir", "sub__dir", "sub%2Fdir", "x\\y", "tab\there"):
        assert unquote(names[pid].removesuffix(".txt")) == pid  # reversible


def _dataset(root: Path, ids: list[str]) -> Path:
    """A dataset whose index names `ids` (one twice), each with a page of its own text."""
    rows = []
    for n, pid in enumerate(ids):
        rows.append({"id": pid, "url": f"https://x.example/{n}", "site": "x.example"})
        page = root / "pages" / f"{pid}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<html><body><article><p>Page {n} says its own thing here.</p>"
                        "</article></body></html>")
    rows.append(dict(rows[-1]))  # the same id listed twice
    (root / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_clean_writes_one_file_per_input_and_a_manifest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = ["sub/dir", "sub__dir", "sub%2Fdir", "a" * 200 + "/" + "b" * 200,
           "a" * 200 + "/" + "b" * 199 + "c", "plain"]
    root = _dataset(tmp_path / "corpus", ids)
    out = tmp_path / "out"
    assert main(["clean", str(root), "--method", "alltext", "--out", str(out), "--workers",
                 "1", "--page-timeout", "5", "--quiet"]) == 0
    assert "7 inputs = 7 pages cleaned + 0 errors" in capsys.readouterr().err
    manifest = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert len(manifest) == 7 and len({m["file"] for m in manifest}) == 7
    by_id = {m["id"]: m for m in manifest}
    assert set(by_id) == {*ids, "plain~2"}  # the second listing is suffixed
    for n, pid in enumerate([*ids, "plain~2"]):
        text = (out / by_id[pid]["file"]).read_text()
        assert f"Page {min(n, len(ids) - 1)} says" in text, (pid, text)
    assert len(list(out.glob("*.txt"))) == 7


def test_write_outcomes_keeps_one_id_twice_apart(tmp_path: Path) -> None:
    """The library's outcomes may hold an id twice (two inputs of one page), or an id with
    a lone surrogate (JSON's "\\ud800"): each gets a file and a manifest line."""
    from sitesift.batch import Outcome
    from sitesift.cli.common import write_outcomes

    ids = ["p", "p", "bad\ud800id"]
    outcomes = [Outcome(pid, "g", result=Result(blocks=[], method="alltext")) for pid in ids]
    outcomes.append(Outcome("bad\ud800id", "g", error="unreadable"))
    assert write_outcomes(outcomes, tmp_path, "text") == (3, 1, 0)
    manifest = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text()
                .splitlines()]
    assert [m["id"] for m in manifest] == [*ids, "bad\ud800id"]
    files = [m["file"] for m in manifest]
    assert files[:3] == ["p.txt", "p~2.txt", "bad%ED%A0%80id.txt"] and files[3] is None
    assert all((tmp_path / f).is_file() for f in files[:3])
    assert "unreadable" in (tmp_path / "errors.jsonl").read_text()
