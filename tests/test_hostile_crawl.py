"""The crawl under kills, concurrent runs, a full or unwritable disk, and bad settings.

Inputs are generated here (a few JSONL files of the sample site's pages). A crawl that must
be caught mid-ingest runs in a subprocess whose ingest is slowed by a `sitecustomize` hook on
its PYTHONPATH (spawned workers import it too), so the kill lands where it should on any
machine without a large input.
"""

from __future__ import annotations

import builtins
import errno
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import sitesift
from sitesift.cli import SAMPLE_SITE, main
from sitesift.crawl import run_crawl
from sitesift.datasets import read_index, read_page_bytes
from sitesift.decode import decode_html
from sitesift.io.records import Failed, PageRecord
from sitesift.io.sources import read_input
from sitesift.jobs.run import RunSettings
from sitesift.sitework import CrawlConfig
from tests.conftest import refused
from tests.test_hostile_inputs import deadline

SRC = Path(sitesift.__file__).resolve().parents[1]
CFG = CrawlConfig(fit_sample=10)
TEXTS = [decode_html(read_page_bytes(SAMPLE_SITE, r)).text for r in read_index(SAMPLE_SITE)]
OUTPUTS = ("results.jsonl", "errors.jsonl", "sites.jsonl")

# Loaded by every Python process of a test crawl: each record read by the ingest waits
# SLOW_INGEST seconds, and the first one of input i leaves MARKS/started-i; the test's small
# inputs are read by parallel processes, as large ones are (`crawl.ingest_processes`).
SLOW_HOOK = '''
import os, time
if os.environ.get("SLOW_INGEST"):
    import sitesift.crawl as crawl
    crawl.INGEST_BYTES_PER_PROCESS = 1
    import sitesift.io.ingest as ingest
    _read = ingest.read_input
    def _slow(path, index, *args, **kwargs):
        for n, item in enumerate(_read(path, index, *args, **kwargs)):
            if n == 0:
                open(os.path.join(os.environ["MARKS"], f"started-{index}"), "w").close()
            time.sleep(float(os.environ["SLOW_INGEST"]))
            yield item
    ingest.read_input = _slow
'''


def make_inputs(root: Path, n_inputs: int = 3, rows: int = 60) -> list[str]:
    """JSONL inputs of `rows` pages each over a few sites, one bad line each."""
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n_inputs):
        lines = [json.dumps({"url": f"http://site{k % 4}.example/{i}/{k}.html",
                             "html": TEXTS[(i + k) % len(TEXTS)]}) for k in range(rows)]
        lines.insert(rows // 2, '{"url": "http://site0.example/cut", "html": ')  # bad JSON
        path = root / f"in{i}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def crawl_command(inputs: list[str], out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "sitesift.cli", "crawl", *inputs, "--out", str(out),
            "--fit-sample", "10", "--quiet", *extra]


def slow_env(tmp: Path, seconds: float) -> dict[str, str]:
    hook = tmp / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SLOW_HOOK, encoding="utf-8")
    marks = tmp / "marks"
    marks.mkdir(exist_ok=True)
    return {**os.environ, "PYTHONPATH": f"{hook}{os.pathsep}{SRC}",
            "SLOW_INGEST": str(seconds), "MARKS": str(marks)}


def wait_for(condition: object, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def session_members(sid: int) -> list[int]:
    """The live processes of session `sid` (a crawl started with start_new_session)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[3]) == sid:  # state, ppid, pgrp, session
            pids.append(int(entry.name))
    return pids


def kill_session(proc: subprocess.Popen[bytes]) -> None:
    for pid in session_members(proc.pid):
        os.kill(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def outputs(out: Path) -> list[bytes]:
    return [(out / name).read_bytes() for name in OUTPUTS]


def record_keys(out: Path) -> Counter[tuple[object, object]]:
    keys: Counter[tuple[object, object]] = Counter()
    for name in ("results.jsonl", "errors.jsonl"):
        for line in (out / name).read_text("utf-8").splitlines():
            row = json.loads(line)
            keys[(row["input"], row["position"])] += 1
    return keys


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return make_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def whole(inputs: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same crawl, never interrupted: what every resumed run must equal."""
    out = tmp_path_factory.mktemp("whole")
    summary = run_crawl(inputs, out, CFG, run=RunSettings(2))
    assert summary["balanced"] and summary["records_in"] == 3 * 61
    return out


# -- item 6: kills and concurrent runs --------------------------------------------------------

def test_sigkill_mid_ingest_leaves_no_workers_and_the_rerun_does_not_duplicate(
        tmp_path: Path, inputs: list[str], whole: Path) -> None:
    """SIGKILL of the crawl's main process alone (as the OOM killer or `kill -9 PID` would)
    while two inputs are being ingested, then an immediate rerun (itself slow, so that any
    orphan of the first run overlaps it): no orphan survives, and the rerun's files equal
    the uninterrupted run's."""
    out = tmp_path / "out"
    env = slow_env(tmp_path, 0.05)  # 61 records: ~3 s an input
    first = subprocess.Popen(crawl_command(inputs, out, "--workers", "2"), env=env,
                             start_new_session=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    marks = Path(env["MARKS"])
    try:
        wait_for(lambda: len(list(marks.glob("started-*"))) >= 2)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        rerun = subprocess.run(crawl_command(inputs, out, "--workers", "2"), env=env,
                               capture_output=True, text=True, timeout=300)
        time.sleep(0.5)
        survivors = session_members(first.pid)
    finally:
        kill_session(first)
    assert not survivors, f"workers of the killed crawl still run: {survivors}"
    assert rerun.returncode == 1, rerun.stderr  # 1: the bad JSON lines are error records
    summary = json.loads((out / "summary.json").read_text())
    assert summary["balanced"] and summary["records_in"] == 3 * 61
    assert max(record_keys(out).values()) == 1
    assert outputs(out) == outputs(whole)


def refused_while_held(first_argv: list[str], env: dict[str, str], held: Callable[[], bool],
                       argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Start `first_argv` in a subprocess, wait until `held()`, then run `argv` here: it
    must be refused at once (exit 2) in one line naming the first run's command and pid.
    The first run is then killed, leaving its lock behind for the caller's next run."""
    first = subprocess.Popen(first_argv, env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(held)
        started = time.monotonic()
        code = main(argv)
        refused_in = time.monotonic() - started
        os.kill(first.pid, signal.SIGKILL)  # its lock is left behind, held by no one
        first.wait()
    finally:
        kill_session(first)
    err = capsys.readouterr().err
    assert code == 2 and refused_in < 10, err
    assert err.count("\n") == 1 and f"in use by another {argv[0]}" in err, err
    assert f"(process {first.pid})" in err, err


def test_a_second_crawl_into_the_same_out_is_refused_and_a_dead_runs_lock_is_taken_over(
        tmp_path: Path, inputs: list[str], whole: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    env = slow_env(tmp_path, 0.05)
    refused_while_held(crawl_command(inputs, out, "--workers", "1"), env,
                       lambda: any(Path(env["MARKS"]).glob("started-*")),
                       ["crawl", *inputs, "--out", str(out), "--fit-sample", "10", "--quiet"],
                       capsys)
    assert not (out / "summary.json").exists()
    summary = run_crawl(inputs, out, CFG, run=RunSettings(2))  # takes the dead run's lock over
    assert summary["balanced"] and outputs(out) == outputs(whole)


# -- item 10: a full disk, an unwritable --out ----------------------------------------------

class _Filling:
    """A file whose writes fail with ENOSPC once the disk's `budget` of bytes is used up."""

    def __init__(self, fh: Any, disk: _Disk) -> None:
        self._fh, self._disk = fh, disk

    def write(self, data: Any) -> int:
        self._disk.used += len(data)
        if self._disk.used > self._disk.budget:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as write(2) names none
        return int(self._fh.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)

    def __enter__(self) -> _Filling:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()

    def __iter__(self) -> Any:
        return iter(self._fh)


class _Disk:
    """Every file opened for writing under `root` by this process shares `budget` bytes."""

    def __init__(self, root: Path, budget: float) -> None:
        self.root, self.budget, self.used = str(root), budget, 0
        self._open = builtins.open

    def open(self, file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        fh = self._open(file, mode, *args, **kwargs)
        writes = any(c in mode for c in "wax+")
        if writes and isinstance(file, str | Path) and str(file).startswith(self.root):
            return _Filling(fh, self)
        return fh


def crawl_args(inputs: list[str], out: Path, *extra: str) -> list[str]:
    return ["crawl", *inputs, "--out", str(out), "--fit-sample", "10", "--quiet",
            "--workers", "1", *extra]  # one worker: the ingest runs in this process


@pytest.mark.parametrize("share", [0.02, 0.3, 0.7, 0.97])
def test_a_full_disk_stops_the_crawl_with_one_line_and_the_rerun_finishes_it(
        tmp_path: Path, inputs: list[str], whole: Path, share: float,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The disk fills at `share` of what the crawl writes: in the ingest, the cleaning or
    the final files. One line names the file and the errno, exit 3; the rerun (disk freed)
    keeps the inputs and sites already committed and ends as the uninterrupted run did."""
    out = tmp_path / "out"
    probe = _Disk(tmp_path / "probe", float("inf"))
    with monkeypatch.context() as patch:
        patch.setattr(builtins, "open", probe.open)
        patch.setattr(io, "open", probe.open)
        assert main(crawl_args(inputs, tmp_path / "probe")) == 1
    capsys.readouterr()
    disk = _Disk(out, probe.used * share)
    with monkeypatch.context() as patch:
        patch.setattr(builtins, "open", disk.open)
        patch.setattr(io, "open", disk.open)
        code = main(crawl_args(inputs, out, "--keep-work"))
    err = capsys.readouterr().err
    assert code == 3, err
    assert err.count("\n") == 1 and "errno 28 ENOSPC" in err and f"{out}{os.sep}" in err, err
    assert not list(out.rglob("*.tmp")), "a failed write left its temporary file"
    work = out / "work"
    kept = {p: p.stat().st_ino for p in (work / "inputs").glob("*") if p.is_dir()}
    assert not [p for p in kept if ".part-" in p.name]
    done = (work / "done.jsonl").read_text() if (work / "done.jsonl").exists() else ""
    assert main(crawl_args(inputs, out, "--keep-work")) == 1  # 1: the bad JSON lines
    assert outputs(out) == outputs(whole)
    assert {p: p.stat().st_ino for p in kept} == kept  # committed inputs were not read again
    assert (work / "done.jsonl").read_text().startswith(done.rstrip("\n"))
    assert max(record_keys(out).values()) == 1


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """A real small file system (tmpfs), resized or made read-only by `remount(options)`;
    skipped where this process may not mount one (not root, or in a container without
    CAP_SYS_ADMIN): the injected full disk above covers the same paths everywhere."""
    point = tmp_path / "disk"
    point.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")

    def remount(options: str) -> Path:
        subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True)
        return point

    try:
        yield remount
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


@pytest.mark.parametrize("size", ["16k", "48k", "96k"])
def test_a_really_full_disk_ends_in_one_line_not_a_traceback_or_a_panic(
        tmp_path: Path, inputs: list[str], whole: Path, size: str,
        tiny_disk: Callable[[str], Path]) -> None:
    """Two ingest workers on a tmpfs of `size`, the ingest in worker processes (FastWARC's
    zstd writer used to panic in Rust there); then the disk grows and the rerun finishes."""
    out = tiny_disk(f"size={size}") / "out"
    run = subprocess.run(crawl_command(inputs, out, "--workers", "2"), capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert run.returncode == 3, run.stderr
    assert run.stderr.count("\n") == 1 and "errno 28 ENOSPC" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "panicked" not in run.stderr
    tiny_disk("size=64m")
    again = subprocess.run(crawl_command(inputs, out, "--workers", "2"), capture_output=True,
                           text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert again.returncode == 1, again.stderr
    assert outputs(out) == outputs(whole)


def test_an_unwritable_out_is_refused_before_any_work_naming_the_errno(
        tmp_path: Path, inputs: list[str], tiny_disk: Callable[[str], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    disk = tiny_disk("size=1m")
    (disk / "there").mkdir()
    tiny_disk("ro")
    for out, words in ((disk / "there", "cannot write in it"), (disk / "new", "cannot make it")):
        assert main(crawl_args(inputs, out)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and "errno 30 EROFS" in err, err
    (tmp_path / "file").write_text("x")
    assert main(crawl_args(inputs, tmp_path / "file")) == 2
    assert "is a file" in capsys.readouterr().err


# -- item 10: --memory-mb is a cap; bad numbers are refused ------------------------------------

GROUP_CAP = """
import os, resource
os.environ["OPENBLAS_NUM_THREADS"] = "1"  # as in a worker (sitesift.guards)
from sitesift.guards import Limits, limit_memory
from sitesift.jobs.outcome import Out
from sitesift.jobs.policy import SitePolicy
from sitesift.jobs.site import prepare_worker, steps
from sitesift.jobs.source import Source
from sitesift.jobs.task import SiteTask
limits = Limits(memory_mb=100)
prepare_worker()
import numpy  # sst's `imports`, which its warm-up takes outside the limit (the limit grows once)
limit_memory(limits.memory_mb)
cap = resource.getrlimit(resource.RLIMIT_AS)[0]
sources = [Source(f"p{i}", "", {"url": f"http://big.example/{i}"},
                  data=f"<nav>menu</nav><p>story number {i}</p>".encode()) for i in range(400)]
outs = [m for m in steps(SiteTask("big.example", sources, SitePolicy("sst")), limits)
        if isinstance(m, Out) and m.outcome.result is not None]
print(len(outs), resource.getrlimit(resource.RLIMIT_AS)[0] - cap)
"""


def test_memory_mb_is_a_cap_that_does_not_grow_with_a_site_group() -> None:
    """A worker holding a site group of 400 pages keeps the limit it started with (it
    used to get 1.5 MiB more per page: 8,282 pages made `--memory-mb 300` 13 GB); only a
    method's libraries, imported outside the limit when it is warmed, add to it
    (`tests/test_startup.py`)."""
    run = subprocess.run([sys.executable, "-c", GROUP_CAP], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["400", "0"]


def test_the_memory_mb_help_says_it_is_a_cap(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("clean", "fit", "evaluate", "crawl"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "memory cap" in " ".join(capsys.readouterr().out.split())


BAD_NUMBERS = {
    "--page-timeout": ["nan", "inf", "-inf", "1e400", "-1", "0", "soon"],
    "--fit-timeout": ["nan", "inf", "-2", "0"],
    "--memory-mb": ["nan", "-1", "1.5", "1e30"],
    "--workers": ["0", "-3", "nan"],
    "--min-site-pages": ["0", "-1"],
    "--fit-sample": ["0", "nan"],
    "--max-record-mb": ["nan", "inf", "0", "-4"],
    "--folds": ["0", "-1"],
}
OPTIONS = {  # the numeric options of each command
    "clean": ["--page-timeout", "--fit-timeout", "--memory-mb", "--workers"],
    "fit": ["--page-timeout", "--fit-timeout", "--memory-mb"],
    "evaluate": ["--page-timeout", "--fit-timeout", "--memory-mb", "--workers",
                 "--min-site-pages", "--folds"],
    "crawl": ["--page-timeout", "--fit-timeout", "--memory-mb", "--workers",
              "--min-site-pages", "--fit-sample", "--max-record-mb"],
}


def _argv(command: str, out: Path) -> list[str]:
    site = str(SAMPLE_SITE)
    return {"clean": ["clean", site, "--out", str(out)],
            "fit": ["fit", site, "-o", str(out / "model.json")],
            "evaluate": ["evaluate", site, "--out", str(out)],
            "crawl": ["crawl", site, "--out", str(out)]}[command]


@pytest.mark.parametrize(("command", "option"),
                         [(c, o) for c, options in OPTIONS.items() for o in options])
def test_bad_numbers_are_refused_before_any_work(tmp_path: Path, command: str,
                                                 option: str) -> None:
    for value in BAD_NUMBERS[option]:
        out = tmp_path / value
        err = refused([*_argv(command, out), f"{option}={value}"])
        last = err.strip().splitlines()[-1]  # after argparse's usage lines
        assert option in last and repr(value) in last, err
        assert not out.exists(), f"{command} {option}={value} wrote {out}"


def test_worker_deaths_spread_over_a_long_site_do_not_give_it_up() -> None:
    # deaths outside any page that each follow progress (records sent since the last try)
    # start the count again; only deaths in a row with nothing between give the site up
    from sitesift.guards import Lost
    from sitesift.jobs.retry import MAX_BLIND_LOSSES, after_loss
    from sitesift.jobs.source import SpillPages
    from sitesift.jobs.task import SiteTask
    from sitesift.sitework import CrawlConfig

    task: SiteTask | None = SiteTask("s", SpillPages((), 100), CrawlConfig().policy())
    for _ in range(9):
        assert task is not None
        sent = set(range(len(task.done) + 5))  # records sent since the last try
        task = after_loss(task, Lost(None, "worker died"), sent, set())
    assert task is not None and task.blind_losses == 1
    for _ in range(MAX_BLIND_LOSSES - 1):
        assert task is not None
        task = after_loss(task, Lost(None, "worker died"), set(task.done), set())
    assert task is None


# -- item 6 beyond the crawl: clean, fit, evaluate and bench hold their --out too -----------

# Loaded by every Python process of a test run: the first reading of a dataset's index
# leaves MARKS/held and then waits HOLD_SECONDS, so a run is caught holding its --out.
HOLD_HOOK = '''
import os, time
if os.environ.get("HOLD_SECONDS"):
    import sitesift.datasets as datasets
    _scan = datasets.scan_index
    def _slow(*args, **kwargs):
        open(os.path.join(os.environ["MARKS"], "held"), "w").close()
        time.sleep(float(os.environ["HOLD_SECONDS"]))
        return _scan(*args, **kwargs)
    datasets.scan_index = _slow
'''

HELD = {  # each command that writes into --out, and what it leaves there when done
    "clean": (["clean", str(SAMPLE_SITE), "--method", "alltext", "--workers", "1",
               "--quiet", "--out", "{out}"], "manifest.jsonl"),
    "fit": (["fit", str(SAMPLE_SITE), "--method", "sst", "--quiet", "-o", "{out}/m.json"],
            "m.json"),
    "evaluate": (["evaluate", str(SAMPLE_SITE), "--method", "alltext", "--workers", "1",
                  "--quiet", "--out", "{out}"], "pages.jsonl"),
    "bench": (["bench", str(SAMPLE_SITE), "--methods", "alltext", "--peers", "none",
               "--no-plots", "--quiet", "--out", "{out}"], "summary.md"),
}


@pytest.mark.parametrize("command", list(HELD))
def test_a_second_run_into_a_held_out_is_refused_and_a_dead_runs_lock_is_taken_over(
        tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    template, product = HELD[command]
    out = tmp_path / "out"
    argv = [arg.replace("{out}", str(out)) for arg in template]
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD_HOOK, encoding="utf-8")
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {**os.environ, "PYTHONPATH": f"{hook}{os.pathsep}{SRC}", "HOLD_SECONDS": "120",
           "MARKS": str(marks)}
    refused_while_held([sys.executable, "-m", "sitesift.cli", *argv], env,
                       (marks / "held").exists, argv, capsys)
    assert not (out / product).exists()
    assert main(argv) == 0  # takes the dead run's lock over
    capsys.readouterr()
    assert (out / product).is_file()
    assert not [p.name for p in out.iterdir() if "lock" in p.name]  # let go, none left


# -- ingest time: blank lines are no records, but reading them one by one took hours -------

def blank_lines_gz(path: Path, before: bytes, lines: int, after: bytes) -> int:
    """A `.jsonl.gz`: the line `before`, `lines` blank lines (a multiple of 8 Mi), the line
    `after`, as gzip members (a reader reads them as one stream): one member of 8 Mi
    newlines, about 8 KiB packed, repeated, so a billion lines cost a second to write."""
    block = 8 << 20
    blank = gzip.compress(b"\n" * block, compresslevel=9, mtime=0)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(before + b"\n", mtime=0))
        for _ in range(lines // block):
            fh.write(blank)
        fh.write(gzip.compress(after + b"\n", mtime=0))
    return lines


def page_line(name: str) -> bytes:
    return json.dumps({"url": f"http://site0.example/{name}", "html": TEXTS[0]}).encode()


def test_a_billion_blank_lines_end_their_input_in_one_record_in_seconds(
        tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl.gz"
    blank_lines_gz(path, page_line("before"), 1 << 30, page_line("after"))
    started = time.monotonic()
    with deadline(60):  # read line by line, this took about an hour
        items = list(read_input(str(path), 0, 64 << 10))
    assert time.monotonic() - started < 20
    assert [type(i) for i in items] == [PageRecord, Failed]
    failed = items[1]
    assert isinstance(failed, Failed) and failed.input == str(path) and failed.position == 1
    assert "line 2: blank lines past 327,680 bytes in a row" in failed.reason
    # a plain file of a million lines of white space: the same, at the line limit
    plain = tmp_path / "blank.jsonl"
    plain.write_bytes(page_line("before") + b"\n" + b" \t\r\n" * 1_000_000
                      + page_line("after") + b"\n")
    items = list(read_input(str(plain), 0, 64 << 10))
    assert [type(i) for i in items] == [PageRecord, Failed]
    # blank lines below the limit are passed over; the lines after them are numbered right
    plain.write_bytes(b"\n \r\n" * 1000 + b"  " + page_line("a") + b"\n\n{bad\n")
    items = list(read_input(str(plain), 0, 64 << 10))
    assert [type(i) for i in items] == [PageRecord, Failed]
    assert isinstance(items[1], Failed) and items[1].reason.startswith("line 2003: bad JSON")


def test_the_crawl_accounts_for_an_input_of_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl.gz"
    blank_lines_gz(path, page_line("before"), 64 << 20, page_line("after"))
    index = tmp_path / "ds"
    (index / "pages").mkdir(parents=True)
    (index / "pages" / "a.html").write_text(TEXTS[0])
    (index / "index.jsonl").write_bytes(b'{"id": "a"}\n' + b"\n" * (2 << 20) + b'{"id": "b"}\n')
    out = tmp_path / "out"
    assert main(["crawl", str(path), str(index), "--out", str(out), "--max-record-mb", "0.25",
                 "--quiet", "--workers", "1", "--method", "alltext"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["records_in"], summary["results"], summary["errors"]) == (4, 2, 2)
    assert summary["balanced"]
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert sorted(e["input"] for e in errors) == sorted([str(path), str(index)])
    assert all("blank lines past" in e["reason"] for e in errors), errors


def test_a_local_spark_crawl_holds_its_out_as_the_local_job_does(
        tmp_path: Path, inputs: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sitesift.spark
    from sitesift.io.sinks import hold_folder

    def no_spark(*_: object) -> None:
        raise AssertionError("Spark started although --out is held")

    monkeypatch.setattr(sitesift.spark, "local_session", no_spark)
    out = tmp_path / "out"
    with hold_folder(out, "crawl"):  # a second lock of the file conflicts, even in-process
        code = main(["crawl", *inputs, "--engine", "spark", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"in use by another crawl (process {os.getpid()})" in err
