"""The pipeline integrations on the bundled sample site: the Hugging Face map function
(`sitesift.integrations.hf`, on plain dicts and on a `datasets.Dataset`) and the DataTrove
extractor (`sitesift.integrations.datatrove`). The tests that need `datasets` or DataTrove
skip, saying which extra to install, where it is missing."""

from __future__ import annotations

import functools
import json
import pickle
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sitesift
from sitesift.errors import ModelError, UnknownMethodError
from sitesift.integrations.hf import ERROR_COLUMN, batch_cleaner, clean_batch
from sitesift.model_io import save_model
from sitesift.page import Page

SAMPLE_SITE = Path(sitesift.__file__).parent / "data" / "sample_site"
# Template text on every page of the sample site, never in its gold text.
NAVIGATION = ("Subscribe", "Most read", "Log in", "Advertisement", "Privacy policy")
# What the Site Style Tree removes of it: it keeps the top bar ("Log in", "Subscribe"),
# whose date differs on every page.
SST_NAVIGATION = ("Most read", "Advertisement", "Privacy policy")
JUNK = "\x00\x01\x02\x03\x04" * 400  # binary bytes that reached a text column
PNG = "\x89PNG\r\n\x1a\n" + "\x00" * 200

BAD_SETTINGS: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"preset": "bogus"}, ValueError, "preset"),
    ({"threshold": "abc"}, ValueError, "threshold"),
    ({"nosuchkey": 1}, ValueError, "nosuchkey"),
    ({"model": "no/such/model.json.gz"}, ModelError, "no/such/model.json.gz"),
    ({"method": "nosuch"}, UnknownMethodError, "nosuch"),
    ({"method": "sst"}, ValueError, "site_model"),  # site-level, not fitted
    ({"site_model": "no/such/site.json"}, ModelError, "no/such/site.json"),
]


def _need(module: str, extra: str) -> Any:
    return pytest.importorskip(
        module, reason=f"{module} is not installed: pip install -e '.[{extra}]'")


@functools.cache
def sample(n: int = 10) -> list[dict[str, Any]]:
    """The first `n` pages of the sample site: id, url, HTML (decoded by the index's
    encoding), raw bytes, and the first sentence of the gold text's body."""
    rows = [json.loads(line) for line in
            (SAMPLE_SITE / "index.jsonl").read_text(encoding="utf-8").splitlines()][:n]
    out = []
    for row in rows:
        raw = (SAMPLE_SITE / "pages" / f"{row['id']}.html").read_bytes()
        gold = (SAMPLE_SITE / "gold" / f"{row['id']}.txt").read_text(encoding="utf-8")
        body = gold.splitlines()[1]  # (line 0 is the headline)
        first = re.split(r"(?<=[.!?])\s", body)[0]
        html = raw.decode(row["encoding"])
        assert all(s in html for s in NAVIGATION), row["id"]  # what the checks rely on
        out.append({"id": row["id"], "url": row["url"], "html": html, "raw": raw,
                    "first": first})
    return out


def assert_cleaned(pages: list[dict[str, Any]], texts: list[str],
                   navigation: tuple[str, ...] = NAVIGATION) -> None:
    assert len(texts) == len(pages)
    for page, text in zip(pages, texts, strict=True):
        assert text.strip(), page["id"]
        assert page["first"] in text, page["id"]
        assert not [s for s in navigation if s in text], page["id"]


@pytest.fixture(scope="module")
def site_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Site Style Tree fitted on the sample site, saved as `sitesift fit --out` does."""
    pages = [Page.from_file(p) for p in sorted((SAMPLE_SITE / "pages").glob("*.html"))]
    path = tmp_path_factory.mktemp("model") / "site.sst.json"
    save_model(sitesift.get_cleaner("sst").fit(pages), path)
    return str(path)


# --- Hugging Face: the map function on plain dicts (no `datasets` needed) -----------------

def test_clean_batch_on_dicts_cleans_every_page() -> None:
    pages = sample()
    out = clean_batch({"html": [p["html"] for p in pages], "url": [p["url"] for p in pages]})
    assert set(out) == {"text", ERROR_COLUMN, "language", "language_score", "page_type",
                        "page_type_score", "confidence"}
    # the language of the text, as a crawl record has it (the sample site is English)
    assert out["language"] == ["en"] * len(pages)
    assert all(0.5 < s <= 1.0 for s in out["language_score"])
    assert out[ERROR_COLUMN] == [""] * len(pages)
    assert_cleaned(pages, out["text"])
    # the page type as a crawl record has it: the sample site's stories are articles
    assert out["page_type"].count("article") >= 0.8 * len(pages)
    assert all(0 < score <= 1 for score in out["page_type_score"])
    # the confidence as a crawl record has it (docs/confidence.md)
    assert all(0 <= c <= 1 for c in out["confidence"])
    other = clean_batch({"html": [pages[0]["html"]]}, url_column=None, method="alltext")
    assert other["confidence"] == [None]  # a method that gives none


# A story with two readers' comments under it, in a section named for them.
COMMENTED = """<html><head><title>Harbour wall repaired</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Harbour wall repaired after winter storms</h1>
<p>The council finished repairs to the old harbour wall on Tuesday, three months after the
January storms broke a twelve-metre section near the lifeboat station.</p>
<p>Engineers used granite blocks from the original quarry so that the new stretch matches the
rest of the wall, which dates from 1847.</p>
<p>Fishing boats had been mooring in the outer basin since the storm, and skippers said the
repairs came just in time for the mackerel season.</p></article>
<section id="comments" class="comments"><h2>2 Comments</h2>
<div class="comment"><p class="author">Jane</p><p>Great to see the wall fixed at last, it
looked terrible all spring and the kids could not fish from it.</p></div>
<div class="comment"><p class="author">Tom</p><p>Shame it took three months, but the granite
looks much better than the concrete they used in the nineties.</p></div></section>
<footer>Copyright 2026 The Harbour Gazette</footer></body></html>"""


def test_comments_kept_apart_get_a_column_of_their_own() -> None:
    bare = COMMENTED.split("<section")[0] + "</body></html>"
    rows = {"html": [COMMENTED, bare], "url": ["https://harbour.example/news/wall"] * 2}
    apart = clean_batch(rows, comments="separate")
    # the comments beside the text, out of it; "" for the page without comments
    assert "granite looks much better" in apart["comments"][0]
    assert "granite looks much better" not in apart["text"][0]
    assert "mackerel season" in apart["text"][0]
    assert apart["comments"][1] == "" and "mackerel season" in apart["text"][1]
    # without comments=separate no such column (the comments are the model's to keep or not)
    assert "comments" not in clean_batch(rows)
    one = clean_batch({"html": COMMENTED, "url": None}, comments="separate")
    assert "nineties" in one["comments"] and "nineties" not in one["text"]


def test_bad_rows_get_an_error_and_empty_text_the_rest_are_cleaned() -> None:
    pages = sample()[:4]
    html: list[Any] = [pages[0]["html"], JUNK, None, "", "   ", pages[1]["raw"], PNG.encode(
        "latin-1"), 12345, pages[2]["html"], "<div>" * 6000, pages[3]["html"]]
    out = clean_batch({"html": html}, url_column=None)
    assert len(out["text"]) == len(out[ERROR_COLUMN]) == len(html)
    good = {0: pages[0], 5: pages[1], 8: pages[2], 10: pages[3]}
    assert_cleaned(list(good.values()), [out["text"][i] for i in good])
    for i in set(range(len(html))) - set(good):
        assert out["text"][i] == "", i
        assert out[ERROR_COLUMN][i], i
        assert (out["page_type"][i], out["page_type_score"][i]) == ("", 0.0), i
        assert (out["language"][i], out["language_score"][i]) == ("", 0.0), i
        assert out["confidence"][i] == 0.0, i
    assert all(out["page_type"][i] and out["page_type_score"][i] > 0 for i in good)
    errors = out[ERROR_COLUMN]
    assert "binary input" in errors[1] and "None" in errors[2] and "empty" in errors[3]
    assert "PNG" in errors[6] and "int" in errors[7]
    assert all(errors[i] == "" for i in good)


def test_one_row_at_a_time_and_custom_columns() -> None:
    page = sample()[0]
    out = clean_batch({"body": page["raw"], "link": page["url"]}, html_column="body",
                      url_column="link", text_column="main", error_column="why")
    assert out["why"] == "" and page["first"] in out["main"]
    assert out["page_type"] == "article" and 0 < out["page_type_score"] <= 1
    assert out["language"] == "en" and 0.5 < out["language_score"] <= 1
    assert 0 <= out["confidence"] <= 1
    with pytest.raises(ValueError, match=r"'html'.*'body'"):
        clean_batch({"body": [page["html"]]})


@pytest.mark.parametrize(("settings", "error", "words"), BAD_SETTINGS)
def test_bad_settings_raise_when_the_map_function_is_made(
        settings: dict[str, Any], error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=re.escape(words)):
        batch_cleaner(**settings)
    with pytest.raises(error, match=re.escape(words)):  # on the first batch, not per row
        clean_batch({"html": [sample()[0]["html"]]}, **settings)


def test_a_fitted_site_model_cleans_with_its_own_method(site_model: str) -> None:
    pages = sample()
    fn = batch_cleaner(site_model=site_model)
    out = fn({"html": [p["html"] for p in pages], "url": [p["url"] for p in pages]})
    assert out[ERROR_COLUMN] == [""] * len(pages)
    assert_cleaned(pages, out["text"], SST_NAVIGATION)
    with pytest.raises(ValueError, match="own settings"):
        batch_cleaner(site_model=site_model, threshold=0.5)
    with pytest.raises(ValueError, match="'sst' model"):
        batch_cleaner("default", site_model=site_model)


# --- Hugging Face: datasets.Dataset.map ---------------------------------------------------

def test_dataset_map_cleans_the_sample_site() -> None:
    datasets = _need("datasets", "hf")
    pages = sample()
    ids = [f"<urn:uuid:{k}>" for k in range(len(pages))]  # provenance, as a crawl's
    ds = datasets.Dataset.from_dict({"html": [p["html"] for p in pages],
                                     "url": [p["url"] for p in pages], "warc_record_id": ids})
    out = ds.map(clean_batch, batched=True, batch_size=4, fn_kwargs={"preset": "precision"})
    assert out.column_names == ["html", "url", "warc_record_id", "text", ERROR_COLUMN,
                                "language", "language_score", "page_type", "page_type_score",
                                "confidence"]
    assert set(out["language"]) == {"en"}
    assert list(out["warc_record_id"]) == ids
    assert list(out[ERROR_COLUMN]) == [""] * len(pages)
    assert_cleaned(pages, list(out["text"]))
    # the factory: the same texts, also without batching
    fn = batch_cleaner(preset="precision")
    assert list(ds.map(fn, batched=True)["text"]) == list(out["text"])
    assert list(ds.map(fn)["text"]) == list(out["text"])


def test_dataset_map_survives_bad_rows_in_any_batch() -> None:
    datasets = _need("datasets", "hf")
    pages = sample()
    html: list[str | None] = [p["html"] for p in pages]
    html[0], html[1], html[2] = JUNK, None, ""  # the whole first batch fails
    html[7] = PNG
    ds = datasets.Dataset.from_dict({"html": html, "url": [p["url"] for p in pages]})
    out = ds.map(clean_batch, batched=True, batch_size=3, remove_columns=["html"])
    assert out.features["text"].dtype == out.features[ERROR_COLUMN].dtype == "string"
    bad = {0, 1, 2, 7}
    errors, texts = list(out[ERROR_COLUMN]), list(out["text"])
    assert [i for i, e in enumerate(errors) if e] == sorted(bad)
    assert all(texts[i] == "" for i in bad)
    assert all(out["page_type"][i] == "" for i in bad)
    good = [i for i in range(len(pages)) if i not in bad]
    assert_cleaned([pages[i] for i in good], [texts[i] for i in good])


def test_dataset_map_in_two_processes_with_bytes() -> None:
    datasets = _need("datasets", "hf")
    from datasets.fingerprint import Hasher

    pages = sample()
    ds = datasets.Dataset.from_dict({"html": [p["raw"] for p in pages]})  # a binary column
    fn = batch_cleaner()
    # pickled with its settings only, so the same settings give the same cache fingerprint
    assert Hasher.hash(fn) == Hasher.hash(batch_cleaner())
    assert Hasher.hash(fn) != Hasher.hash(batch_cleaner(preset="recall"))
    out = ds.map(fn, batched=True, batch_size=3, num_proc=2)
    assert list(out[ERROR_COLUMN]) == [""] * len(pages)
    assert_cleaned(pages, list(out["text"]))


# --- DataTrove --------------------------------------------------------------------------

def _documents(pages: list[dict[str, Any]]) -> list[Any]:
    from datatrove.data import Document

    return [Document(text=p["html"], id=p["id"], metadata=_metadata(p)) for p in pages]


def _metadata(page: dict[str, Any]) -> dict[str, Any]:
    """What DataTrove's WarcReader gives a document besides its id (the WARC-Record-ID)."""
    return {"url": page["url"], "date": "2024-05-01T12:00:00Z", "dump": "test"}


def test_datatrove_step_cleans_documents_and_drops_broken_ones() -> None:
    _need("datatrove", "datatrove")
    from datatrove.data import Document

    from sitesift.integrations.datatrove import Sitesift

    pages = sample()
    docs = _documents(pages)
    docs[2:2] = [Document(text=JUNK, id="junk", metadata={"url": "https://x.example/j"})]
    docs[5:5] = [Document(text="", id="empty"), Document(text=PNG, id="png")]
    step = Sitesift()
    out = list(step(iter(docs), rank=0, world_size=1))
    assert [d.id for d in out] == [p["id"] for p in pages]
    assert_cleaned(pages, [d.text for d in out])
    for d, p in zip(out, pages, strict=True):
        assert d.metadata.pop("language") == "en" and 0.5 < d.metadata.pop("language_score") <= 1
        assert d.metadata.pop("page_type") in {"article", "listing", "service"}
        assert 0 < d.metadata.pop("page_type_score") <= 1
        assert 0 <= d.metadata.pop("confidence") <= 1
        assert d.metadata == _metadata(p)
    stats = {k: v.total for k, v in step.stats.stats.items()}
    assert stats["total"] == len(pages) + 3
    assert stats["forwarded"] == len(pages)
    assert stats["clean_error"] == 2  # junk and png: refused, logged once
    assert stats["dropped"] == 1  # the empty document, as DataTrove's extractors do
    assert "timeout" not in stats and "broken_process" not in stats


def test_datatrove_step_keeps_comments_apart_in_the_metadata() -> None:
    _need("datatrove", "datatrove")
    from datatrove.data import Document

    from sitesift.integrations.datatrove import Sitesift

    docs = [Document(text=COMMENTED, id="wall", metadata={"url": "https://harbour.example/w"})]
    out = list(Sitesift(comments="separate")(iter(docs), rank=0, world_size=1))
    assert "granite looks much better" in out[0].metadata["comments"]
    assert "granite looks much better" not in out[0].text
    plain = [Document(text=COMMENTED, id="wall", metadata={"url": "https://harbour.example/w"})]
    assert "comments" not in next(iter(Sitesift()(iter(plain), rank=0, world_size=1))).metadata


def test_datatrove_step_extract_is_the_main_text() -> None:
    _need("datatrove", "datatrove")
    from sitesift.errors import InputError
    from sitesift.integrations.datatrove import Sitesift

    page = sample()[0]
    step = Sitesift(preset="precision")
    text = step.extract(page["html"])
    assert page["first"] in text and step.extract(page["raw"], page["url"]).strip()
    assert step.extract("") == ""  # what DataTrove's worker warms up with
    with pytest.raises(InputError, match="binary"):
        step.extract(JUNK)


@pytest.mark.parametrize(("settings", "error", "words"), [
    *BAD_SETTINGS,
    ({"favour_precision": True}, ValueError, "preset='precision'"),
    ({"timeout": 0}, ValueError, "timeout"),
])
def test_datatrove_step_refuses_bad_settings_when_made(
        settings: dict[str, Any], error: type[Exception], words: str) -> None:
    _need("datatrove", "datatrove")
    from sitesift.integrations.datatrove import Sitesift

    with pytest.raises(error, match=re.escape(words)):
        Sitesift(**settings)


def test_datatrove_step_with_a_site_model(site_model: str) -> None:
    _need("datatrove", "datatrove")
    from sitesift.integrations.datatrove import Sitesift

    pages = sample()
    step = Sitesift(site_model=site_model)
    assert step.cleaner.name == "sst"
    out = list(step(iter(_documents(pages))))
    assert_cleaned(pages, [d.text for d in out], SST_NAVIGATION)


def test_datatrove_step_times_out_one_document_and_goes_on() -> None:
    _need("datatrove", "datatrove")
    from datatrove.data import Document

    from sitesift.integrations.datatrove import Sitesift

    class Slow(Sitesift):
        def extract(self, text: str | bytes, url: str | None = None) -> str:
            if isinstance(text, str) and "HANG" in text:
                time.sleep(30)
            return super().extract(text, url)

    pages = sample()[:3]
    docs = _documents(pages)
    docs[1:1] = [Document(text="<p>HANG</p>", id="hang")]
    step = Slow(timeout=1)
    started = time.monotonic()
    out = list(step(iter(docs)))
    assert time.monotonic() - started < 20
    assert [d.id for d in out] == [p["id"] for p in pages]
    assert_cleaned(pages, [d.text for d in out])
    stats = {k: v.total for k, v in step.stats.stats.items()}
    assert stats["timeout"] == 1 and stats["forwarded"] == len(pages)


def test_datatrove_step_pickles_without_its_model() -> None:
    _need("datatrove", "datatrove")
    import dill  # what DataTrove's executors pickle the pipeline with

    from sitesift.integrations.datatrove import Sitesift

    pages = sample()[:3]
    step = Sitesift(preset="precision", url_key="link")
    for dumps, loads in ((pickle.dumps, pickle.loads), (dill.dumps, dill.loads)):
        copy = loads(dumps(step))
        assert copy._cleaner is None and copy.params == {"preset": "precision"}
        assert copy.url_key == "link"
        out = list(copy(iter(_documents(pages))))
        assert_cleaned(pages, [d.text for d in out])
        assert copy.cleaner.get_params()["preset"] == "precision"


def _write_jsonl(folder: Path, data: Iterator[Any], rank: int = 0,
                 world_size: int = 1) -> Iterator[Any]:
    """The last step of the executor's pipeline: each task's documents to a file."""
    with open(folder / f"{rank}.jsonl", "w", encoding="utf-8") as f:
        for doc in data:
            f.write(json.dumps({"id": doc.id, "text": doc.text, "meta": doc.metadata}) + "\n")
    yield from ()


def test_datatrove_executor_runs_the_step_in_two_tasks(tmp_path: Path) -> None:
    _need("datatrove", "datatrove")
    from datatrove.executor import LocalPipelineExecutor

    from sitesift.integrations.datatrove import Sitesift

    pages = sample()
    docs = _documents(pages)

    def shard(data: Any, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        yield from docs[rank::world_size]

    (tmp_path / "out").mkdir()
    executor = LocalPipelineExecutor(
        [shard, Sitesift(), functools.partial(_write_jsonl, tmp_path / "out")],
        tasks=2, workers=2, logging_dir=str(tmp_path / "logs"), start_method="fork")
    executor.run()
    rows = [json.loads(line) for f in sorted((tmp_path / "out").glob("*.jsonl"))
            for line in f.read_text(encoding="utf-8").splitlines()]
    by_id = {r["id"]: r for r in rows}
    assert sorted(by_id) == [p["id"] for p in pages]
    assert_cleaned(pages, [by_id[p["id"]]["text"] for p in pages])
    assert all(by_id[p["id"]]["meta"]["url"] == p["url"] for p in pages)
