"""The language of the main text (issue 55, `sitesift.language`): detected from the cleaned
text by the core's whatlang, in every result, record and integration; `--lang` keeps some
languages and counts the other pages as skipped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sitesift
from sitesift.cli import main
from sitesift.crawl import run_crawl
from sitesift.errors import SettingsError
from sitesift.io.records import RESULT_FIELDS
from sitesift.jobs.run import RunSettings
from sitesift.language import (
    PREFIX_CHARS,
    LanguageFilter,
    detect_language,
    language_codes,
    parse_languages,
)
from sitesift.native import core
from sitesift.sitework import CrawlConfig
from tests.conftest import benchmark_script, shared_dataset

GERMAN = ("Die Fischerboote des kleinen Hafens liefen im Morgengrauen aus, wie sie es seit "
          "hundert Jahren jeden Morgen tun, und kamen vor Mittag mit vollem Fang zurück. Der "
          "Hafenmeister sagte, die Saison sei die beste seit zehn Jahren gewesen.")
FRENCH = ("Les bateaux de pêche du petit port sont partis à l'aube, comme chaque matin "
          "depuis cent ans, et sont revenus avant midi avec une pêche abondante. Le "
          "capitaine du port a dit que la saison était la meilleure depuis dix ans.")
ENGLISH = ("The fishing boats of the small harbour sailed at dawn, as they have every morning "
           "for a hundred years, and came back with a full catch before noon. The harbour "
           "master said the season was the best in a decade.")


def article(text: str, title: str = "Harbour") -> str:
    """A page whose main text is `text` (declaring no language), with a navigation bar."""
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> "
            f"<a href='/a'>News</a></nav><article><h1>{title}</h1><p>{text}</p>"
            f"<p>{text}</p></article><footer>Copyright 2024</footer></body></html>")


@pytest.mark.parametrize(("text", "code"), [(GERMAN, "de"), (FRENCH, "fr"), (ENGLISH, "en")])
def test_a_short_text_is_detected(text: str, code: str) -> None:
    got, score = detect_language(text)
    assert got == code
    assert score is not None and 0.5 < score <= 1.0


def test_no_text_is_no_language() -> None:
    assert detect_language("") == (None, None)
    assert detect_language(" 12 345 -- ") == (None, None)
    # a word or two is read, but with a low score: a reader filters on it
    assert all(detect_language(t)[1] < 0.3 for t in ("Home", "Log in", "Contact us"))
    empty = sitesift.clean("<html><body><nav><a href='/'>Home</a></nav></body></html>")
    assert empty.text == "" and (empty.language, empty.language_score) == (None, None)


def test_the_prefix_decides_and_is_the_cores() -> None:
    assert core().LANGUAGE_PREFIX_CHARS == PREFIX_CHARS
    text = GERMAN * (PREFIX_CHARS // len(GERMAN) + 1) + ENGLISH * 100
    assert detect_language(text)[0] == "de"


def test_every_result_carries_its_language_apart_from_the_declared_one() -> None:
    # an English-declaring template around German text: the text decides
    html = article(GERMAN).replace("<html>", '<html lang="en">')
    result = sitesift.clean(html, metadata=True)
    assert result.language == "de" and result.meta["metadata"]["language"] == "en"
    record = result.to_dict()
    assert record["language"] == "de" and 0 < record["language_score"] <= 1
    assert json.loads(json.dumps(record))["language"] == "de"
    assert sitesift.clean(article(FRENCH)).language == "fr"


def _page_text(corpus: str, page_id: str) -> tuple[str | None, str | None]:
    from sitesift.datasets import load_page, read_index

    root = shared_dataset(corpus)
    (row,) = [r for r in read_index(root) if r["id"] == page_id]
    page = load_page(root, row)
    result = sitesift.clean(page)
    return result.language, result.text


@pytest.mark.parametrize(("page_id", "code"), [("heise", "de"), ("liberation-1", "fr"),
                                               ("lemonde-1", "fr")])
def test_real_german_and_french_pages(page_id: str, code: str) -> None:
    """Pages of the readability corpus (a German and two French news pages)."""
    language, text = _page_text("readability", page_id)
    assert text and language == code


def test_the_check_strips_every_declaration() -> None:
    """benchmarks/language_check.py: what it strips, how it compares codes."""
    from sitesift.metadata import extract_metadata

    check = benchmark_script("language_check")
    html = ("<html lang='de-AT' xml:lang=\"de\"><head><meta http-equiv='Content-Language' "
            "content='de'><meta property=\"og:locale\" content=\"de_AT\"><script type="
            "'application/ld+json'>{\"@type\": \"NewsArticle\", \"inLanguage\": \"de\"}"
            "</script></head><body><p lang=de>Text</p></body></html>")
    assert extract_metadata(html).language == "de-AT"
    stripped = check.strip_declarations(html)
    assert extract_metadata(stripped).language is None and "<p>Text</p>" in stripped
    assert extract_metadata(check.strip_declarations(html.replace(" lang='de-AT'", "").replace(
        ' xml:lang="de"', ""))).language is None
    assert [check.primary(c) for c in ("de-AT", "EN_us", "nb", "iw", "x-default", "", None)] \
        == ["de", "en", "no", "he", None, None, None]


def test_the_check_runs_on_a_slice(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = shared_dataset("readability")
    check = benchmark_script("language_check")
    monkeypatch.setattr("sys.argv", ["language_check", "--datasets", str(root.parent),
                                     "--corpora", "readability", "--limit", "6",
                                     "--detectors", "sitesift", "--prefix", "0"])
    assert check.main() == 0
    out = capsys.readouterr().out
    assert "| sitesift | all |" in out and "pages: readability 6" in out


def test_languages_are_checked() -> None:
    assert parse_languages("de,FR, en") == frozenset({"de", "fr", "en"})
    assert parse_languages(["de"]) == frozenset({"de"})
    for bad, words in (("xx", "'xx'"), ("de-AT", "'de-at'"), ("", "no language"),
                       ("deu", "'deu'"), (",", "no language")):
        with pytest.raises(SettingsError, match=words):
            parse_languages(bad)
    codes = language_codes()
    assert len(codes) == 69 and {"de", "fr", "en", "zh", "ja"} <= set(codes)
    keep = LanguageFilter(parse_languages("de,fr"))
    assert keep.keeps("de") and not keep.keeps("en") and not keep.keeps(None)
    assert str(keep) == "de,fr"


# --- the crawl and clean ------------------------------------------------------------------

def multilingual(root: Path) -> list[str]:
    """A JSONL input of 6 pages on three sites: 2 German, 2 French, 1 English, 1 without
    text."""
    rows = [("https://a.example/1", article(GERMAN, "Hafen")),
            ("https://a.example/2", article(GERMAN.replace("zehn", "elf"), "Boote")),
            ("https://b.example/1", article(FRENCH, "Port")),
            ("https://b.example/2", article(FRENCH.replace("dix", "onze"), "Bateaux")),
            ("https://c.example/1", article(ENGLISH)),
            ("https://c.example/2", "<html><body><img src='/x.png'></body></html>")]
    path = root / "pages.jsonl"
    path.write_text("".join(json.dumps({"url": u, "html": h}) + "\n" for u, h in rows),
                    encoding="utf-8")
    return [str(path)]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_crawl_record_has_the_language(tmp_path: Path) -> None:
    inputs = multilingual(tmp_path)
    summary = run_crawl(inputs, tmp_path / "out", CrawlConfig(), run=RunSettings(1))
    assert summary["balanced"] and summary["results"] == 6
    results = lines(tmp_path / "out" / "results.jsonl")
    assert all(list(r) == list(RESULT_FIELDS) for r in results)
    by_url = {r["url"]: r for r in results}
    assert [by_url[f"https://{s}.example/{k}"]["language"] for s in "abc" for k in (1, 2)] \
        == ["de", "de", "fr", "fr", "en", None]
    assert by_url["https://c.example/2"]["language_score"] is None
    assert all(0 < r["language_score"] <= 1 for r in results if r["language"])


def test_crawl_lang_keeps_those_and_counts_the_rest(tmp_path: Path) -> None:
    inputs = multilingual(tmp_path)
    cfg = CrawlConfig(languages=("de", "fr"))
    summary = run_crawl(inputs, tmp_path / "out", cfg, fmt="parquet", run=RunSettings(1))
    assert summary["balanced"]
    assert (summary["results"], summary["errors"], summary["skipped"]) == (4, 0, 2)
    assert summary["skipped_by_reason"] == {"language": 2}  # English, and no text
    assert summary["records_in"] == summary["results"] + summary["errors"] + summary["skipped"]
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "out" / "results.parquet")
    assert sorted(table.column("language").to_pylist()) == ["de", "de", "fr", "fr"]
    assert str(table.schema.field("language_score").type) == "double"
    sites = {s["site"]: s for s in lines(tmp_path / "out" / "sites.jsonl")}
    assert sites["c.example"]["skipped"] == {"language": 2} and sites["c.example"]["results"] == 0
    # the languages are the job's: a rerun without them is refused, naming --lang
    with pytest.raises(Exception, match="--lang de,fr"):
        run_crawl(inputs, tmp_path / "out", CrawlConfig(), fmt="parquet")


def test_cli_lang_filters_and_refuses_a_bad_value(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    inputs = multilingual(tmp_path)
    out = tmp_path / "crawl"
    assert main(["crawl", *inputs, "--out", str(out), "--lang", "de", "--workers", "1",
                 "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["skipped_by_reason"] == {"language": 4} and summary["results"] == 2
    assert {r["language"] for r in lines(out / "results.jsonl")} == {"de"}
    for bad in ("xx", "de-AT", ""):
        capsys.readouterr()
        assert main(["crawl", *inputs, "--out", str(tmp_path / "no"), "--lang", bad]) == 2
        assert "--lang" in capsys.readouterr().err
        assert not (tmp_path / "no").exists()  # refused before any work
    # clean: one page to stdout, and a folder of pages
    page = tmp_path / "de.html"
    page.write_text(article(GERMAN), encoding="utf-8")
    capsys.readouterr()
    assert main(["clean", str(page), "--lang", "de,fr"]) == 0
    assert "Fischerboote" in capsys.readouterr().out
    assert main(["clean", str(page), "--lang", "en"]) == 0
    got = capsys.readouterr()
    assert got.out == "" and "skipped (language)" in got.err
    assert main(["clean", str(page), "--lang", "zz"]) == 2
    folder = tmp_path / "pages"
    folder.mkdir()
    for name, text in (("de", GERMAN), ("fr", FRENCH), ("en", ENGLISH)):
        (folder / f"{name}.html").write_text(article(text), encoding="utf-8")
    assert main(["clean", str(folder), "-o", str(tmp_path / "cleaned"), "--lang", "fr",
                 "--workers", "1"]) == 0
    assert "2 skipped (language not in --lang fr)" in capsys.readouterr().err
    manifest = lines(tmp_path / "cleaned" / "manifest.jsonl")
    assert sorted((m["id"], m["file"] is not None) for m in manifest) == [
        ("de", False), ("en", False), ("fr", True)]
    assert {m.get("skipped") for m in manifest if m["file"] is None} == {"language"}
