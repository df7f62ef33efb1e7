"""The Spark job in local mode: the same records as the local job, every input accounted for.

One local[2] session for the module (starting one costs 10-30 s); the Spark extra
(`pip install -e .[spark]`) and Java (scripts/ensure_java.sh) are needed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")
pq = pytest.importorskip("pyarrow.parquet")

from sitesift.crawl import run_crawl  # noqa: E402
from sitesift.jobs.run import RunSettings  # noqa: E402
from sitesift.spark import local_session, run_spark  # noqa: E402
from tests.test_crawl import CFG, crawl_inputs  # noqa: E402
from tests.test_warc import write_hostile_warc  # noqa: E402

SAME = ("records_in", "pages", "results", "errors", "skipped", "skipped_by_reason", "sites",
        "sites_by_model", "balanced", "duplicates")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    if shutil.which("java") is None:
        if os.environ.get("SITESIFT_NO_APT"):
            pytest.skip("Spark needs Java, and SITESIFT_NO_APT is set: scripts/ensure_java.sh "
                        "did not install it")
        pytest.fail("Spark needs Java: run scripts/ensure_java.sh")
    session = local_session(2)
    yield session
    session.stop()


def rows(path: Path) -> list[dict[str, Any]]:
    table = pq.read_table(path).to_pylist()
    return sorted(table, key=lambda r: (r["input"] or "", r["position"] or 0))


def test_spark_job_equals_the_local_job(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    inputs = crawl_inputs(tmp_path / "in")
    local = run_crawl(inputs, tmp_path / "local", CFG, fmt="parquet", run=RunSettings(2))
    remote = run_spark(spark, inputs, str(tmp_path / "spark"), CFG, partitions=2)
    assert remote["balanced"]
    assert remote["records_in"] == remote["results"] + remote["errors"] + remote["skipped"]
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    spark_results = rows(tmp_path / "spark" / "results")
    assert len(spark_results) == 18
    # the shared default: `default`, fitted per site, unfitted for the small sites
    assert {r["method"] for r in spark_results} == {"default"}
    sites = {s["site"]: s for part in (tmp_path / "spark" / "sites").glob("part-*")
             for s in map(json.loads, part.read_text().splitlines())}
    assert {s["method"] for s in sites.values()} == {"default"}
    assert sites["hillgazette.example"]["model"] == "fitted"
    assert sites["small.example"]["model"] == sites["(no url)"]["model"] == "fallback"
    assert spark_results == rows(tmp_path / "local" / "results.parquet")
    # provenance, the same on both engines (the whole rows above): every WARC record's
    assert all(r["warc_record_id"] and r["warc_date"] and r["text_digest"]
               for r in spark_results if r["input"] == inputs[0])
    assert sum(bool(r["warc_payload_digest"]) for r in spark_results) == 2
    fields = ("input", "position", "url", "offset", "warc_record_id", "warc_date",
              "warc_payload_digest", "stage", "reason")
    local_errors = [json.loads(line) for line in
                    (tmp_path / "local" / "errors.jsonl").read_text().splitlines()]
    assert sorted((tuple(e[f] for f in fields) for e in rows(tmp_path / "spark" / "errors")),
                  key=repr) == sorted((tuple(e[f] for f in fields) for e in local_errors),
                                      key=repr)
    assert sum(bool(e["warc_record_id"]) for e in local_errors) == 2  # the bomb, the cut one
    assert (tmp_path / "spark" / "summary.json").is_file()


def test_spark_lang_leaves_out_and_counts_as_the_local_job(spark: Any, tmp_path: Path) -> None:
    """`--lang` on both engines: the same results (each with its language and score), the
    same pages counted as skipped by `language`, the accounting balanced."""
    from tests.test_language import multilingual

    (tmp_path / "in").mkdir()
    inputs = crawl_inputs(tmp_path / "in") + multilingual(tmp_path / "in")
    cfg = replace(CFG, languages=("de", "en"))
    local = run_crawl(inputs, tmp_path / "local", cfg, fmt="parquet", run=RunSettings(2))
    remote = run_spark(spark, inputs, str(tmp_path / "spark"), cfg, partitions=2)
    assert remote["balanced"] and local["balanced"]
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    assert remote["skipped_by_reason"]["language"] >= 3  # French x2, no text
    spark_results = rows(tmp_path / "spark" / "results")
    assert spark_results == rows(tmp_path / "local" / "results.parquet")
    assert {r["language"] for r in spark_results} == {"de", "en"}
    assert all(0 < r["language_score"] <= 1 for r in spark_results)


def test_spark_guards_turn_a_runaway_page_into_an_error_record(spark: Any,
                                                               tmp_path: Path) -> None:
    """The per-page time limit holds in the Spark path too: the page is one error record,
    its site is fitted and cleaned without it, and every record is accounted for."""
    from sitesift.guards import Limits
    from sitesift.io.warc import HttpResponse, write_warc
    from tests.test_crawl import HOST, huge_page, pages

    warc = tmp_path / "patho.warc"
    write_warc(warc, [*pages(HOST, 6), HttpResponse(f"http://{HOST}/huge", huge_page(200_000)),
                      *pages(HOST, 3, 6)])
    summary = run_spark(spark, [str(warc)], str(tmp_path / "spark"), CFG,
                        Limits(page_seconds=1.0, grace_seconds=1.0), partitions=1)
    assert summary["balanced"] and summary["results"] == 9 and summary["errors"] == 1
    (error,) = rows(tmp_path / "spark" / "errors")
    assert error["url"] == f"http://{HOST}/huge" and "time limit" in str(error["reason"])


def test_spark_reads_a_hostile_warc_as_the_local_job_does(spark: Any, tmp_path: Path) -> None:
    """Bad records in the middle of a WARC (one reader for both engines): every record
    counted once, the same errors."""
    warc = tmp_path / "hostile.warc.gz"
    count = write_hostile_warc(warc)
    local = run_crawl([str(warc)], tmp_path / "local", CFG, fmt="parquet", run=RunSettings(1))
    remote = run_spark(spark, [str(warc)], str(tmp_path / "spark"), CFG, partitions=2)
    assert remote["records_in"] == local["records_in"] == count
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    assert remote["balanced"] and (remote["results"], remote["errors"]) == (13, 4)
    assert rows(tmp_path / "spark" / "results") == rows(tmp_path / "local" / "results.parquet")


def write_hostile_inputs(root: Path) -> tuple[list[str], int]:
    """The hostile inputs that are no WARC, for a 64 KiB record limit: a JSONL with a
    5,000-digit number, a lone surrogate url and an over-long line among good lines; a
    `.jsonl.gz` whose first line is a gzip bomb; a dataset with the id `../../x` and a gzip
    bomb page; a `.jsonl.gz` cut off by a run of blank lines. The paths, and their records."""
    from tests.test_hostile_crawl import blank_lines_gz, page_line
    from tests.test_hostile_inputs import HUGE_NUMBER, PAGE, MiB, dataset, gzip_bomb, row

    root.mkdir()

    def good(name: str) -> str:
        return json.dumps({"url": f"http://{name}.example/p", "html": PAGE + name})

    lines = [good("a"), f'{{"url": "http://n.example/", "html": "<p>x</p>", "n": {HUGE_NUMBER}}}',
             good("b"), '{"url": "http://s.example/\\ud800", "html": "<p>lone surrogate</p>"}',
             json.dumps({"url": "http://long.example/", "html": "x" * (400 << 10)}), good("c")]
    jsonl = root / "bad.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bomb = root / "bomb.jsonl.gz"
    bomb.write_bytes(gzip_bomb(4 * MiB, b"\n" + good("d").encode() + b"\n"))
    (root / "x.html").write_text(PAGE)  # what `../../x` would read
    ds = dataset(root / "a" / "ds", [row("../../x"), row("bomb"), row("good")],
                 {"bomb.html.gz": gzip_bomb(4 * MiB), "good.html": PAGE.encode()})
    blank = root / "blank.jsonl.gz"
    blank_lines_gz(blank, page_line("before"), 8 << 20, page_line("after"))
    return [str(jsonl), str(bomb), str(ds), str(blank)], len(lines) + 2 + 3 + 2


def test_spark_reads_hostile_inputs_as_the_local_job_does(spark: Any, tmp_path: Path) -> None:
    """Bad lines, bombs, an id out of its dataset and a run of blank lines (one reader for
    both engines): each one error record, the rest read, every record counted once."""
    from dataclasses import replace

    inputs, count = write_hostile_inputs(tmp_path / "in")
    cfg = replace(CFG, max_record_bytes=64 << 10)
    local = run_crawl(inputs, tmp_path / "local", cfg, fmt="parquet", run=RunSettings(1))
    remote = run_spark(spark, inputs, str(tmp_path / "spark"), cfg, partitions=2)
    assert remote["records_in"] == local["records_in"] == count
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    assert remote["balanced"] and (remote["results"], remote["errors"]) == (6, 7)
    assert rows(tmp_path / "spark" / "results") == rows(tmp_path / "local" / "results.parquet")
    fields = ("url", "site", "input", "position", "stage", "reason")
    local_errors = sorted((tuple(e[f] for f in fields) for e in map(json.loads, (
        tmp_path / "local" / "errors.jsonl").read_text().splitlines())), key=repr)
    assert sorted((tuple(e[f] for f in fields) for e in rows(tmp_path / "spark" / "errors")),
                  key=repr) == local_errors
    assert {e[2] for e in local_errors} == set(inputs)  # each error names its input


def test_spark_finds_the_same_copies_as_the_local_job(spark: Any, tmp_path: Path) -> None:
    """Every page twice, the second input at another site: Spark's shuffles on the digest and
    the LSH bands name the same first records as the local job's one pass (issue 55)."""
    from tests.test_crawl_dups import twice

    inputs = twice(tmp_path)
    cfg = replace(CFG, metadata=True)  # (and the pages' metadata, the same on both)
    local = run_crawl(inputs, tmp_path / "local", cfg, fmt="parquet", run=RunSettings(2))
    remote = run_spark(spark, inputs, str(tmp_path / "spark"), cfg, partitions=3)
    assert remote["duplicates"] == local["duplicates"]
    assert local["duplicates"]["exact"] + local["duplicates"]["near"] == 12
    spark_results = rows(tmp_path / "spark" / "results")
    assert spark_results == rows(tmp_path / "local" / "results.parquet")
    assert sum(r["dup_of"] is not None for r in spark_results) == 12
    assert all(r["metadata"]["title"] for r in spark_results)
    dropped = run_spark(spark, inputs, str(tmp_path / "spark-drop"),
                        replace(cfg, drop_duplicates=True), partitions=2)
    assert dropped["results"] == 12 and dropped["balanced"]
    assert all(r["dup_of"] is None for r in rows(tmp_path / "spark-drop" / "results"))
