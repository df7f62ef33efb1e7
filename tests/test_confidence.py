"""The confidence (`sitesift.confidence`, `native/src/clean/confidence.rs`): the predicted token F1
of every default-cleaner result, in clean's JSON and the crawl's records (None for methods
that cannot give one), from a sealed JSON model a damaged file cannot replace; the
`--fallback-below` route; the calibration figures `sitesift bench` reports."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import sitesift
from sitesift import confidence
from sitesift.bench.calibration import auroc_bad, ece, reliability, spearman
from sitesift.cli import main
from sitesift.errors import ModelError
from sitesift.native import core
from sitesift.sealed import seal
from tests.conftest import shared_dataset

ARTICLE = """<html><head><title>Boats sail at dawn | Harbour news</title></head><body>
<nav><a href="/">Home</a> <a href="/boats">Boats</a> <a href="/weather">Weather</a></nav>
<article><h1>Boats sail at dawn</h1>
<p>The fishing boats of the small harbour sailed at dawn, as they have every morning
for a hundred years, and came back with a full catch before noon on the tide.</p>
<p>The harbour master said the season was the best in a decade, and that the new quay
would be finished before the autumn storms reached the coast, weather permitting.</p>
<p>Fishermen from the villages along the bay came to see the boats unload, and the
market stayed open until the evening for the first time since the war.</p></article>
<footer>Copyright 2024 Harbour news</footer></body></html>"""
# Built to be doubtful: no story, only short teasers and link lists, nothing the model can
# be sure is the main text.
DOUBTFUL = ("<html><head><title>Index</title></head><body>"
            + "".join(f'<div class="item"><a href="/p{i}">Item {i}</a> <span>short note {i} '
                      f'on this and that</span></div>' for i in range(14))
            + "<ul>" + "".join(f'<li><a href="/t{i}">Tag {i}</a></li>' for i in range(20))
            + "</ul></body></html>")
URL = "https://harbour.example/2024/05/boats-sail-at-dawn.html"


def test_the_features_are_the_cores_and_the_page_type() -> None:
    names = confidence.names()
    assert names[:len(core().confidence_names())] == core().confidence_names()
    assert "log_evidence_pages" in names and "type_article" in names
    assert len(names) == len(set(names))
    assert confidence.load(confidence.DEFAULT_MODEL).n_features == len(names)


def test_every_default_result_has_a_confidence_and_other_methods_none() -> None:
    result = sitesift.clean(ARTICLE, url=URL)
    assert result.confidence is not None and 0.0 <= result.confidence <= 1.0
    record = json.loads(sitesift.output.render_result(result, "json"))
    assert record["confidence"] == result.confidence
    other = sitesift.clean(ARTICLE, url=URL, method="alltext")
    assert other.confidence is None
    assert json.loads(sitesift.output.render_result(other, "json"))["confidence"] is None


def test_a_clear_story_is_surer_than_a_page_built_to_be_doubtful() -> None:
    sure = sitesift.clean(ARTICLE, url=URL).confidence
    doubt = sitesift.clean(DOUBTFUL, url="https://harbour.example/index").confidence
    assert sure is not None and doubt is not None
    assert sure > doubt + 0.05, (sure, doubt)


def test_a_crawl_record_holds_the_confidence(tmp_path: Path) -> None:
    from sitesift.cli import SAMPLE_SITE
    from sitesift.crawl import run_crawl
    from sitesift.io.records import RESULT_FIELDS
    from sitesift.io.sinks import result_schema
    from sitesift.jobs.run import RunSettings
    from sitesift.sitework import CrawlConfig

    summary = run_crawl([str(SAMPLE_SITE / "pages")], tmp_path, CrawlConfig(fit_sample=10),
                        run=RunSettings(1))
    records = [json.loads(line) for line in
               (tmp_path / "results.jsonl").read_text("utf-8").splitlines()]
    assert len(records) == summary["results"] > 0
    for record in records:
        assert list(record) == list(RESULT_FIELDS)
        assert 0.0 <= record["confidence"] <= 1.0
        assert record["fallback_from"] is None and record["fallback_from_confidence"] is None
    schema = result_schema()
    assert str(schema.field("confidence").type) == "double"
    assert str(schema.field("fallback_from").type) == "string"
    assert str(schema.field("fallback_from_confidence").type) == "double"


def _pages(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "story.html").write_text(ARTICLE, "utf-8")
    (folder / "doubtful.html").write_text(DOUBTFUL, "utf-8")
    return folder


def test_fallback_below_sends_the_doubtful_page_to_the_fallback(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    sure = sitesift.clean(ARTICLE).confidence
    doubt = sitesift.clean(DOUBTFUL).confidence
    assert sure is not None and doubt is not None and doubt < sure
    x = (sure + doubt) / 2
    out = tmp_path / "out"
    assert main(["clean", str(pages), "-o", str(out), "--format", "json", "-q",
                 "--fallback-below", f"{x:.6f}", "--fallback", "alltext"]) == 0
    story = json.loads((out / "story.json").read_text("utf-8"))
    routed = json.loads((out / "doubtful.json").read_text("utf-8"))
    # (the two pages are one site group: fitted on both, each reads the other's evidence,
    # so their confidences are near, not equal to, those of each page alone)
    assert story["method"] == "default" and "fallback_from" not in story["meta"]
    assert story["confidence"] >= x
    assert routed["method"] == "alltext" and routed["confidence"] is None
    first = routed["meta"]["fallback_from"]
    assert first["method"] == "default" and 0.0 <= first["confidence"] < x


def test_the_crawl_records_both_methods_of_a_routed_page(tmp_path: Path) -> None:
    from sitesift.cli import SAMPLE_SITE
    from sitesift.crawl import run_crawl
    from sitesift.jobs.run import RunSettings
    from sitesift.sitework import CrawlConfig

    # X = 1: every page the default cleaner is not certain of goes to alltext
    run_crawl([str(SAMPLE_SITE / "pages")], tmp_path,
              CrawlConfig(fit_sample=10, fallback="alltext", fallback_below=1.0),
              run=RunSettings(1))
    records = [json.loads(line) for line in
               (tmp_path / "results.jsonl").read_text("utf-8").splitlines()]
    routed = [r for r in records if r["fallback_from"] is not None]
    assert routed, "no page was routed"
    for r in routed:
        assert r["method"] == "alltext" and r["confidence"] is None
        assert r["fallback_from"] == "default"
        assert 0.0 <= r["fallback_from_confidence"] < 1.0


@pytest.mark.parametrize("extra, message", [
    (["--fallback-below", "1.5", "--fallback", "alltext"], "in [0, 1]"),
    (["--fallback-below", "-0.1", "--fallback", "alltext"], "in [0, 1]"),
    (["--fallback-below", "0.5"], "needs a --fallback"),
    (["--fallback-below", "0.5", "--fallback", "default"], "needs a --fallback"),
    (["--fallback-below", "0.5", "--method", "alltext", "--fallback", "default"],
     "gives no confidence"),
])
def test_bad_fallback_settings_are_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
        message: str) -> None:
    pages = _pages(tmp_path)
    out = tmp_path / "out"
    assert main(["clean", str(pages), "-o", str(out), "-q", *extra]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
    # the crawl's --fallback is default unless given: the same refusals
    assert main(["crawl", str(pages), "--out", str(tmp_path / "crawl"), "-q", *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "crawl").exists()


def _shipped() -> dict:
    return json.loads(gzip.decompress(confidence.DEFAULT_MODEL.read_bytes()))


def _write(doc: dict, path: Path) -> Path:
    path.write_bytes(gzip.compress(seal(doc)))
    return path


def test_a_damaged_or_foreign_confidence_model_is_refused(tmp_path: Path) -> None:
    good = _shipped()
    raw = bytearray(gzip.decompress(confidence.DEFAULT_MODEL.read_bytes()))
    raw[-30] = ord("7") if raw[-30] != ord("7") else ord("8")
    altered = tmp_path / "altered.json.gz"
    altered.write_bytes(gzip.compress(bytes(raw)))
    with pytest.raises(ModelError, match="checksum mismatch"):
        confidence.load(altered)
    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.")
    with pytest.raises(ModelError, match="not a sitesift confidence model"):
        confidence.load(pickled)
    with pytest.raises(ModelError, match="features"):
        confidence.load(_write({**good, "features": good["features"][:-1]}, tmp_path / "f.gz"))
    with pytest.raises(ModelError, match="calibration"):
        confidence.load(_write({**good, "calibration": {"x": [0.5, 0.1], "y": [0.2, 0.3]}},
                               tmp_path / "c.gz"))
    with pytest.raises(ModelError, match="calibration"):
        confidence.load(_write({**good, "calibration": {"x": [0.1, 0.5], "y": [0.2, 1.3]}},
                               tmp_path / "y.gz"))
    bad = dict(good["forest"])
    bad["left"] = [len(bad["left"]) + 5] * len(bad["left"])
    with pytest.raises(ModelError, match="bad forest"):
        confidence.load(_write({**good, "forest": bad}, tmp_path / "b.gz"))
    narrow = {**good["forest"], "n_features": good["forest"]["n_features"] - 1}
    with pytest.raises(ModelError, match="bad forest"):
        confidence.load(_write({**good, "forest": narrow}, tmp_path / "w.gz"))


def test_a_bad_confidence_model_stops_the_command_before_any_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.json.gz"
    path.write_bytes(b"not gzip at all")
    monkeypatch.setenv(confidence.ENV, str(path))
    with pytest.raises(ModelError, match=r"broken\.json\.gz"):
        sitesift.clean(ARTICLE, url=URL)
    pages = _pages(tmp_path)
    assert main(["clean", str(pages), "-o", str(tmp_path / "out"), "-q"]) != 0
    assert "broken.json.gz" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_calibration_figures() -> None:
    f1 = [0.1, 0.5, 0.9, 0.95, 1.0, 0.3]
    assert ece(f1, f1) == pytest.approx(0.0)
    assert ece([0.95] * 6, f1) == pytest.approx(abs(0.95 - sum(f1) / 6))
    assert spearman(f1, f1) == pytest.approx(1.0)
    assert spearman([-v for v in f1], f1) == pytest.approx(-1.0)
    assert auroc_bad(f1, f1) == pytest.approx(1.0)
    assert auroc_bad([1 - v for v in f1], f1) == pytest.approx(0.0)
    assert auroc_bad([0.5] * 6, f1) == pytest.approx(0.5)
    assert auroc_bad([0.9, 0.95], [0.9, 0.95]) is None  # no bad page
    bins = reliability([0.05, 0.15, 0.99, 1.0], [0.0, 0.2, 1.0, 1.0])
    assert [b["pages"] for b in bins] == [1, 1, 2]


def test_bench_reports_the_confidence(tmp_path: Path) -> None:
    from sitesift.bench.report import confidence_table, write_report
    from sitesift.bench.runner import score

    scores = score("a b c", "a b c d", None)
    rows = [{**scores, "corpus": "c", "id": str(i), "method": "default", "f1": f,
             "confidence": c, "kind": "sitesift", "ms": 1.0, "cpu_ms": 1.0}
            for i, (f, c) in enumerate([(0.9, 0.85), (0.5, 0.6), (1.0, 0.95), (0.7, 0.7)])]
    rows += [{**scores, "corpus": "c", "id": "0", "method": "alltext", "f1": 0.4,
              "confidence": None, "kind": "sitesift", "ms": 1.0, "cpu_ms": 1.0}]
    table = confidence_table(rows, ["default", "alltext"])
    assert table is not None and "| default | c | 4 |" in table and "alltext" not in table
    text = write_report(rows, {"methods": ["default", "alltext"]}, tmp_path)
    assert "Confidence against the real token F1" in text
    pytest.importorskip("matplotlib")
    assert (tmp_path / "plots" / "reliability-default.png").is_file()


def test_on_real_pages_the_confident_pages_score_above_the_doubtful_ones() -> None:
    """A slice of dragnet (its first 60 pages): the 10 pages the cleaner is surest of score
    above the 10 it is least sure of, and the confidence ranks the pages with the real F1
    (the held-out figures, on pages no model saw: docs/confidence.md)."""
    from sitesift.datasets import gold_pages
    from sitesift.metrics import token_prf

    root = shared_dataset("dragnet")
    conf, f1 = [], []
    for k, (_, page, gold) in enumerate(gold_pages(root)):
        if k >= 60:
            break
        result = sitesift.clean(page)
        assert result.confidence is not None
        conf.append(result.confidence)
        f1.append(token_prf(result.text, gold).f1)
    order = sorted(range(len(conf)), key=conf.__getitem__)
    doubtful = sum(f1[i] for i in order[:10]) / 10
    sure = sum(f1[i] for i in order[-10:]) / 10
    assert sure > doubtful + 0.1, (sure, doubtful)  # 0.988 against 0.771 when written
    rho = spearman(conf, f1)
    assert rho is not None and rho > 0.2, rho  # 0.335 when written
