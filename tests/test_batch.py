"""The local batch: one outcome per input, and held-out folds."""

from __future__ import annotations

from pathlib import Path

from sitesift.batch import SitePolicy, Source, clean_group
from sitesift.cli import SAMPLE_SITE
from sitesift.datasets import read_index
from sitesift.evaluate import evaluate
from sitesift.inputs import collect_sources
from sitesift.jobs.grouping import group_rows
from sitesift.metrics import token_prf


def _sources() -> list[Source]:
    return [Source(r["id"], "", r, str(SAMPLE_SITE)) for r in read_index(SAMPLE_SITE)]


def test_folds_clean_every_page_with_a_model_that_never_saw_it() -> None:
    sources = _sources()
    plain = clean_group("sst", "site", sources)
    held_out = clean_group(SitePolicy("sst", folds=3), "site", sources)
    assert [o.id for o in held_out] == [s.id for s in sources]
    assert all(o.result is not None for o in held_out)
    # a page seen in the fit and the same page unseen are cleaned much alike on a templated
    # site, though not identically (fewer pages of evidence)
    agree = [token_prf(a.result.text, b.result.text).f1
             for a, b in zip(plain, held_out, strict=True) if a.result and b.result]
    assert sum(agree) / len(agree) > 0.85


def test_held_out_quality_on_the_sample_site() -> None:
    rows = evaluate([SAMPLE_SITE], ["alltext", "sst"], folds=2)
    mean = {m: sum(r["f1"] for r in rows if r["method"] == m) / 30 for m in ("alltext", "sst")}
    assert mean["sst"] > mean["alltext"] + 0.1


def test_single_page_fold_keeps_everything() -> None:
    sources = _sources()[:1]
    (outcome,) = clean_group(SitePolicy("sst", folds=2), "site", sources)
    (baseline,) = clean_group("alltext", "site", sources)
    assert outcome.result is not None and baseline.result is not None
    assert outcome.result.text == baseline.result.text


def test_pages_without_a_site_are_not_pooled_into_one_site(tmp_path: Path) -> None:
    rows = [{"id": "a", "site": "news.example"}, {"id": "b", "site": "news.example"},
            {"id": "c", "host": "blog.example"}, {"id": "d"}, {"id": "e", "site": ""}]
    groups = group_rows(rows, "site")
    assert sorted(len(v) for v in groups.values()) == [1, 1, 1, 2]
    assert [r["id"] for r in groups["news.example"]] == ["a", "b"]
    assert [r["id"] for r in group_rows(rows, "none")["all"]] == list("abcde")
    # files: the site is the declared URL's host; files that declare none were put
    # together by the user and are taken for one site
    for name, url in (("p1", "https://news.example/1"), ("p2", "https://news.example/2"),
                      ("x", None), ("y", None)):
        link = f'<link rel="canonical" href="{url}">' if url else ""
        (tmp_path / f"{name}.html").write_text(f"<html><head>{link}</head><body>{name}</body>")
    files = collect_sources(tmp_path, "site")
    assert sorted(sorted(s.id for s in v) for v in files.values()) == [["p1", "p2"],
                                                                        ["x", "y"]]
