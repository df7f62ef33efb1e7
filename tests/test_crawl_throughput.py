"""benchmarks/crawl_throughput.py, on a tiny slice of the modern corpora (2 pages each): one
run measures the crawl, `clean DIR` and the bench on the same pages, and its table and JSON
have a row per path with the figures the issue's targets are judged on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import benchmark_script, shared_dataset


def run_script(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str
               ) -> tuple[Any, str, dict[str, Any]]:
    """The script run on the shared corpora's slices (skipped where they are absent), kept
    in `tmp_path / "work"`: the module, what it printed and the JSON it wrote."""
    script = benchmark_script("crawl_throughput")
    for name in script.DEFAULT:
        shared_dataset(name)  # skips where ../shared/datasets is absent
    out = tmp_path / "rows.json"
    assert script.main([*argv, "--keep", str(tmp_path / "work"), "--out", str(out)]) == 0
    return script, capsys.readouterr().out, json.loads(out.read_text())


def test_one_run_measures_every_path_on_the_same_pages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script, printed, run = run_script(tmp_path, capsys, "--per-corpus", "2", "--workers", "2")
    lines = [ln for ln in printed.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[:6] == ["path", "pages", "wall s", "CPU ms/page", "pages/s per core",
                          "x bench mean (default)"]
    paths = [ln.split("|")[1].strip() for ln in lines[2:]]
    assert paths[:2] == ["crawl --workers 2", "clean DIR -o OUT --workers 1"]
    assert "bench default (per-page median / mean)" in paths
    assert all(len(ln.split("|")) == len(lines[0].split("|")) for ln in lines)
    assert run["datasets"] == {name: 2 for name in script.DEFAULT}
    by_path = {r["path"]: r for r in run["rows"]}
    assert by_path["crawl --workers 2"]["pages"] == 10
    assert by_path["bench default (per-page median / mean)"]["pages"] == 10
    assert run["bench_mean_ms"] == by_path["bench default (per-page median / mean)"][
        "cpu_ms_per_page"]
    for row in run["rows"]:
        assert row["cpu_ms_per_page"] > 0 and row["pages_per_core_s"] > 0
    # the slices are dataset folders of the sampled pages, with their gold
    for name in script.DEFAULT:
        index = (tmp_path / "work" / "slices" / name / "index.jsonl").read_text().splitlines()
        assert len(index) == 2
        ids = [json.loads(line)["id"] for line in index]
        assert all((tmp_path / "work" / "slices" / name / "gold" / f"{i}.txt").is_file()
                   for i in ids)


def test_the_sample_is_whole_sites_in_a_seeded_order() -> None:
    script = benchmark_script("crawl_throughput")
    root = shared_dataset("dragnet")
    first = script.sample_rows(root, 30, 0)
    assert [r["id"] for r in first] == [r["id"] for r in script.sample_rows(root, 30, 0)]
    assert len(first) == 30
    sites = [script.site_of(r) for r in first]
    # a site's pages come together; every site but the last is taken whole
    assert sites == sorted(sites, key=sites.index)
    everything = script.sample_rows(root, 0, 0)
    for site in set(sites[:-1]) - {sites[-1]}:
        assert sites.count(site) == sum(script.site_of(r) == site for r in everything)


def test_copies_measure_each_crawl_again_on_other_sites_and_split_fixed_from_marginal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, printed, run = run_script(tmp_path, capsys, "--per-corpus", "2", "--workers", "1",
                                 "--copies", "3", "--no-clean", "--no-bench")
    by_path = {r["path"]: r for r in run["rows"]}
    assert by_path["crawl --workers 1"]["pages"] == 10
    assert by_path["crawl --workers 1 (x3)"]["pages"] == 30  # every copy cleaned
    assert "| path | fixed CPU s | marginal CPU ms/page |" in printed
    # --keep keeps both crawls' records, each in a folder of its own
    for folder in ("crawl-local-1", "crawl-local-1-x3"):
        assert (tmp_path / "work" / folder / "summary.json").is_file()
    # copy n's pages are at hosts of their own: a crawl groups them as other sites
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    with open(tmp_path / "work" / "warcs-x3" / "big9.warc.gz", "rb") as f:
        urls = [str(r.headers.get("WARC-Target-URI"))
                for r in ArchiveIterator(f, record_types=WarcRecordType.response)]
    assert len(urls) == 6 and len(set(urls)) == 6
    assert sum("://copy1-" in u for u in urls) == 2 and sum("://copy2-" in u for u in urls) == 2


def test_copies_take_two_or_more() -> None:
    script = benchmark_script("crawl_throughput")
    with pytest.raises(SystemExit):
        script.main(["--copies", "1"])


def test_rounds_measure_again_in_turn_and_take_each_ratio_within_its_round(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, printed, run = run_script(tmp_path, capsys, "--per-corpus", "1", "--workers", "2",
                                 "--peers", "none", "--rounds", "3")
    rounds = run["rounds"]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert [r["order"] for r in rounds] == ["crawl, clean, bench", "bench, clean, crawl",
                                            "crawl, clean, bench"]
    for r in rounds:
        assert r["crawl_ratio"] == pytest.approx(r["crawl_ms"] / r["bench_ms"])
        assert r["clean_ratio"] == pytest.approx(r["clean_ms"] / r["bench_ms"])
    # each round crawled into a folder of its own (a crawl's folder resumes: not reused)
    for k in (2, 3):
        assert json.loads((tmp_path / "work" / f"crawl-local-2-r{k}" / "summary.json")
                          .read_text())["results"] == 5
    assert "| median of 3 |" in printed


@pytest.mark.parametrize("argv", [["--rounds", "0"], ["--rounds", "2", "--no-bench"],
                                  ["--rounds", "2", "--no-clean"],
                                  ["--rounds", "2", "--workers", "1"]])
def test_rounds_need_the_crawl_clean_and_bench(argv: list[str]) -> None:
    script = benchmark_script("crawl_throughput")
    with pytest.raises(SystemExit):
        script.main(argv)
