"""Hostile inputs to every reader (issue 31, items 3, 4, 9 and the inputs of 10): bombs,
bad lines, bad names, ids that leave their dataset, FIFOs and unreadable paths. Each is
built here by a small generator; each must become one error record naming the input and
the reason, with the records after it read, the memory held bounded and no traceback.
The crawl (`read_input`), `clean` (`collect_sources` + `run_groups`) and `evaluate` are
checked on the same cases: they share the reading code."""

from __future__ import annotations

import errno
import json
import os
import signal
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from sitesift.batch import Outcome, run_groups
from sitesift.cli import main
from sitesift.datasets import load_page, read_page_bytes
from sitesift.errors import InputError, ModelError
from sitesift.inputs import collect_sources
from sitesift.io.records import Failed, Item, PageRecord
from sitesift.io.sources import input_kind, read_input
from sitesift.model_io import load_model

MiB = 1 << 20
PAGE = ("<html><head><title>t</title></head><body><p>"
        + "Words of an ordinary page, written to be read. " * 20 + "</p></body></html>")
T = TypeVar("T")


# --- generators ----------------------------------------------------------------------------

def gzip_bomb(size: int, tail: bytes = b"") -> bytes:
    """`size` zero bytes and then `tail`, gzipped (about 1,000 to 1), built a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(MiB)
    parts = [packer.compress(zeros) for _ in range(size // MiB)]
    return b"".join([*parts, packer.compress(tail), packer.flush()])


def dataset(root: Path, rows: list[str], pages: dict[str, bytes]) -> Path:
    """A dataset folder: `rows` as the lines of index.jsonl, `pages` as files of pages/,
    and a gold file for every page."""
    (root / "pages").mkdir(parents=True)
    (root / "gold").mkdir()
    (root / "index.jsonl").write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
    for name, data in pages.items():
        (root / "pages" / name).write_bytes(data)
        (root / "gold" / f"{name.split('.')[0]}.txt").write_text("Words of an ordinary page")
    return root


def row(page_id: str, **more: Any) -> str:
    return json.dumps({"id": page_id, "url": f"http://example.org/{page_id}", **more})


HUGE_NUMBER = "9" * 5000  # past Python's 4,300 digits for int(str): json raises ValueError


@contextmanager
def traced() -> Iterator[Callable[[], int]]:
    """The most memory Python has held since the block began (tracemalloc), on call."""
    tracemalloc.start()
    try:
        yield lambda: tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def peak_of(run: Callable[[], T]) -> tuple[T, int]:
    """What `run` returns, and the most memory Python held while it ran."""
    with traced() as peak:
        return run(), peak()


class Hung(Exception):
    """Not an OSError (TimeoutError is one), which a reader might catch and go on."""


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail the test instead of hanging it (a FIFO opened for reading waits for a writer)."""
    def expired(*_: Any) -> None:
        signal.alarm(1)  # and again, should a reader swallow this one
        raise Hung(f"still reading after {seconds} s: a FIFO was opened?")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def crawl_items(path: Path, max_bytes: int = 16 * MiB) -> list[Item]:
    return list(read_input(str(path), 0, max_bytes))


def clean_outcomes(path: Path) -> list[Outcome]:
    return list(run_groups(collect_sources(path, "site"), "alltext"))


def errors_of(outcomes: list[Outcome]) -> dict[str, str]:
    return {o.id: o.error for o in outcomes if o.error is not None}


def writable(text: str) -> bool:
    """Can this be written as UTF-8 (an output file, a JSON record)?"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# --- item 3: decompression bombs -----------------------------------------------------------

def test_dataset_gzip_bomb_is_one_error_record_read_within_the_limit(tmp_path: Path) -> None:
    root = dataset(tmp_path / "ds", [row("bomb"), row("after")],
                   {"bomb.html.gz": gzip_bomb(64 * MiB), "after.html": PAGE.encode()})
    items, peak = peak_of(lambda: crawl_items(root, max_bytes=MiB))
    assert peak < 8 * MiB, f"the crawl's reader held {peak:,} bytes for a 1 MiB limit"
    assert isinstance(items[0], Failed)
    assert "bomb" in items[0].reason and "1,048,576" in items[0].reason
    assert isinstance(items[1], PageRecord) and items[1].url == "http://example.org/after"
    # clean and evaluate load the same file through the same reader
    assert read_page_bytes(root, {"id": "after"}, max_bytes=MiB) == PAGE.encode()
    with traced() as peak:
        with pytest.raises(InputError, match="unpacks to more than 1,048,576 bytes"):
            read_page_bytes(root, {"id": "bomb"}, max_bytes=MiB)
        assert peak() < 8 * MiB


def test_jsonl_gz_bomb_line_is_one_error_record_and_the_next_line_is_read(
        tmp_path: Path) -> None:
    good = json.dumps({"url": "http://example.org/good", "html": PAGE}).encode()
    path = tmp_path / "crawl.jsonl.gz"
    path.write_bytes(gzip_bomb(64 * MiB, b"\n" + good + b"\n"))  # one line of 64 MiB
    items, peak = peak_of(lambda: crawl_items(path, max_bytes=MiB))
    assert peak < 16 * MiB, f"the JSONL reader held {peak:,} bytes for a 1 MiB limit"
    assert [type(i) for i in items] == [Failed, PageRecord]
    assert isinstance(items[0], Failed) and "line 1: longer than the limit" in items[0].reason
    assert isinstance(items[1], PageRecord) and items[1].url == "http://example.org/good"


def test_clean_reads_a_dataset_bomb_no_further_than_the_page_limit(tmp_path: Path) -> None:
    root = dataset(tmp_path / "ds", [row("bomb"), row("after")],
                   {"bomb.html.gz": gzip_bomb(256 * MiB), "after.html": PAGE.encode()})
    outcomes, peak = peak_of(lambda: clean_outcomes(root))  # in this process: no limits
    assert peak < 100 * MiB, f"clean held {peak:,} bytes for a 64 MiB page limit"
    errors = errors_of(outcomes)
    assert list(errors) == ["bomb"] and "67,108,864" in errors["bomb"]


def test_model_files_are_bounded_regular_and_parsed_without_traceback(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip_bomb(64 * MiB))
    with traced() as peak:
        with pytest.raises(ModelError, match="unpacks to more than") as refused:
            load_model(bomb, max_bytes=MiB)
        assert peak() < 8 * MiB and str(bomb) in str(refused.value)
    number = tmp_path / "number.json"
    number.write_text(f'{{"format": "sitesift-model", "n": {HUGE_NUMBER}}}')
    with pytest.raises(ModelError, match="digits"):
        load_model(number)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with deadline(10), pytest.raises(ModelError, match="not a regular file"):
        load_model(fifo)


# --- item 4: one bad line or name costs only itself ----------------------------------------

def test_jsonl_bad_lines_cost_only_themselves(tmp_path: Path) -> None:
    path = tmp_path / "crawl.jsonl"
    path.write_text(
        f'{{"url": "http://example.org/n", "html": "<p>x</p>", "n": {HUGE_NUMBER}}}\n'
        + '{"url": "http://example.org/\\ud800", "html": "<p>lone surrogate</p>"}\n'
        + json.dumps({"url": "http://example.org/good", "html": PAGE}) + "\n")
    items = crawl_items(path)
    assert [type(i) for i in items] == [Failed, Failed, PageRecord]
    assert isinstance(items[0], Failed) and items[0].reason.startswith("line 1: bad JSON")
    assert "4,300 digits" in items[0].reason
    assert isinstance(items[1], Failed) and "line 2" in items[1].reason
    assert "surrogate" in items[1].reason and items[1].url is None
    assert all(writable(i.reason) for i in items if isinstance(i, Failed))


def test_index_bad_lines_are_records_in_crawl_clean_and_evaluate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = dataset(tmp_path / "ds", [
        f'{{"id": "n", "year": {HUGE_NUMBER}}}',
        '{"id": "s\\udc80"}',
        '{"id": 7}',
        "{not json",
        row("good"),
    ], {"good.html": PAGE.encode(), "n.html": PAGE.encode()})
    items = crawl_items(root)
    assert [type(i) for i in items] == [Failed] * 4 + [PageRecord]
    reasons = [i.reason for i in items if isinstance(i, Failed)]
    assert [r.split(":")[:2] for r in reasons] == [["index.jsonl", str(n)] for n in (1, 2, 3, 4)]
    assert "digits" in reasons[0] and "surrogate" in reasons[1] and "'id'" in reasons[2]
    errors = errors_of(clean_outcomes(root))
    assert sorted(errors) == [f"index.jsonl:{n}" for n in (1, 2, 3, 4)]
    assert "digits" in errors["index.jsonl:1"]
    capsys.readouterr()
    assert main(["evaluate", str(root), "--method", "alltext", "--out", str(tmp_path / "ev"),
                 "--quiet", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "skipped index.jsonl:1: bad JSON: a number of more than" in err
    assert "5 pages = 1 scored + 0 errors + 4 skipped (4 bad index line)" in err


def test_file_name_not_utf8_is_a_record_in_crawl_and_clean(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "good.html").write_text(PAGE)
    Path(os.fsdecode(os.fsencode(folder) + b"/caf\xe9.html")).write_text(PAGE)
    items = crawl_items(folder)
    assert [type(i) for i in items] == [Failed, PageRecord]  # in path order
    assert isinstance(items[0], Failed) and "not UTF-8" in items[0].reason
    assert items[0].input.endswith("caf\\xe9.html") and writable(items[0].input)
    outcomes = clean_outcomes(folder)
    errors = errors_of(outcomes)
    assert len(outcomes) == 2 and len(errors) == 1
    ((name, reason),) = errors.items()
    assert writable(name) and "caf\\xe9.html" in name and "not UTF-8" in reason
    # named on the command line: `clean` records it, `crawl` refuses it before any work
    bad = Path(os.fsdecode(os.fsencode(folder) + b"/caf\xe9.html"))
    assert list(errors_of(clean_outcomes(bad)).values()) == [reason]
    with pytest.raises(InputError, match="not UTF-8"):
        input_kind(bad)


# --- item 9: ids stay inside their dataset -------------------------------------------------

def test_ids_that_leave_the_dataset_are_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.html").write_text(PAGE.replace("ordinary", "SECRET"))
    root = dataset(tmp_path / "a" / "ds", [
        row("../../../secret"), row(str(tmp_path / "secret")), row("x/../../../../secret"),
        row("good"),
    ], {"good.html": PAGE.encode()})
    items = crawl_items(root)
    assert [type(i) for i in items] == [Failed, Failed, Failed, PageRecord]
    assert all("outside" in i.reason for i in items if isinstance(i, Failed))
    assert not any(b"SECRET" in i.body for i in items if isinstance(i, PageRecord))
    outcomes = clean_outcomes(root)
    assert len(errors_of(outcomes)) == 3
    assert not any("SECRET" in o.result.text for o in outcomes if o.result is not None)
    with pytest.raises(InputError, match="outside"):
        load_page(root, {"id": "../../../secret"})


def test_benchmarks_read_the_pages_with_gold_and_name_the_unreadable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitesift.datasets import gold_pages

    root = dataset(tmp_path / "ds", [row("empty"), row("nogold"), row("good")],
                   {"empty.html": b"", "nogold.html": PAGE.encode(), "good.html": PAGE.encode()})
    (root / "gold" / "nogold.txt").unlink()
    got = [(r["id"], page.id, gold) for r, page, gold in gold_pages(root)]
    assert got == [("good", "good", "Words of an ordinary page")]
    assert "skip ds/empty: " in capsys.readouterr().err


# --- item 10 (inputs): FIFOs, unreadable list files and folders ----------------------------

def test_fifo_is_an_error_record_never_opened(tmp_path: Path) -> None:
    (tmp_path / "good.html").write_text(PAGE)
    os.mkfifo(tmp_path / "fifo.html")
    listing = tmp_path / "list.txt"
    listing.write_text("fifo.html\ngood.html\n")
    with deadline(20):
        errors = errors_of(clean_outcomes(listing))  # `clean LIST`
        items = crawl_items(tmp_path)  # a folder input to the crawl
    assert list(errors) == ["fifo"] and "not a regular file" in errors["fifo"]
    assert [type(i) for i in items] == [Failed, PageRecord]
    assert isinstance(items[0], Failed) and "not a regular file" in items[0].reason


def _refuse(monkeypatch: pytest.MonkeyPatch, name: str, *targets: tuple[Any, str]) -> None:
    """Opening (or listing) `name` fails with EACCES, as for a user without the right:
    tests run as root, whom permissions do not stop."""
    for owner, attr in targets:
        real = getattr(owner, attr)

        def refused(path: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            if os.fspath(path) == name:
                raise PermissionError(errno.EACCES, "Permission denied", name)
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(owner, attr, refused)


def test_unreadable_list_file_is_a_message_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import builtins

    listing = tmp_path / "list.txt"
    listing.write_text("good.html\n")
    _refuse(monkeypatch, str(listing), (os, "open"), (builtins, "open"))
    assert main(["fit", str(listing), "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert str(listing) in err and "Permission denied" in err


def test_unreadable_subfolder_is_recorded(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "good.html").write_text(PAGE)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "hidden.html").write_text(PAGE)
    _refuse(monkeypatch, str(tmp_path / "locked"), (os, "scandir"))
    items = crawl_items(tmp_path)
    assert [type(i) for i in items] == [PageRecord, Failed]
    assert isinstance(items[1], Failed) and items[1].input == str(tmp_path / "locked")
    assert "Permission denied" in items[1].reason
    errors = errors_of(clean_outcomes(tmp_path))
    assert list(errors) == [str(tmp_path / "locked")]


# --- the three commands on one dataset of every case ---------------------------------------

def test_clean_crawl_and_evaluate_account_for_every_hostile_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = dataset(tmp_path / "ds", [
        f'{{"id": "n", "year": {HUGE_NUMBER}}}', row("../../escape"), row("bomb"), row("good"),
    ], {"bomb.html.gz": gzip_bomb(65 * MiB), "good.html": PAGE.encode()})
    (tmp_path / "escape.html").write_text(PAGE)
    assert main(["clean", str(root), "--method", "alltext", "--out", str(tmp_path / "c"),
                 "--quiet", "--workers", "1"]) == 1
    cleaned = (tmp_path / "c" / "errors.jsonl").read_text().splitlines()
    assert len(cleaned) == 3 and sorted(os.listdir(tmp_path / "c")) == [
        "errors.jsonl", "good.txt", "manifest.jsonl"]
    assert main(["crawl", str(root), "--method", "alltext", "--out", str(tmp_path / "w"),
                 "--quiet", "--workers", "1", "--max-record-mb", "1"]) == 1
    summary = json.loads((tmp_path / "w" / "summary.json").read_text())
    assert (summary["records_in"], summary["results"], summary["errors"]) == (4, 1, 3)
    assert main(["evaluate", str(root), "--method", "alltext", "--out", str(tmp_path / "e"),
                 "--quiet", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "4 pages = 1 scored + 1 errors + 2 skipped (2 bad index line)" in err
    assert "Traceback" not in err
