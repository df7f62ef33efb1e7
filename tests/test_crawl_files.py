"""The crawl's work folder: files that scale with inputs and batches, not with sites, and
resuming from any state a kill can leave in it (mid-ingest, mid-batch, mid-commit), or from
a work folder of the older layout."""

from __future__ import annotations

import errno
import json
import os
from collections import Counter
from pathlib import Path

import pytest

from sitesift.crawl import run_crawl
from sitesift.io import parts
from sitesift.io.ingest import LAYOUT
from sitesift.io.parts import PartStore
from sitesift.io.records import DUP_ROW
from sitesift.io.sinks import concat, read_spans
from sitesift.io.warc import write_warc
from sitesift.jobs.run import RunSettings
from tests.test_crawl import CFG, _outputs, lines, pages

ONE_PAGE_SITES = 40


def _mixed(path: Path) -> str:
    """One input: many one-page sites (as modern crawls have), between pages of two sites
    large enough to fit."""
    responses = pages("big.example", 6)
    responses += [p for k in range(ONE_PAGE_SITES) for p in pages(f"one{k:02d}.example", 1, k)]
    responses += pages("other.example", 7, 3)
    write_warc(path, responses)
    return str(path)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _mixed(tmp_path_factory.mktemp("mixed") / "mixed.warc")


@pytest.fixture(scope="module")
def whole(mixed: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crawl as it runs by default, never interrupted: what every other run must equal."""
    out = tmp_path_factory.mktemp("whole")
    summary = run_crawl([mixed], out, CFG, run=RunSettings(2))
    assert summary["balanced"] and summary["results"] == 6 + ONE_PAGE_SITES + 7
    return out


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _cut_to_rerun(out: Path) -> Path:
    """As if killed while finishing: the final files gone, the work folder kept."""
    for name in ("summary.json", "results.jsonl", "errors.jsonl", "sites.jsonl"):
        (out / name).unlink()
    return out / "work"


def test_many_one_page_sites_cost_a_few_files_not_a_file_each(
        tmp_path: Path, mixed: str, whole: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parts, "BATCH_SECONDS", 1e9)  # one batch, however slow the machine
    out = tmp_path / "out"
    run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    work = out / "work"
    assert _files(work / "inputs" / "0") == ["errors.jsonl", "pages.spill", "report.json"]
    report = json.loads((work / "inputs" / "0" / "report.json").read_text())
    assert len(report["frames"]) == ONE_PAGE_SITES + 2
    assert all(len(frames) == 1 for frames in report["frames"].values())  # one frame a site
    # the two fitted sites and the one-page ones all finished within one batch: one part
    assert _files(work / "parts") == ["part-0.dups.bin", "part-0.errors.jsonl",
                                      "part-0.results.jsonl"]
    assert len(lines(work / "done.jsonl")) == ONE_PAGE_SITES + 2
    assert _outputs(out) == _outputs(whole)


@pytest.mark.parametrize(("batch_seconds", "site_held"), [
    (0.0, parts.SITE_HELD),  # every site committed on its own
    (1e9, 8000),  # the two fitted sites (12 kB of records) too large to hold: own parts
], ids=["a-part-a-site", "large-sites-apart"])
def test_the_output_does_not_depend_on_how_sites_share_parts(
        tmp_path: Path, mixed: str, whole: Path, monkeypatch: pytest.MonkeyPatch,
        batch_seconds: float, site_held: int) -> None:
    monkeypatch.setattr(parts, "BATCH_SECONDS", batch_seconds)
    monkeypatch.setattr(parts, "SITE_HELD", site_held)
    out = tmp_path / "out"
    run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    part = {str(e["site"]): e["part"]["name"] for e in lines(out / "work" / "done.jsonl")}
    shared = Counter(part.values())
    if batch_seconds == 0:
        assert len(shared) == ONE_PAGE_SITES + 2
    else:  # each large site alone in its part, committed at once with the batch before it
        assert shared[part["big.example"]] == shared[part["other.example"]] == 1
        assert len(shared) <= 2 + 3  # so the one-page sites share at most three batches
    assert _outputs(out) == _outputs(whole)


def test_a_kill_within_a_batchs_commit_redoes_only_the_sites_not_entered(
        tmp_path: Path, mixed: str, whole: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's part renamed into place, its done-lines cut after the fifth (the sixth half
    written), and the next batch's part half written: the rerun keeps the five sites and
    that part as they are, cleans the others again into a part numbered after it, and ends
    as the uninterrupted run did."""
    monkeypatch.setattr(parts, "BATCH_SECONDS", 1e9)
    out = tmp_path / "out"
    run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    work = _cut_to_rerun(out)
    done = (work / "done.jsonl").read_text().splitlines()
    (work / "done.jsonl").write_text("\n".join(done[:5]) + "\n" + done[5][:30])
    (work / "parts" / "part-1.results.jsonl.tmp").write_text('{"text": "half"}\n')
    kept = (work / "parts" / "part-0.results.jsonl").stat()
    resumed = run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    assert resumed["balanced"] and _outputs(out) == _outputs(whole)
    after = [json.loads(line) for line in (work / "done.jsonl").read_text().splitlines()
             if line.startswith("{") and line.endswith("}")]
    assert after[:5] == [json.loads(line) for line in done[:5]]
    assert len(after) == len(done) and len({e["site"] for e in after}) == len(done)
    assert {e["part"]["name"] for e in after[5:]} == {"part-1"}
    assert (work / "parts" / "part-0.results.jsonl").stat().st_ino == kept.st_ino
    assert not list((work / "parts").glob("*.tmp"))


def test_a_kill_before_a_batch_is_committed_redoes_its_sites(
        tmp_path: Path, mixed: str, whole: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every site finished but none entered: their part still `.tmp` (as a kill within the
    batch leaves it), the manifest empty. All are cleaned again, none twice."""
    monkeypatch.setattr(parts, "BATCH_SECONDS", 1e9)
    out = tmp_path / "out"
    run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    work = _cut_to_rerun(out)
    for part in (work / "parts").iterdir():
        part.rename(part.with_name(part.name + ".tmp"))
    (work / "done.jsonl").write_text("")
    resumed = run_crawl([mixed], out, CFG, run=RunSettings(2))
    assert resumed["balanced"] and _outputs(out) == _outputs(whole)


def test_a_failure_within_a_commit_leaves_no_tmp_and_the_rerun_finishes(
        tmp_path: Path, mixed: str, whole: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills between the renames of a batch's two files: the run stops, its
    sites are not entered, and the rerun cleans them again."""
    out = tmp_path / "out"
    rename = os.replace

    def failing(src: object, dst: object) -> None:
        if str(dst).endswith(".errors.jsonl") and "part-" in str(dst):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        rename(src, dst)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(parts.os, "replace", failing)
        with pytest.raises(OSError, match="No space left"):
            run_crawl([mixed], out, CFG, run=RunSettings(2))
    work = out / "work"
    assert not list(out.rglob("*.tmp"))
    assert not (work / "done.jsonl").exists() or not (work / "done.jsonl").read_text()
    resumed = run_crawl([mixed], out, CFG, run=RunSettings(2))
    assert resumed["balanced"] and _outputs(out) == _outputs(whole)


def test_a_work_folder_of_the_old_layout_is_deleted_and_its_crawl_done_again(
        tmp_path: Path, mixed: str, whole: Path) -> None:
    """The layout before this one: a spill file and a part pair per site, done-lines
    without a part. None of it is read (its stale record would show): the crawl is done
    again from its inputs."""
    out = tmp_path / "out"
    run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    work = _cut_to_rerun(out)
    (work / "layout").unlink()
    old = work / "inputs" / "0"
    for name in ("pages.spill", "report.json"):
        (old / name).unlink()
    (old / "big.example-0123456789ab.spill").write_bytes(b"an old per-site spill")
    (old / "report.json").write_text(json.dumps(
        {"index": 0, "input": mixed, "records_in": 53, "read_errors": 0, "skipped": {},
         "sites": {"big.example": 6}}))
    entries = [{k: v for k, v in e.items() if k != "part"} for e in lines(work / "done.jsonl")]
    (work / "done.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    for part in (work / "parts").iterdir():
        part.unlink()
    (work / "parts" / "big.example-0123456789ab.results.jsonl").write_text(
        '{"text": "stale"}\n')
    resumed = run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    assert resumed["balanced"] and _outputs(out) == _outputs(whole)
    assert (work / "layout").read_text() == LAYOUT
    assert not list(work.rglob("*-0123456789ab*"))


def test_a_work_folder_without_provenance_is_redone(tmp_path: Path, mixed: str,
                                                    whole: Path) -> None:
    """Layout 2: the same files, but pages spilled and records made without their WARC
    provenance. Its records are not taken: the crawl is done again, every record with it."""
    out = tmp_path / "out"
    run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    work = _cut_to_rerun(out)
    (work / "layout").write_text("2\n")
    old = ("warc_record_id", "warc_date", "warc_payload_digest", "text_digest")
    for part in (work / "parts").glob("*.results.jsonl"):
        part.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in old}) + "\n"
                                for r in lines(part)))
    resumed = run_crawl([mixed], out, CFG, run=RunSettings(2), keep_work=True)
    assert resumed["balanced"] and _outputs(out) == _outputs(whole)
    assert (work / "layout").read_text() == LAYOUT
    assert all(r["warc_record_id"] and r["text_digest"] for r in lines(out / "results.jsonl"))


def record(site: str, n: int) -> dict[str, object]:
    """A part store's n-th record of `site`: a result (with its row for the copy check, here
    its text's bytes) or, for n = 2, an error."""
    if n == 2:
        return {"reason": f"{site}{n}"}
    return {"text": f"{site}{n}", DUP_ROW: f"{site}{n}".encode()}


def test_the_part_store_keeps_each_sites_records_together_and_drops_what_a_kill_cut(
        tmp_path: Path) -> None:
    """Sites whose records come interleaved: each one's records are one run in its part,
    in the order they came. A store dropped before its commit (a kill) leaves `.tmp` files
    that the next store deletes, and enters nothing."""
    store = PartStore(tmp_path, batch_seconds=1e9)
    for n in range(4):
        for site in ("a", "b", "c"):
            store.write(site, record(site, n))
        if n == 1:
            store.finish("b", {"site": "b"})
    for site in ("c", "a"):
        store.finish(site, {"site": site})
    assert not store.done and list((tmp_path / "parts").glob("*.tmp"))
    dropped = PartStore(tmp_path)  # the next run after a kill here
    assert not dropped.done and not list((tmp_path / "parts").iterdir())
    store = PartStore(tmp_path, batch_seconds=1e9)
    for site in ("b", "a"):
        for n in range(3):
            store.write(site, record(site, n))
        store.finish(site, {"site": site, "n": 3})
    store.commit()
    again = PartStore(tmp_path)
    assert again.done == {"a": {"site": "a", "n": 3}, "b": {"site": "b", "n": 3}}
    assert concat(again.spans("results"), tmp_path / "r.jsonl") == 4
    assert lines(tmp_path / "r.jsonl") == [{"text": t} for t in ("a0", "a1", "b0", "b1")]
    assert concat(again.spans("errors"), tmp_path / "e.jsonl") == 2
    assert lines(tmp_path / "e.jsonl") == [{"reason": "a2"}, {"reason": "b2"}]
    assert _files(tmp_path / "parts") == ["part-0.dups.bin", "part-0.errors.jsonl",
                                          "part-0.results.jsonl"]
    # each result's row for the copy check, in the order of the results
    assert read_spans(again.spans("dups")) == b"a0a1b0b1"
