"""Weak set-ups are told, not silent: fits on too few pages or on several sites warn
(`WeakFitWarning`, `Cleaner.fit_warnings`), and a page whose text scripts would fill in
gets a warning in its result, its JSON, its batch outcome and its crawl record."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import sitesift
from sitesift.batch import RunSettings, Source, WarningTally, clean_group, fit_sources, run_groups
from sitesift.crawl import run_crawl
from sitesift.datasets import load_page, read_index, read_page_bytes
from sitesift.errors import SitesiftWarning, WeakFitWarning
from sitesift.guards import Limits
from sitesift.io.warc import HttpResponse, write_warc
from sitesift.methods.base import get_class, get_cleaner, method_names
from sitesift.page import Page
from sitesift.sitework import CrawlConfig
from sitesift.weak import SCRIPTED, SEVERAL_SITES, TOO_FEW, scripted

SAMPLE_SITE = Path(sitesift.__file__).parent / "data" / "sample_site"
ROWS = read_index(SAMPLE_SITE)
SITE_LEVEL = ["sst", "template", "cst", "ibdf", "infodiscoverer"]

APP_SHELL = '<html><body><div id="root"></div><script src="app.js"></script></body></html>'
SHELLS = {
    "react": APP_SHELL,
    "next": ('<!DOCTYPE html><html><head><title>Shop</title><script src="/_next/main.js" '
             'defer></script></head><body><div id="__next"></div><script id="__NEXT_DATA__" '
             'type="application/json">{"props":{"pageProps":{}}}</script></body></html>'),
    "noscript": ('<html><head><script type="module" src="/assets/index.js"></script></head>'
                 "<body><noscript>You need to enable JavaScript to run this app.</noscript>"
                 '<div id="app">Loading...</div></body></html>'),
    "angular": ('<html><body><app-root></app-root><script src="runtime.js"></script>'
                '<script src="main.js"></script></body></html>'),
}


def sample_pages(n: int, start: int = 0) -> list[Page]:
    return [load_page(SAMPLE_SITE, row) for row in ROWS[start:start + n]]


def ours(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, SitesiftWarning)]


def fit_recording(method: str, pages: list[Page]) -> tuple[list[str], tuple[str, ...]]:
    """The warnings a fit gave (ours only) and the cleaner's `fit_warnings`."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cleaner = get_cleaner(method).fit(pages)
    return ours(record), cleaner.fit_warnings


# -- fits -----------------------------------------------------------------------------------

def test_sst_fitted_on_one_page_warns() -> None:
    with pytest.warns(WeakFitWarning, match=r"too few pages: sst fitted on 1 page; it needs "
                                            r"at least 5 pages") as record:
        cleaner = get_cleaner("sst").fit(sample_pages(1))
    assert len(ours(list(record))) == 1
    assert cleaner.fit_warnings == (str(record[0].message),)
    assert record[0].filename == __file__  # the warning names the caller of fit()


@pytest.mark.parametrize("method", SITE_LEVEL)
def test_every_site_level_method_warns_below_its_minimum(method: str) -> None:
    need = get_class(method).min_fit_pages
    assert need >= 2  # one page can never show what repeats across a site
    told, kept = fit_recording(method, sample_pages(need - 1))
    assert len(told) == 1 and told[0].startswith(f"{TOO_FEW}: {method} fitted on {need - 1}")
    assert list(kept) == told
    assert fit_recording(method, sample_pages(need)) == ([], ())


def test_sst_fitted_on_pages_of_two_sites_warns() -> None:
    """Sites from `site` where pages have one, else from the URL's registrable domain."""
    pages = sample_pages(8)
    for page in pages[:4]:
        page.site = None
        page.url = f"https://news.other.example/{page.id}"
    told, kept = fit_recording("sst", pages)
    assert told == list(kept) and len(told) == 1
    assert told[0].startswith(f"{SEVERAL_SITES}: sst fitted on pages of 2 sites "
                              "(harbourgazette.example, other.example)")
    with pytest.warns(WeakFitWarning, match="several sites"):
        get_cleaner("sst").fit(pages)


def test_hosts_of_one_site_are_one_site() -> None:
    pages = sample_pages(6)
    for k, page in enumerate(pages):
        page.site = None
        page.url = f"https://{('www.', 'news.', '')[k % 3]}harbourgazette.example/{k}"
    assert fit_recording("sst", pages) == ([], ())


def test_a_normal_site_fit_does_not_warn() -> None:
    for method in SITE_LEVEL:
        assert fit_recording(method, sample_pages(10)) == ([], ()), method


def test_default_fitted_on_one_page_or_none_does_not_warn_but_on_several_sites_does() -> None:
    assert get_class("default").min_fit_pages == 0  # it cleans a lone page by design
    assert fit_recording("default", sample_pages(1)) == ([], ())
    assert fit_recording("default", []) == ([], ())
    assert fit_recording("default", sample_pages(6)) == ([], ())
    pages = sample_pages(6)
    pages[0].site = "elsewhere.example"
    told, _ = fit_recording("default", pages)
    assert len(told) == 1 and told[0].startswith(f"{SEVERAL_SITES}: default fitted on pages "
                                                 "of 2 sites")
    # without its site evidence it learns nothing from the pages: nothing to warn of
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        get_cleaner("default", site=False).fit(pages)
    assert ours(record) == []


def test_a_refit_forgets_the_last_fits_warnings() -> None:
    cleaner = get_cleaner("sst")
    with pytest.warns(WeakFitWarning):
        cleaner.fit(sample_pages(2))
    assert cleaner.fit_warnings
    cleaner.fit(sample_pages(10))
    assert cleaner.fit_warnings == ()


# -- pages ----------------------------------------------------------------------------------

def test_a_js_app_page_cleaned_by_default_gets_a_warning() -> None:
    result = get_cleaner("default").clean(Page.from_html(APP_SHELL))
    assert result.text == ""
    (warning,) = result.meta["warnings"]
    assert warning.startswith(SCRIPTED) and 'an empty <div id="root">' in warning
    assert "1 script" in warning and "render the page in a browser" in warning
    assert result.warnings == [warning]
    assert result.to_dict()["meta"]["warnings"] == [warning]
    assert json.loads(json.dumps(result.to_dict()))["meta"]["warnings"] == [warning]


@pytest.mark.parametrize("kind", SHELLS)
def test_app_shells_of_the_common_frameworks_warn(kind: str) -> None:
    result = get_cleaner("default").clean(Page.from_html(SHELLS[kind]))
    assert [w.startswith(SCRIPTED) for w in result.warnings] == [True], result.warnings


def test_a_noscript_notice_is_named_and_its_text_is_not_taken_for_content() -> None:
    message = scripted(SHELLS["noscript"], "You need to enable JavaScript to run this app.")
    assert message is not None and "a <noscript> asking for JavaScript" in message
    assert 'an empty <div id="app">' in message  # "Loading..." is an empty root


@pytest.mark.parametrize("method", [m for m in method_names()
                                    if not get_class(m).needs_browser])
def test_every_method_warns_of_a_js_app_page(method: str) -> None:
    cleaner = get_cleaner(method)
    page = Page.from_html(APP_SHELL)
    if cleaner.site_level:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WeakFitWarning)
            cleaner.fit([*sample_pages(5), page])
    assert any(w.startswith(SCRIPTED) for w in cleaner.clean(page).warnings)
    assert any(w.startswith(SCRIPTED) for w in cleaner.clean(page, noise=False).warnings)


def test_normal_pages_get_no_warning() -> None:
    cleaner = get_cleaner("default")
    for page in sample_pages(5):
        result = cleaner.clean(page)
        assert result.text and result.warnings == [] and "warnings" not in result.meta
    # short pages: without scripts, or with scripts beside real text
    short = "<html><body><h1>Opening hours</h1><p>Open daily 9 to 5.</p></body></html>"
    assert cleaner.clean(Page.from_html(short)).warnings == []
    words = " ".join(["word"] * 40)
    busy = (f'<html><head><script src="a.js"></script></head><body><div id="root">'
            f"<p>{words}</p></div></body></html>")
    assert cleaner.clean(Page.from_html(busy)).warnings == []


def test_a_server_rendered_app_is_not_a_scripted_page() -> None:
    text = " ".join(f"Sentence {k} of the story, told on the server." for k in range(20))
    html = (f'<html><body><div id="__next"><article><h1>Story</h1><p>{text}</p></article>'
            '</div><script src="/_next/main.js"></script></body></html>')
    assert scripted(html, "") is None  # its root holds text: scripts did not fill it


# -- the batch ------------------------------------------------------------------------------

def _sources(n: int) -> list[Source]:
    return [Source(r["id"], "", r, str(SAMPLE_SITE)) for r in ROWS[:n]]


def test_the_batch_carries_fit_warnings_to_every_outcome_of_the_group() -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        outcomes = clean_group("sst", "hg", _sources(2))
    assert ours(record) == []  # carried in the outcomes instead, as from a worker
    assert all(len(o.fit_warnings) == 1 and o.fit_warnings[0].startswith(TOO_FEW)
               for o in outcomes)
    tally = WarningTally()
    lines = [line for o in outcomes for line in tally.add(o)]
    assert lines == [f"hg: {outcomes[0].fit_warnings[0]}"]  # once for the group
    assert (tally.count, tally.pages) == (1, 0)
    assert all(o.fit_warnings == () for o in clean_group("sst", "hg", _sources(10)))


def test_a_batch_outcome_carries_the_pages_warning(tmp_path: Path) -> None:
    shell = tmp_path / "shell.html"
    shell.write_text(APP_SHELL)
    plain = tmp_path / "plain.html"
    plain.write_text("<html><body><h1>Notes</h1><p>Plain page, plain text.</p></body></html>")
    sources = [Source("shell", str(shell)), Source("plain", str(plain))]
    shell_out, plain_out = clean_group("default", "files", sources)
    assert [w.startswith(SCRIPTED) for w in shell_out.warnings] == [True]
    assert plain_out.warnings == [] and plain_out.fit_warnings == ()
    tally = WarningTally()
    assert [tally.add(o) for o in (shell_out, plain_out)] == [[], []]
    assert (tally.count, tally.pages) == (1, 1)


def test_guarded_workers_report_fit_warnings_too(tmp_path: Path) -> None:
    limits = Limits(page_seconds=30.0)
    outcomes = list(run_groups({"hg": _sources(3)}, "sst", RunSettings(limits=limits)))
    assert len(outcomes) == 3 and all(o.result is not None for o in outcomes)
    assert all(o.fit_warnings and o.fit_warnings[0].startswith(TOO_FEW) for o in outcomes)
    report = fit_sources(_sources(3), "sst", tmp_path / "sst.json", RunSettings(limits=limits))
    assert report.fitted.error is None
    assert [w.startswith(TOO_FEW) for w in report.fitted.warnings] == [True]
    report = fit_sources(_sources(6), "sst", tmp_path / "sst6.json")
    assert report.fitted.error is None and report.fitted.warnings == ()


# -- the crawl ------------------------------------------------------------------------------

HOST = "www.harbourgazette.example"


def _site_pages(n: int) -> list[HttpResponse]:
    return [HttpResponse(f"https://{HOST}/{k}.html", read_page_bytes(SAMPLE_SITE, ROWS[k]))
            for k in range(n)]


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_crawl_writes_the_warning_into_the_record(tmp_path: Path, fmt: str) -> None:
    spa = f"https://{HOST}/app"
    warc = tmp_path / "crawl.warc"
    write_warc(warc, [*_site_pages(6), HttpResponse(spa, APP_SHELL.encode())])
    summary = run_crawl([str(warc)], tmp_path / "out", CrawlConfig(fit_sample=10),
                        run=RunSettings(1), fmt=fmt)
    assert summary["results"] == 7 and summary["balanced"]
    assert summary["warnings"] == {"pages": 1, "sites": 0}
    if fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        records = pq.read_table(tmp_path / "out" / "results.parquet").to_pylist()
    else:
        records = _lines(tmp_path / "out" / "results.jsonl")
    by_url = {r["url"]: r for r in records}
    assert by_url[spa]["text"] == ""
    assert [str(w).startswith(SCRIPTED) for w in by_url[spa]["warnings"]] == [True]
    assert all(r["warnings"] == [] for url, r in by_url.items() if url != spa)
    (site,) = _lines(tmp_path / "out" / "sites.jsonl")
    assert site["model"] == "fitted" and site["warnings"] == [] and site["warned_pages"] == 1


def test_a_crawl_records_a_weak_fit_in_its_site_entry(tmp_path: Path) -> None:
    warc = tmp_path / "small.warc"
    write_warc(warc, _site_pages(3))
    cfg = CrawlConfig(method="sst", min_site_pages=2, fit_sample=10)
    summary = run_crawl([str(warc)], tmp_path / "out", cfg, run=RunSettings(1))
    (site,) = _lines(tmp_path / "out" / "sites.jsonl")
    told = site["warnings"]
    assert site["model"] == "fitted" and isinstance(told, list)
    assert [str(w).startswith(f"{TOO_FEW}: sst fitted on 3 pages") for w in told] == [True]
    assert summary["warnings"] == {"pages": 0, "sites": 1}


# -- pages without main content -------------------------------------------------------------

def test_an_empty_result_says_why() -> None:
    cleaner = get_cleaner("default")
    error_page = cleaner.clean(Page.from_html(
        "<html><head><title>ERROR</title></head><body>\n</body></html>"))
    assert error_page.text == "" and error_page.no_main_content == "the page shows no text"
    shell = cleaner.clean(Page.from_html(APP_SHELL), noise=False)
    assert shell.no_main_content == "its text is filled in by scripts"
    assert shell.to_dict()["meta"]["no_main_content"] == "its text is filled in by scripts"
    kept_nothing = get_cleaner("default", threshold=0.9999).clean(Page.from_html(
        "<html><body><p>Some words that no cut this high keeps.</p></body></html>"))
    assert kept_nothing.no_main_content == "nothing on the page reads as main content"
    for page in sample_pages(3):
        assert cleaner.clean(page).no_main_content is None


def test_a_crawl_record_says_why_a_page_is_empty(tmp_path: Path) -> None:
    empty = f"https://{HOST}/error"
    warc = tmp_path / "crawl.warc"
    write_warc(warc, [*_site_pages(6), HttpResponse(empty, b"<html><body></body></html>")])
    run_crawl([str(warc)], tmp_path / "out", CrawlConfig(fit_sample=10), run=RunSettings(1))
    by_url = {r["url"]: r for r in _lines(tmp_path / "out" / "results.jsonl")}
    assert by_url[empty]["no_main_content"] == "the page shows no text"
    assert all(r["no_main_content"] is None for url, r in by_url.items() if url != empty)
