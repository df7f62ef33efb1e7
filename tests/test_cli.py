"""The command line on the bundled sample site (and a slice of a shared corpus)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesift.cli import SAMPLE_SITE, _limits, build_parser, main
from sitesift.datasets import read_index
from tests.conftest import refused, shared_dataset

IDS = [r["id"] for r in read_index(SAMPLE_SITE)]


def test_clean_dataset_folder_writes_one_file_per_index_row(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["clean", str(SAMPLE_SITE), "--method", "sst", "--group-by", "site",
                 "--format", "json", "--out", str(out), "--workers", "1", "--quiet"]) == 0
    assert sorted(p.stem for p in out.glob("*.json")) == sorted(IDS)
    assert (out / "errors.jsonl").read_text() == ""
    doc = json.loads((out / "hg-001.json").read_text())
    labels = {b["label"] for b in doc["blocks"]}
    assert labels == {"content", "noise"} and doc["method"] == "sst"
    assert all(b["reason"] and b["path"] for b in doc["blocks"])


@pytest.mark.parametrize(("fmt", "suffix"), [("text", ".txt"), ("markdown", ".md")])
def test_fit_then_clean_with_saved_model(tmp_path: Path, fmt: str, suffix: str) -> None:
    model = tmp_path / "site.sst.json"
    assert main(["fit", str(SAMPLE_SITE / "pages"), "--out", str(model)]) == 0
    out = tmp_path / "out"
    assert main(["clean", str(SAMPLE_SITE / "pages"), "--model", str(model), "--format", fmt,
                 "--out", str(out), "--quiet", "--workers", "1"]) == 0
    text = (out / f"hg-001{suffix}").read_text()
    gold = (SAMPLE_SITE / "gold" / "hg-001.txt").read_text().splitlines()
    assert gold[0] in text                      # the headline is kept
    assert "Advertisement" not in text          # the template is gone
    assert "All rights reserved" not in text


def test_unknown_method_and_missing_path_fail_cleanly(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["clean", str(SAMPLE_SITE), "--method", "nope", "--out", str(tmp_path)])
    assert main(["clean", str(tmp_path / "absent"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_demo_fits_cleans_and_scores(tmp_path: Path) -> None:
    assert main(["demo", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "sample_site.sst.json").is_file()
    assert len(list((tmp_path / "pages").glob("*.txt"))) == len(IDS)
    rows = (tmp_path / "summary.md").read_text().splitlines()
    f1 = {r.split("|")[2].strip(): float(r.split("|")[5]) for r in rows[2:]}
    assert f1["sst"] > f1["alltext"] + 0.1
    assert f1["default"] > f1["alltext"] + 0.1


def test_evaluate_on_a_shared_corpus_slice(tmp_path: Path) -> None:
    root = shared_dataset("cleanportaleval")
    out = tmp_path / "eval"
    assert main(["evaluate", str(root), "--method", "alltext", "--method", "sst",
                 "--out", str(out), "--quiet", "--workers", "2"]) == 0
    rows = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    mean = {m: sum(r["f1"] for r in rows if r["method"] == m) / 70 for m in ("alltext", "sst")}
    assert len(rows) == 140 and not any(r["error"] for r in rows)
    assert mean["sst"] > mean["alltext"] + 0.15


def test_evaluate_passes_method_parameters(tmp_path: Path) -> None:
    recall = {}
    for threshold in ("0.02", "0.98"):
        out = tmp_path / threshold
        assert main(["evaluate", str(SAMPLE_SITE), "--method", "default", "--set",
                     f"default.threshold={threshold}", "--set", "relative=0", "--out",
                     str(out), "--quiet", "--workers", "1"]) == 0
        rows = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
        recall[threshold] = sum(r["recall"] for r in rows) / len(rows)
    assert recall["0.98"] < recall["0.02"] - 0.2  # the strict cut keeps much less
    refused(["evaluate", str(SAMPLE_SITE), "--method", "default", "--set", "sst.threshold=1"],
            "sst is not one of the methods given")


@pytest.mark.parametrize("command", ["evaluate", "bench"])
def test_evaluate_and_bench_refuse_a_bad_setting_before_any_page(tmp_path: Path,
                                                                  command: str) -> None:
    # the value is checked by the method's parameters before the first page is read: exit
    # 2 naming the setting, not a run whose every page is an error record
    out = tmp_path / "o"
    argv = ([command, str(SAMPLE_SITE), "--method" if command == "evaluate" else "--methods",
             "blockdist", "--set", "non_news=bogus", "--out", str(out)]
            + (["--peers", "none"] if command == "bench" else []))
    refused(argv, "non_news must be keep, drop or extract")
    assert not (out / "pages.jsonl").exists()


@pytest.mark.parametrize(("argv", "seconds"), [
    (["clean", "x", "--out", "o", "--method", "sst"], 10.0),
    (["clean", "x", "--out", "o", "--method", "vips"], 60.0),
    (["evaluate", "x", "--method", "alltext", "--method", "vlps"], 60.0),
    (["evaluate", "x"], 10.0),
    (["clean", "x", "--out", "o", "--method", "vips", "--page-timeout", "5"], 5.0),
])
def test_page_time_limit_defaults_to_more_for_rendering_methods(argv: list[str],
                                                                seconds: float) -> None:
    args = build_parser().parse_args(argv)
    assert _limits(args).page_seconds == seconds


def test_clean_one_page_file_cleans_that_page(tmp_path: Path) -> None:
    single = tmp_path / "story"  # no suffix: recognised by its markup
    single.write_bytes((SAMPLE_SITE / "pages" / "hg-001.html").read_bytes())
    for path in (SAMPLE_SITE / "pages" / "hg-001.html", single):
        out = tmp_path / f"out-{path.name}"  # a folder: -o DIR/ (tests/test_cli_edges.py)
        assert main(["clean", str(path), "--method", "alltext", "--out", f"{out}/",
                     "--workers", "1", "--quiet"]) == 0
        stem = path.name.split(".")[0]
        assert [p.name for p in out.iterdir() if p.suffix == ".txt"] == [f"{stem}.txt"]
        assert (out / "errors.jsonl").read_text() == ""


def test_clean_a_list_of_pages_and_a_binary_list(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    listing = tmp_path / "pages.txt"
    listing.write_text("# two pages\n" + "\n".join(
        str(SAMPLE_SITE / "pages" / f"{i}.html") for i in IDS[:2]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["clean", str(listing), "--method", "alltext", "--out", str(out),
                 "--workers", "1", "--quiet"]) == 0
    assert sorted(p.stem for p in out.glob("*.txt")) == sorted(IDS[:2])
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff\xfe\x00binary")
    assert main(["clean", str(junk), "--out", str(tmp_path / "o2"), "--quiet"]) != 0
    assert "neither a page" in capsys.readouterr().err


def test_without_the_native_core_default_is_refused_with_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An installation whose native core was not built: a command exits 2 before any
    work, saying how to build it, whatever its method (the core decodes every page)."""
    import sys

    from sitesift import native

    native.core.cache_clear()
    monkeypatch.setitem(sys.modules, "sitesift._native", None)  # import fails
    try:
        page_file = tmp_path / "p.html"
        page_file.write_text("<html><body><p>Some words of a page.</p></body></html>")
        assert main(["clean", str(page_file), "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert "native core" in err and "Rust" in err and "pip install" in err
        assert not (tmp_path / "o").exists()
        assert main(["clean", str(page_file), "--method", "alltext", "--out",
                     str(tmp_path / "a")]) == 2
        assert "native core" in capsys.readouterr().err and not (tmp_path / "a").exists()
    finally:
        native.core.cache_clear()
