"""The local crawl job: accounting, guards, resume after a kill, model store, CLI."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sitesift.cli import SAMPLE_SITE, main
from sitesift.crawl import run_crawl
from sitesift.datasets import read_index, read_page_bytes
from sitesift.decode import decode_html
from sitesift.errors import InputError
from sitesift.guards import (
    END,
    Busy,
    Last,
    Limits,
    Lost,
    PageTimeout,
    Supervisor,
    Then,
    time_limit,
)
from sitesift.io.warc import HttpResponse, warc_record, write_warc
from sitesift.jobs.run import RunSettings
from sitesift.methods.base import get_cleaner, method_names
from sitesift.output import Output, finish
from sitesift.page import Page
from sitesift.sitework import CrawlConfig

BODIES = [read_page_bytes(SAMPLE_SITE, r) for r in read_index(SAMPLE_SITE)]
CFG = CrawlConfig(fit_sample=10)  # the default method (`default`) and fallback (`default`)
OLD_DEFAULTS = CrawlConfig(method="sst", fallback="alltext", fit_sample=10)  # before
HOST = "www.hillgazette.example"


def pages(host: str, n: int, start: int = 0) -> list[HttpResponse]:
    return [HttpResponse(f"http://{host}/{k}.html", BODIES[(start + k) % len(BODIES)])
            for k in range(n)]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def by_site(out: Path) -> dict[str, dict[str, object]]:
    return {str(e["site"]): e for e in lines(out / "sites.jsonl")}


def huge_page(n: int) -> bytes:
    """Several MB of small elements: seconds to parse and clean, hundreds of MB of tree."""
    return b"<html><body>" + b"<div class=c><p>word here</p><span>x</span></div>" * n


# -- guards ---------------------------------------------------------------------------------

def guard_handler(task: str, config: object, limits: Limits) -> Iterator[object]:
    """A worker handler for the tests: each comma-separated action is one unit."""
    for unit, action in enumerate(task.split(",")):
        if action == "warmcrash":  # a crash before any page: no unit to name
            yield Busy(-1, "warm-up", limits.page_seconds)
            os.kill(os.getpid(), signal.SIGSEGV)
        yield Busy(unit, action, limits.page_seconds)
        yield _act(unit, action, limits)


def _act(unit: int, action: str, limits: Limits) -> str:
    try:
        with time_limit(limits.page_seconds):
            if action == "slow":  # Python code: the in-process timer stops it
                time.sleep(60)
            elif action == "stuck":  # as if inside C code: only the supervisor can stop it
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(60)
            elif action == "hog":
                bytearray(8 << 30)
            elif action == "full":  # fills its address space, then spins out of reach
                held = []
                with contextlib.suppress(MemoryError):
                    while True:
                        held.append(bytearray(1 << 20))
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(600)
            elif action == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
        return f"{unit}:ok"
    except PageTimeout:
        return f"{unit}:timeout"
    except MemoryError:
        return f"{unit}:oom"


def paired_handler(task: str, config: object, limits: Limits) -> Iterator[object]:
    """`guard_handler`'s units as a site's pages go: each unit's Busy with the outcome
    before it (`Then`), the last outcome with the task's end (`Last`)."""
    actions = task.split(",")
    yield Busy(0, actions[0], limits.page_seconds)
    for unit, action in enumerate(actions):
        got = _act(unit, action, limits)
        if unit + 1 < len(actions):
            yield Then(got, Busy(unit + 1, actions[unit + 1], limits.page_seconds))
        else:
            yield Last(got)


def test_the_busy_that_rides_on_an_outcome_blames_its_unit() -> None:
    limits = Limits(page_seconds=0.5, grace_seconds=1.0, memory_mb=512)
    supervisor: Supervisor[str] = Supervisor("tests.test_crawl:paired_handler", None, 1, limits)
    events: dict[str, list[str]] = {}
    for task, message in supervisor.run(["ok,ok,ok", "ok,crash,ok", "ok,slow,ok", "ok"]):
        if isinstance(message, Lost):
            assert message.busy is not None
            how = "retired" if message.retired else "lost"
            message = f"{how} {message.busy.unit}:{message.busy.stage}: {message.reason}"
        events.setdefault(task, []).append("end" if message is END else str(message))
    assert events["ok,ok,ok"] == ["0:ok", "1:ok", "2:ok", "end"]
    assert events["ok,crash,ok"][0] == "0:ok" and len(events["ok,crash,ok"]) == 2
    assert events["ok,crash,ok"][1].startswith("lost 1:crash: worker died (SIGSEGV)")
    assert events["ok,slow,ok"] == ["0:ok", "1:timeout",
                                    "retired 1:slow: page exceeded the time limit of 0.5 s"]
    assert events["ok"] == ["0:ok", "end"]


def test_supervisor_survives_hangs_hogs_and_crashes() -> None:
    limits = Limits(page_seconds=0.5, grace_seconds=1.0, memory_mb=512)
    supervisor: Supervisor[str] = Supervisor("tests.test_crawl:guard_handler", None, 1, limits)
    events: dict[str, list[str]] = {}
    for task, message in supervisor.run(["ok,slow,ok", "ok,hog,ok", "ok,stuck,ok",
                                         "ok,crash,ok", "warmcrash", "ok"]):
        if isinstance(message, Lost):
            assert message.busy is not None
            how = "retired" if message.retired else "lost"
            message = f"{how} {message.busy.unit}:{message.busy.stage}: {message.reason}"
        events.setdefault(task, []).append("end" if message is END else str(message))
    # a unit the in-process timer cut short is recorded, then its worker retires: the rest
    # of the task is the caller's to hand to a fresh worker (jobs.retry)
    assert events["ok,slow,ok"] == ["0:ok", "1:timeout",
                                    "retired 1:slow: page exceeded the time limit of 0.5 s"]
    assert events["ok,hog,ok"] == ["0:ok", "1:oom", "2:ok", "end"]
    assert events["ok,stuck,ok"][0] == "0:ok" and len(events["ok,stuck,ok"]) == 2
    assert events["ok,stuck,ok"][1].startswith("lost 1:stuck: stuck exceeded the time limit")
    assert events["ok,crash,ok"][1].startswith("lost 1:crash: worker died (SIGSEGV)")
    assert events["warmcrash"][0].startswith(
        "lost -1:warm-up: worker died (SIGSEGV) during warm-up;"), events["warmcrash"]
    assert events["ok"] == ["0:ok", "end"]  # a fresh worker took over


def test_a_worker_stuck_at_its_memory_limit_is_stopped_before_its_time_limit() -> None:
    # (a page that exhausts the worker's memory often leaves it spinning in the allocator:
    # it should cost the grace period, not the page's whole time budget)
    limits = Limits(page_seconds=60.0, grace_seconds=1.0, memory_mb=256)
    supervisor: Supervisor[str] = Supervisor("tests.test_crawl:guard_handler", None, 1, limits)
    events: dict[str, list[str]] = {}
    for task, message in supervisor.run(["ok,full,ok", "ok"]):
        text = message.reason if isinstance(message, Lost) else str(message)
        events.setdefault(task, []).append("end" if message is END else text)
    assert events["ok,full,ok"][0] == "0:ok" and len(events["ok,full,ok"]) == 2
    assert events["ok,full,ok"][1].startswith(
        "out of memory: full of unit 1 kept the worker at its memory limit of 256 MiB for "
        "1 s"), events["ok,full,ok"][1]
    assert events["ok"] == ["0:ok", "end"]  # a fresh worker took over


def test_time_limit_stops_python_code_and_disarms() -> None:
    with pytest.raises(PageTimeout, match=r"time limit of 0\.05 s"), time_limit(0.05):
        while True:
            pass
    with time_limit(5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# -- the local job --------------------------------------------------------------------------

def crawl_inputs(root: Path) -> list[str]:
    """A WARC.gz (one site of 12 pages, one of 2, non-pages, a gzip bomb, and cut off
    inside its last record), a JSONL file and a folder of pages without URLs: 25 records,
    18 of them pages to clean, 3 unreadable, 4 to skip."""
    warc = root / "crawl.warc.gz"
    bomb = gzip.compress(b"\0" * (40 << 20), 9)
    write_warc(warc, [  # the small site's and the bomb's records with payload digests
        *pages(HOST, 12), *(replace(p, digests=True) for p in pages("news.small.example", 2, 12)),
        HttpResponse("http://a.example/q", b"", record_type="request"),
        HttpResponse("http://a.example/logo.png", b"\x89PNG\r\n", "image/png"),
        HttpResponse("http://a.example/gone", BODIES[0], status=404),
        HttpResponse("http://a.example/bomb", bomb, headers=(("Content-Encoding", "gzip"),),
                     digests=True),
    ])
    last = gzip.compress(warc_record(HttpResponse(f"http://{HOST}/cut.html", BODIES[5])))
    with open(warc, "ab") as fh:
        fh.write(last[: len(last) // 2])
    jsonl = root / "more.jsonl"
    rows = [json.dumps({"url": f"http://hillgazette.example/j{k}",
                        "html": decode_html(BODIES[k]).text}) for k in (12, 13)]
    rows.append('{"url": "http://hillgazette.example/j3", "html": ')  # cut short: bad JSON
    jsonl.write_text("\n".join(rows) + "\n", encoding="utf-8")
    folder = root / "pages"
    folder.mkdir()
    for k in (1, 2):
        (folder / f"p{k}.html").write_bytes(b"<html><body><p>Local page %d.</p></body>" % k)
    return [str(warc), str(jsonl), str(folder)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return crawl_inputs(tmp_path_factory.mktemp("inputs"))


def test_crawl_accounts_for_every_record(tmp_path: Path, inputs: list[str]) -> None:
    summary = run_crawl(inputs, tmp_path, CFG, run=RunSettings(2))
    assert summary["balanced"]
    assert summary["records_in"] == 20 + 3 + 2
    assert summary["records_in"] == summary["results"] + summary["errors"] + summary["skipped"]
    assert (summary["results"], summary["errors"], summary["skipped"]) == (18, 3, 4)
    assert summary["skipped_by_reason"] == {
        "HTTP status 404": 1, "WARC request record": 1, "WARC warcinfo record": 1,
        "content type image/png": 1}
    results = lines(tmp_path / "results.jsonl")
    errors = lines(tmp_path / "errors.jsonl")
    assert len(results) == 18 and len(errors) == 3
    reasons = {str(e["url"]): str(e["reason"]) for e in errors}
    assert "decompression bomb" in reasons["http://a.example/bomb"]
    assert "truncated" in reasons[f"http://{HOST}/cut.html"]
    assert any("bad JSON" in r for r in reasons.values())
    sites = by_site(tmp_path)
    assert sites["hillgazette.example"]["model"] == "fitted"
    assert sites["hillgazette.example"]["pages"] == 14  # WARC and JSONL pages, one site
    assert sites["small.example"]["model"] == sites["(no url)"]["model"] == "fallback"
    # one method throughout, as `sitesift clean` runs it: site-level where the site is
    # large enough, page-level (unfitted) for the small site and the pages without a URL
    assert {str(e["method"]) for e in sites.values()} == {"default"}
    assert {r["method"] for r in results} == {"default"}
    main_site = [r for r in results if r["site"] == "hillgazette.example"]
    assert all("All rights reserved" not in str(r["text"]) for r in main_site)
    assert all(int(r["content_blocks"]) <= int(r["blocks"]) for r in results)  # type: ignore[call-overload]
    assert not (tmp_path / "work").exists()


def test_every_record_says_where_it_came_from(tmp_path: Path, inputs: list[str]) -> None:
    """Provenance on every result and every error record: a WARC's record id, date and
    payload digest (where it has one) as its WARC header says, a record that could not be
    read included; nulls for the other inputs; and the digest of the record's text."""
    from tests.test_warc import sha1_b32, warc_heads

    run_crawl(inputs, tmp_path, CFG, run=RunSettings(1))
    heads = {h["WARC-Target-URI"]: h for h in warc_heads(Path(inputs[0]))
             if "WARC-Target-URI" in h}
    results = lines(tmp_path / "results.jsonl")
    records = results + lines(tmp_path / "errors.jsonl")
    assert len(records) == 18 + 3
    from_warc = [r for r in records if r["input"] == inputs[0]]
    assert len(from_warc) == 14 + 2  # its pages, the bomb and the record cut short
    for record in from_warc:
        head = heads[str(record["url"])]
        assert record["warc_record_id"] == head["WARC-Record-ID"]
        assert record["warc_date"] == head["WARC-Date"]
        assert record["warc_payload_digest"] == head.get("WARC-Payload-Digest")
        assert isinstance(record["offset"], int)
    digested = {str(r["url"]) for r in from_warc if r["warc_payload_digest"]}
    assert digested == {"http://news.small.example/0.html", "http://news.small.example/1.html",
                        "http://a.example/bomb"}
    others = [r for r in records if r["input"] != inputs[0]]
    assert len(others) == 5 and all(
        r["warc_record_id"] is r["warc_date"] is r["warc_payload_digest"] is None
        for r in others)
    assert all(r["text_digest"] == sha1_b32(str(r["text"]).encode()) for r in results)
    # one digest a text and one text a digest: exact copies are found by their digest
    by_digest = {(r["text_digest"], r["text"]) for r in results}
    assert len({d for d, _ in by_digest}) == len({t for _, t in by_digest}) == len(by_digest)


def test_inputs_are_read_in_parallel_only_where_they_are_large(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process reading inputs starts only for `INGEST_BYTES_PER_PROCESS` of them: small
    inputs are read in the crawl's own process, where starting costs nothing."""
    from sitesift.crawl import INGEST_BYTES_PER_PROCESS, ingest_processes

    paths = [tmp_path / f"{i}.jsonl" for i in range(6)]
    for path in paths:
        path.write_bytes(b"x" * 1000)
    inputs = [str(p) for p in paths]
    assert INGEST_BYTES_PER_PROCESS >= 16 << 20
    assert ingest_processes(inputs, workers=4) == 1
    assert ingest_processes([str(tmp_path / "missing.warc")], workers=2) == 1
    monkeypatch.setattr("sitesift.crawl.INGEST_BYTES_PER_PROCESS", 2000)
    assert ingest_processes(inputs, workers=8) == 3  # 6,000 bytes: three readers
    assert ingest_processes(inputs, workers=2) == 2
    assert ingest_processes(inputs[:1], workers=4) == 1  # one input, one reader


def test_a_record_counts_the_noise_blocks_it_does_not_hold() -> None:
    """The crawl cleans without noise blocks (its records hold none); its block count is
    still every block of the page, as a cleaning with the noise has them."""
    from sitesift.io.records import PageRecord, result_record

    page = Page.from_bytes(BODIES[0], url=f"http://{HOST}/0.html")
    cleaner = get_cleaner("default")
    whole, lean = cleaner.clean(page), cleaner.clean(page, noise=False)
    assert len(lean.blocks) < len(whole.blocks) == lean.n_blocks
    assert [b.text for b in lean.blocks] == [b.text for b in whole.content]
    where = PageRecord(0, 0, "sample", page.url, None, b"")
    record = result_record(where, finish(lean, page, Output(noise=False)))
    assert record["blocks"] == len(whole.blocks)
    assert record["content_blocks"] == len(whole.content)


@pytest.mark.parametrize(("limits", "words"), [
    (Limits(page_seconds=1.0, grace_seconds=1.0), ("time limit",)),
    # The memory case must not race the clock: on a loaded machine the default 10 s of wall
    # time can pass before the worker has allocated 300 MiB.
    (Limits(memory_mb=300, page_seconds=300.0), ("memory",)),
], ids=["time", "memory"])
def test_pathological_page_becomes_an_error_record(tmp_path: Path, limits: Limits,
                                                   words: tuple[str, ...]) -> None:
    warc = tmp_path / "patho.warc"
    write_warc(warc, [*pages(HOST, 6), HttpResponse(f"http://{HOST}/huge", huge_page(200_000)),
                      *pages(HOST, 3, 6)])
    summary = run_crawl([str(warc)], tmp_path / "out", CFG, run=RunSettings(1, limits))
    assert summary["balanced"] and summary["results"] == 9 and summary["errors"] == 1
    (error,) = lines(tmp_path / "out" / "errors.jsonl")
    assert error["url"] == f"http://{HOST}/huge"
    assert any(w in str(error["reason"]) for w in words), error["reason"]
    assert by_site(tmp_path / "out")["hillgazette.example"]["model"] == "fitted"


def _many_sites(path: Path, sites: int) -> str:
    write_warc(path, [p for k in range(sites) for p in pages(f"site{k:02d}.example", 6, k)])
    return str(path)


def _outputs(out: Path) -> list[bytes]:
    return [(out / name).read_bytes() for name in ("results.jsonl", "errors.jsonl",
                                                  "sites.jsonl")]


def crawl_with_batches(seconds: float) -> list[str]:
    """The command `sitesift`, committing finished sites after `seconds` (not the default
    10 s, longer than these crawls take), so that a kill lands between batches of a few."""
    return [sys.executable, "-c", "import sys; from sitesift.io import parts; "
            f"parts.BATCH_SECONDS = {seconds}; from sitesift.cli import main; "
            "sys.exit(main(sys.argv[1:]))"]


def test_killed_crawl_resumes_without_losing_or_duplicating(tmp_path: Path) -> None:
    # sites enough that the job outlasts a few batches however fast the cleaning gets
    # (14 sites were done before the third commit could be seen)
    warc = _many_sites(tmp_path / "many.warc.gz", 40)
    whole = run_crawl([warc], tmp_path / "whole", CFG, run=RunSettings(1))
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [*crawl_with_batches(0.2), "crawl", warc, "--out", str(out), "--fit-sample", "10",
         "--workers", "1", "--quiet"],
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    manifest = out / "work" / "done.jsonl"
    try:
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            if manifest.is_file() and len(manifest.read_text().splitlines()) >= 3:
                os.killpg(proc.pid, signal.SIGKILL)  # the job and its workers, mid-run
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (out / "summary.json").exists(), "the job finished before it could be killed"
    resumed = run_crawl([warc], out, CFG, run=RunSettings(1))
    assert resumed["balanced"] and resumed["results"] == whole["results"] == 240
    assert _outputs(out) == _outputs(tmp_path / "whole")


def test_resume_redoes_exactly_the_unfinished_parts(tmp_path: Path) -> None:
    """Cut state by hand as a kill would leave it: an input half read, a manifest line cut
    short, stale part files; the rerun gives the uninterrupted run's files."""
    first = _many_sites(tmp_path / "one.warc", 3)
    second = _many_sites(tmp_path / "two.warc.gz", 2)
    whole = run_crawl([first, second], tmp_path / "whole", CFG, run=RunSettings(2))
    out = tmp_path / "cut"
    run_crawl([first, second], out, CFG, run=RunSettings(2), keep_work=True)
    work = out / "work"
    for name in ("summary.json", "results.jsonl", "errors.jsonl", "sites.jsonl"):
        (out / name).unlink()
    # input 1 half read: its ingest not committed, a partial folder, its spill half written
    (work / "inputs" / "1").rename(work / "inputs" / "1.part-99999")
    (work / "inputs" / "1.part-99999" / "report.json").unlink()
    spill = work / "inputs" / "1.part-99999" / "pages.spill"
    spill.write_bytes(spill.read_bytes()[:100])
    done = (work / "done.jsonl").read_text().splitlines()
    (work / "done.jsonl").write_text("\n".join(done[:2]) + "\n" + done[2][:15])
    (work / "parts" / "part-7.results.jsonl.tmp").write_text('{"text": "stale"}\n')
    resumed = run_crawl([first, second], out, CFG, run=RunSettings(2))
    assert resumed["records_in"] == whole["records_in"] and resumed["balanced"]
    assert _outputs(out) == _outputs(tmp_path / "whole")


def test_a_different_job_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    warc = _many_sites(tmp_path / "a.warc", 1)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "job.json").write_text('{"inputs": [], "format": "jsonl"}')
    with pytest.raises(InputError, match="holds a different crawl"):
        run_crawl([warc], tmp_path / "out", CFG)


def test_model_store_reuses_refits_and_replaces_damaged_models(tmp_path: Path) -> None:
    warc = _many_sites(tmp_path / "a.warc", 1)
    models = tmp_path / "models"
    cfg = CrawlConfig(fit_sample=10, models=str(models))
    run_crawl([warc], tmp_path / "fit", cfg, run=RunSettings(1))
    (stored,) = models.glob("site00.example-*.default.json.gz")
    run_crawl([warc], tmp_path / "reuse", cfg, run=RunSettings(1))
    assert by_site(tmp_path / "reuse")["site00.example"]["model"] == "stored"
    assert _outputs(tmp_path / "reuse")[:2] == _outputs(tmp_path / "fit")[:2]
    run_crawl([warc], tmp_path / "refit", CrawlConfig(fit_sample=10, models=str(models),
                                                       refit=True), run=RunSettings(1))
    assert by_site(tmp_path / "refit")["site00.example"]["model"] == "fitted"
    stored.write_bytes(stored.read_bytes()[:100])  # damaged: refitted, and said so
    run_crawl([warc], tmp_path / "damaged", cfg, run=RunSettings(1))
    entry = by_site(tmp_path / "damaged")["site00.example"]
    assert entry["model"] == "fitted" and "stored model unusable" in str(entry["note"])


@pytest.mark.parametrize("fallback", ["alltext", "cetr-km"])
def test_small_sites_use_the_fallback_cleaner(tmp_path: Path, fallback: str) -> None:
    if fallback not in method_names():
        pytest.skip(f"{fallback} is not registered")
    warc = tmp_path / "small.warc"
    write_warc(warc, pages("tiny.example", 3))
    run_crawl([str(warc)], tmp_path / "out", CrawlConfig(fallback=fallback), run=RunSettings(1))
    results = lines(tmp_path / "out" / "results.jsonl")
    assert {r["method"] for r in results} == {fallback} and len(results) == 3
    assert by_site(tmp_path / "out")["tiny.example"]["note"] == "3 pages, fewer than 5"


def page_of(response: HttpResponse, site: str) -> Page:
    return Page.from_bytes(response.body, url=response.url, site=site,
                           content_type=response.content_type)


def test_small_sites_are_cleaned_page_level_by_default(tmp_path: Path) -> None:
    """No --method, no --fallback: a site too small to fit is cleaned by `default` fitted on
    nothing, page by page, and so its text is that of `default` on the page alone."""
    warc = tmp_path / "small.warc"
    small = pages("tiny.example", 3)
    write_warc(warc, small)
    run_crawl([str(warc)], tmp_path / "out", CrawlConfig(), run=RunSettings(1))
    results = lines(tmp_path / "out" / "results.jsonl")
    assert {r["method"] for r in results} == {"default"} and len(results) == 3
    entry = by_site(tmp_path / "out")["tiny.example"]
    assert (entry["method"], entry["model"], entry["note"]) == (
        "default", "fallback", "3 pages, fewer than 5")
    alone = get_cleaner("default")
    as_text = Output(renderings=("text",))
    assert [r["text"] for r in results] == [
        finish(alone.clean(p := page_of(r, "tiny.example")), p, as_text).text for r in small]
    job = json.loads((tmp_path / "out" / "job.json").read_text())
    assert (job["config"]["method"], job["config"]["fallback"]) == ("default", "default")


def test_the_fallback_takes_the_methods_parameters_when_it_is_the_same_method() -> None:
    cfg = CrawlConfig(params={"preset": "precision"})
    assert cfg.fallback_cleaner().get_params()["preset"] == "precision"
    other = CrawlConfig(method="sst", params={"threshold": 0.4}).fallback_cleaner()
    assert other.name == "default"  # another method's parameters are not the fallback's
    assert other.get_params()["threshold"] is None
    assert CrawlConfig(params={"preset": "precision"},
                       fallback="alltext").fallback_cleaner().name == "alltext"


def test_site_level_fallback_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must clean a page without a fit"):
        run_crawl([str(tmp_path)], tmp_path / "out", CrawlConfig(fallback="sst"))
    CrawlConfig(method="sst").check()  # `default` cleans a page alone: a fallback for any


def test_a_job_started_under_the_old_defaults_is_refused_then_resumed(tmp_path: Path) -> None:
    """A crawl folder whose job.json recorded `sst` with the `alltext` fallback (the defaults
    before `default`): a rerun with today's defaults is refused, naming the settings and the
    options that resume it; with those options the job resumes and finishes as before."""
    warc = _many_sites(tmp_path / "a.warc", 2)
    whole = run_crawl([warc], tmp_path / "whole", OLD_DEFAULTS, run=RunSettings(1))
    out = tmp_path / "old"
    run_crawl([warc], out, OLD_DEFAULTS, run=RunSettings(1), keep_work=True)
    for name in ("summary.json", "results.jsonl", "errors.jsonl", "sites.jsonl"):
        (out / name).unlink()  # as if killed while finishing
    (out / "work" / "done.jsonl").write_text(
        (out / "work" / "done.jsonl").read_text().splitlines()[0] + "\n")  # one site undone
    with pytest.raises(InputError) as refused:
        run_crawl([warc], out, CFG, run=RunSettings(1))
    message = str(refused.value)
    assert "holds a different crawl" in message
    assert "method 'sst' there, 'default' now" in message
    assert "fallback 'alltext' there, 'default' now" in message
    assert "--method sst --fallback alltext" in message
    assert not (out / "summary.json").exists()  # nothing was done to it
    resumed = run_crawl([warc], out, OLD_DEFAULTS, run=RunSettings(1))
    assert resumed["balanced"] and resumed["results"] == whole["results"] == 12
    assert _outputs(out) == _outputs(tmp_path / "whole")
    assert {r["method"] for r in lines(out / "results.jsonl")} == {"sst"}


def test_cli_crawl_writes_parquet_and_reruns_as_done(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    warc = _many_sites(tmp_path / "a.warc.gz", 2)
    args = ["crawl", warc, "--out", str(tmp_path / "out"), "--format", "parquet",
            "--workers", "1", "--markdown", "--quiet"]
    assert main(args) == 0
    table = pq.read_table(tmp_path / "out" / "results.parquet")
    assert table.num_rows == 12 and all(table.column("markdown").to_pylist())
    for name in ("warc_record_id", "warc_date", "warc_payload_digest", "text_digest"):
        assert str(table.schema.field(name).type) == "string"
    assert all(table.column("warc_record_id").to_pylist())
    assert all(table.column("text_digest").to_pylist())
    assert table.column("warc_payload_digest").null_count == 12  # none written
    assert set(table.column("method").to_pylist()) == {"default"}  # no --method: default
    assert "13 records in = 12 results + 0 errors + 1 skipped" in capsys.readouterr().err
    shutil.rmtree(tmp_path / "out" / "work", ignore_errors=True)
    assert main(args) == 0  # complete already: reported, nothing redone
    assert main([*args[:-1], "--method", "alltext"]) == 2
    err = capsys.readouterr().err
    assert "holds a different crawl" in err and "method 'default' there, 'alltext' now" in err
    assert "rerun with its settings (--method default)" in err
