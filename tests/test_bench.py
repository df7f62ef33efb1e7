"""`sitesift bench`: rows, report and plots, with stand-in peers on the bundled sample site."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from sitesift.bench import peers as peers_mod
from sitesift.bench.peers import Peer
from sitesift.bench.plots import write_plots
from sitesift.bench.report import corpus_table, page_type_table, summary
from sitesift.bench.runner import corpus_grouping, describe, run_bench
from sitesift.cli import SAMPLE_SITE, main
from sitesift.datasets import read_gold, read_index
from sitesift.evaluate import evaluate
from tests.conftest import refused

IDS = [r["id"] for r in read_index(SAMPLE_SITE)]
REQUIRED = {"corpus", "id", "method", "precision", "recall", "f1", "ms", "error",
            "rouge_l_f1", "shingle_f1"}


def _gold_echo() -> Peer:
    """A perfect peer: answers with the gold text of the page its URL names."""
    urls = {r["url"]: r["id"] for r in read_index(SAMPLE_SITE)}
    return Peer("gold-echo", "1.0",
                lambda html, url: read_gold(SAMPLE_SITE, urls[url or ""]) or "")


def _boom() -> Peer:
    def extract(html: str, url: str | None) -> str:
        if url and url.endswith("parking-charges"):
            raise RuntimeError("boom on this page")
        return "some words"

    return Peer("boom", "0.1", extract)


@pytest.fixture
def fake_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(peers_mod.PEERS, "gold-echo", _gold_echo)
    monkeypatch.setitem(peers_mod.PEERS, "boom", _boom)


def test_every_method_and_peer_scores_every_page(fake_peers: None) -> None:
    run = run_bench([SAMPLE_SITE], ["alltext", "sst"], ["gold-echo", "boom", "no-such-peer"])
    assert run.skipped.keys() == {"no-such-peer"}
    assert run.peers == {"gold-echo": "1.0", "boom": "0.1"}
    for method in ("alltext", "sst", "gold-echo", "boom"):
        rows = [r for r in run.rows if r["method"] == method]
        assert sorted(r["id"] for r in rows) == sorted(IDS)
        assert all(r.keys() >= REQUIRED for r in rows)
    echo = [r for r in run.rows if r["method"] == "gold-echo"]
    assert all(r["f1"] == 1.0 and r["rouge_l_f1"] == 1.0 and r["error"] is None for r in echo)


def test_a_peer_that_raises_scores_empty_with_the_error(fake_peers: None) -> None:
    run = run_bench([SAMPLE_SITE], [], ["boom"])
    failed = [r for r in run.rows if r["error"]]
    assert [r["id"] for r in failed] == ["hg-001"]
    assert "boom on this page" in failed[0]["error"]
    assert failed[0]["f1"] == 0.0 and failed[0]["chars"] == 0
    assert all(r["chars"] == len("some words") for r in run.rows if not r["error"])


def test_a_page_sitesift_refuses_still_goes_to_the_peers(tmp_path: Path,
                                                         fake_peers: None) -> None:
    root = tmp_path / "deep"
    (root / "pages").mkdir(parents=True)
    (root / "gold").mkdir()
    (root / "pages" / "d.html").write_text("<div>" * 6000 + "deep words" + "</div>" * 6000)
    (root / "gold" / "d.txt").write_text("deep words\n")
    (root / "index.jsonl").write_text(json.dumps({"id": "d", "url": "https://d.example/"}))
    rows = {r["method"]: r for r in run_bench([root], ["alltext"], ["boom"]).rows}
    assert "nested" in rows["alltext"]["error"] and rows["alltext"]["f1"] == 0.0
    assert rows["boom"]["error"] is None and rows["boom"]["chars"] > 0


def test_sitesift_rows_are_those_of_evaluate() -> None:
    """Site-level methods are fitted per site group exactly as `sitesift evaluate` does."""
    run = run_bench([SAMPLE_SITE], ["sst"], [])
    bench = {r["id"]: r["f1"] for r in run.rows}
    assert bench == {r["id"]: r["f1"] for r in evaluate([SAMPLE_SITE], ["sst"])}
    assert all(r["ms"] >= r["clean_ms"] + r["parse_ms"] for r in run.rows)
    assert all(r["kind"] == "sitesift" and r["fit_ms"] > 0 for r in run.rows)
    assert all(0 < r["cpu_ms"] <= 2 * r["ms"] + 5 for r in run.rows)


def test_method_parameters_reach_the_cleaner_and_the_run_record(tmp_path: Path) -> None:
    strict = {"default": {"threshold": 0.98, "relative": 0.0}}
    runs = {name: run_bench([SAMPLE_SITE], ["default"], [], params=params)
            for name, params in (("plain", None), ("strict", strict))}
    recall = {k: sum(r["recall"] for r in run.rows) / len(run.rows) for k, run in runs.items()}
    assert recall["strict"] < recall["plain"] - 0.2
    assert runs["strict"].meta["params"] == strict and "params" not in runs["plain"].meta
    refused(["bench", str(SAMPLE_SITE), "--methods", "alltext", "--peers", "none",
             "--set", "sst.threshold=1", "--out", str(tmp_path)],
            "sst is not one of the methods given")


def test_limit_takes_the_first_pages_in_index_order() -> None:
    run = run_bench([SAMPLE_SITE], ["alltext"], [], limit=5)
    assert [r["id"] for r in run.rows] == IDS[:5]


def _tiny_corpus(root: Path, years: bool) -> Path:
    """Two pages with gold and WCXB-style snippets."""
    (root / "pages").mkdir(parents=True)
    (root / "gold").mkdir()
    rows = []
    for n in (1, 2):
        page_id = f"p{n}"
        body = (f"<html><body><nav>Home Login</nav><p>Story {n} tells a long tale of the "
                f"harbour.</p><footer>Cookie settings</footer></body></html>")
        (root / "pages" / f"{page_id}.html.gz").write_bytes(gzip.compress(body.encode()))
        (root / "gold" / f"{page_id}.txt").write_text(f"Story {n} tells a long tale of the "
                                                      "harbour.\n", encoding="utf-8")
        (root / "gold" / f"{page_id}.snippets.json").write_text(json.dumps(
            {"with": ["long tale of the harbour", "not on the page"],
             "without": ["Cookie settings", "Newsletter"]}), encoding="utf-8")
        rows.append({"id": page_id, "site": "tiny.example", "page_type": "article",
                     **({"year": 2000 + n} if years else {})})
    (root / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.mark.parametrize(("years", "grouping"), [(True, "site,year"), (False, "site")],
                         ids=["with-years", "without-years"])
def test_auto_grouping_uses_years_where_rows_have_them(tmp_path: Path, years: bool,
                                                       grouping: str) -> None:
    root = _tiny_corpus(tmp_path / "tiny", years)
    assert corpus_grouping(root) == grouping
    assert corpus_grouping(root, "none") == "none"
    run = run_bench([root], ["sst"], [])
    assert run.corpora == {"tiny": grouping}
    assert len({r["group"] for r in run.rows}) == (2 if years else 1)


def test_snippet_rates_come_from_snippet_gold(tmp_path: Path) -> None:
    run = run_bench([_tiny_corpus(tmp_path / "tiny", False)], ["alltext"], [])
    assert all(r["with_found"] == 0.5 and r["without_kept"] == 0.5 for r in run.rows)
    assert all(r["page_type"] == "article" for r in run.rows)


def _rows() -> list[dict[str, object]]:
    """Synthetic rows: two page types, three methods with known medians."""
    rows = []
    for method, ms, f1 in (("m", 5.0, 0.9), ("trafilatura", 10.0, 0.8), ("resiliparse", 2.0, 0.6)):
        for i, page_type in enumerate(("article", "forum", "forum")):
            rows.append({"corpus": "c", "id": str(i), "method": method, "page_type": page_type,
                         "kind": "sitesift" if method == "m" else "peer",
                         "f1": f1 - 0.1 * i, "precision": f1, "recall": 1.0, "ms": 3 * ms,
                         "cpu_ms": ms,
                         "rouge_l_f1": f1, "shingle_f1": f1, "error": "x" if i == 2 else None})
    return rows


def test_corpus_table_speed_ratios_and_errors() -> None:
    lines = corpus_table(_rows(), ["m", "trafilatura", "resiliparse"]).splitlines()
    m = [c.strip() for c in lines[2].split("|")[1:-1]]
    assert m[:5] == ["m", "3", "1", "0.800", "0.800"]   # pages, errors, mean F1, median F1
    # median wall ms, median CPU ms, x trafilatura and x resiliparse (by CPU time)
    assert m[-4:] == ["15.0", "5.0", "2.00", "0.40"]
    assert m[11:13] == ["-", "-"]                       # no snippet gold: no snippet rates


def test_page_type_table_and_summary() -> None:
    table = page_type_table(_rows(), ["m", "trafilatura"]).splitlines()
    assert table[2].startswith("| article | 1 | 0.900 | 0.800 |")
    assert table[3].startswith("| forum | 2 | 0.750 | 0.650 |")
    info = {"methods": ["m"], "peers": {"trafilatura": "2", "resiliparse": "1"},
            "skipped": {"goose3": "not installed"}, "corpora": {"c": "site"}}
    text = summary(_rows(), info, "sitesift bench c")
    assert "skipped goose3: not installed" in text
    assert "| c | 3 | 0.800 (5.0) | 0.700 (10.0) | 0.500 (2.0) |" in text
    assert "### c: mean token F1 per page type" in text


def test_plots_are_png_files(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="plots need matplotlib (sitesift[bench])")
    paths = write_plots(_rows(), ["m", "trafilatura", "resiliparse"], tmp_path)
    assert sorted(p.name for p in paths) == ["f1-c.png", "f1-page-type-c.png", "f1-vs-ms-c.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in paths)


def test_cli_writes_summary_pages_and_plots(tmp_path: Path, fake_peers: None,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    def absent() -> Peer:
        raise peers_mod.PeerUnavailable("not installed here")

    # a known peer that cannot run here is skipped with its reason (an unknown name is
    # refused before any work: tests/test_cli_edges.py)
    monkeypatch.setitem(peers_mod.PEERS, "absent", absent)
    out = tmp_path / "bench"
    assert main(["bench", str(SAMPLE_SITE), "--methods", "alltext,sst", "--peers",
                 "gold-echo,absent", "--out", str(out), "--quiet"]) == 0
    assert "skipped absent: not installed here" in capsys.readouterr().err
    rows = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * len(IDS)
    summary_md = (out / "summary.md").read_text()
    assert "## sample_site (30 pages" in summary_md and "| gold-echo | 30 | 0 | 1.000" in summary_md
    plots = {p.name for p in (out / "plots").glob("*.png")}
    if importlib.util.find_spec("matplotlib") is None:
        assert not plots and "skipped plots" in summary_md
    else:
        assert plots >= {"f1-sample_site.png", "f1-vs-ms-sample_site.png"}
    (out / "summary.md").unlink()
    assert main(["bench", "--from-pages", "--out", str(out), "--no-plots"]) == 0
    assert (out / "summary.md").read_text() == summary_md


def test_cli_refuses_unknown_methods_and_non_datasets(tmp_path: Path) -> None:
    refused(["bench", str(SAMPLE_SITE), "--methods", "nope", "--out", str(tmp_path)],
            "unknown method")
    refused(["bench", str(tmp_path), "--out", str(tmp_path / "o")], "not a dataset")


def _wrapped() -> Exception:
    try:
        try:
            [].pop()
        except IndexError as exc:
            raise RuntimeError() from exc
    except RuntimeError as outer:
        return outer
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("exc", "text"),
    [(ValueError("bad page"), "ValueError: bad page"),
     (_wrapped(), "RuntimeError: caused by IndexError: pop from empty list")],
    ids=["message", "empty-message-names-the-cause"],
)
def test_errors_are_recorded_with_their_cause(exc: Exception, text: str) -> None:
    assert describe(exc) == text
