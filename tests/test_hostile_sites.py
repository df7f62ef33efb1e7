"""Hostile site samples and hostile nesting (issue 31, items 1 and 8), built from generators.

Site samples: a page repeated in a fit sample (five captures of one URL, an archive listed
twice) must count once in every site-level method's fit, and a page that a site model
empties must be cleaned by the fallback and say so. Nesting: the guard before the parser
must measure what the HTML5 tree builder builds: text inside scripts, comments and
textareas nests nothing; `<div/>` and reopened formatting elements do.
"""

from __future__ import annotations

import json
import random
import time
import warnings
from pathlib import Path

import pytest

from sitesift.batch import SitePolicy, Source, clean_group
from sitesift.cli import SAMPLE_SITE
from sitesift.crawl import run_crawl
from sitesift.datasets import read_index, read_page_bytes
from sitesift.errors import InputError, WeakFitWarning
from sitesift.io.warc import HttpResponse, write_warc
from sitesift.methods.base import get_class, get_cleaner, method_names
from sitesift.native import core
from sitesift.nesting import MAX_FORMATTING, MAX_NESTING, MAX_REBUILT
from sitesift.page import Page
from sitesift.shingles import bulk_shingle_ids, jaccard
from sitesift.sitework import CrawlConfig
from sitesift.text import TOKEN
from sitesift.weak import EMPTIED, REPEATED, distinct_pages

SITE_LEVEL = [m for m in method_names() if get_class(m).site_level]
ROWS = read_index(SAMPLE_SITE)
BODIES = [read_page_bytes(SAMPLE_SITE, r) for r in ROWS]


def sample_page(k: int) -> Page:
    return Page.from_bytes(BODIES[k], url=ROWS[k]["url"], site=ROWS[k]["site"],
                           id=ROWS[k]["id"])


def words(text: str) -> int:
    return len(TOKEN.findall(text))


def fitted(method: str, pages: list[Page]):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeakFitWarning)
        return get_cleaner(method).fit(pages)


# -- a generated site: one template, articles of random words ---------------------------------

_VOCAB = [a + b for a in ("har", "cou", "lib", "par", "fer", "mar", "sch", "wea", "riv", "bri")
          for b in ("bour", "ncil", "rary", "king", "ry", "ket", "ool", "ther", "er", "dge")]
FOOTER = "Copyright the Harbour Gazette, all rights reserved. Contact the newsroom at any time."


def _article(seed: int, n: int = 60) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(_VOCAB) for _ in range(n))


def gazette(k: int, main: str | None = None) -> str:
    """Page k of a generated site: the same nav and footer, an article of its own (or
    `main`). Every page has the same structure, so structure-based site models (sst, cst)
    read these articles as template too: pages a site model empties."""
    if main is None:
        main = f"<h1>Story {k}</h1>" + "".join(f"<p>{_article(k * 10 + j)}.</p>"
                                             for j in range(4))
    return (f"<html><head><title>Gazette {k}</title></head><body>"
            "<div class=nav><a href=/>Home</a> <a href=/news>News</a> "
            "<a href=/about>About us and our history</a></div>"
            f"<div class=main>{main}</div><div class=footer><p>{FOOTER}</p></div>"
            "</body></html>")


def gazette_sources(n: int) -> list[Source]:
    html = [gazette(k) for k in range(n)] + [gazette(99, f"<p>{FOOTER}</p>")]  # all template
    return [Source(str(k), "", {"url": f"http://gazette.example/{k}"},
                   data=h.encode(), content_type="text/html") for k, h in enumerate(html)]


# -- item 1: repeated pages count once ------------------------------------------------------

@pytest.mark.parametrize("method", SITE_LEVEL)
def test_a_page_captured_five_times_is_not_read_as_template(method: str) -> None:
    page = sample_page(0)
    model = fitted(method, [page] * 5)
    assert words(model.clean(page).text) > 100  # was 0 words for sst, ibdf and cst
    assert any(w.startswith(f"{REPEATED}: 4 of the 5 pages") for w in model.fit_warnings)


@pytest.mark.parametrize("method", SITE_LEVEL)
def test_a_sample_listed_twice_fits_the_model_of_the_sample_once(method: str) -> None:
    pages = [sample_page(k) for k in range(8)]
    once, twice = fitted(method, pages), fitted(method, pages + pages)
    assert [twice.clean(p).text for p in pages] == [once.clean(p).text for p in pages]


def test_near_duplicate_captures_count_once_and_distinct_pages_stay() -> None:
    base = sample_page(3).html
    later = base.replace("<body", "<body><p>Updated 11:05, 14 comments</p>", 1)
    pages = [sample_page(3), Page.from_html(later, id="later"), sample_page(4), sample_page(5)]
    # as every method reads the sample (a light parse), and as the default cleaner does (the
    # words of the core's reading of each page, which its fit and cleaning use again)
    for shingles in (None, get_cleaner("default").sample_shingles):
        kept, repeats = distinct_pages(pages) if shingles is None else distinct_pages(
            pages, shingles)
        assert [p.name for p in kept] == [pages[0].name, pages[2].name, pages[3].name]
        assert repeats == 1


def test_near_duplicates_checks_every_candidate_exactly() -> None:
    rng = random.Random(7)
    text = [rng.choice(_VOCAB) for _ in range(400)]
    near = text[:390] + ["changed"] * 10  # ~0.96 alike
    other = [rng.choice(_VOCAB) for _ in range(400)]
    sets = [bulk_shingle_ids(t, 5) for t in (text, near, other, list(text), [])]
    assert jaccard(sets[0], sets[1]) > 0.9 > jaccard(sets[0], sets[2])
    raw = [s.astype("<u8").tobytes() for s in sets]  # as the core takes them
    assert core().near_duplicates(raw, 0.9) == [0, 0, 2, 0, 4]
    assert core().near_duplicates(raw, 0.99) == [0, 1, 2, 0, 4]
    with pytest.raises(ValueError, match="8 bytes"):
        core().near_duplicates([raw[0][:-1]], 0.9)
    with pytest.raises(ValueError, match="threshold"):
        core().near_duplicates(raw, float("nan"))


def test_a_page_a_site_model_empties_is_cleaned_by_the_fallback_and_flagged() -> None:
    sources = gazette_sources(8)
    for method in ("sst", "cst", "ibdf"):
        outcomes = clean_group(method, "gazette.example", sources)
        assert all(o.result is not None and words(o.result.text) > 0 for o in outcomes)
        flagged = [o for o in outcomes if o.result and any(
            w.startswith(EMPTIED) for w in o.result.warnings)]
        assert flagged and all(o.result and o.result.method == "default" for o in flagged)
        assert outcomes[-1] in flagged  # the page that is all template
    # An evaluation measures the method alone: no fallback, the empty result says why.
    alone = clean_group(SitePolicy("sst", fallback=None), "gazette.example", sources)
    assert alone[-1].result is not None and alone[-1].result.text == ""
    assert alone[-1].result.no_main_content


def test_the_crawl_with_repeated_captures_and_an_archive_listed_twice(tmp_path: Path) -> None:
    warc = tmp_path / "site.warc"
    url = ROWS[0]["url"]
    write_warc(warc, [HttpResponse(url, BODIES[0]) for _ in range(5)]
               + [HttpResponse(ROWS[k]["url"], BODIES[k]) for k in range(1, 4)])
    generated = tmp_path / "gazette.warc"
    write_warc(generated, [HttpResponse(f"http://gazette.example/{s.id}", s.data or b"")
                           for s in gazette_sources(8)])
    cfg = CrawlConfig(method="sst", fit_sample=20)
    summary = run_crawl([str(warc), str(warc), str(generated)], tmp_path / "out", cfg)
    results = [json.loads(line) for line in
               (tmp_path / "out" / "results.jsonl").read_text("utf-8").splitlines()]
    assert len(results) == 16 + 9 and summary["balanced"]
    assert all(words(str(r["text"])) > 0 for r in results)
    gazette_flagged = [r for r in results if "gazette.example" in str(r["url"])
                       and any(str(w).startswith(EMPTIED) for w in r["warnings"])]
    assert gazette_flagged and {r["method"] for r in gazette_flagged} == {"default"}


# -- item 8: the nesting guard measures the tree the parser builds ---------------------------

TAGS = "<div>" * (MAX_NESTING + 1000)


@pytest.mark.parametrize("html", [
    f"<p>Before.</p><script>var t = '{TAGS}';</script><p>After.</p>",
    '<script type="application/ld+json">' + '{"h": "<span>"}' * (MAX_NESTING + 1000)
    + "</script><p>After.</p>",
    f"<p>Before.</p><!-- {TAGS} --><p>After.</p>",
    f"<form><textarea>{TAGS}</textarea></form><p>After.</p>",
    f"<p>Before.</p><style>{TAGS}</style><p>After.</p>",
    "<p>Before.</p><!-- never closed " + "<div>" * 400_000,
    "<p>Before.</p><title>t</title><iframe>" + TAGS + "</iframe><p>After.</p>",
    "<table>" + "<tr><td><font face=arial>cell" * (MAX_NESTING + 1000) + "</table>",
    "<font face=arial>" + "<p><font size=2>text" * (MAX_NESTING + 1000),
    "<nobr>" * 100_000 + "<p>After.</p>",
    "<svg>" + "<g/>" * (MAX_NESTING + 1000) + "</svg><p>After.</p>",
], ids=["script", "json", "comment", "textarea", "style", "unclosed-comment", "iframe",
        "font-in-cells", "font-in-paragraphs", "nobr", "svg-self-closed"])
def test_text_that_holds_no_elements_and_tags_the_parser_closes_pass(html: str) -> None:
    Page.from_html(f"<html><body>{html}</body></html>")  # each refused before (or too slow)


@pytest.mark.parametrize(("html", "why"), [
    ("<div/>" * 50_000, "nested 50,000 deep"),
    ("".join(f"<b id={i}>" for i in range(50_000)), "nested 50,000 deep"),
    ("".join(f"<font size={i}>" for i in range(50_000)), "nested 50,000 deep"),
    ("<b>" * 50_000, "nested 50,000 deep"),
    ("".join(f"<b id={i}>" for i in range(MAX_FORMATTING + 500)) + "<p>x",
     f"{MAX_FORMATTING + 500:,} formatting elements"),
    ("".join(f"<b id={i}><p>t" for i in range(800)), "would rebuild 319,600 times"),
    ("".join(f"<div><i class={i}>t</div>" for i in range(1000)), "would rebuild 499,500 times"),
], ids=["div-self-closed", "b-id", "font-size", "b", "b-id-under-depth", "b-id-p", "div-i"])
def test_floods_that_really_nest_are_refused_at_once(html: str, why: str) -> None:
    start = time.process_time()
    with pytest.raises(InputError, match=why):
        Page.from_html(html, id="flood")
    assert time.process_time() - start < 1.0  # measured: 0.25 s at most; 50k <b id> parsed 33 s


def test_the_rebuild_count_is_what_the_parser_builds() -> None:
    """The guard's count of rebuilt formatting elements against Lexbor's tree, just under
    the limit: the same within the few elements a page has besides."""
    from selectolax.lexbor import LexborHTMLParser

    html = "".join(f"<b id={i}><p>t" for i in range(700))
    from sitesift.nesting import _Shape

    shape = _Shape()
    shape.scan(html)
    assert shape.rebuilt < MAX_REBUILT
    built = len(LexborHTMLParser(html).css("*"))
    assert 0 <= built - (shape.rebuilt + 700 * 2) < 10
    Page.from_html(html)  # under every limit: parsed
